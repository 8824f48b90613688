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

#[cfg(test)]
mod tests {
    use super::safe;

    #[test]
    fn control_and_bidi_characters_are_escaped() {
        assert_eq!(safe("random_rows"), "random_rows");
        assert_eq!(safe("a\u{1b}[32mSUPPORTS"), "a\\u{1b}[32mSUPPORTS");
        assert_eq!(safe("nul\0"), "nul\\u{0}");
        assert_eq!(safe("csi\u{9b}"), "csi\\u{9b}");
        assert_eq!(safe("rtl\u{202e}"), "rtl\\u{202e}");
        assert_eq!(safe("line\nbreak"), "line\\u{a}break");
    }
}
