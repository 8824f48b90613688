//! `verify-revision`: the chain's rules (src/revision.rs, docs/CAPSULE.md "Revisions") —
//! at most two revisions, each only after a REJECTED verdict, each changing the evaluation
//! design (not a name, not an order, not the claim, the pack, the seed or the metrics),
//! each eligible under the selector's rules again, and the last payload decided as one of a
//! family of tests (α/(r + 1), the (1 − 0.05/(r + 1)) interval). Each case edits
//! entity-leakage's `random-inflates-auc` experiment (one random-row and one grouped split;
//! its gap is 0.353, CI [0.160, 0.546] under seed 7), runs it, and checks the chain's
//! answer; the answer of an allowed chain must be the verifier's own report on the last
//! payload at the family's level.

use counterlab::revision::{family_options, verify_revision};
use serde_json::{json, Value};

use crate::common::{bundled_packs, counterlab, fast_options};

const EXPERIMENT: &str = "fixtures/packs/entity-leakage/experiments/random-inflates-auc.json";

fn experiment() -> Value {
    let path = format!("{}/{EXPERIMENT}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// The payload of the experiment with its claim at `at_least`, after `edit`.
fn payload_at(at_least: f64, edit: impl FnOnce(&mut Value)) -> Vec<u8> {
    let mut value = experiment();
    value["claim"]["at_least"] = json!(at_least);
    edit(&mut value);
    let experiment = counterlab::Experiment::from_value(&value).unwrap();
    let packs = bundled_packs();
    let payload = counterlab::run(&packs, &experiment).unwrap();
    payload.to_json_pretty().unwrap().into_bytes()
}

/// The claim at 0.8, which the evidence contradicts (REJECTED): a chain may start here.
fn payload(edit: impl FnOnce(&mut Value)) -> Vec<u8> {
    payload_at(0.8, edit)
}

fn answer(chain: &[&[u8]]) -> Value {
    verify_revision(chain, &bundled_packs(), &fast_options()).to_json()
}

fn refused(chain: &[&[u8]], reason: &str, witness: &str) -> Value {
    let answer = answer(chain);
    assert_eq!(answer["verdict"], "REJECTED", "{answer:#}");
    let refusal = &answer["refusal"];
    assert!(
        refusal["reason"].as_str().unwrap().contains(reason),
        "{reason}: {refusal}"
    );
    assert_eq!(refusal["witness"], witness, "{refusal}");
    assert!(answer["report"].is_null());
    answer
}

/// entity-leakage's features, in pack order.
fn features() -> Vec<String> {
    bundled_packs()
        .get("entity-leakage")
        .unwrap()
        .manifest()
        .data
        .features
        .clone()
}

/// The design change most cases make beside what they test: C from 1 to 0.5.
fn design(e: &mut Value) {
    e["model"]["c"] = json!(0.5);
}

#[test]
fn the_base_of_the_chain_is_rejected() {
    let report = counterlab::verify(&payload(|_| {}), &bundled_packs(), &fast_options());
    assert_eq!(report.verdict().as_str(), "REJECTED");
    assert_eq!(report.claim().unwrap().outcome.as_str(), "contradicts");
}

/// Issue 30, finding 2: a revision that lowers the threshold (0.5 → 0.1 there) and renames
/// an ablation was classified "design" and answered SUPPORTS. The claim is fixed now, with
/// or without a design change beside it.
#[test]
fn the_claim_cannot_change() {
    let before = payload(|_| {});
    for (edit, witness) in [
        (
            Box::new(|e: &mut Value| e["claim"]["at_least"] = json!(0.1))
                as Box<dyn Fn(&mut Value)>,
            "$.experiment.claim.at_least",
        ),
        (
            Box::new(|e: &mut Value| {
                e["claim"]["at_least"] = json!(0.1);
                e["ablations"][1]["name"] = json!("no_tenure_b");
            }),
            "$.experiment.claim.at_least",
        ),
        (
            Box::new(|e: &mut Value| {
                design(e);
                e["claim"]["at_least"] = json!(0.1);
            }),
            "$.experiment.claim.at_least",
        ),
        (
            Box::new(|e: &mut Value| {
                design(e);
                e["claim"]["metric"] = json!("accuracy");
            }),
            "$.experiment.claim.metric",
        ),
        (
            // The direction: the arms swapped.
            Box::new(|e: &mut Value| {
                design(e);
                e["claim"]["higher"] = json!("entity_grouped");
                e["claim"]["lower"] = json!("random_rows");
            }),
            "$.experiment.claim.higher",
        ),
        (
            // A claimed arm renamed, the claim following: the arms it names changed.
            Box::new(|e: &mut Value| {
                design(e);
                e["arms"][1]["name"] = json!("customers");
                e["claim"]["lower"] = json!("customers");
            }),
            "$.experiment.claim.lower",
        ),
    ] {
        let after = payload(edit);
        refused(
            &[&before, &after],
            "the claim is the one the prediction fixed",
            witness,
        );
    }
}

/// Issue 30, finding 3: dropping the grouped arm and claiming `roc_auc(random_rows) ≥ 0.8`
/// was accepted. Another kind of claim is another claim.
#[test]
fn the_claim_and_the_arms_cannot_be_swapped() {
    let before = payload(|_| {});
    let mut swapped = experiment();
    swapped["arms"].as_array_mut().unwrap().truncate(1);
    swapped["claim"] =
        json!({"kind": "metric_at_least", "metric": "roc_auc", "arm": "random_rows", "value": 0.8});
    let swapped = counterlab::run(
        &bundled_packs(),
        &counterlab::Experiment::from_value(&swapped).unwrap(),
    )
    .unwrap()
    .to_json_pretty()
    .unwrap();
    let answer = answer(&[&before, swapped.as_bytes()]);
    assert_eq!(answer["verdict"], "REJECTED");
    assert!(answer["refusal"]["reason"]
        .as_str()
        .unwrap()
        .contains("the claim is the one the prediction fixed"));
}

/// Renaming arms or ablations, reordering lists and spelling out defaults change nothing
/// in the revision normal form: "nothing changed in the design".
#[test]
fn renames_reorders_and_defaults_are_not_design_changes() {
    let before = payload(|_| {});
    let features = features();
    for edit in [
        Box::new(|e: &mut Value| e["ablations"][1]["name"] = json!("no_tenure_b"))
            as Box<dyn Fn(&mut Value)>,
        Box::new(|e: &mut Value| e["ablations"].as_array_mut().unwrap().reverse()),
        Box::new(|e: &mut Value| e["metrics"].as_array_mut().unwrap().reverse()),
        Box::new(|e: &mut Value| e["arms"].as_array_mut().unwrap().reverse()),
        Box::new(move |e: &mut Value| {
            let mut listed = features.clone();
            listed.reverse();
            e["features"] = json!(listed);
        }),
        Box::new(|e: &mut Value| e["model"]["c"] = json!(1)),
    ] {
        let after = payload(edit);
        refused(&[&before, &after], "nothing changed in the design", "$");
    }
    refused(&[&before, &before], "nothing changed in the design", "$");
}

#[test]
fn changes_outside_the_design_are_rejected() {
    let before = payload(|_| {});
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
                e["metrics"] = json!(["roc_auc", "accuracy"]);
            }),
            "$.experiment.metrics[1]",
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
    let other = counterlab::run(
        &bundled_packs(),
        &counterlab::Experiment::from_json(
            &std::fs::read(format!(
                "{}/fixtures/packs/temporal-leakage/experiments/random-inflates-auc.json",
                env!("CARGO_MANIFEST_DIR")
            ))
            .unwrap(),
        )
        .unwrap(),
    )
    .unwrap()
    .to_json_pretty()
    .unwrap();
    let answer = answer(&[&before, other.as_bytes()]);
    assert_eq!(answer["verdict"], "REJECTED");
    let witness = answer["refusal"]["witness"].as_str().unwrap();
    assert!(
        witness.starts_with("$.experiment.") || witness.starts_with("$.pack."),
        "{witness}"
    );
}

/// A revised design passes the selector's rules again: it keeps a control arm and holds
/// out enough entities.
#[test]
fn a_revised_design_must_be_eligible() {
    let before = payload(|_| {});
    let no_control = payload(|e| {
        e["arms"][1]["split"] = json!({"kind": "random_rows", "test_fraction": 0.5});
    });
    refused(
        &[&before, &no_control],
        "fails the selector's rule control",
        "payload 1",
    );
    let few = payload(|e| e["arms"][1]["split"]["test_fraction"] = json!(0.05));
    refused(
        &[&before, &few],
        "fails the selector's rule held_out_entities",
        "payload 1",
    );
    let no_identity = payload(|e| {
        e["ablations"].as_array_mut().unwrap().remove(0);
    });
    refused(
        &[&before, &no_identity],
        "fails the selector's rule identity_ablation",
        "payload 1",
    );
}

/// Issue 30, finding 4: revisions after INCONCLUSIVE and after SUPPORTS were accepted.
/// Only a REJECTED verdict opens a revision.
#[test]
fn a_revision_follows_only_a_rejected_verdict() {
    // At 0.0 the gap is SUPPORTED; at the observed gap (0.353) its interval straddles.
    for (at_least, verdict) in [(0.0, "SUPPORTS"), (0.353, "INCONCLUSIVE")] {
        let before = payload_at(at_least, |_| {});
        let after = payload_at(at_least, design);
        let answer = refused(
            &[&before, &after],
            &format!("revision 1 follows a {verdict} verdict of payload 0"),
            "payload 0",
        );
        assert_eq!(answer["revised_verdicts"], json!([verdict]));
    }
}

#[test]
fn a_design_revision_is_answered_by_the_verifier_at_the_familys_level() {
    let before = payload(|_| {});
    // The design changes: the grouped arm holds out 40% of customers, C = 0.5.
    let after = payload(|e| {
        e["arms"][1]["split"]["test_fraction"] = json!(0.4);
        design(e);
    });
    let answer = answer(&[&before, &after]);
    assert!(answer["refusal"].is_null(), "{answer:#}");
    let packs = bundled_packs();
    let direct = counterlab::verify(&after, &packs, &family_options(&fast_options(), 1));
    assert_eq!(answer["verdict"], direct.verdict().as_str());
    assert_eq!(answer["report"]["report_hash"], direct.report_hash());
    assert_eq!(answer["report"]["claim"]["family"], 2);
    assert_eq!(answer["report"]["claim"]["alpha"], 0.025);
    assert_eq!(
        answer["family"],
        json!({"tests": 2, "rule": "bonferroni", "alpha": 0.025})
    );
    assert_eq!(answer["revised_verdicts"], json!(["REJECTED"]));
    let scopes: Vec<(&str, &str)> = answer["steps"][0]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["path"].as_str().unwrap(), c["scope"].as_str().unwrap()))
        .collect();
    assert_eq!(
        scopes,
        [
            ("$.experiment.arms.lower.test_fraction", "design"),
            ("$.experiment.model.c", "design"),
        ]
    );
    assert_eq!(answer["revision_hash"].as_str().unwrap().len(), 64);

    // A second revision after the first's REJECTED verdict: a family of three.
    let again = payload(|e| {
        e["arms"][1]["split"]["test_fraction"] = json!(0.4);
        e["model"]["c"] = json!(0.25);
    });
    let answer = self::answer(&[&before, &after, &again]);
    assert!(answer["refusal"].is_null(), "{answer:#}");
    assert_eq!(answer["revised_verdicts"], json!(["REJECTED", "REJECTED"]));
    assert_eq!(answer["report"]["claim"]["family"], 3);
    assert_eq!(answer["report"]["claim"]["alpha"], 0.05 / 3.0);
}

/// The family's level bites: a threshold 2.2 standard errors below the observed gap is
/// SUPPORTED alone (z = 1.96) and not as one of three tests (z = 2.394, the interval's
/// lower end 0.353 − 2.394 · 0.0985 = 0.117 < 0.136). The interval's half-width is z · se
/// for each family size (z from mpmath: Φ⁻¹(1 − 0.025/m)).
#[test]
fn a_family_widens_the_interval_and_divides_alpha() {
    let bytes = payload_at(0.136, |_| {});
    let packs = bundled_packs();
    let options = counterlab::VerifyOptions {
        permutations: 99,
        ..fast_options()
    };
    let mut verdicts = Vec::new();
    for (family, z) in [
        (1, 1.959963984540054),
        (2, 2.241402727604945),
        (3, 2.393979799818509),
    ] {
        let report = counterlab::verify(&bytes, &packs, &family_options(&options, family - 1));
        let claim = report.claim().unwrap();
        let [lo, hi] = claim.ci.unwrap();
        let se = claim.se.unwrap();
        assert!(((hi - lo) / 2.0 - z * se).abs() < 1e-12, "family {family}");
        assert_eq!(claim.alpha, 0.05 / f64::from(family as u32));
        assert_eq!(claim.family, family as u32);
        verdicts.push(report.verdict().as_str());
    }
    assert_eq!(verdicts[0], "SUPPORTS");
    assert_eq!(verdicts[2], "INCONCLUSIVE");
    let out_of_range = counterlab::VerifyOptions {
        family: 4,
        ..options
    };
    let report = counterlab::verify(&bytes, &packs, &out_of_range);
    assert_eq!(report.verdict().as_str(), "INCONCLUSIVE");
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

/// Without the pack the rules that read it cannot be checked: the answer is the last
/// payload's report, INCONCLUSIVE (unsupported pack), never a refusal.
#[test]
fn without_the_pack_the_chain_is_inconclusive() {
    let before = payload(|_| {});
    let after = payload(design);
    let answer = verify_revision(
        &[&before, &after],
        &counterlab::Packs::default(),
        &fast_options(),
    )
    .to_json();
    assert_eq!(answer["verdict"], "INCONCLUSIVE", "{answer:#}");
    assert!(answer["refusal"].is_null());
    assert_eq!(answer["revised_verdicts"], json!([]));
}

#[test]
fn the_cli_exits_as_verify_and_prints_the_witness() {
    let dir = crate::common::TempDir::new("revision-cli");
    let before = dir.path().join("before.json");
    let after = dir.path().join("after.json");
    std::fs::write(&before, payload(|_| {})).unwrap();
    std::fs::write(&after, payload(|e| e["claim"]["at_least"] = json!(0.1))).unwrap();
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
        text.contains("claim        $.experiment.claim.at_least  0.8 → 0.1"),
        "{text}"
    );
    assert!(
        text.contains("refused: revision 1: $.experiment.claim.at_least changed"),
        "{text}"
    );
    let one = counterlab(&["verify-revision", before.to_str().unwrap()]);
    assert_eq!(one.status.code(), Some(2), "one payload is a usage error");
}

mod rewrites {
    //! The fuzz target `verify_capsule`'s moves 1 and 2 as a property test: a revision that
    //! only renames, reorders or spells out defaults is refused; an equivalent rewrite of a
    //! recorded revision answers as the original.
    use counterlab::revision::verify_revision;
    use proptest::prelude::*;
    use serde_json::Value;

    use crate::common::{bundled_packs, fast_options};

    fn recorded(name: &str) -> Value {
        let path = format!(
            "{}/fixtures/packs/entity-leakage/capsules/{name}.json",
            env!("CARGO_MANIFEST_DIR")
        );
        serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
    }

    fn rewrite_keeping_the_claim(original: &Value, seed: u64) -> Value {
        counterlab_test_support::rewrite::equivalent_revision(original, &super::features(), seed)
    }

    fn run(experiment: &Value) -> Vec<u8> {
        counterlab::run(
            &bundled_packs(),
            &counterlab::Experiment::from_value(experiment).unwrap(),
        )
        .unwrap()
        .to_json_pretty()
        .unwrap()
        .into_bytes()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(6))]

        #[test]
        fn a_rewrite_is_no_revision_and_a_rewritten_revision_answers_alike(seed in any::<u64>()) {
            let holds = recorded("gap-05-holds");
            let first = serde_json::to_vec(&holds["payload"]).unwrap();
            let same = rewrite_keeping_the_claim(&holds["payload"]["experiment"], seed);
            let answer = verify_revision(&[&first, &run(&same)], &bundled_packs(), &fast_options()).to_json();
            prop_assert_eq!(&answer["verdict"], "REJECTED");
            prop_assert!(answer["refusal"]["reason"].as_str().unwrap().contains("nothing changed in the design"), "{}", answer);

            let revised = recorded("gap-05-revised");
            let first = serde_json::to_vec(&revised["payload"]).unwrap();
            let original = &revised["revisions"][0]["payload"];
            let rewritten = rewrite_keeping_the_claim(&original["experiment"], seed);
            let a = verify_revision(&[&first, &serde_json::to_vec(original).unwrap()], &bundled_packs(), &fast_options());
            let b = verify_revision(&[&first, &run(&rewritten)], &bundled_packs(), &fast_options());
            prop_assert!(b.refusal.is_none(), "{:?}", b.refusal);
            prop_assert_eq!(a.verdict(), b.verdict());
            prop_assert_eq!(
                a.report.as_ref().unwrap().claim().unwrap().observed,
                b.report.as_ref().unwrap().claim().unwrap().observed
            );
        }
    }
}
