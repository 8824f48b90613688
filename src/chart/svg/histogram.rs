//! The histogram of a permutation null ([`HistogramChart`]), observed and threshold marked.

use super::axes::{
    finish_below_x_label, nice_step, tick_label_width, ticks_in, y_axis, y_title, Scale, Ticks,
};
use super::legend::{header, legend, Swatch};
use super::scene::{Scene, AXIS, M, TICK, W};
use crate::chart::palette::{AXIS_LINE, BAR, GRIDLINE, INK, OBSERVED, TICK_HEX};
use crate::chart::text::{self, line_height, Anchor, Text};
use crate::chart::{bins, fixed, Bins, HistogramChart, HISTOGRAM_BINS};

/// Draws a [`HistogramChart`] as a standalone SVG document.
///
/// The finite permuted statistics in 30 equal-width bins over the range holding them, the
/// observed statistic and the threshold (the same bins as
/// [`histogram_vega`](crate::chart::histogram_vega)); the observed statistic is a solid
/// vertical line and the threshold a dashed one, each labelled with its value above the plot.
pub fn histogram_svg(chart: &HistogramChart) -> String {
    const PLOT_H: f64 = 300.0;
    let b = bins(chart);
    let mut s = Scene::new();
    let y = header(&mut s, &chart.captions);
    let y = legend(&mut s, &[legend_items(chart, &b)], y) + 6.0;

    let (y1, yticks) = count_axis(b.counts.iter().copied().max().unwrap_or(0));
    let y_title_lines = vec!["permutations (count)".to_string()];
    let left = M + line_height(AXIS) + 8.0 + tick_label_width(&yticks) + 10.0;
    let right = W - M;
    // The axis runs 2% past the bins on each side, so that a line on the outermost edge
    // does not merge with the frame.
    let pad = (b.edges[HISTOGRAM_BINS] - b.edges[0]) * 0.02;
    let (x0, x1) = (b.edges[0] - pad, b.edges[HISTOGRAM_BINS] + pad);
    let xs = Scale {
        d0: x0,
        d1: x1,
        r0: left,
        r1: right,
    };

    let (marks, rows) = place_value_labels(chart, xs);
    let strip = rows * line_height(TICK);
    let top = y + strip + 6.0;
    let bottom = top + PLOT_H;
    let ys = Scale {
        d0: 0.0,
        d1: y1,
        r0: bottom,
        r1: top,
    };
    for mark in marks {
        let baseline = y + TICK + mark.row as f64 * line_height(TICK);
        let mut t =
            Text::line(mark.class, &mark.label, mark.cx, baseline, TICK).anchor(Anchor::Middle);
        if mark.bold {
            t = t.bold().fill(&OBSERVED.hex());
        }
        s.text(t);
        // A thin leader from the label down to the plot.
        let x = xs.map(mark.value);
        s.path(vec![(x, baseline + 4.0), (x, top)], GRIDLINE, 1);
    }

    y_title(&mut s, y_title_lines, M + AXIS, top, bottom);
    y_axis(&mut s, &yticks, ys, left, right);
    for (i, &count) in b.counts.iter().enumerate() {
        if count > 0 {
            let (a, z) = (xs.map(b.edges[i]), xs.map(b.edges[i + 1]));
            s.rect(a + 0.5, ys.map(count as f64), z - 0.5, bottom, BAR, 1.0);
        }
    }
    s.path(
        vec![(left, top), (left, bottom), (right, bottom)],
        AXIS_LINE,
        1,
    );
    draw_value_ticks(&mut s, xs, bottom);
    if let Some(t) = chart.threshold.filter(|t| t.is_finite()) {
        s.dashed(vec![(xs.map(t), top), (xs.map(t), bottom)], INK, 2);
    }
    if chart.observed.is_finite() {
        let x = xs.map(chart.observed);
        s.path(vec![(x, top), (x, bottom)], OBSERVED, 3);
    }

    let y = bottom + 8.0 + line_height(TICK) + 8.0;
    finish_below_x_label(s, &chart.captions, (left, right), y)
}

/// The legend: the permuted statistics (how many, and how many non-finite ones were left
/// out), the observed statistic's line and the threshold's.
fn legend_items(chart: &HistogramChart, b: &Bins) -> Vec<(Swatch, String)> {
    let n_finite = chart.values.len() - b.omitted;
    let mut null_label = format!("permuted statistic (n = {n_finite}");
    if b.omitted > 0 {
        null_label.push_str(&format!("; {} non-finite left out", b.omitted));
    }
    null_label.push(')');
    let mut items = vec![
        (Swatch::Fill(BAR), null_label),
        (
            Swatch::Line {
                colour: OBSERVED,
                width: 3,
                dashed: false,
                square: false,
            },
            "observed statistic".to_string(),
        ),
    ];
    if chart.threshold.is_some() {
        items.push((
            Swatch::Line {
                colour: INK,
                width: 2,
                dashed: true,
                square: false,
            },
            "threshold".to_string(),
        ));
    }
    items
}

/// The count axis for bars up to `max_count`: its top and whole-number ticks, with room
/// above the highest bar.
fn count_axis(max_count: u64) -> (f64, Ticks) {
    let count_target = 5usize;
    let (step, _) = nice_step((max_count.max(1) as f64) * 1.08, count_target);
    let step = libm::ceil(step).max(1.0);
    let y1 = libm::ceil((max_count.max(1) as f64) * 1.08 / step) * step;
    let ticks = Ticks {
        values: (0..=(y1 / step) as u64).map(|i| i as f64 * step).collect(),
        step,
        decimals: 0,
    };
    (y1, ticks)
}

/// A value label above the plot: the observed statistic's or the threshold's.
struct ValueLabel {
    label: String,
    /// Its centre.
    cx: f64,
    /// 0 for the first row, 1 for the second.
    row: usize,
    class: &'static str,
    bold: bool,
    /// The value it labels.
    value: f64,
}

/// The value labels of the two lines above the plot, in a second row if they would
/// collide, and the number of rows they take.
fn place_value_labels(chart: &HistogramChart, xs: Scale) -> (Vec<ValueLabel>, f64) {
    let mut marks: Vec<(String, f64, &'static str, bool)> = Vec::new();
    if chart.observed.is_finite() {
        marks.push((
            format!("observed = {}", fixed(chart.observed, 3)),
            chart.observed,
            "observed-label",
            true,
        ));
    }
    if let Some(t) = chart.threshold.filter(|t| t.is_finite()) {
        marks.push((
            format!("threshold = {}", fixed(t, 3)),
            t,
            "threshold-label",
            false,
        ));
    }
    let mut placed: Vec<(f64, f64, usize)> = Vec::new();
    let mut labels = Vec::new();
    for (label, value, class, bold) in marks {
        let w = text::width(&label, TICK, bold);
        let cx = xs.map(value).clamp(M + w / 2.0, W - M - w / 2.0);
        let (a, z) = (cx - w / 2.0, cx + w / 2.0);
        let row = usize::from(
            placed
                .iter()
                .any(|&(pa, pz, r)| r == 0 && a < pz + 8.0 && pa < z + 8.0),
        );
        placed.push((a, z, row));
        labels.push(ValueLabel {
            label,
            cx,
            row,
            class,
            bold,
            value,
        });
    }
    let rows = placed.iter().map(|&(_, _, r)| r + 1).max().unwrap_or(0) as f64;
    (labels, rows)
}

/// Numeric x ticks below the plot: as many as fit without their labels touching.
fn draw_value_ticks(s: &mut Scene, xs: Scale, bottom: f64) {
    let (x0, x1, left, right) = (xs.d0, xs.d1, xs.r0, xs.r1);
    let mut xticks = ticks_in(x0, x1, 2);
    for target in (2..=8).rev() {
        let t = ticks_in(x0, x1, target);
        let spacing = (right - left) * t.step / (x1 - x0);
        if tick_label_width(&t) + 16.0 <= spacing {
            xticks = t;
            break;
        }
    }
    for &v in &xticks.values {
        let x = xs.map(v);
        s.path(vec![(x, bottom), (x, bottom + 5.0)], AXIS_LINE, 1);
        s.text(
            Text::line(
                "tick",
                &fixed(v, xticks.decimals),
                x,
                bottom + 8.0 + TICK,
                TICK,
            )
            .anchor(Anchor::Middle)
            .fill(TICK_HEX),
        );
    }
}
