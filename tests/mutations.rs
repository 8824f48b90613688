//! The mutation catalogue (`mutations/`): tampered payloads described as data, each with
//! its provenance and the verdict the frozen verifier must give. One test runs every case
//! and reports every mismatch at once; another keeps `mutations/operators.toml` honest
//! about the verifier's own mutation operators.
//!
//! A case names a base payload (a registered experiment, run here), a list of edits and the
//! expected verdict plus the status of one named check. See `mutations/README.md`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::{mpsc, Arc};
use std::time::Duration;

use counterlab::canon::{self, HashKind};
use counterlab::verify::{Report, Status, VerifyOptions, BOUNDARY_CHECK_IDS, CHECK_IDS};
use counterlab::{Experiment, Packs, RunOptions};
use counterlab_test_support::json_path::{find_mut, parent_mut, set, Seg};
use serde::Deserialize;
use serde_json::{Number, Value};

/// A case that takes longer than this is reported as a hang (and the run goes on).
const CASE_TIMEOUT: Duration = Duration::from_secs(300);

/// Stands for a raw token while the payload is still a JSON value (see `set_raw`).
const RAW_SENTINEL: &str = "\u{1}counterlab-mutation-raw-token\u{1}";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn packs() -> Packs {
    Packs::discover(root().join("fixtures/packs")).expect("the bundled packs load")
}

// ---------------------------------------------------------------------------------------
// The case format.

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseFile {
    #[serde(default)]
    case: Vec<Case>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    /// Unique, `[a-z0-9-]+`.
    name: String,
    /// What real-world producer or attack the case models.
    provenance: String,
    /// `PACK/EXPERIMENT`: `fixtures/packs/PACK/experiments/EXPERIMENT.json`, run and
    /// serialised with `Payload::to_json_pretty`.
    base: String,
    /// Applied in order to the base payload.
    #[serde(default)]
    edits: Vec<Edit>,
    /// `SUPPORTS`, `INCONCLUSIVE` or `REJECTED`.
    verdict: String,
    /// The check whose status is pinned.
    check: String,
    /// `pass`, `fail`, `unverifiable` or `skipped`.
    status: String,
    /// The JSON path of the named check's first counterexample witness, when pinned.
    #[serde(default)]
    path: Option<String>,
    /// Further checks whose status is pinned, by id.
    #[serde(default)]
    also: BTreeMap<String, String>,
    /// Verifier options other than the fast defaults of this runner.
    #[serde(default)]
    options: CaseOptions,
    /// Present when the expectation is the correct behaviour and the verifier does not
    /// (yet) meet it: what the bug is. Such a case still fails the test.
    #[serde(default)]
    known_bug: Option<String>,
    /// Free text: why the expectation is what it is.
    #[serde(default)]
    #[allow(dead_code)]
    note: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseOptions {
    /// Start from `VerifyOptions::default()` (K = 199, 3 shuffles) instead of the fast set.
    #[serde(default)]
    defaults: bool,
    permutations: Option<usize>,
    row_order_shuffles: Option<usize>,
    seed: Option<u64>,
    alpha: Option<f64>,
    max_payload_bytes: Option<usize>,
    max_rows: Option<usize>,
    max_work: Option<u64>,
}

impl CaseOptions {
    fn verify_options(&self) -> VerifyOptions {
        let mut o = if self.defaults {
            VerifyOptions::default()
        } else {
            VerifyOptions {
                permutations: 19,
                row_order_shuffles: 1,
                ..VerifyOptions::default()
            }
        };
        o.threads = 2;
        if let Some(v) = self.permutations {
            o.permutations = v;
        }
        if let Some(v) = self.row_order_shuffles {
            o.row_order_shuffles = v;
        }
        if let Some(v) = self.seed {
            o.seed = v;
        }
        if let Some(v) = self.alpha {
            o.alpha = v;
        }
        if let Some(v) = self.max_payload_bytes {
            o.max_payload_bytes = v;
        }
        if let Some(v) = self.max_rows {
            o.fixture.max_rows = v;
        }
        if let Some(v) = self.max_work {
            // A budget given explicitly, as `--max-work` gives it: the pack's own does
            // not raise it.
            o.max_work = counterlab::verify::Budget::given(v);
        }
        o
    }
}

/// One edit. JSON edits work on the parsed payload; byte edits on its text (after a byte
/// edit, no JSON edit may follow).
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
enum Edit {
    /// Sets (or creates, in an object) the value at `path`: `value` (TOML) or `json` (text).
    Set {
        path: String,
        #[serde(default)]
        value: Option<toml::Value>,
        #[serde(default)]
        json: Option<String>,
    },
    /// Removes an object key or array element.
    Remove { path: String },
    /// Adds `delta` to a number.
    AddF64 { path: String, delta: f64 },
    /// Rounds a number to `decimals` decimals as `format!("{:.N}")` writes it.
    Round { path: String, decimals: usize },
    /// Rewrites a number: `float` (an integer written as `12.0`), `string` (its JSON text
    /// quoted), `exponent` (the same f64 in `{:e}` form).
    Retype {
        path: String,
        #[serde(rename = "as")]
        to: String,
    },
    /// Replaces the value at `path` by a raw token (`NaN`, `Infinity`, `1e999`).
    SetRaw { path: String, text: String },
    /// Replaces the value at `path` by `depth` nested arrays.
    Nest { path: String, depth: usize },
    /// Copies the value at `from` to `to`.
    Copy { from: String, to: String },
    /// Renames a key of the object at `path`.
    RenameKey {
        path: String,
        from: String,
        to: String,
    },
    /// Swaps two keys' values in the object at `path`.
    SwapKeys { path: String, a: String, b: String },
    /// Recomputes `result_hash` canonically from the (edited) `results`.
    Rehash,
    /// Boundary maps: recomputes every `cell_hash` from its (edited) cell and then
    /// `map_hash`: a forger who keeps the hashes consistent with edited numbers.
    RehashBoundary,
    /// Runs the (edited) experiment honestly with the kernel and replaces the whole payload
    /// with the result: "an honest run of another experiment".
    Rerun,
    /// Writes every whole finite float as an integer (what `JSON.stringify` does to 0.0).
    JsNumbers,
    /// Re-serialises compactly.
    Minify,
    /// Replaces the first (or every) occurrence of `find` in the text.
    RawReplace {
        find: String,
        #[serde(default)]
        replace: Option<String>,
        #[serde(default)]
        replace_bytes: Option<Vec<u8>>,
        #[serde(default)]
        all: bool,
    },
    /// Keeps the first `bytes` bytes, or drops the last `drop` bytes.
    Truncate {
        #[serde(default)]
        bytes: Option<usize>,
        #[serde(default)]
        drop: Option<usize>,
    },
    /// Zero bytes.
    Empty,
    /// Appends `bytes` spaces (valid JSON whitespace).
    Pad { bytes: usize },
    /// Appends spaces until the text is exactly `bytes` long.
    PadTo { bytes: usize },
    /// Puts `text` (or raw `bytes`) in front.
    Prepend {
        #[serde(default)]
        text: Option<String>,
        #[serde(default)]
        bytes: Option<Vec<u8>>,
    },
    /// Puts `text` (or raw `bytes`) at the end.
    Append {
        #[serde(default)]
        text: Option<String>,
        #[serde(default)]
        bytes: Option<Vec<u8>>,
    },
}

// ---------------------------------------------------------------------------------------
// Applying edits.

enum Doc {
    /// Parsed; raw tokens waiting for serialisation, in order.
    Json(Value, Vec<String>),
    Bytes(Vec<u8>),
}

impl Doc {
    fn json(&mut self) -> Result<(&mut Value, &mut Vec<String>), String> {
        if let Doc::Bytes(bytes) = self {
            let value: Value = serde_json::from_slice(bytes)
                .map_err(|e| format!("a JSON edit needs valid JSON text: {e}"))?;
            *self = Doc::Json(value, Vec::new());
        }
        match self {
            Doc::Json(value, raw) => Ok((value, raw)),
            Doc::Bytes(_) => unreachable!(),
        }
    }

    fn bytes(&mut self, compact: bool) -> Result<&mut Vec<u8>, String> {
        if let Doc::Json(value, raw) = self {
            let text = if compact {
                serde_json::to_string(value)
            } else {
                serde_json::to_string_pretty(value)
            }
            .map_err(|e| format!("cannot serialise: {e}"))?;
            let sentinel = serde_json::to_string(RAW_SENTINEL).unwrap();
            let mut text = text;
            for token in raw.iter() {
                let at = text.find(&sentinel).ok_or("a raw token's place was lost")?;
                text.replace_range(at..at + sentinel.len(), token);
            }
            *self = Doc::Bytes(text.into_bytes());
        }
        match self {
            Doc::Bytes(bytes) => Ok(bytes),
            Doc::Json(..) => unreachable!(),
        }
    }
}

fn toml_to_json(value: &toml::Value) -> Result<Value, String> {
    Ok(match value {
        toml::Value::String(s) => Value::String(s.clone()),
        toml::Value::Integer(i) => Value::from(*i),
        toml::Value::Float(f) => Value::Number(
            Number::from_f64(*f).ok_or("a non-finite TOML float: use set_raw for NaN/inf")?,
        ),
        toml::Value::Boolean(b) => Value::Bool(*b),
        toml::Value::Array(items) => Value::Array(
            items
                .iter()
                .map(toml_to_json)
                .collect::<Result<_, String>>()?,
        ),
        toml::Value::Table(table) => Value::Object(
            table
                .iter()
                .map(|(k, v)| Ok((k.clone(), toml_to_json(v)?)))
                .collect::<Result<_, String>>()?,
        ),
        toml::Value::Datetime(_) => return Err("a TOML datetime has no JSON form".into()),
    })
}

fn number_at(value: &mut Value, path: &str) -> Result<f64, String> {
    find_mut(value, path)?
        .as_f64()
        .ok_or_else(|| format!("{path}: not a number"))
}

fn set_f64(value: &mut Value, path: &str, x: f64) -> Result<Option<Value>, String> {
    let n = Number::from_f64(x).ok_or_else(|| format!("{path}: {x} is not finite"))?;
    set(value, path, Value::Number(n))
}

/// An edit that changes nothing would make a case vacuous: refuse it.
fn changed(path: &str, old: Option<Value>, new: &Value) -> Result<(), String> {
    match old {
        Some(old) if &old == new => Err(format!("{path}: the edit changes nothing")),
        _ => Ok(()),
    }
}

fn whole_floats_to_integers(value: &mut Value) -> usize {
    match value {
        Value::Number(n) if n.is_f64() => {
            let x = n.as_f64().expect("a float");
            if x.fract() == 0.0 && x.abs() < 9.007_199_254_740_992e15 {
                *value = Value::from(x as i64);
                1
            } else {
                0
            }
        }
        Value::Array(items) => items.iter_mut().map(whole_floats_to_integers).sum(),
        Value::Object(map) => map.values_mut().map(whole_floats_to_integers).sum(),
        _ => 0,
    }
}

fn text_or_bytes(text: &Option<String>, bytes: &Option<Vec<u8>>) -> Result<Vec<u8>, String> {
    match (text, bytes) {
        (Some(t), None) => Ok(t.clone().into_bytes()),
        (None, Some(b)) => Ok(b.clone()),
        _ => Err("give exactly one of text / bytes".into()),
    }
}

fn apply(doc: &mut Doc, edit: &Edit, packs: &Packs) -> Result<(), String> {
    match edit {
        Edit::Set { path, value, json } => {
            let new = match (value, json) {
                (Some(v), None) => toml_to_json(v)?,
                (None, Some(text)) => {
                    serde_json::from_str(text).map_err(|e| format!("{path}: bad json: {e}"))?
                }
                _ => return Err(format!("{path}: give exactly one of value / json")),
            };
            let (v, _) = doc.json()?;
            let old = set(v, path, new.clone())?;
            changed(path, old, &new)
        }
        Edit::Remove { path } => {
            let (v, _) = doc.json()?;
            let (parent, last) = parent_mut(v, path)?;
            match (parent, last) {
                (Value::Object(map), Seg::Key(k)) => {
                    map.remove(&k)
                        .ok_or_else(|| format!("{path}: no such key"))?;
                }
                (Value::Array(items), Seg::Index(i)) if i < items.len() => {
                    items.remove(i);
                }
                _ => return Err(format!("{path}: no such place")),
            }
            Ok(())
        }
        Edit::AddF64 { path, delta } => {
            let (v, _) = doc.json()?;
            let x = number_at(v, path)?;
            let y = x + delta;
            if y.to_bits() == x.to_bits() {
                return Err(format!("{path}: adding {delta} to {x} changes nothing"));
            }
            set_f64(v, path, y).map(drop)
        }
        Edit::Round { path, decimals } => {
            let (v, _) = doc.json()?;
            let x = number_at(v, path)?;
            let y: f64 = format!("{x:.decimals$}").parse().expect("a number");
            if y.to_bits() == x.to_bits() {
                return Err(format!("{path}: {x} is already rounded"));
            }
            set_f64(v, path, y).map(drop)
        }
        Edit::Retype { path, to } => {
            let (v, raw) = doc.json()?;
            let target = find_mut(v, path)?;
            let n = match target {
                Value::Number(n) => n.clone(),
                other => return Err(format!("{path}: {other} is not a number")),
            };
            match to.as_str() {
                "string" => *target = Value::String(n.to_string()),
                "float" => {
                    let i = n
                        .as_i64()
                        .ok_or_else(|| format!("{path}: {n} is not an integer"))?;
                    raw.push(format!("{i}.0"));
                    *target = Value::String(RAW_SENTINEL.into());
                }
                "exponent" => {
                    let x = n.as_f64().expect("a number");
                    let text = format!("{x:e}");
                    if text == n.to_string() {
                        return Err(format!("{path}: {n} is already in exponent form"));
                    }
                    raw.push(text);
                    *target = Value::String(RAW_SENTINEL.into());
                }
                other => return Err(format!("{path}: unknown retype target {other:?}")),
            }
            Ok(())
        }
        Edit::SetRaw { path, text } => {
            let (v, raw) = doc.json()?;
            set(v, path, Value::String(RAW_SENTINEL.into()))?;
            raw.push(text.clone());
            Ok(())
        }
        Edit::Nest { path, depth } => {
            let (v, raw) = doc.json()?;
            set(v, path, Value::String(RAW_SENTINEL.into()))?;
            raw.push(format!("{}{}", "[".repeat(*depth), "]".repeat(*depth)));
            Ok(())
        }
        Edit::Copy { from, to } => {
            let (v, _) = doc.json()?;
            let value = find_mut(v, from)?.clone();
            let old = set(v, to, value.clone())?;
            changed(to, old, &value)
        }
        Edit::RenameKey { path, from, to } => {
            let (v, _) = doc.json()?;
            let map = find_mut(v, path)?
                .as_object_mut()
                .ok_or_else(|| format!("{path}: not an object"))?;
            if map.contains_key(to) {
                return Err(format!("{path}: {to:?} exists (use swap_keys)"));
            }
            let value = map
                .remove(from)
                .ok_or_else(|| format!("{path}: no key {from:?}"))?;
            map.insert(to.clone(), value);
            Ok(())
        }
        Edit::SwapKeys { path, a, b } => {
            let (v, _) = doc.json()?;
            let map = find_mut(v, path)?
                .as_object_mut()
                .ok_or_else(|| format!("{path}: not an object"))?;
            let va = map
                .remove(a)
                .ok_or_else(|| format!("{path}: no key {a:?}"))?;
            let vb = map
                .remove(b)
                .ok_or_else(|| format!("{path}: no key {b:?}"))?;
            if va == vb {
                return Err(format!("{path}: {a:?} and {b:?} hold the same value"));
            }
            map.insert(a.clone(), vb);
            map.insert(b.clone(), va);
            Ok(())
        }
        Edit::Rehash => {
            let (v, raw) = doc.json()?;
            if !raw.is_empty() {
                return Err("rehash after a raw token: the results are no longer JSON".into());
            }
            let hash = canon::hash_value(HashKind::Result, &v["results"]);
            set(v, "$.result_hash", Value::String(hash)).map(drop)
        }
        Edit::RehashBoundary => {
            let (v, raw) = doc.json()?;
            if !raw.is_empty() {
                return Err("rehash_boundary after a raw token".into());
            }
            let cells = v["cells"]
                .as_array_mut()
                .ok_or("rehash_boundary: $.cells is not an array")?;
            let mut hashes = Vec::new();
            for cell in cells.iter_mut() {
                let mut without = cell.clone();
                if let Value::Object(m) = &mut without {
                    m.remove("cell_hash");
                }
                let hash = canon::hash_value(HashKind::BoundaryCell, &without);
                cell["cell_hash"] = Value::String(hash.clone());
                hashes.push(Value::String(hash));
            }
            let map = serde_json::json!({
                "pack": v["pack"],
                "boundary": v["boundary"],
                "experiment": v["experiment"],
                "cell_hashes": hashes,
            });
            let hash = canon::hash_value(HashKind::BoundaryMap, &map);
            set(v, "$.map_hash", Value::String(hash)).map(drop)
        }
        Edit::Rerun => {
            let (v, raw) = doc.json()?;
            if !raw.is_empty() {
                return Err("rerun after a raw token".into());
            }
            let text = serde_json::to_vec(&v["experiment"]).map_err(|e| e.to_string())?;
            let experiment = Experiment::from_json(&text).map_err(|e| format!("rerun: {e}"))?;
            let pack = packs
                .get(&experiment.pack)
                .map_err(|e| format!("rerun: {e}"))?;
            let payload = counterlab::run_with(pack, &experiment, &RunOptions { threads: 2 })
                .map_err(|e| format!("rerun: {e}"))?;
            let text = payload.to_json_pretty().map_err(|e| e.to_string())?;
            *v = serde_json::from_str(&text).map_err(|e| e.to_string())?;
            Ok(())
        }
        Edit::JsNumbers => {
            let (v, _) = doc.json()?;
            match whole_floats_to_integers(v) {
                0 => Err("js_numbers: no whole float to rewrite".into()),
                _ => Ok(()),
            }
        }
        Edit::Minify => {
            if let Doc::Bytes(bytes) = doc {
                *doc = Doc::Json(
                    serde_json::from_slice(bytes).map_err(|e| format!("minify: {e}"))?,
                    Vec::new(),
                );
            }
            doc.bytes(true).map(drop)
        }
        Edit::RawReplace {
            find,
            replace,
            replace_bytes,
            all,
        } => {
            let replacement = text_or_bytes(replace, replace_bytes)?;
            let bytes = doc.bytes(false)?;
            let needle = find.as_bytes();
            let mut out = Vec::with_capacity(bytes.len());
            let (mut i, mut hits) = (0, 0);
            while i < bytes.len() {
                if bytes[i..].starts_with(needle) && (*all || hits == 0) {
                    out.extend_from_slice(&replacement);
                    i += needle.len();
                    hits += 1;
                } else {
                    out.push(bytes[i]);
                    i += 1;
                }
            }
            if hits == 0 {
                return Err(format!("raw_replace: {find:?} not found"));
            }
            *bytes = out;
            Ok(())
        }
        Edit::Truncate { bytes: keep, drop } => {
            let bytes = doc.bytes(false)?;
            let keep = match (keep, drop) {
                (Some(k), None) => *k,
                (None, Some(d)) => bytes
                    .len()
                    .checked_sub(*d)
                    .ok_or("truncate: drop > length")?,
                _ => return Err("truncate: give exactly one of bytes / drop".into()),
            };
            if keep >= bytes.len() {
                return Err("truncate: keeps every byte".into());
            }
            bytes.truncate(keep);
            Ok(())
        }
        Edit::Empty => {
            doc.bytes(false)?.clear();
            Ok(())
        }
        Edit::Pad { bytes: n } => {
            let bytes = doc.bytes(false)?;
            bytes.resize(bytes.len() + n, b' ');
            Ok(())
        }
        Edit::PadTo { bytes: n } => {
            let bytes = doc.bytes(false)?;
            if bytes.len() > *n {
                return Err(format!("pad_to: already {} > {n} bytes", bytes.len()));
            }
            bytes.resize(*n, b' ');
            Ok(())
        }
        Edit::Prepend { text, bytes: raw } => {
            let front = text_or_bytes(text, raw)?;
            let bytes = doc.bytes(false)?;
            bytes.splice(0..0, front);
            Ok(())
        }
        Edit::Append { text, bytes: raw } => {
            let back = text_or_bytes(text, raw)?;
            doc.bytes(false)?.extend_from_slice(&back);
            Ok(())
        }
    }
}

// ---------------------------------------------------------------------------------------
// Loading and running.

fn load_cases() -> Vec<(String, Case)> {
    let dir = root().join("mutations/cases");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let parsed: CaseFile =
            toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let stem = file.file_name().unwrap().to_string_lossy().into_owned();
        out.extend(parsed.case.into_iter().map(|c| (stem.clone(), c)));
    }
    out
}

fn base_payload(packs: &Packs, base: &str) -> Result<Vec<u8>, String> {
    let (pack, experiment) = base
        .split_once('/')
        .ok_or_else(|| format!("base {base:?} is not PACK/EXPERIMENT"))?;
    if experiment == "@boundary" {
        // The pack's boundary map, as `counterlab boundary PACK --out` writes it.
        let pack = packs.get(pack).map_err(|e| e.to_string())?;
        let map = counterlab::boundary::compute(pack, 2).map_err(|e| e.to_string())?;
        return serde_json::to_string_pretty(&map)
            .map(|t| format!("{t}\n").into_bytes())
            .map_err(|e| e.to_string());
    }
    let path = root().join(format!(
        "fixtures/packs/{pack}/experiments/{experiment}.json"
    ));
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let experiment = Experiment::from_json(&bytes).map_err(|e| e.to_string())?;
    let pack = packs.get(&experiment.pack).map_err(|e| e.to_string())?;
    let payload = counterlab::run_with(pack, &experiment, &RunOptions { threads: 2 })
        .map_err(|e| e.to_string())?;
    Ok(payload
        .to_json_pretty()
        .map_err(|e| e.to_string())?
        .into_bytes())
}

/// Problems with the case definition itself (not with the verifier).
fn lint(case: &Case, seen: &mut BTreeSet<String>) -> Vec<String> {
    let mut problems = Vec::new();
    if !seen.insert(case.name.clone()) {
        problems.push("duplicate case name".into());
    }
    if case.name.is_empty()
        || !case
            .name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        problems.push("name must be [a-z0-9-]+".into());
    }
    if case.provenance.trim().is_empty() {
        problems.push("empty provenance".into());
    }
    if !["SUPPORTS", "INCONCLUSIVE", "REJECTED"].contains(&case.verdict.as_str()) {
        problems.push(format!("unknown verdict {:?}", case.verdict));
    }
    for (id, status) in std::iter::once((&case.check, &case.status)).chain(&case.also) {
        if !CHECK_IDS.contains(&id.as_str()) && !BOUNDARY_CHECK_IDS.contains(&id.as_str()) {
            problems.push(format!("unknown check id {id:?}"));
        }
        if !["pass", "fail", "unverifiable", "skipped"].contains(&status.as_str()) {
            problems.push(format!("unknown status {status:?} for {id}"));
        }
    }
    problems
}

fn summary(report: &Report) -> String {
    let mut lines = Vec::new();
    for c in report.checks() {
        if matches!(c.status, Status::Fail | Status::Unverifiable) {
            let mut line = format!(
                "      {} {}: {}",
                c.status.as_str(),
                c.id,
                c.reason.as_deref().unwrap_or("")
            );
            if let Some(ce) = c.counterexamples.first() {
                line.push_str(&format!(" [witness {}]", ce.witness));
            }
            lines.push(line);
        }
    }
    if lines.is_empty() {
        lines.push("      (no failing or unverifiable check)".into());
    }
    lines.join("\n")
}

/// What is wrong with the report for this case (empty: as expected).
fn compare(case: &Case, report: &Report) -> Vec<String> {
    let mut out = Vec::new();
    let verdict = report.verdict().as_str();
    if verdict != case.verdict {
        out.push(format!("verdict: expected {}, got {verdict}", case.verdict));
    }
    for (id, expected) in std::iter::once((&case.check, &case.status)).chain(&case.also) {
        match report.check(id) {
            None => out.push(format!("check {id}: missing from the report")),
            Some(c) if c.status.as_str() != expected => out.push(format!(
                "check {id}: expected {expected}, got {} ({})",
                c.status.as_str(),
                c.reason.as_deref().unwrap_or("no reason")
            )),
            Some(_) => {}
        }
    }
    if let Some(path) = &case.path {
        let got = report
            .check(&case.check)
            .and_then(|c| c.counterexamples.first())
            .and_then(|ce| ce.witness.get("path"))
            .and_then(Value::as_str);
        if got != Some(path.as_str()) {
            out.push(format!(
                "witness path of {}: expected {path}, got {got:?}",
                case.check
            ));
        }
    }
    out
}

/// Verifies on a worker thread: a panic or a hang becomes a reported failure.
fn verify_guarded(
    bytes: Vec<u8>,
    packs: Arc<Packs>,
    options: VerifyOptions,
) -> Result<Report, String> {
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("mutation-case".into())
        .stack_size(64 << 20)
        .spawn(move || {
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                counterlab::verify(&bytes, &packs, &options)
            }));
            let _ = tx.send(result.map_err(|p| {
                p.downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                    .unwrap_or_else(|| "a non-string panic".into())
            }));
        })
        .expect("a thread");
    match rx.recv_timeout(CASE_TIMEOUT) {
        Ok(Ok(report)) => Ok(report),
        Ok(Err(panic)) => Err(format!("verify panicked: {panic}")),
        Err(_) => Err(format!(
            "verify did not return within {}s (hang?)",
            CASE_TIMEOUT.as_secs()
        )),
    }
}

#[test]
fn every_mutation_case_gets_its_expected_verdict() {
    let packs = Arc::new(packs());
    let cases = load_cases();
    assert!(
        cases.len() >= 30,
        "the catalogue holds {} cases, at least 30 expected",
        cases.len()
    );
    let mut seen = BTreeSet::new();
    let mut bases: BTreeMap<String, Result<Vec<u8>, String>> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut known_bugs = Vec::new();
    let mut fixed_bugs = Vec::new();
    let mut tally: BTreeMap<String, usize> = BTreeMap::new();
    // COUNTERLAB_MUTATIONS_DUMP=DIR writes each case's payload and report there.
    let dump = std::env::var_os("COUNTERLAB_MUTATIONS_DUMP").map(PathBuf::from);
    if let Some(dir) = &dump {
        std::fs::create_dir_all(dir).unwrap();
    }

    for (file, case) in &cases {
        let label = format!("{file} :: {}", case.name);
        let problems = lint(case, &mut seen);
        if !problems.is_empty() {
            failures.push(format!(
                "{label}: bad case definition: {}",
                problems.join("; ")
            ));
            continue;
        }
        *tally.entry(case.verdict.clone()).or_default() += 1;
        let base = bases
            .entry(case.base.clone())
            .or_insert_with(|| base_payload(&packs, &case.base));
        let base = match base {
            Ok(b) => b.clone(),
            Err(e) => {
                failures.push(format!("{label}: base {}: {e}", case.base));
                continue;
            }
        };
        let mut doc = Doc::Bytes(base);
        let mut edit_error = None;
        for (i, edit) in case.edits.iter().enumerate() {
            if let Err(e) = apply(&mut doc, edit, &packs) {
                edit_error = Some(format!("edit {i} ({edit:?}): {e}"));
                break;
            }
        }
        if let Some(e) = edit_error {
            failures.push(format!("{label}: bad case definition: {e}"));
            continue;
        }
        let bytes = match doc.bytes(false) {
            Ok(b) => std::mem::take(b),
            Err(e) => {
                failures.push(format!("{label}: bad case definition: {e}"));
                continue;
            }
        };
        let expected = format!("{} with {} {}", case.verdict, case.check, case.status);
        if let Some(dir) = &dump {
            std::fs::write(dir.join(format!("{}.payload.json", case.name)), &bytes).unwrap();
        }
        let outcome = verify_guarded(bytes, Arc::clone(&packs), case.options.verify_options());
        if let (Some(dir), Ok(report)) = (&dump, &outcome) {
            let text = serde_json::to_string_pretty(&report.to_json()).unwrap();
            std::fs::write(dir.join(format!("{}.report.json", case.name)), text).unwrap();
        }
        let (mismatches, report_summary) = match &outcome {
            Ok(report) => (compare(case, report), summary(report)),
            Err(e) => (vec![e.clone()], String::new()),
        };
        match (&case.known_bug, mismatches.is_empty()) {
            (None, true) => {}
            (None, false) => failures.push(format!(
                "{label}\n    expected {expected}\n    {}\n{report_summary}",
                mismatches.join("\n    ")
            )),
            (Some(bug), false) => known_bugs.push(format!(
                "{label}\n    known bug: {bug}\n    expected {expected}\n    {}\n{report_summary}",
                mismatches.join("\n    ")
            )),
            (Some(_), true) => fixed_bugs.push(format!(
                "{label}: marked known_bug but now gets {expected}: remove the marker"
            )),
        }
    }

    eprintln!(
        "mutation catalogue: {} cases ({})",
        cases.len(),
        tally
            .iter()
            .map(|(v, n)| format!("{v} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let mut message = String::new();
    if !failures.is_empty() {
        message.push_str(&format!(
            "\n{} case(s) did not get their expected verdict:\n\n{}\n",
            failures.len(),
            failures.join("\n\n")
        ));
    }
    if !known_bugs.is_empty() {
        message.push_str(&format!(
            "\n{} known verifier bug(s) (cases marked known_bug, still failing):\n\n{}\n",
            known_bugs.len(),
            known_bugs.join("\n\n")
        ));
    }
    if !fixed_bugs.is_empty() {
        message.push_str(&format!(
            "\n{} stale known_bug marker(s):\n{}\n",
            fixed_bugs.len(),
            fixed_bugs.join("\n")
        ));
    }
    assert!(message.is_empty(), "{message}");
}

// ---------------------------------------------------------------------------------------
// operators.toml: the verifier's own mutation operators, kept faithful.

#[derive(Debug, Deserialize)]
struct OperatorsFile {
    rules: OperatorRules,
    operator: Vec<Operator>,
}

#[derive(Debug, Deserialize)]
struct OperatorRules {
    verifier_version: String,
    active_permutations: u64,
    chance_margin: f64,
    chance_sd_multiplier: u64,
    default_permutations: usize,
    default_row_order_shuffles: usize,
    default_seed: u64,
    seed_stream: String,
}

#[derive(Debug, Deserialize)]
struct Operator {
    id: String,
    table_stream: Option<String>,
    seed_streams: Vec<String>,
    checks: Vec<String>,
}

#[test]
fn operators_toml_describes_the_verifiers_operators() {
    let path = root().join("mutations/operators.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let file: OperatorsFile = toml::from_str(&text).unwrap();
    let rules = counterlab::verify::rules();
    let defaults = VerifyOptions::default();
    let r = &file.rules;
    assert_eq!(rules["version"], r.verifier_version.as_str());
    assert_eq!(rules["active_permutations"], r.active_permutations);
    assert_eq!(rules["chance_margin"], r.chance_margin);
    assert_eq!(rules["chance_sd_multiplier"], r.chance_sd_multiplier);
    assert_eq!(defaults.permutations, r.default_permutations);
    assert_eq!(defaults.row_order_shuffles, r.default_row_order_shuffles);
    assert_eq!(defaults.seed, r.default_seed);
    assert_eq!(r.seed_stream, "verify/{kind}/{k}");

    let mut ids = BTreeSet::new();
    for op in &file.operator {
        assert!(ids.insert(op.id.as_str()), "duplicate operator {}", op.id);
        for check in &op.checks {
            assert!(
                CHECK_IDS.contains(&check.as_str()),
                "{}: unknown check {check}",
                op.id
            );
        }
        assert!(!op.seed_streams.is_empty() || op.table_stream.is_none());
    }
    for id in [
        "row-order-shuffle",
        "row-label-permutation",
        "entity-label-permutation",
    ] {
        assert!(ids.contains(id), "operators.toml lacks {id}");
    }

    // The table streams named in the file are the ones the table's operators draw from:
    // redo each operator by hand from its description and compare.
    let packs = packs();
    let table = packs.get("entity-leakage").unwrap().table();
    let stream_of = |id: &str| {
        file.operator
            .iter()
            .find(|o| o.id == id)
            .and_then(|o| o.table_stream.clone())
            .unwrap_or_else(|| panic!("{id} has no table_stream"))
    };
    for seed in [0u64, 1, 12_345] {
        let mut labels = table.labels().to_vec();
        counterlab::rng::shuffle(
            &mut labels,
            &mut counterlab::rng::stream(seed, &stream_of("row-label-permutation")),
        );
        assert_eq!(
            table.permute_labels_by_row(seed).labels(),
            &labels[..],
            "row-level"
        );

        let mut entity_label = vec![None; table.n_entities()];
        for (row, &e) in table.entity_of_row().iter().enumerate() {
            entity_label[e as usize].get_or_insert(table.labels()[row]);
        }
        let mut entity_label: Vec<bool> = entity_label.into_iter().map(Option::unwrap).collect();
        counterlab::rng::shuffle(
            &mut entity_label,
            &mut counterlab::rng::stream(seed, &stream_of("entity-label-permutation")),
        );
        let by_entity: Vec<bool> = table
            .entity_of_row()
            .iter()
            .map(|&e| entity_label[e as usize])
            .collect();
        assert_eq!(
            table.permute_labels_by_entity(seed).labels(),
            &by_entity[..],
            "entity-level"
        );

        assert_eq!(
            &table.reloaded_in_shuffled_order(seed),
            table,
            "row-order shuffle"
        );
    }
    assert_eq!(stream_of("row-order-shuffle"), "rows/reorder");
}
