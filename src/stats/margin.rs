//! The margin safeguard: the verifier's own draw of a margin claim's splits.
//!
//! A margin claim (a gap's `at_most` x > 0 or `within` m, in the claim's
//! [decided form](Claim::decided_form)) says two designs do not differ by much. It has no
//! permutation test: the label-permutation null is "no gap", which lies on the claimed
//! side. Its interval alone would decide it, and that interval is conditional on the one
//! draw of the folds (or of the split) the proposer made. Draws differ: the proposer can
//! choose the seed, the assignment and the repeats until one draw's interval happens to
//! lie under the margin (issue 46: scikit-learn's unshuffled `KFold` on a table sorted
//! by customer made "random rows" nearly grouped, and "random-row CV inflates ROC AUC by
//! at most 0.05" SUPPORTS where the true gap is 0.29).
//!
//! So the verifier draws the claimed arms again itself, from its own seed (derived from
//! `--seed`, never from the payload), with the kernel's seeded assignment and at least
//! [`REDRAW_REPEATS`] repeats of every cross-validation that draws its folds, and the
//! claim is SUPPORTS only when the interval of that draw (the repeated within+between
//! interval, docs/METRICS.md) lies on the claimed side as well. Nothing the payload chooses
//! reaches the redraw but the design itself: its splits' kinds and fold counts, model,
//! features and metric. The redraw can only withhold SUPPORTS; a contradiction is the
//! recorded design's to show (docs/VERDICTS.md, "The margin safeguard";
//! docs/CALIBRATION.md, "Margin claims whichever draw").

use serde::{Deserialize, Serialize};

use crate::experiment::{Arm, Claim, Experiment};
use crate::split::SplitSpec;

/// The fewest repeats the verifier's draw gives a cross-validation arm that draws its
/// folds (`k_fold`, `entity_k_fold`): the registered designs' and `init`'s starters'
/// count, where the repeated interval's spread over seeds is 0.16 of its half-width
/// (docs/CALIBRATION.md, "Seed stability on the headline design").
pub const REDRAW_REPEATS: u32 = 5;

/// The verifier's draw in a report's `claim.redraw`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Redraw {
    /// The experiment seed of the draw (derived from the verifier's `--seed`).
    pub seed: u64,
    /// Repeats of each cross-validation arm that draws its folds (1 when none does).
    pub repeats: u32,
    /// The claim's statistic on the draw.
    pub observed: f64,
    /// Its interval, at the claim's level.
    pub ci: [f64; 2],
    /// Whether the interval lies on the claimed side.
    pub supports: bool,
}

/// The claimed arms of `experiment` as the verifier draws them: only the two arms the
/// gap `claim` names, experiment seed `seed`, every `k_fold` and `entity_k_fold` with the
/// seeded assignment and max(its repeats, [`REDRAW_REPEATS`]) repeats (both the same, so
/// the gap stays paired repeat by repeat), no ablations, the claim's metric only. `None`
/// when no claimed arm draws anything (a rolling origin, a temporal or predefined split):
/// then the recorded design is the only draw there is.
pub(crate) fn redrawn(experiment: &Experiment, claim: &Claim, seed: u64) -> Option<Experiment> {
    let Claim::MetricGap { higher, lower, .. } = claim else {
        return None;
    };
    let claimed: Vec<&Arm> = experiment
        .arms
        .iter()
        .filter(|arm| &arm.name == higher || &arm.name == lower)
        .collect();
    if !claimed.iter().any(|arm| draws(&arm.split)) {
        return None;
    }
    let repeats = claimed
        .iter()
        .filter(|arm| draws_folds(&arm.split))
        .map(|arm| arm.split.repeats())
        .fold(REDRAW_REPEATS, u32::max);
    let arms = claimed
        .into_iter()
        .map(|arm| Arm {
            split: redrawn_split(&arm.split, repeats),
            ..arm.clone()
        })
        .collect();
    Some(Experiment {
        seed,
        arms,
        ablations: None,
        metrics: vec![claim.metric()],
        claim: Some(claim.clone()),
        ..experiment.clone()
    })
}

/// Whether a split's rows depend on the experiment seed.
fn draws(split: &SplitSpec) -> bool {
    matches!(
        split,
        SplitSpec::RandomRows { .. }
            | SplitSpec::EntityGrouped { .. }
            | SplitSpec::EntityOverlap { .. }
    ) || draws_folds(split)
}

/// Whether a split is a cross-validation that draws its folds.
fn draws_folds(split: &SplitSpec) -> bool {
    matches!(
        split,
        SplitSpec::KFold { .. } | SplitSpec::EntityKFold { .. }
    )
}

fn redrawn_split(split: &SplitSpec, repeats: u32) -> SplitSpec {
    match *split {
        SplitSpec::KFold { folds, .. } => SplitSpec::KFold {
            folds,
            assignment: None,
            repeats: Some(repeats),
        },
        SplitSpec::EntityKFold { folds, .. } => SplitSpec::EntityKFold {
            folds,
            assignment: None,
            repeats: Some(repeats),
        },
        ref other => other.clone(),
    }
}

/// The repeats a redraw gives its cross-validations (1 when none draws its folds).
pub(crate) fn redraw_repeats(redrawn: &Experiment) -> u32 {
    redrawn
        .arms
        .iter()
        .filter(|arm| draws_folds(&arm.split))
        .map(|arm| arm.split.repeats())
        .max()
        .unwrap_or(1)
}

/// The fits the margin safeguard may make for `experiment` (0 unless its claim is a
/// margin whose arms draw anything): every fold of every repeat of the redrawn arms,
/// which the work budget counts (docs/VERDICTS.md, "Work").
pub fn redraw_fits(experiment: &Experiment) -> u64 {
    let Some(claim) = experiment.claim.as_ref().map(Claim::decided_form) else {
        return 0;
    };
    if !claim.is_margin() {
        return 0;
    }
    redrawn(experiment, &claim, 0).map_or(0, |redrawn| crate::budget::arm_fits(&redrawn))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::GapBound;

    /// entity-leakage's design with three arms (`k_fold` 5 × 2 repeats, `entity_k_fold` 5
    /// × 7 repeats, and `other`), two ablations, five metrics and an `at_least` claim.
    fn design(other: serde_json::Value) -> Experiment {
        Experiment::from_value(&serde_json::json!({
            "format": "counterlab.experiment/1",
            "pack": "entity-leakage",
            "seed": 7,
            "model": { "kind": "logistic", "c": 1.0 },
            "arms": [
                { "name": "random_rows", "split": { "kind": "k_fold", "folds": 5, "repeats": 2, "assignment": "sklearn" } },
                { "name": "entity_grouped", "split": { "kind": "entity_k_fold", "folds": 4, "repeats": 7 } },
                { "name": "other", "split": other }
            ],
            "ablations": [
                { "name": "identity", "drop": [] },
                { "name": "no_tenure", "drop": ["tenure_months"] }
            ],
            "metrics": ["roc_auc", "accuracy", "balanced_accuracy"],
            "claim": { "kind": "metric_gap", "metric": "roc_auc", "higher": "random_rows", "lower": "entity_grouped", "at_least": 0.10 }
        }))
        .expect("a valid experiment")
    }

    fn margin(metric: MetricName, higher: &str, lower: &str) -> Claim {
        Claim::MetricGap {
            metric,
            higher: higher.into(),
            lower: lower.into(),
            bound: GapBound::Within(0.05),
        }
    }

    use crate::experiment::MetricName;

    /// The redraw keeps the two claimed arms only, with the verifier's seed, the seeded
    /// assignment and max(5, their repeats) repeats each, no ablations, the claim's metric
    /// and the claim it was given (not the payload's).
    #[test]
    fn the_redraw_is_the_claimed_arms_seeded_repeated_without_ablations() {
        let experiment =
            design(serde_json::json!({ "kind": "random_rows", "test_fraction": 0.25 }));
        let claim = margin(
            MetricName::BalancedAccuracy,
            "entity_grouped",
            "random_rows",
        );
        let redrawn = redrawn(&experiment, &claim, 99).expect("both arms draw");
        assert_eq!(redrawn.seed, 99);
        let names: Vec<&str> = redrawn.arms.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["random_rows", "entity_grouped"]);
        assert_eq!(
            redrawn.arms[0].split,
            SplitSpec::KFold {
                folds: 5,
                assignment: None,
                repeats: Some(7)
            }
        );
        assert_eq!(
            redrawn.arms[1].split,
            SplitSpec::EntityKFold {
                folds: 4,
                assignment: None,
                repeats: Some(7)
            }
        );
        assert_eq!(redrawn.ablations, None);
        assert_eq!(redrawn.metrics, [MetricName::BalancedAccuracy]);
        assert_eq!(redrawn.claim, Some(claim));
        assert_eq!(redraw_repeats(&redrawn), 7);
        // Fewer repeats than REDRAW_REPEATS are raised to it.
        let claim = margin(MetricName::RocAuc, "random_rows", "other");
        let redrawn = redrawn_of(&experiment, &claim);
        assert_eq!(redrawn.arms[0].split.repeats(), REDRAW_REPEATS);
        assert_eq!(
            redrawn.arms[1].split,
            SplitSpec::RandomRows {
                test_fraction: 0.25
            }
        );
        assert_eq!(redraw_repeats(&redrawn), REDRAW_REPEATS);
    }

    fn redrawn_of(experiment: &Experiment, claim: &Claim) -> Experiment {
        redrawn(experiment, claim, 1).expect("an arm draws")
    }

    /// Which splits draw: a random split, a grouped split, an entity overlap and the two
    /// fold kinds do; a temporal split, a predefined column and a rolling origin do not,
    /// so a margin between two of those has no redraw and costs no fit.
    #[test]
    fn only_splits_that_depend_on_the_seed_are_redrawn() {
        for (other, draws) in [
            (
                serde_json::json!({ "kind": "random_rows", "test_fraction": 0.25 }),
                true,
            ),
            (
                serde_json::json!({ "kind": "entity_grouped", "test_fraction": 0.25 }),
                true,
            ),
            (
                serde_json::json!({ "kind": "temporal", "test_fraction": 0.25 }),
                false,
            ),
            (
                serde_json::json!({ "kind": "rolling_origin", "folds": 3 }),
                false,
            ),
        ] {
            let experiment = design(other.clone());
            let claim = margin(MetricName::RocAuc, "other", "other");
            assert_eq!(redrawn(&experiment, &claim, 1).is_some(), draws, "{other}");
            // One arm draws: the pair is redrawn.
            assert!(redrawn(
                &experiment,
                &margin(MetricName::RocAuc, "other", "random_rows"),
                1
            )
            .is_some());
        }
        let experiment = design(serde_json::json!({ "kind": "rolling_origin", "folds": 3 }));
        let pair = margin(MetricName::RocAuc, "other", "other");
        assert_eq!(
            redraw_repeats(&Experiment {
                arms: vec![experiment.arms[2].clone()],
                ..experiment.clone()
            }),
            1
        );
        let mut no_draw = experiment.clone();
        no_draw.claim = Some(pair);
        assert_eq!(redraw_fits(&no_draw), 0);
        // `within` between the fold arms: 5 folds × 7 + 4 folds × 7 fits; `at_least` none.
        let mut within = experiment.clone();
        within.claim = Some(margin(MetricName::RocAuc, "random_rows", "entity_grouped"));
        assert_eq!(redraw_fits(&within), 5 * 7 + 4 * 7);
        assert_eq!(redraw_fits(&experiment), 0);
    }
}
