//! The verifier under attack (the hardening issue): each class of defect found by trying
//! counterlab as an attacker would, kept fixed. Hostile files are made here, in a temp
//! dir; commands run the real binary, the resource cases under `ulimit -v` of 2 GiB and a
//! time limit (coreutils `timeout`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use proptest::prelude::*;
use serde_json::{json, Value};

use counterlab::verify::{Status, VerifyOptions};
use counterlab::{Experiment, Pack, Packs, RunOptions, Verdict};

use crate::common::{counterlab, synthetic_csv, write_pack, TempDir};

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn bundled_payload(pack: &str, name: &str) -> Value {
    let path = root().join(format!("fixtures/packs/{pack}/payloads/{name}.json"));
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn fast() -> VerifyOptions {
    crate::common::fast_options()
}

/// The binary under `ulimit -v` 2 GiB, from the crate root, with the bytes it read: its
/// output, and the `rchar` of the shell that ran it (Linux `/proc/<pid>/io`: every byte
/// returned by `read` and its kin, the reaped child's included), read after the child
/// exited. The bound a test asserts is on those bytes (and on the memory `ulimit` allows),
/// never on seconds. `timeout 600` is only a hang guard, so that a verifier that never
/// returns fails the test instead of stalling the suite; no test here asserts a time.
fn counterlab_limited(args: &[&str]) -> (Output, u64) {
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let quoted: Vec<String> = args
        .iter()
        .map(|a| format!("'{}'", a.replace('\'', "'\\''")))
        .collect();
    let io = std::env::temp_dir().join(format!(
        "counterlab-io-{}-{}",
        std::process::id(),
        CALLS.fetch_add(1, std::sync::atomic::Ordering::SeqCst)
    ));
    let script = format!(
        "ulimit -v 2097152 && timeout 600 '{}' {}; status=$?; cat /proc/$$/io > '{}'; exit $status",
        env!("CARGO_BIN_EXE_counterlab"),
        quoted.join(" "),
        io.display()
    );
    let output = Command::new("sh")
        .arg("-c")
        .arg(script)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let accounting = std::fs::read_to_string(&io).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (these tests need Linux /proc/<pid>/io)",
            io.display()
        )
    });
    std::fs::remove_file(&io).unwrap();
    let read = accounting
        .lines()
        .find_map(|l| l.strip_prefix("rchar:"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no rchar in {accounting:?}"));
    (output, read)
}

fn verdict_of(bytes: &[u8], packs: &Packs, options: &VerifyOptions) -> counterlab::Report {
    counterlab::verify(bytes, packs, options)
}

// ---------------------------------------------------------------------------------------
// 1. A fit that did not fit is not evidence.

/// The reproduction: `"c": 2e305` made the solver stop after 0 iterations with all-zero
/// weights, `converged: true`, and the false claim "ROC AUC ≤ 0.51" SUPPORTS. C outside
/// [1e-6, 1e6] is now refused by the schema with its JSON path.
#[test]
fn a_c_outside_its_range_is_refused_with_its_path() {
    let packs = crate::common::bundled_packs();
    let base = bundled_payload("entity-leakage", "random-inflates-auc");
    for c in [2e305, 1e306, 1e7, 0.0, 1e-7, -1.0] {
        let mut payload = base.clone();
        payload["experiment"]["model"]["c"] = json!(c);
        payload["experiment"]["claim"] = json!({"kind": "metric_at_most", "metric": "roc_auc", "arm": "random_rows", "value": 0.51});
        payload["claim"] = payload["experiment"]["claim"].clone();
        let report = verdict_of(payload.to_string().as_bytes(), &packs, &fast());
        let check = report.check("payload.schema").unwrap();
        assert_eq!(check.status, Status::Fail, "c = {c}");
        assert_eq!(
            check.counterexamples[0].witness["path"], "$.experiment.model.c",
            "c = {c}"
        );
        let experiment = payload["experiment"].to_string();
        let e = Experiment::from_json(experiment.as_bytes()).unwrap_err();
        assert!(e.to_string().contains("$.model.c"), "c = {c}: {e}");
    }
}

/// A model whose features carry nothing gives every test row the same score: AUC 0.5
/// with a zero-width DeLong interval, facts about the solver rather than the data. Its
/// model-dependent metrics are undefined, so "ROC AUC ≤ 0.51" is INCONCLUSIVE, not
/// SUPPORTS; the majority baseline, which reads labels only, keeps its value.
#[test]
fn a_constant_predictor_is_no_evidence() {
    let root = TempDir::new("constant");
    let mut csv = String::from("entity,label,x1\n");
    for i in 0..80 {
        csv.push_str(&format!("E{i:02},{},3.5\n", u8::from(i % 3 == 0)));
    }
    write_pack(root.path(), "flat", &csv, &["x1"], None);
    let packs = Packs::discover(root.path()).unwrap();
    let experiment = Experiment::from_json(
        br#"{"format":"counterlab.experiment/1","pack":"flat","seed":1,"model":{"kind":"logistic","c":1.0},
        "arms":[{"name":"a","split":{"kind":"random_rows","test_fraction":0.25}}],
        "metrics":["roc_auc","accuracy","majority_baseline_accuracy"],
        "claim":{"kind":"metric_at_most","metric":"roc_auc","arm":"a","value":0.51}}"#,
    )
    .unwrap();
    let payload = counterlab::run(&packs, &experiment).unwrap();
    let arm = &payload.results["a"];
    assert!(
        arm.model
            .as_ref()
            .expect("a single split")
            .as_logistic()
            .expect("a logistic model")
            .converged
    );
    for metric in ["roc_auc", "accuracy"] {
        let value = &arm.metrics[metric];
        assert!(
            matches!(value, counterlab::metrics::MetricValue::Undefined { undefined } if undefined.contains("same score")),
            "{metric}: {value:?}"
        );
    }
    assert!(arm.metrics["majority_baseline_accuracy"].value().is_some());
    let report = verdict_of(
        payload.to_json_pretty().unwrap().as_bytes(),
        &packs,
        &fast(),
    );
    assert_eq!(
        report.verdict().as_str(),
        "INCONCLUSIVE",
        "{}",
        report.to_json()
    );
    assert!(report.to_json()["reasons"]
        .to_string()
        .contains("same score"));
}

/// A fit stopped by its iteration limit is reported as such and scores nothing.
#[test]
fn a_fit_that_stops_early_has_a_stop_reason_and_no_metrics() {
    use counterlab::model::{FitStop, LogisticRegression, Matrix};
    let x = Matrix::from_row_major(6, 1, vec![0.1, 0.4, 0.35, 0.8, 0.9, 0.2]);
    let y = [false, false, true, true, true, false];
    let mut model = LogisticRegression::new(1.0);
    model.max_iter = 0;
    let fitted = model.fit(&x, &y).unwrap();
    assert_eq!(fitted.stop, FitStop::IterationLimit);
    assert!(!fitted.converged);
    let scores = fitted.predict_proba(&x);
    let failure =
        counterlab::run::fit_failure(&counterlab::model_family::Fitted::Logistic(fitted), &scores)
            .unwrap();
    assert!(failure.contains("iteration limit"), "{failure}");
    let metrics = counterlab::run::compute_metrics(
        &[
            counterlab::experiment::MetricName::RocAuc,
            counterlab::experiment::MetricName::MajorityBaselineAccuracy,
        ],
        &y,
        &y,
        &scores,
        Some(&failure),
    );
    assert!(metrics["roc_auc"].value().is_none());
    assert!(metrics["majority_baseline_accuracy"].value().is_some());
    let fitted = LogisticRegression::new(1.0).fit(&x, &y).unwrap();
    assert_eq!(fitted.stop, FitStop::Converged);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, failure_persistence: None, ..ProptestConfig::default() })]

    /// For any C the schema accepts, a verification either recomputes a converged fit for
    /// every arm it supports a claim on, or says INCONCLUSIVE; a fit that did not
    /// converge never has a defined model-dependent metric.
    #[test]
    fn any_accepted_c_verifies_a_converged_fit_or_is_inconclusive(log_c in -6.0f64..=6.0, seed in 0u64..4) {
        let c = libm::pow(10.0, log_c);
        let root = TempDir::new("c-range");
        write_pack(root.path(), "synth", &synthetic_csv(seed, 24, 3), &["x1", "x2", "x3"], Some("t"));
        let packs = Packs::discover(root.path()).unwrap();
        let text = format!(
            r#"{{"format":"counterlab.experiment/1","pack":"synth","seed":{seed},"model":{{"kind":"logistic","c":{c:e}}},
            "arms":[{{"name":"rows","split":{{"kind":"random_rows","test_fraction":0.25}}}},
                    {{"name":"grouped","split":{{"kind":"entity_grouped","test_fraction":0.25}}}}],
            "metrics":["roc_auc","accuracy"],
            "claim":{{"kind":"metric_at_most","metric":"roc_auc","arm":"grouped","value":0.51}}}}"#
        );
        let experiment = Experiment::from_json(text.as_bytes()).unwrap();
        let pack = packs.get("synth").unwrap();
        let payload = counterlab::run_with(pack, &experiment, &RunOptions { threads: 1 }).unwrap();
        for (arm, result) in &payload.results {
            if !result.model.as_ref().expect("a single split").as_logistic().expect("a logistic model").converged {
                prop_assert!(result.metrics["roc_auc"].value().is_none(), "{arm} at C = {c}");
            }
        }
        let report = verdict_of(payload.to_json_pretty().unwrap().as_bytes(), &packs, &fast());
        // An honest payload: every recorded number is the kernel's; only the evidence can
        // contradict the claim.
        prop_assert_eq!(report.check("recompute.equal").unwrap().status, Status::Pass, "C = {}", c);
        let decided = matches!(report.verdict(), Verdict::Supports(_) | Verdict::Rejected { .. });
        if decided {
            prop_assert!(payload.results["grouped"].model.as_ref().expect("a single split").as_logistic().expect("a logistic model").converged, "{} at C = {}", report.verdict().as_str(), c);
        } else {
            prop_assert_eq!(report.verdict().as_str(), "INCONCLUSIVE");
        }
        if !payload.results["grouped"].model.as_ref().expect("a single split").as_logistic().expect("a logistic model").converged {
            prop_assert_eq!(report.verdict().as_str(), "INCONCLUSIVE", "C = {}", c);
        }
    }
}

// ---------------------------------------------------------------------------------------
// 2. No panic on any argument.

/// Every subcommand with extreme values of every numeric option: an exit code in 0–3,
/// never 101 (a panic), and a usage error that names the option when it is out of range.
#[test]
fn extreme_numeric_options_never_panic() {
    let dir = TempDir::new("extreme");
    let predictions = dir.path().join("p.csv");
    std::fs::write(&predictions, "y,s\n0,0.1\n0,0.4\n1,0.35\n1,0.8\n").unwrap();
    let predictions = predictions.to_str().unwrap().to_owned();
    let payload = "fixtures/packs/entity-leakage/payloads/random-inflates-auc.json";
    let experiment = "fixtures/packs/entity-leakage/experiments/random-inflates-auc.json";
    let huge = u64::MAX.to_string();
    let big = (u64::MAX as u128 + 1).to_string();
    let mut cases: Vec<Vec<String>> = Vec::new();
    let s = |v: &[&str]| v.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    for k in [
        "0",
        "1",
        "100000",
        "100001",
        "9223372036854775807",
        &huge,
        &big,
        "-1",
        "x",
    ] {
        cases.push(s(&["verify", payload, "--permutations", k]));
    }
    for alpha in [
        "0",
        "1e-300",
        "0.1",
        "0.10000001",
        "0.7",
        "1",
        "NaN",
        "inf",
        "-0.05",
    ] {
        cases.push(s(&[
            "verify",
            payload,
            "--alpha",
            alpha,
            "--permutations",
            "0",
        ]));
    }
    for seed in ["0", huge.as_str(), big.as_str(), "-1"] {
        cases.push(s(&["verify", payload, "--seed", seed, "--max-work", "1"]));
    }
    for bytes in ["0", "1", "16777216", "16777217", huge.as_str()] {
        cases.push(s(&["verify", payload, "--max-payload-bytes", bytes]));
    }
    for work in ["0", huge.as_str(), big.as_str()] {
        cases.push(s(&[
            "verify",
            payload,
            "--max-work",
            work,
            "--permutations",
            "0",
        ]));
    }
    for threads in ["0", "1", "1000", huge.as_str(), big.as_str()] {
        cases.push(s(&[
            "verify",
            payload,
            "--threads",
            threads,
            "--max-work",
            "1",
        ]));
        cases.push(s(&["run", experiment, "--threads", threads]));
        cases.push(s(&[
            "boundary",
            "class-imbalance",
            "--threads",
            threads,
            "--json",
        ]));
    }
    let metrics = |option: &str, value: &str| {
        s(&[
            "metrics",
            &predictions,
            "--label",
            "y",
            "--score",
            "s",
            option,
            value,
        ])
    };
    for threshold in ["0", "-1e308", "1e308", "NaN", "inf", "x"] {
        cases.push(metrics("--threshold", threshold));
    }
    for bytes in ["0", "1", "4294967295", "4294967296", huge.as_str()] {
        cases.push(metrics("--max-bytes", bytes));
    }
    for case in &cases {
        let args: Vec<&str> = case.iter().map(String::as_str).collect();
        let o = counterlab(&args);
        let code = o.status.code();
        assert!(
            matches!(code, Some(0..=3)),
            "{args:?}: exit {code:?}\n{}",
            stderr(&o)
        );
        assert!(!stderr(&o).contains("panicked"), "{args:?}: {}", stderr(&o));
    }
    // Out of range is a usage error naming the option.
    for (args, option) in [
        (
            s(&["verify", payload, "--permutations", "100001"]),
            "--permutations",
        ),
        (s(&["verify", payload, "--alpha", "0.7"]), "--alpha"),
        (
            s(&["verify", payload, "--max-payload-bytes", "0"]),
            "--max-payload-bytes",
        ),
        (s(&["verify", payload, "--threads", "0"]), "--threads"),
        (metrics("--max-bytes", "0"), "--max-bytes"),
    ] {
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = counterlab(&refs);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains(option), "{args:?}: {}", stderr(&o));
    }
}

/// More threads than can be spawned under a memory limit (each thread reserves its
/// stack): the verification runs the refused threads' work on the caller and gives the
/// same report as one thread.
#[test]
fn threads_that_cannot_be_spawned_degrade_to_the_same_report() {
    let payload = "fixtures/packs/entity-leakage/payloads/random-inflates-auc.json";
    let one = counterlab(&[
        "verify",
        payload,
        "--json",
        "--permutations",
        "19",
        "--threads",
        "1",
    ]);
    let script = format!(
        // One malloc arena: glibc otherwise reserves 64 MiB of address space per thread
        // that allocates, and which allocation then hits the limit depends on timing.
        "ulimit -v 120000 && MALLOC_ARENA_MAX=1 exec '{}' verify {payload} --json --permutations 19 --threads 64",
        env!("CARGO_BIN_EXE_counterlab")
    );
    let many = Command::new("sh")
        .arg("-c")
        .arg(script)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(many.status.code(), Some(0), "{}", stderr(&many));
    let hash = |o: &Output| -> Value {
        serde_json::from_slice::<Value>(&o.stdout).unwrap()["report_hash"].clone()
    };
    assert_eq!(hash(&one), hash(&many));
}

// ---------------------------------------------------------------------------------------
// 3. Bounded resources.

/// Writes `<dir>/<id>/pack.toml` for a fixture already written as `data.csv` there, with
/// its real blake3 (features `x`, entity `e`, label `y`).
fn pack_around(dir: &Path, id: &str, blake3: &str) {
    let toml = format!(
        "id = \"{id}\"\ntitle = \"t\"\nconcept = \"c\"\n[data]\nfile = \"data.csv\"\nblake3 = \"{blake3}\"\nentity = \"e\"\nlabel = \"y\"\npositive = \"1\"\nfeatures = [\"x\"]\n"
    );
    std::fs::write(dir.join(id).join("pack.toml"), toml).unwrap();
}

fn write_fixture(dir: &Path, id: &str, bytes: &[u8]) {
    std::fs::create_dir_all(dir.join(id)).unwrap();
    std::fs::write(dir.join(id).join("data.csv"), bytes).unwrap();
    pack_around(dir, id, &blake3::hash(bytes).to_hex());
}

/// A payload naming pack `id` (the bundled entity-leakage payload, re-targeted).
fn payload_for(dir: &Path, id: &str) -> String {
    let mut payload = bundled_payload("entity-leakage", "random-inflates-auc");
    payload["pack"]["id"] = json!(id);
    payload["experiment"]["pack"] = json!(id);
    let path = dir.join(format!("payload-{id}.json"));
    std::fs::write(&path, payload.to_string()).unwrap();
    path.to_str().unwrap().to_owned()
}

/// What the binary reads besides the input under test, at most: its libraries' headers,
/// a `pack.toml`, a payload of a few kilobytes (measured: 20 KB to refuse /dev/zero, 27 KB
/// to refuse a 200 MB fixture by its size).
const OTHER_READS: u64 = 256 << 10;

/// Every hostile input of the issue, under 2 GiB of address space, stops with
/// INCONCLUSIVE (a budget check) or a clear error, none panics, and none is read past its
/// budget: the bytes the process read are bounded by the budget (or the file, when
/// smaller) plus [`OTHER_READS`] — the quantity that made these inputs slow or fatal
/// (a 200 MB fixture, a 1 GiB payload, /dev/zero read to the end).
#[test]
fn hostile_inputs_stop_at_their_budgets_in_bounded_memory() {
    let dir = TempDir::new("hostile");
    let packs = dir.path().join("packs");
    std::fs::create_dir_all(&packs).unwrap();
    // A header of 10⁶ columns (8 MB), a fixture over the byte budget (a sparse 200 MB
    // file), more rows than the row budget (1.2·10⁶ short rows, 14 MB).
    let mut wide = String::from("e,y,x");
    for i in 0..1_000_000 {
        wide.push_str(&format!(",c{i}"));
    }
    wide.push_str("\na,1,0.5\n");
    write_fixture(&packs, "wide", wide.as_bytes());
    std::fs::create_dir_all(packs.join("big")).unwrap();
    let big = std::fs::File::create(packs.join("big/data.csv")).unwrap();
    big.set_len(200 << 20).unwrap();
    pack_around(&packs, "big", &"0".repeat(64));
    let mut many = String::from("e,y,x\n");
    for i in 0..1_200_000 {
        many.push_str(&format!("e{i},{},{}\n", i % 2, i % 7));
    }
    write_fixture(&packs, "many", many.as_bytes());
    let packs_arg = packs.to_str().unwrap().to_owned();
    let fixture_budget = counterlab::pack::LoadLimits::default().max_bytes;
    let payload_budget = VerifyOptions::default().max_payload_bytes as u64;
    for (id, reason) in [
        (
            "wide",
            "1,000,003 columns, over the 1,024-column budget: pass --max-columns 1000003",
        ),
        (
            "big",
            "209,715,200 bytes, over the 33,554,432-byte budget: pass --max-fixture-bytes 209715200",
        ),
        (
            "many",
            "1,200,000 rows, over the 1,000,000-row budget: pass --max-rows 1200000",
        ),
    ] {
        let payload = payload_for(dir.path(), id);
        let size = std::fs::metadata(packs.join(id).join("data.csv")).unwrap().len();
        let bound = size.min(fixture_budget + 1) + OTHER_READS;
        let (o, read) = counterlab_limited(&["verify", &payload, "--packs", &packs_arg]);
        assert_eq!(
            o.status.code(),
            Some(3),
            "{id}: {}{}",
            stdout(&o),
            stderr(&o)
        );
        assert!(
            stdout(&o).contains("budget.fixture") && stdout(&o).contains(reason),
            "{id}: {}",
            stdout(&o)
        );
        assert!(read <= bound, "{id}: {read} bytes read, more than {bound}");
        let experiment = dir.path().join(format!("e-{id}.json"));
        std::fs::write(
            &experiment,
            format!(r#"{{"format":"counterlab.experiment/1","pack":"{id}","seed":1,"model":{{"kind":"logistic","c":1.0}},"arms":[{{"name":"a","split":{{"kind":"random_rows","test_fraction":0.25}}}}],"metrics":["roc_auc"]}}"#),
        )
        .unwrap();
        let (o, read) =
            counterlab_limited(&["run", experiment.to_str().unwrap(), "--packs", &packs_arg]);
        assert_eq!(o.status.code(), Some(2), "{id}: {}", stderr(&o));
        assert!(read <= bound, "{id}: run read {read} bytes, more than {bound}");
        assert!(stderr(&o).contains(reason), "{id}: {}", stderr(&o));
    }
    // A 1 GiB payload (sparse): at most the budget + 1 bytes are read.
    let sparse = dir.path().join("huge.json");
    std::fs::File::create(&sparse)
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
    let (o, read) = counterlab_limited(&["verify", sparse.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("budget.payload_bytes"),
        "{}",
        stdout(&o)
    );
    let bound = payload_budget + 1 + OTHER_READS;
    assert!(
        read <= bound,
        "{read} bytes read of a 1 GiB payload, more than {bound}"
    );
    // Devices, FIFOs and folders are refused before anything is read, by every command
    // that reads a file.
    let fifo = dir.path().join("fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let fifo = fifo.to_str().unwrap().to_owned();
    let folder = dir.path().to_str().unwrap().to_owned();
    for target in ["/dev/zero", fifo.as_str(), folder.as_str()] {
        for args in [
            vec!["verify", target],
            vec!["run", target],
            vec!["hash", target],
            vec!["metrics", target, "--label", "y", "--score", "s"],
        ] {
            let (o, read) = counterlab_limited(&args);
            assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
            assert!(
                stderr(&o).contains("not a regular file"),
                "{args:?}: {}",
                stderr(&o)
            );
            assert!(read <= OTHER_READS, "{args:?}: {read} bytes read");
        }
    }
    let zero_fixture = packs.join("zero");
    std::fs::create_dir_all(&zero_fixture).unwrap();
    std::os::unix::fs::symlink("/dev/zero", zero_fixture.join("data.csv")).unwrap();
    pack_around(&packs, "zero", &"0".repeat(64));
    let payload = payload_for(dir.path(), "zero");
    let (o, read) = counterlab_limited(&["verify", &payload, "--packs", &packs_arg]);
    assert_eq!(o.status.code(), Some(3), "{}", stdout(&o));
    assert!(
        read <= OTHER_READS,
        "/dev/zero as a fixture: {read} bytes read"
    );
    assert!(stdout(&o).contains("not a regular file"), "{}", stdout(&o));
}

/// Within every budget but as heavy as the budgets allow: 4 arms × 32 ablations (the
/// identity and 31 distinct drop sets of one or two features) on the largest pack. Its
/// work (`verify::work_units`, the deterministic count the work budget bounds, which
/// `work_counter` checks against the fits made) is within the default budget and more
/// than half of it (8.0·10⁹ of 10¹⁰), and its peak memory within the documented bound; 16 arms × 32
/// ablations there are over the design-memory budget (INCONCLUSIVE, nothing fitted), and
/// 975 ablations (the issue's 3 GB case) are refused by the schema. Bounded in work units
/// and bytes, not seconds.
#[test]
fn the_heaviest_payloads_the_budgets_allow_stay_bounded() {
    let dir = TempDir::new("heavy");
    let base =
        std::fs::read(root().join("fixtures/packs/rare-defects/experiments/auc-above-chance.json"))
            .unwrap();
    let mut experiment: Value = serde_json::from_slice(&base).unwrap();
    let arms = |n: usize| -> Value {
        (0..n)
            .map(|i| json!({"name": format!("a{i}"), "split": {"kind": "random_rows", "test_fraction": 0.25 + 0.01 * i as f64}}))
            .collect()
    };
    // Distinct drop sets (a repeated one is refused): the identity, then each feature
    // alone, then each pair — every ablation but the first refits nearly the full design.
    let features: Vec<String> = crate::common::bundled_packs()
        .get("rare-defects")
        .unwrap()
        .manifest()
        .data
        .features
        .clone();
    let drop_sets = counterlab_test_support::rewrite::distinct_drop_sets(&features, 32);
    let ablations = |n: usize| -> Value {
        (0..n)
            .map(|i| match drop_sets.get(i) {
                Some(drop) => json!({"name": format!("ab{i}"), "drop": drop}),
                // Past the distinct sets (the schema's case: it refuses the count first).
                None => json!({"name": format!("ab{i}"), "drop": []}),
            })
            .collect()
    };
    experiment["claim"] =
        json!({"kind": "metric_at_least", "metric": "roc_auc", "arm": "a0", "value": 0.5});
    for (n_arms, n_ablations, verdict, check, status) in [
        (4, 32, "SUPPORTS", "budget.work", "pass"),
        (16, 32, "INCONCLUSIVE", "budget.work", "unverifiable"),
        (1, 975, "REJECTED", "payload.schema", "fail"),
    ] {
        experiment["arms"] = arms(n_arms);
        experiment["ablations"] = ablations(n_ablations);
        let payload = if n_ablations <= 32 {
            let e = Experiment::from_value(&experiment).unwrap();
            let packs = crate::common::bundled_packs();
            let pack = packs.get("rare-defects").unwrap();
            // The 16-arm payload is never recomputed by the verifier; its results only need
            // to exist, so a 1-arm run stands in for them.
            let mut small = e.clone();
            small.arms.truncate(4);
            let mut p = serde_json::to_value(
                counterlab::run_with(pack, &small, &RunOptions::default()).unwrap(),
            )
            .unwrap();
            p["experiment"] = experiment.clone();
            p
        } else {
            let mut p = bundled_payload("rare-defects", "auc-above-chance");
            p["experiment"] = experiment.clone();
            p
        };
        let path = dir
            .path()
            .join(format!("heavy-{n_arms}-{n_ablations}.json"));
        std::fs::write(&path, payload.to_string()).unwrap();
        let (o, _) = counterlab_limited(&["verify", path.to_str().unwrap(), "--json"]);
        let report: Value =
            serde_json::from_slice(&o.stdout).unwrap_or_else(|_| panic!("{}", stderr(&o)));
        let got = report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == check)
            .unwrap()["status"]
            .clone();
        assert_eq!(
            (report["verdict"].as_str().unwrap(), got.as_str().unwrap()),
            (verdict, status),
            "{n_arms} x {n_ablations}: {report}"
        );
        if n_ablations > 32 {
            continue;
        }
        let packs = crate::common::bundled_packs();
        let pack = packs.get("rare-defects").unwrap();
        let design = counterlab::budget::design_bytes(
            &Experiment::from_value(&experiment).unwrap(),
            pack.table(),
        );
        // The CLI's defaults (no flag), raised by nothing: rare-defects declares no
        // [verify] budget.
        let defaults = VerifyOptions::default();
        assert!(pack.manifest().verify.is_none());
        let (max_work, max_design) = (defaults.max_work.limit(), defaults.max_design_bytes.limit());
        let work = counterlab::verify::work_units(
            &Experiment::from_value(&experiment).unwrap(),
            pack.table(),
            &defaults,
        );
        if verdict == "SUPPORTS" {
            assert!(
                work <= max_work && design <= max_design,
                "{work} of {max_work} work units, {design} of {max_design} bytes"
            );
            assert!(work > max_work / 2, "as heavy as the budget allows: {work}");
        } else {
            assert!(design > max_design, "{design} bytes of designs");
        }
        if verdict == "SUPPORTS" {
            // The designs term of the memory bound at its largest.
            assert!(design > 400 << 20, "{design} bytes of designs");
            let (o, rss) = peak_rss(&["verify", path.to_str().unwrap(), "--threads", "2"]);
            assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
            let bound = memory_bound(
                payload.to_string().len() as u64,
                pack.fixture_bytes(),
                pack.table().n_rows() as u64,
                design,
                2,
            );
            assert!(rss <= bound, "{rss} > {bound}");
        }
    }
}

/// Runs the binary under GNU time (`/usr/bin/time`, Debian package `time`, which
/// `.ci/run` installs) and returns its output and peak resident memory in bytes.
fn peak_rss(args: &[&str]) -> (Output, u64) {
    let time = Path::new("/usr/bin/time");
    if !time.exists() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI needs /usr/bin/time (apt-get install time) to measure peak memory"
        );
        panic!("/usr/bin/time is missing: apt-get install time");
    }
    let dir = TempDir::new("rss");
    let report = dir.path().join("rss");
    let output = Command::new(time)
        .arg("-f")
        .arg("%M")
        .arg("-o")
        .arg(&report)
        .arg(env!("CARGO_BIN_EXE_counterlab"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let text = std::fs::read_to_string(&report).unwrap();
    let kib: u64 = text.lines().last().unwrap().trim().parse().unwrap();
    (output, kib * 1024)
}

/// The peak-memory bound of docs/VERDICTS.md ("Budgets"), in bytes: 64 MiB + 80 × payload
/// bytes + (1 + s) × (4.2 × fixture bytes + 64 × rows) + design bytes + t × 96 × rows,
/// with s = min(threads, row-order shuffles) table copies made side by side and t =
/// min(threads, 64) fits in flight.
fn memory_bound(payload: u64, fixture: u64, rows: u64, design: u64, threads: u64) -> u64 {
    // The pack's table and one row-order copy of it at a time.
    let t = threads.min(64);
    (64 << 20) + 80 * payload + 2 * (fixture * 42 / 10 + 64 * rows) + design + t * 96 * rows
}

/// The documented bound holds on the worst cases for each of its terms: a payload of
/// nested arrays at the byte budget, a fixture at the byte budget made of empty text
/// cells (4 bytes of overhead each for 1 byte of file), a table of many short rows, and
/// the most prepared designs the budget allows.
#[test]
fn the_documented_memory_bound_holds_on_the_worst_cases() {
    let dir = TempDir::new("memory");
    let packs = dir.path().join("packs");
    std::fs::create_dir_all(&packs).unwrap();
    let packs_arg = packs.to_str().unwrap().to_owned();
    let threads = 3u64;
    let threads_arg = threads.to_string();

    // A payload of nested arrays, at the default 1 MiB.
    let mut nested = String::from(r#"{"format":"counterlab.payload/1","x":["#);
    while nested.len() < (1 << 20) - 16 {
        nested.push_str("[[[[]]]],");
    }
    nested.push_str("[]]}");
    let path = dir.path().join("nested.json");
    std::fs::write(&path, &nested).unwrap();
    let (o, rss) = peak_rss(&["verify", path.to_str().unwrap(), "--threads", &threads_arg]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let bound = memory_bound(nested.len() as u64, 0, 0, 0, threads);
    assert!(rss <= bound, "nested payload: {rss} > {bound}");

    // Fixtures: empty text cells up to the 32 MiB byte budget, and 200,000 short rows.
    let mut wide = String::from("e,y,x");
    for i in 0..1020 {
        wide.push_str(&format!(",c{i}"));
    }
    wide.push('\n');
    let mut i = 0;
    while wide.len() < (32 << 20) - 2048 {
        wide.push_str(&format!(
            "{},{},{}{}\n",
            i % 997,
            (i * 7) % 2,
            i % 10,
            ",".repeat(1020)
        ));
        i += 1;
    }
    let mut narrow = String::from("e,y,x\n");
    for i in 0..200_000 {
        narrow.push_str(&format!("{},{},{}\n", i % 50_000, (i * 7) % 2, i % 10));
    }
    for (id, csv) in [("wide", &wide), ("narrow", &narrow)] {
        write_fixture(&packs, id, csv.as_bytes());
        let experiment = json!({
            "format": "counterlab.experiment/1", "pack": id, "seed": 1,
            "model": {"kind": "logistic", "c": 1.0},
            "arms": [{"name": "r", "split": {"kind": "random_rows", "test_fraction": 0.25}},
                     {"name": "g", "split": {"kind": "entity_grouped", "test_fraction": 0.25}}],
            "ablations": [{"name": "identity", "drop": []}],
            "metrics": ["roc_auc"],
            "claim": {"kind": "metric_gap", "metric": "roc_auc", "higher": "r", "lower": "g", "at_least": 0.0}
        });
        let e = dir.path().join(format!("{id}.json"));
        std::fs::write(&e, experiment.to_string()).unwrap();
        let p = dir.path().join(format!("{id}-payload.json"));
        let o = counterlab(&[
            "run",
            e.to_str().unwrap(),
            "--packs",
            &packs_arg,
            "--out",
            p.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{id}: {}", stderr(&o));
        let pack = Pack::open(packs.join(id)).unwrap();
        let design = counterlab::budget::design_bytes(
            &Experiment::from_value(&experiment).unwrap(),
            pack.table(),
        );
        let (o, rss) = peak_rss(&[
            "verify",
            p.to_str().unwrap(),
            "--packs",
            &packs_arg,
            "--threads",
            &threads_arg,
            "--json",
        ]);
        let report: Value =
            serde_json::from_slice(&o.stdout).unwrap_or_else(|_| panic!("{id}: {}", stderr(&o)));
        let row_order = report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == "mutation.row_order")
            .unwrap();
        assert_eq!(
            row_order["status"], "pass",
            "{id}: the row-order copies were made: {report}"
        );
        let payload_bytes = std::fs::metadata(&p).unwrap().len();
        let bound = memory_bound(
            payload_bytes,
            csv.len() as u64,
            pack.table().n_rows() as u64,
            design,
            threads,
        );
        assert!(rss <= bound, "{id}: {rss} > {bound}");
    }
}

// ---------------------------------------------------------------------------------------
// 4. The parser accepts exactly the published schemas.

/// Every JSON path of a value, parents before children.
fn paths(value: &Value, at: String, out: &mut Vec<String>) {
    out.push(at.clone());
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                paths(v, format!("{at}.{k}"), out);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                paths(v, format!("{at}[{i}]"), out);
            }
        }
        _ => {}
    }
}

fn node_mut<'v>(value: &'v mut Value, path: &str) -> &'v mut Value {
    let mut current = value;
    let rest = path.strip_prefix('$').unwrap();
    let mut token = String::new();
    let mut tokens = Vec::new();
    for c in rest.chars() {
        match c {
            '.' | '[' => {
                if !token.is_empty() {
                    tokens.push(std::mem::take(&mut token));
                }
            }
            ']' => tokens.push(format!("[{}", std::mem::take(&mut token))),
            c => token.push(c),
        }
    }
    if !token.is_empty() {
        tokens.push(token);
    }
    for t in tokens {
        current = match t.strip_prefix('[') {
            Some(i) => &mut current[i.parse::<usize>().unwrap()],
            None => &mut current[t.as_str()],
        };
    }
    current
}

/// The other-typed stand-ins for a value: object ↔ array, number ↔ string ↔ bool ↔ null.
fn swaps(value: &Value) -> Vec<Value> {
    let all = [
        json!({}),
        json!([]),
        json!(1.5),
        json!(7),
        json!("s"),
        json!(true),
        Value::Null,
    ];
    let same = |a: &Value, b: &Value| {
        std::mem::discriminant(a) == std::mem::discriminant(b)
            && (a.is_i64() || a.is_u64()) == (b.is_i64() || b.is_u64())
    };
    let mut out: Vec<Value> = all.into_iter().filter(|v| !same(v, value)).collect();
    match value {
        Value::Object(map) => out.push(Value::Array(map.values().cloned().collect())),
        Value::Array(items) => out.push(Value::Object(
            items
                .iter()
                .enumerate()
                .map(|(i, v)| (i.to_string(), v.clone()))
                .collect(),
        )),
        _ => {}
    }
    out
}

/// Every bundled payload and map, every node replaced by every other JSON type: each
/// variant the published schema refuses is REJECTED at `payload.schema` (or, for a
/// kernel that is not two strings, right after), with the variant's JSON path (or the
/// tagged union around it, naming the path); no variant the schema accepts gets SUPPORTS
/// unless it is the original value. Every bundled payload itself validates.
#[test]
fn schema_invalid_variants_are_rejected_with_their_path() {
    let packs = crate::common::bundled_packs();
    let schema_of = |v: &Value| {
        if v["format"] == "counterlab.boundary/1" {
            counterlab::schema::Schema::boundary()
        } else {
            counterlab::schema::Schema::payload()
        }
    };
    let options = VerifyOptions {
        // Nothing is fitted: a variant that passes the schema stops at budget.work (a
        // given budget: no pack's own [verify] max_work raises it).
        max_work: counterlab::verify::Budget::given(0),
        ..fast()
    };
    let mut files: Vec<PathBuf> = Vec::new();
    for pack in std::fs::read_dir(root().join("fixtures/packs")).unwrap() {
        for entry in std::fs::read_dir(pack.unwrap().path().join("payloads")).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "json") {
                files.push(path);
            }
        }
    }
    files.sort();
    let mut refused = 0;
    let mut accepted: Vec<(String, Vec<u8>)> = Vec::new();
    let mut accepted_total = 0;
    for file in &files {
        let mut accepted_here: Vec<(String, Vec<u8>)> = Vec::new();
        let original: Value = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
        let schema = schema_of(&original);
        assert!(
            schema.violations(&original).is_empty(),
            "{}",
            file.display()
        );
        let mut all = Vec::new();
        paths(&original, "$".into(), &mut all);
        // A map holds hundreds of cells of one shape: its first cell and chart row stand
        // for the rest. Likewise a cross-validated arm's folds (folds × repeats of them)
        // and an overlap's list of entities: the first of each list stands for the rest
        // (every variant re-parses and re-checks the whole payload).
        all.retain(|p| {
            ["$.cells[", "$.chart.rows[", ".folds[", ".first_entities["]
                .iter()
                .all(|list| only_first_items(p, list))
        });
        // One working copy per file: each variant swaps one node in, and the node is put
        // back before the next (cloning a payload per variant was most of this test's time).
        let mut variant = original.clone();
        for path in all.iter().filter(|p| p.as_str() != "$") {
            for swap in swaps(node_mut(&mut variant, path)) {
                let node = std::mem::replace(node_mut(&mut variant, path), swap.clone());
                let bytes = serde_json::to_vec(&variant).unwrap();
                let violations = schema_of(&variant).violations(&variant);
                *node_mut(&mut variant, path) = node;
                let report = counterlab::verify(&bytes, &packs, &options);
                let what = format!("{}: {path} = {swap}", file.display());
                if violations.is_empty() {
                    if original["format"] == "counterlab.payload/1" {
                        accepted_here.push((what, bytes));
                    }
                    continue;
                }
                refused += 1;
                assert_eq!(
                    report.verdict().as_str(),
                    "REJECTED",
                    "{what}: {}",
                    report.to_json()
                );
                let check = report.check("payload.schema").unwrap();
                assert_eq!(check.status, Status::Fail, "{what}: {}", report.to_json());
                let witness = check.counterexamples[0].witness["path"]
                    .as_str()
                    .unwrap()
                    .to_owned();
                let reason = check.reason.clone().unwrap_or_default();
                assert!(
                    witness == *path
                        || (path.starts_with(&witness) && reason.contains(path.as_str())),
                    "{what}: witness {witness}: {reason}"
                );
            }
        }
        // Every accepted variant of a file is a full verification (each one a recompute
        // that fails, then the mutations), and a file has up to hundreds of them: a
        // tree payload's take ~2 s each. An even spread of ACCEPTED_PER_FILE of them,
        // first and last included, stands for the rest.
        accepted_total += accepted_here.len();
        accepted.extend(evenly_spread(accepted_here, ACCEPTED_PER_FILE));
    }
    assert!(refused > 1000, "{refused} schema-invalid variants checked");
    // The variants the schema accepts (another number where a number belongs, null where
    // null is allowed) are verified in full: none gets SUPPORTS. (A map's accepted
    // variants are the boundary cases of the mutation catalogue: a full map
    // recomputation each is too slow here.)
    assert!(!accepted.is_empty());
    let outcomes = counterlab::run::parallel_map(&accepted, 2, |(what, bytes)| {
        let report = counterlab::verify(
            bytes,
            &packs,
            &VerifyOptions {
                threads: 1,
                ..fast()
            },
        );
        (
            what.clone(),
            matches!(report.verdict(), Verdict::Supports(_)),
        )
    });
    for (what, supported) in outcomes {
        assert!(!supported, "{what}: SUPPORTS");
    }
    eprintln!(
        "{refused} refused variants, {} of {accepted_total} accepted ones verified",
        accepted.len()
    );
}

/// Whether every `list` index in the JSON path `path` (e.g. `.folds[` in
/// `$.results.a.folds[3].metrics`) is 0.
fn only_first_items(path: &str, list: &str) -> bool {
    path.match_indices(list)
        .all(|(at, _)| path[at + list.len()..].starts_with("0]"))
}

/// Accepted schema variants verified in full per payload file.
const ACCEPTED_PER_FILE: usize = 12;

/// At most `n` items of `items`, evenly spaced, the first and the last included.
fn evenly_spread<T>(items: Vec<T>, n: usize) -> Vec<T> {
    let len = items.len();
    if len <= n {
        return items;
    }
    let picked: std::collections::BTreeSet<usize> =
        (0..n).map(|i| i * (len - 1) / (n - 1)).collect();
    items
        .into_iter()
        .enumerate()
        .filter(|(i, _)| picked.contains(i))
        .map(|(_, item)| item)
        .collect()
}

// ---------------------------------------------------------------------------------------
// 5. Strict, named CSV errors.

#[test]
fn csv_structure_errors_name_file_and_row() {
    let dir = TempDir::new("strict-csv");
    let long = "v".repeat(10_000);
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "dup-label",
            b"e,y,x,y\na,1,0.5,0\nb,0,0.7,1\n".to_vec(),
            "row 0, column \"y\": the header names this column twice",
        ),
        (
            "ragged",
            b"e,y,x\na,1,0.5\nb,0,0.7,9\n".to_vec(),
            "row 2: 4 fields, but the header has 3",
        ),
        (
            "short",
            b"e,y,x\na,1,0.5\nb,0\n".to_vec(),
            "row 2: 2 fields, but the header has 3",
        ),
        (
            "utf8",
            b"e,y,x\na,1,0.5\nb,\xff0,0.7\n".to_vec(),
            "row 2, column \"y\": not UTF-8 text",
        ),
        (
            "cr-only",
            b"e,y,x\ra,1,0.5\rb,0,0.7\r".to_vec(),
            "row 0: the line ends with a bare carriage return",
        ),
        (
            "long-cell",
            format!("e,y,x\na,1,{long}\n").into_bytes(),
            "row 1, column \"x\": not a number: \"vvvv",
        ),
    ];
    for (id, bytes, expected) in cases {
        write_fixture(dir.path(), id, &bytes);
        let e = Pack::open(dir.path().join(id)).unwrap_err().to_string();
        assert!(e.contains("data.csv") && e.contains(expected), "{id}: {e}");
        // A bounded excerpt of the cell, plus at most one fixed how-to-fix line.
        let without_hint = e.split("\nhow to fix:").next().unwrap();
        assert!(
            without_hint.len() < 400 && e.len() < 800,
            "{id}: the message quotes a bounded excerpt: {} bytes",
            e.len()
        );
        // `metrics` reads predictions files by the same rules.
        let path = dir.path().join(id).join("data.csv");
        let o = counterlab(&[
            "metrics",
            path.to_str().unwrap(),
            "--label",
            "y",
            "--score",
            "x",
        ]);
        assert_eq!(o.status.code(), Some(1), "{id}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(expected.split(": ").next().unwrap()),
            "{id}: {}",
            stderr(&o)
        );
    }
    // CRLF files and a byte-order mark are fine.
    write_fixture(
        dir.path(),
        "crlf",
        b"\xef\xbb\xbfe,y,x\r\na,1,0.5\r\nb,0,0.7\r\n",
    );
    assert_eq!(
        Pack::open(dir.path().join("crlf"))
            .unwrap()
            .table()
            .n_rows(),
        2
    );
}

// ---------------------------------------------------------------------------------------
// 6. Terminal-safe output.

/// Names holding ANSI escapes, a C1 CSI, a bidi override and NUL, in an arm, an ablation
/// and a pack's title and concept: the human output shows them escaped (no ESC, CSI,
/// override or NUL reaches the terminal, and "SUPPORTS" is never painted over a verdict),
/// while the JSON report carries them exactly.
#[test]
fn hostile_names_are_escaped_on_the_terminal() {
    let evil = "x\u{1b}[2K\r\u{1b}[32mSUPPORTS\u{9b}31m\u{202e}\u{0}";
    let dir = TempDir::new("ansi");
    let packs = dir.path().join("packs");
    let csv = synthetic_csv(3, 24, 3);
    let pack_dir = write_pack(&packs, "synth", &csv, &["x1", "x2", "x3"], Some("t"));
    let toml = std::fs::read_to_string(pack_dir.join("pack.toml")).unwrap();
    std::fs::write(
        pack_dir.join("pack.toml"),
        toml.replace(
            "title = \"test pack\"",
            &format!("title = {}", toml::Value::String(evil.into())),
        )
        .replace(
            "concept = \"test\"",
            &format!("concept = {}", toml::Value::String(evil.into())),
        ),
    )
    .unwrap();
    let experiment = json!({
        "format": "counterlab.experiment/1", "pack": "synth", "seed": 1,
        "model": {"kind": "logistic", "c": 1.0},
        "arms": [{"name": format!("a{evil}"), "split": {"kind": "random_rows", "test_fraction": 0.25}},
                 {"name": "b", "split": {"kind": "entity_grouped", "test_fraction": 0.25}}],
        "ablations": [{"name": format!("drop{evil}"), "drop": ["x1"]}],
        "metrics": ["roc_auc"],
        "claim": {"kind": "metric_gap", "metric": "roc_auc", "higher": format!("a{evil}"), "lower": "b", "at_least": 5.0}
    });
    let e = dir.path().join("e.json");
    std::fs::write(&e, experiment.to_string()).unwrap();
    let p = dir.path().join("p.json");
    let packs_arg = packs.to_str().unwrap();
    let outputs = [
        counterlab(&[
            "run",
            e.to_str().unwrap(),
            "--packs",
            packs_arg,
            "--out",
            p.to_str().unwrap(),
        ]),
        counterlab(&[
            "verify",
            p.to_str().unwrap(),
            "--packs",
            packs_arg,
            "--permutations",
            "19",
        ]),
        counterlab(&["packs", "--packs", packs_arg]),
    ];
    for o in &outputs {
        for bytes in [&o.stdout, &o.stderr] {
            let text = String::from_utf8_lossy(bytes);
            assert!(
                !text.contains('\u{1b}')
                    && !text.contains('\u{9b}')
                    && !text.contains('\u{202e}')
                    && !text.contains('\0')
                    && !text.contains('\r'),
                "unescaped control characters in {text:?}"
            );
        }
    }
    let verify = stdout(&outputs[1]);
    // Both arms rank their test rows perfectly: the gap's interval has zero width, so the
    // claim is undefined (verifier/8) and the verdict INCONCLUSIVE; the names stay escaped.
    assert!(verify.starts_with("INCONCLUSIVE"), "{verify}");
    assert!(verify.contains("\\u{1b}[32mSUPPORTS"), "{verify}");
    let json = counterlab(&[
        "verify",
        p.to_str().unwrap(),
        "--packs",
        packs_arg,
        "--permutations",
        "19",
        "--json",
    ]);
    let report: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert!(report["claim"]["statistic"]
        .as_str()
        .unwrap()
        .contains(evil));
}

// ---------------------------------------------------------------------------------------
// 7. A report, always.

/// A broken sibling pack (an unreadable pack.toml, a fixture that does not parse) never
/// blocks the report on a payload for another pack; a malformed payload gets a REJECTED
/// report, exit 0 with --observe.
#[test]
fn a_broken_sibling_pack_never_blocks_a_report() {
    let dir = TempDir::new("siblings");
    let packs = dir.path().join("packs");
    let from = root().join("fixtures/packs/entity-leakage");
    std::fs::create_dir_all(packs.join("entity-leakage")).unwrap();
    for file in ["pack.toml", "customer_churn.csv"] {
        std::fs::copy(from.join(file), packs.join("entity-leakage").join(file)).unwrap();
    }
    std::fs::create_dir_all(packs.join("broken-toml")).unwrap();
    std::fs::write(packs.join("broken-toml/pack.toml"), "id = [\n").unwrap();
    write_fixture(&packs, "broken-csv", b"e,y,x\na,1,oops\n");
    let packs_arg = packs.to_str().unwrap();
    let payload = "fixtures/packs/entity-leakage/payloads/random-inflates-auc.json";
    let o = counterlab(&[
        "verify",
        payload,
        "--packs",
        packs_arg,
        "--permutations",
        "19",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    for malformed in [
        "{",
        "[]",
        "{\"format\": 1}",
        "{\"pack\": {\"id\": \"broken-csv\"}}",
    ] {
        let path = dir.path().join("bad.json");
        std::fs::write(&path, malformed).unwrap();
        let o = counterlab(&[
            "verify",
            path.to_str().unwrap(),
            "--packs",
            packs_arg,
            "--observe",
            "--json",
        ]);
        assert_eq!(o.status.code(), Some(0), "{malformed}: {}", stderr(&o));
        let report: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(report["verdict"], "REJECTED", "{malformed}");
        let o = counterlab(&["verify", path.to_str().unwrap(), "--packs", packs_arg]);
        assert_eq!(o.status.code(), Some(1), "{malformed}: {}", stderr(&o));
    }
    // A payload for the broken pack itself: INCONCLUSIVE, the pack's own error as reason.
    let payload = payload_for(dir.path(), "broken-csv");
    let o = counterlab(&["verify", &payload, "--packs", packs_arg]);
    assert_eq!(o.status.code(), Some(3), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("cannot be loaded") && stdout(&o).contains("oops"),
        "{}",
        stdout(&o)
    );
}

// ---------------------------------------------------------------------------------------
// 8. The manifest is pinned.

/// The same fixture bytes read with `positive = "0"`: a payload computed there carries
/// that manifest's hash, and against the real pack it is REJECTED with the two hashes as
/// witness (it verifies SUPPORTS only where it was made).
#[test]
fn a_payload_of_another_manifest_is_rejected() {
    let dir = TempDir::new("manifest");
    let packs = dir.path().join("packs");
    let from = root().join("fixtures/packs/entity-leakage");
    std::fs::create_dir_all(packs.join("entity-leakage")).unwrap();
    std::fs::copy(
        from.join("customer_churn.csv"),
        packs.join("entity-leakage/customer_churn.csv"),
    )
    .unwrap();
    let toml = std::fs::read_to_string(from.join("pack.toml")).unwrap();
    assert!(toml.contains("positive = \"1\""));
    std::fs::write(
        packs.join("entity-leakage/pack.toml"),
        toml.replace("positive = \"1\"", "positive = \"0\""),
    )
    .unwrap();
    let other = Packs::discover(&packs).unwrap();
    let experiment = Experiment::from_json(
        &std::fs::read(from.join("experiments/random-inflates-auc.json")).unwrap(),
    )
    .unwrap();
    let payload = counterlab::run(&other, &experiment)
        .unwrap()
        .to_json_pretty()
        .unwrap();
    let there = counterlab::verify(payload.as_bytes(), &other, &fast());
    assert_eq!(there.check("pack.manifest").unwrap().status, Status::Pass);
    let report = counterlab::verify(payload.as_bytes(), &crate::common::bundled_packs(), &fast());
    assert_eq!(report.verdict().as_str(), "REJECTED");
    let check = report.check("pack.manifest").unwrap();
    assert_eq!(check.status, Status::Fail);
    let ce = &check.counterexamples[0];
    assert_eq!(ce.witness["path"], "$.pack.manifest_hash");
    assert_eq!(
        ce.expected,
        json!(crate::common::bundled_packs()
            .get("entity-leakage")
            .unwrap()
            .manifest()
            .meaning_hash())
    );
    assert_ne!(ce.observed, ce.expected);
}

// ---------------------------------------------------------------------------------------
// 9. Policy holes.

/// Claims that hold for every value of their statistic are INCONCLUSIVE ("vacuous
/// claim"), however the evidence looks.
#[test]
fn vacuous_claims_are_inconclusive() {
    let packs = crate::common::bundled_packs();
    let base = bundled_payload("entity-leakage", "random-inflates-auc");
    for claim in [
        json!({"kind": "metric_at_most", "metric": "roc_auc", "arm": "random_rows", "value": 1.0}),
        json!({"kind": "metric_at_most", "metric": "roc_auc", "arm": "random_rows", "value": 7.0}),
        json!({"kind": "metric_at_least", "metric": "roc_auc", "arm": "random_rows", "value": 0.0}),
        json!({"kind": "metric_at_least", "metric": "roc_auc", "arm": "random_rows", "value": -0.0001}),
        json!({"kind": "metric_gap", "metric": "roc_auc", "higher": "random_rows", "lower": "entity_grouped", "at_least": -1.0}),
        json!({"kind": "metric_gap", "metric": "roc_auc", "higher": "random_rows", "lower": "entity_grouped", "at_least": -3.0}),
    ] {
        let mut payload = base.clone();
        payload["experiment"]["claim"] = claim.clone();
        payload["claim"] = claim.clone();
        let report = counterlab::verify(payload.to_string().as_bytes(), &packs, &fast());
        assert_eq!(report.verdict().as_str(), "INCONCLUSIVE", "{claim}");
        let json = report.to_json();
        assert_eq!(json["claim"]["outcome"], "vacuous", "{claim}");
        assert!(
            json["reasons"].to_string().contains("vacuous claim"),
            "{claim}: {json}"
        );
    }
    // A boundary map evaluates its cells by the same rule: entity-leakage's sweep with its
    // claim made vacuous has no SUPPORTS cell.
    let dir = TempDir::new("vacuous-map");
    let pack_dir = dir.path().join("entity-leakage");
    let from = root().join("fixtures/packs/entity-leakage");
    std::fs::create_dir_all(pack_dir.join("experiments")).unwrap();
    for file in ["pack.toml", "customer_churn.csv"] {
        std::fs::copy(from.join(file), pack_dir.join(file)).unwrap();
    }
    let mut experiment: Value = serde_json::from_slice(
        &std::fs::read(from.join("experiments/boundary-overlap.json")).unwrap(),
    )
    .unwrap();
    experiment["claim"]["at_least"] = json!(-1.0);
    std::fs::write(
        pack_dir.join("experiments/boundary-overlap.json"),
        experiment.to_string(),
    )
    .unwrap();
    let pack = Pack::open(&pack_dir).unwrap();
    let map = counterlab::boundary::compute(&pack, 2).unwrap();
    assert!(!map.cells.is_empty());
    for cell in &map.cells {
        assert_eq!(cell.outcome.label(), "INCONCLUSIVE");
        assert!(
            cell.reason
                .as_deref()
                .unwrap_or("")
                .contains("vacuous claim"),
            "{:?}",
            cell.reason
        );
    }
}

/// A pack.toml whose bad line is a megabyte long: the error quotes a bounded excerpt.
#[test]
fn a_manifest_error_quotes_a_bounded_excerpt() {
    let dir = TempDir::new("long-toml");
    let text = format!("id = \"x\"\ntitle = {}\n", "y".repeat(1 << 20));
    let e = Pack::from_parts(dir.path(), &text, b"e,y,x\n", &Default::default()).unwrap_err();
    let message = e.to_string();
    assert!(message.len() < 2_000, "{} bytes", message.len());
    assert!(message.contains("pack.toml"), "{message}");
}

/// Cells that real exports contain and that each need a decision: missing-value tokens,
/// float spellings of integers, booleans, quoted commas, spaces, overflow, text levels.
const HOSTILE_CELLS: &[&str] = &[
    "",
    "NA",
    "nan",
    "1",
    "0",
    "1.0",
    "0.0",
    "x",
    "A",
    "B",
    "b",
    "-3.5",
    "True",
    "false",
    "\"q,uoted\"",
    " 1",
    "01",
    "1e308",
    "1e309",
    "inf",
    "2",
    "c1-p07",
    "c1-p7",
    "é",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    /// `init`, `pack check` and `audit` on CSVs built from hostile cells (and a header that
    /// may repeat or miss a role): never a panic; what init writes loads; an audit's own
    /// payload never verifies REJECTED (counterlab_test_support::byod::exercise).
    #[test]
    fn init_check_and_audit_survive_hostile_csvs(
        rows in proptest::collection::vec(proptest::collection::vec(0..HOSTILE_CELLS.len(), 6), 0..40),
        header in proptest::sample::select(vec![
            "e,t,y,is_test,x,c", "e,t,y,is_test,x,x", "e,t,y,x,c,d", "e,y,t,is_test,c,x",
        ]),
        with_time in proptest::bool::ANY,
        with_test in proptest::bool::ANY,
    ) {
        let mut csv = format!("{header}\n");
        for (i, row) in rows.iter().enumerate() {
            // A few well-formed rows first, so that some inputs get past the roles.
            let cells: Vec<String> = if i < 8 {
                vec![format!("p{}", i % 4), (i / 4).to_string(), (i % 2).to_string(), u8::from(i % 4 == 0).to_string(), format!("{}.5", i), ["A", "B"][i % 2].into()]
            } else {
                row.iter().map(|&k| HOSTILE_CELLS[k].to_string()).collect()
            };
            csv.push_str(&cells.join(","));
            csv.push('\n');
        }
        counterlab_test_support::byod::exercise(csv.as_bytes(), with_time, with_test);
    }

    /// The same on arbitrary bytes.
    #[test]
    fn init_check_and_audit_survive_arbitrary_bytes(
        bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..600),
        with_time in proptest::bool::ANY,
    ) {
        let mut csv = b"e,t,y,is_test,x\n".to_vec();
        csv.extend(bytes);
        counterlab_test_support::byod::exercise(&csv, with_time, true);
    }
}
