//! Reading a fixture CSV into a typed, canonical [`Table`], within budgets.
//!
//! The `csv` crate reads one record at a time into a reused buffer; the loader types each
//! used cell itself, so that every error names the file, the 1-based data row and the
//! column, and nothing is coerced silently: `"001"` stays `"001"`, an empty cell is
//! missing (never the string "null"), and a missing or non-finite value in a used column
//! is an error. The structure is strict too: duplicate header names, rows with another
//! number of fields than the header, cells that are not UTF-8 and bare carriage returns
//! as line ends (classic Mac files) are refused with their row.
//!
//! Budgets ([`LoadLimits`]) are checked before the memory they protect is allocated: the
//! file's bytes as it is read (never more than the byte budget + 1), the header's column
//! count before any row is read, and the row count while rows are read.

use std::path::Path;

use super::manifest::DataSpec;
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
            max_bytes: 64 << 20,
            max_columns: 1024,
            max_rows: 1_000_000,
        }
    }
}

/// At most this many characters of a cell appear in a message.
const EXCERPT_CHARS: usize = 40;

/// A cell's text for a message: at most [`EXCERPT_CHARS`] characters, quoted and escaped
/// (`{:?}`), with how much was left out.
pub(crate) fn excerpt(text: &str) -> String {
    let count = text.chars().count();
    if count <= EXCERPT_CHARS {
        format!("{text:?}")
    } else {
        let head: String = text.chars().take(EXCERPT_CHARS).collect();
        format!("{head:?}… ({} more characters)", count - EXCERPT_CHARS)
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
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes); // a UTF-8 byte-order mark
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(bytes);
    let mut record = csv::ByteRecord::new();
    let at_header = |e: csv::Error| Error::data(path, Some(0), None, csv_message(&e));
    if !reader.read_byte_record(&mut record).map_err(at_header)? {
        return Err(Error::data(
            path,
            None,
            None,
            "the file is empty: no header row",
        ));
    }
    let header = header_names(path, &record, limits)?;
    let roles = roles(path, &header, spec)?;
    let width = header.len();

    let mut columns = FileColumns {
        features: vec![Vec::new(); roles.features.len()],
        time: roles.time.map(|_| Vec::new()),
        extra: vec![TextColumn::default(); roles.extra.len()],
        ..FileColumns::default()
    };
    let mut row = 0usize;
    loop {
        let more = reader
            .read_byte_record(&mut record)
            .map_err(|e| Error::data(path, Some(row + 1), None, csv_message(&e)))?;
        if !more {
            break;
        }
        row += 1;
        let start = record.position().map_or(0, |p| p.byte() as usize);
        check_line_end(path, bytes, start, row - 1)?;
        if row > limits.max_rows {
            return Err(Error::over_budget(path, "rows", limits.max_rows as u64, ""));
        }
        if record.len() != width {
            return Err(Error::data(
                path,
                Some(row),
                None,
                format!(
                    "{} fields, but the header has {width}: every row needs one field per column (check for an unquoted comma or a missing field)",
                    record.len()
                ),
            ));
        }
        read_row(path, row, &record, &header, &roles, spec, &mut columns)?;
    }
    if bytes.ends_with(b"\r") {
        check_line_end(path, bytes, bytes.len(), row)?;
    }
    if row == 0 {
        return Err(Error::data(path, None, None, "the table has no rows"));
    }
    Ok(Table::from_columns(
        spec.features.clone(),
        roles.extra.into_iter().map(|(name, _)| name).collect(),
        columns,
    ))
}

/// The csv crate's message without its own position (the caller names the row).
fn csv_message(e: &csv::Error) -> String {
    match e.kind() {
        csv::ErrorKind::Io(io) => format!("cannot read the CSV: {io}"),
        _ => format!("cannot parse the CSV: {e}"),
    }
}

/// The record that starts at byte `start` ended the one before it (`row`, 0 = the header)
/// with a bare carriage return: refused, since a file's meaning must not depend on which
/// line ends a reader happens to accept.
fn check_line_end(path: &Path, bytes: &[u8], start: usize, row: usize) -> Result<()> {
    if start > 0 && bytes.get(start - 1) == Some(&b'\r') {
        return Err(Error::data(
            path,
            Some(row),
            None,
            "the line ends with a bare carriage return (classic Mac line ends): save the file with LF or CRLF line ends",
        ));
    }
    Ok(())
}

/// The header's names: UTF-8, within the column budget, each used once.
fn header_names(path: &Path, record: &csv::ByteRecord, limits: &LoadLimits) -> Result<Vec<String>> {
    if record.len() > limits.max_columns {
        return Err(Error::over_budget(
            path,
            "columns",
            limits.max_columns as u64,
            "",
        ));
    }
    let mut names = Vec::with_capacity(record.len());
    for (i, field) in record.iter().enumerate() {
        let name = std::str::from_utf8(field).map_err(|_| {
            Error::data(
                path,
                Some(0),
                None,
                format!(
                    "header column {}: not UTF-8 text: save the file as UTF-8",
                    i + 1
                ),
            )
        })?;
        names.push(name.to_owned());
    }
    let mut sorted: Vec<(&str, usize)> = names.iter().map(String::as_str).zip(1..).collect();
    sorted.sort();
    if let Some(pair) = sorted.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(Error::data(
            path,
            Some(0),
            Some(pair[0].0),
            format!(
                "the header names this column twice (columns {} and {}): rename one",
                pair[0].1, pair[1].1
            ),
        ));
    }
    Ok(names)
}

/// Finds each role's column in the header.
fn roles(path: &Path, header: &[String], spec: &DataSpec) -> Result<Roles> {
    let find = |name: &str| -> Result<usize> {
        header
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| Error::data(path, None, Some(name), "column not found in the header"))
    };
    let entity = find(&spec.entity)?;
    let label = find(&spec.label)?;
    let features = spec
        .features
        .iter()
        .map(|f| find(f))
        .collect::<Result<Vec<_>>>()?;
    let time = spec.time.as_deref().map(find).transpose()?;
    let mut used = vec![entity, label];
    used.extend(&features);
    used.extend(time);
    let mut extra: Vec<(String, usize)> = header
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
    path: &Path,
    row: usize,
    record: &csv::ByteRecord,
    header: &[String],
    roles: &Roles,
    spec: &DataSpec,
    columns: &mut FileColumns,
) -> Result<()> {
    let text = |at: usize| -> Result<&str> {
        std::str::from_utf8(&record[at]).map_err(|_| {
            Error::data(
                path,
                Some(row),
                Some(&header[at]),
                "not UTF-8 text: save the file as UTF-8",
            )
        })
    };
    let required = |at: usize| -> Result<&str> {
        match text(at)? {
            "" => Err(Error::data(
                path,
                Some(row),
                Some(&header[at]),
                "missing value",
            )),
            cell => Ok(cell),
        }
    };
    let entity = required(roles.entity)?;
    let label = required(roles.label)?;
    columns.entity.push(entity);
    columns.positive.push(label == spec.positive);
    columns.label_text.push(label);
    for (column, &at) in columns.features.iter_mut().zip(&roles.features) {
        let value = parse_finite(required(at)?)
            .map_err(|message| Error::data(path, Some(row), Some(&header[at]), message))?;
        column.push(value);
    }
    if let (Some(column), Some(at)) = (columns.time.as_mut(), roles.time) {
        let cell = required(at)?;
        let value = cell.parse::<i64>().map_err(|_| {
            Error::data(
                path,
                Some(row),
                Some(&header[at]),
                format!("not an integer: {}", excerpt(cell)),
            )
        })?;
        column.push(value);
    }
    for (column, (_, at)) in columns.extra.iter_mut().zip(&roles.extra) {
        column.push(text(*at)?);
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
