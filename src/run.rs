//! `shoal run`: a scene into an output folder — stats.csv, probes.csv, bodies.csv, h_NNNNNN.npy,
//! particles_NNNNNN.npy (spray), foam_NNNNNN.npy, markers_NNNNNN.npy, velocity_ and
//! pressure_NNNNNN.npy (the Navier-Stokes layer), scene.toml,
//! and on request frame_NNNNNN.png and an animated GIF. Every file is written under a temporary
//! name and renamed, and nothing non-finite is written.

use crate::error::{Error, Result};
use crate::io::csv::{Cell, CsvWriter};
use crate::io::{atomic, npy};
use crate::scene::Scene;
use crate::simulation::{Backend, Simulation};
use std::path::{Path, PathBuf};

/// How a run went.
#[derive(Clone, Debug)]
pub struct RunSummary {
    /// The scene's name.
    pub name: String,
    /// Steps run.
    pub steps: u64,
    /// Substeps per step at the end.
    pub substeps: u32,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// The backend in words.
    pub backend: String,
    /// The output folder.
    pub out: PathBuf,
    /// Water volume at step 0, m³.
    pub initial_volume: f64,
    /// Water volume at the end, m³.
    pub final_volume: f64,
    /// The volume the water should hold at the end (m³, `Simulation::target_volume`).
    pub target_volume: f64,
    /// The GPU's time per pass and the wall clock of stepping, when the run was profiled.
    pub profile: Option<crate::engine::gpu::profile::Profile>,
}

impl RunSummary {
    /// (final − target) / target: how far the water ended from what it should hold.
    pub fn volume_error(&self) -> f64 {
        if self.target_volume > 0.0 {
            (self.final_volume - self.target_volume) / self.target_volume
        } else {
            0.0
        }
    }
}

/// The steps at which h snapshots and stats rows are written: 0, every `every`, and the last.
pub fn output_steps(every: u64, steps: u64) -> impl Iterator<Item = u64> {
    let mut next = Some(0u64);
    std::iter::from_fn(move || {
        let s = next?;
        next = if s >= steps {
            None
        } else {
            // every = 0: only step 0 and the last.
            Some(
                s.checked_div(every)
                    .map_or(steps, |k| (k + 1).saturating_mul(every).min(steps)),
            )
        };
        Some(s)
    })
}

/// The steps at which a run of `steps` steps of `dt` seconds writes its snapshots and stats.csv
/// rows: step 0, the first step whose time reaches each multiple of `output.every_seconds` where
/// it is given (else every `output.every` steps), and the last.
pub fn snapshot_steps(output: &crate::scene::Output, dt: f64, steps: u64) -> Vec<u64> {
    let Some(interval) = output.every_seconds else {
        return output_steps(output.every, steps).collect();
    };
    let mut out = vec![0];
    for k in 1u64.. {
        // The first step at or past k·interval; a relative 1e-9 keeps 0.3 / 0.1 from rounding up
        // to step 4 (k·interval / dt, as floats, lands a hair past a whole step).
        let at = (k as f64 * interval / dt * (1.0 - 1e-9)).ceil().max(1.0);
        if at >= steps as f64 {
            break;
        }
        let step = at as u64;
        if out.last() != Some(&step) {
            out.push(step);
        }
    }
    if out.last() != Some(&steps) {
        out.push(steps);
    }
    out
}

/// What a run does beside stepping its scene.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Steps to run (overrides time.steps).
    pub steps: Option<u64>,
    /// Write into a folder that already holds files (they may be overwritten).
    pub force: bool,
    /// Write frame_NNNNNN.png beside each h snapshot.
    pub png: bool,
    /// Write the frames as one animated GIF here.
    pub gif: Option<PathBuf>,
    /// Write caustics_NNNNNN.png beside each h snapshot (`cpu::caustics::ground_light`).
    pub caustics: bool,
    /// Write h_NNNNNN.tif beside each h snapshot: the surface as a float32 GeoTIFF, north up,
    /// georeferenced like the scene's DEM (`terrain.geotiff`), else in the scene's metres.
    pub geotiff: bool,
    /// Write h_NNNNNN.exr beside each h snapshot: the surface, depth and ground as the channels
    /// h, d and b of a float32 OpenEXR, north up.
    pub exr: bool,
    /// Write checkpoint.bin (the whole state) every this many steps (over the scene's
    /// `output.checkpoint_every`).
    pub checkpoint_every: Option<u64>,
    /// Time each GPU pass with timestamps, and the wall clock of stepping (`--profile`).
    pub profile: bool,
    /// Write u_NNNNNN.npy and v_NNNNNN.npy beside each h snapshot: the depth-averaged velocity
    /// (m/s, 0 where dry), on models with a velocity (`--velocity`).
    pub velocity: bool,
    /// Write d_NNNNNN.npy beside each h snapshot: the water's depth h − b (m, 0 where dry; the
    /// top water's over its column's top floor on the pipes), and d_NNNNNN.tif with `geotiff`
    /// (`--depth`).
    pub depth: bool,
    /// Write DIR/output.nc: every snapshot as a record of one CF-1.8 NetCDF file (h, depth, the
    /// velocity on models with one), with the ground, the flood maps and the DEM's coordinate
    /// system (`--netcdf`).
    pub netcdf: bool,
}

/// The checkpoint a run keeps in its output folder (the latest only).
pub const CHECKPOINT: &str = "checkpoint.bin";

static INTERRUPTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Asks a running `run` or `resume` to stop at the end of its current chunk: it finishes the file
/// it is writing, writes a checkpoint and fails with `Error::Interrupted`. For a Ctrl-C handler.
pub fn interrupt() {
    INTERRUPTED.store(true, std::sync::atomic::Ordering::SeqCst);
}

/// Where a run tells its user what happens: notes (stderr in the CLI) and progress.
pub trait Reporter {
    /// A message for the user.
    fn note(&mut self, line: &str);
    /// The run starts at `step` (0, or where a resume picks up) and ends at `steps`.
    fn start(&mut self, _step: u64, _steps: u64) {}
    /// `step` of `steps` are done.
    fn progress(&mut self, _step: u64, _steps: u64) {}
}

impl<F: FnMut(&str)> Reporter for F {
    fn note(&mut self, line: &str) {
        self(line)
    }
}

/// Makes sure `out` is a folder we can write into, and unless `force`, an empty one: a second
/// run must not quietly mix its files with (or overwrite) a first run's.
pub fn prepare_output(out: &Path, force: bool) -> Result<()> {
    let fail = |message: String| {
        Err(Error::Output {
            path: out.to_path_buf(),
            message,
        })
    };
    if out.exists() && !out.is_dir() {
        return fail("exists and is not a folder".into());
    }
    if !force {
        if let Some(first) = std::fs::read_dir(out).ok().and_then(|mut entries| entries.next()) {
            let name = first
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .unwrap_or_default();
            return fail(format!(
                "is not empty (it holds {name}, perhaps from an earlier run): choose another --out, or add \
                 --force to write into it"
            ));
        }
    }
    if let Err(e) = std::fs::create_dir_all(out) {
        return fail(format!("cannot be created: {e}"));
    }
    if force {
        // What this run will own goes, so an older, longer run's snapshots and checkpoint do
        // not stay mixed with its own; other files stay.
        remove_run_files(out).map_err(|e| Error::io(out, e))?;
    }
    if let Err(e) = tempfile::tempfile_in(out) {
        return fail(format!("is not writable: {e}"));
    }
    Ok(())
}

/// Whether `name` is a file a run writes into its folder (or a temporary one it left).
fn is_run_file(name: &str) -> bool {
    const TABLES: [&str; 9] = [
        crate::io::netcdf::FILE,
        "stats.csv",
        "probes.csv",
        "gauges.csv",
        "sections.csv",
        "bodies.csv",
        "scene.toml",
        CHECKPOINT,
        "run.csv",
    ];
    const MAPS: [&str; 6] = [
        "max_depth",
        "max_surface",
        "first_wet",
        "time_wet",
        "max_speed",
        "max_hazard",
    ];
    const SNAPSHOTS: [&str; 11] = [
        "h_",
        "d_",
        "u_",
        "v_",
        "frame_",
        "caustics_",
        "particles_",
        "markers_",
        "foam_",
        "velocity_",
        "pressure_",
    ];
    let numbered = |prefix: &str| {
        name.strip_prefix(prefix)
            .is_some_and(|rest| rest.len() > 6 && rest[..6].bytes().all(|b| b.is_ascii_digit()))
    };
    TABLES.contains(&name)
        || MAPS
            .iter()
            .any(|m| name == format!("{m}.npy") || name == format!("{m}.tif"))
        || SNAPSHOTS.iter().any(|p| numbered(p))
        || (name.starts_with(".shoal-") && name.ends_with(".tmp"))
}

/// Removes the files a run writes (and temporary files a killed one left) from `out`.
fn remove_run_files(out: &Path) -> std::io::Result<()> {
    for entry in std::fs::read_dir(out)? {
        let entry = entry?;
        if entry.file_type()?.is_file() && is_run_file(&entry.file_name().to_string_lossy()) {
            std::fs::remove_file(entry.path())?;
        }
    }
    Ok(())
}

/// Removes the temporary files a killed run left in `out` (`.shoal-*.tmp`).
fn remove_stale_temporaries(out: &Path) -> std::io::Result<()> {
    for entry in std::fs::read_dir(out)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with(".shoal-") && name.ends_with(".tmp") {
            std::fs::remove_file(entry.path())?;
        }
    }
    Ok(())
}

/// Runs `scene` on `backend` into `out`, telling `report` what happens: what `shoal run` does.
///
/// ```no_run
/// use shoal::run::{run, Reporter, RunOptions};
/// struct Quiet;
/// impl Reporter for Quiet {
///     fn note(&mut self, line: &str) {
///         eprintln!("{line}");
///     }
/// }
/// let scene = shoal::Scene::from_file("scenes/beach.toml".as_ref())?;
/// let options = RunOptions { force: true, ..Default::default() };
/// let summary = run(&scene, "out/beach".as_ref(), shoal::Backend::Gpu, &options, &mut Quiet)?;
/// println!("{} steps, volume error {:.2e}", summary.steps, summary.volume_error());
/// # Ok::<(), shoal::Error>(())
/// ```
pub fn run(
    scene: &Scene,
    out: &Path,
    backend: Backend,
    options: &RunOptions,
    report: &mut dyn Reporter,
) -> Result<RunSummary> {
    if options.velocity {
        crate::models::require(scene.physics.model, crate::models::Feature::Velocities, "--velocity")?;
    }
    prepare_output(out, options.force)?;
    // The written scene.toml says how many steps ran, so it reproduces this run.
    let mut scene = scene.clone();
    scene.time.steps = options.steps.unwrap_or(scene.time.steps);
    if options.checkpoint_every.is_some() {
        scene.output.checkpoint_every = options.checkpoint_every;
    }
    let mut sim = Simulation::new(&scene, backend)?;
    // Written first as well, so that a run killed outright can still be resumed from its
    // checkpoints.
    atomic::write_bytes(&out.join("scene.toml"), sim.resolved_scene_toml().as_bytes())?;
    let result = run_into(&mut sim, out, scene.time.steps, options, report);
    // The scene as run is written even when the run failed: it says what was attempted.
    atomic::write_bytes(&out.join("scene.toml"), sim.resolved_scene_toml().as_bytes())?;
    result
}

/// The frames of `--png`, `--gif` and `--caustics`, drawn with one palette, and the height maps
/// of `--geotiff` (with its map frame) and `--exr`.
struct Frames {
    png: bool,
    caustics: bool,
    gif: Option<crate::io::picture::GifWriter>,
    palette: Option<crate::io::picture::Palette>,
    geotiff: Option<Georeference>,
    exr: bool,
    /// `--velocity`: u_NNNNNN.npy and v_NNNNNN.npy.
    velocity: bool,
    /// `--depth`: d_NNNNNN.npy (and .tif with `--geotiff`).
    depth: bool,
    /// `--netcdf`: output.nc, and the run's snapshot steps (a record's index is its step's place).
    netcdf: Option<(crate::io::netcdf::Stack, Vec<u64>)>,
}

/// Where `--geotiff`'s rasters lie on the map: the pixel's size along x and y and the map point of
/// the north-west corner.
#[derive(Clone, Debug)]
struct Georeference {
    frame: std::sync::Arc<crate::io::geotiff::Frame>,
    /// The cells the DEM has no data for (`fields::dem_void`, the grid's order): nodata in every
    /// raster, not the wall's height (issue 52).
    void: Option<std::sync::Arc<Vec<bool>>>,
}

/// The nodata value of a raster on a DEM with void cells, where the raster has none of its own.
pub const VOID: f64 = -9999.0;

impl Georeference {
    /// Writes a row-major `[ny, nx]` field (its first row the south edge) as a float32 GeoTIFF,
    /// north up, in this frame.
    fn write(&self, path: &Path, nx: usize, ny: usize, field: &[f32], nodata: Option<f64>) -> Result<()> {
        let nodata = match (&self.void, nodata) {
            (Some(_), None) => Some(VOID),
            _ => nodata,
        };
        let value = |c: usize| match (&self.void, nodata) {
            (Some(void), Some(n)) if void[c] => n as f32,
            _ => field[c],
        };
        let north_up: Vec<f32> = (0..ny).rev().flat_map(|j| (j * nx..(j + 1) * nx).map(value)).collect();
        crate::io::geotiff::write(path, nx, ny, &north_up, &self.frame, nodata)
    }

    /// The DEM's frame, stretched over the grid as the terrain was (a pixel is the DEM's extent
    /// over the cells), or the scene's metres with the north-west corner at (0, ny·dx).
    /// The DEM's coordinate system (its GeoKeys) goes with it: `gdalwarp` and QGIS reproject the
    /// outputs as they do the DEM (issue 52: they came back as `LOCAL_CS["unnamed"]`).
    fn of(scene: &Scene) -> Georeference {
        let g = scene.grid;
        let void = crate::scene::dem_void(scene).map(std::sync::Arc::new);
        let frame = |pixel, origin, keys| Georeference {
            frame: std::sync::Arc::new(crate::io::geotiff::Frame { pixel, origin, keys }),
            void: void.clone(),
        };
        let local = frame([g.dx, g.dx], [0.0, g.ny as f64 * g.dx], None);
        let Some(dem) = &scene.terrain.geotiff else {
            return local;
        };
        let path = scene.resolve_path(dem);
        match crate::io::geotiff::read_header(&path) {
            Ok(crate::io::geotiff::DemHeader {
                width,
                height,
                pixel: Some([sx, sy]),
                origin: Some(origin),
            }) => frame(
                [sx * width as f64 / g.nx as f64, sy * height as f64 / g.ny as f64],
                origin,
                crate::io::geotiff::read_geokeys(&path).ok().flatten(),
            ),
            _ => local,
        }
    }
}

impl Frames {
    fn new(options: &RunOptions, scene: &Scene) -> Result<Frames> {
        let (dt, every) = (scene.time.dt, scene.output.every);
        // The GIF plays at the simulated speed, within what viewers show (20 ms to 1 s a frame).
        let interval = scene.output.every_seconds.unwrap_or(dt * every.max(1) as f64);
        let delay_ms = (interval * 1000.0).clamp(20.0, 1000.0) as u32;
        Ok(Frames {
            png: options.png,
            caustics: options.caustics,
            gif: options
                .gif
                .as_deref()
                .map(|path| crate::io::picture::GifWriter::create(path, delay_ms))
                .transpose()?,
            palette: None,
            geotiff: options.geotiff.then(|| Georeference::of(scene)),
            exr: options.exr,
            velocity: options.velocity,
            depth: options.depth,
            netcdf: None,
        })
    }

    /// The height maps of `step`: h_NNNNNN.tif (the surface, north up) and h_NNNNNN.exr (R = G = B
    /// = h, and h, d, b).
    fn write_heights(&self, sim: &Simulation, surface: &[f32], out: &Path, step: u64) -> Result<()> {
        let grid = &sim.scene().grid;
        let (nx, ny) = (grid.nx as usize, grid.ny as usize);
        if let Some(g) = &self.geotiff {
            g.write(&out.join(format!("h_{step:06}.tif")), nx, ny, surface, None)?;
        }
        if self.depth {
            let depth = depth_of(sim, surface);
            crate::io::npy::write_f32_2d(&out.join(format!("d_{step:06}.npy")), ny, nx, &depth)?;
            if let Some(g) = &self.geotiff {
                g.write(&out.join(format!("d_{step:06}.tif")), nx, ny, &depth, None)?;
            }
        }
        if self.exr {
            let ground: Vec<f32> = sim.ground().iter().map(|&b| b as f32).collect();
            let stamp = crate::io::exr::Stamp {
                dx: grid.dx,
                time: step as f64 * sim.scene().time.dt,
                step,
            };
            crate::io::exr::write_height(&out.join(format!("h_{step:06}.exr")), (nx, ny), surface, &ground, stamp)?;
        }
        Ok(())
    }

    /// With `--png`, a 2D marker run's side view at `step` (`markers_NNNNNN.png`): the tank
    /// from the south, the markers over the ground's profile.
    fn draw_markers(&self, sim: &Simulation, markers: &[[f32; 3]], out: &Path, step: u64) -> Result<()> {
        let Some((bottom, top)) = sim.layer_extent().filter(|_| self.png) else {
            return Ok(());
        };
        let grid = &sim.scene().grid;
        let profile = &sim.ground()[..grid.nx as usize];
        let img = crate::io::picture::markers_side(markers, profile, grid.dx, bottom, top);
        crate::io::picture::write_png(&out.join(format!("markers_{step:06}.png")), &img)
    }

    /// The frames of `step`: the surface, with `foam` and `particles` (the spray) drawn over it.
    fn draw(
        &mut self,
        sim: &Simulation,
        surface: &[f64],
        particles: &[[f32; 7]],
        foam: &[[f32; 4]],
        out: &Path,
        step: u64,
    ) -> Result<()> {
        let grid = &sim.scene().grid;
        if self.caustics {
            let tops = sim.body_tops();
            let light =
                crate::engine::cpu::caustics::ground_light(surface, sim.ground(), &tops, sim.reference_level(), grid);
            let img = crate::io::picture::caustics(&light, grid.nx as usize, grid.ny as usize);
            crate::io::picture::write_png(&out.join(format!("caustics_{step:06}.png")), &img)?;
        }
        if !self.png && self.gif.is_none() {
            return Ok(());
        }
        // The palette is the first frame's; a scene that starts dry takes the first with water.
        if self.palette.is_none_or(|p| p.is_dry()) {
            self.palette = Some(crate::io::picture::Palette::new(surface, sim.ground()));
        }
        let palette = self.palette.expect("set above");
        let (nx, ny) = (grid.nx as usize, grid.ny as usize);
        let mut img = crate::io::picture::render(surface, sim.ground(), &sim.body_tops(), nx, ny, grid.dx, &palette);
        crate::io::picture::draw_foam(&mut img, foam, grid.dx);
        crate::io::picture::draw_spray(&mut img, particles, grid.dx);
        if self.png {
            crate::io::picture::write_png(&out.join(format!("frame_{step:06}.png")), &img)?;
        }
        match self.gif.as_mut() {
            Some(gif) => gif.add(&img),
            None => Ok(()),
        }
    }

    fn finish(self) -> Result<()> {
        self.gif.map_or(Ok(()), |gif| gif.finish())
    }
}

/// The water's depth under the f32 `surface` (as the EXR's d, and 0 where dry).
fn depth_of(sim: &Simulation, surface: &[f32]) -> Vec<f32> {
    surface
        .iter()
        .zip(sim.ground())
        .map(|(&h, &b)| (h - b as f32).max(0.0))
        .collect()
}

/// output.nc's layout for `sim`'s run: its grid, the cell centres on the `--geotiff` frame (the
/// DEM's map coordinates, else the scene's metres), the DEM's coordinate system where the file
/// can name it (else a note says why not), the velocity where the model has one and the flood
/// maps the scene keeps.
fn netcdf_layout(sim: &mut Simulation, report: &mut dyn Reporter) -> Result<crate::io::netcdf::Layout> {
    let scene = sim.scene().clone();
    let (nx, ny) = (scene.grid.nx as usize, scene.grid.ny as usize);
    let geo = Georeference::of(&scene);
    let f = &geo.frame;
    let crs = match (&f.keys, &scene.terrain.geotiff) {
        (Some(keys), _) => match crate::io::netcdf::Crs::of_geokeys(keys) {
            Ok(crs) => Some(crs),
            Err(why) => {
                report.note(&format!(
                    "note: --netcdf: {why}; output.nc carries the DEM's map coordinates without a coordinate system"
                ));
                None
            }
        },
        (None, Some(_)) => {
            report.note("note: --netcdf: the DEM names no coordinate system; output.nc has its map coordinates alone");
            None
        }
        (None, None) => None,
    };
    let maps = match sim.summary()? {
        Some(maps) => maps
            .named()
            .into_iter()
            .map(|(name, _)| {
                (
                    name.to_string(),
                    (name == "first_wet").then_some(crate::summary::NEVER_WET_TIME),
                )
            })
            .collect(),
        None => Vec::new(),
    };
    Ok(crate::io::netcdf::Layout {
        nx,
        ny,
        // Cell centres; the frame's origin is the north-west corner and row 0 the south edge.
        x: (0..nx).map(|i| f.origin[0] + (i as f64 + 0.5) * f.pixel[0]).collect(),
        y: (0..ny)
            .map(|j| f.origin[1] - (ny as f64 - j as f64 - 0.5) * f.pixel[1])
            .collect(),
        crs,
        velocity: crate::models::of(scene.physics.model).takes(crate::models::Feature::Velocities),
        maps,
        void: geo.void.clone(),
    })
}

/// Appends the snapshot at `step` (its f32 surface `h`, its velocity planes `uv` where the
/// model has one) to output.nc, with the depth and the flood maps so far.
fn append_netcdf(
    sim: &mut Simulation,
    frames: &mut Frames,
    h: &[f32],
    uv: Option<&[Vec<f32>; 2]>,
    step: u64,
) -> Result<()> {
    let Some((stack, steps)) = frames.netcdf.as_mut() else {
        return Ok(());
    };
    let Ok(index) = steps.binary_search(&step) else {
        return Ok(());
    };
    let depth = depth_of(sim, h);
    let summary = sim.summary()?;
    let maps: Vec<&[f32]> = summary
        .as_ref()
        .map(|m| m.named().into_iter().map(|(_, map)| map).collect())
        .unwrap_or_default();
    stack.append(
        index,
        &crate::io::netcdf::Record {
            step,
            time: step as f64 * sim.scene().time.dt,
            h,
            depth: &depth,
            uv: uv.map(|[u, v]| (&u[..], &v[..])),
            maps: &maps,
        },
    )
}

/// The flood maps so far (`[output] summary`), as max_depth, max_surface, first_wet and
/// time_wet `.npy` (and `.tif` with `--geotiff`; first_wet's −1, never wet, is its nodata).
fn write_summary(sim: &mut Simulation, out: &Path, geo: Option<Georeference>) -> Result<()> {
    let Some(maps) = sim.summary()? else {
        return Ok(());
    };
    let (nx, ny) = (sim.scene().grid.nx as usize, sim.scene().grid.ny as usize);
    for (name, map) in maps.named() {
        crate::io::npy::write_f32_2d(&out.join(format!("{name}.npy")), ny, nx, map)?;
        if let Some(g) = &geo {
            let nodata = (name == "first_wet").then_some(crate::summary::NEVER_WET_TIME as f64);
            g.write(&out.join(format!("{name}.tif")), nx, ny, map, nodata)?;
        }
    }
    Ok(())
}

/// Keys of scene.toml a resume may change: how long it runs, what it writes and when, and the
/// substeps the engine raises by itself. Everything else is what the checkpoint's state was
/// made by.
const RESUMABLE_KEYS: [&str; 6] = [
    "name",
    "time.steps",
    "time.substeps",
    "output.every",
    "output.every_seconds",
    "output.checkpoint_every",
];

/// Refuses a scene.toml (`path`) that differs from the scene the checkpoint was run with
/// (`as_run`) in a key the state depends on, naming the first such key and both values.
fn unchanged_since(path: &Path, as_run: &str) -> Result<()> {
    fn flatten(prefix: &str, value: &toml::Value, out: &mut std::collections::BTreeMap<String, String>) {
        match value {
            toml::Value::Table(t) => {
                for (k, v) in t {
                    let key = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}.{k}")
                    };
                    flatten(&key, v, out);
                }
            }
            other => {
                out.insert(prefix.to_string(), other.to_string());
            }
        }
    }
    let read = |text: &str| -> Option<std::collections::BTreeMap<String, String>> {
        let value: toml::Value = toml::from_str(text).ok()?;
        let mut keys = std::collections::BTreeMap::new();
        flatten("", &value, &mut keys);
        keys.retain(|k, _| !RESUMABLE_KEYS.contains(&k.as_str()));
        Some(keys)
    };
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let (Some(now), Some(then)) = (read(&text), read(as_run)) else {
        return Ok(());
    };
    let changed = now
        .keys()
        .chain(then.keys())
        .find(|k| now.get(*k) != then.get(*k))
        .cloned();
    match changed {
        None => Ok(()),
        Some(key) => {
            let show = |v: Option<&String>| v.map_or("absent".to_string(), String::clone);
            Err(Error::Scene {
                file: path.to_path_buf(),
                line: crate::scene::locate::line_of_key(&text, &key),
                message: format!(
                    "{key}: {} here, {} in the run the checkpoint continues: a resume continues that run, so only \
                     time.steps, output.every, output.every_seconds and output.checkpoint_every may change (start a new run for the rest)",
                    show(now.get(&key)),
                    show(then.get(&key))
                ),
            })
        }
    }
}

/// Continues the run in `out` from its checkpoint up to `steps` (default: the scene's), writing
/// into the same folder: its tables keep their rows up to the checkpoint and go on from there.
/// `outputs` says which snapshot files to go on writing beside h_NNNNNN.npy: `png`, `geotiff`,
/// `exr` (a GIF cannot be continued; its other fields are not read).
pub fn resume(
    out: &Path,
    backend: Backend,
    steps: Option<u64>,
    outputs: &RunOptions,
    report: &mut dyn Reporter,
) -> Result<RunSummary> {
    let mut scene = Scene::from_file(&out.join("scene.toml"))?;
    remove_stale_temporaries(out).map_err(|e| Error::io(out, e))?;
    let path = out.join(CHECKPOINT);
    let checkpoint = crate::engine::checkpoint::Checkpoint::read(&path)?;
    scene.time.steps = steps.unwrap_or(scene.time.steps);
    if scene.time.steps < checkpoint.header.step {
        return Err(Error::Checkpoint {
            path,
            message: format!(
                "it is at step {}, past the {} steps asked for",
                checkpoint.header.step, scene.time.steps
            ),
        });
    }
    let mut sim = Simulation::new(&scene, backend)?;
    sim.restore(&checkpoint, &path)?;
    // After the checkpoint's own checks (its grid, its terrain), what else the scene changed.
    if let Some(as_run) = &checkpoint.header.scene {
        unchanged_since(&out.join("scene.toml"), as_run)?;
    }
    report.note(&format!(
        "resuming {} at step {} of {}",
        out.display(),
        checkpoint.header.step,
        scene.time.steps
    ));
    let options = RunOptions {
        png: outputs.png,
        geotiff: outputs.geotiff,
        exr: outputs.exr,
        velocity: outputs.velocity,
        depth: outputs.depth,
        netcdf: outputs.netcdf,
        ..RunOptions::default()
    };
    if options.velocity {
        crate::models::require(scene.physics.model, crate::models::Feature::Velocities, "--velocity")?;
    }
    let result = run_into(&mut sim, out, scene.time.steps, &options, report);
    atomic::write_bytes(&out.join("scene.toml"), sim.resolved_scene_toml().as_bytes())?;
    result
}

/// The header and the complete rows before `until` (their first field, the step) of a table an
/// earlier run wrote, to go on from.
fn kept_rows(path: &Path, until: u64) -> Result<Vec<String>> {
    let mut lines = crate::io::csv::complete_lines(path)?.into_iter();
    let header = lines.next();
    let rows = lines.take_while(|row| {
        row.split(',')
            .next()
            .and_then(|s| s.parse::<u64>().ok())
            .is_some_and(|s| s < until)
    });
    Ok(header.into_iter().chain(rows).collect())
}

/// A coupling figure of the last step for stats.csv: empty without bodies (and for a residual
/// the GPU's Jacobi does not measure).
fn coupling(sim: &Simulation, cell: impl Fn(crate::engine::bodies::SolveReport) -> Cell) -> Cell {
    if sim.bodies().is_empty() {
        return Cell::Empty;
    }
    cell(sim.coupling())
}

fn run_into(
    sim: &mut Simulation,
    out: &Path,
    steps: u64,
    options: &RunOptions,
    report: &mut dyn Reporter,
) -> Result<RunSummary> {
    let started = std::time::Instant::now();
    let scene = sim.scene().clone();
    for note in sim.take_notes() {
        report.note(&format!("note: {note}"));
    }
    let mut frames = Frames::new(options, &scene)?;
    if options.profile {
        sim.start_profile();
    }
    let resumed_at = sim.step_index();
    report.start(resumed_at, steps);
    let mut tables = Tables::open(out, sim, resumed_at)?;
    let frames_geo = frames.geotiff.clone();
    tables.geo = frames_geo.clone();
    let mut volumes = (None, 0.0);
    if resumed_at == 0 {
        tables.body_rows(0, sim.bodies())?;
    }
    let outcome = (|| -> Result<()> {
        let due = |t: u64| t == 0 || t > resumed_at || (t == resumed_at && !tables.snapshot_done);
        let all = snapshot_steps(&scene.output, scene.time.dt, steps);
        let targets: Vec<u64> = all.iter().copied().filter(|&t| due(t)).collect();
        if options.netcdf {
            let layout = netcdf_layout(sim, report)?;
            let stack = if resumed_at == 0 {
                crate::io::netcdf::Stack::create(
                    out,
                    layout,
                    &sim.ground().iter().map(|&b| b as f32).collect::<Vec<_>>(),
                )?
            } else {
                // The records of the snapshots this try does not write again stay.
                let kept = all.iter().filter(|&&t| t > 0 && !due(t)).count() + 1;
                crate::io::netcdf::Stack::reopen(out, layout, kept)?
            };
            frames.netcdf = Some((stack, all.clone()));
        }
        for target in targets {
            advance_to(sim, target, steps, &mut tables, out, report)?;
            if target == 0 && resumed_at > 0 {
                continue;
            }
            let volume = snapshot(sim, target, &mut tables, &mut frames, out, report)?;
            volumes.0.get_or_insert(volume);
            volumes.1 = volume;
        }
        Ok(())
    })();
    // Keep what was written so far, also when the run failed part-way; the run's own error comes first.
    let finished = tables.finish().and(frames.finish());
    outcome?;
    finished?;
    write_summary(sim, out, frames_geo)?;
    Ok(RunSummary {
        name: scene.name.clone(),
        steps: steps - resumed_at,
        substeps: sim.substeps(),
        seconds: started.elapsed().as_secs_f64(),
        backend: sim.describe_backend(),
        out: out.to_path_buf(),
        initial_volume: volumes.0.unwrap_or(0.0),
        final_volume: volumes.1,
        target_volume: sim.target_volume(),
        profile: sim.profile(),
    })
}

/// Steps `sim` up to `target` in pieces of one chunk, ending at checkpoints: progress between
/// them costs nothing (each chunk ends with its report readback anyway). Writes each step's probe
/// and body rows, and a checkpoint where one is due or the run was interrupted.
fn advance_to(
    sim: &mut Simulation,
    target: u64,
    steps: u64,
    tables: &mut Tables,
    out: &Path,
    report: &mut dyn Reporter,
) -> Result<()> {
    let every_checkpoint = sim.scene().output.checkpoint_every.filter(|&n| n > 0);
    while target > sim.step_index() {
        let at = sim.step_index();
        let next_checkpoint = every_checkpoint.map_or(u64::MAX, |n| (at / n + 1) * n);
        let first = at + 1;
        // One chunk at a time, so a stop request is answered between chunks.
        let rows = sim.step((target.min(next_checkpoint) - at).min(sim.chunk_limit() as u64))?;
        for note in sim.take_notes() {
            report.note(&format!("note: {note}"));
        }
        for (k, row) in rows.iter().enumerate() {
            tables.probe_row(first + k as u64, row)?;
        }
        for (k, row) in sim.take_section_rows().iter().enumerate() {
            tables.section_row(first + k as u64, row)?;
        }
        for (k, row) in sim.take_gauge_rows().iter().enumerate() {
            tables.gauge_rows(first + k as u64, row)?;
        }
        for (k, row) in sim.take_body_samples().iter().enumerate() {
            tables.body_rows(first + k as u64, row)?;
        }
        report.progress(sim.step_index(), steps);
        if sim.step_index() == next_checkpoint {
            tables.save(sim, out)?;
        }
        if INTERRUPTED.swap(false, std::sync::atomic::Ordering::SeqCst) {
            tables.save(sim, out)?;
            return Err(Error::Interrupted {
                step: sim.step_index(),
                checkpoint: Some(out.to_path_buf()),
            });
        }
    }
    Ok(())
}

/// The depth-averaged velocity at `step` as its u and v planes (one readback for `--velocity`
/// and output.nc); None on a model without one; a non-finite value is a divergence.
fn velocity_planes(sim: &mut Simulation, step: u64) -> Result<Option<[Vec<f32>; 2]>> {
    let Some(velocity) = sim.velocity()? else {
        return Ok(None);
    };
    if velocity.iter().flatten().any(|v| !v.is_finite()) {
        return Err(Error::Diverged { step });
    }
    Ok(Some([0, 1].map(|k| velocity.iter().map(|uv| uv[k]).collect())))
}

/// u_NNNNNN.npy and v_NNNNNN.npy at `step`: the depth-averaged velocity, float32 `[ny, nx]`.
fn write_velocity(sim: &Simulation, uv: Option<&[Vec<f32>; 2]>, out: &Path, step: u64) -> Result<()> {
    let Some(planes) = uv else {
        return Err(Error::Unsupported("--velocity: this model has no velocity".into()));
    };
    let grid = sim.scene().grid;
    for (name, field) in ["u", "v"].into_iter().zip(planes) {
        npy::write_f32_2d(
            &out.join(format!("{name}_{step:06}.npy")),
            grid.ny as usize,
            grid.nx as usize,
            field,
        )?;
    }
    Ok(())
}

/// The Navier-Stokes layer's own snapshot files at `target`: its markers (and their picture),
/// its velocity and pressure fields; a non-finite value is a divergence, never written.
fn write_layer(sim: &mut Simulation, frames: &mut Frames, out: &Path, target: u64) -> Result<()> {
    if sim.has_markers() {
        let markers = sim.markers()?;
        if markers.iter().flatten().any(|v| !v.is_finite()) {
            return Err(Error::Diverged { step: target });
        }
        let file = out.join(format!("markers_{target:06}.npy"));
        npy::write_f32_2d(&file, markers.len(), 3, markers.as_flattened())?;
        frames.draw_markers(sim, &markers, out, target)?;
    }
    if let Some(layer) = sim.layer_fields()? {
        let finite = layer
            .velocity
            .iter()
            .flatten()
            .chain(&layer.pressure)
            .all(|v| v.is_finite());
        if !finite {
            return Err(Error::Diverged { step: target });
        }
        let shape = [layer.nz, layer.ny, layer.nx];
        npy::write_nd(
            &out.join(format!("velocity_{target:06}.npy")),
            &[shape[0], shape[1], shape[2], 3],
            layer.velocity.as_flattened(),
        )?;
        npy::write_nd(&out.join(format!("pressure_{target:06}.npy")), &shape, &layer.pressure)?;
    }
    Ok(())
}

/// Writes the snapshot at `target` (h, pictures, the stats row); returns the water's volume.
fn snapshot(
    sim: &mut Simulation,
    target: u64,
    tables: &mut Tables,
    frames: &mut Frames,
    out: &Path,
    report: &mut dyn Reporter,
) -> Result<f64> {
    let surface = sim.surface()?;
    if target == 0 {
        tables.probe_row(0, &sim.probe_heights(&surface))?;
        let discharges = sim.section_discharges(&surface)?;
        tables.section_row(0, &discharges)?;
        if sim.scene().output.gauges {
            let gauges = sim.gauge_values_now()?;
            tables.gauge_rows(0, &gauges)?;
        }
    }
    if let Some(bad) = surface.iter().position(|h| !h.is_finite()) {
        // The GPU flag catches this first; this guard keeps the promise of no NaN on disk.
        report.note(&format!("note: cell {bad} is not finite"));
        return Err(Error::Diverged { step: target });
    }
    let grid = sim.scene().grid;
    let h32: Vec<f32> = surface.iter().map(|&h| h as f32).collect();
    npy::write_f32_2d(
        &out.join(format!("h_{target:06}.npy")),
        grid.ny as usize,
        grid.nx as usize,
        &h32,
    )?;
    frames.write_heights(sim, &h32, out, target)?;
    let uv = match frames.velocity || frames.netcdf.is_some() {
        true => velocity_planes(sim, target)?,
        false => None,
    };
    append_netcdf(sim, frames, &h32, uv.as_ref(), target)?;
    if frames.velocity {
        write_velocity(sim, uv.as_ref(), out, target)?;
    }
    let (particles, foam) = match sim.spray() {
        Some(_) => sim.particles_and_foam()?,
        None => Default::default(),
    };
    if particles
        .iter()
        .flatten()
        .chain(foam.iter().flatten())
        .any(|v| !v.is_finite())
    {
        return Err(Error::Diverged { step: target });
    }
    if sim.spray().is_some() {
        npy::write_f32_2d(
            &out.join(format!("particles_{target:06}.npy")),
            particles.len(),
            7,
            particles.as_flattened(),
        )?;
    }
    if sim.has_foam() {
        npy::write_f32_2d(
            &out.join(format!("foam_{target:06}.npy")),
            foam.len(),
            4,
            foam.as_flattened(),
        )?;
    }
    write_layer(sim, frames, out, target)?;
    frames.draw(sim, &surface, &particles, &foam, out, target)?;
    let s = sim.stats(&surface);
    tables.stats_row(sim, target, &s)?;
    check_volume(sim, target, s.volume)?;
    Ok(s.volume)
}

/// Relative difference between a closed domain's volume and its target past which a height-field
/// or shallow-water run stops (docs/models/height-field.md, *Volume*): their flux forms keep it to rounding (5e-6 over
/// 20,000 steps uncorrected, 1e-7 corrected), so past 1e-3 water is being made or lost.
pub const VOLUME_TOLERANCE: f64 = 1e-3;

/// Stops a run whose water left its target: where every side is a wall or periodic (nothing
/// crosses the boundary uncounted), on the models that keep a target in floats (the pipes check
/// theirs to the unit each chunk; the Navier-Stokes layer's markers keep none).
fn check_volume(sim: &Simulation, step: u64, volume: f64) -> Result<()> {
    let scene = sim.scene();
    let closed = crate::engine::params::sides_are_closed(&scene.boundary.sides().run_by(scene.physics.model));
    let model = scene.physics.model;
    let floats = !matches!(
        model,
        crate::scene::WaterModel::Pipes | crate::scene::WaterModel::NavierStokes
    );
    if !(closed && floats) {
        return Ok(());
    }
    let target = sim.target_volume();
    // A micrometre over the domain covers a target near 0 (a drained basin).
    let floor = 1e-6 * scene.grid.cells() as f64 * scene.grid.dx * scene.grid.dx;
    if (volume - target).abs() <= VOLUME_TOLERANCE * target.abs().max(volume.abs()) + floor {
        return Ok(());
    }
    Err(Error::VolumeParted {
        step,
        volume,
        target,
        why: format!(
            "past the {VOLUME_TOLERANCE:e} a closed domain keeps; physics.volume_correction = \"global\" holds it, \
             and a forcing the water's depth cannot carry (an air-pressure high, a drain) may have made or taken it"
        ),
    })
}

/// A per-step table's row at `step` (time = step·`dt`): the step, the time, then `values`;
/// nothing where the run keeps no such table.
fn step_row(table: Option<&mut CsvWriter>, step: u64, dt: f64, values: &[f64]) -> Result<()> {
    let Some(t) = table else {
        return Ok(());
    };
    let mut cells = vec![Cell::Int(step), Cell::Float(step as f64 * dt)];
    cells.extend(values.iter().map(|&v| Cell::Float(v)));
    t.row(&cells)
}

/// The run's CSV tables: stats.csv always, probes.csv with probes (gauges.csv with `[output]
/// gauges`), sections.csv with discharge lines, bodies.csv with bodies.
struct Tables {
    /// A resumed run: whether the snapshot at the step it resumed from was written (its stats
    /// row, the snapshot's last file, is there).
    snapshot_done: bool,
    /// `--geotiff`'s frame, for the flood maps a checkpoint writes beside it.
    geo: Option<Georeference>,
    dt: f64,
    stats: CsvWriter,
    probes: Option<CsvWriter>,
    /// sections.csv: each `[[output.section]]`'s discharge every step.
    sections: Option<CsvWriter>,
    /// gauges.csv (`[output] gauges`): each probe's surface, depth and velocity every step.
    gauges: Option<CsvWriter>,
    bodies: Option<CsvWriter>,
}

/// The columns of gauges.csv (`[output] gauges`), one row per probe per step: `probe` is its
/// index in file order, h the surface, depth h − b, u and v the depth-averaged velocity (m/s;
/// empty on a model without one).
pub const GAUGES_HEADER: &[&str] = &["step", "time", "probe", "h", "depth", "u", "v"];

/// The columns of stats.csv (SCENE.md), one row per output step.
pub const STATS_HEADER: &[&str] = &[
    "step",
    "time",
    "volume",
    "h_min",
    "h_max",
    "wet_cells",
    "max_depth",
    "substeps",
    "target_volume",
    "regions",
    "coupling_iterations",
    "coupling_residual",
    "particles",
    "particle_volume",
    "infiltrated",
];

/// The columns of bodies.csv (SCENE.md), one row per body per step.
pub const BODIES_HEADER: &[&str] = &[
    "step",
    "time",
    "body",
    "x",
    "y",
    "z",
    "qw",
    "qx",
    "qy",
    "qz",
    "vx",
    "vy",
    "vz",
    "waterline",
    "displaced",
];

/// stats.csv's row at `step` (time = step·`dt`) for the field statistics `s` (`STATS_HEADER`).
pub fn stats_cells(sim: &Simulation, step: u64, dt: f64, s: &crate::simulation::FieldStats) -> Vec<Cell> {
    // With no wet cell there is no wet surface: the fields stay empty rather than NaN.
    let wet_surface = |v: f64| if s.wet_cells == 0 { Cell::Empty } else { Cell::Float(v) };
    vec![
        Cell::Int(step),
        Cell::Float(step as f64 * dt),
        Cell::Float(s.volume),
        wet_surface(s.h_min),
        wet_surface(s.h_max),
        Cell::Int(s.wet_cells),
        Cell::Float(s.max_depth),
        Cell::Int(sim.substeps() as u64),
        Cell::Float(sim.target_volume()),
        sim.regions().map_or(Cell::Empty, |n| Cell::Int(n as u64)),
        coupling(sim, |c| Cell::Int(c.iterations as u64)),
        coupling(sim, |c| match c.residual {
            r if r.is_finite() => Cell::Float(r as f64),
            _ => Cell::Empty,
        }),
        Cell::Int(sim.particle_stats().0 as u64),
        Cell::Float(sim.particle_stats().1),
        sim.infiltrated().map_or(Cell::Empty, Cell::Float),
    ]
}

/// bodies.csv's row for body `k` at `step` (`BODIES_HEADER`); a non-finite pose is a divergence.
pub fn body_cells(step: u64, dt: f64, k: usize, b: &crate::engine::bodies::BodySample) -> Result<Vec<Cell>> {
    let numbers = b.position.iter().chain(&b.orientation).chain(&b.velocity);
    if numbers.clone().any(|v| !v.is_finite()) {
        return Err(Error::Diverged { step });
    }
    let mut cells = vec![Cell::Int(step), Cell::Float(step as f64 * dt), Cell::Int(k as u64)];
    cells.extend(numbers.map(|&v| Cell::Float(v)));
    cells.push(if b.waterline.is_finite() {
        Cell::Float(b.waterline)
    } else {
        Cell::Empty
    });
    cells.push(Cell::Float(b.displaced));
    Ok(cells)
}

impl Tables {
    /// New tables, or the complete rows a resumed run keeps, up to `resumed_at` (the per-step
    /// rows the checkpoint's steps wrote; stats.csv's row there only if the snapshot there was
    /// finished: a run can stop between its checkpoint and its snapshot, which `snapshot_done`
    /// then says is to write again).
    fn open(out: &Path, sim: &Simulation, resumed_at: u64) -> Result<Tables> {
        let table = |name: &str, header: &[&str], until: u64| -> Result<CsvWriter> {
            let path = out.join(name);
            if resumed_at > 0 {
                CsvWriter::continuing(&path, &kept_rows(&path, until)?)
            } else {
                CsvWriter::create(&path, header)
            }
        };
        let per_step = resumed_at + 1;
        let scene = sim.scene();
        let probes = if scene.output.probes.is_empty() {
            None
        } else {
            let mut header = vec!["step", "time"];
            header.extend(scene.output.probes.iter().map(|p| p.name.as_str()));
            Some(table("probes.csv", &header, per_step)?)
        };
        let sections = if scene.output.sections.is_empty() {
            None
        } else {
            let mut header = vec!["step", "time"];
            header.extend(scene.output.sections.iter().map(|s| s.name.as_str()));
            Some(table("sections.csv", &header, per_step)?)
        };
        let bodies = match sim.bodies().is_empty() {
            true => None,
            false => Some(table("bodies.csv", BODIES_HEADER, per_step)?),
        };
        let gauges = match scene.output.gauges {
            true => Some(table("gauges.csv", GAUGES_HEADER, per_step)?),
            false => None,
        };
        Ok(Tables {
            geo: None,
            dt: scene.time.dt,
            stats: table("stats.csv", STATS_HEADER, per_step)?,
            snapshot_done: resumed_at > 0
                && kept_rows(&out.join("stats.csv"), per_step)?
                    .last()
                    .and_then(|row| row.split(',').next()?.parse::<u64>().ok())
                    == Some(resumed_at),
            probes,
            sections,
            gauges,
            bodies,
        })
    }

    /// gauges.csv's rows at `step`, one per gauge; a non-finite value is a divergence.
    fn gauge_rows(&mut self, step: u64, gauges: &[[f64; 4]]) -> Result<()> {
        let Some(t) = self.gauges.as_mut() else {
            return Ok(());
        };
        for (k, g) in gauges.iter().enumerate() {
            if g[..2].iter().any(|v| !v.is_finite()) || g[2..].iter().any(|v| v.is_infinite()) {
                return Err(Error::Diverged { step });
            }
            let mut cells = vec![Cell::Int(step), Cell::Float(step as f64 * self.dt), Cell::Int(k as u64)];
            cells.extend(g.iter().map(|&v| if v.is_nan() { Cell::Empty } else { Cell::Float(v) }));
            t.row(&cells)?;
        }
        Ok(())
    }

    fn section_row(&mut self, step: u64, discharges: &[f64]) -> Result<()> {
        // A non-finite discharge is water gone non-finite: a divergence, never written.
        if discharges.iter().any(|q| !q.is_finite()) {
            return Err(Error::Diverged { step });
        }
        step_row(self.sections.as_mut(), step, self.dt, discharges)
    }

    fn probe_row(&mut self, step: u64, heights: &[f64]) -> Result<()> {
        step_row(self.probes.as_mut(), step, self.dt, heights)
    }

    fn body_rows(&mut self, step: u64, samples: &[crate::engine::bodies::BodySample]) -> Result<()> {
        let Some(t) = self.bodies.as_mut() else {
            return Ok(());
        };
        for (k, b) in samples.iter().enumerate() {
            t.row(&body_cells(step, self.dt, k, b)?)?;
        }
        Ok(())
    }

    fn stats_row(&mut self, sim: &Simulation, target: u64, s: &crate::simulation::FieldStats) -> Result<()> {
        self.stats.row(&stats_cells(sim, target, self.dt, s))
    }

    /// A checkpoint, with the tables so far under their names, so a resume finds all it needs.
    fn save(&mut self, sim: &mut Simulation, out: &Path) -> Result<()> {
        sim.checkpoint()?.write(&out.join(CHECKPOINT))?;
        write_summary(sim, out, self.geo.clone())?;
        self.stats.publish()?;
        for table in [&mut self.probes, &mut self.sections, &mut self.gauges, &mut self.bodies] {
            table.as_mut().map_or(Ok(()), CsvWriter::publish)?;
        }
        Ok(())
    }

    /// Every table under its final name.
    fn finish(self) -> Result<()> {
        self.stats
            .finish()
            .and(self.probes.map_or(Ok(()), CsvWriter::finish))
            .and(self.sections.map_or(Ok(()), CsvWriter::finish))
            .and(self.gauges.map_or(Ok(()), CsvWriter::finish))
            .and(self.bodies.map_or(Ok(()), CsvWriter::finish))
    }
}

#[cfg(test)]
mod tests {
    use super::{output_steps, run_into, snapshot_steps};
    use crate::error::Error;

    #[test]
    fn a_diverged_run_keeps_what_it_wrote_and_writes_no_nan() {
        let dir = tempfile::tempdir().unwrap();
        let mut sim = crate::simulation::tests::exploding();
        let result = run_into(&mut sim, dir.path(), 20, &Default::default(), &mut |_: &str| {});
        assert!(matches!(result, Err(Error::Diverged { step: 1 })), "{result:?}");
        let stats = std::fs::read_to_string(dir.path().join("stats.csv")).unwrap();
        assert_eq!(
            stats.lines().count(),
            2,
            "the header and step 0, nothing after:\n{stats}"
        );
        // The rows (the header's `infiltrated` holds "inf").
        let rows: String = stats.lines().skip(1).collect();
        assert!(!rows.contains("NaN") && !rows.contains("inf"), "{rows}");
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert!(names.contains(&"h_000000.npy".to_string()), "{names:?}");
        assert!(
            !names
                .iter()
                .any(|n| n.starts_with("h_") && n != "h_000000.npy" || n.ends_with(".tmp")),
            "{names:?}"
        );
    }

    #[test]
    fn snapshot_steps_follow_simulated_time_where_every_seconds_is_given() {
        use crate::scene::Output;
        let by_time = |t: f64| Output {
            every_seconds: Some(t),
            ..Output::default()
        };
        // 0.3 s at dt = 0.1: steps 3, 6, 9 (0.3 / 0.1 is 2.9999999999999996 as floats).
        assert_eq!(snapshot_steps(&by_time(0.3), 0.1, 10), [0, 3, 6, 9, 10]);
        // An interval that is no whole number of steps: the first step at or past each multiple.
        assert_eq!(snapshot_steps(&by_time(0.25), 0.1, 10), [0, 3, 5, 8, 10]);
        // Shorter than a step: every step, once.
        assert_eq!(snapshot_steps(&by_time(0.01), 0.1, 3), [0, 1, 2, 3]);
        // The last step is written once, also when it falls on a multiple.
        assert_eq!(snapshot_steps(&by_time(0.5), 0.1, 10), [0, 5, 10]);
        // Without it, `every` steps as before.
        assert_eq!(snapshot_steps(&Output::default(), 0.1, 25), [0, 10, 20, 25]);
    }

    #[test]
    fn output_steps_include_first_and_last() {
        assert_eq!(output_steps(10, 25).collect::<Vec<_>>(), [0, 10, 20, 25]);
        assert_eq!(output_steps(0, 25).collect::<Vec<_>>(), [0, 25]);
        assert_eq!(output_steps(5, 10).collect::<Vec<_>>(), [0, 5, 10]);
        assert_eq!(output_steps(5, 0).collect::<Vec<_>>(), [0]);
    }
}
