//! Face detection on the Solvay fixtures and lip-sync renders through the
//! audio engine with a test-double speaker (a voiced tone with phoneme
//! timings, then silence): the MP4's video and audio streams last as long
//! (ffprobe), and the mouth moves while it speaks and not in the silence.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;
use std::time::Instant;

use easel_audio::face::{detect_image, scan_image, scan_video};
use easel_audio::lipsync::mouth::Mouth;
use easel_audio::lipsync::{default_voice, render, Source};
use easel_audio::speech::{Phoneme, Speaker, Speech, SpeechRequest};
use easel_audio::{AudioConfig, AudioEngine, AudioError, Pcm};
use engines::{Cancel, Engine, LoadedInput, NoProgress};
use protocol::audio::{AudioJob, SpeechSpec};
use protocol::task::{Action, InputRole, JobSpec};

fn fixture(name: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/faces")
        .join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

const SPEAK_SECS: f32 = 1.6;
const SILENT_SECS: f32 = 0.8;

/// A voice-like sound: a 140 Hz buzz with syllable-rate loudness, then
/// silence; phonemes every 200 ms while it speaks.
fn speech_pcm() -> (Pcm, Vec<Phoneme>) {
    let rate = 22_050;
    let n = (SPEAK_SECS * rate as f32) as usize;
    let mut s: Vec<f32> = (0..n)
        .map(|i| {
            let t = i as f32 / rate as f32;
            let syl = 0.55 + 0.45 * (t * 5.0 * std::f32::consts::TAU).sin().abs();
            let buzz: f32 = (1..8)
                .map(|k| (t * 140.0 * k as f32 * std::f32::consts::TAU).sin() / k as f32)
                .sum();
            0.3 * syl * buzz
        })
        .collect();
    s.extend(vec![0.0; (SILENT_SECS * rate as f32) as usize]);
    let ipa = ["h", "ə", "l", "oʊ", "w", "ɜː", "l", "d"];
    let phonemes = ipa
        .iter()
        .enumerate()
        .map(|(i, p)| Phoneme {
            at_ms: i as u32 * 200,
            ipa: (*p).into(),
        })
        .chain(std::iter::once(Phoneme {
            at_ms: (SPEAK_SECS * 1000.0) as u32,
            ipa: "_".into(),
        }))
        .collect();
    (Pcm::mono(rate, s), phonemes)
}

struct ToneSpeaker;

#[async_trait::async_trait]
impl Speaker for ToneSpeaker {
    async fn speak(&self, req: SpeechRequest, _cancel: Cancel) -> Result<Speech, AudioError> {
        assert_eq!(req.voice, default_voice());
        let (pcm, phonemes) = speech_pcm();
        Ok(Speech {
            pcm,
            phonemes,
            engine: "tone".into(),
            neural: false,
            applied: serde_json::json!({}),
        })
    }
}

fn ffprobe_streams(mp4: &[u8]) -> Vec<(String, f64)> {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("o.mp4");
    std::fs::write(&p, mp4).unwrap();
    let out = Command::new("ffprobe")
        .args([
            "-v",
            "error",
            "-show_entries",
            "stream=codec_type,duration",
            "-of",
            "csv=p=0",
        ])
        .arg(&p)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let (t, d) = l.split_once(',')?;
            Some((t.to_string(), d.trim().parse().ok()?))
        })
        .collect()
}

/// The MP4's frames as RGB at its size.
fn frames_of(mp4: &[u8], w: u32, h: u32) -> Vec<Vec<u8>> {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("o.mp4");
    std::fs::write(&p, mp4).unwrap();
    let out = Command::new("ffmpeg")
        .args(["-v", "error", "-i"])
        .arg(&p)
        .args(["-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        .output()
        .unwrap();
    out.stdout
        .chunks_exact((w * h * 3) as usize)
        .map(<[u8]>::to_vec)
        .collect()
}

/// Mean absolute difference of two frames inside and outside a rectangle.
fn diffs(a: &[u8], b: &[u8], w: usize, r: (usize, usize, usize, usize)) -> (f64, f64) {
    let (mut sin, mut nin, mut sout, mut nout) = (0.0, 0usize, 0.0, 0usize);
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        let d = (f64::from(*x) - f64::from(*y)).abs();
        let (px, py) = (i / 3 % w, i / 3 / w);
        if px >= r.0 && px < r.2 && py >= r.1 && py < r.3 {
            sin += d;
            nin += 1;
        } else {
            sout += d;
            nout += 1;
        }
    }
    (sin / nin.max(1) as f64, sout / nout.max(1) as f64)
}

#[test]
fn the_detector_finds_the_solvay_faces_and_none_in_a_painted_picture() {
    let (w, h, faces) = detect_image(&fixture("solvay-einstein.png")).unwrap();
    assert_eq!((w, h), (480, 480));
    assert_eq!(faces.len(), 1, "{faces:?}");
    let f = faces[0];
    // Einstein's face is in the upper middle of the crop.
    let (cx, cy) = f.centre();
    assert!(
        (150.0..330.0).contains(&cx) && (40.0..200.0).contains(&cy),
        "{f:?}"
    );
    assert!((80..200).contains(&f.width), "{f:?}");
    assert!(
        scan_image(&fixture("solvay-einstein.png"))
            .unwrap()
            .single_face
    );

    let (_, _, group) = detect_image(&fixture("solvay-group.png")).unwrap();
    assert!(group.len() >= 3, "{group:?}");
    let g = scan_image(&fixture("solvay-group.png")).unwrap();
    assert!(g.has_face && !g.single_face);

    // A painted picture: sky, sun, hills.
    let img = image::RgbImage::from_fn(480, 360, |x, y| {
        let (dx, dy) = (x as f32 - 360.0, y as f32 - 80.0);
        if dx * dx + dy * dy < 1600.0 {
            image::Rgb([250, 220, 60])
        } else if (y as f32) > 240.0 + 30.0 * (x as f32 / 50.0).sin() {
            image::Rgb([40, (120 + y / 4) as u8, 50])
        } else {
            image::Rgb([90, 150, (200 + y / 8) as u8])
        }
    });
    let mut png = std::io::Cursor::new(Vec::new());
    img.write_to(&mut png, image::ImageFormat::Png).unwrap();
    let v = scan_image(png.get_ref()).unwrap();
    assert!(!v.has_face && v.faces.is_empty(), "{v:?}");
}

#[test]
fn a_video_is_scanned_at_two_frames_a_second() {
    // The Einstein crop as a 3 s video.
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("e.png");
    std::fs::write(&png, fixture("solvay-einstein.png")).unwrap();
    let mp4 = dir.path().join("e.mp4");
    let ok = Command::new("ffmpeg")
        .args(["-v", "error", "-loop", "1", "-i"])
        .arg(&png)
        .args([
            "-t", "3", "-r", "10", "-pix_fmt", "yuv420p", "-c:v", "libx264",
        ])
        .arg(&mp4)
        .status()
        .unwrap();
    assert!(ok.success());
    let v = scan_video(&mp4, &Cancel::new()).unwrap();
    assert_eq!(v.frames_checked, 6, "{v:?}");
    assert!(v.has_face && v.single_face, "{v:?}");
    assert_eq!(v.faces.last().unwrap().time_ms, 2500);
    assert!(matches!(
        scan_video(&png.with_extension("nope"), &Cancel::new()),
        Err(AudioError::BadInput(_))
    ));
}

fn lip_job() -> JobSpec {
    let mut job: JobSpec = serde_json::from_value(serde_json::json!({
        "task_id": "t", "attempt": 0, "action": Action::AudioToLipVideo, "family": "audio",
        "model": "", "prompt": "", "negative_prompt": "", "width": 0, "height": 0, "n_iter": 1,
        "steps": 0, "cfg_scale": 0.0, "seed": 7, "sampler": "", "denoising_strength": 0.0,
        "inputs": [], "upscale_ratio": 0.0, "left_margin": 0, "up_margin": 0
    }))
    .unwrap();
    job.audio = Some(AudioJob {
        speech: Some(SpeechSpec {
            text: "hello world".into(),
            voice: default_voice(),
            speed: 1.0,
            emotion: "neutral".into(),
        }),
        ..AudioJob::default()
    });
    job
}

#[tokio::test]
async fn a_still_picture_speaks_in_an_mp4_whose_streams_last_as_long() {
    let engine = AudioEngine::new(Arc::new(ToneSpeaker), AudioConfig::default());
    let inputs = vec![LoadedInput {
        role: InputRole::Init,
        bytes: fixture("solvay-einstein.png"),
    }];
    let res = engine
        .run(&lip_job(), inputs, Arc::new(NoProgress), Cancel::new())
        .await
        .unwrap();
    assert_eq!(res.engine.label, "Easel reference lip-sync (non-neural)");
    assert!(!res.engine.neural);
    let mimes: Vec<&str> = res.outputs.iter().map(|o| o.mime.as_str()).collect();
    assert_eq!(mimes, ["audio/aac", "video/mp4", "image/png"]);
    let mp4 = &res.outputs[1];
    // LIPSYNC_DUMP=<dir> keeps the MP4 and poster to look at.
    if let Ok(d) = std::env::var("LIPSYNC_DUMP") {
        std::fs::write(format!("{d}/still.mp4"), &mp4.bytes).unwrap();
        std::fs::write(format!("{d}/poster.png"), &res.outputs[2].bytes).unwrap();
    }
    assert_eq!((mp4.width, mp4.height), (480, 480));

    let streams = ffprobe_streams(&mp4.bytes);
    let v = streams.iter().find(|s| s.0 == "video").unwrap().1;
    let a = streams.iter().find(|s| s.0 == "audio").unwrap().1;
    let total = f64::from(SPEAK_SECS + SILENT_SECS);
    assert!(
        (v - a).abs() <= 1.0 / 25.0 + 1e-3,
        "video {v} s, audio {a} s"
    );
    assert!((v - total).abs() <= 1.0 / 25.0, "video {v} s");

    // The mouth moves while it speaks, the rest of the picture does not,
    // and in the silence the mouth is back at rest.
    let frames = frames_of(&mp4.bytes, 480, 480);
    assert_eq!(frames.len(), 60);
    let (_, _, faces) = detect_image(&fixture("solvay-einstein.png")).unwrap();
    let region = Mouth::of_face(&faces[0]).region(480, 480);
    let rest = &frames[frames.len() - 1];
    let mut speaking_in = 0.0f64;
    let mut speaking_out = 0.0f64;
    for f in &frames[5..35] {
        let (i, o) = diffs(f, rest, 480, region);
        speaking_in = speaking_in.max(i);
        speaking_out = speaking_out.max(o);
    }
    assert!(speaking_in > 8.0, "mouth moved {speaking_in}");
    assert!(
        speaking_in > 6.0 * speaking_out,
        "mouth {speaking_in}, rest {speaking_out}"
    );
    for f in &frames[frames.len() - 10..] {
        let (i, _) = diffs(f, rest, 480, region);
        assert!(i < 2.0, "the mouth moved in silence: {i}");
    }
}

#[tokio::test]
async fn a_picture_without_a_face_fails_with_no_face_found() {
    let engine = AudioEngine::new(Arc::new(ToneSpeaker), AudioConfig::default());
    let img = image::RgbImage::from_fn(320, 240, |x, _| image::Rgb([(x % 256) as u8, 90, 140]));
    let mut png = std::io::Cursor::new(Vec::new());
    img.write_to(&mut png, image::ImageFormat::Png).unwrap();
    let inputs = vec![LoadedInput {
        role: InputRole::Init,
        bytes: png.into_inner(),
    }];
    let e = engine
        .run(&lip_job(), inputs, Arc::new(NoProgress), Cancel::new())
        .await
        .unwrap_err();
    assert!(e.to_string().contains("noFaceFound"), "{e}");
}

#[test]
fn uploaded_audio_drives_a_video_cut_or_looped_to_its_length_and_render_speed() {
    // A 1 s video of the Einstein crop, lip-synced to 2.4 s of audio (the
    // video loops), with no phonemes (spectral shapes instead).
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("e.png");
    std::fs::write(&png, fixture("solvay-einstein.png")).unwrap();
    let mp4 = dir.path().join("e.mp4");
    let ok = Command::new("ffmpeg")
        .args(["-v", "error", "-loop", "1", "-i"])
        .arg(&png)
        .args([
            "-t", "1", "-r", "30", "-pix_fmt", "yuv420p", "-c:v", "libx264",
        ])
        .arg(&mp4)
        .status()
        .unwrap();
    assert!(ok.success());
    let (pcm, _) = speech_pcm();
    let started = Instant::now();
    let cpu0 = cpu_secs();
    let out = render(Source::Video(&mp4), &pcm, &[], &|_| {}, &Cancel::new()).unwrap();
    let cpu = cpu_secs() - cpu0;
    assert_eq!(out.frames, 60);
    let streams = ffprobe_streams(&out.mp4);
    let v = streams.iter().find(|s| s.0 == "video").unwrap().1;
    let a = streams.iter().find(|s| s.0 == "audio").unwrap().1;
    assert!(
        (v - a).abs() <= 1.0 / 25.0 + 1e-3,
        "video {v} s, audio {a} s"
    );
    let frames = frames_of(&out.mp4, out.width, out.height);
    assert_eq!(frames.len(), 60);
    let (_, _, faces) = detect_image(&fixture("solvay-einstein.png")).unwrap();
    let region = Mouth::of_face(&faces[0]).region(480, 480);
    let moved = frames[5..35]
        .iter()
        .map(|f| diffs(f, &frames[59], 480, region).0)
        .fold(0.0, f64::max);
    assert!(moved > 8.0, "{moved}");
    // Measured, not asserted: seconds of video per second of CPU (this
    // process and its ffmpeg children).
    eprintln!(
        "lip-sync render: {:.2} s of video in {:.2} s wall, {:.2} s CPU: {:.2} s of video per CPU second",
        out.secs,
        started.elapsed().as_secs_f64(),
        cpu,
        out.secs / cpu.max(1e-6)
    );
}

/// CPU seconds of this process and its reaped children (from /proc).
fn cpu_secs() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit_once(") ").map(|(_, r)| r).unwrap_or("");
    let f: Vec<f64> = after
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0.0))
        .collect();
    // utime, stime, cutime, cstime are fields 14-17 (11-14 after the name).
    let ticks: f64 = f.get(11..15).map(|s| s.iter().sum()).unwrap_or(0.0);
    ticks / 100.0
}
