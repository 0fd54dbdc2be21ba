//! `shoal.run`: what `shoal run` does, from Python; and the backend names.

use crate::errors::{to_py, IntoPy};
use crate::scene::Scene;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;

/// A backend by name: "auto" (the GPU, or the CPU where the only adapter is a software
/// rasteriser), "gpu", "cpu" (every core) or "reference" (the single-threaded twin).
pub fn parse_backend(name: &str) -> PyResult<shoal::Backend> {
    Ok(match name {
        "auto" => shoal::choose_backend().0,
        "gpu" => shoal::Backend::Gpu,
        "cpu" => shoal::Backend::Cpu,
        "reference" => shoal::Backend::Reference,
        other => {
            return Err(PyValueError::new_err(format!(
                "backend {other:?}: one of \"auto\", \"gpu\", \"cpu\", \"reference\""
            )))
        }
    })
}

/// A scene argument: a `Scene`, or the path of a scene file.
pub fn scene_of(scene: &Bound<'_, PyAny>) -> PyResult<shoal::Scene> {
    if let Ok(s) = scene.cast::<Scene>() {
        return Ok(s.get().inner.clone());
    }
    let path: PathBuf = scene
        .extract()
        .map_err(|_| pyo3::exceptions::PyTypeError::new_err("scene: a shoal.Scene or the path of a scene file"))?;
    shoal::Scene::from_file(&path).py_err()
}

/// The backend "auto" takes on this machine and why, e.g. `("cpu", "the only adapter is ...")`.
#[pyfunction]
pub fn backend() -> (String, String) {
    let (backend, why) = shoal::choose_backend();
    (format!("{backend:?}").to_lowercase(), why)
}

/// Tells the run's notes to Python (stderr unless quiet) and turns a Ctrl-C into a stop at the
/// run's next chunk: it checkpoints (when checkpoints are on) and `run` raises KeyboardInterrupt.
struct Reporter {
    quiet: bool,
    interrupted: Option<PyErr>,
}

impl shoal::run::Reporter for Reporter {
    fn note(&mut self, line: &str) {
        if !self.quiet {
            eprintln!("{line}");
        }
    }

    fn progress(&mut self, _step: u64, _steps: u64) {
        if self.interrupted.is_none() {
            if let Err(e) = Python::attach(|py| py.check_signals()) {
                self.interrupted = Some(e);
                shoal::run::interrupt();
            }
        }
    }
}

/// Runs `scene` (a `Scene` or a scene file's path) into the folder `out` as `shoal run` does,
/// writing the same files, and returns its summary as a dict (name, steps, substeps, seconds,
/// backend, out, initial_volume, final_volume, target_volume, volume_error). The GIL is released
/// while it runs; a Ctrl-C stops it at the next chunk and raises KeyboardInterrupt.
#[pyfunction]
#[pyo3(signature = (scene, out, *, steps = None, backend = "auto", force = false, png = false,
    geotiff = false, exr = false, caustics = false, checkpoint_every = None, velocity = false, depth = false, netcdf = false, quiet = true))]
#[allow(clippy::too_many_arguments)]
pub fn run<'py>(
    py: Python<'py>,
    scene: &Bound<'py, PyAny>,
    out: PathBuf,
    steps: Option<u64>,
    backend: &str,
    force: bool,
    png: bool,
    geotiff: bool,
    exr: bool,
    caustics: bool,
    checkpoint_every: Option<u64>,
    velocity: bool,
    depth: bool,
    netcdf: bool,
    quiet: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let scene = scene_of(scene)?;
    let backend = parse_backend(backend)?;
    let options = shoal::run::RunOptions {
        steps,
        force,
        png,
        geotiff,
        exr,
        caustics,
        checkpoint_every,
        velocity,
        depth,
        netcdf,
        ..Default::default()
    };
    let mut reporter = Reporter {
        quiet,
        interrupted: None,
    };
    let result = py.detach(|| shoal::run::run(&scene, &out, backend, &options, &mut reporter));
    if let Some(interrupt) = reporter.interrupted {
        return Err(interrupt);
    }
    let s = result.map_err(to_py)?;
    let d = PyDict::new(py);
    d.set_item("name", &s.name)?;
    d.set_item("steps", s.steps)?;
    d.set_item("substeps", s.substeps)?;
    d.set_item("seconds", s.seconds)?;
    d.set_item("backend", &s.backend)?;
    d.set_item("out", &s.out)?;
    d.set_item("initial_volume", s.initial_volume)?;
    d.set_item("final_volume", s.final_volume)?;
    d.set_item("target_volume", s.target_volume)?;
    d.set_item("volume_error", s.volume_error())?;
    Ok(d)
}
