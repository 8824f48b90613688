//! Layout constants and the drawing model: the [`Scene`] of shapes and text, drawn by plotters.

use crate::chart::palette::{outcome_rgb, Rgb, WHITE};
use crate::chart::text::{self, Text};
use crate::chart::Outcome;
use plotters::backend::SVGBackend;
use plotters::drawing::IntoDrawingArea;
use plotters::element::{Circle, DashedPathElement, PathElement, Polygon, Rectangle};

/// Canvas width in pixels (the height follows from the content).
pub(super) const W: f64 = 960.0;
/// Outer margin.
pub(super) const M: f64 = 24.0;
/// Font sizes.
pub(super) const TITLE: f64 = 20.0;
pub(super) const SUBTITLE: f64 = 13.0;
pub(super) const AXIS: f64 = 14.0;
pub(super) const TICK: f64 = 12.0;
pub(super) const LEGEND: f64 = 12.0;
/// Rotation of x tick labels that do not fit their slot, and its sine and cosine.
pub(super) const ROTATE_DEG: i32 = -35;
pub(super) const ROTATE_SIN: f64 = 0.573_576_436_351_046;
pub(super) const ROTATE_COS: f64 = 0.819_152_044_288_992;
/// Longest line of a rotated tick label before it wraps.
pub(super) const ROTATED_MAX: f64 = 220.0;

/// A shape at pixel coordinates (rounded to whole pixels when drawn).
#[derive(Debug, Clone)]
pub(super) enum Shape {
    /// The rectangle with opposite corners `from` and `to`.
    Rect {
        from: (f64, f64),
        to: (f64, f64),
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
pub(super) struct Scene {
    pub(super) height: f64,
    pub(super) shapes: Vec<Shape>,
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
    pub(super) fn new() -> Self {
        Scene {
            height: 0.0,
            shapes: Vec::new(),
            texts: Vec::new(),
        }
    }

    pub(super) fn rect(&mut self, x0: f64, y0: f64, x1: f64, y1: f64, fill: Rgb, alpha: f64) {
        self.shapes.push(Shape::Rect {
            from: (x0, y0),
            to: (x1, y1),
            fill,
            alpha,
        });
    }

    pub(super) fn path(&mut self, points: Vec<(f64, f64)>, stroke: Rgb, width: u32) {
        self.shapes.push(Shape::Path {
            points,
            stroke,
            width,
            dash: None,
        });
    }

    pub(super) fn dashed(&mut self, points: Vec<(f64, f64)>, stroke: Rgb, width: u32) {
        self.shapes.push(Shape::Path {
            points,
            stroke,
            width,
            dash: Some((8, 5)),
        });
    }

    pub(super) fn text(&mut self, t: Text) {
        self.texts.push(t);
    }

    /// Draws the shapes with plotters, then appends the text elements.
    pub(super) fn finish(self, title: &str, subtitle: &str) -> String {
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
            from,
            to,
            fill,
            alpha,
        } => {
            let r = Rectangle::new([pt(*from), pt(*to)], fill.style(*alpha, true, 0));
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
pub(super) fn centred_baseline(cy: f64, size: f64) -> f64 {
    cy + 0.36 * size
}
