//! `shoal.Scene`: a scene read from a file, TOML text or a dict, validated as the command line
//! validates it (the same contract, the same messages).

use crate::errors::IntoPy;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use std::path::{Path, PathBuf};

/// A validated scene. Build one with `Scene.from_file`, `Scene.from_toml` or `Scene.from_dict`.
#[pyclass(module = "shoal._shoal", frozen)]
#[derive(Clone)]
pub struct Scene {
    pub inner: shoal::Scene,
}

#[pymethods]
impl Scene {
    /// Reads and validates a scene file (TOML); relative paths in it resolve against its folder.
    #[staticmethod]
    fn from_file(path: PathBuf) -> PyResult<Scene> {
        Ok(Scene {
            inner: shoal::Scene::from_file(&path).py_err()?,
        })
    }

    /// Validates a scene given as TOML text; relative paths resolve against `base_dir` (default:
    /// the working folder).
    #[staticmethod]
    #[pyo3(signature = (text, base_dir = None))]
    fn from_toml(text: &str, base_dir: Option<PathBuf>) -> PyResult<Scene> {
        let base = base_dir.unwrap_or_else(|| PathBuf::from("."));
        Ok(Scene {
            inner: shoal::Scene::parse(text, Path::new("<toml>"), &base).py_err()?,
        })
    }

    /// Validates a scene given as a dict of the file's tables (`{"grid": {"nx": 64, ...},
    /// "water": {"bump": [{...}]}}`): the same keys as a scene file. Values may be bools, ints,
    /// floats, strings, paths, lists, tuples, dicts and NumPy scalars or small arrays; None leaves
    /// a key out.
    #[staticmethod]
    #[pyo3(signature = (d, base_dir = None))]
    fn from_dict(d: &Bound<'_, PyDict>, base_dir: Option<PathBuf>) -> PyResult<Scene> {
        let table = table_of(d, "")?;
        let text =
            toml::to_string(&table).map_err(|e| PyTypeError::new_err(format!("the dict is not a scene: {e}")))?;
        let base = base_dir.unwrap_or_else(|| PathBuf::from("."));
        Ok(Scene {
            inner: shoal::Scene::parse(&text, Path::new("<dict>"), &base).py_err()?,
        })
    }

    /// Pickles as its TOML text, the file it came from and the folder its paths resolve against,
    /// so that a scene crosses to worker processes (multiprocessing, joblib) and is validated
    /// again there.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String, PathBuf, PathBuf))> {
        let text = toml::to_string(&self.inner)
            .map_err(|e| crate::errors::ShoalError::new_err(format!("the scene cannot be pickled: {e}")))?;
        let rebuild = py.get_type::<Scene>().getattr("_unpickle")?;
        Ok((rebuild, (text, self.inner.origin.clone(), self.inner.base_dir.clone())))
    }

    /// The other half of `__reduce__`.
    #[staticmethod]
    fn _unpickle(text: &str, origin: PathBuf, base_dir: PathBuf) -> PyResult<Scene> {
        Ok(Scene {
            inner: shoal::Scene::parse(text, &origin, &base_dir).py_err()?,
        })
    }

    /// The built-in default scene (what `shoal run` runs without a scene).
    #[staticmethod]
    fn default() -> Scene {
        Scene {
            inner: shoal::Scene::builtin_default(),
        }
    }

    /// The scene's name.
    #[getter]
    fn name(&self) -> &str {
        &self.inner.name
    }
    /// Cells along x.
    #[getter]
    fn nx(&self) -> u32 {
        self.inner.grid.nx
    }
    /// Cells along y.
    #[getter]
    fn ny(&self) -> u32 {
        self.inner.grid.ny
    }
    /// A cell's side, metres.
    #[getter]
    fn dx(&self) -> f64 {
        self.inner.grid.dx
    }
    /// The step, seconds.
    #[getter]
    fn dt(&self) -> f64 {
        self.inner.time.dt
    }
    /// The steps a run takes (`time.steps`).
    #[getter]
    fn steps(&self) -> u64 {
        self.inner.time.steps
    }

    /// The scene as TOML (the keys it was given, defaults left out).
    fn to_toml(&self) -> PyResult<String> {
        toml::to_string(&self.inner).map_err(|e| PyTypeError::new_err(e.to_string()))
    }

    fn __repr__(&self) -> String {
        let g = self.inner.grid;
        format!(
            "Scene({:?}, {}×{} cells of {} m, {} steps of {} s)",
            self.inner.name, g.nx, g.ny, g.dx, self.inner.time.steps, self.inner.time.dt
        )
    }
}

/// A Python dict as a TOML table, key by key (`at` names where, for errors).
fn table_of(d: &Bound<'_, PyDict>, at: &str) -> PyResult<toml::Table> {
    let mut table = toml::Table::new();
    for (k, v) in d.iter() {
        let key: String = k
            .extract()
            .map_err(|_| PyTypeError::new_err(format!("{at}: a key that is not a string: {k}")))?;
        let path = if at.is_empty() {
            key.clone()
        } else {
            format!("{at}.{key}")
        };
        if let Some(value) = value_of(&v, &path)? {
            table.insert(key, value);
        }
    }
    Ok(table)
}

/// A Python value as a TOML value; None for None (the key is left out).
fn value_of(v: &Bound<'_, PyAny>, at: &str) -> PyResult<Option<toml::Value>> {
    if v.is_none() {
        return Ok(None);
    }
    let value = if v.is_instance_of::<PyBool>() {
        toml::Value::Boolean(v.extract()?)
    } else if v.is_instance_of::<PyInt>() {
        toml::Value::Integer(v.extract()?)
    } else if v.is_instance_of::<PyFloat>() {
        toml::Value::Float(v.extract()?)
    } else if v.is_instance_of::<PyString>() {
        toml::Value::String(v.extract()?)
    } else if let Ok(d) = v.cast::<PyDict>() {
        toml::Value::Table(table_of(d, at)?)
    } else if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let mut items = Vec::new();
        for (k, item) in v.try_iter()?.enumerate() {
            items.extend(value_of(&item?, &format!("{at}[{k}]"))?);
        }
        toml::Value::Array(items)
    } else if v.hasattr("__fspath__")? {
        let path: PathBuf = v.extract()?;
        toml::Value::String(path.to_string_lossy().into_owned())
    } else if v.hasattr("tolist")? {
        // NumPy scalars and arrays: their Python equivalents.
        return value_of(&v.call_method0("tolist")?, at);
    } else {
        return Err(PyTypeError::new_err(format!(
            "{at}: a {} is not a scene value (bool, int, float, str, path, list, dict)",
            v.get_type().name()?
        )));
    };
    Ok(Some(value))
}
