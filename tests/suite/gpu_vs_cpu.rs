//! The GPU backend against the CPU reference after 500 steps, on terrain with wet and dry cells,
//! for every boundary mode, with the tolerance rule of `shoal::compare` (4 ulp per step of the
//! wave height).

use crate::common::*;
use shoal::{compare, Backend};

const STEPS: u64 = 500;

/// The GPU's surface after `steps`, the plain step laid out both ways (`explicit.wgsl`'s `step`,
/// one cell a thread, the software adapters' default, and `step_rows`, two rows a thread, the
/// hardware's): the same operations on the same values, so the same bits, asserted here.
fn run_gpu_both_layouts(scene: &shoal::Scene, steps: u64) -> Vec<f64> {
    use shoal::low_level::gpu::{force_step_layout, StepLayout};
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            force_step_layout(None);
        }
    }
    hold_gpu();
    let _reset = Reset;
    force_step_layout(Some(StepLayout::Cell));
    let cell = run(scene, Backend::Gpu, steps);
    force_step_layout(Some(StepLayout::TwoRows));
    let rows = run(scene, Backend::Gpu, steps);
    let differ = cell
        .iter()
        .zip(&rows)
        .filter(|(a, b)| a.to_bits() != b.to_bits())
        .count();
    assert_eq!(differ, 0, "step and step_rows differ in {differ} cells");
    rows
}

fn assert_backends_agree(boundary: &str) {
    let scene = scene(&beach_scene(boundary, "explicit", 0.01));
    let cpu = run(&scene, Backend::Cpu, STEPS);
    let gpu = run_gpu_both_layouts(&scene, STEPS);
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

/// A basin with no dry cell takes the explicit step's plain path (`wave_plain`; 16×16 tiles of
/// one cell a thread and 64×8 of two rows a thread): 67×45 cells, so tiles end part-full both
/// ways and the two-row layout's last row stands alone, under every side mode, and with the global
/// correction fused into the step (whose entries keep `wave`). On Vulkan the GPU's bits are the
/// twin's (its compiler keeps the WGSL's order, as the fused-correction test
/// relies on) except where the `edges` pass overrides the perimeter: Mur's update at absorbing
/// sides and the mean at slope corners round apart from the twin's on lavapipe (5.7e-10 and
/// 5.0e-9 m after 500 steps, the same before the plain path). Those, and every side on other
/// adapters, take `compare`'s rule of 4 ulp a step of the 5 cm drop.
#[test]
fn a_basin_with_no_dry_cell_steps_as_the_twin_on_every_side() {
    let vulkan = crate::common::gpu().info.backend == wgpu::Backend::Vulkan;
    for (boundary, correction, edges) in [
        (r#"all = "reflect""#, "none", false),
        (r#"all = "reflect""#, "global", false),
        (r#"all = "open""#, "none", false),
        (r#"all = "ghost-mean""#, "none", false),
        (
            "west = \"periodic\"\neast = \"periodic\"\nsouth = \"ghost-slope\"\nnorth = \"ghost-slope\"",
            "none",
            false,
        ),
        (r#"all = "absorb""#, "none", true),
        (r#"all = "ghost-slope""#, "none", true),
    ] {
        // The beach scene's basin and drops, on a floor deep enough everywhere, without its island.
        let mut text = beach_scene(boundary, "explicit", 0.01);
        for (from, to) in [
            ("nx = 72\nny = 48", "nx = 67\nny = 45"),
            ("grad = [0.2, 0.02]", "grad = [0.05, 0.02]"),
            (
                "[[terrain.box]]\nx0 = 1.2\ny0 = 1.0\nx1 = 1.6\ny1 = 1.4\ntop = 0.1\n",
                "",
            ),
            (
                "volume_correction = \"none\"",
                &format!("volume_correction = \"{correction}\""),
            ),
        ] {
            assert!(text.contains(from), "the beach scene has no {from:?}");
            text = text.replace(from, to);
        }
        let scene = scene(&text);
        // 2 s: the drops' rings cross the basin (c ≈ 2 m/s) and meet every side.
        let steps = 200;
        let cpu = run(&scene, Backend::Cpu, steps);
        let gpu = run_gpu_both_layouts(&scene, steps);
        let ground = simulation(&scene, Backend::Cpu).ground().to_vec();
        assert!(cpu.iter().zip(&ground).all(|(h, b)| h > b), "{boundary}: a cell dried");
        if vulkan && !edges {
            let differ = gpu.iter().zip(&cpu).filter(|(g, c)| g.to_bits() != c.to_bits()).count();
            assert_eq!(
                differ, 0,
                "{boundary}, {correction}: {differ} cells are not the twin's bits"
            );
        } else if let Err(e) = compare::check_fields(&gpu, &cpu, steps, 0.05) {
            panic!("{boundary}, {correction}: {e}");
        }
    }
}
