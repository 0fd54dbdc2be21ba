#import slot
// What the pipes model (pipes.wgsl) and its spray (spray.wgsl) share: the columns' constants
// and the eight directions. Twin: src/columns.rs and src/cpu/pipes.rs.

// A top cell's ceiling: open to the sky. Unused layers have floor = ceiling = SKY (no capacity,
// no opening, so no pipe).
const SKY: i32 = 0x3fffffff;
// `feed.y` of a column that does not hold its height.
const NO_HOLD: i32 = -0x7fffffff;
const MAX_LAYERS: u32 = 4u;

// Direction k: E, N, W, S, NE, NW, SW, SE. Its opposite is `opposite(k)`.
fn offset(k: u32) -> vec2<i32> {
    switch k {
        case 0u: { return vec2<i32>(1, 0); }
        case 1u: { return vec2<i32>(0, 1); }
        case 2u: { return vec2<i32>(-1, 0); }
        case 3u: { return vec2<i32>(0, -1); }
        case 4u: { return vec2<i32>(1, 1); }
        case 5u: { return vec2<i32>(-1, 1); }
        case 6u: { return vec2<i32>(-1, -1); }
        default: { return vec2<i32>(1, -1); }
    }
}

fn opposite(k: u32) -> u32 {
    return (k & 4u) | ((k + 2u) & 3u);
}

// The unit vector of direction k.
fn unit(k: u32) -> vec2<f32> {
    let o = vec2<f32>(offset(k));
    return select(o, o * 0.70710677, k >= 4u);
}


// A 64-bit signed count as (low word, high word): the water a column's sources, drains and open
// sides made (or took) since the chunk began.
struct Exchange {
    lo: u32,
    hi: u32,
}

// `e` plus `delta` units (a two's-complement i64 in two words).
fn exchange_plus(e: Exchange, delta: i32) -> Exchange {
    let lo = e.lo + bitcast<u32>(delta);
    return Exchange(lo, e.hi + select(0u, 0xffffffffu, delta < 0) + select(0u, 1u, lo < e.lo));
}
