//! Subject Packs: a folder with `pack.toml`, one fixture CSV, `experiments/` and
//! `payloads/`. Loading checks the fixture's blake3 and types its columns.

mod load;
mod manifest;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use crate::table::Table;
pub use manifest::{
    BoundaryAxis, BoundarySpec, DataSpec, Knob, Manifest, TransferChoice, TransferRule,
    TransferSpec,
};

use crate::canon::file_hash;
use crate::error::{Error, ErrorKind, Result};

pub use load::parse_finite;

/// A loaded pack: manifest, checked fixture hash and the canonical table.
#[derive(Debug, Clone)]
pub struct Pack {
    dir: PathBuf,
    manifest: Manifest,
    table: Table,
}

impl Pack {
    /// Loads the pack in `dir`: reads `pack.toml`, checks the fixture's blake3 and parses it.
    pub fn open(dir: impl AsRef<Path>) -> Result<Pack> {
        let dir = dir.as_ref().to_path_buf();
        let manifest = read_manifest(&dir)?;
        Pack::open_with(dir, manifest)
    }

    /// Loads the fixture of a pack whose manifest is already read and checked.
    fn open_with(dir: PathBuf, manifest: Manifest) -> Result<Pack> {
        let data_path = dir.join(&manifest.data.file);
        let bytes = std::fs::read(&data_path).map_err(|e| Error::io(&data_path, e))?;
        let actual = file_hash(&bytes);
        if actual != manifest.data.blake3 {
            return Err(Error::data(
                &data_path,
                None,
                None,
                format!(
                    "blake3 is {actual}, but pack.toml says {}",
                    manifest.data.blake3
                ),
            ));
        }
        let table = load::parse_fixture(&data_path, &bytes, &manifest.data)?;
        Ok(Pack {
            dir,
            manifest,
            table,
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

    /// The canonical table.
    pub fn table(&self) -> &Table {
        &self.table
    }

    /// The pack's folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// A registered experiment: `experiments/<name>.json` of this pack, parsed, checked
    /// against the pack and naming it.
    pub fn experiment(&self, name: &str) -> Result<crate::Experiment> {
        if name.is_empty()
            || !name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            return Err(Error::pack(
                self.dir.join("pack.toml"),
                format!("experiment name {name:?} must match [A-Za-z0-9_-]+"),
            ));
        }
        let path = self.dir.join("experiments").join(format!("{name}.json"));
        let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
        let experiment =
            crate::Experiment::from_json(&bytes).map_err(|e| Error::pack(&path, e.to_string()))?;
        if experiment.pack != self.id() {
            return Err(Error::pack(
                &path,
                format!(
                    "names pack {:?}, but it belongs to {:?}",
                    experiment.pack,
                    self.id()
                ),
            ));
        }
        experiment
            .check(self)
            .map_err(|e| Error::pack(&path, e.to_string()))?;
        Ok(experiment)
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
    let text = std::fs::read_to_string(&manifest_path).map_err(|e| Error::io(&manifest_path, e))?;
    let manifest: Manifest = toml::from_str(&text)
        .map_err(|e| Error::pack(&manifest_path, e.to_string().trim_end().to_owned()))?;
    manifest
        .check()
        .map_err(|m| Error::pack(&manifest_path, m))?;
    Ok(manifest)
}

/// The packs known to a run: every folder with a `pack.toml` under one directory.
#[derive(Debug, Clone, Default)]
pub struct Packs {
    packs: BTreeMap<String, Pack>,
    /// Packs whose manifest was read but whose fixture was not loaded
    /// ([`Packs::discover_only`]): known by id, not available.
    unloaded: BTreeMap<String, PathBuf>,
}

impl Packs {
    /// Loads every pack folder directly under `dir` (a folder of pack folders).
    pub fn discover(dir: impl AsRef<Path>) -> Result<Packs> {
        Packs::discover_where(dir.as_ref(), |_| true)
    }

    /// Like [`Packs::discover`], but loads the fixture (CSV parse, blake3, canonical
    /// order) only of the packs whose id is in `ids`; every other pack's `pack.toml` is
    /// still read and checked, so ids stay unique and an unknown id is reported with the
    /// same list of known packs. A command that works on one pack (`verify` of a payload
    /// naming it, `boundary PACK`) pays for that pack only.
    pub fn discover_only(dir: impl AsRef<Path>, ids: &[&str]) -> Result<Packs> {
        Packs::discover_where(dir.as_ref(), |id| ids.contains(&id))
    }

    fn discover_where(dir: &Path, load: impl Fn(&str) -> bool) -> Result<Packs> {
        let entries = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
        let mut folders = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| Error::io(dir, e))?;
            let path = entry.path();
            if path.join("pack.toml").is_file() {
                folders.push(path);
            }
        }
        folders.sort();
        let mut packs = Packs::default();
        for folder in folders {
            let manifest = read_manifest(&folder)?;
            packs.check_unique(&manifest.id, &folder)?;
            if load(&manifest.id) {
                packs
                    .packs
                    .insert(manifest.id.clone(), Pack::open_with(folder, manifest)?);
            } else {
                packs.unloaded.insert(manifest.id, folder);
            }
        }
        Ok(packs)
    }

    fn check_unique(&self, id: &str, dir: &Path) -> Result<()> {
        let existing = self
            .packs
            .get(id)
            .map(Pack::dir)
            .or_else(|| self.unloaded.get(id).map(PathBuf::as_path));
        match existing {
            Some(existing) => Err(Error::pack(
                dir,
                format!("pack id {id:?} is also used by {}", existing.display()),
            )),
            None => Ok(()),
        }
    }

    /// Adds a loaded pack; two packs with one id are an error.
    pub fn insert(&mut self, pack: Pack) -> Result<()> {
        self.check_unique(pack.id(), pack.dir())?;
        self.packs.insert(pack.id().to_owned(), pack);
        Ok(())
    }

    /// The pack with this id.
    pub fn get(&self, id: &str) -> Result<&Pack> {
        if let Some(pack) = self.packs.get(id) {
            return Ok(pack);
        }
        if let Some(dir) = self.unloaded.get(id) {
            // A caller of discover_only asked for a pack it did not name: a bug, not data.
            return Err(Error::invalid(format!(
                "pack {id:?} ({}) was discovered but not loaded",
                dir.display()
            )));
        }
        let mut known: Vec<String> = self.packs.keys().cloned().collect();
        known.extend(self.unloaded.keys().cloned());
        known.sort();
        Err(ErrorKind::UnknownPack {
            id: id.to_owned(),
            known,
        }
        .into())
    }

    /// All packs, by id.
    pub fn iter(&self) -> impl Iterator<Item = &Pack> {
        self.packs.values()
    }
}
