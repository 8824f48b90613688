//! Transfer tasks: apply a concept to a new situation. A pack's `[transfer]` asks a
//! question with fixed choices (arms or metrics of one registered experiment) and names a
//! validity rule from a closed set. The fixed evaluator computes the evidence for every
//! choice with the kernel, marks which choices the rule accepts, and scores a given choice:
//! correct exactly when it is valid. No free text is graded (docs/TRANSFER.md).

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::arm::{Evaluation, PreparedExperiment};
use crate::canon::{self, HashKind};
use crate::error::{Error, Result};
use crate::experiment::{Experiment, MetricName};
use crate::metrics::MetricValue;
use crate::pack::{Pack, TransferChoice, TransferRule, TransferSpec};
use crate::run::{self, KernelInfo, PackRef};
use crate::split::{Overlap, SplitSummary};
use crate::stats::intervals;

/// The format tag of a transfer evaluation.
pub const TRANSFER_FORMAT: &str = "counterlab.transfer/1";

/// The evaluator's answer for one pack's task: every choice with its evidence and
/// validity, and (when a choice was given) the score.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TransferEvaluation {
    /// Always `counterlab.transfer/1`.
    pub format: String,
    /// The kernel that computed it.
    pub kernel: KernelInfo,
    /// The pack and its fixture hash.
    pub pack: PackRef,
    /// The question.
    pub question: String,
    /// The validity rule.
    pub rule: String,
    /// The experiment the choices name.
    pub experiment: String,
    /// Every choice, in the pack's order.
    pub choices: Vec<ChoiceEvidence>,
    /// Ids of the valid choices.
    pub valid_choices: Vec<String>,
    /// Canonical hash of everything above (the evaluation does not depend on the answer).
    pub result_hash: String,
    /// The scored answer, when one was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<Answer>,
}

/// A scored answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Answer {
    /// The chosen id.
    pub choice: String,
    /// Whether the rule accepts it.
    pub correct: bool,
}

/// One choice and the kernel's evidence for it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChoiceEvidence {
    /// The choice's id.
    pub id: String,
    /// What the learner read.
    pub text: String,
    /// The arm it names (or whose metric it names).
    pub arm: String,
    /// The metric it names, for metric choices.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metric: Option<String>,
    /// The arm's split counts.
    pub split: SplitSummary,
    /// What the arm's train and test share.
    pub overlap: Overlap,
    /// The arm's metrics.
    pub metrics: BTreeMap<String, MetricValue>,
    /// For metric choices: the metric's estimate against the majority-class baseline.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub separation: Option<Separation>,
    /// Whether the rule accepts this choice.
    pub valid: bool,
    /// Why (or why not), in one sentence built from the evidence.
    pub why: String,
}

/// A metric's 95% interval against what the majority-class baseline scores on it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Separation {
    /// The metric's value on the arm's test rows.
    pub value: f64,
    /// Its 95% interval (cluster-aware when test rows share entities).
    pub ci: [f64; 2],
    /// How the interval was computed.
    pub interval: crate::stats::IntervalMethod,
    /// The majority-class baseline's value of the same metric.
    pub baseline: f64,
    /// Where the baseline comes from.
    pub baseline_is: String,
}

/// Checks `[transfer]` against its experiment: an error about the pack's `pack.toml`
/// naming the key.
pub fn check_spec(spec: &TransferSpec, experiment: &Experiment, pack: &Pack) -> Result<()> {
    let manifest = pack.dir().join("pack.toml");
    let bad = |message: String| Err(Error::pack(&manifest, message));
    if spec.question.trim().is_empty() {
        return bad("transfer.question must not be empty".into());
    }
    if spec.choices.len() < 2 {
        return bad("transfer.choices: at least two choices".into());
    }
    if spec.rule == TransferRule::NoTemporalOverlap && pack.table().time().is_none() {
        return bad("transfer.rule no_temporal_overlap needs a pack with a time column".into());
    }
    // The rule compares each test row's time with the latest training time of every
    // entity; an order within each entity (visit 3 of one patient is not later than visit
    // 2 of another) gives that comparison no meaning, as it gives audit's leak none.
    if spec.rule == TransferRule::NoTemporalOverlap && !pack.manifest().data.time_kind.is_calendar()
    {
        return bad(format!(
            "transfer.rule no_temporal_overlap compares times across entities, but data.time_kind is {:?} (an order within each entity is not compared across entities): set data.time_kind = \"calendar\" if the time is one calendar for all entities, or judge the choices by another rule (no_entity_overlap)",
            pack.manifest().data.time_kind.as_str()
        ));
    }
    for (i, choice) in spec.choices.iter().enumerate() {
        let at = format!("transfer.choices[{i}]");
        if choice.id.is_empty()
            || !choice
                .id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            return bad(format!("{at}.id {:?} must match [A-Za-z0-9_-]+", choice.id));
        }
        if spec.choices[..i].iter().any(|c| c.id == choice.id) {
            return bad(format!("{at}.id {:?} appears twice", choice.id));
        }
        if let Some(arm) = &choice.arm {
            if !experiment.arms.iter().any(|a| &a.name == arm) {
                return bad(format!("{at}.arm {arm:?} is not an arm of the experiment"));
            }
        } else if experiment.arms.len() != 1 {
            return bad(format!(
                "{at}.arm is required: the experiment has {} arms",
                experiment.arms.len()
            ));
        }
        match (spec.rule, choice.metric) {
            (TransferRule::SeparatesFromBaseline, None) => {
                return bad(format!(
                    "{at}.metric is required by rule separates_from_baseline"
                ))
            }
            (TransferRule::NoTemporalOverlap | TransferRule::NoEntityOverlap, Some(_)) => {
                return bad(format!(
                    "{at}.metric: rule {} judges arms, not metrics",
                    spec.rule.as_str()
                ))
            }
            _ => {}
        }
    }
    Ok(())
}

/// Whether `choice` is one of the pack's transfer choices: an error listing the choices
/// when it is not (a pack without a transfer task accepts any, and `evaluate` says why).
pub fn check_choice(pack: &Pack, choice: &str) -> Result<()> {
    match &pack.manifest().transfer {
        Some(spec) if !spec.choices.iter().any(|c| c.id == choice) => {
            let known: Vec<&str> = spec.choices.iter().map(|c| c.id.as_str()).collect();
            Err(Error::invalid(format!(
                "no choice {choice:?} in pack {}: the choices are {}",
                pack.id(),
                known.join(", ")
            )))
        }
        _ => Ok(()),
    }
}

/// Evaluates the pack's transfer task (every choice), and scores `choice` when given.
pub fn evaluate(pack: &Pack, choice: Option<&str>, threads: usize) -> Result<TransferEvaluation> {
    let manifest_path = pack.dir().join("pack.toml");
    let spec = pack
        .manifest()
        .transfer
        .clone()
        .ok_or_else(|| Error::pack(&manifest_path, "the pack declares no [transfer] task"))?;
    let experiment = Experiment::registered(pack, &spec.experiment)?;
    check_spec(&spec, &experiment, pack)?;
    if let Some(id) = choice {
        check_choice(pack, id)?;
    }
    let prepared = PreparedExperiment::new(pack, pack.table(), &experiment, threads)?;
    let observed = prepared.evaluate(pack.table().labels(), threads)?;
    let choices = spec
        .choices
        .iter()
        .map(|c| choice_evidence(pack, &spec, &experiment, &observed, c))
        .collect::<Result<Vec<_>>>()?;
    let valid_choices: Vec<String> = choices
        .iter()
        .filter(|c| c.valid)
        .map(|c| c.id.clone())
        .collect();
    if valid_choices.is_empty() {
        return Err(Error::pack(
            &manifest_path,
            "no choice of the transfer task is valid by its rule: the task has no right answer",
        ));
    }
    let mut evaluation = TransferEvaluation {
        format: TRANSFER_FORMAT.to_owned(),
        kernel: KernelInfo::this(),
        pack: PackRef::of(pack),
        question: spec.question.clone(),
        rule: spec.rule.as_str().to_owned(),
        experiment: spec.experiment.clone(),
        choices,
        valid_choices,
        result_hash: String::new(),
        answer: None,
    };
    let mut value = canon::to_value(&evaluation)?;
    if let Value::Object(map) = &mut value {
        map.remove("result_hash");
        map.remove("answer");
    }
    evaluation.result_hash = canon::hash_value(HashKind::Transfer, &value);
    evaluation.answer = choice.map(|id| Answer {
        choice: id.to_owned(),
        correct: evaluation.valid_choices.iter().any(|v| v == id),
    });
    Ok(evaluation)
}

/// One choice with the kernel's evidence for it (the arm it names, by default the
/// experiment's only one) and whether the task's rule accepts it.
fn choice_evidence(
    pack: &Pack,
    spec: &TransferSpec,
    experiment: &Experiment,
    observed: &Evaluation,
    c: &TransferChoice,
) -> Result<ChoiceEvidence> {
    let arm = c
        .arm
        .clone()
        .unwrap_or_else(|| experiment.arms[0].name.clone());
    let result = &observed.results[&arm];
    let separation = match c.metric {
        Some(metric) => Some(separation(pack, observed, &arm, metric)?),
        None => None,
    };
    let (valid, why) = judge(spec.rule, result, separation.as_ref(), c.metric);
    Ok(ChoiceEvidence {
        id: c.id.clone(),
        text: c.text.clone(),
        arm,
        metric: c.metric.map(|m| m.as_str().to_owned()),
        split: result.split.clone(),
        overlap: result.overlap.clone(),
        metrics: result.metrics.clone(),
        separation,
        valid,
        why,
    })
}

/// The metric's interval on the arm's test rows against the majority-class baseline's
/// value of the same metric.
fn separation(
    pack: &Pack,
    observed: &Evaluation,
    arm: &str,
    metric: MetricName,
) -> Result<Separation> {
    let table = pack.table();
    let p = observed
        .predictions
        .get(arm)
        .expect("checked: the arm exists");
    let estimate = intervals::estimate_arm(metric, p, table, intervals::Z95).map_err(|m| {
        Error::invalid(format!(
            "{} of arm {arm:?} is undefined: {m}",
            metric.as_str()
        ))
    })?;
    let (baseline, baseline_is) = match metric {
        MetricName::Accuracy | MetricName::MajorityBaselineAccuracy => {
            let m = p.metrics(&[MetricName::MajorityBaselineAccuracy]);
            let value = m
                .get(MetricName::MajorityBaselineAccuracy.as_str())
                .and_then(MetricValue::value)
                .ok_or_else(|| Error::invalid("the majority baseline is undefined"))?;
            (
                value,
                "majority_baseline_accuracy: always predict the training majority class",
            )
        }
        MetricName::RocAuc => (
            0.5,
            "0.5: a constant score ranks no positive above a negative",
        ),
        MetricName::BalancedAccuracy => (0.5, "0.5: one class predicted for every row"),
        MetricName::AccuracyLift => (0.0, "0: the majority baseline's lift over itself"),
    };
    Ok(Separation {
        value: estimate.value,
        ci: [estimate.ci.0, estimate.ci.1],
        interval: estimate.method,
        baseline,
        baseline_is: baseline_is.to_owned(),
    })
}

/// The rule's verdict on one choice, with a sentence built from the evidence.
fn judge(
    rule: TransferRule,
    result: &run::ArmResult,
    separation: Option<&Separation>,
    metric: Option<MetricName>,
) -> (bool, String) {
    match rule {
        TransferRule::NoTemporalOverlap => match result.overlap.temporal_rows {
            Some(0) => (
                true,
                "every test row comes after the latest training row".to_owned(),
            ),
            Some(n) => (
                false,
                format!(
                    "{n} of {} test rows are not after the latest training row: the model is tested on the past it was trained on",
                    result.split.test_rows
                ),
            ),
            None => (false, "the pack has no time column".to_owned()),
        },
        TransferRule::NoEntityOverlap => match result.overlap.entities {
            0 => (
                true,
                "no entity has rows in both training and test".to_owned(),
            ),
            n => (
                false,
                format!(
                    "{n} of {} test entities also have rows in training",
                    result.split.test_entities
                ),
            ),
        },
        TransferRule::SeparatesFromBaseline => {
            let s = separation.expect("checked: metric choices have a separation");
            let name = metric.map_or("the metric", MetricName::as_str);
            if s.ci[0] > s.baseline {
                (
                    true,
                    format!(
                        "{name} {:.4}, 95% CI [{:.4}, {:.4}], lies above the baseline's {:.4}",
                        s.value, s.ci[0], s.ci[1], s.baseline
                    ),
                )
            } else {
                (
                    false,
                    format!(
                        "{name} {:.4}, 95% CI [{:.4}, {:.4}], does not lie above the baseline's {:.4}",
                        s.value, s.ci[0], s.ci[1], s.baseline
                    ),
                )
            }
        }
    }
}
