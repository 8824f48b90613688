//! Newton's method on the standardised problem: the step decisions, decided exactly as
//! comparing computed objectives would, from bounds or a proof when those settle them
//! (docs/DETERMINISM.md, "work the solver skips").

use super::bounds::{log1p_bounds, softplus_bounds, LANES};
use super::kernels::{
    column_sums, hessian_chunk, MARGIN_ROWS, ROW_CHUNK, SCALED_FROM, SUM_LANES, UNIT_ROUNDOFF,
};
use super::lanes::exp_neg_abs;
use super::linalg::{logloss, solve_spd};
use super::{FitStop, StartHessians, ARMIJO, MAX_HALVINGS, PURE_NEWTON};

/// The standardised training problem. Parameters `θ = [b, w₁ … w_p]`; rows are stored
/// augmented as `[1, x̃ᵢ₁ … x̃ᵢₚ]` so that `zᵢ = Σⱼ θⱼ·aᵢⱼ`, summed from `j = 0`, has
/// exactly the bits of [`FittedLogistic::decision_function`] (`0 + b·1 = b`).
///
/// Every sum below is the plain one of its doc comment, from `0.0`, in index order. The
/// kernels only choose which *independent* sums run side by side (several rows' margins,
/// a block of gradient or Hessian entries held in registers over all rows), never the
/// order of the additions inside one sum, so the result has the bits of the textbook loop.
pub(super) struct Problem<'d> {
    pub(super) n: usize,
    /// Parameters including the intercept: p + 1.
    pub(super) m: usize,
    /// Augmented standardised rows, row-major n × m.
    pub(super) a: &'d [f64],
    /// The same values column-major, m × n.
    pub(super) columns: &'d [f64],
    /// Upper bounds of `Σᵢ |aᵢⱼ|`, one per column.
    pub(super) column_abs_sums: &'d [f64],
    pub(super) y: &'d [bool],
    pub(super) c: f64,
    pub(super) start_hessians: &'d StartHessians,
}

/// What a Newton iteration computed at its point θ: the margins `z`, `eᵢ = exp(−|zᵢ|)`,
/// the weights `sᵢ` and the gradient (see [`Problem::gradient`]).
pub(super) struct Point<'p> {
    pub(super) theta: &'p [f64],
    pub(super) z: &'p [f64],
    pub(super) e: &'p [f64],
    pub(super) weights: &'p [f64],
    pub(super) gradient: &'p [f64],
}

impl<'p> Point<'p> {
    pub(super) fn new(
        theta: &'p [f64],
        z: &'p [f64],
        e: &'p [f64],
        weights: &'p [f64],
        gradient: &'p [f64],
    ) -> Self {
        Point {
            theta,
            z,
            e,
            weights,
            gradient,
        }
    }
}

/// The sums over the rows of [`Problem::full_step_certain`], `LANES` rows side by side.
#[derive(Default)]
pub(super) struct StepSums {
    /// `sᵢδᵢ²·(½ + a/6 + a²/24 + a³/120 + a⁴/720)`, `a = |δᵢ|`.
    pub(super) near: [f64; LANES],
    /// `sᵢδᵢ²·a⁵`.
    pub(super) far: [f64; LANES],
    /// `max |δᵢ|`.
    pub(super) reach: [f64; LANES],
    /// `|zᵢ| + |uᵢ|`.
    pub(super) size: [f64; LANES],
    /// `max(−μᵢ, 0)`.
    pub(super) hinges: [f64; LANES],
    /// `eᵢ`.
    pub(super) exps: [f64; LANES],
}

impl StepSums {
    #[inline(always)]
    pub(super) fn add(
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
pub(super) struct Scratch {
    /// The bound functions' input, padded to whole blocks of `LANES` rows.
    pub(super) input: Vec<f64>,
    pub(super) lo: Vec<f64>,
    pub(super) hi: Vec<f64>,
}

pub(super) struct Solution {
    pub(super) theta: Vec<f64>,
    pub(super) iterations: usize,
    pub(super) stop: FitStop,
}

impl Problem<'_> {
    /// `outᵢ = Σⱼ vⱼ·aᵢⱼ` for every row: the margins `z` for `v = θ`. Eight rows at a time
    /// from the column-major copy, each row with its own sum over `j` in order.
    #[inline(always)]
    pub(super) fn margins(&self, v: &[f64], out: &mut [f64]) {
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
        for (&zi, &yi) in z.iter().zip(self.y) {
            loss += logloss(yi, zi, libm::exp(-zi.abs()));
        }
        self.c * loss + Self::penalty(theta)
    }

    /// [`Problem::objective`] at the margins `z` of the last [`Problem::gradient`], from the
    /// `eᵢ = exp(−|zᵢ|)` it kept: the same operations on the same values.
    pub(super) fn objective_at(&self, theta: &[f64], z: &[f64], e: &[f64]) -> f64 {
        let mut loss = 0.0;
        for ((&zi, &yi), &ei) in z.iter().zip(self.y).zip(e) {
            loss += logloss(yi, zi, ei);
        }
        self.c * loss + Self::penalty(theta)
    }

    /// [`Problem::objective_at`], computed at most once per iteration (`cache`).
    pub(super) fn objective_once(
        &self,
        cache: &mut Option<f64>,
        theta: &[f64],
        z: &[f64],
        e: &[f64],
    ) -> f64 {
        *cache.get_or_insert_with(|| self.objective_at(theta, z, e))
    }

    /// Bounds `(lo, hi)` of [`Problem::objective_at`] *as it computes*, without a
    /// logarithm: see [`log1p_bounds`]. `None` unless every margin is finite.
    #[inline(always)]
    pub(super) fn objective_bounds_at(
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
    pub(super) fn objective_bounds(
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
    pub(super) fn term_bounds<const SOFTPLUS: bool>(&self, z: &[f64], scratch: &mut Scratch) {
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
    pub(super) fn add_hinges(&self, z: &[f64], scratch: &mut Scratch) {
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
    pub(super) fn sum_bounds(
        &self,
        theta: &[f64],
        z: &[f64],
        scratch: &Scratch,
    ) -> Option<(f64, f64)> {
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
    pub(super) fn full_step_certain(
        &self,
        at: &Point,
        step: &[f64],
        slope: f64,
        u: &[f64],
    ) -> bool {
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
    pub(super) fn gradient(
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
    /// bits: each entry is summed by one tile, over the rows in order. From
    /// [`SCALED_FROM`] parameters on, a chunk's products `sᵢ·aᵢⱼ` are computed once for all
    /// its tiles ([`hessian_chunk`]).
    #[inline(always)]
    pub(super) fn hessian(&self, weights: &[f64]) -> Vec<f64> {
        let m = self.m;
        let mut hess = vec![0.0; m * m];
        let mut scaled_chunk = vec![0.0; if m >= SCALED_FROM { ROW_CHUNK * m } else { 0 }];
        for (rows, s) in self.a.chunks(ROW_CHUNK * m).zip(weights.chunks(ROW_CHUNK)) {
            if m >= SCALED_FROM {
                let scaled = &mut scaled_chunk[..rows.len()];
                for ((sa_row, row), &si) in
                    scaled.chunks_exact_mut(m).zip(rows.chunks_exact(m)).zip(s)
                {
                    for (sa, &a) in sa_row.iter_mut().zip(row) {
                        *sa = si * a;
                    }
                }
                hessian_chunk::<true>(rows, scaled, s, m, &mut hess);
            } else {
                hessian_chunk::<false>(rows, &[], s, m, &mut hess);
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
    pub(super) fn start_hessian(&self, weights: &[f64]) -> Vec<f64> {
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
    pub(super) fn solve(&self, tol: f64, max_iter: usize, n_pos: usize) -> Solution {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            #[allow(
                unsafe_code,
                reason = "calling a #[target_feature] function: one of the crate's two unsafe blocks (the other: gbdt/boost.rs)"
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
    pub(super) fn newton_avx2(&self, tol: f64, max_iter: usize, n_pos: usize) -> Solution {
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
    ///
    /// Every helper it calls is `#[inline(always)]`, so that [`Problem::newton_avx2`]
    /// compiles them with 4-wide vectors too.
    #[inline(always)]
    pub(super) fn newton(&self, tol: f64, max_iter: usize, n_pos: usize) -> Solution {
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
        let mut buffers = StepBuffers::new(n, m);
        let mut iterations = 0;
        loop {
            let at_start = iterations == 0;
            self.margins_and_exps(&theta, at_start, &mut z, &mut e);
            let gradient = self.gradient(&theta, &z, &e, &mut residual, &mut weights);
            if let Some(reason) = gradient_stop(&gradient, scale, tol, iterations == max_iter) {
                return stop(theta, iterations, reason);
            }
            let step = match self.newton_step(&gradient, &weights, at_start) {
                Ok(step) => step,
                Err(reason) => return stop(theta, iterations, reason),
            };
            let at = Point::new(&theta, &z, &e, &weights, &gradient);
            let Some(t) = self.step_length(&at, at_start, &step, &mut buffers) else {
                return stop(theta, iterations, FitStop::LineSearchStalled);
            };
            if theta
                .iter()
                .zip(&step.delta)
                .any(|(&th, &sj)| !(th + t * sj).is_finite())
            {
                return stop(theta, iterations, FitStop::NonFinite);
            }
            for (th, &sj) in theta.iter_mut().zip(&step.delta) {
                *th += t * sj;
            }
            iterations += 1;
        }
    }

    /// The margins `z` at θ and `eᵢ = exp(−|zᵢ|)`.
    #[inline(always)]
    fn margins_and_exps(&self, theta: &[f64], at_start: bool, z: &mut [f64], e: &mut [f64]) {
        if at_start {
            // θ = (b, 0, …, 0): every margin is exactly b (`margins` adds 0 + b·1, then
            // ±0 = 0·aᵢⱼ, and b is never −0), so every eᵢ is libm's exp(−|b|).
            z.fill(theta[0]);
            e.fill(libm::exp(-theta[0].abs()));
        } else {
            self.margins(theta, z);
            exp_neg_abs(z, e);
        }
    }

    /// The Newton step at a point with this `gradient` and these `weights`, or why there
    /// is none to take.
    #[inline(always)]
    fn newton_step(
        &self,
        gradient: &[f64],
        weights: &[f64],
        at_start: bool,
    ) -> Result<NewtonStep, FitStop> {
        let neg_grad: Vec<f64> = gradient.iter().map(|v| -v).collect();
        let hessian = if at_start {
            self.start_hessian(weights)
        } else {
            self.hessian(weights)
        };
        let Some(delta) = solve_spd(&hessian, self.m, &neg_grad) else {
            return Err(FitStop::SingularHessian);
        };
        // gᵀΔ = −λ², λ the Newton decrement; negative for a positive definite system.
        let mut slope = 0.0;
        for (&gj, &sj) in gradient.iter().zip(&delta) {
            slope += gj * sj;
        }
        if slope >= 0.0 || slope.is_nan() {
            // Rounding has the last word: there is no descent direction left to follow.
            return Err(FitStop::NoDescent);
        }
        Ok(NewtonStep { delta, slope })
    }

    /// How far to go along `step` from `at`: the fraction t of the full step (1, or the
    /// line search's), or None when the line search stalls.
    #[inline(always)]
    fn step_length(
        &self,
        at: &Point,
        at_start: bool,
        step: &NewtonStep,
        buffers: &mut StepBuffers,
    ) -> Option<f64> {
        let slope = step.slope;
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
            self.margins(&step.delta, &mut buffers.u);
            (
                self.full_step_certain(at, &step.delta, slope, &buffers.u),
                true,
            )
        };
        // Test builds decide every step the long way too, and check the two agree.
        if certain && !cfg!(test) {
            return Some(1.0);
        }
        let pure_newton = |f: f64| -slope <= PURE_NEWTON * (1.0 + f.abs());
        let bounds = self.objective_bounds_at(at.theta, at.z, at.e, at_start, &mut buffers.scratch);
        let mut objective = None;
        let accepted = match bounds {
            Some((lo, _)) if pure_newton(lo) => true,
            Some((_, hi)) if !pure_newton(hi) => false,
            _ => pure_newton(self.objective_once(&mut objective, at.theta, at.z, at.e)),
        };
        if accepted {
            return Some(1.0);
        }
        if !u_ready {
            self.margins(&step.delta, &mut buffers.u);
        }
        self.armijo_step_length(at, step, bounds, &mut objective, certain, buffers)
    }

    /// The line search: t = 1, ½, ¼, … until θ + t·Δ passes the Armijo test against the
    /// objective at `at` (its `bounds`, or its value, computed once into `objective` when
    /// the bounds do not decide); None after `MAX_HALVINGS` halvings. `buffers.u` holds
    /// `A·Δ`.
    #[inline(always)]
    fn armijo_step_length(
        &self,
        at: &Point,
        step: &NewtonStep,
        bounds: Option<(f64, f64)>,
        objective: &mut Option<f64>,
        certain: bool,
        buffers: &mut StepBuffers,
    ) -> Option<f64> {
        let mut t = 1.0;
        let mut halvings = 0;
        loop {
            for (tz, (&zi, &ui)) in buffers.trial_z.iter_mut().zip(at.z.iter().zip(&buffers.u)) {
                *tz = zi + t * ui;
            }
            for (tt, (&th, &sj)) in buffers
                .trial
                .iter_mut()
                .zip(at.theta.iter().zip(&step.delta))
            {
                *tt = th + t * sj;
            }
            // Armijo: f(trial) ≤ f + d, the right side rounded as `f + ARMIJO·t·slope`,
            // which is monotone in f.
            let d = ARMIJO * t * step.slope;
            let (f_lo, f_hi) = match (*objective, bounds) {
                (Some(f), _) => (f, f),
                (None, Some(b)) => b,
                (None, None) => (f64::NAN, f64::NAN),
            };
            let accepted =
                match self.objective_bounds(&buffers.trial, &buffers.trial_z, &mut buffers.scratch)
                {
                    Some((_, hi)) if hi <= f_lo + d => true,
                    Some((lo, _)) if lo > f_hi + d => false,
                    _ => {
                        self.objective(&buffers.trial, &buffers.trial_z)
                            <= self.objective_once(objective, at.theta, at.z, at.e) + d
                    }
                };
            if cfg!(test) {
                assert!(
                    accepted || !certain,
                    "a full step found certain was rejected"
                );
            }
            if accepted {
                return Some(t);
            } else if halvings == MAX_HALVINGS {
                return None;
            } else {
                t *= 0.5;
                halvings += 1;
            }
        }
    }
}

/// A Newton step: the direction Δ solving `H·Δ = −g`, and the slope `gᵀΔ = −λ²` along it.
struct NewtonStep {
    delta: Vec<f64>,
    slope: f64,
}

/// What deciding a step writes, allocated once per fit: the margins' direction `u = A·Δ`,
/// a trial point's margins and parameters, and the bounds' per-row scratch.
struct StepBuffers {
    u: Vec<f64>,
    trial_z: Vec<f64>,
    trial: Vec<f64>,
    scratch: Scratch,
}

impl StepBuffers {
    fn new(n: usize, m: usize) -> Self {
        let padded = n.div_ceil(LANES) * LANES;
        StepBuffers {
            u: vec![0.0; n],
            trial_z: vec![0.0; n],
            trial: vec![0.0; m],
            scratch: Scratch {
                input: vec![0.0; padded],
                lo: vec![0.0; padded],
                hi: vec![0.0; padded],
            },
        }
    }
}

/// Why the fit stops at a point with this `gradient`, if it does: the scaled max-abs
/// gradient test is met, the gradient is not finite, or the iterations are spent
/// (`out_of_iterations`).
#[inline(always)]
fn gradient_stop(
    gradient: &[f64],
    scale: f64,
    tol: f64,
    out_of_iterations: bool,
) -> Option<FitStop> {
    let gmax = gradient.iter().fold(0.0_f64, |acc, v| acc.max(v.abs()));
    if gmax * scale < tol {
        Some(FitStop::Converged)
    } else if !gmax.is_finite() {
        Some(FitStop::NonFinite)
    } else if out_of_iterations {
        Some(FitStop::IterationLimit)
    } else {
        None
    }
}
