//! Per-node histograms of gradient and hessian sums (scikit-learn's `histogram.pyx`), and
//! numpy's pairwise sum, which scikit-learn applies to the root's histogram.
//!
//! Order is what fixes the bits: a bin's sums start at 0 and add the `f32` gradients and
//! hessians, widened to `f64`, of the node's rows in the order scikit-learn visits them —
//! index order at the root, the partition order of `grow.rs` below it. (scikit-learn unrolls
//! its loop by four rows; within one bin the additions keep row order, so the unrolling
//! changes no bits.) The larger child's histogram is its parent's minus its sibling's, bin by
//! bin, as in scikit-learn.

use super::binning::Binned;

/// Bin slots per feature: every `u8` bin, so that indexing by a bin needs no bounds check.
/// Slots past a feature's bins stay zero.
pub(super) const BIN_SLOTS: usize = 256;

/// One bin of a histogram (scikit-learn's `hist_struct`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct Bin {
    /// The sum of the bin's rows' gradients.
    pub(super) sum_gradients: f64,
    /// The sum of the bin's rows' hessians.
    pub(super) sum_hessians: f64,
    /// The bin's rows.
    pub(super) count: u32,
}

/// A node's histograms, one per feature.
#[derive(Debug, Clone)]
pub(super) struct Histograms {
    features: Vec<[Bin; BIN_SLOTS]>,
}

impl Histograms {
    /// Histograms of `n_features` features, every bin zero.
    pub(super) fn new(n_features: usize) -> Self {
        Histograms {
            features: vec![[Bin::default(); BIN_SLOTS]; n_features],
        }
    }

    /// Feature `k`'s bins.
    pub(super) fn feature(&self, k: usize) -> &[Bin; BIN_SLOTS] {
        &self.features[k]
    }

    /// The root's histograms (`_build_histogram_root`): every row in index order.
    pub(super) fn build_root(&mut self, binned: &Binned, gradients: &[f32], hessians: &[f32]) {
        for (k, hist) in self.features.iter_mut().enumerate() {
            *hist = [Bin::default(); BIN_SLOTS];
            for ((&b, &g), &h) in binned.column(k).iter().zip(gradients).zip(hessians) {
                let bin = &mut hist[usize::from(b)];
                bin.sum_gradients += f64::from(g);
                bin.sum_hessians += f64::from(h);
                bin.count += 1;
            }
        }
    }

    /// A node's histograms (`_build_histogram`): its rows `indices` in partition order, with
    /// their gradients and hessians gathered in that order beforehand (scikit-learn's
    /// `ordered_gradients`), so that only the bins are read at random.
    pub(super) fn build(
        &mut self,
        binned: &Binned,
        indices: &[u32],
        ordered_gradients: &[f32],
        ordered_hessians: &[f32],
    ) {
        for (k, hist) in self.features.iter_mut().enumerate() {
            *hist = [Bin::default(); BIN_SLOTS];
            let column = binned.column(k);
            for ((&i, &g), &h) in indices.iter().zip(ordered_gradients).zip(ordered_hessians) {
                let bin = &mut hist[usize::from(column[i as usize])];
                bin.sum_gradients += f64::from(g);
                bin.sum_hessians += f64::from(h);
                bin.count += 1;
            }
        }
    }

    /// `self −= sibling`, bin by bin (`_subtract_histograms`): a parent's histograms become
    /// those of the child whose sibling is `sibling`.
    pub(super) fn subtract(&mut self, sibling: &Histograms) {
        for (hist, other) in self.features.iter_mut().zip(&sibling.features) {
            for (a, b) in hist.iter_mut().zip(other) {
                a.sum_gradients -= b.sum_gradients;
                a.sum_hessians -= b.sum_hessians;
                a.count -= b.count;
            }
        }
    }
}

/// numpy's `np.add.reduce` of a float64 array: the identity `0.0` plus numpy's pairwise
/// sum of the values (`@TYPE@_pairwise_sum` in `loops_utils.h.src`). scikit-learn's
/// `TreeGrower._initialize_root` takes the root's gradient and hessian totals this way, over
/// feature 0's histogram including its missing-value bin (`n_bins = max_bins + 1` entries),
/// so the number of entries matters: it fixes the pairing.
pub(super) fn numpy_sum(values: &[f64]) -> f64 {
    0.0 + pairwise_sum(values)
}

/// Below 8 values a plain loop (from `−0.0`, as numpy 2); up to 128 eight accumulators
/// `r[j]` over values `j, j + 8, …`, combined as `((r0 + r1) + (r2 + r3)) + ((r4 + r5) +
/// (r6 + r7))`, then the remainder added one by one; above, the two halves (the first a
/// multiple of 8) summed recursively.
fn pairwise_sum(a: &[f64]) -> f64 {
    let n = a.len();
    if n < 8 {
        let mut res = -0.0;
        for &v in a {
            res += v;
        }
        res
    } else if n <= 128 {
        let mut r: [f64; 8] = a[..8].try_into().expect("8 values");
        let whole = n - n % 8;
        let mut i = 8;
        while i < whole {
            for (j, rj) in r.iter_mut().enumerate() {
                *rj += a[i + j];
            }
            i += 8;
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for &v in &a[whole..] {
            res += v;
        }
        res
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        pairwise_sum(&a[..n2]) + pairwise_sum(&a[n2..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values whose sum depends on the order of additions: `1e16 + 1 + 1 + …` rounds each
    /// `+1` away in a left-to-right loop, while pairwise sums add the ones first.
    #[test]
    fn numpy_sum_pairs_as_numpy_does() {
        // numpy 2.4.6: np.add.reduce(np.array([1e16] + [1.0] * 255)) == 1.000000000000024e16
        // (most ones meet each other in the accumulators before they meet 1e16).
        let mut values = vec![1.0; 256];
        values[0] = 1e16;
        assert_eq!(numpy_sum(&values), 1.000_000_000_000_024e16);
        let mut plain = 0.0;
        for v in &values {
            plain += v;
        }
        assert_eq!(plain, 1e16);
        assert_eq!(numpy_sum(&[1.0, 2.0, 3.0]), 6.0);
    }

    #[test]
    fn subtraction_leaves_the_siblings_histogram() {
        let mut parent = Histograms::new(1);
        let mut child = Histograms::new(1);
        parent.features[0][3] = Bin {
            sum_gradients: 1.5,
            sum_hessians: 0.75,
            count: 3,
        };
        child.features[0][3] = Bin {
            sum_gradients: 0.5,
            sum_hessians: 0.25,
            count: 1,
        };
        parent.subtract(&child);
        assert_eq!(
            parent.feature(0)[3],
            Bin {
                sum_gradients: 1.0,
                sum_hessians: 0.5,
                count: 2
            }
        );
    }
}
