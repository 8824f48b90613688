//! The statistics a verdict rests on, below both the verifier and the boundary map so
//! that both apply one rule set: confidence intervals ([`intervals`]: DeLong, Obuchowski,
//! Wilson, cluster-robust) and a claim's evidence (`claim`: statistic, interval,
//! permutation p-value, outcome; `margin`: the verifier's own draw that a margin claim
//! must hold on too).

pub(crate) mod claim;
pub mod intervals;
pub mod margin;

pub use claim::{
    material_margin, ClaimOutcome, ClaimReport, IntervalLabel, Null, ScoredRows, Side,
    MATERIAL_MARGIN_ACCURACY, MATERIAL_MARGIN_ACCURACY_LIFT, MATERIAL_MARGIN_BALANCED_ACCURACY,
    MATERIAL_MARGIN_MAJORITY_BASELINE_ACCURACY, MATERIAL_MARGIN_ROC_AUC, MIN_GAP_HELD_OUT_ENTITIES,
};
pub use intervals::{Estimate, IntervalMethod, Z95};

use crate::rng;

/// The significance levels accepted: `low < α ≤ high`. Above 0.10 a "significant"
/// permutation p-value is no evidence a reader would accept.
pub const ALPHA_RANGE: (f64, f64) = (0.0, 0.10);

/// The seed of the k-th mutation of a kind: drawn from its own ChaCha stream, so it
/// depends on (seed, kind, k) only, never on thread scheduling.
pub(crate) fn mutation_seed(seed: u64, kind: &str, k: usize) -> u64 {
    use rand_chacha::rand_core::RngCore;
    rng::stream(seed, &format!("verify/{kind}/{k}")).next_u64()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The k-th mutation's seed depends on the seed, the kind and k: K permutations draw
    /// K different label orders, and two kinds or two seeds never share a stream.
    #[test]
    fn mutation_seeds_differ_by_seed_kind_and_index() {
        let mut seeds: Vec<u64> = (0..200)
            .map(|k| mutation_seed(7, "labels/rows", k))
            .collect();
        seeds.extend((0..200).map(|k| mutation_seed(7, "labels/entities", k)));
        seeds.extend((0..200).map(|k| mutation_seed(8, "labels/rows", k)));
        let mut distinct = seeds.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), seeds.len());
        assert_eq!(
            mutation_seed(7, "labels/rows", 3),
            seeds[3],
            "a function of its inputs"
        );
    }
}
