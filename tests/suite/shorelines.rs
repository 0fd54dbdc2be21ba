//! Moving shorelines keep their energy (issue 16): Thacker's parabolic bowl, whose planar mode
//! the shallow-water equations keep exactly, and a wave running up and down a 1:20 beach.
//!
//! Before the faces' flux memory (`cpu::explicit::Memory`) the explicit solver kept 0.957 of the
//! bowl's amplitude per period at a 1 % excursion and 0.903 at 2.5 %, however fine the grid, and
//! ADI 0.949 against the 0.989 its own time damping leaves (200 cells per radius, 1 %).

use crate::common::*;
use shoal::{Backend, Simulation};

#[path = "../../examples/thacker/bowl.rs"]
#[allow(dead_code)]
mod bowl;

use bowl::{adi_own, kept, Bowl};

/// Thacker's goal: 0.99 of the amplitude per period at 200 cells per radius. Measured 0.9994 and
/// 0.9993 (1 %), 0.9995 and 0.9993 (2.5 %); the rest of the gap is the scheme's truncation and
/// the bowl's mode shape on a grid, which shrink with resolution (below).
const KEPT: f64 = 0.99;

#[test]
fn thackers_strip_keeps_its_amplitude_as_the_shoreline_moves() {
    for excursion in [0.01, 0.025] {
        let kept = kept(Bowl::Strip, "explicit", Backend::Cpu, 200, excursion, 3).unwrap();
        eprintln!("strip, 200 cells per radius, excursion {excursion}: kept {kept:.4?} per period");
        assert!(kept.iter().all(|&k| k >= KEPT), "{excursion}: {kept:?} (bound {KEPT})");
    }
}

#[test]
fn thackers_strip_loses_less_as_the_grid_is_refined() {
    // Measured 0.9959 (50), 0.9978 (100), 0.9994 (200 cells per radius) at 1 %: the loss is the
    // scheme's truncation, converging to none. (Before: 0.938, 0.954, 0.959.)
    let first = |cells| kept(Bowl::Strip, "explicit", Backend::Cpu, cells, 0.01, 2).unwrap()[0];
    let (coarse, fine) = (first(50), first(100));
    eprintln!("strip at 1 %: kept {coarse:.4} at 50 cells per radius, {fine:.4} at 100");
    assert!(coarse >= 0.99 && fine > coarse, "{coarse} → {fine}");
}

#[test]
fn thackers_round_bowl_keeps_its_amplitude_as_the_shoreline_moves() {
    // The 2-D planar mode, at 50 cells per radius (the goal's 200 take minutes on two cores:
    // measured there 0.9990/0.9988 at 1 %, 0.9959/0.9938 at 2.5 %). Measured here 0.9973/0.9967
    // (1 %) and 0.9930/0.9916 (2.5 %).
    for excursion in [0.01, 0.025] {
        let kept = kept(Bowl::Round, "explicit", Backend::Cpu, 50, excursion, 3).unwrap();
        eprintln!("round bowl, 50 cells per radius, excursion {excursion}: kept {kept:.4?} per period");
        assert!(kept.iter().all(|&k| k >= KEPT), "{excursion}: {kept:?} (bound {KEPT})");
    }
}

/// The strip at 2.5 % on the GPU and on the CPU twin over one period at `cells` per radius:
/// (cpu, gpu) kept, the first peak's ratios within 1e-4 of each other (the backends agree to a few
/// ulp of the wave per step; the ratio of two centres of mass carries that, far below the loss
/// the memory removes).
fn gpu_and_cpu_strips(solver: &str, cells: usize) -> (f64, f64) {
    let cpu = kept(Bowl::Strip, solver, Backend::Cpu, cells, 0.025, 2).unwrap();
    hold_gpu();
    let gpu = kept(Bowl::Strip, solver, Backend::Gpu, cells, 0.025, 2).unwrap();
    eprintln!("{solver} strip at 2.5 %: cpu {cpu:.6?}, gpu {gpu:.6?}");
    assert!((gpu[0] - cpu[0]).abs() < 1e-4, "{solver}: gpu {gpu:?}, cpu {cpu:?}");
    (cpu[0], gpu[0])
}

#[test]
fn thackers_strip_on_the_gpu_keeps_what_the_cpu_keeps() {
    // The faces' memory on the GPU (explicit.wgsl) against its twin, 100 cells per radius.
    let (_, gpu) = gpu_and_cpu_strips("explicit", 100);
    assert!(gpu >= KEPT, "gpu {gpu}");
}

/// ADI's goal: within 1 % of its own time damping of the mode (`bowl::adi_own`: the scheme's
/// damping of the same mode without a moving shoreline).
const OF_ITS_OWN: f64 = 0.99;

#[test]
fn thackers_bowls_on_adi_keep_their_own_damping_as_the_shoreline_moves() {
    // Measured (kept / own): strip at 100 cells per radius 0.9768/0.9780 at 2.5 %; at 50 cells,
    // strip 0.9526 and 0.9527 (1 %, 2.5 %), round 0.9542 and 0.9504, against its own 0.9565; at
    // 200 cells and 1 %, 0.9884 against 0.9890 (0.949 before ADI kept the faces' memory).
    let own = adi_own(50);
    for bowl in [Bowl::Strip, Bowl::Round] {
        for excursion in [0.01, 0.025] {
            let kept = kept(bowl, "adi", Backend::Cpu, 50, excursion, 2).unwrap();
            eprintln!("{bowl:?} on ADI, 50 cells per radius, {excursion}: kept {kept:.4?}, its own {own:.4}");
            assert!(
                kept.iter().all(|&k| k / own >= OF_ITS_OWN && k <= 1.0),
                "{bowl:?} {excursion}: {kept:?} against its own {own}"
            );
        }
    }
}

#[test]
fn thackers_strip_on_the_gpu_adi_keeps_what_the_cpu_keeps() {
    // adi.wgsl's faces (the x sweep's flux held in the memory word, `finish_cell`) against the
    // twin, 50 cells per radius.
    let (_, gpu) = gpu_and_cpu_strips("adi", 50);
    assert!(gpu / adi_own(50) >= OF_ITS_OWN, "gpu {gpu}");
}

/// The beach's cells along x and its step (Courant 0.5 in the 0.5 m deep part).
fn beach_grid(dx: f64) -> (usize, f64) {
    ((24.0 / dx).round() as usize, 0.5 * dx / (9.81f64 * 0.5).sqrt())
}

/// `beach_energy`'s beach as a simulation (explicit, the given volume correction).
fn beach(dx: f64, amp: f64, walled: bool, correction: &str) -> Simulation {
    let (depth, ny) = (0.5, 2);
    let (nx, dt) = beach_grid(dx);
    let x = |i: usize| (i as f64 + 0.5) * dx;
    let line = |f: &dyn Fn(f64) -> f64| -> Vec<f64> { (0..ny * nx).map(|c| f(x(c % nx))).collect() };
    let ground = line(&|x| {
        if walled && x > 18.0 {
            1.0
        } else {
            -depth + (x - 10.0).max(0.0) / 20.0
        }
    });
    let surface = line(&|x| amp * (-((x - 3.0) / 6.0f64).powi(2)).exp());
    let dir = tempfile::tempdir().unwrap();
    shoal::io::npy::write_2d(&dir.path().join("ground.npy"), ny, nx, &ground).unwrap();
    shoal::io::npy::write_2d(&dir.path().join("h0.npy"), ny, nx, &surface).unwrap();
    let text = format!(
        "[grid]\nnx = {nx}\nny = {ny}\ndx = {dx}\n[time]\ndt = {dt}\nsteps = 1\n[physics]\nsolver = \"explicit\"\n\
         volume_correction = \"{correction}\"\n[boundary]\nall = \"reflect\"\n[terrain]\nnpy = \"ground.npy\"\n\
         [water]\nnpy = \"h0.npy\"\n"
    );
    Simulation::new(&scene_in(dir.path(), &text), Backend::Cpu).unwrap()
}

/// The 1:20 beach of the test below, as a strip two cells across: 0.5 m deep for 10 m, then the
/// slope, whose still shoreline stands at 20 m (or, `walled`, a wall where it is 10 cm deep), a
/// hump of `amp` metres released at rest at 3 m (e-folding 6 m: long enough not to break).
/// Returns the total energy over run-ups 46–50 against run-ups 1–5 (each 12.5 s).
///
/// The energy is the potential above the still level plus the kinetic of the faces' fluxes, read
/// from the level alone: in a strip with a wall at x = 0 the flux through the east face of cell i
/// is −Σ_{j ≤ i} Δh_j·dx/dt over one step, and ½·Q²/d_face its kinetic energy (d_face the mean
/// depth; g and the cell area left out). Sampled every 16th step.
fn beach_energy(dx: f64, amp: f64, walled: bool) -> f64 {
    let (nx, dt) = beach_grid(dx);
    let run_up = (12.5 / dt) as usize;
    let windows = [(0, 5 * run_up), (45 * run_up, 50 * run_up)];
    let mut sim = beach(dx, amp, walled, "global");
    let reference = sim.reference_level();
    let ground: Vec<f64> = sim.ground()[..nx].iter().map(|&b| b - reference).collect();
    let read = |sim: &mut Simulation| -> Vec<f64> { sim.eta().unwrap()[..nx].iter().map(|&h| h as f64).collect() };
    const EVERY: usize = 16;
    let mut sums = [0.0; 2];
    let mut step = 0;
    while step < windows[1].1 {
        let Some(k) = windows.iter().position(|w| (w.0..w.1).contains(&step)) else {
            sim.step(EVERY as u64).unwrap();
            step += EVERY;
            continue;
        };
        sim.step(EVERY as u64 - 1).unwrap();
        let before = read(&mut sim);
        sim.step(1).unwrap();
        let after = read(&mut sim);
        step += EVERY;
        let potential: f64 = before
            .iter()
            .zip(&ground)
            .map(|(&h, &b)| 0.5 * (h.max(b).powi(2) - b.max(0.0).powi(2)))
            .sum();
        let (mut flux, mut kinetic) = (0.0, 0.0);
        for i in 0..nx - 1 {
            flux -= (after[i] - before[i]) * dx / dt;
            let d_face = 0.5 * ((before[i] - ground[i]).max(0.0) + (before[i + 1] - ground[i + 1]).max(0.0));
            if d_face > 0.0 {
                kinetic += 0.5 * flux * flux / d_face / 9.81;
            }
        }
        sums[k] += potential + kinetic;
    }
    sums[1] / sums[0]
}

#[test]
fn a_wave_running_up_a_beach_fifty_times_loses_less_as_the_grid_is_refined() {
    // A 1 mm hump e-folding over 6 m on 0.5 m of water, running up the 1:20 beach and back 50
    // times (625 s): it does not break, so the shallow-water equations keep its energy. Measured
    // (total energy over run-ups 46–50 against 1–5): walled 1.0003; beach 0.9995, 0.9700, 0.9552,
    // 0.9797, 0.9894 at dx 0.1, 0.05, 0.025, 0.0125, 0.00625 m before the faces' `limit`, 0.9551
    // and 0.9756 at 0.025 and 0.0125 with it. At 0.1 m the shoreline (moving ~6 cm) never crosses
    // a cell; from 0.025 m on, where it crosses several, the loss halves as dx does (4.5 %,
    // 2.0 %, 1.1 %): the wet/dry rule's loss is first order in dx. The issue asks the beach to
    // keep what the walled run keeps: NOT met at these grids (the issue 16 note).
    //
    // Where it goes (a 1-D model of the same step, checked to give these figures to 1e-3): every
    // joule lost is kinetic energy dropped when a face closes because the cell it drained dried
    // (at dx 0.05: 49 closings drop 3.6 % of the energy, ~1 % of which the flux memory had added
    // as the face's ½·q²/d_face grew while the cell thinned). The water of the half cell the face
    // carried has nowhere to keep its momentum: Kass & Miller's step has no advection to hand it
    // on. Its depth at the shoreline is ~slope·dx, so each closing loses O(dx²) and a run-up O(dx).
    let walled = beach_energy(0.025, 0.001, true);
    let coarse = beach_energy(0.025, 0.001, false);
    let fine = beach_energy(0.0125, 0.001, false);
    eprintln!("energy kept over 50 run-ups: walled {walled:.4}; beach {coarse:.4} at dx 0.025, {fine:.4} at 0.0125");
    assert!((walled - 1.0).abs() < 1e-3, "walled {walled}");
    // Bounds: the measured figures less ~0.005 (what a change to the wet/dry rules may move them,
    // as the limit did by 0.004); the loss at half the dx at most 0.6 of the coarse one (measured
    // 0.54, 0.45 before the limit: first order gives 0.5).
    assert!(coarse > 0.95 && fine > 0.97, "beach {coarse} → {fine}");
    assert!(
        1.0 - fine < 0.6 * (1.0 - coarse),
        "beach {coarse} → {fine}: not converging"
    );
}

#[test]
fn the_dry_cell_rule_makes_no_water_as_a_wave_runs_up_a_beach() {
    // No volume correction: what the level holds is what the step conserves. Each face moves at
    // most a quarter of what its source holds (`limit`), so a cell's four faces never take more
    // than it has and the dry-cell rule has nothing to refill. A 2 mm hump, 20 run-ups, dx 0.05.
    let (dx, amp) = (0.05, 0.002);
    let (_, dt) = beach_grid(dx);
    let mut sim = beach(dx, amp, false, "none");
    let before = water_volume(&mut sim);
    sim.step((20.0 * 12.5 / dt) as u64).unwrap();
    let after = water_volume(&mut sim);
    eprintln!("volume {before:.9} → {after:.9} m³: {:+.3e}", after - before);
    // Measured −3.2e-8 m³; +1.09e-6 without the limit (the clamp refilling drained cells). Bound:
    // the level read leaves out each cell's carry (the compensated sum's residual, up to half an
    // ulp of 0.5 m over 960 cells of 0.0025 m²: 7e-8 m³), with room for the steps' roundings.
    assert!((after - before).abs() < 2e-7, "{before} → {after}");
}
