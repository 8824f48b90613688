//! `counterlab pack check DIR`, `counterlab pack rehash DIR` and `counterlab packs`.

use std::path::PathBuf;

use serde_json::Value;

use counterlab::entity_key::quoted;
use counterlab::pack::check::Findings;
use counterlab::pack::Pack;

use super::{print_json, style, write_file, FixtureArgs, Outcome, PacksArgs, EXIT_DATA, EXIT_OK};

/// `counterlab pack …`.
#[derive(clap::Subcommand)]
pub(crate) enum PackAction {
    /// What can change the pack's meaning: label levels, entity ids that differ only in
    /// case, spaces or leading zeros, duplicate (entity, time) rows; rows per entity.
    ///
    /// Exit codes: 0 clean, 1 a problem found (or the pack does not load), 2 usage or I/O.
    Check(CheckArgs),
    /// Record the fixture's blake3 (and its categorical columns' levels) in pack.toml after
    /// an edit; comments and other keys are kept.
    Rehash(RehashArgs),
}

// Options of `pack check` (a plain comment: clap would read a doc comment as the
// command's description, which the `Check` variant gives; the same for the other `…Args`
// of this file).
#[derive(clap::Args)]
pub(crate) struct CheckArgs {
    /// The pack folder.
    dir: PathBuf,
    /// Print JSON (counterlab.pack-check/1).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    fixture: FixtureArgs,
}

// Options of `pack rehash`.
#[derive(clap::Args)]
pub(crate) struct RehashArgs {
    /// The pack folder.
    dir: PathBuf,
    #[command(flatten)]
    fixture: FixtureArgs,
}

// Options of `packs`.
#[derive(clap::Args)]
pub(crate) struct ListArgs {
    #[command(flatten)]
    packs: PacksArgs,
    #[command(flatten)]
    fixture: FixtureArgs,
}

pub(crate) fn command(action: &PackAction) -> Outcome {
    match action {
        PackAction::Check(args) => check(args),
        PackAction::Rehash(args) => rehash(args),
    }
}

/// Prints what changes a pack's meaning as warnings (on stderr: stdout stays the result).
pub(crate) fn print_problems(problems: &[String]) {
    for problem in problems {
        eprintln!("warning: {}", style::safe(problem));
    }
}

/// `pack check`: exit 0 clean, 1 when a finding changes meaning (or the pack does not load
/// because of its data), 2 usage or I/O error.
fn check(args: &CheckArgs) -> Outcome {
    let pack = Pack::open_within(&args.dir, &args.fixture.limits()?)?;
    let findings = Findings::of(pack.table(), &pack.manifest().data);
    let problems = findings.problems();
    if args.json {
        print_json(&check_json(&pack, &findings, &problems));
    } else {
        print_check(&pack, &findings, &problems);
    }
    Ok(if problems.is_empty() {
        EXIT_OK
    } else {
        EXIT_DATA
    })
}

/// The findings as `counterlab.pack-check/1`.
fn check_json(pack: &Pack, findings: &Findings, problems: &[String]) -> Value {
    serde_json::json!({
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
        "suspect_columns": findings.suspects,
        "kept": findings.kept,
        "problems": problems,
        "clean": problems.is_empty(),
    })
}

/// The findings as lines: the pack, its labels and rows per entity, its entity ids and
/// (entity, time) pairs, then each problem.
fn print_check(pack: &Pack, findings: &Findings, problems: &[String]) {
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
    print_labels_and_rows(findings);
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
    for level in findings.coarser_levels() {
        outln!(
            "coarser level    {}: {}",
            style::safe(&quoted(&level.column)),
            level.evidence()
        );
    }
    for suspect in findings
        .suspects
        .iter()
        .filter(|s| findings.kept.contains(&s.column))
    {
        outln!(
            "kept             {}: {} (data.kept)",
            style::safe(&quoted(&suspect.column)),
            suspect.evidence()
        );
    }
    for problem in problems {
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

/// The label levels (the first ten, with their counts) and the rows per entity.
fn print_labels_and_rows(findings: &Findings) {
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
}

/// `pack rehash`: re-records the fixture's blake3 and categorical levels in pack.toml.
fn rehash(args: &RehashArgs) -> Outcome {
    let dir = args.dir.as_path();
    let rehash = counterlab::pack::rehash(dir, &args.fixture.limits()?)?;
    if !rehash.changed() {
        outln!(
            "pack.toml already records blake3 {} and the levels",
            rehash.new_hash
        );
        return Ok(EXIT_OK);
    }
    let path = dir.join("pack.toml");
    write_file(&path, &rehash.manifest)?;
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
    Ok(EXIT_OK)
}

/// `packs`: every pack found, with its fixture's hash.
pub(crate) fn list(args: &ListArgs) -> Outcome {
    let packs = args.packs.packs(None, &args.fixture.limits()?)?;
    outln!(
        "{}",
        style::bold(&format!(
            "{:<18} {:<18} {:>7} {:>9}  {:<64}  title",
            "id", "concept", "rows", "entities", "fixture blake3"
        ))
    );
    for pack in packs.iter() {
        outln!(
            "{:<18} {:<18} {:>7} {:>9}  {:<64}  {}",
            pack.id(),
            style::safe(&pack.manifest().concept),
            pack.table().n_rows(),
            pack.table().n_entities(),
            pack.fixture_hash(),
            style::safe(&pack.manifest().title)
        );
    }
    Ok(EXIT_OK)
}
