//! The fixed experiment selector (`counterlab select`): closed rules, no model calls.
//!
//! A proposer offers candidate experiments for a learner's belief (a
//! `counterlab.prediction/1`: the pack and the claim believed). Each candidate is checked
//! against a closed rule list, in order, the first failing rule named:
//!
//! 1. `parses` — the candidate is an experiment (`counterlab.experiment/1`);
//! 2. `same_pack` — it runs on the prediction's pack (same id and manifest meaning);
//! 3. `valid` — it passes `Experiment::check` on the pack;
//! 4. `same_claim` — its claim is the prediction's claim, exactly;
//! 5. `control` — the claim can be refuted against a control: for a gap claim, one of its
//!    two arms separates entities (`entity_grouped`, `entity_k_fold`) or orders time
//!    (`temporal`, `rolling_origin`); for a single-arm claim, that arm does, or the
//!    metrics include `majority_baseline_accuracy` (the control of a threshold claim);
//! 6. `identity_ablation` — it has an ablation that drops nothing;
//! 7. `held_out_entities` — every arm the claim names tests at least
//!    [`MIN_HELD_OUT_ENTITIES`] entities (all folds together for a cross-validated arm).
//!
//! Eligible candidates get a fixed score from their design alone:
//! `score = held_out + 50 · cross_validated + 5 · ablations`, where `held_out` is the
//! fewest test entities among the claim's arms, `cross_validated` the number of the
//! claim's arms that are cross-validated, and `ablations` the ablations other than
//! identity. The highest score is selected; ties go to the smallest canonical experiment
//! hash. Nothing else (no result, no model, no proposer preference) enters.
//!
//! **No seed shopping.** A candidate's own seed is ignored: every candidate is judged, and
//! the selected one runs, with the seed [`derived_seed`] of the prediction's pack (its id
//! and manifest meaning hash) alone. Nobody picks the seed, and nothing a proposer or a
//! learner writes re-draws it: not the candidate's seed, names, list order or spelled-out
//! defaults, not a number moved by one ulp (`"c": 1.0000000000000002`), not an ablation or
//! an arm the claim does not read, not the claim's threshold or arm names, not the
//! rationale. Every design is evaluated under the same randomness (the splits draw from
//! streams named by their kind, never by an arm's name or position), so two designs differ
//! in their verdicts only through what they evaluate. An earlier rule derived the seed
//! from the design's hash too; any such dependence lets a change that evaluates nothing
//! new (an unread ablation, a one-ulp number) buy a fresh draw, and issue 30 measured a
//! 5-fold gap of 0.196–0.402 over 18 such variants of one design. The design's normal
//! form ([`crate::design`]) still identifies the design (`design_hash` in the record).

use std::path::PathBuf;

use serde::Serialize;
use serde_json::{json, Value};

use crate::canon::{self, HashKind};
use crate::error::{Error, Result};
use crate::experiment::{Experiment, MAX_EXPERIMENT_BYTES};
use crate::input::read_within;
use crate::json_path::JsonPath;
use crate::pack::Pack;
use crate::prediction::{Prediction, PredictionPack};

/// The selection record's format.
pub const SELECTION_FORMAT: &str = "counterlab.selection/1";
/// Fewest test entities per claimed arm (the verifier's guard for clustered gap intervals).
pub const MIN_HELD_OUT_ENTITIES: u64 = crate::stats::MIN_GAP_HELD_OUT_ENTITIES as u64;

/// The selector's rules, in the order they are checked (written in the record by their
/// snake_case ids, e.g. `identity_ablation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// 1. The candidate is an experiment (strict JSON, the schema).
    Parses,
    /// 2. It runs on the prediction's pack.
    SamePack,
    /// 3. It is valid on that pack.
    Valid,
    /// 4. Its claim is the prediction's claim.
    SameClaim,
    /// 5. An arm of the claim separates entities or orders time (or a single-arm claim has
    ///    the majority baseline beside it).
    Control,
    /// 6. It has an ablation that drops nothing.
    IdentityAblation,
    /// 7. Every arm of the claim tests enough entities.
    HeldOutEntities,
}

impl Rule {
    /// The id as written in the record.
    pub fn as_str(self) -> &'static str {
        match self {
            Rule::Parses => "parses",
            Rule::SamePack => "same_pack",
            Rule::Valid => "valid",
            Rule::SameClaim => "same_claim",
            Rule::Control => "control",
            Rule::IdentityAblation => "identity_ablation",
            Rule::HeldOutEntities => "held_out_entities",
        }
    }
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The rules, in the order they are checked.
pub const RULES: [Rule; 7] = [
    Rule::Parses,
    Rule::SamePack,
    Rule::Valid,
    Rule::SameClaim,
    Rule::Control,
    Rule::IdentityAblation,
    Rule::HeldOutEntities,
];

/// Why a candidate is not eligible: the first rule it fails, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ineligible {
    /// The rule.
    pub rule: Rule,
    /// What in the candidate fails it.
    pub why: String,
}

impl Ineligible {
    fn new(rule: Rule, why: impl Into<String>) -> Ineligible {
        Ineligible {
            rule,
            why: why.into(),
        }
    }
}

/// One candidate as judged.
#[derive(Debug, Clone, PartialEq)]
pub struct Judged {
    /// Where it came from (a file name or a registered experiment's name).
    pub source: String,
    /// The canonical hash of the experiment as it would run (with its derived seed; null
    /// when it does not parse).
    pub experiment_hash: Option<String>,
    /// The hash of its design normal form ([`crate::design::design_hash`]; null when it
    /// does not parse): equivalent candidates share it.
    pub design_hash: Option<String>,
    /// The derived seed it would run with (null when it does not parse).
    pub seed: Option<u64>,
    /// The first failing rule and why, or `None` when eligible.
    pub failed: Option<Ineligible>,
    /// The score breakdown (eligible candidates only).
    pub score: Option<Score>,
}

/// A score and its parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Score {
    /// Fewest test entities among the claim's arms.
    pub held_out: u64,
    /// The claim's arms that are cross-validated.
    pub cross_validated: u64,
    /// Ablations other than identity.
    pub ablations: u64,
}

impl Score {
    /// `held_out + 50 · cross_validated + 5 · ablations`.
    pub fn total(&self) -> u64 {
        self.held_out + 50 * self.cross_validated + 5 * self.ablations
    }
}

/// The selection: every candidate judged, the selected one, and the experiment to run.
#[derive(Debug, Clone)]
pub struct Selection {
    /// The prediction's hash.
    pub prediction_hash: String,
    /// Every candidate in the order given.
    pub candidates: Vec<Judged>,
    /// Index of the selected candidate, if any is eligible.
    pub selected: Option<usize>,
    /// The selected experiment with its seed replaced by the derived seed.
    pub to_run: Option<Experiment>,
}

/// The `counterlab.selection/1` record without its hash (FORMATS.md), field for field.
#[derive(Serialize)]
struct SelectionRecord<'a> {
    format: &'static str,
    prediction_hash: &'a str,
    rules: [Rule; 7],
    candidates: Vec<CandidateRecord<'a>>,
    selected: Option<Option<&'a str>>,
}

#[derive(Serialize)]
struct CandidateRecord<'a> {
    source: &'a str,
    experiment_hash: Option<&'a str>,
    design_hash: Option<&'a str>,
    seed: Option<u64>,
    eligible: bool,
    failed_rule: Option<Rule>,
    why: Option<&'a str>,
    score: Option<ScoreRecord>,
}

#[derive(Serialize)]
struct ScoreRecord {
    total: u64,
    held_out: u64,
    cross_validated: u64,
    ablations: u64,
}

impl<'a> CandidateRecord<'a> {
    fn of(c: &'a Judged) -> CandidateRecord<'a> {
        CandidateRecord {
            source: &c.source,
            experiment_hash: c.experiment_hash.as_deref(),
            design_hash: c.design_hash.as_deref(),
            seed: c.seed,
            eligible: c.failed.is_none(),
            failed_rule: c.failed.as_ref().map(|f| f.rule),
            why: c.failed.as_ref().map(|f| f.why.as_str()),
            score: c.score.map(|s| ScoreRecord {
                total: s.total(),
                held_out: s.held_out,
                cross_validated: s.cross_validated,
                ablations: s.ablations,
            }),
        }
    }
}

impl Selection {
    /// The record (`counterlab.selection/1`) without its own hash.
    fn record(&self) -> Value {
        let record = SelectionRecord {
            format: SELECTION_FORMAT,
            prediction_hash: &self.prediction_hash,
            rules: RULES,
            candidates: self.candidates.iter().map(CandidateRecord::of).collect(),
            selected: self
                .selected
                .map(|i| self.candidates[i].experiment_hash.as_deref()),
        };
        serde_json::to_value(record).expect("a selection record encodes")
    }

    /// The selection record's canonical hash (context `counterlab 2026-12 selection v1`).
    pub fn selection_hash(&self) -> String {
        canon::hash_value(HashKind::Selection, &self.record())
    }

    /// The record with its hash and the experiment to run.
    pub fn to_json(&self) -> Value {
        let mut value = self.record();
        let hash = self.selection_hash();
        value["experiment_to_run"] = self.to_run.as_ref().map_or(Value::Null, |e| {
            canon::to_value(e).expect("an experiment encodes")
        });
        value["selection_hash"] = json!(hash);
        value
    }
}

/// The seed every experiment selected for a prediction about `pack` runs with: the first
/// 8 bytes (little-endian) of the blake3 `derive_key` hash (context `counterlab 2026-12
/// selection seed v2`) of the pack id's length (8 bytes, little-endian), the pack id and
/// the manifest meaning hash's hex text. It reads nothing of the design or the claim
/// (module docs).
pub fn derived_seed(pack: &PredictionPack) -> u64 {
    let mut hasher = blake3::Hasher::new_derive_key("counterlab 2026-12 selection seed v2");
    hasher.update(&(pack.id.len() as u64).to_le_bytes());
    hasher.update(pack.id.as_bytes());
    hasher.update(pack.manifest_hash.as_bytes());
    let bytes = hasher.finalize();
    u64::from_le_bytes(bytes.as_bytes()[..8].try_into().expect("8 bytes"))
}

/// The candidates of a selection read from files: each file's path (its `source` in the
/// selection record) and bytes, read within the experiment budget. With no paths, the
/// pack's registered experiments (`experiments/*.json`, sorted) are the candidates.
pub fn read_candidates(pack: &Pack, paths: &[PathBuf]) -> Result<Vec<(String, Vec<u8>)>> {
    let registered;
    let paths = if paths.is_empty() {
        let dir = pack.dir().join("experiments");
        let entries = std::fs::read_dir(&dir).map_err(|e| Error::io(&dir, e))?;
        let mut found: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        found.sort();
        registered = found;
        &registered[..]
    } else {
        paths
    };
    paths
        .iter()
        .map(|path| {
            read_within(
                path,
                MAX_EXPERIMENT_BYTES,
                crate::words::Budget::Fixed("an experiment file"),
            )
            .map(|b| (path.display().to_string(), b))
        })
        .collect()
}

/// Judges `candidates` (source, JSON bytes) for `prediction` on `pack` and selects one.
pub fn select(pack: &Pack, prediction: &Prediction, candidates: &[(String, Vec<u8>)]) -> Selection {
    let judged: Vec<(Judged, Option<Experiment>)> = candidates
        .iter()
        .map(|(source, bytes)| judge(pack, prediction, source, bytes))
        .collect();
    let selected = judged
        .iter()
        .enumerate()
        .filter(|(_, (j, _))| j.failed.is_none())
        .max_by(|(_, (a, _)), (_, (b, _))| {
            let score = |j: &Judged| j.score.map_or(0, |s| s.total());
            // Highest score; on a tie the smallest hash wins (so it compares as greater).
            score(a)
                .cmp(&score(b))
                .then_with(|| b.experiment_hash.cmp(&a.experiment_hash))
        })
        .map(|(i, _)| i);
    let mut selection = Selection {
        prediction_hash: prediction.prediction_hash(),
        candidates: judged.iter().map(|(j, _)| j.clone()).collect(),
        selected,
        to_run: None,
    };
    if let Some(i) = selected {
        selection.to_run = judged[i].1.clone();
    }
    selection
}

/// `experiment` with the seed derived for a prediction about `pack` ([`derived_seed`]).
pub fn with_derived_seed(experiment: &Experiment, pack: &PredictionPack) -> Experiment {
    let mut seeded = experiment.clone();
    seeded.seed = derived_seed(pack);
    seeded
}

fn judge(
    pack: &Pack,
    prediction: &Prediction,
    source: &str,
    bytes: &[u8],
) -> (Judged, Option<Experiment>) {
    let mut judged = Judged {
        source: source.to_owned(),
        experiment_hash: None,
        design_hash: None,
        seed: None,
        failed: None,
        score: None,
    };
    let experiment = match Experiment::from_json(bytes) {
        Ok(e) => with_derived_seed(&e, &prediction.pack),
        Err(e) => {
            judged.failed = Some(Ineligible::new(Rule::Parses, e.to_string()));
            return (judged, None);
        }
    };
    judged.seed = Some(experiment.seed);
    judged.design_hash = Some(crate::design::design_hash(
        &experiment,
        &pack.manifest().data.features,
    ));
    judged.experiment_hash = canon::to_value(&experiment)
        .ok()
        .map(|v| canon::hash_value(HashKind::Experiment, &v));
    match rules(pack, prediction, &experiment) {
        Ok(score) => judged.score = Some(score),
        Err(failed) => judged.failed = Some(failed),
    }
    (judged, Some(experiment))
}

/// Rules 2–7 on a parsed experiment: the score, or the first failing rule and why.
fn rules(
    pack: &Pack,
    prediction: &Prediction,
    experiment: &Experiment,
) -> std::result::Result<Score, Ineligible> {
    if !prediction.is_about(pack) || experiment.pack != prediction.pack.id {
        return Err(Ineligible::new(
            Rule::SamePack,
            format!(
                "the prediction is about pack {:?}, the candidate runs on {:?}",
                prediction.pack.id, experiment.pack
            ),
        ));
    }
    eligibility(pack, &prediction.claim, experiment)
}

/// Rules 3–7 (`valid`, `same_claim`, `control`, `identity_ablation`,
/// `held_out_entities`) on an experiment that runs on `pack`, for `claim`: the score, or
/// the first failing rule and why. A revised design passes them again (src/revision.rs).
pub fn eligibility(
    pack: &Pack,
    claim: &crate::experiment::Claim,
    experiment: &Experiment,
) -> std::result::Result<Score, Ineligible> {
    experiment
        .check(pack)
        .map_err(|e| Ineligible::new(Rule::Valid, e.to_string()))?;
    let Some(claim) = experiment.claim.as_ref().filter(|c| *c == claim) else {
        return Err(Ineligible::new(
            Rule::SameClaim,
            "its claim is not the prediction's claim",
        ));
    };
    let claimed: Vec<&crate::experiment::Arm> = experiment
        .arms
        .iter()
        .filter(|a| claim.names_arm(&a.name))
        .collect();
    let controlled = claimed
        .iter()
        .any(|a| a.split.separates_entities() || a.split.orders_time());
    let baseline = !matches!(claim, crate::experiment::Claim::MetricGap { .. })
        && experiment
            .metrics
            .contains(&crate::metrics::MetricName::MajorityBaselineAccuracy);
    if !controlled && !baseline {
        return Err(Ineligible::new(
            Rule::Control,
            "no arm of the claim separates entities or orders time, and a single-arm claim has no majority_baseline_accuracy beside it",
        ));
    }
    if !experiment.ablation_list().iter().any(|a| a.drop.is_empty()) {
        return Err(Ineligible::new(
            Rule::IdentityAblation,
            "no ablation drops nothing",
        ));
    }
    let mut held_out = u64::MAX;
    for arm in &claimed {
        let entities = held_out_entities(pack, experiment, arm)
            .map_err(|e| Ineligible::new(Rule::Valid, e.to_string()))?;
        held_out = held_out.min(entities);
    }
    if held_out < MIN_HELD_OUT_ENTITIES {
        return Err(Ineligible::new(
            Rule::HeldOutEntities,
            format!(
                "an arm of the claim tests {held_out} entities, fewer than {MIN_HELD_OUT_ENTITIES}"
            ),
        ));
    }
    Ok(Score {
        held_out,
        cross_validated: claimed
            .iter()
            .filter(|a| a.split.cross_validation().is_some())
            .count() as u64,
        ablations: experiment
            .ablation_list()
            .iter()
            .filter(|a| !a.drop.is_empty())
            .count() as u64,
    })
}

/// Entities with test rows in `arm` (in any fold), under the seed it would run with.
fn held_out_entities(
    pack: &Pack,
    experiment: &Experiment,
    arm: &crate::experiment::Arm,
) -> Result<u64> {
    let table = pack.table();
    let test_rows: Vec<usize> = if arm.split.cross_validation().is_some() {
        // Every repeat tests the same rows (all of them, but a rolling origin's first
        // block, which has one repeat): the first says which.
        let repeats = crate::split::folds(table, &arm.split, experiment.seed, &JsonPath::root())?;
        repeats[0]
            .fold_of_row()
            .iter()
            .enumerate()
            .filter(|(_, f)| f.is_some())
            .map(|(r, _)| r)
            .collect()
    } else {
        crate::split::split(table, &arm.split, experiment.seed, &JsonPath::root())?.test_rows()
    };
    let mut seen = vec![false; table.n_entities()];
    for row in test_rows {
        seen[table.entity_of_row()[row] as usize] = true;
    }
    Ok(seen.iter().filter(|&&s| s).count() as u64)
}
