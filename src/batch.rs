//! `shoal batch SWEEP.toml`: a list of scenes and/or one scene over a grid of parameter values,
//! each run into its own folder, and a summary table. `run` runs them one after another in this
//! process (the command line runs each in a process of its own, so an abort is one run's failure);
//! to spread a sweep over a cluster, run one `--only INDEX` per task of an existing scheduler (a
//! Slurm job array, GNU parallel) and collect with `--summary`.
//!
//! ```toml
//! out = "sweep-out"              # default: the sweep file's name without .toml
//! backend = "gpu"                # or "cpu"
//! steps = 500                    # optional: overrides every scene's time.steps
//! scenes = ["beach.toml", "river.toml"]
//! [vary]                         # optional: one scene over every combination of values
//! scene = "beach.toml"
//! "physics.damping" = [0.0, 0.01]
//! "time.dt" = [0.01, 0.02]
//! ```

use crate::error::{Error, Result};
use crate::io::csv::{Cell, CsvWriter};
use crate::run::{Reporter, RunOptions, RunSummary};
use crate::scene::Scene;
use crate::simulation::Backend;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SweepFile {
    out: Option<PathBuf>,
    #[serde(default)]
    backend: BackendName,
    steps: Option<u64>,
    #[serde(default)]
    scenes: Vec<PathBuf>,
    vary: Option<Vary>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
enum BackendName {
    #[default]
    Gpu,
    Cpu,
    Reference,
}

#[derive(Debug, Deserialize)]
struct Vary {
    scene: PathBuf,
    #[serde(flatten)]
    values: BTreeMap<String, Vec<toml::Value>>,
}

/// One run of a sweep: its folder name under the sweep's `out`, and its scene, or why the scene
/// is not valid (that run then fails, reported, and the others go on).
#[derive(Clone, Debug)]
pub struct Planned {
    /// The run's folder under the sweep's `out`.
    pub name: String,
    /// The run's scene, or why it is not valid.
    pub scene: std::result::Result<Scene, String>,
}

/// A sweep file, read and expanded into its runs. A malformed sweep fails here, before anything
/// runs; a scene that does not validate becomes a failed run.
#[derive(Debug)]
pub struct Sweep {
    /// Folder the runs' folders and summary.csv go in.
    pub out: PathBuf,
    /// Backend every run uses.
    pub backend: Backend,
    /// Steps for every run, over each scene's own.
    pub steps: Option<u64>,
    /// The runs, in the order they go.
    pub runs: Vec<Planned>,
}

impl Sweep {
    /// Reads a sweep file and expands it into its runs.
    pub fn from_file(path: &Path) -> Result<Sweep> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let bad = |line: Option<usize>, message: String| Error::Scene {
            file: path.to_path_buf(),
            line,
            message,
        };
        let file: SweepFile = toml::from_str(&text).map_err(|e| {
            bad(
                e.span().map(|s| crate::scene::locate::line_of_offset(&text, s.start)),
                e.message().trim().to_string(),
            )
        })?;
        let base = path.parent().unwrap_or(Path::new("."));
        let mut runs = Vec::new();
        for scene in &file.scenes {
            runs.push(Planned {
                name: stem(scene),
                scene: Scene::from_file(&base.join(scene)).map_err(|e| e.to_string()),
            });
        }
        if let Some(vary) = &file.vary {
            runs.extend(expand(vary, base).map_err(|message| bad(None, format!("vary: {message}")))?);
        }
        if runs.is_empty() {
            return Err(bad(
                None,
                "names no runs: give `scenes = [...]` or a [vary] table".into(),
            ));
        }
        let mut seen = std::collections::HashSet::new();
        if let Some(twice) = runs.iter().find(|r| !seen.insert(r.name.clone())) {
            return Err(bad(None, format!("two runs would share the folder {}", twice.name)));
        }
        Ok(Sweep {
            out: base.join(file.out.unwrap_or_else(|| PathBuf::from(stem(path)))),
            backend: match file.backend {
                BackendName::Gpu => Backend::Gpu,
                BackendName::Cpu => Backend::Cpu,
                BackendName::Reference => Backend::Reference,
            },
            steps: file.steps,
            runs,
        })
    }
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map_or("run".into(), |s| s.to_string_lossy().into_owned())
}

/// Every combination of `vary`'s values, each applied to its scene's TOML and validated as a scene
/// (so a key the contract lacks fails with the scene's own error).
fn expand(vary: &Vary, base: &Path) -> std::result::Result<Vec<Planned>, String> {
    let path = base.join(&vary.scene);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let table: toml::Table = text.parse().map_err(|e| format!("{}: {e}", path.display()))?;
    let mut combos: Vec<(String, toml::Table)> = vec![(stem(&path), table)];
    for (key, values) in &vary.values {
        if values.is_empty() {
            return Err(format!("{key} has no values"));
        }
        let short = key.rsplit('.').next().unwrap_or(key);
        combos = combos
            .into_iter()
            .flat_map(|(name, table)| {
                values.iter().map(move |v| {
                    let mut t = table.clone();
                    set(&mut t, key, v.clone()).map(|()| (format!("{name}-{short}={}", label(v)), t))
                })
            })
            .collect::<std::result::Result<_, String>>()?;
    }
    combos
        .into_iter()
        .map(|(name, table)| {
            let text = toml::to_string(&table).map_err(|e| e.to_string())?;
            let origin = PathBuf::from(format!("{} ({name})", path.display()));
            // The scene's files (a DEM, a rainfall map) sit beside the scene, not the sweep.
            let scene = Scene::parse(&text, &origin, path.parent().unwrap_or(base)).map_err(|e| e.to_string());
            Ok(Planned { name, scene })
        })
        .collect()
}

/// Sets the dotted `key` in `table`: "physics.damping", creating tables on the way, or
/// "pressure.0.strength", an entry of an array of tables (`[[pressure]]`, `[[source]]`,
/// `[[body]]`) by its index from 0, which must exist.
fn set(table: &mut toml::Table, key: &str, value: toml::Value) -> std::result::Result<(), String> {
    let mut parts: Vec<&str> = key.split('.').collect();
    let last = parts
        .pop()
        .filter(|p| !p.is_empty())
        .ok_or(format!("bad key {key:?}"))?;
    let mut at = table;
    let mut walked = String::new();
    let mut parts = parts.into_iter().peekable();
    while let Some(part) = parts.next() {
        let here = at.entry(part).or_insert_with(|| toml::Value::Table(Default::default()));
        walked = if walked.is_empty() {
            part.to_string()
        } else {
            format!("{walked}.{part}")
        };
        let entry = match here {
            toml::Value::Array(items) => {
                let Some(index) = parts.next() else {
                    return Err(format!(
                        "{key}: {walked} is a list of tables: name an entry ({walked}.0.…)"
                    ));
                };
                let count = items.len();
                let i: usize = index
                    .parse()
                    .map_err(|_| format!("{key}: {walked} is a list: {index:?} is not an index from 0"))?;
                walked = format!("{walked}.{index}");
                items
                    .get_mut(i)
                    .ok_or(format!("{key}: {walked}: the scene has {count} of them"))?
            }
            other => other,
        };
        at = entry.as_table_mut().ok_or(format!("{key}: {walked} is not a table"))?;
    }
    at.insert(last.to_string(), value);
    Ok(())
}

fn label(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// How one run of a sweep went.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The run's folder name.
    pub name: String,
    /// Its summary, or the error it failed with.
    pub result: std::result::Result<RunSummary, String>,
    /// Whether it was stopped (SIGTERM, Ctrl-C) rather than failed: its checkpoint resumes it.
    pub interrupted: bool,
}

const SUMMARY_HEADER: [&str; 6] = ["run", "status", "steps", "steps_per_s", "volume_error", "message"];

impl Outcome {
    /// Writes the run's one-row `run.csv` in its folder under `out`.
    pub fn record(&self, out: &Path) -> Result<()> {
        let dir = out.join(&self.name);
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        let mut one = CsvWriter::create(&dir.join("run.csv"), &SUMMARY_HEADER)?;
        one.row(&self.row())?;
        one.finish()
    }

    fn row(&self) -> Vec<Cell> {
        match &self.result {
            Ok(s) => vec![
                Cell::Text(self.name.clone()),
                Cell::Text("ok".into()),
                Cell::Int(s.steps),
                Cell::Float(s.steps as f64 / s.seconds.max(1e-9)),
                Cell::Float(s.volume_error()),
                Cell::Empty,
            ],
            Err(message) => vec![
                Cell::Text(self.name.clone()),
                Cell::Text(if self.interrupted { "interrupted" } else { "failed" }.into()),
                Cell::Empty,
                Cell::Empty,
                Cell::Empty,
                Cell::Text(message.clone()),
            ],
        }
    }
}

/// Runs the sweep's runs (all, or the one at `only`), each into `out/<name>/`, its one-row
/// `run.csv` beside its outputs; then writes `out/summary.csv` from every run's `run.csv`.
pub fn run(sweep: &Sweep, only: Option<usize>, force: bool, report: &mut dyn Reporter) -> Result<Vec<Outcome>> {
    let picked: Vec<(usize, &Planned)> = match only {
        Some(i) => vec![(
            i,
            sweep.runs.get(i).ok_or_else(|| Error::Output {
                path: sweep.out.clone(),
                message: format!("--only {i}: the sweep has runs 0 to {}", sweep.runs.len() - 1),
            })?,
        )],
        None => sweep.runs.iter().enumerate().collect(),
    };
    let total = sweep.runs.len();
    std::fs::create_dir_all(&sweep.out).map_err(|e| Error::io(&sweep.out, e))?;
    let mut outcomes = Vec::new();
    for &(k, planned) in &picked {
        let dir = sweep.out.join(&planned.name);
        let record = dir.join("run.csv");
        if !force && status_in(&record).as_deref() == Some("ok") {
            // A run done keeps its outputs and its row: a sweep run again (or a scheduler's
            // retry of one task) finishes what is unfinished, and `--force` redoes it.
            report.note(&format!(
                "run {}/{}: {} is done already (its run.csv says ok; --force runs it again)",
                k + 1,
                total,
                planned.name
            ));
            continue;
        }
        // Failed, interrupted, killed or never run: its row goes (a process that dies now must
        // not leave the last try's), and it runs again.
        if record.exists() {
            std::fs::remove_file(&record).map_err(|e| Error::io(&record, e))?;
        }
        let resumable = !force && dir.join(crate::run::CHECKPOINT).exists() && dir.join("scene.toml").exists();
        report.note(&format!(
            "run {}/{}: {}{}",
            k + 1,
            total,
            planned.name,
            if resumable {
                " (resumed from its checkpoint)"
            } else {
                ""
            }
        ));
        let options = RunOptions {
            steps: sweep.steps,
            // The folder is this run's own: what an earlier try left in it is replaced.
            force: true,
            ..RunOptions::default()
        };
        let mut interrupted = false;
        let outcome = Outcome {
            name: planned.name.clone(),
            result: planned.scene.clone().and_then(|scene| {
                // A run that panics is that run's failure, not the sweep's end.
                let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    if resumable {
                        crate::run::resume(&dir, sweep.backend, sweep.steps, &RunOptions::default(), &mut *report)
                    } else {
                        crate::run::run(&scene, &dir, sweep.backend, &options, &mut *report)
                    }
                }));
                match ran {
                    Ok(result) => result.map_err(|e| {
                        interrupted = matches!(e, Error::Interrupted { .. });
                        e.to_string()
                    }),
                    Err(panic) => Err(format!(
                        "the run panicked ({}): a bug, please report it with its scene",
                        panic
                            .downcast_ref::<String>()
                            .map(String::as_str)
                            .or_else(|| panic.downcast_ref::<&str>().copied())
                            .unwrap_or("no message")
                    )),
                }
            }),
            interrupted: false,
        };
        let outcome = Outcome { interrupted, ..outcome };
        if let Err(message) = &outcome.result {
            report.note(&format!("error: run {} failed: {message}", planned.name));
        }
        outcome.record(&sweep.out)?;
        outcomes.push(outcome);
    }
    summarise(sweep)?;
    Ok(outcomes)
}

/// Each run's status as its `run.csv` says ("ok", "failed", "interrupted"), None where it has
/// none yet.
pub fn statuses(sweep: &Sweep) -> Vec<Option<String>> {
    sweep
        .runs
        .iter()
        .map(|planned| status_in(&sweep.out.join(&planned.name).join("run.csv")))
        .collect()
}

/// The status a `run.csv` holds.
fn status_in(record: &Path) -> Option<String> {
    let row = std::fs::read_to_string(record).ok()?;
    Some(row.lines().nth(1)?.split(',').nth(1)?.to_string())
}

/// Writes `out/summary.csv` from the `run.csv` of every run that has one, in the sweep's order;
/// runs not done yet are listed as "missing".
pub fn summarise(sweep: &Sweep) -> Result<()> {
    let mut table = CsvWriter::create(&sweep.out.join("summary.csv"), &SUMMARY_HEADER)?;
    for planned in &sweep.runs {
        let path = sweep.out.join(&planned.name).join("run.csv");
        match std::fs::read_to_string(&path)
            .ok()
            .and_then(|t| t.lines().nth(1).map(str::to_string))
        {
            Some(row) => table.line(&row)?,
            None => table.row(&[
                Cell::Text(planned.name.clone()),
                Cell::Text("missing".into()),
                Cell::Empty,
                Cell::Empty,
                Cell::Empty,
                Cell::Empty,
            ])?,
        }
    }
    table.finish()
}
