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

use super::manifest::DataSpec;
use crate::csv_input::{excerpt, StrictCsv};
use crate::error::{Error, Result};
use crate::table::{FileColumns, Table, TextColumn};

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
    pub const MAX_BYTES_LIMIT: u64 = u32::MAX as u64;
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
    let mut columns = FileColumns {
        features: vec![Vec::new(); roles.features.len()],
        time: roles.time.map(|_| Vec::new()),
        extra: vec![TextColumn::default(); roles.extra.len()],
        ..FileColumns::default()
    };
    let mut record = csv::ByteRecord::new();
    while let Some(row) = csv.next_row(&mut record)? {
        read_row(&csv, row, &record, &roles, spec, &mut columns)?;
    }
    if columns.positive.is_empty() {
        return Err(Error::data(path, None, None, "the table has no rows"));
    }
    Ok(Table::from_columns(
        spec.features.clone(),
        roles.extra.into_iter().map(|(name, _)| name).collect(),
        columns,
    ))
}

/// Finds each role's column in the header.
fn roles(csv: &StrictCsv<'_>, spec: &DataSpec) -> Result<Roles> {
    let entity = csv.column(&spec.entity)?;
    let label = csv.column(&spec.label)?;
    let features = spec
        .features
        .iter()
        .map(|f| csv.column(f))
        .collect::<Result<Vec<_>>>()?;
    let time = spec.time.as_deref().map(|t| csv.column(t)).transpose()?;
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

/// Types one data row's cells into `columns`.
fn read_row(
    csv: &StrictCsv<'_>,
    row: usize,
    record: &csv::ByteRecord,
    roles: &Roles,
    spec: &DataSpec,
    columns: &mut FileColumns,
) -> Result<()> {
    let problem = |at: usize, message: String| {
        Error::data(csv.path(), Some(row), Some(&csv.header()[at]), message)
    };
    let required = |at: usize| -> Result<&str> {
        match csv.cell(record, row, at)? {
            "" => Err(problem(at, "missing value".into())),
            cell => Ok(cell),
        }
    };
    let entity = required(roles.entity)?;
    let label = required(roles.label)?;
    columns.entity.push(entity);
    columns.positive.push(label == spec.positive);
    columns.label_text.push(label);
    for (column, &at) in columns.features.iter_mut().zip(&roles.features) {
        column.push(parse_finite(required(at)?).map_err(|m| problem(at, m))?);
    }
    if let (Some(column), Some(at)) = (columns.time.as_mut(), roles.time) {
        let cell = required(at)?;
        let value = cell
            .parse::<i64>()
            .map_err(|_| problem(at, format!("not an integer: {}", excerpt(cell))))?;
        column.push(value);
    }
    for (column, (_, at)) in columns.extra.iter_mut().zip(&roles.extra) {
        column.push(csv.cell(record, row, *at)?);
    }
    columns.source_row.push(row);
    Ok(())
}

/// A finite f64 from text, exactly rounded (Rust's parser is correctly rounded on every
/// platform). Refuses NaN, infinities, empty text and surrounding spaces; the message
/// quotes at most a bounded excerpt of the text.
pub fn parse_finite(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        Ok(_) => Err(format!("not a finite number: {}", excerpt(text))),
        Err(_) => Err(format!("not a number: {}", excerpt(text))),
    }
}
