//! `counterlab metrics PREDICTIONS.csv`: metrics of any predictions file.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{json, Value};

use counterlab::csv_input::StrictCsv;
use counterlab::experiment::MetricName;
use counterlab::metrics::{self, MetricValue};
use counterlab::pack::parse_finite;
use counterlab::stats::intervals::{self, TestRows};

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
}

/// What a predictions file holds, row by row.
struct Predictions {
    labels: Vec<bool>,
    scores: Vec<f64>,
    scores2: Option<Vec<f64>>,
    /// Per row, the entity's index in byte order of the ids.
    entities: Option<Vec<u32>>,
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
    let predictions = match read_predictions(args, &bytes) {
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

/// Labels (`== positive`), scores and the optional entities and second scores of every
/// row, read strictly (duplicate header names, ragged rows, non-UTF-8 cells and bare CR line
/// ends refused with their row). Labels none of which equal `--positive` are an error that
/// names the labels seen.
fn read_predictions(
    args: &MetricsArgs<'_>,
    bytes: &[u8],
) -> Result<Predictions, counterlab::Error> {
    // Every row takes at least 2 bytes, so the byte budget bounds the rows.
    let mut csv = StrictCsv::new(args.path, bytes, 1 << 16, bytes.len())?;
    let (label_at, score_at) = (
        csv.column_for(args.label, Some("--label"))?,
        csv.column_for(args.score, Some("--score"))?,
    );
    let score2_at = args
        .score2
        .map(|c| csv.column_for(c, Some("--score2")))
        .transpose()?;
    let entity_at = args
        .entity
        .map(|c| csv.column_for(c, Some("--entity")))
        .transpose()?;
    let mut out = Predictions {
        labels: Vec::new(),
        scores: Vec::new(),
        scores2: score2_at.map(|_| Vec::new()),
        entities: None,
    };
    let mut entity_ids: Vec<String> = Vec::new();
    let mut label_counts: BTreeMap<String, usize> = BTreeMap::new();
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
        let label = cell(label_at)?;
        out.labels.push(label == args.positive);
        if label_counts.len() < 64 || label_counts.contains_key(label) {
            *label_counts.entry(label.to_owned()).or_default() += 1;
        }
        let score = |at: usize, name: &str| -> Result<f64, counterlab::Error> {
            parse_finite(cell(at)?).map_err(|message| {
                counterlab::Error::data(args.path, Some(row), Some(name), message)
            })
        };
        out.scores.push(score(score_at, args.score)?);
        if let (Some(at), Some(scores2)) = (score2_at, out.scores2.as_mut()) {
            scores2.push(score(at, args.score2.unwrap_or_default())?);
        }
        if let Some(at) = entity_at {
            entity_ids.push(cell(at)?.to_owned());
        }
    }
    if out.labels.is_empty() {
        return Err(counterlab::Error::data(
            args.path,
            None,
            None,
            "no data rows",
        ));
    }
    if !out.labels.contains(&true) {
        let seen: Vec<String> = label_counts
            .iter()
            .map(|(label, &n)| {
                format!(
                    "{:?} ({n} row{})",
                    safe(label),
                    if n == 1 { "" } else { "s" }
                )
            })
            .collect();
        return Err(counterlab::Error::data(
            args.path,
            None,
            Some(args.label),
            format!(
                "no label equals --positive {:?}; the labels seen: {}. Pass the positive class's label as written in the file (compared as exact text)",
                safe(args.positive),
                seen.join(", ")
            ),
        ));
    }
    if entity_at.is_some() {
        // Entities indexed in byte order of their ids (a fixed order for the sums).
        let mut sorted: Vec<&str> = entity_ids.iter().map(String::as_str).collect();
        sorted.sort_unstable();
        sorted.dedup();
        out.entities = Some(
            entity_ids
                .iter()
                .map(|id| sorted.binary_search(&id.as_str()).expect("listed") as u32)
                .collect(),
        );
    }
    Ok(out)
}

fn number(value: &MetricValue) -> Value {
    match value {
        MetricValue::Value(v) => json!(v),
        MetricValue::Undefined { .. } => Value::Null,
    }
}

/// The `metrics --json` object (FORMATS.md): AUC fields are null with an `undefined`
/// reason when only one class is present; the majority baseline is the file's own majority.
/// With entities the AUC's interval is Obuchowski's clustered one (`roc_auc_interval`
/// says which); with a second score, `paired` compares the two.
fn metrics_json(p: &Predictions, threshold: f64) -> Value {
    let (labels, scores) = (&p.labels[..], &p.scores[..]);
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
    // Without --entity every row is its own cluster: DeLong's row-level interval.
    let singletons: Vec<u32>;
    let entities = match &p.entities {
        Some(e) => {
            let mut distinct = e.clone();
            distinct.sort_unstable();
            distinct.dedup();
            map.insert("n_entities".into(), json!(distinct.len()));
            &e[..]
        }
        None => {
            singletons = (0..labels.len() as u32).collect();
            &singletons[..]
        }
    };
    let no_baseline = vec![false; labels.len()];
    fn rows<'r>(
        labels: &'r [bool],
        scores: &'r [f64],
        entities: &'r [u32],
        baseline: &'r [bool],
    ) -> TestRows<'r> {
        TestRows {
            labels,
            scores,
            entities,
            baseline,
        }
    }
    match metrics::roc_auc_stats(labels, scores) {
        Ok(stats) => {
            map.insert("roc_auc".into(), json!(stats.auc));
            match intervals::estimate(
                MetricName::RocAuc,
                &rows(labels, scores, entities, &no_baseline),
            ) {
                Ok(e) => {
                    map.insert("roc_auc_ci".into(), json!([e.ci.0, e.ci.1]));
                    map.insert("roc_auc_se".into(), json!(e.se));
                    map.insert("roc_auc_interval".into(), json!(e.method));
                }
                Err(reason) => {
                    map.insert("roc_auc_ci".into(), Value::Null);
                    map.insert("roc_auc_se".into(), Value::Null);
                    map.insert("roc_auc_interval".into(), Value::Null);
                    map.insert("undefined".into(), json!(reason));
                }
            }
        }
        Err(reason) => {
            map.insert("roc_auc".into(), Value::Null);
            map.insert("roc_auc_ci".into(), Value::Null);
            map.insert("roc_auc_se".into(), Value::Null);
            map.insert("roc_auc_interval".into(), Value::Null);
            map.insert("undefined".into(), json!(reason));
        }
    }
    if let Some(scores2) = &p.scores2 {
        let paired = match (
            metrics::roc_auc_stats(labels, scores2),
            intervals::paired_difference(
                MetricName::RocAuc,
                &rows(labels, scores, entities, &no_baseline),
                &rows(labels, scores2, entities, &no_baseline),
                true,
            ),
        ) {
            (Ok(second), Ok(e)) => {
                let z = if e.se > 0.0 { e.value / e.se } else { 0.0 };
                json!({
                    "roc_auc2": second.auc,
                    "difference": e.value,
                    "se": e.se,
                    "ci": [e.ci.0, e.ci.1],
                    "z": z,
                    "p_value": libm::erfc(z.abs() / std::f64::consts::SQRT_2),
                    "interval": e.method,
                })
            }
            (Err(reason), _) | (_, Err(reason)) => json!({ "undefined": reason }),
        };
        map.insert("paired".into(), paired);
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
