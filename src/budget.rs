//! What a verification costs, counted before anything is fitted: work units per model fit
//! and the memory of the designs it prepares. Shared by the verifier's `budget.work` check
//! and the boundary map's (docs/VERDICTS.md, "Budgets and options").

use crate::experiment::Experiment;
use crate::table::Table;

/// The work of one fit of `experiment` on all of `table`'s rows: rows × ((features + 1)² +
/// [`ROW_WORK`]).
pub fn work_per_fit(experiment: &Experiment, table: &Table) -> u64 {
    let (rows, features) = (table.n_rows() as u64, feature_count(experiment, table));
    rows.saturating_mul(
        (features + 1)
            .saturating_mul(features + 1)
            .saturating_add(ROW_WORK),
    )
}

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
