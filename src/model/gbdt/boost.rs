//! The boosting iterations, compiled twice: for the x86-64 baseline (SSE2) and with AVX2,
//! the copy [`trees`] runs when the CPU has AVX2 — as the logistic solver does
//! (`Problem::solve` in `src/model/newton.rs`).
//!
//! Both copies are the same source: the same IEEE additions, multiplications and divisions
//! on the same values in the same order, which round identically in 2-wide and 4-wide
//! registers, and no FMA (the `fma` feature is not enabled, and Rust never fuses
//! `a * b + c`). So a fit has the same bits on every CPU; `tests::both_copies_fit_the_same_bits`
//! compares the two here. What AVX2 buys is width where the fit divides: libm's `exp` and
//! the gradients (`loss.rs`, three divisions a row) and the split gains (`split.rs`, two a
//! bin), about twice as fast at 4 lanes as at 2; a fit of 10⁵ rows spends a quarter of its
//! time on the gradients.
//!
//! Every function of the iteration's hot path is `#[inline(always)]`, so that it is
//! compiled into [`trees_avx2`] with AVX2 and not called as its baseline copy.

use super::binning::{BinThresholds, Binned};
use super::grow::Grower;
use super::tree::Tree;
use super::{loss, HistGradientBoosting};

/// The `max_iter` trees of a fit to the labels `y` from the raw prediction `baseline`:
/// the AVX2 copy when the CPU has AVX2, the baseline copy otherwise (same bits).
pub(super) fn trees(
    params: &HistGradientBoosting,
    binned: &Binned,
    thresholds: &BinThresholds,
    y: &[bool],
    baseline: f64,
) -> Vec<Tree> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        #[allow(
            unsafe_code,
            reason = "calling a #[target_feature] function: one of the crate's two unsafe blocks (the other: newton.rs)"
        )]
        // SAFETY: `trees_avx2` requires AVX2 only, and the CPU was just found to have it.
        return unsafe { trees_avx2(params, binned, thresholds, y, baseline) };
    }
    trees_portable(params, binned, thresholds, y, baseline)
}

/// [`trees_portable`] with AVX2 enabled.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn trees_avx2(
    params: &HistGradientBoosting,
    binned: &Binned,
    thresholds: &BinThresholds,
    y: &[bool],
    baseline: f64,
) -> Vec<Tree> {
    trees_portable(params, binned, thresholds, y, baseline)
}

/// The boosting iterations: per iteration the gradients and hessians at the current raw
/// predictions, then one tree grown on them, whose leaves are added to the raw predictions.
#[inline(always)]
pub(super) fn trees_portable(
    params: &HistGradientBoosting,
    binned: &Binned,
    thresholds: &BinThresholds,
    y: &[bool],
    baseline: f64,
) -> Vec<Tree> {
    let mut grower = Grower::new(params, binned, thresholds);
    // scikit-learn's raw predictions start as 0 + baseline: the baseline itself.
    let mut raw = vec![baseline; y.len()];
    let mut gradient_hessians = vec![[0.0f32; 2]; y.len()];
    let mut scratch = loss::Scratch::default();
    let mut trees = Vec::with_capacity(params.max_iter);
    for _ in 0..params.max_iter {
        loss::gradient_hessian(y, &raw, &mut scratch, &mut gradient_hessians);
        trees.push(grower.grow(&gradient_hessians, &mut raw));
    }
    trees
}
