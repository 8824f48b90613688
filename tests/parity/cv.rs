//! Parity of cross-validation with scikit-learn 1.9.1, on the goldens written by
//! `gen_cv_goldens.py` beside this file (run it from the repository root to regenerate
//! `cv_goldens.json`):
//! - fold membership of `assignment = "sklearn"`: `KFold(k)` on the canonical row order,
//!   `GroupKFold(k)` on the entities and `TimeSeriesSplit(k)` on the distinct time values,
//!   row for row;
//! - the pooled out-of-fold ROC AUC of an `entity_k_fold` (and a `k_fold`) arm against
//!   `roc_auc_score(y, cross_val_predict(Pipeline([StandardScaler(),
//!   LogisticRegression(C, tol=1e-10, max_iter=10000)]), X, y, groups, cv, method=
//!   "predict_proba")[:, 1])` within 1e-9, and every out-of-fold probability within 1e-9 of
//!   the true optimum's (the script polishes each fold's fit with Newton steps).

use counterlab::experiment::{Assignment, SplitSpec};
use counterlab::pack::LoadLimits;
use counterlab::{run_with, Experiment, Pack, RunOptions};
use serde::Deserialize;

use super::max_abs_diff;

#[derive(Deserialize)]
struct Goldens {
    datasets: Vec<Dataset>,
}

#[derive(Deserialize)]
struct Dataset {
    name: String,
    c: f64,
    features: Vec<String>,
    entity: Vec<String>,
    time: Vec<i64>,
    label: Vec<u8>,
    x: Vec<Vec<f64>>,
    folds: Vec<PerK>,
}

#[derive(Deserialize)]
struct PerK {
    k: u32,
    kfold: Vec<i64>,
    group_kfold: Vec<i64>,
    time_series: TimeSeries,
    oof_auc_group_kfold: f64,
    oof_auc_kfold: f64,
    oof_proba_group_kfold_optimum: Vec<f64>,
    oof_proba_kfold_optimum: Vec<f64>,
}

#[derive(Deserialize)]
struct TimeSeries {
    fold_per_row: Vec<i64>,
}

fn goldens() -> Goldens {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/parity/cv_goldens.json");
    let bytes = std::fs::read(path).expect("cv goldens: run tests/parity/gen_cv_goldens.py");
    serde_json::from_slice(&bytes).expect("cv goldens parse")
}

/// The dataset as a pack (in memory; the folder is never read).
fn pack(d: &Dataset) -> Pack {
    let mut csv = format!("entity,time,label,{}\n", d.features.join(","));
    for i in 0..d.entity.len() {
        let cells: Vec<String> = d.x[i].iter().map(|v| format!("{v:?}")).collect();
        csv.push_str(&format!(
            "{},{},{},{}\n",
            d.entity[i],
            d.time[i],
            d.label[i],
            cells.join(",")
        ));
    }
    let features: Vec<String> = d.features.iter().map(|f| format!("{f:?}")).collect();
    let manifest = format!(
        "id = \"parity-{}\"\ntitle = \"cv parity\"\nconcept = \"entity-leakage\"\n\n[data]\nfile = \"data.csv\"\nblake3 = \"{}\"\nentity = \"entity\"\nlabel = \"label\"\npositive = \"1\"\nfeatures = [{}]\ntime = \"time\"\n",
        d.name.replace('_', "-"),
        blake3::hash(csv.as_bytes()).to_hex(),
        features.join(", ")
    );
    Pack::from_parts(
        std::env::temp_dir().join("counterlab-cv-parity"),
        &manifest,
        csv.as_bytes(),
        &LoadLimits::default(),
    )
    .unwrap_or_else(|e| panic!("{}: {e}", d.name))
}

/// Per source row (0-based file order), the fold that tests it (-1: never).
fn fold_per_source_row(pack: &Pack, spec: &SplitSpec) -> Vec<i64> {
    let table = pack.table();
    let folds = counterlab::split::folds(
        table,
        spec,
        7,
        &counterlab::JsonPath::field("arms").index(0).key("split"),
    )
    .expect("folds")
    .remove(0);
    let mut out = vec![-2; table.n_rows()];
    for (canonical, fold) in folds.fold_of_row().iter().enumerate() {
        out[table.source_rows()[canonical] - 1] = fold.map_or(-1, i64::from);
    }
    out
}

#[test]
fn sklearn_assignment_reproduces_kfold_groupkfold_and_timeseriessplit() {
    let goldens = goldens();
    assert!(goldens.datasets.len() >= 3);
    let mut compared = 0;
    for d in &goldens.datasets {
        let pack = pack(d);
        for per_k in &d.folds {
            let assignment = Some(Assignment::Sklearn);
            let k = per_k.k;
            for (spec, expected, what) in [
                (
                    SplitSpec::KFold {
                        folds: k,
                        assignment,
                        repeats: None,
                    },
                    &per_k.kfold,
                    "KFold",
                ),
                (
                    SplitSpec::EntityKFold {
                        folds: k,
                        assignment,
                        repeats: None,
                    },
                    &per_k.group_kfold,
                    "GroupKFold",
                ),
                (
                    SplitSpec::RollingOrigin {
                        folds: k,
                        assignment,
                        test_fraction: None,
                    },
                    &per_k.time_series.fold_per_row,
                    "TimeSeriesSplit",
                ),
            ] {
                assert_eq!(
                    &fold_per_source_row(&pack, &spec),
                    expected,
                    "{}: {what}({k})",
                    d.name
                );
                compared += 1;
            }
        }
    }
    assert!(compared >= 36, "{compared} fold assignments compared");
}

/// The experiment's only arm out of fold under `split`, on every feature.
fn oof(pack: &Pack, d: &Dataset, split: &str) -> (f64, Vec<f64>) {
    let json = format!(
        r#"{{"format": "counterlab.experiment/1", "pack": "{}", "seed": 7,
            "model": {{"kind": "logistic", "c": {:?}}},
            "arms": [{{"name": "cv", "split": {split}}}], "metrics": ["roc_auc"]}}"#,
        pack.id(),
        d.c
    );
    let experiment = Experiment::from_json(json.as_bytes()).expect("valid experiment");
    let payload = run_with(pack, &experiment, &RunOptions { threads: 2 }).expect("run");
    let auc = payload.results["cv"].metrics["roc_auc"]
        .value()
        .expect("a defined AUC");
    let table = pack.table();
    let predictions = counterlab::run::arm_predictions(pack, table, &experiment, 0).expect("arm");
    let mut by_source = vec![f64::NAN; table.n_rows()];
    for (i, &row) in predictions.test_rows.iter().enumerate() {
        by_source[table.source_rows()[row] - 1] = predictions.first().test_scores[i];
    }
    (auc, by_source)
}

#[test]
fn pooled_out_of_fold_auc_matches_cross_val_predict() {
    let goldens = goldens();
    let mut compared = 0;
    for d in &goldens.datasets {
        let pack = pack(d);
        for per_k in &d.folds {
            let k = per_k.k;
            for (kind, auc, proba) in [
                (
                    "entity_k_fold",
                    per_k.oof_auc_group_kfold,
                    &per_k.oof_proba_group_kfold_optimum,
                ),
                (
                    "k_fold",
                    per_k.oof_auc_kfold,
                    &per_k.oof_proba_kfold_optimum,
                ),
            ] {
                let split =
                    format!(r#"{{"kind": "{kind}", "folds": {k}, "assignment": "sklearn"}}"#);
                let (got_auc, got_proba) = oof(&pack, d, &split);
                assert!(
                    (got_auc - auc).abs() <= 1e-9,
                    "{} {kind}({k}): pooled AUC {got_auc} vs scikit-learn {auc}",
                    d.name
                );
                let diff = max_abs_diff(&got_proba, proba);
                assert!(
                    diff <= 1e-9,
                    "{} {kind}({k}): out-of-fold probabilities differ by {diff:e}",
                    d.name
                );
                compared += 1;
            }
        }
    }
    assert!(compared >= 24, "{compared} pooled AUCs compared");
}
