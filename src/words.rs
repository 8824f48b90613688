//! The options a library message names, held as values so that each front end writes them
//! in its own words (issue 42: "core messages free of CLI flag names").
//!
//! The library never spells a command-line flag or a Python keyword argument. A message
//! that tells the reader which option to change holds it as an [`Opt`] inside a [`Text`];
//! an input over a budget is a typed [`OverBudget`] (which budget, its limit, the amount
//! needed). A front end renders them through its own [`Words`]: the CLI writes `--keep x`
//! and `--max-fixture-bytes 41234567` (`src/cli/`), the Python package `keep=["x"]` and
//! `max_fixture_bytes=41234567` (`python/src/lib.rs`). `Display` — what a Rust caller of
//! the library reads — uses [`LibraryWords`]: the option's name as the front ends' option
//! structs spell it (`keep = x`).
//!
//! One exception: a verification report is one document, byte for byte the same from
//! every front end (its hash is part of it), so a reason in a report names an option in
//! both spellings ([`ReportWords`]: `--max-work W (Python: max_work=W)`).

use std::fmt;
use std::path::PathBuf;

/// An option of the front ends that a message can name. Its [`name`](Opt::name) is the
/// library's (the snake-case name the front ends' flags and keyword arguments derive from).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Opt {
    /// The entity column (`init`, `audit`, `metrics`).
    Entity,
    /// The label column.
    Label,
    /// The positive label text.
    Positive,
    /// The time column.
    Time,
    /// What the time column means.
    TimeKind,
    /// The column marking a user's own test rows.
    TestColumn,
    /// A suspect column kept as a feature.
    Keep,
    /// A column left out of the features.
    Drop,
    /// Exactly these features.
    Features,
    /// The texts read as a missing value.
    MissingValues,
    /// `audit`'s materiality margin on the ROC AUC gap.
    Margin,
    /// `metrics`: the score column.
    Score,
    /// `metrics`: the second score column.
    Score2,
    /// `metrics`: read more than two label texts as positive against the rest.
    OneVsRest,
    /// The packs folder.
    Packs,
    /// The byte budget of a table's CSV (`pack::LoadLimits::max_bytes`).
    MaxFixtureBytes,
    /// The column budget of a table (`pack::LoadLimits::max_columns`).
    MaxColumns,
    /// The row budget of a table (`pack::LoadLimits::max_rows`).
    MaxRows,
    /// The byte budget of a document to verify (`VerifyOptions::max_payload_bytes`).
    MaxPayloadBytes,
    /// The work budget of a verification (`VerifyOptions::max_work`).
    MaxWork,
    /// The prepared designs' budget of a verification (`VerifyOptions::max_design_bytes`).
    MaxDesignBytes,
    /// `metrics`: the byte budget of a predictions CSV.
    MaxBytes,
}

impl Opt {
    /// The library's name of the option, in snake case (`test_column`, `max_fixture_bytes`).
    pub fn name(self) -> &'static str {
        match self {
            Opt::Entity => "entity",
            Opt::Label => "label",
            Opt::Positive => "positive",
            Opt::Time => "time",
            Opt::TimeKind => "time_kind",
            Opt::TestColumn => "test_column",
            Opt::Keep => "keep",
            Opt::Drop => "drop",
            Opt::Features => "features",
            Opt::MissingValues => "missing_values",
            Opt::Margin => "margin",
            Opt::Score => "score",
            Opt::Score2 => "score2",
            Opt::OneVsRest => "one_vs_rest",
            Opt::Packs => "packs",
            Opt::MaxFixtureBytes => "max_fixture_bytes",
            Opt::MaxColumns => "max_columns",
            Opt::MaxRows => "max_rows",
            Opt::MaxPayloadBytes => "max_payload_bytes",
            Opt::MaxWork => "max_work",
            Opt::MaxDesignBytes => "max_design_bytes",
            Opt::MaxBytes => "max_bytes",
        }
    }
}

/// How a front end writes an option, with the value a message gives it (a column name, a
/// number, `DIR`), or alone.
pub trait Words {
    /// The option as this front end writes it.
    fn option(&self, opt: Opt, value: Option<&str>) -> String;
}

/// The library's own words: the option's [`name`](Opt::name), then ` = ` and the value
/// (`keep = x`, `max_fixture_bytes = 41234567`).
#[derive(Debug, Clone, Copy, Default)]
pub struct LibraryWords;

impl Words for LibraryWords {
    fn option(&self, opt: Opt, value: Option<&str>) -> String {
        match value {
            Some(v) => format!("{} = {v}", opt.name()),
            None => opt.name().to_owned(),
        }
    }
}

/// The words of a verification report, one document for every front end: both the
/// command line's and the Python package's spelling (`--max-work 5 (Python: max_work=5)`).
#[derive(Debug, Clone, Copy, Default)]
pub struct ReportWords;

impl Words for ReportWords {
    fn option(&self, opt: Opt, value: Option<&str>) -> String {
        let flag = format!("--{}", opt.name().replace('_', "-"));
        match value {
            Some(v) => format!("{flag} {v} (Python: {}={v})", opt.name()),
            None => format!("{flag} (Python: {})", opt.name()),
        }
    }
}

/// A piece of a [`Text`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// Words as they are.
    Plain(String),
    /// An option, with the value the message gives it.
    Opt(Opt, Option<String>),
}

/// A message that may name options: plain words and [`Opt`]s, which each front end
/// renders in its own [`Words`]. `Display` renders [`LibraryWords`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Text(Vec<Part>);

impl Text {
    /// Plain words.
    pub fn plain(text: impl Into<String>) -> Text {
        Text(vec![Part::Plain(text.into())])
    }

    /// An option alone (`--keep`).
    pub fn opt(opt: Opt) -> Text {
        Text(vec![Part::Opt(opt, None)])
    }

    /// An option with a value (`--keep x`).
    pub fn opt_value(opt: Opt, value: impl Into<String>) -> Text {
        Text(vec![Part::Opt(opt, Some(value.into()))])
    }

    /// This text followed by `more`.
    #[must_use]
    pub fn then(mut self, more: impl Into<Text>) -> Text {
        self.0.extend(more.into().0);
        self
    }

    /// The pieces.
    pub fn parts(&self) -> &[Part] {
        &self.0
    }

    /// Whether the text names an option.
    pub fn names_an_option(&self) -> bool {
        self.0.iter().any(|p| matches!(p, Part::Opt(..)))
    }

    /// The text with its options in `words`.
    pub fn render(&self, words: &dyn Words) -> String {
        self.0
            .iter()
            .map(|p| match p {
                Part::Plain(text) => text.clone(),
                Part::Opt(opt, value) => words.option(*opt, value.as_deref()),
            })
            .collect()
    }
}

impl From<String> for Text {
    fn from(text: String) -> Text {
        Text::plain(text)
    }
}

impl From<&str> for Text {
    fn from(text: &str) -> Text {
        Text::plain(text)
    }
}

impl From<&String> for Text {
    fn from(text: &String) -> Text {
        Text::plain(text.clone())
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(&LibraryWords))
    }
}

/// Which budget an input was over ([`OverBudget`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Budget {
    /// The bytes of a table's CSV: a pack's fixture, the CSV of `init` or `audit`
    /// ([`Opt::MaxFixtureBytes`]).
    FixtureBytes,
    /// The columns of a table's header ([`Opt::MaxColumns`]).
    Columns,
    /// The model columns a table's features make, one per level of a categorical column
    /// ([`Opt::MaxColumns`] too).
    ModelColumns,
    /// The data rows of a table ([`Opt::MaxRows`]).
    Rows,
    /// The bytes of a document to verify ([`Opt::MaxPayloadBytes`]).
    PayloadBytes,
    /// The bytes of a `metrics` predictions CSV ([`Opt::MaxBytes`]).
    PredictionsBytes,
    /// A limit no option raises, on the bytes of the input named: an experiment file, a
    /// `pack.toml`, a prediction.
    Fixed(&'static str),
    /// A limit no option raises, on the header columns of the input named (a `metrics`
    /// predictions CSV).
    FixedColumns(&'static str),
}

impl Budget {
    /// The option that raises the budget (none for a [`Budget::Fixed`] one).
    pub fn option(self) -> Option<Opt> {
        match self {
            Budget::FixtureBytes => Some(Opt::MaxFixtureBytes),
            Budget::Columns | Budget::ModelColumns => Some(Opt::MaxColumns),
            Budget::Rows => Some(Opt::MaxRows),
            Budget::PayloadBytes => Some(Opt::MaxPayloadBytes),
            Budget::PredictionsBytes => Some(Opt::MaxBytes),
            Budget::Fixed(_) | Budget::FixedColumns(_) => None,
        }
    }

    /// The unit counted, singular and plural.
    fn unit(self) -> (&'static str, &'static str) {
        match self {
            Budget::Columns | Budget::FixedColumns(_) => ("column", "columns"),
            Budget::ModelColumns => ("column", "model columns"),
            Budget::Rows => ("row", "rows"),
            _ => ("byte", "bytes"),
        }
    }

    /// The largest value the option accepts: the loader's and the verifier's ranges are
    /// defined from these (`pack::LoadLimits::MAX_*_LIMIT`,
    /// `verify::MAX_PAYLOAD_BYTES_LIMIT`), so that messages depend on nothing else.
    pub const fn most(self) -> u64 {
        match self {
            // A byte count the loader reads into one buffer indexed by u32.
            Budget::FixtureBytes => u32::MAX as u64,
            // A header of this many columns costs its names, and a row as many fields.
            Budget::Columns | Budget::ModelColumns => 1 << 20,
            // Row indices are 32-bit.
            Budget::Rows => u32::MAX as u64,
            Budget::PayloadBytes => 16 << 20,
            Budget::PredictionsBytes | Budget::Fixed(_) | Budget::FixedColumns(_) => u64::MAX,
        }
    }
}

/// An input over a budget: which budget, the limit in force and the amount that would
/// pass (when it is known: a file's size, a header's columns, a table's rows). Nothing
/// past the budget was allocated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OverBudget {
    /// The file (or `DataFrame`, a name).
    pub path: PathBuf,
    /// Which budget.
    pub budget: Budget,
    /// The budget in force.
    pub limit: u64,
    /// The amount the input has, hence the least budget that passes; `None` when only
    /// "more than the limit" is known (a file that grew while it was read).
    pub needed: Option<u64>,
}

impl OverBudget {
    /// The message, with the option that passes in `words`: `data.csv: 41,234,567 bytes,
    /// over the 33,554,432-byte budget: pass --max-fixture-bytes 41234567 or more`.
    pub fn render(&self, words: &dyn Words) -> String {
        let (one, many) = self.budget.unit();
        let amount = match self.needed {
            Some(n) => format!("{} {many}", grouped(n)),
            None => format!("more than {} {many}", grouped(self.limit)),
        };
        let what = match self.budget {
            Budget::ModelColumns => {
                format!("the features make {amount} (one per level of a categorical column)")
            }
            _ => amount,
        };
        let head = format!(
            "{}: {what}, over the {}-{one} budget",
            self.path.display(),
            grouped(self.limit)
        );
        let Some(opt) = self.budget.option() else {
            let (Budget::Fixed(input) | Budget::FixedColumns(input)) = self.budget else {
                unreachable!("only a fixed budget has no option")
            };
            return format!("{head} of {input}: a fixed limit, no option raises it");
        };
        let most = self.budget.most();
        let pass = match self.needed {
            Some(n) if n > most => format!(
                "no budget reads it: {} is the most it takes",
                words.option(opt, Some(&most.to_string()))
            ),
            Some(n) => format!("pass {} or more", words.option(opt, Some(&n.to_string()))),
            None => format!(
                "pass {} with more than {}",
                words.option(opt, None),
                self.limit
            ),
        };
        let also = match self.budget {
            Budget::ModelColumns => format!(
                ", or leave categorical columns with many levels out ({})",
                words.option(Opt::Drop, None)
            ),
            _ => String::new(),
        };
        format!("{head}: {pass}{also}")
    }
}

impl fmt::Display for OverBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(&LibraryWords))
    }
}

/// A count with thousands separators (`41,234,567`).
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The most characters of a cell [`excerpt`] shows.
const EXCERPT_CHARS: usize = 40;

/// A cell's text for a message: at most 40 characters, quoted and escaped (`{:?}`), with
/// how much was left out.
pub fn excerpt(text: &str) -> String {
    let count = text.chars().count();
    if count <= EXCERPT_CHARS {
        format!("{text:?}")
    } else {
        let head: String = text.chars().take(EXCERPT_CHARS).collect();
        format!("{head:?}… ({} more characters)", count - EXCERPT_CHARS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A front end's words for the tests: `<name:value>`.
    struct Marked;

    impl Words for Marked {
        fn option(&self, opt: Opt, value: Option<&str>) -> String {
            format!("<{}:{}>", opt.name(), value.unwrap_or(""))
        }
    }

    #[test]
    fn counts_are_grouped_by_thousands() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
        assert_eq!(grouped(33_554_432), "33,554,432");
        assert_eq!(grouped(u64::MAX), "18,446,744,073,709,551,615");
    }

    #[test]
    fn a_text_renders_its_options_in_the_words_given() {
        let text = Text::plain("keep it (")
            .then(Text::opt_value(Opt::Keep, "x"))
            .then(")");
        assert_eq!(text.render(&Marked), "keep it (<keep:x>)");
        assert_eq!(text.to_string(), "keep it (keep = x)");
        assert!(text.names_an_option());
        assert!(!Text::plain("--keep").names_an_option());
    }

    #[test]
    fn an_over_budget_message_names_the_option_and_a_value_that_passes() {
        let over = OverBudget {
            path: "data.csv".into(),
            budget: Budget::FixtureBytes,
            limit: 33_554_432,
            needed: Some(41_234_567),
        };
        assert_eq!(
            over.render(&Marked),
            "data.csv: 41,234,567 bytes, over the 33,554,432-byte budget: pass <max_fixture_bytes:41234567> or more"
        );
        let too_many = OverBudget {
            needed: Some(u64::from(u32::MAX) + 1),
            ..over.clone()
        };
        assert!(too_many
            .render(&Marked)
            .ends_with("no budget reads it: <max_fixture_bytes:4294967295> is the most it takes"));
        let unknown = OverBudget {
            needed: None,
            ..over
        };
        assert!(unknown
            .render(&Marked)
            .ends_with("more than 33,554,432 bytes, over the 33,554,432-byte budget: pass <max_fixture_bytes:> with more than 33554432"));
        let fixed = OverBudget {
            path: "e.json".into(),
            budget: Budget::Fixed("an experiment file"),
            limit: 1 << 20,
            needed: Some(2 << 20),
        };
        assert_eq!(
            fixed.render(&Marked),
            "e.json: 2,097,152 bytes, over the 1,048,576-byte budget of an experiment file: a fixed limit, no option raises it"
        );
        let levels = OverBudget {
            path: "d.csv".into(),
            budget: Budget::ModelColumns,
            limit: 1024,
            needed: Some(1500),
        };
        assert_eq!(
            levels.render(&Marked),
            "d.csv: the features make 1,500 model columns (one per level of a categorical column), over the 1,024-column budget: pass <max_columns:1500> or more, or leave categorical columns with many levels out (<drop:>)"
        );
    }
}
