//! `counterlab capsule build …` and the capsule branch of `counterlab verify` (the library
//! decides: `counterlab::capsule`).

use std::path::PathBuf;

use counterlab::capsule::{build_answered, BuildOptions, CapsuleReport};
use counterlab::verify::{VerifyOptions, MAX_PAYLOAD_BYTES_LIMIT};
use counterlab::words::Budget;

use super::style::safe;
use super::{
    print_json, read_input, read_prediction, style, write_file, Exit, FixtureArgs, Outcome,
    PacksArgs, ThreadArgs, EXIT_OK,
};

/// Build a Proof Capsule (counterlab.capsule/1): the prediction, the selector's choice
/// among the candidates (default: the pack's experiments), the selected experiment run
/// with its derived seed, its verification, optional revisions and the boundary map; every
/// link a canonical hash. `counterlab verify CAPSULE.json` re-derives every link.
#[derive(clap::Args)]
pub(crate) struct BuildArgs {
    /// The prediction (counterlab.prediction/1); its pack is the capsule's pack.
    #[arg(long)]
    prediction: PathBuf,
    /// Candidate experiments (default: the pack's experiments/*.json).
    candidates: Vec<PathBuf>,
    /// Revised payloads after a REJECTED verdict (at most two, in order).
    #[arg(long)]
    revision: Vec<PathBuf>,
    /// Also bind the pack's boundary map (recomputed on verification).
    #[arg(long)]
    boundary: bool,
    #[command(flatten)]
    packs: PacksArgs,
    #[command(flatten)]
    fixture: FixtureArgs,
    /// Where to write the capsule.
    #[arg(long)]
    out: PathBuf,
    #[command(flatten)]
    threads: ThreadArgs,
}

/// `counterlab capsule …`.
#[derive(clap::Subcommand)]
pub(crate) enum CapsuleAction {
    /// Build a capsule (see `counterlab capsule build --help`).
    Build(BuildArgs),
}

pub(crate) fn command(action: &CapsuleAction) -> Outcome {
    let CapsuleAction::Build(args) = action;
    let prediction = read_prediction(&args.prediction)?;
    let only = [prediction.pack.id.as_str()];
    let limits = args.fixture.limits()?;
    let packs = args.packs.packs(Some(&only), &limits)?;
    let pack = packs.get(&prediction.pack.id)?;
    let candidates = counterlab::select::read_candidates(pack, &args.candidates)?;
    let options = build_options(args)?;
    let built = build_answered(&packs, &prediction, &candidates, &options)?;
    let capsule = &built.capsule;
    let text = serde_json::to_string_pretty(capsule).expect("JSON encodes");
    write_file(&args.out, format!("{text}\n"))?;
    // The verdict `counterlab verify` gives this capsule (the chain's answer to the
    // prediction), not the first payload's: a revision or the prediction changes it.
    outln!(
        "capsule {}: prediction {} → selection {} → payload {} → {} revisions → {}: the prediction is {} ({})",
        safe(&args.out.display().to_string()),
        &capsule["prediction_hash"].as_str().unwrap_or_default()[..16],
        &capsule["selection_hash"].as_str().unwrap_or_default()[..16],
        &capsule["payload_hash"].as_str().unwrap_or_default()[..16],
        capsule["revisions"].as_array().map_or(0, Vec::len),
        built.verdict.as_str(),
        built.answer.0.as_str(),
        safe(&built.answer.1),
    );
    Ok(EXIT_OK)
}

/// The revisions (`--revision`, read whole), `--boundary` and `--threads` as the library
/// takes them.
fn build_options(args: &BuildArgs) -> Result<BuildOptions, Exit> {
    let mut revisions = Vec::new();
    for path in &args.revision {
        revisions.push(read_input(
            path,
            MAX_PAYLOAD_BYTES_LIMIT as u64,
            Budget::Fixed("a revision payload"),
        )?);
    }
    Ok(BuildOptions {
        boundary: args.boundary,
        revisions,
        // The fixture budgets are recorded in the capsule's options: its verification
        // re-reads the pack within them.
        verify: VerifyOptions {
            threads: args.threads.count()?,
            fixture: args.fixture.limits()?,
            ..VerifyOptions::default()
        },
    })
}

/// Prints the capsule branch of `counterlab verify` (every link re-derived by
/// `counterlab::document`); exit codes as `verify`.
pub(crate) fn print(report: &CapsuleReport, options: &VerifyOptions, json: bool) -> i32 {
    let value = report.to_json();
    if json {
        print_json(&value);
    } else {
        if let Some(prediction) = value["prediction"].as_object() {
            outln!(
                "  prediction   {} → {}: {}",
                safe(&prediction["predicted"].to_string()),
                safe(prediction["answer"].as_str().unwrap_or_default()),
                safe(prediction["why"].as_str().unwrap_or_default())
            );
        }
        for link in &report.links {
            outln!(
                "  {:<12} {:<13} {}",
                link.name,
                link.status.as_str(),
                safe(&link.detail)
            );
        }
        outln!(
            "{}  capsule report {}",
            style::bold(report.verdict().as_str()),
            &value["capsule_report_hash"].as_str().unwrap_or_default()[..16]
        );
    }
    report.verdict().exit_code(options.mode)
}
