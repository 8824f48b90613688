//! The verifier end to end on the bundled packs: verdicts, report shape, exit codes,
//! thread invariance, and golden report hashes (a drift check on the frozen rules).

use std::collections::BTreeMap;
use std::path::Path;

use counterlab::verify::{Status, VerifyOptions, CHECK_IDS};
use counterlab::{Experiment, Packs, RunOptions, Verdict};

use crate::canon::registered_experiments;
use crate::common::{counterlab, TempDir};

fn packs() -> Packs {
    Packs::discover(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/packs")).unwrap()
}

fn payload_bytes(packs: &Packs, experiment_path: &Path) -> Vec<u8> {
    let experiment = Experiment::from_json(&std::fs::read(experiment_path).unwrap()).unwrap();
    let payload = counterlab::run_with(
        packs.get(&experiment.pack).unwrap(),
        &experiment,
        &RunOptions { threads: 2 },
    )
    .unwrap();
    payload.to_json_pretty().unwrap().into_bytes()
}

fn fast(threads: usize) -> VerifyOptions {
    VerifyOptions {
        permutations: 19,
        row_order_shuffles: 1,
        threads,
        ..VerifyOptions::default()
    }
}

#[test]
fn every_report_lists_every_check_in_order_with_reasons() {
    let packs = packs();
    for (name, path) in registered_experiments() {
        let report = counterlab::verify(&payload_bytes(&packs, &path), &packs, &fast(2));
        let ids: Vec<&str> = report.checks().iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, CHECK_IDS, "{name}");
        for check in report.checks() {
            if matches!(
                check.status,
                Status::Skipped | Status::Unverifiable | Status::Fail
            ) {
                assert!(check.reason.is_some(), "{name}: {} has no reason", check.id);
            }
            assert!(check.counterexamples.len() <= 3);
        }
        let c = report.counters();
        assert_eq!(c.run + c.skipped, CHECK_IDS.len() as u64);
        assert_eq!(c.run, c.passed + c.failed + c.unverifiable);
        // An honest payload may make a false claim (REJECTED by claim.evidence), but no other
        // check may fail on it.
        for check in report.checks() {
            if check.id != "claim.evidence" {
                assert_ne!(
                    check.status,
                    Status::Fail,
                    "{name}: {} failed on an honest payload",
                    check.id
                );
            }
        }
    }
}

#[test]
fn report_json_has_the_documented_keys() {
    let packs = packs();
    let (_, path) = &registered_experiments()[0];
    let report = counterlab::verify(&payload_bytes(&packs, path), &packs, &fast(2)).to_json();
    let keys: Vec<&str> = report
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    for key in [
        "format",
        "verdict",
        "mode",
        "verifier",
        "payload_hash",
        "checks",
        "counters",
        "claim",
        "caveats",
        "report_hash",
    ] {
        assert!(keys.contains(&key), "missing {key} in {keys:?}");
    }
    assert_eq!(report["format"], "counterlab.report/1");
    assert_eq!(report["mode"], "enforce");
    for key in ["run", "passed", "failed", "unverifiable", "skipped"] {
        assert!(report["counters"][key].is_u64(), "{key}");
    }
    for key in [
        "statistic",
        "observed",
        "ci",
        "p_value",
        "permutations",
        "alpha",
        "outcome",
    ] {
        assert!(report["claim"].get(key).is_some(), "claim.{key}");
    }
    assert_eq!(report["verifier"]["rules_hash"].as_str().unwrap().len(), 64);
}

#[test]
fn the_report_is_identical_for_one_and_many_threads() {
    let packs = packs();
    for (name, path) in registered_experiments() {
        let bytes = payload_bytes(&packs, &path);
        let one = counterlab::verify(&bytes, &packs, &fast(1));
        let many = counterlab::verify(&bytes, &packs, &fast(4));
        assert_eq!(one.to_json(), many.to_json(), "{name}");
    }
}

// `Report::null_distribution` (what `verify --svg` draws) is the claim's own null: every
// registered claim with a p-value has one (none has every permutation vacuous), it holds
// one statistic per counted permutation, and the p-value recomputed from it by
// docs/VERDICTS.md's rule, (b + 1) / (K + 1) with b the statistics ≥ the observed one, is
// the report's.
#[test]
fn the_null_distribution_is_the_one_behind_the_reported_p_value() {
    let packs = packs();
    let mut with_null = 0;
    for (name, path) in registered_experiments() {
        let report = counterlab::verify(&payload_bytes(&packs, &path), &packs, &fast(2));
        let Some(claim) = report.claim().filter(|c| c.p_value.is_some()) else {
            assert!(report.null_distribution().is_none(), "{name}");
            continue;
        };
        let null = report
            .null_distribution()
            .unwrap_or_else(|| panic!("{name}: a p-value without its null"));
        assert_eq!(null.values.len() as u64, claim.permutations, "{name}");
        let b = null.values.iter().filter(|&&s| s >= null.observed).count();
        let k = null.values.len();
        assert_eq!(
            claim.p_value,
            Some((b as f64 + 1.0) / (k as f64 + 1.0)),
            "{name}"
        );
        with_null += 1;
    }
    assert!(
        with_null >= 5,
        "only {with_null} registered claims have a null"
    );
}

#[test]
fn too_few_permutations_is_inconclusive_with_that_reason() {
    let packs = packs();
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/packs/class-imbalance/experiments/auc-above-chance.json");
    let options = VerifyOptions {
        permutations: 10,
        row_order_shuffles: 1,
        threads: 2,
        ..VerifyOptions::default()
    };
    let report = counterlab::verify(&payload_bytes(&packs, &path), &packs, &options);
    let Verdict::Inconclusive { reasons } = report.verdict() else {
        panic!("{:?}", report.to_json())
    };
    assert!(
        reasons.iter().any(|r| r.contains("too few permutations")),
        "{reasons:?}"
    );
}

#[test]
fn a_tampered_metric_is_rejected_with_path_observed_expected() {
    let packs = packs();
    let (_, path) = &registered_experiments()[0];
    let mut value: serde_json::Value =
        serde_json::from_slice(&payload_bytes(&packs, path)).unwrap();
    let arm = value["results"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    let auc = value["results"][&arm]["metrics"]["roc_auc"]
        .as_f64()
        .unwrap();
    value["results"][&arm]["metrics"]["roc_auc"] = serde_json::json!(auc + 1e-9);
    let report = counterlab::verify(
        serde_json::to_string(&value).unwrap().as_bytes(),
        &packs,
        &fast(2),
    );
    assert_eq!(report.verdict().as_str(), "REJECTED");
    let recompute = report.check("recompute.equal").unwrap();
    assert_eq!(recompute.status, Status::Fail);
    let ce = &recompute.counterexamples[0];
    assert_eq!(
        ce.witness["path"],
        format!("$.results.{arm}.metrics.roc_auc")
    );
    assert_eq!(ce.observed.as_f64(), Some(auc + 1e-9));
    assert_eq!(ce.expected.as_f64(), Some(auc));
    assert_eq!(report.check("result.hash").unwrap().status, Status::Fail);
    assert_eq!(
        report.check("claim.evidence").unwrap().status,
        Status::Skipped
    );
}

/// Golden report hashes of the bundled experiments' fresh payloads: a drift check on the
/// frozen rules (any change to a rule, a check, the evidence or the report shape changes
/// them). Regenerate deliberately with
/// `COUNTERLAB_BLESS=1 cargo test --release --test lib verify::report_hashes_do_not_drift`.
#[test]
fn report_hashes_do_not_drift() {
    let packs = packs();
    let mut hashes = BTreeMap::new();
    for (name, path) in registered_experiments() {
        let report = counterlab::verify(&payload_bytes(&packs, &path), &packs, &fast(2));
        hashes.insert(
            name,
            format!("{} {}", report.verdict().as_str(), report.report_hash()),
        );
    }
    counterlab_test_support::golden::check_json(
        "report_hashes.json",
        &serde_json::to_value(&hashes).expect("JSON"),
    );
}

#[test]
fn cli_exit_codes_and_observe_mode() {
    let dir = TempDir::new("verify-cli");
    let packs = packs();
    let (_, path) = &registered_experiments()[0];
    let good = dir.path().join("good.json");
    std::fs::write(&good, payload_bytes(&packs, path)).unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, b"{\"format\": ").unwrap();
    let run = counterlab;
    let o = run(&["verify", bad.to_str().unwrap()]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("REJECTED"));
    let o = run(&["verify", bad.to_str().unwrap(), "--observe", "--json"]);
    assert_eq!(o.status.code(), Some(0));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(report["mode"], "observe");
    assert_eq!(report["verdict"], "REJECTED");
    let o = run(&[
        "verify",
        good.to_str().unwrap(),
        "--permutations",
        "19",
        "--json",
    ]);
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let expected = match report["verdict"].as_str().unwrap() {
        "SUPPORTS" => 0,
        "INCONCLUSIVE" => 3,
        _ => 1,
    };
    assert_eq!(o.status.code(), Some(expected));
    let o = run(&["verify", "/nonexistent/payload.json"]);
    assert_eq!(o.status.code(), Some(2));
    let o = run(&[
        "verify",
        good.to_str().unwrap(),
        "--packs",
        "/nonexistent/packs",
    ]);
    assert_eq!(o.status.code(), Some(2));
}

/// A report says when an arm's test rows were seen in training: a `predefined` split that
/// tests each entity's last row shares every entity with training, and a random row split
/// of monthly snapshots shares every customer. The caveat carries the count and a witness,
/// is in the JSON for every arm, and is printed next to the claim for the arms it names.
#[test]
fn a_report_says_when_test_rows_were_seen() {
    let dir = TempDir::new("caveats");
    crate::common::write_pack(
        dir.path(),
        "caveat-pack",
        &crate::common::synthetic_csv(3, 30, 6),
        &["x1", "x2", "x3"],
        Some("t"),
    );
    let packs = Packs::discover(dir.path()).unwrap();
    let experiment = Experiment::from_json(
        br#"{"format":"counterlab.experiment/1","pack":"caveat-pack","seed":3,
        "model":{"kind":"logistic","c":1.0},
        "arms":[{"name":"given","split":{"kind":"predefined","column":"is_test"}},
                {"name":"grouped","split":{"kind":"entity_grouped","test_fraction":0.3}}],
        "metrics":["roc_auc"],
        "claim":{"kind":"metric_at_least","metric":"roc_auc","arm":"given","value":0.5}}"#,
    )
    .unwrap();
    let payload = counterlab::run(&packs, &experiment).unwrap();
    let bytes = payload.to_json_pretty().unwrap();
    let report = counterlab::verify(bytes.as_bytes(), &packs, &fast(2));
    let given: Vec<_> = report
        .caveats()
        .iter()
        .filter(|c| c.arm == "given")
        .collect();
    let shared = given
        .iter()
        .find(|c| c.kind == "shared_entities")
        .expect("a shared-entities caveat");
    assert_eq!(
        (shared.count, shared.witness.as_deref()),
        (30, Some("E000"))
    );
    assert!(shared.claimed);
    assert!(
        !report
            .caveats()
            .iter()
            .any(|c| c.arm == "grouped" && c.kind == "shared_entities"),
        "an entity-grouped split shares no entity"
    );
    let json = report.to_json();
    assert_eq!(
        json["caveats"].as_array().unwrap().len(),
        report.caveats().len()
    );

    let file = dir.path().join("payload.json");
    std::fs::write(&file, &bytes).unwrap();
    let o = counterlab(&[
        "verify",
        file.to_str().unwrap(),
        "--packs",
        dir.path().to_str().unwrap(),
        "--permutations",
        "19",
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("caveat  arm given: its test rows belong to 30 entities that also have training rows (e.g. \"E000\")"),
        "{text}"
    );
    assert!(!text.contains("caveat  arm grouped"), "{text}");

    // The bundled random-row split of monthly snapshots shares all 80 customers.
    let bundled = bundled_caveats("entity-leakage/payloads/random-inflates-auc.json");
    assert!(bundled
        .iter()
        .any(|c| c.arm == "random_rows" && c.kind == "shared_entities" && c.count == 80));
}

fn bundled_caveats(file: &str) -> Vec<counterlab::verify::Caveat> {
    let packs = packs();
    let bytes = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/packs")
            .join(file),
    )
    .unwrap();
    counterlab::verify(&bytes, &packs, &fast(2))
        .caveats()
        .to_vec()
}

/// `recorded_on_v1`: temporal-leakage's `random-inflates-auc` payload as `counterlab run`
/// recorded it on version 1 of the pack's fixture (`git show
/// b7744df:fixtures/packs/temporal-leakage/payloads/random-inflates-auc.json`), before
/// the fixture was regenerated on 2026-12-03 and its hash listed in `retired_blake3`.
const RECORDED_ON_V1: &str = "tests/data/retired/temporal-leakage-v1-random-inflates-auc.json";

fn verify_value(value: &serde_json::Value, packs: &Packs) -> counterlab::Report {
    counterlab::verify(value.to_string().as_bytes(), packs, &fast(2))
}

/// A payload recorded on a fixture the pack has retired is INCONCLUSIVE (an unsupported
/// case, like another kernel version), not REJECTED; any other foreign hash still is, and
/// so is a retired-fixture payload whose own result hash does not match its results.
#[test]
fn a_payload_of_a_retired_fixture_is_inconclusive_and_a_foreign_one_rejected() {
    let packs = packs();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(RECORDED_ON_V1);
    let recorded: serde_json::Value =
        serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let v1 = recorded["pack"]["fixture_blake3"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_ne!(v1, packs.get("temporal-leakage").unwrap().fixture_hash());

    let report = verify_value(&recorded, &packs);
    assert_eq!(report.verdict().as_str(), "INCONCLUSIVE");
    let fixture = report.check("fixture.hash").unwrap();
    assert_eq!(fixture.status, Status::Unverifiable);
    let reason = fixture.reason.as_deref().unwrap();
    assert!(
        reason.contains("retired") && reason.contains(&v1),
        "{reason}"
    );
    // Nothing is read against the current fixture: not its size, columns or rows.
    for id in [
        "budget.fixture",
        "budget.work",
        "experiment.valid",
        "pack.manifest",
        "recompute.equal",
        "claim.evidence",
    ] {
        assert_eq!(report.check(id).unwrap().status, Status::Skipped, "{id}");
    }
    for id in ["kernel.version", "pack.supported", "result.hash"] {
        assert_eq!(report.check(id).unwrap().status, Status::Pass, "{id}");
    }

    // What needs no fixture is still checked: results edited after the hash was taken.
    let mut edited = recorded.clone();
    let auc = &mut edited["results"]["latest_weeks"]["metrics"]["roc_auc"];
    *auc = serde_json::json!(auc.as_f64().unwrap() + 0.1);
    let report = verify_value(&edited, &packs);
    assert_eq!(report.verdict().as_str(), "REJECTED");
    assert_eq!(report.check("result.hash").unwrap().status, Status::Fail);

    let mut foreign = recorded.clone();
    foreign["pack"]["fixture_blake3"] = serde_json::json!("1".repeat(64));
    let report = verify_value(&foreign, &packs);
    assert_eq!(report.verdict().as_str(), "REJECTED");
    assert_eq!(report.check("fixture.hash").unwrap().status, Status::Fail);
}

/// The same for a boundary map, on a copy of entity-leakage whose pack.toml retires a
/// made-up earlier hash.
#[test]
fn a_boundary_map_of_a_retired_fixture_is_inconclusive() {
    let bundled = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/packs/entity-leakage");
    let dir = TempDir::new("retired-map");
    let copy = dir.path().join("entity-leakage");
    std::fs::create_dir_all(copy.join("experiments")).unwrap();
    for entry in std::fs::read_dir(bundled.join("experiments")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(
            entry.path(),
            copy.join("experiments").join(entry.file_name()),
        )
        .unwrap();
    }
    std::fs::copy(
        bundled.join("customer_churn.csv"),
        copy.join("customer_churn.csv"),
    )
    .unwrap();
    let earlier = "2".repeat(64);
    let toml = std::fs::read_to_string(bundled.join("pack.toml")).unwrap();
    let blake3_line = toml.lines().find(|l| l.starts_with("blake3 = ")).unwrap();
    let toml = toml.replacen(
        blake3_line,
        &format!("{blake3_line}\nretired_blake3 = [\"{earlier}\"]"),
        1,
    );
    std::fs::write(copy.join("pack.toml"), toml).unwrap();
    let packs = Packs::discover(dir.path()).unwrap();

    let map_path = bundled.join("payloads/boundary-map.json");
    let mut map: serde_json::Value =
        serde_json::from_slice(&std::fs::read(map_path).unwrap()).unwrap();
    // As a writer on the earlier fixture would have recorded it: its pack block, and the
    // map hash over it.
    map["pack"]["fixture_blake3"] = serde_json::json!(earlier);
    let cell_hashes: Vec<serde_json::Value> = map["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["cell_hash"].clone())
        .collect();
    map["map_hash"] = serde_json::json!(counterlab::canon::hash_value(
        counterlab::canon::HashKind::BoundaryMap,
        &serde_json::json!({
            "pack": map["pack"],
            "boundary": map["boundary"],
            "experiment": map["experiment"],
            "cell_hashes": cell_hashes,
        }),
    ));
    let report = verify_value(&map, &packs);
    assert_eq!(report.verdict().as_str(), "INCONCLUSIVE");
    assert_eq!(
        report.check("fixture.hash").unwrap().status,
        Status::Unverifiable
    );
    for id in ["pack.supported", "boundary.cell_hash", "boundary.map_hash"] {
        assert_eq!(report.check(id).unwrap().status, Status::Pass, "{id}");
    }
    for id in ["boundary.spec", "pack.manifest", "recompute.equal"] {
        assert_eq!(report.check(id).unwrap().status, Status::Skipped, "{id}");
    }

    // Relabelled without the map hash taken again: the map's own hash gives it away.
    map["map_hash"] = serde_json::json!("3".repeat(64));
    let report = verify_value(&map, &packs);
    assert_eq!(report.verdict().as_str(), "REJECTED");
    assert_eq!(
        report.check("boundary.map_hash").unwrap().status,
        Status::Fail
    );
}

/// A budget a caller sets is `Budget::given`, which the pack's own `[verify] max_work`
/// (entity-leakage declares 5·10¹⁰) does not raise; only a budget made `raisable` (as
/// the defaults are) is raised. The front ends' one constructor, `Choices::checked`, makes
/// every budget the user chose a given one (issue 42: a test that set a small budget on
/// `VerifyOptions` was silently raised by the pack unless it also cleared a flag).
#[test]
fn a_budget_the_caller_gives_is_never_raised_by_the_pack() {
    use counterlab::verify::{Budget, Choices};
    let packs = crate::common::bundled_packs();
    let declared = packs
        .get("entity-leakage")
        .unwrap()
        .manifest()
        .verify
        .and_then(|v| v.max_work)
        .expect("entity-leakage declares [verify] max_work");
    assert_eq!(declared, 50_000_000_000);
    assert_eq!(
        Budget::given(1_000).for_pack(Some(declared)),
        (1_000, "the options")
    );
    assert_eq!(
        Budget::raisable(1_000).for_pack(Some(declared)),
        (declared, "the pack's [verify]")
    );
    assert_eq!(
        Budget::raisable(1_000).for_pack(None),
        (1_000, "the options")
    );
    assert_eq!(
        Budget::raisable(declared + 1).for_pack(Some(declared)).0,
        declared + 1
    );
    let defaults = VerifyOptions::default();
    assert!(defaults.max_work.is_raisable() && defaults.max_design_bytes.is_raisable());

    let bytes = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/packs/entity-leakage/payloads/random-inflates-auc.json"),
    )
    .unwrap();
    let budget_check = |options: &VerifyOptions| {
        let report = counterlab::verify(&bytes, &packs, options);
        let check = report.check("budget.work").unwrap().clone();
        (check.status, check.reason.unwrap_or_default())
    };
    let (status, reason) = budget_check(&VerifyOptions {
        max_work: Budget::given(1_000),
        ..crate::common::fast_options()
    });
    assert_eq!(status, Status::Unverifiable, "{reason}");
    assert!(
        reason.contains("over the budget of 1000 (the options)"),
        "{reason}"
    );
    let (status, reason) = budget_check(&VerifyOptions {
        max_work: Budget::raisable(1_000),
        ..crate::common::fast_options()
    });
    assert_eq!(status, Status::Pass, "{reason}");
    for (choices, budget) in [
        (
            Choices {
                max_work: Some(1_000),
                ..Choices::default()
            },
            "1000 (the options)",
        ),
        (
            Choices {
                max_design_bytes: Some(1_000),
                ..Choices::default()
            },
            "1000 (the options)",
        ),
    ] {
        let options = VerifyOptions {
            permutations: 19,
            ..choices.checked(str::to_owned).unwrap()
        };
        assert!(!options.max_work.is_raisable() || !options.max_design_bytes.is_raisable());
        let (status, reason) = budget_check(&options);
        assert_eq!(status, Status::Unverifiable, "{choices:?}: {reason}");
        assert!(reason.contains(budget), "{choices:?}: {reason}");
    }
}
