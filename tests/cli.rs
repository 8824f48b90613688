//! The real binary: commands, JSON keys, exit codes and error messages.

use std::path::Path;
use std::process::Output;

use serde::Deserialize;

use crate::common::{counterlab, TempDir};

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The `metrics --json` object as FORMATS.md specifies it (test-local type; unknown keys
/// are refused so the key set is pinned).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct MetricsJson {
    n: u64,
    n_pos: u64,
    n_neg: u64,
    roc_auc: Option<f64>,
    roc_auc_ci: Option<[f64; 2]>,
    roc_auc_se: Option<f64>,
    accuracy: Option<f64>,
    balanced_accuracy: Option<f64>,
    majority_baseline_accuracy: Option<f64>,
    undefined: Option<String>,
    /// Which interval `roc_auc_ci` is: `delong`, or `obuchowski-clustered` with `--entity`.
    roc_auc_interval: Option<String>,
    /// With `--entity` only.
    n_entities: Option<u64>,
    /// With `--score2` only (tests/parity/paired.rs checks its numbers).
    paired: Option<serde_json::Value>,
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_owned()
}

#[test]
fn metrics_json_has_the_documented_keys_and_hand_checked_values() {
    let dir = TempDir::new("cli-metrics");
    // A toy worked by hand: y = [0,0,1,1], s = [0.1,0.4,0.35,0.8] → AUC 0.75 (3 of 4 pairs).
    let file = write(dir.path(), "p.csv", "y,s\n0,0.1\n0,0.4\n1,0.35\n1,0.8\n");
    let o = counterlab(&["metrics", &file, "--label", "y", "--score", "s", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let m: MetricsJson = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!((m.n, m.n_pos, m.n_neg), (4, 2, 2));
    assert_eq!(m.roc_auc, Some(0.75));
    // Threshold 0.5: predictions 0,0,0,1 → 3 of 4 correct; TPR 1/2, TNR 1 → 0.75.
    assert_eq!(m.accuracy, Some(0.75));
    assert_eq!(m.balanced_accuracy, Some(0.75));
    assert_eq!(m.majority_baseline_accuracy, Some(0.5));
    let [lo, hi] = m.roc_auc_ci.unwrap();
    assert!(lo <= 0.75 && 0.75 <= hi && (0.0..=1.0).contains(&lo) && hi <= 1.0);
    assert!(m.undefined.is_none());
    assert_eq!(m.roc_auc_interval.as_deref(), Some("delong"));
    assert!(m.n_entities.is_none() && m.paired.is_none());
}

#[test]
fn metrics_single_class_is_null_with_a_reason() {
    let dir = TempDir::new("cli-one-class");
    let file = write(dir.path(), "p.csv", "y,s\n1,0.1\n1,0.4\n");
    let o = counterlab(&["metrics", &file, "--label", "y", "--score", "s", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let m: MetricsJson = serde_json::from_str(&stdout(&o)).unwrap();
    assert!(m.roc_auc.is_none() && m.roc_auc_ci.is_none() && m.roc_auc_se.is_none());
    assert!(m.undefined.unwrap().contains("negative"));
}

/// `counterlab metrics FILE --label y --score s` with `extra` flags.
fn metrics_ys(file: &str, extra: &[&str]) -> Output {
    counterlab(
        &[
            &["metrics", file, "--label", "y", "--score", "s"][..],
            extra,
        ]
        .concat(),
    )
}

/// A third label text is an error naming every label, not a silent negative: `1.0`
/// beside `1` is an export mistake, not a class. `--one-vs-rest` reads it as the rest.
#[test]
fn metrics_with_more_than_two_label_texts_says_so_unless_one_vs_rest() {
    let dir = TempDir::new("cli-three-labels");
    let file = write(
        dir.path(),
        "p.csv",
        "y,s\n1,0.9\n0,0.2\n2,0.8\n0,0.3\n1,0.4\n",
    );
    let o = metrics_ys(&file, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let message = stderr(&o);
    assert!(
        message.contains("column \"y\": 3 label texts where two classes were expected")
            && message.contains("\"0\" (2 rows), \"1\" (2 rows), \"2\" (1 row)")
            && message.contains("--one-vs-rest"),
        "{message}"
    );
    let o = metrics_ys(&file, &["--one-vs-rest", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let m: MetricsJson = serde_json::from_str(&stdout(&o)).unwrap();
    // Positives "1" at 0.9 and 0.4; the rest 0.2, 0.8 ("2") and 0.3: 5 of 6 pairs ordered.
    assert_eq!((m.n_pos, m.n_neg), (2, 3));
    assert_eq!(m.roc_auc, Some(5.0 / 6.0));
    // More labels than the 64 counted: said, not miscounted.
    let mut many = String::from("y,s\n");
    for i in 0..70 {
        many += &format!("c{i},0.{i}\n");
    }
    let file = write(dir.path(), "many.csv", &many);
    let o = metrics_ys(&file, &["--positive", "c0"]);
    assert_eq!(o.status.code(), Some(1));
    let message = stderr(&o);
    assert!(
        message.contains("more than 64 label texts") && message.contains("… (the first 64 labels)"),
        "{message}"
    );
}

#[test]
fn metrics_bad_score_is_a_data_error_naming_the_row() {
    let dir = TempDir::new("cli-bad");
    for bad in ["NaN", "", "high"] {
        let file = write(dir.path(), "p.csv", &format!("y,s\n0,0.1\n1,{bad}\n"));
        let o = counterlab(&["metrics", &file, "--label", "y", "--score", "s"]);
        assert_eq!(o.status.code(), Some(1), "{bad}");
        assert!(
            stderr(&o).contains("row 2, column \"s\""),
            "{bad}: {}",
            stderr(&o)
        );
    }
    let file = write(dir.path(), "p.csv", "y,s\n0,0.1\n");
    let o = counterlab(&["metrics", &file, "--label", "y", "--score", "score"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains(
            "column \"score\": column not found in the header (named by --score); the header has \"y\", \"s\""
        ),
        "{}",
        stderr(&o)
    );
}

/// A pack.toml that names a column the fixture spells otherwise: the error names the key,
/// lists the header and offers the closest name; `--packs` may name one pack folder.
#[test]
fn a_missing_column_names_its_key_and_the_closest_header_name() {
    let dir = TempDir::new("cli-closest");
    let csv = crate::common::synthetic_csv(5, 8, 3).replacen("label", "Label", 1);
    let pack = crate::common::write_pack(dir.path(), "closest", &csv, &["x1", "x2"], Some("t"));
    let o = counterlab(&["packs", "--packs", dir.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains(
            "column \"label\": column not found in the header (named by data.label in pack.toml)"
        ) && err.contains("did you mean \"Label\"?"),
        "{err}"
    );
    // A pack folder given as --packs is that pack, not an empty folder of packs.
    let fixed = crate::common::write_pack(
        dir.path(),
        "fixed",
        &crate::common::synthetic_csv(5, 8, 3),
        &["x1", "x2"],
        Some("t"),
    );
    std::fs::remove_dir_all(pack).unwrap();
    let o = counterlab(&["packs", "--packs", fixed.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("fixed"), "{}", stdout(&o));
    // Run where there is no fixtures/packs: the error says what was looked for and how to
    // point at packs.
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_counterlab"))
        .arg("packs")
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("no packs folder here: looked for fixtures/packs under")
            && err.contains("pass --packs DIR"),
        "{err}"
    );
}

#[test]
fn missing_files_and_bad_usage_exit_2() {
    let o = counterlab(&[
        "metrics",
        "/nonexistent/p.csv",
        "--label",
        "y",
        "--score",
        "s",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("/nonexistent/p.csv"));
    assert_eq!(counterlab(&["run"]).status.code(), Some(2));
    assert_eq!(counterlab(&["frobnicate"]).status.code(), Some(2));
    let o = counterlab(&["packs", "--packs", "/nonexistent/packs"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn run_writes_a_payload_with_the_documented_keys() {
    let dir = TempDir::new("cli-run");
    let out = dir.path().join("payload.json");
    let experiment = crate::canon::registered_experiments()[0].1.clone();
    let o = counterlab(&[
        "run",
        experiment.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("result_hash"));
    let payload: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    for key in [
        "format",
        "kernel",
        "pack",
        "experiment",
        "results",
        "claim",
        "result_hash",
    ] {
        assert!(payload.get(key).is_some(), "missing {key}");
    }
    assert_eq!(payload["format"], "counterlab.payload/1");
    // `hash` of the payload and of the experiment succeed and differ.
    let h1 = counterlab(&["hash", out.to_str().unwrap()]);
    let h2 = counterlab(&["hash", experiment.to_str().unwrap()]);
    assert!(h1.status.success() && h2.status.success());
    assert!(stdout(&h1).contains("payload") && stdout(&h2).contains("experiment"));
    assert_ne!(stdout(&h1)[..64], stdout(&h2)[..64]);
}

#[test]
fn run_with_packs_dir_and_invalid_experiment() {
    let dir = TempDir::new("cli-run-bad");
    let bad = write(
        dir.path(),
        "e.json",
        r#"{"format":"counterlab.experiment/1","pack":"entity-leakage","seed":1,"model":{"kind":"logistic","c":-1},"arms":[{"name":"a","split":{"kind":"random_rows","test_fraction":0.25}}],"metrics":["roc_auc"]}"#,
    );
    let o = counterlab(&["run", &bad, "--packs", "fixtures/packs"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("$.model.c"), "{}", stderr(&o));
    let unknown = write(
        dir.path(),
        "u.json",
        r#"{"format":"counterlab.experiment/1","pack":"no-such-pack","seed":1,"model":{"kind":"logistic","c":1},"arms":[{"name":"a","split":{"kind":"random_rows","test_fraction":0.25}}],"metrics":["roc_auc"]}"#,
    );
    let o = counterlab(&["run", &unknown]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no-such-pack"), "{}", stderr(&o));
}

#[test]
fn packs_lists_bundled_packs_with_fixture_hashes() {
    let o = counterlab(&["packs"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    for pack in counterlab::Packs::discover("fixtures/packs")
        .unwrap_or_default()
        .iter()
    {
        assert!(
            text.contains(pack.id()) && text.contains(pack.fixture_hash()),
            "{text}"
        );
    }
    assert!(
        text.contains("entity-leakage") && text.contains("class-imbalance"),
        "{text}"
    );
}

#[test]
fn hash_of_a_fixture_is_the_blake3_in_pack_toml() {
    let o = counterlab(&["hash", "fixtures/packs/entity-leakage/customer_churn.csv"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let toml = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/packs/entity-leakage/pack.toml"),
    )
    .unwrap();
    assert!(toml.contains(&stdout(&o)[..64]));
}

/// A pack.toml that cannot be parsed (a `max_work` past u64) is named with its parse error
/// in the verifier's reason, not only "no pack" (issue 46.8).
#[test]
fn verify_names_a_pack_toml_that_cannot_be_read() {
    let dir = TempDir::new("overflowing-max-work");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/packs/class-imbalance");
    let pack = dir.path().join("class-imbalance");
    std::fs::create_dir(&pack).unwrap();
    let fixture = "card_transactions.csv";
    std::fs::copy(root.join(fixture), pack.join(fixture)).unwrap();
    let manifest = std::fs::read_to_string(root.join("pack.toml")).unwrap();
    std::fs::write(
        pack.join("pack.toml"),
        format!("{manifest}\n[verify]\nmax_work = 99999999999999999999999\n"),
    )
    .unwrap();
    let payload = root.join("payloads/auc-above-chance.json");
    let out = counterlab(&[
        "verify",
        payload.to_str().unwrap(),
        "--packs",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(3), "{}", stdout(&out));
    let said = stdout(&out);
    assert!(
        said.contains("pack.toml cannot be read")
            && said.contains("number too large")
            && said.contains("max_work = 99999999999999999999999"),
        "{said}"
    );
}

/// A number past f64's range (`1e999`, or Python's `float("inf")` written as `Infinity`)
/// is refused with its JSON path and the finite range (issue 46.8).
#[test]
fn a_number_past_the_finite_range_says_so_with_its_path() {
    let dir = TempDir::new("out-of-range");
    let payload = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/packs/entity-leakage/payloads/random-inflates-auc.json"),
    )
    .unwrap();
    assert!(payload.contains("\"at_least\": 0.0"));
    for literal in ["1e999", "Infinity"] {
        let path = dir.path().join(format!("{literal}.json"));
        std::fs::write(
            &path,
            payload.replacen("\"at_least\": 0.0", &format!("\"within\": {literal}"), 1),
        )
        .unwrap();
        let out = counterlab(&["verify", path.to_str().unwrap(), "--json"]);
        assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
        let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        let parse = &report["checks"][1];
        assert_eq!(parse["id"], "payload.parse");
        let reason = parse["reason"].as_str().unwrap();
        assert!(
            reason.starts_with("not valid JSON at $.claim.within: "),
            "{reason}"
        );
        assert!(
            reason.contains("finite, at most 1.7976931348623157e308"),
            "{reason}"
        );
    }
}
