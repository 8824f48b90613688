//! Evaluation metrics: accuracy-type metrics, ROC AUC by exact midranks, DeLong's variance.
//!
//! Every metric here is a function of the *multiset* of its inputs' rows: shuffling the rows
//! cannot change a single bit of any result. The rules that make this so:
//!
//! - counts are integers, and a ratio of counts is one exactly rounded division at the end;
//! - ROC AUC and DeLong's variance work on each class's scores sorted ascending (as
//!   order-preserving integer keys, so equal scores are equal keys and the sorted output
//!   does not depend on the input order), and every sum they need is a sum of *integers*,
//!   so no float sum has an order at all;
//! - no `f64::exp`/`ln`/`powf` (platform-dependent precision), no `mul_add`, no hashed maps.
//!   `+ − × ÷ √` are exactly rounded everywhere, so the same inputs give the same bits on
//!   every CPU.
//!
//! A metric that has no value (a single-class test set, an empty input) is
//! [`MetricValue::Undefined`] with a reason, never 0.0 or NaN.

use serde::{Deserialize, Serialize};

/// The metrics an experiment may ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MetricName {
    /// ROC AUC by midranks of the predicted probability.
    RocAuc,
    /// Correct / n with predicted positive ⇔ p ≥ 0.5.
    Accuracy,
    /// Mean of sensitivity and specificity.
    BalancedAccuracy,
    /// Accuracy of always predicting the training majority class.
    MajorityBaselineAccuracy,
    /// Accuracy − majority baseline accuracy.
    AccuracyLift,
}

impl MetricName {
    /// Every metric, in declaration order.
    pub const ALL: [MetricName; 5] = [
        MetricName::RocAuc,
        MetricName::Accuracy,
        MetricName::BalancedAccuracy,
        MetricName::MajorityBaselineAccuracy,
        MetricName::AccuracyLift,
    ];

    /// The name as written in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            MetricName::RocAuc => "roc_auc",
            MetricName::Accuracy => "accuracy",
            MetricName::BalancedAccuracy => "balanced_accuracy",
            MetricName::MajorityBaselineAccuracy => "majority_baseline_accuracy",
            MetricName::AccuracyLift => "accuracy_lift",
        }
    }

    /// Whether the metric depends on the labels through the model's predictions (all do
    /// except the majority baseline, which only counts training labels).
    pub fn depends_on_model(self) -> bool {
        !matches!(self, MetricName::MajorityBaselineAccuracy)
    }
}

/// A metric's value, or why it has none. Undefined is a value, never 0.0 or NaN.
/// JSON: a number, or `{"undefined": "reason"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum MetricValue {
    /// The metric's value.
    Value(f64),
    /// The metric has no value on these inputs; `undefined` says why (lower-case prose).
    Undefined {
        /// Why the metric is undefined, e.g. `"test set has no negative rows"`.
        undefined: String,
    },
}

impl MetricValue {
    /// An undefined metric with the given reason.
    pub fn undefined(reason: impl Into<String>) -> Self {
        MetricValue::Undefined {
            undefined: reason.into(),
        }
    }

    /// The value, or `None` when undefined.
    pub fn value(&self) -> Option<f64> {
        match self {
            MetricValue::Value(v) => Some(*v),
            MetricValue::Undefined { .. } => None,
        }
    }
}

impl From<Result<f64, Undefined>> for MetricValue {
    fn from(r: Result<f64, Undefined>) -> Self {
        match r {
            Ok(v) => MetricValue::Value(v),
            Err(reason) => MetricValue::Undefined {
                undefined: reason.0,
            },
        }
    }
}

/// Why a metric or an interval has no value on these rows (one class only, a non-finite
/// score, fewer than two entities, …), in lower-case prose: a value of the result, not a
/// failure of the program (that is [`crate::Error`]). Written as its text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Undefined(pub String);

impl std::fmt::Display for Undefined {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<String> for Undefined {
    fn from(reason: String) -> Self {
        Undefined(reason)
    }
}

impl From<&str> for Undefined {
    fn from(reason: &str) -> Self {
        Undefined(reason.to_owned())
    }
}

/// ROC AUC with the exact integer statistic it came from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AucStats {
    /// Number of positive rows (n₁).
    pub n_pos: u64,
    /// Number of negative rows (n₀).
    pub n_neg: u64,
    /// 2U = Σ_pos (i + j) − n₁(n₁+1), i..j the 1-based tie block of each positive.
    pub two_u: u128,
    /// two_u / (2·n_pos·n_neg): one division.
    pub auc: f64,
}

/// DeLong (1988) variance of an AUC, in the Sun & Xu (2014) O(n log n) form.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DeLong {
    /// The AUC, bit-identical to [`roc_auc_stats`]' `auc`.
    pub auc: f64,
    /// DeLong's variance estimate `s²(V10)/m + s²(V01)/n` (sample variances, ddof = 1).
    pub variance: f64,
    /// Standard error, `√variance`.
    pub se: f64,
    /// 95% CI, AUC ± 1.959963984540054·se, clipped to [0, 1].
    pub ci: (f64, f64),
}

/// The two-sided 97.5% standard-normal quantile, Φ⁻¹(0.975), to f64 precision
/// (scipy.stats.norm.ppf(0.975) = 1.959963984540054).
const Z_975: f64 = 1.959_963_984_540_054;

/// Order-preserving integer key of a finite f64: `a < b ⇔ key(a) < key(b)` and
/// `a == b ⇔ key(a) == key(b)` (−0.0 is mapped to +0.0 first, so the two zeros tie, as
/// they compare equal).
#[inline]
fn sort_key(x: f64) -> u64 {
    // −0.0 == 0.0, so both zeros get the key of +0.0.
    let bits = if x == 0.0 { 0 } else { x.to_bits() };
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    }
}

/// The rows split by class, each class's score keys sorted ascending.
struct SortedClasses {
    pos: Vec<u64>,
    neg: Vec<u64>,
}

/// Checks the inputs of an AUC; the number of positive and of negative rows.
/// Errors (as lower-case reasons): empty input, length mismatch, a non-finite score, or a
/// class with no rows.
fn class_counts(labels: &[bool], scores: &[f64]) -> Result<(usize, usize), Undefined> {
    check_lengths(labels.len(), scores.len(), "scores")?;
    if let Some(i) = scores.iter().position(|s| !s.is_finite()) {
        return Err(format!("score at row {i} (0-based) is not finite ({})", scores[i]).into());
    }
    let n_pos = labels.iter().filter(|&&l| l).count();
    let n_neg = labels.len() - n_pos;
    if n_pos == 0 {
        return Err("test set has no positive rows".into());
    }
    if n_neg == 0 {
        return Err("test set has no negative rows".into());
    }
    Ok((n_pos, n_neg))
}

/// The sorted score keys of the rows whose label is `class`.
fn sorted_keys(labels: &[bool], scores: &[f64], class: bool, count: usize) -> Vec<u64> {
    let mut keys = Vec::with_capacity(count);
    for (&l, &s) in labels.iter().zip(scores) {
        if l == class {
            keys.push(sort_key(s));
        }
    }
    // Plain integer keys, so any correct sort gives the same output. Measured on this
    // project's machine at n = 1e6 (tie-heavy and all-distinct): std's pattern-defeating
    // `sort_unstable` on u64 was as fast as an 8-bit LSD radix sort on distinct keys and
    // 2.5× faster with many ties, so the simpler code stays.
    keys.sort_unstable();
    keys
}

/// Checks the inputs and returns each class's sorted score keys.
/// Errors as [`class_counts`].
fn sorted_classes(labels: &[bool], scores: &[f64]) -> Result<SortedClasses, Undefined> {
    let (n_pos, n_neg) = class_counts(labels, scores)?;
    Ok(sort_both(labels, scores, n_pos, n_neg))
}

/// Each class's sorted score keys, for inputs [`class_counts`] accepted with these counts.
fn sort_both(labels: &[bool], scores: &[f64], n_pos: usize, n_neg: usize) -> SortedClasses {
    SortedClasses {
        pos: sorted_keys(labels, scores, true, n_pos),
        neg: sorted_keys(labels, scores, false, n_neg),
    }
}

/// One block of tied scores in the ascending merged order.
#[derive(Debug, Clone, Copy)]
struct TieBlock {
    /// Positives in the block.
    p: u64,
    /// Negatives in the block.
    q: u64,
    /// Positives strictly below the block.
    pos_below: u64,
    /// Negatives strictly below the block.
    neg_below: u64,
}

/// Walks the merged ascending order of both classes, calling `f` once per tie block, in
/// ascending score order.
fn for_each_tie_block(c: &SortedClasses, mut f: impl FnMut(TieBlock)) {
    let (pos, neg) = (&c.pos[..], &c.neg[..]);
    let (mut i, mut j) = (0usize, 0usize);
    while i < pos.len() || j < neg.len() {
        let v = match (pos.get(i), neg.get(j)) {
            (Some(&a), Some(&b)) => a.min(b),
            (Some(&a), None) => a,
            (None, Some(&b)) => b,
            (None, None) => unreachable!("loop condition"),
        };
        let i0 = i;
        while i < pos.len() && pos[i] == v {
            i += 1;
        }
        let j0 = j;
        while j < neg.len() && neg[j] == v {
            j += 1;
        }
        f(TieBlock {
            p: (i - i0) as u64,
            q: (j - j0) as u64,
            pos_below: i0 as u64,
            neg_below: j0 as u64,
        });
    }
}

/// Exact ROC AUC by midranks (Mann–Whitney U), with the integer statistic.
///
/// Sorted ascending by score, a tie block at 1-based positions `i..=j` gives each of its
/// positives the midrank `(i+j)/2`; so `2U = Σ_pos (i+j) − n₁(n₁+1)` is an integer, and
/// `auc = 2U / (2·n₁·n₀)` is one division of two integers converted to f64. A tied
/// (positive, negative) pair counts ½, as in scikit-learn's `roc_auc_score`, which this
/// equals to ≤ 1e-15 (sklearn's trapezoid carries a float sum; this value does not).
/// −0.0 and 0.0 tie. When one class is at most a tenth of the rows, the same integer is
/// counted pair-wise against that class sorted alone (`MINORITY_SEARCH_SHARE`).
///
/// # Errors
/// A lower-case reason when the AUC is undefined or the input is malformed: empty input,
/// lengths differ, a non-finite score, or one class absent (e.g.
/// `"test set has no negative rows"`).
pub fn roc_auc_stats(labels: &[bool], scores: &[f64]) -> Result<AucStats, Undefined> {
    let (n_pos, n_neg) = class_counts(labels, scores)?;
    let minority = n_pos.min(n_neg);
    let two_u = if minority * MINORITY_SEARCH_SHARE > labels.len() {
        two_u_from_sorted(&sort_both(labels, scores, n_pos, n_neg))
    } else {
        two_u_by_minority_search(labels, scores, n_pos <= n_neg, minority)
    };
    Ok(AucStats::from_two_u(n_pos as u64, n_neg as u64, two_u))
}

/// A class of at most 1/`MINORITY_SEARCH_SHARE` of the rows is sorted alone and the other
/// class's rows are looked up in it ([`two_u_by_minority_search`]) instead of both classes
/// being sorted. For test sets of a few thousand rows with 0.5–2.5% positives (the
/// rare-defects and class-imbalance packs; every label permutation of a verification
/// computes one) that is faster; from about a fifth on, sorting both is as fast or faster
/// (a scratch timing on this project's machine at n = 3,000, 6,000 and 100,000, not kept
/// in the repo; `cargo bench --bench auc`, 30% positives, times the sorting path).
const MINORITY_SEARCH_SHARE: usize = 10;

/// `2U = Σ over (positive, negative) pairs of 2·[p > q] + [p = q]`, counted by sorting the
/// minority class's keys and locating each row of the other class among them by binary
/// search: for a negative, `2·(minority positives above) + (tied)`; for a positive,
/// `2·(minority negatives below) + (tied)`. An integer, so it equals the midrank sum of
/// [`two_u_from_sorted`] exactly, and the AUC has the same bits.
fn two_u_by_minority_search(
    labels: &[bool],
    scores: &[f64],
    minority_is_positive: bool,
    minority: usize,
) -> u128 {
    let sorted = sorted_keys(labels, scores, minority_is_positive, minority);
    let mut two_u: u128 = 0;
    for (&l, &s) in labels.iter().zip(scores) {
        if l == minority_is_positive {
            continue;
        }
        let key = sort_key(s);
        let below = sorted.partition_point(|&k| k < key);
        let tied = sorted.partition_point(|&k| k <= key) - below;
        let strictly_won = if minority_is_positive {
            minority - below - tied // minority positives above this negative
        } else {
            below // minority negatives below this positive
        };
        two_u += (2 * strictly_won + tied) as u128;
    }
    two_u
}

/// `2U = Σ_pos (i + j) − n₁(n₁+1)` from the tie blocks of the merged order.
fn two_u_from_sorted(c: &SortedClasses) -> u128 {
    let mut rank_sum_x2: u128 = 0; // Σ_pos (i + j)
    for_each_tie_block(c, |b| {
        let i = u128::from(b.pos_below + b.neg_below) + 1;
        let j = i + u128::from(b.p + b.q) - 1;
        rank_sum_x2 += u128::from(b.p) * (i + j);
    });
    let n1 = c.pos.len() as u128;
    rank_sum_x2 - n1 * (n1 + 1)
}

impl AucStats {
    /// The AUC of the exact statistic: `two_u / (2·n_pos·n_neg)`, one division.
    fn from_two_u(n_pos: u64, n_neg: u64, two_u: u128) -> AucStats {
        let denom = 2 * u128::from(n_pos) * u128::from(n_neg);
        AucStats {
            n_pos,
            n_neg,
            two_u,
            auc: two_u as f64 / denom as f64,
        }
    }
}

/// ROC AUC as a [`MetricValue`]: the value of [`roc_auc_stats`], or undefined with its
/// reason (one class absent, empty or malformed input).
pub fn roc_auc(labels: &[bool], scores: &[f64]) -> MetricValue {
    roc_auc_stats(labels, scores).map(|s| s.auc).into()
}

/// DeLong's (1988) variance and 95% confidence interval of the ROC AUC, computed in Sun &
/// Xu's (2014) O(n log n) midrank form.
///
/// With m positives X, n negatives Y and midranks `T_Z` (over all rows), `T_X` (within
/// positives), `T_Y` (within negatives): `V10ᵢ = (T_Z(Xᵢ) − T_X(Xᵢ))/n`,
/// `V01ⱼ = 1 − (T_Z(Yⱼ) − T_Y(Yⱼ))/m`, `Var = s²(V10)/m + s²(V01)/n` (ddof = 1),
/// `se = √Var`, CI `= auc ± 1.959963984540054·se` clipped to [0, 1].
///
/// Exactness and order: `T_Z(Xᵢ) − T_X(Xᵢ) = a/2` with the integer
/// `a = 2·(negatives below) + (negatives tied)`, and `1 − (T_Z(Yⱼ) − T_Y(Yⱼ))/m = b/(2m)`
/// with the integer `b = 2·(positives above) + (positives tied)`. So both sample variances are computed
/// from the integer sums `Σa, Σa², Σb, Σb²` (u128, no rounding, no summation order), as
/// `s²(V10) = (m·Σa² − (Σa)²) / (m·(m−1)·4n²)`; the only roundings are the u128 → f64
/// conversions and the final `÷, +, √`, in the fixed order written in the code. The
/// result is therefore a function of the multiset of (label, score) pairs, bit for bit.
///
/// # Errors
/// A lower-case reason when the variance is undefined: anything [`roc_auc_stats`] rejects,
/// fewer than 2 positives or fewer than 2 negatives, or more than `u32::MAX` rows (the
/// integer sums could then overflow u128).
pub fn delong(labels: &[bool], scores: &[f64]) -> Result<DeLong, Undefined> {
    let c = sorted_classes(labels, scores)?;
    let (m, n) = (c.pos.len() as u64, c.neg.len() as u64);
    if m < 2 {
        return Err(
            format!("delong variance needs at least 2 positive rows (test set has {m})").into(),
        );
    }
    if n < 2 {
        return Err(
            format!("delong variance needs at least 2 negative rows (test set has {n})").into(),
        );
    }
    // With m + n < 2³², m·Σa² ≤ 4m²n² ≤ (m+n)⁴/4 < 2¹²⁶: no u128 overflow below.
    if m + n > u64::from(u32::MAX) {
        return Err(format!(
            "delong variance supports at most {} rows (test set has {})",
            u32::MAX,
            m + n
        )
        .into());
    }
    let stats = AucStats::from_two_u(m, n, two_u_from_sorted(&c));

    // a = 2·T_Z(X) − 2·T_X(X) per positive; b = 2m·V01 per negative.
    let (mut sa, mut saa, mut sb, mut sbb) = (0u128, 0u128, 0u128, 0u128);
    for_each_tie_block(&c, |blk| {
        let a = u128::from(2 * blk.neg_below + blk.q);
        let pos_above = m - blk.pos_below - blk.p;
        let b = u128::from(2 * pos_above + blk.p);
        let (p, q) = (u128::from(blk.p), u128::from(blk.q));
        sa += p * a;
        saa += p * a * a;
        sb += q * b;
        sbb += q * b * b;
    });
    let (m, n) = (u128::from(m), u128::from(n));
    // Σ(v − v̄)² · (count · scale²), exact and ≥ 0 (Cauchy–Schwarz).
    let num10 = m * saa - sa * sa;
    let num01 = n * sbb - sb * sb;
    // s²(V10) = num10 / (m(m−1)·(2n)²);  s²(V01) = num01 / (n(n−1)·(2m)²).
    let den10 = m * (m - 1) * (4 * n * n);
    let den01 = n * (n - 1) * (4 * m * m);
    let s2_10 = num10 as f64 / den10 as f64;
    let s2_01 = num01 as f64 / den01 as f64;
    let variance = s2_10 / m as f64 + s2_01 / n as f64;
    let se = variance.sqrt();
    let half_width = Z_975 * se;
    let lo = (stats.auc - half_width).max(0.0);
    let hi = (stats.auc + half_width).min(1.0);
    Ok(DeLong {
        auc: stats.auc,
        variance,
        se,
        ci: (lo, hi),
    })
}

/// DeLong's paired comparison of two scores of the same rows (DeLong, DeLong &
/// Clarke-Pearson 1988; pROC's `roc.test(r1, r2, paired = TRUE, method = "delong")`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairedDeLong {
    /// ROC AUC of the first score, bit-identical to [`roc_auc`]'s.
    pub auc_first: f64,
    /// ROC AUC of the second score.
    pub auc_second: f64,
    /// `auc_first − auc_second`.
    pub difference: f64,
    /// Standard error of the difference, `√(S₁₁ + S₂₂ − 2·S₁₂)` from the structural
    /// components (sample covariances, ddof = 1).
    pub se: f64,
    /// `difference / se`; 0 when both are 0 (the same placements: pROC's convention).
    pub z: f64,
    /// Two-sided normal p-value, `erfc(|z|/√2)`.
    pub p_value: f64,
    /// 95% CI of the difference, `difference ± 1.959963984540054·se` (not clipped, as
    /// pROC's).
    pub ci: (f64, f64),
}

/// [`PairedDeLong`] of `first` and `second` on the rows labelled `labels`.
///
/// The variance of the difference is computed exactly in integers: with the placements
/// scaled to integers (a positive's `2·(negatives below) + (negatives tied)`, a negative's
/// `2·(positives above) + (positives tied)`), S₁₁ + S₂₂ − 2·S₁₂ is the sample variance of
/// the per-row differences of the two scores' placements, one division per class.
///
/// # Errors
/// What [`delong`] refuses for either score, or a difference with zero variance.
pub fn paired_delong(
    labels: &[bool],
    first: &[f64],
    second: &[f64],
) -> Result<PairedDeLong, Undefined> {
    let a = delong(labels, first)?;
    let b = delong(labels, second)?;
    let (pa, pb) = (placements(labels, first), placements(labels, second));
    let (m, n) = labels.iter().fold(
        (0u128, 0u128),
        |(m, n), &l| {
            if l {
                (m + 1, n)
            } else {
                (m, n + 1)
            }
        },
    );
    // Per class: Σd and Σd² of the integer differences d of the two placements.
    let (mut s_pos, mut ss_pos, mut s_neg, mut ss_neg) = (0i128, 0u128, 0i128, 0u128);
    for (i, &l) in labels.iter().enumerate() {
        let d = i128::from(pa[i]) - i128::from(pb[i]);
        let dd = d.unsigned_abs() * d.unsigned_abs();
        if l {
            s_pos += d;
            ss_pos += dd;
        } else {
            s_neg += d;
            ss_neg += dd;
        }
    }
    // Σ(d − d̄)²·count = count·Σd² − (Σd)² ≥ 0, exact.
    let num10 = m * ss_pos - s_pos.unsigned_abs() * s_pos.unsigned_abs();
    let num01 = n * ss_neg - s_neg.unsigned_abs() * s_neg.unsigned_abs();
    let s2_10 = num10 as f64 / (m * (m - 1) * (4 * n * n)) as f64;
    let s2_01 = num01 as f64 / (n * (n - 1) * (4 * m * m)) as f64;
    let se = (s2_10 / m as f64 + s2_01 / n as f64).sqrt();
    let difference = a.auc - b.auc;
    let z = if se > 0.0 {
        difference / se
    } else if difference == 0.0 {
        0.0
    } else {
        return Err("the two scores' AUCs differ but their difference has zero variance".into());
    };
    Ok(PairedDeLong {
        auc_first: a.auc,
        auc_second: b.auc,
        difference,
        se,
        z,
        p_value: libm::erfc(z.abs() / std::f64::consts::SQRT_2),
        ci: (difference - Z_975 * se, difference + Z_975 * se),
    })
}

/// Each row's DeLong placement, scaled by twice the other class's size so it is an
/// integer: a positive's `2·(negatives scored below) + (negatives tied)`, a negative's
/// `2·(positives scored above) + (positives tied)`. Scores must be finite (checked by the
/// callers through [`delong`]).
fn placements(labels: &[bool], scores: &[f64]) -> Vec<u64> {
    let mut order: Vec<usize> = (0..labels.len()).collect();
    order.sort_unstable_by_key(|&i| sort_key(scores[i]));
    let n_pos = labels.iter().filter(|&&l| l).count() as u64;
    let mut out = vec![0u64; labels.len()];
    let (mut pos_below, mut neg_below) = (0u64, 0u64);
    for block in order.chunk_by(|&i, &j| sort_key(scores[i]) == sort_key(scores[j])) {
        let pos_in = block.iter().filter(|&&i| labels[i]).count() as u64;
        let neg_in = block.len() as u64 - pos_in;
        let pos_above = n_pos - pos_below - pos_in;
        for &i in block {
            out[i] = if labels[i] {
                2 * neg_below + neg_in
            } else {
                2 * pos_above + pos_in
            };
        }
        pos_below += pos_in;
        neg_below += neg_in;
    }
    out
}

/// Checks two parallel columns; a reason when their lengths differ or they are empty.
fn check_paired(labels: &[bool], predicted: &[bool]) -> Result<(), Undefined> {
    check_lengths(labels.len(), predicted.len(), "predictions")
}

/// A reason when `labels` labels and `other` values (`what`) differ in number or there are
/// none.
fn check_lengths(labels: usize, other: usize, what: &str) -> Result<(), Undefined> {
    if labels != other {
        return Err(format!("labels and {what} differ in length ({labels} vs {other})").into());
    }
    if labels == 0 {
        return Err("test set is empty".into());
    }
    Ok(())
}

/// Accuracy: correct predictions / rows, one division of two integer counts.
/// Undefined on an empty test set or when the lengths differ.
pub fn accuracy(labels: &[bool], predicted: &[bool]) -> MetricValue {
    if let Err(reason) = check_paired(labels, predicted) {
        return MetricValue::undefined(reason.0);
    }
    let correct = labels.iter().zip(predicted).filter(|(l, p)| l == p).count();
    MetricValue::Value(correct as f64 / labels.len() as f64)
}

/// Balanced accuracy: the mean of the true-positive rate and the true-negative rate.
///
/// Computed exactly as `(tp·N + tn·P) / (2·P·N)` with integer counts and one division
/// (scikit-learn's `balanced_accuracy_score` averages two rounded rates; the two agree to
/// within an ulp or so). Undefined when the labels lack a class (one rate would be 0/0),
/// when the test set is empty, or when the lengths differ.
pub fn balanced_accuracy(labels: &[bool], predicted: &[bool]) -> MetricValue {
    if let Err(reason) = check_paired(labels, predicted) {
        return MetricValue::undefined(reason.0);
    }
    let (mut pos, mut neg, mut tp, mut tn) = (0u64, 0u64, 0u64, 0u64);
    for (&l, &p) in labels.iter().zip(predicted) {
        if l {
            pos += 1;
            tp += u64::from(p);
        } else {
            neg += 1;
            tn += u64::from(!p);
        }
    }
    if pos == 0 {
        return MetricValue::undefined("test set has no positive rows");
    }
    if neg == 0 {
        return MetricValue::undefined("test set has no negative rows");
    }
    let (pos, neg, tp, tn) = (
        u128::from(pos),
        u128::from(neg),
        u128::from(tp),
        u128::from(tn),
    );
    let num = tp * neg + tn * pos;
    let den = 2 * pos * neg;
    MetricValue::Value(num as f64 / den as f64)
}

/// Accuracy of always predicting the *training* set's majority class on the test rows
/// (scikit-learn's `DummyClassifier(strategy="most_frequent")`).
///
/// On an exact tie in the training labels it predicts **negative** — what sklearn does for
/// 0/1 or boolean labels, where the negative class sorts first. Undefined when the
/// training set or the test set is empty.
pub fn majority_baseline_accuracy(train_labels: &[bool], test_labels: &[bool]) -> MetricValue {
    if train_labels.is_empty() {
        return MetricValue::undefined("training set is empty");
    }
    if test_labels.is_empty() {
        return MetricValue::undefined("test set is empty");
    }
    let train_pos = train_labels.iter().filter(|&&l| l).count();
    let train_neg = train_labels.len() - train_pos;
    let predict_positive = train_pos > train_neg;
    let correct = test_labels
        .iter()
        .filter(|&&l| l == predict_positive)
        .count();
    MetricValue::Value(correct as f64 / test_labels.len() as f64)
}

/// How much a model's accuracy beats the majority baseline: `accuracy − baseline`.
/// Undefined if either is undefined (the reason names which).
pub fn accuracy_lift(accuracy: &MetricValue, baseline: &MetricValue) -> MetricValue {
    match (accuracy, baseline) {
        (MetricValue::Value(a), MetricValue::Value(b)) => MetricValue::Value(a - b),
        (MetricValue::Undefined { undefined }, _) => {
            MetricValue::undefined(format!("accuracy is undefined: {undefined}"))
        }
        (_, MetricValue::Undefined { undefined }) => {
            MetricValue::undefined(format!("baseline accuracy is undefined: {undefined}"))
        }
    }
}

/// The mean of `values`: their sum in the given order, divided by their number (one
/// value is itself, bit for bit). The repeats of a cross-validation are averaged with it.
pub fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

/// The sample variance of `values` (denominator n − 1, n ≥ 2) about their [`mean`], squares
/// summed in the given order.
pub fn sample_variance(values: &[f64]) -> f64 {
    let m = mean(values);
    values.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / (values.len() - 1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sort_key_orders_like_f64() {
        let xs = [
            f64::MIN,
            -1e300,
            -1.0,
            -f64::MIN_POSITIVE,
            -5e-324,
            0.0,
            5e-324,
            f64::MIN_POSITIVE,
            1.0,
            1e300,
            f64::MAX,
        ];
        for w in xs.windows(2) {
            assert!(sort_key(w[0]) < sort_key(w[1]), "{} vs {}", w[0], w[1]);
        }
        assert_eq!(sort_key(-0.0), sort_key(0.0));
    }
}
