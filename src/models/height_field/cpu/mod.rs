//! The height field's CPU twins.

pub mod adi;
pub mod explicit;
