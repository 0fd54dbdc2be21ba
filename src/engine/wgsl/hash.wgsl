// Random numbers for the particle passes (spray.wgsl, ns_spray.wgsl), keyed so that reruns give
// the same bits. Twin: src/cpu/spray.rs `hash`, `uniform01`.

// A 32-bit hash (PCG's output permutation of an LCG step): spreads each bit of x over the word.
fn hash(x: u32) -> u32 {
    let s = x * 747796405u + 2891336453u;
    let w = ((s >> ((s >> 28u) + 4u)) ^ s) * 277803737u;
    return (w >> 22u) ^ w;
}

// Uniform in [0, 1) from a hash: its top 24 bits.
fn uniform01(h: u32) -> f32 {
    return f32(h >> 8u) * 5.9604645e-8;
}
