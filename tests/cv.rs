//! Cross-validation arms and paired evidence: the packs' headline gap claims decided
//! through `run` then `verify`, fold invariants, and the errors a fold count can meet.

use counterlab::experiment::{Assignment, SplitSpec};
use counterlab::{run_with, Experiment, Pack, RunOptions, VerifyOptions};
use counterlab_test_support::bundled;
use serde_json::{json, Value};

use crate::common::registered;

/// `run` then `verify` (default options: K = 199, α = 0.05) of an experiment value: the
/// verdict, the claim's interval method and its CI.
fn run_and_verify(pack: &Pack, experiment: &Value) -> (String, String, [f64; 2], f64) {
    let experiment =
        Experiment::from_json(experiment.to_string().as_bytes()).expect("valid experiment");
    let payload = run_with(pack, &experiment, &RunOptions { threads: 2 }).expect("run");
    let bytes = payload.to_json_pretty().expect("payload JSON");
    let packs = bundled::packs();
    let options = VerifyOptions {
        threads: 2,
        ..VerifyOptions::default()
    };
    let report = counterlab::verify(bytes.as_bytes(), &packs, &options);
    let claim = report.claim().expect("a claim");
    (
        report.verdict().as_str().to_owned(),
        claim.interval.to_string(),
        claim.ci.expect("an interval"),
        claim.observed.expect("an observed statistic"),
    )
}

/// The headline claim with `higher`/`lower` swapped, or with another threshold.
fn with_claim(experiment: &Value, swap: bool, at_least: f64) -> Value {
    let mut e = experiment.clone();
    let claim = e["claim"].as_object_mut().expect("a claim");
    if swap {
        let higher = claim["higher"].clone();
        claim["higher"] = claim["lower"].clone();
        claim["lower"] = higher;
    }
    claim["at_least"] = json!(at_least);
    e
}

/// Supported as claimed, REJECTED with the arms swapped (the CI wholly on the wrong side),
/// INCONCLUSIVE at a threshold inside the CI; the interval is the paired one.
fn assert_decidable(pack: &str, name: &str, claimed: f64) {
    let (pack, experiment) = registered(pack, name);
    assert_eq!(experiment["claim"]["at_least"], json!(claimed), "{name}");
    let (verdict, interval, ci, observed) = run_and_verify(&pack, &experiment);
    assert_eq!(verdict, "SUPPORTS", "{name}: CI {ci:?} ({interval})");
    // Repeated cross-validation: each repeat's paired interval (customers and stores have
    // several rows: Obuchowski's clustered comparison), combined over repeats; the label
    // names the per-repeat method.
    assert_eq!(
        interval, "repeated-within-between(obuchowski-clustered-paired)",
        "{name}"
    );
    assert!(ci[0] > claimed, "{name}: CI {ci:?}");

    let (verdict, _, swapped_ci, _) =
        run_and_verify(&pack, &with_claim(&experiment, true, claimed));
    assert_eq!(verdict, "REJECTED", "{name} swapped: CI {swapped_ci:?}");
    assert!(swapped_ci[1] < claimed);

    // The observed gap lies inside its own CI.
    let (verdict, _, inside_ci, _) =
        run_and_verify(&pack, &with_claim(&experiment, false, observed));
    assert!(inside_ci[0] < observed && observed < inside_ci[1]);
    assert_eq!(verdict, "INCONCLUSIVE", "{name} at {observed}");
}

#[test]
fn entity_leakage_headline_gap_is_decided_by_cross_validation() {
    assert_decidable("entity-leakage", "random-vs-grouped", 0.10);
}

#[test]
fn temporal_leakage_headline_gap_is_decided_by_cross_validation() {
    assert_decidable("temporal-leakage", "random-vs-rolling-origin", 0.10);
}

/// The paired interval of two cross-validation arms is narrower than the sum of variances
/// the same predictions would get as independent arms.
#[test]
fn the_paired_interval_is_narrower_than_adding_variances() {
    let (pack, experiment) = registered("entity-leakage", "random-vs-grouped");
    let experiment =
        Experiment::from_json(experiment.to_string().as_bytes()).expect("valid experiment");
    let table = pack.table();
    let predictions: Vec<_> = (0..2)
        .map(|i| counterlab::run::arm_predictions(&pack, table, &experiment, i).expect("arm"))
        .collect();
    let metric = counterlab::experiment::MetricName::RocAuc;
    let paired = counterlab::stats::intervals::paired_gap(
        metric,
        &predictions[0],
        &predictions[1],
        table,
        counterlab::stats::Z95,
    )
    .expect("paired");
    let each: Vec<_> = predictions
        .iter()
        .map(|p| {
            counterlab::stats::intervals::estimate_arm(metric, p, table, counterlab::stats::Z95)
                .expect("estimate")
        })
        .collect();
    let unpaired = counterlab::stats::intervals::gap(&each[0], &each[1], counterlab::stats::Z95);
    assert_eq!(paired.value, unpaired.value);
    // Each of the 5 repeats' intervals is Obuchowski's paired one, combined over repeats.
    assert_eq!(
        paired.method.as_str(),
        "repeated-within-between(obuchowski-clustered-paired)"
    );
    assert!(paired.method.is_clustered());
    assert!(
        paired.se < 0.8 * unpaired.se,
        "paired se {} vs unpaired {}",
        paired.se,
        unpaired.se
    );
}

/// Every fold assignment, on every bundled pack with the fold count the table allows:
/// each row tested at most once (exactly once unless rolling origin's first block), no
/// entity on both sides of an `entity_k_fold` fold, rolling-origin training strictly
/// before its test rows, and the seeded assignment a function of the seed.
#[test]
fn folds_keep_their_invariants_on_every_bundled_pack() {
    let packs = bundled::packs();
    for pack in packs.iter() {
        let table = pack.table();
        for k in [2u32, 5, 7] {
            for assignment in [None, Some(Assignment::Seeded), Some(Assignment::Sklearn)] {
                let mut specs = vec![
                    SplitSpec::KFold {
                        folds: k,
                        assignment,
                        repeats: None,
                    },
                    SplitSpec::EntityKFold {
                        folds: k,
                        assignment,
                        repeats: None,
                    },
                ];
                if table.time().is_some() {
                    specs.push(SplitSpec::RollingOrigin {
                        folds: k,
                        assignment,
                        test_fraction: None,
                    });
                    specs.push(SplitSpec::RollingOrigin {
                        folds: k,
                        assignment,
                        test_fraction: Some(0.25),
                    });
                }
                for spec in specs {
                    let folds = match counterlab::split::folds(
                        table,
                        &spec,
                        11,
                        &counterlab::JsonPath::field("arms").index(0).key("split"),
                    ) {
                        Ok(mut repeats) => repeats.remove(0),
                        // A tested period of few time values cannot hold 7 blocks: an
                        // error that names the fold count, never a panic or empty fold.
                        Err(e)
                            if matches!(
                                spec,
                                SplitSpec::RollingOrigin {
                                    test_fraction: Some(_),
                                    ..
                                }
                            ) && k == 7 =>
                        {
                            assert!(e.to_string().contains("$.arms[0].split.folds"), "{e}");
                            continue;
                        }
                        Err(e) => panic!("{} {spec:?}: {e}", pack.id()),
                    };
                    assert_eq!(folds.splits.len(), k as usize);
                    for (row, fold) in folds.fold_of_row().iter().enumerate() {
                        let tested_by: Vec<usize> = (0..k as usize)
                            .filter(|&f| folds.splits[f].is_test()[row])
                            .collect();
                        assert_eq!(
                            tested_by,
                            fold.map(|f| f as usize).into_iter().collect::<Vec<_>>()
                        );
                        if !matches!(spec, SplitSpec::RollingOrigin { .. }) {
                            assert!(fold.is_some(), "{} {spec:?}: row {row} untested", pack.id());
                        }
                    }
                    for split in &folds.splits {
                        let summary = counterlab::split::overlap(table, split, &[]);
                        if matches!(spec, SplitSpec::EntityKFold { .. }) {
                            assert_eq!(summary.entities, 0, "{} {spec:?}", pack.id());
                        }
                        if matches!(spec, SplitSpec::RollingOrigin { .. }) {
                            assert_eq!(summary.temporal_rows, Some(0), "{} {spec:?}", pack.id());
                        }
                    }
                    let again =
                        counterlab::split::folds(table, &spec, 11, &counterlab::JsonPath::root())
                            .expect("folds")
                            .remove(0);
                    assert_eq!(again, folds, "deterministic");
                }
            }
        }
        // A seeded k_fold depends on the seed; the sklearn one does not.
        let seeded = |seed| {
            counterlab::split::folds(
                table,
                &SplitSpec::KFold {
                    folds: 5,
                    assignment: None,
                    repeats: None,
                },
                seed,
                &counterlab::JsonPath::root(),
            )
            .expect("folds")[0]
                .membership_hash()
        };
        assert_ne!(seeded(1), seeded(2), "{}", pack.id());
    }
}

#[test]
fn a_fold_count_the_table_cannot_fill_names_the_path() {
    let (pack, mut experiment) = registered("entity-leakage", "random-vs-grouped");
    experiment["arms"][1]["split"]["folds"] = json!(81);
    let parsed = Experiment::from_json(experiment.to_string().as_bytes()).expect("schema-valid");
    let error =
        run_with(&pack, &parsed, &RunOptions { threads: 1 }).expect_err("81 folds, 80 entities");
    let message = error.to_string();
    assert!(
        message.contains("$.arms[1].split.folds") && message.contains("there are 80"),
        "{message}"
    );
    for folds in [json!(0), json!(1), json!(101), json!(2.5), json!("5")] {
        experiment["arms"][1]["split"]["folds"] = folds.clone();
        let error = Experiment::from_json(experiment.to_string().as_bytes())
            .expect_err("refused by the schema");
        assert!(
            error.to_string().contains("$.arms[1].split.folds"),
            "{folds}: {error}"
        );
    }
}

/// A cross-validation arm's result lists its folds, whose test rows add up to the pooled
/// ones, and has no single model.
#[test]
fn a_cross_validation_result_lists_its_folds() {
    let (pack, experiment) = registered("entity-leakage", "random-vs-grouped");
    let experiment =
        Experiment::from_json(experiment.to_string().as_bytes()).expect("valid experiment");
    let payload = run_with(&pack, &experiment, &RunOptions { threads: 1 }).expect("run");
    for (name, result) in &payload.results {
        assert!(result.model.is_none(), "{name}");
        // 5 folds in each of 5 repeats, every repeat testing every row once.
        let folds = result.folds.as_ref().expect("folds");
        assert_eq!(folds.len(), 25);
        for repeat in folds.chunks(5) {
            let tested: u64 = repeat.iter().map(|f| f.split.test_rows).sum();
            assert_eq!(tested, result.split.test_rows, "{name}");
        }
        let repeats = result.repeats.as_ref().expect("repeats");
        assert_eq!(repeats.len(), 5);
        let hashes: std::collections::BTreeSet<_> =
            repeats.iter().map(|r| &r.membership_hash).collect();
        assert_eq!(hashes.len(), 5, "{name}: five different fold assignments");
        assert_eq!(repeats[0].membership_hash, result.split.membership_hash);
        // The arm's AUC is the mean of the repeats' (summed in order, divided by 5).
        let aucs: Vec<f64> = repeats
            .iter()
            .map(|r| r.metrics["roc_auc"].value().unwrap())
            .collect();
        let mean = (aucs[0] + aucs[1] + aucs[2] + aucs[3] + aucs[4]) / 5.0;
        assert_eq!(result.metrics["roc_auc"].value(), Some(mean), "{name}");
        let sd = result.between_repeat_sd.as_ref().expect("sd")["roc_auc"]
            .value()
            .unwrap();
        let var = aucs.iter().map(|a| (a - mean) * (a - mean)).sum::<f64>() / 4.0;
        assert!((sd - var.sqrt()).abs() < 1e-15, "{name}: sd {sd}");
        assert_eq!(result.split.test_rows, pack.table().n_rows() as u64);
    }
    assert_eq!(payload.results["entity_grouped"].overlap.entities, 0);
    assert_eq!(payload.results["random_rows"].overlap.entities, 80);
    let threads = run_with(&pack, &experiment, &RunOptions { threads: 3 }).expect("run");
    assert_eq!(threads.result_hash, payload.result_hash);
}

/// A boundary sweep runs cross-validation arms like single splits: every cell pools its
/// folds, and the map does not depend on the thread count.
#[test]
fn boundary_maps_accept_cross_validation_arms() {
    let packs = bundled::packs();
    let pack = packs.get("class-imbalance").expect("bundled pack");
    let mut spec = pack.manifest().boundary.clone().expect("a sweep");
    spec.permutations = 19;
    let mut experiment = Experiment::registered(pack, &spec.experiment).expect("experiment");
    experiment.arms[0].split = SplitSpec::EntityKFold {
        folds: 3,
        assignment: None,
        repeats: None,
    };
    let one = counterlab::boundary::compute_with(pack, pack.table(), &spec, &experiment, 1)
        .expect("a map");
    let two = counterlab::boundary::compute_with(pack, pack.table(), &spec, &experiment, 2)
        .expect("a map");
    assert_eq!(one.map_hash, two.map_hash);
    for cell in &one.cells {
        let result = &cell.results["held_out_accounts"];
        assert_eq!(result.folds.as_ref().map(Vec::len), Some(3));
        assert_eq!(
            result.split.test_rows, cell.rows,
            "every row of the cell out of fold"
        );
        assert!(cell.claim.is_some(), "{:?}", cell.axes);
    }
}

/// The transfer evaluator judges cross-validation arms by the same rules: on
/// temporal-leakage, rolling-origin folds have no temporal overlap and are the valid
/// choice; k-fold and entity k-fold folds train on later weeks.
#[test]
fn transfer_accepts_cross_validation_arms() {
    let from = bundled::packs_dir().join("temporal-leakage");
    let dir = std::env::temp_dir().join(format!("counterlab-cv-transfer-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("experiments")).unwrap();
    for file in ["pack.toml", "weekly_demand.csv"] {
        std::fs::copy(from.join(file), dir.join(file)).unwrap();
    }
    let mut experiment: Value = serde_json::from_slice(
        &std::fs::read(from.join("experiments/transfer-evaluation.json")).unwrap(),
    )
    .unwrap();
    experiment["arms"] = json!([
        { "name": "random_rows", "split": { "kind": "k_fold", "folds": 5 } },
        { "name": "held_out_stores", "split": { "kind": "entity_k_fold", "folds": 5 } },
        { "name": "latest_weeks", "split": { "kind": "rolling_origin", "folds": 5, "test_fraction": 0.25 } }
    ]);
    std::fs::write(
        dir.join("experiments/transfer-evaluation.json"),
        serde_json::to_vec_pretty(&experiment).unwrap(),
    )
    .unwrap();
    let pack = Pack::open(&dir).expect("copied pack");
    let evaluation = counterlab::transfer::evaluate(&pack, Some("latest-weeks"), 2)
        .expect("transfer evaluation");
    assert_eq!(evaluation.valid_choices, vec!["latest-weeks".to_owned()]);
    assert!(evaluation.answer.expect("an answer").correct);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A pack of 40 entities × 12 times in which nothing is positive before time 5 (a launch
/// before which no event could happen) and about one row in nine is positive afterwards:
/// early rolling-origin folds train on one class, and small k-folds test on one.
fn late_events_pack(name: &str) -> (std::path::PathBuf, Pack) {
    let dir = std::env::temp_dir().join(format!("counterlab-cv-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut csv = String::from("id,t,y,x1,x2\n");
    for e in 0..40u32 {
        for t in 1..=12u32 {
            let x1 = f64::from((e * 7 + t * 13) % 17) / 17.0 - 0.5;
            let x2 = f64::from((e * 11 + t * 5) % 23) / 23.0 - 0.5;
            let y = t >= 5 && ((e * 3 + t * 5) % 9 == 0 || x1 > 0.35);
            csv.push_str(&format!("e{e:02},{t},{},{x1},{x2}\n", u8::from(y)));
        }
    }
    std::fs::write(dir.join("d.csv"), &csv).expect("csv");
    let manifest = format!(
        "id = \"late-events\"\ntitle = \"late events\"\nconcept = \"temporal-leakage\"\n\n[data]\nfile = \"d.csv\"\nblake3 = \"{}\"\nentity = \"id\"\nlabel = \"y\"\npositive = \"1\"\ntime = \"t\"\nfeatures = [\"x1\", \"x2\"]\n",
        counterlab::canon::file_hash(csv.as_bytes())
    );
    std::fs::write(dir.join("pack.toml"), manifest).expect("pack.toml");
    let pack = Pack::open(&dir).expect("the pack loads");
    (dir, pack)
}

fn late_events_experiment(arms: Value, claim: Value) -> Value {
    json!({
        "format": "counterlab.experiment/1",
        "pack": "late-events",
        "seed": 3,
        "model": { "kind": "logistic", "c": 1.0 },
        "arms": arms,
        "ablations": [{ "name": "identity", "drop": [] }],
        "metrics": ["roc_auc", "accuracy"],
        "claim": claim,
    })
}

fn verify_in(dir: &std::path::Path, payload: &str) -> counterlab::Report {
    let packs = counterlab::Packs::open_folder(Some(dir), None, &Default::default())
        .expect("the one pack folder");
    let options = VerifyOptions {
        threads: 2,
        permutations: 19,
        ..VerifyOptions::default()
    };
    counterlab::verify(payload.as_bytes(), &packs, &options)
}

/// A fold whose test rows hold one class has no fold AUC (`undefined`, with the reason),
/// while the pooled out-of-fold AUC over every row stands and the payload verifies.
#[test]
fn a_test_fold_of_one_class_has_an_undefined_auc_and_the_pooled_one_stands() {
    let (dir, pack) = late_events_pack("test-fold");
    let experiment = late_events_experiment(
        json!([{ "name": "cv", "split": { "kind": "k_fold", "folds": 40 } }]),
        json!({ "kind": "metric_at_least", "metric": "roc_auc", "arm": "cv", "value": 0.5 }),
    );
    let experiment = Experiment::from_json(experiment.to_string().as_bytes()).expect("valid");
    let payload = run_with(&pack, &experiment, &RunOptions { threads: 1 }).expect("run");
    let result = &payload.results["cv"];
    let folds = result.folds.as_ref().expect("folds");
    let one_class: Vec<&str> = folds
        .iter()
        .filter_map(|f| match &f.metrics["roc_auc"] {
            counterlab::metrics::MetricValue::Undefined { undefined } => Some(undefined.as_str()),
            counterlab::metrics::MetricValue::Value(_) => None,
        })
        .collect();
    assert!(
        !one_class.is_empty(),
        "some of 40 folds of 12 rows test no positive"
    );
    assert!(
        one_class.iter().all(|r| r.contains("no positive rows")),
        "{one_class:?}"
    );
    let pooled = result.metrics["roc_auc"]
        .value()
        .expect("the pooled AUC is defined");
    assert!(pooled > 0.5, "{pooled}");

    let report = verify_in(&dir, &payload.to_json_pretty().expect("JSON"));
    let recompute = report.check("recompute.equal").expect("the check");
    assert_eq!(
        recompute.status,
        counterlab::verify::Status::Pass,
        "{recompute:?}"
    );
    assert_ne!(report.verdict().as_str(), "REJECTED");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A fold whose training rows hold one class cannot be fitted: `run` names the arm and the
/// fold, and a payload whose experiment asks for such folds is REJECTED at
/// `recompute.equal` with the same reason (its numbers cannot come from that experiment).
#[test]
fn a_training_fold_of_one_class_is_refused_naming_arm_and_fold() {
    let (dir, pack) = late_events_pack("train-fold");
    let claim = json!({ "kind": "metric_gap", "metric": "roc_auc", "higher": "random_rows",
                        "lower": "rolling_origin", "at_least": 0.0 });
    let arms = |rolling: Value| {
        json!([
            { "name": "random_rows", "split": { "kind": "k_fold", "folds": 5 } },
            { "name": "rolling_origin", "split": rolling },
        ])
    };
    // Eleven blocks of one time value: fold 0 trains on time 1 alone, all negative.
    let refused = late_events_experiment(
        arms(json!({ "kind": "rolling_origin", "folds": 11 })),
        claim.clone(),
    );
    let parsed = Experiment::from_json(refused.to_string().as_bytes()).expect("schema-valid");
    let message = run_with(&pack, &parsed, &RunOptions { threads: 1 })
        .expect_err("fold 0 trains on one class")
        .to_string();
    assert!(
        message.contains("arm \"rolling_origin\", fold 0") && message.contains("one class"),
        "{message}"
    );

    // The same payload recorded by a design that can run, its experiment then edited.
    let runnable = late_events_experiment(
        arms(json!({ "kind": "rolling_origin", "folds": 3, "test_fraction": 0.5 })),
        claim,
    );
    let parsed = Experiment::from_json(runnable.to_string().as_bytes()).expect("valid");
    let payload = run_with(&pack, &parsed, &RunOptions { threads: 1 }).expect("run");
    let mut value: Value =
        serde_json::from_str(&payload.to_json_pretty().expect("JSON")).expect("payload JSON");
    value["experiment"] = refused;
    let report = verify_in(&dir, &value.to_string());
    assert_eq!(report.verdict().as_str(), "REJECTED");
    let recompute = report.check("recompute.equal").expect("the check");
    assert_eq!(recompute.status, counterlab::verify::Status::Fail);
    let reason = recompute.reason.as_deref().unwrap_or_default();
    assert!(
        reason.contains("fold 0") && reason.contains("one class"),
        "{reason}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The seeded assignment's repeat 0 is the unrepeated split bit for bit (stream
/// `split/<kind>`), every later repeat another draw (`split/<kind>/repeat/<r>`); an
/// experiment's results with `repeats: 1` are those without `repeats`.
#[test]
fn a_seeded_repeat_zero_is_the_unrepeated_split() {
    let packs = bundled::packs();
    let pack = packs.get("entity-leakage").expect("bundled pack");
    for (once, repeated) in [
        (
            SplitSpec::KFold {
                folds: 5,
                assignment: None,
                repeats: None,
            },
            SplitSpec::KFold {
                folds: 5,
                assignment: None,
                repeats: Some(3),
            },
        ),
        (
            SplitSpec::EntityKFold {
                folds: 5,
                assignment: None,
                repeats: None,
            },
            SplitSpec::EntityKFold {
                folds: 5,
                assignment: None,
                repeats: Some(3),
            },
        ),
    ] {
        let root = counterlab::JsonPath::root();
        let one = counterlab::split::folds(pack.table(), &once, 7, &root).unwrap();
        let three = counterlab::split::folds(pack.table(), &repeated, 7, &root).unwrap();
        assert_eq!(one.len(), 1);
        assert_eq!(three.len(), 3);
        assert_eq!(three[0], one[0], "{once:?}");
        assert_ne!(three[1], three[0]);
        assert_ne!(three[2], three[1]);
    }
    let (_, mut experiment) = registered("entity-leakage", "random-vs-grouped");
    for arm in experiment["arms"].as_array_mut().unwrap() {
        arm["split"]["repeats"] = json!(1);
    }
    let with_one = Experiment::from_json(experiment.to_string().as_bytes()).unwrap();
    for arm in experiment["arms"].as_array_mut().unwrap() {
        arm["split"].as_object_mut().unwrap().remove("repeats");
    }
    let without = Experiment::from_json(experiment.to_string().as_bytes()).unwrap();
    let options = RunOptions { threads: 2 };
    assert_eq!(
        run_with(pack, &with_one, &options).unwrap().result_hash,
        run_with(pack, &without, &options).unwrap().result_hash
    );
}

/// Two drawn cross-validation arms of a gap pair repeat with repeat, so they must repeat
/// equally: refused with the path of the lower arm's repeats.
#[test]
fn a_gap_between_differently_repeated_arms_is_refused_with_its_path() {
    let (pack, mut experiment) = registered("entity-leakage", "random-vs-grouped");
    experiment["arms"][1]["split"]["repeats"] = json!(3);
    let parsed = Experiment::from_json(experiment.to_string().as_bytes()).unwrap();
    let e = parsed.check(&pack).unwrap_err().to_string();
    assert!(e.contains("$.arms[1].split.repeats"), "{e}");
}

/// The few-held-out-entities rule holds for a repeated gap too: its interval
/// (`repeated-within-between(obuchowski-clustered-paired)`) is clustered, so 12 entities, under the 20 a
/// clustered gap needs, make the claim INCONCLUSIVE with that reason, as one repeat does.
#[test]
fn a_repeated_gap_over_too_few_entities_is_inconclusive() {
    let dir = crate::common::TempDir::new("cv-few-entities");
    let csv = crate::common::synthetic_csv(5, 12, 10);
    let pack_dir =
        crate::common::write_pack(dir.path(), "few", &csv, &["x1", "x2", "x3"], Some("t"));
    let pack = Pack::open(&pack_dir).unwrap();
    let mut packs = counterlab::Packs::default();
    packs.insert(pack.clone()).unwrap();
    for repeats in [1, 3] {
        let experiment = Experiment::from_json(
            json!({
                "format": "counterlab.experiment/1",
                "pack": "few",
                "seed": 1,
                "model": { "kind": "logistic", "c": 1.0 },
                "arms": [
                    { "name": "random_rows", "split": { "kind": "k_fold", "folds": 3, "repeats": repeats } },
                    { "name": "entity_grouped", "split": { "kind": "entity_k_fold", "folds": 3, "repeats": repeats } }
                ],
                "metrics": ["roc_auc"],
                "claim": { "kind": "metric_gap", "metric": "roc_auc", "higher": "random_rows", "lower": "entity_grouped", "at_least": -0.05 }
            })
            .to_string()
            .as_bytes(),
        )
        .unwrap();
        let payload = run_with(&pack, &experiment, &RunOptions { threads: 2 }).unwrap();
        let bytes = payload.to_json_pretty().unwrap().into_bytes();
        let report = counterlab::verify(&bytes, &packs, &crate::common::fast_options());
        let claim = report.claim().expect("a claim report");
        let reason = report
            .check("claim.evidence")
            .and_then(|c| c.reason.clone())
            .unwrap_or_default();
        assert_eq!(
            report.verdict().as_str(),
            "INCONCLUSIVE",
            "{repeats}: {reason}"
        );
        assert!(
            reason.contains("too few held-out entities"),
            "{repeats}: {reason}"
        );
        if repeats > 1 {
            assert_eq!(
                claim.interval.to_string(),
                "repeated-within-between(obuchowski-clustered-paired)"
            );
        }
    }
}
