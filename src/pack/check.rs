//! What can change a pack's meaning without failing to load: the findings of
//! `counterlab pack check`, printed as warnings by `init` and `run`.
//!
//! - **Labels**: the levels with their counts. More than two levels are refused at load
//!   unless `[data] one_vs_rest = true` says the positive level against all the others is
//!   meant; a positive level that no row has is refused at load (every row would be
//!   negative); one class only is a finding.
//! - **Look-alike entity ids**: distinct ids that [look alike](crate::entity_key), in
//!   either tier (case, white space and invisible characters, compatibility forms, digits
//!   of any script, one number written two ways, confusable characters of any script and
//!   case: `c1-p07` and `C1-P07 `, `c1‐p07` with a U+2010 hyphen, a Cyrillic `с`; and,
//!   possibly, `O`/`0` and `l`/`I`/`1`, leading zeros, separators and digit groups:
//!   `C0001` and `COOO1`, `c1-p7`, `A-12` and `A12`): two spellings of one entity split
//!   it in two, and a grouped split then leaks it.
//! - **Duplicate (entity, time) rows**: one entity measured twice at one time is usually
//!   a join or export error (and makes "later" ambiguous for temporal splits).
//! - **Suspect columns** ([`crate::suspect`]): a feature that copies the label, identifies
//!   rows or entities, or reads the clock is a problem unless `[data] kept` names it
//!   (kept on purpose); coarser levels of the entity (a district nesting women), features
//!   or not, are information: a split grouped by the entity still shares them.
//! - **Rows per entity** (information): the distribution that decides how many held-out
//!   entities a grouped split can have.

use std::collections::BTreeMap;

use super::manifest::DataSpec;
use crate::entity_key::{look_alike_groups, quoted, same_key_groups};
use crate::suspect::{suspects, Suspect};
use crate::table::Table;

/// How many examples a finding lists.
const SHOWN: usize = 5;

/// Everything `pack check` reports about a loaded table.
#[derive(Debug, Clone, PartialEq)]
pub struct Findings {
    /// Label levels as written, in byte order, with their row counts.
    pub label_levels: Vec<(String, usize)>,
    /// The positive level.
    pub positive: String,
    /// Whether the manifest declares one-vs-rest labels.
    pub one_vs_rest: bool,
    /// Groups of distinct entity ids that are one id after normalisation (first few).
    pub entity_collisions: Vec<Vec<String>>,
    /// How many such groups there are.
    pub entity_collision_count: usize,
    /// (entity, time) pairs with more than one row (first few, with their row count).
    pub duplicate_entity_times: Vec<(String, i64, usize)>,
    /// How many such pairs there are.
    pub duplicate_entity_time_count: usize,
    /// Rows per entity: minimum, median, maximum, and entities with one row.
    pub rows_per_entity: RowsPerEntity,
    /// Suspect columns, features and the columns the manifest does not name.
    pub suspects: Vec<Suspect>,
    /// Features kept on purpose (`[data] kept`).
    pub kept: Vec<String>,
}

/// The distribution of rows per entity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowsPerEntity {
    /// Number of entities.
    pub entities: usize,
    /// Fewest rows of an entity.
    pub min: usize,
    /// The median entity's rows (the lower median).
    pub median: usize,
    /// Most rows of an entity.
    pub max: usize,
    /// Entities with exactly one row.
    pub single_row: usize,
}

impl Findings {
    /// The findings of `table` read with `spec`.
    pub fn of(table: &Table, spec: &DataSpec) -> Findings {
        Findings::excluding(table, spec, &[])
    }

    /// The findings, no suspect column among `except` (a predefined split's column).
    pub fn excluding(table: &Table, spec: &DataSpec, except: &[String]) -> Findings {
        let label_levels = label_levels(table);
        let (entity_collisions, entity_collision_count) = entity_collisions(table.entity_ids());
        let (duplicate_entity_times, duplicate_entity_time_count) = duplicate_entity_times(table);
        Findings {
            label_levels,
            positive: spec.positive.clone(),
            one_vs_rest: spec.one_vs_rest,
            entity_collisions,
            entity_collision_count,
            duplicate_entity_times,
            duplicate_entity_time_count,
            rows_per_entity: rows_per_entity(table),
            suspects: suspects(table, except),
            kept: spec.kept.clone(),
        }
    }

    /// The suspect features not kept on purpose: each a problem.
    pub fn suspect_features(&self) -> impl Iterator<Item = &Suspect> {
        self.suspects
            .iter()
            .filter(|s| s.feature && s.leaves_out() && !self.kept.contains(&s.column))
    }

    /// The columns that are coarser levels of the entity (alternative entities to check
    /// a grouped verdict with), in table order.
    pub fn coarser_levels(&self) -> impl Iterator<Item = &Suspect> {
        self.suspects.iter().filter(|s| s.is_coarser_level())
    }

    /// The findings that change what the pack means, one message each (with how to fix):
    /// `pack check` exits 1 when there is any.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if let Some(message) = label_problem(&self.label_levels, &self.positive, self.one_vs_rest) {
            problems.push(message);
        }
        if self.label_levels.len() == 1 {
            problems.push(format!(
                "the label has one level only ({}): a classifier needs both classes",
                levels_with_counts(&self.label_levels)
            ));
        }
        if self.entity_collision_count > 0 {
            let shown: Vec<String> = self
                .entity_collisions
                .iter()
                .map(|ids| {
                    ids.iter()
                        .map(|id| quoted(id))
                        .collect::<Vec<_>>()
                        .join(" / ")
                })
                .collect();
            problems.push(format!(
                "{} groups of entity ids look alike ({}{}): they are one id after normalisation (NFKC, case, white space and invisible characters, digits of any script, leading zeros, one number written two ways, confusable characters); if they are one entity, write its id one way (otherwise a grouped split puts it on both sides); if they are distinct entities, give them ids that do not look alike",
                self.entity_collision_count,
                shown.join("; "),
                if self.entity_collision_count > shown.len() { "; …" } else { "" }
            ));
        }
        for suspect in self.suspect_features() {
            problems.push(format!(
                "feature {} is {}: leave it out of data.features, or name it in data.kept if it is meant",
                quoted(&suspect.column),
                suspect.evidence()
            ));
        }
        if self.duplicate_entity_time_count > 0 {
            let shown: Vec<String> = self
                .duplicate_entity_times
                .iter()
                .map(|(entity, time, rows)| format!("{} at {time}: {rows} rows", quoted(entity)))
                .collect();
            problems.push(format!(
                "{} (entity, time) pairs have more than one row ({}{}): an entity measured twice at one time is usually a join or export error; remove the copies or make the time finer",
                self.duplicate_entity_time_count,
                shown.join("; "),
                if self.duplicate_entity_time_count > shown.len() { "; …" } else { "" }
            ));
        }
        problems
    }
}

/// Why labels read with `positive` do not mean a binary label, if they do not: the
/// positive level is absent, or there are more than two levels and one-vs-rest is not
/// declared. Names the levels seen.
pub(crate) fn label_problem(
    levels: &[(String, usize)],
    positive: &str,
    one_vs_rest: bool,
) -> Option<String> {
    if let Some(message) = look_alike_labels(levels.iter().map(|(level, _)| level.as_str())) {
        return Some(message);
    }
    if !levels.iter().any(|(level, _)| level == positive) {
        let hint = if levels
            .iter()
            .any(|(level, _)| level.trim().eq_ignore_ascii_case(positive.trim()))
        {
            " (a level differs only in case or spaces)"
        } else if positive.parse::<f64>().is_ok()
            && levels
                .iter()
                .any(|(level, _)| level.parse::<f64>().ok() == positive.parse::<f64>().ok())
        {
            " (a level is the same number written another way, e.g. 1.0 for 1: write the label column as integers, or set positive to that spelling)"
        } else {
            ""
        };
        return Some(format!(
            "no label is the positive level {positive:?}{hint}; the label levels are {}: set data.positive to one of them",
            levels_with_counts(levels)
        ));
    }
    if levels.len() > 2 && !one_vs_rest {
        return Some(format!(
            "the label has {} levels ({}), not two: set data.one_vs_rest = true in pack.toml to read {positive:?} against all the others, or merge the levels into two before export",
            levels.len(),
            levels_with_counts(levels)
        ));
    }
    None
}

/// Why label texts that look alike cannot be two classes (`"1"` beside `" 1"`, `"01"`
/// beside `"1"`, `"Yes"` beside `"yes"`: one [`entity_key`](crate::entity_key::entity_key),
/// the first tier only, since a load error must not rest on a guess), if any: such a pair
/// is one class written two ways far more often than two classes, and read as two it
/// silently turns positives into negatives.
pub(crate) fn look_alike_labels<'a>(levels: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let groups = same_key_groups(levels);
    let group = groups.first()?;
    let shown: Vec<String> = group.iter().map(|l| quoted(l)).collect();
    Some(format!(
        "label texts {} look alike (one text after normalising case, spaces, leading zeros and number form) but are different texts: write each class one way before export",
        shown.join(" and ")
    ))
}

/// Label levels in byte order with their counts.
pub(crate) fn label_levels(table: &Table) -> Vec<(String, usize)> {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    let labels = table.label_texts();
    for i in 0..labels.len() {
        *counts.entry(labels.text(i)).or_default() += 1;
    }
    counts.into_iter().map(|(l, n)| (l.to_owned(), n)).collect()
}

/// `"no" × 43, "yes" × 177` (the first 10 levels, then how many more).
fn levels_with_counts(levels: &[(String, usize)]) -> String {
    const LISTED: usize = 10;
    let mut text: Vec<String> = levels
        .iter()
        .take(LISTED)
        .map(|(level, n)| format!("{level:?} × {n}"))
        .collect();
    if levels.len() > LISTED {
        text.push(format!("… {} more", levels.len() - LISTED));
    }
    text.join(", ")
}

/// Groups of distinct ids that look alike ([`look_alike_groups`]: the first [`SHOWN`], and
/// how many).
pub(crate) fn entity_collisions(ids: &[String]) -> (Vec<Vec<String>>, usize) {
    let groups = look_alike_groups(ids.iter().map(String::as_str));
    let count = groups.len();
    let shown = groups
        .into_iter()
        .take(SHOWN)
        .map(|ids| ids.into_iter().map(str::to_owned).collect())
        .collect();
    (shown, count)
}

/// (entity, time) pairs with several rows: rows are in canonical order (entity, time), so
/// copies are adjacent.
fn duplicate_entity_times(table: &Table) -> (Vec<(String, i64, usize)>, usize) {
    let Some(time) = table.time() else {
        return (Vec::new(), 0);
    };
    let entity = table.entity_of_row();
    let (mut shown, mut count) = (Vec::new(), 0);
    let mut start = 0;
    while start < table.n_rows() {
        let mut end = start + 1;
        while end < table.n_rows() && entity[end] == entity[start] && time[end] == time[start] {
            end += 1;
        }
        if end - start > 1 {
            count += 1;
            if shown.len() < SHOWN {
                shown.push((
                    table.entity_ids()[entity[start] as usize].clone(),
                    time[start],
                    end - start,
                ));
            }
        }
        start = end;
    }
    (shown, count)
}

fn rows_per_entity(table: &Table) -> RowsPerEntity {
    let mut counts = vec![0usize; table.n_entities()];
    for &e in table.entity_of_row() {
        counts[e as usize] += 1;
    }
    counts.sort_unstable();
    RowsPerEntity {
        entities: counts.len(),
        min: counts.first().copied().unwrap_or(0),
        median: counts
            .get(counts.len().saturating_sub(1) / 2)
            .copied()
            .unwrap_or(0),
        max: counts.last().copied().unwrap_or(0),
        single_row: counts.iter().filter(|&&n| n == 1).count(),
    }
}
