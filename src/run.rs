//! Running an experiment: the payload, with its canonical result hash, of the arms that
//! [`crate::arm`] prepares and evaluates.
//!
//! Arms run on worker threads, but each task writes only its own slot and every result is
//! a pure function of (canonical table, experiment), so the payload is bit-identical for
//! any thread count.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::canon::{self, HashKind};
use crate::error::{Error, Result};
use crate::experiment::Experiment;
use crate::pack::{Pack, Packs};
use crate::table::Table;

pub use crate::arm::{
    arm_predictions, compute_metrics, design_matrix, fit_failure, AblationResult, ArmPredictions,
    ArmResult, DeLongSummary, ModelSummary, RepeatResult, Scores,
};
pub use crate::parallel::{parallel_map, MAX_THREADS};

/// The format tag of a payload.
pub const PAYLOAD_FORMAT: &str = "counterlab.payload/1";

/// The kernel's name in payloads.
pub const KERNEL_NAME: &str = "counterlab";

/// The kernel's version in payloads: it changes whenever a result's bits may change, and
/// `verify` answers a payload of another version INCONCLUSIVE (docs/DETERMINISM.md lists
/// what each version computes).
pub const KERNEL_VERSION: &str = "4";

/// How to run (never changes a result).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOptions {
    /// Worker threads (≥ 1).
    pub threads: usize,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            threads: std::thread::available_parallelism().map_or(1, usize::from),
        }
    }
}

/// A recorded experiment with its results: what `counterlab run` writes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Payload {
    /// Always `counterlab.payload/1`.
    pub format: String,
    /// Which kernel computed the results.
    pub kernel: KernelInfo,
    /// The pack and its fixture hash.
    pub pack: PackRef,
    /// The experiment, as run.
    pub experiment: Experiment,
    /// Per arm name, the arm's results.
    pub results: BTreeMap<String, ArmResult>,
    /// The experiment's claim, or null.
    pub claim: Option<crate::experiment::Claim>,
    /// Canonical hash (context `counterlab 2026-11 result v1`) of `results`.
    pub result_hash: String,
}

/// The kernel that computed a payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KernelInfo {
    /// `counterlab`.
    pub name: String,
    /// [`KERNEL_VERSION`] of the kernel that computed the results.
    pub version: String,
}

impl KernelInfo {
    /// This kernel: `counterlab` at [`KERNEL_VERSION`].
    pub fn this() -> KernelInfo {
        KernelInfo {
            name: KERNEL_NAME.to_owned(),
            version: KERNEL_VERSION.to_owned(),
        }
    }
}

/// The pack a payload was computed on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PackRef {
    /// Pack id.
    pub id: String,
    /// blake3 of the fixture file.
    pub fixture_blake3: String,
    /// Canonical hash of the manifest's meaning ([`Manifest::meaning_hash`]): the same
    /// bytes read with another label, positive class or feature list are another pack.
    ///
    /// [`Manifest::meaning_hash`]: crate::pack::Manifest::meaning_hash
    pub manifest_hash: String,
}

impl PackRef {
    /// The pack's id, (checked) fixture hash and manifest hash.
    pub fn of(pack: &Pack) -> PackRef {
        PackRef {
            id: pack.id().to_owned(),
            fixture_blake3: pack.fixture_hash().to_owned(),
            manifest_hash: pack.manifest().meaning_hash(),
        }
    }
}

/// Runs an experiment on its pack (found among `packs`).
pub fn run(packs: &Packs, experiment: &Experiment) -> Result<Payload> {
    run_with(
        packs.get(&experiment.pack)?,
        experiment,
        &RunOptions::default(),
    )
}

/// Runs an experiment on a given pack with options.
pub fn run_with(pack: &Pack, experiment: &Experiment, options: &RunOptions) -> Result<Payload> {
    run_on_table(pack, pack.table(), experiment, options)
}

/// Runs an experiment on `table` (the pack's own, or a mutated copy of it) and builds the
/// payload. The pack supplies the manifest and the fixture hash.
pub fn run_on_table(
    pack: &Pack,
    table: &Table,
    experiment: &Experiment,
    options: &RunOptions,
) -> Result<Payload> {
    let results = compute_results(pack, table, experiment, options)?;
    let result_hash = result_hash(&results)?;
    Ok(Payload {
        format: PAYLOAD_FORMAT.to_owned(),
        kernel: KernelInfo::this(),
        pack: PackRef::of(pack),
        experiment: experiment.clone(),
        results,
        claim: experiment.claim.clone(),
        result_hash,
    })
}

/// The canonical hash of a payload's `results`.
pub fn result_hash(results: &BTreeMap<String, ArmResult>) -> Result<String> {
    canon::hash_serialize(HashKind::Result, results)
}

/// Computes every arm's results (checks the experiment first).
pub fn compute_results(
    pack: &Pack,
    table: &Table,
    experiment: &Experiment,
    options: &RunOptions,
) -> Result<BTreeMap<String, ArmResult>> {
    Ok(crate::arm::evaluate_once(pack, table, experiment, options.threads)?.results)
}

impl Payload {
    /// The payload as pretty JSON text (what `counterlab run` writes).
    pub fn to_json_pretty(&self) -> Result<String> {
        let value = canon::to_value(self)?;
        serde_json::to_string_pretty(&value)
            .map_err(|e| Error::invalid(format!("cannot encode payload: {e}")))
    }
}
