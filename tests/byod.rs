//! Bringing your own data: `init`, `pack check`, `pack rehash`, categorical features and
//! `audit`, through the binary, on the two real repeated-measures datasets of
//! `tests/data/real/` (exported from R packages by `export.R`; sources and licences in its
//! README) and on small hand-made CSVs whose expected findings are written out by hand.
//!
//! Expected counts come from outside the code under test: the R session that exported the
//! datasets (tests/data/real/README.md: 220 rows / 50 children / 177 "y" for bacteria; 444
//! rows / 111 patients / 248 "1" for respiratory, whose `id` restarts in each centre) or
//! an independent count in this file over the CSV's raw text.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::{
    counterlab, output_json as json, output_text as text, path_arg as s, write_file as write,
    TempDir,
};

fn real(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/data/real/{name}/{name}.csv"))
}

fn run(args: &[&str]) -> Output {
    counterlab(args)
}

/// A CSV's rows as header → cell maps (a plain split on commas: the test CSVs quote nothing).
fn rows(path: &Path) -> Vec<BTreeMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    lines
        .map(|l| {
            header
                .iter()
                .zip(l.split(','))
                .map(|(h, c)| (h.to_string(), c.to_string()))
                .collect()
        })
        .collect()
}

/// Writes rows (all with the same keys) as a CSV with the keys as header.
fn write_rows(path: &Path, table: &[BTreeMap<String, String>]) {
    let header: Vec<&String> = table[0].keys().collect();
    let mut csv = header
        .iter()
        .map(|h| h.as_str())
        .collect::<Vec<_>>()
        .join(",")
        + "\n";
    for row in table {
        let cells: Vec<&str> = header.iter().map(|h| row[*h].as_str()).collect();
        csv += &(cells.join(",") + "\n");
    }
    std::fs::write(path, csv).unwrap();
}

/// init → pack check → run → verify for every starter experiment; returns the pack folder.
fn init_check_run_verify(
    dir: &TempDir,
    data: &Path,
    flags: &[&str],
) -> (PathBuf, Vec<serde_json::Value>) {
    let out = dir.path().join("pack");
    let mut args = vec!["init", s(data)];
    args.extend(flags);
    args.extend(["--out", s(&out)]);
    let init = run(&args);
    assert_eq!(init.status.code(), Some(0), "{}", text(&init));
    let check = run(&["pack", "check", s(&out), "--json"]);
    assert_eq!(check.status.code(), Some(0), "{}", text(&check));
    let mut reports = Vec::new();
    for entry in std::fs::read_dir(out.join("experiments")).unwrap() {
        let experiment = entry.unwrap().path();
        let payload = dir.path().join(format!(
            "{}.payload.json",
            experiment.file_stem().unwrap().to_str().unwrap()
        ));
        let ran = run(&[
            "run",
            s(&experiment),
            "--packs",
            s(&out),
            "--out",
            s(&payload),
        ]);
        assert_eq!(ran.status.code(), Some(0), "{}", text(&ran));
        let verified = run(&[
            "verify",
            s(&payload),
            "--packs",
            s(&out),
            "--json",
            "--permutations",
            "99",
        ]);
        let report = json(&verified);
        // Every check but the claim's evidence passes: the numbers are the kernel's.
        for check in report["checks"].as_array().unwrap() {
            let status = check["status"].as_str().unwrap();
            assert!(
                status == "pass" || status == "skipped" || check["id"] == "claim.evidence",
                "{}: {check}",
                experiment.display()
            );
        }
        let no_material_gap = experiment
            .file_stem()
            .unwrap()
            .to_str()
            .unwrap()
            .ends_with("-no-material-gap");
        if no_material_gap && report["verdict"] == "REJECTED" {
            // "No material gap" may well be false on real data: then, and only then, the
            // gap's interval lies wholly above the margin (every other check passed).
            let claim = &report["claim"];
            assert_eq!(claim["outcome"], "contradicts", "{report}");
            assert!(
                claim["ci"][0].as_f64().unwrap() > counterlab::init::MATERIAL_MARGIN,
                "{report}"
            );
        } else {
            assert_ne!(report["verdict"], "REJECTED", "{}", experiment.display());
        }
        reports.push(report);
    }
    (out, reports)
}

#[test]
fn bacteria_goes_through_init_check_run_verify_with_categorical_features() {
    let dir = TempDir::new("byod-bacteria");
    let (pack, reports) = init_check_run_verify(
        &dir,
        &real("bacteria"),
        &[
            "--entity",
            "ID",
            "--label",
            "y",
            "--positive",
            "y",
            "--time",
            "week",
        ],
    );
    let manifest = std::fs::read_to_string(pack.join("pack.toml")).unwrap();
    // R: levels(MASS::bacteria$trt) is placebo, drug, drug+; byte order puts "drug" first.
    assert!(
        manifest.contains("trt = [\"drug\", \"drug+\", \"placebo\"]"),
        "{manifest}"
    );
    assert!(manifest.contains("ap = [\"a\", \"p\"]"), "{manifest}");
    // `week` counts from each child's own start (every child starts at week 0): read as an
    // order within each child, so no rolling-origin starter (issue 46 item 6).
    assert_eq!(
        reports.len(),
        2,
        "random-vs-grouped and its no-material-gap sibling"
    );
    let manifest_time = std::fs::read_to_string(pack.join("pack.toml")).unwrap();
    assert!(
        manifest_time.contains("time_kind = \"order_within_entity\""),
        "{manifest_time}"
    );
    let check = json(&run(&["pack", "check", s(&pack), "--json"]));
    assert_eq!(check["rows"], 220);
    assert_eq!(check["entities"], 50);
    assert_eq!(
        check["labels"],
        serde_json::json!([{"level": "n", "count": 43}, {"level": "y", "count": 177}])
    );
    // R: table(table(bacteria$ID)) — 3 children with 2 rows, 31 with 5.
    assert_eq!(check["rows_per_entity"]["min"], 2);
    assert_eq!(check["rows_per_entity"]["max"], 5);
    // The coefficients are named by the one-hot columns.
    let payload: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("random-vs-grouped.payload.json")).unwrap(),
    )
    .unwrap();
    let coefficients = &payload["results"]["entity_grouped"]["folds"][0]["model"]["coefficients"];
    let names: BTreeSet<&str> = coefficients
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        names,
        BTreeSet::from([
            "ap=a",
            "ap=p",
            "hilo=hi",
            "hilo=lo",
            "trt=drug",
            "trt=drug+",
            "trt=placebo"
        ])
    );

    // audit: the last visit (week 11) as the test set — later than every training row,
    // but the same children are on both sides.
    let data = real("bacteria");
    let mut table = rows(&data);
    for row in &mut table {
        let test = u8::from(row["week"] == "11");
        row.insert("last_visit".into(), test.to_string());
    }
    let split_csv = dir.path().join("bacteria_split.csv");
    write_rows(&split_csv, &table);
    // Independent count: children with a week-11 row and an earlier one.
    let mut weeks: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for row in &table {
        weeks.entry(&row["ID"]).or_default().insert(&row["week"]);
    }
    let shared = weeks
        .values()
        .filter(|w| w.contains("11") && w.len() > 1)
        .count();
    let test_rows = table.iter().filter(|r| r["week"] == "11").count();
    let audit = run(&[
        "audit",
        s(&split_csv),
        "--entity",
        "ID",
        "--label",
        "y",
        "--positive",
        "y",
        "--test-column",
        "last_visit",
        "--time",
        "week",
        "--json",
    ]);
    assert_eq!(audit.status.code(), Some(1), "{}", text(&audit));
    let audit = json(&audit);
    assert_eq!(audit["shared_entities"]["count"], shared as u64);
    assert_eq!(audit["rows"]["test"], test_rows as u64);
    assert_eq!(
        audit["temporal_overlap_rows"], 0,
        "week 11 is after every training week"
    );
    assert_eq!(audit["leak"], true);
}

#[test]
fn respiratory_goes_through_init_check_run_verify_and_audit() {
    let dir = TempDir::new("byod-respiratory");
    let data = real("respiratory");
    let (_, reports) = init_check_run_verify(
        &dir,
        &data,
        &[
            "--entity",
            "patient",
            "--label",
            "outcome",
            "--positive",
            "1",
            "--time",
            "visit",
        ],
    );
    // `visit` reads as an order within each patient: no rolling-origin starter (a visit
    // number is no calendar to forecast along), so one starter and its sibling.
    assert_eq!(
        reports.len(),
        2,
        "random-vs-grouped and its no-material-gap sibling"
    );

    // The ids restart in each centre: with `id` as the entity, 55 ids name two patients,
    // so every one of their 4 visits is two rows (R: sum(duplicated(respiratory[c("id",
    // "visit")])) is 220 = 55 × 4).
    let by_id = dir.path().join("by-id");
    let init = run(&[
        "init",
        s(&data),
        "--entity",
        "id",
        "--label",
        "outcome",
        "--positive",
        "1",
        "--time",
        "visit",
        "--out",
        s(&by_id),
    ]);
    assert_eq!(init.status.code(), Some(0), "{}", text(&init));
    assert!(
        text(&init).contains("warning: 220 (entity, time) pairs"),
        "{}",
        text(&init)
    );
    let check = run(&["pack", "check", s(&by_id), "--json"]);
    assert_eq!(check.status.code(), Some(1), "{}", text(&check));
    let check = json(&check);
    assert_eq!(check["entities"], 56);
    assert_eq!(check["duplicate_entity_times"]["count"], 220);
    assert_eq!(check["clean"], false);

    // Audit two splits written into a copy of the CSV: test rows drawn row by row (a
    // leak: patients on both sides) and whole patients (no leak).
    let mut table = rows(&data);
    let patients: BTreeSet<String> = table.iter().map(|r| r["patient"].clone()).collect();
    let test_patients: BTreeSet<&String> = patients.iter().step_by(4).collect();
    for (i, row) in table.iter_mut().enumerate() {
        let by_row = u8::from(i % 4 == 1);
        let by_patient = u8::from(test_patients.contains(&row["patient"]));
        row.insert("row_test".into(), by_row.to_string());
        row.insert("patient_test".into(), by_patient.to_string());
    }
    let split_csv = dir.path().join("respiratory_split.csv");
    write_rows(&split_csv, &table);
    // Independent count: patients with rows on both sides of the row-wise split.
    let mut sides: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for row in &table {
        sides
            .entry(&row["patient"])
            .or_default()
            .insert(&row["row_test"]);
    }
    let shared = sides.values().filter(|s| s.len() == 2).count();
    let seen_rows = table
        .iter()
        .filter(|r| r["row_test"] == "1" && sides[r["patient"].as_str()].len() == 2)
        .count();
    assert!(shared > 0);

    let common = [
        "--entity",
        "patient",
        "--label",
        "outcome",
        "--positive",
        "1",
    ];
    let leaky = run(&[
        &[
            "audit",
            s(&split_csv),
            "--test-column",
            "row_test",
            "--json",
        ][..],
        &common,
    ]
    .concat());
    assert_eq!(leaky.status.code(), Some(1), "{}", text(&leaky));
    let leaky = json(&leaky);
    assert_eq!(leaky["leak"], true);
    assert_eq!(leaky["shared_entities"]["count"], shared as u64);
    assert_eq!(leaky["test_rows_seen"], seen_rows as u64);
    assert_eq!(
        leaky["shared_entities"]["first"]
            .as_array()
            .unwrap()
            .len()
            .min(5),
        5
    );
    assert!(leaky["auc"]["ci"].is_array());

    let out = dir.path().join("audit-pack");
    let clean = run(&[
        &[
            "audit",
            s(&split_csv),
            "--test-column",
            "patient_test",
            "--json",
            "--out",
            s(&out),
        ][..],
        &common,
    ]
    .concat());
    assert_eq!(clean.status.code(), Some(0), "{}", text(&clean));
    let clean = json(&clean);
    assert_eq!(clean["leak"], false);
    assert_eq!(clean["shared_entities"]["count"], 0);
    assert_eq!(clean["test_entities"], test_patients.len() as u64);
    // The audit's numbers are checked by the verifier: the same report, recomputed.
    let verified = json(&run(&[
        "verify",
        s(&out.join("audit.payload.json")),
        "--packs",
        s(&out),
        "--json",
    ]));
    assert_eq!(verified["report_hash"], clean["report_hash"]);
    assert_ne!(verified["verdict"], "REJECTED");
}

/// 12 entities × 3 rows with a text category, a numeric feature, an unusable id-like text
/// column and a column with missing cells; entity ids in the file as given.
fn small_csv(ids: &[&str]) -> String {
    let mut csv = String::from("pid,t,y,arm,x,note,lab\n");
    for (e, id) in ids.iter().enumerate() {
        for t in 0..3 {
            let arm = ["A", "B", "C"][e % 3];
            // Not a function of (arm, t) alone (e / 3 varies within an arm): a pair of
            // columns that determines the label is a suspect of its own.
            let y = if (e + t + e / 3) % 3 == 0 {
                "yes"
            } else {
                "no"
            };
            let lab = if e == 2 && t == 1 {
                "NA".to_string()
            } else {
                format!("{}", e * 3 + t)
            };
            csv += &format!(
                "{id},{t},{y},{arm},{}.5,n{e}-{t},{lab}\n",
                (e * 7 + t * 3) % 11
            );
        }
    }
    csv
}

fn ids(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("p{:02}", i + 1)).collect()
}

/// The roles of `small_csv`'s columns, as flags.
const ROLES: [&str; 6] = ["--entity", "pid", "--label", "y", "--positive", "yes"];

/// `small_csv` of patients p01…p12.
fn trial_csv() -> String {
    let id_list = ids(12);
    small_csv(&id_list.iter().map(String::as_str).collect::<Vec<_>>())
}

/// Writes `csv` as `<name>.csv` and runs `init` on it (entity pid, label y, positive yes,
/// then `flags`) into `<dir>/<name>`: the data file, the pack folder and init's output.
fn init_csv(dir: &TempDir, name: &str, csv: &str, flags: &[&str]) -> (PathBuf, PathBuf, Output) {
    let data = write(dir, &format!("{name}.csv"), csv);
    let out = dir.path().join(name);
    let mut args = vec!["init", s(&data)];
    args.extend(ROLES);
    args.extend(flags);
    args.extend(["--out", s(&out)]);
    let output = run(&args);
    (data, out, output)
}

#[test]
fn init_types_every_column_and_says_why_it_left_one_out() {
    let dir = TempDir::new("byod-init");
    let (data, out, init) = init_csv(&dir, "trial", &trial_csv(), &["--time", "t"]);
    assert_eq!(init.status.code(), Some(0), "{}", text(&init));
    let manifest = std::fs::read_to_string(out.join("pack.toml")).unwrap();
    // arm: 3 text levels → categorical; x → numeric; note: a distinct text per row → not
    // used (an identifier); lab has an NA → not used, with the row.
    for expected in [
        "features = [\n  \"arm\",\n  \"x\",\n]",
        "arm = [\"A\", \"B\", \"C\"]",
        "#   note: text with 36 distinct values in 36 rows",
        "#   lab: 1 of 36 cells are missing (first: row 8, \\\"NA\\\")",
    ] {
        assert!(manifest.contains(expected), "{expected}:\n{manifest}");
    }
    // init never overwrites.
    let flags = [&ROLES[..], &["--out"]].concat();
    let again = run(&[&["init", s(&data)][..], &flags, &[s(&out)]].concat());
    assert_eq!(again.status.code(), Some(2), "{}", text(&again));
    assert!(
        text(&again).contains("not an empty folder"),
        "{}",
        text(&again)
    );

    // A positive level that no row has: named, with the levels seen.
    let wrong_out = dir.path().join("wrong");
    let mut wrong_flags = flags.clone();
    wrong_flags[5] = "Yes";
    let wrong = run(&[&["init", s(&data)][..], &wrong_flags, &[s(&wrong_out)]].concat());
    assert_eq!(wrong.status.code(), Some(1), "{}", text(&wrong));
    let message = text(&wrong);
    let expected =
        "no label is the positive level \"Yes\" (a level differs only in case or spaces)";
    assert!(message.contains(expected), "{message}");
    assert!(message.contains("\"no\" × 24, \"yes\" × 12"), "{message}");
}

#[test]
fn pack_check_finds_ids_that_collide_and_labels_with_three_levels() {
    let dir = TempDir::new("byod-check");
    let mut id_list = ids(12);
    id_list[3] = "p1".into(); // "p01" and "p1": one patient written two ways
    id_list[5] = " P06".into(); // a stray space and upper case, but no twin: not a finding
    let id_refs: Vec<&str> = id_list.iter().map(String::as_str).collect();
    let (_, out, init) = init_csv(&dir, "trial", &small_csv(&id_refs), &[]);
    assert_eq!(init.status.code(), Some(0), "{}", text(&init));
    let warning = "warning: 1 groups of entity ids";
    assert!(text(&init).contains(warning), "{}", text(&init));
    let check = run(&["pack", "check", s(&out), "--json"]);
    assert_eq!(check.status.code(), Some(1), "{}", text(&check));
    let check = json(&check);
    assert_eq!(check["entity_collisions"]["count"], 1);
    let first = serde_json::json!([["p01", "p1"]]);
    assert_eq!(check["entity_collisions"]["first"], first);
    // `run` prints the same finding as a warning and still runs.
    let experiment = out.join("experiments/random-vs-grouped.json");
    let ran = run(&["run", s(&experiment), "--packs", s(&out)]);
    assert_eq!(ran.status.code(), Some(0), "{}", text(&ran));
    assert!(String::from_utf8_lossy(&ran.stderr).contains(warning));

    // Three label levels: init declares one-vs-rest and says so; without the line, the
    // pack does not load and the error names the levels.
    let three = small_csv(&id_refs).replacen("p02,1,no", "p02,1,maybe", 1);
    let (_, out, init) = init_csv(&dir, "three", &three, &[]);
    assert_eq!(init.status.code(), Some(0), "{}", text(&init));
    assert!(
        text(&init).contains("the label has 3 levels"),
        "{}",
        text(&init)
    );
    let manifest = std::fs::read_to_string(out.join("pack.toml")).unwrap();
    assert!(manifest.contains("one_vs_rest = true"));
    let without = manifest.replace("one_vs_rest = true\n", "");
    std::fs::write(out.join("pack.toml"), without).unwrap();
    let check = run(&["pack", "check", s(&out)]);
    assert_eq!(check.status.code(), Some(1), "{}", text(&check));
    let expected = "the label has 3 levels (\"maybe\" × 1, \"no\" × 23, \"yes\" × 12), not two";
    assert!(text(&check).contains(expected), "{}", text(&check));
}

#[test]
fn rehash_records_an_edited_fixture_and_its_new_levels() {
    let dir = TempDir::new("byod-rehash");
    let (_, out, init) = init_csv(&dir, "trial", &trial_csv(), &[]);
    assert_eq!(init.status.code(), Some(0), "{}", text(&init));
    // Edit: a new arm level "D" in one row; a comment added to pack.toml by hand.
    let csv_path = out.join("trial.csv");
    let edited = std::fs::read_to_string(&csv_path)
        .unwrap()
        .replacen(",A,", ",D,", 1);
    std::fs::write(&csv_path, &edited).unwrap();
    let manifest = std::fs::read_to_string(out.join("pack.toml")).unwrap();
    std::fs::write(out.join("pack.toml"), format!("# my note\n{manifest}")).unwrap();
    let check = run(&["pack", "check", s(&out)]);
    assert_eq!(check.status.code(), Some(1));
    assert!(
        text(&check).contains("counterlab pack rehash"),
        "{}",
        text(&check)
    );

    let rehash = run(&["pack", "rehash", s(&out)]);
    assert_eq!(rehash.status.code(), Some(0), "{}", text(&rehash));
    let changed = "levels of arm: added [\"D\"], removed []";
    assert!(text(&rehash).contains(changed), "{}", text(&rehash));
    let manifest = std::fs::read_to_string(out.join("pack.toml")).unwrap();
    assert!(
        manifest.starts_with("# my note\n"),
        "comments are kept: {manifest}"
    );
    assert!(manifest.contains(&blake3::hash(edited.as_bytes()).to_hex().to_string()));
    assert!(
        manifest.contains("arm = [\"A\", \"B\", \"C\", \"D\"]"),
        "{manifest}"
    );
    assert_eq!(run(&["pack", "check", s(&out)]).status.code(), Some(0));
    // Nothing to do the second time.
    assert!(text(&run(&["pack", "rehash", s(&out)])).contains("already records"));
}

#[test]
fn a_level_not_recorded_is_a_load_error_naming_row_column_and_value() {
    let dir = TempDir::new("byod-level");
    let (_, out, init) = init_csv(&dir, "trial", &trial_csv(), &[]);
    assert_eq!(init.status.code(), Some(0), "{}", text(&init));
    let csv_path = out.join("trial.csv");
    // Row 4 (p02, t 0) is arm "B"; write "b" instead and re-record only the hash.
    let original = std::fs::read_to_string(&csv_path).unwrap();
    let edited = original.replacen("p02,0,no,B", "p02,0,no,b", 1);
    assert_ne!(edited, original);
    std::fs::write(&csv_path, &edited).unwrap();
    let manifest = std::fs::read_to_string(out.join("pack.toml")).unwrap();
    let old = manifest
        .lines()
        .find(|l| l.starts_with("blake3 = "))
        .unwrap();
    let new = format!("blake3 = \"{}\"", blake3::hash(edited.as_bytes()).to_hex());
    std::fs::write(out.join("pack.toml"), manifest.replace(old, &new)).unwrap();
    let check = run(&["pack", "check", s(&out)]);
    assert_eq!(check.status.code(), Some(1));
    let message = text(&check);
    for expected in [
        "row 4, column \"arm\"",
        "\"b\" is not a recorded level of this categorical column (data.levels.arm in pack.toml: \"A\", \"B\", \"C\")",
        "how to fix:",
    ] {
        assert!(message.contains(expected), "{expected}: {message}");
    }
}

#[test]
fn dropping_a_categorical_feature_drops_all_its_one_hot_columns() {
    let dir = TempDir::new("byod-drop");
    let (_, out, init) = init_csv(&dir, "trial", &trial_csv(), &["--time", "t"]);
    assert_eq!(init.status.code(), Some(0), "{}", text(&init));
    // Time may be a feature too (listed in data.features by hand: init leaves it a role);
    // an ablation drops a categorical source column.
    let manifest = std::fs::read_to_string(out.join("pack.toml")).unwrap();
    let listed = "features = [\n  \"arm\",\n  \"x\",\n]";
    assert!(manifest.contains(listed), "{manifest}");
    let with_time = manifest.replace(listed, "features = [\"arm\", \"x\", \"t\"]");
    std::fs::write(out.join("pack.toml"), with_time).unwrap();
    let experiment = serde_json::json!({
        "format": "counterlab.experiment/1", "pack": "trial", "seed": 3,
        "model": {"kind": "logistic", "c": 1.0},
        "features": ["arm", "x", "t"],
        "arms": [{"name": "grouped", "split": {"kind": "entity_grouped", "test_fraction": 0.25}}],
        "ablations": [{"name": "identity", "drop": []}, {"name": "no_arm", "drop": ["arm"]}],
        "metrics": ["roc_auc"]
    });
    let path = dir.path().join("e.json");
    std::fs::write(&path, experiment.to_string()).unwrap();
    let payload_path = dir.path().join("p.json");
    let ran = run(&[
        "run",
        s(&path),
        "--packs",
        s(&out),
        "--out",
        s(&payload_path),
    ]);
    assert_eq!(ran.status.code(), Some(0), "{}", text(&ran));
    let payload: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&payload_path).unwrap()).unwrap();
    let arm = &payload["results"]["grouped"];
    let names: Vec<&String> = arm["model"]["coefficients"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(names, ["arm=A", "arm=B", "arm=C", "t", "x"]);
    assert_eq!(arm["ablations"]["identity"]["changed_scores"], 0);
    assert_eq!(
        arm["ablations"]["no_arm"]["drop"],
        serde_json::json!(["arm"])
    );
    let verify = [
        "verify",
        s(&payload_path),
        "--packs",
        s(&out),
        "--json",
        "--permutations",
        "19",
    ];
    let verified = json(&run(&verify));
    let checks = verified["checks"].as_array().unwrap();
    let identity = checks
        .iter()
        .find(|c| c["id"] == "ablation.identity")
        .unwrap();
    assert_eq!(identity["status"], "pass", "{verified}");
}

#[test]
fn a_predefined_column_written_as_floats_says_how_to_fix() {
    let dir = TempDir::new("byod-float");
    let mut csv = String::new();
    for (i, line) in trial_csv().lines().enumerate() {
        let flag = match i {
            0 => "is_test".to_string(),
            _ => format!("{}.0", u8::from(i % 4 == 0)),
        };
        csv += &format!("{line},{flag}\n");
    }
    let data = write(&dir, "trial.csv", &csv);
    let test = ["--test-column", "is_test"];
    let audit = run(&[&["audit", s(&data)][..], &ROLES, &test].concat());
    assert_eq!(audit.status.code(), Some(2), "{}", text(&audit));
    for expected in [
        "trial.csv, column \"is_test\": column \"is_test\", row ",
        ": expected 0/1 or false/true, found \"0.0\": a 0/1 column written as floats; write it as integers",
    ] {
        assert!(text(&audit).contains(expected), "{expected}: {}", text(&audit));
    }
}

/// Positives only from time 5 on (a launch before which nothing happens): every rolling
/// origin over the 12 times trains its first fold on negatives alone, so init writes no
/// rolling-origin starter and says why, and the starter it writes runs.
#[test]
fn init_writes_no_rolling_origin_starter_whose_first_fold_trains_on_one_class() {
    let dir = TempDir::new("byod-late-events");
    let mut csv = String::from("pid,t,y,x\n");
    for e in 0..40 {
        for t in 1..=12 {
            let y = if t >= 5 && (e + t) % 4 == 0 {
                "yes"
            } else {
                "no"
            };
            csv += &format!("p{e:02},{t},{y},{}.5\n", (e * 7 + t * 3) % 11);
        }
    }
    // Read as calendar time on purpose (every entity starts at 1, so init would guess an
    // order within each entity and write no rolling-origin starter at all).
    let (_, out, init) = init_csv(
        &dir,
        "late",
        &csv,
        &["--time", "t", "--time-kind", "calendar"],
    );
    assert_eq!(init.status.code(), Some(0), "{}", text(&init));
    assert!(
        text(&init).contains("no rolling-origin starter")
            && text(&init).contains("holding both classes"),
        "{}",
        text(&init)
    );
    let experiments = out.join("experiments");
    assert!(!experiments.join("random-vs-rolling-origin.json").exists());
    assert!(!experiments
        .join("random-vs-rolling-origin-no-material-gap.json")
        .exists());
    let starter = experiments.join("random-vs-grouped.json");
    let ran = run(&["run", s(&starter), "--packs", s(&out)]);
    assert_eq!(ran.status.code(), Some(0), "{}", text(&ran));
}

/// Every positive row in one patient: the entity fold that tests that patient trains on
/// negatives alone, so the grouped starter is not written, and init says why.
#[test]
fn init_writes_no_grouped_starter_whose_fold_trains_on_one_class() {
    let dir = TempDir::new("byod-one-positive-entity");
    let mut csv = String::from("pid,t,y,x\n");
    for e in 0..12 {
        for t in 0..4 {
            let y = if e == 0 && t % 2 == 0 { "yes" } else { "no" };
            csv += &format!("p{e:02},{t},{y},{}.5\n", (e * 7 + t * 3) % 11);
        }
    }
    let (_, out, init) = init_csv(&dir, "clustered", &csv, &[]);
    assert_eq!(init.status.code(), Some(0), "{}", text(&init));
    assert!(
        text(&init).contains(
            "random-vs-grouped.json not written: one of its folds would train on one class only"
        ),
        "{}",
        text(&init)
    );
    assert!(!out.join("experiments/random-vs-grouped.json").exists());
}

/// No raw control character but the line breaks a message is laid out with.
fn assert_only_line_breaks(stderr: &str) {
    assert!(
        !stderr.contains("\\u{a}")
            && !stderr
                .chars()
                .any(|c| c.is_control() && c != '\n' || c == '\u{202e}'),
        "{stderr:?}"
    );
}

/// A message laid out as lines (a list, a hint under an error) keeps its line breaks on
/// the terminal, while a newline, an ESC or a bidi override that came from the data (a
/// column name, a cell) stays escaped: `init` and `pack rehash`.
#[test]
fn multi_line_errors_keep_their_line_breaks_and_escape_the_data() {
    let dir = TempDir::new("byod-lines");
    // The only candidate feature, named with an ESC sequence and a newline, is constant.
    let mut csv = String::from("pid,y,\"bad\u{1b}[31m\nname\"\n");
    for i in 0..24 {
        csv += &format!("p{},{},1\n", i % 8, if i % 3 == 0 { "yes" } else { "no" });
    }
    let (_, _, init) = init_csv(&dir, "nameless", &csv, &[]);
    assert_eq!(init.status.code(), Some(1), "{}", text(&init));
    let stderr = String::from_utf8_lossy(&init.stderr).into_owned();
    assert_eq!(
        stderr.lines().collect::<Vec<_>>(),
        [
            "error: no column can be a feature (every column but the roles is unusable or left out):",
            "  \"bad\\u{1b}[31m\\nname\": constant: every row is \"1\"",
        ],
        "{stderr:?}"
    );
    assert_only_line_breaks(&stderr);

    // Two cells of the numeric feature x edited into text, one with an ESC sequence and a
    // bidi override: the error names the first, then lists both, then says how to fix.
    let (_, out, init) = init_csv(&dir, "trial", &trial_csv(), &[]);
    assert_eq!(init.status.code(), Some(0), "{}", text(&init));
    let csv_path = out.join("trial.csv");
    let original = std::fs::read_to_string(&csv_path).unwrap();
    let mut lines: Vec<String> = original.lines().map(str::to_owned).collect();
    let x = lines[0].split(',').position(|c| c == "x").unwrap();
    for (row, cell) in [(1, "oops\u{1b}[2K\u{202e}"), (2, "n/a")] {
        let mut cells: Vec<&str> = lines[row].split(',').collect();
        cells[x] = cell;
        lines[row] = cells.join(",");
    }
    std::fs::write(&csv_path, lines.join("\n") + "\n").unwrap();
    // (`pack check` stops at the changed hash; `rehash` reads the cells.)
    let command = "rehash";
    let o = run(&["pack", command, s(&out)]);
    assert_eq!(o.status.code(), Some(1), "{command}: {}", text(&o));
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_only_line_breaks(&stderr);
    let printed: Vec<&str> = stderr.lines().collect();
    assert!(printed.len() >= 4, "{command}: {stderr}");
    assert!(
        printed[0].contains("row 1, column \"x\"")
            && printed[0].contains("\"oops\\u{1b}[2K\\u{202e}\""),
        "{command}: {stderr}"
    );
    assert!(
        printed
            .iter()
            .any(|l| l.starts_with("  row 2, column \"x\"")),
        "{command}: {stderr}"
    );
    assert!(
        printed.iter().any(|l| l.starts_with("how to fix: ")),
        "{command}: {stderr}"
    );
}

/// `audit --margin` decides materiality by the verifier's interval and `--seed` draws the
/// grouped comparison: a random row split of entity-leakage's customers (the headline leak,
/// AUC inflated by about 0.25, docs/CALIBRATION.md) is a material leak at 0.02 and not
/// material at 0.9 (an interval of an AUC gap lies below 0.9 unless the gap nears 1);
/// the decision's payload verifies to the same report; another seed draws other folds.
#[test]
fn audit_margin_decides_materiality_with_the_verifier() {
    let dir = TempDir::new("audit-margin");
    let source = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/packs/entity-leakage/customer_churn.csv"),
    )
    .unwrap();
    // Every fourth row of the file in test: every customer on both sides.
    let mut csv = String::new();
    for (i, line) in source.lines().enumerate() {
        let mark = if i == 0 {
            "is_test"
        } else if i % 4 == 0 {
            "1"
        } else {
            "0"
        };
        csv.push_str(&format!("{line},{mark}\n"));
    }
    let path = dir.path().join("churn.csv");
    std::fs::write(&path, csv).unwrap();
    let base = [
        "audit",
        s(&path),
        "--entity",
        "customer_id",
        "--label",
        "churned",
        "--positive",
        "1",
        "--test-column",
        "is_test",
    ];
    let audit = |extra: &[&str], out: Option<&std::path::Path>| {
        let mut args = base.to_vec();
        args.push("--json");
        args.extend_from_slice(extra);
        if let Some(out) = out {
            args.extend(["--out", s(out)]);
        }
        json(&run(&args))
    };
    let out = dir.path().join("material");
    let material = audit(&["--margin", "0.02"], Some(&out));
    assert_eq!(material["auc"]["margin"], 0.02);
    assert_eq!(material["auc"]["decision"], "material_leak", "{material}");
    assert!(material["auc"]["ci"][0].as_f64().unwrap() > 0.02);
    assert_eq!(material["auc"]["entity_grouped_repeats"], 5);
    assert_eq!(
        material["auc"]["entity_grouped_folds"], 4,
        "a test share of 1/4"
    );
    let verified = json(&run(&[
        "verify",
        s(&out.join("audit.payload.json")),
        "--packs",
        s(&out),
        "--json",
    ]));
    assert_eq!(verified["report_hash"], material["report_hash"]);
    assert_eq!(verified["claim"]["bound"], "at_most");

    // A margin above the materiality ceiling of ROC AUC (0.1) would make "no material
    // leak" vacuous (docs/VERDICTS.md, "Material margins"): refused before anything runs,
    // with the flag and why (until issue 42 `--margin 0.9` was "no material leak" here).
    let wide = run(&[&base[..], &["--margin", "0.9"]].concat());
    assert_eq!(wide.status.code(), Some(2));
    assert!(
        text(&wide).contains("--margin 0.9 is above the materiality ceiling 0.1 of ROC AUC"),
        "{}",
        text(&wide)
    );
    let plain = audit(&[], None);
    assert!(plain["auc"].get("decision").is_none());
    assert_eq!(plain["auc"]["seed"], 1);
    let other = audit(&["--seed", "2"], None);
    assert_eq!(other["auc"]["seed"], 2);
    assert_ne!(
        other["auc"]["entity_grouped"],
        plain["auc"]["entity_grouped"]
    );
    assert_eq!(other["auc"]["your_split"], plain["auc"]["your_split"]);
    let refused = run(&[&base[..], &["--margin", "1.5"]].concat());
    assert_eq!(refused.status.code(), Some(2));
    assert!(text(&refused).contains("--margin"), "{}", text(&refused));
}

/// `audit`'s exit code follows every leak it prints (issue 46.3). The test side is 120
/// rows of entity-leakage's training rows re-keyed to new customer ids (`C0001` → `T0001Z`,
/// no look-alike): exact copies are 120 duplicate feature rows where no training row shares
/// its 28 continuous values with another customer's (counted here over the CSV text), so a
/// leak, exit 1; copies with one cell moved by 1e-9 have no duplicate, but with `--margin
/// 0.02` the verifier's interval of the inflation lies wholly above the margin, a material
/// leak, exit 1 (without a margin: no leak found, exit 0). An honest row-wise split of
/// contraception (one row per woman, three coarse features: 471 of 484 test rows repeat a
/// training vector) stays no leak, exit 0
/// (`contraception_reads_3_plus_as_a_level_and_offers_the_district_as_an_entity`).
#[test]
fn audit_exit_follows_copied_rows_and_a_material_leak() {
    let dir = TempDir::new("audit-copies");
    let source = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/packs/entity-leakage/customer_churn.csv"),
    )
    .unwrap();
    let mut lines = source.lines();
    let header = lines.next().unwrap();
    let rows: Vec<&str> = lines.collect();
    // Independent: no two customers share a feature vector (columns 2.. but the label).
    let vectors: BTreeMap<&str, BTreeSet<&str>> = rows.iter().fold(BTreeMap::new(), |mut m, r| {
        let (id, rest) = r.split_once(',').unwrap();
        let (_month, rest) = rest.split_once(',').unwrap();
        let features = &rest[..rest.rfind(',').unwrap()];
        m.entry(features).or_insert_with(BTreeSet::new).insert(id);
        m
    });
    assert!(vectors.values().all(|ids| ids.len() == 1));
    let csv = |jitter: bool| {
        let mut csv = format!("{header},is_test\n");
        for row in &rows {
            csv.push_str(&format!("{row},0\n"));
        }
        for row in rows.iter().step_by(14).take(120) {
            let mut cells: Vec<String> = row.split(',').map(str::to_owned).collect();
            cells[0] = format!("T{}Z", &cells[0][1..]);
            if jitter {
                let charges: f64 = cells[3].parse().unwrap();
                cells[3] = format!("{}", charges + 1e-9);
            }
            csv.push_str(&format!("{},1\n", cells.join(",")));
        }
        csv
    };
    let base = |path: &Path| {
        vec![
            "audit".to_owned(),
            s(path).to_owned(),
            "--entity".into(),
            "customer_id".into(),
            "--label".into(),
            "churned".into(),
            "--positive".into(),
            "1".into(),
            "--test-column".into(),
            "is_test".into(),
        ]
    };
    let audit = |path: &Path, extra: &[&str]| {
        let mut args = base(path);
        args.extend(extra.iter().map(|a| (*a).to_owned()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        run(&args)
    };

    let copies = dir.path().join("copies.csv");
    std::fs::write(&copies, csv(false)).unwrap();
    let out = audit(&copies, &["--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let got = json(&out);
    assert_eq!(got["shared_entities"]["count"], 0);
    assert_eq!(got["look_alike_entities"]["count"], 0);
    assert_eq!(got["duplicate_feature_rows"], 120);
    assert_eq!(got["leak"], true);
    assert!(
        got["leak_reasons"][0]
            .as_str()
            .unwrap()
            .starts_with("120 test rows have the feature vector of a training row"),
        "{got}"
    );
    let printed = audit(&copies, &[]);
    assert_eq!(printed.status.code(), Some(1));
    assert!(
        text(&printed).contains("leak              yes: 120 test rows"),
        "{}",
        text(&printed)
    );

    let jittered = dir.path().join("jitter.csv");
    std::fs::write(&jittered, csv(true)).unwrap();
    let plain = audit(&jittered, &["--json"]);
    assert_eq!(plain.status.code(), Some(0), "{}", text(&plain));
    assert_eq!(json(&plain)["duplicate_feature_rows"], 0);
    let material = audit(&jittered, &["--margin", "0.02", "--json"]);
    assert_eq!(material.status.code(), Some(1), "{}", text(&material));
    let got = json(&material);
    assert_eq!(got["auc"]["decision"], "material_leak", "{got}");
    assert_eq!(got["leak"], true);
    assert!(
        got["leak_reasons"][0]
            .as_str()
            .unwrap()
            .starts_with("material leak: the split inflates ROC AUC by"),
        "{got}"
    );
    let printed = audit(&jittered, &["--margin", "0.02"]);
    assert_eq!(printed.status.code(), Some(1));
    assert!(
        text(&printed).contains("leak              yes: material leak"),
        "{}",
        text(&printed)
    );
}

/// The independent facts of the real datasets (`tests/data/real/expectations.py`:
/// pandas and scikit-learn straight from the CSV text).
fn expectations(name: &str) -> serde_json::Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/real/expectations.json");
    let all: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    all["datasets"][name].clone()
}

/// Rows of a real CSV with a 0/1 test column added by `is_test(row index, row)`.
fn with_test_column(
    dir: &TempDir,
    name: &str,
    is_test: impl Fn(usize, &BTreeMap<String, String>) -> bool,
) -> (PathBuf, Vec<BTreeMap<String, String>>) {
    let mut table = rows(&real(name));
    for (i, row) in table.iter_mut().enumerate() {
        let test = u8::from(is_test(i, row));
        row.insert("is_test".into(), test.to_string());
    }
    let path = dir.path().join(format!("{name}_split.csv"));
    write_rows(&path, &table);
    (path, table)
}

/// Distinct values of `column` with rows on both sides of the split (an independent count).
fn shared_values(table: &[BTreeMap<String, String>], column: &str) -> usize {
    let mut sides: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for row in table {
        sides
            .entry(&row[column])
            .or_default()
            .insert(&row["is_test"]);
    }
    sides.values().filter(|s| s.len() == 2).count()
}

#[test]
fn verbagg_leaves_its_label_proxy_out_and_audits_persons_and_items() {
    // lme4::VerbAgg: 316 persons crossed with 24 items; r2 ("Y"/"N") is derived from the
    // 3-level response resp, so every level of resp has rows of one label only.
    let facts = expectations("verbagg");
    let resp = &facts["entities"]["id"]["columns"]["resp"];
    assert_eq!(resp["levels_map_onto_label"], true);
    let dir = TempDir::new("byod-verbagg");
    let flags = ["--entity", "id", "--label", "r2", "--positive", "Y"];
    let (pack, reports) = init_check_run_verify(&dir, &real("verbagg"), &flags);
    assert_eq!(reports.len(), 2, "random-vs-grouped and its sibling");
    let manifest = std::fs::read_to_string(pack.join("pack.toml")).unwrap();
    assert!(
        manifest
            .contains("#   resp: a label proxy: each of its 3 values has rows of one label only"),
        "{manifest}"
    );
    // Every other column is a feature; the text ones categorical, their levels as written.
    let check = json(&run(&["pack", "check", s(&pack), "--json"]));
    assert_eq!(check["rows"], facts["rows"]);
    assert_eq!(
        check["entities"],
        facts["entities"]["id"]["distinct_entities"]
    );
    let labels = &facts["label_counts"];
    assert_eq!(
        check["labels"],
        serde_json::json!([{"level": "N", "count": labels["N"]}, {"level": "Y", "count": labels["Y"]}])
    );
    let pack_toml: toml::Value = manifest.parse().unwrap();
    let features: Vec<&str> = pack_toml["data"]["features"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    assert_eq!(
        features,
        ["Anger", "Gender", "item", "btype", "situ", "mode"]
    );
    // 7,584 rows × 5 repeats: more work than the default budget, so init declares the
    // pack's own, and the printed verify command needs no flag.
    let declared = pack_toml["verify"]["max_work"].as_integer().unwrap();
    assert!(declared > 10_000_000_000, "{declared}");
    let verified = json(&run(&[
        "verify",
        s(&dir.path().join("random-vs-grouped.payload.json")),
        "--packs",
        s(&pack),
        "--json",
    ]));
    let budget = verified["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "budget.work")
        .unwrap();
    assert_eq!(budget["status"], "pass", "{verified}");
    // Each budget is its own: an explicit design budget (here too small, so nothing is
    // fitted) replaces the pack's design budget and leaves its work budget in force.
    let capped = json(&run(&[
        "verify",
        s(&dir.path().join("random-vs-grouped.payload.json")),
        "--packs",
        s(&pack),
        "--max-design-bytes",
        "1",
        "--json",
    ]));
    let reason = capped["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "budget.work")
        .and_then(|c| c["reason"].as_str())
        .unwrap();
    assert!(
        reason.contains("bytes of prepared designs needed by the budget rule, over the budget of 1 (the options)"),
        "{reason}"
    );

    // A split of whole persons: no person on both sides, but every item is (persons are
    // crossed with items), which `--entity id,item` reports at the item level.
    let (split, table) = with_test_column(&dir, "verbagg", |_, row| {
        row["id"].parse::<u32>().unwrap() % 4 == 0
    });
    let audit = run(&[
        "audit",
        s(&split),
        "--entity",
        "id,item",
        "--label",
        "r2",
        "--positive",
        "Y",
        "--test-column",
        "is_test",
        "--json",
    ]);
    assert_eq!(audit.status.code(), Some(1), "{}", text(&audit));
    let audit = json(&audit);
    assert_eq!(audit["entity"], "id");
    assert_eq!(audit["shared_entities"]["count"], 0);
    // The split CSV's columns are in byte order (write_rows): the pack's features but the
    // entity columns audited (item), which no level reads.
    let mut listed: Vec<&str> = audit["features"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    listed.sort_unstable();
    let mut expected: Vec<&str> = features.iter().copied().filter(|f| *f != "item").collect();
    expected.sort_unstable();
    assert_eq!(listed, expected);
    let items = &audit["further_entities"][0];
    assert_eq!(items["entity"], "item");
    assert_eq!(
        items["features"], audit["features"],
        "every level reads the same columns"
    );
    assert_eq!(
        items["shared_entities"]["count"],
        shared_values(&table, "item") as u64
    );
    assert_eq!(items["shared_entities"]["count"], 24);
    assert_eq!(audit["leak"], true);
    assert_eq!(
        audit["leak_reasons"][0],
        "grouped by \"item\": 24 test entities also have training rows"
    );
}

#[test]
fn contraception_reads_3_plus_as_a_level_and_offers_the_district_as_an_entity() {
    // mlmRev::Contraception: one row per woman, women nested in 60 districts (numbered
    // 1..61, no 54); livch is "0", "1", "2" or "3+".
    let facts = expectations("contraception");
    assert_eq!(facts["column_kinds"]["livch"]["distinct"], 4);
    assert_eq!(facts["column_kinds"]["livch"]["numeric"], false);
    let district = &facts["entities"]["woman"]["columns"]["district"];
    assert_eq!(district["constant_within_entity"], true);
    assert_eq!(district["distinct"], 60);
    let dir = TempDir::new("byod-contraception");
    let flags = ["--entity", "woman", "--label", "use", "--positive", "Y"];
    let (pack, reports) = init_check_run_verify(&dir, &real("contraception"), &flags);
    assert_eq!(reports.len(), 2);
    let manifest = std::fs::read_to_string(pack.join("pack.toml")).unwrap();
    assert!(
        manifest.contains("livch = [\"0\", \"1\", \"2\", \"3+\"]"),
        "{manifest}"
    );
    assert!(
        manifest.contains("#   district: a coarser level (or an id that restarts within one): each of the 1934 entities has one of its 60 values"),
        "{manifest}"
    );
    let check = json(&run(&["pack", "check", s(&pack), "--json"]));
    assert_eq!(check["rows"], facts["rows"]);
    assert_eq!(check["entities"], facts["rows"], "one row per woman");
    let coarser: Vec<&serde_json::Value> = check["suspect_columns"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["kind"] == "coarser_level")
        .collect();
    assert_eq!(coarser.len(), 1, "{check}");
    assert_eq!(coarser[0]["column"], "district");
    assert_eq!(coarser[0]["groups"], 60);

    // A row-wise split shares no woman but nearly every district: grouped by the woman
    // the audit finds nothing, grouped by the district as well it finds the leak.
    let (split, table) = with_test_column(&dir, "contraception", |i, _| i % 4 == 0);
    let common = [
        "--label",
        "use",
        "--positive",
        "Y",
        "--test-column",
        "is_test",
        "--json",
    ];
    let by_woman = run(&[&["audit", s(&split), "--entity", "woman"][..], &common].concat());
    assert_eq!(by_woman.status.code(), Some(0), "{}", text(&by_woman));
    let by_woman = json(&by_woman);
    assert_eq!(by_woman["leak"], false);
    assert_eq!(by_woman["coarser_levels"], serde_json::json!(["district"]));
    let both = run(&[
        &["audit", s(&split), "--entity", "woman,district"][..],
        &common,
    ]
    .concat());
    assert_eq!(both.status.code(), Some(1), "{}", text(&both));
    let both = json(&both);
    let districts = &both["further_entities"][0];
    assert_eq!(districts["entity"], "district");
    assert_eq!(
        districts["shared_entities"]["count"],
        shared_values(&table, "district") as u64
    );
    assert!(districts["auc"]["gap"].is_number(), "{districts}");
}

/// A small medication table written out here: 40 patients of 3 visits, `med` one of
/// `none` (no medication, a real level), `aspirin`, `ibuprofen`; `dose` and `score` numeric.
fn medication_csv(dir: &TempDir, name: &str, edit: impl Fn(usize, &mut Vec<String>)) -> PathBuf {
    let mut csv = String::from("patient,med,dose,score,y\n");
    let meds = ["none", "aspirin", "ibuprofen"];
    for row in 0..120usize {
        let patient = row / 3 + 1;
        let mut cells = vec![
            patient.to_string(),
            meds[(row * 7 + patient) % 3].to_owned(),
            ((row * 5) % 9 + 1).to_string(),
            format!("{:.3}", ((row * 37) % 101) as f64 / 50.0 - 1.0),
            if (row * 11 + patient) % 5 < 2 {
                "1"
            } else {
                "0"
            }
            .to_owned(),
        ];
        edit(row + 1, &mut cells);
        csv.push_str(&cells.join(","));
        csv.push('\n');
    }
    write(dir, name, &csv)
}

/// `none` is a level ("no medication"), not a missing value (issue 46.8): `init` makes
/// `med` a categorical feature with the level `none`; `--missing-values NA,none` reads it
/// as missing, and the reason names the text it took (`"none"`) and the list. `audit`
/// takes the same flag.
#[test]
fn init_reads_none_as_a_level_unless_missing_values_names_it() {
    let dir = TempDir::new("missing-values");
    let data = medication_csv(&dir, "meds.csv", |_, _| {});
    let roles = ["--entity", "patient", "--label", "y", "--positive", "1"];
    let out = dir.path().join("default");
    let init = run(&[&["init", s(&data)][..], &roles, &["--out", s(&out)]].concat());
    assert_eq!(init.status.code(), Some(0), "{}", text(&init));
    let said = text(&init);
    assert!(
        said.lines()
            .any(|l| l.contains("med") && l.contains("feature (categorical, 3 levels)")),
        "{said}"
    );
    let manifest = std::fs::read_to_string(out.join("pack.toml")).unwrap();
    assert!(
        manifest.contains(r#"med = ["aspirin", "ibuprofen", "none"]"#),
        "{manifest}"
    );

    let out = dir.path().join("none-missing");
    let init = run(&[
        &["init", s(&data)][..],
        &roles,
        &["--missing-values", "NA,none", "--out", s(&out)],
    ]
    .concat());
    assert_eq!(init.status.code(), Some(0), "{}", text(&init));
    let said = text(&init);
    // Rows 1..=120 with med = meds[(row·7 + patient) mod 3]: "none" at these rows.
    let none_rows: Vec<usize> = (0..120usize)
        .filter(|r| (r * 7 + r / 3 + 1) % 3 == 0)
        .map(|r| r + 1)
        .collect();
    let expected = format!(
        "not used: {} of 120 cells are missing (first: row {}, \"none\")",
        none_rows.len(),
        none_rows[0]
    );
    assert!(said.contains(&expected), "{expected}: {said}");
    assert!(
        said.contains(
            r#"read as missing: the empty cell, "NA", "none" (--missing-values sets the texts)"#
        ),
        "{said}"
    );

    let mut with_test = String::new();
    for (i, line) in std::fs::read_to_string(&data).unwrap().lines().enumerate() {
        let mark = if i == 0 {
            "is_test"
        } else if i % 4 == 0 {
            "1"
        } else {
            "0"
        };
        with_test.push_str(&format!("{line},{mark}\n"));
    }
    let split = write(&dir, "meds_split.csv", &with_test);
    let audit = run(&[
        &["audit", s(&split)][..],
        &roles,
        &[
            "--test-column",
            "is_test",
            "--missing-values",
            "NA,none",
            "--json",
        ],
    ]
    .concat());
    assert_eq!(audit.status.code(), Some(1), "{}", text(&audit));
    let features = json(&audit)["features"].clone();
    assert_eq!(features, serde_json::json!(["dose", "score"]));
}

/// A NUL byte in a numeric cell is refused with its row and column (issue 46.8): it made
/// the column text, a category, without a word.
#[test]
fn a_nul_byte_in_a_cell_is_refused_with_its_row_and_column() {
    let dir = TempDir::new("nul-cell");
    let data = medication_csv(&dir, "nul.csv", |row, cells| {
        if row == 5 {
            cells[2].push('\0');
        }
    });
    let init = run(&[
        "init",
        s(&data),
        "--entity",
        "patient",
        "--label",
        "y",
        "--positive",
        "1",
        "--out",
        s(&dir.path().join("pack")),
    ]);
    assert_eq!(init.status.code(), Some(1), "{}", text(&init));
    let said = text(&init);
    assert!(
        said.contains(r#"row 5, column "dose""#) && said.contains("NUL byte"),
        "{said}"
    );
    assert!(!dir.path().join("pack").exists());
}

/// Two `init`s of one CSV, logistic then `--model gbdt`, give two pack ids (`meds`,
/// `meds-gbdt`), so `packs` lists both; a third pack of an id already beside it is warned
/// of with a message that names `--id` (issue 46.8).
#[test]
fn init_gives_each_model_its_own_pack_id_and_warns_of_a_duplicate() {
    let dir = TempDir::new("init-ids");
    let data = medication_csv(&dir, "meds.csv", |_, _| {});
    let packs = dir.path().join("packs");
    std::fs::create_dir(&packs).unwrap();
    let init = |model: &str, out: &str| {
        run(&[
            "init",
            s(&data),
            "--entity",
            "patient",
            "--label",
            "y",
            "--positive",
            "1",
            "--model",
            model,
            "--out",
            s(&packs.join(out)),
        ])
    };
    assert_eq!(init("logistic", "a").status.code(), Some(0));
    let trees = init("gbdt", "b");
    assert_eq!(trees.status.code(), Some(0), "{}", text(&trees));
    assert!(
        text(&trees).starts_with("pack meds-gbdt"),
        "{}",
        text(&trees)
    );
    let listed = run(&["packs", "--packs", s(&packs)]);
    assert_eq!(listed.status.code(), Some(0), "{}", text(&listed));
    let ids: Vec<String> = text(&listed)
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .collect();
    assert_eq!(ids, ["meds", "meds-gbdt"]);

    // A third of one id beside them is written, with a warning that names `--id`.
    let again = init("logistic", "c");
    assert_eq!(again.status.code(), Some(0), "{}", text(&again));
    let warned = String::from_utf8_lossy(&again.stderr).into_owned();
    assert!(
        warned.contains(r#"pack.toml already has pack id "meds""#) && warned.contains("--id"),
        "{warned}"
    );
}

/// A survival follow-up panel: 40 patients, each seen at days 0, 30, 91, … since their
/// own enrolment (5 to 8 visits: follow-up ends at different days), and a headache diary:
/// 40 patients with days −14 … +k from their own treatment start (each starts 8 to 14
/// days before it). Neither is one calendar. The 0/1 `is_test` holds out whole patients
/// (every 4th).
fn relative_time_csv(diary: bool) -> String {
    let mut csv = String::from("pid,days,y,x,is_test\n");
    for p in 0..40 {
        let times: Vec<i64> = if diary {
            let start = -8 - (p % 7);
            (0..6).map(|i| start + 7 * i).collect()
        } else {
            [0, 30, 91, 182, 273, 365, 456, 547][..5 + (p % 4) as usize].to_vec()
        };
        for (i, t) in times.iter().enumerate() {
            csv += &format!(
                "p{p:02},{t},{},{}.5,{}\n",
                (p as usize + i) % 2,
                (p as usize * 3 + i * 5) % 11,
                u8::from(p % 4 == 0)
            );
        }
    }
    csv
}

/// Issue 46 item 6: a time column whose values restart in each patient (days since
/// enrolment) or count from each patient's own event (days from treatment start) is
/// guessed as an order within each entity, with the evidence printed: no rolling-origin
/// starter, and `audit --time` calls a split of whole patients no leak (exit 0).
/// `--time-kind calendar` still reads it as a calendar.
#[test]
fn days_since_each_patients_own_start_are_no_calendar() {
    let dir = TempDir::new("byod-relative-time");
    for (name, diary, evidence) in [
        (
            "survival",
            false,
            "from its values: 40 of the 40 entities start at 0, its smallest value",
        ),
        (
            "diary",
            true,
            "from its values: 40 of the 40 entities have values on both sides of 0",
        ),
    ] {
        let data = write(&dir, &format!("{name}.csv"), &relative_time_csv(diary));
        let out = dir.path().join(name);
        let init = run(&[
            "init",
            s(&data),
            "--entity",
            "pid",
            "--label",
            "y",
            "--positive",
            "1",
            "--time",
            "days",
            "--out",
            s(&out),
        ]);
        assert_eq!(init.status.code(), Some(0), "{}", text(&init));
        assert!(
            text(&init).contains(&format!(
                "time column \"days\" read as an order within each entity (time_kind = \"order_within_entity\"), {evidence}"
            )),
            "{}",
            text(&init)
        );
        let manifest = std::fs::read_to_string(out.join("pack.toml")).unwrap();
        assert!(
            manifest.contains("time_kind = \"order_within_entity\""),
            "{manifest}"
        );
        assert!(!out
            .join("experiments/random-vs-rolling-origin.json")
            .exists());

        let audit = |extra: &[&str]| {
            let mut args = vec![
                "audit",
                s(&data),
                "--entity",
                "pid",
                "--label",
                "y",
                "--positive",
                "1",
                "--test-column",
                "is_test",
                "--time",
                "days",
                "--json",
            ];
            args.extend(extra);
            run(&args)
        };
        let guessed = audit(&[]);
        assert_eq!(guessed.status.code(), Some(0), "{}", text(&guessed));
        let guessed = json(&guessed);
        assert_eq!(guessed["time_kind"], "order_within_entity", "{guessed}");
        assert_eq!(guessed["leak"], false, "{guessed}");
        let calendar = audit(&["--time-kind", "calendar"]);
        assert_eq!(calendar.status.code(), Some(1), "{}", text(&calendar));
    }
}

/// Issue 46 item 6: the temporal-overlap caveat counts distinct rows. Calendar months 1…6
/// for 30 entities, every entity at every month: in each fold of a 5-fold random-rows arm
/// some training row is at month 6, so every test row is at or before the latest training
/// time, and the caveat names each of the 180 rows once, not once per repeat (5 × 180).
#[test]
fn the_temporal_caveat_counts_each_row_once_over_repeats() {
    let dir = TempDir::new("byod-caveat-rows");
    let mut csv = String::from("pid,month,y,x\n");
    for e in 0..30 {
        for m in 1..=6 {
            let y = ["no", "yes"][(e + m) % 2];
            csv += &format!("p{e:02},{m},{y},{}.5\n", (e * 5 + m * 3) % 11);
        }
    }
    let (_, out, init) = init_csv(
        &dir,
        "months",
        &csv,
        &["--time", "month", "--time-kind", "calendar"],
    );
    assert_eq!(init.status.code(), Some(0), "{}", text(&init));
    let experiment = out.join("experiments/random-vs-rolling-origin.json");
    let payload = dir.path().join("rolling.payload.json");
    let ran = run(&[
        "run",
        s(&experiment),
        "--packs",
        s(&out),
        "--out",
        s(&payload),
    ]);
    assert_eq!(ran.status.code(), Some(0), "{}", text(&ran));
    let report = json(&run(&["verify", s(&payload), "--packs", s(&out), "--json"]));
    let caveat = report["caveats"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["kind"] == "temporal_overlap" && c["arm"] == "random_rows")
        .unwrap_or_else(|| panic!("{report}"))
        .clone();
    assert_eq!(caveat["count"], 180, "{report}");
}

/// A numeric column with empty cells stays a feature (issue 43): `init` says so, every
/// starter arm imputes it first (median, on the fold's training rows), an extra starter
/// compares that with imputing on all rows, and the pack runs and verifies. A missing
/// value written as text (`NA`) is still left out (previous test).
#[test]
fn init_keeps_a_numeric_column_with_empty_cells_and_its_starters_impute_it() {
    let dir = TempDir::new("byod-init-missing");
    let csv = trial_csv().replace(",NA\n", ",\n");
    let (_, out, init) = init_csv(&dir, "trial", &csv, &["--time", "t"]);
    assert_eq!(init.status.code(), Some(0), "{}", text(&init));
    let manifest = std::fs::read_to_string(out.join("pack.toml")).unwrap();
    assert!(
        manifest.contains("features = [\n  \"arm\",\n  \"x\",\n  \"lab\",\n]"),
        "{manifest}"
    );
    assert!(
        text(&init).contains("features with empty cells, kept as missing values: lab (1)"),
        "{}",
        text(&init)
    );
    let mut starters = 0;
    for entry in std::fs::read_dir(out.join("experiments")).unwrap() {
        let path = entry.unwrap().path();
        let experiment: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        for arm in experiment["arms"].as_array().unwrap() {
            assert_eq!(arm["prepare"][0]["step"], "impute", "{}", path.display());
        }
        starters += 1;
    }
    assert!(starters >= 3, "{starters} starters");
    let impute = out
        .join("experiments")
        .join(counterlab::init::IMPUTE_STARTER);
    let payload = dir.path().join("impute.json");
    let ran = run(&["run", s(&impute), "--packs", s(&out), "--out", s(&payload)]);
    assert_eq!(ran.status.code(), Some(0), "{}", text(&ran));
    let verified = run(&[
        "verify",
        s(&payload),
        "--packs",
        s(&out),
        "--permutations",
        "19",
    ]);
    assert!(
        [0, 3].contains(&verified.status.code().unwrap()),
        "{}",
        text(&verified)
    );
}
