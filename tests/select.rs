//! The fixed selector: closed eligibility rules in order, a score from the design alone,
//! ties by hash, and the seed derived from the prediction and the design (no seed
//! shopping). Candidates are edits of entity-leakage's `random-vs-grouped` experiment.

use counterlab::prediction::{predict, Outcome, Predicted, Prediction};
use counterlab::select::{derived_seed, design_hash, select};
use serde_json::{json, Value};

use crate::common::bundled_packs;

fn base() -> Value {
    let path = format!(
        "{}/fixtures/packs/entity-leakage/experiments/random-vs-grouped.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn belief() -> Prediction {
    let packs = bundled_packs();
    predict(
        packs.get("entity-leakage").unwrap(),
        serde_json::from_value(base()["claim"].clone()).unwrap(),
        Predicted::Outcome(Outcome::Holds),
        None,
    )
}

fn candidate(name: &str, edit: impl FnOnce(&mut Value)) -> (String, Vec<u8>) {
    let mut value = base();
    edit(&mut value);
    (name.to_owned(), serde_json::to_vec(&value).unwrap())
}

#[test]
fn every_rule_is_checked_in_order_and_the_best_design_is_selected() {
    let packs = bundled_packs();
    let pack = packs.get("entity-leakage").unwrap();
    let prediction = belief();
    let candidates = vec![
        candidate("cv", |_| {}),
        ("garbage".to_owned(), b"{not json".to_vec()),
        candidate("other-pack", |e| e["pack"] = json!("temporal-leakage")),
        candidate("bad-feature", |e| e["features"] = json!(["no_such_column"])),
        candidate("other-claim", |e| e["claim"]["at_least"] = json!(0.05)),
        candidate("no-control", |e| {
            e["arms"][1]["split"] = json!({"kind": "k_fold", "folds": 4});
        }),
        candidate("no-identity", |e| {
            e["ablations"] = json!([{"name": "no_tenure", "drop": ["tenure_months"]}]);
        }),
        candidate("few-held-out", |e| {
            e["arms"][0]["split"] = json!({"kind": "random_rows", "test_fraction": 0.25});
            e["arms"][1]["split"] = json!({"kind": "entity_grouped", "test_fraction": 0.05});
        }),
        candidate("one-split", |e| {
            e["arms"][0]["split"] = json!({"kind": "random_rows", "test_fraction": 0.5});
            e["arms"][1]["split"] = json!({"kind": "entity_grouped", "test_fraction": 0.5});
        }),
    ];
    let selection = select(pack, &prediction, &candidates);
    let failed: Vec<Option<&str>> = selection
        .candidates
        .iter()
        .map(|c| c.failed.as_ref().map(|(rule, _)| *rule))
        .collect();
    assert_eq!(
        failed,
        [
            None,
            Some("parses"),
            Some("same_pack"),
            Some("valid"),
            Some("same_claim"),
            Some("control"),
            Some("identity_ablation"),
            Some("held_out_entities"),
            None,
        ]
    );
    // The CV design scores above the one-split design: both arms cross-validated (+100)
    // and every customer held out once.
    let score = |i: usize| selection.candidates[i].score.unwrap();
    assert_eq!(score(0).cross_validated, 2);
    assert_eq!(score(8).cross_validated, 0);
    assert_eq!(score(0).held_out, pack.table().n_entities() as u64);
    assert_eq!(score(0).ablations, 1);
    assert_eq!(score(0).total(), score(0).held_out + 100 + 5);
    assert!(score(0).total() > score(8).total());
    assert_eq!(selection.selected, Some(0));

    // The seed that runs is derived, whatever the candidate wrote.
    let to_run = selection.to_run.as_ref().unwrap();
    let expected = derived_seed(&prediction.question_hash(), &design_hash(to_run));
    assert_eq!(to_run.seed, expected);
    let reseeded = vec![candidate("cv", |e| e["seed"] = json!(12345))];
    let again = select(pack, &prediction, &reseeded);
    assert_eq!(
        again.to_run.as_ref().unwrap().seed,
        expected,
        "the candidate's seed is ignored"
    );
    // Adding an ineligible candidate changes the record, not the seed.
    assert_ne!(again.selection_hash(), selection.selection_hash());
    // Nor do names: the same design with its arms and ablations renamed (and the claim
    // following) runs with the same seed.
    let renamed = vec![candidate("renamed", |e| {
        e["arms"][0]["name"] = json!("rows");
        e["claim"]["higher"] = json!("rows");
        e["ablations"][1]["name"] = json!("without_tenure");
        e["metrics"].as_array_mut().unwrap().reverse();
    })];
    let mut renamed_belief = base()["claim"].clone();
    renamed_belief["higher"] = json!("rows");
    let renamed_prediction = predict(
        pack,
        serde_json::from_value(renamed_belief).unwrap(),
        Predicted::Outcome(Outcome::Holds),
        None,
    );
    let renamed_selection = select(pack, &renamed_prediction, &renamed);
    // The claim names the arm by its new name, so the question hash differs; the designs'
    // normal forms, which the seed reads beside it, are equal.
    assert_eq!(
        design_hash(renamed_selection.to_run.as_ref().unwrap()),
        design_hash(to_run)
    );
    // The predicted outcome and the rationale do not move it either.
    let doubting = predict(
        pack,
        prediction.claim.clone(),
        Predicted::Outcome(Outcome::DoesNotHold),
        Some(b"another rationale"),
    );
    let doubted = select(pack, &doubting, &[candidate("cv", |_| {})]);
    assert_eq!(doubted.to_run.as_ref().unwrap().seed, expected);

    let record = selection.to_json();
    assert_eq!(record["format"], "counterlab.selection/1");
    assert_eq!(record["candidates"][6]["failed_rule"], "identity_ablation");
    assert_eq!(
        record["selected"],
        record["candidates"][0]["experiment_hash"]
    );
    assert_eq!(record["experiment_to_run"]["seed"], json!(expected));
}

#[test]
fn ties_go_to_the_smallest_experiment_hash_and_order_does_not_matter() {
    let packs = bundled_packs();
    let pack = packs.get("entity-leakage").unwrap();
    let prediction = belief();
    // Same design score: only an ablation's name differs.
    let a = candidate("a", |_| {});
    let b = candidate("b", |e| e["ablations"][1]["name"] = json!("without_tenure"));
    let forward = select(pack, &prediction, &[a.clone(), b.clone()]);
    let backward = select(pack, &prediction, &[b, a]);
    let chosen = |s: &counterlab::select::Selection| {
        s.candidates[s.selected.unwrap()]
            .experiment_hash
            .clone()
            .unwrap()
    };
    assert_eq!(chosen(&forward), chosen(&backward));
    let hashes: Vec<String> = forward
        .candidates
        .iter()
        .map(|c| c.experiment_hash.clone().unwrap())
        .collect();
    assert_eq!(chosen(&forward), *hashes.iter().min().unwrap());
}

#[test]
fn without_candidates_the_cli_chooses_among_the_registered_experiments() {
    let dir = crate::common::TempDir::new("select");
    let belief = dir.path().join("belief.json");
    std::fs::write(&belief, serde_json::to_vec(&belief_json()).unwrap()).unwrap();
    let out = dir.path().join("run.json");
    let o = crate::common::counterlab(&[
        "select",
        "entity-leakage",
        "--belief",
        belief.to_str().unwrap(),
        "--json",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let record: Value = serde_json::from_slice(&o.stdout).unwrap();
    let sources: Vec<&str> = record["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["source"].as_str().unwrap())
        .collect();
    assert!(sources
        .iter()
        .any(|s| s.ends_with("random-vs-grouped.json")));
    let selected = record["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["experiment_hash"] == record["selected"])
        .unwrap();
    assert!(selected["source"]
        .as_str()
        .unwrap()
        .ends_with("random-vs-grouped.json"));
    let written: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(written, record["experiment_to_run"]);
    counterlab::Experiment::from_value(&written).unwrap();
}

fn belief_json() -> Value {
    belief().to_json()
}
