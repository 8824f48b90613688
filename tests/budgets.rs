//! Every budget says how to pass it (issue 42, item 7). Every command that reads a table —
//! a pack's fixture, or the CSV of `init` and `audit` — takes `--max-fixture-bytes`,
//! `--max-columns` and `--max-rows`; over one, its message (an error on stderr, or the
//! report's `budget.fixture` reason) names the flag and a value that would pass, and the
//! same command given that value gets past the budget.
//!
//! Expected values are the inputs' own sizes, counted here from the files (bytes, header
//! columns, data rows), not read from the message under test.

use std::path::{Path, PathBuf};

use crate::common::{counterlab, output_text, path_arg, synthetic_csv, TempDir};

/// The number `text` says to pass with `flag` ("pass --max-rows 240 or more"), if it does.
fn value_to_pass(text: &str, flag: &str) -> Option<u64> {
    let after = text.split(&format!("pass {flag} ")).nth(1)?;
    after
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .and_then(|n| n.parse().ok())
}

/// A small pack made by `init` (40 entities × 6 rows; its starter experiments), with a
/// one-cell boundary sweep added to its `pack.toml`, and the CSV it was made from.
struct Fixture {
    _dir: TempDir,
    csv: PathBuf,
    packs: PathBuf,
    payload: PathBuf,
    prediction: PathBuf,
    claim: PathBuf,
    /// A revision chain's two payloads (the first REJECTED).
    revisions: Vec<PathBuf>,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = TempDir::new("budgets");
        let csv = dir.path().join("visits.csv");
        std::fs::write(&csv, synthetic_csv(42, 40, 6)).unwrap();
        let packs = dir.path().join("packs");
        let pack = packs.join("visits");
        let init = counterlab(&[
            "init",
            path_arg(&csv),
            "--entity",
            "entity",
            "--label",
            "label",
            "--positive",
            "1",
            "--drop",
            "is_test",
            "--out",
            path_arg(&pack),
        ]);
        assert_eq!(init.status.code(), Some(0), "{}", output_text(&init));
        let mut manifest = std::fs::read_to_string(pack.join("pack.toml")).unwrap();
        manifest.push_str(
            "\n[boundary]\ntitle = \"one cell\"\nexperiment = \"random-vs-grouped\"\npermutations = 19\n\n[[boundary.axes]]\nknob = \"c\"\nvalues = [1.0]\n",
        );
        std::fs::write(pack.join("pack.toml"), manifest).unwrap();
        let payload = dir.path().join("payload.json");
        let run = counterlab(&[
            "run",
            path_arg(&pack.join("experiments/random-vs-grouped.json")),
            "--packs",
            path_arg(&packs),
            "--out",
            path_arg(&payload),
        ]);
        assert_eq!(run.status.code(), Some(0), "{}", output_text(&run));
        // A revision chain: a false gap claim (REJECTED), then the same with another C.
        let mut revisions = Vec::new();
        for (i, c) in [1.0, 0.5].into_iter().enumerate() {
            let text =
                std::fs::read_to_string(pack.join("experiments/random-vs-grouped.json")).unwrap();
            let mut experiment: serde_json::Value = serde_json::from_str(&text).unwrap();
            experiment["claim"] = serde_json::json!({"kind": "metric_gap", "metric": "roc_auc", "higher": "random_rows", "lower": "entity_grouped", "at_least": 0.5});
            experiment["model"]["c"] = serde_json::json!(c);
            let file = dir.path().join(format!("revision-{i}.json"));
            std::fs::write(&file, experiment.to_string()).unwrap();
            let out = dir.path().join(format!("revision-{i}.payload.json"));
            let run = counterlab(&[
                "run",
                path_arg(&file),
                "--packs",
                path_arg(&packs),
                "--out",
                path_arg(&out),
            ]);
            assert_eq!(run.status.code(), Some(0), "{}", output_text(&run));
            revisions.push(out);
        }
        let claim = dir.path().join("claim.json");
        std::fs::write(
            &claim,
            r#"{"kind": "metric_gap", "metric": "roc_auc", "higher": "random_rows", "lower": "entity_grouped", "at_least": 0.0}"#,
        )
        .unwrap();
        let prediction = dir.path().join("prediction.json");
        let predict = counterlab(&[
            "predict",
            "visits",
            "--claim",
            path_arg(&claim),
            "--outcome",
            "holds",
            "--packs",
            path_arg(&packs),
            "--out",
            path_arg(&prediction),
        ]);
        assert_eq!(predict.status.code(), Some(0), "{}", output_text(&predict));
        Fixture {
            csv,
            packs,
            payload,
            prediction,
            claim,
            revisions,
            _dir: dir,
        }
    }

    fn fixture_bytes(&self) -> u64 {
        std::fs::metadata(&self.csv).unwrap().len()
    }
}

/// Runs `args` with `flag` set to `small`: the message must name `flag` and the value
/// `needed`; the same command with that value must get past the budget (no over-budget
/// message, and not the usage exit code 2).
fn passes_with_the_value_it_names(args: &[&str], flag: &str, small: u64, needed: u64) {
    let small = small.to_string();
    let over = counterlab(&[args, &[flag, &small]].concat());
    let text = output_text(&over);
    assert_eq!(
        value_to_pass(&text, flag),
        Some(needed),
        "{args:?} {flag} {small}: {text}"
    );
    assert!(text.contains(&format!("pass {flag} {needed}")), "{text}");
    let needed = needed.to_string();
    let passed = counterlab(&[args, &[flag, &needed]].concat());
    let text = output_text(&passed);
    assert!(
        !text.contains("budget: pass") && passed.status.code() != Some(2),
        "{args:?} {flag} {needed}: {:?} {text}",
        passed.status.code()
    );
}

/// Each command that reads a table, over `--max-fixture-bytes 100`: named with the
/// fixture's size, and passing with it.
#[test]
fn every_command_that_reads_a_table_names_the_flag_and_a_value_that_passes() {
    let f = Fixture::new();
    let bytes = f.fixture_bytes();
    let out = TempDir::new("budgets-out");
    let (csv, packs, payload) = (path_arg(&f.csv), path_arg(&f.packs), path_arg(&f.payload));
    let pack = f.packs.join("visits");
    let roles = ["--entity", "entity", "--label", "label", "--positive", "1"];
    let init_out = out.path().join("init");
    let capsule = out.path().join("capsule.json");
    let experiment = pack.join("experiments/random-vs-grouped.json");
    let commands: Vec<Vec<&str>> = vec![
        [
            &["init", csv][..],
            &roles,
            &["--drop", "is_test", "--out", path_arg(&init_out)],
        ]
        .concat(),
        [&["audit", csv][..], &roles, &["--test-column", "is_test"]].concat(),
        vec!["pack", "check", path_arg(&pack)],
        vec!["pack", "rehash", path_arg(&pack)],
        vec!["packs", "--packs", packs],
        vec!["run", path_arg(&experiment), "--packs", packs],
        vec!["verify", payload, "--packs", packs, "--permutations", "19"],
        vec![
            "verify-revision",
            path_arg(&f.revisions[0]),
            path_arg(&f.revisions[1]),
            "--packs",
            packs,
            "--permutations",
            "19",
        ],
        vec!["boundary", "visits", "--packs", packs, "--threads", "2"],
        vec![
            "predict",
            "visits",
            "--claim",
            path_arg(&f.claim),
            "--outcome",
            "holds",
            "--packs",
            packs,
        ],
        vec![
            "select",
            "visits",
            "--belief",
            path_arg(&f.prediction),
            "--packs",
            packs,
        ],
        vec![
            "capsule",
            "build",
            "--prediction",
            path_arg(&f.prediction),
            "--packs",
            packs,
            "--out",
            path_arg(&capsule),
        ],
    ];
    for args in &commands {
        passes_with_the_value_it_names(args, "--max-fixture-bytes", 100, bytes);
    }
    // The transfer task of a bundled pack: its fixture's size.
    let bundled = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/packs");
    let weekly = std::fs::metadata(bundled.join("temporal-leakage/weekly_demand.csv"))
        .unwrap()
        .len();
    passes_with_the_value_it_names(
        &[
            "transfer",
            "temporal-leakage",
            "--choice",
            "random-rows",
            "--packs",
            path_arg(&bundled),
        ],
        "--max-fixture-bytes",
        100,
        weekly,
    );
}

/// The column and row budgets, as the byte budget: init over `--max-columns` (the CSV's
/// header has 7 columns), audit over `--max-rows` (240 data rows), verify of a payload
/// over `--max-rows` (its report's reason names both front ends' spellings).
#[test]
fn the_column_and_row_budgets_name_their_flag_and_a_value_that_passes() {
    let f = Fixture::new();
    let text = std::fs::read_to_string(&f.csv).unwrap();
    let columns = text.lines().next().unwrap().split(',').count() as u64;
    let rows = text.lines().skip(1).filter(|l| !l.is_empty()).count() as u64;
    assert_eq!((columns, rows), (7, 240));
    let out = TempDir::new("budgets-columns");
    let roles = ["--entity", "entity", "--label", "label", "--positive", "1"];
    let csv = path_arg(&f.csv);
    let init_out = out.path().join("init");
    let init = [
        &["init", csv][..],
        &roles,
        &["--drop", "is_test", "--out", path_arg(&init_out)],
    ]
    .concat();
    passes_with_the_value_it_names(&init, "--max-columns", 3, columns);
    let audit = [&["audit", csv][..], &roles, &["--test-column", "is_test"]].concat();
    passes_with_the_value_it_names(&audit, "--max-rows", 100, rows);
    let verify = [
        "verify",
        path_arg(&f.payload),
        "--packs",
        path_arg(&f.packs),
        "--permutations",
        "19",
    ];
    passes_with_the_value_it_names(&verify, "--max-rows", 10, rows);
    let report = counterlab(&[&verify[..], &["--max-rows", "10", "--json"]].concat());
    let report: serde_json::Value = serde_json::from_slice(&report.stdout).unwrap();
    let reason = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "budget.fixture")
        .and_then(|c| c["reason"].as_str())
        .unwrap()
        .to_owned();
    assert!(
        reason.ends_with(
            "240 rows, over the 10-row budget: pass --max-rows 240 (Python: max_rows=240) or more"
        ),
        "{reason}"
    );
}

/// A flag's range is checked before anything is read: 0, and one past the most, are usage
/// errors naming the flag.
#[test]
fn the_budget_flags_have_ranges() {
    for (flag, past) in [
        ("--max-fixture-bytes", "4294967296"),
        ("--max-columns", "1048577"),
        ("--max-rows", "4294967296"),
    ] {
        for value in ["0", past] {
            let o = counterlab(&[
                "pack",
                "check",
                "fixtures/packs/entity-leakage",
                flag,
                value,
            ]);
            assert_eq!(o.status.code(), Some(2), "{flag} {value}");
            let text = output_text(&o);
            assert!(text.contains(&format!("{flag} must lie in 1..=")), "{text}");
        }
    }
}
