//! Non-neural reference video: real MP4 files made by classical algorithms
//! (camera moves with Lanczos/bilinear resampling over an image or over the
//! reference painting of a prompt, dissolves with optical drift, slide
//! transitions, procedural effects, a mesh-warp breathing loop, Lanczos
//! upscaling, motion-estimated extension and motion-compensated frame
//! interpolation), encoded by Debian's `ffmpeg` run as a child process.
//! Also [`transcode`] for videos made elsewhere (remote engines), the
//! packaging of a finished video for streaming ([`renditions`],
//! [`hls`]) and [`probe`] for checking that bytes are a real video.
//!
//! This is a library: it knows nothing of tasks, queues or storage. Bytes in,
//! bytes out.
//!
//! Frames are streamed: each frame is made, piped to ffmpeg's stdin as raw
//! RGB (`-f rawvideo -pix_fmt rgb24 -s WxH -r FPS -i -`) and dropped, so a
//! video is never held in memory as frames. ffmpeg writes
//! `-an -c:v libx264 -pix_fmt yuv420p -preset veryfast -crf 23 -threads 2
//! -movflags +faststart -fflags +bitexact` to a temp file that is read back.
//!
//! Determinism: the same [`VideoSpec`] gives the same frames, and with one
//! ffmpeg build the same MP4 bytes (x264 runs with a fixed thread count).
//! Another ffmpeg or x264 version may encode those frames to different
//! bytes. Kinds that read a video through ffmpeg's filters (upscale,
//! frame interpolation) depend on that ffmpeg's filters too.
//!
//! Sizes: video sides must be even for `yuv420p`, so a requested odd width or
//! height is rounded down to the even number below it (`641` → `640`); a side
//! under [`MIN_SIDE`] or over [`MAX_SIDE`] after rounding is refused. The work
//! is bounded by [`MAX_FRAMES`] and by [`MAX_WORK`] pixels × frames.

use image::{ExtendedColorType, RgbImage};

use super::encode_png;
use crate::EngineError;

mod blend;
mod camera;
mod edit;
mod effects;
pub mod ffmpeg;
mod source;
mod still;
mod stream;
#[cfg(test)]
mod tests;

pub use edit::{EditClip, EditMusic, MAX_EDIT_SECS, MAX_EDIT_WORK};
pub use effects::EFFECTS;
pub use source::transcode;
pub use still::{effect_preview, poster_png};
pub use stream::{hls, renditions, ALLOWED_HEIGHTS};

/// The honest label of everything this module makes.
pub const LABEL: &str = "Easel reference video (non-neural)";
/// Smallest video side, after rounding down to even.
pub const MIN_SIDE: u32 = 16;
/// Largest video side.
pub const MAX_SIDE: u32 = 3840;
/// Frame rates accepted for generated video.
pub const MIN_FPS: u32 = 1;
pub const MAX_FPS: u32 = 60;
/// Most frames in one output video.
pub const MAX_FRAMES: u32 = 1800;
/// Most pixels × frames in one output video: ten seconds of 1080p at 30 fps.
pub const MAX_WORK: u64 = 1920 * 1080 * 300;
/// Most input images (multi-image and effects).
pub const MAX_IMAGES: usize = 8;
/// Largest upscale factor.
pub const MAX_UPSCALE: f32 = 4.0;
/// Longest extension, seconds.
pub const MAX_EXTEND_SECS: f32 = 30.0;

/// What to make.
#[derive(Debug, Clone)]
pub struct VideoSpec {
    /// Output size for the generated kinds (rounded down to even); the
    /// video-input kinds take their size from the source.
    pub width: u32,
    pub height: u32,
    /// Frames per second for the generated kinds.
    pub fps: u32,
    /// Number of frames for the generated kinds (see [`VideoSpec::frames_for`]).
    pub frames: u32,
    pub seed: u64,
    pub prompt: String,
    pub negative_prompt: String,
    pub kind: VideoKind,
    /// The camera move (text-to-video, image-to-video, first/last); `None`
    /// picks one from the seed.
    pub camera: Option<CameraMove>,
}

impl VideoSpec {
    /// Frames for a duration in seconds at `fps` (rounded, at least 1).
    pub fn frames_for(duration_secs: f32, fps: u32) -> u32 {
        let f = (f64::from(duration_secs.max(0.0)) * f64::from(fps)).round();
        (f.min(f64::from(u32::MAX)) as u32).max(1)
    }
}

/// The kind of video and its inputs (images as encoded bytes: PNG, JPEG,
/// WebP...; videos as container bytes: MP4, WebM, MOV...).
#[derive(Debug, Clone)]
pub enum VideoKind {
    /// The reference painting of the prompt in motion.
    TextToVideo,
    /// A camera move over one image.
    ImageToVideo { image: Vec<u8> },
    /// From the first image to the last: a dissolve with optical drift.
    FirstLast { first: Vec<u8>, last: Vec<u8> },
    /// The images in sequence (1 to [`MAX_IMAGES`]), with transitions.
    MultiImage { images: Vec<Vec<u8>> },
    /// A procedural effect template (one of [`EFFECTS`]) over the images.
    Effect {
        template: String,
        images: Vec<Vec<u8>>,
    },
    /// A mesh-warp breathing loop over a character image.
    Live2d { image: Vec<u8> },
    /// The video, `factor` times larger (Lanczos per frame).
    Upscale { video: Vec<u8>, factor: f32 },
    /// The video, then `secs` more seconds continuing its last motion.
    Extend { video: Vec<u8>, secs: f32 },
    /// The video at twice its frame rate (motion-compensated interpolation).
    FrameInterpolation { video: Vec<u8> },
    /// The video editor's export: the clips' windows in order at the
    /// spec's size and frame rate, with their sound and the music.
    Edit {
        clips: Vec<EditClip>,
        music: Option<EditMusic>,
    },
}

/// Camera control (spec 2 `camera_control_option`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CameraMove {
    pub mode: CameraMode,
    /// Strength and direction, `-10..=10` (clamped); `0` means the default
    /// strength 5. Negative reverses (left, up, zoom out).
    pub offset: f32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CameraMode {
    /// A push in combined with a diagonal drift.
    Movement,
    /// A sideways track.
    Horizontal,
    /// A vertical track.
    Vertical,
    /// Zoom in (offset > 0) or out.
    Zoom,
    /// A turn of the camera (yaw): a sweep with a perspective keystone.
    Pan,
}

impl CameraMode {
    /// Reads spec 2's mode names (`movement`, `horizontal`, `vertical`,
    /// `zoom`, `pan`; case and `camera_` prefix ignored).
    pub fn parse(s: &str) -> Option<CameraMode> {
        let s = s.trim().to_ascii_lowercase();
        let s = s
            .trim_start_matches("camera")
            .trim_start_matches(['_', ' ']);
        match s {
            "movement" | "move" => Some(CameraMode::Movement),
            "horizontal" => Some(CameraMode::Horizontal),
            "vertical" => Some(CameraMode::Vertical),
            "zoom" => Some(CameraMode::Zoom),
            "pan" => Some(CameraMode::Pan),
            _ => None,
        }
    }
}

/// A finished non-neural reference video.
#[derive(Debug, Clone)]
pub struct VideoOut {
    /// H.264 in MP4 (`+faststart`); no audio, except an edit's AAC soundtrack.
    pub mp4: Vec<u8>,
    /// The middle frame as an RGB PNG.
    pub poster_png: Vec<u8>,
    pub width: u32,
    pub height: u32,
    pub fps: f64,
    pub frames: u32,
    pub duration_ms: u64,
    /// Always [`LABEL`]: this is not a neural model's output.
    pub label: &'static str,
}

/// What [`probe`] reads from a video.
#[derive(Debug, Clone, PartialEq)]
pub struct ProbeInfo {
    pub width: u32,
    pub height: u32,
    pub duration_ms: u64,
    pub fps: f64,
    /// The frame rate as ffprobe gives it.
    pub rate: Rate,
    /// `nb_frames`, or duration × fps when the container does not say.
    pub frames: u64,
    /// `h264`, `vp9`...
    pub codec: String,
    /// `High`, `Main`... (may be empty).
    pub profile: String,
    pub level: i64,
    /// ffprobe's `format_name` (`mov,mp4,m4a,3gp,3g2,mj2`...).
    pub format: String,
    pub has_audio: bool,
}

/// What [`probe_media_path`] reads from a video or a sound file.
#[derive(Debug, Clone, PartialEq)]
pub struct MediaInfo {
    pub duration_ms: u64,
    pub has_audio: bool,
    /// The first video stream; `None` for a sound-only file.
    pub video: Option<ProbeInfo>,
}

/// A frame rate as a fraction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate {
    pub num: u32,
    pub den: u32,
}

impl Rate {
    pub fn whole(fps: u32) -> Rate {
        Rate { num: fps, den: 1 }
    }

    /// Reads `30000/1001` or `25`; `None` for zero or malformed.
    pub fn parse(s: &str) -> Option<Rate> {
        let (n, d) = match s.split_once('/') {
            Some((n, d)) => (n.trim().parse().ok()?, d.trim().parse().ok()?),
            None => (s.trim().parse().ok()?, 1),
        };
        (n > 0 && d > 0).then_some(Rate { num: n, den: d })
    }

    pub fn as_f64(self) -> f64 {
        f64::from(self.num) / f64::from(self.den.max(1))
    }

    pub fn doubled(self) -> Rate {
        if self.den.is_multiple_of(2) {
            Rate {
                num: self.num,
                den: self.den / 2,
            }
        } else {
            Rate {
                num: self.num.saturating_mul(2),
                den: self.den,
            }
        }
    }
}

impl std::fmt::Display for Rate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.num, self.den)
    }
}

/// Reads a video's size, duration, frame rate and codecs with
/// `ffprobe -v error -print_format json -show_streams -show_format`.
/// Bytes that are not a video answer [`EngineError::BadInput`].
pub fn probe(bytes: &[u8]) -> Result<ProbeInfo, EngineError> {
    if bytes.is_empty() {
        return Err(EngineError::BadInput("the video is empty".into()));
    }
    let file = ffmpeg::temp_input(bytes)?;
    ffmpeg::probe_file(file.path())
}

/// [`probe`] of a file on disk (a large upload, never read into memory).
pub fn probe_path(path: &std::path::Path) -> Result<ProbeInfo, EngineError> {
    ffmpeg::probe_file(path)
}

/// [`probe_path`] for a file that may be sound only (music for an edit).
pub fn probe_media_path(path: &std::path::Path) -> Result<MediaInfo, EngineError> {
    ffmpeg::probe_media_file(path)
}

/// Makes the video. `progress` gets 0..=100 as frames are written (never
/// going down); `cancel` is polled between frames, and when it answers true
/// the ffmpeg child is killed and the answer is [`EngineError::Cancelled`].
pub fn render(
    spec: &VideoSpec,
    progress: &mut dyn FnMut(u32),
    cancel: &dyn Fn() -> bool,
) -> Result<VideoOut, EngineError> {
    if cancel() {
        return Err(EngineError::Cancelled);
    }
    progress(0);
    let out = match &spec.kind {
        VideoKind::TextToVideo => {
            let g = Geometry::of(spec)?;
            camera::text_to_video(spec, g, progress, cancel)
        }
        VideoKind::ImageToVideo { image } => {
            let g = Geometry::of(spec)?;
            camera::image_to_video(spec, g, image, progress, cancel)
        }
        VideoKind::FirstLast { first, last } => {
            let g = Geometry::of(spec)?;
            blend::first_last(spec, g, first, last, progress, cancel)
        }
        VideoKind::MultiImage { images } => {
            let g = Geometry::of(spec)?;
            blend::multi_image(spec, g, images, progress, cancel)
        }
        VideoKind::Effect { template, images } => {
            let g = Geometry::of(spec)?;
            effects::effect(spec, g, template, images, progress, cancel)
        }
        VideoKind::Live2d { image } => {
            let g = Geometry::of(spec)?;
            effects::live2d(g, image, progress, cancel)
        }
        VideoKind::Upscale { video, factor } => source::upscale(video, *factor, progress, cancel),
        VideoKind::Extend { video, secs } => source::extend(video, *secs, progress, cancel),
        VideoKind::FrameInterpolation { video } => source::interpolate(video, progress, cancel),
        VideoKind::Edit { clips, music } => edit::edit(
            spec.width,
            spec.height,
            spec.fps,
            clips,
            music.as_ref(),
            progress,
            cancel,
        ),
    }?;
    if cancel() {
        return Err(EngineError::Cancelled);
    }
    progress(100);
    Ok(out)
}

/// The checked size, rate and length of a generated video.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Geometry {
    pub w: u32,
    pub h: u32,
    pub fps: u32,
    pub frames: u32,
}

impl Geometry {
    fn of(spec: &VideoSpec) -> Result<Geometry, EngineError> {
        let (w, h) = even_size(spec.width, spec.height)?;
        if spec.fps < MIN_FPS || spec.fps > MAX_FPS {
            return Err(EngineError::BadInput(format!(
                "frame rate {} is outside {MIN_FPS}..={MAX_FPS}",
                spec.fps
            )));
        }
        check_work(w, h, u64::from(spec.frames))?;
        Ok(Geometry {
            w,
            h,
            fps: spec.fps,
            frames: spec.frames,
        })
    }
}

/// Rounds a size down to even and checks its bounds.
pub(crate) fn even_size(w: u32, h: u32) -> Result<(u32, u32), EngineError> {
    if w == 0 || h == 0 {
        return Err(EngineError::BadInput(format!(
            "video size {w}x{h} is empty"
        )));
    }
    let (ew, eh) = (w & !1, h & !1);
    if ew < MIN_SIDE || eh < MIN_SIDE || ew > MAX_SIDE || eh > MAX_SIDE {
        return Err(EngineError::BadInput(format!(
            "video size {w}x{h} is outside {MIN_SIDE}..={MAX_SIDE} px a side"
        )));
    }
    Ok((ew, eh))
}

/// Refuses empty, too long or too big videos.
pub(crate) fn check_work(w: u32, h: u32, frames: u64) -> Result<(), EngineError> {
    if frames == 0 {
        return Err(EngineError::BadInput(
            "a video needs at least one frame".into(),
        ));
    }
    if frames > u64::from(MAX_FRAMES) {
        return Err(EngineError::BadInput(format!(
            "{frames} frames exceed the limit of {MAX_FRAMES}"
        )));
    }
    if u64::from(w) * u64::from(h) * frames > MAX_WORK {
        return Err(EngineError::BadInput(format!(
            "{frames} frames of {w}x{h} exceed the video work limit of {MAX_WORK} pixel-frames"
        )));
    }
    Ok(())
}

/// Streams frames into an [`ffmpeg::Encoder`], keeping the poster, reporting
/// progress and honouring cancellation.
pub(crate) struct Sink<'a> {
    enc: ffmpeg::Encoder,
    w: u32,
    h: u32,
    rate: Rate,
    progress: &'a mut dyn FnMut(u32),
    cancel: &'a dyn Fn() -> bool,
    /// Frames expected (for progress; the real count may differ a little).
    planned: u64,
    written: u32,
    poster_at: u32,
    poster: Option<RgbImage>,
    last_pct: u32,
    /// Share of the progress bar before the first frame (preparation).
    base: u32,
}

impl<'a> Sink<'a> {
    pub fn new(
        w: u32,
        h: u32,
        rate: Rate,
        planned: u64,
        base: u32,
        progress: &'a mut dyn FnMut(u32),
        cancel: &'a dyn Fn() -> bool,
    ) -> Result<Sink<'a>, EngineError> {
        if cancel() {
            return Err(EngineError::Cancelled);
        }
        let enc = ffmpeg::Encoder::start(w, h, rate)?;
        Ok(Sink {
            enc,
            w,
            h,
            rate,
            progress,
            cancel,
            planned: planned.max(1),
            written: 0,
            poster_at: (planned / 2).min(u64::from(u32::MAX)) as u32,
            poster: None,
            last_pct: base,
            base: base.min(90),
        })
    }

    pub fn cancelled(&self) -> Result<(), EngineError> {
        if (self.cancel)() {
            Err(EngineError::Cancelled)
        } else {
            Ok(())
        }
    }

    /// Reports preparation progress (before frames), `0..=base`.
    pub fn prepared(&mut self, pct: u32) {
        let pct = pct.min(self.base);
        if pct > self.last_pct {
            self.last_pct = pct;
            (self.progress)(pct);
        }
    }

    /// Writes one frame.
    pub fn push(&mut self, frame: RgbImage) -> Result<(), EngineError> {
        self.cancelled()?;
        if frame.dimensions() != (self.w, self.h) {
            return Err(EngineError::Failed(format!(
                "frame of {:?}, the video is {}x{}",
                frame.dimensions(),
                self.w,
                self.h
            )));
        }
        self.enc.write(frame.as_raw())?;
        if self.written == self.poster_at || self.poster.is_none() {
            self.poster = Some(frame);
        }
        self.written += 1;
        let span = u64::from(99 - self.base);
        let pct = self.base + (u64::from(self.written) * span / self.planned).min(span) as u32;
        if pct > self.last_pct {
            self.last_pct = pct;
            (self.progress)(pct);
        }
        Ok(())
    }

    /// Closes the encoder and assembles the output.
    pub fn finish(self) -> Result<VideoOut, EngineError> {
        self.cancelled()?;
        if self.written == 0 {
            return Err(EngineError::BadInput("the video has no frames".into()));
        }
        let poster = self
            .poster
            .ok_or_else(|| EngineError::Failed("no poster frame".into()))?;
        let poster_png = encode_png(poster.as_raw(), self.w, self.h, ExtendedColorType::Rgb8)?;
        let mp4 = self.enc.finish()?;
        let fps = self.rate.as_f64();
        Ok(VideoOut {
            mp4,
            poster_png,
            width: self.w,
            height: self.h,
            fps,
            frames: self.written,
            duration_ms: (f64::from(self.written) * 1000.0 / fps).round() as u64,
            label: LABEL,
        })
    }

    #[cfg(test)]
    pub fn pid(&self) -> u32 {
        self.enc.pid()
    }
}

/// Decodes an input image (bounded like every reference-engine input).
pub(crate) fn load_image(bytes: &[u8], what: &str) -> Result<image::RgbaImage, EngineError> {
    super::decode(bytes, what).map(|d| d.img)
}

/// Smooth 0→1 ease (cubic in-out).
pub(crate) fn ease(t: f32) -> f32 {
    let t = t.clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// Time of frame `k` of `n` in `[0, 1]`.
pub(crate) fn time_of(k: u32, n: u32) -> f32 {
    if n <= 1 {
        0.0
    } else {
        k as f32 / (n - 1) as f32
    }
}
