//! `counterlab verify-revision BEFORE.json AFTER.json [AFTER2.json]`: a revision chain
//! checked (the library decides: `counterlab::revision`). Exit codes as `verify`.

use std::path::PathBuf;

use counterlab::revision::{verify_revision, RevisionReport, CHANGES_SHOWN};
use counterlab::verify::{Choices, Mode, VerifyOptions};

use super::style::safe;
use super::{print_json, style, Exit, FixtureArgs, Outcome, PacksArgs, ThreadArgs};

/// Check a revision chain: at most two revisions after a REJECTED verdict, each changing
/// the evaluation design (model, features, arms, ablations), never the pack, the seed, the
/// metrics or the claim's metric, and never only the claim. The answer is then the
/// verification of the last payload.
///
/// Exit codes: 0 SUPPORTS, 1 REJECTED, 3 INCONCLUSIVE, 2 usage or I/O error.
#[derive(clap::Args)]
pub(crate) struct RevisionArgs {
    /// The payloads in order: the one that was rejected, then its revisions (1 or 2).
    #[arg(required = true, num_args = 2..)]
    payloads: Vec<PathBuf>,
    #[command(flatten)]
    packs: PacksArgs,
    #[command(flatten)]
    fixture: FixtureArgs,
    /// Print the answer as JSON (counterlab.revision/1).
    #[arg(long)]
    json: bool,
    /// Label permutations K for the last payload's claim, 0 to 100000 (default 199).
    #[arg(long)]
    permutations: Option<usize>,
    #[command(flatten)]
    threads: ThreadArgs,
}

pub(crate) fn command(args: &RevisionArgs) -> Outcome {
    let options = options(args)?;
    let mut payloads = Vec::with_capacity(args.payloads.len());
    for path in &args.payloads {
        payloads.push(counterlab::document::read_document(path, &options)?);
    }
    let last = payloads.last().expect("clap requires two payloads");
    let named = counterlab::document::named_packs(last, options.max_payload_bytes);
    let only: Vec<&str> = named.iter().map(String::as_str).collect();
    let packs = args.packs.packs(Some(&only), &options.fixture)?;
    let slices: Vec<&[u8]> = payloads.iter().map(Vec::as_slice).collect();
    let answer = verify_revision(&slices, &packs, &options);
    let value = answer.to_json();
    if args.json {
        print_json(&value);
    } else {
        print_human(args, &answer, &value);
    }
    Ok(answer.verdict().exit_code(Mode::Enforce))
}

/// `--permutations`, `--threads` and the table budgets checked against their ranges.
fn options(args: &RevisionArgs) -> Result<VerifyOptions, Exit> {
    let choices = Choices {
        permutations: args.permutations,
        ..Choices::default()
    };
    let mut options = choices
        .checked(|name| format!("--{name}"))
        .map_err(|e| Exit::usage(&e.to_string()))?;
    options.threads = args.threads.count()?;
    options.fixture = args.fixture.limits()?;
    Ok(options)
}

/// Each revision's changes, the refusal if any, the last payload's verdict, then the
/// answer; `value` is the answer's JSON (its `revision_hash`).
fn print_human(args: &RevisionArgs, answer: &RevisionReport, value: &serde_json::Value) {
    for (i, changes) in answer.steps.iter().enumerate() {
        outln!(
            "{}",
            style::bold(&format!(
                "revision {}: {} → {} ({} changes)",
                i + 1,
                safe(&args.payloads[i].display().to_string()),
                safe(&args.payloads[i + 1].display().to_string()),
                changes.len()
            ))
        );
        for change in changes.iter().take(CHANGES_SHOWN) {
            outln!(
                "  {:<12} {}  {} → {}",
                change.scope.as_str(),
                safe(&change.path),
                safe(&change.before.to_string()),
                safe(&change.after.to_string())
            );
        }
    }
    if let Some(refusal) = &answer.refusal {
        outln!(
            "refused: {}  (witness {})",
            safe(&refusal.reason),
            safe(&refusal.witness)
        );
    }
    if let Some(report) = &answer.report {
        outln!(
            "the last payload verifies {}  report {}",
            report.verdict().as_str(),
            &report.report_hash()[..16]
        );
        // Why it is INCONCLUSIVE (a budget says there how to pass it), as `verify` prints.
        if let counterlab::Verdict::Inconclusive { reasons } = report.verdict() {
            for reason in reasons {
                outln!("reason  {}", safe(reason));
            }
        }
    }
    outln!(
        "{}  revision {}",
        style::bold(answer.verdict().as_str()),
        &value["revision_hash"].as_str().unwrap_or_default()[..16]
    );
}
