//! Calibration of the verifier (DESIGN §3 step 9, "Calibration"): on null packs, where
//! every claim of skill is false, the verifier must say SUPPORTS at most about α of the
//! time. Alongside, a naive verifier (row-level DeLong / normal / Wilson interval +
//! row-level label permutation p-value, i.e. rows treated as independent) is measured on
//! the same payloads, to show what the cluster-aware interval and the entity-level null
//! buy. Results and the commands that produced them: docs/CALIBRATION.md.
//!
//! ```text
//! cargo test --release --test lib calibration::false_claims -- --nocapture          # 20 seeds, K = 19
//! cargo test --release --test lib calibration::full -- --ignored --nocapture        # 200 seeds, K = 19
//! ```

#[path = "../fixtures/generate/null_pack.rs"]
mod null_pack;

use std::path::Path;

use counterlab::experiment::MetricName;
use counterlab::run::{self, ArmPredictions};
use counterlab::verify::evidence::{self, TestRows};
use counterlab::verify::Status;
use counterlab::{Experiment, Pack, Packs, RunOptions, Verdict, VerifyOptions};
use rand_chacha::rand_core::RngCore;
use serde_json::{json, Value};

use crate::common::TempDir;
use null_pack::{write_null_pack, NullPackSpec};

const ALPHA: f64 = 0.05;
const THREADS: usize = 2;

/// One claim to verify on every null pack.
struct Case {
    /// Short name for tables.
    name: &'static str,
    /// The claim, as written in an experiment.
    claim: Value,
    /// False on null data (calibration) or true (a positive control: SUPPORTS reachable).
    false_on_null: bool,
}

fn at_least(metric: &str, arm: &str, value: f64) -> Value {
    json!({ "kind": "metric_at_least", "metric": metric, "arm": arm, "value": value })
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "roc_auc(entity_grouped) >= 0.55",
            claim: at_least("roc_auc", "entity_grouped", 0.55),
            false_on_null: true,
        },
        Case {
            // The boundary case: the null AUC is 0.5 exactly, so this is the hardest false
            // claim (any upward fluctuation "supports" it under a too-narrow interval).
            name: "roc_auc(entity_grouped) >= 0.50",
            claim: at_least("roc_auc", "entity_grouped", 0.5),
            false_on_null: true,
        },
        Case {
            name: "accuracy_lift(entity_grouped) >= 0",
            claim: at_least("accuracy_lift", "entity_grouped", 0.0),
            false_on_null: true,
        },
        Case {
            // Memorisation: test rows have near-copies in training, so this AUC is high,
            // but it is not label signal (no skill on a new customer).
            name: "roc_auc(random_rows) >= 0.55",
            claim: at_least("roc_auc", "random_rows", 0.55),
            false_on_null: true,
        },
        Case {
            name: "accuracy_lift(random_rows) >= 0",
            claim: at_least("accuracy_lift", "random_rows", 0.0),
            false_on_null: true,
        },
        Case {
            // True on null data: the leakage gap is real (it is what the entity-leakage pack
            // teaches). Shows that SUPPORTS is reachable on these packs at all.
            name: "gap roc_auc(random_rows - entity_grouped) >= 0 [true]",
            claim: json!({ "kind": "metric_gap", "metric": "roc_auc", "higher": "random_rows", "lower": "entity_grouped", "at_least": 0.0 }),
            false_on_null: false,
        },
    ]
}

fn experiment(pack: &str, seed: u64, claim: &Value) -> Experiment {
    let value = json!({
        "format": "counterlab.experiment/1",
        "pack": pack,
        "seed": seed,
        "model": { "kind": "logistic", "c": 1.0 },
        "arms": [
            { "name": "random_rows", "split": { "kind": "random_rows", "test_fraction": 0.25 } },
            { "name": "entity_grouped", "split": { "kind": "entity_grouped", "test_fraction": 0.25 } }
        ],
        "metrics": ["roc_auc", "accuracy", "balanced_accuracy", "majority_baseline_accuracy", "accuracy_lift"],
        "claim": claim,
    });
    Experiment::from_json(&serde_json::to_vec(&value).unwrap()).unwrap()
}

/// What one verification (one seed, one claim) said, with the naive verifier alongside.
#[derive(Debug, Clone, Default)]
struct Outcome {
    verifier_supports: bool,
    verifier_rejects: bool,
    /// The verifier's interval lies entirely on the claimed side.
    verifier_ci_claimed: bool,
    /// The verifier's p-value is ≤ α (true when the claim needs none).
    verifier_p_ok: bool,
    /// Row-level interval on the claimed side.
    naive_ci_claimed: bool,
    /// Row-level permutation p ≤ α.
    naive_p_ok: bool,
    /// Naive SUPPORTS: row interval on the claimed side and row-level p ≤ α.
    naive_supports: bool,
    /// Which interval and null the verifier used (for the table).
    method: String,
}

/// Per claim, counts over seeds.
#[derive(Debug, Clone, Default)]
struct Tally {
    seeds: usize,
    verifier_supports: usize,
    verifier_rejects: usize,
    verifier_ci_claimed: usize,
    verifier_p_ok: usize,
    naive_ci_claimed: usize,
    naive_p_ok: usize,
    naive_supports: usize,
    methods: std::collections::BTreeSet<String>,
}

impl Tally {
    fn add(&mut self, o: &Outcome) {
        self.seeds += 1;
        self.verifier_supports += usize::from(o.verifier_supports);
        self.verifier_rejects += usize::from(o.verifier_rejects);
        self.verifier_ci_claimed += usize::from(o.verifier_ci_claimed);
        self.verifier_p_ok += usize::from(o.verifier_p_ok);
        self.naive_ci_claimed += usize::from(o.naive_ci_claimed);
        self.naive_p_ok += usize::from(o.naive_p_ok);
        self.naive_supports += usize::from(o.naive_supports);
        self.methods.insert(o.method.clone());
    }
}

fn metric_of(name: &str) -> MetricName {
    serde_json::from_value(json!(name)).unwrap()
}

/// The claim's statistic from per-arm metrics (`None` when undefined).
fn statistic(claim: &Value, metrics: &ArmMetrics) -> Option<f64> {
    let metric = claim["metric"].as_str().unwrap();
    let get = |arm: &Value| metrics.get(arm.as_str().unwrap())?.get(metric).copied();
    match claim["kind"].as_str().unwrap() {
        "metric_gap" => Some(get(&claim["higher"])? - get(&claim["lower"])?),
        _ => get(&claim["arm"]),
    }
}

fn threshold(claim: &Value) -> f64 {
    claim
        .get("value")
        .or_else(|| claim.get("at_least"))
        .unwrap()
        .as_f64()
        .unwrap()
}

/// The naive row-level interval of one arm's metric: the verifier's own estimator told
/// that every test row is its own entity (DeLong for the AUC, Wilson for accuracy, normal
/// for the lift).
fn row_level_estimate(metric: MetricName, p: &ArmPredictions) -> Option<evidence::Estimate> {
    let singletons: Vec<u32> = (0..p.test_labels.len() as u32).collect();
    let e = evidence::estimate(
        metric,
        &TestRows {
            labels: &p.test_labels,
            scores: &p.test_scores,
            entities: &singletons,
            train_labels: &p.train_labels,
        },
    )
    .ok()?;
    if metric == MetricName::RocAuc {
        // The same numbers as the kernel's DeLong (the brief's "row-level DeLong").
        let d = counterlab::metrics::delong(&p.test_labels, &p.test_scores).unwrap();
        assert_eq!((e.value, e.ci), (d.auc, d.ci));
    }
    Some(e)
}

type ArmMetrics = std::collections::BTreeMap<String, std::collections::BTreeMap<String, f64>>;

fn arm_metrics(pack: &Pack, table: &counterlab::pack::Table, e: &Experiment) -> ArmMetrics {
    let mut out = ArmMetrics::new();
    for (i, arm) in e.arms.iter().enumerate() {
        let p = run::arm_predictions(pack, table, e, i).unwrap();
        let metrics =
            run::compute_metrics(&e.metrics, &p.train_labels, &p.test_labels, &p.test_scores);
        out.insert(
            arm.name.clone(),
            metrics
                .into_iter()
                .filter_map(|(k, v)| v.value().map(|v| (k, v)))
                .collect(),
        );
    }
    out
}

/// Verifies every case on the null pack of `seed`; the naive verifier alongside.
fn measure_seed(root: &Path, seed: u64, permutations: usize, cases: &[Case]) -> Vec<Outcome> {
    let id = format!("null-{seed:04}");
    let pack =
        Pack::open(write_null_pack(root, &id, seed, &NullPackSpec::CALIBRATION).unwrap()).unwrap();
    assert!(pack.table().labels_constant_within_entities());
    let mut packs = Packs::default();
    packs.insert(pack.clone()).unwrap();
    let options = VerifyOptions {
        permutations,
        row_order_shuffles: 1,
        threads: THREADS,
        seed,
        alpha: ALPHA,
        ..VerifyOptions::default()
    };

    // The naive row-level null: K row permutations of the labels (the same for every
    // claim of this seed), each arm's metrics on the permuted table.
    let base = experiment(&id, seed, &cases[0].claim);
    let permutation_seeds: Vec<u64> = (0..permutations)
        .map(|k| counterlab::rng::stream(seed, &format!("calibration/naive/{k}")).next_u64())
        .collect();
    let row_null: Vec<ArmMetrics> = run::parallel_map(&permutation_seeds, THREADS, |&s| {
        let permuted = pack.table().permute_labels_by_row(s);
        assert_ne!(
            permuted.labels(),
            pack.table().labels(),
            "a vacuous permutation"
        );
        arm_metrics(&pack, &permuted, &base)
    });
    let observed = arm_metrics(&pack, pack.table(), &base);
    let predictions: Vec<ArmPredictions> = (0..base.arms.len())
        .map(|i| run::arm_predictions(&pack, pack.table(), &base, i).unwrap())
        .collect();
    let arm_index = |name: &str| base.arms.iter().position(|a| a.name == name).unwrap();

    cases
        .iter()
        .map(|case| {
            let e = experiment(&id, seed, &case.claim);
            let payload =
                counterlab::run_with(&pack, &e, &RunOptions { threads: THREADS }).unwrap();
            let report = counterlab::verify(
                payload.to_json_pretty().unwrap().as_bytes(),
                &packs,
                &options,
            );
            // Every check but the claim's must hold: an INCONCLUSIVE must come from the
            // evidence, or SUPPORTS would be unreachable and the calibration vacuous.
            for check in report.checks() {
                if check.id != "claim.evidence" {
                    assert!(
                        matches!(check.status, Status::Pass | Status::Skipped),
                        "seed {seed}, {}: {} is {:?}: {:?}",
                        case.name,
                        check.id,
                        check.status,
                        check.reason
                    );
                }
            }
            let claim = report.claim().expect("a claim report");
            let t = threshold(&case.claim);
            let [lo, _] = claim.ci.unwrap_or([f64::NEG_INFINITY, f64::INFINITY]);

            // Naive: row-level interval (gaps: variances add) and row-level p.
            let metric = metric_of(case.claim["metric"].as_str().unwrap());
            let estimate = |arm: &str| row_level_estimate(metric, &predictions[arm_index(arm)]);
            let naive = match case.claim["kind"].as_str().unwrap() {
                "metric_gap" => estimate(case.claim["higher"].as_str().unwrap())
                    .zip(estimate(case.claim["lower"].as_str().unwrap()))
                    .map(|(h, l)| evidence::gap(&h, &l)),
                _ => estimate(case.claim["arm"].as_str().unwrap()),
            };
            let naive_ci_claimed = naive.is_some_and(|e| e.ci.0 > t);
            let naive_p_ok = match statistic(&case.claim, &observed) {
                Some(obs) => {
                    let stats: Vec<f64> = row_null
                        .iter()
                        .filter_map(|m| statistic(&case.claim, m))
                        .collect();
                    let b = stats.iter().filter(|&&s| s >= obs).count();
                    stats.len() >= permutations.min(19)
                        && (b as f64 + 1.0) / (stats.len() as f64 + 1.0) <= ALPHA
                }
                None => false,
            };
            Outcome {
                verifier_supports: matches!(report.verdict(), Verdict::Supports(_)),
                verifier_rejects: matches!(report.verdict(), Verdict::Rejected { .. }),
                verifier_ci_claimed: claim.ci.is_some() && lo > t,
                verifier_p_ok: claim.p_value.is_none_or(|p| p <= ALPHA),
                naive_ci_claimed,
                naive_p_ok,
                naive_supports: naive_ci_claimed && naive_p_ok,
                method: format!("{} + {}", claim.interval, claim.null),
            }
        })
        .collect()
}

/// Runs `seeds` and returns one tally per case; prints the table docs/CALIBRATION.md shows.
fn measure(seeds: std::ops::Range<u64>, permutations: usize) -> Vec<Tally> {
    let root = TempDir::new("calibration");
    let cases = cases();
    let mut tallies = vec![Tally::default(); cases.len()];
    let start = std::time::Instant::now();
    for seed in seeds.clone() {
        for (tally, outcome) in
            tallies
                .iter_mut()
                .zip(measure_seed(root.path(), seed, permutations, &cases))
        {
            tally.add(&outcome);
        }
    }
    println!(
        "calibration: seeds {}..{} ({} packs of {:?}), K = {permutations}, alpha = {ALPHA}, {:.1} s",
        seeds.start,
        seeds.end,
        seeds.end - seeds.start,
        NullPackSpec::CALIBRATION,
        start.elapsed().as_secs_f64()
    );
    println!("| claim | true on null? | verifier SUPPORTS | naive SUPPORTS | verifier CI on claimed side | verifier p ≤ α | row-level CI on claimed side | row-level p ≤ α | verifier REJECTED | verifier interval + null |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for (case, t) in cases.iter().zip(&tallies) {
        let n = t.seeds;
        println!(
            "| `{}` | {} | {}/{n} | {}/{n} | {}/{n} | {}/{n} | {}/{n} | {}/{n} | {}/{n} | {} |",
            case.name,
            if case.false_on_null { "false" } else { "true" },
            t.verifier_supports,
            t.naive_supports,
            t.verifier_ci_claimed,
            t.verifier_p_ok,
            t.naive_ci_claimed,
            t.naive_p_ok,
            t.verifier_rejects,
            t.methods.iter().cloned().collect::<Vec<_>>().join("; ")
        );
    }
    tallies
}

/// 20 null packs (data seed = experiment seed = mutation seed = 0..20), K = 19 (the fewest
/// permutations that can reach p ≤ 0.05).
///
/// The bound: if the verifier is calibrated, each seed gives a false SUPPORTS with
/// probability at most α = 0.05, independently across seeds (each seed is a fresh pack,
/// split and permutation set), so the count is at most Binomial(20, 0.05) and
/// P(X ≥ 4) ≈ 1.6%: "at most 3 of 20" fails a calibrated verifier rarely, and a verifier
/// at the designers' measured row-level rate (6 of 30 = 20%) with P(X ≤ 3) ≈ 41%... which
/// is why the naive verifier is measured directly below instead of only inferred. The
/// seeds are fixed, so the test is deterministic: it passes or fails the same way on every
/// machine.
#[test]
fn false_claims_are_rarely_supported_on_null_packs() {
    let tallies = measure(0..20, 19);
    let cases = cases();
    for (case, t) in cases.iter().zip(&tallies) {
        if case.false_on_null {
            assert!(
                t.verifier_supports <= 3,
                "{}: false SUPPORTS in {} of {} seeds",
                case.name,
                t.verifier_supports,
                t.seeds
            );
        }
    }
    // The measurement is not vacuous: the naive verifier is fooled by memorisation on
    // random-row splits (its row-level null destroys what the model memorised) …
    let naive_random_rows = tallies[3].naive_supports;
    assert!(
        naive_random_rows >= 15,
        "naive SUPPORTS of the memorisation claim: {naive_random_rows}/20"
    );
    // … and SUPPORTS is reachable on these packs (the true leakage-gap claim).
    assert!(
        tallies[5].verifier_supports >= 10,
        "true gap claim supported in {}/20",
        tallies[5].verifier_supports
    );
}

/// The full measurement behind docs/CALIBRATION.md (slow: run it in release mode).
#[test]
#[ignore = "slow: the full calibration measurement (docs/CALIBRATION.md)"]
fn full_calibration_measurement() {
    let permutations = std::env::var("COUNTERLAB_CALIBRATION_K").map_or(19, |k| k.parse().unwrap());
    let seeds = std::env::var("COUNTERLAB_CALIBRATION_SEEDS").map_or(200, |k| k.parse().unwrap());
    measure(0..seeds, permutations);
}
