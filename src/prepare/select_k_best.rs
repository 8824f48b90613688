//! `select_k_best`: scikit-learn's `SelectKBest(f_classif, k)`.

/// The ANOVA F statistic of `values` at `rows` (in order) between the two label classes,
/// scikit-learn's `f_oneway` operations in its order (classes False then True):
/// SS_tot = Σx² − (Σx)²/n, SS_b = Σ_g (Σ_g x)²/n_g − (Σx)²/n, SS_w = SS_tot − SS_b,
/// F = (SS_b / 1) / (SS_w / (n − 2)). NaN (0/0, a constant column) as scikit-learn's.
pub(super) fn f_statistic(values: &[f64], labels: &[bool], rows: &[usize]) -> f64 {
    let mut sums = [0.0f64; 2];
    let mut squares = [0.0f64; 2];
    let mut counts = [0usize; 2];
    for &r in rows {
        let g = usize::from(labels[r]);
        let v = values[r];
        sums[g] += v;
        squares[g] += v * v;
        counts[g] += 1;
    }
    let n = (counts[0] + counts[1]) as f64;
    let ss_all = 0.0 + squares[0] + squares[1];
    let sum_all = 0.0 + sums[0] + sums[1];
    let square_of_sums_all = sum_all * sum_all;
    let ss_tot = ss_all - square_of_sums_all / n;
    let mut ss_between = 0.0;
    for g in 0..2 {
        ss_between += sums[g] * sums[g] / counts[g] as f64;
    }
    ss_between -= square_of_sums_all / n;
    let ss_within = ss_tot - ss_between;
    let ms_between = ss_between / 1.0;
    let ms_within = ss_within / (n - 2.0);
    ms_between / ms_within
}

/// The indices of the `k` columns to keep, ascending, from their `scores`: a NaN score
/// counts as the lowest finite number (scikit-learn's `_clean_nans`), and the kept ones
/// are the last k of a stable ascending sort, so a tie goes to the later column. All of
/// them when there are no more than k (scikit-learn warns and keeps all).
pub(super) fn keep(scores: &[f64], k: usize) -> Vec<usize> {
    if k >= scores.len() {
        return (0..scores.len()).collect();
    }
    let clean = |s: f64| if s.is_nan() { f64::MIN } else { s };
    let mut order: Vec<usize> = (0..scores.len()).collect();
    // numpy's comparison: −0 and +0 tie (a total order would split them).
    order.sort_by(|&a, &b| {
        clean(scores[a])
            .partial_cmp(&clean(scores[b]))
            .expect("no NaN is left")
            .then(a.cmp(&b))
    });
    let mut kept = order[scores.len() - k..].to_vec();
    kept.sort_unstable();
    kept
}
