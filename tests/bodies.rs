//! Rigid bodies two-way coupled with the water (GAMES103's virtual height, Wilson et al.'s cube).

mod common;

use common::{scene, simulation, BOTH};
use shoal::Backend;

/// A 1.6 m × 1.6 m pool, 0.5 m deep, cells of 2 cm, with one body.
fn pool(body: &str, extra: &str) -> String {
    format!(
        "[grid]\nnx = 80\nny = 80\ndx = 0.02\n[time]\ndt = 0.01\nsteps = 100\n[physics]\n{extra}\n\
         [terrain]\nflat = -0.5\n[water]\nlevel = 0.0\n[[body]]\n{body}\n"
    )
}

#[test]
#[ignore]
fn explore() {
    let text = pool(
        "shape = \"box\"\nsize = [0.4, 0.4, 0.2]\nposition = [0.8, 0.8, 0.1]\ndensity = 500.0",
        &std::env::var("EXTRA").unwrap_or_default().replace(';', "\n"),
    );
    let s = scene(&text);
    for backend in BOTH {
        let mut sim = simulation(&s, backend);
        for k in 0..20 {
            sim.step(50).unwrap();
            let b = sim.bodies()[0];
            let surface = sim.surface().unwrap();
            let volume = sim.stats(&surface).volume;
            println!(
                "{backend:?} step {} z {:.5} vz {:.5} waterline {:.5} displaced {:.6} coupling {:?} volume {:.9}",
                (k + 1) * 50,
                b.position[2],
                b.velocity[2],
                b.waterline,
                b.displaced,
                sim.coupling(),
                volume
            );
        }
    }
    let _ = Backend::Cpu;
}
