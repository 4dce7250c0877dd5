//! Face detection (SeetaFace through `rustface`, its BSD-2 model bundled):
//! faces in a picture ([`detect_image`]), in raw RGB frames ([`detect_rgb`])
//! and in a video sampled at about 2 fps ([`scan_video`]), with whether one
//! stable face is there (what lip-sync needs).

use std::path::Path;
use std::sync::OnceLock;

use engines::reference::video::ffmpeg::Decoder;
use engines::reference::video::{probe_media_path, Rate};
use engines::{Cancel, EngineError};
use serde::Serialize;

use crate::AudioError;

/// SeetaFace's frontal face model (BSD-2, `audio/models/*.LICENSE`), as the
/// `rustface` 0.1.7 crate package ships it.
const MODEL_BYTES: &[u8] = include_bytes!("../models/seeta_fd_frontal_v1.0.bin");

/// Faces smaller than this (pixels, at the scale detection runs) are not
/// looked for.
pub const MIN_FACE: u32 = 40;
/// Windows scoring below this are not faces.
pub const SCORE_THRESHOLD: f64 = 2.0;
/// Pictures are scaled down to at most this many pixels a side before
/// detection (the boxes are given back at the picture's own scale).
pub const MAX_SIDE: u32 = 960;
/// A video is sampled at this rate...
pub const SAMPLE_FPS: f64 = 2.0;
/// ...taking at most this many frames (spread over longer videos).
pub const MAX_SAMPLES: u32 = 20;

/// The label of the detector, for the API's `engine` fields.
pub const DETECTOR_LABEL: &str = "SeetaFace frontal detector (rustface, non-neural cascade)";

/// One face found: its box in the picture's pixels and the detector's score.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FaceBox {
    pub x: i32,
    pub y: i32,
    pub width: u32,
    pub height: u32,
    pub score: f64,
}

impl FaceBox {
    /// The box's centre.
    pub fn centre(&self) -> (f32, f32) {
        (
            self.x as f32 + self.width as f32 / 2.0,
            self.y as f32 + self.height as f32 / 2.0,
        )
    }

    /// Intersection over union with another box (0..=1).
    pub fn iou(&self, o: &FaceBox) -> f32 {
        let x0 = self.x.max(o.x);
        let y0 = self.y.max(o.y);
        let x1 = (self.x + self.width as i32).min(o.x + o.width as i32);
        let y1 = (self.y + self.height as i32).min(o.y + o.height as i32);
        let inter = ((x1 - x0).max(0) as f32) * ((y1 - y0).max(0) as f32);
        let union = (self.width * self.height + o.width * o.height) as f32 - inter;
        if union <= 0.0 {
            0.0
        } else {
            inter / union
        }
    }
}

/// A face found in a sampled video frame.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TimedFace {
    pub x: i32,
    pub y: i32,
    pub width: u32,
    pub height: u32,
    pub score: f64,
    pub time_ms: u64,
}

/// What a scan of a video (or a picture, as a one-frame video) found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VideoFaces {
    pub has_face: bool,
    /// One face, in at least half of the frames checked, never two at once.
    pub single_face: bool,
    pub frames_checked: u32,
    pub faces: Vec<TimedFace>,
    /// The picture's size.
    #[serde(skip)]
    pub width: u32,
    #[serde(skip)]
    pub height: u32,
}

impl VideoFaces {
    /// The summary rule of [`VideoFaces::single_face`] over the faces found
    /// in each frame checked.
    pub fn from_frames(frames: &[(u64, Vec<FaceBox>)], width: u32, height: u32) -> VideoFaces {
        let with = frames.iter().filter(|(_, f)| !f.is_empty()).count();
        let crowded = frames.iter().any(|(_, f)| f.len() > 1);
        let faces = frames
            .iter()
            .flat_map(|(t, fs)| {
                fs.iter().map(|f| TimedFace {
                    x: f.x,
                    y: f.y,
                    width: f.width,
                    height: f.height,
                    score: f.score,
                    time_ms: *t,
                })
            })
            .collect();
        VideoFaces {
            has_face: with > 0,
            single_face: with > 0 && !crowded && with * 2 >= frames.len(),
            frames_checked: frames.len() as u32,
            faces,
            width,
            height,
        }
    }

    /// The face lip-sync should animate: the largest face of the frame
    /// with the best-scoring face.
    pub fn main_face(&self) -> Option<FaceBox> {
        self.faces
            .iter()
            .max_by(|a, b| {
                (a.width * a.height)
                    .cmp(&(b.width * b.height))
                    .then(a.score.total_cmp(&b.score))
            })
            .map(|f| FaceBox {
                x: f.x,
                y: f.y,
                width: f.width,
                height: f.height,
                score: f.score,
            })
    }
}

fn model() -> Result<&'static rustface::Model, AudioError> {
    static MODEL: OnceLock<Result<rustface::Model, String>> = OnceLock::new();
    MODEL
        .get_or_init(|| rustface::read_model(MODEL_BYTES).map_err(|e| e.to_string()))
        .as_ref()
        .map_err(|e| AudioError::Failed(format!("the face model cannot be read: {e}")))
}

/// Finds faces in a grayscale picture (`w * h` bytes). CPU-bound.
pub fn detect_gray(gray: &[u8], w: u32, h: u32) -> Result<Vec<FaceBox>, AudioError> {
    if w == 0 || h == 0 || gray.len() != w as usize * h as usize {
        return Err(AudioError::BadInput("the picture has no pixels".into()));
    }
    // Too small to hold a face the detector can see.
    if w < MIN_FACE || h < MIN_FACE {
        return Ok(Vec::new());
    }
    let scale = (MAX_SIDE as f32 / w.max(h) as f32).min(1.0);
    let (sw, sh, small);
    let pixels: &[u8] = if scale < 1.0 {
        sw = ((w as f32 * scale).round() as u32).max(1);
        sh = ((h as f32 * scale).round() as u32).max(1);
        let img = image::GrayImage::from_raw(w, h, gray.to_vec())
            .ok_or_else(|| AudioError::BadInput("the picture has no pixels".into()))?;
        small = image::imageops::resize(&img, sw, sh, image::imageops::FilterType::Triangle);
        small.as_raw()
    } else {
        sw = w;
        sh = h;
        gray
    };
    let mut det = rustface::create_detector_with_model(model()?.clone());
    det.set_min_face_size(MIN_FACE);
    det.set_score_thresh(SCORE_THRESHOLD);
    det.set_pyramid_scale_factor(0.8);
    det.set_slide_window_step(4, 4);
    let found = det.detect(&rustface::ImageData::new(pixels, sw, sh));
    let inv = 1.0 / scale;
    let mut faces: Vec<FaceBox> = found
        .iter()
        .map(|f| {
            let b = f.bbox();
            FaceBox {
                x: (b.x() as f32 * inv).round() as i32,
                y: (b.y() as f32 * inv).round() as i32,
                width: (b.width() as f32 * inv).round() as u32,
                height: (b.height() as f32 * inv).round() as u32,
                score: f.score(),
            }
        })
        .collect();
    faces.sort_by(|a, b| b.score.total_cmp(&a.score));
    Ok(faces)
}

/// Luma (BT.601) of RGB pixels.
pub fn gray_of_rgb(rgb: &[u8]) -> Vec<u8> {
    rgb.chunks_exact(3)
        .map(|p| {
            let (r, g, b) = (
                u32::from(p.first().copied().unwrap_or(0)),
                u32::from(p.get(1).copied().unwrap_or(0)),
                u32::from(p.get(2).copied().unwrap_or(0)),
            );
            ((r * 299 + g * 587 + b * 114 + 500) / 1000) as u8
        })
        .collect()
}

/// Finds faces in a raw RGB picture (`w * h * 3` bytes). CPU-bound.
pub fn detect_rgb(rgb: &[u8], w: u32, h: u32) -> Result<Vec<FaceBox>, AudioError> {
    if rgb.len() != w as usize * h as usize * 3 {
        return Err(AudioError::BadInput("the picture has no pixels".into()));
    }
    detect_gray(&gray_of_rgb(rgb), w, h)
}

/// Finds faces in an encoded picture (PNG, JPEG, GIF, WebP): its size and
/// the faces. Not a picture = [`AudioError::BadInput`]. CPU-bound.
pub fn detect_image(bytes: &[u8]) -> Result<(u32, u32, Vec<FaceBox>), AudioError> {
    let img = image::load_from_memory(bytes)
        .map_err(|e| AudioError::BadInput(format!("not a readable picture: {e}")))?
        .to_luma8();
    let (w, h) = img.dimensions();
    let faces = detect_gray(img.as_raw(), w, h)?;
    Ok((w, h, faces))
}

/// The size frames are decoded at for detection: the video's own, scaled
/// to fit [`MAX_SIDE`], even sides.
fn scan_size(w: u32, h: u32) -> (u32, u32) {
    let scale = (MAX_SIDE as f64 / f64::from(w.max(h))).min(1.0);
    let even = |v: f64| ((v / 2.0).round() as u32 * 2).max(2);
    (even(f64::from(w) * scale), even(f64::from(h) * scale))
}

/// Scans a video file for faces: frames at [`SAMPLE_FPS`] (spread wider
/// over videos longer than [`MAX_SAMPLES`] samples), boxes at the video's
/// own scale. A file with no picture = [`AudioError::BadInput`]. CPU-bound.
pub fn scan_video(path: &Path, cancel: &Cancel) -> Result<VideoFaces, AudioError> {
    let info = probe_media_path(path).map_err(|e| match e {
        EngineError::Failed(m) | EngineError::BadInput(m) => {
            AudioError::BadInput(format!("not a readable video: {m}"))
        }
        other => AudioError::from(other),
    })?;
    let Some(v) = info.video else {
        return Err(AudioError::BadInput("the file has no pictures".into()));
    };
    let secs = (v.duration_ms as f64 / 1000.0).max(0.0);
    // Sample times, in milliseconds: every 1/SAMPLE_FPS s, or spread evenly.
    let n = ((secs * SAMPLE_FPS).floor() as u32).clamp(1, MAX_SAMPLES);
    let step = if n > 1 { secs / f64::from(n) } else { 0.0 };
    let (sw, sh) = scan_size(v.width, v.height);
    // One frame per 1/rate s: the rate that lands on the sample times.
    let rate = if step > 0.0 {
        Rate {
            num: 1000,
            den: ((step * 1000.0).round() as u32).max(1),
        }
    } else {
        Rate::whole(1)
    };
    let filter = format!("scale={sw}:{sh}:flags=bilinear,setsar=1");
    let mut dec = Decoder::start(path, &filter, sw, sh, rate, Some(u64::from(n)))
        .map_err(AudioError::from)?;
    let (fx, fy) = (v.width as f32 / sw as f32, v.height as f32 / sh as f32);
    let mut frames = Vec::new();
    let mut i = 0u32;
    while let Some(rgb) = dec.next_frame().map_err(AudioError::from)? {
        if cancel.is_cancelled() {
            return Err(AudioError::Cancelled);
        }
        let t = (f64::from(i) * step * 1000.0).round() as u64;
        let faces = detect_rgb(&rgb, sw, sh)?
            .into_iter()
            .map(|f| FaceBox {
                x: (f.x as f32 * fx).round() as i32,
                y: (f.y as f32 * fy).round() as i32,
                width: (f.width as f32 * fx).round() as u32,
                height: (f.height as f32 * fy).round() as u32,
                score: f.score,
            })
            .collect();
        frames.push((t, faces));
        i += 1;
    }
    if frames.is_empty() {
        return Err(AudioError::BadInput("the video has no frames".into()));
    }
    Ok(VideoFaces::from_frames(&frames, v.width, v.height))
}

/// Scans a picture like a one-frame video.
pub fn scan_image(bytes: &[u8]) -> Result<VideoFaces, AudioError> {
    let (w, h, faces) = detect_image(bytes)?;
    Ok(VideoFaces::from_frames(&[(0, faces)], w, h))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fb(x: i32, y: i32, s: u32) -> FaceBox {
        FaceBox {
            x,
            y,
            width: s,
            height: s,
            score: 3.0,
        }
    }

    #[test]
    fn a_stable_face_is_one_face_in_most_frames_and_never_two() {
        let one = vec![fb(10, 10, 50)];
        let two = vec![fb(10, 10, 50), fb(100, 10, 50)];
        let cases: [(Vec<Vec<FaceBox>>, bool, bool); 5] = [
            (vec![one.clone(), one.clone(), vec![]], true, true),
            (vec![one.clone(), vec![], vec![]], true, false),
            (vec![one.clone(), two.clone()], true, false),
            (vec![vec![], vec![]], false, false),
            (vec![one.clone()], true, true),
        ];
        for (frames, has, single) in cases {
            let f: Vec<(u64, Vec<FaceBox>)> = frames
                .into_iter()
                .enumerate()
                .map(|(i, f)| (i as u64 * 500, f))
                .collect();
            let v = VideoFaces::from_frames(&f, 640, 480);
            assert_eq!((v.has_face, v.single_face), (has, single), "{f:?}");
        }
    }

    #[test]
    fn iou_of_boxes() {
        assert!((fb(0, 0, 10).iou(&fb(0, 0, 10)) - 1.0).abs() < 1e-6);
        assert_eq!(fb(0, 0, 10).iou(&fb(20, 20, 10)), 0.0);
        let half = fb(0, 0, 10).iou(&fb(5, 0, 10));
        assert!((half - 50.0 / 150.0).abs() < 1e-6, "{half}");
    }

    #[test]
    fn tiny_or_empty_pictures() {
        assert!(detect_gray(&[0; 30 * 30], 30, 30)
            .unwrap_or_default()
            .is_empty());
        assert!(matches!(
            detect_gray(&[], 0, 0),
            Err(AudioError::BadInput(_))
        ));
        assert!(matches!(
            detect_image(b"not a picture"),
            Err(AudioError::BadInput(_))
        ));
    }
}
