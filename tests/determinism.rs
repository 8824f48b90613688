//! Determinism: file row order, thread count and CPU never change a result hash.

use std::path::Path;
use std::process::Command;

use counterlab::{Experiment, Pack, Packs, RunOptions};
use proptest::prelude::*;

use crate::canon::registered_experiments;
use crate::common::{shuffle_csv_rows, synthetic_csv, synthetic_experiment, write_pack, TempDir};

fn result_hash(pack: &Pack, experiment: &Experiment, threads: usize) -> String {
    counterlab::run_with(pack, experiment, &RunOptions { threads })
        .unwrap()
        .result_hash
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// Any permutation of the fixture file's rows gives the same result hash.
    #[test]
    fn row_permutations_keep_the_result_hash(data_seed in 0u64..20, shuffle_seed in any::<u64>(), seed in 0u64..100) {
        let csv = synthetic_csv(data_seed, 40, 5);
        let root = TempDir::new("perm");
        let experiment = Experiment::from_json(synthetic_experiment("p", seed).as_bytes()).unwrap();
        let original = Pack::open(write_pack(root.path(), "p", &csv, &["x1", "x2", "x3"], Some("t"))).unwrap();
        let root2 = TempDir::new("perm2");
        let shuffled_csv = shuffle_csv_rows(&csv, shuffle_seed);
        let shuffled = Pack::open(write_pack(root2.path(), "p", &shuffled_csv, &["x1", "x2", "x3"], Some("t"))).unwrap();
        prop_assert_eq!(result_hash(&original, &experiment, 1), result_hash(&shuffled, &experiment, 1));
    }
}

fn bundled() -> Packs {
    Packs::discover(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/packs")).unwrap()
}

#[test]
fn thread_count_never_changes_a_result() {
    let packs = bundled();
    for (name, path) in registered_experiments() {
        let experiment = Experiment::from_json(&std::fs::read(&path).unwrap()).unwrap();
        let pack = packs.get(&experiment.pack).unwrap();
        let one = counterlab::run_with(pack, &experiment, &RunOptions { threads: 1 }).unwrap();
        for threads in [2, 3, 8] {
            let many = counterlab::run_with(pack, &experiment, &RunOptions { threads }).unwrap();
            assert_eq!(one, many, "{name}: {threads} threads");
        }
    }
}

#[test]
fn shuffled_bundled_fixture_keeps_every_result_hash() {
    let packs = bundled();
    let root = TempDir::new("bundled-shuffle");
    for pack in packs.iter() {
        let csv = std::fs::read_to_string(pack.dir().join(&pack.manifest().data.file)).unwrap();
        let shuffled_csv = shuffle_csv_rows(&csv, 99);
        let dir = root.path().join(pack.id());
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(&pack.manifest().data.file), &shuffled_csv).unwrap();
        let toml = std::fs::read_to_string(pack.dir().join("pack.toml"))
            .unwrap()
            .replace(
                pack.fixture_hash(),
                blake3::hash(shuffled_csv.as_bytes()).to_hex().as_str(),
            );
        std::fs::write(dir.join("pack.toml"), toml).unwrap();
    }
    let shuffled = Packs::discover(root.path()).unwrap();
    for (name, path) in registered_experiments() {
        let experiment = Experiment::from_json(&std::fs::read(&path).unwrap()).unwrap();
        let a = result_hash(packs.get(&experiment.pack).unwrap(), &experiment, 2);
        let b = result_hash(shuffled.get(&experiment.pack).unwrap(), &experiment, 2);
        assert_eq!(a, b, "{name}");
    }
}

/// The registered experiments run under Nehalem: together they use every split kind and
/// model kind of the registered experiments (checked below), on every bundled pack but
/// rare-defects (whose transfer results the next test emulates): random rows on 9,000
/// rows, repeated k-fold and entity k-fold for both models, temporal, entity-grouped and
/// rolling-origin splits, a single-split tree.
const NEHALEM_EXPERIMENTS: [&str; 9] = [
    "class-imbalance/experiments/accuracy-is-baseline.json",
    "entity-leakage/experiments/random-vs-grouped.json",
    "entity-leakage/experiments/gbdt-random-vs-grouped.json",
    "temporal-leakage/experiments/boundary-capacity.json",
    "temporal-leakage/experiments/random-vs-rolling-origin.json",
    "temporal-leakage/experiments/transfer-evaluation.json",
    "selection-leakage/experiments/selection-inflates-auc.json",
    "preparation-leakage/experiments/oversampling-inflates-auc.json",
    "preparation-leakage/experiments/target-encoding-inflates-auc.json",
];

/// The split kinds, preparation steps and model kind an experiment file uses (a step is
/// the same code whichever rows it is fitted on).
fn kinds_used(path: &Path) -> std::collections::BTreeSet<String> {
    let value: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let arms = value["arms"].as_array().unwrap();
    let mut kinds: std::collections::BTreeSet<String> = arms
        .iter()
        .map(|arm| format!("split {}", arm["split"]["kind"].as_str().unwrap()))
        .collect();
    for step in arms
        .iter()
        .filter_map(|arm| arm["prepare"].as_array())
        .flatten()
    {
        kinds.insert(format!("prepare {}", step["step"].as_str().unwrap()));
    }
    kinds.insert(format!(
        "model {}",
        value["model"]["kind"].as_str().unwrap()
    ));
    kinds
}

/// The same binary on a CPU without AVX/FMA (qemu-x86_64 -cpu Nehalem) gives the same
/// result hash as natively, on a representative subset of the registered experiments
/// ([`NEHALEM_EXPERIMENTS`]); every registered experiment's result hash is checked
/// natively against its golden (`canon::registered_result_hashes_do_not_drift`), and the
/// CPU-dependent code (the AVX2 copies of the Newton solver and of the boosting loop,
/// chosen at run time) is reached by both model kinds in the subset. `.ci/run` installs
/// qemu-user; without it this test fails in CI (CI=true) and is reported as skipped
/// elsewhere.
#[test]
fn nehalem_cpu_gives_the_same_hashes() {
    // The subset covers every split and model kind in use, so a new kind cannot skip it.
    let registered = registered_experiments();
    let mut subset = Vec::new();
    let (mut used, mut covered) = (
        std::collections::BTreeSet::new(),
        std::collections::BTreeSet::new(),
    );
    for (name, path) in &registered {
        let kinds = kinds_used(path);
        if NEHALEM_EXPERIMENTS.iter().any(|e| path.ends_with(e)) {
            covered.extend(kinds.iter().cloned());
            subset.push((name.clone(), path.clone()));
        }
        used.extend(kinds);
    }
    assert_eq!(subset.len(), NEHALEM_EXPERIMENTS.len(), "{subset:?}");
    assert_eq!(
        used.difference(&covered).collect::<Vec<_>>(),
        Vec::<&String>::new(),
        "kinds used by a registered experiment but by none under Nehalem"
    );
    if !qemu_available("nehalem_cpu_gives_the_same_hashes") {
        return;
    }
    let root = TempDir::new("qemu");
    for (name, path) in subset {
        let mut hashes: Vec<String> = Vec::new();
        for (label, use_qemu) in [("native", false), ("nehalem", true)] {
            let out = root.path().join(format!("{label}.json"));
            let status = binary_on(use_qemu)
                .args([
                    "run",
                    path.to_str().unwrap(),
                    "--out",
                    out.to_str().unwrap(),
                ])
                .output()
                .unwrap();
            assert!(
                status.status.success(),
                "{name} ({label}): {}",
                String::from_utf8_lossy(&status.stderr)
            );
            let payload: serde_json::Value =
                serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
            hashes.push(payload["result_hash"].as_str().unwrap().to_owned());
        }
        assert_eq!(hashes[0], hashes[1], "{name}: native vs qemu -cpu Nehalem");
    }
}

/// The release binary, run from the crate root: natively, or under
/// `qemu-x86_64 -cpu Nehalem` (no AVX, no FMA).
fn binary_on(nehalem: bool) -> Command {
    let binary = env!("CARGO_BIN_EXE_counterlab");
    let mut command = if nehalem {
        let mut c = Command::new("qemu-x86_64");
        c.args(["-cpu", "Nehalem", binary]);
        c
    } else {
        Command::new(binary)
    };
    command.current_dir(env!("CARGO_MANIFEST_DIR"));
    command
}

/// Whether `qemu-x86_64` can be run; in CI (CI=true) its absence is a failure, elsewhere
/// the test `name` reports itself skipped.
fn qemu_available(name: &str) -> bool {
    if Command::new("qemu-x86_64")
        .arg("--version")
        .output()
        .is_ok()
    {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI must install qemu-user (qemu-x86_64) for the cross-CPU test"
    );
    eprintln!("SKIPPED {name}: qemu-x86_64 not installed (apt-get install qemu-user)");
    false
}

/// Runs the binary natively and under `qemu-x86_64 -cpu Nehalem` and returns the JSON
/// key `key` of each run's stdout.
fn native_and_nehalem(args: &[&str], key: &str) -> [String; 2] {
    [false, true].map(|use_qemu| {
        let out = binary_on(use_qemu).args(args).output().unwrap();
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "{args:?} (qemu: {use_qemu}): {e}\n{}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
        json[key]
            .as_str()
            .unwrap_or_else(|| panic!("{args:?}: no {key}"))
            .to_owned()
    })
}

/// Beyond `run`: a verifier report (the claim's Obuchowski CI and permutation p-value), a
/// boundary map of each bundled sweep's kind (prevalence subsampling; entity_overlap
/// splits with a `c` axis, each cell's claim evidence) and each transfer evaluation are
/// the same on a CPU without AVX/FMA.
///
/// A representative subset (issue 42): every CPU-dispatched kernel (`newton_avx2`, and the
/// trees' `trees_avx2` in `nehalem_cpu_gives_the_same_hashes`), every libm function and
/// every code path of a map and a transfer run under emulation, about 50× slower than
/// native, on the smallest inputs that reach them: K = 39 for the report and each map's
/// sweep cut to two values per axis at K = 19 (a copy of the pack with its `[boundary]`
/// edited). The full bundled maps, transfer results, recorded capsules and reports are
/// pinned natively by their golden hashes (`tests/golden/*.json`), which this machine's
/// native run must reproduce bit for bit. A Proof Capsule adds no arithmetic of its own
/// (hashes, the selector's counts, a derived seed, then `run` and `verify`), so its ~50 s
/// emulated re-verification is left to the capsule goldens.
#[test]
fn nehalem_cpu_gives_the_same_reports_maps_and_transfer_results() {
    if !qemu_available("nehalem_cpu_gives_the_same_reports_maps_and_transfer_results") {
        return;
    }
    let root = TempDir::new("nehalem-maps");
    let class_imbalance = small_sweep(
        root.path(),
        "class-imbalance",
        &[(
            "values = [0.5, 0.35, 0.25, 0.15, 0.1, 0.05, 0.02, 0.01]",
            "values = [0.5, 0.05]",
        )],
    );
    let entity_leakage = small_sweep(
        root.path(),
        "entity-leakage",
        &[
            (
                "values = [0.0, 0.25, 0.5, 0.75, 1.0]",
                "values = [0.0, 1.0]",
            ),
            ("values = [0.01, 1.0, 100.0]", "values = [0.01, 1.0]"),
        ],
    );
    let cases: [(&[&str], &str); 5] = [
        (
            &[
                "verify",
                "fixtures/packs/entity-leakage/payloads/random-inflates-auc.json",
                "--permutations",
                "39",
                "--json",
            ],
            "report_hash",
        ),
        (
            &[
                "boundary",
                "class-imbalance",
                "--packs",
                &class_imbalance,
                "--json",
            ],
            "map_hash",
        ),
        (
            &[
                "boundary",
                "entity-leakage",
                "--packs",
                &entity_leakage,
                "--json",
            ],
            "map_hash",
        ),
        (
            &[
                "transfer",
                "temporal-leakage",
                "--choice",
                "latest-weeks",
                "--json",
            ],
            "result_hash",
        ),
        (
            &["transfer", "rare-defects", "--choice", "roc-auc", "--json"],
            "result_hash",
        ),
    ];
    for (args, key) in cases {
        let [native, nehalem] = native_and_nehalem(args, key);
        assert_eq!(native, nehalem, "{args:?}: native vs qemu -cpu Nehalem");
    }
}

/// A copy of the bundled pack `id` under `root/id` whose `[boundary]` sweep runs at
/// K = 19 with each of `edits` (an axis's values line, and its replacement) applied; the
/// folder to pass as `--packs`.
fn small_sweep(root: &Path, id: &str, edits: &[(&str, &str)]) -> String {
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/packs")
        .join(id);
    let to = root.join(id);
    copy_tree(&from, &to);
    let manifest = to.join("pack.toml");
    let mut text = std::fs::read_to_string(&manifest).unwrap();
    let boundary = text.find("[boundary]").expect("a [boundary] sweep");
    let (head, tail) = text.split_at(boundary);
    let mut tail = tail.replacen("permutations = 99", "permutations = 19", 1);
    for (line, replacement) in edits {
        assert!(tail.contains(line), "{id}: {line}");
        tail = tail.replacen(line, replacement, 1);
    }
    text = format!("{head}{tail}");
    std::fs::write(&manifest, text).unwrap();
    root.to_str().unwrap().to_owned()
}

/// Copies the folder `from` to `to`, recursively.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}
