//! The loss term and the Cholesky solve of the Newton system, every sum in index order.

/// `−log σ(z)` if `y`, else `−log(1 − σ(z))`, given `e = exp(−|z|)`: with `μ = ±z` the
/// margin of the observed class, `log(1 + exp(−μ)) = max(−μ, 0) + log1p(e)`.
pub(super) fn logloss(y: bool, z: f64, e: f64) -> f64 {
    let mu = if y { z } else { -z };
    (-mu).max(0.0) + libm::log1p(e)
}

/// Solves `H·x = b` for a symmetric positive definite `H` given by its upper triangle
/// (row-major m × m), by Cholesky `H = RᵀR` with every sum in index order.
///
/// `H` is positive definite unless every row is saturated (then the intercept's curvature
/// `C·Σ sᵢ` underflows to 0). A failed factorisation is retried with a ridge on the
/// diagonal, from 1e-12 of the largest diagonal entry growing ×100, which damps the step
/// but keeps it a descent direction; `None` if even that fails (non-finite input).
pub(super) fn solve_spd(h: &[f64], m: usize, b: &[f64]) -> Option<Vec<f64>> {
    let max_diag = (0..m).fold(0.0_f64, |acc, j| acc.max(h[j * m + j]));
    let mut ridge = 0.0;
    let r = loop {
        if let Some(r) = cholesky_upper(h, m, ridge) {
            break r;
        }
        ridge = if ridge == 0.0 {
            1e-12 * max_diag.max(1.0)
        } else {
            ridge * 100.0
        };
        if !ridge.is_finite() {
            return None;
        }
    };
    // Rᵀ·y = b (forward), then R·x = y (backward).
    let mut x = b.to_vec();
    for j in 0..m {
        let mut s = x[j];
        for k in 0..j {
            s -= r[k * m + j] * x[k];
        }
        x[j] = s / r[j * m + j];
    }
    for j in (0..m).rev() {
        let mut s = x[j];
        for k in j + 1..m {
            s -= r[j * m + k] * x[k];
        }
        x[j] = s / r[j * m + j];
    }
    Some(x)
}

/// The upper Cholesky factor `R` (row-major, `H + ridge·I = RᵀR`), or `None` when a pivot
/// is not positive and finite.
pub(super) fn cholesky_upper(h: &[f64], m: usize, ridge: f64) -> Option<Vec<f64>> {
    let mut r = vec![0.0; m * m];
    for j in 0..m {
        let mut d = h[j * m + j] + ridge;
        for k in 0..j {
            d -= r[k * m + j] * r[k * m + j];
        }
        if !(d > 0.0 && d.is_finite()) {
            return None;
        }
        let rjj = d.sqrt();
        r[j * m + j] = rjj;
        for i in j + 1..m {
            let mut s = h[j * m + i];
            for k in 0..j {
                s -= r[k * m + j] * r[k * m + i];
            }
            r[j * m + i] = s / rjj;
        }
    }
    Some(r)
}
