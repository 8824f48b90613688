//! Text for the SVG charts: width estimates, word wrapping and `<text>` elements.
//!
//! plotters (without its `ttf`/`ab_glyph` features) can put text into an SVG, but it
//! estimates widths from the UTF-8 byte count and prints `font-size` as `size / 1.24` at
//! full float precision. Layout here needs better widths (long labels must wrap instead of
//! overlapping) and every number in the file has fixed decimals, so the charts draw shapes
//! with plotters and write their text elements here (see `super` for the whole decision).

use std::fmt::Write as _;

/// The font stack of every text element. Widths are estimated from DejaVu Sans (the widest
/// of these, and what `sans-serif` resolves to on most Linux systems); the others are
/// narrower, so text laid out for DejaVu Sans never overlaps when drawn with them.
pub(crate) const FONT_FAMILY: &str = "DejaVu Sans, Verdana, Arial, Helvetica, sans-serif";

/// Advance widths of DejaVu Sans Book and DejaVu Sans Bold for U+0020..=U+007E, in
/// thousandths of an em: `[regular, bold]`, one character a row.
const ADVANCES: [[u16; 2]; 95] = [
    [318, 348],   // ' '
    [401, 456],   // '!'
    [460, 521],   // '"'
    [838, 838],   // '#'
    [636, 696],   // '$'
    [950, 1002],  // '%'
    [780, 872],   // '&'
    [275, 306],   // '\''
    [390, 457],   // '('
    [390, 457],   // ')'
    [500, 523],   // '*'
    [838, 838],   // '+'
    [318, 380],   // ','
    [361, 415],   // '-'
    [318, 380],   // '.'
    [337, 365],   // '/'
    [636, 696],   // '0'
    [636, 696],   // '1'
    [636, 696],   // '2'
    [636, 696],   // '3'
    [636, 696],   // '4'
    [636, 696],   // '5'
    [636, 696],   // '6'
    [636, 696],   // '7'
    [636, 696],   // '8'
    [636, 696],   // '9'
    [337, 400],   // ':'
    [337, 400],   // ';'
    [838, 838],   // '<'
    [838, 838],   // '='
    [838, 838],   // '>'
    [531, 580],   // '?'
    [1000, 1000], // '@'
    [684, 774],   // 'A'
    [686, 762],   // 'B'
    [698, 734],   // 'C'
    [770, 830],   // 'D'
    [632, 683],   // 'E'
    [575, 683],   // 'F'
    [775, 821],   // 'G'
    [752, 837],   // 'H'
    [295, 372],   // 'I'
    [295, 372],   // 'J'
    [656, 775],   // 'K'
    [557, 637],   // 'L'
    [863, 995],   // 'M'
    [748, 837],   // 'N'
    [787, 850],   // 'O'
    [603, 733],   // 'P'
    [787, 850],   // 'Q'
    [695, 770],   // 'R'
    [635, 720],   // 'S'
    [611, 682],   // 'T'
    [732, 812],   // 'U'
    [684, 774],   // 'V'
    [989, 1103],  // 'W'
    [685, 771],   // 'X'
    [611, 724],   // 'Y'
    [685, 725],   // 'Z'
    [390, 457],   // '['
    [337, 365],   // '\\'
    [390, 457],   // ']'
    [838, 838],   // '^'
    [500, 500],   // '_'
    [500, 500],   // '`'
    [613, 675],   // 'a'
    [635, 716],   // 'b'
    [550, 593],   // 'c'
    [635, 716],   // 'd'
    [615, 678],   // 'e'
    [352, 435],   // 'f'
    [635, 716],   // 'g'
    [634, 712],   // 'h'
    [278, 343],   // 'i'
    [278, 343],   // 'j'
    [579, 665],   // 'k'
    [278, 343],   // 'l'
    [974, 1042],  // 'm'
    [634, 712],   // 'n'
    [612, 687],   // 'o'
    [635, 716],   // 'p'
    [635, 716],   // 'q'
    [411, 493],   // 'r'
    [521, 595],   // 's'
    [392, 478],   // 't'
    [634, 712],   // 'u'
    [592, 652],   // 'v'
    [818, 924],   // 'w'
    [592, 645],   // 'x'
    [592, 652],   // 'y'
    [525, 582],   // 'z'
    [636, 712],   // '{'
    [337, 365],   // '|'
    [636, 712],   // '}'
    [838, 838],   // '~'
];

/// Width of one character in thousandths of an em. Characters outside the table count as a
/// full em (CJK width): an overestimate only costs space.
fn advance(c: char, bold: bool) -> u32 {
    match c {
        ' '..='~' => u32::from(ADVANCES[c as usize - 0x20][usize::from(bold)]),
        '\u{2212}' | '\u{00D7}' | '\u{2265}' | '\u{2264}' | '\u{00B1}' => 838,
        '\u{2013}' => 500,
        '\u{00B7}' => 380,
        _ => 1000,
    }
}

/// Estimated rendered width of `s` in pixels at font size `size`.
pub(crate) fn width(s: &str, size: f64, bold: bool) -> f64 {
    let units: u32 = s.chars().map(|c| advance(c, bold)).sum();
    f64::from(units) * size / 1000.0
}

/// The widest of `lines`.
pub(crate) fn max_width(lines: &[String], size: f64, bold: bool) -> f64 {
    lines
        .iter()
        .map(|l| width(l, size, bold))
        .fold(0.0, f64::max)
}

/// Greedy word wrap of `s` into lines no wider than `max` pixels; a word wider than `max` on
/// its own is broken between characters. Runs of whitespace become one space. Never returns
/// an empty list (an empty string gives one empty line).
pub(crate) fn wrap(s: &str, size: f64, bold: bool, max: f64) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in s.split_whitespace() {
        let candidate = if line.is_empty() {
            word.to_string()
        } else {
            format!("{line} {word}")
        };
        if width(&candidate, size, bold) <= max {
            line = candidate;
            continue;
        }
        if !line.is_empty() {
            lines.push(std::mem::take(&mut line));
        }
        // The word starts a new line; break it if it is too wide by itself.
        for c in word.chars() {
            line.push(c);
            if width(&line, size, bold) > max && line.chars().count() > 1 {
                line.pop();
                lines.push(std::mem::take(&mut line));
                line.push(c);
            }
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// True if wrapping `s` at `max` pixels needs no word to be broken.
pub(crate) fn wraps_at_words(s: &str, size: f64, bold: bool, max: f64) -> bool {
    s.split_whitespace().all(|w| width(w, size, bold) <= max)
}

/// Line advance for a font size: the distance between two baselines.
pub(crate) fn line_height(size: f64) -> f64 {
    size * 1.25
}

/// Horizontal anchor of a text element (SVG `text-anchor`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Anchor {
    Start,
    Middle,
    End,
}

/// One `<text>` element: one or more lines, the first with its baseline at `y`.
#[derive(Debug, Clone)]
pub(crate) struct Text {
    pub(crate) class: &'static str,
    pub(crate) lines: Vec<String>,
    pub(crate) x: f64,
    pub(crate) y: f64,
    pub(crate) size: f64,
    pub(crate) bold: bool,
    pub(crate) anchor: Anchor,
    pub(crate) fill: String,
    /// Rotation in whole degrees about (x, y); 0 for none.
    pub(crate) rotate: i32,
    /// The kernel cell this number comes from (`data-cell-hash`), if any.
    pub(crate) cell_hash: Option<String>,
}

impl Text {
    /// A left-anchored, regular-weight, dark text element.
    pub(crate) fn new(class: &'static str, lines: Vec<String>, x: f64, y: f64, size: f64) -> Self {
        Text {
            class,
            lines,
            x,
            y,
            size,
            bold: false,
            anchor: Anchor::Start,
            fill: super::palette::INK_HEX.to_string(),
            rotate: 0,
            cell_hash: None,
        }
    }

    /// Same, for a single line.
    pub(crate) fn line(class: &'static str, text: &str, x: f64, y: f64, size: f64) -> Self {
        Self::new(class, vec![text.to_string()], x, y, size)
    }

    pub(crate) fn bold(mut self) -> Self {
        self.bold = true;
        self
    }

    pub(crate) fn anchor(mut self, anchor: Anchor) -> Self {
        self.anchor = anchor;
        self
    }

    pub(crate) fn fill(mut self, fill: &str) -> Self {
        self.fill = fill.to_string();
        self
    }

    pub(crate) fn rotate(mut self, degrees: i32) -> Self {
        self.rotate = degrees;
        self
    }

    pub(crate) fn cell_hash(mut self, hash: &str) -> Self {
        self.cell_hash = Some(hash.to_string());
        self
    }

    /// Appends the element to `out`. Coordinates and sizes have one decimal.
    pub(crate) fn write(&self, out: &mut String) {
        let anchor = match self.anchor {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
            Anchor::End => "end",
        };
        let _ = write!(
            out,
            "<text class=\"{}\" x=\"{:.1}\" y=\"{:.1}\" font-size=\"{:.1}\" text-anchor=\"{anchor}\" fill=\"{}\"",
            self.class, self.x, self.y, self.size, self.fill
        );
        if self.bold {
            out.push_str(" font-weight=\"bold\"");
        }
        if self.rotate != 0 {
            let _ = write!(
                out,
                " transform=\"rotate({} {:.1} {:.1})\"",
                self.rotate, self.x, self.y
            );
        }
        if let Some(hash) = &self.cell_hash {
            out.push_str(" data-cell-hash=\"");
            escape_into(out, hash);
            out.push('"');
        }
        out.push('>');
        if let [only] = self.lines.as_slice() {
            escape_into(out, only);
        } else {
            for (i, line) in self.lines.iter().enumerate() {
                let dy = if i == 0 { 0.0 } else { line_height(self.size) };
                let _ = write!(out, "<tspan x=\"{:.1}\" dy=\"{dy:.1}\">", self.x);
                escape_into(out, line);
                out.push_str("</tspan>");
            }
        }
        out.push_str("</text>\n");
    }
}

/// XML-escapes `s` (text content and attribute values alike) onto `out`.
pub(crate) fn escape_into(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Characters XML 1.0 forbids; they cannot come from a sensible label.
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_keeps_words_and_width() {
        let s = "ROC AUC gap between the leaky and the grouped split";
        let lines = wrap(s, 12.0, false, 120.0);
        assert!(lines.len() > 1);
        assert_eq!(lines.join(" "), s);
        assert!(lines.iter().all(|l| width(l, 12.0, false) <= 120.0));
    }

    #[test]
    fn wrap_breaks_overlong_words() {
        let lines = wrap("abcdefghijklmnopqrstuvwxyz", 12.0, false, 40.0);
        assert!(lines.len() > 1);
        assert_eq!(lines.concat(), "abcdefghijklmnopqrstuvwxyz");
        assert!(lines.iter().all(|l| width(l, 12.0, false) <= 40.0));
    }

    #[test]
    fn escaping() {
        let mut out = String::new();
        escape_into(&mut out, "a<b & \"c\"");
        assert_eq!(out, "a&lt;b &amp; &quot;c&quot;");
    }
}
