//! A quantity over time from a `time,value` table (`io::csv::read_series`): linear between rows,
//! held at the first row's value before it and the last row's after it. Hydrographs, rainfall
//! series and the Navier-Stokes layer's inflow tables all read their tables through it.

/// Rows of (time s, value), at least two, times increasing (`read_series` guarantees it).
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    rows: Vec<(f64, f64)>,
}

impl Table {
    /// A table of `rows` (at least one; times increasing).
    pub fn new(rows: Vec<(f64, f64)>) -> Table {
        assert!(!rows.is_empty(), "a table needs a row");
        Table { rows }
    }

    /// The value at time `t`.
    pub fn at(&self, t: f64) -> f64 {
        let rows = &self.rows;
        let after = rows.partition_point(|&(time, _)| time <= t);
        match (after.checked_sub(1).map(|i| rows[i]), rows.get(after)) {
            (Some((t0, v0)), Some(&(t1, v1))) => v0 + (v1 - v0) * (t - t0) / (t1 - t0),
            (Some((_, v)), None) | (None, Some(&(_, v))) => v,
            (None, None) => 0.0,
        }
    }

    /// ∫ value dt from the first row's time to `t` (negative before it), exact for the
    /// piecewise-linear value: a step's share is `integral(t1) − integral(t0)`, so the shares of
    /// consecutive steps add up to the whole without drift.
    pub fn integral(&self, t: f64) -> f64 {
        let rows = &self.rows;
        let (t_first, v_first) = rows[0];
        if t <= t_first {
            return v_first * (t - t_first);
        }
        let mut sum = 0.0;
        for w in rows.windows(2) {
            let ((t0, v0), (t1, v1)) = (w[0], w[1]);
            if t <= t1 {
                let v = v0 + (v1 - v0) * (t - t0) / (t1 - t0);
                return sum + 0.5 * (v0 + v) * (t - t0);
            }
            sum += 0.5 * (v0 + v1) * (t1 - t0);
        }
        let (t_last, v_last) = rows[rows.len() - 1];
        sum + v_last * (t - t_last)
    }

    /// The smallest value in the table (the value never goes below it).
    pub fn min(&self) -> f64 {
        self.rows.iter().map(|r| r.1).fold(f64::INFINITY, f64::min)
    }

    /// The largest value in the table (the value never goes above it).
    pub fn max(&self) -> f64 {
        self.rows.iter().map(|r| r.1).fold(f64::NEG_INFINITY, f64::max)
    }
}

/// A scene's CSV file of `time,value` rows (`io::csv::read_series`: two rows at least, times
/// increasing, finite numbers), its errors naming `key`.
pub fn read(scene: &crate::scene::Scene, file: &std::path::Path, key: &str) -> crate::error::Result<Table> {
    crate::io::csv::read_series(&scene.resolve_path(file))
        .map(Table::new)
        .map_err(|message| crate::error::Error::Scene {
            file: scene.origin.clone(),
            line: None,
            message: format!("{key} = \"{}\": {message}", file.display()),
        })
}

#[cfg(test)]
mod tests {
    use super::Table;

    #[test]
    fn values_interpolate_and_hold_and_the_integral_is_the_trapezoids() {
        let t = Table::new(vec![(1.0, 2.0), (3.0, 6.0), (4.0, 0.0)]);
        assert_eq!(t.at(0.0), 2.0);
        assert_eq!(t.at(2.0), 4.0);
        assert_eq!(t.at(3.5), 3.0);
        assert_eq!(t.at(9.0), 0.0);
        assert_eq!(t.integral(1.0), 0.0);
        assert_eq!(t.integral(0.0), -2.0);
        // 2→4 over [1, 2]: 3; then to 3: 5 more; 3→0 over [3, 4]: 3.
        assert_eq!(t.integral(2.0), 3.0);
        assert_eq!(t.integral(3.0), 8.0);
        assert_eq!(t.integral(4.0), 11.0);
        assert_eq!(t.integral(10.0), 11.0);
        // Shares of many short steps add up to the whole.
        let steps: f64 = (0..1000)
            .map(|n| t.integral(n as f64 * 0.005) - t.integral((n as f64 - 1.0) * 0.005))
            .sum();
        assert!((steps - (t.integral(4.995) - t.integral(-0.005))).abs() < 1e-12);
    }
}
