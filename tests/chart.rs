//! Charts: the SVGs are well-formed XML that says what it shows, the Vega-Lite specs carry
//! the input numbers and cell hashes, histogram bins partition the values, and every output
//! is byte-identical across calls.
//!
//! To look at the charts: `cargo test --release --test lib chart::demo -- --ignored`, then
//! `rsvg-convert -w 1000 /tmp/counterlab-charts/NAME.svg -o NAME.png`.

use counterlab::chart::{
    grid_svg, grid_vega, histogram_svg, histogram_vega, line_svg, line_vega, Captions, GridCell,
    GridChart, HistogramChart, LineChart, Outcome, Series,
};
use serde_json::Value;

// ---------------------------------------------------------------------------------------
// Fixtures

fn grid_typical() -> GridChart {
    let x_ticks: Vec<String> = ["50", "100", "200", "400", "800"]
        .map(String::from)
        .to_vec();
    let y_ticks: Vec<String> = ["0.0", "0.5", "1.0"].map(String::from).to_vec();
    let mut cells = Vec::new();
    for y in 0..3 {
        for x in 0..5 {
            let v = 0.02 * (x as f64) + 0.03 * (y as f64) - 0.01;
            let outcome = match (x + y) % 3 {
                0 => Outcome::Supports,
                1 => Outcome::Inconclusive,
                _ => Outcome::Rejected,
            };
            cells.push(GridCell {
                x,
                y,
                value: Some(v),
                ci: Some([v - 0.015, v + 0.015]),
                outcome,
                cell_hash: format!("cell-{x}-{y}"),
            });
        }
    }
    GridChart {
        captions: Captions {
            title: "Leakage boundary: ROC AUC gap by entities and leak strength".to_string(),
            subtitle: "pack entity-leakage · claim random-vs-grouped · K = 5 folds".to_string(),
            x_label: "entities in the pack (count)".to_string(),
        },
        x_ticks,
        y_label: "leak strength (fraction)".to_string(),
        y_ticks,
        value_label: "ROC AUC gap (leaky − grouped)".to_string(),
        cells,
    }
}

/// Long labels, negative values, a missing value and a missing cell.
fn grid_long() -> GridChart {
    let x_ticks: Vec<String> = [
        "grouped by patient identifier across both hospitals",
        "grouped by hospital site (A vs B vs C)",
        "random row split with stratification on the outcome label",
        "time-ordered split (train before 2019-06-30)",
        "leave-one-site-out",
    ]
    .map(String::from)
    .to_vec();
    let y_ticks: Vec<String> = [
        "logistic regression with an L2 penalty of 1.0",
        "majority class",
        "gradient-boosted trees (depth 3)",
    ]
    .map(String::from)
    .to_vec();
    let mut cells = Vec::new();
    for y in 0..3 {
        for x in 0..5 {
            if (x, y) == (4, 2) {
                continue;
            }
            let v = -0.1234 + 0.0571 * (x as f64) - 0.0437 * (y as f64);
            cells.push(GridCell {
                x,
                y,
                value: if (x, y) == (2, 1) { None } else { Some(v) },
                ci: if x == 1 {
                    None
                } else {
                    Some([v - 0.0512, v + 0.0498])
                },
                outcome: if v > 0.02 {
                    Outcome::Supports
                } else if v < -0.05 {
                    Outcome::Rejected
                } else {
                    Outcome::Inconclusive
                },
                cell_hash: format!("{:064x}", 1000 * y + x),
            });
        }
    }
    GridChart {
        captions: Captions {
            title: "Does grouping by entity change the measured performance of every model \
                family on the clinical-readmission subject pack, or only of the flexible ones?"
                .to_string(),
            subtitle: "pack clinical-readmission-2024 · claim grouped-split-lowers-auc · \
                   K = 10 folds × 5 repeats · 1,000 permutations per cell · \
                   & <escaped> \"quotes\""
                .to_string(),
            x_label: "evaluation design (how rows were assigned to training and test folds)"
                .to_string(),
        },
        x_ticks,
        y_label: "model family and its hyper-parameters".to_string(),
        y_ticks,
        value_label: "ROC AUC difference (grouped − random), negative = grouped is lower"
            .to_string(),
        cells,
    }
}

fn line_typical() -> LineChart {
    let x_ticks: Vec<String> = ["10", "20", "50", "100", "200", "500"]
        .map(String::from)
        .to_vec();
    let stat = [0.012, 0.031, 0.058, 0.072, 0.085, 0.091];
    LineChart {
        captions: Captions {
            title: "ROC AUC gap (leaky − grouped) by number of entities".to_string(),
            subtitle: "pack entity-leakage · claim random-vs-grouped · K = 5 folds".to_string(),
            x_label: "entities in the pack (count)".to_string(),
        },
        x_ticks,
        y_label: "ROC AUC gap (AUC points)".to_string(),
        series: vec![
            Series {
                name: "ROC AUC gap".to_string(),
                values: stat.iter().map(|&v| Some(v)).collect(),
            },
            Series {
                name: "majority baseline gap".to_string(),
                values: vec![Some(0.0); 6],
            },
            Series {
                name: "label-shuffled gap".to_string(),
                values: vec![
                    Some(0.004),
                    Some(-0.003),
                    Some(0.006),
                    None,
                    Some(0.001),
                    Some(0.002),
                ],
            },
        ],
        band: Some(stat.iter().map(|&v| Some([v - 0.02, v + 0.018])).collect()),
        threshold: Some(("claim threshold".to_string(), 0.05)),
        outcomes: vec![
            Outcome::Rejected,
            Outcome::Inconclusive,
            Outcome::Inconclusive,
            Outcome::Supports,
            Outcome::Supports,
            Outcome::Supports,
        ],
        cell_hashes: (0..6).map(|i| format!("line-cell-{i}")).collect(),
    }
}

/// Long labels, negative values, gaps in the statistic and its band.
fn line_long() -> LineChart {
    let x_ticks: Vec<String> = [
        "no temporal gap between train and test",
        "1 week gap",
        "1 month gap between the last training row and the first test row",
        "3 months",
        "6 months embargo",
        "1 year embargo (calendar)",
        "2 years",
    ]
    .map(String::from)
    .to_vec();
    LineChart {
        captions: Captions {
            title: "Temporal leakage: calibration slope change when the embargo grows".to_string(),
            subtitle: "pack ehr-temporal · claim embargo-removes-optimism · K = 8 · 500 bootstrap \
                   resamples"
                .to_string(),
            x_label: "embargo between training and test windows".to_string(),
        },
        x_ticks,
        y_label: "calibration slope change (unitless, negative = worse)".to_string(),
        series: vec![
            Series {
                name: "calibration slope change (embargo − none)".to_string(),
                values: vec![
                    Some(0.0),
                    Some(-0.041),
                    Some(-0.087),
                    None,
                    Some(-0.152),
                    Some(-0.171),
                    Some(-0.176),
                ],
            },
            Series {
                name: "prevalence-only model".to_string(),
                values: vec![Some(-0.01); 7],
            },
        ],
        band: Some(vec![
            Some([-0.012, 0.011]),
            Some([-0.07, -0.01]),
            None,
            None,
            Some([-0.2, -0.11]),
            Some([-0.22, -0.12]),
            Some([-0.23, -0.121]),
        ]),
        threshold: Some((
            "claim: change below −0.100 (a material loss of calibration)".to_string(),
            -0.1,
        )),
        outcomes: vec![
            Outcome::Rejected,
            Outcome::Rejected,
            Outcome::Inconclusive,
            Outcome::Inconclusive,
            Outcome::Supports,
            Outcome::Supports,
            Outcome::Supports,
        ],
        cell_hashes: (0..7).map(|i| format!("{i:064x}")).collect(),
    }
}

/// A deterministic, roughly bell-shaped sample (sum of four LCG uniforms).
fn null_sample(n: usize, centre: f64, spread: f64) -> Vec<f64> {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut uniform = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    (0..n)
        .map(|_| {
            let s: f64 = (0..4).map(|_| uniform()).sum();
            centre + (s - 2.0) * spread
        })
        .collect()
}

fn histogram_typical() -> HistogramChart {
    HistogramChart {
        captions: Captions {
            title: "Permutation null of the ROC AUC gap, with the observed gap".to_string(),
            subtitle: "pack entity-leakage · claim random-vs-grouped · K = 5 · 200 permutations"
                .to_string(),
            x_label: "ROC AUC gap (leaky − grouped, AUC points)".to_string(),
        },
        values: null_sample(200, 0.0, 0.02),
        observed: 0.074,
        threshold: Some(0.05),
    }
}

fn histogram_negative() -> HistogramChart {
    let mut values = null_sample(200, -0.02, 0.015);
    values.push(f64::NAN);
    HistogramChart {
        captions: Captions {
            title: "Permutation null of the calibration slope change under a six-month embargo"
                .to_string(),
            subtitle: "pack ehr-temporal · claim embargo-removes-optimism · 200 permutations"
                .to_string(),
            x_label: "calibration slope change (embargo − none, unitless)".to_string(),
        },
        values,
        observed: -0.0215,
        threshold: Some(-0.03),
    }
}

// ---------------------------------------------------------------------------------------
// SVG helpers

fn parse(svg: &str) -> roxmltree::Document<'_> {
    roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("SVG is not XML: {e}\n{svg}"))
}

/// The text of every `<text>` element of `class`, tspan lines joined by a space.
fn texts(doc: &roxmltree::Document<'_>, class: &str) -> Vec<String> {
    doc.descendants()
        .filter(|n| n.tag_name().name() == "text" && n.attribute("class") == Some(class))
        .map(|n| {
            n.descendants()
                .filter(|d| d.is_text())
                .filter_map(|d| d.text())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

/// Normalises whitespace runs, as wrapping does.
fn words(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Checks what every chart must show, plus fixed-decimal numbers and in-canvas anchors.
fn check_common(svg: &str, title: &str, axis_labels: &[&str]) {
    let doc = parse(svg);
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    let width: f64 = root.attribute("width").unwrap().parse().unwrap();
    let height: f64 = root.attribute("height").unwrap().parse().unwrap();
    assert_eq!(texts(&doc, "title"), vec![words(title)]);
    let axes = texts(&doc, "axis-label");
    for label in axis_labels {
        assert!(
            axes.contains(&words(label)),
            "axis label {label:?} not in {axes:?}"
        );
    }
    for n in doc.descendants().filter(|n| n.tag_name().name() == "text") {
        for attr in ["x", "y", "font-size"] {
            let v = n.attribute(attr).unwrap();
            let (int, dec) = v.split_once('.').unwrap_or_else(|| panic!("{attr}={v}"));
            assert!(
                dec.len() == 1 && dec.bytes().all(|b| b.is_ascii_digit()),
                "{attr}={v}"
            );
            assert!(int
                .trim_start_matches('-')
                .bytes()
                .all(|b| b.is_ascii_digit()));
        }
        let x: f64 = n.attribute("x").unwrap().parse().unwrap();
        let y: f64 = n.attribute("y").unwrap().parse().unwrap();
        assert!(
            (0.0..=width).contains(&x) && (0.0..=height).contains(&y),
            "{x},{y}"
        );
    }
    // A non-finite number is printed as a word of its own ("NaN", "inf"); words that
    // merely contain the letters ("random-inflates-auc.json") are text.
    let non_finite = svg
        .split(|c: char| !c.is_ascii_alphabetic())
        .find(|w| ["nan", "inf", "infinity"].contains(&w.to_ascii_lowercase().as_str()));
    assert_eq!(non_finite, None, "non-finite number in SVG");
}

fn legend_has(svg: &str, entries: &[&str]) {
    let doc = parse(svg);
    let legend = texts(&doc, "legend");
    for e in entries {
        assert!(
            legend.contains(&words(e)),
            "legend entry {e:?} not in {legend:?}"
        );
    }
}

fn fixed3(v: f64) -> String {
    let s = format!("{v:.3}");
    match s.strip_prefix('-') {
        Some(rest) if rest.bytes().all(|b| b == b'0' || b == b'.') => rest.to_string(),
        Some(rest) => format!("\u{2212}{rest}"),
        None => s,
    }
}

// ---------------------------------------------------------------------------------------
// Grid

#[test]
fn grid_svg_shows_title_axes_legend_and_every_value_with_its_hash() {
    for chart in [grid_typical(), grid_long()] {
        let svg = grid_svg(&chart);
        check_common(
            &svg,
            &chart.captions.title,
            &[&chart.captions.x_label, &chart.y_label],
        );
        legend_has(&svg, &["SUPPORTS", "INCONCLUSIVE", "REJECTED"]);
        let doc = parse(&svg);
        let note = texts(&doc, "legend").join(" ");
        assert!(note.contains(&words(&chart.value_label)), "{note}");
        assert_eq!(
            texts(&doc, "subtitle"),
            vec![words(&chart.captions.subtitle)]
        );
        // Every cell's value, printed with 3 decimals and bound to its cell hash.
        let values: Vec<(String, String)> = doc
            .descendants()
            .filter(|n| n.attribute("class") == Some("cell-value"))
            .map(|n| {
                (
                    n.attribute("data-cell-hash").unwrap().to_string(),
                    n.text().unwrap().to_string(),
                )
            })
            .collect();
        assert_eq!(values.len(), chart.cells.len());
        for c in &chart.cells {
            let shown = values.iter().find(|(h, _)| *h == c.cell_hash).unwrap();
            let want = c.value.map_or("no value".to_string(), fixed3);
            assert_eq!(shown.1, want, "cell {}", c.cell_hash);
        }
        // And every outcome is written out, not shown by colour alone.
        let outcomes = texts(&doc, "cell-outcome");
        let want: Vec<&str> = chart.cells.iter().map(|c| c.outcome.label()).collect();
        assert_eq!(outcomes, want);
        // Tick labels: all of them, whole.
        let ticks = texts(&doc, "tick");
        for t in chart.x_ticks.iter().chain(&chart.y_ticks) {
            assert!(ticks.contains(&words(t)), "tick {t:?} not in {ticks:?}");
        }
    }
}

#[test]
fn grid_marks_slots_without_a_cell() {
    let chart = grid_long();
    let doc_svg = grid_svg(&chart);
    let doc = parse(&doc_svg);
    assert_eq!(texts(&doc, "cell-empty"), vec!["no cell".to_string()]);
    assert_eq!(
        texts(&parse(&grid_svg(&grid_typical())), "cell-empty").len(),
        0
    );
}

#[test]
fn grid_negative_values_use_a_minus_sign() {
    let svg = grid_svg(&grid_long());
    assert!(svg.contains(">\u{2212}0.123<"), "{svg}");
}

#[test]
fn long_x_ticks_rotate_short_ones_do_not() {
    let rotated = |svg: &str| {
        let doc = parse(svg);
        doc.descendants()
            .filter(|n| n.attribute("class") == Some("tick"))
            .any(|n| n.attribute("transform").is_some())
    };
    assert!(!rotated(&grid_svg(&grid_typical())));
    assert!(!rotated(&line_svg(&line_typical())));
    // Five wide slots: the long labels wrap in at most three lines.
    assert!(!rotated(&grid_svg(&grid_long())));
    // Seven narrower slots: one label would need more than three lines, so all rotate.
    assert!(rotated(&line_svg(&line_long())));
}

#[test]
fn grid_vega_rows_are_the_input_cells() {
    for chart in [grid_typical(), grid_long()] {
        let spec = grid_vega(&chart);
        assert_eq!(
            spec["$schema"],
            "https://vega.github.io/schema/vega-lite/v5.json"
        );
        let rows = spec["data"]["values"].as_array().unwrap();
        assert_eq!(rows.len(), chart.cells.len());
        for (row, c) in rows.iter().zip(&chart.cells) {
            assert_eq!(row["x"], chart.x_ticks[c.x].as_str());
            assert_eq!(row["y"], chart.y_ticks[c.y].as_str());
            assert_eq!(row["x_index"], c.x);
            assert_eq!(row["y_index"], c.y);
            assert_eq!(row["value"].as_f64(), c.value);
            assert_eq!(row["ci_low"].as_f64(), c.ci.map(|ci| ci[0]));
            assert_eq!(row["ci_high"].as_f64(), c.ci.map(|ci| ci[1]));
            assert_eq!(row["outcome"], c.outcome.label());
            assert_eq!(row["cell_hash"], c.cell_hash.as_str());
        }
        assert_eq!(spec["title"]["text"], chart.captions.title.as_str());
        assert_eq!(
            spec["encoding"]["x"]["title"],
            chart.captions.x_label.as_str()
        );
        assert_eq!(spec["encoding"]["y"]["title"], chart.y_label.as_str());
    }
}

// ---------------------------------------------------------------------------------------
// Lines

#[test]
fn line_svg_shows_title_axes_legend_and_threshold() {
    for chart in [line_typical(), line_long()] {
        let svg = line_svg(&chart);
        check_common(
            &svg,
            &chart.captions.title,
            &[&chart.captions.x_label, &chart.y_label],
        );
        let mut entries: Vec<String> = chart.series.iter().map(|s| s.name.clone()).collect();
        entries.push(format!("95% CI of {}", chart.series[0].name));
        entries.extend(Outcome::ALL.iter().map(|o| o.label().to_string()));
        legend_has(
            &svg,
            &entries.iter().map(String::as_str).collect::<Vec<_>>(),
        );
        let doc = parse(&svg);
        let (label, t) = chart.threshold.as_ref().unwrap();
        assert_eq!(
            texts(&doc, "threshold-label"),
            vec![format!("{} = {}", words(label), fixed3(*t))]
        );
        let ticks = texts(&doc, "tick");
        for t in &chart.x_ticks {
            assert!(ticks.contains(&words(t)), "tick {t:?} not in {ticks:?}");
        }
    }
}

#[test]
fn line_vega_rows_are_the_input_series() {
    for chart in [line_typical(), line_long()] {
        let spec = line_vega(&chart);
        assert_eq!(
            spec["$schema"],
            "https://vega.github.io/schema/vega-lite/v5.json"
        );
        let rows = spec["data"]["values"].as_array().unwrap();
        assert_eq!(rows.len(), chart.series.len() * chart.x_ticks.len());
        let band = chart.band.as_ref().unwrap();
        let mut rows = rows.iter();
        for (k, s) in chart.series.iter().enumerate() {
            for (i, tick) in chart.x_ticks.iter().enumerate() {
                let row = rows.next().unwrap();
                assert_eq!(row["x"], tick.as_str());
                assert_eq!(row["series"], s.name.as_str());
                assert_eq!(row["value"].as_f64(), s.values[i]);
                assert_eq!(row["cell_hash"], chart.cell_hashes[i].as_str());
                assert_eq!(row["outcome"], chart.outcomes[i].label());
                let ci = if k == 0 { band[i] } else { None };
                assert_eq!(row["ci_low"].as_f64(), ci.map(|c| c[0]));
                assert_eq!(row["ci_high"].as_f64(), ci.map(|c| c[1]));
            }
        }
        let layers = spec["layer"].as_array().unwrap();
        let threshold = layers
            .iter()
            .find(|l| l["mark"]["type"] == "rule")
            .expect("a threshold rule");
        assert_eq!(
            threshold["data"]["values"][0]["threshold"].as_f64(),
            chart.threshold.as_ref().map(|t| t.1)
        );
        assert!(threshold["mark"]["strokeDash"].is_array());
    }
}

// ---------------------------------------------------------------------------------------
// Histogram

#[test]
fn histogram_svg_shows_title_axes_legend_and_marks() {
    for chart in [histogram_typical(), histogram_negative()] {
        let svg = histogram_svg(&chart);
        check_common(
            &svg,
            &chart.captions.title,
            &[&chart.captions.x_label, "permutations (count)"],
        );
        let doc = parse(&svg);
        let finite = chart.values.iter().filter(|v| v.is_finite()).count();
        let omitted = chart.values.len() - finite;
        let null = if omitted == 0 {
            format!("permuted statistic (n = {finite})")
        } else {
            format!("permuted statistic (n = {finite}; {omitted} non-finite left out)")
        };
        legend_has(&svg, &[&null, "observed statistic", "threshold"]);
        assert_eq!(
            texts(&doc, "observed-label"),
            vec![format!("observed = {}", fixed3(chart.observed))]
        );
        assert_eq!(
            texts(&doc, "threshold-label"),
            vec![format!("threshold = {}", fixed3(chart.threshold.unwrap()))]
        );
    }
}

/// Every finite value lies in exactly one bin, each bin's count is the number of values in
/// it, and the bins cover the observed statistic and the threshold.
#[test]
fn histogram_bins_count_every_value_exactly_once() {
    let mut edge_case = histogram_typical();
    // Values on bin edges and at both ends of the range.
    edge_case.values = (0..=60).map(|i| f64::from(i) / 60.0).collect();
    edge_case.observed = 1.0;
    edge_case.threshold = Some(0.0);
    for chart in [histogram_typical(), histogram_negative(), edge_case] {
        let spec = histogram_vega(&chart);
        assert_eq!(
            spec["$schema"],
            "https://vega.github.io/schema/vega-lite/v5.json"
        );
        let bins: Vec<(f64, f64, u64)> = spec["data"]["values"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["bin_start"].as_f64().unwrap(),
                    r["bin_end"].as_f64().unwrap(),
                    r["count"].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(bins.len(), 30);
        for w in bins.windows(2) {
            assert_eq!(w[0].1, w[1].0, "bins are contiguous");
            assert!(w[0].0 < w[0].1);
        }
        let last = bins.len() - 1;
        let inside = |i: usize, v: f64| {
            let (a, z, _) = bins[i];
            a <= v && (v < z || (i == last && v == z))
        };
        let finite: Vec<f64> = chart
            .values
            .iter()
            .copied()
            .filter(|v| v.is_finite())
            .collect();
        for &v in &finite {
            let n = (0..bins.len()).filter(|&i| inside(i, v)).count();
            assert_eq!(n, 1, "value {v} is in {n} bins");
        }
        for (i, &(_, _, count)) in bins.iter().enumerate() {
            let n = finite.iter().filter(|&&v| inside(i, v)).count() as u64;
            assert_eq!(count, n, "bin {i}");
        }
        assert_eq!(bins.iter().map(|b| b.2).sum::<u64>(), finite.len() as u64);
        for mark in [Some(chart.observed), chart.threshold]
            .into_iter()
            .flatten()
        {
            assert!(bins[0].0 <= mark && mark <= bins[last].1);
        }
    }
}

/// The SVG draws one bar per non-empty bin of the Vega data (the same bins).
#[test]
fn histogram_svg_bars_match_vega_bins() {
    for chart in [histogram_typical(), histogram_negative()] {
        let svg = histogram_svg(&chart);
        let spec = histogram_vega(&chart);
        let non_empty = spec["data"]["values"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["count"].as_u64().unwrap() > 0)
            .count();
        let bar_fill = spec["layer"][0]["mark"]["color"].as_str().unwrap();
        let doc = parse(&svg);
        let bars = doc
            .descendants()
            .filter(|n| n.tag_name().name() == "rect" && n.attribute("fill") == Some(bar_fill))
            .count();
        // One more: the legend swatch.
        assert_eq!(bars, non_empty + 1);
    }
}

#[test]
fn histogram_vega_marks_observed_and_threshold() {
    let chart = histogram_typical();
    let spec = histogram_vega(&chart);
    let rules: Vec<&Value> = spec["layer"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["mark"]["type"] == "rule")
        .collect();
    assert_eq!(rules.len(), 2);
    assert_eq!(
        rules[0]["data"]["values"][0]["observed"].as_f64(),
        Some(chart.observed)
    );
    assert!(rules[0]["mark"]["strokeDash"].is_null());
    assert_eq!(
        rules[1]["data"]["values"][0]["threshold"].as_f64(),
        chart.threshold
    );
    assert!(rules[1]["mark"]["strokeDash"].is_array());
}

// ---------------------------------------------------------------------------------------
// Degenerate input

/// Empty, constant, non-finite and huge inputs still give well-formed charts.
#[test]
fn degenerate_inputs_still_draw() {
    let empty_grid = GridChart {
        captions: Captions {
            title: "empty".to_string(),
            subtitle: String::new(),
            x_label: "x".to_string(),
        },
        x_ticks: vec![],
        y_label: "y".to_string(),
        y_ticks: vec![],
        value_label: "v".to_string(),
        cells: vec![],
    };
    check_common(&grid_svg(&empty_grid), "empty", &["x", "y"]);
    let mut grid = grid_typical();
    grid.cells[0].value = Some(f64::INFINITY);
    grid.cells[1].ci = Some([f64::NAN, 1.0]);
    check_common(&grid_svg(&grid), &grid.captions.title, &[]);
    assert!(grid_vega(&grid)["data"]["values"][0]["value"].is_null());

    let mut line = line_typical();
    line.series.clear();
    line.band = None;
    line.threshold = None;
    check_common(
        &line_svg(&line),
        &line.captions.title,
        &[&line.captions.x_label],
    );
    let mut line = line_typical();
    line.series[0].values = vec![Some(1e300), Some(-1e300), None, Some(f64::NAN)];
    line.outcomes.truncate(2);
    line.cell_hashes.truncate(2);
    check_common(
        &line_svg(&line),
        &line.captions.title,
        &[&line.captions.x_label],
    );
    assert!(line_vega(&line)["data"]["values"][2]["cell_hash"].is_null());

    for (values, observed) in [
        (vec![], f64::NAN),
        (vec![0.25; 200], 0.25),
        (vec![f64::NAN, f64::INFINITY], 0.0),
        (vec![-1e300, 1e300], 0.0),
    ] {
        let chart = HistogramChart {
            captions: Captions {
                title: "degenerate".to_string(),
                subtitle: String::new(),
                x_label: "statistic".to_string(),
            },
            values,
            observed,
            threshold: None,
        };
        check_common(&histogram_svg(&chart), "degenerate", &["statistic"]);
        let spec = histogram_vega(&chart);
        let total: u64 = spec["data"]["values"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["count"].as_u64().unwrap())
            .sum();
        let finite = chart.values.iter().filter(|v| v.is_finite()).count() as u64;
        assert_eq!(total, finite);
    }
}

// ---------------------------------------------------------------------------------------
// Determinism

#[test]
fn outputs_are_byte_identical_across_calls() {
    let outputs = || {
        let mut out = Vec::new();
        for c in [grid_typical(), grid_long()] {
            out.push(grid_svg(&c));
            out.push(serde_json::to_string(&grid_vega(&c)).unwrap());
        }
        for c in [line_typical(), line_long()] {
            out.push(line_svg(&c));
            out.push(serde_json::to_string(&line_vega(&c)).unwrap());
        }
        for c in [histogram_typical(), histogram_negative()] {
            out.push(histogram_svg(&c));
            out.push(serde_json::to_string(&histogram_vega(&c)).unwrap());
        }
        out
    };
    let (a, b) = (outputs(), outputs());
    assert_eq!(a, b);
    // A different input gives a different chart (the comparison above can fail).
    let mut other = grid_typical();
    other.cells[0].value = Some(0.5);
    assert_ne!(grid_svg(&other), grid_svg(&grid_typical()));
}

// ---------------------------------------------------------------------------------------
// Demo

/// Writes every fixture chart to /tmp/counterlab-charts for a look (rsvg-convert to PNG).
#[test]
#[ignore = "writes files for a person to look at"]
fn demo() {
    let dir = std::path::Path::new("/tmp/counterlab-charts");
    std::fs::create_dir_all(dir).unwrap();
    let write = |name: &str, svg: String, spec: Value| {
        std::fs::write(dir.join(format!("{name}.svg")), svg).unwrap();
        let json = serde_json::to_string_pretty(&spec).unwrap();
        std::fs::write(dir.join(format!("{name}.vl.json")), json).unwrap();
    };
    write(
        "grid",
        grid_svg(&grid_typical()),
        grid_vega(&grid_typical()),
    );
    write("grid-long", grid_svg(&grid_long()), grid_vega(&grid_long()));
    write(
        "line",
        line_svg(&line_typical()),
        line_vega(&line_typical()),
    );
    write("line-long", line_svg(&line_long()), line_vega(&line_long()));
    write(
        "histogram",
        histogram_svg(&histogram_typical()),
        histogram_vega(&histogram_typical()),
    );
    write(
        "histogram-negative",
        histogram_svg(&histogram_negative()),
        histogram_vega(&histogram_negative()),
    );
}

// ---------------------------------------------------------------------------------------
// The CLI: `verify --svg/--vega` draws the report's own permutation null

#[test]
fn cli_verify_svg_draws_the_reports_null_with_the_observed_statistic() {
    let dir = crate::common::TempDir::new("verify-svg");
    let svg_path = dir.path().join("null.svg");
    let vega_path = dir.path().join("null.vl.json");
    let report_path = dir.path().join("report.json");
    let payload = "fixtures/packs/entity-leakage/payloads/random-inflates-auc.json";
    let o = crate::common::counterlab(&[
        "verify",
        payload,
        "--permutations",
        "39",
        "--json",
        "--svg",
        svg_path.to_str().unwrap(),
        "--vega",
        vega_path.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    std::fs::write(&report_path, &o.stdout).unwrap();
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let claim = &report["claim"];
    let statistic = claim["statistic"].as_str().unwrap();
    let observed = claim["observed"].as_f64().unwrap();

    let svg = std::fs::read_to_string(&svg_path).unwrap();
    check_common(
        &svg,
        &format!("Is {statistic} above what shuffled labels give?"),
        &[
            &format!("{statistic} under permuted labels"),
            "permutations (count)",
        ],
    );
    let doc = parse(&svg);
    assert_eq!(
        texts(&doc, "observed-label"),
        vec![format!("observed = {}", fixed3(observed))]
    );
    let subtitle = words(&texts(&doc, "subtitle").join(" "));
    assert!(
        subtitle.contains("random-inflates-auc.json") && subtitle.contains("verdict SUPPORTS"),
        "{subtitle}"
    );

    // The Vega-Lite spec bins the same null: the bin counts add up to the report's
    // permutations (K = 39, none vacuous on this pack), and the observed value is marked.
    let spec: Value = serde_json::from_slice(&std::fs::read(&vega_path).unwrap()).unwrap();
    let text = spec.to_string();
    assert!(text.contains("vega-lite/v5"), "{text}");
    assert!(
        text.contains(&format!("{observed}")),
        "observed missing: {text}"
    );
    let counted: u64 = spec["data"]["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|bin| bin["count"].as_u64().unwrap())
        .sum();
    assert_eq!(counted, claim["permutations"].as_u64().unwrap());
    assert_eq!(counted, 39);
}
