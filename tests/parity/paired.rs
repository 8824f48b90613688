//! Parity of the paired DeLong comparison with R's pROC 1.18.0
//! (`roc.test(r1, r2, paired = TRUE, method = "delong")` with `levels = c(0, 1)` and
//! `direction = "<"`), on the goldens written by `gen_paired_goldens.R` beside this file
//! (`apt-get install -y r-base-core r-cran-proc r-cran-jsonlite`, then
//! `Rscript tests/parity/gen_paired_goldens.R` from the repository root). pROC is GPL: only
//! its numbers are committed.
//!
//! Compared within 1e-9 (the bound): the difference, its standard error, z, the
//! 95% CI, and each AUC; the p-value within 1e-9 relative (it reaches 4e-45).

use counterlab::metrics::paired_delong;
use serde::Deserialize;

#[derive(Deserialize)]
struct Goldens {
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    name: String,
    y: Vec<u8>,
    s1: Vec<f64>,
    s2: Vec<f64>,
    auc1: f64,
    auc2: f64,
    z: f64,
    p_value: f64,
    ci: [f64; 2],
    se_diff: f64,
    ci1: [f64; 2],
}

#[test]
fn paired_delong_matches_proc_roc_test() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/parity/paired_goldens.json"
    );
    let bytes = std::fs::read(path).expect("paired goldens: run tests/parity/gen_paired_goldens.R");
    let goldens: Goldens = serde_json::from_slice(&bytes).expect("paired goldens parse");
    assert!(goldens.cases.len() >= 6);
    for case in &goldens.cases {
        let labels: Vec<bool> = case.y.iter().map(|&y| y == 1).collect();
        let got = paired_delong(&labels, &case.s1, &case.s2)
            .unwrap_or_else(|e| panic!("{}: {e}", case.name));
        let close = |what: &str, got: f64, want: f64| {
            assert!(
                (got - want).abs() <= 1e-9,
                "{}: {what} {got} vs pROC {want}",
                case.name
            );
        };
        close("auc1", got.auc_first, case.auc1);
        close("auc2", got.auc_second, case.auc2);
        close("difference", got.difference, case.auc1 - case.auc2);
        close("se", got.se, case.se_diff);
        close("z", got.z, case.z);
        close("ci low", got.ci.0, case.ci[0]);
        close("ci high", got.ci.1, case.ci[1]);
        assert!(
            (got.p_value - case.p_value).abs() <= 1e-9 * case.p_value.max(1e-300),
            "{}: p {} vs pROC {}",
            case.name,
            got.p_value,
            case.p_value
        );
    }
}

/// `counterlab metrics --score s1 --score2 s2 --json` prints pROC's paired comparison and
/// `ci.auc` (DeLong) within 1e-9, on every golden case, and names its intervals.
#[test]
fn cli_metrics_score2_matches_proc() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/parity/paired_goldens.json"
    );
    let goldens: Goldens = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let dir = crate::common::TempDir::new("metrics-paired");
    for case in &goldens.cases {
        let mut csv = String::from("y,s1,s2\n");
        for i in 0..case.y.len() {
            csv.push_str(&format!(
                "{},{:?},{:?}\n",
                case.y[i], case.s1[i], case.s2[i]
            ));
        }
        let file = dir.path().join(format!("{}.csv", case.name));
        std::fs::write(&file, csv).unwrap();
        let file = file.to_str().unwrap();
        let o = crate::common::counterlab(&[
            "metrics", file, "--label", "y", "--score", "s1", "--score2", "s2", "--json",
        ]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let close = |what: &str, got: &serde_json::Value, want: f64| {
            let got = got
                .as_f64()
                .unwrap_or_else(|| panic!("{}: {what} {got}", case.name));
            assert!(
                (got - want).abs() <= 1e-9,
                "{}: {what} {got} vs pROC {want}",
                case.name
            );
        };
        close("roc_auc", &v["roc_auc"], case.auc1);
        close("ci.auc low", &v["roc_auc_ci"][0], case.ci1[0]);
        close("ci.auc high", &v["roc_auc_ci"][1], case.ci1[1]);
        assert_eq!(v["roc_auc_interval"], "delong");
        let p = &v["paired"];
        assert_eq!(p["interval"], "delong-paired", "{}", case.name);
        // The interval holds the scores fixed, and the JSON says so (issue 32, item 6).
        assert_eq!(p["conditional_on"], "given_scores", "{}", case.name);
        close("roc_auc2", &p["roc_auc2"], case.auc2);
        close("difference", &p["difference"], case.auc1 - case.auc2);
        close("se", &p["se"], case.se_diff);
        close("z", &p["z"], case.z);
        close("ci low", &p["ci"][0], case.ci[0]);
        close("ci high", &p["ci"][1], case.ci[1]);
        let got_p = p["p_value"].as_f64().unwrap();
        assert!(
            (got_p - case.p_value).abs() <= 1e-9 * case.p_value.max(1e-300),
            "{}: p {got_p} vs {}",
            case.name,
            case.p_value
        );
    }
}

/// With `--entity`, rows of one entity are a cluster: the interval is Obuchowski's, which
/// for one row per entity is (up to its small-sample factor) DeLong's, and for every row
/// written twice into its entity keeps its width where a row-level interval would shrink.
#[test]
fn cli_metrics_entity_gives_the_clustered_interval() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/parity/paired_goldens.json"
    );
    let goldens: Goldens = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let case = goldens
        .cases
        .iter()
        .find(|c| c.name == "n300_near_equal")
        .expect("the 300-row case");
    let dir = crate::common::TempDir::new("metrics-entity");
    let mut csv = String::from("id,y,s1,s2\n");
    for copy in 0..2 {
        let _ = copy;
        for i in 0..case.y.len() {
            csv.push_str(&format!(
                "p{i:03},{},{:?},{:?}\n",
                case.y[i], case.s1[i], case.s2[i]
            ));
        }
    }
    let file = dir.path().join("twice.csv");
    std::fs::write(&file, csv).unwrap();
    let file = file.to_str().unwrap();
    let run = |extra: &[&str]| -> serde_json::Value {
        let mut args = vec![
            "metrics", file, "--label", "y", "--score", "s1", "--score2", "s2", "--json",
        ];
        args.extend_from_slice(extra);
        let o = crate::common::counterlab(&args);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let rows = run(&[]);
    let clustered = run(&["--entity", "id"]);
    assert_eq!(clustered["n_entities"], 300);
    assert_eq!(clustered["roc_auc_interval"], "obuchowski-clustered");
    assert_eq!(
        clustered["paired"]["interval"],
        "obuchowski-clustered-paired"
    );
    let se = |v: &serde_json::Value| v["roc_auc_se"].as_f64().unwrap();
    // The duplicated rows' row-level se is about 1/√2 of the clustered one.
    let ratio = se(&rows) / se(&clustered);
    assert!(
        (0.68..0.74).contains(&ratio),
        "row-level / clustered se = {ratio}"
    );
    let paired_se = |v: &serde_json::Value| v["paired"]["se"].as_f64().unwrap();
    // Clustered on the duplicated rows ≈ pROC's paired se on the original rows.
    assert!(
        (paired_se(&clustered) / case.se_diff - 1.0).abs() < 0.02,
        "{} vs {}",
        paired_se(&clustered),
        case.se_diff
    );
}

/// Labels none of which equal `--positive` are an error that names the labels seen.
#[test]
fn cli_metrics_without_a_positive_label_names_the_labels_seen() {
    let dir = crate::common::TempDir::new("metrics-positive");
    let file = dir.path().join("tf.csv");
    std::fs::write(&file, "y,s\nTrue,0.9\nFalse,0.2\nTrue,0.7\n").unwrap();
    let o = crate::common::counterlab(&[
        "metrics",
        file.to_str().unwrap(),
        "--label",
        "y",
        "--score",
        "s",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("no label equals --positive \"1\"")
            && err.contains("\"True\" (2 rows)")
            && err.contains("\"False\" (1 row)"),
        "{err}"
    );
}
