//! Proof Capsules: built for a prediction on entity-leakage (the selector choosing among the
//! pack's registered experiments), re-verified link by link with the options they record,
//! answering their prediction (confirmed / refuted / undecided), and the tampered capsules
//! of mutations/capsules.toml each REJECTED (or INCONCLUSIVE) at the link that was broken.

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
    assert_eq!(ran.seed, counterlab::select::derived_seed(&p.pack));
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
    assert!(file.case.len() >= 36, "{} capsule cases", file.case.len());
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
    // After SUPPORTS no revision is allowed, not even a design change (C = 0.5): the
    // capsule is REJECTED at the revisions link.
    let design = revision(|e| e["model"]["c"] = json!(0.5));
    let capsule = build_with(vec![design]);
    assert_eq!(capsule["verdict"], "SUPPORTS");
    assert_eq!(capsule["revisions"][0]["verdict"], "REJECTED");
    let answer = check(&capsule);
    assert_eq!(
        (answer["verdict"].as_str(), answer["witness"].as_str()),
        (Some("REJECTED"), Some("revisions")),
        "{:#}",
        answer["links"]
    );
    // A conclusion-only revision is bound as refused, and the capsule is REJECTED there.
    let conclusion = revision(|e| e["claim"]["at_least"] = json!(0.2));
    let capsule = build_with(vec![conclusion]);
    assert_eq!(capsule["revisions"][0]["verdict"], "REJECTED");
    let answer = check(&capsule);
    assert_eq!(
        (answer["verdict"].as_str(), answer["witness"].as_str()),
        (Some("REJECTED"), Some("revisions"))
    );

    // A claim the evidence contradicts (gap >= 0.5): REJECTED, so a design revision is
    // allowed; its verdict (decided as one of two tests) is the capsule's answer.
    let packs = bundled_packs();
    let mut candidate =
        experiment("fixtures/packs/entity-leakage/experiments/random-vs-grouped.json");
    candidate["claim"]["at_least"] = json!(0.5);
    let belief = predict(
        packs.get("entity-leakage").unwrap(),
        serde_json::from_value(candidate["claim"].clone()).unwrap(),
        Predicted::Outcome(Outcome::Holds),
        None,
    );
    let candidates = vec![("gap-05".to_owned(), serde_json::to_vec(&candidate).unwrap())];
    let first = build(
        &packs,
        &belief,
        &candidates,
        &BuildOptions {
            boundary: false,
            revisions: Vec::new(),
            verify: options(),
        },
    )
    .unwrap();
    assert_eq!(first["verdict"], "REJECTED");
    let mut revised = first["payload"]["experiment"].clone();
    revised["model"]["c"] = json!(0.5);
    let revised = counterlab::run(
        &packs,
        &counterlab::Experiment::from_value(&revised).unwrap(),
    )
    .unwrap()
    .to_json_pretty()
    .unwrap()
    .into_bytes();
    let built = counterlab::capsule::build_answered(
        &packs,
        &belief,
        &candidates,
        &BuildOptions {
            boundary: false,
            revisions: vec![revised],
            verify: options(),
        },
    )
    .unwrap();
    let answer = check(&built.capsule);
    assert_eq!(answer["witness"], Value::Null, "{:#}", answer["links"]);
    assert_eq!(
        answer["verdict"],
        built.verdict.as_str(),
        "build prints what verify answers"
    );
    assert_eq!(answer["verdict"], "REJECTED");
    assert_eq!(answer["prediction"]["answer"], "refuted");
    assert_eq!(answer["report"]["claim"]["family"], 2);
    assert_eq!(answer["report"]["claim"]["alpha"], 0.025);
}

/// A capsule answers its prediction (issue 30, item 3): the same evidence (a gap of at
/// least 0.5, contradicted) confirms "does not hold" (SUPPORTS) and refutes "holds"
/// (REJECTED); "does not hold" of a SUPPORTED claim is refuted, never a plain SUPPORTS;
/// `build` reports the verdict `verify` gives.
#[test]
fn a_capsule_answers_the_prediction() {
    let packs = bundled_packs();
    let registered = experiment("fixtures/packs/entity-leakage/experiments/random-vs-grouped.json");
    for (at_least, predicted, verdict, answer) in [
        (0.5, Outcome::DoesNotHold, "SUPPORTS", "confirmed"),
        (0.5, Outcome::Holds, "REJECTED", "refuted"),
        (0.1, Outcome::DoesNotHold, "REJECTED", "refuted"),
        (0.1, Outcome::Holds, "SUPPORTS", "confirmed"),
    ] {
        let mut candidate = registered.clone();
        candidate["claim"]["at_least"] = json!(at_least);
        let belief = predict(
            packs.get("entity-leakage").unwrap(),
            serde_json::from_value(candidate["claim"].clone()).unwrap(),
            Predicted::Outcome(predicted),
            None,
        );
        let built = counterlab::capsule::build_answered(
            &packs,
            &belief,
            &[("c".to_owned(), serde_json::to_vec(&candidate).unwrap())],
            &BuildOptions {
                boundary: false,
                revisions: Vec::new(),
                verify: options(),
            },
        )
        .unwrap();
        let checked = check(&built.capsule);
        let case = format!("{at_least} {predicted:?}");
        assert_eq!(checked["verdict"], verdict, "{case}");
        assert_eq!(
            built.verdict.as_str(),
            verdict,
            "{case}: build prints verify's verdict"
        );
        assert_eq!(checked["prediction"]["answer"], answer, "{case}");
        assert_eq!(
            checked["prediction"]["predicted"],
            json!(predicted),
            "{case}"
        );
        assert_eq!(checked["prediction"]["claim"], candidate["claim"], "{case}");
        assert_eq!(
            checked["prediction"]["tested_claim"], candidate["claim"],
            "{case}"
        );
        assert_eq!(
            checked["prediction"]["tested_statistic"],
            "roc_auc(random_rows) - roc_auc(entity_grouped)"
        );
        // The first payload's own verdict stays recorded as it was: the claim's.
        let claim_verdict = if at_least == 0.5 {
            "REJECTED"
        } else {
            "SUPPORTS"
        };
        assert_eq!(built.capsule["verdict"], claim_verdict, "{case}");
    }
}

/// A capsule is re-verified with the options it records (issue 30, item 5): verifying it
/// with other options in the library changes nothing but the threads; the CLI refuses a
/// decision option given beside a capsule; the report lists the options used.
#[test]
fn a_capsule_is_reverified_with_its_recorded_options() {
    let capsule = capsule();
    assert_eq!(capsule["options"]["permutations"], 99);
    assert_eq!(capsule["options"]["row_order_shuffles"], 1);
    let packs = bundled_packs();
    let bytes = serde_json::to_vec(capsule).unwrap();
    let other = VerifyOptions {
        permutations: 19,
        seed: 5,
        alpha: 0.1,
        threads: 1,
        ..VerifyOptions::default()
    };
    let a = verify_capsule(&bytes, &packs, &options()).to_json();
    let b = verify_capsule(&bytes, &packs, &other).to_json();
    assert_eq!(a["capsule_report_hash"], b["capsule_report_hash"]);
    assert_eq!(a["options"], capsule["options"]);
    assert_eq!(a["report"]["claim"]["permutations"], 99);

    let dir = crate::common::TempDir::new("capsule-options");
    let path = dir.path().join("capsule.json");
    std::fs::write(&path, &bytes).unwrap();
    let path = path.to_str().unwrap();
    for flag in [
        ["--permutations", "19"],
        ["--alpha", "0.1"],
        ["--seed", "3"],
        ["--max-work", "1000"],
        ["--max-design-bytes", "1000"],
    ] {
        let out = crate::common::counterlab(&["verify", path, flag[0], flag[1]]);
        assert_eq!(out.status.code(), Some(2), "{flag:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&format!("{} cannot be given for a Proof Capsule", flag[0])),
            "{stderr}"
        );
    }
    let out = crate::common::counterlab(&["verify", path, "--threads", "1", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(printed["capsule_report_hash"], a["capsule_report_hash"]);
    // A payload still takes every option.
    let payload = dir.path().join("payload.json");
    std::fs::write(&payload, serde_json::to_vec(&capsule["payload"]).unwrap()).unwrap();
    let out =
        crate::common::counterlab(&["verify", payload.to_str().unwrap(), "--permutations", "19"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
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
