//! The worker's model cache (issue 19): users' model files a job needs
//! (checkpoints, LoRAs, embeddings: [`ModelFileRef`]) fetched from the
//! object store into `{data_dir}/model-cache/{sha256}.safetensors`, so that
//! engines get a local file.
//!
//! - A file is fetched by ranges (never whole in memory) into a temporary
//!   file, hashed with SHA-256 while it streams, and renamed into place only
//!   when its size and hash are the job's: a tampered or truncated object
//!   fails the job with a clear reason and leaves nothing behind.
//! - A cached file is reused (its modification time is its last use).
//! - [`ModelCache::fetch_with`] tells its caller how many bytes arrived
//!   (the worker keeps the job's lease and reports the download as
//!   progress); a fetch dropped half-way (the job was cancelled) removes
//!   its temporary file.
//! - The cache is bounded ([`CACHE_BYTES_ENV`], default
//!   [`DEFAULT_CACHE_BYTES`]): after each fetch the least recently used
//!   files are removed until the total fits, never a file a job of this
//!   process holds ([`Pin`]). A single file larger than the bound is still
//!   fetched (the job needs it) and is the first to go afterwards.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use infra::objects::{DynObjects, ObjectKey};
use protocol::task::ModelFileRef;
use sha2::{Digest, Sha256};
use tokio::io::AsyncWriteExt;

/// The environment variable bounding the cache, in bytes.
pub const CACHE_BYTES_ENV: &str = "EASEL_MODEL_CACHE_BYTES";
/// 20 GiB: a few SDXL checkpoints and many LoRAs.
pub const DEFAULT_CACHE_BYTES: u64 = 20 * 1024 * 1024 * 1024;
/// Bytes read from the object store per request.
const CHUNK: u64 = 8 * 1024 * 1024;

/// Why a model file could not be made available.
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    /// The object is missing, or its size or hash is not the job's: the
    /// job cannot succeed on any worker.
    #[error("model file {name}: {why}")]
    Invalid { name: String, why: String },
    /// Storage or disk trouble: another attempt may succeed.
    #[error("model file {name}: {why}")]
    Unavailable { name: String, why: String },
}

impl CacheError {
    pub fn retryable(&self) -> bool {
        matches!(self, CacheError::Unavailable { .. })
    }
}

/// The cache bound from [`CACHE_BYTES_ENV`]; a value that is not a
/// positive whole number is a start-up error.
pub fn cache_bytes() -> anyhow::Result<u64> {
    parse_cache_bytes(std::env::var(CACHE_BYTES_ENV).ok().as_deref())
}

fn parse_cache_bytes(v: Option<&str>) -> anyhow::Result<u64> {
    let Some(raw) = v else {
        return Ok(DEFAULT_CACHE_BYTES);
    };
    raw.trim()
        .parse::<u64>()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| {
            anyhow::anyhow!(
                "{CACHE_BYTES_ENV}={raw:?}: expected a positive whole number of bytes (default {DEFAULT_CACHE_BYTES})"
            )
        })
}

/// A hex SHA-256 as file names use it (64 lowercase hex digits), or None.
fn file_stem(sha256: &str) -> Option<String> {
    let s = sha256.trim().to_ascii_lowercase();
    (s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit())).then_some(s)
}

#[derive(Debug)]
pub struct ModelCache {
    dir: PathBuf,
    max_bytes: u64,
    /// Files jobs of this process hold, by hash: never evicted.
    pinned: Mutex<HashMap<String, usize>>,
}

/// Holds a cached file against eviction while a job uses it.
#[derive(Debug)]
pub struct Pin {
    cache: Arc<ModelCache>,
    stem: String,
}

impl Drop for Pin {
    fn drop(&mut self) {
        if let Ok(mut p) = self.cache.pinned.lock() {
            if let Some(n) = p.get_mut(&self.stem) {
                *n = n.saturating_sub(1);
                if *n == 0 {
                    p.remove(&self.stem);
                }
            }
        }
    }
}

impl ModelCache {
    /// A cache in `dir` (created) bounded to `max_bytes`.
    pub fn new(dir: PathBuf, max_bytes: u64) -> std::io::Result<Arc<ModelCache>> {
        std::fs::create_dir_all(&dir)?;
        Ok(Arc::new(ModelCache {
            dir,
            max_bytes,
            pinned: Mutex::new(HashMap::new()),
        }))
    }

    /// The cache under a data folder: `{data_dir}/model-cache`.
    pub fn in_data_dir(data_dir: &Path) -> anyhow::Result<Arc<ModelCache>> {
        let dir = data_dir.join("model-cache");
        ModelCache::new(dir.clone(), cache_bytes()?)
            .map_err(|e| anyhow::anyhow!("creating the model cache {}: {e}", dir.display()))
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn pin(self: &Arc<Self>, stem: &str) -> Pin {
        if let Ok(mut p) = self.pinned.lock() {
            *p.entry(stem.to_owned()).or_insert(0) += 1;
        }
        Pin {
            cache: self.clone(),
            stem: stem.to_owned(),
        }
    }

    /// The local path of `f`, fetched and verified if it is not cached,
    /// pinned until the returned [`Pin`] drops.
    pub async fn fetch(
        self: &Arc<Self>,
        objects: &DynObjects,
        f: &ModelFileRef,
    ) -> Result<(PathBuf, Pin), CacheError> {
        self.fetch_with(objects, f, &|_| {}).await
    }

    /// [`ModelCache::fetch`], calling `fetched` with the bytes downloaded so
    /// far after each range (never for a cached file).
    pub async fn fetch_with(
        self: &Arc<Self>,
        objects: &DynObjects,
        f: &ModelFileRef,
        fetched: &(dyn Fn(u64) + Send + Sync),
    ) -> Result<(PathBuf, Pin), CacheError> {
        let invalid = |why: String| CacheError::Invalid {
            name: f.name.clone(),
            why,
        };
        let unavailable = |why: String| CacheError::Unavailable {
            name: f.name.clone(),
            why,
        };
        let stem = file_stem(&f.sha256).ok_or_else(|| invalid("bad SHA-256".into()))?;
        let pin = self.pin(&stem);
        let path = self.dir.join(format!("{stem}.safetensors"));
        if let Ok(meta) = tokio::fs::metadata(&path).await {
            if meta.len() == f.size {
                // Its last use, for the LRU order.
                if let Ok(file) = std::fs::File::options().append(true).open(&path) {
                    let _ = file.set_modified(SystemTime::now());
                }
                return Ok((path, pin));
            }
        }
        let key = ObjectKey::parse(&f.key).map_err(|e| invalid(format!("bad object key: {e}")))?;
        let head = objects
            .head(&key)
            .await
            .map_err(|e| unavailable(e.to_string()))?
            .ok_or_else(|| invalid("the stored file is gone".into()))?;
        if head.size != f.size {
            return Err(invalid(format!(
                "the stored file has {} bytes, not the {} recorded: it was changed",
                head.size, f.size
            )));
        }
        let tmp = self.dir.join(format!(
            "{stem}.part-{}",
            hex::encode(rand::random::<[u8; 6]>())
        ));
        // Removed on every way out but the rename, a dropped future included.
        let guard = TempFile(Some(tmp.clone()));
        let written = self.download(objects, &key, f.size, &tmp, fetched).await;
        let digest = match written {
            Ok(d) => d,
            Err(e) => {
                return Err(match e {
                    Download::Short => invalid("the stored file ended early".into()),
                    Download::Io(why) => unavailable(why),
                });
            }
        };
        if digest != stem {
            return Err(invalid(format!(
                "SHA-256 mismatch: the stored file hashes to {digest}, not {stem} (tampered or corrupted)"
            )));
        }
        tokio::fs::rename(&tmp, &path)
            .await
            .map_err(|e| unavailable(format!("placing in the cache: {e}")))?;
        guard.keep();
        self.evict().await;
        Ok((path, pin))
    }

    async fn download(
        &self,
        objects: &DynObjects,
        key: &ObjectKey,
        size: u64,
        tmp: &Path,
        fetched: &(dyn Fn(u64) + Send + Sync),
    ) -> Result<String, Download> {
        let mut out = tokio::fs::File::create(tmp)
            .await
            .map_err(|e| Download::Io(format!("creating {}: {e}", tmp.display())))?;
        let mut hasher = Sha256::new();
        let mut offset = 0u64;
        while offset < size {
            let part = objects
                .get_range(key, offset, CHUNK.min(size - offset))
                .await
                .map_err(|e| Download::Io(e.to_string()))?
                .ok_or(Download::Short)?;
            if part.is_empty() {
                return Err(Download::Short);
            }
            hasher.update(&part);
            out.write_all(&part)
                .await
                .map_err(|e| Download::Io(e.to_string()))?;
            offset += part.len() as u64;
            fetched(offset);
        }
        out.sync_all()
            .await
            .map_err(|e| Download::Io(e.to_string()))?;
        Ok(hex::encode(hasher.finalize()))
    }

    /// Removes the least recently used files until the cache fits its
    /// bound, sparing pinned ones.
    async fn evict(&self) {
        let dir = self.dir.clone();
        let pinned: Vec<String> = self
            .pinned
            .lock()
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default();
        let max = self.max_bytes;
        let r = tokio::task::spawn_blocking(move || evict_dir(&dir, max, &pinned)).await;
        if let Ok(Err(e)) = r {
            tracing::warn!(error = %e, "model cache eviction failed");
        }
    }
}

/// A temporary file removed when dropped, unless kept.
struct TempFile(Option<PathBuf>);

impl TempFile {
    fn keep(mut self) {
        self.0 = None;
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if let Some(p) = self.0.take() {
            let _ = std::fs::remove_file(p);
        }
    }
}

enum Download {
    Short,
    Io(String),
}

/// The LRU pass over a cache folder (see [`ModelCache::evict`]).
fn evict_dir(dir: &Path, max: u64, pinned: &[String]) -> std::io::Result<()> {
    let mut files = Vec::new();
    let mut total = 0u64;
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(stem) = name.strip_suffix(".safetensors") else {
            continue;
        };
        let meta = e.metadata()?;
        total += meta.len();
        let used = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
        files.push((used, meta.len(), stem.to_owned(), e.path()));
    }
    files.sort_by_key(|f| f.0);
    for (_, len, stem, path) in files {
        if total <= max {
            break;
        }
        if pinned.contains(&stem) {
            continue;
        }
        std::fs::remove_file(&path)?;
        total = total.saturating_sub(len);
    }
    Ok(())
}

#[cfg(test)]
#[path = "model_cache_tests.rs"]
mod tests;
