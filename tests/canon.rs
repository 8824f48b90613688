//! Canonical encoding and hashes: independent golden vectors and a drift check on every
//! registered experiment's result hash.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use counterlab::canon::{hash_value, HashKind};
use counterlab::{Experiment, Packs, RunOptions};

#[test]
fn golden_vectors_match_the_independent_encoder() {
    let text = include_str!("golden/canon_vectors.json");
    let file: serde_json::Value = serde_json::from_str(text).unwrap();
    let vectors = file["vectors"].as_array().unwrap();
    assert!(vectors.len() >= 60);
    let mut failures = Vec::new();
    for vector in vectors {
        let value: serde_json::Value =
            serde_json::from_str(vector["json"].as_str().unwrap()).unwrap();
        let kind = match vector["kind"].as_str().unwrap() {
            "result" => HashKind::Result,
            "experiment" => HashKind::Experiment,
            "payload" => HashKind::Payload,
            "report" => HashKind::Report,
            other => panic!("unknown kind {other}"),
        };
        let got = hash_value(kind, &value);
        if got != vector["hash"].as_str().unwrap() {
            failures.push(format!("{} {}: got {got}", vector["kind"], vector["json"]));
        }
    }
    assert!(
        failures.is_empty(),
        "canonical hashes drifted from tests/golden/gen_canon_vectors.py:\n{}",
        failures.join("\n")
    );
}

/// Every registered experiment of every bundled pack, as (relative path, path).
pub(crate) fn registered_experiments() -> Vec<(String, PathBuf)> {
    counterlab_test_support::bundled::experiment_files()
}

/// Golden result hashes of the registered experiments: a drift check. When a change to the
/// kernel is *meant* to change results, regenerate with
/// `COUNTERLAB_BLESS=1 cargo test --release --test lib canon::registered_result_hashes`
/// and say why in the commit.
#[test]
fn registered_result_hashes_do_not_drift() {
    let packs =
        Packs::discover(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/packs")).unwrap();
    let mut hashes = BTreeMap::new();
    for (name, path) in registered_experiments() {
        let experiment = Experiment::from_json(&std::fs::read(&path).unwrap()).unwrap();
        let pack = packs.get(&experiment.pack).unwrap();
        let payload = counterlab::run_with(pack, &experiment, &RunOptions { threads: 2 }).unwrap();
        hashes.insert(name, payload.result_hash);
    }
    assert!(
        hashes.len() >= 4,
        "expected at least two experiments per bundled pack"
    );
    counterlab_test_support::golden::check_json(
        "result_hashes.json",
        &serde_json::to_value(&hashes).expect("JSON"),
    );
}
