//! Reading and checking a safetensors header from a reader: only the 8-byte
//! length and the JSON header are read, never the tensor data (files are
//! several GB). The entries are parsed with the `safetensors` crate's own
//! `TensorInfo`/`Dtype` and checked with its `Metadata::new`; the checks that
//! need the file length, and the size limits, are done here.

use std::collections::{BTreeMap, HashMap};
use std::io::Read;

use safetensors::tensor::{Metadata, TensorInfo};
use safetensors::{Dtype, SafeTensorError};
use serde::{Deserialize, Serialize};

use crate::error::ModelFileError;
use crate::sniff::{sniff, FileKind, SNIFF_LEN};

/// Size limits applied while reading a header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest JSON header accepted, in bytes (the `safetensors` crate's own
    /// limit is 100 MB).
    pub max_header_bytes: u64,
    /// Largest `__metadata__` map accepted: the sum of its keys' and values'
    /// lengths, in bytes.
    pub max_metadata_bytes: u64,
    /// Most tensors accepted (a full SDXL checkpoint has about 2,500; a
    /// Flux checkpoint with text encoders under 2,000).
    pub max_tensors: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_header_bytes: 100 * 1024 * 1024,
            max_metadata_bytes: 1024 * 1024,
            max_tensors: 100_000,
        }
    }
}

/// One tensor's entry in the header.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TensorEntry {
    pub name: String,
    pub dtype: Dtype,
    pub shape: Vec<u64>,
    /// Byte offsets `[start, end)` within the data section (after the header).
    pub data_offsets: (u64, u64),
}

impl TensorEntry {
    /// Number of elements (product of the shape; 1 for a scalar).
    pub fn elements(&self) -> u64 {
        self.shape
            .iter()
            .fold(1u64, |acc, d| acc.saturating_mul(*d))
    }
}

/// A checked safetensors header.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Header {
    /// Length of the JSON header (the value of the first 8 bytes).
    pub header_len: u64,
    /// Length of the tensor data section; `8 + header_len + data_len` is the
    /// file length.
    pub data_len: u64,
    /// The `__metadata__` map (string to string), empty when absent.
    pub metadata: BTreeMap<String, String>,
    /// Tensors in data order (by offset).
    pub tensors: Vec<TensorEntry>,
}

impl Header {
    /// Offset of the first tensor byte in the file.
    pub fn data_start(&self) -> u64 {
        8 + self.header_len
    }

    /// The entry named `name`.
    pub fn tensor(&self, name: &str) -> Option<&TensorEntry> {
        self.tensors.iter().find(|t| t.name == name)
    }
}

/// The header's JSON as the `safetensors` crate itself reads it.
#[derive(Deserialize)]
struct RawHeader {
    #[serde(rename = "__metadata__")]
    metadata: Option<HashMap<String, String>>,
    #[serde(flatten)]
    tensors: HashMap<String, TensorInfo>,
}

/// Reads the 8-byte length and the JSON header from `reader` (positioned at
/// the start of a file of `file_len` bytes) and checks it: the header within
/// the limits and the file, valid JSON with known dtypes, tensors contiguous
/// from offset 0 without gaps or overlaps, each tensor's byte length equal to
/// dtype size x element count, and `8 + header_len + data_len == file_len`.
/// Pickles and PyTorch zips answer [`ModelFileError::Pickle`].
///
/// Reads at most `8 + header_len` bytes (plus up to [`SNIFF_LEN`] to tell a
/// PyTorch zip when the file is not safetensors).
pub fn read_header(
    reader: &mut impl Read,
    file_len: u64,
    limits: &Limits,
) -> Result<Header, ModelFileError> {
    // 9 bytes: the length and the header's first byte (a header is at
    // least `{}`, so this never reads tensor data).
    let mut head = Vec::with_capacity(9);
    reader.by_ref().take(9).read_to_end(&mut head)?;
    let kind = sniff(&head);
    if kind != FileKind::Safetensors {
        return Err(refusal(reader, head, kind));
    }
    let len_bytes: [u8; 8] = head
        .get(..8)
        .and_then(|b| b.try_into().ok())
        .ok_or(ModelFileError::NotSafetensors)?;
    let header_len = u64::from_le_bytes(len_bytes);
    if header_len > limits.max_header_bytes {
        return Err(ModelFileError::HeaderTooLarge {
            declared: header_len,
            limit: limits.max_header_bytes,
        });
    }
    let header_end = header_len.saturating_add(8);
    if header_end > file_len {
        return Err(ModelFileError::SizeMismatch {
            declared: header_end,
            actual: file_len,
        });
    }
    let mut json = head.split_off(8);
    reader
        .by_ref()
        .take(header_len.saturating_sub(1))
        .read_to_end(&mut json)?;
    if (json.len() as u64) < header_len {
        // The reader ended inside the header: the file is shorter than
        // the caller said.
        return Err(ModelFileError::SizeMismatch {
            declared: header_end,
            actual: 8 + json.len() as u64,
        });
    }
    let text = std::str::from_utf8(&json)
        .map_err(|_| ModelFileError::HeaderInvalid("the header is not UTF-8".into()))?;
    let raw: RawHeader = serde_json::from_str(text)
        .map_err(|e| ModelFileError::HeaderInvalid(format!("bad JSON: {e}")))?;

    let metadata_bytes: u64 = raw
        .metadata
        .iter()
        .flatten()
        .map(|(k, v)| (k.len() + v.len()) as u64)
        .sum();
    if metadata_bytes > limits.max_metadata_bytes {
        return Err(ModelFileError::MetadataTooLarge {
            bytes: metadata_bytes,
            limit: limits.max_metadata_bytes,
        });
    }
    let count = raw.tensors.len() as u64;
    if count > limits.max_tensors {
        return Err(ModelFileError::TooManyTensors {
            count,
            limit: limits.max_tensors,
        });
    }

    let mut tensors: Vec<(String, TensorInfo)> = raw.tensors.into_iter().collect();
    tensors.sort_by(|(an, a), (bn, b)| a.data_offsets.cmp(&b.data_offsets).then(an.cmp(bn)));
    let checked = Metadata::new(raw.metadata, tensors).map_err(tensor_error)?;
    let data_len = checked.data_len() as u64;
    let declared = header_end.saturating_add(data_len);
    if declared != file_len {
        return Err(ModelFileError::SizeMismatch {
            declared,
            actual: file_len,
        });
    }

    let mut entries: Vec<TensorEntry> = checked
        .tensors()
        .into_iter()
        .map(|(name, info)| TensorEntry {
            name,
            dtype: info.dtype,
            shape: info.shape.iter().map(|d| *d as u64).collect(),
            data_offsets: (info.data_offsets.0 as u64, info.data_offsets.1 as u64),
        })
        .collect();
    entries.sort_by(|a, b| {
        a.data_offsets
            .cmp(&b.data_offsets)
            .then(a.name.cmp(&b.name))
    });
    let metadata = checked
        .metadata()
        .iter()
        .flatten()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    Ok(Header {
        header_len,
        data_len,
        metadata,
        tensors: entries,
    })
}

/// The refusal for a file whose head is not safetensors: pickles and
/// PyTorch zips (told from a longer head) are refused as code.
fn refusal(reader: &mut impl Read, mut head: Vec<u8>, kind: FileKind) -> ModelFileError {
    match kind {
        FileKind::Pickle | FileKind::TorchZip => ModelFileError::Pickle,
        FileKind::Unknown if head.starts_with(b"PK\x03\x04") => {
            let more = (SNIFF_LEN - head.len().min(SNIFF_LEN)) as u64;
            if reader.by_ref().take(more).read_to_end(&mut head).is_ok()
                && sniff(&head) == FileKind::TorchZip
            {
                ModelFileError::Pickle
            } else {
                ModelFileError::NotSafetensors
            }
        }
        _ => ModelFileError::NotSafetensors,
    }
}

fn tensor_error(e: SafeTensorError) -> ModelFileError {
    let reason = match e {
        SafeTensorError::InvalidOffset(name) => {
            format!("tensor `{name}`: offsets leave a gap or overlap another tensor")
        }
        SafeTensorError::TensorInvalidInfo => {
            "a tensor's byte length is not its dtype size times its element count".to_string()
        }
        SafeTensorError::ValidationOverflow => "a tensor's shape overflows".to_string(),
        SafeTensorError::MisalignedSlice => {
            "a tensor's sub-byte elements do not fill whole bytes".to_string()
        }
        other => other.to_string(),
    };
    ModelFileError::HeaderInvalid(reason)
}
