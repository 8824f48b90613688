//! Running an experiment: per arm a split, a model, metrics and ablations; the payload
//! with its canonical result hash.
//!
//! Arms (and the ablations inside them) run on worker threads, but each task writes only
//! its own slot and every result is a pure function of (canonical table, experiment), so
//! the payload is bit-identical for any thread count.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::canon::{self, HashKind};
use crate::error::{Error, Result};
use crate::experiment::{Experiment, MetricName, ModelSpec};
use crate::metrics::{self, MetricValue};
use crate::model::{Design, FittedLogistic, LogisticRegression, Matrix};
use crate::pack::{Pack, Packs};
use crate::split::{self, Overlap, Split, SplitSummary};
use crate::table::Table;

/// The format tag of a payload.
pub const PAYLOAD_FORMAT: &str = "counterlab.payload/1";

/// The kernel's name in payloads.
pub const KERNEL_NAME: &str = "counterlab";

/// The kernel's version in payloads: it changes whenever a result's bits may change, and
/// `verify` answers a payload of another version INCONCLUSIVE (docs/DETERMINISM.md lists
/// what each version computes).
pub const KERNEL_VERSION: &str = "2";

/// How to run (never changes a result).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOptions {
    /// Worker threads (≥ 1).
    pub threads: usize,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            threads: std::thread::available_parallelism().map_or(1, usize::from),
        }
    }
}

/// A recorded experiment with its results: what `counterlab run` writes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Payload {
    /// Always `counterlab.payload/1`.
    pub format: String,
    /// Which kernel computed the results.
    pub kernel: KernelInfo,
    /// The pack and its fixture hash.
    pub pack: PackRef,
    /// The experiment, as run.
    pub experiment: Experiment,
    /// Per arm name, the arm's results.
    pub results: BTreeMap<String, ArmResult>,
    /// The experiment's claim, or null.
    pub claim: Option<crate::experiment::Claim>,
    /// Canonical hash (context `counterlab 2026-11 result v1`) of `results`.
    pub result_hash: String,
}

/// The kernel that computed a payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KernelInfo {
    /// `counterlab`.
    pub name: String,
    /// [`KERNEL_VERSION`] of the kernel that computed the results.
    pub version: String,
}

impl KernelInfo {
    /// This kernel: `counterlab` at [`KERNEL_VERSION`].
    pub fn this() -> KernelInfo {
        KernelInfo {
            name: KERNEL_NAME.to_owned(),
            version: KERNEL_VERSION.to_owned(),
        }
    }
}

/// The pack a payload was computed on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PackRef {
    /// Pack id.
    pub id: String,
    /// blake3 of the fixture file.
    pub fixture_blake3: String,
    /// Canonical hash of the manifest's meaning ([`Manifest::meaning_hash`]): the same
    /// bytes read with another label, positive class or feature list are another pack.
    ///
    /// [`Manifest::meaning_hash`]: crate::pack::Manifest::meaning_hash
    pub manifest_hash: String,
}

impl PackRef {
    /// The pack's id, (checked) fixture hash and manifest hash.
    pub fn of(pack: &Pack) -> PackRef {
        PackRef {
            id: pack.id().to_owned(),
            fixture_blake3: pack.fixture_hash().to_owned(),
            manifest_hash: pack.manifest().meaning_hash(),
        }
    }
}

/// One arm's results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArmResult {
    /// Split counts and membership hash.
    pub split: SplitSummary,
    /// What train and test share.
    pub overlap: Overlap,
    /// The fitted model.
    pub model: ModelSummary,
    /// The experiment's metrics on the test rows, by name.
    pub metrics: BTreeMap<String, MetricValue>,
    /// DeLong standard error and 95% CI of the test ROC AUC (when `roc_auc` is asked for).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roc_auc_delong: Option<DeLongSummary>,
    /// Per ablation name, its results.
    pub ablations: BTreeMap<String, AblationResult>,
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

/// A fitted logistic model, on the standardised scale.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSummary {
    /// Intercept.
    pub intercept: f64,
    /// Coefficient per feature, by name.
    pub coefficients: BTreeMap<String, f64>,
    /// Solver iterations.
    pub iterations: u64,
    /// Whether the solver met its tolerance.
    pub converged: bool,
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

/// Runs an experiment on its pack (found among `packs`).
pub fn run(packs: &Packs, experiment: &Experiment) -> Result<Payload> {
    run_with(
        packs.get(&experiment.pack)?,
        experiment,
        &RunOptions::default(),
    )
}

/// Runs an experiment on a given pack with options.
pub fn run_with(pack: &Pack, experiment: &Experiment, options: &RunOptions) -> Result<Payload> {
    run_on_table(pack, pack.table(), experiment, options)
}

/// Runs an experiment on `table` (the pack's own, or a mutated copy of it) and builds the
/// payload. The pack supplies the manifest and the fixture hash.
pub fn run_on_table(
    pack: &Pack,
    table: &Table,
    experiment: &Experiment,
    options: &RunOptions,
) -> Result<Payload> {
    let results = compute_results(pack, table, experiment, options)?;
    let result_hash = result_hash(&results)?;
    Ok(Payload {
        format: PAYLOAD_FORMAT.to_owned(),
        kernel: KernelInfo::this(),
        pack: PackRef::of(pack),
        experiment: experiment.clone(),
        results,
        claim: experiment.claim.clone(),
        result_hash,
    })
}

/// The canonical hash of a payload's `results`.
pub fn result_hash(results: &BTreeMap<String, ArmResult>) -> Result<String> {
    canon::hash_serialize(HashKind::Result, results)
}

/// Computes every arm's results (checks the experiment first).
pub fn compute_results(
    pack: &Pack,
    table: &Table,
    experiment: &Experiment,
    options: &RunOptions,
) -> Result<BTreeMap<String, ArmResult>> {
    experiment.check(pack)?;
    let tasks: Vec<usize> = (0..experiment.arms.len()).collect();
    let outputs = parallel_map(&tasks, options.threads, |&i| {
        run_arm(pack, table, experiment, i)
    });
    let mut results = BTreeMap::new();
    for (i, output) in outputs.into_iter().enumerate() {
        results.insert(experiment.arms[i].name.clone(), output?);
    }
    Ok(results)
}

/// The most worker threads any computation uses; a larger request is capped here.
pub const MAX_THREADS: usize = 64;

/// Applies `f` to every item on up to `threads` scoped threads (at most [`MAX_THREADS`]);
/// outputs keep input order. A thread the system refuses to spawn (a thread or memory
/// limit) is no error: its share of the items runs on the calling thread, so the outputs
/// are the same whatever could be spawned.
pub fn parallel_map<T: Sync, U: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T) -> U + Sync,
) -> Vec<U> {
    let threads = threads.clamp(1, MAX_THREADS).min(items.len().max(1));
    if threads == 1 {
        return items.iter().map(f).collect();
    }
    let mut slots: Vec<Option<U>> = (0..items.len()).map(|_| None).collect();
    let chunk = items.len().div_ceil(threads);
    std::thread::scope(|scope| {
        for (item_chunk, slot_chunk) in items.chunks(chunk).zip(slots.chunks_mut(chunk)) {
            let f = &f;
            // A refused spawn drops the closure unrun: its slots stay empty (below).
            let _ = std::thread::Builder::new().spawn_scoped(scope, move || {
                for (item, slot) in item_chunk.iter().zip(slot_chunk) {
                    *slot = Some(f(item));
                }
            });
        }
    });
    // The items of a thread that could not be spawned: computed here, in order.
    for (item, slot) in items.iter().zip(slots.iter_mut()) {
        if slot.is_none() {
            *slot = Some(f(item));
        }
    }
    slots
        .into_iter()
        .map(|slot| slot.expect("every slot is filled"))
        .collect()
}

/// A model fitted on the training rows and scored on the test rows.
struct Scored {
    fitted: FittedLogistic,
    test_probability: Vec<f64>,
}

/// What an arm's model predicts on its test rows: the raw material of claim evidence.
#[derive(Debug, Clone, PartialEq)]
pub struct ArmPredictions {
    /// The arm's split.
    pub split: Split,
    /// Labels of the training rows, in canonical order.
    pub train_labels: Vec<bool>,
    /// Canonical indices of the test rows, ascending.
    pub test_rows: Vec<usize>,
    /// Labels of the test rows.
    pub test_labels: Vec<bool>,
    /// Predicted probability of each test row.
    pub test_scores: Vec<f64>,
    /// Why the scores are no model's ([`fit_failure`]); `None` for a fitted model.
    pub fit_failure: Option<String>,
}

/// Why a fit's test scores must not be read as a model's, or `None` when they may: the
/// solver stopped without meeting its tolerance (iteration limit, stalled line search,
/// overflow, …), or the model gives every test row the same score, a degenerate solution
/// whose AUC of 0.5 and zero-width DeLong interval would be facts about the solver, not
/// about the data.
pub fn fit_failure(fitted: &FittedLogistic, test_probability: &[f64]) -> Option<String> {
    if let Some(why) = fitted.stop.failure() {
        return Some(format!(
            "the model did not fit: {why} after {} iterations",
            fitted.iterations
        ));
    }
    let constant = test_probability
        .windows(2)
        .all(|w| w[0].to_bits() == w[1].to_bits());
    (test_probability.len() >= 2 && constant).then(|| {
        "the fitted model gives every test row the same score (a constant predictor)".to_owned()
    })
}

/// Splits, fits and scores one arm (no ablations, no summaries): what label permutations
/// and claim intervals need.
pub fn arm_predictions(
    pack: &Pack,
    table: &Table,
    experiment: &Experiment,
    index: usize,
) -> Result<ArmPredictions> {
    let prepared = PreparedArm::new(pack, table, experiment, index, false)?;
    let (labels, scored) = prepared.fit(0, pack, table, experiment)?;
    Ok(ArmPredictions {
        split: prepared.split,
        train_labels: labels.train,
        test_rows: prepared.test_rows,
        test_labels: labels.test,
        fit_failure: fit_failure(&scored.fitted, &scored.test_probability),
        test_scores: scored.test_probability,
    })
}

fn run_arm(pack: &Pack, table: &Table, experiment: &Experiment, index: usize) -> Result<ArmResult> {
    PreparedArm::new(pack, table, experiment, index, true)?.result(pack, table, experiment)
}

/// Everything of an arm that does not depend on the labels, computed once: the split (no
/// split kind looks at labels, see `src/split.rs`), its rows and, per feature set (the
/// arm's own, then each ablation's), the standardised training design and test rows.
/// Label permutations and the active-label mutation change nothing but the labels, so one
/// preparation serves all of them; fits from it perform exactly the float operations of
/// fits from scratch, so results are the same bits.
pub(crate) struct PreparedArm {
    index: usize,
    split: Split,
    train_rows: Vec<usize>,
    test_rows: Vec<usize>,
    /// The arm's features first, then (when prepared with ablations) each ablation's, in
    /// `ablation_list` order; `None` where the features could not be standardised (that fit
    /// then runs from scratch, so that its error comes in the same order as ever).
    fits: Vec<Option<PreparedFit>>,
    /// What train and test share (prepared with ablations only: it is a full result's).
    overlap: Option<Overlap>,
}

struct PreparedFit {
    design: Design,
    test: Matrix,
}

/// Labels of an arm's training and test rows, in canonical order.
struct ArmLabels {
    train: Vec<bool>,
    test: Vec<bool>,
}

impl PreparedArm {
    /// Prepares arm `index` of `experiment` on `table`; with `ablations`, also every
    /// ablation's feature set and the overlap (what [`PreparedArm::result`] needs). Errors
    /// as the arm's split does: the first step of running an arm.
    pub(crate) fn new(
        pack: &Pack,
        table: &Table,
        experiment: &Experiment,
        index: usize,
        ablations: bool,
    ) -> Result<PreparedArm> {
        let arm_path = format!("$.arms[{index}].split");
        let split = split::split(
            table,
            &experiment.arms[index].split,
            experiment.seed,
            &arm_path,
        )?;
        let train_rows = split.train_rows();
        let test_rows = split.test_rows();
        let features = experiment.feature_list(pack);
        let prepare = |features: &[String]| {
            let design = Design::new(&design_matrix(table, &train_rows, features)).ok()?;
            let test = design
                .standardizer()
                .transform(&design_matrix(table, &test_rows, features));
            Some(PreparedFit { design, test })
        };
        let mut fits = vec![prepare(features)];
        let mut overlap = None;
        if ablations {
            for ablation in experiment.ablation_list() {
                fits.push(prepare(&ablation_features(features, &ablation.drop)));
            }
            overlap = Some(split::overlap(table, &split, features));
        }
        Ok(PreparedArm {
            index,
            split,
            train_rows,
            test_rows,
            fits,
            overlap,
        })
    }

    /// Fits feature set `which` (0: the arm's, 1 + a: ablation `a`'s) on the labels of
    /// `table` and scores the test rows.
    fn fit(
        &self,
        which: usize,
        pack: &Pack,
        table: &Table,
        experiment: &Experiment,
    ) -> Result<(ArmLabels, Scored)> {
        let labels = table.labels();
        let arm = &experiment.arms[self.index].name;
        let ModelSpec::Logistic { c } = experiment.model;
        let train: Vec<bool> = self.train_rows.iter().map(|&r| labels[r]).collect();
        let test: Vec<bool> = self.test_rows.iter().map(|&r| labels[r]).collect();
        let scored = match &self.fits[which] {
            Some(prepared) => {
                let fitted = LogisticRegression::new(c)
                    .fit_design(&prepared.design, &train)
                    .map_err(|e| Error::invalid(format!("arm {arm:?}: {e}")))?;
                let test_probability = fitted.predict_proba_standardized(&prepared.test);
                Scored {
                    fitted,
                    test_probability,
                }
            }
            None => {
                let features = experiment.feature_list(pack);
                let features = match which {
                    0 => features.to_vec(),
                    a => ablation_features(features, &experiment.ablation_list()[a - 1].drop),
                };
                fit_and_score(table, &self.split, &features, c, arm)?
            }
        };
        Ok((ArmLabels { train, test }, scored))
    }

    /// The experiment's metrics of this arm under the labels of `table` (a relabelling of
    /// the table it was prepared on): what one label permutation needs of an arm.
    pub(crate) fn metrics(
        &self,
        pack: &Pack,
        table: &Table,
        experiment: &Experiment,
    ) -> Result<BTreeMap<String, MetricValue>> {
        let (labels, scored) = self.fit(0, pack, table, experiment)?;
        Ok(compute_metrics(
            &experiment.metrics,
            &labels.train,
            &labels.test,
            &scored.test_probability,
            fit_failure(&scored.fitted, &scored.test_probability).as_deref(),
        ))
    }

    /// The arm's full results under the labels of `table` (the table it was prepared on,
    /// or a relabelling of it); needs a preparation with ablations.
    pub(crate) fn result(
        &self,
        pack: &Pack,
        table: &Table,
        experiment: &Experiment,
    ) -> Result<ArmResult> {
        let arm = &experiment.arms[self.index];
        let features = experiment.feature_list(pack);
        let (labels, scored) = self.fit(0, pack, table, experiment)?;
        let ArmLabels {
            train: train_labels,
            test: test_labels,
        } = labels;
        let split = &self.split;
        let summary = split::summarize(table, split, arm.split.kind());
        let overlap = self
            .overlap
            .clone()
            .expect("a full result needs an arm prepared with ablations");
        let failure = fit_failure(&scored.fitted, &scored.test_probability);
        let metric_values = compute_metrics(
            &experiment.metrics,
            &train_labels,
            &test_labels,
            &scored.test_probability,
            failure.as_deref(),
        );

        let roc_auc_delong = experiment.metrics.contains(&MetricName::RocAuc).then(|| {
            let delong = match &failure {
                Some(reason) => Err(reason.clone()),
                None => metrics::delong(&test_labels, &scored.test_probability),
            };
            match delong {
                Ok(d) => DeLongSummary::Value {
                    se: d.se,
                    ci: [d.ci.0, d.ci.1],
                },
                Err(reason) => DeLongSummary::Undefined { undefined: reason },
            }
        });

        let mut ablations = BTreeMap::new();
        for (a, ablation) in experiment.ablation_list().iter().enumerate() {
            let (_, ablated) = self.fit(1 + a, pack, table, experiment)?;
            let ablated_metrics = compute_metrics(
                &experiment.metrics,
                &train_labels,
                &test_labels,
                &ablated.test_probability,
                fit_failure(&ablated.fitted, &ablated.test_probability).as_deref(),
            );
            let roc_auc_delta = match (metric_values.get("roc_auc"), ablated_metrics.get("roc_auc"))
            {
                (Some(MetricValue::Value(arm_auc)), Some(MetricValue::Value(ablated_auc))) => {
                    Some(ablated_auc - arm_auc)
                }
                _ => None,
            };
            let pairs = scored
                .test_probability
                .iter()
                .zip(&ablated.test_probability);
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

        Ok(ArmResult {
            split: summary,
            overlap,
            model: ModelSummary {
                intercept: scored.fitted.intercept,
                coefficients: features
                    .iter()
                    .cloned()
                    .zip(scored.fitted.coefficients.iter().copied())
                    .collect(),
                iterations: scored.fitted.iterations as u64,
                converged: scored.fitted.converged,
            },
            metrics: metric_values,
            roc_auc_delong,
            ablations,
        })
    }
}

/// Every arm of `experiment` prepared (with ablations) on `table`, for
/// [`compute_results_prepared`]; `None` for an arm whose split fails (it then runs from
/// scratch and fails the same way).
pub(crate) fn prepare_results(
    pack: &Pack,
    table: &Table,
    experiment: &Experiment,
) -> Vec<Option<PreparedArm>> {
    (0..experiment.arms.len())
        .map(|i| PreparedArm::new(pack, table, experiment, i, true).ok())
        .collect()
}

/// [`compute_results`] with one thread, on `table` (a relabelling of the table `prepared`
/// was made from by [`prepare_results`]): the same results, the same first error.
pub(crate) fn compute_results_prepared(
    pack: &Pack,
    table: &Table,
    experiment: &Experiment,
    prepared: &[Option<PreparedArm>],
) -> Result<BTreeMap<String, ArmResult>> {
    experiment.check(pack)?;
    let mut results = BTreeMap::new();
    for (i, arm) in experiment.arms.iter().enumerate() {
        let result = match &prepared[i] {
            Some(p) => p.result(pack, table, experiment),
            None => run_arm(pack, table, experiment, i),
        };
        results.insert(arm.name.clone(), result?);
    }
    Ok(results)
}

/// The arm's features without those an ablation drops, in the arm's order.
fn ablation_features(features: &[String], drop: &[String]) -> Vec<String> {
    features
        .iter()
        .filter(|f| !drop.contains(f))
        .cloned()
        .collect()
}

/// Builds the design matrix of `rows` over `features` (row-major, canonical order).
pub fn design_matrix(table: &Table, rows: &[usize], features: &[String]) -> Matrix {
    let columns: Vec<&[f64]> = features
        .iter()
        .map(|f| {
            table
                .feature(f)
                .expect("experiment features were checked against the pack")
        })
        .collect();
    let mut data = Vec::with_capacity(rows.len() * columns.len());
    for &row in rows {
        for column in &columns {
            data.push(column[row]);
        }
    }
    Matrix::from_row_major(rows.len(), columns.len(), data)
}

fn fit_and_score(
    table: &Table,
    split: &Split,
    features: &[String],
    c: f64,
    arm: &str,
) -> Result<Scored> {
    let train_rows = split.train_rows();
    let test_rows = split.test_rows();
    let x_train = design_matrix(table, &train_rows, features);
    let y_train: Vec<bool> = train_rows.iter().map(|&r| table.labels()[r]).collect();
    let fitted = LogisticRegression::new(c)
        .fit(&x_train, &y_train)
        .map_err(|e| Error::invalid(format!("arm {arm:?}: {e}")))?;
    let test_probability = fitted.predict_proba(&design_matrix(table, &test_rows, features));
    Ok(Scored {
        fitted,
        test_probability,
    })
}

/// The experiment's metrics on test rows, keyed by name. With a `fit_failure` (see
/// [`fit_failure`]) every metric that reads the model's scores is undefined with that
/// reason; the majority baseline, which reads labels only, keeps its value.
pub fn compute_metrics(
    names: &[MetricName],
    train_labels: &[bool],
    test_labels: &[bool],
    test_probability: &[f64],
    fit_failure: Option<&str>,
) -> BTreeMap<String, MetricValue> {
    let predicted: Vec<bool> = test_probability.iter().map(|&p| p >= 0.5).collect();
    let accuracy = metrics::accuracy(test_labels, &predicted);
    let baseline = metrics::majority_baseline_accuracy(train_labels, test_labels);
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

impl Payload {
    /// The payload as pretty JSON text (what `counterlab run` writes).
    pub fn to_json_pretty(&self) -> Result<String> {
        let value = canon::to_value(self)?;
        serde_json::to_string_pretty(&value)
            .map_err(|e| Error::invalid(format!("cannot encode payload: {e}")))
    }
}
