//! `counterlab.prediction/1`: what a learner believes about an evaluation, recorded before
//! any result exists — the first link of the authority chain (docs/FORMATS.md).
//!
//! A prediction names the pack (id and manifest meaning hash, so it cannot be moved to
//! other data), a claim in the experiment vocabulary, the predicted outcome (the claim
//! holds / does not hold, or a transfer choice id) and optionally the blake3 of the
//! learner's rationale and of an outside timestamp token. Its schema has a closed key set,
//! so a "prediction" that carries results, observed values or a verdict is refused. Its
//! canonical hash has its own domain separator ([`HashKind::Prediction`]).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::canon::{self, HashKind};
use crate::error::{Error, Result};
use crate::experiment::Claim;
use crate::json_path::JsonPath;
use crate::pack::Pack;
use crate::schema::Schema;
use crate::transfer::TransferEvaluation;
use crate::verify::Established;

/// The format string of a prediction.
pub const PREDICTION_FORMAT: &str = "counterlab.prediction/1";
/// Largest prediction file read, in bytes.
pub const MAX_PREDICTION_BYTES: u64 = 64 << 10;

/// The pack a prediction is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PredictionPack {
    /// The pack id.
    pub id: String,
    /// The manifest's meaning hash (`Manifest::meaning_hash`).
    pub manifest_hash: String,
}

/// The predicted outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Predicted {
    /// `"holds"` or `"does_not_hold"`.
    Outcome(Outcome),
    /// `{"transfer_choice": id}`: the choice the learner expects to be valid.
    TransferChoice {
        /// The choice id of the pack's transfer task.
        transfer_choice: String,
    },
}

/// Whether the claim is predicted to hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The claim holds: confirmed when the verifier answers SUPPORTS, refuted when its
    /// evidence contradicts the claim.
    Holds,
    /// The claim does not hold: confirmed when the verifier's evidence contradicts it (the
    /// interval wholly on the wrong side of the threshold, every other check passed),
    /// refuted when it answers SUPPORTS. An undecided claim decides neither.
    DoesNotHold,
}

/// What the evidence says of a prediction (docs/CAPSULE.md, "What a capsule answers").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// The evidence agrees with the prediction.
    Confirmed,
    /// The evidence contradicts the prediction.
    Refuted,
    /// The evidence decides neither way.
    Undecided,
}

impl Answer {
    /// As written in a capsule report.
    pub fn as_str(self) -> &'static str {
        match self {
            Answer::Confirmed => "confirmed",
            Answer::Refuted => "refuted",
            Answer::Undecided => "undecided",
        }
    }
}

/// A learner's prediction (`counterlab.prediction/1`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Prediction {
    /// `counterlab.prediction/1`.
    pub format: String,
    /// The pack.
    pub pack: PredictionPack,
    /// The claim, in the experiment vocabulary.
    pub claim: Claim,
    /// The predicted outcome.
    pub predicted: Predicted,
    /// blake3 of the learner's rationale text, if recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rationale_blake3: Option<String>,
    /// blake3 of an outside timestamp token over the prediction hash, if bound.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp_token_blake3: Option<String>,
}

/// Records a prediction about `claim` on `pack` (the rationale's bytes are hashed, not kept).
pub fn predict(
    pack: &Pack,
    claim: Claim,
    predicted: Predicted,
    rationale: Option<&[u8]>,
) -> Prediction {
    Prediction {
        format: PREDICTION_FORMAT.to_owned(),
        pack: PredictionPack {
            id: pack.id().to_owned(),
            manifest_hash: pack.manifest().meaning_hash(),
        },
        claim,
        predicted,
        rationale_blake3: rationale.map(canon::file_hash),
        timestamp_token_blake3: None,
    }
}

impl Prediction {
    /// Reads a prediction: strict JSON, then its schema (a closed key set: result-like
    /// fields are refused with their JSON path), then the claim's own rules.
    pub fn from_json(bytes: &[u8]) -> Result<Prediction> {
        if bytes.len() as u64 > MAX_PREDICTION_BYTES {
            return Err(Error::experiment(
                JsonPath::root(),
                format!(
                    "{} bytes, over the prediction budget of {MAX_PREDICTION_BYTES}",
                    bytes.len()
                ),
            ));
        }
        let value =
            crate::json::parse_strict(bytes).map_err(|e| Error::experiment(e.path, e.message))?;
        Prediction::from_value(&value)
    }

    /// [`Prediction::from_json`] on a parsed value.
    pub fn from_value(value: &Value) -> Result<Prediction> {
        if let Some(v) = Schema::prediction().violations(value).into_iter().next() {
            return Err(Error::experiment(v.path, v.message));
        }
        let prediction: Prediction = serde_path_to_error::deserialize(value)
            .map_err(|e| Error::experiment(JsonPath::from(e.path()), e.inner().to_string()))?;
        if let Claim::MetricGap { higher, lower, .. } = &prediction.claim {
            if higher == lower {
                return Err(Error::experiment(
                    JsonPath::field("claim").key("lower"),
                    format!("a gap claim compares two arms; both are {higher:?}"),
                ));
            }
        }
        if prediction.format != PREDICTION_FORMAT {
            return Err(Error::experiment(
                JsonPath::field("format"),
                format!("expected {PREDICTION_FORMAT:?}"),
            ));
        }
        Ok(prediction)
    }

    /// The prediction as JSON.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).expect("a prediction serialises")
    }

    /// Its canonical hash (context `counterlab 2026-12 prediction v1`).
    pub fn prediction_hash(&self) -> String {
        canon::hash_value(HashKind::Prediction, &self.to_json())
    }

    /// The hash of its question alone — the pack and the claim (context `counterlab 2026-12
    /// question v1`) — without the predicted outcome, the rationale or the timestamp: two
    /// predictions with one question hash ask the same thing. (The selector's seed reads
    /// only the pack: `select::derived_seed`.)
    pub fn question_hash(&self) -> String {
        canon::hash_value(
            HashKind::Question,
            &serde_json::json!({"pack": self.pack, "claim": self.claim}),
        )
    }

    /// What the evidence says of this prediction: what the claim's verification
    /// `established`, and for a transfer choice whether the `transfer` evaluation finds
    /// that choice valid (undecided when it was not evaluated). With the reason, in words.
    pub fn answer(
        &self,
        established: &Established,
        transfer: Option<&TransferEvaluation>,
    ) -> (Answer, String) {
        match (&self.predicted, established) {
            (Predicted::TransferChoice { transfer_choice }, _) => match transfer
                .map(|t| t.valid_choices.contains(transfer_choice))
            {
                Some(true) => (
                    Answer::Confirmed,
                    format!("the transfer evaluation finds choice {transfer_choice:?} valid"),
                ),
                Some(false) => (
                    Answer::Refuted,
                    format!("the transfer evaluation finds choice {transfer_choice:?} not valid"),
                ),
                None => (
                    Answer::Undecided,
                    "the transfer evaluation was not made".into(),
                ),
            },
            (Predicted::Outcome(outcome), Established::Holds(_)) => (
                if *outcome == Outcome::Holds {
                    Answer::Confirmed
                } else {
                    Answer::Refuted
                },
                "the claim is SUPPORTED: it holds".into(),
            ),
            (Predicted::Outcome(outcome), Established::DoesNotHold(_)) => (
                if *outcome == Outcome::DoesNotHold {
                    Answer::Confirmed
                } else {
                    Answer::Refuted
                },
                "the claim's interval lies wholly on the wrong side of its threshold: it does not hold".into(),
            ),
            (Predicted::Outcome(_), Established::Neither) => (
                Answer::Undecided,
                "the verification decides the claim neither way".into(),
            ),
        }
    }

    /// Whether it is about `pack` (same id and manifest meaning).
    pub fn is_about(&self, pack: &Pack) -> bool {
        self.pack.id == pack.id() && self.pack.manifest_hash == pack.manifest().meaning_hash()
    }
}
