//! Argument parsing, file reading, printing and exit codes. No science here: every number
//! comes from the library.

/// `println!` that ignores a closed stdout (`counterlab verify … | head` must not panic).
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

mod audit;
mod boundary;
mod capsule;
mod hash;
mod init;
mod metrics;
mod pack;
mod predict;
mod revision;
mod select;
mod style;
mod transfer;
mod verify;

use std::path::{Path, PathBuf};

use clap::{Parser, Subcommand};

use counterlab::pack::LoadLimits;
use counterlab::prediction::{Prediction, MAX_PREDICTION_BYTES};
use counterlab::{Error, Experiment, Packs, RunOptions};

/// Exit code: success.
pub(crate) const EXIT_OK: i32 = 0;
/// Exit code: a data error (bad CSV, missing column, invalid experiment).
pub(crate) const EXIT_DATA: i32 = 1;
/// Exit code: usage or I/O error.
pub(crate) const EXIT_USAGE: i32 = 2;

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

#[derive(Subcommand)]
enum Command {
    /// Run an experiment on its pack and write the payload (results + hashes).
    Run {
        /// The experiment JSON.
        experiment: PathBuf,
        /// Where to write the payload (default: print it to stdout).
        #[arg(long)]
        out: Option<PathBuf>,
        #[command(flatten)]
        packs: PacksOption,
        /// Worker threads, at least 1 (results are identical for any number; more than 64
        /// are used as 64).
        #[arg(long)]
        threads: Option<usize>,
    },
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
    Boundary {
        /// The pack id.
        pack: String,
        #[command(flatten)]
        packs: PacksOption,
        /// Print the map as JSON (counterlab.boundary/1) instead of a table.
        #[arg(long)]
        json: bool,
        /// Write the map (counterlab.boundary/1) to this file; `counterlab verify` checks it.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Write the chart as SVG to this file.
        #[arg(long)]
        svg: Option<PathBuf>,
        /// Write the chart as a Vega-Lite JSON spec to this file.
        #[arg(long)]
        vega: Option<PathBuf>,
        /// Worker threads, at least 1 (cells are computed in parallel; the map is identical
        /// for any number; more than 64 are used as 64).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Score a choice in a pack's transfer task with the fixed evaluator.
    ///
    /// Exit codes: 0 correct, 1 incorrect, 2 usage error (e.g. an unknown choice id).
    Transfer {
        /// The pack id.
        pack: String,
        /// The id of the chosen answer.
        #[arg(long)]
        choice: String,
        #[command(flatten)]
        packs: PacksOption,
        /// Print the evaluation as JSON (counterlab.transfer/1).
        #[arg(long)]
        json: bool,
    },
    /// Accuracy, ROC AUC with DeLong CI and counts for any predictions CSV.
    Metrics {
        /// The predictions CSV (with a header row).
        predictions: PathBuf,
        /// The label column (text).
        #[arg(long)]
        label: String,
        /// The score column (finite numbers; higher = more positive).
        #[arg(long)]
        score: String,
        /// The label text of the positive class.
        #[arg(long, default_value = "1")]
        positive: String,
        /// Predicted positive ⇔ score ≥ threshold (any finite number).
        #[arg(long, default_value_t = 0.5)]
        threshold: f64,
        /// Largest predictions file read, in bytes, 1 to 4294967295 (default 67108864).
        #[arg(long, default_value_t = metrics::DEFAULT_MAX_BYTES)]
        max_bytes: u64,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// The entity column: rows of one entity (a patient, a customer) are a cluster, and
        /// the AUC's interval is Obuchowski's clustered one.
        #[arg(long)]
        entity: Option<String>,
        /// A second score column of the same rows: compared with --score by the paired
        /// DeLong test (pROC's roc.test(paired = TRUE)), clustered with --entity.
        #[arg(long)]
        score2: Option<String>,
        /// Read more than two label texts as --positive against all the others (without
        /// it, a third label text is an error: 1.0 beside 1 is not the same class).
        #[arg(long)]
        one_vs_rest: bool,
    },
    /// The canonical hash of a fixture, experiment, payload or report.
    Hash {
        /// The file.
        file: PathBuf,
    },
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
        action: PackAction,
    },
    /// The packs found, with fixture hashes.
    Packs {
        #[command(flatten)]
        packs: PacksOption,
    },
}

/// The roles of a user's CSV that `init` and `audit` are told.
#[derive(clap::Args)]
pub(crate) struct Roles {
    /// The entity column (a patient, a customer: rows of one entity are related).
    #[arg(long)]
    pub(crate) entity: String,
    /// The label column.
    #[arg(long)]
    pub(crate) label: String,
    /// The label text of the positive class.
    #[arg(long)]
    pub(crate) positive: String,
}

#[derive(Subcommand)]
enum PackAction {
    /// What can change the pack's meaning: label levels, entity ids that differ only in
    /// case, spaces or leading zeros, duplicate (entity, time) rows; rows per entity.
    ///
    /// Exit codes: 0 clean, 1 a problem found (or the pack does not load), 2 usage or I/O.
    Check {
        /// The pack folder.
        dir: PathBuf,
        /// Print JSON (counterlab.pack-check/1).
        #[arg(long)]
        json: bool,
    },
    /// Record the fixture's blake3 (and its categorical columns' levels) in pack.toml after
    /// an edit; comments and other keys are kept.
    Rehash {
        /// The pack folder.
        dir: PathBuf,
    },
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
    match cli.command {
        Command::Run {
            experiment,
            out,
            packs,
            threads,
        } => run(&experiment, out.as_deref(), packs.folder(), threads),
        Command::Verify(args) => verify::command(&args),
        Command::VerifyRevision(args) => revision::command(&args),
        Command::Metrics {
            predictions,
            label,
            score,
            positive,
            threshold,
            max_bytes,
            json,
            entity,
            score2,
            one_vs_rest,
        } => metrics::command(&metrics::MetricsArgs {
            path: &predictions,
            label: &label,
            score: &score,
            positive: &positive,
            threshold,
            max_bytes,
            json,
            entity: entity.as_deref(),
            score2: score2.as_deref(),
            one_vs_rest,
        }),
        Command::Boundary {
            pack,
            packs,
            json,
            out,
            svg,
            vega,
            threads,
        } => boundary::command(&boundary::BoundaryArgs {
            pack: &pack,
            packs: packs.folder(),
            json,
            out: out.as_deref(),
            svg: svg.as_deref(),
            vega: vega.as_deref(),
            threads,
        }),
        Command::Transfer {
            pack,
            choice,
            packs,
            json,
        } => transfer::command(&pack, &choice, packs.folder(), json),
        Command::Hash { file } => hash::command(&file),
        Command::Packs { packs } => list_packs(packs.folder()),
        Command::Init(args) => init::command(&args),
        Command::Predict(args) => predict::command(&args),
        Command::Select(args) => select::command(&args),
        Command::Capsule { action } => capsule::command(&action),
        Command::Audit(args) => audit::command(&args),
        Command::Pack { action } => match action {
            PackAction::Check { dir, json } => pack::check(&dir, json),
            PackAction::Rehash { dir } => pack::rehash(&dir),
        },
    }
}

/// Prints an error (terminal-safe: it may quote a file's cells; its own line breaks kept)
/// and returns its exit code.
pub(crate) fn fail(error: &Error) -> i32 {
    eprintln!("{} {}", style::error_tag(), style::error(error));
    if error.is_data_error() {
        EXIT_DATA
    } else {
        EXIT_USAGE
    }
}

/// [`fail`] with the file the error is about named first.
pub(crate) fn fail_at(path: &Path, error: &Error) -> i32 {
    eprintln!(
        "{} {}: {}",
        style::error_tag(),
        style::safe(&path.display().to_string()),
        style::error(error)
    );
    if error.is_data_error() {
        EXIT_DATA
    } else {
        EXIT_USAGE
    }
}

/// Prints a usage/I-O problem that is not a library error.
pub(crate) fn fail_usage(message: &str) -> i32 {
    eprintln!("{} {}", style::error_tag(), style::safe(message));
    EXIT_USAGE
}

/// The `--threads` option: at least 1 (the library uses at most
/// `counterlab::run::MAX_THREADS`), or every core when absent.
pub(crate) fn threads_option(threads: Option<usize>) -> Result<usize, i32> {
    match threads {
        Some(0) => Err(fail_usage("--threads must be at least 1")),
        Some(t) => Ok(t),
        None => Ok(RunOptions::default().threads),
    }
}

// `--packs`, shared by every command that reads packs. (A `//` comment: clap would copy a
// doc comment onto the description of a command that has none.)
#[derive(clap::Args, Debug)]
pub(crate) struct PacksOption {
    /// A folder of pack folders, or one pack folder (default: fixtures/packs of the
    /// working directory).
    #[arg(long = "packs", value_name = "PACKS")]
    folder: Option<PathBuf>,
}

impl PacksOption {
    /// The folder given, if any.
    pub(crate) fn folder(&self) -> Option<&Path> {
        self.folder.as_deref()
    }
}

/// Discovers the packs under `dir` (default `fixtures/packs`) and loads the fixtures of
/// the packs in `only` (every `pack.toml` is still read, and a broken sibling pack never
/// stops the command), or of every pack when `only` is `None`.
fn load_packs(dir: Option<&Path>, only: Option<&[&str]>) -> Result<Packs, Error> {
    load_packs_within(dir, only, &LoadLimits::default())
}

/// The one pack `id` (of `dir`, default `fixtures/packs`), its error printed.
fn load_pack(dir: Option<&Path>, id: &str) -> Result<counterlab::Pack, i32> {
    Packs::open_pack(dir, id, &LoadLimits::default()).map_err(|e| fail(&e))
}

/// [`load_packs`] with fixture budgets.
fn load_packs_within(
    dir: Option<&Path>,
    only: Option<&[&str]>,
    limits: &LoadLimits,
) -> Result<Packs, Error> {
    Packs::open_folder(dir, only, limits)
}

/// Reads an input file within `budget` bytes (regular files only: a FIFO, a device or a
/// folder is refused before anything is read).
fn read_input(path: &Path, budget: u64, flag: &str) -> Result<Vec<u8>, i32> {
    counterlab::input::read_within(path, budget, flag).map_err(|e| fail(&e))
}

/// The prediction at `path` (the argument `flag`), its error printed.
fn read_prediction(path: &Path, flag: &str) -> Result<Prediction, i32> {
    let bytes = read_input(path, MAX_PREDICTION_BYTES, flag)?;
    Prediction::from_json(&bytes).map_err(|e| fail(&e))
}

fn run(
    experiment_path: &Path,
    out: Option<&Path>,
    packs_dir: Option<&Path>,
    threads: Option<usize>,
) -> i32 {
    let bytes = match read_input(
        experiment_path,
        counterlab::experiment::MAX_EXPERIMENT_BYTES,
        "",
    ) {
        Ok(bytes) => bytes,
        Err(code) => return code,
    };
    let experiment = match Experiment::from_json(&bytes) {
        Ok(e) => e,
        Err(e) => return fail_at(experiment_path, &e),
    };
    let pack = match load_pack(packs_dir, &experiment.pack) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let pack = &pack;
    let options = match threads_option(threads) {
        Ok(threads) => RunOptions { threads },
        Err(code) => return code,
    };
    pack::print_problems(
        &counterlab::pack::check::Findings::of(pack.table(), &pack.manifest().data).problems(),
    );
    let payload = match counterlab::run_with(pack, &experiment, &options) {
        Ok(p) => p,
        Err(e) => return fail_at(experiment_path, &e),
    };
    let text = match payload.to_json_pretty() {
        Ok(t) => t,
        Err(e) => return fail(&e),
    };
    match out {
        None => {
            outln!("{text}");
            EXIT_OK
        }
        Some(path) => {
            if let Err(e) = std::fs::write(path, format!("{text}\n")) {
                return fail_usage(&format!("{}: {e}", path.display()));
            }
            print_run_summary(&payload);
            outln!("wrote {}", path.display());
            EXIT_OK
        }
    }
}

fn print_run_summary(payload: &counterlab::Payload) {
    outln!(
        "pack         {}  (fixture {})",
        payload.pack.id,
        &payload.pack.fixture_blake3[..16]
    );
    outln!("result_hash  {}", payload.result_hash);
    let metric_names: Vec<&str> = payload
        .experiment
        .metrics
        .iter()
        .map(|m| m.as_str())
        .collect();
    let mut header = format!(
        "{:<18} {:<15} {:>7} {:>7} {:>9}",
        "arm", "split", "train", "test", "overlap"
    );
    // Arm names come from the experiment: escaped before they reach the terminal.
    for name in &metric_names {
        header.push_str(&format!(" {:>w$}", name, w = name.len().max(9)));
    }
    outln!("{}", style::bold(&header));
    for arm in &payload.experiment.arms {
        let result = &payload.results[&arm.name];
        let mut line = format!(
            "{:<18} {:<15} {:>7} {:>7} {:>9}",
            style::safe(&arm.name),
            result.split.kind,
            result.split.train_rows,
            result.split.test_rows,
            result.overlap.entities
        );
        for name in &metric_names {
            let shown = match &result.metrics[*name] {
                counterlab::metrics::MetricValue::Value(v) => format!("{v:.4}"),
                counterlab::metrics::MetricValue::Undefined { .. } => "undefined".to_owned(),
            };
            line.push_str(&format!(" {:>w$}", shown, w = name.len().max(9)));
        }
        outln!("{line}");
    }
}

fn list_packs(dir: Option<&Path>) -> i32 {
    let packs = match load_packs(dir, None) {
        Ok(p) => p,
        Err(e) => return fail(&e),
    };
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
    EXIT_OK
}
