//! Terminal styling: ANSI colour only on a terminal and only without `NO_COLOR`.

use std::io::IsTerminal;

use counterlab::words::{Opt, Words};
use counterlab::{Error, ErrorKind};

fn colour_enabled(stream_is_terminal: bool) -> bool {
    stream_is_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

fn paint(code: &str, text: &str, stream_is_terminal: bool) -> String {
    if colour_enabled(stream_is_terminal) {
        format!("\x1b[{code}m{text}\x1b[0m")
    } else {
        text.to_owned()
    }
}

/// `error:` in red on stderr.
pub(crate) fn error_tag() -> String {
    paint("1;31", "error:", std::io::stderr().is_terminal())
}

/// Coloured text on stdout (ANSI SGR code).
pub(crate) fn paint_stdout(code: &str, text: &str) -> String {
    paint(code, text, std::io::stdout().is_terminal())
}

/// Bold text on stdout.
pub(crate) fn bold(text: &str) -> String {
    paint("1", text, std::io::stdout().is_terminal())
}

/// `text` made safe for a terminal: every control character (C0, DEL, C1: what starts an
/// ANSI escape sequence, moves the cursor or rings the bell) and every invisible format
/// character that reorders or hides text (bidirectional overrides and isolates, zero-width
/// characters, the byte-order mark) is shown escaped as `\u{…}`. Text from payloads, packs and CSV files
/// goes through here before it reaches a terminal, so no input can paint over a verdict;
/// JSON output (`--json`) is printed as serde_json writes it.
pub(crate) fn safe(text: &str) -> std::borrow::Cow<'_, str> {
    let needs_escape = |c: char| {
        c.is_control()
            || matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}')
    };
    if !text.chars().any(needs_escape) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if needs_escape(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// A message the library composed for a person to read, made safe for a terminal with its
/// line breaks kept: the library lays a hint or a list out as lines, and quotes every value
/// it takes from data (`{:?}`, so a newline in a cell or a column name arrives as the two
/// characters `\n`). Each line goes through [`safe`], so any other control character stays
/// escaped whatever its origin.
pub(crate) fn lines(text: &str) -> String {
    text.split('\n').map(safe).collect::<Vec<_>>().join("\n")
}

/// The command line's words for an option a library message names: its flag, with the
/// value the message gives it (`--keep x`, `--max-fixture-bytes 41234567`). The library
/// never spells a flag (`counterlab::words`).
pub(crate) struct CliWords;

impl Words for CliWords {
    fn option(&self, opt: Opt, value: Option<&str>) -> String {
        let flag = format!("--{}", opt.name().replace('_', "-"));
        match value {
            Some(v) => format!("{flag} {v}"),
            None => flag,
        }
    }
}

/// A library error as its `Display` writes it but with the options it names as flags
/// ([`CliWords`]), made safe for a terminal: the paths and names it holds escaped whole (a
/// file name may hold a newline), its message by [`lines`].
pub(crate) fn error(error: &Error) -> String {
    let path = |p: &std::path::Path| safe(&p.display().to_string()).into_owned();
    match error.kind() {
        ErrorKind::Pack { path: at, message } => format!("{}: {}", path(at), lines(message)),
        ErrorKind::Data {
            path: at,
            row,
            column,
            message,
        } => {
            let mut text = path(at);
            if let Some(row) = row {
                text.push_str(&format!(": row {row}"));
            }
            if let Some(column) = column {
                text.push_str(&format!(", column {}", safe(&format!("{column:?}"))));
            }
            format!("{text}: {}", lines(&message.render(&CliWords)))
        }
        ErrorKind::Experiment { path: at, message } => {
            format!("experiment {}: {}", safe(&at.to_string()), lines(message))
        }
        ErrorKind::Invalid(message) => lines(&message.render(&CliWords)),
        // One line each: I/O, unknown pack, over a budget (and any later kind).
        _ => safe(&error.render(&CliWords)).into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::{error, lines, safe};
    use counterlab::Error;

    #[test]
    fn control_and_bidi_characters_are_escaped() {
        assert_eq!(safe("random_rows"), "random_rows");
        assert_eq!(safe("a\u{1b}[32mSUPPORTS"), "a\\u{1b}[32mSUPPORTS");
        assert_eq!(safe("nul\0"), "nul\\u{0}");
        assert_eq!(safe("csi\u{9b}"), "csi\\u{9b}");
        assert_eq!(safe("rtl\u{202e}"), "rtl\\u{202e}");
        assert_eq!(safe("line\nbreak"), "line\\u{a}break");
    }

    #[test]
    fn messages_keep_their_line_breaks_and_nothing_else() {
        assert_eq!(lines("first\nhow to fix: x"), "first\nhow to fix: x");
        assert_eq!(
            lines("a\u{1b}[2K\r\nb\u{202e}"),
            "a\\u{1b}[2K\\u{d}\nb\\u{202e}"
        );
    }

    /// Without control characters the terminal shows an error exactly as `Display` writes it.
    #[test]
    fn errors_read_as_their_display() {
        for e in [
            Error::data(
                "d.csv",
                Some(3),
                Some("x"),
                "not a number: \"a\"\nhow to fix: y",
            ),
            Error::data("d.csv", None, None, "no rows"),
            Error::invalid("no column can be a feature:\n  \"a\": constant"),
            Error::io("d.csv", std::io::Error::other("gone")),
        ] {
            assert_eq!(error(&e), e.to_string());
        }
    }

    /// An option the library names reads as its flag, with the value that passes.
    #[test]
    fn options_read_as_flags() {
        use counterlab::words::{Budget, Opt, Text};
        let e = Error::over_budget("d.csv", Budget::Rows, 4, Some(7));
        assert_eq!(
            error(&e),
            "d.csv: 7 rows, over the 4-row budget: pass --max-rows 7 or more"
        );
        let e = Error::invalid(
            Text::plain("keep it (")
                .then(Text::opt_value(Opt::Keep, "x"))
                .then(")"),
        );
        assert_eq!(error(&e), "keep it (--keep x)");
        assert_eq!(e.to_string(), "keep it (keep = x)");
    }

    #[test]
    fn data_in_an_error_stays_escaped() {
        let e = Error::data("a\nb.csv", Some(1), Some("c\u{1b}\n"), "bad\nhint");
        assert_eq!(
            error(&e),
            "a\\u{a}b.csv: row 1, column \"c\\u{1b}\\n\": bad\nhint"
        );
    }
}
