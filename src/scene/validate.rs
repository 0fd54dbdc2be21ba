//! Checks a parsed scene against the contract; every error names its key and line.

use super::{BoundaryMode, Scene};
use crate::error::Result;

pub fn validate(scene: &Scene, text: &str) -> Result<()> {
    let err = |key: &str, msg: String| Err(scene.error_at(Some(text), key, msg));
    let finite = |key: &str, v: f64| -> Result<()> {
        if v.is_finite() {
            Ok(())
        } else {
            Err(scene.error_at(Some(text), key, format!("must be a finite number (got {v})")))
        }
    };

    let g = &scene.grid;
    if g.nx < 2 {
        return err("grid.nx", format!("must be at least 2 (got {})", g.nx));
    }
    if g.ny < 2 {
        return err("grid.ny", format!("must be at least 2 (got {})", g.ny));
    }
    if !(g.dx > 0.0 && g.dx.is_finite()) {
        return err("grid.dx", format!("must be a finite number > 0 (got {})", g.dx));
    }
    if !(scene.time.dt > 0.0 && scene.time.dt.is_finite()) {
        return err(
            "time.dt",
            format!("must be a finite number > 0 (got {})", scene.time.dt),
        );
    }
    if scene.time.substeps == 0 {
        return err("time.substeps", "must be at least 1".into());
    }

    let p = &scene.physics;
    if !(p.gravity > 0.0 && p.gravity.is_finite()) {
        return err(
            "physics.gravity",
            format!("must be a finite number > 0 (got {})", p.gravity),
        );
    }
    if !(0.0..1.0).contains(&p.damping) {
        return err("physics.damping", format!("must be in [0, 1) (got {})", p.damping));
    }
    if !(p.water_density > 0.0 && p.water_density.is_finite()) {
        return err(
            "physics.water_density",
            format!("must be > 0 (got {})", p.water_density),
        );
    }
    let s = scene.boundary.sides();
    let periodic = BoundaryMode::Periodic;
    if (s.west == periodic) != (s.east == periodic) {
        let key = if s.west == periodic {
            "boundary.west"
        } else {
            "boundary.east"
        };
        let key = if scene.boundary.west.is_some() || scene.boundary.east.is_some() {
            key
        } else {
            "boundary.all"
        };
        return err(key, "periodic must be set on both west and east".into());
    }
    if (s.south == periodic) != (s.north == periodic) {
        let key = if s.south == periodic {
            "boundary.south"
        } else {
            "boundary.north"
        };
        return err(key, "periodic must be set on both south and north".into());
    }

    let t = &scene.terrain;
    let kinds: Vec<&str> = [
        t.flat.map(|_| "flat"),
        t.slope.map(|_| "slope"),
        t.npy.as_ref().map(|_| "npy"),
        t.png.as_ref().map(|_| "png"),
    ]
    .into_iter()
    .flatten()
    .collect();
    if kinds.len() > 1 {
        return err(
            &format!("terrain.{}", kinds[1]),
            format!(
                "at most one of flat / slope / npy / png may be given (got {})",
                kinds.join(" and ")
            ),
        );
    }
    if let Some(v) = t.flat {
        finite("terrain.flat", v)?;
    }
    if let Some(sl) = t.slope {
        finite("terrain.slope", sl.base)?;
        finite("terrain.slope", sl.grad[0])?;
        finite("terrain.slope", sl.grad[1])?;
    }
    if let Some(png) = &t.png {
        finite("terrain.png", png.min)?;
        finite("terrain.png", png.max)?;
        if png.max < png.min {
            return err("terrain.png", format!("max ({}) is below min ({})", png.max, png.min));
        }
    }
    for (i, b) in t.boxes.iter().enumerate() {
        let key = format!("terrain.box[{i}]");
        for v in [b.x0, b.y0, b.x1, b.y1, b.top] {
            finite(&key, v)?;
        }
        if b.x1 < b.x0 {
            return err(
                &format!("{key}.x1"),
                format!("x1 ({}) is less than x0 ({})", b.x1, b.x0),
            );
        }
        if b.y1 < b.y0 {
            return err(
                &format!("{key}.y1"),
                format!("y1 ({}) is less than y0 ({})", b.y1, b.y0),
            );
        }
    }

    if let Some(l) = scene.water.level {
        finite("water.level", l)?;
    }
    for (i, b) in scene.water.bumps.iter().enumerate() {
        let key = format!("water.bump[{i}]");
        for v in [b.x, b.y, b.height] {
            finite(&key, v)?;
        }
        if !(b.radius > 0.0 && b.radius.is_finite()) {
            return err(&format!("{key}.radius"), format!("must be > 0 (got {})", b.radius));
        }
    }

    // Rounded to nanometres so 6 × 0.1 prints as 0.6.
    let (wx, wy) = (
        (g.nx as f64 * g.dx * 1e9).round() / 1e9,
        (g.ny as f64 * g.dx * 1e9).round() / 1e9,
    );
    let mut names = std::collections::HashSet::new();
    for (i, pr) in scene.output.probes.iter().enumerate() {
        let key = format!("output.probe[{i}]");
        if pr.name.is_empty() || pr.name.contains([',', '\n', '"']) {
            return err(
                &format!("{key}.name"),
                "must be non-empty, without commas, quotes or newlines".into(),
            );
        }
        if !names.insert(pr.name.as_str()) {
            return err(
                &format!("{key}.name"),
                format!("\"{}\" is used by another probe", pr.name),
            );
        }
        if !(pr.x >= 0.0 && pr.x < wx && pr.y >= 0.0 && pr.y < wy) {
            return err(
                &key,
                format!("({}, {}) is outside the domain [0, {wx}) × [0, {wy})", pr.x, pr.y),
            );
        }
    }

    for (k, s) in scene.sources.iter().enumerate() {
        let key = format!("source[{k}]");
        if !(s.x >= 0.0 && s.x < wx && s.y >= 0.0 && s.y < wy) {
            return err(
                &format!("{key}.x"),
                format!("({}, {}) is outside the domain [0, {wx}) × [0, {wy})", s.x, s.y),
            );
        }
        if !(s.radius >= 0.0 && s.radius.is_finite()) {
            return err(&format!("{key}.radius"), format!("must be ≥ 0 (got {})", s.radius));
        }
        if !s.rate.is_finite() {
            return err(
                &format!("{key}.rate"),
                format!("must be a finite number (got {})", s.rate),
            );
        }
    }

    // Keys whose features are later issues: refuse them clearly rather than ignore them.
    if let Some(r) = &scene.rain {
        if !(r.rate >= 0.0 && r.rate.is_finite()) {
            return err(
                "rain.rate",
                format!("must be a finite number ≥ 0 drops/s (got {})", r.rate),
            );
        }
        if !(r.radius > 0.0 && r.radius.is_finite()) {
            return err("rain.radius", format!("must be > 0 (got {})", r.radius));
        }
        if !(r.height >= 0.0 && r.height.is_finite()) {
            return err("rain.height", format!("must be a finite number ≥ 0 (got {})", r.height));
        }
    }
    for (k, b) in scene.bodies.iter().enumerate() {
        let key = |name: &str| format!("body[{k}].{name}");
        if !b.size.iter().all(|&s| s > 0.0 && s.is_finite()) {
            return err(&key("size"), format!("every extent must be > 0 (got {:?})", b.size));
        }
        let [x, y, z] = b.position;
        if !(x >= 0.0 && x < wx && y >= 0.0 && y < wy && z.is_finite()) {
            return err(
                &key("position"),
                format!("({x}, {y}) is outside the domain [0, {wx}) × [0, {wy})"),
            );
        }
        let finite = |v: &[f64; 3]| v.iter().all(|c| c.is_finite());
        for (name, v) in [
            ("rotation", &b.rotation),
            ("velocity", &b.velocity),
            ("angular_velocity", &b.angular_velocity),
        ] {
            if !finite(v) {
                return err(&key(name), format!("must be finite numbers (got {v:?})"));
            }
        }
        if !(b.density > 0.0 && b.density.is_finite()) {
            return err(&key("density"), format!("must be > 0 kg/m³ (got {})", b.density));
        }
        if b.fixed && b.kinematic {
            return err(&key("kinematic"), "a body cannot be both fixed and kinematic".into());
        }
        let cells = b.size[0].min(b.size[1]) / scene.grid.dx;
        if cells > (scene.grid.nx.max(scene.grid.ny)) as f64 {
            return err(&key("size"), "the body is larger than the domain".into());
        }
    }
    let p = &scene.physics;
    if !(p.coupling_relaxation > 0.0 && p.coupling_relaxation <= 1.0) {
        return err(
            "physics.coupling_relaxation",
            format!("must be in (0, 1] (got {})", p.coupling_relaxation),
        );
    }
    if p.coupling_iterations == Some(0) || p.coupling_iterations.is_some_and(|n| n > 10_000) {
        return err("physics.coupling_iterations", "must be in 1..=10000".into());
    }
    if !(p.coupling_tolerance > 0.0 && p.coupling_tolerance < 1.0) {
        return err(
            "physics.coupling_tolerance",
            format!("must be in (0, 1) (got {})", p.coupling_tolerance),
        );
    }
    for (name, v) in [("body_drag", p.body_drag), ("body_angular_drag", p.body_angular_drag)] {
        if !(v >= 0.0 && v.is_finite()) {
            return err(
                &format!("physics.{name}"),
                format!("must be a finite number ≥ 0 (got {v})"),
            );
        }
    }
    Ok(())
}
