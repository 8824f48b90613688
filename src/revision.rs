//! Revision checks (`counterlab verify-revision`): after a REJECTED verdict a proposer may
//! revise the payload at most twice, and only by changing the evaluation design.
//!
//! A chain of payloads `P0 → P1 (→ P2)` is judged step by step by the chain's rules (the
//! patch verifier's: a repair only after a rejection, never a change of the conclusion):
//!
//! 1. **Only after REJECTED.** Each revised payload must have been answered REJECTED,
//!    as the last payload of the chain that ended with it (so `P1` at the level of a chain
//!    with one revision). A revision after SUPPORTS or INCONCLUSIVE is refused: trying
//!    again after an undecided answer is shopping for a better one.
//! 2. **The claim is fixed.** The claim of every payload is the first payload's, exactly
//!    (kind, metric, the arms it names, direction, threshold): the prediction fixed it.
//!    The pack (id, fixture hash, manifest hash), the seed (the selector derived it), the
//!    metrics and the format are fixed too.
//! 3. **A design change, not a rename.** Steps are compared on the revision normal form
//!    (below): the arms the claim names by their role, every other arm and every ablation
//!    by content, sets sorted, defaults resolved. A step must change the model, the
//!    features, an arm's split or the ablations; renaming arms or ablations, reordering
//!    lists or spelling out defaults changes nothing there.
//! 4. **Eligible again.** Every revised design passes the selector's rules 3–7 for the
//!    claim ([`crate::select::eligibility`]: valid, same claim, a control arm, an
//!    identity ablation, held-out entities).
//! 5. **A familywise level.** The last payload of a chain with `r` revisions is verified
//!    as one of a family of `r + 1` tests: at α/(r + 1), with the two-sided
//!    (1 − 0.05/(r + 1)) interval (Bonferroni), stated in its report's claim (`family`,
//!    `alpha`) and in the chain's `family`.
//!
//! A refused chain is REJECTED with the reason and its witness (a JSON path of the
//! revision normal form, or the payload that shows it). Otherwise the answer is the
//! verifier's report on the last payload, so SUPPORTS still comes only from
//! [`crate::verify()`]. A chain whose pack this verifier does not have cannot be judged:
//! the rules that read the pack (1 and 4) are skipped and the answer is the last
//! payload's report, which is INCONCLUSIVE (unsupported pack), never a refusal.
//!
//! **The revision normal form** of a payload is `{"pack", "experiment"}` with the
//! experiment as `format`, `pack`, `seed`, `model`, `features` (sorted; the pack's when
//! left out), `metrics` (sorted), `claim` (as written), `arms` (`{"higher", "lower"}` or
//! `{"arm"}`: the splits of the arms the claim names, by role; `others`: the other arms'
//! splits, sorted) and `ablations` (each drop set sorted, the list sorted). Splits are in
//! their normal form ([`crate::experiment::SplitSpec::normal_form`]).

use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::canon::{self, HashKind};
use crate::experiment::{Claim, Experiment};
use crate::pack::{Lookup, Pack, Packs};
use crate::select::Ineligible;
use crate::verify::{verify, Counterexample, Report, Verdict, VerifyOptions};

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
    /// The stated conclusion: fixed by the prediction.
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

/// One changed leaf between two payloads' revision normal forms.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// JSON path in the revision normal form (`$.experiment.arms.lower.test_fraction`).
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
    /// The verdict each revised payload had (payload `i` as the last of a chain of `i`
    /// revisions), as far as the chain was checked; empty when the pack is not here.
    pub revised_verdicts: Vec<&'static str>,
    /// Why the chain is refused (None: not refused, and the verdict is the report's).
    pub refusal: Option<Refusal>,
    /// The verifier's report on the last payload, when the chain is not refused.
    pub report: Option<Report>,
    /// The α the family's α was divided from (the options' α).
    alpha: f64,
}

impl RevisionReport {
    /// The last payload's verdict, or REJECTED with the refusal as the counterexample.
    pub fn verdict(&self) -> Verdict {
        match (&self.refusal, &self.report) {
            (None, Some(report)) => report.verdict().clone(),
            (refusal, _) => Verdict::Rejected {
                counterexamples: refusal
                    .iter()
                    .map(|r| Counterexample {
                        invariant: "revision.chain".into(),
                        observed: json!(r.reason),
                        expected: json!("a chain the rules allow"),
                        witness: json!({ "path": r.witness }),
                    })
                    .collect(),
            },
        }
    }

    /// Tests the last payload's decision is one of: revisions + 1.
    pub fn family(&self) -> u32 {
        self.revisions as u32 + 1
    }

    /// The report as JSON (`counterlab.revision/1`), with its canonical hash.
    pub fn to_json(&self) -> Value {
        let document = RevisionDocument {
            format: REVISION_FORMAT,
            verdict: self.verdict(),
            revisions: self.revisions,
            steps: self
                .steps
                .iter()
                .enumerate()
                .map(|(i, changes)| StepDocument {
                    from: i,
                    to: i + 1,
                    changes_total: changes.len(),
                    changes: changes
                        .iter()
                        .take(CHANGES_SHOWN)
                        .map(|c| ChangeDocument {
                            path: &c.path,
                            scope: c.scope.as_str(),
                            before: &c.before,
                            after: &c.after,
                        })
                        .collect(),
                })
                .collect(),
            revised_verdicts: &self.revised_verdicts,
            family: Family {
                tests: self.family(),
                rule: "bonferroni",
                alpha: self.alpha / f64::from(self.family()),
            },
            refusal: self.refusal.as_ref(),
            report: self.report.as_ref().map(Report::to_json),
        };
        let mut value = serde_json::to_value(&document).expect("a revision report encodes");
        let hash = canon::hash_value(HashKind::Revision, &value);
        value["revision_hash"] = json!(hash);
        value
    }
}

/// `counterlab.revision/1` as written, without its hash (docs/revision.schema.json).
#[derive(Serialize)]
struct RevisionDocument<'a> {
    format: &'static str,
    verdict: Verdict,
    revisions: usize,
    steps: Vec<StepDocument<'a>>,
    revised_verdicts: &'a [&'static str],
    family: Family,
    refusal: Option<&'a Refusal>,
    report: Option<Value>,
}

#[derive(Serialize)]
struct StepDocument<'a> {
    from: usize,
    to: usize,
    changes_total: usize,
    changes: Vec<ChangeDocument<'a>>,
}

#[derive(Serialize)]
struct ChangeDocument<'a> {
    path: &'a str,
    scope: &'static str,
    before: &'a Value,
    after: &'a Value,
}

/// The familywise rule the last payload was decided by.
#[derive(Serialize)]
struct Family {
    tests: u32,
    rule: &'static str,
    alpha: f64,
}

/// Why a chain is refused, and the JSON path (of the revision normal form) or the payload
/// that shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Refusal {
    /// Why, in words.
    pub reason: String,
    /// A JSON path or `payload <i>`.
    pub witness: String,
}

impl Refusal {
    fn new(reason: String, witness: impl Into<String>) -> Refusal {
        Refusal {
            reason,
            witness: witness.into(),
        }
    }
}

/// Checks the revision chain `payloads[0] → payloads[1] (→ …)` and verifies the last one
/// (module docs).
pub fn verify_revision(
    payloads: &[&[u8]],
    packs: &Packs,
    options: &VerifyOptions,
) -> RevisionReport {
    verify_revision_with(payloads, packs, options, Vec::new())
}

/// [`verify_revision`] given the reports already made of the chain's first payloads
/// (`verified[i]`: payload `i` verified as the last of a chain of `i` revisions, with
/// `options`), so a capsule that verified them does not verify them again.
pub fn verify_revision_with(
    payloads: &[&[u8]],
    packs: &Packs,
    options: &VerifyOptions,
    mut verified: Vec<Report>,
) -> RevisionReport {
    let mut report = RevisionReport {
        revisions: payloads.len().saturating_sub(1),
        steps: Vec::new(),
        revised_verdicts: Vec::new(),
        refusal: None,
        report: None,
        alpha: options.alpha,
    };
    if let Some(refusal) = chain_length_refusal(payloads.len()) {
        report.refusal = Some(refusal);
        return report;
    }
    let mut read = Vec::with_capacity(payloads.len());
    for (i, bytes) in payloads.iter().enumerate() {
        match readable(bytes, options.max_payload_bytes) {
            Ok(parts) => read.push(parts),
            Err(e) => {
                report.refusal = Some(Refusal::new(
                    format!("payload {i} cannot be read: {}", e.reason),
                    e.witness,
                ));
                return report;
            }
        }
    }
    let pack = match packs.lookup(&read[0].experiment.pack) {
        Lookup::Loaded(pack) => Some(pack),
        _ => None,
    };
    let pack_features = pack.map_or(&[][..], |p| p.manifest().data.features.as_slice());
    let forms: Vec<Value> = read.iter().map(|r| r.normal_form(pack_features)).collect();
    let claim = read[0].experiment.claim.clone();
    for i in 1..read.len() {
        let mut changes = Vec::new();
        diff("$", &forms[i - 1], &forms[i], &mut changes);
        report.steps.push(changes);
        if report.refusal.is_some() {
            continue;
        }
        report.refusal = step_refusal(i, &report.steps[i - 1]).or_else(|| {
            let (pack, claim) = (pack?, claim.as_ref());
            eligibility_refusal(i, pack, claim, &read[i].experiment)
        });
        if report.refusal.is_some() || pack.is_none() {
            continue;
        }
        // Rule 1, last: it costs a verification.
        if verified.len() < i {
            let level = family_options(options, i - 1);
            verified.push(verify(payloads[i - 1], packs, &level));
        }
        let before = verified[i - 1].verdict();
        report.revised_verdicts.push(before.as_str());
        if !before.is_rejected() {
            let before = before.as_str();
            report.refusal = Some(Refusal::new(
                format!(
                    "revision {i} follows a {before} verdict of payload {}: a revision is allowed only after REJECTED (trying again after an undecided or supported answer is shopping for another)",
                    i - 1
                ),
                format!("payload {}", i - 1),
            ));
        }
    }
    if report.refusal.is_none() {
        let last = payloads.len() - 1;
        report.report = Some(match verified.get(last) {
            Some(known) => known.clone(),
            None => verify(payloads[last], packs, &family_options(options, last)),
        });
    }
    report
}

/// `options` for the last payload of a chain with `revisions` revisions.
pub fn family_options(options: &VerifyOptions, revisions: usize) -> VerifyOptions {
    VerifyOptions {
        family: revisions as u32 + 1,
        ..options.clone()
    }
}

fn chain_length_refusal(payloads: usize) -> Option<Refusal> {
    if payloads < 2 {
        return Some(Refusal::new(
            "a revision needs two payloads: before and after".into(),
            "$",
        ));
    }
    let revisions = payloads - 1;
    (revisions > MAX_REVISIONS).then(|| {
        Refusal::new(
            format!("{revisions} revisions: at most {MAX_REVISIONS} are allowed after a REJECTED verdict"),
            format!("payload {}", MAX_REVISIONS + 1),
        )
    })
}

/// Rules 2 and 3 on step `i`'s changes.
fn step_refusal(i: usize, changes: &[Change]) -> Option<Refusal> {
    if let Some(change) = changes.iter().find(|c| c.scope == Scope::OutOfScope) {
        return Some(Refusal::new(
            format!(
                "revision {i}: {} changed, which a revision may not change (the pack, the fixture, the seed, the metrics and the format are fixed; only the design may change)",
                change.path
            ),
            change.path.clone(),
        ));
    }
    if let Some(change) = changes.iter().find(|c| c.scope == Scope::Claim) {
        return Some(Refusal::new(
            format!(
                "revision {i}: {} changed: the claim is the one the prediction fixed (its kind, metric, arms, direction and threshold), and a revision may change only the design",
                change.path
            ),
            change.path.clone(),
        ));
    }
    if changes.is_empty() {
        return Some(Refusal::new(
            format!("revision {i}: nothing changed in the design (renaming arms or ablations, reordering lists and spelling out defaults are not design changes)"),
            "$",
        ));
    }
    None
}

/// Rule 4: the revised experiment passes the selector's rules again.
fn eligibility_refusal(
    i: usize,
    pack: &Pack,
    claim: Option<&Claim>,
    experiment: &Experiment,
) -> Option<Refusal> {
    let Some(claim) = claim else {
        return Some(Refusal::new(
            format!("revision {i}: the chain's first payload has no claim, so there is no rejected claim to revise the design of"),
            "$.experiment.claim",
        ));
    };
    crate::select::eligibility(pack, claim, experiment)
        .err()
        .map(|Ineligible { rule, why }| {
            Refusal::new(
                format!("revision {i}: the revised design fails the selector's rule {rule}: {why}"),
                format!("payload {i}"),
            )
        })
}

/// A payload's parts a revision is judged on.
struct Readable {
    pack: Value,
    experiment: Experiment,
}

impl Readable {
    /// The revision normal form (module docs): the design normal form
    /// ([`crate::design::normal_form`]; `pack_features` resolve an experiment without
    /// `features`, none when the pack is not here) with the arms the claim names keyed by
    /// role, and the seed and the claim as written.
    fn normal_form(&self, pack_features: &[String]) -> Value {
        let e = &self.experiment;
        let mut arms = Map::new();
        let mut others = Vec::new();
        for arm in &e.arms {
            match e.claim.as_ref().and_then(|c| role_of(c, &arm.name)) {
                Some(role) => {
                    arms.insert(role.to_owned(), arm.normal_form());
                }
                None => others.push(arm.normal_form()),
            }
        }
        crate::design::sort_canonically(&mut others);
        arms.insert("others".into(), Value::Array(others));
        let mut form = crate::design::normal_form(e, pack_features);
        form["arms"] = Value::Object(arms);
        form["seed"] = json!(e.seed);
        form["claim"] = e.claim.as_ref().map_or(Value::Null, |c| {
            canon::to_value(c).expect("a claim encodes")
        });
        json!({ "pack": self.pack, "experiment": form })
    }
}

/// The claim's role for the arm named `name` (`higher`, `lower`, `arm`), if it names it.
fn role_of(claim: &Claim, name: &str) -> Option<&'static str> {
    match claim {
        Claim::MetricGap { higher, .. } if higher == name => Some("higher"),
        Claim::MetricGap { lower, .. } if lower == name => Some("lower"),
        Claim::MetricAtLeast { arm, .. } | Claim::MetricAtMost { arm, .. } if arm == name => {
            Some("arm")
        }
        _ => None,
    }
}

/// The parts of a payload a revision is judged on: its `pack` object and its experiment.
/// An error's `witness` is the JSON path of the problem.
fn readable(bytes: &[u8], max_bytes: usize) -> Result<Readable, Refusal> {
    if bytes.len() > max_bytes {
        return Err(Refusal::new(
            format!(
                "{} bytes, over the payload budget of {max_bytes}",
                bytes.len()
            ),
            "$",
        ));
    }
    let value = crate::json::parse_strict(bytes)
        .map_err(|e| Refusal::new(e.message, e.path.to_string()))?;
    let experiment = value
        .get("experiment")
        .ok_or_else(|| Refusal::new("missing".into(), "$.experiment"))?;
    let experiment = Experiment::from_value(experiment).map_err(|e| {
        let violation = crate::verify::experiment_error_at(&e);
        Refusal::new(violation.message, violation.path.to_string())
    })?;
    let pack = value
        .get("pack")
        .filter(|p| p.is_object())
        .ok_or_else(|| Refusal::new("missing or not an object".into(), "$.pack"))?
        .clone();
    Ok(Readable { pack, experiment })
}

/// What a changed path is (see the module docs).
fn scope_of(path: &str) -> Scope {
    let under = |prefix: &str| {
        path == prefix
            || path.starts_with(&format!("{prefix}."))
            || path.starts_with(&format!("{prefix}["))
    };
    if under("$.experiment.claim") {
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
