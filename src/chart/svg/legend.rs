//! The header (title and subtitle) and the legend of swatches and labels.

use super::scene::{centred_baseline, Scene, Shape, LEGEND, M, SUBTITLE, TITLE, W};
use crate::chart::palette::{Rgb, MUTED_HEX};
use crate::chart::text::{self, line_height, Text};
use crate::chart::{Captions, Outcome};

/// Title and subtitle, wrapped to the canvas; returns the y below them.
pub(super) fn header(scene: &mut Scene, captions: &Captions) -> f64 {
    let Captions {
        title, subtitle, ..
    } = captions;
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
pub(super) enum Swatch {
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
pub(super) fn legend(scene: &mut Scene, groups: &[Vec<(Swatch, String)>], top: f64) -> f64 {
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
