//! JSON paths (`$.a.b[2]`) into payloads and edits at them: the one vocabulary of the
//! robustness tests, the mutation catalogue and the fuzz targets.

use serde_json::Value;

pub use counterlab::json_path::Seg;
use counterlab::JsonPath;

/// `$.a.b[2]` of a path.
pub fn render(path: &[Seg]) -> String {
    path.iter()
        .fold(JsonPath::root(), |at, seg| match seg {
            Seg::Key(k) => at.key(k),
            Seg::Index(i) => at.index(*i),
        })
        .to_string()
}

/// Parses `$.a.b[2]` (keys without dots or brackets): the library's parser.
pub fn parse(path: &str) -> Result<Vec<Seg>, String> {
    JsonPath::parse(path)
        .map(JsonPath::into_segments)
        .map_err(|e| e.to_string())
}

/// The value at `path` (`Value::Null` where there is none, as `serde_json` indexing).
pub fn get<'v>(value: &'v Value, path: &[Seg]) -> &'v Value {
    path.iter().fold(value, |v, seg| match seg {
        Seg::Key(k) => &v[k.as_str()],
        Seg::Index(i) => &v[*i],
    })
}

/// The value at `path`, mutably (panics where there is none: paths from [`nodes`]).
pub fn get_mut<'v>(value: &'v mut Value, path: &[Seg]) -> &'v mut Value {
    path.iter().fold(value, |v, seg| match seg {
        Seg::Key(k) => &mut v[k.as_str()],
        Seg::Index(i) => &mut v[*i],
    })
}

/// The value at `path` written as text (`$.a[0]`), mutably, or which step is missing.
pub fn find_mut<'v>(value: &'v mut Value, path: &str) -> Result<&'v mut Value, String> {
    walk_mut(value, parse(path)?, path)
}

/// The container holding `path` and the last step.
pub fn parent_mut<'v>(value: &'v mut Value, path: &str) -> Result<(&'v mut Value, Seg), String> {
    let mut segs = parse(path)?;
    let last = segs
        .pop()
        .ok_or_else(|| format!("{path}: cannot edit the root"))?;
    Ok((walk_mut(value, segs, path)?, last))
}

/// Follows `segs` from `value`; errors name `path` and the missing step.
fn walk_mut<'v>(value: &'v mut Value, segs: Vec<Seg>, path: &str) -> Result<&'v mut Value, String> {
    let mut current = value;
    for seg in segs {
        current = match seg {
            Seg::Key(k) => current
                .get_mut(&k)
                .ok_or_else(|| format!("{path}: no key {k:?}"))?,
            Seg::Index(i) => current
                .get_mut(i)
                .ok_or_else(|| format!("{path}: no index {i}"))?,
        };
    }
    Ok(current)
}

/// Sets the value at `path`; the old one (None when a key was created).
pub fn set(value: &mut Value, path: &str, new: Value) -> Result<Option<Value>, String> {
    let (parent, last) = parent_mut(value, path)?;
    match (parent, last) {
        (Value::Object(map), Seg::Key(k)) => Ok(map.insert(k, new)),
        (Value::Array(items), Seg::Index(i)) if i < items.len() => {
            Ok(Some(std::mem::replace(&mut items[i], new)))
        }
        _ => Err(format!("{path}: no such place")),
    }
}

/// Every node's path in pre-order (the root is the empty path).
pub fn nodes(value: &Value) -> Vec<Vec<Seg>> {
    fn walk(value: &Value, path: &mut Vec<Seg>, out: &mut Vec<Vec<Seg>>) {
        out.push(path.clone());
        match value {
            Value::Object(map) => {
                for (k, v) in map {
                    path.push(Seg::Key(k.clone()));
                    walk(v, path, out);
                    path.pop();
                }
            }
            Value::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    path.push(Seg::Index(i));
                    walk(v, path, out);
                    path.pop();
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(value, &mut Vec::new(), &mut out);
    out
}

/// Every object key and string value, in document order (with repeats).
pub fn strings(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                out.push(k.clone());
                strings(v, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::String(s) => out.push(s.clone()),
        _ => {}
    }
}
