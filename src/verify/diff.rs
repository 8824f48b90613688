//! What is recorded against what the verifier computes, leaf by leaf: every difference at
//! its JSON path, one counterexample each. `recompute.equal` (payloads and maps),
//! `boundary.spec` and `chart.provenance` all compare this way, so a number that differs
//! anywhere is named by where it is, in the same order in every report.

use serde_json::{json, Value};

use super::checks::CheckId;
use super::{Counterexample, Verification};
use crate::canon;
use crate::json_path::{JsonPath, Seg};

/// One leaf where the recorded document and the verifier's differ.
pub(super) struct Difference {
    /// Where, in the document.
    pub path: JsonPath,
    /// What the document records there (`"(absent)"` when it records nothing).
    pub recorded: Value,
    /// What the verifier computes there (`"(absent)"` when it computes nothing).
    pub computed: Value,
}

/// Every leaf at which `recorded` and `computed` (both at `path` in the document) differ,
/// in sorted-key order: objects are compared key by key, arrays of one length element by
/// element, anything else by canonical bytes (so numbers bit for bit).
pub(super) fn differences(path: JsonPath, recorded: &Value, computed: &Value) -> Vec<Difference> {
    let mut path = path;
    let mut out = Vec::new();
    collect(&mut path, recorded, computed, &mut out);
    out
}

/// [`differences`], walking one path down and back up.
fn collect(path: &mut JsonPath, recorded: &Value, computed: &Value, out: &mut Vec<Difference>) {
    match (recorded, computed) {
        (Value::Object(a), Value::Object(b)) => {
            let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
            keys.sort();
            keys.dedup();
            for key in keys {
                path.push(Seg::Key(key.clone()));
                match (a.get(key), b.get(key)) {
                    (Some(x), Some(y)) => collect(path, x, y, out),
                    (x, y) => out.push(Difference {
                        path: path.clone(),
                        recorded: x.cloned().unwrap_or(json!("(absent)")),
                        computed: y.cloned().unwrap_or(json!("(absent)")),
                    }),
                }
                path.pop();
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                path.push(Seg::Index(i));
                collect(path, x, y, out);
                path.pop();
            }
        }
        _ => {
            if canon::canonical_bytes(recorded) != canon::canonical_bytes(computed) {
                out.push(Difference {
                    path: path.clone(),
                    recorded: recorded.clone(),
                    computed: computed.clone(),
                });
            }
        }
    }
}

/// One counterexample per difference, witnessed by its JSON path.
pub(super) fn to_counterexamples(id: CheckId, differences: Vec<Difference>) -> Vec<Counterexample> {
    differences
        .into_iter()
        .map(|d| Counterexample::new(id, d.recorded, d.computed, json!({ "path": d.path })))
        .collect()
}

impl Verification<'_> {
    /// `recompute.equal`: the recorded values are the kernel's, bit for bit; else one
    /// counterexample per difference (the report keeps the first few), in the order given.
    pub(super) fn recomputed_equal(&mut self, differences: Vec<Difference>) {
        self.pass_unless(
            CheckId::RecomputeEqual,
            to_counterexamples(CheckId::RecomputeEqual, differences),
            |total| format!("{total} recorded value(s) differ from the kernel's"),
        );
    }
}
