//! `counterlab verify-revision BEFORE.json AFTER.json [AFTER2.json]`: a revision chain
//! checked (the library decides: `counterlab::revision`). Exit codes as `verify`.

use std::path::PathBuf;

use counterlab::revision::{verify_revision, CHANGES_SHOWN};
use counterlab::verify::Choices;

use super::style::safe;
use super::{fail, fail_usage, load_packs_within, style, threads_option, PacksOption};

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
    packs: PacksOption,
    /// Print the answer as JSON (counterlab.revision/1).
    #[arg(long)]
    json: bool,
    /// Label permutations K for the last payload's claim, 0 to 100000 (default 199).
    #[arg(long)]
    permutations: Option<usize>,
    /// Worker threads, at least 1.
    #[arg(long)]
    threads: Option<usize>,
}

pub(crate) fn command(args: &RevisionArgs) -> i32 {
    let choices = Choices {
        permutations: args.permutations,
        ..Choices::default()
    };
    let mut options = match choices.checked(|name| format!("--{name}")) {
        Ok(o) => o,
        Err(e) => return fail_usage(&e.to_string()),
    };
    options.threads = match threads_option(args.threads) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let mut payloads = Vec::with_capacity(args.payloads.len());
    for path in &args.payloads {
        match counterlab::document::read_document(path, &options) {
            Ok(bytes) => payloads.push(bytes),
            Err(e) => return fail(&e),
        }
    }
    let last = payloads.last().expect("clap requires two payloads");
    let named = counterlab::document::named_packs(last, options.max_payload_bytes);
    let only: Vec<&str> = named.iter().map(String::as_str).collect();
    let packs = match load_packs_within(args.packs.folder(), Some(&only), &options.fixture) {
        Ok(p) => p,
        Err(e) => return fail(&e),
    };
    let slices: Vec<&[u8]> = payloads.iter().map(Vec::as_slice).collect();
    let answer = verify_revision(&slices, &packs, &options);
    let value = answer.to_json();
    if args.json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&value).expect("a JSON value encodes")
        );
    } else {
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
        }
        outln!(
            "{}  revision {}",
            style::bold(answer.verdict().as_str()),
            &value["revision_hash"].as_str().unwrap_or_default()[..16]
        );
    }
    answer
        .verdict()
        .exit_code(counterlab::verify::Mode::Enforce)
}
