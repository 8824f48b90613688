//! Preparation an arm applies to its features before the model (`"prepare"`,
//! docs/PREPARE.md): imputation, scaling, target encoding, univariate selection and
//! oversampling, each fitted on the fold's training rows (the honest way) or on every row
//! of the table (`"fit_on": "all_rows"`, the leak a verifier must be able to measure).
//!
//! This file is the vocabulary and its checks; [`frame`] runs a pipeline on one fold, and
//! each step's arithmetic lives in a file of its own. Steps follow scikit-learn's and
//! imbalanced-learn's semantics (`StandardScaler`, `SimpleImputer`, `TargetEncoder`'s
//! `fit` then `transform`, `SelectKBest(f_classif)`, `RandomOverSampler`, `SMOTE`), checked
//! by the goldens under tests/parity/.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::json_path::JsonPath;

mod frame;
mod impute;
mod oversample;
mod select_k_best;
mod standardize;
mod target_encode;

pub use frame::{prepare_columns, prepare_fold, FoldRows, ModelColumns, PreparedRows};

/// The most steps an arm's `prepare` may hold (docs/payload.schema.json).
pub const MAX_STEPS: usize = 16;

/// The range of `target_encode`'s `smooth` m, both ends included: m ≥ 0 is
/// scikit-learn's; the upper end keeps (n_c·ȳ_c + m·ȳ)/(n_c + m) well away from overflow.
pub const SMOOTH_RANGE: (f64, f64) = (0.0, 1e6);

/// The range of SMOTE's `k_neighbors`, both ends included (imbalanced-learn's default 5).
/// The upper end bounds the neighbour search's memory (k per minority row).
pub const K_NEIGHBORS_RANGE: (u32, u32) = (1, 100);

/// SMOTE's neighbours when `k_neighbors` is left out (imbalanced-learn's default).
pub const DEFAULT_K_NEIGHBORS: u32 = 5;

/// Which rows a step is fitted on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FitOn {
    /// The fold's training rows (each fold's, in a cross-validated arm): the honest way.
    #[default]
    TrainingRows,
    /// Every row of the table, test rows included, before the split: the leak.
    AllRows,
}

/// `impute`'s statistic (scikit-learn's `SimpleImputer(strategy=…)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ImputeStrategy {
    /// The mean of the column's present values.
    Mean,
    /// Their median (the mean of the two middle values for an even count).
    Median,
    /// The most frequent present value, the smallest among ties.
    MostFrequent,
}

/// `oversample`'s method (imbalanced-learn's samplers, `sampling_strategy="auto"`: the
/// minority class is brought up to the majority's count).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OversampleMethod {
    /// `RandomOverSampler`: copies of minority rows drawn with replacement.
    Random,
    /// `SMOTE`: points on the segment from a minority row to one of its k nearest
    /// minority neighbours.
    Smote,
}

/// One preparation step, written `{"step": NAME, …, "fit_on": …}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "snake_case", deny_unknown_fields)]
pub enum Step {
    /// Every column to zero mean and unit variance (`StandardScaler`).
    Standardize {
        /// Which rows the means and scales come from.
        #[serde(default)]
        fit_on: FitOn,
    },
    /// Missing values (empty cells) replaced by a statistic (`SimpleImputer`).
    Impute {
        /// The statistic.
        strategy: ImputeStrategy,
        /// Which rows the statistic comes from.
        #[serde(default)]
        fit_on: FitOn,
    },
    /// A categorical feature's one-hot columns replaced by one column, each level's
    /// smoothed positive rate (n_c·ȳ_c + m·ȳ)/(n_c + m); a level the fitting rows lack
    /// gets ȳ (`TargetEncoder(smooth=m)`, `fit` then `transform`).
    TargetEncode {
        /// The categorical feature.
        column: String,
        /// The smoothing m.
        smooth: f64,
        /// Which rows the rates come from.
        #[serde(default)]
        fit_on: FitOn,
    },
    /// The k columns of largest ANOVA F statistic against the label
    /// (`SelectKBest(f_classif, k=k)`).
    SelectKBest {
        /// How many model columns to keep (all of them when there are no more than k).
        k: u32,
        /// Which rows the F statistics come from.
        #[serde(default)]
        fit_on: FitOn,
    },
    /// Synthetic or copied minority rows added to the training rows.
    Oversample {
        /// How the new rows are made.
        method: OversampleMethod,
        /// SMOTE's neighbours (default 5); not allowed with `random`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        k_neighbors: Option<u32>,
        /// Which rows the new rows are drawn from.
        #[serde(default)]
        fit_on: FitOn,
    },
}

impl Step {
    /// The step's name, as `step` spells it.
    pub fn name(&self) -> &'static str {
        match self {
            Step::Standardize { .. } => "standardize",
            Step::Impute { .. } => "impute",
            Step::TargetEncode { .. } => "target_encode",
            Step::SelectKBest { .. } => "select_k_best",
            Step::Oversample { .. } => "oversample",
        }
    }

    /// Which rows the step is fitted on.
    pub fn fit_on(&self) -> FitOn {
        match self {
            Step::Standardize { fit_on }
            | Step::Impute { fit_on, .. }
            | Step::TargetEncode { fit_on, .. }
            | Step::SelectKBest { fit_on, .. }
            | Step::Oversample { fit_on, .. } => *fit_on,
        }
    }

    /// Whether fitting the step reads the labels: such a step is refitted under every
    /// labelling (a permutation null re-runs the whole preparation).
    pub fn reads_labels(&self) -> bool {
        matches!(
            self,
            Step::TargetEncode { .. } | Step::SelectKBest { .. } | Step::Oversample { .. }
        )
    }
}

/// Whether any step of `steps` reads the labels ([`Step::reads_labels`]).
pub fn reads_labels(steps: &[Step]) -> bool {
    steps.iter().any(Step::reads_labels)
}

/// Whether the preparation fits a label-reading step on all rows, test rows included: the
/// arm's scores then carry the test rows' labels, and under permuted labels the arm's
/// null carries the permuted ones (the verifier's `mutation.label.prepared`).
pub fn leaks_labels(steps: &[Step]) -> bool {
    steps
        .iter()
        .any(|s| s.reads_labels() && s.fit_on() == FitOn::AllRows)
}

/// The first step of `steps` that leaks the labels ([`leaks_labels`]), with its index.
pub fn first_leak(steps: &[Step]) -> Option<(usize, &Step)> {
    steps
        .iter()
        .enumerate()
        .find(|(_, s)| s.reads_labels() && s.fit_on() == FitOn::AllRows)
}

/// Whether any step of `steps` adds training rows.
pub fn oversamples(steps: &[Step]) -> bool {
    steps.iter().any(|s| matches!(s, Step::Oversample { .. }))
}

/// The checks of an arm's `prepare` that need no pack: the list's length, each step's
/// numbers, and an order every fold can run (a category is encoded from its one-hot
/// columns, which selection may have removed and SMOTE's rows do not have). `at` is the
/// list's JSON path.
pub fn check_steps(steps: &[Step], at: &JsonPath) -> Result<()> {
    if steps.len() > MAX_STEPS {
        return Err(Error::experiment(
            at.clone(),
            format!("{} steps, more than {MAX_STEPS}", steps.len()),
        ));
    }
    let mut encoded: Vec<&str> = Vec::new();
    let mut before_encoding: Option<&str> = None;
    for (i, step) in steps.iter().enumerate() {
        let here = at.index(i);
        match step {
            Step::TargetEncode { column, smooth, .. } => {
                if let Some(earlier) = before_encoding {
                    return Err(Error::experiment(
                        here.key("step"),
                        format!("target_encode must come before {earlier}: a category is encoded from its one-hot columns, which {earlier} may remove or blend; move it up"),
                    ));
                }
                if !(SMOOTH_RANGE.0..=SMOOTH_RANGE.1).contains(smooth) {
                    return Err(Error::experiment(
                        here.key("smooth"),
                        format!(
                            "must lie in [{}, {:e}], found {smooth}",
                            SMOOTH_RANGE.0, SMOOTH_RANGE.1
                        ),
                    ));
                }
                if encoded.contains(&column.as_str()) {
                    return Err(Error::experiment(
                        here.key("column"),
                        format!("{column:?} is target-encoded twice; remove one step"),
                    ));
                }
                encoded.push(column);
            }
            Step::SelectKBest { k, .. } => {
                if *k == 0 {
                    return Err(Error::experiment(
                        here.key("k"),
                        "must be at least 1 (a model needs a column)",
                    ));
                }
                before_encoding.get_or_insert("select_k_best");
            }
            Step::Oversample {
                method,
                k_neighbors,
                ..
            } => {
                match (method, k_neighbors) {
                    (OversampleMethod::Random, Some(_)) => {
                        return Err(Error::experiment(
                            here.key("k_neighbors"),
                            "applies to \"smote\" only: random oversampling copies rows and has no neighbours; remove it",
                        ))
                    }
                    (OversampleMethod::Smote, Some(k))
                        if !(K_NEIGHBORS_RANGE.0..=K_NEIGHBORS_RANGE.1).contains(k) =>
                    {
                        return Err(Error::experiment(
                            here.key("k_neighbors"),
                            format!(
                                "must lie in [{}, {}], found {k}",
                                K_NEIGHBORS_RANGE.0, K_NEIGHBORS_RANGE.1
                            ),
                        ))
                    }
                    _ => {}
                }
                before_encoding.get_or_insert("oversample");
            }
            Step::Standardize { .. } | Step::Impute { .. } => {}
        }
    }
    Ok(())
}

/// The steps in their normal form (src/design.rs): every default written out, so
/// `fit_on` left out and `"fit_on": "training_rows"` are one design.
pub fn normal_form(steps: &[Step]) -> serde_json::Value {
    let steps: Vec<Step> = steps
        .iter()
        .map(|step| match step {
            Step::Oversample {
                method: OversampleMethod::Smote,
                k_neighbors: None,
                fit_on,
            } => Step::Oversample {
                method: OversampleMethod::Smote,
                k_neighbors: Some(DEFAULT_K_NEIGHBORS),
                fit_on: *fit_on,
            },
            other => other.clone(),
        })
        .collect();
    crate::canon::to_value(&steps).expect("steps encode")
}

/// `impute`'s statistic of the present values of `values` at `rows`, or `None` when none
/// is present (scikit-learn's `SimpleImputer(strategy).statistics_`; tests/parity/).
pub fn impute_statistic(values: &[f64], rows: &[usize], strategy: ImputeStrategy) -> Option<f64> {
    impute::fit(values, rows, strategy)
}

#[cfg(test)]
mod tests;
