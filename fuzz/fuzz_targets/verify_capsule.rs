//! Arbitrary bytes (seeded with the recorded capsules) → `capsule::verify_capsule` against
//! the bundled packs: never a panic, never a hang; REJECTED exactly when a link failed,
//! INCONCLUSIVE when one could not be checked, the witness the first link that did not
//! pass, and links in their fixed order.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

fn packs() -> &'static counterlab::Packs {
    static PACKS: OnceLock<counterlab::Packs> = OnceLock::new();
    PACKS.get_or_init(counterlab_test_support::bundled::packs)
}

fuzz_target!(|bytes: &[u8]| {
    let options = counterlab::VerifyOptions {
        permutations: 19,
        row_order_shuffles: 1,
        threads: 1,
        ..counterlab::VerifyOptions::default()
    };
    let report = counterlab::capsule::verify_capsule(bytes, packs(), &options);
    let failed = report.links.iter().any(|l| l.status == "fail");
    let unverifiable = report.links.iter().any(|l| l.status == "unverifiable");
    match report.verdict() {
        "REJECTED" => assert!(failed || report.report.is_some()),
        "INCONCLUSIVE" => assert!(!failed),
        "SUPPORTS" => assert!(!failed && !unverifiable && report.report.is_some()),
        other => panic!("verdict {other}"),
    }
    let names: Vec<&str> = report.links.iter().map(|l| l.name).collect();
    assert_eq!(names, counterlab::capsule::LINKS[..names.len()]);
    if let Some(witness) = report.witness() {
        assert_eq!(witness.name, *names.last().unwrap(), "the walk stops at the witness");
    }
});
