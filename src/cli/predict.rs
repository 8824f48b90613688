//! `counterlab predict PACK --claim CLAIM.json (--outcome holds|does_not_hold |
//! --transfer-choice ID) [--rationale FILE] [--out FILE]`: records a prediction
//! (`counterlab.prediction/1`) before any result exists.

use std::path::{Path, PathBuf};

use counterlab::experiment::Claim;
use counterlab::prediction::{predict, Outcome as ClaimOutcome, Predicted, Prediction};
use counterlab::words::Budget;

use super::{read_input, style, write_file, Exit, FixtureArgs, Outcome, PacksArgs, EXIT_OK};

/// Record a prediction (counterlab.prediction/1) about a claim on a pack, before any
/// result exists: the pack's id and meaning hash, the claim, the predicted outcome and
/// the blake3 of your rationale. Prints it (or writes --out) and its canonical hash.
#[derive(clap::Args)]
pub(crate) struct PredictArgs {
    /// The pack id.
    pack: String,
    /// A JSON file holding the claim, in the experiment vocabulary (docs/FORMATS.md).
    #[arg(long)]
    claim: PathBuf,
    /// The predicted outcome: holds or does_not_hold.
    #[arg(long, value_parser = ["holds", "does_not_hold"], conflicts_with = "transfer_choice", required_unless_present = "transfer_choice")]
    outcome: Option<String>,
    /// The transfer choice id you expect to be valid (instead of --outcome).
    #[arg(long)]
    transfer_choice: Option<String>,
    /// A file with your rationale: its blake3 is recorded, not its text.
    #[arg(long)]
    rationale: Option<PathBuf>,
    #[command(flatten)]
    packs: PacksArgs,
    #[command(flatten)]
    fixture: FixtureArgs,
    /// Write the prediction here instead of printing it.
    #[arg(long)]
    out: Option<PathBuf>,
}

pub(crate) fn command(args: &PredictArgs) -> Outcome {
    let claim = read_claim(&args.claim)?;
    let pack = args
        .packs
        .pack_within(&args.pack, &args.fixture.limits()?)?;
    let rationale = match &args.rationale {
        Some(path) => Some(read_input(path, 16 << 20, Budget::Fixed("a rationale"))?),
        None => None,
    };
    let predicted = match (&args.outcome, &args.transfer_choice) {
        (Some(o), None) if o == "holds" => Predicted::Outcome(ClaimOutcome::Holds),
        (Some(_), None) => Predicted::Outcome(ClaimOutcome::DoesNotHold),
        (None, Some(id)) => Predicted::TransferChoice {
            transfer_choice: id.clone(),
        },
        _ => return Err(Exit::usage("give --outcome or --transfer-choice")),
    };
    let prediction = predict(&pack, claim, predicted, rationale.as_deref());
    // What predict wrote must read back (schema, claim): the same rules as any reader.
    Prediction::from_value(&prediction.to_json())?;
    let text = serde_json::to_string_pretty(&prediction.to_json()).expect("JSON encodes");
    match &args.out {
        // stdout stays one JSON document; the hash goes to stderr.
        None => {
            outln!("{text}");
            eprintln!("prediction_hash  {}", prediction.prediction_hash());
        }
        Some(path) => {
            write_file(path, format!("{text}\n"))?;
            outln!("wrote {}", path.display());
            outln!("prediction_hash  {}", prediction.prediction_hash());
        }
    }
    Ok(EXIT_OK)
}

/// The claim of `--claim`: a JSON file in the experiment vocabulary.
fn read_claim(path: &Path) -> Result<Claim, Exit> {
    let bytes = read_input(path, 64 << 10, Budget::Fixed("a claim file"))?;
    counterlab::json::parse_strict(&bytes)
        .map_err(|e| format!("{} at {}", e.message, e.path))
        .and_then(|v| serde_json::from_value(v).map_err(|e| e.to_string()))
        .map_err(|e| {
            Exit::data(format!(
                "{}: not a claim: {}",
                style::safe(&path.display().to_string()),
                style::safe(&e)
            ))
        })
}
