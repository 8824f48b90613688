//! `counterlab.prediction/1`: a prediction recorded before any result — bound to its pack's
//! meaning, hashed with its own domain separator, and refused when it carries anything
//! result-like.

use counterlab::prediction::{predict, Outcome, Predicted, Prediction};
use serde_json::{json, Value};

use crate::common::{bundled_packs, counterlab, TempDir};

fn claim() -> Value {
    json!({"kind": "metric_gap", "metric": "roc_auc", "higher": "random_rows", "lower": "entity_grouped", "at_least": 0.1})
}

fn prediction() -> Prediction {
    let packs = bundled_packs();
    let pack = packs.get("entity-leakage").unwrap();
    predict(
        pack,
        serde_json::from_value(claim()).unwrap(),
        Predicted::Outcome(Outcome::Holds),
        Some(b"the same customer is on both sides of a random row split"),
    )
}

#[test]
fn a_prediction_reads_back_and_is_bound_to_its_pack() {
    let p = prediction();
    let value = p.to_json();
    assert_eq!(value["format"], "counterlab.prediction/1");
    assert_eq!(value["predicted"], "holds");
    assert_eq!(
        value["rationale_blake3"],
        blake3::hash(b"the same customer is on both sides of a random row split")
            .to_hex()
            .as_str()
    );
    let read = Prediction::from_json(&serde_json::to_vec(&value).unwrap()).unwrap();
    assert_eq!(read, p);
    assert_eq!(read.prediction_hash(), p.prediction_hash());
    let packs = bundled_packs();
    assert!(p.is_about(packs.get("entity-leakage").unwrap()));
    assert!(!p.is_about(packs.get("temporal-leakage").unwrap()));
    // Its own domain: the same value hashed as a payload is another hash.
    assert_ne!(
        p.prediction_hash(),
        counterlab::canon::hash_value(counterlab::canon::HashKind::Payload, &value)
    );
    // Every field is bound: any change moves the hash.
    for edit in [
        |v: &mut Value| v["predicted"] = json!("does_not_hold"),
        |v: &mut Value| v["claim"]["at_least"] = json!(0.11),
        |v: &mut Value| v["pack"]["id"] = json!("temporal-leakage"),
        |v: &mut Value| v["predicted"] = json!({"transfer_choice": "grouped"}),
        |v: &mut Value| v["timestamp_token_blake3"] = json!("0".repeat(64)),
    ] {
        let mut edited = value.clone();
        edit(&mut edited);
        let edited = Prediction::from_value(&edited).unwrap();
        assert_ne!(edited.prediction_hash(), p.prediction_hash(), "{edited:?}");
    }
}

#[test]
fn result_like_fields_and_bad_claims_are_refused_with_their_path() {
    let value = prediction().to_json();
    for (edit, path) in [
        (json!({"results": {}}), "$.results"),
        (json!({"observed": 0.26}), "$.observed"),
        (json!({"verdict": "SUPPORTS"}), "$.verdict"),
        (json!({"report_hash": "0".repeat(64)}), "$.report_hash"),
        (json!({"predicted": "SUPPORTS"}), "$.predicted"),
        (json!({"rationale_blake3": "ABC"}), "$.rationale_blake3"),
        (json!({"format": "counterlab.prediction/2"}), "$.format"),
    ] {
        let mut edited = value.clone();
        for (k, v) in edit.as_object().unwrap() {
            edited[k] = v.clone();
        }
        let e = Prediction::from_value(&edited).unwrap_err();
        match e.kind() {
            counterlab::ErrorKind::Experiment { path: at, .. } => assert_eq!(at, path, "{e}"),
            other => panic!("{other:?}"),
        }
    }
    let mut same_arm = value.clone();
    same_arm["claim"]["lower"] = json!("random_rows");
    let e = Prediction::from_value(&same_arm).unwrap_err().to_string();
    assert!(e.contains("$.claim.lower"), "{e}");
}

#[test]
fn the_cli_records_a_prediction_and_hash_agrees() {
    let dir = TempDir::new("predict");
    let claim_path = dir.path().join("claim.json");
    std::fs::write(&claim_path, claim().to_string()).unwrap();
    let out = dir.path().join("prediction.json");
    let predicted = counterlab(&[
        "predict",
        "entity-leakage",
        "--claim",
        claim_path.to_str().unwrap(),
        "--outcome",
        "holds",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(predicted.status.code(), Some(0), "{predicted:?}");
    let text = String::from_utf8_lossy(&predicted.stdout).into_owned();
    let hash = text
        .lines()
        .find_map(|l| l.strip_prefix("prediction_hash  "))
        .unwrap()
        .to_owned();
    let read = Prediction::from_json(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(read.prediction_hash(), hash);
    let hashed = counterlab(&["hash", out.to_str().unwrap()]);
    assert!(
        String::from_utf8_lossy(&hashed.stdout).starts_with(&format!("{hash}  prediction")),
        "{hashed:?}"
    );
}
