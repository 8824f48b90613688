//! `claim.evidence`, the last stage of a payload: the claim decided on the recomputed
//! evidence (its interval, and its p-value from a permutation null: the row null the
//! chance check ran, or the claim's own entity-aware null) by `crate::stats::claim`. The
//! claim report and the null's statistics go into the report.

use serde_json::json;

use super::checks::CheckId;
use super::{Counterexample, Verification};
use crate::arm::{Evaluation, PreparedExperiment};
use crate::json_path::JsonPath;
use crate::stats::claim::{self, ClaimSettings, PermutationRuns, Standing};

impl Verification<'_> {
    /// `claim.evidence`: pass when the evidence supports the claim, fail when its interval
    /// lies entirely on the wrong side, unverifiable otherwise (with the reasons); skipped,
    /// and the verdict INCONCLUSIVE, for a payload that makes no claim.
    pub(super) fn claim_evidence(
        &mut self,
        prepared: &PreparedExperiment,
        observed: &Evaluation,
        row_null: PermutationRuns,
    ) {
        let Some(claim) = &prepared.experiment().claim else {
            self.skip(CheckId::ClaimEvidence, "the payload makes no claim");
            self.inconclusive_reasons
                .push("the payload makes no claim (its numbers were verified)".into());
            return;
        };
        let evaluation = claim::evaluate(
            prepared,
            claim,
            observed,
            Some(row_null),
            &self.claim_settings(),
        );
        self.claim = evaluation.report;
        self.null_statistics = evaluation.null_statistics;
        match evaluation.standing {
            Standing::Supports => self.pass(CheckId::ClaimEvidence),
            Standing::Contradicts {
                ci: [lo, hi],
                observed,
                threshold,
                side,
            } => {
                let ce = Counterexample::new(
                    CheckId::ClaimEvidence,
                    json!([lo, hi]),
                    json!(side.interval_needed(threshold)),
                    json!({ "path": JsonPath::field("claim"), "observed": observed }),
                );
                self.fail(
                    CheckId::ClaimEvidence,
                    "the evidence contradicts the claim: the CI lies entirely on the wrong side",
                    vec![ce],
                );
            }
            Standing::Inconclusive(reasons) => self.unverifiable(CheckId::ClaimEvidence, reasons),
        }
    }

    /// The claim's settings, from the options: the row null of the chance check and the
    /// claim's own null run with the same ones.
    pub(super) fn claim_settings(&self) -> ClaimSettings {
        ClaimSettings {
            permutations: self.options.permutations,
            seed: self.options.seed,
            alpha: self.options.alpha,
            family: self.options.family,
            threads: self.options.threads,
        }
    }
}
