//! `verify-revision`: a revision chain after a REJECTED verdict — at most two revisions,
//! each changing the evaluation design, never the pack, the seed, the metrics or the
//! claim's metric, never only the claim. Each case edits entity-leakage's
//! `random-inflates-auc` experiment, runs it, and checks the chain's answer; the answer
//! of an allowed chain must be the verifier's own report on the last payload.

use counterlab::revision::verify_revision;
use serde_json::{json, Value};

use crate::common::{bundled_packs, counterlab, fast_options};

const EXPERIMENT: &str = "fixtures/packs/entity-leakage/experiments/random-inflates-auc.json";

fn experiment() -> Value {
    let path = format!("{}/{EXPERIMENT}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// The payload of the experiment after `edit`.
fn payload(edit: impl FnOnce(&mut Value)) -> Vec<u8> {
    let mut value = experiment();
    edit(&mut value);
    let experiment = counterlab::Experiment::from_value(&value).unwrap();
    let packs = bundled_packs();
    let payload = counterlab::run(&packs, &experiment).unwrap();
    payload.to_json_pretty().unwrap().into_bytes()
}

fn answer(chain: &[&[u8]]) -> Value {
    verify_revision(chain, &bundled_packs(), &fast_options()).to_json()
}

fn refused(chain: &[&[u8]], reason: &str, witness: &str) {
    let answer = answer(chain);
    assert_eq!(answer["verdict"], "REJECTED", "{answer:#}");
    let refusal = &answer["refusal"];
    assert!(
        refusal["reason"].as_str().unwrap().contains(reason),
        "{reason}: {refusal}"
    );
    assert_eq!(refusal["witness"], witness, "{refusal}");
    assert!(answer["report"].is_null());
}

#[test]
fn a_conclusion_only_revision_is_rejected() {
    let before = payload(|_| {});
    let threshold = payload(|e| e["claim"]["at_least"] = json!(-0.05));
    refused(
        &[&before, &threshold],
        "a conclusion-only revision",
        "$.experiment.claim.at_least",
    );
    let swapped = payload(|e| {
        e["claim"]["higher"] = json!("entity_grouped");
        e["claim"]["lower"] = json!("random_rows");
    });
    refused(
        &[&before, &swapped],
        "a conclusion-only revision",
        "$.experiment.claim.higher",
    );
    refused(&[&before, &before], "nothing changed", "$");
}

#[test]
fn changes_outside_the_design_are_rejected() {
    let before = payload(|_| {});
    let design = |e: &mut Value| e["arms"][1]["split"]["test_fraction"] = json!(0.4);
    for (edit, witness) in [
        (
            Box::new(|e: &mut Value| {
                design(e);
                e["seed"] = json!(8);
            }) as Box<dyn Fn(&mut Value)>,
            "$.experiment.seed",
        ),
        (
            Box::new(|e: &mut Value| {
                design(e);
                e["claim"]["metric"] = json!("accuracy");
            }),
            "$.experiment.claim.metric",
        ),
        (
            Box::new(|e: &mut Value| {
                design(e);
                e["metrics"] = json!(["roc_auc", "accuracy"]);
            }),
            "$.experiment.metrics[2]",
        ),
    ] {
        let after = payload(edit);
        refused(
            &[&before, &after],
            "which a revision may not change",
            witness,
        );
    }
    // Another pack: its id and its fixture change.
    let other = payload(|e| {
        *e = serde_json::from_slice(
            &std::fs::read(format!(
                "{}/fixtures/packs/temporal-leakage/experiments/random-inflates-auc.json",
                env!("CARGO_MANIFEST_DIR")
            ))
            .unwrap(),
        )
        .unwrap();
    });
    let answer = answer(&[&before, &other]);
    assert_eq!(answer["verdict"], "REJECTED");
    assert!(
        answer["refusal"]["witness"]
            .as_str()
            .unwrap()
            .starts_with("$.experiment.")
            || answer["refusal"]["witness"]
                .as_str()
                .unwrap()
                .starts_with("$.pack.")
    );
}

#[test]
fn a_design_revision_is_answered_by_the_verifier() {
    let before = payload(|_| {});
    // The design changes (the grouped arm holds out 40% of customers, C = 0.5); the claim
    // may change with it.
    let after = payload(|e| {
        e["arms"][1]["split"]["test_fraction"] = json!(0.4);
        e["model"]["c"] = json!(0.5);
        e["claim"]["at_least"] = json!(0.01);
    });
    let answer = answer(&[&before, &after]);
    let direct = counterlab::verify(&after, &bundled_packs(), &fast_options());
    assert_eq!(answer["verdict"], direct.verdict().as_str());
    assert_eq!(answer["report"]["report_hash"], direct.report_hash());
    let scopes: Vec<(&str, &str)> = answer["steps"][0]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["path"].as_str().unwrap(), c["scope"].as_str().unwrap()))
        .collect();
    assert_eq!(
        scopes,
        [
            ("$.experiment.arms[1].split.test_fraction", "design"),
            ("$.experiment.claim.at_least", "claim"),
            ("$.experiment.model.c", "design"),
        ]
    );
    assert!(answer["refusal"].is_null());
    assert_eq!(answer["revision_hash"].as_str().unwrap().len(), 64);

    // A second revision that only moves the conclusion is refused at revision 2.
    let conclusion = payload(|e| {
        e["arms"][1]["split"]["test_fraction"] = json!(0.4);
        e["model"]["c"] = json!(0.5);
        e["claim"]["at_least"] = json!(-0.2);
    });
    refused(
        &[&before, &after, &conclusion],
        "revision 2: a conclusion-only revision",
        "$.experiment.claim.at_least",
    );
}

#[test]
fn a_third_revision_and_an_unreadable_payload_are_rejected() {
    let p = |c: f64| payload(move |e| e["model"]["c"] = json!(c));
    let (a, b, c, d) = (p(1.0), p(0.5), p(0.25), p(0.125));
    refused(&[&a, &b, &c, &d], "3 revisions: at most 2", "payload 3");
    refused(&[&a, b"{not json"], "payload 1 cannot be read", "$");
    let mut broken: Value = serde_json::from_slice(&b).unwrap();
    broken["experiment"]["arms"][0]["split"]["kind"] = json!("sideways");
    let broken = serde_json::to_vec(&broken).unwrap();
    let answer = answer(&[&a, &broken]);
    assert_eq!(answer["verdict"], "REJECTED");
    assert!(answer["refusal"]["witness"]
        .as_str()
        .unwrap()
        .starts_with("$.experiment.arms[0].split"));
}

#[test]
fn the_cli_exits_as_verify_and_prints_the_witness() {
    let dir = crate::common::TempDir::new("revision-cli");
    let before = dir.path().join("before.json");
    let after = dir.path().join("after.json");
    std::fs::write(&before, payload(|_| {})).unwrap();
    std::fs::write(&after, payload(|e| e["claim"]["at_least"] = json!(-0.05))).unwrap();
    let out = counterlab(&[
        "verify-revision",
        before.to_str().unwrap(),
        after.to_str().unwrap(),
        "--permutations",
        "19",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("claim        $.experiment.claim.at_least  0.0 → -0.05"),
        "{text}"
    );
    assert!(
        text.contains("refused: revision 1: a conclusion-only revision"),
        "{text}"
    );
    let one = counterlab(&["verify-revision", before.to_str().unwrap()]);
    assert_eq!(one.status.code(), Some(2), "one payload is a usage error");
}
