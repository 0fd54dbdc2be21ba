#import common
// Volume per connected body of water (Kass & Miller §4: "find the connected pieces of the fluid
// ... distribute the difference uniformly over the samples in the connected region"). Runs once
// per step after the solver, before volume.wgsl's `apply` moves each wet cell by its region's
// correction. Twin: src/cpu/regions.rs.
//
// Labelling (union-find, Playne & Hawick 2018): every wet cell starts as its own root; each cell
// joins its wet east and north neighbours by hooking the larger root under the smaller with an
// atomic min, retried until it sticks (lock-free: a failed hook means another thread made
// progress), then path compression: two passes whatever the shapes, no convergence loop. A
// region's root is its smallest cell index, and regions are numbered in that order, so labels
// are deterministic and equal to the CPU twin's: the compression also marks each tile's roots in
// a bit mask, one workgroup scans the tiles' root counts, and `region_sum` numbers each cell from
// its root (the root tile's offset plus the roots before it in the mask) as it sums: three
// passes over the grid in all. A cell's label is id + 1, 0 for dry; ids past the table's
// capacity share its last slot (one combined region).
//
// Targets (64-bit fixed point, 2^-28 m·cells, so sums are exact and order-free): each region
// carries a target volume from step to step, in `targets[parity]`. After the solver moves water,
// the new regions take the old targets through the cells they share ("overlap": wet in both, or
// newly wet beside an old region's cell, since water moves at most one cell per step):
//   - an old region whose overlap lies in one new region gives it its whole target; regions that
//     merge therefore add their targets;
//   - an old region that split shares its target by the current volume of its overlap cells, the
//     exact remainder going to the smallest-numbered piece, so no part of it is lost to rounding;
//   - a new region that overlaps nothing old (water appeared on dry ground) takes its volume;
//     an old region that overlaps nothing new (its water vanished in one step) is forgotten.
// Water added by sources, rain and drains (`pending`, per cell, written by volume.wgsl) joins the
// target of the cell's region on the next step. Then each region's correction is
// (target − volume) / wet cells, and its vel correction −Σvel / wet cells.
//
// Steps whose wet set is last step's (a still lake, a pond between showers) keep last step's
// labels: `label_check` compares each cell's wetness with its old label and, where one differs,
// writes the dispatch arguments of the labelling passes and the split (from `label_args`' second
// half, which the host fills); otherwise those dispatches are empty and `region_sum` takes each
// cell's old label. The numbering is a function of the wet set, so both ways give the same bits.
//
// Sums first aggregate in workgroup memory for the workgroup's leading region (the largest label
// present), then one thread adds that into the table: most cells of a lake share a workgroup
// with their whole region, so the table sees about one atomic per workgroup.

const TILE: u32 = 256u;
// Words of a tile's root mask in `roots`, after the tiles' counts.
const MASK_WORDS: u32 = TILE / 32u;
// Words per region in `table`. Fields by the new region j: wet cells, Σ depth, Σ vel, whether
// any cell overlaps an old region. Fields by the old region i: Σ depth of its overlap cells, the
// shares it gave away, and the smallest and largest new region it overlaps (as ~j and j + 1, so
// zero means none and both take an atomic max).
const STRIDE: u32 = 16u;
const F_WET: u32 = 0u;
const F_VOLUME: u32 = 1u;
const F_VEL: u32 = 3u;
const F_HAD_OLD: u32 = 5u;
const F_OVERLAP: u32 = 6u;
const F_GIVEN: u32 = 8u;
const F_MIN_NOT: u32 = 10u;
const F_MAX_1: u32 = 11u;

// Region counts: `count` this step, `old_count` the step before.
struct Meta {
    old_count: u32,
    count: u32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(1) var<storage, read> ground: array<f32>;
// Union-find parents: cell indices.
@group(0) @binding(2) var<storage, read_write> parent: array<atomic<u32>>;
// Roots per tile of TILE cells in index order, then (in place) their exclusive scan; after the
// `tiles()` counts, each tile's root mask (MASK_WORDS words, bit k for the tile's cell k).
@group(0) @binding(3) var<storage, read_write> roots: array<u32>;
@group(0) @binding(4) var<storage, read_write> table: array<atomic<u32>>;
@group(0) @binding(5) var<storage, read_write> counts: Meta;
// Water added to each cell after the last correction (sources, drains, rain), in metres.
@group(0) @binding(6) var<storage, read_write> pending: array<f32>;
// Per region: (height correction, vel correction), read by volume.wgsl's `apply`.
@group(0) @binding(7) var<storage, read_write> corrections: array<vec2<f32>>;

@group(1) @binding(0) var<storage, read> eta: array<f32>;
@group(1) @binding(1) var<storage, read> vel: array<f32>;

// Ping-pong by step parity: last step's labels and targets, and this step's.
@group(2) @binding(0) var<storage, read> old_labels: array<u32>;
@group(2) @binding(1) var<storage, read_write> labels: array<u32>;
@group(2) @binding(2) var<storage, read_write> old_targets: array<vec2<u32>>;
@group(2) @binding(3) var<storage, read_write> targets: array<atomic<u32>>;

// This step's dispatch arguments for label_union, label_root, label_scan and region_split (three
// words each; all zero when the wet set did not change), then the full ones.
@group(3) @binding(0) var<storage, read_write> label_args: array<atomic<u32>, 24>;
const ARGS: u32 = 12u;

// 64-bit two's complement integers as (low, high) words.
fn add64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let lo = a.x + b.x;
    return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x));
}

fn negate64(a: vec2<u32>) -> vec2<u32> {
    let lo = ~a.x + 1u;
    return vec2<u32>(lo, ~a.y + select(0u, 1u, lo == 0u));
}

// x (metres, or metres·cells) in units of 2^-28 (3.7e-9), rounded to nearest (ties to even, so
// many small additions carry no bias); |x| up to 2^35. Every step is exact but the rounding: a
// scale by a power of two, floor, and the fraction of a float, which holds 24 bits.
fn to_fixed(x: f32) -> vec2<u32> {
    let a = abs(x) * (1.0 / 16.0);
    let hi = floor(a);
    let v = vec2<u32>(u32(round((a - hi) * 4294967296.0)), u32(hi));
    return select(v, negate64(v), x < 0.0);
}

fn to_real(v: vec2<u32>) -> f32 {
    let negative = (v.y & 0x80000000u) != 0u;
    let m = select(v, negate64(v), negative);
    let r = (f32(m.y) * 4294967296.0 + f32(m.x)) * (1.0 / 268435456.0);
    return select(r, -r, negative);
}

fn add_table(word: u32, v: vec2<u32>) {
    let old = atomicAdd(&table[word], v.x);
    atomicAdd(&table[word + 1u], v.y + select(0u, 1u, old + v.x < old));
}

fn add_target(j: u32, v: vec2<u32>) {
    let old = atomicAdd(&targets[2u * j], v.x);
    atomicAdd(&targets[2u * j + 1u], v.y + select(0u, 1u, old + v.x < old));
}

fn read_table(word: u32) -> vec2<u32> {
    return vec2<u32>(atomicLoad(&table[word]), atomicLoad(&table[word + 1u]));
}

fn capacity() -> u32 {
    return params.regions;
}

fn cells() -> u32 {
    return params.nx * params.ny;
}

fn tiles() -> u32 {
    return (cells() + TILE - 1u) / TILE;
}

// Cell c's faces' memory signed into it (common.wgsl's `face_words`); 0 without (params.faces).
// A region's vel correction counts a wet cell's change less what its faces hold (reduce.wgsl).
fn held_in_faces(c: u32) -> f32 {
    if params.faces == 0u {
        return 0.0;
    }
    let w = face_words(c);
    return into_cell(vec4<f32>(vel[w.x], vel[w.y], vel[w.z], vel[w.w]));
}

fn wet(c: u32) -> bool {
    return eta[c] > ground[c];
}

// The neighbour of (x, y) one step along `dir` (0 east, 1 north, 2 west, 3 south), wrapping on
// periodic sides; `cells()` where there is none.
fn neighbour(x: u32, y: u32, dir: u32) -> u32 {
    var i = i32(x);
    var j = i32(y);
    switch dir {
        case 0u: { i = i + 1; }
        case 1u: { j = j + 1; }
        case 2u: { i = i - 1; }
        default: { j = j - 1; }
    }
    let nx = i32(params.nx);
    let ny = i32(params.ny);
    if i < 0 || i >= nx {
        if params.bc_west != PERIODIC || nx < 2 {
            return cells();
        }
        i = (i + nx) % nx;
    }
    if j < 0 || j >= ny {
        if params.bc_south != PERIODIC || ny < 2 {
            return cells();
        }
        j = (j + ny) % ny;
    }
    return u32(j) * params.nx + u32(i);
}

// Last step's region of a wet cell: its own, or for a newly wet cell the smallest of its
// neighbours' (its water came from one of them). 0 if none.
fn old_region(x: u32, y: u32, c: u32) -> u32 {
    let own = old_labels[c];
    if own != 0u {
        return own;
    }
    var best = 0xffffffffu;
    for (var dir = 0u; dir < 4u; dir++) {
        let n = neighbour(x, y, dir);
        if n < cells() && old_labels[n] != 0u {
            best = min(best, old_labels[n]);
        }
    }
    return select(0u, best, best != 0xffffffffu);
}

fn find(c: u32) -> u32 {
    var r = c;
    loop {
        let p = atomicLoad(&parent[r]);
        if p == r {
            break;
        }
        r = p;
    }
    return r;
}

fn unite(a0: u32, b0: u32) {
    var a = a0;
    var b = b0;
    loop {
        a = find(a);
        b = find(b);
        if a == b {
            break;
        }
        let hi = max(a, b);
        let lo = min(a, b);
        let old = atomicMin(&parent[hi], lo);
        if old == hi {
            break;
        }
        // `hi` had been hooked under `old` meanwhile: join `old` and `lo` instead.
        a = old;
        b = lo;
    }
}

// Whether this workgroup found a cell whose wetness differs from its old label (1), or another
// workgroup already had (2).
var<workgroup> differs: atomic<u32>;

// Whether the wet set differs from last step's labels: if so, the labelling's dispatch arguments.
// Once a workgroup has found a difference, later ones read no cells. Also moves the region count
// to `old_count` (label_scan does it again, to the same value, when it runs).
@compute @workgroup_size(16, 16)
fn label_check(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    if lid == 0u {
        atomicStore(&differs, select(0u, 2u, atomicLoad(&label_args[0]) != 0u));
    }
    workgroupBarrier();
    if atomicLoad(&differs) == 0u && gid.x < params.nx && gid.y < params.ny {
        let c = cell(gid.x, gid.y);
        if wet(c) != (old_labels[c] != 0u) {
            atomicStore(&differs, 1u);
        }
    }
    if gid.x == 0u && gid.y == 0u {
        counts.old_count = counts.count;
    }
    workgroupBarrier();
    if lid < ARGS && atomicLoad(&differs) == 1u {
        atomicStore(&label_args[lid], atomicLoad(&label_args[ARGS + lid]));
    }
}

@compute @workgroup_size(16, 16)
fn label_union(@builtin(global_invocation_id) gid: vec3<u32>) {
    if gid.x >= params.nx || gid.y >= params.ny {
        return;
    }
    let c = cell(gid.x, gid.y);
    if !wet(c) {
        return;
    }
    for (var dir = 0u; dir < 2u; dir++) {
        let n = neighbour(gid.x, gid.y, dir);
        if n < cells() && wet(n) {
            unite(c, n);
        }
    }
}

var<workgroup> scan_buffer: array<u32, TILE>;

// Hillis–Steele inclusive scan across the workgroup (every thread calls it, with its value).
fn inclusive_scan(lid: u32, value: u32) -> u32 {
    scan_buffer[lid] = value;
    workgroupBarrier();
    for (var d = 1u; d < TILE; d = d << 1u) {
        var v = scan_buffer[lid];
        if lid >= d {
            v = v + scan_buffer[lid - d];
        }
        workgroupBarrier();
        scan_buffer[lid] = v;
        workgroupBarrier();
    }
    return scan_buffer[lid];
}

// Index of this thread's cell when workgroups of TILE cells in index order are folded into 2-D.
fn tile_cell(wid: vec3<u32>, groups: vec3<u32>, lid: u32) -> vec2<u32> {
    let tile = wid.y * groups.x + wid.x;
    return vec2<u32>(tile, tile * TILE + lid);
}

var<workgroup> tile_mask: array<atomic<u32>, MASK_WORDS>;

// Compresses every wet cell's path to its root (the store only where it changes), and marks the
// tile's roots: their mask and count into `roots`.
@compute @workgroup_size(256)
fn label_root(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    if lid < MASK_WORDS {
        atomicStore(&tile_mask[lid], 0u);
    }
    workgroupBarrier();
    let at = tile_cell(wid, groups, lid);
    let c = at.y;
    if c < cells() && wet(c) {
        let p = atomicLoad(&parent[c]);
        if p == c {
            atomicOr(&tile_mask[lid / 32u], 1u << (lid % 32u));
        } else {
            let r = find(p);
            if r != p {
                atomicStore(&parent[c], r);
            }
        }
    }
    workgroupBarrier();
    if at.x < tiles() && lid < MASK_WORDS {
        roots[tiles() + at.x * MASK_WORDS + lid] = atomicLoad(&tile_mask[lid]);
    }
    if at.x < tiles() && lid == 0u {
        var count = 0u;
        for (var w = 0u; w < MASK_WORDS; w++) {
            count += countOneBits(atomicLoad(&tile_mask[w]));
        }
        roots[at.x] = count;
    }
}

// One workgroup: the exclusive scan of the tiles' root counts, in place, and the region count.
@compute @workgroup_size(256)
fn label_scan(@builtin(local_invocation_index) lid: u32) {
    let tiles = tiles();
    let per = (tiles + TILE - 1u) / TILE;
    let start = min(lid * per, tiles);
    let end = min(start + per, tiles);
    var sum = 0u;
    for (var t = start; t < end; t++) {
        sum = sum + roots[t];
    }
    let through = inclusive_scan(lid, sum);
    var offset = through - sum;
    for (var t = start; t < end; t++) {
        let n = roots[t];
        roots[t] = offset;
        offset = offset + n;
    }
    if lid == TILE - 1u {
        counts.old_count = counts.count;
        counts.count = through;
    }
}

// The label of wet cell `c` whose parent `r` is its root (since `label_root`): the root tile's
// offset plus the roots before it in the tile's mask, plus one.
fn label_of(r: u32) -> u32 {
    let t = r / TILE;
    let bit = r % TILE;
    let mask = tiles() + t * MASK_WORDS;
    var rank = countOneBits(roots[mask + bit / 32u] & ((1u << (bit % 32u)) - 1u));
    for (var w = 0u; w < bit / 32u; w++) {
        rank += countOneBits(roots[mask + w]);
    }
    return min(roots[t] + rank, capacity() - 1u) + 1u;
}

// Workgroup aggregation for the leading new region (`lead_new`) and old region (`lead_old`).
var<workgroup> lead_new: atomic<u32>;
var<workgroup> lead_old: atomic<u32>;
// region_sum: wet, volume (2), vel (2), had_old, overlap (2), min_not, max_1.
// region_split: the leading new region's share (2), the leading old region's given (2).
var<workgroup> agg: array<atomic<u32>, 10>;

fn add_agg(word: u32, v: vec2<u32>) {
    let old = atomicAdd(&agg[word], v.x);
    atomicAdd(&agg[word + 1u], v.y + select(0u, 1u, old + v.x < old));
}

fn read_agg(word: u32) -> vec2<u32> {
    return vec2<u32>(atomicLoad(&agg[word]), atomicLoad(&agg[word + 1u]));
}

// Numbers every cell (its label: the root's, 0 dry; its old one when the wet set did not change)
// and makes a wet cell its own root again, ready for the next step's `label_union` (only a cell's
// own parent is read here). Then per new
// region: wet cells, Σ depth, Σ vel and whether it overlaps the old regions; per old region:
// Σ depth over its overlap and the new regions it reaches. Pending water joins the target of its
// cell's new region (or, where the cell is dry now, is taken off its old region's).
@compute @workgroup_size(16, 16)
fn region_sum(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    if lid == 0u {
        atomicStore(&lead_new, 0u);
        atomicStore(&lead_old, 0u);
    }
    if lid < 10u {
        atomicStore(&agg[lid], 0u);
    }
    workgroupBarrier();
    let inside = gid.x < params.nx && gid.y < params.ny;
    var c = 0u;
    var j1 = 0u;
    var i1 = 0u;
    var d = 0.0;
    if inside {
        c = cell(gid.x, gid.y);
        if wet(c) {
            if atomicLoad(&label_args[0]) != 0u {
                let r = atomicLoad(&parent[c]);
                j1 = label_of(r);
                if r != c {
                    atomicStore(&parent[c], c);
                }
            } else {
                j1 = old_labels[c];
            }
            i1 = old_region(gid.x, gid.y, c);
            d = eta[c] - ground[c];
        } else {
            i1 = old_labels[c];
        }
        labels[c] = j1;
        let p = pending[c];
        if p != 0.0 {
            pending[c] = 0.0;
            if j1 != 0u {
                add_target(j1 - 1u, to_fixed(p));
            } else if i1 != 0u {
                add_table((i1 - 1u) * STRIDE + F_GIVEN, to_fixed(-p));
            }
        }
        if j1 == 0u {
            i1 = 0u;
        }
        atomicMax(&lead_new, j1);
        atomicMax(&lead_old, i1);
    }
    workgroupBarrier();
    let leads = vec2<u32>(atomicLoad(&lead_new), atomicLoad(&lead_old));
    if j1 != 0u {
        let j = j1 - 1u;
        let depth = to_fixed(d);
        let v = to_fixed(vel[c] - held_in_faces(c));
        let had_old = select(0u, 1u, i1 != 0u);
        if j1 == leads.x {
            atomicAdd(&agg[0], 1u);
            add_agg(1u, depth);
            add_agg(3u, v);
            atomicMax(&agg[5], had_old);
        } else {
            let w = j * STRIDE;
            atomicAdd(&table[w + F_WET], 1u);
            add_table(w + F_VOLUME, depth);
            add_table(w + F_VEL, v);
            atomicMax(&table[w + F_HAD_OLD], had_old);
        }
        if i1 != 0u {
            if i1 == leads.y {
                add_agg(6u, depth);
                atomicMax(&agg[8], ~j);
                atomicMax(&agg[9], j1);
            } else {
                let w = (i1 - 1u) * STRIDE;
                add_table(w + F_OVERLAP, depth);
                atomicMax(&table[w + F_MIN_NOT], ~j);
                atomicMax(&table[w + F_MAX_1], j1);
            }
        }
    }
    workgroupBarrier();
    if lid == 0u && leads.x != 0u {
        let w = (leads.x - 1u) * STRIDE;
        atomicAdd(&table[w + F_WET], atomicLoad(&agg[0]));
        add_table(w + F_VOLUME, read_agg(1u));
        add_table(w + F_VEL, read_agg(3u));
        atomicMax(&table[w + F_HAD_OLD], atomicLoad(&agg[5]));
    }
    if lid == 1u && leads.y != 0u {
        let w = (leads.y - 1u) * STRIDE;
        add_table(w + F_OVERLAP, read_agg(6u));
        atomicMax(&table[w + F_MIN_NOT], atomicLoad(&agg[8]));
        atomicMax(&table[w + F_MAX_1], atomicLoad(&agg[9]));
    }
}

// Whether old region i (label i1) reaches more than one new region.
fn split(i1: u32) -> bool {
    let w = (i1 - 1u) * STRIDE;
    let max_1 = atomicLoad(&table[w + F_MAX_1]);
    return max_1 != 0u && ~atomicLoad(&table[w + F_MIN_NOT]) + 1u != max_1;
}

// A split region's overlap cells hand its target to their new regions by depth; what they give is
// summed so that `region_settle` can give the exact remainder.
@compute @workgroup_size(16, 16)
fn region_split(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    if lid < 4u {
        atomicStore(&agg[lid], 0u);
    }
    if lid == 0u {
        atomicStore(&lead_new, 0u);
        atomicStore(&lead_old, 0u);
    }
    workgroupBarrier();
    var j1 = 0u;
    var i1 = 0u;
    var share = vec2<u32>(0u, 0u);
    if gid.x < params.nx && gid.y < params.ny {
        let c = cell(gid.x, gid.y);
        if wet(c) {
            let i = old_region(gid.x, gid.y, c);
            if i != 0u && split(i) {
                // target · d / overlap, as d plus that share of (target − overlap): the float
                // rounding then scales with the region's discrepancy, not with its volume, so a
                // small puddle split off a sea gets its own water to the last digits.
                let overlap = read_table((i - 1u) * STRIDE + F_OVERLAP);
                let d = eta[c] - ground[c];
                let excess = to_real(add64(old_targets[i - 1u], negate64(overlap)));
                share = add64(to_fixed(d), to_fixed(excess * (d / to_real(overlap))));
                j1 = labels[c];
                i1 = i;
                atomicMax(&lead_new, j1);
                atomicMax(&lead_old, i1);
            }
        }
    }
    workgroupBarrier();
    let leads = vec2<u32>(atomicLoad(&lead_new), atomicLoad(&lead_old));
    if j1 != 0u {
        if j1 == leads.x {
            add_agg(0u, share);
        } else {
            add_target(j1 - 1u, share);
        }
        if i1 == leads.y {
            add_agg(2u, share);
        } else {
            add_table((i1 - 1u) * STRIDE + F_GIVEN, share);
        }
    }
    workgroupBarrier();
    if lid == 0u && leads.x != 0u {
        add_target(leads.x - 1u, read_agg(0u));
    }
    if lid == 1u && leads.y != 0u {
        add_table((leads.y - 1u) * STRIDE + F_GIVEN, read_agg(2u));
    }
}

// One workgroup, as most steps have a handful of regions. Per old region: what is left of its
// target goes to the smallest new region it reaches (all of it when it reaches one), and its
// fields and old target are cleared for reuse. Then per new region: its correction, and its
// fields cleared for the next step.
@compute @workgroup_size(256)
fn region_settle(@builtin(local_invocation_index) lid: u32) {
    for (var i = lid; i < min(counts.old_count, capacity()); i += 256u) {
        let w = i * STRIDE;
        let max_1 = atomicLoad(&table[w + F_MAX_1]);
        if max_1 != 0u {
            let j = ~atomicLoad(&table[w + F_MIN_NOT]);
            add_target(j, add64(old_targets[i], negate64(read_table(w + F_GIVEN))));
        }
        for (var f = F_OVERLAP; f < STRIDE; f++) {
            atomicStore(&table[w + f], 0u);
        }
        old_targets[i] = vec2<u32>(0u, 0u);
    }
    // The carried targets are complete.
    storageBarrier();
    for (var j = lid; j < min(counts.count, capacity()); j += 256u) {
        let w = j * STRIDE;
        let wet_cells = f32(atomicLoad(&table[w + F_WET]));
        let volume = read_table(w + F_VOLUME);
        var goal = vec2<u32>(atomicLoad(&targets[2u * j]), atomicLoad(&targets[2u * j + 1u]));
        if atomicLoad(&table[w + F_HAD_OLD]) == 0u {
            goal = volume;
            atomicStore(&targets[2u * j], goal.x);
            atomicStore(&targets[2u * j + 1u], goal.y);
        }
        let difference = to_real(add64(goal, negate64(volume)));
        corrections[j] = vec2<f32>(difference / wet_cells, -to_real(read_table(w + F_VEL)) / wet_cells);
        for (var f = 0u; f < F_OVERLAP; f++) {
            atomicStore(&table[w + f], 0u);
        }
    }
    // The next step's label_check starts from no change.
    if lid < ARGS {
        atomicStore(&label_args[lid], 0u);
    }
}
