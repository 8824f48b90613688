//! The Experiment IR (`counterlab.experiment/1`): a closed, declarative vocabulary.
//! Parsing refuses unknown keys; [`Experiment::check`] refuses what types cannot.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::json_path::JsonPath;
pub use crate::metrics::MetricName;
use crate::pack::Pack;
pub use crate::prepare::Step;
pub use crate::split::{Assignment, SplitSpec, MAX_FOLDS};

/// Largest experiment file read, in bytes (an experiment is a few hundred bytes).
pub const MAX_EXPERIMENT_BYTES: u64 = 1 << 20;

/// The range of the logistic model's C ([`ModelSpec::Logistic`]), both ends included. The
/// solver stops on a gradient test scaled by 1/(C·n) (scikit-learn's): far outside this
/// range the scale rounds to 0 or the sums overflow, and the test stops meaning anything.
pub const C_RANGE: (f64, f64) = (1e-6, 1e6);

/// The most arms an experiment may have (docs/payload.schema.json).
pub const MAX_ARMS: usize = 16;

/// The most ablations an experiment may have (docs/payload.schema.json).
pub const MAX_ABLATIONS: usize = 32;

/// The format tag of an experiment.
pub const EXPERIMENT_FORMAT: &str = "counterlab.experiment/1";

/// An experiment: arms to run on a pack with one model, metrics and an optional claim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Experiment {
    /// Always `counterlab.experiment/1`.
    pub format: String,
    /// The pack id.
    pub pack: String,
    /// Seed of every random choice (splits).
    pub seed: u64,
    /// The model.
    pub model: ModelSpec,
    /// Feature columns; omitted = all of the pack's, in pack order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub features: Option<Vec<String>>,
    /// The arms, each a split.
    pub arms: Vec<Arm>,
    /// Ablations run inside every arm.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ablations: Option<Vec<Ablation>>,
    /// Metrics computed on each arm's test rows.
    pub metrics: Vec<MetricName>,
    /// What the proposer claims about the results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim: Option<Claim>,
}

/// The model of an experiment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", try_from = "raw::RawModel")]
pub enum ModelSpec {
    /// L2 logistic regression, scikit-learn semantics: minimise C·Σ logloss + ½‖w‖².
    Logistic {
        /// Inverse regularisation strength (> 0).
        c: f64,
    },
    /// Histogram gradient boosting for the log loss, scikit-learn's
    /// `HistGradientBoostingClassifier(early_stopping=False)` (docs/MODELS.md). Written in
    /// full: a field left out of the experiment file takes scikit-learn's default.
    Gbdt(GbdtSpec),
}

/// The parameters of a `gbdt` model, scikit-learn's names, each within [`GBDT_RANGES`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GbdtSpec {
    /// Shrinkage of every leaf value (default 0.1).
    pub learning_rate: f64,
    /// Boosting iterations, one tree each; no early stopping (default 100).
    pub max_iter: u32,
    /// The most leaves a tree may have (default 31).
    pub max_leaf_nodes: u32,
    /// The fewest training rows a leaf may hold (default 20).
    pub min_samples_leaf: u32,
    /// L2 penalty on leaf values (default 0).
    pub l2_regularization: f64,
    /// The most bins a feature is cut into (default 255).
    pub max_bins: u32,
}

impl Default for ModelSpec {
    /// [`ModelSpec::logistic`]: what `init` and `audit` fit unless told otherwise.
    fn default() -> Self {
        ModelSpec::logistic()
    }
}

impl ModelSpec {
    /// The logistic model with C = 1: `init`'s and `audit`'s default.
    pub fn logistic() -> ModelSpec {
        ModelSpec::Logistic { c: 1.0 }
    }

    /// A model family by name with its defaults, as `--model` takes it: `logistic` (C = 1)
    /// or `gbdt` (scikit-learn's defaults).
    pub fn parse_family(name: &str) -> Result<ModelSpec> {
        match name {
            "logistic" => Ok(ModelSpec::logistic()),
            "gbdt" => Ok(ModelSpec::Gbdt(GbdtSpec::default())),
            other => Err(Error::unknown_name("model", other, &["logistic", "gbdt"])),
        }
    }

    /// The family's name, as `kind` spells it.
    pub fn family(&self) -> &'static str {
        match self {
            ModelSpec::Logistic { .. } => "logistic",
            ModelSpec::Gbdt(_) => "gbdt",
        }
    }
}

impl Default for GbdtSpec {
    /// scikit-learn's defaults.
    fn default() -> Self {
        GbdtSpec {
            learning_rate: 0.1,
            max_iter: 100,
            max_leaf_nodes: 31,
            min_samples_leaf: 20,
            l2_regularization: 0.0,
            max_bins: 255,
        }
    }
}

/// The range of each `gbdt` parameter, both ends included (docs/payload.schema.json). The
/// upper ends bound a verification's cost and keep every sum finite: a hostile value is
/// refused at its JSON path, never run; the work it costs within them is counted by
/// `budget::work_per_fit`.
pub const GBDT_RANGES: GbdtRanges = GbdtRanges {
    learning_rate: (1e-6, 10.0),
    max_iter: (1, 1000),
    max_leaf_nodes: (2, 4096),
    min_samples_leaf: (1, 1_000_000),
    l2_regularization: (0.0, 1e6),
    max_bins: (2, 255),
};

/// See [`GBDT_RANGES`].
#[derive(Debug, Clone, Copy)]
pub struct GbdtRanges {
    /// `learning_rate`.
    pub learning_rate: (f64, f64),
    /// `max_iter`.
    pub max_iter: (u32, u32),
    /// `max_leaf_nodes`.
    pub max_leaf_nodes: (u32, u32),
    /// `min_samples_leaf`.
    pub min_samples_leaf: (u32, u32),
    /// `l2_regularization`.
    pub l2_regularization: (f64, f64),
    /// `max_bins`.
    pub max_bins: (u32, u32),
}

impl GbdtSpec {
    /// The first parameter outside [`GBDT_RANGES`], as an error at `$.model.<name>`.
    fn check(&self) -> Result<()> {
        let r = GBDT_RANGES;
        let outside = |name: &str, range: String, found: String| {
            Err(Error::experiment(
                JsonPath::field("model").key(name),
                format!("must lie in {range}, found {found}"),
            ))
        };
        let real = |name: &str, (low, high): (f64, f64), v: f64| {
            if (low..=high).contains(&v) {
                Ok(())
            } else {
                outside(name, format!("[{low:e}, {high:e}]"), v.to_string())
            }
        };
        let whole = |name: &str, (low, high): (u32, u32), v: u32| {
            if (low..=high).contains(&v) {
                Ok(())
            } else {
                outside(name, format!("[{low}, {high}]"), v.to_string())
            }
        };
        real("learning_rate", r.learning_rate, self.learning_rate)?;
        whole("max_iter", r.max_iter, self.max_iter)?;
        whole("max_leaf_nodes", r.max_leaf_nodes, self.max_leaf_nodes)?;
        whole(
            "min_samples_leaf",
            r.min_samples_leaf,
            self.min_samples_leaf,
        )?;
        real(
            "l2_regularization",
            r.l2_regularization,
            self.l2_regularization,
        )?;
        whole("max_bins", r.max_bins, self.max_bins)
    }
}

/// One arm: a named split, and the preparation its model's features go through.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Arm {
    /// Unique within the experiment.
    pub name: String,
    /// How rows are divided into train and test.
    pub split: SplitSpec,
    /// Steps applied in order to the features before the model (src/prepare/); none by
    /// default (`[]` and left out are one spelling).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prepare: Vec<Step>,
}

impl Arm {
    /// The arm's normal form (src/design.rs): its split's, and, when it prepares its
    /// features, `{"split": …, "prepare": […]}` with every default written out. An arm
    /// without preparation keeps the form it always had, so no recorded design moves.
    pub fn normal_form(&self) -> serde_json::Value {
        if self.prepare.is_empty() {
            self.split.normal_form()
        } else {
            serde_json::json!({
                "split": self.split.normal_form(),
                "prepare": crate::prepare::normal_form(&self.prepare),
            })
        }
    }
}

/// A drop-column ablation (`drop: []` is the identity ablation).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ablation {
    /// Unique within the experiment.
    pub name: String,
    /// Features left out of the model.
    pub drop: Vec<String>,
}

/// A typed statement over the results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", try_from = "raw::RawClaim")]
pub enum Claim {
    /// `metric(higher) − metric(lower)` against its bound: `≥ at_least`, `≤ at_most`, or
    /// `|·| ≤ within` (exactly one of the three keys).
    MetricGap {
        /// The metric compared.
        metric: MetricName,
        /// The arm the gap is taken from (claimed to score higher for `at_least`).
        higher: String,
        /// The arm the gap subtracts.
        lower: String,
        /// What the claim says of the gap: written as its one key (`"at_least": 0.1`).
        #[serde(flatten)]
        bound: GapBound,
    },
    /// `metric(arm) ≥ value`.
    MetricAtLeast {
        /// The metric.
        metric: MetricName,
        /// The arm.
        arm: String,
        /// The threshold.
        value: f64,
    },
    /// `metric(arm) ≤ value`.
    MetricAtMost {
        /// The metric.
        metric: MetricName,
        /// The arm.
        arm: String,
        /// The threshold.
        value: f64,
    },
}

/// What a `metric_gap` claim says of its gap `metric(higher) − metric(lower)`; each is
/// written as one key of the claim, with its number.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GapBound {
    /// The gap is at least this (`"at_least"`): "the first design scores higher by …".
    AtLeast(f64),
    /// The gap is at most this (`"at_most"`): "no material gap", one-sided.
    AtMost(f64),
    /// The gap lies within ± this margin (`"within"`, > 0): two-sided equivalence.
    Within(f64),
}

impl GapBound {
    /// The claim's key for this bound (`at_least`, `at_most`, `within`).
    pub fn key(self) -> &'static str {
        match self {
            GapBound::AtLeast(_) => "at_least",
            GapBound::AtMost(_) => "at_most",
            GapBound::Within(_) => "within",
        }
    }

    /// The bound's number: the threshold, or the margin of `within`.
    pub fn value(self) -> f64 {
        match self {
            GapBound::AtLeast(x) | GapBound::AtMost(x) | GapBound::Within(x) => x,
        }
    }
}

impl Claim {
    /// Whether the claim is about the arm named `name` (its statistic reads that arm).
    pub fn names_arm(&self, name: &str) -> bool {
        match self {
            Claim::MetricGap { higher, lower, .. } => higher == name || lower == name,
            Claim::MetricAtLeast { arm, .. } | Claim::MetricAtMost { arm, .. } => arm == name,
        }
    }

    /// How the claim relates its statistic to its threshold, for people: `≥`, `≤`, or
    /// `within ±` (a gap's `within`), as in "ROC AUC gap within ±0.02".
    pub fn relation(&self) -> &'static str {
        match self {
            Claim::MetricAtLeast { .. }
            | Claim::MetricGap {
                bound: GapBound::AtLeast(_),
                ..
            } => "≥",
            Claim::MetricAtMost { .. }
            | Claim::MetricGap {
                bound: GapBound::AtMost(_),
                ..
            } => "≤",
            Claim::MetricGap {
                bound: GapBound::Within(_),
                ..
            } => "within ±",
        }
    }

    /// The claim in the one form the verifier decides (docs/VERDICTS.md, "One statement,
    /// one form"). `higher − lower at_most x` and `lower − higher at_least −x` are one
    /// statement, so a gap is written with the side its threshold's sign gives it:
    ///
    /// - `at_most x` with x ≤ 0 says the gap is *present* (`lower` scores at least −x
    ///   above `higher`): it becomes `lower − higher at_least −x`, which needs the
    ///   permutation evidence of every `at_least` claim;
    /// - `at_least x` with x < 0 says the gap is *bounded* (`lower` scores at most −x
    ///   above `higher`): it becomes `lower − higher at_most −x`, a margin, decided by its
    ///   interval and the margin safeguard.
    ///
    /// A threshold of 0 goes with `at_least` (the gap is claimed present), whichever way
    /// it is written. Every other claim is its own decided form.
    pub fn decided_form(&self) -> Claim {
        match self {
            Claim::MetricGap {
                metric,
                higher,
                lower,
                bound,
            } => {
                let mirrored = |bound| Claim::MetricGap {
                    metric: *metric,
                    higher: lower.clone(),
                    lower: higher.clone(),
                    bound,
                };
                match *bound {
                    // `0.0 - x`, not `-x`: a threshold of 0 stays +0 (its JSON is `0`).
                    GapBound::AtMost(x) if x <= 0.0 => mirrored(GapBound::AtLeast(0.0 - x)),
                    GapBound::AtLeast(x) if x < 0.0 => mirrored(GapBound::AtMost(0.0 - x)),
                    _ => self.clone(),
                }
            }
            other => other.clone(),
        }
    }

    /// Whether the claim, in its [decided form](Claim::decided_form), bounds a gap
    /// (`at_most` x > 0, or `within`): a claim that two designs do not differ by much,
    /// decided by its interval alone and guarded by the verifier's own draw of the folds.
    pub fn is_margin(&self) -> bool {
        matches!(
            self.decided_form(),
            Claim::MetricGap {
                bound: GapBound::AtMost(_) | GapBound::Within(_),
                ..
            }
        )
    }

    /// The claim's metric.
    pub fn metric(&self) -> MetricName {
        match self {
            Claim::MetricGap { metric, .. }
            | Claim::MetricAtLeast { metric, .. }
            | Claim::MetricAtMost { metric, .. } => *metric,
        }
    }
}

impl Experiment {
    /// Parses JSON bytes: one JSON document without duplicate keys, matching the
    /// experiment definition of docs/payload.schema.json exactly (unknown keys, a `null`
    /// for an omitted key, an array for an object are all refused); errors carry the JSON
    /// path.
    pub fn from_json(bytes: &[u8]) -> Result<Experiment> {
        let value =
            crate::json::parse_strict(bytes).map_err(|e| Error::experiment(e.path, e.message))?;
        Experiment::from_value(&value)
    }

    /// A registered experiment of `pack`: its `experiments/<name>.json`, parsed, checked
    /// against the pack and naming it.
    pub fn registered(pack: &Pack, name: &str) -> Result<Experiment> {
        let manifest = pack.dir().join("pack.toml");
        if name.is_empty()
            || !name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            return Err(Error::pack(
                manifest,
                format!("experiment name {name:?} must match [A-Za-z0-9_-]+"),
            ));
        }
        let path = pack.dir().join("experiments").join(format!("{name}.json"));
        let bytes = crate::input::read_within(
            &path,
            MAX_EXPERIMENT_BYTES,
            crate::words::Budget::Fixed("an experiment file"),
        )?;
        let experiment =
            Experiment::from_json(&bytes).map_err(|e| Error::pack(&path, e.to_string()))?;
        if experiment.pack != pack.id() {
            return Err(Error::pack(
                &path,
                format!(
                    "names pack {:?}, but it belongs to {:?}",
                    experiment.pack,
                    pack.id()
                ),
            ));
        }
        experiment
            .check(pack)
            .map_err(|e| Error::pack(&path, e.to_string()))?;
        Ok(experiment)
    }

    /// [`Experiment::from_json`] on a parsed JSON value.
    pub fn from_value(value: &serde_json::Value) -> Result<Experiment> {
        if let Some(v) = crate::schema::Schema::payload()
            .violations_of("experiment", value)
            .into_iter()
            .next()
        {
            return Err(Error::experiment(v.path, v.message));
        }
        serde_path_to_error::deserialize(value)
            .map_err(|e| Error::experiment(JsonPath::from(e.path()), e.inner().to_string()))
    }

    /// The features the experiment names: its list as written, or the pack's.
    pub fn feature_list<'a>(&'a self, pack: &'a Pack) -> &'a [String] {
        self.features
            .as_deref()
            .unwrap_or(&pack.manifest().data.features)
    }

    /// The features the model uses, in the pack's order: `features` is a set, so listing
    /// it in another order is the same design (src/design.rs) and gives the same bits
    /// (the model's sums run in one column order).
    pub fn model_features(&self, pack: &Pack) -> Vec<String> {
        let named = self.feature_list(pack);
        pack.manifest()
            .data
            .features
            .iter()
            .filter(|f| named.contains(f))
            .cloned()
            .collect()
    }

    /// The ablations, or none.
    pub fn ablation_list(&self) -> &[Ablation] {
        self.ablations.as_deref().unwrap_or(&[])
    }

    /// Checks everything the types cannot, against the pack it runs on. Errors name the
    /// JSON path of the first problem.
    pub fn check(&self, pack: &Pack) -> Result<()> {
        self.check_structure()?;
        if self.pack != pack.id() {
            return Err(Error::experiment(
                JsonPath::field("pack"),
                format!("names {:?}, but runs on pack {:?}", self.pack, pack.id()),
            ));
        }
        let pack_features = &pack.manifest().data.features;
        let features = self.feature_list(pack);
        for (i, feature) in features.iter().enumerate() {
            if !pack_features.contains(feature) {
                return Err(Error::experiment(
                    JsonPath::field("features").index(i),
                    format!(
                        "{feature:?} is not a feature of pack {:?} ({})",
                        pack.id(),
                        pack_features.join(", ")
                    ),
                ));
            }
        }
        for (i, arm) in self.arms.iter().enumerate() {
            self.check_split(i, &arm.split, pack, features)?;
            self.check_prepare(i, &arm.prepare, pack)?;
            self.check_missing(i, &arm.prepare, pack)?;
        }
        for (i, ablation) in self.ablation_list().iter().enumerate() {
            let at = JsonPath::field("ablations").index(i).key("drop");
            for (j, feature) in ablation.drop.iter().enumerate() {
                if !features.contains(feature) {
                    return Err(Error::experiment(
                        at.index(j),
                        format!("{feature:?} is not a feature of this experiment"),
                    ));
                }
            }
            if ablation.drop.len() == features.len() {
                return Err(Error::experiment(
                    at,
                    "an ablation must keep at least one feature",
                ));
            }
        }
        Ok(())
    }

    /// Arm `index`'s preparation against the pack: a target-encoded column is one of the
    /// experiment's categorical features, and `select_k_best` keeps no more columns than
    /// the arm's features give it at that step (a one-hot feature is one column per level
    /// until it is target-encoded). An ablation that leaves fewer keeps them all, as
    /// scikit-learn does (docs/PREPARE.md).
    fn check_prepare(&self, index: usize, steps: &[Step], pack: &Pack) -> Result<()> {
        let features = self.model_features(pack);
        let layout = pack.table().layout();
        // Looked up by name through one index: a wide table has thousands of features.
        let source_index: std::collections::BTreeMap<&str, usize> = layout
            .sources()
            .iter()
            .enumerate()
            .map(|(k, s)| (s.as_str(), k))
            .collect();
        let levels = |name: &str| {
            source_index
                .get(name)
                .map_or(0, |&k| layout.levels(k).len())
        };
        let mut columns: usize = features.iter().map(|f| levels(f).max(1)).sum();
        for (i, step) in steps.iter().enumerate() {
            let at = JsonPath::field("arms").index(index).key("prepare").index(i);
            match step {
                Step::TargetEncode { column, .. } => {
                    if !features.contains(column) {
                        return Err(Error::experiment(
                            at.key("column"),
                            format!("{column:?} is not a feature of this experiment"),
                        ));
                    }
                    let n = levels(column);
                    if n == 0 {
                        return Err(Error::experiment(
                            at.key("column"),
                            format!("{column:?} is numeric; target_encode encodes a categorical feature (one the manifest lists under categorical)"),
                        ));
                    }
                    columns = columns + 1 - n;
                }
                Step::SelectKBest { k, .. } if *k as usize > columns => {
                    return Err(Error::experiment(
                        at.key("k"),
                        format!("keeps {k} columns, but the arm's features give {columns} at this step: lower k"),
                    ));
                }
                Step::SelectKBest { k, .. } => columns = *k as usize,
                _ => {}
            }
        }
        Ok(())
    }

    /// A feature with missing values (empty cells) is used by arm `index` only when the
    /// arm imputes it before anything but `standardize` reads it (a scaler leaves missing
    /// values missing, as scikit-learn's does); the model never sees one.
    fn check_missing(&self, index: usize, steps: &[Step], pack: &Pack) -> Result<()> {
        let imputes_first = steps
            .iter()
            .find(|s| !matches!(s, Step::Standardize { .. }))
            .is_some_and(|s| matches!(s, Step::Impute { .. }));
        if imputes_first {
            return Ok(());
        }
        let table = pack.table();
        if !table.has_missing_cells() {
            return Ok(());
        }
        for feature in self.model_features(pack) {
            if let Some((row, count)) = table.missing_cells(&feature) {
                let at = JsonPath::field("arms").index(index);
                let at = if steps.is_empty() {
                    at
                } else {
                    at.key("prepare")
                };
                return Err(Error::experiment(
                    at,
                    format!(
                        "feature {feature:?} has {count} empty cell{} (the first in data row {row} of {}): impute it before the model, e.g. \"prepare\": [{{\"step\": \"impute\", \"strategy\": \"median\"}}], or leave the feature out (\"features\")",
                        if count == 1 { "" } else { "s" },
                        pack.manifest().data.file
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The checks that need no pack: format, model, names, fractions, metrics, claim.
    pub fn check_structure(&self) -> Result<()> {
        self.check_header()?;
        let arm_names = self.check_arms()?;
        self.check_ablations()?;
        self.check_metrics()?;
        match &self.claim {
            Some(claim) => self.check_claim(claim, &arm_names),
            None => Ok(()),
        }
    }

    /// The format, the model's C, the sizes of the lists and the feature list.
    fn check_header(&self) -> Result<()> {
        if self.format != EXPERIMENT_FORMAT {
            return Err(Error::experiment(
                JsonPath::field("format"),
                format!("expected {EXPERIMENT_FORMAT:?}, found {:?}", self.format),
            ));
        }
        match &self.model {
            ModelSpec::Logistic { c } => {
                if !(C_RANGE.0..=C_RANGE.1).contains(c) {
                    return Err(Error::experiment(
                        JsonPath::field("model").key("c"),
                        format!("must lie in [{:e}, {:e}], found {c}", C_RANGE.0, C_RANGE.1),
                    ));
                }
            }
            ModelSpec::Gbdt(spec) => spec.check()?,
        }
        if self.arms.len() > MAX_ARMS {
            return Err(Error::experiment(
                JsonPath::field("arms"),
                format!("{} arms, more than {MAX_ARMS}", self.arms.len()),
            ));
        }
        if self.ablation_list().len() > MAX_ABLATIONS {
            return Err(Error::experiment(
                JsonPath::field("ablations"),
                format!(
                    "{} ablations, more than {MAX_ABLATIONS}",
                    self.ablation_list().len()
                ),
            ));
        }
        if let Some(features) = &self.features {
            if features.is_empty() {
                return Err(Error::experiment(
                    JsonPath::field("features"),
                    "must name at least one feature",
                ));
            }
            let mut seen = BTreeSet::new();
            for (i, feature) in features.iter().enumerate() {
                if !seen.insert(feature) {
                    return Err(Error::experiment(
                        JsonPath::field("features").index(i),
                        format!("{feature:?} is listed twice"),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Arm names (unique, not empty) and each split's numbers; the arm names, for the claim.
    fn check_arms(&self) -> Result<BTreeSet<&str>> {
        if self.arms.is_empty() {
            return Err(Error::experiment(
                JsonPath::field("arms"),
                "must hold at least one arm",
            ));
        }
        let mut arm_names = BTreeSet::new();
        for (i, arm) in self.arms.iter().enumerate() {
            let at = JsonPath::field("arms").index(i);
            new_name(&mut arm_names, &arm.name, at.key("name"), "arm")?;
            check_split_numbers(&arm.split, &at.key("split"))?;
            crate::prepare::check_steps(&arm.prepare, &at.key("prepare"))?;
        }
        Ok(arm_names)
    }

    /// Ablation names and drop sets. Ablations are keyed by content (src/design.rs): the
    /// same drop set twice is a repetition, which would pad the selector's score (5 points
    /// an ablation) or move the design hash without changing the evaluation. (Two arms with
    /// one split stay allowed: a boundary map's base experiment holds one, the arm its sweep
    /// replaces; no score counts arms.)
    fn check_ablations(&self) -> Result<()> {
        let mut ablation_names = BTreeSet::new();
        let mut drop_sets: Vec<(BTreeSet<&String>, usize)> = Vec::new();
        for (i, ablation) in self.ablation_list().iter().enumerate() {
            let at = JsonPath::field("ablations").index(i);
            new_name(
                &mut ablation_names,
                &ablation.name,
                at.key("name"),
                "ablation",
            )?;
            let mut dropped = BTreeSet::new();
            for (j, feature) in ablation.drop.iter().enumerate() {
                if !dropped.insert(feature) {
                    return Err(Error::experiment(
                        at.key("drop").index(j),
                        format!("{feature:?} is listed twice"),
                    ));
                }
            }
            if let Some((_, first)) = drop_sets.iter().find(|(set, _)| *set == dropped) {
                return Err(Error::experiment(
                    at.key("drop"),
                    format!(
                        "drops the same features as $.ablations[{first}] ({:?}): an ablation listed twice; remove one",
                        self.ablation_list()[*first].name
                    ),
                ));
            }
            drop_sets.push((dropped, i));
        }
        Ok(())
    }

    /// At least one metric, none twice.
    fn check_metrics(&self) -> Result<()> {
        if self.metrics.is_empty() {
            return Err(Error::experiment(
                JsonPath::field("metrics"),
                "must name at least one metric",
            ));
        }
        let mut metric_names = BTreeSet::new();
        for (i, metric) in self.metrics.iter().enumerate() {
            if !metric_names.insert(*metric) {
                return Err(Error::experiment(
                    JsonPath::field("metrics").index(i),
                    format!("{:?} is listed twice", metric.as_str()),
                ));
            }
        }
        Ok(())
    }

    /// Two cross-validation arms of a gap claim are compared repeat by repeat
    /// (`stats::intervals::paired_gap`), so two that draw their folds (`k_fold`,
    /// `entity_k_fold`) must repeat equally often; a `rolling_origin` draws nothing, and its
    /// one repeat pairs with every repeat of the other arm.
    fn check_gap_repeats(&self, higher: &str, lower: &str) -> Result<()> {
        let arm = |name: &str| self.arms.iter().position(|a| a.name == name);
        let (Some(h), Some(l)) = (arm(higher), arm(lower)) else {
            return Ok(());
        };
        let (split_h, split_l) = (&self.arms[h].split, &self.arms[l].split);
        if split_h.cross_validation().is_none() || split_l.cross_validation().is_none() {
            return Ok(());
        }
        let draws = |split: &SplitSpec| {
            matches!(
                split,
                SplitSpec::KFold { .. } | SplitSpec::EntityKFold { .. }
            )
        };
        if split_h.repeats() == split_l.repeats() || !draws(split_h) || !draws(split_l) {
            return Ok(());
        }
        Err(Error::experiment(
            JsonPath::field("arms").index(l).key("split").key("repeats"),
            format!(
                "the claim compares {higher:?} ({} repeats) with {lower:?} ({} repeats): two cross-validation arms of a gap are paired repeat by repeat, so give both the same repeats",
                split_h.repeats(),
                split_l.repeats()
            ),
        ))
    }

    /// The claim reads a listed metric, names existing arms (two different ones for a gap,
    /// repeating alike) and finite numbers.
    fn check_claim(&self, claim: &Claim, arm_names: &BTreeSet<&str>) -> Result<()> {
        let at = JsonPath::field("claim");
        if !self.metrics.contains(&claim.metric()) {
            return Err(Error::experiment(
                at.key("metric"),
                format!("{:?} is not among $.metrics", claim.metric().as_str()),
            ));
        }
        let arm_exists = |field: &str, name: &str| -> Result<()> {
            if arm_names.contains(name) {
                Ok(())
            } else {
                Err(Error::experiment(
                    at.key(field),
                    format!("no arm is named {name:?}"),
                ))
            }
        };
        let finite = |field: &str, value: f64| -> Result<()> {
            if value.is_finite() {
                Ok(())
            } else {
                Err(Error::experiment(at.key(field), "must be a finite number"))
            }
        };
        match claim {
            Claim::MetricGap {
                higher,
                lower,
                bound,
                ..
            } => {
                arm_exists("higher", higher)?;
                arm_exists("lower", lower)?;
                if higher == lower {
                    return Err(Error::experiment(
                        at.key("lower"),
                        "must name another arm than $.claim.higher",
                    ));
                }
                self.check_gap_repeats(higher, lower)?;
                finite(bound.key(), bound.value())?;
                match *bound {
                    // The schema says so too (exclusiveMinimum); an experiment built in
                    // code is held to the same rule.
                    GapBound::Within(margin) if margin <= 0.0 => Err(Error::experiment(
                        at.key("within"),
                        format!("must be above 0 (a margin either side of no gap), found {margin}"),
                    )),
                    _ => Ok(()),
                }
            }
            Claim::MetricAtLeast { arm, value, .. } | Claim::MetricAtMost { arm, value, .. } => {
                arm_exists("arm", arm)?;
                finite("value", *value)
            }
        }
    }

    fn check_split(
        &self,
        i: usize,
        split: &SplitSpec,
        pack: &Pack,
        features: &[String],
    ) -> Result<()> {
        let path = JsonPath::field("arms").index(i).key("split");
        match split {
            SplitSpec::Temporal { .. } | SplitSpec::RollingOrigin { .. }
                if pack.manifest().data.time.is_none() =>
            {
                Err(Error::experiment(
                    path.key("kind"),
                    format!("pack {:?} has no time column", pack.id()),
                ))
            }
            SplitSpec::Predefined { column }
                if features.contains(column) || pack.table().extra_column(column).is_none() =>
            {
                Err(Error::experiment(
                    path.key("column"),
                    format!(
                        "{column:?} is not a column of the fixture outside the manifest's roles"
                    ),
                ))
            }
            // Every cell of the column must be 0/1 or false/true; the split says which is not.
            SplitSpec::Predefined { .. } => {
                crate::split::split(pack.table(), split, self.seed, &path).map(|_| ())
            }
            // The table must fill every fold: the folds say which count it cannot.
            SplitSpec::KFold { .. }
            | SplitSpec::EntityKFold { .. }
            | SplitSpec::RollingOrigin { .. } => {
                crate::split::folds(pack.table(), split, self.seed, &path).map(|_| ())
            }
            _ => Ok(()),
        }
    }
}

/// A split's numbers: overlap in [0, 1], test fractions in (0, 1), folds in [2, MAX_FOLDS].
/// `at` is the split's path (`$.arms[i].split`).
fn check_split_numbers(split: &SplitSpec, at: &JsonPath) -> Result<()> {
    let fraction_error = |test_fraction: f64| {
        Error::experiment(
            at.key("test_fraction"),
            format!("must lie strictly between 0 and 1, found {test_fraction}"),
        )
    };
    let proper_fraction = |f: f64| f.is_finite() && f > 0.0 && f < 1.0;
    if let SplitSpec::EntityOverlap { overlap, .. } = *split {
        if !(overlap.is_finite() && (0.0..=1.0).contains(&overlap)) {
            return Err(Error::experiment(
                at.key("overlap"),
                format!("must lie between 0 and 1, found {overlap}"),
            ));
        }
    }
    if let SplitSpec::RollingOrigin {
        test_fraction: Some(test_fraction),
        ..
    } = *split
    {
        if !proper_fraction(test_fraction) {
            return Err(fraction_error(test_fraction));
        }
    }
    if let Some((folds, _)) = split.cross_validation() {
        if !(2..=MAX_FOLDS).contains(&folds) {
            return Err(Error::experiment(
                at.key("folds"),
                format!("must be an integer in [2, {MAX_FOLDS}], found {folds}"),
            ));
        }
    }
    if let SplitSpec::RandomRows { test_fraction }
    | SplitSpec::EntityGrouped { test_fraction }
    | SplitSpec::EntityOverlap { test_fraction, .. }
    | SplitSpec::Temporal { test_fraction } = *split
    {
        if !proper_fraction(test_fraction) {
            return Err(fraction_error(test_fraction));
        }
    }
    Ok(())
}

/// Flat shapes of the tagged objects. serde's internally tagged enums buffer their content,
/// which loses the JSON path of a bad field (`$.model.c` would be reported as `$.model`);
/// deserialising a flat struct first keeps the path, and the conversion then refuses
/// fields that do not belong to the kind.
mod raw {
    use serde::Deserialize;

    use super::{Claim, GapBound, GbdtSpec, MetricName, ModelSpec};

    /// Why a tagged object's fields do not fit its kind (serde reports it at the object's
    /// path, in serde's own wording).
    #[derive(Debug)]
    pub(super) enum ShapeError {
        /// A field another kind has.
        UnknownField { field: &'static str, kind: String },
        /// A field the kind needs.
        MissingField(&'static str),
        /// A `metric_gap` without `at_least`, `at_most` or `within`.
        NoGapBound,
        /// A `metric_gap` with more than one of them.
        TwoGapBounds,
        /// A kind outside the vocabulary (`what`: model or claim; `expected`: the kinds).
        UnknownKind {
            what: &'static str,
            found: String,
            expected: &'static str,
        },
    }

    impl std::fmt::Display for ShapeError {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            match self {
                ShapeError::UnknownField { field, kind } => {
                    write!(f, "unknown field `{field}` for kind {kind:?}")
                }
                ShapeError::MissingField(name) => write!(f, "missing field `{name}`"),
                ShapeError::NoGapBound => write!(
                    f,
                    "missing field: a metric_gap needs one of `at_least`, `at_most`, `within`"
                ),
                ShapeError::TwoGapBounds => write!(
                    f,
                    "a metric_gap takes exactly one of `at_least`, `at_most`, `within`"
                ),
                ShapeError::UnknownKind {
                    what,
                    found,
                    expected,
                } => write!(f, "unknown {what} kind {found:?} (expected {expected})"),
            }
        }
    }

    fn refuse_extra(kind: &str, fields: &[(&'static str, bool)]) -> Result<(), ShapeError> {
        match fields.iter().find(|(_, present)| *present) {
            Some((field, _)) => Err(ShapeError::UnknownField {
                field,
                kind: kind.to_owned(),
            }),
            None => Ok(()),
        }
    }

    fn required<T>(value: Option<T>, name: &'static str) -> Result<T, ShapeError> {
        value.ok_or(ShapeError::MissingField(name))
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub(super) struct RawModel {
        kind: String,
        c: Option<f64>,
        learning_rate: Option<f64>,
        max_iter: Option<u32>,
        max_leaf_nodes: Option<u32>,
        min_samples_leaf: Option<u32>,
        l2_regularization: Option<f64>,
        max_bins: Option<u32>,
    }

    impl TryFrom<RawModel> for ModelSpec {
        type Error = ShapeError;
        fn try_from(raw: RawModel) -> Result<Self, ShapeError> {
            let kind = raw.kind.as_str();
            match kind {
                "logistic" => {
                    refuse_extra(
                        kind,
                        &[
                            ("learning_rate", raw.learning_rate.is_some()),
                            ("max_iter", raw.max_iter.is_some()),
                            ("max_leaf_nodes", raw.max_leaf_nodes.is_some()),
                            ("min_samples_leaf", raw.min_samples_leaf.is_some()),
                            ("l2_regularization", raw.l2_regularization.is_some()),
                            ("max_bins", raw.max_bins.is_some()),
                        ],
                    )?;
                    Ok(ModelSpec::Logistic {
                        c: required(raw.c, "c")?,
                    })
                }
                "gbdt" => {
                    refuse_extra(kind, &[("c", raw.c.is_some())])?;
                    let d = GbdtSpec::default();
                    Ok(ModelSpec::Gbdt(GbdtSpec {
                        learning_rate: raw.learning_rate.unwrap_or(d.learning_rate),
                        max_iter: raw.max_iter.unwrap_or(d.max_iter),
                        max_leaf_nodes: raw.max_leaf_nodes.unwrap_or(d.max_leaf_nodes),
                        min_samples_leaf: raw.min_samples_leaf.unwrap_or(d.min_samples_leaf),
                        l2_regularization: raw.l2_regularization.unwrap_or(d.l2_regularization),
                        max_bins: raw.max_bins.unwrap_or(d.max_bins),
                    }))
                }
                other => Err(ShapeError::UnknownKind {
                    what: "model",
                    found: other.to_owned(),
                    expected: "\"logistic\" or \"gbdt\"",
                }),
            }
        }
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub(super) struct RawClaim {
        kind: String,
        metric: Option<MetricName>,
        higher: Option<String>,
        lower: Option<String>,
        at_least: Option<f64>,
        at_most: Option<f64>,
        within: Option<f64>,
        arm: Option<String>,
        value: Option<f64>,
    }

    impl TryFrom<RawClaim> for Claim {
        type Error = ShapeError;
        fn try_from(raw: RawClaim) -> Result<Self, ShapeError> {
            let kind = raw.kind.as_str();
            let metric = required(raw.metric, "metric")?;
            match kind {
                "metric_gap" => {
                    refuse_extra(
                        kind,
                        &[("arm", raw.arm.is_some()), ("value", raw.value.is_some())],
                    )?;
                    let higher = required(raw.higher, "higher")?;
                    let lower = required(raw.lower, "lower")?;
                    let bound = match (raw.at_least, raw.at_most, raw.within) {
                        (Some(x), None, None) => GapBound::AtLeast(x),
                        (None, Some(x), None) => GapBound::AtMost(x),
                        (None, None, Some(m)) => GapBound::Within(m),
                        (None, None, None) => return Err(ShapeError::NoGapBound),
                        _ => return Err(ShapeError::TwoGapBounds),
                    };
                    Ok(Claim::MetricGap {
                        metric,
                        higher,
                        lower,
                        bound,
                    })
                }
                "metric_at_least" | "metric_at_most" => {
                    refuse_extra(
                        kind,
                        &[
                            ("higher", raw.higher.is_some()),
                            ("lower", raw.lower.is_some()),
                            ("at_least", raw.at_least.is_some()),
                            ("at_most", raw.at_most.is_some()),
                            ("within", raw.within.is_some()),
                        ],
                    )?;
                    let arm = required(raw.arm, "arm")?;
                    let value = required(raw.value, "value")?;
                    Ok(if kind == "metric_at_least" {
                        Claim::MetricAtLeast { metric, arm, value }
                    } else {
                        Claim::MetricAtMost { metric, arm, value }
                    })
                }
                other => Err(ShapeError::UnknownKind {
                    what: "claim",
                    found: other.to_owned(),
                    expected: "metric_gap, metric_at_least or metric_at_most",
                }),
            }
        }
    }
}

/// Records `name` (of an arm or an ablation, `kind`) at JSON path `path` among `names`: an
/// error when it is empty or already taken.
fn new_name<'a>(
    names: &mut BTreeSet<&'a str>,
    name: &'a str,
    path: JsonPath,
    kind: &str,
) -> Result<()> {
    if name.is_empty() {
        return Err(Error::experiment(path, "must not be empty"));
    }
    if !names.insert(name) {
        return Err(Error::experiment(
            path,
            format!("duplicate {kind} name {name:?}"),
        ));
    }
    Ok(())
}
