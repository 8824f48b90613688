//! `counterlab::boundary::compute` — every cell of a pack's `[boundary]` sweep (kernel
//! results, the claim's CI and its K label permutations per cell, cell and map hashes) —
//! for each bundled pack that declares one, on one thread and on two (cells are computed
//! in parallel; the map is identical for any thread count, `tests/boundary.rs`).
//!
//! Run: `cargo bench --bench boundary` (about a minute). Pack loading is outside the
//! timed loop. Every iteration asserts that the map hash equals the one computed once
//! before timing, so the bench cannot silently measure a drifting kernel.
//!
//! Test mode (`cargo bench -- --test`, run by CI to keep the bench working): each map is
//! computed once, on two threads, with no reference map (`tests/boundary.rs` checks that
//! the map is the same for any thread count and row order).

#![allow(
    missing_docs,
    reason = "criterion_group! generates an undocumented pub fn"
)]

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use counterlab::{boundary, Packs};
use counterlab_test_support::bench_mode::criterion_test_mode;
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
        let test_mode = criterion_test_mode();
        let expected = (!test_mode).then(|| {
            boundary::compute(pack, 1)
                .unwrap_or_else(|e| panic!("{}: {e}", pack.id()))
                .map_hash
        });
        eprintln!(
            "boundary/{}: {} (experiment {}, K = {})",
            pack.id(),
            spec.title,
            spec.experiment,
            spec.permutations
        );
        let thread_counts: &[usize] = if test_mode { &[2] } else { &[1, 2] };
        for &threads in thread_counts {
            group.bench_with_input(
                BenchmarkId::new(pack.id(), format!("{threads} thread(s)")),
                &threads,
                |b, &threads| {
                    b.iter(|| {
                        let map = boundary::compute(black_box(pack), threads).expect("map");
                        if let Some(expected) = &expected {
                            assert_eq!(&map.map_hash, expected, "{}: map drifted", pack.id());
                        }
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
