//! `counterlab boundary PACK`: the pack's boundary map as a table, JSON, a payload file,
//! an SVG chart or a Vega-Lite spec.

use std::path::PathBuf;

use counterlab::boundary::{self, BoundaryMap};
use counterlab::chart::Outcome;

use super::{style, write_file, FixtureArgs, PacksArgs, ThreadArgs, EXIT_OK};

// Options of `boundary` as given on the command line (a plain comment: clap would read a
// doc comment as the command's description, which the `Boundary` variant gives).
#[derive(clap::Args)]
#[command(mut_arg("threads", |a| a.help(
    "Worker threads, at least 1 (cells are computed in parallel; the map is identical for any number; more than 64 are used as 64)"
)))]
pub(crate) struct BoundaryArgs {
    /// The pack id.
    pack: String,
    #[command(flatten)]
    packs: PacksArgs,
    #[command(flatten)]
    fixture: FixtureArgs,
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
    #[command(flatten)]
    threads: ThreadArgs,
}

pub(crate) fn command(args: &BoundaryArgs) -> super::Outcome {
    let threads = args.threads.count()?;
    let pack = args
        .packs
        .pack_within(&args.pack, &args.fixture.limits()?)?;
    let map = boundary::compute(&pack, threads)?;
    let text = serde_json::to_string_pretty(&map).expect("a boundary map encodes");
    if let Some(path) = &args.out {
        write_file(path, format!("{text}\n"))?;
    }
    if let Some(path) = &args.svg {
        write_file(path, boundary::chart_svg(&map))?;
    }
    if let Some(path) = &args.vega {
        let spec = serde_json::to_string_pretty(&boundary::chart_vega(&map))
            .expect("a JSON value encodes");
        write_file(path, format!("{spec}\n"))?;
    }
    if args.json {
        outln!("{text}");
    } else {
        print_human(&map);
        for (what, path) in [("map", &args.out), ("svg", &args.svg), ("vega", &args.vega)] {
            if let Some(path) = path {
                outln!("wrote {what} {}", path.display());
            }
        }
    }
    Ok(EXIT_OK)
}

fn print_human(map: &BoundaryMap) {
    outln!("{}", style::bold(&style::safe(&map.boundary.title)));
    let statistic = &map.chart.statistic;
    let direction = map
        .experiment
        .claim
        .as_ref()
        .map_or("≥", counterlab::experiment::Claim::relation);
    outln!(
        "pack {}  ·  claim per cell: {} {direction} {}  ·  K = {} permutations per cell, alpha {}",
        map.pack.id,
        style::safe(statistic),
        map.chart.threshold,
        map.boundary.permutations,
        map.boundary.alpha
    );
    let knobs: Vec<&str> = map.boundary.axes.iter().map(|a| a.knob.as_str()).collect();
    let mut header = String::new();
    for knob in &knobs {
        header.push_str(&format!("{knob:>20} "));
    }
    outln!(
        "{header}{:>9} {:>21} {:>8}  outcome",
        "observed",
        "95% CI",
        "p"
    );
    for cell in &map.cells {
        let mut line = String::new();
        for knob in &knobs {
            line.push_str(&format!("{:>20} ", cell.axes[*knob]));
        }
        let claim = cell.claim.as_ref();
        let observed = claim
            .and_then(|c| c.observed)
            .map_or("-".to_owned(), |v| format!("{v:.4}"));
        let ci = claim
            .and_then(|c| c.ci)
            .map_or("-".to_owned(), |[lo, hi]| format!("[{lo:.4}, {hi:.4}]"));
        let p = claim
            .and_then(|c| c.p_value)
            .map_or("-".to_owned(), |p| format!("{p:.4}"));
        let colour = match cell.outcome {
            Outcome::Supports => "32",
            Outcome::Rejected => "31",
            Outcome::Inconclusive => "33",
        };
        let outcome = style::paint_stdout(colour, cell.outcome.label());
        outln!("{line}{observed:>9} {ci:>21} {p:>8}  {outcome}");
    }
    outln!("map_hash {}", map.map_hash);
}
