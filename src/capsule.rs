//! `counterlab.capsule/1`: the authority chain bound hash by hash, re-verifiable offline
//! with the same binary (docs/CAPSULE.md).
//!
//! A capsule is self-contained: it embeds the prediction, the candidate experiments the
//! selector judged, the payload the selected experiment produced and the revised payloads
//! (at most two), and records the hash of every link: prediction → selection → experiment
//! (with its derived seed) → payload → report (verifier version, rules hash) → optional
//! boundary map and transfer evaluation → revisions. [`verify_capsule`] recomputes every
//! link from the embedded objects and the pack — re-runs the selector, recomputes and
//! re-verifies the payload (and each revision), recomputes the map and the transfer
//! evaluation — and answers REJECTED at the first link that does not hold, with that link
//! as the witness. Otherwise it answers the prediction: the claim tested (the last
//! payload's, which is the prediction's), what the verification found, and whether that
//! confirms, refutes or leaves the prediction undecided — SUPPORTS, REJECTED or
//! INCONCLUSIVE ([`decide`]).
//!
//! A capsule records the options it was verified with (`$.options`: permutations, α, the
//! mutation seed, the budgets) and is re-verified with exactly those: it is re-verifiable
//! from itself alone. Only the worker threads (which never change a report) and the mode
//! come from the caller; a front end refuses any other option given for a capsule
//! ([`crate::document::refuse_choices_for_capsule`]).

use serde::Serialize;
use serde_json::{json, Value};

use crate::canon::{self, HashKind};
use crate::error::{Error, Result};
use crate::experiment::Experiment;
use crate::pack::{LoadLimits, Lookup, Pack, Packs};
use crate::prediction::{Answer, Predicted, Prediction};
use crate::revision::verify_revision_with;
use crate::run::{run_with, RunOptions};
use crate::select::select;
use crate::transfer::TransferEvaluation;
use crate::verify::{
    rules_hash, verify, verify_written, Budget, CheckId, Content, Counterexample, Document,
    Established, Report, Status, Verdict, VerifierId, VerifyOptions, VERIFIER_VERSION,
};

/// The capsule's format.
pub const CAPSULE_FORMAT: &str = "counterlab.capsule/1";
/// The capsule verification's format.
pub const CAPSULE_REPORT_FORMAT: &str = "counterlab.capsule-report/1";
/// Largest capsule read, in bytes.
pub const MAX_CAPSULE_BYTES: usize = 16 << 20;

/// The links, in the order they are checked (`format` covers the format, the verifier
/// that recorded the capsule and its recorded options).
pub const LINKS: [&str; 8] = [
    "format",
    "prediction",
    "selection",
    "experiment",
    "payload",
    "report",
    "extras",
    "revisions",
];

/// What goes into a capsule besides the prediction and the candidates.
#[derive(Debug, Clone, Default)]
pub struct BuildOptions {
    /// Include the pack's boundary map hash (recomputed on verification: costly).
    pub boundary: bool,
    /// Revised payloads after a REJECTED verdict (at most two), in order.
    pub revisions: Vec<Vec<u8>>,
    /// Verification options (the same are used to re-verify).
    pub verify: VerifyOptions,
}

/// A built capsule and what `counterlab verify` will answer for it.
#[derive(Debug, Clone)]
pub struct Built {
    /// The capsule (`counterlab.capsule/1`).
    pub capsule: Value,
    /// The verdict `verify` gives it (every link holds by construction): [`decide`] on the
    /// last payload's verification.
    pub verdict: Verdict,
    /// What that verification says of the prediction, with why.
    pub answer: (Answer, String),
}

/// Builds a capsule: selects among `candidates` (source, bytes) for `prediction`, runs the
/// selected experiment with its derived seed, verifies the payload (and the revisions),
/// and records every link and the verification options.
pub fn build(
    packs: &Packs,
    prediction: &Prediction,
    candidates: &[(String, Vec<u8>)],
    options: &BuildOptions,
) -> Result<Value> {
    build_answered(packs, prediction, candidates, options).map(|built| built.capsule)
}

/// [`build`], with the verdict `verify` will give the capsule.
pub fn build_answered(
    packs: &Packs,
    prediction: &Prediction,
    candidates: &[(String, Vec<u8>)],
    options: &BuildOptions,
) -> Result<Built> {
    let pack = packs.get(&prediction.pack.id)?;
    let selection = select(pack, prediction, candidates);
    let experiment = selection.to_run.clone().ok_or_else(|| {
        Error::invalid("no candidate is eligible: see `counterlab select` for each rule")
    })?;
    if options.revisions.len() > crate::revision::MAX_REVISIONS {
        return Err(Error::invalid(format!(
            "{} revisions: at most {} are allowed",
            options.revisions.len(),
            crate::revision::MAX_REVISIONS
        )));
    }
    let mut verify_options = VerifyOptions {
        family: 1,
        ..options.verify.clone()
    };
    // The budget the pack raises is the one recorded: a capsule's options are re-verified
    // as explicit choices, which the pack's own budget does not raise again.
    let declared = pack.manifest().verify.unwrap_or_default();
    let o = &mut verify_options;
    o.max_work = Budget::given(o.max_work.for_pack(declared.max_work).0);
    o.max_design_bytes = Budget::given(o.max_design_bytes.for_pack(declared.max_design_bytes).0);
    let threads = verify_options.threads;
    let payload = run_with(pack, &experiment, &RunOptions { threads })?;
    let payload_text = payload.to_json_pretty()?;
    let payload_value: Value = serde_json::from_str(&payload_text).expect("a payload is JSON");
    let report = verify(payload_text.as_bytes(), packs, &verify_options);
    let (boundary, transfer) = build_extras(pack, prediction, options.boundary, threads)?;
    let chain = record_revisions(
        packs,
        &verify_options,
        payload_text.as_bytes(),
        &report,
        &options.revisions,
    )?;
    let (verdict, answer) = if chain.refused {
        refused_chain()
    } else {
        let last = chain.verified.last().expect("the first payload's report");
        decide(prediction, last, transfer.as_ref())
    };
    let document = CapsuleDocument {
        format: CAPSULE_FORMAT,
        prediction,
        prediction_hash: prediction.prediction_hash(),
        candidates: candidates
            .iter()
            .map(|(source, bytes)| Candidate {
                source,
                experiment: String::from_utf8_lossy(bytes).into_owned(),
            })
            .collect(),
        selection_hash: selection.selection_hash(),
        experiment_hash: canon::hash_value(HashKind::Experiment, &canon::to_value(&experiment)?),
        payload_hash: canon::hash_value(HashKind::Payload, &payload_value),
        payload: payload_value,
        verifier: VerifierId::this(),
        options: RecordedOptions::of(&verify_options),
        report_hash: report.report_hash(),
        verdict: report.verdict(),
        boundary_map_hash: boundary,
        transfer_result_hash: transfer.map(|t| t.result_hash),
        revisions: chain.revisions,
    };
    Ok(Built {
        capsule: serde_json::to_value(&document).expect("a capsule encodes"),
        verdict,
        answer,
    })
}

/// The extras a capsule records: the pack's boundary map hash when asked for, and the
/// transfer evaluation a transfer-choice prediction is answered from.
fn build_extras(
    pack: &Pack,
    prediction: &Prediction,
    boundary: bool,
    threads: usize,
) -> Result<(Option<String>, Option<TransferEvaluation>)> {
    let boundary = if boundary {
        Some(crate::boundary::compute(pack, threads)?.map_hash)
    } else {
        None
    };
    let transfer = match &prediction.predicted {
        Predicted::TransferChoice { transfer_choice } => Some(crate::transfer::evaluate(
            pack,
            Some(transfer_choice),
            threads,
        )?),
        Predicted::Outcome(_) => None,
    };
    Ok((boundary, transfer))
}

/// A built capsule's revision chain.
struct RecordedChain {
    /// Every revision as the capsule binds it.
    revisions: Vec<RecordedRevision>,
    /// The reports of the first payload and of each revision after it that verified,
    /// up to the first refused one.
    verified: Vec<Report>,
    /// Whether a revision was refused (the chain breaks there).
    refused: bool,
}

/// Verifies each revision after the chain before it (starting with the first payload,
/// `payload` and its `report`) and records it as the capsule binds it; a revision that is
/// not JSON is an error.
fn record_revisions(
    packs: &Packs,
    verify_options: &VerifyOptions,
    payload: &[u8],
    report: &Report,
    revised: &[Vec<u8>],
) -> Result<RecordedChain> {
    let mut revisions = Vec::new();
    let mut chain: Vec<&[u8]> = vec![payload];
    let mut verified = vec![report.clone()];
    let mut refused = false;
    for bytes in revised {
        chain.push(bytes);
        let answer = verify_revision_with(&chain, packs, verify_options, verified.clone());
        let json = answer.to_json();
        let value: Value = crate::json::parse_strict(bytes).map_err(|e| {
            Error::invalid(format!(
                "a revision is not JSON at {}: {}",
                e.path, e.message
            ))
        })?;
        revisions.push(RecordedRevision {
            payload_hash: canon::hash_value(HashKind::Payload, &value),
            payload: value,
            revision_hash: json["revision_hash"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
            verdict: answer.verdict(),
        });
        match answer.report {
            Some(last) if !refused => verified.push(last),
            _ => refused = true,
        }
    }
    Ok(RecordedChain {
        revisions,
        verified,
        refused,
    })
}

/// The verdict of a capsule whose chain has a refused revision: REJECTED at the
/// revisions, and the prediction undecided.
fn refused_chain() -> (Verdict, (Answer, String)) {
    let why = "a revision is refused: the chain breaks".to_owned();
    (
        Verdict::Rejected {
            counterexamples: vec![Counterexample {
                invariant: "capsule.revisions".into(),
                observed: json!(why),
                expected: json!("every revision allowed by the chain's rules"),
                witness: json!({"path": "$.revisions"}),
            }],
        },
        (Answer::Undecided, why),
    )
}

/// `counterlab.capsule/1` as written (docs/capsule.schema.json).
#[derive(Serialize)]
struct CapsuleDocument<'a> {
    format: &'static str,
    prediction: &'a Prediction,
    prediction_hash: String,
    candidates: Vec<Candidate<'a>>,
    selection_hash: String,
    experiment_hash: String,
    payload: Value,
    payload_hash: String,
    verifier: VerifierId,
    options: RecordedOptions,
    report_hash: &'a str,
    verdict: &'a Verdict,
    boundary_map_hash: Option<String>,
    transfer_result_hash: Option<String>,
    revisions: Vec<RecordedRevision>,
}

/// A candidate as the selector judged it: where it came from and its text.
#[derive(Serialize)]
struct Candidate<'a> {
    source: &'a str,
    experiment: String,
}

/// A revision as a capsule binds it.
#[derive(Serialize)]
struct RecordedRevision {
    payload: Value,
    payload_hash: String,
    revision_hash: String,
    verdict: Verdict,
}

/// The options a capsule records (`$.options`): everything a verification's report
/// depends on. The mode and the threads are not here: neither changes a report. Read
/// back with unknown keys refused.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordedOptions {
    /// Label permutations K.
    pub permutations: usize,
    /// Row-order shuffles.
    pub row_order_shuffles: usize,
    /// Seed of every mutation.
    pub seed: u64,
    /// Significance level.
    pub alpha: f64,
    /// Largest payload accepted, in bytes.
    pub max_payload_bytes: usize,
    /// Largest work in fit units.
    pub max_work: u64,
    /// Largest memory for prepared designs, in bytes.
    pub max_design_bytes: u64,
    /// Largest fixture accepted.
    pub fixture: RecordedFixtureLimits,
}

/// A capsule's recorded fixture limits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordedFixtureLimits {
    /// Bytes.
    pub max_bytes: u64,
    /// Header columns.
    pub max_columns: usize,
    /// Data rows.
    pub max_rows: usize,
}

impl RecordedOptions {
    /// The recorded part of `options`.
    pub fn of(options: &VerifyOptions) -> RecordedOptions {
        RecordedOptions {
            permutations: options.permutations,
            row_order_shuffles: options.row_order_shuffles,
            seed: options.seed,
            alpha: options.alpha,
            max_payload_bytes: options.max_payload_bytes,
            max_work: options.max_work.limit(),
            max_design_bytes: options.max_design_bytes.limit(),
            fixture: RecordedFixtureLimits {
                max_bytes: options.fixture.max_bytes,
                max_columns: options.fixture.max_columns,
                max_rows: options.fixture.max_rows,
            },
        }
    }
}

/// The capsule's verdict once every link holds, from the last payload's verification:
/// REJECTED when a check other than the claim's failed (the evidence itself is broken);
/// else SUPPORTS when the prediction is confirmed (with the verifier's token of what it
/// established: the claim, or that the claim does not hold), REJECTED when it is refuted,
/// INCONCLUSIVE when undecided. A prediction "does_not_hold" whose claim is SUPPORTED is
/// refuted: REJECTED, never a plain SUPPORTS. With the answer to the prediction and why.
pub fn decide(
    prediction: &Prediction,
    report: &Report,
    transfer: Option<&TransferEvaluation>,
) -> (Verdict, (Answer, String)) {
    let broken = report
        .checks()
        .iter()
        .find(|c| c.id != CheckId::ClaimEvidence.as_str() && c.status == Status::Fail);
    if let Some(check) = broken {
        let why = format!(
            "the verification failed check {}: no evidence either way",
            check.id
        );
        return (
            Verdict::Rejected {
                counterexamples: check.counterexamples.clone(),
            },
            (Answer::Undecided, why),
        );
    }
    let established = report.established();
    let (answer, why) = prediction.answer(&established, transfer);
    let verdict = match (answer, established) {
        (Answer::Confirmed, Established::Holds(token) | Established::DoesNotHold(token)) => {
            Verdict::Supports(token)
        }
        // A transfer choice confirmed by the transfer evaluation while the claim's own
        // verification established nothing: the verifier supports nothing here.
        (Answer::Confirmed, Established::Neither) => Verdict::Inconclusive {
            reasons: vec![format!(
                "{why}, but the claim's verification established nothing"
            )],
        },
        (Answer::Refuted, _) => Verdict::Rejected {
            counterexamples: vec![prediction_counterexample(prediction, &why)],
        },
        (Answer::Undecided, _) => Verdict::Inconclusive {
            reasons: vec![why.clone()],
        },
    };
    (verdict, (answer, why))
}

/// The counterexample of a refuted prediction: what was predicted against what the
/// evidence says.
fn prediction_counterexample(prediction: &Prediction, why: &str) -> Counterexample {
    Counterexample {
        invariant: "capsule.prediction".into(),
        observed: json!(why),
        expected: json!(prediction.predicted),
        witness: json!({"path": "$.prediction.predicted"}),
    }
}

/// The options recorded in `value` (`$.options`), with the caller's mode and threads; an
/// error names the first key that is missing or out of its range.
pub fn options_from(value: &Value, caller: &VerifyOptions) -> Result<VerifyOptions> {
    let recorded: RecordedOptions = serde_path_to_error::deserialize(value).map_err(|e| {
        let at = e.path().to_string();
        Error::invalid(match at.as_str() {
            "." => format!("$.options: {}", e.inner()),
            _ => format!("$.options.{at}: {}", e.inner()),
        })
    })?;
    // The options a front end also takes keep the ranges they have there.
    let choices = crate::verify::Choices {
        permutations: Some(recorded.permutations),
        observe: false,
        seed: Some(recorded.seed),
        alpha: Some(recorded.alpha),
        max_payload_bytes: Some(recorded.max_payload_bytes),
        max_work: Some(recorded.max_work),
        max_design_bytes: Some(recorded.max_design_bytes),
    };
    let mut options = choices.checked(|name| format!("$.options.{name}"))?;
    options.row_order_shuffles = recorded.row_order_shuffles;
    options.fixture = LoadLimits {
        max_bytes: recorded.fixture.max_bytes,
        max_columns: recorded.fixture.max_columns,
        max_rows: recorded.fixture.max_rows,
    };
    options.mode = caller.mode;
    options.threads = caller.threads;
    Ok(options)
}

/// How a link of a capsule was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkStatus {
    /// Re-derived and equal.
    Pass,
    /// Re-derived and different: the capsule is REJECTED here.
    Fail,
    /// Cannot be re-derived here (the pack is missing, another verifier).
    Unverifiable,
}

impl LinkStatus {
    /// As written in the capsule report.
    pub fn as_str(self) -> &'static str {
        match self {
            LinkStatus::Pass => "pass",
            LinkStatus::Fail => "fail",
            LinkStatus::Unverifiable => "unverifiable",
        }
    }
}

/// One link as re-derived.
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    /// The link's name (one of [`LINKS`]).
    pub name: &'static str,
    /// How it was found.
    pub status: LinkStatus,
    /// What was compared, or why it failed.
    pub detail: String,
}

/// The answer of a capsule verification.
#[derive(Debug, Clone)]
pub struct CapsuleReport {
    /// Every link checked, in order, up to the first that failed.
    pub links: Vec<Link>,
    /// The verification of the last payload (the answer when every link holds).
    pub report: Option<crate::verify::Report>,
    /// The prediction, once its link holds.
    pub prediction: Option<Prediction>,
    /// The options the capsule recorded and was re-verified with, once read.
    pub options: Option<VerifyOptions>,
    /// The verdict and the answer to the prediction once every link holds ([`decide`]).
    pub decision: Option<(Verdict, (Answer, String))>,
    /// The claim the last verified payload tested (`$.experiment.claim`).
    pub tested_claim: Option<Value>,
}

impl CapsuleReport {
    /// REJECTED at a failed link (its detail the counterexample), INCONCLUSIVE at one that
    /// could not be checked, else [`decide`] on the last payload's verification.
    pub fn verdict(&self) -> Verdict {
        let link_counterexample = |l: &Link| Counterexample {
            invariant: format!("capsule.{}", l.name),
            observed: json!(l.detail),
            expected: json!("the link re-derived from the capsule and the pack"),
            witness: json!({"link": l.name}),
        };
        if let Some(l) = self.links.iter().find(|l| l.status == LinkStatus::Fail) {
            Verdict::Rejected {
                counterexamples: vec![link_counterexample(l)],
            }
        } else if let Some(l) = self
            .links
            .iter()
            .find(|l| l.status == LinkStatus::Unverifiable)
        {
            Verdict::Inconclusive {
                reasons: vec![format!("link {}: {}", l.name, l.detail)],
            }
        } else {
            self.decision.as_ref().map_or_else(
                || Verdict::Inconclusive {
                    reasons: vec!["the capsule was not checked to its end".into()],
                },
                |d| d.0.clone(),
            )
        }
    }

    /// The first link that failed (the witness), if any.
    pub fn witness(&self) -> Option<&Link> {
        self.links.iter().find(|l| l.status != LinkStatus::Pass)
    }

    /// What the capsule answers about its prediction: the prediction (claim and predicted
    /// outcome), the claim the last payload tested, and confirmed / refuted / undecided
    /// with why (none until the prediction's link holds).
    fn prediction_answer(&self) -> Option<PredictionAnswer<'_>> {
        let prediction = self.prediction.as_ref()?;
        let (answer, why) = match &self.decision {
            Some((_, (answer, why))) => (*answer, why.clone()),
            None => (
                Answer::Undecided,
                "a link does not hold: the chain answers nothing".into(),
            ),
        };
        Some(PredictionAnswer {
            claim: &prediction.claim,
            predicted: &prediction.predicted,
            tested_claim: self.tested_claim.as_ref(),
            tested_statistic: self
                .report
                .as_ref()
                .and_then(|r| r.claim())
                .map(|c| c.statistic.as_str()),
            answer: answer.as_str(),
            why,
        })
    }

    /// `counterlab.capsule-report/1` with its hash (context `counterlab 2026-12 capsule
    /// report v1`).
    pub fn to_json(&self) -> Value {
        let document = CapsuleReportDocument {
            format: CAPSULE_REPORT_FORMAT,
            verdict: self.verdict(),
            prediction: self.prediction_answer(),
            options: self.options.as_ref().map(RecordedOptions::of),
            links: self
                .links
                .iter()
                .map(|l| LinkDocument {
                    link: l.name,
                    status: l.status,
                    detail: &l.detail,
                })
                .collect(),
            witness: self.witness().map(|l| l.name),
            report: self.report.as_ref().map(crate::verify::Report::to_json),
        };
        let mut value = serde_json::to_value(&document).expect("a capsule report encodes");
        value["capsule_report_hash"] = json!(canon::hash_value(HashKind::CapsuleReport, &value));
        value
    }
}

/// `counterlab.capsule-report/1` as written, without its hash.
#[derive(Serialize)]
struct CapsuleReportDocument<'a> {
    format: &'static str,
    verdict: Verdict,
    prediction: Option<PredictionAnswer<'a>>,
    options: Option<RecordedOptions>,
    links: Vec<LinkDocument<'a>>,
    witness: Option<&'static str>,
    report: Option<Value>,
}

/// A capsule report's `prediction`.
#[derive(Serialize)]
struct PredictionAnswer<'a> {
    claim: &'a crate::experiment::Claim,
    predicted: &'a Predicted,
    tested_claim: Option<&'a Value>,
    tested_statistic: Option<&'a str>,
    answer: &'static str,
    why: String,
}

/// A capsule report's link.
#[derive(Serialize)]
struct LinkDocument<'a> {
    link: &'static str,
    status: LinkStatus,
    detail: &'a str,
}

/// Re-derives every link of the capsule `bytes` against `packs` (module docs), with the
/// options the capsule records; of `options` only the mode and the threads are used.
pub fn verify_capsule(bytes: &[u8], packs: &Packs, options: &VerifyOptions) -> CapsuleReport {
    verify_read_capsule(Document::read(bytes, MAX_CAPSULE_BYTES), packs, options)
}

/// [`verify_capsule`] of a document already read (`crate::document` reads each document
/// once, within the verify options' byte budget, and hands the capsule over parsed).
pub(crate) fn verify_read_capsule(
    document: Document<'_>,
    packs: &Packs,
    options: &VerifyOptions,
) -> CapsuleReport {
    let mut out = CapsuleReport {
        links: Vec::new(),
        report: None,
        prediction: None,
        options: None,
        decision: None,
        tested_claim: None,
    };
    let _ = check_links(document, packs, options, &mut out);
    out
}

/// The walk stopped at a link that does not hold (the link is already recorded).
struct Stopped;

/// A link that does not hold: REJECTED (`Fail`) or INCONCLUSIVE (`Unverifiable`), with
/// the detail its report records.
struct Broken {
    status: LinkStatus,
    detail: String,
}

impl Broken {
    fn fail(detail: impl Into<String>) -> Broken {
        Broken {
            status: LinkStatus::Fail,
            detail: detail.into(),
        }
    }

    fn unverifiable(detail: impl Into<String>) -> Broken {
        Broken {
            status: LinkStatus::Unverifiable,
            detail: detail.into(),
        }
    }
}

/// A step's answer: what the link re-derived (for the next steps) and the detail its
/// report records, or why it does not hold.
type Step<T> = std::result::Result<(T, String), Broken>;

impl CapsuleReport {
    /// Records link `name` as its step found it; a link that does not hold stops the walk
    /// (`Err(Stopped)`), so every link after it stays unchecked and unrecorded.
    fn record<T>(&mut self, name: &'static str, step: Step<T>) -> std::result::Result<T, Stopped> {
        let (found, status, detail) = match step {
            Ok((found, detail)) => (Some(found), LinkStatus::Pass, detail),
            Err(broken) => (None, broken.status, broken.detail),
        };
        self.links.push(Link {
            name,
            status,
            detail,
        });
        found.ok_or(Stopped)
    }
}

/// The capsule's member `key`, `null` when it has none (a missing member and a wrong one
/// break a link alike).
fn field(v: &Value, key: &str) -> Value {
    v.get(key).cloned().unwrap_or(Value::Null)
}

/// Checks the links in their order ([`LINKS`]), one step each, recording each into `out`
/// until one does not hold; when all hold, decides the capsule's answer.
fn check_links(
    document: Document<'_>,
    packs: &Packs,
    options: &VerifyOptions,
    out: &mut CapsuleReport,
) -> std::result::Result<(), Stopped> {
    let (capsule, options) = out.record("format", check_format(document, options))?;
    out.options = Some(options.clone());
    let (prediction, pack) = out.record("prediction", check_prediction(&capsule, packs))?;
    out.prediction = Some(prediction.clone());
    let to_run = out.record("selection", check_selection(&capsule, pack, &prediction))?;
    let payload = field(&capsule, "payload");
    out.record("experiment", check_experiment(&capsule, &to_run, &payload))?;
    out.record("payload", check_payload(&capsule, &payload))?;
    let (payload_bytes, report) =
        out.record("report", check_report(&capsule, &payload, packs, &options))?;
    out.report = Some(report.clone());
    out.tested_claim = Some(payload["experiment"]["claim"].clone());
    let extras = check_extras(&capsule, pack, &prediction, options.threads);
    let evaluation = out.record("extras", extras)?;
    // Each revision that verifies becomes the last report as it is checked, so a chain
    // that breaks later still shows the last payload that verified.
    let revisions = check_revisions(&capsule, packs, &options, payload_bytes, report, out);
    let last = out.record("revisions", revisions)?;
    out.decision = Some(decide(&prediction, &last, evaluation.as_ref()));
    Ok(())
}

/// `format`: within the size budget, strict JSON, `counterlab.capsule/1`, recorded by this
/// verifier, with options in their ranges (the options it is re-verified with).
fn check_format(document: Document<'_>, options: &VerifyOptions) -> Step<(Value, VerifyOptions)> {
    let capsule = read_capsule(document)?;
    // Another verifier's capsule cannot be re-derived here (its selector, seed rule or
    // options may differ): INCONCLUSIVE before any link that would read them, never
    // REJECTED.
    let verifier = serde_json::to_value(VerifierId::this()).expect("encodes");
    if field(&capsule, "verifier") != verifier {
        return Err(Broken::unverifiable(format!(
            "recorded by {}; this verifier is {VERIFIER_VERSION} with rules {}",
            field(&capsule, "verifier"),
            rules_hash()
        )));
    }
    let options = options_from(&field(&capsule, "options"), options)
        .map_err(|e| Broken::fail(e.to_string()))?;
    let detail = format!("{CAPSULE_FORMAT}, {VERIFIER_VERSION}, the recorded options");
    Ok(((capsule, options), detail))
}

/// The capsule a document holds (the `format` link's first conditions): at most
/// [`MAX_CAPSULE_BYTES`], JSON, of [`CAPSULE_FORMAT`]; else which is not so.
fn read_capsule(document: Document<'_>) -> std::result::Result<Value, Broken> {
    let bytes = document.bytes().len();
    if bytes > MAX_CAPSULE_BYTES {
        return Err(Broken::fail(format!(
            "{bytes} bytes, over {MAX_CAPSULE_BYTES}"
        )));
    }
    match document.into_content() {
        Content::Json(v) if v.get("format") == Some(&json!(CAPSULE_FORMAT)) => Ok(v.into_owned()),
        Content::Json(_) => Err(Broken::fail(format!("$.format is not {CAPSULE_FORMAT:?}"))),
        Content::NotJson(e) => Err(Broken::fail(format!(
            "not JSON at {}: {}",
            e.path, e.message
        ))),
        Content::OverBudget { budget } => {
            Err(Broken::fail(format!("{bytes} bytes, over {budget}")))
        }
    }
}

/// `prediction`: a prediction with its hash, about a pack that is here (INCONCLUSIVE when
/// it is not) and this very pack.
fn check_prediction<'p>(capsule: &Value, packs: &'p Packs) -> Step<(Prediction, &'p Pack)> {
    let prediction = Prediction::from_value(&field(capsule, "prediction"))
        .map_err(|e| Broken::fail(format!("$.prediction: {e}")))?;
    let hash = prediction.prediction_hash();
    if field(capsule, "prediction_hash") != json!(hash) {
        return Err(Broken::fail(format!(
            "$.prediction_hash is not the prediction's hash {hash}"
        )));
    }
    let Lookup::Loaded(pack) = packs.lookup(&prediction.pack.id) else {
        return Err(Broken::unverifiable(format!(
            "pack {:?} is not available here",
            prediction.pack.id
        )));
    };
    if !prediction.is_about(pack) {
        return Err(Broken::fail(
            "the prediction's manifest hash is not this pack's",
        ));
    }
    Ok(((prediction, pack), hash))
}

/// `selection`: the selector re-run on the embedded candidates gives the recorded
/// selection, and selects one (the experiment to run, with its derived seed).
fn check_selection(capsule: &Value, pack: &Pack, prediction: &Prediction) -> Step<Experiment> {
    let text = |c: &Value, key: &str| c.get(key).and_then(Value::as_str).unwrap_or("").to_owned();
    let candidates: Vec<(String, Vec<u8>)> = field(capsule, "candidates")
        .as_array()
        .ok_or_else(|| Broken::fail("$.candidates is not a list"))?
        .iter()
        .map(|c| (text(c, "source"), text(c, "experiment").into_bytes()))
        .collect();
    let selection = select(pack, prediction, &candidates);
    let selection_hash = selection.selection_hash();
    if field(capsule, "selection_hash") != json!(selection_hash) {
        return Err(Broken::fail(format!(
            "re-running the selector gives selection hash {selection_hash}, not $.selection_hash"
        )));
    }
    let to_run = selection
        .to_run
        .ok_or_else(|| Broken::fail("no embedded candidate is eligible"))?;
    Ok((to_run, selection_hash))
}

/// `experiment`: the selected experiment (with its derived seed) is the recorded one and
/// the one the payload ran.
fn check_experiment(capsule: &Value, to_run: &Experiment, payload: &Value) -> Step<()> {
    let experiment_hash = canon::hash_value(
        HashKind::Experiment,
        &canon::to_value(to_run).expect("encodes"),
    );
    if field(capsule, "experiment_hash") != json!(experiment_hash) {
        return Err(Broken::fail(format!("the selected experiment (derived seed {}) hashes to {experiment_hash}, not $.experiment_hash", to_run.seed)));
    }
    let ran = payload
        .get("experiment")
        .and_then(|e| crate::Experiment::from_value(e).ok());
    match ran {
        Some(e) if &e == to_run => Ok(((), experiment_hash)),
        Some(e) => Err(Broken::fail(format!(
            "$.payload.experiment is not the selected experiment (its seed {}, derived {})",
            e.seed, to_run.seed
        ))),
        None => Err(Broken::fail("$.payload.experiment is not an experiment")),
    }
}

/// `payload`: the embedded payload has the recorded hash.
fn check_payload(capsule: &Value, payload: &Value) -> Step<()> {
    let payload_hash = canon::hash_value(HashKind::Payload, payload);
    if field(capsule, "payload_hash") != json!(payload_hash) {
        return Err(Broken::fail(format!(
            "$.payload hashes to {payload_hash}, not $.payload_hash"
        )));
    }
    Ok(((), payload_hash))
}

/// `report`: re-verifying the payload (which recomputes its numbers) gives the recorded
/// report and verdict; with the payload's bytes and report, the start of the revision
/// chain. Only reached when this verifier recorded the capsule, or the comparison could
/// not mean anything.
fn check_report(
    capsule: &Value,
    payload: &Value,
    packs: &Packs,
    options: &VerifyOptions,
) -> Step<(Vec<u8>, Report)> {
    let payload_bytes = serde_json::to_vec(payload).expect("JSON encodes");
    let report = verify_written(&payload_bytes, payload, packs, options);
    // The verdict as the capsule writes it (its name), compared in that form.
    if field(capsule, "report_hash") != json!(report.report_hash())
        || field(capsule, "verdict") != json!(report.verdict())
    {
        return Err(Broken::fail(format!("re-verifying the payload gives {} (report {}), not the recorded $.verdict / $.report_hash", report.verdict().as_str(), report.report_hash())));
    }
    let detail = report.report_hash().to_owned();
    Ok(((payload_bytes, report), detail))
}

/// `extras`: the boundary map and the transfer evaluation, recomputed when recorded; with
/// the transfer evaluation a transfer-choice prediction is answered from.
fn check_extras(
    capsule: &Value,
    pack: &Pack,
    prediction: &Prediction,
    threads: usize,
) -> Step<Option<TransferEvaluation>> {
    check_boundary_map(capsule, pack, threads)?;
    let evaluation = check_transfer(capsule, pack, prediction, threads)?;
    let detail = "boundary map and transfer evaluation as recorded".to_owned();
    Ok((evaluation, detail))
}

/// The recorded boundary map hash, if any, is the pack's map's.
fn check_boundary_map(
    capsule: &Value,
    pack: &Pack,
    threads: usize,
) -> std::result::Result<(), Broken> {
    let boundary = field(capsule, "boundary_map_hash");
    if boundary.is_null() {
        return Ok(());
    }
    match crate::boundary::compute(pack, threads) {
        Ok(map) if json!(map.map_hash) == boundary => Ok(()),
        Ok(map) => Err(Broken::fail(format!(
            "the boundary map hashes to {}, not $.boundary_map_hash",
            map.map_hash
        ))),
        Err(e) => Err(Broken::fail(format!(
            "the boundary map cannot be computed: {e}"
        ))),
    }
}

/// The recorded transfer result hash is the pack's transfer evaluation's for a
/// transfer-choice prediction, and absent (`null`) for any other.
fn check_transfer(
    capsule: &Value,
    pack: &Pack,
    prediction: &Prediction,
    threads: usize,
) -> std::result::Result<Option<TransferEvaluation>, Broken> {
    let transfer = field(capsule, "transfer_result_hash");
    let evaluation = match &prediction.predicted {
        Predicted::TransferChoice { transfer_choice } => Some(
            crate::transfer::evaluate(pack, Some(transfer_choice), threads).map_err(|e| {
                Broken::fail(format!("the transfer evaluation cannot be computed: {e}"))
            })?,
        ),
        Predicted::Outcome(_) => None,
    };
    let expected_transfer = evaluation
        .as_ref()
        .map_or(Value::Null, |t| json!(t.result_hash));
    if transfer != expected_transfer {
        return Err(Broken::fail(format!(
            "$.transfer_result_hash is not {expected_transfer}"
        )));
    }
    Ok(evaluation)
}

/// `revisions`: at most [`crate::revision::MAX_REVISIONS`], each bound by its payload's
/// hash and re-checked against the chain before it, none refused; with the last report.
/// Each revision that verifies becomes `out`'s report and tested claim as it is checked.
fn check_revisions(
    capsule: &Value,
    packs: &Packs,
    options: &VerifyOptions,
    payload_bytes: Vec<u8>,
    report: Report,
    out: &mut CapsuleReport,
) -> Step<Report> {
    let revisions = field(capsule, "revisions")
        .as_array()
        .cloned()
        .ok_or_else(|| Broken::fail("$.revisions is not a list"))?;
    if revisions.len() > crate::revision::MAX_REVISIONS {
        return Err(Broken::fail(format!(
            "{} revisions: at most {}",
            revisions.len(),
            crate::revision::MAX_REVISIONS
        )));
    }
    let mut chain: Vec<Vec<u8>> = vec![payload_bytes];
    let mut verified = vec![report];
    for (i, revision) in revisions.iter().enumerate() {
        let revised = field(revision, "payload");
        if let Some(last) =
            check_revision(i, revision, &revised, &mut chain, &verified, packs, options)?
        {
            verified.push(last.clone());
            out.report = Some(last);
            out.tested_claim = Some(revised["experiment"]["claim"].clone());
        }
    }
    let last = verified.pop().expect("the first payload's report");
    Ok((last, format!("{} revisions", revisions.len())))
}

/// Revision `i` (0-based; its payload `revised`): bound by its payload's hash, re-checked
/// after the chain so far (extended by it) to the recorded revision hash and verdict, and
/// not refused; with its report when it has one.
fn check_revision(
    i: usize,
    revision: &Value,
    revised: &Value,
    chain: &mut Vec<Vec<u8>>,
    verified: &[Report],
    packs: &Packs,
    options: &VerifyOptions,
) -> std::result::Result<Option<Report>, Broken> {
    if field(revision, "payload_hash") != json!(canon::hash_value(HashKind::Payload, revised)) {
        return Err(Broken::fail(format!(
            "$.revisions[{i}].payload_hash is not its payload's hash"
        )));
    }
    chain.push(serde_json::to_vec(revised).expect("JSON encodes"));
    let slices: Vec<&[u8]> = chain.iter().map(Vec::as_slice).collect();
    let answer = verify_revision_with(&slices, packs, options, verified.to_vec());
    let value = answer.to_json();
    if field(revision, "revision_hash") != value["revision_hash"]
        || field(revision, "verdict") != value["verdict"]
    {
        return Err(Broken::fail(format!(
            "re-checking revision {} gives {} (revision {}), not the recorded one",
            i + 1,
            value["verdict"],
            value["revision_hash"]
        )));
    }
    if let Some(refusal) = &answer.refusal {
        return Err(Broken::fail(format!(
            "revision {} is refused: {}",
            i + 1,
            refusal.reason
        )));
    }
    Ok(answer.report)
}
