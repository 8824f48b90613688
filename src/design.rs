//! The design normal form: what an experiment evaluates, with everything that does not
//! change the evaluation taken out (docs/CAPSULE.md, "One design, one hash").
//!
//! Two experiments with the same normal form are one design: they run the same splits,
//! fit the same models and decide the same claim. The normal form
//!
//! - **forgets** the seed (the selector derives it) and each split's `assignment` (the
//!   kernel's draw of the folds or scikit-learn's: which rows fall where, a nuisance like
//!   the seed, so a design cannot be shopped by re-drawing its folds under another
//!   assignment), every name (arms and ablations are
//!   keyed by their content, and the claim's arms by the split they run), the order of
//!   every set (features, arms, ablations, each drop list, metrics), and the spelling of
//!   defaults (`features` left out = the pack's features; `ablations` left out = `[]`;
//!   `"repeats": 1` = no repeats; an `entity_overlap` split with overlap 0 =
//!   the `entity_grouped` split it is exactly);
//! - **keeps** the pack, the model and its numbers, each split's kind and numbers, the
//!   feature set, each ablation's drop set, the metric set and the claim's kind, metric,
//!   direction and threshold (a gap's bound by its key, `at_least`, `at_most` or
//!   `within`, so two claims that differ only in their bound are two designs). Numbers
//!   are compared by value (`1`, `1.0` and `1e0` are one number, as in every canonical
//!   hash); two numbers that differ by one ulp are two designs here, and the derived
//!   seed does not read the design at all ([`crate::select::derived_seed`]), so such a
//!   change cannot re-draw the randomness.
//!
//! Duplicates are not a spelling: an experiment that lists one arm's split or one
//! ablation's drop set twice is refused by [`Experiment::check_structure`] with the JSON
//! path of the repeat, so a design cannot be padded by repetition.

use serde_json::{json, Value};

use crate::canon::{self, HashKind};
use crate::experiment::{Claim, Experiment};

/// The normal form of `experiment` (module docs); `pack_features` are the pack's
/// features, which an experiment without `features` uses.
pub fn normal_form(experiment: &Experiment, pack_features: &[String]) -> Value {
    let mut features: Vec<&String> = experiment
        .features
        .as_deref()
        .unwrap_or(pack_features)
        .iter()
        .collect();
    features.sort();
    let mut arms: Vec<Value> = experiment
        .arms
        .iter()
        .map(|arm| arm.normal_form())
        .collect();
    sort_canonically(&mut arms);
    let ablations = ablation_forms(experiment);
    let mut metrics: Vec<&str> = experiment.metrics.iter().map(|m| m.as_str()).collect();
    metrics.sort_unstable();
    json!({
        "format": experiment.format,
        "pack": experiment.pack,
        "model": canon::to_value(&experiment.model).expect("a model encodes"),
        "features": features,
        "arms": arms,
        "ablations": ablations,
        "metrics": metrics,
        "claim": experiment.claim.as_ref().map(|claim| claim_form(claim, experiment)),
    })
}

/// The ablations as their normal form: each drop set sorted, the list in canonical order
/// (names and list order left out).
fn ablation_forms(experiment: &Experiment) -> Vec<Value> {
    let mut ablations: Vec<Value> = experiment
        .ablation_list()
        .iter()
        .map(|ablation| {
            let mut drop: Vec<&String> = ablation.drop.iter().collect();
            drop.sort();
            json!(drop)
        })
        .collect();
    sort_canonically(&mut ablations);
    ablations
}

/// The canonical hash of the normal form (context `counterlab 2026-11 experiment v1`,
/// the experiment's: a normal form is an experiment's value with names and order taken
/// out, never mistaken for one because its keys differ).
pub fn design_hash(experiment: &Experiment, pack_features: &[String]) -> String {
    canon::hash_value(
        HashKind::Experiment,
        &normal_form(experiment, pack_features),
    )
}

/// The claim with each arm name replaced by the normal form of the split that arm runs
/// (so renaming an arm renames nothing here).
pub fn claim_form(claim: &Claim, experiment: &Experiment) -> Value {
    let split_of = |name: &str| {
        experiment
            .arms
            .iter()
            .find(|a| a.name == name)
            .map_or(Value::Null, |a| a.normal_form())
    };
    let mut value = canon::to_value(claim).expect("a claim encodes");
    let object = value.as_object_mut().expect("a claim is an object");
    for key in ["higher", "lower", "arm"] {
        if let Some(name) = object.get(key).and_then(Value::as_str).map(str::to_owned) {
            object.insert(key.to_owned(), split_of(&name));
        }
    }
    value
}

/// Sorts values by their canonical bytes: a fixed order that no spelling changes.
pub fn sort_canonically(values: &mut [Value]) {
    values.sort_by_cached_key(canon::canonical_bytes);
}
