//! Inputs that used to panic, abort, hang or write infinities (issue 21): each is a clean
//! `error:` naming its key, on `validate` and on `run` with either backend, and a batch goes on.

use crate::cli::shoal;

/// A scene of `grid` and `time` with `extra` appended.
fn scene(grid: &str, time: &str, extra: &str) -> String {
    format!("[grid]\n{grid}\n[time]\n{time}\n{extra}")
}

#[test]
fn oversized_and_overflowing_inputs_are_refused_naming_the_key() {
    let g = "nx = 20\nny = 20\ndx = 0.1";
    let t = "dt = 0.01\nsteps = 10";
    let cases = [
        (scene("nx = 4294967295\nny = 4294967295\ndx = 1.0", t, ""), "grid.nx"),
        (scene("nx = 100000\nny = 100000\ndx = 1.0", t, ""), "grid.nx"),
        (scene("nx = 2147483648\nny = 2\ndx = 1.0", t, ""), "grid.nx"),
        (scene("nx = 20\nny = 20\ndx = 1e300", t, ""), "grid.dx"),
        (
            scene(g, "dt = 0.01\nsteps = 10\nsubsteps = 4000000000", ""),
            "time.substeps",
        ),
        (
            scene(g, t, "[[body]]\nsize = [0.2, 0.2, 0.2]\nposition = [1.0, 1.0, -1e39]"),
            "body[0].position",
        ),
        (
            scene(g, t, "[rain]\nrate = 9.2e18\nradius = 0.1\nheight = 0.01"),
            "rain.rate",
        ),
        (
            scene(g, t, "[rain]\nrate = 4294967296.0\nradius = 0.1\nheight = 0.01"),
            "rain.rate",
        ),
        (
            scene(g, t, "[[source]]\nx = 1.0\ny = 1.0\nradius = 0.1\nrate = -1e12"),
            "source[0].rate",
        ),
        (
            scene(g, t, "[[water.bump]]\nx = 1.0\ny = 1.0\nradius = 0.1\nheight = 3.4e38"),
            "water.bump[0].height",
        ),
        (
            scene(g, t, "[[water.bump]]\nx = 50.0\ny = 1.0\nradius = 0.1\nheight = 0.1"),
            "water.bump[0].x",
        ),
        (
            scene(
                g,
                t,
                "[terrain]\n[[terrain.box]]\nx0 = 5.0\ny0 = 5.0\nx1 = 6.0\ny1 = 6.0\ntop = 1.0",
            ),
            "terrain.box[0]",
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (k, (text, key)) in cases.iter().enumerate() {
        let file = format!("s{k}.toml");
        std::fs::write(dir.path().join(&file), text).unwrap();
        let out = format!("out{k}");
        for args in [
            vec!["validate", file.as_str()],
            vec!["run", file.as_str(), "--backend", "cpu", "--out", &out, "-q", "--force"],
            vec!["run", file.as_str(), "--backend", "gpu", "--out", &out, "-q", "--force"],
        ] {
            let (ok, _, err) = shoal(&args, dir.path());
            assert!(!ok, "{args:?} on {text:?} succeeded");
            assert!(
                err.starts_with("error:") && err.contains(key),
                "{args:?} on {text:?}: {err}"
            );
        }
    }
}

#[test]
fn a_grid_larger_than_the_machine_is_refused_before_anything_is_allocated() {
    // 30000² cells (9e8, under the index limit) need ~107 GiB to build: refused with what the
    // machine has, where the system says (Linux's MemAvailable).
    if !std::path::Path::new("/proc/meminfo").exists() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("big.toml"),
        scene("nx = 30000\nny = 30000\ndx = 1.0", "dt = 0.01\nsteps = 1", ""),
    )
    .unwrap();
    for args in [
        vec!["validate", "big.toml"],
        vec!["run", "big.toml", "--backend", "cpu", "--dry-run"],
    ] {
        let (ok, _, err) = shoal(&args, dir.path());
        assert!(
            !ok && err.contains("GiB of memory") && err.contains("available"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn a_batch_run_again_keeps_the_runs_it_finished() {
    // `shoal batch --only 0` on a run already done neither refuses it into a "failed" row nor
    // reruns it; --force runs it again.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("a.toml"),
        scene(
            "nx = 20\nny = 20\ndx = 0.1",
            "dt = 0.01\nsteps = 10",
            "[terrain]\nflat = -0.1\n",
        ),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("sweep.toml"),
        "backend = \"cpu\"\nscenes = [\"a.toml\"]\n",
    )
    .unwrap();
    let (ok, _, err) = shoal(&["batch", "sweep.toml"], dir.path());
    assert!(ok, "{err}");
    let summary = || std::fs::read_to_string(dir.path().join("sweep/summary.csv")).unwrap();
    let first = summary();
    let (ok, _, err) = shoal(&["batch", "sweep.toml", "--only", "0"], dir.path());
    assert!(ok && err.contains("done already"), "{err}");
    assert_eq!(summary(), first, "a finished run's row changed");
    assert!(first.lines().nth(1).is_some_and(|l| l.contains(",ok,")), "{first}");
    let (ok, _, err) = shoal(&["batch", "sweep.toml", "--only", "0", "--force"], dir.path());
    assert!(ok, "{err}");
}
