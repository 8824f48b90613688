//! `counterlab init`: a pack folder from a user's CSV — the manifest with the fixture's
//! hash, every usable column as a feature (text columns as categorical, with their
//! levels), the columns it could not use with why, and starter experiments with
//! cross-validated arms that `counterlab run` accepts with no edit: each pair of designs
//! twice, once claiming the first inflates ROC AUC (`at_least: 0`) and once claiming the
//! two differ by no material amount (`at_most:` [`MATERIAL_MARGIN`]).
//!
//! Nothing here guesses silently: a column is a numeric feature only when every cell is a
//! finite number, a categorical one when a cell is text and it has at most [`MAX_LEVELS`]
//! values (as written: "3+" beside "0"), at most half the rows and none longer than
//! [`MAX_LEVEL_BYTES`]; anything else is listed as not used, with the reason and the fix.
//! Suspect columns ([`crate::suspect`]) are left out with their evidence unless kept. The generated pack is loaded and every starter experiment validated before
//! anything is written, so what `init` writes is what `run` reads.

use std::collections::BTreeMap;
use std::path::Path;

use crate::csv_input::StrictCsv;
use crate::error::{Error, Result};
use crate::experiment::{Experiment, ModelSpec};
use crate::json_path::JsonPath;
use crate::pack::check::Findings;
use crate::pack::{toml_key, LoadLimits, Pack};

mod choices;
mod columns;

use crate::pack::TimeKind;
use crate::suspect::Suspect;
use crate::words::{Opt, Text};
use choices::FeaturePlan;

/// Most levels of a text column taken as categorical; more is an identifier or free text.
pub use crate::suspect::MAX_LEVELS;

/// Longest category level, in bytes: a longer cell is free text, and its levels would
/// not fit `pack.toml` (read up to 1 MiB).
pub const MAX_LEVEL_BYTES: usize = 256;

/// Folds of the starter experiments' cross-validated arms (fewer when the data has fewer
/// entities or time values).
const STARTER_FOLDS: usize = 5;

/// Repeats of the starters' `k_fold` and `entity_k_fold` arms: on entity-leakage's headline
/// design 5 repeats bring the spread of the gap over seeds to 0.16 of its interval's
/// half-width (one repeat: docs/CALIBRATION.md, "Seed stability"), at 5 times one
/// repeat's fits for the estimate and none more for the null (which fits one repeat).
const STARTER_REPEATS: u32 = 5;

/// The ROC AUC gap that `init`'s `*-no-material-gap` starters call material: they claim
/// `metric_gap` `at_most: 0.02` between the same two designs as the starter beside them.
///
/// Why 0.02: a demanding reader's default for "a material AUC difference" — a model
/// comparison often turns on a few hundredths of ROC AUC, so an evaluation design that
/// moves AUC by more can change which model looks better. It is a default, not a law: a
/// field with its own smallest difference worth acting on should edit `at_most` in the
/// starter (docs/ADD_A_PACK.md, "Starter experiments: no material gap"). The claim is
/// decided by the interval alone: SUPPORTS needs the whole 95% interval of the gap below
/// 0.02 (docs/VERDICTS.md).
pub const MATERIAL_MARGIN: f64 = 0.02;

/// The file-name suffix of a starter's no-material-gap sibling
/// (`random-vs-grouped-no-material-gap.json`).
const NO_MATERIAL_GAP_SUFFIX: &str = "-no-material-gap";

/// What `init` is told about the CSV.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct InitOptions {
    /// The entity column.
    pub entity: String,
    /// The label column.
    pub label: String,
    /// The positive label level.
    pub positive: String,
    /// The integer time column, if any.
    pub time: Option<String>,
    /// A 0/1 column marking the user's own test rows, if any.
    pub test_column: Option<String>,
    /// The pack id (default: from the file name).
    pub id: Option<String>,
    /// What the time column's numbers mean (default: guessed from its name, with a note).
    pub time_kind: Option<crate::pack::TimeKind>,
    /// Columns kept as features although init would leave them out as suspect (a label
    /// proxy, an id-like column, a time-like column).
    pub keep: Vec<String>,
    /// Columns left out of the features.
    pub drop: Vec<String>,
    /// Exactly these columns as features, in this order (default: every usable column).
    pub features: Option<Vec<String>>,
    /// The starter experiments' model (`--model`; default the logistic model, C = 1).
    pub model: ModelSpec,
    /// The texts read as a missing value besides the empty cell (`--missing-values`;
    /// default [`crate::pack::DEFAULT_MISSING_VALUES`]).
    pub missing_values: crate::pack::MissingValues,
}

/// How `init` used one column of the CSV.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ColumnUse {
    /// A role given on the command line (`entity`, `label`, `time`, `test column`).
    Role(&'static str),
    /// A numeric feature.
    Numeric,
    /// A categorical feature with these levels (byte order).
    Categorical(Vec<String>),
    /// Not used, with why and how to make it usable (it may name an option).
    NotUsed(Text),
}

/// An experiment file of the pack folder: what goes into `experiments/<file_name>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExperimentFile {
    /// The file's name inside `experiments/` (`random-vs-grouped.json`, …).
    pub file_name: String,
    /// The experiment, JSON text.
    pub json: String,
}

/// A pack ready to be written: `pack.toml`'s text, the fixture's file name, the starter
/// experiments, each column's use, and the data findings.
#[derive(Debug, Clone)]
pub struct Scaffold {
    /// The pack id.
    pub id: String,
    /// The fixture's file name inside the pack folder (the CSV's own name).
    pub fixture_file: String,
    /// `pack.toml`.
    pub manifest: String,
    /// The files of `experiments/`.
    pub experiments: Vec<ExperimentFile>,
    /// Every CSV column in header order with its use.
    pub columns: Vec<(String, ColumnUse)>,
    /// What `pack check` would report.
    pub findings: Findings,
    /// What the time column means (calendar when there is none).
    pub time_kind: TimeKind,
    /// The pack as `run` will load it from `manifest` and the fixture.
    pub pack: Pack,
    /// What `init` decided that the user should know (folds reduced, a starter skipped,
    /// one-vs-rest labels); a note may name an option, which each front end writes its way.
    pub notes: Vec<Text>,
}

/// Builds the pack for the CSV at `path` (its bytes `bytes`); validates it as `run` will.
pub fn scaffold(
    path: &Path,
    bytes: &[u8],
    options: &InitOptions,
    limits: &LoadLimits,
) -> Result<Scaffold> {
    let fixture_file = path
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| Error::data(path, None, None, "the file name is not UTF-8 text"))?
        .to_owned();
    let id = match &options.id {
        Some(id) => id.clone(),
        None => default_id(&fixture_file, &options.model),
    };
    let mut csv = StrictCsv::new(path, bytes, limits.max_columns, limits.max_rows)?;
    let role_of = column_roles(&csv, options)?;
    let (mut columns, label_levels) =
        columns::read_columns(&mut csv, &role_of, &options.label, &options.missing_values)?;
    let mut notes = Vec::new();
    if options.time_kind.is_some() && options.time.is_none() {
        return Err(Error::invalid(
            "a time kind was given without a time column: name the time column too",
        ));
    }
    let mut plan = FeaturePlan::new(&mut columns, options)?;
    let mut head = ManifestHead {
        id: &id,
        fixture_file: &fixture_file,
        bytes,
        options,
        labels: label_levels,
        time_kind: options.time_kind,
    };
    let except: Vec<String> = options.test_column.iter().cloned().collect();
    // Every usable column a feature first: its suspicions (a column's do not depend on
    // which others are features) decide what is left out and what was kept on purpose.
    let candidate = head.text(&columns, &plan.features, &[], &mut Vec::new())?;
    let candidate = load_as_run_will(path, &candidate, bytes, limits)?;
    let suspects = crate::suspect::suspects(candidate.table(), &except);
    // The time kind is read from the loaded time values when not given (the manifest
    // above differs only in that line, which changes no value of the table).
    let time_kind = time_kind(options, candidate.table(), &mut notes);
    head.time_kind = time_kind;
    plan.leave_out(&mut columns, &suspects);
    let kept = plan.kept(&suspects);
    let mut manifest = head.text(&columns, &plan.features, &kept, &mut notes)?;
    let mut pack = load_as_run_will(path, &manifest, bytes, limits)?;
    if let Some(column) = &options.test_column {
        user_split(path, &pack, column)?;
    }
    suspect_notes(&suspects, &kept, options, &mut notes);
    let findings = Findings::excluding(pack.table(), &pack.manifest().data, &except);
    let experiments = starter_experiments(&pack, options, &mut notes);
    let mut parsed = Vec::new();
    for starter in &experiments {
        let experiment = Experiment::from_json(starter.json.as_bytes())?;
        experiment.check(&pack).map_err(|e| {
            Error::invalid(format!(
                "init wrote a starter experiment run refuses ({}): {e}",
                starter.file_name
            ))
        })?;
        parsed.push(experiment);
    }
    if let Some(section) = budget_section(&pack, &parsed) {
        manifest.push_str(&section);
        pack = load_as_run_will(path, &manifest, bytes, limits)?;
        notes.push(Text::from(
            "verifying a starter needs more than the default budget: pack.toml's [verify] section raises it, so the printed verify commands run as written",
        ));
    }
    Ok(Scaffold {
        id,
        fixture_file,
        manifest,
        experiments,
        columns,
        findings,
        time_kind: time_kind.unwrap_or_default(),
        notes,
        pack,
    })
}

/// The CSV's columns given a role on the command line, by position; a column given two
/// is refused.
fn column_roles(csv: &StrictCsv, options: &InitOptions) -> Result<BTreeMap<usize, &'static str>> {
    let roles = [
        (Some(&options.entity), "entity", Opt::Entity),
        (Some(&options.label), "label", Opt::Label),
        (options.time.as_ref(), "time", Opt::Time),
        (options.test_column.as_ref(), "test column", Opt::TestColumn),
    ];
    let mut role_of = BTreeMap::new();
    for (name, role, opt) in roles {
        if let Some(name) = name {
            let at = csv.column_for(name, Some(Text::opt(opt)))?;
            if let Some(other) = role_of.insert(at, role) {
                return Err(Error::invalid(format!(
                    "column {name:?} is given two roles ({other} and {role})"
                )));
            }
        }
    }
    Ok(role_of)
}

/// The generated pack loaded as `run` will load it; a label problem is told with the
/// flags that set it, and every message names the CSV where it is now.
fn load_as_run_will(
    path: &Path,
    manifest: &str,
    bytes: &[u8],
    limits: &LoadLimits,
) -> Result<Pack> {
    let dir = path.parent().unwrap_or(Path::new(""));
    Pack::from_parts(dir, manifest, bytes, limits).map_err(|e| {
        let hint = Text::plain("\n(init: fix the data or ")
            .then(Text::opt(Opt::Entity))
            .then(", ")
            .then(Text::opt(Opt::Label))
            .then(", ")
            .then(Text::opt(Opt::Positive))
            .then(", ")
            .then(Text::opt(Opt::Time))
            .then(")");
        match e.kind() {
            // A cell's error keeps its row and column (the Python package's attributes).
            crate::error::ErrorKind::Data {
                row,
                column,
                message,
                ..
            } => Error::data(path, *row, column.as_deref(), message.clone().then(hint)),
            // A budget stays a budget: its message names the option that raises it.
            crate::error::ErrorKind::OverBudget(_) => e,
            _ => Error::data(path, None, None, Text::plain(e.to_string()).then(hint)),
        }
    })
}

/// The user's split of the CSV at `path` by its 0/1 test column, or why the column is no
/// readable split (a data error naming the column: it is the CSV's problem, not an
/// experiment's). `init` refuses such a column before any experiment is built on it;
/// `audit` reads its split through here.
pub(crate) fn user_split(path: &Path, pack: &Pack, column: &str) -> Result<crate::split::Split> {
    crate::split::split(
        pack.table(),
        &crate::experiment::SplitSpec::Predefined {
            column: column.to_owned(),
        },
        0,
        &JsonPath::root(),
    )
    .map_err(|e| match e.kind() {
        crate::error::ErrorKind::Experiment { message, .. } => {
            Error::data(path, None, Some(column), message.clone())
        }
        _ => e,
    })
}

/// A pack id from a file name: lower case, `[a-z0-9-]`, other runs as one `-`.
/// The pack id `init` gives when `--id` is not: the file name's, with the model family for
/// a model other than the default logistic one (`churn-gbdt`), so that two packs of one
/// CSV, one per model, can sit side by side in one packs folder.
fn default_id(file_name: &str, model: &ModelSpec) -> String {
    let id = id_from_file_name(file_name);
    match model {
        ModelSpec::Logistic { .. } => id,
        ModelSpec::Gbdt(_) => format!("{id}-gbdt"),
    }
}

fn id_from_file_name(name: &str) -> String {
    let stem = name.rsplit_once('.').map_or(name, |(stem, _)| stem);
    let mut id = String::new();
    for c in stem.chars() {
        if c.is_ascii_alphanumeric() {
            id.push(c.to_ascii_lowercase());
        } else if !id.ends_with('-') && !id.is_empty() {
            id.push('-');
        }
    }
    let id = id.trim_end_matches('-').to_owned();
    if id.is_empty() {
        "my-data".to_owned()
    } else {
        id
    }
}

/// A TOML string (basic string, escaped).
fn toml_str(s: &str) -> String {
    toml::Value::String(s.to_owned()).to_string()
}

fn toml_list(items: &[String]) -> String {
    if items.is_empty() {
        return "[]".into();
    }
    let mut out = String::from("[\n");
    for item in items {
        out.push_str(&format!("  {},\n", toml_str(item)));
    }
    out.push(']');
    out
}

/// Whether every fold of every cross-validation arm of `experiment` trains on both classes:
/// `run` refuses a fold that trains on one (the earliest times of a rolling origin can hold
/// no positive row, e.g. before a launch).
fn folds_train_on_both_classes(pack: &Pack, experiment: &Experiment) -> bool {
    let table = pack.table();
    let labels = table.labels();
    experiment.arms.iter().all(|arm| {
        arm.split.cross_validation().is_none()
            || crate::split::folds(table, &arm.split, experiment.seed, &JsonPath::root()).is_ok_and(
                |repeats| {
                    repeats.iter().flat_map(|folds| &folds.splits).all(|split| {
                        let train = split.train_rows();
                        train.iter().any(|&r| labels[r]) && train.iter().any(|&r| !labels[r])
                    })
                },
            )
    })
}

/// The columns that cannot be features, with why.
fn not_used(columns: &[(String, ColumnUse)]) -> impl Iterator<Item = (&str, &Text)> {
    columns.iter().filter_map(|(n, u)| match u {
        ColumnUse::NotUsed(why) => Some((n.as_str(), why)),
        _ => None,
    })
}

/// What `pack.toml` says whatever the features: the pack, its file and its roles.
struct ManifestHead<'a> {
    id: &'a str,
    fixture_file: &'a str,
    bytes: &'a [u8],
    options: &'a InitOptions,
    /// Distinct label cells (up to one past [`MAX_LEVELS`]).
    labels: usize,
    time_kind: Option<TimeKind>,
}

impl ManifestHead<'_> {
    /// `pack.toml` with `features` (in model order) and the columns' uses; `kept` are
    /// suspect features kept on purpose.
    fn text(
        &self,
        columns: &[(String, ColumnUse)],
        features: &[String],
        kept: &[String],
        notes: &mut Vec<Text>,
    ) -> Result<String> {
        let options = self.options;
        if features.is_empty() {
            let mut message = Text::plain(
                "no column can be a feature (every column but the roles is unusable or left out):",
            );
            for (n, why) in not_used(columns) {
                message = message.then(format!("\n  {n:?}: ")).then(why.clone());
            }
            return Err(Error::invalid(message));
        }
        let mut text = String::new();
        text.push_str(&format!(
            "# Written by `counterlab init` from {}. After editing the fixture, run\n# `counterlab pack rehash <this folder>` to record its new blake3 (and levels).\n",
            comment_text(self.fixture_file)
        ));
        text.push_str(&format!("id = {}\n", toml_str(self.id)));
        text.push_str(&format!(
            "title = {}\n",
            toml_str(&format!(
                "{}: {} by {}",
                self.fixture_file, options.label, options.entity
            ))
        ));
        text.push_str("concept = \"entity-leakage\"\n\n[data]\n");
        text.push_str(&format!("file = {}\n", toml_str(self.fixture_file)));
        text.push_str(&format!(
            "blake3 = \"{}\"\n",
            crate::canon::file_hash(self.bytes)
        ));
        text.push_str(&format!("entity = {}\n", toml_str(&options.entity)));
        text.push_str(&format!("label = {}\n", toml_str(&options.label)));
        text.push_str(&format!("positive = {}\n", toml_str(&options.positive)));
        if let Some(time) = &options.time {
            text.push_str(&format!("time = {}\n", toml_str(time)));
            if let Some(kind) = self.time_kind.filter(|k| !k.is_calendar()) {
                text.push_str(&format!("time_kind = \"{}\"\n", kind.as_str()));
            }
        }
        if self.labels > 2 {
            text.push_str("one_vs_rest = true\n");
            notes.push(Text::from(format!(
                "the label has {} levels: the pack reads {:?} against all the others (one_vs_rest = true in pack.toml; delete that line to refuse it instead)",
                self.labels, options.positive
            )));
        }
        push_features(&mut text, columns, features, kept);
        if text.len() as u64 > crate::pack::MAX_MANIFEST_BYTES {
            return Err(Error::invalid(format!(
                "pack.toml would be {} bytes, more than the {} a pack may have: its categorical columns have too many or too long levels; leave the largest out (drop)",
                text.len(),
                crate::pack::MAX_MANIFEST_BYTES
            )));
        }
        Ok(text)
    }
}

/// The first line of the `[verify]` section init writes (audit replaces the section).
pub(crate) const BUDGET_COMMENT: &str = "\n# The verification needs more";

/// The work units and design bytes (the `budget::design_bytes` rule) verifying
/// `experiment` on `pack` takes under the default options.
fn default_cost(pack: &Pack, experiment: &Experiment) -> (u64, u64) {
    let defaults = crate::verify::VerifyOptions::default();
    (
        crate::verify::work_units(experiment, pack.table(), &defaults),
        crate::budget::design_bytes(experiment, pack.table()),
    )
}

/// The `[verify]` section `pack` needs for every one of `experiments` to verify under the
/// default options, when the default budgets and the pack's own are too small: the most
/// any of them needs, of each budget over its default.
pub(crate) fn budget_section(pack: &Pack, experiments: &[Experiment]) -> Option<String> {
    let defaults = crate::verify::VerifyOptions::default();
    let declared = pack.manifest().verify;
    let (work, design) = experiments
        .iter()
        .map(|e| default_cost(pack, e))
        .fold((0, 0), |(w, d), (ew, ed)| (w.max(ew), d.max(ed)));
    let short = |needed: u64, default: u64, declared: Option<u64>| {
        needed > default.max(declared.unwrap_or(0))
    };
    if !short(
        work,
        defaults.max_work.limit(),
        declared.and_then(|b| b.max_work),
    ) && !short(
        design,
        defaults.max_design_bytes.limit(),
        declared.and_then(|b| b.max_design_bytes),
    ) {
        return None;
    }
    // The section replaces any earlier one: it names every budget the experiments need
    // beyond its default, not only the one that is short.
    let work = (work > defaults.max_work.limit()).then_some(work);
    let design = (design > defaults.max_design_bytes.limit()).then_some(design);
    let mut section = format!(
        "{BUDGET_COMMENT} than the default budgets (docs/VERDICTS.md,\n# \"Budgets and options\"): the most it needs.\n[verify]\n"
    );
    if let Some(work) = work {
        section.push_str(&format!("max_work = {work}\n"));
    }
    if let Some(design) = design {
        section.push_str(&format!("max_design_bytes = {design}\n"));
    }
    Some(section)
}

/// Text for a `pack.toml` comment: one line, control characters escaped (a file name
/// may hold a line break, which would otherwise end the comment and inject TOML).
fn comment_text(text: &str) -> String {
    text.chars().flat_map(char::escape_debug).collect()
}

/// What the time column means: as asked, or guessed from its name, else from its values
/// ([`crate::suspect::time_restarts`]); a note says which, why and how to change it.
fn time_kind(
    options: &InitOptions,
    table: &crate::table::Table,
    notes: &mut Vec<Text>,
) -> Option<TimeKind> {
    let time = options.time.as_ref()?;
    if let Some(kind) = options.time_kind {
        return Some(kind);
    }
    let kind = if let Some(evidence) = crate::suspect::time_restarts(table)
        .filter(|_| !crate::suspect::order_within_entity_name(time))
    {
        notes.push(Text::from(format!(
            "time column {time:?} read as an order within each entity (time_kind = \"order_within_entity\"), from its values: {evidence}. It is compared only within an entity, so test rows of other entities at earlier times are no temporal leak, and no rolling-origin starter is written; if it is one calendar for all entities, set time_kind = \"calendar\" ("
        )).then(Text::opt_value(Opt::TimeKind, "calendar")).then(")"));
        TimeKind::OrderWithinEntity
    } else if crate::suspect::order_within_entity_name(time) {
        notes.push(Text::from(format!(
            "time column {time:?} read as an order within each entity (time_kind = \"order_within_entity\", a visit number): it is compared only within an entity, so test rows of other entities at earlier visits are no temporal leak, and no rolling-origin starter is written; if it is one calendar for all entities, set time_kind = \"calendar\" ("
        )).then(Text::opt_value(Opt::TimeKind, "calendar")).then(")"));
        TimeKind::OrderWithinEntity
    } else {
        notes.push(Text::from(format!(
            "time column {time:?} read as calendar time (one clock for all entities: a test row at or before the latest training time is a temporal overlap); if it numbers each entity's own visits, set time_kind = \"order_within_entity\" ("
        )).then(Text::opt_value(Opt::TimeKind, "order_within_entity")).then(")"));
        TimeKind::Calendar
    };
    Some(kind)
}

/// Notes on the suspect columns that stay: kept on purpose, and coarser levels offered as
/// further entities.
fn suspect_notes(
    suspects: &[Suspect],
    kept: &[String],
    options: &InitOptions,
    notes: &mut Vec<Text>,
) {
    for suspect in suspects {
        if kept.contains(&suspect.column) {
            notes.push(Text::from(format!(
                "{:?} kept as a feature on request although it is {} (recorded in data.kept)",
                suspect.column,
                suspect.evidence()
            )));
        } else if suspect.is_coarser_level() {
            notes.push(
                Text::from(format!(
                    "{:?} is {}: audit with ",
                    suspect.column,
                    suspect.evidence(),
                ))
                .then(Text::opt_value(
                    Opt::Entity,
                    format!("{},{}", options.entity, suspect.column),
                )),
            );
        }
    }
}

/// `pack.toml`'s feature lines: the features, the categorical ones, the columns not used
/// (as comments, with why) and the categorical features' levels.
fn push_features(
    text: &mut String,
    columns: &[(String, ColumnUse)],
    features: &[String],
    kept: &[String],
) {
    let categorical: Vec<(&String, &Vec<String>)> = columns
        .iter()
        .filter_map(|(n, u)| match u {
            ColumnUse::Categorical(levels) => Some((n, levels)),
            _ => None,
        })
        .collect();
    text.push_str(&format!("features = {}\n", toml_list(features)));
    if !kept.is_empty() {
        text.push_str(&format!("kept = {}\n", toml_list(kept)));
    }
    if !categorical.is_empty() {
        let names: Vec<String> = categorical.iter().map(|(n, _)| (*n).clone()).collect();
        text.push_str(&format!("categorical = {}\n", toml_list(&names)));
    }
    let mut unused = not_used(columns).peekable();
    if unused.peek().is_some() {
        text.push_str("# Columns not used as features:\n");
        for (n, why) in unused {
            // A comment for whoever edits the file: the options in the library's words.
            text.push_str(&format!(
                "#   {}: {}\n",
                comment_text(n),
                comment_text(&why.to_string())
            ));
        }
    }
    if !categorical.is_empty() {
        text.push_str("\n[data.levels]\n");
        for (name, levels) in categorical {
            let list: Vec<String> = levels.iter().map(|l| toml_str(l)).collect();
            text.push_str(&format!("{} = [{}]\n", toml_key(name), list.join(", ")));
        }
    }
}

/// The starter experiments: random rows vs whole entities (always), vs rolling origin
/// (with a time column), and the user's predefined split vs whole entities (with a test
/// column); each a cross-validated comparison with a gap claim on ROC AUC, followed by its
/// no-material-gap sibling (the same arms, `at_most: MATERIAL_MARGIN`).
fn starter_experiments(
    pack: &Pack,
    options: &InitOptions,
    notes: &mut Vec<Text>,
) -> Vec<ExperimentFile> {
    let table = pack.table();
    let entity_folds = STARTER_FOLDS.min(table.n_entities());
    if entity_folds < 2 {
        notes.push(Text::from(
            "one entity only: no starter experiment (a grouped split needs two)",
        ));
        return Vec::new();
    }
    if entity_folds < STARTER_FOLDS {
        notes.push(Text::from(format!(
            "{} entities: the starter experiments use {entity_folds} folds",
            table.n_entities()
        )));
    }
    let grouped = serde_json::json!({ "name": "entity_grouped", "split": { "kind": "entity_k_fold", "folds": entity_folds, "repeats": STARTER_REPEATS } });
    let mut out = vec![ExperimentFile {
        file_name: "random-vs-grouped.json".to_owned(),
        json: starter_json(
            pack,
            &options.model,
            vec![random_rows_arm(pack), grouped.clone()],
            "random_rows",
            "entity_grouped",
        ),
    }];
    if let Some(time) = table
        .time()
        .filter(|_| pack.manifest().data.time_kind.is_calendar())
    {
        out.extend(rolling_origin_starter(pack, &options.model, time, notes));
    }
    if let Some(column) = &options.test_column {
        out.push(ExperimentFile {
            file_name: "predefined-vs-grouped.json".to_owned(),
            json: starter_json(
                pack,
                &options.model,
                vec![
                    serde_json::json!({ "name": "predefined", "split": { "kind": "predefined", "column": column } }),
                    grouped,
                ],
                "predefined",
                "entity_grouped",
            ),
        });
    }
    // `run` refuses a fold that trains on one class (rare positives in a few entities).
    out.retain(|starter| {
        let runs = Experiment::from_json(starter.json.as_bytes())
            .is_ok_and(|e| folds_train_on_both_classes(pack, &e));
        if !runs {
            notes.push(Text::from(format!(
                "{} not written: one of its folds would train on one class only, which run refuses",
                starter.file_name
            )));
        }
        runs
    });
    let mut out: Vec<ExperimentFile> = out
        .into_iter()
        .flat_map(|starter| {
            let sibling = no_material_gap(&starter);
            [starter, sibling]
        })
        .collect();
    let with_missing: Vec<(String, usize)> = pack
        .manifest()
        .data
        .features
        .iter()
        .filter_map(|f| table.missing_cells(f).map(|(_, count)| (f.clone(), count)))
        .collect();
    if !with_missing.is_empty() {
        impute_in_every_arm(&mut out);
        let listed: Vec<String> = with_missing
            .iter()
            .map(|(f, count)| format!("{f} ({count})"))
            .collect();
        notes.push(Text::from(format!(
            "features with empty cells, kept as missing values: {}; every starter imputes them (the median, fitted on each fold's training rows), and {IMPUTE_STARTER} compares that with imputing on all rows before the split",
            listed.join(", ")
        )));
        out.push(ExperimentFile {
            file_name: IMPUTE_STARTER.to_owned(),
            json: starter_json(
                pack,
                &options.model,
                vec![
                    serde_json::json!({ "name": "imputed_on_all_rows", "split": { "kind": "entity_k_fold", "folds": entity_folds, "repeats": STARTER_REPEATS },
                                        "prepare": [{ "step": "impute", "strategy": "median", "fit_on": "all_rows" }] }),
                    serde_json::json!({ "name": "imputed_in_folds", "split": { "kind": "entity_k_fold", "folds": entity_folds, "repeats": STARTER_REPEATS },
                                        "prepare": [{ "step": "impute", "strategy": "median" }] }),
                ],
                "imputed_on_all_rows",
                "imputed_in_folds",
            )
            .replace("\"at_least\": 0.0", &format!("\"at_most\": {MATERIAL_MARGIN}")),
        });
    }
    out
}

/// The starter that compares imputing on all rows (before the split) with imputing on
/// each fold's training rows, written when a feature has empty cells: a right-way /
/// wrong-way pair claiming no material gap (imputation fitted on all rows is usually
/// harmless, Roth 2026's class I; the claim lets the data say so or not).
pub const IMPUTE_STARTER: &str = "impute-before-split-no-material-gap.json";

/// Every arm of every starter imputes first (median, on the fold's training rows): a
/// feature with missing values may be used only so (`Experiment::check`).
fn impute_in_every_arm(starters: &mut [ExperimentFile]) {
    for starter in starters {
        let mut json: serde_json::Value =
            serde_json::from_str(&starter.json).expect("a starter is JSON written above");
        for arm in json["arms"].as_array_mut().expect("a starter has arms") {
            arm["prepare"] = serde_json::json!([{ "step": "impute", "strategy": "median" }]);
        }
        let mut text = serde_json::to_string_pretty(&json).expect("JSON values serialise");
        text.push('\n');
        starter.json = text;
    }
}

/// The starter's sibling: the same experiment, claiming that the gap between its two
/// designs is at most [`MATERIAL_MARGIN`] ("no material gap") instead of at least 0. The
/// arms are the starter's, so it runs wherever the starter runs.
fn no_material_gap(starter: &ExperimentFile) -> ExperimentFile {
    let mut json: serde_json::Value =
        serde_json::from_str(&starter.json).expect("a starter is JSON written above");
    let claim = json["claim"]
        .as_object_mut()
        .expect("every starter makes a gap claim");
    claim.remove("at_least");
    claim.insert("at_most".to_owned(), serde_json::json!(MATERIAL_MARGIN));
    let mut text = serde_json::to_string_pretty(&json).expect("JSON values serialise");
    text.push('\n');
    let stem = starter.file_name.trim_end_matches(".json");
    ExperimentFile {
        file_name: format!("{stem}{NO_MATERIAL_GAP_SUFFIX}.json"),
        json: text,
    }
}

/// A starter experiment's JSON text: `arms` compared by a gap claim on ROC AUC, `higher`
/// over `lower`.
fn starter_json(
    pack: &Pack,
    model: &ModelSpec,
    arms: Vec<serde_json::Value>,
    higher: &str,
    lower: &str,
) -> String {
    let json = serde_json::json!({
        "format": "counterlab.experiment/1",
        "pack": pack.id(),
        "seed": 1,
        "model": model,
        "arms": arms,
        "ablations": [{ "name": "identity", "drop": [] }],
        "metrics": ["roc_auc", "accuracy", "balanced_accuracy", "majority_baseline_accuracy"],
        "claim": { "kind": "metric_gap", "metric": "roc_auc", "higher": higher, "lower": lower, "at_least": 0.0 }
    });
    let mut text = serde_json::to_string_pretty(&json).expect("JSON values serialise");
    text.push('\n');
    text
}

/// The starters' random-rows arm: k-fold over rows.
fn random_rows_arm(pack: &Pack) -> serde_json::Value {
    let folds = STARTER_FOLDS.min(pack.table().n_rows());
    serde_json::json!({ "name": "random_rows", "split": { "kind": "k_fold", "folds": folds, "repeats": STARTER_REPEATS } })
}

/// The random-vs-rolling-origin starter over the table's `time` values, or None (with a
/// note saying why) when no number of folds gives one that runs.
fn rolling_origin_starter(
    pack: &Pack,
    model: &ModelSpec,
    time: &[i64],
    notes: &mut Vec<Text>,
) -> Option<ExperimentFile> {
    let mut values = time.to_vec();
    values.sort_unstable();
    values.dedup();
    // Rolling origin cuts folds + 1 blocks of time values, each with rows: the most
    // folds (up to the starter's) whose blocks the rows can fill, so that a starter
    // experiment always runs (few rows over many time values may fill fewer blocks).
    let most = STARTER_FOLDS.min(values.len().saturating_sub(1));
    let rolling = |folds: usize| {
        starter_json(
            pack,
            model,
            vec![
                random_rows_arm(pack),
                serde_json::json!({ "name": "rolling_origin", "split": { "kind": "rolling_origin", "folds": folds } }),
            ],
            "random_rows",
            "rolling_origin",
        )
    };
    let runs = |json: &String| {
        Experiment::from_json(json.as_bytes())
            .is_ok_and(|e| e.check(pack).is_ok() && folds_train_on_both_classes(pack, &e))
    };
    match (2..=most)
        .rev()
        .map(|k| (k, rolling(k)))
        .find(|(_, json)| runs(json))
    {
        Some((time_folds, json)) => {
            if time_folds < STARTER_FOLDS {
                notes.push(Text::from(format!(
                    "{} distinct time values: random-vs-rolling-origin uses {time_folds} folds, the most whose time blocks all hold rows and whose every fold trains on both classes",
                    values.len()
                )));
            }
            Some(ExperimentFile {
                file_name: "random-vs-rolling-origin.json".to_owned(),
                json,
            })
        }
        None => {
            notes.push(Text::from(format!(
                "{} distinct time values: no rolling-origin starter (it needs at least 3 blocks of time values, each with rows, and every fold's earlier blocks holding both classes; if the earliest times hold one class, write one with a test_fraction: docs/FORMATS.md)",
                values.len()
            )));
            None
        }
    }
}
