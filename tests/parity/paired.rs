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
