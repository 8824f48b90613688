//! Parity of the preparation steps (src/prepare/) with scikit-learn 1.9.1 and
//! imbalanced-learn 0.14.2, on the goldens written by `gen_prepare_goldens.py` beside this
//! file (its docstring defines every entry; run it from the repository root to regenerate
//! `prepare_goldens.json`):
//! - every step's transform of a fixed split, fitted on the training rows and on all rows,
//!   alone and as a four-step pipeline: column names exactly, values within 1e-12, the new
//!   rows of `RandomOverSampler` and `SMOTE` included (their numpy draws are emulated, not
//!   injected: the same rows, in the same order);
//! - `SimpleImputer`'s statistic for each strategy;
//! - the pooled out-of-fold ROC AUC of whole pipelines with the logistic model and the
//!   trees, the right way (steps inside each fold) and the wrong way (steps fitted on all
//!   rows first), within 1e-9.

use counterlab::pack::LoadLimits;
use counterlab::prepare::{impute_statistic, prepare_fold, FoldRows, ImputeStrategy, Step};
use counterlab::{run_with, Experiment, Pack, RunOptions};
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize)]
struct Goldens {
    seed: u64,
    datasets: Vec<Dataset>,
    transforms: Vec<Transform>,
    impute: Vec<Impute>,
    cv: Vec<Cv>,
}

#[derive(Deserialize)]
struct Dataset {
    name: String,
    label: Vec<u8>,
    columns: Vec<Column>,
}

#[derive(Deserialize)]
struct Column {
    name: String,
    kind: String,
    #[serde(default)]
    levels: Vec<String>,
    values: Vec<Value>,
}

#[derive(Deserialize)]
struct Transform {
    dataset: String,
    steps: Vec<Step>,
    test_rows: Vec<usize>,
    columns: Vec<String>,
    train: Vec<f64>,
    test: Vec<f64>,
    new_labels: Vec<u8>,
}

#[derive(Deserialize)]
struct Impute {
    strategy: ImputeStrategy,
    values: Vec<Option<f64>>,
    fit_rows: Vec<usize>,
    statistic: f64,
}

#[derive(Deserialize)]
struct Cv {
    dataset: String,
    steps: Vec<Value>,
    model: String,
    way: String,
    oof_auc: f64,
}

fn goldens() -> Goldens {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/parity/prepare_goldens.json"
    );
    let bytes =
        std::fs::read(path).expect("prepare goldens: run tests/parity/gen_prepare_goldens.py");
    serde_json::from_slice(&bytes).expect("prepare goldens parse")
}

/// The data set as a pack (in memory); its ids sort in file order, so the canonical rows
/// are the script's rows.
fn pack(d: &Dataset) -> Pack {
    let names: Vec<&str> = d.columns.iter().map(|c| c.name.as_str()).collect();
    let mut csv = format!("entity,label,{}\n", names.join(","));
    for (i, label) in d.label.iter().enumerate() {
        let cells: Vec<String> = d
            .columns
            .iter()
            .map(|c| match &c.values[i] {
                Value::String(s) => s.clone(),
                Value::Null => String::new(),
                v => format!("{:?}", v.as_f64().expect("a number")),
            })
            .collect();
        csv.push_str(&format!("r{i:04},{label},{}\n", cells.join(",")));
    }
    let quoted = |v: &[&str]| {
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
        "id = \"parity-prepare-{}\"\ntitle = \"prepare parity\"\nconcept = \"preparation-leakage\"\n\n[data]\nfile = \"data.csv\"\nblake3 = \"{}\"\nentity = \"entity\"\nlabel = \"label\"\npositive = \"1\"\nfeatures = [{}]\ncategorical = [{}]\n\n[data.levels]\n",
        d.name.replace('_', "-"),
        blake3::hash(csv.as_bytes()).to_hex(),
        quoted(&names),
        quoted(&categorical.iter().map(|c| c.name.as_str()).collect::<Vec<_>>()),
    );
    for c in categorical {
        let levels: Vec<&str> = c.levels.iter().map(String::as_str).collect();
        manifest.push_str(&format!("{:?} = [{}]\n", c.name, quoted(&levels)));
    }
    let limits = LoadLimits::default();
    let pack = Pack::from_parts(
        std::env::temp_dir().join("counterlab-prepare-parity"),
        &manifest,
        csv.as_bytes(),
        &limits,
    )
    .unwrap_or_else(|e| panic!("{}: {e}", d.name));
    let source: Vec<usize> = pack.table().source_rows().to_vec();
    assert_eq!(
        source,
        (1..=d.label.len()).collect::<Vec<_>>(),
        "canonical order is file order"
    );
    pack
}

fn assert_close(what: &str, ours: &[f64], theirs: &[f64], tol: f64) {
    assert_eq!(ours.len(), theirs.len(), "{what}: lengths");
    for (i, (a, b)) in ours.iter().zip(theirs).enumerate() {
        assert!(
            (a - b).abs() <= tol * b.abs().max(1.0),
            "{what}: value {i}: {a} vs scikit-learn {b}"
        );
    }
}

#[test]
fn every_step_transforms_as_scikit_learn_and_imbalanced_learn() {
    let goldens = goldens();
    let packs: Vec<(String, Pack)> = goldens
        .datasets
        .iter()
        .map(|d| (d.name.clone(), pack(d)))
        .collect();
    let mut new_rows = 0;
    for case in &goldens.transforms {
        let pack = &packs.iter().find(|(n, _)| *n == case.dataset).unwrap().1;
        let table = pack.table();
        let test: Vec<usize> = case.test_rows.clone();
        let train: Vec<usize> = (0..table.n_rows()).filter(|r| !test.contains(r)).collect();
        let what = format!(
            "{}: {}",
            case.dataset,
            serde_json::to_string(&case.steps).unwrap()
        );
        let prepared = prepare_fold(
            table,
            table.feature_names(),
            FoldRows {
                train: &train,
                test: &test,
            },
            table.labels(),
            &case.steps,
            goldens.seed,
        )
        .unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(prepared.columns, case.columns, "{what}");
        assert_close(
            &format!("{what} train"),
            prepared.train.as_slice(),
            &case.train,
            1e-12,
        );
        assert_close(
            &format!("{what} test"),
            prepared.test.as_slice(),
            &case.test,
            1e-12,
        );
        let new_labels: Vec<bool> = case.new_labels.iter().map(|&l| l == 1).collect();
        assert_eq!(prepared.new_labels, new_labels, "{what}");
        new_rows += new_labels.len();
    }
    assert!(
        goldens.transforms.len() >= 12 && new_rows > 100,
        "{new_rows} new rows compared"
    );
}

#[test]
fn imputed_statistics_are_simple_imputers() {
    let goldens = goldens();
    assert!(goldens.impute.len() >= 9);
    for case in &goldens.impute {
        let values: Vec<f64> = case.values.iter().map(|v| v.unwrap_or(f64::NAN)).collect();
        let ours =
            impute_statistic(&values, &case.fit_rows, case.strategy).expect("a present value");
        assert!(
            (ours - case.statistic).abs() <= 1e-12 * case.statistic.abs().max(1.0),
            "{:?}: {ours} vs {}",
            case.strategy,
            case.statistic
        );
    }
}

#[test]
fn pipelines_score_as_cross_val_predict_the_right_and_the_wrong_way() {
    let goldens = goldens();
    let packs: Vec<(String, Pack)> = goldens
        .datasets
        .iter()
        .map(|d| (d.name.clone(), pack(d)))
        .collect();
    let mut ways = std::collections::BTreeSet::new();
    for case in &goldens.cv {
        let pack = &packs.iter().find(|(n, _)| *n == case.dataset).unwrap().1;
        let model = match case.model.as_str() {
            "logistic" => serde_json::json!({"kind": "logistic", "c": 1.0}),
            _ => {
                serde_json::json!({"kind": "gbdt", "learning_rate": 0.1, "max_iter": 20, "max_leaf_nodes": 31,
                                    "min_samples_leaf": 20, "l2_regularization": 0.0, "max_bins": 255})
            }
        };
        let experiment = serde_json::json!({
            "format": "counterlab.experiment/1", "pack": pack.id(), "seed": goldens.seed, "model": model,
            "arms": [{"name": "cv", "split": {"kind": "k_fold", "folds": 5, "assignment": "sklearn"},
                      "prepare": case.steps}],
            "metrics": ["roc_auc"]
        });
        let experiment = Experiment::from_value(&experiment).expect("valid experiment");
        let payload = run_with(pack, &experiment, &RunOptions { threads: 2 }).expect("run");
        let auc = payload.results["cv"].metrics["roc_auc"]
            .value()
            .expect("a defined AUC");
        assert!(
            (auc - case.oof_auc).abs() <= 1e-9,
            "{} {} {}: pooled AUC {auc} vs scikit-learn {}",
            case.dataset,
            case.model,
            case.way,
            case.oof_auc
        );
        ways.insert((case.model.clone(), case.way.clone()));
    }
    assert_eq!(ways.len(), 4, "both models, both ways");
}

/// An arm `k_fold` (5, scikit-learn's assignment) that prepares with `prepare`.
fn one_arm(name: &str, prepare: Value) -> Value {
    serde_json::json!({"name": name, "split": {"kind": "k_fold", "folds": 5, "assignment": "sklearn"}, "prepare": prepare})
}

fn experiment(pack: &Pack, arms: Vec<Value>) -> counterlab::Result<Experiment> {
    Experiment::from_value(&serde_json::json!({
        "format": "counterlab.experiment/1", "pack": pack.id(), "seed": 7,
        "model": {"kind": "logistic", "c": 1.0}, "arms": arms, "metrics": ["roc_auc"]
    }))
    .and_then(|e| e.check(pack).map(|()| e))
}

/// Oversampling fitted on all rows copies test rows into every fold's training rows: the
/// count of such test rows is the number of distinct rows imbalanced-learn copied (each
/// row is tested once over the folds, and the copies are the same in every fold), read
/// from the golden's new rows by matching their values to the data set's rows. New rows
/// are never scored: both arms test every row once.
#[test]
fn copies_of_test_rows_are_counted_and_new_rows_are_never_scored() {
    let goldens = goldens();
    let mixed = goldens.datasets.iter().find(|d| d.name == "mixed").unwrap();
    let pack = pack(mixed);
    let table = pack.table();
    let golden = goldens
        .transforms
        .iter()
        .find(|t| {
            t.dataset == "mixed"
                && t.steps.len() == 1
                && serde_json::to_value(&t.steps[0]).unwrap()
                    == serde_json::json!({"step": "oversample", "method": "random", "fit_on": "all_rows"})
        })
        .expect("the all-rows random oversampling golden");
    let width = golden.columns.len();
    let n_train = golden.train.len() / width - golden.new_labels.len();
    let rows: Vec<Vec<f64>> = (0..table.n_rows())
        .map(|r| {
            let names = table.column_names(table.feature_names());
            names.iter().map(|c| table.feature(c).unwrap()[r]).collect()
        })
        .collect();
    let mut copied = std::collections::BTreeSet::new();
    for new in golden.train[n_train * width..].chunks(width) {
        let source = rows
            .iter()
            .position(|r| r.as_slice() == new)
            .expect("a copy of a data row");
        copied.insert(source);
    }
    let e = experiment(
        &pack,
        vec![
            one_arm("before_split", serde_json::json!([{"step": "oversample", "method": "random", "fit_on": "all_rows"}])),
            one_arm("in_folds", serde_json::json!([{"step": "oversample", "method": "random"}])),
        ],
    )
    .expect("valid");
    let payload = run_with(&pack, &e, &RunOptions { threads: 2 }).expect("run");
    let before = &payload.results["before_split"];
    let in_folds = &payload.results["in_folds"];
    assert_eq!(
        before.overlap.oversampled_test_rows,
        Some(copied.len() as u64)
    );
    assert!(copied.len() > 10, "{} rows copied", copied.len());
    assert_eq!(in_folds.overlap.oversampled_test_rows, Some(0));
    for arm in [before, in_folds] {
        assert_eq!(
            arm.split.test_rows,
            table.n_rows() as u64,
            "every row tested once, no new row"
        );
        for fold in arm.folds.as_ref().unwrap() {
            assert!(fold.overlap.oversampled_test_rows.is_some());
        }
    }
    // An arm without oversampling has no such count at all (its payload keeps its bits).
    let plain = experiment(
        &pack,
        vec![one_arm(
            "plain",
            serde_json::json!([{"step": "standardize"}]),
        )],
    )
    .unwrap();
    let payload = run_with(&pack, &plain, &RunOptions { threads: 1 }).unwrap();
    assert_eq!(payload.results["plain"].overlap.oversampled_test_rows, None);
}

#[test]
fn steps_the_pack_cannot_run_are_refused_at_their_json_path() {
    let goldens = goldens();
    let mixed = goldens.datasets.iter().find(|d| d.name == "mixed").unwrap();
    let pack = pack(mixed);
    // 12 numeric features and a 14-level category: 26 model columns, 13 once encoded.
    let cases = [
        (
            serde_json::json!([{"step": "select_k_best", "k": 27}]),
            "$.arms[0].prepare[0].k",
            "give 26",
        ),
        (
            serde_json::json!([{"step": "target_encode", "column": "site", "smooth": 1.0}, {"step": "select_k_best", "k": 14}]),
            "$.arms[0].prepare[1].k",
            "give 13",
        ),
        (
            serde_json::json!([{"step": "target_encode", "column": "x01", "smooth": 1.0}]),
            "$.arms[0].prepare[0].column",
            "numeric",
        ),
        (
            serde_json::json!([{"step": "target_encode", "column": "nope", "smooth": 1.0}]),
            "$.arms[0].prepare[0].column",
            "not a feature",
        ),
    ];
    for (steps, path, words) in cases {
        let error = experiment(&pack, vec![one_arm("a", steps.clone())])
            .unwrap_err()
            .to_string();
        assert!(
            error.contains(path) && error.contains(words),
            "{steps}: {error}"
        );
    }
    let ok = serde_json::json!([{"step": "target_encode", "column": "site", "smooth": 1.0}, {"step": "select_k_best", "k": 13}]);
    assert!(experiment(&pack, vec![one_arm("a", ok)]).is_ok());
}

/// Empty cells of a numeric feature load as missing values; an arm may use the feature
/// only when it imputes it first (a scaler before the imputer is fine: it leaves them
/// missing), and the error names the arm, the feature and the first empty data row.
#[test]
fn missing_values_need_an_imputer_first() {
    let goldens = goldens();
    let d = goldens
        .datasets
        .iter()
        .find(|d| d.name == "mixed_missing")
        .unwrap();
    let pack = pack(d);
    let x03 = d.columns.iter().find(|c| c.name == "x03").unwrap();
    let first = x03.values.iter().position(Value::is_null).unwrap() + 1;
    let count = x03.values.iter().filter(|v| v.is_null()).count();
    assert_eq!(pack.table().missing_cells("x03"), Some((first, count)));
    assert_eq!(pack.table().missing_cells("x01"), None);
    for steps in [
        serde_json::json!([]),
        serde_json::json!([{"step": "select_k_best", "k": 5}, {"step": "impute", "strategy": "mean"}]),
    ] {
        let error = experiment(&pack, vec![one_arm("a", steps.clone())])
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("$.arms[0]")
                && error.contains("\"x03\"")
                && error.contains(&format!(
                    "{count} empty cells (the first in data row {first} "
                )),
            "{steps}: {error}"
        );
    }
    for steps in [
        serde_json::json!([{"step": "impute", "strategy": "most_frequent"}]),
        serde_json::json!([{"step": "standardize"}, {"step": "impute", "strategy": "median"}]),
    ] {
        assert!(experiment(&pack, vec![one_arm("a", steps)]).is_ok());
    }
}
