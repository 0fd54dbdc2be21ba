//! The UK Environment Agency's 2D benchmarks (Néelz & Pender 2013, report SC120002) the scenes
//! ship (`scenes/ea_test*.toml`), on the shallow-water model, checked against what physics fixes
//! rather than against other packages' spread (whose result files are not to hand here).
//!
//! Test 4 (a breach onto a flat floodplain) has a reference of its own: its inflow enters
//! through a closed wall, so by reflection the half-plane flow is the whole plane's around a
//! source of twice the discharge, and away from the far walls it is axisymmetric. `radial` below
//! solves that 1-D problem (the same equations in r, Manning's friction, 1 m cells), and the 2-D
//! run must match it along the axis, across the diagonal (the front as fast across the grid as
//! along it) and at the front.

use crate::common::*;
use shoal::{Backend, Scene};
use std::path::Path;

const G: f64 = 9.81;

/// Test 4's hydrograph (`scenes/ea_test4_q.csv`), m³/s at t seconds.
fn breach(t: f64) -> f64 {
    let rows = [(0.0, 0.0), (3600.0, 20.0), (14400.0, 20.0), (18000.0, 0.0)];
    rows.windows(2)
        .find(|w| t <= w[1].0)
        .map_or(0.0, |w| w[0].1 + (w[1].1 - w[0].1) * (t - w[0].0) / (w[1].0 - w[0].0))
}

/// The axisymmetric reference: depth at each of `cells` rings of `dr` metres after `t_end`
/// seconds, water entering at rest at `q(t)` m³/s over the rings inside `source` metres, on flat
/// ground with Manning's `n`. A first-order finite-volume scheme (Rusanov's flux, the ring's
/// hoop pressure as its source, so still water stays still; friction semi-implicit), at Courant
/// 0.45: fine enough that its own error (a front smeared over a few metres) is far below what
/// the 2-D grid is checked to.
fn radial(q: impl Fn(f64) -> f64, source: f64, n: f64, dr: f64, cells: usize, t_end: f64) -> Vec<f64> {
    let (mut h, mut m) = (vec![0.0f64; cells], vec![0.0f64; cells]);
    // Per radian: ring i spans faces r_i and r_{i+1}, its area (r_{i+1}² − r_i²)/2.
    let face = |i: usize| i as f64 * dr;
    let area: Vec<f64> = (0..cells)
        .map(|i| (face(i + 1).powi(2) - face(i).powi(2)) / 2.0)
        .collect();
    let fed = (0..cells).take_while(|&i| face(i + 1) <= source).count().max(1);
    let fed_area = std::f64::consts::PI * face(fed).powi(2);
    let speed = |h: f64, m: f64| if h > 1e-9 { m / h } else { 0.0 };
    let mut t = 0.0;
    let mut flux = vec![[0.0f64; 2]; cells + 1];
    while t < t_end {
        let fastest = (0..cells)
            .map(|i| speed(h[i], m[i]).abs() + (G * h[i]).sqrt())
            .fold(1e-3, f64::max);
        let dt = (0.45 * dr / fastest).min(t_end - t).min(1.0);
        // Rusanov's flux through each inner face; the centre's face has no area, the outer
        // one is a wall the front never reaches.
        for j in 1..cells {
            let (hl, ml, hr, mr) = (h[j - 1], m[j - 1], h[j], m[j]);
            let (ul, ur) = (speed(hl, ml), speed(hr, mr));
            let s = (ul.abs() + (G * hl).sqrt()).max(ur.abs() + (G * hr).sqrt());
            let fl = [ml, ml * ul + G * hl * hl / 2.0];
            let fr = [mr, mr * ur + G * hr * hr / 2.0];
            flux[j] = [
                0.5 * (fl[0] + fr[0]) - 0.5 * s * (hr - hl),
                0.5 * (fl[1] + fr[1]) - 0.5 * s * (mr - ml),
            ];
        }
        let rate = q(t + dt / 2.0) / fed_area;
        for i in 0..cells {
            let (inner, outer) = (face(i) * flux[i][0], face(i + 1) * flux[i + 1][0]);
            let hoop = G * h[i] * h[i] / 2.0 * dr;
            let (inner_m, outer_m) = (face(i) * flux[i][1], face(i + 1) * flux[i + 1][1]);
            h[i] += dt * (inner - outer) / area[i] + if i < fed { dt * rate } else { 0.0 };
            m[i] += dt * (inner_m - outer_m + hoop) / area[i];
            if h[i] <= 1e-9 {
                h[i] = h[i].max(0.0);
                m[i] = 0.0;
            } else {
                m[i] /= 1.0 + dt * G * n * n * m[i].abs() / h[i].powf(7.0 / 3.0);
            }
        }
        t += dt;
    }
    h
}

/// The reference's depth at radius `r` (linear between ring centres).
fn at(depth: &[f64], dr: f64, r: f64) -> f64 {
    let x = (r / dr - 0.5).max(0.0);
    let i = (x.floor() as usize).min(depth.len() - 2);
    let f = x - i as f64;
    depth[i] * (1.0 - f) + depth[i + 1] * f
}

/// `scenes/ea_test4.toml` with its grid at `dx` metres and `steps` steps, in `dir`.
fn test4(dir: &Path, dx: f64, steps: u64) -> Scene {
    let scenes = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes");
    std::fs::copy(scenes.join("ea_test4_q.csv"), dir.join("ea_test4_q.csv")).unwrap();
    let text = std::fs::read_to_string(scenes.join("ea_test4.toml")).unwrap();
    let (nx, ny) = ((1000.0 / dx) as usize, (2000.0 / dx) as usize);
    let text = text
        .replace(
            "nx = 200\nny = 400\ndx = 5.0",
            &format!("nx = {nx}\nny = {ny}\ndx = {dx}"),
        )
        .replace("steps = 1800", &format!("steps = {steps}"))
        .replace("x = 2.5\ny = 1000.0", &format!("x = {}\ny = 1000.0", dx / 2.0));
    assert!(
        text.contains(&format!("dx = {dx}")),
        "the scene's [grid] is as this test expects"
    );
    scene_in(dir, &text)
}

#[test]
fn ea_test4s_front_runs_as_the_axisymmetric_solution_along_the_axis_and_the_diagonal() {
    let dir = tempfile::tempdir().unwrap();
    // A 10 m grid (the report's is 5 m) for an hour: the front is then ~400 m out, clear of
    // every wall (1000 m away), so the reference holds.
    let (dx, hour) = (10.0, 3600.0);
    let scene = test4(dir.path(), dx, 360);
    let mut sim = simulation(&scene, Backend::Cpu);
    sim.step(360).unwrap();
    assert_eq!(sim.time(), hour);
    let surface = sim.surface().unwrap();
    let (nx, ny) = (scene.grid.nx as usize, scene.grid.ny as usize);
    let depth = |x: f64, y: f64| {
        let (i, j) = ((x / dx) as usize, (y / dx) as usize);
        let c = j * nx + i;
        (surface[c] - sim.ground()[c]).max(0.0)
    };
    // The 2-D breach: the two cells within 10 m of (5, 1000), a 10 m × 20 m block on the wall;
    // the reference spreads twice its discharge over a disc of twice its area.
    let source = (2.0 * 200.0 / std::f64::consts::PI).sqrt();
    let dr = 1.0;
    let reference = radial(|t| 2.0 * breach(t), source, 0.05, dr, 1000, hour);

    // The volume is what came in, ∫Q dt = 36 000 m³, to float32's rounding of 20 000 cells.
    let volume: f64 = (0..nx * ny)
        .map(|c| (surface[c] - sim.ground()[c]).max(0.0))
        .sum::<f64>()
        * dx
        * dx;
    assert!(
        (volume - 36_000.0).abs() < 36_000.0 * 1e-5,
        "volume {volume} m³ against 36 000"
    );

    // Along the axis, at the report's points 1–4 (cell centres' radii): within 3 % of the
    // reference's depth (measured 0.8–1.4 %, the 2-D grid's ten metres against its one: 0.3035 m
    // against 0.3010 at 55 m, 0.1201 against 0.1184 at 305 m).
    let mut report = String::new();
    for x in [50.0, 100.0, 200.0, 300.0] {
        let cx = ((x / dx).floor() + 0.5) * dx;
        let (got, want) = (depth(x, 1000.0 + dx / 2.0), at(&reference, dr, cx));
        report += &format!("axis r = {cx}: {got:.4} m against {want:.4}\n");
        assert!((got - want).abs() < 0.03 * want, "{report}");
    }
    // Across the diagonal at the same radii: the flow runs as fast across the cells as along
    // them, within 3 % of the reference too (measured 1.0–1.5 %).
    for r in [100.0, 200.0, 300.0] {
        let (x, y) = (r / 2f64.sqrt(), 1000.0 + r / 2f64.sqrt());
        let (cx, cy) = (((x / dx).floor() + 0.5) * dx, ((y / dx).floor() + 0.5) * dx);
        let cr = (cx.powi(2) + (cy - 1000.0).powi(2)).sqrt();
        let (got, want) = (depth(x, y), at(&reference, dr, cr));
        report += &format!("diagonal r = {cr:.1}: {got:.4} m against {want:.4}\n");
        assert!((got - want).abs() < 0.03 * want, "{report}");
    }
    // The front (the last cell 1 cm deep along the axis) within a cell of the reference's
    // (measured 409 m against 417).
    let front = |wet: &dyn Fn(f64) -> bool| {
        (0..1000)
            .map(|r| r as f64)
            .take_while(|&r| wet(r))
            .last()
            .unwrap_or(0.0)
    };
    let (got, want) = (
        front(&|r| depth(r.max(dx / 2.0), 1000.0 + dx / 2.0) > 0.01),
        front(&|r| at(&reference, dr, r) > 0.01),
    );
    report += &format!("front: {got} m against {want}\n");
    assert!((got - want).abs() <= dx, "{report}");
    println!("{report}");
}

#[test]
fn the_radial_reference_keeps_its_volume_and_still_water_still() {
    // The reference's own checks: ∫Q dt lands in the rings to rounding, and a source that
    // never runs leaves dry ground dry.
    let dr = 1.0;
    let depth = radial(|_| 5.0, 10.0, 0.03, dr, 400, 200.0);
    let rings: f64 = depth
        .iter()
        .enumerate()
        .map(|(i, h)| h * std::f64::consts::PI * (((i + 1) as f64 * dr).powi(2) - (i as f64 * dr).powi(2)))
        .sum();
    assert!((rings - 1000.0).abs() < 1e-9 * 1000.0, "{rings} m³ against 1000");
    assert!(radial(|_| 0.0, 10.0, 0.03, dr, 50, 10.0).iter().all(|&h| h == 0.0));
}

/// `scenes/NAME` read into `dir` beside its data files, with `edits` (from, to) made to its text.
fn preset(dir: &Path, name: &str, data: &[&str], edits: &[(&str, &str)]) -> Scene {
    let scenes = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes");
    for file in data {
        std::fs::copy(scenes.join(file), dir.join(file)).unwrap();
    }
    let mut text = std::fs::read_to_string(scenes.join(name)).unwrap();
    for (from, to) in edits {
        assert!(text.contains(from), "{name} has `{from}`");
        text = text.replace(from, to);
    }
    scene_in(dir, &text)
}

#[test]
fn ea_test1s_cut_off_hollow_keeps_its_water_at_the_ridges_crest() {
    let dir = tempfile::tempdir().unwrap();
    let scene = preset(dir.path(), "ea_test1.toml", &["ea_test1_stage.csv"], &[]);
    let mut sim = simulation(&scene, Backend::Cpu);
    let (nx, dx) = (scene.grid.nx as usize, scene.grid.dx);
    // The mean surface over the wet cells of the columns between x0 and x1 metres.
    let level = |sim: &mut shoal::Simulation, x0: f64, x1: f64| {
        let (surface, ground) = (sim.surface().unwrap(), sim.ground().to_vec());
        let wet: Vec<f64> = (0..surface.len())
            .filter(|&c| {
                let x = ((c % nx) as f64 + 0.5) * dx;
                x > x0 && x < x1 && surface[c] > ground[c] + 1e-3
            })
            .map(|c| surface[c])
            .collect();
        wet.iter().sum::<f64>() / wet.len().max(1) as f64
    };
    // The flood (the side at 10.35 m at 1 h) tops the ridge and fills the second hollow to
    // near the crest while the side falls (measured 10.0986 m at 3 h; dry until 1 h).
    let mut filled: f64 = 0.0;
    for _ in 0..30 {
        sim.step(60).unwrap();
        filled = filled.max(level(&mut sim, 300.0, 500.0));
    }
    assert!(filled > 10.05, "the second hollow filled to {filled} m");
    // After the fall (5 h: the side back at 9.7 m since 3 h) the first hollow is at the side's
    // level (measured 9.70006 m), the second is cut off at the ridge's crest, 10.1 m, less
    // nothing and plus the film still draining off the ridge (measured 10.1007 m): within 5 mm.
    let first = level(&mut sim, 0.0, 200.0);
    let second = level(&mut sim, 300.0, 500.0);
    assert!(
        (first - 9.7).abs() < 0.005,
        "the first hollow is at {first} m, the side at 9.7"
    );
    assert!(
        (second - 10.1).abs() < 0.005,
        "the second hollow keeps {second} m, the crest 10.1"
    );
    // The high ground (10.6 m, above the peak) never wet: its flood maps are dry.
    let maps = sim.summary().unwrap().expect("the scene keeps flood maps");
    for c in (0..maps.first_wet.len()).filter(|&c| ((c % nx) as f64 + 0.5) * dx > 500.0) {
        assert_eq!(maps.first_wet[c], -1.0, "high ground cell {c} was wet");
        assert_eq!(maps.max_depth[c], 0.0, "high ground cell {c} held water");
    }
}

/// The level water in the hollow holding `start` fills to before it spills: the lowest level at
/// which a path from `start` (grid neighbours) reaches lower ground. Priority flood: cells in
/// order of the highest ground on their lowest path; the first reached below that height lies
/// past the spill point.
fn spill_level(ground: &[f64], nx: usize, start: usize) -> f64 {
    use std::cmp::Reverse;
    // f64's total order as an integer's, for the heap.
    let key = |z: f64| {
        let bits = z.to_bits() as i64;
        Reverse(bits ^ (((bits >> 63) as u64) >> 1) as i64)
    };
    let mut level = vec![f64::NAN; ground.len()];
    let mut heap = std::collections::BinaryHeap::new();
    level[start] = ground[start];
    heap.push((key(ground[start]), start));
    while let Some((_, c)) = heap.pop() {
        if ground[c] < level[c] {
            return level[c];
        }
        let (i, j) = (c % nx, c / nx);
        let near = [
            (i > 0).then(|| c - 1),
            (i + 1 < nx).then(|| c + 1),
            (j > 0).then(|| c - nx),
            (c + nx < ground.len()).then(|| c + nx),
        ];
        for n in near.into_iter().flatten() {
            if level[n].is_nan() {
                level[n] = level[c].max(ground[n]);
                heap.push((key(level[n]), n));
            }
        }
    }
    f64::INFINITY
}

#[test]
fn ea_test2s_first_hollow_holds_water_to_its_spill_level_and_the_volume_is_what_came_in() {
    let dir = tempfile::tempdir().unwrap();
    // The report's plain on a 40 m grid (the DEM resampled; the report's is 20 m), for 12 hours:
    // the inflow ends at 85 minutes and the water has settled in the hollows it reached.
    let scene = preset(
        dir.path(),
        "ea_test2.toml",
        &["ea_test2.tif", "ea_test2_q.csv"],
        &[
            ("[time]", "[grid]\nnx = 50\nny = 50\ndx = 40.0\n\n[time]"),
            ("steps = 5760", "steps = 1440"),
        ],
    );
    let mut sim = simulation(&scene, Backend::Cpu);
    sim.step(1440).unwrap();
    let (surface, ground) = (sim.surface().unwrap(), sim.ground().to_vec());
    let (nx, dx) = (scene.grid.nx as usize, scene.grid.dx);
    // 66 000 m³ came in (five sources, each a fifth of the hydrograph): all of it is there, to
    // float32's rounding of 2500 surfaces, the stages' and the feed's roundings kept in each
    // cell's carry (without it the settling films gained 0.34 % in 9 hours at 20 m).
    let volume: f64 = surface.iter().zip(&ground).map(|(h, b)| h - b).sum::<f64>() * dx * dx;
    assert!(
        (volume / 66_000.0 - 1.0).abs() < 1e-6,
        "volume {volume} m³ against 66 000"
    );
    // The first hollow (the inflow's, its lowest cell near (250, 1750)) filled and spilled: its
    // water stands at its spill level, the lowest saddle out of it (on the model's own cells:
    // the hydrostatic reconstruction's faces take the higher of their two cells' ground, as the
    // priority flood's path does), never under it, and above it by the head still draining over
    // the saddle, which Manning's friction slows as it falls (measured 1.9 cm at 12 h; 3 cm
    // allowed).
    let cell = |x: f64, y: f64| (y / dx) as usize * nx + (x / dx) as usize;
    let bottom = (0..ground.len())
        .filter(|&c| {
            let (x, y) = (((c % nx) as f64 + 0.5) * dx, ((c / nx) as f64 + 0.5) * dx);
            x < 500.0 && y > 1500.0
        })
        .min_by(|&a, &b| ground[a].total_cmp(&ground[b]))
        .unwrap();
    let spill = spill_level(&ground, nx, bottom);
    let level = surface[cell(250.0, 1750.0)];
    println!(
        "first hollow: surface {level:.4} m, spill level {spill:.4} m, bottom {:.4} m",
        ground[bottom]
    );
    assert!(
        level > spill - 1e-3 && level < spill + 0.03,
        "the first hollow stands at {level} m, its spill level {spill} m"
    );
}
