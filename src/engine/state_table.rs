//! The state a run carries, listed once: each field's name, element, count, when it is present,
//! and whether a checkpoint keeps it. The checkpoint's layout, the checks on restore, the GPU
//! backend's save and load, and the GPU memory estimate all read this table.

use crate::engine::params::{Params, CORRECT_CLAMPS};
use crate::scene::Method;

/// A field of the state, or of the GPU buffers beside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// h − ref per cell.
    Eta,
    /// The per-substep change, h^n − h^(n−1), per cell.
    Vel,
    /// The explicit step's flux memory of each cell's east and north faces
    /// (`cpu::explicit::Memory`), with a shoreline (`Params::faces`).
    Faces,
    /// The compensated eta update's rounding residual per cell.
    Carry,
    /// What each drain could not take on the last step.
    Shortfall,
    /// What the dry-cell rule did since the last correction (made, dropped) per cell.
    Clamped,
    /// Region label per cell (id + 1, 0 dry).
    RegionLabels,
    /// Each region's target, 64-bit fixed point as (low, high) words.
    RegionTargets,
    /// Water added to each cell since the last correction (per-region accounting).
    Pending,
    /// b − ref per cell: built from the scene, kept in a checkpoint to check a resume's terrain.
    Ground,
    /// Each body's `BodyState`.
    Bodies,
    /// What covers each column (`Cover`).
    Cover,
    /// Height per step each cell's sources ask for: built from the scene.
    Source,
    /// Each cell's share of `[rainfall]`'s full intensity: built from the scene.
    RainfallMap,
    /// Each cell's 1 − tau under `physics.damping_map`: built from the scene.
    DampingMap,
    /// GPU work buffers: the air pressure's head p/(ρg) per cell this step (`[[pressure]]`).
    PressureHead,
    /// The flood maps so far (`summary::SummaryCell` per cell).
    Summary,
    /// The pipes model's `[rainfall]`: the fraction of a unit each column carries.
    PipeRainCarry,
    /// GPU work buffers: the coupling solve's vectors and face masks (per cell).
    SolveVectors,
    /// GPU work buffers: the Navier-Stokes layer's force, torque and water velocity per body.
    NsBodyLoads,
    /// GPU work buffers: union-find parents (per cell).
    RegionParents,
    /// GPU work buffers: the per-region sums and corrections.
    RegionTable,
    /// GPU work buffers: ADI's δx per cell, and PCR scratch for lines over 2048 cells.
    AdiWork,
    /// The pipes model: water per column cell, in units.
    PipeWater,
    /// The pipes model: each column cell's mean velocity (x, y), m/s.
    PipeVel,
    /// The pipes model: velocity per pipe, m/s.
    PipeFlow,
    /// The pipes model: the spray's impact pressure on each column's top cell (units of head).
    PipePressure,
    /// The spray's particles in flight (`Particle`); GPU: the buffer and its compaction target.
    Particles,
    /// The Navier-Stokes layer: kinematic pressure per 3D cell.
    NsPressure,
    /// The Navier-Stokes layer: u, v and w on the 3D cells' x, y and z faces.
    NsU,
    NsV,
    NsW,
    /// The Navier-Stokes layer's spray and foam slots (`Particle`), `SLOTS` per cell.
    NsDrops,
    /// GPU work of the layer's spray: the landed units per cell, the tally.
    NsSprayWork,
    /// The layer's marker particles (x, z) (§4.1).
    NsMarkers,
    /// The shallow-water model: the discharge d·u along x and d·v along y per cell, m²/s.
    SwQx,
    SwQy,
    /// The shallow-water model: the rounding the water fed to each cell has yet to give it, m.
    SwCarry,
    /// The shallow-water model's flood maps beyond the four: each cell's fastest depth-averaged
    /// speed and largest d·|u| while wet (two per cell).
    SwFlowMaps,
    /// `[infiltration]`: the depth each cell's ground has taken and its law's own count, each
    /// with its rounding (four per cell, `engine::infiltration`).
    Soil,
    /// The pipes model's `[infiltration]`: the fraction of a unit each column's ground is owed.
    PipeSoilOwed,
    /// The markers' book: slots used, refused, and the inflow's per-layer share owed and count.
    NsMarkerBook,
    /// GPU work of the markers: a count per 3D cell, the highest marker per column.
    NsMarkerWork,
    /// The Navier-Stokes layer: a flag per 3D cell (solid, full, surface, empty), as the last
    /// substep set it.
    NsFlags,
    /// GPU work buffers of the layer's height field: its faces' fluxes and a limiter share per
    /// cell.
    NsSurfaceWork,
    /// The pipes model: each column cell's (floor, ceiling), built from the scene.
    PipeGeometry,
    /// GPU work buffers of the pipes: units given per pipe, a limiter share per cell.
    PipeWork,
    /// GPU work buffers per column: the feed, the exchange, the surface.
    ColumnWork,
    /// GPU work buffers of the spray per column: the plan, scan counts, the landing inbox.
    SprayWork,
    /// The spray's landing inbox per column cell.
    SprayInbox,
}

/// What a field is counted in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Per {
    Cell,
    Region,
    Body,
    /// A cell of a column (the pipes model): cells × layers.
    Layer,
    /// A pipe between column cells: cells × 8 × layers².
    Pipe,
    /// A particle: up to the spray's capacity (a checkpoint holds those in flight).
    Particle,
    /// A cell of the Navier-Stokes layer's 3D grid: nx·ny·nz of it.
    NsCell,
    /// A face of the 3D grid across x, y or z: (nx + 1)·ny·nz, nx·(ny + 1)·nz, nx·ny·(nz + 1).
    NsFaceX,
    NsFaceY,
    NsFaceZ,
    /// A slot of the Navier-Stokes layer's spray: `ns_spray::SLOTS` per cell.
    NsSlot,
    /// A marker: up to the markers' capacity (a checkpoint holds those made).
    NsMarker,
    /// The markers' book: 2 + 2·nz words.
    NsBook,
}

/// Who keeps a field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kept {
    /// The backend's state: `SolverState` holds it and a checkpoint saves it.
    State,
    /// Built from the scene at the start; the checkpoint keeps it only to check a resume.
    Scene,
    /// GPU work space, rebuilt every step.
    Scratch,
}

/// The shape of a run that decides which fields are present and how large they are.
#[derive(Clone, Copy, Debug)]
pub struct Shape<'a> {
    pub params: &'a Params,
    pub method: Method,
    /// The pipes model's columns (None: the other models).
    pub pipes: Option<PipeShape>,
    /// The Navier-Stokes layer's 3D grid, [nx, ny, nz] (None: the other models).
    pub navier_stokes: Option<[usize; 3]>,
    /// The Navier-Stokes layer throws spray.
    pub ns_spray: bool,
    /// The Navier-Stokes layer's marker capacity (None: no markers).
    pub ns_markers: Option<u32>,
    /// The shallow-water model runs.
    pub shallow_water: bool,
    /// The Navier-Stokes layer's height field is fed (`models::navier_stokes::feed`): it keeps
    /// the feed's carry as the shallow-water model does.
    pub ns_fed: bool,
}

/// The pipes model's dimensions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PipeShape {
    /// Cells per column.
    pub layers: u32,
    /// The spray's particle capacity (0 without spray).
    pub capacity: u32,
}

impl PipeShape {
    /// The shape of `columns` built for `scene`.
    pub fn of(scene: &crate::scene::Scene, columns: &crate::models::pipes::columns::Columns) -> PipeShape {
        PipeShape {
            layers: columns.layers,
            capacity: crate::models::pipes::spray::spray_params(scene, columns).map_or(0, |p| p.capacity),
        }
    }
}

/// One row of the table.
pub struct Spec {
    pub field: Field,
    /// How errors name it.
    pub what: &'static str,
    pub per: Per,
    /// Elements per cell, region or body, as `SolverState` holds them.
    pub elements: u32,
    /// Bytes per element.
    pub bytes: u32,
    /// Copies on the GPU (the ping-pong levels).
    pub levels: u32,
    pub kept: Kept,
    pub present: fn(&Shape) -> bool,
}

impl Spec {
    /// Elements the field holds for this shape (0 when absent).
    pub fn len(&self, shape: &Shape, cells: usize, bodies: usize) -> usize {
        if !(self.present)(shape) {
            return 0;
        }
        let (layers, capacity) = shape.pipes.map_or((0, 0), |p| (p.layers as usize, p.capacity as usize));
        let [x, y, z] = shape.navier_stokes.unwrap_or_default();
        let n = match self.per {
            Per::Cell => cells,
            Per::Region => shape.params.regions as usize,
            Per::Body => bodies,
            Per::Layer => cells * layers,
            Per::Pipe => cells * 8 * layers * layers,
            Per::Particle => capacity,
            Per::NsCell => x * y * z,
            Per::NsFaceX => (x + 1) * y * z,
            Per::NsFaceY => x * (y + 1) * z,
            Per::NsFaceZ => x * y * (z + 1),
            Per::NsSlot => cells * crate::models::navier_stokes::spray::SLOTS as usize,
            Per::NsMarker => shape.ns_markers.unwrap_or(0) as usize,
            Per::NsBook => crate::models::navier_stokes::state::book_len(z),
        };
        n * self.elements as usize
    }
}

fn always(_: &Shape) -> bool {
    true
}
/// Kass & Miller's height field alone (not the pipes, not the Navier-Stokes layer).
fn height_field(s: &Shape) -> bool {
    s.pipes.is_none() && s.navier_stokes.is_none() && !s.shallow_water
}
fn shallow_water(s: &Shape) -> bool {
    s.shallow_water
}
/// The shallow-water model's feed's carry: its own, and the fed Navier-Stokes layer's.
fn fed_carry(s: &Shape) -> bool {
    s.shallow_water || (s.navier_stokes.is_some() && s.ns_fed)
}
/// A surface per cell: the height field's, and the Navier-Stokes layer's.
fn surface(s: &Shape) -> bool {
    s.pipes.is_none()
}
fn navier_stokes(s: &Shape) -> bool {
    s.navier_stokes.is_some()
}
fn ns_spray(s: &Shape) -> bool {
    s.navier_stokes.is_some() && s.ns_spray
}
fn ns_markers(s: &Shape) -> bool {
    s.navier_stokes.is_some() && s.ns_markers.is_some()
}
fn sources(s: &Shape) -> bool {
    height_field(s) && s.params.sources != 0
}
fn rainfall_map(s: &Shape) -> bool {
    height_field(s) && s.params.rainfall == crate::engine::feeds::RAINFALL_MAP
}
fn damping_map(s: &Shape) -> bool {
    height_field(s) && s.params.forcing & crate::wgsl::common::FORCE_DAMPING_MAP != 0
}
fn pressure(s: &Shape) -> bool {
    height_field(s) && s.params.forcing & crate::wgsl::common::FORCE_PRESSURE != 0
}
fn pipe_rainfall(s: &Shape) -> bool {
    s.pipes.is_some() && s.params.rainfall != 0
}
/// On every model that takes `[infiltration]` (validation refuses it on the others).
fn soil(s: &Shape) -> bool {
    s.params.forcing & crate::wgsl::common::FORCE_INFILTRATION != 0
}
fn pipe_soil(s: &Shape) -> bool {
    s.pipes.is_some() && soil(s)
}
fn sw_summary(s: &Shape) -> bool {
    s.shallow_water && s.params.summary != 0
}
fn summary(s: &Shape) -> bool {
    s.params.summary != 0
}
fn faces(s: &Shape) -> bool {
    height_field(s) && s.params.faces != 0
}
fn clamps(s: &Shape) -> bool {
    height_field(s) && s.params.correct == CORRECT_CLAMPS
}
fn regions(s: &Shape) -> bool {
    height_field(s) && s.params.regions != 0
}
/// Bodies float on every model.
fn bodies(s: &Shape) -> bool {
    s.params.bodies != 0
}
/// The layer's loads on its bodies (`ns_bodies.wgsl`).
fn ns_bodies(s: &Shape) -> bool {
    navier_stokes(s) && s.params.bodies != 0
}
fn adi(s: &Shape) -> bool {
    height_field(s) && s.method == Method::Adi
}
fn pipes(s: &Shape) -> bool {
    s.pipes.is_some()
}
fn spray(s: &Shape) -> bool {
    s.pipes.is_some_and(|p| p.capacity > 0)
}

const fn spec(
    field: Field,
    what: &'static str,
    per: Per,
    elements: u32,
    bytes: u32,
    kept: Kept,
    present: fn(&Shape) -> bool,
) -> Spec {
    Spec {
        field,
        what,
        per,
        elements,
        bytes,
        levels: 1,
        kept,
        present,
    }
}

const fn two_levels(s: Spec) -> Spec {
    Spec { levels: 2, ..s }
}

/// Every field, the checkpointed ones in the order a checkpoint (`SHOALCK4`) stores them.
pub const FIELDS: &[Spec] = &[
    two_levels(spec(Field::Eta, "h", Per::Cell, 1, 4, Kept::State, surface)),
    two_levels(spec(
        Field::Vel,
        "per-step change",
        Per::Cell,
        1,
        4,
        Kept::State,
        height_field,
    )),
    spec(Field::Carry, "residual", Per::Cell, 1, 4, Kept::State, height_field),
    spec(
        Field::Shortfall,
        "drain shortfall",
        Per::Cell,
        1,
        4,
        Kept::State,
        sources,
    ),
    spec(Field::Clamped, "clamp record", Per::Cell, 2, 4, Kept::State, clamps),
    two_levels(spec(
        Field::RegionLabels,
        "region labels",
        Per::Cell,
        1,
        4,
        Kept::State,
        regions,
    )),
    two_levels(spec(
        Field::RegionTargets,
        "region targets",
        Per::Region,
        2,
        4,
        Kept::State,
        regions,
    )),
    spec(Field::Pending, "pending water", Per::Cell, 1, 4, Kept::State, regions),
    spec(Field::Ground, "ground", Per::Cell, 1, 4, Kept::Scene, always),
    spec(Field::Bodies, "bodies", Per::Body, 1, 144, Kept::State, bodies),
    spec(Field::Cover, "column covers", Per::Cell, 1, 16, Kept::State, bodies),
    spec(Field::Source, "sources", Per::Cell, 1, 4, Kept::Scene, sources),
    spec(
        Field::RainfallMap,
        "rainfall map",
        Per::Cell,
        1,
        4,
        Kept::Scene,
        rainfall_map,
    ),
    spec(
        Field::DampingMap,
        "damping map",
        Per::Cell,
        1,
        4,
        Kept::Scene,
        damping_map,
    ),
    spec(
        Field::PressureHead,
        "pressure head",
        Per::Cell,
        1,
        4,
        Kept::Scratch,
        pressure,
    ),
    // b, x, r, p, PCG's (p, q) and the face masks.
    spec(
        Field::SolveVectors,
        "coupling vectors",
        Per::Cell,
        7,
        4,
        Kept::Scratch,
        bodies,
    ),
    spec(
        Field::NsBodyLoads,
        "layer loads on bodies",
        Per::Body,
        3,
        16,
        Kept::Scratch,
        ns_bodies,
    ),
    spec(
        Field::RegionParents,
        "region parents",
        Per::Cell,
        1,
        4,
        Kept::Scratch,
        regions,
    ),
    // STRIDE (16) words of sums, and a (height, vel) correction.
    spec(
        Field::RegionTable,
        "region table",
        Per::Region,
        1,
        64 + 8,
        Kept::Scratch,
        regions,
    ),
    spec(Field::AdiWork, "ADI work", Per::Cell, 1, 4, Kept::Scratch, adi),
    spec(Field::PipeWater, "column water", Per::Layer, 1, 4, Kept::State, pipes),
    spec(
        Field::PipeVel,
        "column velocities",
        Per::Layer,
        2,
        4,
        Kept::State,
        pipes,
    ),
    spec(Field::PipeFlow, "pipe velocities", Per::Pipe, 1, 4, Kept::State, pipes),
    spec(
        Field::PipePressure,
        "impact pressures",
        Per::Cell,
        1,
        4,
        Kept::State,
        pipes,
    ),
    two_levels(spec(
        Field::Particles,
        "particles",
        Per::Particle,
        1,
        32,
        Kept::State,
        spray,
    )),
    spec(
        Field::NsPressure,
        "3D pressures",
        Per::NsCell,
        1,
        4,
        Kept::State,
        navier_stokes,
    ),
    two_levels(spec(
        Field::NsU,
        "3D u velocities",
        Per::NsFaceX,
        1,
        4,
        Kept::State,
        navier_stokes,
    )),
    two_levels(spec(
        Field::NsV,
        "3D v velocities",
        Per::NsFaceY,
        1,
        4,
        Kept::State,
        navier_stokes,
    )),
    two_levels(spec(
        Field::NsW,
        "3D w velocities",
        Per::NsFaceZ,
        1,
        4,
        Kept::State,
        navier_stokes,
    )),
    spec(
        Field::PipeGeometry,
        "column cells",
        Per::Layer,
        2,
        4,
        Kept::Scratch,
        pipes,
    ),
    // Units given per pipe, and (spread over the pipes' count) a share per cell.
    // Kept: the velocity and pressure a resumed run writes at its first step are masked by them.
    spec(
        Field::NsFlags,
        "3D cell flags",
        Per::NsCell,
        1,
        4,
        Kept::State,
        navier_stokes,
    ),
    spec(Field::NsDrops, "spray slots", Per::NsSlot, 1, 32, Kept::State, ns_spray),
    spec(
        Field::NsMarkers,
        "markers",
        Per::NsMarker,
        1,
        8,
        Kept::State,
        ns_markers,
    ),
    spec(
        Field::NsMarkerBook,
        "marker book",
        Per::NsBook,
        1,
        4,
        Kept::State,
        ns_markers,
    ),
    // A count per 3D cell and a top per column: ~8 B per cell.
    spec(
        Field::NsMarkerWork,
        "marker counts",
        Per::Cell,
        1,
        8,
        Kept::Scratch,
        ns_markers,
    ),
    spec(
        Field::NsSprayWork,
        "spray landing words",
        Per::Cell,
        1,
        4,
        Kept::Scratch,
        ns_spray,
    ),
    // The fluxes 16 and the outflow's share 4, the air's head 4 (`NsBuffers::air`, always
    // there), and a column's drag words under a damping map (4) or Manning's friction (12), a
    // cell's share at most (a column of one cell).
    spec(
        Field::NsSurfaceWork,
        "surface fluxes",
        Per::Cell,
        1,
        36,
        Kept::Scratch,
        navier_stokes,
    ),
    spec(Field::PipeWork, "pipe work", Per::Pipe, 1, 4, Kept::Scratch, pipes),
    // The feed 16, the exchange 8, the surface 4.
    spec(Field::ColumnWork, "column work", Per::Cell, 1, 28, Kept::Scratch, pipes),
    // The plan 16, a scan count 4, the landing inbox 4 per layer and 8.
    spec(Field::SprayWork, "spray work", Per::Cell, 1, 28, Kept::Scratch, spray),
    spec(Field::SprayInbox, "spray inbox", Per::Layer, 1, 4, Kept::Scratch, spray),
    spec(Field::Summary, "flood maps", Per::Cell, 1, 16, Kept::State, summary),
    spec(
        Field::PipeRainCarry,
        "rainfall carry",
        Per::Cell,
        1,
        4,
        Kept::State,
        pipe_rainfall,
    ),
    // Last: a checkpoint from before it ends here, and its faces start afresh.
    two_levels(spec(Field::Faces, "face memory", Per::Cell, 2, 4, Kept::State, faces)),
    // After the faces: a checkpoint from before the shallow-water model ends at them. Two
    // levels: U0 and the stage between (U1).
    two_levels(spec(
        Field::SwQx,
        "discharge x",
        Per::Cell,
        1,
        4,
        Kept::State,
        shallow_water,
    )),
    two_levels(spec(
        Field::SwQy,
        "discharge y",
        Per::Cell,
        1,
        4,
        Kept::State,
        shallow_water,
    )),
    // After the discharges: a checkpoint from before the feeds ends at them (no carry: none was
    // kept then), and one from before the flow maps at the carry.
    spec(
        Field::SwCarry,
        "fed water's residual",
        Per::Cell,
        1,
        4,
        Kept::State,
        fed_carry,
    ),
    spec(
        Field::SwFlowMaps,
        "speed and hazard maps",
        Per::Cell,
        2,
        4,
        Kept::State,
        sw_summary,
    ),
    spec(
        Field::Soil,
        "infiltration state",
        Per::Cell,
        crate::engine::infiltration::SOIL_FLOATS as u32,
        4,
        Kept::State,
        soil,
    ),
    spec(
        Field::PipeSoilOwed,
        "infiltration's owed fractions",
        Per::Cell,
        1,
        4,
        Kept::State,
        pipe_soil,
    ),
];

/// The row of `field`.
pub fn spec_of(field: Field) -> &'static Spec {
    FIELDS.iter().find(|s| s.field == field).expect("every field has a row")
}

/// Bytes of one GPU copy of `field` for this run: the table's count times its element size, or
/// a stand-in of one element (16 bytes at least) where the run leaves the field out: a binding
/// can be neither empty nor shorter than one element of its array. The height field's GPU backend allocates
/// every table field at this size.
pub fn gpu_field_bytes(field: Field, shape: &Shape, bodies: usize) -> u64 {
    let cells = shape.params.nx as usize * shape.params.ny as usize;
    let s = spec_of(field);
    let one = (s.elements * s.bytes).max(16) as u64;
    ((s.len(shape, cells, bodies) * s.bytes as usize) as u64).max(one)
}

/// The backend state fields a run of this shape holds: what `save` and `load` move.
pub fn state_fields(shape: &Shape) -> Vec<Field> {
    FIELDS
        .iter()
        .filter(|s| s.kept == Kept::State && (s.present)(shape))
        .map(|s| s.field)
        .collect()
}

/// Fields built from the scene that a checkpoint leaves out: a resume builds them again.
const REBUILT: [Field; 3] = [Field::Source, Field::RainfallMap, Field::DampingMap];

/// The fields a checkpoint stores, in its order.
pub fn checkpointed() -> impl Iterator<Item = &'static Spec> {
    FIELDS
        .iter()
        .filter(|s| s.kept != Kept::Scratch && !REBUILT.contains(&s.field))
}

/// About how many bytes of GPU buffers a run of this shape takes (`shoal run --dry-run`): every
/// present field at its levels, plus 32 B per cell of PCR scratch where ADI's lines exceed one
/// workgroup (2048 cells), plus the shallow-water model's copy of its state at a chunk's start. Small fixed buffers (uniforms, reduce partials, probes) are left out.
pub fn gpu_bytes(shape: &Shape, bodies: usize) -> u64 {
    let p = shape.params;
    let cells = p.nx as usize * p.ny as usize;
    let mut total: u64 = FIELDS
        .iter()
        .map(|s| (s.len(shape, cells, bodies) * s.bytes as usize * s.levels as usize) as u64)
        .sum();
    if adi(shape) && p.nx.max(p.ny) > crate::wgsl::adi::CHIP {
        total += cells as u64 * 32;
    }
    // The shallow-water model keeps a copy of its state as each chunk starts, to run a chunk
    // that outran its substeps again (`Simulation::step`).
    if shape.shallow_water {
        total += state_fields(shape)
            .into_iter()
            .map(|f| (spec_of(f).len(shape, cells, bodies) * spec_of(f).bytes as usize) as u64)
            .sum::<u64>();
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(params: &Params, method: Method) -> Shape<'_> {
        Shape {
            params,
            method,
            pipes: None,
            navier_stokes: None,
            ns_spray: false,
            ns_markers: None,
            shallow_water: false,
            ns_fed: false,
        }
    }

    #[test]
    fn a_plain_explicit_run_holds_24_bytes_per_cell() {
        let p = Params {
            nx: 100,
            ny: 50,
            ..Params::default()
        };
        // ground, two levels of eta and vel, carry.
        assert_eq!(gpu_bytes(&shape(&p, Method::Explicit), 0), 5000 * 24);
    }

    #[test]
    fn every_option_adds_its_fields() {
        let p = Params {
            nx: 4096,
            ny: 2,
            correct: CORRECT_CLAMPS,
            regions: 10,
            bodies: 1,
            sources: 1,
            ..Params::default()
        };
        let cells = 8192u64;
        // 24 base, sources 8, clamps 8, regions 16 (+ 88 per region), bodies 44 per cell and one
        // 144-byte state, ADI 4 per cell and 32 of PCR scratch (lines over 2048).
        let want = cells * (24 + 8 + 8 + 16 + 44 + 4 + 32) + 10 * 88 + 144;
        assert_eq!(gpu_bytes(&shape(&p, Method::Adi), 1), want);
    }

    #[test]
    fn the_checkpoint_keeps_the_state_and_the_ground_in_the_shoalck4_order() {
        let order: Vec<Field> = checkpointed().map(|s| s.field).collect();
        use Field::*;
        assert_eq!(
            order,
            vec![
                Eta,
                Vel,
                Carry,
                Shortfall,
                Clamped,
                RegionLabels,
                RegionTargets,
                Pending,
                Ground,
                Bodies,
                Cover,
                PipeWater,
                PipeVel,
                PipeFlow,
                PipePressure,
                Particles,
                NsPressure,
                NsU,
                NsV,
                NsW,
                NsFlags,
                NsDrops,
                NsMarkers,
                NsMarkerBook,
                Summary,
                PipeRainCarry,
                Faces,
                SwQx,
                SwQy,
                SwCarry,
                SwFlowMaps,
                Soil,
                PipeSoilOwed
            ]
        );
    }

    #[test]
    fn the_pipes_hold_their_columns_pipes_and_particles_and_none_of_the_height_field() {
        let p = Params {
            nx: 10,
            ny: 10,
            sources: 1,
            ..Params::default()
        };
        let pipes = Shape {
            params: &p,
            method: Method::Explicit,
            pipes: Some(PipeShape {
                layers: 2,
                capacity: 1000,
            }),
            navier_stokes: None,
            ns_spray: false,
            ns_markers: None,
            shallow_water: false,
            ns_fed: false,
        };
        use Field::*;
        assert_eq!(
            state_fields(&pipes),
            vec![PipeWater, PipeVel, PipeFlow, PipePressure, Particles]
        );
        let cells = 100u64;
        // ground 4; per layer water 4, velocity 8, geometry 8, inbox 4; 32 pipes of 4 B of
        // velocity and 4 given; per column pressure 4, work 28, spray work 28; particles twice.
        let want = cells * (4 + 2 * (4 + 8 + 8 + 4) + 32 * 8 + 4 + 28 + 28) + 2 * 1000 * 32;
        assert_eq!(gpu_bytes(&pipes, 0), want);
    }
}
