//! The optimised solver against the textbook one it replaced (kept here verbatim as
//! `reference`): the same bits on random problems of every shape, and the bounds that
//! let it skip objective evaluations against libm.

use super::bounds::*;
use super::lanes::*;
use super::linalg::*;
use super::newton::*;
use super::reference;
use super::*;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A [`problem`] whose rows and features are drawn uniformly from the two ranges.
fn sized_problem(
    rng: &mut ChaCha8Rng,
    rows: std::ops::Range<usize>,
    features: std::ops::Range<usize>,
    signal: f64,
    rare: bool,
) -> (Matrix, Vec<bool>) {
    let mut draw = |range: std::ops::Range<usize>| {
        range.start + (rng.next_u64() % range.len() as u64) as usize
    };
    let n = draw(rows);
    let p = draw(features);
    problem(rng, n, p, signal, rare)
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
        let signal = [0.5, 3.0, 40.0, 1e3][round % 4];
        let (x, y) = sized_problem(&mut rng, 2..302, 0..36, signal, round % 11 == 0);
        let (n, p) = (x.rows(), x.cols());
        let c = [1e-4, 0.05, 1.0, 30.0, 1e6][(round / 4) % 5];
        let (tol, max_iter) = [(1e-10, 100), (0.0, 7), (1e-4, 100), (1e-10, 1)][(round / 20) % 4];
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
        let signal = [0.5, 3.0, 40.0, 1e3][round % 4];
        let (x, y) = sized_problem(&mut rng, 3..3003, 1..21, signal, round % 9 == 0);
        let n = x.rows();
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
            let at = Point::new(&theta, &z, &e, &weights, &gradient);
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
                let trial: Vec<f64> = theta.iter().zip(&step).map(|(a, b)| a + 1.0 * b).collect();
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
        // At least one feature: without, the start is the optimum and needs no Hessian.
        let (x, y) = sized_problem(&mut rng, 3..2003, 1..31, [0.5, 3.0, 40.0][round % 3], false);
        let n = x.rows();
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

/// The bounds enclose `libm` on [`samples`] of `[low, high]` (2,000,000 random ones drawn
/// from `seed`) and are no wider than the slack needs.
fn check_bounds(
    seed: u64,
    (low, high): (f64, f64),
    bounds: fn(&[f64; LANES], &mut [f64; LANES], &mut [f64; LANES]),
    libm: impl Fn(f64) -> f64,
) {
    let inputs = samples(&mut ChaCha8Rng::seed_from_u64(seed), low, high, 2_000_000);
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
    check_bounds(1, (0.0, 1.0), log1p_bounds, libm::log1p);
}

#[test]
fn softplus_bounds_hold_libm() {
    check_bounds(2, (0.0, 800.0), softplus_bounds, |x| {
        libm::log1p(libm::exp(-x))
    });
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

/// Every part of a design, as bits (`Design`'s `==` would take −0 for +0).
fn design_bits(d: &Design) -> Vec<Vec<u64>> {
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<u64>>();
    vec![
        vec![d.n as u64, d.m as u64],
        bits(&d.standardizer.mean),
        bits(&d.standardizer.scale),
        bits(&d.a),
        bits(&d.columns),
        bits(&d.column_abs_sums),
    ]
}

#[test]
fn a_selection_of_a_design_has_the_bits_of_the_design_of_those_columns() {
    let mut rng = ChaCha8Rng::seed_from_u64(20261202);
    for round in 0..60 {
        let n = 1 + (rng.next_u64() % 700) as usize;
        let p = 1 + (rng.next_u64() % 20) as usize;
        let (x, y) = problem(&mut rng, n, p, [0.5, 3.0, 40.0][round % 3], false);
        let design = Design::new(&x).expect("finite");
        // Every subset when there are few features, random ones (the empty one too) else.
        let subsets: Vec<u64> = if p <= 4 {
            (0..1u64 << p).collect()
        } else {
            (0..12)
                .map(|_| rng.next_u64() & ((1u64 << p) - 1))
                .collect()
        };
        for mask in subsets {
            let keep: Vec<usize> = (0..p).filter(|&k| mask >> k & 1 == 1).collect();
            let selected = design.select(&keep);
            let columns = x.select_columns(&keep);
            assert_eq!(columns.cols(), keep.len());
            for (i, row) in (0..n).map(|i| (i, columns.row(i))) {
                let want: Vec<f64> = keep.iter().map(|&k| x.row(i)[k]).collect();
                assert_eq!(row, want.as_slice(), "round {round}, row {i}");
            }
            let fresh = Design::new(&columns).expect("finite");
            assert_eq!(
                design_bits(&selected),
                design_bits(&fresh),
                "round {round}, keep {keep:?}"
            );
            if n >= 2 && y.iter().any(|&v| v) && !y.iter().all(|&v| v) {
                let params = LogisticRegression::new(1.0);
                let on_selected = params.fit_design(&selected, &y).expect("valid");
                let on_fresh = params.fit_design(&fresh, &y).expect("valid");
                assert_eq!(bits(&on_selected), bits(&on_fresh), "round {round}");
            }
        }
    }
}
