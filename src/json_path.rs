//! JSON paths (`$.arms[1].split.kind`): where in a document a violation, an experiment
//! error or a counterexample is. One typed path for the schema checker, the strict parser,
//! the experiment checks, the verifier's diff and the tests' edits, so no layer rebuilds a
//! path by editing its text.
//!
//! The text form is the one every report and message has always used: `$`, then `.key` for
//! an object member and `[i]` for an array element. Keys are written as they are (a key
//! holding `.` or `[` is written ambiguously; [`JsonPath::parse`] reads only paths whose keys
//! hold neither, which every path of a counterlab format is).

use std::fmt;

use serde::{Serialize, Serializer};
use serde_json::Value;

use crate::Error;

/// One step of a JSON path.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Seg {
    /// An object member.
    Key(String),
    /// An array element.
    Index(usize),
}

/// A path from the root of a JSON document (`$` is the empty path).
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct JsonPath(Vec<Seg>);

impl JsonPath {
    /// `$`, the document itself.
    pub fn root() -> JsonPath {
        JsonPath(Vec::new())
    }

    /// `$.key`, a member of the document itself.
    pub fn field(key: &str) -> JsonPath {
        JsonPath::root().key(key)
    }

    /// The member `key` of the object at this path.
    pub fn key(&self, key: &str) -> JsonPath {
        self.with(Seg::Key(key.to_owned()))
    }

    /// The element `index` of the array at this path.
    pub fn index(&self, index: usize) -> JsonPath {
        self.with(Seg::Index(index))
    }

    fn with(&self, seg: Seg) -> JsonPath {
        let mut segs = self.0.clone();
        segs.push(seg);
        JsonPath(segs)
    }

    /// Appends a step (a walk that goes down and back up reuses one path).
    pub fn push(&mut self, seg: Seg) {
        self.0.push(seg);
    }

    /// Removes the last step, if any.
    pub fn pop(&mut self) -> Option<Seg> {
        self.0.pop()
    }

    /// The steps from the root.
    pub fn segments(&self) -> &[Seg] {
        &self.0
    }

    /// The steps from the root, owned.
    pub fn into_segments(self) -> Vec<Seg> {
        self.0
    }

    /// How many steps from the root (`$` is 0).
    pub fn depth(&self) -> usize {
        self.0.len()
    }

    /// This path read inside the value at `prefix`: `$.model.c` under `$.experiment` is
    /// `$.experiment.model.c` (an experiment's error reported inside a payload).
    pub fn under(&self, prefix: &JsonPath) -> JsonPath {
        let mut segs = prefix.0.clone();
        segs.extend(self.0.iter().cloned());
        JsonPath(segs)
    }

    /// The value at this path in `value`, if there is one.
    pub fn get<'v>(&self, value: &'v Value) -> Option<&'v Value> {
        self.0.iter().try_fold(value, |current, seg| match seg {
            Seg::Key(key) => current.get(key.as_str()),
            Seg::Index(index) => current.get(*index),
        })
    }

    /// Reads the text form `$.a.b[2]` (keys without `.` or `[`).
    pub fn parse(text: &str) -> Result<JsonPath, Error> {
        let invalid = |why: &str| Error::invalid(format!("JSON path {text:?}: {why}"));
        let rest = text
            .strip_prefix('$')
            .ok_or_else(|| invalid("must start with $"))?;
        let mut segs = Vec::new();
        let mut chars = rest;
        while !chars.is_empty() {
            if let Some(after) = chars.strip_prefix('.') {
                let end = after.find(['.', '[']).unwrap_or(after.len());
                if end == 0 {
                    return Err(invalid("a key is empty"));
                }
                segs.push(Seg::Key(after[..end].to_owned()));
                chars = &after[end..];
            } else if let Some(after) = chars.strip_prefix('[') {
                let end = after
                    .find(']')
                    .ok_or_else(|| invalid("an index is not closed with ]"))?;
                let index = after[..end]
                    .parse()
                    .map_err(|_| invalid("an index is not a whole number"))?;
                segs.push(Seg::Index(index));
                chars = &after[end + 1..];
            } else {
                return Err(invalid("expected . or [ after a step"));
            }
        }
        Ok(JsonPath(segs))
    }
}

impl From<&serde_path_to_error::Path> for JsonPath {
    /// serde's path of a deserialisation error (an enum variant counts as a key; a step
    /// serde could not name is written `?`).
    fn from(path: &serde_path_to_error::Path) -> JsonPath {
        use serde_path_to_error::Segment;
        JsonPath(
            path.iter()
                .map(|segment| match segment {
                    Segment::Seq { index } => Seg::Index(*index),
                    Segment::Map { key } => Seg::Key(key.clone()),
                    Segment::Enum { variant } => Seg::Key(variant.clone()),
                    Segment::Unknown => Seg::Key("?".to_owned()),
                })
                .collect(),
        )
    }
}

impl fmt::Display for JsonPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("$")?;
        for seg in &self.0 {
            match seg {
                Seg::Key(key) => write!(f, ".{key}")?,
                Seg::Index(index) => write!(f, "[{index}]")?,
            }
        }
        Ok(())
    }
}

/// Written as its text form, as in every report.
impl Serialize for JsonPath {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// A path equals the text that writes it (tests and look-ups by a literal path).
impl PartialEq<str> for JsonPath {
    fn eq(&self, text: &str) -> bool {
        self.to_string().as_str() == text
    }
}

impl PartialEq<&str> for JsonPath {
    fn eq(&self, text: &&str) -> bool {
        self.to_string().as_str() == *text
    }
}

#[cfg(test)]
mod tests {
    use super::{JsonPath, Seg};
    use serde_json::json;

    #[test]
    fn text_form_round_trips() {
        for text in ["$", "$.a", "$.a.b[2]", "$.arms[1].split.kind", "$[0][3].x"] {
            let path = JsonPath::parse(text).unwrap();
            assert_eq!(path.to_string(), text);
        }
        let path = JsonPath::root().key("arms").index(1).key("split");
        assert_eq!(path, "$.arms[1].split");
        assert_eq!(
            path.segments(),
            &[
                Seg::Key("arms".into()),
                Seg::Index(1),
                Seg::Key("split".into())
            ]
        );
    }

    #[test]
    fn malformed_paths_are_refused_with_the_reason() {
        for (text, why) in [
            ("a.b", "must start with $"),
            ("$.a..b", "a key is empty"),
            ("$.a[1", "not closed"),
            ("$.a[x]", "not a whole number"),
            ("$.a[-1]", "not a whole number"),
            ("$a", "expected . or ["),
        ] {
            let e = JsonPath::parse(text).unwrap_err().to_string();
            assert!(e.contains(why), "{text}: {e}");
        }
    }

    #[test]
    fn get_follows_keys_and_indices() {
        let doc = json!({"a": {"b": [10, 11, 12]}});
        let at = |text: &str| JsonPath::parse(text).unwrap().get(&doc).cloned();
        assert_eq!(at("$.a.b[2]"), Some(json!(12)));
        assert_eq!(at("$.a.b[3]"), None);
        assert_eq!(at("$.a.c"), None);
        assert_eq!(at("$"), Some(doc.clone()));
    }

    #[test]
    fn under_prefixes_a_path() {
        let inner = JsonPath::parse("$.model.c").unwrap();
        let outer = JsonPath::root().key("experiment");
        assert_eq!(inner.under(&outer), "$.experiment.model.c");
        assert_eq!(JsonPath::root().under(&outer), "$.experiment");
    }
}
