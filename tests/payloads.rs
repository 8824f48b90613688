//! The recorded payloads in each pack's `payloads/` get the verdicts listed in its
//! `expected.toml`, under the verifier's default options (K = 199).

use std::path::Path;

use counterlab::verify::{Status, VerifyOptions};
use counterlab::Packs;
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Expected {
    payload: Vec<ExpectedPayload>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ExpectedPayload {
    file: String,
    verdict: String,
    why: String,
    check: Option<String>,
}

#[test]
fn recorded_payloads_get_their_expected_verdicts() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/packs");
    let packs = Packs::discover(&root).unwrap();
    let mut failures = Vec::new();
    let mut verdicts_per_pack = Vec::new();
    for pack in packs.iter() {
        let dir = pack.dir().join("payloads");
        let expected: Expected =
            toml::from_str(&std::fs::read_to_string(dir.join("expected.toml")).unwrap()).unwrap();
        let mut seen = std::collections::BTreeSet::new();
        for case in &expected.payload {
            assert!(!case.why.is_empty());
            let bytes = std::fs::read(dir.join(&case.file)).unwrap();
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
