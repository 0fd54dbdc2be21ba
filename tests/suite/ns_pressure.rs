//! Air pressure on the Navier-Stokes layer (issue 53): `[[pressure]]`'s head p/(ρ·g) over each
//! height-field cell joins the pressure the layer applies at its surface (its 3D columns take the
//! mean of their cells'), so water under a steady low settles where h + a is level (the inverse
//! barometer).

use crate::common::{against_the_barometer, assert_backends_agree, pool_under_a_low, simulation, water_volume};
use shoal::Backend;

/// At rest h + a is level: the water rises 5.1 cm under the low's centre and sinks at the rim to
/// keep its volume. After 60 s the spread of h + a is what is left of the slosh (measured
/// 3.9e-6 m, checked to 1e-5 m) and the rise is the head's within 0.1 % (measured to 1e-5 of
/// it), as on the pipes; the volume is kept to 1e-6. The fast path is the twin's bits; the GPU's
/// surface within 1e-5 m of it after 15 s (its exp and fused products differ in the last bits).
#[test]
fn water_under_a_steady_low_settles_at_the_inverse_barometer_level_on_the_layer() {
    // 4 layers over the pool (common.rs `pool_under_a_low`).
    let scene = pool_under_a_low("model = \"navier-stokes\"", "[navier_stokes]\nlayers = 4\n");
    let mut settled = Vec::new();
    for backend in [Backend::Reference, Backend::Cpu] {
        let mut sim = simulation(&scene, backend);
        let before = water_volume(&mut sim);
        sim.step(1200).unwrap();
        let surface = sim.surface().unwrap();
        let (rise, spread) = against_the_barometer(&surface);
        let kept = water_volume(&mut sim) / before - 1.0;
        eprintln!("{backend:?}: rise {rise:+.1e} of the head's, centre to corner; h + a spreads {spread:.2e} m; volume {kept:.1e}");
        assert!(
            rise.abs() < 1e-3,
            "{backend:?}: the water rose {rise:+.1e} of the head's"
        );
        assert!(spread < 1e-5, "{backend:?}: h + a spreads {spread} m");
        assert!(kept.abs() < 1e-6, "{backend:?}: the volume changed by {kept:.1e}");
        settled.push(surface);
    }
    assert_eq!(settled[0], settled[1], "the fast CPU left the twin's bits");
    let surfaces: Vec<Vec<f64>> = [Backend::Reference, Backend::Cpu, Backend::Gpu]
        .into_iter()
        .map(|b| {
            let mut sim = simulation(&scene, b);
            sim.step(300).unwrap();
            sim.surface().unwrap()
        })
        .collect();
    assert_backends_agree(&surfaces, 1e-5, "the layer under a low");
}

/// With marker particles the surface is drawn from them: no height field for the patches to
/// press. Refused, naming the key.
#[test]
fn a_low_over_the_markers_is_a_clear_error() {
    let text = "[grid]\nnx = 8\nny = 2\ndx = 0.1\n[time]\ndt = 0.01\n[physics]\nmodel = \"navier-stokes\"\n\
                [navier_stokes]\ncoarsen = 2\nsurface = \"markers\"\n[terrain]\nflat = -0.5\n[water]\nlevel = 0.0\n\
                [[pressure]]\nx = 0.4\ny = 0.1\nradius = 0.2\nstrength = -100.0\n";
    let e = shoal::Scene::parse(text, std::path::Path::new("t.toml"), std::path::Path::new("."))
        .unwrap_err()
        .to_string();
    assert!(e.contains("navier_stokes.surface") && e.contains("pressure"), "{e}");
}
