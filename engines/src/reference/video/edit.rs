//! The video editor's export: trimmed clips played in order, each scaled to
//! fit the output (Lanczos, letterboxed, never stretched) at one constant
//! frame rate, with the clips' own sound (silence for a clip without) and a
//! music track mixed under it.
//!
//! Pictures: one ffmpeg decoder per clip (`trim`, `scale`, `pad`) feeds the
//! frames one at a time to the shared encoder ([`Sink`]), so progress and
//! cancel work as for every other kind. Sound: a second ffmpeg pass builds
//! the soundtrack with `atrim`/`anullsrc`, `concat` and `amix`, encodes it as
//! AAC and muxes it beside the copied picture (`+faststart`).

use std::path::PathBuf;

use image::RgbImage;

use super::ffmpeg::{self, temp_input, Decoder};
use super::{even_size, Rate, Sink, VideoOut, MAX_FPS, MIN_FPS};
use crate::EngineError;

/// Longest edit, seconds (the editor's own limit is the same).
pub const MAX_EDIT_SECS: f64 = 300.0;
/// Most pixel-frames in one edit: five minutes of 1080p at 30 fps.
pub const MAX_EDIT_WORK: u64 = 1920 * 1080 * 30 * 300;

/// One clip: a container's bytes and the window of it to play.
#[derive(Debug, Clone)]
pub struct EditClip {
    pub video: Vec<u8>,
    pub start: f64,
    pub end: f64,
}

/// The music: a container's bytes (sound, or a video with sound), where in
/// it to start, and the volume (1 = as recorded).
#[derive(Debug, Clone)]
pub struct EditMusic {
    pub audio: Vec<u8>,
    pub start: f64,
    pub volume: f64,
}

fn frames_of(secs: f64, fps: u32) -> u64 {
    (secs * f64::from(fps)).round().max(1.0) as u64
}

pub fn edit(
    width: u32,
    height: u32,
    fps: u32,
    clips: &[EditClip],
    music: Option<&EditMusic>,
    progress: &mut dyn FnMut(u32),
    cancel: &dyn Fn() -> bool,
) -> Result<VideoOut, EngineError> {
    if clips.is_empty() {
        return Err(EngineError::BadInput(
            "an edit needs at least one clip".into(),
        ));
    }
    if !(MIN_FPS..=MAX_FPS).contains(&fps) {
        return Err(EngineError::BadInput(format!(
            "frame rate {fps} is outside {MIN_FPS}..={MAX_FPS}"
        )));
    }
    let (w, h) = even_size(width, height)?;
    let mut total = 0.0;
    for (i, c) in clips.iter().enumerate() {
        if !(c.start.is_finite() && c.end.is_finite()) || c.start < 0.0 || c.end <= c.start {
            return Err(EngineError::BadInput(format!(
                "clip {}: the window {}..{} s is empty",
                i + 1,
                c.start,
                c.end
            )));
        }
        total += c.end - c.start;
    }
    if total > MAX_EDIT_SECS + 1e-6 {
        return Err(EngineError::BadInput(format!(
            "an edit lasts at most {MAX_EDIT_SECS} s"
        )));
    }
    let planned: u64 = clips.iter().map(|c| frames_of(c.end - c.start, fps)).sum();
    if u64::from(w) * u64::from(h) * planned > MAX_EDIT_WORK {
        return Err(EngineError::BadInput(format!(
            "{planned} frames of {w}x{h} exceed the edit work limit"
        )));
    }
    // The inputs on disk (ffmpeg seeks in MP4), probed for their sound.
    let mut files = Vec::with_capacity(clips.len());
    for (i, c) in clips.iter().enumerate() {
        let file = temp_input(&c.video)?;
        let info = ffmpeg::probe_file(file.path()).map_err(|e| match e {
            EngineError::BadInput(m) => EngineError::BadInput(format!("clip {}: {m}", i + 1)),
            other => other,
        })?;
        files.push((file, info.has_audio));
    }
    let rate = Rate::whole(fps);
    let with_sound = music.is_some() || files.iter().any(|(_, a)| *a);
    // Pictures take 90% of the bar when a sound pass follows.
    let span = if with_sound { 90 } else { 100 };
    let mut last = 0u32;
    let mut picture_progress = |pct: u32| {
        let p = pct.min(100) * span / 100;
        if p > last {
            last = p;
            progress(p);
        }
    };
    let silent = {
        let mut sink = Sink::new(w, h, rate, planned, 0, &mut picture_progress, cancel)?;
        for ((file, _), c) in files.iter().zip(clips) {
            let want = frames_of(c.end - c.start, fps);
            let filter = format!(
                "trim=start={:.3}:end={:.3},setpts=PTS-STARTPTS,\
                 scale={w}:{h}:force_original_aspect_ratio=decrease:flags=lanczos,\
                 pad={w}:{h}:(ow-iw)/2:(oh-ih)/2:color=black,setsar=1",
                c.start, c.end
            );
            let mut dec = Decoder::start(file.path(), &filter, w, h, rate, Some(want))?;
            let mut got = 0u64;
            let mut held: Option<RgbImage> = None;
            while let Some(frame) = dec.next_frame()? {
                let img = RgbImage::from_raw(w, h, frame)
                    .ok_or_else(|| EngineError::Failed("short frame from the decoder".into()))?;
                sink.push(img.clone())?;
                held = Some(img);
                got += 1;
            }
            // A window that ends a frame short of the source's end: the last
            // frame is held, so every clip lasts exactly its window.
            let held = held.ok_or_else(|| {
                EngineError::BadInput(format!("a clip has no frames in {}..{} s", c.start, c.end))
            })?;
            for _ in got..want {
                sink.push(held.clone())?;
            }
        }
        sink.finish()?
    };
    if !with_sound {
        return Ok(silent);
    }
    let dir = ffmpeg::tempdir()?;
    let picture = dir.path().join("picture.mp4");
    std::fs::write(&picture, &silent.mp4)
        .map_err(|e| EngineError::Failed(format!("cannot write a temporary file: {e}")))?;
    let music_file = music.map(|m| temp_input(&m.audio)).transpose()?;
    let out = dir.path().join("out.mp4");
    let args = sound_args(
        &picture,
        &files
            .iter()
            .zip(clips)
            .map(|((f, has_audio), c)| {
                (
                    f.path().to_path_buf(),
                    *has_audio,
                    c.start,
                    frames_of(c.end - c.start, fps) as f64 / f64::from(fps),
                )
            })
            .collect::<Vec<_>>(),
        music_file
            .as_ref()
            .zip(music)
            .map(|(f, m)| (f.path().to_path_buf(), m.start, m.volume)),
        &out,
    );
    ffmpeg::run(&args, dir.path(), cancel)?;
    let mp4 = std::fs::read(&out)
        .map_err(|e| EngineError::Failed(format!("the edit's output cannot be read: {e}")))?;
    progress(100);
    Ok(VideoOut { mp4, ..silent })
}

/// The sound pass: `clips` are (file, has sound, start, exact length),
/// `music` is (file, start, volume).
fn sound_args(
    picture: &std::path::Path,
    clips: &[(PathBuf, bool, f64, f64)],
    music: Option<(PathBuf, f64, f64)>,
    out: &std::path::Path,
) -> Vec<String> {
    const FORMAT: &str = "aresample=48000,aformat=sample_fmts=fltp:channel_layouts=stereo";
    let mut args: Vec<String> = ["-hide_banner", "-loglevel", "error", "-nostdin", "-y", "-i"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.push(picture.to_string_lossy().into_owned());
    let mut filters = Vec::new();
    let mut next_input = 1;
    for (k, (path, has_audio, start, len)) in clips.iter().enumerate() {
        if *has_audio {
            args.push("-i".into());
            args.push(path.to_string_lossy().into_owned());
            filters.push(format!(
                "[{next_input}:a:0]atrim=start={start:.3},asetpts=PTS-STARTPTS,{FORMAT},\
                 apad=whole_dur={len:.6},atrim=end={len:.6}[c{k}]"
            ));
            next_input += 1;
        } else {
            filters.push(format!(
                "anullsrc=r=48000:cl=stereo,atrim=end={len:.6},{FORMAT}[c{k}]"
            ));
        }
    }
    let labels: String = (0..clips.len()).map(|k| format!("[c{k}]")).collect();
    let mixed = if let Some((path, start, volume)) = &music {
        args.push("-i".into());
        args.push(path.to_string_lossy().into_owned());
        filters.push(format!("{labels}concat=n={}:v=0:a=1[clips]", clips.len()));
        filters.push(format!(
            "[{next_input}:a:0]atrim=start={start:.3},asetpts=PTS-STARTPTS,\
             volume={volume:.2},{FORMAT},apad[music]"
        ));
        filters.push(
            "[clips][music]amix=inputs=2:duration=first:dropout_transition=0:normalize=0[sound]"
                .into(),
        );
        "[sound]"
    } else {
        filters.push(format!("{labels}concat=n={}:v=0:a=1[sound]", clips.len()));
        "[sound]"
    };
    args.extend([
        "-filter_complex".to_string(),
        filters.join(";"),
        "-map".into(),
        "0:v:0".into(),
        "-map".into(),
        mixed.into(),
        "-c:v".into(),
        "copy".into(),
        "-c:a".into(),
        "aac".into(),
        "-b:a".into(),
        "128k".into(),
        "-shortest".into(),
        "-movflags".into(),
        "+faststart".into(),
        "-fflags".into(),
        "+bitexact".into(),
    ]);
    args.push(out.to_string_lossy().into_owned());
    args
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

    use super::*;
    use crate::reference::video::probe;

    /// A clip made by ffmpeg's test sources: `secs` of `w`x`h` at 24 fps,
    /// with a 440 Hz tone when `tone`.
    fn lavfi(w: u32, h: u32, secs: u32, tone: bool) -> Vec<u8> {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("clip.mp4");
        let mut args: Vec<String> = vec![
            "-hide_banner".into(),
            "-loglevel".into(),
            "error".into(),
            "-f".into(),
            "lavfi".into(),
            "-i".into(),
            format!("testsrc=size={w}x{h}:rate=24:duration={secs}"),
        ];
        if tone {
            args.extend(
                [
                    "-f",
                    "lavfi",
                    "-i",
                    &format!("sine=frequency=440:duration={secs}"),
                    "-c:a",
                    "aac",
                ]
                .map(String::from),
            );
        }
        args.extend(["-pix_fmt", "yuv420p", "-c:v", "libx264"].map(String::from));
        args.push(out.to_string_lossy().into_owned());
        ffmpeg::run(&args, dir.path(), &|| false).unwrap();
        std::fs::read(out).unwrap()
    }

    fn tone(secs: u32) -> Vec<u8> {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("music.m4a");
        let args: Vec<String> = [
            "-hide_banner",
            "-loglevel",
            "error",
            "-f",
            "lavfi",
            "-i",
            &format!("sine=frequency=220:duration={secs}"),
            "-c:a",
            "aac",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([out.to_string_lossy().into_owned()])
        .collect();
        ffmpeg::run(&args, dir.path(), &|| false).unwrap();
        std::fs::read(out).unwrap()
    }

    #[test]
    fn two_clips_with_their_sound_and_music() {
        // A 4:3 clip without sound and a 16:9 clip with a tone, letterboxed
        // into 320x180 at 24 fps, with music under both.
        let a = lavfi(320, 240, 2, false);
        let b = lavfi(640, 360, 2, true);
        let clips = [
            EditClip {
                video: a,
                start: 0.5,
                end: 1.5,
            },
            EditClip {
                video: b,
                start: 0.0,
                end: 2.0,
            },
        ];
        let music = EditMusic {
            audio: tone(10),
            start: 1.0,
            volume: 0.5,
        };
        let mut seen = Vec::new();
        let out = edit(
            320,
            180,
            24,
            &clips,
            Some(&music),
            &mut |p| seen.push(p),
            &|| false,
        )
        .unwrap();
        let info = probe(&out.mp4).unwrap();
        assert_eq!((info.width, info.height), (320, 180));
        assert_eq!(info.frames, 72, "3 s at 24 fps");
        assert!((info.fps - 24.0).abs() < 1e-6);
        assert!(info.has_audio, "the soundtrack is muxed");
        assert!(
            (2900..=3100).contains(&info.duration_ms),
            "{}",
            info.duration_ms
        );
        assert_eq!(seen.last(), Some(&100));
        assert!(seen.windows(2).all(|w| w[0] <= w[1]), "{seen:?}");
        assert!(!out.poster_png.is_empty());
    }

    #[test]
    fn silent_clips_make_a_silent_video_and_bad_windows_are_refused() {
        let a = lavfi(160, 120, 1, false);
        let clip = |start: f64, end: f64| EditClip {
            video: a.clone(),
            start,
            end,
        };
        let out = edit(160, 120, 10, &[clip(0.0, 1.0)], None, &mut |_| {}, &|| {
            false
        })
        .unwrap();
        let info = probe(&out.mp4).unwrap();
        assert!(!info.has_audio);
        assert_eq!(info.frames, 10);
        // A window past the source's end holds its last frame.
        let out = edit(160, 120, 10, &[clip(0.5, 1.5)], None, &mut |_| {}, &|| {
            false
        })
        .unwrap();
        assert_eq!(probe(&out.mp4).unwrap().frames, 10);
        for (clips, want) in [
            (vec![], "at least one clip"),
            (vec![clip(1.0, 1.0)], "empty"),
            (vec![clip(-1.0, 1.0)], "empty"),
            (vec![clip(0.0, 301.0)], "at most"),
        ] {
            let e = edit(160, 120, 10, &clips, None, &mut |_| {}, &|| false).unwrap_err();
            assert!(e.to_string().contains(want), "{e} lacks {want}");
        }
        let e = edit(160, 120, 0, &[clip(0.0, 1.0)], None, &mut |_| {}, &|| false).unwrap_err();
        assert!(e.to_string().contains("frame rate"));
        let not_video = EditClip {
            video: b"not a video".to_vec(),
            start: 0.0,
            end: 1.0,
        };
        let e = edit(160, 120, 10, &[not_video], None, &mut |_| {}, &|| false).unwrap_err();
        assert!(matches!(e, EngineError::BadInput(_)), "{e}");
    }

    #[test]
    fn media_probe_reads_sound_only_files() {
        let music = temp_input(&tone(3)).unwrap();
        let info = crate::reference::video::probe_media_path(music.path()).unwrap();
        assert!(info.video.is_none() && info.has_audio);
        assert!((2900..=3100).contains(&info.duration_ms), "{info:?}");
        let clip = temp_input(&lavfi(160, 120, 1, true)).unwrap();
        let info = crate::reference::video::probe_media_path(clip.path()).unwrap();
        assert_eq!(info.video.map(|v| (v.width, v.height)), Some((160, 120)));
        assert!(info.has_audio);
        let junk = temp_input(b"hello").unwrap();
        assert!(crate::reference::video::probe_media_path(junk.path()).is_err());
    }

    #[test]
    fn cancel_stops_the_export() {
        let a = lavfi(160, 120, 1, false);
        let clips = [EditClip {
            video: a,
            start: 0.0,
            end: 1.0,
        }];
        let e = edit(160, 120, 10, &clips, None, &mut |_| {}, &|| true).unwrap_err();
        assert!(matches!(e, EngineError::Cancelled), "{e}");
    }
}
