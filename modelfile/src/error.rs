//! The one error type of this crate: why a file is refused, with a stable
//! message key (`key()`) the server maps to its envelope.

/// Why a model file is refused. `key()` is stable; the `Display` text may
/// name a tensor or a size but never a path or an internal detail.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelFileError {
    /// The bytes are not a safetensors file (and not a pickle either).
    #[error("not a safetensors file")]
    NotSafetensors,
    /// The header length exceeds `Limits::max_header_bytes`.
    #[error("the safetensors header declares {declared} bytes, more than the {limit} allowed")]
    HeaderTooLarge { declared: u64, limit: u64 },
    /// The header is not valid UTF-8 JSON, names an unknown dtype, or its
    /// tensor entries are inconsistent (offsets with gaps or overlaps, a byte
    /// length that is not dtype size x element count).
    #[error("invalid safetensors header: {0}")]
    HeaderInvalid(String),
    /// The header's sizes do not add up to the file's length (the header or
    /// its tensors claim more, or fewer, bytes than the file has).
    #[error("the header describes a file of {declared} bytes but the file has {actual}")]
    SizeMismatch { declared: u64, actual: u64 },
    /// The `__metadata__` map exceeds `Limits::max_metadata_bytes`.
    #[error("the file's metadata is {bytes} bytes, more than the {limit} allowed")]
    MetadataTooLarge { bytes: u64, limit: u64 },
    /// More tensors than `Limits::max_tensors`.
    #[error("the file has {count} tensors, more than the {limit} allowed")]
    TooManyTensors { count: u64, limit: u64 },
    /// A pickle or a PyTorch zip (`.ckpt`, `.pt`, `.bin`): loading one can run
    /// arbitrary code, so it is refused unread.
    #[error("pickle-based model files can run code and are refused; upload a .safetensors file")]
    Pickle,
    /// The reader failed (not the file's fault).
    #[error("could not read the file: {0}")]
    Io(String),
}

impl ModelFileError {
    /// The stable message key of this refusal.
    pub const fn key(&self) -> &'static str {
        match self {
            Self::NotSafetensors => "modelFileNotSafetensors",
            Self::HeaderTooLarge { .. } => "modelFileHeaderTooLarge",
            Self::HeaderInvalid(_) => "modelFileHeaderInvalid",
            Self::SizeMismatch { .. } => "modelFileSizeMismatch",
            Self::MetadataTooLarge { .. } => "modelFileMetadataTooLarge",
            Self::TooManyTensors { .. } => "modelFileTooManyTensors",
            Self::Pickle => "modelFilePickle",
            Self::Io(_) => "modelFileIo",
        }
    }
}

impl From<std::io::Error> for ModelFileError {
    fn from(e: std::io::Error) -> Self {
        Self::Io(e.kind().to_string())
    }
}
