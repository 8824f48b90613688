//! Per-node histograms of gradient and hessian sums (scikit-learn's `histogram.pyx`), and
//! numpy's pairwise sum, which scikit-learn applies to the root's histogram.
//!
//! Order is what fixes the bits: a bin's sums start at 0 and add the `f32` gradients and
//! hessians, widened to `f64`, of the node's rows in the order scikit-learn visits them —
//! index order at the root, the partition order of `grow.rs` below it. The larger child's
//! histogram is its parent's minus its sibling's, bin by bin, as in scikit-learn.
//!
//! What is free to change is everything that does not reorder one bin's additions:
//! - **rows outside, features inside** ([`add_rows`]): scikit-learn loops over features,
//!   then rows; here every row adds itself to every feature's histogram, reading its bins
//!   from the row-major copy of the binned matrix (`binning.rs`): one cache line for a row
//!   picked at random below the root, where a column per feature costs a line each. A bin
//!   still sees its rows in the same order (rows are visited in order, each once), and the
//!   additions of one row go to different histograms, so they are independent and overlap
//!   in the pipeline, where a feature-by-feature loop stalls whenever consecutive rows share
//!   a bin (the next addition waits for the last one's store).
//! - **only the bins in use**: a feature with `t` thresholds has `t + 1` bins; zeroing and
//!   subtracting stop there (the split scan too, `split.rs`) instead of running over all
//!   256 slots, which is most of the work for a node of few rows or a feature of few values.
//!   The slots past a feature's bins are never written and stay zero.
//! - **sums and counts apart**: scikit-learn's `hist_struct` is one record per bin; here a
//!   feature's `[G, H]` pairs are one array and its counts another, so that zeroing,
//!   subtracting and the split scan run over plain arrays (vector instructions, no padding)
//!   and one addition adds both sums of a row at once.
//! - **the root's counts once**: every tree's root counts every row in the same bins; those
//!   counts are taken once per fit ([`RootCounts`]) and copied.
//!
//! No partial sums are combined anywhere: every bin is one running sum, as in scikit-learn.

use super::binning::Binned;

/// Bin slots per feature: every `u8` bin, so that indexing by a bin needs no bounds check.
/// Slots past a feature's bins are never written: they stay zero.
pub(super) const BIN_SLOTS: usize = 256;

/// Features summed together at the root: one pass over the rows' `[g, h]` feeds four
/// features' histograms (four independent additions per row instead of one dependent
/// chain), measured 0.74 → 0.42 ns per row and feature at 10⁵ × 30. Each bin still adds
/// its rows in index order, so every sum keeps its bits.
const ROOT_BLOCK: usize = 4;

/// A node's histograms (scikit-learn's `hist_struct` per feature and bin, its fields in two
/// arrays): per feature, the sums `[G, H]` of the gradients and hessians of each bin's rows,
/// and the number of those rows.
#[derive(Debug, Clone)]
pub(super) struct Histograms {
    sums: Vec<[[f64; 2]; BIN_SLOTS]>,
    counts: Vec<[u32; BIN_SLOTS]>,
}

/// One feature's histogram.
#[derive(Debug, Clone, Copy)]
pub(super) struct FeatureHistogram<'a> {
    /// `[G, H]` per bin.
    pub(super) sums: &'a [[f64; 2]; BIN_SLOTS],
    /// Rows per bin.
    pub(super) counts: &'a [u32; BIN_SLOTS],
}

impl Histograms {
    /// Histograms of `n_features` features, every bin zero.
    pub(super) fn new(n_features: usize) -> Self {
        Histograms {
            sums: vec![[[0.0; 2]; BIN_SLOTS]; n_features],
            counts: vec![[0; BIN_SLOTS]; n_features],
        }
    }

    /// Feature `k`'s histogram.
    pub(super) fn feature(&self, k: usize) -> FeatureHistogram<'_> {
        FeatureHistogram {
            sums: &self.sums[k],
            counts: &self.counts[k],
        }
    }

    /// The root's histograms (`_build_histogram_root`): every row in index order, its
    /// gradient and hessian `gradient_hessians[i]`. `n_bins[k]`: feature `k`'s bins. The
    /// counts are the same at every root (every row, the same bins): they are copied from
    /// `counts` instead of counted again.
    #[inline(always)]
    pub(super) fn build_root(
        &mut self,
        binned: &Binned,
        n_bins: &[usize],
        counts: &RootCounts,
        gradient_hessians: &[[f32; 2]],
    ) {
        for (((sums, counts), root), &used) in self
            .sums
            .iter_mut()
            .zip(&mut self.counts)
            .zip(&counts.0)
            .zip(n_bins)
        {
            sums[..used].fill([0.0; 2]);
            counts[..used].copy_from_slice(&root[..used]);
        }
        // Blocks of ROOT_BLOCK features, then the features left over one at a time.
        let mut blocks = self.sums.chunks_exact_mut(ROOT_BLOCK);
        let mut first = 0;
        for block in &mut blocks {
            let block: &mut [[[f64; 2]; BIN_SLOTS]; ROOT_BLOCK] =
                block.try_into().expect("ROOT_BLOCK histograms");
            let columns: [&[u8]; ROOT_BLOCK] = std::array::from_fn(|j| binned.column(first + j));
            for (i, &[g, h]) in gradient_hessians.iter().enumerate() {
                let (g, h) = (f64::from(g), f64::from(h));
                for (sums, column) in block.iter_mut().zip(&columns) {
                    let sum = &mut sums[usize::from(column[i])];
                    sum[0] += g;
                    sum[1] += h;
                }
            }
            first += ROOT_BLOCK;
        }
        for (k, sums) in blocks.into_remainder().iter_mut().enumerate() {
            for (&b, &[g, h]) in binned.column(first + k).iter().zip(gradient_hessians) {
                let sum = &mut sums[usize::from(b)];
                sum[0] += f64::from(g);
                sum[1] += f64::from(h);
            }
        }
    }

    /// A node's histograms (`_build_histogram`): its rows `indices` in partition order,
    /// with their gradients and hessians gathered in that order beforehand (scikit-learn's
    /// `ordered_gradients`), so that only the bins are read at random.
    #[inline(always)]
    pub(super) fn build(
        &mut self,
        binned: &Binned,
        n_bins: &[usize],
        indices: &[u32],
        ordered_gradient_hessians: &[[f32; 2]],
    ) {
        for ((sums, counts), &used) in self.sums.iter_mut().zip(&mut self.counts).zip(n_bins) {
            sums[..used].fill([0.0; 2]);
            counts[..used].fill(0);
        }
        add_rows::<true, _>(
            self,
            binned,
            indices
                .iter()
                .map(|&i| i as usize)
                .zip(ordered_gradient_hessians.iter().copied()),
        );
    }

    /// `self −= sibling` over the bins in use (`_subtract_histograms`): a parent's
    /// histograms become those of the child whose sibling is `sibling`.
    #[inline(always)]
    pub(super) fn subtract(&mut self, sibling: &Histograms, n_bins: &[usize]) {
        for ((sums, other), &used) in self.sums.iter_mut().zip(&sibling.sums).zip(n_bins) {
            for (a, b) in sums[..used].iter_mut().zip(&other[..used]) {
                a[0] -= b[0];
                a[1] -= b[1];
            }
        }
        for ((counts, other), &used) in self.counts.iter_mut().zip(&sibling.counts).zip(n_bins) {
            for (a, b) in counts[..used].iter_mut().zip(&other[..used]) {
                *a -= b;
            }
        }
    }
}

/// The rows of each (feature, bin) over the whole training set: the root's counts, the
/// same for every tree.
#[derive(Debug, Clone)]
pub(super) struct RootCounts(Vec<[u32; BIN_SLOTS]>);

impl RootCounts {
    /// The counts of `binned`'s bins.
    pub(super) fn new(binned: &Binned) -> Self {
        let counts = (0..binned.features())
            .map(|k| {
                let mut counts = [0u32; BIN_SLOTS];
                for &b in binned.column(k) {
                    counts[usize::from(b)] += 1;
                }
                counts
            })
            .collect();
        RootCounts(counts)
    }
}

/// Adds each row `(i, [g, h])` of `rows`, in order, to the bin of every feature's histogram
/// that row `i` falls in (and counts it there if `COUNT`): the row's bins are one read of the
/// row-major matrix, and its additions go to `p` different histograms. (Passes over blocks
/// of 4 or 8 features, to keep the histograms being written in the L1 cache, measured no
/// faster at 10⁴–10⁵ rows × 10–30 features: they read each row once per block.)
#[inline(always)]
fn add_rows<const COUNT: bool, I>(histograms: &mut Histograms, binned: &Binned, rows: I)
where
    I: Iterator<Item = (usize, [f32; 2])>,
{
    let p = binned.features();
    let bins = binned.row_major();
    for (i, [g, h]) in rows {
        let row = &bins[i * p..][..p];
        let (g, h) = (f64::from(g), f64::from(h));
        for ((sums, counts), &b) in histograms
            .sums
            .iter_mut()
            .zip(&mut histograms.counts)
            .zip(row)
        {
            let sum = &mut sums[usize::from(b)];
            sum[0] += g;
            sum[1] += h;
            if COUNT {
                counts[usize::from(b)] += 1;
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
        parent.sums[0][3] = [1.5, 0.75];
        parent.counts[0][3] = 3;
        child.sums[0][3] = [0.5, 0.25];
        child.counts[0][3] = 1;
        parent.subtract(&child, &[4]);
        assert_eq!(parent.feature(0).sums[3], [1.0, 0.5]);
        assert_eq!(parent.feature(0).counts[3], 2);
    }
}
