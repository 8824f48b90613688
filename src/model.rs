//! The kernel's own L2-regularised logistic regression (scikit-learn semantics), bit-identical
//! on every CPU.
//!
//! Semantics are scikit-learn's `StandardScaler` + `LogisticRegression(C)`: each feature is
//! standardised with the *training* rows' mean and population standard deviation, and the
//! fit minimises `C·Σᵢ logloss(yᵢ, zᵢ) + ½‖w‖²` with `zᵢ = b + w·x̃ᵢ` on the standardised
//! scale; the intercept `b` is not penalised.
//!
//! The solver is Newton's method (IRLS) with a backtracking line search: the objective is
//! strictly convex in `w` and, while any row is unsaturated, in `b`, so Newton converges
//! quadratically and reaches a gradient of ~1e-13 in a handful of iterations where L-BFGS
//! (scikit-learn, linfa-logistic) stops on a function-decrease test ~1e-8 from the optimum.
//!
//! Why not linfa-logistic: its fit differs in the last bits between CPUs (matrixmultiply
//! and glibc `exp` dispatch on CPU features) and it takes the majority class as positive
//! (linfa issue #393). Here every float operation has one fixed order:
//! - every sum is a plain loop over rows (or features) in index order; the compiler never
//!   reorders float additions and Rust never fuses `a * b + c` into an FMA;
//! - `exp`/`log`/`log1p` come from the pure-Rust `libm` crate, never the platform's;
//! - no ndarray products (`dot` goes through matrixmultiply's runtime-dispatched gemm), no
//!   threads, no hashing. ndarray appears only at the linfa boundary, copied by loops.
//!
//! The fit is therefore a pure function of (the rows in the given order, `y`, `C`, `tol`,
//! `max_iter`).

use linfa::dataset::AsSingleTargets;
use linfa::traits::{Fit, PredictInplace};
use linfa::DatasetBase;
use ndarray::{Array1, ArrayBase, Data, Ix2};

use crate::error::{Error, Result};

/// A dense row-major matrix of f64 (rows = observations, cols = features).
#[derive(Debug, Clone, PartialEq)]
pub struct Matrix {
    rows: usize,
    cols: usize,
    data: Vec<f64>,
}

impl Matrix {
    /// A matrix from row-major data; panics if `data.len() != rows * cols`.
    pub fn from_row_major(rows: usize, cols: usize, data: Vec<f64>) -> Self {
        assert_eq!(data.len(), rows * cols, "matrix data has the wrong length");
        Matrix { rows, cols, data }
    }

    /// The number of rows (observations).
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The number of columns (features).
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Row `i` as a slice of `cols()` values; panics if `i >= rows()`.
    pub fn row(&self, i: usize) -> &[f64] {
        &self.data[i * self.cols..(i + 1) * self.cols]
    }

    /// All values, row after row.
    pub fn as_slice(&self) -> &[f64] {
        &self.data
    }
}

/// Copies an ndarray matrix (any memory layout) row by row.
impl<S: Data<Elem = f64>> From<&ArrayBase<S, Ix2>> for Matrix {
    fn from(x: &ArrayBase<S, Ix2>) -> Self {
        let (rows, cols) = x.dim();
        let mut data = Vec::with_capacity(rows * cols);
        for i in 0..rows {
            for j in 0..cols {
                data.push(x[[i, j]]);
            }
        }
        Matrix { rows, cols, data }
    }
}

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

/// Hyper-parameters: minimise C·Σ logloss + ½‖w‖², intercept not penalised.
#[derive(Debug, Clone, PartialEq)]
pub struct LogisticRegression {
    /// Inverse regularisation strength (scikit-learn's `C`); finite and > 0.
    pub c: f64,
    /// Stop when the largest absolute component of the gradient of the *mean-scaled*
    /// objective `(1/n)·Σ logloss + ‖w‖²/(2·C·n)` — scikit-learn's lbfgs scaling, i.e. the
    /// gradient of `C·Σ logloss + ½‖w‖²` divided by `C·n` — is below `tol`. Finite, ≥ 0.
    pub tol: f64,
    /// The most Newton iterations to take; reaching it leaves `converged` false.
    pub max_iter: usize,
}

/// A fitted model: standardiser + weights on the standardised scale.
#[derive(Debug, Clone, PartialEq)]
pub struct FittedLogistic {
    /// The training rows' feature statistics, applied before the weights.
    pub standardizer: Standardizer,
    /// The intercept `b` (not penalised).
    pub intercept: f64,
    /// The weights `w`, one per feature, on the standardised scale (comparable with
    /// scikit-learn's `coef_` after `StandardScaler`).
    pub coefficients: Vec<f64>,
    /// Newton iterations taken.
    pub iterations: usize,
    /// Whether the gradient test of [`LogisticRegression::tol`] was met.
    pub converged: bool,
}

/// Armijo sufficient-decrease constant of the backtracking line search.
const ARMIJO: f64 = 1e-4;
/// Step halvings before the line search gives up (2⁻⁶⁰ ≈ 1e-18: nothing left to try).
const MAX_HALVINGS: u32 = 60;
/// Below `λ² ≤ PURE_NEWTON·(1 + |f|)` (λ the Newton decrement) the predicted decrease is at
/// the level of the rounding noise of `f` itself (≤ n·ε·|f| ≈ 2e-11·|f| at n = 1e5), so
/// comparing objective values says nothing; the quadratic model is then exact to far more
/// digits and the full Newton step is taken without a test.
const PURE_NEWTON: f64 = 1e-10;

impl LogisticRegression {
    /// scikit-learn-like defaults for a given `C`: `tol = 1e-10` (scaled as documented on
    /// [`LogisticRegression::tol`]) and at most 100 Newton iterations (well-posed problems
    /// take under 20).
    pub fn new(c: f64) -> Self {
        LogisticRegression {
            c,
            tol: 1e-10,
            max_iter: 100,
        }
    }

    /// Standardises `x` with its own statistics and fits the weights by Newton's method.
    ///
    /// Errors (never panics) when `x` has no rows, `y.len() != x.rows()`, `y` holds one
    /// class only, any value of `x` is not finite, `c` is not finite and positive, or `tol`
    /// is not finite and non-negative. Not converging within `max_iter` is not an error:
    /// see [`FittedLogistic::converged`].
    pub fn fit(&self, x: &Matrix, y: &[bool]) -> Result<FittedLogistic> {
        if !(self.c.is_finite() && self.c > 0.0) {
            return Err(Error::invalid(format!(
                "logistic regression: C must be finite and > 0, got {}",
                self.c
            )));
        }
        if !(self.tol.is_finite() && self.tol >= 0.0) {
            return Err(Error::invalid(format!(
                "logistic regression: tol must be finite and >= 0, got {}",
                self.tol
            )));
        }
        if x.rows() == 0 {
            return Err(Error::invalid("logistic regression: no training rows"));
        }
        if y.len() != x.rows() {
            return Err(Error::invalid(format!(
                "logistic regression: {} labels for {} rows",
                y.len(),
                x.rows()
            )));
        }
        let n_pos = y.iter().filter(|&&v| v).count();
        if n_pos == 0 || n_pos == y.len() {
            return Err(Error::invalid(format!(
                "logistic regression: the training labels hold one class only ({} rows, all {})",
                y.len(),
                n_pos != 0
            )));
        }
        let standardizer = Standardizer::fit(x)?;
        let problem = Problem::new(&standardizer, x, y, self.c);
        let solution = problem.solve(self.tol, self.max_iter, n_pos);
        Ok(FittedLogistic {
            standardizer,
            intercept: solution.theta[0],
            coefficients: solution.theta[1..].to_vec(),
            iterations: solution.iterations,
            converged: solution.converged,
        })
    }
}

impl FittedLogistic {
    /// `zᵢ = intercept + Σₖ wₖ·(xᵢₖ − meanₖ)/scaleₖ`, summed from the intercept over `k` in
    /// order (the same bits the fit used on its training rows).
    ///
    /// # Panics
    /// If `x` does not have one column per coefficient.
    pub fn decision_function(&self, x: &Matrix) -> Vec<f64> {
        assert_eq!(
            x.cols(),
            self.coefficients.len(),
            "matrix has {} columns, the model {} features",
            x.cols(),
            self.coefficients.len()
        );
        (0..x.rows())
            .map(|i| {
                let mut z = self.intercept;
                for (k, (&w, &v)) in self.coefficients.iter().zip(x.row(i)).enumerate() {
                    z += w * self.standardizer.transform_value(k, v);
                }
                z
            })
            .collect()
    }

    /// The probability of the positive class, `1 / (1 + exp(−z))` with `libm::exp`.
    /// Saturates to exactly 1.0 for z ≳ 37 (as scikit-learn's `predict_proba`).
    ///
    /// # Panics
    /// If `x` does not have one column per coefficient.
    pub fn predict_proba(&self, x: &Matrix) -> Vec<f64> {
        self.decision_function(x)
            .into_iter()
            .map(|z| 1.0 / (1.0 + libm::exp(-z)))
            .collect()
    }

    /// The predicted class: positive when the probability is ≥ 0.5. (Not named `predict`, so
    /// that linfa's `Predict::predict` stays callable with method syntax.)
    ///
    /// # Panics
    /// If `x` does not have one column per coefficient.
    pub fn predict_labels(&self, x: &Matrix) -> Vec<bool> {
        self.predict_proba(x)
            .into_iter()
            .map(|p| p >= 0.5)
            .collect()
    }
}

/// The fit as linfa sees it: bool targets (`true` is the positive class, whatever its
/// frequency), records copied into a [`Matrix`] by loops. The inherent
/// [`LogisticRegression::fit`] shadows this one in method syntax: call it as
/// `linfa::traits::Fit::fit(&params, &dataset)`.
impl<D, T> Fit<ArrayBase<D, Ix2>, T, Error> for LogisticRegression
where
    D: Data<Elem = f64>,
    T: AsSingleTargets<Elem = bool>,
{
    type Object = FittedLogistic;

    fn fit(&self, dataset: &DatasetBase<ArrayBase<D, Ix2>, T>) -> Result<FittedLogistic> {
        let x = Matrix::from(&dataset.records);
        let y: Vec<bool> = dataset
            .targets
            .as_single_targets()
            .iter()
            .copied()
            .collect();
        LogisticRegression::fit(self, &x, &y)
    }
}

/// Class predictions for linfa's `Predict`: `true` when the probability is ≥ 0.5.
impl<D: Data<Elem = f64>> PredictInplace<ArrayBase<D, Ix2>, Array1<bool>> for FittedLogistic {
    fn predict_inplace(&self, x: &ArrayBase<D, Ix2>, y: &mut Array1<bool>) {
        assert_eq!(
            x.nrows(),
            y.len(),
            "the target array must have one entry per row"
        );
        for (target, label) in y.iter_mut().zip(self.predict_labels(&Matrix::from(x))) {
            *target = label;
        }
    }

    fn default_target(&self, x: &ArrayBase<D, Ix2>) -> Array1<bool> {
        Array1::from_elem(x.nrows(), false)
    }
}

/// linfa's `Fit` requires the error type to absorb linfa's own errors.
impl From<linfa::Error> for Error {
    fn from(e: linfa::Error) -> Self {
        Error::invalid(e.to_string())
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

/// The standardised training problem. Parameters `θ = [b, w₁ … w_p]`; rows are stored
/// augmented as `[1, x̃ᵢ₁ … x̃ᵢₚ]` so that `zᵢ = Σⱼ θⱼ·aᵢⱼ`, summed from `j = 0`, has
/// exactly the bits of [`FittedLogistic::decision_function`] (`0 + b·1 = b`).
struct Problem {
    n: usize,
    /// Parameters including the intercept: p + 1.
    m: usize,
    /// Augmented standardised rows, row-major n × m.
    a: Vec<f64>,
    y: Vec<bool>,
    c: f64,
}

/// The gradient and objective at θ, and the curvature weights for the Hessian.
struct Gradient {
    /// `C·Σ rᵢ·aᵢ + [0, w]`, with `rᵢ = σ(zᵢ) − yᵢ`.
    gradient: Vec<f64>,
    /// The objective `C·Σ logloss + ½‖w‖²`.
    objective: f64,
}

struct Solution {
    theta: Vec<f64>,
    iterations: usize,
    converged: bool,
}

impl Problem {
    fn new(standardizer: &Standardizer, x: &Matrix, y: &[bool], c: f64) -> Problem {
        let (n, m) = (x.rows(), x.cols() + 1);
        let mut a = Vec::with_capacity(n * m);
        for i in 0..n {
            a.push(1.0);
            for (k, &v) in x.row(i).iter().enumerate() {
                a.push(standardizer.transform_value(k, v));
            }
        }
        Problem {
            n,
            m,
            a,
            y: y.to_vec(),
            c,
        }
    }

    fn row(&self, i: usize) -> &[f64] {
        &self.a[i * self.m..(i + 1) * self.m]
    }

    /// `outᵢ = Σⱼ vⱼ·aᵢⱼ` for every row: the margins `z` for `v = θ`.
    fn margins(&self, v: &[f64], out: &mut [f64]) {
        for (i, o) in out.iter_mut().enumerate() {
            let mut acc = 0.0;
            for (&t, &a) in v.iter().zip(self.row(i)) {
                acc += t * a;
            }
            *o = acc;
        }
    }

    /// `½‖w‖²` (the intercept θ₀ is not penalised).
    fn penalty(theta: &[f64]) -> f64 {
        let mut s = 0.0;
        for &t in &theta[1..] {
            s += t * t;
        }
        0.5 * s
    }

    /// `C·Σ logloss(yᵢ, zᵢ) + ½‖w‖²`, given the margins.
    fn objective(&self, theta: &[f64], z: &[f64]) -> f64 {
        let mut loss = 0.0;
        for (&zi, &yi) in z.iter().zip(&self.y) {
            loss += logloss(yi, zi, libm::exp(-zi.abs()));
        }
        self.c * loss + Self::penalty(theta)
    }

    /// Gradient and objective at θ (margins `z`); fills `weights` with `sᵢ = σ(zᵢ)(1 − σ(zᵢ))`.
    fn gradient(&self, theta: &[f64], z: &[f64], weights: &mut [f64]) -> Gradient {
        let mut grad = vec![0.0; self.m];
        let mut loss = 0.0;
        for (i, ((&zi, &yi), w)) in z.iter().zip(&self.y).zip(weights.iter_mut()).enumerate() {
            let e = libm::exp(-zi.abs());
            let inv = 1.0 / (1.0 + e);
            // σ(z) and 1 − σ(z) without cancellation: σ(|z|) = 1/(1+e), σ(−|z|) = e/(1+e).
            let (p, q) = if zi >= 0.0 {
                (inv, e * inv)
            } else {
                (e * inv, inv)
            };
            let r = if yi { -q } else { p };
            *w = p * q;
            loss += logloss(yi, zi, e);
            for (g, &a) in grad.iter_mut().zip(self.row(i)) {
                *g += r * a;
            }
        }
        for (j, g) in grad.iter_mut().enumerate() {
            *g *= self.c;
            if j > 0 {
                *g += theta[j];
            }
        }
        Gradient {
            gradient: grad,
            objective: self.c * loss + Self::penalty(theta),
        }
    }

    /// Upper triangle (row-major, full m × m storage) of `C·Σ sᵢ·aᵢaᵢᵀ + diag(0, 1, …, 1)`.
    fn hessian(&self, weights: &[f64]) -> Vec<f64> {
        let m = self.m;
        let mut hess = vec![0.0; m * m];
        for (i, &s) in weights.iter().enumerate() {
            let row = self.row(i);
            for j in 0..m {
                let sa = s * row[j];
                let h = &mut hess[j * m..(j + 1) * m];
                for k in j..m {
                    h[k] += sa * row[k];
                }
            }
        }
        for j in 0..m {
            for k in j..m {
                hess[j * m + k] *= self.c;
            }
            if j > 0 {
                hess[j * m + j] += 1.0;
            }
        }
        hess
    }

    /// Newton's method from the intercept-only optimum `b = ln(n₊/n₋)`, `w = 0`.
    fn solve(&self, tol: f64, max_iter: usize, n_pos: usize) -> Solution {
        let (n, m) = (self.n, self.m);
        let mut theta = vec![0.0; m];
        theta[0] = libm::log(n_pos as f64 / (n - n_pos) as f64);
        let scale = 1.0 / (self.c * n as f64);
        let mut z = vec![0.0; n];
        let mut weights = vec![0.0; n];
        let mut u = vec![0.0; n];
        let mut trial_z = vec![0.0; n];
        let mut trial = vec![0.0; m];
        let mut iterations = 0;
        let stop = |theta: Vec<f64>, iterations, converged| Solution {
            theta,
            iterations,
            converged,
        };
        loop {
            self.margins(&theta, &mut z);
            let g = self.gradient(&theta, &z, &mut weights);
            let gmax = g.gradient.iter().fold(0.0_f64, |acc, v| acc.max(v.abs()));
            if gmax * scale < tol {
                return stop(theta, iterations, true);
            }
            if iterations == max_iter {
                return stop(theta, iterations, false);
            }
            let neg_grad: Vec<f64> = g.gradient.iter().map(|v| -v).collect();
            let Some(step) = solve_spd(&self.hessian(&weights), m, &neg_grad) else {
                return stop(theta, iterations, false);
            };
            // gᵀΔ = −λ², λ the Newton decrement; negative for a positive definite system.
            let mut slope = 0.0;
            for (&gj, &sj) in g.gradient.iter().zip(&step) {
                slope += gj * sj;
            }
            if slope >= 0.0 || slope.is_nan() {
                // Rounding has the last word: there is no descent direction left to follow.
                return stop(theta, iterations, false);
            }
            // Along the step z(t) = z + t·u with u = A·Δ: one pass for u, none per trial.
            self.margins(&step, &mut u);
            let mut t = 1.0;
            let mut accepted = -slope <= PURE_NEWTON * (1.0 + g.objective.abs());
            let mut halvings = 0;
            while !accepted {
                for (tz, (&zi, &ui)) in trial_z.iter_mut().zip(z.iter().zip(&u)) {
                    *tz = zi + t * ui;
                }
                for (tt, (&th, &sj)) in trial.iter_mut().zip(theta.iter().zip(&step)) {
                    *tt = th + t * sj;
                }
                if self.objective(&trial, &trial_z) <= g.objective + ARMIJO * t * slope {
                    accepted = true;
                } else if halvings == MAX_HALVINGS {
                    return stop(theta, iterations, false);
                } else {
                    t *= 0.5;
                    halvings += 1;
                }
            }
            for (th, &sj) in theta.iter_mut().zip(&step) {
                *th += t * sj;
            }
            iterations += 1;
        }
    }
}

/// `−log σ(z)` if `y`, else `−log(1 − σ(z))`, given `e = exp(−|z|)`: with `μ = ±z` the
/// margin of the observed class, `log(1 + exp(−μ)) = max(−μ, 0) + log1p(e)`.
fn logloss(y: bool, z: f64, e: f64) -> f64 {
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
fn solve_spd(h: &[f64], m: usize, b: &[f64]) -> Option<Vec<f64>> {
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
fn cholesky_upper(h: &[f64], m: usize, ridge: f64) -> Option<Vec<f64>> {
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
