//! Reading input files with a byte budget: at most `budget + 1` bytes are read, and only
//! regular files are opened.
//!
//! Every file counterlab reads (payloads, experiments, fixtures, pack manifests,
//! predictions) comes through here, so a hostile path cannot make it allocate without
//! bound (`/dev/zero`, a file of gigabytes) or wait forever (a FIFO nobody writes to).

use std::fs::File;
use std::io::Read;
use std::path::Path;

use crate::error::{Error, Result};
use crate::words::Budget;

/// What a bounded read found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Bounded {
    /// The whole file, at most the budget.
    Whole(Vec<u8>),
    /// The file is larger than the budget: the first `budget + 1` bytes, nothing more.
    OverBudget {
        /// The bytes read (`budget + 1` of them).
        prefix: Vec<u8>,
        /// The budget it exceeded, in bytes.
        budget: u64,
    },
}

/// Refuses anything but a regular file (a folder, a FIFO, a socket, a device), naming
/// what it is, before anything is opened for reading.
pub fn check_regular_file(path: &Path) -> Result<()> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    if meta.is_file() {
        return Ok(());
    }
    let what = if meta.is_dir() {
        "a directory"
    } else {
        file_type_name(&meta.file_type())
    };
    Err(Error::io(
        path,
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("is {what}, not a regular file (counterlab reads regular files only)"),
        ),
    ))
}

#[cfg(unix)]
fn file_type_name(kind: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_fifo() {
        "a FIFO (named pipe)"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else {
        "not a regular file"
    }
}

#[cfg(not(unix))]
fn file_type_name(_kind: &std::fs::FileType) -> &'static str {
    "not a regular file"
}

/// Reads a regular file, at most `budget + 1` bytes of it. The size the file system
/// reports is not trusted (a file can grow while it is read): the read itself stops.
pub fn read_bounded(path: &Path, budget: u64) -> Result<Bounded> {
    check_regular_file(path)?;
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    // The metadata size only sizes the buffer; capped by the budget, so a lie costs nothing.
    let hint = file
        .metadata()
        .map_or(0, |m| m.len())
        .min(budget.saturating_add(1));
    let mut bytes = Vec::with_capacity(usize::try_from(hint).unwrap_or(0));
    file.take(budget.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    if bytes.len() as u64 > budget {
        Ok(Bounded::OverBudget {
            prefix: bytes,
            budget,
        })
    } else {
        Ok(Bounded::Whole(bytes))
    }
}

/// [`read_bounded`], with a file over the budget as an error naming which budget it is
/// (`kind`: each front end names the option that raises it) and the file's size. A file
/// the file system reports as larger than the budget is refused unread; one that grows
/// while it is read is stopped by the bounded read.
pub fn read_within(path: &Path, budget: u64, kind: Budget) -> Result<Vec<u8>> {
    check_regular_file(path)?;
    let size = std::fs::metadata(path).map_or(0, |m| m.len());
    if size > budget {
        return Err(Error::over_budget(path, kind, budget, Some(size)));
    }
    match read_bounded(path, budget)? {
        Bounded::Whole(bytes) => Ok(bytes),
        Bounded::OverBudget { budget, .. } => Err(Error::over_budget(path, kind, budget, None)),
    }
}

/// The plain blake3 of a regular file's bytes (what `pack.toml` records), streamed in
/// fixed-size blocks: memory stays bounded whatever the file's size.
pub fn hash_file(path: &Path) -> Result<String> {
    check_regular_file(path)?;
    let mut file = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut hasher = blake3::Hasher::new();
    std::io::copy(&mut file, &mut hasher).map_err(|e| Error::io(path, e))?;
    Ok(hasher.finalize().to_hex().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_at_most_one_byte_past_the_budget() {
        let dir = std::env::temp_dir().join(format!("counterlab-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f");
        std::fs::write(&path, b"0123456789").unwrap();
        assert_eq!(
            read_bounded(&path, 10).unwrap(),
            Bounded::Whole(b"0123456789".to_vec())
        );
        assert_eq!(
            read_bounded(&path, 3).unwrap(),
            Bounded::OverBudget {
                prefix: b"0123".to_vec(),
                budget: 3
            }
        );
        let e = read_within(&path, 3, Budget::PredictionsBytes).unwrap_err();
        let crate::ErrorKind::OverBudget(over) = e.kind() else {
            panic!("{e}")
        };
        assert_eq!((over.limit, over.needed), (3, Some(10)), "{e}");
        assert!(e.to_string().contains("pass max_bytes = 10 or more"), "{e}");
        let e = read_bounded(&dir, 3).unwrap_err();
        assert!(e.to_string().contains("is a directory"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn devices_are_refused_without_reading() {
        let e = read_bounded(Path::new("/dev/zero"), 10).unwrap_err();
        assert!(e.to_string().contains("character device"), "{e}");
    }
}
