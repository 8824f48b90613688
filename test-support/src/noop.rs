//! When an edited payload is no edit at all: the rule the robustness tests and the fuzz
//! targets share for "only no-op edits may be SUPPORTED" (docs/FUZZING.md).

use counterlab::canon::{self, HashKind};
use counterlab::experiment::Claim;
use counterlab::{Experiment, Packs};
use serde_json::Value;

/// The payload with the representation differences the verifier does not see put in a
/// normal form: `$.experiment` and `$.claim` are compared as typed values, so `"c": 1` is
/// `"c": 1.0` (`canon` agrees) and an explicit `"features": null` is an absent
/// `features`. With `COUNTERLAB_FUZZ_STRICT=1` in the environment nothing is normalised.
pub fn normal_form(value: &Value) -> Value {
    let mut value = value.clone();
    if std::env::var_os("COUNTERLAB_FUZZ_STRICT").is_some() {
        return value;
    }
    if let Ok(experiment) = serde_json::from_value::<Experiment>(value["experiment"].clone()) {
        value["experiment"] = serde_json::to_value(&experiment).expect("an experiment encodes");
    }
    if let Ok(claim) = serde_json::from_value::<Option<Claim>>(value["claim"].clone()) {
        value["claim"] = serde_json::to_value(&claim).expect("a claim encodes");
    }
    value
}

/// Whether `edited` differs from `original` (both in [`normal_form`]) only in
/// `$.experiment`, and the kernel, running the edited experiment, gets exactly the
/// original's `result_hash`: an honest payload of an equivalent experiment, such as a
/// `test_fraction` one ulp off that selects the same rows (docs/FUZZING.md, finding 5).
pub fn is_equivalent_experiment(packs: &Packs, edited: &Value, original: &Value) -> bool {
    let (mut edited_form, original_form) = (normal_form(edited), normal_form(original));
    if !edited_form.is_object() {
        return false;
    }
    edited_form["experiment"] = original_form["experiment"].clone();
    if canon::hash_value(HashKind::Payload, &edited_form)
        != canon::hash_value(HashKind::Payload, &original_form)
    {
        return false;
    }
    let Ok(experiment) = serde_json::from_value::<Experiment>(edited["experiment"].clone()) else {
        return false;
    };
    counterlab::run(packs, &experiment)
        .is_ok_and(|payload| original["result_hash"] == payload.result_hash.as_str())
}

/// Whether `edited` is a no-op edit of `original`: the same canonical value in
/// [`normal_form`], or an equivalent experiment ([`is_equivalent_experiment`]).
pub fn is_noop(packs: &Packs, edited: &Value, original: &Value) -> bool {
    canon::hash_value(HashKind::Payload, &normal_form(edited))
        == canon::hash_value(HashKind::Payload, &normal_form(original))
        || is_equivalent_experiment(packs, edited, original)
}
