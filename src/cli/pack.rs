//! `counterlab pack check DIR` and `counterlab pack rehash DIR`.

use std::path::Path;

use counterlab::pack::check::Findings;
use counterlab::pack::{LoadLimits, Pack};

use super::{fail, fail_usage, style, EXIT_DATA, EXIT_OK};

/// Prints what changes a pack's meaning as warnings (on stderr: stdout stays the result).
pub(crate) fn print_problems(problems: &[String]) {
    for problem in problems {
        eprintln!("warning: {}", style::safe(problem));
    }
}

/// `pack check`: exit 0 clean, 1 when a finding changes meaning (or the pack does not load
/// because of its data), 2 usage or I/O error.
pub(crate) fn check(dir: &Path, json: bool) -> i32 {
    let pack = match Pack::open(dir) {
        Ok(pack) => pack,
        Err(e) => return fail(&e),
    };
    let findings = Findings::of(pack.table(), &pack.manifest().data);
    let problems = findings.problems();
    if json {
        let report = serde_json::json!({
            "format": "counterlab.pack-check/1",
            "pack": pack.id(),
            "rows": pack.table().n_rows(),
            "entities": pack.table().n_entities(),
            "labels": findings.label_levels.iter().map(|(level, count)| serde_json::json!({"level": level, "count": count})).collect::<Vec<_>>(),
            "positive": findings.positive,
            "one_vs_rest": findings.one_vs_rest,
            "rows_per_entity": {
                "min": findings.rows_per_entity.min,
                "median": findings.rows_per_entity.median,
                "max": findings.rows_per_entity.max,
                "single_row_entities": findings.rows_per_entity.single_row,
            },
            "entity_collisions": {
                "count": findings.entity_collision_count,
                "first": findings.entity_collisions,
            },
            "duplicate_entity_times": {
                "count": findings.duplicate_entity_time_count,
                "first": findings.duplicate_entity_times.iter().map(|(entity, time, rows)| serde_json::json!({"entity": entity, "time": time, "rows": rows})).collect::<Vec<_>>(),
            },
            "problems": problems,
            "clean": problems.is_empty(),
        });
        outln!(
            "{}",
            serde_json::to_string_pretty(&report).expect("JSON values serialise")
        );
    } else {
        let table = pack.table();
        outln!(
            "{}",
            style::bold(&format!(
                "pack {}  ({} rows, {} entities, {})",
                pack.id(),
                table.n_rows(),
                table.n_entities(),
                pack.manifest().data.file
            ))
        );
        let labels: Vec<String> = findings
            .label_levels
            .iter()
            .take(10)
            .map(|(level, n)| format!("{} × {n}", style::safe(&format!("{level:?}"))))
            .collect();
        outln!(
            "labels           {}  (positive {}{})",
            labels.join(", "),
            style::safe(&format!("{:?}", findings.positive)),
            if findings.one_vs_rest {
                ", one vs rest"
            } else {
                ""
            }
        );
        let r = findings.rows_per_entity;
        outln!(
            "rows per entity  min {}, median {}, max {}; {} entities with one row",
            r.min,
            r.median,
            r.max,
            r.single_row
        );
        outln!(
            "entity ids       {}",
            match findings.entity_collision_count {
                0 => "no two ids look alike (normalised: docs/FORMATS.md, pack check)".to_owned(),
                n => format!("{n} groups look alike (below)"),
            }
        );
        if table.time().is_some() {
            outln!(
                "(entity, time)   {}",
                match findings.duplicate_entity_time_count {
                    0 => "every pair is one row".to_owned(),
                    n => format!("{n} pairs have several rows (below)"),
                }
            );
        }
        for problem in &problems {
            outln!("problem: {}", style::safe(problem));
        }
        outln!(
            "{}",
            if problems.is_empty() {
                "clean".to_owned()
            } else {
                format!("{} problems", problems.len())
            }
        );
    }
    if problems.is_empty() {
        EXIT_OK
    } else {
        EXIT_DATA
    }
}

/// `pack rehash`: re-records the fixture's blake3 and categorical levels in pack.toml.
pub(crate) fn rehash(dir: &Path) -> i32 {
    let rehash = match counterlab::pack::rehash(dir, &LoadLimits::default()) {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    if !rehash.changed() {
        outln!(
            "pack.toml already records blake3 {} and the levels",
            rehash.new_hash
        );
        return EXIT_OK;
    }
    let path = dir.join("pack.toml");
    if let Err(e) = std::fs::write(&path, &rehash.manifest) {
        return fail_usage(&format!("{}: {e}", path.display()));
    }
    if rehash.old_hash != rehash.new_hash {
        outln!("blake3 {} (was {})", rehash.new_hash, rehash.old_hash);
    }
    for (column, added, removed) in &rehash.level_changes {
        outln!(
            "levels of {}: added {:?}, removed {:?}",
            style::safe(column),
            added,
            removed
        );
    }
    outln!("wrote {}", path.display());
    EXIT_OK
}
