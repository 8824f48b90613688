//! `target_encode`: scikit-learn's `TargetEncoder(smooth=m)` for a binary target, `fit`
//! then `transform` (no cross-fitting: the in-sample encoding of `fit_transform` is
//! scikit-learn's own guard, and the leak this step exists to show is the other one).

/// Per level (`0..levels`), its encoding from the rows `rows` (in order) of `level_of`
/// under `labels`: (Σy_c + m·ȳ) / (n_c + m), scikit-learn's operations in its order; a
/// level none of the rows has gets ȳ, as an unknown category does. `None` when `rows` is
/// empty.
pub(super) fn fit(
    level_of: &[u32],
    labels: &[bool],
    rows: &[usize],
    levels: usize,
    smooth: f64,
) -> Option<Vec<f64>> {
    if rows.is_empty() {
        return None;
    }
    let mut sums = vec![0.0f64; levels];
    let mut counts = vec![0.0f64; levels];
    let mut positives = 0.0f64;
    for &r in rows {
        let y = if labels[r] { 1.0 } else { 0.0 };
        sums[level_of[r] as usize] += y;
        counts[level_of[r] as usize] += 1.0;
        positives += y;
    }
    let mean = positives / rows.len() as f64;
    let smooth_sum = smooth * mean;
    Some(
        sums.iter()
            .zip(&counts)
            .map(|(&sum, &count)| {
                if count == 0.0 {
                    mean
                } else {
                    (sum + smooth_sum) / (count + smooth)
                }
            })
            .collect(),
    )
}
