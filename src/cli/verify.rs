//! `counterlab verify PAYLOAD`: the verdict, human-readable or as the JSON report.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use counterlab::chart::{Captions, HistogramChart};
use counterlab::document::Verified;
use counterlab::verify::{Choices, Mode, Status, VerifyOptions};
use counterlab::Verdict;

use super::style::safe;
use super::{print_json, style, write_file, Exit, FixtureArgs, Outcome, PacksArgs, ThreadArgs};

// Options of `verify` as given on the command line (a plain comment: clap would read a
// doc comment as the command's description, which the `Verify` variant gives).
#[derive(clap::Args)]
#[command(mut_arg("threads", |a| a.help(
    "Worker threads, at least 1 (the report is identical for any number; more than 64 are used as 64)"
)))]
pub(crate) struct VerifyArgs {
    /// The payload JSON (as written by `counterlab run`).
    payload: PathBuf,
    #[command(flatten)]
    packs: PacksArgs,
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
    /// Largest prepared designs counted by budget.work, in bytes, any u64 (default 536870912, 512 MiB).
    #[arg(long, value_name = "BYTES")]
    max_design_bytes: Option<u64>,
    #[command(flatten)]
    fixture: FixtureArgs,
    #[command(flatten)]
    threads: ThreadArgs,
    /// Write the claim's permutation null (histogram, observed statistic marked) as SVG.
    #[arg(long)]
    svg: Option<PathBuf>,
    /// Write the same histogram as a Vega-Lite JSON spec.
    #[arg(long)]
    vega: Option<PathBuf>,
}

/// The options of `args` that the library checks (and refuses beside a capsule).
fn choices(args: &VerifyArgs) -> Choices {
    Choices {
        permutations: args.permutations,
        observe: args.observe,
        seed: args.seed,
        alpha: args.alpha,
        max_payload_bytes: args.max_payload_bytes,
        max_work: args.max_work,
        max_design_bytes: args.max_design_bytes,
    }
}

/// An option as the command line spells it (`max_work` → `--max-work`).
fn flag(name: &str) -> String {
    format!("--{}", name.replace('_', "-"))
}

/// The options of `args` checked against their documented ranges (docs/VERDICTS.md):
/// a value outside one is a usage error, never a panic or a silent clamp (except
/// `--threads`, whose excess only costs threads that are never started).
fn options(args: &VerifyArgs) -> Result<VerifyOptions, Exit> {
    let mut options = choices(args)
        .checked(flag)
        .map_err(|e| Exit::usage(&e.to_string()))?;
    options.threads = args.threads.count()?;
    options.fixture = args.fixture.limits()?;
    Ok(options)
}

pub(crate) fn command(args: &VerifyArgs) -> Outcome {
    let options = options(args)?;
    // At most the budget + 1 bytes are read: a larger payload gets its report
    // (budget.payload_bytes unverifiable) from the bytes read.
    let bytes = counterlab::document::read_document(&args.payload, &options)?;
    // An option given beside a capsule is a usage error (exit 2), as any bad flag.
    counterlab::document::refuse_choices_for_capsule(&bytes, &choices(args), flag)
        .map_err(|e| Exit::usage(&e.to_string()))?;
    let progress = std::io::stderr().is_terminal() && !args.json;
    if progress {
        eprint!(
            "verifying {} ({} label permutations)…\r",
            safe(&args.payload.display().to_string()),
            options.permutations
        );
    }
    // Only the packs the document names are loaded (counterlab::document): a broken
    // sibling pack never stops the report.
    let verified = counterlab::document::verify_document(&bytes, args.packs.folder(), &options);
    if progress {
        eprint!("\x1b[2K");
    }
    let report = match verified? {
        Verified::Report(report) => report,
        Verified::Capsule(_) if args.fixture.given() => {
            return Err(Exit::usage(
                "--max-fixture-bytes, --max-columns and --max-rows cannot be given for a Proof Capsule: it is re-verified with the options it records ($.options); leave them out",
            ));
        }
        Verified::Capsule(capsule) => {
            return Ok(super::capsule::print(&capsule, &options, args.json));
        }
    };
    if args.json {
        print_json(&report.to_json());
    } else {
        print_human(&report);
    }
    write_charts(args, &report)?;
    Ok(report.exit_code())
}

/// `--svg` and `--vega`: the claim's permutation null, when it has one.
fn write_charts(args: &VerifyArgs, report: &counterlab::Report) -> Result<(), Exit> {
    if args.svg.is_none() && args.vega.is_none() {
        return Ok(());
    }
    let Some(chart) = null_histogram(report, &args.payload) else {
        eprintln!(
            "note: no chart written: the claim has no permutation null to draw (none was run, or every permutation was vacuous; see the report)"
        );
        return Ok(());
    };
    if let Some(path) = &args.svg {
        write_file(path, counterlab::chart::histogram_svg(&chart))?;
    }
    if let Some(path) = &args.vega {
        let spec = serde_json::to_string_pretty(&counterlab::chart::histogram_vega(&chart))
            .expect("a JSON value encodes");
        write_file(path, format!("{spec}\n"))?;
    }
    Ok(())
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
    print_verdict(report);
    outln!();
    print_checks(report);
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

/// The verdict, the claim's evidence with its caveats, and the reasons of INCONCLUSIVE.
fn print_verdict(report: &counterlab::Report) {
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
        // A gap's at_most / within bound is named; every other claim reads as it always has.
        let bound = claim.bound.map_or_else(
            || format!("threshold {}", claim.threshold),
            |side| side.describe(claim.threshold),
        );
        outln!(
            "claim   {} = {observed}, {bound}, 95% CI {ci} ({})",
            safe(&claim.statistic),
            safe(&claim.interval.to_string())
        );
        outln!(
            "        p = {p}, alpha {}: {}",
            claim.alpha,
            claim.outcome.as_str()
        );
        if let Some(rows) = claim.scored_rows {
            outln!(
                "unpaired the two arms scored different rows: {} and {} ({} scored by both): the gap compares partly different rows, only the common ones paired",
                rows.higher,
                rows.lower,
                rows.both
            );
        }
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
}

/// One line per check with its status and reason, then every counterexample.
fn print_checks(report: &counterlab::Report) {
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
}
