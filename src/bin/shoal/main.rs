//! The `shoal` command line: a thin layer over the library.

use clap::{Args, Parser, Subcommand, ValueEnum};
use shoal::{Backend, Scene};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

mod children;

#[derive(Parser)]
#[command(
    name = "shoal",
    version,
    about = "GPU height-field water: waves, wet/dry beaches, volume that holds",
    after_help = "The guide: docs/guide.md; every scene key: docs/scenes.md; the command line and its \
                  outputs: docs/cli.md; the models: docs/models/ (in the repository; `shoal info --models` \
                  prints what each takes)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Threads for the CPU backend (default: every core).
    #[arg(long, global = true, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scene (without SCENE: the built-in default scene) and write its outputs.
    Run(RunArgs),
    /// Continue a run in DIR from its last checkpoint, writing into the same DIR.
    Resume(ResumeArgs),
    /// Run a sweep: a list of scenes and/or one scene over a grid of values (the sweep file's
    /// keys: docs/cli.md, "Sweeps").
    Batch(BatchArgs),
    /// Check a scene without running it.
    Validate {
        /// Scene file (TOML; every key: docs/scenes.md).
        scene: PathBuf,
    },
    /// Print the GPU adapter, backend, driver and the limits that matter, and the backend a run
    /// would take.
    Info {
        /// Print what each water model takes instead (a row per feature, a column per model).
        #[arg(long)]
        models: bool,
    },
}

#[derive(Args)]
struct RunArgs {
    /// Scene file (TOML; every key: docs/scenes.md).
    scene: Option<PathBuf>,
    /// Output folder.
    #[arg(long, default_value = "shoal-out")]
    out: PathBuf,
    /// Where the passes run. auto: the GPU, or the CPU where the only adapter is a software
    /// rasteriser (llvmpipe, lavapipe, SwiftShader, WARP); reference: the single-threaded twin.
    #[arg(long, value_enum, default_value_t = BackendArg::Auto)]
    backend: BackendArg,
    /// Steps to run (overrides time.steps).
    #[arg(long)]
    steps: Option<u64>,
    /// Write into an output folder that already holds files.
    #[arg(long)]
    force: bool,
    /// Write frame_NNNNNN.png at each output step.
    #[arg(long)]
    png: bool,
    /// Write the frames as an animated GIF to FILE.
    #[arg(long, value_name = "FILE")]
    gif: Option<PathBuf>,
    /// Write caustics_NNNNNN.png at each output step: the light the surface focuses onto
    /// the ground (grey 100 = flat water's, sun straight down).
    #[arg(long)]
    caustics: bool,
    /// Write h_NNNNNN.tif at each output step: the surface as a float32 GeoTIFF, north up,
    /// georeferenced like the terrain's DEM.
    #[arg(long)]
    geotiff: bool,
    /// Write h_NNNNNN.exr at each output step: channels h (surface), d (depth), b (ground).
    #[arg(long)]
    exr: bool,
    /// Write u_NNNNNN.npy and v_NNNNNN.npy at each output step: the depth-averaged velocity
    /// (m/s, 0 in dry cells), on models with a velocity (shallow-water, pipes, Navier-Stokes layer).
    #[arg(long)]
    velocity: bool,
    /// Write d_NNNNNN.npy at each output step (and d_NNNNNN.tif with --geotiff): the water's
    /// depth, m, 0 in dry cells.
    #[arg(long)]
    depth: bool,
    /// Write DIR/output.nc: each output step as a record of one CF-1.8 NetCDF file (h, depth,
    /// the velocity where the model has one), with the ground, the flood maps and the DEM's
    /// coordinate system, for xarray, GDAL and QGIS.
    #[arg(long)]
    netcdf: bool,
    /// No progress and no closing summary (errors and notes still go to stderr).
    #[arg(long, short)]
    quiet: bool,
    /// Check the scene, print it resolved, the GPU memory it needs and the step's passes
    /// with their cost, and stop.
    #[arg(long)]
    dry_run: bool,
    /// Write DIR/checkpoint.bin (the whole state) every N steps, for `shoal resume`.
    #[arg(long, value_name = "N")]
    checkpoint_every: Option<u64>,
    /// Print each GPU pass's time per step (GPU timestamps, where the adapter offers them), its
    /// bytes per cell and bandwidth, and the wall clock's steps/s.
    #[arg(long)]
    profile: bool,
}

#[derive(Args)]
struct ResumeArgs {
    /// The run's output folder.
    dir: PathBuf,
    /// Run up to this step, counted from the run's start (the total, not more steps; default:
    /// the scene's steps).
    #[arg(long)]
    steps: Option<u64>,
    /// Go on writing frame_NNNNNN.png at each output step.
    #[arg(long)]
    png: bool,
    /// Go on writing h_NNNNNN.tif at each output step.
    #[arg(long)]
    geotiff: bool,
    /// Go on writing h_NNNNNN.exr at each output step.
    #[arg(long)]
    exr: bool,
    /// Go on writing u_NNNNNN.npy and v_NNNNNN.npy at each output step.
    #[arg(long)]
    velocity: bool,
    /// Go on writing d_NNNNNN.npy (and .tif with --geotiff) at each output step.
    #[arg(long)]
    depth: bool,
    /// Go on appending to DIR/output.nc (the run must have begun it with --netcdf).
    #[arg(long)]
    netcdf: bool,
    /// Where the passes run. auto: the GPU, or the CPU where the only adapter is a software
    /// rasteriser (llvmpipe, lavapipe, SwiftShader, WARP); reference: the single-threaded twin.
    #[arg(long, value_enum, default_value_t = BackendArg::Auto)]
    backend: BackendArg,
    /// No progress and no closing summary.
    #[arg(long, short)]
    quiet: bool,
}

#[derive(Args)]
struct BatchArgs {
    /// Sweep file (TOML).
    sweep: PathBuf,
    /// Run only the run at this index (0-based; for one task of a job array).
    #[arg(long, value_name = "INDEX")]
    only: Option<usize>,
    /// Print the runs, one per line with its index, and stop.
    #[arg(long)]
    list: bool,
    /// Only rebuild OUT/summary.csv from the runs done so far.
    #[arg(long)]
    summary: bool,
    /// Write into run folders that already hold files.
    #[arg(long)]
    force: bool,
    /// No progress and no closing summary.
    #[arg(long, short)]
    quiet: bool,
    /// Set by a batch for the process it runs one run in: its failure was reported already.
    #[arg(long, hide = true)]
    child: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum BackendArg {
    Auto,
    Gpu,
    Cpu,
    Reference,
}

fn main() -> ExitCode {
    private_runtime_dir();
    let cli = Cli::parse();
    if let Some(n) = cli.threads {
        // Before anything runs, so this is rayon's first and only global pool.
        let _ = rayon::ThreadPoolBuilder::new().num_threads(n as usize).build_global();
    }
    // Ctrl-C, SIGTERM (a scheduler's time limit, `timeout`) and SIGHUP (a dropped ssh): the run
    // finishes its current file, writes a checkpoint and fails with a message; a second signal
    // ends the process at once (the tables are whole up to their last row either way).
    let mut asked = false;
    let _ = ctrlc::set_handler(move || {
        if asked {
            std::process::exit(130);
        }
        asked = true;
        shoal::run::interrupt();
        children::forward_stop();
    });
    match execute(cli.command, cli.threads) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Mesa's Vulkan driver prints "error: XDG_RUNTIME_DIR is invalid or not set" on every device it
/// opens where the variable is missing (containers, cron, CI), which reads like Shoal's own
/// errors. Without one, the process takes a private folder of the user's (kept and reused), set
/// before any thread starts.
fn private_runtime_dir() {
    if std::env::var_os("XDG_RUNTIME_DIR").is_some_and(|d| std::path::Path::new(&d).is_dir()) {
        return;
    }
    let user = std::env::var("USER")
        .or_else(|_| std::env::var("LOGNAME"))
        .unwrap_or_else(|_| "default".into());
    let dir = std::env::temp_dir().join(format!("shoal-runtime-{user}"));
    let made = std::fs::create_dir_all(&dir).is_ok() && {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).is_ok()
        }
        #[cfg(not(unix))]
        true
    };
    if made {
        // SAFETY: called first thing in main, before any other thread exists.
        unsafe { std::env::set_var("XDG_RUNTIME_DIR", &dir) };
    }
}

fn execute(command: Command, threads: Option<u32>) -> shoal::Result<()> {
    match command {
        Command::Info { models: true } => {
            print!("{}", shoal::models_table());
            Ok(())
        }
        Command::Info { models: false } => {
            match shoal::describe_adapter() {
                Ok(adapter) => println!("{adapter}"),
                Err(e) => println!("no GPU adapter: {e}"),
            }
            let (backend, why) = shoal::choose_backend();
            let name = match backend {
                shoal::Backend::Gpu => "--backend gpu",
                shoal::Backend::Cpu => "--backend cpu",
                shoal::Backend::Reference => "--backend reference",
            };
            println!("a run without --backend takes {name} ({why})");
            Ok(())
        }
        Command::Validate { scene } => {
            let scene = Scene::from_file(&scene)?;
            let checked = check(&scene)?;
            println!("{}", describe(&scene, &checked));
            // What each backend would meet on this machine (the CPU's memory was checked above).
            match shoal::gpu_fit(&scene) {
                Ok(adapter) => println!("# gpu: fits {adapter}"),
                Err(e) => println!("# gpu: cannot run it on this machine: {e}; --backend cpu can"),
            }
            Ok(())
        }
        Command::Run(args) => run(args),
        Command::Resume(args) => resume(args),
        Command::Batch(args) => batch(args, threads),
    }
}

/// Checks a scene as `validate` and `run --dry-run` do, its notes on stderr.
fn check(scene: &Scene) -> shoal::Result<shoal::Checked> {
    let checked = shoal::Simulation::check(scene)?;
    for note in &checked.notes {
        eprintln!("note: {note}");
    }
    Ok(checked)
}

fn run(args: RunArgs) -> shoal::Result<()> {
    let mut scene = match &args.scene {
        Some(path) => Scene::from_file(path)?,
        None => Scene::builtin_default(),
    };
    if args.dry_run {
        scene.time.steps = args.steps.unwrap_or(scene.time.steps);
        let checked = check(&scene)?;
        print!("{}", checked.scene_toml);
        println!("# {}", describe(&scene, &checked));
        print!("{}", checked.schedule);
        return Ok(());
    }
    let options = shoal::run::RunOptions {
        steps: args.steps,
        force: args.force,
        png: args.png,
        gif: args.gif,
        caustics: args.caustics,
        geotiff: args.geotiff,
        exr: args.exr,
        checkpoint_every: args.checkpoint_every,
        profile: args.profile,
        velocity: args.velocity,
        depth: args.depth,
        netcdf: args.netcdf,
    };
    let mut progress = Progress::new(args.quiet);
    let summary = shoal::run::run(&scene, &args.out, backend(args.backend), &options, &mut progress);
    progress.finish();
    if let Ok(Some(profile)) = summary.as_ref().map(|s| s.profile.as_ref()) {
        print!("{profile}");
    }
    finish(args.quiet, &scene.name, summary)
}

fn resume(args: ResumeArgs) -> shoal::Result<()> {
    let mut progress = Progress::new(args.quiet);
    let outputs = shoal::run::RunOptions {
        png: args.png,
        geotiff: args.geotiff,
        exr: args.exr,
        velocity: args.velocity,
        depth: args.depth,
        netcdf: args.netcdf,
        ..Default::default()
    };
    let summary = shoal::run::resume(&args.dir, backend(args.backend), args.steps, &outputs, &mut progress);
    progress.finish();
    let name = summary.as_ref().map_or(String::new(), |s| s.name.clone());
    finish(args.quiet, &name, summary)
}

/// The closing summary of a run, unless quiet.
fn finish(quiet: bool, name: &str, summary: shoal::Result<shoal::run::RunSummary>) -> shoal::Result<()> {
    let summary = summary?;
    if !quiet {
        summarise(name, &summary);
    }
    Ok(())
}

fn batch(args: BatchArgs, threads: Option<u32>) -> shoal::Result<()> {
    let sweep = shoal::batch::Sweep::from_file(&args.sweep)?;
    if args.list {
        for (k, run) in sweep.runs.iter().enumerate() {
            println!("{k}\t{}", run.name);
        }
        return Ok(());
    }
    if args.summary {
        return shoal::batch::summarise(&sweep);
    }
    if args.only.is_none() {
        // Every run in a process of its own (this program with --only), so an abort or a crash
        // in one is that run's failure.
        let mut passed = vec!["--child".to_string()];
        passed.extend(args.force.then(|| "--force".to_string()));
        passed.extend(args.quiet.then(|| "--quiet".to_string()));
        if let Some(n) = threads {
            passed.extend(["--threads".to_string(), n.to_string()]);
        }
        let (failed, done, stopped) = children::run_each(&sweep, &args.sweep, &passed, args.force)?;
        if stopped {
            eprintln!(
                "error: the sweep was stopped ({failed} of the {done} runs started did not finish, see {}/summary.csv); \
                 `shoal batch` again resumes the interrupted run from its checkpoint and runs those not done",
                sweep.out.display()
            );
            std::process::exit(130);
        }
        if failed > 0 {
            return Err(shoal::Error::SweepFailed {
                failed,
                total: done,
                out: sweep.out,
            });
        }
        return Ok(());
    }
    let mut progress = Progress::new(args.quiet);
    let outcomes = shoal::batch::run(&sweep, args.only, args.force, &mut progress);
    progress.finish();
    let outcomes = outcomes?;
    let failed = outcomes.iter().filter(|o| o.result.is_err()).count();
    if !args.quiet {
        for o in &outcomes {
            if let Ok(s) = &o.result {
                summarise(&o.name, s);
            }
        }
    }
    if failed > 0 && args.child {
        std::process::exit(1);
    }
    if failed > 0 {
        return Err(shoal::Error::SweepFailed {
            failed,
            total: outcomes.len(),
            out: sweep.out,
        });
    }
    Ok(())
}

/// The backend `--backend` names; `auto` asks `shoal::choose_backend` and says on stderr when it
/// picks the CPU.
fn backend(arg: BackendArg) -> Backend {
    match arg {
        BackendArg::Auto => {
            let (backend, why) = shoal::choose_backend();
            if backend != Backend::Gpu {
                eprintln!("note: {why}");
            }
            backend
        }
        BackendArg::Gpu => Backend::Gpu,
        BackendArg::Cpu => Backend::Cpu,
        BackendArg::Reference => Backend::Reference,
    }
}

/// Steps per second as people write them: 3 significant figures, with k or M.
fn rate(steps: u64, seconds: f64) -> String {
    let r = steps as f64 / seconds.max(1e-9);
    let (value, unit) = match r {
        r if r >= 1e6 => (r / 1e6, "M "),
        r if r >= 1e4 => (r / 1e3, "k "),
        r => (r, ""),
    };
    let digits = if value >= 100.0 {
        0
    } else if value >= 10.0 {
        1
    } else {
        2
    };
    format!("{value:.digits$} {unit}steps/s")
}

/// The closing line of a run: the water at the end in m³, how far it moved from the start (which
/// sources, rain and drains move on purpose), and how far it ended from what the run's books say
/// it should hold (the error; open and river sides move water the books do not follow).
fn summarise(name: &str, summary: &shoal::run::RunSummary) {
    let relative = |a: f64, b: f64| if b > 0.0 { (a - b) / b } else { 0.0 };
    // Plain digits where a reader reads them at a glance, powers of ten past them.
    let water = match summary.final_volume {
        v if (1e-2..1e7).contains(&v) => format!("{v:.4}"),
        v => format!("{v:.4e}"),
    };
    eprintln!(
        "ran \"{}\": {} steps ({} substep{}) in {:.2} s ({}) on {}; water {} m³, {:+.2e} of the start's, \
         {:+.2e} off its target (relative); wrote {}",
        name,
        summary.steps,
        summary.substeps,
        if summary.substeps == 1 { "" } else { "s" },
        summary.seconds,
        rate(summary.steps, summary.seconds),
        summary.backend,
        water,
        relative(summary.final_volume, summary.initial_volume),
        summary.volume_error(),
        summary.out.display()
    );
}

/// One line on what a checked scene is and takes.
fn describe(scene: &Scene, checked: &shoal::Checked) -> String {
    format!(
        "scene \"{}\" is valid: {}×{} cells of {} m, {} steps of {} s ({} substep{} each), {}; \
         the GPU backend needs about {:.1} MiB",
        scene.name,
        scene.grid.nx,
        scene.grid.ny,
        scene.grid.dx,
        scene.time.steps,
        scene.time.dt,
        checked.substeps,
        if checked.substeps == 1 { "" } else { "s" },
        // The scene's own words (SCENE.md's keys), not Rust's names.
        match (scene.physics.model, scene.physics.solver) {
            (shoal::scene::WaterModel::HeightField, shoal::scene::Method::Explicit) =>
                "solver \"explicit\"".to_string(),
            (shoal::scene::WaterModel::HeightField, shoal::scene::Method::Adi) => "solver \"adi\"".to_string(),
            (model, _) => format!("model \"{}\"", shoal::low_level::models::of(model).key()),
        },
        checked.gpu_bytes as f64 / (1024.0 * 1024.0)
    )
}

/// Progress on stderr: a bar with steps/s and the time left on a terminal, a plain line every 10 %
/// otherwise (logs, CI), nothing with --quiet. Notes go above the bar.
struct Progress {
    quiet: bool,
    bar: Option<indicatif::ProgressBar>,
    next_line: u64,
    /// Where this process began stepping, and when.
    first: u64,
    started: std::time::Instant,
}

impl Progress {
    fn new(quiet: bool) -> Progress {
        Progress {
            quiet,
            bar: None,
            next_line: 0,
            first: 0,
            started: std::time::Instant::now(),
        }
    }

    fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

impl shoal::run::Reporter for Progress {
    fn note(&mut self, line: &str) {
        match &self.bar {
            Some(bar) => bar.println(line),
            None => eprintln!("{line}"),
        }
    }

    fn start(&mut self, step: u64, steps: u64) {
        self.first = step;
        self.next_line = step + (steps / 10).max(1);
        self.started = std::time::Instant::now();
    }

    fn progress(&mut self, step: u64, steps: u64) {
        if self.quiet {
            return;
        }
        if std::io::stderr().is_terminal() {
            let bar = self.bar.get_or_insert_with(|| {
                let bar = indicatif::ProgressBar::new(steps).with_position(self.first);
                bar.reset_eta();
                if let Ok(style) = indicatif::ProgressStyle::with_template(
                    "{elapsed_precise} [{bar:40}] {pos}/{len} steps, {msg}, {eta} left",
                ) {
                    bar.set_style(style.progress_chars("=> "));
                }
                bar
            });
            bar.set_position(step);
            bar.set_message(rate(step - self.first, self.started.elapsed().as_secs_f64()));
        } else if step >= self.next_line || step == steps {
            eprintln!(
                "step {step}/{steps} ({:.0} %), {}",
                100.0 * step as f64 / steps.max(1) as f64,
                rate(step - self.first, self.started.elapsed().as_secs_f64())
            );
            // The next line at the next whole tenth of the run.
            let tenth = (steps / 10).max(1);
            self.next_line = (step / tenth + 1) * tenth;
        }
    }
}
