//! Objects in a local folder: one file per key, at the key's path under the
//! folder.
//!
//! Each file holds a one-line header with the content type, then the bytes:
//! `EASELOBJ1\n<content type>\n<bytes>`. Keeping the content type inside the
//! file (not in a sidecar, not guessed from the extension) means the bytes
//! and their type are replaced together by one atomic rename.
//!
//! A put writes a uniquely named temporary file in `<dir>/#tmp` (`#` cannot
//! occur in a key, so no key collides with it), fsyncs it, renames it over
//! the key's path and fsyncs the directory: a reader sees the old object or
//! the new one, never a partial file, and concurrent puts of one key each
//! land whole (the last rename wins). A key whose path is a directory
//! because longer keys live under it (`a` when `a/b` exists) cannot be put.

use std::fs::{self, File, OpenOptions};
use std::io::{BufRead, BufReader, ErrorKind, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use super::{
    check_content_type, ObjectError, ObjectKey, ObjectMeta, ObjectResult, Objects, StoredObject,
};

const MAGIC: &[u8] = b"EASELOBJ1\n";
const TMP_DIR: &str = "#tmp";
/// Temporary files older than this at start-up are leftovers of a crash.
const STALE_TMP: Duration = Duration::from_secs(3600);

/// Distinguishes the temporary files of concurrent puts in one process.
static TMP_COUNTER: AtomicU64 = AtomicU64::new(0);

pub struct LocalObjects {
    root: Arc<PathBuf>,
}

fn io_err(context: &str, e: std::io::Error) -> ObjectError {
    ObjectError::Unavailable(format!("{context}: {e}"))
}

impl LocalObjects {
    /// Uses `dir` (created if missing) and removes old temporary files left
    /// by a crash.
    pub fn new(dir: impl Into<PathBuf>) -> ObjectResult<LocalObjects> {
        let root: PathBuf = dir.into();
        let tmp = root.join(TMP_DIR);
        fs::create_dir_all(&tmp).map_err(|e| io_err("creating the objects folder", e))?;
        if let Ok(entries) = fs::read_dir(&tmp) {
            for entry in entries.flatten() {
                let old = entry
                    .metadata()
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|t| SystemTime::now().duration_since(t).ok())
                    .is_some_and(|age| age > STALE_TMP);
                if old {
                    let _ = fs::remove_file(entry.path());
                }
            }
        }
        Ok(LocalObjects {
            root: Arc::new(root),
        })
    }

    fn path(root: &Path, key: &ObjectKey) -> PathBuf {
        root.join(key.as_str())
    }

    fn put_blocking(
        root: &Path,
        key: &ObjectKey,
        bytes: &[u8],
        content_type: &str,
    ) -> ObjectResult<()> {
        LocalObjects::write_blocking(root, key, content_type, |f| f.write_all(bytes))
    }

    /// Writes a temporary file (header, then what `body` writes), fsyncs
    /// it and renames it over the key's path (see the module doc).
    fn write_blocking(
        root: &Path,
        key: &ObjectKey,
        content_type: &str,
        body: impl FnOnce(&mut File) -> std::io::Result<()>,
    ) -> ObjectResult<()> {
        let target = LocalObjects::path(root, key);
        let parent = target.parent().unwrap_or(root).to_path_buf();
        fs::create_dir_all(&parent).map_err(|e| io_err("creating the key's folder", e))?;
        let n = TMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let nanos = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let tmp = root
            .join(TMP_DIR)
            .join(format!("{}-{n}-{nanos}", std::process::id()));
        let written = (|| -> std::io::Result<()> {
            let mut f = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
            f.write_all(MAGIC)?;
            f.write_all(content_type.as_bytes())?;
            f.write_all(b"\n")?;
            body(&mut f)?;
            f.sync_all()?;
            fs::rename(&tmp, &target)?;
            // Make the rename itself durable.
            File::open(&parent)?.sync_all()
        })();
        if let Err(e) = written {
            let _ = fs::remove_file(&tmp);
            return Err(io_err(&format!("writing object {key}"), e));
        }
        Ok(())
    }

    fn get_blocking(root: &Path, key: &ObjectKey) -> ObjectResult<Option<StoredObject>> {
        let path = LocalObjects::path(root, key);
        let data = match fs::read(&path) {
            Ok(d) => d,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
            Err(_) if path.is_dir() => return Ok(None),
            Err(e) => return Err(io_err(&format!("reading object {key}"), e)),
        };
        let corrupt = |reason: &str| ObjectError::Corrupt {
            key: key.to_string(),
            reason: reason.to_owned(),
        };
        let rest = data
            .strip_prefix(MAGIC)
            .ok_or_else(|| corrupt("missing header"))?;
        let newline = rest
            .iter()
            .position(|b| *b == b'\n')
            .ok_or_else(|| corrupt("unterminated content type"))?;
        let (ct, body) = rest.split_at(newline);
        let content_type = std::str::from_utf8(ct)
            .map_err(|_| corrupt("content type is not UTF-8"))?
            .to_owned();
        let bytes = body.get(1..).unwrap_or_default().to_vec();
        Ok(Some(StoredObject {
            bytes,
            content_type,
        }))
    }

    /// Opens an object's file positioned at its first byte: the file, its
    /// content type and the body's size.
    fn open_body(
        root: &Path,
        key: &ObjectKey,
    ) -> ObjectResult<Option<(BufReader<File>, String, u64)>> {
        let path = LocalObjects::path(root, key);
        let file = match File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
            Err(_) if path.is_dir() => return Ok(None),
            Err(e) => return Err(io_err(&format!("opening object {key}"), e)),
        };
        if path.is_dir() {
            return Ok(None);
        }
        let total = file
            .metadata()
            .map_err(|e| io_err(&format!("reading object {key}"), e))?
            .len();
        let corrupt = |reason: &str| ObjectError::Corrupt {
            key: key.to_string(),
            reason: reason.to_owned(),
        };
        let mut r = BufReader::new(file);
        let mut magic = [0u8; 10];
        r.read_exact(&mut magic)
            .map_err(|_| corrupt("missing header"))?;
        if magic != MAGIC {
            return Err(corrupt("missing header"));
        }
        let mut ct = Vec::new();
        r.read_until(b'\n', &mut ct)
            .map_err(|e| io_err(&format!("reading object {key}"), e))?;
        if ct.pop() != Some(b'\n') {
            return Err(corrupt("unterminated content type"));
        }
        let content_type =
            String::from_utf8(ct).map_err(|_| corrupt("content type is not UTF-8"))?;
        let header = MAGIC.len() as u64 + content_type.len() as u64 + 1;
        Ok(Some((r, content_type, total.saturating_sub(header))))
    }

    async fn blocking<T: Send + 'static>(
        f: impl FnOnce() -> ObjectResult<T> + Send + 'static,
    ) -> ObjectResult<T> {
        tokio::task::spawn_blocking(f)
            .await
            .map_err(|e| ObjectError::Unavailable(format!("file task failed: {e}")))?
    }
}

#[async_trait::async_trait]
impl Objects for LocalObjects {
    async fn put(&self, key: &ObjectKey, bytes: Vec<u8>, content_type: &str) -> ObjectResult<()> {
        check_content_type(content_type)?;
        let (root, key, ct) = (self.root.clone(), key.clone(), content_type.to_owned());
        LocalObjects::blocking(move || LocalObjects::put_blocking(&root, &key, &bytes, &ct)).await
    }

    async fn get(&self, key: &ObjectKey) -> ObjectResult<Option<StoredObject>> {
        let (root, key) = (self.root.clone(), key.clone());
        LocalObjects::blocking(move || LocalObjects::get_blocking(&root, &key)).await
    }

    async fn exists(&self, key: &ObjectKey) -> ObjectResult<bool> {
        let path = LocalObjects::path(&self.root, key);
        let key = key.clone();
        LocalObjects::blocking(move || match fs::metadata(&path) {
            Ok(m) => Ok(m.is_file()),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(false),
            Err(e) => Err(io_err(&format!("checking object {key}"), e)),
        })
        .await
    }

    async fn delete(&self, key: &ObjectKey) -> ObjectResult<()> {
        let path = LocalObjects::path(&self.root, key);
        let key = key.clone();
        LocalObjects::blocking(move || match fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
            Err(_) if path.is_dir() => Ok(()),
            Err(e) => Err(io_err(&format!("deleting object {key}"), e)),
        })
        .await
    }

    async fn head(&self, key: &ObjectKey) -> ObjectResult<Option<ObjectMeta>> {
        let (root, key) = (self.root.clone(), key.clone());
        LocalObjects::blocking(move || {
            Ok(LocalObjects::open_body(&root, &key)?
                .map(|(_, content_type, size)| ObjectMeta { size, content_type }))
        })
        .await
    }

    async fn get_range(
        &self,
        key: &ObjectKey,
        offset: u64,
        len: u64,
    ) -> ObjectResult<Option<Vec<u8>>> {
        let (root, key) = (self.root.clone(), key.clone());
        LocalObjects::blocking(move || {
            let Some((mut r, _, size)) = LocalObjects::open_body(&root, &key)? else {
                return Ok(None);
            };
            let len = len.min(size.saturating_sub(offset));
            let io = |e| io_err(&format!("reading object {key}"), e);
            r.seek(SeekFrom::Current(
                i64::try_from(offset.min(size)).unwrap_or(i64::MAX),
            ))
            .map_err(io)?;
            let mut out = vec![0u8; usize::try_from(len).unwrap_or(0)];
            r.read_exact(&mut out).map_err(io)?;
            Ok(Some(out))
        })
        .await
    }

    async fn concat(
        &self,
        parts: &[ObjectKey],
        key: &ObjectKey,
        content_type: &str,
    ) -> ObjectResult<u64> {
        check_content_type(content_type)?;
        let (root, key, ct) = (self.root.clone(), key.clone(), content_type.to_owned());
        let parts = parts.to_vec();
        LocalObjects::blocking(move || {
            // Every part opened first: a missing one fails before writing.
            let mut bodies = Vec::with_capacity(parts.len());
            for p in &parts {
                let (r, _, size) = LocalObjects::open_body(&root, p)?.ok_or_else(|| {
                    ObjectError::Unavailable(format!("part {p} of {key} is missing"))
                })?;
                bodies.push((r, size));
            }
            let total = bodies.iter().map(|(_, n)| n).sum();
            LocalObjects::write_blocking(&root, &key, &ct, |f| {
                for (r, size) in &mut bodies {
                    let copied = std::io::copy(&mut r.take(*size), f)?;
                    if copied != *size {
                        return Err(std::io::Error::new(
                            ErrorKind::UnexpectedEof,
                            "a part shrank",
                        ));
                    }
                }
                Ok(())
            })?;
            Ok(total)
        })
        .await
    }

    fn backend_name(&self) -> &'static str {
        "local"
    }
}
