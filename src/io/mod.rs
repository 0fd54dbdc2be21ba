//! Files in and out: npy arrays, CSV tables, and atomic writes.

pub mod atomic;
pub mod csv;
pub mod npy;
