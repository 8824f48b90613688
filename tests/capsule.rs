//! Proof Capsules: built for a prediction on entity-leakage (the selector choosing among the
//! pack's registered experiments), re-verified link by link, and 20 tampered capsules each
//! REJECTED (or INCONCLUSIVE) at the link that was broken.

use std::sync::OnceLock;

use counterlab::capsule::{build, verify_capsule, BuildOptions};
use counterlab::prediction::{predict, Outcome, Predicted};
use counterlab::VerifyOptions;
use serde_json::{json, Value};

use crate::common::bundled_packs;

fn options() -> VerifyOptions {
    VerifyOptions {
        permutations: 99,
        row_order_shuffles: 1,
        threads: 2,
        ..VerifyOptions::default()
    }
}

fn root() -> String {
    env!("CARGO_MANIFEST_DIR").to_owned()
}

fn experiment(path: &str) -> Value {
    serde_json::from_slice(&std::fs::read(format!("{}/{path}", root())).unwrap()).unwrap()
}

/// The pack's registered experiments as candidates.
fn candidates() -> Vec<(String, Vec<u8>)> {
    let dir = format!("{}/fixtures/packs/entity-leakage/experiments", root());
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(p).unwrap(),
            )
        })
        .collect()
}

fn prediction(predicted: Predicted) -> counterlab::prediction::Prediction {
    let packs = bundled_packs();
    let claim = experiment("fixtures/packs/entity-leakage/experiments/random-vs-grouped.json")
        ["claim"]
        .clone();
    predict(
        packs.get("entity-leakage").unwrap(),
        serde_json::from_value(claim).unwrap(),
        predicted,
        Some(b"random rows put a customer on both sides"),
    )
}

fn build_with(revisions: Vec<Vec<u8>>) -> Value {
    build(
        &bundled_packs(),
        &prediction(Predicted::Outcome(Outcome::Holds)),
        &candidates(),
        &BuildOptions {
            boundary: false,
            revisions,
            verify: options(),
        },
    )
    .unwrap()
}

fn capsule() -> &'static Value {
    static CAPSULE: OnceLock<Value> = OnceLock::new();
    CAPSULE.get_or_init(|| build_with(Vec::new()))
}

fn check(value: &Value) -> Value {
    verify_capsule(
        &serde_json::to_vec(value).unwrap(),
        &bundled_packs(),
        &options(),
    )
    .to_json()
}

/// A payload of the selected experiment after `edit`, as a revision.
fn revision(edit: impl FnOnce(&mut Value)) -> Vec<u8> {
    let mut e = capsule()["payload"]["experiment"].clone();
    edit(&mut e);
    let experiment = counterlab::Experiment::from_value(&e).unwrap();
    counterlab::run(&bundled_packs(), &experiment)
        .unwrap()
        .to_json_pretty()
        .unwrap()
        .into_bytes()
}

#[test]
fn a_built_capsule_reverifies_and_binds_the_derived_seed() {
    let capsule = capsule();
    let answer = check(capsule);
    let links: Vec<(&str, &str)> = answer["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["link"].as_str().unwrap(), l["status"].as_str().unwrap()))
        .collect();
    assert!(links.iter().all(|(_, s)| *s == "pass"), "{answer:#}");
    assert_eq!(links.len(), 8);
    assert_eq!(answer["verdict"], capsule["verdict"]);
    // The flagship claim is decided: 5-fold CV arms, paired interval (VERDICTS.md).
    assert_eq!(
        capsule["verdict"], "SUPPORTS",
        "{:#}",
        answer["report"]["claim"]
    );
    assert!(capsule["payload"]["experiment"]["arms"][0]["split"]["kind"] == "k_fold");
    // The seed that ran is the derived one, not the registered experiment's 7.
    let ran = counterlab::Experiment::from_value(&capsule["payload"]["experiment"]).unwrap();
    let p = prediction(Predicted::Outcome(Outcome::Holds));
    assert_eq!(
        ran.seed,
        counterlab::select::derived_seed(
            &p.question_hash(),
            &counterlab::select::design_hash(&ran)
        )
    );
    assert_ne!(ran.seed, 7);
}

/// Each tamper and the link that must catch it.
#[test]
fn tampered_capsules_are_rejected_at_the_broken_link() {
    let base = capsule().clone();
    let other_payload: Value = serde_json::from_slice(
        &std::fs::read(format!(
            "{}/fixtures/packs/temporal-leakage/payloads/random-inflates-auc.json",
            root()
        ))
        .unwrap(),
    )
    .unwrap();
    let rehash_prediction = |c: &mut Value| {
        let p = counterlab::prediction::Prediction::from_value(&c["prediction"]).unwrap();
        c["prediction_hash"] = json!(p.prediction_hash());
    };
    let rehash_payload = |c: &mut Value| {
        c["payload_hash"] = json!(counterlab::canon::hash_value(
            counterlab::canon::HashKind::Payload,
            &c["payload"]
        ));
    };
    type Tamper = Box<dyn Fn(&mut Value)>;
    let cases: Vec<(&str, Tamper, &str, &str)> = vec![
        (
            "wrong format",
            Box::new(|c| c["format"] = json!("counterlab.capsule/2")),
            "format",
            "REJECTED",
        ),
        (
            "prediction edited after the fact",
            Box::new(|c| c["prediction"]["predicted"] = json!("does_not_hold")),
            "prediction",
            "REJECTED",
        ),
        (
            "prediction edited and rehashed",
            Box::new(move |c| {
                c["prediction"]["predicted"] = json!("does_not_hold");
                rehash_prediction(c);
            }),
            "selection",
            "REJECTED",
        ),
        (
            "prediction for another pack's meaning",
            Box::new(move |c| {
                c["prediction"]["pack"]["manifest_hash"] = json!("0".repeat(64));
                rehash_prediction(c);
            }),
            "prediction",
            "REJECTED",
        ),
        (
            "prediction hash swapped",
            Box::new(|c| c["prediction_hash"] = json!("f".repeat(64))),
            "prediction",
            "REJECTED",
        ),
        (
            "a candidate removed",
            Box::new(|c| {
                c["candidates"].as_array_mut().unwrap().remove(0);
            }),
            "selection",
            "REJECTED",
        ),
        (
            "a candidate added",
            Box::new(|c| {
                c["candidates"]
                    .as_array_mut()
                    .unwrap()
                    .push(json!({"source": "x", "experiment": "{}"}));
            }),
            "selection",
            "REJECTED",
        ),
        (
            "selection hash swapped",
            Box::new(|c| c["selection_hash"] = json!("0".repeat(64))),
            "selection",
            "REJECTED",
        ),
        (
            "an ineligible candidate's experiment hash",
            Box::new(|c| c["experiment_hash"] = json!("1".repeat(64))),
            "experiment",
            "REJECTED",
        ),
        (
            "payload seed not the derived one",
            Box::new(move |c| {
                c["payload"]["experiment"]["seed"] = json!(7);
                rehash_payload(c);
            }),
            "experiment",
            "REJECTED",
        ),
        (
            "another pack's payload swapped in",
            Box::new(move |c| {
                c["payload"] = other_payload.clone();
                rehash_payload(c);
            }),
            "experiment",
            "REJECTED",
        ),
        (
            "payload hash swapped",
            Box::new(|c| c["payload_hash"] = json!("2".repeat(64))),
            "payload",
            "REJECTED",
        ),
        (
            "a result edited and the payload rehashed",
            Box::new(move |c| {
                c["payload"]["results"]["random_rows"]["metrics"]["accuracy"] = json!(0.99);
                rehash_payload(c);
            }),
            "report",
            "REJECTED",
        ),
        (
            "a stale report hash",
            Box::new(|c| c["report_hash"] = json!("3".repeat(64))),
            "report",
            "REJECTED",
        ),
        (
            "the verdict edited",
            Box::new(|c| c["verdict"] = json!("INCONCLUSIVE")),
            "report",
            "REJECTED",
        ),
        (
            "another verifier version",
            Box::new(|c| c["verifier"]["version"] = json!("counterlab-verifier/3")),
            "report",
            "INCONCLUSIVE",
        ),
        (
            "a transfer result that the prediction does not ask for",
            Box::new(|c| c["transfer_result_hash"] = json!("4".repeat(64))),
            "extras",
            "REJECTED",
        ),
        (
            "a boundary map hash that is not the pack's",
            Box::new(|c| c["boundary_map_hash"] = json!("5".repeat(64))),
            "extras",
            "REJECTED",
        ),
        (
            "three revisions",
            Box::new(|c| c["revisions"] = json!([{}, {}, {}])),
            "revisions",
            "REJECTED",
        ),
        (
            "a revision whose payload hash is not its own",
            Box::new(|c| c["revisions"] = json!([{"payload": {}, "payload_hash": "6".repeat(64)}])),
            "revisions",
            "REJECTED",
        ),
    ];
    assert!(cases.len() >= 20);
    for (what, tamper, link, verdict) in cases {
        let mut tampered = base.clone();
        tamper(&mut tampered);
        let answer = check(&tampered);
        assert_eq!(answer["verdict"], verdict, "{what}: {answer:#}");
        assert_eq!(answer["witness"], link, "{what}: {:#}", answer["links"]);
    }
    let not_json = verify_capsule(b"{\"format\": ", &bundled_packs(), &options()).to_json();
    assert_eq!(
        (not_json["verdict"].as_str(), not_json["witness"].as_str()),
        (Some("REJECTED"), Some("format"))
    );
}

#[test]
fn revisions_are_bound_and_rechecked() {
    // A design revision (C = 0.5) verifies; its verdict is the capsule's.
    let design = revision(|e| e["model"]["c"] = json!(0.5));
    let capsule = build_with(vec![design]);
    let answer = check(&capsule);
    assert_eq!(answer["witness"], Value::Null, "{:#}", answer["links"]);
    assert_eq!(capsule["revisions"].as_array().unwrap().len(), 1);
    assert_eq!(answer["verdict"], capsule["revisions"][0]["verdict"]);
    // A conclusion-only revision is bound as refused, and the capsule is REJECTED there.
    let conclusion = revision(|e| e["claim"]["at_least"] = json!(0.2));
    let capsule = build_with(vec![conclusion]);
    assert_eq!(capsule["revisions"][0]["verdict"], "REJECTED");
    let answer = check(&capsule);
    assert_eq!(
        (answer["verdict"].as_str(), answer["witness"].as_str()),
        (Some("REJECTED"), Some("revisions"))
    );
}

#[derive(serde::Deserialize)]
struct Expected {
    capsule: Vec<ExpectedCapsule>,
}

#[derive(serde::Deserialize)]
#[allow(dead_code)]
struct ExpectedCapsule {
    file: String,
    verdict: String,
    #[serde(default)]
    witness: Option<String>,
    why: String,
}

/// Every recorded capsule (fixtures/packs/*/capsules/, written by
/// fixtures/generate/record-capsules.sh) re-verifies with the CLI's default options to its
/// listed verdict and witness; the capsule report hashes are pinned (tests/golden).
#[test]
fn recorded_capsules_verify_as_listed() {
    let packs = bundled_packs();
    let options = VerifyOptions {
        threads: 2,
        ..VerifyOptions::default()
    };
    let mut hashes = serde_json::Map::new();
    let mut seen = 0;
    for pack in [
        "class-imbalance",
        "entity-leakage",
        "rare-defects",
        "temporal-leakage",
    ] {
        let dir = format!("{}/fixtures/packs/{pack}/capsules", root());
        let expected: Expected =
            toml::from_str(&std::fs::read_to_string(format!("{dir}/expected.toml")).unwrap())
                .unwrap();
        let mut files: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|f| f.ends_with(".json"))
            .collect();
        files.sort();
        let mut listed: Vec<String> = expected.capsule.iter().map(|c| c.file.clone()).collect();
        listed.sort();
        assert_eq!(
            files, listed,
            "{pack}: every capsule is listed in expected.toml"
        );
        for case in &expected.capsule {
            let bytes = std::fs::read(format!("{dir}/{}", case.file)).unwrap();
            let answer = verify_capsule(&bytes, &packs, &options).to_json();
            assert_eq!(
                answer["verdict"],
                case.verdict.as_str(),
                "{pack}/{}: {:#}",
                case.file,
                answer["links"]
            );
            assert_eq!(
                answer["witness"].as_str(),
                case.witness.as_deref(),
                "{pack}/{}",
                case.file
            );
            hashes.insert(
                format!("{pack}/{}", case.file),
                answer["capsule_report_hash"].clone(),
            );
            seen += 1;
        }
    }
    assert!(seen >= 8);
    crate::common::golden_json("capsule_report_hashes.json", &Value::Object(hashes));
}

/// The selection, revision and capsule documents match their published schemas
/// (docs/{selection,revision,capsule}.schema.json), and a capsule with an extra key does not.
#[test]
fn chain_documents_match_their_schemas() {
    let schema = |name: &str| {
        let path = format!("{}/docs/{name}.schema.json", root());
        counterlab::schema::Schema::from_json(name, &std::fs::read_to_string(path).unwrap())
            .unwrap()
    };
    let capsule_schema = schema("capsule");
    let capsule = capsule();
    assert_eq!(capsule_schema.violations(capsule), vec![]);
    let mut extra = capsule.clone();
    extra["observed_gap"] = json!(0.3);
    assert!(!capsule_schema.violations(&extra).is_empty());

    let packs = bundled_packs();
    let pack = packs.get("entity-leakage").unwrap();
    let selection = counterlab::select::select(
        pack,
        &prediction(Predicted::Outcome(Outcome::Holds)),
        &candidates(),
    );
    assert_eq!(schema("selection").violations(&selection.to_json()), vec![]);

    let before = serde_json::to_vec(&capsule["payload"]).unwrap();
    let after = revision(|e| e["claim"]["at_least"] = json!(0.2));
    let answer = counterlab::revision::verify_revision(&[&before, &after], &packs, &options());
    assert_eq!(schema("revision").violations(&answer.to_json()), vec![]);
}
