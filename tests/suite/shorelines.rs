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

/// The mean potential energy above the still water over steps `from..to` of a run (in m²·cells;
/// g and the cell area left out): ½·Σ(max(h, b)² − max(b, 0)²) with h and b above the still level,
/// which is the wave's own and zero at rest.
fn mean_potential(sim: &mut Simulation, windows: &[(usize, usize)]) -> Vec<f64> {
    let reference = sim.reference_level();
    let ground: Vec<f64> = sim.ground().iter().map(|&b| b - reference).collect();
    let end = windows.iter().map(|w| w.1).max().unwrap_or(0);
    let mut sums = vec![0.0; windows.len()];
    for step in 0..end {
        sim.step(1).unwrap();
        if !windows.iter().any(|w| (w.0..w.1).contains(&step)) {
            continue;
        }
        let eta = sim.eta().unwrap();
        let energy: f64 = eta
            .iter()
            .zip(&ground)
            .map(|(&h, &b)| 0.5 * ((h as f64).max(b).powi(2) - b.max(0.0).powi(2)))
            .sum();
        for (w, sum) in windows.iter().zip(&mut sums) {
            if (w.0..w.1).contains(&step) {
                *sum += energy;
            }
        }
    }
    sums.iter().zip(windows).map(|(s, w)| s / (w.1 - w.0) as f64).collect()
}

#[test]
fn a_wave_running_up_a_beach_fifty_times_keeps_more_of_its_energy() {
    // A 24 m channel (dx 0.1 m, four cells across, reflecting sides): 0.5 m deep for 10 m, then a
    // 1:20 beach whose still shoreline stands at 20 m. A 2 cm hump released at 3 m runs up the
    // beach and back about once per 12.5 s; 50 run-ups take 625 s. The same run with a wall where
    // the beach is 10 cm deep (18 m) has no moving shoreline. Energy: the mean potential energy
    // over the last 5 run-ups against the first 5 (half the total for linear waves).
    //
    // Measured: walled 1.034 (the scheme keeps it; the excess is the hump's dispersion moving
    // energy between potential and kinetic), beach 0.273 with the faces' memory, 0.049 without.
    // Issue 16 asks the beach to keep what the walled run keeps: NOT met, and this hump could
    // not: at 1 cm per half on a 1:20 slope over ~3 m its surf similarity tan β/√(H/L) ≈ 0.9 is
    // a plunging breaker's, and it loses 58 % of its energy on the first run-up as a bore of
    // grid-scale ripples. A long hump (e-folding 6 m) that does not break still loses at the
    // moving shoreline, at a rate that converges with dx (1 mm: 0.942 of its total energy over
    // 45 run-ups at dx 0.05 m, 0.929 at 0.025 m; walled 0.9999), does not change with dt or the
    // volume correction, and grows with the amplitude (2 mm 0.82, 5 mm 0.64–0.77), while walls
    // where the same wave stands 1.5–5 cm deep (a/d near 1, no shoreline) keep it to 0.1 %: see
    // the issue 16 note. The cause is Kass & Miller's momentum equation (no advection): their
    // energy changes at ∫ d·u²·u_x dx, which drains in the swash (README, "Wet and dry"). This
    // test guards what the memory won (bound 0.25).
    let (dx, depth) = (0.1, 0.5);
    let nx = 240;
    let dt = 0.5 * dx / (9.81f64 * depth).sqrt();
    let run_up = (12.5 / dt) as usize;
    let windows = [(0, 5 * run_up), (45 * run_up, 50 * run_up)];
    let energy = |wall: bool| {
        let x = |i: usize| (i as f64 + 0.5) * dx;
        let line = |f: &dyn Fn(f64) -> f64| -> Vec<f64> { (0..4 * nx).map(|c| f(x(c % nx))).collect() };
        let ground = line(&|x| {
            if wall && x > 18.0 {
                1.0
            } else {
                -depth + (x - 10.0).max(0.0) / 20.0
            }
        });
        let surface = line(&|x| 0.02 * (-((x - 3.0) / 1.0f64).powi(2)).exp());
        let dir = tempfile::tempdir().unwrap();
        shoal::io::npy::write_2d(&dir.path().join("ground.npy"), 4, nx, &ground).unwrap();
        shoal::io::npy::write_2d(&dir.path().join("h0.npy"), 4, nx, &surface).unwrap();
        let text = format!(
            "[grid]\nnx = {nx}\nny = 4\ndx = {dx}\n[time]\ndt = {dt}\nsteps = 1\n[physics]\nsolver = \"explicit\"\n\
             [boundary]\nall = \"reflect\"\n[terrain]\nnpy = \"ground.npy\"\n[water]\nnpy = \"h0.npy\"\n"
        );
        let mut sim = Simulation::new(&scene_in(dir.path(), &text), Backend::Cpu).unwrap();
        let e = mean_potential(&mut sim, &windows);
        e[1] / e[0]
    };
    let (beach, walled) = (energy(false), energy(true));
    eprintln!("energy kept over 50 run-ups: beach {beach:.4}, walled {walled:.4}");
    assert!(walled > 0.98 && beach >= 0.25, "beach {beach}, walled {walled}");
}
