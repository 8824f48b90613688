//! Confidence intervals for claim statistics, honest about clustered rows.
//!
//! Every interval here is `estimate ± z·se`, z = 1.959963984540054 (two-sided 95%) unless a
//! claim is one of a family of tests ([`z_for_family`]), except two exact special cases: DeLong's interval for an AUC on independent rows, and
//! Wilson's interval for an accuracy on independent rows.
//!
//! Rows are not independent when several test rows belong to one entity (monthly
//! snapshots of a customer): row-level DeLong or binomial intervals are then too narrow.
//! There the variance is the cluster-robust sum of per-entity influence values,
//! `Var = I/(I−1) · Σᵢ zᵢ²` with `zᵢ` the sum of the entity's rows' influence values. For
//! the AUC the influence of a positive row is `(V10 − θ)/M` and of a negative row
//! `(V01 − θ)/N` (DeLong's structural components); summed per entity this is exactly
//! Obuchowski's clustered AUC variance (Biometrics 1997, 53:567–578): S10/M + S01/N +
//! 2·S11/(M·N). For accuracy-type metrics (ratios of sums) the influence of a row is its
//! linearisation `(aᵣ − R·bᵣ)/Σb`.

use crate::experiment::MetricName;
use crate::metrics::{self, Undefined};
use crate::run::{ArmPredictions, Scores};
use crate::table::Table;

/// z for a two-sided 95% interval.
pub const Z95: f64 = 1.959963984540054;

/// The most tests a family may hold: a revision chain's payload and its at most two
/// revisions (`revision::MAX_REVISIONS` + 1).
pub const MAX_FAMILY: u32 = 3;

/// z of the two-sided (1 − 0.05/m) interval, Φ⁻¹(1 − 0.025/m), for a claim decided as one
/// of a family of `m` tests (Bonferroni: a revision chain with r revisions is a family of
/// r + 1, docs/CAPSULE.md). m = 1 is [`Z95`] (scipy.stats.norm.ppf(0.975), one ulp below
/// the correctly rounded value, kept so no interval moves); m = 2 and 3 are the correctly
/// rounded values of √2·erfinv(1 − 0.05/m) from mpmath at 40 digits (2.24140272760494537508…
/// and 2.39397979981850948511…). `None` outside 1..=[`MAX_FAMILY`].
pub fn z_for_family(m: u32) -> Option<f64> {
    match m {
        1 => Some(Z95),
        2 => Some(2.2414027276049455),
        3 => Some(2.3939797998185095),
        _ => None,
    }
}

/// How an interval was computed, as written in reports (`interval`) and `metrics --json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntervalMethod {
    /// DeLong's interval of an AUC on independent rows.
    DeLong,
    /// DeLong's paired test of two AUCs of the same independent rows.
    DeLongPaired,
    /// Wilson's score interval of a proportion on independent rows.
    Wilson,
    /// A normal interval from row influence values (independent rows).
    Normal,
    /// The paired normal interval of a difference on independent rows.
    NormalPaired,
    /// Obuchowski's clustered AUC interval (test rows share entities).
    ObuchowskiClustered,
    /// Obuchowski's clustered comparison of two AUCs.
    ObuchowskiClusteredPaired,
    /// The cluster-robust normal interval of a ratio metric.
    ClusterRobustNormal,
    /// The cluster-robust normal interval of a paired difference.
    ClusterRobustNormalPaired,
    /// A gap of two estimates made by different methods.
    Mixed,
    /// A repeated cross-validation's estimate: the mean over its repeats, its variance the
    /// mean of the repeats' own variances plus the between-repeat variance over R
    /// ([`over_repeats`]), each repeat's interval computed by the method it names
    /// (written `repeated-within-between(<per-repeat method>)`, e.g.
    /// `repeated-within-between(obuchowski-clustered-paired)`). Clustered when the
    /// per-repeat method is, and then the few-held-out-entities rule applies.
    RepeatedWithinBetween(PerRepeatMethod),
}

/// The interval of one repeat of a repeated cross-validation: a method of one test set
/// (never `mixed`, never itself repeated).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PerRepeatMethod {
    /// [`IntervalMethod::DeLong`].
    DeLong,
    /// [`IntervalMethod::DeLongPaired`].
    DeLongPaired,
    /// [`IntervalMethod::Wilson`].
    Wilson,
    /// [`IntervalMethod::Normal`].
    Normal,
    /// [`IntervalMethod::NormalPaired`].
    NormalPaired,
    /// [`IntervalMethod::ObuchowskiClustered`].
    ObuchowskiClustered,
    /// [`IntervalMethod::ObuchowskiClusteredPaired`].
    ObuchowskiClusteredPaired,
    /// [`IntervalMethod::ClusterRobustNormal`].
    ClusterRobustNormal,
    /// [`IntervalMethod::ClusterRobustNormalPaired`].
    ClusterRobustNormalPaired,
}

impl PerRepeatMethod {
    /// Every per-repeat method.
    pub const ALL: [PerRepeatMethod; 9] = [
        PerRepeatMethod::DeLong,
        PerRepeatMethod::DeLongPaired,
        PerRepeatMethod::Wilson,
        PerRepeatMethod::Normal,
        PerRepeatMethod::NormalPaired,
        PerRepeatMethod::ObuchowskiClustered,
        PerRepeatMethod::ObuchowskiClusteredPaired,
        PerRepeatMethod::ClusterRobustNormal,
        PerRepeatMethod::ClusterRobustNormalPaired,
    ];

    /// The method of one test set it is.
    pub fn method(self) -> IntervalMethod {
        match self {
            PerRepeatMethod::DeLong => IntervalMethod::DeLong,
            PerRepeatMethod::DeLongPaired => IntervalMethod::DeLongPaired,
            PerRepeatMethod::Wilson => IntervalMethod::Wilson,
            PerRepeatMethod::Normal => IntervalMethod::Normal,
            PerRepeatMethod::NormalPaired => IntervalMethod::NormalPaired,
            PerRepeatMethod::ObuchowskiClustered => IntervalMethod::ObuchowskiClustered,
            PerRepeatMethod::ObuchowskiClusteredPaired => IntervalMethod::ObuchowskiClusteredPaired,
            PerRepeatMethod::ClusterRobustNormal => IntervalMethod::ClusterRobustNormal,
            PerRepeatMethod::ClusterRobustNormalPaired => IntervalMethod::ClusterRobustNormalPaired,
        }
    }
}

impl IntervalMethod {
    /// As written in reports.
    pub fn as_str(self) -> &'static str {
        use PerRepeatMethod as P;
        match self {
            IntervalMethod::DeLong => "delong",
            IntervalMethod::DeLongPaired => "delong-paired",
            IntervalMethod::Wilson => "wilson",
            IntervalMethod::Normal => "normal",
            IntervalMethod::NormalPaired => "normal-paired",
            IntervalMethod::ObuchowskiClustered => "obuchowski-clustered",
            IntervalMethod::ObuchowskiClusteredPaired => "obuchowski-clustered-paired",
            IntervalMethod::ClusterRobustNormal => "cluster-robust-normal",
            IntervalMethod::ClusterRobustNormalPaired => "cluster-robust-normal-paired",
            IntervalMethod::Mixed => "mixed",
            IntervalMethod::RepeatedWithinBetween(per_repeat) => match per_repeat {
                P::DeLong => "repeated-within-between(delong)",
                P::DeLongPaired => "repeated-within-between(delong-paired)",
                P::Wilson => "repeated-within-between(wilson)",
                P::Normal => "repeated-within-between(normal)",
                P::NormalPaired => "repeated-within-between(normal-paired)",
                P::ObuchowskiClustered => "repeated-within-between(obuchowski-clustered)",
                P::ObuchowskiClusteredPaired => {
                    "repeated-within-between(obuchowski-clustered-paired)"
                }
                P::ClusterRobustNormal => "repeated-within-between(cluster-robust-normal)",
                P::ClusterRobustNormalPaired => {
                    "repeated-within-between(cluster-robust-normal-paired)"
                }
            },
        }
    }

    /// The method as one repeat's, when it is a method of one test set (not `mixed`, not
    /// repeated).
    pub fn per_repeat(self) -> Option<PerRepeatMethod> {
        PerRepeatMethod::ALL
            .into_iter()
            .find(|p| p.method() == self)
    }

    /// Every method a report can name, each once (the repeated ones over each per-repeat
    /// method).
    pub fn all() -> Vec<IntervalMethod> {
        let mut all: Vec<IntervalMethod> = PerRepeatMethod::ALL
            .into_iter()
            .map(PerRepeatMethod::method)
            .collect();
        all.push(IntervalMethod::Mixed);
        all.extend(
            PerRepeatMethod::ALL
                .into_iter()
                .map(IntervalMethod::RepeatedWithinBetween),
        );
        all
    }

    /// Whether the interval treats the rows of one entity as a cluster (a repeated one:
    /// whether its per-repeat method does).
    pub fn is_clustered(self) -> bool {
        match self {
            IntervalMethod::ObuchowskiClustered
            | IntervalMethod::ObuchowskiClusteredPaired
            | IntervalMethod::ClusterRobustNormal
            | IntervalMethod::ClusterRobustNormalPaired => true,
            IntervalMethod::RepeatedWithinBetween(per_repeat) => per_repeat.method().is_clustered(),
            _ => false,
        }
    }
}

impl std::str::FromStr for IntervalMethod {
    type Err = String;

    /// A method as [`IntervalMethod::as_str`] writes it.
    fn from_str(text: &str) -> Result<Self, String> {
        IntervalMethod::all()
            .into_iter()
            .find(|m| m.as_str() == text)
            .ok_or_else(|| format!("unknown interval method {text:?}"))
    }
}

impl serde::Serialize for IntervalMethod {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for IntervalMethod {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <String as serde::Deserialize>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

impl std::fmt::Display for IntervalMethod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A statistic with its standard error and 95% interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// The statistic.
    pub value: f64,
    /// Its standard error.
    pub se: f64,
    /// The interval at the z it was asked for (95% unless a family widened it), clipped to
    /// the statistic's range.
    pub ci: (f64, f64),
    /// How the interval was computed.
    pub method: IntervalMethod,
}

/// The test rows of one arm, with the entity of each row.
pub struct TestRows<'a> {
    /// Labels (positive = true).
    pub labels: &'a [bool],
    /// Predicted probabilities.
    pub scores: &'a [f64],
    /// Entity index of each row (rows of one entity form a cluster).
    pub entities: &'a [u32],
    /// Per row, the class the majority baseline predicts (the majority class of the rows
    /// that trained the model that scored it).
    pub baseline: &'a [bool],
}

impl<'a> TestRows<'a> {
    /// An arm's test rows with their entities, scored by one of its repeats.
    pub fn of(
        predictions: &'a ArmPredictions,
        scores: &'a Scores,
        entities: &'a [u32],
    ) -> TestRows<'a> {
        TestRows {
            labels: &predictions.test_labels,
            scores: &scores.test_scores,
            entities,
            baseline: &scores.baseline,
        }
    }

    /// True when no two test rows share an entity.
    pub fn independent(&self) -> bool {
        let mut seen = self.entities.to_vec();
        seen.sort_unstable();
        seen.windows(2).all(|w| w[0] != w[1])
    }
}

/// [`estimate`] on one arm's test rows, with their entities from `table` (the table the
/// predictions were made on); a repeated cross-validation's combined [`over_repeats`]. An
/// arm whose fit failed ([`Scores::fit_failure`]) has no estimate of a metric that reads
/// its scores.
pub fn estimate_arm(
    metric: MetricName,
    predictions: &ArmPredictions,
    table: &Table,
    z: f64,
) -> Result<Estimate, Undefined> {
    let entities = entities_of(predictions, table);
    let per_repeat = predictions
        .repeats
        .iter()
        .map(|scores| {
            if let (Some(reason), true) = (&scores.fit_failure, metric.depends_on_model()) {
                return Err(reason.clone().into());
            }
            estimate(metric, &TestRows::of(predictions, scores, &entities), z)
        })
        .collect::<Result<Vec<Estimate>, Undefined>>()?;
    Ok(over_repeats(&per_repeat, range(metric), z))
}

/// The entity of each of the predictions' test rows.
fn entities_of(predictions: &ArmPredictions, table: &Table) -> Vec<u32> {
    predictions
        .test_rows
        .iter()
        .map(|&r| table.entity_of_row()[r])
        .collect()
}

/// One statistic estimated on each of R repeats of a cross-validation, combined: the mean
/// of the values (summed in repeat order), and the variance `mean(seᵣ²) + s²/R`, with s²
/// the sample variance of the values (denominator R − 1). The first term is the test-row
/// sampling variance given the fitted models (each repeat's own interval); the second is
/// the fold-assignment variance of a mean of R repeats, which a single repeat's interval
/// leaves out (docs/METRICS.md, "Repeated cross-validation"). One repeat is its estimate,
/// unchanged. The interval is `value ± z·se` clipped to `range`.
pub fn over_repeats(per_repeat: &[Estimate], range: (f64, f64), z: f64) -> Estimate {
    if let [only] = per_repeat {
        return *only;
    }
    let r = per_repeat.len() as f64;
    let values: Vec<f64> = per_repeat.iter().map(|e| e.value).collect();
    let value = metrics::mean(&values);
    let within = per_repeat.iter().map(|e| e.se * e.se).sum::<f64>() / r;
    let se = (within + metrics::sample_variance(&values) / r).sqrt();
    Estimate {
        value,
        se,
        ci: ((value - z * se).max(range.0), (value + z * se).min(range.1)),
        method: repeated_method(per_repeat),
    }
}

/// The label of an interval over `per_repeat`: repeated-within-between over the method of
/// its repeats. Every repeat of one arm (or one pair of arms) scores the same rows, so
/// their methods are one; were they not, the first clustered one is named (the
/// few-held-out-entities rule then applies), and a repeat whose method is no method of one
/// test set makes the combination `mixed`.
fn repeated_method(per_repeat: &[Estimate]) -> IntervalMethod {
    let named = per_repeat
        .iter()
        .find(|e| e.method.is_clustered())
        .or_else(|| per_repeat.first())
        .map(|e| e.method);
    match named.and_then(IntervalMethod::per_repeat) {
        Some(method) if per_repeat.iter().all(|e| e.method.per_repeat().is_some()) => {
            IntervalMethod::RepeatedWithinBetween(method)
        }
        _ => IntervalMethod::Mixed,
    }
}

/// The estimate of `metric` on the rows with its `value ± z·se` interval (Wilson's at z
/// for a proportion), or why there is none — a zero-width ROC AUC interval included
/// ([`with_width`]).
pub fn estimate(metric: MetricName, rows: &TestRows<'_>, z: f64) -> Result<Estimate, Undefined> {
    let estimate = any_estimate(metric, rows, z)?;
    match metric {
        MetricName::RocAuc => with_width(estimate),
        _ => Ok(estimate),
    }
}

/// The estimate, or undefined when its interval has zero width: for a ROC AUC (or a gap
/// of two), a standard error of 0 comes from every score tied, a perfect ranking, one
/// positive or negative entity, or two arms that scored every row alike — and [v, v] would
/// claim certainty about another sample. Accuracy-type metrics keep theirs: a model that
/// predicts one class for every row has a lift of exactly 0 on any resample of its rows.
pub fn with_width(estimate: Estimate) -> Result<Estimate, Undefined> {
    if estimate.ci.0 < estimate.ci.1 {
        Ok(estimate)
    } else {
        Err(Undefined(format!(
            "the interval is degenerate: its standard error is 0 at {} (every score tied, a perfect ranking, one positive or negative entity, or two arms that scored alike), so it says nothing of another sample",
            estimate.value
        )))
    }
}

/// [`estimate`] before the degenerate (zero-width) interval is refused.
fn any_estimate(metric: MetricName, rows: &TestRows<'_>, z: f64) -> Result<Estimate, Undefined> {
    let independent = rows.independent();
    let n = rows.labels.len();
    if n < 2 {
        return Err("fewer than two test rows".into());
    }
    if independent {
        match metric {
            MetricName::RocAuc => {
                let d = metrics::delong(rows.labels, rows.scores)?;
                // The same arithmetic as metrics::delong's 95% interval, at z.
                return Ok(Estimate {
                    value: d.auc,
                    se: d.se,
                    ci: ((d.auc - z * d.se).max(0.0), (d.auc + z * d.se).min(1.0)),
                    method: IntervalMethod::DeLong,
                });
            }
            MetricName::Accuracy | MetricName::MajorityBaselineAccuracy => {
                let (value, _) = influence(metric, rows)?;
                return Ok(wilson(value, n, z));
            }
            MetricName::AccuracyLift | MetricName::BalancedAccuracy => {}
        }
    }
    let (value, influence) = influence(metric, rows)?;
    let method = match (metric, independent) {
        (MetricName::RocAuc, _) => IntervalMethod::ObuchowskiClustered,
        (_, true) => IntervalMethod::Normal,
        (_, false) => IntervalMethod::ClusterRobustNormal,
    };
    clustered(value, &influence, rows.entities, range(metric), method, z)
}

/// The range of `metric`'s values, which its interval is clipped to.
fn range(metric: MetricName) -> (f64, f64) {
    match metric {
        MetricName::AccuracyLift => (-1.0, 1.0),
        _ => (0.0, 1.0),
    }
}

/// The metric's value on the rows and each row's influence value: the row's term in the
/// linearisation of the estimate, so that the variance is the (cluster-)sum of squares
/// (module docs). Accuracy-type metrics are ratios of sums, `(aᵣ − R·bᵣ)/Σb`; the AUC's
/// are DeLong's structural components.
fn influence(metric: MetricName, rows: &TestRows<'_>) -> Result<(f64, Vec<f64>), Undefined> {
    let n = rows.labels.len();
    let predicted: Vec<bool> = rows.scores.iter().map(|&s| s >= 0.5).collect();
    let correct: Vec<f64> = rows
        .labels
        .iter()
        .zip(&predicted)
        .map(|(l, p)| f64::from(u8::from(l == p)))
        .collect();
    let proportion = |value: f64, hits: &[f64]| -> Vec<f64> {
        let n = hits.len() as f64;
        hits.iter().map(|h| (h - value) / n).collect()
    };
    match metric {
        MetricName::RocAuc => auc_influence(rows.labels, rows.scores),
        MetricName::Accuracy => {
            let value = metric_value(metrics::accuracy(rows.labels, &predicted))?;
            Ok((value, proportion(value, &correct)))
        }
        MetricName::MajorityBaselineAccuracy => {
            let value = metric_value(metrics::accuracy(rows.labels, rows.baseline))?;
            let hits: Vec<f64> = rows
                .labels
                .iter()
                .zip(rows.baseline)
                .map(|(l, b)| f64::from(u8::from(l == b)))
                .collect();
            Ok((value, proportion(value, &hits)))
        }
        MetricName::AccuracyLift => {
            let accuracy = metrics::accuracy(rows.labels, &predicted);
            let baseline = metrics::accuracy(rows.labels, rows.baseline);
            let value = metric_value(metrics::accuracy_lift(&accuracy, &baseline))?;
            let influence: Vec<f64> = rows
                .labels
                .iter()
                .zip(&correct)
                .zip(rows.baseline)
                .map(|((&l, c), &b)| (c - f64::from(u8::from(l == b)) - value) / n as f64)
                .collect();
            Ok((value, influence))
        }
        MetricName::BalancedAccuracy => {
            let value = metric_value(metrics::balanced_accuracy(rows.labels, &predicted))?;
            let positives = rows.labels.iter().filter(|&&l| l).count() as f64;
            let negatives = n as f64 - positives;
            let (mut tp, mut tn) = (0.0, 0.0);
            for (&l, c) in rows.labels.iter().zip(&correct) {
                if l {
                    tp += c;
                } else {
                    tn += c;
                }
            }
            let (tpr, tnr) = (tp / positives, tn / negatives);
            let influence: Vec<f64> = rows
                .labels
                .iter()
                .zip(&correct)
                .map(|(&l, c)| {
                    if l {
                        (c - tpr) / (2.0 * positives)
                    } else {
                        (c - tnr) / (2.0 * negatives)
                    }
                })
                .collect();
            Ok((value, influence))
        }
    }
}

/// The difference `metric(higher) − metric(lower)` of two arms that scored rows of the same
/// table (cross-validation arms: every row, or every row after a first time block, gets an
/// out-of-fold score), with the covariance of the two estimates in its variance: the
/// *paired* comparison, far narrower than [`gap`]'s sum of variances when the two arms
/// rank the same rows alike.
///
/// - Both arms scored the same rows, no two of them share an entity, and the metric is the
///   ROC AUC: DeLong's paired test ([`metrics::paired_delong`], pROC's
///   `roc.test(paired = TRUE)`), `delong-paired`.
/// - Otherwise: the cluster-robust variance of the difference of the two estimates'
///   influence values, summed per entity over both arms' rows (for the AUC, Obuchowski's
///   clustered comparison of two correlated AUCs, Biometrics 1997): `…-paired`. A row only
///   one arm scored contributes that arm's influence alone.
pub fn paired_gap(
    metric: MetricName,
    higher: &ArmPredictions,
    lower: &ArmPredictions,
    table: &Table,
    z: f64,
) -> Result<Estimate, Undefined> {
    for p in [higher, lower] {
        for scores in &p.repeats {
            if let (Some(reason), true) = (&scores.fit_failure, metric.depends_on_model()) {
                return Err(reason.clone().into());
            }
        }
        if p.test_rows.len() < 2 {
            return Err("fewer than two test rows".into());
        }
    }
    // Repeat r pairs with repeat r; an arm of one repeat (a rolling origin, which draws
    // nothing) with every repeat of the other (`Experiment::check` refuses other mismatches).
    let (r_h, r_l) = (higher.repeats.len(), lower.repeats.len());
    if r_h != r_l && r_h.min(r_l) != 1 {
        return Err(format!(
            "the two arms repeat their folds {r_h} and {r_l} times: a paired gap pairs repeat with repeat"
        )
        .into());
    }
    let (entities_h, entities_l) = (entities_of(higher, table), entities_of(lower, table));
    let per_repeat = (0..r_h.max(r_l))
        .map(|r| {
            (
                &higher.repeats[r.min(r_h - 1)],
                &lower.repeats[r.min(r_l - 1)],
            )
        })
        .map(|(scores_h, scores_l)| {
            paired_difference(
                metric,
                &TestRows::of(higher, scores_h, &entities_h),
                &TestRows::of(lower, scores_l, &entities_l),
                higher.test_rows == lower.test_rows,
                z,
            )
        })
        .collect::<Result<Vec<Estimate>, Undefined>>()?;
    let (low, high) = range(metric);
    let combined = over_repeats(&per_repeat, (low - high, high - low), z);
    if per_repeat.len() == 1 {
        return Ok(combined);
    }
    // Centred on the difference of the two arms' means, the claim's own statistic, not on
    // the mean of the differences (the same number up to rounding).
    let mean_of = |p: &ArmPredictions| -> Result<f64, Undefined> {
        let values = p
            .repeat_metrics(&[metric])
            .into_iter()
            .map(|m| metric_value(m[metric.as_str()].clone()))
            .collect::<Result<Vec<f64>, Undefined>>()?;
        Ok(metrics::mean(&values))
    };
    let value = mean_of(higher)? - mean_of(lower)?;
    Ok(Estimate {
        value,
        ci: (
            (value - z * combined.se).max(low - high),
            (value + z * combined.se).min(high - low),
        ),
        ..combined
    })
}

/// [`paired_gap`] on two sets of rows: `same_rows` when both are the same rows in the same
/// order (two scores of one predictions file, or two arms' pooled out-of-fold rows).
pub fn paired_difference(
    metric: MetricName,
    rows_h: &TestRows<'_>,
    rows_l: &TestRows<'_>,
    same_rows: bool,
    z: f64,
) -> Result<Estimate, Undefined> {
    let independent = rows_h.independent() && rows_l.independent();
    if metric == MetricName::RocAuc && same_rows && independent {
        let d = metrics::paired_delong(rows_h.labels, rows_h.scores, rows_l.scores)?;
        // The same arithmetic as metrics::paired_delong's 95% interval, at z.
        return Ok(Estimate {
            value: d.difference,
            se: d.se,
            ci: (d.difference - z * d.se, d.difference + z * d.se),
            method: IntervalMethod::DeLongPaired,
        });
    }
    let (value_h, influence_h) = influence(metric, rows_h)?;
    let (value_l, influence_l) = influence(metric, rows_l)?;
    let entities: Vec<u32> = rows_h
        .entities
        .iter()
        .chain(rows_l.entities)
        .copied()
        .collect();
    let difference: Vec<f64> = influence_h
        .iter()
        .copied()
        .chain(influence_l.iter().map(|u| -u))
        .collect();
    let method = match (metric, independent) {
        (MetricName::RocAuc, false) => IntervalMethod::ObuchowskiClusteredPaired,
        (_, true) => IntervalMethod::NormalPaired,
        (_, false) => IntervalMethod::ClusterRobustNormalPaired,
    };
    let (low, high) = range(metric);
    clustered(
        value_h - value_l,
        &difference,
        &entities,
        (low - high, high - low),
        method,
        z,
    )
}

/// The difference of two estimates from different test sets: variances add; the interval
/// is `value ± z·se`.
pub fn gap(higher: &Estimate, lower: &Estimate, z: f64) -> Estimate {
    let value = higher.value - lower.value;
    let se = (higher.se * higher.se + lower.se * lower.se).sqrt();
    Estimate {
        value,
        se,
        ci: (value - z * se, value + z * se),
        method: if higher.method == lower.method {
            higher.method
        } else {
            IntervalMethod::Mixed
        },
    }
}

fn metric_value(value: metrics::MetricValue) -> Result<f64, Undefined> {
    match value {
        metrics::MetricValue::Value(v) => Ok(v),
        metrics::MetricValue::Undefined { undefined } => Err(Undefined(undefined)),
    }
}

/// Wilson's score interval for a proportion on n independent rows; se is the normal one
/// (used when the estimate enters a gap).
fn wilson(p: f64, n: usize, z: f64) -> Estimate {
    let n = n as f64;
    let z2 = z * z;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = z / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    Estimate {
        value: p,
        se: (p * (1.0 - p) / n).sqrt(),
        ci: ((centre - half).max(0.0), (centre + half).min(1.0)),
        method: IntervalMethod::Wilson,
    }
}

/// Cluster-robust normal interval from per-row influence values.
fn clustered(
    value: f64,
    influence: &[f64],
    entities: &[u32],
    range: (f64, f64),
    method: IntervalMethod,
    z: f64,
) -> Result<Estimate, Undefined> {
    // Sum influence per entity, in ascending entity order (a fixed summation order).
    let mut pairs: Vec<(u32, f64)> = entities
        .iter()
        .copied()
        .zip(influence.iter().copied())
        .collect();
    pairs.sort_by_key(|&(e, _)| e);
    let mut sums: Vec<f64> = Vec::new();
    let mut last = None;
    for (e, u) in pairs {
        if last == Some(e) {
            *sums.last_mut().expect("a cluster is open") += u;
        } else {
            sums.push(u);
            last = Some(e);
        }
    }
    let clusters = sums.len();
    if clusters < 2 {
        return Err("fewer than two entities among the test rows".into());
    }
    let mut sum_sq = 0.0;
    for z in &sums {
        sum_sq += z * z;
    }
    let variance = clusters as f64 / (clusters as f64 - 1.0) * sum_sq;
    let se = variance.sqrt();
    Ok(Estimate {
        value,
        se,
        ci: ((value - z * se).max(range.0), (value + z * se).min(range.1)),
        method,
    })
}

/// AUC and each row's DeLong influence value (V10−θ)/M for positives, (V01−θ)/N for
/// negatives, from one sort.
fn auc_influence(labels: &[bool], scores: &[f64]) -> Result<(f64, Vec<f64>), Undefined> {
    let stats = metrics::roc_auc_stats(labels, scores)?;
    let (m, n) = (stats.n_pos as f64, stats.n_neg as f64);
    let mut order: Vec<usize> = (0..labels.len()).collect();
    order.sort_by(|&a, &b| {
        scores[a]
            .partial_cmp(&scores[b])
            .expect("scores are finite")
    });
    let mut influence = vec![0.0; labels.len()];
    let (mut pos_below, mut neg_below) = (0u64, 0u64);
    let mut start = 0;
    while start < order.len() {
        let mut end = start;
        while end < order.len() && scores[order[end]] == scores[order[start]] {
            end += 1;
        }
        let block = &order[start..end];
        let pos_in = block.iter().filter(|&&i| labels[i]).count() as u64;
        let neg_in = block.len() as u64 - pos_in;
        let pos_above = stats.n_pos - pos_below - pos_in;
        for &i in block {
            influence[i] = if labels[i] {
                let v10 = (2 * neg_below + neg_in) as f64 / (2.0 * n);
                (v10 - stats.auc) / m
            } else {
                let v01 = (2 * pos_above + pos_in) as f64 / (2.0 * m);
                (v01 - stats.auc) / n
            };
        }
        pos_below += pos_in;
        neg_below += neg_in;
        start = end;
    }
    Ok((stats.auc, influence))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_method(value: f64, se: f64, method: IntervalMethod) -> Estimate {
        Estimate {
            value,
            se,
            ci: (value - Z95 * se, value + Z95 * se),
            method,
        }
    }

    /// A repeated interval names its repeats' method (issue 42): over DeLong repeats it is
    /// `repeated-within-between(delong)`, over Obuchowski's paired ones
    /// `repeated-within-between(obuchowski-clustered-paired)`, clustered exactly when its
    /// repeats are. The numbers are the within-between rule's, by hand: values 0.7 and 0.8
    /// with se 0.03 and 0.04 give mean 0.75 and se² = (0.0009 + 0.0016)/2 + 0.005/2.
    #[test]
    fn a_repeated_interval_names_its_per_repeat_method() {
        let repeats = |method| {
            over_repeats(
                &[
                    with_method(0.7, 0.03, method),
                    with_method(0.8, 0.04, method),
                ],
                (0.0, 1.0),
                Z95,
            )
        };
        let delong = repeats(IntervalMethod::DeLong);
        assert_eq!(
            delong.method,
            IntervalMethod::RepeatedWithinBetween(PerRepeatMethod::DeLong)
        );
        assert_eq!(delong.method.as_str(), "repeated-within-between(delong)");
        assert!(!delong.method.is_clustered());
        assert!((delong.value - 0.75).abs() < 1e-15);
        let se = ((0.0009 + 0.0016) / 2.0 + 0.005 / 2.0_f64).sqrt();
        assert!((delong.se - se).abs() < 1e-15, "{} vs {se}", delong.se);
        let paired = repeats(IntervalMethod::ObuchowskiClusteredPaired);
        assert_eq!(
            paired.method.as_str(),
            "repeated-within-between(obuchowski-clustered-paired)"
        );
        assert!(paired.method.is_clustered());
        // One repeat is its own estimate, method and all.
        let one = over_repeats(
            &[with_method(0.7, 0.03, IntervalMethod::Wilson)],
            (0.0, 1.0),
            Z95,
        );
        assert_eq!(one.method, IntervalMethod::Wilson);
        // Repeats of two methods (no arm gives them): the clustered one is named.
        let two = over_repeats(
            &[
                with_method(0.7, 0.03, IntervalMethod::Normal),
                with_method(0.8, 0.04, IntervalMethod::ClusterRobustNormal),
            ],
            (0.0, 1.0),
            Z95,
        );
        assert_eq!(
            two.method.as_str(),
            "repeated-within-between(cluster-robust-normal)"
        );
        // A repeat that is no method of one test set: mixed.
        let mixed = repeats(IntervalMethod::Mixed);
        assert_eq!(mixed.method, IntervalMethod::Mixed);
    }

    /// Every label a report can write reads back as its method, through serde as the
    /// report's `interval` is read; each is written once; unknown labels are refused.
    #[test]
    fn every_interval_label_reads_back() {
        let all = IntervalMethod::all();
        assert_eq!(all.len(), 19);
        let mut labels: Vec<&str> = all.iter().map(|m| m.as_str()).collect();
        labels.sort_unstable();
        labels.dedup();
        assert_eq!(labels.len(), all.len());
        for method in all {
            let json = serde_json::to_value(method).unwrap();
            assert_eq!(json, serde_json::Value::from(method.as_str()));
            let back: IntervalMethod = serde_json::from_value(json).unwrap();
            assert_eq!(back, method);
            if let IntervalMethod::RepeatedWithinBetween(per_repeat) = method {
                assert_eq!(
                    method.as_str(),
                    format!("repeated-within-between({})", per_repeat.method().as_str())
                );
                assert_eq!(per_repeat.method().per_repeat(), Some(per_repeat));
            }
        }
        for unknown in [
            "repeated-within-between",
            "repeated-within-between-clustered",
            "repeated-within-between(mixed)",
        ] {
            assert!(unknown.parse::<IntervalMethod>().is_err(), "{unknown}");
        }
    }

    /// With one row per entity, the clustered AUC variance is DeLong's up to the
    /// small-sample factors (I/(I−1) against (m−1), (n−1)): close for moderate n.
    #[test]
    fn clustered_auc_reduces_to_delong_on_singletons() {
        let labels: Vec<bool> = (0..200).map(|i| (i * 7919) % 3 == 0).collect();
        let scores: Vec<f64> = (0..200)
            .map(|i| {
                ((i * 104_729) % 97) as f64 / 97.0 + if (i * 7919) % 3 == 0 { 0.2 } else { 0.0 }
            })
            .collect();
        let entities: Vec<u32> = (0..200).collect();
        let (auc, influence) = auc_influence(&labels, &scores).unwrap();
        let clustered = clustered(
            auc,
            &influence,
            &entities,
            (0.0, 1.0),
            IntervalMethod::Mixed,
            Z95,
        )
        .unwrap();
        let delong = metrics::delong(&labels, &scores).unwrap();
        assert_eq!(auc, delong.auc);
        assert!(
            (clustered.se / delong.se - 1.0).abs() < 0.02,
            "{} vs {}",
            clustered.se,
            delong.se
        );
    }

    /// Duplicating every row into its entity leaves the clustered se (nearly) as it was,
    /// while a row-level interval would shrink by √2: the reason clusters matter.
    #[test]
    fn duplicated_rows_do_not_buy_precision() {
        let labels: Vec<bool> = (0..100).map(|i| i % 3 == 0).collect();
        let scores: Vec<f64> = (0..100)
            .map(|i| ((i * 37) % 101) as f64 / 101.0 + if i % 3 == 0 { 0.3 } else { 0.0 })
            .collect();
        let single = TestRows {
            labels: &labels,
            scores: &scores,
            entities: &(0..100).collect::<Vec<u32>>(),
            baseline: &vec![false; labels.len()],
        };
        let twice_labels: Vec<bool> = labels.iter().chain(&labels).copied().collect();
        let twice_scores: Vec<f64> = scores.iter().chain(&scores).copied().collect();
        let twice_entities: Vec<u32> = (0..100).chain(0..100).collect();
        let twice = TestRows {
            labels: &twice_labels,
            scores: &twice_scores,
            entities: &twice_entities,
            baseline: &vec![false; twice_labels.len()],
        };
        for metric in [
            MetricName::RocAuc,
            MetricName::Accuracy,
            MetricName::BalancedAccuracy,
            MetricName::AccuracyLift,
        ] {
            let a = estimate(metric, &single, Z95).unwrap();
            let b = estimate(metric, &twice, Z95).unwrap();
            assert_eq!(a.value, b.value, "{metric:?}");
            assert!(b.se > 0.9 * a.se, "{metric:?}: {} vs {}", b.se, a.se);
            assert!(b.method.is_clustered(), "{metric:?}");
        }
    }

    #[test]
    fn wilson_matches_a_hand_calculation() {
        // 8 of 10: the textbook Wilson 95% interval is (0.4902, 0.9433).
        let e = wilson(0.8, 10, Z95);
        assert!(
            (e.ci.0 - 0.4902).abs() < 1e-4 && (e.ci.1 - 0.9433).abs() < 1e-4,
            "{:?}",
            e.ci
        );
    }
}
