//! The work a verification does, counted: every arm is prepared once per table and fitted
//! once per (table, labels), as docs/VERDICTS.md ("Work") says.

use serde_json::Value;

use super::*;
use crate::work_counter;

fn bundled_documents() -> Vec<(String, Vec<u8>)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/packs");
    let mut found = Vec::new();
    for pack in std::fs::read_dir(&root).expect("bundled packs") {
        let dir = pack.expect("a pack folder").path().join("payloads");
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.expect("a payload").path();
            if path.extension().is_some_and(|e| e == "json") {
                let name = path
                    .strip_prefix(&root)
                    .expect("under root")
                    .display()
                    .to_string();
                found.push((name, std::fs::read(&path).expect("readable")));
            }
        }
    }
    found.sort();
    found
}

fn status(report: &Report, id: CheckId) -> Status {
    report
        .checks()
        .iter()
        .find(|c| c.id == id.as_str())
        .map(|c| c.status)
        .expect("every check is in every report")
}

/// Arms a claim's null refits: the gap's two, or the one it names.
/// The fits one labelling of an arm takes: 1, or its fold count times its repeats for
/// cross-validation.
fn arm_fits(arm: &Value) -> u64 {
    arm["split"]["folds"].as_u64().unwrap_or(1) * arm["split"]["repeats"].as_u64().unwrap_or(1)
}

/// The fits one permutation of a null takes of an arm: a repeated cross-validation's first
/// repeat only.
fn null_fits(arm: &Value) -> u64 {
    arm["split"]["folds"].as_u64().unwrap_or(1)
}

/// The fits one labelling of the claimed arms takes (what a null refits per permutation).
fn claimed_fits(experiment: &Value) -> u64 {
    let claim = &experiment["claim"];
    experiment["arms"]
        .as_array()
        .expect("arms")
        .iter()
        .filter(|arm| {
            [&claim["higher"], &claim["lower"], &claim["arm"]]
                .iter()
                .any(|&name| *name == arm["name"])
        })
        .map(null_fits)
        .sum()
}

/// Whether a claim report's p-value came from a null of its own (entity-aware), run besides
/// the row null of the chance check.
fn own_null(claim: Option<&ClaimReport>) -> bool {
    claim.is_some_and(|c| {
        matches!(
            c.null,
            Some(crate::stats::Null::Entity | crate::stats::Null::EntityBlocks)
        )
    })
}

/// The formula of docs/VERDICTS.md ("Work"), against the counts of a verification with one
/// thread: A arms, B ablations, R row-order shuffles, K permutations.
#[test]
fn a_verification_prepares_each_arm_once_per_table_and_fits_it_once_per_labelling() {
    let packs =
        Packs::discover(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/packs"))
            .expect("bundled packs");
    let k = 19;
    let options = VerifyOptions {
        permutations: k,
        threads: 1,
        ..VerifyOptions::default()
    };
    let r = options.row_order_shuffles as u64;
    let active = ACTIVE_PERMUTATIONS as u64;
    let k = k as u64;
    let mut payloads = 0;
    let mut maps = 0;
    for (name, bytes) in bundled_documents() {
        let value: Value = serde_json::from_slice(&bytes).expect("JSON");
        let experiment = &value["experiment"];
        // The trees' map (15 cells of trees at K = 39, most of this test's time) is left
        // out: a map's count is a sum over cells of the arm and null counts above, which
        // do not depend on the model family, and the trees' payloads are counted here.
        if value["format"] == crate::boundary::BOUNDARY_FORMAT
            && experiment["model"]["kind"] == "gbdt"
        {
            continue;
        }
        let arms = experiment["arms"].as_array().expect("arms");
        let a = arms.len() as u64;
        // One fit per arm per feature set and labelling; per fold for cross-validation.
        let f: u64 = arms.iter().map(arm_fits).sum();
        let f1: u64 = arms.iter().map(null_fits).sum();
        // An ablation that drops nothing reuses the arm's own fit (`arm.rs`): only those
        // that drop a feature are fitted.
        let b = experiment["ablations"].as_array().map_or(0, |ablations| {
            ablations
                .iter()
                .filter(|a| a["drop"].as_array().is_some_and(|d| !d.is_empty()))
                .count()
        }) as u64;
        let counts = work_counter::start();
        let report = verify(&bytes, &packs, &options);
        let (preparations, fits) = counts.get();
        let expected = if value["format"] == crate::boundary::BOUNDARY_FORMAT {
            maps += 1;
            // Per cell: each arm prepared once on the cell's table and fitted once per
            // feature set, then the claimed arms once per permutation of the cell's null
            // (none for metric_at_most, none when the claim is undefined before it).
            let cells = value["cells"].as_array().expect("cells");
            let spec_k = value["boundary"]["permutations"].as_u64().expect("K");
            let per_claim = claimed_fits(experiment);
            let mut fits = 0;
            for cell in cells {
                let with_null = cell["claim"]["null"] != "none";
                fits += f * (1 + b) + if with_null { spec_k * per_claim } else { 0 };
            }
            (cells.len() as u64 * a, fits)
        } else if status(&report, CheckId::RecomputeEqual) == Status::Fail {
            // Recompute and rerun only: nothing else runs on a rejected payload.
            (2 * a, 2 * f * (1 + b))
        } else {
            payloads += 1;
            assert_eq!(
                status(&report, CheckId::MutationRowOrder),
                Status::Pass,
                "{name}"
            );
            let claim_null = if own_null(report.claim()) {
                k * claimed_fits(experiment)
            } else {
                0
            };
            // A supported margin claim's safeguard (stats::margin) prepares the two claimed
            // arms once more, redrawn, and fits each fold of each redrawn repeat.
            let (redraw_preparations, redraw_fits) =
                if report.claim().is_some_and(|c| c.redraw.is_some()) {
                    let parsed = crate::experiment::Experiment::from_value(experiment)
                        .expect("a bundled experiment");
                    (2, crate::stats::margin::redraw_fits(&parsed))
                } else {
                    (0, 0)
                };
            // Recompute (its preparation serves the active mutations, the nulls and the
            // interval), the independent rerun and each row-order shuffle: one preparation
            // and one fit per feature set each; each active label mutation one fit per
            // feature set; the row null one fit per arm and permutation; an entity-aware
            // claim null one fit per claimed arm and permutation.
            (
                a * (2 + r) + redraw_preparations,
                f * (1 + b) * (2 + r + active) + k * f1 + claim_null + redraw_fits,
            )
        };
        assert_eq!(
            (preparations, fits),
            expected,
            "{name}: (preparations, fits) against the formula"
        );
    }
    assert!(
        payloads >= 15 && maps >= 2,
        "{payloads} payloads, {maps} maps"
    );
}

/// A boundary cell whose gap claim has no p-value (`at_most`) fits each arm once and runs
/// no null; the same cells claiming `at_least` add one fit of each claimed arm per
/// permutation. `boundary::work_units` counts the difference, and nothing more.
#[test]
fn a_boundary_cell_of_an_at_most_gap_runs_no_null() {
    use crate::experiment::{Claim, GapBound};

    let packs =
        Packs::discover(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/packs"))
            .expect("bundled packs");
    let pack = packs.get("entity-leakage").expect("bundled pack");
    let mut spec = pack.manifest().boundary.clone().expect("a sweep");
    // The overlap axis only, with few permutations: two cells. (Not overlap 0: there the
    // leaky arm is the grouped split exactly, a gap zero by construction that runs no
    // null whatever its bound.)
    spec.axes.truncate(1);
    spec.axes[0].values = vec![0.5, 1.0];
    spec.permutations = 19;
    let base = crate::Experiment::registered(pack, &spec.experiment).expect("registered");
    let with_bound = |bound: GapBound| {
        let mut experiment = base.clone();
        let Some(Claim::MetricGap { bound: b, .. }) = &mut experiment.claim else {
            panic!("the map's claim is a gap");
        };
        *b = bound;
        experiment
    };
    let k = spec.permutations as u64;
    let fits_per_labelling = crate::budget::arm_fits(&base);
    let feature_sets = 1 + base.ablation_list().len() as u64;
    let mut counted = Vec::new();
    for (bound, null_fits) in [
        // Both arms are claimed, single splits: two fits per permutation.
        (GapBound::AtLeast(0.0), k * 2),
        // A margin (at_most 0 is decided as the mirrored at_least 0): no null; the margin
        // safeguard's draw fits both single-split arms once where the recorded interval
        // supports the claim.
        (GapBound::AtMost(0.05), 0),
    ] {
        let experiment = with_bound(bound);
        let counts = work_counter::start();
        let map = crate::boundary::compute_with(pack, pack.table(), &spec, &experiment, 1)
            .expect("a map");
        let (_, fits) = counts.get();
        let cells = map.cells.len() as u64;
        assert_eq!(cells, 2);
        let redraws = map
            .cells
            .iter()
            .filter(|c| c.claim.as_ref().is_some_and(|r| r.redraw.is_some()))
            .count() as u64;
        assert_eq!(
            fits,
            cells * (fits_per_labelling * feature_sets + null_fits) + 2 * redraws,
            "{bound:?}"
        );
        counted.push(crate::boundary::work_units(
            &spec,
            &experiment,
            pack.table(),
        ));
    }
    let per_fit = crate::budget::work_per_fit(&base, pack.table());
    // The margin's count adds its safeguard's draw of the two arms in every cell (counted
    // whether or not it runs: an upper bound).
    assert_eq!(
        counted[0] - counted[1],
        2 * k * fits_per_labelling * per_fit - 2 * 2 * per_fit,
        "two cells of K permutations of every arm, counted for at_least only"
    );
}
