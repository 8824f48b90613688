//! The frozen verifier: recompute a recorded payload, re-run it under row-order and label
//! mutations, and answer SUPPORTS / INCONCLUSIVE / REJECTED with bounded counterexamples.
//!
//! `verify` never returns an error: whatever the bytes, the answer is a [`Report`] whose
//! verdict is data. Every check of [`CHECK_IDS`] appears in every report, in that order,
//! with status `pass`, `fail`, `unverifiable` or `skipped` and a reason for the last two.
//! Only this module can construct [`Supports`], so nothing else can print SUPPORTS.

mod boundary;
pub mod checks;
mod choices;
mod report;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use serde_json::{json, Value};

use crate::arm::{Evaluation, PreparedExperiment};
use crate::budget::{design_bytes, work_per_fit};
use crate::canon::{self, HashKind};
use crate::experiment::{Experiment, MetricName};
use crate::json;
use crate::json_path::JsonPath;
use crate::metrics::MetricValue;
use crate::pack::{LoadLimits, Lookup, Pack, Packs};
use crate::run::{self, ArmResult, Payload, RunOptions, PAYLOAD_FORMAT};
use crate::schema::Violation;
use crate::split::LookAlikes;
use crate::stats::claim::{self, ClaimSettings, Null, NullArms, PermutationRuns, Standing};
use crate::stats::mutation_seed;
pub use crate::stats::{ClaimReport, Estimate, ALPHA_RANGE, Z95};
use crate::table::Table;

pub use boundary::BOUNDARY_CHECK_IDS;
pub use checks::{CheckId, MAP_CHECKS, PAYLOAD_CHECKS};
pub use choices::Choices;
pub use report::{
    Caveat, Check, Counterexample, Counters, Established, NullDistribution, Report, Status,
    VerifierId, MAX_COUNTEREXAMPLE_BYTES, REPORT_FORMAT,
};

/// The verifier's version (changes whenever a rule changes; the rules hash pins them).
pub const VERIFIER_VERSION: &str = "counterlab-verifier/6";

/// The most label permutations K a verification runs per null.
pub const MAX_PERMUTATIONS: usize = 100_000;

/// The largest payload byte budget (`--max-payload-bytes`) accepted.
pub const MAX_PAYLOAD_BYTES_LIMIT: usize = 16 << 20;

/// Every check of a payload report, in the order they run and appear in reports.
pub const CHECK_IDS: [&str; 20] = checks::names(PAYLOAD_CHECKS);

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
    /// time (docs/VERDICTS.md, "Budgets").
    pub max_work: u64,
    /// Largest memory for the prepared designs a verification holds at once, in bytes;
    /// see [`design_bytes`].
    pub max_design_bytes: u64,
    /// Worker threads (never changes the report; at most [`crate::run::MAX_THREADS`] are
    /// used).
    pub threads: usize,
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
            max_work: 10_000_000_000,
            max_design_bytes: 512 << 20,
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
    json!({
        "version": VERIFIER_VERSION,
        "checks": CHECK_IDS,
        "max_counterexamples": MAX_COUNTEREXAMPLES,
        "active_permutations": ACTIVE_PERMUTATIONS,
        "chance_margin": CHANCE_MARGIN,
        "work_unit": "rows x ((features + 1)^2 + 32) per model fit",
        "design_bytes": "16 x rows x (features + 1) per prepared feature set, every arm (every fold of a cross-validation arm) and ablation at once",
        "work_per_arm": "one fit per arm, one per fold of a cross-validation arm",
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
        "claim_null": "metric_at_least: entity-level permutation when labels are constant within entities, else entity-block permutation (label sequences among entities with equal row counts) when entities have several rows, else row-level; metric_gap: row-level; metric_at_most: no p-value",
        "intervals": "delong | wilson | normal on independent test rows; obuchowski-clustered | cluster-robust-normal when test rows share entities; gaps add variances, except between two cross-validation arms: delong-paired (same rows, independent) or the clustered variance of the difference of influence values (…-paired)",
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
        "look_alike_caveat": "test entities without training rows whose id equals a training id under the entity-key normalisation (NFKC, case folding, invisible characters and marks removed, digits of every script, confusables skeleton, equal decimal numbers, leading zeros) are a look_alike_entities caveat of the arm",
        "capsule": "re-verified with the options it records; links REJECTED at the first failure, INCONCLUSIVE when unverifiable (another verifier); then SUPPORTS when the prediction is confirmed, REJECTED when refuted or when a check other than claim.evidence failed, INCONCLUSIVE when undecided",
    })
}

/// The canonical hash of [`rules`].
pub fn rules_hash() -> String {
    canon::hash_value(HashKind::Rules, &rules())
}

/// Verifies payload bytes against the packs. Never fails: see [`Report`].
pub fn verify(bytes: &[u8], packs: &Packs, options: &VerifyOptions) -> Report {
    let mut v = Verification::new(options);
    v.run(bytes, packs);
    v.finish(bytes)
}

/// What the bytes turned out to be, by their format.
enum Document {
    /// `counterlab.payload/1`.
    Payload(Value),
    /// `counterlab.boundary/1`.
    Map(Value),
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

    fn failed(&self) -> bool {
        self.checks.values().any(|c| c.status == Status::Fail)
    }

    // Checks that payloads and boundary maps share (same ids, same reasons).

    /// `payload.schema` fails at `path`, with the recorded value there as observed.
    fn schema_failure(&mut self, value: &Value, violation: Violation) {
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

    /// `pack.supported` is unverifiable: the verifier has no pack with this id.
    fn unknown_pack(&mut self, id: &str) {
        self.unverifiable(
            CheckId::PackSupported,
            format!("unsupported case: the verifier has no pack {id:?}"),
        );
    }

    /// `kernel.version`; false (unverifiable, an unsupported case) when the payload
    /// names another kernel or another kernel version. Read before the schema: another
    /// version's payload may have another shape, and it is no forgery. A `kernel` that is
    /// not an object of two strings is left to `payload.schema` (skipped here).
    fn kernel_supported(&mut self, value: &Value) -> bool {
        let kernel = &value["kernel"];
        let (Some(name), Some(version)) = (kernel["name"].as_str(), kernel["version"].as_str())
        else {
            self.skip(
                CheckId::KernelVersion,
                "the payload names no kernel as {name, version} strings (see payload.schema)",
            );
            return true;
        };
        if name != run::KERNEL_NAME {
            self.unverifiable(
                CheckId::KernelVersion,
                format!("unsupported case: kernel {name:?} is not counterlab"),
            );
            return false;
        }
        if version != run::KERNEL_VERSION {
            self.unverifiable(
                CheckId::KernelVersion,
                format!(
                    "unsupported case: recorded by kernel {version:?}, this verifier computes kernel {:?}",
                    run::KERNEL_VERSION
                ),
            );
            return false;
        }
        self.pass(CheckId::KernelVersion);
        true
    }

    /// `payload.schema` against the published schema (`schema`): the first violation, in
    /// document order, with its JSON path.
    fn matches_schema(&mut self, value: &Value, schema: &crate::schema::Schema) -> bool {
        match schema.violations(value).into_iter().next() {
            Some(v) => {
                self.schema_failure(value, v);
                false
            }
            None => true,
        }
    }

    /// The pack the payload names, loaded (the caller passes `pack.supported` once its
    /// own conditions hold). A pack that exists but could not be loaded because its
    /// fixture is over a budget passes `pack.supported` and leaves `budget.fixture`
    /// unverifiable; any other load failure (the verifier's own pack is broken) is an
    /// unsupported case.
    fn supported_pack<'p>(&mut self, packs: &'p Packs, id: &str) -> Option<&'p Pack> {
        match packs.lookup(id) {
            Lookup::Loaded(pack) => {
                self.pack = Some(run::PackRef::of(pack));
                Some(pack)
            }
            Lookup::Failed(error) => {
                if let crate::ErrorKind::OverBudget { .. } = error.kind() {
                    self.pass(CheckId::PackSupported);
                    self.unverifiable(CheckId::BudgetFixture, error.to_string());
                } else {
                    self.unverifiable(
                        CheckId::PackSupported,
                        format!("unsupported case: the verifier's pack {id:?} cannot be loaded: {error}"),
                    );
                }
                None
            }
            Lookup::Unknown(_) => {
                self.unknown_pack(id);
                None
            }
        }
    }

    /// `budget.fixture`; false (unverifiable) when the pack's fixture is over the byte,
    /// column or row budget.
    fn fixture_in_budget(&mut self, pack: &Pack) -> bool {
        let limits = self.options.fixture;
        let table = pack.table();
        let over = if pack.fixture_bytes() > limits.max_bytes {
            Some(format!(
                "the fixture has {} bytes, over the budget of {}",
                pack.fixture_bytes(),
                limits.max_bytes
            ))
        } else if table.n_columns() > limits.max_columns {
            Some(format!(
                "the fixture has {} columns, over the budget of {}",
                table.n_columns(),
                limits.max_columns
            ))
        } else if table.n_rows() > limits.max_rows {
            Some(format!(
                "the fixture has {} rows, over the budget of {}",
                table.n_rows(),
                limits.max_rows
            ))
        } else {
            None
        };
        match over {
            Some(reason) => {
                self.unverifiable(CheckId::BudgetFixture, reason);
                false
            }
            None => {
                self.pass(CheckId::BudgetFixture);
                true
            }
        }
    }

    /// `budget.work`: the model fits' work ([`work_units`]) and the prepared designs'
    /// memory ([`design_bytes`]) within their budgets; false (unverifiable) otherwise.
    fn work_in_budget(&mut self, work: u64, design: u64) -> bool {
        let o = self.options;
        if work > o.max_work {
            self.unverifiable(
                CheckId::BudgetWork,
                format!(
                    "{work} work units needed, over the budget of {} (--max-work)",
                    o.max_work
                ),
            );
            false
        } else if design > o.max_design_bytes {
            self.unverifiable(
                CheckId::BudgetWork,
                format!(
                    "{design} bytes of prepared designs needed, over the budget of {}",
                    o.max_design_bytes
                ),
            );
            false
        } else {
            self.pass(CheckId::BudgetWork);
            true
        }
    }

    /// `pack.manifest`: the recorded manifest hash is the verifier's pack's.
    fn check_manifest_hash(&mut self, recorded: &str, pack: &Pack, what: &str) {
        let ours = pack.manifest().meaning_hash();
        if recorded == ours {
            self.pass(CheckId::PackManifest);
        } else {
            let ce = Counterexample::new(
                CheckId::PackManifest,
                json!(recorded),
                json!(ours),
                json!({ "path": "$.pack.manifest_hash" }),
            );
            self.fail(
                CheckId::PackManifest,
                format!("the {what} was computed on a pack whose pack.toml gives the fixture another meaning (label, positive class, entity, features or time)"),
                vec![ce],
            );
        }
    }

    /// Check `id`: the hash recorded at `path` is the one computed from what is recorded.
    fn check_recorded_hash(
        &mut self,
        id: CheckId,
        recorded: &str,
        computed: &str,
        path: &str,
        reason: &str,
    ) {
        if recorded == computed {
            self.pass(id);
        } else {
            let ce = Counterexample::new(
                id,
                json!(recorded),
                json!(computed),
                json!({ "path": path }),
            );
            self.fail(id, reason, vec![ce]);
        }
    }

    /// `fixture.hash`, unverifiable, when the recorded fixture hash is one the pack lists
    /// as retired (`[data] retired_blake3`): true, and the caller checks what needs no
    /// fixture (the recorded hashes) and stops. The data it was computed on are gone, so
    /// nothing can be recomputed or checked against this fixture (`before`: the checks
    /// listed ahead of `fixture.hash` that read it, and `pack.manifest`, are skipped), and
    /// a record of an earlier fixture is not taken for a forgery: INCONCLUSIVE, like a
    /// payload of another kernel version.
    fn recorded_on_retired_fixture(
        &mut self,
        recorded: &str,
        pack: &Pack,
        what: &str,
        before: &[CheckId],
    ) -> bool {
        if !pack.retired_fixture(recorded) {
            return false;
        }
        let reason =
            format!("not checked: the {what} was recorded on a retired fixture (see fixture.hash)");
        for &id in before.iter().chain(&[CheckId::PackManifest]) {
            self.skip(id, reason.clone());
        }
        self.unverifiable(
            CheckId::FixtureHash,
            format!(
                "unsupported case: the {what} was recorded on an earlier version of pack {:?}'s fixture ({recorded}), retired in its pack.toml; this verifier has {}: run the experiment again on the current fixture",
                pack.id(),
                pack.fixture_hash()
            ),
        );
        true
    }

    /// `fixture.hash`: the recorded fixture hash is the verifier's (`what`: "payload",
    /// "map").
    fn check_fixture_hash(&mut self, recorded: &str, pack: &Pack, what: &str) {
        if recorded == pack.fixture_hash() {
            self.pass(CheckId::FixtureHash);
        } else {
            let ce = Counterexample::new(
                CheckId::FixtureHash,
                json!(recorded),
                json!(pack.fixture_hash()),
                json!({ "path": "$.pack.fixture_blake3" }),
            );
            self.fail(
                CheckId::FixtureHash,
                format!("the {what} was not computed on the verifier's fixture"),
                vec![ce],
            );
        }
    }

    /// The two pipelines share their first stages ([`Verification::read`]); the format
    /// then picks the payload's or the map's, each a sequence of named stages that stops
    /// at the first stage that cannot go on.
    fn run(&mut self, bytes: &[u8], packs: &Packs) {
        match self.read(bytes) {
            Some(Document::Payload(value)) => self.verify_payload(&value, packs),
            Some(Document::Map(value)) => self.verify_map(&value, packs),
            None => {}
        }
    }

    /// Shared stages: `budget.payload_bytes`, `payload.parse`, then the format, which fixes
    /// the check list of the report.
    fn read(&mut self, bytes: &[u8]) -> Option<Document> {
        let o = self.options;
        if bytes.len() > o.max_payload_bytes {
            self.unverifiable(
                CheckId::BudgetPayloadBytes,
                format!(
                    "payload is over the budget of {} bytes (--max-payload-bytes); {} bytes were read",
                    o.max_payload_bytes,
                    bytes.len()
                ),
            );
            return None;
        }
        self.pass(CheckId::BudgetPayloadBytes);
        let value = match json::parse_strict(bytes) {
            Ok(v) => v,
            Err(e) => {
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
                return None;
            }
        };
        self.payload_hash = Some(canon::hash_value(HashKind::Payload, &value));
        self.pass(CheckId::PayloadParse);
        match value.get("format").and_then(Value::as_str) {
            Some(crate::boundary::BOUNDARY_FORMAT) => {
                self.ids = &MAP_CHECKS;
                Some(Document::Map(value))
            }
            Some(PAYLOAD_FORMAT) => Some(Document::Payload(value)),
            _ if !value.is_object() => {
                let message = "expected an object (counterlab.payload/1 or counterlab.boundary/1)";
                self.schema_failure(&value, Violation::new(JsonPath::root(), message));
                None
            }
            _ => {
                let found = value
                    .get("format")
                    .map_or("nothing".to_owned(), Value::to_string);
                let message = format!(
                    "expected {PAYLOAD_FORMAT:?} or {:?}, found {found}",
                    crate::boundary::BOUNDARY_FORMAT
                );
                self.schema_failure(&value, Violation::new(JsonPath::field("format"), message));
                None
            }
        }
    }

    /// The map pipeline (`verify/boundary.rs`), after the shared `kernel.version` stage.
    fn verify_map(&mut self, value: &Value, packs: &Packs) {
        if self.kernel_supported(value) {
            self.run_boundary(value, packs);
        }
    }

    /// The payload pipeline: structure, supported case, integrity, recompute, invariants,
    /// the independent runs, then mutations and the claim.
    fn verify_payload(&mut self, value: &Value, packs: &Packs) {
        let Some(payload) = self.payload_structure(value) else {
            return;
        };
        let Some((pack, in_budget)) = self.supported_case(packs, &payload, value) else {
            return;
        };
        if !self.integrity(pack, &payload, value) {
            return;
        }
        if !in_budget {
            // Bounds first: nothing that runs the model happens over the work budget.
            let first = PAYLOAD_CHECKS
                .iter()
                .position(|&c| c == CheckId::RecomputeEqual)
                .expect("recompute.equal is a payload check");
            for &id in &PAYLOAD_CHECKS[first..] {
                self.skip(id, "not run: over the work budget (see budget.work)");
            }
            return;
        }
        let (table, experiment) = (pack.table(), &payload.experiment);
        // Every arm prepared once on the pack's table: the label mutations, the nulls and
        // the claim's interval below all read this one preparation.
        let Some((mut prepared, observed)) = self.recompute(pack, experiment, value) else {
            return;
        };
        let recomputed = &observed.results;
        let groups = crate::split::look_alike_groups(table);
        let look_alikes: Vec<Option<LookAlikes>> = (0..experiment.arms.len())
            .map(|index| prepared.look_alikes(index, &groups))
            .collect();
        self.caveats = caveats(experiment, recomputed, &look_alikes);
        self.invariants(experiment, &payload.results, recomputed);
        let recomputed_hash = run::result_hash(recomputed).expect("kernel results are finite");
        // The labels first (they need the ablations' designs), then only the arms' own
        // designs stay: the independent runs below prepare their own.
        let mutations_worthwhile = !self.failed();
        let active = mutations_worthwhile.then(|| self.label_active_outcomes(&prepared));
        prepared.release_ablations();
        self.rerun(pack, table, experiment, &recomputed_hash);

        // Mutations and the claim: only worth their cost when nothing failed yet.
        let mutation_checks = [
            CheckId::MutationRowOrder,
            CheckId::MutationLabelActive,
            CheckId::MutationLabelChance,
            CheckId::ClaimEvidence,
        ];
        let Some(active) = active.filter(|_| !self.failed()) else {
            for id in mutation_checks {
                self.skip(id, "not run: the payload is already rejected");
            }
            return;
        };
        self.row_order(pack, experiment, &recomputed_hash);
        self.label_active(active, &recomputed_hash);
        let row_null = self.row_null(&prepared);
        self.label_chance(experiment, &row_null);
        self.claim_evidence(&prepared, &observed, row_null);
    }

    /// Stage `kernel.version`, `payload.schema`: the payload, typed.
    fn payload_structure(&mut self, value: &Value) -> Option<Payload> {
        if !self.kernel_supported(value)
            || !self.matches_schema(value, crate::schema::Schema::payload())
        {
            return None;
        }
        match parse_payload(value) {
            Ok(p) => {
                self.pass(CheckId::PayloadSchema);
                Some(p)
            }
            Err(violation) => {
                self.schema_failure(value, violation);
                None
            }
        }
    }

    /// Stage `pack.supported`, `budget.fixture`, `budget.work`: the verifier's pack, and
    /// whether the model's work is within budget (checked now, acted on after integrity).
    /// None when verification stops here: no such pack, a fixture over budget, or a
    /// payload of a retired fixture (after its own `result.hash`, which needs no fixture).
    fn supported_case<'p>(
        &mut self,
        packs: &'p Packs,
        payload: &Payload,
        value: &Value,
    ) -> Option<(&'p Pack, bool)> {
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
        let in_budget = self.work_in_budget(
            work_units(experiment, table, self.options),
            design_bytes(experiment, table),
        );
        Some((pack, in_budget))
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
            "$.result_hash",
            "result_hash is not the canonical hash of the recorded results",
        );
    }

    /// Stage `recompute.equal`: every arm prepared and evaluated on the pack's table,
    /// compared leaf by leaf with the recorded results.
    fn recompute<'a>(
        &mut self,
        pack: &'a Pack,
        experiment: &'a Experiment,
        value: &Value,
    ) -> Option<(PreparedExperiment<'a>, Evaluation)> {
        let (table, threads) = (pack.table(), self.options.threads);
        let evaluated =
            PreparedExperiment::new(pack, table, experiment, threads).and_then(|prepared| {
                let observed = prepared.evaluate(table.labels(), threads)?;
                Ok((prepared, observed))
            });
        let (prepared, observed) = match evaluated {
            Ok(both) => both,
            Err(e) => {
                self.fail(
                    CheckId::RecomputeEqual,
                    format!("the kernel could not run the experiment: {e}"),
                    Vec::new(),
                );
                return None;
            }
        };
        let recomputed_value =
            canon::to_value(&observed.results).expect("kernel results are finite");
        let mut differences = Vec::new();
        diff_values(
            "$.results",
            &value["results"],
            &recomputed_value,
            &mut differences,
        );
        self.pass_unless(
            CheckId::RecomputeEqual,
            to_counterexamples(CheckId::RecomputeEqual, differences),
            |total| format!("{total} recorded value(s) differ from the kernel's"),
        );
        Some((prepared, observed))
    }

    /// `determinism.rerun`: the experiment run again from scratch, on another thread count.
    fn rerun(&mut self, pack: &Pack, table: &Table, experiment: &Experiment, expected: &str) {
        let o = self.options;
        let rerun_threads = if o.threads == 1 { 2 } else { 1 };
        match run::compute_results(
            pack,
            table,
            experiment,
            &RunOptions {
                threads: rerun_threads,
            },
        ) {
            Ok(again) if run::result_hash(&again).ok().as_deref() == Some(expected) => {
                self.pass(CheckId::DeterminismRerun)
            }
            Ok(again) => {
                let ce = Counterexample::new(
                    CheckId::DeterminismRerun,
                    json!(run::result_hash(&again).unwrap_or_default()),
                    json!(expected),
                    json!({ "threads": [o.threads, rerun_threads] }),
                );
                self.fail(
                    CheckId::DeterminismRerun,
                    "a second run gave another result hash",
                    vec![ce],
                );
            }
            Err(e) => self.fail(
                CheckId::DeterminismRerun,
                format!("a second run failed: {e}"),
                Vec::new(),
            ),
        }
    }

    fn invariants(
        &mut self,
        experiment: &Experiment,
        recorded: &BTreeMap<String, ArmResult>,
        recomputed: &BTreeMap<String, ArmResult>,
    ) {
        let mut overlap_ces = Vec::new();
        let mut temporal_ces = Vec::new();
        let mut identity_ces = Vec::new();
        let (mut grouped_arms, mut temporal_arms, mut identity_ablations) = (0, 0, 0);
        for arm in &experiment.arms {
            for (source, results) in [("recorded", recorded), ("recomputed", recomputed)] {
                let Some(result) = results.get(&arm.name) else {
                    continue;
                };
                let path = format!("$.results.{}", arm.name);
                if arm.split.separates_entities() {
                    grouped_arms += 1;
                    if result.overlap.entities != 0 {
                        let witness = result
                            .overlap
                            .first_entities
                            .first()
                            .cloned()
                            .unwrap_or_default();
                        overlap_ces.push(Counterexample::new(
                            CheckId::SplitZeroGroupOverlap,
                            json!(result.overlap.entities),
                            json!(0),
                            json!({ "path": format!("{path}.overlap.entities"), "source": source, "entity": witness }),
                        ));
                    }
                }
                if arm.split.orders_time() {
                    temporal_arms += 1;
                    if result.overlap.temporal_rows != Some(0) {
                        temporal_ces.push(Counterexample::new(
                            CheckId::SplitTemporalOrder,
                            json!(result.overlap.temporal_rows),
                            json!(0),
                            json!({ "path": format!("{path}.overlap.temporal_rows"), "source": source }),
                        ));
                    }
                }
                for ablation in experiment
                    .ablation_list()
                    .iter()
                    .filter(|a| a.drop.is_empty())
                {
                    identity_ablations += 1;
                    let Some(identity) = result.ablations.get(&ablation.name) else {
                        continue;
                    };
                    let same_metrics = identity
                        .metrics
                        .iter()
                        .all(|(name, value)| metric_bits_equal(value, result.metrics.get(name)));
                    if identity.changed_scores != 0 || !same_metrics {
                        identity_ces.push(Counterexample::new(
                            CheckId::AblationIdentity,
                            json!({ "changed_scores": identity.changed_scores, "metrics": canon::to_value(&identity.metrics).unwrap_or_default() }),
                            json!({ "changed_scores": 0, "metrics": canon::to_value(&result.metrics).unwrap_or_default() }),
                            json!({ "path": format!("{path}.ablations.{}", ablation.name), "source": source }),
                        ));
                    }
                }
            }
        }
        self.pass_unless_in(
            CheckId::SplitZeroGroupOverlap,
            (grouped_arms, "no entity_grouped or entity_k_fold arm"),
            overlap_ces,
            "an entity-grouped arm shares entities between train and test (of a fold)",
        );
        self.pass_unless_in(
            CheckId::SplitTemporalOrder,
            (temporal_arms, "no temporal or rolling_origin arm"),
            temporal_ces,
            "a temporal arm has test rows not after every training row (of a fold)",
        );
        self.pass_unless_in(
            CheckId::AblationIdentity,
            (identity_ablations, "no identity ablation (drop: [])"),
            identity_ces,
            "an identity ablation does not reproduce its arm bit for bit",
        );
    }

    fn row_order(&mut self, pack: &Pack, experiment: &Experiment, expected_hash: &str) {
        let o = self.options;
        if o.row_order_shuffles == 0 {
            self.unverifiable(CheckId::MutationRowOrder, "no row-order shuffles requested");
            return;
        }
        let seeds: Vec<u64> = (0..o.row_order_shuffles)
            .map(|k| mutation_seed(o.seed, "rows", k))
            .collect();
        let hashes = run::parallel_map(&seeds, o.threads, |&seed| {
            let table = pack.table().reloaded_in_shuffled_order(seed);
            run::compute_results(pack, &table, experiment, &RunOptions { threads: 1 })
                .map_err(|e| e.to_string())
                .and_then(|r| run::result_hash(&r).map_err(|e| e.to_string()))
        });
        let mut ces = Vec::new();
        for (seed, hash) in seeds.iter().zip(hashes) {
            match hash {
                Ok(h) if h == expected_hash => {}
                Ok(h) => ces.push(Counterexample::new(
                    CheckId::MutationRowOrder,
                    json!(h),
                    json!(expected_hash),
                    json!({ "mutation_seed": seed }),
                )),
                Err(e) => ces.push(Counterexample::new(
                    CheckId::MutationRowOrder,
                    json!(e),
                    json!(expected_hash),
                    json!({ "mutation_seed": seed }),
                )),
            }
        }
        self.pass_unless(CheckId::MutationRowOrder, ces, |_| {
            "a row-order shuffle of the fixture changed the result hash".to_owned()
        });
    }

    /// The result hashes of the active label mutations (None: a permutation that left
    /// every label in place), computed from the recompute's preparation.
    fn label_active_outcomes(&self, prepared: &PreparedExperiment) -> ActiveOutcomes {
        let o = self.options;
        let table = prepared.table();
        let seeds: Vec<u64> = (0..ACTIVE_PERMUTATIONS)
            .map(|k| mutation_seed(o.seed, "labels/active", k))
            .collect();
        // Only the labels change: splits, designs and overlaps are the recompute's.
        let outcomes = run::parallel_map(&seeds, o.threads, |&seed| {
            let labels = table.labels_permuted_by_row(seed);
            if labels == table.labels() {
                return Ok(None);
            }
            prepared
                .evaluate(&labels, 1)
                .map_err(|e| e.to_string())
                .and_then(|r| run::result_hash(&r.results).map_err(|e| e.to_string()))
                .map(Some)
        });
        ActiveOutcomes { seeds, outcomes }
    }

    fn label_active(&mut self, active: ActiveOutcomes, original_hash: &str) {
        let ActiveOutcomes { seeds, outcomes } = active;
        let mut ces = Vec::new();
        let mut active = 0;
        let mut errors = Vec::new();
        for (seed, outcome) in seeds.iter().zip(outcomes) {
            match outcome {
                Ok(None) => {}
                Ok(Some(hash)) if hash == original_hash => ces.push(Counterexample::new(
                    CheckId::MutationLabelActive,
                    json!(hash),
                    json!("a different result hash"),
                    json!({ "mutation_seed": seed, "mutation": "row-level label permutation" }),
                )),
                Ok(Some(_)) => active += 1,
                Err(e) => errors.push(format!("seed {seed}: {e}")),
            }
        }
        if !ces.is_empty() {
            self.fail(
                CheckId::MutationLabelActive,
                "the results do not respond to the labels",
                ces,
            );
        } else if active == 0 {
            let why = if errors.is_empty() {
                "every label permutation was vacuous".to_owned()
            } else {
                errors.join("; ")
            };
            self.unverifiable(CheckId::MutationLabelActive, why);
        } else {
            self.pass(CheckId::MutationLabelActive);
        }
    }

    /// Runs K row-level label permutations on the pack's table, refitting every arm (the
    /// chance check watches them all; the claim's p-value reuses these runs for a row null).
    fn row_null(&self, prepared: &PreparedExperiment) -> PermutationRuns {
        claim::permutation_runs(prepared, Null::Row, NullArms::All, &self.claim_settings())
    }

    fn label_chance(&mut self, experiment: &Experiment, runs: &PermutationRuns) {
        let watched: Vec<MetricName> = experiment
            .metrics
            .iter()
            .copied()
            .filter(|m| matches!(m, MetricName::RocAuc | MetricName::BalancedAccuracy))
            .collect();
        if watched.is_empty() {
            self.skip(
                CheckId::MutationLabelChance,
                "no metric with a fixed chance level (roc_auc, balanced_accuracy) is asked for",
            );
            return;
        }
        if let Some(e) = runs.first_error() {
            self.unverifiable(
                CheckId::MutationLabelChance,
                format!("a permutation could not run: {e}"),
            );
            return;
        }
        let mut ces = Vec::new();
        let mut measured = 0;
        for arm in &experiment.arms {
            for &metric in &watched {
                let values: Vec<f64> = runs.values(&arm.name, metric.as_str());
                if values.len() < 2 {
                    continue;
                }
                measured += 1;
                let (mean, sd) = mean_sd(&values);
                let limit = 0.5 + CHANCE_MARGIN.max(4.0 * sd / (values.len() as f64).sqrt());
                if mean > limit {
                    ces.push(Counterexample::new(
                        CheckId::MutationLabelChance,
                        json!(mean),
                        json!(format!("<= {limit}")),
                        json!({ "path": format!("$.results.{}.metrics.{}", arm.name, metric.as_str()), "permutations": values.len(), "mutation": "row-level label permutation" }),
                    ));
                }
            }
        }
        if !ces.is_empty() {
            self.fail(CheckId::MutationLabelChance, "a label-dependent metric stays above chance when labels are permuted: label information leaks", ces);
        } else if measured == 0 {
            self.unverifiable(
                CheckId::MutationLabelChance,
                "too few non-vacuous permutations with a defined metric",
            );
        } else {
            self.pass(CheckId::MutationLabelChance);
        }
    }

    fn claim_evidence(
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
                higher_is_claimed,
            } => {
                let ce = Counterexample::new(
                    CheckId::ClaimEvidence,
                    json!([lo, hi]),
                    json!(format!(
                        "{} {threshold}",
                        if higher_is_claimed {
                            "CI above"
                        } else {
                            "CI below"
                        }
                    )),
                    json!({ "path": "$.claim", "observed": observed }),
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

    fn claim_settings(&self) -> ClaimSettings {
        ClaimSettings {
            permutations: self.options.permutations,
            seed: self.options.seed,
            alpha: self.options.alpha,
            family: self.options.family,
            threads: self.options.threads,
        }
    }

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

/// Every arm whose recomputed test rows were seen in training: entities on both sides, and
/// test rows at or before the latest training time; in experiment order.
fn caveats(
    experiment: &Experiment,
    results: &BTreeMap<String, ArmResult>,
    look_alikes: &[Option<LookAlikes>],
) -> Vec<Caveat> {
    let claimed = |name: &str| {
        experiment
            .claim
            .as_ref()
            .is_some_and(|claim| claim.names_arm(name))
    };
    let mut out = Vec::new();
    for (index, arm) in experiment.arms.iter().enumerate() {
        let Some(result) = results.get(&arm.name) else {
            continue;
        };
        if result.overlap.entities > 0 {
            out.push(Caveat {
                arm: arm.name.clone(),
                kind: "shared_entities".into(),
                count: result.overlap.entities,
                witness: result.overlap.first_entities.first().cloned(),
                look_alike: None,
                claimed: claimed(&arm.name),
            });
        }
        if let Some(rows) = result.overlap.temporal_rows.filter(|&rows| rows > 0) {
            out.push(Caveat {
                arm: arm.name.clone(),
                kind: "temporal_overlap".into(),
                count: rows,
                witness: None,
                look_alike: None,
                claimed: claimed(&arm.name),
            });
        }
        if let Some(look_alikes) = look_alikes.get(index).and_then(Option::as_ref) {
            if let Some((test, train)) = look_alikes.first_pairs.first() {
                out.push(Caveat {
                    arm: arm.name.clone(),
                    kind: "look_alike_entities".into(),
                    count: look_alikes.entities,
                    witness: Some(test.clone()),
                    look_alike: Some(train.clone()),
                    claimed: claimed(&arm.name),
                });
            }
        }
    }
    out
}

/// Per active label mutation: its seed and the result hash it gave (None when vacuous).
struct ActiveOutcomes {
    seeds: Vec<u64>,
    outcomes: Vec<Result<Option<String>, String>>,
}

fn mean_sd(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    let mut sum = 0.0;
    for v in values {
        sum += v;
    }
    let mean = sum / n;
    let mut ss = 0.0;
    for v in values {
        ss += (v - mean) * (v - mean);
    }
    (mean, (ss / (n - 1.0)).sqrt())
}

fn metric_bits_equal(a: &MetricValue, b: Option<&MetricValue>) -> bool {
    match (a, b) {
        (MetricValue::Value(x), Some(MetricValue::Value(y))) => x.to_bits() == y.to_bits(),
        (a, Some(b)) => a == b,
        _ => false,
    }
}

/// Work in units of rows × ((features + 1)² + 32) per fit (a cross-validation arm: per
/// fold), summed over every fit a verification makes: recompute, rerun, row-order shuffles and active label permutations (all arms and
/// ablations), the claim's permutations and the claim's estimates. The permutations are
/// counted as two nulls over every arm: exact for the row null, an upper bound for an
/// entity-aware claim null, which refits only the claimed arms (the formula is a verdict
/// rule, docs/VERDICTS.md, and is kept as it was when that null refitted every arm).
pub fn work_units(experiment: &Experiment, table: &Table, o: &VerifyOptions) -> u64 {
    // Every product and sum saturates: a hostile K or shuffle count gives u64::MAX, which
    // is over any budget, never a wrapped small number.
    let per_fit = work_per_fit(experiment, table);
    let arms = crate::budget::arm_fits(experiment);
    let fits_per_run = arms.saturating_mul(1 + experiment.ablation_list().len() as u64);
    let full_runs = (o.row_order_shuffles as u64).saturating_add(2 + ACTIVE_PERMUTATIONS as u64);
    let permutation_fits = (o.permutations as u64)
        .saturating_mul(2)
        .saturating_add(2)
        .saturating_mul(arms);
    per_fit.saturating_mul(
        fits_per_run
            .saturating_mul(full_runs)
            .saturating_add(permutation_fits),
    )
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

/// Deserialises the payload with JSON paths in errors, then checks what types cannot.
fn parse_payload(value: &Value) -> Result<Payload, Violation> {
    let payload: Payload = serde_path_to_error::deserialize(value)
        .map_err(|e| Violation::new(JsonPath::from(e.path()), e.inner().to_string()))?;
    if payload.format != PAYLOAD_FORMAT {
        return Err(Violation::new(
            JsonPath::field("format"),
            format!("expected {PAYLOAD_FORMAT:?}, found {:?}", payload.format),
        ));
    }
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

/// One counterexample per difference of [`diff_values`], witnessed by its JSON path.
fn to_counterexamples(
    id: CheckId,
    differences: Vec<(String, Value, Value)>,
) -> Vec<Counterexample> {
    differences
        .into_iter()
        .map(|(path, observed, expected)| {
            Counterexample::new(id, observed, expected, json!({ "path": path }))
        })
        .collect()
}

/// Collects (path, recorded, recomputed) for every leaf that differs, in sorted-key order.
fn diff_values(
    path: &str,
    recorded: &Value,
    expected: &Value,
    out: &mut Vec<(String, Value, Value)>,
) {
    match (recorded, expected) {
        (Value::Object(a), Value::Object(b)) => {
            let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
            keys.sort();
            keys.dedup();
            for key in keys {
                let child = format!("{path}.{key}");
                match (a.get(key), b.get(key)) {
                    (Some(x), Some(y)) => diff_values(&child, x, y, out),
                    (x, y) => out.push((
                        child,
                        x.cloned().unwrap_or(json!("(absent)")),
                        y.cloned().unwrap_or(json!("(absent)")),
                    )),
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                diff_values(&format!("{path}[{i}]"), x, y, out);
            }
        }
        _ => {
            if canon::canonical_bytes(recorded) != canon::canonical_bytes(expected) {
                out.push((path.to_owned(), recorded.clone(), expected.clone()));
            }
        }
    }
}
