//! Height queries (issue 19): the water at a list of points, from a `Simulation` at once and
//! from an embedded `Water` without a stall.

use crate::common::{scene, simulation};
use shoal::{Backend, Water, WaterOptions};

/// A pool 1.6 × 1.2 m on a beach rising east (dry past x ≈ 1.3 m), a wave from a bump.
const POOL: &str = "[grid]\nnx = 64\nny = 48\ndx = 0.025\n[time]\ndt = 0.01\n\
    [terrain]\nslope = { base = -0.2, grad = [0.15, 0.0] }\n[water]\nlevel = 0.0\n\
    [[water.bump]]\nx = 0.6\ny = 0.6\nradius = 0.12\nheight = 0.02\n";

/// Points: on cell centres, between them, on the dry beach, and off the grid (its edge).
fn points() -> Vec<[f64; 2]> {
    vec![
        [0.6125, 0.6125],
        [0.6, 0.6],
        [0.3333, 0.9001],
        [1.5, 0.6],
        [-1.0, 0.6],
        [0.8, 5.0],
    ]
}

#[test]
fn a_simulation_answers_with_the_surface_its_depth_and_slope_on_every_backend() {
    answers_on(POOL);
}

#[test]
fn the_shallow_water_model_answers_as_the_height_field_does() {
    // Its surface means what the height field's does (h − ref, a dry cell's its ground's), so
    // the one query pass reads it, and the same checks hold after its own 20 steps.
    answers_on(&format!("{POOL}[physics]\nmodel = \"shallow-water\"\n"));
}

#[test]
fn the_pipes_answer_on_their_columns_surface_over_the_top_floors() {
    // Each column's surface (the top of its highest water, its top floor where dry) over the
    // floor a view from above sees: the same pass and the same checks; the twin, the fast CPU
    // and the GPU count the same units, so all three answer alike.
    answers_on(&format!("{POOL}[physics]\nmodel = \"pipes\"\n"));
}

#[test]
fn the_navier_stokes_layer_answers_on_its_height_field() {
    // The layer's surface over its ground, which mean what the height field's do.
    answers_on(&format!("{POOL}[physics]\nmodel = \"navier-stokes\"\n"));
}

/// A `Simulation` on `text` (the pool, on some model) asked at `points()` after 20 steps, on
/// every backend.
fn answers_on(text: &str) {
    let s = scene(text);
    let mut answers = Vec::new();
    for backend in [Backend::Reference, Backend::Cpu, Backend::Gpu] {
        let mut sim = simulation(&s, backend);
        sim.step(20).unwrap();
        let surface = sim.surface().unwrap();
        let ground = sim.ground().to_vec();
        let got = sim.query(&points()).unwrap();
        // On a cell centre: that cell's surface and depth (f32 relative to the level: 1e-6 m).
        let c = 24 * 64 + 24;
        assert!(
            (got[0].height - surface[c]).abs() < 1e-6,
            "{backend:?}: {} vs {}",
            got[0].height,
            surface[c]
        );
        assert!((got[0].depth - (surface[c] - ground[c])).abs() < 1e-6);
        // Between four wet centres: their mean.
        let mean = [c, c - 1, c - 64, c - 65].iter().map(|&k| surface[k]).sum::<f64>() / 4.0;
        assert!(
            (got[1].height - mean).abs() < 1e-6,
            "{backend:?}: midpoint {} vs {mean}",
            got[1].height
        );
        // The normal is the bilinear surface's: on a cell centre, the slopes to the next centres
        // east and north (n = (−∂h/∂x, −∂h/∂y, 1), normalised), to f32 rounding of the slopes.
        let slope = [
            (surface[c + 1] - surface[c]) / 0.025,
            (surface[c + 64] - surface[c]) / 0.025,
        ];
        let n = got[0].normal.map(|v| v as f64);
        let norm = (1.0 + slope[0] * slope[0] + slope[1] * slope[1]).sqrt();
        let want = [-slope[0] / norm, -slope[1] / norm, 1.0 / norm];
        for k in 0..3 {
            assert!(
                (n[k] - want[k]).abs() < 1e-4,
                "{backend:?}: normal {n:?}, the slopes give {want:?}"
            );
        }
        // The dry beach: the ground's height, no depth.
        let beach = (24 * 64 + 59, 1.5);
        assert_eq!(got[3].depth, 0.0, "{backend:?}: water on the dry beach");
        assert!(got[3].height > 0.0 && (got[3].height - (-0.2 + 0.15 * beach.1)).abs() < 0.01);
        // Off the grid: the edge's water.
        assert!(got[4].depth > 0.0 && got[5].depth > 0.0);
        assert!(got
            .iter()
            .all(|a| a.height.is_finite() && a.normal.iter().all(|v| v.is_finite())));
        answers.push(got);
    }
    // The twin and the fast backend agree bit for bit; the GPU to f32 rounding of its level.
    assert_eq!(answers[0], answers[1]);
    for (a, b) in answers[0].iter().zip(&answers[2]) {
        assert!(
            (a.height - b.height).abs() < 1e-5 && (a.depth - b.depth).abs() < 1e-5,
            "{a:?} vs {b:?}"
        );
    }
}

#[test]
fn an_embedded_water_answers_after_the_submit_without_waiting() {
    embedded_answers(POOL);
}

#[test]
fn an_embedded_water_on_the_pipes_answers_after_the_submit_without_waiting() {
    embedded_answers(&format!("{POOL}[physics]\nmodel = \"pipes\"\n"));
}

/// The host asks, records and submits; `answers` never blocks: before the submit it has
/// nothing, after it the answer arrives within a few non-blocking polls, and it is the twin's
/// query of the level the frame left.
fn embedded_answers(text: &str) {
    let (device, queue) = crate::embed::own_device();
    let s = scene(text);
    let mut water = Water::new(&device, &queue, &s, WaterOptions::default()).unwrap();
    let id = water.query(&points()).unwrap();
    let mut encoder = device.create_command_encoder(&Default::default());
    water.record(&mut encoder, 5);
    assert!(
        water.answers().unwrap().is_empty(),
        "an answer before its encoder was submitted"
    );
    queue.submit([encoder.finish()]);
    let started = std::time::Instant::now();
    let answer = loop {
        let mut got = water.answers().unwrap();
        if let Some((got_id, samples)) = got.pop() {
            break (got_id, samples);
        }
        assert!(started.elapsed().as_secs() < 30, "no answer 30 s after the submit");
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    assert_eq!(answer.0, id);
    let (eta, ground) = water.read_level().unwrap();
    let f32s: Vec<[f32; 2]> = points().iter().map(|p| [p[0] as f32, p[1] as f32]).collect();
    let twin = shoal::low_level::cpu::query(64, 48, 0.025, &eta, &ground, &f32s);
    for (got, want) in answer.1.iter().zip(&twin) {
        let want_height = want.height as f64 + water.reference_level();
        assert!(
            (got.height - want_height).abs() < 1e-6,
            "{} vs {want_height}",
            got.height
        );
        assert!((got.depth - want.depth as f64).abs() < 1e-6);
    }
    assert!(water.answers().unwrap().is_empty(), "an answer came twice");
}
