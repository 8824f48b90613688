//! libm's `exp`, bit for bit, over lanes of rows so that it vectorises; the predicted
//! probabilities.

use super::bounds::LANES;

/// `1 / (1 + libm::exp(−zᵢ))` for every margin, the exponentials in lanes ([`exp_each`]).
pub(super) fn probabilities(mut z: Vec<f64>) -> Vec<f64> {
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
pub(super) mod libm_exp {
    // ln 2's two parts are shared with the loss bounds' own reduction.
    pub(in crate::model) use crate::model::bounds::{LN2_HI, LN2_LO};
    pub(in crate::model) const INVLN2: f64 = f64::from_bits(0x3ff7_1547_652b_82fe);
    pub(in crate::model) const P1: f64 = f64::from_bits(0x3fc5_5555_5555_553e);
    pub(in crate::model) const P2: f64 = f64::from_bits(0xbf66_c16c_16be_bd93);
    pub(in crate::model) const P3: f64 = f64::from_bits(0x3f11_566a_af25_de2c);
    pub(in crate::model) const P4: f64 = f64::from_bits(0xbebb_bd41_c5d2_6bf1);
    pub(in crate::model) const P5: f64 = f64::from_bits(0x3e66_3769_72be_a4d0);
    /// High words of |x| where libm changes case: `|x| ≥ 708.39` (overflow/underflow
    /// handling), `|x| ≥ 1.5·ln2`, `|x| > ½·ln2`, `|x| > 2⁻²⁸`.
    pub(in crate::model) const HX_SPECIAL: u32 = 0x4086_232b;
    pub(in crate::model) const HX_ONE_AND_HALF_LN2: u32 = 0x3ff0_a2b2;
    pub(in crate::model) const HX_HALF_LN2: u32 = 0x3fd6_2e42;
    pub(in crate::model) const HX_TINY: u32 = 0x3e30_0000;
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
pub(super) fn exp_neg_abs(z: &[f64], out: &mut [f64]) {
    exp_chunks::<true>(z, out);
}

/// `out[i] = libm::exp(x[i])`, bit for bit, LANES values at a time: [`exp_neg_abs`] for
/// arguments of either sign (the probabilities `1/(1 + exp(−z))` of the predictions).
pub(super) fn exp_each(x: &[f64], out: &mut [f64]) {
    exp_chunks::<false>(x, out);
}

/// `out[i] = libm::exp(aᵢ)` with `aᵢ = −|x[i]|` if `NEG_ABS`, else `x[i]`: whole blocks of
/// LANES in lanes, libm's special cases and the remainder by libm itself.
#[inline(always)]
pub(super) fn exp_chunks<const NEG_ABS: bool>(x: &[f64], out: &mut [f64]) {
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
pub(super) fn exp_argument<const NEG_ABS: bool>(x: f64) -> f64 {
    if NEG_ABS {
        -x.abs()
    } else {
        x
    }
}

/// The high word of `|x|`, as libm's `exp` reads it.
#[inline(always)]
pub(super) fn high_word(x: f64) -> u32 {
    ((x.to_bits() >> 32) as u32) & 0x7fff_ffff
}

/// The least `|x|` whose high word is `high`: libm's test `high_word(x) >= high` is
/// `|x| >= at_least(high)` for every `x` but NaN (non-negative doubles order as their bits),
/// and `high_word(x) > high` is `|x| >= at_least(high + 1)`. The lanes test `|x|` against
/// these: float comparisons of one width with the values, which LLVM turns into vector
/// selects, where 32-bit comparisons of high words next to 64-bit values made it branch
/// lane by lane. (A NaN lane fails every such test and is flagged special, as libm's high
/// word test flags it.)
#[inline(always)]
fn at_least(high: u32) -> f64 {
    f64::from_bits(u64::from(high) << 32)
}

/// 2⁵²: from there on every double is an integer, so `(v + 2⁵²) − 2⁵²` rounds `v` to an
/// integer.
const TWO_52: f64 = 4_503_599_627_370_496.0;

/// `v as i32 as f64` (truncation toward zero) for `|v| < 2³¹`, with float operations only,
/// so that it vectorises: Rust's `as i32` saturates (NaN to 0, out of range to the bounds),
/// which LLVM compiles lane by lane. `r` is `v` rounded to an integer (exact: `v ± 2⁵²`
/// rounds once, in the binade where the spacing is 1, and `∓ 2⁵²` is exact); where `r` lies
/// beyond `v`, away from zero (`|r| > |v|`), the integer toward zero is one step back. `r`
/// is never `−0` (an exact cancellation rounds to `+0`, as `as i32 as f64` gives). On the
/// lanes libm treats specially (`|v|` large, NaN) the value is garbage, as it may be: those
/// lanes are recomputed by libm.
///
/// The step back is `r − step·[|r| > |v|]`: with the flag 0 it subtracts `±0`, which
/// leaves `r` as it is. Arithmetic instead of a select, because LLVM turns a select whose
/// arm costs an operation into a branch per lane.
#[inline(always)]
fn trunc_small(v: f64) -> f64 {
    let up = v >= 0.0;
    let magic = if up { TWO_52 } else { -TWO_52 };
    let step = if up { 1.0 } else { -1.0 };
    let r = (v + magic) - magic;
    r - step * flag(r.abs() > v.abs())
}

/// 1.0 if `c`, else 0.0.
#[inline(always)]
fn flag(c: bool) -> f64 {
    f64::from(u8::from(c))
}

/// libm's `exp(x)` for `x = −|z|` on every lane, and whether any lane is one of libm's
/// special cases (`|x| ≥ 708.39` or NaN; those lanes' values are garbage).
#[inline(always)]
pub(super) fn exp_neg_abs_lanes(z: &[f64; LANES]) -> ([f64; LANES], bool) {
    use libm_exp::*;
    use std::array::from_fn;
    let a: [f64; LANES] = from_fn(|l| z[l].abs());
    let x: [f64; LANES] = from_fn(|l| -a[l]);
    // libm's k (see `exp_lanes`) for x ≤ 0: HALF[sign] = −0.5 and 1 − 2·sign = −1.
    let reduced: [f64; LANES] = from_fn(|l| trunc_small(INVLN2 * x[l] - 0.5));
    let k: [f64; LANES] = from_fn(|l| case_k(a[l], reduced[l], -1.0));
    exp_reduced(&x, &a, &k)
}

/// libm's `exp(x)` for `|x| < 708.39` on every lane, and whether any lane is outside that
/// range (libm's special cases: overflow, underflow, NaN; those lanes' values are garbage).
#[inline(always)]
pub(super) fn exp_lanes(x: &[f64; LANES]) -> ([f64; LANES], bool) {
    use libm_exp::*;
    use std::array::from_fn;
    let a: [f64; LANES] = from_fn(|l| x[l].abs());
    let sign: [f64; LANES] = from_fn(|l| if x[l].is_sign_negative() { -1.0 } else { 1.0 });
    // Argument reduction x = k·ln2 + r. libm: k = (INVLN2·x + HALF[sign]) as i32 from
    // 1.5·ln2 on (HALF = ±0.5 with the sign of x; a + (−0.5) is a − 0.5), k = 1 − 2·sign
    // = ±1 from ½·ln2, and k = 0 below, where libm skips the reduction: hi − lo with k = 0
    // is x − 0·LN2_HI − 0·LN2_LO = x exactly, and the final scaling by 2⁰ is exact too.
    let reduced: [f64; LANES] = from_fn(|l| trunc_small(INVLN2 * x[l] + 0.5 * sign[l]));
    let k: [f64; LANES] = from_fn(|l| case_k(a[l], reduced[l], sign[l]));
    exp_reduced(x, &a, &k)
}

/// libm's `k` of `|x| = a`: `reduced` from 1.5·ln2 on, `one` (±1) from ½·ln2 on, else 0;
/// computed on every lane as `reduced·[case 1] + one·[case 2]`, arithmetic instead of
/// selects (see [`trunc_small`]). The terms not taken are `±0` (`reduced` is finite on
/// every lane that is not special), and `k + (±0) = k`; where neither case holds `k` is
/// `±0`, and a `−0` there gives libm's bits too: with `k = ±0`, `x − k·ln2_hi`, `hi − lo`
/// and `(… − lo) + hi` are the same for either sign of zero (`x ≠ 0`; `x = ±0` is a tiny
/// lane, `1 + x`), and so is the scale `2⁰`.
#[inline(always)]
fn case_k(a: f64, reduced: f64, one: f64) -> f64 {
    use libm_exp::{HX_HALF_LN2, HX_ONE_AND_HALF_LN2};
    let big = a >= at_least(HX_ONE_AND_HALF_LN2);
    let middle = !big & (a >= at_least(HX_HALF_LN2 + 1));
    reduced * flag(big) + one * flag(middle)
}

/// The rest of libm's `exp` once `k` is chosen (`a = |x|`): `x = k·ln2 + r`, the polynomial
/// of `r`, the scaling by `2ᵏ`; and whether any lane is a special case.
#[inline(always)]
pub(super) fn exp_reduced(
    x: &[f64; LANES],
    a: &[f64; LANES],
    k: &[f64; LANES],
) -> ([f64; LANES], bool) {
    use libm_exp::*;
    use std::array::from_fn;
    let hi: [f64; LANES] = from_fn(|l| x[l] - k[l] * LN2_HI);
    let lo: [f64; LANES] = from_fn(|l| k[l] * LN2_LO);
    let r: [f64; LANES] = from_fn(|l| hi[l] - lo[l]);
    let rr: [f64; LANES] = from_fn(|l| r[l] * r[l]);
    let c: [f64; LANES] =
        from_fn(|l| r[l] - rr[l] * (P1 + rr[l] * (P2 + rr[l] * (P3 + rr[l] * (P4 + rr[l] * P5)))));
    let y: [f64; LANES] = from_fn(|l| 1.0 + (r[l] * c[l] / (2.0 - c[l]) - lo[l] + hi[l]));
    // libm's scalbn(y, k) for k in [−1022, 1023] is y · 2ᵏ, one multiplication; here
    // |k| ≤ 1022 (the clamp only keeps special lanes, recomputed by the caller, from
    // building a bad exponent; `max` takes −1022 over a NaN). The biased exponent
    // `1023 + k` is the low bits of `k + 1023 + 2⁵²` (an integer below 2⁵³, held exactly in
    // the mantissa), shifted into place: float and bit operations only, so that it
    // vectorises, where `as i64` (saturating) does not.
    let scale: [f64; LANES] = from_fn(|l| {
        #[allow(
            clippy::manual_clamp,
            reason = "max and min vectorise (maxpd, minpd); with clamp a 10⁵-row gbdt fit measured 4% slower"
        )]
        let k = k[l].max(-1022.0).min(1022.0);
        f64::from_bits((k + (1023.0 + TWO_52)).to_bits() << 52)
    });
    // |x| ≤ 2⁻²⁸ (high word ≤ HX_TINY): libm returns 1 + x.
    let values = from_fn(|l| {
        if a[l] < at_least(HX_TINY + 1) {
            1.0 + x[l]
        } else {
            y[l] * scale[l]
        }
    });
    // Not `|x| < 708.39` (high word ≥ HX_SPECIAL, or NaN). Folded without short cut.
    let special = a.iter().fold(false, |any, &a| {
        any | (a >= at_least(HX_SPECIAL)) | a.is_nan()
    });
    (values, special)
}
