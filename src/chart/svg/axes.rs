//! Axes: x tick labels (wrapped or rotated), axis titles, numeric ticks, scales, y axes.

use super::scene::{
    centred_baseline, Scene, AXIS, M, ROTATED_MAX, ROTATE_COS, ROTATE_DEG, ROTATE_SIN, TICK,
};
use crate::chart::palette::{AXIS_LINE, GRIDLINE, TICK_HEX};
use crate::chart::text::{self, line_height, Anchor, Text};
use crate::chart::{fixed, Captions};

/// How categorical x tick labels are set: wrapped under their slot, or rotated.
pub(super) struct XTicks {
    pub(super) labels: Vec<Vec<String>>,
    pub(super) rotated: bool,
    /// Vertical space they need below the axis.
    pub(super) height: f64,
}

/// Wraps each label under its slot if every label fits in at most three lines without
/// breaking a word; otherwise rotates them all.
fn x_ticks(ticks: &[String], slot: f64) -> XTicks {
    let wrap_each = |width: f64| -> Vec<Vec<String>> {
        ticks
            .iter()
            .map(|t| text::wrap(t, TICK, false, width))
            .collect()
    };
    let max = slot - 8.0;
    let wrapped = wrap_each(max);
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
    let labels = wrap_each(ROTATED_MAX);
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

/// The x tick labels under `slots` equal slots from `left` to `right`, with the left edge
/// and slot width they are set for: when rotated labels would reach past the left margin,
/// the left edge moves right to make room and the labels are set again for the narrower
/// slots.
pub(super) fn slotted_x_ticks(
    ticks: &[String],
    mut left: f64,
    right: f64,
    slots: usize,
) -> (f64, f64, XTicks) {
    let mut slot = (right - left) / slots as f64;
    let mut xt = x_ticks(ticks, slot);
    if xt.rotated {
        let needed = M + rotated_overhang(&xt.labels, slot);
        if needed > left {
            left = needed;
            slot = (right - left) / slots as f64;
            xt = x_ticks(ticks, slot);
        }
    }
    (left, slot, xt)
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

/// Writes the chart's x-axis label (wrapped to the plot's width `(left, right)`, centred)
/// from `y` down, sizes the canvas to end a margin below it, and finishes the document with
/// the chart's title and subtitle.
pub(super) fn finish_below_x_label(
    mut scene: Scene,
    captions: &Captions,
    (left, right): (f64, f64),
    y: f64,
) -> String {
    let lines = text::wrap(&captions.x_label, AXIS, false, right - left);
    let n = lines.len() as f64;
    scene.text(
        Text::new("axis-label", lines, (left + right) / 2.0, y + AXIS, AXIS).anchor(Anchor::Middle),
    );
    scene.height = y + n * line_height(AXIS) + M;
    scene.finish(&captions.title, &captions.subtitle)
}

pub(super) fn draw_x_ticks(scene: &mut Scene, ticks: &XTicks, centres: &[f64], top: f64) {
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
pub(super) fn y_title(scene: &mut Scene, lines: Vec<String>, x: f64, top: f64, bottom: f64) {
    let cy = (top + bottom) / 2.0;
    scene.text(
        Text::new("axis-label", lines, x, cy, AXIS)
            .anchor(Anchor::Middle)
            .rotate(-90),
    );
}

/// Evenly spaced round tick values and the decimals that print them exactly.
#[derive(Debug, Clone)]
pub(super) struct Ticks {
    pub(super) values: Vec<f64>,
    pub(super) step: f64,
    pub(super) decimals: usize,
}

fn pow10(k: i32) -> f64 {
    libm::pow(10.0, f64::from(k))
}

/// A step of 1, 2, 2.5 or 5 × 10^k giving about `target` intervals over `span`.
pub(super) fn nice_step(span: f64, target: usize) -> (f64, usize) {
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
pub(super) fn ticks_in(lo: f64, hi: f64, target: usize) -> Ticks {
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
pub(super) fn padded_axis(lo: f64, hi: f64, target: usize) -> (f64, f64, Ticks) {
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
pub(super) struct Scale {
    pub(super) d0: f64,
    pub(super) d1: f64,
    pub(super) r0: f64,
    pub(super) r1: f64,
}

impl Scale {
    pub(super) fn map(self, v: f64) -> f64 {
        self.r0 + (v - self.d0) / (self.d1 - self.d0) * (self.r1 - self.r0)
    }
}

/// Horizontal gridlines and right-aligned labels for a numeric y axis.
pub(super) fn y_axis(scene: &mut Scene, ticks: &Ticks, y: Scale, left: f64, right: f64) {
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

pub(super) fn tick_label_width(ticks: &Ticks) -> f64 {
    ticks
        .values
        .iter()
        .map(|&v| text::width(&fixed(v, ticks.decimals), TICK, false))
        .fold(0.0, f64::max)
}
