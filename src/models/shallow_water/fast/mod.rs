//! The shallow-water model's fast CPU path: the twin's cell functions over rayon's pool, row by
//! row, so its bits are the twin's by construction.
pub mod shallow_water;
pub mod sw_feed;
