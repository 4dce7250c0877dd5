//! The hashes users search model files by, computed in one streaming pass:
//! SHA-256 of the whole file, Civitai's AutoV2 (its first 10 hex digits, upper
//! case), AutoV3 (SHA-256 of the tensor data after the `8 + header_len`
//! bytes, the hash kohya's sd-scripts store as `sshs_model_hash` and
//! ModelSpec as `modelspec.hash_sha256`, so editing the metadata leaves it
//! unchanged) and BLAKE3, which Civitai lists too.

use std::io::Read;

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::header::Header;

/// A file's hashes. Hex digests are lower case except `autov2`, which is
/// upper case as Civitai prints it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Hashes {
    pub sha256: String,
    pub autov2: String,
    /// SHA-256 of the bytes after `8 + header_len`; `None` when the file is
    /// shorter than its first 8 bytes say its header is (not safetensors).
    pub autov3: Option<String>,
    pub blake3: String,
    /// Bytes hashed.
    pub len: u64,
}

/// Streaming hasher: feed the file in chunks of any size with
/// [`update`](Self::update), then [`finish`](Self::finish). It reads the
/// header length from the first 8 bytes as they pass, so AutoV3 needs no
/// second read.
#[derive(Debug, Clone, Default)]
pub struct FileHasher {
    sha256: Sha256,
    blake3: blake3::Hasher,
    tensor_sha256: Sha256,
    prefix: Vec<u8>,
    seen: u64,
    data_start: Option<u64>,
}

impl FileHasher {
    pub fn new() -> Self {
        Self::default()
    }

    /// Hashes the next bytes of the file.
    pub fn update(&mut self, bytes: &[u8]) {
        self.sha256.update(bytes);
        self.blake3.update(bytes);
        if self.prefix.len() < 8 {
            let take = (8 - self.prefix.len()).min(bytes.len());
            self.prefix
                .extend_from_slice(bytes.get(..take).unwrap_or_default());
            if let Ok(len) = <[u8; 8]>::try_from(self.prefix.as_slice()) {
                self.data_start = u64::from_le_bytes(len).checked_add(8);
            }
        }
        let start = self.seen;
        self.seen += bytes.len() as u64;
        if let Some(data_start) = self.data_start {
            if self.seen > data_start {
                let skip = data_start.saturating_sub(start);
                let from = usize::try_from(skip).unwrap_or(usize::MAX);
                if let Some(tensor_bytes) = bytes.get(from..) {
                    self.tensor_sha256.update(tensor_bytes);
                }
            }
        }
    }

    /// The hashes of everything fed so far.
    pub fn finish(self) -> Hashes {
        let sha256 = hex::encode(self.sha256.finalize());
        let autov2 = sha256.get(..10).unwrap_or_default().to_ascii_uppercase();
        let autov3 = match self.data_start {
            Some(start) if self.seen >= start => Some(hex::encode(self.tensor_sha256.finalize())),
            _ => None,
        };
        Hashes {
            sha256,
            autov2,
            autov3,
            blake3: self.blake3.finalize().to_hex().to_string(),
            len: self.seen,
        }
    }
}

/// Hashes everything `reader` yields, in 1 MiB reads.
pub fn hash_reader(reader: &mut impl Read) -> std::io::Result<Hashes> {
    let mut hasher = FileHasher::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        hasher.update(buf.get(..n).unwrap_or_default());
    }
    Ok(hasher.finish())
}

/// What a file's own metadata says of its tensor hash, against the hash
/// computed from its bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum DeclaredHash {
    /// The metadata declares no tensor hash.
    Absent,
    /// The declared hash (`sshs_model_hash` or `modelspec.hash_sha256`) is
    /// the computed AutoV3.
    Matches,
    /// A declared hash differs from the data: the tensors were changed after
    /// the trainer wrote the metadata (converted, merged or tampered with).
    Differs { declared: String },
}

/// Compares the tensor hashes a file declares in its metadata (kohya's
/// `sshs_model_hash`, ModelSpec's `modelspec.hash_sha256`, with or without
/// `0x`) with the AutoV3 computed from its bytes.
pub fn check_declared_hash(header: &Header, hashes: &Hashes) -> DeclaredHash {
    let declared: Vec<String> = ["sshs_model_hash", "modelspec.hash_sha256"]
        .iter()
        .filter_map(|k| header.metadata.get(*k))
        .map(|v| v.trim().trim_start_matches("0x").to_ascii_lowercase())
        .filter(|v| !v.is_empty())
        .collect();
    let Some(first) = declared.first() else {
        return DeclaredHash::Absent;
    };
    match &hashes.autov3 {
        Some(actual) => match declared.iter().find(|d| *d != actual) {
            Some(d) => DeclaredHash::Differs {
                declared: d.clone(),
            },
            None => DeclaredHash::Matches,
        },
        None => DeclaredHash::Differs {
            declared: first.clone(),
        },
    }
}
