//! A document read once, and the stages every verification starts with: `budget.payload_bytes`,
//! `payload.parse`, then the format, which fixes the report's check list.
//!
//! [`Document::read`] checks the byte budget, then parses with the strict reader
//! ([`crate::json::parse_strict`]) at most once. Everything downstream reads the one
//! [`Document`]: the dispatch of `crate::document` (which verifier answers it, which packs
//! it names), the capsule's `format` link and these stages. So no document is parsed twice,
//! and no parse ever starts on more bytes than the budget allows.

use std::borrow::Cow;

use serde_json::{json, Value};

use super::checks::{CheckId, MAP_CHECKS};
use super::{Counterexample, Verification};
use crate::boundary::BOUNDARY_FORMAT;
use crate::canon::{self, HashKind};
use crate::json::{self, ParseError};
use crate::json_path::JsonPath;
use crate::run::PAYLOAD_FORMAT;
use crate::schema::Violation;
use crate::words::{Opt, ReportWords, Words};

/// A document's bytes and what reading them once gave.
#[derive(Debug)]
pub(crate) struct Document<'b> {
    bytes: &'b [u8],
    content: Content<'b>,
}

/// What the bytes of a [`Document`] hold, as far as reading can tell (the format is the
/// reader's to judge: a payload, a map, a capsule).
#[derive(Debug)]
pub(crate) enum Content<'b> {
    /// More bytes than the budget: never parsed.
    OverBudget {
        /// The budget the bytes were read against, in bytes.
        budget: usize,
    },
    /// Within the budget, but not JSON to the strict reader: not JSON at all, or a
    /// duplicate key, a NaN, trailing content, nesting past 128 levels.
    NotJson(ParseError),
    /// Strict JSON: parsed from the bytes, or (a capsule's embedded payload) the value the
    /// bytes were written from.
    Json(Cow<'b, Value>),
}

impl<'b> Document<'b> {
    /// Reads `bytes` within `budget`: over it, nothing is parsed; else one strict parse.
    pub(crate) fn read(bytes: &'b [u8], budget: usize) -> Document<'b> {
        let content = if bytes.len() > budget {
            Content::OverBudget { budget }
        } else {
            match json::parse_strict(bytes) {
                Ok(value) => Content::Json(Cow::Owned(value)),
                Err(e) => Content::NotJson(e),
            }
        };
        Document { bytes, content }
    }

    /// The document `bytes` that were written from `value` (`serde_json::to_vec`), without
    /// parsing them back: what [`Document::read`] would give, since writing a parsed value
    /// and reading it again gives the same value (exact floats, `float_roundtrip`; no
    /// duplicate key can be written; a value that was parsed nests under the parser's
    /// limit). The budget still applies to the written bytes.
    pub(crate) fn written(bytes: &'b [u8], value: &'b Value, budget: usize) -> Document<'b> {
        let content = if bytes.len() > budget {
            Content::OverBudget { budget }
        } else {
            Content::Json(Cow::Borrowed(value))
        };
        Document { bytes, content }
    }

    /// The bytes, as given (their hash is the report's `payload_hash` when they are not
    /// JSON).
    pub(crate) fn bytes(&self) -> &'b [u8] {
        self.bytes
    }

    /// What reading the bytes gave.
    pub(crate) fn content(&self) -> &Content<'b> {
        &self.content
    }

    /// What reading the bytes gave, owned (a parsed value is moved out, not copied).
    pub(crate) fn into_content(self) -> Content<'b> {
        self.content
    }
}

/// What the verifier verifies a JSON document as: its format picks the pipeline and the
/// report's check list.
pub(super) enum Format<'v> {
    /// `counterlab.payload/1`.
    Payload(&'v Value),
    /// `counterlab.boundary/1`.
    Map(&'v Value),
}

impl Verification<'_> {
    /// Shared stages: `budget.payload_bytes`, `payload.parse`, then the format, which fixes
    /// the check list of the report. None when verification stops here.
    pub(super) fn read<'d>(&mut self, document: &'d Document<'_>) -> Option<Format<'d>> {
        let value = match document.content() {
            Content::OverBudget { budget } => {
                self.over_budget(*budget, document.bytes().len());
                return None;
            }
            Content::NotJson(e) => {
                self.pass(CheckId::BudgetPayloadBytes);
                self.not_json(e);
                return None;
            }
            Content::Json(value) => value.as_ref(),
        };
        self.pass(CheckId::BudgetPayloadBytes);
        self.payload_hash = Some(canon::hash_value(HashKind::Payload, value));
        self.pass(CheckId::PayloadParse);
        self.format(value)
    }

    /// `budget.payload_bytes` unverifiable: `read` bytes, over `budget`.
    fn over_budget(&mut self, budget: usize, read: usize) {
        self.unverifiable(
            CheckId::BudgetPayloadBytes,
            format!(
                "payload is over the budget of {budget} bytes; {read} bytes were read: raise the budget with {} (at most {})",
                ReportWords.option(Opt::MaxPayloadBytes, None),
                super::MAX_PAYLOAD_BYTES_LIMIT
            ),
        );
    }

    /// `payload.parse` fails where the strict reader stopped.
    fn not_json(&mut self, e: &ParseError) {
        let ce = Counterexample::new(
            CheckId::PayloadParse,
            json!(e.message),
            json!("a JSON document"),
            json!({ "path": e.path }),
        );
        self.fail(
            CheckId::PayloadParse,
            format!("not valid JSON at {}: {}", e.path, e.message),
            vec![ce],
        );
    }

    /// The format: a payload, a map (whose check list the report then has), or a
    /// `payload.schema` failure (not an object, or another format).
    fn format<'v>(&mut self, value: &'v Value) -> Option<Format<'v>> {
        match value.get("format").and_then(Value::as_str) {
            Some(BOUNDARY_FORMAT) => {
                self.ids = &MAP_CHECKS;
                Some(Format::Map(value))
            }
            Some(PAYLOAD_FORMAT) => Some(Format::Payload(value)),
            _ if !value.is_object() => {
                let message = "expected an object (counterlab.payload/1 or counterlab.boundary/1)";
                self.schema_failure(value, Violation::new(JsonPath::root(), message));
                None
            }
            _ => {
                let found = value
                    .get("format")
                    .map_or("nothing".to_owned(), Value::to_string);
                let message =
                    format!("expected {PAYLOAD_FORMAT:?} or {BOUNDARY_FORMAT:?}, found {found}");
                self.schema_failure(value, Violation::new(JsonPath::field("format"), message));
                None
            }
        }
    }
}
