//! The built-in reference engine: CPU only, no weights, deterministic and
//! non-neural. Every action is a classical image algorithm (procedural
//! painting, Lanczos resampling, Canny edges, flood-fill matting, YCbCr skin
//! detection, outpaint fill, camera moves), so a fresh machine runs the whole
//! product and the tests need no GPU. Outputs are labelled as this engine.
//!
//! Architecture Invariant: the same [`JobSpec`] (ignoring `task_id` and
//! `attempt`) and the same input bytes give byte-identical outputs. Nothing
//! here reads the clock, the thread count or a hash map's order; randomness
//! comes only from [`rng`], seeded by the job's seed and the prompt.

use std::io::Cursor;
use std::sync::Arc;

use image::{codecs::png::PngEncoder, ExtendedColorType, ImageEncoder, ImageReader, RgbaImage};
use protocol::task::{Action, EngineInfo, InputRole, JobSpec};

use crate::{Cancel, Engine, EngineError, EngineResult, LoadedInput, Produced, Progress};

mod animate;
mod describe;
pub use describe::describe_image;
mod face;
mod filters;
mod matte;
mod ops;
mod prompt;
mod raster;
mod rng;
pub mod style;
mod synth;
pub mod video;
pub(crate) mod video_task;

use raster::Rgbf;

/// Largest accepted image side, input or output.
pub const MAX_SIDE: u32 = 4096;
/// Largest accepted pixel count, input or output.
pub const MAX_PIXELS: u64 = 4096 * 4096;
/// Largest batch (`n_iter`); the server allows 4, this bounds the work if
/// a job ever arrives unvalidated.
const MAX_BATCH: u32 = 16;

/// Where the reference engine reads a job's LoRA files (`LoraSpec::file`):
/// the worker's model cache. A file that is an Easel style file (made by the
/// reference trainer) is applied at the LoRA's weight to the pictures the
/// engine paints ([`STYLED_ACTIONS`]); any other file is skipped (no
/// weights are run here).
pub trait ModelFiles: Send + Sync {
    /// The file's bytes, when this worker has it.
    fn read(&self, file: &protocol::task::ModelFileRef) -> Option<Vec<u8>>;
}

/// The actions whose pictures Easel style files change: the ones that paint
/// a new picture (text to image, image to image, from a control map,
/// variations). The others keep their input's look (upscale, matte,
/// expansion of the input's own edges, face work, video) and say in the
/// task's notes that the style was not applied.
pub const STYLED_ACTIONS: [Action; 4] = [
    Action::TextToImage,
    Action::ImageToImage,
    Action::ConditionToImage,
    Action::Variation,
];

/// The reference engine. All state lives in the job, except where it reads
/// LoRA files from (none by default: styles are then not applied).
#[derive(Clone, Default)]
pub struct ReferenceEngine {
    files: Option<Arc<dyn ModelFiles>>,
}

impl std::fmt::Debug for ReferenceEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReferenceEngine")
            .field("files", &self.files.is_some())
            .finish()
    }
}

impl ReferenceEngine {
    pub fn new() -> ReferenceEngine {
        ReferenceEngine::default()
    }

    /// An engine that reads LoRA files through `files` and applies the Easel
    /// style files among them.
    pub fn with_model_files(files: Arc<dyn ModelFiles>) -> ReferenceEngine {
        ReferenceEngine { files: Some(files) }
    }

    /// The job's LoRAs that are Easel style files, with their weights and
    /// file names. Files are read through `files` when set, else from where
    /// the worker's model cache put them (`ModelFileRef::local_path`).
    pub fn styles_of(&self, job: &JobSpec) -> Vec<(String, style::Style, f32)> {
        job.loras
            .iter()
            .filter_map(|l| {
                let f = l.file.as_ref()?;
                let bytes = match &self.files {
                    Some(files) => files.read(f)?,
                    None => std::fs::read(f.local_path.as_ref()?).ok()?,
                };
                Some((
                    f.name.clone(),
                    style::Style::from_safetensors(&bytes)?,
                    l.weight,
                ))
            })
            .collect()
    }
}

#[async_trait::async_trait]
impl Engine for ReferenceEngine {
    fn info(&self) -> EngineInfo {
        EngineInfo {
            name: "reference".into(),
            neural: false,
            label: "Easel reference engine (non-neural)".into(),
            notes: Vec::new(),
        }
    }

    fn supports(&self, action: Action, _family: &str) -> bool {
        !action.is_audio() && !action.is_training()
    }

    async fn run(
        &self,
        job: &JobSpec,
        inputs: Vec<LoadedInput>,
        progress: Arc<dyn Progress>,
        cancel: Cancel,
    ) -> Result<EngineResult, EngineError> {
        let mut engine = self.info();
        let named = if STYLED_ACTIONS.contains(&job.action) {
            self.styles_of(job)
        } else {
            Vec::new()
        };
        let applied: Vec<&str> = named.iter().map(|(n, _, _)| n.as_str()).collect();
        if let Some(note) = user_models_note(job, &applied) {
            engine.notes.push(note);
        }
        if !applied.is_empty() {
            engine.notes.push(format!(
                "Easel style files applied by the reference engine (palette, texture and layout, non-neural): {}.",
                applied.join(", ")
            ));
        }
        let styles: Vec<(style::Style, f32)> = named.into_iter().map(|(_, s, w)| (s, w)).collect();
        let job = job.clone();
        let action = job.action;
        let outcome = tokio::task::spawn_blocking(move || {
            let mut ticker = Ticker::new(progress, cancel);
            ticker.start()?;
            let outcome = execute(&job, &inputs, &styles, &mut ticker)?;
            // A cancel that arrived during the last step still wins: the
            // worker no longer wants the outputs.
            ticker.check()?;
            ticker.finish();
            Ok::<Outcome, EngineError>(outcome)
        })
        .await
        .map_err(|e| EngineError::Failed(format!("reference engine worker stopped: {e}")))??;
        tracing::debug!(
            action = action.name(),
            outputs = outcome.outputs.len(),
            texts = outcome.texts.len(),
            "reference engine finished"
        );
        Ok(EngineResult {
            outputs: outcome.outputs,
            texts: outcome.texts,
            engine,
        })
    }
}

/// What the task says when a job names users' model files: this engine
/// has no neural network, so it cannot apply their weights; it still
/// paints from the prompt. `applied`: the Easel style files it did apply
/// (left out of the note).
pub fn user_models_note(job: &JobSpec, applied: &[&str]) -> Option<String> {
    let mut names: Vec<&str> = Vec::new();
    if let Some(f) = &job.model_file {
        names.push(&f.name);
    }
    names.extend(
        job.loras
            .iter()
            .filter_map(|l| l.file.as_ref())
            .map(|f| f.name.as_str()),
    );
    names.extend(job.embeddings.iter().map(|f| f.name.as_str()));
    names.retain(|n| !applied.contains(n));
    if names.is_empty() {
        return None;
    }
    Some(format!(
        "The reference engine cannot apply model weights (it is not a neural network): {} not applied; the picture follows the prompt only.",
        names.join(", ")
    ))
}

/// What an action produced.
#[derive(Debug, Default)]
pub(crate) struct Outcome {
    pub outputs: Vec<Produced>,
    pub texts: Vec<String>,
}

fn execute(
    job: &JobSpec,
    inputs: &[LoadedInput],
    styles: &[(style::Style, f32)],
    t: &mut Ticker,
) -> Result<Outcome, EngineError> {
    match job.action {
        Action::TextToImage => ops::text_to_image(job, styles, t),
        Action::ImageToImage => ops::image_to_image(job, inputs, styles, t),
        Action::ConditionToImage => ops::condition_to_image(job, inputs, styles, t),
        Action::Upscale | Action::ExtraUpscale => ops::upscale(job, inputs, t),
        Action::Variation => ops::variation(job, inputs, styles, t),
        Action::RemoveBackground => matte::remove_background(job, inputs, t),
        Action::Descriptors => describe::describe_inputs(inputs, t),
        Action::Preview => ops::preview(job, inputs, t),
        Action::Expansion => ops::expansion(job, inputs, t),
        Action::FaceSwap => face::face_swap(job, inputs, t),
        Action::Animation => animate::animate(job, inputs, t),
        Action::CharacterRepair => face::repair(job, inputs, t),
        Action::TextToVideo
        | Action::ImageToVideo
        | Action::MultiImageToVideo
        | Action::VideoEffect
        | Action::Live2d
        | Action::VideoUpscale
        | Action::VideoExtend
        | Action::FrameInterpolation
        | Action::VideoEdit => video_task::run(job, inputs, t),
        // Audio runs in `easel-audio`'s engine, routed before this one.
        Action::TextToAudioEffect
        | Action::TextToMusic
        | Action::VideoToAudio
        | Action::AudioToLipVideo
        | Action::VideoAddMusic
        | Action::TimbreTrain => Err(EngineError::BadInput(format!(
            "{} is an audio action: the audio engine runs it",
            job.action.name()
        ))),
        // Training runs in `easel-trainer`'s engine, routed before this one.
        Action::LoraTrain => Err(EngineError::BadInput(
            "LoRA training runs in the trainer engine".into(),
        )),
    }
}

/// Progress and cancellation for one run: actions call [`Ticker::tick`]
/// after each step; it checks for cancellation and reports a percentage that
/// never goes down and stays below 100 until the run is done.
pub(crate) struct Ticker {
    progress: Arc<dyn Progress>,
    cancel: Cancel,
    /// Steps the action announced with [`Ticker::plan`].
    total: u64,
    done: u64,
    /// Last percentage reported (reports never go below it).
    last: u8,
}

impl Ticker {
    fn new(progress: Arc<dyn Progress>, cancel: Cancel) -> Ticker {
        Ticker {
            progress,
            cancel,
            total: 1,
            done: 0,
            last: 0,
        }
    }

    fn start(&mut self) -> Result<(), EngineError> {
        self.check()?;
        self.progress.report(0);
        Ok(())
    }

    /// Announces how many ticks the action will make.
    pub fn plan(&mut self, total: u64) {
        self.total = total.max(1);
    }

    pub fn check(&self) -> Result<(), EngineError> {
        if self.cancel.is_cancelled() {
            Err(EngineError::Cancelled)
        } else {
            Ok(())
        }
    }

    /// One step done: fails with `Cancelled` if the job was cancelled.
    pub fn tick(&mut self) -> Result<(), EngineError> {
        self.check()?;
        self.done += 1;
        let pct = (self.done * 100 / self.total).min(99) as u8;
        self.last = self.last.max(pct);
        self.progress.report(self.last);
        Ok(())
    }

    fn finish(&mut self) {
        self.last = 100;
        self.progress.report(100);
    }
}

/// A decoded input image.
pub(crate) struct Decoded {
    pub img: RgbaImage,
    /// Whether the file had an alpha channel (masks read alpha when it does,
    /// luminance when it does not; outputs keep alpha only when given it).
    pub has_alpha: bool,
}

/// Decodes an input, refusing images over [`MAX_SIDE`] a side before their
/// pixels are allocated.
pub(crate) fn decode(bytes: &[u8], what: &str) -> Result<Decoded, EngineError> {
    let mut reader = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| EngineError::BadInput(format!("{what} image cannot be read: {e}")))?;
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    reader.limits(limits);
    let img = reader.decode().map_err(|e| match e {
        image::ImageError::Limits(_) => {
            EngineError::BadInput(format!("{what} image is larger than {MAX_SIDE} px a side"))
        }
        other => EngineError::BadInput(format!("{what} image cannot be read: {other}")),
    })?;
    check_size(img.width(), img.height(), what)?;
    Ok(Decoded {
        has_alpha: img.color().has_alpha(),
        img: img.to_rgba8(),
    })
}

/// The first input with `role`, decoded; missing is a bad input.
pub(crate) fn require(inputs: &[LoadedInput], role: InputRole) -> Result<Decoded, EngineError> {
    let name = role_name(role);
    let input = LoadedInput::find(inputs, role)
        .ok_or_else(|| EngineError::BadInput(format!("the {name} image is missing")))?;
    decode(&input.bytes, name)
}

/// The first input with any of `roles` (in that order of preference).
pub(crate) fn require_any(
    inputs: &[LoadedInput],
    roles: &[InputRole],
) -> Result<Decoded, EngineError> {
    for role in roles {
        if let Some(input) = LoadedInput::find(inputs, *role) {
            return decode(&input.bytes, role_name(*role));
        }
    }
    let names: Vec<&str> = roles.iter().map(|r| role_name(*r)).collect();
    Err(EngineError::BadInput(format!(
        "the {} image is missing",
        names.join(" or ")
    )))
}

fn role_name(role: InputRole) -> &'static str {
    match role {
        InputRole::Init => "init",
        InputRole::Mask => "mask",
        InputRole::Condition => "condition",
        InputRole::FaceSource => "face source",
        InputRole::FaceTarget => "face target",
        InputRole::VideoImage => "video image",
        InputRole::VideoSource => "source video",
        InputRole::Music => "music",
        InputRole::Audio => "audio",
    }
}

/// Refuses empty and oversized rasters.
pub(crate) fn check_size(w: u32, h: u32, what: &str) -> Result<(u32, u32), EngineError> {
    if w == 0 || h == 0 {
        return Err(EngineError::BadInput(format!(
            "{what} size {w}x{h} is empty"
        )));
    }
    if w > MAX_SIDE || h > MAX_SIDE || u64::from(w) * u64::from(h) > MAX_PIXELS {
        return Err(EngineError::BadInput(format!(
            "{what} size {w}x{h} exceeds {MAX_SIDE} px a side"
        )));
    }
    Ok((w, h))
}

/// The job's output size, or `fallback` when the job leaves it at 0.
pub(crate) fn out_size(job: &JobSpec, fallback: (u32, u32)) -> Result<(u32, u32), EngineError> {
    let (w, h) = if job.width == 0 || job.height == 0 {
        fallback
    } else {
        (job.width, job.height)
    };
    check_size(w, h, "output")
}

/// Number of outputs: `n_iter`, at least one.
pub(crate) fn batch(job: &JobSpec) -> Result<u32, EngineError> {
    let n = job.n_iter.max(1);
    if n > MAX_BATCH {
        return Err(EngineError::BadInput(format!(
            "n_iter {n} exceeds {MAX_BATCH}"
        )));
    }
    Ok(n)
}

/// Bands (progress steps) per generated picture: `steps`, at least a few.
pub(crate) fn bands(job: &JobSpec) -> u32 {
    job.steps.clamp(4, 150)
}

/// The seed reported for image `i` of a batch.
pub(crate) fn output_seed(job: &JobSpec, i: u32) -> u64 {
    job.seed.wrapping_add(u64::from(i))
}

pub(crate) fn encode_png(
    bytes: &[u8],
    w: u32,
    h: u32,
    color: ExtendedColorType,
) -> Result<Vec<u8>, EngineError> {
    let mut out = Vec::new();
    PngEncoder::new(&mut out)
        .write_image(bytes, w, h, color)
        .map_err(|e| EngineError::Failed(format!("png encoding failed: {e}")))?;
    Ok(out)
}

fn png_produced(bytes: Vec<u8>, w: u32, h: u32, seed: u64) -> Produced {
    Produced {
        bytes,
        mime: "image/png".into(),
        ext: "png".into(),
        width: w,
        height: h,
        seed,
        files: Vec::new(),
    }
}

/// An opaque RGB PNG output.
pub(crate) fn produce_rgb(img: &Rgbf, seed: u64) -> Result<Produced, EngineError> {
    let rgb = img.to_rgb8();
    let bytes = encode_png(rgb.as_raw(), img.w, img.h, ExtendedColorType::Rgb8)?;
    Ok(png_produced(bytes, img.w, img.h, seed))
}

/// A PNG output from 8-bit RGBA; written as RGB when `alpha` is false.
pub(crate) fn produce_rgba(
    img: &RgbaImage,
    alpha: bool,
    seed: u64,
) -> Result<Produced, EngineError> {
    let (w, h) = img.dimensions();
    let bytes = if alpha {
        encode_png(img.as_raw(), w, h, ExtendedColorType::Rgba8)?
    } else {
        let rgb: Vec<u8> = img
            .pixels()
            .flat_map(|p| [p.0[0], p.0[1], p.0[2]])
            .collect();
        encode_png(&rgb, w, h, ExtendedColorType::Rgb8)?
    };
    Ok(png_produced(bytes, w, h, seed))
}
