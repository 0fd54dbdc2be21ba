//! Twin of `wgsl/fixed.wgsl`: 64-bit fixed point in units of 2^-28 (metres, or metres·cells),
//! whose sums are exact in any order. The volume targets live in it (the height field's books,
//! `VolumeState::target`, and each region's), so the same steps give the same target however they
//! are split into chunks, and a resumed run the straight run's bits.

/// Units per metre·cell of the fixed-point sums (2^28).
pub const FIXED: f64 = 268_435_456.0;

/// `x` in units of 2^-28, rounded to nearest, ties to even (the shader's `to_fixed`: the same
/// value, as f64 holds |x|·2^28 exactly).
pub fn to_fixed(x: f32) -> i64 {
    let m = (x.abs() as f64 * FIXED).round_ties_even() as i64;
    if x < 0.0 {
        -m
    } else {
        m
    }
}

/// The shader's `to_real`: the same f32 operations on the magnitude's two words.
pub fn to_real(v: i64) -> f32 {
    let m = v.unsigned_abs();
    let r = ((m >> 32) as u32 as f32 * 4_294_967_296.0 + m as u32 as f32) * (1.0 / FIXED as f32);
    if v < 0 {
        -r
    } else {
        r
    }
}

/// `v` as the shader's (low, high) words.
pub fn words(v: i64) -> [u32; 2] {
    [v as u32, (v >> 32) as u32]
}

/// The shader's (low, high) words as one integer.
pub fn from_words(w: [u32; 2]) -> i64 {
    ((w[1] as u64) << 32 | w[0] as u64) as i64
}

/// An f64 (metres·cells) in units, rounded to nearest (the host's targets: exact below 2^25).
pub fn of_f64(x: f64) -> i64 {
    (x * FIXED).round_ties_even() as i64
}

/// Units as an f64 (exact below 2^53 units).
pub fn to_f64(v: i64) -> f64 {
    v as f64 / FIXED
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_trip_and_f64_is_exact_in_range() {
        for v in [0i64, 1, -1, 1 << 40, -(1 << 40) - 12345, i64::MAX / 3] {
            assert_eq!(from_words(words(v)), v);
        }
        let x = 12_345.678_9;
        assert_eq!(to_f64(of_f64(x)), (x * FIXED).round() / FIXED);
        assert_eq!(to_fixed(-1.5), -(3 << 27));
    }
}
