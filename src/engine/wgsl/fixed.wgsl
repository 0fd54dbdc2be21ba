// 64-bit fixed point: exact sums in any order, for the volume targets (books.wgsl's `Volume`,
// regions.wgsl's per-region targets). Twin: `engine::fixed`.

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
