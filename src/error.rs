//! The library's one error type: "could not even look" (I/O, unreadable or invalid input).
//!
//! Verdicts and undefined metrics are values, never errors. Messages are lower-case and
//! name the file, row, column or JSON path they are about.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use crate::json_path::JsonPath;

/// An error that stopped the kernel from computing anything. Cheap to clone (a pack that
/// failed to load keeps its error for every later look-up).
#[derive(Debug, Clone)]
pub struct Error(Arc<ErrorKind>);

/// What went wrong, with where.
#[derive(Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A file or folder could not be read or written.
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The operating system's error.
        source: Arc<std::io::Error>,
    },
    /// A pack's manifest or layout is invalid.
    Pack {
        /// The file (usually `pack.toml`) or folder.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A cell of a table could not be used.
    Data {
        /// The CSV file.
        path: PathBuf,
        /// 1-based data row (the header is row 0), as in the file.
        row: Option<usize>,
        /// The column's name.
        column: Option<String>,
        /// What is wrong.
        message: String,
    },
    /// An experiment is invalid (JSON path of the problem and what is wrong).
    Experiment {
        /// JSON path such as `$.arms[1].split.test_fraction`.
        path: JsonPath,
        /// What is wrong.
        message: String,
    },
    /// A pack id was asked for that no known pack has.
    UnknownPack {
        /// The id asked for.
        id: String,
        /// The ids that are known.
        known: Vec<String>,
        /// Pack folders whose `pack.toml` could not be read (one of them may be the one
        /// asked for), each with why (the parse error, with the file).
        unreadable: Vec<(PathBuf, String)>,
    },
    /// An input is larger than a budget allows (bytes, columns, rows): nothing past the
    /// budget was read or allocated.
    OverBudget {
        /// The file.
        path: PathBuf,
        /// What was counted: `bytes`, `columns` or `rows`.
        what: &'static str,
        /// The budget.
        budget: u64,
        /// How to raise the budget, if it can be raised (e.g. ` (raise it with --max-bytes)`).
        hint: String,
    },
    /// A name that is not one of the names a setting takes (a model family, a time
    /// kind): each front end says which of its arguments gave it.
    UnknownName {
        /// The setting, as a message names it (`model`, `time kind`).
        setting: &'static str,
        /// The name given.
        found: String,
        /// The names the setting takes.
        expected: &'static [&'static str],
    },
    /// Any other invalid input, with its own message.
    Invalid(String),
}

/// A multi-line message (a TOML parse error: its position, the source line with a caret,
/// what is wrong) on one line, for a report's reason: the first line, the source line and
/// the last line.
pub(crate) fn one_line(message: &str) -> String {
    let lines: Vec<&str> = message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.chars().all(|c| c == '|' || c == '^' || c == ' '))
        .collect();
    match lines.as_slice() {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [first, middle @ .., last] => {
            let source = middle
                .iter()
                .find(|l| {
                    l.split_once('|')
                        .is_some_and(|(n, _)| n.trim().parse::<u64>().is_ok())
                })
                .and_then(|l| l.split_once('|'))
                .map(|(_, text)| format!(" (`{}`)", text.trim()))
                .unwrap_or_default();
            format!("{first}: {last}{source}")
        }
    }
}

impl Error {
    /// The kind of the error.
    pub fn kind(&self) -> &ErrorKind {
        &self.0
    }

    /// An I/O error about `path` (the CLI maps it to exit code 2).
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        ErrorKind::Io {
            path: path.into(),
            source: Arc::new(source),
        }
        .into()
    }

    pub(crate) fn pack(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        ErrorKind::Pack {
            path: path.into(),
            message: message.into(),
        }
        .into()
    }

    /// A data error: a cell, row or column of a CSV file that cannot be used.
    pub fn data(
        path: impl Into<PathBuf>,
        row: Option<usize>,
        column: Option<&str>,
        message: impl Into<String>,
    ) -> Self {
        ErrorKind::Data {
            path: path.into(),
            row,
            column: column.map(str::to_owned),
            message: message.into(),
        }
        .into()
    }

    pub(crate) fn experiment(path: JsonPath, message: impl Into<String>) -> Self {
        ErrorKind::Experiment {
            path,
            message: message.into(),
        }
        .into()
    }

    /// An input over a budget (`what`: bytes, columns or rows), with how to raise it.
    pub fn over_budget(
        path: impl Into<PathBuf>,
        what: &'static str,
        budget: u64,
        hint: impl Into<String>,
    ) -> Self {
        ErrorKind::OverBudget {
            path: path.into(),
            what,
            budget,
            hint: hint.into(),
        }
        .into()
    }

    /// A name that is not one of `expected`, the names `setting` takes.
    pub fn unknown_name(
        setting: &'static str,
        found: &str,
        expected: &'static [&'static str],
    ) -> Self {
        ErrorKind::UnknownName {
            setting,
            found: found.to_owned(),
            expected,
        }
        .into()
    }

    /// Any other invalid input (an argument of a front end, say), with its own message.
    pub fn invalid(message: impl Into<String>) -> Self {
        ErrorKind::Invalid(message.into()).into()
    }

    /// True for errors about the data or the experiment (exit code 1 in the CLI), false for
    /// I/O, lookup and budget errors (exit code 2).
    pub fn is_data_error(&self) -> bool {
        matches!(
            *self.0,
            ErrorKind::Data { .. }
                | ErrorKind::Experiment { .. }
                | ErrorKind::Pack { .. }
                | ErrorKind::UnknownName { .. }
                | ErrorKind::Invalid(_)
        )
    }
}

impl From<ErrorKind> for Error {
    fn from(kind: ErrorKind) -> Self {
        Error(Arc::new(kind))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &*self.0 {
            ErrorKind::Io { path, source } => write!(f, "{}: {source}", path.display()),
            ErrorKind::Pack { path, message } => write!(f, "{}: {message}", path.display()),
            ErrorKind::Data {
                path,
                row,
                column,
                message,
            } => {
                write!(f, "{}", path.display())?;
                if let Some(row) = row {
                    write!(f, ": row {row}")?;
                }
                if let Some(column) = column {
                    write!(f, ", column {column:?}")?;
                }
                write!(f, ": {message}")
            }
            ErrorKind::Experiment { path, message } => write!(f, "experiment {path}: {message}"),
            ErrorKind::UnknownPack {
                id,
                known,
                unreadable,
            } => {
                write!(f, "unknown pack {id:?} (known: {})", known.join(", "))?;
                for (dir, why) in unreadable {
                    write!(
                        f,
                        "; {} cannot be read, so its pack is unknown: {}",
                        dir.join("pack.toml").display(),
                        one_line(why)
                    )?;
                }
                Ok(())
            }
            ErrorKind::OverBudget {
                path,
                what,
                budget,
                hint,
            } => write!(
                f,
                "{}: more than {budget} {what}, over the budget{hint}",
                path.display()
            ),
            ErrorKind::UnknownName {
                setting,
                found,
                expected,
            } => {
                write!(
                    f,
                    "unknown {setting} {}: expected ",
                    crate::csv_input::excerpt(found)
                )?;
                for (i, name) in expected.iter().enumerate() {
                    match i {
                        0 => {}
                        _ if i + 1 == expected.len() => f.write_str(" or ")?,
                        _ => f.write_str(", ")?,
                    }
                    write!(f, "{name:?}")?;
                }
                Ok(())
            }
            ErrorKind::Invalid(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &*self.0 {
            ErrorKind::Io { source, .. } => Some(source.as_ref()),
            _ => None,
        }
    }
}

/// Shorthand for results whose error is [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::{Error, ErrorKind};
    use crate::experiment::ModelSpec;
    use crate::pack::TimeKind;

    /// The setting's name, the name given and every name the setting takes, as data and in
    /// the message; the parsers of a model family and of a time kind give it.
    #[test]
    fn an_unknown_name_is_typed_and_names_every_spelling() {
        let family = ModelSpec::parse_family("forest").unwrap_err();
        match family.kind() {
            ErrorKind::UnknownName {
                setting,
                found,
                expected,
            } => {
                assert_eq!(*setting, "model");
                assert_eq!(found, "forest");
                assert_eq!(*expected, ["logistic", "gbdt"]);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            family.to_string(),
            r#"unknown model "forest": expected "logistic" or "gbdt""#
        );
        assert!(family.is_data_error());
        let kind = TimeKind::parse("visits").unwrap_err();
        assert!(matches!(
            kind.kind(),
            ErrorKind::UnknownName { setting: "time kind", found, .. } if found == "visits"
        ));
        assert_eq!(
            kind.to_string(),
            r#"unknown time kind "visits": expected "calendar" or "order_within_entity""#
        );
        // Three names or more: commas, then "or".
        let three = Error::unknown_name("colour", "mauve", &["red", "green", "blue"]);
        assert_eq!(
            three.to_string(),
            r#"unknown colour "mauve": expected "red", "green" or "blue""#
        );
        // A hostile name is cut in the message, kept whole in the error.
        let long = "x".repeat(10_000);
        let cut = Error::unknown_name("model", &long, &["logistic", "gbdt"]);
        assert!(cut.to_string().len() < 500, "{}", cut.to_string().len());
        assert!(matches!(cut.kind(), ErrorKind::UnknownName { found, .. } if *found == long));
        assert_eq!(ModelSpec::parse_family("gbdt").unwrap().family(), "gbdt");
        assert_eq!(
            TimeKind::parse("order_within_entity").unwrap(),
            TimeKind::OrderWithinEntity
        );
    }
}
