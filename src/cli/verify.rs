//! `counterlab verify PAYLOAD`: the verdict, human-readable or as the JSON report.

use std::io::IsTerminal;
use std::path::Path;

use counterlab::chart::HistogramChart;
use counterlab::verify::{Mode, Status, VerifyOptions};
use counterlab::Verdict;

use super::{fail, load_packs, read_file, style};

/// Options of `verify` as given on the command line.
pub(crate) struct VerifyArgs<'a> {
    pub(crate) payload: &'a Path,
    pub(crate) packs: Option<&'a Path>,
    pub(crate) json: bool,
    pub(crate) observe: bool,
    pub(crate) permutations: Option<usize>,
    pub(crate) seed: Option<u64>,
    pub(crate) alpha: Option<f64>,
    pub(crate) max_payload_bytes: Option<usize>,
    pub(crate) threads: Option<usize>,
    pub(crate) svg: Option<&'a Path>,
    pub(crate) vega: Option<&'a Path>,
}

pub(crate) fn command(args: &VerifyArgs<'_>) -> i32 {
    let mut options = VerifyOptions::default();
    if args.observe {
        options.mode = Mode::Observe;
    }
    if let Some(k) = args.permutations {
        options.permutations = k;
    }
    if let Some(seed) = args.seed {
        options.seed = seed;
    }
    if let Some(alpha) = args.alpha {
        if !(alpha > 0.0 && alpha < 1.0) {
            return super::fail_usage("--alpha must lie strictly between 0 and 1");
        }
        options.alpha = alpha;
    }
    if let Some(bytes) = args.max_payload_bytes {
        options.max_payload_bytes = bytes;
    }
    if let Some(threads) = args.threads {
        if threads == 0 {
            return super::fail_usage("--threads must be at least 1");
        }
        options.threads = threads;
    }
    let bytes = match read_file(args.payload) {
        Ok(b) => b,
        Err(code) => return code,
    };
    // Load only the pack(s) the payload names (when it names any): the verifier looks no
    // further, and parsing every other fixture would dominate a fast verification.
    let named = named_packs(&bytes, options.max_payload_bytes);
    let only: Option<Vec<&str>> = named
        .as_ref()
        .map(|ids| ids.iter().map(String::as_str).collect());
    let packs = match load_packs(args.packs, only.as_deref()) {
        Ok(p) => p,
        Err(e) => return fail(&e),
    };
    if std::io::stderr().is_terminal() && !args.json {
        eprint!(
            "verifying {} ({} label permutations)…\r",
            args.payload.display(),
            options.permutations
        );
    }
    let report = counterlab::verify(&bytes, &packs, &options);
    if std::io::stderr().is_terminal() && !args.json {
        eprint!("\x1b[2K");
    }
    if args.json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&report.to_json()).expect("a JSON value encodes")
        );
    } else {
        print_human(&report);
    }
    if args.svg.is_some() || args.vega.is_some() {
        match null_histogram(&report, args.payload) {
            Some(chart) => {
                if let Some(path) = args.svg {
                    if let Err(e) = std::fs::write(path, counterlab::chart::histogram_svg(&chart)) {
                        return super::fail_usage(&format!("{}: {e}", path.display()));
                    }
                }
                if let Some(path) = args.vega {
                    let spec = serde_json::to_string_pretty(&counterlab::chart::histogram_vega(&chart))
                        .expect("a JSON value encodes");
                    if let Err(e) = std::fs::write(path, format!("{spec}\n")) {
                        return super::fail_usage(&format!("{}: {e}", path.display()));
                    }
                }
            }
            None => eprintln!(
                "note: no chart written: the claim was not evaluated with a permutation null (see the report)"
            ),
        }
    }
    report.exit_code()
}

/// The pack ids a payload or boundary map names (`pack.id`, `experiment.pack`), read
/// leniently; `None` when the bytes are over the size budget, not JSON or name no pack, so
/// that every pack is loaded and the verifier reports the problem as usual.
fn named_packs(bytes: &[u8], max_payload_bytes: usize) -> Option<Vec<String>> {
    if bytes.len() > max_payload_bytes {
        return None;
    }
    let value: serde_json::Value = serde_json::from_slice(bytes).ok()?;
    let mut ids: Vec<String> = [&value["pack"]["id"], &value["experiment"]["pack"]]
        .into_iter()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect();
    ids.dedup();
    (!ids.is_empty()).then_some(ids)
}

/// The claim's permutation null as a histogram with the observed statistic marked.
fn null_histogram(report: &counterlab::Report, payload: &Path) -> Option<HistogramChart> {
    let null = report.null_distribution()?;
    let p = null.p_value.map_or("n/a".to_owned(), |p| format!("{p:.4}"));
    let name = payload.file_name().map_or_else(
        || payload.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    Some(HistogramChart {
        title: format!("Is {} above what shuffled labels give?", null.statistic),
        subtitle: format!(
            "{name} · {} non-vacuous {}s · observed {:.4}, p = {p} · verdict {}",
            null.values.len(),
            null.null,
            null.observed,
            report.verdict().as_str()
        ),
        x_label: format!("{} under permuted labels", null.statistic),
        values: null.values.clone(),
        observed: null.observed,
        threshold: Some(null.threshold),
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
            format!("{p:.4} (K = {}, {})", claim.permutations, claim.null)
        });
        outln!(
            "claim   {} = {observed}, threshold {}, 95% CI {ci} ({})",
            claim.statistic,
            claim.threshold,
            claim.interval
        );
        outln!("        p = {p}, alpha {}: {}", claim.alpha, claim.outcome);
    }
    if let Verdict::Inconclusive { reasons } = report.verdict() {
        for reason in reasons {
            outln!("reason  {reason}");
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
            .map(|r| format!("  {r}"))
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
                ce.observed,
                ce.expected,
                ce.witness
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
