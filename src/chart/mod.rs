//! Charts of a claim's evidence: boundary maps over one or two axes and permutation null
//! distributions, as SVG and as Vega-Lite v5 specs.
//!
//! Every function here is pure: the same input gives the same bytes (no clock, no hash-order
//! iteration, every number printed with fixed decimals), so a chart can be hashed and
//! compared like any other artefact. Each plotted number of a boundary map is bound to the
//! kernel cell it came from: the Vega-Lite rows carry a `cell_hash`, and so do the value
//! labels of the heatmap SVG (`data-cell-hash`).
//!
//! ## How the SVG is drawn
//!
//! Shapes (cells, bars, lines, bands, markers, dashes) are drawn with plotters' SVG backend,
//! with `default-features = false` and only `svg_backend`: no bitmap backend and no font
//! loading. Without a font feature plotters can still emit text (its fallback font data
//! passes strings through to `<text>` elements), but it sizes them from the UTF-8 byte count
//! and writes `font-size` as `size / 1.24` at full float precision (`16.129032258064516`).
//! So the text elements are written by this module instead (`text.rs`), with widths
//! estimated from DejaVu Sans advance widths (a table of 95 numbers, no font file), which
//! lets long titles and tick labels wrap or rotate instead of overlapping. Bundling a font
//! for `ab_glyph` would only measure a font that the SVG viewer may not use anyway.
//!
//! Outcome colours are the Okabe–Ito hues (bluish green, orange, vermillion), and an outcome
//! is never shown by colour alone: heatmap cells print it, line markers differ in shape
//! (circle, diamond, cross).

mod palette;
mod svg;
mod text;
mod vega;

pub use svg::{grid_svg, histogram_svg, line_svg};
pub use vega::{grid_vega, histogram_vega, line_vega};

/// A claim's outcome in a boundary cell (by the rules of `claim.evidence`), as drawn and as
/// written in a map: a cell outcome, not a verdict (only the verifier answers SUPPORTS on a
/// document).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Outcome {
    /// The evidence supports the claim.
    Supports,
    /// The evidence neither supports nor rejects the claim.
    Inconclusive,
    /// The evidence rejects the claim.
    Rejected,
}

impl Outcome {
    /// Every outcome, in legend order.
    pub const ALL: [Outcome; 3] = [Outcome::Supports, Outcome::Inconclusive, Outcome::Rejected];

    /// The label used in charts and Vega-Lite data: `SUPPORTS`, `INCONCLUSIVE`, `REJECTED`.
    pub fn label(self) -> &'static str {
        match self {
            Outcome::Supports => "SUPPORTS",
            Outcome::Inconclusive => "INCONCLUSIVE",
            Outcome::Rejected => "REJECTED",
        }
    }
}

/// What every chart is captioned with.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Captions {
    /// What is shown, e.g. "Leakage boundary: ROC AUC gap by group size and K".
    pub title: String,
    /// Context, e.g. pack, claim and K, or the number of permutations.
    pub subtitle: String,
    /// The x axis title, with units (a histogram's: the statistic's name).
    pub x_label: String,
}

/// A boundary map over two axes: a heatmap, one cell per (x, y), filled by outcome, labelled
/// by value.
///
/// `y_ticks[0]` is the top row. Cells are expected to be unique per (x, y); a cell whose
/// index is outside the ticks is not drawn (and not put in the Vega-Lite data).
#[derive(Debug, Clone, PartialEq)]
pub struct GridChart {
    /// Title, subtitle and x-axis title.
    pub captions: Captions,
    /// One label per column, left to right.
    pub x_ticks: Vec<String>,
    /// The y axis title, with units.
    pub y_label: String,
    /// One label per row, top to bottom.
    pub y_ticks: Vec<String>,
    /// What the number in a cell is, e.g. "ROC AUC gap (leaky − grouped)".
    pub value_label: String,
    /// The cells.
    pub cells: Vec<GridCell>,
}

/// One cell of a [`GridChart`].
#[derive(Debug, Clone, PartialEq)]
pub struct GridCell {
    /// Column: an index into `x_ticks`.
    pub x: usize,
    /// Row: an index into `y_ticks`.
    pub y: usize,
    /// The number printed in the cell (3 decimals); `None` if the cell has none.
    pub value: Option<f64>,
    /// The 95% confidence interval of the value, `[low, high]`.
    pub ci: Option<[f64; 2]>,
    /// The claim's outcome in this cell (the fill colour).
    pub outcome: Outcome,
    /// The kernel cell hash the value comes from.
    pub cell_hash: String,
}

/// A boundary map over one axis: lines over categorical x positions.
#[derive(Debug, Clone, PartialEq)]
pub struct LineChart {
    /// Title, subtitle and x-axis title.
    pub captions: Captions,
    /// One label per x position, left to right.
    pub x_ticks: Vec<String>,
    /// The y axis title, with units.
    pub y_label: String,
    /// `series[0]` is the claim's statistic; others are context (e.g. majority baseline).
    /// Each has one value per x tick; `None` leaves a gap.
    pub series: Vec<Series>,
    /// 95% CI of `series[0]`, one per x tick.
    pub band: Option<Vec<Option<[f64; 2]>>>,
    /// Horizontal dashed line: the claim's threshold, with its label.
    pub threshold: Option<(String, f64)>,
    /// Per x tick: the marker of `series[0]` shows the outcome.
    pub outcomes: Vec<Outcome>,
    /// Per x tick: the kernel cell hash of that position.
    pub cell_hashes: Vec<String>,
}

/// One line of a [`LineChart`].
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// The legend entry.
    pub name: String,
    /// One value per x tick; `None` leaves a gap.
    pub values: Vec<Option<f64>>,
}

/// A permutation null distribution with the observed statistic marked.
#[derive(Debug, Clone, PartialEq)]
pub struct HistogramChart {
    /// Title, subtitle and x-axis title.
    pub captions: Captions,
    /// The permuted statistics. Non-finite values are not binned (the legend counts them).
    pub values: Vec<f64>,
    /// The statistic on the unpermuted data (a solid vertical line).
    pub observed: f64,
    /// The claim's threshold on the statistic, if any (a dashed vertical line).
    pub threshold: Option<f64>,
}

/// The number of histogram bins: fixed, so that the binning is a plain function of the
/// values' range.
pub(crate) const HISTOGRAM_BINS: usize = 30;

/// A histogram's bins, shared by the SVG and the Vega-Lite spec so that they cannot differ.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Bins {
    /// `HISTOGRAM_BINS + 1` increasing edges; bin `i` is `[edges[i], edges[i + 1])`, the last
    /// bin also holds `edges[HISTOGRAM_BINS]`.
    pub(crate) edges: Vec<f64>,
    /// Values per bin.
    pub(crate) counts: Vec<u64>,
    /// Values left out because they are not finite.
    pub(crate) omitted: usize,
}

/// Bins `chart.values` into [`HISTOGRAM_BINS`] equal-width bins over the smallest range
/// holding every finite value, the observed statistic and the threshold (so both lines fall
/// inside the plot). A zero-width range is widened symmetrically.
pub(crate) fn bins(chart: &HistogramChart) -> Bins {
    let finite = chart.values.iter().copied().filter(|v| v.is_finite());
    let marks = [Some(chart.observed), chart.threshold]
        .into_iter()
        .flatten()
        .filter(|v| v.is_finite());
    let (mut lo, mut hi) = finite
        .chain(marks)
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    if lo > hi {
        (lo, hi) = (0.0, 1.0);
    } else if lo == hi {
        let half = if lo == 0.0 { 0.5 } else { lo.abs() * 0.05 };
        (lo, hi) = (lo - half, hi + half);
    }
    let n = HISTOGRAM_BINS;
    let mut edges: Vec<f64> = (0..n)
        .map(|i| lo + (hi - lo) * (i as f64) / (n as f64))
        .collect();
    edges.push(hi);
    let mut counts = vec![0u64; n];
    let mut omitted = 0;
    for &v in &chart.values {
        if v.is_finite() {
            counts[bin_of(v, &edges)] += 1;
        } else {
            omitted += 1;
        }
    }
    Bins {
        edges,
        counts,
        omitted,
    }
}

/// The bin of a finite `v` inside `[edges[0], edges[last]]`, decided by comparing with the
/// edges themselves (the first guess from division is only a starting point).
fn bin_of(v: f64, edges: &[f64]) -> usize {
    let n = edges.len() - 1;
    let (lo, hi) = (edges[0], edges[n]);
    let guess = ((v - lo) / (hi - lo) * n as f64).floor();
    let mut i = if guess.is_nan() || guess < 0.0 {
        0
    } else {
        (guess as usize).min(n - 1)
    };
    while i > 0 && v < edges[i] {
        i -= 1;
    }
    while i + 1 < n && v >= edges[i + 1] {
        i += 1;
    }
    i
}

/// `v` with `decimals` fixed decimals and a true minus sign (U+2212); "n/a" if not finite.
/// A value that rounds to zero has no sign. Magnitudes of 10^9 and more (no statistic here
/// has them) are written in scientific notation with 3 decimals, so that a label stays short.
pub(crate) fn fixed(v: f64, decimals: usize) -> String {
    if !v.is_finite() {
        return "n/a".to_string();
    }
    let s = if v.abs() >= 1e9 {
        format!("{v:.3e}")
    } else {
        format!("{v:.decimals$}")
    };
    match s.strip_prefix('-') {
        Some(rest) if rest.bytes().all(|b| b == b'0' || b == b'.') => rest.to_string(),
        Some(rest) => format!("\u{2212}{rest}"),
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hist(values: Vec<f64>, observed: f64) -> HistogramChart {
        HistogramChart {
            captions: Captions::default(),
            values,
            observed,
            threshold: None,
        }
    }

    #[test]
    fn fixed_decimals_and_signs() {
        assert_eq!(fixed(0.12345, 3), "0.123");
        assert_eq!(fixed(-0.0451, 3), "\u{2212}0.045");
        assert_eq!(fixed(-0.0001, 3), "0.000");
        assert_eq!(fixed(f64::NAN, 3), "n/a");
        assert_eq!(fixed(2.0, 0), "2");
        assert_eq!(fixed(-1.5e300, 1), "\u{2212}1.500e300");
    }

    #[test]
    fn bins_hold_each_value_once_including_edges() {
        let values: Vec<f64> = (0..=300).map(|i| f64::from(i) / 300.0).collect();
        let b = bins(&hist(values.clone(), 0.5));
        assert_eq!(b.counts.iter().sum::<u64>(), values.len() as u64);
        assert_eq!(b.edges.len(), HISTOGRAM_BINS + 1);
        assert_eq!(b.edges[0], 0.0);
        assert_eq!(b.edges[HISTOGRAM_BINS], 1.0);
        for v in values {
            let i = bin_of(v, &b.edges);
            assert!(b.edges[i] <= v);
            assert!(v < b.edges[i + 1] || (i + 1 == HISTOGRAM_BINS && v == b.edges[i + 1]));
        }
    }

    #[test]
    fn degenerate_and_non_finite() {
        let b = bins(&hist(vec![0.7, 0.7, f64::NAN], 0.7));
        assert_eq!(b.omitted, 1);
        assert_eq!(b.counts.iter().sum::<u64>(), 2);
        assert!(b.edges[0] < 0.7 && 0.7 < b.edges[HISTOGRAM_BINS]);
    }
}
