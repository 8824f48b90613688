//! `counterlab audit`: a user's own train/test split checked for leakage, no pack needed.
//!
//! The CSV becomes a pack in memory (as `counterlab init` would write it) and the split a
//! `predefined` arm. The audit reports what the split shares between its sides — entities
//! with rows on both sides, test rows whose entity is in training, test rows not after
//! every training time, test rows whose feature vector is a training row's — and how much
//! the split inflates ROC AUC: the same model under the user's split and under an
//! entity-grouped split with the same fraction of test entities, as a `metric_gap` claim
//! the verifier decides (so the gap's interval and p-value are the verifier's, and the
//! payload it writes with `--out` is checked by `counterlab verify` like any other).
//!
//! A **leak** is a test entity with rows in training, or (with a time column) a test row
//! at or before the latest training time. A **possible leak**, also exit 1, is a test
//! entity with no training row whose id looks like a training entity's id (one
//! [`entity_key`](crate::entity_key::entity_key): `C1-P07 ` and `c1-p7`, a Cyrillic `с`
//! for a Latin `c`, `3.0` and `3`): the audit cannot tell one entity written two ways from
//! two entities, so it names the pairs and the user decides. Duplicate feature rows are
//! reported but are not a leak by themselves: coarse features (a few categories) repeat
//! across honest splits.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::entity_key::quoted;
use crate::error::{Error, Result};
use crate::init::{scaffold, ExperimentFile, InitOptions, Scaffold};
use crate::pack::{LoadLimits, Pack, Packs};
use crate::run::{run_with, Payload, RunOptions};
use crate::split::{LookAlikePair, LookAlikes, Overlap};
use crate::stats::IntervalLabel;
use crate::verify::{verify, Report, Verdict, VerifyOptions};
use crate::Experiment;

/// The arm of the user's split.
pub const USER_ARM: &str = "your_split";
/// The arm of the entity-grouped split of the same size.
pub const GROUPED_ARM: &str = "entity_grouped";
/// The experiment file an audit writes into the pack (`experiments/audit.json`).
pub const EXPERIMENT_FILE: &str = "audit.json";
/// The payload file [`Audit::write_pack`] writes beside the pack.toml.
pub const PAYLOAD_FILE: &str = "audit.payload.json";

/// What `audit` is told about the CSV.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditOptions {
    /// The entity column.
    pub entity: String,
    /// The label column.
    pub label: String,
    /// The positive label level.
    pub positive: String,
    /// The 0/1 column marking the test rows.
    pub test_column: String,
    /// An integer time column, if any.
    pub time: Option<String>,
}

/// An audit's findings, with the pack, payload and report behind its numbers.
#[derive(Debug, Clone)]
pub struct Audit {
    /// The pack as `init` would write it, plus the audit's experiment.
    pub scaffold: Scaffold,
    /// The payload of the audit's experiment.
    pub payload: Payload,
    /// The verifier's report on that payload.
    pub report: Report,
    /// Training and test rows of the user's split.
    pub train_rows: u64,
    /// Test rows of the user's split.
    pub test_rows: u64,
    /// Entities with test rows.
    pub test_entities: u64,
    /// What the user's split shares between its sides.
    pub overlap: Overlap,
    /// Test rows whose entity also has training rows.
    pub test_rows_seen: u64,
    /// Test entities with no training row whose id looks like a training entity's id.
    pub look_alikes: LookAlikes,
    /// Whether a leak was found (see the module docs).
    pub leak: bool,
    /// Why, one phrase each (empty when no leak).
    pub leak_reasons: Vec<String>,
}

/// The `counterlab.audit/1` object (FORMATS.md), field for field.
#[derive(Serialize)]
struct AuditRecord<'a> {
    format: &'static str,
    file: &'a str,
    test_column: &'a str,
    rows: Rows,
    test_entities: u64,
    shared_entities: SharedEntities<'a>,
    test_rows_seen: u64,
    look_alike_entities: LookAlikeEntities<'a>,
    temporal_overlap_rows: Option<u64>,
    duplicate_feature_rows: u64,
    auc: AucComparison,
    problems: Vec<String>,
    leak: bool,
    leak_reasons: &'a [String],
    payload_hash: &'a str,
    report_hash: &'a str,
}

#[derive(Serialize)]
struct Rows {
    train: u64,
    test: u64,
}

#[derive(Serialize)]
struct SharedEntities<'a> {
    count: u64,
    first: &'a [String],
}

#[derive(Serialize)]
struct LookAlikeEntities<'a> {
    count: u64,
    test_rows: u64,
    pairs: u64,
    first: &'a [LookAlikePair],
}

/// The two arms' AUC and the verifier's decision on their gap.
#[derive(Serialize)]
struct AucComparison {
    your_split: Option<f64>,
    entity_grouped: Option<f64>,
    gap: Option<f64>,
    ci: Option<[f64; 2]>,
    interval: Option<IntervalLabel>,
    p_value: Option<f64>,
    verdict: Verdict,
}

impl Audit {
    /// ROC AUC of an arm ([`USER_ARM`] or [`GROUPED_ARM`]; `None` when undefined).
    pub fn auc(&self, arm: &str) -> Option<f64> {
        self.payload.results[arm].metrics["roc_auc"].value()
    }

    /// The `counterlab.audit/1` object (`counterlab audit --json`, the Python package's
    /// `counterlab.audit`); `file` names the data (a path, or `DataFrame`).
    pub fn to_json(&self, file: &str, test_column: &str) -> Value {
        let claim = self.report.claim();
        let record = AuditRecord {
            format: "counterlab.audit/1",
            file,
            test_column,
            rows: Rows {
                train: self.train_rows,
                test: self.test_rows,
            },
            test_entities: self.test_entities,
            shared_entities: SharedEntities {
                count: self.overlap.entities,
                first: &self.overlap.first_entities,
            },
            test_rows_seen: self.test_rows_seen,
            look_alike_entities: LookAlikeEntities {
                count: self.look_alikes.entities,
                test_rows: self.look_alikes.test_rows,
                pairs: self.look_alikes.pairs,
                first: &self.look_alikes.first_pairs,
            },
            temporal_overlap_rows: self.overlap.temporal_rows,
            duplicate_feature_rows: self.overlap.duplicate_feature_rows,
            auc: AucComparison {
                your_split: self.auc(USER_ARM),
                entity_grouped: self.auc(GROUPED_ARM),
                gap: claim.and_then(|c| c.observed),
                ci: claim.and_then(|c| c.ci),
                interval: claim.map(|c| c.interval.clone()),
                p_value: claim.and_then(|c| c.p_value),
                verdict: self.report.verdict().clone(),
            },
            problems: self.scaffold.findings.problems(),
            leak: self.leak,
            leak_reasons: &self.leak_reasons,
            payload_hash: self.report.payload_hash(),
            report_hash: self.report.report_hash(),
        };
        serde_json::to_value(record).expect("an audit encodes")
    }

    /// Writes the pack (as `init` would), the audit's experiment and its payload
    /// (`audit.payload.json`) into `out`, a new or empty folder, so that `counterlab
    /// verify` re-checks the audit's numbers. `fixture` is the CSV's bytes.
    pub fn write_pack(&self, out: &Path, fixture: &[u8]) -> Result<()> {
        if out.exists() && std::fs::read_dir(out).map_or(true, |mut e| e.next().is_some()) {
            return Err(Error::invalid(format!(
                "{} exists and is not an empty folder: write the audit's pack to a new folder (audit never overwrites)",
                out.display()
            )));
        }
        std::fs::create_dir_all(out.join("experiments")).map_err(|e| Error::io(out, e))?;
        let mut files: Vec<(PathBuf, Vec<u8>)> = vec![
            (
                out.join("pack.toml"),
                self.scaffold.manifest.clone().into_bytes(),
            ),
            (out.join(&self.scaffold.fixture_file), fixture.to_vec()),
        ];
        for experiment in &self.scaffold.experiments {
            files.push((
                out.join("experiments").join(&experiment.file_name),
                experiment.json.clone().into_bytes(),
            ));
        }
        let payload = self.payload.to_json_pretty()?;
        files.push((out.join(PAYLOAD_FILE), format!("{payload}\n").into_bytes()));
        for (path, bytes) in files {
            std::fs::write(&path, bytes).map_err(|e| Error::io(&path, e))?;
        }
        Ok(())
    }
}

/// Audits the split marked by `options.test_column` in the CSV at `path` (bytes `bytes`);
/// the comparison's claim is decided by the verifier under `verify_options` (the CLI's
/// are the defaults; `--out` writes the payload for a later `counterlab verify`, which
/// gives the same report with the same options).
pub fn audit(
    path: &Path,
    bytes: &[u8],
    options: &AuditOptions,
    limits: &LoadLimits,
    verify_options: &VerifyOptions,
) -> Result<Audit> {
    let init = InitOptions {
        entity: options.entity.clone(),
        label: options.label.clone(),
        positive: options.positive.clone(),
        time: options.time.clone(),
        test_column: Some(options.test_column.clone()),
        id: None,
    };
    let mut scaffold = scaffold(path, bytes, &init, limits)?;
    let dir = path.parent().unwrap_or(Path::new(""));
    let pack = Pack::from_parts(dir, &scaffold.manifest, bytes, limits)?;
    let table = pack.table();

    let split = crate::init::user_split(path, &pack, &options.test_column)?;
    let test_rows = split.test_rows();
    let train_rows = split.train_rows();
    let mut in_train = vec![false; table.n_entities()];
    for &row in &train_rows {
        in_train[table.entity_of_row()[row] as usize] = true;
    }
    let mut test_entity = vec![false; table.n_entities()];
    let mut test_rows_seen = 0;
    for &row in &test_rows {
        let e = table.entity_of_row()[row] as usize;
        test_entity[e] = true;
        test_rows_seen += u64::from(in_train[e]);
    }
    let test_entities = test_entity.iter().filter(|&&t| t).count();
    let groups = crate::split::look_alike_groups(table);
    let look_alikes = crate::split::look_alikes(table, &groups, &[&split]);
    // The grouped arm holds out the same share of rows as the user's split, as whole
    // entities (its test_fraction is a share of entities: with entities of similar size
    // the two splits have about as many test rows). It must leave both sides non-empty.
    let fraction = test_rows.len() as f64 / table.n_rows() as f64;
    let grouped_test_entities = (fraction * table.n_entities() as f64).ceil() as usize;
    if grouped_test_entities >= table.n_entities() || table.n_entities() < 2 {
        return Err(Error::invalid(format!(
            "the test column puts {} of {} rows in test: an entity-grouped split of that share leaves no entity for training",
            test_rows.len(),
            table.n_rows()
        )));
    }
    let experiment_json = serde_json::json!({
        "format": "counterlab.experiment/1",
        "pack": pack.id(),
        "seed": 1,
        "model": { "kind": "logistic", "c": 1.0 },
        "arms": [
            { "name": USER_ARM, "split": { "kind": "predefined", "column": options.test_column } },
            { "name": GROUPED_ARM, "split": { "kind": "entity_grouped", "test_fraction": fraction } },
        ],
        "ablations": [{ "name": "identity", "drop": [] }],
        "metrics": ["roc_auc", "accuracy", "balanced_accuracy", "majority_baseline_accuracy"],
        "claim": { "kind": "metric_gap", "metric": "roc_auc", "higher": USER_ARM, "lower": GROUPED_ARM, "at_least": 0.0 }
    });
    let mut experiment_text =
        serde_json::to_string_pretty(&experiment_json).expect("JSON values serialise");
    experiment_text.push('\n');
    let experiment = Experiment::from_json(experiment_text.as_bytes())?;
    let threads = verify_options.threads;
    let payload = run_with(&pack, &experiment, &RunOptions { threads })?;
    let overlap = payload.results[USER_ARM].overlap.clone();

    let mut packs = Packs::default();
    packs.insert(pack.clone())?;
    let payload_text = payload.to_json_pretty()?;
    let report = verify(payload_text.as_bytes(), &packs, verify_options);

    let mut leak_reasons = Vec::new();
    if overlap.entities > 0 {
        leak_reasons.push(format!(
            "{} test entities also have training rows",
            overlap.entities
        ));
    }
    if let Some(rows) = overlap.temporal_rows.filter(|&r| r > 0) {
        leak_reasons.push(format!(
            "{rows} test rows are at or before the latest training time"
        ));
    }
    if look_alikes.entities > 0 {
        leak_reasons.push(look_alike_reason(&look_alikes));
    }
    scaffold.experiments.push(ExperimentFile {
        file_name: EXPERIMENT_FILE.to_owned(),
        json: experiment_text,
    });
    Ok(Audit {
        scaffold,
        payload,
        report,
        train_rows: train_rows.len() as u64,
        test_rows: test_rows.len() as u64,
        test_entities: test_entities as u64,
        overlap,
        test_rows_seen,
        look_alikes,
        leak: !leak_reasons.is_empty(),
        leak_reasons,
    })
}

/// The possible-leak phrase of look-alike ids: how many, the first pairs, and the fix.
fn look_alike_reason(look_alikes: &LookAlikes) -> String {
    let shown: Vec<String> = look_alikes
        .first_pairs
        .iter()
        .map(|p| format!("test {} ~ training {}", quoted(&p.test), quoted(&p.train)))
        .collect();
    format!(
        "possible leak: {} test entities ({} test rows) have no training row but an id that looks like a training entity's id after normalisation ({}{}): if they are one entity written two ways, write each id one way (the split then shares the entity); if they are distinct entities, give them ids that do not look alike",
        look_alikes.entities,
        look_alikes.test_rows,
        shown.join("; "),
        if look_alikes.pairs > shown.len() as u64 { "; …" } else { "" }
    )
}
