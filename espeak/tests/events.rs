//! The library's events against its audio and against the `espeak-ng`
//! program: phonemes in order, inside the audio, the same as the program's
//! IPA transcription; an SSML break as a gap; stop, bad voices, and calls
//! from several threads at once.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use easel_espeak::{synth, EspeakError, Request, Synthesis};

fn req(text: &str, ssml: bool) -> Request<'_> {
    Request {
        text,
        voice: "en-us",
        rate: 175,
        pitch: 50,
        range: 50,
        volume: 100,
        ssml,
    }
}

fn speak(text: &str, ssml: bool) -> Synthesis {
    synth(&req(text, ssml), || false).unwrap()
}

/// The program's phonemes: `espeak-ng -q --ipa --sep=_`, stress dropped.
fn program_phonemes(voice: &str, text: &str) -> Vec<String> {
    let out = Command::new("espeak-ng")
        .args(["-v", voice, "-q", "--ipa", "--sep=_", text])
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .split(|c: char| c.is_whitespace() || c == '_')
        .map(|p| p.replace(['ˈ', 'ˌ'], ""))
        .filter(|p| !p.is_empty())
        .collect()
}

fn spoken(s: &Synthesis) -> Vec<String> {
    s.phonemes
        .iter()
        .filter(|p| !p.ipa.is_empty())
        .map(|p| p.ipa.clone())
        .collect()
}

const SENTENCE: &str =
    "Hello there. The quick brown fox jumps over 12 lazy dogs, doesn't it? Good morning!";

#[test]
fn phoneme_events_are_ordered_inside_the_audio_and_match_the_program() {
    let s = speak(SENTENCE, false);
    assert_eq!(s.sample_rate, 22_050);
    let len_ms = s.samples.len() as u64 * 1000 / u64::from(s.sample_rate);
    assert!(len_ms > 3000, "{len_ms} ms");
    assert!(s.samples.iter().any(|v| v.unsigned_abs() > 3000));
    assert!(s
        .phonemes
        .windows(2)
        .all(|w| w[0].at_ms <= w[1].at_ms && w[0].sample <= w[1].sample));
    for p in &s.phonemes {
        assert!(p.sample <= s.samples.len() as u64, "{p:?}");
        assert!(u64::from(p.at_ms) <= len_ms, "{p:?}");
        // at_ms and sample tell the same time.
        let ms = p.sample * 1000 / u64::from(s.sample_rate);
        assert!(ms.abs_diff(u64::from(p.at_ms)) <= 1, "{p:?}");
    }
    assert_eq!(spoken(&s), program_phonemes("en-us", SENTENCE));
    // The first phonemes of "Hello" are h ə l oʊ, within the first 300 ms.
    assert_eq!(spoken(&s)[..4], ["h", "ə", "l", "oʊ"]);
    assert!(s.phonemes[3].at_ms < 300, "{:?}", &s.phonemes[..4]);
    // One word event per spoken word, at its place in the text.
    let words: Vec<String> = s
        .words
        .iter()
        .map(|w| SENTENCE.chars().skip(w.text_pos).take(w.len).collect())
        .collect();
    assert_eq!(words[..3], ["Hello", "there", "The"], "{:?}", s.words);
    assert!(words.iter().any(|w| w == "12"), "{words:?}");
    // Each starts a word of the text (espeak reports "doesn't" as "doesn").
    let chars: Vec<char> = SENTENCE.chars().collect();
    for w in &s.words {
        assert!(w.len > 0 && chars[w.text_pos].is_alphanumeric(), "{w:?}");
        assert!(w.text_pos == 0 || chars[w.text_pos - 1] == ' ', "{w:?}");
    }
    assert_eq!(s.words.len(), SENTENCE.split_whitespace().count());
    assert!(s.words.windows(2).all(|w| w[0].sample <= w[1].sample));
}

#[test]
fn other_languages_match_the_program_too() {
    for (voice, text) in [
        ("de", "Guten Morgen, wie geht es dir?"),
        ("fr", "Bonjour, comment allez-vous?"),
    ] {
        let s = synth(
            &Request {
                voice,
                ..req(text, false)
            },
            || false,
        )
        .unwrap();
        assert_eq!(spoken(&s), program_phonemes(voice, text), "{voice}");
    }
}

/// The longest stretch (ms) from a pause event to the next phoneme.
fn longest_pause(s: &Synthesis) -> (u32, u32) {
    let mut best = (0, 0);
    let mut from: Option<u32> = None;
    for p in &s.phonemes {
        if p.ipa.is_empty() {
            from.get_or_insert(p.at_ms);
        } else if let Some(f) = from.take() {
            if p.at_ms - f > best.1 - best.0 {
                best = (f, p.at_ms);
            }
        }
    }
    best
}

fn rms(s: &Synthesis, from_ms: u32, to_ms: u32) -> f64 {
    let at = |ms: u32| (u64::from(ms) * u64::from(s.sample_rate) / 1000) as usize;
    let v = &s.samples[at(from_ms)..at(to_ms).min(s.samples.len())];
    (v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>() / v.len().max(1) as f64).sqrt()
}

#[test]
fn an_ssml_break_is_a_one_second_gap_in_the_events_and_the_audio() {
    let plain = speak("<speak>Hello there. General Kenobi.</speak>", true);
    let broken = speak(
        "<speak>Hello there. <break time=\"1s\"/> General Kenobi.</speak>",
        true,
    );
    assert_eq!(spoken(&plain), spoken(&broken));
    let (a, b) = longest_pause(&broken);
    assert!((950..=1150).contains(&(b - a)), "gap {a}..{b}");
    let (pa, pb) = longest_pause(&plain);
    assert!(pb - pa < 600, "plain gap {pa}..{pb}");
    // The gap is silent, the speech around it is not.
    let quiet = rms(&broken, a + 50, b - 50);
    let loud = rms(&broken, b, b + 500);
    assert!(quiet < 30.0 && loud > 1000.0, "{quiet} {loud}");
    // Word positions count the SSML markup: "General" starts after the break.
    let general = broken.words.iter().find(|w| w.len == 7).unwrap();
    assert!(
        general.at_ms >= b - 20 && general.text_pos > 30,
        "{general:?}"
    );
}

#[test]
fn stop_ends_synthesis_and_the_next_call_still_works() {
    let calls = Arc::new(AtomicUsize::new(0));
    let c = calls.clone();
    let r = synth(&req(SENTENCE, false), move || {
        c.fetch_add(1, Ordering::SeqCst) >= 2
    });
    assert_eq!(r, Err(EspeakError::Stopped));
    assert_eq!(calls.load(Ordering::SeqCst), 3);
    let r = synth(&req(SENTENCE, false), || panic!("a stop that panics"));
    assert_eq!(r, Err(EspeakError::Stopped));
    let s = speak("Still here.", false);
    assert_eq!(spoken(&s), program_phonemes("en-us", "Still here."));
}

#[test]
fn unknown_voices_and_nul_bytes_are_refused() {
    let r = synth(
        &Request {
            voice: "xx-nonexistent",
            ..req("hello", false)
        },
        || false,
    );
    assert_eq!(r, Err(EspeakError::UnknownVoice("xx-nonexistent".into())));
    let r = synth(&req("a\0b", false), || false);
    assert!(matches!(r, Err(EspeakError::BadInput(_))), "{r:?}");
    // A voice with a variant is a voice.
    let s = synth(
        &Request {
            voice: "en-us+f3",
            ..req("hello", false)
        },
        || false,
    )
    .unwrap();
    assert_eq!(spoken(&s), ["h", "ə", "l", "oʊ"]);
}

#[test]
fn calls_from_several_threads_take_turns() {
    let texts = [
        "One two three four five.",
        "Bonjour tout le monde.",
        "The rain in Spain stays mainly in the plain.",
        "Sphinx of black quartz, judge my vow.",
    ];
    let expected: Vec<(Vec<String>, Vec<usize>)> = texts
        .iter()
        .map(|t| {
            let s = speak(t, false);
            (spoken(&s), s.words.iter().map(|w| w.text_pos).collect())
        })
        .collect();
    let handles: Vec<_> = texts
        .iter()
        .map(|t| {
            let t = t.to_string();
            std::thread::spawn(move || {
                (0..3)
                    .map(|_| {
                        let s = speak(&t, false);
                        let words: Vec<usize> = s.words.iter().map(|w| w.text_pos).collect();
                        let dur = s.samples.len();
                        (spoken(&s), words, dur)
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    for ((h, want), text) in handles.into_iter().zip(&expected).zip(texts) {
        for (got, words, dur) in h.join().unwrap() {
            assert_eq!(got, want.0, "{text}");
            assert_eq!(words, want.1, "{text}");
            // espeak joins some unstressed words ("in the"), no more.
            assert!(words.len() + 1 >= text.split_whitespace().count(), "{text}");
            assert!(dur > 22_050, "{text}: {dur} samples");
        }
    }
}
