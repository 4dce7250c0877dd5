//! The lip-sync render: the source's frames (a video decoded by ffmpeg at
//! 25 fps, cut or looped to the audio's length, or a still picture
//! repeated), the face found and tracked, the mouth warped to each frame's
//! pose, the frames encoded to H.264 and muxed with the AAC audio so both
//! streams last `round(audio_s x 25)` frames; and a poster.

use std::path::Path;

use engines::reference::video::ffmpeg::{run, tempdir, Decoder, Encoder};
use engines::reference::video::{probe_media_path, Rate};
use engines::Cancel;
use protocol::ErrorCode;

use super::drive::{poses, MouthPose};
use super::mouth::{warp, Mouth, Tracker};
use crate::face::{self, FaceBox};
use crate::ffmpeg::{encode, Format};
use crate::speech::Phoneme;
use crate::{AudioError, Pcm};

/// Frames per second of every lip-sync video.
pub const FPS: u32 = 25;
/// The output's longest side (larger sources are scaled down).
pub const MAX_SIDE: u32 = 1280;
/// A new detection every this many frames while a video plays.
pub const DETECT_EVERY: usize = 5;

/// What speaks.
pub enum Source<'a> {
    /// A video file (its own sound is replaced).
    Video(&'a Path),
    /// An encoded still picture (PNG, JPEG, WebP, GIF).
    Image(&'a [u8]),
}

/// The render's files.
#[derive(Debug, Clone)]
pub struct Rendered {
    /// H.264 + AAC in an MP4 (`+faststart`).
    pub mp4: Vec<u8>,
    /// The audio alone, AAC in an M4A.
    pub m4a: Vec<u8>,
    /// The frame with the mouth widest open, PNG.
    pub poster: Vec<u8>,
    pub width: u32,
    pub height: u32,
    pub frames: u32,
    /// The audio's length in seconds.
    pub secs: f64,
}

/// The error of a source with no face.
pub fn no_face() -> AudioError {
    AudioError::BadInput(format!(
        "{}: {}",
        ErrorCode::NoFaceFound.key(),
        ErrorCode::NoFaceFound.default_msg()
    ))
}

/// The output size of a source of `w` x `h`: fitted to [`MAX_SIDE`], even.
pub fn output_size(w: u32, h: u32) -> (u32, u32) {
    let scale = (f64::from(MAX_SIDE) / f64::from(w.max(h).max(1))).min(1.0);
    let even = |v: f64| ((v / 2.0).floor() as u32 * 2).max(2);
    (even(f64::from(w) * scale), even(f64::from(h) * scale))
}

/// Frames of a lip-sync of `secs` of audio.
pub fn frame_count(secs: f64) -> u32 {
    ((secs * f64::from(FPS)).round() as u32).max(1)
}

fn scale_box(f: FaceBox, sx: f32, sy: f32) -> FaceBox {
    FaceBox {
        x: (f.x as f32 * sx).round() as i32,
        y: (f.y as f32 * sy).round() as i32,
        width: (f.width as f32 * sx).round() as u32,
        height: (f.height as f32 * sy).round() as u32,
        score: f.score,
    }
}

/// Frames of the source at the output size.
enum Frames {
    Still(Vec<u8>),
    Video {
        path: std::path::PathBuf,
        filter: String,
        w: u32,
        h: u32,
        dec: Decoder,
        /// Frames since the last (re)start; a pass with none is an error.
        got: usize,
    },
}

impl Frames {
    fn next(&mut self) -> Result<Vec<u8>, AudioError> {
        match self {
            Frames::Still(rgb) => Ok(rgb.clone()),
            Frames::Video {
                path,
                filter,
                w,
                h,
                dec,
                got,
            } => loop {
                if let Some(f) = dec.next_frame().map_err(AudioError::from)? {
                    *got += 1;
                    return Ok(f);
                }
                if *got == 0 {
                    return Err(AudioError::BadInput("the video has no frames".into()));
                }
                // Shorter than the audio: play it again.
                *dec = Decoder::start(path, filter, *w, *h, Rate::whole(FPS), None)
                    .map_err(AudioError::from)?;
                *got = 0;
            },
        }
    }
}

/// Renders a lip-sync of `pcm` (with its phonemes, when the speech engine
/// gave them) on `source`. `progress` gets 0..=1. CPU-bound: call it from
/// a blocking thread. No face = [`no_face`].
pub fn render(
    source: Source<'_>,
    pcm: &Pcm,
    phonemes: &[Phoneme],
    progress: &dyn Fn(f32),
    cancel: &Cancel,
) -> Result<Rendered, AudioError> {
    let secs = pcm.duration();
    if secs <= 0.0 {
        return Err(AudioError::BadInput("the audio is empty".into()));
    }
    let frames = frame_count(secs);
    let (w, h, mut src, face, detect_again) = match source {
        Source::Image(bytes) => {
            let img = image::load_from_memory(bytes)
                .map_err(|e| AudioError::BadInput(format!("not a readable picture: {e}")))?
                .to_rgb8();
            let (w, h) = output_size(img.width(), img.height());
            let img = if (w, h) == img.dimensions() {
                img
            } else {
                image::imageops::resize(&img, w, h, image::imageops::FilterType::Triangle)
            };
            let rgb = img.into_raw();
            let face = face::detect_rgb(&rgb, w, h)?
                .into_iter()
                .max_by_key(|f| f.width * f.height)
                .ok_or_else(no_face)?;
            (w, h, Frames::Still(rgb), face, false)
        }
        Source::Video(path) => {
            let scan = face::scan_video(path, cancel)?;
            let main = scan.main_face().ok_or_else(no_face)?;
            let info = probe_media_path(path).map_err(AudioError::from)?;
            let v = info
                .video
                .ok_or_else(|| AudioError::BadInput("the file has no pictures".into()))?;
            let (w, h) = output_size(v.width, v.height);
            let face = scale_box(main, w as f32 / v.width as f32, h as f32 / v.height as f32);
            let filter = format!("scale={w}:{h}:flags=bicubic,setsar=1");
            let dec = Decoder::start(path, &filter, w, h, Rate::whole(FPS), None)
                .map_err(AudioError::from)?;
            let frames = Frames::Video {
                path: path.to_path_buf(),
                filter,
                w,
                h,
                dec,
                got: 0,
            };
            (w, h, frames, face, true)
        }
    };
    progress(0.05);
    let pose: Vec<MouthPose> = poses(pcm, phonemes, f64::from(FPS), frames as usize);
    let poster_at = pose
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.open.total_cmp(&b.1.open))
        .map_or(0, |(i, _)| i);
    let m4a = encode(pcm, Format::M4a, cancel)?;
    let mut enc = Encoder::start(w, h, Rate::whole(FPS)).map_err(AudioError::from)?;
    let mut tracker = Tracker::new(face);
    let mut poster = Vec::new();
    for (i, p) in pose.iter().enumerate() {
        if cancel.is_cancelled() {
            return Err(AudioError::Cancelled);
        }
        let frame = src.next()?;
        if detect_again && i > 0 && i % DETECT_EVERY == 0 {
            tracker.update(&face::detect_rgb(&frame, w, h)?);
        }
        let mouth = Mouth::of_face(&tracker.face());
        let mut out = frame.clone();
        warp(&frame, &mut out, w, h, &mouth, *p);
        if i == poster_at {
            poster.clone_from(&out);
        }
        enc.write(&out).map_err(AudioError::from)?;
        if i % 10 == 0 {
            progress(0.05 + 0.85 * i as f32 / frames as f32);
        }
    }
    let video = enc.finish().map_err(AudioError::from)?;
    progress(0.92);
    let mp4 = mux(&video, &m4a, cancel)?;
    let poster = png(&poster, w, h)?;
    progress(1.0);
    Ok(Rendered {
        mp4,
        m4a,
        poster,
        width: w,
        height: h,
        frames,
        secs,
    })
}

/// The video's pictures with the audio's sound, streams copied.
fn mux(video: &[u8], m4a: &[u8], cancel: &Cancel) -> Result<Vec<u8>, AudioError> {
    let dir = tempdir().map_err(AudioError::from)?;
    std::fs::write(dir.path().join("v.mp4"), video)?;
    std::fs::write(dir.path().join("a.m4a"), m4a)?;
    let args: Vec<String> = [
        "-nostdin",
        "-v",
        "error",
        "-y",
        "-i",
        "v.mp4",
        "-i",
        "a.m4a",
        "-map",
        "0:v:0",
        "-map",
        "1:a:0",
        "-c",
        "copy",
        "-movflags",
        "+faststart",
        "out.mp4",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    run(&args, dir.path(), &|| cancel.is_cancelled()).map_err(AudioError::from)?;
    Ok(std::fs::read(dir.path().join("out.mp4"))?)
}

fn png(rgb: &[u8], w: u32, h: u32) -> Result<Vec<u8>, AudioError> {
    let img = image::RgbImage::from_raw(w, h, rgb.to_vec())
        .ok_or_else(|| AudioError::Failed("no poster frame".into()))?;
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png)
        .map_err(|e| AudioError::Failed(format!("the poster cannot be encoded: {e}")))?;
    Ok(out.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_frame_counts() {
        assert_eq!(output_size(480, 480), (480, 480));
        assert_eq!(output_size(1921, 1081), (1280, 720));
        assert_eq!(output_size(301, 201), (300, 200));
        assert_eq!(frame_count(2.0), 50);
        assert_eq!(frame_count(2.019), 50);
        assert_eq!(frame_count(2.021), 51);
        assert_eq!(frame_count(0.001), 1);
    }
}
