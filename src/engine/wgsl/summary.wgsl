#import slot
// The flood maps (src/summary.rs), once at the end of every step: each cell's deepest water and
// highest surface so far, the step it was first wet, and the steps it has been wet, wet meaning
// deeper than `wet_depth`. Read back only when written out (the end of a run, checkpoints). The
// height field folds its level; the pipes their columns' surface over their top floors.
// Twin: src/cpu/summary.rs.

// Mirrors `crate::summary::SummaryCell`.
struct SummaryCell {
    max_depth: f32,
    // The highest surface, relative to the reference level (eta).
    max_eta: f32,
    // The step at whose end it was first wet (0: wet at the start; NEVER_WET: not yet).
    first_wet: u32,
    wet_steps: u32,
}

const NEVER_WET: u32 = 0xffffffffu;

// Mirrors `crate::summary::SummaryParams`: written by the host before each chunk.
struct SummaryParams {
    // Steps run before the chunk.
    first_step: u32,
    wet_depth: f32,
    cells: u32,
    _pad0: u32,
}

@group(0) @binding(0) var<uniform> sp: SummaryParams;
@group(0) @binding(1) var<storage, read> ground: array<f32>;
@group(0) @binding(2) var<storage, read_write> summary: array<SummaryCell>;
@group(1) @binding(0) var<storage, read> eta: array<f32>;
@group(2) @binding(0) var<uniform> slot: StepSlot;

@compute @workgroup_size(256)
fn fold(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = gid.x + gid.y * groups.x * 256u;
    if c >= sp.cells {
        return;
    }
    let e = eta[c];
    let d = max(e - ground[c], 0.0);
    var s = summary[c];
    s.max_depth = max(s.max_depth, d);
    s.max_eta = max(s.max_eta, max(e, ground[c]));
    if d > sp.wet_depth {
        s.wet_steps = s.wet_steps + 1u;
        if s.first_wet == NEVER_WET {
            s.first_wet = sp.first_step + slot.index + 1u;
        }
    }
    summary[c] = s;
}
