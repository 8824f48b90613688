//! The recorded payloads in each pack's `payloads/` get the verdicts listed in its
//! `expected.toml`, under the verifier's default options (K = 199).

use counterlab::verify::Status;
use counterlab_test_support::bundled;

use crate::common::recorded_reports;

#[test]
fn recorded_payloads_get_their_expected_verdicts() {
    let packs = bundled::packs();
    let mut failures = Vec::new();
    let mut verdicts_per_pack = Vec::new();
    for pack in packs.iter() {
        let mut seen = std::collections::BTreeSet::new();
        for recorded in recorded_reports()
            .iter()
            .filter(|r| r.case.pack == pack.id())
        {
            let (case, report) = (&recorded.case, &recorded.report);
            assert!(!case.why.is_empty());
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
