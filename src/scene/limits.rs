//! The magnitudes the scene contract allows, stated once: validation checks a scene against them
//! before anything is built, and the models and engine passes that hold such things are sized by
//! them (they read these; nothing here reads a model).

/// The most substeps Shoal will run per step; a scene that needs more is refused with a clear error
/// (its dt is far too long for its depth), rather than crawling for hours.
pub const MAX_SUBSTEPS: u32 = 4096;

/// The most `[[pressure]]` patches a scene may have (each cell sums them all, every step).
pub const MAX_PATCHES: usize = 64;

/// Cells between a maker side and its line source: enough that the side's Mur condition sees
/// the outgoing wave already formed.
pub const MAKER_INSET: u32 = 3;

/// The most markers a Navier-Stokes run may hold: one dispatch of 64-thread workgroups in each of
/// two dimensions would pass it.
pub const MOST_MARKERS: u32 = 1 << 26;

/// The largest pipes `[spray] capacity`: one dispatch of 64-particle workgroups in one dimension.
pub const MOST_PARTICLES: u32 = 65535 * 64;

/// The most height-field cells a Navier-Stokes layer with spray may have: every slot full of
/// full-size particles must count in a u32 of units.
pub const MOST_CELLS: u64 = u32::MAX as u64 / (SLOTS as u64 * FULL_UNITS as u64);

/// The Navier-Stokes spray's particle slots per height-field cell, and a full-size particle's
/// units (`ns_spray.wgsl`).
pub use crate::wgsl::ns_spray::{FULL_UNITS, SLOTS};
