//! Reading a fixture CSV into a typed, canonical [`Table`].
//!
//! polars parses the CSV (csv feature only) with every column as text; the loader then
//! types each used cell itself, so that an error names the file, the 1-based data row and
//! the column, and nothing is coerced silently: `"001"` stays `"001"`, an empty cell is
//! missing (never the string "null"), and a missing or non-finite value in a used column
//! is an error.

use std::io::Cursor;
use std::path::Path;

use polars::prelude::*;

use super::manifest::DataSpec;
use crate::error::{Error, Result};
use crate::table::{RawRow, Table};

/// Parses fixture bytes (already hash-checked) into the canonical table.
pub(crate) fn parse_fixture(path: &Path, bytes: &[u8], spec: &DataSpec) -> Result<Table> {
    let frame = CsvReadOptions::default()
        .with_has_header(true)
        .with_infer_schema_length(Some(0)) // every column as text: the loader types cells
        .with_raise_if_empty(true)
        .into_reader_with_file_handle(Cursor::new(bytes))
        .finish()
        .map_err(|e| Error::data(path, None, None, format!("cannot parse CSV: {e}")))?;

    let column_text = |name: &str| -> Result<Vec<Option<String>>> {
        let column = frame
            .column(name)
            .map_err(|_| Error::data(path, None, Some(name), "column not found in the header"))?;
        let strings = column
            .str()
            .map_err(|e| Error::data(path, None, Some(name), e.to_string()))?;
        Ok(strings.iter().map(|v| v.map(str::to_owned)).collect())
    };

    let n = frame.height();
    if n == 0 {
        return Err(Error::data(path, None, None, "the table has no rows"));
    }
    let entities = column_text(&spec.entity)?;
    let labels = column_text(&spec.label)?;
    let features: Vec<Vec<Option<String>>> = spec
        .features
        .iter()
        .map(|f| column_text(f))
        .collect::<Result<_>>()?;
    let times = spec.time.as_deref().map(column_text).transpose()?;

    let mut used: Vec<&str> = vec![&spec.entity, &spec.label];
    used.extend(spec.features.iter().map(String::as_str));
    used.extend(spec.time.as_deref());
    let mut extra_names: Vec<String> = frame
        .get_column_names()
        .into_iter()
        .map(|name| name.to_string())
        .filter(|name| !used.contains(&name.as_str()))
        .collect();
    extra_names.sort();
    let extras: Vec<Vec<Option<String>>> = extra_names
        .iter()
        .map(|name| column_text(name))
        .collect::<Result<_>>()?;

    let mut rows = Vec::with_capacity(n);
    for i in 0..n {
        let row_number = i + 1;
        let required = |values: &[Option<String>], column: &str| -> Result<String> {
            match &values[i] {
                Some(text) if !text.is_empty() => Ok(text.clone()),
                _ => Err(Error::data(
                    path,
                    Some(row_number),
                    Some(column),
                    "missing value",
                )),
            }
        };
        let entity = required(&entities, &spec.entity)?;
        let label_text = required(&labels, &spec.label)?;
        let mut feature_values = Vec::with_capacity(features.len());
        for (values, name) in features.iter().zip(&spec.features) {
            let text = required(values, name)?;
            feature_values.push(
                parse_finite(&text)
                    .map_err(|message| Error::data(path, Some(row_number), Some(name), message))?,
            );
        }
        let time = match (&times, spec.time.as_deref()) {
            (Some(values), Some(name)) => {
                let text = required(values, name)?;
                Some(text.parse::<i64>().map_err(|_| {
                    Error::data(
                        path,
                        Some(row_number),
                        Some(name),
                        format!("not an integer: {text:?}"),
                    )
                })?)
            }
            _ => None,
        };
        rows.push(RawRow {
            positive: label_text == spec.positive,
            entity,
            label_text,
            features: feature_values,
            time,
            extra: extras
                .iter()
                .map(|column| column[i].clone().filter(|t| !t.is_empty()))
                .collect(),
            source_row: row_number,
        });
    }
    Ok(Table::from_rows(
        spec.features.clone(),
        spec.time.is_some(),
        extra_names,
        rows,
    ))
}

/// A finite f64 from text, exactly rounded (Rust's parser is correctly rounded on every
/// platform). Refuses NaN, infinities, empty text and surrounding spaces.
pub fn parse_finite(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        Ok(_) => Err(format!("not a finite number: {text:?}")),
        Err(_) => Err(format!("not a number: {text:?}")),
    }
}
