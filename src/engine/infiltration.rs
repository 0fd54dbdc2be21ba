//! `[infiltration]`: the ground takes water where a cell is wet, never more than the cell holds.
//!
//! Four laws (`soil.wgsl`, twins [`capacity`] and [`took`]), each a capacity per step that the
//! model takes from a wet cell's water after the step's rain (the shallow-water model's feed,
//! `sw_feed.wgsl`'s `infiltrate`; the height field's volume pass, `volume.wgsl`'s `apply`),
//! tracked per cell by the soil's state: the depth infiltrated so far
//! F (m) and one more quantity X, both compensated (TwoSum) so a step's 1e-8 m is not rounded
//! away on a total of centimetres:
//! - `constant`: f = rate.
//! - `horton` (Horton 1940): f = fc + (f0 − fc)·e^(−k·t), t Horton's time kept as X and advanced
//!   by what the cell took over what it could have (the equivalent-time form: a cell that takes
//!   less than its capacity, short of water, ages less), so F follows Horton's integral
//!   fc·t + (f0 − fc)/k·(1 − e^(−k·t)) under ponding and no capacity is lost to dry spells.
//! - `green-ampt` (Green & Ampt 1911): f = Ks·(1 + ψ·Δθ/F), explicit in F per step, F taken at
//!   least √(2·Ks·ψ·Δθ·dt) (what dry soil takes in its first step, the law's early-time limit),
//!   so the first step's capacity is finite. The ponded head is left out (as SWMM and HEC-HMS
//!   do).
//! - `curve-number` (SCS 1972): of the rain P a cell has had (X), the runoff is
//!   (P − Ia)²/(P − Ia + S) past the initial abstraction Ia = ia_ratio·S, S = 25.4·(1000/CN − 10)
//!   mm; the rest the ground takes as it falls. It counts the rain of `[rainfall]` (not drops or
//!   sources), and water that runs onto a cell infiltrates no more (the method's own rule).
//!
//! The parameters ride as three planes after the ground each model's passes read
//! (`SwParams::soil_at`; the height field's after its forcing, `Params::infiltration`), in the
//! units the passes use: metres per step, and Horton's k per step.

use crate::error::Result;
use crate::models::height_field::cpu::explicit::two_sum;
use crate::scene::{InfiltrationModel, Scene};

/// Each law's code in `SwParams::infiltration` (0: none).
pub const CONSTANT: u32 = crate::wgsl::soil::SOIL_CONSTANT;
/// Horton's law.
pub const HORTON: u32 = crate::wgsl::soil::SOIL_HORTON;
/// Green & Ampt's law.
pub const GREEN_AMPT: u32 = crate::wgsl::soil::SOIL_GREEN_AMPT;
/// The SCS curve number.
pub const CURVE_NUMBER: u32 = crate::wgsl::soil::SOIL_CURVE_NUMBER;

/// Floats of soil state per cell: F and its rounding, X and its rounding.
pub const SOIL_FLOATS: usize = 4;

/// Twin of `runoff` (soil.wgsl): the curve number's runoff from rain `rain` (m) past the initial
/// abstraction `ia`, retention `s`.
pub fn runoff(rain: f32, s: f32, ia: f32) -> f32 {
    let over = rain - ia;
    if over <= 0.0 {
        return 0.0;
    }
    over * over / (over + s)
}

/// Twin of `soil_capacity` (soil.wgsl): law `law`'s capacity (m) this step for a cell with
/// parameters `par` and state `soil`, which the step's rainfall gave `rain` m; and the state
/// with that rain counted (the curve number's).
pub fn capacity(law: u32, par: [f32; 3], soil: [f32; 4], rain: f32) -> (f32, [f32; 4]) {
    let [a, b, k] = par;
    let mut st = soil;
    let cap = match law {
        CONSTANT => a,
        HORTON => b + (a - b) * (-k * st[2]).exp(),
        GREEN_AMPT if b > 0.0 => a * (1.0 + b / st[0].max((2.0 * a * b).sqrt())),
        GREEN_AMPT => a,
        CURVE_NUMBER => {
            (st[2], st[3]) = two_sum(st[2], rain + st[3]);
            let total = st[2] + st[3];
            (total - runoff(total, a, b) - (st[0] + st[1])).max(0.0)
        }
        _ => 0.0,
    };
    (cap, st)
}

/// Cell `c`'s three parameters from the law's planes (`Soil::planes`: a plane of `cells` values
/// each), as every model's pass reads them.
pub fn parameters_at(planes: &[f32], cells: usize, c: usize) -> [f32; 3] {
    [planes[c], planes[cells + c], planes[2 * cells + c]]
}

/// Twin of `soil_took` (soil.wgsl): the state after the cell gave `take` (> 0) of its capacity
/// `cap`.
pub fn took(law: u32, soil: [f32; 4], take: f32, cap: f32) -> [f32; 4] {
    let mut st = soil;
    (st[0], st[1]) = two_sum(st[0], take + st[1]);
    if law == HORTON {
        // Horton's time advances by the share of its capacity the cell took.
        st[2] += take / cap;
    }
    st
}

/// mm/h in m/s.
const MM_PER_H: f64 = 1.0 / 3.6e6;

/// The scene's infiltration as the feed takes it: its law's code and the three parameter
/// planes (`3 × cells`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Soil {
    /// The law's code.
    pub law: u32,
    /// Its three parameters per cell, plane after plane.
    pub planes: Vec<f32>,
}

/// The parameters a law takes, with the default where it has one.
fn takes(model: InfiltrationModel) -> &'static [(&'static str, Option<f64>)] {
    match model {
        InfiltrationModel::Constant => &[("rate", None)],
        InfiltrationModel::Horton => &[("f0", None), ("fc", None), ("k", None)],
        InfiltrationModel::GreenAmpt => &[("ks", None), ("psi", None), ("dtheta", None)],
        InfiltrationModel::CurveNumber => &[("cn", None), ("ia_ratio", Some(0.2))],
    }
}

/// The range a parameter's values must lie in, and how to say it.
fn range(key: &str) -> (f64, f64, &'static str) {
    match key {
        "dtheta" | "ia_ratio" => (0.0, 1.0, "a finite number in [0, 1]"),
        "cn" => (f64::MIN_POSITIVE, 100.0, "a finite number in (0, 100]"),
        _ => (0.0, f64::MAX, "a finite number ≥ 0"),
    }
}

/// `[infiltration]` resolved over the grid, its errors naming the key: a law's missing
/// parameter, one it does not take, a value and a map both given, a value or a map cell out of
/// range, a PNG map (shades are no rate).
pub fn soil(scene: &Scene) -> Result<Option<Soil>> {
    let Some(inf) = &scene.infiltration else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(&scene.origin).ok();
    let fail = |key: &str, why: String| scene.error_at(text.as_deref(), &format!("infiltration.{key}"), why);
    let wanted = takes(inf.model);
    let name = |m: InfiltrationModel| match m {
        InfiltrationModel::Constant => "constant",
        InfiltrationModel::Horton => "horton",
        InfiltrationModel::GreenAmpt => "green-ampt",
        InfiltrationModel::CurveNumber => "curve-number",
    };
    let list = wanted.iter().map(|(k, _)| *k).collect::<Vec<_>>().join(", ");
    let cells = scene.grid.cells();
    let mut values: Vec<Vec<f64>> = Vec::new();
    for (key, value, map) in inf.parameters() {
        let Some(&(_, default)) = wanted.iter().find(|(k, _)| *k == key) else {
            if value.is_some() || map.is_some() {
                let given = if value.is_some() {
                    key.to_string()
                } else {
                    format!("{key}_map")
                };
                return Err(fail(
                    &given,
                    format!("the {} model does not take {key} (it takes {list})", name(inf.model)),
                ));
            }
            continue;
        };
        let (lo, hi, says) = range(key);
        if value.is_some() && map.is_some() {
            return Err(fail(
                &format!("{key}_map"),
                format!("give {key} or {key}_map, not both"),
            ));
        }
        let plane = match (value.or(default), map) {
            (_, Some(path)) => {
                let map_key = format!("infiltration.{key}_map");
                let (plane, shades) = crate::scene::read_map(scene, &map_key, path)?;
                if shades {
                    return Err(fail(
                        &format!("{key}_map"),
                        format!(
                            "{}: a PNG holds shades, not {key}: give an .npy or a GeoTIFF",
                            path.display()
                        ),
                    ));
                }
                if let Some(c) = plane.iter().position(|v| !(v.is_finite() && (lo..=hi).contains(v))) {
                    let nx = scene.grid.nx as usize;
                    return Err(fail(
                        &format!("{key}_map"),
                        format!(
                            "{}: cell ({}, {}) holds {}: {key} must be {says}",
                            path.display(),
                            c % nx,
                            c / nx,
                            plane[c]
                        ),
                    ));
                }
                plane
            }
            (Some(v), None) => {
                if !(v.is_finite() && (lo..=hi).contains(&v)) {
                    return Err(fail(key, format!("must be {says} (got {v})")));
                }
                vec![v; cells]
            }
            (None, None) => {
                return Err(fail(
                    key,
                    format!(
                        "the {} model needs {key} (or {key}_map): it takes {list}",
                        name(inf.model)
                    ),
                ))
            }
        };
        values.push(plane);
    }
    let dt = scene.time.dt;
    let per_step = |mm_h: f64| mm_h * MM_PER_H * dt;
    let zero = vec![0.0; cells];
    let (law, planes): (u32, [Vec<f64>; 3]) = match inf.model {
        InfiltrationModel::Constant => (
            CONSTANT,
            [values[0].iter().map(|&r| per_step(r)).collect(), zero.clone(), zero],
        ),
        InfiltrationModel::Horton => (
            HORTON,
            [
                values[0].iter().map(|&f| per_step(f)).collect(),
                values[1].iter().map(|&f| per_step(f)).collect(),
                values[2].iter().map(|&k| k / 3600.0 * dt).collect(),
            ],
        ),
        InfiltrationModel::GreenAmpt => (
            GREEN_AMPT,
            [
                values[0].iter().map(|&k| per_step(k)).collect(),
                values[1]
                    .iter()
                    .zip(&values[2])
                    .map(|(&psi, &dtheta)| psi * dtheta)
                    .collect(),
                zero,
            ],
        ),
        InfiltrationModel::CurveNumber => {
            // S in metres: 25.4·(1000/CN − 10) mm.
            let s: Vec<f64> = values[0].iter().map(|&cn| 0.0254 * (1000.0 / cn - 10.0)).collect();
            let ia = s.iter().zip(&values[1]).map(|(&s, &r)| s * r).collect();
            (CURVE_NUMBER, [s, ia, zero])
        }
    };
    Ok(Some(Soil {
        law,
        planes: planes.concat().into_iter().map(|v| v as f32).collect(),
    }))
}
