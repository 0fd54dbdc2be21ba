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
