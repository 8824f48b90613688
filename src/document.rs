//! Any document `verify` takes — a payload, a boundary map or a Proof Capsule — with the
//! packs it names loaded and nothing else.
//!
//! This is the one entry behind the CLI's `counterlab verify` and the Python package's
//! `counterlab.verify`: both give the same report, with the same hash, for the same bytes.
//!
//! A document is read once (`Document`, src/verify/read.rs: the byte budget, then one
//! strict parse), then dispatched: the packs it names and the verifier that answers it are
//! read off that one reading, and the verifier is handed the parsed value, never the bytes
//! to parse again.

use std::path::Path;

use serde_json::Value;

use crate::capsule::{verify_read_capsule, CapsuleReport, CAPSULE_FORMAT};
use crate::error::{Error, Result};
use crate::input::{read_bounded, Bounded};
use crate::pack::Packs;
use crate::verify::{
    verify_read, Choices, Content, Document, Mode, Report, Verdict, VerifyOptions,
};

/// The answer to a document: a report (payload or boundary map) or a capsule report.
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)] // one value per verified document, returned once: a box would only add an allocation
pub enum Verified {
    /// `counterlab.report/1`, for a payload or a boundary map.
    Report(Report),
    /// `counterlab.capsule-report/1`, for a Proof Capsule.
    Capsule(CapsuleReport),
}

impl Verified {
    /// The verdict: the report's, or the capsule's answer.
    pub fn verdict(&self) -> Verdict {
        match self {
            Verified::Report(report) => report.verdict().clone(),
            Verified::Capsule(report) => report.verdict(),
        }
    }

    /// The report as JSON (`counterlab.report/1` or `counterlab.capsule-report/1`).
    pub fn to_json(&self) -> Value {
        match self {
            Verified::Report(report) => report.to_json(),
            Verified::Capsule(report) => report.to_json(),
        }
    }

    /// The process exit code: 0 SUPPORTS, 1 REJECTED, 3 INCONCLUSIVE; 0 for every verdict
    /// in observe mode.
    pub fn exit_code(&self, mode: Mode) -> i32 {
        self.verdict().exit_code(mode)
    }
}

/// Reads a document for [`verify_document`]: at most `options.max_payload_bytes + 1`
/// bytes, so a larger file gets its report (`budget.payload_bytes` unverifiable) from the
/// bytes read, never an allocation of its size. A file that cannot be read is an error.
pub fn read_document(path: &Path, options: &VerifyOptions) -> Result<Vec<u8>> {
    Ok(
        match read_bounded(path, options.max_payload_bytes as u64)? {
            Bounded::Whole(bytes) => bytes,
            Bounded::OverBudget { prefix, .. } => prefix,
        },
    )
}

/// Verifies `bytes` as whatever document they are, with the packs of `packs_dir` (default:
/// [`crate::pack::DEFAULT_PACKS_DIR`]) that the document names loaded within the options'
/// fixture budgets. A document that names no pack (not JSON, over budget, no pack field)
/// gets its report without any packs folder. Errors are only about the packs folder
/// itself; everything about the document is in the report.
pub fn verify_document(
    bytes: &[u8],
    packs_dir: Option<&Path>,
    options: &VerifyOptions,
) -> Result<Verified> {
    // Bytes past the budget are never looked at (as read_document reads them).
    let bytes = &bytes[..bytes.len().min(options.max_payload_bytes.saturating_add(1))];
    let document = Document::read(bytes, options.max_payload_bytes);
    let dispatch = Dispatch::of(&document);
    let only: Vec<&str> = dispatch.packs.iter().map(String::as_str).collect();
    let packs = if only.is_empty() {
        Packs::default()
    } else {
        Packs::open_folder(packs_dir, Some(&only), &options.fixture)?
    };
    Ok(if dispatch.capsule {
        Verified::Capsule(verify_read_capsule(document, &packs, options))
    } else {
        Verified::Report(verify_read(&document, &packs, options))
    })
}

/// Where a document read once goes: which verifier answers it, and which packs to load.
struct Dispatch {
    /// A Proof Capsule (answered by its links), else a payload or a map (by a report, which
    /// also says why anything else is neither).
    capsule: bool,
    /// The pack ids it names ([`ids_named`]).
    packs: Vec<String>,
}

impl Dispatch {
    /// Read off the document's one parse. A document the strict reader refused but
    /// serde_json reads (a duplicate key: serde_json keeps the last) is read leniently
    /// here, on this error path only, because its format has always decided its answer:
    /// a capsule with a duplicate key is answered by the capsule's `format` link, not by a
    /// payload report (and the packs it names are loaded, as they always were).
    fn of(document: &Document<'_>) -> Dispatch {
        let named = |value: &Value| Dispatch {
            capsule: is_capsule(value),
            packs: ids_named(value),
        };
        match document.content() {
            Content::Json(value) => named(value),
            Content::NotJson(_) => lenient_json(document.bytes(), usize::MAX)
                .as_ref()
                .map_or_else(Dispatch::nothing, named),
            Content::OverBudget { .. } => Dispatch::nothing(),
        }
    }

    /// A payload report that needs no pack: the document is over budget or not JSON.
    fn nothing() -> Dispatch {
        Dispatch {
            capsule: false,
            packs: Vec::new(),
        }
    }
}

/// Refuses options given for a Proof Capsule: a capsule is re-verified with the options
/// it records (`$.options`, src/capsule.rs), so a permutation count, seed, α or budget
/// given beside it would be silently ignored — an error instead, naming the first option
/// given (as `name` spells it for the front end). Other documents, and options left at
/// their defaults, pass.
pub fn refuse_choices_for_capsule(
    bytes: &[u8],
    choices: &Choices,
    name: impl Fn(&str) -> String,
) -> Result<()> {
    let given = [
        ("permutations", choices.permutations.is_some()),
        ("seed", choices.seed.is_some()),
        ("alpha", choices.alpha.is_some()),
        ("max_payload_bytes", choices.max_payload_bytes.is_some()),
        ("max_work", choices.max_work.is_some()),
        ("max_design_bytes", choices.max_design_bytes.is_some()),
    ];
    // Only when an option was given is the document looked at (the common case parses
    // nothing twice).
    let Some((option, _)) = given.iter().find(|(_, given)| *given) else {
        return Ok(());
    };
    if !lenient_json(bytes, crate::capsule::MAX_CAPSULE_BYTES)
        .as_ref()
        .is_some_and(is_capsule)
    {
        return Ok(());
    }
    Err(Error::invalid(format!(
        "{} cannot be given for a Proof Capsule: it is re-verified with the options it records ($.options), so that it answers the same from itself alone; leave the option out (or build a new capsule with it)",
        name(option)
    )))
}

/// The pack ids a document names, read leniently: `pack.id` and `experiment.pack` of a
/// payload or boundary map, `prediction.pack.id` of a capsule; none when the bytes are
/// over `max_payload_bytes` or not JSON (the verifier then reports the problem without
/// needing a pack). Loading only these keeps a verification from paying for every other
/// fixture, and a broken sibling pack from stopping it.
pub fn named_packs(bytes: &[u8], max_payload_bytes: usize) -> Vec<String> {
    lenient_json(bytes, max_payload_bytes).map_or_else(Vec::new, |v| ids_named(&v))
}

/// serde_json's own reading (a duplicate key keeps the last), for what must answer as it
/// always has before or beside a [`Document`]: the front ends' option refusal and a
/// revision chain's packs read the bytes before any verification, and the dispatch of a
/// document the strict reader refused.
fn lenient_json(bytes: &[u8], max_payload_bytes: usize) -> Option<Value> {
    if bytes.len() > max_payload_bytes {
        return None;
    }
    serde_json::from_slice::<Value>(crate::json::strip_bom(bytes)).ok()
}

fn is_capsule(value: &Value) -> bool {
    value.get("format").and_then(Value::as_str) == Some(CAPSULE_FORMAT)
}

fn ids_named(value: &Value) -> Vec<String> {
    let fields = if is_capsule(value) {
        vec![&value["prediction"]["pack"]["id"]]
    } else {
        vec![&value["pack"]["id"], &value["experiment"]["pack"]]
    };
    let mut ids: Vec<String> = fields
        .into_iter()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect();
    ids.dedup();
    ids
}
