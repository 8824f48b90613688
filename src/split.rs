//! Train/test splits over the canonical table, their summaries and their overlap.
//!
//! Every split is a pure function of (canonical table, split spec, seed): the random ones
//! draw from the ChaCha20 stream `split/<kind>` of the experiment's seed, so two arms with
//! the same spec get the same split and no arm's draw depends on another's.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::canon::{float_bits, HashKind};
use crate::error::{Error, Result};
use crate::rng;
use crate::table::Table;

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
}

impl SplitSpec {
    /// The kind as written in JSON.
    pub fn kind(&self) -> &'static str {
        match self {
            SplitSpec::RandomRows { .. } => "random_rows",
            SplitSpec::EntityGrouped { .. } => "entity_grouped",
            SplitSpec::EntityOverlap { .. } => "entity_overlap",
            SplitSpec::Temporal { .. } => "temporal",
            SplitSpec::Predefined { .. } => "predefined",
        }
    }
}

/// How many overlapping entity ids a summary lists.
pub const OVERLAP_IDS_SHOWN: usize = 5;

/// A split: which canonical rows are test rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    is_test: Vec<bool>,
}

impl Split {
    /// A split from a test-membership mask over the canonical rows.
    pub fn from_mask(is_test: Vec<bool>) -> Split {
        Split { is_test }
    }

    /// Per canonical row, whether it is a test row.
    pub fn is_test(&self) -> &[bool] {
        &self.is_test
    }

    /// Canonical indices of the training rows, ascending.
    pub fn train_rows(&self) -> Vec<usize> {
        (0..self.is_test.len())
            .filter(|&i| !self.is_test[i])
            .collect()
    }

    /// Canonical indices of the test rows, ascending.
    pub fn test_rows(&self) -> Vec<usize> {
        (0..self.is_test.len())
            .filter(|&i| self.is_test[i])
            .collect()
    }

    /// blake3 (context `counterlab 2026-11 membership v1`) of the row count and one byte
    /// per canonical row (1 = test).
    pub fn membership_hash(&self) -> String {
        let mut hasher = HashKind::Membership.hasher();
        hasher.update(&(self.is_test.len() as u64).to_le_bytes());
        let bytes: Vec<u8> = self.is_test.iter().map(|&t| u8::from(t)).collect();
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
    arm_path: &str,
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
                format!("{arm_path}.overlap"),
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

/// Computes an arm's split. `arm_path` (`$.arms[i].split`) names the arm in errors.
pub fn split(table: &Table, spec: &SplitSpec, seed: u64, arm_path: &str) -> Result<Split> {
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
                Error::experiment(format!("{arm_path}.kind"), "the pack has no time column")
            })?;
            let wanted = ceil_fraction(*test_fraction, n);
            let mut distinct: Vec<i64> = time.to_vec();
            distinct.sort_unstable();
            // Walk time values from the latest down, taking whole values, until enough rows.
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
            time.iter().map(|&t| t >= cutoff).collect()
        }
        SplitSpec::Predefined { column } => {
            let values = table.extra_column(column).ok_or_else(|| {
                Error::experiment(
                    format!("{arm_path}.column"),
                    format!("the fixture has no column {column:?}"),
                )
            })?;
            let mut is_test = Vec::with_capacity(n);
            for (row, value) in values.iter().enumerate() {
                let flag = match value {
                    Some("1" | "true" | "True" | "TRUE") => true,
                    Some("0" | "false" | "False" | "FALSE") => false,
                    other => {
                        return Err(Error::experiment(
                            format!("{arm_path}.column"),
                            format!(
                                "column {column:?}, row {}: expected 0/1 or false/true, found {}",
                                table.source_rows()[row],
                                other.map_or("an empty cell".to_owned(), |t| format!("{t:?}"))
                            ),
                        ))
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
            arm_path,
            format!(
                "the split leaves {} rows for training and {n_test} for test",
                n - n_test
            ),
        ));
    }
    Ok(Split { is_test })
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
}

/// Summarises a split, with the table's own labels.
pub fn summarize(table: &Table, split: &Split, kind: &str) -> SplitSummary {
    summarize_labels(table, split, kind, table.labels())
}

/// Summarises a split, counting positives under `labels` (one per row of `table`: the
/// table's own or a permutation of them).
pub fn summarize_labels(table: &Table, split: &Split, kind: &str, labels: &[bool]) -> SplitSummary {
    let mut train_entities = BTreeSet::new();
    let mut test_entities = BTreeSet::new();
    let (mut train_rows, mut test_rows, mut train_pos, mut test_pos) = (0u64, 0u64, 0u64, 0u64);
    for (row, &is_test) in split.is_test().iter().enumerate() {
        let entity = table.entity_of_row()[row];
        let positive = u64::from(labels[row]);
        if is_test {
            test_rows += 1;
            test_pos += positive;
            test_entities.insert(entity);
        } else {
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
        membership_hash: split.membership_hash(),
    }
}

/// Measures what train and test share, on the features the model uses.
pub fn overlap(table: &Table, split: &Split, features: &[String]) -> Overlap {
    let n_entities = table.n_entities();
    let mut in_train = vec![false; n_entities];
    let mut in_test = vec![false; n_entities];
    for (row, &is_test) in split.is_test().iter().enumerate() {
        let e = table.entity_of_row()[row] as usize;
        if is_test {
            in_test[e] = true;
        } else {
            in_train[e] = true;
        }
    }
    let shared: Vec<usize> = (0..n_entities)
        .filter(|&e| in_train[e] && in_test[e])
        .collect();

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
        entities: shared.len() as u64,
        first_entities: shared
            .iter()
            .take(OVERLAP_IDS_SHOWN)
            .map(|&e| table.entity_ids()[e].clone())
            .collect(),
        duplicate_feature_rows,
        temporal_rows,
    }
}
