//! The flag groups several commands share (`#[command(flatten)]` into each command's own
//! `…Args`): one spelling, one default and one check per flag.
//!
//! The groups carry `//` comments, not doc comments: clap would copy a group's doc comment
//! onto the description of a command that has none.

use std::path::{Path, PathBuf};

use counterlab::pack::LoadLimits;
use counterlab::{Pack, Packs, RunOptions};

use super::Exit;

// `--packs`, for every command that reads packs.
#[derive(clap::Args, Debug)]
pub(crate) struct PacksArgs {
    /// A folder of pack folders, or one pack folder (default: fixtures/packs of the
    /// working directory).
    #[arg(long = "packs", value_name = "PACKS")]
    folder: Option<PathBuf>,
}

impl PacksArgs {
    /// The folder given, if any.
    pub(crate) fn folder(&self) -> Option<&Path> {
        self.folder.as_deref()
    }

    /// The one pack `id`, its fixture loaded within `limits`.
    pub(crate) fn pack_within(&self, id: &str, limits: &LoadLimits) -> Result<Pack, Exit> {
        Ok(Packs::open_pack(self.folder(), id, limits)?)
    }

    /// The packs found, with the fixtures of the packs in `only` loaded within `limits`
    /// (every `pack.toml` is still read, and a broken sibling pack never stops the
    /// command), or of every pack when `only` is `None`.
    pub(crate) fn packs(&self, only: Option<&[&str]>, limits: &LoadLimits) -> Result<Packs, Exit> {
        Ok(Packs::open_folder(self.folder(), only, limits)?)
    }
}

// `--threads`, for every command that computes in parallel. Its help is the short one; a
// command whose output is identical for any number says so in its own help for the flag
// (`#[command(mut_arg("threads", …))]` on its `…Args`, written without the final period
// that clap drops from a doc comment).
#[derive(clap::Args)]
pub(crate) struct ThreadArgs {
    /// Worker threads, at least 1.
    #[arg(long)]
    threads: Option<usize>,
}

impl ThreadArgs {
    /// The threads asked for: at least 1 (the library uses at most
    /// `counterlab::run::MAX_THREADS`), or every core when the flag is absent.
    pub(crate) fn count(&self) -> Result<usize, Exit> {
        match self.threads {
            Some(0) => Err(Exit::usage("--threads must be at least 1")),
            Some(t) => Ok(t),
            None => Ok(RunOptions::default().threads),
        }
    }
}

// `--max-fixture-bytes`, `--max-columns` and `--max-rows`, for every command that reads a
// table (a pack's fixture, or the CSV of `init` and `audit`): the loader's budgets raised
// (or lowered) for this command only (docs/VERDICTS.md, "Budgets and options";
// docs/PERFORMANCE.md, "Scaling"). An over-budget message names the flag and the value
// that passes.
#[derive(clap::Args)]
pub(crate) struct FixtureArgs {
    /// Largest table CSV read, in bytes, 1 to 4294967295 (default 33554432, 32 MiB).
    #[arg(long, value_name = "BYTES")]
    max_fixture_bytes: Option<u64>,
    /// Most columns of a table (header columns, and model columns: one per level of a
    /// categorical column), 1 to 1048576 (default 1024).
    #[arg(long, value_name = "COLUMNS")]
    max_columns: Option<u64>,
    /// Most data rows of a table, 1 to 4294967295 (default 1000000).
    #[arg(long, value_name = "ROWS")]
    max_rows: Option<u64>,
}

impl FixtureArgs {
    /// Whether any of the flags was given.
    pub(crate) fn given(&self) -> bool {
        self.max_fixture_bytes.is_some() || self.max_columns.is_some() || self.max_rows.is_some()
    }

    /// The loader's budgets with the ones asked for; a value outside its range is a
    /// usage error.
    pub(crate) fn limits(&self) -> Result<LoadLimits, Exit> {
        let within = |value: Option<u64>, flag: &str, most: u64| match value {
            Some(v) if !(1..=most).contains(&v) => Err(Exit::usage(&format!(
                "{flag} must lie in 1..={most}, found {v}"
            ))),
            other => Ok(other),
        };
        let mut limits = LoadLimits::default();
        if let Some(bytes) = within(
            self.max_fixture_bytes,
            "--max-fixture-bytes",
            LoadLimits::MAX_BYTES_LIMIT,
        )? {
            limits.max_bytes = bytes;
        }
        if let Some(columns) = within(
            self.max_columns,
            "--max-columns",
            LoadLimits::MAX_COLUMNS_LIMIT as u64,
        )? {
            limits.max_columns = columns as usize;
        }
        if let Some(rows) = within(
            self.max_rows,
            "--max-rows",
            LoadLimits::MAX_ROWS_LIMIT as u64,
        )? {
            limits.max_rows = rows as usize;
        }
        Ok(limits)
    }
}

// The roles of a user's CSV that `init` and `audit` are told.
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
