#import common
#import body
// Shared by bodies.wgsl and coupling.wgsl (`#import bodies_common`).
// Mirrors `crate::bodies::Solve`: keep them in step (a test checks their layouts field by field).

// The coupling solve's scalars and the bounding box of the tagged cells (one per step).
struct Solve {
    // Filled by `footprint` with atomics, emptied by `plan`.
    box_min_i: atomic<u32>,
    box_min_j: atomic<u32>,
    box_max_i: atomic<u32>,
    box_max_j: atomic<u32>,
    // The box the solve runs over (tagged cells and their neighbours), and its workgroups.
    origin_i: u32,
    origin_j: u32,
    end_i: u32,
    end_j: u32,
    groups_x: u32,
    groups: u32,
    // PCG: r·z, |b|², |r|², the step length, and how the step went.
    rz: f32,
    rr0: f32,
    rr: f32,
    alpha: f32,
    iterations: u32,
    converged: u32,
    // One per body (`plan` reads body k's box from slot k and writes cluster k's into it).
    clusters: array<Cluster>,
}

// Mirrors `crate::bodies::Cluster`. Body k's slot: the box of its tagged cells (`footprint`'s
// atomics, emptied by `plan`); then cluster k's, which `plan` forms of the bodies whose boxes
// (grown by a cell) overlap, for `solo`'s workgroup k: its box and how its solve went.
struct Cluster {
    min_i: atomic<u32>,
    min_j: atomic<u32>,
    max_i: atomic<u32>,
    max_j: atomic<u32>,
    origin_i: u32,
    origin_j: u32,
    end_i: u32,
    end_j: u32,
    rr0: f32,
    rr: f32,
    iterations: u32,
    _pad: u32,
}

fn owner_of(c: Cover) -> u32 {
    return c.owner & ~TAGGED;
}

fn is_tagged(c: Cover) -> bool {
    return (c.owner & TAGGED) != 0u;
}
