//! `counterlab run EXPERIMENT`: the payload of an experiment on its pack.

use std::path::PathBuf;

use counterlab::experiment::MAX_EXPERIMENT_BYTES;
use counterlab::metrics::MetricValue;
use counterlab::pack::check::Findings;
use counterlab::words::Budget;
use counterlab::{Experiment, Payload, RunOptions};

use super::{
    pack::print_problems, read_input, style, write_file, Exit, FixtureArgs, Outcome, PacksArgs,
    ThreadArgs, EXIT_OK,
};

// Options of `run` as given on the command line (a plain comment: clap would read a doc
// comment as the command's description, which the `Run` variant gives).
#[derive(clap::Args)]
#[command(mut_arg("threads", |a| a.help(
    "Worker threads, at least 1 (results are identical for any number; more than 64 are used as 64)"
)))]
pub(crate) struct RunArgs {
    /// The experiment JSON.
    experiment: PathBuf,
    /// Where to write the payload (default: print it to stdout).
    #[arg(long)]
    out: Option<PathBuf>,
    #[command(flatten)]
    packs: PacksArgs,
    #[command(flatten)]
    threads: ThreadArgs,
    #[command(flatten)]
    fixture: FixtureArgs,
}

pub(crate) fn command(args: &RunArgs) -> Outcome {
    let path = &args.experiment;
    let bytes = read_input(
        path,
        MAX_EXPERIMENT_BYTES,
        Budget::Fixed("an experiment file"),
    )?;
    let experiment = Experiment::from_json(&bytes).map_err(|e| Exit::at(path, &e))?;
    let pack = args
        .packs
        .pack_within(&experiment.pack, &args.fixture.limits()?)?;
    let options = RunOptions {
        threads: args.threads.count()?,
    };
    print_problems(&Findings::of(pack.table(), &pack.manifest().data).problems());
    let payload =
        counterlab::run_with(&pack, &experiment, &options).map_err(|e| Exit::at(path, &e))?;
    let text = payload.to_json_pretty()?;
    match &args.out {
        None => outln!("{text}"),
        Some(out) => {
            write_file(out, format!("{text}\n"))?;
            print_summary(&payload);
            outln!("wrote {}", out.display());
        }
    }
    Ok(EXIT_OK)
}

/// The payload as a table: one line per arm, one column per metric.
fn print_summary(payload: &Payload) {
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
        // Arm names come from the experiment: escaped before they reach the terminal.
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
                MetricValue::Value(v) => format!("{v:.4}"),
                MetricValue::Undefined { .. } => "undefined".to_owned(),
            };
            line.push_str(&format!(" {:>w$}", shown, w = name.len().max(9)));
        }
        outln!("{line}");
    }
}
