//! A pack folder on disk from `init`'s [`Scaffold`]: `pack.toml`, the fixture and the
//! starter experiments, written into a new or empty folder (never over anything), and the
//! commands that check it and run and verify each starter. The CLI's `counterlab init`
//! and Python's `counterlab.init` both write through here, so the two folders are the same.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::init::Scaffold;
use crate::pack::LoadLimits;
use crate::words::Opt;

/// Whether `out` can take a pack folder: it does not exist, or it is an empty folder.
/// A file, an unreadable folder or a folder with anything in it cannot.
pub fn is_free(out: &Path) -> bool {
    !out.exists() || std::fs::read_dir(out).is_ok_and(|mut entries| entries.next().is_none())
}

/// Writes the pack folder `out` for `scaffold` with the fixture's bytes `fixture`:
/// `pack.toml`, the fixture and `experiments/*.json`. Returns the files written, in that
/// order. `out` must be free ([`is_free`]): init never overwrites.
pub fn write(out: &Path, scaffold: &Scaffold, fixture: &[u8]) -> Result<Vec<PathBuf>> {
    if !is_free(out) {
        return Err(Error::invalid(format!(
            "{} exists and is not an empty folder: give a new folder (init never overwrites)",
            out.display()
        )));
    }
    let experiments = out.join("experiments");
    std::fs::create_dir_all(&experiments).map_err(|e| Error::io(&experiments, e))?;
    let mut files: Vec<(PathBuf, &[u8])> = vec![
        (out.join("pack.toml"), scaffold.manifest.as_bytes()),
        (out.join(&scaffold.fixture_file), fixture),
    ];
    for starter in &scaffold.experiments {
        files.push((
            experiments.join(&starter.file_name),
            starter.json.as_bytes(),
        ));
    }
    let mut written = Vec::with_capacity(files.len());
    for (path, bytes) in files {
        std::fs::write(&path, bytes).map_err(|e| Error::io(&path, e))?;
        written.push(path);
    }
    Ok(written)
}

/// One starter experiment's next steps: its file, and the payload file a run writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NextStep {
    /// The experiment, `<out>/experiments/<name>.json`.
    pub experiment: PathBuf,
    /// The payload to write and verify, `<name>.payload.json` (in the working directory).
    pub payload: PathBuf,
}

/// The starter experiments of the folder `out`, each with the payload a run of it writes.
pub fn next_steps(out: &Path, scaffold: &Scaffold) -> Vec<NextStep> {
    scaffold
        .experiments
        .iter()
        .map(|starter| {
            let stem = starter.file_name.trim_end_matches(".json");
            NextStep {
                experiment: out.join("experiments").join(&starter.file_name),
                payload: PathBuf::from(format!("{stem}.payload.json")),
            }
        })
        .collect()
}

/// The table budgets the pack's fixture needs above the defaults (`pack::LoadLimits`):
/// each option with the least value that loads it. Every command that loads the pack must
/// be given them (init was, to write it), so the next steps carry them.
pub fn budgets_needed(scaffold: &Scaffold) -> Vec<(Opt, u64)> {
    let default = LoadLimits::default();
    let table = scaffold.pack.table();
    let columns = table.n_columns().max(table.layout().columns().len());
    let mut needed = Vec::new();
    if scaffold.pack.fixture_bytes() > default.max_bytes {
        needed.push((Opt::MaxFixtureBytes, scaffold.pack.fixture_bytes()));
    }
    if columns > default.max_columns {
        needed.push((Opt::MaxColumns, columns as u64));
    }
    if table.n_rows() > default.max_rows {
        needed.push((Opt::MaxRows, table.n_rows() as u64));
    }
    needed
}

/// The command lines that check the pack folder `out`, then run and verify each starter:
/// command lines of the CLI, with the table budgets the pack needs ([`budgets_needed`]).
pub fn next_commands(out: &Path, scaffold: &Scaffold) -> Vec<String> {
    let packs = out.display();
    let budgets: String = budgets_needed(scaffold)
        .iter()
        .map(|(opt, value)| format!(" --{} {value}", opt.name().replace('_', "-")))
        .collect();
    let mut lines = vec![format!("counterlab pack check {packs}{budgets}")];
    for step in next_steps(out, scaffold) {
        let payload = step.payload.display();
        lines.push(format!(
            "counterlab run {} --packs {packs} --out {payload}{budgets}",
            step.experiment.display()
        ));
        lines.push(format!(
            "counterlab verify {payload} --packs {packs}{budgets}"
        ));
    }
    lines
}
