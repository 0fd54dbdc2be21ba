#import hash
#import sides
#import columns
// Seed 004's spray: water that breaks free of the columns (pipes.wgsl) as particles, flies under
// gravity, bounces off the terrain and the walls, and is absorbed back into the column it falls
// on, its impact a pressure on that column. Twin: src/cpu/spray.rs.
//
// A particle carries whole units of water (pipes.wgsl's units), taken from its column when it is
// made and given back when it lands: columns + particles + what left through the sides is
// conserved exactly. Every step, in order:
//   fly      per particle: move, bounce, land or leave; flag the survivors (counts[i] = 1)
//   count    per column: the weir's volume through each face that breaks, as particles
//            (counts[base + c] = how many; plan[c] = the units per face)
//   scan_reduce, scan_top, scan_down: counts → exclusive offsets (survivors first, then each
//            column's new particles in column order: a fixed order, so reruns give the same bits)
//   compact  per particle: survivors to next[offset]
//   emit     per column: its new particles to next[offset + m] while they fit the capacity
//   settle   per column: the landed water in, the emitted water out, the impact pressure set
//   copy     per particle: next → particles, the new count into the dispatch and draw args
// Integer atomics (landing, leaving) give the same sums in any order.

struct SprayParams {
    nx: u32,
    ny: u32,
    columns: u32,
    layers: u32,
    // Particles the buffer holds.
    capacity: u32,
    // Where the columns' counts start in `counts` (capacity rounded up to a scan block).
    base: u32,
    // Scan blocks over counts: (base + columns + 1) / SCAN_BLOCK, rounded up.
    blocks: u32,
    seed: u32,
    // The step before this chunk's first (the random numbers are keyed by the step).
    first_step: u32,
    // Units of water per particle (the last of a face's takes the remainder).
    per_particle: u32,
    bc_west: u32,
    bc_east: u32,
    bc_south: u32,
    bc_north: u32,
    dx: f32,
    // The step, seconds: particles move once per step.
    dt: f32,
    gravity: f32,
    // Metres per unit of height.
    quantum: f32,
    // A face breaks where the water stands over its crest by more than this share of its depth.
    breaking: f32,
    // The weir: units through a face per step per metre^(3/2) of H, (2/3)·sqrt(2g)·dx·dt/(dx²·quantum).
    weir: f32,
    lifetime: f32,
    // Share of the speed into a wall or the ground that a bounce keeps.
    restitution: f32,
    // exp(−drag·dt): the air's drag on a particle over a step.
    drag: f32,
    // Units of head per m/s of impact speed: μ/(ρ·g·dx²·quantum), the seed's F = −v·μ as pressure.
    impact: f32,
    // The least H that breaks, units (`[spray] least_height`).
    least: i32,
    // A free overfall's law: units through a face per step per metre^(3/2) of depth, the axial
    // pipe's share (2/3) of critical flow sqrt(g)·(2/3·H)^(3/2), times dx·dt/(dx²·quantum).
    overfall: f32,
    // The drop, units, past which a floor over its neighbour's is a lip: dx (pipes.wgsl's `lip`).
    lip: i32,
    _pad0: u32,
}

struct Particle {
    // Relative to the domain's corner and the reference level, metres.
    pos: vec3<f32>,
    // Water it carries, units.
    units: u32,
    vel: vec3<f32>,
    // Seconds since it was made.
    age: f32,
}

// Particles a face may make per step: bounds the work per column (the weir's volume beyond it
// stays in the column for the next step).
const MOST_PER_FACE: u32 = 8u;
// Elements each scan workgroup covers: 256 lanes × 4.
const SCAN_BLOCK: u32 = 1024u;
// Where a new particle starts past the face, as a share of dx: over the neighbour's column.
const NUDGE: f32 = 0.001;

@group(0) @binding(0) var<uniform> sp: SprayParams;
@group(0) @binding(1) var<storage, read> geometry: array<vec2<i32>>;
@group(0) @binding(2) var<storage, read> water: array<u32>;
@group(0) @binding(3) var<storage, read> vel: array<vec2<f32>>;
@group(0) @binding(4) var<storage, read_write> particles: array<Particle>;
@group(0) @binding(5) var<storage, read_write> next: array<Particle>;
// [0, capacity): survivor flags; [base, base + columns): particles per column; then one 0. The
// scan turns them into offsets in place.
@group(0) @binding(6) var<storage, read_write> counts: array<u32>;
// Per column, the units each axial face sends as spray this step (emit: those that fit).
@group(0) @binding(7) var<storage, read_write> plan: array<vec4<u32>>;
// [0, cells): units landed per cell; [cells, cells + columns): impact per column (units of head);
// then units that left through the sides, per column. settle empties them.
@group(0) @binding(8) var<storage, read_write> inbox: array<atomic<u32>>;
@group(0) @binding(9) var<storage, read_write> feed: array<vec4<i32>>;
@group(0) @binding(10) var<storage, read_write> exchange: array<Exchange>;
@group(0) @binding(11) var<storage, read_write> water_rw: array<u32>;
@group(0) @binding(12) var<storage, read_write> block_sums: array<u32>;
// (workgroups x, 1, 1, particles): the dispatch args of the per-particle passes.
@group(0) @binding(13) var<storage, read> args_now: vec4<u32>;
@group(0) @binding(14) var<storage, read_write> args_now_rw: vec4<u32>;
@group(0) @binding(15) var<storage, read_write> args_next: vec4<u32>;
@group(0) @binding(16) var<storage, read> args_next_r: vec4<u32>;
// Per chunk: particles made, ended (landed, expired or left), refused (the buffer was full); then
// the units in flight (low word, high word) and the particle count, summed by `totals`.
@group(0) @binding(17) var<storage, read_write> tally: array<atomic<u32>, 8>;
// (vertex count, instance count, first vertex, first instance): a draw of six vertices (two
// triangles) per particle, for an embedding renderer.
@group(0) @binding(18) var<storage, read_write> draw: array<u32, 4>;
@group(1) @binding(0) var<uniform> slot: StepSlot;



fn index(gid: vec3<u32>, groups: vec3<u32>) -> u32 {
    return gid.x + gid.y * groups.x * 64u;
}

// The height of a cell's water top in units: its floor plus its water, up to its ceiling.
fn top_units(g: vec2<i32>, w: u32) -> i32 {
    return g.x + min(i32(w), g.y - g.x);
}

// The top cell of column c (the one open to the sky).
fn top_layer(c: u32) -> u32 {
    var top = 0u;
    for (var a = 1u; a < sp.layers; a++) {
        if geometry[a * sp.columns + c].x != SKY {
            top = a;
        }
    }
    return top;
}

// The neighbour of column (i, j) across axial face k, or columns (none: a wall or a side).
fn across(i: u32, j: u32, k: u32) -> u32 {
    let o = offset(k);
    let x = i32(i) + o.x;
    let y = i32(j) + o.y;
    if x < 0 || y < 0 || x >= i32(sp.nx) || y >= i32(sp.ny) {
        return sp.columns;
    }
    return u32(y) * sp.nx + u32(x);
}

// The water top (units) of column c's top cell.
fn column_top(c: u32) -> i32 {
    let a = top_layer(c);
    return top_units(geometry[a * sp.columns + c], water[a * sp.columns + c]);
}

// The crest water leaves column c over through face k (units), or SKY where it does not break,
// and 1 for a free overfall over a lip (else 0):
//  - over an edge, where the neighbour's water (or dry ground) lies below the column's floor by
//    more than breaking·depth, whatever its depth; a free overfall where the neighbour's floor
//    lies more than dx below (`lip`: pipes.wgsl `piped` leaves the axial pipe's flow through it
//    to the spray), else a step of a slope, under the seed's weir as before;
//  - over a wave, where the neighbour is wet and the water stands over its surface by more than
//    breaking·depth (the seed's 0.78) and by more than the least height (a ripple of the grid
//    is not a breaking wave).
// A flood front running onto dry ground at its own level runs on: no spray.
fn crest_of(c: u32, k: u32, floor: i32, top: i32) -> vec2<i32> {
    let b = across(c % sp.nx, c / sp.nx, k);
    if b == sp.columns || top <= floor {
        return vec2<i32>(SKY, 0);
    }
    let a = top_layer(b);
    let gb = geometry[a * sp.columns + b];
    let top_b = top_units(gb, water[a * sp.columns + b]);
    let depth = f32(top - floor);
    if top_b < floor {
        let free = select(0, 1, floor - gb.x > sp.lip);
        return select(vec2<i32>(SKY, 0), vec2<i32>(floor, free), f32(floor - top_b) > sp.breaking * depth);
    }
    let over = top - top_b;
    let wave = top_b > gb.x && over > sp.least && f32(over) > sp.breaking * depth;
    return vec2<i32>(select(SKY, top_b, wave), 0);
}

// Units column c sends through face k this step, given `left` units still in its top cell, H
// the height over the crest: over a wave the seed's weir, Q = (2/3)·B·H^(3/2)·sqrt(2g); over a
// free overfall the axial pipe's share of critical flow, which the pipe yields to the spray, so
// the lip passes critical flow with the spray on or off.
fn face_units(c: u32, k: u32, floor: i32, top: i32, left: u32) -> u32 {
    let crest = crest_of(c, k, floor, top);
    if crest.x == SKY {
        return 0u;
    }
    var h = f32(top - crest.x) * sp.quantum;
    if crest.y == 1 {
        // Once a step, the overfall takes critical flow at the step's mid depth (the explicit
        // midpoint rule on the lip's outflow): at the step's end depth it took what a step of
        // inflow had raised the lip by, 7 % over critical flow at dt = 0.02 s.
        h = max(h - 0.5 * (sp.overfall * h * sqrt(h)) * sp.quantum, 0.0);
    }
    let law = select(sp.weir, sp.overfall, crest.y == 1);
    let want = min(law * h * sqrt(h), f32(MOST_PER_FACE * sp.per_particle));
    return min(u32(want), left);
}

@compute @workgroup_size(64)
fn count(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = index(gid, groups);
    if c >= sp.columns {
        return;
    }
    let a = top_layer(c);
    let g = geometry[a * sp.columns + c];
    let w = water[a * sp.columns + c];
    let top = top_units(g, w);
    var left = w;
    var units = vec4<u32>(0u);
    var n = 0u;
    for (var k = 0u; k < 4u; k++) {
        let u = face_units(c, k, g.x, top, left);
        units[k] = u;
        left -= u;
        n += (u + sp.per_particle - 1u) / sp.per_particle;
    }
    plan[c] = units;
    counts[sp.base + c] = n;
}

// Particle m of a face that sends `units`: its units (the last takes the remainder).
fn share(units: u32, m: u32) -> u32 {
    return min(sp.per_particle, units - m * sp.per_particle);
}

@compute @workgroup_size(64)
fn emit(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = index(gid, groups);
    if c >= sp.columns {
        return;
    }
    let i = c % sp.nx;
    let j = c / sp.nx;
    let a = top_layer(c);
    let g = geometry[a * sp.columns + c];
    let top = top_units(g, water[a * sp.columns + c]);
    let step = sp.first_step + slot.index + 1u;
    let key = hash(sp.seed ^ hash(step ^ hash(c)));
    // The mean flow of the column and its neighbours gives the spray its direction.
    var mean = vec2<f32>(0.0);
    for (var k = 0u; k < 8u; k++) {
        let o = offset(k);
        let x = i32(i) + o.x;
        let y = i32(j) + o.y;
        if x >= 0 && y >= 0 && x < i32(sp.nx) && y < i32(sp.ny) {
            let q = u32(y) * sp.nx + u32(x);
            mean += vel[top_layer(q) * sp.columns + q];
        }
    }
    mean += vel[a * sp.columns + c];
    let units = plan[c];
    var fitted = vec4<u32>(0u);
    var at = counts[sp.base + c];
    var m_all = 0u;
    for (var k = 0u; k < 4u; k++) {
        let u = units[k];
        if u == 0u {
            continue;
        }
        let crest = crest_of(c, k, g.x, top);
        let normal = unit(k);
        let h = f32(top - crest.x) * sp.quantum;
        // Q / (B·H): the weir's mean speed through the face, (2/3)·sqrt(2gH); over a free
        // overfall critical flow's, sqrt(g·2/3·H).
        let speed = select(0.6666667 * sqrt(2.0 * sp.gravity * h), sqrt(0.6666667 * sp.gravity * h), crest.y == 1);
        var dir = normal;
        if dot(mean, normal) > 0.0 {
            dir = normalize(mean);
        }
        // v² = u² + 2·a·s down from the column behind (upstream), where it stands higher.
        let behind = across(i, j, opposite(k));
        var fall = 0.0;
        if behind != sp.columns {
            fall = max(f32(column_top(behind) - top) * sp.quantum, 0.0);
        }
        let vz = -sqrt(2.0 * sp.gravity * fall);
        let n = (u + sp.per_particle - 1u) / sp.per_particle;
        let centre = (vec2<f32>(f32(i), f32(j)) + 0.5 + normal * (0.5 + NUDGE)) * sp.dx;
        let along = vec2<f32>(-normal.y, normal.x);
        for (var m = 0u; m < n; m++) {
            if at >= sp.capacity {
                break;
            }
            let r = hash(key ^ hash(m_all));
            let s = uniform01(r);
            let t = uniform01(hash(r));
            let xy = centre + along * ((s - 0.5) * sp.dx);
            let z = (f32(crest.x) + t * f32(top - crest.x)) * sp.quantum;
            let mine = share(u, m);
            next[at] = Particle(vec3<f32>(xy, z), mine, vec3<f32>(dir * speed, vz), 0.0);
            fitted[k] += mine;
            at++;
            m_all++;
        }
    }
    plan[c] = fitted;
}

// What a height z (metres) is in column c: (the open cell it is in, or the lowest open cell
// above it when it is inside a solid; whether it is open).
fn locate(c: u32, z: f32) -> vec2<u32> {
    for (var a = 0u; a < sp.layers; a++) {
        let g = geometry[a * sp.columns + c];
        if g.x == SKY {
            break;
        }
        if z < f32(g.x) * sp.quantum {
            return vec2<u32>(a, 0u);
        }
        if g.y == SKY || z < f32(g.y) * sp.quantum {
            return vec2<u32>(a, 1u);
        }
    }
    // Above the last ceiling (cannot happen: the top cell reaches the sky).
    return vec2<u32>(top_layer(c), 1u);
}

fn column_of(xy: vec2<f32>) -> u32 {
    let i = min(u32(max(xy.x / sp.dx, 0.0)), sp.nx - 1u);
    let j = min(u32(max(xy.y / sp.dx, 0.0)), sp.ny - 1u);
    return j * sp.nx + i;
}

// Gives a particle's water to cell (a, c), and its impact to the column's top cell.
fn land(c: u32, a: u32, p: Particle, hit: bool) {
    atomicAdd(&inbox[a * sp.columns + c], p.units);
    if hit && a == top_layer(c) {
        let push = p.units + u32(min(sp.impact * length(p.vel), 1.0e9));
        atomicAdd(&inbox[sp.layers * sp.columns + c], push);
    }
}

// A particle past a side along one axis (x, v: its coordinate and velocity there; low, high: the
// side codes): (x, v, 1 if it left the domain). Reflect bounces it back, periodic wraps it.
fn side(x: f32, v: f32, size: f32, low: u32, high: u32) -> vec3<f32> {
    if x >= 0.0 && x < size {
        return vec3<f32>(x, v, 0.0);
    }
    let code = select(high, low, x < 0.0);
    if code == PERIODIC {
        return vec3<f32>(select(x - size, x + size, x < 0.0), v, 0.0);
    }
    if code == REFLECT {
        return vec3<f32>(select(2.0 * size - x, -x, x < 0.0), -sp.restitution * v, 0.0);
    }
    return vec3<f32>(x, v, 1.0);
}

@compute @workgroup_size(64)
fn fly(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = index(gid, groups);
    if i >= args_now.w {
        return;
    }
    var p = particles[i];
    let c0 = column_of(p.pos.xy);
    // Gravity exactly over the step, then the drag.
    let v0 = p.vel;
    var v = vec3<f32>(v0.xy, v0.z - sp.gravity * sp.dt) * sp.drag;
    var x = p.pos + 0.5 * (v0 + v) * sp.dt;
    p.age += sp.dt;
    let across_x = side(x.x, v.x, f32(sp.nx) * sp.dx, sp.bc_west, sp.bc_east);
    let across_y = side(x.y, v.y, f32(sp.ny) * sp.dx, sp.bc_south, sp.bc_north);
    x = vec3<f32>(across_x.x, across_y.x, x.z);
    v = vec3<f32>(across_x.y, across_y.y, v.z);
    if across_x.z + across_y.z > 0.0 {
        atomicAdd(&inbox[(sp.layers + 1u) * sp.columns + c0], p.units);
        counts[i] = 0u;
        return;
    }
    var c = column_of(x.xy);
    var at = locate(c, x.z);
    if at.y == 0u {
        let floor = f32(geometry[at.x * sp.columns + c].x) * sp.quantum;
        if p.pos.z >= floor {
            // Came down onto the floor (through the water on it): lands.
            p.vel = v;
            land(c, at.x, p, true);
            counts[i] = 0u;
            return;
        }
        if c == c0 {
            // Rose into a ceiling: back down.
            x.z = p.pos.z;
            v.z = -sp.restitution * v.z;
        } else {
            // Into a wall: back across, the crossed components reflected.
            let i1 = c % sp.nx;
            let j1 = c / sp.nx;
            if i1 != c0 % sp.nx {
                v.x = -sp.restitution * v.x;
            }
            if j1 != c0 / sp.nx {
                v.y = -sp.restitution * v.y;
            }
            x = vec3<f32>(p.pos.xy, x.z);
            c = c0;
        }
        at = locate(c, x.z);
        if at.y == 0u {
            // Still in a solid (a corner): lands in the cell above.
            p.vel = v;
            land(c, at.x, p, false);
            counts[i] = 0u;
            return;
        }
    }
    p.pos = x;
    p.vel = v;
    let g = geometry[at.x * sp.columns + c];
    let surface = f32(top_units(g, water[at.x * sp.columns + c])) * sp.quantum;
    if x.z <= surface || p.age >= sp.lifetime {
        land(c, at.x, p, x.z <= surface);
        counts[i] = 0u;
        return;
    }
    particles[i] = p;
    counts[i] = 1u;
}

// The scan: counts → exclusive prefix sums, in three passes (block sums, the sums' scan in one
// workgroup, each block's own scan plus its offset). Integers: exact in any order.
var<workgroup> lanes: array<u32, 256>;

// counts[e] as the scan sees it: flags past the live particles are stale, so 0.
fn counted(e: u32) -> u32 {
    if e < sp.base && e >= args_now.w {
        return 0u;
    }
    if e >= sp.base + sp.columns {
        return 0u;
    }
    return counts[e];
}

// The inclusive scan of `lanes` across the workgroup (Hillis–Steele), for lane l.
fn scan_lanes(l: u32, value: u32) -> u32 {
    lanes[l] = value;
    workgroupBarrier();
    var sum = value;
    for (var d = 1u; d < 256u; d <<= 1u) {
        var add = 0u;
        if l >= d {
            add = lanes[l - d];
        }
        workgroupBarrier();
        sum += add;
        lanes[l] = sum;
        workgroupBarrier();
    }
    return sum;
}

@compute @workgroup_size(256)
fn scan_reduce(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) block: vec3<u32>) {
    let first = block.x * SCAN_BLOCK + l * 4u;
    var sum = 0u;
    for (var e = first; e < first + 4u; e++) {
        sum += counted(e);
    }
    let total = scan_lanes(l, sum);
    if l == 255u {
        block_sums[block.x] = total;
    }
}

// One workgroup: the block sums' exclusive scan, then the new count and the tallies.
@compute @workgroup_size(256)
fn scan_top(@builtin(local_invocation_index) l: u32) {
    let per = (sp.blocks + 255u) / 256u;
    let first = l * per;
    var sum = 0u;
    for (var b = first; b < min(first + per, sp.blocks); b++) {
        sum += block_sums[b];
    }
    let inclusive = scan_lanes(l, sum);
    var running = inclusive - sum;
    for (var b = first; b < min(first + per, sp.blocks); b++) {
        let s = block_sums[b];
        block_sums[b] = running;
        running += s;
    }
    // Every lane's rewritten sums visible to lane 0.
    storageBarrier();
    if l == 0u {
        // All counts, and the survivors: the blocks before `base` (a multiple of SCAN_BLOCK) hold
        // only the flags, so its block's offset is their sum.
        let total = lanes[255];
        let survivors = block_sums[sp.base / SCAN_BLOCK];
        let now = min(total, sp.capacity);
        // At least one workgroup, so that `copy` always runs and carries the count over.
        args_next = vec4<u32>(max((now + 63u) / 64u, 1u), 1u, 1u, now);
        atomicAdd(&tally[0], now - survivors);
        atomicAdd(&tally[1], args_now.w - survivors);
        atomicAdd(&tally[2], total - now);
    }
}

@compute @workgroup_size(256)
fn scan_down(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) block: vec3<u32>) {
    let first = block.x * SCAN_BLOCK + l * 4u;
    var v = vec4<u32>(0u);
    for (var e = 0u; e < 4u; e++) {
        v[e] = counted(first + e);
    }
    let sum = v.x + v.y + v.z + v.w;
    let inclusive = scan_lanes(l, sum);
    var running = block_sums[block.x] + inclusive - sum;
    for (var e = 0u; e < 4u; e++) {
        if first + e < sp.base + sp.columns + 1u {
            counts[first + e] = running;
        }
        running += v[e];
    }
}

@compute @workgroup_size(64)
fn compact(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = index(gid, groups);
    if i >= args_now.w {
        return;
    }
    // A survivor's offset is below the next element's.
    let at = counts[i];
    if counts[i + 1u] != at {
        next[at] = particles[i];
    }
}

@compute @workgroup_size(64)
fn settle(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = index(gid, groups);
    if c >= sp.columns {
        return;
    }
    let n = sp.columns;
    let top = top_layer(c);
    for (var a = 0u; a < sp.layers; a++) {
        let landed = atomicLoad(&inbox[a * n + c]);
        if landed != 0u {
            atomicStore(&inbox[a * n + c], 0u);
        }
        var w = water_rw[a * n + c];
        if a == top {
            let sent = plan[c];
            w -= sent.x + sent.y + sent.z + sent.w;
        }
        if landed != 0u || a == top {
            water_rw[a * n + c] = w + landed;
        }
    }
    let impact = atomicLoad(&inbox[sp.layers * n + c]);
    atomicStore(&inbox[sp.layers * n + c], 0u);
    feed[c].z = i32(min(impact, 0x3fffffffu));
    let left = atomicLoad(&inbox[(sp.layers + 1u) * n + c]);
    if left != 0u {
        atomicStore(&inbox[(sp.layers + 1u) * n + c], 0u);
        var e = exchange[c];
        let lo = e.lo - left;
        // Borrow from the high word.
        e.hi = e.hi - select(0u, 1u, lo > e.lo);
        e.lo = lo;
        exchange[c] = e;
    }
}

@compute @workgroup_size(64)
fn copy(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = index(gid, groups);
    if i == 0u {
        args_now_rw = args_next_r;
        draw[0] = 6u;
        draw[1] = args_next_r.w;
        draw[2] = 0u;
        draw[3] = 0u;
    }
    if i < args_next_r.w {
        particles[i] = next[i];
    }
}

// Per chunk: the units in flight and the particle count, into tally[3..6] (cleared by the host):
// each workgroup sums its 64 in 16-bit halves, then adds its 64-bit sum with the carry counted.
var<workgroup> halves: array<atomic<u32>, 2>;

@compute @workgroup_size(64)
fn totals(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) l: u32,
          @builtin(num_workgroups) groups: vec3<u32>) {
    if l < 2u {
        atomicStore(&halves[l], 0u);
    }
    workgroupBarrier();
    let i = index(gid, groups);
    if i < args_now.w {
        let u = particles[i].units;
        atomicAdd(&halves[0], u & 0xffffu);
        atomicAdd(&halves[1], u >> 16u);
    }
    workgroupBarrier();
    if l == 0u {
        let lo16 = atomicLoad(&halves[0]);
        let hi16 = atomicLoad(&halves[1]);
        // lo16 + hi16·2^16 as (low word, high word).
        let low = lo16 + (hi16 << 16u);
        let carry = select(0u, 1u, low < lo16) + (hi16 >> 16u);
        let before = atomicAdd(&tally[3], low);
        atomicAdd(&tally[4], carry + select(0u, 1u, before + low < before));
        if i == 0u {
            atomicStore(&tally[5], args_now.w);
        }
    }
}
