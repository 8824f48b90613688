//! The boundary map pipeline (`counterlab.boundary/1`), stage by stage: structure, the
//! supported case (the pack's `[boundary]` sweep), integrity (the spec must be the pack's,
//! the cell and map hashes the canonical hashes of what is recorded), the recompute (every
//! cell bit for bit), then chart provenance: the chart's rows must be exactly what the
//! kernel derives from its own cells, so a plotted number that does not come from the
//! kernel is REJECTED with the cell as witness.

use serde_json::{json, Value};

use super::checks::{CheckId, MAP_CHECKS};
use super::diff::{differences, to_counterexamples, Difference};
use super::structure::{deserialize, expect_format};
use super::{experiment_error_at, Counterexample, Verification};
use crate::boundary::{self, BoundaryMap, Cell, ChartData, BOUNDARY_FORMAT};
use crate::budget::design_bytes;
use crate::canon::{self, HashKind};
use crate::experiment::Experiment;
use crate::json_path::JsonPath;
use crate::pack::{BoundarySpec, Pack, Packs};
use crate::schema::{Schema, Violation};

/// The checks of a boundary-map verification, in report order.
pub const BOUNDARY_CHECK_IDS: [&str; 14] = super::checks::names(MAP_CHECKS);

/// What a map is verified against: the verifier's pack, its `[boundary]` sweep and the
/// sweep's registered experiment (the recorded spec and experiment may be anything).
struct Sweep<'p> {
    pack: &'p Pack,
    spec: BoundarySpec,
    experiment: Experiment,
}

impl Verification<'_> {
    /// The map pipeline, after the shared stages of `read.rs`.
    pub(super) fn verify_map(&mut self, value: &Value, packs: &Packs) {
        if !self.kernel_supported(value) || !self.matches_schema(value, Schema::boundary()) {
            return;
        }
        let Some(map) = self.typed(value, parse_map) else {
            return;
        };
        let Some(sweep) = self.sweep(packs, &map) else {
            return;
        };
        let before = [
            CheckId::BudgetFixture,
            CheckId::BudgetWork,
            CheckId::BoundarySpec,
        ];
        if self.recorded_on_retired_fixture(&map.pack.fixture_blake3, sweep.pack, "map", &before) {
            // The map's own hashes need no fixture: a tampered map is still REJECTED.
            self.check_map_hashes(value, &map);
            return;
        }
        if !self.fixture_in_budget(sweep.pack) {
            return;
        }
        let in_budget = self.sweep_in_budget(&sweep);
        self.check_spec(&map, &sweep);
        self.check_fixture_hash(&map.pack.fixture_blake3, sweep.pack, "map");
        self.check_manifest_hash(&map.pack.manifest_hash, sweep.pack, "map");
        self.check_map_hashes(value, &map);
        let recomputed = self.recompute_cells(value, &sweep, in_budget);
        let cells = recomputed.as_ref().map_or(&map.cells, |m| &m.cells);
        self.chart_provenance(value, &sweep, cells);
    }

    /// Stage `pack.supported`: the verifier's pack with its `[boundary]` sweep and the
    /// sweep's experiment; None (unverifiable, an unsupported case) without them.
    fn sweep<'p>(&mut self, packs: &'p Packs, map: &BoundaryMap) -> Option<Sweep<'p>> {
        let pack = self.supported_pack(packs, &map.pack.id)?;
        let Some(spec) = pack.manifest().boundary.clone() else {
            self.unverifiable(
                CheckId::PackSupported,
                format!(
                    "unsupported case: pack {:?} declares no [boundary] sweep",
                    map.pack.id
                ),
            );
            return None;
        };
        let experiment = match Experiment::registered(pack, &spec.experiment) {
            Ok(e) => e,
            Err(e) => {
                self.unverifiable(
                    CheckId::PackSupported,
                    format!("unsupported case: the pack's boundary experiment: {e}"),
                );
                return None;
            }
        };
        self.pass(CheckId::PackSupported);
        Some(Sweep {
            pack,
            spec,
            experiment,
        })
    }

    /// `budget.work` of the pack's sweep (the recorded one may be anything). Cells may run
    /// side by side, each with its own designs: bounded by every cell's, a count that does
    /// not depend on the thread count (so neither does the verdict).
    fn sweep_in_budget(&mut self, sweep: &Sweep) -> bool {
        let table = sweep.pack.table();
        let cells = sweep
            .spec
            .axes
            .iter()
            .map(|a| a.values.len() as u64)
            .product::<u64>();
        self.work_in_budget(
            sweep.pack,
            boundary::work_units(&sweep.spec, &sweep.experiment, table),
            design_bytes(&sweep.experiment, table).saturating_mul(cells),
        )
    }

    /// `boundary.spec`: the recorded spec and experiment are the pack's own.
    fn check_spec(&mut self, map: &BoundaryMap, sweep: &Sweep) {
        let mut found = differences(
            JsonPath::field("boundary"),
            &canon::to_value(&map.boundary).expect("a parsed spec encodes"),
            &canon::to_value(&sweep.spec).expect("a spec encodes"),
        );
        found.extend(differences(
            JsonPath::field("experiment"),
            &canon::to_value(&map.experiment).expect("a parsed experiment encodes"),
            &canon::to_value(&sweep.experiment).expect("an experiment encodes"),
        ));
        self.pass_unless(
            CheckId::BoundarySpec,
            to_counterexamples(CheckId::BoundarySpec, found),
            |total| {
                format!(
                    "{total} value(s) differ from the pack's [boundary] sweep and its experiment"
                )
            },
        );
    }

    /// `boundary.cell_hash`, `boundary.map_hash`: the recorded hashes are those of what is
    /// recorded (raw JSON, like `result.hash`); they need no fixture.
    fn check_map_hashes(&mut self, value: &Value, map: &BoundaryMap) {
        let recorded_cells = value["cells"].as_array().cloned().unwrap_or_default();
        let mut hash_ces = Vec::new();
        for (i, cell) in recorded_cells.iter().enumerate() {
            let mut without = cell.clone();
            if let Value::Object(m) = &mut without {
                m.remove("cell_hash");
            }
            let expected = canon::hash_value(HashKind::BoundaryCell, &without);
            if cell["cell_hash"] != json!(expected) {
                hash_ces.push(Counterexample::new(
                    CheckId::BoundaryCellHash,
                    cell["cell_hash"].clone(),
                    json!(expected),
                    json!({ "path": JsonPath::field("cells").index(i).key("cell_hash"), "cell": i, "axes": cell["axes"] }),
                ));
            }
        }
        self.pass_unless(CheckId::BoundaryCellHash, hash_ces, |total| {
            format!("{total} cell hash(es) are not the canonical hash of their cell")
        });
        let recorded_map_hash = canon::hash_value(
            HashKind::BoundaryMap,
            &json!({
                "pack": value["pack"],
                "boundary": value["boundary"],
                "experiment": value["experiment"],
                "cell_hashes": recorded_cells.iter().map(|c| c["cell_hash"].clone()).collect::<Vec<_>>(),
            }),
        );
        self.check_recorded_hash(
            CheckId::BoundaryMapHash,
            &map.map_hash,
            &recorded_map_hash,
            &JsonPath::field("map_hash"),
            "map_hash is not the canonical hash of the recorded pack, spec, experiment and cell hashes",
        );
    }

    /// Stage `recompute.equal`: every cell recomputed with the pack's spec (cells, and the
    /// work inside each, in parallel) and compared with the recorded ones. Skipped when
    /// the map is already rejected (recomputing is the expensive part and cannot change a
    /// REJECTED verdict) or over the work budget.
    fn recompute_cells(
        &mut self,
        value: &Value,
        sweep: &Sweep,
        in_budget: bool,
    ) -> Option<BoundaryMap> {
        if self.failed() {
            self.skip(
                CheckId::RecomputeEqual,
                "not run: the map is already rejected",
            );
            return None;
        }
        if !in_budget {
            self.skip(
                CheckId::RecomputeEqual,
                "not run: over the work budget (see budget.work)",
            );
            return None;
        }
        let (pack, threads) = (sweep.pack, self.options.threads);
        let ours = match boundary::compute_with(
            pack,
            pack.table(),
            &sweep.spec,
            &sweep.experiment,
            threads,
        ) {
            Ok(m) => m,
            Err(e) => {
                self.fail(
                    CheckId::RecomputeEqual,
                    format!("the kernel could not compute the map: {e}"),
                    Vec::new(),
                );
                return None;
            }
        };
        let mut found = differences(
            JsonPath::field("cells"),
            &value["cells"],
            &canon::to_value(&ours.cells).expect("kernel cells encode"),
        );
        // A cell's hash differs whenever anything in it does: witness the substantive
        // values first, the derived hashes last.
        found.sort_by_key(|d| is_cell_hash(&d.path));
        self.recomputed_equal(found);
        Some(ours)
    }

    /// Stage `chart.provenance`: the chart is exactly what the kernel derives from `cells`
    /// (the recomputed ones; the recorded ones when recomputation was not possible).
    fn chart_provenance(&mut self, value: &Value, sweep: &Sweep, cells: &[Cell]) {
        let chart = match boundary::chart_data(&sweep.spec, &sweep.experiment, cells) {
            Ok(chart) => chart,
            Err(misshapen) => {
                // Only recorded cells can lack a knob; no chart can be derived from them.
                let knobs: Vec<&str> = sweep.spec.axes.iter().map(|a| a.knob.as_str()).collect();
                let ces = misshapen
                    .into_iter()
                    .take(3)
                    .map(|i| {
                        Counterexample::new(
                            CheckId::ChartProvenance,
                            json!(cells[i].axes.keys().collect::<Vec<_>>()),
                            json!(knobs),
                            json!({ "path": JsonPath::field("cells").index(i).key("axes"), "cell": i }),
                        )
                    })
                    .collect();
                self.fail(
                    CheckId::ChartProvenance,
                    "recorded cells do not carry the sweep's knobs: no chart can be derived from them",
                    ces,
                );
                return;
            }
        };
        let ces = differences(
            JsonPath::field("chart"),
            &value["chart"],
            &canon::to_value(&chart).expect("chart data encodes"),
        )
        .into_iter()
        .map(|d| chart_counterexample(d, &chart, cells))
        .collect();
        self.pass_unless(CheckId::ChartProvenance, ces, |total| {
            format!("{total} chart value(s) do not come from the kernel's cells")
        });
    }
}

/// Deserialises the map with JSON paths in errors, then checks what types cannot.
fn parse_map(value: &Value) -> Result<BoundaryMap, Violation> {
    let map: BoundaryMap = deserialize(value)?;
    expect_format(&map.format, BOUNDARY_FORMAT)?;
    if let Err(e) = map.experiment.check_structure() {
        return Err(experiment_error_at(&e));
    }
    Ok(map)
}

/// A chart value that is not the kernel's, witnessed by the cell its row plots (when the
/// difference is inside a row).
fn chart_counterexample(d: Difference, chart: &ChartData, cells: &[Cell]) -> Counterexample {
    let cell = chart_row_index(&d.path)
        .and_then(|row| chart.rows.get(row))
        .map(|row| (row.cell, row.cell_hash.clone()));
    let witness = match cell {
        Some((index, hash)) => json!({
            "path": d.path,
            "cell": index,
            "cell_hash": hash,
            "axes": cells.get(index).map(|c| c.axes.clone()),
        }),
        None => json!({ "path": d.path }),
    };
    Counterexample::new(CheckId::ChartProvenance, d.recorded, d.computed, witness)
}

// The two readings below are of the path as the report writes it, as they always were:
// a recorded key that holds `.` or `[` (which the text form writes ambiguously) reads as
// its text does, so these witnesses and this order stay what reports have always shown.

/// `$.cells[2].cell_hash` (a path whose text ends in `.cell_hash`).
fn is_cell_hash(path: &JsonPath) -> bool {
    path.to_string().ends_with(".cell_hash")
}

/// `$.chart.rows[3].value` → 3.
fn chart_row_index(path: &JsonPath) -> Option<usize> {
    let text = path.to_string();
    let rest = text.strip_prefix("$.chart.rows[")?;
    rest[..rest.find(']')?].parse().ok()
}
