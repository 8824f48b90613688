//! What a verification costs, counted before anything is fitted: work units per model fit
//! and the memory of the designs it prepares. Shared by the verifier's `budget.work` check
//! and the boundary map's (docs/VERDICTS.md, "Budgets and options").

use crate::experiment::{Experiment, GbdtSpec, ModelSpec};
use crate::prepare::{ImputeStrategy, OversampleMethod, Step};
use crate::table::Table;

/// The work of one fit of `experiment`'s model on all of `table`'s rows: for the logistic
/// model rows × ((features + 1)² + [`ROW_WORK`]), for the trees [`gbdt_work`]. An arm
/// that prepares its features ([`prepare_work`]) is counted with the rows and columns its
/// preparation gives the model, plus the preparation's own work; the largest arm's is the
/// experiment's (so an experiment without preparation counts exactly what it always did).
pub fn work_per_fit(experiment: &Experiment, table: &Table) -> u64 {
    let (rows, features) = (table.n_rows() as u64, feature_count(experiment, table));
    experiment
        .arms
        .iter()
        .map(|arm| {
            let (rows, features, preparing) = prepare_work(&arm.prepare, table, rows, features);
            model_work(&experiment.model, rows, features).saturating_add(preparing)
        })
        .max()
        .unwrap_or_else(|| model_work(&experiment.model, rows, features))
}

/// One fit of `model` on `rows` rows of `features` model columns.
fn model_work(model: &ModelSpec, rows: u64, features: u64) -> u64 {
    match model {
        ModelSpec::Logistic { .. } => rows.saturating_mul(
            (features + 1)
                .saturating_mul(features + 1)
                .saturating_add(ROW_WORK),
        ),
        ModelSpec::Gbdt(spec) => gbdt_work(spec, rows, features),
    }
}

/// What a preparation (src/prepare/) of `rows` rows and `features` model columns gives
/// the model, and costs: `(rows, features, work)`. Each step reads every cell once
/// ([`PREPARE_CELL_WORK`] a cell; the median's sort counted as log₂ rows more);
/// `target_encode` turns a feature's levels into one column; `select_k_best` keeps k;
/// oversampling at most doubles the rows, and SMOTE's neighbour search costs rows² ×
/// features. An upper bound: the rows fitted on are at most the table's.
pub fn prepare_work(steps: &[Step], table: &Table, rows: u64, features: u64) -> (u64, u64, u64) {
    let log2 = |v: u64| u64::from(64 - v.saturating_sub(1).leading_zeros());
    let (mut rows, mut features, mut work) = (rows, features, 0u64);
    for step in steps {
        let cells = rows.saturating_mul(features);
        work = work.saturating_add(cells.saturating_mul(PREPARE_CELL_WORK));
        match step {
            Step::Impute {
                strategy: ImputeStrategy::Median,
                ..
            } => work = work.saturating_add(cells.saturating_mul(log2(rows))),
            Step::TargetEncode { column, .. } => {
                let layout = table.layout();
                let levels = layout
                    .sources()
                    .iter()
                    .position(|s| s == column)
                    .map_or(1, |k| layout.levels(k).len().max(1))
                    as u64;
                features = features.saturating_sub(levels - 1);
            }
            Step::SelectKBest { k, .. } => features = features.min(u64::from(*k)),
            Step::Oversample { method, .. } => {
                if *method == OversampleMethod::Smote {
                    work = work.saturating_add(rows.saturating_mul(rows).saturating_mul(features));
                }
                rows = rows.saturating_mul(2);
            }
            Step::Standardize { .. } | Step::Impute { .. } => {}
        }
    }
    (rows, features, work)
}

/// The work units of a preparation step per cell it reads: copying it into the fold's
/// frame, the statistic's pass and the transform's.
pub const PREPARE_CELL_WORK: u64 = 4;

/// The work of one fit of gradient-boosted trees on `rows` rows of `features` model
/// columns, per tree (`max_iter` of them):
/// - rows × features × (1 + h) for the histograms, where h = min(max_leaf_nodes − 1,
///   ⌈log₂ rows⌉) bounds how often a row is summed again below the root (only the
///   smaller child of a split is summed, so a row is summed at most once per halving);
/// - rows × [`GBDT_ROW_WORK`] for the gradients, the partitions and the raw scores;
/// - max_leaf_nodes × features × (max_bins + 1) for scanning the histograms for splits;
///
/// and rows × features × ⌈log₂(max_bins + 1)⌉ + rows × features × ⌈log₂ rows⌉ once, for
/// binning (a sort per feature) — an upper bound of what a fit does, in the logistic
/// model's units (one unit costs about as much time in both: docs/VERDICTS.md, "Work").
pub fn gbdt_work(spec: &GbdtSpec, rows: u64, features: u64) -> u64 {
    let log2 = |v: u64| u64::from(64 - v.saturating_sub(1).leading_zeros());
    let leaves = u64::from(spec.max_leaf_nodes);
    let bins = u64::from(spec.max_bins) + 1;
    let below_root = (leaves - 1).min(log2(rows));
    let per_tree = rows
        .saturating_mul(
            features
                .saturating_mul(1 + below_root)
                .saturating_add(GBDT_ROW_WORK),
        )
        .saturating_add(leaves.saturating_mul(features).saturating_mul(bins));
    let binning = rows
        .saturating_mul(features)
        .saturating_mul(log2(bins) + log2(rows));
    per_tree
        .saturating_mul(u64::from(spec.max_iter))
        .saturating_add(binning)
}

/// The per-row work units of one tree that do not grow with the features: the loss's
/// gradients and hessians (an exponential each), the rows' partition into the leaves and
/// the raw scores' update.
pub const GBDT_ROW_WORK: u64 = 16;

/// The work units of a fit that do not grow with the features, per row: margins, the
/// exponentials, the line search and the metrics. Without it a table of many rows and one
/// feature counted 4 units a row, far less than its fits cost next to the bundled packs'
/// (the measurement: docs/VERDICTS.md, "Budgets and options").
pub const ROW_WORK: u64 = 32;

/// The fits one labelling of the experiment's arms takes per feature set: one per arm, and
/// one per fold of every repeat for a cross-validation arm (each fold fits on fewer rows
/// than the table, so a fold counted as a fit on every row is an upper bound).
pub fn arm_fits(experiment: &Experiment) -> u64 {
    fits(experiment, true)
}

/// The fits one permutation of a null takes of the experiment's arms: as [`arm_fits`], but
/// a repeated cross-validation's first repeat only (a null fits one repeat, `arm.rs`).
pub fn null_arm_fits(experiment: &Experiment) -> u64 {
    fits(experiment, false)
}

fn fits(experiment: &Experiment, every_repeat: bool) -> u64 {
    experiment
        .arms
        .iter()
        .map(|arm| {
            let repeats = if every_repeat { arm.split.repeats() } else { 1 };
            arm.split.cross_validation().map_or(1, |(folds, _)| {
                u64::from(folds).saturating_mul(u64::from(repeats))
            })
        })
        .fold(0u64, u64::saturating_add)
}

/// The memory of the designs a verification prepares, in bytes: every arm's (every
/// fold's) and every ablation's standardised training rows (twice: row- and column-major)
/// and test rows, bounded by 16 × rows × (features + 1) each, counted as if all were held
/// at once (a verdict rule, docs/VERDICTS.md). Since a fold's design is made when it is
/// fitted and dropped after (`src/arm.rs`), far fewer are held at once: the rule is kept
/// as it was, an upper bound, so that no verdict moves.
pub fn design_bytes(experiment: &Experiment, table: &Table) -> u64 {
    let (rows, features) = (table.n_rows() as u64, feature_count(experiment, table));
    let sets = arm_fits(experiment).saturating_mul(1 + experiment.ablation_list().len() as u64);
    rows.saturating_mul(features + 1)
        .saturating_mul(16)
        .saturating_mul(sets)
}

/// The model columns the experiment's model reads (its own feature list, or all of the
/// pack's; a categorical feature counts one column per level).
fn feature_count(experiment: &Experiment, table: &Table) -> u64 {
    let features = experiment
        .features
        .as_deref()
        .unwrap_or(table.feature_names());
    table.layout().columns_of(features).map_or(0, |c| c.len()) as u64
}
