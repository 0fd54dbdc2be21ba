//! Tests that assert physics, each on the CPU reference and on the GPU (the software adapter here).

use crate::common::*;
use shoal::{Backend, Simulation};
use std::f64::consts::PI;
use std::path::Path;

const G: f64 = 9.81;

/// The standing-wave channel: cells, cell size (m), step (s), amplitude (m).
const N: usize = 64;
const DX: f64 = 0.1;
const DT: f64 = 0.01;
const A: f64 = 0.001;

/// A closed channel along x (or y when `along_y`) of N cells, depth `depth`, floor at `floor`,
/// with a standing wave A·cos(πs/L) written as the initial surface.
fn standing_wave(dir: &Path, depth: f64, floor: f64, along_y: bool) -> shoal::Scene {
    let (n, dx, dt, a) = (N, DX, DT, A);
    let level = floor + depth;
    let l = n as f64 * dx;
    let (nx, ny) = if along_y { (2, n) } else { (n, 2) };
    write_npy(dir, "h0.npy", ny, nx, |i, j| {
        let s = (if along_y { j } else { i } as f64 + 0.5) * dx;
        level + a * (PI * s / l).cos()
    });
    scene_in(
        dir,
        &format!(
            r#"
[grid]
nx = {nx}
ny = {ny}
dx = {dx}
[time]
dt = {dt}
[terrain]
flat = {floor}
[water]
level = {level}
npy = "h0.npy"
[[output.probe]]
name = "end"
x = {px}
y = {py}
"#,
            px = dx / 2.0,
            py = dx / 2.0,
        ),
    )
}

/// Runs `steps` steps and returns the probe signal relative to the still level, sampled every step.
fn probe_signal(sim: &mut Simulation, steps: u64, level: f64) -> Vec<f64> {
    let first = sim.surface().unwrap()[0] - level;
    let rows = sim.step(steps).unwrap();
    std::iter::once(first)
        .chain(rows.iter().map(|r| r[0] - level))
        .collect()
}

fn volume(sim: &mut Simulation) -> f64 {
    let s = sim.surface().unwrap();
    sim.stats(&s).volume
}

fn relative_volume_change(sim: &mut Simulation, v0: f64) -> f64 {
    let s = sim.surface().unwrap();
    (sim.stats(&s).volume - v0).abs() / v0
}

#[test]
fn volume_is_conserved_with_closed_walls_for_10000_steps() {
    let scene = scene(
        r#"
[grid]
nx = 48
ny = 40
dx = 0.05
[time]
dt = 0.01
[terrain]
slope = { base = -1.0, grad = [0.1, 0.05] }
[water]
level = 0.0
[[water.bump]]
x = 0.6
y = 0.5
radius = 0.15
height = 0.05
[[water.bump]]
x = 1.8
y = 1.4
radius = 0.1
height = -0.04
"#,
    );
    for backend in BOTH {
        let mut sim = simulation(&scene, backend);
        let s0 = sim.surface().unwrap();
        let v0 = sim.stats(&s0).volume;
        assert_eq!(sim.stats(&s0).wet_cells, 48 * 40, "every cell must be wet");
        sim.step(10_000).unwrap();
        let drift = relative_volume_change(&mut sim, v0);
        eprintln!("{backend:?}: |ΔV|/V after 10000 steps = {drift:.2e}");
        assert!(drift <= 1e-6, "{backend:?}: volume drifted by {drift:.2e} (limit 1e-6)");
    }
}

fn measured_period(backend: Backend, depth: f64, floor: f64, along_y: bool) -> (f64, f64, Vec<f64>) {
    let dir = tempfile::tempdir().unwrap();
    let (n, dx, dt) = (N, DX, DT);
    let scene = standing_wave(dir.path(), depth, floor, along_y);
    let analytic = 2.0 * n as f64 * dx / (G * depth).sqrt();
    let mut sim = simulation(&scene, backend);
    let steps = (3.2 * analytic / dt) as u64;
    let signal = probe_signal(&mut sim, steps, floor + depth);
    (mean_period(&signal, 0.0, dt), analytic, signal)
}

#[test]
fn standing_wave_period_matches_2l_over_sqrt_gh_along_x_and_y() {
    for backend in BOTH {
        for along_y in [false, true] {
            let (period, analytic, _) = measured_period(backend, 1.0, -1.0, along_y);
            let err = (period - analytic).abs() / analytic;
            eprintln!("{backend:?} along_y={along_y}: period {period:.4} s, analytic {analytic:.4} s, error {err:.2e}");
            assert!(
                err < 0.01,
                "{backend:?}: period {period} vs 2L/sqrt(gH) = {analytic} ({err:.3} > 1 %)"
            );
        }
    }
}

#[test]
fn standing_wave_period_doubles_at_a_quarter_of_the_depth() {
    for backend in BOTH {
        let (deep, _, _) = measured_period(backend, 1.0, -1.0, false);
        let (shallow, analytic, _) = measured_period(backend, 0.25, -0.25, false);
        let ratio = shallow / deep;
        eprintln!("{backend:?}: period ratio {ratio:.4}");
        assert!(
            (ratio - 2.0).abs() / 2.0 < 0.01,
            "{backend:?}: ratio {ratio} should be 2 within 1 %"
        );
        assert!((shallow - analytic).abs() / analytic < 0.01);
    }
}

#[test]
fn a_millimetre_wave_99_m_above_the_datum_behaves_as_at_sea_level() {
    for backend in BOTH {
        let dir = tempfile::tempdir().unwrap();
        let (n, dx, dt, a) = (N, DX, DT, A);
        let analytic = 2.0 * n as f64 * dx / G.sqrt();
        let steps = (3.2 * analytic / dt) as u64;
        let mut signals = Vec::new();
        for floor in [-1.0, 99.0] {
            let scene = standing_wave(dir.path(), 1.0, floor, false);
            let mut sim = simulation(&scene, backend);
            let v0 = volume(&mut sim);
            let signal = probe_signal(&mut sim, steps, floor + 1.0);
            let period = mean_period(&signal, 0.0, dt);
            let tail = &signal[signal.len() - (analytic / dt) as usize..];
            let amplitude = tail.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            let drift = relative_volume_change(&mut sim, v0);
            eprintln!(
                "{backend:?} floor {floor} m: period {period:.4} s, amplitude {amplitude:.3e} m, |ΔV|/V {drift:.1e}"
            );
            assert!(
                (period - analytic).abs() / analytic < 0.01,
                "floor {floor}: period {period} vs {analytic}"
            );
            assert!(
                (amplitude - a).abs() / a < 0.1,
                "floor {floor}: amplitude {amplitude} vs {a}"
            );
            assert!(drift <= 1e-6, "floor {floor}: volume drifted by {drift:.2e}");
            signals.push(signal);
        }
        // Stored relative to the still level, the two lakes are the same computation.
        let worst = signals[0]
            .iter()
            .zip(&signals[1])
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f64::max);
        assert!(
            worst < 1e-9,
            "{backend:?}: the lake at 99 m differs from the one at sea level by {worst:.2e} m"
        );
    }
}

/// A 1-D pulse in a channel with both ends absorbing: what is left after it has gone is the reflection.
#[test]
fn absorbing_sides_reflect_less_than_5_percent() {
    let scene_for = |ends: &str| {
        scene(&format!(
            r#"
[grid]
nx = 400
ny = 2
dx = 0.05
[time]
dt = 0.005
[boundary]
west = "{ends}"
east = "{ends}"
[terrain]
flat = -1.0
[[water.bump]]
x = 10.0
y = 0.05
radius = 0.3
height = 0.01
"#
        ))
    };
    for backend in BOTH {
        let amplitude_out = 0.005; // the bump splits into two pulses of half its height
        let residual = |ends: &str| {
            let mut sim = simulation(&scene_for(ends), backend);
            // The pulses reach the ends after 10 m / 3.13 m/s ≈ 640 steps; by 1300 steps they are
            // gone, or on their way back.
            sim.step(1300).unwrap();
            sim.surface().unwrap().iter().fold(0.0f64, |m, h| m.max(h.abs()))
        };
        let absorbed = residual("absorb") / amplitude_out;
        let reflected = residual("reflect") / amplitude_out;
        eprintln!(
            "{backend:?}: reflection absorb {:.2} %, reflect {:.1} %",
            absorbed * 100.0,
            reflected * 100.0
        );
        assert!(
            absorbed < 0.05,
            "{backend:?}: absorbing ends reflect {:.1} %",
            absorbed * 100.0
        );
        assert!(
            reflected > 0.9,
            "{backend:?}: the reflecting control should keep the pulse ({reflected:.2})"
        );
    }
}

#[test]
fn dt_four_times_over_the_stability_limit_runs_substeps_without_growth() {
    // g·d·dt²/dx² = 9.81 · 1 · 0.0451² / 0.1² = 2.0: four times the limit of 1/2.
    let scene = scene(
        r#"
[grid]
nx = 100
ny = 2
dx = 0.1
[time]
dt = 0.04515
[terrain]
flat = -1.0
[[water.bump]]
x = 5.0
y = 0.1
radius = 0.4
height = 0.01
"#,
    );
    for backend in BOTH {
        let mut sim = simulation(&scene, backend);
        let notes = sim.take_notes();
        assert!(sim.substeps() >= 3, "{backend:?}: {} substeps", sim.substeps());
        assert!(
            notes.iter().any(|n| n.contains("substeps")),
            "{backend:?}: no note said so: {notes:?}"
        );
        let v0 = volume(&mut sim);
        let mut peak = 0.0f64;
        for _ in 0..100 {
            sim.step(20).unwrap();
            peak = sim.surface().unwrap().iter().fold(peak, |m, h| m.max(h.abs()));
        }
        assert!(peak <= 0.0105, "{backend:?}: waves grew to {peak} (started at 0.01)");
        assert!(relative_volume_change(&mut sim, v0) < 1e-6);
    }
}

/// The wet/dry face rule: a dry bank standing above the water must not leak into it.
#[test]
fn a_still_lake_on_a_beach_stays_still() {
    let scene = scene(
        r#"
[grid]
nx = 60
ny = 20
dx = 0.05
[time]
dt = 0.01
[terrain]
slope = { base = -0.5, grad = [0.3, 0.05] }
[water]
level = 0.0
"#,
    );
    for backend in BOTH {
        let mut sim = simulation(&scene, backend);
        let s0 = sim.surface().unwrap();
        let st0 = sim.stats(&s0);
        assert!(st0.wet_cells > 200 && st0.wet_cells < 1000, "needs a shoreline");
        sim.step(2000).unwrap();
        let s = sim.surface().unwrap();
        let st = sim.stats(&s);
        let moved = s.iter().zip(&s0).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        assert_eq!(st.wet_cells, st0.wet_cells, "{backend:?}: the shoreline moved");
        assert!(moved < 1e-7, "{backend:?}: the still lake moved by {moved:.2e} m");
        assert_eq!(st.volume, st0.volume, "{backend:?}: volume changed");
    }
}

#[test]
fn dry_cells_never_lie_below_the_ground() {
    let scene = scene(
        r#"
[grid]
nx = 60
ny = 30
dx = 0.05
[time]
dt = 0.01
[terrain]
slope = { base = -0.3, grad = [0.2, 0.0] }
[water]
level = 0.0
[[water.bump]]
x = 0.5
y = 0.75
radius = 0.2
height = 0.08
"#,
    );
    for backend in BOTH {
        let mut sim = simulation(&scene, backend);
        for _ in 0..20 {
            sim.step(50).unwrap();
            let s = sim.surface().unwrap();
            let below = s.iter().zip(sim.ground()).filter(|(h, b)| h < b).count();
            assert_eq!(
                below,
                0,
                "{backend:?}: {below} cells below the ground at step {}",
                sim.step_index()
            );
        }
    }
}

/// Both pulses of a bump cross the periodic sides and meet again where they started after L/c.
#[test]
fn periodic_sides_bring_waves_back_around() {
    let scene = scene(
        r#"
[grid]
nx = 200
ny = 2
dx = 0.05
[time]
dt = 0.005
[boundary]
all = "periodic"
[terrain]
flat = -1.0
[[water.bump]]
x = 2.0
y = 0.05
radius = 0.2
height = 0.01
"#,
    );
    let lap = (10.0 / G.sqrt() / 0.005).round() as u64; // L / c in steps
    for backend in BOTH {
        let mut sim = simulation(&scene, backend);
        let s0 = sim.surface().unwrap();
        let v0 = sim.stats(&s0).volume;
        sim.step(lap).unwrap();
        let s = sim.surface().unwrap();
        let dot: f64 = s.iter().zip(&s0).map(|(a, b)| a * b).sum();
        let norm = |v: &[f64]| v.iter().map(|a| a * a).sum::<f64>().sqrt();
        let correlation = dot / (norm(&s) * norm(&s0));
        eprintln!("{backend:?}: correlation with the start after one lap {correlation:.3}");
        assert!(correlation > 0.9, "{backend:?}: correlation {correlation}");
        assert!(relative_volume_change(&mut sim, v0) < 1e-6);
    }
}

/// Wilson et al.'s slope ghost leaves corners stuck at their first height; here a corner follows its
/// two edge neighbours (their mean, one step behind), and nothing grows.
#[test]
fn slope_ghost_corners_follow_their_neighbours_and_stay_bounded() {
    let scene = scene(
        r#"
[grid]
nx = 40
ny = 40
dx = 0.05
[time]
dt = 0.01
[boundary]
all = "ghost-slope"
[terrain]
flat = -0.5
[[water.bump]]
x = 0.4
y = 0.4
radius = 0.12
height = 0.02
"#,
    );
    for backend in BOTH {
        let mut sim = simulation(&scene, backend);
        let v0 = volume(&mut sim);
        let (mut corner_motion, mut neighbour_motion, mut peak) = (0.0f64, 0.0f64, 0.0f64);
        for _ in 0..200 {
            sim.step(10).unwrap();
            let s = sim.surface().unwrap();
            corner_motion = corner_motion.max(s[0].abs());
            neighbour_motion = neighbour_motion.max((0.5 * (s[1] + s[40])).abs());
            peak = s.iter().fold(peak, |m, h| m.max(h.abs()));
        }
        eprintln!("{backend:?}: corner moved {corner_motion:.2e} m, its neighbours {neighbour_motion:.2e} m, peak {peak:.2e} m");
        assert!(corner_motion > 1e-5, "{backend:?}: the corner is stuck");
        assert!(
            (corner_motion - neighbour_motion).abs() < 0.2 * neighbour_motion,
            "{backend:?}: the corner ({corner_motion:.2e}) does not follow its neighbours ({neighbour_motion:.2e})"
        );
        assert!(peak < 0.02, "{backend:?}: waves grew to {peak}");
        assert!(relative_volume_change(&mut sim, v0) < 0.01);
    }
}

/// An open side holds the still level: water raised above it drains out until the level is back.
#[test]
fn open_side_relaxes_to_the_still_level() {
    let dir = tempfile::tempdir().unwrap();
    write_npy(dir.path(), "h0.npy", 2, 50, |_, _| 0.01);
    let scene = scene_in(
        dir.path(),
        r#"
[grid]
nx = 50
ny = 2
dx = 0.1
[time]
dt = 0.01
[physics]
damping = 0.01
[boundary]
east = "open"
[terrain]
flat = -1.0
[water]
level = 0.0
npy = "h0.npy"
"#,
    );
    for backend in BOTH {
        let mut sim = simulation(&scene, backend);
        sim.step(3000).unwrap();
        let s = sim.surface().unwrap();
        let worst = s.iter().fold(0.0f64, |m, h| m.max(h.abs()));
        assert!(
            worst < 5e-4,
            "{backend:?}: the surface is still {worst} m off the still level"
        );
    }
}

/// The rate (1/s) at which the positive peaks of `signal` (sampled every `dt`) decay: a fit of
/// ln(peak) against time over every peak.
fn peak_decay_rate(signal: &[f64], dt: f64) -> f64 {
    let peaks: Vec<(f64, f64)> = (1..signal.len() - 1)
        .filter(|&n| signal[n] > 0.0 && signal[n] >= signal[n - 1] && signal[n] > signal[n + 1])
        .map(|n| (n as f64 * dt, signal[n].ln()))
        .collect();
    assert!(peaks.len() >= 4, "too few peaks: {peaks:?}");
    let m = peaks.len() as f64;
    let (st, sl) = peaks.iter().fold((0.0, 0.0), |(a, b), &(t, l)| (a + t, b + l));
    let (mt, ml) = (st / m, sl / m);
    let (num, den) = peaks.iter().fold((0.0, 0.0), |(n, d), &(t, l)| {
        (n + (t - mt) * (l - ml), d + (t - mt) * (t - mt))
    });
    -num / den
}

#[test]
fn damping_is_per_step_of_time_dt_whatever_the_substeps() {
    // The standing wave with tau = 0.002, at dt = 0.01 s and one substep, and at dt = 0.02 s with
    // two substeps of the same 0.01 s: the waves are the same but for the damping. A factor per
    // step of time.dt decays the amplitude at −ln(1 − tau)/(2·dt) per second (the scheme keeps
    // sqrt(keep) of a mode's amplitude a substep): 0.1001 /s, then half of it, 0.0500 /s. Before,
    // tau was applied once per substep, and both decayed at 0.1001 /s. Tolerance 1 %: the peaks'
    // sampling (one per step) and the scheme's own dispersion move the fitted rate by ~0.1 %.
    let tau: f64 = 0.002;
    let dir = tempfile::tempdir().unwrap();
    let base = standing_wave(dir.path(), 1.0, -1.0, false);
    for backend in BOTH {
        let mut rates = Vec::new();
        for (dt, substeps) in [(0.01, 1u32), (0.02, 2)] {
            let mut scene = base.clone();
            scene.physics.damping = tau;
            scene.time.dt = dt;
            scene.time.substeps = substeps;
            let mut sim = simulation(&scene, backend);
            assert_eq!(sim.substeps(), substeps);
            let signal = probe_signal(&mut sim, (20.0 / dt) as u64, 0.0);
            let rate = peak_decay_rate(&signal, dt);
            let want = -(1.0 - tau).ln() / (2.0 * dt);
            eprintln!("{backend:?} dt {dt} × {substeps}: decay {rate:.5} /s, per step of dt {want:.5} /s");
            assert!(
                (rate - want).abs() <= 0.01 * want,
                "{backend:?} dt {dt} with {substeps} substeps: the wave decays at {rate:.5} /s, tau per step says {want:.5}"
            );
            rates.push(rate);
        }
        let ratio = rates[1] / rates[0];
        assert!(
            (ratio - 0.5).abs() <= 0.01,
            "{backend:?}: doubling dt scaled the decay by {ratio:.4}, not 0.5"
        );
    }
}

#[test]
fn a_wave_released_at_rest_starts_at_its_amplitude_and_phase() {
    // A standing wave of 10 cells per wavelength (mode 4 of a closed 20-cell channel, 1 m deep),
    // undamped, released at rest under the default start. With a = k·λ, λ = 4·d·sin²(κ·dx/2):
    // - explicit (Courant 0.5): the mode oscillates at cos(ω·dt) = 1 − a/2, and the Taylor start
    //   (start.rs) makes the end cell follow h0·cos(ω·n·dt) exactly;
    // - ADI (Courant 0.5 and 1): the mode obeys (1 + a)·h^(n+1) = 2·h^n − h^(n−1), whose solution
    //   with h^(−1) = h^0 (at rest) is exactly h0·r^n·cos(θ·n), r = 1/√(1 + a), tan θ = √a: its
    //   rest start already has the amplitude and phase (start.rs). (At Courant 2 the mode keeps
    //   r = 0.63 of itself per step, and dividing by r^n magnifies the nonlinearity: 1.0011.)
    // Up to the face depths' nonlinearity (amplitude 1 mm in 1 m). A fit of r^n·(p·cos + q·sin)
    // at that θ over two periods gives the amplitude and the phase. The issue asks 0.05 % and
    // 0.05 step; the explicit scheme starting from rest gave +1.24 % and half a step.
    let (n, dx, depth, a, mode) = (20usize, 0.1f64, 1.0f64, 0.001f64, 4.0f64);
    let l = n as f64 * dx;
    for (solver, courant) in [("explicit", 0.5), ("adi", 0.5), ("adi", 1.0)] {
        let dir = tempfile::tempdir().unwrap();
        let dt = courant * dx / (G * depth).sqrt();
        write_npy(dir.path(), "h0.npy", 2, n, |i, _| {
            a * (mode * PI * (i as f64 + 0.5) * dx / l).cos()
        });
        let scene = scene_in(
            dir.path(),
            &format!(
                "[grid]\nnx = {n}\nny = 2\ndx = {dx}\n[time]\ndt = {dt}\n[physics]\nsolver = \"{solver}\"\n\
                 [terrain]\nflat = -1.0\n[water]\nlevel = 0.0\nnpy = \"h0.npy\"\n\
                 [[output.probe]]\nname = \"end\"\nx = 0.05\ny = 0.05\n"
            ),
        );
        let k = G * dt * dt / (dx * dx);
        let kappa = mode * PI / l;
        let ka = k * 4.0 * depth * (kappa * dx / 2.0).sin().powi(2);
        let (theta, r) = if solver == "explicit" {
            ((1.0 - ka / 2.0).acos(), 1.0)
        } else {
            (ka.sqrt().atan(), 1.0 / (1.0 + ka).sqrt())
        };
        let steps = (2.0 * 2.0 * PI / theta).round() as u64;
        for backend in BOTH {
            let mut sim = simulation(&scene, backend);
            let signal = probe_signal(&mut sim, steps, 0.0);
            let h0 = signal[0];
            // Least squares of s_n / r^n = p·cos(θ·n) + q·sin(θ·n).
            let (mut cc, mut ss, mut cs, mut sc, mut sq) = (0.0, 0.0, 0.0, 0.0, 0.0);
            for (step, &s) in signal.iter().enumerate() {
                let s = s / r.powi(step as i32);
                let (c, si) = ((theta * step as f64).cos(), (theta * step as f64).sin());
                cc += c * c;
                ss += si * si;
                cs += c * si;
                sc += s * c;
                sq += s * si;
            }
            let det = cc * ss - cs * cs;
            let (p, q) = ((sc * ss - sq * cs) / det, (sq * cc - sc * cs) / det);
            let amplitude = (p * p + q * q).sqrt() / h0;
            // s = A·cos(θ·n − φ): φ = atan2(q, p), in steps φ/θ (positive: behind).
            let lead = -q.atan2(p) / theta;
            eprintln!(
                "{solver} at Courant {courant}, {backend:?}: amplitude {amplitude:.6} of the start's, \
                 phase lead {lead:+.4} step"
            );
            assert!(
                (amplitude - 1.0).abs() <= 5e-4,
                "{solver} {backend:?}: the wave's amplitude is {amplitude:.6} of its start's"
            );
            assert!(
                lead.abs() <= 0.05,
                "{solver} {backend:?}: the wave runs {lead:+.4} step ahead of its start"
            );
        }
    }
}

#[test]
fn a_millimetre_wave_on_deep_water_keeps_linear_theory_under_the_default_correction() {
    // A 1 mm standing wave (mode 1 of a closed 40-cell channel, dx = 10 m) on 100 m of water at
    // Courant 0.5, with the default volume correction. Linear theory for the scheme (the default
    // Taylor start makes the discrete mode exact): h_i^n = A·cos(κ·x_i)·cos(ω·n·dt), cos(ω·dt) = 1 −
    // k·λ/2. The correction measures the volume above the still water; from f32 depths that
    // rounded each wave height to the depth's ulp (7.6e-6 m at 100 m) and spread the error over
    // the wet cells every step. Taken as max(e, b) − max(b, 0) (sums.wgsl) a wet cell gives its
    // own height exactly. The issue asks 2e-7 m over the run; nonlinearity (A/D = 1e-5) is 1e-8.
    let dir = tempfile::tempdir().unwrap();
    let (n, dx, depth, a) = (40usize, 10.0f64, 100.0f64, 0.001f64);
    let dt = 0.5 * dx / (G * depth).sqrt();
    let l = n as f64 * dx;
    let kappa = PI / l;
    write_npy(dir.path(), "h0.npy", 2, n, |i, _| {
        a * (kappa * (i as f64 + 0.5) * dx).cos()
    });
    let scene = scene_in(
        dir.path(),
        &format!(
            "[grid]\nnx = {n}\nny = 2\ndx = {dx}\n[time]\ndt = {dt}\n[terrain]\nflat = -{depth}\n\
             [water]\nlevel = 0.0\nnpy = \"h0.npy\"\n[[output.probe]]\nname = \"end\"\nx = 5.0\ny = 5.0\n"
        ),
    );
    let k = G * dt * dt / (dx * dx);
    let lambda = 4.0 * depth * (kappa * dx / 2.0).sin().powi(2);
    let omega_dt = (1.0 - k * lambda / 2.0).acos();
    let steps = (3.0 * 2.0 * PI / omega_dt).round() as u64;
    let start = a * (kappa * dx / 2.0).cos();
    for backend in BOTH {
        let mut sim = simulation(&scene, backend);
        let signal = probe_signal(&mut sim, steps, 0.0);
        let worst = signal
            .iter()
            .enumerate()
            .map(|(step, &s)| (s - start * (omega_dt * step as f64).cos()).abs())
            .fold(0.0f64, f64::max);
        eprintln!("{backend:?}: {steps} steps, worst departure from linear theory {worst:.2e} m");
        assert!(
            worst <= 2e-7,
            "{backend:?}: the wave departs {worst:.2e} m from linear theory"
        );
    }
}
