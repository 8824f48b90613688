//! `counterlab metrics PREDICTIONS.csv`: metrics of any predictions file.

use std::path::Path;

use serde_json::{json, Value};

use counterlab::csv_input::StrictCsv;
use counterlab::metrics::{self, MetricValue};
use counterlab::pack::parse_finite;

use super::style::safe;
use super::{fail, fail_usage, read_input, EXIT_OK};

/// The default of `--max-bytes`: 64 MiB, a few million predictions.
pub(crate) const DEFAULT_MAX_BYTES: u64 = 64 << 20;

/// The largest `--max-bytes` accepted.
const MAX_BYTES_LIMIT: u64 = u32::MAX as u64;

/// `metrics` as given on the command line.
pub(crate) struct MetricsArgs<'a> {
    pub(crate) path: &'a Path,
    pub(crate) label: &'a str,
    pub(crate) score: &'a str,
    pub(crate) positive: &'a str,
    pub(crate) threshold: f64,
    pub(crate) max_bytes: u64,
    pub(crate) json: bool,
}

/// Reads labels and scores, then prints the metrics (table or JSON, keys as FORMATS).
pub(crate) fn command(args: &MetricsArgs<'_>) -> i32 {
    if !args.threshold.is_finite() {
        return fail_usage("--threshold must be a finite number");
    }
    if !(1..=MAX_BYTES_LIMIT).contains(&args.max_bytes) {
        return fail_usage(&format!(
            "--max-bytes must lie in 1..={MAX_BYTES_LIMIT}, found {}",
            args.max_bytes
        ));
    }
    let bytes = match read_input(args.path, args.max_bytes, "--max-bytes") {
        Ok(b) => b,
        Err(code) => return code,
    };
    let (labels, scores) = match read_predictions(args, &bytes) {
        Ok(v) => v,
        Err(e) => return fail(&e),
    };
    let report = metrics_json(&labels, &scores, args.threshold);
    if args.json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&report).expect("a JSON value encodes")
        );
    } else {
        print_table(&report);
    }
    EXIT_OK
}

/// Labels (`== positive`) and scores of every row, read strictly (duplicate header names,
/// ragged rows, non-UTF-8 cells and bare CR line ends refused with their row).
fn read_predictions(
    args: &MetricsArgs<'_>,
    bytes: &[u8],
) -> Result<(Vec<bool>, Vec<f64>), counterlab::Error> {
    // Every row takes at least 2 bytes, so the byte budget bounds the rows.
    let mut csv = StrictCsv::new(args.path, bytes, 1 << 16, bytes.len())?;
    let (label_at, score_at) = (csv.column(args.label)?, csv.column(args.score)?);
    let mut labels = Vec::new();
    let mut scores = Vec::new();
    let mut record = csv::ByteRecord::new();
    while let Some(row) = csv.next_row(&mut record)? {
        let cell = |at: usize| -> Result<&str, counterlab::Error> {
            match csv.cell(&record, row, at)? {
                "" => Err(counterlab::Error::data(
                    args.path,
                    Some(row),
                    Some(&csv.header()[at]),
                    "missing value",
                )),
                text => Ok(text),
            }
        };
        labels.push(cell(label_at)? == args.positive);
        let text = cell(score_at)?;
        scores.push(parse_finite(text).map_err(|message| {
            counterlab::Error::data(args.path, Some(row), Some(args.score), message)
        })?);
    }
    if labels.is_empty() {
        return Err(counterlab::Error::data(
            args.path,
            None,
            None,
            "no data rows",
        ));
    }
    Ok((labels, scores))
}

fn number(value: &MetricValue) -> Value {
    match value {
        MetricValue::Value(v) => json!(v),
        MetricValue::Undefined { .. } => Value::Null,
    }
}

/// The `metrics --json` object (FORMATS.md): AUC fields are null with an `undefined`
/// reason when only one class is present; the majority baseline is the file's own majority.
fn metrics_json(labels: &[bool], scores: &[f64], threshold: f64) -> Value {
    let predicted: Vec<bool> = scores.iter().map(|&s| s >= threshold).collect();
    let n_pos = labels.iter().filter(|&&l| l).count();
    let accuracy = metrics::accuracy(labels, &predicted);
    let balanced = metrics::balanced_accuracy(labels, &predicted);
    let baseline = metrics::majority_baseline_accuracy(labels, labels);
    let mut out = json!({
        "n": labels.len(),
        "n_pos": n_pos,
        "n_neg": labels.len() - n_pos,
        "accuracy": number(&accuracy),
        "balanced_accuracy": number(&balanced),
        "majority_baseline_accuracy": number(&baseline),
    });
    let map = out.as_object_mut().expect("an object");
    match metrics::roc_auc_stats(labels, scores) {
        Ok(stats) => {
            map.insert("roc_auc".into(), json!(stats.auc));
            match metrics::delong(labels, scores) {
                Ok(d) => {
                    map.insert("roc_auc_ci".into(), json!([d.ci.0, d.ci.1]));
                    map.insert("roc_auc_se".into(), json!(d.se));
                }
                Err(reason) => {
                    map.insert("roc_auc_ci".into(), Value::Null);
                    map.insert("roc_auc_se".into(), Value::Null);
                    map.insert("undefined".into(), json!(reason));
                }
            }
        }
        Err(reason) => {
            map.insert("roc_auc".into(), Value::Null);
            map.insert("roc_auc_ci".into(), Value::Null);
            map.insert("roc_auc_se".into(), Value::Null);
            map.insert("undefined".into(), json!(reason));
        }
    }
    out
}

fn print_table(report: &Value) {
    let show = |key: &str| match &report[key] {
        Value::Null => "undefined".to_owned(),
        Value::Number(n) => n
            .as_f64()
            .map_or_else(|| n.to_string(), |v| format!("{v:.6}")),
        other => other.to_string(),
    };
    outln!(
        "{:<28} {} ({} positive, {} negative)",
        "n",
        report["n"],
        report["n_pos"],
        report["n_neg"]
    );
    let ci = match &report["roc_auc_ci"] {
        Value::Array(ci) => format!(
            "  95% CI [{:.6}, {:.6}]  se {}",
            ci[0].as_f64().unwrap_or(f64::NAN),
            ci[1].as_f64().unwrap_or(f64::NAN),
            show("roc_auc_se")
        ),
        _ => String::new(),
    };
    outln!("{:<28} {}{ci}", "roc_auc", show("roc_auc"));
    for key in [
        "accuracy",
        "balanced_accuracy",
        "majority_baseline_accuracy",
    ] {
        outln!("{key:<28} {}", show(key));
    }
    if let Some(reason) = report.get("undefined").and_then(Value::as_str) {
        outln!("{:<28} {}", "undefined", safe(reason));
    }
}
