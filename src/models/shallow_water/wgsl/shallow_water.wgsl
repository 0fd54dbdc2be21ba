#import sides
#import sw_common
#import sw_velocity
#import probe_entry
// The nonlinear shallow-water equations: hydrostatic reconstruction (Audusse et al. 2004), HLL,
// MUSCL with a generalised minmod, SSP-RK2, Manning friction implicit in each stage. The scheme is
// written down in the twin, src/models/shallow_water/cpu/shallow_water.rs, function by function:
// each function here has the twin's name and its arithmetic in the same order.
//
// stage_one: U1 = F(U0 + dt·L(U0)) (U0 in level 0, U1 into level 1);
// stage_two: U2 = ½·(U0 + F(U1 + dt·L(U1))) over level 0 (a cell reads only its own U0);
// Both stages run on 16×16 tiles: the tile and its 2-cell halo are read once into workgroup
// memory as primitives (surface, depth, both velocities), each cell reconstructs its faces from
// there, and each face's flux is computed once, by one thread, and read by both its cells (so
// the water a face moves leaves one cell and enters the other by construction). The twin
// computes each face from the same values in the same order: the same numbers.
// totals:    the deepest water and the non-finite cells, once per submit;
// probe:     the surface at the probe cells after a step.
// Each stage folds the largest Courant number into books[0] (a workgroup's max, then one atomic).

// books[0]: the largest Courant number (f32 bits: non-negative floats order as their bits);
// books[1]: cells holding NaN or infinity; books[2]: the deepest water (f32 bits); books[3]: 0.
const BOOK_COURANT: u32 = 0u;
const BOOK_NONFINITE: u32 = 1u;
const BOOK_DEEPEST: u32 = 2u;
const BOOK_WORDS: u32 = 4u;

@group(0) @binding(1) var<storage, read> ground: array<f32>;
@group(0) @binding(2) var<storage, read_write> eta0: array<f32>;
@group(0) @binding(3) var<storage, read_write> qx0: array<f32>;
@group(0) @binding(4) var<storage, read_write> qy0: array<f32>;
@group(0) @binding(5) var<storage, read_write> eta1: array<f32>;
@group(0) @binding(6) var<storage, read_write> qx1: array<f32>;
@group(0) @binding(7) var<storage, read_write> qy1: array<f32>;
@group(0) @binding(8) var<storage, read_write> books: array<atomic<u32>>;
@group(2) @binding(0) var<storage, read> probe_cells: array<u32>;
@group(2) @binding(1) var<storage, read_write> probe_history: array<f32>;
// The surface each cell is owed (the stages' and the feed's rounding, TwoSum's error), state:
// bound by the stages alone, in group 2 beside the probes' (which the stages leave out), so no
// pipeline passes the web's 10 storage buffers.
@group(2) @binding(2) var<storage, read_write> carry: array<f32>;

var<workgroup> most: atomic<u32>;
var<workgroup> bad: atomic<u32>;

// A stage's tile: TILE × TILE cells, their primitives with a HALO-cell frame (the 5-point
// stencil along each axis; the frame's corners unused), then each face's flux along one axis at
// a time. 20² · 20 B + 17 · 16 · 16 B = 12.4 KB, under the web's 16 KB.
const TILE: u32 = 16u;
const HALO: u32 = 2u;
const FRAME: u32 = 20u; // TILE + 2 · HALO
const FACES: u32 = 17u; // TILE + 1 faces along a line of the tile
// The frame's primitives: surface, depth, velocity along x, velocity along y; and whether each
// is a river side's ghost (`Side::fixed`).
var<workgroup> frame: array<vec4<f32>, 400>;
var<workgroup> frame_fixed: array<u32, 400>;
// One axis's face fluxes: mass, normal − p_left (the face as its west/south cell's east/north
// face), normal − p_right (as its east/north cell's west/south face), tangential.
var<workgroup> faces: array<vec4<f32>, 272>;

// `fixed`: a river side's ghost, whose state the face takes as given (twin: `Cell`).
struct Cell {
    eta: f32,
    b: f32,
    qn: f32,
    qt: f32,
    fixed: bool,
}

struct Side {
    eta: f32,
    h: f32,
    u: f32,
    v: f32,
    fixed: bool,
}

struct Flux {
    mass: f32,
    normal: f32,
    tangential: f32,
    p_left: f32,
    p_right: f32,
}

fn limited(a: f32, b: f32, theta: f32) -> f32 {
    if a * b <= 0.0 {
        return 0.0;
    }
    let m = min(min(theta * abs(a), theta * abs(b)), 0.5 * abs(a + b));
    if a > 0.0 {
        return m;
    }
    return -m;
}

fn air(c: u32) -> f32 {
    if p.air_at == 0u {
        return 0.0;
    }
    return ground[p.air_at + c];
}

// `cell` lifted by the air head `a` where there are patches (twin: `lift`).
fn lift(cell: Cell, a: f32) -> Cell {
    if p.air_at == 0u {
        return cell;
    }
    return Cell(cell.eta + a, cell.b + a, cell.qn, cell.qt, cell.fixed);
}

// Cell k of line `line` (a row along x, or a column along y): its index, and the cell as it is
// (level 0 when `one` is false, else level 1; qn along the line).
fn line_index(along_x: bool, line: u32, k: i32) -> u32 {
    if along_x {
        return line * p.nx + u32(k);
    }
    return u32(k) * p.nx + line;
}

fn raw_line(along_x: bool, line: u32, k: i32, one: bool) -> Cell {
    let c = line_index(along_x, line, k);
    if along_x {
        if one {
            return Cell(eta1[c], ground[c], qx1[c], qy1[c], false);
        }
        return Cell(eta0[c], ground[c], qx0[c], qy0[c], false);
    }
    if one {
        return Cell(eta1[c], ground[c], qy1[c], qx1[c], false);
    }
    return Cell(eta0[c], ground[c], qy0[c], qx0[c], false);
}

// The cell as the stencil reads it (twin: `at_x`'s and `at_y`'s `read`).
fn read_line(along_x: bool, line: u32, k: i32, one: bool) -> Cell {
    return lift(raw_line(along_x, line, k, one), air(line_index(along_x, line, k)));
}

fn beyond(e: Cell, i: Cell) -> f32 {
    return 2.0 * e.b - i.b;
}

fn inflow_depth(qn: f32, invariant: f32, inward: f32, g: f32, he: f32) -> f32 {
    var lo = 0.0;
    var hi = 2.0 * max(he, 1e-3);
    let at_zero = select(-1.0, 1.0, qn * inward > 0.0);
    for (var k = 0; k < 30; k++) {
        if (qn / hi - inward * 2.0 * sqrt(g * hi) - invariant) * at_zero < 0.0 {
            break;
        }
        hi = hi * 2.0;
    }
    for (var k = 0; k < 60; k++) {
        let mid = 0.5 * (lo + hi);
        if (qn / mid - inward * 2.0 * sqrt(g * mid) - invariant) * at_zero > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return 0.5 * (lo + hi);
}

fn river(mode: u32, value: f32, g: f32, inward: f32, e: Cell, i: Cell) -> Cell {
    let he = max(e.eta - e.b, 0.0);
    let ue = select(0.0, e.qn / he, he > 0.0);
    let invariant = ue - inward * 2.0 * sqrt(g * he);
    let b = beyond(e, i);
    if mode == DISCHARGE {
        let qn = inward * value;
        return Cell(b + inflow_depth(qn, invariant, inward, g, he), b, qn, 0.0, true);
    }
    let h = max(value - b, 0.0);
    let u = invariant + inward * 2.0 * sqrt(g * h);
    let v = select(0.0, e.qt / he, he > 0.0);
    return Cell(b + h, b, h * u, h * v, true);
}

// The ghost at `k` (−2, −1, n, n + 1) of line `line`'s `n` cells (twin: `ghost`).
fn ghost(mode: u32, value: f32, k: i32, n: i32, along_x: bool, line: u32, one: bool) -> Cell {
    if mode == PERIODIC {
        return read_line(along_x, line, (k + n) % n, one);
    }
    if mode == REFLECT {
        let c = read_line(along_x, line, select(2 * n - 1 - k, -1 - k, k < 0), one);
        return Cell(c.eta, c.b, -c.qn, c.qt, false);
    }
    // Built from the edge's cells as they are, then lifted by the edge's head: a free side
    // carries the ground's slope on, not the pressure's.
    let edge = select(n - 1, 0, k < 0);
    let a = air(line_index(along_x, line, edge));
    let e = raw_line(along_x, line, edge, one);
    if mode == OPEN {
        let still = select(0.0, -a, p.air_at != 0u);
        return lift(Cell(max(e.b, still), e.b, e.qn, e.qt, false), a);
    }
    let i = raw_line(along_x, line, select(n - 2, 1, k < 0), one);
    if mode == DISCHARGE || mode == STAGE {
        return lift(river(mode, value, p.g, select(-1.0, 1.0, k < 0), e, i), a);
    }
    return lift(free(e, i), a);
}

fn free(e: Cell, i: Cell) -> Cell {
    let b = beyond(e, i);
    return Cell(b + max(e.eta - e.b, 0.0), b, e.qn, e.qt, false);
}

fn at_x(i: i32, j: u32, one: bool) -> Cell {
    let nx = i32(p.nx);
    if i >= 0 && i < nx {
        return read_line(true, j, i, one);
    }
    let mode = select(p.bc_east, p.bc_west, i < 0);
    let value = select(slot.sides.y, slot.sides.x, i < 0);
    return ghost(mode, value, i, nx, true, j, one);
}

fn at_y(i: u32, j: i32, one: bool) -> Cell {
    let ny = i32(p.ny);
    if j >= 0 && j < ny {
        return read_line(false, i, j, one);
    }
    let mode = select(p.bc_north, p.bc_south, j < 0);
    let value = select(slot.sides.w, slot.sides.z, j < 0);
    return ghost(mode, value, j, ny, false, i, one);
}

fn primitive(c: Cell) -> Side {
    let h = max(c.eta - c.b, 0.0);
    return Side(c.eta, h, velocity(c.qn, h, p.film), velocity(c.qt, h, p.film), c.fixed);
}

// One face of `c` (`half`: −½ west, +½ east) from its slopes of surface, depth and velocities.
fn face(c: Side, half: f32, s_eta: f32, s_h: f32, s_u: f32, s_v: f32) -> Side {
    return Side(c.eta + half * s_eta, max(c.h + half * s_h, 0.0), c.u + half * s_u, c.v + half * s_v, false);
}

// The west (index 0) and east (1) faces of the cell whose primitive is `c`, between `a` and `n`
// (twin: `reconstruct`, which takes the three cells and makes their primitives first).
fn reconstruct(a: Side, c: Side, n: Side) -> array<Side, 2> {
    if a.h < p.film || c.h < p.film || n.h < p.film || c.fixed {
        return array<Side, 2>(c, c);
    }
    let s_eta = limited(c.eta - a.eta, n.eta - c.eta, p.theta);
    let s_h = limited(c.h - a.h, n.h - c.h, p.theta);
    let s_u = limited(c.u - a.u, n.u - c.u, p.theta);
    let s_v = limited(c.v - a.v, n.v - c.v, p.theta);
    return array<Side, 2>(face(c, -0.5, s_eta, s_h, s_u, s_v), face(c, 0.5, s_eta, s_h, s_u, s_v));
}

fn own(c: Side) -> vec2<f32> {
    return vec2<f32>(c.h * c.u, c.h * c.u * c.u + 0.5 * p.g * c.h * c.h);
}

fn flux(l: Side, r: Side) -> Flux {
    let g = p.g;
    let bed = max(l.eta - l.h, r.eta - r.h);
    let hl = max(l.eta - bed, 0.0);
    let hr = max(r.eta - bed, 0.0);
    let p_left = 0.5 * g * hl * hl;
    let p_right = 0.5 * g * hr * hr;
    if hl <= 0.0 && hr <= 0.0 {
        return Flux(0.0, 0.0, 0.0, p_left, p_right);
    }
    let cl = sqrt(g * hl);
    let cr = sqrt(g * hr);
    var sl: f32;
    var sr: f32;
    if hl <= 0.0 {
        sl = r.u - 2.0 * cr;
        sr = r.u + cr;
    } else if hr <= 0.0 {
        sl = l.u - cl;
        sr = l.u + 2.0 * cl;
    } else {
        sl = min(l.u - cl, r.u - cr);
        sr = max(l.u + cl, r.u + cr);
    }
    let ql = hl * l.u;
    let qr = hr * r.u;
    let fl = vec2<f32>(ql, ql * l.u + p_left);
    let fr = vec2<f32>(qr, qr * r.u + p_right);
    let ul = vec2<f32>(hl, ql);
    let ur = vec2<f32>(hr, qr);
    var f: vec2<f32>;
    if l.fixed {
        f = own(l);
    } else if r.fixed {
        f = own(r);
    } else if sl >= 0.0 {
        f = fl;
    } else if sr <= 0.0 {
        f = fr;
    } else {
        let spread = sr - sl;
        let lean = (sr + sl) / spread;
        let diffusion = sr * sl / spread;
        f = 0.5 * (fl + fr) - 0.5 * lean * (fr - fl) + diffusion * (ur - ul);
    }
    let carried = select(r.v, l.v, f.x > 0.0);
    return Flux(f.x, f.y, f.x * carried, p_left, p_right);
}

// Frame position k (row-major over FRAME × FRAME) of the tile at `origin`: the cell or ghost
// the stencil reads there, as a primitive with u along x and v along y. Positions no cell of
// the grid reads (the frame's corners, beyond the grid's own ghosts) hold a dry zero.
fn load_frame(k: u32, origin: vec2<i32>, one: bool) {
    let i = origin.x + i32(k % FRAME) - i32(HALO);
    let j = origin.y + i32(k / FRAME) - i32(HALO);
    let nx = i32(p.nx);
    let ny = i32(p.ny);
    var s = Side(0.0, 0.0, 0.0, 0.0, false);
    if j >= 0 && j < ny && i >= -2 && i < nx + 2 {
        // In the grid, or a ghost along x: qn is qx.
        s = primitive(at_x(i, u32(j), one));
    } else if i >= 0 && i < nx && j >= -2 && j < ny + 2 {
        // A ghost along y: qn is qy, so the primitive's u is the velocity along y.
        let t = primitive(at_y(u32(i), j, one));
        s = Side(t.eta, t.h, t.v, t.u, t.fixed);
    }
    frame[k] = vec4<f32>(s.eta, s.h, s.u, s.v);
    frame_fixed[k] = select(0u, 1u, s.fixed);
}

// The primitive at frame column `fi`, row `fj`, as a sweep along x (u along x) or along y (u
// along y, v along x) reads it.
fn framed(fi: u32, fj: u32, along_x: bool) -> Side {
    let k = fj * FRAME + fi;
    let f = frame[k];
    let fixed = frame_fixed[k] != 0u;
    if along_x {
        return Side(f.x, f.y, f.z, f.w, fixed);
    }
    return Side(f.x, f.y, f.w, f.z, fixed);
}

// Cell `at` steps along the sweep's axis from the tile cell (lx, ly)'s frame position.
fn along(lx: u32, ly: u32, at: i32, along_x: bool) -> Side {
    if along_x {
        return framed(u32(i32(lx + HALO) + at), ly + HALO, true);
    }
    return framed(lx + HALO, u32(i32(ly + HALO) + at), false);
}

fn packed(f: Flux) -> vec4<f32> {
    return vec4<f32>(f.mass, f.normal - f.p_left, f.normal - f.p_right, f.tangential);
}

// One axis of a tile cell's rates (twin: `line_rates` over the cells −2..2 along the axis): the
// thread reconstructs its cell and the one before it, writes the flux of the face between them
// (the tile's last thread along the line the face after it too), and, once every face of the
// tile is written, takes the difference of its two faces and its own pressure-and-bed term.
// Called by every thread of the workgroup (barriers inside).
fn axis_rates(lx: u32, ly: u32, along_x: bool) -> vec3<f32> {
    let here = reconstruct(along(lx, ly, -1, along_x), along(lx, ly, 0, along_x), along(lx, ly, 1, along_x));
    let before = reconstruct(along(lx, ly, -2, along_x), along(lx, ly, -1, along_x), along(lx, ly, 0, along_x))[1];
    // The line's k-th cell along the axis, and the line across it.
    let k = select(ly, lx, along_x);
    let line = select(lx, ly, along_x);
    faces[line * FACES + k] = packed(flux(before, here[0]));
    if k == TILE - 1u {
        let after = reconstruct(along(lx, ly, 0, along_x), along(lx, ly, 1, along_x), along(lx, ly, 2, along_x))[0];
        faces[line * FACES + TILE] = packed(flux(here[1], after));
    }
    workgroupBarrier();
    let fw = faces[line * FACES + k];
    let fe = faces[line * FACES + k + 1u];
    let w = here[0];
    let e = here[1];
    let surface = 0.5 * p.g * (w.h + e.h) * (e.eta - w.eta);
    let rates = vec3<f32>(
        -(fe.x - fw.x) * p.inv_dx,
        -(fe.y - fw.z + surface) * p.inv_dx,
        -(fe.w - fw.w) * p.inv_dx,
    );
    // The next axis writes over these faces.
    workgroupBarrier();
    return rates;
}

// The tile cell (lx, ly)'s rates of surface, x and y discharge for the tile at `origin` (twin:
// `rates`). Every thread of the workgroup calls it (barriers inside).
fn tile_rates(local: u32, lx: u32, ly: u32, origin: vec2<i32>, one: bool) -> vec3<f32> {
    for (var k = local; k < FRAME * FRAME; k += TILE * TILE) {
        load_frame(k, origin, one);
    }
    workgroupBarrier();
    let x = axis_rates(lx, ly, true);
    let y = axis_rates(lx, ly, false);
    return vec3<f32>(x.x + y.x, x.y + y.z, x.z + y.y);
}

fn courant(eta: f32, b: f32, qx: f32, qy: f32) -> f32 {
    let h = max(eta - b, 0.0);
    let u = velocity(qx, h, p.film);
    let v = velocity(qy, h, p.film);
    return (abs(u) + abs(v) + 2.0 * sqrt(p.g * h)) * p.dt * p.inv_dx;
}

// Cell c's friction: Manning's n² (its map's, or the scene's one value) and the damping's
// linear drag in 1/s (its map's, or the scene's).
fn friction_of(c: u32) -> vec2<f32> {
    var f = vec2<f32>(p.n2, p.drag);
    if p.friction_at != 0u {
        f.x = ground[p.friction_at + c];
    }
    if p.drag_at != 0u {
        f.y = ground[p.drag_at + c];
    }
    return f;
}

// One Euler stage: the new (eta, qx, qy) and, in w, the surface the cell is owed beyond it
// (twin: `euler`): what rounding the sum lost, and where it ends dry what the dry-cell rule gave.
// `friction`: n² and the drag, both implicit in one factor.
fn euler(b: f32, friction: vec2<f32>, cell: vec3<f32>, rate: vec3<f32>) -> vec4<f32> {
    let sum = sum_exact(cell.x, p.dt * rate.x);
    let eta = max(sum.x, b);
    let h = eta - b;
    if h <= 0.0 {
        return vec4<f32>(eta, 0.0, 0.0, (sum.x - eta) + sum.y);
    }
    var qx = cell.y + p.dt * rate.y;
    var qy = cell.z + p.dt * rate.z;
    var keep = 1.0 + p.dt * friction.y;
    if friction.x > 0.0 {
        let u = velocity(qx, h, p.film);
        let v = velocity(qy, h, p.film);
        let speed = sqrt(u * u + v * v);
        keep = keep + p.dt * p.g * friction.x * speed / pow(max(h, p.film), 4.0 / 3.0);
    }
    if keep != 1.0 {
        qx = qx / keep;
        qy = qy / keep;
    }
    return vec4<f32>(eta, qx, qy, sum.y);
}

// Stage two's surface `eta` with what the cell is `owed` paid in (TwoSum): the surface and what
// is still owed. A cell the payment would take under its ground stays at its ground, owing the
// rest (a film's rounding; paid when water comes back).
fn owed_paid(eta: f32, owed: f32, b: f32) -> vec2<f32> {
    let paid = sum_exact(eta, owed);
    if paid.x < b {
        return vec2<f32>(b, paid.y + (paid.x - b));
    }
    return paid;
}

fn cell_index(gid: vec3<u32>, groups: vec3<u32>) -> u32 {
    return gid.x + gid.y * groups.x * 256u;
}

// Folds a thread's Courant number into the workgroup's, then the workgroup's into books[0].
fn fold_courant(local: u32, value: f32) {
    atomicMax(&most, bitcast<u32>(max(value, 0.0)));
    workgroupBarrier();
    if local == 0u {
        atomicMax(&books[BOOK_COURANT], atomicLoad(&most));
    }
}

@compute @workgroup_size(16, 16)
fn stage_one(
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(workgroup_id) tile: vec3<u32>,
) {
    let origin = vec2<i32>(tile.xy * TILE);
    let rates = tile_rates(local, lid.x, lid.y, origin, false);
    let i = tile.x * TILE + lid.x;
    let j = tile.y * TILE + lid.y;
    var value = 0.0;
    if i < p.nx && j < p.ny {
        let c = j * p.nx + i;
        let here = vec3<f32>(eta0[c], qx0[c], qy0[c]);
        let out = euler(ground[c], friction_of(c), here, rates);
        eta1[c] = out.x;
        qx1[c] = out.y;
        qy1[c] = out.z;
        // Half of stage one's rounding reaches U2 (its ½·U1): owed from now.
        carry[c] = carry[c] + 0.5 * out.w;
        value = courant(here.x, ground[c], here.y, here.z);
    }
    fold_courant(local, value);
}

@compute @workgroup_size(16, 16)
fn stage_two(
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(workgroup_id) tile: vec3<u32>,
) {
    let origin = vec2<i32>(tile.xy * TILE);
    let rates = tile_rates(local, lid.x, lid.y, origin, true);
    let i = tile.x * TILE + lid.x;
    let j = tile.y * TILE + lid.y;
    var value = 0.0;
    if i < p.nx && j < p.ny {
        let c = j * p.nx + i;
        let one = vec3<f32>(eta1[c], qx1[c], qy1[c]);
        let v = euler(ground[c], friction_of(c), one, rates);
        let pair = sum_exact(eta0[c], v.x);
        let owed = carry[c] + 0.5 * (v.w + pair.y);
        let paid = owed_paid(0.5 * pair.x, owed, ground[c]);
        let eta = paid.x;
        carry[c] = paid.y;
        let dry = eta <= ground[c];
        eta0[c] = eta;
        qx0[c] = select(0.5 * (qx0[c] + v.y), 0.0, dry);
        qy0[c] = select(0.5 * (qy0[c] + v.z), 0.0, dry);
        value = courant(one.x, ground[c], one.y, one.z);
    }
    fold_courant(local, value);
}

// Twin: `sw_solver::totals` (its deepest water and non-finite count; the sum is the host's).
@compute @workgroup_size(256)
fn totals(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let c = cell_index(gid, groups);
    if c < p.cells {
        let e = eta0[c];
        let qx = qx0[c];
        let qy = qy0[c];
        // A NaN fails every comparison; an infinity is past the largest finite float.
        let big = 3.4e38;
        if !(abs(e) <= big && abs(qx) <= big && abs(qy) <= big) {
            atomicAdd(&bad, 1u);
        } else {
            atomicMax(&most, bitcast<u32>(max(e - ground[c], 0.0)));
        }
    }
    workgroupBarrier();
    if local == 0u {
        atomicAdd(&books[BOOK_NONFINITE], atomicLoad(&bad));
        atomicMax(&books[BOOK_DEEPEST], atomicLoad(&most));
    }
}

// Probe entries: probe_entry.wgsl.
@compute @workgroup_size(64)
fn probe(@builtin(global_invocation_id) gid: vec3<u32>) {
    let k = gid.x;
    if k < p.n_probes {
        let entry = probe_cells[k];
        let c = probe_cell(entry);
        let kind = probe_kind(entry);
        var value = eta0[c];
        if kind == PROBE_QX {
            value = qx0[c];
        } else if kind == PROBE_QY {
            value = qy0[c];
        }
        probe_history[slot.index * p.n_probes + k] = value;
    }
}
