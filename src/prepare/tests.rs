//! The steps' arithmetic on hand-computed examples, and the checks' JSON paths. The
//! scikit-learn and imbalanced-learn goldens are in tests/parity/prepare.rs.

use super::*;

#[test]
fn target_encoding_is_the_smoothed_rate_and_an_unseen_level_gets_the_mean() {
    // Levels 0,0,0,1,1,2 with labels 1,1,0,0,0,1 and m = 1: ȳ = 1/2, so
    // level 0: (2 + 1/2)/(3 + 1) = 5/8, level 1: (0 + 1/2)/(2 + 1) = 1/6,
    // level 2: (1 + 1/2)/(1 + 1) = 3/4, level 3 (no row): 1/2.
    let levels = [0, 0, 0, 1, 1, 2];
    let labels = [true, true, false, false, false, true];
    let rows: Vec<usize> = (0..6).collect();
    let encoding = target_encode::fit(&levels, &labels, &rows, 4, 1.0).unwrap();
    assert_eq!(encoding, vec![5.0 / 8.0, 1.0 / 6.0, 3.0 / 4.0, 0.5]);
    // Fitted on rows 0, 3, 5 only (labels 1, 0, 1; ȳ = 2/3), m = 0: the raw rates.
    let encoding = target_encode::fit(&levels, &labels, &[0, 3, 5], 4, 0.0).unwrap();
    assert_eq!(encoding, vec![1.0, 0.0, 1.0, 2.0 / 3.0]);
}

#[test]
fn the_f_statistic_is_the_one_way_anova_of_the_two_classes() {
    // Groups {1, 2} and {3, 4}: SS_between = 2·1² + 2·1² = 4, SS_within = 4·(1/2)² = 1,
    // F = (4 / 1) / (1 / (4 − 2)) = 8.
    let f = select_k_best::f_statistic(
        &[1.0, 2.0, 3.0, 4.0],
        &[false, false, true, true],
        &[0, 1, 2, 3],
    );
    assert_eq!(f, 8.0);
    // A constant column: 0/0, which ranks lowest.
    let constant =
        select_k_best::f_statistic(&[2.0; 4], &[false, false, true, true], &[0, 1, 2, 3]);
    assert!(constant.is_nan());
}

#[test]
fn selection_keeps_the_largest_scores_ties_to_the_later_column_nan_last() {
    assert_eq!(select_k_best::keep(&[1.0, 5.0, 3.0, 5.0], 1), vec![3]);
    assert_eq!(select_k_best::keep(&[1.0, 5.0, 3.0, 5.0], 2), vec![1, 3]);
    assert_eq!(select_k_best::keep(&[f64::NAN, -1.0, 0.5], 2), vec![1, 2]);
    assert_eq!(select_k_best::keep(&[2.0, 1.0], 5), vec![0, 1]);
}

#[test]
fn imputation_statistics_follow_simple_imputer() {
    let nan = f64::NAN;
    let values = [3.0, nan, 1.0, 2.0, 2.0, nan, 1.0, 7.0];
    let all: Vec<usize> = (0..values.len()).collect();
    assert_eq!(
        impute::fit(&values, &all, ImputeStrategy::Mean),
        Some(16.0 / 6.0)
    );
    // Present values 1, 1, 2, 2, 3, 7: the median is (2 + 2)/2; 1 and 2 tie as most
    // frequent and the smaller wins.
    assert_eq!(
        impute::fit(&values, &all, ImputeStrategy::Median),
        Some(2.0)
    );
    assert_eq!(
        impute::fit(&values, &all, ImputeStrategy::MostFrequent),
        Some(1.0)
    );
    assert_eq!(
        impute::fit(&values, &[0, 2, 3], ImputeStrategy::Median),
        Some(2.0)
    );
    assert_eq!(impute::fit(&values, &[1, 5], ImputeStrategy::Mean), None);
    let mut column = values.to_vec();
    impute::apply(&mut column, 9.0);
    assert_eq!(column, vec![3.0, 9.0, 1.0, 2.0, 2.0, 9.0, 1.0, 7.0]);
}

#[test]
fn a_random_copy_is_a_minority_row_and_smote_stays_on_the_segment() {
    let mut rng = crate::split::numpy_random::RandomState::new(3);
    let copies = oversample::random(&[4, 9, 11], 50, &mut rng);
    assert!(copies
        .parents
        .iter()
        .all(|p| p[0] == p[1] && [4, 9, 11].contains(&p[0])));
    // Three minority rows on a line at x = 0, 1, 10 (and y = 0): with k = 1 each row's
    // neighbour is its nearest, so a new point lies between 0 and 1 or between 1 and 10,
    // on the segment from its first parent to its second.
    let columns = vec![vec![0.0, 1.0, 10.0], vec![0.0, 0.0, 0.0]];
    let made = oversample::smote(&columns, &[0, 1, 2], 40, 1, &mut rng).unwrap();
    for (i, [row, neighbour]) in made.parents.iter().enumerate() {
        let expected_neighbour = match row {
            0 => 1,
            1 => 0,
            _ => 1,
        };
        assert_eq!(*neighbour, expected_neighbour);
        let (a, b) = (columns[0][*row], columns[0][*neighbour]);
        let x = made.values[0][i];
        assert!(a.min(b) <= x && x <= a.max(b), "{x} outside [{a}, {b}]");
        assert_eq!(made.values[1][i], 0.0);
    }
    // k must be below the minority's size, as scikit-learn's neighbour search requires.
    assert!(oversample::smote(&columns, &[0, 1, 2], 5, 3, &mut rng).is_none());
}

fn paths_of(steps: serde_json::Value) -> Result<()> {
    let steps: Vec<Step> = serde_json::from_value(steps).expect("steps parse");
    check_steps(&steps, &JsonPath::field("arms").index(0).key("prepare"))
}

#[test]
fn checks_name_the_json_path_of_the_step() {
    let error = paths_of(serde_json::json!([
        {"step": "select_k_best", "k": 3},
        {"step": "target_encode", "column": "site", "smooth": 1.0}
    ]))
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("$.arms[0].prepare[1].step") && error.contains("before select_k_best"),
        "{error}"
    );
    let error =
        paths_of(serde_json::json!([{"step": "oversample", "method": "random", "k_neighbors": 3}]))
            .unwrap_err()
            .to_string();
    assert!(
        error.contains("$.arms[0].prepare[0].k_neighbors"),
        "{error}"
    );
    let error = paths_of(serde_json::json!([{"step": "select_k_best", "k": 0}]))
        .unwrap_err()
        .to_string();
    assert!(error.contains("$.arms[0].prepare[0].k"), "{error}");
    let error =
        paths_of(serde_json::json!([{"step": "target_encode", "column": "a", "smooth": -1.0}]))
            .unwrap_err()
            .to_string();
    assert!(error.contains("$.arms[0].prepare[0].smooth"), "{error}");
    assert!(paths_of(serde_json::json!([
        {"step": "impute", "strategy": "median"},
        {"step": "target_encode", "column": "site", "smooth": 0.0, "fit_on": "all_rows"},
        {"step": "standardize"},
        {"step": "oversample", "method": "smote"}
    ]))
    .is_ok());
    // Unknown keys and steps are refused by the parser.
    assert!(
        serde_json::from_value::<Step>(serde_json::json!({"step": "standardize", "k": 1})).is_err()
    );
    assert!(serde_json::from_value::<Step>(serde_json::json!({"step": "pca"})).is_err());
}

#[test]
fn the_normal_form_writes_every_default() {
    let left_out: Vec<Step> = serde_json::from_value(serde_json::json!([
        {"step": "standardize"}, {"step": "oversample", "method": "smote"}
    ]))
    .unwrap();
    let spelled: Vec<Step> = serde_json::from_value(serde_json::json!([
        {"step": "standardize", "fit_on": "training_rows"},
        {"step": "oversample", "method": "smote", "k_neighbors": 5, "fit_on": "training_rows"}
    ]))
    .unwrap();
    assert_eq!(normal_form(&left_out), normal_form(&spelled));
    let other: Vec<Step> = serde_json::from_value(serde_json::json!([
        {"step": "standardize", "fit_on": "all_rows"}, {"step": "oversample", "method": "smote"}
    ]))
    .unwrap();
    assert_ne!(normal_form(&left_out), normal_form(&other));
}
