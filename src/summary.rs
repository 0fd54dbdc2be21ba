//! The flood maps a run hands over (`[output] summary = true`): each cell's deepest water,
//! highest surface, time of first wetting and time wet. Folded on the backend at the end of every
//! step (`summary.wgsl`, twin `cpu::summary`), kept in checkpoints, read back only when written:
//! at the end of the run and at each checkpoint, as `max_depth.npy`, `max_surface.npy`,
//! `first_wet.npy` and `time_wet.npy` (float32 `[ny, nx]`; with `--geotiff` also `.tif`, north
//! up, georeferenced like the terrain).

use bytemuck::{Pod, Zeroable};

/// The step value of a cell never wet (`SummaryCell::first_wet`).
pub const NEVER_WET: u32 = crate::wgsl::summary::NEVER_WET;
/// The time `first_wet.npy` writes for a cell never wet (no NaN in an output).
pub const NEVER_WET_TIME: f32 = -1.0;

/// One cell's summary; mirrors WGSL `SummaryCell`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct SummaryCell {
    /// Deepest water so far, m.
    pub max_depth: f32,
    /// Highest surface so far, relative to the reference level, m.
    pub max_eta: f32,
    /// The step at whose end it was first wet (0: at the start; `NEVER_WET`: not yet).
    pub first_wet: u32,
    /// Steps at whose end it was wet.
    pub wet_steps: u32,
}

/// The uniforms of a chunk's summary; mirrors WGSL `SummaryParams`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct SummaryParams {
    /// Steps run before the chunk.
    pub first_step: u32,
    /// Depth above which a cell counts as wet, m.
    pub wet_depth: f32,
    /// Cells (columns).
    pub cells: u32,
    /// Padding.
    pub _pad: u32,
}

/// The summary of the initial state: its depths and surfaces, wet cells wet since step 0.
pub fn initial(eta: &[f32], ground: &[f32], wet_depth: f32) -> Vec<SummaryCell> {
    eta.iter()
        .zip(ground)
        .map(|(&e, &b)| {
            let d = (e - b).max(0.0);
            SummaryCell {
                max_depth: d,
                max_eta: e.max(b),
                first_wet: if d > wet_depth { 0 } else { NEVER_WET },
                wet_steps: 0,
            }
        })
        .collect()
}

/// The four maps, row-major `[ny, nx]`, absolute where they are heights.
#[derive(Clone, Debug, PartialEq)]
pub struct SummaryMaps {
    /// Deepest water, m.
    pub max_depth: Vec<f32>,
    /// Highest surface, m (the ground where never wet).
    pub max_surface: Vec<f32>,
    /// Time of first wetting, s (0: wet at the start; −1: never).
    pub first_wet: Vec<f32>,
    /// Time wet, s (steps wet × dt).
    pub time_wet: Vec<f32>,
    /// Fastest depth-averaged speed while wet, m/s: the shallow-water model's; empty for the
    /// others.
    pub max_speed: Vec<f32>,
    /// Largest depth × speed while wet, m²/s (the hazard ratings' d·|u|): the shallow-water
    /// model's; empty for the others.
    pub max_hazard: Vec<f32>,
}

impl SummaryMaps {
    /// The maps of `cells`, with heights made absolute by `reference` and steps times of `dt`.
    pub fn of(cells: &[SummaryCell], reference: f64, dt: f64) -> SummaryMaps {
        SummaryMaps {
            max_depth: cells.iter().map(|c| c.max_depth).collect(),
            max_surface: cells.iter().map(|c| (c.max_eta as f64 + reference) as f32).collect(),
            first_wet: cells
                .iter()
                .map(|c| match c.first_wet {
                    NEVER_WET => NEVER_WET_TIME,
                    n => (n as f64 * dt) as f32,
                })
                .collect(),
            time_wet: cells.iter().map(|c| (c.wet_steps as f64 * dt) as f32).collect(),
            max_speed: Vec::new(),
            max_hazard: Vec::new(),
        }
    }

    /// The flow's maps, (fastest speed, largest d·|u|) per cell (none: left empty).
    pub fn add_flow(&mut self, flow: &[[f32; 2]]) {
        self.max_speed = flow.iter().map(|m| m[0]).collect();
        self.max_hazard = flow.iter().map(|m| m[1]).collect();
    }

    /// (file stem, map) of each map the model keeps.
    pub fn named(&self) -> Vec<(&'static str, &[f32])> {
        [
            ("max_depth", &self.max_depth[..]),
            ("max_surface", &self.max_surface),
            ("first_wet", &self.first_wet),
            ("time_wet", &self.time_wet),
            ("max_speed", &self.max_speed),
            ("max_hazard", &self.max_hazard),
        ]
        .into_iter()
        .filter(|(_, map)| !map.is_empty())
        .collect()
    }
}
