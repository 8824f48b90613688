//! `LogisticRegression::fit` (standardise + Newton) at 2,000 × 6 and 20,000 × 6, and
//! `predict_proba` on the 20,000 rows.
//!
//! Run: `cargo bench --bench fit` (under a minute).
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

use counterlab::model::{LogisticRegression, Matrix};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
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

criterion_group!(benches, bench_fit);
criterion_main!(benches);
