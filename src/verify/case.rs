//! The supported case, the stages payloads and boundary maps share: `kernel.version` (the
//! document was recorded by this kernel), `pack.supported` (the verifier has its pack),
//! `budget.fixture` and `budget.work` (the verification stays within its budgets). A case
//! that is not supported is unverifiable (INCONCLUSIVE), never a failure.

use super::checks::CheckId;
use super::{Verification, VerifyOptions, ACTIVE_PERMUTATIONS};
use crate::budget::work_per_fit;
use crate::experiment::Experiment;
use crate::pack::{Lookup, Pack, Packs};
use crate::run;
use crate::table::Table;
use crate::words::{Budget, Opt, OverBudget, ReportWords, Words};
use serde_json::Value;

impl Verification<'_> {
    /// `pack.supported` is unverifiable: the verifier has no pack with this id. When a
    /// pack folder's `pack.toml` could not be read (`unknown`, the lookup's error, names
    /// it with its parse error), the reason says so: that folder may be the pack.
    fn unknown_pack(&mut self, id: &str, unknown: &crate::Error) {
        let unreadable = match unknown.kind() {
            crate::ErrorKind::UnknownPack { unreadable, .. } => unreadable.as_slice(),
            _ => &[],
        };
        let mut reason = format!("unsupported case: the verifier has no pack {id:?}");
        for (dir, why) in unreadable {
            reason.push_str(&format!(
                "; {} cannot be read, so its pack is unknown: {}",
                dir.join("pack.toml").display(),
                crate::error::one_line(why)
            ));
        }
        self.unverifiable(CheckId::PackSupported, reason);
    }

    /// `kernel.version`; false (unverifiable, an unsupported case) when the payload
    /// names another kernel or another kernel version. Read before the schema: another
    /// version's payload may have another shape, and it is no forgery. A `kernel` that is
    /// not an object of two strings is left to `payload.schema` (skipped here).
    pub(super) fn kernel_supported(&mut self, value: &Value) -> bool {
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

    /// The pack the payload names, loaded (the caller passes `pack.supported` once its
    /// own conditions hold). A pack that exists but could not be loaded because its
    /// fixture is over a budget passes `pack.supported` and leaves `budget.fixture`
    /// unverifiable; any other load failure (the verifier's own pack is broken) is an
    /// unsupported case.
    pub(super) fn supported_pack<'p>(&mut self, packs: &'p Packs, id: &str) -> Option<&'p Pack> {
        match packs.lookup(id) {
            Lookup::Loaded(pack) => {
                self.pack = Some(run::PackRef::of(pack));
                Some(pack)
            }
            Lookup::Failed(error) => {
                if let crate::ErrorKind::OverBudget(over) = error.kind() {
                    self.pass(CheckId::PackSupported);
                    self.unverifiable(CheckId::BudgetFixture, over.render(&ReportWords));
                } else {
                    self.unverifiable(
                        CheckId::PackSupported,
                        format!("unsupported case: the verifier's pack {id:?} cannot be loaded: {error}"),
                    );
                }
                None
            }
            Lookup::Unknown(error) => {
                self.unknown_pack(id, &error);
                None
            }
        }
    }

    /// `budget.fixture`; false (unverifiable) when the pack's fixture is over the byte,
    /// column or row budget.
    pub(super) fn fixture_in_budget(&mut self, pack: &Pack) -> bool {
        let limits = self.options.fixture;
        let table = pack.table();
        let path = pack.dir().join(&pack.manifest().data.file);
        let over = |budget: Budget, limit: u64, needed: u64| {
            Some(
                OverBudget {
                    path: path.clone(),
                    budget,
                    limit,
                    needed: Some(needed),
                }
                .render(&ReportWords),
            )
        };
        let over = if pack.fixture_bytes() > limits.max_bytes {
            over(Budget::FixtureBytes, limits.max_bytes, pack.fixture_bytes())
        } else if table.n_columns() > limits.max_columns {
            over(
                Budget::Columns,
                limits.max_columns as u64,
                table.n_columns() as u64,
            )
        } else if table.n_rows() > limits.max_rows {
            over(Budget::Rows, limits.max_rows as u64, table.n_rows() as u64)
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
    /// memory ([`crate::budget::design_bytes`]) within their budgets; false (unverifiable) otherwise.
    pub(super) fn work_in_budget(&mut self, pack: &Pack, work: u64, design: u64) -> bool {
        let ((max_work, work_source), (max_design, design_source)) = self.budgets(pack);
        if work > max_work {
            self.unverifiable(
                CheckId::BudgetWork,
                format!(
                    "{work} work units needed, over the budget of {max_work} ({work_source}): to verify it, pass {}, or, as the pack's author, set max_work = {work} under [verify] in pack.toml",
                    ReportWords.option(Opt::MaxWork, Some(&work.to_string()))
                ),
            );
            false
        } else if design > max_design {
            self.unverifiable(
                CheckId::BudgetWork,
                format!(
                    "{design} bytes of prepared designs needed by the budget rule, over the budget of {max_design} ({design_source}): to verify it, pass {}, or, as the pack's author, set max_design_bytes = {design} under [verify] in pack.toml",
                    ReportWords.option(Opt::MaxDesignBytes, Some(&design.to_string()))
                ),
            );
            false
        } else {
            self.pass(CheckId::BudgetWork);
            true
        }
    }

    /// Whether `work` units and `design` bytes are within the budgets, checking nothing:
    /// whether the recompute alone may run when the whole verification is over budget.
    pub(super) fn within_budgets(&self, pack: &Pack, work: u64, design: u64) -> bool {
        let ((max_work, _), (max_design, _)) = self.budgets(pack);
        work <= max_work && design <= max_design
    }

    /// The work and design budgets, each with where it comes from: the options, or the
    /// pack's `[verify]` where it raises a budget not given explicitly.
    fn budgets(&self, pack: &Pack) -> ((u64, &'static str), (u64, &'static str)) {
        let o = self.options;
        let declared = pack.manifest().verify.unwrap_or_default();
        (
            o.max_work.for_pack(declared.max_work),
            o.max_design_bytes.for_pack(declared.max_design_bytes),
        )
    }
}

/// The work of the recompute alone (`recompute.equal`): one run of every arm and
/// ablation, in [`work_units`]' units. A payload over the whole budget is still recomputed
/// when this is within it, so that a recorded number that is not the kernel's (a model
/// parameter changed after the run) is REJECTED rather than left INCONCLUSIVE.
pub(super) fn recompute_work_units(experiment: &Experiment, table: &Table) -> u64 {
    let fits = crate::budget::arm_fits(experiment)
        .saturating_mul(1 + experiment.ablation_list().len() as u64);
    work_per_fit(experiment, table).saturating_mul(fits)
}

/// Work in units of rows × ((features + 1)² + 32) per fit (a cross-validation arm: per
/// fold), summed over every fit a verification makes: recompute, rerun, row-order shuffles and active label permutations (all arms and
/// ablations), the claim's permutations and the claim's estimates. The permutations are
/// counted as two nulls over every arm: exact for the row null, an upper bound for an
/// entity-aware claim null, which refits only the claimed arms (the formula is a verdict
/// rule, docs/VERDICTS.md, and is kept as it was when that null refitted every arm). A
/// margin claim (a gap's `at_most` or `within` in its decided form) has no p-value, so no
/// second null runs and only the row null (the chance check's) is counted; its
/// safeguard's draw of the claimed arms is (`stats::margin::redraw_fits`).
pub fn work_units(experiment: &Experiment, table: &Table, o: &VerifyOptions) -> u64 {
    // Every product and sum saturates: a hostile K or shuffle count gives u64::MAX, which
    // is over any budget, never a wrapped small number.
    let per_fit = work_per_fit(experiment, table);
    let arms = crate::budget::arm_fits(experiment);
    let fits_per_run = arms.saturating_mul(1 + experiment.ablation_list().len() as u64);
    let full_runs = (o.row_order_shuffles as u64).saturating_add(2 + ACTIVE_PERMUTATIONS as u64);
    let permutation_fits = (o.permutations as u64)
        .saturating_mul(nulls_counted(experiment))
        .saturating_add(2)
        .saturating_mul(crate::budget::null_arm_fits(experiment));
    per_fit.saturating_mul(
        fits_per_run
            .saturating_mul(full_runs)
            .saturating_add(permutation_fits)
            .saturating_add(crate::stats::margin::redraw_fits(experiment)),
    )
}

/// The permutation nulls [`work_units`] counts over every arm: the row null of the chance
/// check, and a second for the claim's p-value — except for a margin (a gap's `at_most` or
/// `within` in its [decided form](Claim::decided_form): no null runs for it).
/// `metric_at_most`, which needs none either, keeps the count it has always had (an upper
/// bound), so no budget verdict of an existing claim kind moves.
fn nulls_counted(experiment: &Experiment) -> u64 {
    match &experiment.claim {
        Some(claim) if claim.is_margin() => 1,
        _ => 2,
    }
}
