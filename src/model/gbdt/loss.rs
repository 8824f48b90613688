//! The half binomial loss (log loss with a logit link), as scikit-learn's `_loss` computes
//! it: the starting raw prediction, the gradients and hessians stored as `f32`, and the
//! probabilities.
//!
//! scikit-learn calls the platform's `exp`/`log`/`log1p` (glibc on Linux); here they come
//! from the pure-Rust `libm` crate, identical on every CPU. Both are within an ulp of the
//! exact value, so the two can differ in the last bit of an `f64`; the gradients and hessians
//! are then rounded to `f32`, which hides such a difference unless it straddles an `f32`
//! rounding boundary (about one value in 2²⁹).

use crate::model::lanes::{exp_chunks, probabilities};

/// `raw_prediction > −37` picks scikit-learn's main branch of the gradient; below it,
/// `expit(raw) = exp(raw)` to double precision and scikit-learn uses that.
const EXP_BRANCH: f64 = -37.0;

/// The raw prediction of the intercept-only model (`HalfBinomialLoss.fit_intercept_only`):
/// the prevalence `n_pos / n` (numpy's mean of 0/1 labels: an exact integer sum, one
/// division), clipped to `[10ε, 1 − 10ε]`, through scipy's `logit`.
pub(super) fn baseline(n_pos: usize, n: usize) -> f64 {
    let prevalence = n_pos as f64 / n as f64;
    let eps = 10.0 * f64::EPSILON;
    logit(prevalence.max(eps).min(1.0 - eps))
}

/// scipy's `logit` (xsf `log_exp.h`): `log(x / (1 − x))` away from ½, and
/// `log1p(s) − log1p(−s)` with `s = 2(x − ½)` on `[0.3, 0.65]`, where it is more precise.
fn logit(x: f64) -> f64 {
    // xsf's `x < 0.3 || x > 0.65` (x is never NaN here).
    if !(0.3..=0.65).contains(&x) {
        libm::log(x / (1.0 - x))
    } else {
        let s = 2.0 * (x - 0.5);
        libm::log1p(s) - libm::log1p(-s)
    }
}

/// Buffers of [`gradient_hessian`], reused across iterations.
#[derive(Debug, Default)]
pub(super) struct Scratch {
    arguments: Vec<f64>,
    exps: Vec<f64>,
}

/// The gradient and hessian of the half binomial loss at every row's raw prediction
/// (`cgrad_hess_half_binomial`), computed in `f64` and stored as `f32` (scikit-learn's
/// `G_H_DTYPE`), `[g, h]` per row (the histograms read both at once): with `y ∈ {0, 1}`
/// and `e = exp(−raw)`, `g = ((1 − y) − y·e) / (1 + e)` and `h = e / (1 + e)²`; for
/// `raw <= −37`, `e = exp(raw)`, `g = e − y` and `h = e`. `(1 + e)²` is `(1 + e)·(1 + e)`:
/// C compilers turn Cython's `pow(1 + e, 2.0)` into that product, which is exactly rounded
/// either way.
///
/// Both branches are computed for every row and one is selected, which changes no bit
/// (each is the same operations on the same values) but lets the loop run in vector lanes.
/// Inlined into both copies of the boosting (`boost.rs`).
#[inline(always)]
pub(super) fn gradient_hessian(
    y: &[bool],
    raw: &[f64],
    scratch: &mut Scratch,
    gradient_hessians: &mut [[f32; 2]],
) {
    let n = raw.len();
    assert!(
        y.len() == n && gradient_hessians.len() == n,
        "one label and output per row"
    );
    scratch.arguments.clear();
    scratch
        .arguments
        .extend(raw.iter().map(|&r| if r > EXP_BRANCH { -r } else { r }));
    scratch.exps.resize(n, 0.0);
    // libm's exp bit for bit, in lanes (the logistic solver's vectorised copy), inlined.
    exp_chunks::<false>(&scratch.arguments, &mut scratch.exps);
    for (((gh, &label), &r), &e) in gradient_hessians
        .iter_mut()
        .zip(y)
        .zip(raw)
        .zip(&scratch.exps)
    {
        let yi = if label { 1.0 } else { 0.0 };
        let one_plus = 1.0 + e;
        let main = (((1.0 - yi) - yi * e) / one_plus, e / (one_plus * one_plus));
        let (g, h) = if r > EXP_BRANCH { main } else { (e - yi, e) };
        *gh = [g as f32, h as f32];
    }
}

/// scipy's `expit`, `1 / (1 + exp(−raw))`, of every raw prediction (`exp` from libm).
pub(super) fn expit(raw: Vec<f64>) -> Vec<f64> {
    probabilities(raw)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn baseline_is_the_log_odds_of_the_prevalence() {
        assert_eq!(baseline(1, 2), 0.0);
        assert!((baseline(1, 4) - libm::log(1.0 / 3.0)).abs() < 1e-15);
        assert!((baseline(3, 5) - libm::log(1.5)).abs() < 1e-15);
    }

    #[test]
    fn gradients_and_hessians_of_both_branches() {
        let y = [true, false, true, false];
        let raw = [0.0, 0.0, -40.0, 2.0];
        let mut gh = [[0.0f32; 2]; 4];
        gradient_hessian(&y, &raw, &mut Scratch::default(), &mut gh);
        let (g, h): (Vec<f32>, Vec<f32>) = gh.iter().map(|&[g, h]| (g, h)).unzip();
        assert_eq!((g[0], h[0]), (-0.5, 0.25));
        assert_eq!((g[1], h[1]), (0.5, 0.25));
        let e = libm::exp(-40.0);
        assert_eq!((g[2], h[2]), ((e - 1.0) as f32, e as f32));
        let p = 1.0 / (1.0 + libm::exp(-2.0));
        assert!((f64::from(g[3]) - p).abs() < 1e-7);
        assert!((f64::from(h[3]) - p * (1.0 - p)).abs() < 1e-7);
    }
}
