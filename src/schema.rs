//! The published JSON Schemas (`docs/*.schema.json`), enforced: the verifier accepts a
//! payload or boundary map only if it matches its schema, so what it parses is exactly
//! what the documentation says, no more (serde would also read an object written as an
//! array, or `null` for an omitted key).
//!
//! The validator covers the subset of JSON Schema (draft 2020-12) the schemas use: `type`,
//! `enum`, `const`, `properties`, `required`, `additionalProperties`, `minProperties`,
//! `items`, `minItems`, `maxItems`, `uniqueItems`, `minLength`, `maxLength`, `pattern`
//! (anchored, character classes and quantifiers only), `minimum`, `maximum`,
//! `exclusiveMinimum`, `exclusiveMaximum`, `oneOf` and `$ref` to `#/$defs/…`. A schema
//! using any other keyword is refused when it is loaded, so a schema can never rely on
//! something this validator ignores.
//!
//! One deliberate strictness: `"integer"` means a JSON number written without a fraction
//! or exponent (`3`, not `3.0`): counts are integers in the kernel's output.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::json_path::{JsonPath, Seg};

/// Keywords that only annotate (never constrain).
const ANNOTATIONS: &[&str] = &[
    "$schema",
    "$id",
    "$comment",
    "title",
    "description",
    "$defs",
];

/// Keywords the validator enforces.
const ASSERTIONS: &[&str] = &[
    "$ref",
    "type",
    "enum",
    "const",
    "properties",
    "required",
    "additionalProperties",
    "minProperties",
    "items",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "oneOf",
];

/// At most this many violations are collected for one document.
pub const MAX_VIOLATIONS: usize = 16;

/// Where an instance breaks its schema, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// JSON path of the offending value, e.g. `$.experiment.model.c`.
    pub path: JsonPath,
    /// What is wrong there.
    pub message: String,
}

impl Violation {
    /// A violation at `path`.
    pub fn new(path: JsonPath, message: impl Into<String>) -> Violation {
        Violation {
            path,
            message: message.into(),
        }
    }

    fn at(path: Loc<'_>, message: String) -> Violation {
        Violation {
            path: path.to_path(),
            message,
        }
    }
}

/// Where the checker stands in the instance: a path kept as borrowed steps on the stack, made
/// into a [`JsonPath`] only when a violation is reported (a valid document, the common case,
/// builds none: a path per node was most of a payload's check).
#[derive(Clone, Copy)]
enum Loc<'a> {
    Root,
    Key(&'a Loc<'a>, &'a str),
    Index(&'a Loc<'a>, usize),
}

impl<'a> Loc<'a> {
    fn key(&'a self, key: &'a str) -> Loc<'a> {
        Loc::Key(self, key)
    }

    fn index(&'a self, index: usize) -> Loc<'a> {
        Loc::Index(self, index)
    }

    fn depth(self) -> usize {
        match self {
            Loc::Root => 0,
            Loc::Key(parent, _) | Loc::Index(parent, _) => parent.depth() + 1,
        }
    }

    fn to_path(self) -> JsonPath {
        match self {
            Loc::Root => JsonPath::root(),
            Loc::Key(parent, key) => {
                let mut path = parent.to_path();
                path.push(Seg::Key(key.to_owned()));
                path
            }
            Loc::Index(parent, index) => {
                let mut path = parent.to_path();
                path.push(Seg::Index(index));
                path
            }
        }
    }
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// A loaded, audited schema document.
#[derive(Debug)]
pub struct Schema {
    root: Value,
    name: String,
    patterns: BTreeMap<String, Pattern>,
}

static PAYLOAD: OnceLock<Schema> = OnceLock::new();
static BOUNDARY: OnceLock<Schema> = OnceLock::new();
static REPORT: OnceLock<Schema> = OnceLock::new();
static PREDICTION: OnceLock<Schema> = OnceLock::new();

fn embedded(cell: &'static OnceLock<Schema>, name: &str, text: &str) -> &'static Schema {
    cell.get_or_init(|| {
        Schema::from_json(name, text)
            .unwrap_or_else(|e| panic!("the embedded {name} is not a valid schema: {e}"))
    })
}

impl Schema {
    /// `docs/payload.schema.json` (`counterlab.payload/1`; its `$defs/experiment` is the
    /// Experiment IR).
    pub fn payload() -> &'static Schema {
        embedded(
            &PAYLOAD,
            "payload.schema.json",
            include_str!("../docs/payload.schema.json"),
        )
    }

    /// `docs/boundary.schema.json` (`counterlab.boundary/1`).
    pub fn boundary() -> &'static Schema {
        embedded(
            &BOUNDARY,
            "boundary.schema.json",
            include_str!("../docs/boundary.schema.json"),
        )
    }

    /// `docs/report.schema.json` (`counterlab.report/1`).
    pub fn report() -> &'static Schema {
        embedded(
            &REPORT,
            "report.schema.json",
            include_str!("../docs/report.schema.json"),
        )
    }

    /// `docs/prediction.schema.json` (`counterlab.prediction/1`).
    pub fn prediction() -> &'static Schema {
        embedded(
            &PREDICTION,
            "prediction.schema.json",
            include_str!("../docs/prediction.schema.json"),
        )
    }

    /// Parses and audits a schema document: every keyword must be one the validator
    /// enforces or an annotation, every `$ref` must resolve and every pattern must parse.
    pub fn from_json(name: &str, text: &str) -> Result<Schema> {
        let root: Value =
            serde_json::from_str(text).map_err(|e| Error::invalid(format!("{name}: {e}")))?;
        let mut schema = Schema {
            root,
            name: name.to_owned(),
            patterns: BTreeMap::new(),
        };
        let mut patterns = BTreeMap::new();
        schema.audit(&schema.root, "#", &mut patterns)?;
        if let Some(defs) = schema.root.get("$defs") {
            let defs = defs
                .as_object()
                .ok_or_else(|| Error::invalid(format!("{name}: $defs is not an object")))?;
            for (key, def) in defs {
                schema.audit(def, &format!("#/$defs/{key}"), &mut patterns)?;
            }
        }
        schema.patterns = patterns;
        Ok(schema)
    }

    /// The schema document.
    pub fn root(&self) -> &Value {
        &self.root
    }

    /// The file name it was loaded as.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What is wrong at `at` (a pointer such as `#/$defs/arm/properties/name`) of this
    /// schema document.
    fn invalid(&self, at: &str, what: impl std::fmt::Display) -> Error {
        Error::invalid(format!("{}: {at}: {what}", self.name))
    }

    fn audit(
        &self,
        schema: &Value,
        at: &str,
        patterns: &mut BTreeMap<String, Pattern>,
    ) -> Result<()> {
        let map = match schema {
            Value::Bool(_) => return Ok(()),
            Value::Object(map) => map,
            other => {
                return Err(self.invalid(
                    at,
                    format!("a schema must be an object or a boolean, found {other}"),
                ))
            }
        };
        for (key, value) in map {
            if !(ANNOTATIONS.contains(&key.as_str()) || ASSERTIONS.contains(&key.as_str())) {
                return Err(self.invalid(at, format!("keyword {key:?} is not supported")));
            }
            match key.as_str() {
                "properties" => {
                    let properties = value
                        .as_object()
                        .ok_or_else(|| self.invalid(at, "properties is not an object"))?;
                    for (property, sub) in properties {
                        self.audit(sub, &format!("{at}/properties/{property}"), patterns)?;
                    }
                }
                "additionalProperties" | "items" => {
                    self.audit(value, &format!("{at}/{key}"), patterns)?
                }
                "oneOf" => {
                    let branches = value
                        .as_array()
                        .ok_or_else(|| self.invalid(at, "oneOf is not an array"))?;
                    for (i, sub) in branches.iter().enumerate() {
                        self.audit(sub, &format!("{at}/oneOf/{i}"), patterns)?;
                    }
                }
                "$ref" => {
                    let reference = value
                        .as_str()
                        .ok_or_else(|| self.invalid(at, "$ref is not a string"))?;
                    self.resolve(reference)
                        .ok_or_else(|| self.invalid(at, format!("dangling $ref {reference}")))?;
                }
                "pattern" => {
                    let text = value
                        .as_str()
                        .ok_or_else(|| self.invalid(at, "pattern is not a string"))?;
                    let pattern = Pattern::parse(text).map_err(|e| self.invalid(at, e))?;
                    patterns.insert(text.to_owned(), pattern);
                }
                "type" => self.audit_type(value, at)?,
                _ => {}
            }
        }
        Ok(())
    }

    /// `type`: one type name, or a list of them, each a JSON Schema type.
    fn audit_type(&self, value: &Value, at: &str) -> Result<()> {
        let names: Vec<&Value> = match value {
            Value::Array(items) => items.iter().collect(),
            one => vec![one],
        };
        for type_name in names {
            let known = type_name.as_str().is_some_and(|t| {
                [
                    "null", "boolean", "object", "array", "number", "integer", "string",
                ]
                .contains(&t)
            });
            if !known {
                return Err(self.invalid(at, format!("unknown type {type_name}")));
            }
        }
        Ok(())
    }

    fn resolve(&self, reference: &str) -> Option<&Value> {
        let def = reference.strip_prefix("#/$defs/")?;
        self.root.get("$defs")?.get(def)
    }

    /// The violations of the whole schema by `instance` (at most [`MAX_VIOLATIONS`]), in
    /// document order (object keys in sorted order), each with its JSON path.
    pub fn violations(&self, instance: &Value) -> Vec<Violation> {
        let mut out = Vec::new();
        self.check(&self.root, instance, Loc::Root, &mut out);
        out
    }

    /// Every violation of the definition `#/$defs/<def>` by `instance` (e.g. an experiment
    /// file against the payload schema's `experiment`); paths start at `$`.
    pub fn violations_of(&self, def: &str, instance: &Value) -> Vec<Violation> {
        let mut out = Vec::new();
        match self.resolve(&format!("#/$defs/{def}")) {
            Some(schema) => self.check(schema, instance, Loc::Root, &mut out),
            None => out.push(Violation {
                path: JsonPath::root(),
                message: format!("{} has no definition {def:?}", self.name),
            }),
        }
        out
    }

    fn check(&self, schema: &Value, v: &Value, path: Loc<'_>, out: &mut Vec<Violation>) {
        if out.len() >= MAX_VIOLATIONS {
            // Enough to report: a hostile document of 10⁵ unknown keys costs no more.
            return;
        }
        let map = match schema {
            Value::Bool(true) => return,
            Value::Object(map) => map,
            _ => {
                out.push(Violation::at(path, "no value is allowed here".into()));
                return;
            }
        };
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            if let Some(target) = self.resolve(reference) {
                self.check(target, v, path, out);
            }
        }
        let mut fail = |message: String| out.push(Violation::at(path, message));
        if let Some(types) = map.get("type") {
            let names: Vec<&str> = match types {
                Value::Array(items) => items.iter().filter_map(Value::as_str).collect(),
                one => one.as_str().into_iter().collect(),
            };
            if !names.iter().any(|t| type_matches(t, v)) {
                fail(format!(
                    "expected {}, found {}",
                    names.join(" or "),
                    describe(v)
                ));
                return;
            }
        }
        if let Some(options) = map.get("enum").and_then(Value::as_array) {
            if !options.contains(v) {
                fail(format!(
                    "{} is not one of {}",
                    short(v),
                    Value::Array(options.clone())
                ));
            }
        }
        if let Some(expected) = map.get("const") {
            if v != expected {
                fail(format!("expected {expected}, found {}", short(v)));
            }
        }
        if let Some(options) = map.get("oneOf").and_then(Value::as_array) {
            self.check_one_of(options, v, path, out);
        }
        match v {
            Value::Object(object) => self.check_object(map, object, path, out),
            Value::Array(items) => self.check_array(map, items, path, out),
            Value::String(s) => self.check_string(map, s, path, out),
            Value::Number(n) => check_number(map, n, path, out),
            _ => {}
        }
    }

    /// Exactly one branch must match. When the value's `kind` selects exactly one branch
    /// (a tagged union: split, claim), or exactly one branch fails only below the value
    /// (an untagged union such as a metric's number-or-`{undefined}`), that branch's own
    /// violations are reported, with their deeper paths; otherwise one violation at the
    /// union names every branch.
    fn check_one_of(&self, options: &[Value], v: &Value, path: Loc<'_>, out: &mut Vec<Violation>) {
        let mut per_branch = Vec::with_capacity(options.len());
        for option in options {
            let mut errors = Vec::new();
            self.check(option, v, path, &mut errors);
            per_branch.push(errors);
        }
        let matching = per_branch.iter().filter(|e| e.is_empty()).count();
        if matching == 1 {
            return;
        }
        if matching == 0 {
            // The branch the value was meant for: the one its `kind` names, or else the
            // only one whose every violation lies inside the value (its type and required
            // keys fit; something deeper does not).
            let by_kind: Vec<usize> = (0..options.len())
                .filter(|&i| self.kind_selects(&options[i], v))
                .collect();
            // A tagged union whose `kind` names no branch: the kind is the problem.
            if let (true, Some(kind), Some(kinds)) =
                (by_kind.is_empty(), v.get("kind"), self.union_kinds(options))
            {
                out.push(Violation {
                    path: path.key("kind").to_path(),
                    message: format!("{} is not one of {}", short(kind), Value::Array(kinds)),
                });
                return;
            }
            let inside: Vec<usize> = (0..options.len())
                .filter(|&i| per_branch[i].iter().all(|e| e.path.depth() > path.depth()))
                .collect();
            let selected = if by_kind.len() == 1 { by_kind } else { inside };
            if let [only] = selected[..] {
                out.append(&mut per_branch[only]);
                return;
            }
        }
        if matching > 1 {
            // Say which forms it matches (a claim with two of its exclusive keys): the
            // branches' descriptions when they have one.
            let matched: Vec<String> = per_branch
                .iter()
                .enumerate()
                .filter(|(_, e)| e.is_empty())
                .map(|(i, _)| {
                    options[i]
                        .get("description")
                        .and_then(Value::as_str)
                        .map_or_else(|| format!("branch {i}"), str::to_owned)
                })
                .collect();
            out.push(Violation {
                path: path.to_path(),
                message: format!(
                    "matches {matching} of the {} allowed forms, exactly one required: {}",
                    options.len(),
                    matched.join("; ")
                ),
            });
            return;
        }
        let branches: Vec<String> = per_branch
            .iter()
            .enumerate()
            .filter(|(_, e)| !e.is_empty())
            .map(|(i, e)| {
                let first = &e[0];
                format!("branch {i}: {first}")
            })
            .collect();
        out.push(Violation {
            path: path.to_path(),
            message: format!(
                "matches {matching} of the {} allowed forms, exactly one required ({})",
                options.len(),
                branches.join("; ")
            ),
        });
    }

    /// Every `kind` a tagged union's branches accept, when every branch is an object
    /// schema with a `kind` property (a `const` or an `enum`); `None` otherwise.
    fn union_kinds(&self, options: &[Value]) -> Option<Vec<Value>> {
        let mut kinds = Vec::new();
        for branch in options {
            let branch = match branch.get("$ref").and_then(Value::as_str) {
                Some(reference) => self.resolve(reference)?,
                None => branch,
            };
            let kind = branch.get("properties")?.get("kind")?;
            match (
                kind.get("const"),
                kind.get("enum").and_then(Value::as_array),
            ) {
                (Some(one), _) => kinds.push(one.clone()),
                (None, Some(many)) => kinds.extend(many.iter().cloned()),
                (None, None) => return None,
            }
        }
        Some(kinds)
    }

    /// Whether `branch` is an object schema whose `kind` property (a `const` or `enum`)
    /// accepts the value's `kind`.
    fn kind_selects(&self, branch: &Value, v: &Value) -> bool {
        let branch = match branch.get("$ref").and_then(Value::as_str) {
            Some(reference) => self.resolve(reference).unwrap_or(branch),
            None => branch,
        };
        let (Some(kind_schema), Some(kind)) = (
            branch.get("properties").and_then(|p| p.get("kind")),
            v.get("kind"),
        ) else {
            return false;
        };
        kind_schema.get("const") == Some(kind)
            || kind_schema
                .get("enum")
                .and_then(Value::as_array)
                .is_some_and(|options| options.contains(kind))
    }

    fn check_object(
        &self,
        map: &Map<String, Value>,
        object: &Map<String, Value>,
        path: Loc<'_>,
        out: &mut Vec<Violation>,
    ) {
        if let Some(required) = map.get("required").and_then(Value::as_array) {
            for key in required.iter().filter_map(Value::as_str) {
                if !object.contains_key(key) {
                    out.push(Violation {
                        path: path.to_path(),
                        message: format!("missing required key {key:?}"),
                    });
                }
            }
        }
        if let Some(min) = map.get("minProperties").and_then(Value::as_u64) {
            if (object.len() as u64) < min {
                out.push(Violation {
                    path: path.to_path(),
                    message: format!("fewer than {min} keys"),
                });
            }
        }
        let properties = map.get("properties").and_then(Value::as_object);
        for (key, value) in object {
            let child = path.key(key);
            match properties.and_then(|p| p.get(key)) {
                Some(sub) => self.check(sub, value, child, out),
                None => match map.get("additionalProperties") {
                    Some(Value::Bool(false)) => out.push(Violation {
                        path: child.to_path(),
                        message: format!("unknown key {key:?}"),
                    }),
                    Some(sub) => self.check(sub, value, child, out),
                    None => {}
                },
            }
        }
    }

    fn check_array(
        &self,
        map: &Map<String, Value>,
        items: &[Value],
        path: Loc<'_>,
        out: &mut Vec<Violation>,
    ) {
        let len = items.len() as u64;
        let mut fail = |message: String| out.push(Violation::at(path, message));
        if let Some(min) = map.get("minItems").and_then(Value::as_u64) {
            if len < min {
                fail(format!("{len} items, fewer than {min}"));
            }
        }
        if let Some(max) = map.get("maxItems").and_then(Value::as_u64) {
            if len > max {
                fail(format!("{len} items, more than {max}"));
                // Do not walk a huge array item by item: the count is the problem.
                return;
            }
        }
        if map.get("uniqueItems") == Some(&Value::Bool(true)) {
            let seen: Vec<Vec<u8>> = items.iter().map(crate::canon::canonical_bytes).collect();
            let mut order: Vec<usize> = (0..items.len()).collect();
            order.sort_by(|&a, &b| seen[a].cmp(&seen[b]).then(a.cmp(&b)));
            let duplicate = order
                .windows(2)
                .filter(|w| seen[w[0]] == seen[w[1]])
                .map(|w| w[1])
                .min();
            if let Some(i) = duplicate {
                out.push(Violation {
                    path: path.index(i).to_path(),
                    message: format!("duplicate item {}", short(&items[i])),
                });
            }
        }
        if let Some(sub) = map.get("items") {
            for (i, item) in items.iter().enumerate() {
                self.check(sub, item, path.index(i), out);
            }
        }
    }

    fn check_string(
        &self,
        map: &Map<String, Value>,
        s: &str,
        path: Loc<'_>,
        out: &mut Vec<Violation>,
    ) {
        let mut fail = |message: String| out.push(Violation::at(path, message));
        let len = s.chars().count() as u64;
        if let Some(min) = map.get("minLength").and_then(Value::as_u64) {
            if len < min {
                fail(if min == 1 {
                    "must not be empty".to_owned()
                } else {
                    format!("shorter than {min} characters")
                });
            }
        }
        if let Some(max) = map.get("maxLength").and_then(Value::as_u64) {
            if len > max {
                fail(format!("{len} characters, longer than {max}"));
            }
        }
        if let Some(pattern) = map.get("pattern").and_then(Value::as_str) {
            if let Some(compiled) = self.patterns.get(pattern) {
                if !compiled.matches(s) {
                    fail(format!(
                        "{} does not match {pattern}",
                        short(&Value::String(s.to_owned()))
                    ));
                }
            }
        }
    }
}

fn check_number(
    map: &Map<String, Value>,
    n: &serde_json::Number,
    path: Loc<'_>,
    out: &mut Vec<Violation>,
) {
    // Numbers are compared as f64 and shown as written (`2e305`, not 306 digits).
    let x = n.as_f64().unwrap_or(f64::NAN);
    let bound = |key: &str| {
        map.get(key)
            .and_then(|b| Some((b.as_f64()?, b.to_string())))
    };
    let mut fail = |message: String| out.push(Violation::at(path, message));
    if let Some((min, text)) = bound("minimum") {
        if x < min {
            fail(format!("{n} is below the minimum {text}"));
        }
    }
    if let Some((max, text)) = bound("maximum") {
        if x > max {
            fail(format!("{n} is above the maximum {text}"));
        }
    }
    if let Some((min, text)) = bound("exclusiveMinimum") {
        if x <= min {
            fail(format!("{n} is not above {text}"));
        }
    }
    if let Some((max, text)) = bound("exclusiveMaximum") {
        if x >= max {
            fail(format!("{n} is not below {text}"));
        }
    }
}

fn type_matches(name: &str, v: &Value) -> bool {
    match name {
        "null" => v.is_null(),
        "boolean" => v.is_boolean(),
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "number" => v.is_number(),
        "integer" => v.is_i64() || v.is_u64(),
        _ => false,
    }
}

/// A value's JSON type and, for scalars, a short rendering.
fn describe(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("boolean {b}"),
        Value::Number(n) if n.is_i64() || n.is_u64() => format!("integer {n}"),
        Value::Number(n) => format!("number {n}"),
        Value::String(_) => format!("string {}", short(v)),
        Value::Array(items) => format!("an array of {} items", items.len()),
        Value::Object(map) => format!("an object with {} keys", map.len()),
    }
}

/// At most 60 characters of a value's JSON text.
fn short(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() > 60 {
        format!("{}…", text.chars().take(60).collect::<String>())
    } else {
        text
    }
}

/// An anchored regular expression of the simplest kind: `^`, then literals (`\`-escapes
/// allowed) and character classes (`[a-z0-9-]`, no negation), each optionally followed by
/// `{n}`, `{n,m}`, `+`, `*` or `?`, then `$`.
#[derive(Debug, Clone)]
pub struct Pattern {
    atoms: Vec<Atom>,
}

/// One position of a [`Pattern`]: a set of character ranges, repeated `min..=max` times.
#[derive(Debug, Clone)]
struct Atom {
    ranges: Vec<(char, char)>,
    min: usize,
    max: usize,
}

impl Pattern {
    /// Parses a pattern of the supported subset; anything else is an error.
    pub fn parse(pattern: &str) -> Result<Pattern> {
        let body = pattern
            .strip_prefix('^')
            .and_then(|p| p.strip_suffix('$'))
            .ok_or_else(|| {
                Error::invalid(format!("pattern {pattern:?} must be anchored with ^…$"))
            })?;
        let chars: Vec<char> = body.chars().collect();
        let mut atoms = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            let (ranges, after) = parse_class(pattern, &chars, i)?;
            let ((min, max), after) = parse_quantifier(pattern, &chars, after)?;
            i = after;
            atoms.push(Atom { ranges, min, max });
        }
        Ok(Pattern { atoms })
    }

    /// Whether the whole of `text` matches.
    pub fn matches(&self, text: &str) -> bool {
        let chars: Vec<char> = text.chars().collect();
        self.match_from(0, &chars)
    }

    /// Backtracking match of atoms[k..] against the whole of `rest`.
    fn match_from(&self, k: usize, rest: &[char]) -> bool {
        let Some(atom) = self.atoms.get(k) else {
            return rest.is_empty();
        };
        let in_class = |c: char| atom.ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi);
        let run = rest.iter().take_while(|&&c| in_class(c)).count();
        let most = run.min(atom.max);
        if most < atom.min {
            return false;
        }
        (atom.min..=most)
            .rev()
            .any(|n| self.match_from(k + 1, &rest[n..]))
    }
}

/// What is wrong with `pattern` (the message names it).
fn bad_pattern(pattern: &str, what: impl std::fmt::Display) -> Error {
    Error::invalid(format!("pattern {pattern:?}: {what}"))
}

/// The character class at `chars[i]` of `pattern` (a `[…]` class, an escaped character or
/// a literal), with the position after it.
fn parse_class(pattern: &str, chars: &[char], i: usize) -> Result<(Vec<(char, char)>, usize)> {
    match chars[i] {
        '[' => {
            let end = chars[i..]
                .iter()
                .position(|&c| c == ']')
                .map(|p| p + i)
                .ok_or_else(|| bad_pattern(pattern, "unclosed ["))?;
            let inner = &chars[i + 1..end];
            if inner.first() == Some(&'^') {
                return Err(bad_pattern(pattern, "negated classes are not supported"));
            }
            let mut ranges = Vec::new();
            let mut k = 0;
            while k < inner.len() {
                if k + 2 < inner.len() && inner[k + 1] == '-' {
                    ranges.push((inner[k], inner[k + 2]));
                    k += 3;
                } else {
                    ranges.push((inner[k], inner[k]));
                    k += 1;
                }
            }
            Ok((ranges, end + 1))
        }
        '\\' => {
            let c = *chars
                .get(i + 1)
                .ok_or_else(|| bad_pattern(pattern, "trailing \\"))?;
            if c.is_ascii_alphanumeric() {
                return Err(bad_pattern(
                    pattern,
                    format!("\\{c} classes are not supported"),
                ));
            }
            Ok((vec![(c, c)], i + 2))
        }
        c if "().|*+?{}$^".contains(c) => {
            Err(bad_pattern(pattern, format!("{c:?} is not supported here")))
        }
        c => Ok((vec![(c, c)], i + 1)),
    }
}

/// The quantifier at `chars[i]` of `pattern` (`+`, `*`, `?`, `{n}`, `{n,m}`, or none: once),
/// as the least and most repetitions, with the position after it.
fn parse_quantifier(pattern: &str, chars: &[char], i: usize) -> Result<((usize, usize), usize)> {
    match chars.get(i) {
        Some('+') => Ok(((1, usize::MAX), i + 1)),
        Some('*') => Ok(((0, usize::MAX), i + 1)),
        Some('?') => Ok(((0, 1), i + 1)),
        Some('{') => {
            let end = chars[i..]
                .iter()
                .position(|&c| c == '}')
                .map(|p| p + i)
                .ok_or_else(|| bad_pattern(pattern, "unclosed {"))?;
            let text: String = chars[i + 1..end].iter().collect();
            let number = |t: &str| {
                t.trim()
                    .parse::<usize>()
                    .map_err(|_| bad_pattern(pattern, format!("bad quantifier {{{text}}}")))
            };
            let bounds = match text.split_once(',') {
                None => (number(&text)?, number(&text)?),
                Some((a, b)) => (number(a)?, number(b)?),
            };
            Ok((bounds, end + 1))
        }
        _ => Ok(((1, 1), i)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_embedded_schemas_load() {
        for schema in [Schema::payload(), Schema::boundary(), Schema::report()] {
            assert!(schema.root().is_object(), "{}", schema.name());
        }
    }

    #[test]
    fn unsupported_keywords_are_refused_at_load() {
        let e =
            Schema::from_json("x", r#"{"type": "object", "patternProperties": {}}"#).unwrap_err();
        assert!(e.to_string().contains("patternProperties"), "{e}");
        let e = Schema::from_json("x", r##"{"$ref": "#/$defs/none"}"##).unwrap_err();
        assert!(e.to_string().contains("dangling"), "{e}");
    }

    #[test]
    fn a_tagged_union_reports_the_selected_branch_with_its_path() {
        let schema = Schema::from_json(
            "x",
            r#"{"oneOf": [
                {"type": "object", "required": ["kind", "f"], "additionalProperties": false,
                 "properties": {"kind": {"const": "a"}, "f": {"type": "number"}}},
                {"type": "object", "required": ["kind", "g"], "additionalProperties": false,
                 "properties": {"kind": {"const": "b"}, "g": {"type": "string"}}}]}"#,
        )
        .unwrap();
        let v = schema.violations(&json!({"kind": "a", "f": "text"}));
        assert_eq!(v.len(), 1, "{v:?}");
        assert_eq!(v[0].path, "$.f");
        // A kind no branch names: the kind is the problem, and every allowed one is listed.
        let v = schema.violations(&json!({"kind": "c"}));
        assert_eq!(v[0].path, "$.kind", "{v:?}");
        assert!(v[0].message.contains(r#"["a","b"]"#), "{v:?}");
        // No kind at all: one violation at the union.
        let v = schema.violations(&json!({"f": 1}));
        assert_eq!(v[0].path, "$", "{v:?}");
        assert!(schema
            .violations(&json!({"kind": "b", "g": "x"}))
            .is_empty());
    }

    #[test]
    fn integers_are_written_without_a_fraction() {
        let schema = Schema::from_json("x", r#"{"type": "integer"}"#).unwrap();
        assert!(schema.violations(&json!(3)).is_empty());
        assert_eq!(schema.violations(&json!(3.0)).len(), 1);
    }

    #[test]
    fn the_pattern_subset_behaves() {
        let hash = Pattern::parse("^[0-9a-f]{64}$").unwrap();
        assert!(hash.matches(&"0a".repeat(32)));
        assert!(!hash.matches(&"0A".repeat(32)));
        assert!(!hash.matches(&"0a".repeat(31)));
        let id = Pattern::parse("^[a-z0-9-]+$").unwrap();
        assert!(id.matches("entity-leakage") && !id.matches("") && !id.matches("Entity"));
        let mixed = Pattern::parse("^v[0-9]+\\.[0-9]{1,2}x?$").unwrap();
        assert!(
            mixed.matches("v1.2")
                && mixed.matches("v10.23x")
                && !mixed.matches("v1.234")
                && !mixed.matches("v1x2")
        );
        assert!(Pattern::parse("^(a|b)$").is_err());
    }
}
