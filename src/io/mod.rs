//! Files in and out: npy arrays, CSV tables, pictures, GeoTIFF DEMs, OpenEXR height maps, NetCDF, and
//! atomic writes.

pub mod atomic;
pub mod csv;
pub mod exr;
pub mod files;
pub mod geotiff;
pub mod netcdf;
pub mod npy;
pub mod picture;
