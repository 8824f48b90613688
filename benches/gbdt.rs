//! `HistGradientBoosting::fit` with scikit-learn's defaults (learning_rate 0.1, 100
//! iterations, 31 leaves, min_samples_leaf 20, 255 bins) at 2,800 × 6 (the verifier's refits
//! of a small pack), 10⁴ × 10 and 10⁵ × 10.
//!
//! Run: `cargo bench --bench gbdt` (about half a minute). scikit-learn's and LightGBM's side:
//! `python3 benches/sklearn/gbdt_side_by_side.py`, on data of the same kind (numpy's PCG64
//! there, ChaCha8 here, so not the same draws).
//!
//! Data: features roughly standard normal (Irwin–Hall, 12 uniforms), label ~
//! Bernoulli(σ(x₀ − x₁²/2 + x₂x₃/4)). Every iteration asserts the fit equals the one computed
//! before timing, tree for tree and bit for bit, so the bench cannot silently time a broken
//! or drifting fit.

#![allow(
    missing_docs,
    reason = "criterion_group! generates an undocumented pub fn"
)]

use std::hint::black_box;
use std::time::Duration;

use counterlab::model::gbdt::HistGradientBoosting;
use counterlab::model::Matrix;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn data(n: usize, p: usize, seed: u64) -> (Matrix, Vec<bool>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // 53 random bits → uniform in [0, 1).
    let mut unit = move || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let mut x = Vec::with_capacity(n * p);
    let mut y = Vec::with_capacity(n);
    for _ in 0..n {
        let start = x.len();
        for _ in 0..p {
            let normal = (0..12).map(|_| unit()).sum::<f64>() - 6.0;
            x.push(normal);
        }
        let r = &x[start..];
        let z = r[0] - 0.5 * r[1] * r[1] + 0.25 * r[2] * r[3];
        y.push(unit() < 1.0 / (1.0 + libm::exp(-z)));
    }
    (Matrix::from_row_major(n, p, x), y)
}

fn bench_gbdt_fit(c: &mut Criterion) {
    let params = HistGradientBoosting::default();
    let mut group = c.benchmark_group("gbdt_fit");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    for (n, p) in [(2_800, 6), (10_000, 10), (100_000, 10)] {
        let (x, y) = data(n, p, 2026);
        let expected = params.fit(&x, &y).expect("fit");
        assert_eq!(expected.trees().len(), params.max_iter);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(
            BenchmarkId::from_parameter(format!("{n}x{p}")),
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
}

criterion_group!(benches, bench_gbdt_fit);
criterion_main!(benches);
