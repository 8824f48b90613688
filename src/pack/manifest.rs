//! `pack.toml`: the Subject Pack manifest (docs/FORMATS.md §pack.toml).

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// A pack's manifest, exactly the keys of `pack.toml`; unknown keys are refused.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Unique id, `[a-z0-9-]+`.
    pub id: String,
    /// One line for people.
    pub title: String,
    /// The teaching concept, e.g. `entity-leakage`.
    pub concept: String,
    /// The fixture table and the roles of its columns.
    pub data: DataSpec,
    /// Optional boundary sweep (`[boundary]`, docs/BOUNDARY.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boundary: Option<BoundarySpec>,
    /// Optional transfer task (`[transfer]`, docs/TRANSFER.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transfer: Option<TransferSpec>,
    /// Optional budget of the verifications on this pack (`[verify]`): the pack is the
    /// verifier's, so its author may raise what a verification of it may cost; a payload
    /// never can. Not part of the meaning hash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<PackBudget>,
}

/// `[verify]`: what a verification of the pack may cost, when more than the default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PackBudget {
    /// Largest work in fit units (as `--max-work`): used instead of the default when
    /// larger and no budget was given on the command line (or to the Python call).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_work: Option<u64>,
    /// Largest prepared-design memory in bytes by the `budget::design_bytes` rule (as
    /// `--max-design-bytes`), raised the same way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_design_bytes: Option<u64>,
}

/// `[boundary]`: a sweep of a registered experiment over a grid of knob values; the
/// experiment's claim is evaluated in every cell by the verifier's rules.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoundarySpec {
    /// One line for people: what the map shows (the chart's title).
    pub title: String,
    /// The base experiment: `experiments/<experiment>.json`; it must make a claim.
    pub experiment: String,
    /// Label permutations per cell for the claim's p-value (at least ⌈1/α⌉ − 1).
    pub permutations: usize,
    /// Significance level of each cell's claim (default 0.05).
    #[serde(default = "default_alpha")]
    pub alpha: f64,
    /// Seed of each cell's permutations (default 0).
    #[serde(default)]
    pub seed: u64,
    /// One or two axes; the grid is their product, the first axis varying slowest. The
    /// first axis is the chart's x axis, the second (if any) its y axis.
    pub axes: Vec<BoundaryAxis>,
    /// Metrics of the claim's arm drawn as context lines next to the claim's statistic
    /// (one-axis maps only), e.g. accuracy and the majority baseline.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub context: Vec<crate::metrics::MetricName>,
}

fn default_alpha() -> f64 {
    0.05
}

/// One axis of a boundary sweep: a knob from a closed set and its values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoundaryAxis {
    /// `c` (the logistic model's C), `max_iter` / `max_leaf_nodes` (the trees' capacity),
    /// `test_entity_overlap` (an arm's fraction of test entities that also have rows in
    /// training) or `prevalence` (the fixture subsampled to this fraction of positive rows).
    pub knob: Knob,
    /// The arm a split knob changes (`test_entity_overlap` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arm: Option<String>,
    /// The values, in chart order.
    pub values: Vec<f64>,
}

/// The closed set of boundary knobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Knob {
    /// The logistic model's C (> 0).
    C,
    /// Fraction in [0, 1] of an `entity_grouped` arm's test entities that also get rows in
    /// training (the arm becomes an `entity_overlap` split).
    TestEntityOverlap,
    /// Fraction in (0, 1) of positive rows, by deterministic subsampling of one class.
    Prevalence,
    /// The trees' boosting iterations (a whole number in the model's range).
    MaxIter,
    /// The most leaves a tree may have (a whole number in the model's range).
    MaxLeafNodes,
}

impl Knob {
    /// As written in `pack.toml` and payloads.
    pub fn as_str(self) -> &'static str {
        match self {
            Knob::C => "c",
            Knob::TestEntityOverlap => "test_entity_overlap",
            Knob::Prevalence => "prevalence",
            Knob::MaxIter => "max_iter",
            Knob::MaxLeafNodes => "max_leaf_nodes",
        }
    }
}

/// `[transfer]`: a question with fixed choices, each an arm or a metric of a registered
/// experiment, and a validity rule from a closed set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TransferSpec {
    /// The question put to the learner.
    pub question: String,
    /// The experiment whose arms / metrics the choices name: `experiments/<experiment>.json`.
    pub experiment: String,
    /// Which choices are valid.
    pub rule: TransferRule,
    /// The fixed choices (ids unique).
    pub choices: Vec<TransferChoice>,
}

/// The closed set of transfer validity rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TransferRule {
    /// Valid: an arm none of whose test rows is at or before its latest training time.
    NoTemporalOverlap,
    /// Valid: an arm that shares no entity between train and test.
    NoEntityOverlap,
    /// Valid: a metric whose 95% CI lies entirely above the majority-class baseline's
    /// value of the same metric (accuracy: the majority baseline accuracy; ROC AUC and
    /// balanced accuracy: 0.5; accuracy lift: 0).
    SeparatesFromBaseline,
}

impl TransferRule {
    /// As written in `pack.toml`.
    pub fn as_str(self) -> &'static str {
        match self {
            TransferRule::NoTemporalOverlap => "no_temporal_overlap",
            TransferRule::NoEntityOverlap => "no_entity_overlap",
            TransferRule::SeparatesFromBaseline => "separates_from_baseline",
        }
    }
}

/// One fixed choice: an arm (for the split rules) or a metric of one arm.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TransferChoice {
    /// Short id given on the command line (`--choice ID`).
    pub id: String,
    /// What the learner reads.
    pub text: String,
    /// The arm this choice names (split rules), or whose metric it names (optional when
    /// the experiment has one arm).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arm: Option<String>,
    /// The metric this choice names (`separates_from_baseline`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric: Option<crate::metrics::MetricName>,
}

/// What a pack's time column measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeKind {
    /// One clock for every entity (a date, a month number): a test row at or before the
    /// latest training time saw the future, whoever's row it is.
    #[default]
    Calendar,
    /// An order within each entity (a visit or wave number): visit 3 of one patient is not
    /// "later" than visit 2 of another, so only an entity's own rows are compared in time.
    OrderWithinEntity,
}

impl TimeKind {
    /// As written in `pack.toml` (`time_kind = "..."`).
    pub fn as_str(self) -> &'static str {
        match self {
            TimeKind::Calendar => "calendar",
            TimeKind::OrderWithinEntity => "order_within_entity",
        }
    }

    /// A time kind as `pack.toml` spells it, or the error naming both spellings.
    pub fn parse(text: &str) -> crate::Result<TimeKind> {
        match text {
            "calendar" => Ok(TimeKind::Calendar),
            "order_within_entity" => Ok(TimeKind::OrderWithinEntity),
            other => Err(crate::Error::unknown_name(
                "time kind",
                other,
                &["calendar", "order_within_entity"],
            )),
        }
    }

    /// Whether this is the default, calendar time.
    pub fn is_calendar(&self) -> bool {
        *self == TimeKind::Calendar
    }
}

/// `[data]`: the fixture file and its typed columns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DataSpec {
    /// The CSV file, relative to the pack folder.
    pub file: String,
    /// blake3 of the file's bytes (64 lower-case hex digits); loading refuses a mismatch.
    pub blake3: String,
    /// blake3 of earlier versions of the file, replaced by this one: a payload or map
    /// recorded on one of them is at best INCONCLUSIVE (its numbers cannot be recomputed
    /// here, and the verifier does not call it forged for that; the hashes that need no
    /// fixture are still checked), where any other hash is REJECTED.
    /// Not part of the meaning hash.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub retired_blake3: Vec<String>,
    /// The entity column (text).
    pub entity: String,
    /// The label column (text).
    pub label: String,
    /// The label text of the positive class.
    pub positive: String,
    /// Feature columns, in model order: numeric, or categorical when also listed in
    /// `categorical`.
    pub features: Vec<String>,
    /// Features kept on purpose although `pack check` finds them suspect (a label proxy,
    /// an identifier, a clock: [`crate::suspect`]): reported as kept, not as problems.
    /// Not part of the meaning hash (it changes no number).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kept: Vec<String>,
    /// Feature columns that hold categories (text): each is one-hot encoded over its
    /// `levels`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub categorical: Vec<String>,
    /// The levels of each categorical column, in byte order (`[data.levels]`). A cell
    /// whose text is not a recorded level is a load error.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub levels: BTreeMap<String, Vec<String>>,
    /// Optional integer time column (required by temporal splits). It may also be listed
    /// in `features` (then the model reads it as a number too).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<String>,
    /// What the time column's numbers mean (`time_kind`, default `calendar`): one clock
    /// shared by every entity, or an order within each entity (a visit number), which is
    /// not compared across entities (docs/FORMATS.md).
    #[serde(default, skip_serializing_if = "TimeKind::is_calendar")]
    pub time_kind: TimeKind,
    /// Whether a label with more than two levels is meant as `positive` against all the
    /// others. Without it, more than two levels is a load error (docs/FORMATS.md).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub one_vs_rest: bool,
}

impl Manifest {
    /// The canonical hash (context `counterlab 2026-12 manifest v1`) of what gives the
    /// fixture its meaning: the file's blake3 and the roles of its columns (entity, label,
    /// positive class, features in order, time). Payloads and reports carry it, so a
    /// payload computed against the same bytes read another way (another positive class,
    /// another label column) is not taken for one computed on this pack. The id, title,
    /// concept, `retired_blake3` and the `[boundary]` / `[transfer]` sections are not part
    /// of it: they name or use the pack, they do not change what its cells are. The
    /// categorical columns and their levels are part of it when there are any (a pack
    /// without them hashes as before they existed).
    pub fn meaning_hash(&self) -> String {
        let d = &self.data;
        let mut meaning = serde_json::json!({
            "fixture_blake3": d.blake3,
            "entity": d.entity,
            "label": d.label,
            "positive": d.positive,
            "features": d.features,
            "time": d.time,
        });
        if d.one_vs_rest {
            meaning["one_vs_rest"] = serde_json::json!(true);
        }
        if !d.categorical.is_empty() {
            meaning["categorical"] = serde_json::json!(d.categorical);
            meaning["levels"] = serde_json::json!(d.levels);
        }
        crate::canon::hash_value(crate::canon::HashKind::Manifest, &meaning)
    }

    /// Checks what serde cannot: id syntax, hash syntax, categorical levels, distinct
    /// column roles; an error about `path` (this manifest's file) naming the key.
    pub(crate) fn check(&self, path: &Path) -> Result<()> {
        let bad = |message: String| Err(Error::pack(path, message));
        if self.id.is_empty()
            || !self
                .id
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        {
            return bad(format!("id {:?} must match [a-z0-9-]+", self.id));
        }
        let is_hash = |h: &str| {
            h.len() == 64
                && h.bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        };
        let hash = &self.data.blake3;
        if !is_hash(hash) {
            return bad(format!(
                "data.blake3 {hash:?} must be 64 lower-case hex digits"
            ));
        }
        for (i, retired) in self.data.retired_blake3.iter().enumerate() {
            if !is_hash(retired) {
                return bad(format!(
                    "data.retired_blake3[{i}] {retired:?} must be 64 lower-case hex digits"
                ));
            }
            if retired == hash {
                return bad(format!(
                    "data.retired_blake3[{i}] is the current data.blake3: a fixture cannot be retired and in use (remove it from retired_blake3)"
                ));
            }
        }
        if self.data.features.is_empty() {
            return bad("data.features must name at least one column".into());
        }
        if let Some((i, kept)) = self
            .data
            .kept
            .iter()
            .enumerate()
            .find(|(_, k)| !self.data.features.contains(k))
        {
            return bad(format!(
                "data.kept[{i}] = {kept:?} is not in data.features: kept names a feature kept on purpose"
            ));
        }
        self.check_categorical(path)?;
        self.check_roles(path)
    }

    /// Every role names a column, and no column has two roles, except the time column,
    /// which may also be a feature.
    fn check_roles(&self, path: &Path) -> Result<()> {
        let bad = |message: String| Err(Error::pack(path, message));
        let mut roles: Vec<(&str, &str)> =
            vec![("entity", &self.data.entity), ("label", &self.data.label)];
        if let Some(time) = &self.data.time {
            roles.push(("time", time));
        }
        for feature in &self.data.features {
            roles.push(("features", feature));
        }
        for (i, (role_a, a)) in roles.iter().enumerate() {
            if a.is_empty() {
                return bad(format!("data.{role_a} names an empty column"));
            }
            for (role_b, b) in &roles[i + 1..] {
                // The time column may also be a feature: read once as the split's clock
                // and once as a number for the model.
                if a == b && !(*role_a == "time" && *role_b == "features") {
                    return bad(format!(
                        "column {a:?} is named twice (data.{role_a} and data.{role_b})"
                    ));
                }
            }
        }
        Ok(())
    }

    /// Every categorical column is a feature, listed once, with recorded levels: non-empty,
    /// distinct and in byte order (so the one-hot columns have one order everywhere).
    fn check_categorical(&self, path: &Path) -> Result<()> {
        let bad = |message: String| Err(Error::pack(path, message));
        let d = &self.data;
        for (i, column) in d.categorical.iter().enumerate() {
            if !d.features.contains(column) {
                return bad(format!(
                    "data.categorical[{i}] = {column:?} is not in data.features: list it there too (its place there is its place in the model)"
                ));
            }
            if d.categorical[..i].contains(column) {
                return bad(format!("data.categorical names {column:?} twice"));
            }
            let Some(levels) = d.levels.get(column) else {
                return bad(format!(
                    "categorical column {column:?} has no levels: add `{} = [...]` under [data.levels] (counterlab pack rehash DIR records them from the data)",
                    toml_key(column)
                ));
            };
            if levels.is_empty() {
                return bad(format!("data.levels.{} is empty", toml_key(column)));
            }
            if let Some(empty) = levels.iter().position(String::is_empty) {
                return bad(format!(
                    "data.levels.{}[{empty}] is empty: an empty cell is a missing value, not a level",
                    toml_key(column)
                ));
            }
            if let Some(w) = levels.windows(2).position(|w| w[0] >= w[1]) {
                return bad(format!(
                    "data.levels.{} must be distinct and in byte order: {:?} comes before {:?} (sorted: {:?})",
                    toml_key(column),
                    levels[w],
                    levels[w + 1],
                    {
                        let mut sorted = levels.clone();
                        sorted.sort();
                        sorted.dedup();
                        sorted
                    }
                ));
            }
        }
        if let Some(extra) = d.levels.keys().find(|k| !d.categorical.contains(k)) {
            return bad(format!(
                "data.levels.{} names a column that is not in data.categorical",
                toml_key(extra)
            ));
        }
        Ok(())
    }
}

/// A column name as a TOML key: bare when it can be, quoted otherwise.
pub(crate) fn toml_key(name: &str) -> String {
    if !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        name.to_owned()
    } else {
        format!("{name:?}")
    }
}
