//! Argument parsing, file reading, printing and exit codes. No science here: every number
//! comes from the library.

/// `println!` that ignores a closed stdout (`counterlab verify … | head` must not panic).
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

mod args;
mod audit;
mod boundary;
mod capsule;
mod exit;
mod hash;
mod init;
mod metrics;
mod pack;
mod predict;
mod revision;
mod run;
mod select;
mod style;
mod transfer;
mod verify;

use std::path::Path;

use clap::{Parser, Subcommand};

use counterlab::prediction::{Prediction, MAX_PREDICTION_BYTES};
use counterlab::words::Budget;

pub(crate) use args::{FixtureArgs, PacksArgs, Roles, ThreadArgs};
pub(crate) use exit::{Exit, Outcome, EXIT_DATA, EXIT_OK, EXIT_USAGE};

#[derive(Parser)]
#[command(
    name = "counterlab",
    version,
    about = "Deterministic kernel and verifier for ML evaluation-design experiments"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// One `…Args` per command, in the command's file. A command's description is the doc
// comment of its variant here, or of its `…Args` when the variant has none.
#[derive(Subcommand)]
enum Command {
    /// Run an experiment on its pack and write the payload (results + hashes).
    Run(run::RunArgs),
    /// Verify a payload: recompute, mutate, and answer SUPPORTS / INCONCLUSIVE / REJECTED.
    ///
    /// Exit codes: 0 SUPPORTS, 1 REJECTED, 3 INCONCLUSIVE, 2 usage or I/O error
    /// (with --observe: 0 for every verdict).
    Verify(verify::VerifyArgs),
    /// Check a revision chain (BEFORE.json AFTER.json [AFTER2.json]): at most two
    /// revisions, each only after a REJECTED verdict, changing the evaluation design and
    /// never the claim (renames are not changes), eligible under the selector's rules;
    /// then the last payload's verification as one of a family of tests (alpha/(r + 1)).
    ///
    /// Exit codes: 0 SUPPORTS, 1 REJECTED, 3 INCONCLUSIVE, 2 usage or I/O error.
    VerifyRevision(revision::RevisionArgs),
    /// Compute a pack's boundary map: the claim's outcome in every cell of its [boundary] sweep.
    Boundary(boundary::BoundaryArgs),
    /// Score a choice in a pack's transfer task with the fixed evaluator.
    ///
    /// Exit codes: 0 correct, 1 incorrect, 2 usage error (e.g. an unknown choice id).
    Transfer(transfer::TransferArgs),
    /// Accuracy, ROC AUC with DeLong CI and counts for any predictions CSV.
    Metrics(metrics::MetricsArgs),
    /// The canonical hash of a fixture, experiment, payload or report.
    Hash(hash::HashArgs),
    /// Make a pack folder from your CSV: pack.toml with the fixture's hash, every usable
    /// column as a feature (text columns categorical), and starter experiments.
    Init(init::InitArgs),
    Predict(predict::PredictArgs),
    Select(select::SelectArgs),
    /// Build a Proof Capsule (counterlab.capsule/1); `counterlab verify CAPSULE.json`
    /// re-derives every link.
    Capsule {
        #[command(subcommand)]
        action: capsule::CapsuleAction,
    },
    /// Check your own train/test split for leakage, no pack needed: shared entities, test
    /// rows seen in training, temporal overlap, duplicate rows, and how much the split
    /// inflates ROC AUC against an entity-grouped split.
    ///
    /// Exit codes: 0 no leak found, 1 leak found, 2 usage, I/O or data error.
    Audit(audit::AuditArgs),
    /// Check or re-hash a pack folder.
    Pack {
        #[command(subcommand)]
        action: pack::PackAction,
    },
    /// The packs found, with fixture hashes.
    Packs(pack::ListArgs),
}

impl Command {
    fn run(&self) -> Outcome {
        match self {
            Command::Run(args) => run::command(args),
            Command::Verify(args) => verify::command(args),
            Command::VerifyRevision(args) => revision::command(args),
            Command::Boundary(args) => boundary::command(args),
            Command::Transfer(args) => transfer::command(args),
            Command::Metrics(args) => metrics::command(args),
            Command::Hash(args) => hash::command(args),
            Command::Init(args) => init::command(args),
            Command::Predict(args) => predict::command(args),
            Command::Select(args) => select::command(args),
            Command::Capsule { action } => capsule::command(action),
            Command::Audit(args) => audit::command(args),
            Command::Pack { action } => pack::command(action),
            Command::Packs(args) => pack::list(args),
        }
    }
}

/// Runs the command line and returns the exit code.
pub(crate) fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { EXIT_USAGE } else { EXIT_OK };
        }
    };
    cli.command.run().unwrap_or_else(Exit::print)
}

/// Reads an input file within `budget` bytes of the budget `kind` (regular files only: a
/// FIFO, a device or a folder is refused before anything is read); over it, the error
/// names the flag that raises it and the file's size.
fn read_input(path: &Path, budget: u64, kind: Budget) -> Result<Vec<u8>, Exit> {
    Ok(counterlab::input::read_within(path, budget, kind)?)
}

/// The prediction at `path`.
fn read_prediction(path: &Path) -> Result<Prediction, Exit> {
    let bytes = read_input(path, MAX_PREDICTION_BYTES, Budget::Fixed("a prediction"))?;
    Ok(Prediction::from_json(&bytes)?)
}

/// Writes a file the command line named (`--out`, `--svg`, `--vega`, …); a failure is a
/// usage error naming the file.
fn write_file(path: &Path, contents: impl AsRef<[u8]>) -> Result<(), Exit> {
    std::fs::write(path, contents).map_err(|e| Exit::usage(&format!("{}: {e}", path.display())))
}

/// Prints a `--json` answer: the value as serde_json writes it, indented.
fn print_json(value: &impl serde::Serialize) {
    outln!(
        "{}",
        serde_json::to_string_pretty(value).expect("a JSON value encodes")
    );
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// clap's own checks of the command line (no two flags clash, every `conflicts_with`
    /// and `required_unless_present` names a flag), which a release build skips.
    #[test]
    fn the_command_line_is_consistent() {
        super::Cli::command().debug_assert();
    }
}
