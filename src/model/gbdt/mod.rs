//! Histogram gradient boosting for binary log loss with scikit-learn 1.9's
//! `HistGradientBoostingClassifier` semantics, bit-identical on every CPU.
//!
//! The algorithm is scikit-learn's, step for step, so that a fit reproduces its trees:
//! - features are binned once from the training rows ([`BinThresholds`]: midpoints between
//!   distinct values, or percentiles when a feature has more than `max_bins` of them);
//! - the start is the log-odds of the training prevalence, and every iteration fits one tree
//!   to the gradients and hessians of the half binomial loss, stored as `f32` as scikit-learn
//!   stores them (`G_H_DTYPE`);
//! - a tree grows best-first by split gain up to `max_leaf_nodes` leaves, each node's
//!   histogram summed in `f64` over its rows in scikit-learn's partition order, the larger
//!   child's by subtraction; its leaves are Newton steps `−G/(H + λ)` times the learning rate;
//! - a new row goes left at a split when its value is `<=` the split's threshold, and its
//!   probability is `1/(1 + exp(−raw))`.
//!
//! Where it differs from scikit-learn, and why, is in `docs/MODELS.md`: no subsample for the
//! binning (scikit-learn draws 2·10⁵ rows when there are more), no missing-value handling in
//! the fit (the kernel's tables hold no NaN or infinity: non-finite values are refused),
//! `exp`/`log` from the pure-Rust `libm` crate (scikit-learn calls the platform's), and one
//! thread (scikit-learn parallelises with OpenMP; its 1.9.1 results were measured not to
//! depend on the thread count, and its one-thread fit is the one reproduced here).
//!
//! Speed, without moving a bit (each file says why its choice keeps the bits): the columns
//! sorted by radix and binned by a walk along them (`sort.rs`, `binning.rs`); histograms
//! summed row by row over a row-major copy of the bins, sums and counts in separate arrays,
//! zeroed and subtracted over the bins in use only, the root's counts taken once
//! (`histogram.rs`); the split search in passes, its divisions in vector lanes (`split.rs`);
//! the partition without a branch per row and the larger child's subtraction skipped when it
//! is a leaf (`grow.rs`); and the boosting compiled a second time for AVX2 (`boost.rs`).
//!
//! Determinism: every sum runs in one fixed order (rows in index or partition order, bins in
//! index order, numpy's pairwise order where scikit-learn calls numpy), no threads, no
//! hashing, no `mul_add`, no platform float functions. A fit is a pure function of (the rows
//! in the given order, the labels, the parameters).

mod binning;
mod boost;
mod grow;
mod heap;
mod histogram;
mod linfa;
mod loss;
mod predict;
mod sort;
mod split;
#[cfg(test)]
mod tests;
mod tree;

pub use binning::BinThresholds;
use binning::Binned;
pub use tree::{Node, Split, Tree};

use super::Matrix;
use crate::error::{Error, Result};

/// Hyper-parameters of [`HistGradientBoosting::fit`], named and defaulted as scikit-learn's
/// `HistGradientBoostingClassifier` (`max_depth=None`, no early stopping, no feature
/// subsampling, no monotonic or interaction constraints: those are not offered).
#[derive(Debug, Clone, PartialEq)]
pub struct HistGradientBoosting {
    /// Shrinkage of every leaf value; finite and > 0. Default 0.1.
    pub learning_rate: f64,
    /// Boosting iterations: one tree each (no early stopping); ≥ 1. Default 100.
    pub max_iter: usize,
    /// The most leaves a tree may have; ≥ 2. Default 31.
    pub max_leaf_nodes: usize,
    /// The fewest training rows a leaf may hold; ≥ 1. Default 20.
    pub min_samples_leaf: usize,
    /// L2 penalty `λ` on leaf values (`−G/(H + λ)`); finite and ≥ 0. Default 0.
    pub l2_regularization: f64,
    /// The most bins a feature is cut into; 2 to 255 (a bin index is a `u8`). Default 255.
    pub max_bins: usize,
}

/// scikit-learn's defaults.
impl Default for HistGradientBoosting {
    fn default() -> Self {
        HistGradientBoosting {
            learning_rate: 0.1,
            max_iter: 100,
            max_leaf_nodes: 31,
            min_samples_leaf: 20,
            l2_regularization: 0.0,
            max_bins: 255,
        }
    }
}

/// scikit-learn's `min_hessian_to_split`: a split whose child would have a hessian sum below
/// this is not considered (the estimator offers no way to change it).
pub const MIN_HESSIAN_TO_SPLIT: f64 = 1e-3;

/// A fitted model: the bin thresholds, the start and the trees.
#[derive(Debug, Clone, PartialEq)]
pub struct FittedGbdt {
    thresholds: BinThresholds,
    baseline: f64,
    trees: Vec<Tree>,
}

impl HistGradientBoosting {
    /// Errors (naming the parameter and its range) unless every parameter is in the range
    /// scikit-learn accepts, finite where scikit-learn would accept infinity.
    pub fn validate(&self) -> Result<()> {
        let invalid = |what: String| Err(Error::invalid(format!("gradient boosting: {what}")));
        if !(self.learning_rate.is_finite() && self.learning_rate > 0.0) {
            return invalid(format!(
                "learning_rate must be finite and > 0, got {}",
                self.learning_rate
            ));
        }
        if self.max_iter < 1 {
            return invalid(format!("max_iter must be >= 1, got {}", self.max_iter));
        }
        if self.max_leaf_nodes < 2 {
            return invalid(format!(
                "max_leaf_nodes must be >= 2, got {}",
                self.max_leaf_nodes
            ));
        }
        if self.min_samples_leaf < 1 {
            return invalid(format!(
                "min_samples_leaf must be >= 1, got {}",
                self.min_samples_leaf
            ));
        }
        if !(self.l2_regularization.is_finite() && self.l2_regularization >= 0.0) {
            return invalid(format!(
                "l2_regularization must be finite and >= 0, got {}",
                self.l2_regularization
            ));
        }
        if !(2..=255).contains(&self.max_bins) {
            return invalid(format!(
                "max_bins must be in 2..=255, got {}",
                self.max_bins
            ));
        }
        Ok(())
    }

    /// Bins `x`, then fits `max_iter` trees to the log loss of `y` (`true` is the positive
    /// class).
    ///
    /// Errors (never panics) when a parameter is out of range ([`HistGradientBoosting::validate`]),
    /// `x` has no rows or no columns or more than `u32::MAX` rows (scikit-learn counts rows
    /// as `u32`), `y.len() != x.rows()`, `y` holds one class only (as
    /// [`super::LogisticRegression::fit`]: a one-class fit is no classifier), or any value of
    /// `x` is not finite (the kernel's tables hold no missing values, so there is no missing
    /// bin).
    pub fn fit(&self, x: &Matrix, y: &[bool]) -> Result<FittedGbdt> {
        self.validate()?;
        let n_pos = check_data(x, y)?;
        let (thresholds, binned) = BinThresholds::fit_and_bin(x, self.max_bins);
        Ok(self.boost(thresholds, &binned, y, n_pos))
    }

    /// The training rows `x` binned for fits under any labels ([`HistGradientBoosting::fit_binned`]):
    /// binning reads the feature values only, so a fold fitted under many labellings (a
    /// permutation null) bins its rows once. Errors as [`HistGradientBoosting::fit`] does on
    /// the values (no rows or columns, too many rows, a value that is not finite).
    pub fn bin(&self, x: &Matrix) -> Result<BinnedRows> {
        self.validate()?;
        check_values(x)?;
        let (thresholds, binned) = BinThresholds::fit_and_bin(x, self.max_bins);
        Ok(BinnedRows { thresholds, binned })
    }

    /// [`HistGradientBoosting::fit`] on rows binned by [`HistGradientBoosting::bin`]: the
    /// same trees, bit for bit (the same binning, then the same boosting).
    pub fn fit_binned(&self, rows: &BinnedRows, y: &[bool]) -> Result<FittedGbdt> {
        self.validate()?;
        let n_pos = check_labels(rows.binned.rows(), y)?;
        Ok(self.boost(rows.thresholds.clone(), &rows.binned, y, n_pos))
    }

    /// The trees on binned rows whose labels were checked (`n_pos` positive).
    fn boost(
        &self,
        thresholds: BinThresholds,
        binned: &Binned,
        y: &[bool],
        n_pos: usize,
    ) -> FittedGbdt {
        let baseline = loss::baseline(n_pos, y.len());
        let trees = boost::trees(self, binned, &thresholds, y, baseline);
        FittedGbdt {
            thresholds,
            baseline,
            trees,
        }
    }
}

/// Training rows binned once, for fits under any labels.
#[derive(Debug, Clone)]
pub struct BinnedRows {
    thresholds: BinThresholds,
    binned: Binned,
}

/// The checks of [`HistGradientBoosting::fit`] that do not look at feature values, in the
/// order `fit` makes them: rows, one label per row, two classes; the number of positive
/// labels.
pub(crate) fn check_labels(rows: usize, y: &[bool]) -> Result<usize> {
    let invalid = |what: String| Err(Error::invalid(format!("gradient boosting: {what}")));
    if rows == 0 {
        return invalid("no training rows".to_owned());
    }
    if y.len() != rows {
        return invalid(format!("{} labels for {rows} rows", y.len()));
    }
    let n_pos = y.iter().filter(|&&v| v).count();
    if n_pos == 0 || n_pos == y.len() {
        return invalid(format!(
            "the training labels hold one class only ({} rows, all {})",
            y.len(),
            n_pos != 0
        ));
    }
    Ok(n_pos)
}

/// The checks of [`HistGradientBoosting::fit`] on its data; the number of positive labels.
fn check_data(x: &Matrix, y: &[bool]) -> Result<usize> {
    let n_pos = check_labels(x.rows(), y)?;
    check_values(x)?;
    Ok(n_pos)
}

/// The checks of [`HistGradientBoosting::fit`] on the feature values, in its order (after
/// the labels').
fn check_values(x: &Matrix) -> Result<()> {
    let invalid = |what: String| Err(Error::invalid(format!("gradient boosting: {what}")));
    if x.rows() == 0 {
        return invalid("no training rows".to_owned());
    }
    if x.cols() == 0 {
        return invalid("no features".to_owned());
    }
    if u32::try_from(x.rows()).is_err() {
        return invalid(format!(
            "{} training rows, more than {}",
            x.rows(),
            u32::MAX
        ));
    }
    if let Some(at) = x.as_slice().iter().position(|v| !v.is_finite()) {
        return invalid(format!(
            "feature value {} at row index {}, column index {} is not finite",
            x.as_slice()[at],
            at / x.cols(),
            at % x.cols()
        ));
    }
    Ok(())
}

impl FittedGbdt {
    /// The bin thresholds learned from the training rows (scikit-learn's
    /// `_bin_mapper.bin_thresholds_`).
    pub fn bin_thresholds(&self) -> &BinThresholds {
        &self.thresholds
    }

    /// The raw prediction every row starts from: the log-odds of the training prevalence
    /// (scikit-learn's `_baseline_prediction`).
    pub fn baseline(&self) -> f64 {
        self.baseline
    }

    /// The trees, one per iteration, in fitting order (scikit-learn's `_predictors[i][0]`).
    pub fn trees(&self) -> &[Tree] {
        &self.trees
    }

    /// The number of features the model was fitted on.
    pub fn features(&self) -> usize {
        self.thresholds.features()
    }
}
