//! Parity of the histogram gradient boosting with scikit-learn 1.9.1's
//! `HistGradientBoostingClassifier(early_stopping=False)` run with one thread, on the
//! goldens written by `gen_gbdt_goldens.py` beside this file (run it from the repository
//! root to regenerate `gbdt_goldens.json`).
//!
//! What is held, and why:
//! - bin thresholds: exactly equal. They are midpoints `(a + b)/2` or numpy's percentile
//!   arithmetic on the same doubles — basic IEEE operations in the same order, no
//!   transcendental function — so there is no rounding left to differ in;
//! - the baseline (log-odds of the prevalence): within 1 ulp, because scikit-learn's goes
//!   through glibc's `log`/`log1p` and ours through the `libm` crate's, both within an ulp;
//! - every node of every tree: the same leaf/split shape, split feature and bin, row count,
//!   numeric threshold (exactly) and child indices. A differing split is accepted only as a
//!   tie: the two best gains equal within 1e-12 relative; the node is named and the rest of
//!   that fit's trees (which then legitimately differ) are not compared node by node;
//! - gains and values of matched nodes: within 1e-9 (relative, resp. absolute); the
//!   maxima are printed (0 means bit-identical);
//! - predicted probabilities on held-out rows and the pooled out-of-fold probabilities
//!   within 1e-6, and the pooled out-of-fold ROC AUC (the crate's own `roc_auc`) within
//!   1e-6 of `roc_auc_score`.

use counterlab::metrics::{roc_auc, MetricValue};
use counterlab::model::gbdt::{FittedGbdt, HistGradientBoosting};
use counterlab::model::Matrix;
use serde::Deserialize;

use super::max_abs_diff;

#[derive(Deserialize)]
struct Goldens {
    threads: usize,
    datasets: Vec<Dataset>,
}

#[derive(Deserialize)]
struct Dataset {
    name: String,
    x: Vec<Vec<f64>>,
    y: Vec<bool>,
    n_train: usize,
    folds: Vec<usize>,
    fits: Vec<GoldenFit>,
}

#[derive(Deserialize)]
struct GoldenFit {
    setting: String,
    params: Params,
    bin_thresholds: Vec<Vec<f64>>,
    baseline: f64,
    trees: Vec<GoldenTree>,
    test_proba: Vec<f64>,
    oof_proba: Vec<f64>,
    oof_auc: f64,
}

#[derive(Deserialize)]
struct Params {
    learning_rate: f64,
    max_iter: usize,
    max_leaf_nodes: usize,
    min_samples_leaf: usize,
    l2_regularization: f64,
    max_bins: usize,
}

/// scikit-learn's `TreePredictor.nodes`, as columns.
#[derive(Deserialize)]
struct GoldenTree {
    feature: Vec<usize>,
    bin: Vec<u8>,
    threshold: Vec<f64>,
    gain: Vec<f64>,
    value: Vec<f64>,
    count: Vec<usize>,
    leaf: Vec<u8>,
    left: Vec<usize>,
    right: Vec<usize>,
}

fn goldens() -> Goldens {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/parity/gbdt_goldens.json"
    );
    let bytes = std::fs::read(path).expect("gbdt goldens: run tests/parity/gen_gbdt_goldens.py");
    serde_json::from_slice(&bytes).expect("gbdt goldens parse")
}

fn matrix(rows: &[&Vec<f64>]) -> Matrix {
    let cols = rows[0].len();
    let data: Vec<f64> = rows.iter().flat_map(|r| r.iter().copied()).collect();
    Matrix::from_row_major(rows.len(), cols, data)
}

fn relative(a: f64, b: f64) -> f64 {
    if a == b {
        0.0
    } else {
        (a - b).abs() / a.abs().max(b.abs())
    }
}

/// How far a fit's trees agree with scikit-learn's.
#[derive(Default)]
struct TreeParity {
    nodes_matched: usize,
    nodes_bit_identical: usize,
    max_gain_rel: f64,
    max_value_abs: f64,
    /// The first node where the trees took different splits of equal gain.
    tie: Option<String>,
}

/// Compares every node of every tree; panics on any difference that is not a gain tie.
fn compare_trees(label: &str, ours: &FittedGbdt, theirs: &[GoldenTree]) -> TreeParity {
    assert_eq!(ours.trees().len(), theirs.len(), "{label}: number of trees");
    let mut parity = TreeParity::default();
    for (t, (tree, golden)) in ours.trees().iter().zip(theirs).enumerate() {
        let nodes = tree.nodes();
        for (i, node) in nodes.iter().enumerate() {
            let at = format!("{label}: tree {t} node {i}");
            assert!(
                i < golden.leaf.len(),
                "{at}: scikit-learn's tree has {} nodes",
                golden.leaf.len()
            );
            let their_gain = (golden.gain[i] != -1.0).then_some(golden.gain[i]);
            let same_shape = match &node.split {
                None => golden.leaf[i] == 1,
                Some(s) => {
                    golden.leaf[i] == 0 && s.feature == golden.feature[i] && s.bin == golden.bin[i]
                }
            } && node.count == golden.count[i];
            if !same_shape {
                let (a, b) = (node.gain.unwrap_or(-1.0), golden.gain[i]);
                let describe = |leaf: bool, f: usize, b: u8| {
                    if leaf {
                        "a leaf".to_owned()
                    } else {
                        format!("feature {f} bin {b}")
                    }
                };
                let mine = node
                    .split
                    .as_ref()
                    .map_or(describe(true, 0, 0), |s| describe(false, s.feature, s.bin));
                let sklearn = describe(golden.leaf[i] == 1, golden.feature[i], golden.bin[i]);
                assert!(
                    node.count == golden.count[i] && a > 0.0 && b > 0.0 && relative(a, b) <= 1e-12,
                    "{at}: ours is {mine} ({} rows, gain {a:e}), scikit-learn's {sklearn} \
                     ({} rows, gain {b:e}): not a tie",
                    node.count,
                    golden.count[i]
                );
                parity.tie = Some(format!(
                    "{at}: {mine} vs scikit-learn's {sklearn}, gains {a:e} vs {b:e}"
                ));
                return parity;
            }
            match (node.gain, their_gain) {
                (None, None) => {}
                (Some(a), Some(b)) => {
                    parity.max_gain_rel = parity.max_gain_rel.max(relative(a, b));
                }
                (a, b) => panic!("{at}: gain {a:?} vs scikit-learn's {b:?}"),
            }
            let value_diff = (node.value - golden.value[i]).abs();
            parity.max_value_abs = parity.max_value_abs.max(value_diff);
            if let Some(s) = &node.split {
                assert_eq!(s.threshold, golden.threshold[i], "{at}: threshold");
                assert_eq!(
                    (s.left, s.right),
                    (golden.left[i], golden.right[i]),
                    "{at}: children"
                );
            }
            parity.nodes_matched += 1;
            if node.value.to_bits() == golden.value[i].to_bits()
                && node.gain.map(f64::to_bits) == their_gain.map(f64::to_bits)
            {
                parity.nodes_bit_identical += 1;
            }
        }
        assert_eq!(
            nodes.len(),
            golden.leaf.len(),
            "{label}: tree {t} node count"
        );
    }
    assert!(
        parity.max_gain_rel <= 1e-9,
        "{label}: gains differ by {:e} relative",
        parity.max_gain_rel
    );
    assert!(
        parity.max_value_abs <= 1e-9,
        "{label}: values differ by {:e}",
        parity.max_value_abs
    );
    parity
}

fn model(p: &Params) -> HistGradientBoosting {
    HistGradientBoosting {
        learning_rate: p.learning_rate,
        max_iter: p.max_iter,
        max_leaf_nodes: p.max_leaf_nodes,
        min_samples_leaf: p.min_samples_leaf,
        l2_regularization: p.l2_regularization,
        max_bins: p.max_bins,
    }
}

#[test]
fn gbdt_matches_scikit_learn() {
    let goldens = goldens();
    assert_eq!(goldens.threads, 1);
    assert!(goldens.datasets.len() >= 3);
    let (mut total_nodes, mut total_identical) = (0, 0);
    for d in &goldens.datasets {
        let train_rows: Vec<&Vec<f64>> = d.x[..d.n_train].iter().collect();
        let test_rows: Vec<&Vec<f64>> = d.x[d.n_train..].iter().collect();
        for g in &d.fits {
            let label = format!("{} / {}", d.name, g.setting);
            let params = model(&g.params);
            let fit = params.fit(&matrix(&train_rows), &d.y[..d.n_train]).unwrap();

            // Bin thresholds: exact (see the module comment).
            assert_eq!(fit.features(), g.bin_thresholds.len(), "{label}: features");
            for (k, theirs) in g.bin_thresholds.iter().enumerate() {
                assert_eq!(
                    fit.bin_thresholds().feature(k),
                    &theirs[..],
                    "{label}: thresholds of feature {k}"
                );
            }
            let baseline_ulps = fit.baseline().to_bits().abs_diff(g.baseline.to_bits());
            assert!(
                baseline_ulps <= 1,
                "{label}: baseline {} vs {}",
                fit.baseline(),
                g.baseline
            );

            let parity = compare_trees(&label, &fit, &g.trees);
            total_nodes += parity.nodes_matched;
            total_identical += parity.nodes_bit_identical;

            let proba = fit.predict_probability(&matrix(&test_rows));
            let test_diff = max_abs_diff(&proba, &g.test_proba);
            assert!(
                test_diff <= 1e-6,
                "{label}: test probabilities differ by {test_diff:e}"
            );

            let mut oof = vec![f64::NAN; d.y.len()];
            for k in 0..=*d.folds.iter().max().unwrap() {
                let train: Vec<usize> = (0..d.y.len()).filter(|&i| d.folds[i] != k).collect();
                let test: Vec<usize> = (0..d.y.len()).filter(|&i| d.folds[i] == k).collect();
                let rows: Vec<&Vec<f64>> = train.iter().map(|&i| &d.x[i]).collect();
                let labels: Vec<bool> = train.iter().map(|&i| d.y[i]).collect();
                let fold_fit = params.fit(&matrix(&rows), &labels).unwrap();
                let rows: Vec<&Vec<f64>> = test.iter().map(|&i| &d.x[i]).collect();
                for (&i, p) in test
                    .iter()
                    .zip(fold_fit.predict_probability(&matrix(&rows)))
                {
                    oof[i] = p;
                }
            }
            let oof_diff = max_abs_diff(&oof, &g.oof_proba);
            assert!(
                oof_diff <= 1e-6,
                "{label}: out-of-fold probabilities differ by {oof_diff:e}"
            );
            let auc = match roc_auc(&d.y, &oof) {
                MetricValue::Value(auc) => auc,
                undefined => panic!("{label}: AUC {undefined:?}"),
            };
            let auc_diff = (auc - g.oof_auc).abs();
            assert!(
                auc_diff <= 1e-6,
                "{label}: pooled OOF AUC {auc} vs sklearn {}",
                g.oof_auc
            );

            eprintln!(
                "{label}: thresholds equal; baseline {baseline_ulps} ulp apart; {} nodes matched \
                 ({} bit-identical), gains ≤ {:e} rel, values ≤ {:e}; {}; test proba ≤ {test_diff:e}; \
                 OOF proba ≤ {oof_diff:e}; OOF AUC {auc} (diff {auc_diff:e})",
                parity.nodes_matched,
                parity.nodes_bit_identical,
                parity.max_gain_rel,
                parity.max_value_abs,
                parity.tie.as_deref().unwrap_or("no tie broken differently"),
            );
        }
    }
    eprintln!("all fits: {total_nodes} nodes matched, {total_identical} bit-identical");
}
