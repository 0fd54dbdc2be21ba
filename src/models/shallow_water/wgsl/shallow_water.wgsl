#import sides
#import slot
// The nonlinear shallow-water equations: hydrostatic reconstruction (Audusse et al. 2004), HLL,
// MUSCL with a generalised minmod, SSP-RK2, Manning friction implicit in each stage. The scheme is
// written down in the twin, src/models/shallow_water/cpu/shallow_water.rs, function by function:
// each function here has the twin's name and its arithmetic in the same order.
//
// stage_one: U1 = F(U0 + dt·L(U0)) (U0 in level 0, U1 into level 1);
// stage_two: U2 = ½·(U0 + F(U1 + dt·L(U1))) over level 0 (a cell reads only its own U0);
// totals:    the deepest water and the non-finite cells, once per submit;
// probe:     the surface at the probe cells after a step.
// Each stage folds the largest Courant number into books[0] (a workgroup's max, then one atomic).

// Mirrors `SwParams` (src/models/shallow_water/setup.rs).
struct SwParams {
    nx: u32,
    ny: u32,
    dt: f32,
    inv_dx: f32,
    g: f32,
    n2: f32,
    film: f32,
    theta: f32,
    bc_west: u32,
    bc_east: u32,
    bc_south: u32,
    bc_north: u32,
    n_probes: u32,
    cells: u32,
    _pad0: u32,
    _pad1: u32,
}

// books[0]: the largest Courant number (f32 bits: non-negative floats order as their bits);
// books[1]: cells holding NaN or infinity; books[2]: the deepest water (f32 bits); books[3]: 0.
const BOOK_COURANT: u32 = 0u;
const BOOK_NONFINITE: u32 = 1u;
const BOOK_DEEPEST: u32 = 2u;
const BOOK_WORDS: u32 = 4u;

@group(0) @binding(0) var<uniform> p: SwParams;
@group(0) @binding(1) var<storage, read> ground: array<f32>;
@group(0) @binding(2) var<storage, read_write> eta0: array<f32>;
@group(0) @binding(3) var<storage, read_write> qx0: array<f32>;
@group(0) @binding(4) var<storage, read_write> qy0: array<f32>;
@group(0) @binding(5) var<storage, read_write> eta1: array<f32>;
@group(0) @binding(6) var<storage, read_write> qx1: array<f32>;
@group(0) @binding(7) var<storage, read_write> qy1: array<f32>;
@group(0) @binding(8) var<storage, read_write> books: array<atomic<u32>>;
@group(1) @binding(0) var<storage, read> probe_cells: array<u32>;
@group(1) @binding(1) var<storage, read_write> probe_history: array<f32>;
@group(2) @binding(0) var<uniform> slot: StepSlot;

var<workgroup> most: atomic<u32>;
var<workgroup> bad: atomic<u32>;

struct Cell {
    eta: f32,
    b: f32,
    qn: f32,
    qt: f32,
}

struct Side {
    eta: f32,
    h: f32,
    u: f32,
    v: f32,
}

struct Flux {
    mass: f32,
    normal: f32,
    tangential: f32,
    p_left: f32,
    p_right: f32,
}

fn velocity(q: f32, h: f32, film: f32) -> f32 {
    if h >= film {
        return q / h;
    }
    return 2.0 * q * h / (h * h + film * film);
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

// Cell k of the line through `c` along x (level 0 when `one` is false, else level 1).
fn read_x(row: u32, k: i32, one: bool) -> Cell {
    let c = row + u32(k);
    if one {
        return Cell(eta1[c], ground[c], qx1[c], qy1[c]);
    }
    return Cell(eta0[c], ground[c], qx0[c], qy0[c]);
}

fn read_y(i: u32, k: i32, one: bool) -> Cell {
    let c = u32(k) * p.nx + i;
    if one {
        return Cell(eta1[c], ground[c], qy1[c], qx1[c]);
    }
    return Cell(eta0[c], ground[c], qy0[c], qx0[c]);
}

// The index a ghost reads, by the side's mode (twin: `ghost`).
fn ghost_index(mode: u32, k: i32, n: i32) -> i32 {
    if mode == PERIODIC {
        return (k + n) % n;
    }
    if mode == REFLECT {
        return select(2 * n - 1 - k, -1 - k, k < 0);
    }
    return select(n - 1, 0, k < 0);
}

fn ghost_cell(mode: u32, c: Cell) -> Cell {
    if mode == REFLECT {
        return Cell(c.eta, c.b, -c.qn, c.qt);
    }
    if mode == OPEN {
        return Cell(max(c.b, 0.0), c.b, c.qn, c.qt);
    }
    return c;
}

fn at_x(i: i32, j: u32, one: bool) -> Cell {
    let nx = i32(p.nx);
    let row = j * p.nx;
    if i >= 0 && i < nx {
        return read_x(row, i, one);
    }
    let mode = select(p.bc_east, p.bc_west, i < 0);
    return ghost_cell(mode, read_x(row, ghost_index(mode, i, nx), one));
}

fn at_y(i: u32, j: i32, one: bool) -> Cell {
    let ny = i32(p.ny);
    if j >= 0 && j < ny {
        return read_y(i, j, one);
    }
    let mode = select(p.bc_north, p.bc_south, j < 0);
    return ghost_cell(mode, read_y(i, ghost_index(mode, j, ny), one));
}

fn primitive(c: Cell) -> Side {
    let h = max(c.eta - c.b, 0.0);
    return Side(c.eta, h, velocity(c.qn, h, p.film), velocity(c.qt, h, p.film));
}

// The west (index 0) and east (1) faces of `cur`.
fn reconstruct(prev: Cell, cur: Cell, next: Cell) -> array<Side, 2> {
    let a = primitive(prev);
    let c = primitive(cur);
    let n = primitive(next);
    if a.h < p.film || c.h < p.film || n.h < p.film {
        return array<Side, 2>(c, c);
    }
    let s = Side(
        limited(c.eta - a.eta, n.eta - c.eta, p.theta),
        limited(c.h - a.h, n.h - c.h, p.theta),
        limited(c.u - a.u, n.u - c.u, p.theta),
        limited(c.v - a.v, n.v - c.v, p.theta),
    );
    let west = Side(c.eta - 0.5 * s.eta, max(c.h - 0.5 * s.h, 0.0), c.u - 0.5 * s.u, c.v - 0.5 * s.v);
    let east = Side(c.eta + 0.5 * s.eta, max(c.h + 0.5 * s.h, 0.0), c.u + 0.5 * s.u, c.v + 0.5 * s.v);
    return array<Side, 2>(west, east);
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
    if sl >= 0.0 {
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

fn line_rates(c0: Cell, c1: Cell, c2: Cell, c3: Cell, c4: Cell) -> vec3<f32> {
    let west_of_w = reconstruct(c0, c1, c2)[1];
    let here = reconstruct(c1, c2, c3);
    let east_of_e = reconstruct(c2, c3, c4)[0];
    let w = here[0];
    let e = here[1];
    let fw = flux(west_of_w, w);
    let fe = flux(e, east_of_e);
    let surface = 0.5 * p.g * (w.h + e.h) * (e.eta - w.eta);
    return vec3<f32>(
        -(fe.mass - fw.mass) * p.inv_dx,
        -((fe.normal - fe.p_left) - (fw.normal - fw.p_right) + surface) * p.inv_dx,
        -(fe.tangential - fw.tangential) * p.inv_dx,
    );
}

fn rates(i: u32, j: u32, one: bool) -> vec3<f32> {
    let x = line_rates(
        at_x(i32(i) - 2, j, one),
        at_x(i32(i) - 1, j, one),
        at_x(i32(i), j, one),
        at_x(i32(i) + 1, j, one),
        at_x(i32(i) + 2, j, one),
    );
    let y = line_rates(
        at_y(i, i32(j) - 2, one),
        at_y(i, i32(j) - 1, one),
        at_y(i, i32(j), one),
        at_y(i, i32(j) + 1, one),
        at_y(i, i32(j) + 2, one),
    );
    return vec3<f32>(x.x + y.x, x.y + y.z, x.z + y.y);
}

fn courant(eta: f32, b: f32, qx: f32, qy: f32) -> f32 {
    let h = max(eta - b, 0.0);
    let u = velocity(qx, h, p.film);
    let v = velocity(qy, h, p.film);
    return (abs(u) + abs(v) + 2.0 * sqrt(p.g * h)) * p.dt * p.inv_dx;
}

fn euler(b: f32, cell: vec3<f32>, rate: vec3<f32>) -> vec3<f32> {
    let eta = max(cell.x + p.dt * rate.x, b);
    let h = eta - b;
    if h <= 0.0 {
        return vec3<f32>(eta, 0.0, 0.0);
    }
    var qx = cell.y + p.dt * rate.y;
    var qy = cell.z + p.dt * rate.z;
    if p.n2 > 0.0 {
        let u = velocity(qx, h, p.film);
        let v = velocity(qy, h, p.film);
        let speed = sqrt(u * u + v * v);
        let keep = 1.0 + p.dt * p.g * p.n2 * speed / pow(max(h, p.film), 4.0 / 3.0);
        qx = qx / keep;
        qy = qy / keep;
    }
    return vec3<f32>(eta, qx, qy);
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

@compute @workgroup_size(256)
fn stage_one(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let c = cell_index(gid, groups);
    var value = 0.0;
    if c < p.cells {
        let i = c % p.nx;
        let j = c / p.nx;
        let here = vec3<f32>(eta0[c], qx0[c], qy0[c]);
        let out = euler(ground[c], here, rates(i, j, false));
        eta1[c] = out.x;
        qx1[c] = out.y;
        qy1[c] = out.z;
        value = courant(here.x, ground[c], here.y, here.z);
    }
    fold_courant(local, value);
}

@compute @workgroup_size(256)
fn stage_two(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let c = cell_index(gid, groups);
    var value = 0.0;
    if c < p.cells {
        let i = c % p.nx;
        let j = c / p.nx;
        let one = vec3<f32>(eta1[c], qx1[c], qy1[c]);
        let v = euler(ground[c], one, rates(i, j, true));
        let eta = 0.5 * (eta0[c] + v.x);
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

@compute @workgroup_size(64)
fn probe(@builtin(global_invocation_id) gid: vec3<u32>) {
    let k = gid.x;
    if k < p.n_probes {
        probe_history[slot.index * p.n_probes + k] = eta0[probe_cells[k]];
    }
}
