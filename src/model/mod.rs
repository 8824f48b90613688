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

use crate::error::{Error, Result};

mod bounds;
pub mod gbdt;
mod kernels;
mod lanes;
mod linalg;
mod linfa;
mod matrix;
mod newton;
#[cfg(test)]
mod reference;
mod standardize;
#[cfg(test)]
mod tests;

pub use matrix::Matrix;
pub use standardize::Standardizer;

use kernels::UNIT_ROUNDOFF;
use lanes::probabilities;
use newton::Problem;

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

/// [`LogisticRegression::new`]'s gradient tolerance: every fit of a result
/// (`counterlab run`) stops at it.
pub const DEFAULT_TOL: f64 = 1e-10;

impl LogisticRegression {
    /// scikit-learn-like defaults for a given `C`: `tol =` [`DEFAULT_TOL`] (scaled as documented on
    /// [`LogisticRegression::tol`]) and at most 100 Newton iterations (well-posed problems
    /// take under 20).
    pub fn new(c: f64) -> Self {
        LogisticRegression {
            c,
            tol: DEFAULT_TOL,
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
        let n_pos = self.check_labels(x.rows(), y)?;
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
        let n_pos = self.check_labels(design.rows(), y)?;
        Ok(self.solve(design, y, n_pos))
    }

    /// The checks of a fit that do not look at feature values, in the order `fit` makes
    /// them (before it standardises); the number of positive labels.
    pub(crate) fn check_labels(&self, rows: usize, y: &[bool]) -> Result<usize> {
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
        Ok(Design::from_rows(standardizer, n, m, a))
    }

    /// The design from its augmented rows `a` (n × m, row-major): the column-major copy and
    /// the column bounds. Every part is a function of one column at a time.
    fn from_rows(standardizer: Standardizer, n: usize, m: usize, a: Vec<f64>) -> Design {
        let mut columns = vec![0.0; n * m];
        for (i, row) in a.chunks_exact(m).enumerate() {
            for (j, &v) in row.iter().enumerate() {
                columns[j * n + i] = v;
            }
        }
        // Sums of |values| rounded below the exact sums by at most γₙ of them; widened
        // past that (the same margin as `sum_bounds`) they are upper bounds.
        let widen = 1.0 + 4.0 * UNIT_ROUNDOFF * (n + 1) as f64;
        let column_abs_sums = columns
            .chunks_exact(n.max(1))
            .take(m)
            .map(|column| column.iter().map(|v| v.abs()).sum::<f64>() * widen)
            .collect();
        Design {
            standardizer,
            n,
            m,
            a,
            columns,
            column_abs_sums,
            start_hessians: StartHessians::default(),
        }
    }

    /// The design of the features `keep` (indices into this design's features, in
    /// increasing order): equal, field for field and bit for bit, to [`Design::new`] of the
    /// matrix of those columns alone. The standardiser, each standardised value and each
    /// column's bound are functions of their own column only, so an ablation's design is a
    /// selection of its arm's, not a second pass over the table.
    pub fn select(&self, keep: &[usize]) -> Design {
        assert!(
            keep.windows(2).all(|w| w[0] < w[1]) && keep.iter().all(|&k| k + 1 < self.m),
            "features to keep: increasing indices of this design's features"
        );
        let standardizer = Standardizer {
            mean: keep.iter().map(|&k| self.standardizer.mean[k]).collect(),
            scale: keep.iter().map(|&k| self.standardizer.scale[k]).collect(),
        };
        let m = keep.len() + 1;
        let mut a = Vec::with_capacity(self.n * m);
        for row in self.a.chunks_exact(self.m) {
            a.push(row[0]);
            a.extend(keep.iter().map(|&k| row[k + 1]));
        }
        let mut columns = Vec::with_capacity(self.n * m);
        for j in std::iter::once(0).chain(keep.iter().map(|&k| k + 1)) {
            columns.extend_from_slice(&self.columns[j * self.n..(j + 1) * self.n]);
        }
        let column_abs_sums = std::iter::once(0)
            .chain(keep.iter().map(|&k| k + 1))
            .map(|j| self.column_abs_sums[j])
            .collect();
        Design {
            standardizer,
            n: self.n,
            m,
            a,
            columns,
            column_abs_sums,
            start_hessians: StartHessians::default(),
        }
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
