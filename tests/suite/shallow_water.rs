//! The shallow-water model against the literature (SWASHES, Delestre et al. 2013): the lake at
//! rest, Ritter's and Stoker's dam breaks, MacDonald's steady flow with Manning friction, the
//! transcritical flow over a bump with its jump; and
//! against itself: volume to rounding, the fast CPU path and checkpoints bit for bit, the GPU
//! within float32 rounding of its twin.

use crate::common::{hold_gpu, scene_in, simulation, write_npy};
use shoal::{Backend, Scene, Simulation};
use std::path::Path;

const G: f64 = 9.81;

/// A 1-D channel of `nx` cells of `dx` (two cells across, reflecting walls all round), with the
/// surface `h.npy` and ground `b.npy` in its folder. The dam breaks stand 10 m from the west
/// wall, which the rarefaction does not reach by t = 2 s.
fn channel(nx: usize, dx: f64, dt: f64, extra: &str) -> String {
    format!(
        r#"
[grid]
nx = {nx}
ny = 2
dx = {dx}
[time]
dt = {dt}
[physics]
model = "shallow-water"
[terrain]
npy = "b.npy"
[water]
npy = "h.npy"
{extra}
"#
    )
}

/// `channel`'s scene over `ny` rows, with Manning's n where `manning` is positive.
fn basin(nx: usize, ny: usize, dx: f64, dt: f64, manning: f64, extra: &str) -> String {
    let text = channel(nx, dx, dt, extra).replace("ny = 2", &format!("ny = {ny}"));
    if manning > 0.0 {
        text.replace(
            "model = \"shallow-water\"",
            &format!("model = \"shallow-water\"\nmanning = {manning}"),
        )
    } else {
        text
    }
}

/// The largest |a − b| over two fields.
fn largest_gap(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0f32, f32::max)
}

/// Depth along the channel's first row.
fn depths(sim: &mut Simulation) -> Vec<f64> {
    let surface = sim.surface().unwrap();
    let nx = sim.scene().grid.nx as usize;
    (0..nx).map(|i| (surface[i] - sim.ground()[i]).max(0.0)).collect()
}

fn dam_break(dir: &Path, nx: usize, dx: f64, dam: f64, left: f64, right: f64) -> shoal::Scene {
    write_npy(dir, "b.npy", 2, nx, |_, _| 0.0);
    write_npy(dir, "h.npy", 2, nx, |i, _| {
        if (i as f64 + 0.5) * dx < dam {
            left
        } else {
            right
        }
    });
    scene_in(dir, &channel(nx, dx, 0.01, ""))
}

/// Ritter's solution: depth at x, time t, after a dam at x0 holding h0 over a dry bed.
fn ritter(x: f64, x0: f64, h0: f64, t: f64) -> f64 {
    let c0 = (G * h0).sqrt();
    let xi = (x - x0) / t;
    if xi <= -c0 {
        h0
    } else if xi >= 2.0 * c0 {
        0.0
    } else {
        (2.0 * c0 - xi).powi(2) / (9.0 * G)
    }
}

/// A lake at rest over a bump is at rest to the bit, the bump under the water (immersed) or
/// standing out of it (emerged): SWASHES §3.1.1–2. Zero, not a tolerance: the hydrostatic
/// reconstruction balances the pressure and the bed exactly.
#[test]
fn a_lake_at_rest_stays_at_rest_over_an_immersed_and_an_emerged_bump() {
    for (level, what) in [(0.5, "immersed"), (0.1, "emerged")] {
        let dir = tempfile::tempdir().unwrap();
        let (nx, dx) = (100, 0.2);
        write_npy(dir.path(), "b.npy", 2, nx, |i, _| {
            let x = (i as f64 + 0.5) * dx;
            (0.2 - 0.05 * (x - 10.0).powi(2)).max(0.0)
        });
        write_npy(dir.path(), "h.npy", 2, nx, |_, _| level);
        let scene = scene_in(dir.path(), &channel(nx, dx, 0.05, ""));
        for backend in [Backend::Reference, Backend::Cpu, Backend::Gpu] {
            if backend == Backend::Gpu {
                hold_gpu();
            }
            let mut sim = simulation(&scene, backend);
            let start = sim.eta().unwrap();
            sim.step(200).unwrap();
            assert_eq!(sim.eta().unwrap(), start, "{what} bump, {backend:?}: the lake moved");
            let v = sim.velocity().unwrap().expect("a velocity");
            assert!(
                v.iter().all(|&[u, v]| u == 0.0 && v == 0.0),
                "{what}, {backend:?}: a current"
            );
        }
    }
}

/// Ritter (SWASHES §4.1.1): 1 m of water released onto a dry bed, t = 2 s. Measured as a
/// depth's furthest reach against Ritter's, x0 + t·(2·c0 − 3·sqrt(g·d)): the 1 cm depth (1 % of
/// h0) within 2 % at dx = 5 cm (measured −0.9 %); the 1 mm tip, where the wet/dry front is first
/// order, within 2 % at dx = 2.5 cm, its lag halving with the grid (measured −7.0 %, −3.6 %,
/// −1.3 %); and the depth profile's L1 error falling at least 1.6× per halving (measured 2.0×:
/// first order, as the solution's kinks allow).
#[test]
fn ritters_dam_break_runs_at_ritters_speed() {
    let (h0, x0, t): (f64, f64, f64) = (1.0, 10.0, 2.0);
    let reach = |d: &[f64], dx: f64, depth: f64| {
        let last = d.iter().rposition(|&h| h > depth).unwrap();
        let measured = (last as f64 + 1.0) * dx - x0;
        measured / (t * (2.0 * (G * h0).sqrt() - 3.0 * (G * depth).sqrt())) - 1.0
    };
    let (mut errors, mut tips) = (Vec::new(), Vec::new());
    for (nx, dx) in [(250, 0.1), (500, 0.05), (1000, 0.025)] {
        let dir = tempfile::tempdir().unwrap();
        let scene = dam_break(dir.path(), nx, dx, x0, h0, 0.0);
        let mut sim = simulation(&scene, Backend::Cpu);
        sim.step((t / 0.01).round() as u64).unwrap();
        let d = depths(&mut sim);
        let l1: f64 = d
            .iter()
            .enumerate()
            .map(|(i, h)| (h - ritter((i as f64 + 0.5) * dx, x0, h0, t)).abs() * dx)
            .sum();
        errors.push(l1);
        tips.push(reach(&d, dx, 1e-3));
        if dx == 0.05 {
            let front = reach(&d, dx, 1e-2);
            eprintln!("Ritter at dx = 5 cm: the 1 cm depth {:+.2} % off", 100.0 * front);
            assert!(
                front.abs() < 0.02,
                "the 1 cm depth is {:+.2} % off Ritter's",
                100.0 * front
            );
        }
    }
    eprintln!("Ritter: L1 errors {errors:?}; the 1 mm tip off by {tips:?} at dx = 0.1, 0.05, 0.025");
    assert!(
        tips[2].abs() < 0.02,
        "the 1 mm tip is {:+.2} % off at dx = 2.5 cm",
        100.0 * tips[2]
    );
    for k in 0..2 {
        assert!(
            errors[k] / errors[k + 1] > 1.6,
            "the L1 error does not converge: {errors:?}"
        );
        assert!(
            tips[k].abs() / tips[k + 1].abs() > 1.6,
            "the tip's lag does not shrink: {tips:?}"
        );
    }
}

/// Stoker (SWASHES §4.1.2): 1 m against 0.1 m of water. The bore's height h2 and speed s solve
/// the Rankine–Hugoniot jump with the rarefaction's Riemann invariant; bore height within 2 %
/// (its plateau's mean) and position within 2 % of the advance s·t.
#[test]
fn stokers_dam_break_makes_stokers_bore() {
    let (h0, h1, x0, t, nx, dx): (f64, f64, f64, f64, usize, f64) = (1.0, 0.1, 10.0, 2.0, 500, 0.05);
    let (h2, s) = stoker(h0, h1);
    let dir = tempfile::tempdir().unwrap();
    let scene = dam_break(dir.path(), nx, dx, x0, h0, h1);
    let mut sim = simulation(&scene, Backend::Cpu);
    sim.step((t / 0.01).round() as u64).unwrap();
    let d = depths(&mut sim);
    let mid = (h2 + h1) / 2.0;
    let bore = d.iter().rposition(|&h| h > mid).unwrap();
    let position = (bore as f64 + 0.5) * dx - x0;
    // The plateau: from the rarefaction's foot (x0 + (u2 − c2)·t) to a few cells short of the bore.
    let u2 = 2.0 * ((G * h0).sqrt() - (G * h2).sqrt());
    let foot = x0 + (u2 - (G * h2).sqrt()) * t;
    let (a, b) = (((foot + 0.3) / dx) as usize, bore - 6);
    let plateau = d[a..b].iter().sum::<f64>() / (b - a) as f64;
    eprintln!(
        "Stoker: bore {plateau:.4} m (theory {h2:.4}), at {position:.3} m past the dam (theory {:.3})",
        s * t
    );
    assert!((plateau / h2 - 1.0).abs() < 0.02, "bore height {plateau} vs {h2}");
    assert!(
        (position / (s * t) - 1.0).abs() < 0.02,
        "bore position {position} vs {}",
        s * t
    );
}

/// Stoker's bore: the height h2 behind it and its speed s, from the jump conditions and
/// u2 = 2·(c0 − c2), by bisection on h2.
fn stoker(h0: f64, h1: f64) -> (f64, f64) {
    let residual = |h2: f64| {
        let u2 = 2.0 * ((G * h0).sqrt() - (G * h2).sqrt());
        // Mass and momentum across the bore moving at s into still water h1.
        let s = h2 * u2 / (h2 - h1);
        s * (h2 * u2) - (h2 * u2 * u2 + 0.5 * G * (h2 * h2 - h1 * h1))
    };
    let (mut lo, mut hi) = (h1 * 1.0001, h0 * 0.9999);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if residual(lo).signum() == residual(mid).signum() {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let h2 = 0.5 * (lo + hi);
    let u2 = 2.0 * ((G * h0).sqrt() - (G * h2).sqrt());
    (h2, h2 * u2 / (h2 - h1))
}

/// A closed dam break in 2-D (a column of water in a box with a bump) keeps its volume to
/// float32 rounding on every backend: the fluxes move water, nothing makes or loses it.
#[test]
fn a_sloshing_basin_keeps_its_volume_to_rounding() {
    let dir = tempfile::tempdir().unwrap();
    let (nx, ny, dx) = (40, 30, 0.1);
    write_npy(dir.path(), "b.npy", ny, nx, |i, j| {
        let (x, y) = ((i as f64 + 0.5) * dx - 2.5, (j as f64 + 0.5) * dx - 1.5);
        0.3 * (-(x * x + y * y) / 0.2).exp()
    });
    write_npy(dir.path(), "h.npy", ny, nx, |i, _| if i < 12 { 0.5 } else { 0.1 });
    let scene = scene_in(dir.path(), &basin(nx, ny, dx, 0.01, 0.0, ""));
    for backend in [Backend::Reference, Backend::Gpu] {
        if backend == Backend::Gpu {
            hold_gpu();
        }
        let mut sim = simulation(&scene, backend);
        let start = crate::common::water_volume(&mut sim);
        sim.step(300).unwrap();
        let end = crate::common::water_volume(&mut sim);
        eprintln!(
            "{backend:?}: volume {start:.9} → {end:.9} m³ ({:.2e} relative)",
            end / start - 1.0
        );
        assert!((end / start - 1.0).abs() < 1e-5, "{backend:?}: {start} → {end}");
    }
}

/// The fast CPU path is the twin's bits; the GPU is within float32 rounding of the twin (a
/// dam break past a bump, 2-D, wet and dry).
#[test]
fn the_fast_path_is_the_twins_bits_and_the_gpu_is_within_rounding() {
    // Smaller than a task's share (`CELLS_PER_TASK`): split anyway, as a large grid is.
    let _split = shoal::low_level::cpu::split_small_grids();
    let dir = tempfile::tempdir().unwrap();
    let (nx, ny, dx) = (48, 20, 0.1);
    write_npy(dir.path(), "b.npy", ny, nx, |i, j| {
        let (x, y) = ((i as f64 + 0.5) * dx - 3.0, (j as f64 + 0.5) * dx - 1.0);
        0.2 * (-(x * x + y * y) / 0.1).exp()
    });
    write_npy(
        dir.path(),
        "h.npy",
        ny,
        nx,
        |i, j| if i < 16 && j > 4 { 0.4 } else { 0.0 },
    );
    let scene = scene_in(dir.path(), &basin(nx, ny, dx, 0.01, 0.02, ""));
    let run = |backend| {
        let mut sim = simulation(&scene, backend);
        sim.step(120).unwrap();
        (sim.eta().unwrap(), sim.velocity().unwrap().unwrap())
    };
    let twin = run(Backend::Reference);
    assert_eq!(run(Backend::Cpu), twin, "the fast path left the twin's bits");
    hold_gpu();
    let gpu = run(Backend::Gpu);
    let worst = largest_gap(&gpu.0, &twin.0);
    eprintln!("GPU vs twin: largest surface difference {worst:.3e} m");
    assert!(worst < 1e-4, "GPU and twin differ by {worst} m");
}

/// A checkpoint taken halfway resumes to the same bits as the run that went straight through.
#[test]
fn a_checkpoint_resumes_bit_for_bit() {
    let dir = tempfile::tempdir().unwrap();
    let scene = dam_break(dir.path(), 200, 0.05, 3.0, 0.5, 0.05);
    let (mut resumed, mut straight) = crate::common::resumed_and_straight(&scene, Backend::Cpu, 40, dir.path());
    assert_eq!(resumed.eta().unwrap(), straight.eta().unwrap());
    assert_eq!(resumed.velocity().unwrap(), straight.velocity().unwrap());
}

/// MacDonald's steady flows with Manning friction (SWASHES §3.2.3 and §3.2.4, after MacDonald et
/// al. 1997): a depth profile h(x) over a 1000 m channel carrying q = 2 m²/s at n = 0.033 s/m^(1/3)
/// fixes the bed, b' = (q²/(g·h³) − 1)·h' − n²·q²/h^(10/3), integrated here in f64. The run starts
/// from that surface at rest (dx = 2.5 m), lets 2 m²/s in through a `"discharge"` west side and
/// leaves by a `"stage"` east side at the profile's level (subcritical) or a `"free"` one (the
/// transcritical flow, supercritical at the outlet). After 6000 s each cell's discharge is within
/// 1 % of 2 m²/s (steady; measured 0.28 % and 0.82 %) and the depth within 1 % of MacDonald's
/// (measured 0.88 %, the inlet cell's, halving with dx; 0.18 % inside). The subcritical inflow is
/// near critical (Froude 0.987: the wave that would carry the inlet's adjustment upstream moves
/// at c − u = 0.04 m/s) and keeps a standing 2·dx ripple of up to 4.9 % over its first 40 m that
/// the grid does not shrink: its depth is checked past 50 m (measured 0.74 %; 0.11 % inside), the
/// ripple stated in the README.
#[test]
fn macdonalds_steady_flows_with_manning_friction() {
    let (q, n, length, dx) = (2.0f64, 0.033f64, 1000.0f64, 2.5f64);
    let hc = (q * q / G).cbrt();
    let subcritical = |x: f64| hc * (1.0 + 0.5 * (-16.0 * (x / length - 0.5).powi(2)).exp());
    let transcritical = |x: f64| {
        if x <= length / 2.0 {
            hc * (1.0 - (3.0 * (x / length - 0.5)).tanh() / 3.0)
        } else {
            hc * (1.0 - (6.0 * (x / length - 0.5)).tanh() / 6.0)
        }
    };
    for (name, profile, east, from) in [
        ("transcritical", &transcritical as &dyn Fn(f64) -> f64, "free", 0.0),
        ("subcritical", &subcritical as &dyn Fn(f64) -> f64, "stage", 50.0),
    ] {
        // b(x) = −∫_x^L b'(s) ds, by the trapezoid rule on 1 cm steps.
        let slope = |x: f64| {
            let dh = (profile(x + 1e-4) - profile(x - 1e-4)) / 2e-4;
            let h = profile(x);
            (q * q / (G * h.powi(3)) - 1.0) * dh - n * n * q * q / h.powf(10.0 / 3.0)
        };
        let bed = |x: f64| {
            let steps = ((length - x) / 0.01).ceil().max(1.0) as usize;
            let ds = (length - x) / steps as f64;
            -(0..steps)
                .map(|k| 0.5 * (slope(x + k as f64 * ds) + slope(x + (k + 1) as f64 * ds)) * ds)
                .sum::<f64>()
        };
        let nx = (length / dx) as usize;
        let centre = |i: usize| (i as f64 + 0.5) * dx;
        let b: Vec<f64> = (0..nx).map(|i| bed(centre(i))).collect();
        let dir = tempfile::tempdir().unwrap();
        write_npy(dir.path(), "b.npy", 2, nx, |i, _| b[i]);
        write_npy(dir.path(), "h.npy", 2, nx, |i, _| b[i] + profile(centre(i)));
        let outlet = profile(length);
        let extra = format!(
            "[boundary]\nwest = \"discharge\"\neast = \"{east}\"\n[boundary.discharge]\nq = {q}\n\
             [boundary.stage]\nlevel = {outlet}\n"
        );
        let text = channel(nx, dx, 1.0, &extra).replace(
            "model = \"shallow-water\"",
            &format!("model = \"shallow-water\"\nmanning = {n}"),
        );
        let scene = scene_in(dir.path(), &text);
        let mut sim = simulation(&scene, Backend::Cpu);
        sim.step(6000).unwrap();
        let d = depths(&mut sim);
        let v = sim.velocity().unwrap().unwrap();
        let off = |i: usize| (d[i] / profile(centre(i)) - 1.0).abs();
        let worst = (0..nx).filter(|&i| centre(i) > from).map(off).fold(0.0, f64::max);
        let inside = (nx / 20..nx - nx / 20).map(off).fold(0.0, f64::max);
        let unsteady = (0..nx)
            .map(|i| (d[i] * v[i][0] as f64 / q - 1.0).abs())
            .fold(0.0, f64::max);
        eprintln!(
            "MacDonald {name}: depth within {:.3} % of the profile past {from} m ({:.3} % inside), discharge \
             within {:.3} % of q",
            100.0 * worst,
            100.0 * inside,
            100.0 * unsteady
        );
        assert!(
            worst < 0.01,
            "{name}: the depth is {:.2} % off MacDonald's",
            100.0 * worst
        );
        assert!(
            unsteady < 0.01,
            "{name}: not steady: q off by {:.2} %",
            100.0 * unsteady
        );
    }
}

/// The GPU's stages run on 16×16 tiles, each face's flux computed once by one thread and read
/// by both its cells: on a grid of 3 × 3 tiles whose last row and column are partial (37 × 35),
/// periodic along x (the frame's ghosts read the far edge) and walled along y, a dry front and a
/// bore that cross the seams between tiles and the periodic seam run as the twin runs them, and
/// the closed domain keeps its volume to rounding.
#[test]
fn the_gpu_tiles_meet_as_the_twin_at_every_seam() {
    let dir = tempfile::tempdir().unwrap();
    let (nx, ny, dx) = (37, 35, 0.1);
    write_npy(dir.path(), "b.npy", ny, nx, |i, j| {
        let (x, y) = ((i as f64 + 0.5) * dx - 2.0, (j as f64 + 0.5) * dx - 1.6);
        0.25 * (-(x * x + y * y) / 0.15).exp() + 0.004 * j as f64
    });
    // A diagonal dam: 0.4 m behind it, a dry bed past row 24 and a film between.
    write_npy(dir.path(), "h.npy", ny, nx, |i, j| {
        if i + j < 20 {
            0.4
        } else if j > 24 {
            0.0
        } else {
            0.05 + 0.004 * j as f64
        }
    });
    let extra = "[boundary]\nwest = \"periodic\"\neast = \"periodic\"\n";
    let scene = scene_in(dir.path(), &basin(nx, ny, dx, 0.01, 0.015, extra));
    let run = |backend| {
        let mut sim = simulation(&scene, backend);
        let start = crate::common::water_volume(&mut sim);
        sim.step(150).unwrap();
        let end = crate::common::water_volume(&mut sim);
        (sim.eta().unwrap(), sim.velocity().unwrap().unwrap(), start, end)
    };
    let twin = run(Backend::Reference);
    hold_gpu();
    let gpu = run(Backend::Gpu);
    let worst = largest_gap(&gpu.0, &twin.0);
    // The flow crossed the seams: water moves along the whole front.
    let moved = twin.1.iter().filter(|[u, v]| u.hypot(*v) > 0.05).count();
    eprintln!(
        "tiles: GPU vs twin {worst:.3e} m; {moved} cells faster than 5 cm/s; GPU volume {:.2e} relative",
        gpu.3 / gpu.2 - 1.0
    );
    assert!(moved > 200, "only {moved} cells moved");
    // The tolerance of the other GPU tests: float32 rounding compounded over 150 steps of a bore.
    assert!(worst < 1e-4, "GPU and twin differ by {worst} m");
    assert!((gpu.3 / gpu.2 - 1.0).abs() < 1e-5, "GPU volume {} → {}", gpu.2, gpu.3);
}

/// `shoal run --profile` on the shallow-water GPU: while profiling, each pass of a step runs in its
/// own compute pass with timestamps, which changes nothing it computes (the unprofiled run's
/// bits), and the stages' GPU time is reported where the adapter takes timestamps.
#[test]
fn a_profiled_gpu_run_times_its_stages_and_keeps_its_bits() {
    let dir = tempfile::tempdir().unwrap();
    let (nx, ny, dx) = (40, 24, 0.1);
    write_npy(dir.path(), "b.npy", ny, nx, |i, _| 0.01 * i as f64);
    write_npy(dir.path(), "h.npy", ny, nx, |i, j| if i + j < 20 { 0.5 } else { 0.0 });
    let scene = scene_in(dir.path(), &basin(nx, ny, dx, 0.01, 0.0, ""));
    hold_gpu();
    let run = |profile: bool| {
        let mut sim = simulation(&scene, Backend::Gpu);
        if profile {
            sim.start_profile();
        }
        for _ in 0..6 {
            sim.step(40).unwrap();
        }
        (sim.eta().unwrap(), sim.profile())
    };
    let (plain, none) = run(false);
    let (profiled, profile) = run(true);
    assert!(none.is_none());
    assert_eq!(plain, profiled, "profiling changed the run");
    let profile = profile.expect("a profile");
    assert_eq!(profile.steps, 240);
    match profile.timed {
        Ok(times) => {
            let stages = times
                .passes
                .iter()
                .find(|p| p.name == "shallow_water")
                .expect("the stages' row");
            eprintln!(
                "profile: {} timed runs of the stages, {:.3e} s",
                stages.timed, stages.seconds
            );
            assert!(stages.timed > 0 && stages.seconds > 0.0, "{times:?}");
            assert_eq!(stages.bytes_per_cell, 84, "the cost model's bytes a substep");
        }
        // llvmpipe through GL offers no TIMESTAMP_QUERY.
        Err(why) => assert!(why.contains("TIMESTAMP_QUERY"), "{why}"),
    }
}

/// The river sides on the GPU against the twin: a sloping reach fed by a discharge from a table
/// on the west, held at a stage on the east, and free on the north, wetting a dry floodplain.
#[test]
fn the_river_sides_run_alike_on_the_gpu_and_the_twin() {
    let dir = tempfile::tempdir().unwrap();
    let (nx, ny, dx) = (40, 12, 0.5);
    write_npy(dir.path(), "b.npy", ny, nx, |i, j| {
        0.4 - 0.01 * i as f64 + if j > 7 { 0.3 } else { 0.0 }
    });
    write_npy(dir.path(), "h.npy", ny, nx, |i, j| {
        if j > 7 {
            0.7 - 0.01 * i as f64
        } else {
            0.5
        }
    });
    std::fs::write(dir.path().join("q.csv"), "time,q\n0,0.1\n2,0.6\n").unwrap();
    let extra = "[boundary]\nwest = \"discharge\"\neast = \"stage\"\nnorth = \"free\"\n\
                 [boundary.discharge]\nfile = \"q.csv\"\n[boundary.stage]\nlevel = 0.45\n\
                 [[output.probe]]\nname = \"g\"\nx = 10.0\ny = 2.0\n[output]\nsummary = true\n";
    let scene = scene_in(dir.path(), &basin(nx, ny, dx, 0.02, 0.025, extra));
    let run = |backend| {
        let mut sim = simulation(&scene, backend);
        let start = crate::common::water_volume(&mut sim);
        let probes = sim.step(150).unwrap();
        let maps = sim.summary().unwrap().expect("flood maps");
        let eta = sim.eta().unwrap();
        (
            eta,
            crate::common::water_volume(&mut sim) - start,
            probes,
            maps.max_depth,
        )
    };
    let (twin, twin_volume, twin_probes, twin_deepest) = run(Backend::Reference);
    assert!(
        twin_volume.abs() > 0.1,
        "the sides moved {twin_volume} m³: nothing came or went"
    );
    hold_gpu();
    let (gpu, gpu_volume, gpu_probes, gpu_deepest) = run(Backend::Gpu);
    let probe_gap = gpu_probes
        .iter()
        .flatten()
        .zip(twin_probes.iter().flatten())
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    let map_gap = gpu_deepest
        .iter()
        .zip(&twin_deepest)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    assert_eq!(gpu_probes.len(), 150);
    assert!(
        probe_gap < 1e-4 && map_gap < 1e-4,
        "probes {probe_gap}, flood maps {map_gap}"
    );
    let worst = largest_gap(&gpu, &twin);
    eprintln!("river sides: GPU vs twin {worst:.3e} m; volume change {twin_volume:.6} vs {gpu_volume:.6} m³");
    assert!(worst < 1e-4, "GPU and twin differ by {worst} m");
    assert!(
        (gpu_volume / twin_volume - 1.0).abs() < 1e-4,
        "{gpu_volume} vs {twin_volume}"
    );
}

/// Bad river input is refused naming its key: a negative discharge, a stage without its level,
/// a one-row table, a discharge side on another model, and a negative Manning's n.
#[test]
fn bad_river_input_is_refused_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    write_npy(dir.path(), "b.npy", 2, 8, |_, _| 0.0);
    write_npy(dir.path(), "h.npy", 2, 8, |_, _| 0.5);
    std::fs::write(dir.path().join("one.csv"), "time,q\n0,1\n").unwrap();
    let base = channel(8, 0.5, 0.01, "");
    let cases = [
        ("[boundary]\nwest = \"discharge\"\n[boundary.discharge]\nq = -1.0\n", "boundary.discharge.q"),
        ("[boundary]\neast = \"stage\"\n[boundary.stage]\nq = 1.0\n", "boundary.stage.q"),
        ("[boundary]\neast = \"stage\"\n", "boundary.east"),
        ("[boundary]\nwest = \"discharge\"\n[boundary.discharge]\nfile = \"one.csv\"\n", "boundary.discharge.file"),
        (
            "[boundary]\nwest = \"discharge\"\n[boundary.discharge]\nq = 1.0\n[boundary.discharge.west]\nq = 2.0\nlevel = 1.0\n",
            "boundary.discharge.west.level",
        ),
    ];
    for (extra, key) in cases {
        let text = format!("{base}{extra}");
        let err = match Scene::parse(&text, Path::new("s.toml"), dir.path())
            .and_then(|s| Simulation::new(&s, Backend::Cpu))
        {
            Ok(_) => panic!("accepted: {extra}"),
            Err(e) => e.to_string(),
        };
        assert!(err.contains(key), "{extra}: {err}");
    }
    let negative = base.replace(
        "model = \"shallow-water\"",
        "model = \"shallow-water\"\nmanning = -0.01",
    );
    let err = Scene::parse(&negative, Path::new("s.toml"), dir.path())
        .expect_err("refused")
        .to_string();
    assert!(err.contains("physics.manning"), "{err}");
    let other =
        base.replace("model = \"shallow-water\"", "model = \"navier-stokes\"") + "[boundary]\nwest = \"free\"\n";
    let err = Scene::parse(&other, Path::new("s.toml"), dir.path())
        .expect_err("refused")
        .to_string();
    assert!(err.contains("boundary.west") && err.contains("shallow-water"), "{err}");
}

/// NTHMP benchmark 1 (Synolakis 1987): a solitary wave, H/d = 0.0185, runs up a plane beach of
/// 1:19.85 from water d = 1 m deep. Its maximum run-up, the highest surface the flood maps record
/// where water stood at least 1 mm deep, is within 5 % of Synolakis' law
/// R/d = 2.831·sqrt(cot β)·(H/d)^(5/4) (R = 8.59 cm). The wave starts at Synolakis' X1 (its
/// half-length L = arccosh(sqrt(20))/γ seaward of the toe), moving shoreward at
/// u = c·η/(d + η), c = sqrt(g·(d + H)) (`[water] u_npy`).
#[test]
fn a_solitary_wave_runs_up_a_beach_as_synolakis_law_says() {
    let (d, ratio, cot): (f64, f64, f64) = (1.0, 0.0185, 19.85);
    let height = ratio * d;
    let gamma = (3.0 * height / (4.0 * d.powi(3))).sqrt();
    let half = (20.0f64).sqrt().acosh() / gamma;
    let (toe, dx) = (60.0, 0.05);
    let centre_of_wave = toe - half;
    let nx = (90.0 / dx) as usize;
    let x = |i: usize| (i as f64 + 0.5) * dx;
    let bed = |x: f64| -d + ((x - toe) / cot).max(0.0);
    let eta = |x: f64| height / (gamma * (x - centre_of_wave)).cosh().powi(2);
    let dir = tempfile::tempdir().unwrap();
    write_npy(dir.path(), "b.npy", 2, nx, |i, _| bed(x(i)));
    write_npy(dir.path(), "h.npy", 2, nx, |i, _| eta(x(i)).max(bed(x(i))));
    let c = (G * (d + height)).sqrt();
    write_npy(dir.path(), "u.npy", 2, nx, |i, _| {
        let e = eta(x(i));
        if bed(x(i)) < 0.0 {
            c * e / (d + e)
        } else {
            0.0
        }
    });
    let extra = "u_npy = \"u.npy\"\n[boundary]\nwest = \"free\"\n[output]\nsummary = true\nwet_depth = 0.001\n";
    let scene = scene_in(dir.path(), &channel(nx, dx, 0.02, extra));
    let mut sim = simulation(&scene, Backend::Cpu);
    sim.step(1500).unwrap();
    let maps = sim.summary().unwrap().expect("the flood maps");
    let runup = (0..nx)
        .filter(|&i| maps.max_depth[i] >= 0.001)
        .map(|i| maps.max_surface[i] as f64)
        .fold(f64::NEG_INFINITY, f64::max);
    let law = d * 2.831 * cot.sqrt() * ratio.powf(1.25);
    eprintln!(
        "BP1: run-up {runup:.5} m, Synolakis {law:.5} m ({:+.2} %)",
        100.0 * (runup / law - 1.0)
    );
    assert!((runup / law - 1.0).abs() < 0.05, "run-up {runup} vs Synolakis' {law}");
}

/// Thacker's planar surface in a paraboloid (SWASHES §4.2.2, 2-D, nonlinear, a moving
/// shoreline): over b = −h0·(1 − r²/a²) (a = 1 m, h0 = 0.1 m) a tilted plane of water rotates,
/// the wet disc's centre circling at radius η = 0.5 m with the period T = 2π·a/sqrt(2·g·h0) =
/// 4.49 s. The water's centre of mass (the disc's centre) after three periods: its period within
/// 1 % (from its crossings of x = L/2) and its radius within 5 % (the wet/dry rim is first order
/// and takes a little of the motion each turn).
#[test]
fn thackers_planar_surface_circles_its_paraboloid() {
    let (a, h0, eta, l, dx): (f64, f64, f64, f64, f64) = (1.0, 0.1, 0.5, 4.0, 0.04);
    let n = (l / dx) as usize;
    let omega = (2.0 * G * h0).sqrt() / a;
    let period = 2.0 * std::f64::consts::PI / omega;
    let centre = |i: usize| (i as f64 + 0.5) * dx - l / 2.0;
    let bed = |x: f64, y: f64| -h0 * (1.0 - (x * x + y * y) / (a * a));
    // At t = 0: the surface η·h0/a²·(2x − η), moving at v = η·ω.
    let surface = |x: f64, y: f64| (eta * h0 / (a * a) * (2.0 * x - eta)).max(bed(x, y));
    let dir = tempfile::tempdir().unwrap();
    write_npy(dir.path(), "b.npy", n, n, |i, j| bed(centre(i), centre(j)));
    write_npy(dir.path(), "h.npy", n, n, |i, j| surface(centre(i), centre(j)));
    write_npy(dir.path(), "v.npy", n, n, |i, j| {
        let (x, y) = (centre(i), centre(j));
        if surface(x, y) > bed(x, y) {
            eta * omega
        } else {
            0.0
        }
    });
    let scene = scene_in(dir.path(), &basin(n, n, dx, 0.01, 0.0, "v_npy = \"v.npy\"\n"));
    let mut sim = simulation(&scene, Backend::Cpu);
    let steps = (3.0 * period / 0.01).round() as usize;
    let mut xs = Vec::with_capacity(steps);
    let mut radius: f64 = 0.0;
    for k in 0..steps {
        sim.step(1).unwrap();
        let h = sim.surface().unwrap();
        let (mut m, mut mx, mut my) = (0.0, 0.0, 0.0);
        for j in 0..n {
            for i in 0..n {
                let depth = (h[j * n + i] - sim.ground()[j * n + i]).max(0.0);
                (m, mx, my) = (m + depth, mx + depth * centre(i), my + depth * centre(j));
            }
        }
        let (cx, cy) = (mx / m, my / m);
        xs.push(cx);
        if k + 1 > steps - (period / 0.01) as usize {
            radius = radius.max((cx * cx + cy * cy).sqrt());
        }
    }
    let measured = crate::common::mean_period(&xs, 0.0, 0.01);
    eprintln!(
        "Thacker: period {measured:.4} s (theory {period:.4}), radius in the third turn {radius:.4} m (theory {eta})"
    );
    assert!((measured / period - 1.0).abs() < 0.01, "period {measured} vs {period}");
    assert!((radius / eta - 1.0).abs() < 0.05, "radius {radius} vs {eta}");
}

/// The scheme's order where the flow is smooth: a sine swell (1 m ± 10 cm, 10 m long, periodic)
/// at t = 1 s, before it steepens into bores, on 50, 100 and 200 cells against 1600 (the
/// reference, averaged onto each grid). The L1 error of the depth falls by at least 2^1.8 per
/// halving of dx (MUSCL + SSP-RK2: second order but where the limiter clips the crests).
#[test]
fn the_scheme_is_second_order_where_the_flow_is_smooth() {
    let length = 10.0f64;
    let depth_at = |n: usize| -> Vec<f64> {
        let dx = length / n as f64;
        let dir = tempfile::tempdir().unwrap();
        write_npy(dir.path(), "b.npy", 2, n, |_, _| -1.0);
        write_npy(dir.path(), "h.npy", 2, n, |i, _| {
            // The cell average of 0.1·sin(2πx/L), so that every grid starts from the same water.
            let (x0, x1) = (i as f64 * dx, (i + 1) as f64 * dx);
            let k = 2.0 * std::f64::consts::PI / length;
            0.1 * ((k * x0).cos() - (k * x1).cos()) / (k * dx)
        });
        let text = channel(n, dx, 0.005, "[boundary]\nwest = \"periodic\"\neast = \"periodic\"\n");
        let scene = scene_in(dir.path(), &text);
        let mut sim = simulation(&scene, Backend::Cpu);
        sim.step(200).unwrap();
        depths(&mut sim)
    };
    let reference = depth_at(1600);
    let mut errors = Vec::new();
    for n in [50, 100, 200] {
        let d = depth_at(n);
        let per = 1600 / n;
        let dx = length / n as f64;
        let l1: f64 = (0..n)
            .map(|i| (d[i] - reference[i * per..(i + 1) * per].iter().sum::<f64>() / per as f64).abs() * dx)
            .sum();
        errors.push(l1);
    }
    let orders: Vec<f64> = errors.windows(2).map(|w| (w[0] / w[1]).log2()).collect();
    eprintln!("smooth swell: L1 errors {errors:?}, orders {orders:?}");
    assert!(orders.iter().all(|&o| o >= 1.8), "orders {orders:?}");
}

/// The steady depth of water carrying `q` m²/s over ground `z` with Bernoulli head `e`
/// (q²/(2g·h²) + h + z = e): the subcritical root (above critical depth) or the supercritical
/// one (below), by bisection in f64.
fn bernoulli_depth(q: f64, z: f64, e: f64, subcritical: bool) -> f64 {
    let hc = (q * q / G).cbrt();
    let f = |h: f64| q * q / (2.0 * G * h * h) + h + z - e;
    let (mut lo, mut hi) = if subcritical { (hc, e - z + 1.0) } else { (1e-6, hc) };
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        // f falls from +∞ to its minimum at hc, then rises.
        if (f(mid) > 0.0) == subcritical {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    0.5 * (lo + hi)
}

/// The transcritical flow over a bump with a hydraulic jump (SWASHES §3.1.3.3, after Goutal &
/// Maurel 1997): 0.18 m²/s let in through a `"discharge"` west side of a 25 m channel with the
/// bump z = 0.2 − 0.05·(x − 10)² on 8 < x < 12, held at 0.33 m on the east by a `"stage"` side.
/// The steady flow turns critical at the crest, runs supercritical down its lee, and jumps back
/// to the outlet's subcritical flow where the conjugate depths meet (x ≈ 11.67 m, from the
/// analytic profile here). After 200 s (dx = 5 cm, from rest at 0.33 m): the jump within 2 cells
/// of its analytic place (measured 0.69 dx), the depth within 2 % of the analytic one away from
/// it (±4 cells: a captured shock spans 2–3; measured 0.71 %), the discharge within 1 % of q
/// before the jump and more than 3 m past it, and within 5 % in between: the captured steady
/// jump sheds small waves into its wake, as shock-capturing schemes do at a standing shock
/// (measured 0.13 % before, 3.4 % in the wake, 0.57 % beyond).
#[test]
fn a_transcritical_flow_over_a_bump_jumps_where_the_conjugate_depths_meet() {
    let (q, out, length, dx) = (0.18f64, 0.33f64, 25.0f64, 0.05f64);
    let bump = |x: f64| {
        if x > 8.0 && x < 12.0 {
            0.2 - 0.05 * (x - 10.0).powi(2)
        } else {
            0.0
        }
    };
    let hc = (q * q / G).cbrt();
    // Upstream of the jump the head is the crest's critical flow's; downstream, the outlet's.
    let e_up = q * q / (2.0 * G * hc * hc) + hc + 0.2;
    let e_down = q * q / (2.0 * G * out * out) + out;
    let before = |x: f64| bernoulli_depth(q, bump(x), e_up, x < 10.0);
    let after = |x: f64| bernoulli_depth(q, bump(x), e_down, true);
    // The jump: where the supercritical depth's conjugate, h1/2·(sqrt(1 + 8·Fr²) − 1), is the
    // downstream depth.
    let misfit = |x: f64| {
        let h1 = before(x);
        let fr2 = q * q / (G * h1.powi(3));
        0.5 * h1 * ((1.0 + 8.0 * fr2).sqrt() - 1.0) - after(x)
    };
    let (mut lo, mut hi) = (10.01, 12.0);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if (misfit(mid) > 0.0) == (misfit(lo) > 0.0) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let jump = 0.5 * (lo + hi);
    let exact = |x: f64| if x < jump { before(x) } else { after(x) };

    let nx = (length / dx) as usize;
    let centre = |i: usize| (i as f64 + 0.5) * dx;
    let dir = tempfile::tempdir().unwrap();
    write_npy(dir.path(), "b.npy", 2, nx, |i, _| bump(centre(i)));
    write_npy(dir.path(), "h.npy", 2, nx, |i, _| out.max(bump(centre(i))));
    let extra = format!(
        "[boundary]\nwest = \"discharge\"\neast = \"stage\"\n[boundary.discharge]\nq = {q}\n\
         [boundary.stage]\nlevel = {out}\n"
    );
    let scene = scene_in(dir.path(), &channel(nx, dx, 0.05, &extra));
    let mut sim = simulation(&scene, Backend::Cpu);
    sim.step(4000).unwrap();
    let d = depths(&mut sim);
    let v = sim.velocity().unwrap().unwrap();
    // The captured jump: the steepest fall of the depth's rise, past the crest.
    let found = (0..nx - 1)
        .filter(|&i| centre(i) > 10.0 && centre(i) < 14.0)
        .max_by(|&a, &b| (d[a + 1] - d[a]).total_cmp(&(d[b + 1] - d[b])))
        .map(|i| centre(i) + 0.5 * dx)
        .unwrap();
    let away = |i: usize| (centre(i) - jump).abs() > 4.0 * dx;
    let worst = (0..nx)
        .filter(|&i| away(i))
        .map(|i| (d[i] / exact(centre(i)) - 1.0).abs())
        .fold(0.0, f64::max);
    // The discharge's worst misfit over the cells in x0..x1.
    let unsteady = |x0: f64, x1: f64| {
        (0..nx)
            .filter(|&i| centre(i) > x0 && centre(i) < x1)
            .map(|i| (d[i] * v[i][0] as f64 / q - 1.0).abs())
            .fold(0.0, f64::max)
    };
    let (upstream, wake, downstream) = (
        unsteady(0.0, jump - 4.0 * dx),
        unsteady(jump + 4.0 * dx, jump + 3.0),
        unsteady(jump + 3.0, length),
    );
    eprintln!(
        "bump with a jump: analytic jump at {jump:.3} m, captured at {found:.3} m ({:.2} dx); depth within \
         {:.3} % away from it; discharge within {:.3} % of q before it, {:.3} % in its 3 m wake, {:.3} % beyond",
        (found - jump).abs() / dx,
        100.0 * worst,
        100.0 * upstream,
        100.0 * wake,
        100.0 * downstream
    );
    assert!(
        (jump - 11.665).abs() < 0.01,
        "the analytic jump at {jump} m, not SWASHES' 11.665"
    );
    assert!(
        (found - jump).abs() <= 2.0 * dx,
        "the jump at {found} m, {jump:.3} m analytic"
    );
    assert!(
        worst < 0.02,
        "the depth is {:.2} % off the analytic profile",
        100.0 * worst
    );
    assert!(
        upstream < 0.01,
        "not steady before the jump: q off by {:.2} %",
        100.0 * upstream
    );
    assert!(wake < 0.05, "the jump's wake: q off by {:.2} %", 100.0 * wake);
    assert!(
        downstream < 0.01,
        "not steady past the jump: q off by {:.2} %",
        100.0 * downstream
    );
}

/// `[friction] map` (issue 52): Manning's n per cell. A map holding one n everywhere gives the
/// bits of `physics.manning = n` (the same n², the same stages) on the twin, the fast path and
/// the GPU; a map rough past 14 m holds a dam break's front back there (Manning's friction
/// −g·n²·|u|·u/d^(4/3) on a 1 m front at ~5 m/s is ~1 m/s² at n = 0.05: its front ends ~1 m
/// behind the smooth run's), and the GPU follows the twin on it within rounding.
#[test]
fn a_friction_map_is_manning_per_cell() {
    let dir = tempfile::tempdir().unwrap();
    let (nx, dx) = (400, 0.05);
    write_npy(dir.path(), "b.npy", 2, nx, |_, _| 0.0);
    write_npy(dir.path(), "h.npy", 2, nx, |i, _| {
        if (i as f64 + 0.5) * dx < 10.0 {
            1.0
        } else {
            0.0
        }
    });
    write_npy(dir.path(), "n.npy", 2, nx, |_, _| 0.03);
    write_npy(dir.path(), "rough.npy", 2, nx, |i, _| {
        if (i as f64 + 0.5) * dx > 14.0 {
            0.05
        } else {
            0.0
        }
    });
    let with = |physics: &str, extra: &str| {
        let text = channel(nx, dx, 0.01, extra).replace("model = \"shallow-water\"", physics);
        scene_in(dir.path(), &text)
    };
    let uniform = with("model = \"shallow-water\"\nmanning = 0.03", "");
    let mapped = with("model = \"shallow-water\"", "[friction]\nmap = \"n.npy\"\n");
    let bits = |scene: &shoal::Scene, backend| {
        let mut sim = simulation(scene, backend);
        sim.step(150).unwrap();
        (sim.eta().unwrap(), sim.velocity().unwrap().unwrap())
    };
    for backend in [Backend::Reference, Backend::Cpu, Backend::Gpu] {
        if backend == Backend::Gpu {
            hold_gpu();
        }
        assert_eq!(
            bits(&mapped, backend),
            bits(&uniform, backend),
            "{backend:?}: the map is not the one n"
        );
    }
    // The front: the last cell wetter than 1 mm, at t = 1.5 s.
    let front = |scene: &shoal::Scene, backend| {
        let mut sim = simulation(scene, backend);
        sim.step(150).unwrap();
        let d = depths(&mut sim);
        (d.iter().rposition(|&h| h > 1e-3).unwrap() as f64 + 0.5) * dx
    };
    let smooth = with("model = \"shallow-water\"", "");
    let rough = with("model = \"shallow-water\"", "[friction]\nmap = \"rough.npy\"\n");
    let (free, held) = (front(&smooth, Backend::Cpu), front(&rough, Backend::Cpu));
    eprintln!("front at 1.5 s: {free:.2} m smooth, {held:.2} m with n = 0.05 past 14 m");
    assert!(free > 16.0 && held < free - 0.5, "smooth {free} m, rough {held} m");
    let twin = bits(&rough, Backend::Reference);
    hold_gpu();
    let gpu = bits(&rough, Backend::Gpu);
    let worst = gpu
        .0
        .iter()
        .zip(&twin.0)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    assert!(worst < 1e-4, "GPU and twin differ by {worst} m on the rough map");
}

/// A friction map that is no Manning's n is refused naming `friction.map`, and the models
/// without friction refuse the table.
#[test]
fn bad_friction_maps_are_refused_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let nx = 20;
    write_npy(dir.path(), "b.npy", 2, nx, |_, _| 0.0);
    write_npy(dir.path(), "h.npy", 2, nx, |_, _| 0.5);
    write_npy(
        dir.path(),
        "negative.npy",
        2,
        nx,
        |i, _| if i == 7 { -0.01 } else { 0.03 },
    );
    write_npy(
        dir.path(),
        "nan.npy",
        2,
        nx,
        |i, _| if i == 3 { f64::NAN } else { 0.03 },
    );
    write_npy(dir.path(), "shape.npy", 3, nx, |_, _| 0.03);
    for (map, why) in [
        ("negative.npy", "cell (7, 0) holds n = -0.01"),
        ("nan.npy", "non-finite"),
        ("shape.npy", "friction.map"),
        ("missing.npy", "friction.map"),
    ] {
        let text = channel(nx, 0.1, 0.01, &format!("[friction]\nmap = \"{map}\"\n"));
        let err = shoal::Scene::parse(&text, Path::new("<test scene>"), dir.path())
            .and_then(|s| Simulation::check(&s))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("friction.map") && err.contains(why), "{map}: {err}");
    }
    let text = channel(nx, 0.1, 0.01, "[friction]\nmap = \"h.npy\"\n")
        .replace("model = \"shallow-water\"", "model = \"height-field\"");
    let err = shoal::Scene::parse(&text, Path::new("<test scene>"), dir.path())
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        err.contains("friction.map"),
        "the height field took a friction map: {err}"
    );
}

/// A land-cover raster with `[friction.classes]` is the n map its codes name: the same bits as
/// the map of n itself; a GeoTIFF is read at each cell's nearest pixel (codes never blended);
/// codes the table does not name, keys that are no codes and n out of range are refused.
#[test]
fn a_land_cover_map_with_classes_is_the_n_map_its_codes_name() {
    let dir = tempfile::tempdir().unwrap();
    let (nx, dx) = (400, 0.05);
    write_npy(dir.path(), "b.npy", 2, nx, |_, _| 0.0);
    write_npy(dir.path(), "h.npy", 2, nx, |i, _| if i < 200 { 1.0 } else { 0.0 });
    // Grass (code 3) up to 12 m, forest (code 7) past it.
    let code = |i: usize| if (i as f64 + 0.5) * dx > 12.0 { 7.0 } else { 3.0 };
    write_npy(dir.path(), "cover.npy", 2, nx, |i, _| code(i));
    write_npy(
        dir.path(),
        "n.npy",
        2,
        nx,
        |i, _| if code(i) == 7.0 { 0.1 } else { 0.035 },
    );
    let cover = "[friction]\nmap = \"cover.npy\"\n[friction.classes]\n3 = 0.035\n7 = 0.1\n";
    let scene = |extra: &str| scene_in(dir.path(), &channel(nx, dx, 0.01, extra));
    let (classes, n) = (scene(cover), scene("[friction]\nmap = \"n.npy\"\n"));
    let bits = |s: &shoal::Scene| {
        let mut sim = simulation(s, Backend::Cpu);
        sim.step(100).unwrap();
        sim.eta().unwrap()
    };
    assert_eq!(bits(&classes), bits(&n), "the classes' n is not the map's");
    // The same codes as a GeoTIFF of 40 × 2 pixels (row 0 north), 10 cells a pixel: nearest.
    let coarse: Vec<f32> = (0..2).flat_map(|_| (0..40).map(|p| code(p * 10 + 5) as f32)).collect();
    let frame = shoal::io::geotiff::Frame {
        pixel: [0.5, 0.05],
        origin: [0.0, 0.1],
        keys: None,
    };
    shoal::io::geotiff::write(&dir.path().join("cover.tif"), 40, 2, &coarse, &frame, None).unwrap();
    let tif = scene(&cover.replace("cover.npy", "cover.tif"));
    assert_eq!(bits(&tif), bits(&n), "the GeoTIFF's codes were blended or misplaced");
    for (table, why) in [
        (
            "3 = 0.035\n",
            "holds class 7, which [friction.classes] does not name (it names 3)",
        ),
        ("3 = 0.035\n7 = -0.1\n", "friction.classes.7"),
        ("3 = 0.035\n7 = 0.1\nforest = 0.1\n", "\"forest\" is no class code"),
    ] {
        let text = channel(
            nx,
            dx,
            0.01,
            &format!("[friction]\nmap = \"cover.npy\"\n[friction.classes]\n{table}"),
        );
        let err = shoal::Scene::parse(&text, Path::new("<test scene>"), dir.path())
            .and_then(|s| Simulation::check(&s))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains(why), "{table}: {err}");
    }
}

/// Water arriving on dry ground within a chunk (a source at a long `time.dt`, its substeps planned
/// for the dry start): the chunk that outran its substeps goes back to its start and runs again
/// with more, so no depth goes negative and nothing diverges; the twin, the fast path and the
/// GPU take the same decisions (the fast path to the bit).
#[test]
fn a_chunk_that_outruns_its_substeps_runs_again_with_more() {
    let text = "[grid]\nnx = 40\nny = 40\ndx = 5.0\n[time]\ndt = 10.0\nsteps = 48\n\
                [physics]\nmodel = \"shallow-water\"\nmanning = 0.03\n[water]\nlevel = 0.0\n\
                [[source]]\nx = 100.0\ny = 100.0\nradius = 6.0\nrate = 4.0\n[output]\nevery = 16\n";
    let scene = scene_in(Path::new("."), text);
    let run = |backend| {
        let mut sim = simulation(&scene, backend);
        sim.step(48).unwrap();
        let notes = sim.take_notes();
        assert!(
            notes.iter().any(|n| n.contains("ran them again")),
            "{backend:?}: no chunk was run again: {notes:?}"
        );
        let (surface, ground) = (sim.surface().unwrap(), sim.ground().to_vec());
        assert!(surface.iter().zip(&ground).all(|(&h, &b)| h >= b && h.is_finite()));
        // All 4 m³/s of 480 s, to float32's rounding.
        let volume: f64 = surface.iter().zip(&ground).map(|(&h, &b)| h - b).sum::<f64>() * 25.0;
        let eta = sim.eta().unwrap();
        assert!(
            (volume - 1920.0).abs() < 1920.0 * 1e-5,
            "{backend:?}: {volume} m³ against 1920"
        );
        (eta, sim.substeps())
    };
    let twin = run(Backend::Reference);
    assert_eq!(run(Backend::Cpu), twin, "the fast path left the twin's bits");
    hold_gpu();
    let gpu = run(Backend::Gpu);
    assert_eq!(gpu.1, twin.1, "the GPU planned other substeps");
    let worst = largest_gap(&gpu.0, &twin.0);
    assert!(worst < 1e-4, "GPU and twin differ by {worst} m");
}
