//! SVG rendering: each chart is laid out into a [`Scene`] (shapes and text at pixel
//! positions), whose shapes plotters draws and whose text `text.rs` writes.

use super::palette::*;
use super::text::{self, line_height, Anchor, Text};
use super::{bins, fixed, GridChart, HistogramChart, LineChart, Outcome, HISTOGRAM_BINS};
use plotters::backend::SVGBackend;
use plotters::drawing::IntoDrawingArea;
use plotters::element::{Circle, DashedPathElement, PathElement, Polygon, Rectangle};

/// Canvas width in pixels (the height follows from the content).
const W: f64 = 960.0;
/// Outer margin.
const M: f64 = 24.0;
/// Font sizes.
const TITLE: f64 = 20.0;
const SUBTITLE: f64 = 13.0;
const AXIS: f64 = 14.0;
const TICK: f64 = 12.0;
const LEGEND: f64 = 12.0;
/// Rotation of x tick labels that do not fit their slot, and its sine and cosine.
const ROTATE_DEG: i32 = -35;
const ROTATE_SIN: f64 = 0.573_576_436_351_046;
const ROTATE_COS: f64 = 0.819_152_044_288_992;
/// Longest line of a rotated tick label before it wraps.
const ROTATED_MAX: f64 = 220.0;

/// A shape at pixel coordinates (rounded to whole pixels when drawn).
#[derive(Debug, Clone)]
enum Shape {
    Rect {
        x0: f64,
        y0: f64,
        x1: f64,
        y1: f64,
        fill: Rgb,
        alpha: f64,
    },
    Path {
        points: Vec<(f64, f64)>,
        stroke: Rgb,
        width: u32,
        /// Dash and gap lengths.
        dash: Option<(u32, u32)>,
    },
    Polygon {
        points: Vec<(f64, f64)>,
        fill: Rgb,
        alpha: f64,
    },
    /// An outcome marker: circle, diamond or cross, on a white halo.
    Marker {
        outcome: Outcome,
        x: f64,
        y: f64,
        r: f64,
    },
}

/// A laid-out chart.
struct Scene {
    height: f64,
    shapes: Vec<Shape>,
    texts: Vec<Text>,
}

const INFALLIBLE: &str = "the SVG backend writes into a String and cannot fail";

fn px(v: f64) -> i32 {
    v.round() as i32
}

fn pt((x, y): (f64, f64)) -> (i32, i32) {
    (px(x), px(y))
}

impl Scene {
    fn new() -> Self {
        Scene {
            height: 0.0,
            shapes: Vec::new(),
            texts: Vec::new(),
        }
    }

    fn rect(&mut self, x0: f64, y0: f64, x1: f64, y1: f64, fill: Rgb, alpha: f64) {
        self.shapes.push(Shape::Rect {
            x0,
            y0,
            x1,
            y1,
            fill,
            alpha,
        });
    }

    fn path(&mut self, points: Vec<(f64, f64)>, stroke: Rgb, width: u32) {
        self.shapes.push(Shape::Path {
            points,
            stroke,
            width,
            dash: None,
        });
    }

    fn dashed(&mut self, points: Vec<(f64, f64)>, stroke: Rgb, width: u32) {
        self.shapes.push(Shape::Path {
            points,
            stroke,
            width,
            dash: Some((8, 5)),
        });
    }

    fn text(&mut self, t: Text) {
        self.texts.push(t);
    }

    /// Draws the shapes with plotters, then appends the text elements.
    fn finish(self, title: &str, subtitle: &str) -> String {
        let (w, h) = (W as u32, self.height.ceil() as u32);
        let mut shapes = String::new();
        {
            let root = SVGBackend::with_string(&mut shapes, (w, h)).into_drawing_area();
            root.fill(&plotters::style::WHITE).expect(INFALLIBLE);
            for shape in &self.shapes {
                draw(&root, shape);
            }
            root.present().expect(INFALLIBLE);
        }
        // plotters opens with its own <svg ...> line and closes with </svg>: keep what is
        // between, under a root element that also sets the font and an accessible title.
        let start = shapes.find('\n').map_or(0, |i| i + 1);
        let end = shapes.rfind("</svg>").unwrap_or(shapes.len());
        let mut out = String::with_capacity(shapes.len() + 200 * self.texts.len() + 512);
        out.push_str(&format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" role=\"img\" font-family=\"{}\">\n<title>",
            text::FONT_FAMILY
        ));
        text::escape_into(&mut out, title);
        if !subtitle.is_empty() {
            out.push_str(" \u{2014} ");
            text::escape_into(&mut out, subtitle);
        }
        out.push_str("</title>\n");
        out.push_str(&shapes[start..end]);
        for t in &self.texts {
            t.write(&mut out);
        }
        out.push_str("</svg>\n");
        out
    }
}

type Area<'a> = plotters::drawing::DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

fn draw(root: &Area<'_>, shape: &Shape) {
    match shape {
        Shape::Rect {
            x0,
            y0,
            x1,
            y1,
            fill,
            alpha,
        } => {
            let r = Rectangle::new(
                [pt((*x0, *y0)), pt((*x1, *y1))],
                fill.style(*alpha, true, 0),
            );
            root.draw(&r).expect(INFALLIBLE);
        }
        Shape::Path {
            points,
            stroke,
            width,
            dash,
        } => {
            let points: Vec<(i32, i32)> = points.iter().copied().map(pt).collect();
            let style = stroke.style(1.0, false, *width);
            match dash {
                None => root
                    .draw(&PathElement::new(points, style))
                    .expect(INFALLIBLE),
                Some((dash, gap)) => root
                    .draw(&DashedPathElement::new(points, *dash, *gap, style))
                    .expect(INFALLIBLE),
            }
        }
        Shape::Polygon {
            points,
            fill,
            alpha,
        } => {
            let points: Vec<(i32, i32)> = points.iter().copied().map(pt).collect();
            root.draw(&Polygon::new(points, fill.style(*alpha, true, 0)))
                .expect(INFALLIBLE);
        }
        Shape::Marker { outcome, x, y, r } => draw_marker(root, *outcome, *x, *y, *r),
    }
}

/// SUPPORTS: a filled circle; INCONCLUSIVE: a filled diamond; REJECTED: a thick cross. Each
/// on a white halo so that it stands out from lines and bands.
fn draw_marker(root: &Area<'_>, outcome: Outcome, x: f64, y: f64, r: f64) {
    let colour = outcome_rgb(outcome);
    let c = pt((x, y));
    match outcome {
        Outcome::Supports => {
            let halo = Circle::new(c, px(r + 2.0), WHITE.style(1.0, true, 0));
            let dot = Circle::new(c, px(r), colour.style(1.0, true, 0));
            root.draw(&halo).expect(INFALLIBLE);
            root.draw(&dot).expect(INFALLIBLE);
        }
        Outcome::Inconclusive => {
            for (d, fill) in [(r * 1.35 + 2.5, WHITE), (r * 1.35, colour)] {
                let pts = vec![
                    pt((x, y - d)),
                    pt((x + d, y)),
                    pt((x, y + d)),
                    pt((x - d, y)),
                ];
                root.draw(&Polygon::new(pts, fill.style(1.0, true, 0)))
                    .expect(INFALLIBLE);
            }
        }
        Outcome::Rejected => {
            let d = r * 0.9;
            for (width, stroke) in [(7, WHITE), (3, colour)] {
                for (dx, dy) in [(d, d), (d, -d)] {
                    let line = PathElement::new(
                        vec![pt((x - dx, y - dy)), pt((x + dx, y + dy))],
                        stroke.style(1.0, false, width),
                    );
                    root.draw(&line).expect(INFALLIBLE);
                }
            }
        }
    }
}

/// Baseline of a single line of text centred vertically on `cy`.
fn centred_baseline(cy: f64, size: f64) -> f64 {
    cy + 0.36 * size
}

/// Title and subtitle, wrapped to the canvas; returns the y below them.
fn header(scene: &mut Scene, title: &str, subtitle: &str) -> f64 {
    let mut y = M;
    let lines = text::wrap(title, TITLE, true, W - 2.0 * M);
    let n = lines.len() as f64;
    scene.text(Text::new("title", lines, M, y + TITLE, TITLE).bold());
    y += n * line_height(TITLE);
    if !subtitle.is_empty() {
        let lines = text::wrap(subtitle, SUBTITLE, false, W - 2.0 * M);
        let n = lines.len() as f64;
        y += 2.0;
        scene.text(Text::new("subtitle", lines, M, y + SUBTITLE, SUBTITLE).fill(MUTED_HEX));
        y += n * line_height(SUBTITLE);
    }
    y + 10.0
}

/// A legend key.
#[derive(Debug, Clone, Copy)]
enum Swatch {
    /// A filled square.
    Fill(Rgb),
    /// An outcome marker.
    Marker(Outcome),
    /// A line sample, optionally dashed, optionally with a small square marker.
    Line {
        colour: Rgb,
        width: u32,
        dashed: bool,
        square: bool,
    },
    /// A translucent band.
    Band(Rgb, f64),
    /// No key: a lead-in text for the entries after it.
    Nothing,
}

impl Swatch {
    fn width(self) -> f64 {
        match self {
            Swatch::Fill(_) | Swatch::Marker(_) => 14.0,
            Swatch::Line { .. } | Swatch::Band(..) => 30.0,
            Swatch::Nothing => 0.0,
        }
    }

    fn draw(self, scene: &mut Scene, x: f64, cy: f64) {
        match self {
            Swatch::Fill(c) => scene.rect(x, cy - 7.0, x + 14.0, cy + 7.0, c, 1.0),
            Swatch::Marker(o) => scene.shapes.push(Shape::Marker {
                outcome: o,
                x: x + 7.0,
                y: cy,
                r: 5.0,
            }),
            Swatch::Line {
                colour,
                width,
                dashed,
                square,
            } => {
                let pts = vec![(x, cy), (x + 30.0, cy)];
                if dashed {
                    scene.dashed(pts, colour, width);
                } else {
                    scene.path(pts, colour, width);
                }
                if square {
                    scene.rect(x + 12.0, cy - 3.0, x + 18.0, cy + 3.0, colour, 1.0);
                }
            }
            Swatch::Band(c, alpha) => scene.rect(x, cy - 6.0, x + 30.0, cy + 6.0, c, alpha),
            Swatch::Nothing => {}
        }
    }
}

/// Lays the legend out in rows across the canvas from `top`, each group starting a new row;
/// returns the y below it.
fn legend(scene: &mut Scene, groups: &[Vec<(Swatch, String)>], top: f64) -> f64 {
    const GAP: f64 = 6.0;
    const SPACING: f64 = 22.0;
    let avail = W - 2.0 * M;
    let lh = line_height(LEGEND);
    let mut rows: Vec<Vec<(Swatch, Vec<String>, f64)>> = vec![Vec::new()];
    let mut x = 0.0;
    for group in groups {
        for (j, (swatch, label)) in group.iter().enumerate() {
            let gap = if swatch.width() > 0.0 { GAP } else { 0.0 };
            let lines = text::wrap(label, LEGEND, false, avail - swatch.width() - gap);
            let w = swatch.width() + gap + text::max_width(&lines, LEGEND, false);
            let row = rows.last_mut().expect("rows starts non-empty");
            if !row.is_empty() && (j == 0 || x + w > avail) {
                rows.push(Vec::new());
                x = 0.0;
            }
            rows.last_mut()
                .expect("rows is non-empty")
                .push((*swatch, lines, w));
            x += w + SPACING;
        }
    }
    let mut y = top;
    for row in rows.iter().filter(|r| !r.is_empty()) {
        let height = row
            .iter()
            .map(|(_, lines, _)| lines.len() as f64 * lh)
            .fold(18.0, f64::max);
        let cy = y + 9.0;
        let mut x = M;
        for (swatch, lines, w) in row {
            swatch.draw(scene, x, cy);
            let t = if matches!(swatch, Swatch::Nothing) {
                Text::new(
                    "legend-lead",
                    lines.clone(),
                    x,
                    centred_baseline(cy, LEGEND),
                    LEGEND,
                )
                .fill(MUTED_HEX)
            } else {
                let tx = x + swatch.width() + GAP;
                Text::new(
                    "legend",
                    lines.clone(),
                    tx,
                    centred_baseline(cy, LEGEND),
                    LEGEND,
                )
            };
            scene.text(t);
            x += w + SPACING;
        }
        y += height + 4.0;
    }
    y
}

/// How categorical x tick labels are set: wrapped under their slot, or rotated.
struct XTicks {
    labels: Vec<Vec<String>>,
    rotated: bool,
    /// Vertical space they need below the axis.
    height: f64,
}

/// Wraps each label under its slot if every label fits in at most three lines without
/// breaking a word; otherwise rotates them all.
fn x_ticks(ticks: &[String], slot: f64) -> XTicks {
    let max = slot - 8.0;
    let wrapped: Vec<Vec<String>> = ticks
        .iter()
        .map(|t| text::wrap(t, TICK, false, max))
        .collect();
    let fits = ticks
        .iter()
        .zip(&wrapped)
        .all(|(t, lines)| text::wraps_at_words(t, TICK, false, max) && lines.len() <= 3);
    if fits {
        let n = wrapped.iter().map(Vec::len).max().unwrap_or(1) as f64;
        return XTicks {
            labels: wrapped,
            rotated: false,
            height: 8.0 + n * line_height(TICK),
        };
    }
    let labels: Vec<Vec<String>> = ticks
        .iter()
        .map(|t| text::wrap(t, TICK, false, ROTATED_MAX))
        .collect();
    let height = labels
        .iter()
        .map(|lines| {
            text::max_width(lines, TICK, false) * ROTATE_SIN
                + lines.len() as f64 * line_height(TICK) * ROTATE_COS
        })
        .fold(0.0, f64::max)
        + 10.0;
    XTicks {
        labels,
        rotated: true,
        height,
    }
}

/// How far left of its anchor the widest rotated label reaches, for slot `i` of width `slot`.
fn rotated_overhang(labels: &[Vec<String>], slot: f64) -> f64 {
    labels
        .iter()
        .enumerate()
        .map(|(i, lines)| {
            text::max_width(lines, TICK, false) * ROTATE_COS - (i as f64 + 0.5) * slot
        })
        .fold(0.0, f64::max)
}

/// Writes the x-axis label (wrapped to the plot's width, centred) from `y` down, sizes the
/// canvas to end a margin below it, and finishes the document.
fn finish_below_x_label(
    mut scene: Scene,
    x_label: &str,
    left: f64,
    right: f64,
    y: f64,
    title: &str,
    subtitle: &str,
) -> String {
    let lines = text::wrap(x_label, AXIS, false, right - left);
    let n = lines.len() as f64;
    scene.text(
        Text::new("axis-label", lines, (left + right) / 2.0, y + AXIS, AXIS).anchor(Anchor::Middle),
    );
    scene.height = y + n * line_height(AXIS) + M;
    scene.finish(title, subtitle)
}

fn draw_x_ticks(scene: &mut Scene, ticks: &XTicks, centres: &[f64], top: f64) {
    for (lines, &cx) in ticks.labels.iter().zip(centres) {
        let t = if ticks.rotated {
            Text::new("tick", lines.clone(), cx + 4.0, top + 10.0, TICK)
                .anchor(Anchor::End)
                .rotate(ROTATE_DEG)
        } else {
            Text::new("tick", lines.clone(), cx, top + 6.0 + TICK, TICK).anchor(Anchor::Middle)
        };
        scene.text(t.fill(TICK_HEX));
    }
}

/// A rotated y axis title centred on `[top, bottom]`, its first line's baseline at `x`.
fn y_title(scene: &mut Scene, lines: Vec<String>, x: f64, top: f64, bottom: f64) {
    let cy = (top + bottom) / 2.0;
    scene.text(
        Text::new("axis-label", lines, x, cy, AXIS)
            .anchor(Anchor::Middle)
            .rotate(-90),
    );
}

/// Evenly spaced round tick values and the decimals that print them exactly.
#[derive(Debug, Clone)]
struct Ticks {
    values: Vec<f64>,
    step: f64,
    decimals: usize,
}

fn pow10(k: i32) -> f64 {
    libm::pow(10.0, f64::from(k))
}

/// A step of 1, 2, 2.5 or 5 × 10^k giving about `target` intervals over `span`.
fn nice_step(span: f64, target: usize) -> (f64, usize) {
    let raw = span / target.max(1) as f64;
    let mut k: i32 = 0;
    while k > -15 && pow10(k) > raw {
        k -= 1;
    }
    while k < 15 && pow10(k + 1) <= raw {
        k += 1;
    }
    let dec = |k: i32, extra: i32| (extra - k).max(0) as usize;
    for (m, extra) in [(1.0, 0), (2.0, 0), (2.5, 1), (5.0, 0)] {
        let step = m * pow10(k);
        if step >= raw {
            return (step, dec(k, extra));
        }
    }
    (pow10(k + 1), dec(k + 1, 0))
}

/// Multiples of a nice step inside `[lo, hi]`. A range out of the steps' reach (beyond
/// 10^±15, or not finite) gets its two ends as ticks instead.
fn ticks_in(lo: f64, hi: f64, target: usize) -> Ticks {
    let (step, decimals) = nice_step(hi - lo, target);
    let first = libm::ceil(lo / step - 1e-9);
    let last = libm::floor(hi / step + 1e-9);
    let count = last - first;
    if !count.is_finite() || !(0.0..=4.0 * target as f64 + 4.0).contains(&count) {
        return Ticks {
            values: [lo, hi].into_iter().filter(|v| v.is_finite()).collect(),
            step: hi - lo,
            decimals: 3,
        };
    }
    Ticks {
        values: (first as i64..=last as i64)
            .map(|i| i as f64 * step)
            .collect(),
        step,
        decimals,
    }
}

/// A numeric axis `[lo, hi]` padded by 6% and widened to whole steps, with its ticks.
fn padded_axis(lo: f64, hi: f64, target: usize) -> (f64, f64, Ticks) {
    let (lo, hi) = match (lo.is_finite() && hi.is_finite(), lo == hi) {
        (false, _) => (0.0, 1.0),
        (true, true) => {
            let half = if lo == 0.0 { 0.5 } else { lo.abs() * 0.1 };
            (lo - half, hi + half)
        }
        (true, false) => {
            let pad = (hi - lo) * 0.06;
            (lo - pad, hi + pad)
        }
    };
    let (step, _) = nice_step(hi - lo, target);
    let (lo, hi) = (
        libm::floor(lo / step + 1e-9) * step,
        libm::ceil(hi / step - 1e-9) * step,
    );
    (lo, hi, ticks_in(lo, hi, target))
}

/// Linear map from `[d0, d1]` to `[r0, r1]`.
#[derive(Debug, Clone, Copy)]
struct Scale {
    d0: f64,
    d1: f64,
    r0: f64,
    r1: f64,
}

impl Scale {
    fn map(self, v: f64) -> f64 {
        self.r0 + (v - self.d0) / (self.d1 - self.d0) * (self.r1 - self.r0)
    }
}

/// Horizontal gridlines and right-aligned labels for a numeric y axis.
fn y_axis(scene: &mut Scene, ticks: &Ticks, y: Scale, left: f64, right: f64) {
    for &v in &ticks.values {
        let py = y.map(v);
        scene.path(vec![(left, py), (right, py)], GRIDLINE, 1);
        scene.path(vec![(left - 5.0, py), (left, py)], AXIS_LINE, 1);
        scene.text(
            Text::line(
                "tick",
                &fixed(v, ticks.decimals),
                left - 8.0,
                centred_baseline(py, TICK),
                TICK,
            )
            .anchor(Anchor::End)
            .fill(TICK_HEX),
        );
    }
}

fn tick_label_width(ticks: &Ticks) -> f64 {
    ticks
        .values
        .iter()
        .map(|&v| text::width(&fixed(v, ticks.decimals), TICK, false))
        .fold(0.0, f64::max)
}

/// Draws the heatmap of a [`GridChart`] as a standalone SVG document.
///
/// One cell per (x, y), filled by outcome, printing the value (3 decimals), the 95% CI when
/// it fits and the outcome's label; `y_ticks[0]` is the top row.
pub fn grid_svg(chart: &GridChart) -> String {
    const VALUE: f64 = 16.0;
    const CI: f64 = 11.0;
    const LABEL: f64 = 10.0;
    let mut s = Scene::new();
    let mut y = header(&mut s, &chart.title, &chart.subtitle);
    let mut items = vec![(Swatch::Nothing, "Fill: the claim's outcome".to_string())];
    items.extend(
        Outcome::ALL
            .iter()
            .map(|&o| (Swatch::Fill(cell_fill(o)), o.label().to_string())),
    );
    y = legend(&mut s, &[items], y);
    let note = format!(
        "Number in each cell: {}, 3 decimals; below it, its 95% CI [low, high].",
        chart.value_label
    );
    let lines = text::wrap(&note, LEGEND, false, W - 2.0 * M);
    let n = lines.len() as f64;
    s.text(Text::new("legend", lines, M, y + LEGEND, LEGEND).fill(MUTED_HEX));
    y += n * line_height(LEGEND) + 16.0;

    let nx = chart.x_ticks.len().max(1);
    let ny = chart.y_ticks.len().max(1);
    let y_tick_lines: Vec<Vec<String>> = chart
        .y_ticks
        .iter()
        .map(|t| text::wrap(t, TICK, false, 200.0))
        .collect();
    let y_tick_w = y_tick_lines
        .iter()
        .map(|l| text::max_width(l, TICK, false))
        .fold(0.0, f64::max);
    let max_tick_lines = y_tick_lines.iter().map(Vec::len).max().unwrap_or(1) as f64;
    let ch = f64::max(76.0, max_tick_lines * line_height(TICK) + 12.0);
    let top = y;
    let bottom = top + ny as f64 * ch;
    let y_title_lines = text::wrap(&chart.y_label, AXIS, false, bottom - top);
    let y_title_w = y_title_lines.len() as f64 * line_height(AXIS);
    let mut left = M + y_title_w + 10.0 + y_tick_w + 10.0;
    let right = W - M;
    let mut cw = (right - left) / nx as f64;
    let mut xt = x_ticks(&chart.x_ticks, cw);
    if xt.rotated {
        let needed = M + rotated_overhang(&xt.labels, cw);
        if needed > left {
            left = needed;
            cw = (right - left) / nx as f64;
            xt = x_ticks(&chart.x_ticks, cw);
        }
    }
    y_title(&mut s, y_title_lines, M + AXIS, top, bottom);
    for (j, lines) in y_tick_lines.into_iter().enumerate() {
        let cy = top + (j as f64 + 0.5) * ch;
        let first = cy - (lines.len() as f64 - 1.0) * line_height(TICK) / 2.0;
        s.text(
            Text::new(
                "tick",
                lines,
                left - 10.0,
                centred_baseline(first, TICK),
                TICK,
            )
            .anchor(Anchor::End)
            .fill(TICK_HEX),
        );
    }

    // Empty slots first, so that every (x, y) shows something.
    let mut filled = vec![false; nx * ny];
    for c in &chart.cells {
        if c.x < chart.x_ticks.len() && c.y < chart.y_ticks.len() {
            filled[c.y * nx + c.x] = true;
        }
    }
    for j in 0..chart.y_ticks.len() {
        for i in 0..chart.x_ticks.len() {
            if !filled[j * nx + i] {
                let (x0, y0) = (left + i as f64 * cw, top + j as f64 * ch);
                s.rect(
                    x0 + 1.0,
                    y0 + 1.0,
                    x0 + cw - 1.0,
                    y0 + ch - 1.0,
                    EMPTY_CELL,
                    1.0,
                );
                s.text(
                    Text::line(
                        "cell-empty",
                        "no cell",
                        x0 + cw / 2.0,
                        centred_baseline(y0 + ch / 2.0, CI),
                        CI,
                    )
                    .anchor(Anchor::Middle)
                    .fill(MUTED_HEX),
                );
            }
        }
    }
    for c in &chart.cells {
        if c.x >= chart.x_ticks.len() || c.y >= chart.y_ticks.len() {
            continue;
        }
        let (x0, y0) = (left + c.x as f64 * cw, top + c.y as f64 * ch);
        let fill = cell_fill(c.outcome);
        let ink = text_on(fill);
        s.rect(x0 + 1.0, y0 + 1.0, x0 + cw - 1.0, y0 + ch - 1.0, fill, 1.0);
        let value = c.value.map_or("no value".to_string(), |v| fixed(v, 3));
        let ci =
            c.ci.map(|[lo, hi]| format!("[{}, {}]", fixed(lo, 3), fixed(hi, 3)))
                .filter(|t| text::width(t, CI, false) <= cw - 8.0);
        let block =
            line_height(VALUE) + ci.as_ref().map_or(0.0, |_| line_height(CI)) + line_height(LABEL);
        let cx = x0 + cw / 2.0;
        let mut ty = y0 + (ch - block) / 2.0;
        s.text(
            Text::line("cell-value", &value, cx, ty + VALUE, VALUE)
                .bold()
                .anchor(Anchor::Middle)
                .fill(ink)
                .cell_hash(&c.cell_hash),
        );
        ty += line_height(VALUE);
        if let Some(ci) = ci {
            s.text(
                Text::line("cell-ci", &ci, cx, ty + CI, CI)
                    .anchor(Anchor::Middle)
                    .fill(ink),
            );
            ty += line_height(CI);
        }
        s.text(
            Text::line(
                "cell-outcome",
                c.outcome.label(),
                cx,
                ty + LABEL + 1.0,
                LABEL,
            )
            .bold()
            .anchor(Anchor::Middle)
            .fill(ink),
        );
    }

    let centres: Vec<f64> = (0..chart.x_ticks.len())
        .map(|i| left + (i as f64 + 0.5) * cw)
        .collect();
    draw_x_ticks(&mut s, &xt, &centres, bottom);
    let y = bottom + xt.height + 8.0;
    finish_below_x_label(
        s,
        &chart.x_label,
        left,
        right,
        y,
        &chart.title,
        &chart.subtitle,
    )
}

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
    let band = |i: usize| {
        chart
            .band
            .as_ref()
            .and_then(|b| b.get(i).copied().flatten())
    };
    let value = |s: usize, i: usize| finite(chart.series[s].values.get(i).copied().flatten());

    let mut s = Scene::new();
    let mut y = header(&mut s, &chart.title, &chart.subtitle);
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
    y = legend(&mut s, &[items, markers], y) + 14.0;

    // The y domain holds every value, band end and the threshold.
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for series in &chart.series {
        for v in series.values.iter().copied().filter_map(finite) {
            (lo, hi) = (lo.min(v), hi.max(v));
        }
    }
    for [a, b] in (0..n).filter_map(|i| finite_band(band(i))) {
        (lo, hi) = (lo.min(a), hi.max(b));
    }
    if let Some((_, t)) = chart.threshold.as_ref().filter(|(_, t)| t.is_finite()) {
        (lo, hi) = (lo.min(*t), hi.max(*t));
    }
    let (d0, d1, ticks) = padded_axis(lo, hi, 5);
    let top = y;
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
    let mut left = M + y_title_w + 8.0 + tick_label_width(&ticks) + 10.0;
    let mut slot = (right - left) / n.max(1) as f64;
    let mut xt = x_ticks(&chart.x_ticks, slot);
    if xt.rotated {
        let needed = M + rotated_overhang(&xt.labels, slot);
        if needed > left {
            left = needed;
            slot = (right - left) / n.max(1) as f64;
            xt = x_ticks(&chart.x_ticks, slot);
        }
    }
    let xs: Vec<f64> = (0..n).map(|i| left + (i as f64 + 0.5) * slot).collect();

    y_title(&mut s, y_title_lines, M + AXIS, top, bottom);
    y_axis(&mut s, &ticks, ys, left, right);
    s.path(
        vec![(left, top), (left, bottom), (right, bottom)],
        AXIS_LINE,
        1,
    );
    for &x in &xs {
        s.path(vec![(x, bottom), (x, bottom + 5.0)], AXIS_LINE, 1);
    }

    // Band: a polygon over each run of finite intervals; a lone interval is an error bar.
    for run in runs(n, |i| finite_band(band(i))) {
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
    if let Some((_, t)) = chart.threshold.as_ref().filter(|(_, t)| t.is_finite()) {
        s.dashed(vec![(left, ys.map(*t)), (right, ys.map(*t))], INK, 2);
    }
    // Context series under the claim's statistic.
    for k in (1..chart.series.len()).rev() {
        let colour = CONTEXT[(k - 1) % CONTEXT.len()];
        for run in runs(n, |i| value(k, i)) {
            let pts: Vec<(f64, f64)> = run.iter().map(|&(i, v)| (xs[i], ys.map(v))).collect();
            if pts.len() > 1 {
                s.path(pts.clone(), colour, 2);
            }
            for (x, y) in pts {
                s.rect(x - 3.0, y - 3.0, x + 3.0, y + 3.0, colour, 1.0);
            }
        }
    }
    if !chart.series.is_empty() {
        for run in runs(n, |i| value(0, i)) {
            let pts: Vec<(f64, f64)> = run.iter().map(|&(i, v)| (xs[i], ys.map(v))).collect();
            if pts.len() > 1 {
                s.path(pts, PRIMARY, 3);
            }
        }
        for (i, &x) in xs.iter().enumerate() {
            if let (Some(v), Some(&outcome)) = (value(0, i), chart.outcomes.get(i)) {
                s.shapes.push(Shape::Marker {
                    outcome,
                    x,
                    y: ys.map(v),
                    r: 6.0,
                });
            }
        }
    }
    if let (Some(lines), Some((_, t))) = (threshold_lines, chart.threshold.as_ref()) {
        if t.is_finite() {
            let block = lines.len() as f64 * line_height(TICK);
            let first = (ys.map(*t) - block / 2.0 + line_height(TICK) / 2.0)
                .clamp(top, bottom - block + line_height(TICK));
            s.text(Text::new(
                "threshold-label",
                lines,
                right + 8.0,
                centred_baseline(first, TICK),
                TICK,
            ));
        }
    }

    draw_x_ticks(&mut s, &xt, &xs, bottom);
    let y = bottom + xt.height + 8.0;
    finish_below_x_label(
        s,
        &chart.x_label,
        left,
        right,
        y,
        &chart.title,
        &chart.subtitle,
    )
}

/// Draws a [`HistogramChart`] as a standalone SVG document.
///
/// The finite permuted statistics in 30 equal-width bins over the range holding them, the
/// observed statistic and the threshold (the same bins as
/// [`histogram_vega`](super::histogram_vega)); the observed statistic is a solid vertical line
/// and the threshold a dashed one, each labelled with its value above the plot.
pub fn histogram_svg(chart: &HistogramChart) -> String {
    const PLOT_H: f64 = 300.0;
    let b = bins(chart);
    let n_finite = chart.values.len() - b.omitted;
    let mut s = Scene::new();
    let mut y = header(&mut s, &chart.title, &chart.subtitle);
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
    y = legend(&mut s, &[items], y) + 6.0;

    let max_count = b.counts.iter().copied().max().unwrap_or(0);
    let count_target = 5usize;
    let (step, _) = nice_step((max_count.max(1) as f64) * 1.08, count_target);
    let step = libm::ceil(step).max(1.0);
    let y1 = libm::ceil((max_count.max(1) as f64) * 1.08 / step) * step;
    let yticks = Ticks {
        values: (0..=(y1 / step) as u64).map(|i| i as f64 * step).collect(),
        step,
        decimals: 0,
    };
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

    // Value labels of the two lines above the plot, in a second row if they would collide.
    let mut marks: Vec<(String, f64, &str, bool)> = Vec::new();
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
    let mut mark_text = Vec::new();
    for (label, v, class, bold) in &marks {
        let w = text::width(label, TICK, *bold);
        let cx = xs.map(*v).clamp(M + w / 2.0, W - M - w / 2.0);
        let (a, z) = (cx - w / 2.0, cx + w / 2.0);
        let row = usize::from(
            placed
                .iter()
                .any(|&(pa, pz, r)| r == 0 && a < pz + 8.0 && pa < z + 8.0),
        );
        placed.push((a, z, row));
        mark_text.push((label.clone(), cx, row, *class, *bold, *v));
    }
    let rows = placed.iter().map(|&(_, _, r)| r + 1).max().unwrap_or(0) as f64;
    let strip = rows * line_height(TICK);
    let top = y + strip + 6.0;
    let bottom = top + PLOT_H;
    let ys = Scale {
        d0: 0.0,
        d1: y1,
        r0: bottom,
        r1: top,
    };
    for (label, cx, row, class, bold, v) in mark_text {
        let baseline = y + TICK + row as f64 * line_height(TICK);
        let mut t = Text::line(class, &label, cx, baseline, TICK).anchor(Anchor::Middle);
        if bold {
            t = t.bold().fill(&OBSERVED.hex());
        }
        s.text(t);
        // A thin leader from the label down to the plot.
        let x = xs.map(v);
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

    // Numeric x ticks: as many as fit without their labels touching.
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
    if let Some(t) = chart.threshold.filter(|t| t.is_finite()) {
        s.dashed(vec![(xs.map(t), top), (xs.map(t), bottom)], INK, 2);
    }
    if chart.observed.is_finite() {
        let x = xs.map(chart.observed);
        s.path(vec![(x, top), (x, bottom)], OBSERVED, 3);
    }

    let y = bottom + 8.0 + line_height(TICK) + 8.0;
    finish_below_x_label(
        s,
        &chart.x_label,
        left,
        right,
        y,
        &chart.title,
        &chart.subtitle,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_steps() {
        assert_eq!(nice_step(1.0, 5), (0.2, 1));
        assert_eq!(nice_step(10.0, 4), (2.5, 1));
        assert_eq!(nice_step(100.0, 4), (25.0, 0));
        assert_eq!(nice_step(0.07, 5), (0.02, 2));
        assert_eq!(nice_step(9.0, 1), (10.0, 0));
    }

    #[test]
    fn dark_text_on_outcome_fills() {
        for o in Outcome::ALL {
            let fill = cell_fill(o);
            assert_eq!(text_on(fill), INK_HEX);
            let ratio = (fill.luminance() + 0.05) / (INK.luminance() + 0.05);
            assert!(ratio >= 4.5, "{o:?}: contrast {ratio}");
        }
    }
}
