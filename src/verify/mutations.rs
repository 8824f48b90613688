//! The mutations, run only when nothing failed yet: the fixture's rows reloaded in seeded
//! shuffled orders must give the same result hash (`mutation.row_order`), permuted labels
//! must change it (`mutation.label.active`: the results respond to the labels), and under
//! K permutations no label-dependent metric may stay above chance
//! (`mutation.label.chance`: label information would leak past the permutation) — except
//! in an arm whose preparation fits a label-reading step on all rows, whose null the
//! design itself inflates: `mutation.label.prepared` reports where that null sits.

use serde_json::json;

use super::checks::CheckId;
use super::{Counterexample, Verification, ACTIVE_PERMUTATIONS, CHANCE_MARGIN};
use crate::arm::PreparedExperiment;
use crate::experiment::{Claim, Experiment, MetricName};
use crate::json_path::JsonPath;
use crate::pack::Pack;
use crate::prepare;
use crate::run::{self, RunOptions};
use crate::stats::claim::{self, Null, NullArms, PermutationRuns};
use crate::stats::mutation_seed;

impl Verification<'_> {
    /// `mutation.row_order`: the experiment run from scratch on the fixture reloaded in
    /// each seeded shuffled row order gives the recomputed result hash (a kernel whose
    /// results depend on row order would make any recorded number unreproducible).
    pub(super) fn row_order(&mut self, pack: &Pack, experiment: &Experiment, expected_hash: &str) {
        let o = self.options;
        if o.row_order_shuffles == 0 {
            self.unverifiable(CheckId::MutationRowOrder, "no row-order shuffles requested");
            return;
        }
        let seeds: Vec<u64> = (0..o.row_order_shuffles)
            .map(|k| mutation_seed(o.seed, "rows", k))
            .collect();
        // One shuffle at a time, each with every thread: side by side, each would hold
        // its own table copy and preparation (a whole run's memory per thread).
        let hashes = seeds.iter().map(|&seed| {
            let table = pack.table().reloaded_in_shuffled_order(seed);
            let options = RunOptions { threads: o.threads };
            run::compute_results(pack, &table, experiment, &options)
                .and_then(|r| run::result_hash(&r))
        });
        let mut ces = Vec::new();
        for (seed, hash) in seeds.iter().zip(hashes) {
            match hash {
                Ok(h) if h == expected_hash => {}
                Ok(h) => ces.push(Counterexample::new(
                    CheckId::MutationRowOrder,
                    json!(h),
                    json!(expected_hash),
                    json!({ "mutation_seed": seed }),
                )),
                Err(e) => ces.push(Counterexample::new(
                    CheckId::MutationRowOrder,
                    json!(e.to_string()),
                    json!(expected_hash),
                    json!({ "mutation_seed": seed }),
                )),
            }
        }
        self.pass_unless(CheckId::MutationRowOrder, ces, |_| {
            "a row-order shuffle of the fixture changed the result hash".to_owned()
        });
    }

    /// The result hashes of the active label mutations (None: a permutation that left
    /// every label in place, or under which no arm's model scores anything), computed from
    /// the recompute's preparation.
    pub(super) fn label_active_outcomes(&self, prepared: &PreparedExperiment) -> ActiveOutcomes {
        let o = self.options;
        let table = prepared.table();
        let seeds: Vec<u64> = (0..ACTIVE_PERMUTATIONS)
            .map(|k| mutation_seed(o.seed, "labels/active", k))
            .collect();
        // Only the labels change: splits, designs and overlaps are the recompute's, each
        // design made once for the five labellings (when small enough to hold).
        let held = prepared.hold_designs(o.threads);
        let outcomes = run::parallel_map(&seeds, o.threads, |&seed| {
            let labels = table.labels_permuted_by_row(seed);
            if labels == table.labels() {
                return Ok(None);
            }
            let evaluation = prepared.evaluate_held(&labels, 1, held.as_ref())?;
            // Under these labels no arm's model scores anything (every metric that reads a
            // model undefined: a constant predictor, a fit that failed): the results cannot
            // respond to the labels, so the permutation is no test of it (vacuous).
            let no_model = evaluation.results.values().all(|arm| {
                arm.metrics
                    .iter()
                    .filter(|(name, _)| name.as_str() != "majority_baseline_accuracy")
                    .all(|(_, value)| value.value().is_none())
            });
            if no_model {
                return Ok(None);
            }
            run::result_hash(&evaluation.results).map(Some)
        });
        ActiveOutcomes { seeds, outcomes }
    }

    /// `mutation.label.active`: a label permutation that moved a label changes the result
    /// hash (results that ignore the labels measure nothing); unverifiable when every
    /// permutation was vacuous or failed.
    pub(super) fn label_active(&mut self, active: ActiveOutcomes, original_hash: &str) {
        let ActiveOutcomes { seeds, outcomes } = active;
        let mut ces = Vec::new();
        let mut active = 0;
        let mut errors = Vec::new();
        for (seed, outcome) in seeds.iter().zip(outcomes) {
            match outcome {
                Ok(None) => {}
                Ok(Some(hash)) if hash == original_hash => ces.push(Counterexample::new(
                    CheckId::MutationLabelActive,
                    json!(hash),
                    json!("a different result hash"),
                    json!({ "mutation_seed": seed, "mutation": "row-level label permutation" }),
                )),
                Ok(Some(_)) => active += 1,
                Err(e) => errors.push(format!("seed {seed}: {e}")),
            }
        }
        if !ces.is_empty() {
            self.fail(
                CheckId::MutationLabelActive,
                "the results do not respond to the labels",
                ces,
            );
        } else if active == 0 {
            let why = if errors.is_empty() {
                "every label permutation was vacuous".to_owned()
            } else {
                errors.join("; ")
            };
            self.unverifiable(CheckId::MutationLabelActive, why);
        } else {
            self.pass(CheckId::MutationLabelActive);
        }
    }

    /// Runs K row-level label permutations on the pack's table, refitting every arm (the
    /// chance check watches them all; the claim's p-value reuses these runs for a row null).
    pub(super) fn row_null(&self, prepared: &PreparedExperiment) -> PermutationRuns {
        claim::permutation_runs(prepared, Null::Row, NullArms::All, &self.claim_settings())
    }

    /// `mutation.label.chance`: under the row null, each arm's mean permuted ROC AUC or
    /// balanced accuracy stays within [`CHANCE_MARGIN`] (or 4 standard errors) of 0.5.
    pub(super) fn label_chance(&mut self, experiment: &Experiment, runs: &PermutationRuns) {
        let watched: Vec<MetricName> = experiment
            .metrics
            .iter()
            .copied()
            .filter(|m| matches!(m, MetricName::RocAuc | MetricName::BalancedAccuracy))
            .collect();
        if watched.is_empty() {
            self.skip(
                CheckId::MutationLabelChance,
                "no metric with a fixed chance level (roc_auc, balanced_accuracy) is asked for",
            );
            return;
        }
        if experiment
            .arms
            .iter()
            .all(|a| prepare::leaks_labels(&a.prepare))
        {
            self.skip(
                CheckId::MutationLabelChance,
                "every arm fits a label-reading preparation step on all rows: mutation.label.prepared measures their nulls",
            );
            return;
        }
        if let Some(e) = runs.first_error() {
            self.unverifiable(
                CheckId::MutationLabelChance,
                format!("a permutation could not run: {e}"),
            );
            return;
        }
        let mut ces = Vec::new();
        let mut measured = 0;
        // An arm that leaks the labels by its declared preparation is measured by
        // `mutation.label.prepared`: its null above chance is the design, not a hidden leak.
        for arm in experiment
            .arms
            .iter()
            .filter(|a| !prepare::leaks_labels(&a.prepare))
        {
            for &metric in &watched {
                let values: Vec<f64> = runs.values(&arm.name, metric.as_str());
                if values.len() < 2 {
                    continue;
                }
                measured += 1;
                let (mean, sd) = mean_sd(&values);
                let limit = 0.5 + CHANCE_MARGIN.max(4.0 * sd / (values.len() as f64).sqrt());
                if mean > limit {
                    ces.push(Counterexample::new(
                        CheckId::MutationLabelChance,
                        json!(mean),
                        json!(format!("<= {limit}")),
                        json!({ "path": JsonPath::field("results").key(&arm.name).key("metrics").key(metric.as_str()), "permutations": values.len(), "mutation": "row-level label permutation" }),
                    ));
                }
            }
        }
        if !ces.is_empty() {
            self.fail(CheckId::MutationLabelChance, "a label-dependent metric stays above chance when labels are permuted: label information leaks", ces);
        } else if measured == 0 {
            self.unverifiable(
                CheckId::MutationLabelChance,
                "too few non-vacuous permutations with a defined metric",
            );
        } else {
            self.pass(CheckId::MutationLabelChance);
        }
    }
}

impl Verification<'_> {
    /// `mutation.label.prepared`: for each arm whose preparation fits a label-reading step
    /// on all rows (`prepare::leaks_labels`), where its null sits: the mean ROC AUC or
    /// balanced accuracy over the row null's permutations, which re-run the whole
    /// preparation under each permuted labelling. A null above chance (beyond
    /// [`CHANCE_MARGIN`] or 4 standard errors of 0.5, the chance check's rule) is the leak
    /// made visible: the step finds "signal" in labels that carry none. It is reported as
    /// a finding, not a failure (the payload's numbers are the kernel's and the leak is
    /// declared by `fit_on`), except that a claim about such an arm alone (`metric_at_least`
    /// or `metric_at_most`) can then be evidence of nothing: the check is unverifiable and
    /// the verdict INCONCLUSIVE, whatever the claim's own interval says
    /// (docs/VERDICTS.md, "Preparation").
    pub(super) fn label_prepared(&mut self, experiment: &Experiment, runs: &PermutationRuns) {
        let leaky: Vec<&crate::experiment::Arm> = experiment
            .arms
            .iter()
            .filter(|a| prepare::leaks_labels(&a.prepare))
            .collect();
        if leaky.is_empty() {
            self.skip(
                CheckId::MutationLabelPrepared,
                "no arm fits a label-reading preparation step on all rows",
            );
            return;
        }
        if let Some(e) = runs.first_error() {
            self.unverifiable(
                CheckId::MutationLabelPrepared,
                format!("a permutation could not run: {e}"),
            );
            return;
        }
        let mut findings = Vec::new();
        let mut measured = 0;
        for arm in leaky {
            let (i, step) = prepare::first_leak(&arm.prepare).expect("a leaky arm");
            for metric in [MetricName::RocAuc, MetricName::BalancedAccuracy] {
                if !experiment.metrics.contains(&metric) {
                    continue;
                }
                let values: Vec<f64> = runs.values(&arm.name, metric.as_str());
                if values.len() < 2 {
                    continue;
                }
                measured += 1;
                let (mean, sd) = mean_sd(&values);
                let limit = 0.5 + CHANCE_MARGIN.max(4.0 * sd / (values.len() as f64).sqrt());
                if mean > limit {
                    findings.push(format!(
                        "arm {:?} fits {} on all rows (prepare[{i}]): under permuted labels it still scores {} {mean:.4} (mean of {} permutations, chance 0.5, limit {limit:.4})",
                        arm.name,
                        step.name(),
                        metric.as_str(),
                        values.len()
                    ));
                }
            }
        }
        let single_arm = match &experiment.claim {
            Some(Claim::MetricAtLeast { arm, .. } | Claim::MetricAtMost { arm, .. }) => experiment
                .arms
                .iter()
                .find(|a| &a.name == arm)
                .is_some_and(|a| prepare::leaks_labels(&a.prepare)),
            _ => false,
        };
        if single_arm {
            let why = if findings.is_empty() {
                "the claim is about one arm whose preparation fits a label-reading step on all rows: its score carries the test rows' labels and is no estimate for unseen rows".to_owned()
            } else {
                format!("{}; the claim is about that arm alone, whose score is then no evidence about unseen rows: compare it with the same arm fitted on training rows (a metric_gap)", findings.join("; "))
            };
            self.unverifiable(CheckId::MutationLabelPrepared, why);
        } else if measured == 0 {
            self.skip(
                CheckId::MutationLabelPrepared,
                "no metric with a fixed chance level (roc_auc, balanced_accuracy) is asked for",
            );
        } else if findings.is_empty() {
            self.pass(CheckId::MutationLabelPrepared);
        } else {
            self.pass_with(CheckId::MutationLabelPrepared, findings.join("; "));
        }
    }
}

/// Per active label mutation: its seed and the result hash it gave (None when vacuous).
pub(super) struct ActiveOutcomes {
    seeds: Vec<u64>,
    outcomes: Vec<Result<Option<String>, crate::Error>>,
}

fn mean_sd(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    let mut sum = 0.0;
    for v in values {
        sum += v;
    }
    let mean = sum / n;
    let mut ss = 0.0;
    for v in values {
        ss += (v - mean) * (v - mean);
    }
    (mean, (ss / (n - 1.0)).sqrt())
}
