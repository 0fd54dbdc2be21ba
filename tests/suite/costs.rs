//! The cost model's bytes and dispatches for every preset, as `shoal run --dry-run` prints them,
//! against `tests/costs.txt`: a change that makes a step move more bytes or take more dispatches
//! shows here, in its diff, and is taken on purpose (`SHOAL_BLESS=1` writes the table anew).

use crate::cli::shoal;
use std::path::Path;

/// A preset's schedule as the dry run prints it: each pass's runs, name, bytes per cell read and
/// written and dispatches (its note left out), then the step's totals.
fn schedule_of(preset: &Path) -> Vec<String> {
    let dir = preset.parent().unwrap();
    let name = preset.file_name().unwrap().to_str().unwrap();
    let (ok, out, err) = shoal(&["run", name, "--dry-run"], dir);
    assert!(ok, "{name}: {err}");
    let lines: Vec<String> = out
        .lines()
        .filter_map(|l| l.strip_prefix("#   ").or_else(|| l.strip_prefix("# step total: ")))
        .map(|l| {
            // A pass's line ends with "N dispatch(es) (its note)": the note is left out.
            let l = match l.split_once(" dispatch(es)") {
                Some((head, _)) => format!("{head} dispatch(es)"),
                None => l.to_string(),
            };
            l.split_whitespace().collect::<Vec<_>>().join(" ")
        })
        .collect();
    assert!(
        lines.iter().any(|l| l.contains("dispatches")),
        "{name}: no step total in the dry run's output:\n{out}"
    );
    lines
}

#[test]
fn every_presets_bytes_and_dispatches_are_the_tables() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut presets: Vec<_> = std::fs::read_dir(root.join("scenes"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    presets.sort();
    let mut table = String::from(
        "# Each preset's step as the cost model counts it (`shoal run PRESET --dry-run`): per pass its\n\
         # runs a step, bytes per cell read and written and dispatches, then the step's totals.\n\
         # tests/suite/costs.rs checks it; SHOAL_BLESS=1 writes it anew after a deliberate change.\n",
    );
    for preset in &presets {
        table.push_str(&format!("\n[{}]\n", preset.file_stem().unwrap().to_str().unwrap()));
        for line in schedule_of(preset) {
            table.push_str(&line);
            table.push('\n');
        }
    }
    let path = root.join("tests/costs.txt");
    if std::env::var_os("SHOAL_BLESS").is_some() {
        std::fs::write(&path, &table).unwrap();
        return;
    }
    let kept = std::fs::read_to_string(&path).unwrap_or_default();
    if kept != table {
        let changed: Vec<String> = table
            .lines()
            .zip(kept.lines().chain(std::iter::repeat("")))
            .filter(|(now, was)| now != was)
            .take(12)
            .map(|(now, was)| format!("  was: {was}\n  now: {now}"))
            .collect();
        panic!(
            "the cost model moved (tests/costs.txt, {} lines now, {} kept); first changes:\n{}\n\
             if this is meant, run with SHOAL_BLESS=1 and commit the table",
            table.lines().count(),
            kept.lines().count(),
            changed.join("\n")
        );
    }
}
