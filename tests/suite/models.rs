//! Every model's declared features (`shoal::low_level::models`, the table `shoal info --models`
//! prints) against what the engine does: each declared feature builds and runs on the model, the
//! ones that act on the water change it, and each undeclared one is refused, at validation or at
//! the call, with the one message that names the model and the feature.

use crate::common;
use shoal::low_level::models::{self, Feature, ALL};
use shoal::low_level::{HostEdit, EDIT_DISTURB};
use shoal::{Backend, Scene, Simulation};
use std::path::Path;

/// A 16 × 16 pool half a metre deep, on `model`, with `physics` lines and further `tables` (a
/// `[water]` among them replaces the pool's).
fn pool(model: &str, physics: &str, tables: &str) -> String {
    let water = if tables.contains("[water]") {
        ""
    } else {
        "[water]\nlevel = 0.5\n"
    };
    format!(
        "[grid]\nnx = 16\nny = 16\ndx = 0.1\n[time]\ndt = 0.005\n{water}\
         [physics]\nmodel = \"{model}\"\n{physics}{tables}"
    )
}

/// What a scene adds to ask for `feature` (physics lines, tables), and whether it acts on the
/// water within a few steps (so a run with it differs from one without). None: the feature is
/// asked for by a call, not a scene.
fn asks(feature: Feature) -> Option<(&'static str, &'static str, bool)> {
    Some(match feature {
        Feature::ImplicitSolver => ("solver = \"adi\"\n", "", false),
        Feature::Bodies => (
            "",
            "[[body]]\nshape = \"box\"\nsize = [0.4, 0.4, 0.2]\nposition = [0.8, 0.8, 0.55]\ndensity = 300.0\n",
            true,
        ),
        Feature::Sources => ("", "[[source]]\nx = 0.8\ny = 0.8\nradius = 0.2\nrate = 0.01\n", true),
        Feature::Hydrographs => (
            "",
            "[[source]]\nx = 0.8\ny = 0.8\nradius = 0.2\nhydrograph = \"q.csv\"\n",
            true,
        ),
        Feature::HeldSources => ("", "[[source]]\nx = 0.8\ny = 0.8\nradius = 0.2\nheight = 0.6\n", true),
        Feature::Rain => (
            "",
            "[rain]\nrate = 400.0\nradius = 0.1\nheight = 0.01\nseed = 1\n",
            true,
        ),
        Feature::Rainfall => ("", "[rainfall]\nintensity = 36000.0\n", true),
        Feature::Infiltration => ("", "[infiltration]\nmodel = \"constant\"\nrate = 36000.0\n", true),
        Feature::AirPressure => (
            "",
            "[[pressure]]\nshape = \"gaussian\"\nradius = 0.3\nstrength = 400.0\nx = 0.8\ny = 0.8\n",
            true,
        ),
        Feature::Damping => ("damping = 0.01\n", "", false),
        Feature::DampingMap => ("damping_map = \"damping.npy\"\n", "", false),
        Feature::WaveMakers => (
            "",
            "[boundary]\nwest = \"maker\"\n[boundary.maker]\nkind = \"sine\"\namplitude = 0.01\nperiod = 0.5\n",
            true,
        ),
        Feature::OpenSides => ("", "[boundary]\nwest = \"open\"\neast = \"absorb\"\n", false),
        Feature::GhostSides => ("", "[boundary]\nall = \"ghost-mean\"\n", false),
        Feature::RiverSides => ("", "[boundary]\nwest = \"free\"\n", false),
        Feature::Friction => ("manning = 0.03\n", "", false),
        Feature::FrictionMap => ("", "[friction]\nmap = \"n.npy\"\n", false),
        Feature::Velocities => ("", "[water]\nlevel = 0.5\nu_npy = \"u.npy\"\n", true),
        Feature::Regions => ("volume_correction = \"regions\"\n", "", false),
        Feature::FloodMaps => ("", "[output]\nsummary = true\n", false),
        Feature::Spray => ("", "[spray]\nseed = 1\n", false),
        Feature::Overhangs => (
            "",
            "[[terrain.overhang]]\nx0 = 0.0\ny0 = 0.0\nx1 = 0.4\ny1 = 0.4\nbottom = 0.7\ntop = 0.8\n",
            false,
        ),
        Feature::Probes => ("", "[[output.probe]]\nname = \"gauge\"\nx = 0.8\ny = 0.8\n", false),
        Feature::Sections => (
            "",
            "[[output.section]]\nname = \"line\"\nx0 = 0.8\ny0 = 0.0\nx1 = 0.8\ny1 = 1.6\n",
            false,
        ),
        Feature::Edits
        | Feature::InPlaceEdits
        | Feature::Queries
        | Feature::Embedding
        | Feature::Browser
        | Feature::Checkpoints
        | Feature::FastCpu => return None,
    })
}

/// The folder a scene's files live in: the hydrograph and the damping map the table asks for.
fn files() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("q.csv"), "time,rate\n0,0.01\n10,0.02\n").unwrap();
    common::write_npy(dir.path(), "damping.npy", 16, 16, |i, _| 0.01 * i as f64);
    common::write_npy(dir.path(), "n.npy", 16, 16, |i, _| 0.01 + 0.002 * i as f64);
    common::write_npy(dir.path(), "u.npy", 16, 16, |i, _| if i < 8 { 0.2 } else { 0.0 });
    dir
}

fn parse(dir: &Path, text: &str) -> shoal::Result<Scene> {
    Scene::parse(text, Path::new("s.toml"), dir)
}

fn eta_after(scene: &Scene, backend: Backend, steps: u64) -> Vec<f32> {
    let mut sim = Simulation::new(scene, backend).unwrap_or_else(|e| panic!("{e}"));
    sim.step(steps).unwrap_or_else(|e| panic!("{e}"));
    sim.eta().unwrap()
}

#[test]
fn every_model_runs_what_it_declares_and_refuses_the_rest_naming_both() {
    let dir = files();
    for model in ALL {
        let plain = parse(dir.path(), &pool(model.key(), "", "")).unwrap();
        let still = eta_after(&plain, Backend::Cpu, 6);
        for feature in Feature::ALL {
            let Some((physics, tables, acts)) = asks(feature) else {
                continue;
            };
            let text = pool(model.key(), physics, tables);
            let parsed = parse(dir.path(), &text);
            if model.takes(feature) {
                let scene = parsed.unwrap_or_else(|e| panic!("{} declares {feature:?}, but: {e}", model.key()));
                let eta = eta_after(&scene, Backend::Cpu, 6);
                assert!(eta.iter().all(|e| e.is_finite()), "{} with {feature:?}", model.key());
                if acts {
                    assert_ne!(eta, still, "{} with {feature:?}: the water did not change", model.key());
                }
            } else {
                let e = parsed
                    .err()
                    .unwrap_or_else(|| panic!("{} took {feature:?}, which it does not declare", model.key()))
                    .to_string();
                assert!(
                    e.contains(model.name()) && e.contains(feature.name()) && e.contains("shoal info --models"),
                    "{} refused {feature:?} with {e:?}",
                    model.key()
                );
            }
        }
    }
}

#[test]
fn edits_queries_checkpoints_and_the_fast_cpu_follow_the_table() {
    let dir = files();
    for model in ALL {
        let scene = parse(
            dir.path(),
            &pool(
                model.key(),
                "",
                "[[water.bump]]\nx = 0.8\ny = 0.8\nradius = 0.2\nheight = 0.02\n",
            ),
        )
        .unwrap();
        let mut sim = Simulation::new(&scene, Backend::Cpu).unwrap();
        sim.step(2).unwrap();
        let edit = sim.edit(&[HostEdit::at(EDIT_DISTURB, 0.8, 0.8, 0.2, 0.01, scene.grid.dx)]);
        let query = sim.query(&[[0.8, 0.8]]);
        for (feature, result) in [(Feature::Edits, edit.err()), (Feature::Queries, query.err())] {
            match (model.takes(feature), result) {
                (true, None) => {}
                (true, Some(e)) => panic!("{} declares {feature:?}, but: {e}", model.key()),
                (false, None) => panic!("{} took {feature:?}, which it does not declare", model.key()),
                (false, Some(e)) => {
                    let e = e.to_string();
                    assert!(e.contains(model.name()) && e.contains(feature.name()), "{e}");
                }
            }
        }
        assert!(model.takes(Feature::Checkpoints) && model.takes(Feature::FastCpu));
        // A checkpoint resumes to a straight run's bits: restored into the scene's simulation,
        // or, where the edit grew the Navier-Stokes layer's span (the splash raised its water),
        // loaded from its file, which builds the layer over the span it holds.
        let saved = sim.checkpoint().unwrap();
        sim.step(4).unwrap();
        let straight = sim.eta().unwrap();
        let mut resumed = match model.key() {
            "navier-stokes" => {
                let path = dir.path().join("edited.bin");
                saved.write(&path).unwrap();
                Simulation::load(&path, Backend::Cpu).unwrap()
            }
            _ => {
                let mut fresh = Simulation::new(&scene, Backend::Cpu).unwrap();
                fresh.restore(&saved, Path::new("checkpoint")).unwrap();
                fresh
            }
        };
        resumed.step(4).unwrap();
        assert_eq!(resumed.eta().unwrap(), straight, "{}: resumed differs", model.key());
        // The fast CPU backend gives the twin's bits.
        let plain = parse(dir.path(), &pool(model.key(), "", "")).unwrap();
        assert_eq!(
            eta_after(&plain, Backend::Cpu, 5),
            eta_after(&plain, Backend::Reference, 5),
            "{}: the fast CPU backend left the twin's bits",
            model.key()
        );
    }
}

#[test]
fn water_and_the_browser_take_the_models_the_table_says() {
    let (device, queue) = crate::embed::own_device_with(|limits| limits.max_storage_buffers_per_shader_stage = 10);
    let dir = files();
    for model in ALL {
        // With every feature it takes that a browser may meet: its spray, sources, rain.
        let mut tables = String::new();
        for f in [Feature::Spray, Feature::Sources, Feature::Rain, Feature::Bodies] {
            if model.takes(f) {
                tables.push_str(asks(f).unwrap().1);
            }
        }
        let scene = parse(dir.path(), &pool(model.key(), "", &tables)).unwrap();
        let water = shoal::Water::new(&device, &queue, &scene, Default::default());
        match (model.takes(Feature::Embedding), model.takes(Feature::Browser), water) {
            // Within a browser's 10 storage buffers: it builds and steps.
            (true, true, Ok(mut water)) => {
                // A brush in place where the model declares it, a refusal naming both where not.
                match (model.takes(Feature::InPlaceEdits), water.brush(0.8, 0.8, 0.2, 0.01)) {
                    (true, Ok(())) => {}
                    (true, Err(e)) => panic!("{} declares in-place edits, but: {e}", model.key()),
                    (false, Ok(())) => panic!("{} took an in-place brush it does not declare", model.key()),
                    (false, Err(e)) => {
                        let e = e.to_string();
                        assert!(
                            e.contains(model.name()) && e.contains(Feature::InPlaceEdits.name()),
                            "{e}"
                        );
                    }
                }
                let mut encoder = device.create_command_encoder(&Default::default());
                water.record(&mut encoder, 4);
                queue.submit([encoder.finish()]);
                water.check().unwrap_or_else(|e| panic!("{}: {e}", model.key()));
            }
            // Embeddable, but past a browser's limit: wgpu refuses its pipelines, at the build or
            // at the first check.
            (true, false, Err(e)) => assert!(!e.to_string().contains("shoal info --models"), "{e}"),
            (true, false, Ok(mut water)) => {
                let mut encoder = device.create_command_encoder(&Default::default());
                water.record(&mut encoder, 4);
                queue.submit([encoder.finish()]);
                let e = water.check().err();
                assert!(
                    e.is_some(),
                    "{} ran within 10 storage buffers: declare the browser",
                    model.key()
                );
            }
            (false, _, Err(e)) => {
                let e = e.to_string();
                assert!(e.contains(model.name()) && e.contains(Feature::Embedding.name()), "{e}");
            }
            (embeds, browser, Ok(_)) => {
                panic!(
                    "{} built on 10 storage buffers (declares Water {embeds}, the browser {browser})",
                    model.key()
                )
            }
            (_, _, Err(e)) => panic!("{}: {e}", model.key()),
        }
    }
}

#[test]
fn what_the_physics_rules_out_is_never_taken_and_its_refusal_says_why() {
    let table = shoal::models_table();
    for model in ALL {
        for &(feature, why) in model.ruled_out() {
            assert!(
                !model.takes(feature),
                "{} both takes and rules out {feature:?}",
                model.key()
            );
            let e = models::refusal(model_of(model.key()), feature, "a key");
            assert!(
                e.contains(why) && e.contains(model.name()) && e.contains(feature.name()),
                "{e}"
            );
        }
    }
    // "n/a" in the table exactly where a model rules the feature out.
    let n_a: usize = ALL.iter().map(|m| m.ruled_out().len()).sum();
    assert_eq!(table.matches("n/a").count(), n_a, "{table}");
    // A scene's key gets it: "regions" on the shallow-water model.
    let dir = files();
    let e = parse(
        dir.path(),
        &pool("shallow-water", "volume_correction = \"regions\"\n", ""),
    )
    .err()
    .unwrap()
    .to_string();
    assert!(
        e.contains("physics.volume_correction") && e.contains("by construction"),
        "{e}"
    );
}

/// The scene's model of a `physics.model` key.
fn model_of(key: &str) -> shoal::scene::WaterModel {
    [
        shoal::scene::WaterModel::HeightField,
        shoal::scene::WaterModel::Pipes,
        shoal::scene::WaterModel::NavierStokes,
        shoal::scene::WaterModel::ShallowWater,
    ]
    .into_iter()
    .find(|&m| models::of(m).key() == key)
    .unwrap()
}

#[test]
fn the_table_names_every_model_and_feature() {
    let table = shoal::models_table();
    for model in ALL {
        assert!(table.lines().next().unwrap().contains(model.key()), "{table}");
    }
    for feature in Feature::ALL {
        assert!(
            table.lines().any(|l| l.starts_with(feature.name())),
            "{feature:?} missing:\n{table}"
        );
    }
    assert_eq!(models::of(shoal::scene::WaterModel::Pipes).key(), "pipes");
}

#[test]
fn the_readme_and_the_scene_docs_show_the_table_the_code_declares() {
    let table = shoal::models_table();
    for doc in ["README.md", "docs/scenes.md"] {
        let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(doc)).unwrap();
        assert!(
            text.contains(&format!("```\n{table}```\n")),
            "{doc}'s table is not what `shoal info --models` prints:\n{table}"
        );
    }
}
