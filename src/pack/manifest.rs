//! `pack.toml`: the Subject Pack manifest (docs/FORMATS.md §pack.toml).

use serde::{Deserialize, Serialize};

/// A pack's manifest, exactly the keys of `pack.toml`; unknown keys are refused.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Unique id, `[a-z0-9-]+`.
    pub id: String,
    /// One line for people.
    pub title: String,
    /// The teaching concept, e.g. `entity-leakage`.
    pub concept: String,
    /// The fixture table and the roles of its columns.
    pub data: DataSpec,
}

/// `[data]`: the fixture file and its typed columns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DataSpec {
    /// The CSV file, relative to the pack folder.
    pub file: String,
    /// blake3 of the file's bytes (64 lower-case hex digits); loading refuses a mismatch.
    pub blake3: String,
    /// The entity column (text).
    pub entity: String,
    /// The label column (text).
    pub label: String,
    /// The label text of the positive class.
    pub positive: String,
    /// Numeric feature columns, in model order.
    pub features: Vec<String>,
    /// Optional integer time column (required by temporal splits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<String>,
}

impl Manifest {
    /// Checks what serde cannot: id syntax, hash syntax, distinct column roles.
    pub(crate) fn check(&self) -> Result<(), String> {
        if self.id.is_empty()
            || !self
                .id
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        {
            return Err(format!("id {:?} must match [a-z0-9-]+", self.id));
        }
        let hash = &self.data.blake3;
        if hash.len() != 64
            || !hash
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        {
            return Err(format!(
                "data.blake3 {hash:?} must be 64 lower-case hex digits"
            ));
        }
        if self.data.features.is_empty() {
            return Err("data.features must name at least one column".into());
        }
        let mut roles: Vec<(&str, &str)> =
            vec![("entity", &self.data.entity), ("label", &self.data.label)];
        if let Some(time) = &self.data.time {
            roles.push(("time", time));
        }
        for feature in &self.data.features {
            roles.push(("features", feature));
        }
        for (i, (role_a, a)) in roles.iter().enumerate() {
            if a.is_empty() {
                return Err(format!("data.{role_a} names an empty column"));
            }
            for (role_b, b) in &roles[i + 1..] {
                if a == b {
                    return Err(format!(
                        "column {a:?} is named twice (data.{role_a} and data.{role_b})"
                    ));
                }
            }
        }
        Ok(())
    }
}
