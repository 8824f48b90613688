//! Times `HistGradientBoosting::fit` (scikit-learn's defaults) on a CSV, for
//! `benches/sklearn/gbdt_side_by_side.py`, which times scikit-learn and LightGBM on the same
//! file.
//!
//! ```text
//! cargo run --release --example gbdt_fit -- DATA.csv [REPEAT]
//! ```
//!
//! `DATA.csv`: a header line, then one row per training row: the feature values, then the
//! label (`0` or `1`) in the last column; numbers as Python's `repr` writes them, so that
//! both sides read the same doubles. The fit is run `REPEAT` times (default 3); only the fit
//! is timed (binning included, as in scikit-learn's `fit`), not the CSV parse. Prints one
//! line of `key=value` pairs: the rows, the features, the best and every time in seconds,
//! the number of tree nodes and the mean training log loss (17 significant digits), which the
//! script compares with scikit-learn's as a check that both fitted the same model.

use std::process::ExitCode;
use std::time::Instant;

use counterlab::model::gbdt::HistGradientBoosting;
use counterlab::model::Matrix;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (path, repeat) = match args.as_slice() {
        [path] => (path, 3),
        [path, repeat] => match repeat.parse::<usize>() {
            Ok(r) if r >= 1 => (path, r),
            _ => return usage(),
        },
        _ => return usage(),
    };
    let (x, y) = match read(path) {
        Ok(data) => data,
        Err(e) => {
            eprintln!("gbdt_fit: {path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let params = HistGradientBoosting::default();
    let mut times = Vec::with_capacity(repeat);
    let mut fit = None;
    for _ in 0..repeat {
        let start = Instant::now();
        let fitted = params.fit(&x, &y);
        times.push(start.elapsed().as_secs_f64());
        fit = Some(fitted);
    }
    let fit = match fit.expect("repeat >= 1") {
        Ok(fit) => fit,
        Err(e) => {
            eprintln!("gbdt_fit: {e}");
            return ExitCode::FAILURE;
        }
    };
    let nodes: usize = fit.trees().iter().map(|t| t.nodes().len()).sum();
    let proba = fit.predict_probability(&x);
    let log_loss = y
        .iter()
        .zip(&proba)
        .map(|(&yi, &p)| -libm::log(if yi { p } else { 1.0 - p }))
        .sum::<f64>()
        / y.len() as f64;
    let best = times.iter().copied().fold(f64::INFINITY, f64::min);
    let all: Vec<String> = times.iter().map(|t| format!("{t:.6}")).collect();
    println!(
        "rows={} features={} best_s={best:.6} times_s={} nodes={nodes} train_log_loss={log_loss:.17e}",
        x.rows(),
        x.cols(),
        all.join(",")
    );
    ExitCode::SUCCESS
}

fn usage() -> ExitCode {
    eprintln!("usage: gbdt_fit DATA.csv [REPEAT >= 1]");
    ExitCode::FAILURE
}

/// The features (row-major) and labels of the CSV.
fn read(path: &str) -> Result<(Matrix, Vec<bool>), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let mut lines = text.lines();
    let header = lines.next().ok_or("empty file")?;
    let cols = header.split(',').count();
    if cols < 2 {
        return Err("need at least one feature and the label".to_owned());
    }
    let mut data = Vec::new();
    let mut y = Vec::new();
    for (i, line) in lines.enumerate() {
        let fields: Vec<&str> = line.split(',').collect();
        if fields.len() != cols {
            return Err(format!(
                "row {}: {} fields, expected {cols}",
                i + 1,
                fields.len()
            ));
        }
        for f in &fields[..cols - 1] {
            data.push(
                f.parse::<f64>()
                    .map_err(|e| format!("row {}: {f:?}: {e}", i + 1))?,
            );
        }
        y.push(match fields[cols - 1] {
            "0" => false,
            "1" => true,
            other => return Err(format!("row {}: label {other:?} is not 0 or 1", i + 1)),
        });
    }
    Ok((Matrix::from_row_major(y.len(), cols - 1, data), y))
}
