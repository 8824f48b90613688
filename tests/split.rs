//! Splits: grouped splits share no entity, temporal splits put train strictly first, sizes
//! follow the fractions, predefined splits follow the column; checked by brute force.

use counterlab::experiment::SplitSpec;
use counterlab::split::{overlap, split, summarize};
use counterlab::Pack;
use proptest::prelude::*;

use crate::common::{synthetic_csv, write_pack, TempDir};

fn pack(seed: u64, entities: usize, per: usize) -> (TempDir, Pack) {
    let root = TempDir::new("split");
    let dir = write_pack(
        root.path(),
        "p",
        &synthetic_csv(seed, entities, per),
        &["x1", "x2", "x3"],
        Some("t"),
    );
    let pack = Pack::open(dir).unwrap();
    (root, pack)
}

fn features() -> Vec<String> {
    vec!["x1".into(), "x2".into(), "x3".into()]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn grouped_split_never_shares_an_entity(seed in 0u64..1000, data_seed in 0u64..50, fraction in 0.05f64..0.95) {
        let (_root, pack) = pack(data_seed, 30, 4);
        let table = pack.table();
        let s = split(table, &SplitSpec::EntityGrouped { test_fraction: fraction }, seed, &counterlab::JsonPath::root()).unwrap();
        // Brute force: no entity id on both sides.
        for i in 0..table.n_rows() {
            for j in 0..table.n_rows() {
                if s.is_test()[i] && !s.is_test()[j] {
                    prop_assert_ne!(table.entity_of_row()[i], table.entity_of_row()[j]);
                }
            }
        }
        let summary = summarize(table, &s, "entity_grouped");
        prop_assert_eq!(summary.test_entities as f64, (fraction * 30.0).ceil());
        prop_assert_eq!(overlap(table, &s, &features()).entities, 0);
    }

    #[test]
    fn random_rows_take_the_fraction_of_rows(seed in 0u64..1000, fraction in 0.05f64..0.95) {
        let (_root, pack) = pack(7, 25, 4);
        let s = split(pack.table(), &SplitSpec::RandomRows { test_fraction: fraction }, seed, &counterlab::JsonPath::root()).unwrap();
        prop_assert_eq!(s.test_rows().len() as f64, (fraction * 100.0).ceil());
    }

    #[test]
    fn temporal_split_puts_train_strictly_first(fraction in 0.05f64..0.95, per in 2usize..9) {
        let (_root, pack) = pack(11, 12, per);
        let table = pack.table();
        let wanted = (fraction * table.n_rows() as f64).ceil() as usize;
        let s = match split(table, &SplitSpec::Temporal { test_fraction: fraction }, 0, &counterlab::JsonPath::root()) {
            Ok(s) => s,
            Err(e) => {
                // Only when whole time values cannot leave the earliest one (12 rows) to train.
                prop_assert!(wanted > table.n_rows() - 12, "{e}");
                return Ok(());
            }
        };
        let time = table.time().unwrap();
        let latest_train = s.train_rows().iter().map(|&r| time[r]).max().unwrap();
        let earliest_test = s.test_rows().iter().map(|&r| time[r]).min().unwrap();
        prop_assert!(latest_train < earliest_test);
        prop_assert!(s.test_rows().len() as f64 >= (fraction * table.n_rows() as f64).ceil());
        prop_assert_eq!(overlap(table, &s, &features()).temporal_rows, Some(0));
    }
}

#[test]
fn same_seed_same_split_other_seed_other_split() {
    let (_root, pack) = pack(5, 40, 3);
    let spec = SplitSpec::EntityGrouped {
        test_fraction: 0.25,
    };
    let a = split(pack.table(), &spec, 1, &counterlab::JsonPath::root()).unwrap();
    assert_eq!(
        a,
        split(pack.table(), &spec, 1, &counterlab::JsonPath::root()).unwrap()
    );
    assert_ne!(
        a.membership_hash(),
        split(pack.table(), &spec, 2, &counterlab::JsonPath::root())
            .unwrap()
            .membership_hash()
    );
}

#[test]
fn predefined_split_follows_the_column() {
    let (_root, pack) = pack(5, 10, 3);
    let table = pack.table();
    let s = split(
        table,
        &SplitSpec::Predefined {
            column: "is_test".into(),
        },
        0,
        &counterlab::JsonPath::root(),
    )
    .unwrap();
    let column = table.extra_column("is_test").unwrap();
    for (row, value) in column.iter().enumerate() {
        assert_eq!(s.is_test()[row], value == Some("1"));
    }
    assert_eq!(s.test_rows().len(), 10);
}

#[test]
fn predefined_split_names_a_bad_cell() {
    let root = TempDir::new("predef");
    let csv = "entity,label,x1,holdout\nA,1,0.5,1\nB,0,1,yes\nC,1,2,0\n";
    let pack = Pack::open(write_pack(root.path(), "p", csv, &["x1"], None)).unwrap();
    let message = split(
        pack.table(),
        &SplitSpec::Predefined {
            column: "holdout".into(),
        },
        0,
        &counterlab::JsonPath::field("arms").index(0).key("split"),
    )
    .unwrap_err()
    .to_string();
    assert!(
        message.contains("$.arms[0].split.column")
            && message.contains("row 2")
            && message.contains("\"yes\""),
        "{message}"
    );
}

#[test]
fn random_split_overlap_matches_brute_force() {
    let (_root, pack) = pack(9, 30, 4);
    let table = pack.table();
    let s = split(
        table,
        &SplitSpec::RandomRows { test_fraction: 0.3 },
        3,
        &counterlab::JsonPath::root(),
    )
    .unwrap();
    let o = overlap(table, &s, &features());
    let mut shared = std::collections::BTreeSet::new();
    for i in s.test_rows() {
        for j in s.train_rows() {
            if table.entity_of_row()[i] == table.entity_of_row()[j] {
                shared.insert(table.entity_ids()[table.entity_of_row()[i] as usize].clone());
            }
        }
    }
    assert!(o.entities > 0);
    assert_eq!(o.entities as usize, shared.len());
    let first: Vec<String> = shared.into_iter().take(5).collect();
    assert_eq!(o.first_entities, first);
}

#[test]
fn duplicate_feature_rows_are_counted() {
    let root = TempDir::new("dups");
    // Rows 1 and 3 have identical features; 2 and 4 differ.
    let csv = "entity,label,x1,x2,holdout\nA,1,0.5,2,0\nB,0,1,3,0\nC,1,0.5,2,1\nD,0,7,3,1\n";
    let pack = Pack::open(write_pack(root.path(), "p", csv, &["x1", "x2"], None)).unwrap();
    let s = split(
        pack.table(),
        &SplitSpec::Predefined {
            column: "holdout".into(),
        },
        0,
        &counterlab::JsonPath::root(),
    )
    .unwrap();
    let o = overlap(pack.table(), &s, &["x1".into(), "x2".into()]);
    assert_eq!(o.duplicate_feature_rows, 1);
    assert_eq!(o.temporal_rows, None);
    let o = overlap(pack.table(), &s, &["x2".into()]);
    assert_eq!(o.duplicate_feature_rows, 2);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// `duplicate_feature_rows` against brute force: test rows whose feature values equal
    /// those of some training row, on tables with few distinct values (many duplicates).
    #[test]
    fn duplicate_feature_rows_match_brute_force(cells in proptest::collection::vec((0u8..4, 0u8..3, any::<bool>()), 2..60)) {
        let root = TempDir::new("dups-brute");
        let values = [0.0, 0.5, 1.0, 2.5];
        let mut csv = String::from("entity,label,x1,x2,holdout\n");
        for (i, &(a, b, held_out)) in cells.iter().enumerate() {
            csv.push_str(&format!("E{},{},{},{},{}\n", i % 7, i % 2, values[a as usize], values[b as usize], u8::from(held_out)));
        }
        let pack = Pack::open(write_pack(root.path(), "p", &csv, &["x1", "x2"], None)).unwrap();
        let table = pack.table();
        let Ok(s) = split(table, &SplitSpec::Predefined { column: "holdout".into() }, 0, &counterlab::JsonPath::root()) else {
            return Ok(()); // one side empty
        };
        for features in [vec!["x1".to_string(), "x2".to_string()], vec!["x2".to_string()]] {
            let columns: Vec<&[f64]> = features.iter().map(|f| table.feature(f).unwrap()).collect();
            let same = |i: usize, j: usize| columns.iter().all(|c| c[i].to_bits() == c[j].to_bits());
            let expected = (0..table.n_rows())
                .filter(|&i| s.is_test()[i])
                .filter(|&i| (0..table.n_rows()).any(|j| !s.is_test()[j] && same(i, j)))
                .count() as u64;
            prop_assert_eq!(overlap(table, &s, &features).duplicate_feature_rows, expected);
        }
    }
}
