//! Feature standardisation with the training rows' statistics (scikit-learn's
//! `StandardScaler`), and the finiteness check every fit makes first.

use super::Matrix;
use crate::error::{Error, Result};

/// Feature standardisation with the training rows' mean and population std (ddof = 0);
/// a zero-variance column gets scale 1 (as scikit-learn's StandardScaler).
#[derive(Debug, Clone, PartialEq)]
pub struct Standardizer {
    /// Per-feature mean of the training rows.
    pub mean: Vec<f64>,
    /// Per-feature population standard deviation of the training rows, or 1 for a column
    /// that is constant up to rounding.
    pub scale: Vec<f64>,
}

impl Standardizer {
    /// Learns the mean and scale of each column of `x`.
    ///
    /// Two passes in row order: `mean = Σx / n`, `var = Σ(x − mean)² / n`. A column is
    /// constant, and gets scale 1, when `var ≤ n·ε·var + (n·mean·ε)²` — scikit-learn's
    /// `_is_constant_feature` (Chan, Golub & LeVeque's error bound of the two-pass
    /// variance) — so a constant column such as 0.1, whose computed variance is a rounding
    /// residue rather than exactly 0, is not blown up to unit variance.
    ///
    /// Errors on zero rows or any non-finite value.
    pub fn fit(x: &Matrix) -> Result<Standardizer> {
        let (n, p) = (x.rows(), x.cols());
        if n == 0 {
            return Err(Error::invalid("cannot standardise zero rows"));
        }
        check_finite(x)?;
        let nf = n as f64;
        let mut mean = vec![0.0; p];
        for i in 0..n {
            for (m, &v) in mean.iter_mut().zip(x.row(i)) {
                *m += v;
            }
        }
        for m in &mut mean {
            *m /= nf;
        }
        let mut var = vec![0.0; p];
        for i in 0..n {
            for ((s, &v), &m) in var.iter_mut().zip(x.row(i)).zip(&mean) {
                let d = v - m;
                *s += d * d;
            }
        }
        let scale = var
            .iter()
            .zip(&mean)
            .map(|(&s, &m)| {
                let var = s / nf;
                let bound =
                    nf * f64::EPSILON * var + (nf * m * f64::EPSILON) * (nf * m * f64::EPSILON);
                if var <= bound {
                    1.0
                } else {
                    var.sqrt()
                }
            })
            .collect();
        Ok(Standardizer { mean, scale })
    }

    /// The standardised value of feature `k`: `(v − mean[k]) / scale[k]`.
    pub fn transform_value(&self, k: usize, v: f64) -> f64 {
        (v - self.mean[k]) / self.scale[k]
    }

    /// `x` standardised column by column; panics if `x.cols()` is not the number of
    /// features this standardiser was fitted on.
    pub fn transform(&self, x: &Matrix) -> Matrix {
        assert_eq!(
            x.cols(),
            self.mean.len(),
            "matrix has the wrong number of features"
        );
        let mut data = Vec::with_capacity(x.as_slice().len());
        for i in 0..x.rows() {
            for (k, &v) in x.row(i).iter().enumerate() {
                data.push(self.transform_value(k, v));
            }
        }
        Matrix::from_row_major(x.rows(), x.cols(), data)
    }
}

fn check_finite(x: &Matrix) -> Result<()> {
    match x.as_slice().iter().position(|v| !v.is_finite()) {
        None => Ok(()),
        Some(at) => Err(Error::invalid(format!(
            "feature value {} at row index {}, column index {} is not finite",
            x.as_slice()[at],
            at / x.cols(),
            at % x.cols()
        ))),
    }
}
