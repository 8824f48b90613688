//! Gap claims that bound the gap from above (`at_most`: "no material gap") or on both
//! sides (`within`: equivalence), beside `at_least` (issue 32, item 5).
//!
//! Every expected verdict here comes from where an interval lies against a threshold, by
//! the rules of docs/VERDICTS.md ("Outcome"): either an interval a bundled payload's
//! `expected.toml` documents (written by hand when it was recorded), or the interval the
//! verifier reports for the same two arms under the `at_least` claim the pack registers.
//! A bound changes only the rule applied to that interval, never the interval.

use std::path::Path;

use counterlab::design::{claim_form, design_hash};
use counterlab::experiment::{Claim, GapBound};
use counterlab::{boundary, run_with, transfer, Experiment, Pack, RunOptions};
use counterlab_test_support::bundled;
use serde_json::{json, Value};

use crate::common::{counterlab, fast_options, registered, TempDir};
use crate::schema::Schema;

/// `run` then `verify` (K = 19, one row-order shuffle) of an experiment value: the report
/// as JSON, checked against docs/report.schema.json.
fn verified(pack: &Pack, experiment: &Value) -> Value {
    let experiment =
        Experiment::from_json(experiment.to_string().as_bytes()).expect("valid experiment");
    let payload = run_with(pack, &experiment, &RunOptions { threads: 2 }).expect("run");
    let bytes = payload.to_json_pretty().expect("payload JSON");
    let report = counterlab::verify(bytes.as_bytes(), &bundled::packs(), &fast_options());
    let report = report.to_json();
    Schema::load("report.schema.json").assert_valid(&report, "the report");
    report
}

/// The experiment with its gap claim's bound replaced by `key: value`.
fn with_bound(experiment: &Value, key: &str, value: f64) -> Value {
    let mut e = experiment.clone();
    let claim = e["claim"].as_object_mut().expect("a claim");
    for bound in ["at_least", "at_most", "within"] {
        claim.remove(bound);
    }
    claim.insert(key.to_owned(), json!(value));
    e
}

/// The experiment with its gap claim's `higher` and `lower` swapped: the gap negated.
fn swapped(experiment: &Value) -> Value {
    let mut e = experiment.clone();
    let claim = e["claim"].as_object_mut().expect("a claim");
    let higher = claim["higher"].clone();
    claim["higher"] = claim["lower"].clone();
    claim["lower"] = higher;
    e
}

fn ci(report: &Value) -> [f64; 2] {
    let ci = &report["claim"]["ci"];
    [ci[0].as_f64().expect("low"), ci[1].as_f64().expect("high")]
}

fn check<'r>(report: &'r Value, id: &str) -> &'r Value {
    report["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .find(|c| c["id"] == id)
        .expect("every check is listed")
}

/// What a report's claim says of an `at_most` / `within` bound: the bound named, no
/// p-value and no null (the interval alone decides), the statistic as an `at_least`
/// claim writes it, and the same interval.
fn assert_interval_only(report: &Value, bound: &str, threshold: f64, at_least: &Value) {
    let claim = &report["claim"];
    assert_eq!(claim["bound"], bound, "{claim}");
    assert_eq!(claim["threshold"], json!(threshold), "{claim}");
    assert_eq!(claim["p_value"], Value::Null, "{claim}");
    assert_eq!(claim["permutations"], 0, "{claim}");
    assert_eq!(claim["null"], "none", "{claim}");
    assert_eq!(claim["statistic"], at_least["claim"]["statistic"]);
    assert_eq!(claim["interval"], at_least["claim"]["interval"]);
    assert_eq!(ci(report), ci(at_least), "the same two-sided interval");
}

/// `at_most x`: SUPPORTS when the interval lies below x, REJECTED when it lies above x,
/// INCONCLUSIVE when it straddles x.
#[test]
fn at_most_gap_claims_are_decided_by_where_the_interval_lies() {
    // entity-leakage's random-vs-grouped claims a gap of at least 0.10 and is SUPPORTED
    // (its expected.toml: the paired clustered CI lies above 0.10).
    let (pack, experiment) = registered("entity-leakage", "random-vs-grouped");
    let at_least = verified(&pack, &experiment);
    assert_eq!(at_least["verdict"], "SUPPORTS", "{}", at_least["claim"]);
    assert!(
        at_least["claim"].get("bound").is_none(),
        "an at_least claim's report has no bound key: {}",
        at_least["claim"]
    );
    let [low, high] = ci(&at_least);
    assert!(low > 0.10);

    // So the interval lies wholly above 0.02: "no material gap" is contradicted.
    let report = verified(&pack, &with_bound(&experiment, "at_most", 0.02));
    assert_eq!(report["verdict"], "REJECTED", "{}", report["claim"]);
    assert_eq!(report["claim"]["outcome"], "contradicts");
    assert_interval_only(&report, "at_most", 0.02, &at_least);
    let evidence = check(&report, "claim.evidence");
    assert_eq!(evidence["status"], "fail", "{evidence}");
    assert_eq!(
        evidence["counterexamples"][0]["expected"], "CI below 0.02",
        "the message says what an at_most claim needed: {evidence}"
    );

    // A gap of about 0.26 (expected.toml) with an interval ending far below 0.9: the
    // interval alone would support "at most 0.9", but 0.9 is above the materiality ceiling
    // of ROC AUC (0.1, docs/VERDICTS.md "Material margins"): vacuous, INCONCLUSIVE.
    assert!(high < 0.9, "{high}");
    let report = verified(&pack, &with_bound(&experiment, "at_most", 0.9));
    assert_eq!(report["verdict"], "INCONCLUSIVE", "{}", report["claim"]);
    assert_eq!(report["claim"]["outcome"], "vacuous");
    assert_eq!(report["claim"]["bound"], "at_most");
    assert!(
        report["reasons"]
            .to_string()
            .contains("the margin 0.9 at $.claim.at_most is above the materiality ceiling"),
        "{}",
        report["reasons"]
    );

    // Whole accounts in five folds against ten (class-imbalance): a fifth less training
    // data per fit on a pack with thousands of rows, so the paired gap is small, its
    // interval inside ±0.02 (the `within` test below), so below 0.02: SUPPORTS.
    let pack = Pack::open(bundled::packs_dir().join("class-imbalance")).expect("bundled pack");
    let report = verified(&pack, &with_bound(&five_and_ten_folds(), "at_most", 0.02));
    assert_eq!(report["verdict"], "SUPPORTS", "{}", report["claim"]);
    assert_eq!(report["claim"]["outcome"], "supports");
    assert!(ci(&report)[1] < 0.02, "{}", report["claim"]);

    // entity-leakage's random-vs-grouped-one-split: "the gap (0.26) is probably above
    // 0.10, but with 20 held-out customers the clustered CI straddles 0.10"
    // (expected.toml), so at most 0.1 — the ceiling itself — is neither shown nor refuted.
    let (pack, experiment) = registered("entity-leakage", "random-vs-grouped-one-split");
    let at_least = verified(&pack, &experiment);
    let [low, high] = ci(&at_least);
    assert!(low < 0.1 && 0.1 < high, "{low} {high}");
    let report = verified(&pack, &with_bound(&experiment, "at_most", 0.1));
    assert_eq!(report["verdict"], "INCONCLUSIVE", "{}", report["claim"]);
    assert_interval_only(&report, "at_most", 0.1, &at_least);
    let reasons = report["reasons"].to_string();
    assert!(
        reasons.contains("does not lie entirely on the claimed side of 0.1"),
        "{reasons}"
    );
    assert!(
        !reasons.contains("p ="),
        "no p-value stands against it: {reasons}"
    );
}

/// Entity-grouped 5-fold and 10-fold arms of class-imbalance, `within 0.02`: two designs
/// that differ (two arms that differ only in the assignment of accounts to folds are one
/// design, whose gap claim is vacuous: VERDICTS.md "Vacuous claims").
fn five_and_ten_folds() -> Value {
    json!({
        "format": "counterlab.experiment/1", "pack": "class-imbalance", "seed": 7,
        "model": { "kind": "logistic", "c": 1.0 },
        "arms": [
            { "name": "five_folds", "split": { "kind": "entity_k_fold", "folds": 5 } },
            { "name": "ten_folds", "split": { "kind": "entity_k_fold", "folds": 10 } }
        ],
        "ablations": [{ "name": "identity", "drop": [] }],
        "metrics": ["roc_auc"],
        "claim": { "kind": "metric_gap", "metric": "roc_auc", "higher": "five_folds", "lower": "ten_folds", "within": 0.02 }
    })
}

/// `within m`: SUPPORTS when the interval lies inside (−m, m), REJECTED when it lies wholly
/// above m or wholly below −m, INCONCLUSIVE otherwise.
#[test]
fn within_gap_claims_support_inside_the_margin_and_reject_outside_it() {
    // The interval [0.13, 0.22] of expected.toml (temporal-leakage, random rows over the
    // latest weeks).
    let (pack, experiment) = registered("temporal-leakage", "random-inflates-auc-by-015");
    let at_least = verified(&pack, &experiment);
    let [low, high] = ci(&at_least);
    assert!(0.1 < low && high < 0.3, "{low} {high}");

    // Inside (−0.3, 0.3), but 0.3 is above the materiality ceiling 0.1 of ROC AUC: vacuous.
    let report = verified(&pack, &with_bound(&experiment, "within", 0.3));
    assert_eq!(report["verdict"], "INCONCLUSIVE", "{}", report["claim"]);
    assert_eq!(report["claim"]["outcome"], "vacuous");
    assert!(
        report["reasons"]
            .to_string()
            .contains("the margin 0.3 at $.claim.within is above the materiality ceiling"),
        "{}",
        report["reasons"]
    );

    // Wholly above 0.1.
    let report = verified(&pack, &with_bound(&experiment, "within", 0.1));
    assert_eq!(report["verdict"], "REJECTED", "{}", report["claim"]);
    assert_eq!(report["claim"]["outcome"], "contradicts");
    let evidence = check(&report, "claim.evidence");
    assert_eq!(
        evidence["counterexamples"][0]["expected"],
        "CI inside (-0.1, 0.1)"
    );

    // The arms swapped: the gap and its interval negated, [−0.22, −0.13], wholly below
    // −0.1, and wholly below 0.
    let negated = swapped(&experiment);
    let report = verified(&pack, &with_bound(&negated, "within", 0.1));
    assert_eq!(report["verdict"], "REJECTED", "{}", report["claim"]);
    let [neg_low, neg_high] = ci(&report);
    assert!((neg_low + high).abs() < 1e-12 && (neg_high + low).abs() < 1e-12);
    let report = verified(&pack, &with_bound(&negated, "at_most", 0.0));
    assert_eq!(report["verdict"], "SUPPORTS", "{}", report["claim"]);

    // entity-leakage's one split per arm: the CI straddles 0.10 (expected.toml), its
    // lower end inside (−0.1, 0.1): neither inside the margin nor outside it.
    let (one_split_pack, one_split) = registered("entity-leakage", "random-vs-grouped-one-split");
    let report = verified(&one_split_pack, &with_bound(&one_split, "within", 0.1));
    assert_eq!(report["verdict"], "INCONCLUSIVE", "{}", report["claim"]);
    let reasons = report["reasons"].to_string();
    assert!(
        reasons.contains("does not lie entirely inside (-0.1, 0.1)"),
        "{reasons}"
    );

    // Whole accounts in five folds against ten (class-imbalance): both arms score every
    // row once, by a model that never saw its account, trained on 80% or 90% of the
    // accounts: the paired gap is small, well inside ±0.02.
    let pack = Pack::open(bundled::packs_dir().join("class-imbalance")).expect("bundled pack");
    let report = verified(&pack, &five_and_ten_folds());
    assert_eq!(report["verdict"], "SUPPORTS", "{}", report["claim"]);
    let [low, high] = ci(&report);
    assert!(-0.02 < low && high < 0.02, "{low} {high}");
    assert_eq!(report["claim"]["bound"], "within");
    assert!(
        report["claim"]["interval"]
            .as_str()
            .unwrap()
            .ends_with("-paired"),
        "{}",
        report["claim"]
    );
}

/// A ROC AUC gap lies in [−1, 1]: `at_most 1` cannot be wrong, so it is INCONCLUSIVE
/// (vacuous), as `at_least -1` is.
#[test]
fn an_at_most_bound_at_the_top_of_the_range_is_vacuous() {
    let (pack, experiment) = registered("entity-leakage", "random-vs-grouped-one-split");
    let report = verified(&pack, &with_bound(&experiment, "at_most", 1.0));
    assert_eq!(report["verdict"], "INCONCLUSIVE");
    assert_eq!(report["claim"]["outcome"], "vacuous");
    assert_eq!(report["claim"]["bound"], "at_most");
    let reasons = report["reasons"].to_string();
    assert!(
        reasons.contains("the claim that it is at most 1"),
        "{reasons}"
    );
}

/// The schema and the experiment's own checks refuse a gap with two bounds, with none, and
/// a `within` margin that is not above 0, each with its JSON path.
#[test]
fn a_gap_takes_exactly_one_bound_and_a_positive_margin() {
    let (_, experiment) = registered("entity-leakage", "random-vs-grouped");
    let refused = |edit: &dyn Fn(&mut Value)| {
        let mut e = experiment.clone();
        edit(&mut e);
        Experiment::from_json(e.to_string().as_bytes())
            .expect_err("refused")
            .to_string()
    };
    let two = refused(&|e| e["claim"]["at_most"] = json!(0.02));
    assert!(
        two.starts_with("experiment $.claim: ")
            && two.contains("exactly one required: bound at_least; bound at_most"),
        "{two}"
    );
    let three = refused(&|e| {
        e["claim"]["at_most"] = json!(0.02);
        e["claim"]["within"] = json!(0.02);
    });
    assert!(
        three.contains("matches 3 of the 3 allowed forms"),
        "{three}"
    );
    let none = refused(&|e| {
        e["claim"].as_object_mut().unwrap().remove("at_least");
    });
    assert!(none.starts_with("experiment $.claim: "), "{none}");
    for key in ["at_least", "at_most", "within"] {
        assert!(
            none.contains(&format!("missing required key \"{key}\"")),
            "{none}"
        );
    }
    for margin in [0.0, -0.05] {
        let e = refused(&|e| {
            let claim = e["claim"].as_object_mut().unwrap();
            claim.remove("at_least");
            claim.insert("within".into(), json!(margin));
        });
        assert!(
            e.starts_with("experiment $.claim.within: ") && e.contains("is not above 0"),
            "{e}"
        );
    }
    // A one-arm claim takes none of them.
    let one_arm = refused(&|e| {
        e["claim"] = json!({"kind": "metric_at_most", "metric": "roc_auc", "arm": "random_rows", "value": 0.9, "within": 0.1});
    });
    assert!(
        one_arm.starts_with("experiment $.claim.within: unknown key"),
        "{one_arm}"
    );

    // Without the schema (a claim read on its own, an experiment built in code), the
    // conversion and the experiment's checks refuse the same.
    let two = serde_json::from_value::<Claim>(json!({"kind": "metric_gap", "metric": "roc_auc",
        "higher": "a", "lower": "b", "at_least": 0.0, "within": 0.1}))
    .expect_err("two bounds")
    .to_string();
    assert!(
        two.contains("exactly one of `at_least`, `at_most`, `within`"),
        "{two}"
    );
    let none = serde_json::from_value::<Claim>(
        json!({"kind": "metric_gap", "metric": "roc_auc", "higher": "a", "lower": "b"}),
    )
    .expect_err("no bound")
    .to_string();
    assert!(none.contains("needs one of"), "{none}");
    let mut built = Experiment::from_json(experiment.to_string().as_bytes()).unwrap();
    let Some(Claim::MetricGap { bound, .. }) = &mut built.claim else {
        panic!("a gap claim");
    };
    *bound = GapBound::Within(0.0);
    let e = built
        .check_structure()
        .expect_err("a margin of 0")
        .to_string();
    assert!(
        e.starts_with("experiment $.claim.within: must be above 0"),
        "{e}"
    );
}

/// `verify` refuses a payload whose claim has two bounds at `payload.schema`, with the
/// claim's path: REJECTED, nothing recomputed.
#[test]
fn verify_rejects_a_payload_whose_gap_has_two_bounds() {
    let path = bundled::packs_dir().join("entity-leakage/payloads/random-vs-grouped.json");
    let mut payload: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    payload["experiment"]["claim"]["within"] = json!(0.02);
    payload["claim"]["within"] = json!(0.02);
    let bytes = serde_json::to_vec(&payload).unwrap();
    let report = counterlab::verify(&bytes, &bundled::packs(), &fast_options()).to_json();
    assert_eq!(report["verdict"], "REJECTED");
    let schema = check(&report, "payload.schema");
    assert_eq!(schema["status"], "fail", "{schema}");
    // The schema's first violation in document order, keys sorted: `claim` comes before
    // `experiment`.
    let witness = &schema["counterexamples"][0]["witness"]["path"];
    assert_eq!(witness, "$.claim", "{schema}");
    assert_eq!(check(&report, "recompute.equal")["status"], "skipped");
}

/// Two claims that differ only in their bound are two designs; the bound's key and value
/// are in the normal form.
#[test]
fn the_design_normal_form_keeps_the_bound_and_its_value() {
    let (pack, experiment) = registered("entity-leakage", "random-vs-grouped");
    let features = &pack.manifest().data.features;
    let parse = |e: &Value| Experiment::from_json(e.to_string().as_bytes()).unwrap();
    let forms: Vec<(String, Value)> = [
        with_bound(&experiment, "at_least", 0.02),
        with_bound(&experiment, "at_most", 0.02),
        with_bound(&experiment, "within", 0.02),
        with_bound(&experiment, "within", 0.03),
    ]
    .iter()
    .map(|e| {
        let e = parse(e);
        (
            design_hash(&e, features),
            claim_form(e.claim.as_ref().unwrap(), &e),
        )
    })
    .collect();
    for (i, (hash, _)) in forms.iter().enumerate() {
        for (other, _) in &forms[i + 1..] {
            assert_ne!(hash, other, "design {i} shares a hash");
        }
    }
    assert_eq!(forms[1].1["at_most"], json!(0.02), "{}", forms[1].1);
    assert_eq!(forms[2].1["within"], json!(0.02), "{}", forms[2].1);
    assert!(forms[1].1.get("at_least").is_none());
    // Names are not the design: renaming an arm keeps the hash, bound and all.
    let mut renamed = with_bound(&experiment, "at_most", 0.02);
    renamed["arms"][0]["name"] = json!("rows");
    renamed["claim"]["higher"] = json!("rows");
    assert_eq!(design_hash(&parse(&renamed), features), forms[1].0);
}

/// A boundary map decides an `at_most` gap in every cell by the same rules, with no null.
#[test]
fn a_boundary_map_decides_an_at_most_gap_in_each_cell() {
    let packs = bundled::packs();
    let pack = packs.get("entity-leakage").unwrap();
    let mut spec = pack.manifest().boundary.clone().unwrap();
    // The overlap axis at its two ends (C stays the experiment's 1.0).
    spec.axes.truncate(1);
    assert_eq!(spec.axes[0].knob.as_str(), "test_entity_overlap");
    spec.axes[0].values = vec![0.0, 1.0];
    spec.permutations = 19;
    let mut experiment = Experiment::registered(pack, &spec.experiment).unwrap();
    let Some(Claim::MetricGap { bound, .. }) = &mut experiment.claim else {
        panic!("the map claims a gap");
    };
    // A margin (x > 0): `at_most 0` is decided as the mirrored `at_least 0` since
    // verifier/10 (one statement, one form), with a null.
    *bound = GapBound::AtMost(0.05);
    let map = boundary::compute_with(pack, pack.table(), &spec, &experiment, 2).unwrap();
    let cell = |overlap: f64| {
        map.cells
            .iter()
            .find(|c| c.axes["test_entity_overlap"] == overlap)
            .unwrap()
    };
    for c in &map.cells {
        let claim = c.claim.as_ref().unwrap();
        assert_eq!(claim.bound, Some(counterlab::stats::Side::AtMost));
        assert_eq!((claim.p_value, claim.null), (None, None), "no null runs");
    }
    // No overlap: the leaky arm is the grouped split (an `entity_overlap` of overlap 0 is
    // it exactly), so both arms give every row the same score: the gap is zero by
    // construction, a vacuous claim (verifier/10), not one the data decide.
    let none = cell(0.0);
    assert_eq!(none.claim.as_ref().unwrap().observed, Some(0.0));
    assert_eq!(
        none.claim.as_ref().unwrap().outcome,
        counterlab::stats::ClaimOutcome::Vacuous
    );
    assert_eq!(none.outcome, counterlab::chart::Outcome::Inconclusive);
    // Full overlap at C = 1: the bundled map SUPPORTS the gap ≥ 0 there
    // (tests/boundary.rs) with an interval above 0.05, which contradicts "at most 0.05".
    let full = cell(1.0);
    assert!(full.claim.as_ref().unwrap().ci.unwrap()[0] > 0.05);
    assert_eq!(full.outcome, counterlab::chart::Outcome::Rejected);
    let svg = boundary::chart_svg(&map);
    assert!(svg.contains("≤ 0.05"), "the chart says at most");

    // A margin above the materiality ceiling of ROC AUC (0.1) is vacuous in every cell
    // whose interval does not lie wholly above it (issue 42, item 6), with the margin's
    // JSON path in the experiment file.
    let Some(Claim::MetricGap { bound, .. }) = &mut experiment.claim else {
        unreachable!()
    };
    *bound = GapBound::AtMost(0.5);
    let map = boundary::compute_with(pack, pack.table(), &spec, &experiment, 2).unwrap();
    assert!(full.claim.as_ref().unwrap().ci.unwrap()[0] < 0.5);
    for c in &map.cells {
        assert_eq!(
            c.claim.as_ref().unwrap().outcome,
            counterlab::stats::ClaimOutcome::Vacuous,
            "{c:?}"
        );
        assert_eq!(c.outcome, counterlab::chart::Outcome::Inconclusive);
    }
    let reason = cell_reason(&map, 1.0);
    assert!(
        reason.contains(
            "the margin 0.5 at $.claim.at_most is above the materiality ceiling 0.1 of roc_auc"
        ),
        "{reason}"
    );
}

/// The reason of the map's cell at `test_entity_overlap` = `overlap`.
fn cell_reason(map: &boundary::BoundaryMap, overlap: f64) -> String {
    map.cells
        .iter()
        .find(|c| c.axes["test_entity_overlap"] == overlap)
        .and_then(|c| c.reason.clone())
        .unwrap_or_default()
}

/// A transfer task whose experiment makes an `at_most` gap claim loads and runs: transfer
/// judges its choices by their own rule (the claim is not read), as with any claim.
#[test]
fn a_transfer_task_whose_experiment_claims_no_material_gap_runs() {
    let dir = TempDir::new("gap-bounds-transfer");
    let source = bundled::packs_dir().join("temporal-leakage");
    let pack_dir = dir.path().join("temporal-leakage");
    std::fs::create_dir_all(pack_dir.join("experiments")).unwrap();
    let manifest = std::fs::read_to_string(source.join("pack.toml")).unwrap();
    std::fs::write(pack_dir.join("pack.toml"), &manifest).unwrap();
    std::fs::copy(
        source.join("weekly_demand.csv"),
        pack_dir.join("weekly_demand.csv"),
    )
    .unwrap();
    let (_, mut experiment) = registered("temporal-leakage", "transfer-evaluation");
    experiment["claim"] = json!({"kind": "metric_gap", "metric": "roc_auc",
        "higher": "random_rows", "lower": "latest_weeks", "at_most": 0.02});
    std::fs::write(
        pack_dir.join("experiments/transfer-evaluation.json"),
        experiment.to_string(),
    )
    .unwrap();
    let pack = Pack::open(&pack_dir).unwrap();
    let registered = Experiment::registered(&pack, "transfer-evaluation").unwrap();
    assert!(matches!(
        registered.claim,
        Some(Claim::MetricGap {
            bound: GapBound::AtMost(_),
            ..
        })
    ));
    // As the bundled task (tests/transfer.rs): only the temporal split is valid.
    let evaluation = transfer::evaluate(&pack, Some("latest-weeks"), 2).unwrap();
    assert_eq!(evaluation.valid_choices, vec!["latest-weeks".to_owned()]);
    assert!(evaluation.answer.unwrap().correct);
}

/// `verify::work_units` counts no claim null for a gap bound without a p-value: one row
/// null (the chance check's) over every arm instead of two; it counts the margin
/// safeguard's draw of the claimed arms instead.
#[test]
fn the_work_budget_counts_no_null_for_an_at_most_gap() {
    let (pack, experiment) = registered("entity-leakage", "random-vs-grouped");
    let options = fast_options();
    let work = |e: &Value| {
        let e = Experiment::from_json(e.to_string().as_bytes()).unwrap();
        counterlab::verify::work_units(&e, pack.table(), &options)
    };
    let parsed = Experiment::from_json(experiment.to_string().as_bytes()).unwrap();
    // A null fits a repeated arm's first repeat only.
    let one_null = options.permutations as u64
        * counterlab::budget::null_arm_fits(&parsed)
        * counterlab::budget::work_per_fit(&parsed, pack.table());
    let at_least = work(&experiment);
    // The margin safeguard's own draw of the two claimed arms (stats::margin): 5 folds ×
    // 5 repeats each, counted once.
    let redraw = 2 * 5 * 5 * counterlab::budget::work_per_fit(&parsed, pack.table());
    for bound in ["at_most", "within"] {
        let margin = with_bound(&experiment, bound, 0.02);
        let parsed = Experiment::from_json(margin.to_string().as_bytes()).unwrap();
        assert_eq!(counterlab::stats::margin::redraw_fits(&parsed), 2 * 5 * 5);
        assert_eq!(work(&margin), at_least - one_null + redraw, "{bound}");
    }
}

/// `init` writes, beside each starter, its no-material-gap sibling (same arms, `at_most`
/// the documented margin), and every command it prints works as printed.
#[test]
fn init_writes_a_no_material_gap_starter_whose_printed_commands_work() {
    let dir = TempDir::new("gap-bounds-init");
    let data =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/real/respiratory/respiratory.csv");
    let out = dir.path().join("resp");
    let init = counterlab(&[
        "init",
        data.to_str().unwrap(),
        "--entity",
        "patient",
        "--label",
        "outcome",
        "--positive",
        "1",
        "--time",
        "visit",
        // Read as calendar time on purpose: then init writes the rolling-origin starter too.
        "--time-kind",
        "calendar",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8(init.stdout).unwrap();
    assert_eq!(init.status.code(), Some(0), "{stdout}");
    for starter in ["random-vs-grouped", "random-vs-rolling-origin"] {
        let read = |name: &str| -> Value {
            let path = out.join(format!("experiments/{name}.json"));
            serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
        };
        let original = read(starter);
        let sibling = read(&format!("{starter}-no-material-gap"));
        assert_eq!(sibling["arms"], original["arms"], "{starter}");
        assert_eq!(
            sibling["claim"]["at_most"],
            json!(counterlab::init::MATERIAL_MARGIN)
        );
        assert_eq!(
            counterlab::init::MATERIAL_MARGIN,
            0.02,
            "the documented default"
        );
        assert!(sibling["claim"].get("at_least").is_none());
        assert_eq!(
            with_bound(&sibling, "at_least", 0.0),
            original,
            "{starter}: nothing else differs"
        );
    }
    // The commands under "next:", run as printed from a working folder.
    let work = dir.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    let commands: Vec<&str> = stdout
        .lines()
        .skip_while(|l| *l != "next:")
        .skip(1)
        .map(str::trim)
        .collect();
    assert_eq!(
        commands.len(),
        1 + 2 * 4,
        "pack check, then run and verify x 4"
    );
    let mut verified_siblings = 0;
    for command in commands {
        let words: Vec<&str> = command.split_whitespace().collect();
        assert_eq!(words[0], "counterlab", "{command}");
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_counterlab"))
            .current_dir(&work)
            .env("NO_COLOR", "1")
            .args(&words[1..])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        let code = output.status.code();
        if words[1] != "verify" {
            assert_eq!(code, Some(0), "{command}: {text}");
            continue;
        }
        // A verdict, with its exit code (0 SUPPORTS, 1 REJECTED, 3 INCONCLUSIVE).
        let verdict = text.lines().next().unwrap_or("");
        let expected_code = match verdict {
            "SUPPORTS" => 0,
            "REJECTED" => 1,
            "INCONCLUSIVE" => 3,
            other => panic!("{command}: no verdict: {other} {text}"),
        };
        assert_eq!(code, Some(expected_code), "{command}: {text}");
        if command.contains("-no-material-gap.payload.json") {
            verified_siblings += 1;
            // The claim line names the bound; the verdict follows the printed interval.
            let line = text.lines().find(|l| l.starts_with("claim ")).unwrap();
            assert!(line.contains(", at most 0.02, 95% CI ["), "{line}");
            let ci = line.split("95% CI [").nth(1).unwrap();
            let (low, rest) = ci.split_once(", ").unwrap();
            let high = rest.split(']').next().unwrap();
            let (low, high): (f64, f64) = (low.parse().unwrap(), high.parse().unwrap());
            let expected = if high < 0.02 {
                "SUPPORTS"
            } else if low > 0.02 {
                "REJECTED"
            } else {
                "INCONCLUSIVE"
            };
            assert_eq!(verdict, expected, "{line}");
        }
    }
    assert_eq!(verified_siblings, 2);
}

/// A gap whose two arms run the same design — the same split in the design normal form,
/// which sets aside the seed and the fold assignment — compares a design with itself: it
/// is INCONCLUSIVE, outcome `vacuous`, whatever its bound, with the claim's JSON path
/// (issue 42). Here `k_fold` 5 dealt by the kernel and by scikit-learn: two draws of one
/// design, whose gap is not zero (so no other vacuity rule applies) and was SUPPORTED as
/// "no gap within 0.05" before the rule. An `entity_overlap` of overlap 0 beside the
/// `entity_grouped` split it is, and two arms that differ by `"repeats": 1` alone, are
/// twins too; a `k_fold` against an `entity_k_fold` is not.
#[test]
fn a_gap_between_two_arms_of_one_design_is_vacuous() {
    let (pack, base) = registered("entity-leakage", "random-vs-grouped");
    let with_arms = |a: Value, b: Value, claim: (&str, f64)| {
        let mut e = base.clone();
        e["arms"] = json!([{"name": "a", "split": a}, {"name": "b", "split": b}]);
        e["ablations"] = json!([]);
        e["claim"] =
            json!({"kind": "metric_gap", "metric": "roc_auc", "higher": "a", "lower": "b"});
        with_bound(&e, claim.0, claim.1)
    };
    let kernel = json!({"kind": "k_fold", "folds": 5});
    let sklearn = json!({"kind": "k_fold", "folds": 5, "assignment": "sklearn"});
    for bound in [("within", 0.05), ("at_least", 0.0), ("at_most", 0.05)] {
        let report = verified(&pack, &with_arms(kernel.clone(), sklearn.clone(), bound));
        assert_eq!(report["verdict"], "INCONCLUSIVE", "{bound:?}: {report}");
        assert_eq!(report["claim"]["outcome"], "vacuous", "{bound:?}");
        assert_eq!(report["claim"]["interval"], "none", "{bound:?}");
        let observed = report["claim"]["observed"]
            .as_f64()
            .expect("both AUCs defined");
        assert!(
            observed != 0.0,
            "two draws, not zero by construction: {observed}"
        );
        let reasons = report["reasons"].to_string();
        for expected in [
            "vacuous claim: $.experiment.claim compares arm \\\"a\\\"",
            "($.experiment.claim.lower)",
            "run the same design",
        ] {
            assert!(
                reasons.contains(expected),
                "{bound:?}: {expected} in {reasons}"
            );
        }
    }
    // The claim's mirror is decided alike.
    let report = verified(
        &pack,
        &swapped(&with_arms(
            kernel.clone(),
            sklearn.clone(),
            ("within", 0.05),
        )),
    );
    assert_eq!(report["claim"]["outcome"], "vacuous");
    for (a, b) in [
        (
            json!({"kind": "entity_overlap", "test_fraction": 0.25, "overlap": 0.0}),
            json!({"kind": "entity_grouped", "test_fraction": 0.25}),
        ),
        (
            json!({"kind": "k_fold", "folds": 5, "repeats": 1}),
            json!({"kind": "k_fold", "folds": 5, "assignment": "sklearn"}),
        ),
    ] {
        let report = verified(&pack, &with_arms(a.clone(), b.clone(), ("within", 0.05)));
        assert_eq!(report["claim"]["outcome"], "vacuous", "{a} / {b}: {report}");
        assert_eq!(report["verdict"], "INCONCLUSIVE");
    }
    // Two designs: decided on their interval as before.
    let two = json!({"kind": "entity_k_fold", "folds": 5});
    let report = verified(&pack, &with_arms(kernel, two, ("at_least", 0.1)));
    assert_ne!(report["claim"]["outcome"], "vacuous", "{report}");
    assert_eq!(report["verdict"], "SUPPORTS", "{report}");
}
