//! The fast CPU backend's passes: the reference twin's arithmetic, cell for cell and in the same
//! order, spread over rayon's threads and written so the compiler can vectorise the interior.
//!
//! Every pass here is bit-identical to its twin in `cpu/` whatever the thread count: cells are
//! independent within a pass, and the one reduction keeps the twin's fixed tree (workgroup
//! partials in parallel, combined in order). Passes without an entry here run the twin itself.
//! `tests/suite/fast_cpu.rs` checks the bits, pass by pass and over whole runs.
pub(crate) mod fold;
pub mod reduce;
pub mod volume;
