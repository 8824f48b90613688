//! The bundled packs, their registered experiments and their recorded payloads.

use std::path::{Path, PathBuf};

use counterlab::{Experiment, Packs, RunOptions};

/// The counterlab crate's root folder.
pub fn crate_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("test-support lives inside the crate")
        .to_path_buf()
}

/// `fixtures/packs` (absolute).
pub fn packs_dir() -> PathBuf {
    crate_root().join("fixtures/packs")
}

/// The bundled packs, loaded.
pub fn packs() -> Packs {
    Packs::discover(packs_dir()).expect("the bundled packs load")
}

/// `(relative path, path)` of the `*.json` files in each pack's `folder`, sorted; the
/// relative path is from the crate root with `/` separators
/// (`fixtures/packs/<pack>/<folder>/<file>.json`), the key goldens use.
fn files_in(folder: &str) -> Vec<(String, PathBuf)> {
    let root = crate_root();
    let mut out = Vec::new();
    for pack in std::fs::read_dir(packs_dir()).expect("fixtures/packs") {
        let Ok(entries) = std::fs::read_dir(pack.expect("a directory entry").path().join(folder))
        else {
            continue;
        };
        for entry in entries {
            let path = entry.expect("a directory entry").path();
            if path.extension().is_some_and(|e| e == "json") {
                let relative = path
                    .strip_prefix(&root)
                    .expect("under the crate root")
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push((relative, path));
            }
        }
    }
    out.sort();
    out
}

/// Every registered experiment (`fixtures/packs/*/experiments/*.json`) as
/// `(relative path, path)`, sorted.
pub fn experiment_files() -> Vec<(String, PathBuf)> {
    files_in("experiments")
}

/// Every recorded payload and boundary map (`fixtures/packs/*/payloads/*.json`) as
/// `(relative path, path)`, sorted.
pub fn payload_files() -> Vec<(String, PathBuf)> {
    files_in("payloads")
}

/// A fresh payload of the experiment at `path`, as `counterlab run` writes it.
pub fn fresh_payload(packs: &Packs, path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let experiment = Experiment::from_json(&bytes).expect("a registered experiment is valid");
    let pack = packs.get(&experiment.pack).expect("its pack is bundled");
    counterlab::run_with(pack, &experiment, &RunOptions { threads: 2 })
        .expect("a registered experiment runs")
        .to_json_pretty()
        .expect("a payload encodes")
}

/// One recorded payload as its pack's `payloads/expected.toml` lists it.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// The pack's id (its folder name).
    pub pack: String,
    /// The file, relative to the pack's `payloads/`.
    pub file: String,
    /// The payload's path.
    pub path: PathBuf,
    /// The verdict `counterlab verify` must give it at the default options.
    pub verdict: String,
    /// Why (one sentence).
    pub why: String,
    /// The check that must fail, when one is named.
    pub check: Option<String>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Expected {
    payload: Vec<ExpectedPayload>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ExpectedPayload {
    file: String,
    verdict: String,
    why: String,
    check: Option<String>,
}

/// Every payload listed in a bundled pack's `payloads/expected.toml`, packs in the order
/// of `packs` (sorted by id), each listing in its order.
pub fn recorded_payloads(packs: &Packs) -> Vec<Recorded> {
    let mut out = Vec::new();
    for pack in packs.iter() {
        let dir = pack.dir().join("payloads");
        let listing = dir.join("expected.toml");
        if !listing.is_file() {
            continue;
        }
        let text = std::fs::read_to_string(&listing)
            .unwrap_or_else(|e| panic!("{}: {e}", listing.display()));
        let expected: Expected =
            toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", listing.display()));
        for case in expected.payload {
            out.push(Recorded {
                pack: pack.id().to_owned(),
                path: dir.join(&case.file),
                file: case.file,
                verdict: case.verdict,
                why: case.why,
                check: case.check,
            });
        }
    }
    assert!(
        !out.is_empty(),
        "no payloads are listed under {}",
        packs_dir().display()
    );
    out
}
