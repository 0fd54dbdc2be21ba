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

// Dekker's Fast2Sum on the operands ordered by magnitude: exact, so the same s and e as Knuth's
// (the twin's `two_sum`), every step through `one`. Knuth's form lost its error to zero on
// lavapipe inside the shallow-water stages and the height field's `settle` (where the feed's and
// `apply`'s kept it): those use this shorter form.
fn sum_exact_through(a: f32, b: f32, one: f32) -> vec2<f32> {
    let swap = abs(a) < abs(b);
    let hi = select(a, b, swap);
    let lo = select(b, a, swap);
    let s = (hi + lo) * one;
    let e = (lo - (s - hi) * one) * one;
    return vec2<f32>(s, e);
}
