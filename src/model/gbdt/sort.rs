//! A column's values sorted with their row indices, by radix: the binning's sort
//! (`binning.rs`).
//!
//! The bin thresholds need every column sorted (its distinct values, or its percentiles),
//! and binning a row is then a walk along the sorted column instead of a binary search per
//! value. A comparison sort of 10⁵ doubles with `total_cmp` and a binary search per value
//! were a tenth of a fit at 10⁵ rows; a least-significant-digit radix sort does a few
//! linear passes instead.
//!
//! The order is `f64::total_cmp`'s, exactly: each double is mapped to a `u64` key whose
//! unsigned order is the total order (negative values with every bit flipped, the others
//! with the sign bit set), so the sorted values are bit for bit those of
//! `sort_unstable_by(f64::total_cmp)` (`−0.0` before `0.0`; the fit admits no NaN). Rows of
//! equal values keep their index order (the sort is stable), which no result depends on.

/// Bits per digit: 8 passes of 256 buckets. The scatter of a pass writes to one place per
/// bucket; 256 of them (one cache line each) stay in the L1 cache, where 2,048 did not.
const DIGIT_BITS: u32 = 8;
const BUCKETS: usize = 1 << DIGIT_BITS;
const PASSES: usize = 64 / DIGIT_BITS as usize;

/// A value's key and its row, moved together by the scatter (one write per item).
#[derive(Debug, Clone, Copy, Default)]
struct Item {
    key: u64,
    row: u32,
}

/// Buffers of [`ColumnSort::sort`], reused from column to column.
#[derive(Debug, Default)]
pub(super) struct ColumnSort {
    items: Vec<Item>,
    spare: Vec<Item>,
    counts: Vec<[u32; BUCKETS]>,
}

/// The key of `v`: its bits, ordered as `f64::total_cmp` orders the values.
fn key(v: f64) -> u64 {
    let bits = v.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    }
}

/// The value of key `k` ([`key`]'s inverse).
fn value(k: u64) -> f64 {
    f64::from_bits(if k >> 63 == 1 { k & !(1 << 63) } else { !k })
}

impl ColumnSort {
    /// Sorts `column` (one value per row, in row order; at most `u32::MAX` rows).
    pub(super) fn sort(&mut self, column: impl Iterator<Item = f64>) {
        self.items.clear();
        self.items
            .extend(column.zip(0u32..).map(|(v, row)| Item { key: key(v), row }));
        let n = self.items.len();
        self.spare.resize(n, Item::default());
        // Every pass's bucket sizes in one read.
        self.counts.clear();
        self.counts.resize(PASSES, [0; BUCKETS]);
        for item in &self.items {
            for (pass, counts) in self.counts.iter_mut().enumerate() {
                counts[digit(item.key, pass)] += 1;
            }
        }
        for pass in 0..PASSES {
            let counts = &mut self.counts[pass];
            // Every key has the same digit: the pass would leave the order as it is.
            if n == 0 || counts[digit(self.items[0].key, pass)] as usize == n {
                continue;
            }
            // Bucket starts.
            let mut start = 0;
            for c in counts.iter_mut() {
                let size = *c;
                *c = start;
                start += size;
            }
            for &item in &self.items {
                let at = &mut counts[digit(item.key, pass)];
                self.spare[*at as usize] = item;
                *at += 1;
            }
            std::mem::swap(&mut self.items, &mut self.spare);
        }
    }

    /// The values in increasing order (`total_cmp`'s), each with its row.
    pub(super) fn sorted(&self) -> impl Iterator<Item = (f64, u32)> + '_ {
        self.items.iter().map(|item| (value(item.key), item.row))
    }
}

/// Digit `pass` of key `k`, least significant first.
fn digit(k: u64, pass: usize) -> usize {
    ((k >> (pass as u32 * DIGIT_BITS)) as usize) & (BUCKETS - 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::rand_core::{RngCore, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The radix order is `sort_by(total_cmp)`'s, bit for bit, and each value comes with
    /// its row: on signed zeros, subnormals, infinities, ties and random bit patterns.
    #[test]
    fn sorts_as_total_cmp() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let special = vec![
            0.0,
            -0.0,
            5e-324,
            -5e-324,
            f64::MIN_POSITIVE,
            1.0,
            -1.0,
            f64::MAX,
            f64::MIN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1.0,
            -0.0,
        ];
        for n in [0, 1, 2, 7, 100, 5_000] {
            let mut column: Vec<f64> = (0..n)
                .map(|i| match i % 3 {
                    0 => f64::from_bits(rng.next_u64()),
                    1 => (rng.next_u64() % 17) as f64 - 8.0,
                    _ => special[i % special.len()],
                })
                .filter(|v| !v.is_nan())
                .collect();
            column.extend_from_slice(&special);
            let mut sorter = ColumnSort::default();
            sorter.sort(column.iter().copied());
            let mut expected = column.clone();
            expected.sort_by(f64::total_cmp);
            let got: Vec<u64> = sorter.sorted().map(|(v, _)| v.to_bits()).collect();
            let want: Vec<u64> = expected.iter().map(|v| v.to_bits()).collect();
            assert_eq!(got, want, "n = {n}");
            for (v, row) in sorter.sorted() {
                assert_eq!(v.to_bits(), column[row as usize].to_bits());
            }
            let mut rows: Vec<u32> = sorter.sorted().map(|(_, row)| row).collect();
            rows.sort_unstable();
            assert!(rows.iter().enumerate().all(|(i, &r)| r as usize == i));
        }
    }
}
