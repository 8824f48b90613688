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

#[derive(serde::Deserialize)]
struct CaseFile {
    case: Vec<Case>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    #[allow(dead_code)]
    provenance: String,
    base: String,
    edits: Vec<toml::Value>,
    verdict: String,
    #[serde(default)]
    witness: Option<String>,
}

fn toml_json(value: &toml::Value) -> Value {
    serde_json::to_value(value).expect("TOML values are JSON values")
}

/// Applies one edit of `mutations/capsules.toml` (its header lists the operations).
fn apply(capsule: &mut Value, edit: &toml::Value) -> Result<(), String> {
    use counterlab_test_support::json_path;
    let field = |key: &str| -> Result<&toml::Value, String> {
        edit.get(key)
            .ok_or_else(|| format!("edit {edit}: no {key}"))
    };
    let text = |key: &str| -> Result<String, String> {
        field(key)?
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| format!("{key} is not text"))
    };
    let read_file = |file: &str| -> Result<Value, String> {
        serde_json::from_slice(
            &std::fs::read(format!("{}/{file}", root())).map_err(|e| e.to_string())?,
        )
        .map_err(|e| e.to_string())
    };
    match text("op")?.as_str() {
        "set" => json_path::set(capsule, &text("path")?, toml_json(field("value")?)).map(|_| ()),
        "set_file" => {
            json_path::set(capsule, &text("path")?, read_file(&text("file")?)?).map(|_| ())
        }
        "set_file_key" => {
            let other = read_file(&text("file")?)?;
            json_path::set(
                capsule,
                &text("path")?,
                other[text("key")?.as_str()].clone(),
            )
            .map(|_| ())
        }
        "push" => {
            json_path::find_mut(capsule, &text("path")?)?
                .as_array_mut()
                .ok_or("not an array")?
                .push(toml_json(field("value")?));
            Ok(())
        }
        "remove" => {
            let (parent, last) = json_path::parent_mut(capsule, &text("path")?)?;
            match (parent, last) {
                (Value::Array(items), json_path::Seg::Index(i)) if i < items.len() => {
                    items.remove(i);
                    Ok(())
                }
                (Value::Object(map), json_path::Seg::Key(k)) => {
                    map.remove(&k).map(|_| ()).ok_or("no key".into())
                }
                _ => Err("no such place".into()),
            }
        }
        "rehash" => {
            match text("what")?.as_str() {
                "prediction" => {
                    let p = counterlab::prediction::Prediction::from_value(&capsule["prediction"])
                        .map_err(|e| e.to_string())?;
                    capsule["prediction_hash"] = json!(p.prediction_hash());
                }
                "payload" => {
                    capsule["payload_hash"] = json!(counterlab::canon::hash_value(
                        counterlab::canon::HashKind::Payload,
                        &capsule["payload"]
                    ));
                }
                other => return Err(format!("rehash {other:?}")),
            }
            Ok(())
        }
        other => Err(format!("unknown op {other:?}")),
    }
}

/// Every case of `mutations/capsules.toml`: the recorded capsule, edited, gets the listed
/// verdict, caught at the listed link.
#[test]
fn capsule_mutation_cases_are_caught_at_their_link() {
    let text = std::fs::read_to_string(format!("{}/mutations/capsules.toml", root())).unwrap();
    let file: CaseFile = toml::from_str(&text).unwrap();
    assert!(file.case.len() >= 20, "{} capsule cases", file.case.len());
    let packs = bundled_packs();
    let options = VerifyOptions {
        threads: 2,
        ..VerifyOptions::default()
    };
    let mut failures = Vec::new();
    for case in &file.case {
        let (pack, name) = case.base.split_once('/').unwrap();
        let path = format!("{}/fixtures/packs/{pack}/capsules/{name}.json", root());
        let mut capsule: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        if let Err(e) = case
            .edits
            .iter()
            .try_for_each(|edit| apply(&mut capsule, edit))
        {
            failures.push(format!("{}: edit failed: {e}", case.name));
            continue;
        }
        let answer =
            verify_capsule(&serde_json::to_vec(&capsule).unwrap(), &packs, &options).to_json();
        let got = (answer["verdict"].as_str(), answer["witness"].as_str());
        if got != (Some(case.verdict.as_str()), case.witness.as_deref()) {
            failures.push(format!(
                "{}: expected {} at {:?}, got {:?} at {:?}: {}",
                case.name, case.verdict, case.witness, got.0, got.1, answer["links"]
            ));
        }
    }
    let not_json = verify_capsule(b"{\"format\": ", &packs, &options).to_json();
    assert_eq!(
        (not_json["verdict"].as_str(), not_json["witness"].as_str()),
        (Some("REJECTED"), Some("format"))
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
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
