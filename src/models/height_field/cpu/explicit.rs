//! Twin of `wgsl/explicit.wgsl`: the explicit flux-form step and its perimeter overrides, with the
//! same selects and the same order of operations.

use crate::engine::params::{Params, Totals};

use crate::wgsl::common::{FORCE_DAMPING_MAP, FORCE_PRESSURE};
use crate::wgsl::explicit::INTERIOR;
use crate::wgsl::level::FACE_SHARE;
pub(crate) use crate::wgsl::sides::{ABSORB, GHOST_MEAN, GHOST_SLOPE, OPEN, PERIODIC, REFLECT};

pub(crate) fn depth(eta: f32, ground: f32) -> f32 {
    (eta - ground).max(0.0)
}

/// Twin of `face_depth` (level.wgsl): the mean depth, nothing when the higher side is dry.
pub(crate) fn face_depth(eta_c: f32, d_c: f32, eta_n: f32, d_n: f32) -> f32 {
    let upper_depth = if eta_n > eta_c { d_n } else { d_c };
    if upper_depth > 0.0 {
        0.5 * (d_c + d_n)
    } else {
        0.0
    }
}

/// Twin of `face`: `lift` is the rise of the air pressure's head across the face.
pub(crate) fn face(eta_c: f32, d_c: f32, eta_n: f32, d_n: f32, lift: f32) -> f32 {
    face_depth(eta_c, d_c, eta_n, d_n) * ((eta_n - eta_c) + lift)
}

/// Twin of `keep_of` and `head_of` (level.wgsl): the per-cell forcing buffer as both backends
/// hold it, the damping map's 1 − tau then the pressure head.
#[derive(Clone, Copy)]
pub(crate) struct Forcing<'a> {
    pub params: &'a Params,
    pub words: &'a [f32],
}

impl Forcing<'_> {
    pub(crate) fn keep_of(&self, c: usize) -> f32 {
        if self.params.forcing & FORCE_DAMPING_MAP != 0 {
            self.words[c]
        } else {
            self.params.keep
        }
    }

    pub(crate) fn head_of(&self, c: usize) -> f32 {
        if self.params.forcing & FORCE_PRESSURE != 0 {
            let at = if self.params.forcing & FORCE_DAMPING_MAP != 0 {
                (self.params.nx * self.params.ny) as usize
            } else {
                0
            };
            self.words[at + c]
        } else {
            0.0
        }
    }
}

/// One substep's inputs: the old level and what every pass reads.
pub struct Level<'a> {
    /// The uniforms.
    pub params: &'a Params,
    /// b − ref.
    pub ground: &'a [f32],
    /// The last reduction.
    pub totals: &'a Totals,
    /// h − ref.
    pub eta: &'a [f32],
    /// The per-substep change.
    pub vel: &'a [f32],
    /// The per-cell forcing (`Params::forcing`): damping map, pressure head; empty without.
    pub forcing: &'a [f32],
    /// The faces' flux memory, (east, north) per cell (`Memory`), where the scene keeps it
    /// (`Params::faces`); empty without.
    pub faces: &'a [f32],
}

/// The three rows a cell's stencil reads, each as (eta, ground): its own, the one below (south)
/// and the one above (north), wrapped around the grid as periodic sides read them.
#[derive(Clone, Copy)]
pub(crate) struct Rows<'a> {
    pub south: (&'a [f32], &'a [f32]),
    pub centre: (&'a [f32], &'a [f32]),
    pub north: (&'a [f32], &'a [f32]),
}

/// A neighbour's (eta, ground).
type Neighbour = (f32, f32);

/// `phi`: the pressure head at the cell, the neighbour and the opposite one.
#[allow(clippy::too_many_arguments)]
fn face_term(
    mode: u32,
    eta_c: f32,
    d_c: f32,
    b_c: f32,
    n: Neighbour,
    opposite: Neighbour,
    mean: f32,
    phi: [f32; 3],
) -> f32 {
    let bank = on_bank(b_c);
    match mode {
        REFLECT => 0.0,
        ABSORB if !bank => 0.0,
        GHOST_SLOPE => {
            let (eta_o, b_o) = opposite;
            let mirrored = -face(eta_c, d_c, eta_o, depth(eta_o, b_o), phi[2] - phi[0]);
            if bank {
                mirrored.min(0.0)
            } else {
                mirrored
            }
        }
        INTERIOR | PERIODIC => face(eta_c, d_c, n.0, depth(n.0, n.1), phi[1] - phi[0]),
        _ => {
            // A ghost (open, ghost-mean, absorb on a bank) on the edge's ground, never below it.
            let eta_g = (if mode == GHOST_MEAN && !bank { mean } else { 0.0 }).max(b_c);
            face(eta_c, d_c, eta_g, depth(eta_g, b_c), 0.0)
        }
    }
}

/// Twin of `on_bank` (common.wgsl): a cell on ground `b` above the still level, land.
pub(crate) fn on_bank(b: f32) -> bool {
    b > 0.0
}

/// Twin of `wave` for cell (i, j) of `rows`, whose own change is `vel_c`: (eta', vel') before
/// overrides and the dry-cell rule, and its east and north faces' new memory. `mean` is the mean
/// wet surface that ghost-mean sides read; `forcing` the per-cell forcing (none:
/// `Params::forcing` is 0); `memory` the faces' memory where the level keeps it (`Level::faces`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn wave_in(
    p: &Params,
    rows: &Rows,
    mean: f32,
    vel_c: f32,
    forcing: Option<Forcing>,
    memory: Option<Memory>,
    i: u32,
    j: u32,
) -> (f32, f32, NewMemory) {
    let (nx, ny) = (p.nx, p.ny);
    let at = |row: (&[f32], &[f32]), i: u32| (row.0[i as usize], row.1[i as usize]);
    let (eta_c, b_c) = at(rows.centre, i);
    let d_c = depth(eta_c, b_c);
    let w = at(rows.centre, if i == 0 { nx - 1 } else { i - 1 });
    let e = at(rows.centre, if i == nx - 1 { 0 } else { i + 1 });
    let (s, n) = (at(rows.south, i), at(rows.north, i));
    let mode = |edge: bool, bc: u32| if edge { bc } else { INTERIOR };
    let (phi, keep) = heads_around(p, forcing, i, j);
    let term = |edge: bool, bc: u32, n: Neighbour, o: Neighbour, phi: [f32; 3]| {
        face_term(mode(edge, bc), eta_c, d_c, b_c, n, o, mean, phi)
    };
    let west = term(i == 0, p.bc_west, w, e, [phi[0], phi[1], phi[2]]);
    let east = term(i == nx - 1, p.bc_east, e, w, [phi[0], phi[2], phi[1]]);
    let south = term(j == 0, p.bc_south, s, n, [phi[0], phi[3], phi[4]]);
    let north = term(j == ny - 1, p.bc_north, n, s, [phi[0], phi[4], phi[3]]);
    let flux = ((west + east) + south) + north;
    let Some(memory) = memory else {
        let vel = keep * vel_c + p.k * flux;
        return (eta_c + vel, vel, NewMemory::default());
    };
    let wet = [w, e, s, n].map(|n| n.0 > n.1);
    let Agreed { real, open, kept } = memory.agree(p, i, j, keep, vel_c, eta_c > b_c, wet);
    let vel = kept + p.k * flux;
    // The neighbours' keep, for the west and south faces they own.
    let keep_at = |i: u32, j: u32| forcing.map_or(p.keep, |f| f.keep_of((j * nx + i) as usize));
    let keep_w = keep_at(if i == 0 { nx - 1 } else { i - 1 }, j);
    let keep_s = keep_at(i, if j == 0 { ny - 1 } else { j - 1 });
    let west_new = remember(real[0], open[0], keep_w, memory.west, p.k * -west);
    let east_new = remember(real[1], open[1], keep, memory.east, p.k * east);
    let south_new = remember(real[2], open[2], keep_s, memory.south, p.k * -south);
    let north_new = remember(real[3], open[3], keep, memory.north, p.k * north);
    let [d_w, d_e, d_s, d_n] = [w, e, s, n].map(|n| depth(n.0, n.1));
    let remembered = [west_new, east_new, south_new, north_new];
    let limited = [
        limit(west_new, d_w, d_c),
        limit(east_new, d_c, d_e),
        limit(south_new, d_s, d_c),
        limit(north_new, d_c, d_n),
    ];
    let kept_q = [
        remember(real[0], open[0], keep_w, memory.west, 0.0),
        remember(real[1], open[1], keep, memory.east, 0.0),
        remember(real[2], open[2], keep_s, memory.south, 0.0),
        remember(real[3], open[3], keep, memory.north, 0.0),
    ];
    let excess: [f32; 4] = std::array::from_fn(|f| held_back(remembered[f], limited[f], kept_q[f]));
    let [beyond_w, beyond_e, beyond_s, beyond_n] = memory.beyond;
    let handed = [
        hand_on(real[0], limited[0], beyond_w, excess[1], d_w, d_c),
        hand_on(real[1], limited[1], excess[0], beyond_e, d_c, d_e),
        hand_on(real[2], limited[2], beyond_s, excess[3], d_s, d_c),
        hand_on(real[3], limited[3], excess[2], beyond_n, d_c, d_n),
    ];
    let into = |[w, e, s, n]: [f32; 4]| ((e + n) - w) - s;
    let vel = if handed != remembered {
        vel + (into(handed) - into(remembered))
    } else {
        vel
    };
    let memory = NewMemory {
        faces: [handed[1], handed[3]],
        into: into(handed),
    };
    (eta_c + vel, vel, memory)
}

/// The head at cell (i, j) and its west, east, south and north neighbours (wrapped as the
/// stencil is), and the cell's 1 − tau; without forcing, no head and the scene's keep.
fn heads_around(p: &Params, forcing: Option<Forcing>, i: u32, j: u32) -> ([f32; 5], f32) {
    let (nx, ny) = (p.nx, p.ny);
    match forcing {
        Some(f) => {
            let nxu = nx as usize;
            let at = |i: u32, j: u32| f.head_of(j as usize * nxu + i as usize);
            let (jw, je) = (if i == 0 { nx - 1 } else { i - 1 }, if i == nx - 1 { 0 } else { i + 1 });
            let (js, jn) = (if j == 0 { ny - 1 } else { j - 1 }, if j == ny - 1 { 0 } else { j + 1 });
            (
                [at(i, j), at(jw, j), at(je, j), at(i, js), at(i, jn)],
                f.keep_of(j as usize * nxu + i as usize),
            )
        }
        None => ([0.0; 5], p.keep),
    }
}

/// Twin of `limit` (explicit.wgsl): a face's new memory `q`, signed into its owner (the west or
/// south cell, `d_owner` deep; `d_other` the other side's depth), moving at most `FACE_SHARE` (a
/// quarter, so that a cell's four faces never take more than it holds) of
/// what its source holds at the start of the step. Both sides of the face compute it from the
/// same values, so the water it moves stays conserved. A NaN passes through.
pub(crate) fn limit(q: f32, d_owner: f32, d_other: f32) -> f32 {
    let (least, most) = (-FACE_SHARE * d_owner, FACE_SHARE * d_other);
    if q < least {
        least
    } else if q > most {
        most
    } else {
        q
    }
}

/// Twin of `held_back`: the momentum `limit` held back at a face (its new memory `remembered`
/// less `limited`), as far as the face's kept memory `kept` carried it.
pub(crate) fn held_back(remembered: f32, limited: f32, kept: f32) -> f32 {
    let excess = remembered - limited;
    if excess > 0.0 {
        excess.min(kept.max(0.0))
    } else {
        excess.max(kept.min(0.0))
    }
}

/// Twin of `hand_on` (explicit.wgsl): a real face's new memory `q` (signed into its owner, after
/// `limit`) with what `limit` held back at the faces beyond its two cells handed on to it
/// (`from_before`: `held_back` at the face before the owner along the axis, `from_after` at the
/// face after the other cell), limited again.
pub(crate) fn hand_on(real: bool, q: f32, from_before: f32, from_after: f32, d_owner: f32, d_other: f32) -> f32 {
    if !real {
        return q;
    }
    let handed = from_before.min(0.0) + from_after.max(0.0);
    if handed == 0.0 {
        q
    } else {
        limit(q + handed, d_owner, d_other)
    }
}

/// Twin of `open_face`: whether a face keeps its memory. Between two wet cells it does. Where one
/// side is dry it does only while the memory moves water from the wet side into the dry one (the
/// wet side can pay for it; the dry side takes it back into its change), and forgets it where it
/// moves water out of the dry side, which has none. Ghost faces keep none.
pub(crate) fn open_face(real: bool, wet_c: bool, wet_n: bool, into_c: f32) -> bool {
    real && (wet_c && (wet_n || into_c < 0.0) || wet_n && into_c > 0.0)
}

/// Twin of `remember`: a face's new memory, owned by the cell whose 1 − tau is `keep`, `flux`
/// what the face moves this step (the explicit step's k·term; ADI's from its solution). A ghost
/// face keeps none.
pub(crate) fn remember(real: bool, open: bool, keep: f32, q: f32, flux: f32) -> f32 {
    if real {
        (if open { keep * q } else { 0.0 }) + flux
    } else {
        0.0
    }
}

/// Which of cell (i, j)'s faces (west, east, south, north) join it to a real neighbour, as the
/// interior and periodic sides do; the other sides' faces are ghosts and keep no memory.
fn real_faces(p: &Params, i: u32, j: u32) -> [bool; 4] {
    let real = |edge: bool, bc: u32| !edge || bc == PERIODIC;
    [
        real(i == 0, p.bc_west),
        real(i == p.nx - 1, p.bc_east),
        real(j == 0, p.bc_south),
        real(j == p.ny - 1, p.bc_north),
    ]
}

/// What a cell's faces agree on at the start of a step (west, east, south, north): which are
/// real, which keep their memory (`open_face`), and the part of the cell's change it keeps.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Agreed {
    pub real: [bool; 4],
    pub open: [bool; 4],
    pub kept: f32,
}

/// What a step leaves in a cell's faces: its east and north faces' new memory (which it writes),
/// and the four faces' new memory signed into it (what the dry-cell rule, if it fires, leaves in
/// the faces rather than drops: the clamp record books only the rest).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct NewMemory {
    pub faces: [f32; 2],
    pub into: f32,
}

/// The flux memories a cell reads (issue 16): the part of the per-step change each face put
/// there, `q' = keep·q + k·term` while the face is open, signed as the owner's face term. A cell
/// owns its east and north faces; it reads its west and south neighbours' east and north.
///
/// A wet cell's `vel` is the sum of its faces' memories (plus what other passes add); a dry
/// cell's is zero. When a cell dried, the dry-cell rule zeroed its `vel`, but its wet
/// neighbours' `vel` still held their side of the shared faces: the flow out of the dry cell went
/// on, made water the correction then took back evenly, and a sloshing wave lost 4–6 % of its
/// amplitude per period at a moving shoreline however fine the grid. Now both sides agree on
/// every face (`open_face`): a wet cell forgets a closed face's memory, and a dry cell takes back
/// an open one's.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Memory {
    pub east: f32,
    pub north: f32,
    /// The west neighbour's east face.
    pub west: f32,
    /// The south neighbour's north face.
    pub south: f32,
    /// `held_back` at the faces one cell beyond the neighbours (signed into their owners), for
    /// `hand_on` (the explicit step; ADI leaves it 0): the west neighbour's west face, the east
    /// neighbour's east face, the south neighbour's south face, the north neighbour's north face.
    pub beyond: [f32; 4],
}

impl Memory {
    /// The faces' agreement for cell (i, j), whose 1 − tau is `keep` and change `vel_c`; `wet`
    /// its neighbours' (west, east, south, north).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn agree(
        &self,
        p: &Params,
        i: u32,
        j: u32,
        keep: f32,
        vel_c: f32,
        wet_c: bool,
        wet: [bool; 4],
    ) -> Agreed {
        let real = real_faces(p, i, j);
        // Each face's memory signed into this cell: west, east, south, north.
        let into = [-self.west, self.east, -self.south, self.north];
        let open = std::array::from_fn(|f| open_face(real[f], wet_c, wet[f], into[f]));
        Agreed {
            real,
            open,
            kept: self.kept(keep, vel_c, wet_c, open),
        }
    }

    /// The memory the open faces keep, signed into the cell, each face at its owner's 1 − tau
    /// (`keeps`: the west neighbour's, the cell's, the south neighbour's): what of the kept change
    /// the faces hold, the rest being what other passes added.
    pub(crate) fn held(&self, open: [bool; 4], keeps: [f32; 3]) -> f32 {
        let part = |open: bool, keep: f32, q: f32| if open { keep * q } else { 0.0 };
        ((part(open[1], keeps[1], self.east) + part(open[3], keeps[1], self.north))
            - part(open[0], keeps[0], self.west))
            - part(open[2], keeps[2], self.south)
    }
    /// The kept part of the change, `keep·vel_c` with the faces agreed (`open`: west, east,
    /// south, north): a wet cell less its closed faces' memory, a dry cell (whose `vel` the
    /// dry-cell rule zeroed) plus its open ones'.
    fn kept(&self, keep: f32, vel_c: f32, wet_c: bool, open: [bool; 4]) -> f32 {
        // A wet cell sums its closed faces, a dry one its open faces.
        let pick = |open: bool, q: f32| if open != wet_c { q } else { 0.0 };
        let moved = ((pick(open[1], self.east) + pick(open[3], self.north)) - pick(open[0], self.west))
            - pick(open[2], self.south);
        if moved == 0.0 {
            keep * vel_c
        } else if wet_c {
            keep * (vel_c - moved)
        } else {
            keep * (vel_c + moved)
        }
    }
}

/// Twin of `mean_surface` (level.wgsl): the last reduction's mean surface over the sea (its wet
/// cells not on a bank), each cell weighted by its depth, which ghost-mean sides read.
pub(crate) fn mean_surface(totals: &Totals) -> f32 {
    if totals.sum_wet_depth > 0.0 {
        totals.sum_eta_depth / totals.sum_wet_depth
    } else {
        0.0
    }
}

impl Level<'_> {
    /// The per-cell forcing, where the scene has any.
    pub(crate) fn forcing(&self) -> Option<Forcing<'_>> {
        (self.params.forcing & crate::engine::params::STEP_FORCING != 0).then_some(Forcing {
            params: self.params,
            words: self.forcing,
        })
    }

    pub(crate) fn cell(&self, i: u32, j: u32) -> usize {
        (j * self.params.nx + i) as usize
    }

    /// Row `j` (taken modulo the grid, as periodic sides wrap) as (eta, ground).
    fn row(&self, j: i64) -> (&[f32], &[f32]) {
        let (nx, ny) = (self.params.nx as usize, self.params.ny as i64);
        let start = j.rem_euclid(ny) as usize * nx;
        (&self.eta[start..start + nx], &self.ground[start..start + nx])
    }

    /// Cell c's 1 − tau: the damping map's, or the scene's.
    pub(crate) fn keep_at(&self, c: usize) -> f32 {
        self.forcing().map_or(self.params.keep, |f| f.keep_of(c))
    }

    /// The memory cell (i, j) reads and what its faces agree on at the start of the step, where
    /// the level keeps the faces' memory.
    pub(crate) fn agreed(&self, i: u32, j: u32) -> Option<(Memory, Agreed)> {
        let memory = self.memory(i, j)?;
        let (nx, ny) = (self.params.nx, self.params.ny);
        let wet = |i: u32, j: u32| {
            let c = self.cell(i, j);
            self.eta[c] > self.ground[c]
        };
        let (w, e) = (if i == 0 { nx - 1 } else { i - 1 }, if i == nx - 1 { 0 } else { i + 1 });
        let (s, n) = (if j == 0 { ny - 1 } else { j - 1 }, if j == ny - 1 { 0 } else { j + 1 });
        let c = self.cell(i, j);
        let wet_around = [wet(w, j), wet(e, j), wet(i, s), wet(i, n)];
        let agreed = memory.agree(self.params, i, j, self.keep_at(c), self.vel[c], wet(i, j), wet_around);
        Some((memory, agreed))
    }

    /// The memory cell (i, j) reads, where the level keeps it.
    pub(crate) fn memory(&self, i: u32, j: u32) -> Option<Memory> {
        if self.faces.is_empty() {
            return None;
        }
        let (nx, ny) = (self.params.nx, self.params.ny);
        let w = self.cell(if i == 0 { nx - 1 } else { i - 1 }, j);
        let s = self.cell(i, if j == 0 { ny - 1 } else { j - 1 });
        let c = self.cell(i, j);
        Some(Memory {
            east: self.faces[2 * c],
            north: self.faces[2 * c + 1],
            west: self.faces[2 * w],
            south: self.faces[2 * s + 1],
            beyond: [0.0; 4],
        })
    }

    /// Twin of `held_back_at`: `held_back` at the real face east of (north of, `north`) cell
    /// (i, j), computed as the cell that owns it computes it in `wave`; 0 at a ghost face.
    pub(crate) fn held_back_at(&self, i: u32, j: u32, north: bool) -> f32 {
        let p = self.params;
        let (nx, ny) = (p.nx, p.ny);
        let real = if north {
            j < ny - 1 || p.bc_north == PERIODIC
        } else {
            i < nx - 1 || p.bc_east == PERIODIC
        };
        if !real {
            return 0.0;
        }
        let (a, b) = if north {
            (self.cell(i, j), self.cell(i, (j + 1) % ny))
        } else {
            (self.cell(i, j), self.cell((i + 1) % nx, j))
        };
        let forcing = self.forcing();
        let head = |c: usize| forcing.map_or(0.0, |f| f.head_of(c));
        let q = self.faces[2 * a + north as usize];
        let (d_a, d_b) = (depth(self.eta[a], self.ground[a]), depth(self.eta[b], self.ground[b]));
        let term = face(self.eta[a], d_a, self.eta[b], d_b, head(b) - head(a));
        let open = open_face(true, self.eta[a] > self.ground[a], self.eta[b] > self.ground[b], q);
        let keep = self.keep_at(a);
        let remembered = remember(true, open, keep, q, p.k * term);
        held_back(
            remembered,
            limit(remembered, d_a, d_b),
            remember(true, open, keep, q, 0.0),
        )
    }

    /// `Memory::beyond` for cell (i, j): `held_back` at the faces one cell beyond its neighbours.
    pub(crate) fn beyond(&self, i: u32, j: u32) -> [f32; 4] {
        let (nx, ny) = (self.params.nx, self.params.ny);
        let (w2, e1) = ((i + 2 * nx - 2) % nx, (i + 1) % nx);
        let (s2, n1) = ((j + 2 * ny - 2) % ny, (j + 1) % ny);
        [
            self.held_back_at(w2, j, false),
            self.held_back_at(e1, j, false),
            self.held_back_at(i, s2, true),
            self.held_back_at(i, n1, true),
        ]
    }

    /// Twin of `wave`: (eta', vel') of cell (i, j) before overrides and the dry-cell rule, and
    /// its faces' new memory.
    pub(crate) fn wave(&self, i: u32, j: u32) -> (f32, f32, NewMemory) {
        self.wave_with(i, j, || self.beyond(i, j))
    }

    /// `wave` with `Memory::beyond` from `beyond` (the fast path's table of `held_back_at`),
    /// called only where the level keeps the faces' memory.
    pub(crate) fn wave_with(&self, i: u32, j: u32, beyond: impl FnOnce() -> [f32; 4]) -> (f32, f32, NewMemory) {
        let rows = Rows {
            south: self.row(j as i64 - 1),
            centre: self.row(j as i64),
            north: self.row(j as i64 + 1),
        };
        wave_in(
            self.params,
            &rows,
            mean_surface(self.totals),
            self.vel[self.cell(i, j)],
            self.forcing(),
            self.memory(i, j).map(|m| Memory { beyond: beyond(), ..m }),
            i,
            j,
        )
    }

    /// Twin of `mur`: on the surface above its rest under the air (see explicit.wgsl).
    fn mur(&self, c: usize, eta_c: f32, d_c: f32, ii: u32, ij: u32) -> f32 {
        let s = (self.params.k * d_c).sqrt();
        let r = (s - 1.0) / (s + 1.0);
        let m = self.cell(ii, ij);
        let lift = self.forcing().map_or(0.0, |f| f.head_of(m) - f.head_of(c));
        (self.eta[m] + lift) + r * ((self.wave(ii, ij).0 - eta_c) + lift)
    }

    /// Twin of `edges` for perimeter cell (i, j): the override, if this cell has one.
    fn edge_override(&self, i: u32, j: u32) -> Option<f32> {
        let (nx, ny, p) = (self.params.nx, self.params.ny, self.params);
        let c = self.cell(i, j);
        let eta_c = self.eta[c];
        let d_c = depth(eta_c, self.ground[c]);
        let mut mur_sum = 0.0f32;
        let mut mur_count = 0u32;
        for (on_side, bc, ii, ij) in [
            (i == 0, p.bc_west, 1, j),
            (i == nx - 1, p.bc_east, nx.wrapping_sub(2), j),
            (j == 0, p.bc_south, i, 1),
            (j == ny - 1, p.bc_north, i, ny.wrapping_sub(2)),
        ] {
            if on_side && bc == ABSORB {
                mur_sum += self.mur(c, eta_c, d_c, ii, ij);
                mur_count += 1;
            }
        }
        let x_edge = if i == 0 && p.bc_west == GHOST_SLOPE {
            1
        } else if i == nx - 1 && p.bc_east == GHOST_SLOPE {
            nx - 2
        } else {
            nx
        };
        let y_edge = if j == 0 && p.bc_south == GHOST_SLOPE {
            1
        } else if j == ny - 1 && p.bc_north == GHOST_SLOPE {
            ny - 2
        } else {
            ny
        };
        if on_bank(self.ground[c]) {
            None
        } else if mur_count > 0 && d_c > 0.0 {
            Some(mur_sum / mur_count as f32)
        } else if x_edge < nx && y_edge < ny {
            Some(0.5 * (self.wave(x_edge, j).0 + self.wave(i, y_edge).0))
        } else {
            None
        }
    }
}

/// Twin of `two_sum` (common.wgsl): s = fl(a + b) and the exact error, a + b = s + e. Rust does
/// not rewrite float algebra, so it needs no `one`.
pub fn two_sum(a: f32, b: f32) -> (f32, f32) {
    let s = a + b;
    let b_part = s - a;
    let a_part = s - b_part;
    (s, (a - a_part) + (b - b_part))
}

/// Where a substep writes: the other level, and the in-place rounding residuals.
pub struct Out<'a> {
    pub eta: &'a mut [f32],
    pub vel: &'a mut [f32],
    pub carry: &'a mut [f32],
    /// Under `CORRECT_CLAMPS`, what the dry-cell rule did to each cell; empty otherwise.
    pub clamped: &'a mut [[f32; 2]],
    /// The faces' new memory (`Level::faces`); empty where the level keeps none.
    pub faces: &'a mut [f32],
}

impl Out<'_> {
    /// The level cut into its rows of `nx` cells, each an `Out` of its own (for passes that write
    /// rows on threads).
    pub(crate) fn rows(&mut self, nx: usize) -> Vec<Out<'_>> {
        let mut clamped = self.clamped.chunks_mut(nx);
        let mut faces = self.faces.chunks_mut(2 * nx);
        self.eta
            .chunks_mut(nx)
            .zip(self.vel.chunks_mut(nx))
            .zip(self.carry.chunks_mut(nx))
            .map(|((eta, vel), carry)| Out {
                eta,
                vel,
                carry,
                clamped: clamped.next().unwrap_or_default(),
                faces: faces.next().unwrap_or_default(),
            })
            .collect()
    }

    /// Twin of the explicit step's `store_step`: the dry-cell rule, whose clamp record books the
    /// change less what stays in the faces (`NewMemory::into`, 0 without), then the faces' memory
    /// where the level keeps it. Returns whether the result is non-finite.
    pub(crate) fn store_step(
        &mut self,
        c: usize,
        b_c: f32,
        (eta_new, vel_new, residual): (f32, f32, f32),
        memory: NewMemory,
    ) -> bool {
        self.store_faces(
            c,
            b_c,
            (eta_new, vel_new, residual),
            memory.faces,
            vel_new - memory.into,
        )
    }

    /// The dry-cell rule booking `dropped` as the change it drops, then the cell's east and north
    /// faces' new memory where the level keeps it (twin of ADI's `finish_cell`).
    pub(crate) fn store_faces(
        &mut self,
        c: usize,
        b_c: f32,
        (eta_new, vel_new, residual): (f32, f32, f32),
        faces: [f32; 2],
        dropped: f32,
    ) -> bool {
        let bad = self.store_booked(c, b_c, eta_new, vel_new, residual, dropped);
        if !self.faces.is_empty() {
            self.faces[2 * c..2 * c + 2].copy_from_slice(&faces);
        }
        bad
    }

    /// Twin of `store`: the dry-cell rule. Returns whether the result is non-finite.
    pub(crate) fn store(&mut self, c: usize, b_c: f32, eta_new: f32, vel_new: f32, residual: f32) -> bool {
        self.store_booked(c, b_c, eta_new, vel_new, residual, vel_new)
    }

    /// Twin of `store_booked`: the dry-cell rule, booking `dropped` as the change it drops.
    fn store_booked(&mut self, c: usize, b_c: f32, eta_new: f32, vel_new: f32, residual: f32, dropped: f32) -> bool {
        let (eta, vel, res) = if eta_new <= b_c {
            if !self.clamped.is_empty() && eta_new.is_finite() {
                let k = &mut self.clamped[c];
                *k = [k[0] + ((b_c - eta_new) - residual), k[1] + dropped];
            }
            (b_c, 0.0, 0.0)
        } else {
            (eta_new, vel_new, residual)
        };
        self.carry[c] = res;
        self.eta[c] = eta;
        self.vel[c] = vel;
        !eta.is_finite() || !vel.is_finite()
    }
}

/// Twin of `step`, then of `edges` when the schedule asks for it
/// (`schedule::needs_edges`): one explicit substep into `out`. Returns whether any value came
/// out non-finite.
pub fn step(level: &Level, out: &mut Out, edges: bool) -> bool {
    let p = level.params;
    let mut bad = false;
    for j in 0..p.ny {
        for i in 0..p.nx {
            let c = level.cell(i, j);
            let (_, v, memory) = level.wave(i, j);
            // Compensated eta + (vel + carry), as in the WGSL.
            let (s, residual) = two_sum(level.eta[c], v + out.carry[c]);
            bad |= out.store_step(c, level.ground[c], (s, v, residual), memory);
        }
    }
    if edges {
        bad |= self::edges(level, out);
    }
    bad
}

/// Twin of `edges`: the perimeter overrides, after the step wrote every cell.
pub(crate) fn edges(level: &Level, out: &mut Out) -> bool {
    let p = level.params;
    let mut bad = false;
    for q in 0..2 * p.nx + 2 * (p.ny - 2) {
        let (i, j) = perimeter_cell(p, q);
        let c = level.cell(i, j);
        if let Some(e) = level.edge_override(i, j) {
            bad |= out.store(c, level.ground[c], e, e - level.eta[c], 0.0);
        }
    }
    bad
}

/// Twin of `perimeter_cell`.
pub fn perimeter_cell(p: &Params, q: u32) -> (u32, u32) {
    let (nx, ny) = (p.nx, p.ny);
    if q < nx {
        (q, 0)
    } else if q < 2 * nx {
        (q - nx, ny - 1)
    } else if q - 2 * nx < ny - 2 {
        (0, q - 2 * nx + 1)
    } else {
        (nx - 1, q - 2 * nx - (ny - 2) + 1)
    }
}

/// Twin of `rescale_velocity`: the per-step change scales with the substep length.
pub fn rescale_velocity(vel: &mut [f32], factor: f32) {
    for v in vel {
        *v *= factor;
    }
}

#[cfg(test)]
mod tests {
    use super::two_sum;

    #[test]
    fn two_sum_recovers_the_rounding_error_exactly() {
        for (a, b) in [(100.0f32, 1e-6f32), (0.05, 3.3e-9), (-1.5, 1e-7), (1e-3, -2.5e-4)] {
            let (s, e) = two_sum(a, b);
            assert_eq!(s as f64 + e as f64, a as f64 + b as f64, "{a} + {b}");
        }
    }
}
