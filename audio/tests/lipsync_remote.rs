//! Lip-sync handed to a remote engine: with an `engines::TalkingEngine`
//! configured, the audio engine speaks the text first (a test-double
//! speaker), then hands the picture (a video's first frame) and the speech
//! as a WAV to it, and answers the audio, the MP4 and the poster with the
//! remote engine's note. The remote engine here is a recording test double
//! of the port (it muxes the picture and the WAV with ffmpeg); ComfyUI's
//! side of the port is tested against a fake ComfyUI in
//! `engines/tests/comfyui_lipsync.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::process::Command;
use std::sync::{Arc, Mutex};

use easel_audio::lipsync::default_voice;
use easel_audio::speech::{Speaker, Speech, SpeechRequest};
use easel_audio::{AudioConfig, AudioEngine, AudioError, Pcm};
use engines::{
    Cancel, Engine, EngineError, LoadedInput, NoProgress, Produced, Progress, TalkingEngine,
    TalkingRequest,
};
use protocol::audio::{AudioJob, SpeechSpec};
use protocol::task::{Action, EngineInfo, InputRole, JobSpec};

const SPEECH_SECS: f64 = 1.5;

/// Speaks any text as 1.5 s of a 200 Hz tone.
struct ToneSpeaker(Mutex<Vec<String>>);

#[async_trait::async_trait]
impl Speaker for ToneSpeaker {
    async fn speak(&self, req: SpeechRequest, _cancel: Cancel) -> Result<Speech, AudioError> {
        self.0.lock().unwrap().push(req.text.clone());
        let rate = 16_000;
        let n = (SPEECH_SECS * f64::from(rate)) as usize;
        let s = (0..n)
            .map(|i| 0.3 * (i as f32 / rate as f32 * 200.0 * std::f32::consts::TAU).sin())
            .collect();
        Ok(Speech {
            pcm: Pcm::mono(rate, s),
            phonemes: Vec::new(),
            engine: "tone".into(),
            neural: false,
            applied: serde_json::json!({}),
        })
    }
}

/// Records each request; answers an MP4 of the picture held for the WAV's
/// length, and the picture as poster.
#[derive(Default)]
struct Recording(Mutex<Vec<TalkingRequest>>);

fn ffmpeg(args: &[&str], dir: &std::path::Path) {
    let ok = Command::new("ffmpeg")
        .current_dir(dir)
        .args(["-hide_banner", "-loglevel", "error", "-y"])
        .args(args)
        .status()
        .unwrap()
        .success();
    assert!(ok, "{args:?}");
}

#[async_trait::async_trait]
impl TalkingEngine for Recording {
    fn info(&self) -> EngineInfo {
        EngineInfo {
            name: "comfyui".into(),
            neural: true,
            label: "ComfyUI at gpu:8188 (Wan 2.2 S2V lip-sync)".into(),
            notes: Vec::new(),
        }
    }

    async fn talk(
        &self,
        request: TalkingRequest,
        progress: Arc<dyn Progress>,
        _cancel: Cancel,
    ) -> Result<[Produced; 2], EngineError> {
        progress.report(50);
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("p.png"), &request.picture).unwrap();
        std::fs::write(dir.path().join("a.wav"), &request.audio_wav).unwrap();
        ffmpeg(
            &[
                "-loop",
                "1",
                "-i",
                "p.png",
                "-i",
                "a.wav",
                "-shortest",
                "-r",
                "16",
                "-c:v",
                "libx264",
                "-pix_fmt",
                "yuv420p",
                "-c:a",
                "aac",
                "o.mp4",
            ],
            dir.path(),
        );
        let img = image::load_from_memory(&request.picture).unwrap();
        let out = |bytes: Vec<u8>, mime: &str, ext: &str| Produced {
            bytes,
            mime: mime.into(),
            ext: ext.into(),
            width: img.width(),
            height: img.height(),
            seed: request.seed,
            files: Vec::new(),
        };
        let mp4 = out(
            std::fs::read(dir.path().join("o.mp4")).unwrap(),
            "video/mp4",
            "mp4",
        );
        let poster = out(request.picture.clone(), "image/png", "png");
        self.0.lock().unwrap().push(request);
        Ok([mp4, poster])
    }
}

fn job() -> JobSpec {
    let mut job: JobSpec = serde_json::from_value(serde_json::json!({
        "task_id": "t-5", "attempt": 0, "action": Action::AudioToLipVideo, "family": "audio",
        "model": "", "prompt": "a newsreader", "negative_prompt": "", "width": 0, "height": 0,
        "n_iter": 1, "steps": 0, "cfg_scale": 0.0, "seed": 11, "sampler": "",
        "denoising_strength": 0.0, "inputs": [], "upscale_ratio": 0.0, "left_margin": 0,
        "up_margin": 0
    }))
    .unwrap();
    job.audio = Some(AudioJob {
        speech: Some(SpeechSpec {
            text: "good evening".into(),
            voice: default_voice(),
            speed: 1.0,
            emotion: "neutral".into(),
        }),
        ..AudioJob::default()
    });
    job
}

/// Seconds of a sound file, by ffprobe.
fn secs(bytes: &[u8]) -> f64 {
    let f = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(f.path(), bytes).unwrap();
    let out = Command::new("ffprobe")
        .args([
            "-v",
            "error",
            "-show_entries",
            "format=duration",
            "-of",
            "csv=p=0",
        ])
        .arg(f.path())
        .output()
        .unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

fn png(w: u32, h: u32) -> Vec<u8> {
    let img = image::RgbImage::from_fn(w, h, |x, y| image::Rgb([x as u8, y as u8, 90]));
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

#[tokio::test]
async fn a_text_is_spoken_then_the_picture_and_speech_go_to_the_remote_engine() {
    let speaker = Arc::new(ToneSpeaker(Mutex::default()));
    let remote = Arc::new(Recording::default());
    let engine =
        AudioEngine::new(speaker.clone(), AudioConfig::default()).with_talking(remote.clone());
    let picture = png(96, 64);
    let inputs = vec![LoadedInput {
        role: InputRole::Init,
        bytes: picture.clone(),
    }];
    let res = engine
        .run(&job(), inputs, Arc::new(NoProgress), Cancel::new())
        .await
        .unwrap();
    assert_eq!(*speaker.0.lock().unwrap(), vec!["good evening".to_string()]);
    let mimes: Vec<&str> = res.outputs.iter().map(|o| o.mime.as_str()).collect();
    assert_eq!(mimes, ["audio/aac", "video/mp4", "image/png"]);
    assert_eq!(res.engine.name, "comfyui");
    assert!(res.engine.neural);
    assert!(
        !res.engine.label.contains("first frame"),
        "{}",
        res.engine.label
    );
    let m4a = secs(&res.outputs[0].bytes);
    assert!((m4a - SPEECH_SECS).abs() < 0.05, "{m4a}");

    let sent = remote.0.lock().unwrap();
    assert_eq!(sent.len(), 1);
    let r = &sent[0];
    assert_eq!(r.picture, picture);
    assert!(r.audio_wav.starts_with(b"RIFF"));
    assert!((secs(&r.audio_wav) - SPEECH_SECS).abs() < 0.01);
    assert!((r.audio_secs - SPEECH_SECS).abs() < 0.01);
    assert_eq!((r.task_id.as_str(), r.seed), ("t-5", 11));
    assert_eq!(r.prompt, "a newsreader");
}

#[tokio::test]
async fn a_video_source_is_animated_from_its_first_frame_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    ffmpeg(
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc=size=80x48:rate=25",
            "-frames:v",
            "25",
            "-c:v",
            "libx264",
            "-pix_fmt",
            "yuv420p",
            "v.mp4",
        ],
        dir.path(),
    );
    let remote = Arc::new(Recording::default());
    let engine = AudioEngine::new(
        Arc::new(ToneSpeaker(Mutex::default())),
        AudioConfig::default(),
    )
    .with_talking(remote.clone());
    let inputs = vec![LoadedInput {
        role: InputRole::VideoSource,
        bytes: std::fs::read(dir.path().join("v.mp4")).unwrap(),
    }];
    let res = engine
        .run(&job(), inputs, Arc::new(NoProgress), Cancel::new())
        .await
        .unwrap();
    assert!(
        res.engine.label.contains("first frame"),
        "{}",
        res.engine.label
    );
    let picture = remote.0.lock().unwrap()[0].picture.clone();
    let still = image::load_from_memory(&picture).unwrap();
    assert_eq!((still.width(), still.height()), (80, 48));

    // A source that is not a video is the user's bad input.
    let inputs = vec![LoadedInput {
        role: InputRole::VideoSource,
        bytes: b"not a video".to_vec(),
    }];
    let err = engine
        .run(&job(), inputs, Arc::new(NoProgress), Cancel::new())
        .await
        .unwrap_err();
    assert!(matches!(err, EngineError::BadInput(_)), "{err:?}");
}
