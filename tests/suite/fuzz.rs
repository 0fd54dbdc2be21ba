//! A bounded fuzz over scene mutations (issue 21): every preset scene with one of its values
//! replaced by an extreme one, a line dropped or doubled. Each mutant must parse to a scene or
//! to an error, never a panic; those that validate and are small must step a few steps on the
//! CPU to a result or an error, and write no non-finite height. Seeded, so a failure repeats.

use rand::{Rng, SeedableRng};
use shoal::{Backend, Scene, Simulation};
use std::path::Path;

/// What a value may be replaced by: edges of every numeric type, non-numbers, other types.
const EXTREMES: &[&str] = &[
    "0",
    "-0.0",
    "-1",
    "1",
    "2",
    "1e300",
    "-1e300",
    "1e-300",
    "3.4e38",
    "-1e39",
    "4294967295",
    "-4294967296",
    "9223372036854775807",
    "nan",
    "inf",
    "-inf",
    "\"x\"",
    "[]",
    "true",
    "0.5",
    "1e6",
    "-1e6",
    "[0.0, 0.0]",
];

/// One mutation of `text`.
fn mutate(text: &str, rng: &mut rand_pcg::Pcg64) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let assignments: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].contains('=') && !lines[i].trim_start().starts_with('#'))
        .collect();
    if assignments.is_empty() {
        return text.to_string();
    }
    let at = assignments[rng.random_range(0..assignments.len())];
    match rng.random_range(0..10) {
        0 => {
            lines.remove(at);
        }
        1 => {
            let line = lines[at].clone();
            lines.insert(at, line);
        }
        _ => {
            let key = lines[at].split('=').next().unwrap().to_string();
            let value = EXTREMES[rng.random_range(0..EXTREMES.len())];
            lines[at] = format!("{key}= {value}");
        }
    }
    lines.join("\n")
}

#[test]
fn mutated_scenes_give_scenes_or_errors_never_panics_or_non_finite_heights() {
    let scenes = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes");
    let mut bases: Vec<(String, String)> = std::fs::read_dir(&scenes)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .map(|p| (p.display().to_string(), std::fs::read_to_string(&p).unwrap()))
        .collect();
    bases.sort();
    let mut rng = rand_pcg::Pcg64::seed_from_u64(21);
    let started = std::time::Instant::now();
    let (mut valid, mut stepped) = (0, 0);
    // Mutants stepped per model: every model with a preset (the pipes and the Navier-Stokes
    // layer's included) must have some.
    let mut by_model: std::collections::BTreeMap<String, u32> = Default::default();
    let models: std::collections::BTreeSet<String> = bases
        .iter()
        .filter_map(|(name, text)| Scene::parse(text, Path::new(name), &scenes).ok())
        .map(|s| format!("{:?}", s.physics.model))
        .collect();
    for case in 0..1000 {
        let (name, base) = &bases[case % bases.len()];
        let text = mutate(base, &mut rng);
        let outcome = std::panic::catch_unwind(|| {
            let scene = Scene::parse(&text, Path::new(name), &scenes)?;
            Simulation::check(&scene)?;
            Ok::<Scene, shoal::Error>(scene)
        });
        let scene = match outcome {
            Err(_) => panic!("case {case}: a mutant of {name} panicked:\n{text}"),
            Ok(Err(_)) => continue,
            Ok(Ok(scene)) => scene,
        };
        valid += 1;
        if (scene.grid.nx as u64) * (scene.grid.ny as u64) > 20_000 {
            continue;
        }
        let ran = std::panic::catch_unwind(|| {
            let mut sim = Simulation::new(&scene, Backend::Cpu)?;
            sim.step(3)?;
            sim.surface()
        });
        match ran {
            Err(_) => panic!("case {case}: a mutant of {name} panicked while stepping:\n{text}"),
            Ok(Ok(h)) => {
                stepped += 1;
                *by_model.entry(format!("{:?}", scene.physics.model)).or_default() += 1;
                assert!(
                    h.iter().all(|v| v.is_finite()),
                    "case {case}: a non-finite height from\n{text}"
                );
            }
            Ok(Err(_)) => {}
        }
        assert!(
            started.elapsed().as_secs() < 240,
            "the fuzz ran past its time at case {case}"
        );
    }
    assert!(
        valid > 50 && stepped > 20,
        "too few mutants ran ({valid} valid, {stepped} stepped)"
    );
    for model in &models {
        assert!(
            by_model.get(model).is_some_and(|&n| n > 0),
            "no mutant of a {model} preset stepped: {by_model:?}"
        );
    }
    eprintln!("{valid} valid mutants, {stepped} stepped: {by_model:?}");
}
