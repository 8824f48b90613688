//! `counterlab hash FILE`: the canonical hash of what the file holds.

use std::path::Path;

use serde_json::Value;

use counterlab::canon::{self, HashKind};
use counterlab::Experiment;

use super::style::safe;
use super::{fail, read_input, EXIT_DATA, EXIT_OK};

/// Largest JSON file hashed canonically, in bytes (a file is parsed whole).
const MAX_JSON_BYTES: u64 = 64 << 20;

/// JSON files are hashed by their `format`: an experiment (validated, then re-encoded
/// canonically), a payload, a report (without its own `report_hash`), each read as
/// `verify` reads it (duplicate keys refused). Anything else (a fixture CSV, pack.toml)
/// is hashed as raw bytes with plain blake3, as `pack.toml` records fixtures, streamed
/// from a regular file in fixed-size blocks (any size, bounded memory).
pub(crate) fn command(path: &Path) -> i32 {
    let is_json = path.extension().is_some_and(|e| e == "json");
    if !is_json {
        return match counterlab::input::hash_file(path) {
            Ok(hash) => {
                outln!(
                    "{hash}  fixture-bytes  {}",
                    safe(&path.display().to_string())
                );
                EXIT_OK
            }
            Err(e) => fail(&e),
        };
    }
    let bytes = match read_input(path, MAX_JSON_BYTES, "") {
        Ok(b) => b,
        Err(code) => return code,
    };
    let value: Value = match counterlab::json::parse_strict(&bytes) {
        Ok(v) => v,
        Err(e) => {
            eprintln!(
                "{} {}: not JSON at {}: {}",
                super::style::error_tag(),
                safe(&path.display().to_string()),
                e.path,
                safe(&e.message)
            );
            return EXIT_DATA;
        }
    };
    let format = value.get("format").and_then(Value::as_str).unwrap_or("");
    let (kind, label, hashed) = match format {
        "counterlab.experiment/1" => {
            match Experiment::from_value(&value).and_then(|e| canon::to_value(&e)) {
                Ok(v) => (HashKind::Experiment, "experiment", v),
                Err(e) => return fail(&e),
            }
        }
        "counterlab.payload/1" => (HashKind::Payload, "payload", value),
        "counterlab.prediction/1" => match counterlab::prediction::Prediction::from_value(&value) {
            Ok(p) => (HashKind::Prediction, "prediction", p.to_json()),
            Err(e) => return fail(&e),
        },
        "counterlab.report/1" => {
            let mut v = value;
            if let Some(map) = v.as_object_mut() {
                map.remove("report_hash");
            }
            (HashKind::Report, "report", v)
        }
        other => {
            eprintln!(
                "{} {}: unknown \"format\" {} (expected counterlab.experiment/1, counterlab.payload/1, counterlab.prediction/1 or counterlab.report/1)",
                super::style::error_tag(),
                safe(&path.display().to_string()),
                safe(&format!("{other:?}"))
            );
            return EXIT_DATA;
        }
    };
    outln!(
        "{}  {label}  {}",
        canon::hash_value(kind, &hashed),
        safe(&path.display().to_string())
    );
    EXIT_OK
}
