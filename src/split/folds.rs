//! Cross-validation folds: `k_fold`, `entity_k_fold` and `rolling_origin`, each with the
//! kernel's seeded assignment or scikit-learn 1.9's, reproduced exactly.
//!
//! scikit-learn's algorithms (read from `sklearn/model_selection/_split.py`, 1.9.1; see the
//! goldens of `tests/parity/gen_cv_goldens.py`):
//! - `KFold(n_splits=k)`: consecutive folds over the rows in order, sizes `n // k`, the
//!   first `n % k` folds one larger. The kernel applies it to the canonical row order.
//! - `GroupKFold(n_splits=k)` (no shuffling): groups in sorted order (`np.unique`), their
//!   sizes sorted stably and reversed (largest first; among equal sizes the group that
//!   sorts last comes first), each group to the fold with the fewest rows so far (the
//!   lowest-numbered among equally light ones). `np.unique`'s order is that of the entity
//!   column as a user exports it ([`numpy_unique_order`]): by value when every id is an
//!   integer (pandas reads such a column as int64), else text in byte order.
//! - `TimeSeriesSplit(n_splits=k)`, applied to the sorted *distinct time values* (not to
//!   rows, so that no time value is cut in two): `test_size = m // (k + 1)`, fold f tests
//!   the values `[m − k·test_size + f·test_size, … + test_size)` and trains on every
//!   earlier value.

use crate::canon::HashKind;
use crate::error::{Error, Result};
use crate::json_path::JsonPath;
use crate::rng;
use crate::table::Table;

use super::blocks::fold_of_each;
use super::numpy_random::{self, RandomState};
use super::{Assignment, Split, SplitSpec};

/// The most folds a cross-validation split may have (docs/payload.schema.json).
pub const MAX_FOLDS: u32 = 100;

/// A cross-validation arm's folds over the canonical table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Folds {
    /// Per fold, in fold order: its training and test rows.
    pub splits: Vec<Split>,
    /// Which fold tests each row.
    assignment: FoldAssignment,
}

/// Which fold of a cross-validation repeat tests each canonical row: all a repeat's
/// pooling needs once its folds' splits are held elsewhere ([`Folds::into_parts`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoldAssignment {
    /// The number of folds.
    n_folds: usize,
    /// Per canonical row, the fold whose test rows hold it (`None`: never tested, the first
    /// time block of a rolling origin).
    fold_of_row: Vec<Option<u32>>,
}

impl FoldAssignment {
    /// Per canonical row, the fold that tests it.
    pub fn fold_of_row(&self) -> &[Option<u32>] {
        &self.fold_of_row
    }

    /// The number of folds.
    pub fn n_folds(&self) -> usize {
        self.n_folds
    }

    /// blake3 (context `counterlab 2026-12 folds v1`) of the row count, the fold count and,
    /// per canonical row, its test fold as a little-endian u32 (`u32::MAX`: never tested).
    pub fn membership_hash(&self) -> String {
        let mut hasher = HashKind::Folds.hasher();
        hasher.update(&(self.fold_of_row.len() as u64).to_le_bytes());
        hasher.update(&(self.n_folds as u64).to_le_bytes());
        let mut bytes = Vec::with_capacity(4 * self.fold_of_row.len());
        for fold in &self.fold_of_row {
            bytes.extend_from_slice(&fold.unwrap_or(u32::MAX).to_le_bytes());
        }
        hasher.update(&bytes);
        hasher.finalize().to_hex().to_string()
    }
}

impl Folds {
    /// Per canonical row, the fold that tests it.
    pub fn fold_of_row(&self) -> &[Option<u32>] {
        self.assignment.fold_of_row()
    }

    /// The fold assignment's hash ([`FoldAssignment::membership_hash`]).
    pub fn membership_hash(&self) -> String {
        self.assignment.membership_hash()
    }

    /// The splits and the assignment, apart: a caller that keeps each split with its
    /// fold's other state need not hold a second copy of the masks.
    pub fn into_parts(self) -> (Vec<Split>, FoldAssignment) {
        (self.splits, self.assignment)
    }

    /// Folds of `splits` where row r is tested by fold `fold_of_row[r]`.
    fn new(splits: Vec<Split>, fold_of_row: Vec<Option<u32>>) -> Folds {
        let n_folds = splits.len();
        Folds {
            splits,
            assignment: FoldAssignment {
                n_folds,
                fold_of_row,
            },
        }
    }

    /// Folds where row r is tested by fold `fold_of_row[r]` and trains every other fold.
    fn complementary(fold_of_row: Vec<u32>, k: u32) -> Folds {
        let splits = (0..k)
            .map(|f| Split::from_mask(fold_of_row.iter().map(|&g| g == f).collect()))
            .collect();
        Folds::new(splits, fold_of_row.into_iter().map(Some).collect())
    }
}

/// The folds of a cross-validation split spec on `table`, one [`Folds`] per repeat (one
/// for a spec without `repeats`, and always one for `rolling_origin`, which draws
/// nothing). `arm_path` (`$.arms[i].split`) names the arm in errors; a fold count the
/// table cannot fill is an error at `…split.folds`.
///
/// Repeat r of the seeded assignment shuffles with the stream `split/<kind>` for r = 0 (so
/// one repeat is the unrepeated split, bit for bit) and `split/<kind>/repeat/<r>` for
/// r ≥ 1. The `sklearn` assignment of `k_fold` is scikit-learn's
/// `RepeatedKFold(n_splits=K, n_repeats=R, random_state=seed % 2**32)` exactly — one
/// `RandomState` handed to R `KFold(shuffle=True)` in turn; one repeat is
/// `KFold(n_splits=K, shuffle=True, random_state=seed % 2**32)`. Rows are always
/// shuffled: the canonical order is sorted by entity, so an unshuffled `KFold` would be
/// nearly grouped. The `sklearn` assignment of `entity_k_fold` with one repeat is
/// `GroupKFold` without shuffling (whole entities either way); with R ≥ 2 repeats R
/// `GroupKFold(shuffle=True)` drawing from one `RandomState` in turn.
pub fn folds(
    table: &Table,
    spec: &SplitSpec,
    seed: u64,
    arm_path: &JsonPath,
) -> Result<Vec<Folds>> {
    let Some((k, assignment)) = spec.cross_validation() else {
        return Err(Error::experiment(
            arm_path.key("kind"),
            "a single train/test split has no folds",
        ));
    };
    if !(2..=MAX_FOLDS).contains(&k) {
        return Err(Error::experiment(
            arm_path.key("folds"),
            format!("folds must be an integer in [2, {MAX_FOLDS}], got {k}"),
        ));
    }
    let repeats = spec.repeats();
    if !(1..=MAX_REPEATS).contains(&repeats) {
        return Err(Error::experiment(
            arm_path.key("repeats"),
            format!("repeats must be an integer in [1, {MAX_REPEATS}], got {repeats}"),
        ));
    }
    let draw = Draw {
        assignment,
        repeats,
        seed,
    };
    let per_repeat = match spec {
        SplitSpec::KFold { .. } => k_fold(table, k, &draw, arm_path)?,
        SplitSpec::EntityKFold { .. } => entity_k_fold(table, k, &draw, arm_path)?,
        SplitSpec::RollingOrigin { test_fraction, .. } => {
            return Ok(vec![rolling_origin(
                table,
                k,
                assignment,
                *test_fraction,
                arm_path,
            )?])
        }
        _ => unreachable!("cross_validation() is Some only for the fold kinds"),
    };
    Ok(per_repeat
        .into_iter()
        .map(|fold_of_row| Folds::complementary(fold_of_row, k))
        .collect())
}

/// The most repeats a cross-validation split may have (docs/payload.schema.json).
pub const MAX_REPEATS: u32 = 50;

/// How a `k_fold` or `entity_k_fold` arm draws its repeats.
struct Draw {
    assignment: Assignment,
    repeats: u32,
    seed: u64,
}

impl Draw {
    /// The ChaCha stream of repeat `r` of the seeded assignment (`folds`).
    fn seeded_stream(&self, kind_stream: &str, r: u32) -> rand_chacha::ChaCha20Rng {
        if r == 0 {
            rng::stream(self.seed, kind_stream)
        } else {
            rng::stream(self.seed, &format!("{kind_stream}/repeat/{r}"))
        }
    }

    /// The `RandomState` every shuffled scikit-learn repeat draws from in turn, seeded
    /// with the experiment's seed modulo 2³² (numpy takes 32-bit seeds; a selected
    /// experiment's derived seed is a full 64-bit one): scikit-learn's `random_state` is
    /// `seed % 2**32`.
    fn numpy_random_state(&self) -> RandomState {
        RandomState::new((self.seed & u64::from(u32::MAX)) as u32)
    }
}

/// The error of `k` folds over `units` `what` (rows, entities, time values), fewer than the
/// folds need.
fn too_many_folds(arm_path: &JsonPath, k: u32, units: usize, what: &str) -> Error {
    Error::experiment(
        arm_path.key("folds"),
        format!("{k} folds need at least {k} {what}; there are {units}"),
    )
}

/// A scikit-learn splitter's refusal (which the checks before it rule out) at the arm's
/// folds.
fn sklearn_refusal(arm_path: &JsonPath) -> impl Fn(Error) -> Error + '_ {
    move |e| Error::experiment(arm_path.key("folds"), e.to_string())
}

/// `k_fold`, per repeat the test fold of each row: consecutive blocks of the rows
/// shuffled by numpy (`KFold(shuffle=True)`, `RepeatedKFold`) or from the seed.
fn k_fold(table: &Table, k: u32, draw: &Draw, arm_path: &JsonPath) -> Result<Vec<Vec<u32>>> {
    let n = table.n_rows();
    if n < k as usize {
        return Err(too_many_folds(arm_path, k, n, "rows"));
    }
    match (draw.assignment, draw.repeats) {
        // Always shuffled: unshuffled KFold on the canonical order (sorted by entity) deals
        // consecutive rows, whole entities, to one fold — a nearly grouped split that a
        // `k_fold` arm must not be (issue 46). One repeat is `KFold(shuffle=True)`, the
        // first repeat of `RepeatedKFold`.
        (Assignment::Sklearn, _) => {
            let mut numpy = draw.numpy_random_state();
            (0..draw.repeats)
                .map(|_| {
                    numpy_random::k_fold_shuffled_by(n, k, &mut numpy)
                        .map_err(sklearn_refusal(arm_path))
                })
                .collect()
        }
        (Assignment::Seeded, _) => Ok((0..draw.repeats)
            .map(|r| {
                let mut order: Vec<usize> = (0..n).collect();
                rng::shuffle(&mut order, &mut draw.seeded_stream("split/k_fold", r));
                fold_of_each(&order, k as usize)
            })
            .collect()),
    }
}

/// `entity_k_fold`, per repeat the test fold of each row: whole entities dealt to the
/// folds, largest first (scikit-learn's `GroupKFold`) or in a seeded shuffle, each to the
/// fold with the fewest rows so far; or (`sklearn` with repeats) the entities permuted by
/// numpy and cut into folds of equal entity counts (`GroupKFold(shuffle=True)`).
fn entity_k_fold(table: &Table, k: u32, draw: &Draw, arm_path: &JsonPath) -> Result<Vec<Vec<u32>>> {
    let entities = table.n_entities();
    if entities < k as usize {
        return Err(too_many_folds(arm_path, k, entities, "entities"));
    }
    let mut size = vec![0usize; entities];
    for &e in table.entity_of_row() {
        size[e as usize] += 1;
    }
    let orders: Vec<Vec<usize>> = match (draw.assignment, draw.repeats) {
        (Assignment::Sklearn, 1) => {
            // np.argsort(sizes, kind="stable")[::-1]: ascending by size with ties
            // in np.unique's order, then reversed.
            let mut order = numpy_unique_order(table);
            order.sort_by_key(|&e| size[e]);
            order.reverse();
            vec![order]
        }
        (Assignment::Sklearn, _) => {
            // Each row's group as np.unique's inverse: its entity's place in np.unique's
            // order, which the permutation draws over.
            let mut place = vec![0u32; entities];
            for (at, e) in numpy_unique_order(table).into_iter().enumerate() {
                place[e] = at as u32;
            }
            let group_of_row: Vec<u32> = table
                .entity_of_row()
                .iter()
                .map(|&e| place[e as usize])
                .collect();
            let mut numpy = draw.numpy_random_state();
            return (0..draw.repeats)
                .map(|_| {
                    numpy_random::group_k_fold_shuffled_by(&group_of_row, entities, k, &mut numpy)
                        .map_err(sklearn_refusal(arm_path))
                })
                .collect();
        }
        (Assignment::Seeded, _) => (0..draw.repeats)
            .map(|r| {
                let mut order: Vec<usize> = (0..entities).collect();
                rng::shuffle(
                    &mut order,
                    &mut draw.seeded_stream("split/entity_k_fold", r),
                );
                order
            })
            .collect(),
    };
    Ok(orders
        .into_iter()
        .map(|order| {
            // Each entity in turn to the fold with the fewest rows so far (the lowest
            // index among equals): GroupKFold's rule, and a row-balanced deal of the
            // shuffled entities for the seeded assignment.
            let mut rows_in = vec![0usize; k as usize];
            let mut fold_of_entity = vec![0u32; entities];
            for e in order {
                let lightest = (0..k as usize)
                    .min_by_key(|&f| (rows_in[f], f))
                    .expect("k ≥ 2");
                rows_in[lightest] += size[e];
                fold_of_entity[e] = lightest as u32;
            }
            table
                .entity_of_row()
                .iter()
                .map(|&e| fold_of_entity[e as usize])
                .collect()
        })
        .collect())
}

/// The table's entities in `np.unique`'s order of the entity column as the user's tools
/// read it when they export it to scikit-learn: when every id is an integer (an optional
/// `-` and ASCII digits, within i64: pandas reads the column as int64), by value — `2`
/// before `10` before `100` —, equal values (`7`, `07`) in byte order; otherwise (any id
/// that is not an integer: pandas reads an object column, np.unique sorts text) in byte
/// order, the table's own entity order.
fn numpy_unique_order(table: &Table) -> Vec<usize> {
    let mut order: Vec<usize> = (0..table.n_entities()).collect();
    let values: Option<Vec<i64>> = table.entity_ids().iter().map(|id| integer(id)).collect();
    if let Some(values) = values {
        // Stable: equal values keep their byte order.
        order.sort_by_key(|&e| values[e]);
    }
    order
}

/// An id that is an integer as pandas reads one into an int64 column: an optional `-`,
/// then ASCII digits, within i64.
fn integer(id: &str) -> Option<i64> {
    let digits = id.strip_prefix('-').unwrap_or(id);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    id.parse().ok()
}

/// `rolling_origin`: k consecutive blocks of time values, fold f testing block f and
/// training on every earlier time.
fn rolling_origin(
    table: &Table,
    k: u32,
    assignment: Assignment,
    test_fraction: Option<f64>,
    arm_path: &JsonPath,
) -> Result<Folds> {
    let time = table
        .time()
        .ok_or_else(|| Error::experiment(arm_path.key("kind"), "the pack has no time column"))?;
    let starts = rolling_origin_starts(time, k, assignment, test_fraction, arm_path)?;
    let k = k as usize;
    // The test blocks are consecutive and the last one ends with the last value
    // (TimeSeriesSplit leaves the values that do not divide evenly to the first,
    // train-only block), so fold f tests [starts[f], starts[f + 1]).
    let block_of = |t: i64| starts.iter().rposition(|&s| t >= s);
    let splits = (0..k)
        .map(|f| {
            let start = starts[f];
            let end = starts.get(f + 1).copied().unwrap_or(i64::MAX);
            let is_test = time.iter().map(|&t| t >= start && t < end).collect();
            let in_train = time.iter().map(|&t| t < start).collect();
            Split::with_unused(is_test, in_train)
        })
        .collect();
    let fold_of_row = time
        .iter()
        .map(|&t| block_of(t).map(|f| f as u32))
        .collect();
    Ok(Folds::new(splits, fold_of_row))
}

/// The first time value of each of a rolling origin's `k` test blocks, ascending: over
/// every time value, or (with `test_fraction`) over the tested period, the latest ones
/// holding that fraction of the rows (the temporal split's rule).
fn rolling_origin_starts(
    time: &[i64],
    k: u32,
    assignment: Assignment,
    test_fraction: Option<f64>,
    arm_path: &JsonPath,
) -> Result<Vec<i64>> {
    let mut sorted: Vec<i64> = time.to_vec();
    sorted.sort_unstable();
    let first_tested = test_fraction.map(|f| super::latest_values_cutoff(time, f));
    let mut values: Vec<i64> = sorted.clone();
    values.dedup();
    let too_many = |units: usize, what: &str| too_many_folds(arm_path, k, units, what);
    let k = k as usize;
    match (assignment, first_tested) {
        (Assignment::Sklearn, None) => {
            // TimeSeriesSplit(n_splits=k) on the m distinct values.
            let m = values.len();
            let test_size = m / (k + 1);
            if test_size == 0 {
                return Err(too_many(m, "distinct time values beyond the first block"));
            }
            Ok(time_series_split_starts(&values, k, test_size))
        }
        (Assignment::Sklearn, Some(first)) => {
            // TimeSeriesSplit(n_splits=k, test_size=m_tested // k): the last
            // k·test_size values, which lie inside the tested period.
            let m = values.len();
            let tested = values.len() - values.partition_point(|&v| v < first);
            let test_size = tested / k;
            if test_size == 0 || m <= k * test_size {
                return Err(too_many(
                    tested,
                    "distinct time values in the tested period",
                ));
            }
            Ok(time_series_split_starts(&values, k, test_size))
        }
        (Assignment::Seeded, None) => row_balanced_starts(&sorted, &values, k + 1).ok_or_else(|| {
            Error::experiment(
                arm_path.key("folds"),
                format!(
                    "{k} rolling-origin folds need {} blocks of time values, each with rows (a first training block, then one per fold); the {} rows over {} distinct time values do not fill them: use fewer folds",
                    k + 1,
                    sorted.len(),
                    values.len()
                ),
            )
        }),
        (Assignment::Seeded, Some(first)) => {
            let period = &sorted[sorted.partition_point(|&t| t < first)..];
            let period_values = &values[values.partition_point(|&v| v < first)..];
            if period.len() == sorted.len() {
                return Err(Error::experiment(
                    arm_path.key("test_fraction"),
                    "the tested period holds every row: no fold would have training rows",
                ));
            }
            let mut starts = vec![first];
            starts.extend(
                row_balanced_starts(period, period_values, k).ok_or_else(|| {
                    too_many(
                        period_values.len(),
                        "distinct time values in the tested period",
                    )
                })?,
            );
            Ok(starts)
        }
    }
}

/// `TimeSeriesSplit`'s test block starts on the distinct time `values`: the last
/// `k·test_size` values, `test_size` per fold.
fn time_series_split_starts(values: &[i64], k: usize, test_size: usize) -> Vec<i64> {
    let m = values.len();
    (0..k)
        .map(|f| values[m - k * test_size + f * test_size])
        .collect()
}

/// The seeded rolling origin's cuts: the rows of `sorted` (their times, ascending; its
/// distinct `values`) cut into `blocks` blocks of about n / blocks rows at whole time
/// values. Block j (1 ≤ j < blocks) starts at the first time value with at least
/// ⌈j·n / blocks⌉ rows before it; the starts of blocks 1.. are returned (block 0 starts at
/// the first value). `None` when a block would be empty (too few time values, or one value
/// holding too many rows).
fn row_balanced_starts(sorted: &[i64], values: &[i64], blocks: usize) -> Option<Vec<i64>> {
    let n = sorted.len();
    let mut starts: Vec<i64> = Vec::with_capacity(blocks - 1);
    for j in 1..blocks {
        let wanted = (j * n).div_ceil(blocks);
        let start = values
            .iter()
            .copied()
            .find(|&v| sorted.partition_point(|&t| t < v) >= wanted)?;
        if start == values[0] || starts.last().is_some_and(|&last| last >= start) {
            return None;
        }
        starts.push(start);
    }
    Some(starts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_balanced_starts_cut_at_whole_time_values() {
        // 12 rows over times 1..=6, two rows each: 3 blocks of 4 rows.
        let time: Vec<i64> = (1..=6).flat_map(|t| [t, t]).collect();
        let values: Vec<i64> = (1..=6).collect();
        assert_eq!(row_balanced_starts(&time, &values, 3), Some(vec![3, 5]));
        // One value holding most rows cannot be cut into three blocks.
        let heavy = [1, 2, 2, 2, 2, 2, 2, 2, 2, 3];
        assert_eq!(row_balanced_starts(&heavy, &[1, 2, 3], 3), None);
    }
}
