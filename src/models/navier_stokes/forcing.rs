//! What drives the Navier-Stokes layer over time (seed 003, §3.2.2 and §7): an inflow side's
//! velocity, the sides that let water out, and the pressure applied to the surface. The host
//! evaluates them per substep in f64 and hands both backends the same record (`Substep`), so the
//! GPU never evaluates a table or loses a sine's phase to float32 time.

use crate::error::Result;
use crate::scene::{NsForcing, NsSeries, Scene, Side};
use std::path::Path;

/// A side's role in a substep (the codes the WGSL reads).
pub const WALL: u32 = crate::wgsl::ns_common::SIDE_WALL;
pub const INFLOW: u32 = crate::wgsl::ns_common::SIDE_INFLOW;
pub const OUTFLOW: u32 = crate::wgsl::ns_common::SIDE_OUTFLOW;

/// One substep's forcing, mirrored by WGSL `NsSubstep` (two vec4 in `col`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Substep {
    /// The inflow side's velocity into the domain, m/s.
    pub inflow: f32,
    /// The applied pressure's mean over the surface, kinematic (p/ρ, m²/s²).
    pub pressure: f32,
    /// The travelling wave's phase ω·t (mod 2π) and its kinematic amplitude (0 once it stops).
    pub phase: f32,
    pub wave: f32,
    /// Each side's role (WALL, INFLOW, OUTFLOW), west, east, south, north.
    pub sides: [u32; 4],
}

/// A quantity over time.
#[derive(Clone, Debug, PartialEq)]
enum Series {
    Constant(f64),
    Sine { mean: f64, amplitude: f64, period: f64 },
    Table(crate::engine::table::Table),
}

impl Series {
    fn at(&self, t: f64) -> f64 {
        match self {
            Series::Constant(v) => *v,
            Series::Sine {
                mean,
                amplitude,
                period,
            } => mean + amplitude * (std::f64::consts::TAU * t / period).sin(),
            Series::Table(table) => table.at(t),
        }
    }
}

/// The travelling wind-wave forcing of eq. (17): p = P·cos(k·s − ω·t) along `direction`, with
/// k = π/L (eq. 19, 2L the wavelength) and ω the free wave's frequency at depth D (ω² =
/// g·k·tanh(k·D)), so the pressure runs with the wave it raises. Eq. (18) gives B with a sign
/// that makes it imaginary (√(−gD/C)); instead P comes from linear theory: a pressure at the
/// free wave's speed grows it by k·tanh(kD)·P/(2ρω) per second, so P = 2ρω·a/(k·tanh(kD)·ramp)
/// raises a wave `a` high over `ramp` seconds, when the forcing stops.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Wave {
    /// Wavenumber k, rad/m, and the direction's unit vector.
    pub k: f64,
    pub direction: [f64; 2],
    omega: f64,
    /// P/ρ, m²/s².
    amplitude: f64,
    ramp: f64,
}

/// The layer's forcing as a scene sets it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Forcing {
    inflow: Option<(Side, Series, Option<f64>)>,
    outflow: Vec<Side>,
    pressure: Option<Series>,
    wave: Option<Wave>,
    /// 1/ρ: the scene's pressures are Pa, the layer's kinematic.
    per_density: f64,
    /// One step, s.
    dt: f64,
}

fn side_index(side: Side) -> usize {
    match side {
        Side::West => 0,
        Side::East => 1,
        Side::South => 2,
        Side::North => 3,
    }
}

use crate::engine::table::read as read_table;

fn series(
    scene: &Scene,
    kind: NsSeries,
    mean: f64,
    amplitude: f64,
    period: Option<f64>,
    file: Option<&Path>,
    key: &str,
) -> Result<Series> {
    Ok(match kind {
        NsSeries::Constant | NsSeries::Wave => Series::Constant(mean),
        NsSeries::Sine => Series::Sine {
            mean,
            amplitude,
            period: period.unwrap_or(1.0),
        },
        NsSeries::Table => Series::Table(read_table(scene, file.unwrap_or(Path::new("")), key)?),
    })
}

impl Forcing {
    /// The forcing of `scene`'s `[navier_stokes]` over water `mean_depth` m deep on average.
    pub fn new(scene: &Scene, mean_depth: f64) -> Result<Forcing> {
        let ns = scene.navier_stokes.clone().unwrap_or_default();
        let per_density = 1.0 / scene.physics.water_density;
        let inflow = match &ns.inflow {
            Some(i) => Some((
                i.side,
                series(
                    scene,
                    i.kind,
                    i.velocity,
                    i.amplitude,
                    i.period,
                    i.file.as_deref(),
                    "navier_stokes.inflow.file",
                )?,
                i.until,
            )),
            None => None,
        };
        let (pressure, wave) = match &ns.forcing {
            Some(f) => (
                Some(series(
                    scene,
                    f.kind,
                    f.pressure,
                    f.amplitude,
                    f.period,
                    f.file.as_deref(),
                    "navier_stokes.forcing.file",
                )?),
                (f.kind == NsSeries::Wave).then(|| wave(f, scene.physics.gravity, mean_depth)),
            ),
            None => (None, None),
        };
        Ok(Forcing {
            inflow,
            outflow: ns.outflow.clone(),
            pressure,
            wave,
            per_density,
            dt: scene.time.dt,
        })
    }

    /// Whether water crosses a side (the volume then changes by what the sides carry).
    pub fn open_sides(&self) -> bool {
        self.inflow.is_some() || !self.outflow.is_empty()
    }

    /// The travelling wave, if the forcing is one.
    pub fn wave(&self) -> Option<Wave> {
        self.wave
    }

    /// The record of a substep that starts at `t` s.
    pub fn at(&self, t: f64) -> Substep {
        let mut out = Substep::default();
        for &side in &self.outflow {
            out.sides[side_index(side)] = OUTFLOW;
        }
        if let Some((side, series, until)) = &self.inflow {
            if until.is_some_and(|end| t >= end) {
                out.sides[side_index(*side)] = OUTFLOW;
            } else {
                out.sides[side_index(*side)] = INFLOW;
                out.inflow = series.at(t) as f32;
            }
        }
        if let Some(p) = &self.pressure {
            out.pressure = (p.at(t) * self.per_density) as f32;
        }
        if let Some(w) = &self.wave {
            if t < w.ramp {
                out.phase = (w.omega * t).rem_euclid(std::f64::consts::TAU) as f32;
                out.wave = w.amplitude as f32;
            }
        }
        out
    }

    /// The records of `steps` steps of `substeps` each from step `first`, in order.
    pub fn chunk(&self, first: u64, steps: u32, substeps: u32) -> Vec<Substep> {
        let sub = self.dt / substeps as f64;
        (0..steps as u64 * substeps as u64)
            .map(|n| self.at(first as f64 * self.dt + n as f64 * sub))
            .collect()
    }
}

fn wave(f: &NsForcing, g: f64, mean_depth: f64) -> Wave {
    let length = f.wavelength.unwrap_or(1.0);
    let depth = f.depth.unwrap_or(mean_depth).max(1e-6);
    let k = std::f64::consts::TAU / length;
    let omega = (g * k * (k * depth).tanh()).sqrt();
    let ramp = f.ramp.unwrap_or(4.0 * std::f64::consts::TAU / omega);
    let a = f.height.unwrap_or(0.0);
    let angle = f.direction.to_radians();
    Wave {
        k,
        direction: [angle.cos(), angle.sin()],
        omega,
        amplitude: 2.0 * omega * a / (k * (k * depth).tanh() * ramp),
        ramp,
    }
}
