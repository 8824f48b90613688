//! `counterlab::verify` end to end (K = 199 and the other default options, one thread) on
//! every recorded payload listed in a bundled pack's `payloads/expected.toml`, the
//! tampered ones included (they stop after recompute and rerun, so they are fast); plus
//! one payload with two threads.
//!
//! Run: `cargo bench --bench verify` (about a minute and a half). The scikit-learn side
//! (`permutation_test_score` with the same model, split fraction and number of label
//! permutations) is `python3 benches/sklearn/verify_side_by_side.py`, which times the
//! `counterlab verify` binary end to end.
//!
//! The packs are loaded and the payload bytes read before timing: these are in-process
//! verifier times (parse, recompute, rerun, invariants, 3 row-order shuffles, 5 active
//! label permutations, K row-level label permutations, the chance check and the claim's
//! evidence, with K more entity-level or entity-block permutations when that is the
//! claim's null). Every iteration asserts that the report hash equals the one computed
//! once before timing, so the bench cannot silently measure a drifting verifier.
//!
//! Stale payloads: before timing, each payload's verdict (and the failing check, when
//! `expected.toml` names one) is compared with `expected.toml`, as `tests/payloads.rs`
//! does. A payload that does not get it (say, recorded before a change to the kernel or to
//! the canonical encoding) is rejected early, in a fraction of a full verification's time,
//! so timing it would be misleading. Such a payload is re-recorded in memory (`run_with` on
//! the experiment it carries, as `fixtures/generate/record-payloads.sh` would) and, if the
//! fresh payload gets the expected verdict, that one is timed under the id suffix
//! `(re-recorded)`; otherwise the recorded one is timed under `(verdict-mismatch)`. Either
//! way a warning goes to stderr.
//!
//! Test mode (`cargo bench -- --test`, run by CI to keep the bench working): each payload
//! is verified once at K = 19 with no comparison against `expected.toml` (verdicts depend
//! on K; `tests/payloads.rs` checks them at the default K), so that the check costs
//! seconds, not the minute and more of a full K = 199 pass.

#![allow(
    missing_docs,
    reason = "criterion_group! generates an undocumented pub fn"
)]

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use counterlab::verify::{Status, VerifyOptions};
use counterlab::{run_with, Experiment, Packs, Report, RunOptions};
use counterlab_test_support::bench_mode::criterion_test_mode;
use counterlab_test_support::bundled;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode};

/// The payload whose verification is also timed with two threads: two arms, ablations and
/// a gap claim (row-level null), the kind of payload the verifier is built for.
const TWO_THREAD_PAYLOAD: (&str, &str) = ("entity-leakage", "random-vs-grouped");

/// Label permutations in test mode: enough to exercise every stage of a verification.
const TEST_MODE_PERMUTATIONS: usize = 19;

/// One recorded payload with what `expected.toml` says of it.
struct Recorded {
    pack: String,
    stem: String,
    verdict: String,
    check: Option<String>,
    bytes: Vec<u8>,
}

impl Recorded {
    /// Whether a report is the one `expected.toml` lists: the verdict, and the named check
    /// failing.
    fn as_expected(&self, report: &Report) -> bool {
        report.verdict().as_str() == self.verdict
            && self
                .check
                .as_ref()
                .is_none_or(|id| report.check(id).map(|c| c.status) == Some(Status::Fail))
    }

    /// The payload run afresh from the experiment it records, as pretty JSON.
    fn rerecorded(&self, packs: &Packs) -> Option<Vec<u8>> {
        let value: serde_json::Value = serde_json::from_slice(&self.bytes).ok()?;
        let experiment_bytes = serde_json::to_vec(value.get("experiment")?).ok()?;
        let experiment = Experiment::from_json(&experiment_bytes).ok()?;
        let pack = packs.get(&experiment.pack).ok()?;
        let payload = run_with(pack, &experiment, &RunOptions { threads: 1 }).ok()?;
        Some(payload.to_json_pretty().ok()?.into_bytes())
    }
}

fn packs_dir() -> PathBuf {
    bundled::packs_dir()
}

/// Every payload listed in an `expected.toml`, in pack then listing order.
fn recorded(packs: &Packs) -> Vec<Recorded> {
    bundled::recorded_payloads(packs)
        .into_iter()
        .map(|case| Recorded {
            bytes: std::fs::read(&case.path)
                .unwrap_or_else(|e| panic!("{}: {e}", case.path.display())),
            stem: Path::new(&case.file)
                .file_stem()
                .and_then(|s| s.to_str())
                .expect("UTF-8 file name")
                .to_owned(),
            pack: case.pack,
            verdict: case.verdict,
            check: case.check,
        })
        .collect()
}

/// The bytes to time for a payload, their report (threads 1) and the bench id suffix.
fn prepare(
    payload: &Recorded,
    packs: &Packs,
    options: &VerifyOptions,
) -> (Vec<u8>, Report, &'static str) {
    let report = counterlab::verify(&payload.bytes, packs, options);
    if payload.as_expected(&report) {
        return (payload.bytes.clone(), report, "");
    }
    let got = report.verdict().as_str();
    if let Some(fresh) = payload.rerecorded(packs) {
        let fresh_report = counterlab::verify(&fresh, packs, options);
        if payload.as_expected(&fresh_report) {
            eprintln!(
                "WARNING verify/{}/{}: the recorded payload gets {got}, not its expected {} \
                 (stale: re-record with fixtures/generate/record-payloads.sh); timing a \
                 payload re-recorded in memory instead",
                payload.pack, payload.stem, payload.verdict
            );
            return (fresh, fresh_report, " (re-recorded)");
        }
    }
    eprintln!(
        "WARNING verify/{}/{}: {got}, expected {} (expected.toml), even re-recorded: this \
         time is probably not that of a full verification",
        payload.pack, payload.stem, payload.verdict
    );
    (payload.bytes.clone(), report, " (verdict-mismatch)")
}

fn bench_verify(c: &mut Criterion) {
    let packs = Packs::discover(packs_dir()).expect("bundled packs load");
    let payloads = recorded(&packs);
    let test_mode = criterion_test_mode();
    let defaults = if test_mode {
        VerifyOptions {
            permutations: TEST_MODE_PERMUTATIONS,
            ..Default::default()
        }
    } else {
        VerifyOptions::default()
    };
    let one = VerifyOptions {
        threads: 1,
        ..defaults.clone()
    };
    let two = VerifyOptions {
        threads: 2,
        ..defaults
    };

    let mut group = c.benchmark_group("verify");
    // One verification takes tens to hundreds of milliseconds: flat sampling (the same
    // number of iterations in every sample) keeps ten samples near the measurement time.
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for payload in &payloads {
        // Test mode runs each payload once, as recorded: no report to compare with.
        let (bytes, expected_hash, suffix) = if test_mode {
            (payload.bytes.clone(), None, "")
        } else {
            let (bytes, report, suffix) = prepare(payload, &packs, &one);
            let claim = report
                .claim()
                .map(|c| format!(", claim null: {} (K = {})", c.null_name(), c.permutations))
                .unwrap_or_default();
            eprintln!(
                "verify/{}/{}{suffix}: {}{claim}",
                payload.pack,
                payload.stem,
                report.verdict().as_str()
            );
            (bytes, Some(report.report_hash().to_owned()), suffix)
        };
        let mut runs = vec![(1, &one)];
        if (payload.pack.as_str(), payload.stem.as_str()) == TWO_THREAD_PAYLOAD {
            runs.push((2, &two));
        }
        for (threads, options) in runs {
            group.bench_with_input(
                BenchmarkId::new(
                    format!("{}/{}{suffix}", payload.pack, payload.stem),
                    format!("threads-{threads}"),
                ),
                &bytes,
                |b, bytes| {
                    b.iter(|| {
                        let report = counterlab::verify(black_box(bytes), &packs, options);
                        // The report is a function of (payload, packs, options but threads).
                        if let Some(expected) = &expected_hash {
                            assert_eq!(report.report_hash(), expected);
                        }
                        report
                    })
                },
            );
        }
    }
    group.finish();
}

criterion_group!(benches, bench_verify);
criterion_main!(benches);
