//! Revision checks (`counterlab verify-revision`): after a REJECTED verdict a proposer may
//! revise the payload at most twice, and only by changing the evaluation design.
//!
//! A chain of payloads `P0 → P1 (→ P2)` is compared step by step on the experiment each
//! ran (the parsed IR, re-encoded, so formatting and omitted optional keys do not count)
//! and on the pack it ran on. Every changed leaf is classified:
//!
//! - **design**: `model`, `features`, `arms`, `ablations` — what the revision may change;
//! - **claim**: `claim` (its kind, arms, threshold or direction), except its metric;
//! - **out of scope**: the pack (id, fixture hash, manifest hash), `seed`, `metrics` and the
//!   claim's `metric` — changing them is picking the data, the randomness or the yardstick
//!   after seeing a result.
//!
//! The chain is REJECTED when it has more than [`MAX_REVISIONS`] revisions, when a step
//! changes anything out of scope, or when a step changes no design field (a
//! conclusion-only revision: the same evaluation, another conclusion; or no change at
//! all). Otherwise the answer is the verifier's report on the last payload, so SUPPORTS
//! still comes only from [`crate::verify()`]. A payload that cannot be read as one is
//! REJECTED with the JSON path, as `verify` does.

use serde_json::{json, Value};

use crate::canon::{self, HashKind};
use crate::experiment::Experiment;
use crate::pack::Packs;
use crate::verify::{verify, Report, VerifyOptions};

/// The document a revision check answers with.
pub const REVISION_FORMAT: &str = "counterlab.revision/1";
/// Most revisions a chain may hold (a chain of at most three payloads).
pub const MAX_REVISIONS: usize = 2;
/// Changes listed per step (the total is always given).
pub const CHANGES_SHOWN: usize = 20;

/// What a changed field of a revision is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Scope {
    /// The evaluation design: what a revision may change.
    Design,
    /// The stated conclusion.
    Claim,
    /// Data, randomness or yardstick: never changed by a revision.
    OutOfScope,
}

impl Scope {
    /// As written in the report.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Design => "design",
            Scope::Claim => "claim",
            Scope::OutOfScope => "out_of_scope",
        }
    }
}

/// One changed leaf between two payloads.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// JSON path in the payload (`$.experiment.arms[1].split.test_fraction`).
    pub path: String,
    /// What the field is.
    pub scope: Scope,
    /// Its value before (null when absent).
    pub before: Value,
    /// Its value after (null when absent).
    pub after: Value,
}

/// The answer of a revision check.
#[derive(Debug, Clone)]
pub struct RevisionReport {
    /// Revisions in the chain (payloads − 1).
    pub revisions: usize,
    /// Per step, its changes (all of them; the JSON lists the first [`CHANGES_SHOWN`]).
    pub steps: Vec<Vec<Change>>,
    /// Why the chain is refused, with the JSON path or step that shows it (None: not
    /// refused, and the verdict is the report's).
    pub refusal: Option<(String, String)>,
    /// The verifier's report on the last payload, when the chain is not refused.
    pub report: Option<Report>,
}

impl RevisionReport {
    /// `SUPPORTS`, `INCONCLUSIVE` or `REJECTED`.
    pub fn verdict(&self) -> &'static str {
        match (&self.refusal, &self.report) {
            (None, Some(report)) => report.verdict().as_str(),
            _ => "REJECTED",
        }
    }

    /// The report as JSON (`counterlab.revision/1`), with its canonical hash.
    pub fn to_json(&self) -> Value {
        let steps: Vec<Value> = self
            .steps
            .iter()
            .enumerate()
            .map(|(i, changes)| {
                json!({
                    "from": i,
                    "to": i + 1,
                    "changes_total": changes.len(),
                    "changes": changes.iter().take(CHANGES_SHOWN).map(|c| json!({
                        "path": c.path, "scope": c.scope.as_str(), "before": c.before, "after": c.after,
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        let mut value = json!({
            "format": REVISION_FORMAT,
            "verdict": self.verdict(),
            "revisions": self.revisions,
            "steps": steps,
            "refusal": self.refusal.as_ref().map(|(reason, witness)| json!({"reason": reason, "witness": witness})),
            "report": self.report.as_ref().map(Report::to_json),
        });
        let hash = canon::hash_value(HashKind::Revision, &value);
        value["revision_hash"] = json!(hash);
        value
    }
}

/// Checks the revision chain `payloads[0] → payloads[1] (→ …)` and verifies the last one.
pub fn verify_revision(
    payloads: &[&[u8]],
    packs: &Packs,
    options: &VerifyOptions,
) -> RevisionReport {
    let mut report = RevisionReport {
        revisions: payloads.len().saturating_sub(1),
        steps: Vec::new(),
        refusal: None,
        report: None,
    };
    if payloads.len() < 2 {
        report.refusal = Some((
            "a revision needs two payloads: before and after".into(),
            "$".into(),
        ));
        return report;
    }
    if report.revisions > MAX_REVISIONS {
        report.refusal = Some((
            format!(
                "{} revisions: at most {MAX_REVISIONS} are allowed after a REJECTED verdict",
                report.revisions
            ),
            format!("payload {}", MAX_REVISIONS + 1),
        ));
        return report;
    }
    let mut read = Vec::with_capacity(payloads.len());
    for (i, bytes) in payloads.iter().enumerate() {
        match comparable(bytes, options.max_payload_bytes) {
            Ok(value) => read.push(value),
            Err((path, message)) => {
                report.refusal = Some((format!("payload {i} cannot be read: {message}"), path));
                return report;
            }
        }
    }
    for (i, pair) in read.windows(2).enumerate() {
        let mut changes = Vec::new();
        diff("$", &pair[0], &pair[1], &mut changes);
        let out_of_scope = changes
            .iter()
            .find(|c| c.scope == Scope::OutOfScope)
            .cloned();
        let design = changes.iter().any(|c| c.scope == Scope::Design);
        report.steps.push(changes);
        if report.refusal.is_some() {
            continue;
        }
        if let Some(change) = out_of_scope {
            report.refusal = Some((
                format!(
                    "revision {}: {} changed, which a revision may not change (the pack, the fixture, the seed, the metrics and the claim's metric are fixed; only the design may change)",
                    i + 1,
                    change.path
                ),
                change.path,
            ));
        } else if !design {
            let witness = report.steps[i]
                .first()
                .map_or_else(|| "$".to_owned(), |c| c.path.clone());
            report.refusal = Some((
                if report.steps[i].is_empty() {
                    format!("revision {}: nothing changed", i + 1)
                } else {
                    format!(
                        "revision {}: a conclusion-only revision: the claim changed and the evaluation design (model, features, arms, ablations) did not",
                        i + 1
                    )
                },
                witness,
            ));
        }
    }
    if report.refusal.is_none() {
        let last = payloads[payloads.len() - 1];
        report.report = Some(verify(last, packs, options));
    }
    report
}

/// The parts of a payload a revision is judged on: `{"pack", "experiment"}`, the
/// experiment as the parsed IR re-encoded.
fn comparable(bytes: &[u8], max_bytes: usize) -> Result<Value, (String, String)> {
    if bytes.len() > max_bytes {
        return Err((
            "$".into(),
            format!(
                "{} bytes, over the payload budget of {max_bytes}",
                bytes.len()
            ),
        ));
    }
    let value = crate::json::parse_strict(bytes).map_err(|e| (e.path, e.message))?;
    let experiment = value
        .get("experiment")
        .ok_or_else(|| ("$.experiment".to_owned(), "missing".to_owned()))?;
    let experiment =
        Experiment::from_value(experiment).map_err(|e| crate::verify::experiment_error_at(&e))?;
    let pack = value
        .get("pack")
        .filter(|p| p.is_object())
        .ok_or_else(|| ("$.pack".to_owned(), "missing or not an object".to_owned()))?;
    Ok(json!({
        "pack": pack,
        "experiment": serde_json::to_value(&experiment).expect("an experiment serialises"),
    }))
}

/// What a changed path is (see the module docs).
fn scope_of(path: &str) -> Scope {
    let under = |prefix: &str| {
        path == prefix
            || path.starts_with(&format!("{prefix}."))
            || path.starts_with(&format!("{prefix}["))
    };
    if under("$.experiment.claim.metric") {
        Scope::OutOfScope
    } else if under("$.experiment.claim") {
        Scope::Claim
    } else if ["model", "features", "arms", "ablations"]
        .iter()
        .any(|k| under(&format!("$.experiment.{k}")))
    {
        Scope::Design
    } else {
        // $.pack.*, $.experiment.pack, seed, metrics, format, anything new.
        Scope::OutOfScope
    }
}

/// Every leaf that differs between `a` and `b` under `path` (objects by key, arrays by
/// index; a missing side is null).
fn diff(path: &str, a: &Value, b: &Value, out: &mut Vec<Change>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for key in keys {
                let child = format!("{path}.{key}");
                diff(
                    &child,
                    x.get(key).unwrap_or(&Value::Null),
                    y.get(key).unwrap_or(&Value::Null),
                    out,
                );
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            for i in 0..x.len().max(y.len()) {
                diff(
                    &format!("{path}[{i}]"),
                    x.get(i).unwrap_or(&Value::Null),
                    y.get(i).unwrap_or(&Value::Null),
                    out,
                );
            }
        }
        _ if a == b => {}
        _ => out.push(Change {
            path: path.to_owned(),
            scope: scope_of(path),
            before: a.clone(),
            after: b.clone(),
        }),
    }
}
