//! Running experiments: validation with JSON paths, ablations, payload round trip.

use counterlab::metrics::MetricValue;
use counterlab::run::{result_hash, run_with, Payload};
use counterlab::{Experiment, Pack, RunOptions};

use crate::common::{synthetic_csv, synthetic_experiment, write_pack, TempDir};

fn synthetic_pack() -> (TempDir, Pack) {
    let root = TempDir::new("run");
    let dir = write_pack(
        root.path(),
        "synth",
        &synthetic_csv(21, 60, 6),
        &["x1", "x2", "x3"],
        Some("t"),
    );
    let pack = Pack::open(dir).unwrap();
    (root, pack)
}

fn experiment_error(json: &str) -> String {
    let (_root, pack) = synthetic_pack();
    match Experiment::from_json(json.as_bytes()) {
        Err(e) => e.to_string(),
        Ok(experiment) => run_with(&pack, &experiment, &RunOptions { threads: 1 })
            .unwrap_err()
            .to_string(),
    }
}

#[test]
fn identity_ablation_reproduces_every_arm_bit_for_bit() {
    let (_root, pack) = synthetic_pack();
    let experiment = Experiment::from_json(synthetic_experiment("synth", 7).as_bytes()).unwrap();
    let payload = run_with(&pack, &experiment, &RunOptions { threads: 1 }).unwrap();
    assert_eq!(payload.results.len(), 4);
    for (arm, result) in &payload.results {
        let identity = &result.ablations["identity"];
        assert_eq!(identity.changed_scores, 0, "{arm}");
        assert!(identity.vacuous);
        assert_eq!(identity.roc_auc_delta, Some(0.0));
        for (name, value) in &result.metrics {
            match (value, &identity.metrics[name]) {
                (MetricValue::Value(a), MetricValue::Value(b)) => {
                    assert_eq!(a.to_bits(), b.to_bits(), "{arm} {name}")
                }
                (a, b) => assert_eq!(a, b),
            }
        }
        let dropped = &result.ablations["no_x1"];
        assert!(
            dropped.changed_scores > 0,
            "{arm}: dropping the signal column must change scores"
        );
    }
}

#[test]
fn grouped_arm_has_no_entity_overlap_and_random_arm_does() {
    let (_root, pack) = synthetic_pack();
    let experiment = Experiment::from_json(synthetic_experiment("synth", 7).as_bytes()).unwrap();
    let payload = run_with(&pack, &experiment, &RunOptions { threads: 1 }).unwrap();
    assert_eq!(payload.results["entity_grouped"].overlap.entities, 0);
    assert!(payload.results["random_rows"].overlap.entities > 0);
    assert_eq!(payload.results["future"].overlap.temporal_rows, Some(0));
    let summary = &payload.results["entity_grouped"].split;
    assert_eq!(summary.test_entities, 15);
    assert_eq!(summary.train_rows + summary.test_rows, 360);
}

#[test]
fn payload_round_trips_through_json_with_the_same_hash() {
    let (_root, pack) = synthetic_pack();
    let experiment = Experiment::from_json(synthetic_experiment("synth", 3).as_bytes()).unwrap();
    let payload = run_with(&pack, &experiment, &RunOptions { threads: 2 }).unwrap();
    let text = payload.to_json_pretty().unwrap();
    let back: Payload = serde_json::from_str(&text).unwrap();
    assert_eq!(back, payload);
    assert_eq!(result_hash(&back.results).unwrap(), payload.result_hash);
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    let keys: Vec<&str> = value
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "claim",
            "experiment",
            "format",
            "kernel",
            "pack",
            "result_hash",
            "results"
        ]
    );
}

#[test]
fn a_changed_number_changes_the_result_hash() {
    let (_root, pack) = synthetic_pack();
    let experiment = Experiment::from_json(synthetic_experiment("synth", 3).as_bytes()).unwrap();
    let payload = run_with(&pack, &experiment, &RunOptions { threads: 1 }).unwrap();
    let mut results = payload.results.clone();
    let arm = results.get_mut("random_rows").unwrap();
    let MetricValue::Value(auc) = arm.metrics["roc_auc"] else {
        panic!("auc defined")
    };
    arm.metrics.insert(
        "roc_auc".into(),
        MetricValue::Value(f64::from_bits(auc.to_bits() + 1)),
    );
    assert_ne!(result_hash(&results).unwrap(), payload.result_hash);
}

#[test]
fn invalid_experiments_name_the_json_path() {
    let base = synthetic_experiment("synth", 7);
    let cases = [
        (
            base.replace("\"seed\":7", "\"seed\":7,\"colour\":1"),
            "$.colour: unknown key \"colour\"",
        ),
        (
            base.replace("counterlab.experiment/1", "counterlab.experiment/2"),
            "$.format",
        ),
        (base.replace("\"c\":1.0", "\"c\":0.0"), "$.model.c"),
        (base.replace("\"c\":1.0", "\"c\":\"one\""), "$.model.c"),
        (
            base.replacen("\"test_fraction\":0.25", "\"test_fraction\":1.5", 1),
            "$.arms[0].split.test_fraction",
        ),
        (
            base.replacen("\"test_fraction\":0.25", "\"test_fraction\":\"a\"", 1),
            "$.arms[0].split.test_fraction",
        ),
        (
            base.replacen("\"test_fraction\":0.25", "\"column\":\"is_test\"", 1),
            "$.arms[0].split: missing required key \"test_fraction\"",
        ),
        (
            base.replace("\"at_least\":0.0", "\"at_least\":0.0,\"arm\":\"x\""),
            "$.claim",
        ),
        (
            base.replace("\"name\":\"future\"", "\"name\":\"random_rows\""),
            "$.arms[2].name",
        ),
        (
            base.replace("\"kind\":\"temporal\"", "\"kind\":\"quantum\""),
            "$.arms[2].split",
        ),
        (
            base.replace("\"drop\":[\"x3\"]", "\"drop\":[\"x9\"]"),
            "$.ablations[2].drop[0]",
        ),
        (
            base.replace("\"column\":\"is_test\"", "\"column\":\"x1\""),
            "$.arms[3].split.column",
        ),
        (
            base.replace("\"higher\":\"random_rows\"", "\"higher\":\"nope\""),
            "$.claim.higher",
        ),
        (
            base.replace("\"pack\":\"synth\"", "\"pack\":\"other\""),
            "$.pack",
        ),
        (
            base.replace("\"metric\":\"roc_auc\"", "\"metric\":\"accuracy\"")
                .replace("\"roc_auc\",\"accuracy\",", "\"roc_auc\","),
            "$.claim.metric",
        ),
    ];
    for (json, expected) in cases {
        assert_ne!(json, base, "case {expected} must edit the experiment");
        let message = experiment_error(&json);
        assert!(
            message.contains(expected),
            "expected {expected:?} in {message:?}"
        );
    }
}

#[test]
fn single_class_training_rows_are_an_error_naming_the_arm() {
    let root = TempDir::new("one-class");
    let csv = "entity,label,x1,holdout\nA,0,0.5,0\nB,0,1,0\nC,1,2,1\nD,0,3,1\n";
    let pack = Pack::open(write_pack(root.path(), "p", csv, &["x1"], None)).unwrap();
    let json = r#"{"format":"counterlab.experiment/1","pack":"p","seed":1,"model":{"kind":"logistic","c":1.0},
        "arms":[{"name":"given","split":{"kind":"predefined","column":"holdout"}}],"metrics":["roc_auc"]}"#;
    let experiment = Experiment::from_json(json.as_bytes()).unwrap();
    let message = run_with(&pack, &experiment, &RunOptions { threads: 1 })
        .unwrap_err()
        .to_string();
    assert!(message.contains("\"given\""), "{message}");
}

#[test]
fn single_class_test_rows_give_undefined_auc_not_a_number() {
    let root = TempDir::new("undefined");
    let csv = "entity,label,x1,holdout\nA,0,0.5,0\nB,1,1,0\nC,1,2,1\nD,1,3,1\n";
    let pack = Pack::open(write_pack(root.path(), "p", csv, &["x1"], None)).unwrap();
    let json = r#"{"format":"counterlab.experiment/1","pack":"p","seed":1,"model":{"kind":"logistic","c":1.0},
        "arms":[{"name":"given","split":{"kind":"predefined","column":"holdout"}}],"metrics":["roc_auc","accuracy","balanced_accuracy"]}"#;
    let experiment = Experiment::from_json(json.as_bytes()).unwrap();
    let payload = run_with(&pack, &experiment, &RunOptions { threads: 1 }).unwrap();
    let metrics = &payload.results["given"].metrics;
    assert!(matches!(metrics["roc_auc"], MetricValue::Undefined { .. }));
    assert!(matches!(
        metrics["balanced_accuracy"],
        MetricValue::Undefined { .. }
    ));
    assert!(matches!(metrics["accuracy"], MetricValue::Value(_)));
    let text = payload.to_json_pretty().unwrap();
    assert!(text.contains("\"undefined\""), "{text}");
}
