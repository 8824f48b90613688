//! The solver as it was before the kernels were blocked and the objective bounded:
//! every sum a plain loop, every objective computed.
//! (Test-only: `tests.rs` holds the optimised solver to these bits.)

use super::linalg::{logloss, solve_spd};
use super::{FittedLogistic, LogisticRegression, Matrix, Standardizer};
use super::{ARMIJO, MAX_HALVINGS, PURE_NEWTON};

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
            super::FitStop::Converged
        } else {
            super::FitStop::IterationLimit
        },
    }
}

/// The standardised training problem. Parameters `θ = [b, w₁ … w_p]`; rows are stored
/// augmented as `[1, x̃ᵢ₁ … x̃ᵢₚ]` so that `zᵢ = Σⱼ θⱼ·aᵢⱼ`, summed from `j = 0`, has
/// exactly the bits of [`FittedLogistic::decision_function`] (`0 + b·1 = b`).
pub(super) struct Problem {
    pub(super) n: usize,
    /// Parameters including the intercept: p + 1.
    pub(super) m: usize,
    /// Augmented standardised rows, row-major n × m.
    pub(super) a: Vec<f64>,
    pub(super) y: Vec<bool>,
    pub(super) c: f64,
}

/// The gradient and objective at θ, and the curvature weights for the Hessian.
pub(super) struct Gradient {
    /// `C·Σ rᵢ·aᵢ + [0, w]`, with `rᵢ = σ(zᵢ) − yᵢ`.
    pub(super) gradient: Vec<f64>,
    /// The objective `C·Σ logloss + ½‖w‖²`.
    pub(super) objective: f64,
}

pub(super) struct Solution {
    pub(super) theta: Vec<f64>,
    pub(super) iterations: usize,
    pub(super) converged: bool,
}

impl Problem {
    pub(super) fn new(standardizer: &Standardizer, x: &Matrix, y: &[bool], c: f64) -> Problem {
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

    pub(super) fn row(&self, i: usize) -> &[f64] {
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
    pub(super) fn penalty(theta: &[f64]) -> f64 {
        let mut s = 0.0;
        for &t in &theta[1..] {
            s += t * t;
        }
        0.5 * s
    }

    /// `C·Σ logloss(yᵢ, zᵢ) + ½‖w‖²`, given the margins.
    pub(super) fn objective(&self, theta: &[f64], z: &[f64]) -> f64 {
        let mut loss = 0.0;
        for (&zi, &yi) in z.iter().zip(&self.y) {
            loss += logloss(yi, zi, libm::exp(-zi.abs()));
        }
        self.c * loss + Self::penalty(theta)
    }

    /// Gradient and objective at θ (margins `z`); fills `weights` with `sᵢ = σ(zᵢ)(1 − σ(zᵢ))`.
    pub(super) fn gradient(&self, theta: &[f64], z: &[f64], weights: &mut [f64]) -> Gradient {
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
