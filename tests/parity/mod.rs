//! Parity with scikit-learn and pROC: goldens produced by the committed Python and R scripts
//! beside this file.

mod auc;
mod categorical;
mod cv;
mod gbdt;
mod int_ids;
mod logistic;
mod paired;
mod prepare;
mod repeated_cv;
mod shuffled_cv;

/// The largest absolute difference of two equally long slices.
fn max_abs_diff(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).fold(0.0, |m, (x, y)| m.max((x - y).abs()))
}
