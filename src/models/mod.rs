//! The water models, a room each: what only that model has (its scene-derived setup, its state,
//! its CPU twin, its fast CPU path, its GPU passes and their WGSL). What every model uses lives in
//! `crate::engine`. A new model is a new folder here and one line below.

pub mod height_field;
pub mod navier_stokes;
pub mod pipes;
