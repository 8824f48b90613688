//! The verifier's checks by name: a closed enum, so that a misspelt check id is a compile
//! error, and the two check lists (payloads and boundary maps) in report order.

/// One check of a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CheckId {
    /// `budget.payload_bytes`
    BudgetPayloadBytes,
    /// `payload.parse`
    PayloadParse,
    /// `kernel.version`
    KernelVersion,
    /// `payload.schema`
    PayloadSchema,
    /// `pack.supported`
    PackSupported,
    /// `budget.fixture`
    BudgetFixture,
    /// `budget.work`
    BudgetWork,
    /// `experiment.valid`
    ExperimentValid,
    /// `fixture.hash`
    FixtureHash,
    /// `pack.manifest`
    PackManifest,
    /// `result.hash`
    ResultHash,
    /// `recompute.equal`
    RecomputeEqual,
    /// `split.zero_group_overlap`
    SplitZeroGroupOverlap,
    /// `split.temporal_order`
    SplitTemporalOrder,
    /// `ablation.identity`
    AblationIdentity,
    /// `determinism.rerun`
    DeterminismRerun,
    /// `mutation.row_order`
    MutationRowOrder,
    /// `mutation.label.active`
    MutationLabelActive,
    /// `mutation.label.chance`
    MutationLabelChance,
    /// `mutation.label.prepared`
    MutationLabelPrepared,
    /// `claim.evidence`
    ClaimEvidence,
    /// `boundary.spec`
    BoundarySpec,
    /// `boundary.cell_hash`
    BoundaryCellHash,
    /// `boundary.map_hash`
    BoundaryMapHash,
    /// `chart.provenance`
    ChartProvenance,
}

impl CheckId {
    /// The id as written in reports.
    pub const fn as_str(self) -> &'static str {
        match self {
            CheckId::BudgetPayloadBytes => "budget.payload_bytes",
            CheckId::PayloadParse => "payload.parse",
            CheckId::KernelVersion => "kernel.version",
            CheckId::PayloadSchema => "payload.schema",
            CheckId::PackSupported => "pack.supported",
            CheckId::BudgetFixture => "budget.fixture",
            CheckId::BudgetWork => "budget.work",
            CheckId::ExperimentValid => "experiment.valid",
            CheckId::FixtureHash => "fixture.hash",
            CheckId::PackManifest => "pack.manifest",
            CheckId::ResultHash => "result.hash",
            CheckId::RecomputeEqual => "recompute.equal",
            CheckId::SplitZeroGroupOverlap => "split.zero_group_overlap",
            CheckId::SplitTemporalOrder => "split.temporal_order",
            CheckId::AblationIdentity => "ablation.identity",
            CheckId::DeterminismRerun => "determinism.rerun",
            CheckId::MutationRowOrder => "mutation.row_order",
            CheckId::MutationLabelActive => "mutation.label.active",
            CheckId::MutationLabelChance => "mutation.label.chance",
            CheckId::MutationLabelPrepared => "mutation.label.prepared",
            CheckId::ClaimEvidence => "claim.evidence",
            CheckId::BoundarySpec => "boundary.spec",
            CheckId::BoundaryCellHash => "boundary.cell_hash",
            CheckId::BoundaryMapHash => "boundary.map_hash",
            CheckId::ChartProvenance => "chart.provenance",
        }
    }
}

impl std::fmt::Display for CheckId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The checks every document starts with, before its format decides the rest: read within
/// its budgets, of this kernel, well-formed, on a supported pack.
const READ_CHECKS: [CheckId; 7] = [
    CheckId::BudgetPayloadBytes,
    CheckId::PayloadParse,
    CheckId::KernelVersion,
    CheckId::PayloadSchema,
    CheckId::PackSupported,
    CheckId::BudgetFixture,
    CheckId::BudgetWork,
];

/// A payload's checks, in the order they run and appear in reports.
pub const PAYLOAD_CHECKS: [CheckId; 21] = concat(
    READ_CHECKS,
    [
        CheckId::ExperimentValid,
        CheckId::FixtureHash,
        CheckId::PackManifest,
        CheckId::ResultHash,
        CheckId::RecomputeEqual,
        CheckId::SplitZeroGroupOverlap,
        CheckId::SplitTemporalOrder,
        CheckId::AblationIdentity,
        CheckId::DeterminismRerun,
        CheckId::MutationRowOrder,
        CheckId::MutationLabelActive,
        CheckId::MutationLabelChance,
        CheckId::MutationLabelPrepared,
        CheckId::ClaimEvidence,
    ],
);

/// A boundary map's checks, in the order they run and appear in reports.
pub const MAP_CHECKS: [CheckId; 14] = concat(
    READ_CHECKS,
    [
        CheckId::BoundarySpec,
        CheckId::FixtureHash,
        CheckId::PackManifest,
        CheckId::BoundaryCellHash,
        CheckId::BoundaryMapHash,
        CheckId::RecomputeEqual,
        CheckId::ChartProvenance,
    ],
);

/// `first` then `then`, as one list of `N = A + B` checks (a compile error otherwise).
const fn concat<const A: usize, const B: usize, const N: usize>(
    first: [CheckId; A],
    then: [CheckId; B],
) -> [CheckId; N] {
    assert!(A + B == N, "a check list is its two parts");
    let mut out = [CheckId::BudgetPayloadBytes; N];
    let mut i = 0;
    while i < N {
        out[i] = if i < A { first[i] } else { then[i - A] };
        i += 1;
    }
    out
}

/// The ids of a check list as strings (what reports and the rules hash carry).
pub(crate) const fn names<const N: usize>(ids: [CheckId; N]) -> [&'static str; N] {
    let mut out = [""; N];
    let mut i = 0;
    while i < N {
        out[i] = ids[i].as_str();
        i += 1;
    }
    out
}
