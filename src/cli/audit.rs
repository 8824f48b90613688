//! `counterlab audit`: the user's own split checked for leakage (the library decides:
//! `counterlab::audit`). Exit 0 no leak found, 1 any leak the audit prints (a material leak
//! and excess duplicate rows included), 2 usage, I/O or data error.

use std::path::PathBuf;

use counterlab::audit::{
    audit, Audit, AuditOptions, ComparisonOutcome, GROUPED_ARM, PAYLOAD_FILE, USER_ARM,
};
use counterlab::entity_key::quoted;
use counterlab::words::{Budget, Words};

use super::{
    pack::print_problems, print_json, read_input, style, Exit, FixtureArgs, Outcome, Roles,
    ThreadArgs, EXIT_DATA, EXIT_OK, EXIT_USAGE,
};

/// Check your own train/test split for leakage, no pack needed: shared entities, test
/// rows seen in training, temporal overlap, duplicate rows, and how much the split
/// inflates ROC AUC against an entity-grouped split.
///
/// Exit codes: 0 no leak found, 1 any leak it prints (shared entities, look-alike ids,
/// calendar temporal overlap, more duplicate rows than an honest split, a `--margin`
/// material leak), 2 usage, I/O or data error.
#[derive(clap::Args)]
pub(crate) struct AuditArgs {
    /// The CSV (with a header row).
    data: PathBuf,
    #[command(flatten)]
    roles: Roles,
    /// The 0/1 (or false/true) column marking your test rows.
    #[arg(long)]
    test_column: String,
    /// An integer time column (adds the temporal-overlap check).
    #[arg(long)]
    time: Option<String>,
    /// What the time column means: `calendar` (a test row at or before the latest training
    /// time is a leak) or `order_within_entity` (a visit number: not compared across
    /// entities). Default: guessed from its name, as init does.
    #[arg(long, value_parser = counterlab::pack::TimeKind::parse)]
    time_kind: Option<counterlab::pack::TimeKind>,
    /// Seed of the entity-grouped comparison's fold draws (5 repeats of K folds).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// A materiality margin on the ROC AUC gap (e.g. 0.02): decides material leak / no
    /// material leak / undecided by the verifier's interval.
    #[arg(long)]
    margin: Option<f64>,
    /// The model of both sides of the comparison: `logistic` (C = 1) or `gbdt`
    /// (gradient-boosted trees with scikit-learn's defaults, docs/MODELS.md).
    #[arg(long, value_parser = counterlab::experiment::ModelSpec::parse_family, default_value = "logistic")]
    model: counterlab::experiment::ModelSpec,
    /// The texts read as a missing value besides the empty cell, comma-separated (e.g.
    /// `NA,,null`), as `init --missing-values`. Default: NA, nan, NULL, N/A, <NA>, NaT, #N/A.
    #[arg(long, value_parser = counterlab::pack::MissingValues::parse)]
    missing_values: Option<counterlab::pack::MissingValues>,
    /// Keep this column as a feature although it is suspect (a label proxy, an
    /// identifier, a clock), as init does; repeat the flag or separate names with commas.
    #[arg(long, value_delimiter = ',')]
    keep: Vec<String>,
    /// Leave this column out of the features (another split column, say), as init does;
    /// repeat the flag or separate with commas.
    #[arg(long, value_delimiter = ',')]
    drop: Vec<String>,
    /// Exactly these columns as features, in this order (comma-separated or repeated), as
    /// init does.
    #[arg(long, value_delimiter = ',')]
    features: Option<Vec<String>>,
    /// Print JSON (counterlab.audit/1).
    #[arg(long)]
    json: bool,
    /// Write a pack folder with the audit's experiment and payload here, so that
    /// `counterlab verify` checks the audit's numbers.
    #[arg(long)]
    out: Option<PathBuf>,
    #[command(flatten)]
    threads: ThreadArgs,
    #[command(flatten)]
    fixture: FixtureArgs,
}

/// Every error of an audit is exit 2, whatever its kind: exit 1 means "leak found".
fn usage(exit: impl Into<Exit>) -> Exit {
    exit.into().with_code(EXIT_USAGE)
}

pub(crate) fn command(args: &AuditArgs) -> Outcome {
    let mut entities = args.roles.entity.split(',').map(str::to_owned);
    let options = AuditOptions {
        entity: entities.next().unwrap_or_default(),
        label: args.roles.label.clone(),
        positive: args.roles.positive.clone(),
        test_column: args.test_column.clone(),
        time: args.time.clone(),
        time_kind: args.time_kind,
        more_entities: entities.collect(),
        seed: args.seed,
        margin: args.margin,
        model: args.model.clone(),
        missing_values: args.missing_values.clone().unwrap_or_default(),
        keep: args.keep.clone(),
        drop: args.drop.clone(),
        features: args.features.clone(),
    };
    let limits = args.fixture.limits()?;
    let bytes = read_input(&args.data, limits.max_bytes, Budget::FixtureBytes).map_err(usage)?;
    // The audit verifies its own payload with the same table budgets it read the CSV with.
    let verify_options = counterlab::VerifyOptions {
        threads: args.threads.count().map_err(usage)?,
        fixture: limits,
        ..counterlab::VerifyOptions::default()
    };
    let audit = audit(&args.data, &bytes, &options, &limits, &verify_options).map_err(usage)?;
    if let Some(out) = &args.out {
        audit.write_pack(out, &bytes).map_err(usage)?;
    }
    if args.json {
        print_json(&audit.to_json(&args.data.display().to_string(), &args.test_column));
    } else {
        print_problems(&audit.scaffold.findings.problems());
        outln!(
            "{}",
            style::bold(&format!(
                "audit of {}: test column {:?}",
                args.data.display(),
                args.test_column
            ))
        );
        outln!(
            "features          {}",
            style::safe(&audit.features().join(", "))
        );
        for level in std::iter::once(&audit).chain(&audit.further) {
            outln!(
                "{}",
                style::bold(&format!("grouped by {}", quoted(&level.entity)))
            );
            print_split(level);
            print_auc(level);
        }
        print_coarser_levels(&audit, &args.roles.entity);
        print_leak_and_pack(args, &audit);
    }
    Ok(if audit.leak { EXIT_DATA } else { EXIT_OK })
}

/// The split and what it shares between training and test: entities, look-alike ids,
/// times, feature vectors.
fn print_split(audit: &Audit) {
    outln!(
        "split             {} training rows, {} test rows ({} test entities)",
        audit.train_rows,
        audit.test_rows,
        audit.test_entities
    );
    let first: Vec<String> = audit
        .overlap
        .first_entities
        .iter()
        .map(|e| format!("{e:?}"))
        .collect();
    outln!(
        "shared entities   {}{}",
        audit.overlap.entities,
        if first.is_empty() {
            String::new()
        } else {
            style::safe(&format!(" (first: {})", first.join(", "))).into_owned()
        }
    );
    outln!(
        "test rows seen    {} of {} test rows belong to an entity with training rows",
        audit.test_rows_seen,
        audit.test_rows
    );
    let pairs: Vec<String> = audit
        .look_alikes
        .first_pairs
        .iter()
        .map(|p| format!("{} ~ {}", quoted(&p.test), quoted(&p.train)))
        .collect();
    outln!(
        "look-alike ids    {} test entities have no training row but an id that looks like a training id{}",
        audit.look_alikes.entities,
        if pairs.is_empty() {
            String::new()
        } else {
            style::safe(&format!(
                " (test ~ training: {}{})",
                pairs.join(", "),
                if audit.look_alikes.pairs > pairs.len() as u64 { ", …" } else { "" }
            ))
            .into_owned()
        }
    );
    if let Some(rows) = audit.overlap.temporal_rows {
        match audit.time_kind() {
            Some(counterlab::pack::TimeKind::OrderWithinEntity) => outln!(
                "temporal overlap  {rows} test rows are at or before the latest training time; not a leak: the time is an order within each entity (time_kind order_within_entity)"
            ),
            _ => outln!(
                "temporal overlap  {rows} test rows are at or before the latest training time"
            ),
        }
    }
    outln!(
        "duplicate rows    {} test rows have the feature vector of a training row",
        audit.overlap.duplicate_feature_rows
    );
}

/// ROC AUC of the user's split and of the entity-grouped one, and the inflation with the
/// verifier's verdict on it; or why the comparison could not be built.
fn print_auc(audit: &Audit) {
    let comparison = match &audit.comparison {
        ComparisonOutcome::Built(comparison) => comparison,
        ComparisonOutcome::NotBuilt(why) => {
            outln!(
                "ROC AUC           not compared: {}",
                style::safe(&why.to_string())
            );
            return;
        }
    };
    let shown = |v: Option<f64>| v.map_or("undefined".to_owned(), |v| format!("{v:.4}"));
    outln!(
        "ROC AUC           your split {}, entity-grouped splits of about the same share of rows {} (mean of {} draws of {} folds, seed {})",
        shown(comparison.auc(USER_ARM)),
        shown(comparison.auc(GROUPED_ARM)),
        counterlab::audit::GROUPED_REPEATS,
        comparison.grouped_folds,
        comparison.payload.experiment.seed
    );
    if let Some(claim) = comparison.report.claim() {
        let verdict = comparison.report.verdict().as_str();
        outln!(
            "inflation         {}{}{}  (verifier on \"{}\": {verdict})",
            shown(claim.observed),
            claim.ci.map_or(String::new(), |[lo, hi]| format!(
                ", 95% CI [{lo:.4}, {hi:.4}]"
            )),
            claim
                .p_value
                .map_or(String::new(), |p| format!(", p = {p:.4}")),
            match comparison.materiality {
                Some((margin, _)) => format!("inflation at most {margin}"),
                None => "inflation at least 0".to_owned(),
            }
        );
    }
    if let Some((margin, decision)) = comparison.materiality {
        outln!(
            "margin {margin}       {} (the inflation's 95% interval against {margin})",
            decision.as_str()
        );
    }
}

/// The coarser levels of the entity the data has and the audit was not grouped by, with
/// the command that audits them too.
fn print_coarser_levels(audit: &Audit, entities: &str) {
    let unaudited: Vec<&str> = audit
        .scaffold
        .findings
        .coarser_levels()
        .map(|s| s.column.as_str())
        .filter(|c| !audit.further.iter().any(|a| a.entity == *c))
        .collect();
    if !unaudited.is_empty() {
        outln!(
            "coarser levels    {}: each entity lies inside one of their values, so a split grouped by {} can still share them; audit them too: --entity {},{}",
            style::safe(&unaudited.join(", ")),
            style::safe(&quoted(&audit.entity)),
            style::safe(entities),
            style::safe(&unaudited.join(","))
        );
    }
}

/// Whether a leak was found and why; the pack written with `--out` and how to check it.
fn print_leak_and_pack(args: &AuditArgs, audit: &Audit) {
    outln!(
        "leak              {}",
        if audit.leak {
            format!("yes: {}", audit.leak_reasons.join("; "))
        } else {
            "none found".to_owned()
        }
    );
    if let Some(out) = &args.out {
        outln!(
            "wrote {} (pack) and {}",
            out.display(),
            out.join(PAYLOAD_FILE).display()
        );
        // The table budgets the CSV needed, so that the printed command runs as written.
        let budgets: String = counterlab::pack_folder::budgets_needed(&audit.scaffold)
            .iter()
            .map(|(opt, value)| {
                format!(
                    " {}",
                    style::CliWords.option(*opt, Some(&value.to_string()))
                )
            })
            .collect();
        outln!(
            "check: counterlab verify {} --packs {}{budgets}",
            out.join(PAYLOAD_FILE).display(),
            out.display()
        );
    }
}
