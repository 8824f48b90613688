//! Repeated cross-validation with the `sklearn` assignment against scikit-learn 1.9.1's
//! `RepeatedKFold` and its repeated `GroupKFold(shuffle=True)` loop: goldens from
//! `tests/parity/gen_repeated_cv_goldens.py` (its docstring defines the JSON), compared with
//! `counterlab::split::folds` on a pack built from each data set, fold for fold and row for
//! row.

use counterlab::split::{Assignment, SplitSpec};
use counterlab::{JsonPath, Pack};
use serde_json::Value;

use crate::common::{write_pack, TempDir};

fn goldens() -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/parity/repeated_cv_goldens.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The data set's pack: entity `e<i>` with its rows at times 0, 1, …, in canonical order.
fn pack(root: &std::path::Path, seed: u64, rows_per_entity: &[u64]) -> Pack {
    let mut csv = String::from("entity,t,label,x\n");
    let mut row = 0;
    for (e, &count) in rows_per_entity.iter().enumerate() {
        for t in 0..count {
            csv.push_str(&format!("e{e:03},{t},{},{row}\n", row % 2));
            row += 1;
        }
    }
    let dir = write_pack(root, &format!("repeated-{seed}"), &csv, &["x"], Some("t"));
    Pack::open(&dir).unwrap()
}

#[test]
fn sklearn_assignment_with_repeats_is_repeated_kfold_and_repeated_group_kfold() {
    let goldens = goldens();
    assert_eq!(goldens["versions"]["sklearn"], "1.9.1");
    let temp = TempDir::new("repeated-cv");
    let mut compared = 0;
    for case in goldens["cases"].as_array().unwrap() {
        let rows: Vec<u64> = serde_json::from_value(case["rows_per_entity"].clone()).unwrap();
        let pack = pack(temp.path(), case["data_seed"].as_u64().unwrap(), &rows);
        let (k, repeats) = (
            case["k"].as_u64().unwrap() as u32,
            case["repeats"].as_u64().unwrap() as u32,
        );
        let seed = case["random_state"].as_u64().unwrap();
        let specs = [
            (
                "k_fold",
                SplitSpec::KFold {
                    folds: k,
                    assignment: Some(Assignment::Sklearn),
                    repeats: Some(repeats),
                },
            ),
            (
                "entity_k_fold",
                SplitSpec::EntityKFold {
                    folds: k,
                    assignment: Some(Assignment::Sklearn),
                    repeats: Some(repeats),
                },
            ),
        ];
        for (kind, spec) in specs {
            let folds = counterlab::split::folds(pack.table(), &spec, seed, &JsonPath::root())
                .unwrap_or_else(|e| panic!("{kind} {case}: {e}"));
            let got: Vec<Vec<i64>> = folds
                .iter()
                .map(|f| {
                    f.fold_of_row()
                        .iter()
                        .map(|x| i64::from(x.unwrap()))
                        .collect()
                })
                .collect();
            let expected: Vec<Vec<i64>> = serde_json::from_value(case[kind].clone()).unwrap();
            assert_eq!(
                got, expected,
                "{kind}: k {k}, {repeats} repeats, random_state {seed}"
            );
            compared += 1;
        }
        std::fs::remove_dir_all(temp.path().join(format!("repeated-{}", case["data_seed"]))).ok();
    }
    assert_eq!(compared, 144);
}

/// numpy takes 32-bit seeds and a selected experiment's derived seed is a 64-bit one: the
/// `random_state` is the seed modulo 2³² (docs/FORMATS.md), so seeds 7 and 2³² + 7 draw
/// the same folds, and 2³² − 1 (numpy's largest) another.
#[test]
fn sklearn_repeats_take_the_seed_modulo_two_to_the_32() {
    let temp = TempDir::new("repeated-cv-seed");
    let pack = pack(temp.path(), 0, &[2, 2, 2]);
    let spec = SplitSpec::KFold {
        folds: 2,
        assignment: Some(Assignment::Sklearn),
        repeats: Some(2),
    };
    let folds =
        |seed: u64| counterlab::split::folds(pack.table(), &spec, seed, &JsonPath::root()).unwrap();
    assert_eq!(folds((1 << 32) + 7), folds(7));
    let largest = folds((1 << 32) - 1);
    assert_eq!(folds(u64::MAX), largest);
    assert!((0..20).any(|s| folds(s) != largest));
    // One repeat is the unshuffled KFold, whatever the seed.
    let once = SplitSpec::KFold {
        folds: 2,
        assignment: Some(Assignment::Sklearn),
        repeats: None,
    };
    assert!(counterlab::split::folds(pack.table(), &once, 1 << 40, &JsonPath::root()).is_ok());
}
