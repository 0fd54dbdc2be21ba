//! Shoal's errors as Python exceptions: `SceneError` for scenes that break the contract (with
//! the file and line, the message naming the key), `ShoalError` for everything else.

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyFileNotFoundError, PyOSError};
use pyo3::prelude::*;

// Named as `shoal` exports them, so that they pickle (multiprocessing, joblib): pickle finds a
// class by its `__module__` and name, and `_shoal` is no module a user imports.
create_exception!(
    shoal,
    ShoalError,
    PyException,
    "An error from Shoal: a scene it cannot run, a backend it cannot open, a run that diverged. \
     The message is the command line's, without its `error: `. Files that are missing or cannot \
     be read or written raise FileNotFoundError and OSError."
);
create_exception!(
    shoal,
    SceneError,
    ShoalError,
    "A scene that breaks the contract (docs/scenes.md). `file` and `line` say where (line is None \
     where it cannot be located); the message names the key."
);

/// The Python exception for a Shoal error.
pub fn to_py(error: shoal::Error) -> PyErr {
    match &error {
        shoal::Error::Scene { file, line, .. } => {
            let (file, line) = (file.display().to_string(), *line);
            let err = SceneError::new_err(error.to_string());
            Python::attach(|py| {
                let value = err.value(py);
                // Attributes on a fresh exception object cannot fail.
                let _ = value.setattr("file", file);
                let _ = value.setattr("line", line);
            });
            err
        }
        // A file that is not there, or cannot be read or written: Python's own exceptions.
        shoal::Error::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            PyFileNotFoundError::new_err(error.to_string())
        }
        shoal::Error::Io { .. } => PyOSError::new_err(error.to_string()),
        _ => ShoalError::new_err(error.to_string()),
    }
}

/// `Result<T, shoal::Error>` → `PyResult<T>`.
pub trait IntoPy<T> {
    fn py_err(self) -> PyResult<T>;
}

impl<T> IntoPy<T> for shoal::Result<T> {
    fn py_err(self) -> PyResult<T> {
        self.map_err(to_py)
    }
}
