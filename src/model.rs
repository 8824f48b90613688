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

use std::sync::{Mutex, PoisonError};

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
    /// Whether the gradient test of [`LogisticRegression::tol`] was met: the same as
    /// `stop == FitStop::Converged`.
    pub converged: bool,
    /// Why the solver stopped.
    pub stop: FitStop,
}

/// Why Newton's method stopped. Only [`FitStop::Converged`] means the weights are the
/// optimum to the solver's tolerance; every other reason leaves the last iterate, which
/// is no fitted model and must not be scored as one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FitStop {
    /// The gradient test of [`LogisticRegression::tol`] was met.
    Converged,
    /// `max_iter` Newton iterations were taken without meeting the test.
    IterationLimit,
    /// The line search halved the step to nothing without the objective decreasing.
    LineSearchStalled,
    /// The Newton direction is not a descent direction (rounding has the last word).
    NoDescent,
    /// The Hessian could not be factorised (not positive definite in floating point).
    SingularHessian,
    /// A margin, gradient or step stopped being a finite number (overflow), or the
    /// gradient test's scale 1/(C·n) is not a positive finite number.
    NonFinite,
}

impl FitStop {
    /// Why the fit is not a model, in words (None when it converged).
    pub fn failure(self) -> Option<&'static str> {
        match self {
            FitStop::Converged => None,
            FitStop::IterationLimit => Some("the solver reached its iteration limit"),
            FitStop::LineSearchStalled => Some("the line search stalled"),
            FitStop::NoDescent => Some("the Newton step is no descent direction"),
            FitStop::SingularHessian => Some("the Hessian is singular"),
            FitStop::NonFinite => Some("a number overflowed"),
        }
    }
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
        let n_pos = self.check(x.rows(), y)?;
        let design = Design::new(x)?;
        Ok(self.solve(&design, y, n_pos))
    }

    /// [`LogisticRegression::fit`] on training rows standardised beforehand: the same float
    /// operations, so the same bits, as `fit(x, y)` for the `x` the design was built from.
    /// Fits that differ only in their labels (label permutations) share one [`Design`].
    ///
    /// Errors as [`LogisticRegression::fit`] (the finiteness of the features was checked by
    /// [`Design::new`]).
    pub fn fit_design(&self, design: &Design, y: &[bool]) -> Result<FittedLogistic> {
        let n_pos = self.check(design.rows(), y)?;
        Ok(self.solve(design, y, n_pos))
    }

    /// The checks of a fit that do not look at feature values, in the order `fit` makes
    /// them; the number of positive labels.
    fn check(&self, rows: usize, y: &[bool]) -> Result<usize> {
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
        if rows == 0 {
            return Err(Error::invalid("logistic regression: no training rows"));
        }
        if y.len() != rows {
            return Err(Error::invalid(format!(
                "logistic regression: {} labels for {} rows",
                y.len(),
                rows
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
        Ok(n_pos)
    }

    fn solve(&self, design: &Design, y: &[bool], n_pos: usize) -> FittedLogistic {
        let solution = design
            .problem(y, self.c)
            .solve(self.tol, self.max_iter, n_pos);
        FittedLogistic {
            standardizer: design.standardizer.clone(),
            intercept: solution.theta[0],
            coefficients: solution.theta[1..].to_vec(),
            iterations: solution.iterations,
            converged: solution.stop == FitStop::Converged,
            stop: solution.stop,
        }
    }
}

/// Training rows standardised once: the [`Standardizer`] of `x` and the rows augmented as
/// `[1, x̃ᵢ₁ … x̃ᵢₚ]` (row-major), what every Newton iteration reads. It depends on the
/// features only, so fits that differ in their labels alone can share it
/// ([`LogisticRegression::fit_design`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Design {
    standardizer: Standardizer,
    n: usize,
    /// Parameters including the intercept: p + 1.
    m: usize,
    a: Vec<f64>,
    /// The same values column-major (m × n): what the margins read.
    columns: Vec<f64>,
    /// Upper bounds of `Σᵢ |aᵢⱼ|` per column (for [`Problem::full_step_certain`]).
    column_abs_sums: Vec<f64>,
    /// The Hessians at fits' starting points, shared by fits on this design.
    start_hessians: StartHessians,
}

/// Hessians at the starting point of [`Problem::newton`], by `(s₀, C)`.
///
/// At the start every margin is the intercept `b = ln(n₊/n₋)`, so every row has the same
/// weight `s₀ = σ(b)(1 − σ(b))` and the Hessian is a function of the design, `s₀` and `C`
/// alone, not of which rows are positive. Label permutations keep `n₊`, hence `b` and `s₀`:
/// every permuted fit on a design starts from the same Hessian, computed by the first and
/// reused bit for bit by the others (the same function of the same values: the same bits).
#[derive(Debug, Default)]
struct StartHessians(Mutex<Vec<StartHessian>>);

#[derive(Debug, Clone)]
struct StartHessian {
    weight_bits: u64,
    c_bits: u64,
    hessian: Vec<f64>,
}

/// Distinct `(s₀, C)` pairs kept per design: a design serves one `C` and, under label
/// permutation, one class balance; anything beyond is computed as if uncached.
const START_HESSIANS_KEPT: usize = 4;

impl StartHessians {
    fn get(&self, weight: f64, c: f64) -> Option<Vec<f64>> {
        let kept = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        kept.iter()
            .find(|h| h.weight_bits == weight.to_bits() && h.c_bits == c.to_bits())
            .map(|h| h.hessian.clone())
    }

    fn keep(&self, weight: f64, c: f64, hessian: &[f64]) {
        let mut kept = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let known = kept
            .iter()
            .any(|h| h.weight_bits == weight.to_bits() && h.c_bits == c.to_bits());
        if !known && kept.len() < START_HESSIANS_KEPT {
            kept.push(StartHessian {
                weight_bits: weight.to_bits(),
                c_bits: c.to_bits(),
                hessian: hessian.to_vec(),
            });
        }
    }
}

/// A cache: copies start empty, and it never decides whether two designs are equal.
impl Clone for StartHessians {
    fn clone(&self) -> Self {
        StartHessians::default()
    }
}

impl PartialEq for StartHessians {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Design {
    /// Learns the standardiser of `x` and standardises its rows. Errors on zero rows or any
    /// non-finite value (as [`Standardizer::fit`]).
    pub fn new(x: &Matrix) -> Result<Design> {
        let standardizer = Standardizer::fit(x)?;
        let (n, m) = (x.rows(), x.cols() + 1);
        let mut a = Vec::with_capacity(n * m);
        for i in 0..n {
            a.push(1.0);
            for (k, &v) in x.row(i).iter().enumerate() {
                a.push(standardizer.transform_value(k, v));
            }
        }
        let mut columns: Vec<f64> = Vec::with_capacity(n * m);
        for j in 0..m {
            columns.extend(a.iter().skip(j).step_by(m));
        }
        // Sums of |values| rounded below the exact sums by at most γₙ of them; widened
        // past that (the same margin as `sum_bounds`) they are upper bounds.
        let widen = 1.0 + 4.0 * UNIT_ROUNDOFF * (n + 1) as f64;
        let column_abs_sums = columns
            .chunks_exact(n)
            .map(|column| column.iter().map(|v| v.abs()).sum::<f64>() * widen)
            .collect();
        Ok(Design {
            standardizer,
            n,
            m,
            a,
            columns,
            column_abs_sums,
            start_hessians: StartHessians::default(),
        })
    }

    /// The training problem on these rows with labels `y` and inverse regularisation `c`.
    fn problem<'d>(&'d self, y: &'d [bool], c: f64) -> Problem<'d> {
        Problem {
            n: self.n,
            m: self.m,
            a: &self.a,
            columns: &self.columns,
            column_abs_sums: &self.column_abs_sums,
            y,
            c,
            start_hessians: &self.start_hessians,
        }
    }

    /// The number of training rows.
    pub fn rows(&self) -> usize {
        self.n
    }

    /// The training rows' feature statistics.
    pub fn standardizer(&self) -> &Standardizer {
        &self.standardizer
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
        probabilities(self.decision_function(x))
    }

    /// [`FittedLogistic::predict_proba`] of rows already standardised with this model's
    /// standardiser (`self.standardizer.transform(x)`): the same bits as
    /// `predict_proba(x)`, without standardising again. For test rows scored by many fits
    /// that share one [`Design`].
    ///
    /// # Panics
    /// If `x_standardized` does not have one column per coefficient.
    pub fn predict_proba_standardized(&self, x_standardized: &Matrix) -> Vec<f64> {
        assert_eq!(
            x_standardized.cols(),
            self.coefficients.len(),
            "matrix has {} columns, the model {} features",
            x_standardized.cols(),
            self.coefficients.len()
        );
        let z: Vec<f64> = (0..x_standardized.rows())
            .map(|i| {
                let mut z = self.intercept;
                for (&w, &v) in self.coefficients.iter().zip(x_standardized.row(i)) {
                    z += w * v;
                }
                z
            })
            .collect();
        probabilities(z)
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
///
/// Every sum below is the plain one of its doc comment, from `0.0`, in index order. The
/// kernels only choose which *independent* sums run side by side (several rows' margins,
/// a block of gradient or Hessian entries held in registers over all rows), never the
/// order of the additions inside one sum, so the result has the bits of the textbook loop.
struct Problem<'d> {
    n: usize,
    /// Parameters including the intercept: p + 1.
    m: usize,
    /// Augmented standardised rows, row-major n × m.
    a: &'d [f64],
    /// The same values column-major, m × n.
    columns: &'d [f64],
    /// Upper bounds of `Σᵢ |aᵢⱼ|`, one per column.
    column_abs_sums: &'d [f64],
    y: &'d [bool],
    c: f64,
    start_hessians: &'d StartHessians,
}

/// What a Newton iteration computed at its point θ: the margins `z`, `eᵢ = exp(−|zᵢ|)`,
/// the weights `sᵢ` and the gradient (see [`Problem::gradient`]).
struct Point<'p> {
    theta: &'p [f64],
    z: &'p [f64],
    e: &'p [f64],
    weights: &'p [f64],
    gradient: &'p [f64],
}

/// The sums over the rows of [`Problem::full_step_certain`], `LANES` rows side by side.
#[derive(Default)]
struct StepSums {
    /// `sᵢδᵢ²·(½ + a/6 + a²/24 + a³/120 + a⁴/720)`, `a = |δᵢ|`.
    near: [f64; LANES],
    /// `sᵢδᵢ²·a⁵`.
    far: [f64; LANES],
    /// `max |δᵢ|`.
    reach: [f64; LANES],
    /// `|zᵢ| + |uᵢ|`.
    size: [f64; LANES],
    /// `max(−μᵢ, 0)`.
    hinges: [f64; LANES],
    /// `eᵢ`.
    exps: [f64; LANES],
}

impl StepSums {
    #[inline(always)]
    fn add(
        &mut self,
        z: &[f64; LANES],
        u: &[f64; LANES],
        e: &[f64; LANES],
        s: &[f64; LANES],
        y: &[bool; LANES],
    ) {
        for k in 0..LANES {
            let delta = (z[k] + 1.0 * u[k]) - z[k];
            let a = delta.abs();
            let curvature = s[k] * (delta * delta);
            let series = 0.5 + a * (1.0 / 6.0 + a * (1.0 / 24.0 + a * (1.0 / 120.0 + a / 720.0)));
            self.near[k] += curvature * series;
            self.far[k] += curvature * ((a * a) * (a * a) * a);
            // A plain comparison, which vectorises; it passes over a NaN, but a NaN δ is
            // already in `near` (and so fails the test).
            self.reach[k] = if a > self.reach[k] { a } else { self.reach[k] };
            self.size[k] += z[k].abs() + u[k].abs();
            let minus_mu = if y[k] { -z[k] } else { z[k] };
            self.hinges[k] += if minus_mu > 0.0 { minus_mu } else { 0.0 };
            self.exps[k] += e[k];
        }
    }
}

/// Per-row bounds of the loss terms (see [`Problem::sum_bounds`]).
struct Scratch {
    /// The bound functions' input, padded to whole blocks of `LANES` rows.
    input: Vec<f64>,
    lo: Vec<f64>,
    hi: Vec<f64>,
}

struct Solution {
    theta: Vec<f64>,
    iterations: usize,
    stop: FitStop,
}

impl Problem<'_> {
    /// `outᵢ = Σⱼ vⱼ·aᵢⱼ` for every row: the margins `z` for `v = θ`. Eight rows at a time
    /// from the column-major copy, each row with its own sum over `j` in order.
    #[inline(always)]
    fn margins(&self, v: &[f64], out: &mut [f64]) {
        let n = self.n;
        assert_eq!(v.len(), self.m, "one value per column");
        assert_eq!(out.len(), n, "one margin per row");
        let full = n - n % MARGIN_ROWS;
        for i0 in (0..full).step_by(MARGIN_ROWS) {
            let mut acc = [0.0; MARGIN_ROWS];
            for (&t, column) in v.iter().zip(self.columns.chunks_exact(n)) {
                let a: &[f64; MARGIN_ROWS] = column[i0..i0 + MARGIN_ROWS]
                    .try_into()
                    .expect("a block of rows");
                for (s, &x) in acc.iter_mut().zip(a) {
                    *s += t * x;
                }
            }
            out[i0..i0 + MARGIN_ROWS].copy_from_slice(&acc);
        }
        for (i, o) in out.iter_mut().enumerate().skip(full) {
            let mut acc = 0.0;
            for (&t, column) in v.iter().zip(self.columns.chunks_exact(n)) {
                acc += t * column[i];
            }
            *o = acc;
        }
    }

    /// `½‖w‖²` (the intercept θ₀ is not penalised).
    #[inline(always)]
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
        for (&zi, &yi) in z.iter().zip(self.y) {
            loss += logloss(yi, zi, libm::exp(-zi.abs()));
        }
        self.c * loss + Self::penalty(theta)
    }

    /// [`Problem::objective`] at the margins `z` of the last [`Problem::gradient`], from the
    /// `eᵢ = exp(−|zᵢ|)` it kept: the same operations on the same values.
    fn objective_at(&self, theta: &[f64], z: &[f64], e: &[f64]) -> f64 {
        let mut loss = 0.0;
        for ((&zi, &yi), &ei) in z.iter().zip(self.y).zip(e) {
            loss += logloss(yi, zi, ei);
        }
        self.c * loss + Self::penalty(theta)
    }

    /// [`Problem::objective_at`], computed at most once per iteration (`cache`).
    fn objective_once(&self, cache: &mut Option<f64>, theta: &[f64], z: &[f64], e: &[f64]) -> f64 {
        *cache.get_or_insert_with(|| self.objective_at(theta, z, e))
    }

    /// Bounds `(lo, hi)` of [`Problem::objective_at`] *as it computes*, without a
    /// logarithm: see [`log1p_bounds`]. `None` unless every margin is finite.
    #[inline(always)]
    fn objective_bounds_at(
        &self,
        theta: &[f64],
        z: &[f64],
        e: &[f64],
        uniform: bool,
        scratch: &mut Scratch,
    ) -> Option<(f64, f64)> {
        let n = self.n;
        if uniform {
            // Every eᵢ is e₀ (at the starting point): one evaluation serves every row.
            let (mut lo, mut hi) = ([0.0; LANES], [0.0; LANES]);
            log1p_bounds(&[e[0]; LANES], &mut lo, &mut hi);
            scratch.lo[..n].fill(lo[0]);
            scratch.hi[..n].fill(hi[0]);
            self.add_hinges(z, scratch);
        } else {
            scratch.input[..n].copy_from_slice(e);
            self.term_bounds::<false>(z, scratch);
        }
        self.sum_bounds(theta, z, scratch)
    }

    /// Bounds `(lo, hi)` of [`Problem::objective`] *as it computes*, without an exponential
    /// or a logarithm: see [`softplus_bounds`]. `None` unless every margin is finite.
    #[inline(always)]
    fn objective_bounds(
        &self,
        theta: &[f64],
        z: &[f64],
        scratch: &mut Scratch,
    ) -> Option<(f64, f64)> {
        for (x, &zi) in scratch.input.iter_mut().zip(z) {
            *x = zi.abs();
        }
        self.term_bounds::<true>(z, scratch);
        self.sum_bounds(theta, z, scratch)
    }

    /// Per row, bounds of the loss term `max(−μᵢ, 0) + B` from bounds of its `log1p` part
    /// `B`, computed from `scratch.input` `LANES` rows at a time (the input is padded with
    /// zeros to whole blocks) by [`softplus_bounds`] if `SOFTPLUS`, else by
    /// [`log1p_bounds`]. (A const parameter, not a function argument: a function pointer
    /// or `Fn` would be called through a shim that is not compiled with the caller's
    /// vector width, see [`Problem::solve`].)
    #[inline(always)]
    fn term_bounds<const SOFTPLUS: bool>(&self, z: &[f64], scratch: &mut Scratch) {
        for ((x, l), h) in scratch
            .input
            .chunks_exact(LANES)
            .zip(scratch.lo.chunks_exact_mut(LANES))
            .zip(scratch.hi.chunks_exact_mut(LANES))
        {
            let (x, l, h) = (
                x.try_into().expect("a block"),
                l.try_into().expect("a block"),
                h.try_into().expect("a block"),
            );
            if SOFTPLUS {
                softplus_bounds(x, l, h);
            } else {
                log1p_bounds(x, l, h);
            }
        }
        self.add_hinges(z, scratch);
    }

    /// Adds each row's `max(−μᵢ, 0)` to the bounds of its `log1p` part (first n rows).
    #[inline(always)]
    fn add_hinges(&self, z: &[f64], scratch: &mut Scratch) {
        for (((&zi, &yi), l), h) in z
            .iter()
            .zip(self.y)
            .zip(scratch.lo.iter_mut())
            .zip(scratch.hi.iter_mut())
        {
            let a = (if yi { -zi } else { zi }).max(0.0);
            *l += a;
            *h += a;
        }
    }

    /// The objective's bounds from per-row loss-term bounds `lᵢ ≤ tᵢ ≤ hᵢ` (`tᵢ` the loss
    /// terms as [`Problem::objective`] computes them; all ≥ 0), then `·C + penalty`.
    ///
    /// The objective adds its terms in row order, one dependent addition after another.
    /// Here `Σ lᵢ` and `Σ hᵢ` are added in `SUM_LANES` interleaved lanes instead (which
    /// vectorise; the row-order sum waited on the latency of each addition), so they are
    /// not the objective's roundings: they are widened by the error bound of summation.
    /// Any order of adding n ≥ 0 terms is within `γ = k·u/(1 − k·u)` (relative, `u = 2⁻⁵³`,
    /// `k` the additions on the longest path, `≤ n + SUM_LANES`) of the exact sum (Higham,
    /// *Accuracy and Stability of Numerical Algorithms*, 2nd ed., §4.2). So the objective's
    /// loss `S ≥ Σtᵢ·(1 − γ) ≥ Σlᵢ·(1 − γ) ≥ L·(1 − γ)/(1 + γ)` for the lane sum `L`, and
    /// `S ≤ H·(1 + γ)/(1 − γ)`; `fl(L·(1 − δ))` and `fl(H·(1 + δ))` with
    /// `δ = 4u·(n + SUM_LANES + 1) ≥ 2γ + u` (for `n < 10¹²`) stay on their sides. (At
    /// 24,000 rows δ ≈ 1e-11, against the ≥ 1e-10 relative differences the step tests
    /// resolve; an undecided test computes the objective.) A lower sum below 2⁻⁹⁰⁰ gives
    /// the lower bound 0 (relative rounding bounds fail for subnormals; `S ≥ 0`), and the
    /// upper bound gets 1e-290 more. From there `·C + penalty` is rounded as the objective
    /// rounds it, and rounding is monotone (`fl(a + b)`, `fl(C·a)` with `C > 0` never
    /// decrease when `a` grows). `None` unless every margin and both sums are finite.
    #[inline(always)]
    fn sum_bounds(&self, theta: &[f64], z: &[f64], scratch: &Scratch) -> Option<(f64, f64)> {
        const TINY: f64 = f64::from_bits((1023 - 900) << 52); // 2⁻⁹⁰⁰
        let n = self.n;
        let (mut lo, mut hi) = ([0.0; SUM_LANES], [0.0; SUM_LANES]);
        // 0·zᵢ is NaN exactly when zᵢ is not finite, and a NaN stays in its lane's sum.
        let mut not_finite = [0.0; SUM_LANES];
        let rows = scratch.lo[..n]
            .chunks(SUM_LANES)
            .zip(scratch.hi[..n].chunks(SUM_LANES))
            .zip(z.chunks(SUM_LANES));
        for ((l, h), zc) in rows {
            for k in 0..l.len() {
                lo[k] += l[k];
                hi[k] += h[k];
                not_finite[k] += 0.0 * zc[k];
            }
        }
        let (mut lo_sum, mut hi_sum, mut nan) = (0.0, 0.0, 0.0);
        for k in 0..SUM_LANES {
            lo_sum += lo[k];
            hi_sum += hi[k];
            nan += not_finite[k];
        }
        if !(nan == 0.0 && lo_sum.is_finite() && hi_sum.is_finite()) {
            return None;
        }
        let delta = 4.0 * UNIT_ROUNDOFF * (n + SUM_LANES + 1) as f64;
        let lo_loss = if lo_sum < TINY {
            0.0
        } else {
            lo_sum * (1.0 - delta)
        };
        let hi_loss = hi_sum * (1.0 + delta) + 1e-290;
        let penalty = Self::penalty(theta);
        Some((self.c * lo_loss + penalty, self.c * hi_loss + penalty))
    }

    /// Whether the full Newton step Δ (slope `ŝ = ĝᵀΔ < 0`, `u = A·Δ` as [`Problem::margins`]
    /// computes it) is certain to be taken by the step decision of [`Problem::newton`],
    /// proven without computing the objective or its bounds: `true` only if it is
    /// (`false` says nothing). One pass over the rows.
    ///
    /// **Proof.** Write Φ for the objective in exact arithmetic as a function of the margins
    /// and the weights, at the computed margins: `Φθ = Φ(z, w)`, `ΦT = Φ(z̃, w̃)` with the
    /// trial's computed margins `z̃ᵢ = fl(zᵢ + uᵢ)` and weights `w̃ⱼ = fl(wⱼ + Δⱼ)` (what the
    /// trial evaluates at t = 1). Let u = 2⁻⁵³, ν = 4u(n + m + 16), A = 1e-290, and per
    /// row `μᵢ` the margin of the observed class, `bᵢ = max(−μᵢ, 0)`.
    ///
    /// 1. *Computed objectives.* Each loss term is `bᵢ` plus libm's log1p of libm's exp
    ///    (each < 1 ulp), all terms ≥ 0, so `|f̂ − Φ| ≤ νΦ + A` (A for underflow), as in
    ///    [`Problem::sum_bounds`].
    /// 2. *Sizes.* `bᵢ + eᵢ/2 ≤ bᵢ + log1p(eᵢ) ≤ bᵢ + eᵢ` (0 ≤ e ≤ 1), so Φθ lies between
    ///    `Lo = C·Σ(bᵢ + eᵢ/2) + ½‖w‖²` and `Hi = C·Σ(bᵢ + eᵢ) + ½‖w‖²`.
    /// 3. *Pure Newton.* If `−ŝ ≤ PURE_NEWTON·(1 + f)` for every `f ≥ (1 − ν)Lo − A`, then
    ///    it holds for f̂θ and for every upper bound of it, so `newton` takes the full step
    ///    whichever way its test goes (bounds or f̂θ).
    /// 4. *Armijo.* Otherwise `newton` takes the full step if `f̂T ≤ fl(f̂θ + fl(ARMIJO·ŝ))`
    ///    (its bounds decide as this comparison would), which by monotone rounding holds if
    ///    `ΦT(1 + ν) + A ≤ Φθ(1 − ν) − A + ARMIJO·ŝ·(1 + u)`.
    /// 5. *Taylor in the margins.* With `δᵢ = z̃ᵢ − zᵢ`, `rᵢ = σ(zᵢ) − yᵢ` and
    ///    `sᵢ = σ(zᵢ)(1 − σ(zᵢ))`: `ℓ(zᵢ + δᵢ) = ℓ(zᵢ) + rᵢδᵢ + δᵢ²∫₀¹(1 − τ)ℓ''(zᵢ + τδᵢ)dτ
    ///    ≤ ℓ(zᵢ) + rᵢδᵢ + sᵢδᵢ²·h(|δᵢ|)`, because `ℓ'' = s` and `|(ln s)'| = |1 − 2σ| ≤ 1`
    ///    give `s(z + x) ≤ s(z)e^|x|`, and `∫₀¹(1 − τ)e^(τa)dτ = h(a) = Σₖ aᵏ/(k + 2)!
    ///    ≤ ½ + a/6 + a²/24 + a³/120 + a⁴/720 + a⁵eᵃ/5040` (as `(k + 7)! ≥ 5040·k!`),
    ///    with `eᵃ ≤ e^D`, `D = max |δᵢ|` (the a⁵ term is small where a is). The penalty is
    ///    quadratic: `½‖w̃‖² − ½‖w‖² = wᵀ(w̃ − w) + ½‖w̃ − w‖²`. So `ΦT − Φθ ≤ Lin + C·R +
    ///    ½‖w̃ − w‖²` with `Lin = C·Σ rᵢδᵢ + wᵀ(w̃ − w)` and R the sum of those remainder
    ///    bounds.
    /// 6. *The linear term against the computed slope.* `|δᵢ − aᵢ·Δ| ≤ u|zᵢ + uᵢ| +
    ///    γₘΣⱼ|aᵢⱼΔⱼ|`, `|w̃ⱼ − wⱼ − Δⱼ| ≤ u|w̃ⱼ|`, the computed residuals and weights are
    ///    within 13u (relative) of `rᵢ`, `sᵢ` (|r| ≤ 1), and the gradient's and slope's sums
    ///    are within γₙ₊ₘ₊₁₂ of their absolute sums; altogether
    ///    `Lin ≤ ŝ + ν(2C·K + G + 2W + C·S)` with `K = Σⱼ|Δⱼ|·Σᵢ|aᵢⱼ|`, `G = Σⱼ|ĝⱼΔⱼ|`,
    ///    `W = Σⱼ≥₁|wⱼ|(|Δⱼ| + |w̃ⱼ|)` and `S = Σᵢ(|zᵢ| + |uᵢ|)`.
    /// 7. If `−ŝ·(1 − ARMIJO(1 + u)) ≥ ν(2C·K + G + 2W + C·S) + C·R + ½‖w̃ − w‖² + 2νHi + 2A`,
    ///    the right side of 5 is negative, so `ΦT ≤ Φθ ≤ Hi`, and 4 holds.
    ///
    /// Both tests are made with every computed quantity widened by its own rounding (sums
    /// of nonnegative terms by ν, the sides by 1e-6). Any NaN or infinity fails them. The
    /// unit tests run every step the long way as well and assert that a step found certain
    /// is taken.
    #[inline(always)]
    fn full_step_certain(&self, at: &Point, step: &[f64], slope: f64, u: &[f64]) -> bool {
        const A: f64 = 1e-290;
        const WIDE: f64 = 1.0 + 1e-6;
        let (n, m, c) = (self.n, self.m, self.c);
        let nu = 4.0 * UNIT_ROUNDOFF * (n + m + 16) as f64;
        // One pass, in lanes (the order of a sum of nonnegative terms does not change its
        // error bound): the remainder bounds (the a⁵ part without its e^D), max |δᵢ|,
        // Σ(|zᵢ| + |uᵢ|), Σbᵢ and Σeᵢ.
        let mut sums = StepSums::default();
        let whole = n - n % LANES;
        for i in (0..whole).step_by(LANES) {
            let block =
                |v: &[f64]| -> [f64; LANES] { v[i..i + LANES].try_into().expect("LANES rows") };
            let y: &[bool; LANES] = self.y[i..i + LANES].try_into().expect("LANES rows");
            sums.add(&block(at.z), &block(u), &block(at.e), &block(at.weights), y);
        }
        if whole < n {
            // The last rows padded with zeros, which add exact zeros to every sum.
            let block = |v: &[f64]| -> [f64; LANES] {
                std::array::from_fn(|k| v.get(whole + k).copied().unwrap_or(0.0))
            };
            let y: [bool; LANES] = std::array::from_fn(|k| self.y.get(whole + k) == Some(&true));
            sums.add(
                &block(at.z),
                &block(u),
                &block(at.e),
                &block(at.weights),
                &y,
            );
        }
        let lanes = |v: [f64; LANES]| v.iter().sum::<f64>();
        let reach = sums.reach.iter().fold(0.0_f64, |acc, &v| acc.max(v));
        let (hinges, exps, size) = (lanes(sums.hinges), lanes(sums.exps), lanes(sums.size));
        let (near, far) = (lanes(sums.near), lanes(sums.far));
        let (mut k_sum, mut g_sum, mut w_sum, mut moved, mut norm) = (0.0, 0.0, 0.0, 0.0, 0.0);
        let columns = step.iter().zip(self.column_abs_sums).zip(at.gradient);
        for (j, ((&dj, &abs_sum), &gj)) in columns.enumerate() {
            k_sum += dj.abs() * abs_sum;
            g_sum += (gj * dj).abs();
            if j > 0 {
                let w = at.theta[j];
                let trial = w + 1.0 * dj;
                w_sum += w.abs() * (dj.abs() + trial.abs());
                moved += (trial - w) * (trial - w);
                norm += w * w;
            }
        }
        let lo = (c * (hinges + 0.5 * exps) + 0.5 * norm) * (1.0 - nu) * (1.0 - nu) - A;
        if -slope * WIDE <= PURE_NEWTON * (1.0 + lo.max(0.0) / WIDE) {
            return true;
        }
        let hi = (c * (hinges + exps) + 0.5 * norm) * (1.0 + nu) + A;
        let linear = nu * (2.0 * c * k_sum + g_sum + 2.0 * w_sum + c * size);
        let d = reach * (1.0 + 4.0 * UNIT_ROUNDOFF);
        let remainder = c * ((near + far * libm::exp(d) / 5040.0) * (1.0 + nu) + A);
        let right = linear + remainder + 0.5 * moved * (1.0 + nu) + 2.0 * nu * hi + 2.0 * A;
        -slope * (1.0 - 1.0001 * ARMIJO) >= right * WIDE
    }

    /// The gradient `C·Σ rᵢ·aᵢ + [0, w]` at θ (margins `z`, `eᵢ = exp(−|zᵢ|)` with libm's
    /// bits), with `rᵢ = σ(zᵢ) − yᵢ`; fills per row the residual `rᵢ` and `weights` with
    /// `sᵢ = σ(zᵢ)(1 − σ(zᵢ))`.
    #[inline(always)]
    fn gradient(
        &self,
        theta: &[f64],
        z: &[f64],
        e: &[f64],
        residual: &mut [f64],
        weights: &mut [f64],
    ) -> Vec<f64> {
        for ((((&zi, &yi), &ez), ri), w) in z
            .iter()
            .zip(self.y)
            .zip(e.iter())
            .zip(residual.iter_mut())
            .zip(weights.iter_mut())
        {
            let inv = 1.0 / (1.0 + ez);
            // σ(z) and 1 − σ(z) without cancellation: σ(|z|) = 1/(1+e), σ(−|z|) = e/(1+e).
            let (p, q) = if zi >= 0.0 {
                (inv, ez * inv)
            } else {
                (ez * inv, inv)
            };
            *ri = if yi { -q } else { p };
            *w = p * q;
        }
        let mut grad = vec![0.0; self.m];
        for (rows, w) in self
            .a
            .chunks(ROW_CHUNK * self.m)
            .zip(residual.chunks(ROW_CHUNK))
        {
            let mut k0 = 0;
            while k0 < self.m {
                k0 += match self.m - k0 {
                    16.. => column_sums::<16>(rows, self.m, w, k0, &mut grad),
                    12.. => column_sums::<12>(rows, self.m, w, k0, &mut grad),
                    10.. => column_sums::<10>(rows, self.m, w, k0, &mut grad),
                    8.. => column_sums::<8>(rows, self.m, w, k0, &mut grad),
                    4.. => column_sums::<4>(rows, self.m, w, k0, &mut grad),
                    2.. => column_sums::<2>(rows, self.m, w, k0, &mut grad),
                    _ => column_sums::<1>(rows, self.m, w, k0, &mut grad),
                };
            }
        }
        for (j, g) in grad.iter_mut().enumerate() {
            *g *= self.c;
            if j > 0 {
                *g += theta[j];
            }
        }
        grad
    }

    /// Upper triangle (row-major, full m × m storage) of `C·Σ sᵢ·aᵢaᵢᵀ + diag(0, 1, …, 1)`:
    /// entry `(j, k ≥ j)` is `Σᵢ (sᵢ·aᵢⱼ)·aᵢₖ` over rows in order, then `·C` (`+1` on the
    /// diagonal but the intercept's). Rows go in chunks that stay in the L1 cache; per chunk,
    /// the triangle is covered by tiles of up to 4 × 8 entries whose sums are carried in
    /// registers over the chunk's rows. (Each sum is a chain of dependent additions; 4 × 8
    /// keeps eight independent 4-wide chains in flight, enough to hide the latency of an
    /// addition on AVX2: 10% faster than 4 × 4 at 28 features.) A strip's last 1–7 columns
    /// are one tile, and the last two rows one strip (one pass over the chunk each instead
    /// of up to three: 5–8% faster fits at 9 and 28 features). Any tiling gives the same
    /// bits: each entry is summed by one tile, over the rows in order.
    #[inline(always)]
    fn hessian(&self, weights: &[f64]) -> Vec<f64> {
        let m = self.m;
        let mut hess = vec![0.0; m * m];
        for (rows, s) in self.a.chunks(ROW_CHUNK * m).zip(weights.chunks(ROW_CHUNK)) {
            let mut j0 = 0;
            while j0 < m {
                let height = match m - j0 {
                    4.. => 4,
                    2.. => 2,
                    _ => 1,
                };
                let mut k0 = j0;
                while k0 < m {
                    k0 += match (height, m - k0) {
                        (4, 8..) => hessian_tile::<4, 8>(rows, m, s, j0, k0, &mut hess),
                        (4, 7) => hessian_tile::<4, 7>(rows, m, s, j0, k0, &mut hess),
                        (4, 6) => hessian_tile::<4, 6>(rows, m, s, j0, k0, &mut hess),
                        (4, 5) => hessian_tile::<4, 5>(rows, m, s, j0, k0, &mut hess),
                        (4, 4) => hessian_tile::<4, 4>(rows, m, s, j0, k0, &mut hess),
                        (4, 3) => hessian_tile::<4, 3>(rows, m, s, j0, k0, &mut hess),
                        (4, 2) => hessian_tile::<4, 2>(rows, m, s, j0, k0, &mut hess),
                        (4, _) => hessian_tile::<4, 1>(rows, m, s, j0, k0, &mut hess),
                        (2, 2..) => hessian_tile::<2, 2>(rows, m, s, j0, k0, &mut hess),
                        (2, _) => hessian_tile::<2, 1>(rows, m, s, j0, k0, &mut hess),
                        (_, _) => hessian_tile::<1, 1>(rows, m, s, j0, k0, &mut hess),
                    };
                }
                j0 += height;
            }
        }
        for j in 0..m {
            // Tiles that straddle the diagonal also summed entries below it: not part of H.
            hess[j * m..j * m + j].fill(0.0);
            for k in j..m {
                hess[j * m + k] *= self.c;
            }
            if j > 0 {
                hess[j * m + j] += 1.0;
            }
        }
        hess
    }

    /// [`Problem::hessian`] at the starting point, where every weight is `s₀ = weights[0]`:
    /// from the design's [`StartHessians`] when a fit on it already computed it.
    #[inline(always)]
    fn start_hessian(&self, weights: &[f64]) -> Vec<f64> {
        let weight = weights[0];
        debug_assert!(weights.iter().all(|w| w.to_bits() == weight.to_bits()));
        if let Some(hessian) = self.start_hessians.get(weight, self.c) {
            return hessian;
        }
        let hessian = self.hessian(weights);
        self.start_hessians.keep(weight, self.c, &hessian);
        hessian
    }

    /// [`Problem::newton`], compiled for AVX2 when the CPU has it.
    ///
    /// Both copies are the same source code: the same IEEE additions, multiplications and
    /// divisions on the same values in the same order, which round identically in 2-wide
    /// (SSE2) and 4-wide (AVX2) registers, and no FMA (the `fma` feature is not enabled,
    /// and Rust never fuses `a * b + c` anyway). So the fit has the same bits on every CPU;
    /// `tests::both_solvers_have_the_same_bits` compares the two copies here, and
    /// `tests/determinism.rs` compares whole runs with a CPU without AVX (qemu, Nehalem).
    fn solve(&self, tol: f64, max_iter: usize, n_pos: usize) -> Solution {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            #[allow(
                unsafe_code,
                reason = "calling a #[target_feature] function, the crate's one unsafe block"
            )]
            // SAFETY: `newton_avx2` requires AVX2 only, and the CPU was just found to have it.
            return unsafe { self.newton_avx2(tol, max_iter, n_pos) };
        }
        self.newton(tol, max_iter, n_pos)
    }

    /// [`Problem::newton`] with AVX2 enabled: its kernels are `#[inline(always)]`, so they
    /// are compiled into this copy with 4-wide vectors.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn newton_avx2(&self, tol: f64, max_iter: usize, n_pos: usize) -> Solution {
        self.newton(tol, max_iter, n_pos)
    }

    /// Newton's method from the intercept-only optimum `b = ln(n₊/n₋)`, `w = 0`.
    ///
    /// The objective `f` at θ is needed only to decide on the step: skipped when the
    /// gradient test stops, and when a lower bound of it already passes the pure-Newton
    /// test (`λ² ≤ PURE_NEWTON·(1 + f)` then holds for `f` too); the line search's
    /// direction `u = A·Δ` is computed only when a trial step is tested. At the starting
    /// point every margin is `b`, so the margins, `exp(−|z|)` and the bounds of the loss's
    /// `log1p` part are one value each, computed once (the same bits as row by row).
    #[inline(always)]
    fn newton(&self, tol: f64, max_iter: usize, n_pos: usize) -> Solution {
        let (n, m) = (self.n, self.m);
        let mut theta = vec![0.0; m];
        theta[0] = libm::log(n_pos as f64 / (n - n_pos) as f64);
        let scale = 1.0 / (self.c * n as f64);
        let mut z = vec![0.0; n];
        let stop = |theta: Vec<f64>, iterations, stop| Solution {
            theta,
            iterations,
            stop,
        };
        if !(scale > 0.0 && scale.is_finite()) {
            // 1/(C·n) rounds to 0 (C ≈ 1e305) or overflows: the gradient test would pass
            // at the start (0 < tol) without a single step. Experiments keep C in
            // `experiment::C_RANGE`, where this never happens.
            return stop(theta, 0, FitStop::NonFinite);
        }
        let mut e = vec![0.0; n];
        let mut residual = vec![0.0; n];
        let mut weights = vec![0.0; n];
        let mut u = vec![0.0; n];
        let mut trial_z = vec![0.0; n];
        let mut trial = vec![0.0; m];
        let padded = n.div_ceil(LANES) * LANES;
        let mut scratch = Scratch {
            input: vec![0.0; padded],
            lo: vec![0.0; padded],
            hi: vec![0.0; padded],
        };
        let mut iterations = 0;
        loop {
            if iterations == 0 {
                // θ = (b, 0, …, 0): every margin is exactly b (`margins` adds 0 + b·1, then
                // ±0 = 0·aᵢⱼ, and b is never −0), so every eᵢ is libm's exp(−|b|).
                z.fill(theta[0]);
                e.fill(libm::exp(-theta[0].abs()));
            } else {
                self.margins(&theta, &mut z);
                exp_neg_abs(&z, &mut e);
            }
            let gradient = self.gradient(&theta, &z, &e, &mut residual, &mut weights);
            let gmax = gradient.iter().fold(0.0_f64, |acc, v| acc.max(v.abs()));
            if gmax * scale < tol {
                return stop(theta, iterations, FitStop::Converged);
            }
            if !gmax.is_finite() {
                return stop(theta, iterations, FitStop::NonFinite);
            }
            if iterations == max_iter {
                return stop(theta, iterations, FitStop::IterationLimit);
            }
            let neg_grad: Vec<f64> = gradient.iter().map(|v| -v).collect();
            let hessian = if iterations == 0 {
                self.start_hessian(&weights)
            } else {
                self.hessian(&weights)
            };
            let Some(step) = solve_spd(&hessian, m, &neg_grad) else {
                return stop(theta, iterations, FitStop::SingularHessian);
            };
            // gᵀΔ = −λ², λ the Newton decrement; negative for a positive definite system.
            let mut slope = 0.0;
            for (&gj, &sj) in gradient.iter().zip(&step) {
                slope += gj * sj;
            }
            if slope >= 0.0 || slope.is_nan() {
                // Rounding has the last word: there is no descent direction left to follow.
                return stop(theta, iterations, FitStop::NoDescent);
            }
            // The step is decided exactly as by comparing computed objective values, but
            // those values are computed only when nothing cheaper decides. First, a full
            // step (t = 1) can be certain to be taken: below `PURE_NEWTON` it is taken
            // whatever f is (`1 + |f| ≥ 1`; f is never NaN here: z has no NaN, or the slope
            // would be NaN), and [`Problem::full_step_certain`] proves the Armijo test
            // passes from Taylor's theorem. Along the step z(t) = z + t·u with u = A·Δ: one
            // pass for u, none per trial.
            let (certain, u_ready) = if -slope <= PURE_NEWTON {
                (true, false)
            } else {
                self.margins(&step, &mut u);
                let at = Point {
                    theta: &theta,
                    z: &z,
                    e: &e,
                    weights: &weights,
                    gradient: &gradient,
                };
                (self.full_step_certain(&at, &step, slope, &u), true)
            };
            let mut t = 1.0;
            // Test builds decide every step the long way too, and check the two agree.
            if !certain || cfg!(test) {
                let pure_newton = |f: f64| -slope <= PURE_NEWTON * (1.0 + f.abs());
                let bounds =
                    self.objective_bounds_at(&theta, &z, &e, iterations == 0, &mut scratch);
                let mut objective = None;
                let mut accepted = match bounds {
                    Some((lo, _)) if pure_newton(lo) => true,
                    Some((_, hi)) if !pure_newton(hi) => false,
                    _ => pure_newton(self.objective_once(&mut objective, &theta, &z, &e)),
                };
                if !accepted && !u_ready {
                    self.margins(&step, &mut u);
                }
                let mut halvings = 0;
                while !accepted {
                    for (tz, (&zi, &ui)) in trial_z.iter_mut().zip(z.iter().zip(&u)) {
                        *tz = zi + t * ui;
                    }
                    for (tt, (&th, &sj)) in trial.iter_mut().zip(theta.iter().zip(&step)) {
                        *tt = th + t * sj;
                    }
                    // Armijo: f(trial) ≤ f + d, the right side rounded as `f + ARMIJO·t·slope`,
                    // which is monotone in f.
                    let d = ARMIJO * t * slope;
                    let (f_lo, f_hi) = match (objective, bounds) {
                        (Some(f), _) => (f, f),
                        (None, Some(b)) => b,
                        (None, None) => (f64::NAN, f64::NAN),
                    };
                    accepted = match self.objective_bounds(&trial, &trial_z, &mut scratch) {
                        Some((_, hi)) if hi <= f_lo + d => true,
                        Some((lo, _)) if lo > f_hi + d => false,
                        _ => {
                            self.objective(&trial, &trial_z)
                                <= self.objective_once(&mut objective, &theta, &z, &e) + d
                        }
                    };
                    #[cfg(test)]
                    assert!(
                        accepted || !certain,
                        "a full step found certain was rejected"
                    );
                    if accepted {
                        break;
                    } else if halvings == MAX_HALVINGS {
                        return stop(theta, iterations, FitStop::LineSearchStalled);
                    } else {
                        t *= 0.5;
                        halvings += 1;
                    }
                }
            }
            if theta
                .iter()
                .zip(&step)
                .any(|(&th, &sj)| !(th + t * sj).is_finite())
            {
                return stop(theta, iterations, FitStop::NonFinite);
            }
            for (th, &sj) in theta.iter_mut().zip(&step) {
                *th += t * sj;
            }
            iterations += 1;
        }
    }
}

/// The unit roundoff u = 2⁻⁵³ of f64 (round to nearest).
const UNIT_ROUNDOFF: f64 = 1.0 / 9_007_199_254_740_992.0;

/// Rows per chunk of the gradient and Hessian passes: 64 rows of up to ~30 columns stay in
/// the L1 cache while every tile of sums goes over them.
const ROW_CHUNK: usize = 64;

/// Lanes of the bound sums of [`Problem::sum_bounds`].
const SUM_LANES: usize = 8;

/// Rows whose margins are summed side by side (16: four independent 4-wide chains).
const MARGIN_ROWS: usize = 16;

/// Adds `Σᵢ wᵢ·aᵢₖ` over the rows of one chunk, in order, to `out[k]` for the `K` columns
/// from `k0`; the `K` running sums are carried side by side. Returns `K`.
#[inline(always)]
fn column_sums<const K: usize>(
    rows: &[f64],
    m: usize,
    w: &[f64],
    k0: usize,
    out: &mut [f64],
) -> usize {
    let mut acc: [f64; K] = out[k0..k0 + K].try_into().expect("K columns");
    for (row, &wi) in rows.chunks_exact(m).zip(w) {
        let a: &[f64; K] = row[k0..k0 + K].try_into().expect("K columns");
        for (s, &v) in acc.iter_mut().zip(a) {
            *s += wi * v;
        }
    }
    out[k0..k0 + K].copy_from_slice(&acc);
    K
}

/// Adds `Σᵢ (sᵢ·aᵢⱼ)·aᵢₖ` over the rows of one chunk, in order, to the Hessian entries
/// `(j0 + jj, k0 + kk)`, `jj < J`, `kk < K`; the `J·K` running sums are carried side by
/// side. Returns `K`.
#[inline(always)]
fn hessian_tile<const J: usize, const K: usize>(
    rows: &[f64],
    m: usize,
    s: &[f64],
    j0: usize,
    k0: usize,
    hess: &mut [f64],
) -> usize {
    let mut acc = [[0.0; K]; J];
    for (jj, acc_j) in acc.iter_mut().enumerate() {
        let at = (j0 + jj) * m + k0;
        acc_j.copy_from_slice(&hess[at..at + K]);
    }
    for (row, &si) in rows.chunks_exact(m).zip(s) {
        let aj: &[f64; J] = row[j0..j0 + J].try_into().expect("J columns");
        let ak: &[f64; K] = row[k0..k0 + K].try_into().expect("K columns");
        for (acc_j, &a_j) in acc.iter_mut().zip(aj) {
            let sa = si * a_j;
            for (h, &a_k) in acc_j.iter_mut().zip(ak) {
                *h += sa * a_k;
            }
        }
    }
    for (jj, acc_j) in acc.iter().enumerate() {
        let at = (j0 + jj) * m + k0;
        hess[at..at + K].copy_from_slice(acc_j);
    }
    K
}

/// Relative slack of [`log1p_bounds`] and [`softplus_bounds`]: ~50× the worst error of
/// the approximations below (≤ 8 ulp, 1.8e-15) plus that of libm's `log1p` and `exp`
/// (< 1 ulp each, as documented by FreeBSD's msun, which libm ports).
const BOUND_SLACK: f64 = 1e-13;

/// Rows evaluated side by side by the bound functions: independent evaluations keep the
/// pipeline full and vectorise.
const LANES: usize = 8;

/// `1/(2k+1)` for k = 0…9: `ln((1+e)/c) = 2·atanh(s) = 2s·Σₖ s²ᵏ/(2k+1)`.
const ATANH_SERIES: [f64; 10] = [
    1.0,
    1.0 / 3.0,
    1.0 / 5.0,
    1.0 / 7.0,
    1.0 / 9.0,
    1.0 / 11.0,
    1.0 / 13.0,
    1.0 / 15.0,
    1.0 / 17.0,
    1.0 / 19.0,
];

/// `ln 1.5`, correctly rounded.
const LN_1_5: f64 = 0.405_465_108_108_164_4;

/// libm's `log1p` returns its argument unchanged below 2⁻⁵³.
const LOG1P_IDENTITY: f64 = 1.0 / 9_007_199_254_740_992.0;

/// Per lane, `(lo, hi)` with `lo ≤ libm::log1p(e) ≤ hi` for every `e ∈ [0, 1]`; no libm
/// call and no branch. Below 2⁻⁵³ libm's `log1p(e)` is `e` itself, and so are both bounds.
#[inline(always)]
fn log1p_bounds(e: &[f64; LANES], lo: &mut [f64; LANES], hi: &mut [f64; LANES]) {
    let v = log1p_approx(e);
    for l in 0..LANES {
        let tiny = u64::from(e[l] < LOG1P_IDENTITY).wrapping_neg();
        let pick =
            |approx: f64| f64::from_bits((e[l].to_bits() & tiny) | (approx.to_bits() & !tiny));
        lo[l] = pick(v[l] * (1.0 - BOUND_SLACK));
        hi[l] = pick(v[l] * (1.0 + BOUND_SLACK));
    }
}

/// Per lane, `ln(1+e)` for `e ∈ [0, 1]` (normal or 0) within ~10 ulp; no libm call and no
/// branch, one operation at a time over all lanes, so every step vectorises.
///
/// `ln(1+e) = ln c + 2·atanh(s)` with `s = ((1+e) − c)/((1+e) + c)`: `c = 1`,
/// `s = e/(2+e)` for `e < ¼`, and `c = 3/2`, `s = (e − ½)/(e + 5/2)` (`e − ½` exact) above,
/// so `|s| ≤ 1/7`, `s² < 0.0205`, and ten terms of `atanh(s)/s = Σₖ s²ᵏ/(2k+1)` leave a
/// remainder below 0.0205¹⁰/21 < 1e-18 relative. With the roundings of the evaluation
/// (Estrin's scheme, all terms positive) and of `ln c + …` (which at worst cancels 2.6×),
/// the value is within ~10 ulp of `ln(1+e)`, and libm's within 1 ulp: `BOUND_SLACK` covers
/// both many times over (`tests::the_bound_approximations_are_far_inside_their_slack`
/// measures it), and `fl(v·(1 ± slack))` stays on its side.
#[inline(always)]
fn log1p_approx(e: &[f64; LANES]) -> [f64; LANES] {
    let c = &ATANH_SERIES;
    let upper: [f64; LANES] = std::array::from_fn(|l| f64::from(u8::from(e[l] >= 0.25)));
    let s: [f64; LANES] =
        std::array::from_fn(|l| (e[l] - 0.5 * upper[l]) / (e[l] + (2.0 + 0.5 * upper[l])));
    let x: [f64; LANES] = std::array::from_fn(|l| s[l] * s[l]);
    let x2: [f64; LANES] = std::array::from_fn(|l| x[l] * x[l]);
    let x4: [f64; LANES] = std::array::from_fn(|l| x2[l] * x2[l]);
    let x8: [f64; LANES] = std::array::from_fn(|l| x4[l] * x4[l]);
    let p03: [f64; LANES] =
        std::array::from_fn(|l| (c[0] + c[1] * x[l]) + (c[2] + c[3] * x[l]) * x2[l]);
    let p47: [f64; LANES] =
        std::array::from_fn(|l| (c[4] + c[5] * x[l]) + (c[6] + c[7] * x[l]) * x2[l]);
    let p: [f64; LANES] =
        std::array::from_fn(|l| (p03[l] + p47[l] * x4[l]) + (c[8] + c[9] * x[l]) * x8[l]);
    std::array::from_fn(|l| LN_1_5 * upper[l] + 2.0 * s[l] * p[l])
}

/// `1 / (1 + libm::exp(−zᵢ))` for every margin, the exponentials in lanes ([`exp_each`]).
fn probabilities(mut z: Vec<f64>) -> Vec<f64> {
    for v in &mut z {
        *v = -*v;
    }
    let mut p = vec![0.0; z.len()];
    exp_each(&z, &mut p);
    for v in &mut p {
        *v = 1.0 / (1.0 + *v);
    }
    p
}

/// libm's `exp` constants (FreeBSD `e_exp.c`, as in the `libm` crate's `exp.rs`), by their
/// bit patterns (the hex words in libm's comments).
mod libm_exp {
    pub(super) const LN2HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
    pub(super) const LN2LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
    pub(super) const INVLN2: f64 = f64::from_bits(0x3ff7_1547_652b_82fe);
    pub(super) const P1: f64 = f64::from_bits(0x3fc5_5555_5555_553e);
    pub(super) const P2: f64 = f64::from_bits(0xbf66_c16c_16be_bd93);
    pub(super) const P3: f64 = f64::from_bits(0x3f11_566a_af25_de2c);
    pub(super) const P4: f64 = f64::from_bits(0xbebb_bd41_c5d2_6bf1);
    pub(super) const P5: f64 = f64::from_bits(0x3e66_3769_72be_a4d0);
    /// High words of |x| where libm changes case: `|x| ≥ 708.39` (overflow/underflow
    /// handling), `|x| ≥ 1.5·ln2`, `|x| > ½·ln2`, `|x| > 2⁻²⁸`.
    pub(super) const HX_SPECIAL: u32 = 0x4086_232b;
    pub(super) const HX_ONE_AND_HALF_LN2: u32 = 0x3ff0_a2b2;
    pub(super) const HX_HALF_LN2: u32 = 0x3fd6_2e42;
    pub(super) const HX_TINY: u32 = 0x3e30_0000;
}

/// `out[i] = libm::exp(−|z[i]|)`, bit for bit, LANES rows at a time.
///
/// `libm::exp` is a function call with branches per row, about a fifth of a fit's time.
/// Here libm's own algorithm runs over LANES lanes with its cases chosen by selects, so
/// that it vectorises: the same IEEE operations on the same values in the same order —
/// basic operations round identically in vector and scalar form, and Rust never fuses
/// them — hence the same bits. Lanes libm treats specially (`|x| ≥ 708.39`: underflow;
/// NaN) are recomputed by libm itself. `tests::exp_neg_abs_has_libms_bits` compares the
/// two on every case boundary and on millions of random arguments.
#[inline(always)]
fn exp_neg_abs(z: &[f64], out: &mut [f64]) {
    exp_chunks::<true>(z, out);
}

/// `out[i] = libm::exp(x[i])`, bit for bit, LANES values at a time: [`exp_neg_abs`] for
/// arguments of either sign (the probabilities `1/(1 + exp(−z))` of the predictions).
fn exp_each(x: &[f64], out: &mut [f64]) {
    exp_chunks::<false>(x, out);
}

/// `out[i] = libm::exp(aᵢ)` with `aᵢ = −|x[i]|` if `NEG_ABS`, else `x[i]`: whole blocks of
/// LANES in lanes, libm's special cases and the remainder by libm itself.
#[inline(always)]
fn exp_chunks<const NEG_ABS: bool>(x: &[f64], out: &mut [f64]) {
    assert_eq!(x.len(), out.len(), "one output per argument");
    let mut x_chunks = x.chunks_exact(LANES);
    let mut out_chunks = out.chunks_exact_mut(LANES);
    for (xc, oc) in (&mut x_chunks).zip(&mut out_chunks) {
        let xc: &[f64; LANES] = xc.try_into().expect("LANES arguments");
        let oc: &mut [f64; LANES] = oc.try_into().expect("LANES outputs");
        let (values, special) = if NEG_ABS {
            exp_neg_abs_lanes(xc)
        } else {
            exp_lanes(xc)
        };
        *oc = values;
        if special {
            for (o, &xi) in oc.iter_mut().zip(xc) {
                if high_word(exp_argument::<NEG_ABS>(xi)) >= libm_exp::HX_SPECIAL {
                    *o = libm::exp(exp_argument::<NEG_ABS>(xi));
                }
            }
        }
    }
    for (o, &xi) in out_chunks
        .into_remainder()
        .iter_mut()
        .zip(x_chunks.remainder())
    {
        *o = libm::exp(exp_argument::<NEG_ABS>(xi));
    }
}

/// `−|x|` if `NEG_ABS`, else `x`.
#[inline(always)]
fn exp_argument<const NEG_ABS: bool>(x: f64) -> f64 {
    if NEG_ABS {
        -x.abs()
    } else {
        x
    }
}

/// The high word of `|x|`, as libm's `exp` reads it.
#[inline(always)]
fn high_word(x: f64) -> u32 {
    ((x.to_bits() >> 32) as u32) & 0x7fff_ffff
}

/// libm's `exp(x)` for `x = −|z|` on every lane, and whether any lane is one of libm's
/// special cases (`|x| ≥ 708.39` or NaN; those lanes' values are garbage).
#[inline(always)]
fn exp_neg_abs_lanes(z: &[f64; LANES]) -> ([f64; LANES], bool) {
    use libm_exp::*;
    let x: [f64; LANES] = std::array::from_fn(|l| -z[l].abs());
    let hx: [u32; LANES] = std::array::from_fn(|l| high_word(x[l]));
    // libm's k (see `exp_lanes`) for x ≤ 0: HALF[sign] = −0.5 and 1 − 2·sign = −1.
    let k: [f64; LANES] = std::array::from_fn(|l| {
        if hx[l] >= HX_ONE_AND_HALF_LN2 {
            (INVLN2 * x[l] - 0.5) as i32 as f64
        } else if hx[l] > HX_HALF_LN2 {
            -1.0
        } else {
            0.0
        }
    });
    exp_reduced(&x, &hx, &k)
}

/// libm's `exp(x)` for `|x| < 708.39` on every lane, and whether any lane is outside that
/// range (libm's special cases: overflow, underflow, NaN; those lanes' values are garbage).
#[inline(always)]
fn exp_lanes(x: &[f64; LANES]) -> ([f64; LANES], bool) {
    use libm_exp::*;
    use std::array::from_fn;
    let hx: [u32; LANES] = from_fn(|l| high_word(x[l]));
    let negative: [bool; LANES] = from_fn(|l| x[l].is_sign_negative());
    // Argument reduction x = k·ln2 + r. libm: k = (INVLN2·x + HALF[sign]) as i32 from
    // 1.5·ln2 on (HALF = ±0.5 with the sign of x; a + (−0.5) is a − 0.5), k = 1 − 2·sign
    // = ±1 from ½·ln2, and k = 0 below, where libm skips the reduction: hi − lo with k = 0
    // is x − 0·LN2HI − 0·LN2LO = x exactly, and the final scaling by 2⁰ is exact too.
    let k: [f64; LANES] = from_fn(|l| {
        let sign = if negative[l] { -1.0 } else { 1.0 };
        if hx[l] >= HX_ONE_AND_HALF_LN2 {
            (INVLN2 * x[l] + 0.5 * sign) as i32 as f64
        } else if hx[l] > HX_HALF_LN2 {
            sign
        } else {
            0.0
        }
    });
    exp_reduced(x, &hx, &k)
}

/// The rest of libm's `exp` once `k` is chosen: `x = k·ln2 + r`, the polynomial of `r`,
/// the scaling by `2ᵏ`; and whether any lane is a special case.
#[inline(always)]
fn exp_reduced(x: &[f64; LANES], hx: &[u32; LANES], k: &[f64; LANES]) -> ([f64; LANES], bool) {
    use libm_exp::*;
    use std::array::from_fn;
    let hi: [f64; LANES] = from_fn(|l| x[l] - k[l] * LN2HI);
    let lo: [f64; LANES] = from_fn(|l| k[l] * LN2LO);
    let r: [f64; LANES] = from_fn(|l| hi[l] - lo[l]);
    let rr: [f64; LANES] = from_fn(|l| r[l] * r[l]);
    let c: [f64; LANES] =
        from_fn(|l| r[l] - rr[l] * (P1 + rr[l] * (P2 + rr[l] * (P3 + rr[l] * (P4 + rr[l] * P5)))));
    let y: [f64; LANES] = from_fn(|l| 1.0 + (r[l] * c[l] / (2.0 - c[l]) - lo[l] + hi[l]));
    // libm's scalbn(y, k) for k in [−1022, 1023] is y · 2ᵏ, one multiplication; here
    // |k| ≤ 1022 (the clamp only keeps special lanes, recomputed by the caller, from
    // building a bad exponent).
    let scale: [f64; LANES] = from_fn(|l| {
        let k = (k[l] as i64).clamp(-1022, 1022);
        f64::from_bits(((1023 + k) as u64) << 52)
    });
    // |x| ≤ 2⁻²⁸: libm returns 1 + x.
    let values = from_fn(|l| {
        if hx[l] <= HX_TINY {
            1.0 + x[l]
        } else {
            y[l] * scale[l]
        }
    });
    (values, hx.iter().any(|&h| h >= HX_SPECIAL))
}

/// `1/j!` for j = 0…13: the Taylor series of `exp(r)`, `|r| ≤ 0.35` (remainder
/// < 0.35¹⁴/14! < 1e-17 relative).
const EXP_SERIES: [f64; 14] = [
    1.0,
    1.0,
    1.0 / 2.0,
    1.0 / 6.0,
    1.0 / 24.0,
    1.0 / 120.0,
    1.0 / 720.0,
    1.0 / 5_040.0,
    1.0 / 40_320.0,
    1.0 / 362_880.0,
    1.0 / 3_628_800.0,
    1.0 / 39_916_800.0,
    1.0 / 479_001_600.0,
    1.0 / 6_227_020_800.0,
];

/// Beyond this `|z|`, `exp(−|z|) < 1e-304` and the loss term's `log1p` part is in
/// `[0, 1e-300]`.
const SOFTPLUS_TAIL: f64 = 700.0;

/// Per lane, `(lo, hi)` with `lo ≤ libm::log1p(libm::exp(−x)) ≤ hi` for every finite
/// `x ≥ 0` (the `log1p` part of a loss term); no libm call and no branch.
///
/// `exp(−x) = 2⁻ᵏ·exp(r)` with `k` the integer nearest `x/ln 2` (rounded by adding
/// 1.5·2⁵²) and `r = −(x − k·ln 2)` by Cody–Waite (`k·LN2_HI` and the first subtraction
/// are exact), `exp(r)` by its Taylor series (Estrin's scheme), `2⁻ᵏ` built from its bits
/// (`k ≤ 1010`, normal): within a few ulp of `exp(−x)`. A relative error η of the
/// exponential moves `ln(1+e)` by at most η relatively, so [`log1p_bounds`]' slack covers
/// it too.
#[inline(always)]
fn softplus_bounds(x: &[f64; LANES], lo: &mut [f64; LANES], hi: &mut [f64; LANES]) {
    const MAGIC: f64 = 6_755_399_441_055_744.0; // 1.5·2⁵²
    const LN2_HI: f64 = 6.931_471_803_691_238e-1; // 0x3fe62e42fee00000
    const LN2_LO: f64 = 1.908_214_929_270_587_7e-10; // 0x3dea39ef35793c76
    let c = &EXP_SERIES;
    let xs: [f64; LANES] = std::array::from_fn(|l| x[l].min(SOFTPLUS_TAIL));
    let shifted: [f64; LANES] = std::array::from_fn(|l| xs[l] * std::f64::consts::LOG2_E + MAGIC);
    let r: [f64; LANES] = std::array::from_fn(|l| {
        let kf = shifted[l] - MAGIC;
        -((xs[l] - kf * LN2_HI) - kf * LN2_LO)
    });
    let scale: [f64; LANES] = std::array::from_fn(|l| {
        let k = shifted[l].to_bits().wrapping_sub(MAGIC.to_bits());
        f64::from_bits((1023_u64.wrapping_sub(k)) << 52)
    });
    let r2: [f64; LANES] = std::array::from_fn(|l| r[l] * r[l]);
    let r4: [f64; LANES] = std::array::from_fn(|l| r2[l] * r2[l]);
    let r8: [f64; LANES] = std::array::from_fn(|l| r4[l] * r4[l]);
    let p07: [f64; LANES] = std::array::from_fn(|l| {
        let p03 = (c[0] + c[1] * r[l]) + (c[2] + c[3] * r[l]) * r2[l];
        let p47 = (c[4] + c[5] * r[l]) + (c[6] + c[7] * r[l]) * r2[l];
        p03 + p47 * r4[l]
    });
    let p813: [f64; LANES] = std::array::from_fn(|l| {
        let p811 = (c[8] + c[9] * r[l]) + (c[10] + c[11] * r[l]) * r2[l];
        p811 + (c[12] + c[13] * r[l]) * r4[l]
    });
    let e: [f64; LANES] = std::array::from_fn(|l| (p07[l] + p813[l] * r8[l]) * scale[l]);
    // e ≥ exp(−700) is normal. No identity below 2⁻⁵³ here: e is not libm's exp, only
    // close to it, and the approximation is as accurate there.
    let v = log1p_approx(&e);
    for l in 0..LANES {
        // exp(−x) < 1e-304 in the tail; log1p of it is in [0, 1e-300].
        let tail = x[l] >= SOFTPLUS_TAIL;
        lo[l] = if tail {
            0.0
        } else {
            v[l] * (1.0 - BOUND_SLACK)
        };
        hi[l] = if tail {
            1e-300
        } else {
            v[l] * (1.0 + BOUND_SLACK)
        };
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

#[cfg(test)]
mod tests {
    //! The optimised solver against the textbook one it replaced (kept here verbatim as
    //! `reference`): the same bits on random problems of every shape, and the bounds that
    //! let it skip objective evaluations against libm.

    use super::*;
    use rand_chacha::rand_core::{RngCore, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    mod reference {
        //! The solver as it was before the kernels were blocked and the objective bounded:
        //! every sum a plain loop, every objective computed.
        use super::super::{logloss, solve_spd, Standardizer, ARMIJO, MAX_HALVINGS, PURE_NEWTON};
        use super::super::{FittedLogistic, LogisticRegression, Matrix};

        pub(super) fn fit(params: &LogisticRegression, x: &Matrix, y: &[bool]) -> FittedLogistic {
            let standardizer = Standardizer::fit(x).expect("finite");
            let n_pos = y.iter().filter(|&&v| v).count();
            let problem = Problem::new(&standardizer, x, y, params.c);
            let solution = problem.solve(params.tol, params.max_iter, n_pos);
            FittedLogistic {
                standardizer,
                intercept: solution.theta[0],
                coefficients: solution.theta[1..].to_vec(),
                iterations: solution.iterations,
                converged: solution.converged,
                // The reference keeps a bool only; the comparisons read `converged`.
                stop: if solution.converged {
                    super::super::FitStop::Converged
                } else {
                    super::super::FitStop::IterationLimit
                },
            }
        }

        /// The standardised training problem. Parameters `θ = [b, w₁ … w_p]`; rows are stored
        /// augmented as `[1, x̃ᵢ₁ … x̃ᵢₚ]` so that `zᵢ = Σⱼ θⱼ·aᵢⱼ`, summed from `j = 0`, has
        /// exactly the bits of [`FittedLogistic::decision_function`] (`0 + b·1 = b`).
        pub(super) struct Problem {
            n: usize,
            /// Parameters including the intercept: p + 1.
            m: usize,
            /// Augmented standardised rows, row-major n × m.
            a: Vec<f64>,
            y: Vec<bool>,
            c: f64,
        }

        /// The gradient and objective at θ, and the curvature weights for the Hessian.
        pub(super) struct Gradient {
            /// `C·Σ rᵢ·aᵢ + [0, w]`, with `rᵢ = σ(zᵢ) − yᵢ`.
            pub(super) gradient: Vec<f64>,
            /// The objective `C·Σ logloss + ½‖w‖²`.
            pub(super) objective: f64,
        }

        pub(super) struct Solution {
            theta: Vec<f64>,
            iterations: usize,
            converged: bool,
        }

        impl Problem {
            pub(super) fn new(
                standardizer: &Standardizer,
                x: &Matrix,
                y: &[bool],
                c: f64,
            ) -> Problem {
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
            pub(super) fn margins(&self, v: &[f64], out: &mut [f64]) {
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
            pub(super) fn gradient(
                &self,
                theta: &[f64],
                z: &[f64],
                weights: &mut [f64],
            ) -> Gradient {
                let mut grad = vec![0.0; self.m];
                let mut loss = 0.0;
                for (i, ((&zi, &yi), w)) in
                    z.iter().zip(&self.y).zip(weights.iter_mut()).enumerate()
                {
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
            pub(super) fn hessian(&self, weights: &[f64]) -> Vec<f64> {
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
            pub(super) fn solve(&self, tol: f64, max_iter: usize, n_pos: usize) -> Solution {
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
    }

    /// A random problem: `n` rows, `p` features of mixed scales (some constant, some
    /// duplicated), labels from a logistic model of strength `signal` (large: nearly
    /// separable) or all but one row of a class when `rare`.
    fn problem(
        rng: &mut ChaCha8Rng,
        n: usize,
        p: usize,
        signal: f64,
        rare: bool,
    ) -> (Matrix, Vec<bool>) {
        let mut unit = || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        let kinds: Vec<u64> = (0..p).map(|_| (unit() * 5.0) as u64).collect();
        let beta: Vec<f64> = (0..p).map(|_| (unit() - 0.5) * signal).collect();
        let mut x = Vec::with_capacity(n * p);
        let mut y = Vec::with_capacity(n);
        for i in 0..n {
            let mut z = unit() - 0.5;
            let row_start = x.len();
            for k in 0..p {
                let v = match kinds[k] {
                    0 => 0.1,                                 // constant up to rounding
                    1 if k > 0 => x[row_start + k - 1] * 2.0, // a multiple of the previous
                    2 => (unit() * 4.0).floor(),              // a few levels
                    3 => (unit() - 0.5) * 1e4 + 1e6,          // large offset
                    _ => (unit() + unit() + unit() - 1.5) * (1.0 + k as f64),
                };
                z += beta[k] * (unit() - 0.5);
                x.push(v);
            }
            y.push(if rare {
                i == 0
            } else {
                unit() < 1.0 / (1.0 + libm::exp(-z))
            });
        }
        if !y.iter().any(|&v| v) {
            y[0] = true;
        }
        if y.iter().all(|&v| v) {
            y[0] = false;
        }
        (Matrix::from_row_major(n, p, x), y)
    }

    fn bits(f: &FittedLogistic) -> (u64, Vec<u64>, usize, bool) {
        (
            f.intercept.to_bits(),
            f.coefficients.iter().map(|c| c.to_bits()).collect(),
            f.iterations,
            f.converged,
        )
    }

    #[test]
    fn the_solver_has_the_reference_bits_on_random_problems() {
        let mut rng = ChaCha8Rng::seed_from_u64(20261201);
        let mut cases = 0;
        for round in 0..400 {
            let n = 2 + (rng.next_u64() % 300) as usize;
            let p = (rng.next_u64() % 36) as usize;
            let signal = [0.5, 3.0, 40.0, 1e3][round % 4];
            let rare = round % 11 == 0;
            let (x, y) = problem(&mut rng, n, p, signal, rare);
            let c = [1e-4, 0.05, 1.0, 30.0, 1e6][(round / 4) % 5];
            let (tol, max_iter) =
                [(1e-10, 100), (0.0, 7), (1e-4, 100), (1e-10, 1)][(round / 20) % 4];
            let params = LogisticRegression { c, tol, max_iter };
            let ours = params.fit(&x, &y).expect("a valid problem");
            let theirs = reference::fit(&params, &x, &y);
            assert_eq!(
                bits(&ours),
                bits(&theirs),
                "round {round}: n {n}, p {p}, C {c}"
            );
            assert_eq!(ours.standardizer, theirs.standardizer);
            let design = Design::new(&x).expect("finite");
            assert_eq!(
                bits(&params.fit_design(&design, &y).expect("valid")),
                bits(&ours)
            );
            let standardized = ours.standardizer.transform(&x);
            let a: Vec<u64> = ours.predict_proba(&x).iter().map(|v| v.to_bits()).collect();
            let b: Vec<u64> = ours
                .predict_proba_standardized(&standardized)
                .iter()
                .map(|v| v.to_bits())
                .collect();
            assert_eq!(a, b);
            cases += 1;
        }
        assert_eq!(cases, 400);
    }

    /// `full_step_certain` against the test it stands in for, on steps of every length
    /// around the Armijo limit: random problems, points (the start and Newton iterates),
    /// and steps `t·Δ` along the Newton direction for t from 1e-9 to 4, densely around
    /// t = 2 where the Armijo test starts to fail, and along other directions (the step
    /// with each component scaled by a random factor in [0.5, 1.5), kept when downhill).
    /// Whenever the certificate says the full step is taken, the computed objectives must
    /// pass the Armijo test (or the slope be under the pure-Newton threshold for the
    /// computed objective). The test also checks it probes the limit: some certified steps
    /// are within 5% of failing.
    #[test]
    fn a_certain_full_step_passes_the_test_it_replaces() {
        let mut rng = ChaCha8Rng::seed_from_u64(20261205);
        let (mut certified, mut passed, mut close_calls) = (0, 0, 0);
        for round in 0..120 {
            let n = 3 + (rng.next_u64() % 3000) as usize;
            let p = 1 + (rng.next_u64() % 20) as usize;
            let signal = [0.5, 3.0, 40.0, 1e3][round % 4];
            let (x, y) = problem(&mut rng, n, p, signal, round % 9 == 0);
            let c = [1e-4, 0.05, 1.0, 30.0, 1e6][(round / 4) % 5];
            let design = Design::new(&x).expect("finite");
            let problem = design.problem(&y, c);
            let m = problem.m;
            let n_pos = y.iter().filter(|&&v| v).count();
            let mut theta = vec![0.0; m];
            theta[0] = libm::log(n_pos as f64 / (n - n_pos) as f64);
            let (mut z, mut e, mut u) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
            let (mut residual, mut weights) = (vec![0.0; n], vec![0.0; n]);
            for _ in 0..4 {
                problem.margins(&theta, &mut z);
                exp_neg_abs(&z, &mut e);
                let gradient = problem.gradient(&theta, &z, &e, &mut residual, &mut weights);
                let neg: Vec<f64> = gradient.iter().map(|v| -v).collect();
                let Some(newton) = solve_spd(&problem.hessian(&weights), m, &neg) else {
                    break;
                };
                let at = Point {
                    theta: &theta,
                    z: &z,
                    e: &e,
                    weights: &weights,
                    gradient: &gradient,
                };
                let f = problem.objective_at(&theta, &z, &e);
                for trial_index in 0..40 {
                    let t = match trial_index {
                        0..20 => {
                            let r = trial_index as f64 / 20.0;
                            4.0 * r * r * r + 1e-9
                        }
                        20..35 => 1.7 + 0.03 * (trial_index - 20) as f64,
                        _ => [1.0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8]
                            [(rng.next_u64() % 9) as usize],
                    };
                    let mut step: Vec<f64> = newton.iter().map(|v| t * v).collect();
                    if trial_index % 5 == 4 {
                        // Another direction: each component scaled by a factor in
                        // [0.5, 1.5); the slope test below keeps it only if downhill.
                        for s in step.iter_mut() {
                            *s *= 0.5 + (rng.next_u64() % 1000) as f64 / 1000.0;
                        }
                    }
                    let mut slope = 0.0;
                    for (&g, &s) in gradient.iter().zip(&step) {
                        slope += g * s;
                    }
                    if slope >= 0.0 || slope.is_nan() {
                        continue;
                    }
                    problem.margins(&step, &mut u);
                    if !problem.full_step_certain(&at, &step, slope, &u) {
                        continue;
                    }
                    certified += 1;
                    let trial: Vec<f64> =
                        theta.iter().zip(&step).map(|(a, b)| a + 1.0 * b).collect();
                    let trial_z: Vec<f64> = z.iter().zip(&u).map(|(a, b)| a + 1.0 * b).collect();
                    let f_trial = problem.objective(&trial, &trial_z);
                    let limit = f + ARMIJO * 1.0 * slope;
                    let pure = -slope <= PURE_NEWTON * (1.0 + f.abs());
                    assert!(
                        pure || f_trial <= limit,
                        "round {round}, t {t}: f {f}, trial {f_trial}, slope {slope}"
                    );
                    if !pure {
                        passed += 1;
                        close_calls += usize::from(limit - f_trial < 0.05 * -slope);
                    }
                }
                theta.iter_mut().zip(&newton).for_each(|(a, b)| *a += b);
            }
        }
        assert!(
            certified > 5000 && passed > 3000,
            "{certified} certified, {passed} by Armijo"
        );
        assert!(
            close_calls > 100,
            "{close_calls} certified steps within 5% of the limit"
        );
    }

    /// Fits that share a design (label permutations, several C and class balances: more
    /// start Hessians than a design keeps) have the bits of fits on a fresh design each,
    /// whose start Hessian is computed, not reused.
    #[test]
    fn fits_sharing_a_design_have_the_bits_of_fresh_fits() {
        let mut rng = ChaCha8Rng::seed_from_u64(20261204);
        let mut rounds_reusing = 0;
        for round in 0..40 {
            let n = 3 + (rng.next_u64() % 2000) as usize;
            // At least one feature: without, the start is the optimum and needs no Hessian.
            let p = 1 + (rng.next_u64() % 30) as usize;
            let (x, y) = problem(&mut rng, n, p, [0.5, 3.0, 40.0][round % 3], false);
            let design = Design::new(&x).expect("finite");
            let mut iterated = false;
            for fit in 0..12 {
                let mut labels = y.clone();
                crate::rng::shuffle(&mut labels, &mut rng);
                if fit % 4 == 3 {
                    // Another class balance: another start weight.
                    let flip = (rng.next_u64() % n as u64) as usize;
                    labels[flip] = !labels[flip];
                }
                if labels.iter().all(|&v| v) || !labels.iter().any(|&v| v) {
                    continue;
                }
                let c = [1.0, 0.05, 30.0][fit % 3];
                let params = LogisticRegression::new(c);
                let shared = params.fit_design(&design, &labels).expect("valid");
                let fresh = params.fit(&x, &labels).expect("valid");
                assert_eq!(bits(&shared), bits(&fresh), "round {round}, fit {fit}");
                iterated |= shared.iterations > 0;
            }
            // Features that are all constant leave the start optimal: no Hessian at all.
            let kept = design.start_hessians.0.lock().expect("not poisoned").len();
            assert!(kept <= START_HESSIANS_KEPT && iterated == (kept > 0));
            rounds_reusing += usize::from(kept >= 3);
        }
        assert!(
            rounds_reusing >= 30,
            "{rounds_reusing} rounds reused 3 start Hessians"
        );
    }

    /// The objective's bounds bracket the objective as computed (the property the solver's
    /// step decisions rest on), on random problems from 3 to 60,000 rows (where the
    /// summation-order slack of `sum_bounds` is widest), margins from ~0 to past 700 and C
    /// from 1e-4 to 1e6; and they stay narrow enough to decide the step tests.
    #[test]
    fn objective_bounds_bracket_the_objective() {
        let mut rng = ChaCha8Rng::seed_from_u64(20261203);
        for round in 0..60 {
            let n = [3, 17, 200, 5_000, 60_000][round % 5] + (rng.next_u64() % 9) as usize;
            let p = 1 + (rng.next_u64() % 12) as usize;
            let (x, y) = problem(&mut rng, n, p, 3.0, false);
            let design = Design::new(&x).expect("finite");
            let c = [1e-4, 1.0, 1e6][round % 3];
            let problem = design.problem(&y, c);
            let spread = [0.01, 1.0, 30.0, 1_000.0][(round / 5) % 4];
            let theta: Vec<f64> = (0..design.m)
                .map(|_| ((rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * spread)
                .collect();
            let mut z = vec![0.0; n];
            problem.margins(&theta, &mut z);
            let mut e = vec![0.0; n];
            exp_neg_abs(&z, &mut e);
            let padded = n.div_ceil(LANES) * LANES;
            let mut scratch = Scratch {
                input: vec![0.0; padded],
                lo: vec![0.0; padded],
                hi: vec![0.0; padded],
            };
            let cases = [
                (
                    problem.objective_at(&theta, &z, &e),
                    problem.objective_bounds_at(&theta, &z, &e, false, &mut scratch),
                ),
                (
                    problem.objective(&theta, &z),
                    problem.objective_bounds(&theta, &z, &mut scratch),
                ),
            ];
            for (which, (f, bounds)) in cases.into_iter().enumerate() {
                let (lo, hi) = bounds.expect("finite margins");
                assert!(
                    lo <= f && f <= hi,
                    "round {round} ({which}): n {n}, C {c}: {lo:e} <= {f:e} <= {hi:e}"
                );
                assert!(
                    hi - lo <= 1e-10 * f + 1e-280,
                    "round {round} ({which}): bounds too wide: [{lo:e}, {hi:e}] around {f:e}"
                );
            }
            // At the starting point θ₀ = (b, 0, …, 0) every margin is b, and the shortcut
            // for equal eᵢ gives the bits of the general computation.
            let mut start = vec![0.0; design.m];
            start[0] = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 8.0 - 4.0;
            problem.margins(&start, &mut z);
            assert!(z.iter().all(|v| v.to_bits() == start[0].to_bits()));
            exp_neg_abs(&z, &mut e);
            let general = problem.objective_bounds_at(&start, &z, &e, false, &mut scratch);
            let uniform = problem.objective_bounds_at(&start, &z, &e, true, &mut scratch);
            assert_eq!(
                general.map(|(l, h)| (l.to_bits(), h.to_bits())),
                uniform.map(|(l, h)| (l.to_bits(), h.to_bits())),
                "round {round}"
            );
        }
    }

    /// The solver's two copies (`Problem::newton` as compiled for the baseline x86-64, and
    /// the AVX2 copy `Problem::solve` picks on this CPU) give the same bits, also on
    /// problems with thousands of rows (many row chunks) and up to 40 parameters.
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn both_solvers_have_the_same_bits() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            eprintln!("no AVX2 on this CPU: only the portable copy exists to run here");
            return;
        }
        let mut rng = ChaCha8Rng::seed_from_u64(20261202);
        for round in 0..60 {
            let n = 2 + (rng.next_u64() % 6000) as usize;
            let p = (rng.next_u64() % 40) as usize;
            let signal = [0.5, 3.0, 40.0, 1e3][round % 4];
            let (x, y) = problem(&mut rng, n, p, signal, round % 7 == 0);
            let c = [1e-4, 0.05, 1.0, 30.0, 1e6][(round / 4) % 5];
            let (tol, max_iter) = [(1e-10, 100), (0.0, 7), (1e-4, 100)][(round / 20) % 3];
            let design = Design::new(&x).expect("finite");
            let n_pos = y.iter().filter(|&&v| v).count();
            let portable = design.problem(&y, c).newton(tol, max_iter, n_pos);
            // A copy's start-Hessian cache is empty: each copy computes its own.
            let dispatched = design.clone().problem(&y, c).solve(tol, max_iter, n_pos);
            let theta_bits = |s: &Solution| s.theta.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert_eq!(
                (theta_bits(&portable), portable.iterations, portable.stop),
                (
                    theta_bits(&dispatched),
                    dispatched.iterations,
                    dispatched.stop
                ),
                "round {round}: n {n}, p {p}, C {c}"
            );
        }
    }

    /// `exp_neg_abs` against `libm::exp(−|z|)`, and `exp_each` against `libm::exp(±z)`,
    /// bits compared: every case boundary of
    /// libm's `exp` (high words ± 3 with several low words), every reduction boundary
    /// `k ± ½` for k = 0…1023, special values, 4 million arguments uniform in [0, 800]
    /// and 4 million random bit patterns; slices of odd length so that both the lanes
    /// and the scalar remainder are used.
    #[test]
    fn exp_neg_abs_has_libms_bits() {
        let mut args: Vec<f64> = vec![
            0.0,
            -0.0,
            f64::MIN_POSITIVE,
            5e-324,
            1e-300,
            f64::EPSILON,
            0.5,
            1.0,
            700.0,
            708.39,
            708.396_418_532_264_1,
            709.78,
            745.13,
            746.0,
            1e300,
            f64::MAX,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        let mut rng = ChaCha8Rng::seed_from_u64(0x0065_7870);
        for high in [
            libm_exp::HX_SPECIAL,
            libm_exp::HX_ONE_AND_HALF_LN2,
            libm_exp::HX_HALF_LN2,
            libm_exp::HX_TINY,
        ] {
            for d in -3_i64..=3 {
                let h = (i64::from(high) + d) as u64;
                for low in [
                    0_u64,
                    1,
                    0x7fff_ffff,
                    0xffff_ffff,
                    rng.next_u64() & 0xffff_ffff,
                ] {
                    args.push(f64::from_bits((h << 32) | low));
                }
            }
        }
        for k in 0..=1023 {
            let edge = (f64::from(k) + 0.5) * std::f64::consts::LN_2;
            let bits = edge.to_bits();
            for d in 0..=4 {
                args.push(f64::from_bits(bits + d));
                args.push(f64::from_bits(bits - d));
            }
        }
        for _ in 0..4_000_000 {
            let unit = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            args.push(800.0 * unit);
        }
        for _ in 0..4_000_000 {
            args.push(f64::from_bits(rng.next_u64()));
        }
        // Odd lengths: lanes, then a remainder.
        let mut mismatches = Vec::new();
        for chunk in args.chunks(LANES * 1000 + 3) {
            let mut out = vec![0.0; chunk.len()];
            exp_neg_abs(chunk, &mut out);
            for (&z, &got) in chunk.iter().zip(&out) {
                let want = libm::exp(-z.abs());
                if got.to_bits() != want.to_bits() && mismatches.len() < 10 {
                    mismatches.push((z, got, want));
                }
            }
        }
        assert!(mismatches.is_empty(), "z, ours, libm: {mismatches:?}");
        // exp_each, for arguments of either sign: the same arguments and their negations.
        for sign in [1.0, -1.0] {
            for chunk in args.chunks(LANES * 1000 + 3) {
                let x: Vec<f64> = chunk.iter().map(|&v| sign * v).collect();
                let mut out = vec![0.0; x.len()];
                exp_each(&x, &mut out);
                for (&xi, &got) in x.iter().zip(&out) {
                    let want = libm::exp(xi);
                    if got.to_bits() != want.to_bits() && mismatches.len() < 10 {
                        mismatches.push((xi, got, want));
                    }
                }
            }
        }
        assert!(mismatches.is_empty(), "x, ours, libm: {mismatches:?}");
        // The lanes did the work (not the libm fallback): the common range vectorised.
        let mut out = [0.0; LANES];
        let z: [f64; LANES] = std::array::from_fn(|l| 0.3 + l as f64);
        exp_neg_abs(&z, &mut out);
        assert_eq!((out, false), exp_neg_abs_lanes(&z));
    }

    #[test]
    fn the_kernels_have_the_reference_bits() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for _ in 0..300 {
            let n = 1 + (rng.next_u64() % 200) as usize;
            let p = (rng.next_u64() % 40) as usize;
            let (x, y) = problem(&mut rng, n, p, 2.0, false);
            let design = Design::new(&x).expect("finite");
            let standardizer = Standardizer::fit(&x).expect("finite");
            let old = reference::Problem::new(&standardizer, &x, &y, 0.7);
            let new = design.problem(&y, 0.7);
            let mut unit = || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            let theta: Vec<f64> = (0..=p).map(|_| (unit() - 0.5) * 3.0).collect();
            let (mut z_old, mut z_new) = (vec![0.0; n], vec![0.0; n]);
            old.margins(&theta, &mut z_old);
            new.margins(&theta, &mut z_new);
            let to_bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(to_bits(&z_old), to_bits(&z_new));
            let mut w_old = vec![0.0; n];
            let g_old = old.gradient(&theta, &z_old, &mut w_old);
            let (mut e, mut r, mut w_new) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
            exp_neg_abs(&z_new, &mut e);
            let g_new = new.gradient(&theta, &z_new, &e, &mut r, &mut w_new);
            assert_eq!(to_bits(&g_old.gradient), to_bits(&g_new));
            assert_eq!(to_bits(&w_old), to_bits(&w_new));
            assert_eq!(
                g_old.objective.to_bits(),
                new.objective_at(&theta, &z_new, &e).to_bits()
            );
            let (h_old, h_new) = (old.hessian(&w_old), new.hessian(&w_new));
            assert_eq!(to_bits(&h_old), to_bits(&h_new));
        }
    }

    /// Inputs of the bound functions: the whole range, both sides of every branch of the
    /// approximations and of libm's, and random values.
    fn samples(rng: &mut ChaCha8Rng, low: f64, high: f64, count: usize) -> Vec<f64> {
        let mut out = vec![
            0.0,
            f64::from_bits(1),
            f64::MIN_POSITIVE,
            LOG1P_IDENTITY,
            0.25,
            1.0,
        ];
        for v in [LOG1P_IDENTITY, 0.25, 1.0, 0.5, SOFTPLUS_TAIL, 708.0, 745.0] {
            out.extend([
                v,
                f64::from_bits(v.to_bits() - 1),
                f64::from_bits(v.to_bits() + 1),
            ]);
        }
        for _ in 0..count {
            let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            out.push(low + (high - low) * u);
            // log-uniform over the positive doubles below `high`
            out.push(high * libm::exp2(-1074.0 * u));
        }
        out.retain(|v| *v >= low && *v <= high);
        out
    }

    fn check_bounds(
        inputs: &[f64],
        bounds: fn(&[f64; LANES], &mut [f64; LANES], &mut [f64; LANES]),
        libm: impl Fn(f64) -> f64,
    ) {
        let mut worst: f64 = 0.0;
        for block in inputs.chunks(LANES) {
            let mut x = [0.0; LANES];
            x[..block.len()].copy_from_slice(block);
            let (mut lo, mut hi) = ([0.0; LANES], [0.0; LANES]);
            bounds(&x, &mut lo, &mut hi);
            for l in 0..block.len() {
                let exact = libm(x[l]);
                assert!(
                    lo[l] <= exact && exact <= hi[l],
                    "x {:e}: {:e} not in [{:e}, {:e}]",
                    x[l],
                    exact,
                    lo[l],
                    hi[l]
                );
                if exact > 0.0 && x[l] < SOFTPLUS_TAIL {
                    worst = worst.max((hi[l] - exact).max(exact - lo[l]) / exact);
                }
            }
        }
        // The slack, not the approximation, sets the width: the value sits in the middle.
        assert!(worst <= 1.01 * BOUND_SLACK, "widest relative gap {worst:e}");
    }

    #[test]
    fn log1p_bounds_hold_libm() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        check_bounds(
            &samples(&mut rng, 0.0, 1.0, 2_000_000),
            log1p_bounds,
            libm::log1p,
        );
    }

    #[test]
    fn softplus_bounds_hold_libm() {
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        check_bounds(
            &samples(&mut rng, 0.0, 800.0, 2_000_000),
            softplus_bounds,
            |x| libm::log1p(libm::exp(-x)),
        );
    }

    #[test]
    fn the_bound_approximations_are_far_inside_their_slack() {
        // The bounds need approximation error ≪ BOUND_SLACK: measure it (~1e-15).
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let worst = |inputs: Vec<f64>,
                     approx: &dyn Fn(&[f64; LANES]) -> [f64; LANES],
                     exact: &dyn Fn(f64) -> f64| {
            let mut worst: f64 = 0.0;
            for block in inputs.chunks(LANES) {
                let mut x = [0.0; LANES];
                x[..block.len()].copy_from_slice(block);
                let v = approx(&x);
                for l in 0..block.len() {
                    let exact = exact(x[l]);
                    if exact > 0.0 {
                        worst = worst.max((v[l] - exact).abs() / exact);
                    }
                }
            }
            worst
        };
        let log1p = worst(
            samples(&mut rng, LOG1P_IDENTITY, 1.0, 500_000),
            &log1p_approx,
            &libm::log1p,
        );
        let mut tail_free = samples(&mut rng, 0.0, SOFTPLUS_TAIL, 500_000);
        tail_free.retain(|&x| x < SOFTPLUS_TAIL);
        let softplus = worst(
            tail_free,
            &|x| {
                let (mut lo, mut hi) = ([0.0; LANES], [0.0; LANES]);
                softplus_bounds(x, &mut lo, &mut hi);
                std::array::from_fn(|l| (lo[l] + hi[l]) / 2.0)
            },
            &|x| libm::log1p(libm::exp(-x)),
        );
        eprintln!("worst relative error: log1p {log1p:e}, softplus {softplus:e}");
        assert!(log1p < BOUND_SLACK / 20.0 && softplus < BOUND_SLACK / 20.0);
    }
}
