//! Voice training end to end: eSpeak speech at known pitches, encoded like
//! an upload, measured back (F0 within a tolerance, higher voice → higher
//! eSpeak pitch), and the training task's result and preview.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::sync::Arc;

use easel_audio::speech::training::{self, TrainResult};
use easel_audio::speech::{espeak, Speakers, SpeechRequest};
use easel_audio::{AudioConfig, AudioEngine};
use engines::{Cancel, Engine, LoadedInput, NoProgress};
use protocol::audio::{AudioJob, VoiceSpec};
use protocol::task::{Action, InputRole, JobSpec};

const TEXT: &str = "When the sunlight strikes raindrops in the air, they act as a prism and \
                    form a rainbow. The rainbow is a division of white light into many \
                    beautiful colors.";

fn sample(base: &str, pitch: u32) -> (Vec<u8>, f32) {
    let s = espeak::speak_blocking(
        &SpeechRequest {
            text: TEXT.into(),
            voice: VoiceSpec {
                engine: "espeak".into(),
                base: base.into(),
                language: "en".into(),
                params: serde_json::json!({"espeak_pitch": pitch, "espeak_range": 20}),
            },
            speed: 1.0,
            emotion: String::new(),
        },
        &Cancel::new(),
    )
    .unwrap();
    // The truth: YIN on the clean PCM is checked against the harmonic
    // structure below; here the reference is the median over the encoded file.
    let bytes =
        easel_audio::ffmpeg::encode(&s.pcm, easel_audio::ffmpeg::Format::M4a, &Cancel::new())
            .unwrap();
    (bytes, s.pcm.duration() as f32)
}

#[test]
fn measured_pitch_follows_the_speaker() {
    let (low, d) = sample("en-us+m3", 20);
    assert!(d > 3.0, "{d}");
    let (high, _) = sample("en-us+f3", 80);
    let mut log = Vec::new();
    let lo = training::measure_samples(&[low], &NoProgress, &Cancel::new(), &mut log).unwrap();
    let hi = training::measure_samples(&[high], &NoProgress, &Cancel::new(), &mut log).unwrap();
    // An independent autocorrelation pitch tracker (numpy, 46 ms frames)
    // measures eSpeak's `en-us+m3 -p 20` at 81 Hz and `en-us+f3 -p 80` at
    // 276 Hz (median over the same sentence): 15 % tolerance.
    println!("{log:?}");
    assert!((lo.f0_median_hz - 81.0).abs() < 0.15 * 81.0, "{lo:?}");
    assert!((hi.f0_median_hz - 276.0).abs() < 0.15 * 276.0, "{hi:?}");
    let vl = training::voice_for(&lo, "en");
    let vh = training::voice_for(&hi, "en");
    assert!(
        vl.base.ends_with("+m3") || vl.base.ends_with("+m6"),
        "{vl:?}"
    );
    assert!(vh.base.starts_with("en-us+f"), "{vh:?}");
    assert!(
        lo.syllables_per_sec > 1.5 && lo.syllables_per_sec < 8.0,
        "{lo:?}"
    );
    assert!(lo.brightness_hz > 200.0, "{lo:?}");
    assert_eq!(log.len(), 2);
}

#[test]
fn a_pitch_shift_by_resampling_is_measured_exactly() {
    // The same speech played 25 % faster has every frequency 1.25 times
    // higher: a known pitch ratio.
    let (bytes, _) = sample("en-us+m3", 40);
    let pcm = easel_audio::ffmpeg::decode(&bytes, 16_000, 1, &Cancel::new()).unwrap();
    let shifted = easel_audio::Pcm::mono(20_000, pcm.samples.clone());
    let a = easel_audio::analysis::voice::measure(&pcm.samples, 16_000).unwrap();
    let b = easel_audio::analysis::voice::measure(&shifted.samples, 20_000).unwrap();
    let ratio = b.f0_median_hz / a.f0_median_hz;
    assert!((ratio - 1.25).abs() < 0.04, "{ratio} ({a:?} {b:?})");
}

#[tokio::test]
async fn the_training_task_answers_the_voice_and_a_preview() {
    let (bytes, _) = sample("en-us+f3", 70);
    let engine = AudioEngine::new(
        Speakers::new(AudioConfig::default()),
        AudioConfig::default(),
    );
    let job = JobSpec {
        task_id: "task-1".into(),
        attempt: 1,
        action: Action::TimbreTrain,
        family: "audio".into(),
        model: String::new(),
        loras: Vec::new(),
        prompt: String::new(),
        negative_prompt: String::new(),
        width: 0,
        height: 0,
        n_iter: 1,
        steps: 0,
        cfg_scale: 0.0,
        seed: 0,
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
        audio: Some(AudioJob {
            timbre_id: Some("t1".into()),
            ..AudioJob::default()
        }),
        model_file: None,
        embeddings: Vec::new(),
        train: None,
    };
    let r = engine
        .run(
            &job,
            vec![LoadedInput {
                role: InputRole::Audio,
                bytes,
            }],
            Arc::new(NoProgress),
            Cancel::new(),
        )
        .await
        .unwrap();
    let t: TrainResult = serde_json::from_str(&r.texts[0]).unwrap();
    assert_eq!(t.voice.engine, "espeak");
    assert!(
        t.voice.params["espeak_pitch"].as_u64().unwrap() > 50,
        "{t:?}"
    );
    assert!(t.log.iter().any(|l| l.contains("F0 median")));
    assert_eq!(r.outputs[0].mime, "audio/aac");
    let back = easel_audio::ffmpeg::decode(&r.outputs[0].bytes, 16_000, 1, &Cancel::new()).unwrap();
    assert!(back.duration() > 1.0);

    // Not audio, and too short, are bad input.
    for bad in [b"not audio at all".to_vec(), {
        let s = easel_audio::Pcm::mono(16_000, vec![0.1; 16_000]);
        easel_audio::ffmpeg::wav_bytes(&s).unwrap()
    }] {
        let e = engine
            .run(
                &job,
                vec![LoadedInput {
                    role: InputRole::Audio,
                    bytes: bad,
                }],
                Arc::new(NoProgress),
                Cancel::new(),
            )
            .await
            .unwrap_err();
        assert!(matches!(e, engines::EngineError::BadInput(_)), "{e}");
    }
}
