//! Typed errors: a name that is not one of a setting's names (issue 42.5).
//! (An integration test: the parsers live in `experiment` and `pack`, which `error` must
//! not import.)

use counterlab::experiment::ModelSpec;
use counterlab::pack::TimeKind;
use counterlab::{Error, ErrorKind};

/// The setting's name, the name given and every name the setting takes, as data and in
/// the message; the parsers of a model family and of a time kind give it.
#[test]
fn an_unknown_name_is_typed_and_names_every_spelling() {
    let family = ModelSpec::parse_family("forest").unwrap_err();
    match family.kind() {
        ErrorKind::UnknownName {
            setting,
            found,
            expected,
        } => {
            assert_eq!(*setting, "model");
            assert_eq!(found, "forest");
            assert_eq!(*expected, ["logistic", "gbdt"]);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        family.to_string(),
        r#"unknown model "forest": expected "logistic" or "gbdt""#
    );
    assert!(family.is_data_error());
    let kind = TimeKind::parse("visits").unwrap_err();
    assert!(matches!(
        kind.kind(),
        ErrorKind::UnknownName { setting: "time kind", found, .. } if found == "visits"
    ));
    assert_eq!(
        kind.to_string(),
        r#"unknown time kind "visits": expected "calendar" or "order_within_entity""#
    );
    // Three names or more: commas, then "or".
    let three = Error::unknown_name("colour", "mauve", &["red", "green", "blue"]);
    assert_eq!(
        three.to_string(),
        r#"unknown colour "mauve": expected "red", "green" or "blue""#
    );
    // A hostile name is cut in the message, kept whole in the error.
    let long = "x".repeat(10_000);
    let cut = Error::unknown_name("model", &long, &["logistic", "gbdt"]);
    assert!(cut.to_string().len() < 500, "{}", cut.to_string().len());
    assert!(matches!(cut.kind(), ErrorKind::UnknownName { found, .. } if *found == long));
    assert_eq!(ModelSpec::parse_family("gbdt").unwrap().family(), "gbdt");
    assert_eq!(
        TimeKind::parse("order_within_entity").unwrap(),
        TimeKind::OrderWithinEntity
    );
}
