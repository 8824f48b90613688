//! `impute`: scikit-learn's `SimpleImputer` on one column (missing = NaN).

use super::ImputeStrategy;

/// The statistic of the present values of `values` at `rows` (in that order), or `None`
/// when none is present. `mean`: Σv / n; `median`: the middle value, or the mean of the
/// two middle values (numpy's); `most_frequent`: the most frequent value, the smallest
/// among ties (scikit-learn's, by `scipy.stats.mode`).
pub(super) fn fit(values: &[f64], rows: &[usize], strategy: ImputeStrategy) -> Option<f64> {
    let mut present: Vec<f64> = rows
        .iter()
        .map(|&r| values[r])
        .filter(|v| !v.is_nan())
        .collect();
    if present.is_empty() {
        return None;
    }
    let n = present.len();
    Some(match strategy {
        ImputeStrategy::Mean => present.iter().sum::<f64>() / n as f64,
        ImputeStrategy::Median => {
            present.sort_by(f64::total_cmp);
            if n % 2 == 1 {
                present[n / 2]
            } else {
                (present[n / 2 - 1] + present[n / 2]) / 2.0
            }
        }
        ImputeStrategy::MostFrequent => {
            present.sort_by(f64::total_cmp);
            let (mut best, mut best_count) = (present[0], 0usize);
            let mut start = 0;
            while start < n {
                let end = start + present[start..].partition_point(|v| *v == present[start]);
                // Ascending runs: a later run replaces the best only when strictly more
                // frequent, so ties keep the smallest value.
                if end - start > best_count {
                    (best, best_count) = (present[start], end - start);
                }
                start = end;
            }
            best
        }
    })
}

/// Every missing value replaced by `statistic`.
pub(super) fn apply(values: &mut [f64], statistic: f64) {
    for v in values.iter_mut().filter(|v| v.is_nan()) {
        *v = statistic;
    }
}
