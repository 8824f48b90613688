//! `standardize`: scikit-learn's `StandardScaler` on one column.

/// The mean and scale of `values` at `rows` (in that order), missing values (NaN) left
/// out as scikit-learn's scaler leaves them: the two passes and the constant-column rule
/// of the model's own standardiser (`crate::model::Standardizer::fit`), so a column that
/// is constant up to rounding gets scale 1. `None` when no row has a value.
pub(super) fn fit(values: &[f64], rows: &[usize]) -> Option<(f64, f64)> {
    let present = || rows.iter().map(|&r| values[r]).filter(|v| !v.is_nan());
    let n = present().count();
    if n == 0 {
        return None;
    }
    let nf = n as f64;
    let mean = present().sum::<f64>() / nf;
    let var = present()
        .map(|v| {
            let d = v - mean;
            d * d
        })
        .sum::<f64>()
        / nf;
    let bound = nf * f64::EPSILON * var + (nf * mean * f64::EPSILON) * (nf * mean * f64::EPSILON);
    let scale = if var <= bound { 1.0 } else { var.sqrt() };
    Some((mean, scale))
}

/// `(v − mean) / scale` for every value (a missing one stays missing).
pub(super) fn apply(values: &mut [f64], (mean, scale): (f64, f64)) {
    for v in values {
        *v = (*v - mean) / scale;
    }
}
