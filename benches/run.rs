//! `run_with(pack, experiment, threads = 1)` for every registered experiment of every
//! bundled pack (`fixtures/packs/*/experiments/*.json`), plus two stages of the
//! entity-leakage `random-vs-grouped-one-split` experiment: one arm without ablations or summaries
//! (`arm_predictions`: split, design matrix, standardise, fit, score) and the model fit
//! alone on each arm's training rows.
//!
//! Run: `cargo bench --bench run` (about a minute). The scikit-learn side
//! (GroupShuffleSplit / ShuffleSplit + StandardScaler + LogisticRegression + metrics on the
//! same CSV and experiment) is `python3 benches/sklearn/pipeline_side_by_side.py`, which
//! reads these benches' criterion estimates to print the ratios.
//!
//! Pack loading (CSV parse, blake3, canonical order) is outside the timed loop: these are
//! in-process kernel times. Every iteration asserts that the result (`result_hash`, or the
//! fitted model / predictions bit for bit) equals the one computed once before timing, so
//! the bench cannot silently measure a broken or drifting kernel.

#![allow(
    missing_docs,
    reason = "criterion_group! generates an undocumented pub fn"
)]

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use counterlab::experiment::ModelSpec;
use counterlab::model::LogisticRegression;
use counterlab::run::{arm_predictions, design_matrix};
use counterlab::{run_with, Experiment, Pack, RunOptions};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};

fn packs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/packs")
}

fn sorted_entries(dir: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .collect();
    paths.sort();
    paths
}

/// Every bundled pack with its registered experiments (file stem, experiment), in path
/// order.
fn bundled() -> Vec<(Pack, Vec<(String, Experiment)>)> {
    let mut out = Vec::new();
    for dir in sorted_entries(&packs_dir()) {
        if !dir.join("pack.toml").is_file() {
            continue;
        }
        let pack = Pack::open(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        let experiments_dir = dir.join("experiments");
        let mut experiments = Vec::new();
        if experiments_dir.is_dir() {
            for path in sorted_entries(&experiments_dir) {
                if path.extension().and_then(|x| x.to_str()) != Some("json") {
                    continue;
                }
                let bytes = std::fs::read(&path).expect("readable experiment");
                let experiment = Experiment::from_json(&bytes)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                let stem = path
                    .file_stem()
                    .and_then(|s| s.to_str())
                    .expect("UTF-8 file name")
                    .to_owned();
                experiments.push((stem, experiment));
            }
        }
        out.push((pack, experiments));
    }
    assert!(!out.is_empty(), "no packs under {}", packs_dir().display());
    out
}

fn bench_run(c: &mut Criterion) {
    let packs = bundled();
    let options = RunOptions { threads: 1 };

    let mut group = c.benchmark_group("run");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for (pack, experiments) in &packs {
        for (name, experiment) in experiments {
            let expected = run_with(pack, experiment, &options)
                .unwrap_or_else(|e| panic!("{}/{name}: {e}", pack.id()))
                .result_hash;
            group.bench_with_input(
                BenchmarkId::new(pack.id(), name),
                experiment,
                |b, experiment| {
                    b.iter(|| {
                        let payload = run_with(black_box(pack), black_box(experiment), &options)
                            .expect("run");
                        assert_eq!(payload.result_hash, expected);
                        payload
                    })
                },
            );
        }
    }
    group.finish();

    // Stages of entity-leakage/random-vs-grouped-one-split (single-split arms), to compare stage by stage with sklearn.
    let Some((pack, experiment)) = packs.iter().find_map(|(pack, experiments)| {
        experiments
            .iter()
            .find(|(name, _)| {
                pack.id() == "entity-leakage" && name == "random-vs-grouped-one-split"
            })
            .map(|(_, experiment)| (pack, experiment))
    }) else {
        return;
    };
    let table = pack.table();
    let features = experiment.feature_list(pack);
    let ModelSpec::Logistic { c: c_value } = experiment.model else {
        panic!("the benchmarked experiment's model is logistic")
    };
    let params = LogisticRegression::new(c_value);

    let mut group = c.benchmark_group("run_stage");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for (index, arm) in experiment.arms.iter().enumerate() {
        let expected = arm_predictions(pack, table, experiment, index).expect("arm");
        group.bench_with_input(
            BenchmarkId::new("entity-leakage/random-vs-grouped-one-split/arm", &arm.name),
            &index,
            |b, &index| {
                b.iter(|| {
                    let got =
                        arm_predictions(black_box(pack), table, experiment, index).expect("arm");
                    assert_eq!(got.repeats, expected.repeats);
                    got
                })
            },
        );

        let split = counterlab::split::split(
            table,
            &arm.split,
            experiment.seed,
            &counterlab::JsonPath::field("arms"),
        )
        .expect("a single split");
        let train_rows = split.train_rows();
        let train_labels: Vec<bool> = train_rows.iter().map(|&r| table.labels()[r]).collect();
        let x = design_matrix(table, &train_rows, features);
        let fitted = params.fit(&x, &train_labels).expect("fit");
        assert!(fitted.converged);
        group.bench_with_input(
            BenchmarkId::new("entity-leakage/random-vs-grouped-one-split/fit", &arm.name),
            &index,
            |b, _| {
                b.iter(|| {
                    let got = params
                        .fit(black_box(&x), black_box(&train_labels))
                        .expect("fit");
                    assert_eq!(got, fitted);
                    got
                })
            },
        );
    }
    group.finish();
}

criterion_group!(benches, bench_run);
criterion_main!(benches);
