//! Files in and out: npy arrays, CSV tables, pictures, and atomic writes.

pub mod atomic;
pub mod csv;
pub mod npy;
pub mod picture;
