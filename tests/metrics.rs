//! Metrics against slow, obviously-correct oracles, plus the invariances the kernel promises.
//!
//! The AUC oracle counts (positive, negative) pairs in integers, so it and the fast midrank
//! code end in one division of the same integer: they must agree bit for bit. The DeLong
//! oracle computes every placement value by pairwise comparison, straight from DeLong
//! (1988), and agrees within 1e-12.

use counterlab::metrics::{
    accuracy, accuracy_lift, balanced_accuracy, delong, majority_baseline_accuracy, roc_auc,
    roc_auc_stats, AucStats, DeLong, MetricValue,
};
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// O(n₁·n₀) oracle: 2U = 2·#{p > n} + #{p = n}, in integers.
fn oracle_two_u(labels: &[bool], scores: &[f64]) -> (u64, u64, u128) {
    let (mut n1, mut n0, mut two_u) = (0u64, 0u64, 0u128);
    for (&lp, &sp) in labels.iter().zip(scores) {
        if !lp {
            n0 += 1;
            continue;
        }
        n1 += 1;
        for (&ln, &sn) in labels.iter().zip(scores) {
            if ln {
                continue;
            }
            if sp > sn {
                two_u += 2;
            } else if sp == sn {
                two_u += 1;
            }
        }
    }
    (n1, n0, two_u)
}

fn oracle_auc(labels: &[bool], scores: &[f64]) -> f64 {
    let (n1, n0, two_u) = oracle_two_u(labels, scores);
    two_u as f64 / (2 * u128::from(n1) * u128::from(n0)) as f64
}

/// DeLong (1988) from the definition: placement values by pairwise comparison, then the
/// textbook two-pass sample variances (ddof = 1).
fn oracle_delong(labels: &[bool], scores: &[f64]) -> (f64, f64) {
    let pos: Vec<f64> = labels
        .iter()
        .zip(scores)
        .filter(|(l, _)| **l)
        .map(|(_, s)| *s)
        .collect();
    let neg: Vec<f64> = labels
        .iter()
        .zip(scores)
        .filter(|(l, _)| !**l)
        .map(|(_, s)| *s)
        .collect();
    let psi = |x: f64, y: f64| {
        if x > y {
            1.0
        } else if x == y {
            0.5
        } else {
            0.0
        }
    };
    let (m, n) = (pos.len() as f64, neg.len() as f64);
    let v10: Vec<f64> = pos
        .iter()
        .map(|&x| neg.iter().map(|&y| psi(x, y)).sum::<f64>() / n)
        .collect();
    let v01: Vec<f64> = neg
        .iter()
        .map(|&y| pos.iter().map(|&x| psi(x, y)).sum::<f64>() / m)
        .collect();
    let auc = v10.iter().sum::<f64>() / m;
    let var = |v: &[f64]| {
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        v.iter().map(|a| (a - mean) * (a - mean)).sum::<f64>() / (v.len() as f64 - 1.0)
    };
    (auc, var(&v10) / m + var(&v01) / n)
}

fn uniform(rng: &mut ChaCha8Rng, k: u64) -> u64 {
    // Modulo bias is irrelevant for test data.
    rng.next_u64() % k
}

/// Tie-heavy random data: a few score levels (sometimes one), both signs, both zeros, and
/// a random prevalence.
fn random_case(rng: &mut ChaCha8Rng, max_n: u64) -> (Vec<bool>, Vec<f64>) {
    let n = 1 + uniform(rng, max_n) as usize;
    let levels = 1 + uniform(rng, 12);
    let prevalence = 1 + uniform(rng, 99); // percent
    let labels: Vec<bool> = (0..n).map(|_| uniform(rng, 100) < prevalence).collect();
    let scores: Vec<f64> = labels
        .iter()
        .map(|&l| {
            // Informative but overlapping: positives drift up by a level or two.
            let level = (uniform(rng, levels) + if l { uniform(rng, 3) } else { 0 }) as f64;
            let s = (level - 3.0) / 8.0;
            if s == 0.0 && uniform(rng, 2) == 0 {
                -0.0
            } else {
                s
            }
        })
        .collect();
    (labels, scores)
}

/// `roc_auc_stats` against the pairwise oracle: the counts and 2U equal, the AUC bit for bit.
fn assert_auc_is_the_oracles(labels: &[bool], scores: &[f64], case: usize) {
    let (n1, n0, two_u) = oracle_two_u(labels, scores);
    let st = roc_auc_stats(labels, scores).unwrap();
    assert_eq!(
        (st.n_pos, st.n_neg, st.two_u),
        (n1, n0, two_u),
        "case {case}"
    );
    assert_eq!(
        st.auc.to_bits(),
        oracle_auc(labels, scores).to_bits(),
        "case {case}"
    );
}

fn both_classes(labels: &[bool]) -> bool {
    labels.iter().any(|&l| l) && labels.iter().any(|&l| !l)
}

fn shuffled(rng: &mut ChaCha8Rng, labels: &[bool], scores: &[f64]) -> (Vec<bool>, Vec<f64>) {
    let mut idx: Vec<usize> = (0..labels.len()).collect();
    for i in (1..idx.len()).rev() {
        let j = uniform(rng, i as u64 + 1) as usize;
        idx.swap(i, j);
    }
    (
        idx.iter().map(|&i| labels[i]).collect(),
        idx.iter().map(|&i| scores[i]).collect(),
    )
}

fn assert_delong_bits_eq(a: &DeLong, b: &DeLong) {
    assert_eq!(a.auc.to_bits(), b.auc.to_bits());
    assert_eq!(a.variance.to_bits(), b.variance.to_bits());
    assert_eq!(a.se.to_bits(), b.se.to_bits());
    assert_eq!(a.ci.0.to_bits(), b.ci.0.to_bits());
    assert_eq!(a.ci.1.to_bits(), b.ci.1.to_bits());
}

#[test]
fn toy_example_is_three_quarters() {
    // By hand: y = [0,0,1,1], s = [0.1,0.4,0.35,0.8] → 0.75 (3 of 4 pairs ordered).
    let y = [false, false, true, true];
    let s = [0.1, 0.4, 0.35, 0.8];
    let st = roc_auc_stats(&y, &s).unwrap();
    assert_eq!(
        st,
        AucStats {
            n_pos: 2,
            n_neg: 2,
            two_u: 6,
            auc: 0.75
        }
    );
    assert_eq!(roc_auc(&y, &s), MetricValue::Value(0.75));
    // By hand: V10 = [1/2, 1], V01 = [1, 1/2]; each s² = 1/8, so Var = 1/16 + 1/16.
    let d = delong(&y, &s).unwrap();
    assert_eq!(d.auc, 0.75);
    assert_eq!(d.variance, 0.125);
    assert_eq!(d.se, 0.125f64.sqrt());
    assert_eq!(d.ci.0, 0.75 - 1.959963984540054 * 0.125f64.sqrt());
    assert_eq!(d.ci.1, 1.0, "upper bound clipped to 1");
}

#[test]
fn auc_equals_pairwise_oracle_bit_for_bit() {
    let mut rng = ChaCha8Rng::seed_from_u64(20_261_101);
    let mut checked = 0;
    for case in 0..3000 {
        // Mostly small cases; every 50th larger.
        let max_n = if case % 50 == 0 { 1500 } else { 60 };
        let (y, s) = random_case(&mut rng, max_n);
        if !both_classes(&y) {
            assert!(matches!(roc_auc(&y, &s), MetricValue::Undefined { .. }));
            continue;
        }
        assert_auc_is_the_oracles(&y, &s, case);
        checked += 1;
    }
    assert!(checked > 2500, "too few two-class cases: {checked}");
}

#[test]
fn auc_equals_oracle_on_continuous_scores() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for _ in 0..20 {
        let n = 600 + uniform(&mut rng, 600) as usize;
        let y: Vec<bool> = (0..n).map(|_| uniform(&mut rng, 3) == 0).collect();
        // Arbitrary bit patterns of finite f64s: every exponent, both signs.
        let s: Vec<f64> = (0..n)
            .map(|_| loop {
                let x = f64::from_bits(rng.next_u64());
                if x.is_finite() {
                    break x;
                }
            })
            .collect();
        let st = roc_auc_stats(&y, &s).unwrap();
        assert_eq!(st.two_u, oracle_two_u(&y, &s).2);
        assert_eq!(st.auc.to_bits(), oracle_auc(&y, &s).to_bits());
    }
}

#[test]
fn delong_matches_definition() {
    let mut rng = ChaCha8Rng::seed_from_u64(1988);
    let mut checked = 0;
    for case in 0..1500 {
        let max_n = if case % 50 == 0 { 1200 } else { 80 };
        let (y, s) = random_case(&mut rng, max_n);
        let n1 = y.iter().filter(|&&l| l).count();
        let n0 = y.len() - n1;
        if n1 < 2 || n0 < 2 {
            assert!(delong(&y, &s).is_err(), "case {case}");
            continue;
        }
        let d = delong(&y, &s).unwrap();
        let (auc, var) = oracle_delong(&y, &s);
        assert!(
            (d.auc - auc).abs() <= 1e-12,
            "case {case}: {} vs {auc}",
            d.auc
        );
        assert!(
            (d.variance - var).abs() <= 1e-12,
            "case {case}: {} vs {var}",
            d.variance
        );
        assert_eq!(
            d.auc.to_bits(),
            roc_auc_stats(&y, &s).unwrap().auc.to_bits()
        );
        assert_eq!(d.se, d.variance.sqrt());
        let half = 1.959963984540054 * d.se;
        assert_eq!(d.ci, ((d.auc - half).max(0.0), (d.auc + half).min(1.0)));
        assert!(0.0 <= d.ci.0 && d.ci.0 <= d.auc && d.auc <= d.ci.1 && d.ci.1 <= 1.0);
        checked += 1;
    }
    assert!(checked > 1000, "too few cases: {checked}");
}

#[test]
fn shuffling_rows_changes_no_bit() {
    let mut rng = ChaCha8Rng::seed_from_u64(42);
    for _ in 0..300 {
        let (y, s) = random_case(&mut rng, 1200);
        let (y2, s2) = shuffled(&mut rng, &y, &s);
        assert_eq!(roc_auc(&y, &s), roc_auc(&y2, &s2));
        match (delong(&y, &s), delong(&y2, &s2)) {
            (Ok(a), Ok(b)) => assert_delong_bits_eq(&a, &b),
            (Err(a), Err(b)) => assert_eq!(a, b),
            (a, b) => panic!("shuffle changed definedness: {a:?} vs {b:?}"),
        }
        if let (Ok(a), Ok(b)) = (roc_auc_stats(&y, &s), roc_auc_stats(&y2, &s2)) {
            assert_eq!(a.two_u, b.two_u);
            assert_eq!(a.auc.to_bits(), b.auc.to_bits());
        }
    }
}

#[test]
fn negated_scores_give_the_complement_exactly() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for _ in 0..500 {
        let (y, s) = random_case(&mut rng, 700);
        if !both_classes(&y) {
            continue;
        }
        let neg: Vec<f64> = s.iter().map(|x| -x).collect();
        let a = roc_auc_stats(&y, &s).unwrap();
        let b = roc_auc_stats(&y, &neg).unwrap();
        let total = 2 * u128::from(a.n_pos) * u128::from(a.n_neg);
        assert_eq!(a.two_u + b.two_u, total);
        // Flipping the labels is the same reflection.
        let flipped: Vec<bool> = y.iter().map(|l| !l).collect();
        assert_eq!(roc_auc_stats(&flipped, &s).unwrap().two_u, b.two_u);
        // DeLong's variance is invariant under the reflection (V10 ↔ 1 − V10): its
        // integer numerators are shift-invariant, so even the bits agree.
        if a.n_pos >= 2 && a.n_neg >= 2 {
            let (da, db) = (delong(&y, &s).unwrap(), delong(&y, &neg).unwrap());
            assert_eq!(da.variance.to_bits(), db.variance.to_bits());
        }
    }
}

/// A named score transform.
type Transform = (&'static str, fn(f64) -> f64);

#[test]
fn strictly_monotone_transforms_leave_auc_unchanged() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let transforms: [Transform; 4] = [
        ("2x", |x| 2.0 * x),
        ("x - 10", |x| x - 10.0),
        ("sigmoid", |x| 1.0 / (1.0 + libm::exp(-x))),
        ("x³ + x", |x| x * x * x + x),
    ];
    for _ in 0..300 {
        let (y, s) = random_case(&mut rng, 500);
        if !both_classes(&y) {
            continue;
        }
        let base = roc_auc_stats(&y, &s).unwrap();
        let base_d = delong(&y, &s).ok();
        for (name, f) in &transforms {
            let t: Vec<f64> = s.iter().map(|&x| f(x)).collect();
            // The test is only honest if the transform kept the strict order in floats.
            let mut pairs: Vec<(f64, f64)> = s.iter().copied().zip(t.iter().copied()).collect();
            pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
            for w in pairs.windows(2) {
                assert_eq!(
                    w[0].0 < w[1].0,
                    w[0].1 < w[1].1,
                    "{name} is not strictly monotone on {:?}",
                    w
                );
            }
            let st = roc_auc_stats(&y, &t).unwrap();
            assert_eq!(st, base, "{name}");
            if let Some(bd) = &base_d {
                assert_delong_bits_eq(&delong(&y, &t).unwrap(), bd);
            }
        }
    }
}

#[test]
fn zeros_of_both_signs_tie() {
    let y = [true, false];
    assert_eq!(roc_auc(&y, &[-0.0, 0.0]), MetricValue::Value(0.5));
    assert_eq!(roc_auc(&y, &[0.0, -0.0]), MetricValue::Value(0.5));
    assert_eq!(roc_auc(&y, &[0.0, -5e-324]), MetricValue::Value(1.0));
}

#[test]
fn all_tied_scores_give_one_half_and_zero_variance() {
    let y = [true, false, true, false, false];
    let s = [0.3; 5];
    assert_eq!(roc_auc(&y, &s), MetricValue::Value(0.5));
    let d = delong(&y, &s).unwrap();
    // Every placement value is ½: no spread, so the variance is exactly 0.
    assert_eq!((d.variance, d.se, d.ci), (0.0, 0.0, (0.5, 0.5)));
}

#[test]
fn perfect_separation_has_zero_variance() {
    let y = [false, false, false, true, true];
    let d = delong(&y, &[0.1, 0.2, 0.3, 0.4, 0.5]).unwrap();
    assert_eq!((d.auc, d.variance, d.ci), (1.0, 0.0, (1.0, 1.0)));
    let d = delong(&y, &[0.5, 0.4, 0.3, 0.2, 0.1]).unwrap();
    assert_eq!((d.auc, d.variance, d.ci), (0.0, 0.0, (0.0, 0.0)));
}

#[test]
fn single_class_is_undefined() {
    assert_eq!(
        roc_auc(&[true, true], &[0.1, 0.2]),
        MetricValue::Undefined {
            undefined: "test set has no negative rows".into()
        }
    );
    assert_eq!(
        roc_auc(&[false, false], &[0.1, 0.2]),
        MetricValue::Undefined {
            undefined: "test set has no positive rows".into()
        }
    );
    assert!(delong(&[true, true], &[0.1, 0.2]).is_err());
    assert!(roc_auc_stats(&[false], &[0.1]).is_err());
}

#[test]
fn malformed_input_is_an_error_not_a_panic() {
    assert!(roc_auc_stats(&[], &[]).is_err());
    assert!(roc_auc_stats(&[true, false], &[0.1]).is_err());
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let e = roc_auc_stats(&[true, false], &[0.1, bad]).unwrap_err();
        assert!(e.0.contains("row 1"), "{e}");
        assert!(delong(&[true, false, true, false], &[bad, 0.0, 0.1, 0.2]).is_err());
    }
    // DeLong needs two rows of each class.
    assert!(delong(&[true, false, false], &[0.3, 0.1, 0.2]).is_err());
    assert!(delong(&[true, true, false], &[0.3, 0.1, 0.2]).is_err());
    assert!(delong(&[true, true, false, false], &[0.3, 0.1, 0.2, 0.0]).is_ok());
}

#[test]
fn metric_value_json_shape() {
    assert_eq!(
        serde_json::to_string(&MetricValue::Value(0.75)).unwrap(),
        "0.75"
    );
    let u = MetricValue::Undefined {
        undefined: "test set has no negative rows".into(),
    };
    let text = serde_json::to_string(&u).unwrap();
    assert_eq!(text, r#"{"undefined":"test set has no negative rows"}"#);
    assert_eq!(serde_json::from_str::<MetricValue>(&text).unwrap(), u);
    assert_eq!(
        serde_json::from_str::<MetricValue>("0.75").unwrap(),
        MetricValue::Value(0.75)
    );
}

#[test]
fn accuracy_is_correct_over_n() {
    let y = [true, false, true, true, false, false, false];
    let p = [true, true, false, true, false, false, false];
    assert_eq!(accuracy(&y, &p), MetricValue::Value(5.0 / 7.0));
    assert!(matches!(accuracy(&[], &[]), MetricValue::Undefined { .. }));
    assert!(matches!(
        accuracy(&[true], &[true, false]),
        MetricValue::Undefined { .. }
    ));
}

#[test]
fn balanced_accuracy_is_mean_of_rates() {
    // TPR = 2/3, TNR = 3/4 → (2/3 + 3/4)/2 = 17/24, one division.
    let y = [true, false, true, true, false, false, false];
    let p = [true, true, false, true, false, false, false];
    assert_eq!(balanced_accuracy(&y, &p), MetricValue::Value(17.0 / 24.0));
    assert!(matches!(
        balanced_accuracy(&[true, true], &[true, false]),
        MetricValue::Undefined { .. }
    ));
    assert!(matches!(
        balanced_accuracy(&[false, false], &[true, false]),
        MetricValue::Undefined { .. }
    ));
}

#[test]
fn majority_baseline_uses_the_training_majority() {
    // Training majority is positive; the test set is mostly negative.
    let train = [true, true, false];
    let test = [false, false, false, true];
    assert_eq!(
        majority_baseline_accuracy(&train, &test),
        MetricValue::Value(0.25)
    );
    // Exact tie in training → predict negative (DummyClassifier on 0/1 labels).
    assert_eq!(
        majority_baseline_accuracy(&[true, false], &test),
        MetricValue::Value(0.75)
    );
    assert!(matches!(
        majority_baseline_accuracy(&[], &test),
        MetricValue::Undefined { .. }
    ));
    assert!(matches!(
        majority_baseline_accuracy(&train, &[]),
        MetricValue::Undefined { .. }
    ));
    // A single-class test set still has a baseline.
    assert_eq!(
        majority_baseline_accuracy(&[false], &[false, false]),
        MetricValue::Value(1.0)
    );
}

#[test]
fn lift_is_difference_or_undefined() {
    let a = MetricValue::Value(0.98);
    let b = MetricValue::Value(0.98);
    assert_eq!(accuracy_lift(&a, &b), MetricValue::Value(0.0));
    assert_eq!(
        accuracy_lift(&MetricValue::Value(0.9), &MetricValue::Value(0.5)),
        MetricValue::Value(0.9 - 0.5)
    );
    let u = MetricValue::Undefined {
        undefined: "test set is empty".into(),
    };
    assert!(matches!(
        accuracy_lift(&u, &b),
        MetricValue::Undefined { .. }
    ));
    assert!(matches!(
        accuracy_lift(&a, &u),
        MetricValue::Undefined { .. }
    ));
}

/// One class at most a tenth of the rows (the other side of `MINORITY_SEARCH_SHARE`:
/// counted by binary search in the minority class alone), both ways round, tie-heavy and
/// continuous, including the boundary share of exactly 10% and a single minority row.
#[test]
fn auc_with_a_small_minority_class_equals_the_pairwise_oracle() {
    let mut rng = ChaCha8Rng::seed_from_u64(20_261_201);
    for case in 0..400 {
        let n = 10 * (1 + uniform(&mut rng, 150) as usize);
        let minority = match case % 4 {
            0 => 1,
            1 => n / 10,
            _ => 1 + uniform(&mut rng, n as u64 / 10) as usize,
        };
        let minority_is_positive = case % 2 == 0;
        let mut y = vec![!minority_is_positive; n];
        for _ in 0..minority {
            loop {
                let i = uniform(&mut rng, n as u64) as usize;
                if y[i] != minority_is_positive {
                    y[i] = minority_is_positive;
                    break;
                }
            }
        }
        let tie_heavy = case % 3 != 0;
        let s: Vec<f64> = y
            .iter()
            .map(|&l| {
                if tie_heavy {
                    let level =
                        (uniform(&mut rng, 6) + if l { uniform(&mut rng, 3) } else { 0 }) as f64;
                    match (level - 3.0) / 4.0 {
                        z if z == 0.0 && uniform(&mut rng, 2) == 0 => -0.0,
                        z => z,
                    }
                } else {
                    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 + if l { 0.25 } else { 0.0 }
                }
            })
            .collect();
        assert_auc_is_the_oracles(&y, &s, case);
    }
}

/// Each metric's name is its JSON name (the enum's `snake_case` serde form), and only the
/// majority baseline reads no model.
#[test]
fn metric_names_are_their_json_names() {
    use counterlab::experiment::MetricName;
    for metric in [
        MetricName::RocAuc,
        MetricName::Accuracy,
        MetricName::BalancedAccuracy,
        MetricName::MajorityBaselineAccuracy,
        MetricName::AccuracyLift,
    ] {
        let json = serde_json::to_string(&metric).unwrap();
        assert_eq!(json, format!("\"{}\"", metric.as_str()));
        assert_eq!(
            metric.depends_on_model(),
            metric != MetricName::MajorityBaselineAccuracy,
            "{json}"
        );
    }
    assert_eq!(MetricName::AccuracyLift.as_str(), "accuracy_lift");
}

/// The mean and the sample variance (n − 1) of 1, 2, 4, 5 by hand: 12/4 = 3 and
/// (4 + 1 + 1 + 4)/3 = 10/3; one value is its own mean.
#[test]
fn mean_and_sample_variance_match_a_hand_calculation() {
    use counterlab::metrics::{mean, sample_variance};
    let values = [1.0, 2.0, 4.0, 5.0];
    assert_eq!(mean(&values), 3.0);
    assert_eq!(sample_variance(&values), 10.0 / 3.0);
    assert_eq!(mean(&[0.7]), 0.7);
    assert_eq!(sample_variance(&[0.25, 0.75]), 0.125);
}
