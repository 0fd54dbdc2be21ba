#import books
// Host edits between steps (src/water.rs): terrain brushes and splashes, applied in the order the
// host made them, each a smooth bump w(r) = (1 − r²/R²)² of radius R cells around a point.
//
//   brush    raises the ground by amount·w (lowers it when negative). The water column rides
//            with it: a wet cell keeps its depth and a dry one stays dry, so no water is made or
//            lost. The still water under the reference level changes, and `rebase` follows it.
//   disturb  raises the surface by amount·w where that leaves water (a trough stops at the
//            ground) and keeps the per-step change, so the bump starts at rest: a splash, or a
//            rain drop. The water it adds is the host's: `rebase` adds it to the target, and
//            under volume_correction = "regions" it joins its region's target (`pending`).
//
//   mark     one thread, after a reduction: remembers the volume above the still water.
//   rebase   one thread, after the edits and a reduction: moves the volume target by what the
//            edits changed, so the correction keeps the edited water instead of undoing it.
//
// Twin: src/cpu/edit.rs.

const EDIT_BRUSH: u32 = 0u;
const EDIT_DISTURB: u32 = 1u;

struct HostEdit {
    // Centre in cell units (cell (i, j)'s centre is at (i, j)), radius in cells.
    x: f32,
    y: f32,
    radius: f32,
    // Metres, relative: how far the ground or surface moves at the centre.
    amount: f32,
    kind: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

struct Edits {
    count: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
    list: array<HostEdit>,
}

@group(0) @binding(1) var<storage, read_write> ground: array<f32>;
// Binding 2: the books (books.wgsl): the totals it marks and the volume target it moves.
@group(0) @binding(3) var<storage, read> edits: Edits;
@group(0) @binding(4) var<storage, read_write> pending: array<f32>;

// The current level, edited in place.
@group(1) @binding(0) var<storage, read_write> eta: array<f32>;

fn bump(e: HostEdit, i: u32, j: u32) -> f32 {
    let d = vec2<f32>(f32(i) - e.x, f32(j) - e.y) / max(e.radius, 1e-6);
    let q = max(1.0 - dot(d, d), 0.0);
    return q * q;
}

@compute @workgroup_size(16, 16)
fn apply_edits(@builtin(global_invocation_id) gid: vec3<u32>) {
    if gid.x >= params.nx || gid.y >= params.ny {
        return;
    }
    let c = cell(gid.x, gid.y);
    var b = ground[c];
    var e = eta[c];
    var added = 0.0;
    for (var k = 0u; k < edits.count; k = k + 1u) {
        let edit = edits.list[k];
        let w = bump(edit, gid.x, gid.y);
        if w <= 0.0 {
            continue;
        }
        let lift = edit.amount * w;
        if edit.kind == EDIT_BRUSH {
            let wet = e > b;
            b = b + lift;
            e = select(b, e + lift, wet);
        } else {
            let before = depth(e, b);
            e = max(max(e, b) + lift, b);
            added = added + (depth(e, b) - before);
        }
    }
    ground[c] = b;
    eta[c] = e;
    if params.regions != 0u && added != 0.0 {
        pending[c] = pending[c] + added;
    }
}

@compute @workgroup_size(1)
fn mark() {
    books.volume.marked = books.totals.sum_depth;
}

@compute @workgroup_size(1)
fn rebase() {
    let s = two_sum(books.volume.start_hi, books.totals.sum_depth - books.volume.marked);
    books.volume.start_hi = s.x;
    books.volume.start_lo = books.volume.start_lo + s.y;
}
