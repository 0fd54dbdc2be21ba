//! The GPU backend against the CPU reference after 500 steps, on terrain with wet and dry cells,
//! for every boundary mode, with the tolerance rule of `shoal::compare` (4 ulp per step of the
//! wave height).

use crate::common::*;
use shoal::{compare, Backend};

const STEPS: u64 = 500;

fn assert_backends_agree(boundary: &str) {
    let scene = scene(&beach_scene(boundary, "explicit", 0.01));
    let cpu = run(&scene, Backend::Cpu, STEPS);
    let gpu = run(&scene, Backend::Gpu, STEPS);
    let ground = simulation(&scene, Backend::Cpu).ground().to_vec();
    let wet = cpu.iter().zip(&ground).filter(|(h, b)| h > b).count();
    let dry = cpu.len() - wet;
    assert!(
        wet > 100 && dry > 100,
        "the scene must have wet and dry cells ({wet} wet, {dry} dry)"
    );
    // The waves' size: the drops' height (the largest |h − level| a wet cell starts with).
    let scale = 0.05;
    match compare::check_fields(&gpu, &cpu, STEPS, scale) {
        Ok(diff) => eprintln!(
            "{boundary}: max |gpu − cpu| = {diff:.3e} m (tolerance {:.3e})",
            compare::tolerance(STEPS, scale)
        ),
        Err(e) => panic!("{boundary}: {e}"),
    }
}

#[test]
fn reflect_walls_agree() {
    assert_backends_agree(r#"all = "reflect""#);
}

#[test]
fn absorb_open_slope_and_mean_sides_agree() {
    assert_backends_agree(
        r#"west = "absorb"
east = "open"
south = "ghost-slope"
north = "ghost-mean""#,
    );
}

#[test]
fn periodic_x_with_absorb_y_agrees() {
    assert_backends_agree(
        r#"west = "periodic"
east = "periodic"
south = "absorb"
north = "absorb""#,
    );
}

#[test]
fn slope_corners_agree() {
    assert_backends_agree(r#"all = "ghost-slope""#);
}

#[test]
fn periodic_both_axes_and_mean_agree() {
    assert_backends_agree(
        r#"west = "periodic"
east = "periodic"
south = "ghost-mean"
north = "open""#,
    );
}
