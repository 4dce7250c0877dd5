//! The built-in voices: eSpeak NG per spec-3 language and gender, Piper
//! joe (English), the five Kokoro Japanese voices; public, owned by
//! "system", never stored.

use protocol::audio::timbre as rules;
use protocol::audio::VoiceSpec;

use super::TimbreRow;
/// The built-in voices, in a fixed order.
pub fn builtins() -> Vec<TimbreRow> {
    let mut out = Vec::new();
    let row = |id: String,
               name: String,
               gender: &str,
               age: &str,
               language: &str,
               intonation: &str,
               engine: &str,
               base: String| TimbreRow {
        id,
        owner: "system".into(),
        owner_name: "Easel".into(),
        name,
        description: String::new(),
        gender: gender.into(),
        age: age.into(),
        language: language.into(),
        intonation: intonation.into(),
        is_public: true,
        status: "ready".into(),
        voice: VoiceSpec {
            engine: engine.into(),
            base,
            language: language.into(),
            params: serde_json::json!({}),
        },
        preview_url: String::new(),
        preview_duration: 0.0,
        train_task_id: None,
        samples: Vec::new(),
        sample_secs: Vec::new(),
        create_at: 0,
    };
    for lang in rules::LANGUAGES {
        let v = audio::speech::espeak::language_voice(lang).unwrap_or("en-us");
        for (g, variant, tone) in [("male", "m3", "steady"), ("female", "f3", "gentle")] {
            out.push(row(
                format!("sys-espeak-{lang}-{g}"),
                format!("eSpeak {lang} {g}"),
                g,
                "adult",
                lang,
                tone,
                "espeak",
                format!("{v}+{variant}"),
            ));
        }
    }
    out.push(row(
        "sys-piper-joe".into(),
        "Joe".into(),
        "male",
        "adult",
        "en",
        "calm",
        "piper",
        "joe".into(),
    ));
    for (v, g, tone) in [
        ("jf_alpha", "female", "gentle"),
        ("jf_gongitsune", "female", "calm"),
        ("jf_nezumi", "female", "lively"),
        ("jf_tebukuro", "female", "cheerful"),
        ("jm_kumo", "male", "steady"),
    ] {
        out.push(row(
            format!("sys-kokoro-{v}"),
            format!("Kokoro {v}"),
            g,
            "young",
            "ja",
            tone,
            "kokoro",
            v.into(),
        ));
    }
    out
}

/// The voice `timbre/tts` uses without a `timbre_id`.
pub const DEFAULT_VOICE: &str = "sys-espeak-en-female";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_cover_every_language_and_the_neural_voices() {
        let b = builtins();
        for l in rules::LANGUAGES {
            assert!(b
                .iter()
                .any(|x| x.language == l && x.voice.engine == "espeak"));
        }
        assert_eq!(b.iter().filter(|x| x.voice.engine == "kokoro").count(), 5);
        assert!(b.iter().any(|x| x.id == DEFAULT_VOICE));
        let zh = b.iter().find(|x| x.id == "sys-espeak-zh-cn-male");
        assert_eq!(zh.map(|x| x.voice.base.as_str()), Some("cmn+m3"));
    }
}
