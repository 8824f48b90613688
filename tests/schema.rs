//! The JSON Schemas in `docs/` against real output: every bundled experiment's payload
//! must match `docs/payload.schema.json`, every report `docs/report.schema.json`, and the
//! checker must refuse what the schemas forbid (so these tests can fail).
//!
//! The checker is the library's own validator (`counterlab::schema`, the one `verify`
//! enforces), run on the files in `docs/`; it refuses a schema that uses a keyword it
//! does not enforce, so the schemas cannot silently rely on something it ignores.

use std::path::Path;

use serde_json::{json, Value};

use counterlab::experiment::MetricName;
use counterlab::run::PAYLOAD_FORMAT;
use counterlab::verify::{
    VerifyOptions, BOUNDARY_CHECK_IDS, CHECK_IDS, REPORT_FORMAT, VERIFIER_VERSION,
};
use counterlab::{Experiment, Packs, RunOptions};

use crate::common::{recorded_reports, registered_runs, write_pack, TempDir};

// ---------------------------------------------------------------------------------------
// The checker: the library's own validator (src/schema.rs), loaded from the files in
// docs/ as a reader sees them (the verifier embeds the same files at build time).

/// A schema file of `docs/`.
pub struct Schema {
    inner: counterlab::schema::Schema,
    root: Value,
    name: String,
}

impl Schema {
    /// Loads and audits `docs/<name>`.
    pub fn load(name: &str) -> Schema {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("docs")
            .join(name);
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let inner = counterlab::schema::Schema::from_json(name, &text)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        Schema {
            root: inner.root().clone(),
            inner,
            name: name.to_owned(),
        }
    }

    /// Every violation of the schema by `instance`, each with its JSON path.
    pub fn errors(&self, instance: &Value) -> Vec<String> {
        self.inner
            .violations(instance)
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    /// Panics with every violation when `instance` does not match.
    pub fn assert_valid(&self, instance: &Value, what: &str) {
        let errors = self.errors(instance);
        assert!(
            errors.is_empty(),
            "{what} does not match docs/{}:\n  {}",
            self.name,
            errors.join("\n  ")
        );
    }
}

// ---------------------------------------------------------------------------------------
// Real output.

fn packs() -> Packs {
    Packs::discover(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/packs")).unwrap()
}

fn fast() -> VerifyOptions {
    VerifyOptions {
        permutations: 19,
        row_order_shuffles: 1,
        threads: 2,
        ..Default::default()
    }
}

/// Every bundled experiment's payload text as `counterlab run` writes it (computed once per
/// test binary: `common::registered_runs`).
fn bundled_payloads() -> Vec<(String, String)> {
    registered_runs()
        .iter()
        .map(|run| {
            (
                run.name.clone(),
                String::from_utf8(run.payload.clone()).unwrap(),
            )
        })
        .collect()
}

#[test]
fn schemas_agree_with_the_code_constants() {
    let report = Schema::load("report.schema.json");
    let ids: Vec<&str> = report.root["$defs"]["checkId"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    // The enum is the union of both check lists, each list in its own order.
    let mut union: Vec<&str> = CHECK_IDS.to_vec();
    union.extend(
        BOUNDARY_CHECK_IDS
            .iter()
            .copied()
            .filter(|id| !CHECK_IDS.contains(id)),
    );
    let mut sorted_ids = ids.clone();
    sorted_ids.sort_unstable();
    union.sort_unstable();
    assert_eq!(
        sorted_ids, union,
        "docs/report.schema.json: check ids = CHECK_IDS ∪ BOUNDARY_CHECK_IDS, once each"
    );
    for list in [&CHECK_IDS[..], &BOUNDARY_CHECK_IDS[..]] {
        let positions: Vec<usize> = list
            .iter()
            .map(|id| ids.iter().position(|x| x == id).unwrap())
            .collect();
        assert!(
            positions.windows(2).all(|w| w[0] < w[1]),
            "docs/report.schema.json lists {list:?} out of order"
        );
    }
    assert_eq!(
        report.root["properties"]["checks"]["oneOf"],
        json!([
            { "minItems": CHECK_IDS.len(), "maxItems": CHECK_IDS.len() },
            { "minItems": BOUNDARY_CHECK_IDS.len(), "maxItems": BOUNDARY_CHECK_IDS.len() }
        ]),
        "docs/report.schema.json: a report has every check of one of the two lists"
    );
    assert_eq!(
        report.root["properties"]["format"]["const"],
        json!(REPORT_FORMAT)
    );
    assert_eq!(
        report.root["properties"]["verifier"]["properties"]["version"]["const"],
        json!(VERIFIER_VERSION)
    );

    let payload = Schema::load("payload.schema.json");
    assert_eq!(
        payload.root["properties"]["format"]["const"],
        json!(PAYLOAD_FORMAT)
    );
    let metric_names: Vec<Value> = [
        MetricName::RocAuc,
        MetricName::Accuracy,
        MetricName::BalancedAccuracy,
        MetricName::MajorityBaselineAccuracy,
        MetricName::AccuracyLift,
    ]
    .iter()
    .map(|m| json!(m.as_str()))
    .collect();
    assert_eq!(
        payload.root["$defs"]["metricName"]["enum"],
        Value::Array(metric_names.clone())
    );
    let keys: Vec<Value> = payload.root["$defs"]["metrics"]["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(|k| json!(k))
        .collect();
    let mut sorted = metric_names;
    sorted.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
    assert_eq!(keys, sorted);
}

#[test]
fn every_bundled_payload_matches_the_payload_schema() {
    let schema = Schema::load("payload.schema.json");
    for (name, text) in bundled_payloads() {
        let value: Value = serde_json::from_str(&text).unwrap();
        schema.assert_valid(&value, &format!("the payload of {name}"));
    }
}

#[test]
fn every_report_matches_the_report_schema() {
    let schema = Schema::load("report.schema.json");
    let packs = packs();
    let payloads = bundled_payloads();
    for run in registered_runs() {
        // The report under fast options (computed once per test binary).
        schema.assert_valid(
            &run.report.to_json(),
            &format!("the report on {}", run.name),
        );
    }

    // Garbage: REJECTED at payload.parse, everything after it skipped, claim null.
    let report = counterlab::verify(b"{", &packs, &fast()).to_json();
    schema.assert_valid(&report, "the report on b\"{\"");
    assert_eq!(report["verdict"], "REJECTED");
    assert_eq!(report["claim"], Value::Null);

    // A tampered number: REJECTED with counterexamples (result.hash, recompute.equal).
    let mut tampered: Value = serde_json::from_str(&payloads[0].1).unwrap();
    let arm = tampered["results"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    tampered["results"][&arm]["metrics"]["accuracy"] = json!(0.123);
    let report = counterlab::verify(tampered.to_string().as_bytes(), &packs, &fast()).to_json();
    schema.assert_valid(&report, "the report on a tampered payload");
    assert_eq!(report["verdict"], "REJECTED");

    // A pack the verifier does not have: INCONCLUSIVE (unsupported case), in observe mode.
    let mut unknown: Value = serde_json::from_str(&payloads[0].1).unwrap();
    unknown["pack"]["id"] = json!("no-such-pack");
    let observe = VerifyOptions {
        mode: counterlab::verify::Mode::Observe,
        ..fast()
    };
    let report = counterlab::verify(unknown.to_string().as_bytes(), &packs, &observe).to_json();
    schema.assert_valid(&report, "the report on a payload for an unknown pack");
    assert_eq!(report["verdict"], "INCONCLUSIVE");
    assert_eq!(report["mode"], "observe");
}

/// The payloads recorded in `fixtures/packs/*/payloads/` (honest, overclaimed and tampered
/// numbers, all in the shape `counterlab run` writes) and the reports on them, which cover
/// SUPPORTS and a claim contradicted by its evidence.
#[test]
fn recorded_payloads_and_their_reports_match_the_schemas() {
    let payload_schema = Schema::load("payload.schema.json");
    let report_schema = Schema::load("report.schema.json");
    let packs = packs();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/packs");
    let mut files = Vec::new();
    for pack in std::fs::read_dir(&root).unwrap() {
        let Ok(entries) = std::fs::read_dir(pack.unwrap().path().join("payloads")) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "json") {
                files.push(path);
            }
        }
    }
    files.sort();
    let boundary_schema = Schema::load("boundary.schema.json");
    let mut maps = 0;
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let value: Value = serde_json::from_slice(&bytes).unwrap();
        if value["format"] == "counterlab.boundary/1" {
            maps += 1;
            boundary_schema.assert_valid(&value, &path.display().to_string());
        } else {
            payload_schema.assert_valid(&value, &path.display().to_string());
        }
        // The report at the default options, computed once per test binary, for the files
        // expected.toml lists (all of them, today); any other is verified here.
        let report = match recorded_reports().iter().find(|r| r.case.path == *path) {
            Some(recorded) => recorded.report.to_json(),
            None => counterlab::verify(&bytes, &packs, &fast()).to_json(),
        };
        report_schema.assert_valid(&report, &format!("the report on {}", path.display()));
    }
    assert!(maps >= 2, "the recorded boundary maps are checked too");
}

/// `boundary.schema.json` copies the payload's and the report's `$defs` (one file per
/// format keeps each schema self-contained): the copies must not drift from the originals.
#[test]
fn boundary_schema_shares_the_payload_and_report_defs_verbatim() {
    let read = |name: &str| -> Value {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("docs")
            .join(name);
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    };
    let boundary = read("boundary.schema.json");
    let payload = read("payload.schema.json");
    let report = read("report.schema.json");
    for (key, def) in payload["$defs"].as_object().unwrap() {
        assert_eq!(
            &boundary["$defs"][key], def,
            "$defs.{key} differs from payload.schema.json"
        );
    }
    assert_eq!(
        boundary["$defs"]["claimReport"],
        report["$defs"]["claimReport"]
    );
    // The prediction schema copies the defs it uses.
    let prediction = read("prediction.schema.json");
    for (key, def) in prediction["$defs"].as_object().unwrap() {
        assert_eq!(
            &payload["$defs"][key], def,
            "prediction $defs.{key} differs"
        );
    }
}

/// A pack whose predefined test rows are all negative: ROC AUC, balanced accuracy and
/// DeLong are undefined, `roc_auc_delta` and `temporal_rows` are null. The `{"undefined":
/// reason}` forms must match the schemas too.
#[test]
fn undefined_metrics_match_the_schemas() {
    let dir = TempDir::new("schema");
    let csv = "entity,label,x1,x2,is_test\n\
               E01,0,0.1,1.0,0\nE02,1,0.9,2.0,0\nE03,0,0.2,1.5,0\nE04,1,0.8,2.5,0\n\
               E05,0,0.3,0.5,0\nE06,1,0.7,3.0,0\nE07,0,0.25,1.2,1\nE08,0,0.6,2.2,1\n";
    write_pack(dir.path(), "one-class-test", csv, &["x1", "x2"], None);
    let packs = Packs::discover(dir.path()).unwrap();
    let experiment = Experiment::from_json(
        br#"{"format": "counterlab.experiment/1", "pack": "one-class-test", "seed": 1,
             "model": {"kind": "logistic", "c": 1},
             "arms": [{"name": "given", "split": {"kind": "predefined", "column": "is_test"}}],
             "ablations": [{"name": "identity", "drop": []}, {"name": "no_x2", "drop": ["x2"]}],
             "metrics": ["roc_auc", "accuracy", "balanced_accuracy", "majority_baseline_accuracy", "accuracy_lift"]}"#,
    )
    .unwrap();
    let text = counterlab::run_with(
        packs.get("one-class-test").unwrap(),
        &experiment,
        &RunOptions { threads: 1 },
    )
    .unwrap()
    .to_json_pretty()
    .unwrap();
    let payload: Value = serde_json::from_str(&text).unwrap();
    let given = &payload["results"]["given"];
    assert_eq!(
        given["metrics"]["roc_auc"],
        json!({"undefined": "test set has no positive rows"})
    );
    assert_eq!(
        given["metrics"]["balanced_accuracy"],
        json!({"undefined": "test set has no positive rows"})
    );
    assert_eq!(
        given["roc_auc_delong"],
        json!({"undefined": "test set has no positive rows"})
    );
    assert_eq!(given["ablations"]["no_x2"]["roc_auc_delta"], Value::Null);
    assert_eq!(given["overlap"]["temporal_rows"], Value::Null);
    assert_eq!(payload["claim"], Value::Null);
    assert!(
        payload["experiment"].get("claim").is_none()
            && payload["experiment"].get("features").is_none()
    );
    Schema::load("payload.schema.json").assert_valid(&payload, "the one-class-test payload");

    let report = counterlab::verify(text.as_bytes(), &packs, &fast()).to_json();
    Schema::load("report.schema.json")
        .assert_valid(&report, "the report on the one-class-test payload");
    assert_eq!(report["verdict"], "INCONCLUSIVE", "{report}");
}

/// Asserts that `schema` refuses `good` after `mutate`.
fn refused(schema: &Schema, good: &Value, what: &str, mutate: impl Fn(&mut Value)) {
    let mut bad = good.clone();
    mutate(&mut bad);
    assert!(
        !schema.errors(&bad).is_empty(),
        "docs/{} accepted {what}",
        schema.name
    );
}

#[test]
fn the_checker_refuses_what_the_schemas_forbid() {
    let packs = packs();
    let s = Schema::load("report.schema.json");
    let good = counterlab::verify(b"{", &packs, &fast()).to_json();
    assert!(s.errors(&good).is_empty());
    refused(&s, &good, "an extra top-level key", |r| {
        r["extra"] = json!(1)
    });
    refused(&s, &good, "an extra key in a check", |r| {
        r["checks"][0]["extra"] = json!(1)
    });
    refused(&s, &good, "an extra key in counters", |r| {
        r["counters"]["extra"] = json!(1)
    });
    refused(&s, &good, "an extra key in verifier", |r| {
        r["verifier"]["extra"] = json!(1)
    });
    refused(&s, &good, "an extra key in a counterexample", |r| {
        r["checks"][1]["counterexamples"][0]["extra"] = json!(1)
    });
    refused(&s, &good, "an unknown verdict", |r| {
        r["verdict"] = json!("MAYBE")
    });
    refused(&s, &good, "an unknown mode", |r| r["mode"] = json!("audit"));
    refused(&s, &good, "an unknown status", |r| {
        r["checks"][0]["status"] = json!("passed")
    });
    refused(&s, &good, "an unknown check id", |r| {
        r["checks"][0]["id"] = json!("budget.bytes")
    });
    refused(&s, &good, "a reason on a pass", |r| {
        r["checks"][0]["reason"] = json!("why")
    });
    refused(&s, &good, "a skipped check without a reason", |r| {
        r["checks"][3].as_object_mut().unwrap().remove("reason");
    });
    refused(&s, &good, "a float count", |r| {
        r["counters"]["run"] = json!(2.0)
    });
    refused(&s, &good, "a malformed hash", |r| {
        r["payload_hash"] = json!("ABC")
    });
    refused(&s, &good, "a missing key", |r| {
        r.as_object_mut().unwrap().remove("reasons");
    });
    refused(&s, &good, "reasons on a REJECTED verdict", |r| {
        r["reasons"] = json!(["why"])
    });
    refused(&s, &good, "17 checks", |r| {
        r["checks"].as_array_mut().unwrap().pop();
    });
    refused(
        &s,
        &good,
        "13 checks (neither a payload's nor a map's list)",
        |r| {
            r["checks"].as_array_mut().unwrap().truncate(13);
        },
    );
    refused(&s, &good, "an unknown claim outcome", |r| {
        r["claim"] = json!({"statistic": "roc_auc(a)", "observed": 0.7, "threshold": 0.6,
            "ci": [0.6, 0.8], "se": 0.05, "interval": "delong", "p_value": 0.05,
            "permutations": 19, "null": "row-level label permutation", "alpha": 0.05,
            "outcome": "proven"})
    });

    let s = Schema::load("payload.schema.json");
    let (_, text) = &bundled_payloads()[0];
    let good: Value = serde_json::from_str(text).unwrap();
    assert!(s.errors(&good).is_empty());
    let arm = good["results"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    refused(&s, &good, "an extra top-level key", |p| {
        p["extra"] = json!(1)
    });
    refused(&s, &good, "an unknown metric", |p| {
        p["results"][&arm]["metrics"]["auc"] = json!(0.5)
    });
    refused(&s, &good, "an extra key in an undefined metric", |p| {
        p["results"][&arm]["metrics"]["accuracy"] = json!({"undefined": "x", "extra": 1})
    });
    refused(&s, &good, "an extra key in roc_auc_delong", |p| {
        p["results"][&arm]["roc_auc_delong"]["extra"] = json!(1)
    });
    refused(&s, &good, "an unknown split kind", |p| {
        p["results"][&arm]["split"]["kind"] = json!("random")
    });
    refused(&s, &good, "a float count", |p| {
        p["results"][&arm]["split"]["test_rows"] = json!(10.0)
    });
    refused(&s, &good, "a column on a fraction split", |p| {
        p["experiment"]["arms"][0]["split"]["column"] = json!("x")
    });
    refused(&s, &good, "another format", |p| {
        p["format"] = json!("counterlab.payload/2")
    });
}
