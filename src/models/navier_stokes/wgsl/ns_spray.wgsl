#import ns_common
#import slot
#import hash
// Seed 003's spray and foam (§4.3, last paragraph) over the Navier-Stokes layer's height field:
// where the surface rises faster than a threshold, water leaves it as particles with the local
// fluid velocity; they fly under gravity and air resistance (towards the wind), may split in two,
// and where they land their water goes back to the surface and they turn to foam, which drifts
// with the surface flow for a random life in proportion to the particle's size. Twin:
// src/cpu/ns_spray.rs, function for function.
//
// Storage: every height-field cell owns SLOTS particle slots (`drops`), which the spray it
// throws and the children of their splits use; a slot is free again when its particle lands
// without foam, leaves, or its foam ends. Each slot moves on its own (`fly`) and each cell fills
// its own slots (`birth`), so no scan or append counter is needed and the order of the slots,
// hence every output, is fixed: reruns give the same bits.
//
// The water is counted in units (FULL_UNITS per new particle, halved by a split), integers, so
// the books balance exactly: the height field gives and takes f32(units)·unit_h metres per cell,
// and `volume[IN_FLIGHT]` holds the units in the air, which the volume correction leaves out of
// its target (ns_surface.wgsl `volume_fold`).
//
// Every step, after the layer's substeps and before the correction:
//   fly    per slot: spray moves, bounces off the walls, lands (its units into `landed`, foam
//          made) or leaves through an outflow side; foam drifts and ages
//   birth  per cell: the landed water in, the cell's particles split, new spray thrown
// and per chunk `totals` counts what is in the air.

struct NsSprayParams {
    // The height field's cells along x and y, and their count.
    fnx: u32,
    fny: u32,
    cells: u32,
    // The steps run before this chunk (the random numbers are keyed by the step).
    first_step: u32,
    seed: u32,
    // 1 where a side lets particles leave (an outflow side): west, east, south, north.
    leave_west: u32,
    leave_east: u32,
    leave_south: u32,
    leave_north: u32,
    // Height-field cell size, m; one step, s; gravity, m/s².
    dx: f32,
    dt: f32,
    g: f32,
    // The rising speed past which the surface throws spray, m/s.
    rise: f32,
    // Metres of depth one unit makes in one height-field cell.
    unit_h: f32,
    // New particles per m/s of rise past the threshold: share·dt·dx²/particle_volume.
    per_rise: f32,
    // A particle older than this lands where it is, s.
    lifetime: f32,
    // The mean foam life of a full-size particle, s (0: no foam).
    foam_life: f32,
    // The chance a particle in the air splits during a step.
    split: f32,
    // The share of its speed relative to the wind a particle keeps over a step.
    drag: f32,
    wind_x: f32,
    wind_y: f32,
    // The share of the speed into a wall a bounce keeps.
    restitution: f32,
    _pad0: u32,
    _pad1: u32,
}

// A particle slot: spray (units > 0, `age` the seconds since it was thrown), foam (units = 0 and
// `age` > 0, the seconds it has left; `vel` unused), or free (units = 0, age ≤ 0). The pipes'
// `Particle` layout (spray.wgsl), 32 bytes.
struct Particle {
    pos: vec3<f32>,
    units: u32,
    vel: vec3<f32>,
    age: f32,
}

@group(0) @binding(1) var<uniform> sp: NsSprayParams;
@group(0) @binding(2) var<storage, read_write> h: array<f32>;
@group(0) @binding(3) var<storage, read> ground: array<f32>;
@group(0) @binding(4) var<storage, read_write> drops: array<Particle>;
// Units landed per height-field cell this step; `birth` empties them.
@group(0) @binding(5) var<storage, read_write> landed: array<atomic<u32>>;
// ns_surface.wgsl's `volume`: its word IN_FLIGHT holds the units in the air.
@group(0) @binding(6) var<storage, read_write> volume: array<atomic<u32>>;
// Per chunk (the host clears it): the T_* counters.
@group(0) @binding(7) var<storage, read_write> tally: array<atomic<u32>, 8>;
// The current velocities (u, v, w faces in one buffer; ns_common.wgsl's order).
@group(1) @binding(0) var<storage, read> vel: array<f32>;
@group(2) @binding(0) var<uniform> slot: StepSlot;

// Particle slots per height-field cell.
const SLOTS: u32 = 8u;
// Units of water a new particle carries: four splits down to one unit.
const FULL_UNITS: u32 = 16u;
// A split's halves part with this share of the particle's speed each way, across its path.
const SPLIT_KICK: f32 = 0.1;
// The word of `volume` that holds the units in the air.
const IN_FLIGHT: u32 = 6u;
// `tally`: particles thrown, ended (landed, or left through a side), not thrown for want of a
// free slot, units that left through a side; then (by `totals`) spray and foam now; splits.
const T_MADE: u32 = 0u;
const T_ENDED: u32 = 1u;
const T_REFUSED: u32 = 2u;
const T_LEFT: u32 = 3u;
const T_SPRAY: u32 = 4u;
const T_FOAM: u32 = 5u;
const T_SPLIT: u32 = 6u;
// No free slot.
const NONE: u32 = 0xffffffffu;

// Uniform in [0, 1), keyed by the step, a slot or cell, and what it decides.
fn random(step: u32, index: u32, purpose: u32) -> f32 {
    return uniform01(hash(sp.seed ^ hash(step ^ hash(index * 8u + purpose))));
}

fn free_particle() -> Particle {
    return Particle(vec3<f32>(0.0), 0u, vec3<f32>(0.0), 0.0);
}

fn is_free(p: Particle) -> bool {
    return p.units == 0u && p.age <= 0.0;
}

// The height-field cell over point (x, y), clamped to the grid.
fn cell_at(x: f32, y: f32) -> u32 {
    let i = u32(clamp(floor(x / sp.dx), 0.0, f32(sp.fnx - 1u)));
    let j = u32(clamp(floor(y / sp.dx), 0.0, f32(sp.fny - 1u)));
    return j * sp.fnx + i;
}

// The 3D grid's velocity at height z over height-field cell c: across, the mean of the faces of
// the 3D cell z lies in; up, its floor and top faces interpolated to z.
fn flow_at(c: u32, z: f32) -> vec3<f32> {
    let i = min((c % sp.fnx) / ns.coarsen, ns.nx - 1u);
    let j = min((c / sp.fnx) / ns.coarsen, ns.ny - 1u);
    let up = (z - ns.z0) / ns.dz;
    let k = u32(clamp(floor(up), 0.0, f32(ns.nz - 1u)));
    let t = clamp(up - f32(k), 0.0, 1.0);
    let u = 0.5 * (vel[uf(i, j, k)] + vel[uf(i + 1u, j, k)]);
    let v = 0.5 * (vel[vf(i, j, k)] + vel[vf(i, j + 1u, k)]);
    let low = vel[wf(i, j, k)];
    let w = low + t * (vel[wf(i, j, k + 1u)] - low);
    return vec3<f32>(u, v, w);
}

// A coordinate and its velocity after a wall at 0 and `size`: (x, v, 1 where it left through a
// side that lets it).
fn bounce(x: f32, v: f32, size: f32, leave_low: u32, leave_high: u32) -> vec3<f32> {
    if x < 0.0 {
        if leave_low != 0u {
            return vec3<f32>(x, v, 1.0);
        }
        return vec3<f32>(min(-x, size), -v * sp.restitution, 0.0);
    }
    if x >= size {
        if leave_high != 0u {
            return vec3<f32>(x, v, 1.0);
        }
        return vec3<f32>(max(size - (x - size), 0.0), -v * sp.restitution, 0.0);
    }
    return vec3<f32>(x, v, 0.0);
}

// The step this dispatch runs (1-based).
fn step_number() -> u32 {
    return sp.first_step + slot.index + 1u;
}

// Foam: drifts with the surface flow under it, ends over dry ground, at its life's end, or past
// an outflow side; rides the surface.
fn drift(i: u32, foam: Particle) -> Particle {
    var p = foam;
    let c = cell_at(p.pos.x, p.pos.y);
    if h[c] <= ground[c] {
        return free_particle();
    }
    let flow = flow_at(c, h[c]);
    let size = vec2<f32>(f32(sp.fnx), f32(sp.fny)) * sp.dx;
    let x = p.pos.x + flow.x * sp.dt;
    let y = p.pos.y + flow.y * sp.dt;
    let past_x = (x < 0.0 && sp.leave_west != 0u) || (x >= size.x && sp.leave_east != 0u);
    let past_y = (y < 0.0 && sp.leave_south != 0u) || (y >= size.y && sp.leave_north != 0u);
    p.age -= sp.dt;
    if past_x || past_y || p.age <= 0.0 {
        return free_particle();
    }
    p.pos.x = clamp(x, 0.0, size.x);
    p.pos.y = clamp(y, 0.0, size.y);
    p.pos.z = h[cell_at(p.pos.x, p.pos.y)];
    return p;
}

// Spray: gravity exactly over the step, then the air's resistance towards the wind; the sides;
// then it lands where it reaches the surface falling, or the ground, or outlives `lifetime`.
fn flight(i: u32, spray: Particle) -> Particle {
    var p = spray;
    let t = sp.dt;
    p.age += t;
    p.pos += p.vel * t + vec3<f32>(0.0, 0.0, -0.5 * sp.g * t * t);
    p.vel.z -= sp.g * t;
    let wind = vec3<f32>(sp.wind_x, sp.wind_y, 0.0);
    p.vel = wind + (p.vel - wind) * sp.drag;
    let size = vec2<f32>(f32(sp.fnx), f32(sp.fny)) * sp.dx;
    let bx = bounce(p.pos.x, p.vel.x, size.x, sp.leave_west, sp.leave_east);
    let by = bounce(p.pos.y, p.vel.y, size.y, sp.leave_south, sp.leave_north);
    if bx.z != 0.0 || by.z != 0.0 {
        atomicAdd(&tally[T_LEFT], p.units);
        atomicSub(&volume[IN_FLIGHT], p.units);
        atomicAdd(&tally[T_ENDED], 1u);
        return free_particle();
    }
    p.pos.x = bx.x;
    p.vel.x = bx.y;
    p.pos.y = by.x;
    p.vel.y = by.y;
    let c = cell_at(p.pos.x, p.pos.y);
    let b = ground[c];
    let s = h[c];
    let lands = p.pos.z <= b || (p.pos.z <= s && p.vel.z < 0.0) || p.age >= sp.lifetime;
    if !lands {
        return p;
    }
    atomicAdd(&landed[c], p.units);
    atomicSub(&volume[IN_FLIGHT], p.units);
    atomicAdd(&tally[T_ENDED], 1u);
    if sp.foam_life <= 0.0 || s <= b {
        return free_particle();
    }
    let life = sp.foam_life * (f32(p.units) / f32(FULL_UNITS)) * (0.5 + random(step_number(), i, 3u));
    return Particle(vec3<f32>(p.pos.x, p.pos.y, s), 0u, vec3<f32>(0.0), life);
}

@compute @workgroup_size(64)
fn fly(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = thread_index(gid, groups);
    if i >= sp.cells * SLOTS {
        return;
    }
    let p = drops[i];
    if p.units > 0u {
        drops[i] = flight(i, p);
    } else if p.age > 0.0 {
        drops[i] = drift(i, p);
    }
}

// The first free slot of cell c's, or NONE.
fn free_slot(c: u32) -> u32 {
    for (var k = 0u; k < SLOTS; k++) {
        if is_free(drops[c * SLOTS + k]) {
            return c * SLOTS + k;
        }
    }
    return NONE;
}

@compute @workgroup_size(64)
fn birth(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = thread_index(gid, groups);
    if c >= sp.cells {
        return;
    }
    let step = step_number();
    let first = c * SLOTS;
    var s = h[c];
    let b = ground[c];
    let came = atomicExchange(&landed[c], 0u);
    if came > 0u {
        s += f32(came) * sp.unit_h;
    }
    // Splits, of the particles in the air at the step's start only (not a child just made).
    var splitting = 0u;
    for (var k = 0u; k < SLOTS; k++) {
        let p = drops[first + k];
        if p.units >= 2u && random(step, first + k, 0u) < sp.split {
            splitting |= 1u << k;
        }
    }
    for (var k = 0u; k < SLOTS; k++) {
        if (splitting & (1u << k)) == 0u {
            continue;
        }
        let to = free_slot(c);
        if to == NONE {
            break;
        }
        let p = drops[first + k];
        let angle = 6.2831855 * random(step, first + k, 1u);
        let kick = SPLIT_KICK * length(p.vel) * vec3<f32>(cos(angle), sin(angle), 0.0);
        let half = p.units / 2u;
        drops[first + k] = Particle(p.pos, p.units - half, p.vel - kick, p.age);
        drops[to] = Particle(p.pos, half, p.vel + kick, p.age);
        atomicAdd(&tally[T_SPLIT], 1u);
    }
    // New spray: `share` of the water rising past the threshold, as particles (the fraction by
    // chance), while the cell keeps at least half its depth and has slots not in the air.
    if s > b {
        let flow = flow_at(c, s);
        let excess = flow.z - sp.rise;
        if excess > 0.0 {
            let want = u32(floor(excess * sp.per_rise + random(step, c, 2u)));
            let most = u32(floor(0.5 * (s - b) / (f32(FULL_UNITS) * sp.unit_h)));
            let n = min(want, most);
            // Room: the free slots, then the foam's (new spray matters more than old foam, and
            // foam holds no water).
            var room = 0u;
            for (var k = 0u; k < SLOTS; k++) {
                room += select(0u, 1u, drops[first + k].units == 0u);
            }
            let made = min(n, room);
            s -= f32(made * FULL_UNITS) * sp.unit_h;
            let x = f32(c % sp.fnx);
            let y = f32(c / sp.fnx);
            var m = 0u;
            for (var round = 0u; round < 2u; round++) {
                for (var k = 0u; k < SLOTS && m < made; k++) {
                    let d = drops[first + k];
                    if d.units == 0u && is_free(d) == (round == 0u) {
                        let at = vec3<f32>((x + random(step, first + k, 4u)) * sp.dx,
                                           (y + random(step, first + k, 5u)) * sp.dx, s);
                        drops[first + k] = Particle(at, FULL_UNITS, flow, 0.0);
                        m += 1u;
                    }
                }
            }
            atomicAdd(&volume[IN_FLIGHT], made * FULL_UNITS);
            atomicAdd(&tally[T_MADE], made);
            atomicAdd(&tally[T_REFUSED], n - made);
        }
    }
    h[c] = s;
}

// Per chunk, after its last step: the spray and foam now.
@compute @workgroup_size(64)
fn totals(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = thread_index(gid, groups);
    if i >= sp.cells * SLOTS {
        return;
    }
    let p = drops[i];
    if p.units > 0u {
        atomicAdd(&tally[T_SPRAY], 1u);
    } else if p.age > 0.0 {
        atomicAdd(&tally[T_FOAM], 1u);
    }
}
