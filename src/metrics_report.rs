//! The metrics of any scored rows — accuracy, ROC AUC with DeLong's or Obuchowski's
//! clustered interval, and the paired DeLong comparison of two scores — as the
//! `counterlab metrics` command prints them (`--json`, FORMATS.md) and the Python package's
//! `counterlab.metrics` returns them: one function, so both give the same numbers.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use crate::csv_input::{excerpt, StrictCsv};
use crate::error::{Error, Result};
use crate::metrics::{self, MetricName, Undefined};
use crate::pack::parse_finite;
use crate::stats::intervals::{self, IntervalMethod, TestRows};
use crate::words::{Budget, Opt, Text};

/// The columns of a predictions CSV (`counterlab metrics --label … --score …`).
#[derive(Debug, Clone, Copy)]
pub struct Columns<'a> {
    /// The label column (text).
    pub label: &'a str,
    /// The score column (finite numbers; higher = more positive).
    pub score: &'a str,
    /// The label text of the positive class (compared as exact text).
    pub positive: &'a str,
    /// The entity column: rows of one entity are a cluster.
    pub entity: Option<&'a str>,
    /// A second score column of the same rows, for the paired comparison.
    pub score2: Option<&'a str>,
    /// Read more than two label texts as `positive` against all the others. Without it,
    /// a third label text is an error: `1.0` beside `1`, or a class the file was not
    /// meant to hold, would otherwise count as negative without a word.
    pub one_vs_rest: bool,
}

/// Scored rows: what a predictions file or the Python arrays hold, row by row.
#[derive(Debug, Clone)]
pub struct Predictions {
    /// Per row, whether its label is the positive class.
    pub labels: Vec<bool>,
    /// Per row, the score (finite; higher = more positive).
    pub scores: Vec<f64>,
    /// Per row, a second score of the same row (the paired comparison).
    pub scores2: Option<Vec<f64>>,
    /// Per row, the entity's index in byte order of the ids.
    pub entities: Option<Vec<u32>>,
    /// The distinct entity ids in byte order (`entities` indexes them).
    pub entity_ids: Option<Vec<String>>,
}

/// Labels (`== positive`), scores and the optional entities and second scores of every
/// row, read strictly (duplicate header names, ragged rows, non-UTF-8 cells and bare CR line
/// ends refused with their row). Labels none of which equal `--positive`, or more than two
/// label texts without `one_vs_rest`, are an error that names the labels seen.
pub fn read_csv(path: &Path, bytes: &[u8], columns: &Columns<'_>) -> Result<Predictions> {
    let args = columns;
    // Every row takes at least 2 bytes, so the byte budget bounds the rows.
    // The header's columns have a fixed budget here (no option raises it).
    let mut csv =
        StrictCsv::new(path, bytes, 1 << 16, bytes.len()).map_err(|e| match e.kind() {
            crate::ErrorKind::OverBudget(over) => Error::over_budget(
                &over.path,
                Budget::FixedColumns("a predictions CSV"),
                over.limit,
                over.needed,
            ),
            _ => e,
        })?;
    let (label_at, score_at) = (
        csv.column_for(args.label, Some(Text::opt(Opt::Label)))?,
        csv.column_for(args.score, Some(Text::opt(Opt::Score)))?,
    );
    let score2_at = args
        .score2
        .map(|c| csv.column_for(c, Some(Text::opt(Opt::Score2))))
        .transpose()?;
    let entity_at = args
        .entity
        .map(|c| csv.column_for(c, Some(Text::opt(Opt::Entity))))
        .transpose()?;
    let mut out = Predictions {
        labels: Vec::new(),
        scores: Vec::new(),
        scores2: score2_at.map(|_| Vec::new()),
        entities: None,
        entity_ids: None,
    };
    let mut entity_ids: Vec<String> = Vec::new();
    let mut label_counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut more_labels = false;
    let mut record = csv::ByteRecord::new();
    while let Some(row) = csv.next_row(&mut record)? {
        let cell = |at: usize| -> Result<&str, Error> {
            match csv.cell(&record, row, at)? {
                "" => Err(Error::data(
                    path,
                    Some(row),
                    Some(&csv.header()[at]),
                    "missing value",
                )),
                text => Ok(text),
            }
        };
        let label = cell(label_at)?;
        out.labels.push(label == args.positive);
        // At most 64 labels are counted (bounded memory); `more_labels` remembers the rest.
        if label_counts.len() < 64 || label_counts.contains_key(label) {
            *label_counts.entry(label.to_owned()).or_default() += 1;
        } else {
            more_labels = true;
        }
        let score = |at: usize, name: &str| -> Result<f64, Error> {
            parse_finite(cell(at)?)
                .map_err(|e| Error::data(path, Some(row), Some(name), e.to_string()))
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
        return Err(Error::data(path, None, None, "no data rows"));
    }
    let seen = || -> String {
        let mut seen: Vec<String> = label_counts
            .iter()
            .map(|(label, &n)| {
                format!(
                    "{} ({n} row{})",
                    excerpt(label),
                    if n == 1 { "" } else { "s" }
                )
            })
            .collect();
        if more_labels {
            seen.push("… (the first 64 labels)".into());
        }
        seen.join(", ")
    };
    if let Some(message) =
        crate::pack::check::look_alike_labels(label_counts.keys().map(String::as_str))
    {
        return Err(Error::data(path, None, Some(args.label), message));
    }
    if !out.labels.contains(&true) {
        return Err(Error::data(
            path,
            None,
            Some(args.label),
            Text::plain("no label equals ")
                .then(Text::opt_value(Opt::Positive, excerpt(args.positive)))
                .then(format!(
                    "; the labels seen: {}. Pass the positive class's label as written in the file (compared as exact text)",
                    seen()
                )),
        ));
    }
    if label_counts.len() > 2 && !args.one_vs_rest {
        return Err(Error::data(
            path,
            None,
            Some(args.label),
            Text::plain(format!(
                "{} label texts where two classes were expected: {}. Write each class as one text (1.0 and 1 are different texts), or pass ",
                if more_labels { "more than 64".to_owned() } else { label_counts.len().to_string() },
                seen(),
            ))
            .then(Text::opt(Opt::OneVsRest))
            .then(format!(" to read {} against all the others", excerpt(args.positive))),
        ));
    }
    if entity_at.is_some() {
        let ids: Vec<&str> = entity_ids.iter().map(String::as_str).collect();
        let (index, distinct) = entity_index(&ids);
        out.entities = Some(index);
        out.entity_ids = Some(distinct);
    }
    Ok(out)
}

/// The `metrics --json` object (FORMATS.md), field for field. A key that FORMATS.md
/// lists as always present is an `Option` written as null; one present only sometimes
/// (`n_entities`, `undefined`, `paired`) is skipped when absent.
#[derive(Debug, Serialize)]
struct MetricsReport {
    n: usize,
    n_pos: usize,
    n_neg: usize,
    accuracy: Option<f64>,
    balanced_accuracy: Option<f64>,
    majority_baseline_accuracy: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    n_entities: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    entity_collisions: Option<EntityCollisions>,
    roc_auc: Option<f64>,
    roc_auc_ci: Option<[f64; 2]>,
    roc_auc_se: Option<f64>,
    roc_auc_interval: Option<IntervalMethod>,
    #[serde(skip_serializing_if = "Option::is_none")]
    undefined: Option<Undefined>,
    #[serde(skip_serializing_if = "Option::is_none")]
    paired: Option<Paired>,
}

/// Groups of distinct entity ids that look alike (`pack check`'s `entity_collisions`):
/// how many, and the first few, each group's ids in byte order.
#[derive(Debug, Serialize)]
struct EntityCollisions {
    count: usize,
    first: Vec<Vec<String>>,
}

/// The warning about entity ids that look alike, for `metrics`' text output: one entity
/// written two ways is two clusters to the clustered interval, which is then too narrow.
/// `None` when no ids look alike (or there are no entities).
pub fn entity_collisions_warning(report: &Value) -> Option<String> {
    let collisions = report.get("entity_collisions")?;
    let count = collisions["count"].as_u64().filter(|&n| n > 0)?;
    let shown: Vec<String> = collisions["first"]
        .as_array()?
        .iter()
        .filter_map(Value::as_array)
        .map(|ids| {
            ids.iter()
                .filter_map(Value::as_str)
                .map(crate::entity_key::quoted)
                .collect::<Vec<_>>()
                .join(" / ")
        })
        .collect();
    Some(format!(
        "{count} groups of entity ids look alike ({}{}): they are one id after normalisation (case, white space and invisible characters, digits of any script, leading zeros, one number written two ways, confusable characters); if they are one entity, write its id one way (the clustered interval counts each spelling as its own cluster, and is too narrow); if they are distinct entities, give them ids that do not look alike",
        shown.join("; "),
        if count > shown.len() as u64 { "; …" } else { "" }
    ))
}

/// The paired interval's `conditional_on`: it treats the two given scores as fixed. It
/// covers which rows (entities) were sampled, not that another fit or another fold
/// assignment would have scored them differently (docs/METRICS.md, "What a paired interval
/// of out-of-fold predictions does not include").
pub const CONDITIONAL_ON_SCORES: &str = "given_scores";

/// The paired comparison of the second score with the first, or why it is undefined.
#[derive(Debug, Serialize)]
#[serde(untagged)]
enum Paired {
    Defined {
        roc_auc2: f64,
        difference: f64,
        se: f64,
        ci: [f64; 2],
        z: f64,
        p_value: f64,
        interval: IntervalMethod,
        /// What the interval holds fixed: [`CONDITIONAL_ON_SCORES`].
        conditional_on: &'static str,
    },
    Undefined {
        undefined: Undefined,
    },
}

/// The `metrics --json` object (FORMATS.md): AUC fields are null with an `undefined`
/// reason when only one class is present; the majority baseline is the file's own majority.
/// With entities the AUC's interval is Obuchowski's clustered one (`roc_auc_interval`
/// says which); with a second score, `paired` compares the two.
pub fn metrics_json(p: &Predictions, threshold: f64) -> Value {
    let (labels, scores) = (&p.labels[..], &p.scores[..]);
    let predicted: Vec<bool> = scores.iter().map(|&s| s >= threshold).collect();
    let n_pos = labels.iter().filter(|&&l| l).count();
    let mut report = MetricsReport {
        n: labels.len(),
        n_pos,
        n_neg: labels.len() - n_pos,
        accuracy: metrics::accuracy(labels, &predicted).value(),
        balanced_accuracy: metrics::balanced_accuracy(labels, &predicted).value(),
        majority_baseline_accuracy: metrics::majority_baseline_accuracy(labels, labels).value(),
        n_entities: None,
        entity_collisions: None,
        roc_auc: None,
        roc_auc_ci: None,
        roc_auc_se: None,
        roc_auc_interval: None,
        undefined: None,
        paired: None,
    };
    // Without --entity every row is its own cluster: DeLong's row-level interval.
    let singletons: Vec<u32>;
    let entities = match &p.entities {
        Some(e) => {
            let mut distinct = e.clone();
            distinct.sort_unstable();
            distinct.dedup();
            report.n_entities = Some(distinct.len());
            if let Some(ids) = &p.entity_ids {
                let (first, count) = crate::pack::check::entity_collisions(ids);
                report.entity_collisions = Some(EntityCollisions { count, first });
            }
            &e[..]
        }
        None => {
            singletons = (0..labels.len() as u32).collect();
            &singletons[..]
        }
    };
    let no_baseline = vec![false; labels.len()];
    let rows = |scores| TestRows {
        labels,
        scores,
        entities,
        baseline: &no_baseline,
    };
    match metrics::roc_auc_stats(labels, scores) {
        Ok(stats) => {
            report.roc_auc = Some(stats.auc);
            match intervals::estimate(MetricName::RocAuc, &rows(scores), intervals::Z95) {
                Ok(e) => {
                    report.roc_auc_ci = Some([e.ci.0, e.ci.1]);
                    report.roc_auc_se = Some(e.se);
                    report.roc_auc_interval = Some(e.method);
                }
                Err(reason) => report.undefined = Some(reason),
            }
        }
        Err(reason) => report.undefined = Some(reason),
    }
    if let Some(scores2) = &p.scores2 {
        report.paired = Some(
            match (
                metrics::roc_auc_stats(labels, scores2),
                intervals::paired_difference(
                    MetricName::RocAuc,
                    &rows(scores),
                    &rows(scores2),
                    true,
                    intervals::Z95,
                ),
            ) {
                (Ok(second), Ok(e)) => {
                    let z = if e.se > 0.0 { e.value / e.se } else { 0.0 };
                    Paired::Defined {
                        roc_auc2: second.auc,
                        difference: e.value,
                        se: e.se,
                        ci: [e.ci.0, e.ci.1],
                        z,
                        p_value: libm::erfc(z.abs() / std::f64::consts::SQRT_2),
                        interval: e.method,
                        conditional_on: CONDITIONAL_ON_SCORES,
                    }
                }
                (Err(undefined), _) | (_, Err(undefined)) => Paired::Undefined { undefined },
            },
        );
    }
    serde_json::to_value(report).expect("a metrics report encodes")
}

impl Predictions {
    /// Scored rows given as columns (the Python package's arrays): `labels[i]` is whether
    /// row `i` is positive; scores must be finite; `entity_ids` (any text per row) are
    /// indexed in byte order, as [`read_csv`] indexes an entity column. `what` names the
    /// arguments in errors (`y_score[17]`).
    pub fn from_columns(
        labels: Vec<bool>,
        scores: Vec<f64>,
        scores2: Option<Vec<f64>>,
        entity_ids: Option<&[String]>,
        names: &ColumnNames<'_>,
    ) -> Result<Predictions> {
        let n = labels.len();
        let length = |name: &str, len: usize| -> Result<()> {
            if len == n {
                Ok(())
            } else {
                Err(Error::invalid(format!(
                    "{name} has {len} rows but {} has {n}: every argument gives one value per row",
                    names.label
                )))
            }
        };
        length(names.score, scores.len())?;
        if let Some(s) = &scores2 {
            length(names.score2, s.len())?;
        }
        if let Some(e) = entity_ids {
            length(names.entity, e.len())?;
        }
        if n == 0 {
            return Err(Error::invalid(format!("{} has no rows", names.label)));
        }
        for (name, column) in [
            (names.score, Some(&scores)),
            (names.score2, scores2.as_ref()),
        ] {
            if let Some(at) = column.and_then(|c| c.iter().position(|v| !v.is_finite())) {
                return Err(Error::invalid(format!(
                    "{name}[{at}] is {}: scores must be finite numbers",
                    column.expect("present")[at]
                )));
            }
        }
        if !labels.contains(&true) {
            return Err(Error::invalid(format!(
                "no value of {} equals positive={}: pass the positive class as it appears in {}",
                names.label, names.positive, names.label
            )));
        }
        let (entities, entity_ids) = match entity_ids {
            Some(ids) => {
                let owned: Vec<&str> = ids.iter().map(String::as_str).collect();
                let (index, distinct) = entity_index(&owned);
                (Some(index), Some(distinct))
            }
            None => (None, None),
        };
        Ok(Predictions {
            labels,
            scores,
            scores2,
            entities,
            entity_ids,
        })
    }
}

/// How [`Predictions::from_columns`] names its arguments in errors.
#[derive(Debug, Clone, Copy)]
pub struct ColumnNames<'a> {
    /// The labels (`y_true`).
    pub label: &'a str,
    /// The scores (`y_score`).
    pub score: &'a str,
    /// The second scores (`y_score2`).
    pub score2: &'a str,
    /// The entities (`entity`).
    pub entity: &'a str,
    /// The positive class as given (`1`).
    pub positive: &'a str,
}

/// Per row, the index of its entity id in byte order of the distinct ids (a fixed order
/// for the clustered sums, whatever the row order); and the distinct ids in that order.
fn entity_index(ids: &[&str]) -> (Vec<u32>, Vec<String>) {
    let mut sorted: Vec<&str> = ids.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let index = ids
        .iter()
        .map(|id| sorted.binary_search(id).expect("listed") as u32)
        .collect();
    (index, sorted.into_iter().map(str::to_owned).collect())
}
