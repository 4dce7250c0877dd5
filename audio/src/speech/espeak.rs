//! eSpeak NG, the default speech engine for every spec-3 language: its
//! library (`easel-espeak`, loaded at run time) with the phoneme timings it
//! reports, else the Debian `espeak-ng` program (`-w out.wav`, a child
//! killed on cancel) with phoneme timings estimated from its IPA
//! transcription (`-q --ipa`) spread over the voiced frames of the audio it
//! made; its voice names per language; speed and emotion as prosody.

use std::ffi::OsString;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use ::espeak as lib;
use engines::Cancel;
use serde_json::json;

use super::{Phoneme, Speech, SpeechRequest};
use crate::{AudioError, Pcm};

/// The engine's human label.
pub const LABEL: &str = "eSpeak NG (formant, non-neural)";

/// The `espeak-ng` program: `$EASEL_ESPEAK` or `espeak-ng` on the `PATH`.
pub fn program() -> OsString {
    std::env::var_os("EASEL_ESPEAK").unwrap_or_else(|| "espeak-ng".into())
}

/// eSpeak's voice for a spec-3 language code (`zh-cn` → `cmn`, `en` →
/// `en-us`); `None` for a code spec 3 does not list.
pub fn language_voice(code: &str) -> Option<&'static str> {
    Some(match code {
        "en" => "en-us",
        "zh-cn" => "cmn",
        "ja" => "ja",
        "nl" => "nl",
        "ar" => "ar",
        "fr" => "fr",
        "de" => "de",
        "id" => "id",
        "it" => "it",
        "ko" => "ko",
        "pt" => "pt",
        "ru" => "ru",
        "es" => "es",
        "tr" => "tr",
        "uk" => "uk",
        "vi" => "vi",
        "th" => "th",
        "pl" => "pl",
        "ro" => "ro",
        "el" => "el",
        "cs" => "cs",
        "fi" => "fi",
        "hi" => "hi",
        _ => return None,
    })
}

/// Prosody eSpeak is given: words per minute, pitch and range 0-99,
/// amplitude 0-200.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prosody {
    pub rate: u32,
    pub pitch: u32,
    pub range: u32,
    pub amplitude: u32,
}

/// The prosody of a request: the voice's params (`espeak_pitch`,
/// `espeak_range`, `rate_wpm`; eSpeak's defaults 50, 50, 175 otherwise),
/// the speed multiplying the rate, and the emotion's deltas.
pub fn prosody(req: &SpeechRequest) -> Prosody {
    let p = &req.voice.params;
    let num = |k: &str, d: f64| p.get(k).and_then(|v| v.as_f64()).unwrap_or(d);
    let mut pitch = num("espeak_pitch", 50.0);
    let mut range = num("espeak_range", 50.0);
    let mut rate = num("rate_wpm", 175.0) * f64::from(req.speed.clamp(0.25, 4.0));
    let mut amplitude = 100.0;
    let (dp, dr, rf, da) = emotion_deltas(&req.emotion);
    pitch += dp;
    range += dr;
    rate *= rf;
    amplitude += da;
    Prosody {
        rate: rate.round().clamp(80.0, 450.0) as u32,
        pitch: pitch.round().clamp(0.0, 99.0) as u32,
        range: range.round().clamp(0.0, 99.0) as u32,
        amplitude: amplitude.round().clamp(0.0, 200.0) as u32,
    }
}

/// (pitch delta, range delta, rate factor, amplitude delta) of an emotion;
/// unknown emotions change nothing.
pub fn emotion_deltas(emotion: &str) -> (f64, f64, f64, f64) {
    match emotion.trim().to_ascii_lowercase().as_str() {
        "happy" | "cheerful" | "excited" => (10.0, 20.0, 1.08, 10.0),
        "sad" | "melancholic" => (-8.0, -15.0, 0.88, -15.0),
        "angry" => (5.0, 25.0, 1.10, 30.0),
        "fearful" | "scared" => (12.0, 10.0, 1.12, -10.0),
        "surprised" => (15.0, 30.0, 1.0, 10.0),
        "calm" | "gentle" => (-3.0, -10.0, 0.94, -5.0),
        _ => (0.0, 0.0, 1.0, 0.0),
    }
}

/// Whether an emotion changes eSpeak's prosody.
pub fn emotion_applies(emotion: &str) -> bool {
    emotion_deltas(emotion) != (0.0, 0.0, 1.0, 0.0)
}

/// The eSpeak voice name of a request: its base (`en-us+f3`), else the
/// language's voice.
pub fn voice_name(req: &SpeechRequest) -> Result<String, AudioError> {
    let base = req.voice.base.trim();
    if !base.is_empty() {
        let ok = base
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '+' | '_'));
        if !ok {
            return Err(AudioError::BadInput(format!(
                "`{base}` is not an eSpeak voice name"
            )));
        }
        return Ok(base.to_string());
    }
    language_voice(&req.voice.language)
        .map(str::to_string)
        .ok_or_else(|| {
            AudioError::BadInput(format!(
                "no eSpeak voice for language `{}`",
                req.voice.language
            ))
        })
}

/// Runs espeak-ng to completion, polling `cancel`; answers its stdout.
fn run(args: &[String], dir: &Path, cancel: &Cancel) -> Result<Vec<u8>, AudioError> {
    let prog = program();
    let mut child = Command::new(&prog)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            AudioError::Unavailable(format!(
                "eSpeak NG cannot be started (`{}`: {e}); install Debian's espeak-ng package \
                 or set EASEL_ESPEAK",
                prog.to_string_lossy()
            ))
        })?;
    // The outputs are small (IPA text, a few bytes of messages): read them
    // on threads so a full pipe never blocks the child.
    let out = child.stdout.take().map(|mut o| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = std::io::Read::read_to_end(&mut o, &mut v);
            v
        })
    });
    let err = child.stderr.take().map(|mut o| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = std::io::Read::read_to_end(&mut o, &mut v);
            v
        })
    });
    let status = loop {
        if cancel.is_cancelled() {
            let _ = child.kill();
            let _ = child.wait();
            return Err(AudioError::Cancelled);
        }
        match child.try_wait()? {
            Some(s) => break s,
            None => std::thread::sleep(Duration::from_millis(5)),
        }
    };
    let stdout = out.and_then(|h| h.join().ok()).unwrap_or_default();
    let stderr = err.and_then(|h| h.join().ok()).unwrap_or_default();
    if !status.success() {
        return Err(AudioError::Failed(format!(
            "espeak-ng failed ({status}): {}",
            String::from_utf8_lossy(&stderr).trim()
        )));
    }
    Ok(stdout)
}

/// Speaks a request with eSpeak NG (blocking: call from a blocking thread):
/// through its library when it loads, else through the program.
pub fn speak_blocking(req: &SpeechRequest, cancel: &Cancel) -> Result<Speech, AudioError> {
    let voice = voice_name(req)?;
    let p = prosody(req);
    match speak_with_library(req, &voice, p, cancel) {
        Some(r) => r,
        // The library logged why, once, when it failed to load.
        None => speak_with_program(req, &voice, p, cancel),
    }
}

/// The SSML document both paths speak: the text, escaped, in a prosody
/// element carrying the pitch range (the program has no option for it;
/// the library gets the same document so both sound the same).
fn ssml_of(req: &SpeechRequest, p: Prosody) -> String {
    format!(
        "<speak><prosody range=\"{}%\">{}</prosody></speak>",
        p.range * 2,
        xml_escape(&req.text)
    )
}

fn applied(req: &SpeechRequest, voice: &str, p: Prosody, library: bool) -> serde_json::Value {
    json!({
        "voice": voice,
        "speed": "rate",
        "emotion": if emotion_applies(&req.emotion) { "prosody" } else { "none" },
        "rate_wpm": p.rate,
        "pitch": p.pitch,
        "range": p.range,
        "amplitude": p.amplitude,
        "espeak": if library { "library" } else { "program" },
        "phoneme_timing": if library { "events" } else { "estimated" },
    })
}

/// Speaks through eSpeak NG's library: the same SSML, voice and prosody as
/// the program gets, and the phonemes it reports (pauses as `_`); `None`
/// when the library cannot be loaded here.
pub fn speak_with_library(
    req: &SpeechRequest,
    voice: &str,
    p: Prosody,
    cancel: &Cancel,
) -> Option<Result<Speech, AudioError>> {
    let ssml = ssml_of(req, p);
    let c = cancel.clone();
    let r = lib::synth(
        &lib::Request {
            text: &ssml,
            voice,
            rate: p.rate,
            pitch: p.pitch,
            // The prosody element scales the default range, as for the program.
            range: 50,
            volume: p.amplitude,
            ssml: true,
        },
        move || c.is_cancelled(),
    );
    let s = match r {
        Ok(s) => s,
        Err(lib::EspeakError::Unavailable(_)) => return None,
        Err(e) => {
            return Some(Err(match e {
                lib::EspeakError::Stopped => AudioError::Cancelled,
                lib::EspeakError::UnknownVoice(v) => {
                    AudioError::BadInput(format!("eSpeak NG has no voice `{v}`"))
                }
                lib::EspeakError::BadInput(m) => AudioError::BadInput(m),
                other => AudioError::Failed(other.to_string()),
            }))
        }
    };
    if s.samples.is_empty() {
        return Some(Err(AudioError::BadInput(
            "eSpeak made no sound for this text".into(),
        )));
    }
    let mut phonemes: Vec<Phoneme> = Vec::with_capacity(s.phonemes.len());
    for e in &s.phonemes {
        let ipa = if e.ipa.is_empty() {
            "_"
        } else {
            e.ipa.as_str()
        };
        // One rest per pause, however many pause events make it.
        if ipa == "_" && phonemes.last().is_some_and(|l| l.ipa == "_") {
            continue;
        }
        phonemes.push(Phoneme {
            at_ms: e.at_ms,
            ipa: ipa.to_string(),
        });
    }
    Some(Ok(Speech {
        pcm: Pcm::mono(s.sample_rate, s.samples_f32()),
        phonemes,
        engine: "espeak".into(),
        neural: false,
        applied: applied(req, voice, p, true),
    }))
}

/// Speaks through the `espeak-ng` program, with estimated phoneme timings.
pub fn speak_with_program(
    req: &SpeechRequest,
    voice: &str,
    p: Prosody,
    cancel: &Cancel,
) -> Result<Speech, AudioError> {
    let dir = tempfile::Builder::new().prefix("easel-espeak-").tempdir()?;
    let ssml = ssml_of(req, p);
    std::fs::write(dir.path().join("text.txt"), ssml.as_bytes())?;
    let s = |v: &str| v.to_string();
    let mut args = vec![
        s("-v"),
        voice.to_string(),
        s("-s"),
        p.rate.to_string(),
        s("-p"),
        p.pitch.to_string(),
        s("-m"),
        s("-a"),
        p.amplitude.to_string(),
        s("-b"),
        s("1"),
    ];
    let mut synth = args.clone();
    synth.extend([s("-w"), s("out.wav"), s("-f"), s("text.txt")]);
    run(&synth, dir.path(), cancel)?;
    let pcm = read_wav(&dir.path().join("out.wav"))?;
    if pcm.samples.is_empty() {
        return Err(AudioError::BadInput(
            "eSpeak made no sound for this text".into(),
        ));
    }
    args.extend([s("-q"), s("--ipa"), s("-f"), s("text.txt")]);
    let ipa = String::from_utf8_lossy(&run(&args, dir.path(), cancel)?).into_owned();
    let phonemes = estimate_timings(&ipa_units(&ipa), &pcm);
    Ok(Speech {
        pcm,
        phonemes,
        engine: "espeak".into(),
        neural: false,
        applied: applied(req, voice, p, false),
    })
}

fn xml_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            c if c.is_control() && c != '\n' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// eSpeak's IPA transcription of a request's text in its voice's language
/// (blocking), one line per clause.
pub fn ipa_blocking(req: &SpeechRequest, cancel: &Cancel) -> Result<String, AudioError> {
    let voice = voice_name(req)?;
    let dir = tempfile::Builder::new().prefix("easel-espeak-").tempdir()?;
    std::fs::write(dir.path().join("text.txt"), req.text.as_bytes())?;
    let args: Vec<String> = ["-v", &voice, "-b", "1", "-q", "--ipa", "-f", "text.txt"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    Ok(String::from_utf8_lossy(&run(&args, dir.path(), cancel)?).into_owned())
}

/// Reads a 16-bit mono WAV file (what espeak-ng writes).
pub fn read_wav(path: &Path) -> Result<Pcm, AudioError> {
    let mut r = hound::WavReader::open(path)
        .map_err(|e| AudioError::Failed(format!("unreadable speech wav: {e}")))?;
    let spec = r.spec();
    let samples: Vec<f32> = match spec.sample_format {
        hound::SampleFormat::Int => {
            let scale = (1i64 << (spec.bits_per_sample.max(1) - 1)) as f32;
            r.samples::<i32>()
                .map(|s| s.map(|v| v as f32 / scale))
                .collect::<Result<_, _>>()
        }
        hound::SampleFormat::Float => r.samples::<f32>().collect::<Result<_, _>>(),
    }
    .map_err(|e| AudioError::Failed(format!("unreadable speech wav: {e}")))?;
    Ok(Pcm {
        rate: spec.sample_rate,
        channels: spec.channels.max(1),
        samples,
    }
    .to_mono())
}

/// The phonemes of eSpeak's IPA text, in order: each letter with its length
/// mark; stress marks, tie bars and punctuation dropped. Word boundaries
/// are `None`.
pub fn ipa_units(ipa: &str) -> Vec<Option<String>> {
    let mut out: Vec<Option<String>> = Vec::new();
    for word in ipa.split_whitespace() {
        if !out.is_empty() {
            out.push(None);
        }
        for c in word.chars() {
            match c {
                'ˈ' | 'ˌ' | '\u{361}' | '\u{35c}' | '_' | '-' | '.' | ',' | '?' | '!' => {}
                'ː' | 'ˑ' | '\u{303}' | '\u{329}' | '\u{30a}' | 'ʰ' | 'ʲ' | 'ʷ' => {
                    if let Some(Some(last)) = out.last_mut() {
                        last.push(c);
                    }
                }
                _ => out.push(Some(c.to_string())),
            }
        }
    }
    while matches!(out.last(), Some(None)) {
        out.pop();
    }
    out
}

/// Spreads phonemes over the voiced 10 ms frames of `pcm`, in order (a word
/// boundary takes a frame's share too, so words land near their sound).
pub fn estimate_timings(units: &[Option<String>], pcm: &Pcm) -> Vec<Phoneme> {
    let hop = (pcm.rate / 100).max(1) as usize;
    let frames: Vec<f32> = pcm.samples.chunks(hop).map(crate::analysis::rms).collect();
    let peak = frames.iter().copied().fold(0.0f32, f32::max);
    let voiced: Vec<usize> = frames
        .iter()
        .enumerate()
        .filter(|(_, r)| **r > peak * 0.05 && **r > 1e-4)
        .map(|(i, _)| i)
        .collect();
    if units.is_empty() || voiced.is_empty() {
        return Vec::new();
    }
    let n = units.len();
    units
        .iter()
        .enumerate()
        .filter_map(|(i, u)| {
            let ipa = u.clone()?;
            let at = voiced.get(i * voiced.len() / n).copied().unwrap_or(0);
            Some(Phoneme {
                at_ms: (at * 10) as u32,
                ipa,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use protocol::audio::VoiceSpec;

    fn req(emotion: &str, speed: f32, params: serde_json::Value) -> SpeechRequest {
        SpeechRequest {
            text: "hi".into(),
            voice: VoiceSpec {
                engine: "espeak".into(),
                base: String::new(),
                language: "en".into(),
                params,
            },
            speed,
            emotion: emotion.into(),
        }
    }

    #[test]
    fn prosody_combines_params_speed_and_emotion() {
        let p = prosody(&req("neutral", 1.0, json!({})));
        assert_eq!(
            p,
            Prosody {
                rate: 175,
                pitch: 50,
                range: 50,
                amplitude: 100
            }
        );
        let p = prosody(&req(
            "happy",
            2.0,
            json!({"espeak_pitch": 30, "rate_wpm": 150}),
        ));
        assert_eq!((p.rate, p.pitch, p.range), (324, 40, 70));
        let p = prosody(&req("sad", 0.5, json!({"espeak_pitch": 2})));
        assert_eq!((p.rate, p.pitch), (80, 0));
        assert!(!emotion_applies("neutral") && emotion_applies("Angry"));
    }

    #[test]
    fn every_spec_language_has_a_voice_and_bad_names_are_refused() {
        for c in [
            "en", "ja", "zh-cn", "nl", "ar", "fr", "de", "id", "it", "ko", "pt", "ru", "es", "tr",
            "uk", "vi", "th", "pl", "ro", "el", "cs", "fi", "hi",
        ] {
            assert!(language_voice(c).is_some(), "{c}");
        }
        assert_eq!(language_voice("zh-cn"), Some("cmn"));
        assert_eq!(language_voice("xx"), None);
        let mut r = req("", 1.0, json!({}));
        r.voice.base = "en-us; rm -rf".into();
        assert!(matches!(voice_name(&r), Err(AudioError::BadInput(_))));
    }

    #[test]
    fn ipa_units_keep_length_marks_and_word_gaps() {
        let u = ipa_units("həlˈoʊ wˈɜːld\n");
        let flat: Vec<String> = u
            .iter()
            .map(|x| x.clone().unwrap_or_else(|| "|".into()))
            .collect();
        assert_eq!(flat, ["h", "ə", "l", "o", "ʊ", "|", "w", "ɜː", "l", "d"]);
    }
}
