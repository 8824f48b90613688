//! `payload.schema`, the stage payloads and boundary maps share: the published schema
//! first, then the typed reading, each failure a violation at a JSON path with the recorded
//! value there as the counterexample.

use serde::de::DeserializeOwned;
use serde_json::{json, Value};

use super::checks::CheckId;
use super::{Counterexample, Verification};
use crate::json_path::JsonPath;
use crate::schema::{Schema, Violation};

impl Verification<'_> {
    /// `payload.schema` fails at `path`, with the recorded value there as observed.
    pub(super) fn schema_failure(&mut self, value: &Value, violation: Violation) {
        let Violation { path, message } = violation;
        let observed = path.get(value).cloned().unwrap_or(Value::Null);
        let ce = Counterexample::new(
            CheckId::PayloadSchema,
            observed,
            json!(message),
            json!({ "path": path }),
        );
        self.fail(
            CheckId::PayloadSchema,
            format!("{path}: {message}"),
            vec![ce],
        );
    }

    /// `payload.schema` against the published schema (`schema`): the first violation, in
    /// document order, with its JSON path.
    pub(super) fn matches_schema(&mut self, value: &Value, schema: &Schema) -> bool {
        match schema.violations(value).into_iter().next() {
            Some(v) => {
                self.schema_failure(value, v);
                false
            }
            None => true,
        }
    }

    /// The rest of `payload.schema`: `value` read as `T` by `parse` (what the schema
    /// cannot say), passed; None once failed at the violation's path.
    pub(super) fn typed<T>(
        &mut self,
        value: &Value,
        parse: impl FnOnce(&Value) -> Result<T, Violation>,
    ) -> Option<T> {
        match parse(value) {
            Ok(typed) => {
                self.pass(CheckId::PayloadSchema);
                Some(typed)
            }
            Err(violation) => {
                self.schema_failure(value, violation);
                None
            }
        }
    }
}

/// Deserialises a document, the first error a violation at its JSON path.
pub(super) fn deserialize<T: DeserializeOwned>(value: &Value) -> Result<T, Violation> {
    serde_path_to_error::deserialize(value)
        .map_err(|e| Violation::new(JsonPath::from(e.path()), e.inner().to_string()))
}

/// `$.format` is `expected` (the schema says so too: this keeps the typed reading from
/// depending on which schema ran before it).
pub(super) fn expect_format(found: &str, expected: &str) -> Result<(), Violation> {
    if found == expected {
        Ok(())
    } else {
        Err(Violation::new(
            JsonPath::field("format"),
            format!("expected {expected:?}, found {found:?}"),
        ))
    }
}

/// An experiment error as a violation of the payload: its JSON path read under
/// `$.experiment`.
pub(crate) fn experiment_error_at(e: &crate::Error) -> Violation {
    let experiment = JsonPath::field("experiment");
    match e.kind() {
        crate::ErrorKind::Experiment { path, message } => {
            Violation::new(path.under(&experiment), message.clone())
        }
        _ => Violation::new(experiment, e.to_string()),
    }
}
