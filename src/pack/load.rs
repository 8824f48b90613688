//! Reading a fixture CSV into a typed, canonical [`Table`], within budgets.
//!
//! [`StrictCsv`] reads one record at a time (and refuses duplicate header names, ragged
//! rows, non-UTF-8 cells and bare carriage returns, with their row); the loader types each
//! used cell itself, so that every error names the file, the 1-based data row and the
//! column, and nothing is coerced silently: `"001"` stays `"001"`, an empty cell is
//! missing (never the string "null"), and a missing or non-finite value in a used column
//! is an error.
//!
//! Budgets ([`LoadLimits`]) are checked before the memory they protect is allocated: the
//! file's bytes as it is read (never more than the byte budget + 1), the header's column
//! count before any row is read, and the row count while rows are read.

use std::path::Path;
use std::sync::Arc;

use super::manifest::{toml_key, DataSpec};
use crate::csv_input::{excerpt, StrictCsv};
use crate::error::{Error, Result};
use crate::table::{FeatureLayout, FileColumns, Table, TextColumn};
use crate::words::Budget;

/// How much of a fixture is read before it is refused. Checked while reading, so a
/// hostile file costs at most about the byte budget in memory (docs/VERDICTS.md, "Budgets").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadLimits {
    /// Largest fixture file, in bytes (at most 4 GiB − 1: text offsets are 32-bit).
    pub max_bytes: u64,
    /// Most header columns.
    pub max_columns: usize,
    /// Most data rows.
    pub max_rows: usize,
}

impl LoadLimits {
    /// The largest byte budget the loader accepts.
    pub const MAX_BYTES_LIMIT: u64 = Budget::FixtureBytes.most();
    /// The largest column budget the loader accepts (a header of this many columns costs
    /// its names, and a row as many fields).
    pub const MAX_COLUMNS_LIMIT: usize = Budget::Columns.most() as usize;
    /// The largest row budget the loader accepts (row indices are 32-bit).
    pub const MAX_ROWS_LIMIT: usize = Budget::Rows.most() as usize;
}

impl Default for LoadLimits {
    fn default() -> Self {
        LoadLimits {
            max_bytes: 32 << 20,
            max_columns: 1024,
            max_rows: 1_000_000,
        }
    }
}

/// The positions of the header's columns that the manifest gives a role.
struct Roles {
    entity: usize,
    label: usize,
    features: Vec<usize>,
    time: Option<usize>,
    /// Every other column, sorted by name, with its position.
    extra: Vec<(String, usize)>,
}

/// Parses fixture bytes (already hash-checked) into the canonical table.
pub(crate) fn parse_fixture(
    path: &Path,
    bytes: &[u8],
    spec: &DataSpec,
    limits: &LoadLimits,
) -> Result<Table> {
    let mut csv = StrictCsv::new(path, bytes, limits.max_columns, limits.max_rows)?;
    let roles = roles(&csv, spec)?;
    let layout = FeatureLayout::new(&spec.features, &spec.levels);
    // One-hot columns cost memory like file columns: the same budget, before any row.
    if layout.columns().len() > limits.max_columns {
        return Err(Error::over_budget(
            path,
            Budget::ModelColumns,
            limits.max_columns as u64,
            Some(layout.columns().len() as u64),
        ));
    }
    let mut columns = FileColumns {
        features: vec![Vec::new(); layout.columns().len()],
        time: roles.time.map(|_| Vec::new()),
        extra: vec![TextColumn::default(); roles.extra.len()],
        ..FileColumns::default()
    };
    let mut record = csv::ByteRecord::new();
    let mut bad = BadCells::default();
    while let Some(row) = csv.next_row(&mut record)? {
        read_row(
            &csv,
            row,
            &record,
            &roles,
            spec,
            &layout,
            &mut columns,
            &mut bad,
        )?;
    }
    if let Some(error) = bad.into_error(path) {
        return Err(error);
    }
    if columns.positive.is_empty() {
        return Err(Error::data(path, None, None, "the table has no rows"));
    }
    Ok(Table::from_columns(
        Arc::new(layout),
        roles.extra.into_iter().map(|(name, _)| name).collect(),
        columns,
    ))
}

/// Finds each role's column in the header.
fn roles(csv: &StrictCsv<'_>, spec: &DataSpec) -> Result<Roles> {
    let entity = csv.column_for(&spec.entity, Some("data.entity in pack.toml".into()))?;
    let label = csv.column_for(&spec.label, Some("data.label in pack.toml".into()))?;
    let features = spec
        .features
        .iter()
        .map(|f| csv.column_for(f, Some("data.features in pack.toml".into())))
        .collect::<Result<Vec<_>>>()?;
    let time = spec
        .time
        .as_deref()
        .map(|t| csv.column_for(t, Some("data.time in pack.toml".into())))
        .transpose()?;
    let mut used = vec![entity, label];
    used.extend(&features);
    used.extend(time);
    let mut extra: Vec<(String, usize)> = csv
        .header()
        .iter()
        .enumerate()
        .filter(|(i, _)| !used.contains(i))
        .map(|(i, name)| (name.clone(), i))
        .collect();
    extra.sort();
    Ok(Roles {
        entity,
        label,
        features,
        time,
        extra,
    })
}

/// Types one data row's cells into `columns`. A cell that cannot be typed is recorded in
/// `bad` (and a placeholder kept, so the columns stay aligned; no table is built from
/// them); a structural problem of the record is an error at once.
#[allow(clippy::too_many_arguments)] // one row's inputs and outputs; a struct would only rename them
fn read_row(
    csv: &StrictCsv<'_>,
    row: usize,
    record: &csv::ByteRecord,
    roles: &Roles,
    spec: &DataSpec,
    layout: &FeatureLayout,
    columns: &mut FileColumns,
    bad: &mut BadCells,
) -> Result<()> {
    let name = |at: usize| csv.header()[at].as_str();
    let required = |at: usize, bad: &mut BadCells| -> Result<Option<&str>> {
        Ok(match csv.cell(record, row, at)? {
            "" => {
                bad.push(row, name(at), "", BadCell::Missing);
                None
            }
            cell => Some(cell),
        })
    };
    let entity = required(roles.entity, bad)?.unwrap_or_default();
    let label = required(roles.label, bad)?.unwrap_or_default();
    columns.entity.push(entity);
    columns.positive.push(label == spec.positive);
    columns.label_text.push(label);
    for (k, &at) in roles.features.iter().enumerate() {
        let range = layout.range(k);
        let levels = layout.levels(k);
        if levels.is_empty() && csv.cell(record, row, at)?.is_empty() {
            // A numeric feature's empty cell is a missing value, kept as NaN: an experiment
            // may use the column only in arms that impute it first (Experiment::check).
            columns.features[range.start].push(f64::NAN);
            continue;
        }
        let cell = required(at, bad)?;
        if levels.is_empty() {
            let value = cell.map_or(0.0, |cell| {
                parse_finite(cell).unwrap_or_else(|not_finite| {
                    bad.push(row, name(at), cell, BadCell::Number(not_finite));
                    0.0
                })
            });
            columns.features[range.start].push(value);
            continue;
        }
        // One-hot: 1 in the column of the cell's level, 0 in the others.
        let hot = cell.and_then(|cell| {
            let found = levels
                .binary_search_by(|level| level.as_str().cmp(cell))
                .ok();
            if found.is_none() {
                bad.push(
                    row,
                    name(at),
                    cell,
                    BadCell::UnknownLevel {
                        key: toml_key(name(at)),
                        levels: list_levels(levels),
                    },
                );
            }
            found
        });
        for (level, column) in columns.features[range].iter_mut().enumerate() {
            column.push(if hot == Some(level) { 1.0 } else { 0.0 });
        }
    }
    if let (Some(column), Some(at)) = (columns.time.as_mut(), roles.time) {
        let value = match required(at, bad)? {
            Some(cell) => cell.parse::<i64>().unwrap_or_else(|_| {
                bad.push(row, name(at), cell, BadCell::NotAnInteger);
                0
            }),
            None => 0,
        };
        column.push(value);
    }
    for (column, (_, at)) in columns.extra.iter_mut().zip(&roles.extra) {
        column.push(csv.cell(record, row, *at)?);
    }
    columns.source_row.push(row);
    Ok(())
}

/// How many bad cells an error lists.
const BAD_CELLS_SHOWN: usize = 20;

/// The cells of a fixture that could not be typed: the first [`BAD_CELLS_SHOWN`] with row,
/// column and problem, the total, and which kinds of value they were (for the hint).
#[derive(Debug, Default)]
struct BadCells {
    first: Vec<(usize, String, String)>,
    total: usize,
    kinds: std::collections::BTreeSet<BadKind>,
}

/// Why one used cell cannot be typed: what the loader found, before any message is
/// written (the message and the hint's kind both derive from it).
#[derive(Debug, Clone, PartialEq, Eq)]
enum BadCell {
    /// The cell is empty.
    Missing,
    /// A numeric feature's cell is not a finite number.
    Number(NotFinite),
    /// A categorical feature's cell is not one of its recorded levels (`key`: the
    /// column's TOML key; `levels`: the levels, listed for the message).
    UnknownLevel { key: String, levels: String },
    /// The time column's cell is not an integer.
    NotAnInteger,
}

impl BadCell {
    /// The message about `cell`.
    fn message(&self, cell: &str) -> String {
        match self {
            BadCell::Missing => "missing value".into(),
            BadCell::Number(not_finite) => not_finite.to_string(),
            BadCell::UnknownLevel { key, levels } => format!(
                "{} is not a recorded level of this categorical column (data.levels.{key} in pack.toml: {levels})",
                excerpt(cell)
            ),
            BadCell::NotAnInteger => format!("not an integer: {}", excerpt(cell)),
        }
    }
}

/// Kinds of untypable cell that have a known cause and fix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum BadKind {
    /// An empty cell.
    Empty,
    /// R's `NA`, pandas' `nan`, `NULL`, `None`, `N/A` and their spellings.
    MissingToken,
    /// `True`/`False` (pandas writes booleans so).
    Boolean,
    /// `1.0` where an integer is needed (a float column exported by pandas or R).
    IntegralFloat,
    /// Text in a numeric feature column (a category such as "P"/"A").
    Text,
    /// A categorical cell whose level pack.toml does not record.
    UnknownLevel,
    /// Anything else.
    Other,
}

impl BadCells {
    fn push(&mut self, row: usize, column: &str, cell: &str, bad: BadCell) {
        self.total += 1;
        self.kinds.insert(BadKind::of(cell, &bad));
        if self.first.len() < BAD_CELLS_SHOWN {
            self.first.push((row, column.to_owned(), bad.message(cell)));
        }
    }

    /// The error naming the first bad cell (row and column) and, when there are more,
    /// the first few of them and the total; with a line on how to fix each kind seen.
    fn into_error(self, path: &Path) -> Option<Error> {
        let (row, column, message) = self.first.first()?.clone();
        let mut text = message;
        if self.total > 1 {
            text.push_str(&format!(
                "\n{} cells cannot be typed in all; the first {}:",
                self.total,
                self.first.len()
            ));
            for (row, column, message) in &self.first {
                text.push_str(&format!("\n  row {row}, column {column:?}: {message}"));
            }
        }
        for kind in &self.kinds {
            if let Some(hint) = kind.hint() {
                text.push_str(&format!("\nhow to fix: {hint}"));
            }
        }
        Some(Error::data(path, Some(row), Some(&column), text))
    }
}

/// How to fix a cell of each kind (the hint under its error).
const EMPTY_HINT: &str = "an empty cell is a missing value, which a used column may not have: fill it, or drop the row (or the column from the manifest) before export";
const MISSING_TOKEN_HINT: &str = "NA (R), nan/NaN (pandas), NULL or N/A mark missing values: fill or drop them before export (R: write.csv(na = \"\") still leaves empty cells; pandas: df.dropna() or df.fillna(...))";
const BOOLEAN_HINT: &str =
    "True/False is text to a numeric column: write booleans as 1/0 (pandas: df[col].astype(int))";
const INTEGRAL_FLOAT_HINT: &str = "the time column needs integers: 1.0 is a float export of 1 (pandas: df[col].astype(\"int64\"); R: as.integer); dates must be turned into integers (days or weeks since a start)";
const TEXT_HINT: &str = "a feature column with text is a category (e.g. treatment \"P\"/\"A\"): list it in data.categorical and record its levels under [data.levels] (counterlab init does both; counterlab pack rehash DIR records the levels), or encode it as numbers";
const UNKNOWN_LEVEL_HINT: &str = "a categorical column's levels are recorded in pack.toml so that its one-hot columns mean the same on every machine: add the level under [data.levels] (byte order), or run counterlab pack rehash DIR, which re-records the levels with the fixture's hash";

impl BadKind {
    /// The kind of a bad `cell`, from why it is bad (never from a message's words, which
    /// quote the cell): a missing-value text or a boolean whatever the column, then by
    /// what the loader found.
    fn of(cell: &str, bad: &BadCell) -> BadKind {
        let trimmed = cell.trim();
        if cell.is_empty() {
            BadKind::Empty
        } else if is_missing_token(cell) {
            BadKind::MissingToken
        } else if ["true", "false"].contains(&trimmed.to_ascii_lowercase().as_str()) {
            BadKind::Boolean
        } else {
            match bad {
                BadCell::NotAnInteger if trimmed.parse::<f64>().is_ok_and(|v| v.fract() == 0.0) => {
                    BadKind::IntegralFloat
                }
                BadCell::UnknownLevel { .. } => BadKind::UnknownLevel,
                BadCell::Number(NotFinite::NotANumber(_)) => BadKind::Text,
                BadCell::Missing
                | BadCell::Number(NotFinite::NonFinite(_))
                | BadCell::NotAnInteger => BadKind::Other,
            }
        }
    }

    fn hint(self) -> Option<&'static str> {
        Some(match self {
            BadKind::Empty => EMPTY_HINT,
            BadKind::MissingToken => MISSING_TOKEN_HINT,
            BadKind::Boolean => BOOLEAN_HINT,
            BadKind::IntegralFloat => INTEGRAL_FLOAT_HINT,
            BadKind::Text => TEXT_HINT,
            BadKind::UnknownLevel => UNKNOWN_LEVEL_HINT,
            BadKind::Other => return None,
        })
    }
}

/// A finite f64 from text, exactly rounded (Rust's parser is correctly rounded on every
/// platform). Refuses NaN, infinities, empty text and surrounding spaces, saying which.
pub fn parse_finite(text: &str) -> Result<f64, NotFinite> {
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        Ok(_) => Err(NotFinite::NonFinite(excerpt(text))),
        Err(_) => Err(NotFinite::NotANumber(excerpt(text))),
    }
}

/// Why a text is not a finite number: a value of the parse, not an error by itself (a
/// caller that reads a cell makes it one, with the file, row and column). Each case keeps
/// a bounded excerpt of the text, which its message quotes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotFinite {
    /// A number, but NaN or an infinity.
    NonFinite(String),
    /// Not a number at all (text, empty, spaces around).
    NotANumber(String),
}

impl std::fmt::Display for NotFinite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotFinite::NonFinite(excerpt) => write!(f, "not a finite number: {excerpt}"),
            NotFinite::NotANumber(excerpt) => write!(f, "not a number: {excerpt}"),
        }
    }
}

/// A categorical column's levels for a message: the first few, and how many in all.
fn list_levels(levels: &[String]) -> String {
    const SHOWN: usize = 10;
    let shown: Vec<String> = levels
        .iter()
        .take(SHOWN)
        .map(|l| format!("{l:?}"))
        .collect();
    if levels.len() > SHOWN {
        format!("{}, … ({} levels)", shown.join(", "), levels.len())
    } else {
        shown.join(", ")
    }
}

/// The texts read as a missing value by default, besides the empty cell (always missing):
/// R's `NA`, pandas' `nan` and `<NA>`, SQL's `NULL`, `N/A`, `NaT`, Excel's `#N/A`, compared
/// in any ASCII case with spaces around. Not `None`: "none" is a real level as often as a
/// missing value (a medication column whose "none" means no medication), so it is text
/// unless `--missing-values` names it.
pub const DEFAULT_MISSING_VALUES: [&str; 7] = ["NA", "nan", "NULL", "N/A", "<NA>", "NaT", "#N/A"];

/// Whether a cell is one of the default missing texts ([`DEFAULT_MISSING_VALUES`]); the
/// empty cell is not a text (callers test it first).
pub(crate) fn is_missing_token(cell: &str) -> bool {
    let cell = cell.trim();
    DEFAULT_MISSING_VALUES
        .iter()
        .any(|m| m.eq_ignore_ascii_case(cell))
}

/// The texts `init` and `audit` read as a missing value (`--missing-values`), besides the
/// empty cell, which is always missing (the fixture's rule: an empty cell is never a value).
/// Compared with the cell trimmed, in any ASCII case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingValues {
    texts: Vec<String>,
}

impl Default for MissingValues {
    fn default() -> Self {
        MissingValues {
            texts: DEFAULT_MISSING_VALUES
                .iter()
                .map(|&t| t.to_owned())
                .collect(),
        }
    }
}

impl MissingValues {
    /// The texts of a comma-separated list (`NA,,null`): each trimmed; an empty item is
    /// the empty cell, missing anyway. `""` reads only the empty cell as missing. A text
    /// with a comma cannot be listed (none of the tools' missing texts has one).
    pub fn parse(list: &str) -> std::result::Result<MissingValues, String> {
        let mut texts: Vec<String> = Vec::new();
        for text in list.split(',').map(str::trim).filter(|t| !t.is_empty()) {
            if text.chars().any(char::is_control) {
                return Err(format!(
                    "{text:?} holds a control character: list printable texts, separated by commas (e.g. NA,,null)"
                ));
            }
            if !texts.iter().any(|t| t.eq_ignore_ascii_case(text)) {
                texts.push(text.to_owned());
            }
        }
        Ok(MissingValues { texts })
    }

    /// Whether `cell` is missing: empty, or one of the texts.
    pub fn is_missing(&self, cell: &str) -> bool {
        if cell.is_empty() {
            return true;
        }
        let cell = cell.trim();
        self.texts.iter().any(|t| t.eq_ignore_ascii_case(cell))
    }

    /// The list as messages show it: `the empty cell, "NA", "nan", …`.
    pub fn describe(&self) -> String {
        std::iter::once("the empty cell".to_owned())
            .chain(self.texts.iter().map(|t| format!("{t:?}")))
            .collect::<Vec<_>>()
            .join(", ")
    }
}
