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

/// libm's `exp(x)` for `x = −|z|` on every lane, and whether any lane is one of libm's
/// special cases (`|x| ≥ 708.39` or NaN; those lanes' values are garbage).
#[inline(always)]
pub(super) fn exp_neg_abs_lanes(z: &[f64; LANES]) -> ([f64; LANES], bool) {
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
pub(super) fn exp_lanes(x: &[f64; LANES]) -> ([f64; LANES], bool) {
    use libm_exp::*;
    use std::array::from_fn;
    let hx: [u32; LANES] = from_fn(|l| high_word(x[l]));
    let negative: [bool; LANES] = from_fn(|l| x[l].is_sign_negative());
    // Argument reduction x = k·ln2 + r. libm: k = (INVLN2·x + HALF[sign]) as i32 from
    // 1.5·ln2 on (HALF = ±0.5 with the sign of x; a + (−0.5) is a − 0.5), k = 1 − 2·sign
    // = ±1 from ½·ln2, and k = 0 below, where libm skips the reduction: hi − lo with k = 0
    // is x − 0·LN2_HI − 0·LN2_LO = x exactly, and the final scaling by 2⁰ is exact too.
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
pub(super) fn exp_reduced(
    x: &[f64; LANES],
    hx: &[u32; LANES],
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
