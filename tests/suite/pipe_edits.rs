//! Edits of the pipes model (`Simulation::edit`, `set_ground`, issue 53): the edited terrain
//! builds new columns under the same solids, the water rides onto them in whole units, splashes
//! add whole units, and a saved edited run loads onto the same terrain, to the bit.

use crate::common::{scene, simulation};
use shoal::low_level::{HostEdit, EDIT_BRUSH, EDIT_DISTURB};

// The edits are edits.rs's (a hill raised under the water, a pit dug, the dry beach raised, a
// splash and a dip where the water is 0.2 m deep, so the dip takes what it asks).
use shoal::{Backend, Simulation};

/// embed.rs's pool (a beach on its east side, a bump released at rest) on the pipes.
fn pool() -> shoal::Scene {
    scene(&crate::embed::POOL.replace("[terrain]", "[physics]\nmodel = \"pipes\"\n[terrain]"))
}

/// The units the columns and the spray in flight hold, and the units they should.
fn held(sim: &Simulation) -> (i64, i64) {
    let (water, target) = sim.water_units().unwrap();
    (water as i64 + sim.spray().map_or(0, |s| s.units as i64), target)
}

/// Metres per unit of the pipes' water now.
fn quantum(sim: &Simulation) -> f64 {
    let dx = sim.scene().grid.dx;
    sim.unit_volume().unwrap() / (dx * dx)
}

#[test]
fn edits_on_the_pipes_move_the_water_in_whole_units_and_keep_the_books_on_every_backend() {
    let s = pool();
    let (nx, dx) = (s.grid.nx as usize, s.grid.dx);
    let mut after = Vec::new();
    for backend in [Backend::Reference, Backend::Cpu, Backend::Gpu] {
        let mut sim = simulation(&s, backend);
        sim.step(10).unwrap();
        let (w0, t0) = held(&sim);
        assert_eq!(w0, t0, "{backend:?}: the books before the edit");
        let q0 = quantum(&sim);
        let ground0 = sim.ground().to_vec();
        sim.edit(&crate::edits::edits(dx)).unwrap();
        let q1 = quantum(&sim);
        let scale = (q0 / q1).round() as i64;
        assert!(scale >= 1 && (q0 / q1 - scale as f64).abs() < 1e-12, "{q0} → {q1}");
        // The splashes' units: each column's bump height in whole units of the new quantum.
        let splashed: i64 = crate::edits::edits(dx)
            .iter()
            .filter(|e| e.kind == EDIT_DISTURB)
            .flat_map(|e| {
                (0..ground0.len()).map(move |c| ((e.amount * e.weight(c % nx, c / nx)) as f64 / q1).round() as i64)
            })
            .sum();
        assert!(splashed > 1000, "{backend:?}: the splashes add {splashed} units");
        let (w1, t1) = held(&sim);
        assert_eq!(w1, w0 * scale + splashed, "{backend:?}: units after the edit");
        assert_eq!(w1, t1, "{backend:?}: the target follows the splashes");
        // The beach (dry) rose by the brush's bump within a unit; a column far from every edit
        // kept its ground.
        let beach = 20 * nx + 44;
        let lift = 0.1 * crate::edits::edits(dx)[2].weight(44, 20) as f64;
        assert!(
            (sim.ground()[beach] - ground0[beach] - lift).abs() <= q1,
            "{backend:?}: the beach"
        );
        assert!((sim.ground()[5 * nx + 30] - ground0[5 * nx + 30]).abs() <= q1);
        // A hill raised under the water throws spray from its crest: the columns and the
        // particles hold the books' units between them.
        sim.step(100).unwrap();
        assert_eq!(held(&sim), (t1, t1), "{backend:?}: 100 steps after the edit");
        after.push(sim.surface().unwrap());
    }
    // The fast CPU backend edits and steps to the twin's bits; the GPU follows it (its pipes'
    // velocities round differently: within 1 mm on 3 cm waves, as the pipes' GPU test allows).
    assert_eq!(after[0], after[1]);
    let worst = after[0]
        .iter()
        .zip(&after[2])
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(worst < 1e-3, "GPU vs twin after the edit: {worst} m");
}

/// A channel under a bridge deck (an overhang from 0.1 to 0.3 m over water 0.5 m deep).
fn bridge() -> shoal::Scene {
    scene(
        "[grid]\nnx = 32\nny = 8\ndx = 0.1\n[time]\ndt = 0.01\n[physics]\nmodel = \"pipes\"\n\
         [terrain]\nflat = -0.5\n[[terrain.overhang]]\nx0 = 1.2\ny0 = 0.0\nx1 = 2.0\ny1 = 0.8\n\
         bottom = 0.1\ntop = 0.3\n[water]\nlevel = 0.0\n",
    )
}

#[test]
fn a_brush_under_a_bridge_deck_lifts_the_water_under_it_and_a_saved_run_loads_onto_it() {
    let s = bridge();
    let dx = s.grid.dx;
    let dir = tempfile::tempdir().unwrap();
    for backend in [Backend::Cpu, Backend::Gpu] {
        let mut sim = simulation(&s, backend);
        sim.step(5).unwrap();
        let deck = sim.ground()[4 * 32 + 16];
        assert!(
            (deck - 0.3).abs() < 1e-6,
            "the deck's top is the ground seen from above"
        );
        let (w0, _) = held(&sim);
        let q0 = quantum(&sim);
        // Raised 20 cm under the deck: the deck stays the ground seen from above, and the water
        // under it rides up in whole units, none made or lost.
        sim.edit(&[HostEdit::at(EDIT_BRUSH, 1.6, 0.4, 0.3, 0.2, dx)]).unwrap();
        assert_eq!(sim.ground()[4 * 32 + 16], deck, "{backend:?}: the deck moved");
        let (w1, t1) = held(&sim);
        let q1 = quantum(&sim);
        assert_eq!(w1, t1);
        assert_eq!(w1 as f64 * q1, w0 as f64 * q0, "{backend:?}: water made or lost");
        // Saved and loaded: the columns stand on the edited terrain, and it goes on to the bit.
        let path = dir.path().join(format!("{backend:?}.bin"));
        sim.checkpoint().unwrap().write(&path).unwrap();
        let mut loaded = Simulation::load(&path, backend).unwrap();
        sim.step(30).unwrap();
        loaded.step(30).unwrap();
        assert_eq!(
            loaded.surface().unwrap(),
            sim.surface().unwrap(),
            "{backend:?}: the loaded run"
        );
        assert_eq!(held(&loaded), held(&sim));
        // Raised into the deck: the span under it closes where the terrain passes 0.1 m, and its
        // water goes up onto the deck.
        sim.edit(&[HostEdit::at(EDIT_BRUSH, 1.6, 0.4, 0.3, 0.75, dx)]).unwrap();
        let (w2, t2) = held(&sim);
        assert_eq!(w2, t2, "{backend:?}: the books after the span closed");
        assert_eq!(
            w2 as f64 * quantum(&sim),
            w1 as f64 * q1,
            "{backend:?}: water made or lost closing the span"
        );
        let on_deck = sim.surface().unwrap()[4 * 32 + 16] - deck;
        assert!(on_deck > 0.0, "{backend:?}: no water came up onto the deck");
        sim.step(50).unwrap();
        assert_eq!(held(&sim), (t2, t2));
    }
}

/// Columns for the in-place pass: `nx` × `ny` of up to three cells, a slab over some (its water
/// under it full or not), a deck's top cell over others, a seeded mix of water and exchange.
fn columns(nx: usize, ny: usize) -> shoal::low_level::pipes::PipeState {
    use shoal::low_level::pipes::{PipeState, SKY};
    let (n, l) = (nx * ny, 3);
    let mut s = PipeState {
        layers: l,
        geometry: vec![[SKY, SKY]; n * l],
        water: vec![0; n * l],
        feed: vec![[0; 4]; n],
        exchange: vec![0; n],
        ..Default::default()
    };
    let mut seed = 0x9e37_79b9u32;
    let mut next = |m: u32| {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        seed % m
    };
    for c in 0..n {
        let floor = next(400) as i32 - 200;
        let col = &mut s.geometry[c * l..(c + 1) * l];
        let water = &mut s.water[c * l..(c + 1) * l];
        match next(3) {
            0 => col[0] = [floor, SKY],
            1 => {
                col[0] = [floor, floor + 150];
                col[1] = [floor + 180, SKY];
            }
            _ => {
                col[0] = [floor, floor + 60];
                col[1] = [floor + 90, floor + 200];
                col[2] = [floor + 260, SKY];
            }
        }
        for (a, g) in col.iter().enumerate().filter(|(_, g)| g[0] != SKY) {
            let room = if g[1] == SKY { 300 } else { (g[1] - g[0]) as u32 + 40 };
            water[a] = next(room);
        }
        s.exchange[c] = next(1000) as i64 - 500;
    }
    s
}

/// The in-place pass (`pipe_edits.wgsl`) gives its CPU twin's bits on columns with slabs and
/// decks: brushes that raise the ground under water, into a slab's water and past the heights'
/// range, digs, splashes on decks and dips deeper than the top cells hold.
#[test]
fn the_in_place_edits_give_their_twins_bits() {
    use shoal::low_level::pipes::{apply_edits, run_once, PipeEditParams, EDIT_RANGE, SKY};
    let gpu = crate::common::gpu();
    let (nx, ny) = (40, 28);
    let state = columns(nx, ny);
    let p = PipeEditParams {
        nx: nx as u32,
        columns: (nx * ny) as u32,
        layers: state.layers as u32,
        unit: 1.0 / 64.0,
        per_unit: 64.0,
        ..Default::default()
    };
    // Each column's top floor − ref, as a renderer binds it: the top cell's floor.
    let top_floor: Vec<f32> = (0..nx * ny)
        .map(|c| {
            let col = &state.geometry[c * 3..c * 3 + 3];
            col.iter().rfind(|g| g[0] != SKY).unwrap()[0] as f32 * p.unit
        })
        .collect();
    let edits = [
        HostEdit::at(EDIT_BRUSH, 10.0, 8.0, 7.0, 1.7, 1.0),
        HostEdit::at(EDIT_BRUSH, 30.0, 20.0, 9.0, -2.3, 1.0),
        HostEdit::at(EDIT_DISTURB, 22.0, 14.0, 12.0, 0.61, 1.0),
        HostEdit::at(EDIT_DISTURB, 8.0, 22.0, 6.0, -4.0, 1.0),
        HostEdit::at(EDIT_BRUSH, 20.0, 4.0, 5.0, 1e9, 1.0),
        HostEdit::at(EDIT_DISTURB, 33.0, 6.0, 4.0, 0.0078125, 1.0),
    ];
    let (gpu_state, gpu_floor) = run_once(&gpu.device, &gpu.queue, &state, &top_floor, p, &edits).unwrap();
    let (mut cpu_state, mut cpu_floor) = (state.clone(), top_floor.clone());
    apply_edits(&mut cpu_state, &mut cpu_floor, &p, &edits);
    assert_eq!(gpu_state.geometry, cpu_state.geometry, "floors");
    assert_eq!(gpu_state.water, cpu_state.water, "water");
    assert_eq!(gpu_state.exchange, cpu_state.exchange, "exchange");
    let bits = |f: &[f32]| f.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&gpu_floor), bits(&cpu_floor), "top floors");

    // What the edits did, on the twin: no unit made or lost but the splashes', which the
    // exchange counts; every floor within the range; no slab's water squeezed.
    let total = |s: &shoal::low_level::pipes::PipeState| s.water.iter().map(|&w| w as i64).sum::<i64>();
    let exchanged = |s: &shoal::low_level::pipes::PipeState| s.exchange.iter().sum::<i64>();
    assert_eq!(
        total(&cpu_state) - total(&state),
        exchanged(&cpu_state) - exchanged(&state)
    );
    assert!(total(&cpu_state) != total(&state), "the splashes moved water");
    let mut raised = 0;
    for c in 0..nx * ny {
        let (g0, g1) = (state.geometry[c * 3], cpu_state.geometry[c * 3]);
        assert!(g1[0].abs() <= EDIT_RANGE, "column {c}: floor {}", g1[0]);
        assert_eq!(g0[1], g1[1], "column {c}: a brush moved a slab");
        assert_eq!(
            state.geometry[c * 3 + 1..c * 3 + 3],
            cpu_state.geometry[c * 3 + 1..c * 3 + 3]
        );
        if g1[1] != SKY && g1[0] > g0[0] {
            raised += 1;
            assert!(
                g1[0] + cpu_state.water[c * 3] as i32 <= g1[1],
                "column {c}: the water under the slab was squeezed"
            );
        }
    }
    assert!(raised > 10, "brushes rose under {raised} slabs");
}

/// `Water` on the pipes edits its buffers in place: a brush moves the ground and the water on it
/// in whole units without making or losing one, splashes add exactly the units the books' target
/// takes, and the steps after keep the books to the unit.
#[test]
fn water_edits_the_pipes_in_place_in_whole_units() {
    use shoal::{Water, WaterOptions};
    let (device, queue) = crate::embed::own_device();
    let s = pool();
    let (nx, dx) = (s.grid.nx as usize, s.grid.dx);
    let options = WaterOptions {
        max_depth: Some(0.6),
        ..Default::default()
    };
    let mut water = Water::new(&device, &queue, &s, options).unwrap();
    let ground_buffer = water.ground_buffer().clone();
    let (v0, t0) = water.read_volume().unwrap();
    assert_eq!(v0, t0);
    let (eta0, ground0) = water.read_level().unwrap();

    // Brushes only: the ground moves, the water rides along, the volume stays to the unit.
    let brushes: Vec<HostEdit> = crate::edits::edits(dx)
        .into_iter()
        .filter(|e| e.kind == EDIT_BRUSH)
        .collect();
    water.brush(0.6, 0.6, 0.2, 0.15).unwrap();
    water.brush(0.9, 0.4, 0.15, -0.1).unwrap();
    water.brush(2.2, 1.0, 0.2, 0.1).unwrap();
    let mut encoder = device.create_command_encoder(&Default::default());
    water.record(&mut encoder, 0);
    queue.submit([encoder.finish()]);
    assert_eq!(water.read_volume().unwrap(), (v0, t0), "a brush made or lost water");
    let (eta1, ground1) = water.read_level().unwrap();
    // The columns' unit, as a batch run of the scene counts it.
    let unit = quantum(&simulation(&s, Backend::Reference));
    assert!(unit < 1e-4, "unit {unit} m");
    for c in 0..ground0.len() {
        let lift: f64 = brushes
            .iter()
            .map(|e| (e.amount * e.weight(c % nx, c / nx)) as f64)
            .sum();
        let moved = (ground1[c] - ground0[c]) as f64;
        assert!(
            (moved - lift).abs() <= brushes.len() as f64 * unit,
            "cell {c}: the ground moved {moved} m for {lift} m"
        );
        let (d0, d1) = ((eta0[c] - ground0[c]) as f64, (eta1[c] - ground1[c]) as f64);
        assert!(
            (d1 - d0).abs() <= 1e-6,
            "cell {c}: depth {d0} → {d1}: the water did not ride along"
        );
    }
    assert_eq!(water.ground_buffer(), &ground_buffer, "the ground buffer was replaced");

    // Splashes: the books' target takes what they add, to the unit; a dip stops at the ground.
    water.disturb(1.0, 1.4, 0.12, 0.04).unwrap();
    water.disturb(0.4, 1.6, 0.1, -0.02).unwrap();
    water.disturb(2.2, 1.0, 0.2, -0.5).unwrap();
    let mut encoder = device.create_command_encoder(&Default::default());
    water.record(&mut encoder, 0);
    queue.submit([encoder.finish()]);
    let (v2, t2) = water.read_volume().unwrap();
    assert_eq!(v2, t2, "the target follows the splashes");
    // The units a host reads back (the web page's volume) are the books' water, to the unit.
    let (units, per_unit) = water.units_buffer().map(|(b, u)| (b.clone(), u)).unwrap();
    let read: Vec<u32> = bytemuck::pod_collect_to_vec(&shoal::readback::read(&device, &queue, &units).unwrap());
    let held = read.iter().map(|&w| w as u64).sum::<u64>() as f64 * per_unit;
    assert!(
        (held - v2).abs() <= 1e-9 * v2,
        "units_buffer holds {held} m³, the books {v2}"
    );
    let splash = crate::edits::edits(dx)[3];
    let added: f64 = (0..ground0.len())
        .map(|c| (splash.amount * splash.weight(c % nx, c / nx)) as f64 * dx * dx)
        .sum();
    let taken = v2 - v0 - added;
    assert!(taken < 0.0, "the dips took water ({taken} m³)");
    let (eta2, ground2) = water.read_level().unwrap();
    assert!(
        eta2.iter().zip(&ground2).all(|(e, g)| e >= g),
        "a dip went below the ground"
    );

    // Steps after the edits keep the books to the unit.
    for _ in 0..3 {
        let mut encoder = device.create_command_encoder(&Default::default());
        water.record(&mut encoder, 20);
        queue.submit([encoder.finish()]);
        assert_eq!(water.read_volume().unwrap(), (v2, t2), "step {}", water.steps());
    }
    water.check().unwrap();
}
