//! `counterlab::boundary::compute` — every cell of a pack's `[boundary]` sweep (kernel
//! results, the claim's CI and its K label permutations per cell, cell and map hashes) —
//! for each bundled pack that declares one, on one thread and on two (cells are computed
//! in parallel; the map is identical for any thread count, `tests/boundary.rs`).
//!
//! Run: `cargo bench --bench boundary` (about a minute). Pack loading is outside the
//! timed loop. Every iteration asserts that the map hash equals the one computed once
//! before timing, so the bench cannot silently measure a drifting kernel.

#![allow(
    missing_docs,
    reason = "criterion_group! generates an undocumented pub fn"
)]

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use counterlab::{boundary, Packs};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode};

fn boundary_maps(c: &mut Criterion) {
    let packs = Packs::discover(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/packs"))
        .expect("bundled packs load");
    let mut group = c.benchmark_group("boundary");
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(8));
    let mut benched = 0;
    for pack in packs.iter() {
        let Some(spec) = &pack.manifest().boundary else {
            continue;
        };
        let expected = boundary::compute(pack, 1)
            .unwrap_or_else(|e| panic!("{}: {e}", pack.id()))
            .map_hash;
        eprintln!(
            "boundary/{}: {} (experiment {}, K = {})",
            pack.id(),
            spec.title,
            spec.experiment,
            spec.permutations
        );
        for threads in [1, 2] {
            group.bench_with_input(
                BenchmarkId::new(pack.id(), format!("{threads} thread(s)")),
                &threads,
                |b, &threads| {
                    b.iter(|| {
                        let map = boundary::compute(black_box(pack), threads).expect("map");
                        assert_eq!(map.map_hash, expected, "{}: map drifted", pack.id());
                        map
                    })
                },
            );
        }
        benched += 1;
    }
    assert!(benched >= 2, "expected the bundled boundary sweeps");
    group.finish();
}

criterion_group!(benches, boundary_maps);
criterion_main!(benches);
