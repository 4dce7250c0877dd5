//! The OpenAI-compatible speech adapter against a fake server following the
//! documented API: the body it sends, WAV back, errors as
//! `{"error":{"message"}}`, 401, a timeout, a body that is not audio.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
use easel_audio::speech::remote::RemoteSpeaker;
use easel_audio::speech::SpeechRequest;
use easel_audio::{AudioError, Pcm};
use engines::Cancel;
use protocol::audio::VoiceSpec;

type Seen = Arc<Mutex<Vec<serde_json::Value>>>;

async fn speech(
    req: HttpRequest,
    body: web::Json<serde_json::Value>,
    seen: web::Data<Seen>,
) -> HttpResponse {
    let auth = req
        .headers()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if auth != "Bearer sk-test" {
        return HttpResponse::Unauthorized()
            .json(serde_json::json!({"error": {"message": "Incorrect API key provided"}}));
    }
    let b = body.into_inner();
    seen.lock().unwrap().push(b.clone());
    let input = b["input"].as_str().unwrap_or("");
    match input {
        "slow" => {
            tokio::time::sleep(Duration::from_secs(5)).await;
            HttpResponse::Ok().finish()
        }
        "garbage" => HttpResponse::Ok()
            .content_type("audio/wav")
            .body("this is not a wav"),
        "" => HttpResponse::BadRequest()
            .json(serde_json::json!({"error": {"message": "input is required"}})),
        _ => {
            if b["response_format"] != "wav" || b["model"].as_str().is_none() {
                return HttpResponse::BadRequest()
                    .json(serde_json::json!({"error": {"message": "bad format"}}));
            }
            // 0.1 s of a 220 Hz tone per word at 24 kHz, like the API's PCM rate.
            let words = input.split_whitespace().count();
            let speed = b["speed"].as_f64().unwrap_or(1.0);
            let n = (24_000.0 * 0.1 * words as f64 / speed) as usize;
            let pcm = Pcm::mono(
                24_000,
                (0..n)
                    .map(|i| 0.4 * (i as f32 * 220.0 * std::f32::consts::TAU / 24_000.0).sin())
                    .collect(),
            );
            HttpResponse::Ok()
                .content_type("audio/wav")
                .body(easel_audio::ffmpeg::wav_bytes(&pcm).unwrap())
        }
    }
}

async fn server() -> (String, Seen) {
    let seen: Seen = Arc::default();
    let data = web::Data::new(seen.clone());
    let srv = HttpServer::new(move || {
        App::new()
            .app_data(data.clone())
            .route("/v1/audio/speech", web::post().to(speech))
    })
    .workers(1)
    .bind(("127.0.0.1", 0))
    .unwrap();
    let port = srv.addrs()[0].port();
    tokio::spawn(srv.run());
    (format!("http://127.0.0.1:{port}/v1"), seen)
}

fn req(text: &str, emotion: &str) -> SpeechRequest {
    SpeechRequest {
        text: text.into(),
        voice: VoiceSpec {
            engine: "remote".into(),
            base: "nova".into(),
            language: "en".into(),
            params: serde_json::json!({}),
        },
        speed: 1.5,
        emotion: emotion.into(),
    }
}

#[actix_web::test]
async fn remote_speech_follows_the_documented_api() {
    let (url, seen) = server().await;
    let r = RemoteSpeaker::new(
        &url,
        Some("sk-test".into()),
        Some("tts-1".into()),
        Duration::from_secs(2),
    )
    .unwrap();
    assert!(!format!("{r:?}").contains("sk-test"), "the key never shows");

    let s = r
        .speak(&req("one two three four five six", "sad"), &Cancel::new())
        .await
        .unwrap();
    assert!(
        (s.pcm.duration() - 0.4).abs() < 0.01,
        "{}",
        s.pcm.duration()
    );
    assert!(s.pcm.rms() > 0.2);
    assert!(s.neural && s.engine == "remote");
    assert_eq!(s.applied["emotion"], "instructions");
    let body = seen.lock().unwrap()[0].clone();
    assert_eq!(body["voice"], "nova");
    assert_eq!(body["model"], "tts-1");
    assert_eq!(body["speed"], 1.5);
    assert_eq!(body["instructions"], "Speak in a sad tone.");
    // Neutral sends no instructions.
    r.speak(&req("hi", "neutral"), &Cancel::new())
        .await
        .unwrap();
    assert!(seen.lock().unwrap()[1].get("instructions").is_none());
    // A request whose voice names none takes the configured default voice.
    let mut blank = req("hi", "neutral");
    blank.voice.base = String::new();
    assert_eq!(r.body(&blank)["voice"], "alloy");
    let r = r.with_default_voice(Some("coral".into()));
    assert_eq!(r.body(&blank)["voice"], "coral");

    // The server's error message comes through.
    match r.speak(&req("", ""), &Cancel::new()).await.unwrap_err() {
        AudioError::BadInput(m) => assert!(m.contains("input is required"), "{m}"),
        e => panic!("{e}"),
    }
    // A body that is not audio.
    match r
        .speak(&req("garbage", ""), &Cancel::new())
        .await
        .unwrap_err()
    {
        AudioError::Failed(m) => assert!(m.contains("not WAV"), "{m}"),
        e => panic!("{e}"),
    }
    // A timeout is retryable-unavailable.
    match r.speak(&req("slow", ""), &Cancel::new()).await.unwrap_err() {
        AudioError::Unavailable(m) => assert!(m.contains("timed out"), "{m}"),
        e => panic!("{e}"),
    }
    // Cancel ends the wait.
    let cancel = Cancel::new();
    cancel.cancel();
    assert!(matches!(
        r.speak(&req("slow", ""), &cancel).await.unwrap_err(),
        AudioError::Cancelled
    ));
}

#[actix_web::test]
async fn a_wrong_key_is_unavailable_and_not_logged() {
    let (url, _) = server().await;
    let r =
        RemoteSpeaker::new(&url, Some("sk-wrong".into()), None, Duration::from_secs(2)).unwrap();
    match r
        .speak(&req("hello", ""), &Cancel::new())
        .await
        .unwrap_err()
    {
        AudioError::Unavailable(m) => {
            assert!(m.contains("401") && m.contains("Incorrect API key"), "{m}");
            assert!(!m.contains("sk-wrong"));
        }
        e => panic!("{e}"),
    }
    // Nobody listening.
    let r = RemoteSpeaker::new("http://127.0.0.1:9", None, None, Duration::from_secs(2)).unwrap();
    assert!(matches!(
        r.speak(&req("hello", ""), &Cancel::new())
            .await
            .unwrap_err(),
        AudioError::Unavailable(_)
    ));
}
