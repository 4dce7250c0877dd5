//! Music, sound effects and soundtracks end to end: rendered with the real
//! SoundFont and ffmpeg, measured from the audio they produce.
#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::expect_used)]

use std::process::Command;
use std::sync::Arc;
use std::time::Instant;

use easel_audio::ffmpeg::decode;
use easel_audio::music::compose::{compose, Brief};
use easel_audio::music::render::{render, soundfont, RATE};
use easel_audio::music::tempo::estimate_bpm;
use easel_audio::speech::{Speaker, Speech, SpeechRequest};
use easel_audio::{analysis, sfx, AudioConfig, AudioEngine, AudioError, Pcm};
use engines::{Cancel, Engine, LoadedInput, NoProgress};
use protocol::audio::AudioJob;
use protocol::task::{Action, InputRole, JobSpec};

fn cpu_secs() -> f64 {
    // utime + stime of this process, in clock ticks (100 Hz on Linux).
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    let after = stat.rsplit(')').next().unwrap();
    let f: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 = f[11].parse::<f64>().unwrap() + f[12].parse::<f64>().unwrap();
    ticks / 100.0
}

#[test]
fn songs_have_their_length_tempo_and_level() {
    let font = soundfont(None).unwrap();
    for (prompt, secs) in [
        ("happy summer pop", 30.0),
        ("energetic rock anthem", 12.0),
        ("epic cinematic trailer", 7.3),
    ] {
        let score = compose(&Brief {
            prompt: prompt.into(),
            seconds: secs,
            seed: 3,
            ..Brief::default()
        });
        let (t0, c0) = (Instant::now(), cpu_secs());
        let pcm = render(&score, &font, &|| false).unwrap();
        let (wall, cpu) = (t0.elapsed().as_secs_f64(), cpu_secs() - c0);
        eprintln!(
            "{prompt}: {secs} s rendered in {wall:.2} s wall, {cpu:.2} s CPU ({:.1} s of music per CPU second), bpm {}",
            secs / cpu.max(0.01),
            score.bpm
        );
        // Exactly the length: within one sample frame.
        let want = (secs * f64::from(RATE)).round() as usize;
        assert_eq!(pcm.frames(), want, "{prompt}");
        assert_eq!(pcm.channels, 2);
        let db = analysis::dbfs(pcm.rms());
        assert!(db > -35.0, "{prompt}: {db} dBFS");
        let got = estimate_bpm(&pcm, 80.0, 170.0).unwrap();
        assert!(
            (got - score.bpm).abs() <= 2.0,
            "{prompt}: measured {got}, composed {}",
            score.bpm
        );
        // Faded: the last 20 ms are near silence.
        let tail = &pcm.samples[pcm.samples.len() - 2 * 882..];
        assert!(analysis::rms(tail) < 0.02, "{prompt}");
    }
}

#[test]
fn effects_have_their_length_and_differ_by_prompt() {
    let prompts = [
        "heavy rain on a roof",
        "thunder and wind",
        "footsteps in a corridor",
        "a sci-fi laser fight",
        "birds in the forest",
        "a car engine idling",
        "applause from a crowd",
        "a slow heartbeat",
        "a mysterious cave",
        "a forgotten dream",
    ];
    let mut all = Vec::new();
    for p in prompts {
        let pcm = sfx::synthesise(p, "", 4.0, &Cancel::new()).unwrap();
        assert_eq!(pcm.frames(), 4 * sfx::RATE as usize, "{p}");
        let db = analysis::dbfs(pcm.rms());
        assert!(db > -40.0, "{p}: {db} dBFS");
        all.push((p, pcm));
    }
    // Different descriptions: different sounds (spectral shape differs,
    // not just the noise).
    let profile = |pcm: &Pcm| {
        let m = pcm.to_mono();
        let zc = m
            .samples
            .windows(2)
            .filter(|w| (w[0] >= 0.0) != (w[1] >= 0.0))
            .count() as f64
            / m.samples.len() as f64;
        let frames: Vec<f32> = m.samples.chunks(2205).map(analysis::rms).collect();
        let mean = frames.iter().sum::<f32>() / frames.len() as f32;
        let var = frames.iter().map(|f| (f - mean).powi(2)).sum::<f32>() / frames.len() as f32;
        (zc, f64::from(var.sqrt() / mean.max(1e-6)))
    };
    for i in 0..all.len() {
        for j in i + 1..all.len() {
            let (a, b) = (profile(&all[i].1), profile(&all[j].1));
            let differ = (a.0 - b.0).abs() > 0.002 || (a.1 - b.1).abs() > 0.03;
            assert!(differ, "{} vs {}: {a:?} {b:?}", all[i].0, all[j].0);
        }
    }
    // The same description, the same sound.
    let again = sfx::synthesise(prompts[0], "", 4.0, &Cancel::new()).unwrap();
    assert_eq!(again.samples, all[0].1.samples);
}

/// A test video: coloured scenes cut at `cuts` (seconds), 25 fps.
fn scenes_video(lengths: &[f64], with_sound: bool) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let mut args: Vec<String> = vec!["-v".into(), "error".into(), "-y".into()];
    let colours = ["red", "blue", "green", "yellow", "white"];
    for (i, l) in lengths.iter().enumerate() {
        args.extend([
            "-f".into(),
            "lavfi".into(),
            "-i".into(),
            format!("color=c={}:s=160x120:r=25:d={l}", colours[i % 5]),
        ]);
    }
    let total: f64 = lengths.iter().sum();
    if with_sound {
        args.extend([
            "-f".into(),
            "lavfi".into(),
            "-i".into(),
            format!("sine=frequency=300:duration={total}"),
        ]);
    }
    let inputs: String = (0..lengths.len()).map(|i| format!("[{i}:v]")).collect();
    args.extend([
        "-filter_complex".into(),
        format!("{inputs}concat=n={}:v=1:a=0[v]", lengths.len()),
        "-map".into(),
        "[v]".into(),
    ]);
    if with_sound {
        args.extend(["-map".into(), format!("{}:a", lengths.len())]);
    }
    args.extend([
        "-c:v".into(),
        "libx264".into(),
        "-pix_fmt".into(),
        "yuv420p".into(),
        "out.mp4".into(),
    ]);
    let st = Command::new("ffmpeg")
        .args(&args)
        .current_dir(dir.path())
        .status()
        .unwrap();
    assert!(st.success());
    std::fs::read(dir.path().join("out.mp4")).unwrap()
}

fn streams(mp4: &[u8]) -> (Vec<String>, f64, f64) {
    let f = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(f.path(), mp4).unwrap();
    let out = Command::new("ffprobe")
        .args([
            "-v",
            "error",
            "-show_entries",
            "stream=codec_type,duration",
            "-of",
            "csv=p=0",
        ])
        .arg(f.path())
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let mut kinds = Vec::new();
    let (mut v, mut a) = (0.0, 0.0);
    for line in text.lines() {
        let mut parts = line.split(',');
        let kind = parts.next().unwrap_or("").to_owned();
        let d: f64 = parts.next().and_then(|d| d.parse().ok()).unwrap_or(0.0);
        if kind == "video" {
            v = d;
        } else if kind == "audio" {
            a = d;
        }
        kinds.push(kind);
    }
    (kinds, v, a)
}

fn job(action: Action, audio: AudioJob) -> JobSpec {
    JobSpec {
        task_id: "t".into(),
        attempt: 0,
        action,
        family: "audio".into(),
        model: String::new(),
        loras: Vec::new(),
        prompt: audio.prompt.clone(),
        negative_prompt: String::new(),
        width: 0,
        height: 0,
        n_iter: 1,
        steps: 0,
        cfg_scale: 0.0,
        seed: 11,
        sampler: String::new(),
        denoising_strength: 0.0,
        inputs: Vec::new(),
        upscale_ratio: 0.0,
        left_margin: 0,
        up_margin: 0,
        control: None,
        frames: 0,
        face_strength: 0.0,
        video: None,
        audio: Some(audio),
        model_file: None,
        embeddings: Vec::new(),
        train: None,
    }
}

/// espeak-ng itself, for the sung-vocals test (helper A's engine speaks
/// through the same port in the product).
struct Espeak;

#[async_trait::async_trait]
impl Speaker for Espeak {
    async fn speak(&self, req: SpeechRequest, _cancel: Cancel) -> Result<Speech, AudioError> {
        let out = Command::new("espeak-ng")
            .args(["--stdout", "-v", &req.voice.base, &req.text])
            .output()
            .map_err(|e| AudioError::Unavailable(e.to_string()))?;
        let pcm = decode(&out.stdout, 22_050, 1, &Cancel::new())?;
        Ok(Speech {
            pcm,
            phonemes: Vec::new(),
            engine: "espeak".into(),
            neural: false,
            applied: serde_json::Value::Null,
        })
    }
}

fn engine() -> AudioEngine {
    AudioEngine::new(Arc::new(Espeak), AudioConfig::default())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn soundtracks_fit_the_video_and_are_muxed() {
    let e = engine();
    for (action, sound) in [(Action::VideoToAudio, false), (Action::VideoAddMusic, true)] {
        let video = scenes_video(&[1.6, 2.4, 2.0], sound);
        let (_, vlen, _) = streams(&video);
        let audio = AudioJob {
            prompt: "epic cinematic".into(),
            duration: if action == Action::VideoAddMusic {
                30.0
            } else {
                0.0
            },
            ..AudioJob::default()
        };
        let r = e
            .run(
                &job(action, audio),
                vec![LoadedInput {
                    role: InputRole::VideoSource,
                    bytes: video,
                }],
                Arc::new(NoProgress),
                Cancel::new(),
            )
            .await
            .unwrap();
        assert_eq!(r.engine.label, "Easel reference music (non-neural)");
        assert!(!r.engine.neural);
        assert_eq!(r.outputs[0].mime, "audio/aac");
        assert_eq!(r.outputs[1].mime, "video/mp4");
        let music = decode(&r.outputs[0].bytes, 44_100, 1, &Cancel::new()).unwrap();
        assert!(
            (music.duration() - vlen).abs() <= 0.04 + 0.03,
            "{action:?}: music {} video {vlen}",
            music.duration()
        );
        let (kinds, v, a) = streams(&r.outputs[1].bytes);
        assert!(kinds.contains(&"video".to_owned()) && kinds.contains(&"audio".to_owned()));
        // Within a frame (AAC priming can add one 1024-sample packet).
        assert!(
            (a - v).abs() <= 0.04 + 0.025,
            "{action:?}: audio {a} video {v}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_to_music_sings_lyrics_on_the_melody() {
    let e = engine();
    let audio = AudioJob {
        prompt: "happy pop".into(),
        lyrics: "[Verse]\nSunshine in the morning\nDancing all day long".into(),
        duration: 12.0,
        vocals: true,
        ..AudioJob::default()
    };
    let r = e
        .run(
            &job(Action::TextToMusic, audio.clone()),
            Vec::new(),
            Arc::new(NoProgress),
            Cancel::new(),
        )
        .await
        .unwrap();
    assert!(
        r.engine.label.contains("speech-engine vocals (espeak"),
        "{}",
        r.engine.label
    );
    let sung = decode(&r.outputs[0].bytes, 44_100, 1, &Cancel::new()).unwrap();
    assert!((sung.duration() - 12.0).abs() < 0.05, "{}", sung.duration());
    // The same song without vocals differs where the words are sung.
    let plain = e
        .run(
            &job(
                Action::TextToMusic,
                AudioJob {
                    vocals: false,
                    ..audio
                },
            ),
            Vec::new(),
            Arc::new(NoProgress),
            Cancel::new(),
        )
        .await
        .unwrap();
    assert_eq!(plain.engine.label, "Easel reference music (non-neural)");
    let plain = decode(&plain.outputs[0].bytes, 44_100, 1, &Cancel::new()).unwrap();
    let n = sung.samples.len().min(plain.samples.len());
    let (s, p) = (&sung.samples[..n], &plain.samples[..n]);
    let g = s.iter().zip(p).map(|(a, b)| a * b).sum::<f32>() / p.iter().map(|b| b * b).sum::<f32>();
    let diff: Vec<f32> = s.iter().zip(p).map(|(a, b)| a - g * b).collect();
    let voice_db = analysis::dbfs(analysis::rms(&diff)) - analysis::dbfs(analysis::rms(s));
    assert!(
        voice_db > -20.0,
        "the vocals are {voice_db} dB under the mix"
    );
}
