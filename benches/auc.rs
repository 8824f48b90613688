//! `roc_auc_stats` at n = 1e3 … 1e6 on seeded, tie-heavy data.
//!
//! Run: `cargo bench --bench auc` (about a minute). The Python side for comparison is
//! `python3 benches/sklearn/auc_side_by_side.py`, which draws the same kind of data.
//!
//! Data: label ~ Bernoulli(0.3); score = round((u + 0.3·label)·1000)/1000 with u uniform
//! in [0, 1) — about 1,300 distinct values, so large inputs are mostly ties.
//! Every iteration asserts the result equals the one computed once before timing, so the
//! bench cannot silently measure a broken function.

#![allow(
    missing_docs,
    reason = "criterion_group! generates an undocumented pub fn"
)]

use std::hint::black_box;
use std::time::Duration;

use counterlab::metrics::roc_auc_stats;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn data(n: usize, seed: u64) -> (Vec<bool>, Vec<f64>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // 53 random bits → uniform in [0, 1).
    let mut unit = move || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let mut labels = Vec::with_capacity(n);
    let mut scores = Vec::with_capacity(n);
    for _ in 0..n {
        let y = unit() < 0.3;
        let s = ((unit() + if y { 0.3 } else { 0.0 }) * 1000.0).round() / 1000.0;
        labels.push(y);
        scores.push(s);
    }
    (labels, scores)
}

fn bench_auc(c: &mut Criterion) {
    let mut group = c.benchmark_group("roc_auc_stats");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    for &n in &[1_000usize, 10_000, 100_000, 1_000_000] {
        let (labels, scores) = data(n, 2026);
        let expected = roc_auc_stats(&labels, &scores).expect("both classes present");
        assert!(expected.auc > 0.6 && expected.auc < 0.9, "{expected:?}");
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| {
                let got = roc_auc_stats(black_box(&labels), black_box(&scores))
                    .expect("both classes present");
                assert_eq!(got, expected);
                got
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench_auc);
criterion_main!(benches);
