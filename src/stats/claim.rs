//! A claim's evidence: statistic, 95% interval, permutation p-value and outcome, by the
//! rules of docs/VERDICTS.md. Shared by `verify` (the `claim.evidence` check) and by the
//! boundary map (the claim's outcome in every cell), so both apply exactly one rule set.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::intervals::{self, Estimate, IntervalMethod};
use super::margin::{self, Redraw};
use super::{mutation_seed, ALPHA_RANGE};
use crate::arm::{ArmPredictions, Evaluation, PreparedExperiment};
use crate::experiment::{Claim, Experiment, GapBound, MetricName};
use crate::json_path::JsonPath;
use crate::metrics::{MetricValue, Undefined};
use crate::run::{self, ArmResult};
use crate::table::Table;

/// Per arm, per metric: one run's metrics.
pub(crate) type ArmMetrics = BTreeMap<String, BTreeMap<String, MetricValue>>;

/// One arm's metrics under one permutation of a null, or the error that stopped its fit.
type ArmRun = Result<BTreeMap<String, MetricValue>, String>;

/// The claim's statistic and evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClaimReport {
    /// E.g. `roc_auc(random_rows) - roc_auc(entity_grouped)`.
    pub statistic: String,
    /// The kernel's value of the statistic (null when undefined).
    pub observed: Option<f64>,
    /// Which bound a `metric_gap` claim puts on its gap when it is not `at_least`
    /// (`at_most`, `within`); left out otherwise, so every other claim's report is written
    /// as before this key existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bound: Option<Side>,
    /// The claim's threshold: `at_least`, `at_most` or `value`; for `within`, the margin m
    /// of |statistic| ≤ m.
    pub threshold: f64,
    /// The interval: two-sided 95%, or (1 − 0.05/family) for a claim decided as one of a
    /// family of tests.
    pub ci: Option<[f64; 2]>,
    /// Standard error.
    pub se: Option<f64>,
    /// How the interval was computed (`delong`, `obuchowski-clustered`, …), `none`, or
    /// `undefined: <why>`.
    pub interval: IntervalLabel,
    /// Permutation p-value (b+1)/(K+1), null when the claim needs none.
    pub p_value: Option<f64>,
    /// Non-vacuous permutations behind the p-value.
    pub permutations: u64,
    /// Which permutation null (`row-level label permutation`, `entity-level …`), or none
    /// (written `none`).
    #[serde(with = "null_name")]
    pub null: Option<Null>,
    /// Significance level the claim was decided at (α/family).
    pub alpha: f64,
    /// Tests the decision is one of (a revision chain's last payload: revisions + 1),
    /// written only when more than 1; α and the interval's 5% are divided by it.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub family: u32,
    /// What the evidence says of the claim.
    pub outcome: ClaimOutcome,
    /// For a gap whose two arms scored different rows (a rolling origin never tests its
    /// first time block; a single split tests its own rows): how many rows each arm scored
    /// and how many both did — the gap then compares partly different rows, and only the
    /// common ones are paired. Left out when both arms scored the same rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scored_rows: Option<ScoredRows>,
    /// For a margin claim its recorded draw supports: the verifier's own draw of the
    /// claimed arms, which must support it too (`stats::margin`). Left out otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redraw: Option<Redraw>,
}

/// The rows two compared arms scored (a report's `claim.scored_rows`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScoredRows {
    /// Rows the `higher` arm scored.
    pub higher: u64,
    /// Rows the `lower` arm scored.
    pub lower: u64,
    /// Rows both arms scored.
    pub both: u64,
}

impl ScoredRows {
    /// The rows of a gap claim's two arms, or None when they are the same rows (or the
    /// claim is not a gap).
    fn of(claim: &Claim, observed: &Evaluation) -> Option<ScoredRows> {
        let Claim::MetricGap { higher, lower, .. } = claim else {
            return None;
        };
        let rows = |arm: &str| {
            let mut rows = observed_predictions(observed, arm).test_rows.clone();
            rows.sort_unstable();
            rows.dedup();
            rows
        };
        let (h, l) = (rows(higher), rows(lower));
        if h == l {
            return None;
        }
        let both = h.iter().filter(|r| l.binary_search(r).is_ok()).count();
        Some(ScoredRows {
            higher: h.len() as u64,
            lower: l.len() as u64,
            both: both as u64,
        })
    }
}

/// What the evidence says of a claim (a report's `claim.outcome`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClaimOutcome {
    /// The interval lies on the claimed side, and the p-value (if any) is at most α.
    Supports,
    /// The interval lies wholly on the wrong side of the threshold.
    Contradicts,
    /// Neither.
    Inconclusive,
    /// The statistic is undefined (a metric of one class, a fit that failed, …).
    Undefined,
    /// The claim holds whatever the data.
    Vacuous,
}

impl ClaimOutcome {
    /// As written in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            ClaimOutcome::Supports => "supports",
            ClaimOutcome::Contradicts => "contradicts",
            ClaimOutcome::Inconclusive => "inconclusive",
            ClaimOutcome::Undefined => "undefined",
            ClaimOutcome::Vacuous => "vacuous",
        }
    }
}

impl ClaimReport {
    /// The permutation null's name as written in reports (`none` when there is none).
    pub fn null_name(&self) -> &'static str {
        self.null.map_or("none", Null::as_str)
    }
}

/// A claim report's `interval`: the method, `none` (no interval was made), or
/// `undefined: <why>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IntervalLabel {
    /// How the interval was computed.
    Method(IntervalMethod),
    /// No interval (a vacuous claim).
    None,
    /// Why there is no interval.
    Undefined(String),
}

impl std::fmt::Display for IntervalLabel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            IntervalLabel::Method(m) => f.write_str(m.as_str()),
            IntervalLabel::None => f.write_str("none"),
            IntervalLabel::Undefined(why) => write!(f, "undefined: {why}"),
        }
    }
}

impl Serialize for IntervalLabel {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for IntervalLabel {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        if text == "none" {
            return Ok(IntervalLabel::None);
        }
        if let Some(why) = text.strip_prefix("undefined: ") {
            return Ok(IntervalLabel::Undefined(why.to_owned()));
        }
        serde_json::from_value(serde_json::Value::String(text))
            .map(IntervalLabel::Method)
            .map_err(serde::de::Error::custom)
    }
}

/// A claim report's `null` as written: the null's name, or `none`.
mod null_name {
    use serde::{Deserialize, Deserializer, Serializer};

    use super::Null;

    pub(super) fn serialize<S: Serializer>(null: &Option<Null>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(null.map_or("none", Null::as_str))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Null>, D::Error> {
        let text = String::deserialize(d)?;
        match text.as_str() {
            "none" => Ok(None),
            _ => [Null::Row, Null::Entity, Null::EntityBlocks]
                .into_iter()
                .find(|n| n.as_str() == text)
                .map(Some)
                .ok_or_else(|| serde::de::Error::custom(format!("unknown null {text:?}"))),
        }
    }
}

impl ClaimReport {
    pub(crate) fn undefined(statistic: &str, threshold: f64, alpha: f64, reason: &str) -> Self {
        ClaimReport {
            statistic: statistic.to_owned(),
            observed: None,
            bound: None,
            threshold,
            ci: None,
            se: None,
            interval: IntervalLabel::Undefined(reason.to_owned()),
            p_value: None,
            permutations: 0,
            null: None,
            alpha,
            family: 1,
            outcome: ClaimOutcome::Undefined,
            scored_rows: None,
            redraw: None,
        }
    }
}

fn one() -> u32 {
    1
}

// serde's skip_serializing_if passes a reference.
#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_one(family: &u32) -> bool {
    *family == 1
}

/// The fewest distinct entities each arm of a `metric_gap` claim must hold among its test
/// rows when the gap's interval is clustered (docs/CALIBRATION.md, "Fewer entities"): the
/// verdict is INCONCLUSIVE below it.
pub const MIN_GAP_HELD_OUT_ENTITIES: usize = 20;

/// Where a claim puts its statistic relative to its threshold: the rule that decides it
/// (docs/VERDICTS.md, "Outcome"). Written in a report's `claim.bound` for the gap bounds
/// other than `at_least`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// statistic ≥ threshold (`metric_at_least`, a gap's `at_least`).
    AtLeast,
    /// statistic ≤ threshold (`metric_at_most`, a gap's `at_most`).
    AtMost,
    /// |statistic| ≤ threshold, the threshold a margin m > 0 (a gap's `within`).
    Within,
}

impl Side {
    /// As written in reports (`at_least`, `at_most`, `within`).
    pub fn as_str(self) -> &'static str {
        match self {
            Side::AtLeast => "at_least",
            Side::AtMost => "at_most",
            Side::Within => "within",
        }
    }

    /// The side of a gap bound.
    pub fn of_gap(bound: GapBound) -> Side {
        match bound {
            GapBound::AtLeast(_) => Side::AtLeast,
            GapBound::AtMost(_) => Side::AtMost,
            GapBound::Within(_) => Side::Within,
        }
    }

    /// What the claim says, for people: `at least 0.1`, `at most 0.02`, `within ±0.02`.
    pub fn describe(self, threshold: f64) -> String {
        match self {
            Side::AtLeast => format!("at least {threshold}"),
            Side::AtMost => format!("at most {threshold}"),
            Side::Within => format!("within ±{threshold}"),
        }
    }

    /// The interval a SUPPORTS needs, as a counterexample's `expected` writes it:
    /// `CI above t`, `CI below t`, `CI inside (-m, m)`.
    pub fn interval_needed(self, threshold: f64) -> String {
        match self {
            Side::AtLeast => format!("CI above {threshold}"),
            Side::AtMost => format!("CI below {threshold}"),
            Side::Within => format!("CI inside ({}, {threshold})", -threshold),
        }
    }
}

/// Which label permutation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Null {
    /// Labels permuted across rows.
    Row,
    /// Per-entity labels permuted across entities.
    Entity,
    /// Label sequences permuted among entities with equal row counts.
    EntityBlocks,
}

impl Null {
    pub(crate) fn stream(self) -> &'static str {
        match self {
            Null::Row => "labels/rows",
            Null::Entity => "labels/entities",
            Null::EntityBlocks => "labels/entity-blocks",
        }
    }

    /// As written in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Null::Row => "row-level label permutation",
            Null::Entity => "entity-level label permutation",
            Null::EntityBlocks => "entity-block label permutation",
        }
    }

    /// The null a claim's p-value uses on this table (docs/VERDICTS.md): a skill claim
    /// must keep in the null what the model can exploit without label signal, memorising
    /// entities; a gap claims that mechanism itself, so it uses the row null.
    ///
    /// A claim of absence (`metric_at_most`, a gap's `at_most` or `within`) has none: the
    /// label-permutation null is "no signal, no gap", which lies on the claimed side, so
    /// its p-value could only count against a true claim. The interval alone decides.
    ///
    /// The claim is read in its [decided form](Claim::decided_form): `higher − lower
    /// at_most −0.1` needs the null that `lower − higher at_least 0.1` needs.
    pub(crate) fn for_claim(claim: &Claim, table: &Table) -> Option<Null> {
        match &claim.decided_form() {
            Claim::MetricAtLeast { .. } if table.labels_constant_within_entities() => {
                Some(Null::Entity)
            }
            Claim::MetricAtLeast { .. } if table.n_entities() < table.n_rows() => {
                Some(Null::EntityBlocks)
            }
            Claim::MetricAtLeast { .. }
            | Claim::MetricGap {
                bound: GapBound::AtLeast(_),
                ..
            } => Some(Null::Row),
            Claim::MetricAtMost { .. }
            | Claim::MetricGap {
                bound: GapBound::AtMost(_) | GapBound::Within(_),
                ..
            } => None,
        }
    }
}

/// K label permutations of one kind: per permutation, each arm's metrics (None when the
/// permutation was vacuous) or the error that stopped it.
pub(crate) struct PermutationRuns {
    pub(crate) null: Null,
    pub(crate) runs: Vec<Result<Option<ArmMetrics>, String>>,
}

impl PermutationRuns {
    pub(crate) fn first_error(&self) -> Option<&str> {
        self.runs
            .iter()
            .find_map(|r| r.as_ref().err().map(String::as_str))
    }

    /// The defined values of one arm's metric over the non-vacuous permutations.
    pub(crate) fn values(&self, arm: &str, metric: &str) -> Vec<f64> {
        self.runs
            .iter()
            .filter_map(|r| r.as_ref().ok().and_then(|m| m.as_ref()))
            .filter_map(|m| m.get(arm).and_then(|metrics| metrics.get(metric)))
            .filter_map(MetricValue::value)
            .collect()
    }
}

/// What the claim's evidence depends on besides the pack, table and experiment.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct ClaimSettings {
    pub(crate) permutations: usize,
    pub(crate) seed: u64,
    /// α of the family; the claim is decided at α / `family` (Bonferroni).
    pub(crate) alpha: f64,
    /// Tests the claim's decision is one of (1 for a payload alone; r + 1 for the last
    /// payload of a revision chain with r revisions): the p-value is compared with
    /// α / family and the interval is the two-sided (1 − 0.05/family) one.
    pub(crate) family: u32,
    pub(crate) threads: usize,
}

/// Which arms a permutation null refits.
#[derive(Debug, Clone, Copy)]
pub(crate) enum NullArms<'c> {
    /// Every arm: the row null that `verify` also uses for the chance check, which
    /// watches every arm.
    All,
    /// The arms the claim names: all that its p-value reads.
    Claimed(&'c Claim),
}

/// Runs `settings.permutations` label permutations of the prepared table (seeded per
/// index, so the result never depends on the thread count) and, under each, the metrics of
/// the chosen arms that a reader of the runs needs: the chance check's (`roc_auc`,
/// `balanced_accuracy`) and the claim's. Only the labels change from one permutation to
/// the next, so every fit reads the arms' one preparation.
pub(crate) fn permutation_runs(
    prepared: &PreparedExperiment,
    null: Null,
    arms: NullArms,
    settings: &ClaimSettings,
) -> PermutationRuns {
    let table = prepared.table();
    let experiment = prepared.experiment();
    let original = table.labels();
    let seeds: Vec<u64> = (0..settings.permutations)
        .map(|k| mutation_seed(settings.seed, null.stream(), k))
        .collect();
    let refit: Vec<usize> = (0..experiment.arms.len())
        .filter(|&i| match arms {
            NullArms::All => true,
            NullArms::Claimed(claim) => claim.names_arm(&experiment.arms[i].name),
        })
        .collect();
    let claim_metric = match arms {
        NullArms::All => experiment.claim.as_ref().map(Claim::metric),
        NullArms::Claimed(claim) => Some(claim.metric()),
    };
    let read: Vec<MetricName> = experiment
        .metrics
        .iter()
        .copied()
        .filter(|&m| {
            Some(m) == claim_metric
                || (matches!(arms, NullArms::All)
                    && matches!(m, MetricName::RocAuc | MetricName::BalancedAccuracy))
        })
        .collect();
    let blocks = matches!(null, Null::EntityBlocks).then(|| table.entity_blocks());
    let permute = |seed: u64| match null {
        Null::Row => table.labels_permuted_by_row(seed),
        Null::Entity => table.labels_permuted_by_entity(seed),
        Null::EntityBlocks => {
            let blocks = blocks.as_ref().expect("computed above for this null");
            table.labels_permuted_in_blocks(blocks, seed)
        }
    };
    // One arm at a time, its designs held over every permutation and dropped before the
    // next arm's are made; per permutation, the first arm's error in experiment order (the
    // permutation is drawn again for each arm: the same seed, the same labels).
    let per_arm: Vec<Vec<Option<ArmRun>>> = refit
        .iter()
        .map(|&i| {
            let arm = prepared.null_arm(i).map_err(|e| e.to_string());
            run::parallel_map(&seeds, settings.threads, |&seed| {
                let permuted = permute(seed);
                if permuted == original {
                    return None;
                }
                Some(arm.as_ref().map_err(Clone::clone).and_then(|arm| {
                    arm.predictions(&permuted)
                        .map(|predictions| predictions.metrics(&read))
                        .map_err(|e| e.to_string())
                }))
            })
        })
        .collect();
    let runs = seeds
        .iter()
        .enumerate()
        .map(|(k, &seed)| {
            if refit.is_empty() && permute(seed) == original {
                return Ok(None);
            }
            let mut metrics = BTreeMap::new();
            for (&i, outcomes) in refit.iter().zip(&per_arm) {
                match &outcomes[k] {
                    // Vacuous for one arm is vacuous for all: it reads the labels only.
                    None => return Ok(None),
                    Some(Err(e)) => return Err(e.clone()),
                    Some(Ok(m)) => {
                        metrics.insert(experiment.arms[i].name.clone(), m.clone());
                    }
                }
            }
            Ok(Some(metrics))
        })
        .collect();
    PermutationRuns { null, runs }
}

/// How the evidence stands.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Standing {
    /// CI on the claimed side and (where one is needed) p ≤ α with enough permutations.
    Supports,
    /// The CI lies entirely on the wrong side of the threshold (for `within`: entirely
    /// above the margin, or entirely below its negative).
    Contradicts {
        ci: [f64; 2],
        observed: f64,
        threshold: f64,
        side: Side,
    },
    /// Could not be established, with the reasons (already joined).
    Inconclusive(String),
}

/// A claim's evaluation: the report's `claim` object (None when a permutation could not
/// run at all), the standing, and the permuted statistics behind the p-value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ClaimEvaluation {
    pub(crate) report: Option<ClaimReport>,
    pub(crate) standing: Standing,
    /// The claim's statistic under each non-vacuous permutation, in permutation order.
    pub(crate) null_statistics: Vec<f64>,
}

/// Evaluates `claim` on the prepared experiment. `observed` is the kernel's evaluation of
/// it under the table's own labels (its results give the observed statistic, its
/// predictions the interval: no arm is refitted for either); `row_null`, when the caller
/// already ran the row-level permutations (verify does, for the chance check), is reused
/// instead of being run again.
pub(crate) fn evaluate(
    prepared: &PreparedExperiment,
    claim: &Claim,
    observed: &Evaluation,
    row_null: Option<PermutationRuns>,
    settings: &ClaimSettings,
) -> ClaimEvaluation {
    let level = match DecisionLevel::of(settings) {
        Ok(level) => level,
        // No claim object: its `alpha` would be outside the report schema's range.
        Err(refused) => return ClaimEvaluation::without_report(refused.to_string()),
    };
    let twins = same_design(claim, prepared.experiment());
    // One statement, one form: a claim and its mirror are decided alike.
    let written = claim;
    let decided = claim.decided_form();
    let claim = &decided;
    let statement = Statement::of(claim);
    if let Some(range) = vacuous_range(claim) {
        let reason = format!(
            "vacuous claim: {} lies in [{}, {}] whatever the data, so the claim that it is {} cannot be wrong",
            statement.statistic,
            range[0],
            range[1],
            statement.side.describe(statement.threshold),
        );
        return vacuous_evaluation(claim, &statement, reason, &level, &observed.results);
    }
    if let Some(reason) = zero_by_construction(claim, observed)
        .or_else(|| constant_predictors(claim, observed))
        .or(twins)
    {
        return vacuous_evaluation(claim, &statement, reason, &level, &observed.results);
    }
    // A margin that is not material (stats::claim::material_margin, or the better arm's
    // headroom) makes the claim vacuous: it can support nothing. Its interval still
    // decides a contradiction: a gap shown to exceed even that margin is a false claim.
    let immaterial = immaterial_margin(written, claim, observed);
    let estimate =
        match claim_estimate(prepared, claim, observed, level.z).and_then(|e| {
            match claim.metric() {
                MetricName::RocAuc => intervals::with_width(e),
                _ => Ok(e),
            }
        }) {
            Ok(estimate) => estimate,
            Err(reason) => {
                if let Some(vacuous) = immaterial {
                    return vacuous_evaluation(
                        claim,
                        &statement,
                        vacuous,
                        &level,
                        &observed.results,
                    );
                }
                return undefined_evaluation(&statement, &level, &reason);
            }
        };
    if let Some(vacuous) = immaterial {
        if !statement.contradicted_by(estimate.ci) {
            return vacuous_evaluation(claim, &statement, vacuous, &level, &observed.results);
        }
    }
    // A gap with a leaky preparation: its interval is widened by the permutations' spread.
    let estimate = if leaky_gap(claim, prepared.experiment()) {
        let computed;
        let runs = match &row_null {
            Some(runs) => runs,
            None => {
                computed =
                    permutation_runs(prepared, Null::Row, NullArms::Claimed(claim), settings);
                &computed
            }
        };
        match null_statistics(claim, runs) {
            Ok(statistics) => {
                let [low, high] = metric_range(claim.metric());
                widened_by_permutations(estimate, &statistics, level.z, high - low)
            }
            Err(e) => {
                return ClaimEvaluation::without_report(format!("a permutation could not run: {e}"))
            }
        }
    } else {
        estimate
    };
    // The observed statistic is the kernel's own number (recomputed results).
    let observed_statistic = claim_statistic(claim, &observed.results).unwrap_or(estimate.value);
    let runs = claim_null_runs(prepared, claim, row_null, settings);
    let null_statistics = match runs.as_ref().map(|r| null_statistics(claim, r)) {
        None => Vec::new(),
        Some(Ok(statistics)) => statistics,
        Some(Err(e)) => {
            return ClaimEvaluation::without_report(format!("a permutation could not run: {e}"))
        }
    };
    let evidence = Evidence {
        observed: observed_statistic,
        ci: estimate.ci,
        p_value: runs
            .as_ref()
            .map(|_| permutation_p_value(&null_statistics, observed_statistic)),
        permutations: null_statistics.len(),
    };
    let mut reasons: Vec<String> =
        too_few_held_out_entities(claim, &estimate, observed, prepared.table())
            .into_iter()
            .collect();
    reasons.extend(reasons_not_supported(&statement, &evidence, &level));
    // The margin safeguard (stats::margin): a margin claim that its recorded draw would
    // support must hold on the verifier's own draw of its splits too.
    let mut redraw = None;
    if reasons.is_empty() && claim.is_margin() {
        let seed = mutation_seed(settings.seed, "margin-redraw", 0);
        if let Some(redrawn) = margin::redrawn(prepared.experiment(), claim, seed) {
            match redraw_estimate(prepared, &redrawn, claim, level.z, settings.threads)
            {
                Ok(estimate) => {
                    let (lo, hi) = estimate.ci;
                    let supports = statement.supported_by(estimate.ci);
                    let repeats = margin::redraw_repeats(&redrawn);
                    if !supports {
                        reasons.push(format!(
                            "the margin safeguard: the verifier's own draw of the splits (seed {seed}, seeded assignment, {repeats} repeat{}) gives {:.6} with CI [{lo:.6}, {hi:.6}], not {}: a margin claim must hold whichever draw of the folds is taken",
                            if repeats == 1 { "" } else { "s" },
                            estimate.value,
                            statement.side.interval_needed(statement.threshold),
                        ));
                    }
                    redraw = Some(Redraw {
                        seed,
                        repeats,
                        observed: estimate.value,
                        ci: [lo, hi],
                        supports,
                    });
                }
                Err(e) => reasons.push(format!(
                    "the margin safeguard: the verifier's own draw of the splits could not be evaluated: {e}"
                )),
            }
        }
    }
    let (outcome, standing) = decide(&statement, &evidence, reasons);
    let (lo, hi) = evidence.ci;
    let bound = statement.reported_bound();
    ClaimEvaluation {
        report: Some(ClaimReport {
            statistic: statement.statistic,
            observed: Some(evidence.observed),
            bound,
            threshold: statement.threshold,
            ci: Some([lo, hi]),
            se: Some(estimate.se),
            interval: IntervalLabel::Method(estimate.method),
            p_value: evidence.p_value,
            permutations: evidence.permutations as u64,
            null: runs.as_ref().map(|r| r.null),
            alpha: level.alpha,
            family: level.family,
            outcome,
            scored_rows: ScoredRows::of(claim, observed),
            redraw,
        }),
        standing,
        null_statistics,
    }
}

impl ClaimEvaluation {
    /// An evaluation that stopped before a claim object could be written: INCONCLUSIVE
    /// for `reason`.
    fn without_report(reason: String) -> Self {
        ClaimEvaluation {
            report: None,
            standing: Standing::Inconclusive(reason),
            null_statistics: Vec::new(),
        }
    }
}

/// What a claim says, as its report writes it: the statistic's text, the threshold, and
/// on which side of the threshold the claim puts the statistic.
struct Statement {
    statistic: String,
    threshold: f64,
    side: Side,
    /// Whether the claim is a gap's (its report names an `at_most` or `within` bound).
    gap: bool,
}

impl Statement {
    fn of(claim: &Claim) -> Self {
        let metric = claim.metric().as_str();
        match claim {
            Claim::MetricGap {
                higher,
                lower,
                bound,
                ..
            } => Statement {
                statistic: format!("{metric}({higher}) - {metric}({lower})"),
                threshold: bound.value(),
                side: Side::of_gap(*bound),
                gap: true,
            },
            Claim::MetricAtLeast { arm, value, .. } => Statement {
                statistic: format!("{metric}({arm})"),
                threshold: *value,
                side: Side::AtLeast,
                gap: false,
            },
            Claim::MetricAtMost { arm, value, .. } => Statement {
                statistic: format!("{metric}({arm})"),
                threshold: *value,
                side: Side::AtMost,
                gap: false,
            },
        }
    }

    /// The report's `bound`: a gap's `at_most` or `within`; none for `at_least` (whose
    /// reports keep their bytes) and for the one-arm kinds (their `kind` says it).
    fn reported_bound(&self) -> Option<Side> {
        (self.gap && self.side != Side::AtLeast).then_some(self.side)
    }

    /// Whether an interval lies entirely on the claimed side (strictly, as every bound).
    fn supported_by(&self, (lo, hi): (f64, f64)) -> bool {
        let t = self.threshold;
        match self.side {
            Side::AtLeast => lo > t,
            Side::AtMost => hi < t,
            Side::Within => lo > -t && hi < t,
        }
    }

    /// Whether an interval lies entirely on the wrong side (strictly): for `within`,
    /// entirely above m or entirely below −m.
    fn contradicted_by(&self, (lo, hi): (f64, f64)) -> bool {
        let t = self.threshold;
        match self.side {
            Side::AtLeast => hi < t,
            Side::AtMost => lo > t,
            Side::Within => lo > t || hi < -t,
        }
    }
}

/// The level one test of the family is decided at.
struct DecisionLevel {
    /// α / family (Bonferroni).
    alpha: f64,
    /// The two-sided interval's z for the family.
    z: f64,
    family: u32,
}

/// Why no claim can be decided at the settings' level.
#[derive(Debug, Clone, Copy, PartialEq)]
enum LevelRefused {
    /// α outside [`ALPHA_RANGE`].
    Alpha(f64),
    /// A family larger than [`intervals::MAX_FAMILY`] (or empty).
    Family(u32),
}

impl std::fmt::Display for LevelRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (alpha_low, alpha_high) = ALPHA_RANGE;
        match self {
            LevelRefused::Alpha(alpha) => write!(
                f,
                "alpha {alpha} is outside ({alpha_low}, {alpha_high}]: no p-value at that level is evidence"
            ),
            LevelRefused::Family(family) => write!(
                f,
                "a family of {family} tests: the verifier decides families of 1 to {} (a payload and at most two revisions)",
                intervals::MAX_FAMILY
            ),
        }
    }
}

impl DecisionLevel {
    /// The settings' level, or why no claim can be decided at it. The library takes any
    /// α and family; the CLI refuses these before they get here.
    fn of(settings: &ClaimSettings) -> Result<Self, LevelRefused> {
        let (alpha_low, alpha_high) = ALPHA_RANGE;
        if !(settings.alpha > alpha_low && settings.alpha <= alpha_high) {
            return Err(LevelRefused::Alpha(settings.alpha));
        }
        let Some(z) = intervals::z_for_family(settings.family) else {
            return Err(LevelRefused::Family(settings.family));
        };
        Ok(DecisionLevel {
            // Each test of a family of m is decided at α/m (docs/CAPSULE.md, revisions).
            alpha: settings.alpha / f64::from(settings.family),
            z,
            family: settings.family,
        })
    }
}

/// What the data say of the claim's statistic.
struct Evidence {
    /// The kernel's value of the statistic.
    observed: f64,
    /// Its interval at the family's level.
    ci: (f64, f64),
    /// The permutation p-value (None when the claim needs none).
    p_value: Option<f64>,
    /// Non-vacuous permutations behind the p-value.
    permutations: usize,
}

/// A vacuous claim's evaluation: INCONCLUSIVE for `reason` (its statistic's range holds
/// the claim whatever the data, or the statistic is a gap that cannot be anything but
/// what it is).
fn vacuous_evaluation(
    claim: &Claim,
    statement: &Statement,
    reason: String,
    level: &DecisionLevel,
    results: &BTreeMap<String, ArmResult>,
) -> ClaimEvaluation {
    let mut report = ClaimReport::undefined(
        &statement.statistic,
        statement.threshold,
        level.alpha,
        &reason,
    );
    report.bound = statement.reported_bound();
    report.family = level.family;
    report.observed = claim_statistic(claim, results);
    report.interval = IntervalLabel::None;
    report.outcome = ClaimOutcome::Vacuous;
    ClaimEvaluation {
        report: Some(report),
        standing: Standing::Inconclusive(reason),
        null_statistics: Vec::new(),
    }
}

/// The evaluation of a claim whose statistic is undefined: INCONCLUSIVE for `reason`.
fn undefined_evaluation(
    statement: &Statement,
    level: &DecisionLevel,
    reason: &Undefined,
) -> ClaimEvaluation {
    ClaimEvaluation {
        report: Some(ClaimReport {
            family: level.family,
            bound: statement.reported_bound(),
            ..ClaimReport::undefined(
                &statement.statistic,
                statement.threshold,
                level.alpha,
                &reason.0,
            )
        }),
        standing: Standing::Inconclusive(format!("undefined metric: {reason}")),
        null_statistics: Vec::new(),
    }
}

/// An arm's predictions in the observed evaluation.
fn observed_predictions<'e>(observed: &'e Evaluation, arm: &str) -> &'e ArmPredictions {
    observed
        .predictions
        .get(arm)
        .expect("claim arms were checked")
}

/// The claim statistic's estimate and interval at `z`, from the observed predictions.
pub(super) fn claim_estimate(
    prepared: &PreparedExperiment,
    claim: &Claim,
    observed: &Evaluation,
    z: f64,
) -> Result<Estimate, Undefined> {
    let table = prepared.table();
    let metric = claim.metric();
    let estimate_arm = |name: &str| {
        intervals::estimate_arm(metric, observed_predictions(observed, name), table, z)
    };
    let is_cross_validated = |name: &str| {
        prepared
            .experiment()
            .arms
            .iter()
            .any(|a| a.name == name && a.split.cross_validation().is_some())
    };
    match claim {
        Claim::MetricGap { higher, lower, .. } => {
            if is_cross_validated(higher) && is_cross_validated(lower) {
                // Both arms scored rows of the same table out of fold: the paired
                // comparison, with the covariance of the two estimates.
                intervals::paired_gap(
                    metric,
                    observed_predictions(observed, higher),
                    observed_predictions(observed, lower),
                    table,
                    z,
                )
            } else {
                estimate_arm(higher)
                    .and_then(|h| estimate_arm(lower).map(|l| intervals::gap(&h, &l, z)))
            }
        }
        Claim::MetricAtLeast { arm, .. } | Claim::MetricAtMost { arm, .. } => estimate_arm(arm),
    }
}

/// The permutations behind the claim's p-value (None when it needs none). The row null's
/// are `row_null` when the caller already ran them.
fn claim_null_runs(
    prepared: &PreparedExperiment,
    claim: &Claim,
    row_null: Option<PermutationRuns>,
    settings: &ClaimSettings,
) -> Option<PermutationRuns> {
    // A gap with an arm whose preparation fits a label-reading step on all rows has no
    // p-value: permuted labels keep that leak (each permutation re-runs the preparation),
    // so its null holds the very gap the claim is about; the interval decides
    // (docs/VERDICTS.md, "Preparation").
    if leaky_gap(claim, prepared.experiment()) {
        return None;
    }
    // The p-value reads the claimed arms only, so a null run for it refits only those.
    let claimed = NullArms::Claimed(claim);
    match Null::for_claim(claim, prepared.table()) {
        Some(Null::Row) => Some(
            row_null.unwrap_or_else(|| permutation_runs(prepared, Null::Row, claimed, settings)),
        ),
        Some(other) => Some(permutation_runs(prepared, other, claimed, settings)),
        None => None,
    }
}

/// Whether `claim` is a gap with an arm whose preparation fits a label-reading step on all
/// rows (`prepare::leaks_labels`): no p-value, and an interval widened by the permutations.
fn leaky_gap(claim: &Claim, experiment: &crate::experiment::Experiment) -> bool {
    let Claim::MetricGap { higher, lower, .. } = claim else {
        return false;
    };
    experiment.arms.iter().any(|a| {
        (&a.name == higher || &a.name == lower) && crate::prepare::leaks_labels(&a.prepare)
    })
}

/// `estimate` with its standard error raised to the sample standard deviation of the gap
/// over the permutations (`statistics`, at least two; fewer leave it as it is), and its
/// interval rebuilt at `z` around the same value, clipped to the gap's range [−span, span]
/// ([`intervals::IntervalMethod::PermutationSpread`]). Chosen by the simulation of
/// tests/calibration.rs (`preparation_gap_interval_measurement`): the paired interval
/// alone covered the expected gap 84.5–89% of the time at nominal 95%.
fn widened_by_permutations(estimate: Estimate, statistics: &[f64], z: f64, span: f64) -> Estimate {
    if statistics.len() < 2 {
        return estimate;
    }
    let n = statistics.len() as f64;
    let mean = statistics.iter().sum::<f64>() / n;
    let var = statistics
        .iter()
        .map(|s| (s - mean) * (s - mean))
        .sum::<f64>()
        / (n - 1.0);
    let se = estimate.se.max(var.sqrt());
    Estimate {
        value: estimate.value,
        se,
        ci: (
            (estimate.value - z * se).max(-span),
            (estimate.value + z * se).min(span),
        ),
        method: intervals::IntervalMethod::PermutationSpread,
    }
}

/// The claim's statistic under each non-vacuous permutation, in permutation order, or the
/// first error that stopped a permutation.
fn null_statistics<'r>(claim: &Claim, runs: &'r PermutationRuns) -> Result<Vec<f64>, &'r str> {
    if let Some(e) = runs.first_error() {
        return Err(e);
    }
    Ok(runs
        .runs
        .iter()
        .filter_map(|r| r.as_ref().ok().and_then(|m| m.as_ref()))
        .filter_map(|m| claim_statistic_from_metrics(claim, m))
        .collect())
}

/// The permutation p-value (b+1)/(K+1): b of the K null statistics at least `observed`.
fn permutation_p_value(null_statistics: &[f64], observed: f64) -> f64 {
    let b = null_statistics.iter().filter(|&&s| s >= observed).count();
    (b as f64 + 1.0) / (null_statistics.len() as f64 + 1.0)
}

/// Why a gap's clustered interval supports nothing here, if it does not.
///
/// A gap's clustered interval has no second guard (its null is row-level), and with few
/// held-out entities the cluster-robust variance is biased low (docs/CALIBRATION.md: 6.6%
/// false SUPPORTS at 10 held-out entities): below the minimum it supports nothing. (A
/// CI wholly on the wrong side still contradicts: the guard is against false SUPPORTS.)
fn too_few_held_out_entities(
    claim: &Claim,
    estimate: &Estimate,
    observed: &Evaluation,
    table: &Table,
) -> Option<String> {
    let Claim::MetricGap { higher, lower, .. } = claim else {
        return None;
    };
    if !estimate.method.is_clustered() {
        return None;
    }
    let held_out = |name: &str| {
        let mut entities: Vec<u32> = observed_predictions(observed, name)
            .test_rows
            .iter()
            .map(|&r| table.entity_of_row()[r])
            .collect();
        entities.sort_unstable();
        entities.dedup();
        entities.len()
    };
    let fewest = held_out(higher).min(held_out(lower));
    (fewest < MIN_GAP_HELD_OUT_ENTITIES).then(|| {
        format!(
            "too few held-out entities: an arm's test rows hold {fewest}, a clustered interval of a gap needs at least {MIN_GAP_HELD_OUT_ENTITIES}"
        )
    })
}

/// Why the evidence does not support the claim, from its interval and p-value: none when
/// it does.
fn reasons_not_supported(
    statement: &Statement,
    evidence: &Evidence,
    level: &DecisionLevel,
) -> Vec<String> {
    let (lo, hi) = evidence.ci;
    let threshold = statement.threshold;
    let alpha = level.alpha;
    let min_k = (1.0 / alpha).ceil() as usize - 1;
    let mut reasons = Vec::new();
    if !statement.supported_by(evidence.ci) {
        let percent = ci_percent(level.family);
        reasons.push(match statement.side {
            Side::AtLeast | Side::AtMost => format!(
                "the {percent}% CI [{lo:.6}, {hi:.6}] does not lie entirely on the claimed side of {threshold}"
            ),
            Side::Within => format!(
                "the {percent}% CI [{lo:.6}, {hi:.6}] does not lie entirely inside ({}, {threshold})",
                -threshold
            ),
        });
    }
    if let Some(p) = evidence.p_value {
        let effective = evidence.permutations;
        if effective < min_k {
            reasons.push(format!(
                "too few permutations: {effective} non-vacuous, need at least {min_k} for alpha {alpha}"
            ));
        } else if p > alpha {
            reasons.push(format!("p = {p:.6} > alpha = {alpha}"));
        }
    }
    reasons
}

/// The outcome: CONTRADICTS when the interval lies wholly on the wrong side of the
/// threshold, else SUPPORTS when nothing stands against it (`reasons`), else INCONCLUSIVE.
fn decide(
    statement: &Statement,
    evidence: &Evidence,
    reasons: Vec<String>,
) -> (ClaimOutcome, Standing) {
    let (lo, hi) = evidence.ci;
    if statement.contradicted_by(evidence.ci) {
        (
            ClaimOutcome::Contradicts,
            Standing::Contradicts {
                ci: [lo, hi],
                observed: evidence.observed,
                threshold: statement.threshold,
                side: statement.side,
            },
        )
    } else if reasons.is_empty() {
        (ClaimOutcome::Supports, Standing::Supports)
    } else {
        (
            ClaimOutcome::Inconclusive,
            Standing::Inconclusive(reasons.join("; ")),
        )
    }
}

/// The interval's level in percent for a family of `m` tests, as printed in reasons.
fn ci_percent(m: u32) -> String {
    let percent = 100.0 - 5.0 / f64::from(m.max(1));
    let text = format!("{percent:.4}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// The materiality ceiling of a ROC AUC gap's margin ([`material_margin`]).
pub const MATERIAL_MARGIN_ROC_AUC: f64 = 0.10;
/// The materiality ceiling of an accuracy gap's margin ([`material_margin`]).
pub const MATERIAL_MARGIN_ACCURACY: f64 = 0.10;
/// The materiality ceiling of a balanced-accuracy gap's margin ([`material_margin`]).
pub const MATERIAL_MARGIN_BALANCED_ACCURACY: f64 = 0.10;
/// The materiality ceiling of a majority-baseline-accuracy gap's margin
/// ([`material_margin`]).
pub const MATERIAL_MARGIN_MAJORITY_BASELINE_ACCURACY: f64 = 0.10;
/// The materiality ceiling of an accuracy-lift gap's margin ([`material_margin`]).
pub const MATERIAL_MARGIN_ACCURACY_LIFT: f64 = 0.10;

/// The largest margin a "no material gap" claim (a gap's `at_most` x > 0 or `within` m,
/// in the decided form) may take on `metric` and still say something material
/// (docs/VERDICTS.md, "Material margins"): one tenth of a [0, 1] metric's range, the width
/// of one of the conventional ROC AUC bands (0.7, 0.8, 0.9). A gap larger than that moves
/// a model across a band, material by any reading, so a claim that the gap is no larger
/// than a wider margin is vacuous. The accuracy lift, whose range is [−1, 1], takes the
/// same ceiling: it is an accuracy difference.
pub fn material_margin(metric: MetricName) -> f64 {
    match metric {
        MetricName::RocAuc => MATERIAL_MARGIN_ROC_AUC,
        MetricName::Accuracy => MATERIAL_MARGIN_ACCURACY,
        MetricName::BalancedAccuracy => MATERIAL_MARGIN_BALANCED_ACCURACY,
        MetricName::MajorityBaselineAccuracy => MATERIAL_MARGIN_MAJORITY_BASELINE_ACCURACY,
        MetricName::AccuracyLift => MATERIAL_MARGIN_ACCURACY_LIFT,
    }
}

/// How far an arm's estimate of `metric` lies above what it scores when its model learned
/// nothing, and that chance level: 0.5 for ROC AUC and balanced accuracy, the arm's own
/// majority baseline for accuracy (so the headroom is its accuracy lift), 0 for the
/// accuracy lift. None when the metric is undefined, and for the majority baseline, which
/// reads no model: nothing in it can have learned, so it has no headroom to compare with
/// (its margins are held to the ceiling alone).
fn headroom(metric: MetricName, predictions: &ArmPredictions) -> Option<(f64, f64, f64)> {
    let value = |m: MetricName| {
        predictions
            .metrics(&[m])
            .get(m.as_str())
            .and_then(MetricValue::value)
    };
    let estimate = value(metric)?;
    let chance = match metric {
        MetricName::RocAuc | MetricName::BalancedAccuracy => 0.5,
        MetricName::Accuracy => value(MetricName::MajorityBaselineAccuracy)?,
        MetricName::AccuracyLift => 0.0,
        MetricName::MajorityBaselineAccuracy => return None,
    };
    Some((estimate, chance, estimate - chance))
}

/// Why a margin claim (a gap's `at_most` x > 0 or `within` m, in its decided form
/// `decided`) is vacuous, if it is (docs/VERDICTS.md, "Material margins"): its margin is
/// above the metric's materiality ceiling ([`material_margin`]), or at least the headroom
/// of the better arm (its estimate's distance above the metric's chance level, [`headroom`]):
/// such a claim would hold even if one arm had learned nothing. `written` is the claim as
/// the payload writes it, whose key the reason names by its JSON path.
fn immaterial_margin(written: &Claim, decided: &Claim, observed: &Evaluation) -> Option<String> {
    let Claim::MetricGap {
        metric,
        higher,
        lower,
        bound,
    } = decided
    else {
        return None;
    };
    let margin = match *bound {
        GapBound::AtMost(x) if x > 0.0 => x,
        GapBound::Within(m) => m,
        _ => return None,
    };
    let Claim::MetricGap {
        bound: written_bound,
        ..
    } = written
    else {
        return None;
    };
    let path = JsonPath::field("claim").key(written_bound.key());
    let at = if written_bound.value() == margin {
        format!("the margin {margin} at {path}")
    } else {
        format!(
            "the margin {margin} ({path} is {}, the margin of its decided form)",
            written_bound.value()
        )
    };
    let metric_name = metric.as_str();
    let ceiling = material_margin(*metric);
    if margin > ceiling {
        return Some(format!(
            "vacuous claim: {at} is above the materiality ceiling {ceiling} of {metric_name}: a gap that large moves a model across a band of the metric (one tenth of its range; ROC AUC's bands are 0.7, 0.8, 0.9), so a claim that the gap is no larger says nothing material; claim a margin of at most {ceiling}"
        ));
    }
    let better = [higher, lower]
        .into_iter()
        .filter_map(|arm| headroom(*metric, observed_predictions(observed, arm)).map(|h| (arm, h)))
        .max_by(|a, b| a.1 .2.total_cmp(&b.1 .2))?;
    let (arm, (estimate, chance, room)) = better;
    (margin >= room).then(|| {
        let chance_text = match metric {
            MetricName::Accuracy => format!("its majority baseline {chance:.4}"),
            _ => format!("the chance level {chance}"),
        };
        if room <= 0.0 {
            format!(
                "vacuous claim: neither arm scores {metric_name} above chance (the better, {arm}, scores {estimate:.4} against {chance_text}), so {at} bounds a gap between two models that learned nothing"
            )
        } else {
            format!(
                "vacuous claim: {at} is at least the headroom of the better arm: {arm} scores {metric_name} {estimate:.4}, {room:.4} above {chance_text}, so the claim would hold even if the other arm had learned nothing; claim a margin below {room:.4}"
            )
        }
    })
}

/// The range of values a metric can take: `[0, 1]` for every metric but the accuracy
/// lift (accuracy − baseline), which lies in `[−1, 1]`.
fn metric_range(metric: MetricName) -> [f64; 2] {
    match metric {
        MetricName::AccuracyLift => [-1.0, 1.0],
        MetricName::RocAuc
        | MetricName::Accuracy
        | MetricName::BalancedAccuracy
        | MetricName::MajorityBaselineAccuracy => [0.0, 1.0],
    }
}

/// The range of the claim's statistic when the claim holds for every value in it (a
/// vacuous claim: "ROC AUC ≤ 1", "a gap ≥ −1"), else `None`.
pub(crate) fn vacuous_range(claim: &Claim) -> Option<[f64; 2]> {
    let [low, high] = metric_range(claim.metric());
    match *claim {
        Claim::MetricGap { bound, .. } => {
            let range = [low - high, high - low];
            let holds_anyway = match bound {
                GapBound::AtLeast(x) => x <= range[0],
                // The range is symmetric: |gap| ≤ m holds everywhere once m reaches it.
                GapBound::AtMost(x) | GapBound::Within(x) => x >= range[1],
            };
            holds_anyway.then_some(range)
        }
        Claim::MetricAtLeast { value, .. } => (value <= low).then_some([low, high]),
        Claim::MetricAtMost { value, .. } => (value >= high).then_some([low, high]),
    }
}

/// The gap claim's estimate on the verifier's draw `redrawn` (from [`redrawn`]) of the
/// prepared experiment's table, at `z`: the same interval rule as the recorded design's.
/// The error says why the draw could not be evaluated.
fn redraw_estimate(
    prepared: &PreparedExperiment,
    redrawn: &Experiment,
    claim: &Claim,
    z: f64,
    threads: usize,
) -> Result<Estimate, String> {
    let table = prepared.table();
    let drawn = PreparedExperiment::new(prepared.pack(), table, redrawn, threads)
        .map_err(|e| e.to_string())?;
    let evaluation = drawn
        .evaluate(table.labels(), threads)
        .map_err(|e| e.to_string())?;
    let estimate = claim_estimate(&drawn, claim, &evaluation, z)
        .and_then(|e| match claim.metric() {
            MetricName::RocAuc => intervals::with_width(e),
            _ => Ok(e),
        })
        .map_err(|u| u.to_string())?;
    Ok(estimate)
}

/// Why a gap compares two constant predictors, if it does: both arms predict one class
/// on every test row (every repeat) for a threshold metric, or give every test row one
/// score for ROC AUC. Such a gap (balanced accuracy 0.5 − 0.5, with an interval [0, 0])
/// is what the model family cannot do at these settings (`c` 1e-6: every row negative),
/// not a property of the designs, so no claim about it is evidence. The majority
/// baseline reads no model: [`zero_by_construction`] is its rule.
fn constant_predictors(claim: &Claim, observed: &Evaluation) -> Option<String> {
    let Claim::MetricGap {
        metric,
        higher,
        lower,
        ..
    } = claim
    else {
        return None;
    };
    if !metric.depends_on_model() {
        return None;
    }
    let constant = |arm: &str| {
        let predictions = observed_predictions(observed, arm);
        predictions.repeats.iter().all(|scores| {
            let s = &scores.test_scores;
            let Some(&first) = s.first() else {
                return false;
            };
            match metric {
                MetricName::RocAuc => s.iter().all(|&x| x == first),
                _ => s.iter().all(|&x| (x >= 0.5) == (first >= 0.5)),
            }
        })
    };
    (constant(higher) && constant(lower)).then(|| {
        let what = match metric {
            MetricName::RocAuc => "gives every test row one score",
            _ => "predicts one class for every test row",
        };
        format!(
            "vacuous claim: each arm's model {what} (a constant predictor), so the gap {} compares two constant predictors and says nothing about the designs",
            Statement::of(claim).statistic
        )
    })
}

/// Why a gap compares a design with itself, if it does: its two arms run the same split
/// in the design normal form (src/design.rs), which sets aside the seed and the fold
/// assignment (nuisances: which rows fall where) and the spelling of defaults
/// (`"repeats": 1`, an `entity_overlap` of overlap 0 for the `entity_grouped` split it
/// is). Both arms then fit the same model on the same features, so the gap is the
/// difference between two draws of one design: it estimates 0 whatever the data, and no
/// bound on it says anything about designs. (Two arms that also draw alike are
/// [`zero_by_construction`], whose reason comes first.) `claim` as written, so that the
/// reason names its arms as the JSON does.
fn same_design(claim: &Claim, experiment: &Experiment) -> Option<String> {
    let Claim::MetricGap { higher, lower, .. } = claim else {
        return None;
    };
    let split = |name: &str| {
        experiment
            .arms
            .iter()
            .find(|a| a.name == *name)
            .map(|a| a.normal_form())
    };
    let (h, l) = (split(higher)?, split(lower)?);
    (h == l).then(|| {
        format!(
            "vacuous claim: $.experiment.claim compares arm {higher:?} ($.experiment.claim.higher) with arm {lower:?} ($.experiment.claim.lower), which run the same design (split {} once the seed and the fold assignment are set aside), so the gap is between two draws of one design, 0 whatever the data, and no bound on it is evidence about designs: compare two different splits",
            String::from_utf8_lossy(&crate::canon::canonical_bytes(&h))
        )
    })
}

/// Why a gap is zero by construction, if it is: the two arms score the same rows and
/// give each of them the same prediction in every repeat — the same score for a metric
/// that reads the model, the same baseline class for the majority baseline (which reads
/// labels only: two cross-validations of the same rows give the same baseline whatever
/// their folds). The gap is then 0 for any labels, so a claim of no gap would hold for
/// any data and one of a gap never can: neither is evidence.
fn zero_by_construction(claim: &Claim, observed: &Evaluation) -> Option<String> {
    let Claim::MetricGap {
        metric,
        higher,
        lower,
        ..
    } = claim
    else {
        return None;
    };
    let (h, l) = (
        observed_predictions(observed, higher),
        observed_predictions(observed, lower),
    );
    let same_predictions = |a: &crate::arm::Scores, b: &crate::arm::Scores| {
        if metric.depends_on_model() {
            a.test_scores == b.test_scores
        } else {
            a.baseline == b.baseline
        }
    };
    let alike = h.test_rows == l.test_rows
        && h.repeats.len() == l.repeats.len()
        && h.repeats
            .iter()
            .zip(&l.repeats)
            .all(|(a, b)| same_predictions(a, b));
    alike.then(|| {
        let what = if metric.depends_on_model() {
            "the same score"
        } else {
            "the same majority-baseline class (a baseline reads labels only)"
        };
        format!(
            "vacuous claim: the gap {} is zero by construction: both arms score the same rows and give each {what}, so it is 0 for any labels and no bound on it is evidence",
            Statement::of(claim).statistic
        )
    })
}

/// The claim's statistic from full results.
pub(crate) fn claim_statistic(claim: &Claim, results: &BTreeMap<String, ArmResult>) -> Option<f64> {
    let metrics: ArmMetrics = results
        .iter()
        .map(|(k, v)| (k.clone(), v.metrics.clone()))
        .collect();
    claim_statistic_from_metrics(claim, &metrics)
}

/// The claim's statistic from per-arm metrics (None when a metric is undefined).
pub(crate) fn claim_statistic_from_metrics(claim: &Claim, metrics: &ArmMetrics) -> Option<f64> {
    let metric = claim.metric().as_str();
    let get = |arm: &str| {
        metrics
            .get(arm)
            .and_then(|m| m.get(metric))
            .and_then(MetricValue::value)
    };
    match claim {
        Claim::MetricGap { higher, lower, .. } => Some(get(higher)? - get(lower)?),
        Claim::MetricAtLeast { arm, .. } | Claim::MetricAtMost { arm, .. } => get(arm),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::Experiment;
    use crate::pack::Pack;

    fn gap(bound: GapBound) -> Claim {
        Claim::MetricGap {
            metric: MetricName::RocAuc,
            higher: "a".into(),
            lower: "b".into(),
            bound,
        }
    }

    /// Only `at_least` has a p-value among the gap bounds: the label-permutation null is
    /// "no gap", which an `at_most` or `within` claim puts on its own side.
    #[test]
    fn only_an_at_least_gap_has_a_permutation_null() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/packs");
        let pack = Pack::open(root.join("entity-leakage")).expect("bundled pack");
        let table = pack.table();
        assert_eq!(
            Null::for_claim(&gap(GapBound::AtLeast(0.1)), table),
            Some(Null::Row)
        );
        assert_eq!(Null::for_claim(&gap(GapBound::AtMost(0.02)), table), None);
        assert_eq!(Null::for_claim(&gap(GapBound::Within(0.02)), table), None);
    }

    /// The strictness of every bound is that of `metric_at_most`: an interval that touches
    /// the threshold neither supports nor contradicts. `within` m holds (−m, m) open.
    #[test]
    fn each_bound_decides_an_interval_strictly_on_its_side() {
        let at = |bound: GapBound| Statement::of(&gap(bound));
        let at_most = at(GapBound::AtMost(0.02));
        assert!(at_most.supported_by((-0.5, 0.019)));
        assert!(
            !at_most.supported_by((-0.5, 0.02)),
            "touching x: not below it"
        );
        assert!(at_most.contradicted_by((0.021, 0.3)));
        assert!(
            !at_most.contradicted_by((0.02, 0.3)),
            "touching x: not above it"
        );
        assert!(!at_most.supported_by((0.0, 0.05)) && !at_most.contradicted_by((0.0, 0.05)));

        let within = at(GapBound::Within(0.02));
        assert!(within.supported_by((-0.019, 0.019)));
        assert!(
            !within.supported_by((-0.02, 0.01)),
            "touching −m: not inside"
        );
        assert!(
            !within.supported_by((-0.01, 0.02)),
            "touching m: not inside"
        );
        assert!(within.contradicted_by((0.021, 0.05)), "wholly above m");
        assert!(within.contradicted_by((-0.05, -0.021)), "wholly below −m");
        assert!(!within.contradicted_by((0.02, 0.05)) && !within.contradicted_by((-0.05, -0.02)));
        // Straddling either end, or wider than the margin on both sides: neither.
        for ci in [(0.01, 0.03), (-0.03, -0.01), (-0.03, 0.03)] {
            assert!(
                !within.supported_by(ci) && !within.contradicted_by(ci),
                "{ci:?}"
            );
        }

        let at_least = at(GapBound::AtLeast(0.1));
        assert!(at_least.supported_by((0.11, 0.3)) && at_least.contradicted_by((-0.1, 0.09)));
    }

    /// The report names the bound of an `at_most` or `within` gap only: an `at_least`
    /// gap's report has no `bound` key, as before the key existed.
    #[test]
    fn the_report_names_the_bound_of_at_most_and_within_only() {
        assert_eq!(
            Statement::of(&gap(GapBound::AtLeast(0.0))).reported_bound(),
            None
        );
        assert_eq!(
            Statement::of(&gap(GapBound::AtMost(0.0))).reported_bound(),
            Some(Side::AtMost)
        );
        assert_eq!(
            Statement::of(&gap(GapBound::Within(0.1))).reported_bound(),
            Some(Side::Within)
        );
        let one_arm = Claim::MetricAtMost {
            metric: MetricName::RocAuc,
            arm: "a".into(),
            value: 0.7,
        };
        assert_eq!(Statement::of(&one_arm).reported_bound(), None);
    }

    /// A ROC AUC gap lies in [−1, 1]: `at_most` 1 and `within` 1 hold whatever the data
    /// (vacuous), just below 1 they do not.
    #[test]
    fn at_most_and_within_are_vacuous_from_the_top_of_the_gap_range() {
        for bound in [
            GapBound::AtMost(1.0),
            GapBound::Within(1.0),
            GapBound::Within(3.0),
        ] {
            assert_eq!(vacuous_range(&gap(bound)), Some([-1.0, 1.0]), "{bound:?}");
        }
        for bound in [
            GapBound::AtMost(0.99),
            GapBound::Within(0.99),
            GapBound::AtMost(-1.0),
        ] {
            assert_eq!(vacuous_range(&gap(bound)), None, "{bound:?}");
        }
    }

    /// The claim's own null refits the claimed arm only, and that arm's numbers are those
    /// of a null that refits every arm: the skipped fits were never read.
    #[test]
    fn a_claim_null_refits_the_claimed_arms_with_the_same_numbers() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/packs");
        let pack = Pack::open(root.join("entity-leakage")).expect("bundled pack");
        let bytes =
            std::fs::read(root.join("entity-leakage/experiments/grouped-auc-overclaimed.json"))
                .expect("bundled experiment");
        let experiment = Experiment::from_json(&bytes).expect("valid experiment");
        let claim = experiment.claim.clone().expect("a claim");
        let table = pack.table();
        let null = Null::for_claim(&claim, table).expect("a p-value null");
        assert_ne!(null, Null::Row, "this claim's null is entity-aware");
        let settings = ClaimSettings {
            permutations: 12,
            seed: 5,
            alpha: 0.05,
            family: 1,
            threads: 2,
        };
        let prepared = PreparedExperiment::new(&pack, table, &experiment, 2).expect("valid");
        let every = permutation_runs(&prepared, null, NullArms::All, &settings);
        let claimed = permutation_runs(&prepared, null, NullArms::Claimed(&claim), &settings);
        assert_eq!(every.runs.len(), claimed.runs.len());
        let mut compared = 0;
        for (all, only) in every.runs.iter().zip(&claimed.runs) {
            let (Ok(Some(all)), Ok(Some(only))) = (all, only) else {
                assert_eq!(all.is_ok(), only.is_ok());
                continue;
            };
            assert_eq!(all.len(), 2, "both arms refitted");
            assert_eq!(
                only.keys().collect::<Vec<_>>(),
                vec!["entity_grouped"],
                "only the claimed arm refitted"
            );
            let auc = |m: &ArmMetrics| m["entity_grouped"]["roc_auc"].clone();
            assert_eq!(auc(all), auc(only), "the claimed metric, bit for bit");
            compared += 1;
        }
        assert!(
            compared >= 10,
            "{compared} non-vacuous permutations compared"
        );
    }

    /// (b + 1)/(K + 1), b the null statistics at least the observed one (ties count
    /// against the claim), by hand.
    #[test]
    fn the_p_value_counts_the_null_statistics_at_least_the_observed() {
        let null = [0.1, 0.5, 0.5, 0.9];
        assert_eq!(permutation_p_value(&null, 0.5), 4.0 / 5.0);
        assert_eq!(permutation_p_value(&null, 0.6), 2.0 / 5.0);
        assert_eq!(permutation_p_value(&null, 1.0), 1.0 / 5.0);
        assert_eq!(permutation_p_value(&null, 0.0), 1.0);
        assert_eq!(permutation_p_value(&[], 0.3), 1.0);
    }

    fn settings(alpha: f64, family: u32) -> ClaimSettings {
        ClaimSettings {
            permutations: 19,
            seed: 1,
            alpha,
            family,
            threads: 1,
        }
    }

    /// α is accepted in (0, 0.10] and a family of 1 to 3; each test of a family of m is
    /// decided at α/m with the (1 − 0.05/m) interval's z.
    #[test]
    fn the_decision_level_divides_alpha_by_the_family() {
        let level = DecisionLevel::of(&settings(0.05, 1)).unwrap();
        assert_eq!(
            (level.alpha, level.z, level.family),
            (0.05, intervals::Z95, 1)
        );
        let level = DecisionLevel::of(&settings(0.06, 3)).unwrap();
        assert_eq!(level.alpha, 0.06 / 3.0);
        assert_eq!(Some(level.z), intervals::z_for_family(3));
        assert_eq!(level.family, 3);
        assert!(
            DecisionLevel::of(&settings(0.10, 2)).is_ok(),
            "the top of the range"
        );
        for alpha in [0.0, -0.01, 0.1_f64.next_up(), f64::NAN] {
            assert!(
                matches!(
                    DecisionLevel::of(&settings(alpha, 1)),
                    Err(LevelRefused::Alpha(_))
                ),
                "{alpha}"
            );
        }
        for family in [0, 4] {
            assert_eq!(
                DecisionLevel::of(&settings(0.05, family)).err(),
                Some(LevelRefused::Family(family))
            );
        }
        let text = LevelRefused::Alpha(0.2).to_string();
        assert!(text.contains("alpha 0.2 is outside (0, 0.1]"), "{text}");
        let text = LevelRefused::Family(4).to_string();
        assert!(text.contains("families of 1 to 3"), "{text}");
    }

    /// The interval's level as printed: 95, 97.5 and 98.3333 (100 − 5/m, four decimals,
    /// trailing zeros dropped).
    #[test]
    fn the_printed_level_is_one_hundred_minus_five_over_the_family() {
        assert_eq!(ci_percent(1), "95");
        assert_eq!(ci_percent(2), "97.5");
        assert_eq!(ci_percent(3), "98.3333");
        assert_eq!(ci_percent(0), "95");
    }

    fn evidence(ci: (f64, f64), p_value: Option<f64>, permutations: usize) -> Evidence {
        Evidence {
            observed: (ci.0 + ci.1) / 2.0,
            ci,
            p_value,
            permutations,
        }
    }

    /// Why a claim is not supported: an interval off the claimed side, a p-value above α,
    /// or fewer than ⌈1/α⌉ − 1 non-vacuous permutations (19 at α = 0.05, 39 at 0.025:
    /// with fewer even the smallest p-value, 1/(K+1), exceeds α). p = α and K = ⌈1/α⌉ − 1
    /// are enough.
    #[test]
    fn reasons_name_the_interval_the_p_value_and_too_few_permutations() {
        let at_least = Statement::of(&gap(GapBound::AtLeast(0.1)));
        let level = |alpha: f64, family: u32| DecisionLevel {
            alpha,
            z: intervals::z_for_family(family).unwrap(),
            family,
        };
        let (l05, l025) = (level(0.05, 1), level(0.025, 2));
        let ok = evidence((0.2, 0.4), Some(0.05), 19);
        assert!(reasons_not_supported(&at_least, &ok, &l05).is_empty());
        let r = reasons_not_supported(&at_least, &evidence((0.2, 0.4), Some(0.05), 18), &l05);
        assert_eq!(
            r,
            ["too few permutations: 18 non-vacuous, need at least 19 for alpha 0.05"]
        );
        let r = reasons_not_supported(&at_least, &evidence((0.2, 0.4), Some(0.025), 38), &l025);
        assert_eq!(
            r,
            ["too few permutations: 38 non-vacuous, need at least 39 for alpha 0.025"]
        );
        assert!(
            reasons_not_supported(&at_least, &evidence((0.2, 0.4), Some(0.025), 39), &l025)
                .is_empty()
        );
        let r = reasons_not_supported(&at_least, &evidence((0.2, 0.4), Some(0.06), 19), &l05);
        assert_eq!(r, ["p = 0.060000 > alpha = 0.05"]);
        let r = reasons_not_supported(&at_least, &evidence((0.1, 0.4), None, 0), &l025);
        assert_eq!(
            r,
            ["the 97.5% CI [0.100000, 0.400000] does not lie entirely on the claimed side of 0.1"]
        );
        let within = Statement::of(&gap(GapBound::Within(0.05)));
        let r = reasons_not_supported(&within, &evidence((-0.01, 0.06), None, 0), &l05);
        assert_eq!(
            r,
            ["the 95% CI [-0.010000, 0.060000] does not lie entirely inside (-0.05, 0.05)"]
        );
        // Both reasons at once, in this order.
        let r = reasons_not_supported(&at_least, &evidence((0.0, 0.4), Some(0.5), 19), &l05);
        assert_eq!(r.len(), 2, "{r:?}");
    }

    /// CONTRADICTS when the interval lies wholly on the wrong side (whatever the other
    /// reasons), else SUPPORTS with no reason, else INCONCLUSIVE with the reasons joined.
    #[test]
    fn the_outcome_is_contradicts_supports_or_inconclusive() {
        let at_least = Statement::of(&gap(GapBound::AtLeast(0.1)));
        let contradicted = evidence((-0.2, 0.05), Some(0.5), 19);
        let (outcome, standing) = decide(&at_least, &contradicted, vec!["x".into()]);
        assert_eq!(outcome, ClaimOutcome::Contradicts);
        assert_eq!(
            standing,
            Standing::Contradicts {
                ci: [-0.2, 0.05],
                // The evidence's own observed value (the fixture's midpoint), carried as is.
                observed: contradicted.observed,
                threshold: 0.1,
                side: Side::AtLeast
            }
        );
        let (outcome, standing) = decide(&at_least, &evidence((0.2, 0.3), Some(0.01), 19), vec![]);
        assert_eq!(
            (outcome, standing),
            (ClaimOutcome::Supports, Standing::Supports)
        );
        let (outcome, standing) = decide(
            &at_least,
            &evidence((0.05, 0.3), Some(0.01), 19),
            vec!["a".into(), "b".into()],
        );
        assert_eq!(outcome, ClaimOutcome::Inconclusive);
        assert_eq!(standing, Standing::Inconclusive("a; b".into()));
    }

    /// `at_least` and one-arm claims decide strictly too: an interval touching the
    /// threshold neither supports nor contradicts.
    #[test]
    fn at_least_and_one_arm_claims_decide_strictly() {
        let at_least = Statement::of(&gap(GapBound::AtLeast(0.1)));
        assert!(
            !at_least.supported_by((0.1, 0.3)),
            "touching t: not above it"
        );
        assert!(
            !at_least.contradicted_by((-0.1, 0.1)),
            "touching t: not below it"
        );
        assert!(!at_least.supported_by((0.05, 0.3)) && !at_least.contradicted_by((0.05, 0.3)));
        let one_arm_at_least = Statement::of(&Claim::MetricAtLeast {
            metric: MetricName::RocAuc,
            arm: "a".into(),
            value: 0.7,
        });
        assert_eq!(one_arm_at_least.side, Side::AtLeast);
        assert_eq!(one_arm_at_least.statistic, "roc_auc(a)");
        assert!(one_arm_at_least.supported_by((0.71, 0.9)));
        assert!(one_arm_at_least.contradicted_by((0.5, 0.69)));
        let one_arm_at_most = Statement::of(&Claim::MetricAtMost {
            metric: MetricName::Accuracy,
            arm: "a".into(),
            value: 0.7,
        });
        assert_eq!(one_arm_at_most.side, Side::AtMost);
        assert!(one_arm_at_most.supported_by((0.5, 0.69)));
        assert!(one_arm_at_most.contradicted_by((0.71, 0.9)));
        assert_eq!(
            Statement::of(&gap(GapBound::Within(0.02))).statistic,
            "roc_auc(a) - roc_auc(b)"
        );
    }

    /// A claim is vacuous exactly when its statistic's whole range satisfies it: a metric
    /// lies in [0, 1] (the accuracy lift in [−1, 1]), a gap in [−1, 1] ([−2, 2]).
    #[test]
    fn a_claim_is_vacuous_exactly_when_the_range_satisfies_it() {
        let one_arm = |metric, at_least: bool, value| {
            let arm = "a".to_string();
            if at_least {
                Claim::MetricAtLeast { metric, arm, value }
            } else {
                Claim::MetricAtMost { metric, arm, value }
            }
        };
        let auc = MetricName::RocAuc;
        let lift = MetricName::AccuracyLift;
        assert_eq!(vacuous_range(&one_arm(auc, true, 0.0)), Some([0.0, 1.0]));
        assert_eq!(vacuous_range(&one_arm(auc, true, 0.01)), None);
        assert_eq!(vacuous_range(&one_arm(auc, false, 1.0)), Some([0.0, 1.0]));
        assert_eq!(vacuous_range(&one_arm(auc, false, 0.99)), None);
        assert_eq!(vacuous_range(&one_arm(lift, true, -1.0)), Some([-1.0, 1.0]));
        assert_eq!(vacuous_range(&one_arm(lift, true, -0.99)), None);
        assert_eq!(vacuous_range(&one_arm(lift, false, 0.99)), None);
        assert_eq!(
            vacuous_range(&gap(GapBound::AtLeast(-1.0))),
            Some([-1.0, 1.0])
        );
        assert_eq!(vacuous_range(&gap(GapBound::AtLeast(-0.99))), None);
        let lift_gap = |bound| Claim::MetricGap {
            metric: lift,
            higher: "a".into(),
            lower: "b".into(),
            bound,
        };
        assert_eq!(
            vacuous_range(&lift_gap(GapBound::AtMost(2.0))),
            Some([-2.0, 2.0])
        );
        assert_eq!(vacuous_range(&lift_gap(GapBound::Within(1.5))), None);
        assert_eq!(
            vacuous_range(&lift_gap(GapBound::AtLeast(-2.0))),
            Some([-2.0, 2.0])
        );
        for metric in [
            MetricName::Accuracy,
            MetricName::BalancedAccuracy,
            MetricName::MajorityBaselineAccuracy,
        ] {
            assert_eq!(metric_range(metric), [0.0, 1.0]);
        }
    }

    /// A gap's statistic is higher − lower; undefined when either arm's metric is.
    #[test]
    fn the_statistic_is_the_metric_or_the_difference_of_the_two_arms() {
        let metrics: ArmMetrics = [
            ("a", MetricValue::Value(0.9)),
            ("b", MetricValue::Value(0.25)),
            ("u", MetricValue::undefined("test set has no positive rows")),
        ]
        .into_iter()
        .map(|(arm, v)| {
            (
                arm.to_string(),
                BTreeMap::from([("roc_auc".to_string(), v)]),
            )
        })
        .collect();
        assert_eq!(
            claim_statistic_from_metrics(&gap(GapBound::AtLeast(0.1)), &metrics),
            Some(0.9 - 0.25)
        );
        let undefined_gap = Claim::MetricGap {
            metric: MetricName::RocAuc,
            higher: "a".into(),
            lower: "u".into(),
            bound: GapBound::AtLeast(0.1),
        };
        assert_eq!(claim_statistic_from_metrics(&undefined_gap, &metrics), None);
        let one_arm = Claim::MetricAtMost {
            metric: MetricName::RocAuc,
            arm: "b".into(),
            value: 0.5,
        };
        assert_eq!(claim_statistic_from_metrics(&one_arm, &metrics), Some(0.25));
    }

    /// A report's `interval` and `null` read back as written.
    #[test]
    fn interval_labels_and_nulls_round_trip_through_json() {
        for label in [
            IntervalLabel::Method(IntervalMethod::ObuchowskiClusteredPaired),
            IntervalLabel::None,
            IntervalLabel::Undefined("test set has no positive rows".into()),
        ] {
            let text = serde_json::to_string(&label).unwrap();
            assert_eq!(serde_json::from_str::<IntervalLabel>(&text).unwrap(), label);
        }
        assert_eq!(IntervalLabel::None.to_string(), "none");
        assert_eq!(
            IntervalLabel::Undefined("why".into()).to_string(),
            "undefined: why"
        );
        assert!(serde_json::from_str::<IntervalLabel>("\"no such method\"").is_err());
        #[derive(Serialize, Deserialize, PartialEq, Debug)]
        struct Holder {
            #[serde(with = "null_name")]
            null: Option<Null>,
        }
        for null in [
            None,
            Some(Null::Row),
            Some(Null::Entity),
            Some(Null::EntityBlocks),
        ] {
            let text = serde_json::to_string(&Holder { null }).unwrap();
            assert_eq!(
                serde_json::from_str::<Holder>(&text).unwrap(),
                Holder { null }
            );
        }
        assert!(serde_json::from_str::<Holder>(r#"{"null":"no null"}"#).is_err());
    }
}
