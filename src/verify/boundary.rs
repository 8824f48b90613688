//! Verifying a boundary map (`counterlab.boundary/1`): the spec must be the pack's, every
//! cell is recomputed by the kernel bit for bit, the cell and map hashes must be the
//! canonical hashes of what is recorded, and the chart's rows must be exactly what the
//! kernel derives from its own cells (chart provenance: a plotted number that does not
//! come from the kernel is REJECTED with the cell as witness).

use serde_json::{json, Value};

use super::checks::{CheckId, MAP_CHECKS};
use super::{diff_values, to_counterexamples, Counterexample, Verification};
use crate::boundary::{self, BoundaryMap, BOUNDARY_FORMAT};
use crate::canon::{self, HashKind};
use crate::json_path::JsonPath;
use crate::pack::Packs;
use crate::schema::Violation;

/// The checks of a boundary-map verification, in report order.
pub const BOUNDARY_CHECK_IDS: [&str; 14] = super::checks::names(MAP_CHECKS);

impl Verification<'_> {
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
                    json!({ "path": format!("$.cells[{i}].cell_hash"), "cell": i, "axes": cell["axes"] }),
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
            "$.map_hash",
            "map_hash is not the canonical hash of the recorded pack, spec, experiment and cell hashes",
        );
    }

    /// Runs every boundary check after `payload.parse` and `kernel.version` passed.
    pub(super) fn run_boundary(&mut self, value: &Value, packs: &Packs) {
        let o = self.options;
        if !self.matches_schema(value, crate::schema::Schema::boundary()) {
            return;
        }
        let map: BoundaryMap = match serde_path_to_error::deserialize(value) {
            Ok(m) => m,
            Err(e) => {
                let violation = Violation::new(JsonPath::from(e.path()), e.inner().to_string());
                self.schema_failure(value, violation);
                return;
            }
        };
        if map.format != BOUNDARY_FORMAT {
            let message = format!("expected {BOUNDARY_FORMAT:?}, found {:?}", map.format);
            self.schema_failure(value, Violation::new(JsonPath::field("format"), message));
            return;
        }
        if let Err(e) = map.experiment.check_structure() {
            self.schema_failure(value, super::experiment_error_at(&e));
            return;
        }
        self.pass(CheckId::PayloadSchema);

        let Some(pack) = self.supported_pack(packs, &map.pack.id) else {
            return;
        };
        let Some(spec) = pack.manifest().boundary.clone() else {
            self.unverifiable(
                CheckId::PackSupported,
                format!(
                    "unsupported case: pack {:?} declares no [boundary] sweep",
                    map.pack.id
                ),
            );
            return;
        };
        let experiment = match crate::Experiment::registered(pack, &spec.experiment) {
            Ok(e) => e,
            Err(e) => {
                self.unverifiable(
                    CheckId::PackSupported,
                    format!("unsupported case: the pack's boundary experiment: {e}"),
                );
                return;
            }
        };
        self.pass(CheckId::PackSupported);
        if self.recorded_on_retired_fixture(
            &map.pack.fixture_blake3,
            pack,
            "map",
            &[
                CheckId::BudgetFixture,
                CheckId::BudgetWork,
                CheckId::BoundarySpec,
            ],
        ) {
            // The map's own hashes need no fixture: a tampered map is still REJECTED.
            self.check_map_hashes(value, &map);
            return;
        }
        let table = pack.table();
        if !self.fixture_in_budget(pack) {
            return;
        }
        // The pack's spec decides the work (the recorded one may be anything).
        // Cells may run side by side, each with its own designs: bounded by every cell's,
        // a count that does not depend on the thread count (so neither does the verdict).
        let cells = spec
            .axes
            .iter()
            .map(|a| a.values.len() as u64)
            .product::<u64>();
        let in_budget = self.work_in_budget(
            boundary::work_units(&spec, &experiment, table),
            crate::budget::design_bytes(&experiment, table).saturating_mul(cells),
        );

        // The recorded spec and experiment must be the pack's own.
        let mut spec_differences = Vec::new();
        let pairs = [
            (
                "$.boundary",
                canon::to_value(&map.boundary),
                canon::to_value(&spec),
            ),
            (
                "$.experiment",
                canon::to_value(&map.experiment),
                canon::to_value(&experiment),
            ),
        ];
        for (path, recorded, ours) in pairs {
            diff_values(
                path,
                &recorded.expect("a parsed spec encodes"),
                &ours.expect("a spec encodes"),
                &mut spec_differences,
            );
        }
        self.pass_unless(
            CheckId::BoundarySpec,
            to_counterexamples(CheckId::BoundarySpec, spec_differences),
            |total| {
                format!(
                    "{total} value(s) differ from the pack's [boundary] sweep and its experiment"
                )
            },
        );

        self.check_fixture_hash(&map.pack.fixture_blake3, pack, "map");
        self.check_manifest_hash(&map.pack.manifest_hash, pack, "map");
        self.check_map_hashes(value, &map);

        // Recompute every cell with the pack's spec (cells, and the work inside each, in parallel).
        let recomputed = if self.failed() {
            // Recomputing is the expensive part and cannot change a REJECTED verdict.
            self.skip(
                CheckId::RecomputeEqual,
                "not run: the map is already rejected",
            );
            None
        } else if !in_budget {
            self.skip(
                CheckId::RecomputeEqual,
                "not run: over the work budget (see budget.work)",
            );
            None
        } else {
            match boundary::compute_with(pack, table, &spec, &experiment, o.threads) {
                Ok(m) => Some(m),
                Err(e) => {
                    self.fail(
                        CheckId::RecomputeEqual,
                        format!("the kernel could not compute the map: {e}"),
                        Vec::new(),
                    );
                    None
                }
            }
        };
        if let Some(ours) = &recomputed {
            let mut differences = Vec::new();
            diff_values(
                "$.cells",
                &value["cells"],
                &canon::to_value(&ours.cells).expect("kernel cells encode"),
                &mut differences,
            );
            // A cell's hash differs whenever anything in it does: witness the substantive
            // values first, the derived hashes last.
            differences.sort_by_key(|(path, _, _)| path.ends_with(".cell_hash"));
            self.pass_unless(
                CheckId::RecomputeEqual,
                to_counterexamples(CheckId::RecomputeEqual, differences),
                |total| format!("{total} recorded value(s) differ from the kernel's"),
            );
        }

        // Chart provenance: the chart must be exactly what the kernel derives from its cells
        // (the recomputed ones; the recorded ones when recomputation was not possible).
        let cells = recomputed.as_ref().map_or(&map.cells, |m| &m.cells);
        let expected_chart = match boundary::chart_data(&spec, &experiment, cells) {
            Ok(chart) => chart,
            Err(misshapen) => {
                // Only recorded cells can lack a knob; no chart can be derived from them.
                let knobs: Vec<&str> = spec.axes.iter().map(|a| a.knob.as_str()).collect();
                let ces = misshapen
                    .into_iter()
                    .take(3)
                    .map(|i| {
                        Counterexample::new(
                            CheckId::ChartProvenance,
                            json!(cells[i].axes.keys().collect::<Vec<_>>()),
                            json!(knobs),
                            json!({ "path": format!("$.cells[{i}].axes"), "cell": i }),
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
        let mut differences = Vec::new();
        diff_values(
            "$.chart",
            &value["chart"],
            &canon::to_value(&expected_chart).expect("chart data encodes"),
            &mut differences,
        );
        let ces = differences
            .into_iter()
            .map(|(path, observed, expected)| {
                let cell = chart_row_index(&path)
                    .and_then(|row| expected_chart.rows.get(row))
                    .map(|row| (row.cell, row.cell_hash.clone()));
                let witness = match cell {
                    Some((index, hash)) => json!({
                        "path": path,
                        "cell": index,
                        "cell_hash": hash,
                        "axes": cells.get(index).map(|c| c.axes.clone()),
                    }),
                    None => json!({ "path": path }),
                };
                Counterexample::new(CheckId::ChartProvenance, observed, expected, witness)
            })
            .collect();
        self.pass_unless(CheckId::ChartProvenance, ces, |total| {
            format!("{total} chart value(s) do not come from the kernel's cells")
        });
    }
}

/// `$.chart.rows[3].value` → 3.
fn chart_row_index(path: &str) -> Option<usize> {
    let rest = path.strip_prefix("$.chart.rows[")?;
    rest[..rest.find(']')?].parse().ok()
}
