#import sums
#import carry
// Deterministic tree reduction of the state: the sum of eta and the count over wet cells (for the
// ghost-mean side), the largest depth (for the stability check), a non-finite flag, the wet volume
// the drains' shortfall, Σvel and what the dry-cell rule did (for the volume correction,
// volume.wgsl).
// Two passes: `partial_sums` (one partial per workgroup of SUMS_WG·SUMS_PER_THREAD cells, in sums.wgsl's
// order, which the fused explicit step shares) and `finish` (one workgroup folds the partials).
// The order of every addition is fixed, so two runs give the same bits. Twin: src/cpu/reduce.rs.

@group(0) @binding(1) var<storage, read> ground: array<f32>;
// What covers each column (bodies.wgsl); read only with bodies, for the body volume a
// submerged body's column holds below its surface, which is not water.
@group(0) @binding(4) var<storage, read> cover: array<Cover>;
// Binding 2: the books (books.wgsl), whose totals `finish` writes.
// What each drain cell could not take on the last step (volume.wgsl); read only with sources.
@group(0) @binding(5) var<storage, read> shortfall: array<f32>;
// Binding 3: the carry (carry.wgsl), whose clamp records it reads under CORRECT_CLAMPS.

@group(1) @binding(0) var<storage, read> eta: array<f32>;
@group(1) @binding(1) var<storage, read> vel: array<f32>;

// Cell c's faces' memory signed into it (common.wgsl's `face_words`); 0 without (params.faces).
fn held_in_faces(c: u32) -> f32 {
    if params.faces == 0u {
        return 0.0;
    }
    let w = face_words(c);
    return into_cell(vec4<f32>(vel[w.x], vel[w.y], vel[w.z], vel[w.w]));
}

@compute @workgroup_size(256)
fn partial_sums(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let group = wid.x + wid.y * groups.x;
    let n = params.nx * params.ny;
    var lane = empty_lane();
    for (var m = 0u; m < SUMS_PER_THREAD; m = m + 1u) {
        let c = sums_cell(group, m, t);
        if c < n {
            var held = 0.0;
            if params.bodies != 0u {
                held = cover[c].held;
                lane.clamp.z = lane.clamp.z + held;
            }
            // A wet cell's change less what its faces hold: on a shoreline the faces into dry
            // cells hold the water the wave carries up the beach, which is no error to undo.
            var v = vel[c];
            if eta[c] > ground[c] {
                v = v - held_in_faces(c);
            }
            add_cell(&lane, eta[c], ground[c], v, held);
            if params.sources != 0u {
                lane.short = lane.short + shortfall[c];
            }
            if params.correct == CORRECT_CLAMPS {
                lane.clamp = lane.clamp + vec4<f32>(clamped_at(c), 0.0, 0.0);
            }
        }
    }
    let sums = tree(t, lane);
    if t == 0u && group < params.n_partials {
        books.partials[group] = to_totals(sums);
    }
}

@compute @workgroup_size(256)
fn finish(@builtin(local_invocation_index) t: u32) {
    let k = tree(t, fold_partials(t));
    if t == 0u {
        books.totals = to_totals(k);
    }
}
