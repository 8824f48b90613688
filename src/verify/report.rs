//! The verifier's report: the verdict, every check, counters, the claim's evidence and
//! hashes. Its JSON form (`counterlab.report/1`) is documented in docs/VERDICTS.md and
//! docs/report.schema.json.

use serde::Serialize;
use serde_json::{json, Value};

use super::{rules_hash, Mode, Verdict, VERIFIER_VERSION};
use crate::canon::{self, HashKind};
use crate::run::PackRef;
use crate::stats::ClaimReport;

/// The format tag of a report.
pub const REPORT_FORMAT: &str = "counterlab.report/1";

/// Largest encoded size of one counterexample, in bytes.
pub const MAX_COUNTEREXAMPLE_BYTES: usize = 1024;

/// A check's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Checked and held.
    Pass,
    /// Checked and did not hold: the payload is rejected.
    Fail,
    /// Could not be checked (budget, unsupported case, insufficient evidence).
    Unverifiable,
    /// Not run, with the reason (an earlier check stopped verification, or nothing to check).
    Skipped,
}

impl Status {
    /// As written in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Unverifiable => "unverifiable",
            Status::Skipped => "skipped",
        }
    }
}

/// A small, bounded witness that a check failed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Counterexample {
    /// The check (invariant) id.
    pub invariant: String,
    /// What the payload says (or what was observed).
    pub observed: Value,
    /// What the kernel computes (or what the invariant requires).
    pub expected: Value,
    /// A minimal witness: a JSON path, a mutation seed, an entity id.
    pub witness: Value,
}

impl Counterexample {
    pub(crate) fn new(
        invariant: super::CheckId,
        observed: Value,
        expected: Value,
        witness: Value,
    ) -> Self {
        Counterexample {
            invariant: invariant.as_str().to_owned(),
            observed,
            expected,
            witness,
        }
    }

    /// Shrinks the counterexample under [`MAX_COUNTEREXAMPLE_BYTES`]: long values are
    /// replaced by a truncated rendering (lossy by design: no fixture dumps in reports).
    pub(crate) fn bounded(mut self) -> Self {
        for budget in [300usize, 120, 40] {
            if serde_json::to_vec(&self).map_or(0, |b| b.len()) <= MAX_COUNTEREXAMPLE_BYTES {
                break;
            }
            self.observed = shorten(&self.observed, budget);
            self.expected = shorten(&self.expected, budget);
            self.witness = shorten(&self.witness, budget);
        }
        self
    }
}

fn shorten(value: &Value, max_chars: usize) -> Value {
    let text = value.to_string();
    if text.chars().count() <= max_chars {
        return value.clone();
    }
    let cut: String = text.chars().take(max_chars).collect();
    json!(format!("{cut}… (truncated)"))
}

/// One check in a report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Check {
    /// Stable id, e.g. `recompute.equal`.
    pub id: String,
    /// Outcome.
    pub status: Status,
    /// Why, for everything but a plain pass.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// At most three, each under 1 KiB.
    pub counterexamples: Vec<Counterexample>,
}

/// What a verification established about its claim ([`Report::established`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Established {
    /// The claim holds: the verdict is SUPPORTS.
    Holds(super::Supports),
    /// The claim does not hold: the evidence contradicts it and nothing else failed.
    DoesNotHold(super::Supports),
    /// Neither: undecided, undefined, a budget, an unsupported case or a failed check.
    Neither,
}

/// How many checks ended how.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Counters {
    /// Checks that ran (pass + fail + unverifiable).
    pub run: u64,
    /// Passed.
    pub passed: u64,
    /// Failed.
    pub failed: u64,
    /// Unverifiable.
    pub unverifiable: u64,
    /// Skipped.
    pub skipped: u64,
}

/// The claim's permutation null as measured: what `verify --svg` draws. Not part of the
/// report's JSON (and so not of its hash): it is the raw material behind `claim.p_value`.
/// A view into the [`Report`]: the statistic's name, the null's kind, the threshold and the
/// p-value are read from the claim it belongs to, so they cannot disagree with it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NullDistribution<'a> {
    /// The claim the null was measured for (`claim` in the report's JSON).
    pub claim: &'a ClaimReport,
    /// The kernel's observed statistic, `claim.observed` (a null is only measured for a
    /// defined statistic).
    pub observed: f64,
    /// The statistic under each non-vacuous permutation, in permutation order.
    pub values: &'a [f64],
}

/// A fact about an arm's evaluation that a verdict does not show: its test rows were seen
/// in training (their entities, or later times), so its metrics describe rows the model
/// already knew something about (docs/VERDICTS.md, "What a SUPPORTS does not prove").
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Caveat {
    /// The arm.
    pub arm: String,
    /// `shared_entities` (test rows' entities also have training rows; for a
    /// cross-validation arm, in some fold), `temporal_overlap` (test rows at or before the
    /// latest training time) or `look_alike_entities` (test entities with no training row
    /// whose id looks like a training entity's id: [`crate::entity_key`]).
    pub kind: String,
    /// Shared entities, overlapping test rows, or look-alike test entities.
    pub count: u64,
    /// The first shared entity in canonical order (`shared_entities`), or the test id of
    /// the first look-alike pair in byte order (`look_alike_entities`).
    pub witness: Option<String>,
    /// The training id the witness looks like (`look_alike_entities` only; absent from the
    /// JSON otherwise, so the reports of the other kinds keep their bits).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub look_alike: Option<String>,
    /// Whether the payload's claim names this arm.
    pub claimed: bool,
}

impl Caveat {
    /// One line for people.
    pub fn describe(&self) -> String {
        match self.kind.as_str() {
            "shared_entities" => format!(
                "arm {}: its test rows belong to {} entities that also have training rows (e.g. {:?}): the model saw them",
                self.arm,
                self.count,
                self.witness.as_deref().unwrap_or_default()
            ),
            "look_alike_entities" => format!(
                "arm {}: {} test entities have no training row but an id that looks like a training entity's id (e.g. {} ~ {}): if they are one entity written two ways, the model saw them",
                self.arm,
                self.count,
                crate::entity_key::quoted(self.witness.as_deref().unwrap_or_default()),
                crate::entity_key::quoted(self.look_alike.as_deref().unwrap_or_default())
            ),
            _ => format!(
                "arm {}: {} test rows are at or before the latest training time: the model was trained on later data",
                self.arm, self.count
            ),
        }
    }
}

/// The verifier's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    verdict: Verdict,
    mode: Mode,
    payload_hash: String,
    pack: Option<PackRef>,
    checks: Vec<Check>,
    counters: Counters,
    claim: Option<ClaimReport>,
    caveats: Vec<Caveat>,
    report_hash: String,
    null_statistics: Vec<f64>,
}

impl Report {
    pub(crate) fn new(
        verdict: Verdict,
        mode: Mode,
        payload_hash: String,
        pack: Option<PackRef>,
        checks: Vec<Check>,
        claim: Option<ClaimReport>,
        caveats: Vec<Caveat>,
    ) -> Report {
        let count = |s: Status| checks.iter().filter(|c| c.status == s).count() as u64;
        let counters = Counters {
            run: count(Status::Pass) + count(Status::Fail) + count(Status::Unverifiable),
            passed: count(Status::Pass),
            failed: count(Status::Fail),
            unverifiable: count(Status::Unverifiable),
            skipped: count(Status::Skipped),
        };
        let mut report = Report {
            verdict,
            mode,
            payload_hash,
            pack,
            checks,
            counters,
            claim,
            caveats,
            report_hash: String::new(),
            null_statistics: Vec::new(),
        };
        let mut value = report.to_json();
        value
            .as_object_mut()
            .expect("an object")
            .remove("report_hash");
        report.report_hash = canon::hash_value(HashKind::Report, &value);
        report
    }

    /// What the verdict does not show about the arms (test rows seen in training), in arm
    /// order; empty for a boundary map and for a payload not recomputed.
    pub fn caveats(&self) -> &[Caveat] {
        &self.caveats
    }

    /// Attaches the claim's permutation null statistics (not hashed, not in the JSON).
    pub(crate) fn with_null_statistics(mut self, values: Vec<f64>) -> Report {
        self.null_statistics = values;
        self
    }

    /// The claim's permutation null, when the claim was evaluated with one and at least one
    /// permutation was non-vacuous (a claim whose every permutation is vacuous has p = 1 and
    /// nothing to draw).
    pub fn null_distribution(&self) -> Option<NullDistribution<'_>> {
        let claim = self.claim.as_ref()?;
        let observed = claim.observed?;
        (!self.null_statistics.is_empty()).then_some(NullDistribution {
            claim,
            observed,
            values: &self.null_statistics,
        })
    }

    /// The verdict.
    pub fn verdict(&self) -> &Verdict {
        &self.verdict
    }

    /// Enforce or observe.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Every check, in [`super::CHECK_IDS`] order.
    pub fn checks(&self) -> &[Check] {
        &self.checks
    }

    /// One check by id.
    pub fn check(&self, id: &str) -> Option<&Check> {
        self.checks.iter().find(|c| c.id == id)
    }

    /// Counts of statuses.
    pub fn counters(&self) -> Counters {
        self.counters
    }

    /// The claim's evidence, if a claim was evaluated.
    pub fn claim(&self) -> Option<&ClaimReport> {
        self.claim.as_ref()
    }

    /// The verifier's own pack the payload was checked against (id, fixture hash and
    /// manifest hash), when it has one.
    pub fn pack(&self) -> Option<&PackRef> {
        self.pack.as_ref()
    }

    /// Canonical hash of the parsed payload (blake3 of the raw bytes when they do not parse).
    pub fn payload_hash(&self) -> &str {
        &self.payload_hash
    }

    /// Canonical hash of the report without this field.
    pub fn report_hash(&self) -> &str {
        &self.report_hash
    }

    /// The process exit code for this report ([`Verdict::exit_code`] in its mode).
    pub fn exit_code(&self) -> i32 {
        self.verdict.exit_code(self.mode)
    }

    /// What this verification established about its claim, for a front end that asks
    /// whether the claim holds or does not (a capsule's prediction): the claim SUPPORTED
    /// (the verdict's own token), the claim contradicted — every check but
    /// `claim.evidence` passed (or was skipped) and the claim's interval lies wholly on
    /// the wrong side of its threshold (a token of the same kind: the verifier supports
    /// that the claim does not hold) — or neither.
    pub fn established(&self) -> Established {
        if let Verdict::Supports(token) = &self.verdict {
            return Established::Holds(token.clone());
        }
        let others_hold = self
            .checks
            .iter()
            .filter(|c| c.id != super::CheckId::ClaimEvidence.as_str())
            .all(|c| matches!(c.status, Status::Pass | Status::Skipped));
        let contradicted = self
            .claim
            .as_ref()
            .is_some_and(|c| c.outcome == crate::stats::ClaimOutcome::Contradicts);
        if others_hold && contradicted {
            Established::DoesNotHold(super::Supports { _private: () })
        } else {
            Established::Neither
        }
    }

    /// The `counterlab.report/1` JSON object.
    pub fn to_json(&self) -> Value {
        let reasons: &[String] = match &self.verdict {
            Verdict::Inconclusive { reasons } => reasons,
            _ => &[],
        };
        let document = ReportDocument {
            format: REPORT_FORMAT,
            verdict: &self.verdict,
            reasons,
            mode: self.mode,
            verifier: VerifierId::this(),
            payload_hash: &self.payload_hash,
            pack: self.pack.as_ref(),
            checks: &self.checks,
            counters: self.counters,
            claim: self.claim.as_ref(),
            caveats: &self.caveats,
            report_hash: &self.report_hash,
        };
        serde_json::to_value(document).expect("a report encodes")
    }
}

/// A verifier's identity in every document it answers with: its version and rules hash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VerifierId {
    /// [`super::VERIFIER_VERSION`].
    pub version: &'static str,
    /// [`rules_hash`].
    pub rules_hash: String,
}

impl VerifierId {
    /// This verifier's.
    pub fn this() -> VerifierId {
        VerifierId {
            version: VERIFIER_VERSION,
            rules_hash: rules_hash(),
        }
    }
}

/// `counterlab.report/1` as written (docs/report.schema.json).
#[derive(Serialize)]
struct ReportDocument<'a> {
    format: &'static str,
    verdict: &'a Verdict,
    reasons: &'a [String],
    mode: Mode,
    verifier: VerifierId,
    payload_hash: &'a str,
    pack: Option<&'a PackRef>,
    checks: &'a [Check],
    counters: Counters,
    claim: Option<&'a ClaimReport>,
    caveats: &'a [Caveat],
    report_hash: &'a str,
}
