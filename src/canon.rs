//! One canonical byte encoding for every hashed object, and blake3 hashes over it.
//!
//! Why not hash JSON text: serde_json's float formatter changed between versions (1.0.147
//! printed `1e21` as `1e+21`), and key order or whitespace are not part of a value's
//! meaning. The encoding below is a function of the JSON *value* only:
//!
//! | value   | bytes                                                         |
//! |---------|---------------------------------------------------------------|
//! | null    | `0x00`                                                        |
//! | false   | `0x01`                                                        |
//! | true    | `0x02`                                                        |
//! | integer | `0x03` + the value as a signed 128-bit little-endian integer  |
//! | float with an integer value in [−2⁶³, 2⁶³) | as that integer (`1.0` ≡ `1`, `−0.0` ≡ `0`) |
//! | other float | `0x04` + `f64::to_bits` little-endian                     |
//! | string  | `0x05` + u64 LE byte length + UTF-8 bytes                     |
//! | array   | `0x06` + u64 LE element count + each element                  |
//! | object  | `0x07` + u64 LE entry count + per entry (sorted by key bytes): the key as a string, then the value |
//!
//! JSON has one number type, so equal numbers encode equally however they are written:
//! `1`, `1.0` and `1e0` are one value (a payload re-serialised by JavaScript, which writes
//! `0.0` as `0`, keeps its hash). Floats are parsed exactly (serde_json's `float_roundtrip`
//! feature), so a written float reads back to the same bits.
//! JSON cannot hold NaN or infinities, so neither can this encoding.
//!
//! Every kind of object is hashed with its own blake3 `derive_key` context (a domain
//! separator), so a result hash can never be confused with an experiment hash.

use serde::Serialize;
use serde_json::Value;

use crate::error::{Error, Result};

/// The kinds of hashed objects, each with its own blake3 key-derivation context.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum HashKind {
    /// The `results` object of a payload.
    Result,
    /// An experiment (the parsed IR, re-encoded).
    Experiment,
    /// A whole payload.
    Payload,
    /// A verifier report (without its own `report_hash`).
    Report,
    /// A split's test-row membership over the canonical table.
    Membership,
    /// A fixture table's typed content in canonical row order.
    Table,
    /// One fixture row's typed values (orders rows canonically).
    Row,
    /// Seeds for ChaCha random streams.
    Rng,
    /// The verifier's rule set.
    Rules,
    /// One boundary-map cell (without its own `cell_hash`).
    BoundaryCell,
    /// A boundary map: pack, spec, experiment and the cell hashes in order.
    BoundaryMap,
    /// A transfer evaluation's evidence (without its own `result_hash`).
    Transfer,
    /// A cross-validation arm's fold assignment over the canonical table.
    Folds,
    /// The meaning of a pack manifest: the parts of `[data]` that decide what the
    /// fixture's cells are.
    Manifest,
    /// A revision check's answer (without its own `revision_hash`).
    Revision,
    /// A learner's prediction (`counterlab.prediction/1`), recorded before any result.
    Prediction,
    /// A selection record (`counterlab.selection/1`, without its own hash).
    Selection,
    /// A capsule verification (`counterlab.capsule-report/1`, without its own hash).
    CapsuleReport,
    /// A prediction's question: its pack and claim (what the seed derivation reads).
    Question,
}

impl HashKind {
    /// The blake3 `derive_key` context string: hard-coded, unique, application-specific.
    pub fn context(self) -> &'static str {
        match self {
            HashKind::Result => "counterlab 2026-11 result v1",
            HashKind::Experiment => "counterlab 2026-11 experiment v1",
            HashKind::Payload => "counterlab 2026-11 payload v1",
            HashKind::Report => "counterlab 2026-11 report v1",
            HashKind::Membership => "counterlab 2026-11 membership v1",
            HashKind::Table => "counterlab 2026-11 table v1",
            HashKind::Row => "counterlab 2026-11 row v1",
            HashKind::Rng => "counterlab 2026-11 rng v1",
            HashKind::Rules => "counterlab 2026-11 rules v1",
            HashKind::BoundaryCell => "counterlab 2026-11 boundary cell v1",
            HashKind::BoundaryMap => "counterlab 2026-11 boundary map v1",
            HashKind::Transfer => "counterlab 2026-11 transfer v1",
            HashKind::Manifest => "counterlab 2026-12 manifest v1",
            HashKind::Folds => "counterlab 2026-12 folds v1",
            HashKind::Revision => "counterlab 2026-12 revision v1",
            HashKind::Prediction => "counterlab 2026-12 prediction v1",
            HashKind::Selection => "counterlab 2026-12 selection v1",
            HashKind::CapsuleReport => "counterlab 2026-12 capsule report v1",
            HashKind::Question => "counterlab 2026-12 question v1",
        }
    }

    /// A fresh hasher for this kind.
    pub fn hasher(self) -> blake3::Hasher {
        blake3::Hasher::new_derive_key(self.context())
    }
}

/// Appends the canonical encoding of `value` to `out`.
pub fn encode_value(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Null => out.push(0x00),
        Value::Bool(false) => out.push(0x01),
        Value::Bool(true) => out.push(0x02),
        Value::Number(number) => {
            if let Some(i) = number.as_i64() {
                out.push(0x03);
                out.extend_from_slice(&i128::from(i).to_le_bytes());
            } else if let Some(u) = number.as_u64() {
                out.push(0x03);
                out.extend_from_slice(&i128::from(u).to_le_bytes());
            } else {
                let f = number
                    .as_f64()
                    .expect("a JSON number is an integer or a float");
                encode_float(f, out);
            }
        }
        Value::String(s) => encode_str(s, out),
        Value::Array(items) => {
            out.push(0x06);
            out.extend_from_slice(&(items.len() as u64).to_le_bytes());
            for item in items {
                encode_value(item, out);
            }
        }
        Value::Object(map) => {
            out.push(0x07);
            out.extend_from_slice(&(map.len() as u64).to_le_bytes());
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            for (key, item) in entries {
                encode_str(key, out);
                encode_value(item, out);
            }
        }
    }
}

/// A float with an exact integer value in i64 range is the same number as that integer
/// (JSON has one number type: JavaScript writes `0.0` as `0`), so it is encoded as one.
fn encode_float(f: f64, out: &mut Vec<u8>) {
    // 2^63 as f64 is exact; every integral f64 in [-2^63, 2^63) converts to i64 exactly.
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    if f.fract() == 0.0 && (-TWO_63..TWO_63).contains(&f) {
        out.push(0x03);
        out.extend_from_slice(&i128::from(f as i64).to_le_bytes());
    } else {
        out.push(0x04);
        out.extend_from_slice(&f.to_bits().to_le_bytes());
    }
}

fn encode_str(s: &str, out: &mut Vec<u8>) {
    out.push(0x05);
    out.extend_from_slice(&(s.len() as u64).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

/// The bits that represent `f` in hashes: −0.0 is folded into +0.0 so that two equal
/// numbers never hash differently.
pub fn float_bits(f: f64) -> u64 {
    if f == 0.0 {
        0
    } else {
        f.to_bits()
    }
}

/// The canonical encoding of a JSON value.
pub fn canonical_bytes(value: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    encode_value(value, &mut out);
    out
}

/// A blake3 hash (hex) of a JSON value's canonical encoding under `kind`'s context.
pub fn hash_value(kind: HashKind, value: &Value) -> String {
    let mut hasher = kind.hasher();
    hasher.update(&canonical_bytes(value));
    hasher.finalize().to_hex().to_string()
}

/// A blake3 hash (hex) of any serialisable value, through its JSON value.
///
/// Fails only for values that JSON cannot hold (a NaN or infinite float, a map with
/// non-string keys): those are bugs upstream, reported rather than hashed.
pub fn hash_serialize<T: Serialize + ?Sized>(kind: HashKind, value: &T) -> Result<String> {
    let value = to_value(value)?;
    Ok(hash_value(kind, &value))
}

/// Serialises to a JSON value. Beware: serde_json turns a non-finite float into `null`; the
/// kernel's values are finite by construction (inputs are checked, undefined metrics are a
/// variant rather than NaN), and a `Value` cannot hold NaN.
pub fn to_value<T: Serialize + ?Sized>(value: &T) -> Result<Value> {
    let value = serde_json::to_value(value)
        .map_err(|e| Error::invalid(format!("cannot encode value: {e}")))?;
    Ok(value)
}

/// blake3 of a file's raw bytes, as recorded in `pack.toml` (`[data] blake3`).
pub fn file_hash(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn key_order_and_whitespace_do_not_matter() {
        let a: Value = serde_json::from_str(r#"{"b": 1, "a": [1.5, null]}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{"a":[1.5,null],"b":1}"#).unwrap();
        assert_eq!(
            hash_value(HashKind::Result, &a),
            hash_value(HashKind::Result, &b)
        );
    }

    #[test]
    fn equal_numbers_encode_equally() {
        assert_eq!(canonical_bytes(&json!(1)), canonical_bytes(&json!(1.0)));
        assert_eq!(canonical_bytes(&json!(-0.0)), canonical_bytes(&json!(0)));
        assert_ne!(canonical_bytes(&json!(1)), canonical_bytes(&json!(1.5)));
        assert_ne!(
            canonical_bytes(&json!(u64::MAX)),
            canonical_bytes(&json!(18_446_744_073_709_551_615.0))
        );
    }

    #[test]
    fn kinds_separate_domains() {
        let v = json!({"x": 1});
        assert_ne!(
            hash_value(HashKind::Result, &v),
            hash_value(HashKind::Payload, &v)
        );
    }

    #[test]
    fn encoding_is_exactly_as_documented() {
        // Hand-built from the table in the module docs.
        let mut expected = vec![0x07];
        expected.extend_from_slice(&1u64.to_le_bytes());
        expected.push(0x05);
        expected.extend_from_slice(&1u64.to_le_bytes());
        expected.push(b'k');
        expected.push(0x06);
        expected.extend_from_slice(&3u64.to_le_bytes());
        expected.push(0x03);
        expected.extend_from_slice(&(-2i128).to_le_bytes());
        expected.push(0x04);
        expected.extend_from_slice(&0.5f64.to_bits().to_le_bytes());
        expected.push(0x02);
        assert_eq!(canonical_bytes(&json!({"k": [-2, 0.5, true]})), expected);
    }
}
