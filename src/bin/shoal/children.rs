//! `shoal batch` runs each run of a sweep in a process of its own (this program again, with
//! `--only INDEX`), so that whatever ends one run (a panic, an abort when memory runs out, a
//! signal) is that run's failure: the others go on and `summary.csv` is written. A run whose
//! process died before writing its `run.csv` gets one saying how it ended.

use shoal::batch::{Outcome, Sweep};
use std::path::Path;
use std::process::{Command, ExitStatus};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

/// The process of the run going now (0: none), for `forward_stop`.
static CHILD: AtomicU32 = AtomicU32::new(0);
/// A stop came: no further run starts.
static STOPPED: AtomicBool = AtomicBool::new(false);

/// Passes a stop (Ctrl-C, SIGTERM, SIGHUP) on to the run going now as a SIGTERM: it checkpoints
/// and ends as a run of its own would. The runs live in their own process groups, so a terminal's
/// Ctrl-C reaches only this process and each run gets one signal, not two.
pub fn forward_stop() {
    STOPPED.store(true, Ordering::SeqCst);
    #[cfg(unix)]
    {
        let pid = CHILD.load(Ordering::SeqCst);
        if pid != 0 {
            // SAFETY: kill(2) with a pid this process spawned and a valid signal number.
            unsafe { libc::kill(pid as libc::pid_t, libc::SIGTERM) };
        }
    }
}

/// Runs the sweep's runs, each in a child process; returns (failed, done) over the runs this call
/// ran, skipped ones left out, and whether a stop came (the runs after it do not start). `args`
/// are the options every child takes (`--force`, `-q`, `--threads N`).
pub fn run_each(sweep: &Sweep, sweep_file: &Path, args: &[String], force: bool) -> shoal::Result<(usize, usize, bool)> {
    let io = |path: &Path, source| shoal::Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let exe = std::env::current_exe().map_err(|e| io(Path::new("shoal"), e))?;
    let (mut failed, mut done) = (0, 0);
    for (index, planned) in sweep.runs.iter().enumerate() {
        if STOPPED.load(Ordering::SeqCst) {
            break;
        }
        let record = sweep.out.join(&planned.name).join("run.csv");
        let was_done = shoal::batch::statuses(sweep)[index].as_deref() == Some("ok");
        if force || !was_done {
            // A run redone (or retried after a failure, a stop or a kill) must not leave the
            // last try's row in place if its process dies.
            let _ = std::fs::remove_file(&record);
        }
        let had_record = !force && was_done;
        let mut command = Command::new(&exe);
        command
            .arg("batch")
            .arg(sweep_file)
            .args(["--only", &index.to_string()])
            .args(args);
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command.spawn().map_err(|e| io(&exe, e))?;
        CHILD.store(child.id(), Ordering::SeqCst);
        let status = child.wait();
        CHILD.store(0, Ordering::SeqCst);
        let status = status.map_err(|e| io(&exe, e))?;
        if had_record {
            continue; // done before: the child said so and left it
        }
        done += 1;
        if !record.exists() {
            Outcome {
                name: planned.name.clone(),
                result: Err(format!("the run's process {}", ended(status))),
                interrupted: false,
            }
            .record(&sweep.out)?;
            eprintln!(
                "error: run {} failed: the run's process {}",
                planned.name,
                ended(status)
            );
        }
        if shoal::batch::statuses(sweep)[index].as_deref() != Some("ok") {
            failed += 1;
        }
    }
    shoal::batch::summarise(sweep)?;
    Ok((failed, done, STOPPED.load(Ordering::SeqCst)))
}

/// How a process that wrote no `run.csv` ended, in words.
fn ended(status: ExitStatus) -> String {
    #[cfg(unix)]
    if let Some(signal) = std::os::unix::process::ExitStatusExt::signal(&status) {
        let why = match signal {
            libc::SIGABRT => " (SIGABRT: an abort, e.g. a memory allocation that failed)",
            libc::SIGKILL => " (SIGKILL: killed, e.g. by the out-of-memory killer)",
            libc::SIGSEGV => " (SIGSEGV: a crash, please report it with its scene)",
            libc::SIGTERM => " (SIGTERM)",
            _ => "",
        };
        return format!("was ended by signal {signal}{why}");
    }
    match status.code() {
        Some(code) => format!("exited with status {code} and wrote no run.csv"),
        None => "ended and wrote no run.csv".into(),
    }
}
