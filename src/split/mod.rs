//! Train/test splits over the canonical table, their summaries and their overlap.
//!
//! Every split is a pure function of (canonical table, split spec, seed): the random ones
//! draw from the ChaCha20 stream `split/<kind>` of the experiment's seed, so two arms with
//! the same spec get the same split and no arm's draw depends on another's.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::canon::{float_bits, HashKind};
use crate::error::{Error, Result};
use crate::json_path::JsonPath;
use crate::rng;
use crate::table::Table;

mod blocks;
mod folds;
pub mod numpy_random;
pub use folds::{folds, FoldAssignment, Folds, MAX_FOLDS, MAX_REPEATS};

/// How an arm divides rows into train and test.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
// The schema (docs/payload.schema.json) is checked first and reports every problem with
// its JSON path; serde's internally tagged form then only reads what the schema let by.
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum SplitSpec {
    /// `ceil(test_fraction · rows)` rows drawn uniformly for test.
    RandomRows {
        /// Fraction of rows in test, in (0, 1).
        test_fraction: f64,
    },
    /// `ceil(test_fraction · entities)` entities drawn uniformly; all their rows are test.
    EntityGrouped {
        /// Fraction of entities in test, in (0, 1).
        test_fraction: f64,
    },
    /// The test entities of `entity_grouped` with the same `test_fraction` and seed, of
    /// which `ceil(overlap · test entities)` (drawn uniformly) also put half of their rows
    /// (drawn uniformly, rounded down) into training: a controlled amount of entity leakage
    /// (the boundary map's `test_entity_overlap` knob). `overlap` = 0 is `entity_grouped`.
    EntityOverlap {
        /// Fraction of entities in test, in (0, 1).
        test_fraction: f64,
        /// Fraction of test entities that also have rows in training, in [0, 1].
        overlap: f64,
    },
    /// The latest time values for test (whole time values, latest first, until at least
    /// `ceil(test_fraction · rows)` rows); train strictly before.
    Temporal {
        /// Target fraction of rows in test, in (0, 1).
        test_fraction: f64,
    },
    /// A 0/1 (or false/true) column of the fixture marks the test rows.
    Predefined {
        /// The column; not a feature.
        column: String,
    },
    /// K-fold cross-validation over rows: every row is a test row of exactly one fold
    /// (`folds.rs`).
    KFold {
        /// Number of folds (≥ 2).
        folds: u32,
        /// How rows are dealt to folds; omitted = seeded.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        assignment: Option<Assignment>,
        /// How many times the whole K-fold assignment is drawn (repeated cross-validation,
        /// `folds.rs`); omitted = 1.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        repeats: Option<u32>,
    },
    /// K-fold cross-validation over entities: all rows of an entity are in one fold, so no
    /// entity is on both sides of any fold.
    EntityKFold {
        /// Number of folds (≥ 2).
        folds: u32,
        /// How entities are dealt to folds; omitted = seeded.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        assignment: Option<Assignment>,
        /// How many times the whole K-fold assignment is drawn (repeated cross-validation,
        /// `folds.rs`); omitted = 1.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        repeats: Option<u32>,
    },
    /// Rolling-origin (time-series) cross-validation: the time values are cut into
    /// `folds + 1` consecutive blocks; fold k tests block k + 1 and trains on every earlier
    /// time. The first block is never tested. With `test_fraction`, the `folds` test blocks
    /// cut only the latest values instead (`folds.rs`).
    RollingOrigin {
        /// Number of folds (≥ 2).
        folds: u32,
        /// Where the blocks are cut; omitted = seeded.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        assignment: Option<Assignment>,
        /// When given, the folds' test blocks cut only the latest time values holding at
        /// least this fraction of rows (the `temporal` split's test rows), each fold
        /// training on every earlier time: an expanding window over a final evaluation
        /// period. Omitted: every time value after the first block is tested.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        test_fraction: Option<f64>,
    },
}

/// How a cross-validation arm deals rows, entities or time values to its folds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Assignment {
    /// The kernel's own: a ChaCha shuffle from the experiment's seed for `k_fold` and
    /// `entity_k_fold`; row-balanced time blocks for `rolling_origin` (nothing random).
    Seeded,
    /// scikit-learn 1.9's splitters reproduced exactly: `KFold(shuffle=True)` (never
    /// unshuffled: the canonical order is sorted by entity), `GroupKFold` and
    /// `TimeSeriesSplit` (on time values); with repeats, `RepeatedKFold` and repeated
    /// `GroupKFold(shuffle=True)` (`folds.rs`).
    Sklearn,
}

impl SplitSpec {
    /// The split's design normal form (src/design.rs): its typed value with `"repeats": 1`
    /// left out (the default), an `entity_overlap` of overlap 0 written as the
    /// `entity_grouped` split it is exactly, and **no `assignment`**: how folds are dealt
    /// (the kernel's seeded draw or scikit-learn's) is a nuisance, like the seed, not a
    /// design. Two splits with one normal form are one design: the same kind, fold count,
    /// repeats and fractions, whichever draw deals the rows (issue 46: a revision that
    /// changes only the assignment re-draws the folds, it does not revise the design).
    pub fn normal_form(&self) -> serde_json::Value {
        let split = match self {
            SplitSpec::EntityOverlap {
                test_fraction,
                overlap,
            } if *overlap == 0.0 => SplitSpec::EntityGrouped {
                test_fraction: *test_fraction,
            },
            other => other.clone(),
        };
        let mut value = crate::canon::to_value(&split).expect("a split encodes");
        let object = value.as_object_mut().expect("a split is an object");
        object.remove("assignment");
        if object.get("repeats").and_then(serde_json::Value::as_u64) == Some(1) {
            object.remove("repeats");
        }
        value
    }

    /// The kind as written in JSON.
    pub fn kind(&self) -> &'static str {
        match self {
            SplitSpec::RandomRows { .. } => "random_rows",
            SplitSpec::EntityGrouped { .. } => "entity_grouped",
            SplitSpec::EntityOverlap { .. } => "entity_overlap",
            SplitSpec::Temporal { .. } => "temporal",
            SplitSpec::Predefined { .. } => "predefined",
            SplitSpec::KFold { .. } => "k_fold",
            SplitSpec::EntityKFold { .. } => "entity_k_fold",
            SplitSpec::RollingOrigin { .. } => "rolling_origin",
        }
    }

    /// The fold count and assignment of a cross-validation split, `None` for a single
    /// train/test split.
    pub fn cross_validation(&self) -> Option<(u32, Assignment)> {
        match self {
            SplitSpec::KFold {
                folds, assignment, ..
            }
            | SplitSpec::EntityKFold {
                folds, assignment, ..
            }
            | SplitSpec::RollingOrigin {
                folds, assignment, ..
            } => Some((*folds, assignment.unwrap_or(Assignment::Seeded))),
            _ => None,
        }
    }

    /// How many times a cross-validation split's fold assignment is drawn: its `repeats`
    /// (1 when omitted, and for every split that has no `repeats`).
    pub fn repeats(&self) -> u32 {
        match self {
            SplitSpec::KFold { repeats, .. } | SplitSpec::EntityKFold { repeats, .. } => {
                repeats.unwrap_or(1)
            }
            _ => 1,
        }
    }

    /// Whether no entity may have rows on both sides (of the split, or of any fold).
    pub fn separates_entities(&self) -> bool {
        matches!(
            self,
            SplitSpec::EntityGrouped { .. } | SplitSpec::EntityKFold { .. }
        )
    }

    /// Whether every test row must come after every training row (of the split, or of
    /// each fold).
    pub fn orders_time(&self) -> bool {
        matches!(
            self,
            SplitSpec::Temporal { .. } | SplitSpec::RollingOrigin { .. }
        )
    }
}

/// How many overlapping entity ids a summary lists.
pub const OVERLAP_IDS_SHOWN: usize = 5;

/// A split: which canonical rows are test rows and which train. Every row of a single
/// split is one or the other; a rolling-origin fold also leaves rows out (those after its
/// test window).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    is_test: Vec<bool>,
    /// Per row, whether it trains; `None` when every non-test row does.
    in_train: Option<Vec<bool>>,
}

impl Split {
    /// A split from a test-membership mask over the canonical rows; every other row trains.
    pub fn from_mask(is_test: Vec<bool>) -> Split {
        Split {
            is_test,
            in_train: None,
        }
    }

    /// A split whose training rows are `in_train` and test rows `is_test` (disjoint); rows
    /// in neither take no part.
    pub fn with_unused(is_test: Vec<bool>, in_train: Vec<bool>) -> Split {
        debug_assert!(is_test.iter().zip(&in_train).all(|(&t, &r)| !(t && r)));
        Split {
            is_test,
            in_train: Some(in_train),
        }
    }

    /// Per canonical row, whether it is a test row.
    pub fn is_test(&self) -> &[bool] {
        &self.is_test
    }

    /// Whether canonical row `row` trains the model.
    pub fn is_train(&self, row: usize) -> bool {
        match &self.in_train {
            Some(mask) => mask[row],
            None => !self.is_test[row],
        }
    }

    /// Canonical indices of the training rows, ascending.
    pub fn train_rows(&self) -> Vec<usize> {
        (0..self.is_test.len())
            .filter(|&i| self.is_train(i))
            .collect()
    }

    /// Canonical indices of the test rows, ascending.
    pub fn test_rows(&self) -> Vec<usize> {
        (0..self.is_test.len())
            .filter(|&i| self.is_test[i])
            .collect()
    }

    /// blake3 (context `counterlab 2026-11 membership v1`) of the row count and one byte
    /// per canonical row (1 = test, 0 = train, 2 = neither: only a rolling-origin fold
    /// has such rows).
    pub fn membership_hash(&self) -> String {
        let mut hasher = HashKind::Membership.hasher();
        hasher.update(&(self.is_test.len() as u64).to_le_bytes());
        let bytes: Vec<u8> = (0..self.is_test.len())
            .map(|i| match (self.is_test[i], self.is_train(i)) {
                (true, _) => 1,
                (false, true) => 0,
                (false, false) => 2,
            })
            .collect();
        hasher.update(&bytes);
        hasher.finalize().to_hex().to_string()
    }
}

/// `ceil(fraction · n)` computed exactly enough: the product is rounded once, then ceiled.
fn ceil_fraction(fraction: f64, n: usize) -> usize {
    let product = fraction * n as f64;
    let k = product.ceil();
    k as usize
}

/// The test entities of an `entity_grouped` split: `ceil(fraction · entities)` drawn
/// uniformly from the seed's own stream.
fn grouped_test_entities(table: &Table, test_fraction: f64, seed: u64) -> Vec<bool> {
    draw_test(
        table.n_entities(),
        test_fraction,
        seed,
        "split/entity_grouped",
    )
}

/// `ceil(fraction · n)` of `n` items marked test: the first ones of a uniform shuffle of
/// `0..n` from the seed's stream `stream`.
fn draw_test(n: usize, fraction: f64, seed: u64, stream: &str) -> Vec<bool> {
    let n_test = ceil_fraction(fraction, n);
    let mut order: Vec<usize> = (0..n).collect();
    rng::shuffle(&mut order, &mut rng::stream(seed, stream));
    let mut is_test = vec![false; n];
    for &i in &order[..n_test.min(n)] {
        is_test[i] = true;
    }
    is_test
}

/// `entity_overlap`: the grouped split's test entities (same stream, so `overlap` = 0 is
/// exactly `entity_grouped`), then `ceil(overlap · test entities)` of them, drawn uniformly,
/// move half their rows (rounded down, drawn uniformly) into training. Every draw comes
/// from the seed's `split/entity_overlap` stream in canonical entity and row order.
fn entity_overlap(
    table: &Table,
    test_fraction: f64,
    overlap: f64,
    seed: u64,
    arm_path: &JsonPath,
) -> Result<Vec<bool>> {
    let entity_is_test = grouped_test_entities(table, test_fraction, seed);
    let mut is_test: Vec<bool> = table
        .entity_of_row()
        .iter()
        .map(|&e| entity_is_test[e as usize])
        .collect();
    let mut rows_of: Vec<Vec<usize>> = vec![Vec::new(); table.n_entities()];
    for (row, &e) in table.entity_of_row().iter().enumerate() {
        rows_of[e as usize].push(row);
    }
    let mut test_entities: Vec<usize> = (0..table.n_entities())
        .filter(|&e| entity_is_test[e])
        .collect();
    let n_overlap = ceil_fraction(overlap, test_entities.len()).min(test_entities.len());
    let mut stream = rng::stream(seed, "split/entity_overlap");
    rng::shuffle(&mut test_entities, &mut stream);
    let mut chosen = test_entities[..n_overlap].to_vec();
    chosen.sort_unstable();
    for e in chosen {
        let mut rows = rows_of[e].clone();
        if rows.len() < 2 {
            return Err(Error::experiment(
                arm_path.key("overlap"),
                format!(
                    "entity {:?} has one row: it cannot have rows in both training and test",
                    table.entity_ids()[e]
                ),
            ));
        }
        rng::shuffle(&mut rows, &mut stream);
        for &row in &rows[..rows.len() / 2] {
            is_test[row] = false;
        }
    }
    Ok(is_test)
}

/// The first time value of the `temporal` split's test rows: walking the distinct time
/// values from the latest down, whole values are taken until at least
/// `ceil(test_fraction · rows)` rows are (`i64::MAX` for an empty column).
pub(crate) fn latest_values_cutoff(time: &[i64], test_fraction: f64) -> i64 {
    let wanted = ceil_fraction(test_fraction, time.len());
    let mut distinct: Vec<i64> = time.to_vec();
    distinct.sort_unstable();
    let mut cutoff = i64::MAX;
    let mut taken = 0usize;
    let mut i = distinct.len();
    while taken < wanted && i > 0 {
        let t = distinct[i - 1];
        while i > 0 && distinct[i - 1] == t {
            i -= 1;
            taken += 1;
        }
        cutoff = t;
    }
    cutoff
}

/// Computes an arm's split. `arm_path` (`$.arms[i].split`) names the arm in errors.
pub fn split(table: &Table, spec: &SplitSpec, seed: u64, arm_path: &JsonPath) -> Result<Split> {
    let n = table.n_rows();
    let is_test = match spec {
        SplitSpec::RandomRows { test_fraction } => {
            draw_test(n, *test_fraction, seed, "split/random_rows")
        }
        SplitSpec::EntityGrouped { test_fraction } => {
            let entity_is_test = grouped_test_entities(table, *test_fraction, seed);
            table
                .entity_of_row()
                .iter()
                .map(|&e| entity_is_test[e as usize])
                .collect()
        }
        SplitSpec::EntityOverlap {
            test_fraction,
            overlap,
        } => entity_overlap(table, *test_fraction, *overlap, seed, arm_path)?,
        SplitSpec::Temporal { test_fraction } => {
            let time = table.time().ok_or_else(|| {
                Error::experiment(arm_path.key("kind"), "the pack has no time column")
            })?;
            let cutoff = latest_values_cutoff(time, *test_fraction);
            time.iter().map(|&t| t >= cutoff).collect()
        }
        SplitSpec::KFold { .. }
        | SplitSpec::EntityKFold { .. }
        | SplitSpec::RollingOrigin { .. } => {
            return Err(Error::experiment(
                arm_path.key("kind"),
                "a cross-validation split has folds, not one train/test split (split::folds)",
            ))
        }
        SplitSpec::Predefined { column } => {
            let values = table.extra_column(column).ok_or_else(|| {
                Error::experiment(
                    arm_path.key("column"),
                    format!("the fixture has no column {column:?}"),
                )
            })?;
            let mut is_test = Vec::with_capacity(n);
            for (row, value) in values.iter().enumerate() {
                let flag = match value {
                    Some("1" | "true" | "True" | "TRUE") => true,
                    Some("0" | "false" | "False" | "FALSE") => false,
                    other => {
                        // `1.0`/`0.0`: a 0/1 column exported as floats (pandas after a
                        // NaN, R's numeric); say so rather than only "found 1.0".
                        let hint = match other.and_then(|t| t.trim().parse::<f64>().ok()) {
                            Some(v) if v == 0.0 || v == 1.0 => ": a 0/1 column written as floats; write it as integers (pandas: df[col].astype(int); R: as.integer)",
                            _ => "",
                        };
                        return Err(Error::experiment(
                            arm_path.key("column"),
                            format!(
                                "column {column:?}, row {}: expected 0/1 or false/true, found {}{hint}",
                                table.source_rows()[row],
                                other.map_or("an empty cell".to_owned(), |t| format!("{t:?}"))
                            ),
                        ));
                    }
                };
                is_test.push(flag);
            }
            is_test
        }
    };
    let n_test = is_test.iter().filter(|&&t| t).count();
    if n_test == 0 || n_test == n {
        return Err(Error::experiment(
            arm_path.clone(),
            format!(
                "the split leaves {} rows for training and {n_test} for test",
                n - n_test
            ),
        ));
    }
    Ok(Split::from_mask(is_test))
}

/// Counts and the membership hash of a split.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SplitSummary {
    /// The split kind.
    pub kind: String,
    /// Training rows.
    pub train_rows: u64,
    /// Test rows.
    pub test_rows: u64,
    /// Distinct entities among training rows.
    pub train_entities: u64,
    /// Distinct entities among test rows.
    pub test_entities: u64,
    /// Positive training rows.
    pub train_positives: u64,
    /// Positive test rows.
    pub test_positives: u64,
    /// See [`Split::membership_hash`].
    pub membership_hash: String,
}

/// What train and test share.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Overlap {
    /// Entities with rows on both sides.
    pub entities: u64,
    /// The first few of them, in canonical (byte) order.
    pub first_entities: Vec<String>,
    /// Test rows whose used-feature vector equals some training row's, bit for bit.
    pub duplicate_feature_rows: u64,
    /// Test rows whose time is not strictly after every training row's time (null when
    /// the pack has no time column).
    pub temporal_rows: Option<u64>,
    /// Test rows that an oversampling step fitted on all rows made a training row from (a
    /// copy of the row, or a SMOTE point between it and a neighbour): rows the model
    /// trained on a copy or a blend of. Present only for an arm that oversamples.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oversampled_test_rows: Option<u64>,
}

/// Summarises a split, with the table's own labels.
pub fn summarize(table: &Table, split: &Split, kind: &str) -> SplitSummary {
    summarize_labels(table, split, kind, table.labels())
}

/// Summarises a split, counting positives under `labels` (one per row of `table`: the
/// table's own or a permutation of them).
pub fn summarize_labels(table: &Table, split: &Split, kind: &str, labels: &[bool]) -> SplitSummary {
    summary(
        table,
        kind,
        labels,
        |row| split.is_train(row),
        |row| split.is_test()[row],
        split.membership_hash(),
    )
}

/// Summarises a cross-validation arm's folds under `labels`: `test_*` count the rows with
/// an out-of-fold prediction (each row once), `train_*` the rows that train at least one
/// fold; the membership hash is the fold assignment's. `splits` are the repeat's folds,
/// in fold order.
pub fn summarize_folds(
    table: &Table,
    assignment: &FoldAssignment,
    splits: &[&Split],
    kind: &str,
    labels: &[bool],
) -> SplitSummary {
    summary(
        table,
        kind,
        labels,
        |row| splits.iter().any(|split| split.is_train(row)),
        |row| assignment.fold_of_row()[row].is_some(),
        assignment.membership_hash(),
    )
}

/// Rows, positives and distinct entities on each side; a row may be on both (a row of a
/// cross-validation arm trains some folds and is tested by one) or on neither.
fn summary(
    table: &Table,
    kind: &str,
    labels: &[bool],
    trains: impl Fn(usize) -> bool,
    tested: impl Fn(usize) -> bool,
    membership_hash: String,
) -> SplitSummary {
    let mut train_entities = BTreeSet::new();
    let mut test_entities = BTreeSet::new();
    let (mut train_rows, mut test_rows, mut train_pos, mut test_pos) = (0u64, 0u64, 0u64, 0u64);
    for (row, &entity) in table.entity_of_row().iter().enumerate() {
        let positive = u64::from(labels[row]);
        if tested(row) {
            test_rows += 1;
            test_pos += positive;
            test_entities.insert(entity);
        }
        if trains(row) {
            train_rows += 1;
            train_pos += positive;
            train_entities.insert(entity);
        }
    }
    SplitSummary {
        kind: kind.to_owned(),
        train_rows,
        test_rows,
        train_entities: train_entities.len() as u64,
        test_entities: test_entities.len() as u64,
        train_positives: train_pos,
        test_positives: test_pos,
        membership_hash,
    }
}

/// Per entity, whether it has rows on both sides of `split`.
fn entities_on_both_sides(table: &Table, split: &Split) -> Vec<bool> {
    let n_entities = table.n_entities();
    let mut in_train = vec![false; n_entities];
    let mut in_test = vec![false; n_entities];
    for (row, &is_test) in split.is_test().iter().enumerate() {
        let e = table.entity_of_row()[row] as usize;
        if is_test {
            in_test[e] = true;
        } else if split.is_train(row) {
            in_train[e] = true;
        }
    }
    (0..n_entities).map(|e| in_train[e] && in_test[e]).collect()
}

/// The overlap's entity fields from a per-entity "shared" flag.
fn shared_entities(table: &Table, shared: &[bool]) -> (u64, Vec<String>) {
    let ids: Vec<usize> = (0..shared.len()).filter(|&e| shared[e]).collect();
    (
        ids.len() as u64,
        ids.iter()
            .take(OVERLAP_IDS_SHOWN)
            .map(|&e| table.entity_ids()[e].clone())
            .collect(),
    )
}

/// Test entities with no training row whose id looks like a training entity's id
/// ([`look_alike`](crate::entity_key::look_alike), either tier; distinct text): a possible leak that
/// [`Overlap`] does not count, since ids stay distinct entities for splits. Not part of a
/// payload: `audit` reports it and the verifier turns it into a caveat.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LookAlikes {
    /// Entities with test rows and no training row (in some fold, for folds) whose id looks
    /// like the id of an entity with training rows (in that fold).
    pub entities: u64,
    /// Their test rows (summed over the folds).
    pub test_rows: u64,
    /// The first [`OVERLAP_IDS_SHOWN`] pairs, in byte order of (test, train).
    pub first_pairs: Vec<LookAlikePair>,
    /// How many distinct pairs there are.
    pub pairs: u64,
}

/// A test entity's id and a training entity's id that look alike.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LookAlikePair {
    /// The id of the entity with test rows and no training row.
    pub test: String,
    /// The id of the entity with training rows it looks like.
    pub train: String,
}

/// The table's groups of distinct entity ids that look alike, as entity indices: what
/// [`look_alikes`] reads (computed once per table: three keys per entity are the cost).
pub fn look_alike_groups(table: &Table) -> Vec<Vec<usize>> {
    let ids = table.entity_ids();
    let index: std::collections::BTreeMap<&str, usize> = ids
        .iter()
        .enumerate()
        .map(|(e, id)| (id.as_str(), e))
        .collect();
    crate::entity_key::look_alike_groups(ids.iter().map(String::as_str))
        .into_iter()
        .map(|group| group.into_iter().map(|id| index[id]).collect())
        .collect()
}

/// The [`LookAlikes`] of one split, or of the folds of a cross-validation arm pooled;
/// `groups` are the table's [`look_alike_groups`].
pub fn look_alikes(table: &Table, groups: &[Vec<usize>], splits: &[&Split]) -> LookAlikes {
    let ids = table.entity_ids();
    // Only entities in a look-alike group can match across the sides: usually none, so
    // the splits are not even read.
    if groups.is_empty() {
        return LookAlikes::default();
    }
    let mut flagged = vec![false; table.n_entities()];
    let mut pairs: BTreeSet<(&str, &str)> = BTreeSet::new();
    let mut test_rows = 0;
    for split in splits {
        let n_entities = table.n_entities();
        let (mut in_train, mut test_rows_of) = (vec![false; n_entities], vec![0u64; n_entities]);
        for (row, &is_test) in split.is_test().iter().enumerate() {
            let e = table.entity_of_row()[row] as usize;
            if is_test {
                test_rows_of[e] += 1;
            } else if split.is_train(row) {
                in_train[e] = true;
            }
        }
        // An id can be in two groups (one per loose key): its test rows count once per
        // split.
        let mut matched = vec![false; n_entities];
        for group in groups {
            for &test in group
                .iter()
                .filter(|&&e| test_rows_of[e] > 0 && !in_train[e])
            {
                for &train in group.iter().filter(|&&e| in_train[e]) {
                    pairs.insert((&ids[test], &ids[train]));
                    matched[test] = true;
                }
            }
        }
        for (e, &matched) in matched.iter().enumerate() {
            if matched {
                flagged[e] = true;
                test_rows += test_rows_of[e];
            }
        }
    }
    LookAlikes {
        entities: flagged.iter().filter(|&&f| f).count() as u64,
        test_rows,
        first_pairs: pairs
            .iter()
            .take(OVERLAP_IDS_SHOWN)
            .map(|&(test, train)| LookAlikePair {
                test: test.to_owned(),
                train: train.to_owned(),
            })
            .collect(),
        pairs: pairs.len() as u64,
    }
}

/// What the folds of a cross-validation arm share between their train and test rows, from
/// each fold's own [`overlap`]: entities on both sides of at least one fold (the first few
/// in canonical order), and the duplicated and temporally overlapping test rows summed
/// over the folds.
pub fn pooled_overlap(table: &Table, splits: &[&Split], overlaps: &[Overlap]) -> Overlap {
    let mut shared = vec![false; table.n_entities()];
    for split in splits {
        for (slot, both) in shared.iter_mut().zip(entities_on_both_sides(table, split)) {
            *slot |= both;
        }
    }
    let (entities, first_entities) = shared_entities(table, &shared);
    Overlap {
        entities,
        first_entities,
        duplicate_feature_rows: overlaps.iter().map(|o| o.duplicate_feature_rows).sum(),
        temporal_rows: overlaps
            .iter()
            .map(|o| o.temporal_rows)
            .sum::<Option<u64>>(),
        oversampled_test_rows: overlaps
            .iter()
            .map(|o| o.oversampled_test_rows)
            .sum::<Option<u64>>(),
    }
}

/// Measures what train and test share, on the features the model uses.
pub fn overlap(table: &Table, split: &Split, features: &[String]) -> Overlap {
    let (entities, first_entities) = shared_entities(table, &entities_on_both_sides(table, split));

    let columns = table.feature_columns(features);
    // Rows compared by the bits of their feature values, lexicographically; the training
    // rows sorted once, each test row looked up by binary search (no key allocated).
    let by_features = |a: usize, b: usize| {
        let bits = |row: usize| columns.iter().map(move |c| float_bits(c[row]));
        bits(a).cmp(bits(b))
    };
    let mut train_rows = split.train_rows();
    train_rows.sort_unstable_by(|&a, &b| by_features(a, b));
    let duplicate_feature_rows = split
        .test_rows()
        .into_iter()
        .filter(|&row| {
            train_rows
                .binary_search_by(|&t| by_features(t, row))
                .is_ok()
        })
        .count() as u64;

    let temporal_rows = table.time().map(|time| {
        let latest_train = split.train_rows().into_iter().map(|r| time[r]).max();
        match latest_train {
            Some(latest) => split
                .test_rows()
                .into_iter()
                .filter(|&r| time[r] <= latest)
                .count() as u64,
            None => 0,
        }
    });

    Overlap {
        entities,
        first_entities,
        duplicate_feature_rows,
        temporal_rows,
        oversampled_test_rows: None,
    }
}
