//! Strict CSV reading for fixtures and predictions files: one record at a time into a
//! reused buffer, every problem named with its file and row.
//!
//! Refused, with the row: a header that names a column twice, a row with another number
//! of fields than the header, a cell that is not UTF-8 or holds a NUL byte, and a bare
//! carriage return as a line end (classic Mac files; a file's meaning must not depend on
//! which line ends a reader happens to accept). The column budget is checked on the header before any row
//! is read and the row budget while rows are read. Rows are numbered from 1 (the header
//! is row 0); blank lines are skipped and not counted.

use std::path::Path;

use crate::error::{Error, Result};
use crate::words::{Budget, Text};

pub use crate::words::excerpt;

/// A CSV file's records, read strictly (see the module docs).
pub struct StrictCsv<'b> {
    path: &'b Path,
    bytes: &'b [u8],
    reader: csv::Reader<&'b [u8]>,
    header: Vec<String>,
    row: usize,
    max_rows: usize,
}

impl<'b> StrictCsv<'b> {
    /// Reads the header of `bytes` (the file at `path`, for messages); a UTF-8 byte-order
    /// mark is skipped.
    pub fn new(
        path: &'b Path,
        bytes: &'b [u8],
        max_columns: usize,
        max_rows: usize,
    ) -> Result<StrictCsv<'b>> {
        let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(bytes);
        let mut record = csv::ByteRecord::new();
        let more = reader
            .read_byte_record(&mut record)
            .map_err(|e| Error::data(path, Some(0), None, csv_message(&e)))?;
        if !more {
            return Err(Error::data(
                path,
                None,
                None,
                "the file is empty: no header row",
            ));
        }
        if record.len() > max_columns {
            return Err(Error::over_budget(
                path,
                Budget::Columns,
                max_columns as u64,
                Some(record.len() as u64),
            ));
        }
        let mut header = Vec::with_capacity(record.len());
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
            header.push(name.to_owned());
        }
        let mut sorted: Vec<(&str, usize)> = header.iter().map(String::as_str).zip(1..).collect();
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
        Ok(StrictCsv {
            path,
            bytes,
            reader,
            header,
            row: 0,
            max_rows,
        })
    }

    /// The file, as named in messages.
    pub fn path(&self) -> &Path {
        self.path
    }

    /// The header's column names, in file order.
    pub fn header(&self) -> &[String] {
        &self.header
    }

    /// The position of a named column, or an error naming it.
    pub fn column(&self, name: &str) -> Result<usize> {
        self.column_for(name, None)
    }

    /// [`StrictCsv::column`], naming in an error where the name came from (`key`: the
    /// `pack.toml` key, or the option of a front end, which each front end writes in its
    /// own words), the header, and the closest header name.
    pub fn column_for(&self, name: &str, key: Option<Text>) -> Result<usize> {
        self.header.iter().position(|h| h == name).ok_or_else(|| {
            let shown: Vec<String> = self
                .header
                .iter()
                .take(24)
                .map(String::as_str)
                .map(excerpt)
                .collect();
            let more = self.header.len().saturating_sub(shown.len());
            let mut message = Text::plain("column not found in the header");
            if let Some(key) = key {
                message = message.then(" (named by ").then(key).then(")");
            }
            message = message.then(format!(
                "; the header has {}{}",
                shown.join(", "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            ));
            if let Some(close) = closest(name, &self.header) {
                message = message.then(format!("; did you mean {}?", excerpt(close)));
            }
            Error::data(self.path, None, Some(name), message)
        })
    }

    /// Reads the next row into `record`; its row number, or `None` at the end.
    pub fn next_row(&mut self, record: &mut csv::ByteRecord) -> Result<Option<usize>> {
        let more = self
            .reader
            .read_byte_record(record)
            .map_err(|e| Error::data(self.path, Some(self.row + 1), None, csv_message(&e)))?;
        if !more {
            if self.bytes.ends_with(b"\r") {
                self.check_line_end(self.bytes.len(), self.row)?;
            }
            return Ok(None);
        }
        self.row += 1;
        let start = record.position().map_or(0, |p| p.byte() as usize);
        self.check_line_end(start, self.row - 1)?;
        if self.row > self.max_rows {
            // The rows are counted to the end, so that the message can say what would pass
            // (the bytes are in memory already, within their own budget; nothing is kept).
            let mut rows = self.row as u64;
            let mut complete = true;
            loop {
                match self.reader.read_byte_record(record) {
                    Ok(true) => rows += 1,
                    Ok(false) => break,
                    Err(_) => {
                        complete = false;
                        break;
                    }
                }
            }
            return Err(Error::over_budget(
                self.path,
                Budget::Rows,
                self.max_rows as u64,
                complete.then_some(rows),
            ));
        }
        if record.len() != self.header.len() {
            return Err(Error::data(
                self.path,
                Some(self.row),
                None,
                format!(
                    "{} fields, but the header has {}: every row needs one field per column (check for an unquoted comma or a missing field)",
                    record.len(),
                    self.header.len()
                ),
            ));
        }
        Ok(Some(self.row))
    }

    /// Cell `at` of a row read by [`StrictCsv::next_row`], as UTF-8 text.
    pub fn cell<'r>(&self, record: &'r csv::ByteRecord, row: usize, at: usize) -> Result<&'r str> {
        let cell = std::str::from_utf8(&record[at]).map_err(|_| {
            Error::data(
                self.path,
                Some(row),
                Some(&self.header[at]),
                "not UTF-8 text: save the file as UTF-8",
            )
        })?;
        // A NUL is never text: a number with one would read as text, and make its column
        // a category without a word.
        if let Some(at_byte) = cell.find('\0') {
            return Err(Error::data(
                self.path,
                Some(row),
                Some(&self.header[at]),
                format!(
                    "the cell {} holds a NUL byte (at byte {at_byte} of the cell): remove it (a NUL is never part of a value; a file full of them is UTF-16: save it as UTF-8)",
                    excerpt(cell)
                ),
            ));
        }
        Ok(cell)
    }

    /// Whether the record before the one at byte `start` (`row`, 0 = the header) ended
    /// with a bare carriage return: a CR not followed by LF. (After a CRLF the csv crate
    /// starts the next record at the LF, which it then skips as an empty line.)
    fn check_line_end(&self, start: usize, row: usize) -> Result<()> {
        if start > 0
            && self.bytes.get(start - 1) == Some(&b'\r')
            && self.bytes.get(start) != Some(&b'\n')
        {
            return Err(Error::data(
                self.path,
                Some(row),
                None,
                "the line ends with a bare carriage return (classic Mac line ends): save the file with LF or CRLF line ends",
            ));
        }
        Ok(())
    }
}

/// The csv crate's message without its own position (the caller names the row).
fn csv_message(e: &csv::Error) -> String {
    match e.kind() {
        csv::ErrorKind::Io(io) => format!("cannot read the CSV: {io}"),
        _ => format!("cannot parse the CSV: {e}"),
    }
}

/// The header name closest to `name`: equal ignoring case and surrounding spaces, or within
/// an edit distance of 2 (the first such, in header order); `None` when none is.
fn closest<'h>(name: &str, header: &'h [String]) -> Option<&'h str> {
    let folded = name.trim().to_lowercase();
    header
        .iter()
        .find(|h| h.trim().to_lowercase() == folded)
        .or_else(|| {
            header
                .iter()
                .filter(|h| h.chars().count() < 64)
                .map(|h| (edit_distance(&folded, &h.to_lowercase()), h))
                .filter(|&(d, _)| d <= 2)
                .min_by_key(|&(d, _)| d)
                .map(|(_, h)| h)
        })
        .map(String::as_str)
}

/// Levenshtein distance over chars (short names only: the caller bounds the lengths).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitute = previous + usize::from(ca != cb);
            previous = row[j + 1];
            row[j + 1] = substitute.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}
