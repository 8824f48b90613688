//! The fixture table in canonical row order: typed columns, nothing else.
//!
//! Rows are sorted by (entity id bytes, time, blake3 of the row's typed values). Every
//! result downstream depends only on this order, so shuffling the file's rows cannot
//! change a single bit of any result; rows that tie on all three keys are identical in
//! every typed value and therefore interchangeable.

use std::collections::BTreeMap;
use std::sync::Arc;

use rand_chacha::rand_core::RngCore;

use crate::canon::{float_bits, HashKind};
use crate::rng;

mod layout;
pub use layout::FeatureLayout;

/// A typed fixture table in canonical row order.
///
/// Everything but the labels sits behind `Arc`: label permutations (hundreds per
/// verification) copy only the label column.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub(crate) entity_ids: Arc<Vec<String>>,
    pub(crate) entity_of_row: Arc<Vec<u32>>,
    pub(crate) label: Vec<bool>,
    /// The label cells as written (kept so a reordered copy canonicalises identically).
    pub(crate) label_text: Arc<TextColumn>,
    /// The features and the model columns each becomes (one-hot for a categorical one).
    pub(crate) layout: Arc<FeatureLayout>,
    /// Column-major, one per layout column: `features[k][row]`.
    pub(crate) features: Arc<Vec<Vec<f64>>>,
    pub(crate) time: Option<Arc<Vec<i64>>>,
    /// Columns the manifest does not name, as raw text (an empty cell is missing).
    pub(crate) extra: Arc<BTreeMap<String, TextColumn>>,
    /// 1-based data row in the source file, for error messages only (never hashed).
    pub(crate) source_row: Arc<Vec<usize>>,
}

/// A column of text cells stored in one buffer (4 bytes of overhead a cell, not a
/// `String` each): what keeps a fixture's memory within a small multiple of its bytes.
/// An empty cell is *missing*.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TextColumn {
    text: String,
    /// Cell `i` is `text[ends[i - 1]..ends[i]]` (from 0 for `i = 0`).
    ends: Vec<u32>,
}

impl TextColumn {
    /// An empty column with room for `rows` cells.
    pub(crate) fn with_capacity(rows: usize) -> TextColumn {
        TextColumn {
            text: String::new(),
            ends: Vec::with_capacity(rows),
        }
    }

    /// Appends a cell. The loader's byte budget (below 4 GiB) keeps offsets in `u32`.
    pub(crate) fn push(&mut self, cell: &str) {
        self.text.push_str(cell);
        self.ends
            .push(u32::try_from(self.text.len()).expect("a text column holds less than 4 GiB"));
    }

    /// The number of cells.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether the column has no cells.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Cell `i` as written (`""` for a missing cell); panics if `i >= len()`.
    pub fn text(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.text[start..self.ends[i] as usize]
    }

    /// Cell `i`, `None` when it is empty (missing).
    pub fn get(&self, i: usize) -> Option<&str> {
        Some(self.text(i)).filter(|t| !t.is_empty())
    }

    /// Every cell in order (`None` = missing).
    pub fn iter(&self) -> impl Iterator<Item = Option<&str>> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    /// The cells at `rows`, in that order.
    pub(crate) fn gather(&self, rows: &[usize]) -> TextColumn {
        let mut out = TextColumn::with_capacity(rows.len());
        for &r in rows {
            out.push(self.text(r));
        }
        out
    }
}

/// A fixture's typed columns in file order, before canonical ordering: what the loader
/// reads and what a row-order mutation presents again in another order.
#[derive(Debug, Clone, Default)]
pub(crate) struct FileColumns {
    pub(crate) entity: TextColumn,
    pub(crate) label_text: TextColumn,
    pub(crate) positive: Vec<bool>,
    /// Column-major, one per layout column (a categorical feature's one-hot columns).
    pub(crate) features: Vec<Vec<f64>>,
    pub(crate) time: Option<Vec<i64>>,
    /// In `extra_names` order (sorted by name).
    pub(crate) extra: Vec<TextColumn>,
    pub(crate) source_row: Vec<usize>,
}

impl FileColumns {
    fn n_rows(&self) -> usize {
        self.positive.len()
    }
}

/// A table's rows grouped by entity and its entities grouped by row count: the part of an
/// entity-block label permutation that does not depend on the seed.
#[derive(Debug, Clone)]
pub struct EntityBlocks {
    /// Every entity's rows in canonical order, entity after entity.
    rows: Vec<usize>,
    /// Entity `e`'s rows are `rows[offsets[e]..offsets[e + 1]]`.
    offsets: Vec<usize>,
    /// Entities with equal row counts, by ascending count; each group ascending.
    groups: Vec<Vec<usize>>,
}

impl EntityBlocks {
    fn rows_of(&self, entity: usize) -> &[usize] {
        &self.rows[self.offsets[entity]..self.offsets[entity + 1]]
    }
}

impl Table {
    /// Builds the canonical table from columns in file order.
    pub(crate) fn from_columns(
        layout: Arc<FeatureLayout>,
        extra_names: Vec<String>,
        columns: FileColumns,
    ) -> Table {
        // Canonical order: (entity id bytes, time, blake3 of the row's typed values), each
        // sort stable. The rows stay where they are and their indices are sorted: by the
        // entity's rank in byte order (a `BTreeMap` of `&str` orders keys by their bytes, so
        // equal ranks are equal ids and the order is that of comparing the ids) and the
        // time. Only rows that tie on (entity, time) need the hash, so only they get one.
        let n = columns.n_rows();
        let time_of = |i: usize| columns.time.as_ref().map(|t| t[i]);
        let (entity_rank, ids_in_order): (Vec<u32>, Vec<&str>) = {
            let mut first_seen: BTreeMap<&str, u32> = BTreeMap::new();
            let seen_as: Vec<u32> = (0..n)
                .map(|i| {
                    let next = first_seen.len() as u32;
                    *first_seen.entry(columns.entity.text(i)).or_insert(next)
                })
                .collect();
            let mut rank_of = vec![0u32; first_seen.len()];
            for (rank, &seen) in first_seen.values().enumerate() {
                rank_of[seen as usize] = rank as u32;
            }
            let ranks = seen_as
                .into_iter()
                .map(|seen| rank_of[seen as usize])
                .collect();
            (ranks, first_seen.into_keys().collect())
        };
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&i| (entity_rank[i], time_of(i)));
        for tied in order
            .chunk_by_mut(|&a, &b| entity_rank[a] == entity_rank[b] && time_of(a) == time_of(b))
        {
            if tied.len() > 1 {
                tied.sort_by_cached_key(|&i| *row_hash(&columns, i).as_bytes());
            }
        }

        let entity_ids: Vec<String> = ids_in_order.into_iter().map(str::to_owned).collect();
        let entity_of_row: Vec<u32> = order.iter().map(|&i| entity_rank[i]).collect();
        // Each column is gathered into canonical order and its file-order copy dropped at
        // once: building a table costs one copy of its cells plus one column, not two.
        let FileColumns {
            entity,
            label_text,
            positive,
            features,
            time,
            extra,
            source_row,
        } = columns;
        drop(entity);
        let pick = |column: Vec<f64>| -> Vec<f64> { order.iter().map(|&i| column[i]).collect() };
        Table {
            entity_ids: Arc::new(entity_ids),
            entity_of_row: Arc::new(entity_of_row),
            label: order.iter().map(|&i| positive[i]).collect(),
            label_text: Arc::new(label_text.gather(&order)),
            layout,
            features: Arc::new(features.into_iter().map(pick).collect()),
            time: time.map(|t| Arc::new(order.iter().map(|&i| t[i]).collect())),
            extra: Arc::new(
                extra_names
                    .into_iter()
                    .zip(extra.into_iter().map(|c| c.gather(&order)))
                    .collect(),
            ),
            source_row: Arc::new(order.iter().map(|&i| source_row[i]).collect()),
        }
    }

    /// The table restricted to `rows` (canonical indices, ascending, distinct): canonical
    /// order is kept and entities left without rows disappear, so the result is the
    /// canonical table of those rows.
    pub fn subset(&self, rows: &[usize]) -> Table {
        debug_assert!(rows.windows(2).all(|w| w[0] < w[1]), "rows ascending");
        self.resample(rows)
    }

    /// The table of `rows` (canonical indices, ascending, a row repeated as many times as
    /// it is drawn): an entity bootstrap's sample, in which the copies of an entity's rows
    /// stay rows of that one entity (so an entity-grouped split keeps them on one side).
    pub fn resample(&self, rows: &[usize]) -> Table {
        debug_assert!(rows.windows(2).all(|w| w[0] <= w[1]), "rows ascending");
        let mut entity_ids: Vec<String> = Vec::new();
        let mut entity_of_row = Vec::with_capacity(rows.len());
        let mut last_entity = None;
        for &row in rows {
            let e = self.entity_of_row[row];
            if last_entity != Some(e) {
                entity_ids.push(self.entity_ids[e as usize].clone());
                last_entity = Some(e);
            }
            entity_of_row.push((entity_ids.len() - 1) as u32);
        }
        let pick = |column: &[f64]| -> Vec<f64> { rows.iter().map(|&r| column[r]).collect() };
        Table {
            entity_ids: Arc::new(entity_ids),
            entity_of_row: Arc::new(entity_of_row),
            label: rows.iter().map(|&r| self.label[r]).collect(),
            label_text: Arc::new(self.label_text.gather(rows)),
            layout: Arc::clone(&self.layout),
            features: Arc::new(self.features.iter().map(|c| pick(c)).collect()),
            time: self
                .time
                .as_ref()
                .map(|t| Arc::new(rows.iter().map(|&r| t[r]).collect())),
            extra: Arc::new(
                self.extra
                    .iter()
                    .map(|(name, column)| (name.clone(), column.gather(rows)))
                    .collect(),
            ),
            source_row: Arc::new(rows.iter().map(|&r| self.source_row[r]).collect()),
        }
    }

    /// Number of rows.
    pub fn n_rows(&self) -> usize {
        self.label.len()
    }

    /// Number of columns of the file it was read from: entity, label, features, time and
    /// every other column.
    pub fn n_columns(&self) -> usize {
        2 + self.layout.sources().len() + usize::from(self.time.is_some()) + self.extra.len()
    }

    /// Number of distinct entities.
    pub fn n_entities(&self) -> usize {
        self.entity_ids.len()
    }

    /// Distinct entity ids, sorted by their bytes.
    pub fn entity_ids(&self) -> &[String] {
        &self.entity_ids
    }

    /// Per row, the index of its entity in [`Table::entity_ids`].
    pub fn entity_of_row(&self) -> &[u32] {
        &self.entity_of_row
    }

    /// Per row, whether its label is the positive class.
    pub fn labels(&self) -> &[bool] {
        &self.label
    }

    /// The label cells as written, in canonical order.
    pub fn label_texts(&self) -> &TextColumn {
        &self.label_text
    }

    /// The pack's feature names in pack order (source columns, as experiments name them).
    pub fn feature_names(&self) -> &[String] {
        self.layout.sources()
    }

    /// The features and the model columns each becomes.
    pub fn layout(&self) -> &FeatureLayout {
        &self.layout
    }

    /// One model column by its name: a numeric feature's name, or `feature=level`.
    pub fn feature(&self, column: &str) -> Option<&[f64]> {
        let k = self.layout.columns().iter().position(|c| c == column)?;
        Some(&self.features[k])
    }

    /// The model columns of the features `names`, in that order (a categorical feature
    /// gives its one-hot columns): names an experiment was checked against (panics on a
    /// name the table lacks, a bug of the caller).
    pub fn feature_columns(&self, names: &[String]) -> Vec<&[f64]> {
        self.column_indices(names)
            .into_iter()
            .map(|k| self.features[k].as_slice())
            .collect()
    }

    /// Whether any feature holds a missing value (an empty numeric cell, kept as NaN).
    pub fn has_missing_cells(&self) -> bool {
        self.features.iter().flatten().any(|v| v.is_nan())
    }

    /// A numeric feature's missing values (empty cells, kept as NaN): the first data row
    /// of the file that has one (1-based, as errors name rows) and how many there are;
    /// `None` when it has none, or is not a numeric feature of the table.
    pub fn missing_cells(&self, feature: &str) -> Option<(usize, usize)> {
        let k = self.layout.sources().iter().position(|s| s == feature)?;
        if !self.layout.levels(k).is_empty() {
            return None;
        }
        let column = &self.features[self.layout.range(k).start];
        let rows = column.iter().enumerate().filter(|(_, v)| v.is_nan());
        let first = rows.clone().map(|(r, _)| self.source_row[r]).min()?;
        Some((first, rows.count()))
    }

    /// The names of the model columns of the features `names`, in that order.
    pub fn column_names(&self, names: &[String]) -> Vec<String> {
        self.column_indices(names)
            .into_iter()
            .map(|k| self.layout.columns()[k].clone())
            .collect()
    }

    fn column_indices(&self, names: &[String]) -> Vec<usize> {
        self.layout
            .columns_of(names)
            .expect("experiment features were checked against the pack")
    }

    /// The time column, if the pack has one.
    pub fn time(&self) -> Option<&[i64]> {
        self.time.as_deref().map(Vec::as_slice)
    }

    /// A column the manifest does not name, as raw text.
    pub fn extra_column(&self, name: &str) -> Option<&TextColumn> {
        self.extra.get(name)
    }

    /// The file's 1-based data row of each canonical row (for messages only).
    pub fn source_rows(&self) -> &[usize] {
        &self.source_row
    }

    /// A copy with the labels replaced (same canonical order).
    pub fn with_labels(&self, labels: Vec<bool>) -> Table {
        assert_eq!(labels.len(), self.n_rows(), "one label per row");
        Table {
            label: labels,
            ..self.clone()
        }
    }

    /// Row-level label permutation: the labels shuffled across rows with a seeded
    /// Fisher–Yates (ChaCha20, stream `"labels/rows"`).
    pub fn permute_labels_by_row(&self, seed: u64) -> Table {
        self.with_labels(self.labels_permuted_by_row(seed))
    }

    /// The labels of [`Table::permute_labels_by_row`], without a copy of the table.
    pub fn labels_permuted_by_row(&self, seed: u64) -> Vec<bool> {
        let mut labels = self.label.clone();
        let mut rng = rng::stream(seed, "labels/rows");
        rng::shuffle(&mut labels, &mut rng);
        labels
    }

    /// Entity-level label permutation (Yagis et al. 2021): each entity's label (that of its
    /// first row in canonical order; the label is meant to be a property of the entity) is
    /// shuffled across entities, and every row of an entity gets its entity's new label.
    pub fn permute_labels_by_entity(&self, seed: u64) -> Table {
        self.with_labels(self.labels_permuted_by_entity(seed))
    }

    /// The labels of [`Table::permute_labels_by_entity`], without a copy of the table.
    pub fn labels_permuted_by_entity(&self, seed: u64) -> Vec<bool> {
        let mut entity_label = vec![false; self.n_entities()];
        let mut seen = vec![false; self.n_entities()];
        for (row, &e) in self.entity_of_row.iter().enumerate() {
            if !seen[e as usize] {
                seen[e as usize] = true;
                entity_label[e as usize] = self.label[row];
            }
        }
        let mut rng = rng::stream(seed, "labels/entities");
        rng::shuffle(&mut entity_label, &mut rng);
        self.entity_of_row
            .iter()
            .map(|&e| entity_label[e as usize])
            .collect()
    }

    /// The table rebuilt from its rows presented in a seeded random order (ChaCha20 stream
    /// `"rows/reorder"`): what loading a row-shuffled copy of the file gives. The result
    /// must equal `self`; the verifier's row-order mutation checks that it does.
    pub fn reloaded_in_shuffled_order(&self, seed: u64) -> Table {
        let n = self.n_rows();
        let mut order: Vec<usize> = (0..n).collect();
        rng::shuffle(&mut order, &mut rng::stream(seed, "rows/reorder"));
        let mut entity = TextColumn::with_capacity(n);
        for &i in &order {
            entity.push(&self.entity_ids[self.entity_of_row[i] as usize]);
        }
        let columns = FileColumns {
            entity,
            label_text: self.label_text.gather(&order),
            positive: order.iter().map(|&i| self.label[i]).collect(),
            features: self
                .features
                .iter()
                .map(|column| order.iter().map(|&i| column[i]).collect())
                .collect(),
            time: self
                .time
                .as_ref()
                .map(|t| order.iter().map(|&i| t[i]).collect()),
            extra: self.extra.values().map(|c| c.gather(&order)).collect(),
            source_row: order.iter().map(|&i| self.source_row[i]).collect(),
        };
        Table::from_columns(
            Arc::clone(&self.layout),
            self.extra.keys().cloned().collect(),
            columns,
        )
    }

    /// Whether every entity's rows share one label (the label is a property of the entity).
    pub fn labels_constant_within_entities(&self) -> bool {
        let mut first: Vec<Option<bool>> = vec![None; self.n_entities()];
        for (row, &e) in self.entity_of_row.iter().enumerate() {
            match first[e as usize] {
                None => first[e as usize] = Some(self.label[row]),
                Some(label) if label != self.label[row] => return false,
                Some(_) => {}
            }
        }
        true
    }

    /// Entity-block label permutation: entities are grouped by their row count, and within
    /// each group the entities' label *sequences* (in canonical row order) are shuffled
    /// among them (ChaCha20 stream `"labels/entity-blocks"`). Labels stay clustered within
    /// entities exactly as in the data, but no longer belong to their entity's features:
    /// the null for skill claims when the label varies within entities. Equals an
    /// entity-level permutation restricted to equal-sized entities when labels are constant.
    pub fn permute_label_blocks_by_entity(&self, seed: u64) -> Table {
        self.permute_label_blocks(&self.entity_blocks(), seed)
    }

    /// What every entity-block permutation of this table shares (see
    /// [`Table::permute_label_blocks`]): computed once, not once per permutation.
    pub fn entity_blocks(&self) -> EntityBlocks {
        let n_entities = self.n_entities();
        let mut offsets = vec![0; n_entities + 1];
        for &e in self.entity_of_row.iter() {
            offsets[e as usize + 1] += 1;
        }
        for e in 0..n_entities {
            offsets[e + 1] += offsets[e];
        }
        let mut next = offsets.clone();
        let mut rows = vec![0; self.n_rows()];
        for (row, &e) in self.entity_of_row.iter().enumerate() {
            rows[next[e as usize]] = row;
            next[e as usize] += 1;
        }
        let mut by_size: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for e in 0..n_entities {
            by_size
                .entry(offsets[e + 1] - offsets[e])
                .or_default()
                .push(e);
        }
        EntityBlocks {
            rows,
            offsets,
            groups: by_size.into_values().collect(),
        }
    }

    /// [`Table::permute_label_blocks_by_entity`] with the blocks already computed by
    /// [`Table::entity_blocks`] on this table (panics if they belong to another shape).
    pub fn permute_label_blocks(&self, blocks: &EntityBlocks, seed: u64) -> Table {
        self.with_labels(self.labels_permuted_in_blocks(blocks, seed))
    }

    /// The labels of [`Table::permute_label_blocks`], without a copy of the table.
    pub fn labels_permuted_in_blocks(&self, blocks: &EntityBlocks, seed: u64) -> Vec<bool> {
        assert_eq!(blocks.rows.len(), self.n_rows(), "blocks of this table");
        assert_eq!(
            blocks.offsets.len(),
            self.n_entities() + 1,
            "blocks of this table"
        );
        let mut rng = rng::stream(seed, "labels/entity-blocks");
        let mut labels = self.label.clone();
        let mut donors = Vec::new();
        for entities in &blocks.groups {
            donors.clone_from(entities);
            rng::shuffle(&mut donors, &mut rng);
            for (&receiver, &donor) in entities.iter().zip(&donors) {
                for (&to, &from) in blocks.rows_of(receiver).iter().zip(blocks.rows_of(donor)) {
                    labels[to] = self.label[from];
                }
            }
        }
        labels
    }

    /// A blake3 hash of the typed content in canonical order (independent of the file's
    /// row order, formatting and unused columns' order).
    pub fn content_hash(&self) -> String {
        let mut hasher = HashKind::Table.hasher();
        hasher.update(&(self.n_rows() as u64).to_le_bytes());
        // Column names: a numeric pack's feature names; `feature=level` for one-hot ones.
        for name in self.layout.columns() {
            hash_str(&mut hasher, name);
        }
        for row in 0..self.n_rows() {
            hash_str(
                &mut hasher,
                &self.entity_ids[self.entity_of_row[row] as usize],
            );
            hasher.update(&[u8::from(self.label[row])]);
            for column in self.features.iter() {
                hasher.update(&float_bits(column[row]).to_le_bytes());
            }
            if let Some(time) = &self.time {
                hasher.update(&time[row].to_le_bytes());
            }
        }
        hasher.finalize().to_hex().to_string()
    }

    /// Draws a fresh u64 from a stream; used by tests that need a seeded table shuffle.
    #[doc(hidden)]
    pub fn seeded_u64(seed: u64, stream: &str) -> u64 {
        rng::stream(seed, stream).next_u64()
    }
}

fn hash_str(hasher: &mut blake3::Hasher, s: &str) {
    hasher.update(&(s.len() as u64).to_le_bytes());
    hasher.update(s.as_bytes());
}

/// The hash that breaks ties between rows of the same entity and time: every typed value.
fn row_hash(columns: &FileColumns, i: usize) -> blake3::Hash {
    let mut hasher = HashKind::Row.hasher();
    hash_str(&mut hasher, columns.entity.text(i));
    hash_str(&mut hasher, columns.label_text.text(i));
    for column in &columns.features {
        hasher.update(&float_bits(column[i]).to_le_bytes());
    }
    if let Some(t) = &columns.time {
        hasher.update(&t[i].to_le_bytes());
    }
    for column in &columns.extra {
        match column.get(i) {
            None => {
                hasher.update(&[0]);
            }
            Some(text) => {
                hasher.update(&[1]);
                hash_str(&mut hasher, text);
            }
        }
    }
    hasher.finalize()
}
