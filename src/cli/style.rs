//! Terminal styling: ANSI colour only on a terminal and only without `NO_COLOR`.

use std::io::IsTerminal;

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
