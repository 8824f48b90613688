//! Confidence intervals for claim statistics, honest about clustered rows.
//!
//! Every interval here is `estimate ± z·se` with z = 1.959963984540054 (two-sided 95%),
//! except two exact special cases: DeLong's interval for an AUC on independent rows, and
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
use crate::metrics;
use crate::run::ArmPredictions;
use crate::table::Table;

/// z for a two-sided 95% interval.
pub const Z95: f64 = 1.959963984540054;

/// A statistic with its standard error and 95% interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// The statistic.
    pub value: f64,
    /// Its standard error.
    pub se: f64,
    /// 95% interval (clipped to the statistic's range).
    pub ci: (f64, f64),
    /// How the interval was computed.
    pub method: &'static str,
}

/// The test rows of one arm, with the entity of each row.
pub struct TestRows<'a> {
    /// Labels (positive = true).
    pub labels: &'a [bool],
    /// Predicted probabilities.
    pub scores: &'a [f64],
    /// Entity index of each row (rows of one entity form a cluster).
    pub entities: &'a [u32],
    /// Labels of the arm's training rows (for the majority baseline).
    pub train_labels: &'a [bool],
}

impl TestRows<'_> {
    /// True when no two test rows share an entity.
    fn independent(&self) -> bool {
        let mut seen = self.entities.to_vec();
        seen.sort_unstable();
        seen.windows(2).all(|w| w[0] != w[1])
    }
}

/// [`estimate`] on one arm's test rows, with their entities from `table` (the table the
/// predictions were made on). An arm whose fit failed ([`ArmPredictions::fit_failure`])
/// has no estimate of a metric that reads its scores.
pub fn estimate_arm(
    metric: MetricName,
    predictions: &ArmPredictions,
    table: &Table,
) -> Result<Estimate, String> {
    if let (Some(reason), true) = (&predictions.fit_failure, metric.depends_on_model()) {
        return Err(reason.clone());
    }
    let entities: Vec<u32> = predictions
        .test_rows
        .iter()
        .map(|&r| table.entity_of_row()[r])
        .collect();
    estimate(
        metric,
        &TestRows {
            labels: &predictions.test_labels,
            scores: &predictions.test_scores,
            entities: &entities,
            train_labels: &predictions.train_labels,
        },
    )
}

/// The estimate of `metric` on the rows, or why there is none.
pub fn estimate(metric: MetricName, rows: &TestRows<'_>) -> Result<Estimate, String> {
    let independent = rows.independent();
    let n = rows.labels.len();
    if n < 2 {
        return Err("fewer than two test rows".into());
    }
    let predicted: Vec<bool> = rows.scores.iter().map(|&s| s >= 0.5).collect();
    let correct: Vec<f64> = rows
        .labels
        .iter()
        .zip(&predicted)
        .map(|(l, p)| f64::from(u8::from(l == p)))
        .collect();
    match metric {
        MetricName::RocAuc => {
            if independent {
                let d = metrics::delong(rows.labels, rows.scores)?;
                return Ok(Estimate {
                    value: d.auc,
                    se: d.se,
                    ci: d.ci,
                    method: "delong",
                });
            }
            let (auc, influence) = auc_influence(rows.labels, rows.scores)?;
            clustered(
                auc,
                &influence,
                rows.entities,
                (0.0, 1.0),
                "obuchowski-clustered",
            )
        }
        MetricName::Accuracy => {
            let value = metric_value(metrics::accuracy(rows.labels, &predicted))?;
            proportion(value, &correct, rows.entities, independent)
        }
        MetricName::MajorityBaselineAccuracy => {
            let value = metric_value(metrics::majority_baseline_accuracy(
                rows.train_labels,
                rows.labels,
            ))?;
            let majority = majority_class(rows.train_labels);
            let hits: Vec<f64> = rows
                .labels
                .iter()
                .map(|&l| f64::from(u8::from(l == majority)))
                .collect();
            proportion(value, &hits, rows.entities, independent)
        }
        MetricName::AccuracyLift => {
            let majority = majority_class(rows.train_labels);
            let accuracy = metrics::accuracy(rows.labels, &predicted);
            let baseline = metrics::majority_baseline_accuracy(rows.train_labels, rows.labels);
            let value = metric_value(metrics::accuracy_lift(&accuracy, &baseline))?;
            let influence: Vec<f64> = rows
                .labels
                .iter()
                .zip(&correct)
                .map(|(&l, c)| (c - f64::from(u8::from(l == majority)) - value) / n as f64)
                .collect();
            let method = if independent {
                "normal"
            } else {
                "cluster-robust-normal"
            };
            clustered(value, &influence, rows.entities, (-1.0, 1.0), method)
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
            let method = if independent {
                "normal"
            } else {
                "cluster-robust-normal"
            };
            clustered(value, &influence, rows.entities, (0.0, 1.0), method)
        }
    }
}

/// The difference of two estimates from different test sets: variances add.
pub fn gap(higher: &Estimate, lower: &Estimate) -> Estimate {
    let value = higher.value - lower.value;
    let se = (higher.se * higher.se + lower.se * lower.se).sqrt();
    Estimate {
        value,
        se,
        ci: (value - Z95 * se, value + Z95 * se),
        method: if higher.method == lower.method {
            higher.method
        } else {
            "mixed"
        },
    }
}

fn metric_value(value: metrics::MetricValue) -> Result<f64, String> {
    match value {
        metrics::MetricValue::Value(v) => Ok(v),
        metrics::MetricValue::Undefined { undefined } => Err(undefined),
    }
}

fn majority_class(train_labels: &[bool]) -> bool {
    let positives = train_labels.iter().filter(|&&l| l).count();
    // As metrics::majority_baseline_accuracy: an exact tie predicts negative.
    positives * 2 > train_labels.len()
}

/// A proportion of 0/1 `hits`: Wilson on independent rows, cluster-robust otherwise.
fn proportion(
    value: f64,
    hits: &[f64],
    entities: &[u32],
    independent: bool,
) -> Result<Estimate, String> {
    if independent {
        return Ok(wilson(value, hits.len()));
    }
    let n = hits.len() as f64;
    let influence: Vec<f64> = hits.iter().map(|h| (h - value) / n).collect();
    clustered(
        value,
        &influence,
        entities,
        (0.0, 1.0),
        "cluster-robust-normal",
    )
}

/// Wilson's score interval for a proportion on n independent rows; se is the normal one
/// (used when the estimate enters a gap).
fn wilson(p: f64, n: usize) -> Estimate {
    let n = n as f64;
    let z2 = Z95 * Z95;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = Z95 / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    Estimate {
        value: p,
        se: (p * (1.0 - p) / n).sqrt(),
        ci: ((centre - half).max(0.0), (centre + half).min(1.0)),
        method: "wilson",
    }
}

/// Cluster-robust normal interval from per-row influence values.
fn clustered(
    value: f64,
    influence: &[f64],
    entities: &[u32],
    range: (f64, f64),
    method: &'static str,
) -> Result<Estimate, String> {
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
        ci: (
            (value - Z95 * se).max(range.0),
            (value + Z95 * se).min(range.1),
        ),
        method,
    })
}

/// AUC and each row's DeLong influence value (V10−θ)/M for positives, (V01−θ)/N for
/// negatives, from one sort.
fn auc_influence(labels: &[bool], scores: &[f64]) -> Result<(f64, Vec<f64>), String> {
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
        let clustered = clustered(auc, &influence, &entities, (0.0, 1.0), "x").unwrap();
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
            train_labels: &labels,
        };
        let twice_labels: Vec<bool> = labels.iter().chain(&labels).copied().collect();
        let twice_scores: Vec<f64> = scores.iter().chain(&scores).copied().collect();
        let twice_entities: Vec<u32> = (0..100).chain(0..100).collect();
        let twice = TestRows {
            labels: &twice_labels,
            scores: &twice_scores,
            entities: &twice_entities,
            train_labels: &labels,
        };
        for metric in [
            MetricName::RocAuc,
            MetricName::Accuracy,
            MetricName::BalancedAccuracy,
            MetricName::AccuracyLift,
        ] {
            let a = estimate(metric, &single).unwrap();
            let b = estimate(metric, &twice).unwrap();
            assert_eq!(a.value, b.value, "{metric:?}");
            assert!(b.se > 0.9 * a.se, "{metric:?}: {} vs {}", b.se, a.se);
            assert!(b.method.contains("clust"), "{metric:?}");
        }
    }

    #[test]
    fn wilson_matches_a_hand_calculation() {
        // 8 of 10: the textbook Wilson 95% interval is (0.4902, 0.9433).
        let e = wilson(0.8, 10);
        assert!(
            (e.ci.0 - 0.4902).abs() < 1e-4 && (e.ci.1 - 0.9433).abs() < 1e-4,
            "{:?}",
            e.ci
        );
    }
}
