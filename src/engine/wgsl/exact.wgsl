// Knuth's TwoSum: s = fl(a + b) and the exact error e, a + b = s + e. Every intermediate passes
// through `one`, always 1.0 but read from a uniform (`Params::one`, `SwParams::one`), so no
// compiler can simplify the error to zero (WGSL has no `precise`). Each room's common file wraps
// it with its own uniform as `two_sum`; soil.wgsl, shared by two rooms, takes `one` itself.
// Twin: `height_field::cpu::explicit::two_sum`.
fn two_sum_through(a: f32, b: f32, one: f32) -> vec2<f32> {
    let s = (a + b) * one;
    let b_part = (s - a) * one;
    let a_part = (s - b_part) * one;
    let e = ((a - a_part) * one) + ((b - b_part) * one);
    return vec2<f32>(s, e);
}
