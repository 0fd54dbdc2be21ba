#import sw_velocity
// The shallow-water model's flood maps beyond the four every model folds (summary.wgsl): each
// cell's fastest depth-averaged speed |u| and largest d·|u| (the hazard ratings' depth times
// velocity) while wet, wet meaning deeper than `wet_depth` as for the other maps, so a film's
// desingularised velocity never counts. Once at the end of every step, after the summary's fold.
// Twin: src/models/shallow_water/cpu/sw_maps.rs.

// Mirrors `sw_maps::FlowMapParams`.
struct FlowMapParams {
    cells: u32,
    wet_depth: f32,
    // The film depth under which the velocity is desingularised (SwParams.film).
    film: f32,
    _pad0: u32,
}

@group(0) @binding(0) var<uniform> fp: FlowMapParams;
@group(0) @binding(1) var<storage, read> ground: array<f32>;
@group(0) @binding(2) var<storage, read> eta: array<f32>;
@group(0) @binding(3) var<storage, read> qx: array<f32>;
@group(0) @binding(4) var<storage, read> qy: array<f32>;
// (fastest speed m/s, largest d·|u| m²/s) per cell.
@group(0) @binding(5) var<storage, read_write> maps: array<vec2<f32>>;

@compute @workgroup_size(256)
fn fold_flow(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = gid.x + gid.y * groups.x * 256u;
    if c >= fp.cells {
        return;
    }
    let d = max(eta[c] - ground[c], 0.0);
    if d > fp.wet_depth {
        let u = velocity(qx[c], d, fp.film);
        let v = velocity(qy[c], d, fp.film);
        let speed = sqrt(u * u + v * v);
        let m = maps[c];
        maps[c] = vec2<f32>(max(m.x, speed), max(m.y, d * speed));
    }
}
