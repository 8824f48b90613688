//! The recorded payloads in each pack's `payloads/` get the verdicts listed in its
//! `expected.toml`, under the verifier's default options (K = 199).

use counterlab::verify::{Status, VerifyOptions};
use counterlab_test_support::bundled;

#[test]
fn recorded_payloads_get_their_expected_verdicts() {
    let packs = bundled::packs();
    let mut failures = Vec::new();
    let mut verdicts_per_pack = Vec::new();
    let recorded = bundled::recorded_payloads(&packs);
    for pack in packs.iter() {
        let mut seen = std::collections::BTreeSet::new();
        for case in recorded.iter().filter(|r| r.pack == pack.id()) {
            assert!(!case.why.is_empty());
            let bytes = std::fs::read(&case.path).unwrap();
            let report = counterlab::verify(&bytes, &packs, &VerifyOptions::default());
            let verdict = report.verdict().as_str();
            seen.insert(verdict);
            if verdict != case.verdict {
                failures.push(format!(
                    "{}/{}: expected {}, got {verdict}: {}",
                    pack.id(),
                    case.file,
                    case.verdict,
                    report.to_json()
                ));
            }
            if let Some(check) = &case.check {
                let status = report.check(check).map(|c| c.status);
                if status != Some(Status::Fail) {
                    failures.push(format!(
                        "{}/{}: check {check} should fail, is {status:?}",
                        pack.id(),
                        case.file
                    ));
                }
            }
        }
        verdicts_per_pack.push((pack.id().to_owned(), seen));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    for (pack, seen) in verdicts_per_pack {
        assert_eq!(
            seen.len(),
            3,
            "{pack}: needs one SUPPORTS, one INCONCLUSIVE and one REJECTED payload, has {seen:?}"
        );
    }
}
