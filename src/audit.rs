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
//! The entity-grouped side is **repeated**: `entity_k_fold` with K = round(1 / test share)
//! folds (each fold an entity-grouped split holding out about the user's share of rows)
//! drawn [`GROUPED_REPEATS`] times from `--seed`, its AUC the mean over repeats and its
//! interval the repeated-CV one (docs/METRICS.md): one draw of a grouped split moved the
//! audit's verdict with the seed (issue 32). With a margin M (at most 0.1, the materiality
//! ceiling of ROC AUC: docs/VERDICTS.md, "Material margins") the claim is `at_most M`
//! and the audit decides **material leak** (the interval wholly above M), **no material
//! leak** (wholly below) or **undecided**.
//!
//! A **leak** is a test entity with rows in training, or (with a time column) a test row
//! at or before the latest training time. A **possible leak**, also exit 1, is a test
//! entity with no training row whose id looks like a training entity's id, in either tier
//! of [`look_alike`](crate::entity_key::look_alike) (`C1-P07 ` and `c1-p7`, a Cyrillic
//! `с` or `В` for a Latin `c` or `B`, `3.0` and `3`, `COOO1` and `C0001`, `1,000` and
//! `1000`, `A-12` and `A12`): the audit cannot tell one entity written two ways from
//! two entities, so it names the pairs and the user decides.
//!
//! **Duplicate feature rows** are a leak when there are more of them than an honest split
//! of the same data gives. Coarse features (a few categories) repeat across honest splits,
//! so a count alone says nothing; but an honest split's test rows find their feature
//! vector in training about as often as training rows find theirs in another training
//! entity's rows (the share `p`). The duplicates are a leak when the test rows that have a
//! training row's vector exceed `p × test rows` by more than three binomial standard
//! deviations, `√(test rows × p × (1 − p))`, and by more than 5% of the test rows:
//! training rows copied to the test side under
//! new ids (with `p` near 0, any copy). With `--margin`, a **material leak** decision (the
//! inflation's interval wholly above the margin) is a leak too: the exit code follows
//! every leak the audit prints.

use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use crate::entity_key::quoted;
use crate::error::{Error, Result};
use crate::experiment::ModelSpec;
use crate::init::{scaffold, ExperimentFile, InitOptions, Scaffold};
use crate::pack::{LoadLimits, Pack, Packs, TimeKind};
use crate::run::{run_with, Payload, RunOptions};
use crate::split::{LookAlikePair, LookAlikes, Overlap};
use crate::stats::IntervalLabel;
use crate::verify::{verify, Report, Verdict, VerifyOptions};
use crate::words::{Opt, Text};
use crate::Experiment;

/// The arm of the user's split.
pub const USER_ARM: &str = "your_split";
/// The arm of the entity-grouped split of the same size.
pub const GROUPED_ARM: &str = "entity_grouped";
/// The experiment file an audit writes into the pack (`experiments/audit.json`).
pub const EXPERIMENT_FILE: &str = "audit.json";
/// How many times the entity-grouped comparison draws its folds (docs/CALIBRATION.md, "Seed
/// stability": 5 repeats made the headline gap's spread over seeds 0.16 of its interval's
/// half-width).
pub const GROUPED_REPEATS: u32 = 5;

/// The most folds of the entity-grouped comparison: K = round(1 / test share), clamped to
/// 2..=10, so a test share under 1/10 is compared with folds holding out 1/10 each.
pub const GROUPED_MAX_FOLDS: u32 = 10;

/// The payload file [`Audit::write_pack`] writes beside the pack.toml.
pub const PAYLOAD_FILE: &str = "audit.payload.json";

/// What `audit` is told about the CSV.
#[derive(Debug, Clone, PartialEq)]
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
    /// What the time column's numbers mean (default: guessed from its name, as `init`).
    pub time_kind: Option<crate::pack::TimeKind>,
    /// Further entity columns (a coarser level the entity nests in, or a crossed one),
    /// each audited like `entity`.
    pub more_entities: Vec<String>,
    /// The seed of the entity-grouped comparison's fold draws (the CLI's `--seed`,
    /// default 1).
    pub seed: u64,
    /// A materiality margin on the AUC gap, in (0, 0.1] (the materiality ceiling of ROC
    /// AUC): the claim becomes `at_most` margin and the audit decides material leak / no
    /// material leak / undecided.
    pub margin: Option<f64>,
    /// The model of both sides of the comparison (`--model`; default logistic, C = 1).
    pub model: ModelSpec,
    /// The texts read as a missing value besides the empty cell (`--missing-values`).
    pub missing_values: crate::pack::MissingValues,
    /// Columns kept as features although they are suspect (as `init`'s `keep`).
    pub keep: Vec<String>,
    /// Columns left out of the features (as `init`'s `drop`): another split column, say.
    pub drop: Vec<String>,
    /// Exactly these columns as the model's features, in this order (as `init`'s
    /// `features`; default: every usable column that is not suspect).
    pub features: Option<Vec<String>>,
}

impl Default for AuditOptions {
    /// No columns named (a caller names the entity, label, positive class and test
    /// column); seed 1, the CLI's; no margin; the logistic model; the default missing
    /// texts; every usable column a feature.
    fn default() -> Self {
        AuditOptions {
            entity: String::new(),
            label: String::new(),
            positive: String::new(),
            test_column: String::new(),
            time: None,
            time_kind: None,
            more_entities: Vec::new(),
            seed: 1,
            margin: None,
            model: ModelSpec::default(),
            missing_values: crate::pack::MissingValues::default(),
            keep: Vec::new(),
            drop: Vec::new(),
            features: None,
        }
    }
}

/// What `--margin` decided of the AUC inflation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Materiality {
    /// The gap's interval lies wholly above the margin.
    MaterialLeak,
    /// The gap's interval lies wholly below the margin.
    NoMaterialLeak,
    /// Neither (or the gap is undefined).
    Undecided,
}

impl Materiality {
    /// As printed.
    pub fn as_str(self) -> &'static str {
        match self {
            Materiality::MaterialLeak => "material leak",
            Materiality::NoMaterialLeak => "no material leak",
            Materiality::Undecided => "undecided",
        }
    }
}

/// An audit's findings, with the pack, payload and report behind its numbers.
#[derive(Debug, Clone)]
pub struct Audit {
    /// The entity column this audit groups by.
    pub entity: String,
    /// The pack as `init` would write it, plus the audit's experiment.
    pub scaffold: Scaffold,
    /// The AUC comparison with an entity-grouped split, or why it could not be built (the
    /// split's overlap is reported either way).
    pub comparison: ComparisonOutcome,
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
    /// Whether a leak was found at this entity's level or at a further one (see the
    /// module docs).
    pub leak: bool,
    /// Why, one phrase each (empty when no leak); a further level's prefixed with it.
    pub leak_reasons: Vec<String>,
    /// The same audit grouped by each further entity column (`AuditOptions::more_entities`).
    pub further: Vec<Audit>,
}

/// An audit's AUC comparison, or why there is none.
#[derive(Debug, Clone)]
pub enum ComparisonOutcome {
    /// Built, and its claim decided by the verifier.
    Built(Box<Comparison>),
    /// Not built, and why (the split's overlap and leak are reported all the same).
    NotBuilt(NoComparison),
}

impl ComparisonOutcome {
    /// The comparison, when it was built.
    pub fn built(&self) -> Option<&Comparison> {
        match self {
            ComparisonOutcome::Built(comparison) => Some(comparison),
            ComparisonOutcome::NotBuilt(_) => None,
        }
    }

    /// Why the comparison was not built, when it was not.
    pub fn why_not(&self) -> Option<&NoComparison> {
        match self {
            ComparisonOutcome::Built(_) => None,
            ComparisonOutcome::NotBuilt(why) => Some(why),
        }
    }
}

/// Why an audit's AUC comparison could not be built.
#[derive(Debug, Clone)]
pub enum NoComparison {
    /// The data has fewer than two entities: an entity-grouped split needs two.
    TooFewEntities {
        /// The entities the data has.
        entities: usize,
    },
    /// Running the comparison's experiment stopped with this error (a fold the run
    /// refuses, say).
    RunFailed(Error),
}

impl std::fmt::Display for NoComparison {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoComparison::TooFewEntities { entities } => write!(
                f,
                "the data has {entities} entit{}: an entity-grouped comparison needs two",
                if *entities == 1 { "y" } else { "ies" }
            ),
            NoComparison::RunFailed(error) => write!(f, "{error}"),
        }
    }
}

/// The user's split against repeated entity-grouped folds: the payload, the verifier's
/// report on its claim, and what the margin decides.
#[derive(Debug, Clone)]
pub struct Comparison {
    /// The payload of the audit's experiment.
    pub payload: Payload,
    /// The verifier's report on that payload.
    pub report: Report,
    /// The margin asked for, and what the verifier's interval decides of it.
    pub materiality: Option<(f64, Materiality)>,
    /// Folds of the entity-grouped comparison (each holds out about the user's share).
    pub grouped_folds: u32,
}

impl Comparison {
    /// ROC AUC of an arm ([`USER_ARM`] or [`GROUPED_ARM`]; `None` when undefined).
    pub fn auc(&self, arm: &str) -> Option<f64> {
        self.payload.results[arm].metrics["roc_auc"].value()
    }
}

/// The `counterlab.audit/1` object (FORMATS.md), field for field.
#[derive(Serialize)]
struct AuditRecord<'a> {
    format: &'static str,
    file: &'a str,
    test_column: &'a str,
    entity: &'a str,
    features: Vec<&'a str>,
    rows: Rows,
    test_entities: u64,
    shared_entities: SharedEntities<'a>,
    test_rows_seen: u64,
    look_alike_entities: LookAlikeEntities<'a>,
    temporal_overlap_rows: Option<u64>,
    time_kind: Option<&'static str>,
    duplicate_feature_rows: u64,
    auc: Option<AucComparison>,
    comparison_error: Option<&'a str>,
    suspect_columns: &'a [crate::suspect::Suspect],
    coarser_levels: Vec<&'a str>,
    problems: Vec<String>,
    leak: bool,
    leak_reasons: &'a [String],
    payload_hash: Option<&'a str>,
    report_hash: Option<&'a str>,
    further_entities: Vec<Value>,
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
    entity_grouped_folds: u32,
    entity_grouped_repeats: u32,
    entity_grouped_sd: Option<f64>,
    seed: u64,
    gap: Option<f64>,
    ci: Option<[f64; 2]>,
    interval: Option<IntervalLabel>,
    p_value: Option<f64>,
    verdict: Verdict,
    #[serde(skip_serializing_if = "Option::is_none")]
    margin: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    decision: Option<Materiality>,
}

impl AucComparison {
    fn of(comparison: &Comparison) -> AucComparison {
        let claim = comparison.report.claim();
        AucComparison {
            your_split: comparison.auc(USER_ARM),
            entity_grouped: comparison.auc(GROUPED_ARM),
            entity_grouped_folds: comparison.grouped_folds,
            entity_grouped_repeats: GROUPED_REPEATS,
            entity_grouped_sd: comparison.payload.results[GROUPED_ARM]
                .between_repeat_sd
                .as_ref()
                .and_then(|sd| sd["roc_auc"].value()),
            seed: comparison.payload.experiment.seed,
            gap: claim.and_then(|c| c.observed),
            ci: claim.and_then(|c| c.ci),
            interval: claim.map(|c| c.interval.clone()),
            p_value: claim.and_then(|c| c.p_value),
            verdict: comparison.report.verdict().clone(),
            margin: comparison.materiality.map(|(m, _)| m),
            decision: comparison.materiality.map(|(_, d)| d),
        }
    }
}

impl Audit {
    /// ROC AUC of an arm ([`USER_ARM`] or [`GROUPED_ARM`]; `None` when undefined or when
    /// the comparison could not be built).
    pub fn auc(&self, arm: &str) -> Option<f64> {
        self.comparison.built()?.auc(arm)
    }

    /// The features the audit's model used, in model order (the pack's `data.features`:
    /// the order `features` asked for, else the file's).
    pub fn features(&self) -> Vec<&str> {
        self.scaffold
            .pack
            .manifest()
            .data
            .features
            .iter()
            .map(String::as_str)
            .collect()
    }

    /// The `counterlab.audit/1` object (`counterlab audit --json`, the Python package's
    /// `counterlab.audit`); `file` names the data (a path, or `DataFrame`).
    pub fn to_json(&self, file: &str, test_column: &str) -> Value {
        let comparison = self.comparison.built();
        let why_not = self.comparison.why_not().map(ToString::to_string);
        let record = AuditRecord {
            format: "counterlab.audit/1",
            file,
            test_column,
            entity: &self.entity,
            features: self.features(),
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
            time_kind: self.time_kind().map(TimeKind::as_str),
            duplicate_feature_rows: self.overlap.duplicate_feature_rows,
            auc: comparison.map(AucComparison::of),
            comparison_error: why_not.as_deref(),
            suspect_columns: &self.scaffold.findings.suspects,
            coarser_levels: self
                .scaffold
                .findings
                .coarser_levels()
                .map(|s| s.column.as_str())
                .collect(),
            problems: self.scaffold.findings.problems(),
            leak: self.leak,
            leak_reasons: &self.leak_reasons,
            payload_hash: comparison.map(|c| c.report.payload_hash()),
            report_hash: comparison.map(|c| c.report.report_hash()),
            further_entities: self
                .further
                .iter()
                .map(|a| a.to_json(file, test_column))
                .collect(),
        };
        serde_json::to_value(record).expect("an audit encodes")
    }

    /// What the time column means, when there is one.
    pub fn time_kind(&self) -> Option<TimeKind> {
        self.overlap.temporal_rows.map(|_| self.scaffold.time_kind)
    }

    /// Writes the pack (as `init` would), the audit's experiment and its payload
    /// (`audit.payload.json`) into `out`, a new or empty folder, so that `counterlab
    /// verify` re-checks the audit's numbers. `fixture` is the CSV's bytes.
    pub fn write_pack(&self, out: &Path, fixture: &[u8]) -> Result<()> {
        let comparison = match &self.comparison {
            ComparisonOutcome::Built(comparison) => comparison,
            ComparisonOutcome::NotBuilt(why) => {
                return Err(Error::invalid(format!(
                    "the audit's comparison could not be built ({why}), so there is no payload to write for counterlab verify"
                )))
            }
        };
        if !crate::pack_folder::is_free(out) {
            return Err(Error::invalid(format!(
                "{} exists and is not an empty folder: write the audit's pack to a new folder (audit never overwrites)",
                out.display()
            )));
        }
        crate::pack_folder::write(out, &self.scaffold, fixture)?;
        let payload = comparison.payload.to_json_pretty()?;
        let path = out.join(PAYLOAD_FILE);
        std::fs::write(&path, format!("{payload}\n")).map_err(|e| Error::io(&path, e))
    }
}

/// Audits the split marked by `options.test_column` in the CSV at `path` (bytes `bytes`),
/// grouped by `options.entity` and then by each of `options.more_entities`; the
/// comparison's claim is decided by the verifier under `verify_options` (the CLI's are the
/// defaults; `--out` writes the payload for a later `counterlab verify`, which gives the
/// same report with the same options).
pub fn audit(
    path: &Path,
    bytes: &[u8],
    options: &AuditOptions,
    limits: &LoadLimits,
    verify_options: &VerifyOptions,
) -> Result<Audit> {
    if let Some(margin) = options.margin {
        check_margin(margin)?;
    }
    // Every further entity column exists before any level is audited.
    let csv = crate::csv_input::StrictCsv::new(path, bytes, limits.max_columns, limits.max_rows)?;
    for entity in &options.more_entities {
        csv.column_for(entity, Some(Text::opt(Opt::Entity)))?;
    }
    // Every level's model reads the same features, and no entity column is one of them.
    let entities: Vec<&String> = std::iter::once(&options.entity)
        .chain(&options.more_entities)
        .collect();
    for (request, names) in [
        ("drop", &options.drop),
        ("keep", &options.keep),
        ("features", options.features.as_ref().unwrap_or(&Vec::new())),
    ] {
        if let Some(name) = names.iter().find(|n| entities.contains(n)) {
            return Err(Error::invalid(format!(
                "{request}: column {name:?} is an entity column of this audit; an entity is never a feature"
            )));
        }
    }
    let mut audit = audit_level(
        path,
        bytes,
        options,
        &options.entity,
        limits,
        verify_options,
    )?;
    for entity in &options.more_entities {
        if *entity == options.entity || audit.further.iter().any(|a| a.entity == *entity) {
            return Err(Error::invalid(format!(
                "entity column {entity:?} is named twice"
            )));
        }
        let level = audit_level(path, bytes, options, entity, limits, verify_options)?;
        audit.leak |= level.leak;
        audit.leak_reasons.extend(
            level
                .leak_reasons
                .iter()
                .map(|why| format!("grouped by {entity:?}: {why}")),
        );
        audit.further.push(level);
    }
    Ok(audit)
}

/// A materiality margin on the ROC AUC gap: above 0, and at most the materiality ceiling
/// of ROC AUC ([`crate::stats::MATERIAL_MARGIN_ROC_AUC`], docs/VERDICTS.md "Material
/// margins"): a wider margin would make "no material leak" a vacuous claim (a gap that
/// large moves a model across an AUC band), so it is refused before anything runs, with
/// the option named in each front end's words.
fn check_margin(margin: f64) -> Result<()> {
    let ceiling = crate::stats::MATERIAL_MARGIN_ROC_AUC;
    if margin.is_finite() && margin > 0.0 && margin <= ceiling {
        return Ok(());
    }
    let why = if margin.is_finite() && margin > ceiling {
        format!(
            " is above the materiality ceiling {ceiling} of ROC AUC: a gap that large moves a model across an AUC band (0.7, 0.8, 0.9), so \"no material leak\" under it would say nothing (docs/VERDICTS.md, \"Material margins\"); give a margin above 0 and at most {ceiling}"
        )
    } else {
        format!(" must be an AUC difference above 0 and at most {ceiling}")
    };
    Err(Error::invalid(
        Text::opt_value(Opt::Margin, margin.to_string()).then(why),
    ))
}

/// The audit grouped by `entity`.
fn audit_level(
    path: &Path,
    bytes: &[u8],
    options: &AuditOptions,
    entity: &str,
    limits: &LoadLimits,
    verify_options: &VerifyOptions,
) -> Result<Audit> {
    // The other entity columns are never features: every level's model reads the same
    // columns, and an id of one level must not identify the rows of another.
    let mut drop: Vec<String> = std::iter::once(&options.entity)
        .chain(&options.more_entities)
        .filter(|e| *e != entity)
        .cloned()
        .collect();
    drop.extend(options.drop.iter().cloned());
    let init = InitOptions {
        entity: entity.to_owned(),
        label: options.label.clone(),
        positive: options.positive.clone(),
        time: options.time.clone(),
        test_column: Some(options.test_column.clone()),
        id: None,
        time_kind: options.time_kind,
        keep: options.keep.clone(),
        drop,
        features: options.features.clone(),
        model: options.model.clone(),
        missing_values: options.missing_values.clone(),
    };
    let mut scaffold = scaffold(path, bytes, &init, limits)?;
    let pack = scaffold.pack.clone();
    let table = pack.table();

    let split = crate::init::user_split(path, &pack, &options.test_column)?;
    let test_rows = split.test_rows();
    let train_rows = split.train_rows();
    let (test_entities, test_rows_seen) = entities_seen(table, &split);
    let groups = crate::split::look_alike_groups(table);
    let look_alikes = crate::split::look_alikes(table, &groups, &[&split]);
    let overlap = crate::split::overlap(table, &split, table.feature_names());
    let fraction = test_rows.len() as f64 / table.n_rows() as f64;
    let comparison = comparison_experiment(&pack, options, fraction).map(
        |(experiment_text, grouped_folds)| -> Result<Comparison> {
            // The audit's pack declares the comparison's own budget when it needs more
            // than the default, so that `verify` of the payload it writes needs no flag.
            let mut experiments = scaffold
                .experiments
                .iter()
                .map(|e| Experiment::from_json(e.json.as_bytes()))
                .collect::<Result<Vec<_>>>()?;
            experiments.push(Experiment::from_json(experiment_text.as_bytes())?);
            if let Some(section) = crate::init::budget_section(&pack, &experiments) {
                scaffold.manifest = with_budget(&scaffold.manifest, &section);
                let dir = path.parent().unwrap_or(Path::new(""));
                scaffold.pack = Pack::from_parts(dir, &scaffold.manifest, bytes, limits)?;
            }
            let comparison = compare(
                &scaffold.pack,
                &experiment_text,
                grouped_folds,
                options,
                verify_options,
            )?;
            scaffold.experiments.push(ExperimentFile {
                file_name: EXPERIMENT_FILE.to_owned(),
                json: experiment_text,
            });
            Ok(comparison)
        },
    );
    let comparison = match comparison {
        Ok(Ok(comparison)) => ComparisonOutcome::Built(Box::new(comparison)),
        Ok(Err(error)) => ComparisonOutcome::NotBuilt(NoComparison::RunFailed(error)),
        Err(why) => ComparisonOutcome::NotBuilt(why),
    };
    let duplicates = Duplicates::of(table, &split, &overlap);
    let mut leak_reasons = leak_reasons(&overlap, scaffold.time_kind, &look_alikes, &duplicates);
    if let Some(comparison) = comparison.built() {
        leak_reasons.extend(material_reason(comparison));
    }
    Ok(Audit {
        entity: entity.to_owned(),
        scaffold,
        comparison,
        train_rows: train_rows.len() as u64,
        test_rows: test_rows.len() as u64,
        test_entities,
        overlap,
        test_rows_seen,
        look_alikes,
        leak: !leak_reasons.is_empty(),
        leak_reasons,
        further: Vec::new(),
    })
}

/// `manifest` with its `[verify]` section (if any) replaced by `section`.
fn with_budget(manifest: &str, section: &str) -> String {
    let kept = manifest
        .find(crate::init::BUDGET_COMMENT)
        .map_or(manifest, |at| &manifest[..at]);
    format!("{}\n{section}", kept.trim_end_matches('\n'))
}

/// Entities with test rows, and test rows whose entity has training rows.
fn entities_seen(table: &crate::table::Table, split: &crate::split::Split) -> (u64, u64) {
    let mut in_train = vec![false; table.n_entities()];
    for row in split.train_rows() {
        in_train[table.entity_of_row()[row] as usize] = true;
    }
    let mut test_entity = vec![false; table.n_entities()];
    let mut test_rows_seen = 0;
    for row in split.test_rows() {
        let e = table.entity_of_row()[row] as usize;
        test_entity[e] = true;
        test_rows_seen += u64::from(in_train[e]);
    }
    (
        test_entity.iter().filter(|&&t| t).count() as u64,
        test_rows_seen,
    )
}

/// Runs the comparison experiment and has the verifier decide its claim.
fn compare(
    pack: &Pack,
    experiment_text: &str,
    grouped_folds: u32,
    options: &AuditOptions,
    verify_options: &VerifyOptions,
) -> Result<Comparison> {
    let experiment = Experiment::from_json(experiment_text.as_bytes())?;
    let threads = verify_options.threads;
    let payload = run_with(pack, &experiment, &RunOptions { threads })?;
    let mut packs = Packs::default();
    packs.insert(pack.clone())?;
    let payload_text = payload.to_json_pretty()?;
    let report = verify(payload_text.as_bytes(), &packs, verify_options);
    let materiality = options.margin.map(|margin| (margin, materiality(&report)));
    Ok(Comparison {
        payload,
        report,
        materiality,
        grouped_folds,
    })
}

/// The test rows with a training row's feature vector against what an honest split of
/// this data gives (module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Duplicates {
    /// Test rows whose feature vector equals a training row's.
    test_rows: u64,
    /// Share of training rows whose feature vector equals the vector of a training row of
    /// another entity: how often an honest split's test row finds its vector in training.
    share: f64,
    /// Test rows of the user's split.
    of: u64,
}

impl Duplicates {
    fn of(table: &crate::table::Table, split: &crate::split::Split, overlap: &Overlap) -> Self {
        let columns = table.feature_columns(table.feature_names());
        let bits = |row: usize| {
            columns
                .iter()
                .map(move |c| crate::canon::float_bits(c[row]))
        };
        let mut train = split.train_rows();
        train.sort_unstable_by(|&a, &b| bits(a).cmp(bits(b)));
        let entity = table.entity_of_row();
        // Runs of equal vectors: every row of a run with two or more entities shares its
        // vector with another entity's row.
        let mut shared = 0usize;
        let mut start = 0;
        while start < train.len() {
            let mut end = start + 1;
            while end < train.len() && bits(train[end]).eq(bits(train[start])) {
                end += 1;
            }
            let first = entity[train[start]];
            if train[start..end].iter().any(|&r| entity[r] != first) {
                shared += end - start;
            }
            start = end;
        }
        Duplicates {
            test_rows: overlap.duplicate_feature_rows,
            share: if train.is_empty() {
                0.0
            } else {
                shared as f64 / train.len() as f64
            },
            of: split.test_rows().len() as u64,
        }
    }

    /// The test rows an honest split would give about as many duplicates of.
    fn expected(&self) -> f64 {
        self.share * self.of as f64
    }

    /// More duplicates than an honest split gives: above the expected count by more than
    /// three binomial standard deviations and by more than 5% of the test rows. The share
    /// is estimated among training entities, a test row meets one entity more, so on real
    /// data with coarse features the two rates differ a little without any copy (verbagg's
    /// honest split of persons: 1,872 test rows with a training row's vector where 1,792
    /// were expected, 8 standard deviations but 4% of its 1,896 test rows), while each row
    /// copied under a new id adds a whole duplicate.
    fn excessive(&self) -> bool {
        let n = self.of as f64;
        let sd = (n * self.share * (1.0 - self.share)).sqrt();
        let excess = self.test_rows as f64 - self.expected();
        self.test_rows > 0 && excess > 3.0 * sd && excess > MATERIAL_DUPLICATE_SHARE * n
    }
}

/// The share of the test rows that duplicates must exceed an honest split's count by to be a
/// leak ([`Duplicates`]' rule): below it, their effect on a metric is small beside its
/// interval, and the estimate of the honest count is not that exact.
const MATERIAL_DUPLICATE_SHARE: f64 = 0.05;

/// The material-leak phrase of a `--margin` decided above the margin, if it was.
fn material_reason(comparison: &Comparison) -> Option<String> {
    let (margin, decision) = comparison.materiality?;
    if decision != Materiality::MaterialLeak {
        return None;
    }
    let claim = comparison.report.claim();
    let gap = claim
        .and_then(|c| c.observed)
        .map_or("undefined".to_owned(), |g| format!("{g:.4}"));
    let ci = claim.and_then(|c| c.ci).map_or(String::new(), |[lo, hi]| {
        format!(" (95% CI [{lo:.4}, {hi:.4}])")
    });
    Some(format!(
        "material leak: the split inflates ROC AUC by {gap}{ci} against entity-grouped splits, its interval wholly above the margin {margin}"
    ))
}

/// Why the split leaks, one phrase each: entities on both sides, test rows not after the
/// training times (calendar time only: a visit number is not compared across entities),
/// look-alike ids, more duplicate feature rows than an honest split gives.
fn leak_reasons(
    overlap: &Overlap,
    time_kind: TimeKind,
    look_alikes: &LookAlikes,
    duplicates: &Duplicates,
) -> Vec<String> {
    let mut reasons = Vec::new();
    if overlap.entities > 0 {
        reasons.push(format!(
            "{} test entities also have training rows",
            overlap.entities
        ));
    }
    if let Some(rows) = overlap
        .temporal_rows
        .filter(|&r| r > 0 && time_kind.is_calendar())
    {
        reasons.push(format!(
            "{rows} test rows are at or before the latest training time"
        ));
    }
    if look_alikes.entities > 0 {
        reasons.push(look_alike_reason(look_alikes));
    }
    if duplicates.excessive() {
        reasons.push(format!(
            "{} test rows have the feature vector of a training row, where an honest split of this data gives about {:.0} ({:.1}% of training rows share their vector with another entity's): training rows copied to the test side under other ids; remove the copies, or give each its entity's id",
            duplicates.test_rows,
            duplicates.expected(),
            100.0 * duplicates.share
        ));
    }
    reasons
}

/// The audit's experiment (as written into the pack) and the grouped arm's fold count: the
/// user's split against repeated entity-grouped folds of about the same test share
/// `fraction`, with the inflation claim (`at_least 0`, or `at_most` the margin); or why
/// there can be none.
fn comparison_experiment(
    pack: &Pack,
    options: &AuditOptions,
    fraction: f64,
) -> std::result::Result<(String, u32), NoComparison> {
    // The grouped arm holds out about the same share of rows as the user's split, as
    // whole entities, in each of K folds (K = round(1 / share), at least 2, at most the
    // entities), drawn GROUPED_REPEATS times.
    if pack.table().n_entities() < 2 {
        return Err(NoComparison::TooFewEntities {
            entities: pack.table().n_entities(),
        });
    }
    // At most GROUPED_MAX_FOLDS: a small test share holds out 1/10 per fold rather than
    // multiply the fits (and the work budget) by 1/share.
    let max_folds = (pack.table().n_entities() as u32).min(GROUPED_MAX_FOLDS);
    let grouped_folds = ((1.0 / fraction).round() as u32).clamp(2, max_folds);
    let claim = match options.margin {
        None => {
            serde_json::json!({ "kind": "metric_gap", "metric": "roc_auc", "higher": USER_ARM, "lower": GROUPED_ARM, "at_least": 0.0 })
        }
        Some(margin) => {
            serde_json::json!({ "kind": "metric_gap", "metric": "roc_auc", "higher": USER_ARM, "lower": GROUPED_ARM, "at_most": margin })
        }
    };
    let experiment_json = serde_json::json!({
        "format": "counterlab.experiment/1",
        "pack": pack.id(),
        "seed": options.seed,
        "model": options.model,
        "arms": [
            { "name": USER_ARM, "split": { "kind": "predefined", "column": options.test_column } },
            { "name": GROUPED_ARM, "split": { "kind": "entity_k_fold", "folds": grouped_folds, "repeats": GROUPED_REPEATS } },
        ],
        "ablations": [{ "name": "identity", "drop": [] }],
        "metrics": ["roc_auc", "accuracy", "balanced_accuracy", "majority_baseline_accuracy"],
        "claim": claim
    });
    let mut experiment_text =
        serde_json::to_string_pretty(&experiment_json).expect("JSON values serialise");
    experiment_text.push('\n');
    Ok((experiment_text, grouped_folds))
}

/// What the verifier's `at_most` claim says of the margin: its interval wholly above
/// (contradicted: a material leak), wholly below (supported: none), or neither.
fn materiality(report: &Report) -> Materiality {
    match report.claim().map(|c| c.outcome) {
        Some(crate::stats::ClaimOutcome::Contradicts) => Materiality::MaterialLeak,
        Some(crate::stats::ClaimOutcome::Supports) => Materiality::NoMaterialLeak,
        _ => Materiality::Undecided,
    }
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
