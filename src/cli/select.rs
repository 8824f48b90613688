//! `counterlab select PACK --belief PREDICTION.json [CANDIDATE.json …] [--json]`: the
//! fixed selector (the library decides: `counterlab::select`).

use std::path::PathBuf;

use counterlab::select::{select, Ineligible, Selection};

use super::style::safe;
use super::{
    print_json, read_prediction, style, write_file, FixtureArgs, Outcome, PacksArgs, EXIT_DATA,
    EXIT_OK,
};

/// Select the experiment that runs for a belief, by closed rules (no model calls): every
/// candidate eligible or not with the failing rule and its score; the experiment to run,
/// with the seed derived from the prediction's pack (equivalent designs are one design;
/// nothing a candidate writes moves the seed). Without candidates,
/// the pack's registered experiments are the candidates.
///
/// Exit codes: 0 a candidate selected, 1 none eligible or a bad belief, 2 usage or I/O.
#[derive(clap::Args)]
pub(crate) struct SelectArgs {
    /// The pack id.
    pack: String,
    /// The belief: a prediction (counterlab.prediction/1) naming the pack and the claim.
    #[arg(long)]
    belief: PathBuf,
    /// Candidate experiments (default: the pack's experiments/*.json).
    candidates: Vec<PathBuf>,
    /// Print the selection record (counterlab.selection/1) as JSON.
    #[arg(long)]
    json: bool,
    /// Write the selected experiment, with its derived seed, to this file.
    #[arg(long)]
    out: Option<PathBuf>,
    #[command(flatten)]
    packs: PacksArgs,
    #[command(flatten)]
    fixture: FixtureArgs,
}

pub(crate) fn command(args: &SelectArgs) -> Outcome {
    let prediction = read_prediction(&args.belief)?;
    let pack = args
        .packs
        .pack_within(&args.pack, &args.fixture.limits()?)?;
    let candidates = counterlab::select::read_candidates(&pack, &args.candidates)?;
    let selection = select(&pack, &prediction, &candidates);
    let value = selection.to_json();
    if let (Some(out), Some(experiment)) = (&args.out, &value.get("experiment_to_run")) {
        if !experiment.is_null() {
            let text = serde_json::to_string_pretty(experiment).expect("JSON encodes");
            write_file(out, format!("{text}\n"))?;
        }
    }
    if args.json {
        print_json(&value);
    } else {
        print_human(&selection);
    }
    Ok(if selection.selected.is_some() {
        EXIT_OK
    } else {
        EXIT_DATA
    })
}

/// Each candidate with its eligibility and score, then the selected one and its seed.
fn print_human(selection: &Selection) {
    for candidate in &selection.candidates {
        let state = match (&candidate.failed, &candidate.score) {
            (Some(Ineligible { rule, why }), _) => format!("not eligible: {rule}: {why}"),
            (None, Some(score)) => format!(
                "eligible, score {} (held out {}, cross-validated {}, ablations {})",
                score.total(),
                score.held_out,
                score.cross_validated,
                score.ablations
            ),
            (None, None) => "eligible".to_owned(),
        };
        outln!("{:<60} {}", safe(&candidate.source), safe(&state));
    }
    match selection.selected {
        Some(i) => {
            let seed = selection.candidates[i].seed.unwrap_or_default();
            outln!(
                "{} {}  derived seed {seed}",
                style::bold("selected"),
                safe(&selection.candidates[i].source)
            );
        }
        None => outln!("{}", style::bold("no candidate is eligible")),
    }
    outln!("selection_hash  {}", selection.selection_hash());
}
