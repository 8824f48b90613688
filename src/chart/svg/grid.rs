//! The heatmap of a boundary map over two axes ([`GridChart`]).

use super::axes::{draw_x_ticks, finish_below_x_label, slotted_x_ticks, y_title};
use super::legend::{header, legend, Swatch};
use super::scene::{centred_baseline, Scene, AXIS, LEGEND, M, TICK, W};
use crate::chart::palette::{cell_fill, text_on, EMPTY_CELL, MUTED_HEX, TICK_HEX};
use crate::chart::text::{self, line_height, Anchor, Text};
use crate::chart::{fixed, GridCell, GridChart, Outcome};

/// Font sizes of a cell's value, CI and outcome label.
const VALUE: f64 = 16.0;
const CI: f64 = 11.0;
const LABEL: f64 = 10.0;

/// Draws the heatmap of a [`GridChart`] as a standalone SVG document.
///
/// One cell per (x, y), filled by outcome, printing the value (3 decimals), the 95% CI when
/// it fits and the outcome's label; `y_ticks[0]` is the top row.
pub fn grid_svg(chart: &GridChart) -> String {
    let mut s = Scene::new();
    let y = header(&mut s, &chart.captions);
    let top = grid_legend(&mut s, chart, y);

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
    let bottom = top + ny as f64 * ch;
    let y_title_lines = text::wrap(&chart.y_label, AXIS, false, bottom - top);
    let y_title_w = y_title_lines.len() as f64 * line_height(AXIS);
    let right = W - M;
    let (left, cw, xt) = slotted_x_ticks(
        &chart.x_ticks,
        M + y_title_w + 10.0 + y_tick_w + 10.0,
        right,
        nx,
    );
    let cells = Cells {
        left,
        top,
        cw,
        ch,
        nx,
    };
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
    draw_empty_slots(&mut s, chart, &cells);
    for c in &chart.cells {
        if c.x < chart.x_ticks.len() && c.y < chart.y_ticks.len() {
            draw_cell(&mut s, c, &cells);
        }
    }

    let centres: Vec<f64> = (0..chart.x_ticks.len())
        .map(|i| left + (i as f64 + 0.5) * cw)
        .collect();
    draw_x_ticks(&mut s, &xt, &centres, bottom);
    let y = bottom + xt.height + 8.0;
    finish_below_x_label(s, &chart.captions, (left, right), y)
}

/// The legend of outcome fills and the note on what a cell prints, from `y`; returns the y
/// below them.
fn grid_legend(s: &mut Scene, chart: &GridChart, y: f64) -> f64 {
    let mut items = vec![(Swatch::Nothing, "Fill: the claim's outcome".to_string())];
    items.extend(
        Outcome::ALL
            .iter()
            .map(|&o| (Swatch::Fill(cell_fill(o)), o.label().to_string())),
    );
    let y = legend(s, &[items], y);
    let note = format!(
        "Number in each cell: {}, 3 decimals; below it, its 95% CI [low, high].",
        chart.value_label
    );
    let lines = text::wrap(&note, LEGEND, false, W - 2.0 * M);
    let n = lines.len() as f64;
    s.text(Text::new("legend", lines, M, y + LEGEND, LEGEND).fill(MUTED_HEX));
    y + (n * line_height(LEGEND) + 16.0)
}

/// The grid of cells: its top left corner, a cell's width and height, and the columns.
struct Cells {
    left: f64,
    top: f64,
    cw: f64,
    ch: f64,
    nx: usize,
}

impl Cells {
    /// The top left corner of the cell in column `i`, row `j`.
    fn corner(&self, i: usize, j: usize) -> (f64, f64) {
        (
            self.left + i as f64 * self.cw,
            self.top + j as f64 * self.ch,
        )
    }
}

/// A "no cell" box in every (x, y) slot that no cell of the chart fills.
fn draw_empty_slots(s: &mut Scene, chart: &GridChart, cells: &Cells) {
    let Cells { cw, ch, nx, .. } = *cells;
    let mut filled = vec![false; nx * chart.y_ticks.len().max(1)];
    for c in &chart.cells {
        if c.x < chart.x_ticks.len() && c.y < chart.y_ticks.len() {
            filled[c.y * nx + c.x] = true;
        }
    }
    for j in 0..chart.y_ticks.len() {
        for i in 0..chart.x_ticks.len() {
            if !filled[j * nx + i] {
                let (x0, y0) = cells.corner(i, j);
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
}

/// One cell: its outcome's fill, the value, the CI when it fits, and the outcome's label,
/// centred as one block.
fn draw_cell(s: &mut Scene, c: &GridCell, cells: &Cells) {
    let Cells { cw, ch, .. } = *cells;
    let (x0, y0) = cells.corner(c.x, c.y);
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
