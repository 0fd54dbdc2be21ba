#import sw_common
#import sw_velocity
#import host_edit
// What `Water` (src/water/) adds to the shallow-water model inside a host's frame: the host's
// edits in place, and the velocity field its renderer binds. Twins: `engine::cpu::edit::
// apply_edits` with `state::edited_discharges` (apply_edits), `SwState::velocities` (velocities).
//
// apply_edits  the brushes and splashes since the last frame, in the order the host made them
//              (host_edit.wgsl's rule), on the state (level 0); the water a splash adds comes at
//              rest and the water a trough takes leaves with its velocity, so no edit speeds a
//              cell up, and a cell left dry stops. What the splashes added is kept per cell in
//              `added` for the volume books (`Water::read_volume`).
// velocities   each cell's depth-averaged (u, v) as the fluxes see it (sw_velocity.wgsl), 0 where
//              dry, after the frame's steps.

@group(0) @binding(1) var<storage, read_write> ground: array<f32>;
@group(0) @binding(2) var<storage, read_write> eta: array<f32>;
@group(0) @binding(3) var<storage, read_write> qx: array<f32>;
@group(0) @binding(4) var<storage, read_write> qy: array<f32>;
@group(0) @binding(5) var<storage, read> edits: Edits;
// The water the host's splashes added to each cell since the `Water` was built (m).
@group(0) @binding(6) var<storage, read_write> added: array<f32>;
// (u, v) per cell, m/s.
@group(0) @binding(7) var<storage, read_write> velocity_field: array<vec2<f32>>;

@compute @workgroup_size(256)
fn apply_edits(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = gid.x + gid.y * groups.x * 256u;
    if c >= p.cells {
        return;
    }
    let before = max(eta[c] - ground[c], 0.0);
    var edited = EditedCell(ground[c], eta[c], 0.0);
    for (var k = 0u; k < edits.count; k = k + 1u) {
        edited = edit_cell(edits.list[k], c % p.nx, c / p.nx, edited);
    }
    ground[c] = edited.ground;
    eta[c] = edited.eta;
    let after = max(edited.eta - edited.ground, 0.0);
    if after <= 0.0 {
        qx[c] = 0.0;
        qy[c] = 0.0;
    } else if after < before {
        qx[c] = qx[c] * (after / before);
        qy[c] = qy[c] * (after / before);
    }
    if edited.added != 0.0 {
        added[c] = added[c] + edited.added;
    }
}

@compute @workgroup_size(256)
fn velocities(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = gid.x + gid.y * groups.x * 256u;
    if c >= p.cells {
        return;
    }
    let h = max(eta[c] - ground[c], 0.0);
    var v = vec2<f32>(0.0, 0.0);
    if h > 0.0 {
        v = vec2<f32>(velocity(qx[c], h, p.film), velocity(qy[c], h, p.film));
    }
    velocity_field[c] = v;
}
