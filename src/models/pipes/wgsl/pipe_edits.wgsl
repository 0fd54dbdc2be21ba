#import columns
#import host_edit
// The host's edits in place on the pipes' columns, inside a host's frame (`Water::brush` and
// `Water::disturb` on the pipes). One thread per column applies the frame's edits in the order
// the host made them (host_edit.wgsl's bump), each in whole units of the columns' water: the
// bump's height at the column over the unit, rounded half away from zero as the host path rounds.
//
//   brush    moves the column's lowest floor: the terrain under the solids (a bridge or a rock
//            stays where the scene put it). Its water rides along, unit for unit, so no unit is
//            made or lost. Under a solid the floor rises no higher than leaves the water below it
//            its room (the host path, which rebuilds the columns, moves that water up instead).
//            Where the lowest cell is open to the sky, the top floor a renderer binds follows.
//   disturb  adds units to the column's top cell (the one open to the sky), or takes up to what
//            it holds; the units count in the column's exchange, so the books' target
//            (`Water::read_volume`) takes exactly what the splash added.
//
// Floors and splashes stay within ±2^27 units of the reference level, the heights the columns
// were built to count. Twin: src/models/pipes/cpu/pipe_edits.rs.

struct PipeEditParams {
    nx: u32,
    columns: u32,
    layers: u32,
    // The unit, m, and its inverse (powers of two: the products are exact).
    unit: f32,
    per_unit: f32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

// The heights the columns count, in units either side of the reference level.
const EDIT_RANGE: i32 = 0x8000000;

@group(0) @binding(0) var<uniform> ep: PipeEditParams;
@group(0) @binding(1) var<storage, read_write> geometry: array<vec2<i32>>;
@group(0) @binding(2) var<storage, read_write> water: array<u32>;
@group(0) @binding(3) var<storage, read_write> exchange: array<Exchange>;
@group(0) @binding(4) var<storage, read> edits: Edits;
// Each column's top floor − ref, m: the ground a renderer binds.
@group(0) @binding(5) var<storage, read_write> top_floor: array<f32>;

// Edit `e`'s height at column c, in whole units.
fn edit_units(e: HostEdit, c: u32) -> i32 {
    let w = bump(e, c % ep.nx, c / ep.nx);
    if w <= 0.0 {
        return 0;
    }
    let x = clamp((e.amount * w) * ep.per_unit, -f32(EDIT_RANGE), f32(EDIT_RANGE));
    // Half away from zero, as the host's f64::round (WGSL's round goes to even).
    let t = trunc(x);
    return i32(select(round(x), t + sign(x), abs(x - t) == 0.5));
}

// The column's top cell: the one open to the sky.
fn top_cell(c: u32) -> u32 {
    var top = 0u;
    for (var a = 1u; a < ep.layers; a++) {
        if geometry[a * ep.columns + c].x != SKY {
            top = a;
        }
    }
    return top;
}

// Moves column c's lowest floor by `units`, its water riding along.
fn brush(c: u32, units: i32) {
    let g = geometry[c];
    var floor = max(g.x + units, -EDIT_RANGE);
    if units > 0 {
        var high = EDIT_RANGE;
        if g.y != SKY {
            high = g.y - i32(min(water[c], u32(EDIT_RANGE)));
        }
        floor = min(g.x + units, max(high, g.x));
    }
    geometry[c] = vec2<i32>(floor, g.y);
    if g.y == SKY {
        top_floor[c] = f32(floor) * ep.unit;
    }
}

// Adds `units` to column c's top cell (takes up to what it holds where negative) and its exchange.
fn splash(c: u32, units: i32) {
    let at = top_cell(c) * ep.columns + c;
    let w = water[at];
    if units >= 0 {
        let add = min(u32(units), 0xffffffffu - w);
        water[at] = w + add;
        exchange[c] = exchange_plus(exchange[c], i32(add));
    } else {
        let taken = min(u32(-units), w);
        water[at] = w - taken;
        exchange[c] = exchange_plus(exchange[c], -i32(taken));
    }
}

@compute @workgroup_size(64)
fn apply_edits(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = gid.x + gid.y * groups.x * 64u;
    if c >= ep.columns {
        return;
    }
    for (var k = 0u; k < edits.count; k++) {
        let e = edits.list[k];
        let units = edit_units(e, c);
        if units == 0 {
            continue;
        }
        if e.kind == EDIT_BRUSH {
            brush(c, units);
        } else {
            splash(c, units);
        }
    }
}
