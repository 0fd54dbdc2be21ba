//! `shoal._shoal`: Shoal's library from Python, a thin layer over the Rust API (no second
//! implementation). Scenes come from files, TOML text or dicts under the same contract and
//! messages as the command line; simulations step with the GIL released and hand their fields
//! over as NumPy arrays; `run` does what `shoal run` does. `shoal/__init__.py` re-exports it.

use pyo3::prelude::*;

mod errors;
mod run;
mod scene;
mod simulation;

/// The module's contents.
#[pymodule]
fn _shoal(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("ShoalError", py.get_type::<errors::ShoalError>())?;
    m.add("SceneError", py.get_type::<errors::SceneError>())?;
    m.add_class::<scene::Scene>()?;
    m.add_class::<simulation::Simulation>()?;
    m.add_function(wrap_pyfunction!(run::run, m)?)?;
    m.add_function(wrap_pyfunction!(run::backend, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
