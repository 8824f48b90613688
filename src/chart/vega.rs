//! Vega-Lite v5 specs with inline data: the same numbers as the SVG, each boundary row bound
//! to its kernel cell hash.

use super::palette::{
    bar_hex, cell_fill, cell_fill_hex, context_hex, observed_hex, outcome_hex, primary_hex,
    text_on, INK_HEX,
};
use super::text;
use super::{bins, Captions, GridChart, HistogramChart, LineChart, Outcome, HISTOGRAM_BINS};
use serde_json::{json, Value};

/// The Vega-Lite v5 schema every spec names.
pub(crate) const SCHEMA: &str = "https://vega.github.io/schema/vega-lite/v5.json";

/// A number, or `null` when absent or not finite (JSON has no NaN).
fn num(v: Option<f64>) -> Value {
    v.filter(|v| v.is_finite())
        .map_or(Value::Null, |v| json!(v))
}

fn title(captions: &Captions) -> Value {
    json!({ "text": captions.title, "subtitle": captions.subtitle, "anchor": "start" })
}

/// Width of one x position in the grid and line specs.
const GRID_STEP: usize = 130;
const LINE_STEP: usize = 110;

/// Level tick labels if they all fit their step, else rotated like the SVG's.
fn x_axis(ticks: &[String], step: usize) -> Value {
    let fits = ticks
        .iter()
        .all(|t| text::width(t, 11.0, false) <= step as f64 - 10.0);
    if fits {
        json!({ "labelAngle": 0 })
    } else {
        json!({ "labelAngle": -35, "labelAlign": "right", "labelLimit": 240 })
    }
}

fn outcome_labels() -> Vec<&'static str> {
    Outcome::ALL.iter().map(|o| o.label()).collect()
}

/// The spec of a [`GridChart`]: one data row per drawn cell with `x`, `y` (tick labels),
/// `x_index`, `y_index`, `value`, `ci_low`, `ci_high`, `outcome` and `cell_hash`; a rect
/// layer filled by outcome and text layers with the value (3 decimals) and the outcome.
pub fn grid_vega(chart: &GridChart) -> Value {
    let rows: Vec<Value> = chart
        .cells
        .iter()
        .filter(|c| c.x < chart.x_ticks.len() && c.y < chart.y_ticks.len())
        .map(|c| {
            json!({
                "x": chart.x_ticks[c.x],
                "y": chart.y_ticks[c.y],
                "x_index": c.x,
                "y_index": c.y,
                "value": num(c.value),
                "ci_low": num(c.ci.map(|[lo, _]| lo)),
                "ci_high": num(c.ci.map(|[_, hi]| hi)),
                "outcome": c.outcome.label(),
                "cell_hash": c.cell_hash,
            })
        })
        .collect();
    let fills: Vec<String> = Outcome::ALL.iter().map(|&o| cell_fill_hex(o)).collect();
    let mut layers = vec![json!({
        "mark": { "type": "rect", "stroke": "white", "strokeWidth": 2 },
        "encoding": {
            "color": {
                "field": "outcome", "type": "nominal", "title": "outcome",
                "scale": { "domain": outcome_labels(), "range": fills }
            },
            "tooltip": [
                { "field": "x", "title": chart.captions.x_label },
                { "field": "y", "title": chart.y_label },
                { "field": "value", "type": "quantitative", "format": ".3f",
                  "title": chart.value_label },
                { "field": "ci_low", "type": "quantitative", "format": ".3f",
                  "title": "95% CI low" },
                { "field": "ci_high", "type": "quantitative", "format": ".3f",
                  "title": "95% CI high" },
                { "field": "outcome" },
                { "field": "cell_hash" }
            ]
        }
    })];
    layers.extend(cell_text_layers());
    json!({
        "$schema": SCHEMA,
        "title": title(&chart.captions),
        "description": format!("Number in each cell: {} (3 decimals)", chart.value_label),
        "width": GRID_STEP * chart.x_ticks.len().max(1),
        "height": 76 * chart.y_ticks.len().max(1),
        "data": { "values": rows },
        "encoding": {
            "x": {
                "field": "x", "type": "ordinal", "sort": chart.x_ticks,
                "title": chart.captions.x_label, "axis": x_axis(&chart.x_ticks, GRID_STEP)
            },
            "y": {
                "field": "y", "type": "ordinal", "sort": chart.y_ticks,
                "title": chart.y_label, "axis": { "labelLimit": 240 }
            }
        },
        "layer": layers,
        "resolve": { "scale": { "color": "independent" } }
    })
}

/// A grid cell's text layers: the value (3 decimals, bold), the CI and the outcome, each in
/// the ink that reads on its outcome's fill.
fn cell_text_layers() -> [Value; 3] {
    let inks: Vec<&str> = Outcome::ALL
        .iter()
        .map(|&o| text_on(cell_fill(o)))
        .collect();
    [
        json!({
            "transform": [{
                "calculate": "isValid(datum.value) ? format(datum.value, '.3f') : 'no value'",
                "as": "value_text"
            }],
            "mark": { "type": "text", "fontWeight": "bold", "fontSize": 15, "dy": -12 },
            "encoding": {
                "text": { "field": "value_text", "type": "nominal" },
                "color": {
                    "field": "outcome", "type": "nominal", "legend": null,
                    "scale": { "domain": outcome_labels(), "range": inks }
                }
            }
        }),
        json!({
            "transform": [{
                "calculate": "isValid(datum.ci_low) && isValid(datum.ci_high) ? '[' + format(datum.ci_low, '.3f') + ', ' + format(datum.ci_high, '.3f') + ']' : ''",
                "as": "ci_text"
            }],
            "mark": { "type": "text", "fontSize": 10, "dy": 4 },
            "encoding": {
                "text": { "field": "ci_text", "type": "nominal" },
                "color": {
                    "field": "outcome", "type": "nominal", "legend": null,
                    "scale": { "domain": outcome_labels(), "range": inks }
                }
            }
        }),
        json!({
            "mark": { "type": "text", "fontSize": 9, "fontWeight": "bold", "dy": 18 },
            "encoding": {
                "text": { "field": "outcome", "type": "nominal" },
                "color": {
                    "field": "outcome", "type": "nominal", "legend": null,
                    "scale": { "domain": outcome_labels(), "range": inks }
                }
            }
        }),
    ]
}

/// The spec of a [`LineChart`]: one data row per (series, x tick) with `x`, `x_index`,
/// `series`, `series_index`, `value`, `ci_low`/`ci_high` (the band, on `series[0]` rows
/// only), `outcome` and `cell_hash` of that x tick; layers for the band, the lines, the
/// outcome markers of `series[0]` (shape and colour) and the dashed threshold.
pub fn line_vega(chart: &LineChart) -> Value {
    let x = json!({
        "field": "x", "type": "ordinal", "sort": chart.x_ticks, "title": chart.captions.x_label,
        "axis": x_axis(&chart.x_ticks, LINE_STEP)
    });
    let y_title = chart.y_label.as_str();
    let mut layers = vec![
        json!({
            "transform": [{ "filter": { "field": "series_index", "equal": 0 } }],
            "mark": { "type": "area", "opacity": 0.18, "color": primary_hex(),
                      "invalid": "break-paths-filter-domains" },
            "encoding": {
                "x": x,
                "y": { "field": "ci_low", "type": "quantitative", "title": y_title },
                "y2": { "field": "ci_high" }
            }
        }),
        series_layer(chart, &x),
        outcome_layer(chart, &x),
    ];
    if let Some((label, t)) = &chart.threshold {
        layers.extend(threshold_layers(label, *t, y_title));
    }
    json!({
        "$schema": SCHEMA,
        "title": title(&chart.captions),
        "width": LINE_STEP * chart.x_ticks.len().max(1),
        "height": 340,
        "data": { "values": line_rows(chart) },
        "layer": layers,
        "resolve": { "scale": { "color": "independent", "shape": "independent" } },
        "config": { "legend": { "orient": "top", "labelLimit": 400, "titleLimit": 400 } }
    })
}

/// A line spec's data: one row per (series, x tick), series by series.
fn line_rows(chart: &LineChart) -> Vec<Value> {
    let mut rows = Vec::new();
    for (k, series) in chart.series.iter().enumerate() {
        for (i, tick) in chart.x_ticks.iter().enumerate() {
            let band = if k == 0 {
                chart
                    .band
                    .as_ref()
                    .and_then(|b| b.get(i).copied().flatten())
            } else {
                None
            };
            rows.push(json!({
                "x": tick,
                "x_index": i,
                "series": series.name,
                "series_index": k,
                "value": num(series.values.get(i).copied().flatten()),
                "ci_low": num(band.map(|[lo, _]| lo)),
                "ci_high": num(band.map(|[_, hi]| hi)),
                "outcome": chart.outcomes.get(i).map(|o| o.label()),
                "cell_hash": chart.cell_hashes.get(i),
            }));
        }
    }
    rows
}

/// The lines layer: every series, `series[0]` in the primary colour and thicker.
fn series_layer(chart: &LineChart, x: &Value) -> Value {
    let names: Vec<&str> = chart.series.iter().map(|s| s.name.as_str()).collect();
    let colours: Vec<String> = (0..chart.series.len())
        .map(|k| {
            if k == 0 {
                primary_hex()
            } else {
                context_hex(k - 1)
            }
        })
        .collect();
    json!({
        "mark": { "type": "line", "point": { "filled": true, "size": 30 },
                  "invalid": "break-paths-filter-domains" },
        "encoding": {
            "x": x,
            "y": { "field": "value", "type": "quantitative", "title": chart.y_label },
            "color": {
                "field": "series", "type": "nominal", "title": null,
                "scale": { "domain": names, "range": colours }
            },
            "strokeWidth": {
                "condition": { "test": "datum.series_index === 0", "value": 3 },
                "value": 2
            }
        }
    })
}

/// The outcome markers of `series[0]`: shape and colour by outcome, with a tooltip.
fn outcome_layer(chart: &LineChart, x: &Value) -> Value {
    let primary = chart.series.first().map_or("", |s| s.name.as_str());
    let outcome_colours: Vec<String> = Outcome::ALL.iter().map(|&o| outcome_hex(o)).collect();
    json!({
        "transform": [
            { "filter": { "field": "series_index", "equal": 0 } },
            { "filter": "isValid(datum.value) && isFinite(datum.value)" }
        ],
        "mark": { "type": "point", "filled": true, "size": 120, "opacity": 1,
                  "stroke": "white", "strokeWidth": 1 },
        "encoding": {
            "x": x,
            "y": { "field": "value", "type": "quantitative", "title": chart.y_label },
            "shape": {
                "field": "outcome", "type": "nominal", "title": format!("outcome ({primary})"),
                "scale": { "domain": outcome_labels(), "range": ["circle", "diamond", "cross"] }
            },
            "color": {
                "field": "outcome", "type": "nominal", "title": format!("outcome ({primary})"),
                "scale": { "domain": outcome_labels(), "range": outcome_colours }
            },
            "tooltip": [
                { "field": "x", "title": chart.captions.x_label },
                { "field": "value", "type": "quantitative", "format": ".3f", "title": primary },
                { "field": "ci_low", "type": "quantitative", "format": ".3f", "title": "95% CI low" },
                { "field": "ci_high", "type": "quantitative", "format": ".3f", "title": "95% CI high" },
                { "field": "outcome" },
                { "field": "cell_hash" }
            ]
        }
    })
}

/// The threshold `t`: a dashed rule and its `label` with the value, right-aligned above it.
fn threshold_layers(label: &str, t: f64, y_title: &str) -> [Value; 2] {
    let data = json!({ "values": [{ "threshold": num(Some(t)), "label": label }] });
    [
        json!({
            "data": data,
            "mark": { "type": "rule", "strokeDash": [8, 5], "strokeWidth": 2, "color": INK_HEX },
            "encoding": { "y": { "field": "threshold", "type": "quantitative", "title": y_title } }
        }),
        json!({
            "data": data,
            "transform": [{
                "calculate": "datum.label + ' = ' + format(datum.threshold, '.3f')",
                "as": "text"
            }],
            "mark": { "type": "text", "align": "right", "baseline": "bottom", "dy": -4,
                      "x": "width", "color": INK_HEX },
            "encoding": {
                "y": { "field": "threshold", "type": "quantitative", "title": y_title },
                "text": { "field": "text", "type": "nominal" }
            }
        }),
    ]
}

/// The spec of a [`HistogramChart`]: pre-binned data (the same bins as
/// [`histogram_svg`](super::histogram_svg)), one row per bin with `bin_start`, `bin_end` and
/// `count`, drawn as bars; the observed statistic as a solid rule and the threshold as a
/// dashed one, each with its value.
pub fn histogram_vega(chart: &HistogramChart) -> Value {
    let b = bins(chart);
    let rows: Vec<Value> = (0..HISTOGRAM_BINS)
        .map(|i| {
            json!({
                "bin_start": b.edges[i],
                "bin_end": b.edges[i + 1],
                "count": b.counts[i],
            })
        })
        .collect();
    let mut layers = vec![json!({
        "mark": { "type": "bar", "color": bar_hex(), "binSpacing": 1 },
        "encoding": {
            "x": {
                "field": "bin_start", "type": "quantitative", "title": chart.captions.x_label,
                "bin": { "binned": true }
            },
            "x2": { "field": "bin_end" },
            "y": { "field": "count", "type": "quantitative", "title": "permutations (count)" },
            "tooltip": [
                { "field": "bin_start", "type": "quantitative", "format": ".3f" },
                { "field": "bin_end", "type": "quantitative", "format": ".3f" },
                { "field": "count", "type": "quantitative" }
            ]
        }
    })];
    // The label of the left line extends left of it, the other's right: they never meet.
    let observed_left = chart.threshold.is_none_or(|t| chart.observed <= t);
    let mut rule =
        |field: &str, v: f64, colour: String, dash: Option<[u32; 2]>, label: &str, left: bool| {
            let mut row = serde_json::Map::new();
            row.insert(field.to_string(), num(Some(v)));
            let data = json!({ "values": [row] });
            let mut mark = json!({ "type": "rule", "color": colour, "strokeWidth": 3 });
            if let Some(d) = dash {
                mark["strokeDash"] = json!(d);
                mark["strokeWidth"] = json!(2);
            }
            layers.push(json!({
                "data": data,
                "mark": mark,
                "encoding": { "x": { "field": field, "type": "quantitative" } }
            }));
            layers.push(json!({
                "data": data,
                "transform": [{
                    "calculate": format!("'{label} = ' + format(datum.{field}, '.3f')"),
                    "as": "text"
                }],
                "mark": {
                    "type": "text", "y": 0, "dy": -8, "color": colour, "fontWeight": "bold",
                    "align": if left { "right" } else { "left" }, "dx": if left { -4 } else { 4 }
                },
                "encoding": {
                    "x": { "field": field, "type": "quantitative" },
                    "text": { "field": "text", "type": "nominal" }
                }
            }));
        };
    rule(
        "observed",
        chart.observed,
        observed_hex(),
        None,
        "observed",
        observed_left,
    );
    if let Some(t) = chart.threshold {
        let dash = Some([8, 5]);
        rule(
            "threshold",
            t,
            INK_HEX.to_string(),
            dash,
            "threshold",
            !observed_left,
        );
    }
    json!({
        "$schema": SCHEMA,
        "title": title(&chart.captions),
        "description": format!(
            "{} finite permuted statistics in {HISTOGRAM_BINS} bins; {} non-finite left out",
            chart.values.len() - b.omitted,
            b.omitted
        ),
        "width": 640,
        "height": 300,
        "data": { "values": rows },
        "layer": layers
    })
}
