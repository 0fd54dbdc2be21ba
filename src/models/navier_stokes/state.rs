//! The Navier-Stokes layer's state, shared by both backends: its uniforms (`NsParams`), the 3D
//! grid's fields (`NsState`), the height field at its own resolution (`Surface`) and the marker
//! particles of 2D runs (`Markers`). The GPU's buffers mirror these; the CPU twins step them.

use crate::models::navier_stokes::forcing::Substep;
use crate::models::navier_stokes::spray::{is_foam, is_spray};
use crate::models::pipes::spray::Particle;
use crate::wgsl::ns_markers::{BOOK_COUNT, BOOK_FACES, BOOK_REFUSED};

/// A cell's contents (§3.1).
pub const SOLID: u8 = 0;
pub const FULL: u8 = 1;
pub const SURFACE: u8 = 2;
pub const EMPTY: u8 = 3;

/// The layer's uniforms.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NsParams {
    pub nx: usize,
    pub ny: usize,
    pub nz: usize,
    /// Horizontal cell size, m.
    pub dx: f32,
    /// Vertical cell size, m.
    pub dz: f32,
    /// The grid's floor relative to the reference level, m.
    pub z0: f32,
    /// Gravity, m/s².
    pub g: f32,
    /// Kinematic viscosity ν, m²/s.
    pub nu: f32,
    /// The relaxation coefficient β₀ of eq. (7), in [1, 2).
    pub beta0: f32,
    /// The largest |D| (1/s) a fluid cell may keep after the pressure iteration.
    pub epsilon: f32,
    /// The most red-black sweeps per step (a step that needs more reports it).
    pub max_sweeps: u32,
    /// The share γ ∈ [0, 1] of donor-cell (upwind) differencing in the momentum's advection: 0
    /// is eq. 2's centred products, which forward Euler amplifies; 1 is the donor cell.
    pub upwind: f32,
    /// The travelling wave forcing's wavenumber (rad/m) and direction (`ns_forcing::Wave`).
    pub wave: [f32; 3],
    /// Marker particles set the flags (§4.1; `ns_markers`), not the height field: a Surface
    /// cell then takes the applied pressure (the seed's rule), with no ghost-fluid line.
    pub markers: bool,
    /// The inflow side's faces pump between these heights (relative to the reference level);
    /// the rest of the side is a wall.
    pub window: [f32; 2],
    /// `physics.damping` as a drag on the velocities, 1/s (`engine::params::drag_rate`): each
    /// tentative velocity is divided by 1 + dt·drag, so a wave decays as on the height field.
    /// Negative: each face takes its columns' drag from `NsState::drag` (`physics.damping_map`,
    /// Manning's friction).
    pub drag: f32,
    /// Manning's friction (`physics.manning`, `[friction]`): `columns` sets each column's drag
    /// from its depth-averaged flow each substep (`manning_rate`); `drag` is then negative.
    pub manning: bool,
}

/// An inflow over the whole side.
pub const WHOLE_SIDE: [f32; 2] = [f32::MIN, f32::MAX];

/// The layer's state.
#[derive(Clone, Debug, PartialEq)]
pub struct NsState {
    pub flag: Vec<u8>,
    pub p: Vec<f32>,
    pub u: Vec<f32>,
    pub v: Vec<f32>,
    pub w: Vec<f32>,
    /// The surface per column, m.
    pub h: Vec<f32>,
    /// The ground per column, m: a cell whose centre lies below it is solid.
    pub ground: Vec<f32>,
    /// Each column's drag on the velocities, 1/s, under `physics.damping_map` (one word a
    /// column) or Manning's friction (three: the drag `dragged` reads, which `columns` sets each
    /// substep; the damping's; Manning's n²). Empty without either: `NsParams::drag` everywhere;
    /// with one `drag` is negative, `dragged`'s switch.
    pub drag: Vec<f32>,
}

/// How a step's pressure iteration went.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PressureReport {
    /// Red-black sweeps run.
    pub sweeps: u32,
    /// The largest |D| over the Full cells after them, 1/s.
    pub divergence: f32,
}

impl NsParams {
    /// A layer of water's constants (g = 9.81, ν = 0, β₀ = 1.7, ε = 1e-4, the donor cell, no
    /// forcing, the height field, the whole side) over `n` = [nx, ny, nz] cells of `dx` × `dz`
    /// from `z0`: for tests.
    #[cfg(test)]
    pub(crate) fn water(n: [usize; 3], dx: f32, dz: f32, z0: f32) -> NsParams {
        NsParams {
            nx: n[0],
            ny: n[1],
            nz: n[2],
            dx,
            dz,
            z0,
            g: 9.81,
            nu: 0.0,
            beta0: 1.7,
            epsilon: 1e-4,
            max_sweeps: 10,
            upwind: 1.0,
            wave: [0.0; 3],
            markers: false,
            window: WHOLE_SIDE,
            drag: 0.0,
            manning: false,
        }
    }

    /// Column (i, j)'s index.
    pub(crate) fn columns_at(&self, i: usize, j: usize) -> usize {
        j * self.nx + i
    }
    pub(crate) fn cell(&self, i: usize, j: usize, k: usize) -> usize {
        (k * self.ny + j) * self.nx + i
    }
    pub(crate) fn uf(&self, i: usize, j: usize, k: usize) -> usize {
        (k * self.ny + j) * (self.nx + 1) + i
    }
    pub(crate) fn vf(&self, i: usize, j: usize, k: usize) -> usize {
        (k * (self.ny + 1) + j) * self.nx + i
    }
    pub(crate) fn wf(&self, i: usize, j: usize, k: usize) -> usize {
        (k * self.ny + j) * self.nx + i
    }
    /// The height of cell k's centre, m.
    pub fn centre(&self, k: usize) -> f32 {
        self.z0 + (k as f32 + 0.5) * self.dz
    }
    /// How much of layer k lies under `top`, m: from 0 (top at or under its floor) to dz.
    pub fn wet_in(&self, k: usize, top: f32) -> f32 {
        (top - (self.z0 + k as f32 * self.dz)).clamp(0.0, self.dz)
    }
    pub(crate) fn columns(&self) -> usize {
        self.nx * self.ny
    }
}

/// Height-field cells per strip of the volume's first level (one GPU thread each).
pub const STRIP: usize = crate::wgsl::ns_surface::STRIP as usize;
/// Lanes of the volume's second level (one GPU workgroup).
pub const LANES: usize = crate::wgsl::ns_surface::LANES as usize;

/// The height field at its own resolution, `coarsen` × `coarsen` cells per 3D column.
#[derive(Clone, Debug, PartialEq)]
pub struct Surface {
    /// Cells along x and y.
    pub nx: usize,
    pub ny: usize,
    /// 3D columns' cells across per height-field cell.
    pub coarsen: usize,
    /// The surface and the ground per cell, m.
    pub h: Vec<f32>,
    pub ground: Vec<f32>,
    /// Per cell the body volume its surface carries (bodies' `Cover::held`, m), which the
    /// fluxes do not move; empty without bodies.
    pub held: Vec<f32>,
    /// Per cell the air's head p/(ρ·g) this step (`[[pressure]]`, m; `pressure.wgsl` writes it
    /// before the substeps), which the 3D columns take as the mean over their cells; empty
    /// without patches.
    pub air: Vec<f32>,
}

impl Surface {
    /// The top of cell c's water: its surface less the body volume it carries (ns_surface.wgsl's
    /// `water_top`).
    pub fn water_top(&self, c: usize) -> f32 {
        match self.held.get(c) {
            Some(held) => self.h[c] - held,
            None => self.h[c],
        }
    }

    /// Each 3D column's mean of `field` over its cells.
    pub fn coarse_mean(&self, field: &[f32]) -> Vec<f32> {
        coarse_mean(field, self.nx, self.coarsen)
    }

    /// dt·coarsen/dx: a flux (m²/s) times this is metres of depth in one cell.
    pub(crate) fn run(&self, p: &NsParams, dt: f32) -> f32 {
        dt * self.coarsen as f32 / p.dx
    }
}

/// A marker's (x, z), m: x from the domain's west side, z relative to the reference level. A
/// marker that left through an outflow side is `GONE`.
pub type Marker = [f32; 2];

/// Where a marker that left the water lies (its slot stays used: the order never changes).
pub const GONE: Marker = [-1.0, 0.0];

/// The markers' settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MarkerParams {
    /// Markers per cell side (per_cell = rows²).
    pub rows: u32,
    /// The most markers the buffer holds.
    pub capacity: u32,
}

/// The markers and the inflow's bookkeeping: the twin of their GPU buffers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Markers {
    /// Every marker made, in the order it was made (left ones `GONE`).
    pub at: Vec<Marker>,
    /// Per layer of the inflow side: the share of a marker owed (carried to the next substep),
    /// and the markers brought so far (which row of the face the next one takes).
    pub owed: Vec<f32>,
    pub brought: Vec<u32>,
    /// Markers an inflow could not bring for want of room, since the start.
    pub refused: u64,
}

impl Markers {
    /// `rows`² markers on a regular lattice in every cell of the grid whose point lies under the
    /// surface `h` and over the ground (per column), in cell order then lattice order.
    pub fn fill(p: &NsParams, m: &MarkerParams, ground: &[f32], h: &[f32]) -> Markers {
        Self::fill_counting(p, m, ground, h).0
    }

    /// `fill`, and how many markers the water wanted (more than `capacity` where it ran out).
    pub fn fill_counting(p: &NsParams, m: &MarkerParams, ground: &[f32], h: &[f32]) -> (Markers, u64) {
        let rows = m.rows as usize;
        let mut at = Vec::new();
        let mut wanted = 0u64;
        for k in 0..p.nz {
            for i in 0..p.nx {
                for b in 0..rows {
                    for a in 0..rows {
                        let x = (i as f32 + (a as f32 + 0.5) / rows as f32) * p.dx;
                        let z = p.z0 + (k as f32 + (b as f32 + 0.5) / rows as f32) * p.dz;
                        // The 2D grid's one row: column i.
                        if z < h[i] && z > ground[i] {
                            wanted += 1;
                            if at.len() < m.capacity as usize {
                                at.push([x, z]);
                            }
                        }
                    }
                }
            }
        }
        let markers = Markers {
            at,
            owed: vec![0.0; p.nz],
            brought: vec![0; p.nz],
            refused: 0,
        };
        (markers, wanted)
    }
}

impl Markers {
    /// The book's words (ns_markers.wgsl `book`): slots used, refused, then per layer the share
    /// owed (bits) and the markers brought.
    pub fn book(&self, nz: usize) -> Vec<u32> {
        let mut words = vec![self.at.len() as u32, self.refused.min(u32::MAX as u64) as u32];
        for k in 0..nz {
            words.push(self.owed[k].to_bits());
            words.push(self.brought[k]);
        }
        words
    }

    /// The markers from the book's words and the slots' (x, z) (a readback or a checkpoint).
    pub fn from_book(words: &[u32], at: &[Marker], nz: usize) -> Markers {
        let used = (words[BOOK_COUNT as usize] as usize).min(at.len());
        let faces = BOOK_FACES as usize;
        Markers {
            at: at[..used].to_vec(),
            owed: (0..nz).map(|k| f32::from_bits(words[faces + 2 * k])).collect(),
            brought: (0..nz).map(|k| words[faces + 2 * k + 1]).collect(),
            refused: words[BOOK_REFUSED as usize] as u64,
        }
    }
}

/// The words of the book for `nz` layers.
pub fn book_len(nz: usize) -> usize {
    BOOK_FACES as usize + 2 * nz
}

/// Whether a cell of that flag holds water.
/// The means of `field` (a height field `nx` cells a row) over its blocks of `cz` × `cz` cells:
/// the 3D columns' values.
pub fn coarse_mean(field: &[f32], nx: usize, cz: usize) -> Vec<f32> {
    let (cx, cy) = (nx / cz, field.len() / nx / cz);
    let mut out = vec![0.0f32; cx * cy];
    for (c, o) in out.iter_mut().enumerate() {
        let (ci, cj) = (c % cx, c / cx);
        let mut sum = 0.0f32;
        for fj in cj * cz..(cj + 1) * cz {
            for fi in ci * cz..(ci + 1) * cz {
                sum += field[fj * nx + fi];
            }
        }
        *o = sum / (cz * cz) as f32;
    }
    out
}

pub fn fluid(f: u8) -> bool {
    f == FULL || f == SURFACE
}

/// The grid's cell-centred fields, for `velocity_`/`pressure_NNNNNN.npy`.
pub fn layer_fields(p: &NsParams, s: &NsState) -> crate::models::navier_stokes::state::LayerFields {
    let cells = p.columns() * p.nz;
    let mut out = crate::models::navier_stokes::state::LayerFields {
        nx: p.nx,
        ny: p.ny,
        nz: p.nz,
        velocity: vec![[0.0; 3]; cells],
        pressure: vec![0.0; cells],
    };
    for k in 0..p.nz {
        for j in 0..p.ny {
            for i in 0..p.nx {
                let c = p.cell(i, j, k);
                if !fluid(s.flag[c]) {
                    continue;
                }
                out.velocity[c] = [
                    0.5 * (s.u[p.uf(i, j, k)] + s.u[p.uf(i + 1, j, k)]),
                    0.5 * (s.v[p.vf(i, j, k)] + s.v[p.vf(i, j + 1, k)]),
                    0.5 * (s.w[p.wf(i, j, k)] + s.w[p.wf(i, j, k + 1)]),
                ];
                out.pressure[c] = s.p[c];
            }
        }
    }
    out
}

/// Water thinner than this (m) has no velocity in `depth_averaged`: the flood maps' film.
pub const DRY: f32 = 1e-4;

/// Each height-field cell's depth-averaged velocity (u, v), m/s, row-major `[ny, nx]`, 0 where its
/// water is thinner than `DRY`: its 3D column's cell-centred velocities (`layer_fields`') weighted
/// by the water each cell holds up to the column's surface (the mean of the water tops over it,
/// as the layer sets its flags), the column's value on each of its cells.
pub fn depth_averaged(p: &NsParams, s: &NsState, surface: &Surface) -> Vec<[f32; 2]> {
    let tops: Vec<f32> = (0..surface.h.len()).map(|c| surface.water_top(c)).collect();
    let top = surface.coarse_mean(&tops);
    let column: Vec<[f32; 2]> = (0..p.columns()).map(|c| column_velocity(p, s, c, top[c])).collect();
    let cz = surface.coarsen;
    (0..surface.h.len())
        .map(|c| {
            let (fi, fj) = (c % surface.nx, c / surface.nx);
            match surface.water_top(c) - surface.ground[c] > DRY {
                true => column[(fj / cz) * p.nx + fi / cz],
                false => [0.0; 2],
            }
        })
        .collect()
}

/// Column c's depth-averaged velocity (u, v), m/s, under its water `top` (relative): each fluid
/// cell's centred velocity (the mean of its two faces, as `layer_fields` gives it) weighted by the
/// water it holds up to `top`; 0 where none. `depth_averaged` and Manning's drag
/// (`navier_stokes::manning_rate`, WGSL twin in `navier_stokes.wgsl`) read the flow alike.
pub fn column_velocity(p: &NsParams, s: &NsState, c: usize, top: f32) -> [f32; 2] {
    let (i, j) = (c % p.nx, c / p.nx);
    let (mut sum, mut wet) = ([0.0f32; 2], 0.0f32);
    for k in 0..p.nz {
        let share = p.wet_in(k, top);
        if fluid(s.flag[c + k * p.columns()]) && share > 0.0 {
            let u = 0.5 * (s.u[p.uf(i, j, k)] + s.u[p.uf(i + 1, j, k)]);
            let v = 0.5 * (s.v[p.vf(i, j, k)] + s.v[p.vf(i, j + 1, k)]);
            sum = [sum[0] + share * u, sum[1] + share * v];
            wet += share;
        }
    }
    if wet > 0.0 {
        [sum[0] / wet, sum[1] / wet]
    } else {
        [0.0; 2]
    }
}

/// The slots that hold spray or foam, in slot order (what `read_particles` gives).
pub fn in_use(drops: &[Particle]) -> Vec<Particle> {
    drops.iter().filter(|d| is_spray(d) || is_foam(d)).copied().collect()
}

/// The Navier-Stokes layer's 3D grid at one step, cell-centred, C order `[nz, ny, nx]` (z up).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LayerFields {
    /// Cells along x.
    pub nx: usize,
    /// Cells along y.
    pub ny: usize,
    /// Cells along z (the layers).
    pub nz: usize,
    /// (u, v, w) per cell, m/s: the mean of its two faces along each axis; 0 in Solid and Empty
    /// cells.
    pub velocity: Vec<[f32; 3]>,
    /// Kinematic pressure p/ρ per cell (m²/s², relative to the air); 0 in Solid and Empty cells.
    pub pressure: Vec<f32>,
}

/// The pressure applied over column (i, j) (§7.2, kinematic): the forcing's mean plus its
/// travelling wave at the column's centre.
pub fn applied(p: &NsParams, forcing: &Substep, i: usize, j: usize) -> f32 {
    let (x, y) = ((i as f32 + 0.5) * p.dx, (j as f32 + 0.5) * p.dx);
    let [k, dx, dy] = p.wave;
    forcing.pressure + forcing.wave * (k * (x * dx + y * dy) - forcing.phase).cos()
}

/// Whether layer k's centre lies in the inflow's window.
pub fn in_window(p: &NsParams, k: usize) -> bool {
    let z = p.centre(k);
    z >= p.window[0] && z <= p.window[1]
}
