//! Boundary maps: the `entity_overlap` split and prevalence subsampling against hand
//! counts, determinism (threads, row order), golden hashes, the bundled maps' shape, spec
//! validation, and the CLI (`boundary --json/--out/--svg/--vega`, `verify` of a map).

use counterlab::boundary::{self, BoundaryMap};
use counterlab::chart::Outcome;
use counterlab::experiment::SplitSpec;
use counterlab::model_family::ModelSummary;
use counterlab::pack::Knob;
use counterlab::split;
use serde_json::json;

use crate::common::{bundled_maps, bundled_packs, counterlab, golden_json, TempDir};

fn packs_with_boundary() -> Vec<String> {
    bundled_packs()
        .iter()
        .filter(|p| p.manifest().boundary.is_some())
        .map(|p| p.id().to_owned())
        .collect()
}

#[test]
fn entity_overlap_moves_half_the_rows_of_the_requested_share_of_test_entities() {
    let packs = bundled_packs();
    let pack = packs.get("entity-leakage").unwrap();
    let table = pack.table();
    let grouped = split::split(
        table,
        &SplitSpec::EntityGrouped { test_fraction: 0.5 },
        7,
        &counterlab::JsonPath::root(),
    )
    .unwrap();
    // Rows per entity and the grouped split's test entities, counted by hand.
    let n_entities = table.n_entities();
    let mut rows_of = vec![0usize; n_entities];
    let mut grouped_test = vec![false; n_entities];
    for (row, &e) in table.entity_of_row().iter().enumerate() {
        rows_of[e as usize] += 1;
        grouped_test[e as usize] |= grouped.is_test()[row];
    }
    let n_test_entities = grouped_test.iter().filter(|&&t| t).count();
    for overlap in [0.0, 0.25, 0.5, 0.75, 1.0] {
        let s = split::split(
            table,
            &SplitSpec::EntityOverlap {
                test_fraction: 0.5,
                overlap,
            },
            7,
            &counterlab::JsonPath::root(),
        )
        .unwrap();
        let mut train_rows = vec![0usize; n_entities];
        let mut test_rows = vec![0usize; n_entities];
        for (row, &e) in table.entity_of_row().iter().enumerate() {
            if s.is_test()[row] {
                test_rows[e as usize] += 1;
            } else {
                train_rows[e as usize] += 1;
            }
        }
        let mut shared = 0;
        for e in 0..n_entities {
            if !grouped_test[e] {
                assert_eq!(test_rows[e], 0, "a training entity gained test rows");
                continue;
            }
            assert!(test_rows[e] > 0, "a test entity lost all its test rows");
            if train_rows[e] > 0 {
                shared += 1;
                assert_eq!(train_rows[e], rows_of[e] / 2, "half the rows, rounded down");
            }
        }
        let wanted = (overlap * n_test_entities as f64).ceil() as usize;
        assert_eq!(shared, wanted, "overlap {overlap}");
        if overlap == 0.0 {
            assert_eq!(s, grouped, "overlap 0 is the entity_grouped split");
        }
    }
}

#[test]
fn prevalence_subsampling_keeps_one_class_whole_and_hits_the_target() {
    let packs = bundled_packs();
    let pack = packs.get("class-imbalance").unwrap();
    let table = pack.table();
    let n_pos = table.labels().iter().filter(|&&l| l).count();
    let n_neg = table.n_rows() - n_pos;
    for p in [0.5, 0.25, 0.1, 0.05, 0.02, 0.01] {
        let sub = boundary::at_prevalence(table, p, 0).unwrap();
        let pos = sub.labels().iter().filter(|&&l| l).count();
        let neg = sub.n_rows() - pos;
        let current = n_pos as f64 / table.n_rows() as f64;
        if p >= current {
            assert_eq!(pos, n_pos, "all positives kept at {p}");
        } else {
            assert_eq!(neg, n_neg, "all negatives kept at {p}");
        }
        let achieved = pos as f64 / sub.n_rows() as f64;
        // One row more or less of the thinned class moves the prevalence by at most this.
        let step = 1.0 / sub.n_rows() as f64;
        assert!(
            (achieved - p).abs() <= step,
            "prevalence {achieved} for target {p}"
        );
        // Same subsample from a reordered file.
        let shuffled = table.reloaded_in_shuffled_order(11);
        let again = boundary::at_prevalence(&shuffled, p, 0).unwrap();
        assert_eq!(sub.content_hash(), again.content_hash());
    }
}

/// A map is the same for any thread count and row order (checked at K = 19, on every
/// cell of every bundled sweep: neither property depends on K), and the bundled maps at
/// their own K do not drift from the golden cell and map hashes.
#[test]
fn boundary_maps_are_identical_for_threads_and_row_orders_and_do_not_drift() {
    let packs = bundled_packs();
    let ids = packs_with_boundary();
    assert!(
        ids.len() >= 2,
        "entity-leakage and class-imbalance declare [boundary]"
    );
    let mut golden = serde_json::Map::new();
    for id in &ids {
        let pack = packs.get(id).unwrap();
        let mut spec = pack.manifest().boundary.clone().unwrap();
        spec.permutations = 19;
        let experiment = counterlab::Experiment::registered(pack, &spec.experiment).unwrap();
        let one = boundary::compute_with(pack, pack.table(), &spec, &experiment, 1).unwrap();
        let two = boundary::compute_with(pack, pack.table(), &spec, &experiment, 2).unwrap();
        assert_eq!(one, two, "{id}: 1 vs 2 threads");
        let shuffled = pack.table().reloaded_in_shuffled_order(3);
        let reordered = boundary::compute_with(pack, &shuffled, &spec, &experiment, 2).unwrap();
        assert_eq!(one.map_hash, reordered.map_hash, "{id}: shuffled rows");
        assert_eq!(one.cells, reordered.cells, "{id}: shuffled rows");
        let full = &bundled_maps()[id];
        golden.insert(
            id.clone(),
            json!({
                "map_hash": full.map_hash,
                "cells": full.cells.iter().map(|c| json!([c.axes, c.outcome, c.cell_hash])).collect::<Vec<_>>(),
            }),
        );
    }
    golden_json("boundary_hashes.json", &serde_json::Value::Object(golden));
}

fn outcome(map: &BoundaryMap, axes: &[(&str, f64)]) -> Outcome {
    map.cells
        .iter()
        .find(|c| axes.iter().all(|(k, v)| c.axes[*k] == *v))
        .unwrap_or_else(|| panic!("no cell {axes:?}"))
        .outcome
}

#[test]
fn the_bundled_maps_show_where_the_claims_stop_holding() {
    let leakage = &bundled_maps()["entity-leakage"];
    assert_eq!(leakage.cells.len(), 15);
    for cell in leakage
        .cells
        .iter()
        .filter(|c| c.axes["test_entity_overlap"] == 0.0)
    {
        // No overlap: the leaky arm *is* the grouped split, so the gap is exactly 0.
        let claim = cell.claim.as_ref().unwrap();
        assert_eq!(claim.observed, Some(0.0));
        assert_eq!(
            cell.results["leaky"].split.membership_hash,
            cell.results["grouped"].split.membership_hash
        );
        assert_ne!(cell.outcome, Outcome::Supports);
    }
    assert_eq!(
        outcome(leakage, &[("test_entity_overlap", 1.0), ("c", 1.0)]),
        Outcome::Supports
    );

    let imbalance = &bundled_maps()["class-imbalance"];
    assert!(imbalance.cells.len() >= 6);
    assert_eq!(
        outcome(imbalance, &[("prevalence", 0.5)]),
        Outcome::Supports
    );
    assert_eq!(
        outcome(imbalance, &[("prevalence", 0.01)]),
        Outcome::Rejected
    );
    for cell in &imbalance.cells {
        let p = cell.positives as f64 / cell.rows as f64;
        assert!((p - cell.axes["prevalence"]).abs() <= 1.0 / cell.rows as f64);
    }

    // The trees' capacity against a random split's inflation over the latest weeks (claim
    // per cell: gap >= 0.1). Under drift the stumps inflate most: measured 0.35 at 20
    // stumps, 0.10 at 20 trees of 31 leaves.
    let capacity = &bundled_maps()["temporal-leakage"];
    assert_eq!(capacity.cells.len(), 15);
    let gap = |leaves: f64, trees: f64| {
        let axes = [("max_leaf_nodes", leaves), ("max_iter", trees)];
        let cell = capacity
            .cells
            .iter()
            .find(|c| axes.iter().all(|(k, v)| c.axes[*k] == *v))
            .unwrap();
        cell.claim.as_ref().unwrap().observed.unwrap()
    };
    assert_eq!(
        outcome(capacity, &[("max_leaf_nodes", 2.0), ("max_iter", 20.0)]),
        Outcome::Supports
    );
    assert_ne!(
        outcome(capacity, &[("max_leaf_nodes", 31.0), ("max_iter", 20.0)]),
        Outcome::Supports
    );
    assert!(gap(2.0, 20.0) > gap(31.0, 20.0) + 0.1);
    for cell in &capacity.cells {
        let leaves = cell.axes["max_leaf_nodes"];
        for result in cell.results.values() {
            let Some(ModelSummary::Gbdt(fitted)) = &result.model else {
                panic!("a tree model's summary: {:?}", result.model);
            };
            assert_eq!(fitted.trees as f64, cell.axes["max_iter"]);
            assert!(fitted.leaves as f64 <= leaves * fitted.trees as f64);
        }
    }
}

/// The trees' knobs: whole numbers in the model's range, only for a `gbdt` experiment; a
/// map's work counts each cell's own model.
#[test]
fn capacity_knobs_are_checked_and_counted_per_cell() {
    let packs = bundled_packs();
    let pack = packs.get("temporal-leakage").unwrap();
    let spec = pack.manifest().boundary.clone().unwrap();
    let experiment = counterlab::Experiment::registered(pack, &spec.experiment).unwrap();
    let manifest = pack.dir().join("pack.toml");
    boundary::check_spec(&spec, &experiment, &manifest).unwrap();
    for (value, what) in [
        (2.5, "out of range"),
        (0.0, "out of range"),
        (1001.0, "out of range"),
    ] {
        let mut bad = spec.clone();
        bad.axes[1].values[0] = value;
        let e = boundary::check_spec(&bad, &experiment, &manifest)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("boundary.axes[1].values[0]") && e.contains(what),
            "{value}: {e}"
        );
    }
    let mut one_leaf = spec.clone();
    one_leaf.axes[0].values[0] = 1.0;
    let e = boundary::check_spec(&one_leaf, &experiment, &manifest)
        .unwrap_err()
        .to_string();
    assert!(e.contains("boundary.axes[0].values[0] = 1"), "{e}");
    let mut logistic = experiment.clone();
    logistic.model = counterlab::experiment::ModelSpec::logistic();
    let e = boundary::check_spec(&spec, &logistic, &manifest)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("boundary.axes[0]") && e.contains("not gbdt"),
        "{e}"
    );

    // Work: the sum of each cell's, so a map over two max_iter values costs what the two
    // one-value maps cost together (not twice the base model's).
    let table = pack.table();
    let with = |trees: &[f64]| {
        let mut s = spec.clone();
        s.axes[1].values = trees.to_vec();
        boundary::work_units(&s, &experiment, table)
    };
    assert_eq!(with(&[5.0, 100.0]), with(&[5.0]) + with(&[100.0]));
    assert!(with(&[100.0]) > 10 * with(&[5.0]) / 2);
}

#[test]
fn boundary_specs_are_checked_with_the_key_named() {
    let packs = bundled_packs();
    let pack = packs.get("entity-leakage").unwrap();
    let spec = pack.manifest().boundary.clone().unwrap();
    let experiment = counterlab::Experiment::registered(pack, &spec.experiment).unwrap();
    let manifest = pack.dir().join("pack.toml");
    boundary::check_spec(&spec, &experiment, &manifest).unwrap();

    let mut no_arm = spec.clone();
    no_arm.axes[0].arm = None;
    let e = boundary::check_spec(&no_arm, &experiment, &manifest)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("boundary.axes[0]") && e.contains("needs an arm"),
        "{e}"
    );

    let mut bad_c = spec.clone();
    bad_c.axes[1].values[0] = -1.0;
    let e = boundary::check_spec(&bad_c, &experiment, &manifest)
        .unwrap_err()
        .to_string();
    assert!(e.contains("boundary.axes[1].values[0]"), "{e}");

    let mut three = spec.clone();
    three.axes.push(three.axes[1].clone());
    three.axes[2].knob = Knob::Prevalence;
    three.axes[2].values = vec![0.5];
    let e = boundary::check_spec(&three, &experiment, &manifest)
        .unwrap_err()
        .to_string();
    assert!(e.contains("one or two"), "{e}");

    let mut no_claim = experiment.clone();
    no_claim.claim = None;
    let e = boundary::check_spec(&spec, &no_claim, &manifest)
        .unwrap_err()
        .to_string();
    assert!(e.contains("makes no claim"), "{e}");
}

#[test]
fn cli_boundary_writes_a_map_that_verify_supports_and_charts_that_parse() {
    let dir = TempDir::new("boundary-cli");
    let out = dir.path().join("map.json");
    let svg = dir.path().join("map.svg");
    let vega = dir.path().join("map.vl.json");
    let o = counterlab(&[
        "boundary",
        "entity-leakage",
        "--out",
        out.to_str().unwrap(),
        "--svg",
        svg.to_str().unwrap(),
        "--vega",
        vega.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("test_entity_overlap") && text.contains("map_hash"),
        "{text}"
    );

    let map: BoundaryMap = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(map.format, boundary::BOUNDARY_FORMAT);
    let json = counterlab(&["boundary", "entity-leakage", "--json"]);
    let printed: BoundaryMap = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(printed.map_hash, map.map_hash);

    let v = counterlab(&["verify", out.to_str().unwrap(), "--json"]);
    assert_eq!(
        v.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&v.stdout)
    );
    let report: serde_json::Value = serde_json::from_slice(&v.stdout).unwrap();
    assert_eq!(report["verdict"], "SUPPORTS");
    let ids: Vec<&str> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, counterlab::verify::BOUNDARY_CHECK_IDS);

    let svg_text = std::fs::read_to_string(&svg).unwrap();
    let doc = roxmltree::Document::parse(&svg_text).expect("the SVG is XML");
    let texts: String = doc
        .descendants()
        .filter_map(|n| n.text())
        .collect::<Vec<_>>()
        .join(" ");
    assert!(texts.contains(&map.boundary.title), "title missing");
    assert!(
        texts.contains("test entities also in training"),
        "x axis label"
    );
    assert!(texts.contains("C"), "y axis label");
    assert!(
        texts.contains("SUPPORTS") && texts.contains("INCONCLUSIVE"),
        "legend"
    );

    let spec: serde_json::Value = serde_json::from_slice(&std::fs::read(&vega).unwrap()).unwrap();
    assert!(spec["$schema"].as_str().unwrap().contains("vega-lite/v5"));
    let values = spec["data"]["values"].as_array().unwrap();
    assert_eq!(values.len(), map.cells.len());
    for (row, cell) in values.iter().zip(&map.cells) {
        assert_eq!(row["cell_hash"], json!(cell.cell_hash));
    }
}

#[test]
fn cli_boundary_of_a_pack_without_a_sweep_is_a_data_error() {
    let o = counterlab(&["boundary", "rare-defects"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no [boundary]"));
    let o = counterlab(&["boundary", "no-such-pack"]);
    assert_eq!(o.status.code(), Some(2));
}
