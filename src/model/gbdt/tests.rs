//! The fit's contracts: the same bits on every call, refusals with the parameter named,
//! constant features and extreme parameters, the training rows' leaves reached again by
//! the numeric thresholds, and the split search against a brute-force oracle. (Parity with
//! scikit-learn itself is `tests/parity/gbdt.rs`.)
//!
//! Not a contract: the same trees for the rows in another order. Histogram sums are taken
//! in row order, so a permutation can change the last bits of a sum and, through a near-tie,
//! a split; the kernel fits its canonical row order (docs/DETERMINISM.md). Only the bin
//! thresholds, a function of each column's multiset of values, are order-free.

use super::binning::BinThresholds;
use super::grow::Grower;
use super::histogram::{Histograms, RootCounts};
use super::split::{node_value, Splitter};
use super::*;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// `n` rows of `p` features (a few levels, continuous, a constant, a copy of feature 0)
/// and labels from a noisy non-linear rule.
fn problem(seed: u64, n: usize, p: usize) -> (Matrix, Vec<bool>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut unit = || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let mut x = Vec::with_capacity(n * p);
    let mut y = Vec::with_capacity(n);
    for _ in 0..n {
        let start = x.len();
        for k in 0..p {
            let v = match k % 5 {
                0 => (unit() * 8.0).floor(),
                1 => unit() * 2.0 - 1.0,
                2 => 0.1,
                3 if k > 0 => x[start],
                _ => (unit() + unit() + unit() - 1.5) * 10.0,
            };
            x.push(v);
        }
        let row = &x[start..];
        let z = 0.4 * row[0] - 1.5 + if p > 1 { 2.0 * row[1] * row[1] } else { 0.0 };
        y.push(unit() < 1.0 / (1.0 + libm::exp(-z)));
    }
    (Matrix::from_row_major(n, p, x), y)
}

fn small() -> HistGradientBoosting {
    HistGradientBoosting {
        max_iter: 20,
        max_leaf_nodes: 8,
        min_samples_leaf: 5,
        ..HistGradientBoosting::default()
    }
}

fn bits(values: &[f64]) -> Vec<u64> {
    values.iter().map(|v| v.to_bits()).collect()
}

#[test]
fn defaults_are_scikit_learns() {
    let d = HistGradientBoosting::default();
    assert_eq!(
        (
            d.learning_rate,
            d.max_iter,
            d.max_leaf_nodes,
            d.min_samples_leaf
        ),
        (0.1, 100, 31, 20)
    );
    assert_eq!((d.l2_regularization, d.max_bins), (0.0, 255));
    d.validate().unwrap();
}

#[test]
fn repeated_fits_are_bit_identical() {
    let (x, y) = problem(1, 700, 6);
    let params = HistGradientBoosting {
        max_iter: 30,
        ..HistGradientBoosting::default()
    };
    let a = params.fit(&x, &y).unwrap();
    let b = params.fit(&x, &y).unwrap();
    assert_eq!(a, b);
    assert_eq!(
        bits(&a.predict_probability(&x)),
        bits(&b.predict_probability(&x))
    );
    // Something was learned: not every tree is a single leaf.
    assert!(a.trees().iter().all(|t| t.leaves() > 1));
}

#[test]
fn bin_thresholds_do_not_depend_on_row_order() {
    let (x, _) = problem(2, 600, 5);
    let n = x.rows();
    let reversed: Vec<f64> = (0..n).rev().flat_map(|i| x.row(i).to_vec()).collect();
    let reversed = Matrix::from_row_major(n, x.cols(), reversed);
    for max_bins in [2, 7, 255] {
        assert_eq!(
            BinThresholds::fit(&x, max_bins),
            BinThresholds::fit(&reversed, max_bins)
        );
    }
}

#[test]
fn constant_features_are_never_split() {
    let (x, y) = problem(3, 400, 5);
    let fit = small().fit(&x, &y).unwrap();
    assert!(fit.bin_thresholds().feature(2).is_empty());
    let splits: Vec<usize> = fit
        .trees()
        .iter()
        .flat_map(|t| {
            t.nodes()
                .iter()
                .filter_map(|n| n.split.as_ref().map(|s| s.feature))
        })
        .collect();
    assert!(!splits.is_empty());
    assert!(!splits.contains(&2), "a constant feature was split");
    // Feature 3 is an exact copy of feature 0: equal gains, and the first feature wins.
    assert!(splits.contains(&0) && !splits.contains(&3));

    // Only constant features: every tree is a single leaf of value 0, and the probability
    // is the training prevalence.
    let constant = Matrix::from_row_major(4, 2, vec![1.0, -2.0, 1.0, -2.0, 1.0, -2.0, 1.0, -2.0]);
    let labels = [true, false, false, false];
    let fit = small().fit(&constant, &labels).unwrap();
    assert!(fit
        .trees()
        .iter()
        .all(|t| t.nodes().len() == 1 && t.nodes()[0].value == 0.0));
    for p in fit.predict_probability(&constant) {
        assert!((p - 0.25).abs() < 1e-15, "{p}");
    }
}

#[test]
fn one_class_and_bad_data_are_refused() {
    let (x, _) = problem(4, 50, 3);
    let message = |r: Result<FittedGbdt>| r.unwrap_err().to_string();
    let params = HistGradientBoosting::default();
    assert!(message(params.fit(&x, &[true; 50])).contains("one class only"));
    assert!(message(params.fit(&x, &[false; 50])).contains("one class only"));
    assert!(message(params.fit(&x, &[true; 49])).contains("49 labels for 50 rows"));
    let empty = Matrix::from_row_major(0, 3, Vec::new());
    assert!(message(params.fit(&empty, &[])).contains("no training rows"));
    let no_features = Matrix::from_row_major(2, 0, Vec::new());
    assert!(message(params.fit(&no_features, &[true, false])).contains("no features"));
    let mut data = x.as_slice().to_vec();
    data[3 * 3 + 1] = f64::NAN;
    let with_nan = Matrix::from_row_major(50, 3, data);
    let mut y = vec![false; 50];
    y[0] = true;
    assert!(
        message(params.fit(&with_nan, &y)).contains("row index 3, column index 1 is not finite")
    );
}

#[test]
fn bad_parameters_are_refused_by_name() {
    let d = HistGradientBoosting::default();
    let cases = [
        (
            "learning_rate",
            HistGradientBoosting {
                learning_rate: 0.0,
                ..d.clone()
            },
        ),
        (
            "learning_rate",
            HistGradientBoosting {
                learning_rate: f64::INFINITY,
                ..d.clone()
            },
        ),
        (
            "max_iter",
            HistGradientBoosting {
                max_iter: 0,
                ..d.clone()
            },
        ),
        (
            "max_leaf_nodes",
            HistGradientBoosting {
                max_leaf_nodes: 1,
                ..d.clone()
            },
        ),
        (
            "min_samples_leaf",
            HistGradientBoosting {
                min_samples_leaf: 0,
                ..d.clone()
            },
        ),
        (
            "l2_regularization",
            HistGradientBoosting {
                l2_regularization: -1.0,
                ..d.clone()
            },
        ),
        (
            "l2_regularization",
            HistGradientBoosting {
                l2_regularization: f64::NAN,
                ..d.clone()
            },
        ),
        (
            "max_bins",
            HistGradientBoosting {
                max_bins: 1,
                ..d.clone()
            },
        ),
        (
            "max_bins",
            HistGradientBoosting {
                max_bins: 256,
                ..d.clone()
            },
        ),
    ];
    let (x, y) = problem(5, 40, 2);
    for (name, params) in cases {
        let e = params.validate().unwrap_err().to_string();
        assert!(
            e.starts_with(&format!("gradient boosting: {name} must be")),
            "{e}"
        );
        assert_eq!(params.fit(&x, &y).unwrap_err().to_string(), e);
    }
}

#[test]
fn extreme_parameters() {
    let (x, y) = problem(6, 300, 4);
    let one = HistGradientBoosting {
        max_iter: 1,
        ..HistGradientBoosting::default()
    };
    assert_eq!(one.fit(&x, &y).unwrap().trees().len(), 1);

    let stumps = HistGradientBoosting {
        max_leaf_nodes: 2,
        max_iter: 10,
        ..HistGradientBoosting::default()
    };
    let fit = stumps.fit(&x, &y).unwrap();
    for tree in fit.trees() {
        assert_eq!((tree.nodes().len(), tree.leaves()), (3, 2));
        // The leaves reached the limit, so neither was searched: no gain.
        assert!(tree.nodes()[1..].iter().all(|n| n.gain.is_none()));
    }

    // Every leaf must hold more rows than there are: no tree splits, every prediction is
    // the baseline.
    let huge_leaves = HistGradientBoosting {
        min_samples_leaf: 301,
        ..HistGradientBoosting::default()
    };
    let fit = huge_leaves.fit(&x, &y).unwrap();
    assert!(fit
        .trees()
        .iter()
        .all(|t| t.nodes().len() == 1 && t.nodes()[0].value == 0.0));
    assert!(fit
        .decision_function(&x)
        .iter()
        .all(|&z| z == fit.baseline()));
    // Half the rows may be a leaf: one split at most per tree.
    let halves = HistGradientBoosting {
        min_samples_leaf: 150,
        max_iter: 5,
        ..HistGradientBoosting::default()
    };
    for tree in halves.fit(&x, &y).unwrap().trees() {
        assert!(tree.nodes().len() <= 3);
        assert!(tree
            .nodes()
            .iter()
            .all(|n| n.split.is_some() || n.count >= 150));
    }
}

/// The grower adds each leaf's value to the rows it holds by their bins; prediction sends
/// rows down by numeric thresholds. Both must land every training row in the same leaf.
#[test]
fn training_rows_reach_their_leaves_by_threshold() {
    let (x, y) = problem(7, 500, 5);
    let params = small();
    let thresholds = BinThresholds::fit(&x, 16);
    let binned = thresholds.bin_columns(&x);
    let mut grower = Grower::new(&params, &binned, &thresholds);
    let n_pos = y.iter().filter(|&&v| v).count();
    let baseline = loss::baseline(n_pos, y.len());
    let mut raw = vec![baseline; y.len()];
    let mut gh = vec![[0.0f32; 2]; y.len()];
    let mut scratch = loss::Scratch::default();
    for _ in 0..5 {
        let before = raw.clone();
        loss::gradient_hessian(&y, &raw, &mut scratch, &mut gh);
        let tree = grower.grow(&gh, &mut raw);
        assert!(tree.leaves() > 1);
        for i in 0..y.len() {
            assert_eq!(raw[i], before[i] + tree.predict_row(x.row(i)), "row {i}");
        }
    }
}

/// The root's split against every (feature, bin) evaluated from the rows directly: the
/// chosen gain is the greatest (to rounding: the oracle sums in another order), and no
/// allowed split of strictly greater gain was skipped.
#[test]
fn the_split_search_finds_the_best_allowed_split() {
    for seed in 0..20 {
        let (x, y) = problem(100 + seed, 200 + 37 * seed as usize, 5);
        let thresholds = BinThresholds::fit(&x, 12);
        let binned = thresholds.bin_columns(&x);
        let raw = vec![0.3; y.len()];
        let mut gh = vec![[0.0f32; 2]; y.len()];
        loss::gradient_hessian(&y, &raw, &mut loss::Scratch::default(), &mut gh);
        let (g, h): (Vec<f32>, Vec<f32>) = gh.iter().map(|&[g, h]| (g, h)).unzip();
        let n_bins: Vec<usize> = (0..x.cols())
            .map(|k| thresholds.feature(k).len() + 1)
            .collect();
        let mut histograms = Histograms::new(x.cols());
        histograms.build_root(&binned, &n_bins, &RootCounts::new(&binned), &gh);
        let min_samples_leaf = 3 + seed as usize;
        let mut splitter = Splitter::new(n_bins, 0.5, min_samples_leaf);
        let total_g: f64 = g.iter().map(|&v| f64::from(v)).sum();
        let total_h: f64 = h.iter().map(|&v| f64::from(v)).sum();
        let found = splitter.find_node_split(y.len() as u32, &histograms, total_g, total_h, 0.0);

        let mut best = -1.0f64;
        for k in 0..x.cols() {
            for bin in 0..splitter.n_bins[k].saturating_sub(1) {
                let (mut gl, mut hl, mut nl) = (0.0, 0.0, 0);
                for (i, &b) in binned.column(k).iter().enumerate() {
                    if usize::from(b) <= bin {
                        gl += f64::from(g[i]);
                        hl += f64::from(h[i]);
                        nl += 1;
                    }
                }
                let (gr, hr, nr) = (total_g - gl, total_h - hl, y.len() - nl);
                if nl < min_samples_leaf || nr < min_samples_leaf {
                    continue;
                }
                let gain = -gl * node_value(gl, hl, 0.5) - gr * node_value(gr, hr, 0.5);
                best = best.max(gain);
            }
        }
        assert!(best > 0.0, "seed {seed}: the oracle found no split");
        assert!(
            (found.gain - best).abs() <= 1e-9 * best,
            "seed {seed}: found gain {} (feature {} bin {}), oracle {best}",
            found.gain,
            found.feature,
            found.bin
        );
    }
}

#[test]
fn linfa_fit_is_the_inherent_fit() {
    use ::linfa::traits::{Fit, Predict};
    let (x, y) = problem(8, 300, 4);
    let records =
        ndarray::Array2::from_shape_vec((x.rows(), x.cols()), x.as_slice().to_vec()).unwrap();
    let dataset = ::linfa::Dataset::new(records.clone(), ndarray::Array1::from(y.clone()));
    let params = small();
    let via_linfa = Fit::fit(&params, &dataset).unwrap();
    let inherent = params.fit(&x, &y).unwrap();
    assert_eq!(via_linfa, inherent);
    let labels: ndarray::Array1<bool> = via_linfa.predict(&records);
    assert_eq!(labels.to_vec(), inherent.predict_labels(&x));
}

/// The fit time at 10⁵ rows × 10 features × 100 iterations with the defaults (compare
/// `python3 tests/parity/gen_gbdt_goldens.py --time` for scikit-learn with one thread):
/// `cargo test --release --lib model::gbdt::tests::timing -- --ignored --nocapture`.
#[test]
#[ignore = "a timing, not a check: run it in release mode"]
fn timing() {
    let (n, p) = (100_000, 10);
    let mut rng = ChaCha8Rng::seed_from_u64(20_260_399);
    let mut unit = || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let mut normal = || (0..12).map(|_| unit()).sum::<f64>() - 6.0;
    let mut x = Vec::with_capacity(n * p);
    let mut z = Vec::with_capacity(n);
    for _ in 0..n {
        let row: Vec<f64> = (0..p).map(|_| normal()).collect();
        z.push(row[0] - 0.5 * row[1] * row[1] + 0.25 * row[2] * row[3]);
        x.extend(row);
    }
    let y: Vec<bool> = z
        .iter()
        .map(|&z| unit() < 1.0 / (1.0 + libm::exp(-z)))
        .collect();
    let x = Matrix::from_row_major(n, p, x);
    let params = HistGradientBoosting::default();
    let mut best = f64::INFINITY;
    for _ in 0..3 {
        let start = std::time::Instant::now();
        let fit = params.fit(&x, &y).unwrap();
        best = best.min(start.elapsed().as_secs_f64());
        assert_eq!(fit.trees().len(), 100);
    }
    eprintln!("{n} rows x {p} features, 100 iterations: best of 3 fits {best:.3} s");
}

/// The boosting's two copies (`boost::trees_portable` as compiled for the baseline x86-64,
/// and the AVX2 copy `boost::trees` picks on this CPU) grow the same trees, bit for bit:
/// on problems of several shapes, and on separable labels with a learning rate of 25, whose
/// raw predictions run far past scikit-learn's `raw <= −37` branch of the gradients.
#[test]
#[cfg(target_arch = "x86_64")]
fn both_copies_fit_the_same_bits() {
    if !std::arch::is_x86_feature_detected!("avx2") {
        eprintln!("no AVX2 on this CPU: only the portable copy exists to run here");
        return;
    }
    let d = HistGradientBoosting::default();
    let separable = |n: usize| {
        let (x, _) = problem(31, n, 3);
        let y: Vec<bool> = (0..n).map(|i| x.row(i)[1] > 0.1).collect();
        (x, y)
    };
    let cases = [
        (problem(32, 2_000, 6), d.clone()),
        (problem(33, 5_003, 11), small()),
        (
            separable(1_500),
            HistGradientBoosting {
                learning_rate: 25.0,
                max_iter: 5,
                min_samples_leaf: 1,
                ..d.clone()
            },
        ),
    ];
    for (round, ((x, y), params)) in cases.into_iter().enumerate() {
        let n_pos = y.iter().filter(|&&v| v).count();
        let (thresholds, binned) = BinThresholds::fit_and_bin(&x, params.max_bins);
        let baseline = loss::baseline(n_pos, y.len());
        let portable = boost::trees_portable(&params, &binned, &thresholds, &y, baseline);
        let dispatched = boost::trees(&params, &binned, &thresholds, &y, baseline);
        let as_fit = |trees| FittedGbdt {
            thresholds: thresholds.clone(),
            baseline,
            trees,
        };
        let portable = as_fit(portable);
        if round == 2 {
            let raw = portable.decision_function(&x);
            let lo = raw.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = raw.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            assert!(lo < -37.0 && hi > 37.0, "raw predictions in [{lo}, {hi}]");
        }
        assert_eq!(
            fingerprint(&portable, &x),
            fingerprint(&as_fit(dispatched), &x),
            "round {round}"
        );
    }
}

/// blake3 of everything a fit returns, bit for bit: thresholds, baseline, every node's
/// fields, and the training rows' probabilities.
fn fingerprint(fit: &FittedGbdt, x: &Matrix) -> String {
    let mut h = blake3::Hasher::new();
    let mut put = |v: u64| {
        h.update(&v.to_le_bytes());
    };
    for k in 0..fit.features() {
        let t = fit.bin_thresholds().feature(k);
        put(t.len() as u64);
        t.iter().for_each(|v| put(v.to_bits()));
    }
    put(fit.baseline().to_bits());
    for tree in fit.trees() {
        put(tree.nodes().len() as u64);
        for n in tree.nodes() {
            put(n.value.to_bits());
            put(n.count as u64);
            put(n.depth as u64);
            put(n.gain.map_or(u64::MAX, f64::to_bits));
            if let Some(s) = &n.split {
                put(s.feature as u64);
                put(u64::from(s.bin));
                put(s.threshold.to_bits());
                put(u64::from(s.missing_go_to_left));
                put(s.left as u64);
                put(s.right as u64);
            }
        }
    }
    for p in fit.predict_probability(x) {
        put(p.to_bits());
    }
    h.finalize().to_hex()[..16].to_owned()
}

/// A drift check: the fits of a range of shapes and parameters hash to the values recorded
/// when the fit was first verified against scikit-learn (`tests/parity/gbdt.rs`). Any
/// speed-up of the fit must leave every bit in place; if a change is *meant* to move bits,
/// re-run the parity test first, then print the new hashes with
/// `cargo test --release --lib model::gbdt::tests::fits_do_not_drift -- --nocapture`.
#[test]
fn fits_do_not_drift() {
    let d = HistGradientBoosting::default();
    let cases = [
        (
            "defaults 2800x6",
            (11, 2_800, 6),
            d.clone(),
            "a904583bf8160796",
        ),
        (
            "defaults 5000x12",
            (12, 5_000, 12),
            d.clone(),
            "5ad9a6dbd51c4b64",
        ),
        (
            "small 1500x7",
            (13, 1_500, 7),
            HistGradientBoosting {
                learning_rate: 0.3,
                max_iter: 30,
                max_leaf_nodes: 7,
                min_samples_leaf: 5,
                l2_regularization: 1.0,
                max_bins: 32,
            },
            "693eafcf07a49360",
        ),
        (
            "wide trees 4000x5",
            (14, 4_000, 5),
            HistGradientBoosting {
                max_iter: 25,
                max_leaf_nodes: 80,
                min_samples_leaf: 3,
                max_bins: 64,
                ..d.clone()
            },
            "e70a5376ddf868b9",
        ),
        (
            "stumps 900x3",
            (15, 900, 3),
            HistGradientBoosting {
                max_iter: 40,
                max_leaf_nodes: 2,
                min_samples_leaf: 1,
                max_bins: 2,
                ..d.clone()
            },
            "f85bcba64c51cf89",
        ),
        (
            "20 trees 30000x10",
            (17, 30_000, 10),
            HistGradientBoosting {
                max_iter: 20,
                ..d.clone()
            },
            "15c3bb6647a5d46d",
        ),
        (
            "tiny 60x4",
            (16, 60, 4),
            HistGradientBoosting {
                min_samples_leaf: 2,
                ..d.clone()
            },
            "c7aaf4a472bff026",
        ),
    ];
    let mut failures = Vec::new();
    for (name, (seed, n, p), params, expected) in cases {
        let (x, y) = problem(seed, n, p);
        let got = fingerprint(&params.fit(&x, &y).unwrap(), &x);
        eprintln!("{name}: {got}");
        if got != expected {
            failures.push(format!("{name}: {got}, recorded {expected}"));
        }
    }
    assert!(failures.is_empty(), "fits drifted: {failures:#?}");
}
