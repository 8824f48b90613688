//! The frozen verifier: recompute a recorded payload, re-run it under row-order and label
//! mutations, and answer SUPPORTS / INCONCLUSIVE / REJECTED with bounded counterexamples.
//!
//! `verify` never returns an error: whatever the bytes, the answer is a [`Report`] whose
//! verdict is data. Every check of [`CHECK_IDS`] appears in every report, in that order,
//! with status `pass`, `fail`, `unverifiable` or `skipped` and a reason for the last two.
//! Only this module can construct [`Supports`], so nothing else can print SUPPORTS.
//!
//! This file holds the public API and the state of one verification (the checks so far, the
//! verdict they give). The stages are one file each, in the order they run: `read.rs` (the
//! document read once: budget, parse, format), `structure.rs` (`payload.schema`), `case.rs`
//! (the supported case: kernel, pack, budgets), `integrity.rs` (the recorded hashes), then
//! the payload's pipeline (`payload.rs`: structure to recompute; `recompute.rs`,
//! `mutations.rs`, `claim.rs`) or the boundary map's (`map.rs`); `diff.rs` compares what is
//! recorded with what is recomputed, leaf by leaf.

mod case;
pub mod checks;
mod choices;
mod claim;
mod diff;
mod integrity;
mod map;
mod mutations;
mod payload;
mod read;
mod recompute;
mod report;
mod structure;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use serde_json::{json, Value};

use crate::canon;
use crate::pack::{LoadLimits, Packs};
use crate::run::{self, RunOptions, PAYLOAD_FORMAT};
pub use crate::stats::{ClaimReport, Estimate, ALPHA_RANGE, Z95};

pub use case::work_units;
pub use checks::{CheckId, MAP_CHECKS, PAYLOAD_CHECKS};
pub use choices::Choices;
pub use map::BOUNDARY_CHECK_IDS;
pub(crate) use read::{Content, Document};
pub use report::{
    Caveat, Check, Counterexample, Counters, Established, NullDistribution, Report, Status,
    VerifierId, MAX_COUNTEREXAMPLE_BYTES, REPORT_FORMAT,
};
pub(crate) use structure::experiment_error_at;

/// The verifier's version (changes whenever a rule changes; the rules hash pins them).
pub const VERIFIER_VERSION: &str = "counterlab-verifier/12";

/// The most label permutations K a verification runs per null.
pub const MAX_PERMUTATIONS: usize = 100_000;

/// The largest payload byte budget (`--max-payload-bytes`) accepted.
pub const MAX_PAYLOAD_BYTES_LIMIT: usize = crate::words::Budget::PayloadBytes.most() as usize;

/// Every check of a payload report, in the order they run and appear in reports.
pub const CHECK_IDS: [&str; 21] = checks::names(PAYLOAD_CHECKS);

/// At most this many counterexamples per check.
pub const MAX_COUNTEREXAMPLES: usize = 3;

/// Row-level label permutations used by `mutation.label.active` (full result hashes).
const ACTIVE_PERMUTATIONS: usize = 5;

/// `mutation.label.chance`: a mean permuted AUC (or balanced accuracy) above
/// 0.5 + max(CHANCE_MARGIN, 4·sd/√K) means label information leaks past the permutation.
const CHANCE_MARGIN: f64 = 0.05;

/// Enforce (exit code follows the verdict) or observe (same report, exit 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// The default.
    Enforce,
    /// For rolling the verifier out in front of an existing pipeline.
    Observe,
}

impl Mode {
    /// As written in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Enforce => "enforce",
            Mode::Observe => "observe",
        }
    }
}

/// How to verify. Every field but `threads` and `mode` can change the verdict, and all of
/// them are inputs, so the verdict is a function of (payload, pack, options).
#[derive(Debug, Clone, PartialEq)]
pub struct VerifyOptions {
    /// Enforce or observe.
    pub mode: Mode,
    /// Label permutations for the claim's p-value and the chance check (K).
    pub permutations: usize,
    /// Seeded row-order shuffles.
    pub row_order_shuffles: usize,
    /// Seed of every mutation.
    pub seed: u64,
    /// Significance level α.
    pub alpha: f64,
    /// Tests the claim's decision is one of: 1 for a payload alone, r + 1 for the last
    /// payload of a revision chain with r revisions (set by `verify_revision`). The claim
    /// is decided at α/family with the two-sided (1 − 0.05/family) interval (Bonferroni;
    /// docs/CAPSULE.md); from 1 to [`crate::stats::intervals::MAX_FAMILY`], else the
    /// claim is INCONCLUSIVE.
    pub family: u32,
    /// Largest payload accepted, in bytes (at most [`MAX_PAYLOAD_BYTES_LIMIT`]).
    pub max_payload_bytes: usize,
    /// Largest fixture accepted: bytes, header columns and rows. A pack loaded with these
    /// limits refuses an oversized fixture while reading it; `budget.fixture` checks them
    /// again on the pack it is given.
    pub fixture: LoadLimits,
    /// Largest amount of work, in units of rows × ((features + 1)² + 32) per model fit (what
    /// one Newton iteration's Hessian costs, plus the per-row work of margins, exponentials
    /// and metrics); see [`work_units`]. A deterministic count, not a
    /// time (docs/VERDICTS.md, "Budgets"). A budget a caller sets is [`Budget::given`]:
    /// no pack's `[verify] max_work` raises it.
    pub max_work: Budget,
    /// Largest memory for the prepared designs a verification holds at once, in bytes;
    /// see [`crate::budget::design_bytes`]. Given or raisable, as `max_work`.
    pub max_design_bytes: Budget,
    /// Worker threads (never changes the report; at most [`crate::run::MAX_THREADS`] are
    /// used).
    pub threads: usize,
}

/// A work or design budget of [`VerifyOptions`], and whether a pack's own budget
/// (`[verify] max_work` / `max_design_bytes` in pack.toml) may raise it. A budget is
/// either **given** — the caller's choice, which is the budget whatever a pack declares —
/// or **raisable** — a floor that a pack declaring more raises to its value (the
/// defaults are raisable). Only the two constructors make one, so a caller that sets a
/// budget says which it is: a small budget set for a test cannot be raised by a pack
/// without the caller having asked for that.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    limit: u64,
    raisable: bool,
}

impl Budget {
    /// The caller's budget: no pack raises it.
    pub const fn given(limit: u64) -> Budget {
        Budget {
            limit,
            raisable: false,
        }
    }

    /// A budget that a pack's `[verify]` raises when it declares more (what the defaults
    /// are).
    pub const fn raisable(limit: u64) -> Budget {
        Budget {
            limit,
            raisable: true,
        }
    }

    /// The budget before any pack raises it.
    pub fn limit(self) -> u64 {
        self.limit
    }

    /// Whether a pack's `[verify]` may raise it.
    pub fn is_raisable(self) -> bool {
        self.raisable
    }

    /// The budget for a pack that declares `declared` for it, with where it comes from:
    /// the pack's value when the budget is raisable and the pack declares more, else the
    /// options'.
    pub fn for_pack(self, declared: Option<u64>) -> (u64, &'static str) {
        match declared {
            Some(declared) if self.raisable && declared > self.limit => {
                (declared, "the pack's [verify]")
            }
            _ => (self.limit, "the options"),
        }
    }
}

impl Default for VerifyOptions {
    fn default() -> Self {
        VerifyOptions {
            mode: Mode::Enforce,
            permutations: 199,
            row_order_shuffles: 3,
            seed: 0,
            alpha: 0.05,
            family: 1,
            max_payload_bytes: 1 << 20,
            fixture: LoadLimits::default(),
            max_work: Budget::raisable(10_000_000_000),
            max_design_bytes: Budget::raisable(512 << 20),
            threads: RunOptions::default().threads,
        }
    }
}

/// Proof that the verifier found every check passed and the claim supported. Only this
/// module can construct it:
///
/// ```compile_fail
/// let forged = counterlab::verify::Supports { _private: () };
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Supports {
    _private: (),
}

/// The verdict, as data.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Every check passed and the evidence supports the claim.
    Supports(Supports),
    /// Nothing failed, but the claim could not be established; with the reasons.
    Inconclusive {
        /// Why (budget, unsupported case, CI straddles, p > α, …).
        reasons: Vec<String>,
    },
    /// A check failed or the evidence contradicts the claim.
    Rejected {
        /// The failing checks' counterexamples.
        counterexamples: Vec<Counterexample>,
    },
}

impl Verdict {
    /// `SUPPORTS`, `INCONCLUSIVE` or `REJECTED`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Verdict::Supports(_) => "SUPPORTS",
            Verdict::Inconclusive { .. } => "INCONCLUSIVE",
            Verdict::Rejected { .. } => "REJECTED",
        }
    }

    /// The process exit code of every front end that answers with a verdict (`verify`,
    /// `verify-revision`, a capsule): 0 SUPPORTS, 1 REJECTED, 3 INCONCLUSIVE; 0 for every
    /// verdict in observe mode.
    pub fn exit_code(&self, mode: Mode) -> i32 {
        match (mode, self) {
            (Mode::Observe, _) | (_, Verdict::Supports(_)) => 0,
            (_, Verdict::Rejected { .. }) => 1,
            (_, Verdict::Inconclusive { .. }) => 3,
        }
    }

    /// Whether this is SUPPORTS.
    pub fn is_supports(&self) -> bool {
        matches!(self, Verdict::Supports(_))
    }

    /// Whether this is REJECTED.
    pub fn is_rejected(&self) -> bool {
        matches!(self, Verdict::Rejected { .. })
    }
}

/// A verdict is written as its name (`"SUPPORTS"`, `"INCONCLUSIVE"`, `"REJECTED"`): its
/// reasons and counterexamples have their own keys in every document.
impl serde::Serialize for Verdict {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// The rule set as data; its canonical hash is the report's `rules_hash`.
pub fn rules() -> Value {
    let mut rules = json!({
        "version": VERIFIER_VERSION,
        "checks": CHECK_IDS,
        "max_counterexamples": MAX_COUNTEREXAMPLES,
        "active_permutations": ACTIVE_PERMUTATIONS,
        "chance_margin": CHANCE_MARGIN,
        "work_unit": "rows x ((features + 1)^2 + 32) per model fit",
        "design_bytes": "16 x rows x (features + 1) per prepared feature set, every arm (every fold of a cross-validation arm) and ablation at once",
        "work_per_arm": "one fit per arm, one per fold and repeat of a cross-validation arm; a permutation null fits a repeated cross-validation's first repeat only",
        "kernel_version": run::KERNEL_VERSION,
        "other_kernel_version": "unverifiable (unsupported case), never a failure",
        "retired_fixture": "a fixture hash the pack lists in [data] retired_blake3: fixture.hash unverifiable (unsupported case), never a failure; only the recorded hashes are checked, nothing is read from the fixture or recomputed",
        "alpha_range": "0 < alpha <= 0.1",
        "max_permutations": MAX_PERMUTATIONS,
        "model_fit": "a fit that did not meet its tolerance, or scores every test row alike, makes every metric that reads its scores undefined",
        "vacuous_claim": "a claim that holds for every possible value of its statistic is unverifiable",
        "manifest": "pack.manifest_hash must equal the verifier's pack manifest meaning hash",
        "chance_sd_multiplier": 4,
        "z": Z95,
        "p_value": "(b+1)/(K+1), b = non-vacuous permutations with statistic >= observed",
        "min_permutations": "ceil(1/alpha) - 1",
        "claim_null": "metric_at_least: entity-level permutation when labels are constant within entities, else entity-block permutation (label sequences among entities with equal row counts) when entities have several rows, else row-level; metric_gap with at_least: row-level, except between arms one of which fits a label-reading preparation step on all rows (prepare, fit_on all_rows: target_encode, select_k_best, oversample): no p-value, the interval decides, since permuted labels keep that leak; metric_gap with at_most or within, and metric_at_most: no p-value",
        "gap_bounds": "metric_gap at_least x: supports when CI low > x; at_most x: supports when CI high < x, contradicts when CI low > x; within m: supports when CI inside (-m, m), contradicts when CI wholly above m or below -m",
        "repeats": "k_fold and entity_k_fold take repeats R in [1, 50]; the arm's metric is the mean of the repeats' pooled metrics; an interval of R >= 2 repeats is repeated-within-between (…-clustered over clustered repeats, which the held-out-entities rule counts as clustered): mean of the values, se^2 = mean of the repeats' se^2 + between-repeat variance / R; two k_fold/entity_k_fold arms of a gap repeat equally and pair repeat r with r",
        "intervals": "delong | wilson | normal on independent test rows; obuchowski-clustered | cluster-robust-normal when test rows share entities; gaps add variances, except between two cross-validation arms: delong-paired (same rows, independent) or the clustered variance of the difference of influence values (…-paired); repeated cross-validation: repeated-within-between over the repeats' intervals; a gap with an arm that fits a label-reading preparation step on all rows: permutation-spread (se = max(the paired method's, the sd of the gap over the row null's permutations))",
        "min_gap_held_out_entities": crate::stats::MIN_GAP_HELD_OUT_ENTITIES,
        "payload_format": PAYLOAD_FORMAT,
        "boundary_format": crate::boundary::BOUNDARY_FORMAT,
        "boundary_checks": BOUNDARY_CHECK_IDS,
        "boundary_supports": "every boundary check passes: the spec is the pack's, every cell recomputes bit for bit, hashes match and every chart row equals the kernel's",
        "experiment_duplicates": "an ablation whose drop set repeats an earlier one's is invalid (payload.schema), with its JSON path",
        "model_feature_order": "the model reads the experiment's features in the pack's order",
        "family": "a claim decided as one of a family of m tests (a revision chain's last payload, m = revisions + 1, at most 3) is decided at alpha/m with the two-sided (1 - 0.05/m) interval (Bonferroni)",
        "selection_seed": "the seed a selected experiment runs with derives from the prediction's pack id and manifest meaning hash alone",
        "revisions": "at most 2; each only after a REJECTED verdict of the payload it revises (at that payload's family level); the claim, pack, seed, metrics and format fixed; a design change in the revision normal form (names, order and defaults are not changes); the selector's rules 3-7 passed again",
        "look_alike_caveat": "test entities without training rows whose id matches a training id in either tier of entity_key::look_alike (the same to a reader: NFD, invisible characters and marks removed, digits of every script, the confusables skeleton before and after case folding and NFKD, equal decimal numbers; possibly one id: O/0 and l/I/1 classes, leading zeros, separators, digit groups) are a look_alike_entities caveat of the arm",
        "temporal_caveat": "test rows at or before the latest training time are a temporal_overlap caveat of an arm only when the pack's time_kind is calendar and an arm of the experiment orders time (temporal, rolling_origin); an order within each entity (time_kind order_within_entity) is never compared across entities",
        "degenerate_interval": "a ROC AUC interval (or a ROC AUC gap's) of zero width (standard error 0: every score tied, a perfect ranking, one positive or negative entity, two arms that scored alike) is undefined",
        "scored_rows": "a gap whose two arms scored different rows reports how many rows each arm scored and how many both did (claim.scored_rows)",
        "pack_budget": "a pack's [verify] max_work and max_design_bytes each raise the work or design budget when larger, unless that budget was given explicitly",
        "look_alike_labels": "label texts with one entity key (\" 1\" and \"1\") are refused at load",
        "capsule": "re-verified with the options it records; links REJECTED at the first failure, INCONCLUSIVE when unverifiable (another verifier); then SUPPORTS when the prediction is confirmed, REJECTED when refuted or when a check other than claim.evidence failed, INCONCLUSIVE when undecided",
    });
    // Apart: one more key is past the json! macro's recursion limit.
    rules["claim_form"] = json!("a metric_gap is decided in one form: higher - lower at_most x with x <= 0 as lower - higher at_least -x (a permutation p-value), at_least x with x < 0 as lower - higher at_most -x (a margin); the report's claim is written in that form");
    rules["margin_safeguard"] = json!("a margin (metric_gap at_most x > 0 or within m, decided form) whose recorded CI supports it and whose claimed arms draw rows from the seed is SUPPORTS only if the verifier's own draw of the two claimed arms supports it too: seed from the verifier's seed (verify/margin-redraw/0), seeded assignment, max(recorded repeats, 5) repeats of each k_fold and entity_k_fold, the same interval rule (claim.redraw)");
    rules["vacuous_gap"] = json!("a metric_gap whose two arms score the same rows and give each the same prediction in every repeat (the score; the baseline class for majority_baseline_accuracy) is zero by construction, and one whose two arms are constant predictors (one class on every test row for a threshold metric, one score for roc_auc) compares nothing: both unverifiable (vacuous)");
    rules["material_margin"] = json!({
        "ceilings": crate::experiment::MetricName::ALL
            .iter()
            .map(|&m| (m.as_str().to_owned(), json!(crate::stats::material_margin(m))))
            .collect::<serde_json::Map<_, _>>(),
        "rule": "a margin (metric_gap at_most x > 0 or within m, decided form) is vacuous, unverifiable, when it is above the metric's ceiling or at least the better arm's headroom (its estimate minus the metric's chance level: 0.5 for roc_auc and balanced_accuracy, the arm's majority baseline for accuracy, 0 for accuracy_lift; none for majority_baseline_accuracy); a CI wholly beyond the margin still contradicts",
    });
    rules["over_budget_recompute"] = json!("a verification over the work budget whose one run of every arm and ablation is within it still runs recompute.equal (a recorded number that is not the kernel's is a failure); every later check is skipped");
    rules["json_bom"] =
        json!("one leading UTF-8 byte-order mark is skipped wherever a JSON document is read");
    rules["k_fold_sklearn"] = json!("a k_fold arm's sklearn assignment is KFold(shuffle=True) / RepeatedKFold with random_state = seed mod 2^32, never unshuffled; an entity_k_fold's orders entity ids as np.unique orders the exported column (as numbers when every id is an integer); the design normal form forgets the assignment, like the seed");
    rules["prepared_null"] = json!("an arm whose preparation fits a label-reading step on all rows is left out of mutation.label.chance; mutation.label.prepared reports its mean permuted roc_auc / balanced_accuracy (every permutation re-runs the preparation) when above 0.5 + max(0.05, 4 sd / sqrt(K)), as a pass with a finding, and is unverifiable (INCONCLUSIVE) when the claim is metric_at_least or metric_at_most about such an arm");
    rules["models"] = json!("logistic: scikit-learn's StandardScaler + LogisticRegression(C), the kernel's Newton solver; gbdt: scikit-learn's HistGradientBoostingClassifier(early_stopping=False) with learning_rate, max_iter, max_leaf_nodes, min_samples_leaf, l2_regularization and max_bins in their schema ranges, all rows binned (no subsample), one-hot categorical columns; a fit's work is rows x ((features + 1)^2 + 32) for the logistic model and budget::gbdt_work for the trees");
    rules
}

/// The canonical hash of [`rules`].
pub fn rules_hash() -> String {
    canon::hash_value(canon::HashKind::Rules, &rules())
}

/// Verifies payload bytes against the packs. Never fails: see [`Report`].
pub fn verify(bytes: &[u8], packs: &Packs, options: &VerifyOptions) -> Report {
    verify_read(
        &Document::read(bytes, options.max_payload_bytes),
        packs,
        options,
    )
}

/// [`verify`] of a document already read within `options.max_payload_bytes` (the dispatch
/// of `crate::document` reads each document once, then hands it here or to the capsule's
/// links; a capsule hands over the payloads it embeds, already parsed).
pub(crate) fn verify_read(
    document: &Document<'_>,
    packs: &Packs,
    options: &VerifyOptions,
) -> Report {
    let mut v = Verification::new(options);
    v.run(document, packs);
    v.finish(document.bytes())
}

/// [`verify`] of `bytes` that were written from `value` (`serde_json::to_vec`: a capsule's
/// embedded payload), without parsing them back: see `Document::written`.
pub(crate) fn verify_written(
    bytes: &[u8],
    value: &Value,
    packs: &Packs,
    options: &VerifyOptions,
) -> Report {
    let document = Document::written(bytes, value, options.max_payload_bytes);
    verify_read(&document, packs, options)
}

/// The state of one verification: the checks so far and what later checks need.
struct Verification<'o> {
    options: &'o VerifyOptions,
    /// The check list of this kind of document ([`PAYLOAD_CHECKS`] or [`MAP_CHECKS`]).
    ids: &'static [CheckId],
    checks: BTreeMap<CheckId, Check>,
    payload_hash: Option<String>,
    /// The verifier's own pack that the payload was checked against, once found.
    pack: Option<run::PackRef>,
    claim: Option<ClaimReport>,
    /// Arms whose test rows were seen in training, from the recomputed results.
    caveats: Vec<Caveat>,
    null_statistics: Vec<f64>,
    inconclusive_reasons: Vec<String>,
}

impl<'o> Verification<'o> {
    fn new(options: &'o VerifyOptions) -> Self {
        Verification {
            options,
            ids: &PAYLOAD_CHECKS,
            checks: BTreeMap::new(),
            payload_hash: None,
            pack: None,
            claim: None,
            caveats: Vec::new(),
            null_statistics: Vec::new(),
            inconclusive_reasons: Vec::new(),
        }
    }

    fn set(
        &mut self,
        id: CheckId,
        status: Status,
        reason: Option<String>,
        counterexamples: Vec<Counterexample>,
    ) {
        debug_assert!(
            self.ids.contains(&id),
            "check {id} is not of this kind of document"
        );
        let counterexamples = counterexamples
            .into_iter()
            .take(MAX_COUNTEREXAMPLES)
            .map(Counterexample::bounded)
            .collect();
        self.checks.insert(
            id,
            Check {
                id: id.as_str().to_owned(),
                status,
                reason,
                counterexamples,
            },
        );
    }

    fn pass(&mut self, id: CheckId) {
        self.set(id, Status::Pass, None, Vec::new());
    }

    /// Passes check `id` with a finding the report shows (something measured that is
    /// evidence, not a fault: `mutation.label.prepared`'s inflated null).
    fn pass_with(&mut self, id: CheckId, finding: impl Into<String>) {
        self.set(id, Status::Pass, Some(finding.into()), Vec::new());
    }

    fn fail(
        &mut self,
        id: CheckId,
        reason: impl Into<String>,
        counterexamples: Vec<Counterexample>,
    ) {
        self.set(id, Status::Fail, Some(reason.into()), counterexamples);
    }

    fn unverifiable(&mut self, id: CheckId, reason: impl Into<String>) {
        let reason = reason.into();
        self.inconclusive_reasons.push(format!("{id}: {reason}"));
        self.set(id, Status::Unverifiable, Some(reason), Vec::new());
    }

    fn skip(&mut self, id: CheckId, reason: impl Into<String>) {
        self.set(id, Status::Skipped, Some(reason.into()), Vec::new());
    }

    /// Passes check `id` when there is no counterexample; otherwise fails it, the reason
    /// given the number of counterexamples (all of them: the report keeps the first few).
    fn pass_unless(
        &mut self,
        id: CheckId,
        counterexamples: Vec<Counterexample>,
        reason: impl FnOnce(usize) -> String,
    ) {
        if counterexamples.is_empty() {
            self.pass(id);
        } else {
            let reason = reason(counterexamples.len());
            self.fail(id, reason, counterexamples);
        }
    }

    /// [`Verification::pass_unless`] for a check that applies to `applicable` parts of the
    /// experiment (arms or ablations of a kind), skipped with `none` when there are none.
    fn pass_unless_in(
        &mut self,
        id: CheckId,
        (applicable, none): (usize, &str),
        counterexamples: Vec<Counterexample>,
        reason: &str,
    ) {
        if applicable == 0 {
            self.skip(id, none);
        } else {
            self.pass_unless(id, counterexamples, |_| reason.to_owned());
        }
    }

    /// Whether a check failed (the verdict is REJECTED whatever comes next: costly stages
    /// are skipped).
    fn failed(&self) -> bool {
        self.checks.values().any(|c| c.status == Status::Fail)
    }

    /// The two pipelines share their first stages ([`Verification::read`]); the format
    /// then picks the payload's (`payload.rs`) or the map's (`map.rs`), each a sequence of
    /// named stages that stops at the first stage that cannot go on.
    fn run(&mut self, document: &Document<'_>, packs: &Packs) {
        match self.read(document) {
            Some(read::Format::Payload(value)) => self.verify_payload(value, packs),
            Some(read::Format::Map(value)) => self.verify_map(value, packs),
            None => {}
        }
    }

    /// The report: every check of the list in order (a check never reached is skipped),
    /// and the verdict they give. `bytes` are hashed for `payload_hash` only when they
    /// were never parsed.
    fn finish(self, bytes: &[u8]) -> Report {
        let mut checks = Vec::with_capacity(self.ids.len());
        let mut me = self;
        for &id in me.ids {
            let check = me.checks.remove(&id).unwrap_or_else(|| Check {
                id: id.as_str().to_owned(),
                status: Status::Skipped,
                reason: Some("not run: an earlier check stopped verification".into()),
                counterexamples: Vec::new(),
            });
            checks.push(check);
        }
        let counterexamples: Vec<Counterexample> = checks
            .iter()
            .filter(|c| c.status == Status::Fail)
            .flat_map(|c| c.counterexamples.iter().cloned())
            .collect();
        let verdict = if checks.iter().any(|c| c.status == Status::Fail) {
            Verdict::Rejected { counterexamples }
        } else if checks.iter().any(|c| c.status == Status::Unverifiable)
            || !me.inconclusive_reasons.is_empty()
        {
            Verdict::Inconclusive {
                reasons: me.inconclusive_reasons,
            }
        } else if checks
            .iter()
            .any(|c| c.id == CheckId::ClaimEvidence.as_str() && c.status == Status::Pass)
            || (me.ids == MAP_CHECKS && checks.iter().all(|c| c.status == Status::Pass))
        {
            Verdict::Supports(Supports { _private: () })
        } else {
            Verdict::Inconclusive {
                reasons: vec!["the claim was not established".into()],
            }
        };
        let payload_hash = me.payload_hash.unwrap_or_else(|| canon::file_hash(bytes));
        Report::new(
            verdict,
            me.options.mode,
            payload_hash,
            me.pack,
            checks,
            me.claim,
            me.caveats,
        )
        .with_null_statistics(me.null_statistics)
    }
}
