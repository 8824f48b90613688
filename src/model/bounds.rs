//! Rigorous bounds of the loss terms as the objective computes them, without a libm call:
//! what lets the solver decide a step without evaluating the objective.

/// Relative slack of [`log1p_bounds`] and [`softplus_bounds`]: ~50× the worst error of
/// the approximations below (≤ 8 ulp, 1.8e-15) plus that of libm's `log1p` and `exp`
/// (< 1 ulp each, as documented by FreeBSD's msun, which libm ports).
pub(super) const BOUND_SLACK: f64 = 1e-13;

/// Rows evaluated side by side by the bound functions: independent evaluations keep the
/// pipeline full and vectorise.
pub(super) const LANES: usize = 8;

/// `1/(2k+1)` for k = 0…9: `ln((1+e)/c) = 2·atanh(s) = 2s·Σₖ s²ᵏ/(2k+1)`.
pub(super) const ATANH_SERIES: [f64; 10] = [
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
pub(super) const LN_1_5: f64 = 0.405_465_108_108_164_4;

/// libm's `log1p` returns its argument unchanged below 2⁻⁵³.
pub(super) const LOG1P_IDENTITY: f64 = 1.0 / 9_007_199_254_740_992.0;

/// Per lane, `(lo, hi)` with `lo ≤ libm::log1p(e) ≤ hi` for every `e ∈ [0, 1]`; no libm
/// call and no branch. Below 2⁻⁵³ libm's `log1p(e)` is `e` itself, and so are both bounds.
#[inline(always)]
pub(super) fn log1p_bounds(e: &[f64; LANES], lo: &mut [f64; LANES], hi: &mut [f64; LANES]) {
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
pub(super) fn log1p_approx(e: &[f64; LANES]) -> [f64; LANES] {
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

/// `1/j!` for j = 0…13: the Taylor series of `exp(r)`, `|r| ≤ 0.35` (remainder
/// < 0.35¹⁴/14! < 1e-17 relative).
pub(super) const EXP_SERIES: [f64; 14] = [
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
pub(super) const SOFTPLUS_TAIL: f64 = 700.0;

/// ln 2 split in two for Cody–Waite argument reduction, as libm's `exp` splits it
/// (FreeBSD `e_exp.c`'s `ln2HI` and `ln2LO`, by their bit patterns): the high part's
/// trailing zero bits make `k·LN2_HI` exact for the `k` of an `exp` argument. Defined once
/// for [`softplus_bounds`] and for libm's own algorithm in `src/model/lanes.rs`.
pub(super) const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
/// The low part of ln 2: see [`LN2_HI`].
pub(super) const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);

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
pub(super) fn softplus_bounds(x: &[f64; LANES], lo: &mut [f64; LANES], hi: &mut [f64; LANES]) {
    pub(super) const MAGIC: f64 = 6_755_399_441_055_744.0; // 1.5·2⁵²
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
