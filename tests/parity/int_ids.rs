//! The `sklearn` assignment on integer entity ids folds them as scikit-learn folds the
//! column a user exports (issue 46.7): pandas reads an all-integer id column as int64, so
//! `np.unique` sorts the groups as numbers (2 before 10 before 100), not as text. Goldens:
//! `int_id_goldens.json`, written by `gen_int_id_goldens.py` beside this file (run it from
//! the repository root to regenerate) with scikit-learn 1.9.1: `GroupKFold(k)` and three
//! repeats of `GroupKFold(k, shuffle=True)` sharing one `RandomState`, fold for fold.

use counterlab::experiment::{Assignment, SplitSpec};
use counterlab::pack::LoadLimits;
use counterlab::{JsonPath, Pack};
use serde_json::Value;

fn goldens() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/parity/int_id_goldens.json"
    );
    let bytes = std::fs::read(path).expect("run tests/parity/gen_int_id_goldens.py");
    serde_json::from_slice(&bytes).expect("int id goldens parse")
}

/// The golden's CSV as a pack (in memory).
fn pack(csv: &str) -> Pack {
    let manifest = format!(
        "id = \"int-ids\"\ntitle = \"integer ids\"\nconcept = \"entity-leakage\"\n\n[data]\nfile = \"data.csv\"\nblake3 = \"{}\"\nentity = \"entity\"\nlabel = \"label\"\npositive = \"1\"\nfeatures = [\"x\"]\ntime = \"time\"\n",
        blake3::hash(csv.as_bytes()).to_hex()
    );
    Pack::from_parts(
        std::env::temp_dir().join("counterlab-int-ids"),
        &manifest,
        csv.as_bytes(),
        &LoadLimits::default(),
    )
    .unwrap()
}

/// Per repeat, per source row (file order), the fold that tests it.
fn folds(pack: &Pack, k: u32, repeats: Option<u32>, seed: u64) -> Vec<Vec<i64>> {
    let table = pack.table();
    let spec = SplitSpec::EntityKFold {
        folds: k,
        assignment: Some(Assignment::Sklearn),
        repeats,
    };
    counterlab::split::folds(table, &spec, seed, &JsonPath::root())
        .unwrap()
        .iter()
        .map(|f| {
            let mut out = vec![-1; table.n_rows()];
            for (canonical, fold) in f.fold_of_row().iter().enumerate() {
                out[table.source_rows()[canonical] - 1] = i64::from(fold.unwrap());
            }
            out
        })
        .collect()
}

fn fold_per_row(case: &Value) -> Vec<i64> {
    serde_json::from_value(case["fold_per_row"].clone()).unwrap()
}

#[test]
fn sklearn_assignment_orders_integer_ids_as_numbers_like_group_kfold() {
    let goldens = goldens();
    assert_eq!(goldens["versions"]["sklearn"], "1.9.1");
    let pack = pack(goldens["csv"].as_str().unwrap());
    assert_eq!(pack.table().n_entities(), 27);
    let mut compared = 0;
    for (case, text) in goldens["group_k_fold"]
        .as_array()
        .unwrap()
        .iter()
        .zip(goldens["text_group_k_fold"].as_array().unwrap())
    {
        let k = case["k"].as_u64().unwrap() as u32;
        let got = folds(&pack, k, None, 7).remove(0);
        assert_eq!(got, fold_per_row(case), "GroupKFold({k}) on int64 ids");
        if fold_per_row(case) != fold_per_row(text) {
            compared += 1;
        }
    }
    // The text order gives other folds for most k: the comparison tells the orders apart.
    assert!(compared >= 4, "{compared}");
    for case in goldens["repeated"].as_array().unwrap() {
        let (k, seed) = (
            case["k"].as_u64().unwrap() as u32,
            case["random_state"].as_u64().unwrap(),
        );
        let expected: Vec<Vec<i64>> = serde_json::from_value(case["fold_per_row"].clone()).unwrap();
        assert_eq!(
            folds(&pack, k, Some(3), seed),
            expected,
            "3 repeats of GroupKFold({k}, shuffle=True), random_state {seed}"
        );
    }
}

/// One id that is not an integer makes the column text to pandas (an object column): byte
/// order, as `np.unique` sorts text. Hand-checked: ids "2", "10", "x" with 1, 2 and 3
/// rows; GroupKFold(2) deals "x" (3 rows) to fold 0, then "10" (2 rows) to fold 1, then
/// "2" (1 row) to fold 1 (2 rows against 3). With integers only ("2", "10", "100" with 2
/// rows each, ties): the stable ascending sort of sizes reversed puts the largest *number*
/// first — 100 to fold 0, 10 to fold 1, 2 to fold 0 — where byte order ("10" < "100" <
/// "2") would put "2" first.
#[test]
fn one_text_id_keeps_byte_order_and_integer_ties_go_by_value() {
    let csv = "entity,time,x,label\nx,0,1,0\nx,1,2,1\nx,2,3,0\n10,0,4,1\n10,1,5,0\n2,0,6,1\n";
    let got = folds(&pack(csv), 2, None, 1).remove(0);
    assert_eq!(got, [0, 0, 0, 1, 1, 1]);
    let csv = "entity,time,x,label\n2,0,1,0\n2,1,2,1\n10,0,3,0\n10,1,4,1\n100,0,5,0\n100,1,6,1\n";
    let got = folds(&pack(csv), 2, None, 1).remove(0);
    assert_eq!(got, [0, 0, 1, 1, 0, 0]);
}
