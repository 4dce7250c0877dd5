//! Model files as facts: bytes and readers in, facts out. This crate owns
//! what Easel knows about a model file on its own: which format the first
//! bytes say it is ([`sniff`]), the safetensors header read and checked
//! without reading the tensors ([`read_header`]), what the tensors and the
//! training metadata say the model is ([`inspect`]), the hashes users search
//! by ([`FileHasher`]) and writing small safetensors files ([`write_safetensors`]).
//!
//! Architecture Invariant: this crate knows nothing of storage, accounts or
//! HTTP. Pickle-based formats (`.ckpt`, `.pt`, `.bin` PyTorch files) can run
//! code when loaded: this crate recognises them only to refuse them, and never
//! parses them.
//!
//! The safetensors format is read with Hugging Face's `safetensors` crate: its
//! `TensorInfo`/`Dtype` parse the header entries and its `Metadata::new`
//! checks that offsets are contiguous from 0 and that every tensor's byte
//! length is its dtype size times its element count; this crate adds the
//! checks that need the file's length (which the crate only does with the whole
//! file in memory) and the size limits.

mod error;
mod hash;
mod header;
mod inspect;
mod kohya;
mod sniff;
mod write;

pub use error::ModelFileError;
pub use hash::{check_declared_hash, hash_reader, DeclaredHash, FileHasher, Hashes};
pub use header::{read_header, Header, Limits, TensorEntry};
pub use inspect::{inspect, Inspection, ModelKind};
pub use kohya::KohyaMeta;
pub use safetensors::Dtype;
pub use sniff::{sniff, FileKind, SNIFF_LEN};
pub use write::write_safetensors;
