//! Speech engines end to end: eSpeak NG in every spec-3 language, the
//! neural voices through the worker (skipped, with the reason printed, only
//! when the venv is absent), and the real-time factor of each.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::path::PathBuf;
use std::time::Instant;

use easel_audio::speech::{Speaker, Speakers, SpeechRequest};
use easel_audio::{AudioConfig, AudioError};
use engines::Cancel;
use protocol::audio::VoiceSpec;

fn req(engine: &str, base: &str, language: &str, text: &str, speed: f32) -> SpeechRequest {
    SpeechRequest {
        text: text.into(),
        voice: VoiceSpec {
            engine: engine.into(),
            base: base.into(),
            language: language.into(),
            params: serde_json::json!({}),
        },
        speed,
        emotion: String::new(),
    }
}

/// CPU seconds of this process and its children so far.
fn cpu_secs() -> f64 {
    let stat = |who: &str| -> f64 {
        let s = std::fs::read_to_string(format!("/proc/{who}/stat")).unwrap_or_default();
        let after = s.rsplit(')').next().unwrap_or("");
        let f: Vec<f64> = after
            .split_whitespace()
            .map(|x| x.parse().unwrap_or(0.0))
            .collect();
        // utime stime cutime cstime are fields 14-17 (index 11-14 after ')').
        f.get(11..15).map(|x| x.iter().sum()).unwrap_or(0.0) / 100.0
    };
    stat("self")
}

fn venv_python() -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let p = std::env::var_os("EASEL_VOICE_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join(".venv-voice/bin/python"));
    p.exists().then_some(p)
}

#[tokio::test]
async fn espeak_speaks_every_spec_language() {
    let speakers = Speakers::new(AudioConfig::default());
    let texts = [
        (
            "en",
            "The quick brown fox jumps over the lazy dog near the river bank.",
        ),
        ("ja", "こんにちは、げんきですか。"),
        ("zh-cn", "你好，今天天气很好。"),
        ("fr", "Bonjour, comment allez-vous aujourd'hui ?"),
        ("de", "Guten Morgen, wie geht es dir heute?"),
        ("ru", "Привет, как у тебя дела сегодня?"),
        ("ar", "مرحبا كيف حالك اليوم"),
        ("hi", "नमस्ते, आप कैसे हैं?"),
        ("ko", "안녕하세요, 오늘 어떠세요?"),
        ("th", "สวัสดีครับ วันนี้เป็นอย่างไรบ้าง"),
        ("nl", "Goedemorgen, hoe gaat het?"),
        ("id", "Selamat pagi, apa kabar?"),
        ("it", "Buongiorno, come stai oggi?"),
        ("pt", "Bom dia, como vai você?"),
        ("es", "Buenos días, ¿cómo estás hoy?"),
        ("tr", "Günaydın, bugün nasılsın?"),
        ("uk", "Доброго ранку, як справи?"),
        ("vi", "Xin chào, bạn có khỏe không?"),
        ("pl", "Dzień dobry, jak się masz?"),
        ("ro", "Bună dimineața, ce mai faci?"),
        ("el", "Καλημέρα, τι κάνεις σήμερα;"),
        ("cs", "Dobré ráno, jak se máte?"),
        ("fi", "Hyvää huomenta, mitä kuuluu?"),
    ];
    for (lang, text) in texts {
        let s = speakers
            .speak(req("espeak", "", lang, text, 1.0), Cancel::new())
            .await
            .unwrap_or_else(|e| panic!("{lang}: {e}"));
        let d = s.pcm.duration();
        assert!(d > 0.5 && d < 12.0, "{lang}: {d} s");
        let db = easel_audio::analysis::dbfs(s.pcm.rms());
        assert!(db > -40.0, "{lang}: {db} dBFS");
        assert_eq!(s.engine, "espeak");
        assert!(!s.neural);
        assert!(!s.phonemes.is_empty(), "{lang}: no phonemes");
    }
}

#[tokio::test]
async fn espeak_duration_follows_the_words_and_speed() {
    let speakers = Speakers::new(AudioConfig::default());
    let text = "one two three four five six seven eight nine ten eleven twelve \
                thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty";
    let words = text.split_whitespace().count() as f64;
    let t0 = cpu_secs();
    let normal = speakers
        .speak(req("espeak", "en-us+m3", "en", text, 1.0), Cancel::new())
        .await
        .unwrap();
    let cpu = cpu_secs() - t0;
    let fast = speakers
        .speak(req("espeak", "en-us+m3", "en", text, 2.0), Cancel::new())
        .await
        .unwrap();
    // 175 words per minute at speed 1 (plus pauses): within a factor of 1.6.
    let want = words * 60.0 / 175.0;
    let d = normal.pcm.duration();
    assert!(d > want / 1.6 && d < want * 1.6, "{d} s vs {want} s");
    let ratio = d / fast.pcm.duration();
    assert!(ratio > 1.5 && ratio < 2.5, "speed 2 should halve: {ratio}");
    // Phonemes are in order, inside the audio.
    let last = normal.phonemes.last().unwrap().at_ms as f64 / 1000.0;
    assert!(last < d);
    assert!(normal.phonemes.windows(2).all(|w| w[0].at_ms <= w[1].at_ms));
    assert_eq!(normal.applied["speed"], "rate");
    println!(
        "RTF espeak: {d:.2} s of audio in {cpu:.3} s CPU (children included) = {:.0}x real time",
        d / cpu.max(1e-3)
    );
}

#[tokio::test]
async fn emotion_changes_espeak_prosody() {
    let speakers = Speakers::new(AudioConfig::default());
    let mut r = req(
        "espeak",
        "",
        "en",
        "I can't believe it happened today.",
        1.0,
    );
    r.emotion = "sad".into();
    let sad = speakers.speak(r.clone(), Cancel::new()).await.unwrap();
    r.emotion = "happy".into();
    let happy = speakers.speak(r, Cancel::new()).await.unwrap();
    assert_eq!(sad.applied["emotion"], "prosody");
    assert!(sad.pcm.duration() > happy.pcm.duration());
    assert!(sad.applied["pitch"].as_u64() < happy.applied["pitch"].as_u64());
}

#[tokio::test]
async fn unknown_engines_and_empty_text_are_refused() {
    let speakers = Speakers::new(AudioConfig::default());
    let e = speakers
        .speak(req("nope", "", "en", "hi", 1.0), Cancel::new())
        .await
        .unwrap_err();
    assert!(matches!(e, AudioError::BadInput(_)), "{e}");
    let e = speakers
        .speak(req("espeak", "", "en", "  ", 1.0), Cancel::new())
        .await
        .unwrap_err();
    assert!(matches!(e, AudioError::BadInput(_)), "{e}");
    let e = speakers
        .speak(req("remote", "", "en", "hi", 1.0), Cancel::new())
        .await
        .unwrap_err();
    assert!(matches!(e, AudioError::Unavailable(_)), "{e}");
}

#[tokio::test]
async fn neural_voices_without_a_venv_say_why() {
    let speakers = Speakers::new(AudioConfig {
        voice_python: Some("/nonexistent/python".into()),
        ..AudioConfig::default()
    });
    let e = speakers
        .speak(req("piper", "joe", "en", "hello", 1.0), Cancel::new())
        .await
        .unwrap_err();
    match e {
        AudioError::Unavailable(m) => assert!(m.contains("fetch-voices"), "{m}"),
        other => panic!("{other}"),
    }
    // eSpeak still speaks.
    speakers
        .speak(req("espeak", "", "en", "hello", 1.0), Cancel::new())
        .await
        .unwrap();
    let off = Speakers::new(AudioConfig {
        disable_piper: true,
        ..AudioConfig::default()
    });
    assert!(off
        .unavailable_reason("piper")
        .unwrap()
        .contains("EASEL_VOICE_PIPER"));
}

#[tokio::test]
async fn piper_and_kokoro_speak_through_the_worker() {
    let Some(python) = venv_python() else {
        println!("SKIP neural voices: no .venv-voice (run ./scripts/fetch-voices)");
        return;
    };
    let speakers = Speakers::new(AudioConfig {
        voice_python: Some(python),
        ..AudioConfig::default()
    });
    let text = "The quick brown fox jumps over the lazy dog near the river bank today.";
    let words = text.split_whitespace().count() as f64;
    // Warm up (model load), then measure.
    speakers
        .speak(req("piper", "joe", "en", "Hello.", 1.0), Cancel::new())
        .await
        .unwrap();
    let t0 = Instant::now();
    let s = speakers
        .speak(req("piper", "joe", "en", text, 1.0), Cancel::new())
        .await
        .unwrap();
    let wall = t0.elapsed().as_secs_f64();
    let d = s.pcm.duration();
    let want = words * 60.0 / 165.0;
    assert!(d > want / 1.8 && d < want * 1.8, "piper {d} s vs {want}");
    assert!(easel_audio::analysis::dbfs(s.pcm.rms()) > -35.0);
    assert!(s.neural && s.engine == "piper" && !s.phonemes.is_empty());
    println!(
        "RTF piper joe (warm): {d:.2} s of audio in {wall:.2} s wall = {:.1}x real time",
        d / wall
    );

    let ja = "こんにちは。今日はいい天気ですね。";
    speakers
        .speak(
            req("kokoro", "jf_alpha", "ja", "はい。", 1.0),
            Cancel::new(),
        )
        .await
        .unwrap();
    let t0 = Instant::now();
    let s = speakers
        .speak(req("kokoro", "jm_kumo", "ja", ja, 1.0), Cancel::new())
        .await
        .unwrap();
    let wall = t0.elapsed().as_secs_f64();
    let d = s.pcm.duration();
    // About 8 morae per second, 17 morae.
    assert!(d > 1.0 && d < 8.0, "kokoro {d} s");
    assert!(easel_audio::analysis::dbfs(s.pcm.rms()) > -35.0);
    println!(
        "RTF kokoro-ja (warm): {d:.2} s of audio in {wall:.2} s wall = {:.2}x real time",
        d / wall
    );

    // Cancel kills the worker mid-request; the next request starts a new one.
    let cancel = Cancel::new();
    let c2 = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(30)).await;
        c2.cancel();
    });
    let long = ja.repeat(10);
    let e = speakers
        .speak(req("kokoro", "jf_alpha", "ja", &long, 1.0), cancel)
        .await
        .unwrap_err();
    assert!(matches!(e, AudioError::Cancelled), "{e}");
    speakers
        .speak(req("piper", "joe", "en", "Still here.", 1.0), Cancel::new())
        .await
        .unwrap();
}

/// Tests of the eSpeak NG library path against the program path: the same
/// sound, real phoneme timings, the mouth moving on them, and the speed of
/// each.
mod espeak_library {
    use super::*;
    use easel_audio::lipsync::drive::{poses, Viseme};
    use easel_audio::speech::espeak;
    use easel_audio::speech::Phoneme;
    use easel_audio::Pcm;

    const TEXT: &str = "Bob met my mom by the park. Papa, how are you? Fine, thanks.";

    fn en(text: &str, base: &str) -> SpeechRequest {
        req("espeak", base, "en", text, 1.0)
    }

    #[tokio::test]
    async fn the_library_speaks_with_its_events_and_says_so() {
        let speakers = Speakers::new(AudioConfig::default());
        let s = speakers.speak(en(TEXT, ""), Cancel::new()).await.unwrap();
        assert_eq!(s.applied["espeak"], "library");
        assert_eq!(s.applied["phoneme_timing"], "events");
        assert_eq!(s.pcm.rate, 22_050);
        let d_ms = (s.pcm.duration() * 1000.0) as u32;
        assert!(s.phonemes.windows(2).all(|w| w[0].at_ms <= w[1].at_ms));
        assert!(s.phonemes.iter().all(|p| p.at_ms <= d_ms));
        // Whole IPA phonemes (diphthongs together), pauses as rests.
        assert_eq!(
            s.phonemes[..3]
                .iter()
                .map(|p| p.ipa.as_str())
                .collect::<Vec<_>>(),
            ["b", "ɑː", "b"]
        );
        assert!(s.phonemes.iter().any(|p| p.ipa == "aʊ"), "{:?}", s.phonemes);
        assert!(s
            .phonemes
            .windows(2)
            .any(|w| w[0].ipa == "_" && w[1].at_ms - w[0].at_ms > 150));
        assert!(!s
            .phonemes
            .windows(2)
            .any(|w| w[0].ipa == "_" && w[1].ipa == "_"));
    }

    fn rms_db(p: &Pcm) -> f32 {
        easel_audio::analysis::dbfs(p.rms())
    }

    #[test]
    fn library_and_program_sound_the_same() {
        let mut r = en(TEXT, "en-us+f3");
        r.emotion = "happy".into();
        r.speed = 1.3;
        let voice = espeak::voice_name(&r).unwrap();
        let p = espeak::prosody(&r);
        let lib = espeak::speak_with_library(&r, &voice, p, &Cancel::new())
            .unwrap()
            .unwrap();
        let prog = espeak::speak_with_program(&r, &voice, p, &Cancel::new()).unwrap();
        assert_eq!(lib.pcm.rate, prog.pcm.rate);
        let (a, b) = (lib.pcm.duration(), prog.pcm.duration());
        assert!((a - b).abs() / b < 0.03, "{a} s vs {b} s");
        let (a, b) = (rms_db(&lib.pcm), rms_db(&prog.pcm));
        assert!((a - b).abs() < 1.0, "{a} dB vs {b} dB");
        // The same phonemes: the library's, joined, are the program's IPA.
        let joined = |ph: &[Phoneme]| -> String {
            ph.iter()
                .filter(|p| p.ipa != "_")
                .map(|p| p.ipa.as_str())
                .collect()
        };
        assert_eq!(joined(&lib.phonemes), joined(&prog.phonemes));
        let mut la = lib.applied.clone();
        let mut pa = prog.applied.clone();
        assert_eq!(
            (la["espeak"].take(), pa["espeak"].take()),
            ("library".into(), "program".into())
        );
        la["phoneme_timing"].take();
        pa["phoneme_timing"].take();
        assert_eq!(la, pa);
        // Cancelled before it starts: nothing is spoken.
        let c = Cancel::new();
        c.cancel();
        let e = espeak::speak_with_library(&r, &voice, p, &c)
            .unwrap()
            .unwrap_err();
        assert!(matches!(e, AudioError::Cancelled), "{e}");
        r.voice.base = "xx-nope".into();
        let e = espeak::speak_with_library(&r, "xx-nope", p, &Cancel::new())
            .unwrap()
            .unwrap_err();
        assert!(matches!(e, AudioError::BadInput(_)), "{e}");
    }

    /// The frames (first, last) of each phoneme of a viseme lasting at
    /// least `min_ms`.
    fn spans_of(ph: &[Phoneme], v: Viseme, min_ms: u32, fps: f64) -> Vec<(usize, usize)> {
        let frame = |ms: u32| (f64::from(ms) / 1000.0 * fps) as usize;
        ph.windows(2)
            .filter(|w| Viseme::of_ipa(&w[0].ipa) == v && w[1].at_ms - w[0].at_ms >= min_ms)
            .map(|w| (frame(w[0].at_ms), frame(w[1].at_ms).saturating_sub(1)))
            .collect()
    }

    #[test]
    fn the_mouth_moves_at_the_events_on_real_speech() {
        let r = en(TEXT, "en-us");
        let voice = espeak::voice_name(&r).unwrap();
        let s = espeak::speak_with_library(&r, &voice, espeak::prosody(&r), &Cancel::new())
            .unwrap()
            .unwrap();
        let fps = 100.0;
        let frames = (s.pcm.duration() * fps) as usize;
        let pose = poses(&s.pcm, &s.phonemes, fps, frames);
        // Lips close on every b, m and p; open on the open vowels; rest in
        // the pauses between sentences.
        let closed = spans_of(&s.phonemes, Viseme::Closed, 40, fps);
        let open = spans_of(&s.phonemes, Viseme::Open, 60, fps);
        let rest = spans_of(&s.phonemes, Viseme::Rest, 150, fps);
        assert!(
            closed.len() >= 4 && open.len() >= 3 && rest.len() >= 2,
            "{closed:?} {open:?} {rest:?}"
        );
        // The pose eases toward the phoneme's shape: look at its last frame,
        // or its widest.
        for (_, b) in &closed {
            assert!(pose[*b].open < 0.15, "closed at frame {b}: {:?}", pose[*b]);
        }
        for (a, b) in &open {
            let widest = pose[*a..=*b].iter().map(|p| p.open).fold(0.0, f32::max);
            assert!(widest > 0.35, "open at frames {a}..={b}: {widest}");
        }
        for (_, b) in &rest {
            assert!(pose[*b].open < 0.05, "rest at frame {b}: {:?}", pose[*b]);
        }
        // The same drive with the phonemes shifted 150 ms late misses the
        // closures: the timings matter.
        let late: Vec<Phoneme> = s
            .phonemes
            .iter()
            .map(|p| Phoneme {
                at_ms: p.at_ms + 150,
                ipa: p.ipa.clone(),
            })
            .collect();
        let shifted = poses(&s.pcm, &late, fps, frames);
        let missed = closed
            .iter()
            .filter(|(_, b)| shifted[*b].open >= 0.15)
            .count();
        assert!(missed * 2 >= closed.len(), "{missed} of {}", closed.len());
    }

    #[test]
    fn real_time_factor_of_library_and_program() {
        let text = "one two three four five six seven eight nine ten eleven twelve \
                    thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty. "
            .repeat(3);
        let r = en(&text, "en-us");
        let voice = espeak::voice_name(&r).unwrap();
        let p = espeak::prosody(&r);
        // Warm the library (loading and initialising happen once).
        espeak::speak_with_library(&en("hi", "en-us"), &voice, p, &Cancel::new())
            .unwrap()
            .unwrap();
        let (mut lib_cpu, mut lib_wall, mut prog_cpu, mut prog_wall, mut secs) =
            (0.0, 0.0, 0.0, 0.0, 0.0);
        for _ in 0..3 {
            let (c, w) = (cpu_secs(), Instant::now());
            let s = espeak::speak_with_library(&r, &voice, p, &Cancel::new())
                .unwrap()
                .unwrap();
            lib_cpu += cpu_secs() - c;
            lib_wall += w.elapsed().as_secs_f64();
            secs += s.pcm.duration();
            let (c, w) = (cpu_secs(), Instant::now());
            espeak::speak_with_program(&r, &voice, p, &Cancel::new()).unwrap();
            prog_cpu += cpu_secs() - c;
            prog_wall += w.elapsed().as_secs_f64();
        }
        assert!(secs > 30.0, "{secs}");
        println!(
            "RTF espeak ({secs:.1} s of audio): library {:.0}x real time ({lib_cpu:.2} s CPU, \
             {lib_wall:.2} s wall); program {:.0}x ({prog_cpu:.2} s CPU incl. children, \
             {prog_wall:.2} s wall)",
            secs / lib_wall.max(1e-3),
            secs / prog_wall.max(1e-3),
        );
        // A chat-sized sentence: the program's start-up (twice: audio, then
        // IPA) dominates.
        let short = en("Hello there, how are you today?", "en-us");
        let (mut lib_ms, mut prog_ms) = (0.0, 0.0);
        for _ in 0..10 {
            let w = Instant::now();
            espeak::speak_with_library(&short, &voice, p, &Cancel::new())
                .unwrap()
                .unwrap();
            lib_ms += w.elapsed().as_secs_f64() * 100.0;
            let w = Instant::now();
            espeak::speak_with_program(&short, &voice, p, &Cancel::new()).unwrap();
            prog_ms += w.elapsed().as_secs_f64() * 100.0;
        }
        println!(
            "espeak latency, one short sentence (mean of 10): library {lib_ms:.1} ms, \
             program {prog_ms:.1} ms"
        );
    }
}
