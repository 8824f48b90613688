//! The experiment's model, of either family: the logistic regression (`src/model/`) or
//! the gradient-boosted trees (`src/model/gbdt/`), behind one interface that the arms,
//! folds, nulls and ablations use without knowing which (`src/arm.rs`).
//!
//! A fold is prepared once (its training and test rows, standardised for the logistic
//! model, raw for the trees, which bin them when fitted) and then fitted under any number
//! of label vectors: the original labels, the label mutations and the permutation nulls.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::experiment::{GbdtSpec, ModelSpec};
use crate::model::gbdt::{BinnedRows, FittedGbdt, HistGradientBoosting};
use crate::model::{Design, FittedLogistic, LogisticRegression, Matrix};

/// A model ready to fit: the experiment's [`ModelSpec`] with the fit's settings.
#[derive(Debug, Clone)]
pub enum Model {
    /// scikit-learn's `StandardScaler` + `LogisticRegression(C)`.
    Logistic(LogisticRegression),
    /// scikit-learn's `HistGradientBoostingClassifier(early_stopping=False)`.
    Gbdt(HistGradientBoosting),
}

/// One fold's rows prepared for fits of a [`Model`]: what does not depend on the labels.
pub enum PreparedDesign {
    /// The training rows standardised (with the fit's shared start) and the test rows on
    /// the training rows' scale.
    Logistic {
        /// The standardised training design.
        design: Design,
        /// The test rows, standardised with the training rows' statistics.
        test: Matrix,
    },
    /// The training rows binned (once for every labelling the fold is fitted under) and
    /// the raw test rows.
    Gbdt {
        /// The training rows, binned.
        train: BinnedRows,
        /// The test rows.
        test: Matrix,
    },
}

/// A fitted model of either family.
#[derive(Debug, Clone)]
pub enum Fitted {
    /// A fitted logistic regression.
    Logistic(FittedLogistic),
    /// Fitted gradient-boosted trees.
    Gbdt(FittedGbdt),
}

/// What a result records of a fitted model: a logistic model's weights, or the trees'
/// shape. Written untagged, so a logistic model's summary is the object it always was (no
/// recorded result hash moves).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ModelSummary {
    /// A logistic model on the standardised scale.
    Logistic(LogisticSummary),
    /// Gradient-boosted trees.
    Gbdt(GbdtSummary),
}

/// A fitted logistic model, on the standardised scale.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogisticSummary {
    /// Intercept.
    pub intercept: f64,
    /// Coefficient per feature, by name.
    pub coefficients: BTreeMap<String, f64>,
    /// Solver iterations.
    pub iterations: u64,
    /// Whether the solver met its tolerance.
    pub converged: bool,
}

/// Fitted gradient-boosted trees: their start and shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GbdtSummary {
    /// The raw score every tree adds to: the log-odds of the training prevalence.
    pub baseline: f64,
    /// Trees fitted (one per boosting iteration).
    pub trees: u64,
    /// Leaves over all trees.
    pub leaves: u64,
    /// Per feature name (a model column), how many splits of all trees test it; features
    /// no split tests are listed with 0.
    pub splits: BTreeMap<String, u64>,
}

impl ModelSummary {
    /// The logistic model's summary, or `None` for trees.
    pub fn as_logistic(&self) -> Option<&LogisticSummary> {
        match self {
            ModelSummary::Logistic(summary) => Some(summary),
            ModelSummary::Gbdt(_) => None,
        }
    }
}

impl Model {
    /// The model of `spec`; a logistic fit stops at gradient tolerance `tol` (the trees
    /// always grow `max_iter` of them: no tolerance, no early stopping).
    pub fn new(spec: &ModelSpec, tol: f64) -> Model {
        match spec {
            ModelSpec::Logistic { c } => Model::Logistic(LogisticRegression {
                tol,
                ..LogisticRegression::new(*c)
            }),
            ModelSpec::Gbdt(spec) => Model::Gbdt(hist_gradient_boosting(spec)),
        }
    }

    /// A fold's design from its training and test rows (model columns, canonical order):
    /// the logistic model standardises them on the training rows. Errors as the fit would
    /// on the feature values (no rows, a value that is not finite).
    pub fn prepare(&self, train: Matrix, test: Matrix) -> Result<PreparedDesign> {
        match self {
            Model::Logistic(_) => {
                let design = Design::new(&train)?;
                drop(train);
                let test = design.standardizer().transform(&test);
                Ok(PreparedDesign::Logistic { design, test })
            }
            Model::Gbdt(model) => Ok(PreparedDesign::Gbdt {
                train: model.bin(&train)?,
                test,
            }),
        }
    }

    /// The checks of a fit that do not look at feature values (both families refuse one
    /// class of training labels): what a fit whose design could not be prepared reports
    /// first, as a fit from scratch would.
    pub fn check_labels(&self, rows: usize, y: &[bool]) -> Result<()> {
        match self {
            Model::Logistic(model) => model.check_labels(rows, y).map(|_| ()),
            Model::Gbdt(_) => crate::model::gbdt::check_labels(rows, y).map(|_| ()),
        }
    }

    /// Fits on `design`'s training rows under `train_labels` and scores its test rows: the
    /// fitted model and each test row's probability of the positive class.
    pub fn fit(
        &self,
        design: &PreparedDesign,
        train_labels: &[bool],
    ) -> Result<(Fitted, Vec<f64>)> {
        match (self, design) {
            (Model::Logistic(model), PreparedDesign::Logistic { design, test }) => {
                let fitted = model.fit_design(design, train_labels)?;
                let probability = fitted.predict_proba_standardized(test);
                Ok((Fitted::Logistic(fitted), probability))
            }
            (Model::Gbdt(model), PreparedDesign::Gbdt { train, test }) => {
                let fitted = model.fit_binned(train, train_labels)?;
                let probability = fitted.predict_probability(test);
                Ok((Fitted::Gbdt(fitted), probability))
            }
            _ => unreachable!("a design is prepared by the model that fits it"),
        }
    }
}

/// The kernel's trees for an experiment's `gbdt` parameters (ranges checked by the
/// experiment, so the widening casts cannot lose anything).
pub fn hist_gradient_boosting(spec: &GbdtSpec) -> HistGradientBoosting {
    HistGradientBoosting {
        learning_rate: spec.learning_rate,
        max_iter: spec.max_iter as usize,
        max_leaf_nodes: spec.max_leaf_nodes as usize,
        min_samples_leaf: spec.min_samples_leaf as usize,
        l2_regularization: spec.l2_regularization,
        max_bins: spec.max_bins as usize,
    }
}

impl Fitted {
    /// Why the fit's test scores must not be read as a model's, or `None` when they may:
    /// the logistic solver stopped without meeting its tolerance (iteration limit, stalled
    /// line search, overflow, …), or the model gives every test row the same score, a
    /// degenerate solution whose AUC of 0.5 and zero-width DeLong interval would be facts
    /// about the fit, not about the data (trees that found no split are one).
    pub fn failure(&self, test_probability: &[f64]) -> Option<String> {
        if let Fitted::Logistic(fitted) = self {
            if let Some(why) = fitted.stop.failure() {
                return Some(format!(
                    "the model did not fit: {why} after {} iterations",
                    fitted.iterations
                ));
            }
        }
        let constant = test_probability
            .windows(2)
            .all(|w| w[0].to_bits() == w[1].to_bits());
        (test_probability.len() >= 2 && constant).then(|| {
            "the fitted model gives every test row the same score (a constant predictor)".to_owned()
        })
    }

    /// What a result records of the model, its model columns named by `columns`.
    pub fn summary(&self, columns: Vec<String>) -> ModelSummary {
        match self {
            Fitted::Logistic(fitted) => ModelSummary::Logistic(LogisticSummary {
                intercept: fitted.intercept,
                coefficients: columns
                    .into_iter()
                    .zip(fitted.coefficients.iter().copied())
                    .collect(),
                iterations: fitted.iterations as u64,
                converged: fitted.converged,
            }),
            Fitted::Gbdt(fitted) => {
                let mut per_column = vec![0u64; columns.len()];
                let mut leaves = 0u64;
                for tree in fitted.trees() {
                    leaves += tree.leaves() as u64;
                    for node in tree.nodes() {
                        if let Some(split) = &node.split {
                            per_column[split.feature] += 1;
                        }
                    }
                }
                ModelSummary::Gbdt(GbdtSummary {
                    baseline: fitted.baseline(),
                    trees: fitted.trees().len() as u64,
                    leaves,
                    splits: columns.into_iter().zip(per_column).collect(),
                })
            }
        }
    }
}
