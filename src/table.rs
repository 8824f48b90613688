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
    pub(crate) label_text: Arc<Vec<String>>,
    pub(crate) feature_names: Arc<Vec<String>>,
    /// Column-major: `features[k][row]`.
    pub(crate) features: Arc<Vec<Vec<f64>>>,
    pub(crate) time: Option<Arc<Vec<i64>>>,
    /// Columns the manifest does not name, as raw text (`None` = empty cell).
    pub(crate) extra: Arc<BTreeMap<String, Vec<Option<String>>>>,
    /// 1-based data row in the source file, for error messages only (never hashed).
    pub(crate) source_row: Arc<Vec<usize>>,
}

/// One row as read from a file, before canonical ordering.
#[derive(Debug, Clone)]
pub(crate) struct RawRow {
    pub(crate) entity: String,
    pub(crate) label_text: String,
    pub(crate) positive: bool,
    pub(crate) features: Vec<f64>,
    pub(crate) time: Option<i64>,
    pub(crate) extra: Vec<Option<String>>,
    pub(crate) source_row: usize,
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
    /// Builds the canonical table from rows in file order.
    pub(crate) fn from_rows(
        feature_names: Vec<String>,
        has_time: bool,
        extra_names: Vec<String>,
        rows: Vec<RawRow>,
    ) -> Table {
        // Canonical order: (entity id bytes, time, blake3 of the row's typed values), each
        // sort stable. The rows stay where they are and their indices are sorted: by the
        // entity's rank in byte order (a `BTreeMap` of `&str` orders keys by their bytes, so
        // equal ranks are equal ids and the order is that of comparing the ids) and the
        // time. Only rows that tie on (entity, time) need the hash, so only they get one.
        let n = rows.len();
        let entity_rank: Vec<u32> = {
            let mut first_seen: BTreeMap<&str, u32> = BTreeMap::new();
            let seen_as: Vec<u32> = rows
                .iter()
                .map(|row| {
                    let next = first_seen.len() as u32;
                    *first_seen.entry(row.entity.as_str()).or_insert(next)
                })
                .collect();
            let mut rank_of = vec![0u32; first_seen.len()];
            for (rank, &seen) in first_seen.values().enumerate() {
                rank_of[seen as usize] = rank as u32;
            }
            seen_as
                .into_iter()
                .map(|seen| rank_of[seen as usize])
                .collect()
        };
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&i| (entity_rank[i], rows[i].time));
        for tied in order
            .chunk_by_mut(|&a, &b| entity_rank[a] == entity_rank[b] && rows[a].time == rows[b].time)
        {
            if tied.len() > 1 {
                tied.sort_by_cached_key(|&i| *row_hash(&rows[i]).as_bytes());
            }
        }

        let mut rows = rows;
        let mut entity_ids: Vec<String> = Vec::new();
        let mut entity_of_row = Vec::with_capacity(n);
        let mut label = Vec::with_capacity(n);
        let mut label_text = Vec::with_capacity(n);
        let mut features = vec![Vec::with_capacity(n); feature_names.len()];
        let mut time = has_time.then(|| Vec::with_capacity(n));
        let mut extra: Vec<Vec<Option<String>>> = vec![Vec::with_capacity(n); extra_names.len()];
        let mut source_row = Vec::with_capacity(n);
        for i in order {
            let row = &mut rows[i];
            if entity_ids.last() != Some(&row.entity) {
                entity_ids.push(std::mem::take(&mut row.entity));
            }
            entity_of_row.push((entity_ids.len() - 1) as u32);
            label.push(row.positive);
            label_text.push(std::mem::take(&mut row.label_text));
            for (column, value) in features.iter_mut().zip(&row.features) {
                column.push(*value);
            }
            if let (Some(column), Some(t)) = (time.as_mut(), row.time) {
                column.push(t);
            }
            for (column, value) in extra.iter_mut().zip(&mut row.extra) {
                column.push(value.take());
            }
            source_row.push(row.source_row);
        }
        Table {
            entity_ids: Arc::new(entity_ids),
            entity_of_row: Arc::new(entity_of_row),
            label,
            label_text: Arc::new(label_text),
            feature_names: Arc::new(feature_names),
            features: Arc::new(features),
            time: time.map(Arc::new),
            extra: Arc::new(extra_names.into_iter().zip(extra).collect()),
            source_row: Arc::new(source_row),
        }
    }

    /// The table restricted to `rows` (canonical indices, ascending, distinct): canonical
    /// order is kept and entities left without rows disappear, so the result is the
    /// canonical table of those rows.
    pub fn subset(&self, rows: &[usize]) -> Table {
        debug_assert!(rows.windows(2).all(|w| w[0] < w[1]), "rows ascending");
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
            label_text: Arc::new(rows.iter().map(|&r| self.label_text[r].clone()).collect()),
            feature_names: Arc::clone(&self.feature_names),
            features: Arc::new(self.features.iter().map(|c| pick(c)).collect()),
            time: self
                .time
                .as_ref()
                .map(|t| Arc::new(rows.iter().map(|&r| t[r]).collect())),
            extra: Arc::new(
                self.extra
                    .iter()
                    .map(|(name, column)| {
                        (
                            name.clone(),
                            rows.iter().map(|&r| column[r].clone()).collect(),
                        )
                    })
                    .collect(),
            ),
            source_row: Arc::new(rows.iter().map(|&r| self.source_row[r]).collect()),
        }
    }

    /// Number of rows.
    pub fn n_rows(&self) -> usize {
        self.label.len()
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

    /// The pack's feature names in pack order.
    pub fn feature_names(&self) -> &[String] {
        &self.feature_names
    }

    /// One feature column by name.
    pub fn feature(&self, name: &str) -> Option<&[f64]> {
        let k = self.feature_names.iter().position(|f| f == name)?;
        Some(&self.features[k])
    }

    /// The time column, if the pack has one.
    pub fn time(&self) -> Option<&[i64]> {
        self.time.as_deref().map(Vec::as_slice)
    }

    /// A column the manifest does not name, as raw text.
    pub fn extra_column(&self, name: &str) -> Option<&[Option<String>]> {
        self.extra.get(name).map(Vec::as_slice)
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
        let mut labels = self.label.clone();
        let mut rng = rng::stream(seed, "labels/rows");
        rng::shuffle(&mut labels, &mut rng);
        self.with_labels(labels)
    }

    /// Entity-level label permutation (Yagis et al. 2021): each entity's label (that of its
    /// first row in canonical order; the label is meant to be a property of the entity) is
    /// shuffled across entities, and every row of an entity gets its entity's new label.
    pub fn permute_labels_by_entity(&self, seed: u64) -> Table {
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
        let labels = self
            .entity_of_row
            .iter()
            .map(|&e| entity_label[e as usize])
            .collect();
        self.with_labels(labels)
    }

    /// The table rebuilt from its rows presented in a seeded random order (ChaCha20 stream
    /// `"rows/reorder"`): what loading a row-shuffled copy of the file gives. The result
    /// must equal `self`; the verifier's row-order mutation checks that it does.
    pub fn reloaded_in_shuffled_order(&self, seed: u64) -> Table {
        let n = self.n_rows();
        let mut order: Vec<usize> = (0..n).collect();
        rng::shuffle(&mut order, &mut rng::stream(seed, "rows/reorder"));
        let extra_names: Vec<String> = self.extra.keys().cloned().collect();
        let rows = order
            .into_iter()
            .map(|i| RawRow {
                entity: self.entity_ids[self.entity_of_row[i] as usize].clone(),
                label_text: self.label_text[i].clone(),
                positive: self.label[i],
                features: self.features.iter().map(|column| column[i]).collect(),
                time: self.time.as_ref().map(|t| t[i]),
                extra: self
                    .extra
                    .values()
                    .map(|column| column[i].clone())
                    .collect(),
                source_row: self.source_row[i],
            })
            .collect();
        Table::from_rows(
            self.feature_names.to_vec(),
            self.time.is_some(),
            extra_names,
            rows,
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
        self.with_labels(labels)
    }

    /// A blake3 hash of the typed content in canonical order (independent of the file's
    /// row order, formatting and unused columns' order).
    pub fn content_hash(&self) -> String {
        let mut hasher = HashKind::Table.hasher();
        hasher.update(&(self.n_rows() as u64).to_le_bytes());
        for name in self.feature_names.iter() {
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
fn row_hash(row: &RawRow) -> blake3::Hash {
    let mut hasher = HashKind::Row.hasher();
    hash_str(&mut hasher, &row.entity);
    hash_str(&mut hasher, &row.label_text);
    for value in &row.features {
        hasher.update(&float_bits(*value).to_le_bytes());
    }
    if let Some(t) = row.time {
        hasher.update(&t.to_le_bytes());
    }
    for value in &row.extra {
        match value {
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
