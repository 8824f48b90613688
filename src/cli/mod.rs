//! Argument parsing, file reading, printing and exit codes. No science here: every number
//! comes from the library.

/// `println!` that ignores a closed stdout (`counterlab verify … | head` must not panic).
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

mod boundary;
mod hash;
mod metrics;
mod style;
mod transfer;
mod verify;

use std::path::{Path, PathBuf};

use clap::{Parser, Subcommand};

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
        /// A folder of pack folders (default: fixtures/packs of the working directory).
        #[arg(long)]
        packs: Option<PathBuf>,
        /// Worker threads (results are identical for any number).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Verify a payload: recompute, mutate, and answer SUPPORTS / INCONCLUSIVE / REJECTED.
    ///
    /// Exit codes: 0 SUPPORTS, 1 REJECTED, 3 INCONCLUSIVE, 2 usage or I/O error
    /// (with --observe: 0 for every verdict).
    Verify {
        /// The payload JSON (as written by `counterlab run`).
        payload: PathBuf,
        /// A folder of pack folders (default: fixtures/packs of the working directory).
        #[arg(long)]
        packs: Option<PathBuf>,
        /// Print the report as JSON (counterlab.report/1).
        #[arg(long)]
        json: bool,
        /// Same report, but exit 0 whatever the verdict.
        #[arg(long)]
        observe: bool,
        /// Label permutations K for the claim's p-value (default 199).
        #[arg(long)]
        permutations: Option<usize>,
        /// Seed of every mutation (default 0).
        #[arg(long)]
        seed: Option<u64>,
        /// Significance level (default 0.05).
        #[arg(long)]
        alpha: Option<f64>,
        /// Largest payload accepted, in bytes (default 1048576).
        #[arg(long)]
        max_payload_bytes: Option<usize>,
        /// Worker threads (the report is identical for any number).
        #[arg(long)]
        threads: Option<usize>,
        /// Write the claim's permutation null (histogram, observed statistic marked) as SVG.
        #[arg(long)]
        svg: Option<PathBuf>,
        /// Write the same histogram as a Vega-Lite JSON spec.
        #[arg(long)]
        vega: Option<PathBuf>,
    },
    /// Compute a pack's boundary map: the claim's outcome in every cell of its [boundary] sweep.
    Boundary {
        /// The pack id.
        pack: String,
        /// A folder of pack folders (default: fixtures/packs of the working directory).
        #[arg(long)]
        packs: Option<PathBuf>,
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
        /// Worker threads (cells are computed in parallel; the map is identical for any number).
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
        /// A folder of pack folders (default: fixtures/packs of the working directory).
        #[arg(long)]
        packs: Option<PathBuf>,
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
        /// Predicted positive ⇔ score ≥ threshold.
        #[arg(long, default_value_t = 0.5)]
        threshold: f64,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// The canonical hash of a fixture, experiment, payload or report.
    Hash {
        /// The file.
        file: PathBuf,
    },
    /// The packs found, with fixture hashes.
    Packs {
        /// A folder of pack folders (default: fixtures/packs of the working directory).
        #[arg(long)]
        packs: Option<PathBuf>,
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
        } => run(&experiment, out.as_deref(), packs.as_deref(), threads),
        Command::Verify {
            payload,
            packs,
            json,
            observe,
            permutations,
            seed,
            alpha,
            max_payload_bytes,
            threads,
            svg,
            vega,
        } => verify::command(&verify::VerifyArgs {
            payload: &payload,
            packs: packs.as_deref(),
            json,
            observe,
            permutations,
            seed,
            alpha,
            max_payload_bytes,
            threads,
            svg: svg.as_deref(),
            vega: vega.as_deref(),
        }),
        Command::Metrics {
            predictions,
            label,
            score,
            positive,
            threshold,
            json,
        } => metrics::command(&predictions, &label, &score, &positive, threshold, json),
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
            packs: packs.as_deref(),
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
        } => transfer::command(&pack, &choice, packs.as_deref(), json),
        Command::Hash { file } => hash::command(&file),
        Command::Packs { packs } => list_packs(packs.as_deref()),
    }
}

/// Prints an error and returns its exit code.
pub(crate) fn fail(error: &Error) -> i32 {
    eprintln!("{} {error}", style::error_tag());
    if error.is_data_error() {
        EXIT_DATA
    } else {
        EXIT_USAGE
    }
}

/// Prints a usage/I-O problem that is not a library error.
pub(crate) fn fail_usage(message: &str) -> i32 {
    eprintln!("{} {message}", style::error_tag());
    EXIT_USAGE
}

/// Discovers the packs under `dir` (default `fixtures/packs`). With `only`, the fixtures
/// of those packs alone are loaded (every `pack.toml` is still read): a command about one
/// pack does not pay for parsing the others.
fn load_packs(dir: Option<&Path>, only: Option<&[&str]>) -> Result<Packs, Error> {
    let dir = dir.unwrap_or(Path::new("fixtures/packs"));
    match only {
        Some(ids) => Packs::discover_only(dir, ids, &counterlab::pack::LoadLimits::default()),
        None => Packs::discover(dir),
    }
}

fn read_file(path: &Path) -> Result<Vec<u8>, i32> {
    std::fs::read(path).map_err(|e| fail_usage(&format!("{}: {e}", path.display())))
}

fn run(
    experiment_path: &Path,
    out: Option<&Path>,
    packs_dir: Option<&Path>,
    threads: Option<usize>,
) -> i32 {
    let bytes = match read_file(experiment_path) {
        Ok(bytes) => bytes,
        Err(code) => return code,
    };
    let experiment = match Experiment::from_json(&bytes) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("{} {}: {e}", style::error_tag(), experiment_path.display());
            return EXIT_DATA;
        }
    };
    let packs = match load_packs(packs_dir, Some(&[experiment.pack.as_str()])) {
        Ok(p) => p,
        Err(e) => return fail(&e),
    };
    let pack = match packs.get(&experiment.pack) {
        Ok(p) => p,
        Err(e) => return fail(&e),
    };
    let mut options = RunOptions::default();
    if let Some(threads) = threads {
        if threads == 0 {
            return fail_usage("--threads must be at least 1");
        }
        options.threads = threads;
    }
    let payload = match counterlab::run_with(pack, &experiment, &options) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{} {}: {e}", style::error_tag(), experiment_path.display());
            return if e.is_data_error() {
                EXIT_DATA
            } else {
                EXIT_USAGE
            };
        }
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
    for name in &metric_names {
        header.push_str(&format!(" {:>w$}", name, w = name.len().max(9)));
    }
    outln!("{}", style::bold(&header));
    for arm in &payload.experiment.arms {
        let result = &payload.results[&arm.name];
        let mut line = format!(
            "{:<18} {:<15} {:>7} {:>7} {:>9}",
            arm.name,
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
            pack.manifest().concept,
            pack.table().n_rows(),
            pack.table().n_entities(),
            pack.fixture_hash(),
            pack.manifest().title
        );
    }
    EXIT_OK
}
