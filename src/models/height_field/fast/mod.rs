//! The height field's fast CPU passes, bit-identical to the twins in `cpu/`.

pub mod adi;
pub mod explicit;
pub mod fused;
