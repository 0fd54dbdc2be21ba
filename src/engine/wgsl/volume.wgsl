#import books
#import carry
#import rain_step
#import soil
// Volume that never drifts (Kass & Miller §4, Wilson et al.'s global correction), and sources
// and drains. Once per step, after the solver and a reduction (reduce.wgsl) of the new level:
//
//   settle   one thread. CORRECT_TARGET (closed sides): the target T (metres·cells above the
//            still water, a pair of floats in the books) is the start's water plus every step's
//            requested sources, drains and rain so far, less what drains could not take;
//            Δ = (T − V)/W over the W wet cells (reduce.wgsl measures V). Each step moves T by
//            its own feed, so T is the same however the steps are split into chunks.
//            CORRECT_CLAMPS (open, absorbing or ghost sides, where water crosses the boundary):
//            Δ = −made/W and the vel correction +dropped/W, what the dry-cell rule did since the
//            last step (level.wgsl's `store` records it per cell): every other change is the
//            solver's own, boundary fluxes included, and stands.
//   apply    per cell, in place on the current level: wet cells move by Δ, never below the
//            ground, and their vel by −Σvel/W. In a closed domain the volume's change per step,
//            Σvel, is zero (sources, drains and rain go into both levels), but the dry clamp
//            deletes a draining cell's vel and leaves its outflow in its neighbours': corrected
//            only in eta, that bias kept raising a beach. (Adding Δ to vel instead made the next
//            step replay it, once per substep: E' = −n·E, unstable with substeps.) Then sources
//            add their height (both levels: vel is unchanged), and drains take what they ask,
//            or what is there, recording the shortfall.
//            Then, under [infiltration], the ground takes its law's capacity (soil.wgsl) from a
//            wet cell, booked in the target as a drain's take is: the correction never puts it
//            back. (The drops below infiltrate on the next step.)
//   rain     per drop cell of this step (src/rain.rs), after `apply`.
//
// Under volume_correction = "regions", regions.wgsl has computed a correction per connected body
// of water, and `apply` moves each wet cell by its own region's instead of the global one.
//
// Nothing is read back per step: the books keep the target from chunk to chunk (the host writes
// it back only as it read it, moved by its edits) and the host reads it with the report at each
// chunk's end. Twin: src/cpu/volume.rs.


@group(0) @binding(1) var<storage, read> ground: array<f32>;
// Binding 2: the books (books.wgsl): the totals it settles from and the volume target.
// Height per step each cell's sources ask for (drains negative), and what drains could not take.
@group(0) @binding(5) var<storage, read> source: array<f32>;
@group(0) @binding(4) var<storage, read_write> shortfall: array<f32>;
// Binding 3: the carry (carry.wgsl), with the clamp records `apply` resets under CORRECT_CLAMPS
// to what its own clamp does (the reduction has read them before `settle`).
// volume_correction = "regions" (regions.wgsl): each region's (height, vel) correction, and the
// water each cell gains after it, which joins the cell's region's target on the next step.
@group(0) @binding(6) var<storage, read> region_corrections: array<vec2<f32>>;
@group(0) @binding(7) var<storage, read_write> pending: array<f32>;
// [rainfall] (src/feeds.rs): each cell's share of the full intensity (params.rainfall ==
// RAINFALL_MAP); this step's height at a share of 1 is the step's `RainStep::rainfall`.
@group(0) @binding(8) var<storage, read> rainfall_map: array<f32>;
// [infiltration] (params.infiltration, soil.wgsl): each cell's soil state (the depth taken and
// its rounding, the law's own count and its rounding). The law's three parameter planes follow
// the ground's forcing in `ground` (`soil_law`).
@group(0) @binding(9) var<storage, read_write> soil: array<vec4<f32>>;

// The current level, written in place, and its region labels (id + 1, 0 dry).
@group(1) @binding(0) var<storage, read_write> eta: array<f32>;
@group(1) @binding(1) var<storage, read_write> vel: array<f32>;
@group(1) @binding(2) var<storage, read> labels: array<u32>;

@group(2) @binding(0) var<uniform> slot: StepSlot;

// The chunk's rain (src/rain.rs): per step (`RainStep`), a run of (cell, height) entries.

@group(3) @binding(0) var<storage, read> rain_steps: array<RainStep>;
@group(3) @binding(1) var<storage, read> rain_cells: array<u32>;
@group(3) @binding(2) var<storage, read> rain_heights: array<f32>;

// Step `slot.index` of the chunk: the correction toward the target, which then takes the step's
// own sources and rain (common.wgsl's `settled`).
@compute @workgroup_size(1)
fn settle() {
    books.volume = settled(books.volume, books.totals, rain_steps[slot.index].added);
}

// Cell c's faces' memory signed into it, which the dry-cell rule leaves in the faces: the next
// step forgets it or takes it back. 0 without (params.faces).
fn held_in_faces(c: u32) -> f32 {
    if params.faces == 0u {
        return 0.0;
    }
    let w = face_words(c);
    return into_cell(vec4<f32>(vel[w.x], vel[w.y], vel[w.z], vel[w.w]));
}

// Where the law's three parameter planes start in `ground`: after the ground and its forcing
// (level.wgsl: the damping map, the pressure head).
fn soil_law_at() -> u32 {
    let n = params.nx * params.ny;
    var at = n;
    if (params.forcing & FORCE_DAMPING_MAP) != 0u {
        at = at + n;
    }
    if (params.forcing & FORCE_PRESSURE) != 0u {
        at = at + n;
    }
    return at;
}

// Twin: `volume::infiltrated`. [infiltration] on cell c over ground b at (e, r), after its
// sources, which the step's rainfall gave `rain` m: the ground takes its law's capacity or what
// the cell holds (dry then, at its ground). Returns what it took, which the target books as a
// drain's (the caller's shortfall).
fn infiltrate_at(c: u32, b: f32, e: ptr<function, f32>, r: ptr<function, f32>, rain: f32) -> f32 {
    let n = params.nx * params.ny;
    let at = soil_law_at();
    let law = vec3<f32>(ground[at + c], ground[at + n + c], ground[at + 2u * n + c]);
    let step = soil_capacity(params.infiltration, law, soil[c], rain, params.one);
    var st = step.st;
    var took = 0.0;
    let water = (*e - b) + *r;
    if *e > b && step.cap > 0.0 && water > 0.0 {
        if step.cap >= water {
            took = water;
            *e = b;
            *r = 0.0;
        } else {
            took = step.cap;
            let s = two_sum(*e, *r - took);
            *e = s.x;
            *r = s.y;
        }
        st = soil_took(params.infiltration, st, took, step.cap, params.one);
    }
    soil[c] = st;
    return took;
}

// One cell of `apply` (below) moved by `delta`: returns the height its sources added (or drains
// took, negative; 0 without sources), which "regions" counts in the cell's `pending`.
fn apply_at(c: u32, delta: vec2<f32>) -> f32 {
    let b = ground[c];
    let moved = take_correction(eta[c], vel[c], carry[c], b, delta);
    var e = moved.x;
    var v = moved.y;
    var r = moved.z;
    var added = 0.0;
    if params.sources != 0u {
        var rain = 0.0;
        if params.rainfall != 0u {
            let share = select(1.0, rainfall_map[c], params.rainfall == RAINFALL_MAP);
            rain = rain_steps[slot.index].rainfall * share;
        }
        let want = source[c] + rain;
        var short = 0.0;
        if want > 0.0 {
            let s = two_sum(max(e, b), want + r);
            e = s.x;
            r = s.y;
            added = want;
        } else if want < 0.0 {
            let take = min(depth(e, b), -want);
            short = -want - take;
            e = e - take;
            added = -take;
        }
        if params.infiltration != 0u {
            let took = infiltrate_at(c, b, &e, &r, rain);
            short = short - took;
            added = added - took;
        }
        shortfall[c] = short;
    }
    if params.correct == CORRECT_CLAMPS {
        // A cell it dries books the change it drops less what stays in the faces (a cell that
        // was dry already holds no change).
        let held = select(0.0, held_in_faces(c), eta[c] > b);
        set_clamped(c, select(vec2<f32>(0.0, 0.0), vec2<f32>((b - e) - r, v - held), e <= b));
    }
    if e <= b {
        e = b;
        v = 0.0;
        r = 0.0;
    }
    eta[c] = e;
    vel[c] = v;
    carry[c] = r;
    return added;
}

// The global correction: every wet cell by the books' settled correction.
@compute @workgroup_size(16, 16)
fn apply(@builtin(global_invocation_id) gid: vec3<u32>) {
    if gid.x >= params.nx || gid.y >= params.ny {
        return;
    }
    apply_at(cell(gid.x, gid.y), vec2<f32>(books.volume.correction, books.volume.vel_correction));
}

// Under "regions": each wet cell by its own region's correction (labelled on this very level: a
// cell is labelled exactly when e > b), and what its sources did joins the region's `pending`.
// Its own entry point, so that `apply` binds none of the regions' buffers (src/gpu/volume.rs).
@compute @workgroup_size(16, 16)
fn apply_regions(@builtin(global_invocation_id) gid: vec3<u32>) {
    if gid.x >= params.nx || gid.y >= params.ny {
        return;
    }
    let c = cell(gid.x, gid.y);
    let added = apply_at(c, region_corrections[max(labels[c], 1u) - 1u]);
    if params.sources != 0u {
        pending[c] = added;
    }
}

// This step's drops, after `apply`: each entry raises its cell's surface (both levels). A held
// entry (`HELD` in its cell word: a [[source]] with a height, a "stage" side's edge) sets its
// cell to its level (the ground, dry, where the level is below) and books what the cell gained
// (negative: gave) as the target's: with the drains' shortfall, which the next `settle` adds to
// the target (and under "regions" in the cell's `pending`). Its per-step change stays as the step
// left it: the negative of what its neighbours' changes took from it, so the changes still sum to
// the water's, and what the cell gives grows as the flow out of it does. (Zeroing it gave the
// neighbours momentum no cell paid for, which `apply`'s −Σvel/W then took from every cell: a
// stage side filled its channel at a sixth of the wave's rate while the far end sank.)
@compute @workgroup_size(64)
fn rain(@builtin(global_invocation_id) gid: vec3<u32>) {
    let step = rain_steps[slot.index];
    if gid.x >= step.count {
        return;
    }
    let k = step.start + gid.x;
    let word = rain_cells[k];
    let c = word & ~HELD;
    let b = ground[c];
    var added = rain_heights[k];
    if (word & HELD) != 0u {
        let held = max(rain_heights[k], b);
        added = (held - max(eta[c], b)) - carry[c];
        eta[c] = held;
        vel[c] = select(vel[c], 0.0, held <= b);
        carry[c] = 0.0;
        shortfall[c] = shortfall[c] + added;
    } else {
        let s = two_sum(max(eta[c], b), rain_heights[k] + carry[c]);
        eta[c] = s.x;
        carry[c] = s.y;
    }
    if params.regions != 0u {
        pending[c] = pending[c] + added;
    }
}
