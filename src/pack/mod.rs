//! Subject Packs: a folder with `pack.toml`, one fixture CSV, `experiments/` and
//! `payloads/`. Loading checks the fixture's blake3 and types its columns.

pub mod check;
pub(crate) mod load;
mod manifest;
mod rehash;

pub use rehash::{rehash, Rehash};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use crate::table::Table;
pub use manifest::{
    BoundaryAxis, BoundarySpec, DataSpec, Knob, Manifest, TimeKind, TransferChoice, TransferRule,
    TransferSpec,
};

use crate::canon::file_hash;
use crate::error::{Error, ErrorKind, Result};
use crate::input;
use crate::words::Budget;

/// Largest `pack.toml` read, in bytes.
pub(crate) const MAX_MANIFEST_BYTES: u64 = 1 << 20;

pub use load::{parse_finite, LoadLimits, MissingValues, NotFinite, DEFAULT_MISSING_VALUES};
pub(crate) use manifest::toml_key;

/// A loaded pack: manifest, checked fixture hash and the canonical table.
#[derive(Debug, Clone)]
pub struct Pack {
    dir: PathBuf,
    manifest: Manifest,
    table: Table,
    /// The fixture file's size in bytes.
    fixture_bytes: u64,
}

impl Pack {
    /// Loads the pack in `dir`: reads `pack.toml`, checks the fixture's blake3 and parses it
    /// (within the default [`LoadLimits`]).
    pub fn open(dir: impl AsRef<Path>) -> Result<Pack> {
        Pack::open_within(dir, &LoadLimits::default())
    }

    /// [`Pack::open`] within `limits`: a fixture over a budget is an
    /// [`ErrorKind::OverBudget`] error, found before its memory is allocated.
    pub fn open_within(dir: impl AsRef<Path>, limits: &LoadLimits) -> Result<Pack> {
        let dir = dir.as_ref().to_path_buf();
        let manifest = read_manifest(&dir)?;
        Pack::open_with(dir, manifest, limits)
    }

    /// Loads the fixture of a pack whose manifest is already read and checked.
    fn open_with(dir: PathBuf, manifest: Manifest, limits: &LoadLimits) -> Result<Pack> {
        let data_path = dir.join(&manifest.data.file);
        let budget = limits.max_bytes.min(LoadLimits::MAX_BYTES_LIMIT);
        let bytes = input::read_within(&data_path, budget, Budget::FixtureBytes)?;
        Pack::from_fixture(dir, manifest, &bytes, limits)
    }

    /// A pack from its manifest's text and its fixture's bytes, as read from `dir` (named
    /// in messages; nothing is read from it): what [`Pack::open_within`] does after
    /// reading the two files, for callers that hold them already (and the pack-loading
    /// fuzz target).
    pub fn from_parts(
        dir: impl AsRef<Path>,
        manifest_toml: &str,
        fixture: &[u8],
        limits: &LoadLimits,
    ) -> Result<Pack> {
        let dir = dir.as_ref().to_path_buf();
        let manifest = parse_manifest(&dir.join("pack.toml"), manifest_toml)?;
        if fixture.len() as u64 > limits.max_bytes.min(LoadLimits::MAX_BYTES_LIMIT) {
            return Err(Error::over_budget(
                dir.join(&manifest.data.file),
                Budget::FixtureBytes,
                limits.max_bytes.min(LoadLimits::MAX_BYTES_LIMIT),
                Some(fixture.len() as u64),
            ));
        }
        Pack::from_fixture(dir, manifest, fixture, limits)
    }

    /// Checks the fixture's hash against the manifest and parses it.
    fn from_fixture(
        dir: PathBuf,
        manifest: Manifest,
        bytes: &[u8],
        limits: &LoadLimits,
    ) -> Result<Pack> {
        let data_path = dir.join(&manifest.data.file);
        let actual = file_hash(bytes);
        if actual != manifest.data.blake3 {
            return Err(Error::data(
                &data_path,
                None,
                None,
                format!(
                    "blake3 is {actual}, but pack.toml says {}: if you edited the file, run `counterlab pack rehash {}` to record its new hash",
                    manifest.data.blake3,
                    dir.display()
                ),
            ));
        }
        let table = load::parse_fixture(&data_path, bytes, &manifest.data, limits)?;
        let levels = check::label_levels(&table);
        if let Some(problem) =
            check::label_problem(&levels, &manifest.data.positive, manifest.data.one_vs_rest)
        {
            return Err(Error::data(
                &data_path,
                None,
                Some(&manifest.data.label),
                problem,
            ));
        }
        Ok(Pack {
            dir,
            manifest,
            table,
            fixture_bytes: bytes.len() as u64,
        })
    }

    /// The pack's id.
    pub fn id(&self) -> &str {
        &self.manifest.id
    }

    /// The manifest as read.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// The fixture's blake3 (checked against the file at load time).
    pub fn fixture_hash(&self) -> &str {
        &self.manifest.data.blake3
    }

    /// Whether `hash` is an earlier version of the fixture (`[data] retired_blake3`).
    pub fn retired_fixture(&self, hash: &str) -> bool {
        self.manifest.data.retired_blake3.iter().any(|h| h == hash)
    }

    /// The fixture file's size in bytes.
    pub fn fixture_bytes(&self) -> u64 {
        self.fixture_bytes
    }

    /// The canonical table.
    pub fn table(&self) -> &Table {
        &self.table
    }

    /// The pack's folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The same pack with another table (used by mutations and tests).
    pub fn with_table(&self, table: Table) -> Pack {
        Pack {
            table,
            ..self.clone()
        }
    }
}

/// Reads and checks `dir/pack.toml`.
fn read_manifest(dir: &Path) -> Result<Manifest> {
    let manifest_path = dir.join("pack.toml");
    let bytes = input::read_within(
        &manifest_path,
        MAX_MANIFEST_BYTES,
        Budget::Fixed("a pack.toml"),
    )?;
    let text = String::from_utf8(bytes)
        .map_err(|_| Error::pack(&manifest_path, "not UTF-8 text: save the file as UTF-8"))?;
    parse_manifest(&manifest_path, &text)
}

/// Parses and checks a manifest's text (`path` is named in messages).
fn parse_manifest(path: &Path, text: &str) -> Result<Manifest> {
    let manifest: Manifest =
        toml::from_str(text).map_err(|e| Error::pack(path, bounded_lines(&e.to_string())))?;
    manifest.check(path)?;
    Ok(manifest)
}

/// The toml crate's message with each line cut to 160 characters: it quotes the offending
/// line of the file, which a hostile `pack.toml` can make a megabyte long.
fn bounded_lines(message: &str) -> String {
    const MAX: usize = 160;
    message
        .trim_end()
        .lines()
        .map(|line| match line.char_indices().nth(MAX) {
            Some((cut, _)) => format!("{}… (line cut)", &line[..cut]),
            None => line.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The packs folder used when none is given, relative to the working directory.
pub const DEFAULT_PACKS_DIR: &str = "fixtures/packs";

/// The packs known to a run: every folder with a `pack.toml` under one directory.
#[derive(Debug, Clone, Default)]
pub struct Packs {
    packs: BTreeMap<String, Pack>,
    /// Packs whose manifest was read but whose fixture was not loaded
    /// ([`Packs::discover_only`]): known by id, not available.
    unloaded: BTreeMap<String, PathBuf>,
    /// Packs asked for that could not be loaded, with the error (kept so that a verifier
    /// can report it instead of failing).
    failed: BTreeMap<String, (PathBuf, Error)>,
    /// Folders whose `pack.toml` could not be read: their id is unknown.
    unreadable: Vec<(PathBuf, Error)>,
}

/// What [`Packs::lookup`] found for an id.
#[derive(Debug)]
pub enum Lookup<'p> {
    /// The pack, loaded.
    Loaded(&'p Pack),
    /// A pack with this id exists but could not be loaded (fixture over a budget, a bad
    /// cell, a hash mismatch, …), or two folders claim the id.
    Failed(&'p Error),
    /// No pack with this id (or it was discovered but not loaded: a caller's mistake).
    Unknown(Error),
}

impl Packs {
    /// The packs of `dir`, or of [`DEFAULT_PACKS_DIR`] under the working directory when
    /// `dir` is `None` (the CLI's and the Python package's default): only the packs in
    /// `only` are loaded, within `limits` ([`Packs::discover_only`]), or every pack when
    /// `only` is `None` ([`Packs::discover`]). A missing default folder is an error that
    /// says where it looked and what to pass instead.
    pub fn open_folder(
        dir: Option<&Path>,
        only: Option<&[&str]>,
        limits: &LoadLimits,
    ) -> Result<Packs> {
        let default = Path::new(DEFAULT_PACKS_DIR);
        if dir.is_none() && !default.is_dir() {
            let cwd =
                std::env::current_dir().map_or_else(|_| ".".into(), |d| d.display().to_string());
            return Err(ErrorKind::NoPacksFolder {
                looked: default.to_path_buf(),
                cwd,
            }
            .into());
        }
        let dir = dir.unwrap_or(default);
        match only {
            Some(ids) => Packs::discover_only(dir, ids, limits),
            None => Packs::discover_within(dir, limits),
        }
    }

    /// The one pack `id` of the packs folder ([`Packs::open_folder`]: only its fixture is
    /// loaded), for a command on one pack; an unknown id is an error listing the known ones,
    /// a pack that does not load is its load error.
    pub fn open_pack(dir: Option<&Path>, id: &str, limits: &LoadLimits) -> Result<Pack> {
        let mut packs = Packs::open_folder(dir, Some(&[id]), limits)?;
        packs.get(id)?;
        Ok(packs.packs.remove(id).expect("get found it loaded"))
    }

    /// Loads every pack folder directly under `dir` (a folder of pack folders; or `dir`
    /// itself when it holds a `pack.toml`), within the default [`LoadLimits`]; any pack that
    /// cannot be read or loaded is an error.
    pub fn discover(dir: impl AsRef<Path>) -> Result<Packs> {
        Packs::discover_within(dir, &LoadLimits::default())
    }

    /// [`Packs::discover`] within `limits`: every pack's fixture loaded within them.
    pub fn discover_within(dir: impl AsRef<Path>, limits: &LoadLimits) -> Result<Packs> {
        let packs = Packs::discover_where(dir.as_ref(), |_| true, limits)?;
        if let Some((_, error)) = packs.unreadable.first() {
            return Err(error.clone());
        }
        if let Some((_, error)) = packs.failed.values().next() {
            return Err(error.clone());
        }
        Ok(packs)
    }

    /// Like [`Packs::discover`], but loads the fixture (CSV parse, blake3, canonical
    /// order) only of the packs whose id is in `ids`, within `limits`; every other pack's
    /// `pack.toml` is still read, so ids stay unique and an unknown id is reported with the
    /// list of known packs. A command that works on one pack (`verify` of a payload naming
    /// it, `boundary PACK`) pays for that pack only, and a broken sibling pack (an
    /// unreadable `pack.toml`, a bad fixture) never stops it: a pack that fails to load is
    /// kept with its error ([`Packs::lookup`]).
    pub fn discover_only(
        dir: impl AsRef<Path>,
        ids: &[&str],
        limits: &LoadLimits,
    ) -> Result<Packs> {
        Packs::discover_where(dir.as_ref(), |id| ids.contains(&id), limits)
    }

    fn discover_where(
        dir: &Path,
        load: impl Fn(&str) -> bool,
        limits: &LoadLimits,
    ) -> Result<Packs> {
        let mut folders = Vec::new();
        if dir.join("pack.toml").is_file() {
            // The folder is itself a pack (`--packs fixtures/packs/entity-leakage`): use it,
            // rather than find no pack folder inside it.
            folders.push(dir.to_path_buf());
        } else {
            let entries = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
            for entry in entries {
                let entry = entry.map_err(|e| Error::io(dir, e))?;
                let path = entry.path();
                if path.join("pack.toml").is_file() {
                    folders.push(path);
                }
            }
        }
        folders.sort();
        let mut packs = Packs::default();
        for folder in folders {
            let manifest = match read_manifest(&folder) {
                Ok(m) => m,
                Err(e) => {
                    packs.unreadable.push((folder, e));
                    continue;
                }
            };
            let id = manifest.id.clone();
            if let Some(existing) = packs.dir_of(&id) {
                let error = Error::pack(
                    &folder,
                    format!("pack id {id:?} is also used by {}", existing.display()),
                );
                packs.packs.remove(&id);
                packs.unloaded.remove(&id);
                packs.failed.insert(id, (folder, error));
                continue;
            }
            if load(&id) {
                match Pack::open_with(folder.clone(), manifest, limits) {
                    Ok(pack) => {
                        packs.packs.insert(id, pack);
                    }
                    Err(e) => {
                        packs.failed.insert(id, (folder, e));
                    }
                }
            } else {
                packs.unloaded.insert(id, folder);
            }
        }
        Ok(packs)
    }

    /// The folder of the pack with this id seen so far, loaded or not.
    fn dir_of(&self, id: &str) -> Option<PathBuf> {
        self.packs
            .get(id)
            .map(|p| p.dir().to_path_buf())
            .or_else(|| self.unloaded.get(id).cloned())
            .or_else(|| self.failed.get(id).map(|(dir, _)| dir.clone()))
    }

    /// Adds a loaded pack; two packs with one id are an error.
    pub fn insert(&mut self, pack: Pack) -> Result<()> {
        if let Some(existing) = self.dir_of(pack.id()) {
            return Err(Error::pack(
                pack.dir(),
                format!(
                    "pack id {:?} is also used by {}",
                    pack.id(),
                    existing.display()
                ),
            ));
        }
        self.packs.insert(pack.id().to_owned(), pack);
        Ok(())
    }

    /// The pack with this id, why it could not be loaded, or that there is none.
    pub fn lookup(&self, id: &str) -> Lookup<'_> {
        if let Some(pack) = self.packs.get(id) {
            return Lookup::Loaded(pack);
        }
        if let Some((_, error)) = self.failed.get(id) {
            return Lookup::Failed(error);
        }
        if let Some(dir) = self.unloaded.get(id) {
            // A caller of discover_only asked for a pack it did not name: a bug, not data.
            return Lookup::Unknown(Error::invalid(format!(
                "pack {id:?} ({}) was discovered but not loaded",
                dir.display()
            )));
        }
        let mut known: Vec<String> = self.packs.keys().cloned().collect();
        known.extend(self.unloaded.keys().cloned());
        known.extend(self.failed.keys().cloned());
        known.sort();
        Lookup::Unknown(
            ErrorKind::UnknownPack {
                id: id.to_owned(),
                known,
                unreadable: self
                    .unreadable
                    .iter()
                    .map(|(dir, e)| (dir.clone(), e.to_string()))
                    .collect(),
            }
            .into(),
        )
    }

    /// The pack with this id (its load error, or an unknown-pack error naming the known ids).
    pub fn get(&self, id: &str) -> Result<&Pack> {
        match self.lookup(id) {
            Lookup::Loaded(pack) => Ok(pack),
            Lookup::Failed(error) => Err(error.clone()),
            Lookup::Unknown(error) => Err(error),
        }
    }

    /// All loaded packs, by id.
    pub fn iter(&self) -> impl Iterator<Item = &Pack> {
        self.packs.values()
    }
}
