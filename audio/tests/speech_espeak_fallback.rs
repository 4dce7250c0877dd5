//! Without eSpeak NG's library (`EASEL_ESPEAK_LIB` naming a missing file)
//! eSpeak still speaks, through the `espeak-ng` program, with estimated
//! phoneme timings, and says so. Its own test binary: the library is loaded
//! (or not) once per process.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use easel_audio::speech::{Speaker, Speakers, SpeechRequest};
use easel_audio::AudioConfig;
use engines::Cancel;
use protocol::audio::VoiceSpec;

#[tokio::test]
async fn without_the_library_the_program_speaks() {
    std::env::set_var("EASEL_ESPEAK_LIB", "/nonexistent/libespeak-ng.so.1");
    let speakers = Speakers::new(AudioConfig::default());
    let req = SpeechRequest {
        text: "Hello world, this is the program speaking.".into(),
        voice: VoiceSpec {
            engine: "espeak".into(),
            base: String::new(),
            language: "en".into(),
            params: serde_json::json!({}),
        },
        speed: 1.0,
        emotion: String::new(),
    };
    for _ in 0..2 {
        let s = speakers.speak(req.clone(), Cancel::new()).await.unwrap();
        assert_eq!(s.applied["espeak"], "program");
        assert_eq!(s.applied["phoneme_timing"], "estimated");
        assert!(s.pcm.duration() > 1.0, "{}", s.pcm.duration());
        assert!(!s.phonemes.is_empty());
    }
    assert!(matches!(
        espeak::available(),
        Err(espeak::EspeakError::Unavailable(_))
    ));
}
