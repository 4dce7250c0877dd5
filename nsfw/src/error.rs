//! The classifier's errors.

use std::path::PathBuf;

/// Why a picture could not be scored or a model not loaded.
#[derive(Debug, thiserror::Error)]
pub enum NsfwError {
    /// The model file is not there; says how to get it.
    #[error(
        "NSFW model file {0} is missing: run ./scripts/fetch-model (or set EASEL_NSFW_MODEL_PATH)"
    )]
    ModelMissing(PathBuf),
    /// The file is there but is not the expected model.
    #[error("NSFW model file {path} is not usable: {reason}")]
    BadModel { path: PathBuf, reason: String },
    /// The picture is empty, too large or undecodable.
    #[error("{0}")]
    BadImage(String),
    /// The inference library failed on a valid picture.
    #[error("NSFW inference failed: {0}")]
    Inference(String),
}
