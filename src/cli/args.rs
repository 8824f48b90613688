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

    /// The one pack `id`.
    pub(crate) fn pack(&self, id: &str) -> Result<Pack, Exit> {
        self.pack_within(id, &LoadLimits::default())
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

// `--max-fixture-bytes`, for the commands that read a large fixture (`init`, `run`,
// `verify`): the loader's byte budget raised for this command only (docs/VERDICTS.md,
// "Budgets and options"; docs/PERFORMANCE.md, "Scaling").
#[derive(clap::Args)]
pub(crate) struct FixtureArgs {
    /// Largest fixture CSV read, in bytes, 1 to 4294967295 (default 33554432, 32 MiB).
    #[arg(long, value_name = "BYTES")]
    max_fixture_bytes: Option<u64>,
}

impl FixtureArgs {
    /// Whether the flag was given.
    pub(crate) fn given(&self) -> bool {
        self.max_fixture_bytes.is_some()
    }

    /// The loader's budgets with the byte budget asked for; a value outside its range is
    /// a usage error.
    pub(crate) fn limits(&self) -> Result<LoadLimits, Exit> {
        let mut limits = LoadLimits::default();
        if let Some(bytes) = self.max_fixture_bytes {
            if !(1..=LoadLimits::MAX_BYTES_LIMIT).contains(&bytes) {
                return Err(Exit::usage(&format!(
                    "--max-fixture-bytes must lie in 1..={}, found {bytes}",
                    LoadLimits::MAX_BYTES_LIMIT
                )));
            }
            limits.max_bytes = bytes;
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
