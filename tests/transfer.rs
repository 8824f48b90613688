//! Transfer tasks: the fixed evaluator marks exactly the intended choices valid, scores a
//! choice, is deterministic (threads, row order), does not drift, and the CLI's exit codes.

use counterlab::transfer;
use serde_json::json;

use crate::common::{bundled_packs, counterlab, golden_json};

fn valid(pack: &str) -> Vec<String> {
    let packs = bundled_packs();
    transfer::evaluate(packs.get(pack).unwrap(), None, 2)
        .unwrap()
        .valid_choices
}

#[test]
fn temporal_leakage_only_the_temporal_split_is_valid() {
    assert_eq!(valid("temporal-leakage"), vec!["latest-weeks".to_owned()]);
}

#[test]
fn rare_defects_only_roc_auc_separates_from_the_baseline() {
    assert_eq!(valid("rare-defects"), vec!["roc-auc".to_owned()]);
    let packs = bundled_packs();
    let e = transfer::evaluate(packs.get("rare-defects").unwrap(), Some("accuracy"), 2).unwrap();
    let accuracy = e.choices.iter().find(|c| c.id == "accuracy").unwrap();
    let s = accuracy.separation.as_ref().unwrap();
    // The accuracy baseline is the majority baseline of the same test rows.
    assert_eq!(
        Some(s.baseline),
        accuracy.metrics["majority_baseline_accuracy"].value()
    );
    assert!(s.ci[0] <= s.baseline);
    assert!(!e.answer.unwrap().correct);
}

#[test]
fn transfer_evaluations_are_deterministic_and_do_not_drift() {
    let packs = bundled_packs();
    let mut golden = serde_json::Map::new();
    let with_transfer: Vec<_> = packs
        .iter()
        .filter(|p| p.manifest().transfer.is_some())
        .collect();
    assert!(with_transfer.len() >= 2);
    for pack in with_transfer {
        let one = transfer::evaluate(pack, None, 1).unwrap();
        let two = transfer::evaluate(pack, None, 2).unwrap();
        assert_eq!(one, two, "{}: threads", pack.id());
        let reordered = pack.with_table(pack.table().reloaded_in_shuffled_order(5));
        let again = transfer::evaluate(&reordered, None, 2).unwrap();
        assert_eq!(
            one.result_hash,
            again.result_hash,
            "{}: row order",
            pack.id()
        );
        golden.insert(
            pack.id().to_owned(),
            json!({ "result_hash": one.result_hash, "valid_choices": one.valid_choices }),
        );
    }
    golden_json("transfer_hashes.json", &serde_json::Value::Object(golden));
}

#[test]
fn cli_transfer_scores_choices_with_exit_codes() {
    let right = counterlab(&["transfer", "temporal-leakage", "--choice", "latest-weeks"]);
    assert_eq!(right.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&right.stdout).contains("correct"));

    let wrong = counterlab(&[
        "transfer",
        "temporal-leakage",
        "--choice",
        "random-rows",
        "--json",
    ]);
    assert_eq!(wrong.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&wrong.stdout).unwrap();
    assert_eq!(v["format"], "counterlab.transfer/1");
    assert_eq!(
        v["answer"],
        json!({ "choice": "random-rows", "correct": false })
    );
    let random = v["choices"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "random-rows")
        .unwrap();
    assert_eq!(random["valid"], false);
    assert!(random["overlap"]["temporal_rows"].as_u64().unwrap() > 0);

    let unknown = counterlab(&["transfer", "temporal-leakage", "--choice", "guess"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("latest-weeks"));

    let none = counterlab(&["transfer", "entity-leakage", "--choice", "a"]);
    assert_eq!(none.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&none.stderr).contains("no [transfer]"));
}

/// Issue 42's loose end: `no_temporal_overlap` follows `time_kind`. The same
/// temporal-leakage task read with `time_kind = "order_within_entity"` is refused, naming
/// the key and the fix, instead of judging an order within each entity as one calendar.
#[test]
fn no_temporal_overlap_refuses_an_order_within_each_entity() {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/packs/temporal-leakage");
    let manifest = std::fs::read_to_string(dir.join("pack.toml")).unwrap();
    assert!(manifest.contains("\ntime = \"week\"\n"));
    let within = manifest.replacen(
        "\ntime = \"week\"\n",
        "\ntime = \"week\"\ntime_kind = \"order_within_entity\"\n",
        1,
    );
    let bytes = std::fs::read(dir.join("weekly_demand.csv")).unwrap();
    let pack = counterlab::Pack::from_parts(
        &dir,
        &within,
        &bytes,
        &counterlab::pack::LoadLimits::default(),
    )
    .unwrap();
    let refused = transfer::evaluate(&pack, None, 1).unwrap_err().to_string();
    assert!(
        refused.contains("data.time_kind is \"order_within_entity\"")
            && refused.contains("set data.time_kind = \"calendar\""),
        "{refused}"
    );
}
