//! `counterlab verify PAYLOAD`: the verdict, human-readable or as the JSON report.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use counterlab::chart::{Captions, HistogramChart};
use counterlab::document::Verified;
use counterlab::verify::{Choices, Mode, Status, VerifyOptions};
use counterlab::Verdict;

use super::style::safe;
use super::{fail, fail_usage, style, threads_option, PacksOption};

// Options of `verify` as given on the command line (a plain comment: clap would read a
// doc comment as the command's description, which the `Verify` variant gives).
#[derive(clap::Args)]
pub(crate) struct VerifyArgs {
    /// The payload JSON (as written by `counterlab run`).
    payload: PathBuf,
    #[command(flatten)]
    packs: PacksOption,
    /// Print the report as JSON (counterlab.report/1).
    #[arg(long)]
    json: bool,
    /// Same report, but exit 0 whatever the verdict.
    #[arg(long)]
    observe: bool,
    /// Label permutations K for the claim's p-value, 0 to 100000 (default 199).
    #[arg(long)]
    permutations: Option<usize>,
    /// Seed of every mutation, any u64 (default 0).
    #[arg(long)]
    seed: Option<u64>,
    /// Significance level, 0 < alpha <= 0.1 (default 0.05).
    #[arg(long)]
    alpha: Option<f64>,
    /// Largest payload accepted, in bytes, 1 to 16777216 (default 1048576).
    #[arg(long)]
    max_payload_bytes: Option<usize>,
    /// Largest work in fit units (rows x ((features + 1)^2 + 32) per fit), any u64 (default 1e10).
    #[arg(long)]
    max_work: Option<u64>,
    /// Worker threads, at least 1 (the report is identical for any number; more than 64
    /// are used as 64).
    #[arg(long)]
    threads: Option<usize>,
    /// Write the claim's permutation null (histogram, observed statistic marked) as SVG.
    #[arg(long)]
    svg: Option<PathBuf>,
    /// Write the same histogram as a Vega-Lite JSON spec.
    #[arg(long)]
    vega: Option<PathBuf>,
}

/// The options of `args` checked against their documented ranges (docs/VERDICTS.md):
/// a value outside one is a usage error, never a panic or a silent clamp (except
/// `--threads`, whose excess only costs threads that are never started).
fn choices(args: &VerifyArgs) -> Choices {
    Choices {
        permutations: args.permutations,
        observe: args.observe,
        seed: args.seed,
        alpha: args.alpha,
        max_payload_bytes: args.max_payload_bytes,
        max_work: args.max_work,
    }
}

/// An option as the command line spells it (`max_work` → `--max-work`).
fn flag(name: &str) -> String {
    format!("--{}", name.replace('_', "-"))
}

fn options(args: &VerifyArgs) -> Result<VerifyOptions, i32> {
    let mut options = choices(args)
        .checked(flag)
        .map_err(|e| fail_usage(&e.to_string()))?;
    options.threads = threads_option(args.threads)?;
    Ok(options)
}

pub(crate) fn command(args: &VerifyArgs) -> i32 {
    let options = match options(args) {
        Ok(o) => o,
        Err(code) => return code,
    };
    // At most the budget + 1 bytes are read: a larger payload gets its report
    // (budget.payload_bytes unverifiable) from the bytes read.
    let bytes = match counterlab::document::read_document(&args.payload, &options) {
        Ok(bytes) => bytes,
        Err(e) => return fail(&e),
    };
    // An option given beside a capsule is a usage error (exit 2), as any bad flag.
    if let Err(e) = counterlab::document::refuse_choices_for_capsule(&bytes, &choices(args), flag) {
        return fail_usage(&e.to_string());
    }
    if std::io::stderr().is_terminal() && !args.json {
        eprint!(
            "verifying {} ({} label permutations)…\r",
            safe(&args.payload.display().to_string()),
            options.permutations
        );
    }
    // Only the packs the document names are loaded (counterlab::document): a broken
    // sibling pack never stops the report.
    let verified = counterlab::document::verify_document(&bytes, args.packs.folder(), &options);
    if std::io::stderr().is_terminal() && !args.json {
        eprint!("\x1b[2K");
    }
    let report = match verified {
        Ok(Verified::Report(report)) => report,
        Ok(Verified::Capsule(capsule)) => {
            return super::capsule::print(&capsule, &options, args.json);
        }
        Err(e) => return fail(&e),
    };
    if args.json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&report.to_json()).expect("a JSON value encodes")
        );
    } else {
        print_human(&report);
    }
    if args.svg.is_some() || args.vega.is_some() {
        match null_histogram(&report, &args.payload) {
            Some(chart) => {
                if let Some(path) = &args.svg {
                    if let Err(e) = std::fs::write(path, counterlab::chart::histogram_svg(&chart)) {
                        return super::fail_usage(&format!("{}: {e}", path.display()));
                    }
                }
                if let Some(path) = &args.vega {
                    let spec = serde_json::to_string_pretty(&counterlab::chart::histogram_vega(&chart))
                        .expect("a JSON value encodes");
                    if let Err(e) = std::fs::write(path, format!("{spec}\n")) {
                        return super::fail_usage(&format!("{}: {e}", path.display()));
                    }
                }
            }
            None => eprintln!(
                "note: no chart written: the claim has no permutation null to draw (none was run, or every permutation was vacuous; see the report)"
            ),
        }
    }
    report.exit_code()
}

/// The claim's permutation null as a histogram with the observed statistic marked.
fn null_histogram(report: &counterlab::Report, payload: &Path) -> Option<HistogramChart> {
    let null = report.null_distribution()?;
    let claim = null.claim;
    // A null with statistics always has its p-value.
    let p = claim.p_value?;
    let name = payload.file_name().map_or_else(
        || payload.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    Some(HistogramChart {
        captions: Captions {
            title: format!("Is {} above what shuffled labels give?", claim.statistic),
            subtitle: format!(
                "{name} · {} non-vacuous {}s · observed {:.4}, p = {p:.4} · verdict {}",
                null.values.len(),
                claim.null_name(),
                null.observed,
                report.verdict().as_str()
            ),
            x_label: format!("{} under permuted labels", claim.statistic),
        },
        values: null.values.to_vec(),
        observed: null.observed,
        threshold: Some(claim.threshold),
    })
}

fn print_human(report: &counterlab::Report) {
    let verdict = report.verdict().as_str();
    let colour = match report.verdict() {
        Verdict::Supports(_) => "1;32",
        Verdict::Inconclusive { .. } => "1;33",
        Verdict::Rejected { .. } => "1;31",
    };
    let mode = if report.mode() == Mode::Observe {
        "  (observe mode: exit 0)"
    } else {
        ""
    };
    outln!("{}{mode}", style::paint_stdout(colour, verdict));
    if let Some(claim) = report.claim() {
        let ci = claim.ci.map_or("undefined".to_owned(), |[lo, hi]| {
            format!("[{lo:.4}, {hi:.4}]")
        });
        let observed = claim
            .observed
            .map_or("undefined".to_owned(), |v| format!("{v:.4}"));
        let p = claim.p_value.map_or("n/a".to_owned(), |p| {
            format!("{p:.4} (K = {}, {})", claim.permutations, claim.null_name())
        });
        outln!(
            "claim   {} = {observed}, threshold {}, 95% CI {ci} ({})",
            safe(&claim.statistic),
            claim.threshold,
            safe(&claim.interval.to_string())
        );
        outln!(
            "        p = {p}, alpha {}: {}",
            claim.alpha,
            claim.outcome.as_str()
        );
        // Next to a verdict on an arm: whether that arm's test rows were seen in training.
        for caveat in report.caveats().iter().filter(|c| c.claimed) {
            outln!("caveat  {}", safe(&caveat.describe()));
        }
    }
    if let Verdict::Inconclusive { reasons } = report.verdict() {
        for reason in reasons {
            outln!("reason  {}", safe(reason));
        }
    }
    outln!();
    for check in report.checks() {
        let status = match check.status {
            Status::Pass => style::paint_stdout("32", "pass"),
            Status::Fail => style::paint_stdout("1;31", "FAIL"),
            Status::Unverifiable => style::paint_stdout("33", "unverifiable"),
            Status::Skipped => style::paint_stdout("2", "skipped"),
        };
        let pad = 12usize.saturating_sub(check.status.as_str().len());
        let reason = check
            .reason
            .as_deref()
            .map(|r| format!("  {}", safe(r)))
            .unwrap_or_default();
        outln!("  {:<26} {status}{}{reason}", check.id, " ".repeat(pad));
    }
    let counterexamples: Vec<_> = report
        .checks()
        .iter()
        .flat_map(|c| &c.counterexamples)
        .collect();
    if !counterexamples.is_empty() {
        outln!("\ncounterexamples");
        for ce in counterexamples {
            outln!(
                "  {}  observed {}  expected {}  witness {}",
                ce.invariant,
                safe(&ce.observed.to_string()),
                safe(&ce.expected.to_string()),
                safe(&ce.witness.to_string())
            );
        }
    }
    let c = report.counters();
    outln!(
        "\n{} run: {} passed, {} failed, {} unverifiable; {} skipped   report {}",
        c.run,
        c.passed,
        c.failed,
        c.unverifiable,
        c.skipped,
        &report.report_hash()[..16]
    );
}
