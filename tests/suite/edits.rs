//! Edits of a `Simulation` between steps, on every backend (`Simulation::edit`, `set_ground`):
//! the same water as the embedded GPU edit pass, the volume books kept, bad edits refused.

use crate::common::{self, BOTH};
use shoal::low_level::cpu::apply_edits;
use shoal::low_level::{HostEdit, EDIT_BRUSH, EDIT_DISTURB};
use shoal::{Backend, Simulation, Water, WaterOptions};

/// embed.rs's pool (a sloping beach, a bump released at rest) with a global correction.
fn pool() -> String {
    crate::embed::POOL.replace("[terrain]", "[physics]\nvolume_correction = \"global\"\n[terrain]")
}

/// A hill raised under the water, a pit dug, the dry beach raised, and two splashes.
pub(crate) fn edits(dx: f64) -> Vec<HostEdit> {
    vec![
        HostEdit::at(EDIT_BRUSH, 0.6, 0.6, 0.2, 0.15, dx),
        HostEdit::at(EDIT_BRUSH, 0.9, 0.4, 0.15, -0.1, dx),
        HostEdit::at(EDIT_BRUSH, 2.2, 1.0, 0.2, 0.1, dx),
        HostEdit::at(EDIT_DISTURB, 1.0, 1.4, 0.12, 0.04, dx),
        HostEdit::at(EDIT_DISTURB, 0.4, 1.6, 0.1, -0.02, dx),
    ]
}

fn volume(sim: &mut Simulation) -> f64 {
    let surface = sim.surface().unwrap();
    sim.stats(&surface).volume
}

/// A `Simulation` edited between steps on the CPU and on the GPU follows an embedded `Water`
/// edited by its GPU pass at the same step, step by step, within the GPU-vs-CPU tolerance for the
/// steps run (waves a few centimetres high), for 40 steps after the edit or until a shoreline tie.
///
/// The two keep their books differently (the `Simulation` rebuilds and holds its target in f64,
/// `Water` moves its target by the GPU's f32 sums), so their levels part by an ulp here and there,
/// and the dry-cell rule is a threshold: a cell that floods within rounding of its ground on one
/// can stay dry on the other, and from that step they differ by that cell's wave, not by
/// rounding. So: the first 20 steps after the edit must agree throughout; after that a step
/// where the wet cells differ ends the comparison, and every cell that differs must be within
/// the tolerance of its ground on both (a tie, not a fault).
#[test]
fn simulation_edits_follow_the_embedded_edit_pass() {
    const AFTER: u64 = 40;
    const SURE: u64 = 20;
    let scene = common::scene(&pool());
    let dx = scene.grid.dx;
    let (device, queue) = crate::embed::own_device();
    let mut water = Water::new(&device, &queue, &scene, WaterOptions::default()).unwrap();
    let mut encoder = device.create_command_encoder(&Default::default());
    water.record(&mut encoder, 20);
    queue.submit([encoder.finish()]);
    water.brush(0.6, 0.6, 0.2, 0.15).unwrap();
    water.brush(0.9, 0.4, 0.15, -0.1).unwrap();
    water.brush(2.2, 1.0, 0.2, 0.1).unwrap();
    water.disturb(1.0, 1.4, 0.12, 0.04).unwrap();
    water.disturb(0.4, 1.6, 0.1, -0.02).unwrap();
    let mut levels = Vec::new();
    for _ in 0..AFTER {
        let mut encoder = device.create_command_encoder(&Default::default());
        water.record(&mut encoder, 1);
        queue.submit([encoder.finish()]);
        levels.push(water.read_level().unwrap());
    }
    drop(water);

    for backend in [Backend::Cpu, Backend::Reference, Backend::Gpu] {
        let mut sim = common::simulation(&scene, backend);
        sim.step(20).unwrap();
        sim.edit(&edits(dx)).unwrap();
        let reference = sim.reference_level();
        let moved: Vec<f32> = sim.ground().iter().map(|&b| (b - reference) as f32).collect();
        let (diff, at) = shoal::compare::max_abs_diff(
            &moved.iter().map(|&v| v as f64).collect::<Vec<_>>(),
            &levels[0].1.iter().map(|&v| v as f64).collect::<Vec<_>>(),
        );
        assert!(diff <= 1e-6, "{backend:?}: the ground differs by {diff:.3e} at {at}");
        for (after, (embedded, ground)) in (1..=AFTER).zip(&levels) {
            sim.step(1).unwrap();
            let eta = sim.eta().unwrap();
            let tol = shoal::compare::tolerance(20 + after, 0.05);
            let wet = |e: &[f32], c: usize| e[c] > ground[c];
            let parted: Vec<usize> = (0..eta.len()).filter(|&c| wet(&eta, c) != wet(embedded, c)).collect();
            if !parted.is_empty() && after > SURE {
                for &c in &parted {
                    let (a, b) = ((eta[c] - ground[c]) as f64, (embedded[c] - ground[c]) as f64);
                    assert!(
                        a.abs() <= tol && b.abs() <= tol,
                        "{backend:?} step {after} after the edit: cell {c} is {a:.3e} and {b:.3e} above its \
                         ground, not a tie (tolerance {tol:.3e})"
                    );
                }
                eprintln!("{backend:?}: a shoreline tie at step {after} after the edit ends the comparison");
                break;
            }
            let (diff, at) = shoal::compare::max_abs_diff(
                &eta.iter().map(|&v| v as f64).collect::<Vec<_>>(),
                &embedded.iter().map(|&v| v as f64).collect::<Vec<_>>(),
            );
            assert!(
                diff <= tol,
                "{backend:?} step {after} after the edit: {diff:.3e} at {at} (tolerance {tol:.3e})"
            );
        }
    }
}

/// A brush moves no water and a splash adds what the twin says, on every backend: the volume
/// after the edit is the volume before plus the splashes', the target follows it, and the
/// correction then holds the water there. Tolerance: f32 depths of ~0.3 m over 1920 cells sum to
/// ~1e-7 relative; 1e-6 of the volume.
#[test]
fn edits_keep_the_volume_books_on_every_backend() {
    books_kept(&pool(), &BOTH, 25);
}

/// The same pool on the shallow-water model, which conserves by construction (no correction),
/// the same edits, the same tolerance; and no edit speeds the water up: a splash's water comes at
/// rest and a trough's leaves with its velocity (`edited_discharges`), so right after the edit
/// no cell moves faster than before it (with the discharges left as they were, a cell of the
/// trough sped from 0.0601 to 0.0606 m/s, and this failed).
#[test]
fn shallow_water_edits_keep_the_books_and_never_speed_the_water_up() {
    let text = crate::embed::POOL.replace("[terrain]", "[physics]\nmodel = \"shallow-water\"\n[terrain]");
    books_kept(&text, &BOTH, 25);
    let scene = common::scene(&text);
    let mut sim = common::simulation(&scene, Backend::Cpu);
    sim.step(10).unwrap();
    let speed = |sim: &mut Simulation| -> Vec<f32> {
        let v = sim.velocity().unwrap().expect("the model has velocities");
        v.iter().map(|v| v[0].hypot(v[1])).collect()
    };
    let before = speed(&mut sim);
    // A trough dug where the bump's water runs out (down to the ground in its middle) and a
    // splash beside it, both on moving water.
    let dx = scene.grid.dx;
    let on_the_wave = [
        HostEdit::at(EDIT_DISTURB, 0.8, 1.0, 0.3, -0.12, dx),
        HostEdit::at(EDIT_DISTURB, 1.05, 1.0, 0.1, 0.03, dx),
    ];
    let moving = |c: usize| on_the_wave.iter().any(|e| e.weight(c % 48, c / 48) > 0.0) && before[c] > 1e-3;
    assert!(
        (0..before.len()).filter(|&c| moving(c)).count() > 20,
        "the edits fall on moving water"
    );
    sim.edit(&on_the_wave).unwrap();
    for (c, (a, b)) in speed(&mut sim).iter().zip(&before).enumerate() {
        assert!(
            a <= &(b * (1.0 + 1e-5) + 1e-7),
            "cell {c}: {b} m/s before the edit, {a} after"
        );
    }
}

/// Runs `text`'s pool 10 steps on each of `backends`, edits it, and checks the volume books, then
/// four times after `steps` more.
pub(crate) fn books_kept(text: &str, backends: &[Backend], steps: u64) {
    let scene = common::scene(text);
    let dx = scene.grid.dx;
    for &backend in backends {
        let mut sim = common::simulation(&scene, backend);
        sim.step(10).unwrap();
        let v0 = volume(&mut sim);
        let tol = 1e-6 * v0;
        let mut eta = sim.eta().unwrap();
        let reference = sim.reference_level();
        let mut ground: Vec<f32> = sim.ground().iter().map(|&b| (b - reference) as f32).collect();
        let added: f64 = apply_edits(scene.grid.nx as usize, &edits(dx), &mut ground, &mut eta)
            .iter()
            .map(|&a| a as f64)
            .sum::<f64>()
            * dx
            * dx;
        assert!(added > 1e-4, "the splashes add water ({added} m³)");
        sim.edit(&edits(dx)).unwrap();
        let v1 = volume(&mut sim);
        assert!((v1 - (v0 + added)).abs() <= tol, "{backend:?}: {v1} vs {v0} + {added}");
        let t1 = sim.target_volume();
        assert!((t1 - v1).abs() <= tol, "{backend:?}: the target {t1} vs the water {v1}");
        for _ in 0..4 {
            sim.step(steps).unwrap();
            let v = volume(&mut sim);
            assert!(
                (v - v1).abs() <= tol,
                "{backend:?} step {}: {v} vs {v1}",
                sim.step_index()
            );
        }
    }
}

/// An edit leaves the water it does not touch bit for bit: a 1 mm wave on a lake 100 m deep,
/// splashed in one corner, keeps every other cell's level exactly (rebuilt from its depth over
/// the ground, each cell would move by up to an ulp of 100 m, 7.6e-6 m: 0.8 % of the wave).
#[test]
fn an_edit_leaves_the_cells_it_does_not_touch_bit_for_bit() {
    let dir = tempfile::tempdir().unwrap();
    let (nx, ny) = (32usize, 24usize);
    common::write_npy(dir.path(), "h0.npy", ny, nx, |i, j| {
        0.001 * ((i as f64 * 0.4).cos() * (j as f64 * 0.3).sin())
    });
    let scene = common::scene_in(
        dir.path(),
        &format!(
            "[grid]\nnx = {nx}\nny = {ny}\ndx = 10.0\n[time]\ndt = 0.1\n[terrain]\nflat = -100.0\n\
             [water]\nlevel = 0.0\nnpy = \"h0.npy\"\n"
        ),
    );
    let splash = HostEdit::at(EDIT_DISTURB, 40.0, 40.0, 25.0, 0.01, scene.grid.dx);
    for backend in BOTH {
        let mut sim = common::simulation(&scene, backend);
        sim.step(10).unwrap();
        let before = sim.eta().unwrap();
        sim.edit(&[splash]).unwrap();
        let after = sim.eta().unwrap();
        let mut touched = 0;
        for c in 0..nx * ny {
            if splash.weight(c % nx, c / nx) > 0.0 {
                touched += 1;
                continue;
            }
            assert_eq!(
                after[c].to_bits(),
                before[c].to_bits(),
                "{backend:?}: cell {c} moved from {} to {}",
                before[c],
                after[c]
            );
        }
        assert!(
            touched > 0 && touched < nx * ny / 4,
            "{backend:?}: the splash touched {touched} cells"
        );
    }
}

/// A new ground carries each column's water: a still pool over a flat floor lowered by 10 cm
/// everywhere is the same pool 10 cm lower, still at rest, with the same water; the ground reads
/// back as given.
#[test]
fn a_new_ground_carries_the_water_and_a_pool_stays_at_rest() {
    for model in ["height-field", "shallow-water", "pipes"] {
        new_ground_on(model);
    }
}

fn new_ground_on(model: &str) {
    let scene = common::scene(&format!(
        "[grid]\nnx = 24\nny = 20\ndx = 0.1\n[time]\ndt = 0.01\nsteps = 10\n[physics]\nmodel = \"{model}\"\n\
         [terrain]\nflat = -0.5\n[water]\nlevel = 0.0\n[output]\nevery = 0\n",
    ));
    for backend in BOTH {
        let mut sim = common::simulation(&scene, backend);
        sim.step(5).unwrap();
        let v0 = volume(&mut sim);
        let lowered = vec![-0.6; 24 * 20];
        sim.set_ground(&lowered).unwrap();
        if model == "pipes" {
            // The columns' floors stand on their units' grid (2^-24 m here).
            assert!(sim.ground().iter().all(|b| (b + 0.6).abs() <= 1e-7), "{backend:?}");
        } else {
            assert_eq!(sim.ground(), &lowered[..]);
        }
        sim.step(100).unwrap();
        let surface = sim.surface().unwrap();
        for (c, &h) in surface.iter().enumerate() {
            assert!(
                (h + 0.1).abs() <= 1e-6,
                "{model} {backend:?}: cell {c} at {h}, not at rest at −0.1"
            );
        }
        let v = volume(&mut sim);
        assert!((v - v0).abs() <= 1e-6 * v0, "{backend:?}: {v} vs {v0}");
        assert_eq!(sim.step_index(), 105);
    }
}

/// An edit that removes the last dry land, or makes the first, changes whether the scene keeps
/// its faces' memory (a shoreline's): the state carries over either way and stepping goes on
/// with the edit (issue 57: `set_ground(np.minimum(b, -0.5))` on the default scene was refused as
/// "its face memory holds 131072 values where this scene needs 0" and the edit dropped).
#[test]
fn an_edit_that_drowns_the_last_shore_or_raises_the_first_carries_the_state_over() {
    let scene = common::scene(&pool());
    for backend in BOTH {
        let mut sim = common::simulation(&scene, backend);
        sim.step(10).unwrap();
        let v0 = volume(&mut sim);
        // Every cell at least 0.5 m under the still level: no dry land left.
        let drowned: Vec<f64> = sim.ground().iter().map(|&b| b.min(-0.5)).collect();
        sim.set_ground(&drowned).unwrap();
        assert_eq!(sim.ground(), &drowned[..], "{backend:?}: the edit was dropped");
        sim.step(10).unwrap();
        let v1 = volume(&mut sim);
        assert!((v1 - v0).abs() <= 1e-6 * v0, "{backend:?}: {v1} vs {v0} m³");
        // An island raised out of the water (its water rides up with it and runs off): a
        // shoreline again.
        let dx = scene.grid.dx;
        sim.edit(&[HostEdit::at(EDIT_BRUSH, 1.2, 1.0, 0.3, 1.0, dx)]).unwrap();
        sim.step(10).unwrap();
        let surface = sim.surface().unwrap();
        assert!(
            surface.iter().zip(sim.ground()).any(|(h, b)| h <= b),
            "{backend:?}: no dry cell on the island"
        );
        let v2 = volume(&mut sim);
        assert!((v2 - v0).abs() <= 1e-6 * v0, "{backend:?}: {v2} vs {v0} m³");
        assert_eq!(sim.step_index(), 30);
    }
}

/// Edits that cannot be made are refused and change nothing.
#[test]
fn bad_edits_are_refused() {
    let scene = common::scene(&pool());
    let mut sim = common::simulation(&scene, Backend::Cpu);
    sim.step(3).unwrap();
    let before = sim.eta().unwrap();
    let bad = HostEdit::at(EDIT_DISTURB, f64::NAN, 1.0, 0.1, 0.1, scene.grid.dx);
    assert!(sim.edit(&[bad]).unwrap_err().to_string().contains("finite"));
    // Outside the domain (2.4 × 2.0 m): refused, as probes and sources there are.
    for (x, y) in [(5.0, 1.0), (1.0, -0.2), (-3.0, 9.0)] {
        let far = HostEdit::at(EDIT_BRUSH, x, y, 0.2, 0.1, scene.grid.dx);
        let err = sim.edit(&[far]).unwrap_err().to_string();
        assert!(err.contains("outside the domain"), "({x}, {y}): {err}");
    }
    let err = sim.set_ground(&[0.0; 7]).unwrap_err().to_string();
    assert!(err.contains("7 heights for a 48×40 grid"), "{err}");
    let mut tall = vec![0.0; 48 * 40];
    tall[5] = 1e300;
    let err = sim.set_ground(&tall).unwrap_err().to_string();
    assert!(err.contains("cell 5"), "{err}");
    assert_eq!(sim.eta().unwrap(), before);
}
