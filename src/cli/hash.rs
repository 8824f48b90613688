//! `counterlab hash FILE`: the canonical hash of what the file holds.

use std::path::{Path, PathBuf};

use serde_json::Value;

use counterlab::canon::{self, HashKind};
use counterlab::prediction::Prediction;
use counterlab::words::Budget;
use counterlab::Experiment;

use super::style::safe;
use super::{read_input, Exit, Outcome, EXIT_OK};

/// Largest JSON file hashed canonically, in bytes (a file is parsed whole).
const MAX_JSON_BYTES: u64 = 64 << 20;

// Options of `hash` as given on the command line (a plain comment: clap would read a doc
// comment as the command's description, which the `Hash` variant gives).
#[derive(clap::Args)]
pub(crate) struct HashArgs {
    /// The file.
    file: PathBuf,
}

/// JSON files are hashed by their `format`: an experiment (validated, then re-encoded
/// canonically), a payload, a report (without its own `report_hash`), each read as
/// `verify` reads it (duplicate keys refused). Anything else (a fixture CSV, pack.toml)
/// is hashed as raw bytes with plain blake3, as `pack.toml` records fixtures, streamed
/// from a regular file in fixed-size blocks (any size, bounded memory).
pub(crate) fn command(args: &HashArgs) -> Outcome {
    let path = args.file.as_path();
    let shown = safe(&path.display().to_string()).into_owned();
    let is_json = path.extension().is_some_and(|e| e == "json");
    if !is_json {
        let hash = counterlab::input::hash_file(path)?;
        outln!("{hash}  fixture-bytes  {shown}");
        return Ok(EXIT_OK);
    }
    let (kind, label, hashed) = hashed_json(path, &shown)?;
    outln!("{}  {label}  {shown}", canon::hash_value(kind, &hashed));
    Ok(EXIT_OK)
}

/// What a JSON file's hash is taken of, by its `format`, with the name of that kind;
/// `shown` is the file's name as the terminal shows it.
fn hashed_json(path: &Path, shown: &str) -> Result<(HashKind, &'static str, Value), Exit> {
    let bytes = read_input(
        path,
        MAX_JSON_BYTES,
        Budget::Fixed("a JSON document to hash"),
    )?;
    let value = counterlab::json::parse_strict(&bytes).map_err(|e| {
        Exit::data(format!(
            "{shown}: not JSON at {}: {}",
            e.path,
            safe(&e.message)
        ))
    })?;
    let format = value.get("format").and_then(Value::as_str).unwrap_or("");
    Ok(match format {
        "counterlab.experiment/1" => {
            let experiment = Experiment::from_value(&value)?;
            (HashKind::Experiment, "experiment", canon::to_value(&experiment)?)
        }
        "counterlab.payload/1" => (HashKind::Payload, "payload", value),
        "counterlab.prediction/1" => {
            let prediction = Prediction::from_value(&value)?;
            (HashKind::Prediction, "prediction", prediction.to_json())
        }
        "counterlab.report/1" => {
            let mut value = value;
            if let Some(map) = value.as_object_mut() {
                map.remove("report_hash");
            }
            (HashKind::Report, "report", value)
        }
        other => {
            return Err(Exit::data(format!(
                "{shown}: unknown \"format\" {} (expected counterlab.experiment/1, counterlab.payload/1, counterlab.prediction/1 or counterlab.report/1)",
                safe(&format!("{other:?}"))
            )))
        }
    })
}
