//! `counterlab metrics PREDICTIONS.csv`: metrics of any predictions file.

use std::path::Path;

use serde_json::{json, Value};

use counterlab::metrics::{self, MetricValue};
use counterlab::pack::parse_finite;

use super::{fail_usage, EXIT_DATA, EXIT_OK};

/// Reads labels and scores, then prints the metrics (table or JSON, keys as FORMATS).
pub(crate) fn command(
    path: &Path,
    label: &str,
    score: &str,
    positive: &str,
    threshold: f64,
    json: bool,
) -> i32 {
    if !threshold.is_finite() {
        return fail_usage("--threshold must be a finite number");
    }
    let (labels, scores) = match read_predictions(path, label, score, positive) {
        Ok(v) => v,
        Err(Failure::Usage(m)) => return fail_usage(&m),
        Err(Failure::Data(m)) => {
            eprintln!("{} {m}", super::style::error_tag());
            return EXIT_DATA;
        }
    };
    let report = metrics_json(&labels, &scores, threshold);
    if json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&report).expect("a JSON value encodes")
        );
    } else {
        print_table(&report);
    }
    EXIT_OK
}

enum Failure {
    Usage(String),
    Data(String),
}

fn read_predictions(
    path: &Path,
    label: &str,
    score: &str,
    positive: &str,
) -> Result<(Vec<bool>, Vec<f64>), Failure> {
    let file = std::fs::File::open(path)
        .map_err(|e| Failure::Usage(format!("{}: {e}", path.display())))?;
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(file);
    let headers = reader
        .headers()
        .map_err(|e| Failure::Data(format!("{}: {e}", path.display())))?
        .clone();
    let column = |name: &str| {
        headers.iter().position(|h| h == name).ok_or_else(|| {
            Failure::Data(format!(
                "{}: column {name:?} not found in the header",
                path.display()
            ))
        })
    };
    let (label_at, score_at) = (column(label)?, column(score)?);
    let mut labels = Vec::new();
    let mut scores = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let row = i + 1;
        let record =
            record.map_err(|e| Failure::Data(format!("{}: row {row}: {e}", path.display())))?;
        let cell = |at: usize, name: &str| -> Result<String, Failure> {
            match record.get(at) {
                Some(text) if !text.is_empty() => Ok(text.to_owned()),
                _ => Err(Failure::Data(format!(
                    "{}: row {row}, column {name:?}: missing value",
                    path.display()
                ))),
            }
        };
        labels.push(cell(label_at, label)? == positive);
        let text = cell(score_at, score)?;
        scores.push(parse_finite(&text).map_err(|m| {
            Failure::Data(format!(
                "{}: row {row}, column {score:?}: {m}",
                path.display()
            ))
        })?);
    }
    if labels.is_empty() {
        return Err(Failure::Data(format!("{}: no data rows", path.display())));
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
        outln!("{:<28} {reason}", "undefined");
    }
}
