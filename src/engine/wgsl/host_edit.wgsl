// The host edits' rule (src/water/mod.rs: brushes and splashes), one edit at one cell, for every pass
// that applies them (edit.wgsl on the height field, sw_water.wgsl on the shallow-water model).
// Each edit is a smooth bump w(r) = (1 − r²/R²)² of radius R cells around a point:
//
//   brush    raises the ground by amount·w (lowers it when negative); the water column rides
//            with it: a wet cell keeps its depth and a dry one stays dry.
//   disturb  raises the surface by amount·w where that leaves water (a trough stops at the
//            ground): the water it adds is `added`.
//
// Twin: src/engine/cpu/edit.rs (`apply_edits`); `HostEdit::weight` is `bump`'s.

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

// A cell as the edits leave it: its ground and surface (both − ref), and the water they added.
struct EditedCell {
    ground: f32,
    eta: f32,
    added: f32,
}

fn bump(e: HostEdit, i: u32, j: u32) -> f32 {
    let d = vec2<f32>(f32(i) - e.x, f32(j) - e.y) / max(e.radius, 1e-6);
    let q = max(1.0 - dot(d, d), 0.0);
    return q * q;
}

// Edit `e` applied to cell (i, j) as `cell` holds it.
fn edit_cell(e: HostEdit, i: u32, j: u32, cell: EditedCell) -> EditedCell {
    let w = bump(e, i, j);
    if w <= 0.0 {
        return cell;
    }
    let lift = e.amount * w;
    var out = cell;
    if e.kind == EDIT_BRUSH {
        let wet = cell.eta > cell.ground;
        out.ground = cell.ground + lift;
        out.eta = select(out.ground, cell.eta + lift, wet);
    } else {
        let before = max(cell.eta - cell.ground, 0.0);
        out.eta = max(max(cell.eta, cell.ground) + lift, cell.ground);
        out.added = cell.added + (max(out.eta - out.ground, 0.0) - before);
    }
    return out;
}
