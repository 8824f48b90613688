//! Parity of the logistic regression with scikit-learn 1.9.1 (`StandardScaler` +
//! `LogisticRegression(C, tol=1e-10, max_iter=10000)`), on the goldens written by
//! `gen_logistic_goldens.py` beside this file (run it from the repository root to
//! regenerate `logistic_goldens.json`).

use counterlab::metrics::{roc_auc, MetricValue};
use counterlab::model::{LogisticRegression, Matrix};
use serde::Deserialize;

use super::max_abs_diff;

#[derive(Deserialize)]
struct Goldens {
    datasets: Vec<Golden>,
}

#[derive(Deserialize)]
struct Golden {
    name: String,
    c: f64,
    train_x: Vec<Vec<f64>>,
    train_y: Vec<bool>,
    test_x: Vec<Vec<f64>>,
    test_y: Vec<bool>,
    scaler_mean: Vec<f64>,
    scaler_scale: Vec<f64>,
    coef: Vec<f64>,
    intercept: f64,
    optimum_coef: Vec<f64>,
    optimum_intercept: f64,
    test_auc: f64,
}

fn goldens() -> Goldens {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/parity/logistic_goldens.json"
    );
    let bytes =
        std::fs::read(path).expect("logistic goldens: run tests/parity/gen_logistic_goldens.py");
    serde_json::from_slice(&bytes).expect("logistic goldens parse")
}

fn matrix(rows: &[Vec<f64>]) -> Matrix {
    let cols = rows[0].len();
    Matrix::from_row_major(rows.len(), cols, rows.concat())
}

#[test]
fn logistic_matches_scikit_learn() {
    let goldens = goldens();
    assert!(goldens.datasets.len() >= 4);
    for g in &goldens.datasets {
        let name = &g.name;
        let model = LogisticRegression::new(g.c)
            .fit(&matrix(&g.train_x), &g.train_y)
            .unwrap();
        assert!(model.converged, "{name}: {model:?}");
        eprintln!(
            "{name}: C = {}, {} Newton iterations",
            g.c, model.iterations
        );

        // StandardScaler: the same statistics up to summation order (numpy sums pairwise).
        for (k, (&ours, &theirs)) in model
            .standardizer
            .mean
            .iter()
            .zip(&g.scaler_mean)
            .enumerate()
        {
            assert!(
                (ours - theirs).abs() <= 1e-12 * theirs.abs().max(1.0),
                "{name}: mean[{k}] {ours} vs {theirs}"
            );
        }
        for (k, (&ours, &theirs)) in model
            .standardizer
            .scale
            .iter()
            .zip(&g.scaler_scale)
            .enumerate()
        {
            assert!(
                (ours - theirs).abs() <= 1e-12 * theirs,
                "{name}: scale[{k}] {ours} vs {theirs}"
            );
        }

        // sklearn's lbfgs stops on ftol = 64·ε as well as gtol, up to ~3e-8 from the optimum
        // (measured by the generator); 1e-6 is the parity the kernel promises.
        let lbfgs =
            max_abs_diff(&model.coefficients, &g.coef).max((model.intercept - g.intercept).abs());
        assert!(
            lbfgs < 1e-6,
            "{name}: coefficients differ from sklearn's by {lbfgs:e}"
        );
        // The optimum itself (newton-cholesky polished in numpy to a 1e-15 gradient): our
        // stopping test (scaled gradient < 1e-10) leaves at most ~2e-10 here.
        let optimum = max_abs_diff(&model.coefficients, &g.optimum_coef)
            .max((model.intercept - g.optimum_intercept).abs());
        assert!(
            optimum < 1e-9,
            "{name}: coefficients differ from the optimum by {optimum:e}"
        );

        // Test AUC: the ranking of the test probabilities is the same (the generator made
        // sure no positive/negative pair is closer than 1e-7), so the AUC agrees to rounding.
        let proba = model.predict_proba(&matrix(&g.test_x));
        match roc_auc(&g.test_y, &proba) {
            MetricValue::Value(auc) => {
                assert!(
                    (auc - g.test_auc).abs() <= 1e-12,
                    "{name}: AUC {auc} vs sklearn {}",
                    g.test_auc
                )
            }
            undefined => panic!("{name}: AUC {undefined:?}"),
        }
    }
}
