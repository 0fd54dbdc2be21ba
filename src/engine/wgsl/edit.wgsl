#import books
#import host_edit
// Host edits between steps (src/water/mod.rs): terrain brushes and splashes, applied in the order the
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
// The rule, one edit at a cell, is host_edit.wgsl's (the shallow-water model's edits share it).
// Twin: src/engine/cpu/edit.rs.

@group(0) @binding(1) var<storage, read_write> ground: array<f32>;
// Binding 2: the books (books.wgsl): the totals it marks and the volume target it moves.
@group(0) @binding(3) var<storage, read> edits: Edits;
@group(0) @binding(4) var<storage, read_write> pending: array<f32>;

// The current level, edited in place.
@group(1) @binding(0) var<storage, read_write> eta: array<f32>;

@compute @workgroup_size(16, 16)
fn apply_edits(@builtin(global_invocation_id) gid: vec3<u32>) {
    if gid.x >= params.nx || gid.y >= params.ny {
        return;
    }
    let c = cell(gid.x, gid.y);
    var edited = EditedCell(ground[c], eta[c], 0.0);
    for (var k = 0u; k < edits.count; k = k + 1u) {
        edited = edit_cell(edits.list[k], gid.x, gid.y, edited);
    }
    ground[c] = edited.ground;
    eta[c] = edited.eta;
    if params.regions != 0u && edited.added != 0.0 {
        pending[c] = pending[c] + edited.added;
    }
}

@compute @workgroup_size(1)
fn mark() {
    books.volume.marked = books.totals.sum_depth;
}

@compute @workgroup_size(1)
fn rebase() {
    books.volume = target_plus(books.volume, books.totals.sum_depth - books.volume.marked);
}
