//! An experiment's arms evaluated once per table: each arm split, standardised and ready
//! to fit, then fitted under whatever labels a consumer brings.
//!
//! The flow runs one way. [`PreparedExperiment::new`] does everything that does not look
//! at labels — every arm's split (no split kind reads labels, see `src/split/mod.rs`), its
//! folds, its overlap and, per fold, the feature sets (the arm's own, then each ablation's).
//! [`PreparedExperiment::evaluate`] fits every feature set under one label vector and gives
//! the full results *and* each arm's test predictions, so the recompute, the active-label
//! mutations, the permutation nulls, the claim's interval, boundary cells and transfer
//! choices all read the same preparation; nothing is split twice for the same table.
//!
//! A fold's standardised design (training rows, twice, and test rows: about 16 bytes per
//! row and model column) is made when the fold is fitted and dropped after the fit, so an
//! evaluation holds one fold's design per thread, not every fold's of every arm at once
//! (5 × 5 folds of two arms at 10⁵ rows were 1.7 GB). Only a permutation null, which
//! refits the same folds under hundreds of labellings, keeps them: one arm's at a time
//! ([`PreparedExperiment::null_arm`]). Fits from a preparation perform exactly the float
//! operations of fits from scratch, so results are the same bits.
//!
//! Failures are values: an arm whose split fails, or a feature set that cannot be
//! standardised, keeps its typed [`Error`], and every fit of it returns that error in the
//! order a fit from scratch would have met it (the label checks first, then the design).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::experiment::{Experiment, MetricName};
use crate::json_path::JsonPath;
use crate::metrics::{self, MetricValue};
use crate::model::{Matrix, DEFAULT_TOL};
use crate::model_family::{Fitted, Model, PreparedDesign};
pub use crate::model_family::{GbdtSummary, LogisticSummary, ModelSummary};
use crate::pack::Pack;
use crate::parallel::parallel_map;
use crate::prepare;
use crate::split::{self, FoldAssignment, Overlap, Split, SplitSummary};
use crate::table::Table;

/// The gradient tolerance of a permutation null's fits
/// ([`PreparedExperiment::null_predictions`]), on the same scaled max-abs gradient test as
/// every other fit's [`DEFAULT_TOL`] of 1e-10 (kernel version 3 on; docs/DETERMINISM.md).
///
/// A null statistic is only placed against the observed one. Newton's method from the
/// intercept-only start reaches 1e-5 about an iteration before 1e-10 (3.6–4.4 iterations
/// per null fit on the packs at 1e-10), and the null fits are most of a verification's
/// work. 1e-5 is ten times tighter than the `tol` scikit-learn's `permutation_test_score`
/// refits with. Each null statistic stays a deterministic function of (pack, experiment,
/// permutation seed); the observed fit, and every result `counterlab run` computes, keep
/// 1e-10. How far the two tolerances' null statistics differ is measured by
/// `tests/calibration.rs` (`null_fits_at_the_null_tolerance_score_like_converged_fits`).
pub const NULL_FIT_TOL: f64 = 1e-5;

/// One arm's results. A cross-validation arm's are those of its pooled out-of-fold
/// predictions, with each fold's beside them (docs/FORMATS.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArmResult {
    /// Split counts and membership hash. For a cross-validation arm: `test_*` count the
    /// rows with an out-of-fold prediction, `train_*` the rows that train at least one
    /// fold, and the membership hash is the fold assignment's ([`FoldAssignment::membership_hash`]).
    pub split: SplitSummary,
    /// What train and test share; for a cross-validation arm, summed over its folds
    /// (`entities`: those on both sides of at least one fold).
    pub overlap: Overlap,
    /// The fitted model (absent for a cross-validation arm: one per fold, in `folds`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<ModelSummary>,
    /// The experiment's metrics on the test rows (pooled out-of-fold rows), by name.
    pub metrics: BTreeMap<String, MetricValue>,
    /// DeLong standard error and 95% CI of the test ROC AUC (when `roc_auc` is asked for).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roc_auc_delong: Option<DeLongSummary>,
    /// Per ablation name, its results (a cross-validation arm refits each fold without the
    /// dropped features and pools).
    pub ablations: BTreeMap<String, AblationResult>,
    /// A cross-validation arm's folds, in fold order (absent for a single split); a
    /// repeated arm's, repeat after repeat (fold f of repeat r is `folds[r·K + f]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folds: Option<Vec<FoldResult>>,
    /// A repeated cross-validation arm's repeats, in repeat order (absent for one repeat).
    /// The arm's `metrics` are then the mean of the repeats' pooled metrics.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeats: Option<Vec<RepeatResult>>,
    /// A repeated cross-validation arm's between-repeat standard deviation of each metric
    /// (denominator R − 1), by name; undefined where a repeat's metric is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub between_repeat_sd: Option<BTreeMap<String, MetricValue>>,
}

/// One repeat of a repeated cross-validation arm: its fold assignment and the metrics of
/// its pooled out-of-fold predictions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RepeatResult {
    /// The repeat's fold assignment ([`FoldAssignment::membership_hash`]).
    pub membership_hash: String,
    /// The experiment's metrics on the repeat's pooled out-of-fold predictions.
    pub metrics: BTreeMap<String, MetricValue>,
    /// DeLong SE and 95% CI of the repeat's pooled ROC AUC (when `roc_auc` is asked for).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roc_auc_delong: Option<DeLongSummary>,
}

/// One fold of a cross-validation arm.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FoldResult {
    /// The fold's split counts and membership hash.
    pub split: SplitSummary,
    /// What the fold's train and test rows share.
    pub overlap: Overlap,
    /// The model fitted on the fold's training rows.
    pub model: ModelSummary,
    /// The experiment's metrics on the fold's test rows alone.
    pub metrics: BTreeMap<String, MetricValue>,
}

/// DeLong's SE and CI, or why they are undefined.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum DeLongSummary {
    /// Defined.
    Value {
        /// Standard error.
        se: f64,
        /// 95% CI, clipped to [0, 1].
        ci: [f64; 2],
    },
    /// Undefined (one class, or fewer than two rows of a class).
    Undefined {
        /// Why.
        undefined: String,
    },
}

/// One ablation inside an arm.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AblationResult {
    /// Features left out.
    pub drop: Vec<String>,
    /// The experiment's metrics without those features.
    pub metrics: BTreeMap<String, MetricValue>,
    /// ROC AUC of the ablation minus the arm's (null when either is undefined or
    /// `roc_auc` is not asked for).
    pub roc_auc_delta: Option<f64>,
    /// Test rows whose predicted class differs from the arm's.
    pub changed_predictions: u64,
    /// Test rows whose predicted probability differs from the arm's, bit for bit.
    pub changed_scores: u64,
    /// True when no predicted class changed: the drop made no difference to decisions.
    pub vacuous: bool,
}

/// What an arm's model predicts on its test rows (a cross-validation arm's: on its pooled
/// out-of-fold rows; a repeated one's: once per repeat, on the same rows): the raw material
/// of claim evidence.
#[derive(Debug, Clone, PartialEq)]
pub struct ArmPredictions {
    /// Canonical indices of the test rows, ascending.
    pub test_rows: Vec<usize>,
    /// Labels of the test rows.
    pub test_labels: Vec<bool>,
    /// Per repeat, in repeat order, the scores of the test rows: one for every arm but a
    /// repeated cross-validation.
    pub repeats: Vec<Scores>,
}

/// One model's (or one repeat's pooled models') scores of an arm's test rows.
#[derive(Debug, Clone, PartialEq)]
pub struct Scores {
    /// Predicted probability of each test row.
    pub test_scores: Vec<f64>,
    /// Per test row, the class the majority baseline predicts for it: the majority class
    /// of the training rows of the model that scored it.
    pub baseline: Vec<bool>,
    /// Why the scores are no model's ([`fit_failure`]); `None` for a fitted model.
    pub fit_failure: Option<String>,
}

impl ArmPredictions {
    /// The experiment's metrics `names` on these predictions (see [`compute_metrics`]): a
    /// repeated arm's are the mean over its repeats ([`mean_over_repeats`]).
    pub fn metrics(&self, names: &[MetricName]) -> BTreeMap<String, MetricValue> {
        mean_over_repeats(names, &self.repeat_metrics(names))
    }

    /// Per repeat, the metrics `names` of its scores.
    pub fn repeat_metrics(&self, names: &[MetricName]) -> Vec<BTreeMap<String, MetricValue>> {
        self.repeats
            .iter()
            .map(|scores| {
                compute_metrics(
                    names,
                    &self.test_labels,
                    &scores.baseline,
                    &scores.test_scores,
                    scores.fit_failure.as_deref(),
                )
            })
            .collect()
    }

    /// The first repeat's scores (an unrepeated arm's only ones).
    pub fn first(&self) -> &Scores {
        &self.repeats[0]
    }
}

/// Per metric, the mean of its values over the repeats ([`metrics::mean`]: one repeat's
/// value is itself, bit for bit); undefined, with the first undefined repeat's reason, when
/// any repeat's is.
pub fn mean_over_repeats(
    names: &[MetricName],
    repeats: &[BTreeMap<String, MetricValue>],
) -> BTreeMap<String, MetricValue> {
    if let [only] = repeats {
        return only.clone();
    }
    per_metric(names, repeats, metrics::mean)
}

/// Per metric, the sample standard deviation (denominator R − 1) of its values over R ≥ 2
/// repeats; undefined as [`mean_over_repeats`].
pub fn sd_over_repeats(
    names: &[MetricName],
    repeats: &[BTreeMap<String, MetricValue>],
) -> BTreeMap<String, MetricValue> {
    per_metric(names, repeats, |values| {
        metrics::sample_variance(values).sqrt()
    })
}

/// Per metric, `statistic` of its values over the repeats, in repeat order, or the first
/// undefined repeat's reason.
fn per_metric(
    names: &[MetricName],
    repeats: &[BTreeMap<String, MetricValue>],
    statistic: impl Fn(&[f64]) -> f64,
) -> BTreeMap<String, MetricValue> {
    names
        .iter()
        .map(|name| {
            let key = name.as_str();
            let mut values = Vec::with_capacity(repeats.len());
            for (r, metrics) in repeats.iter().enumerate() {
                match metrics.get(key) {
                    Some(MetricValue::Value(v)) => values.push(*v),
                    Some(MetricValue::Undefined { undefined }) => {
                        let reason = format!("repeat {r}: {undefined}");
                        return (key.to_owned(), MetricValue::undefined(reason));
                    }
                    None => unreachable!("every repeat computes the same metrics"),
                }
            }
            (key.to_owned(), MetricValue::Value(statistic(&values)))
        })
        .collect()
}

/// Every arm of an experiment evaluated under one label vector: the results a payload
/// records and, per arm, the test predictions behind them.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    /// Per arm name, its results.
    pub results: BTreeMap<String, ArmResult>,
    /// Per arm name, its model's test predictions (the arm's own features).
    pub predictions: BTreeMap<String, ArmPredictions>,
}

/// Why a fit's test scores must not be read as a model's, or `None` when they may
/// ([`Fitted::failure`]).
pub fn fit_failure(fitted: &Fitted, test_probability: &[f64]) -> Option<String> {
    fitted.failure(test_probability)
}

/// The experiment's metrics on test rows, keyed by name; `baseline` holds, per test row, the
/// class the majority baseline predicts. With a `fit_failure` (see [`fit_failure`]) every
/// metric that reads the model's scores is undefined with that reason; the majority
/// baseline, which reads labels only, keeps its value.
pub fn compute_metrics(
    names: &[MetricName],
    test_labels: &[bool],
    baseline: &[bool],
    test_probability: &[f64],
    fit_failure: Option<&str>,
) -> BTreeMap<String, MetricValue> {
    let predicted: Vec<bool> = test_probability.iter().map(|&p| p >= 0.5).collect();
    let accuracy = metrics::accuracy(test_labels, &predicted);
    let baseline = metrics::accuracy(test_labels, baseline);
    names
        .iter()
        .map(|&name| {
            if let (Some(reason), true) = (fit_failure, name.depends_on_model()) {
                return (name.as_str().to_owned(), MetricValue::undefined(reason));
            }
            let value = match name {
                MetricName::RocAuc => metrics::roc_auc(test_labels, test_probability),
                MetricName::Accuracy => accuracy.clone(),
                MetricName::BalancedAccuracy => metrics::balanced_accuracy(test_labels, &predicted),
                MetricName::MajorityBaselineAccuracy => baseline.clone(),
                MetricName::AccuracyLift => metrics::accuracy_lift(&accuracy, &baseline),
            };
            (name.as_str().to_owned(), value)
        })
        .collect()
}

/// Builds the design matrix of `rows` over `features` (row-major, canonical order).
pub fn design_matrix(table: &Table, rows: &[usize], features: &[String]) -> Matrix {
    let columns = table.feature_columns(features);
    let mut data = Vec::with_capacity(rows.len() * columns.len());
    for &row in rows {
        for column in &columns {
            data.push(column[row]);
        }
    }
    Matrix::from_row_major(rows.len(), columns.len(), data)
}

/// Every arm of `experiment` prepared on `table`: what any number of label vectors are
/// then evaluated against. Borrows the pack, table and experiment it was made from, so no
/// consumer can pair a preparation with another table.
pub struct PreparedExperiment<'a> {
    pack: &'a Pack,
    table: &'a Table,
    experiment: &'a Experiment,
    /// Per arm, in experiment order: the preparation or the error its split gave.
    arms: Vec<Result<PreparedArm>>,
}

/// Every arm of `experiment` prepared and evaluated on `table` under its own labels, one
/// arm per task, each arm's preparation dropped as soon as the arm is evaluated: the same
/// results as [`PreparedExperiment::evaluate`], for a run that needs nothing afterwards
/// (`counterlab run`, the verifier's independent rerun and row-order shuffles).
pub fn evaluate_once(
    pack: &Pack,
    table: &Table,
    experiment: &Experiment,
    threads: usize,
) -> Result<Evaluation> {
    experiment.check(pack)?;
    let indices: Vec<usize> = (0..experiment.arms.len()).collect();
    let outputs = parallel_map(&indices, threads, |&i| {
        PreparedArm::new(pack, table, experiment, i, Scope::Full)?.evaluate(
            table,
            experiment,
            table.labels(),
            None,
        )
    });
    collect(experiment, outputs)
}

/// The arms' outputs, in experiment order, as an [`Evaluation`]; the first error.
fn collect(
    experiment: &Experiment,
    outputs: Vec<Result<(ArmResult, ArmPredictions)>>,
) -> Result<Evaluation> {
    let mut evaluation = Evaluation {
        results: BTreeMap::new(),
        predictions: BTreeMap::new(),
    };
    for (arm, output) in experiment.arms.iter().zip(outputs) {
        let (result, predictions) = output?;
        evaluation.results.insert(arm.name.clone(), result);
        evaluation.predictions.insert(arm.name.clone(), predictions);
    }
    Ok(evaluation)
}

impl<'a> PreparedExperiment<'a> {
    /// Checks `experiment` against `pack` and prepares every arm on `table` (the pack's
    /// own, or a reordered or resampled copy of it), arms on up to `threads` threads.
    pub fn new(
        pack: &'a Pack,
        table: &'a Table,
        experiment: &'a Experiment,
        threads: usize,
    ) -> Result<Self> {
        experiment.check(pack)?;
        let indices: Vec<usize> = (0..experiment.arms.len()).collect();
        let arms = parallel_map(&indices, threads, |&i| {
            PreparedArm::new(pack, table, experiment, i, Scope::Full)
        });
        Ok(PreparedExperiment {
            pack,
            table,
            experiment,
            arms,
        })
    }

    /// The table the arms were prepared on.
    pub fn table(&self) -> &'a Table {
        self.table
    }

    /// The pack.
    pub fn pack(&self) -> &'a Pack {
        self.pack
    }

    /// The experiment.
    pub fn experiment(&self) -> &'a Experiment {
        self.experiment
    }

    /// The look-alike ids across the sides of arm `index`'s split (pooled over its folds),
    /// `groups` the table's [`split::look_alike_groups`]; `None` when the arm's split failed.
    pub fn look_alikes(&self, index: usize, groups: &[Vec<usize>]) -> Option<split::LookAlikes> {
        let arm = self.arms.get(index)?.as_ref().ok()?;
        let splits: Vec<&Split> = arm.folds.iter().map(|fold| &fold.split).collect();
        Some(split::look_alikes(self.table, groups, &splits))
    }

    /// Distinct test rows of arm `index` at or before the latest training time of a fold
    /// that tests them (a row tested in several repeats counts once); `None` when the
    /// table has no time column or the arm's split failed. The recorded
    /// `overlap.temporal_rows` sums the folds of every repeat instead.
    pub fn temporal_rows(&self, index: usize) -> Option<u64> {
        let time = self.table.time()?;
        let arm = self.arms.get(index)?.as_ref().ok()?;
        let mut seen = vec![false; self.table.n_rows()];
        for fold in &arm.folds {
            let Some(latest) = fold.split.train_rows().into_iter().map(|r| time[r]).max() else {
                continue;
            };
            for row in fold.split.test_rows() {
                seen[row] |= time[row] <= latest;
            }
        }
        Some(seen.iter().filter(|&&s| s).count() as u64)
    }

    /// The index of the arm called `name`.
    pub fn arm_index(&self, name: &str) -> Option<usize> {
        self.experiment.arms.iter().position(|a| a.name == name)
    }

    /// Every arm's full results and test predictions under `labels` (the table's own, or
    /// a permutation of them), arms on up to `threads` threads; the first arm's error, in
    /// experiment order, when one fails.
    pub fn evaluate(&self, labels: &[bool], threads: usize) -> Result<Evaluation> {
        self.evaluate_held(labels, threads, None)
    }

    /// [`PreparedExperiment::evaluate`] with every design taken from `held`
    /// ([`PreparedExperiment::hold_designs`]) when given: the same results, bit for bit (a
    /// design depends on the rows and features only, never on the labels), without making
    /// each design again for every labelling.
    pub fn evaluate_held(
        &self,
        labels: &[bool],
        threads: usize,
        held: Option<&HeldDesigns>,
    ) -> Result<Evaluation> {
        assert_eq!(labels.len(), self.table.n_rows(), "one label per row");
        let indices: Vec<usize> = (0..self.arms.len()).collect();
        let outputs = parallel_map(&indices, threads, |&i| {
            let arm = self.arms[i].as_ref().map_err(Clone::clone)?;
            let designs = held.map(|h| &h.per_arm[i][..]);
            arm.evaluate(self.table, self.experiment, labels, designs)
        });
        collect(self.experiment, outputs)
    }

    /// Every design a full evaluation fits (each arm's, per feature set and fold), made
    /// once for several labellings of the same table (the verifier's active label
    /// mutations), on up to `threads` threads; `None` when the budget rule's upper bound
    /// of their memory ([`crate::budget::design_bytes`]) is over [`HELD_DESIGN_BYTES`] (a
    /// large table then makes each design when it is fitted and drops it after, as a
    /// single evaluation does) or an arm's split failed.
    pub fn hold_designs(&self, threads: usize) -> Option<HeldDesigns> {
        if crate::budget::design_bytes(self.experiment, self.table) > HELD_DESIGN_BYTES
            || self
                .experiment
                .arms
                .iter()
                .any(|arm| prepare::reads_labels(&arm.prepare))
        {
            // A preparation that reads the labels is made again under each labelling.
            return None;
        }
        let model = Model::new(&self.experiment.model, Fitting::full().tol);
        let arms: Vec<&PreparedArm> = self
            .arms
            .iter()
            .map(|arm| arm.as_ref().ok())
            .collect::<Option<_>>()?;
        let per_arm = parallel_map(&arms, threads, |arm| {
            (0..arm.folds[0].feature_sets.len())
                .map(|which| {
                    arm.folds
                        .iter()
                        .map(|fold| {
                            let labels = self.table.labels();
                            fold.prepare(
                                self.table,
                                self.experiment,
                                arm.index,
                                &model,
                                which,
                                labels,
                            )
                        })
                        .collect()
                })
                .collect()
        });
        Some(HeldDesigns { per_arm })
    }

    /// Arm `index`'s model fitted on its own features under `labels` (a permutation), to
    /// [`NULL_FIT_TOL`], and scored on its test rows: [`NullArm::predictions`] of a
    /// [`PreparedExperiment::null_arm`] made for this one labelling (a null of many
    /// labellings makes the [`NullArm`] once).
    pub fn null_predictions(&self, index: usize, labels: &[bool]) -> Result<ArmPredictions> {
        self.null_arm(index)?.predictions(labels)
    }

    /// Arm `index` ready for a permutation null: the designs of the folds a null fits (a
    /// repeated cross-validation's first repeat; every fold otherwise) on the arm's own
    /// features, made once and held until the [`NullArm`] is dropped. The error its split
    /// gave when it has none.
    pub fn null_arm(&self, index: usize) -> Result<NullArm<'_>> {
        let arm = self.arms[index].as_ref().map_err(Clone::clone)?;
        let model = Model::new(&self.experiment.model, Fitting::null().tol);
        let steps = &self.experiment.arms[index].prepare;
        let designs = (!prepare::reads_labels(steps)).then(|| {
            arm.folds[..arm.fitted_folds(Fitting::null())]
                .iter()
                .map(|fold| {
                    fold.prepare(
                        self.table,
                        self.experiment,
                        index,
                        &model,
                        0,
                        self.table.labels(),
                    )
                })
                .collect()
        });
        Ok(NullArm {
            prepared: self,
            arm,
            designs,
        })
    }
}

/// The most memory, by the budget rule's upper bound ([`crate::budget::design_bytes`]),
/// that [`PreparedExperiment::hold_designs`] holds at once: 64 MiB, far above every
/// bundled experiment's (rare-defects' 24,192 rows need about 10 MB), far below the
/// default design budget.
pub const HELD_DESIGN_BYTES: u64 = 64 << 20;

/// Every design of a [`PreparedExperiment`]'s full evaluation, per arm, feature set (0:
/// the arm's, 1 + a: ablation `a`'s) and fold ([`PreparedExperiment::hold_designs`]).
pub struct HeldDesigns {
    per_arm: Vec<Vec<Vec<Result<FoldDesign>>>>,
}

/// One arm of a [`PreparedExperiment`] with the designs its permutation null fits, held
/// across the permutations ([`PreparedExperiment::null_arm`]).
pub struct NullArm<'p> {
    prepared: &'p PreparedExperiment<'p>,
    arm: &'p PreparedArm,
    /// Per fitted fold, its design on the arm's own features (or the error making it
    /// gave); `None` when the arm's preparation reads the labels, so each labelling
    /// prepares its own (the null of a leaky pipeline re-runs the whole pipeline).
    designs: Option<Vec<Result<FoldDesign>>>,
}

impl NullArm<'_> {
    /// The arm's model fitted on its own features under `labels` (a permutation), to
    /// [`NULL_FIT_TOL`], and scored on its test rows (no ablations, no summaries): what one
    /// permutation of a null needs of an arm.
    pub fn predictions(&self, labels: &[bool]) -> Result<ArmPredictions> {
        let table = self.prepared.table;
        assert_eq!(labels.len(), table.n_rows(), "one label per row");
        let held = self.designs.as_deref();
        Ok(self
            .arm
            .fit(
                table,
                self.prepared.experiment,
                0,
                labels,
                Fitting::null(),
                held,
            )?
            .predictions)
    }
}

/// Splits, fits and scores arm `index` of `experiment` on `table` under the table's own
/// labels (no ablations): one arm on its own, for callers that need nothing else.
pub fn arm_predictions(
    pack: &Pack,
    table: &Table,
    experiment: &Experiment,
    index: usize,
) -> Result<ArmPredictions> {
    let arm = PreparedArm::new(pack, table, experiment, index, Scope::ArmOnly)?;
    Ok(arm
        .fit(table, experiment, 0, table.labels(), Fitting::full(), None)?
        .predictions)
}

/// How a feature set of an arm is fitted.
#[derive(Debug, Clone, Copy)]
struct Fitting {
    /// The solver's gradient tolerance.
    tol: f64,
    /// Fit a repeated cross-validation's first repeat only.
    first_repeat_only: bool,
}

impl Fitting {
    /// A result's fits: every fold of every repeat, to [`DEFAULT_TOL`].
    fn full() -> Fitting {
        Fitting {
            tol: DEFAULT_TOL,
            first_repeat_only: false,
        }
    }

    /// A permutation null's fits: to [`NULL_FIT_TOL`], and a repeated cross-validation's
    /// first repeat only. The observed statistic is the mean over R repeats, whose
    /// fold-assignment noise is R times smaller than one repeat's: a null of one repeat is
    /// at least as wide as the observed statistic's null distribution, so its p-value is
    /// conservative, at 1/R of the fits (docs/VERDICTS.md, "p-value"; measured in
    /// docs/CALIBRATION.md).
    fn null() -> Fitting {
        Fitting {
            tol: NULL_FIT_TOL,
            first_repeat_only: true,
        }
    }
}

/// One arm with everything that does not depend on the labels: its folds (one for a
/// single train/test split; every repeat's, repeat after repeat, for a repeated
/// cross-validation), each split and standardised.
struct PreparedArm {
    index: usize,
    folds: Vec<PreparedFold>,
    /// A cross-validation arm's fold assignment and pooled rows, per repeat; `None` for a
    /// single split.
    cv: Option<Vec<Pooling>>,
}

/// One train/test split of an arm: a single split's only one, or one fold.
struct PreparedFold {
    split: Split,
    /// The number of training rows.
    n_train: usize,
    /// The arm's features first, then (prepared in full) each ablation's, in
    /// `ablation_list` order: their designs are made when fitted ([`PreparedFold::prepare`]).
    feature_sets: Vec<Vec<String>>,
    /// Per feature set, its model columns, resolved the first time an arm with `prepare`
    /// steps makes that design (then reused by every labelling).
    resolved: Vec<std::sync::OnceLock<prepare::ModelColumns>>,
    /// What train and test share (prepared in full only: it is a full result's).
    overlap: Option<Overlap>,
}

/// How one repeat of a cross-validation arm's out-of-fold predictions are pooled.
struct Pooling {
    /// Which of the repeat's folds tests each canonical row.
    assignment: FoldAssignment,
    /// The index of the repeat's first fold in the arm's `folds`.
    first_fold: usize,
}

impl Pooling {
    /// The repeat's folds, as indices into the arm's `folds`.
    fn folds(&self) -> std::ops::Range<usize> {
        self.first_fold..self.first_fold + self.assignment.n_folds()
    }

    /// Per canonical row with an out-of-fold prediction, ascending: the row, its fold (an
    /// index into the arm's `folds`) and its position among that fold's test rows (which
    /// are ascending, so a count per fold gives it).
    fn origins(&self) -> impl Iterator<Item = (usize, usize, usize)> + '_ {
        let mut next_position = vec![0usize; self.assignment.n_folds()];
        self.assignment
            .fold_of_row()
            .iter()
            .enumerate()
            .filter_map(move |(row, fold)| {
                let fold = (*fold)? as usize;
                let position = next_position[fold];
                next_position[fold] += 1;
                Some((row, self.first_fold + fold, position))
            })
    }
}

/// How much of an arm to prepare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    /// Everything a full result needs: every ablation's feature set and the overlap.
    Full,
    /// The arm's own features only: what its predictions need.
    ArmOnly,
}

/// A model fitted on a fold's training rows and scored on its test rows.
struct Scored {
    fitted: Fitted,
    test_probability: Vec<f64>,
}

/// One fold of a feature set fitted under some labels.
struct FoldFit {
    /// The training rows' labels (without an oversampling's new rows: what the majority
    /// baseline is trained on).
    train_labels: Vec<bool>,
    test_labels: Vec<bool>,
    scored: Scored,
    /// The model columns' names.
    columns: Vec<String>,
    /// Test rows an oversampling step made training rows from, when the arm oversamples.
    oversampled_test_rows: Option<u64>,
}

impl FoldFit {
    /// The fold's model, as a result writes it.
    fn model_summary(&self) -> ModelSummary {
        self.scored.fitted.summary(self.columns.clone())
    }
}

/// A fold's design for one feature set: the model's prepared matrices, and what the
/// arm's preparation made of the rows.
pub struct FoldDesign {
    design: PreparedDesign,
    columns: Vec<String>,
    /// The labels of the rows an oversampling step added to the training rows.
    new_labels: Vec<bool>,
    /// `Some` when the arm oversamples: test rows it made training rows from.
    oversampled_test_rows: Option<u64>,
}

/// A feature set fitted in every fold of an arm, with its pooled test predictions.
struct SetFit {
    folds: Vec<FoldFit>,
    predictions: ArmPredictions,
}

impl PreparedArm {
    /// Prepares arm `index`: its split or folds (the arm's first error), then each fold's
    /// feature sets.
    fn new(
        pack: &Pack,
        table: &Table,
        experiment: &Experiment,
        index: usize,
        scope: Scope,
    ) -> Result<Self> {
        #[cfg(test)]
        crate::work_counter::preparation();
        let arm_path = JsonPath::field("arms").index(index).key("split");
        let spec = &experiment.arms[index].split;
        let features = &experiment.model_features(pack)[..];
        // Each split is moved into its fold, not copied: a repeat keeps only its
        // assignment (which fold tests each row), from which its predictions are pooled.
        let (splits, cv) = if spec.cross_validation().is_some() {
            let mut splits = Vec::new();
            let mut cv = Vec::new();
            for repeat in split::folds(table, spec, experiment.seed, &arm_path)? {
                let (repeat_splits, assignment) = repeat.into_parts();
                cv.push(Pooling {
                    first_fold: splits.len(),
                    assignment,
                });
                splits.extend(repeat_splits);
            }
            (splits, Some(cv))
        } else {
            (
                vec![split::split(table, spec, experiment.seed, &arm_path)?],
                None,
            )
        };
        let folds: Vec<PreparedFold> = splits
            .into_iter()
            .map(|split| PreparedFold::new(table, experiment, features, split, scope))
            .collect();
        Ok(PreparedArm { index, folds, cv })
    }

    /// The folds `fitting` fits: a null's, a repeated cross-validation's first repeat only
    /// (`Fitting::null`); otherwise every fold.
    fn fitted_folds(&self, fitting: Fitting) -> usize {
        match (&self.cv, fitting.first_repeat_only) {
            (Some(repeats), true) => repeats[0].folds().end,
            _ => self.folds.len(),
        }
    }

    /// Fits feature set `which` (0: the arm's, 1 + a: ablation `a`'s) in every fold under
    /// `labels` to gradient tolerance `tol`, and pools the test predictions. Each fold's
    /// design is `held`'s, when given (a null's), or made for the fit and dropped after it.
    fn fit(
        &self,
        table: &Table,
        experiment: &Experiment,
        which: usize,
        labels: &[bool],
        fitting: Fitting,
        held: Option<&[Result<FoldDesign>]>,
    ) -> Result<SetFit> {
        let arm = &experiment.arms[self.index].name;
        let model = Model::new(&experiment.model, fitting.tol);
        // A null fits the first repeat only (`Fitting::null`).
        let repeats = match (&self.cv, fitting.first_repeat_only) {
            (Some(repeats), true) => &repeats[..1],
            (Some(repeats), false) => &repeats[..],
            (None, _) => &[],
        };
        let fitted_folds = self.fitted_folds(fitting);
        let folds = self.folds[..fitted_folds]
            .iter()
            .enumerate()
            .map(|(f, fold)| {
                let in_arm = |e: Error| match repeats {
                    [] => Error::invalid(format!("arm {arm:?}: {e}")),
                    [only] => {
                        Error::invalid(format!("arm {arm:?}, fold {}: {e}", f - only.first_fold))
                    }
                    [first, ..] => {
                        let per_repeat = first.assignment.n_folds();
                        Error::invalid(format!(
                            "arm {arm:?}, repeat {}, fold {}: {e}",
                            f / per_repeat,
                            f % per_repeat
                        ))
                    }
                };
                let fit = match held {
                    Some(designs) => fold.fit(&model, labels, designs[f].as_ref()),
                    None => {
                        let design =
                            fold.prepare(table, experiment, self.index, &model, which, labels);
                        fold.fit(&model, labels, design.as_ref())
                    }
                };
                fit.map_err(in_arm)
            })
            .collect::<Result<Vec<FoldFit>>>()?;
        let predictions = match &self.cv {
            None => {
                let fold = &folds[0];
                ArmPredictions {
                    test_rows: self.folds[0].split.test_rows(),
                    test_labels: fold.test_labels.clone(),
                    repeats: vec![Scores {
                        test_scores: fold.scored.test_probability.clone(),
                        baseline: vec![majority_class(&fold.train_labels); fold.test_labels.len()],
                        fit_failure: fold.scored.fitted.failure(&fold.scored.test_probability),
                    }],
                }
            }
            Some(_) => pooled_predictions(repeats, &folds),
        };
        Ok(SetFit { folds, predictions })
    }

    /// The arm's full results and predictions under `labels`.
    fn evaluate(
        &self,
        table: &Table,
        experiment: &Experiment,
        labels: &[bool],
        held: Option<&[Vec<Result<FoldDesign>>]>,
    ) -> Result<(ArmResult, ArmPredictions)> {
        let kind = experiment.arms[self.index].split.kind();
        let designs = |which: usize| held.map(|h| &h[which][..]);
        let own = self.fit(table, experiment, 0, labels, Fitting::full(), designs(0))?;
        let metrics = own.predictions.metrics(&experiment.metrics);
        let with_delong = experiment.metrics.contains(&MetricName::RocAuc);
        let delong_of = |scores: &Scores| {
            with_delong.then(|| delong_summary(&own.predictions.test_labels, scores))
        };
        let ablations =
            self.ablation_results(table, experiment, labels, &own.predictions, &metrics, held)?;
        let result = match &self.cv {
            None => ArmResult {
                split: split::summarize_labels(table, &self.folds[0].split, kind, labels),
                overlap: self.folds[0].full_overlap(&own.folds[0]),
                model: Some(own.folds[0].model_summary()),
                metrics,
                roc_auc_delong: delong_of(own.predictions.first()),
                ablations,
                folds: None,
                repeats: None,
                between_repeat_sd: None,
            },
            Some(repeats) => {
                let splits: Vec<&Split> = self.folds.iter().map(|f| &f.split).collect();
                let overlaps: Vec<Overlap> = self
                    .folds
                    .iter()
                    .zip(&own.folds)
                    .map(|(fold, fit)| fold.full_overlap(fit))
                    .collect();
                // One repeat keeps the unrepeated arm's form; R ≥ 2 give each repeat's
                // pooled metrics and DeLong interval, and the spread between them.
                let (roc_auc_delong, repeat_results, between_repeat_sd) = match &repeats[..] {
                    [_] => (delong_of(own.predictions.first()), None, None),
                    _ => {
                        let per_repeat = own.predictions.repeat_metrics(&experiment.metrics);
                        let sd = sd_over_repeats(&experiment.metrics, &per_repeat);
                        let results = repeats
                            .iter()
                            .zip(per_repeat)
                            .zip(&own.predictions.repeats)
                            .map(|((pooling, metrics), scores)| RepeatResult {
                                membership_hash: pooling.assignment.membership_hash(),
                                metrics,
                                roc_auc_delong: delong_of(scores),
                            })
                            .collect();
                        (None, Some(results), Some(sd))
                    }
                };
                ArmResult {
                    split: split::summarize_folds(
                        table,
                        &repeats[0].assignment,
                        &splits[repeats[0].folds()],
                        kind,
                        labels,
                    ),
                    overlap: split::pooled_overlap(table, &splits, &overlaps),
                    model: None,
                    metrics,
                    roc_auc_delong,
                    ablations,
                    folds: Some(self.fold_results(table, experiment, labels, &own.folds)),
                    repeats: repeat_results,
                    between_repeat_sd,
                }
            }
        };
        Ok((result, own.predictions))
    }

    /// Per ablation name, the arm refitted without the ablation's features under `labels`
    /// and compared with the arm's own `predictions` and `metrics`.
    fn ablation_results(
        &self,
        table: &Table,
        experiment: &Experiment,
        labels: &[bool],
        predictions: &ArmPredictions,
        metrics: &BTreeMap<String, MetricValue>,
        held: Option<&[Vec<Result<FoldDesign>>]>,
    ) -> Result<BTreeMap<String, AblationResult>> {
        let mut ablations = BTreeMap::new();
        for (a, ablation) in experiment.ablation_list().iter().enumerate() {
            // An ablation that drops none of the arm's features (`"drop": []`, the usual
            // `identity`) would fit the arm's own design under the same labels to the same
            // tolerance: a fit is a pure function of those, so its predictions are the
            // arm's, bit for bit, and are reused instead of refitted.
            let drops_nothing = self.folds[0].feature_sets[1 + a] == self.folds[0].feature_sets[0];
            let ablated = if drops_nothing {
                predictions.clone()
            } else {
                let designs = held.map(|h| &h[1 + a][..]);
                self.fit(table, experiment, 1 + a, labels, Fitting::full(), designs)?
                    .predictions
            };
            let ablated_metrics = ablated.metrics(&experiment.metrics);
            let roc_auc_delta = match (metrics.get("roc_auc"), ablated_metrics.get("roc_auc")) {
                (Some(MetricValue::Value(arm_auc)), Some(MetricValue::Value(ablated_auc))) => {
                    Some(ablated_auc - arm_auc)
                }
                _ => None,
            };
            // A repeated arm's rows are compared repeat by repeat: counts are of (row,
            // repeat) pairs.
            let pairs = predictions
                .repeats
                .iter()
                .zip(&ablated.repeats)
                .flat_map(|(arm, ablated)| arm.test_scores.iter().zip(&ablated.test_scores));
            let changed_predictions = pairs
                .clone()
                .filter(|(a, b)| (**a >= 0.5) != (**b >= 0.5))
                .count() as u64;
            let changed_scores = pairs.filter(|(a, b)| a.to_bits() != b.to_bits()).count() as u64;
            ablations.insert(
                ablation.name.clone(),
                AblationResult {
                    drop: ablation.drop.clone(),
                    metrics: ablated_metrics,
                    roc_auc_delta,
                    changed_predictions,
                    changed_scores,
                    vacuous: changed_predictions == 0,
                },
            );
        }
        Ok(ablations)
    }

    /// A cross-validation arm's per-fold results, from its own features' `fits` under
    /// `labels`.
    fn fold_results(
        &self,
        table: &Table,
        experiment: &Experiment,
        labels: &[bool],
        fits: &[FoldFit],
    ) -> Vec<FoldResult> {
        let kind = experiment.arms[self.index].split.kind();
        self.folds
            .iter()
            .zip(fits)
            .map(|(fold, fit)| {
                let baseline = vec![majority_class(&fit.train_labels); fit.test_labels.len()];
                FoldResult {
                    split: split::summarize_labels(table, &fold.split, kind, labels),
                    overlap: fold.full_overlap(fit),
                    model: fit.model_summary(),
                    metrics: compute_metrics(
                        &experiment.metrics,
                        &fit.test_labels,
                        &baseline,
                        &fit.scored.test_probability,
                        fit.scored
                            .fitted
                            .failure(&fit.scored.test_probability)
                            .as_deref(),
                    ),
                }
            })
            .collect()
    }
}

/// A cross-validation arm's out-of-fold predictions, pooled per repeat from its fitted
/// `folds` (every repeat's). Every repeat tests the same rows (a rolling origin, whose
/// first block is never tested, has one repeat).
fn pooled_predictions(repeats: &[Pooling], folds: &[FoldFit]) -> ArmPredictions {
    let majority: Vec<bool> = folds
        .iter()
        .map(|f| majority_class(&f.train_labels))
        .collect();
    let first = &repeats[0];
    // Sized up front: pooled vectors are the largest an arm holds per row.
    let n_tested = first.origins().count();
    let mut test_rows = Vec::with_capacity(n_tested);
    let mut test_labels = Vec::with_capacity(n_tested);
    for (row, f, position) in first.origins() {
        test_rows.push(row);
        test_labels.push(folds[f].test_labels[position]);
    }
    let scores = repeats
        .iter()
        .map(|pooling| {
            let mut scores = Scores {
                test_scores: Vec::with_capacity(n_tested),
                baseline: Vec::with_capacity(n_tested),
                fit_failure: None,
            };
            for (_, f, position) in pooling.origins() {
                scores
                    .test_scores
                    .push(folds[f].scored.test_probability[position]);
                scores.baseline.push(majority[f]);
            }
            debug_assert!(
                pooling
                    .origins()
                    .map(|(row, _, _)| row)
                    .eq(first.origins().map(|(row, _, _)| row)),
                "every repeat tests the same rows"
            );
            // The first fold whose model is no model's makes the repeat's pooled scores
            // none. Folds are numbered within their repeat.
            let in_repeat = pooling.folds();
            scores.fit_failure = in_repeat.clone().find_map(|f| {
                folds[f]
                    .scored
                    .fitted
                    .failure(&folds[f].scored.test_probability)
                    .map(|why| format!("fold {}: {why}", f - in_repeat.start))
            });
            scores
        })
        .collect();
    ArmPredictions {
        test_rows,
        test_labels,
        repeats: scores,
    }
}

/// The DeLong SE and CI of the ROC AUC of `scores` of rows labelled `test_labels`, or why
/// they are undefined (a fit failure's reason first).
fn delong_summary(test_labels: &[bool], scores: &Scores) -> DeLongSummary {
    let delong = match &scores.fit_failure {
        Some(reason) => Err(metrics::Undefined(reason.clone())),
        None => metrics::delong(test_labels, &scores.test_scores),
    };
    match delong {
        Ok(d) => DeLongSummary::Value {
            se: d.se,
            ci: [d.ci.0, d.ci.1],
        },
        Err(reason) => DeLongSummary::Undefined {
            undefined: reason.0,
        },
    }
}

impl PreparedFold {
    fn new(
        table: &Table,
        experiment: &Experiment,
        features: &[String],
        split: Split,
        scope: Scope,
    ) -> PreparedFold {
        let n_train = (0..table.n_rows()).filter(|&r| split.is_train(r)).count();
        let mut feature_sets = vec![features.to_vec()];
        let mut overlap = None;
        if scope == Scope::Full {
            // Each ablation: the arm's features without those it drops, in the arm's order.
            feature_sets.extend(experiment.ablation_list().iter().map(|ablation| {
                features
                    .iter()
                    .filter(|f| !ablation.drop.contains(f))
                    .cloned()
                    .collect()
            }));
            overlap = Some(split::overlap(table, &split, features));
        }
        PreparedFold {
            split,
            n_train,
            resolved: feature_sets
                .iter()
                .map(|_| std::sync::OnceLock::new())
                .collect(),
            feature_sets,
            overlap,
        }
    }

    /// Feature set `which` prepared for `model` on the fold's training rows
    /// ([`Model::prepare`]: standardised for the logistic model), or the error the
    /// preparation gave (returned by a fit of it after the label checks). An ablation's
    /// design is made from its own columns: equal, bit for bit, to the selection of its
    /// columns from the arm's design (standardising is column by column), and an arm's
    /// error may name a column index of its own matrix, which the ablation's must not.
    ///
    /// An arm with `prepare` steps runs them first (src/prepare/), under `labels` when a
    /// step reads them; without steps the design is made exactly as it always was.
    fn prepare(
        &self,
        table: &Table,
        experiment: &Experiment,
        arm: usize,
        model: &Model,
        which: usize,
        labels: &[bool],
    ) -> Result<FoldDesign> {
        let features = &self.feature_sets[which];
        let (train_rows, test_rows) = (self.split.train_rows(), self.split.test_rows());
        let steps = &experiment.arms[arm].prepare;
        if steps.is_empty() {
            let train = design_matrix(table, &train_rows, features);
            let test = design_matrix(table, &test_rows, features);
            return Ok(FoldDesign {
                design: model.prepare(train, test)?,
                columns: table.column_names(features),
                new_labels: Vec::new(),
                oversampled_test_rows: None,
            });
        }
        let rows = prepare::FoldRows {
            train: &train_rows,
            test: &test_rows,
        };
        let columns =
            self.resolved[which].get_or_init(|| prepare::ModelColumns::of(table, features));
        let prepared =
            prepare::prepare_columns(table, columns, rows, labels, steps, experiment.seed)?;
        Ok(FoldDesign {
            design: model.prepare(prepared.train, prepared.test)?,
            columns: prepared.columns,
            new_labels: prepared.new_labels,
            oversampled_test_rows: prepare::oversamples(steps)
                .then_some(prepared.test_rows_with_kin),
        })
    }

    /// What the fold's train and test rows share, with what its preparation (`fit`'s)
    /// made of its test rows.
    fn full_overlap(&self, fit: &FoldFit) -> Overlap {
        let mut overlap = self
            .overlap
            .clone()
            .expect("a full result comes from an arm prepared in full");
        overlap.oversampled_test_rows = fit.oversampled_test_rows;
        overlap
    }

    /// Fits `model` on `design` (one of the fold's feature sets, see
    /// [`PreparedFold::prepare`]) under `labels` and scores the test rows. Errors are the
    /// fit's own; the caller says which arm and fold.
    fn fit(
        &self,
        model: &Model,
        labels: &[bool],
        design: std::result::Result<&FoldDesign, &Error>,
    ) -> Result<FoldFit> {
        let mut train_labels = Vec::with_capacity(self.n_train);
        let mut test_labels = Vec::new();
        for (row, &label) in labels.iter().enumerate() {
            if self.split.is_test()[row] {
                test_labels.push(label);
            } else if self.split.is_train(row) {
                train_labels.push(label);
            }
        }
        let prepared_design = match design {
            Ok(d) => d,
            Err(e) => {
                // A fit from scratch checks the labels before it standardises.
                model.check_labels(train_labels.len(), &train_labels)?;
                return Err(e.clone());
            }
        };
        #[cfg(test)]
        crate::work_counter::fit();
        let (fitted, test_probability) = if prepared_design.new_labels.is_empty() {
            model.fit(&prepared_design.design, &train_labels)?
        } else {
            let mut model_labels = train_labels.clone();
            model_labels.extend_from_slice(&prepared_design.new_labels);
            model.fit(&prepared_design.design, &model_labels)?
        };
        Ok(FoldFit {
            train_labels,
            test_labels,
            scored: Scored {
                fitted,
                test_probability,
            },
            columns: prepared_design.columns.clone(),
            oversampled_test_rows: prepared_design.oversampled_test_rows,
        })
    }
}

/// The class a majority baseline trained on `train_labels` predicts: positive only when
/// positives are strictly more (an exact tie predicts negative, as
/// [`metrics::majority_baseline_accuracy`]).
fn majority_class(train_labels: &[bool]) -> bool {
    let positives = train_labels.iter().filter(|&&l| l).count();
    positives * 2 > train_labels.len()
}
