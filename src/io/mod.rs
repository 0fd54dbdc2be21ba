//! Files in and out: npy arrays, CSV tables, pictures, GeoTIFF DEMs, and atomic writes.

pub mod atomic;
pub mod csv;
pub mod geotiff;
pub mod npy;
pub mod picture;
