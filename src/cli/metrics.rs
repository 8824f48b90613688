//! `counterlab metrics PREDICTIONS.csv`: metrics of any predictions file.

use std::path::Path;

use serde_json::Value;

use counterlab::metrics_report::{metrics_json, read_csv, Columns};

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
    /// `--entity`: rows of one entity are a cluster (Obuchowski's interval).
    pub(crate) entity: Option<&'a str>,
    /// `--score2`: a second score of the same rows, compared by the paired test.
    pub(crate) score2: Option<&'a str>,
    /// `--one-vs-rest`: more than two label texts are `--positive` against the rest.
    pub(crate) one_vs_rest: bool,
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
    let columns = Columns {
        label: args.label,
        score: args.score,
        positive: args.positive,
        entity: args.entity,
        score2: args.score2,
        one_vs_rest: args.one_vs_rest,
    };
    let predictions = match read_csv(args.path, &bytes, &columns) {
        Ok(v) => v,
        Err(e) => return fail(&e),
    };
    let report = metrics_json(&predictions, args.threshold);
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
    let interval = report["roc_auc_interval"]
        .as_str()
        .map_or(String::new(), |m| format!("  ({m})"));
    outln!("{:<28} {}{ci}{interval}", "roc_auc", show("roc_auc"));
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
    if let Some(n) = report.get("n_entities") {
        outln!("{:<28} {n}", "entities");
    }
    if let Some(paired) = report.get("paired") {
        match paired.get("undefined").and_then(Value::as_str) {
            Some(reason) => outln!("{:<28} undefined: {}", "paired", safe(reason)),
            None => {
                let f = |key: &str| paired[key].as_f64().unwrap_or(f64::NAN);
                outln!("{:<28} {:.6}", "roc_auc (score2)", f("roc_auc2"));
                outln!(
                    "{:<28} {:.6}  95% CI [{:.6}, {:.6}]  z {:.4}  p {:.4e}  ({})",
                    "paired difference",
                    f("difference"),
                    paired["ci"][0].as_f64().unwrap_or(f64::NAN),
                    paired["ci"][1].as_f64().unwrap_or(f64::NAN),
                    f("z"),
                    f("p_value"),
                    paired["interval"].as_str().unwrap_or_default()
                );
            }
        }
    }
}
