//! `counterlab pack rehash DIR`: after the fixture was edited, record its new blake3 and
//! the levels its categorical columns now have, in `pack.toml` itself (comments, order and
//! every other key kept), then load the pack as `run` will.

use std::collections::BTreeSet;
use std::path::Path;

use super::load::{is_missing_token, LoadLimits};
use super::{parse_manifest, Pack, MAX_MANIFEST_BYTES};
use crate::csv_input::StrictCsv;
use crate::error::{Error, Result};
use crate::input;
use crate::words::Budget;

/// What a rehash changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rehash {
    /// The new `pack.toml` text (what to write back).
    pub manifest: String,
    /// The blake3 recorded before and the fixture's blake3 now.
    pub old_hash: String,
    /// The fixture's blake3 now.
    pub new_hash: String,
    /// Per categorical column whose levels changed: (column, levels added, levels removed).
    pub level_changes: Vec<(String, Vec<String>, Vec<String>)>,
}

impl Rehash {
    /// Whether `pack.toml` changes.
    pub fn changed(&self) -> bool {
        self.old_hash != self.new_hash || !self.level_changes.is_empty()
    }
}

/// Re-records the fixture's hash and categorical levels of the pack in `dir` (nothing is
/// written: the caller writes [`Rehash::manifest`]); the result loads as a pack.
pub fn rehash(dir: &Path, limits: &LoadLimits) -> Result<Rehash> {
    let manifest_path = dir.join("pack.toml");
    let bytes = input::read_within(
        &manifest_path,
        MAX_MANIFEST_BYTES,
        Budget::Fixed("a pack.toml"),
    )?;
    let text = String::from_utf8(bytes)
        .map_err(|_| Error::pack(&manifest_path, "not UTF-8 text: save the file as UTF-8"))?;
    let mut document: toml_edit::DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| Error::pack(&manifest_path, e.to_string()))?;
    // The keys rehash writes must be readable first: the rest is checked after the edit.
    let data = document
        .get("data")
        .and_then(|d| d.as_table_like())
        .ok_or_else(|| Error::pack(&manifest_path, "no [data] table"))?;
    let string = |key: &str| -> Result<String> {
        data.get(key)
            .and_then(|v| v.as_str())
            .map(str::to_owned)
            .ok_or_else(|| Error::pack(&manifest_path, format!("data.{key} must be a string")))
    };
    let file = string("file")?;
    let old_hash = string("blake3").unwrap_or_default();
    let categorical: Vec<String> = match data.get("categorical") {
        None => Vec::new(),
        Some(v) => v
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_str().map(str::to_owned))
                    .collect()
            })
            .ok_or_else(|| Error::pack(&manifest_path, "data.categorical must be a list"))?,
    };
    let data_path = dir.join(&file);
    let fixture = input::read_within(
        &data_path,
        limits.max_bytes.min(LoadLimits::MAX_BYTES_LIMIT),
        Budget::FixtureBytes,
    )?;
    let new_hash = crate::canon::file_hash(&fixture);

    let mut level_changes = Vec::new();
    let old_levels = |column: &str| -> BTreeSet<String> {
        data.get("levels")
            .and_then(|l| l.as_table_like())
            .and_then(|l| l.get(column))
            .and_then(|v| v.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut new_levels = Vec::new();
    for column in &categorical {
        let levels = levels_in(&data_path, &fixture, column, limits)?;
        let old = old_levels(column);
        let added: Vec<String> = levels.difference(&old).cloned().collect();
        let removed: Vec<String> = old.difference(&levels).cloned().collect();
        if !added.is_empty() || !removed.is_empty() {
            level_changes.push((column.clone(), added, removed));
        }
        new_levels.push((column.clone(), levels));
    }

    document["data"]["blake3"] = toml_edit::value(new_hash.clone());
    if !new_levels.is_empty() {
        let data = document["data"]
            .as_table_like_mut()
            .expect("[data] is a table (read above)");
        if data.get("levels").is_none() {
            data.insert("levels", toml_edit::Item::Table(toml_edit::Table::new()));
        }
        for (column, levels) in new_levels {
            let array: toml_edit::Array = levels.into_iter().collect();
            document["data"]["levels"][column.as_str()] = toml_edit::value(array);
        }
    }
    let manifest = document.to_string();
    parse_manifest(&manifest_path, &manifest)?;
    Pack::from_parts(dir, &manifest, &fixture, limits)?;
    Ok(Rehash {
        manifest,
        old_hash,
        new_hash,
        level_changes,
    })
}

/// The distinct non-missing cells of `column`, in byte order.
fn levels_in(
    path: &Path,
    fixture: &[u8],
    column: &str,
    limits: &LoadLimits,
) -> Result<BTreeSet<String>> {
    let mut csv = StrictCsv::new(path, fixture, limits.max_columns, limits.max_rows)?;
    let at = csv.column_for(column, Some("data.categorical in pack.toml".into()))?;
    let mut levels = BTreeSet::new();
    let mut record = csv::ByteRecord::new();
    while let Some(row) = csv.next_row(&mut record)? {
        let cell = csv.cell(&record, row, at)?;
        if !cell.is_empty() && !is_missing_token(cell) && !levels.contains(cell) {
            if levels.len() >= limits.max_columns {
                return Err(Error::data(
                    path,
                    Some(row),
                    Some(column),
                    format!(
                        "more than {} levels: a categorical column this wide is an identifier, not a category",
                        limits.max_columns
                    ),
                ));
            }
            levels.insert(cell.to_owned());
        }
    }
    Ok(levels)
}
