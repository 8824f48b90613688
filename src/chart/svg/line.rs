//! The line chart of a one-axis boundary map ([`LineChart`]): CI band, outcome markers.

use super::axes::{
    draw_x_ticks, finish_below_x_label, padded_axis, slotted_x_ticks, tick_label_width, y_axis,
    y_title, Scale,
};
use super::legend::{header, legend, Swatch};
use super::scene::{centred_baseline, Scene, Shape, AXIS, M, TICK, W};
use crate::chart::palette::{AXIS_LINE, CONTEXT, INK, PRIMARY};
use crate::chart::text::{self, line_height, Text};
use crate::chart::{fixed, LineChart, Outcome};

/// Runs of consecutive indices where `f` gives a point.
fn runs<T: Copy>(n: usize, f: impl Fn(usize) -> Option<T>) -> Vec<Vec<(usize, T)>> {
    let mut out: Vec<Vec<(usize, T)>> = Vec::new();
    let mut current = Vec::new();
    for i in 0..n {
        match f(i) {
            Some(v) => current.push((i, v)),
            None if !current.is_empty() => out.push(std::mem::take(&mut current)),
            None => {}
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// `v` if finite.
fn finite(v: Option<f64>) -> Option<f64> {
    v.filter(|v| v.is_finite())
}

/// A band value if both ends are finite.
fn finite_band(b: Option<[f64; 2]>) -> Option<[f64; 2]> {
    b.filter(|[lo, hi]| lo.is_finite() && hi.is_finite())
}

/// Draws a [`LineChart`] as a standalone SVG document.
///
/// `series[0]` is drawn in blue with its 95% CI band and one marker per x tick showing the
/// outcome (circle SUPPORTS, diamond INCONCLUSIVE, cross REJECTED); other series are thinner
/// context lines; the threshold is a dashed line labelled in the right margin.
pub fn line_svg(chart: &LineChart) -> String {
    const PLOT_H: f64 = 340.0;
    let n = chart.x_ticks.len();
    let mut s = Scene::new();
    let y = header(&mut s, &chart.captions);
    let top = legend(&mut s, &legend_groups(chart), y) + 14.0;
    let (lo, hi) = y_domain(chart);
    let (d0, d1, ticks) = padded_axis(lo, hi, 5);
    let bottom = top + PLOT_H;
    let ys = Scale {
        d0,
        d1,
        r0: bottom,
        r1: top,
    };

    let threshold_lines = chart.threshold.as_ref().map(|(label, t)| {
        let mut lines = text::wrap(label, TICK, false, 150.0);
        lines.push(format!("= {}", fixed(*t, 3)));
        lines
    });
    let right = W - threshold_lines
        .as_ref()
        .map_or(M, |l| text::max_width(l, TICK, false) + 14.0 + M / 2.0);
    let y_title_lines = text::wrap(&chart.y_label, AXIS, false, PLOT_H);
    let y_title_w = y_title_lines.len() as f64 * line_height(AXIS);
    let (left, slot, xt) = slotted_x_ticks(
        &chart.x_ticks,
        M + y_title_w + 8.0 + tick_label_width(&ticks) + 10.0,
        right,
        n.max(1),
    );
    let plot = Plot {
        xs: (0..n).map(|i| left + (i as f64 + 0.5) * slot).collect(),
        ys,
        right,
        top,
        bottom,
    };

    y_title(&mut s, y_title_lines, M + AXIS, top, bottom);
    y_axis(&mut s, &ticks, ys, left, right);
    s.path(
        vec![(left, top), (left, bottom), (right, bottom)],
        AXIS_LINE,
        1,
    );
    for &x in &plot.xs {
        s.path(vec![(x, bottom), (x, bottom + 5.0)], AXIS_LINE, 1);
    }
    draw_band(&mut s, chart, &plot);
    if let Some((_, t)) = chart.threshold.as_ref().filter(|(_, t)| t.is_finite()) {
        s.dashed(vec![(left, ys.map(*t)), (right, ys.map(*t))], INK, 2);
    }
    draw_series(&mut s, chart, &plot);
    if let (Some(lines), Some((_, t))) = (threshold_lines, chart.threshold.as_ref()) {
        if t.is_finite() {
            draw_threshold_label(&mut s, lines, *t, &plot);
        }
    }

    draw_x_ticks(&mut s, &xt, &plot.xs, bottom);
    let y = bottom + xt.height + 8.0;
    finish_below_x_label(s, &chart.captions, (left, right), y)
}

/// Where the plot is: the x centre of each tick's slot, the y scale, and the edges the
/// threshold's label is placed by.
struct Plot {
    xs: Vec<f64>,
    ys: Scale,
    right: f64,
    top: f64,
    bottom: f64,
}

/// `series[0]`'s CI at x tick `i`, if there is one.
fn band_at(chart: &LineChart, i: usize) -> Option<[f64; 2]> {
    chart
        .band
        .as_ref()
        .and_then(|b| b.get(i).copied().flatten())
}

/// Series `s`'s value at x tick `i`, if it has a finite one.
fn value_at(chart: &LineChart, s: usize, i: usize) -> Option<f64> {
    finite(chart.series[s].values.get(i).copied().flatten())
}

/// The legend's two rows: the series (and `series[0]`'s CI band), then the outcome markers.
fn legend_groups(chart: &LineChart) -> [Vec<(Swatch, String)>; 2] {
    let mut items = Vec::new();
    let mut markers = vec![(
        Swatch::Nothing,
        match chart.series.first() {
            Some(s) => format!("Marker on {}: the claim's outcome", s.name),
            None => "Marker: the claim's outcome".to_string(),
        },
    )];
    for (k, series) in chart.series.iter().enumerate() {
        let swatch = if k == 0 {
            Swatch::Line {
                colour: PRIMARY,
                width: 3,
                dashed: false,
                square: false,
            }
        } else {
            Swatch::Line {
                colour: CONTEXT[(k - 1) % CONTEXT.len()],
                width: 2,
                dashed: false,
                square: true,
            }
        };
        items.push((swatch, series.name.clone()));
        if k == 0 && chart.band.is_some() {
            items.push((
                Swatch::Band(PRIMARY, 0.18),
                format!("95% CI of {}", series.name),
            ));
        }
    }
    for o in Outcome::ALL {
        markers.push((Swatch::Marker(o), o.label().to_string()));
    }
    [items, markers]
}

/// The y domain: the range holding every finite value, band end and the threshold.
fn y_domain(chart: &LineChart) -> (f64, f64) {
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for series in &chart.series {
        for v in series.values.iter().copied().filter_map(finite) {
            (lo, hi) = (lo.min(v), hi.max(v));
        }
    }
    for [a, b] in (0..chart.x_ticks.len()).filter_map(|i| finite_band(band_at(chart, i))) {
        (lo, hi) = (lo.min(a), hi.max(b));
    }
    if let Some((_, t)) = chart.threshold.as_ref().filter(|(_, t)| t.is_finite()) {
        (lo, hi) = (lo.min(*t), hi.max(*t));
    }
    (lo, hi)
}

/// `series[0]`'s CI band: a polygon over each run of finite intervals; a lone interval is
/// an error bar.
fn draw_band(s: &mut Scene, chart: &LineChart, plot: &Plot) {
    let (xs, ys) = (&plot.xs, plot.ys);
    for run in runs(xs.len(), |i| finite_band(band_at(chart, i))) {
        if let [(i, [a, b])] = run.as_slice() {
            let x = xs[*i];
            s.rect(x - 4.0, ys.map(*b), x + 4.0, ys.map(*a), PRIMARY, 0.18);
            continue;
        }
        let mut pts: Vec<(f64, f64)> = run.iter().map(|&(i, [_, b])| (xs[i], ys.map(b))).collect();
        pts.extend(run.iter().rev().map(|&(i, [a, _])| (xs[i], ys.map(a))));
        s.shapes.push(Shape::Polygon {
            points: pts,
            fill: PRIMARY,
            alpha: 0.18,
        });
    }
}

/// The series: the context series first, under the claim's statistic, then `series[0]`'s
/// line and its outcome markers.
fn draw_series(s: &mut Scene, chart: &LineChart, plot: &Plot) {
    let (xs, ys) = (&plot.xs, plot.ys);
    let n = xs.len();
    for k in (1..chart.series.len()).rev() {
        let colour = CONTEXT[(k - 1) % CONTEXT.len()];
        for run in runs(n, |i| value_at(chart, k, i)) {
            let pts: Vec<(f64, f64)> = run.iter().map(|&(i, v)| (xs[i], ys.map(v))).collect();
            if pts.len() > 1 {
                s.path(pts.clone(), colour, 2);
            }
            for (x, y) in pts {
                s.rect(x - 3.0, y - 3.0, x + 3.0, y + 3.0, colour, 1.0);
            }
        }
    }
    if chart.series.is_empty() {
        return;
    }
    for run in runs(n, |i| value_at(chart, 0, i)) {
        let pts: Vec<(f64, f64)> = run.iter().map(|&(i, v)| (xs[i], ys.map(v))).collect();
        if pts.len() > 1 {
            s.path(pts, PRIMARY, 3);
        }
    }
    for (i, &x) in xs.iter().enumerate() {
        if let (Some(v), Some(&outcome)) = (value_at(chart, 0, i), chart.outcomes.get(i)) {
            s.shapes.push(Shape::Marker {
                outcome,
                x,
                y: ys.map(v),
                r: 6.0,
            });
        }
    }
}

/// The threshold's label in the right margin, centred on its line `t` and kept within the
/// plot's height.
fn draw_threshold_label(s: &mut Scene, lines: Vec<String>, t: f64, plot: &Plot) {
    let block = lines.len() as f64 * line_height(TICK);
    let first = (plot.ys.map(t) - block / 2.0 + line_height(TICK) / 2.0)
        .clamp(plot.top, plot.bottom - block + line_height(TICK));
    s.text(Text::new(
        "threshold-label",
        lines,
        plot.right + 8.0,
        centred_baseline(first, TICK),
        TICK,
    ));
}
