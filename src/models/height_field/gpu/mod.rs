//! The height field's GPU passes.

pub mod adi;
pub mod explicit;
