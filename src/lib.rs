//! # counterlab
//!
//! The deterministic scientific kernel and the frozen verifier for machine-learning
//! evaluation-design experiments over small tabular Subject Packs.
//!
//! ```no_run
//! # fn main() -> Result<(), counterlab::Error> {
//! let packs = counterlab::Packs::discover("fixtures/packs")?;
//! let bytes = std::fs::read("fixtures/packs/entity-leakage/experiments/random-vs-grouped.json")
//!     .expect("readable");
//! let experiment = counterlab::Experiment::from_json(&bytes)?;
//! let payload = counterlab::run(&packs, &experiment)?;
//! println!("{}", payload.result_hash);
//! # Ok(())
//! # }
//! ```
//!
//! Every result is a pure function of the pack's canonical table and the experiment:
//! bit-identical for any row order of the fixture file, any thread count and any CPU
//! (see `docs/DETERMINISM.md`).
//!
//! The verifier takes payload bytes and always answers with a [`Report`], whose verdict
//! is data (`docs/VERDICTS.md`):
//!
//! ```no_run
//! # fn main() -> Result<(), counterlab::Error> {
//! let packs = counterlab::Packs::discover("fixtures/packs")?;
//! let bytes = std::fs::read("fixtures/packs/entity-leakage/payloads/random-inflates-auc.json")
//!     .expect("readable");
//! let report = counterlab::verify(&bytes, &packs, &counterlab::VerifyOptions::default());
//! match report.verdict() {
//!     counterlab::Verdict::Supports(_) => println!("SUPPORTS {}", report.report_hash()),
//!     counterlab::Verdict::Inconclusive { reasons } => println!("INCONCLUSIVE: {reasons:?}"),
//!     counterlab::Verdict::Rejected { counterexamples } => println!("REJECTED: {counterexamples:?}"),
//! }
//! # Ok(())
//! # }
//! ```
//!
//! Beside them: boundary maps ([`boundary`]), the transfer evaluator ([`transfer`]), the
//! published schemas ([`schema`]), the canonical encoding and hashes ([`canon`]), the
//! charts ([`chart`]), and for a user's own data: a pack from a CSV ([`init`]), what
//! changes a pack's meaning ([`pack::check`]) and the audit of a user's split ([`audit`]).
//!
//! Front ends (the CLI, and the Python package in `python/`) share their entries here, so
//! that both give the same bytes: [`document::verify_document`] verifies whatever document
//! it is given (payload, boundary map, capsule) with the packs it names, and
//! [`metrics_report`] computes the metrics of any scored rows.

pub mod arm;
pub mod audit;
pub mod boundary;
pub mod budget;
pub mod canon;
pub mod capsule;
pub mod chart;
pub mod csv_input;
pub mod design;
pub mod document;
pub mod entity_key;
pub mod error;
pub mod experiment;
pub mod init;
pub mod input;
pub mod json;
pub mod json_path;
pub mod metrics;
pub mod metrics_report;
pub mod model;
pub mod model_family;
pub mod pack;
pub mod pack_folder;
pub mod parallel;
pub mod prediction;
pub mod prepare;
pub mod revision;
pub mod rng;
pub mod run;
pub mod schema;
pub mod select;
pub mod split;
pub mod stats;
pub mod suspect;
pub mod table;
pub mod transfer;
pub mod verify;
pub mod words;
#[cfg(test)]
mod work_counter;

pub use error::{Error, ErrorKind, Result};
pub use experiment::Experiment;
pub use json_path::JsonPath;
pub use pack::{Pack, Packs};
pub use run::{run, run_with, Payload, RunOptions};
pub use verify::{verify, Report, Verdict, VerifyOptions};
