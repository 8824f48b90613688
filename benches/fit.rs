//! `LogisticRegression::fit` (standardise + Newton) at 2,000 × 6 and 20,000 × 6, and
//! `predict_proba` on the 20,000 rows; and the fits a label permutation null makes
//! (`fit_design` on one shared `Design`, labels permuted: what `verify` spends most of its
//! time on) at the shapes of the bundled packs' training sets.
//!
//! `logistic_fit_pack_null/<pack>` does the same on a bundled pack's own rows: the
//! training set of the arm a single-arm claim names, under row-level label permutations
//! (`Table::permute_labels_by_row`, as `mutation.label.chance` draws them). Real features
//! are skewed and correlated, which the synthetic null data is not; the mean Newton
//! iterations of each set of fits are printed before timing.
//!
//! Run: `cargo bench --bench fit` (about a minute and a half).
//!
//! Data: six roughly normal features (Irwin–Hall, 4 uniforms) with different units and
//! offsets, feature 1 correlated with feature 0; label ~ Bernoulli(σ(β·x − 1)), about 30%
//! positives; C = 1. Every iteration asserts the fit equals the one computed once before
//! timing, bit for bit, so the bench cannot silently measure a broken or drifting solver.

#![allow(
    missing_docs,
    reason = "criterion_group! generates an undocumented pub fn"
)]

use std::hint::black_box;
use std::time::Duration;

use counterlab::experiment::{Claim, ModelSpec};
use counterlab::model::{Design, FittedLogistic, LogisticRegression, Matrix};
use counterlab::run::design_matrix;
use counterlab::{split, Experiment, Pack};
use criterion::measurement::WallTime;
use criterion::{
    criterion_group, criterion_main, BenchmarkGroup, BenchmarkId, Criterion, Throughput,
};
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

const FEATURES: usize = 6;

fn data(n: usize, seed: u64) -> (Matrix, Vec<bool>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // 53 random bits → uniform in [0, 1).
    let mut unit = move || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let beta = [0.9, -0.6, 0.4, 0.0, 0.25, -0.15];
    let mut x = Vec::with_capacity(n * FEATURES);
    let mut y = Vec::with_capacity(n);
    for _ in 0..n {
        let mut z = -1.0;
        let mut first = 0.0;
        for (k, b) in beta.iter().enumerate() {
            let mut g = unit() + unit() + unit() + unit() - 2.0;
            g *= 1.7;
            if k == 0 {
                first = g;
            } else if k == 1 {
                g = 0.6 * first + 0.8 * g;
            }
            z += b * g;
            x.push(g * (1.0 + 3.0 * k as f64) + 10.0 * k as f64);
        }
        y.push(unit() < 1.0 / (1.0 + libm::exp(-z)));
    }
    (Matrix::from_row_major(n, FEATURES, x), y)
}

fn bench_fit(c: &mut Criterion) {
    let params = LogisticRegression::new(1.0);
    let mut group = c.benchmark_group("logistic_fit");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    for &n in &[2_000usize, 20_000] {
        let (x, y) = data(n, 42);
        let expected = params.fit(&x, &y).expect("fit");
        assert!(expected.converged);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(
            BenchmarkId::from_parameter(format!("{n}x{FEATURES}")),
            &n,
            |b, _| {
                b.iter(|| {
                    let fitted = params.fit(black_box(&x), black_box(&y)).expect("fit");
                    assert_eq!(fitted, expected);
                    fitted
                })
            },
        );
    }
    group.finish();

    let (x, y) = data(20_000, 42);
    let model = params.fit(&x, &y).expect("fit");
    let expected = model.predict_proba(&x);
    c.bench_function("predict_proba/20000x6", |b| {
        b.iter(|| {
            let p = model.predict_proba(black_box(&x));
            assert_eq!(p, expected);
            p
        })
    });
}

/// Features as in [`data`] but `features` of them (cycling through six kinds of column),
/// and labels from a fixed prevalence, unrelated to the features: what a permuted-label
/// fit sees.
fn null_data(n: usize, features: usize, prevalence: f64, seed: u64) -> (Matrix, Vec<bool>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut unit = move || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let mut x = Vec::with_capacity(n * features);
    let mut y = Vec::with_capacity(n);
    for _ in 0..n {
        for k in 0..features {
            let g = unit() + unit() + unit() + unit() - 2.0;
            x.push(g * (1.0 + 3.0 * (k % 6) as f64) + 10.0 * (k % 6) as f64);
        }
        y.push(unit() < prevalence);
    }
    (Matrix::from_row_major(n, features, x), y)
}

/// One permuted-label fit per iteration, cycling through 16 seeded permutations of the
/// labels, all on one `Design` (as `verify`'s permutation nulls do). Shapes: entity-leakage
/// (~1,300 training rows × 28 features, 30% positives), temporal-leakage (~4,700 × 11,
/// ~10%), class-imbalance (~9,000 × 9, 2.25%).
fn bench_permuted_fits(c: &mut Criterion) {
    let params = LogisticRegression::new(1.0);
    let mut group = c.benchmark_group("logistic_fit_permuted");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    for &(n, features, prevalence) in &[(1_300, 28, 0.3), (4_700, 11, 0.1), (9_000, 9, 0.0225)] {
        let (x, y) = null_data(n, features, prevalence, 11);
        let design = Design::new(&x).expect("finite features");
        let mut rng = ChaCha8Rng::seed_from_u64(12);
        let permutations: Vec<Vec<bool>> = (0..16)
            .map(|_| {
                let mut labels = y.clone();
                for i in (1..labels.len()).rev() {
                    labels.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
                }
                labels
            })
            .collect();
        let expected = converged_fits(&params, &design, &permutations);
        group.throughput(Throughput::Elements(n as u64));
        let id = BenchmarkId::from_parameter(format!("{n}x{features}"));
        bench_fits(&mut group, id, &params, &design, &permutations, &expected);
    }
    group.finish();
}

/// The fits of every label set of `permutations` on `design`, each converged.
fn converged_fits(
    params: &LogisticRegression,
    design: &Design,
    permutations: &[Vec<bool>],
) -> Vec<FittedLogistic> {
    let fits: Vec<_> = permutations
        .iter()
        .map(|labels| params.fit_design(design, labels).expect("fit"))
        .collect();
    assert!(fits.iter().all(|f| f.converged));
    fits
}

/// Times `fit_design` on `design` with each label set of `permutations` in turn, every
/// iteration asserting the bits of the fit computed before timing (`expected`).
fn bench_fits(
    group: &mut BenchmarkGroup<'_, WallTime>,
    id: BenchmarkId,
    params: &LogisticRegression,
    design: &Design,
    permutations: &[Vec<bool>],
    expected: &[FittedLogistic],
) {
    let mut next = 0;
    group.bench_function(id, |b| {
        b.iter(|| {
            let k = next % permutations.len();
            next += 1;
            let fitted = params
                .fit_design(black_box(design), black_box(&permutations[k]))
                .expect("fit");
            assert_eq!(fitted, expected[k]);
            fitted
        })
    });
}

/// The arm each bundled pack's permutation null is timed on: a single-arm claim's arm.
const PACK_ARMS: [(&str, &str); 4] = [
    ("class-imbalance", "auc-above-chance"),
    ("entity-leakage", "grouped-auc-overclaimed"),
    ("rare-defects", "auc-above-chance"),
    ("temporal-leakage", "future-auc-overclaimed"),
];

fn bench_pack_nulls(c: &mut Criterion) {
    let packs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/packs");
    let mut group = c.benchmark_group("logistic_fit_pack_null");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    for (pack_id, experiment_id) in PACK_ARMS {
        let pack = Pack::open(packs.join(pack_id)).expect("a bundled pack");
        let path = packs
            .join(pack_id)
            .join("experiments")
            .join(format!("{experiment_id}.json"));
        let experiment = Experiment::from_json(&std::fs::read(&path).expect("readable"))
            .expect("a valid experiment");
        let arm = match &experiment.claim {
            Some(Claim::MetricAtLeast { arm, .. } | Claim::MetricAtMost { arm, .. }) => arm,
            other => panic!("{experiment_id}: not a single-arm claim: {other:?}"),
        };
        let spec = &experiment
            .arms
            .iter()
            .find(|a| &a.name == arm)
            .expect("the claim's arm")
            .split;
        let table = pack.table();
        let split = split::split(table, spec, experiment.seed, &counterlab::JsonPath::root())
            .expect("the arm's split");
        let train = split.train_rows();
        let features = experiment.feature_list(&pack);
        let design = Design::new(&design_matrix(table, &train, features)).expect("finite");
        let ModelSpec::Logistic { c: penalty } = experiment.model else {
            panic!("the benchmarked experiment's model is logistic")
        };
        let params = LogisticRegression::new(penalty);
        let permutations: Vec<Vec<bool>> = (0..16)
            .map(|seed| {
                let labels = table.permute_labels_by_row(seed);
                train.iter().map(|&r| labels.labels()[r]).collect()
            })
            .collect();
        let expected = converged_fits(&params, &design, &permutations);
        let iterations: usize = expected.iter().map(|f| f.iterations).sum();
        eprintln!(
            "logistic_fit_pack_null/{pack_id}: {} training rows x {} features ({arm} of \
             {experiment_id}), mean Newton iterations {:.2}",
            train.len(),
            features.len(),
            iterations as f64 / expected.len() as f64
        );
        group.throughput(Throughput::Elements(train.len() as u64));
        let id = BenchmarkId::from_parameter(pack_id);
        bench_fits(&mut group, id, &params, &design, &permutations, &expected);
    }
    group.finish();
}

criterion_group!(benches, bench_fit, bench_permuted_fits, bench_pack_nulls);
criterion_main!(benches);
