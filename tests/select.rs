//! The fixed selector: closed eligibility rules in order, a score from the design alone,
//! ties by hash, and the seed derived from the pack alone (no seed shopping: issue 30's 18
//! rewrites of one design run with one seed and get one verdict; random equivalent
//! rewrites of every registered experiment are one design). Candidates are edits of
//! entity-leakage's `random-vs-grouped` experiment.

use counterlab::design::design_hash;
use counterlab::prediction::{predict, Outcome, Predicted, Prediction};
use counterlab::select::{derived_seed, select};
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
            e["arms"][1]["split"] = json!({"kind": "k_fold", "folds": 4, "repeats": 5});
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
        .map(|c| c.failed.as_ref().map(|f| f.rule.as_str()))
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

    // The seed that runs is derived, whatever the candidate wrote: for entity-leakage it
    // is 3415679265936128276, computed independently with Python's blake3 package
    // (blake3.blake3(len(id) as u64 LE + id + manifest_hash, derive_key_context="counterlab
    // 2026-12 selection seed v2"), manifest hash e4deaba8…8b26).
    let to_run = selection.to_run.as_ref().unwrap();
    let expected = 3_415_679_265_936_128_276;
    assert_eq!(derived_seed(&prediction.pack), expected);
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
    // following) runs with the same seed and has the same design hash.
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
    let features = &pack.manifest().data.features;
    assert_eq!(
        design_hash(renamed_selection.to_run.as_ref().unwrap(), features),
        design_hash(to_run, features)
    );
    assert_eq!(renamed_selection.to_run.as_ref().unwrap().seed, expected);
    assert_eq!(
        renamed_selection.candidates[0].design_hash,
        selection.candidates[0].design_hash
    );
    // Nor do the predicted outcome, the rationale or the claim's threshold.
    let doubting = predict(
        pack,
        prediction.claim.clone(),
        Predicted::Outcome(Outcome::DoesNotHold),
        Some(b"another rationale"),
    );
    let doubted = select(pack, &doubting, &[candidate("cv", |_| {})]);
    assert_eq!(doubted.to_run.as_ref().unwrap().seed, expected);
    let mut higher_bar = base()["claim"].clone();
    higher_bar["at_least"] = json!(0.1000000000000001);
    let nudged = predict(
        pack,
        serde_json::from_value(higher_bar.clone()).unwrap(),
        Predicted::Outcome(Outcome::Holds),
        None,
    );
    let nudged_selection = select(
        pack,
        &nudged,
        &[candidate("cv", |e| e["claim"] = higher_bar.clone())],
    );
    assert_eq!(nudged_selection.to_run.as_ref().unwrap().seed, expected);

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

/// Issue 30, finding 1, replayed: 18 ways of writing entity-leakage's 5-fold design with
/// the claim at 0.28 (equivalent rewrites, a one-ulp `c`, an ablation the claim never
/// reads, another written seed). Under verifier/5 their derived seeds differed and the gap
/// ranged 0.196–0.402 (one capsule SUPPORTS, the registered design's INCONCLUSIVE). Now
/// every variant runs with the pack's seed and gets one verdict; all but the one-ulp `c`
/// compute the claim's statistic bit for bit alike. A duplicated ablation, the 19th
/// variant of the finding, is refused with its path.
#[test]
fn the_eighteen_null_rewrites_of_finding_1_get_one_seed_and_one_verdict() {
    use counterlab::capsule::{build_answered, BuildOptions};
    let packs = bundled_packs();
    let pack = packs.get("entity-leakage").unwrap();
    let mut claim = base()["claim"].clone();
    claim["at_least"] = json!(0.28);
    let prediction = predict(
        pack,
        serde_json::from_value(claim.clone()).unwrap(),
        Predicted::Outcome(Outcome::Holds),
        None,
    );
    let at_028 = |edit: &dyn Fn(&mut Value)| {
        let mut value = base();
        value["claim"] = claim.clone();
        edit(&mut value);
        value
    };
    let features: Vec<String> = pack.manifest().data.features.clone();
    let rotated: Vec<&String> = features[3..].iter().chain(&features[..3]).collect();
    let reversed: Vec<&String> = features.iter().rev().collect();
    let mut interleaved: Vec<&String> = features.iter().step_by(2).collect();
    interleaved.extend(features.iter().skip(1).step_by(2));
    let variants: Vec<(&str, Value)> = vec![
        ("registered", at_028(&|_| {})),
        (
            "features shuffled",
            at_028(&|e| e["features"] = json!(interleaved)),
        ),
        (
            "features written out",
            at_028(&|e| e["features"] = json!(features)),
        ),
        (
            "features reversed",
            at_028(&|e| e["features"] = json!(reversed)),
        ),
        (
            "arms reordered",
            at_028(&|e| e["arms"].as_array_mut().unwrap().reverse()),
        ),
        (
            "ablations reordered",
            at_028(&|e| e["ablations"].as_array_mut().unwrap().reverse()),
        ),
        (
            "assignment written out",
            at_028(&|e| {
                e["arms"][0]["split"]["assignment"] = json!("seeded");
                e["arms"][1]["split"]["assignment"] = json!("seeded");
            }),
        ),
        (
            "one assignment written out",
            at_028(&|e| e["arms"][1]["split"]["assignment"] = json!("seeded")),
        ),
        ("c as an integer", at_028(&|e| e["model"]["c"] = json!(1))),
        (
            "c one ulp up",
            at_028(&|e| e["model"]["c"] = json!(1.0000000000000002)),
        ),
        (
            "arms renamed",
            at_028(&|e| {
                e["arms"][0]["name"] = json!("rows");
                e["arms"][1]["name"] = json!("customers");
            }),
        ),
        (
            "ablations renamed",
            at_028(&|e| {
                e["ablations"][0]["name"] = json!("nothing");
                e["ablations"][1]["name"] = json!("no_tenure_b");
            }),
        ),
        (
            "metrics reordered",
            at_028(&|e| e["metrics"].as_array_mut().unwrap().reverse()),
        ),
        (
            "an unread ablation added",
            at_028(&|e| {
                e["ablations"]
                    .as_array_mut()
                    .unwrap()
                    .push(json!({"name": "no_usage", "drop": ["data_usage_gb"]}));
            }),
        ),
        (
            "an unread two-feature ablation, drop list reordered",
            at_028(&|e| {
                e["ablations"].as_array_mut().unwrap().push(
                    json!({"name": "no_usage_calls", "drop": ["support_calls", "data_usage_gb"]}),
                );
            }),
        ),
        ("seed 0 written", at_028(&|e| e["seed"] = json!(0))),
        (
            "seed 2^64 - 1 written",
            at_028(&|e| e["seed"] = json!(u64::MAX)),
        ),
        (
            "everything at once",
            at_028(&|e| {
                e["features"] = json!(rotated);
                e["arms"].as_array_mut().unwrap().reverse();
                e["ablations"].as_array_mut().unwrap().reverse();
                e["metrics"].as_array_mut().unwrap().reverse();
                e["arms"][0]["split"]["assignment"] = json!("seeded");
                e["seed"] = json!(99);
            }),
        ),
    ];
    assert_eq!(variants.len(), 18);
    let options = BuildOptions {
        boundary: false,
        revisions: Vec::new(),
        verify: crate::common::fast_options(),
    };
    let mut seen: Vec<(String, u64, &'static str, Value)> = Vec::new();
    for (name, variant) in &variants {
        // A renamed claim arm renames the prediction's claim too (the claim the proposer
        // believes in, written with its own names).
        let claim_of = |v: &Value| {
            let mut c = v["claim"].clone();
            let arm_named =
                |field: &str, old: &str| {
                    v["arms"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .find(|a| {
                            base()["arms"].as_array().unwrap().iter().any(|b| {
                                b["name"] == old && b["split"]["kind"] == a["split"]["kind"]
                            })
                        })
                        .map(|a| a["name"].clone())
                        .unwrap_or_else(|| json!(field))
                };
            c["higher"] = arm_named("higher", "random_rows");
            c["lower"] = arm_named("lower", "entity_grouped");
            c
        };
        let mut variant = variant.clone();
        variant["claim"] = claim_of(&variant);
        let belief = predict(
            pack,
            serde_json::from_value(variant["claim"].clone()).unwrap(),
            Predicted::Outcome(Outcome::Holds),
            None,
        );
        let built = build_answered(
            &packs,
            &belief,
            &[(name.to_string(), serde_json::to_vec(&variant).unwrap())],
            &options,
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        let ran = &built.capsule["payload"]["experiment"];
        let report = counterlab::verify(
            &serde_json::to_vec(&built.capsule["payload"]).unwrap(),
            &packs,
            &options.verify,
        );
        let claim = report.claim().expect("a claim report");
        seen.push((
            name.to_string(),
            ran["seed"].as_u64().unwrap(),
            built.verdict.as_str(),
            json!([claim.observed, claim.ci]),
        ));
    }
    let first = &seen[0];
    for s in &seen {
        assert_eq!(s.1, derived_seed(&prediction.pack), "{}: one seed", s.0);
        assert_eq!(s.2, first.2, "{}: one verdict ({seen:#?})", s.0);
        if s.0 != "c one ulp up" {
            assert_eq!(
                s.3, first.3,
                "{}: the same statistic and interval, bit for bit",
                s.0
            );
        }
    }

    // The duplicated ablation of the finding is refused, with its path.
    let duplicated = at_028(&|e| {
        let copy = e["ablations"][1].clone();
        e["ablations"].as_array_mut().unwrap().push(copy);
    });
    let selection = select(
        pack,
        &prediction,
        &[(
            "duplicated".into(),
            serde_json::to_vec(&duplicated).unwrap(),
        )],
    );
    let counterlab::select::Ineligible { rule, why } =
        selection.candidates[0].failed.clone().unwrap();
    assert_eq!(rule.as_str(), "valid");
    assert!(
        why.contains("$.ablations[2].name") || why.contains("$.ablations[2].drop"),
        "{why}"
    );
}

/// The selector's score cannot grow by repetition or renaming: 31 copies of one ablation
/// (issue 30's padded one-split design, 195 points against the CV design's 185) are not
/// valid, and the same drop set under another name or in another order is a repeat. (No
/// score counts arms: a twin arm adds nothing.)
#[test]
fn repetition_and_renaming_do_not_pad_the_score() {
    let packs = bundled_packs();
    let pack = packs.get("entity-leakage").unwrap();
    let prediction = belief();
    let padded = candidate("padded", |e| {
        e["arms"][0]["split"] = json!({"kind": "random_rows", "test_fraction": 0.5});
        e["arms"][1]["split"] = json!({"kind": "entity_grouped", "test_fraction": 0.5});
        let ablations = e["ablations"].as_array_mut().unwrap();
        for i in 0..30 {
            ablations.push(json!({"name": format!("no_tenure_{i}"), "drop": ["tenure_months"]}));
        }
    });
    let renamed_copy = candidate("renamed copy", |e| {
        e["ablations"]
            .as_array_mut()
            .unwrap()
            .push(json!({"name": "no_tenure_b", "drop": ["tenure_months"]}));
    });
    let reordered_copy = candidate("reordered copy", |e| {
        let ablations = e["ablations"].as_array_mut().unwrap();
        ablations.push(json!({"name": "two", "drop": ["tenure_months", "monthly_charges"]}));
        ablations.push(json!({"name": "two_b", "drop": ["monthly_charges", "tenure_months"]}));
    });
    let selection = select(
        pack,
        &prediction,
        &[
            padded,
            renamed_copy,
            reordered_copy,
            candidate("cv", |_| {}),
        ],
    );
    let whys: Vec<(Option<&str>, String)> = selection
        .candidates
        .iter()
        .map(|c| {
            (
                c.failed.as_ref().map(|f| f.rule.as_str()),
                c.failed.as_ref().map(|f| f.why.clone()).unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(whys[0].0, Some("valid"), "{whys:?}");
    assert!(
        whys[0]
            .1
            .contains("$.ablations[2].drop: drops the same features as $.ablations[1]"),
        "{}",
        whys[0].1
    );
    assert!(whys[1].1.contains("$.ablations[2].drop"), "{}", whys[1].1);
    assert!(whys[2].1.contains("$.ablations[3].drop"), "{}", whys[2].1);
    assert_eq!(selection.selected, Some(3));
    assert_eq!(selection.candidates[3].score.unwrap().total(), 80 + 100 + 5);
}

mod equivalent_rewrites {
    use counterlab::design::design_hash;
    use counterlab::Experiment;
    use counterlab_test_support::rewrite::equivalent_rewrite;
    use proptest::prelude::*;
    use serde_json::{json, Value};

    use crate::common::bundled_packs;

    /// Every registered experiment, with its pack's features.
    fn registered() -> Vec<(String, Value, Vec<String>)> {
        let packs = bundled_packs();
        counterlab_test_support::bundled::experiment_files()
            .into_iter()
            .map(|(name, path)| {
                let value: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
                let pack = packs.get(value["pack"].as_str().unwrap()).unwrap();
                (name, value, pack.manifest().data.features.clone())
            })
            .collect()
    }

    /// Per arm (by its original name), the parts of its results a rewrite must not move.
    fn results_by_original_name(
        payload: &counterlab::run::Payload,
        renames: &counterlab_test_support::rewrite::Renames,
        arms: &[String],
        ablations: &[String],
    ) -> Value {
        let results = serde_json::to_value(&payload.results).unwrap();
        let mut out = serde_json::Map::new();
        for arm in arms {
            let r = &results[renames.arm(arm)];
            let mut kept = json!({"split": r["split"], "overlap": r["overlap"], "metrics": r["metrics"], "model": r["model"]});
            for ablation in ablations {
                kept[format!("ablation {ablation}")] =
                    r["ablations"][renames.ablation(ablation)]["metrics"].clone();
            }
            out.insert(arm.clone(), kept);
        }
        Value::Object(out)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]

        /// A random equivalent rewrite of a registered experiment has the same design
        /// hash, is selected with the same seed, and computes the same results (names
        /// mapped back), bit for bit.
        #[test]
        fn a_rewrite_is_one_design(which in 0usize..64, seed in any::<u64>()) {
            let all = registered();
            let (name, original, features) = &all[which % all.len()];
            let (rewritten, renames) = equivalent_rewrite(original, features, seed);
            let a = Experiment::from_value(original).unwrap();
            let b = Experiment::from_value(&rewritten).unwrap();
            prop_assert_eq!(design_hash(&a, features), design_hash(&b, features), "{}: {}", name, rewritten);
            let packs = bundled_packs();
            // One seed: the selector judges both (each for a prediction of its own claim,
            // the arms named as it names them) and would run both with the same seed.
            if let (Some(claim_a), Some(claim_b)) = (&a.claim, &b.claim) {
                let pack = packs.get(&a.pack).unwrap();
                let seed_of = |claim: &counterlab::experiment::Claim, e: &Value| {
                    let belief = counterlab::prediction::predict(
                        pack,
                        claim.clone(),
                        counterlab::prediction::Predicted::Outcome(counterlab::prediction::Outcome::Holds),
                        None,
                    );
                    counterlab::select::select(pack, &belief, &[("c".into(), serde_json::to_vec(e).unwrap())])
                        .candidates[0]
                        .seed
                };
                prop_assert_eq!(seed_of(claim_a, original), seed_of(claim_b, &rewritten));
            }
            let run = |e: &Experiment| {
                let mut e = e.clone();
                e.seed = 11;
                counterlab::run(&packs, &e).unwrap()
            };
            let arms: Vec<String> = a.arms.iter().map(|x| x.name.clone()).collect();
            let ablations: Vec<String> = a.ablation_list().iter().map(|x| x.name.clone()).collect();
            let none = counterlab_test_support::rewrite::Renames::default();
            prop_assert_eq!(
                results_by_original_name(&run(&a), &none, &arms, &ablations),
                results_by_original_name(&run(&b), &renames, &arms, &ablations),
                "{}: {}", name, rewritten
            );
        }
    }
}
