//! `counterlab hash FILE`: the canonical hash of what the file holds.

use std::path::Path;

use serde_json::Value;

use counterlab::canon::{self, HashKind};
use counterlab::Experiment;

use super::{fail, read_file, EXIT_DATA, EXIT_OK};

/// JSON files are hashed by their `format`: an experiment (validated, then re-encoded
/// canonically), a payload, a report (without its own `report_hash`). Anything else
/// (a fixture CSV, pack.toml) is hashed as raw bytes with plain blake3, as `pack.toml`
/// records fixtures.
pub(crate) fn command(path: &Path) -> i32 {
    let bytes = match read_file(path) {
        Ok(b) => b,
        Err(code) => return code,
    };
    let is_json = path.extension().is_some_and(|e| e == "json");
    if !is_json {
        outln!(
            "{}  fixture-bytes  {}",
            canon::file_hash(&bytes),
            path.display()
        );
        return EXIT_OK;
    }
    let value: Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(e) => {
            eprintln!(
                "{} {}: not JSON: {e}",
                super::style::error_tag(),
                path.display()
            );
            return EXIT_DATA;
        }
    };
    let format = value.get("format").and_then(Value::as_str).unwrap_or("");
    let (kind, label, hashed) = match format {
        "counterlab.experiment/1" => {
            match Experiment::from_json(&bytes).and_then(|e| canon::to_value(&e)) {
                Ok(v) => (HashKind::Experiment, "experiment", v),
                Err(e) => return fail(&e),
            }
        }
        "counterlab.payload/1" => (HashKind::Payload, "payload", value),
        "counterlab.report/1" => {
            let mut v = value;
            if let Some(map) = v.as_object_mut() {
                map.remove("report_hash");
            }
            (HashKind::Report, "report", v)
        }
        other => {
            eprintln!(
                "{} {}: unknown \"format\" {other:?} (expected counterlab.experiment/1, counterlab.payload/1 or counterlab.report/1)",
                super::style::error_tag(),
                path.display()
            );
            return EXIT_DATA;
        }
    };
    outln!(
        "{}  {label}  {}",
        canon::hash_value(kind, &hashed),
        path.display()
    );
    EXIT_OK
}
