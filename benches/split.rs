//! `split::split` (entity_grouped and random_rows, test fraction 0.25) and
//! `split::overlap` on the bundled entity-leakage pack and on a synthetic 100,000-row pack.
//!
//! Run: `cargo bench --bench split` (under a minute). The scikit-learn side
//! (`GroupShuffleSplit` / `ShuffleSplit` on the same shapes) is timed by
//! `python3 benches/sklearn/pipeline_side_by_side.py`.
//!
//! Data: the entity-leakage pack's canonical table as loaded by `Pack::open` (its load is
//! not timed), and a synthetic pack written to a temporary folder and opened the same way:
//! 100,000 rows over 20,000 entities (5 monthly rows each), two features, ~30% positive
//! entities. Every iteration asserts that the split (or overlap) equals the one computed
//! once before timing, so the bench cannot silently measure a broken function.

#![allow(
    missing_docs,
    reason = "criterion_group! generates an undocumented pub fn"
)]

use std::fmt::Write as _;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use counterlab::experiment::SplitSpec;
use counterlab::split;
use counterlab::Pack;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

const SEED: u64 = 7;
/// The path errors would name (the benches' splits never fail).
fn arm_path() -> counterlab::JsonPath {
    counterlab::JsonPath::field("arms").index(0).key("split")
}

const SYNTHETIC_ENTITIES: usize = 20_000;
const SYNTHETIC_ROWS_PER_ENTITY: usize = 5;

fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Writes a synthetic pack (CSV + pack.toml with its blake3) to a fresh temporary folder,
/// opens it and removes the folder again.
fn synthetic_pack() -> Pack {
    let mut rng = ChaCha8Rng::seed_from_u64(2026);
    // 53 random bits → uniform in [0, 1).
    let mut unit = move || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let mut csv = String::from("entity,month,usage,charges,label\n");
    for e in 0..SYNTHETIC_ENTITIES {
        let positive = unit() < 0.3;
        let base = unit() * 10.0 + if positive { 2.0 } else { 0.0 };
        for month in 1..=SYNTHETIC_ROWS_PER_ENTITY {
            let usage = ((base + unit()) * 100.0).round() / 100.0;
            let charges = ((unit() * 50.0 + 20.0) * 100.0).round() / 100.0;
            writeln!(
                csv,
                "E{e:06},{month},{usage},{charges},{}",
                u8::from(positive)
            )
            .expect("writing to a String cannot fail");
        }
    }
    let dir: PathBuf =
        std::env::temp_dir().join(format!("counterlab-bench-split-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create temporary pack folder");
    std::fs::write(dir.join("synthetic.csv"), csv.as_bytes()).expect("write synthetic.csv");
    let manifest = format!(
        "id = \"synthetic\"\ntitle = \"bench\"\nconcept = \"entity-leakage\"\n\n[data]\n\
         file = \"synthetic.csv\"\nblake3 = \"{}\"\nentity = \"entity\"\nlabel = \"label\"\n\
         positive = \"1\"\nfeatures = [\"usage\", \"charges\"]\ntime = \"month\"\n",
        counterlab::canon::file_hash(csv.as_bytes())
    );
    std::fs::write(dir.join("pack.toml"), manifest).expect("write pack.toml");
    let pack = Pack::open(&dir);
    // Best effort: the table is in memory now.
    let _ = std::fs::remove_dir_all(&dir);
    pack.expect("the synthetic pack loads")
}

fn bench_split(c: &mut Criterion) {
    let bundled =
        Pack::open(crate_dir().join("fixtures/packs/entity-leakage")).expect("entity-leakage");
    let synthetic = synthetic_pack();
    let specs = [
        SplitSpec::EntityGrouped {
            test_fraction: 0.25,
        },
        SplitSpec::RandomRows {
            test_fraction: 0.25,
        },
    ];

    let mut group = c.benchmark_group("split");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for (label, pack) in [("entity-leakage", &bundled), ("synthetic-100k", &synthetic)] {
        let table = pack.table();
        group.throughput(Throughput::Elements(table.n_rows() as u64));
        for spec in &specs {
            let expected = split::split(table, spec, SEED, &arm_path()).expect("split");
            // A grouped split shares no entity; a row split of many-row entities does.
            let shared = split::overlap(table, &expected, table.feature_names()).entities;
            match spec {
                SplitSpec::EntityGrouped { .. } => assert_eq!(shared, 0),
                _ => assert!(shared > 0),
            }
            group.bench_with_input(BenchmarkId::new(label, spec.kind()), spec, |b, spec| {
                b.iter(|| {
                    let got = split::split(black_box(table), black_box(spec), SEED, &arm_path())
                        .expect("split");
                    assert_eq!(got, expected);
                    got
                })
            });
        }
    }
    group.finish();

    // What `run` does with each split besides fitting: entity / duplicate-row / temporal
    // overlap on every feature of the pack.
    let mut group = c.benchmark_group("overlap");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for (label, pack) in [("entity-leakage", &bundled), ("synthetic-100k", &synthetic)] {
        let table = pack.table();
        let features = table.feature_names();
        group.throughput(Throughput::Elements(table.n_rows() as u64));
        for spec in &specs {
            let s = split::split(table, spec, SEED, &arm_path()).expect("split");
            let expected = split::overlap(table, &s, features);
            group.bench_with_input(BenchmarkId::new(label, spec.kind()), &s, |b, s| {
                b.iter(|| {
                    let got = split::overlap(black_box(table), black_box(s), features);
                    assert_eq!(got, expected);
                    got
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench_split);
criterion_main!(benches);
