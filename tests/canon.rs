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

/// Every registered experiment of every bundled pack, as (relative path, experiment).
pub(crate) fn registered_experiments() -> Vec<(String, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for pack in std::fs::read_dir(root.join("fixtures/packs")).unwrap() {
        let dir = pack.unwrap().path().join("experiments");
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "json") {
                let relative = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push((relative, path));
            }
        }
    }
    out.sort();
    out
}

/// Golden result hashes of the registered experiments: a drift check. When a change to the
/// kernel is *meant* to change results, regenerate with
/// `COUNTERLAB_BLESS=1 cargo test --release --test lib canon::registered_result_hashes`
/// and say why in the commit.
#[test]
fn registered_result_hashes_do_not_drift() {
    let golden_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/result_hashes.json");
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
    if std::env::var_os("COUNTERLAB_BLESS").is_some() {
        std::fs::write(
            &golden_path,
            serde_json::to_string_pretty(&hashes).unwrap() + "\n",
        )
        .unwrap();
        return;
    }
    let golden: BTreeMap<String, String> =
        serde_json::from_str(&std::fs::read_to_string(&golden_path).unwrap()).unwrap();
    assert_eq!(
        hashes, golden,
        "result hashes drifted; if intended, regenerate with COUNTERLAB_BLESS=1 (see this test's docs)"
    );
}
