#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    dead_code
)]
//! What the remote adapters' tests share (the multipart reader also serves
//! the image adapter's): video jobs, real video
//! files made by Debian's ffmpeg (what a fake server hands back), a
//! progress recorder, a multipart reader, and the checks every video
//! output must pass (ffprobe reads the MP4, the HLS master comes first, the
//! poster is a PNG of the video's size). The fake ComfyUI of the image
//! adapter's tests is in `comfyui_fake`, the reference engine's test kit in
//! `reference_kit`.

pub mod comfyui_fake;
pub mod reference_kit;

use std::collections::HashMap;
use std::io::Cursor;
use std::process::Command;
use std::sync::Mutex;

use easel_engines::reference::video::{self, ProbeInfo};
use easel_engines::{EngineResult, LoadedInput, Progress};
use image::{DynamicImage, ImageFormat, Rgba, RgbaImage};
use protocol::task::{Action, InputRole, JobInput, JobSpec};
use protocol::video::{VideoAction, VideoFamily, VideoImage, VideoImageRole, VideoJob};

#[derive(Default)]
pub struct Recorder(Mutex<Vec<u8>>);
impl Progress for Recorder {
    fn report(&self, percent: u8) {
        self.0.lock().unwrap().push(percent);
    }
}
impl Recorder {
    pub fn seen(&self) -> Vec<u8> {
        self.0.lock().unwrap().clone()
    }
}

pub fn png(w: u32, h: u32, shade: u8) -> Vec<u8> {
    let img = RgbaImage::from_fn(w, h, |x, y| {
        Rgba([shade, (x % 256) as u8, (y % 256) as u8, 255])
    });
    let mut out = Cursor::new(Vec::new());
    DynamicImage::ImageRgba8(img)
        .write_to(&mut out, ImageFormat::Png)
        .unwrap();
    out.into_inner()
}

/// A real video from ffmpeg's test pattern: `ext` `webm` (VP9, as
/// ComfyUI's SaveWEBM writes) or `mp4` (H.264, as the Videos API answers).
pub fn make_video(w: u32, h: u32, fps: f64, frames: u32, ext: &str) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join(format!("v.{ext}"));
    let codec: &[&str] = if ext == "webm" {
        &[
            "-c:v",
            "libvpx-vp9",
            "-deadline",
            "realtime",
            "-cpu-used",
            "8",
            "-b:v",
            "200k",
        ]
    } else {
        &[
            "-c:v",
            "libx264",
            "-preset",
            "ultrafast",
            "-pix_fmt",
            "yuv420p",
        ]
    };
    let status = Command::new("ffmpeg")
        .args(["-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i"])
        .arg(format!("testsrc=size={w}x{h}:rate={fps}"))
        .args(["-frames:v", &frames.to_string()])
        .args(codec)
        .arg("-y")
        .arg(&out)
        .status()
        .expect("ffmpeg runs");
    assert!(status.success());
    std::fs::read(out).unwrap()
}

/// A video job as the server builds one (`tasks/video.rs`).
pub fn video_job(action: Action, w: u32, h: u32, secs: u32, images: &[VideoImageRole]) -> JobSpec {
    let images: Vec<VideoImage> = images
        .iter()
        .enumerate()
        .map(|(i, role)| VideoImage {
            role: *role,
            index: i as u32,
            url: format!("http://easel/files/in-{i}.png"),
        })
        .collect();
    let v = VideoJob {
        action: match action {
            Action::ImageToVideo => VideoAction::ImageToVideo,
            _ => VideoAction::TextToVideo,
        },
        model_no: "wan_video".into(),
        family: Some(VideoFamily::Wan),
        template_id: None,
        prompt: "a lighthouse in a storm".into(),
        negative_prompt: Some("blurry".into()),
        width: w,
        height: h,
        aspect_ratio: "16:9".into(),
        duration_secs: secs,
        fps: 16,
        frames: secs * 16,
        interpolation_factor: 1,
        n_iter: 1,
        seed: Some(777),
        gen_mode: 0,
        quality: None,
        motion_mode: "normal".into(),
        relevance: 0.5,
        style: None,
        audio_effect: false,
        camera: None,
        images: images.clone(),
        source_video_url: None,
        parent_task_id: None,
        sampler: None,
        scheduler: "normal".into(),
        edit: None,
    };
    JobSpec {
        task_id: "task-7".into(),
        attempt: 1,
        action,
        family: "wan".into(),
        model: "wan_video".into(),
        loras: vec![],
        prompt: v.prompt.clone(),
        negative_prompt: "blurry".into(),
        width: w,
        height: h,
        n_iter: 1,
        steps: 0,
        cfg_scale: 0.0,
        seed: 777,
        sampler: String::new(),
        denoising_strength: 0.0,
        inputs: images
            .iter()
            .enumerate()
            .map(|(i, _)| JobInput {
                role: InputRole::VideoImage,
                key: format!("in-{i}.png"),
            })
            .collect(),
        upscale_ratio: 0.0,
        left_margin: 0,
        up_margin: 0,
        control: None,
        frames: v.frames,
        face_strength: 0.0,
        video: Some(v),
        audio: None,
        model_file: None,
        embeddings: Vec::new(),
        train: None,
    }
}

/// The loaded inputs of a job made by [`video_job`]: one PNG per image,
/// shaded by its position so uploads can be told apart.
pub fn video_inputs(job: &JobSpec, w: u32, h: u32) -> Vec<LoadedInput> {
    job.inputs
        .iter()
        .enumerate()
        .map(|(i, _)| LoadedInput {
            role: InputRole::VideoImage,
            bytes: png(w, h, 60 * i as u8 + 10),
        })
        .collect()
}

/// Checks that `result` holds `n` videos as the reference engine gives
/// them (MP4 then poster, HLS package beside the MP4) and answers the
/// ffprobe reading of each MP4.
pub fn check_videos(result: &EngineResult, n: usize) -> Vec<ProbeInfo> {
    assert_eq!(result.outputs.len(), n * 2, "an MP4 and a poster per video");
    let mut infos = Vec::new();
    for pair in result.outputs.chunks(2) {
        let (mp4, poster) = (&pair[0], &pair[1]);
        assert_eq!((mp4.mime.as_str(), mp4.ext.as_str()), ("video/mp4", "mp4"));
        let info = video::probe(&mp4.bytes).unwrap();
        assert_eq!(info.codec, "h264");
        assert_eq!((info.width, info.height), (mp4.width, mp4.height));
        // +faststart: the index (moov) comes before the media (mdat).
        let at = |tag: &[u8]| mp4.bytes.windows(4).position(|w| w == tag).unwrap();
        assert!(at(b"moov") < at(b"mdat"));
        assert_eq!(mp4.files[0].0, "master.m3u8");
        assert!(mp4.files.iter().any(|(p, _)| p.ends_with(".ts")));
        assert_eq!(poster.mime, "image/png");
        let img = image::load_from_memory(&poster.bytes).unwrap();
        assert_eq!((img.width(), img.height()), (mp4.width, mp4.height));
        assert_eq!(poster.seed, mp4.seed);
        infos.push(info);
    }
    infos
}

/// A multipart form: field name -> (file name, bytes).
pub type Form = HashMap<String, (Option<String>, Vec<u8>)>;

/// Minimal multipart/form-data reader.
pub fn multipart(content_type: &str, body: &[u8]) -> Form {
    let boundary = content_type
        .split("boundary=")
        .nth(1)
        .unwrap()
        .trim_matches('"');
    let delim = format!("--{boundary}").into_bytes();
    let mut starts = Vec::new();
    let mut i = 0;
    while i + delim.len() <= body.len() {
        if body[i..i + delim.len()] == delim[..] {
            starts.push(i);
            i += delim.len();
        } else {
            i += 1;
        }
    }
    let mut parts = HashMap::new();
    for pair in starts.windows(2) {
        let seg = &body[pair[0] + delim.len()..pair[1]];
        let seg = seg.strip_prefix(b"\r\n").unwrap();
        let seg = seg.strip_suffix(b"\r\n").unwrap();
        let split = seg.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
        let headers = String::from_utf8_lossy(&seg[..split]).to_string();
        let field = |key: &str| {
            headers
                .split(';')
                .map(str::trim)
                .find_map(|p| p.strip_prefix(&format!("{key}=\"")))
                .map(|v| v.split('"').next().unwrap().to_string())
        };
        parts.insert(
            field("name").unwrap(),
            (field("filename"), seg[split + 4..].to_vec()),
        );
    }
    parts
}
