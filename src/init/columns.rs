//! What each column of the user's CSV can be, read in one pass: its role, a numeric or
//! categorical feature, or not used with why (the rules: docs/FORMATS.md, "init").

use std::collections::{BTreeMap, BTreeSet};

use super::{ColumnUse, MAX_LEVELS, MAX_LEVEL_BYTES};
use crate::csv_input::{excerpt, StrictCsv};
use crate::error::Result;
use crate::pack::{parse_finite, MissingValues};
use crate::words::{Opt, Text};

/// Reads every row once: each column's use in header order (its role, or what its cells
/// make it), and how many distinct cells the `label` column holds (counted up to one past
/// [`MAX_LEVELS`]: enough to tell two from more). A cell `missing` names is missing.
pub(super) fn read_columns(
    csv: &mut StrictCsv,
    role_of: &BTreeMap<usize, &'static str>,
    label: &str,
    missing: &MissingValues,
) -> Result<(Vec<(String, ColumnUse)>, usize)> {
    let mut stats: Vec<ColumnStats> = vec![ColumnStats::default(); csv.header().len()];
    let label_at = csv.column(label)?;
    let mut label_levels = BTreeSet::new();
    let mut record = csv::ByteRecord::new();
    while let Some(row) = csv.next_row(&mut record)? {
        for (at, column) in stats.iter_mut().enumerate() {
            if !role_of.contains_key(&at) {
                column.add(row, csv.cell(&record, row, at)?, missing);
            }
        }
        let label = csv.cell(&record, row, label_at)?;
        if label_levels.len() <= MAX_LEVELS && !label_levels.contains(label) {
            label_levels.insert(label.to_owned());
        }
    }
    let columns = csv
        .header()
        .iter()
        .zip(stats)
        .enumerate()
        .map(|(at, (name, stats))| {
            let column_use = match role_of.get(&at) {
                Some(role) => ColumnUse::Role(role),
                None => stats.classify(missing),
            };
            (name.clone(), column_use)
        })
        .collect();
    Ok((columns, label_levels.len()))
}

/// What one column's cells look like, read in one pass (values kept up to
/// [`MAX_LEVELS`] + 1, so memory is bounded by the level cap, not the rows).
#[derive(Debug, Clone, Default)]
struct ColumnStats {
    rows: usize,
    missing: usize,
    /// Missing cells written as a text (`NA`, `nan`, …) rather than left empty.
    missing_texts: usize,
    /// The first missing cell's row and text.
    first_missing: Option<(usize, String)>,
    numbers: usize,
    first_number: Option<(usize, String)>,
    texts: usize,
    first_text: Option<(usize, String)>,
    /// Every distinct cell (numbers as written too: a category may be "0", "1", "3+").
    levels: BTreeMap<String, usize>,
    too_many_levels: bool,
    /// The longest cell's length in bytes and its row.
    longest: (usize, usize),
    first_value: Option<String>,
    varies: bool,
}

impl ColumnStats {
    fn add(&mut self, row: usize, cell: &str, missing: &MissingValues) {
        self.rows += 1;
        if missing.is_missing(cell) {
            self.missing += 1;
            self.missing_texts += usize::from(!cell.is_empty());
            self.first_missing
                .get_or_insert_with(|| (row, cell.to_owned()));
            return;
        }
        match &self.first_value {
            None => self.first_value = Some(cell.to_owned()),
            Some(first) if first != cell => self.varies = true,
            Some(_) => {}
        }
        if cell.len() > self.longest.0 {
            self.longest = (cell.len(), row);
        }
        if !self.too_many_levels {
            *self.levels.entry(cell.to_owned()).or_default() += 1;
            if self.levels.len() > MAX_LEVELS {
                self.too_many_levels = true;
                self.levels.clear();
            }
        }
        if parse_finite(cell).is_ok() {
            self.numbers += 1;
            self.first_number
                .get_or_insert_with(|| (row, cell.to_owned()));
        } else {
            self.texts += 1;
            self.first_text
                .get_or_insert_with(|| (row, cell.to_owned()));
        }
    }

    /// The column's use: numeric when every cell is a number; categorical when a cell is
    /// text and the column has few distinct values (at most [`MAX_LEVELS`], at most half
    /// the rows), every value — "3+" and "0" alike — a level as written; otherwise not
    /// used, with why.
    ///
    /// A numeric column whose missing cells are all empty stays a feature (a pack reads
    /// an empty numeric cell as a missing value, which an arm must impute: the starters
    /// do); missing values written as text, or in a text column, are not read yet.
    fn classify(self, missing: &MissingValues) -> ColumnUse {
        let numeric_with_empty_cells = self.missing_texts == 0 && self.texts == 0 && self.varies;
        if self.missing > 0 && !numeric_with_empty_cells {
            let (row, text) = self.first_missing.unwrap_or_default();
            let text = if text.is_empty() {
                "empty".to_owned()
            } else {
                excerpt(&text)
            };
            return ColumnUse::NotUsed(
                Text::from(format!(
                    "{} of {} cells are missing (first: row {row}, {text}): fill or drop them before export, then list the column in data.features; read as missing: {} (",
                    self.missing,
                    self.rows,
                    missing.describe()
                ))
                .then(Text::opt(Opt::MissingValues))
                .then(" sets the texts)"),
            );
        }
        if !self.varies {
            return ColumnUse::NotUsed(Text::from(format!(
                "constant: every row is {}",
                excerpt(self.first_value.as_deref().unwrap_or(""))
            )));
        }
        if self.texts == 0 {
            return ColumnUse::Numeric;
        }
        let (longest, longest_row) = self.longest;
        if self.too_many_levels && self.numbers > 0 {
            let (text_row, text) = self.first_text.unwrap_or_default();
            let (number_row, number) = self.first_number.unwrap_or_default();
            return ColumnUse::NotUsed(Text::from(format!(
                "mixes numbers and text (row {number_row}: {}, row {text_row}: {}) with more than {MAX_LEVELS} distinct values, too many for a category: make it all numbers",
                excerpt(&number),
                excerpt(&text)
            )));
        }
        if self.too_many_levels {
            return ColumnUse::NotUsed(Text::from(format!(
                "text with more than {MAX_LEVELS} distinct values: an identifier or free text, not a category"
            )));
        }
        if self.levels.len() * 2 > self.rows {
            return ColumnUse::NotUsed(Text::from(format!(
                "text with {} distinct values in {} rows: an identifier or free text, not a category",
                self.levels.len(),
                self.rows
            )));
        }
        if longest > MAX_LEVEL_BYTES {
            return ColumnUse::NotUsed(Text::from(format!(
                "row {longest_row} holds a value of {longest} bytes, longer than a category level may be ({MAX_LEVEL_BYTES} bytes): free text, not a category"
            )));
        }
        ColumnUse::Categorical(self.levels.into_keys().collect())
    }
}
