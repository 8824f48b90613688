//! ROC AUC against scikit-learn's `roc_auc_score` on tie-heavy goldens.
//!
//! Goldens: `tests/parity/auc_goldens.json`, written by `tests/parity/gen_auc_goldens.py`
//! (run `python3 tests/parity/gen_auc_goldens.py` from the crate root to regenerate; the
//! file records the numpy and scikit-learn versions that produced it).

use counterlab::metrics::{delong, roc_auc_stats};
use serde::Deserialize;

#[derive(Deserialize)]
struct Goldens {
    sklearn: String,
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    name: String,
    labels: Vec<u8>,
    scores: Vec<f64>,
    sklearn_auc: f64,
}

fn goldens() -> Goldens {
    serde_json::from_str(include_str!("auc_goldens.json")).expect(
        "tests/parity/auc_goldens.json parses; regenerate with \
         `python3 tests/parity/gen_auc_goldens.py`",
    )
}

fn labels(case: &Case) -> Vec<bool> {
    case.labels
        .iter()
        .map(|&l| match l {
            0 => false,
            1 => true,
            other => panic!("{}: label {other} is not 0/1", case.name),
        })
        .collect()
}

#[test]
fn auc_matches_sklearn_within_1e_15() {
    let g = goldens();
    assert!(g.cases.len() >= 6, "expected at least 6 golden datasets");
    let mut failures = Vec::new();
    for case in &g.cases {
        let y = labels(case);
        let ours = roc_auc_stats(&y, &case.scores)
            .unwrap_or_else(|e| panic!("{}: {e}", case.name))
            .auc;
        let diff = (ours - case.sklearn_auc).abs();
        if diff > 1e-15 {
            failures.push(format!(
                "{}: ours {ours:?} vs sklearn {} {:?} (|diff| = {diff:e})",
                case.name, g.sklearn, case.sklearn_auc
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn goldens_exercise_ties_and_signed_zeros() {
    // Keeps the golden file honest: it must stay tie-heavy and cover −0.0 vs 0.0.
    let g = goldens();
    let all_tied = g
        .cases
        .iter()
        .any(|c| c.scores.len() > 1 && c.scores.iter().all(|&s| s == c.scores[0]));
    let signed_zeros = g.cases.iter().any(|c| {
        c.scores.iter().any(|s| *s == 0.0 && s.is_sign_negative())
            && c.scores.iter().any(|s| *s == 0.0 && s.is_sign_positive())
    });
    assert!(all_tied && signed_zeros);
}

#[test]
fn delong_is_defined_and_brackets_the_auc_on_goldens() {
    for case in &goldens().cases {
        let y = labels(case);
        let d = delong(&y, &case.scores).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        assert!(
            d.ci.0 <= d.auc && d.auc <= d.ci.1 && d.variance >= 0.0,
            "{}: {d:?}",
            case.name
        );
    }
}
