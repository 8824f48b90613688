//! The library's one error type: "could not even look" (I/O, unreadable or invalid input).
//!
//! Verdicts and undefined metrics are values, never errors. Messages are lower-case and
//! name the file, row, column or JSON path they are about.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use crate::json_path::JsonPath;
use crate::words::{Budget, LibraryWords, OverBudget, Text, Words};

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
        /// What is wrong (it may name an option: each front end writes it its way).
        message: Text,
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
    /// No packs folder was named and the default one is not there.
    NoPacksFolder {
        /// The default folder looked for (`fixtures/packs`).
        looked: PathBuf,
        /// The working directory it was looked for under.
        cwd: String,
    },
    /// An input is larger than a budget allows (bytes, columns, rows): nothing past the
    /// budget was read or allocated. Typed (which budget, its limit, the amount needed),
    /// so that each front end names the option that raises it in its own words.
    OverBudget(OverBudget),
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
    /// Any other invalid input, with its own message (it may name an option).
    Invalid(Text),
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
        message: impl Into<Text>,
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

    /// An input over a budget: `budget` in force `limit`, the input needing `needed` (when
    /// known).
    pub fn over_budget(
        path: impl Into<PathBuf>,
        budget: Budget,
        limit: u64,
        needed: Option<u64>,
    ) -> Self {
        ErrorKind::OverBudget(OverBudget {
            path: path.into(),
            budget,
            limit,
            needed,
        })
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
    pub fn invalid(message: impl Into<Text>) -> Self {
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

impl Error {
    /// The message with every option it names in `words` (a front end's: `--keep x` or
    /// `keep=["x"]`); `Display` is this in the library's own words.
    pub fn render(&self, words: &dyn Words) -> String {
        match &*self.0 {
            ErrorKind::Io { path, source } => format!("{}: {source}", path.display()),
            ErrorKind::Pack { path, message } => format!("{}: {message}", path.display()),
            ErrorKind::Data {
                path,
                row,
                column,
                message,
            } => {
                let mut text = path.display().to_string();
                if let Some(row) = row {
                    text.push_str(&format!(": row {row}"));
                }
                if let Some(column) = column {
                    text.push_str(&format!(", column {column:?}"));
                }
                format!("{text}: {}", message.render(words))
            }
            ErrorKind::Experiment { path, message } => format!("experiment {path}: {message}"),
            ErrorKind::UnknownPack {
                id,
                known,
                unreadable,
            } => {
                let mut text = format!("unknown pack {id:?} (known: {})", known.join(", "));
                for (dir, why) in unreadable {
                    text.push_str(&format!(
                        "; {} cannot be read, so its pack is unknown: {}",
                        dir.join("pack.toml").display(),
                        one_line(why)
                    ));
                }
                text
            }
            ErrorKind::NoPacksFolder { looked, cwd } => format!(
                "{}: no packs folder here: looked for {} under {cwd}; run from the repository root, or pass {}: a folder of pack folders, or one pack folder",
                looked.display(),
                looked.display(),
                words.option(crate::words::Opt::Packs, Some("DIR"))
            ),
            ErrorKind::OverBudget(over) => over.render(words),
            ErrorKind::UnknownName {
                setting,
                found,
                expected,
            } => {
                let mut text = format!(
                    "unknown {setting} {}: expected ",
                    crate::words::excerpt(found)
                );
                for (i, name) in expected.iter().enumerate() {
                    match i {
                        0 => {}
                        _ if i + 1 == expected.len() => text.push_str(" or "),
                        _ => text.push_str(", "),
                    }
                    text.push_str(&format!("{name:?}"));
                }
                text
            }
            ErrorKind::Invalid(message) => message.render(words),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(&LibraryWords))
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
