//! Boundary maps: where a claim holds. A pack's `[boundary]` sweeps one of its registered
//! experiments over a grid of knob values (the model's C, an arm's test-entity overlap, the
//! fixture's prevalence); in every cell the kernel computes the results and evaluates the
//! experiment's claim by the verifier's rules (`stats::claim`), and each cell gets a hash.
//! The map (`counterlab.boundary/1`) carries the cells, the chart data derived from them
//! and a map hash; `counterlab verify` recomputes it (docs/BOUNDARY.md).

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::arm::PreparedExperiment;
use crate::canon::{self, HashKind};
use crate::chart;
use crate::error::{Error, Result};
use crate::experiment::{
    Claim, Experiment, MetricName, ModelSpec, SplitSpec, C_RANGE, GBDT_RANGES,
};
use crate::pack::{BoundaryAxis, BoundarySpec, Knob, Pack};
use crate::rng;
use crate::run::{self, ArmResult, KernelInfo, PackRef};
use crate::stats::claim::{self, ClaimSettings, Standing};
use crate::stats::ClaimReport;
use crate::table::Table;

/// The format tag of a boundary map.
pub const BOUNDARY_FORMAT: &str = "counterlab.boundary/1";

/// A boundary map: what `counterlab boundary PACK --out FILE` writes and `verify` reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoundaryMap {
    /// Always `counterlab.boundary/1`.
    pub format: String,
    /// The kernel that computed it.
    pub kernel: KernelInfo,
    /// The pack and its fixture hash.
    pub pack: PackRef,
    /// The pack's `[boundary]` section, verbatim.
    pub boundary: BoundarySpec,
    /// The base experiment (`experiments/<boundary.experiment>.json`), verbatim.
    pub experiment: Experiment,
    /// One cell per grid point, the first axis varying slowest.
    pub cells: Vec<Cell>,
    /// What a chart of the map plots: derived from the cells, bound to their hashes.
    pub chart: ChartData,
    /// Canonical hash of pack, spec, experiment and the cell hashes in order.
    pub map_hash: String,
}

/// One grid point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cell {
    /// Knob name → value of this cell.
    pub axes: BTreeMap<String, f64>,
    /// Rows of the (possibly subsampled) fixture in this cell.
    pub rows: u64,
    /// Positive rows among them.
    pub positives: u64,
    /// The kernel's results of the cell's experiment, per arm.
    pub results: BTreeMap<String, ArmResult>,
    /// The claim's evidence in this cell (null when a permutation could not run).
    pub claim: Option<ClaimReport>,
    /// The claim's outcome here (written `SUPPORTS`, `INCONCLUSIVE` or `REJECTED`), by the
    /// rules of `claim.evidence` (docs/VERDICTS.md).
    pub outcome: chart::Outcome,
    /// Why, when the outcome is not SUPPORTS.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Canonical hash of this cell without `cell_hash`.
    pub cell_hash: String,
}

/// The chart's data: one row per cell, each bound to the cell's hash.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChartData {
    /// `grid` (two axes: a heatmap) or `lines` (one axis).
    pub kind: String,
    /// The x axis's knob.
    pub x: String,
    /// The y axis's knob (grid only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<String>,
    /// The plotted value: the claim's statistic.
    pub statistic: String,
    /// The claim's threshold.
    pub threshold: f64,
    /// One row per cell, in cell order.
    pub rows: Vec<ChartRow>,
}

/// One plotted cell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChartRow {
    /// Index into `cells`.
    pub cell: usize,
    /// That cell's hash.
    pub cell_hash: String,
    /// The x knob's value.
    pub x: f64,
    /// The y knob's value (grid only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<f64>,
    /// The claim's observed statistic (null when undefined).
    pub value: Option<f64>,
    /// Its 95% CI.
    pub ci: Option<[f64; 2]>,
    /// The cell's outcome.
    pub outcome: chart::Outcome,
    /// Context metrics of the claim's arm (`boundary.context`), by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub context: BTreeMap<String, Option<f64>>,
}

/// Computes the pack's boundary map with cells in parallel on up to `threads` threads,
/// and each cell's arms and permutations on up to `threads` more; the map never depends
/// on the thread count.
pub fn compute(pack: &Pack, threads: usize) -> Result<BoundaryMap> {
    let spec = pack.manifest().boundary.clone().ok_or_else(|| {
        Error::pack(
            pack.dir().join("pack.toml"),
            "the pack declares no [boundary] sweep",
        )
    })?;
    let experiment = Experiment::registered(pack, &spec.experiment)?;
    compute_with(pack, pack.table(), &spec, &experiment, threads)
}

/// Computes a map from an explicit spec and experiment on `table` (the pack's own table
/// or a reordered copy of it). The spec is checked first.
pub fn compute_with(
    pack: &Pack,
    table: &Table,
    spec: &BoundarySpec,
    experiment: &Experiment,
    threads: usize,
) -> Result<BoundaryMap> {
    check_spec(spec, experiment, &pack.dir().join("pack.toml"))?;
    let grid = grid(spec);
    // Cells in parallel, and each cell's arms and permutations in parallel too: cells can
    // differ a lot in size (a prevalence sweep keeps from under 5% to all of the rows), and
    // a worker whose cells are done would otherwise idle while another works through the
    // largest one. The results do not depend on the thread count (tests/boundary.rs).
    let cells = run::parallel_map(&grid, threads, |point| {
        compute_cell(pack, table, spec, experiment, point, threads)
    });
    let cells = cells.into_iter().collect::<Result<Vec<Cell>>>()?;
    let chart = chart_data(spec, experiment, &cells)
        .map_err(|i| Error::invalid(format!("boundary: cells {i:?} lack a knob of the sweep")))?;
    let pack_ref = PackRef::of(pack);
    let map_hash = map_hash(&pack_ref, spec, experiment, &cells)?;
    Ok(BoundaryMap {
        format: BOUNDARY_FORMAT.to_owned(),
        kernel: KernelInfo::this(),
        pack: pack_ref,
        boundary: spec.clone(),
        experiment: experiment.clone(),
        cells,
        chart,
        map_hash,
    })
}

/// What `[boundary]` must satisfy beyond its types: an error about `manifest` (the
/// `pack.toml` the spec is read from) naming the key.
pub fn check_spec(spec: &BoundarySpec, experiment: &Experiment, manifest: &Path) -> Result<()> {
    let bad = |message: String| Err(Error::pack(manifest, message));
    let Some(claim) = &experiment.claim else {
        return bad(format!(
            "boundary.experiment {:?} makes no claim: a boundary map evaluates a claim per cell",
            spec.experiment
        ));
    };
    if spec.axes.is_empty() || spec.axes.len() > 2 {
        return bad(format!(
            "boundary.axes has {} axes; one or two are supported",
            spec.axes.len()
        ));
    }
    let (alpha_low, alpha_high) = crate::stats::ALPHA_RANGE;
    if !(spec.alpha > alpha_low && spec.alpha <= alpha_high) {
        return bad(format!(
            "boundary.alpha must lie in ({alpha_low}, {alpha_high}], found {}",
            spec.alpha
        ));
    }
    if spec.permutations == 0 || spec.permutations > 10_000 {
        return bad(format!(
            "boundary.permutations must lie in 1..=10000, found {}",
            spec.permutations
        ));
    }
    if spec.title.trim().is_empty() {
        return bad("boundary.title must not be empty".into());
    }
    for (i, axis) in spec.axes.iter().enumerate() {
        check_axis(&spec.axes[..i], i, axis, experiment, manifest)?;
    }
    check_context(spec, claim, experiment, manifest)
}

/// `boundary.axes[i]`, after the axes `before` it: a knob not swept twice, values in the
/// knob's range and distinct, an arm exactly when the knob takes one.
fn check_axis(
    before: &[BoundaryAxis],
    i: usize,
    axis: &BoundaryAxis,
    experiment: &Experiment,
    manifest: &Path,
) -> Result<()> {
    let at = format!("boundary.axes[{i}]");
    let bad = |message: String| Err(Error::pack(manifest, message));
    if before
        .iter()
        .any(|a| a.knob == axis.knob && a.arm == axis.arm)
    {
        return bad(format!("{at}: knob {} appears twice", axis.knob.as_str()));
    }
    if axis.knob == Knob::C && !matches!(experiment.model, ModelSpec::Logistic { .. }) {
        return bad(format!(
            "{at}: knob c is the logistic model's; the experiment's model is not logistic"
        ));
    }
    if matches!(axis.knob, Knob::MaxIter | Knob::MaxLeafNodes)
        && !matches!(experiment.model, ModelSpec::Gbdt(_))
    {
        return bad(format!(
            "{at}: knob {} is the gradient-boosted trees'; the experiment's model is not gbdt",
            axis.knob.as_str()
        ));
    }
    if axis.values.is_empty() || axis.values.len() > 20 {
        return bad(format!(
            "{at}.values: 1 to 20 values, found {}",
            axis.values.len()
        ));
    }
    for (j, &v) in axis.values.iter().enumerate() {
        let ok = match axis.knob {
            Knob::C => (C_RANGE.0..=C_RANGE.1).contains(&v),
            Knob::TestEntityOverlap => v.is_finite() && (0.0..=1.0).contains(&v),
            Knob::Prevalence => v.is_finite() && v > 0.0 && v < 1.0,
            Knob::MaxIter => whole_in(v, GBDT_RANGES.max_iter),
            Knob::MaxLeafNodes => whole_in(v, GBDT_RANGES.max_leaf_nodes),
        };
        if !ok {
            return bad(format!(
                "{at}.values[{j}] = {v} is out of range for knob {}",
                axis.knob.as_str()
            ));
        }
        if axis.values[..j].contains(&v) {
            return bad(format!("{at}.values[{j}] = {v} appears twice"));
        }
    }
    match (axis.knob, &axis.arm) {
        (Knob::TestEntityOverlap, Some(arm)) => {
            let Some(a) = experiment.arms.iter().find(|a| &a.name == arm) else {
                return bad(format!("{at}.arm {arm:?} is not an arm of the experiment"));
            };
            if !matches!(a.split, SplitSpec::EntityGrouped { .. }) {
                return bad(format!(
                    "{at}.arm {arm:?} must be an entity_grouped arm (found {})",
                    a.split.kind()
                ));
            }
            Ok(())
        }
        (Knob::TestEntityOverlap, None) => {
            bad(format!("{at}: knob test_entity_overlap needs an arm"))
        }
        (_, Some(_)) => bad(format!("{at}.arm: only test_entity_overlap takes an arm")),
        (_, None) => Ok(()),
    }
}

/// Whether `v` is a whole number within `(low, high)`, both included.
fn whole_in(v: f64, (low, high): (u32, u32)) -> bool {
    v.fract() == 0.0 && (f64::from(low)..=f64::from(high)).contains(&v)
}

/// `model` with the model knobs of one grid point set (`c`, `max_iter`,
/// `max_leaf_nodes`; the others leave it as it is). The axes were checked: each model knob
/// belongs to the model's family and its value is in range (a whole number for the trees).
fn model_at(model: &ModelSpec, spec: &BoundarySpec, point: &[f64]) -> ModelSpec {
    let mut model = model.clone();
    for (axis, &value) in spec.axes.iter().zip(point) {
        match (axis.knob, &mut model) {
            (Knob::C, _) => model = ModelSpec::Logistic { c: value },
            (Knob::MaxIter, ModelSpec::Gbdt(trees)) => trees.max_iter = value as u32,
            (Knob::MaxLeafNodes, ModelSpec::Gbdt(trees)) => trees.max_leaf_nodes = value as u32,
            _ => {}
        }
    }
    model
}

/// `boundary.context`: drawn by one-axis maps of a one-arm claim only, and naming metrics
/// the experiment computes.
fn check_context(
    spec: &BoundarySpec,
    claim: &Claim,
    experiment: &Experiment,
    manifest: &Path,
) -> Result<()> {
    if spec.context.is_empty() {
        return Ok(());
    }
    let bad = |message: String| Err(Error::pack(manifest, message));
    if spec.axes.len() != 1 {
        return bad("boundary.context is drawn by one-axis maps only".into());
    }
    if matches!(claim, Claim::MetricGap { .. }) {
        return bad(
            "boundary.context needs a one-arm claim (metric_at_least / metric_at_most)".into(),
        );
    }
    match spec
        .context
        .iter()
        .find(|m| !experiment.metrics.contains(m))
    {
        Some(m) => bad(format!(
            "boundary.context names {}, which the experiment does not compute",
            m.as_str()
        )),
        None => Ok(()),
    }
}

/// The grid points: per point, one value per axis (first axis slowest).
fn grid(spec: &BoundarySpec) -> Vec<Vec<f64>> {
    let mut points: Vec<Vec<f64>> = vec![Vec::new()];
    for axis in &spec.axes {
        points = points
            .into_iter()
            .flat_map(|prefix| {
                axis.values.iter().map(move |&v| {
                    let mut p = prefix.clone();
                    p.push(v);
                    p
                })
            })
            .collect();
    }
    points
}

/// One cell: the table and experiment at this grid point, the kernel's results and the
/// claim's evidence by the verifier's rules.
fn compute_cell(
    pack: &Pack,
    table: &Table,
    spec: &BoundarySpec,
    base: &Experiment,
    point: &[f64],
    threads: usize,
) -> Result<Cell> {
    let (experiment, cell_table, axes) = at_point(pack, table, spec, base, point)?;
    let table = cell_table.as_ref().unwrap_or(table);
    let claim = experiment
        .claim
        .clone()
        .expect("checked: the experiment makes a claim");
    let prepared = PreparedExperiment::new(pack, table, &experiment, threads)?;
    let observed = prepared.evaluate(table.labels(), threads)?;
    let evaluation = claim::evaluate(
        &prepared,
        &claim,
        &observed,
        None,
        &ClaimSettings {
            permutations: spec.permutations,
            seed: spec.seed,
            alpha: spec.alpha,
            family: 1,
            threads,
        },
    );
    let (outcome, reason) = match evaluation.standing {
        Standing::Supports => (chart::Outcome::Supports, None),
        Standing::Contradicts { .. } => (
            chart::Outcome::Rejected,
            Some(
                "the evidence contradicts the claim: the CI lies entirely on the wrong side"
                    .to_owned(),
            ),
        ),
        Standing::Inconclusive(why) => (chart::Outcome::Inconclusive, Some(why)),
    };
    let mut cell = Cell {
        axes,
        rows: table.n_rows() as u64,
        positives: table.labels().iter().filter(|&&l| l).count() as u64,
        results: observed.results,
        // A cell keeps the claim object it had before `scored_rows` existed: a map's cells
        // are hashed, so a map recorded then still recomputes bit for bit (the rows each
        // arm scored are in the cell's results).
        claim: evaluation.report.map(|report| ClaimReport {
            scored_rows: None,
            ..report
        }),
        outcome,
        reason,
        cell_hash: String::new(),
    };
    cell.cell_hash = cell_hash(&cell)?;
    Ok(cell)
}

/// The experiment and table of grid point `point` (one value per axis of `spec`): the
/// base experiment with each knob set, the table subsampled when prevalence is swept
/// (`None`: the whole table), and the cell's axes by knob name.
fn at_point(
    pack: &Pack,
    table: &Table,
    spec: &BoundarySpec,
    base: &Experiment,
    point: &[f64],
) -> Result<(Experiment, Option<Table>, BTreeMap<String, f64>)> {
    let mut experiment = base.clone();
    experiment.model = model_at(&base.model, spec, point);
    let mut cell_table = None;
    let mut axes = BTreeMap::new();
    for (axis, &value) in spec.axes.iter().zip(point) {
        axes.insert(axis.knob.as_str().to_owned(), value);
        match axis.knob {
            Knob::C | Knob::MaxIter | Knob::MaxLeafNodes => {} // model_at above
            Knob::TestEntityOverlap => {
                let name = axis.arm.as_deref().expect("checked: the knob has an arm");
                let arm = experiment
                    .arms
                    .iter_mut()
                    .find(|a| a.name == name)
                    .expect("checked: the arm exists");
                if let SplitSpec::EntityGrouped { test_fraction } = arm.split {
                    arm.split = SplitSpec::EntityOverlap {
                        test_fraction,
                        overlap: value,
                    };
                }
            }
            Knob::Prevalence => {
                cell_table = Some(at_prevalence(table, value, spec.seed).ok_or_else(|| {
                    Error::pack(
                        pack.dir().join("pack.toml"),
                        "boundary: prevalence needs both classes in the fixture",
                    )
                })?);
            }
        }
    }
    Ok((experiment, cell_table, axes))
}

/// The canonical hash of a cell without its `cell_hash`.
pub fn cell_hash(cell: &Cell) -> Result<String> {
    let mut value = canon::to_value(cell)?;
    if let Value::Object(map) = &mut value {
        map.remove("cell_hash");
    }
    Ok(canon::hash_value(HashKind::BoundaryCell, &value))
}

/// The canonical hash of a map: pack, spec, experiment and the cell hashes in order.
pub fn map_hash(
    pack: &PackRef,
    spec: &BoundarySpec,
    experiment: &Experiment,
    cells: &[Cell],
) -> Result<String> {
    let hashes: Vec<&str> = cells.iter().map(|c| c.cell_hash.as_str()).collect();
    let value = serde_json::json!({
        "pack": canon::to_value(pack)?,
        "boundary": canon::to_value(spec)?,
        "experiment": canon::to_value(experiment)?,
        "cell_hashes": hashes,
    });
    Ok(canon::hash_value(HashKind::BoundaryMap, &value))
}

/// The fixture subsampled to `prevalence` positive rows: one class is kept whole, the other
/// thinned to `round(kept · p/(1−p))` (positives) or `round(kept · (1−p)/p)` (negatives)
/// rows drawn uniformly from the `boundary/prevalence` stream in canonical order. So the
/// cell depends on the canonical table only, never on the file's row order. `None` when
/// the fixture has one class only: no subsample of it has another prevalence.
pub fn at_prevalence(table: &Table, prevalence: f64, seed: u64) -> Option<Table> {
    let (mut positives, mut negatives): (Vec<usize>, Vec<usize>) =
        (0..table.n_rows()).partition(|&r| table.labels()[r]);
    let (n_pos, n_neg) = (positives.len() as f64, negatives.len() as f64);
    if positives.is_empty() || negatives.is_empty() {
        return None;
    }
    let current = n_pos / (n_pos + n_neg);
    let mut stream = rng::stream(seed, "boundary/prevalence");
    if prevalence >= current {
        let keep = (n_pos * (1.0 - prevalence) / prevalence).round() as usize;
        rng::shuffle(&mut negatives, &mut stream);
        negatives.truncate(keep.max(1));
    } else {
        let keep = (n_neg * prevalence / (1.0 - prevalence)).round() as usize;
        rng::shuffle(&mut positives, &mut stream);
        positives.truncate(keep.max(1));
    }
    let mut rows = positives;
    rows.extend(negatives);
    rows.sort_unstable();
    Some(table.subset(&rows))
}

/// The chart's data, derived from the cells (verify re-derives it from its own cells).
///
/// Every cell must carry exactly the sweep's knobs in `axes` (the kernel's always do; a
/// recorded map's may not): otherwise the indices of the cells that do not.
pub fn chart_data(
    spec: &BoundarySpec,
    experiment: &Experiment,
    cells: &[Cell],
) -> std::result::Result<ChartData, Vec<usize>> {
    let misshapen: Vec<usize> = cells
        .iter()
        .enumerate()
        .filter(|(_, cell)| {
            cell.axes.len() != spec.axes.len()
                || !spec
                    .axes
                    .iter()
                    .all(|a| cell.axes.contains_key(a.knob.as_str()))
        })
        .map(|(i, _)| i)
        .collect();
    if !misshapen.is_empty() {
        return Err(misshapen);
    }
    let claim = experiment.claim.as_ref();
    let (statistic, threshold) = cells
        .iter()
        .find_map(|c| c.claim.as_ref())
        .map_or((String::new(), f64::NAN), |c| {
            (c.statistic.clone(), c.threshold)
        });
    let x_knob = spec.axes[0].knob.as_str();
    let y_knob = spec.axes.get(1).map(|a| a.knob.as_str());
    let claim_arm = match claim {
        Some(Claim::MetricAtLeast { arm, .. } | Claim::MetricAtMost { arm, .. }) => Some(arm),
        _ => None,
    };
    let rows = cells
        .iter()
        .enumerate()
        .map(|(i, cell)| {
            let context = match claim_arm {
                Some(arm) => spec
                    .context
                    .iter()
                    .map(|m: &MetricName| {
                        let value = cell
                            .results
                            .get(arm)
                            .and_then(|r| r.metrics.get(m.as_str()))
                            .and_then(|v| v.value());
                        (m.as_str().to_owned(), value)
                    })
                    .collect(),
                None => BTreeMap::new(),
            };
            ChartRow {
                cell: i,
                cell_hash: cell.cell_hash.clone(),
                x: cell.axes[x_knob],
                y: y_knob.map(|k| cell.axes[k]),
                value: cell.claim.as_ref().and_then(|c| c.observed),
                ci: cell.claim.as_ref().and_then(|c| c.ci),
                outcome: cell.outcome,
                context,
            }
        })
        .collect();
    Ok(ChartData {
        kind: if y_knob.is_some() { "grid" } else { "lines" }.to_owned(),
        x: x_knob.to_owned(),
        y: y_knob.map(str::to_owned),
        statistic,
        threshold,
        rows,
    })
}

/// Work of computing a map, in the verifier's units (rows × ((features + 1)² + 32) per fit): per
/// cell, every arm's fit (every fold's) for the results (with ablations), its claim
/// estimates and K permutations of every arm (an upper bound: a claim's null refits only the arms the
/// claim names; none for a gap bound without a p-value, `at_most` or `within`, whose cells
/// run no null). Counted on the full fixture (subsampled cells cost less), with each cell's
/// own model (the trees' knobs change what a fit costs).
pub fn work_units(spec: &BoundarySpec, experiment: &Experiment, table: &Table) -> u64 {
    let arms = crate::budget::arm_fits(experiment);
    let null_arms = crate::budget::null_arm_fits(experiment);
    let permutations = match &experiment.claim {
        Some(claim) if claim.is_margin() => 0,
        _ => spec.permutations as u64,
    };
    let fits_per_cell = arms
        .saturating_mul(1 + experiment.ablation_list().len() as u64)
        .saturating_add(null_arms.saturating_mul(permutations + 1))
        .saturating_add(crate::stats::margin::redraw_fits(experiment));
    let mut cell = experiment.clone();
    grid(spec)
        .iter()
        .map(|point| {
            cell.model = model_at(&experiment.model, spec, point);
            crate::budget::work_per_fit(&cell, table).saturating_mul(fits_per_cell)
        })
        .fold(0u64, u64::saturating_add)
}

/// The map's chart as SVG (a heatmap for two axes, lines for one).
pub fn chart_svg(map: &BoundaryMap) -> String {
    match chart_figure(map) {
        Figure::Grid(g) => chart::grid_svg(&g),
        Figure::Lines(l) => chart::line_svg(&l),
    }
}

/// The map's chart as a Vega-Lite spec with the chart rows (and their cell hashes) inline.
pub fn chart_vega(map: &BoundaryMap) -> Value {
    match chart_figure(map) {
        Figure::Grid(g) => chart::grid_vega(&g),
        Figure::Lines(l) => chart::line_vega(&l),
    }
}

enum Figure {
    Grid(chart::GridChart),
    Lines(chart::LineChart),
}

/// Builds the figure from `map.chart` only: every plotted number is a chart row's, which
/// `verify` binds to the kernel's cells (chart provenance).
fn chart_figure(map: &BoundaryMap) -> Figure {
    let data = &map.chart;
    let value_label = statistic_label(map.experiment.claim.as_ref(), &data.statistic);
    let direction = map.experiment.claim.as_ref().map_or("≥", Claim::relation);
    let subtitle = format!(
        "pack {} · claim in each cell: {value_label} {direction} {} · 95% CI and {} label permutations per cell, α = {}",
        map.pack.id,
        number_label(data.threshold),
        map.boundary.permutations,
        map.boundary.alpha
    );
    let x_axis = &map.boundary.axes[0];
    let captions = chart::Captions {
        title: map.boundary.title.clone(),
        subtitle,
        x_label: axis_label(x_axis.knob, x_axis.arm.as_deref()),
    };
    let x_ticks: Vec<String> = x_axis
        .values
        .iter()
        .map(|&v| tick_label(x_axis.knob, v))
        .collect();
    let x_index = |v: f64| x_axis.values.iter().position(|&x| x == v);
    match map.boundary.axes.get(1) {
        Some(y_axis) => {
            // Rows top to bottom: the largest value on top, as on a numeric y axis.
            let n_y = y_axis.values.len();
            let y_ticks: Vec<String> = y_axis
                .values
                .iter()
                .rev()
                .map(|&v| tick_label(y_axis.knob, v))
                .collect();
            let cells = data
                .rows
                .iter()
                .filter_map(|row| {
                    let x = x_index(row.x)?;
                    let y = y_axis.values.iter().position(|&v| Some(v) == row.y)?;
                    Some(chart::GridCell {
                        x,
                        y: n_y - 1 - y,
                        value: row.value,
                        ci: row.ci,
                        outcome: row.outcome,
                        cell_hash: row.cell_hash.clone(),
                    })
                })
                .collect();
            Figure::Grid(chart::GridChart {
                captions,
                x_ticks,
                y_label: axis_label(y_axis.knob, y_axis.arm.as_deref()),
                y_ticks,
                value_label,
                cells,
            })
        }
        None => {
            let mut series = vec![chart::Series {
                name: value_label.clone(),
                values: data.rows.iter().map(|r| r.value).collect(),
            }];
            for metric in &map.boundary.context {
                series.push(chart::Series {
                    name: metric_label(*metric).to_owned(),
                    values: data
                        .rows
                        .iter()
                        .map(|r| r.context.get(metric.as_str()).copied().flatten())
                        .collect(),
                });
            }
            Figure::Lines(chart::LineChart {
                captions,
                x_ticks,
                y_label: "value on held-out rows".to_owned(),
                series,
                band: Some(data.rows.iter().map(|r| r.ci).collect()),
                threshold: Some(("claim threshold".to_owned(), data.threshold)),
                outcomes: data.rows.iter().map(|r| r.outcome).collect(),
                cell_hashes: data.rows.iter().map(|r| r.cell_hash.clone()).collect(),
            })
        }
    }
}

/// A metric's name for people.
pub fn metric_label(metric: MetricName) -> &'static str {
    match metric {
        MetricName::RocAuc => "ROC AUC",
        MetricName::Accuracy => "accuracy",
        MetricName::BalancedAccuracy => "balanced accuracy",
        MetricName::MajorityBaselineAccuracy => "majority-baseline accuracy",
        MetricName::AccuracyLift => "accuracy lift",
    }
}

fn statistic_label(claim: Option<&Claim>, fallback: &str) -> String {
    match claim {
        Some(Claim::MetricGap {
            metric,
            higher,
            lower,
            ..
        }) => format!("{} gap ({higher} − {lower})", metric_label(*metric)),
        Some(
            Claim::MetricAtLeast { metric, arm, .. } | Claim::MetricAtMost { metric, arm, .. },
        ) => {
            format!("{} ({arm})", metric_label(*metric))
        }
        None => fallback.to_owned(),
    }
}

fn axis_label(knob: Knob, arm: Option<&str>) -> String {
    match knob {
        Knob::C => "C, inverse regularisation strength".to_owned(),
        Knob::TestEntityOverlap => format!(
            "share of test entities also in training ({} arm)",
            arm.unwrap_or("?")
        ),
        Knob::Prevalence => "prevalence: share of positive rows (fixture subsampled)".to_owned(),
        Knob::MaxIter => "max_iter: boosting iterations (trees)".to_owned(),
        Knob::MaxLeafNodes => "max_leaf_nodes: leaves per tree".to_owned(),
    }
}

fn tick_label(knob: Knob, value: f64) -> String {
    match knob {
        Knob::C | Knob::MaxIter | Knob::MaxLeafNodes => number_label(value),
        Knob::TestEntityOverlap | Knob::Prevalence => format!("{}%", number_label(value * 100.0)),
    }
}

/// Up to 4 decimals, trailing zeros dropped: 25 → "25", 2.5 → "2.5", 0.01 → "0.01".
fn number_label(value: f64) -> String {
    let text = format!("{value:.4}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".to_owned()
    } else {
        text.to_owned()
    }
}
