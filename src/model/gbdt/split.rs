//! The best split of a node from its histograms: scikit-learn's `Splitter.find_node_split`
//! for numerical features without missing values (`splitting.pyx`), with its gain formula
//! (`_split_gain`, `_loss_from_value`, `compute_node_value`) and its tie rules.
//!
//! Ties: within a feature the bins are scanned left to right and a bin replaces the best
//! only with a strictly greater gain, so the first of equal gains wins; across features the
//! same rule, feature 0 first. Monotonic constraints are not offered, so the value bounds
//! are ±∞ and never clip.
//!
//! scikit-learn computes each bin's gain inside its scan. Here the search runs in three
//! passes over the node, which find the same split with the same bits:
//! 1. per feature, the running sums of the scan, exactly as scikit-learn adds them, and its
//!    `continue`/`break` tests; each bin that passes them is written down as one of the
//!    feature's candidates (bin, left sums), without a branch (written always, kept by
//!    moving the count on). An *empty* bin (no rows, both sums zero) is not kept: it leaves
//!    the running sums bit for bit as they were (`x + 0 = x`, and a running sum starting at
//!    `+0` is never `−0`), so its tests come out as the previous bin's and its gain, if
//!    valid, equals the previous bin's, which a strictly greater test never prefers. Below
//!    the root many bins of a small node are empty; not keeping them saves their two
//!    divisions each.
//! 2. every candidate's gain, with the same operations as scikit-learn's on the same
//!    values; the candidates are independent, so this loop runs in vector lanes (two
//!    divisions a bin, 4 lanes in the AVX2 copy of `boost.rs`), where a scan bin by bin
//!    leaves them waiting on each other's branches.
//! 3. the first candidate of greatest positive gain, in scan order (feature 0 first, bins
//!    left to right), by scikit-learn's strictly-greater test: within a feature that is the
//!    bin scikit-learn keeps, and across features the feature it keeps (the first to reach
//!    the greatest gain).

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

/// The constraints a split must satisfy, the penalty, and the search's buffers.
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
    /// The candidate splits of the node being searched, per feature.
    candidates: Vec<Candidates>,
}

/// One feature's candidate splits, in scan order: the bins that passed the scan's tests,
/// the running sums `[G_L, H_L]` there, and (pass 2) their gains. Fixed arrays of one
/// entry per possible bin, indexed by a `u8`, so that writing entry `len` needs no bounds
/// check (a feature has at most 254 candidates).
#[derive(Debug, Clone)]
struct Candidates {
    len: usize,
    bin: [u8; 256],
    sums_left: [[f64; 2]; 256],
    gain: [f64; 256],
}

impl Default for Candidates {
    fn default() -> Self {
        Candidates {
            len: 0,
            bin: [0; 256],
            sums_left: [[0.0; 2]; 256],
            gain: [0.0; 256],
        }
    }
}

/// A node's value `−G / (H + λ + 10⁻¹⁵)` (`compute_node_value`; the 10⁻¹⁵ keeps a zero
/// hessian sum from dividing by zero), before shrinkage, summed left to right as written.
#[inline(always)]
pub(super) fn node_value(sum_gradient: f64, sum_hessian: f64, l2_regularization: f64) -> f64 {
    -sum_gradient / (sum_hessian + l2_regularization + 1e-15)
}

impl Splitter {
    /// A splitter for features of `n_bins` bins each, with scikit-learn's
    /// `min_hessian_to_split`.
    pub(super) fn new(n_bins: Vec<usize>, l2_regularization: f64, min_samples_leaf: usize) -> Self {
        let candidates = vec![Candidates::default(); n_bins.len()];
        Splitter {
            n_bins,
            l2_regularization,
            min_samples_leaf,
            min_hessian_to_split: super::MIN_HESSIAN_TO_SPLIT,
            candidates,
        }
    }

    /// The best split of a node of `n_samples` rows with histograms `histograms`, sums
    /// `sum_gradients`/`sum_hessians` and (unshrunk) value `value`; gain −1 if none.
    ///
    /// The node's own loss term is `sum_gradients · value` with its *stored* value, as in
    /// scikit-learn: the root's value is 0, so the root's gains omit that term.
    #[inline(always)]
    pub(super) fn find_node_split(
        &mut self,
        n_samples: u32,
        histograms: &Histograms,
        sum_gradients: f64,
        sum_hessians: f64,
        value: f64,
    ) -> SplitInfo {
        let loss_current_node = sum_gradients * value;
        let l2 = self.l2_regularization;
        let (min_samples_leaf, min_hessian) = (self.min_samples_leaf, self.min_hessian_to_split);
        // `_find_best_feature_to_split_helper` over `_find_best_bin_to_split_left_to_right`:
        // a strictly greater gain replaces the best, and min_gain_to_split is 0.
        let mut best: Option<(usize, usize)> = None;
        let mut best_gain = -1.0;
        for (feature, (c, &n_bins)) in self.candidates.iter_mut().zip(&self.n_bins).enumerate() {
            let hist = histograms.feature(feature);
            scan(
                c,
                &hist.sums[..n_bins - 1],
                &hist.counts[..n_bins - 1],
                n_samples,
                sum_hessians,
                min_samples_leaf,
                min_hessian,
            );
            gains(c, sum_gradients, sum_hessians, loss_current_node, l2);
            for (at, &gain) in c.gain[..c.len].iter().enumerate() {
                if gain > best_gain && gain > 0.0 {
                    best_gain = gain;
                    best = Some((feature, at));
                }
            }
        }
        let Some((feature, at)) = best else {
            // Every feature's gain is −1: scikit-learn keeps feature 0's.
            return no_split(0);
        };
        let c = &self.candidates[feature];
        let [sum_gradient_left, sum_hessian_left] = c.sums_left[at];
        let sum_gradient_right = sum_gradients - sum_gradient_left;
        let sum_hessian_right = sum_hessians - sum_hessian_left;
        SplitInfo {
            gain: best_gain,
            feature,
            bin: c.bin[at],
            sum_gradient_left,
            sum_gradient_right,
            sum_hessian_left,
            sum_hessian_right,
            value_left: node_value(sum_gradient_left, sum_hessian_left, l2),
            value_right: node_value(sum_gradient_right, sum_hessian_right, l2),
        }
    }
}

/// Pass 1 for one feature: scikit-learn's scan of bins `0 .. n_bins − 1` (`sums`, `counts`;
/// a split on the last bin would leave the right child empty) with its running sums and tests,
/// keeping the bins that pass them as `c`'s candidates.
#[inline(always)]
fn scan(
    c: &mut Candidates,
    sums: &[[f64; 2]],
    counts: &[u32],
    n_samples: u32,
    sum_hessians: f64,
    min_samples_leaf: usize,
    min_hessian: f64,
) {
    let mut len: u8 = 0;
    let mut sums_left = [0.0f64; 2];
    let mut n_left: u32 = 0;
    for (bin, (&[g, h], &count)) in sums.iter().zip(counts).enumerate() {
        // An empty bin changes nothing (module comment): its sums are added (they leave the
        // running sums as they were, so it cannot break the scan where the previous bin did
        // not), but it is not kept. Tested without a branch, which would be mispredicted in
        // a node where bins are as often empty as not.
        let empty = count == 0 && g == 0.0 && h == 0.0;
        n_left += count;
        let n_right = n_samples - n_left;
        sums_left[0] += g;
        sums_left[1] += h;
        let sum_hessian_right = sum_hessians - sums_left[1];
        // scikit-learn's tests in its order: `continue` on too few rows or too small a
        // hessian on the left; `break` on the right (both only shrink as the scan goes on:
        // a later bin could pass neither).
        let few_left = (n_left as usize) < min_samples_leaf;
        let few_right = (n_right as usize) < min_samples_leaf;
        let light_left = sums_left[1] < min_hessian;
        let light_right = sum_hessian_right < min_hessian;
        if !few_left && (few_right || (!light_left && light_right)) {
            break;
        }
        // Written every time, kept (by moving `len` on) only if it passed: no branch.
        c.bin[usize::from(len)] = bin as u8;
        c.sums_left[usize::from(len)] = sums_left;
        len += u8::from(!few_left & !light_left & !empty);
    }
    c.len = usize::from(len);
}

/// Pass 2: `_split_gain` of `c`'s candidates — the node's loss minus its children's, each
/// loss `G·value` with the child's value, subtracted in scikit-learn's order; the right
/// sums are the node's minus the left ones, as in the scan.
#[inline(always)]
fn gains(
    c: &mut Candidates,
    sum_gradients: f64,
    sum_hessians: f64,
    loss_current_node: f64,
    l2: f64,
) {
    for (gain, &[sum_gradient_left, sum_hessian_left]) in
        c.gain[..c.len].iter_mut().zip(&c.sums_left[..c.len])
    {
        let sum_gradient_right = sum_gradients - sum_gradient_left;
        let sum_hessian_right = sum_hessians - sum_hessian_left;
        let value_left = node_value(sum_gradient_left, sum_hessian_left, l2);
        let value_right = node_value(sum_gradient_right, sum_hessian_right, l2);
        let mut g = loss_current_node;
        g -= sum_gradient_left * value_left;
        g -= sum_gradient_right * value_right;
        *gain = g;
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
