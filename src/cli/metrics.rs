//! `counterlab metrics PREDICTIONS.csv`: metrics of any predictions file.

use std::path::PathBuf;

use serde_json::Value;

use counterlab::metrics_report::{metrics_json, read_csv, Columns};
use counterlab::words::Budget;

use super::style::safe;
use super::{print_json, read_input, Exit, Outcome, EXIT_OK};

/// The default of `--max-bytes`: 64 MiB, a few million predictions.
const DEFAULT_MAX_BYTES: u64 = 64 << 20;

/// The largest `--max-bytes` accepted.
const MAX_BYTES_LIMIT: u64 = u32::MAX as u64;

// Options of `metrics` as given on the command line (a plain comment: clap would read a
// doc comment as the command's description, which the `Metrics` variant gives).
#[derive(clap::Args)]
pub(crate) struct MetricsArgs {
    /// The predictions CSV (with a header row).
    predictions: PathBuf,
    /// The label column (text).
    #[arg(long)]
    label: String,
    /// The score column (finite numbers; higher = more positive).
    #[arg(long)]
    score: String,
    /// The label text of the positive class.
    #[arg(long, default_value = "1")]
    positive: String,
    /// Predicted positive ⇔ score ≥ threshold (any finite number).
    #[arg(long, default_value_t = 0.5)]
    threshold: f64,
    /// Largest predictions file read, in bytes, 1 to 4294967295 (default 67108864).
    #[arg(long, default_value_t = DEFAULT_MAX_BYTES)]
    max_bytes: u64,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// The entity column: rows of one entity (a patient, a customer) are a cluster, and
    /// the AUC's interval is Obuchowski's clustered one.
    #[arg(long)]
    entity: Option<String>,
    /// A second score column of the same rows: compared with --score by the paired
    /// DeLong test (pROC's roc.test(paired = TRUE)), clustered with --entity.
    #[arg(long)]
    score2: Option<String>,
    /// Read more than two label texts as --positive against all the others (without
    /// it, a third label text is an error: 1.0 beside 1 is not the same class).
    #[arg(long)]
    one_vs_rest: bool,
}

/// Reads labels and scores, then prints the metrics (table or JSON, keys as FORMATS).
pub(crate) fn command(args: &MetricsArgs) -> Outcome {
    if !args.threshold.is_finite() {
        return Err(Exit::usage("--threshold must be a finite number"));
    }
    if !(1..=MAX_BYTES_LIMIT).contains(&args.max_bytes) {
        return Err(Exit::usage(&format!(
            "--max-bytes must lie in 1..={MAX_BYTES_LIMIT}, found {}",
            args.max_bytes
        )));
    }
    let bytes = read_input(&args.predictions, args.max_bytes, Budget::PredictionsBytes)?;
    let columns = Columns {
        label: &args.label,
        score: &args.score,
        positive: &args.positive,
        entity: args.entity.as_deref(),
        score2: args.score2.as_deref(),
        one_vs_rest: args.one_vs_rest,
    };
    let predictions = read_csv(&args.predictions, &bytes, &columns)?;
    let report = metrics_json(&predictions, args.threshold);
    if args.json {
        print_json(&report);
    } else {
        print_table(&report);
    }
    Ok(EXIT_OK)
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
    if let Some(warning) = counterlab::metrics_report::entity_collisions_warning(report) {
        outln!("{:<28} {}", "look-alike ids", safe(&warning));
    }
    if let Some(paired) = report.get("paired") {
        print_paired(paired);
    }
}

/// The `--score2` lines: the second score's AUC and the paired difference.
fn print_paired(paired: &Value) {
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
            // The interval is about these scores only: say so where the number is read.
            outln!(
                "{:<28} conditional on the given scores: another fit or fold assignment would score the rows differently, and this interval leaves that out",
                ""
            );
        }
    }
}
