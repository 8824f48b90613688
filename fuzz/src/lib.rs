//! Shared machinery of counterlab's fuzz targets: the bundled packs and one valid
//! payload per bundled experiment (built once per process), the verifier options the
//! targets use, and structured JSON edits of a payload driven by fuzzer bytes.
//!
//! An edit is: pick a payload, pick a node of its JSON tree (pre-order), apply one of
//! [`EditOp`], serialise (pretty or compact). Text-level edits (a duplicated key, a raw
//! token such as `NaN` or `1e999`, a byte flip, a truncation) are made on the serialised
//! text, since a `serde_json::Value` cannot hold them.

use std::sync::OnceLock;

use arbitrary::{Arbitrary, Result, Unstructured};
use counterlab::canon::{self, HashKind};
use counterlab::verify::{Budget, Status, VerifyOptions, BOUNDARY_CHECK_IDS, CHECK_IDS};
use counterlab::{Experiment, Packs, Report, RunOptions, Verdict};
use counterlab_test_support::json_path::{self, get, get_mut};
pub use counterlab_test_support::json_path::{render as render_path, Seg};
pub use counterlab_test_support::noop::{is_equivalent_experiment, normal_form};
use counterlab_test_support::{bundled, noop};
use serde_json::{Map, Number, Value};

/// One bundled payload and what the edits need to know about it.
pub struct Fixture {
    /// `pack/experiment`.
    pub name: String,
    /// The payload as a JSON value.
    pub value: Value,
    /// The payload as `counterlab run` writes it (pretty JSON).
    pub bytes: Vec<u8>,
    /// Canonical payload hash of `value`.
    pub hash: String,
    /// Every node's path, in pre-order (the root is the empty path).
    pub nodes: Vec<Vec<Seg>>,
}

/// Packs, payloads and a dictionary of the strings that occur in them.
pub struct World {
    /// The bundled packs.
    pub packs: Packs,
    /// One valid payload per bundled experiment, sorted by name.
    pub fixtures: Vec<Fixture>,
    /// Every key and string value of every payload (sorted, deduplicated).
    pub strings: Vec<String>,
}

/// The bundled packs folder (absolute).
pub fn packs_dir() -> std::path::PathBuf {
    bundled::packs_dir()
}

/// Loaded on first use, then shared by every execution.
pub fn world() -> &'static World {
    static WORLD: OnceLock<World> = OnceLock::new();
    WORLD.get_or_init(load_world)
}

fn load_world() -> World {
    let dir = packs_dir();
    let packs = Packs::discover(&dir).expect("bundled packs load");
    let experiments: Vec<std::path::PathBuf> = bundled::experiment_files()
        .into_iter()
        .map(|(_, path)| path)
        .collect();
    let mut fixtures = Vec::new();
    for path in experiments {
        let experiment =
            Experiment::from_json(&std::fs::read(&path).expect("readable")).expect("valid");
        let pack = packs
            .get(&experiment.pack)
            .expect("pack of a bundled experiment");
        let payload = counterlab::run_with(pack, &experiment, &RunOptions { threads: 1 })
            .expect("bundled experiments run");
        let text = payload.to_json_pretty().expect("payload encodes");
        let value: Value = serde_json::from_str(&text).expect("payload parses");
        let nodes = json_path::nodes(&value);
        let name = format!(
            "{}/{}",
            experiment.pack,
            path.file_stem().unwrap().to_string_lossy()
        );
        fixtures.push(Fixture {
            name,
            hash: canon::hash_value(HashKind::Payload, &value),
            bytes: text.into_bytes(),
            value,
            nodes,
        });
    }
    assert!(!fixtures.is_empty(), "no bundled experiments found");
    let mut strings = Vec::new();
    for f in &fixtures {
        json_path::strings(&f.value, &mut strings);
    }
    strings.sort();
    strings.dedup();
    World {
        packs,
        fixtures,
        strings,
    }
}

/// Small K, one row-order shuffle, one thread, and a work budget of 4× what the most
/// expensive bundled payload needs (see [`calibrate_max_work`]): a full verification stays
/// small, and an input that asks for much more work is cut off by `budget.work`.
pub fn options() -> &'static VerifyOptions {
    static OPTIONS: OnceLock<VerifyOptions> = OnceLock::new();
    OPTIONS.get_or_init(|| {
        let mut options = VerifyOptions {
            permutations: 19,
            row_order_shuffles: 1,
            threads: 1,
            ..VerifyOptions::default()
        };
        // Raisable, as the default it replaces: the packs whose registered experiments
        // need more (their `[verify] max_work`) still raise it.
        options.max_work =
            Budget::raisable(calibrate_max_work(world(), &options).saturating_mul(4));
        options
    })
}

/// The smallest `max_work` under which every bundled payload passes `budget.work`, found
/// by bisection on the verifier's own check (so it follows whatever unit `work_units`
/// counts in). Each probe renames `$.experiment.pack`, which no work estimate reads, so
/// `experiment.valid` fails right after the budget checks and no model is fitted.
pub fn calibrate_max_work(world: &World, options: &VerifyOptions) -> u64 {
    let mut needed = 0;
    for fixture in &world.fixtures {
        let mut probe = fixture.value.clone();
        probe["experiment"]["pack"] = Value::from("counterlab-fuzz-probe");
        let bytes = serde_json::to_vec(&probe).expect("a Value serialises");
        let passes = |max_work: u64| {
            let o = VerifyOptions {
                max_work: Budget::raisable(max_work),
                ..options.clone()
            };
            let report = counterlab::verify(&bytes, &world.packs, &o);
            assert_eq!(
                report.check("experiment.valid").map(|c| c.status),
                Some(Status::Fail),
                "the budget probe of {} must stop at experiment.valid",
                fixture.name
            );
            report.check("budget.work").map(|c| c.status) == Some(Status::Pass)
        };
        let (mut lo, mut hi) = (0u64, u64::MAX);
        assert!(passes(hi), "{} is over any work budget", fixture.name);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if passes(mid) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        needed = needed.max(hi);
    }
    needed
}

/// Numbers worth trying: boundaries of every numeric field of a payload.
pub const NUMBERS: &[f64] = &[
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    0.25,
    0.75,
    0.1,
    0.65,
    0.01,
    0.9999999999999999,
    1.0000000000000002,
    1e-300,
    5e-324,
    f64::MIN_POSITIVE,
    1e300,
    f64::MAX,
    f64::MIN,
    9007199254740992.0,
    18446744073709551615.0,
];

/// Integers worth trying.
pub const INTEGERS: &[i128] = &[
    0,
    1,
    -1,
    2,
    3,
    7,
    19,
    199,
    u32::MAX as i128,
    (1 << 53) + 1,
    i64::MAX as i128,
    i64::MIN as i128,
    u64::MAX as i128,
];

/// Raw JSON text injected in place of a value: tokens a `Value` cannot hold, and broken
/// or deeply nested text.
pub const RAW_TOKENS: &[&str] = &[
    "NaN",
    "-NaN",
    "Infinity",
    "-Infinity",
    "inf",
    "1e999",
    "-1e999",
    "1e400",
    "1e-400",
    "-0",
    "-0.0",
    "0e0",
    "1E+2",
    "1.0e-400",
    "18446744073709551616",
    "-9223372036854775809",
    "123456789012345678901234567890",
    "0.1000000000000000055511151231257827",
    "00",
    "01",
    ".5",
    "1.",
    "+1",
    "\"\\ud800\"",
    "\"\\udc00\\ud800\"",
    "\"\\u0000\"",
    "\"\\x\"",
    "\"\u{7f}\u{fffd}\"",
    "tru",
    "nul",
    "[",
    "{",
    "]",
    "}",
    "",
    "[]",
    "{}",
    "\"",
    "1 2",
    "[1,]",
    "{\"a\":1,}",
    "/* c */ 1",
];

const RAW_SENTINEL: &str = "@@counterlab-fuzz-raw@@";
const DUP_SENTINEL: &str = "@@counterlab-fuzz-dup@@";

/// A numeric nudge of a number node.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum Nudge {
    /// Next float up.
    UlpUp,
    /// Next float down.
    UlpDown,
    /// 1 → 1.0.
    IntToFloat,
    /// 1.0 → 1 (when integral).
    FloatToInt,
    /// x → −x.
    Negate,
    /// x → 2x.
    Double,
    /// x → x/2.
    Half,
    /// x → x + 1.
    AddOne,
    /// x → x − 1.
    SubOne,
    /// x → x·(1 + 1e-9).
    Relative,
    /// x → x rounded to 6 decimals.
    Round6,
}

/// What to do at the chosen node.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum EditOp {
    /// Replace with an arbitrary JSON value.
    Replace,
    /// Replace with a number.
    ReplaceNumber,
    /// Replace with a string (often one that occurs in the payloads).
    ReplaceString,
    /// Nudge a number (anything else: replace with a number).
    Nudge(Nudge),
    /// Replace with the value of another node of the same payload.
    CopyFrom(u16),
    /// Delete the member or element.
    Delete,
    /// Write the member's key twice (same or another value); duplicate an element.
    Duplicate(bool),
    /// Insert a member (into the node, or beside it).
    Insert,
    /// Replace with raw text (see [`RAW_TOKENS`]).
    Raw(u8),
    /// Replace with deeply nested brackets.
    Deep(u16),
    /// XOR one byte of the serialised payload.
    ByteFlip(u32, u8),
    /// Cut the serialised payload.
    Truncate(u32),
    /// Leave it alone (the SUPPORTS path must still hold).
    Nothing,
}

/// One edited payload.
pub struct Edited {
    /// Index into [`World::fixtures`].
    pub fixture: usize,
    /// A human description (`$.path: op`).
    pub description: String,
    /// The bytes handed to the verifier.
    pub bytes: Vec<u8>,
}

fn arb_string(u: &mut Unstructured, world: &World) -> Result<String> {
    Ok(match u.int_in_range(0..=3)? {
        0 | 1 => u.choose(&world.strings)?.clone(),
        2 => {
            let mut s = u.choose(&world.strings)?.clone();
            match u.int_in_range(0..=4)? {
                0 => s.push(' '),
                1 => s = s.to_uppercase(),
                2 => {
                    s.pop();
                }
                3 => s.insert(0, '\u{feff}'),
                _ => s.push_str(&String::arbitrary(u)?),
            }
            s
        }
        _ => String::arbitrary(u)?,
    })
}

fn arb_number(u: &mut Unstructured) -> Result<Value> {
    Ok(match u.int_in_range(0..=4)? {
        0 => Number::from_f64(*u.choose(NUMBERS)?).map_or(Value::Null, Value::Number),
        1 => int_value(*u.choose(INTEGERS)?),
        2 => Value::from(i64::arbitrary(u)?),
        3 => {
            Number::from_f64(f64::from_bits(u64::arbitrary(u)?)).map_or(Value::Null, Value::Number)
        }
        _ => Number::from_f64(f64::from(u.int_in_range(0..=1000)?) / 1000.0)
            .map_or(Value::Null, Value::Number),
    })
}

fn int_value(i: i128) -> Value {
    if let Ok(i) = i64::try_from(i) {
        Value::from(i)
    } else if let Ok(u) = u64::try_from(i) {
        Value::from(u)
    } else {
        Value::Null
    }
}

fn arb_value(u: &mut Unstructured, world: &World, depth: u32) -> Result<Value> {
    let top = if depth == 0 { 4 } else { 6 };
    Ok(match u.int_in_range(0..=top)? {
        0 => Value::Null,
        1 => Value::Bool(bool::arbitrary(u)?),
        2 => arb_number(u)?,
        3 | 4 => Value::String(arb_string(u, world)?),
        5 => {
            let n = u.int_in_range(0..=3)?;
            let mut items = Vec::new();
            for _ in 0..n {
                items.push(arb_value(u, world, depth - 1)?);
            }
            Value::Array(items)
        }
        _ => {
            let n = u.int_in_range(0..=3)?;
            let mut map = Map::new();
            for _ in 0..n {
                map.insert(arb_string(u, world)?, arb_value(u, world, depth - 1)?);
            }
            Value::Object(map)
        }
    })
}

fn nudge(value: &Value, how: Nudge) -> Value {
    let Value::Number(n) = value else {
        return Value::from(0.5);
    };
    let float = |f: f64| Number::from_f64(f).map_or(Value::Null, Value::Number);
    if let (Some(i), Nudge::IntToFloat) = (n.as_i64(), how) {
        return float(i as f64);
    }
    if let (Some(u), Nudge::IntToFloat) = (n.as_u64(), how) {
        return float(u as f64);
    }
    if n.is_i64() || n.is_u64() {
        let i = n
            .as_i64()
            .map_or_else(|| n.as_u64().unwrap() as i128, i128::from);
        return match how {
            Nudge::Negate => int_value(-i),
            Nudge::Double => int_value(i * 2),
            Nudge::Half => int_value(i / 2),
            Nudge::AddOne | Nudge::UlpUp => int_value(i + 1),
            Nudge::SubOne | Nudge::UlpDown => int_value(i - 1),
            _ => value.clone(),
        };
    }
    let f = n.as_f64().unwrap();
    match how {
        Nudge::UlpUp => float(f64::from_bits(f.to_bits().wrapping_add(1))),
        Nudge::UlpDown => float(f64::from_bits(f.to_bits().wrapping_sub(1))),
        Nudge::IntToFloat => value.clone(),
        Nudge::FloatToInt => {
            if f.fract() == 0.0 && f.abs() < 9.2e18 {
                Value::from(f as i64)
            } else {
                value.clone()
            }
        }
        Nudge::Negate => float(-f),
        Nudge::Double => float(f * 2.0),
        Nudge::Half => float(f / 2.0),
        Nudge::AddOne => float(f + 1.0),
        Nudge::SubOne => float(f - 1.0),
        Nudge::Relative => float(f * (1.0 + 1e-9)),
        Nudge::Round6 => float((f * 1e6).round() / 1e6),
    }
}

fn serialise(value: &Value, pretty: bool) -> String {
    if pretty {
        serde_json::to_string_pretty(value).expect("a Value serialises")
    } else {
        serde_json::to_string(value).expect("a Value serialises")
    }
}

/// Builds one edited payload from fuzzer bytes.
pub fn build(u: &mut Unstructured, world: &World) -> Result<Edited> {
    let fixture_index = u.choose_index(world.fixtures.len())?;
    let fixture = &world.fixtures[fixture_index];
    let path = u.choose(&fixture.nodes)?.clone();
    let op = EditOp::arbitrary(u)?;
    let pretty = bool::arbitrary(u)?;
    let mut value = fixture.value.clone();
    let description = format!("{} {}: {op:?}", fixture.name, render_path(&path));
    let parent_path = path
        .split_last()
        .map(|(last, parent)| (last.clone(), parent));

    let text: String = match op {
        EditOp::Replace => {
            *get_mut(&mut value, &path) = arb_value(u, world, 2)?;
            serialise(&value, pretty)
        }
        EditOp::ReplaceNumber => {
            *get_mut(&mut value, &path) = arb_number(u)?;
            serialise(&value, pretty)
        }
        EditOp::ReplaceString => {
            *get_mut(&mut value, &path) = Value::String(arb_string(u, world)?);
            serialise(&value, pretty)
        }
        EditOp::Nudge(how) => {
            let node = get_mut(&mut value, &path);
            *node = nudge(node, how);
            serialise(&value, pretty)
        }
        EditOp::CopyFrom(i) => {
            let source = &fixture.nodes[usize::from(i) % fixture.nodes.len()];
            *get_mut(&mut value, &path) = get(&fixture.value, source).clone();
            serialise(&value, pretty)
        }
        EditOp::Delete => match parent_path {
            None => String::new(),
            Some((last, parent)) => {
                match (get_mut(&mut value, parent), last) {
                    (Value::Object(map), Seg::Key(k)) => {
                        map.remove(&k);
                    }
                    (Value::Array(items), Seg::Index(i)) => {
                        items.remove(i);
                    }
                    _ => unreachable!("paths follow the tree"),
                }
                serialise(&value, pretty)
            }
        },
        EditOp::Duplicate(same) => match parent_path {
            None => {
                let once = serialise(&value, pretty);
                format!("{once}{once}")
            }
            Some((last, parent)) => {
                let other = if same {
                    get(&value, &path).clone()
                } else {
                    arb_value(u, world, 1)?
                };
                match (get_mut(&mut value, parent), last) {
                    (Value::Object(map), Seg::Key(k)) => {
                        map.insert(DUP_SENTINEL.to_owned(), other);
                        let key = serde_json::to_string(&k).expect("a string serialises");
                        serialise(&value, pretty).replacen(&format!("\"{DUP_SENTINEL}\""), &key, 1)
                    }
                    (Value::Array(items), Seg::Index(i)) => {
                        items.insert(i + 1, other);
                        serialise(&value, pretty)
                    }
                    _ => unreachable!("paths follow the tree"),
                }
            }
        },
        EditOp::Insert => {
            let key = arb_string(u, world)?;
            let new = arb_value(u, world, 1)?;
            let at = usize::from(u16::arbitrary(u)?);
            let target = match get(&value, &path) {
                Value::Object(_) | Value::Array(_) => path.clone(),
                _ => parent_path.map_or_else(Vec::new, |(_, p)| p.to_vec()),
            };
            match get_mut(&mut value, &target) {
                Value::Object(map) => {
                    map.insert(key, new);
                }
                Value::Array(items) => {
                    let at = at % (items.len() + 1);
                    items.insert(at, new);
                }
                _ => unreachable!("the root is an object"),
            }
            serialise(&value, pretty)
        }
        EditOp::Raw(i) => {
            let token = RAW_TOKENS[usize::from(i) % RAW_TOKENS.len()];
            *get_mut(&mut value, &path) = Value::String(RAW_SENTINEL.to_owned());
            serialise(&value, pretty).replacen(&format!("\"{RAW_SENTINEL}\""), token, 1)
        }
        EditOp::Deep(n) => {
            let n = usize::from(n) + 100;
            let (open, close) = if n % 2 == 0 {
                ("[", "]")
            } else {
                ("{\"a\":", "}")
            };
            let token = format!("{}1{}", open.repeat(n), close.repeat(n));
            *get_mut(&mut value, &path) = Value::String(RAW_SENTINEL.to_owned());
            serialise(&value, pretty).replacen(&format!("\"{RAW_SENTINEL}\""), &token, 1)
        }
        EditOp::ByteFlip(at, xor) => {
            let mut bytes = serialise(&value, pretty).into_bytes();
            let at = at as usize % bytes.len();
            bytes[at] ^= xor;
            // Possibly invalid UTF-8: return the bytes directly.
            return Ok(Edited {
                fixture: fixture_index,
                description: format!("{} byte {at} ^= {xor:#04x}", fixture.name),
                bytes,
            });
        }
        EditOp::Truncate(at) => {
            let mut bytes = serialise(&value, pretty).into_bytes();
            let at = at as usize % (bytes.len() + 1);
            bytes.truncate(at);
            return Ok(Edited {
                fixture: fixture_index,
                description: format!("{} truncated to {at} bytes", fixture.name),
                bytes,
            });
        }
        EditOp::Nothing => serialise(&value, pretty),
    };
    Ok(Edited {
        fixture: fixture_index,
        description,
        bytes: text.into_bytes(),
    })
}

/// What every report must satisfy, whatever the input.
pub fn check_report_shape(report: &Report) {
    let ids: Vec<&str> = report.checks().iter().map(|c| c.id.as_str()).collect();
    assert!(
        ids == CHECK_IDS || ids == BOUNDARY_CHECK_IDS,
        "every check, in order: {ids:?}"
    );
    for check in report.checks() {
        if check.status != Status::Pass {
            assert!(check.reason.is_some(), "{} has no reason", check.id);
        }
        assert!(check.counterexamples.len() <= 3, "{}", check.id);
    }
    let failed = report.checks().iter().any(|c| c.status == Status::Fail);
    assert_eq!(
        matches!(report.verdict(), Verdict::Rejected { .. }),
        failed,
        "REJECTED iff a check failed"
    );
    let json = report.to_json();
    assert_eq!(json["verdict"], report.verdict().as_str());
}

/// SUPPORTS only for a no-op edit: the edited bytes' canonical value (in [`normal_form`])
/// must be the original payload's, or the edit an equivalent experiment
/// ([`is_equivalent_experiment`]).
pub fn check_only_noop_supports(world: &World, edited: &Edited, report: &Report) {
    if !matches!(report.verdict(), Verdict::Supports(_)) {
        return;
    }
    let fixture = &world.fixtures[edited.fixture];
    let value = counterlab::json::parse_strict(&edited.bytes).unwrap_or_else(|e| {
        panic!(
            "SUPPORTS for unparseable bytes ({}): {e:?}",
            edited.description
        )
    });
    assert!(
        noop::is_noop(&world.packs, &value, &fixture.value),
        "SUPPORTS for a payload that is neither the original nor an equivalent experiment ({})",
        edited.description
    );
    assert_eq!(
        report.payload_hash(),
        canon::hash_value(HashKind::Payload, &value)
    );
}

/// A pack made of fuzzer bytes: a manifest (a fixed valid one, or the fuzzer's text) and
/// a fixture; with `pin_hash`, the manifest's `blake3 = …` line is set to the fixture's
/// real hash, so that the CSV reader is reached.
#[derive(Debug, Arbitrary)]
pub struct PackInput {
    /// Use the fuzzer's text as pack.toml instead of the fixed manifest.
    pub own_manifest: bool,
    /// Set `blake3` to the fixture's hash.
    pub pin_hash: bool,
    /// The fixed manifest names a time column.
    pub with_time: bool,
    /// The manifest text, when `own_manifest`.
    pub manifest: String,
    /// The fixture's bytes.
    pub fixture: Vec<u8>,
}

/// The load limits of the `load_pack` target: small, so that every budget is reached.
pub const FUZZ_LOAD_LIMITS: counterlab::pack::LoadLimits = counterlab::pack::LoadLimits {
    max_bytes: 1 << 16,
    max_columns: 64,
    max_rows: 512,
};

/// Loads a [`PackInput`]; panics on anything the loader must never do.
pub fn check_pack_load(input: &PackInput) {
    let hash = counterlab::canon::file_hash(&input.fixture);
    let manifest = if input.own_manifest {
        input.manifest.clone()
    } else {
        format!(
            "id = \"fuzz\"\ntitle = \"t\"\nconcept = \"c\"\n[data]\nfile = \"data.csv\"\nblake3 = \"{}\"\nentity = \"e\"\nlabel = \"y\"\npositive = \"1\"\nfeatures = [\"x1\", \"x2\"]\n{}",
            "0".repeat(64),
            if input.with_time { "time = \"t\"\n" } else { "" }
        )
    };
    let manifest = if input.pin_hash {
        manifest
            .lines()
            .map(|line| {
                if line.trim_start().starts_with("blake3") {
                    format!("blake3 = \"{hash}\"")
                } else {
                    line.to_owned()
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    } else {
        manifest
    };
    let limits = FUZZ_LOAD_LIMITS;
    let Ok(pack) = counterlab::Pack::from_parts("fuzz-pack", &manifest, &input.fixture, &limits)
    else {
        return;
    };
    let table = pack.table();
    assert!(table.n_rows() >= 1 && table.n_rows() <= limits.max_rows);
    assert!(table.n_columns() <= limits.max_columns);
    assert!(pack.fixture_bytes() <= limits.max_bytes);
    assert_eq!(
        &table.reloaded_in_shuffled_order(7),
        table,
        "a reordered table is not canonical"
    );
}
