//! Equivalent rewrites of an experiment: the same design written another way (names,
//! list order, spelled-out defaults, integer-valued floats), for the property tests and the
//! fuzz targets that check "equivalent designs are one design" (docs/CAPSULE.md, "One
//! design, one seed"). Deterministic from a seed, so a failing case replays.

use serde_json::{json, Value};

/// What a rewrite renamed: `(old, new)` arm names and ablation names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Renames {
    /// Arm names, old → new.
    pub arms: Vec<(String, String)>,
    /// Ablation names, old → new.
    pub ablations: Vec<(String, String)>,
}

impl Renames {
    /// The new name of arm `old` (itself when not renamed).
    pub fn arm(&self, old: &str) -> String {
        self.arms
            .iter()
            .find(|(o, _)| o == old)
            .map_or_else(|| old.to_owned(), |(_, n)| n.clone())
    }

    /// The new name of ablation `old` (itself when not renamed).
    pub fn ablation(&self, old: &str) -> String {
        self.ablations
            .iter()
            .find(|(o, _)| o == old)
            .map_or_else(|| old.to_owned(), |(_, n)| n.clone())
    }
}

/// A small deterministic generator (SplitMix64): the rewrite's only randomness.
struct Draw(u64);

impl Draw {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn coin(&mut self) -> bool {
        self.next() & 1 == 1
    }

    fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = (self.next() % (i as u64 + 1)) as usize;
            items.swap(i, j);
        }
    }
}

/// `experiment` (JSON) rewritten without changing its design: arms and ablations renamed
/// (the claim following) and reordered, each drop list, the metrics and the features
/// reordered, `features` written out when it was left out (the pack's, `pack_features`),
/// `"assignment": "seeded"` written out on cross-validation arms that leave it out, an
/// integer-valued `c` written as an integer, and another seed. Which of these happen, and
/// how, follows from `seed`.
pub fn equivalent_rewrite(experiment: &Value, pack_features: &[String], seed: u64) -> (Value, Renames) {
    let mut draw = Draw(seed);
    let mut e = experiment.clone();
    let mut renames = Renames::default();
    e["seed"] = json!(draw.next() >> 1);
    if let Some(arms) = e["arms"].as_array_mut() {
        for (i, arm) in arms.iter_mut().enumerate() {
            if draw.coin() {
                let old = arm["name"].as_str().unwrap_or_default().to_owned();
                let new = format!("arm_{i}_{}", draw.next() % 1000);
                arm["name"] = json!(new);
                renames.arms.push((old, new));
            }
            let split = &mut arm["split"];
            let cross_validated = matches!(
                split["kind"].as_str(),
                Some("k_fold" | "entity_k_fold" | "rolling_origin")
            );
            if cross_validated && split.get("assignment").is_none() && draw.coin() {
                split["assignment"] = json!("seeded");
            }
        }
        draw.shuffle(arms);
    }
    if let Some(claim) = e.get_mut("claim").filter(|c| c.is_object()) {
        for key in ["higher", "lower", "arm"] {
            if let Some(name) = claim.get(key).and_then(Value::as_str).map(str::to_owned) {
                claim[key] = json!(renames.arm(&name));
            }
        }
    }
    if let Some(ablations) = e.get_mut("ablations").and_then(Value::as_array_mut) {
        for (i, ablation) in ablations.iter_mut().enumerate() {
            if draw.coin() {
                let old = ablation["name"].as_str().unwrap_or_default().to_owned();
                let new = format!("ablation_{i}_{}", draw.next() % 1000);
                ablation["name"] = json!(new);
                renames.ablations.push((old, new));
            }
            if let Some(drop) = ablation["drop"].as_array_mut() {
                draw.shuffle(drop);
            }
        }
        draw.shuffle(ablations);
    }
    if let Some(metrics) = e["metrics"].as_array_mut() {
        draw.shuffle(metrics);
    }
    if e.get("features").is_none() && draw.coin() {
        e["features"] = json!(pack_features);
    }
    if let Some(features) = e.get_mut("features").and_then(Value::as_array_mut) {
        draw.shuffle(features);
    }
    if let Some(c) = e["model"]["c"].as_f64() {
        if c.fract() == 0.0 && c.abs() < 1e15 && draw.coin() {
            e["model"]["c"] = json!(c as i64);
        }
    }
    (e, renames)
}

/// `experiment` rewritten equivalently as a *revision* may be: [`equivalent_rewrite`] with
/// the seed, the claim and the names of the arms the claim names kept as they were (what a
/// revision may not touch), so only names of other arms and ablations, list order and
/// spelled-out defaults differ.
pub fn equivalent_revision(experiment: &Value, pack_features: &[String], seed: u64) -> Value {
    let (mut rewritten, renames) = equivalent_rewrite(experiment, pack_features, seed);
    rewritten["seed"] = experiment["seed"].clone();
    rewritten["claim"] = experiment["claim"].clone();
    let claimed: Vec<&str> = ["higher", "lower", "arm"]
        .iter()
        .filter_map(|key| experiment["claim"].get(*key).and_then(Value::as_str))
        .collect();
    if let Some(arms) = rewritten["arms"].as_array_mut() {
        for arm in arms {
            let name = arm["name"].as_str().unwrap_or_default().to_owned();
            if let Some((old, _)) = renames
                .arms
                .iter()
                .find(|(old, new)| *new == name && claimed.contains(&old.as_str()))
            {
                arm["name"] = json!(old);
            }
        }
    }
    rewritten
}

/// `n` distinct ablation drop sets over `features` (at most 1 + f + f(f − 1)/2 of them):
/// the identity, then each feature alone, then each pair — for experiments as heavy as the
/// ablation budget allows, since a repeated drop set is refused.
pub fn distinct_drop_sets(features: &[String], n: usize) -> Vec<Vec<String>> {
    let mut sets: Vec<Vec<String>> = vec![Vec::new()];
    sets.extend(features.iter().map(|f| vec![f.clone()]));
    for (i, a) in features.iter().enumerate() {
        sets.extend(features[i + 1..].iter().map(|b| vec![a.clone(), b.clone()]));
    }
    sets.truncate(n);
    sets
}
