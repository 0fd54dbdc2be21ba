//! What every water model uses: the schedule of a step and its two executors (`gpu::GpuSolver`
//! records it, `cpu::CpuSolver` runs it), the GPU context and state table, the level every
//! model's surface lives in, the volume correction, bodies and their coupling, forcing (drops,
//! hydrographs, rain, air pressure), probes, flood maps and checkpoints. Each pass keeps the twin
//! rule: `wgsl/x.wgsl` ↔ `gpu/x.rs` ↔ `cpu/x.rs` (and `fast/x.rs` where the fast CPU backend has
//! its own). What only one model has lives in its room under `crate::models`.

pub mod bodies;
pub mod checkpoint;
pub mod cpu;
pub mod edit;
pub mod fast;
pub mod feeds;
pub mod gpu;
pub mod infiltration;
pub mod params;
pub mod placement;
pub mod pressure;
pub mod rain;
pub mod schedule;
pub mod sections;
pub mod solver;
pub mod start;
pub mod state_table;
pub mod table;
