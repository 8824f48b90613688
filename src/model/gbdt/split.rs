//! The best split of a node from its histograms: scikit-learn's `Splitter.find_node_split`
//! for numerical features without missing values (`splitting.pyx`), with its gain formula
//! (`_split_gain`, `_loss_from_value`, `compute_node_value`) and its tie rules.
//!
//! Ties: within a feature the bins are scanned left to right and a bin replaces the best
//! only with a strictly greater gain, so the first of equal gains wins; across features the
//! same rule, feature 0 first. Monotonic constraints are not offered, so the value bounds
//! are ±∞ and never clip.

use super::histogram::Histograms;

/// A node's best split (scikit-learn's `split_info_struct`), or none when `gain` is −1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct SplitInfo {
    /// The loss reduction; −1 when no split satisfies the constraints.
    pub(super) gain: f64,
    /// The feature split on.
    pub(super) feature: usize,
    /// Rows with a bin `<= bin` go left.
    pub(super) bin: u8,
    /// The left child's gradient sum (the running sum of the scan).
    pub(super) sum_gradient_left: f64,
    /// The right child's: the node's sum minus the left child's.
    pub(super) sum_gradient_right: f64,
    /// The left child's hessian sum.
    pub(super) sum_hessian_left: f64,
    /// The right child's: the node's sum minus the left child's.
    pub(super) sum_hessian_right: f64,
    /// The left child's unshrunk value.
    pub(super) value_left: f64,
    /// The right child's unshrunk value.
    pub(super) value_right: f64,
}

/// The constraints a split must satisfy, and the penalty.
#[derive(Debug, Clone)]
pub(super) struct Splitter {
    /// Bins in use per feature (thresholds + 1): scikit-learn's `n_bins_non_missing`.
    pub(super) n_bins: Vec<usize>,
    /// `λ` of `−G/(H + λ)`.
    pub(super) l2_regularization: f64,
    /// The fewest rows in either child.
    pub(super) min_samples_leaf: usize,
    /// The smallest hessian sum in either child.
    pub(super) min_hessian_to_split: f64,
}

/// A node's value `−G / (H + λ + 10⁻¹⁵)` (`compute_node_value`; the 10⁻¹⁵ keeps a zero
/// hessian sum from dividing by zero), before shrinkage, summed left to right as written.
pub(super) fn node_value(sum_gradient: f64, sum_hessian: f64, l2_regularization: f64) -> f64 {
    -sum_gradient / (sum_hessian + l2_regularization + 1e-15)
}

impl Splitter {
    /// The best split of a node of `n_samples` rows with histograms `histograms`, sums
    /// `sum_gradients`/`sum_hessians` and (unshrunk) value `value`; gain −1 if none.
    ///
    /// The node's own loss term is `sum_gradients · value` with its *stored* value, as in
    /// scikit-learn: the root's value is 0, so the root's gains omit that term.
    pub(super) fn find_node_split(
        &self,
        n_samples: u32,
        histograms: &Histograms,
        sum_gradients: f64,
        sum_hessians: f64,
        value: f64,
    ) -> SplitInfo {
        // `_find_best_feature_to_split_helper`: feature 0 first, a strictly greater gain
        // replaces the best; a feature without a valid split has gain −1.
        let candidate = |feature| {
            self.best_bin(
                feature,
                n_samples,
                histograms,
                sum_gradients,
                sum_hessians,
                value,
            )
            .unwrap_or_else(|| no_split(feature))
        };
        let mut best = candidate(0);
        for feature in 1..self.n_bins.len() {
            let split = candidate(feature);
            if split.gain > best.gain {
                best = split;
            }
        }
        best
    }

    /// `_find_best_bin_to_split_left_to_right` for one feature: bins `0 .. n_bins − 1`
    /// (a split on the last bin would leave the right child empty).
    fn best_bin(
        &self,
        feature: usize,
        n_samples: u32,
        histograms: &Histograms,
        sum_gradients: f64,
        sum_hessians: f64,
        value: f64,
    ) -> Option<SplitInfo> {
        let hist = histograms.feature(feature);
        let end = self.n_bins[feature] - 1;
        let loss_current_node = sum_gradients * value;
        let (mut sum_gradient_left, mut sum_hessian_left) = (0.0, 0.0);
        let mut n_left: u32 = 0;
        let mut best_gain = -1.0;
        let mut best: Option<(u8, f64, f64)> = None;
        for (bin, h) in hist.iter().enumerate().take(end) {
            n_left += h.count;
            let n_right = n_samples - n_left;
            sum_hessian_left += h.sum_hessians;
            let sum_hessian_right = sum_hessians - sum_hessian_left;
            sum_gradient_left += h.sum_gradients;
            let sum_gradient_right = sum_gradients - sum_gradient_left;
            if (n_left as usize) < self.min_samples_leaf {
                continue;
            }
            if (n_right as usize) < self.min_samples_leaf {
                break; // it only shrinks
            }
            if sum_hessian_left < self.min_hessian_to_split {
                continue;
            }
            if sum_hessian_right < self.min_hessian_to_split {
                break; // hessians are positive: it only shrinks
            }
            let gain = self.split_gain(
                sum_gradient_left,
                sum_hessian_left,
                sum_gradient_right,
                sum_hessian_right,
                loss_current_node,
            );
            // min_gain_to_split is 0.
            if gain > best_gain && gain > 0.0 {
                best_gain = gain;
                let bin = u8::try_from(bin).expect("bins are u8");
                best = Some((bin, sum_gradient_left, sum_hessian_left));
            }
        }
        best.map(|(bin, sum_gradient_left, sum_hessian_left)| {
            let sum_gradient_right = sum_gradients - sum_gradient_left;
            let sum_hessian_right = sum_hessians - sum_hessian_left;
            SplitInfo {
                gain: best_gain,
                feature,
                bin,
                sum_gradient_left,
                sum_gradient_right,
                sum_hessian_left,
                sum_hessian_right,
                value_left: node_value(sum_gradient_left, sum_hessian_left, self.l2_regularization),
                value_right: node_value(
                    sum_gradient_right,
                    sum_hessian_right,
                    self.l2_regularization,
                ),
            }
        })
    }

    /// `_split_gain`: the node's loss minus its children's, each loss `G·value` with the
    /// child's value, subtracted in scikit-learn's order.
    fn split_gain(
        &self,
        sum_gradient_left: f64,
        sum_hessian_left: f64,
        sum_gradient_right: f64,
        sum_hessian_right: f64,
        loss_current_node: f64,
    ) -> f64 {
        let value_left = node_value(sum_gradient_left, sum_hessian_left, self.l2_regularization);
        let value_right = node_value(
            sum_gradient_right,
            sum_hessian_right,
            self.l2_regularization,
        );
        let mut gain = loss_current_node;
        gain -= sum_gradient_left * value_left;
        gain -= sum_gradient_right * value_right;
        gain
    }
}

/// The split info of a feature with no valid split: only the gain (−1) and feature are set,
/// as in scikit-learn (the rest is never read).
fn no_split(feature: usize) -> SplitInfo {
    SplitInfo {
        gain: -1.0,
        feature,
        bin: 0,
        sum_gradient_left: 0.0,
        sum_gradient_right: 0.0,
        sum_hessian_left: 0.0,
        sum_hessian_right: 0.0,
        value_left: 0.0,
        value_right: 0.0,
    }
}
