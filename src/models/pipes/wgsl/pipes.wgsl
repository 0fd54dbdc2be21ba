#import sides
#import columns
#import probe_entry
// Seed 004's volume model: columns over the terrain, each a stack of up to MAX_LAYERS cells (open
// spans between solids, Mould & Yang), and a pipe from every cell to every cell of the eight
// neighbouring columns whose span overlaps its own. Twin: src/cpu/pipes.rs.
//
// Water is counted in whole units of `quantum` metres of depth (one unit = quantum·dx² m³), in
// u32, so a transfer takes from one cell exactly what it gives the other and the volume is
// conserved by construction, with no correction. Heights (floors, ceilings, heads) are i32 units
// relative to the reference level; their differences are exact.
//
// Each column computes its own copy of every pipe it touches. The update is antisymmetric in the
// two ends and IEEE rounding is symmetric in sign, so the two copies of a pipe always hold exact
// opposites: both ends agree on which way it flows and who gives.

struct PipeParams {
    nx: u32,
    ny: u32,
    // Cells per column (1 without overhangs or rocks): the buffers hold `layers` × columns.
    layers: u32,
    columns: u32,
    bc_west: u32,
    bc_east: u32,
    bc_south: u32,
    bc_north: u32,
    // The seed's friction f on the pipe's velocity per substep (0.995).
    friction: f32,
    // g·quantum: a head difference in units times this is g·Δh (m²/s²).
    g_quantum: f32,
    // dt/l for an axial and a diagonal pipe (l = dx, dx·√2).
    dt_l_axial: f32,
    dt_l_diagonal: f32,
    // dt·width/dx², the units a pipe moves per (m/s of velocity × unit of wetted height). The
    // widths, 2/3·dx axial and √2/6·dx diagonal, make the nine-point stencil isotropic and its
    // long waves travel at sqrt(g·d).
    move_axial: f32,
    move_diagonal: f32,
    // The still level in units: an open side's ghost holds it.
    still: i32,
    // A full cell's head rises 2^slot_shift units per unit of water beyond its capacity (a
    // Preissmann slot: the pressure that lets water pass a submerged passage).
    slot_shift: u32,
    n_probes: u32,
    // Metres per unit.
    quantum: f32,
    // ½ with `[pipes] dynamic_head`, else 0: the weight of v²/2 in the head.
    dynamic: f32,
    // physics.manning: g·n²·dt, the semi-implicit Manning term's weight (0 without).
    manning: f32,
    // 1 with [[pressure]] patches or bodies: the flow reads each top cell's air-pressure head
    // (`air`; the bodies press through it: pipe_bodies.wgsl).
    air: u32,
    // g: the air's head, in metres, times it is its push.
    gravity: f32,
    // 1 with [friction] map: a pipe's Manning weight is g_dt times the mean of its columns' n²
    // (`column_forcing`'s second plane), not `manning`.
    friction_map: u32,
    g_dt: f32,
    // The spray's breaking criterion ([spray] breaking), or −1 without the spray: an axial pipe
    // over a lip the spray breaks yields its flow to the spray (`piped`).
    breaking: f32,
    // The spray's overfall law (units a step per m^(3/2) of depth) and the most units it sends
    // through a face a step: a pipe yields what the spray carries of a lip (`piped`).
    spray_law: f32,
    spray_most: f32,
    // The drop, units, past which a giver's floor over its receiver's is a lip rather than a step
    // of a slope: dx, steeper than 45° (`overfall`).
    lip: i32,
}

const PIPES_PER_LAYER_PAIR: u32 = 8u;
// A diagonal pipe's share of the normal of the side it crosses: cos 45°.
const DIAGONAL_SHARE: f32 = 0.70710677;
// A limited cell gives this share of its water at most: covers the f32 rounding of the limiter
// (≤ 128 terms summed, a division and a product, < 8e-6 relative), so the whole units it gives
// never exceed what it holds.
const LIMIT_MARGIN: f32 = 0.99998474;
// The broad-crested weir's (2/3)^(3/2): critical flow's speed over a lip, in sqrt(g·d) of the
// depth d upstream of it (`overfall`).
const WEIR_SHARE: f32 = 0.54433105;
// Largest tentative transfer (units), before the cell's content caps it.
const MOST_UNITS: f32 = 2.0e9;

// What a pipe's far end is.
const TO_CELL: u32 = 0u;
const TO_GHOST: u32 = 1u;
const TO_NOTHING: u32 = 2u;

@group(0) @binding(0) var<uniform> pp: PipeParams;
// flow, apply
@group(0) @binding(1) var<storage, read> geometry: array<vec2<i32>>;
@group(0) @binding(2) var<storage, read_write> water: array<u32>;
@group(0) @binding(3) var<storage, read_write> flow: array<f32>;
@group(0) @binding(4) var<storage, read_write> given: array<u32>;
@group(0) @binding(5) var<storage, read_write> scale: array<f32>;
@group(0) @binding(6) var<storage, read_write> vel: array<vec2<f32>>;
// Per column: (units per substep its sources give, the height it holds or NO_HOLD, the spray's
// impact pressure on its top cell in units of head, the share of its pipes' velocity the damping
// takes a substep as f32 bits: `lost`).
@group(0) @binding(7) var<storage, read> feed: array<vec4<i32>>;
@group(0) @binding(8) var<storage, read_write> exchange: array<Exchange>;
// Per column, two planes: this step's air-pressure head p/(ρ·g) on its top cell, m (pressure.wgsl
// writes it before the substeps), then Manning's n² under [friction] map; unread without them.
@group(0) @binding(9) var<storage, read> column_forcing: array<f32>;
// surface, probe, totals: the same buffers under the view layout.
@group(0) @binding(11) var<storage, read> view_geometry: array<vec2<i32>>;
@group(0) @binding(12) var<storage, read> view_water: array<u32>;
@group(0) @binding(13) var<storage, read> view_flow: array<f32>;
@group(0) @binding(14) var<storage, read> view_exchange: array<Exchange>;
@group(0) @binding(15) var<storage, read_write> eta: array<f32>;
@group(0) @binding(16) var<storage, read> probe_cells: array<u32>;
@group(0) @binding(17) var<storage, read_write> history: array<f32>;
@group(0) @binding(18) var<storage, read_write> partials: array<vec4<u32>>;
@group(0) @binding(19) var<storage, read> view_vel: array<vec2<f32>>;

// NaN and ±inf have an all-ones exponent (bits, not comparisons, which compilers may fold).
fn is_finite(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7f800000u) != 0x7f800000u;
}

@group(1) @binding(0) var<uniform> slot: StepSlot;

// Index of pipe (direction k, own layer a, far layer b) of column c.
fn pipe(k: u32, a: u32, b: u32, c: u32) -> u32 {
    return ((k * pp.layers + a) * pp.layers + b) * pp.columns + c;
}

// Whether direction k's offset from column (i, j) stays in the grid (its far end neither a ghost
// nor a mirror nor a wrap). Twin: `stencil::inside`.
fn inside(i: u32, j: u32, k: u32) -> bool {
    let o = offset(k);
    let x = i32(i) + o.x;
    let y = i32(j) + o.y;
    return x >= 0 && y >= 0 && x < i32(pp.nx) && y < i32(pp.ny);
}

// The far end of direction k from column (i, j): (kind, column, and for a cell the direction of
// its copy of the pipe, for a ghost its side code). A diagonal through a wall is mirrored in it:
// the wall's mirror image of the column beyond is the one along the wall, so the pipe joins the
// two columns along it (its copy there the mirror of the opposite direction), or the ghost beyond
// the other side where that is open; through a corner of two walls, nothing. Without it a column
// against a wall would conduct 5/6 of an open one along the wall, and waves would run slow beside
// walls (4 % in a channel 4 columns wide). Twin: `stencil::neighbour`.
fn neighbour(i: u32, j: u32, k: u32) -> vec3<u32> {
    let o = offset(k);
    var x = i32(i) + o.x;
    var y = i32(j) + o.y;
    var ghost = false;
    var ghost_side = REFLECT;
    var back = opposite(k);
    var mirrored = false;
    if x < 0 || x >= i32(pp.nx) {
        let side = select(pp.bc_east, pp.bc_west, x < 0);
        if side == REFLECT {
            if o.y == 0 {
                return vec3<u32>(TO_NOTHING, 0u, 0u);
            }
            x = i32(i);
            back = back ^ 1u;
            mirrored = true;
        } else if side == PERIODIC {
            x = (x + i32(pp.nx)) % i32(pp.nx);
        } else {
            ghost = true;
            ghost_side = side;
        }
    }
    if y < 0 || y >= i32(pp.ny) {
        let side = select(pp.bc_north, pp.bc_south, y < 0);
        if side == REFLECT {
            // Mirrored in both walls (a corner), the pipe would end where it starts.
            if o.x == 0 || mirrored {
                return vec3<u32>(TO_NOTHING, 0u, 0u);
            }
            y = i32(j);
            back = 11u - back;
        } else if side == PERIODIC {
            y = (y + i32(pp.ny)) % i32(pp.ny);
        } else if !ghost {
            ghost = true;
            ghost_side = side;
        }
    }
    if ghost {
        return vec3<u32>(TO_GHOST, 0u, ghost_side);
    }
    return vec3<u32>(TO_CELL, u32(y) * pp.nx + u32(x), back);
}

// The column of an invocation of a 1-D dispatch folded into 2-D past 65535 workgroups
// (`linear_groups` on the host).
fn column(gid: vec3<u32>, groups: vec3<u32>) -> u32 {
    return gid.x + gid.y * groups.x * 64u;
}

// A cell's head in units: its floor plus its water, and past its ceiling the slot's pressure.
fn head(g: vec2<i32>, w: u32) -> i32 {
    let cap = g.y - g.x;
    if i32(w) <= cap {
        return g.x + i32(w);
    }
    return g.y + ((i32(w) - cap) << pp.slot_shift);
}

// The ghost beyond an open or absorbing side: one cell from the column's lowest floor up, holding
// the still level (or the floor, where that stands higher). It never runs dry.
fn ghost_geometry(lowest: vec2<i32>) -> vec2<i32> {
    return vec2<i32>(lowest.x, SKY);
}

fn ghost_head(lowest: vec2<i32>) -> i32 {
    return max(pp.still, lowest.x);
}

// Twin: `pipes::lowest_head`. The head of column c's lowest cell (the one on its ground).
fn lowest_head(c: u32) -> i32 {
    return head(geometry[c], water[c]);
}

// Twin: `stencil::ghost_inner`. The column one step in from the side whose ghost direction k
// reaches from column (i, j) (the side `neighbour` names: x's, unless x stays in the grid or its
// side is a wall or wraps), or the column itself in a grid one column across.
fn ghost_inner(i: u32, j: u32, k: u32) -> u32 {
    let o = offset(k);
    let x = i32(i) + o.x;
    let x_side = select(pp.bc_east, pp.bc_west, x < 0);
    var ii = i32(i);
    var jj = i32(j);
    if (x < 0 || x >= i32(pp.nx)) && x_side != REFLECT && x_side != PERIODIC {
        ii = clamp(ii - o.x, 0, i32(pp.nx) - 1);
    } else {
        jj = clamp(jj - o.y, 0, i32(pp.ny) - 1);
    }
    return u32(jj) * pp.nx + u32(ii);
}

// Twin: `pipes::ghost_level`. The head of the ghost that direction k from column (i, j) reaches
// through a side of code `side`, one cell from the column's lowest floor to the sky: an open
// side's at the still level; Wilson et al.'s ghost-mean at the sea's mean surface (`sea_level`,
// this substep's); ghost-slope by the edge's slope, 2·h_edge − h_inner over the two columns'
// lowest cells (a wave leaves as if the water went on). Where the edge column's floor stands
// above the still level (a bank, no sea beyond) a ghost lets water out and none in, as on the
// height field: the mean stands at the still level there, the slope's ghost no higher than the
// edge. Never below the column's floor: a ghost never runs dry.
fn ghost_level(side: u32, i: u32, j: u32, k: u32, lowest: vec2<i32>) -> i32 {
    let bank = lowest.x > pp.still;
    var level = pp.still;
    if side == GHOST_MEAN && !bank {
        level = bitcast<i32>(partials[2u * sea_groups()].x);
    } else if side == GHOST_SLOPE {
        let edge = lowest_head(j * pp.nx + i);
        level = 2 * edge - lowest_head(ghost_inner(i, j, k));
        if bank {
            level = min(level, edge);
        }
    }
    return max(level, lowest.x);
}

// Twin: `pipes::radiated`. The velocity of a pipe through an absorbing side (Flather's radiation
// condition, 1976): a long wave leaving with the edge cell's surface η carries u = sqrt(g/d)·(η −
// still), so the side passes it as if the water went on (a lake at rest loses nothing; a surface
// below the still level draws water in). Along the pipe: 1 axial, 1/√2 diagonal (the side's
// normal's share). Where the cell's floor stands above the still level, |η − still| is at most
// its depth d: its water leaves at the critical sqrt(g·d), a free outfall's rate.
fn radiated(k: u32, lowest: vec2<i32>, ha: i32) -> f32 {
    let d = f32(ha - lowest.x) * pp.quantum;
    if d <= 0.0 {
        return 0.0;
    }
    let e = f32(ha - ghost_head(lowest)) * pp.quantum;
    let u = clamp(e, -d, d) * sqrt(pp.gravity / d);
    return select(u, u * DIAGONAL_SHARE, k >= 4u);
}

fn dt_l(k: u32) -> f32 {
    return select(pp.dt_l_axial, pp.dt_l_diagonal, k >= 4u);
}

// Whole units a pipe moves in a substep at velocity `v` > 0 over `wet` units of wetted height.
fn tentative(v: f32, wet: i32, k: u32) -> u32 {
    let m = select(pp.move_axial, pp.move_diagonal, k >= 4u);
    return u32(min(m * v * f32(wet) + 0.5, MOST_UNITS));
}

// The external pressure E on a cell, in units of head: the spray's impacts on a top cell.
fn pressure(g: vec2<i32>, c: u32) -> i32 {
    return select(0, feed[c].z, g.y == SKY);
}

// Twin: `pipes::air_on`. The air's head on a cell, m: its column's on a top cell (the one open
// to the sky), 0 under a solid or without patches.
fn air_on(g: vec2<i32>, c: u32) -> f32 {
    if pp.air == 0u || g.y != SKY {
        return 0.0;
    }
    return column_forcing[c];
}

// Twin: `pipes::manning_weight`. The Manning weight g·n²·dt of a pipe between columns a and b:
// the scene's, or under [friction] map g·dt times the mean of their n² (alike for both copies).
fn manning_weight(a: u32, b: u32) -> f32 {
    if pp.friction_map == 0u {
        return pp.manning;
    }
    return pp.g_dt * (0.5 * (column_forcing[pp.columns + a] + column_forcing[pp.columns + b]));
}

// Twin: `pipes::lost`. The share of its velocity column c's pipes lose per substep to the
// damping (physics.damping and its map): its feed's fourth word.
fn lost(c: u32) -> f32 {
    return bitcast<f32>(feed[c].w);
}

// Twin: `pipes::kept`. What a pipe between two columns keeps per substep beside the seed's
// friction: 1 − the mean of their losses, alike for both copies of the pipe (1 without damping).
fn kept(lost_a: f32, lost_b: f32) -> f32 {
    return 1.0 - 0.5 * (lost_a + lost_b);
}

// The new velocity of pipe (k, a, b) from its old one, what it keeps of it beside the friction,
// and the two ends (heads ha, hb; pa, pb the pressures on them; aa, ab the air's heads, m); 0
// where no water can pass. `direct`: the far end is the column k's offset reaches in the grid
// (not a ghost, a mirror or a wrap).
fn pipe_velocity(old: f32, friction: vec2<f32>, k: u32, direct: bool, ga: vec2<i32>, ha: i32, pa: i32, va: vec2<f32>, aa: f32, gb: vec2<i32>, hb: i32, pb: i32, vb: vec2<f32>, ab: f32) -> f32 {
    let sill = max(ga.x, gb.x);
    let top = min(ga.y, gb.y);
    // The seed's eq.: η = f·η₀ + Δt·(Q_head − Q_tail)/(ρ·l), Q/ρ = g·h + v²/2 + E/ρ (a uniform air
    // pressure cancels; `[[pressure]]` patches add g·(a_head − a_tail), antisymmetric as the rest).
    var push = pp.g_quantum * f32((ha + pa) - (hb + pb)) + pp.dynamic * (dot(va, va) - dot(vb, vb));
    if pp.air != 0u {
        push = push + pp.gravity * (aa - ab);
    }
    var v = (pp.friction * friction.x) * old + dt_l(k) * push;
    let wet = min(select(hb, ha, v > 0.0), top) - sill;
    if wet > 0 && friction.y > 0.0 {
        v = manning(friction.y, v, flow_speed(va, vb), wet);
    }
    v = overfall(v, k, direct, ga, ha, gb, hb, wet);
    return select(0.0, v, wet > 0 && top > sill);
}

// Twin: `pipes::overfall`. A pipe over a free overfall carries at most critical flow. The lip is
// the giving cell's floor where it stands above the receiving cell's by more than dx (`lip`:
// steeper than 45°; a thin sheet's steps down a slope are not lips), and the overfall is free
// while the receiving cell's water stays at or below it (the tailwater does not drown the lip).
// Without it the drop's whole height pushed the pipe, which sped on until it drained its cell: a
// weir's discharge was set by the friction along its crest, not by the crest (+103 % over a 25 cm
// crest, −58 % over 2 m, for a 5 cm head). Hydrostatic pipes have no drawdown, so the giver's
// depth d is the head over the lip, and the cap is the broad-crested weir's
// q = sqrt(g)·(2/3·d)^(3/2), a speed (2/3)^(3/2)·sqrt(g·d); with `dynamic_head` the v²/2 in the
// head draws the lip down to the critical depth itself, and the cap is sqrt(g·d). Along the pipe
// its share of the flow across the lip: 1 axial, 1/√2 diagonal, as `radiated`. Where the spray breaks the lip, the axial pipe
// yields its share to it (`piped`). Both copies of the pipe decide alike (their velocities are
// exact opposites, their wet heights the same), so they stay opposites.
fn overfall(v: f32, k: u32, direct: bool, ga: vec2<i32>, ha: i32, gb: vec2<i32>, hb: i32, wet: i32) -> f32 {
    if v > 0.0 && ga.x - gb.x > pp.lip && hb <= ga.x {
        return min(v, critical(k, wet) * piped(k, direct, ga, gb, hb, wet));
    }
    if v < 0.0 && gb.x - ga.x > pp.lip && ha <= gb.x {
        return max(v, -(critical(k, wet) * piped(k, direct, gb, ga, ha, wet)));
    }
    return v;
}

// Twin: `pipes::piped`. The share of its critical flow a pipe over a lip carries: 1, but for an
// axial pipe from a top cell (geometry `give`, `wet` units deep over its floor) to the top cell
// beside it (`take`, its head `h_take`) where spray.wgsl `crest_of` breaks that face as a free
// overfall (the neighbour's water below the floor by more than `breaking`·depth, the same integers
// and f32 operations): there the spray takes the axial pipe's share of critical flow through it
// as particles (`spray::overfall`, 2/3 of it, the pipe's width), and the pipe carries what the
// spray's 8 particles a face a step leave of it, 1 − most/law (0 where they hold it all), so that
// a lip deeper than they carry is neither dammed nor passed twice.
fn piped(k: u32, direct: bool, give: vec2<i32>, take: vec2<i32>, h_take: i32, wet: i32) -> f32 {
    let breaks = pp.breaking >= 0.0 && k < 4u && direct && give.y == SKY && take.y == SKY
        && f32(give.x - h_take) > pp.breaking * f32(wet);
    if !breaks {
        return 1.0;
    }
    let d = f32(wet) * pp.quantum;
    let law = pp.spray_law * d * sqrt(d);
    if law <= pp.spray_most {
        return 0.0;
    }
    return 1.0 - pp.spray_most / law;
}

// Twin: `pipes::critical`. The most a pipe carries over a lip `wet` units below the giver's head.
fn critical(k: u32, wet: i32) -> f32 {
    let share = select(WEIR_SHARE, 1.0, pp.dynamic > 0.0);
    let c = share * sqrt(pp.gravity * (f32(wet) * pp.quantum));
    return select(c, c * DIAGONAL_SHARE, k >= 4u);
}

// Twin: `pipes::flow_speed`. The water's speed at a pipe: the mean of its two cells' speeds (their
// depth-averaged velocities, the last substep's), alike for both copies of the pipe.
fn flow_speed(va: vec2<f32>, vb: vec2<f32>) -> f32 {
    return 0.5 * (sqrt(dot(va, va)) + sqrt(dot(vb, vb)));
}

// Twin: `pipes::manning`. Manning's friction of weight g·n²·dt on a pipe's velocity v over `wet`
// units of wetted height, its hydraulic radius: semi-implicit, v / (1 + g·n²·dt·|U| / R^(4/3)),
// so a thin film stops rather than reverses. |U| is the water's speed (`flow_speed`), not the
// pipe's own: Manning's drag is g·n²·|U|·U/R^(4/3) on the flow, so each pipe then takes the share
// of it along its direction and the friction stays linear in the pipe's slope; a pipe's own |v|
// made a diagonal (whose slope is S/√2) run at (1/√2)^½ of the axial pipe rather than 1/√2, and
// the nine-point stencil carried 6 % too much down a slope (a sheet 3.6 % thin). Both ends divide
// alike: the two copies of a pipe stay exact opposites.
fn manning(weight: f32, v: f32, speed: f32, wet: i32) -> f32 {
    let r = f32(wet) * pp.quantum;
    return v / (1.0 + weight * speed / (r * pow(r, 1.0 / 3.0)));
}

// Wetted height of the opening, from the head of the end that gives.
fn wet_height(v: f32, ga: vec2<i32>, ha: i32, gb: vec2<i32>, hb: i32) -> i32 {
    return min(select(hb, ha, v > 0.0), min(ga.y, gb.y)) - max(ga.x, gb.x);
}

// Pass 1: every pipe's velocity, and what each cell gives through each (scaled down together so
// that no cell gives more than it holds).
@compute @workgroup_size(64)
fn flow_step(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = column(gid, groups);
    if c >= pp.columns {
        return;
    }
    let i = c % pp.nx;
    let j = c / pp.nx;
    let n = pp.columns;
    let lowest = geometry[c];
    for (var a = 0u; a < pp.layers; a++) {
        let ga = geometry[a * n + c];
        if ga.x == SKY {
            break;
        }
        let wa = water[a * n + c];
        let ha = head(ga, wa);
        let pa = pressure(ga, c);
        let va = vel[a * n + c];
        let aa = air_on(ga, c);
        var sum = 0.0;
        var exact = 0u;
        let lost_a = lost(c);
        for (var k = 0u; k < 8u; k++) {
            let far = neighbour(i, j, k);
            if far.x == TO_NOTHING {
                continue;
            }
            // A ghost's far column is the column itself.
            let q = select(c, far.y, far.x == TO_CELL);
            let direct = far.x == TO_CELL && inside(i, j, k);
            let friction = vec2<f32>(kept(lost_a, lost(q)), manning_weight(c, q));
            for (var b = 0u; b < pp.layers; b++) {
                var gb: vec2<i32>;
                var hb: i32;
                var pb = 0;
                var vb = va;
                // A ghost stands under its column's air: no push across the side.
                var ab = aa;
                if far.x == TO_GHOST {
                    if b > 0u {
                        break;
                    }
                    gb = ghost_geometry(lowest);
                    hb = ghost_level(far.z, i, j, k, lowest);
                } else {
                    gb = geometry[b * n + far.y];
                    if gb.x == SKY {
                        break;
                    }
                    hb = head(gb, water[b * n + far.y]);
                    pb = pressure(gb, far.y);
                    vb = vel[b * n + far.y];
                    ab = air_on(gb, far.y);
                }
                if min(ga.y, gb.y) <= max(ga.x, gb.x) {
                    continue;
                }
                let p = pipe(k, a, b, c);
                var v: f32;
                if far.x == TO_GHOST && far.z == ABSORB {
                    v = radiated(k, lowest, ha);
                } else {
                    v = pipe_velocity(flow[p], friction, k, direct, ga, ha, pa, va, aa, gb, hb, pb, vb, ab);
                }
                flow[p] = v;
                var t = 0u;
                if v > 0.0 {
                    t = min(tentative(v, wet_height(v, ga, ha, gb, hb), k), wa);
                    sum += f32(t);
                    let e = exact + t;
                    exact = select(e, 0xffffffffu, e < exact);
                } else if v < 0.0 && far.x == TO_GHOST {
                    // What the ghost gives, decided here where its head is known (a ghost-slope
                    // ghost reads the column beside, which `apply` may be changing).
                    t = tentative(-v, wet_height(v, ga, ha, gb, hb), k);
                }
                given[p] = t;
            }
        }
        var s = 1.0;
        if exact > wa {
            s = f32(wa) / sum * LIMIT_MARGIN;
            for (var k = 0u; k < 8u; k++) {
                for (var b = 0u; b < pp.layers; b++) {
                    let p = pipe(k, a, b, c);
                    // Only what the cell gives: a ghost's gift to it stays whole.
                    if flow[p] > 0.0 {
                        given[p] = u32(f32(given[p]) * s);
                    }
                }
            }
        }
        scale[a * n + c] = s;
    }
}

// Pass 2: each cell takes what its neighbours gave it and loses what it gave; the pipes of a
// limited cell slow by its share; sources and drains act on the top cell.
@compute @workgroup_size(64)
fn apply(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = column(gid, groups);
    if c >= pp.columns {
        return;
    }
    let i = c % pp.nx;
    let j = c / pp.nx;
    let n = pp.columns;
    var made = 0;
    for (var a = 0u; a < pp.layers; a++) {
        let ga = geometry[a * n + c];
        if ga.x == SKY {
            break;
        }
        let w0 = water[a * n + c];
        let s_own = scale[a * n + c];
        var out = 0u;
        var inn = 0u;
        var v = vec2<f32>(0.0);
        for (var k = 0u; k < 8u; k++) {
            let far = neighbour(i, j, k);
            if far.x == TO_NOTHING {
                continue;
            }
            for (var b = 0u; b < pp.layers; b++) {
                let p = pipe(k, a, b, c);
                var u = flow[p];
                if far.x == TO_GHOST {
                    if b > 0u {
                        break;
                    }
                    // `given` holds what the ghost gave where the pipe flows in (`flow_step`).
                    if u < 0.0 {
                        inn += given[p];
                        made += i32(given[p]);
                    } else {
                        out += given[p];
                        made -= i32(given[p]);
                    }
                    if u > 0.0 && s_own < 1.0 {
                        u *= s_own;
                        flow[p] = u;
                    }
                } else {
                    if geometry[b * n + far.y].x == SKY {
                        break;
                    }
                    out += given[p];
                    inn += given[pipe(far.z, b, a, far.y)];
                    let s = select(scale[b * n + far.y], s_own, u > 0.0);
                    if u != 0.0 && s < 1.0 {
                        u *= s;
                        flow[p] = u;
                    }
                }
                v += unit(k) * u;
            }
        }
        var w = w0 - out + inn;
        // Sources feed the top cell (the one open to the sky).
        if ga.y == SKY {
            let f = feed[c];
            if f.y != NO_HOLD {
                let want = u32(max(f.y - ga.x, 0));
                made += i32(want) - i32(w);
                w = want;
            } else if f.x > 0 {
                w += u32(f.x);
                made += f.x;
            } else if f.x < 0 {
                let take = min(u32(-f.x), w);
                w -= take;
                made -= i32(take);
            }
        }
        water[a * n + c] = w;
        vel[a * n + c] = 0.25 * v;
    }
    if made != 0 {
        var e = exchange[c];
        let lo = e.lo + bitcast<u32>(made);
        // The high word takes the carry out of the low one, and the sign of `made`.
        e.hi = e.hi + select(0u, 1u, lo < e.lo) + select(0u, 0xffffffffu, made < 0);
        e.lo = lo;
        exchange[c] = e;
    }
}

// The top of the highest water in column c (units), or its top floor when it holds none there:
// the surface h a view from above sees.
fn surface_units(c: u32) -> i32 {
    let n = pp.columns;
    var top = view_geometry[c].x;
    for (var a = 0u; a < pp.layers; a++) {
        let g = view_geometry[a * n + c];
        if g.x == SKY {
            break;
        }
        let w = view_water[a * n + c];
        if w > 0u {
            top = g.x + min(i32(w), g.y - g.x);
        }
        if g.y == SKY {
            top = max(top, g.x);
        }
    }
    return top;
}

// h − ref in metres, for snapshots and probes.
fn surface_metres(c: u32) -> f32 {
    return f32(surface_units(c)) * pp.quantum;
}

@compute @workgroup_size(64)
fn surface(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = column(gid, groups);
    if c >= pp.columns {
        return;
    }
    eta[c] = surface_metres(c);
}

@compute @workgroup_size(64)
fn probe(@builtin(global_invocation_id) gid: vec3<u32>) {
    let p = gid.x;
    if p >= pp.n_probes {
        return;
    }
    let entry = probe_cells[p];
    let c = probe_cell(entry);
    let kind = probe_kind(entry);
    var value = surface_metres(c);
    if kind != PROBE_ETA {
        // The column's unit discharge (m²/s): each cell's water times its mean velocity.
        let n = pp.columns;
        var q = vec2<f32>(0.0, 0.0);
        for (var a = 0u; a < pp.layers; a++) {
            q = q + f32(view_water[a * n + c]) * pp.quantum * view_vel[a * n + c];
        }
        value = select(q.y, q.x, kind == PROBE_QX);
    }
    history[slot.index * pp.n_probes + p] = value;
}

// The totals of a chunk, per workgroup of 64 columns (the host adds the workgroups up in
// 64 bits): partials[2·g] = (Σ water low 16 bits, Σ water high 16 bits, Σ exchange low word's
// low 16 bits, … its high 16 bits); partials[2·g + 1] = (Σ exchange high words, deepest cell's
// water in units, pipes and velocities not finite, 0). Integer sums: any order gives the same.
var<workgroup> sums: array<atomic<u32>, 8>;

@compute @workgroup_size(64)
fn totals(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) l: u32,
          @builtin(workgroup_id) group: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    if l < 8u {
        atomicStore(&sums[l], 0u);
    }
    workgroupBarrier();
    let c = column(gid, groups);
    if c < pp.columns {
        let n = pp.columns;
        var lo = 0u;
        var hi = 0u;
        var deepest = 0u;
        var bad = 0u;
        for (var a = 0u; a < pp.layers; a++) {
            let g = view_geometry[a * n + c];
            if g.x == SKY {
                break;
            }
            let w = view_water[a * n + c];
            lo += w & 0xffffu;
            hi += w >> 16u;
            deepest = max(deepest, min(w, u32(g.y - g.x)));
            for (var k = 0u; k < 8u; k++) {
                for (var b = 0u; b < pp.layers; b++) {
                    bad += select(1u, 0u, is_finite(view_flow[pipe(k, a, b, c)]));
                }
            }
        }
        let e = view_exchange[c];
        atomicAdd(&sums[0], lo);
        atomicAdd(&sums[1], hi);
        atomicAdd(&sums[2], e.lo & 0xffffu);
        atomicAdd(&sums[3], e.lo >> 16u);
        atomicAdd(&sums[4], e.hi);
        atomicMax(&sums[5], deepest);
        atomicAdd(&sums[6], bad);
    }
    workgroupBarrier();
    let g = group.x + group.y * groups.x;
    // A 2-D fold's last row may run past the column groups: those write nothing.
    if l == 0u && g < sea_groups() {
        partials[2u * g] = vec4<u32>(atomicLoad(&sums[0]), atomicLoad(&sums[1]), atomicLoad(&sums[2]), atomicLoad(&sums[3]));
        partials[2u * g + 1u] = vec4<u32>(atomicLoad(&sums[4]), atomicLoad(&sums[5]), atomicLoad(&sums[6]), 0u);
    }
}

// The sea's mean surface, for ghost-mean sides, from the state at each substep's start: the wet
// lowest cells whose floor lies at or below the still level, each weighted by its water
// (Wilson et al.'s mean of the columns, the sea's only, as the height field's `mean_surface`).
// Exact integer sums in 64 bits (a pair of u32, low word first), so any order of the workgroups
// gives the same level. `sea_sums` leaves each group's (Σ w, Σ w·max(e, 0), Σ w·max(−e, 0)), e
// = head − still, in partials[2·g] and [2·g + 1]; `sea_level` adds them up in one workgroup and
// writes the level (i32 bits) to partials[2·sea_groups()], which `ghost_level` reads. Twin:
// `pipes::sea_level`.
var<workgroup> sea: array<vec2<u32>, 192>;

// Workgroups of 64 columns: the totals' and the sea's partials each take two vec4 per group.
fn sea_groups() -> u32 {
    return (pp.columns + 63u) / 64u;
}

fn add64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let lo = a.x + b.x;
    return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x));
}

// a·b in 64 bits from four 16-bit products, each exact in u32.
fn mul64(a: u32, b: u32) -> vec2<u32> {
    let a0 = a & 0xffffu;
    let a1 = a >> 16u;
    let b0 = b & 0xffffu;
    let b1 = b >> 16u;
    let m0 = a1 * b0;
    let m1 = a0 * b1;
    var r = vec2<u32>(a0 * b0, a1 * b1);
    r = add64(r, vec2<u32>(m0 << 16u, m0 >> 16u));
    return add64(r, vec2<u32>(m1 << 16u, m1 >> 16u));
}

// A 64-bit sum as f32, from its four 16-bit pieces (each exact), added high to low.
fn wide(x: vec2<u32>) -> f32 {
    return f32(x.y >> 16u) * 281474976710656.0 + f32(x.y & 0xffffu) * 4294967296.0 + f32(x.x >> 16u) * 65536.0
        + f32(x.x & 0xffffu);
}

// Tree of the workgroup's three sums into sea[0], sea[64], sea[128] (l: the invocation).
fn sea_tree(l: u32) {
    for (var s = 32u; s > 0u; s >>= 1u) {
        workgroupBarrier();
        if l < s {
            for (var q = 0u; q < 192u; q += 64u) {
                sea[q + l] = add64(sea[q + l], sea[q + l + s]);
            }
        }
    }
    workgroupBarrier();
}

@compute @workgroup_size(64)
fn sea_sums(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) l: u32,
            @builtin(workgroup_id) group: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = column(gid, groups);
    var w = 0u;
    var e = 0;
    if c < pp.columns {
        let g = geometry[c];
        if g.x != SKY && g.x <= pp.still {
            w = water[c];
            e = head(g, w) - pp.still;
        }
    }
    sea[l] = vec2<u32>(w, 0u);
    sea[64u + l] = mul64(u32(max(e, 0)), w);
    sea[128u + l] = mul64(u32(max(-e, 0)), w);
    sea_tree(l);
    let g = group.x + group.y * groups.x;
    if l == 0u && g < sea_groups() {
        partials[2u * g] = vec4<u32>(sea[0], sea[64]);
        partials[2u * g + 1u] = vec4<u32>(sea[128], 0u, 0u);
    }
}

@compute @workgroup_size(64)
fn sea_level(@builtin(local_invocation_index) l: u32) {
    var s = array<vec2<u32>, 3>(vec2<u32>(0u), vec2<u32>(0u), vec2<u32>(0u));
    for (var g = l; g < sea_groups(); g += 64u) {
        let p = partials[2u * g];
        s[0] = add64(s[0], p.xy);
        s[1] = add64(s[1], p.zw);
        s[2] = add64(s[2], partials[2u * g + 1u].xy);
    }
    sea[l] = s[0];
    sea[64u + l] = s[1];
    sea[128u + l] = s[2];
    sea_tree(l);
    if l == 0u {
        var level = pp.still;
        if sea[0].x != 0u || sea[0].y != 0u {
            level += i32(round((wide(sea[64]) - wide(sea[128])) / wide(sea[0])));
        }
        partials[2u * sea_groups()] = vec4<u32>(bitcast<u32>(level), 0u, 0u, 0u);
    }
}
