//! Strict JSON reading (payloads, maps, experiments, `counterlab hash`): duplicate keys
//! refused, errors located by JSON path.
//!
//! `serde_json::Value` silently keeps the last of two equal keys, so a payload could
//! carry two `"random_rows"` results and show a reader the other one. This reader builds
//! the same `Value` but refuses a duplicate key, and remembers the deepest JSON path
//! reached when anything fails (a NaN literal, a truncated file, nesting past serde_json's
//! recursion limit of 128).

use std::cell::RefCell;
use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

use crate::json_path::{JsonPath, Seg};

/// A parse failure: where (JSON path, or `$` with line/column) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// JSON path of the deepest value reached, e.g. `$.results.random_rows.metrics`.
    pub path: JsonPath,
    /// What went wrong (serde_json's message, with its line and column).
    pub message: String,
}

/// `bytes` without a leading UTF-8 byte-order mark (`EF BB BF`), which Windows editors
/// and PowerShell's `Out-File` write: a mark is not JSON to serde_json, but the document
/// after it is the one the user saved (RFC 8259 §8.1 lets a parser ignore it). Every
/// JSON document counterlab reads goes through here, as every CSV goes through
/// `csv_input`, which skips the mark too.
pub fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes)
}

/// Parses JSON text into a `Value`, refusing duplicate keys and trailing content; a
/// leading byte-order mark is skipped ([`strip_bom`]).
pub fn parse_strict(bytes: &[u8]) -> Result<Value, ParseError> {
    let bytes = strip_bom(bytes);
    let path = RefCell::new(JsonPath::root());
    let failed_at = RefCell::new(None::<JsonPath>);
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let seed = Strict {
        path: &path,
        failed_at: &failed_at,
    };
    let result = seed
        .deserialize(&mut deserializer)
        .and_then(|v| deserializer.end().map(|()| v));
    result.map_err(|e| ParseError {
        path: failed_at.into_inner().unwrap_or_default(),
        message: explained(bytes, &e),
    })
}

/// What every number counterlab reads must be: serde_json's messages for a number past it
/// ("number out of range") or for a literal JSON lacks ("expected value") do not say so.
const FINITE_RANGE: &str =
    "a number must be finite, at most 1.7976931348623157e308 in magnitude (f64's finite range)";

/// serde_json's message, with the finite range added when a number is out of it or is
/// written as `Infinity`/`NaN` (Python's `json.dumps` writes `float("inf")`, and so `1e999`,
/// as `Infinity`).
fn explained(bytes: &[u8], e: &serde_json::Error) -> String {
    let message = e.to_string();
    if message.starts_with("number out of range") {
        return format!("{message}: {FINITE_RANGE}");
    }
    // `Infinity` and `NaN` are no value to serde_json; `-Infinity` an invalid number.
    if message.starts_with("expected value") || message.starts_with("invalid number") {
        if let Some(token) = non_finite_literal(bytes, e.line(), e.column()) {
            return format!(
                "{token} is not a JSON number (line {}, column {}): {FINITE_RANGE}; JSON has no Infinity or NaN",
                e.line(),
                e.column()
            );
        }
    }
    message
}

/// The `Infinity`, `-Infinity`, `NaN` or `inf` literal at line `line`, column `column`
/// (1-based, as serde_json counts) of `bytes`, if that is what stands there.
fn non_finite_literal(bytes: &[u8], line: usize, column: usize) -> Option<String> {
    let start = bytes
        .split(|&b| b == b'\n')
        .take(line.saturating_sub(1))
        .map(|l| l.len() + 1)
        .sum::<usize>();
    let at = (start + column.saturating_sub(1)).min(bytes.len());
    let is_token = |b: u8| b.is_ascii_alphabetic() || b == b'-' || b == b'+';
    let mut first = at;
    while first > start && bytes.get(first - 1).copied().is_some_and(is_token) {
        first -= 1;
    }
    let mut end = at;
    while bytes.get(end).copied().is_some_and(is_token) {
        end += 1;
    }
    let token = std::str::from_utf8(bytes.get(first..end)?).ok()?;
    let bare = token.trim_start_matches(['-', '+']).to_ascii_lowercase();
    ["infinity", "inf", "nan"]
        .contains(&bare.as_str())
        .then(|| token.to_owned())
}

#[derive(Clone, Copy)]
struct Strict<'a> {
    path: &'a RefCell<JsonPath>,
    failed_at: &'a RefCell<Option<JsonPath>>,
}

impl Strict<'_> {
    fn note_failure(&self) {
        let mut failed_at = self.failed_at.borrow_mut();
        if failed_at.is_none() {
            *failed_at = Some(self.path.borrow().clone());
        }
    }
}

impl<'de> DeserializeSeed<'de> for Strict<'_> {
    type Value = Value;
    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        let result = deserializer.deserialize_any(self);
        if result.is_err() {
            self.note_failure();
        }
        result
    }
}

impl<'de> Visitor<'de> for Strict<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom("non-finite number"))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        loop {
            self.path.borrow_mut().push(Seg::Index(items.len()));
            let next = seq.next_element_seed(self);
            if next.is_err() {
                self.note_failure();
            }
            self.path.borrow_mut().pop();
            match next? {
                Some(item) => items.push(item),
                None => return Ok(Value::Array(items)),
            }
        }
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        loop {
            let key = match map.next_key::<String>() {
                Ok(Some(key)) => key,
                Ok(None) => return Ok(Value::Object(out)),
                Err(e) => {
                    self.note_failure();
                    return Err(e);
                }
            };
            self.path.borrow_mut().push(Seg::Key(key.clone()));
            if out.contains_key(&key) {
                self.note_failure();
                self.path.borrow_mut().pop();
                return Err(de::Error::custom(format!("duplicate key {key:?}")));
            }
            let value = map.next_value_seed(self);
            if value.is_err() {
                self.note_failure();
            }
            self.path.borrow_mut().pop();
            out.insert(key, value?);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_keys_are_refused_with_their_path() {
        let e = parse_strict(br#"{"a": {"b": 1, "b": 2}}"#).unwrap_err();
        assert_eq!(e.path, "$.a.b");
        assert!(e.message.contains("duplicate key"), "{}", e.message);
    }

    #[test]
    fn bad_literals_and_truncation_are_located() {
        let e = parse_strict(br#"{"a": [1, NaN]}"#).unwrap_err();
        assert_eq!(e.path, "$.a[1]");
        let e = parse_strict(br#"{"a": {"b": [1, 2"#).unwrap_err();
        assert_eq!(e.path, "$.a.b[2]");
        assert!(parse_strict(b"").is_err());
        assert!(parse_strict(b"{} {}").is_err());
    }

    #[test]
    fn a_number_out_of_range_says_the_finite_range_with_its_path() {
        let e = parse_strict(br#"{"claim": {"within": 1e999}}"#).unwrap_err();
        assert_eq!(e.path, "$.claim.within");
        assert!(
            e.message.starts_with("number out of range"),
            "{}",
            e.message
        );
        assert!(
            e.message.contains("1.7976931348623157e308"),
            "{}",
            e.message
        );
        for literal in ["Infinity", "-Infinity", "NaN"] {
            let text = format!("{{\"claim\":\n  {{\"within\": {literal}}}}}");
            let e = parse_strict(text.as_bytes()).unwrap_err();
            assert_eq!(e.path, "$.claim.within");
            assert!(
                e.message
                    .starts_with(&format!("{literal} is not a JSON number")),
                "{}",
                e.message
            );
            assert!(
                e.message.contains("1.7976931348623157e308"),
                "{}",
                e.message
            );
        }
        // Other malformed values keep serde_json's message.
        let e = parse_strict(br#"{"a": tru}"#).unwrap_err();
        assert!(!e.message.contains("finite"), "{}", e.message);
    }

    #[test]
    fn a_leading_byte_order_mark_is_skipped_and_nothing_else() {
        let marked = b"\xef\xbb\xbf{\"a\": [1, 2.5]}";
        assert_eq!(
            parse_strict(marked).unwrap(),
            serde_json::json!({"a": [1, 2.5]})
        );
        // Only one mark, only at the start: a second one, or one inside, is not JSON.
        assert!(parse_strict(b"\xef\xbb\xbf\xef\xbb\xbf{}").is_err());
        assert!(parse_strict(b"{}\xef\xbb\xbf").is_err());
    }

    #[test]
    fn deep_nesting_fails_cleanly() {
        let deep = "[".repeat(100_000);
        let e = parse_strict(deep.as_bytes()).unwrap_err();
        assert!(e.message.contains("recursion limit"), "{}", e.message);
    }

    #[test]
    fn same_value_as_serde_json() {
        let text = br#"{"x": [1, -2, 0.5, 1e21, "s", null, true, {"k": 1.0}]}"#;
        assert_eq!(
            parse_strict(text).unwrap(),
            serde_json::from_slice::<Value>(text).unwrap()
        );
    }
}
