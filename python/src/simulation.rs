//! `shoal.Simulation`: a scene stepping on a backend, its fields as NumPy arrays.

use crate::errors::{IntoPy, ShoalError};
use crate::run::{parse_backend, scene_of};
use numpy::ndarray::{Array2, Array3};
use numpy::{IntoPyArray, PyArray1, PyArray2, PyArray3, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use shoal::io::csv::Cell;
use shoal::low_level::{HostEdit, EDIT_BRUSH, EDIT_DISTURB};
use std::path::PathBuf;
use std::sync::Mutex;

/// Two float32 `[ny, nx]` grids (a velocity's u and v).
type Pair<'py> = (Bound<'py, PyArray2<f32>>, Bound<'py, PyArray2<f32>>);

/// Steps run with the GIL released between two looks for a Ctrl-C.
const STEPS_BETWEEN_SIGNALS: u64 = 256;

/// What a Python `Simulation` holds: the Rust one, the edits not applied yet, and the probes'
/// rows since the start (probes.csv's).
struct Inner {
    sim: shoal::Simulation,
    edits: Vec<HostEdit>,
    probe_rows: Vec<(u64, Vec<f64>)>,
}

impl Inner {
    /// Applies the queued edits (one rebuild for all of them).
    fn flush(&mut self, py: Python<'_>) -> PyResult<()> {
        if self.edits.is_empty() {
            return Ok(());
        }
        let edits = std::mem::take(&mut self.edits);
        let sim = &mut self.sim;
        py.detach(|| sim.edit(&edits)).py_err()
    }
}

/// A scene stepping on one backend. Its fields come back as float32 NumPy arrays `[ny, nx]`
/// (row j is y = (j + ½)·dx), heights in metres, absolute.
#[pyclass(module = "shoal._shoal")]
pub struct Simulation {
    inner: Mutex<Inner>,
}

impl Simulation {
    fn lock(&self) -> PyResult<std::sync::MutexGuard<'_, Inner>> {
        self.inner
            .lock()
            .map_err(|_| ShoalError::new_err("the simulation was left broken by an earlier panic"))
    }

    fn wrap(sim: shoal::Simulation) -> PyResult<Simulation> {
        let mut sim = sim;
        let surface = sim.surface().py_err()?;
        let first = (sim.step_index(), sim.probe_heights(&surface));
        Ok(Simulation {
            inner: Mutex::new(Inner {
                sim,
                edits: Vec::new(),
                probe_rows: vec![first],
            }),
        })
    }
}

/// A float32 `[ny, nx]` array of `values`.
fn grid<'py>(py: Python<'py>, sim: &shoal::Simulation, values: Vec<f32>) -> Bound<'py, PyArray2<f32>> {
    let g = sim.scene().grid;
    Array2::from_shape_vec((g.ny as usize, g.nx as usize), values)
        .expect("a field holds nx·ny values")
        .into_pyarray(py)
}

fn cell_object<'py>(py: Python<'py>, cell: &Cell) -> PyResult<Bound<'py, PyAny>> {
    Ok(match cell {
        Cell::Int(v) => v.into_pyobject(py)?.into_any(),
        Cell::Float(v) => v.into_pyobject(py)?.into_any(),
        Cell::Text(t) => t.into_pyobject(py)?.into_any(),
        Cell::Empty => py.None().into_bound(py),
    })
}

/// The centres of `n` cells of `dx` metres from 0.
fn centres(n: u32, dx: f64) -> Vec<f64> {
    (0..n).map(|i| (i as f64 + 0.5) * dx).collect()
}

/// A NumPy structured array of `rows` under `columns` ("step" and "body" as int64, the rest
/// float64).
fn records<'py>(py: Python<'py>, columns: &[String], rows: Vec<Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
    let dtype = PyList::empty(py);
    for name in columns {
        let kind = if name == "step" || name == "body" { "<i8" } else { "<f8" };
        dtype.append((name.as_str(), kind))?;
    }
    let np = py.import("numpy")?;
    let kwargs = PyDict::new(py);
    kwargs.set_item("dtype", dtype)?;
    np.call_method("array", (PyList::new(py, rows)?,), Some(&kwargs))
}

#[pymethods]
impl Simulation {
    /// Builds `scene` (a `Scene` or a scene file's path) on `backend`: "auto" (the GPU, or the CPU
    /// where the only adapter is a software rasteriser), "gpu", "cpu" or "reference".
    #[new]
    #[pyo3(signature = (scene, backend = "auto"))]
    fn new(py: Python<'_>, scene: &Bound<'_, PyAny>, backend: &str) -> PyResult<Simulation> {
        let scene = scene_of(scene)?;
        let backend = parse_backend(backend)?;
        let sim = py.detach(|| shoal::Simulation::new(&scene, backend)).py_err()?;
        Simulation::wrap(sim)
    }

    /// Advances `n` steps (edits made since the last step first). The GIL is released while it
    /// steps; a Ctrl-C raises KeyboardInterrupt at the next chunk boundary, the steps before it
    /// kept.
    #[pyo3(signature = (n = 1))]
    fn step(&self, py: Python<'_>, n: u64) -> PyResult<()> {
        let mut inner = self.lock()?;
        inner.flush(py)?;
        let mut left = n;
        while left > 0 {
            let chunk = left.min(STEPS_BETWEEN_SIGNALS);
            let Inner { sim, probe_rows, .. } = &mut *inner;
            let first = sim.step_index() + 1;
            let rows = py.detach(|| sim.step(chunk)).py_err()?;
            probe_rows.extend(rows.into_iter().enumerate().map(|(k, row)| (first + k as u64, row)));
            left -= chunk;
            py.check_signals()?;
        }
        Ok(())
    }

    /// Seconds simulated.
    #[getter]
    fn time(&self) -> PyResult<f64> {
        Ok(self.lock()?.sim.time())
    }
    /// Steps taken.
    #[getter]
    fn step_index(&self) -> PyResult<u64> {
        Ok(self.lock()?.sim.step_index())
    }
    /// Substeps per step now.
    #[getter]
    fn substeps(&self) -> PyResult<u32> {
        Ok(self.lock()?.sim.substeps())
    }
    /// The backend in words (the adapter, or the CPU and its threads).
    #[getter]
    fn backend(&self) -> PyResult<String> {
        Ok(self.lock()?.sim.describe_backend())
    }
    /// The scene it runs.
    #[getter]
    fn scene(&self) -> PyResult<crate::scene::Scene> {
        Ok(crate::scene::Scene {
            inner: self.lock()?.sim.scene().clone(),
        })
    }

    /// The water's surface h (over a floating body, the water's top: the body's underside where
    /// it covers the column), float32 `[ny, nx]`; h equals the ground where dry.
    fn surface<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let mut inner = self.lock()?;
        inner.flush(py)?;
        let h = inner.sim.surface().py_err()?;
        Ok(grid(py, &inner.sim, h.iter().map(|&v| v as f32).collect()))
    }

    /// The water's depth h − b (0 where dry), float32 `[ny, nx]`.
    fn depth<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let mut inner = self.lock()?;
        inner.flush(py)?;
        let h = inner.sim.surface().py_err()?;
        let d = h.iter().zip(inner.sim.ground()).map(|(&h, &b)| (h - b).max(0.0) as f32);
        Ok(grid(py, &inner.sim, d.collect()))
    }

    /// The depth-averaged velocity (u, v), m/s, 0 where dry: two float32 `[ny, nx]` arrays, on
    /// models with a velocity (the shallow-water model, the pipes); None on the others.
    fn velocity<'py>(&self, py: Python<'py>) -> PyResult<Option<Pair<'py>>> {
        let mut inner = self.lock()?;
        inner.flush(py)?;
        let Some(v) = inner.sim.velocity().py_err()? else {
            return Ok(None);
        };
        let u = grid(py, &inner.sim, v.iter().map(|uv| uv[0]).collect());
        let w = grid(py, &inner.sim, v.iter().map(|uv| uv[1]).collect());
        Ok(Some((u, w)))
    }

    /// The cell centres' x, metres from the domain's west edge: float64 `[nx]`, (i + ½)·dx.
    #[getter]
    fn x<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let g = self.lock()?.sim.scene().grid;
        Ok(centres(g.nx, g.dx).into_pyarray(py))
    }

    /// The cell centres' y, metres from the domain's south edge: float64 `[ny]`, (j + ½)·dx
    /// (row j of every field; plot with `origin="lower"`).
    #[getter]
    fn y<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let g = self.lock()?.sim.scene().grid;
        Ok(centres(g.ny, g.dx).into_pyarray(py))
    }

    /// The domain's edges (west, east, south, north), metres: matplotlib's
    /// `imshow(field, origin="lower", extent=sim.extent)` draws a field the right way up.
    #[getter]
    fn extent(&self) -> PyResult<(f64, f64, f64, f64)> {
        let g = self.lock()?.sim.scene().grid;
        Ok((0.0, g.nx as f64 * g.dx, 0.0, g.ny as f64 * g.dx))
    }

    /// The water at `points` (an `[n, 2]` array-like of x, y in metres; off the grid, its edge):
    /// a dict of `height` (the surface, float64 `[n]`; the ground's where dry), `depth` (float64
    /// `[n]`) and `normal` (the surface's unit normal, float32 `[n, 3]`), bilinear between cell
    /// centres. Answered at once from the state after the last step.
    fn query<'py>(&self, py: Python<'py>, points: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
        let np = py.import("numpy")?;
        let array = np.call_method1("ascontiguousarray", (points, "float64"))?;
        // One (x, y) pair is a query of one point.
        let shape: Vec<usize> = array.getattr("shape")?.extract()?;
        let array = match shape[..] {
            [2] => np.call_method1("reshape", (array, (1usize, 2usize)))?,
            [_, 2] => array,
            _ => {
                return Err(PyValueError::new_err(format!(
                    "query: points of shape {shape:?}; it takes (x, y) pairs, shape [n, 2]"
                )))
            }
        };
        let array: PyReadonlyArray2<f64> = array.extract()?;
        let points: Vec<[f64; 2]> = array.as_slice()?.chunks_exact(2).map(|p| [p[0], p[1]]).collect();
        if let Some(p) = points.iter().find(|p| !p.iter().all(|v| v.is_finite())) {
            return Err(PyValueError::new_err(format!("query: the point {p:?} is not finite")));
        }
        let mut inner = self.lock()?;
        inner.flush(py)?;
        let sim = &mut inner.sim;
        let samples = py.detach(|| sim.query(&points)).py_err()?;
        let d = PyDict::new(py);
        d.set_item(
            "height",
            samples.iter().map(|s| s.height).collect::<Vec<f64>>().into_pyarray(py),
        )?;
        d.set_item(
            "depth",
            samples.iter().map(|s| s.depth).collect::<Vec<f64>>().into_pyarray(py),
        )?;
        let normals = samples.iter().flat_map(|s| s.normal).collect();
        let normals = Array2::from_shape_vec((samples.len(), 3), normals).expect("three per sample");
        d.set_item("normal", normals.into_pyarray(py))?;
        Ok(d)
    }

    /// The flood maps so far (`[output] summary`), as the run writes them: a dict of float32
    /// `[ny, nx]` arrays by file stem (`max_depth`, `max_surface`, `first_wet` (−1: never),
    /// `time_wet`, and on the shallow-water model `max_speed` and `max_hazard`); None without
    /// `[output] summary`.
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let mut inner = self.lock()?;
        inner.flush(py)?;
        let Some(maps) = inner.sim.summary().py_err()? else {
            return Ok(None);
        };
        let d = PyDict::new(py);
        for (name, map) in maps.named() {
            d.set_item(name, grid(py, &inner.sim, map.to_vec()))?;
        }
        Ok(Some(d))
    }

    /// The spray's particles in flight, a NumPy structured array of (x, y, z, vx, vy, vz, volume):
    /// absolute metres, m/s and m³ of water each carries; empty for a model or scene without
    /// spray.
    fn particles<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut inner = self.lock()?;
        inner.flush(py)?;
        let particles = inner.sim.particles().py_err()?;
        let columns = ["x", "y", "z", "vx", "vy", "vz", "volume"].map(String::from);
        let rows = particles
            .iter()
            .map(|p| Ok(pyo3::types::PyTuple::new(py, p.map(|v| v as f64))?.into_any()))
            .collect::<PyResult<_>>()?;
        records(py, &columns, rows)
    }

    /// The Navier-Stokes layer's foam (with its `[spray]`), a NumPy structured array of (x, y, z,
    /// life): absolute metres and the seconds each fleck has left; empty without it.
    fn foam<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut inner = self.lock()?;
        inner.flush(py)?;
        let foam = inner.sim.foam().py_err()?;
        let columns = ["x", "y", "z", "life"].map(String::from);
        let rows = foam
            .iter()
            .map(|p| Ok(pyo3::types::PyTuple::new(py, p.map(|v| v as f64))?.into_any()))
            .collect::<PyResult<_>>()?;
        records(py, &columns, rows)
    }

    /// The Navier-Stokes layer's 3D grid now, cell-centred, C order `[nz, ny, nx]` (z up; the
    /// layer's columns are `[navier_stokes] coarsen` × the scene's cells): a dict of float32
    /// `u`, `v`, `w` (m/s) and `pressure` (Pa, relative to the air), 0 in solid and empty cells,
    /// and its cells' centres `x`, `y` and `z` (float64, metres, z absolute); None on the other
    /// models.
    fn layer<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let mut inner = self.lock()?;
        inner.flush(py)?;
        let Some(f) = inner.sim.layer_fields().py_err()? else {
            return Ok(None);
        };
        let shape = (f.nz, f.ny, f.nx);
        let cube = |values: Vec<f32>| -> Bound<'py, PyArray3<f32>> {
            Array3::from_shape_vec(shape, values)
                .expect("a value per cell")
                .into_pyarray(py)
        };
        let d = PyDict::new(py);
        for (axis, name) in ["u", "v", "w"].iter().enumerate() {
            d.set_item(*name, cube(f.velocity.iter().map(|v| v[axis]).collect()))?;
        }
        d.set_item("pressure", cube(f.pressure))?;
        let g = inner.sim.scene().grid;
        d.set_item(
            "x",
            centres(f.nx as u32, g.nx as f64 * g.dx / f.nx as f64).into_pyarray(py),
        )?;
        d.set_item(
            "y",
            centres(f.ny as u32, g.ny as f64 * g.dx / f.ny as f64).into_pyarray(py),
        )?;
        if let Some((floor, top)) = inner.sim.layer_extent() {
            let dz = (top - floor) / f.nz as f64;
            let z: Vec<f64> = (0..f.nz).map(|k| floor + (k as f64 + 0.5) * dz).collect();
            d.set_item("z", z.into_pyarray(py))?;
        }
        Ok(Some(d))
    }

    /// The ground b, float32 `[ny, nx]`.
    fn ground<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let mut inner = self.lock()?;
        inner.flush(py)?;
        let b = inner.sim.ground().iter().map(|&v| v as f32).collect();
        Ok(grid(py, &inner.sim, b))
    }

    /// Replaces the ground with `ground` (metres, `[ny, nx]`, any float dtype): each column keeps
    /// its water (on the shallow-water model its discharges too), none made or lost. On the pipes
    /// it is the terrain under their solids (overhangs and rocks stay), the water carried in
    /// whole units. Not on the Navier-Stokes layer.
    fn set_ground(&self, py: Python<'_>, ground: &Bound<'_, PyAny>) -> PyResult<()> {
        let np = py.import("numpy")?;
        let array = np.call_method1("ascontiguousarray", (ground, "float64"))?;
        let array: PyReadonlyArray2<f64> = array
            .extract()
            .map_err(|_| PyValueError::new_err("set_ground: a 2-D array of heights [ny, nx]"))?;
        let mut inner = self.lock()?;
        let g = inner.sim.scene().grid;
        if array.shape() != [g.ny as usize, g.nx as usize] {
            return Err(PyValueError::new_err(format!(
                "set_ground: an array of shape ({}, {}) for a grid of (ny, nx) = ({}, {})",
                array.shape()[0],
                array.shape()[1],
                g.ny,
                g.nx
            )));
        }
        let heights = array.as_slice()?.to_vec();
        inner.flush(py)?;
        let sim = &mut inner.sim;
        py.detach(|| sim.set_ground(&heights)).py_err()
    }

    /// A splash at (x, y) metres: the surface rises by `height` at the centre, falling off as
    /// (1 − r²/radius²)² (negative: a dip, down to the ground at most). Its water joins the
    /// volume target. Applied before the next step or read (edits made together cost one).
    fn disturb(&self, x: f64, y: f64, radius: f64, height: f64) -> PyResult<()> {
        self.queue("disturb", EDIT_DISTURB, [x, y, radius, height])
    }

    /// Raises the ground at (x, y) metres by `height` at the centre (negative digs), with the same
    /// falloff as `disturb`; the water on it rides along, none made or lost.
    fn brush(&self, x: f64, y: f64, radius: f64, height: f64) -> PyResult<()> {
        self.queue("brush", EDIT_BRUSH, [x, y, radius, height])
    }

    /// The stats.csv row for now, as a dict (its columns as keys; None where the file leaves a
    /// field empty).
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let mut inner = self.lock()?;
        inner.flush(py)?;
        let sim = &mut inner.sim;
        let surface = sim.surface().py_err()?;
        let stats = sim.stats(&surface);
        let cells = shoal::run::stats_cells(sim, sim.step_index(), sim.scene().time.dt, &stats);
        let d = PyDict::new(py);
        for (name, cell) in shoal::run::STATS_HEADER.iter().zip(&cells) {
            d.set_item(*name, cell_object(py, cell)?)?;
        }
        Ok(d)
    }

    /// The bodies now, one row per body in file order, as a NumPy structured array of bodies.csv's
    /// columns (step, time, body, x, y, z, qw, qx, qy, qz, vx, vy, vz, waterline, displaced).
    fn bodies<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let inner = self.lock()?;
        let sim = &inner.sim;
        let (step, dt) = (sim.step_index(), sim.scene().time.dt);
        let mut rows = Vec::new();
        for (k, body) in sim.bodies().iter().enumerate() {
            let cells = shoal::run::body_cells(step, dt, k, body).py_err()?;
            let row: Vec<Bound<'py, PyAny>> = cells
                .iter()
                .map(|c| match c {
                    Cell::Empty => Ok(f64::NAN.into_pyobject(py)?.into_any()),
                    c => cell_object(py, c),
                })
                .collect::<PyResult<_>>()?;
            rows.push(pyo3::types::PyTuple::new(py, row)?.into_any());
        }
        let columns: Vec<String> = shoal::run::BODIES_HEADER.iter().map(|s| s.to_string()).collect();
        records(py, &columns, rows)
    }

    /// The probes' heights at every step since the start, as a NumPy structured array of
    /// probes.csv's columns (step, time, then one column per probe by name).
    fn probes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let inner = self.lock()?;
        let scene = inner.sim.scene();
        let dt = scene.time.dt;
        let mut columns = vec!["step".to_string(), "time".to_string()];
        columns.extend(scene.output.probes.iter().map(|p| p.name.clone()));
        let mut rows = Vec::with_capacity(inner.probe_rows.len());
        for (step, heights) in &inner.probe_rows {
            let mut row: Vec<Bound<'py, PyAny>> = vec![
                step.into_pyobject(py)?.into_any(),
                (*step as f64 * dt).into_pyobject(py)?.into_any(),
            ];
            for h in heights {
                row.push(h.into_pyobject(py)?.into_any());
            }
            rows.push(pyo3::types::PyTuple::new(py, row)?.into_any());
        }
        records(py, &columns, rows)
    }

    /// Writes the whole state to `path` (a checkpoint, as `shoal run` writes checkpoint.bin).
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let mut inner = self.lock()?;
        inner.flush(py)?;
        let sim = &mut inner.sim;
        py.detach(|| sim.checkpoint()?.write(&path)).py_err()
    }

    /// Builds the simulation a checkpoint file holds (its scene as run, its state) on `backend`;
    /// its probes start again from the step it was saved at.
    #[staticmethod]
    #[pyo3(signature = (path, backend = "auto"))]
    fn load(py: Python<'_>, path: PathBuf, backend: &str) -> PyResult<Simulation> {
        let backend = parse_backend(backend)?;
        let sim = py.detach(|| shoal::Simulation::load(&path, backend)).py_err()?;
        Simulation::wrap(sim)
    }

    fn __repr__(&self) -> PyResult<String> {
        let inner = self.lock()?;
        let s = &inner.sim;
        Ok(format!(
            "Simulation({:?}, step {}, t = {} s, on {})",
            s.scene().name,
            s.step_index(),
            s.time(),
            s.describe_backend()
        ))
    }
}

impl Simulation {
    fn queue(&self, what: &str, kind: u32, [x, y, radius, height]: [f64; 4]) -> PyResult<()> {
        if ![x, y, radius, height].iter().all(|v| v.is_finite()) || radius <= 0.0 {
            return Err(PyValueError::new_err(format!(
                "{what}({x}, {y}, radius {radius}, height {height}): finite numbers and a positive radius"
            )));
        }
        let mut inner = self.lock()?;
        let g = inner.sim.scene().grid;
        let (wx, wy) = (g.nx as f64 * g.dx, g.ny as f64 * g.dx);
        // Raised here, not at the next step that applies the queue: as the scene refuses probes
        // and sources outside the domain.
        if !(0.0..=wx).contains(&x) || !(0.0..=wy).contains(&y) {
            return Err(PyValueError::new_err(format!(
                "{what}({x}, {y}, …): the point is outside the domain [0, {wx}] × [0, {wy}] m"
            )));
        }
        inner.edits.push(HostEdit::at(kind, x, y, radius, height, g.dx));
        Ok(())
    }
}
