//! The index folder on disk: its exclusive lock, the schema version marker written once an index
//! is complete, and opening, or wiping and recreating, the tantivy index in it.

use std::fs;
use std::path::Path;

use tantivy::Index;

use crate::schema::{build_schema, fields_of, Fields, SCHEMA_VERSION};
use crate::SearchError;

/// File (next to tantivy's) recording the [`SCHEMA_VERSION`] of a completely built index.
pub(crate) const VERSION_FILE: &str = "easel-search.version";
/// tantivy's index metadata file: its presence marks a folder as an index.
const META_FILE: &str = "meta.json";
/// Held locked by the one open [`crate::SearchIndex`] of a folder, so a second one can neither
/// write nor wipe it.
const LOCK_FILE: &str = "easel-search.lock";

/// Opens the index in `dir` or (re)creates it empty; the flag says it was (re)created.
pub(crate) fn open_or_create(dir: &Path) -> Result<(Index, Fields, bool), SearchError> {
    let (schema, fields) = build_schema();
    if read_version(dir) == Some(SCHEMA_VERSION) {
        match Index::open_in_dir(dir) {
            Ok(index) if index.schema() == schema => {
                if let Some(found) = fields_of(&index.schema()) {
                    return Ok((index, found, false));
                }
            }
            Ok(_) => tracing::warn!(dir = %dir.display(), "search index schema differs"),
            Err(e) => tracing::warn!(dir = %dir.display(), error = %e, "search index unreadable"),
        }
    }
    wipe(dir)?;
    let index = Index::create_in_dir(dir, schema)?;
    Ok((index, fields, true))
}

/// Takes the folder's exclusive lock, or fails with [`SearchError::Busy`].
pub(crate) fn lock_folder(dir: &Path) -> Result<fs::File, SearchError> {
    let file = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(LOCK_FILE))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(fs::TryLockError::WouldBlock) => Err(SearchError::Busy(dir.to_path_buf())),
        Err(fs::TryLockError::Error(e)) => Err(e.into()),
    }
}

fn read_version(dir: &Path) -> Option<u32> {
    fs::read_to_string(dir.join(VERSION_FILE))
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// Records that the index in `dir` is complete under the current schema (atomically).
pub(crate) fn write_version(dir: &Path) -> Result<(), SearchError> {
    let tmp = dir.join(format!("{VERSION_FILE}.tmp"));
    fs::write(&tmp, format!("{SCHEMA_VERSION}\n"))?;
    fs::rename(&tmp, dir.join(VERSION_FILE))?;
    Ok(())
}

/// Empties `dir` (but for the lock we hold), only if it holds nothing else or looks like a
/// search index.
fn wipe(dir: &Path) -> Result<(), SearchError> {
    let entries: Vec<fs::DirEntry> = fs::read_dir(dir)?
        .filter(|e| e.as_ref().map_or(true, |e| e.file_name() != LOCK_FILE))
        .collect::<Result<_, _>>()?;
    let ours = entries.iter().any(|e| {
        let name = e.file_name();
        name == VERSION_FILE || name == META_FILE
    });
    if !entries.is_empty() && !ours {
        return Err(SearchError::ForeignFolder(dir.to_path_buf()));
    }
    for entry in entries {
        let path = entry.path();
        if entry.file_type()?.is_dir() {
            fs::remove_dir_all(path)?;
        } else {
            fs::remove_file(path)?;
        }
    }
    Ok(())
}
