//! The `shoal` command line: a thin layer over the library.

use clap::{Parser, Subcommand, ValueEnum};
use shoal::{Backend, Scene};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "shoal",
    version,
    about = "GPU height-field water: waves, wet/dry beaches, volume that holds"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scene (without SCENE: the built-in default scene) and write its outputs.
    Run {
        /// Scene file (TOML, see SCENE.md).
        scene: Option<PathBuf>,
        /// Output folder.
        #[arg(long, default_value = "shoal-out")]
        out: PathBuf,
        /// Where the passes run.
        #[arg(long, value_enum, default_value_t = BackendArg::Gpu)]
        backend: BackendArg,
        /// Steps to run (overrides time.steps).
        #[arg(long)]
        steps: Option<u64>,
    },
    /// Print the GPU adapter, backend, driver and the limits that matter.
    Info,
}

#[derive(Clone, Copy, ValueEnum)]
enum BackendArg {
    Gpu,
    Cpu,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match execute(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn execute(command: Command) -> shoal::Result<()> {
    match command {
        Command::Info => {
            let context = shoal::gpu::GpuContext::new()?;
            println!("{}", context.describe());
            Ok(())
        }
        Command::Run {
            scene,
            out,
            backend,
            steps,
        } => {
            let scene = match scene {
                Some(path) => Scene::from_file(&path)?,
                None => Scene::builtin_default(),
            };
            let backend = match backend {
                BackendArg::Gpu => Backend::Gpu,
                BackendArg::Cpu => Backend::Cpu,
            };
            let summary = shoal::run::run(&scene, &out, backend, steps, &mut |line| eprintln!("{line}"))?;
            let drift = if summary.initial_volume > 0.0 {
                (summary.final_volume - summary.initial_volume) / summary.initial_volume
            } else {
                0.0
            };
            eprintln!(
                "ran \"{}\": {} steps ({} substep{}) in {:.2} s ({:.0} steps/s) on {}; volume change {:+.2e}; wrote {}",
                scene.name,
                summary.steps,
                summary.substeps,
                if summary.substeps == 1 { "" } else { "s" },
                summary.seconds,
                summary.steps as f64 / summary.seconds.max(1e-9),
                summary.backend,
                drift,
                summary.out.display()
            );
            Ok(())
        }
    }
}
