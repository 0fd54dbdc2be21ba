//! Air pressure on the shallow-water model (`[[pressure]]`): the head a = p/(ρ·g) lifts the
//! surface and the ground alike in the stencil (`cpu::shallow_water::read_cell`), so the
//! pressure's force −g·d·∂a/∂x joins the bed's. A pool standing at the inverse barometer's level
//! stays at rest over any ground, and a low moving at a Froude number under one carries the forced
//! wave linear long-wave theory gives it.

use crate::common::{hold_gpu, scene_in, simulation, water_volume, write_npy};
use shoal::Backend;

/// ρ·g at the scenes' defaults, Pa per metre of head.
const RHO_G: f64 = 1000.0 * 9.81;

/// A 48 × 48 m basin 2 m deep under a Gaussian low of −1000 Pa (σ = 6 m) centred at (x0, 24 m),
/// with a bump standing 1 m out of the water inside the low and a bump 0.5 m under it beside,
/// its sides `sides`; the surface starts at the inverse barometer's level −a wherever it is above
/// the ground.
fn barometer_pool(dir: &std::path::Path, x0: f64, sides: &str) -> shoal::Scene {
    let head = |x: f64, y: f64| -1000.0 / RHO_G * (-((x - x0).powi(2) + (y - 24.0).powi(2)) / 72.0).exp();
    let bump = |x: f64, y: f64, cx: f64, cy: f64, top: f64| top * (-((x - cx).powi(2) + (y - cy).powi(2)) / 8.0).exp();
    let centre = |k: usize| k as f64 + 0.5;
    write_npy(dir, "b.npy", 48, 48, |i, j| {
        let (x, y) = (centre(i), centre(j));
        -2.0 + bump(x, y, 21.0, 24.0, 3.0) + bump(x, y, 30.0, 20.0, 1.5)
    });
    write_npy(dir, "h.npy", 48, 48, |i, j| -head(centre(i), centre(j)));
    let text = format!(
        "[grid]\nnx = 48\nny = 48\ndx = 1.0\n[time]\ndt = 0.1\n[physics]\nmodel = \"shallow-water\"\n\
         [terrain]\nnpy = \"b.npy\"\n[water]\nnpy = \"h.npy\"\n[boundary]\nall = \"{sides}\"\n\
         [[pressure]]\nshape = \"gaussian\"\nx = {x0}\ny = 24.0\nradius = 6.0\nstrength = -1000.0\n"
    );
    scene_in(dir, &text)
}

#[test]
fn a_pool_at_the_inverse_barometer_level_stays_at_rest_over_any_ground() {
    // At rest η + a is level, and the reconstruction balances it as it balances a lake at rest
    // over its ground. Not to the bit, as a lake at rest without pressure is: the lifted ground
    // b + a is rounded in float32 at the ground's magnitude (one ulp of 2 m is 2.4e-7 m), and the
    // depths re-read over it differ by as much from cell to cell. Measured over 400 steps (40 s,
    // seven crossings of the basin at sqrt(g·d) = 4.4 m/s): the surface moved 2.35e-7 m at most
    // (a deep cell, not the shore; 2.5e-7 before the stages kept their rounding in the carry),
    // the water at 6.9e-6 m/s (twin) and 5.9e-6 m/s (GPU) at most; the checks allow 5e-7 m and
    // 5e-5 m/s. The twin and the fast CPU path agree to the bit; the GPU (its own exp) within
    // 1e-6 m (measured 2.4e-7).
    stays_at_rest(24.0, "reflect", 5e-7);
}

#[test]
fn a_free_side_under_a_low_carries_the_grounds_slope_on_not_the_pressures() {
    // The low 8 m from the east side (its head there 41 % of the peak, its slope steep): a free
    // ghost built from the edge's depth over the ground's slope carried on (flat here), then
    // lifted by the edge's head, stands level with the edge, so the pool stays at rest as a
    // walled one does. Built from the lifted cells, it would carry the pressure's slope on and
    // stand a head's slope off the edge (1e-3 m and more). Measured: 1.04e-6 m moved (twin;
    // 5.8e-7 when the stages' sums rounded away what they moved under half an ulp: the free
    // side passes the lifted ground's rounding-sized velocities, 9e-6 m/s, out and in, and the
    // stages' carry now keeps what they move), checked to 1.5e-6 m: NOTE, the one bound this
    // change widened (from 1e-6), for volumes exact to the carry everywhere else; the GPU then
    // lies 1.05e-6 m from the twin (6.9e-7 before).
    stays_at_rest(40.0, "free", 1.5e-6);
}

/// The pool under a low at (`x0`, 24 m) with sides `sides`, started at the inverse barometer's
/// level, run 400 steps on every backend: still at rest (the checks' figures in the caller).
fn stays_at_rest(x0: f64, sides: &str, still: f32) {
    let dir = tempfile::tempdir().unwrap();
    let scene = barometer_pool(dir.path(), x0, sides);
    let head = |x: f64, y: f64| 1000.0 / RHO_G * (-((x - x0).powi(2) + (y - 24.0).powi(2)) / 72.0).exp();
    let mut runs = Vec::new();
    for backend in [Backend::Reference, Backend::Cpu, Backend::Gpu] {
        if backend == Backend::Gpu {
            hold_gpu();
        }
        let mut sim = simulation(&scene, backend);
        let start = sim.eta().unwrap();
        let volume = water_volume(&mut sim);
        sim.step(400).unwrap();
        let eta = sim.eta().unwrap();
        let moved = eta
            .iter()
            .zip(&start)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        let speed = sim.velocity().unwrap().expect("the model has velocities");
        let fastest = speed.iter().map(|v| v[0].hypot(v[1])).fold(0.0f32, f32::max);
        eprintln!("{backend:?}: surface moved {moved:.2e} m at most, fastest {fastest:.2e} m/s");
        assert!(
            moved < still,
            "{backend:?}: the surface moved {moved} m at rest under the low"
        );
        assert!(
            fastest < 5e-5,
            "{backend:?}: water at {fastest} m/s at rest under the low"
        );
        // The wet cells stand where the low holds them: the centre 0.1012 m up (exp(−0.5/72) of
        // 1000/(ρg)), the basin's corner at its own head's level.
        let h = sim.surface().unwrap();
        let centre = 24 * 48 + x0 as usize;
        let want = head(x0 + 0.5, 24.5);
        assert!((h[centre] - want).abs() < 1e-6, "{backend:?}: centre at {}", h[centre]);
        assert!((h[0] - head(0.5, 0.5)).abs() < 1e-6, "{backend:?}: corner at {}", h[0]);
        let kept = water_volume(&mut sim) / volume - 1.0;
        assert!(kept.abs() < 1e-6, "{backend:?}: the volume changed by {kept:.2e}");
        runs.push(eta);
    }
    assert_eq!(runs[1], runs[0], "the fast path left the twin's bits");
    let worst = runs[2]
        .iter()
        .zip(&runs[0])
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    eprintln!("GPU vs twin: {worst:.2e} m");
    // The GPU's own exp lifts the ground by other roundings, so its sub-ulp flows differ and its
    // carry pays them in at other steps: within twice the rest's bound (1e-6 m walled).
    let apart = (2.0 * still).max(1e-6);
    assert!(worst < apart, "GPU and twin differ by {worst} m");
}

#[test]
fn a_low_moving_at_half_the_wave_speed_carries_its_forced_wave() {
    // Linear long waves under a moving head a(x − U·t): the forced wave is η = −a/(1 − Fr²),
    // Fr = U/sqrt(g·d), whatever the patch's shape (mass d·u = U·η and momentum U·u = g·(η + a)
    // along the moving frame). At Fr = 0.5 that is 4/3 of the inverse barometer's rise. A −100 Pa
    // low (a = −0.0102 m, so η/d = 0.014 on 1 m of water: nonlinear terms about 1 %), σ = 5 m,
    // started at rest, sheds free waves at ±sqrt(g·d); after 40 s the forward one is 63 m (12 σ)
    // ahead of it. Measured (fast CPU): the crest 0.82 % under linear theory, on the cell
    // nearest the patch's centre (0.11 m off); the tolerance is 3 % and 1 m.
    let (d, fr) = (1.0f64, 0.5);
    let u = fr * (9.81 * d).sqrt();
    let text = format!(
        "[grid]\nnx = 360\nny = 2\ndx = 0.5\n[time]\ndt = 0.05\n[physics]\nmodel = \"shallow-water\"\n\
         [terrain]\nflat = -{d}\n[water]\nlevel = 0.0\n[boundary]\nwest = \"free\"\neast = \"free\"\n\
         [[pressure]]\nshape = \"gaussian\"\nx = 20.0\ny = 0.5\nradius = 5.0\nstrength = -100.0\nvelocity = [{u}, 0.0]\n"
    );
    let scene = crate::common::scene(&text);
    let mut sim = simulation(&scene, Backend::Cpu);
    let steps = 800;
    sim.step(steps).unwrap();
    let h = sim.surface().unwrap();
    let centre = 20.0 + u * steps as f64 * 0.05;
    let (peak_at, peak) = (0..360)
        .map(|i| ((i as f64 + 0.5) * 0.5, h[i]))
        .filter(|(x, _)| (x - centre).abs() < 15.0)
        .fold((0.0, f64::MIN), |m, (x, v)| if v > m.1 { (x, v) } else { m });
    let want = 100.0 / RHO_G / (1.0 - fr * fr);
    eprintln!(
        "forced wave {peak:.6} m at x = {peak_at:.2} m (patch at {centre:.2} m); linear theory {want:.6} m ({:+.2} %)",
        100.0 * (peak / want - 1.0)
    );
    assert!(
        (peak / want - 1.0).abs() < 0.03,
        "the forced wave stands {peak} m, linear theory says {want} m"
    );
    assert!(
        (peak_at - centre).abs() < 1.0,
        "its crest at {peak_at} m, the patch at {centre} m"
    );
    // The backward wave left through the free west side by 7 s (the forward one is at 145 m of
    // 180), so the volume is not the start's; the fast path is still the twin's bits.
    let mut twin = simulation(&scene, Backend::Reference);
    twin.step(steps).unwrap();
    assert_eq!(
        twin.eta().unwrap(),
        sim.eta().unwrap(),
        "the fast path left the twin's bits"
    );
}
