//! `counterlab boundary PACK`: the pack's boundary map as a table, JSON, a payload file,
//! an SVG chart or a Vega-Lite spec.

use std::path::Path;

use counterlab::boundary::{self, BoundaryMap};
use counterlab::chart::Outcome;

use super::{fail, fail_usage, load_pack, style, EXIT_OK};

/// Options of `boundary` as given on the command line.
pub(crate) struct BoundaryArgs<'a> {
    pub(crate) pack: &'a str,
    pub(crate) packs: Option<&'a Path>,
    pub(crate) json: bool,
    pub(crate) out: Option<&'a Path>,
    pub(crate) svg: Option<&'a Path>,
    pub(crate) vega: Option<&'a Path>,
    pub(crate) threads: Option<usize>,
}

pub(crate) fn command(args: &BoundaryArgs<'_>) -> i32 {
    let threads = match super::threads_option(args.threads) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let pack = match load_pack(args.packs, args.pack) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let pack = &pack;
    let map = match boundary::compute(pack, threads) {
        Ok(m) => m,
        Err(e) => return fail(&e),
    };
    let text = serde_json::to_string_pretty(&map).expect("a boundary map encodes");
    if let Some(path) = args.out {
        if let Err(e) = std::fs::write(path, format!("{text}\n")) {
            return fail_usage(&format!("{}: {e}", path.display()));
        }
    }
    if let Some(path) = args.svg {
        if let Err(e) = std::fs::write(path, boundary::chart_svg(&map)) {
            return fail_usage(&format!("{}: {e}", path.display()));
        }
    }
    if let Some(path) = args.vega {
        let spec = serde_json::to_string_pretty(&boundary::chart_vega(&map))
            .expect("a JSON value encodes");
        if let Err(e) = std::fs::write(path, format!("{spec}\n")) {
            return fail_usage(&format!("{}: {e}", path.display()));
        }
    }
    if args.json {
        outln!("{text}");
    } else {
        print_human(&map);
        for (what, path) in [("map", args.out), ("svg", args.svg), ("vega", args.vega)] {
            if let Some(path) = path {
                outln!("wrote {what} {}", path.display());
            }
        }
    }
    EXIT_OK
}

fn print_human(map: &BoundaryMap) {
    outln!("{}", style::bold(&style::safe(&map.boundary.title)));
    let statistic = &map.chart.statistic;
    let direction = match map.experiment.claim {
        Some(counterlab::experiment::Claim::MetricAtMost { .. }) => "≤",
        _ => "≥",
    };
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
