//! The charts' colours: sRGB values, their hex spellings for SVG text and Vega-Lite, and
//! the rule that picks dark or light text on a fill (WCAG contrast).

use plotters::style::{RGBAColor, ShapeStyle};

use super::Outcome;

/// An sRGB colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Rgb(pub(crate) u8, pub(crate) u8, pub(crate) u8);

impl Rgb {
    pub(crate) fn hex(self) -> String {
        format!("#{:02X}{:02X}{:02X}", self.0, self.1, self.2)
    }

    /// Mixes `amount` (0..1) of white into the colour.
    pub(crate) fn tint(self, amount: f64) -> Rgb {
        let mix = |c: u8| (f64::from(c) + (255.0 - f64::from(c)) * amount).round() as u8;
        Rgb(mix(self.0), mix(self.1), mix(self.2))
    }

    pub(crate) fn style(self, alpha: f64, filled: bool, stroke_width: u32) -> ShapeStyle {
        ShapeStyle {
            color: RGBAColor(self.0, self.1, self.2, alpha),
            filled,
            stroke_width,
        }
    }

    /// WCAG relative luminance.
    pub(crate) fn luminance(self) -> f64 {
        let lin = |c: u8| {
            let c = f64::from(c) / 255.0;
            if c <= 0.040_45 {
                c / 12.92
            } else {
                libm::pow((c + 0.055) / 1.055, 2.4)
            }
        };
        0.2126 * lin(self.0) + 0.7152 * lin(self.1) + 0.0722 * lin(self.2)
    }
}

/// Text and axis ink.
pub(crate) const INK: Rgb = Rgb(0x1A, 0x1A, 0x1A);
pub(crate) const INK_HEX: &str = "#1A1A1A";
pub(crate) const MUTED_HEX: &str = "#4D4D4D";
pub(crate) const TICK_HEX: &str = "#333333";
pub(crate) const WHITE: Rgb = Rgb(0xFF, 0xFF, 0xFF);
pub(crate) const GRIDLINE: Rgb = Rgb(0xE3, 0xE3, 0xE3);
pub(crate) const AXIS_LINE: Rgb = Rgb(0x59, 0x59, 0x59);
pub(crate) const EMPTY_CELL: Rgb = Rgb(0xF0, 0xF0, 0xF0);
/// Okabe–Ito blue: the claim's statistic.
pub(crate) const PRIMARY: Rgb = Rgb(0x00, 0x72, 0xB2);
/// Context series, in order: grey, reddish purple, sky blue, black.
pub(crate) const CONTEXT: [Rgb; 4] = [
    Rgb(0x7F, 0x7F, 0x7F),
    Rgb(0xCC, 0x79, 0xA7),
    Rgb(0x56, 0xB4, 0xE9),
    Rgb(0x00, 0x00, 0x00),
];
/// Histogram bars and the observed line.
pub(crate) const BAR: Rgb = Rgb(0x9C, 0xC3, 0xE0);
pub(crate) const OBSERVED: Rgb = Rgb(0xD5, 0x5E, 0x00);

/// Okabe–Ito hues for the outcomes (markers and legend).
pub(crate) fn outcome_rgb(outcome: Outcome) -> Rgb {
    match outcome {
        Outcome::Supports => Rgb(0x00, 0x9E, 0x73),
        Outcome::Inconclusive => Rgb(0xE6, 0x9F, 0x00),
        Outcome::Rejected => Rgb(0xD5, 0x5E, 0x00),
    }
}

/// Heatmap fill for an outcome: the hue lightened so that dark text reads on it.
pub(crate) fn cell_fill(outcome: Outcome) -> Rgb {
    outcome_rgb(outcome).tint(0.35)
}

/// Dark ink or white, whichever contrasts more with `fill` (WCAG contrast ratio).
pub(crate) fn text_on(fill: Rgb) -> &'static str {
    let l = fill.luminance();
    let dark = (l + 0.05) / (INK.luminance() + 0.05);
    let light = 1.05 / (l + 0.05);
    if dark >= light {
        INK_HEX
    } else {
        "#FFFFFF"
    }
}

pub(crate) fn outcome_hex(outcome: Outcome) -> String {
    outcome_rgb(outcome).hex()
}

pub(crate) fn cell_fill_hex(outcome: Outcome) -> String {
    cell_fill(outcome).hex()
}

pub(crate) fn primary_hex() -> String {
    PRIMARY.hex()
}

pub(crate) fn context_hex(i: usize) -> String {
    CONTEXT[i % CONTEXT.len()].hex()
}

pub(crate) fn bar_hex() -> String {
    BAR.hex()
}

pub(crate) fn observed_hex() -> String {
    OBSERVED.hex()
}
