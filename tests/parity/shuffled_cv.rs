//! Parity of `src/split/numpy_random.rs` with numpy 2.4.6's legacy `RandomState` and
//! scikit-learn 1.9.1's shuffled `KFold` and `GroupKFold`, on the goldens written by
//! `gen_shuffled_cv_goldens.py` beside this file (run it from the repository root to
//! regenerate `shuffled_cv_goldens.json`; its docstring says what every entry is and how
//! numpy produced it). Every comparison is exact: these are integers.

use counterlab::split::numpy_random::{group_k_fold_shuffled, k_fold_shuffled, RandomState};
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize)]
struct Goldens {
    versions: Versions,
    raw: Vec<Raw>,
    interval: Vec<Interval>,
    permutation: Vec<Permutation>,
    k_fold: Vec<KFold>,
    group_k_fold: Vec<GroupSet>,
    refusals: Vec<Refusal>,
}

#[derive(Deserialize)]
struct Versions {
    numpy: String,
    #[serde(rename = "scikit-learn")]
    scikit_learn: String,
}

#[derive(Deserialize)]
struct Raw {
    seed: u32,
    first: Vec<u32>,
    from_620: Vec<u32>,
}

#[derive(Deserialize)]
struct Interval {
    seed: u32,
    max: u64,
    draws: Vec<u64>,
}

#[derive(Deserialize)]
struct Permutation {
    seed: u32,
    n: usize,
    permutation: Vec<usize>,
    next_raw: u32,
}

#[derive(Deserialize)]
struct KFold {
    n: usize,
    k: u32,
    seed: u32,
    fold_per_row: Vec<u32>,
}

#[derive(Deserialize)]
struct GroupSet {
    name: String,
    n_groups: usize,
    labels: Vec<Value>,
    unique: Vec<Value>,
    folds: Vec<GroupFolds>,
}

#[derive(Deserialize)]
struct GroupFolds {
    k: u32,
    seed: u32,
    fold_per_row: Vec<u32>,
}

#[derive(Deserialize)]
struct Refusal {
    splitter: String,
    #[serde(default)]
    n_rows: usize,
    #[serde(default)]
    labels: Vec<String>,
    k: u32,
}

fn goldens() -> Goldens {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/parity/shuffled_cv_goldens.json"
    );
    let bytes = std::fs::read(path)
        .expect("shuffled cv goldens: run tests/parity/gen_shuffled_cv_goldens.py");
    serde_json::from_slice(&bytes).expect("shuffled cv goldens parse")
}

#[test]
fn goldens_are_from_the_versions_the_module_names() {
    let g = goldens();
    assert_eq!(g.versions.numpy, "2.4.6");
    assert_eq!(g.versions.scikit_learn, "1.9.1");
}

#[test]
fn raw_outputs_match_numpy_randomstate() {
    let g = goldens();
    assert!(g.raw.iter().any(|r| r.seed == u32::MAX));
    for raw in &g.raw {
        let mut rs = RandomState::new(raw.seed);
        let first: Vec<u32> = (0..10).map(|_| rs.next_u32()).collect();
        assert_eq!(first, raw.first, "seed {}: first outputs", raw.seed);
        for _ in 10..620 {
            rs.next_u32();
        }
        let later: Vec<u32> = (0..10).map(|_| rs.next_u32()).collect();
        assert_eq!(later, raw.from_620, "seed {}: outputs 620..629", raw.seed);
    }
}

#[test]
fn random_interval_matches_numpy_masked_draws_in_both_branches() {
    let g = goldens();
    assert!(g.interval.iter().any(|c| c.max > u64::from(u32::MAX)));
    for case in &g.interval {
        let mut rs = RandomState::new(case.seed);
        let draws: Vec<u64> = (0..case.draws.len())
            .map(|_| rs.random_interval(case.max))
            .collect();
        assert_eq!(draws, case.draws, "seed {} max {}", case.seed, case.max);
    }
}

#[test]
fn permutation_matches_numpy_and_draws_as_often() {
    let g = goldens();
    assert!(g.permutation.iter().any(|p| p.n == 1000));
    for case in &g.permutation {
        let mut rs = RandomState::new(case.seed);
        assert_eq!(
            rs.permutation(case.n),
            case.permutation,
            "seed {} n {}",
            case.seed,
            case.n
        );
        // The next output checks how many draws the permutation consumed.
        assert_eq!(
            rs.next_u32(),
            case.next_raw,
            "seed {} n {}",
            case.seed,
            case.n
        );
        // shuffle of any slice makes the same moves as permutation.
        let mut letters: Vec<String> = (0..case.n).map(|i| format!("v{i}")).collect();
        RandomState::new(case.seed).shuffle(&mut letters);
        let expected: Vec<String> = case.permutation.iter().map(|i| format!("v{i}")).collect();
        assert_eq!(letters, expected);
    }
}

/// Fisher–Yates from the top with `pick(rs, i)` choosing the partner of position i.
fn shuffle_with(seed: u32, n: usize, pick: impl Fn(&mut RandomState, u64) -> u64) -> Vec<usize> {
    let mut rs = RandomState::new(seed);
    let mut items: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        let j = pick(&mut rs, i as u64) as usize;
        items.swap(i, j);
    }
    items
}

#[test]
fn goldens_tell_near_miss_draws_apart() {
    // The goldens must reject plausible mistakes, not only agree with the module: a mask
    // one bit wider, a modulo instead of rejection, and a 64-bit draw where numpy draws
    // 32 bits each give another permutation of 1000 (or another interval draw).
    let g = goldens();
    let golden = g
        .permutation
        .iter()
        .find(|p| p.seed == 42 && p.n == 1000)
        .expect("seed 42, n = 1000");
    let wider_mask = shuffle_with(42, 1000, |rs, i| loop {
        let mask = (u64::MAX >> i.leading_zeros() << 1) | 1;
        let v = u64::from(rs.next_u32()) & mask;
        if v <= i {
            break v;
        }
    });
    let modulo = shuffle_with(42, 1000, |rs, i| u64::from(rs.next_u32()) % (i + 1));
    let wide_draws = shuffle_with(42, 1000, |rs, i| loop {
        let v = rs.next_u64() & (u64::MAX >> i.leading_zeros());
        if v <= i {
            break v;
        }
    });
    let right = shuffle_with(42, 1000, |rs, i| rs.random_interval(i));
    assert_eq!(right, golden.permutation);
    for (what, wrong) in [
        ("wider mask", wider_mask),
        ("modulo", modulo),
        ("64-bit draws", wide_draws),
    ] {
        assert_ne!(wrong, golden.permutation, "{what} is not told apart");
    }
    // Above 32 bits numpy draws 64 bits, the first output the high half.
    let case = g
        .interval
        .iter()
        .find(|c| c.max == 3 * (1u64 << 32) + 4)
        .expect("a 64-bit max");
    let mut rs = RandomState::new(case.seed);
    let low_first = loop {
        let low = u64::from(rs.next_u32());
        let v = ((u64::from(rs.next_u32()) << 32) | low) & ((1 << 34) - 1);
        if v <= case.max {
            break v;
        }
    };
    assert_ne!(low_first, case.draws[0]);
}

#[test]
fn k_fold_shuffled_matches_scikit_learn() {
    let g = goldens();
    assert!(g.k_fold.len() >= 200);
    for case in &g.k_fold {
        let got = k_fold_shuffled(case.n, case.k, case.seed).expect("a valid KFold");
        assert_eq!(
            got, case.fold_per_row,
            "KFold(n_splits={}, shuffle=True, random_state={}) over {} rows",
            case.k, case.seed, case.n
        );
    }
}

/// The labels' `np.unique` order: text by code point (= UTF-8 bytes), integers by value.
fn unique_sorted(labels: &[Value]) -> Vec<Value> {
    let mut unique = labels.to_vec();
    if labels.iter().all(Value::is_string) {
        unique.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
    } else {
        let number = |v: &Value| v.as_i64().expect("integer labels");
        unique.sort_by_key(number);
    }
    unique.dedup();
    unique
}

#[test]
fn group_k_fold_shuffled_matches_scikit_learn() {
    let g = goldens();
    let mut compared = 0;
    for set in &g.group_k_fold {
        let unique = unique_sorted(&set.labels);
        assert_eq!(unique, set.unique, "{}: np.unique's order", set.name);
        assert_eq!(unique.len(), set.n_groups);
        let group_of_row: Vec<u32> = set
            .labels
            .iter()
            .map(|l| unique.iter().position(|u| u == l).expect("a group") as u32)
            .collect();
        for case in &set.folds {
            let got = group_k_fold_shuffled(&group_of_row, set.n_groups, case.k, case.seed)
                .expect("a valid GroupKFold");
            assert_eq!(
                got, case.fold_per_row,
                "{}: GroupKFold(n_splits={}, shuffle=True, random_state={})",
                set.name, case.k, case.seed
            );
            compared += 1;
        }
    }
    assert!(
        compared >= 150,
        "{compared} GroupKFold assignments compared"
    );
}

#[test]
fn refuses_what_scikit_learn_refuses() {
    let g = goldens();
    for case in &g.refusals {
        let refused = match case.splitter.as_str() {
            "KFold" => k_fold_shuffled(case.n_rows, case.k, 0).is_err(),
            "GroupKFold" => {
                let unique = unique_sorted(
                    &case
                        .labels
                        .iter()
                        .map(|l| Value::from(l.as_str()))
                        .collect::<Vec<_>>(),
                );
                let group_of_row: Vec<u32> = case
                    .labels
                    .iter()
                    .map(|l| unique.iter().position(|u| u == l).expect("a group") as u32)
                    .collect();
                group_k_fold_shuffled(&group_of_row, unique.len(), case.k, 0).is_err()
            }
            other => panic!("unknown splitter {other}"),
        };
        assert!(refused, "{} k={} not refused", case.splitter, case.k);
    }
}
