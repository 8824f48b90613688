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
    /// A gap between arms one of which fits a label-reading preparation step on all rows
    /// (src/prepare/): the standard error is the larger of the paired method's and the
    /// standard deviation of the gap over the row null's permutations, each of which
    /// re-runs the whole preparation. The paired methods treat the test rows as the only
    /// randomness; what the preparation picks on all rows (features, encodings, copies)
    /// varies with the data too, and they undercover (docs/CALIBRATION.md, "Preparation
    /// gaps"). Written `permutation-spread`.
    PermutationSpread,
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
            IntervalMethod::PermutationSpread => "permutation-spread",
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
        all.push(IntervalMethod::PermutationSpread);
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
        assert_eq!(all.len(), 20);
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

    /// Two entities are enough for a cluster-robust interval, one is not. By hand: the
    /// influence values 0.1 and −0.1 of entity 0 sum to 0, entity 1's is 0.2, so the
    /// variance is I/(I−1)·Σ zᵢ² = 2·0.04 = 0.08 and the interval 0.5 ± √0.08 at z = 1.
    #[test]
    fn two_entities_make_a_clustered_interval_and_one_does_not() {
        let two = clustered(
            0.5,
            &[0.1, -0.1, 0.2],
            &[0, 0, 1],
            (0.0, 1.0),
            IntervalMethod::ClusterRobustNormal,
            1.0,
        )
        .expect("two entities");
        let se = 0.08f64.sqrt();
        assert!((two.se - se).abs() < 1e-15, "{two:?}");
        assert!((two.ci.0 - (0.5 - se)).abs() < 1e-15 && (two.ci.1 - (0.5 + se)).abs() < 1e-15);
        let one = clustered(
            0.5,
            &[0.1, -0.1],
            &[3, 3],
            (0.0, 1.0),
            IntervalMethod::ClusterRobustNormal,
            1.0,
        );
        assert!(one.is_err(), "{one:?}");
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

    /// The 6-row, 3-entity example of the hand calculations below (entities out of order,
    /// so the per-entity sums must group them): the scores and majority-baseline classes of
    /// a `higher` arm and a `lower` arm on the same rows.
    const ENT: [u32; 6] = [2, 0, 1, 0, 2, 1];
    const LAB: [bool; 6] = [true, true, true, true, false, false];
    const S_H: [f64; 6] = [0.6, 0.9, 0.8, 0.4, 0.1, 0.7];
    const B_H: [bool; 6] = [false, true, false, true, true, false];
    const S_L: [f64; 6] = [0.3, 0.9, 0.2, 0.6, 0.4, 0.8];
    const B_L: [bool; 6] = [true, true, false, false, true, false];
    const SINGLETONS: [u32; 6] = [0, 1, 2, 3, 4, 5];

    fn rows<'a>(scores: &'a [f64], baseline: &'a [bool], entities: &'a [u32]) -> TestRows<'a> {
        TestRows {
            labels: &LAB,
            scores,
            entities,
            baseline,
        }
    }

    fn assert_close(got: f64, want: f64, what: &str) {
        assert!(
            (got - want).abs() <= 1e-15 * want.abs().max(1.0),
            "{what}: {got} vs {want}"
        );
    }

    /// `value ± z·se`, clipped to `range`, with the expected value and se.
    fn assert_estimate(e: &Estimate, value: f64, se: f64, range: (f64, f64), z: f64, what: &str) {
        assert_close(e.value, value, what);
        assert_close(e.se, se, what);
        assert_close(e.ci.0, (value - z * se).max(range.0), what);
        assert_close(e.ci.1, (value + z * se).min(range.1), what);
    }

    /// The cluster-robust intervals of the accuracy-type metrics against a hand calculation
    /// in exact fractions (each metric's delta-method linearisation per row, summed per
    /// entity, Var = I/(I−1)·Σ zₖ²; `tests/parity/hand_accuracy_intervals.py` prints them). On ENT:
    /// accuracy 2/3, Var 1/36; majority baseline 1/2, Var 1/12; lift 1/6, Var 7/36;
    /// balanced accuracy (TPR 3/4 + TNR 1/2)/2 = 5/8, Var 57/1024.
    #[test]
    fn clustered_accuracy_type_intervals_match_a_hand_calculation() {
        let r = rows(&S_H, &B_H, &ENT);
        assert!(!r.independent());
        let z = 2.0;
        for (metric, value, var, range) in [
            (MetricName::Accuracy, 2.0 / 3.0, 1.0 / 36.0, (0.0, 1.0)),
            (
                MetricName::MajorityBaselineAccuracy,
                0.5,
                1.0 / 12.0,
                (0.0, 1.0),
            ),
            (MetricName::AccuracyLift, 1.0 / 6.0, 7.0 / 36.0, (-1.0, 1.0)),
            (
                MetricName::BalancedAccuracy,
                5.0 / 8.0,
                57.0 / 1024.0,
                (0.0, 1.0),
            ),
        ] {
            let e = estimate(metric, &r, z).unwrap();
            assert_eq!(e.method, IntervalMethod::ClusterRobustNormal, "{metric:?}");
            assert_estimate(&e, value, f64::sqrt(var), range, z, &format!("{metric:?}"));
        }
    }

    /// On independent rows the balanced accuracy and the lift get the normal interval from
    /// the same influence values, I = n = 6 (hand calculation: Var 33/640 and 29/180), and
    /// the accuracy and the baseline Wilson's interval at z.
    #[test]
    fn independent_rows_get_normal_and_wilson_intervals() {
        let r = rows(&S_H, &B_H, &SINGLETONS);
        assert!(r.independent());
        let z = 2.0;
        let e = estimate(MetricName::BalancedAccuracy, &r, z).unwrap();
        assert_eq!(e.method, IntervalMethod::Normal);
        assert_estimate(&e, 5.0 / 8.0, f64::sqrt(33.0 / 640.0), (0.0, 1.0), z, "ba");
        let e = estimate(MetricName::AccuracyLift, &r, z).unwrap();
        assert_eq!(e.method, IntervalMethod::Normal);
        assert_estimate(
            &e,
            1.0 / 6.0,
            f64::sqrt(29.0 / 180.0),
            (-1.0, 1.0),
            z,
            "lift",
        );
        // Wilson at z = 2 for 4 of 6 and 3 of 6, from the textbook formula:
        // (p + z²/2n ± z·√(p(1−p)/n + z²/4n²)) / (1 + z²/n).
        for (metric, p) in [
            (MetricName::Accuracy, 4.0 / 6.0),
            (MetricName::MajorityBaselineAccuracy, 3.0 / 6.0),
        ] {
            let e = estimate(metric, &r, z).unwrap();
            assert_eq!(e.method, IntervalMethod::Wilson, "{metric:?}");
            let (n, z2) = (6.0, z * z);
            let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
            let half = z * f64::sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / (1.0 + z2 / n);
            assert_close(e.value, p, "wilson value");
            assert_close(e.se, f64::sqrt(p * (1.0 - p) / n), "wilson se");
            assert!(
                (e.ci.0 - (centre - half)).abs() < 1e-15,
                "{metric:?} {:?}",
                e.ci
            );
            assert!(
                (e.ci.1 - (centre + half)).abs() < 1e-15,
                "{metric:?} {:?}",
                e.ci
            );
        }
    }

    /// The paired difference of two arms on the same rows: Var = I/(I−1)·Σₖ (zₖʰ − zₖˡ)²
    /// (hand calculation, exact fractions): clustered accuracy 1/6 with Var 1/9, lift 1/6
    /// with 13/36, balanced accuracy 1/8 with 81/1024, baseline 0 with 1/12; on independent
    /// rows (I = 6) accuracy 17/180, baseline 1/15, lift 53/180, balanced accuracy 33/640.
    #[test]
    fn paired_accuracy_type_differences_match_a_hand_calculation() {
        let z = 2.0;
        let cases = [
            (&ENT, MetricName::Accuracy, 1.0 / 6.0, 1.0 / 9.0),
            (&ENT, MetricName::AccuracyLift, 1.0 / 6.0, 13.0 / 36.0),
            (&ENT, MetricName::BalancedAccuracy, 1.0 / 8.0, 81.0 / 1024.0),
            (&ENT, MetricName::MajorityBaselineAccuracy, 0.0, 1.0 / 12.0),
            (&SINGLETONS, MetricName::Accuracy, 1.0 / 6.0, 17.0 / 180.0),
            (
                &SINGLETONS,
                MetricName::MajorityBaselineAccuracy,
                0.0,
                1.0 / 15.0,
            ),
            (
                &SINGLETONS,
                MetricName::AccuracyLift,
                1.0 / 6.0,
                53.0 / 180.0,
            ),
            (
                &SINGLETONS,
                MetricName::BalancedAccuracy,
                1.0 / 8.0,
                33.0 / 640.0,
            ),
        ];
        for (entities, metric, value, var) in cases {
            let (h, l) = (rows(&S_H, &B_H, entities), rows(&S_L, &B_L, entities));
            let e = paired_difference(metric, &h, &l, true, z).unwrap();
            let clustered = entities == &ENT;
            let method = if clustered {
                IntervalMethod::ClusterRobustNormalPaired
            } else {
                IntervalMethod::NormalPaired
            };
            assert_eq!(e.method, method, "{metric:?}");
            let range = if metric == MetricName::AccuracyLift {
                (-2.0, 2.0)
            } else {
                (-1.0, 1.0)
            };
            let what = format!("{metric:?} clustered={clustered}");
            assert_estimate(&e, value, f64::sqrt(var), range, z, &what);
        }
    }

    /// ψ(x, y) of DeLong's placements: 1 when the positive scores above, ½ on a tie.
    fn psi(x: f64, y: f64) -> f64 {
        if x > y {
            1.0
        } else if x == y {
            0.5
        } else {
            0.0
        }
    }

    /// Obuchowski's (1997) clustered AUC, from pairwise comparisons: per cluster k the sums
    /// Aₖ = Σ V10(X) − mₖθ over its positives and Bₖ = Σ V01(Y) − nₖθ over its negatives.
    fn obuchowski_parts(
        labels: &[bool],
        scores: &[f64],
        entities: &[u32],
    ) -> (f64, Vec<(f64, f64)>) {
        let pos: Vec<usize> = (0..labels.len()).filter(|&r| labels[r]).collect();
        let neg: Vec<usize> = (0..labels.len()).filter(|&r| !labels[r]).collect();
        let (m, n) = (pos.len() as f64, neg.len() as f64);
        let theta = pos
            .iter()
            .map(|&i| neg.iter().map(|&j| psi(scores[i], scores[j])).sum::<f64>())
            .sum::<f64>()
            / (m * n);
        let mut clusters: Vec<u32> = entities.to_vec();
        clusters.sort_unstable();
        clusters.dedup();
        let parts = clusters
            .iter()
            .map(|&k| {
                let (mut a, mut b) = (0.0, 0.0);
                for r in (0..labels.len()).filter(|&r| entities[r] == k) {
                    if labels[r] {
                        a +=
                            neg.iter().map(|&j| psi(scores[r], scores[j])).sum::<f64>() / n - theta;
                    } else {
                        b +=
                            pos.iter().map(|&i| psi(scores[i], scores[r])).sum::<f64>() / m - theta;
                    }
                }
                (a, b)
            })
            .collect();
        (theta, parts)
    }

    /// Obuchowski's covariance of two clustered AUCs of the same rows (the variance when
    /// both are one): S10/M + S01/N + (S11 + S11')/(M·N), S10 = I/((I−1)M)·Σ Aₖ¹Aₖ²,
    /// S01 = I/((I−1)N)·Σ Bₖ¹Bₖ², S11 = I/(I−1)·Σ Aₖ¹Bₖ², S11' = I/(I−1)·Σ Aₖ²Bₖ¹.
    fn obuchowski_cov(labels: &[bool], p1: &[(f64, f64)], p2: &[(f64, f64)]) -> f64 {
        let m = labels.iter().filter(|&&l| l).count() as f64;
        let n = labels.len() as f64 - m;
        let i = p1.len() as f64;
        let f = i / (i - 1.0);
        // Σₖ g(parts of k in AUC 1, parts of k in AUC 2).
        fn sum(
            p1: &[(f64, f64)],
            p2: &[(f64, f64)],
            g: impl Fn((f64, f64), (f64, f64)) -> f64,
        ) -> f64 {
            p1.iter().zip(p2).map(|(&a, &b)| g(a, b)).sum()
        }
        let s10 = f / m * sum(p1, p2, |a, b| a.0 * b.0);
        let s01 = f / n * sum(p1, p2, |a, b| a.1 * b.1);
        let s11 = f * sum(p1, p2, |a, b| a.0 * b.1);
        let s11t = f * sum(p1, p2, |a, b| b.0 * a.1);
        s10 / m + s01 / n + (s11 + s11t) / (m * n)
    }

    /// Random clustered rows: 3 to 14 entities of 1 to 4 rows, labels mixed within an
    /// entity, scores on a few tied levels (two score columns).
    fn clustered_case(seed: u64) -> (Vec<bool>, Vec<f64>, Vec<f64>, Vec<u32>) {
        use rand_chacha::rand_core::{RngCore, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut next = |k: u64| rng.next_u64() % k;
        let (mut labels, mut s1, mut s2, mut entities) = (vec![], vec![], vec![], vec![]);
        let n_entities = 3 + next(12);
        for e in 0..n_entities {
            for _ in 0..1 + next(4) {
                let label = next(3) == 0;
                let lift = if label { next(3) } else { 0 };
                labels.push(label);
                s1.push((next(6) + lift) as f64 / 8.0);
                s2.push((next(4) + next(2) * lift) as f64 / 8.0);
                entities.push((e * 7919 % 101) as u32); // ids out of row order
            }
        }
        (labels, s1, s2, entities)
    }

    /// The clustered AUC interval's variance is Obuchowski's (1997) formula, computed here
    /// from pairwise comparisons; the paired one's is Var₁ + Var₂ − 2·Cov₁₂ of the same
    /// formula; the values are the AUCs and their difference.
    #[test]
    fn clustered_auc_intervals_are_obuchowskis() {
        let z = 2.5;
        let mut checked = 0;
        for seed in 0..200 {
            let (labels, s1, s2, entities) = clustered_case(seed);
            let positives = labels.iter().filter(|&&l| l).count();
            if positives == 0 || positives == labels.len() {
                continue;
            }
            let r1 = TestRows {
                labels: &labels,
                scores: &s1,
                entities: &entities,
                baseline: &labels,
            };
            let r2 = TestRows {
                labels: &labels,
                scores: &s2,
                entities: &entities,
                baseline: &labels,
            };
            if r1.independent() {
                continue;
            }
            let (theta1, p1) = obuchowski_parts(&labels, &s1, &entities);
            let (theta2, p2) = obuchowski_parts(&labels, &s2, &entities);
            let close = |got: f64, want: f64, what: &str| {
                assert!(
                    (got - want).abs() <= 1e-12,
                    "seed {seed} {what}: {got} vs {want}"
                );
            };
            let e = any_estimate(MetricName::RocAuc, &r1, z).unwrap();
            assert_eq!(e.method, IntervalMethod::ObuchowskiClustered);
            close(e.value, theta1, "auc");
            close(e.se * e.se, obuchowski_cov(&labels, &p1, &p1), "variance");
            assert_eq!(
                e.ci,
                ((e.value - z * e.se).max(0.0), (e.value + z * e.se).min(1.0))
            );
            let d = paired_difference(MetricName::RocAuc, &r1, &r2, true, z).unwrap();
            assert_eq!(d.method, IntervalMethod::ObuchowskiClusteredPaired);
            close(d.value, theta1 - theta2, "difference");
            let var = obuchowski_cov(&labels, &p1, &p1) + obuchowski_cov(&labels, &p2, &p2)
                - 2.0 * obuchowski_cov(&labels, &p1, &p2);
            close(d.se * d.se, var, "paired variance");
            assert_eq!(
                d.ci,
                (
                    (d.value - z * d.se).max(-1.0),
                    (d.value + z * d.se).min(1.0)
                )
            );
            checked += 1;
        }
        assert!(checked >= 150, "{checked} clustered cases");
    }

    /// On independent rows the AUC's interval is DeLong's and a paired AUC difference is
    /// DeLong's paired test (`metrics::paired_delong`, checked against pROC in
    /// tests/parity), both at the z asked for.
    #[test]
    fn independent_auc_intervals_are_delongs_at_the_z_asked_for() {
        let z = 2.2414027276049455;
        let h = rows(&S_H, &B_H, &SINGLETONS);
        let l = rows(&S_L, &B_L, &SINGLETONS);
        let e = estimate(MetricName::RocAuc, &h, z).unwrap();
        let d = metrics::delong(&LAB, &S_H).unwrap();
        assert_eq!(e.method, IntervalMethod::DeLong);
        assert_eq!((e.value, e.se), (d.auc, d.se));
        assert_eq!(
            e.ci,
            ((d.auc - z * d.se).max(0.0), (d.auc + z * d.se).min(1.0))
        );
        let e = paired_difference(MetricName::RocAuc, &h, &l, true, z).unwrap();
        let p = metrics::paired_delong(&LAB, &S_H, &S_L).unwrap();
        assert_eq!(e.method, IntervalMethod::DeLongPaired);
        assert_eq!((e.value, e.se), (p.difference, p.se));
        assert_eq!(e.ci, (p.difference - z * p.se, p.difference + z * p.se));
        // Not the same rows: no DeLong pairing, the influence values' paired interval.
        let e = paired_difference(MetricName::RocAuc, &h, &l, false, z).unwrap();
        assert_eq!(e.method, IntervalMethod::NormalPaired);
    }

    /// Too few rows or entities give no interval, and a zero-width AUC interval is refused.
    #[test]
    fn too_few_rows_or_entities_or_a_zero_width_auc_give_no_interval() {
        let one = TestRows {
            labels: &[true],
            scores: &[0.7],
            entities: &[0],
            baseline: &[true],
        };
        assert!(estimate(MetricName::Accuracy, &one, Z95).is_err());
        let same = [4u32; 6];
        let r = rows(&S_H, &B_H, &same);
        let e = estimate(MetricName::Accuracy, &r, Z95).unwrap_err();
        assert!(e.0.contains("fewer than two entities"), "{e}");
        let tied = [0.5; 6];
        let r = rows(&tied, &B_H, &SINGLETONS);
        assert!(estimate(MetricName::RocAuc, &r, Z95).is_err());
        assert!(any_estimate(MetricName::RocAuc, &r, Z95).is_ok());
        let point = Estimate {
            value: 0.5,
            se: 0.0,
            ci: (0.5, 0.5),
            method: IntervalMethod::DeLong,
        };
        assert!(with_width(point).is_err());
        let wide = Estimate {
            ci: (0.4, 0.6),
            ..point
        };
        assert_eq!(with_width(wide), Ok(wide));
    }

    /// Repeats combine as mean ± z·√(mean(seᵣ²) + s²/R): values 0.7, 0.8, 0.9 with se 0.1,
    /// 0.2, 0.2 give 0.8 and √(0.09/3 + 0.01/3) by hand; one repeat is itself; a clustered
    /// repeat makes the combination clustered.
    #[test]
    fn repeats_combine_within_plus_between_over_r() {
        let e = |value: f64, se: f64, method| Estimate {
            value,
            se,
            ci: (0.0, 1.0),
            method,
        };
        let normal = IntervalMethod::Normal;
        let per = [
            e(0.7, 0.1, normal),
            e(0.8, 0.2, normal),
            e(0.9, 0.2, normal),
        ];
        let z = 2.0;
        let c = over_repeats(&per, (0.0, 1.0), z);
        assert_eq!(
            c.method,
            IntervalMethod::RepeatedWithinBetween(PerRepeatMethod::Normal)
        );
        let se = f64::sqrt(0.1 / 3.0);
        assert!(
            (c.value - 0.8).abs() < 1e-15 && (c.se - se).abs() < 1e-15,
            "{c:?}"
        );
        assert!((c.ci.0 - (0.8 - z * se)).abs() < 1e-15, "{c:?}");
        assert_eq!(c.ci.1, 1.0, "clipped to the range");
        let c = over_repeats(&per, (-1.0, 1.5), z);
        assert!((c.ci.1 - (0.8 + z * se)).abs() < 1e-15, "{c:?}");
        let mixed = [per[0], e(0.8, 0.2, IntervalMethod::ClusterRobustNormal)];
        assert_eq!(
            over_repeats(&mixed, (0.0, 1.0), z).method,
            IntervalMethod::RepeatedWithinBetween(PerRepeatMethod::ClusterRobustNormal)
        );
        assert_eq!(over_repeats(&per[1..2], (0.0, 1.0), z), per[1]);
    }

    /// Two estimates of different test sets: the variances add, the interval is not
    /// clipped, and two methods make `mixed`.
    #[test]
    fn a_gap_of_two_estimates_adds_their_variances() {
        let h = Estimate {
            value: 0.9,
            se: 0.3,
            ci: (0.0, 1.0),
            method: IntervalMethod::DeLong,
        };
        let l = Estimate {
            value: 0.2,
            se: 0.4,
            ci: (0.0, 1.0),
            method: IntervalMethod::DeLong,
        };
        let g = gap(&h, &l, 2.0);
        assert!(
            (g.value - 0.7).abs() < 1e-15 && (g.se - 0.5).abs() < 1e-15,
            "{g:?}"
        );
        assert!(
            (g.ci.0 + 0.3).abs() < 1e-15 && (g.ci.1 - 1.7).abs() < 1e-15,
            "{g:?}"
        );
        assert_eq!(g.method, IntervalMethod::DeLong);
        let w = Estimate {
            method: IntervalMethod::Wilson,
            ..l
        };
        assert_eq!(gap(&h, &w, 2.0).method, IntervalMethod::Mixed);
    }

    /// z of a family of m tests is Φ⁻¹(1 − 0.025/m): mpmath at 40 digits gives
    /// 1.95996398454005423552…, 2.24140272760494537508…, 2.39397979981850948511….
    #[test]
    fn the_family_z_is_the_bonferroni_quantile() {
        for (m, want) in [
            (1, 1.959_963_984_540_054_2),
            (2, 2.241_402_727_604_945_4),
            (3, 2.393_979_799_818_509_5),
        ] {
            let z = z_for_family(m).unwrap();
            assert!((z - want).abs() <= 2.0 * f64::EPSILON * want, "{m}: {z}");
        }
        assert_eq!(z_for_family(0), None);
        assert_eq!(z_for_family(MAX_FAMILY + 1), None);
    }

    /// Each method's report name is its JSON name; the clustered ones are those that
    /// treat an entity's rows as one cluster.
    #[test]
    fn methods_are_named_as_in_json_and_know_whether_they_cluster() {
        use IntervalMethod::*;
        let clustered = [
            ObuchowskiClustered,
            ObuchowskiClusteredPaired,
            ClusterRobustNormal,
            ClusterRobustNormalPaired,
            RepeatedWithinBetween(PerRepeatMethod::ObuchowskiClusteredPaired),
        ];
        let independent = [
            DeLong,
            DeLongPaired,
            Wilson,
            Normal,
            NormalPaired,
            Mixed,
            RepeatedWithinBetween(PerRepeatMethod::DeLongPaired),
        ];
        for m in clustered.into_iter().chain(independent) {
            assert_eq!(
                serde_json::to_string(&m).unwrap(),
                format!("\"{}\"", m.as_str())
            );
            assert_eq!(m.to_string(), m.as_str());
            assert_eq!(m.is_clustered(), clustered.contains(&m), "{m}");
        }
    }
}
