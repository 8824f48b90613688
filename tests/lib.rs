//! counterlab's integration tests: one binary, one module per area.

// Test modules share helpers with `pub`; the binary itself exports nothing.
#![allow(unreachable_pub, missing_docs)]

mod boundary;
mod budgets;
mod byod;
mod calibration;
mod canon;
mod capsule;
mod chart;
mod cli;
mod common;
mod cv;
mod cv_interval;
mod determinism;
mod docs;
mod errors;
mod gap_bounds;
mod gbdt;
mod guide;
mod hardening;
mod lookalike;
mod margin;
mod metrics;
mod model;
mod mutations;
mod packs;
mod parity;
mod payloads;
mod prediction;
mod revision;
mod robustness;
mod run;
mod schema;
mod select;
mod split;
mod suspects;
mod transfer;
mod verify;
