//! Parity of categorical features with scikit-learn 1.9.1, on the goldens written by
//! `gen_categorical_goldens.py` beside this file (run it from the repository root to
//! regenerate `categorical_goldens.json`): a pack whose `[data]` declares categorical
//! columns with their levels, run as a `k_fold` arm with `assignment = "sklearn"`, against
//! `cross_val_predict(Pipeline([ColumnTransformer([OneHotEncoder(categories=<the same
//! levels>) | passthrough per column]), StandardScaler(), LogisticRegression(C,
//! tol=1e-10, max_iter=10000)]), X, y, cv=KFold(k), method="predict_proba")[:, 1]`:
//! - the model's column names and order (`encoded_names`, from `get_feature_names_out`);
//! - the pooled out-of-fold ROC AUC within 1e-9, and every out-of-fold probability within
//!   1e-9 of the true optimum's (the script polishes each fold's fit with Newton steps);
//! - one data set has a level absent from a fold's training rows (an all-zero one-hot
//!   column, which both sides standardise with scale 1).

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
    entity: Vec<String>,
    time: Vec<i64>,
    label: Vec<u8>,
    columns: Vec<Column>,
    encoded_names: Vec<String>,
    folds: Vec<PerK>,
}

#[derive(Deserialize)]
struct Column {
    name: String,
    kind: String,
    #[serde(default)]
    levels: Vec<String>,
    values: Vec<serde_json::Value>,
}

#[derive(Deserialize)]
struct PerK {
    k: u32,
    oof_auc: f64,
    oof_proba_optimum: Vec<f64>,
    constant_train_columns: Vec<Vec<String>>,
}

fn goldens() -> Goldens {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/parity/categorical_goldens.json"
    );
    let bytes = std::fs::read(path)
        .expect("categorical goldens: run tests/parity/gen_categorical_goldens.py");
    serde_json::from_slice(&bytes).expect("categorical goldens parse")
}

/// The dataset as a pack with categorical columns (in memory; the folder is never read).
fn pack(d: &Dataset) -> Pack {
    let names: Vec<&str> = d.columns.iter().map(|c| c.name.as_str()).collect();
    let mut csv = format!("entity,time,label,{}\n", names.join(","));
    for i in 0..d.entity.len() {
        let cells: Vec<String> = d
            .columns
            .iter()
            .map(|c| match &c.values[i] {
                serde_json::Value::String(s) => s.clone(),
                v => format!("{:?}", v.as_f64().expect("a number")),
            })
            .collect();
        csv.push_str(&format!(
            "{},{},{},{}\n",
            d.entity[i],
            d.time[i],
            d.label[i],
            cells.join(",")
        ));
    }
    let quoted = |v: &[String]| {
        v.iter()
            .map(|s| format!("{s:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let categorical: Vec<&Column> = d
        .columns
        .iter()
        .filter(|c| c.kind == "categorical")
        .collect();
    let mut manifest = format!(
        "id = \"parity-{}\"\ntitle = \"categorical parity\"\nconcept = \"entity-leakage\"\n\n[data]\nfile = \"data.csv\"\nblake3 = \"{}\"\nentity = \"entity\"\nlabel = \"label\"\npositive = \"1\"\nfeatures = [{}]\ncategorical = [{}]\ntime = \"time\"\n\n[data.levels]\n",
        d.name.replace('_', "-"),
        blake3::hash(csv.as_bytes()).to_hex(),
        quoted(&d.columns.iter().map(|c| c.name.clone()).collect::<Vec<_>>()),
        quoted(&categorical.iter().map(|c| c.name.clone()).collect::<Vec<_>>()),
    );
    for c in categorical {
        manifest.push_str(&format!("{:?} = [{}]\n", c.name, quoted(&c.levels)));
    }
    Pack::from_parts(
        std::env::temp_dir().join("counterlab-categorical-parity"),
        &manifest,
        csv.as_bytes(),
        &LoadLimits::default(),
    )
    .unwrap_or_else(|e| panic!("{}: {e}", d.name))
}

#[test]
fn one_hot_columns_are_named_and_ordered_as_column_transformer() {
    for d in &goldens().datasets {
        let pack = pack(d);
        let table = pack.table();
        assert_eq!(
            table.column_names(table.feature_names()),
            d.encoded_names,
            "{}",
            d.name
        );
    }
}

#[test]
fn pooled_out_of_fold_auc_matches_one_hot_pipeline() {
    let goldens = goldens();
    assert!(goldens.datasets.len() >= 3);
    let (mut compared, mut with_absent_level) = (0, 0);
    for d in &goldens.datasets {
        let pack = pack(d);
        for per_k in &d.folds {
            let json = format!(
                r#"{{"format": "counterlab.experiment/1", "pack": "{}", "seed": 7,
                    "model": {{"kind": "logistic", "c": {:?}}},
                    "arms": [{{"name": "cv", "split": {{"kind": "k_fold", "folds": {}, "assignment": "sklearn"}}}}],
                    "metrics": ["roc_auc"]}}"#,
                pack.id(),
                d.c,
                per_k.k
            );
            let experiment = Experiment::from_json(json.as_bytes()).expect("valid experiment");
            let payload = run_with(&pack, &experiment, &RunOptions { threads: 2 }).expect("run");
            let auc = payload.results["cv"].metrics["roc_auc"]
                .value()
                .expect("a defined AUC");
            assert!(
                (auc - per_k.oof_auc).abs() <= 1e-9,
                "{} k={}: pooled AUC {auc} vs scikit-learn {}",
                d.name,
                per_k.k,
                per_k.oof_auc
            );
            let table = pack.table();
            let predictions =
                counterlab::run::arm_predictions(&pack, table, &experiment, 0).expect("arm");
            let mut by_source = vec![f64::NAN; table.n_rows()];
            for (i, &row) in predictions.test_rows.iter().enumerate() {
                by_source[table.source_rows()[row] - 1] = predictions.first().test_scores[i];
            }
            let diff = max_abs_diff(&by_source, &per_k.oof_proba_optimum);
            assert!(
                diff <= 1e-9,
                "{} k={}: out-of-fold probabilities differ by {diff:e}",
                d.name,
                per_k.k
            );
            // Every fold's coefficients are named by the one-hot columns.
            let folds = payload.results["cv"].folds.as_ref().expect("a CV arm");
            for fold in folds {
                let names: Vec<&String> = fold
                    .model
                    .as_logistic()
                    .expect("a logistic model")
                    .coefficients
                    .keys()
                    .collect();
                let mut expected: Vec<&String> = d.encoded_names.iter().collect();
                expected.sort();
                assert_eq!(names, expected, "{}", d.name);
            }
            with_absent_level += per_k.constant_train_columns.iter().flatten().count();
            compared += 1;
        }
    }
    assert!(compared >= 4, "{compared} cross-validations compared");
    assert!(
        with_absent_level >= 2,
        "a level absent from a fold's training rows is covered"
    );
}
