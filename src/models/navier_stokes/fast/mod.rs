//! The Navier-Stokes layer's fast CPU passes, bit-identical to the twins in `cpu/`.

pub mod navier_stokes;
