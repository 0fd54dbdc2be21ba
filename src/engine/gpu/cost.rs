//! What each pass of the schedule costs a GPU: the bytes per cell it streams through memory and
//! its dispatches. `shoal run --dry-run` prints them per pass and per step, and `shoal run
//! --profile` beside each pass's GPU time from timestamps (`gpu::profile`).
//!
//! Bytes count each per-cell buffer a pass's dispatches stream once per dispatch (a neighbour's
//! value is taken to come from cache, as it does on a GPU for a tile of cells); uniforms, per-body
//! and per-workgroup data are left out. They are read off the WGSL bindings, so they are a model
//! of the traffic, not a measurement: bytes per cell times cells per second is the ceiling to
//! compare measured steps/s against (the explicit step reached 63–68 % of an H200's at 8192²,
//! 2026-11-28 and 12-04; a pass far below its ceiling is bound by something else: instructions,
//! latency, launches).

use crate::engine::bodies::BodyParams;
use crate::engine::params::{Params, CORRECT_CLAMPS};
use crate::engine::schedule::{Pass, Schedule};
use crate::models::height_field::gpu::adi::Tiling;
use crate::scene::BoundaryMode;
use crate::wgsl::common::{FORCE_DAMPING_MAP, FORCE_PRESSURE};

/// One pass's cost: bytes per cell read and written, dispatches, and what the figures leave out.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Cost {
    pub read: u32,
    pub written: u32,
    pub dispatches: u32,
    /// Work that does not scale with the grid (a body, a probe, a box of tagged cells).
    pub note: &'static str,
}

impl std::ops::Add for Cost {
    type Output = Cost;
    fn add(self, o: Cost) -> Cost {
        Cost {
            read: self.read + o.read,
            written: self.written + o.written,
            dispatches: self.dispatches + o.dispatches,
            note: "",
        }
    }
}

impl Cost {
    /// The cost of running this `n` times.
    fn times(self, n: u32) -> Cost {
        Cost {
            read: self.read * n,
            written: self.written * n,
            dispatches: self.dispatches * n,
            note: self.note,
        }
    }
}

const F32: u32 = 4;

const fn cost(read: u32, written: u32, dispatches: u32) -> Cost {
    Cost {
        read,
        written,
        dispatches,
        note: "",
    }
}

/// Work that does not scale with the grid.
const fn fixed(dispatches: u32, note: &'static str) -> Cost {
    Cost {
        note,
        ..cost(0, 0, dispatches)
    }
}

/// A Navier-Stokes substep with markers (ns_markers.wgsl) in place of the height field's
/// passes: per surface cell its ground, the column's highest marker and the surface written
/// (`marker_surface`); 3 marker passes for the flags instead of `columns`, and `marker_extend`,
/// `marker_move`, `marker_emit`, `marker_top_clear`, `marker_top`, `marker_surface` instead of
/// `flux`, `limit` and `apply`. The markers' own bytes are per marker.
const MARKER_SUBSTEP: Cost = Cost {
    read: 2 * F32,
    written: F32,
    dispatches: 8 - 1 - 3 + 3 + 6,
    note: "per substep; + 8 B per marker in count, move (read and written) and top; + the 3D grid's \
           ~60 B per cell and ~56 B and 4 dispatches per cell per pressure sweep",
};

/// A height-field cell's spray slots, bytes (ns_spray.wgsl).
const SLOT_BYTES: u32 = crate::models::navier_stokes::spray::SLOTS * 32;

/// The cost of `pass` for these parameters (`bodies` for the coupling's iteration count);
/// `fused`: the schedule fuses the correction into the explicit step
/// (`Schedule::fuses_correction`).
///
/// Long (about 95 lines): one match arm per pass, a table the cost model reads as a whole.
pub fn pass_cost(pass: Pass, p: &Params, bodies: &BodyParams, fused: bool) -> Cost {
    let on = |flag: bool, bytes: u32| if flag { bytes } else { 0 };
    let clamps = p.correct == CORRECT_CLAMPS;
    match pass {
        // close.wgsl: one workgroup folds the partials the step wrote (one per 2048 cells),
        // settles the correction (the next step applies it as it reads; `apply` runs once per
        // chunk) and records the probes.
        Pass::Reduce if fused => fixed(1, "the fold, the settle and the probes; one workgroup"),
        Pass::Volume | Pass::Probe if fused => fixed(0, "in close"),
        // partial_sums streams eta, vel and ground (+ shortfall, clamp record, covers, and with
        // the faces' memory a wet cell's four faces: two words a cell, its neighbours' in cache);
        // finish folds one partial per 2048 cells.
        Pass::Reduce => cost(
            3 * F32
                + on(p.sources != 0, F32)
                + on(clamps, 2 * F32)
                + on(p.bodies != 0, 4 * F32)
                + on(p.faces != 0, 2 * F32),
            0,
            2,
        ),
        // step: ground, eta, vel and carry in (+ the damping map, the pressure head, the faces'
        // memory); eta, vel and carry out (+ the faces' memory). edges: the perimeter.
        Pass::Explicit { edges } => cost(
            4 * F32
                + on(p.forcing & FORCE_DAMPING_MAP != 0, F32)
                + on(p.forcing & FORCE_PRESSURE != 0, F32)
                + on(p.faces != 0, 2 * F32),
            3 * F32 + on(p.faces != 0, 2 * F32),
            1 + edges as u32,
        ),
        // One head per cell, from every patch (arithmetic, no reads per cell).
        Pass::Pressure => cost(0, F32, 1),
        // eta and ground in, the 16 B summary read and written.
        Pass::Summary => cost(2 * F32 + 4 * F32, 4 * F32, 1),
        Pass::Adi => adi_cost(p),
        Pass::Footprint => cost(2 * F32, 5 * F32, 1),
        // plan, solo (a workgroup per cluster of bodies) and with several bodies solo_report;
        // where a cluster may outgrow SOLO cells, the passes over the box too (with no work on
        // steps whose clusters fit).
        Pass::Coupling => {
            let solo = 2 + (bodies.count > 1) as u32;
            if bodies.always_solo() {
                return fixed(solo, "a workgroup solves each cluster of bodies' box of tagged cells");
            }
            let solve = if bodies.method == crate::engine::bodies::COUPLING_PCG {
                4 * bodies.iterations
            } else {
                bodies.iterations
            };
            fixed(
                solo + 3 + solve,
                "over the box of tagged cells only; on steps where every cluster of bodies fits a \
                 workgroup, 2 or 3 dispatches work",
            )
        }
        Pass::Integrate => fixed(1, "one workgroup per body"),
        // check (eta, ground, old labels; it stops reading once a workgroup finds a change),
        // union (eta, ground, parents), compression (eta, ground, parents; parents out where a
        // path shortens), numbering with the per-region sums (eta, ground, parents, vel, pending,
        // old labels, and with the faces' memory a wet cell's faces; labels and parents out), the
        // split (eta, ground, old labels); the roots' masks and the table stay in cache. Was 9
        // dispatches and ~25 words a cell with separate numbering and spread passes and no check.
        Pass::Regions => Cost {
            note: "where the wet set changed; where it did not, union, compression, scan and split are empty: ~40 B",
            ..cost(18 * F32 + on(p.faces != 0, 2 * F32), 3 * F32, 7)
        },
        // apply: ground, eta, vel, carry (+ labels, sources, clamp record; under
        // [infiltration] the soil's state and the law's three planes) in, eta, vel, carry
        // (+ shortfall, pending, clamp record, the soil's state) out; settle is one thread; rain
        // runs on steps with drops, one thread per drop.
        Pass::Volume => cost(
            4 * F32
                + on(p.regions != 0, F32)
                + on(p.sources != 0, F32)
                + on(clamps, 2 * F32)
                + on(p.infiltration != 0, 7 * F32),
            3 * F32
                + on(p.sources != 0, F32)
                + on(p.sources != 0 && p.regions != 0, F32)
                + on(clamps, 2 * F32)
                + on(p.infiltration != 0, 4 * F32),
            2,
        ),
        Pass::Probe => fixed(1, "one thread per probe"),
        Pass::PipeFlow
        | Pass::PipeApply
        | Pass::Spray
        | Pass::PipeRain
        | Pass::PipeSurface
        | Pass::PipePress
        | Pass::PipeLoads => pipes_cost(pass, p),
        Pass::NsSpray | Pass::NavierStokes | Pass::NsBodies => layer_cost(pass),
        // stage_one: ground, eta, qx, qy of the cell's 9-point cross in (16 B a cell from
        // memory: a 16×16 tile reads its 2-cell frame too, 1.5× the tile, the neighbours' share
        // from cache), U1's three out; stage_two: the same of U1, and U0's three of the cell
        // itself, U2's three out over U0; each stage reads and writes the cell's carry (the
        // surface's rounding, kept).
        // Under air pressure or bodies each stage reads the cell's head beside its ground.
        Pass::ShallowWater => Cost {
            note: "two fused stages on 16×16 tiles; the 2-cell halo (1.5× the tile) from cache",
            ..cost(
                4 * F32
                    + (4 * F32 + 3 * F32)
                    + 2 * F32
                    + on(p.forcing & FORCE_PRESSURE != 0 || p.bodies != 0, 2 * F32)
                    + on(p.forcing & FORCE_DAMPING_MAP != 0, 2 * F32),
                3 * F32 + 3 * F32 + 2 * F32,
                2,
            )
        },
        // The cover's held in (its 16 B record), the head read (with patches) and written.
        Pass::SwPress => cost(4 * F32 + on(p.forcing & FORCE_PRESSURE != 0, F32), F32, 1),
        Pass::SwLoads => fixed(1, "one workgroup per body, over its footprint and 2 cells around"),
        // ground, eta, qx, qy in; the two maps read and written.
        Pass::SwMaps => cost(4 * F32 + 2 * F32, 2 * F32, 1),
        // rainfall: ground, eta, carry (+ the map's share) in, eta and carry out, where it
        // rains; drops: one thread per entry, on steps with entries.
        Pass::SwFeed => Cost {
            note: "+ one thread per drop, hydrograph, source or maker cell, on steps with entries",
            ..if p.rainfall != 0 {
                cost(
                    3 * F32 + on(p.rainfall == crate::engine::feeds::RAINFALL_MAP, F32),
                    2 * F32,
                    2,
                )
            } else {
                fixed(1, "")
            }
        },
    }
}

/// The pipes' passes: per cell of a column, or per column.
fn pipes_cost(pass: Pass, p: &Params) -> Cost {
    let on = |flag: bool, bytes: u32| if flag { bytes } else { 0 };
    match pass {
        // One cell per column (overhangs multiply the pipes by layers²): geometry, water,
        // velocity and the 8 pipes' velocities in; the pipes' velocities, the units each gives
        // and the limiter share out.
        // A ghost-mean side first sums the sea (`sea_sums`: each column's lowest cell's geometry
        // and water) and reduces it in one workgroup (`sea_level`).
        Pass::PipeFlow => {
            let sea = p.uses(crate::scene::BoundaryMode::GhostMean);
            Cost {
                note: "per cell of a column; 8·layers² pipes each",
                ..cost(
                    2 * F32 + F32 + 2 * F32 + 8 * F32 + on(sea, 3 * F32),
                    8 * F32 + 8 * F32 + F32,
                    1 + 2 * sea as u32,
                )
            }
        }
        // geometry, water, the 8 pipes, what the cell and its neighbours gave, the shares and
        // the feed in; water and velocity out (pipes rewritten only where a giver was limited).
        Pass::PipeApply => Cost {
            note: "per cell of a column; 8·layers² pipes each",
            ..cost(2 * F32 + F32 + 8 * F32 + 16 * F32 + F32 + 2 * F32, F32 + 2 * F32, 1)
        },
        // Per column: count (the top cell's geometry and water in; the plan and the count out),
        // the scan (the count in twice, the offset out), emit (the plan and offset in), settle
        // (geometry, water, plan, the landed, impact and leaving words in; water and pressure
        // out). The particles' passes stream 32 bytes per particle each.
        Pass::Spray => Cost {
            note: "per column; plus 32 B per particle in fly, compact and copy",
            ..cost(
                (2 * F32 + F32) + 2 * F32 + (4 * F32 + F32) + (2 * F32 + F32 + 4 * F32 + 3 * F32),
                (4 * F32 + F32) + F32 + 2 * F32,
                9,
            )
        },
        // One thread per drop entry: the column's geometry up to its top cell, its water and
        // its exchange; on steps with drops only. Per column: `[rainfall]` reads the column's
        // carry (and map share), its geometry up to its top cell, its top water and exchange,
        // and writes the three back; `[infiltration]` reads the soil's state (16 B), the law's
        // three planes, the owed fraction, the lowest cell's water and the exchange, and writes
        // all but the law back.
        Pass::PipeRain => {
            let rainfall = p.rainfall != 0;
            let soaking = p.infiltration != 0;
            if !rainfall && !soaking {
                return fixed(1, "one thread per column a drop wets, on steps with drops");
            }
            Cost {
                note: "+ one thread per column a drop wets, on steps with drops; the geometry \
                       up to each column's top cell (one layer counted)",
                ..cost(
                    on(rainfall, F32 + 2 * F32 + F32 + 2 * F32)
                        + on(p.rainfall == crate::engine::feeds::RAINFALL_MAP, F32)
                        + on(soaking, 4 * F32 + 3 * F32 + F32 + F32 + 2 * F32),
                    on(rainfall, F32 + F32 + 2 * F32) + on(soaking, 4 * F32 + F32 + F32 + 2 * F32),
                    rainfall as u32 + soaking as u32,
                )
            }
        }
        // Per column: each cell's geometry and water up to the top (one layer counted); the
        // surface out.
        Pass::PipeSurface => Cost {
            note: "per column; the geometry and water of each cell up to the top (one layer counted)",
            ..cost(2 * F32 + F32, F32, 1)
        },
        // The cover's held in (its 16 B record), the air's head read (with patches) and written.
        Pass::PipePress => cost(
            4 * F32 + on(p.forcing & crate::wgsl::common::FORCE_PRESSURE != 0, F32),
            F32,
            1,
        ),
        Pass::PipeLoads => fixed(1, "one workgroup per body, over its footprint and 2 cells around"),
        other => unreachable!("{other:?} is not a pass of the pipes"),
    }
}

/// The Navier-Stokes layer's passes: per surface cell, with the 3D grid's cost in the notes.
fn layer_cost(pass: Pass) -> Cost {
    match pass {
        // One workgroup per body: up to 16³ nodes, each reading the surface and ground under it,
        // ~7 flags and pressures and 6 face velocities.
        Pass::NsBodies => fixed(1, "one workgroup per body; ≤ 4096 nodes of ~80 B each"),
        // Per surface cell, the height field's flux, limit and apply: 8·layers B of face
        // velocities and ~164 B of fluxes, shares and surface. The 3D grid's cost is per 3D cell
        // (layers / coarsen² per surface cell): begin, columns, momentum (flags, p, the old faces
        // in; the new out: ~32 B) and the surface velocities twice (~60 B in all), then per
        // pressure sweep check, decide, red and black (flags, faces and p: ~56 B, 4 dispatches),
        // for as many sweeps as the budget records (those past convergence empty).
        // Per height-field cell: `fly` streams its SLOTS slots (32 B each, in and out) and reads
        // the surface and ground where a particle is; `birth` reads the cell's surface, ground,
        // landed word and slots, and the 3D faces at its surface, and writes the surface.
        Pass::NsSpray => Cost {
            note: "per surface cell; 8 slots of 32 B read and written in fly, read in birth",
            ..cost(
                SLOT_BYTES + 2 * F32 + (3 * F32 + SLOT_BYTES + 6 * F32),
                SLOT_BYTES + F32,
                2,
            )
        },
        Pass::NavierStokes => Cost {
            note: "per substep; + ~60 B per 3D cell, + ~56 B and 4 dispatches per 3D cell per pressure sweep",
            ..cost(8 * 8 + 100, 64, 8)
        },
        other => unreachable!("{other:?} is not a pass of the Navier-Stokes layer"),
    }
}

/// One ADI substep: per axis, `levels` global PCR steps (`build` then `reduce_global`, scratch
/// vec4s) for lines longer than 2048 cells, the on-chip solve, the cyclic factor on periodic
/// lines and the flux-form rebuild (`conserve`) where the solve could not fuse it.
fn adi_cost(p: &Params) -> Cost {
    let periodic = |a: u32, b: u32| a == BoundaryMode::Periodic as u32 && b == BoundaryMode::Periodic as u32;
    let axes = [
        (p.nx, periodic(p.bc_west, p.bc_east)),
        (p.ny, periodic(p.bc_south, p.bc_north)),
    ];
    let mut total = Cost::default();
    for (axis, (n, periodic)) in axes.into_iter().enumerate() {
        let tiling = Tiling::for_line(n);
        let fused = tiling.levels == 0 && !periodic;
        // The x sweep reads eta, vel and ground and writes δx; the y sweep reads eta, ground, δx
        // and carry and writes the level (eta, vel, carry). With the faces' memory each sweep
        // reads it (what the cell keeps), the x sweep leaves the east face's flux in its word and
        // the y sweep reads that and writes both faces' memory.
        let on = |flag: bool, bytes: u32| if flag { bytes } else { 0 };
        let faces = p.faces != 0;
        let mut c = if axis == 0 {
            cost(3 * F32 + on(faces, 2 * F32), F32 + on(faces, F32), 1)
        } else {
            cost(4 * F32 + on(faces, 3 * F32), 3 * F32 + on(faces, 2 * F32), 1)
        };
        if tiling.levels > 0 {
            c.read += 3 * F32 + tiling.levels * 4 * F32;
            c.written += (1 + tiling.levels) * 4 * F32;
            c.dispatches += 1 + tiling.levels;
        }
        if periodic {
            c.read += F32;
            c.written += F32;
            c.dispatches += 1;
        }
        if !fused {
            c.read += 3 * F32;
            c.written += F32;
            c.dispatches += 1;
        }
        total = total + c;
    }
    if crate::engine::schedule::slope_corners(p) {
        total.dispatches += 1;
    }
    total
}

/// The schedule's cost per pass, in the order a step runs them, each with how many times a
/// step runs it, then the step's total.
pub fn step_cost(
    schedule: &Schedule,
    substeps: u32,
    p: &Params,
    bodies: &BodyParams,
) -> (Vec<(Pass, u32, Cost)>, Cost) {
    let mut rows = Vec::new();
    let mut total = Cost::default();
    for (passes, times) in [
        (&schedule.before, 1),
        (&schedule.substep, substeps),
        (&schedule.after, 1),
    ] {
        let fused = schedule.fuses_correction(p);
        let markers = matches!(
            schedule.model,
            crate::engine::schedule::ModelRun::NavierStokes { markers: true, .. }
        );
        for &pass in passes {
            let c = match pass {
                Pass::NavierStokes if markers => MARKER_SUBSTEP,
                _ => pass_cost(pass, p, bodies, fused),
            };
            total = total + c.times(times);
            rows.push((pass, times, c));
        }
    }
    (rows, total)
}

/// The schedule's cost as `shoal run --dry-run` prints it: TOML comments, one line a pass.
pub fn describe(schedule: &Schedule, substeps: u32, p: &Params, bodies: &BodyParams) -> String {
    let (rows, total) = step_cost(schedule, substeps, p, bodies);
    let fused = schedule.fuses_correction(p);
    let mut out = format!(
        "# schedule ({}), per step of {substeps} substep(s):\n",
        schedule.model.describe()
    );
    for (pass, times, c) in rows {
        let note = if c.note.is_empty() {
            String::new()
        } else {
            format!(" ({})", c.note)
        };
        out += &format!(
            "#   {times} × {:<18} read {:>3} B/cell, write {:>3} B/cell, {:>3} dispatch(es){note}\n",
            // As `--profile` names it: with the correction fused, close.wgsl runs for the reduction.
            if fused && pass == Pass::Reduce {
                "close"
            } else {
                pass.name()
            },
            c.read,
            c.written,
            c.dispatches
        );
    }
    out += &format!(
        "# step total: {} B/cell ({} read, {} written), {} dispatches\n",
        total.read + total.written,
        total.read,
        total.written,
        total.dispatches
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::schedule::ModelRun;

    #[test]
    fn an_adi_substep_on_short_closed_lines_is_two_fused_solves() {
        let p = Params {
            nx: 256,
            ny: 128,
            ..Params::default()
        };
        let c = pass_cost(Pass::Adi, &p, &BodyParams::default(), false);
        assert_eq!(c.dispatches, 2);
        assert_eq!((c.read, c.written), (28, 16));
    }

    #[test]
    fn the_step_total_counts_each_substep() {
        let p = Params {
            nx: 64,
            ny: 64,
            n_probes: 1,
            ..Params::default()
        };
        let s = Schedule::new(ModelRun::HeightField(crate::scene::Method::Explicit), &p, false);
        let (rows, total) = step_cost(&s, 3, &p, &BodyParams::default());
        assert_eq!(rows.len(), 2);
        assert_eq!(total.dispatches, 3 + 1);
        assert_eq!(total.read + total.written, 3 * 28);
    }

    #[test]
    fn a_coupling_whose_box_always_fits_one_workgroup_is_two_dispatches() {
        let p = Params::default();
        let pcg = |count: u32, box_cells| BodyParams {
            count,
            method: crate::engine::bodies::COUPLING_PCG,
            iterations: 100,
            box_cells,
            ..BodyParams::default()
        };
        let solo = crate::wgsl::coupling::SOLO;
        let dispatches = |count, box_cells| pass_cost(Pass::Coupling, &p, &pcg(count, box_cells), false).dispatches;
        assert_eq!(dispatches(1, solo), 2);
        // A larger box may come: plan, solo, start, its total, 4 an iteration, apply.
        assert_eq!(dispatches(1, solo + 1), 405);
        // Sixteen bodies: their clusters' report too.
        assert_eq!(dispatches(16, solo), 3);
        assert_eq!(dispatches(16, solo + 1), 406);
        // More bodies than plan clusters: the passes over the box.
        assert_eq!(dispatches(65, solo), 406);
    }

    #[test]
    fn a_fused_step_streams_the_level_once() {
        let p = Params {
            nx: 64,
            ny: 64,
            n_probes: 1,
            correct: crate::engine::params::CORRECT_TARGET,
            ..Params::default()
        };
        let s = Schedule::new(ModelRun::HeightField(crate::scene::Method::Explicit), &p, false);
        let (rows, total) = step_cost(&s, 1, &p, &BodyParams::default());
        let names: Vec<_> = rows
            .iter()
            .map(|(pass, _, c)| (pass.name(), c.read + c.written, c.dispatches))
            .collect();
        assert_eq!(
            names,
            [("explicit", 28, 1), ("reduce", 0, 1), ("volume", 0, 0), ("probe", 0, 0)]
        );
        assert_eq!((total.read + total.written, total.dispatches), (28, 2));
        // With a source the passes stay apart: the reduction and the correction stream the level.
        let q = Params { sources: 1, ..p };
        let s = Schedule::new(ModelRun::HeightField(crate::scene::Method::Explicit), &q, false);
        let (_, total) = step_cost(&s, 1, &q, &BodyParams::default());
        assert!(total.read + total.written > 60);
    }
}
