//! Robustness of the verifier (issue 3, item 10): whatever the bytes, `verify` returns a
//! report without panicking, and an edited payload is SUPPORTS only when the edit left its
//! canonical value unchanged. The same edit kinds as the `verify_structured` fuzz target
//! (`fuzz/`, docs/FUZZING.md), drawn by proptest over the JSON tree of the bundled
//! experiments' payloads.

use std::sync::OnceLock;

use counterlab::canon::{hash_value, HashKind};
use counterlab::json::parse_strict;
use counterlab::verify::{Status, VerifyOptions, BOUNDARY_CHECK_IDS, CHECK_IDS};
use counterlab::{Experiment, Packs, Report, RunOptions, Verdict};
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, RngSeed, TestCaseError};
use serde_json::{Map, Number, Value};

use counterlab_test_support::json_path::{self, get, get_mut, render, Seg};
use counterlab_test_support::noop;

use crate::canon::registered_experiments;

/// A bundled payload and the paths of its JSON tree.
struct Fixture {
    name: String,
    value: Value,
    /// Every node's path in pre-order; the root is the empty path.
    nodes: Vec<Vec<Seg>>,
}

struct World {
    packs: Packs,
    fixtures: Vec<Fixture>,
    /// Every key and string value of the payloads.
    strings: Vec<String>,
}

fn world() -> &'static World {
    static WORLD: OnceLock<World> = OnceLock::new();
    WORLD.get_or_init(|| {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let packs = Packs::discover(root.join("fixtures/packs")).unwrap();
        let mut fixtures = Vec::new();
        let mut strings = Vec::new();
        for (name, path) in registered_experiments() {
            let experiment = Experiment::from_json(&std::fs::read(&path).unwrap()).unwrap();
            let payload = counterlab::run_with(
                packs.get(&experiment.pack).unwrap(),
                &experiment,
                &RunOptions { threads: 2 },
            )
            .unwrap();
            let value: Value = serde_json::from_str(&payload.to_json_pretty().unwrap()).unwrap();
            let nodes = json_path::nodes(&value);
            json_path::strings(&value, &mut strings);
            fixtures.push(Fixture { name, value, nodes });
        }
        strings.sort();
        strings.dedup();
        World {
            packs,
            fixtures,
            strings,
        }
    })
}

fn fast() -> VerifyOptions {
    crate::common::fast_options()
}

/// What every report must satisfy, whatever the input.
fn assert_well_formed(report: &Report, what: &str) {
    let ids: Vec<&str> = report.checks().iter().map(|c| c.id.as_str()).collect();
    assert!(
        ids == CHECK_IDS || ids == BOUNDARY_CHECK_IDS,
        "{what}: {ids:?}"
    );
    for check in report.checks() {
        if check.status != Status::Pass {
            assert!(check.reason.is_some(), "{what}: {} has no reason", check.id);
        }
        assert!(check.counterexamples.len() <= 3, "{what}: {}", check.id);
    }
    let failed = report.checks().iter().any(|c| c.status == Status::Fail);
    assert_eq!(
        matches!(report.verdict(), Verdict::Rejected { .. }),
        failed,
        "{what}: REJECTED iff a check failed"
    );
}

const SENTINEL: &str = "@@counterlab-test-sentinel@@";

/// Raw JSON text a `Value` cannot hold, put in place of a node.
const RAW_TOKENS: &[&str] = &[
    "NaN",
    "Infinity",
    "-Infinity",
    "1e999",
    "-1e999",
    "1e-400",
    "-0",
    "18446744073709551616",
    "-9223372036854775809",
    "123456789012345678901234567890",
    "01",
    ".5",
    "+1",
    "\"\\ud800\"",
    "\"\\u0000\"",
    "tru",
    "[",
    "}",
    "",
    "[1,]",
];

/// Numbers at the edges of the payload's numeric fields.
const NUMBERS: &[f64] = &[
    0.0,
    -0.0,
    1.0,
    0.5,
    0.25,
    0.65,
    0.9999999999999999,
    5e-324,
    1e-300,
    1e300,
    f64::MAX,
    9007199254740992.0,
];

/// One edit at a node.
#[derive(Debug, Clone)]
enum Edit {
    /// Replace the node with a value.
    Replace(Value),
    /// Replace the node with another node's value (`CopyFrom(i)`: node i of the payload).
    CopyFrom(Index),
    /// Step a number one ulp / one unit up or down, or turn 1.0 into 1 and 1 into 1.0.
    Nudge(u8),
    /// Delete the member or element.
    Delete,
    /// Write the member's key twice (the second with this value), or repeat an element.
    Duplicate(Value),
    /// Insert a member (into the node, or beside it).
    Insert(String, Value, Index),
    /// Replace the node with raw text.
    Raw(&'static str),
    /// XOR one byte of the serialised payload.
    ByteFlip(Index, u8),
    /// Cut the serialised payload.
    Truncate(Index),
    /// Nothing at all (the SUPPORTS path).
    Nothing,
}

fn json_value(strings: Vec<String>) -> BoxedStrategy<Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(|f| Number::from_f64(f).map_or(Value::Null, Value::Number)),
        prop::sample::select(NUMBERS).prop_map(Value::from),
        "[a-z_ ]{0,12}".prop_map(Value::String),
        prop::sample::select(strings.clone()).prop_map(Value::String),
    ];
    leaf.prop_recursive(2, 8, 3, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(strings.clone()), inner), 0..3)
                .prop_map(|entries| Value::Object(entries.into_iter().collect::<Map<_, _>>())),
        ]
    })
    .boxed()
}

fn edit() -> impl Strategy<Value = Edit> {
    edit_with(world().strings.clone())
}

fn edit_with(strings: Vec<String>) -> impl Strategy<Value = Edit> {
    let value = json_value(strings.clone());
    prop_oneof![
        4 => value.clone().prop_map(Edit::Replace),
        2 => any::<Index>().prop_map(Edit::CopyFrom),
        2 => any::<u8>().prop_map(Edit::Nudge),
        2 => Just(Edit::Delete),
        1 => value.clone().prop_map(Edit::Duplicate),
        2 => (prop::sample::select(strings), value, any::<Index>())
            .prop_map(|(k, v, i)| Edit::Insert(k, v, i)),
        2 => prop::sample::select(RAW_TOKENS).prop_map(Edit::Raw),
        1 => (any::<Index>(), 1..=255u8).prop_map(|(i, x)| Edit::ByteFlip(i, x)),
        1 => any::<Index>().prop_map(Edit::Truncate),
        1 => Just(Edit::Nothing),
    ]
}

fn nudge(value: &Value, how: u8) -> Value {
    let Value::Number(n) = value else {
        return Value::from(0.5);
    };
    if let Some(i) = n.as_i64() {
        return match how % 3 {
            0 => Value::from(i.wrapping_add(1)),
            1 => Value::from(i.wrapping_sub(1)),
            _ => Value::from(i as f64),
        };
    }
    if n.is_u64() {
        return Value::from(n.as_u64().unwrap() as f64);
    }
    let f = n.as_f64().unwrap();
    let float = |f: f64| Number::from_f64(f).map_or(Value::Null, Value::Number);
    match how % 3 {
        0 => float(f64::from_bits(f.to_bits() + 1)),
        1 => float(f64::from_bits(f.to_bits().wrapping_sub(1))),
        _ if f.fract() == 0.0 && f.abs() < 9.0e18 => Value::from(f as i64),
        _ => float(-f),
    }
}

/// Applies `edit` at `path` of the payload; returns the bytes to verify.
fn apply(fixture: &Fixture, path: &[Seg], edit: &Edit, pretty: bool) -> Vec<u8> {
    let mut value = fixture.value.clone();
    let text = |value: &Value| {
        if pretty {
            serde_json::to_string_pretty(value).unwrap()
        } else {
            serde_json::to_string(value).unwrap()
        }
    };
    let parent = path.split_last();
    match edit {
        Edit::Replace(v) => *get_mut(&mut value, path) = v.clone(),
        Edit::CopyFrom(i) => {
            let source: &Vec<Seg> = i.get(&fixture.nodes);
            *get_mut(&mut value, path) = get(&fixture.value, source).clone();
        }
        Edit::Nudge(how) => {
            let node = get_mut(&mut value, path);
            *node = nudge(node, *how);
        }
        Edit::Delete => match parent {
            None => return Vec::new(),
            Some((last, parent)) => match (get_mut(&mut value, parent), last) {
                (Value::Object(map), Seg::Key(k)) => {
                    map.remove(k);
                }
                (Value::Array(items), Seg::Index(i)) => {
                    items.remove(*i);
                }
                _ => unreachable!(),
            },
        },
        Edit::Duplicate(other) => match parent {
            None => return format!("{0}{0}", text(&value)).into_bytes(),
            Some((last, parent)) => match (get_mut(&mut value, parent), last) {
                (Value::Object(map), Seg::Key(k)) => {
                    map.insert(SENTINEL.to_owned(), other.clone());
                    let key = serde_json::to_string(k).unwrap();
                    return text(&value)
                        .replacen(&format!("\"{SENTINEL}\""), &key, 1)
                        .into_bytes();
                }
                (Value::Array(items), Seg::Index(i)) => {
                    let copy = items[*i].clone();
                    items.insert(*i + 1, copy);
                }
                _ => unreachable!(),
            },
        },
        Edit::Insert(key, v, at) => {
            let target = match get(&value, path) {
                Value::Object(_) | Value::Array(_) => path,
                _ => parent.map_or(&[][..], |(_, p)| p),
            };
            match get_mut(&mut value, target) {
                Value::Object(map) => {
                    map.insert(key.clone(), v.clone());
                }
                Value::Array(items) => {
                    let at = at.index(items.len() + 1);
                    items.insert(at, v.clone());
                }
                _ => unreachable!(),
            }
        }
        Edit::Raw(token) => {
            *get_mut(&mut value, path) = Value::String(SENTINEL.to_owned());
            return text(&value)
                .replacen(&format!("\"{SENTINEL}\""), token, 1)
                .into_bytes();
        }
        Edit::ByteFlip(at, xor) => {
            let mut bytes = text(&value).into_bytes();
            let at = at.index(bytes.len());
            bytes[at] ^= xor;
            return bytes;
        }
        Edit::Truncate(at) => {
            let mut bytes = text(&value).into_bytes();
            bytes.truncate(at.index(bytes.len() + 1));
            return bytes;
        }
        Edit::Nothing => {}
    }
    text(&value).into_bytes()
}

/// 64 cases from a fixed seed: the same edits on every run. `PROPTEST_CASES` and
/// `PROPTEST_RNG_SEED` explore further; no regression files are written into the tree.
fn config() -> Config {
    let mut config = Config::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = 64;
    }
    if std::env::var_os("PROPTEST_RNG_SEED").is_none() {
        config.rng_seed = RngSeed::Fixed(0x0063_6f75_6e74_6572);
    }
    config.failure_persistence = None;
    config
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn edited_payloads_never_panic_and_only_noops_are_supported(
        fixture in any::<Index>(),
        node in any::<Index>(),
        edit in edit(),
        pretty in any::<bool>(),
    ) {
        check_edit(fixture.get(&world().fixtures), node, &edit, pretty)?;
    }
}

/// Verifies `fixture` with `edit` applied at `node`: a well-formed report, and SUPPORTS
/// only when the edit left the canonical value (in normal form) unchanged.
fn check_edit(
    fixture: &Fixture,
    node: Index,
    edit: &Edit,
    pretty: bool,
) -> Result<(), TestCaseError> {
    let path = node.get(&fixture.nodes);
    let what = format!("{} {}: {edit:?}", fixture.name, render(path));
    let bytes = apply(fixture, path, edit, pretty);
    let report = counterlab::verify(&bytes, &world().packs, &fast());
    assert_well_formed(&report, &what);
    if std::env::var_os("COUNTERLAB_ROBUSTNESS_LOG").is_some() {
        eprintln!("{} <- {what}", report.verdict().as_str());
    }
    if matches!(report.verdict(), Verdict::Supports(_)) {
        let value = parse_strict(&bytes)
            .unwrap_or_else(|e| panic!("{what}: SUPPORTS for unparseable bytes: {e:?}"));
        prop_assert!(
            noop::is_noop(&world().packs, &value, &fixture.value),
            "{}: SUPPORTS after an edit that changed its canonical value",
            what
        );
    }
    Ok(())
}

/// The recorded boundary map of class-imbalance (its cells are the quickest to
/// recompute), with the strings of its JSON tree for the edits.
fn map_fixture() -> &'static (Fixture, Vec<String>) {
    static MAP: OnceLock<(Fixture, Vec<String>)> = OnceLock::new();
    MAP.get_or_init(|| {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/packs/class-imbalance/payloads/boundary-map.json");
        let value: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        let nodes = json_path::nodes(&value);
        let mut strings = Vec::new();
        json_path::strings(&value, &mut strings);
        strings.sort();
        strings.dedup();
        let fixture = Fixture {
            name: "class-imbalance/boundary-map".into(),
            value,
            nodes,
        };
        (fixture, strings)
    })
}

/// 24 cases (an edit of the chart is only caught after every cell is recomputed); the
/// same seed and overrides as [`config`].
fn map_config() -> Config {
    let mut config = config();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = 24;
    }
    config
}

proptest! {
    #![proptest_config(map_config())]

    /// The same property for boundary maps: no panic, a well-formed report (the 12 map
    /// checks), and SUPPORTS only when the edit left the map's canonical value unchanged
    /// (in the same normal form as payloads).
    #[test]
    fn edited_boundary_maps_never_panic_and_only_noops_are_supported(
        node in any::<Index>(),
        edit in edit_with(map_fixture().1.clone()),
        pretty in any::<bool>(),
    ) {
        check_edit(&map_fixture().0, node, &edit, pretty)?;
    }
}

fn verify_default(bytes: &[u8]) -> Report {
    let report = counterlab::verify(bytes, &world().packs, &VerifyOptions::default());
    assert_well_formed(&report, "deterministic case");
    report
}

fn status(report: &Report, id: &str) -> Status {
    report.check(id).unwrap().status
}

#[test]
fn empty_input_is_rejected_at_parse() {
    let report = verify_default(b"");
    assert_eq!(report.verdict().as_str(), "REJECTED");
    assert_eq!(status(&report, "payload.parse"), Status::Fail);
    assert_eq!(status(&report, "payload.schema"), Status::Skipped);
}

#[test]
fn deep_nesting_is_rejected_at_parse_without_overflowing_the_stack() {
    for (open, close) in [("[", "]"), ("{\"a\":", "}")] {
        let deep = format!("{}{}", open.repeat(100_000), close.repeat(100_000));
        let report = verify_default(deep.as_bytes());
        assert_eq!(report.verdict().as_str(), "REJECTED", "{open}");
        let check = report.check("payload.parse").unwrap();
        assert_eq!(check.status, Status::Fail);
        assert!(
            check.reason.as_deref().unwrap().contains("recursion limit"),
            "{:?}",
            check.reason
        );
        // Unclosed, too.
        let report = verify_default(open.repeat(100_000).as_bytes());
        assert_eq!(report.verdict().as_str(), "REJECTED", "{open} unclosed");
    }
}

#[test]
fn a_2_mib_payload_is_over_the_default_budget_and_parsed_under_a_larger_one() {
    let fixture = &world().fixtures[0];
    let mut text = serde_json::to_string_pretty(&fixture.value).unwrap();
    text.push_str(&" ".repeat((2 << 20) - text.len()));
    assert_eq!(text.len(), 2 << 20);
    let report = verify_default(text.as_bytes());
    assert_eq!(report.verdict().as_str(), "INCONCLUSIVE");
    assert_eq!(
        status(&report, "budget.payload_bytes"),
        Status::Unverifiable
    );
    assert!(CHECK_IDS[1..]
        .iter()
        .all(|id| status(&report, id) == Status::Skipped));

    // 2 MiB of content (an unknown key holding a long string) under a 4 MiB budget: parsed,
    // then refused by the schema.
    let mut value = fixture.value.clone();
    value["padding"] = Value::String("x".repeat(2 << 20));
    let options = VerifyOptions {
        max_payload_bytes: 4 << 20,
        ..fast()
    };
    let report = counterlab::verify(
        &serde_json::to_vec(&value).unwrap(),
        &world().packs,
        &options,
    );
    assert_well_formed(&report, "2 MiB string");
    assert_eq!(report.verdict().as_str(), "REJECTED");
    assert_eq!(status(&report, "payload.parse"), Status::Pass);
    let schema = report.check("payload.schema").unwrap();
    assert_eq!(schema.status, Status::Fail);
    assert!(
        schema.reason.as_deref().unwrap().contains("padding"),
        "{:?}",
        schema.reason
    );
    for ce in &schema.counterexamples {
        assert!(
            serde_json::to_vec(ce).unwrap().len() <= counterlab::verify::MAX_COUNTEREXAMPLE_BYTES
        );
    }
}

#[test]
fn invalid_utf8_is_rejected_at_parse() {
    let fixture = &world().fixtures[0];
    let text = serde_json::to_string(&fixture.value).unwrap();
    // A lone continuation byte inside the first string, and a truncated 3-byte sequence.
    for bad in [&b"\x80"[..], b"\xe2\x82", b"\xff\xfe"] {
        let at = text.find('"').unwrap() + 1;
        let mut bytes = text.as_bytes()[..at].to_vec();
        bytes.extend_from_slice(bad);
        bytes.extend_from_slice(&text.as_bytes()[at..]);
        let report = verify_default(&bytes);
        assert_eq!(report.verdict().as_str(), "REJECTED", "{bad:?}");
        assert_eq!(status(&report, "payload.parse"), Status::Fail);
    }
    let report = verify_default(b"\xff\xfe\x00{");
    assert_eq!(report.verdict().as_str(), "REJECTED");
}

#[test]
fn a_nan_literal_is_rejected_at_parse_with_its_path() {
    let fixture = world()
        .fixtures
        .iter()
        .find(|f| {
            f.value["results"]
                .as_object()
                .unwrap()
                .values()
                .any(|r| r["metrics"].get("roc_auc").is_some())
        })
        .unwrap();
    let mut value = fixture.value.clone();
    let arm = value["results"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    value["results"][&arm]["metrics"]["roc_auc"] = Value::String(SENTINEL.to_owned());
    for token in ["NaN", "-NaN", "Infinity", "-Infinity", "nan", "1e999"] {
        let text =
            serde_json::to_string(&value)
                .unwrap()
                .replacen(&format!("\"{SENTINEL}\""), token, 1);
        let report = verify_default(text.as_bytes());
        assert_eq!(report.verdict().as_str(), "REJECTED", "{token}");
        let check = report.check("payload.parse").unwrap();
        assert_eq!(check.status, Status::Fail, "{token}");
        assert_eq!(
            check.counterexamples[0].witness["path"],
            format!("$.results.{arm}.metrics.roc_auc"),
            "{token}"
        );
    }
}

/// The edits `normal_form` and `is_equivalent_experiment` forgive, pinned: each still
/// verifies as SUPPORTS although the payload's text changed (whether `1` and `1.0` hash
/// alike is up to `canon`'s number encoding). When a rule starts refusing one of them, this test fails: drop it
/// here and in `normal_form` (`test-support/src/noop.rs`, shared with the fuzz targets).
#[test]
fn known_semantic_noops_still_verify() {
    let world = world();
    let options = fast();
    let fixture = world
        .fixtures
        .iter()
        .find(|f| {
            let bytes = serde_json::to_vec(&f.value).unwrap();
            matches!(
                counterlab::verify(&bytes, &world.packs, &options).verdict(),
                Verdict::Supports(_)
            )
        })
        .expect("a bundled payload verifies as SUPPORTS at K = 19");
    type NamedEdit = (&'static str, fn(&mut Value));
    let edits: [NamedEdit; 1] = [("c as an integer", |v| {
        v["experiment"]["model"]["c"] = Value::from(1)
    })];
    assert_eq!(fixture.value["experiment"]["model"]["c"], Value::from(1.0));
    assert!(fixture.value["experiment"].get("features").is_none());
    for (name, edit) in edits {
        let mut value = fixture.value.clone();
        edit(&mut value);
        let report =
            counterlab::verify(&serde_json::to_vec(&value).unwrap(), &world.packs, &options);
        assert_eq!(
            report.verdict().as_str(),
            "SUPPORTS",
            "{name}: now refused; update normal_form"
        );
        assert_eq!(
            hash_value(HashKind::Payload, &noop::normal_form(&value)),
            hash_value(HashKind::Payload, &noop::normal_form(&fixture.value)),
            "{name}"
        );
    }
    // Forgiven once, refused since verifier/3: another kernel version is an unsupported
    // case, an explicit null where the schema wants a list is malformed.
    type RefusedEdit = (&'static str, fn(&mut Value), &'static str);
    let refused: [RefusedEdit; 2] = [
        (
            "kernel.version",
            |v| v["kernel"]["version"] = Value::from("0.0.0-not-this-one"),
            "INCONCLUSIVE",
        ),
        (
            "explicit null features",
            |v| v["experiment"]["features"] = Value::Null,
            "REJECTED",
        ),
    ];
    for (name, edit, verdict) in refused {
        let mut value = fixture.value.clone();
        edit(&mut value);
        let report =
            counterlab::verify(&serde_json::to_vec(&value).unwrap(), &world.packs, &options);
        assert_eq!(report.verdict().as_str(), verdict, "{name}");
    }
    // An equivalent experiment (finding 5): the first arm's `test_fraction` one ulp lower
    // selects the same rows, so the recorded results are that experiment's too. A
    // fraction that selects other rows is neither equivalent nor supported.
    let fraction = &fixture.value["experiment"]["arms"][0]["split"]["test_fraction"];
    let fraction = fraction
        .as_f64()
        .expect("the first arm has a test fraction");
    for (nudged, equivalent) in [(f64::from_bits(fraction.to_bits() - 1), true), (0.3, false)] {
        let mut value = fixture.value.clone();
        value["experiment"]["arms"][0]["split"]["test_fraction"] = Value::from(nudged);
        let report =
            counterlab::verify(&serde_json::to_vec(&value).unwrap(), &world.packs, &options);
        assert_ne!(
            hash_value(HashKind::Payload, &noop::normal_form(&value)),
            hash_value(HashKind::Payload, &noop::normal_form(&fixture.value))
        );
        assert_eq!(
            noop::is_equivalent_experiment(&world.packs, &value, &fixture.value),
            equivalent,
            "test_fraction {nudged}"
        );
        assert_eq!(
            matches!(report.verdict(), Verdict::Supports(_)),
            equivalent,
            "test_fraction {nudged}: {}",
            report.verdict().as_str()
        );
    }
}

/// fuzz/regressions/unbounded-recompute-over-fuzz-budget.json: 40 arms × 101 identity
/// ablations, far over a budget of 2·10⁶ work units. Before 477479c `budget.work` said so,
/// but `recompute.equal` and `determinism.rerun` still fitted 2 × 4,040 models.
/// Since verifier/3 the schema refuses more than 16 arms (and 32 ablations) outright; cut
/// to those limits (32 distinct drop sets), the payload is still far over this budget, and
/// nothing is fitted.
#[test]
fn an_over_budget_payload_is_not_recomputed() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/regressions/unbounded-recompute-over-fuzz-budget.json");
    let mut value: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let report = counterlab::verify(
        &serde_json::to_vec(&value).unwrap(),
        &world().packs,
        &fast(),
    );
    assert_eq!(status(&report, "payload.schema"), Status::Fail);
    assert_eq!(
        report.check("payload.schema").unwrap().counterexamples[0].witness["path"],
        "$.experiment.ablations"
    );
    value["experiment"]["arms"]
        .as_array_mut()
        .unwrap()
        .truncate(16);
    // 32 ablations, each with its own drop set (since verifier/6 a repeated drop set is
    // refused: the identity, then one feature, then two).
    let features: Vec<String> = world()
        .packs
        .get(value["pack"]["id"].as_str().unwrap())
        .unwrap()
        .manifest()
        .data
        .features
        .clone();
    value["experiment"]["ablations"] =
        counterlab_test_support::rewrite::distinct_drop_sets(&features, 32)
            .iter()
            .enumerate()
            .map(|(i, drop)| serde_json::json!({"name": format!("ab{i}"), "drop": drop}))
            .collect();
    // Re-hash the recorded results, so that only the budget can stand in the way.
    value["result_hash"] = Value::from(hash_value(HashKind::Result, &value["results"]));
    let options = VerifyOptions {
        // A given budget: the pack's own [verify] max_work does not raise it.
        max_work: counterlab::verify::Budget::given(2_000_000),
        threads: 1,
        ..fast()
    };
    let bytes = serde_json::to_vec(&value).unwrap();
    let report = counterlab::verify(&bytes, &world().packs, &options);
    assert_well_formed(&report, "over budget");
    assert_eq!(status(&report, "budget.work"), Status::Unverifiable);
    assert_eq!(status(&report, "recompute.equal"), Status::Skipped);
    assert_eq!(status(&report, "determinism.rerun"), Status::Skipped);
    assert_eq!(
        report.verdict().as_str(),
        "INCONCLUSIVE",
        "{}",
        report.to_json()
    );
}

/// fuzz/regressions/boundary-cell-axes-key-renamed.json (found by `verify_bytes`): a
/// recorded cell whose `axes` names `pervalence` instead of `prevalence`, with two hashes
/// broken (one no longer 64 hex digits), so the map is rejected before recomputation and the chart is derived from the
/// recorded cells. That indexed the cell's axes by the sweep's knob and panicked; now
/// `chart.provenance` fails with the cell as witness.
#[test]
fn a_recorded_cell_without_the_sweeps_knob_is_rejected_not_a_panic() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/regressions/boundary-cell-axes-key-renamed.json");
    let bytes = std::fs::read(path).unwrap();
    // As found, one broken hash is not even 64 hex digits: since verifier/3 the schema
    // refuses it first.
    let report = counterlab::verify(&bytes, &world().packs, &fast());
    assert_eq!(status(&report, "payload.schema"), Status::Fail);
    // With that hash well-formed (and still wrong), the map reaches the chart check.
    let text = String::from_utf8(bytes)
        .unwrap()
        .replace("3078[747db853", "3078747db853");
    let report = counterlab::verify(text.as_bytes(), &world().packs, &fast());
    assert_well_formed(&report, "renamed knob");
    assert_eq!(status(&report, "recompute.equal"), Status::Skipped);
    assert_eq!(status(&report, "chart.provenance"), Status::Fail);
    let check = report
        .checks()
        .iter()
        .find(|c| c.id == "chart.provenance")
        .unwrap();
    assert_eq!(
        check.counterexamples[0].witness["path"],
        Value::from("$.cells[1].axes"),
        "{}",
        report.to_json()
    );
}

/// A payload recorded by kernel 3 (every bundled payload until a `k_fold` arm's `sklearn`
/// assignment was shuffled, docs/DETERMINISM.md) is an unsupported case, never a forgery:
/// INCONCLUSIVE, with `kernel.version` unverifiable naming both versions, whatever the
/// payload claims and even where its results are those kernel 4 computes too.
#[test]
fn a_payload_of_kernel_3_is_inconclusive_never_rejected() {
    let world = world();
    for recorded in counterlab_test_support::bundled::recorded_payloads(&world.packs) {
        let mut value: Value =
            serde_json::from_slice(&std::fs::read(&recorded.path).unwrap()).unwrap();
        assert_eq!(value["kernel"]["version"], counterlab::run::KERNEL_VERSION);
        value["kernel"]["version"] = Value::from("3");
        let report =
            counterlab::verify(&serde_json::to_vec(&value).unwrap(), &world.packs, &fast());
        assert_eq!(
            report.verdict().as_str(),
            "INCONCLUSIVE",
            "{}",
            recorded.file
        );
        let check = report.check("kernel.version").unwrap();
        assert_eq!(check.status, Status::Unverifiable, "{}", recorded.file);
        let why = check.reason.as_deref().unwrap_or_default();
        assert!(
            why.contains(r#"recorded by kernel "3", this verifier computes kernel "4""#),
            "{}: {why}",
            recorded.file
        );
    }
}
