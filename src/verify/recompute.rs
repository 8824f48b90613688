//! The payload's recompute and what its results must satisfy: `recompute.equal` (every arm
//! evaluated on the pack's table, compared leaf by leaf with the recorded results), the
//! invariants that hold for the recorded and the recomputed results alike
//! (`split.zero_group_overlap`, `split.temporal_order`, `ablation.identity`), the caveats
//! read off the recomputed results, and `determinism.rerun`.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::checks::CheckId;
use super::diff::differences;
use super::{Caveat, Counterexample, Verification};
use crate::arm::{Evaluation, PreparedExperiment};
use crate::canon;
use crate::experiment::{Arm, Experiment};
use crate::json_path::JsonPath;
use crate::metrics::MetricValue;
use crate::pack::Pack;
use crate::run::{self, ArmResult, RunOptions};
use crate::split::{LookAlikePair, LookAlikes};
use crate::table::Table;

impl Verification<'_> {
    /// Stage `recompute.equal`: every arm prepared and evaluated on the pack's table,
    /// compared leaf by leaf with the recorded results.
    pub(super) fn recompute<'a>(
        &mut self,
        pack: &'a Pack,
        experiment: &'a Experiment,
        value: &Value,
    ) -> Option<(PreparedExperiment<'a>, Evaluation)> {
        let (table, threads) = (pack.table(), self.options.threads);
        let evaluated =
            PreparedExperiment::new(pack, table, experiment, threads).and_then(|prepared| {
                let observed = prepared.evaluate(table.labels(), threads)?;
                Ok((prepared, observed))
            });
        let (prepared, observed) = match evaluated {
            Ok(both) => both,
            Err(e) => {
                self.fail(
                    CheckId::RecomputeEqual,
                    format!("the kernel could not run the experiment: {e}"),
                    Vec::new(),
                );
                return None;
            }
        };
        let recomputed_value =
            canon::to_value(&observed.results).expect("kernel results are finite");
        self.recomputed_equal(differences(
            JsonPath::field("results"),
            &value["results"],
            &recomputed_value,
        ));
        Some((prepared, observed))
    }

    /// `determinism.rerun`: the experiment run again from scratch, on another thread count.
    pub(super) fn rerun(
        &mut self,
        pack: &Pack,
        table: &Table,
        experiment: &Experiment,
        expected: &str,
    ) {
        let o = self.options;
        let rerun_threads = if o.threads == 1 { 2 } else { 1 };
        match run::compute_results(
            pack,
            table,
            experiment,
            &RunOptions {
                threads: rerun_threads,
            },
        ) {
            Ok(again) if run::result_hash(&again).ok().as_deref() == Some(expected) => {
                self.pass(CheckId::DeterminismRerun)
            }
            Ok(again) => {
                let ce = Counterexample::new(
                    CheckId::DeterminismRerun,
                    json!(run::result_hash(&again).unwrap_or_default()),
                    json!(expected),
                    json!({ "threads": [o.threads, rerun_threads] }),
                );
                self.fail(
                    CheckId::DeterminismRerun,
                    "a second run gave another result hash",
                    vec![ce],
                );
            }
            Err(e) => self.fail(
                CheckId::DeterminismRerun,
                format!("a second run failed: {e}"),
                Vec::new(),
            ),
        }
    }

    /// The invariants every result must satisfy, recorded or recomputed: entity-separating
    /// arms share no entity, temporal arms test only after they train, an identity ablation
    /// reproduces its arm bit for bit. A check with nothing to apply to is skipped.
    pub(super) fn invariants(
        &mut self,
        experiment: &Experiment,
        recorded: &BTreeMap<String, ArmResult>,
        recomputed: &BTreeMap<String, ArmResult>,
    ) {
        let results = sourced(experiment, recorded, recomputed);
        self.pass_unless_in(
            CheckId::SplitZeroGroupOverlap,
            (
                results
                    .iter()
                    .filter(|r| r.arm.split.separates_entities())
                    .count(),
                "no entity_grouped or entity_k_fold arm",
            ),
            group_overlaps(&results),
            "an entity-grouped arm shares entities between train and test (of a fold)",
        );
        self.pass_unless_in(
            CheckId::SplitTemporalOrder,
            (
                results.iter().filter(|r| r.arm.split.orders_time()).count(),
                "no temporal or rolling_origin arm",
            ),
            temporal_disorders(&results),
            "a temporal arm has test rows not after every training row (of a fold)",
        );
        let identities = experiment
            .ablation_list()
            .iter()
            .filter(|a| a.drop.is_empty())
            .count();
        self.pass_unless_in(
            CheckId::AblationIdentity,
            (
                identities * results.len(),
                "no identity ablation (drop: [])",
            ),
            identity_differences(experiment, &results),
            "an identity ablation does not reproduce its arm bit for bit",
        );
    }
}

/// One arm's results as recorded or as recomputed, at its JSON path.
struct Sourced<'r> {
    arm: &'r Arm,
    /// `"recorded"` or `"recomputed"`.
    source: &'static str,
    result: &'r ArmResult,
    /// `$.results.<arm>`.
    path: JsonPath,
}

/// Every arm's recorded then recomputed results (those present), in experiment order.
fn sourced<'r>(
    experiment: &'r Experiment,
    recorded: &'r BTreeMap<String, ArmResult>,
    recomputed: &'r BTreeMap<String, ArmResult>,
) -> Vec<Sourced<'r>> {
    let mut out = Vec::new();
    for arm in &experiment.arms {
        for (source, results) in [("recorded", recorded), ("recomputed", recomputed)] {
            if let Some(result) = results.get(&arm.name) {
                out.push(Sourced {
                    arm,
                    source,
                    result,
                    path: JsonPath::field("results").key(&arm.name),
                });
            }
        }
    }
    out
}

/// `split.zero_group_overlap`: an entity-separating arm whose train and test share an
/// entity, witnessed by the first shared entity.
fn group_overlaps(results: &[Sourced]) -> Vec<Counterexample> {
    results
        .iter()
        .filter(|r| r.arm.split.separates_entities() && r.result.overlap.entities != 0)
        .map(|r| {
            let witness = r
                .result
                .overlap
                .first_entities
                .first()
                .cloned()
                .unwrap_or_default();
            Counterexample::new(
                CheckId::SplitZeroGroupOverlap,
                json!(r.result.overlap.entities),
                json!(0),
                json!({ "path": r.path.key("overlap").key("entities"), "source": r.source, "entity": witness }),
            )
        })
        .collect()
}

/// `split.temporal_order`: a time-ordered arm with test rows not after every training row.
fn temporal_disorders(results: &[Sourced]) -> Vec<Counterexample> {
    results
        .iter()
        .filter(|r| r.arm.split.orders_time() && r.result.overlap.temporal_rows != Some(0))
        .map(|r| {
            Counterexample::new(
                CheckId::SplitTemporalOrder,
                json!(r.result.overlap.temporal_rows),
                json!(0),
                json!({ "path": r.path.key("overlap").key("temporal_rows"), "source": r.source }),
            )
        })
        .collect()
}

/// `ablation.identity`: an identity ablation (`drop: []`) that changed a score or a
/// metric bit of its arm.
fn identity_differences(experiment: &Experiment, results: &[Sourced]) -> Vec<Counterexample> {
    let identities: Vec<&str> = experiment
        .ablation_list()
        .iter()
        .filter(|a| a.drop.is_empty())
        .map(|a| a.name.as_str())
        .collect();
    let mut out = Vec::new();
    for r in results {
        for &name in &identities {
            let Some(identity) = r.result.ablations.get(name) else {
                continue;
            };
            let same_metrics = identity
                .metrics
                .iter()
                .all(|(metric, value)| metric_bits_equal(value, r.result.metrics.get(metric)));
            if identity.changed_scores != 0 || !same_metrics {
                out.push(Counterexample::new(
                    CheckId::AblationIdentity,
                    json!({ "changed_scores": identity.changed_scores, "metrics": canon::to_value(&identity.metrics).unwrap_or_default() }),
                    json!({ "changed_scores": 0, "metrics": canon::to_value(&r.result.metrics).unwrap_or_default() }),
                    json!({ "path": r.path.key("ablations").key(name), "source": r.source }),
                ));
            }
        }
    }
    out
}

/// Each arm's look-alike entities (test ids equal to training ids under the entity-key
/// normalisation), from the recompute's splits, in experiment order.
pub(super) fn look_alikes(
    prepared: &PreparedExperiment,
    experiment: &Experiment,
    table: &Table,
) -> Vec<Option<LookAlikes>> {
    let groups = crate::split::look_alike_groups(table);
    (0..experiment.arms.len())
        .map(|index| prepared.look_alikes(index, &groups))
        .collect()
}

/// Every arm whose recomputed test rows were seen in training: entities on both sides, and
/// (calendar time, an experiment with a time-ordered arm) test rows at or before the
/// latest training time, counted once each however many repeats test them
/// (`temporal_rows`, per arm in experiment order); in experiment order.
pub(super) fn caveats(
    experiment: &Experiment,
    time_kind: crate::pack::TimeKind,
    results: &BTreeMap<String, ArmResult>,
    look_alikes: &[Option<LookAlikes>],
    temporal_rows: &[Option<u64>],
) -> Vec<Caveat> {
    let claimed = |name: &str| {
        experiment
            .claim
            .as_ref()
            .is_some_and(|claim| claim.names_arm(name))
    };
    // Temporal overlap is a caveat where time is the experiment's question: calendar time
    // (a visit number is not compared across entities) and an arm that orders time (a
    // random-vs-grouped comparison does not claim to forecast; its overlap numbers stay in
    // the results).
    let time_is_a_question =
        time_kind.is_calendar() && experiment.arms.iter().any(|arm| arm.split.orders_time());
    let mut out = Vec::new();
    for (index, arm) in experiment.arms.iter().enumerate() {
        let Some(result) = results.get(&arm.name) else {
            continue;
        };
        if result.overlap.entities > 0 {
            out.push(Caveat {
                arm: arm.name.clone(),
                kind: "shared_entities".into(),
                count: result.overlap.entities,
                witness: result.overlap.first_entities.first().cloned(),
                look_alike: None,
                claimed: claimed(&arm.name),
            });
        }
        if let Some(rows) = temporal_rows
            .get(index)
            .copied()
            .flatten()
            .filter(|&rows| rows > 0 && time_is_a_question)
        {
            out.push(Caveat {
                arm: arm.name.clone(),
                kind: "temporal_overlap".into(),
                count: rows,
                witness: None,
                look_alike: None,
                claimed: claimed(&arm.name),
            });
        }
        if let Some(look_alikes) = look_alikes.get(index).and_then(Option::as_ref) {
            if let Some(LookAlikePair { test, train }) = look_alikes.first_pairs.first() {
                out.push(Caveat {
                    arm: arm.name.clone(),
                    kind: "look_alike_entities".into(),
                    count: look_alikes.entities,
                    witness: Some(test.clone()),
                    look_alike: Some(train.clone()),
                    claimed: claimed(&arm.name),
                });
            }
        }
    }
    out
}

fn metric_bits_equal(a: &MetricValue, b: Option<&MetricValue>) -> bool {
    match (a, b) {
        (MetricValue::Value(x), Some(MetricValue::Value(y))) => x.to_bits() == y.to_bits(),
        (a, Some(b)) => a == b,
        _ => false,
    }
}
