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
        let manifest_path = dir.join("pack.toml");
        let text =
            std::fs::read_to_string(&manifest_path).map_err(|e| Error::io(&manifest_path, e))?;
        let manifest: Manifest = toml::from_str(&text)
            .map_err(|e| Error::pack(&manifest_path, e.to_string().trim_end().to_owned()))?;
        manifest
            .check()
            .map_err(|m| Error::pack(&manifest_path, m))?;

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

/// The packs known to a run: every folder with a `pack.toml` under one directory.
#[derive(Debug, Clone, Default)]
pub struct Packs {
    packs: BTreeMap<String, Pack>,
}

impl Packs {
    /// Loads every pack folder directly under `dir` (a folder of pack folders).
    pub fn discover(dir: impl AsRef<Path>) -> Result<Packs> {
        let dir = dir.as_ref();
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
            packs.insert(Pack::open(&folder)?)?;
        }
        Ok(packs)
    }

    /// Adds a loaded pack; two packs with one id are an error.
    pub fn insert(&mut self, pack: Pack) -> Result<()> {
        if let Some(existing) = self.packs.get(pack.id()) {
            return Err(Error::pack(
                pack.dir(),
                format!(
                    "pack id {:?} is also used by {}",
                    pack.id(),
                    existing.dir().display()
                ),
            ));
        }
        self.packs.insert(pack.id().to_owned(), pack);
        Ok(())
    }

    /// The pack with this id.
    pub fn get(&self, id: &str) -> Result<&Pack> {
        self.packs.get(id).ok_or_else(|| {
            ErrorKind::UnknownPack {
                id: id.to_owned(),
                known: self.packs.keys().cloned().collect(),
            }
            .into()
        })
    }

    /// All packs, by id.
    pub fn iter(&self) -> impl Iterator<Item = &Pack> {
        self.packs.values()
    }
}
