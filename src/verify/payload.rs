//! The payload pipeline (`counterlab.payload/1`), stage by stage: structure
//! (`kernel.version`, `payload.schema`), the supported case (`pack.supported`, the budgets),
//! integrity (`experiment.valid`, the recorded hashes), then what needs the model: the
//! recompute and what its results must satisfy (`recompute.rs`), an independent rerun,
//! the mutations (`mutations.rs`) and the claim (`claim.rs`). Each stage returns whether
//! verification goes on; a stage that cannot leaves the checks after it skipped.

use serde_json::{json, Value};

use super::case::recompute_work_units;
use super::checks::{CheckId, PAYLOAD_CHECKS};
use super::recompute::{caveats, look_alikes};
use super::structure::{deserialize, expect_format};
use super::{experiment_error_at, work_units, Counterexample, Verification};
use crate::budget::design_bytes;
use crate::canon::{self, HashKind};
use crate::json_path::JsonPath;
use crate::pack::{Pack, Packs};
use crate::run::{self, Payload, PAYLOAD_FORMAT};
use crate::schema::{Schema, Violation};

impl Verification<'_> {
    /// The payload pipeline, after the shared stages of `read.rs`.
    pub(super) fn verify_payload(&mut self, value: &Value, packs: &Packs) {
        let Some(payload) = self.payload_structure(value) else {
            return;
        };
        let Some((pack, budget)) = self.supported_case(packs, &payload, value) else {
            return;
        };
        if !self.integrity(pack, &payload, value) {
            return;
        }
        let skip_from = |me: &mut Self, from: CheckId, reason: &str| {
            let first = PAYLOAD_CHECKS
                .iter()
                .position(|&c| c == from)
                .expect("a payload check");
            for &id in &PAYLOAD_CHECKS[first..] {
                me.skip(id, reason);
            }
        };
        match budget {
            Budget::Within => self.recomputed_stages(pack, &payload, value),
            // Bounds first: nothing runs the model past the work budget. The recompute
            // alone is within it, so it runs: a recorded number that is not the kernel's
            // (a model parameter edited after the run) is REJECTED, not INCONCLUSIVE.
            Budget::RecomputeOnly => {
                self.recompute(pack, &payload.experiment, value);
                skip_from(
                    self,
                    CheckId::SplitZeroGroupOverlap,
                    "not run: over the work budget (see budget.work); the recompute alone was within it",
                );
            }
            Budget::Over => skip_from(
                self,
                CheckId::RecomputeEqual,
                "not run: over the work budget (see budget.work), the recompute alone too",
            ),
        }
    }

    /// Stage `kernel.version`, `payload.schema`: the payload, typed.
    fn payload_structure(&mut self, value: &Value) -> Option<Payload> {
        if !self.kernel_supported(value) || !self.matches_schema(value, Schema::payload()) {
            return None;
        }
        self.typed(value, parse_payload)
    }

    /// Stage `pack.supported`, `budget.fixture`, `budget.work`: the verifier's pack, and
    /// how much of the model's work is within budget (checked now, acted on after
    /// integrity).
    /// None when verification stops here: no such pack, a fixture over budget, or a
    /// payload of a retired fixture (after its own `result.hash`, which needs no fixture).
    fn supported_case<'p>(
        &mut self,
        packs: &'p Packs,
        payload: &Payload,
        value: &Value,
    ) -> Option<(&'p Pack, Budget)> {
        let pack = self.supported_pack(packs, &payload.pack.id)?;
        self.pass(CheckId::PackSupported);
        let before = [
            CheckId::BudgetFixture,
            CheckId::BudgetWork,
            CheckId::ExperimentValid,
        ];
        if self.recorded_on_retired_fixture(&payload.pack.fixture_blake3, pack, "payload", &before)
        {
            self.check_result_hash(payload, value);
            return None;
        }
        if !self.fixture_in_budget(pack) {
            return None;
        }
        let (table, experiment) = (pack.table(), &payload.experiment);
        let design = design_bytes(experiment, table);
        let budget =
            if self.work_in_budget(pack, work_units(experiment, table, self.options), design) {
                Budget::Within
            } else if self.within_budgets(pack, recompute_work_units(experiment, table), design) {
                Budget::RecomputeOnly
            } else {
                Budget::Over
            };
        Some((pack, budget))
    }

    /// Stage `experiment.valid`, `fixture.hash`, `pack.manifest`, `result.hash`; false when
    /// the experiment is not valid on the pack (nothing can be recomputed).
    fn integrity(&mut self, pack: &Pack, payload: &Payload, value: &Value) -> bool {
        if let Err(e) = payload.experiment.check(pack) {
            let Violation { path, message } = experiment_error_at(&e);
            let ce = Counterexample::new(
                CheckId::ExperimentValid,
                json!(message),
                json!("an experiment valid on this pack"),
                json!({ "path": path }),
            );
            self.fail(
                CheckId::ExperimentValid,
                format!("{path}: {message}"),
                vec![ce],
            );
            return false;
        }
        self.pass(CheckId::ExperimentValid);
        self.check_fixture_hash(&payload.pack.fixture_blake3, pack, "payload");
        self.check_manifest_hash(&payload.pack.manifest_hash, pack, "payload");
        self.check_result_hash(payload, value);
        true
    }

    /// `result.hash`: the recorded `result_hash` is the canonical hash of the recorded
    /// results (raw JSON); it needs no fixture.
    fn check_result_hash(&mut self, payload: &Payload, value: &Value) {
        self.check_recorded_hash(
            CheckId::ResultHash,
            &payload.result_hash,
            &canon::hash_value(HashKind::Result, &value["results"]),
            &JsonPath::field("result_hash"),
            "result_hash is not the canonical hash of the recorded results",
        );
    }

    /// The stages that run the model, within the work budget: `recompute.equal` (every
    /// arm prepared once on the pack's table), the invariants of the recorded and the
    /// recomputed results, `determinism.rerun`; then, when nothing failed, the mutations
    /// and the claim.
    fn recomputed_stages(&mut self, pack: &Pack, payload: &Payload, value: &Value) {
        let (table, experiment) = (pack.table(), &payload.experiment);
        // Every arm prepared once on the pack's table: the label mutations, the nulls and
        // the claim's interval below all read this one preparation.
        let Some((prepared, observed)) = self.recompute(pack, experiment, value) else {
            return;
        };
        let recomputed = &observed.results;
        self.caveats = caveats(
            experiment,
            pack.manifest().data.time_kind,
            recomputed,
            &look_alikes(&prepared, experiment, table),
            &(0..experiment.arms.len())
                .map(|index| prepared.temporal_rows(index))
                .collect::<Vec<_>>(),
        );
        self.invariants(experiment, &payload.results, recomputed);
        let recomputed_hash = run::result_hash(recomputed).expect("kernel results are finite");
        // The active label mutations read the recompute's splits; the independent runs
        // below split again.
        let mutations_worthwhile = !self.failed();
        let active = mutations_worthwhile.then(|| self.label_active_outcomes(&prepared));
        self.rerun(pack, table, experiment, &recomputed_hash);

        // Mutations and the claim: only worth their cost when nothing failed yet.
        let Some(active) = active.filter(|_| !self.failed()) else {
            for id in [
                CheckId::MutationRowOrder,
                CheckId::MutationLabelActive,
                CheckId::MutationLabelChance,
                CheckId::ClaimEvidence,
            ] {
                self.skip(id, "not run: the payload is already rejected");
            }
            return;
        };
        self.row_order(pack, experiment, &recomputed_hash);
        self.label_active(active, &recomputed_hash);
        // One row null (K label permutations refitting every arm) for the chance check
        // and, when the claim's null is the row null, its p-value.
        let row_null = self.row_null(&prepared);
        self.label_chance(experiment, &row_null);
        self.label_prepared(experiment, &row_null);
        self.claim_evidence(&prepared, &observed, row_null);
    }
}

/// How much of a payload's verification the work budget allows.
enum Budget {
    /// All of it.
    Within,
    /// The recompute (`recompute.equal`) only: a recorded number that is not the kernel's
    /// is still REJECTED; the rest is unverifiable.
    RecomputeOnly,
    /// None of what runs the model.
    Over,
}

/// Deserialises the payload with JSON paths in errors, then checks what types cannot.
fn parse_payload(value: &Value) -> Result<Payload, Violation> {
    let payload: Payload = deserialize(value)?;
    expect_format(&payload.format, PAYLOAD_FORMAT)?;
    if let Err(e) = payload.experiment.check_structure() {
        return Err(experiment_error_at(&e));
    }
    if payload.claim != payload.experiment.claim {
        return Err(Violation::new(
            JsonPath::field("claim"),
            "differs from $.experiment.claim",
        ));
    }
    Ok(payload)
}
