//! Suspect columns: columns that would let a model score well for a reason that is not the
//! evaluation's question — a copy of the label, an identifier, a coarser grouping of the
//! entities, a clock — found in a loaded table and reported with their evidence.
//!
//! - **Label proxy**: a column whose every value has rows of one label only (a 3-level
//!   response the label was derived from, a count that equals the label), or that alone
//!   scores an out-of-fold ROC AUC of at least [`PROXY_AUC`] over entity-grouped folds.
//!   "Alone" is a rule, not a model: within each fold a categorical column (text, or a
//!   number with at most [`MAX_LEVELS`] values) scores a test row by the
//!   training rows' positive rate of its value (a value unseen in training: the training
//!   prevalence); any other numeric column scores the value itself, turned round when its
//!   training-rows AUC is below 0.5. The folds are `entity_k_fold` with
//!   min(5, entities) folds, one repeat, seed [`SUSPECT_SEED`], so a column that names
//!   the entity scores no better than chance and a copy of the label with up to 5% of its
//!   rows flipped reaches [`PROXY_AUC`] (a numeric column with at most `MAX_LEVELS`
//!   values is scored both ways, the higher counting).
//! - **Pair of label proxies**: two columns of at most [`PAIR_LEVELS`] values each whose
//!   joint values alone reach [`PROXY_AUC`] the same way (their XOR is the label): a
//!   bounded search over the first [`PAIR_COLUMNS`] such columns, see [`Suspicion::LabelPair`].
//! - **Identifier of the row**: text or whole numbers, a different value in every row.
//! - **Alias of the entity**: one value per entity and one entity per value; text, or
//!   whole numbers that number the entities densely (at least half of the range they span
//!   is taken: ids 1..61 with a gap, not credit scores 300..850 that happen to differ),
//!   that follow the entities' own order (`7·id + 3`, at least 8 entities), or that are
//!   too many for their range to be distinct by chance (under 1%: 80 distinct values
//!   within a span of 686).
//! - **Coarser level**: one value per entity, with at least [`MIN_GROUPS`] values but
//!   fewer than there are entities (a district nesting women, a community nesting
//!   mothers), text or dense whole numbers (as above), and evidence that it names groups
//!   rather than describing the entity: text with more values than a category has
//!   ([`MAX_LEVELS`]), or values that the entities' ids follow — in the ids' natural
//!   order each value's entities are consecutive (mothers numbered community by
//!   community; by chance with probability under 1%), or whole numbers rise and start
//!   again (patients numbered 1, 2, … within each centre, ids `c1-p01`, …). Without such
//!   evidence a column constant within the entity is a covariate measured at the entity's
//!   or a coarser level (an employment category, a community's distance to a clinic),
//!   which is a feature, not an id. With more than `MAX_LEVELS` values a coarser level is
//!   an identifier of a group (or an id that restarts within one) and `init` leaves it
//!   out; with fewer it stays a feature (a grouping may also be a property, a
//!   department). Either way a split grouped by the entity still puts one group on both
//!   sides, so the verdict should also be checked grouped by it (`audit --entity
//!   ENTITY,COLUMN`). The findings read the cells and the ids, not the file's row order.
//! - **Time-like**: more than two whole numbers under a name that reads as a clock
//!   (`week`, `visit_no`, `year`: [`time_like_name`]): a model that reads the clock learns
//!   when, not what. It is left out unless kept (or made the time column).

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Serialize;

use crate::json_path::JsonPath;
use crate::split::SplitSpec;
use crate::table::Table;

/// Most distinct values of a category: `init` takes a text column with more for an
/// identifier or free text, and a column alone is scored by its values' positive rates up
/// to this many (by rank beyond).
pub const MAX_LEVELS: usize = 50;

/// Out-of-fold ROC AUC at or above which one column alone (or a pair of columns) is a
/// label proxy.
///
/// Why 0.94, by the committed simulation (tests/suspects.rs `proxy_threshold_simulation`,
/// docs/CALIBRATION.md "Label proxies"): copies of the label with 1%, 2% and 5% of rows
/// flipped reach it in 200 of 200 data sets each (a 5% copy scores 0.95, so the former
/// 0.98 missed every 5% copy and half the 2% ones); an honest predictor as strong as most
/// single measurements ever are (β = 3, median AUC 0.90) reaches it in none. A copy with
/// 10% flipped (AUC 0.90) is not told apart from such a predictor and is missed; a single
/// measurement that ranks 95% of pairs alone is flagged, with its evidence, and kept
/// with `--keep` when it is meant.
pub const PROXY_AUC: f64 = 0.94;

/// The seed of the entity-grouped folds that score a column alone.
pub const SUSPECT_SEED: u64 = 1;

/// Fewest values of a column, constant within each entity, that make it a coarser level:
/// a column of a handful of values (a region, an employment category) is a property of
/// the entity even where the ids follow it (communities numbered region by region).
///
/// Why 8, by the committed simulation (tests/suspects/rules.rs `suspect_rules_simulation`,
/// docs/CALIBRATION.md "Suspect columns"): with 5, a region of 3–7 levels whose communities
/// are numbered region by region was named a coarser level wherever the mothers' ids
/// followed the communities; community ids (10–160 communities) are not that few.
pub const MIN_GROUPS: usize = 8;

/// Most values of a column in the pair search ([`Suspicion::LabelPair`]): two such
/// columns have at most 49 joint values, no more than a category may have.
pub const PAIR_LEVELS: usize = 7;

/// Most columns in the pair search (the first in table order): at most 496 pairs, each one
/// pass over the rows.
pub const PAIR_COLUMNS: usize = 32;

/// Folds of the out-of-fold score (fewer when there are fewer entities).
const SUSPECT_FOLDS: usize = 5;

/// Words of a column name that read as a clock (the name is cut at anything but a letter
/// or digit and at a lower-to-upper case change, and compared in lower case).
pub const TIME_WORDS: &[&str] = &[
    "time",
    "date",
    "datetime",
    "timestamp",
    "year",
    "yr",
    "quarter",
    "month",
    "week",
    "day",
    "hour",
    "visit",
    "wave",
    "occasion",
    "timepoint",
    "session",
    "round",
    "period",
    "step",
    "yyyymm",
    "yyyymmdd",
    "yyyy",
];

/// Words of a time column's name that read as an order within each entity (a visit or
/// wave number), not one calendar shared by all.
pub const ORDER_WORDS: &[&str] = &["visit", "wave", "occasion", "session", "round", "timepoint"];

/// Why a column is suspect.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Suspicion {
    /// Every value of the column has rows of one label only.
    LabelLevels {
        /// The column's distinct values.
        values: usize,
    },
    /// Alone, the column scores this out-of-fold ROC AUC over entity-grouped folds.
    LabelAuc {
        /// The pooled out-of-fold ROC AUC.
        auc: f64,
        /// The folds.
        folds: usize,
    },
    /// Together with another column, its joint values score this out-of-fold ROC AUC over
    /// entity-grouped folds (each alone does not): the label is a function of the two.
    LabelPair {
        /// The other column of the pair.
        with: String,
        /// The pooled out-of-fold ROC AUC of the pair's joint values.
        auc: f64,
        /// The folds.
        folds: usize,
    },
    /// A different value in every row.
    UniquePerRow {
        /// The rows (= values).
        rows: usize,
    },
    /// One value per entity, one entity per value.
    EntityAlias {
        /// The entities (= values).
        entities: usize,
    },
    /// One value per entity, fewer values than entities: a coarser level.
    CoarserLevel {
        /// The column's distinct values (groups of entities).
        groups: usize,
        /// The entities.
        entities: usize,
    },
    /// Whole numbers under a name that reads as a clock.
    TimeLike,
}

/// A suspect column and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Suspect {
    /// The column.
    pub column: String,
    /// Whether it is one of the pack's features.
    pub feature: bool,
    /// Why it is suspect.
    #[serde(flatten)]
    pub suspicion: Suspicion,
}

impl Suspect {
    /// Whether `init` leaves the column out of the features (unless kept): label proxies,
    /// identifiers of rows and entities, coarser levels with more values than a category
    /// has, and time-like columns.
    pub fn leaves_out(&self) -> bool {
        match self.suspicion {
            Suspicion::CoarserLevel { groups, .. } => groups > MAX_LEVELS,
            _ => true,
        }
    }

    /// Whether the column is a coarser level of the entity (an alternative entity).
    pub fn is_coarser_level(&self) -> bool {
        matches!(self.suspicion, Suspicion::CoarserLevel { .. })
    }

    /// The evidence, one phrase (no column name).
    pub fn evidence(&self) -> String {
        match &self.suspicion {
            Suspicion::LabelLevels { values } => format!(
                "a label proxy: each of its {values} values has rows of one label only"
            ),
            Suspicion::LabelAuc { auc, folds } => format!(
                "a label proxy: alone it scores out-of-fold ROC AUC {auc:.4} over {folds} entity-grouped folds (at least {PROXY_AUC} is a copy of the label, not a predictor)"
            ),
            Suspicion::LabelPair { with, auc, folds } => format!(
                "a label proxy together with {}: their joint values alone score out-of-fold ROC AUC {auc:.4} over {folds} entity-grouped folds (at least {PROXY_AUC} is a copy of the label, not a predictor: the label is a function of the two, such as their XOR)",
                crate::entity_key::quoted(with)
            ),
            Suspicion::UniquePerRow { rows } => {
                format!("an identifier: a different value in each of the {rows} rows")
            }
            Suspicion::EntityAlias { entities } => format!(
                "an alias of the entity: one value per entity and one entity per value ({entities} entities)"
            ),
            Suspicion::CoarserLevel { groups, entities } => format!(
                "a coarser level (or an id that restarts within one): each of the {entities} entities has one of its {groups} values, so a split grouped by the entity still puts one group on both sides; check the verdict grouped by it too (audit with it as a further entity)"
            ),
            Suspicion::TimeLike => "a clock: whole numbers under a time-like name; a model that reads the clock learns when, not what (make it the time column, or keep it as a feature on purpose)".to_owned(),
        }
    }
}

/// Words that may stand beside a time word in a clock's name (`visit_no`, `week_index`).
pub const ORDINAL_WORDS: &[&str] = &["no", "nr", "num", "number", "index", "idx", "t"];

/// Whether a column name reads as a clock: a word of it is in [`TIME_WORDS`] and every
/// other word in [`ORDINAL_WORDS`] (`week`, `visitNo`, `year_index`; not `holiday_week`
/// or `hour_of_day`, which name a property of the time, not the clock).
pub fn time_like_name(name: &str) -> bool {
    let words: Vec<String> = name_words(name).collect();
    words.iter().any(|w| time_word(w))
        && words
            .iter()
            .all(|w| time_word(w) || ORDINAL_WORDS.contains(&w.as_str()))
}

/// A word of [`TIME_WORDS`], or `t` with a number (`t0`, `t1`: the time at an occasion).
fn time_word(word: &str) -> bool {
    TIME_WORDS.contains(&word)
        || word
            .strip_prefix('t')
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether a time column's name reads as an order within each entity (a visit number).
pub fn order_within_entity_name(name: &str) -> bool {
    name_words(name).any(|w| ORDER_WORDS.contains(&w.as_str()))
}

/// Why a time column's values read as an order within each entity rather than one
/// calendar, from the data, or `None`: a guess `init` and `audit` make when the time kind
/// is not given and the name does not say (`days`, `t`), printed with this evidence.
///
/// - **It restarts in each entity**: the smallest value is 0 or 1 and more than half the
///   entities start there and go on from it (two or more values: days since each
///   patient's enrolment: 0, 30, 91, …; entities seen at time 0 only say nothing). A
///   calendar's numbers (a year, `yyyymm`, days since 1970) do not start at 0 or 1.
/// - **It counts from each entity's own event**: some values are negative and more than
///   half the entities have values on both sides of 0 (days from each patient's
///   treatment start, −14 … 56): 0 is each entity's own day, not one date.
///
/// A calendar of small numbers that every entity enters at its first value (study month
/// 1, 2, … for all) reads as an order too: `--time-kind calendar` says otherwise.
pub fn time_restarts(table: &Table) -> Option<String> {
    let time = table.time()?;
    let entities = table.n_entities();
    if entities < 2 {
        return None;
    }
    let mut range = vec![(i64::MAX, i64::MIN); entities];
    for (&entity, &t) in table.entity_of_row().iter().zip(time) {
        let (low, high) = &mut range[entity as usize];
        *low = (*low).min(t);
        *high = (*high).max(t);
    }
    let smallest = range.iter().map(|r| r.0).min()?;
    // An entity that stays at its first value (one time only) shows no count of its own.
    let starting = range
        .iter()
        .filter(|r| r.0 == smallest && r.1 > r.0)
        .count();
    if (smallest == 0 || smallest == 1) && starting * 2 > entities {
        return Some(format!(
            "{starting} of the {entities} entities start at {smallest}, its smallest value, and go on from it: it counts from each entity's own start"
        ));
    }
    let straddling = range.iter().filter(|r| r.0 < 0 && r.1 >= 0).count();
    if smallest < 0 && straddling * 2 > entities {
        return Some(format!(
            "{straddling} of the {entities} entities have values on both sides of 0: it counts from each entity's own event"
        ));
    }
    None
}

/// The words of a name, in lower case: cut at anything but an ASCII letter or digit, and
/// where a lower-case letter is followed by an upper-case one (`visitNo` → visit, no).
fn name_words(name: &str) -> impl Iterator<Item = String> + '_ {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        let boundary = !c.is_ascii_alphanumeric() || (previous_lower && c.is_ascii_uppercase());
        if boundary && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        if c.is_ascii_alphanumeric() {
            word.push(c.to_ascii_lowercase());
        }
        previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
    }
    if !word.is_empty() {
        words.push(word);
    }
    words.into_iter()
}

/// One column's cells as keys: equal keys are equal cells.
struct Keys<'t> {
    /// Per canonical row.
    keys: Vec<u64>,
    /// Whether the column is text or whole numbers (an identifier can be either; a
    /// measurement with a fraction is not one).
    code_like: bool,
    /// Numeric values, for the ranked score (`None` for text and categorical columns): a
    /// feature's own, or a column the manifest does not name whose every cell is a
    /// finite number (read as `init` reads it, so that `pack check` finds what `init`
    /// found in it before it was left out).
    numbers: Option<Cow<'t, [f64]>>,
}

/// The suspect columns of `table`: its features and the columns the manifest does not
/// name, but `except` (a predefined split's column), in table order (features first),
/// each column's own findings, then the pairs that determine the label together.
///
/// `init` and `pack check` both call this, `init` with every usable column a feature and
/// `pack check` with the left-out ones as columns the manifest does not name: a column's
/// findings are the same either way (a numeric column is read as numbers in both), so
/// `pack check` lists every column `init` left out.
pub fn suspects(table: &Table, except: &[String]) -> Vec<Suspect> {
    let folds = grouped_folds(table);
    let mut columns: Vec<(String, bool, Keys)> = Vec::new();
    let layout = table.layout();
    for (k, name) in layout.sources().iter().enumerate() {
        columns.push((name.clone(), true, feature_keys(table, k)));
    }
    for (name, column) in table.extra.iter() {
        if except.contains(name) {
            continue;
        }
        let keys = text_keys((0..column.len()).map(|i| column.text(i)));
        columns.push((name.clone(), false, keys));
    }
    let order = id_order(table.entity_ids());
    let mut out = Vec::new();
    for (name, feature, keys) in &columns {
        out.extend(column_suspects(
            table,
            name,
            *feature,
            keys,
            folds.as_deref(),
            &order,
        ));
    }
    if let Some(folds) = folds.as_deref() {
        out.extend(label_pairs(table, &columns, &out, folds));
    }
    out
}

/// Out-of-fold ROC AUC of `column` alone over the entity-grouped folds that decide a
/// [`Suspicion::LabelAuc`] (the calibration's measure: docs/CALIBRATION.md, "Label
/// proxies"); `None` when the column is absent, constant, or the AUC is undefined.
pub fn alone_auc(table: &Table, column: &str) -> Option<f64> {
    let folds = grouped_folds(table)?;
    let keys = match table.layout().sources().iter().position(|n| n == column) {
        Some(k) => feature_keys(table, k),
        None => {
            let cells = table.extra_column(column)?;
            text_keys((0..cells.len()).map(|i| cells.text(i)))
        }
    };
    let distinct = distinct_count(&keys.keys);
    (distinct >= 2).then(|| grouped_auc(table, &keys, distinct, &folds).0)?
}

/// The suspicions of one column (at most one label-proxy and one identity finding, and
/// the time-like name).
fn column_suspects(
    table: &Table,
    name: &str,
    feature: bool,
    keys: &Keys,
    folds: Option<&[Option<u32>]>,
    id_order: &[usize],
) -> Vec<Suspect> {
    let suspect = |suspicion| Suspect {
        column: name.to_owned(),
        feature,
        suspicion,
    };
    let mut out = Vec::new();
    let distinct = distinct_count(&keys.keys);
    if distinct < 2 {
        return out;
    }
    if let Some(proxy) = label_proxy(table, keys, distinct, folds) {
        out.push(suspect(proxy));
    }
    if let Some(identity) = identity(table, keys, distinct, id_order) {
        out.push(suspect(identity));
    }
    if keys.code_like && keys.numbers.is_some() && distinct > 2 && time_like_name(name) {
        out.push(suspect(Suspicion::TimeLike));
    }
    out
}

/// A label-proxy finding, if any: levels that map onto the label first, else the
/// out-of-fold AUC.
fn label_proxy(
    table: &Table,
    keys: &Keys,
    distinct: usize,
    folds: Option<&[Option<u32>]>,
) -> Option<Suspicion> {
    let labels = table.labels();
    let categorical = keys.numbers.is_none() || distinct <= MAX_LEVELS;
    if categorical && distinct <= MAX_LEVELS && distinct * 2 <= keys.keys.len() {
        let mut classes: BTreeMap<u64, (bool, bool)> = BTreeMap::new();
        for (key, &label) in keys.keys.iter().zip(labels) {
            let seen = classes.entry(*key).or_default();
            if label {
                seen.0 = true;
            } else {
                seen.1 = true;
            }
        }
        let both_classes = labels.iter().any(|&l| l) && labels.iter().any(|&l| !l);
        if both_classes && classes.values().all(|&(pos, neg)| !(pos && neg)) {
            return Some(Suspicion::LabelLevels { values: distinct });
        }
    }
    let (auc, folds) = grouped_auc(table, keys, distinct, folds?);
    let auc = auc?;
    (auc >= PROXY_AUC).then_some(Suspicion::LabelAuc { auc, folds })
}

/// The column's pooled out-of-fold ROC AUC alone over `folds`, and the fold count: a
/// categorical column scored by its values' training positive rates, any other numeric
/// column by its value (turned round where the training rows rank it the wrong way); a
/// numeric column with at most [`MAX_LEVELS`] values both ways, the higher AUC counting
/// (the pack's model reads it as a number, so a few whole numbers that rank the label,
/// an id of 40 entities numbered in label order, must not hide behind their unseen
/// levels).
fn grouped_auc(
    table: &Table,
    keys: &Keys,
    distinct: usize,
    folds: &[Option<u32>],
) -> (Option<f64>, usize) {
    let labels = table.labels();
    let fold_count = folds.iter().flatten().max().map_or(0, |&f| f as usize + 1);
    let categorical = keys.numbers.is_none() || distinct <= MAX_LEVELS;
    let mut best: Option<f64> = None;
    let mut consider = |scores: Vec<f64>| {
        if let Some(auc) = crate::metrics::roc_auc(labels, &scores).value() {
            best = Some(best.map_or(auc, |b: f64| b.max(auc)));
        }
    };
    if categorical {
        consider(rate_scores(&keys.keys, labels, folds, fold_count));
    }
    if let Some(values) = &keys.numbers {
        consider(ranked_scores(values, labels, folds, fold_count));
    }
    (best, fold_count)
}

/// The pairs of columns that determine the label together while neither does alone (two
/// columns whose XOR is the label): a bounded search. Candidates are the first
/// [`PAIR_COLUMNS`] columns in table order with 2 to [`PAIR_LEVELS`] values that are no
/// label proxy alone; each pair's joint values (at most `PAIR_LEVELS`² ≤ [`MAX_LEVELS`],
/// in at most half the rows) are scored as one categorical column, and a pooled
/// out-of-fold AUC of at least [`PROXY_AUC`] flags both columns, each naming the other.
/// Not searched: columns with more values (a continuous column's pair), columns past
/// the first `PAIR_COLUMNS`, and triples.
fn label_pairs(
    table: &Table,
    columns: &[(String, bool, Keys)],
    found: &[Suspect],
    folds: &[Option<u32>],
) -> Vec<Suspect> {
    let labels = table.labels();
    let rows = labels.len();
    let fold_count = folds.iter().flatten().max().map_or(0, |&f| f as usize + 1);
    let proxy = |name: &str| {
        found.iter().any(|s| {
            s.column == name
                && matches!(
                    s.suspicion,
                    Suspicion::LabelLevels { .. } | Suspicion::LabelAuc { .. }
                )
        })
    };
    let candidates: Vec<(&str, bool, Vec<u32>, usize)> = columns
        .iter()
        .filter(|(name, _, _)| !proxy(name))
        .filter_map(|(name, feature, keys)| {
            let (codes, levels) = dense_codes(&keys.keys);
            (2..=PAIR_LEVELS)
                .contains(&levels)
                .then_some((name.as_str(), *feature, codes, levels))
        })
        .take(PAIR_COLUMNS)
        .collect();
    let mut out = Vec::new();
    for (i, a) in candidates.iter().enumerate() {
        for b in &candidates[i + 1..] {
            let joint: Vec<u64> =
                a.2.iter()
                    .zip(&b.2)
                    .map(|(&x, &y)| u64::from(x) * b.3 as u64 + u64::from(y))
                    .collect();
            let (codes, levels) = dense_codes(&joint);
            if levels * 2 > rows || levels <= a.3.max(b.3) {
                continue;
            }
            let scores = dense_rate_scores(&codes, levels, labels, folds, fold_count);
            let Some(auc) = crate::metrics::roc_auc(labels, &scores).value() else {
                continue;
            };
            if auc >= PROXY_AUC {
                for (this, other) in [(a, b), (b, a)] {
                    out.push(Suspect {
                        column: this.0.to_owned(),
                        feature: this.1,
                        suspicion: Suspicion::LabelPair {
                            with: other.0.to_owned(),
                            auc,
                            folds: fold_count,
                        },
                    });
                }
            }
        }
    }
    out
}

/// Keys renumbered 0.. in order of first appearance, and how many.
fn dense_codes(keys: &[u64]) -> (Vec<u32>, usize) {
    let mut codes: BTreeMap<u64, u32> = BTreeMap::new();
    let dense = keys
        .iter()
        .map(|&k| {
            let next = codes.len() as u32;
            *codes.entry(k).or_insert(next)
        })
        .collect();
    (dense, codes.len())
}

/// [`rate_scores`] for codes 0..`levels`, by counts per fold (one pass over the rows
/// per pair of the bounded pair search).
fn dense_rate_scores(
    codes: &[u32],
    levels: usize,
    labels: &[bool],
    folds: &[Option<u32>],
    k: usize,
) -> Vec<f64> {
    // counts[fold][level] = (positives, rows); fold k holds rows in no test fold.
    let mut counts = vec![vec![(0u64, 0u64); levels]; k + 1];
    for ((&code, &label), fold) in codes.iter().zip(labels).zip(folds) {
        let f = fold.map_or(k, |f| f as usize);
        counts[f][code as usize].0 += u64::from(label);
        counts[f][code as usize].1 += 1;
    }
    let mut total = vec![(0u64, 0u64); levels];
    for fold in &counts {
        for (t, c) in total.iter_mut().zip(fold) {
            t.0 += c.0;
            t.1 += c.1;
        }
    }
    let all: (u64, u64) = total.iter().fold((0, 0), |(p, n), c| (p + c.0, n + c.1));
    let mut prevalence = vec![0.0; k];
    for (f, slot) in prevalence.iter_mut().enumerate() {
        let (p, n) = counts[f]
            .iter()
            .fold((0, 0), |(p, n), c| (p + c.0, n + c.1));
        *slot = (all.0 - p) as f64 / (all.1 - n).max(1) as f64;
    }
    codes
        .iter()
        .zip(folds)
        .map(|(&code, fold)| {
            let Some(f) = fold.map(|f| f as usize) else {
                return 0.0;
            };
            let (p, n) = (
                total[code as usize].0 - counts[f][code as usize].0,
                total[code as usize].1 - counts[f][code as usize].1,
            );
            if n == 0 {
                prevalence[f]
            } else {
                p as f64 / n as f64
            }
        })
        .collect()
}

/// An identity finding, if any: unique per row, an alias of the entity, or a coarser level.
/// `id_order` is the entities in their ids' natural order ([`id_order`]).
fn identity(table: &Table, keys: &Keys, distinct: usize, id_order: &[usize]) -> Option<Suspicion> {
    if !keys.code_like {
        return None;
    }
    let rows = keys.keys.len();
    if distinct == rows && rows > 2 {
        return Some(Suspicion::UniquePerRow { rows });
    }
    let entities = table.n_entities();
    let mut first: Vec<Option<u64>> = vec![None; entities];
    for (&entity, &key) in table.entity_of_row().iter().zip(&keys.keys) {
        match first[entity as usize] {
            None => first[entity as usize] = Some(key),
            Some(seen) if seen != key => return None,
            Some(_) => {}
        }
    }
    // Whole numbers name entities or groups when they number them densely (1..n with few
    // gaps); a measurement constant within an entity (a credit score) is spread thinly.
    let numbering = keys
        .numbers
        .as_deref()
        .is_none_or(|values| dense_numbering(values, distinct));
    if distinct == entities
        && (numbering
            || keys
                .numbers
                .as_deref()
                .is_some_and(|values| numeric_alias(table, values, id_order)))
    {
        return Some(Suspicion::EntityAlias { entities });
    }
    if !(MIN_GROUPS..entities).contains(&distinct) || !numbering {
        return None;
    }
    // A column constant within each entity is a property of it (an employment category,
    // a height, a community's distance to a clinic) unless something says it names groups:
    // text with more values than a category has, or values that the entities' ids follow.
    let in_id_order: Vec<u64> = id_order.iter().filter_map(|&e| first[e]).collect();
    let names_groups = if keys.numbers.is_none() {
        distinct > MAX_LEVELS || grouped_along(&in_id_order)
    } else {
        grouped_along(&in_id_order) || rising_along(&in_id_order)
    };
    names_groups.then_some(Suspicion::CoarserLevel {
        groups: distinct,
        entities,
    })
}

/// Whether the values of the entities, in their ids' order, come in groups: each value's
/// entities are consecutive (communities numbered `c017-…`, mothers numbered community by
/// community), and a random order of the entities would group them so with probability
/// below [`CHANCE_DISTINCT`]: G groups of m₁ … m_G of n entities are consecutive in
/// G!·∏mᵢ! of the n! orders.
fn grouped_along(values: &[u64]) -> bool {
    let mut sizes: BTreeMap<u64, u64> = BTreeMap::new();
    let mut blocks = 0;
    for run in values.chunk_by(|a, b| a == b) {
        blocks += 1;
        *sizes.entry(run[0]).or_default() += run.len() as u64;
    }
    if blocks != sizes.len() {
        return false;
    }
    let ln_factorial = |k: u64| libm::lgamma(k as f64 + 1.0);
    let ln_chance = ln_factorial(sizes.len() as u64)
        + sizes.values().map(|&m| ln_factorial(m)).sum::<f64>()
        - ln_factorial(values.len() as u64);
    ln_chance < libm::log(CHANCE_DISTINCT)
}

/// Whether whole numbers (keys are their bits) rise along the entities in their ids'
/// order and start again now and then (patients numbered 1, 2, … within each centre,
/// ids `c1-p01` …): merging consecutive equal values, the values fall at most once per
/// [`RISING_RUN`] changes. A measurement in no order falls at about every second change.
fn rising_along(values: &[u64]) -> bool {
    let changes: Vec<f64> = values
        .chunk_by(|a, b| a == b)
        .map(|run| f64::from_bits(run[0]))
        .collect();
    let falls = changes.windows(2).filter(|w| w[1] < w[0]).count();
    (falls + 1) * RISING_RUN <= changes.len()
}

/// Fewest changes of value per rising run of [`rising_along`] (on average).
const RISING_RUN: usize = 8;

/// Whether whole numbers, one per entity and one entity per value, that do not number
/// the entities densely still name them: they follow the entities' order ([`id_order`]:
/// `7·id + 3`, ids numbered in steps) with at least [`MIN_ORDERED_ENTITIES`] entities
/// (a measurement does so by chance with probability 2/n!), or they are so many for the
/// range they span that values of a measurement would have repeated one: n values drawn
/// uniformly from a span of s are all distinct with probability about
/// exp(−n(n−1)/(2s)), below 1% ([`CHANCE_DISTINCT`]) here.
fn numeric_alias(table: &Table, values: &[f64], id_order: &[usize]) -> bool {
    let entities = table.n_entities();
    let mut value_of = vec![0.0; entities];
    for (&entity, &value) in table.entity_of_row().iter().zip(values) {
        value_of[entity as usize] = value;
    }
    let (low, high) = value_of
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        });
    let span = high - low + 1.0;
    let n = entities as f64;
    if span.is_finite() && libm::exp(-n * (n - 1.0) / (2.0 * span)) < CHANCE_DISTINCT {
        return true;
    }
    if entities < MIN_ORDERED_ENTITIES {
        return false;
    }
    let ordered: Vec<f64> = id_order.iter().map(|&e| value_of[e]).collect();
    ordered.windows(2).all(|w| w[0] < w[1]) || ordered.windows(2).all(|w| w[0] > w[1])
}

/// Fewest entities whose values in the entities' order make a numeric alias.
const MIN_ORDERED_ENTITIES: usize = 8;

/// Chance below which values that look like an id by accident are taken for one: a
/// measurement's values all distinct ([`numeric_alias`]), or in groups along the ids
/// ([`grouped_along`]).
const CHANCE_DISTINCT: f64 = 0.01;

/// Entity indices in the ids' natural order: runs of digits compared as numbers, the rest
/// byte by byte (`p2` before `p10`; `12` before `100`).
fn id_order(ids: &[String]) -> Vec<usize> {
    fn parts(id: &str) -> Vec<(bool, String)> {
        let mut out: Vec<(bool, String)> = Vec::new();
        for c in id.chars() {
            let digit = c.is_ascii_digit();
            match out.last_mut() {
                Some((d, run)) if *d == digit => run.push(c),
                _ => out.push((digit, c.to_string())),
            }
        }
        for (digit, run) in &mut out {
            if *digit {
                let trimmed = run.trim_start_matches('0');
                *run = format!("{:0>40}", if trimmed.is_empty() { "0" } else { trimmed });
            }
        }
        out
    }
    let mut order: Vec<usize> = (0..ids.len()).collect();
    order.sort_by_cached_key(|&i| (parts(&ids[i]), ids[i].as_str()));
    order
}

/// Whether `distinct` whole-number values fill at least half of the range they span (ids
/// 1..61 with one gap do; credit scores 300..850 taking 65 values do not).
fn dense_numbering(values: &[f64], distinct: usize) -> bool {
    let (low, high) = values
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        });
    let span = high - low + 1.0;
    span.is_finite() && (distinct as f64) * 2.0 >= span
}

/// Per canonical row, the entity-grouped fold that tests it (`None` with one entity).
fn grouped_folds(table: &Table) -> Option<Vec<Option<u32>>> {
    let k = SUSPECT_FOLDS.min(table.n_entities());
    if k < 2 {
        return None;
    }
    let spec = SplitSpec::EntityKFold {
        folds: k as u32,
        assignment: None,
        repeats: None,
    };
    let folds = crate::split::folds(table, &spec, SUSPECT_SEED, &JsonPath::root()).ok()?;
    folds.into_iter().next().map(|f| f.fold_of_row().to_vec())
}

/// Out-of-fold scores of a categorical column: the training rows' positive rate of the
/// row's value, or the training prevalence for a value unseen in training.
fn rate_scores(keys: &[u64], labels: &[bool], folds: &[Option<u32>], k: usize) -> Vec<f64> {
    let mut scores = vec![0.0; keys.len()];
    for fold in 0..k as u32 {
        let mut counts: BTreeMap<u64, (u64, u64)> = BTreeMap::new();
        let (mut positives, mut rows) = (0u64, 0u64);
        for ((key, &label), &f) in keys.iter().zip(labels).zip(folds) {
            if f.is_some_and(|f| f != fold) {
                let count = counts.entry(*key).or_default();
                count.0 += u64::from(label);
                count.1 += 1;
                positives += u64::from(label);
                rows += 1;
            }
        }
        let prevalence = positives as f64 / rows.max(1) as f64;
        for (row, key) in keys.iter().enumerate() {
            if folds[row] == Some(fold) {
                scores[row] = counts
                    .get(key)
                    .map_or(prevalence, |&(p, n)| p as f64 / n as f64);
            }
        }
    }
    scores
}

/// Out-of-fold scores of a numeric column: the value, negated in a fold whose training
/// rows rank it the wrong way round (training AUC below 0.5).
fn ranked_scores(values: &[f64], labels: &[bool], folds: &[Option<u32>], k: usize) -> Vec<f64> {
    let mut scores = vec![0.0; values.len()];
    for fold in 0..k as u32 {
        let train: Vec<usize> = (0..values.len())
            .filter(|&r| folds[r].is_some_and(|f| f != fold))
            .collect();
        let train_labels: Vec<bool> = train.iter().map(|&r| labels[r]).collect();
        let train_values: Vec<f64> = train.iter().map(|&r| values[r]).collect();
        let turned = crate::metrics::roc_auc(&train_labels, &train_values)
            .value()
            .is_some_and(|auc| auc < 0.5);
        for (row, &value) in values.iter().enumerate() {
            if folds[row] == Some(fold) {
                scores[row] = if turned { -value } else { value };
            }
        }
    }
    scores
}

/// Feature `k` of the table as keys: a numeric feature by its value's bits (−0 as 0), a
/// categorical one by the level each row holds.
fn feature_keys(table: &Table, k: usize) -> Keys<'_> {
    let layout = table.layout();
    let range = layout.range(k);
    if layout.levels(k).is_empty() {
        let values = &table.features[range.start];
        Keys {
            keys: values.iter().map(|&v| (v + 0.0).to_bits()).collect(),
            code_like: values.iter().all(|v| v.fract() == 0.0),
            // A column with missing values (NaN) is not ranked: its keys still count levels.
            numbers: values
                .iter()
                .all(|v| !v.is_nan())
                .then_some(Cow::Borrowed(values)),
        }
    } else {
        let columns = &table.features[range];
        let keys = (0..table.n_rows())
            .map(|row| {
                columns
                    .iter()
                    .position(|c| c[row] == 1.0)
                    .unwrap_or(usize::MAX) as u64
            })
            .collect();
        Keys {
            keys,
            code_like: true,
            numbers: None,
        }
    }
}

/// A column the manifest does not name, as keys: a column whose every cell is a finite
/// number (as `init` reads a numeric column) by its values, as a numeric feature is;
/// any other by each distinct text (an empty cell too). It is code-like unless a cell is
/// a number with a fraction (a measurement with missing cells is not an identifier).
fn text_keys<'a>(cells: impl Iterator<Item = &'a str> + Clone) -> Keys<'static> {
    let numbers: Option<Vec<f64>> = cells
        .clone()
        .map(|cell| crate::pack::load::parse_finite(cell).ok())
        .collect();
    if let Some(values) = numbers {
        return Keys {
            keys: values.iter().map(|&v| (v + 0.0).to_bits()).collect(),
            code_like: values.iter().all(|v| v.fract() == 0.0),
            numbers: Some(Cow::Owned(values)),
        };
    }
    let mut codes: BTreeMap<&str, u64> = BTreeMap::new();
    let mut code_like = true;
    let keys = cells
        .map(|cell| {
            if code_like
                && cell
                    .parse::<f64>()
                    .is_ok_and(|v| v.is_finite() && v.fract() != 0.0)
            {
                code_like = false;
            }
            let next = codes.len() as u64;
            *codes.entry(cell).or_insert(next)
        })
        .collect();
    Keys {
        keys,
        code_like,
        numbers: None,
    }
}

/// How many distinct keys.
fn distinct_count(keys: &[u64]) -> usize {
    let mut sorted = keys.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    sorted.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_cut_into_words() {
        assert!(time_like_name("week"));
        assert!(time_like_name("visitNo"));
        assert!(time_like_name("Visit"));
        assert!(!time_like_name("weekday"));
        assert!(!time_like_name("holiday_week"));
        assert!(!time_like_name("hour_of_day"));
        assert!(time_like_name("week_index"));
        assert!(!time_like_name("days_since_signup"));
        assert!(!time_like_name("tenure_months"));
        assert!(time_like_name("t0"));
        assert!(time_like_name("yyyymm"));
        assert!(time_like_name("step"));
        assert!(!time_like_name("t"));
        assert!(!time_like_name("steps_walked"));
        assert!(order_within_entity_name("visit"));
        assert!(order_within_entity_name("wave_no"));
        assert!(!order_within_entity_name("month"));
    }

    /// Keys of whole numbers, as [`Keys`] holds them.
    fn bits(values: &[f64]) -> Vec<u64> {
        values.iter().map(|&v| (v + 0.0).to_bits()).collect()
    }

    #[test]
    fn groups_along_the_ids_count_only_beyond_chance() {
        // 4 entities A A B B: 2!·2!·2! = 8 of the 4! = 24 orders group them (1/3).
        assert!(!grouped_along(&[1, 1, 2, 2]));
        // 5 groups of 4 among 20: 5!·(4!)⁵ / 20! ≈ 3.9·10⁻¹⁰.
        let grouped: Vec<u64> = (0..20).map(|i| i / 4).collect();
        assert!(grouped_along(&grouped));
        // A value in two places is no grouping, however few the values.
        let mut split = grouped.clone();
        split.swap(3, 4);
        assert!(!grouped_along(&split));
        // 8 groups of 1 and one of 2 among 10: 9!·2! / 10! = 1/5, chance.
        assert!(!grouped_along(&[0, 1, 2, 3, 4, 5, 6, 7, 8, 8]));
    }

    #[test]
    fn numbers_that_rise_and_restart_along_the_ids_are_counted() {
        // Patients 1…56 and 1…55 of two centres: one fall among 110 changes.
        let restart: Vec<f64> = (1..=56).chain(1..=55).map(f64::from).collect();
        assert!(rising_along(&bits(&restart)));
        // 1, 2, 1, 2, …: a fall at every second change.
        let zigzag: Vec<f64> = (0..40).map(|i| f64::from(i % 2 + 1)).collect();
        assert!(!rising_along(&bits(&zigzag)));
        // Repeats merge: a community's value repeated for its mothers is one change.
        let repeated: Vec<f64> = (0..16).flat_map(|c| [f64::from(c); 3]).collect();
        assert!(rising_along(&bits(&repeated)));
        // 16 changes with 2 falls: runs of 16 / 3 < 8 changes on average.
        let mut falls: Vec<f64> = (0..16).map(f64::from).collect();
        falls.swap(4, 5);
        falls.swap(10, 11);
        assert!(!rising_along(&bits(&falls)));
        // 7 changes in order: fewer than one run of 8.
        let short: Vec<f64> = (0..7).map(f64::from).collect();
        assert!(!rising_along(&bits(&short)));
    }

    #[test]
    fn ids_are_ordered_naturally() {
        let ids: Vec<String> = ["p10", "p2", "c1-p01", "12", "100", "p02"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        let order: Vec<&str> = id_order(&ids).iter().map(|&i| ids[i].as_str()).collect();
        // A text part sorts before a digit part; "p02" and "p2" tie on their parts, then bytes.
        assert_eq!(order, ["c1-p01", "p02", "p2", "p10", "12", "100"]);
    }
}
