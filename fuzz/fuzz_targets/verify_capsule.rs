//! Arbitrary bytes (seeded with the recorded capsules) → `capsule::verify_capsule` against
//! the bundled packs: never a panic, never a hang; REJECTED exactly when a link failed,
//! INCONCLUSIVE when one could not be checked, the witness the first link that did not
//! pass, and links in their fixed order.
//!
//! Inputs whose first byte is 0xFE are **moves** on the recorded capsules instead (the next
//! 8 bytes a seed, the one after the move): 0, an equivalent rewrite of the selected
//! candidate (and of the prediction's claim, renamed alike) rebuilt into a capsule, which
//! must answer exactly as the original (one design, one seed, one verdict); 1, a revision
//! of a REJECTED payload that only renames, reorders or spells out defaults, which the
//! chain must refuse ("nothing changed in the design"); 2, an equivalent rewrite of a
//! recorded revision (its claim untouched), whose chain must answer exactly as the
//! original's.
#![no_main]

use std::sync::OnceLock;

use counterlab::capsule::{build_answered, BuildOptions, LinkStatus};
use counterlab::prediction::Prediction;
use counterlab::revision::verify_revision;
use counterlab::Verdict;
use counterlab_test_support::rewrite::{equivalent_revision, equivalent_rewrite};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fn packs() -> &'static counterlab::Packs {
    static PACKS: OnceLock<counterlab::Packs> = OnceLock::new();
    PACKS.get_or_init(counterlab_test_support::bundled::packs)
}

fn options() -> counterlab::VerifyOptions {
    counterlab::VerifyOptions {
        permutations: 19,
        row_order_shuffles: 1,
        threads: 1,
        ..counterlab::VerifyOptions::default()
    }
}

/// A recorded capsule of entity-leakage by name.
fn recorded(name: &str) -> Value {
    let path = counterlab_test_support::bundled::packs_dir()
        .join("entity-leakage/capsules")
        .join(format!("{name}.json"));
    serde_json::from_slice(&std::fs::read(path).expect("a recorded capsule")).expect("JSON")
}

fn features() -> Vec<String> {
    packs()
        .get("entity-leakage")
        .expect("bundled")
        .manifest()
        .data
        .features
        .clone()
}

fn run(experiment: &Value) -> Vec<u8> {
    let experiment = counterlab::Experiment::from_value(experiment).expect("an experiment");
    counterlab::run(packs(), &experiment)
        .expect("it runs")
        .to_json_pretty()
        .expect("encodes")
        .into_bytes()
}

/// Move 0: the selected candidate of a recorded capsule rewritten equivalently, the
/// prediction's claim renamed alike, rebuilt: the same seed and the same verdict.
fn rewritten_candidate(seed: u64) {
    let names = ["random-vs-grouped", "gap-05-does-not-hold", "gap-05-holds"];
    let capsule = recorded(names[(seed % names.len() as u64) as usize]);
    let prediction = Prediction::from_value(&capsule["prediction"]).expect("recorded");
    let selected = capsule["payload"]["experiment"].clone();
    let (rewritten, renames) = equivalent_rewrite(&selected, &features(), seed);
    let mut claim = serde_json::to_value(&prediction.claim).expect("encodes");
    for key in ["higher", "lower", "arm"] {
        if let Some(name) = claim.get(key).and_then(Value::as_str).map(str::to_owned) {
            claim[key] = Value::from(renames.arm(&name));
        }
    }
    let renamed = Prediction {
        claim: serde_json::from_value(claim).expect("a claim"),
        ..prediction.clone()
    };
    let build = |prediction: &Prediction, candidate: &Value| {
        build_answered(
            packs(),
            prediction,
            &[("c".into(), serde_json::to_vec(candidate).expect("encodes"))],
            &BuildOptions {
                boundary: false,
                revisions: Vec::new(),
                verify: options(),
            },
        )
        .expect("an eligible candidate builds")
    };
    let original = build(&prediction, &selected);
    let again = build(&renamed, &rewritten);
    assert_eq!(
        original.capsule["payload"]["experiment"]["seed"],
        again.capsule["payload"]["experiment"]["seed"],
        "one seed: {rewritten}"
    );
    assert_eq!(original.verdict, again.verdict, "one verdict: {rewritten}");
    assert_eq!(original.answer.0, again.answer.0, "one answer: {rewritten}");
}

/// Move 1: a revision of a REJECTED payload that only renames, reorders or spells out
/// defaults is refused.
fn rename_only_revision(seed: u64) {
    let capsule = recorded("gap-05-holds");
    let before = &capsule["payload"]["experiment"];
    let after = equivalent_revision(before, &features(), seed);
    let first = serde_json::to_vec(&capsule["payload"]).expect("encodes");
    let answer = verify_revision(&[&first, &run(&after)], packs(), &options()).to_json();
    assert_eq!(answer["verdict"], "REJECTED", "{after}");
    assert!(
        answer["refusal"]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("nothing changed in the design")),
        "{answer}"
    );
}

/// Move 2: a recorded revision rewritten equivalently (claim and seed as they were): the
/// chain answers as the original.
fn rewritten_revision(seed: u64) {
    let capsule = recorded("gap-05-revised");
    let first = serde_json::to_vec(&capsule["payload"]).expect("encodes");
    let revised = &capsule["revisions"][0]["payload"];
    let rewritten = equivalent_revision(&revised["experiment"], &features(), seed);
    let original = serde_json::to_vec(revised).expect("encodes");
    let a = verify_revision(&[&first, &original], packs(), &options());
    let b = verify_revision(&[&first, &run(&rewritten)], packs(), &options());
    assert!(b.refusal.is_none(), "{:?}", b.refusal);
    assert_eq!(a.verdict(), b.verdict(), "{rewritten}");
}

fuzz_target!(|bytes: &[u8]| {
    if let Some((&0xFE, rest)) = bytes.split_first() {
        let mut seed = [0u8; 8];
        for (to, from) in seed.iter_mut().zip(rest) {
            *to = *from;
        }
        let seed = u64::from_le_bytes(seed);
        match rest.get(8).copied().unwrap_or(0) % 3 {
            0 => rewritten_candidate(seed),
            1 => rename_only_revision(seed),
            _ => rewritten_revision(seed),
        }
        return;
    }
    let report = counterlab::capsule::verify_capsule(bytes, packs(), &options());
    let failed = report.links.iter().any(|l| l.status == LinkStatus::Fail);
    let unverifiable = report
        .links
        .iter()
        .any(|l| l.status == LinkStatus::Unverifiable);
    match report.verdict() {
        Verdict::Rejected { .. } => assert!(failed || report.report.is_some()),
        Verdict::Inconclusive { .. } => assert!(!failed),
        Verdict::Supports(_) => {
            assert!(!failed && !unverifiable && report.report.is_some())
        }
    }
    let names: Vec<&str> = report.links.iter().map(|l| l.name).collect();
    assert_eq!(names, counterlab::capsule::LINKS[..names.len()]);
    if let Some(witness) = report.witness() {
        assert_eq!(
            witness.name,
            *names.last().unwrap(),
            "the walk stops at the witness"
        );
    }
});
