//! Helpers shared by the test modules: temporary packs written from CSV text, and the
//! bundled experiments' payloads and the recorded payloads with their reports, computed
//! once per test binary.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use counterlab_test_support::bundled;

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// A fresh empty folder under the system temp dir (removed on drop).
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        let dir =
            std::env::temp_dir().join(format!("counterlab-test-{}-{tag}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Writes `<root>/<id>/pack.toml` + `data.csv` with the right blake3; returns the pack folder.
pub fn write_pack(
    root: &Path,
    id: &str,
    csv: &str,
    features: &[&str],
    time: Option<&str>,
) -> PathBuf {
    let dir = root.join(id);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("data.csv"), csv).unwrap();
    let hash = blake3::hash(csv.as_bytes()).to_hex().to_string();
    let features: Vec<String> = features.iter().map(|f| format!("{f:?}")).collect();
    let time_line = time.map(|t| format!("time = {t:?}\n")).unwrap_or_default();
    let toml = format!(
        "id = {id:?}\ntitle = \"test pack\"\nconcept = \"test\"\n\n[data]\nfile = \"data.csv\"\nblake3 = {hash:?}\nentity = \"entity\"\nlabel = \"label\"\npositive = \"1\"\nfeatures = [{}]\n{time_line}",
        features.join(", ")
    );
    std::fs::write(dir.join("pack.toml"), toml).unwrap();
    dir
}

/// A small seeded CSV: `entities` entities × `per_entity` rows, columns entity, t, label,
/// x1, x2, x3, is_test. Labels are entity-level and depend weakly on x1.
pub fn synthetic_csv(seed: u64, entities: usize, per_entity: usize) -> String {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        // xorshift64*: test data only, never a kernel path.
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut out = String::from("entity,t,label,x1,x2,x3,is_test\n");
    for e in 0..entities {
        let profile = [next() * 4.0 - 2.0, next() * 10.0, next()];
        let label = u8::from(profile[0] + next() * 2.0 > 1.0);
        for t in 0..per_entity {
            let x1 = profile[0] + (next() - 0.5) * 0.2;
            let x2 = profile[1] + (next() - 0.5);
            let x3 = ((profile[2] + next() * 0.1) * 100.0).round() / 100.0;
            out.push_str(&format!(
                "E{e:03},{t},{label},{x1:.4},{x2:.3},{x3},{}\n",
                u8::from(t + 1 == per_entity)
            ));
        }
    }
    out
}

/// Reorders the data rows of a CSV (header kept first) by a seeded permutation.
pub fn shuffle_csv_rows(csv: &str, seed: u64) -> String {
    let mut lines = csv.lines();
    let header = lines.next().unwrap();
    let mut rows: Vec<&str> = lines.collect();
    let mut rng = counterlab::rng::stream(seed, "test/shuffle-csv");
    counterlab::rng::shuffle(&mut rows, &mut rng);
    let mut out = format!("{header}\n");
    for row in rows {
        out.push_str(row);
        out.push('\n');
    }
    out
}

/// An experiment JSON over the synthetic pack.
pub fn synthetic_experiment(pack: &str, seed: u64) -> String {
    format!(
        r#"{{"format":"counterlab.experiment/1","pack":"{pack}","seed":{seed},
        "model":{{"kind":"logistic","c":1.0}},
        "arms":[{{"name":"random_rows","split":{{"kind":"random_rows","test_fraction":0.25}}}},
                {{"name":"entity_grouped","split":{{"kind":"entity_grouped","test_fraction":0.25}}}},
                {{"name":"future","split":{{"kind":"temporal","test_fraction":0.25}}}},
                {{"name":"given","split":{{"kind":"predefined","column":"is_test"}}}}],
        "ablations":[{{"name":"identity","drop":[]}},{{"name":"no_x1","drop":["x1"]}},{{"name":"no_x3","drop":["x3"]}}],
        "metrics":["roc_auc","accuracy","balanced_accuracy","majority_baseline_accuracy","accuracy_lift"],
        "claim":{{"kind":"metric_gap","metric":"roc_auc","higher":"random_rows","lower":"entity_grouped","at_least":0.0}}}}"#
    )
}

/// Golden-file drift check (see `counterlab_test_support::golden`).
pub fn golden_json(name: &str, value: &serde_json::Value) {
    counterlab_test_support::golden::check_json(name, value);
}

/// The bundled packs.
pub fn bundled_packs() -> counterlab::Packs {
    counterlab_test_support::bundled::packs()
}

/// Runs the release binary from the crate root (so `fixtures/packs` is found), without
/// colour, and returns its output.
pub fn counterlab(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_counterlab"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .args(args)
        .output()
        .unwrap()
}

/// Small K and one row-order shuffle on two threads: a full verification of a bundled
/// payload takes well under a second in release mode.
pub fn fast_options() -> counterlab::VerifyOptions {
    counterlab::VerifyOptions {
        permutations: 19,
        row_order_shuffles: 1,
        threads: 2,
        ..counterlab::VerifyOptions::default()
    }
}

/// A bundled pack and one of its registered experiments as a JSON value (to edit before
/// parsing).
pub fn registered(pack: &str, name: &str) -> (counterlab::Pack, serde_json::Value) {
    let pack = counterlab::Pack::open(counterlab_test_support::bundled::packs_dir().join(pack))
        .expect("bundled pack");
    let path = pack.dir().join(format!("experiments/{name}.json"));
    let value = serde_json::from_slice(&std::fs::read(&path).expect("experiment"))
        .expect("experiment JSON");
    (pack, value)
}

/// A command's stdout and stderr, for messages and text checks.
pub fn output_text(o: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// A command's stdout as JSON (a panic shows everything it printed).
pub fn output_json(o: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", output_text(o)))
}

/// A path as the `&str` a command line takes.
pub fn path_arg(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `text` written to `dir/name`.
pub fn write_file(dir: &TempDir, name: &str, text: &str) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// A bundled experiment, the payload `counterlab run` writes for it (two threads, pretty
/// JSON) and the report on that payload under [`fast_options`].
pub struct RegisteredRun {
    /// `pack/experiment`.
    pub name: String,
    /// The fresh payload's bytes.
    pub payload: Vec<u8>,
    /// `counterlab::verify(payload, bundled packs, fast_options())`.
    pub report: counterlab::Report,
}

/// Every bundled experiment run and verified once per test binary: several tests read the
/// same reports (check order, schema, null distributions, golden hashes), and each used to
/// run and verify every experiment again.
pub fn registered_runs() -> &'static [RegisteredRun] {
    static RUNS: OnceLock<Vec<RegisteredRun>> = OnceLock::new();
    RUNS.get_or_init(|| {
        let packs = bundled_packs();
        let runs: Vec<RegisteredRun> = bundled::experiment_files()
            .into_iter()
            .map(|(name, path)| {
                let experiment =
                    counterlab::Experiment::from_json(&std::fs::read(&path).unwrap()).unwrap();
                let payload = counterlab::run_with(
                    packs.get(&experiment.pack).unwrap(),
                    &experiment,
                    &counterlab::RunOptions { threads: 2 },
                )
                .unwrap_or_else(|e| panic!("{name}: {e}"))
                .to_json_pretty()
                .unwrap()
                .into_bytes();
                let report = counterlab::verify(&payload, &packs, &fast_options());
                RegisteredRun {
                    name,
                    payload,
                    report,
                }
            })
            .collect();
        assert!(runs.len() >= 4, "expected the bundled experiments");
        runs
    })
}

/// A recorded payload as `expected.toml` lists it, its bytes and the report on it under
/// the verifier's default options (K = 199): the options `expected.toml`'s verdicts are for.
pub struct RecordedReport {
    /// The listing.
    pub case: bundled::Recorded,
    /// `counterlab::verify(bytes, bundled packs, VerifyOptions::default())`.
    pub report: counterlab::Report,
}

/// Every recorded payload verified once per test binary at the default options.
pub fn recorded_reports() -> &'static [RecordedReport] {
    static REPORTS: OnceLock<Vec<RecordedReport>> = OnceLock::new();
    REPORTS.get_or_init(|| {
        let packs = bundled_packs();
        bundled::recorded_payloads(&packs)
            .into_iter()
            .map(|case| {
                let bytes = std::fs::read(&case.path).unwrap();
                let report =
                    counterlab::verify(&bytes, &packs, &counterlab::VerifyOptions::default());
                RecordedReport { case, report }
            })
            .collect()
    })
}

/// Every bundled pack's boundary map (`boundary::compute` on two threads, at the pack's own
/// K), by pack id, computed once per test binary and shared by the tests that read a
/// bundled map.
pub fn bundled_maps(
) -> &'static std::collections::BTreeMap<String, counterlab::boundary::BoundaryMap> {
    static MAPS: OnceLock<std::collections::BTreeMap<String, counterlab::boundary::BoundaryMap>> =
        OnceLock::new();
    MAPS.get_or_init(|| {
        let packs = bundled_packs();
        packs
            .iter()
            .filter(|pack| pack.manifest().boundary.is_some())
            .map(|pack| {
                let map = counterlab::boundary::compute(pack, 2)
                    .unwrap_or_else(|e| panic!("{}: {e}", pack.id()));
                (pack.id().to_owned(), map)
            })
            .collect()
    })
}
