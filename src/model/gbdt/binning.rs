//! Bin thresholds per feature from the training rows, and the binned training matrix:
//! scikit-learn's `_BinMapper` (`binning.py`, `_find_binning_thresholds`, `_binning.pyx`).
//!
//! Two deliberate differences, both documented in `docs/MODELS.md`:
//! - scikit-learn computes the thresholds on a random subsample of 2·10⁵ rows when there are
//!   more; here every training row is used, so the thresholds are a function of the rows
//!   alone (no seed) and equal scikit-learn's whenever n ≤ 2·10⁵;
//! - scikit-learn keeps a last bin for missing values (NaN); the kernel's tables hold no
//!   missing or non-finite values (the fit refuses them), so no row ever lands in it and it
//!   is not represented. The histograms still have its slot, because scikit-learn's root sums
//!   run over it (see `histogram.rs`).

use super::sort::ColumnSort;
use super::Matrix;

/// scikit-learn's `ALMOST_INF`: thresholds are clipped to it (LightGBM's `AvoidInf`).
const ALMOST_INF: f64 = 1e300;

/// The bin thresholds of every feature, learned from the training rows.
///
/// A value `v` of feature `k` falls in bin `b` iff `thresholds[b − 1] < v <= thresholds[b]`
/// (bin 0 has no lower bound, the last bin no upper bound), so a feature with `t` thresholds
/// has `t + 1` bins; a constant feature has none and can never be split.
#[derive(Debug, Clone, PartialEq)]
pub struct BinThresholds {
    per_feature: Vec<Vec<f64>>,
}

/// The training matrix binned, in two layouts of `u8` bins (a bin index is at most 254):
/// - column-major, `columns[k·n + i]`: the partition of a node's rows reads one feature's
///   bins, from a column of `n` bytes that stays in cache (scikit-learn's Fortran-ordered
///   `X_binned`);
/// - row-major, `rows[i·p + k]`: a histogram pass reads every feature of a row, which is one
///   cache line for a row picked at random below the root, instead of `p` lines from `p`
///   columns; and it updates `p` different histograms per row, which overlap in the
///   pipeline (see `histogram.rs`).
///
/// Both hold the same bins; the copy costs `n·p` bytes.
#[derive(Debug, Clone)]
pub(super) struct Binned {
    n_rows: usize,
    n_features: usize,
    columns: Vec<u8>,
    rows: Vec<u8>,
}

impl Binned {
    /// The number of rows.
    pub(super) fn rows(&self) -> usize {
        self.n_rows
    }

    /// The number of features.
    pub(super) fn features(&self) -> usize {
        self.n_features
    }

    /// Feature `k`'s bins, one per row.
    pub(super) fn column(&self, k: usize) -> &[u8] {
        &self.columns[k * self.n_rows..(k + 1) * self.n_rows]
    }

    /// Every row's bins, row after row (`p` bins each).
    pub(super) fn row_major(&self) -> &[u8] {
        &self.rows
    }
}

impl BinThresholds {
    /// The thresholds of every column of `x` (finite values; checked by the fit) with at most
    /// `max_bins` (2..=255) bins each, and `x` binned by them: each column sorted once
    /// (`sort.rs`), its thresholds read from the sorted values, and its rows' bins from a
    /// walk along them (the number of thresholds below a value only grows as the values do).
    /// The same thresholds as [`BinThresholds::fit`] and the same bins as
    /// [`BinThresholds::bin_columns`], which the tests hold it to.
    pub(super) fn fit_and_bin(x: &Matrix, max_bins: usize) -> (BinThresholds, Binned) {
        let (n, p) = (x.rows(), x.cols());
        let mut sorter = ColumnSort::default();
        let mut sorted = Vec::with_capacity(n);
        let mut columns = vec![0u8; n * p];
        let mut per_feature = Vec::with_capacity(p);
        for k in 0..p {
            sorter.sort((0..n).map(|i| x.row(i)[k]));
            sorted.clear();
            sorted.extend(sorter.sorted().map(|(v, _)| v));
            let thresholds = thresholds_of_sorted(&sorted, max_bins);
            let column = &mut columns[k * n..(k + 1) * n];
            let mut bin = 0;
            for (v, row) in sorter.sorted() {
                while bin < thresholds.len() && thresholds[bin] < v {
                    bin += 1;
                }
                column[row as usize] = u8::try_from(bin).expect("at most 254 thresholds");
            }
            per_feature.push(thresholds);
        }
        (BinThresholds { per_feature }, Binned::new(n, p, columns))
    }

    /// The thresholds of every column of `x` (finite values) with at most `max_bins`
    /// (2..=255) bins each, by a comparison sort of each column: the reference for
    /// [`BinThresholds::fit_and_bin`].
    #[cfg(test)]
    pub(super) fn fit(x: &Matrix, max_bins: usize) -> BinThresholds {
        let mut column = Vec::with_capacity(x.rows());
        let per_feature = (0..x.cols())
            .map(|k| {
                column.clear();
                column.extend((0..x.rows()).map(|i| x.row(i)[k]));
                thresholds_of(&mut column, max_bins)
            })
            .collect();
        BinThresholds { per_feature }
    }

    /// The thresholds of feature `k`, increasing.
    ///
    /// # Panics
    /// If `k >= self.features()`.
    pub fn feature(&self, k: usize) -> &[f64] {
        &self.per_feature[k]
    }

    /// The number of features.
    pub fn features(&self) -> usize {
        self.per_feature.len()
    }

    /// The bin of value `v` of feature `k`: the number of thresholds below `v` (scikit-learn's
    /// binary search for the first threshold `>= v` finds the same index).
    ///
    /// # Panics
    /// If `k >= self.features()`.
    pub fn bin(&self, k: usize, v: f64) -> u8 {
        let b = self.per_feature[k].partition_point(|&t| t < v);
        u8::try_from(b).expect("at most 254 thresholds")
    }

    /// Every value of `x` binned, in both layouts, by a binary search per value: the
    /// reference for [`BinThresholds::fit_and_bin`].
    #[cfg(test)]
    pub(super) fn bin_columns(&self, x: &Matrix) -> Binned {
        let (n, p) = (x.rows(), x.cols());
        let mut columns = Vec::with_capacity(n * p);
        for k in 0..p {
            columns.extend((0..n).map(|i| self.bin(k, x.row(i)[k])));
        }
        Binned::new(n, p, columns)
    }
}

impl Binned {
    /// The binned matrix from its column-major bins (`n` rows, `p` features).
    fn new(n: usize, p: usize, columns: Vec<u8>) -> Binned {
        let mut rows = vec![0u8; n * p];
        for (k, column) in columns.chunks_exact(n.max(1)).enumerate() {
            for (i, &b) in column.iter().enumerate() {
                rows[i * p + k] = b;
            }
        }
        Binned {
            n_rows: n,
            n_features: p,
            columns,
            rows,
        }
    }
}

/// `_find_binning_thresholds` of one column (the column is sorted in place).
///
/// The column is sorted with `total_cmp` and its distinct values found with `==`, so that
/// `−0.0` and `0.0` are one value, as for numpy's `unique`. Then:
/// - one distinct value: no thresholds;
/// - at most `max_bins` distinct values: the midpoints `(a + b) / 2` of consecutive ones
///   (numpy's `mean` of each pair: `0 + a + b`, then `/ 2`; adding `0` first changes no
///   bits, `b > a` rules out a sum of `−0`);
/// - more: the `i·100/max_bins`-th percentiles, `i = 1..max_bins`, of the sorted column with
///   numpy's `averaged_inverted_cdf` ([`averaged_inverted_cdf`]), duplicates dropped.
///
/// Every threshold is clipped to [`ALMOST_INF`].
#[cfg(test)]
fn thresholds_of(column: &mut [f64], max_bins: usize) -> Vec<f64> {
    column.sort_unstable_by(f64::total_cmp);
    thresholds_of_sorted(column, max_bins)
}

/// [`thresholds_of`] of a column sorted by `total_cmp`.
fn thresholds_of_sorted(column: &[f64], max_bins: usize) -> Vec<f64> {
    let mut distinct: Vec<f64> = Vec::new();
    for &v in column.iter() {
        if distinct.last() != Some(&v) {
            distinct.push(v);
        }
    }
    let mut thresholds: Vec<f64> = if distinct.len() <= 1 {
        Vec::new()
    } else if distinct.len() <= max_bins {
        distinct.windows(2).map(|w| (w[0] + w[1]) / 2.0).collect()
    } else {
        let mut t = averaged_inverted_cdf(column, max_bins);
        // numpy's `unique`: sorted, equal values once. The percentiles of a sorted column
        // are already in order; the sort costs nothing and keeps the rule literal.
        t.sort_unstable_by(f64::total_cmp);
        t.dedup_by(|a, b| a == b);
        t
    };
    for t in &mut thresholds {
        *t = t.min(ALMOST_INF);
    }
    thresholds
}

/// `np.percentile(sorted, np.linspace(0, 100, max_bins + 1)[1:-1],
/// method="averaged_inverted_cdf")` with numpy 2's float operations, one by one:
/// - `linspace`: `p = i·step + 0` with `step = 100 / max_bins`;
/// - `percentile`: `q = p / 100`;
/// - the virtual index `v = n·q − 1`, its floor `j` (clamped to the last element when
///   `v >= n − 1`, then both neighbours are the last element, and to 0 when `v < 0`);
/// - `γ = v − j` with that clamped `j` (−1 for the last element), replaced by ½ when it is 0
///   and by 1 otherwise;
/// - numpy's `_lerp(a, b, γ)`, which for `γ >= ½` is `b − (b − a)·(1 − γ)`.
///
/// So a percentile that falls on an order statistic averages it with the next one, and any
/// other takes the next one.
fn averaged_inverted_cdf(sorted: &[f64], max_bins: usize) -> Vec<f64> {
    let n = sorted.len();
    let last = n - 1;
    let step = 100.0 / max_bins as f64;
    (1..max_bins)
        .map(|i| {
            let p = i as f64 * step + 0.0;
            let q = p / 100.0;
            let v = n as f64 * q - 1.0;
            let (previous, next, floor) = if v >= last as f64 {
                (last, last, -1.0)
            } else if v < 0.0 {
                (0, 0, 0.0)
            } else {
                let j = v.floor();
                (j as usize, j as usize + 1, j)
            };
            let gamma = if v - floor == 0.0 { 0.5 } else { 1.0 };
            let (a, b) = (sorted[previous], sorted[next]);
            let diff = b - a;
            b - diff * (1.0 - gamma)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn few_distinct_values_give_midpoints() {
        let mut column = vec![3.0, 1.0, 2.0, 1.0, 3.0, -0.0, 0.0];
        assert_eq!(thresholds_of(&mut column, 255), vec![0.5, 1.5, 2.5]);
        let mut constant = vec![0.1; 5];
        assert!(thresholds_of(&mut constant, 255).is_empty());
        // Exactly max_bins distinct values still take midpoints.
        let mut four = vec![0.0, 1.0, 2.0, 3.0];
        assert_eq!(thresholds_of(&mut four, 4), vec![0.5, 1.5, 2.5]);
    }

    #[test]
    fn many_distinct_values_give_percentiles() {
        // 0..10 with max_bins 4: v = 10·q − 1 = 1.5, 4, 6.5 → the next element (2.0), the
        // average of elements 4 and 5 (4.5), the next element (7.0).
        let mut column: Vec<f64> = (0..10).map(f64::from).collect();
        assert_eq!(thresholds_of(&mut column, 4), vec![2.0, 4.5, 7.0]);
        // Repeated values make repeated percentiles: dropped (numpy: [0.0, 0.0] → [0.0]).
        let mut skewed: Vec<f64> = (0..12)
            .map(|i| if i < 9 { 0.0 } else { f64::from(i) })
            .collect();
        assert_eq!(thresholds_of(&mut skewed, 3), vec![0.0]);
    }

    /// The sorted-walk binning gives the reference's thresholds and bins, bit for bit: on
    /// columns of few and many distinct values, ties, signed zeros, huge values, and
    /// several `max_bins`.
    #[test]
    fn fit_and_bin_is_fit_then_bin_columns() {
        use rand_chacha::rand_core::{RngCore, SeedableRng};
        use rand_chacha::ChaCha8Rng;
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for (n, p) in [(1, 1), (2, 3), (50, 4), (700, 6), (3_000, 5)] {
            let data: Vec<f64> = (0..n * p)
                .map(|i| {
                    let u = rng.next_u64();
                    match i % p {
                        0 => (u % 5) as f64 - 2.0,
                        1 => [0.0, -0.0, 1.5, -1.5][(u % 4) as usize],
                        2 => (u >> 11) as f64 / (1u64 << 53) as f64,
                        3 => [f64::MAX, -f64::MAX, 1e301, 0.25][(u % 4) as usize],
                        _ => ((u >> 11) as f64 / (1u64 << 53) as f64 * 400.0).round(),
                    }
                })
                .collect();
            let x = Matrix::from_row_major(n, p, data);
            for max_bins in [2, 3, 16, 255] {
                let (thresholds, binned) = BinThresholds::fit_and_bin(&x, max_bins);
                let reference = BinThresholds::fit(&x, max_bins);
                for k in 0..p {
                    let bits = |t: &[f64]| t.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
                    assert_eq!(bits(thresholds.feature(k)), bits(reference.feature(k)));
                }
                let expected = reference.bin_columns(&x);
                assert_eq!(
                    binned.columns, expected.columns,
                    "n {n} max_bins {max_bins}"
                );
                assert_eq!(binned.rows, expected.rows);
            }
        }
    }

    #[test]
    fn huge_thresholds_are_clipped() {
        let mut column = vec![0.0, f64::MAX];
        assert_eq!(thresholds_of(&mut column, 255), vec![ALMOST_INF]);
    }

    #[test]
    fn a_value_lands_in_the_bin_its_thresholds_bound() {
        let bins = BinThresholds {
            per_feature: vec![vec![0.5, 1.5, 2.5]],
        };
        for (v, b) in [
            (-1.0, 0),
            (0.5, 0),
            (0.6, 1),
            (1.5, 1),
            (2.5, 2),
            (2.6, 3),
            (9.0, 3),
        ] {
            assert_eq!(bins.bin(0, v), b, "{v}");
        }
    }
}
