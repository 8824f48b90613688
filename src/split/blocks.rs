//! Consecutive blocks: how scikit-learn's `KFold` cuts rows into folds and
//! `np.array_split` cuts shuffled groups into sections, shared by the kernel's own folds
//! (`folds.rs`) and scikit-learn's shuffled splitters (`numpy_random.rs`).

/// Per item, its fold when `order` (a permutation of the items) is cut into `k`
/// [`consecutive_blocks`]: `KFold`'s folds of the rows, and `np.array_split`'s sections of
/// scikit-learn's shuffled groups.
pub(super) fn fold_of_each(order: &[usize], k: usize) -> Vec<u32> {
    let mut fold = vec![0u32; order.len()];
    for (f, range) in consecutive_blocks(order.len(), k).into_iter().enumerate() {
        for &item in &order[range] {
            fold[item] = f as u32;
        }
    }
    fold
}

/// `k` consecutive index ranges over `0..n`: sizes `n / k`, the first `n % k` one larger
/// (`KFold`'s).
fn consecutive_blocks(n: usize, k: usize) -> Vec<std::ops::Range<usize>> {
    let (base, extra) = (n / k, n % k);
    let mut start = 0;
    (0..k)
        .map(|f| {
            let size = base + usize::from(f < extra);
            let range = start..start + size;
            start += size;
            range
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn consecutive_blocks_are_kfolds_sizes() {
        let sizes: Vec<usize> = consecutive_blocks(11, 3).iter().map(|r| r.len()).collect();
        assert_eq!(sizes, vec![4, 4, 3]);
        assert_eq!(consecutive_blocks(11, 3)[2], 8..11);
        assert_eq!(fold_of_each(&[2, 0, 1], 2), vec![0, 1, 0]);
    }
}
