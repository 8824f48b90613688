//! docs/ADD_A_PACK.md, followed as written: its TOML and JSON blocks, in order, build a
//! pack from a copy of the entity-leakage CSV, and every outcome the guide promises is
//! what the kernel and verifier give. A change to the formats that the guide does not
//! follow fails here.

use counterlab::{boundary, transfer, Packs, RunOptions, VerifyOptions};

use crate::common::TempDir;

/// The fenced blocks of the guide with the given language, in order.
fn blocks(text: &str, language: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        match (&mut current, line.trim_start().strip_prefix("```")) {
            (None, Some(lang)) => {
                current = (lang.trim() == language)
                    .then(String::new)
                    .or(Some(String::from("\u{0}")))
            }
            (Some(block), Some(_)) => {
                if !block.starts_with('\u{0}') {
                    out.push(std::mem::take(block));
                }
                current = None;
            }
            (Some(block), None) => {
                block.push_str(line);
                block.push('\n');
            }
            (None, None) => {}
        }
    }
    out
}

#[test]
fn the_add_a_pack_guide_works_as_written() {
    let root = env!("CARGO_MANIFEST_DIR");
    let guide = std::fs::read_to_string(format!("{root}/docs/ADD_A_PACK.md")).unwrap();
    let toml = blocks(&guide, "toml");
    let json = blocks(&guide, "json");
    assert_eq!(
        (toml.len(), json.len()),
        (4, 2),
        "the guide's blocks changed: update this test"
    );

    // 1. The folder and the data (the hash that `counterlab hash` prints).
    let dir = TempDir::new("guide");
    let pack_dir = dir.path().join("my-churn");
    std::fs::create_dir_all(pack_dir.join("experiments")).unwrap();
    let csv = std::fs::read(format!(
        "{root}/fixtures/packs/entity-leakage/customer_churn.csv"
    ))
    .unwrap();
    std::fs::write(pack_dir.join("churn.csv"), &csv).unwrap();
    let hash = blake3::hash(&csv).to_hex().to_string();

    // 2. pack.toml; 3. the experiment with a claim.
    let manifest = toml[0].replace("PASTE THE HASH PRINTED ABOVE", &hash);
    std::fs::write(pack_dir.join("pack.toml"), &manifest).unwrap();
    std::fs::write(pack_dir.join("experiments/leaky-vs-grouped.json"), &json[0]).unwrap();
    let packs = Packs::discover(dir.path()).unwrap();
    let pack = packs.get("my-churn").unwrap();
    assert_eq!(pack.table().n_rows(), 1756);
    let experiment = counterlab::Experiment::registered(pack, "leaky-vs-grouped").unwrap();
    let payload = counterlab::run_with(pack, &experiment, &RunOptions { threads: 2 }).unwrap();
    let options = VerifyOptions {
        threads: 2,
        ..VerifyOptions::default()
    };
    let report = counterlab::verify(
        payload.to_json_pretty().unwrap().as_bytes(),
        &packs,
        &options,
    );
    assert_eq!(
        report.verdict().as_str(),
        "INCONCLUSIVE",
        "the guide: INCONCLUSIVE, gap exactly 0"
    );

    // 4. A boundary sweep: every cell INCONCLUSIVE with three features; the map verifies.
    let manifest = format!("{manifest}\n{}", toml[1]);
    std::fs::write(pack_dir.join("pack.toml"), &manifest).unwrap();
    let packs = Packs::discover(dir.path()).unwrap();
    let pack = packs.get("my-churn").unwrap();
    let map = boundary::compute(pack, 2).unwrap();
    assert_eq!(map.cells.len(), 6);
    assert!(
        map.cells
            .iter()
            .all(|c| c.outcome.label() == "INCONCLUSIVE"),
        "the guide: every cell INCONCLUSIVE"
    );
    let map_json = serde_json::to_vec_pretty(&map).unwrap();
    assert_eq!(
        counterlab::verify(&map_json, &packs, &options)
            .verdict()
            .as_str(),
        "SUPPORTS"
    );

    // 5. A transfer task: only the grouped split is valid.
    std::fs::write(pack_dir.join("experiments/which-split.json"), &json[1]).unwrap();
    std::fs::write(
        pack_dir.join("pack.toml"),
        format!("{manifest}\n{}", toml[2]),
    )
    .unwrap();
    let packs = Packs::discover(dir.path()).unwrap();
    let pack = packs.get("my-churn").unwrap();
    let grouped = transfer::evaluate(pack, Some("grouped"), 2).unwrap();
    assert_eq!(grouped.valid_choices, ["grouped"]);
    assert!(grouped.answer.unwrap().correct);
    assert!(
        !transfer::evaluate(pack, Some("random"), 2)
            .unwrap()
            .answer
            .unwrap()
            .correct
    );
}

#[test]
fn the_guide_shows_the_data_section_init_writes_for_bacteria() {
    let root = env!("CARGO_MANIFEST_DIR");
    let guide = std::fs::read_to_string(format!("{root}/docs/ADD_A_PACK.md")).unwrap();
    let shown = &blocks(&guide, "toml")[3];
    let data = std::path::Path::new(root).join("tests/data/real/bacteria/bacteria.csv");
    let bytes = std::fs::read(&data).unwrap();
    let options = counterlab::init::InitOptions {
        entity: "ID".into(),
        label: "y".into(),
        positive: "y".into(),
        time: Some("week".into()),
        test_column: None,
        id: None,
        ..Default::default()
    };
    let scaffold = counterlab::init::scaffold(
        &data,
        &bytes,
        &options,
        &counterlab::pack::LoadLimits::default(),
    )
    .unwrap();
    assert!(
        scaffold.manifest.contains(shown.as_str()),
        "the guide's [data] block is not what init writes:\n{}",
        scaffold.manifest
    );
}
