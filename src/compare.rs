//! GPU-vs-CPU comparison: the documented tolerance rule, reusable by users' own tests.
//!
//! Both backends run the same f32 operations in the same order. They differ where the GPU compiler
//! fuses a multiply and an add (one rounding instead of two) or orders a reduction differently:
//! at most a few units in the last place (ulp) per step, in values whose size is the wave height.
//! The explicit scheme is stable, so such differences are carried and superposed, not amplified:
//! after `steps` steps they stay below `ULPS_PER_STEP · steps · ε · scale`, where ε = 2⁻²³ and
//! `scale` is the largest |h − reference| over wet cells. A wet/dry decision that falls differently
//! on the two backends (a cell within rounding of its ground) is bounded by the same rule because the
//! clamp moves the surface by no more than that rounding.

/// Units in the last place allowed per step (fused multiply-adds: ~4 roundings per cell per step,
/// each at most half an ulp, doubled for the neighbours that feed each cell).
pub const ULPS_PER_STEP: f64 = 4.0;

/// The tolerance on |h_gpu − h_cpu| after `steps` steps for waves of size `scale` (metres).
pub fn tolerance(steps: u64, scale: f64) -> f64 {
    ULPS_PER_STEP * steps.max(1) as f64 * f64::from(f32::EPSILON) * scale
}

/// The largest |a − b| and where it is.
pub fn max_abs_diff(a: &[f64], b: &[f64]) -> (f64, usize) {
    assert_eq!(a.len(), b.len(), "max_abs_diff: fields of different sizes");
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .enumerate()
        .fold(
            (0.0, 0),
            |best, (i, d)| if d > best.0 || d.is_nan() { (d, i) } else { best },
        )
}

/// Checks two surfaces (absolute heights) against [`tolerance`]; `Err` says by how much they differ.
pub fn check_fields(gpu: &[f64], cpu: &[f64], steps: u64, scale: f64) -> Result<f64, String> {
    let tol = tolerance(steps, scale);
    let (diff, at) = max_abs_diff(gpu, cpu);
    if diff <= tol {
        Ok(diff)
    } else {
        Err(format!(
            "GPU and CPU differ by {diff:.3e} m at cell {at} after {steps} steps (tolerance {tol:.3e} m = \
             {ULPS_PER_STEP} ulp/step × {steps} steps × ε × scale {scale:.3e} m): gpu {} cpu {}",
            gpu[at], cpu[at]
        ))
    }
}
