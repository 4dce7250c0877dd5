//! Voices end to end (spec 3 §7 Timbre): `timbre/tts` on the default and a
//! user's voice (the M4A read back), every call's bad input, private voices
//! answering NotFound to others, the lists and their filters, and training
//! on an uploaded eSpeak sample at a known pitch.

use std::time::Duration;

use protocol::client::RestClient;
use serde_json::{json, Value};

use crate::helpers::spawn_app;

async fn key_of(c: &RestClient, path: &str, body: Value) -> String {
    let e = c.post::<_, Value>(path, &body).await.unwrap_err();
    e.status().and_then(|s| s.key.clone()).unwrap_or_default()
}

fn decode_secs(bytes: &[u8]) -> f64 {
    audio::ffmpeg::decode(bytes, 16_000, 1, &engines::Cancel::new())
        .unwrap()
        .duration()
}

#[tokio::test]
async fn tts_speaks_with_the_default_and_chosen_voices() {
    let app = spawn_app().await;
    let (_, c) = app.user("Speaker").await;
    let text = "Hello there. This is a test of the speech engine with about twenty words in it, spoken at the normal pace.";
    let r: Value = c
        .post("/api/v1/timbre/tts", &json!({"text": text}))
        .await
        .unwrap();
    let d = r["duration"].as_f64().unwrap();
    let words = text.split_whitespace().count() as f64;
    let want = words * 60.0 / 175.0;
    assert!(d > want / 1.6 && d < want * 1.6, "{r}");
    assert_eq!(r["engine"]["name"], "espeak");
    assert_eq!(r["engine"]["neural"], false);
    let url = r["url"].as_str().unwrap();
    assert!(url.starts_with("/files/") && url.ends_with(".m4a"), "{url}");
    let (status, ct, bytes) = c.get_bytes(url).await.unwrap();
    assert_eq!((status, ct.as_str()), (200, "audio/aac"));
    assert!((decode_secs(&bytes) - d).abs() < 0.2);

    // Faster speech is shorter; a Chinese voice speaks too.
    let fast: Value = c
        .post(
            "/api/v1/timbre/tts",
            &json!({"text": text, "speed": 2.0, "emotion": "happy"}),
        )
        .await
        .unwrap();
    assert!(fast["duration"].as_f64().unwrap() < d * 0.7, "{fast}");
    assert_eq!(fast["applied"]["emotion"], "prosody", "{fast}");
    let zh: Value = c
        .post(
            "/api/v1/timbre/tts",
            &json!({"text": "你好，今天天气很好。", "timbre_id": "sys-espeak-zh-cn-male"}),
        )
        .await
        .unwrap();
    assert!(zh["duration"].as_f64().unwrap() > 0.5);
    assert_eq!(zh["timbre_id"], "sys-espeak-zh-cn-male");

    // The neural English voice: through the worker when the venv is
    // installed (scripts/fetch-voices), else SpeechUnavailable with the reason.
    let venv = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../.venv-voice/bin/python")
        .exists();
    let body = json!({"text": "Hello from the neural voice.", "timbre_id": "sys-piper-joe"});
    if venv {
        let r: Value = c.post("/api/v1/timbre/tts", &body).await.unwrap();
        assert_eq!(
            (
                r["engine"]["name"].as_str(),
                r["engine"]["neural"].as_bool()
            ),
            (Some("piper"), Some(true)),
            "{r}"
        );
        assert!(r["duration"].as_f64().unwrap() > 0.8);
    } else {
        println!("neural voice: no .venv-voice, checking the unavailable answer");
        let e = c
            .post::<_, Value>("/api/v1/timbre/tts", &body)
            .await
            .unwrap_err();
        let st = e.status().unwrap();
        assert_eq!(st.key.as_deref(), Some("speechUnavailable"));
        assert!(st.msg.contains("fetch-voices"), "{}", st.msg);
    }

    // Bad input.
    for (body, key) in [
        (json!({"text": "   "}), "audioTextEmpty"),
        (json!({"text": "a".repeat(1001)}), "audioTextTooLong"),
        (json!({"text": "hi", "speed": 3.0}), "InvalidParams"),
        (json!({"text": "hi", "timbre_id": "nope"}), "NotFound"),
    ] {
        assert_eq!(
            key_of(&c, "/api/v1/timbre/tts", body.clone()).await,
            key,
            "{body}"
        );
    }
    // Logged out.
    let anon = app.anonymous();
    assert_ne!(
        key_of(&anon, "/api/v1/timbre/tts", json!({"text": "hi"})).await,
        ""
    );
}

#[tokio::test]
async fn voices_are_created_edited_listed_and_private_to_their_owner() {
    let app = spawn_app().await;
    let (_, ann) = app.user("Ann").await;
    let (_, bob) = app.user("Bob").await;
    let v: Value = ann
        .post(
            "/api/v1/timbre/edit",
            &json!({"name": "Narrator", "description": "calm and low", "gender": "male",
                    "age": "senior", "language": "fr", "intonation": "calm", "is_public": false}),
        )
        .await
        .unwrap();
    let id = v["id"].as_str().unwrap().to_string();
    assert_eq!(
        (v["engine"].as_str(), v["status"].as_str()),
        (Some("espeak"), Some("ready"))
    );
    assert_eq!(v["base"], "fr+m3");
    assert_eq!(v["is_mine"], true);
    assert_eq!(v["label"], "eSpeak NG (formant, non-neural)");

    // Bob cannot see, use, edit or delete it.
    for path in [
        "/api/v1/timbre/detail",
        "/api/v1/timbre/delete",
        "/api/v1/timbre/train/progress",
    ] {
        assert_eq!(
            key_of(&bob, path, json!({"id": id})).await,
            "NotFound",
            "{path}"
        );
    }
    assert_eq!(
        key_of(
            &bob,
            "/api/v1/timbre/tts",
            json!({"text": "bonjour", "timbre_id": id})
        )
        .await,
        "NotFound"
    );
    let edit = json!({"id": id, "name": "X", "gender": "male", "age": "adult", "language": "fr",
                      "intonation": "calm", "is_public": true});
    assert_eq!(key_of(&bob, "/api/v1/timbre/edit", edit).await, "NotFound");
    // Ann can.
    let r: Value = ann
        .post(
            "/api/v1/timbre/tts",
            &json!({"text": "Bonjour à tous.", "timbre_id": id}),
        )
        .await
        .unwrap();
    assert!(r["duration"].as_f64().unwrap() > 0.3);

    // Previews are made on demand and cached.
    let d1: Value = bob
        .post(
            "/api/v1/timbre/detail",
            &json!({"id": "sys-espeak-de-female"}),
        )
        .await
        .unwrap();
    let purl = d1["preview_url"].as_str().unwrap();
    assert!(purl.ends_with(".m4a"), "{d1}");
    let (status, ct, bytes) = bob.get_bytes(purl).await.unwrap();
    assert_eq!((status, ct.as_str()), (200, "audio/aac"));
    assert!((decode_secs(&bytes) - d1["preview_duration"].as_f64().unwrap()).abs() < 0.2);
    let d2: Value = ann
        .post(
            "/api/v1/timbre/detail",
            &json!({"id": "sys-espeak-de-female"}),
        )
        .await
        .unwrap();
    assert_eq!(d2["preview_url"], d1["preview_url"]);
    assert_eq!(d2["owner"]["id"], "system");

    // Bad fields.
    for (body, why) in [
        (
            json!({"name": "", "gender": "male", "age": "adult", "language": "en", "intonation": "calm"}),
            "name",
        ),
        (
            json!({"name": "a", "gender": "robot", "age": "adult", "language": "en", "intonation": "calm"}),
            "gender",
        ),
        (
            json!({"name": "a", "gender": "male", "age": "adult", "language": "xx", "intonation": "calm"}),
            "language",
        ),
        (
            json!({"name": "a", "gender": "male", "age": "adult", "language": "en", "intonation": "loud"}),
            "intonation",
        ),
        (
            json!({"name": "a", "gender": "male", "age": "kid", "language": "en", "intonation": "calm"}),
            "age",
        ),
    ] {
        assert_eq!(
            key_of(&ann, "/api/v1/timbre/edit", body).await,
            "InvalidParams",
            "{why}"
        );
    }

    // Lists: mine has it, the public list does not until it is public.
    let mine: Value = ann
        .post("/api/v1/square/timbre/my", &json!({}))
        .await
        .unwrap();
    assert_eq!(mine["items"].as_array().unwrap().len(), 1);
    let public = |c: RestClient, body: Value| async move {
        c.post::<_, Value>("/api/v1/square/timbre/voice/list", &body)
            .await
            .unwrap()
    };
    let fr = public(bob.clone(), json!({"languages": ["fr"], "limit": 100})).await;
    let items = fr["items"].as_array().unwrap();
    assert!(items.iter().all(|t| t["language"] == "fr"));
    assert!(!items.iter().any(|t| t["id"] == id));
    assert!(items.iter().any(|t| t["owner"]["id"] == "system"));
    ann.post::<_, Value>(
        "/api/v1/timbre/edit",
        &json!({"id": id, "name": "Narrator", "gender": "male", "age": "senior", "language": "fr",
                "intonation": "calm", "is_public": true}),
    )
    .await
    .unwrap();
    let fr = public(
        bob.clone(),
        json!({"languages": ["fr"], "genders": ["male"], "ages": ["senior"]}),
    )
    .await;
    let items = fr["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{fr}");
    assert_eq!(items[0]["id"], id.as_str());
    assert_eq!(items[0]["is_mine"], false);
    // Japanese neural voices are listed with their labels.
    let ja = public(bob.clone(), json!({"languages": ["ja"], "limit": 100})).await;
    assert!(ja["items"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["engine"] == "kokoro" && t["neural"] == true));
    // Paging: 2 at a time until the end.
    let p1 = public(bob.clone(), json!({"limit": 2})).await;
    assert_eq!(p1["items"].as_array().unwrap().len(), 2);
    let p2 = public(
        bob.clone(),
        json!({"limit": 2, "cursor": p1["next_cursor"]}),
    )
    .await;
    assert_ne!(p1["items"][0]["id"], p2["items"][0]["id"]);
    assert_eq!(
        key_of(
            &bob,
            "/api/v1/square/timbre/voice/list",
            json!({"tones": ["loud"]})
        )
        .await,
        "InvalidParams"
    );
    assert_eq!(
        key_of(
            &bob,
            "/api/v1/square/timbre/comprehensive-rec",
            json!({"order_by": "loudest"})
        )
        .await,
        "InvalidParams"
    );
    // Delete.
    ann.post::<_, Value>("/api/v1/timbre/delete", &json!({"id": id}))
        .await
        .unwrap();
    assert_eq!(
        key_of(&ann, "/api/v1/timbre/detail", json!({"id": id})).await,
        "NotFound"
    );
}

async fn upload_audio(c: &RestClient, bytes: &[u8]) -> String {
    let pre: Value = c
        .post(
            "/api/v1/resource/pre-sign/get",
            &json!({"file_size": bytes.len(), "file_name": "sample.m4a", "content_type": "audio/aac", "category": 59}),
        )
        .await
        .unwrap();
    let url = pre["pre_signs"][0].as_str().unwrap();
    let r = reqwest::Client::new()
        .put(url)
        .header("content-type", "application/octet-stream")
        .body(bytes.to_vec())
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success());
    let done: Value = c
        .post(
            "/api/v1/resource/pre-sign/confirm",
            &json!({"file_id": pre["file_id"]}),
        )
        .await
        .unwrap();
    done["url"].as_str().unwrap().to_string()
}

fn espeak_sample(base: &str, pitch: u32, text: &str) -> Vec<u8> {
    use audio::speech::{espeak, SpeechRequest};
    let s = espeak::speak_blocking(
        &SpeechRequest {
            text: text.into(),
            voice: protocol::audio::VoiceSpec {
                engine: "espeak".into(),
                base: base.into(),
                language: "en".into(),
                params: json!({"espeak_pitch": pitch}),
            },
            speed: 1.0,
            emotion: String::new(),
        },
        &engines::Cancel::new(),
    )
    .unwrap();
    audio::ffmpeg::encode(&s.pcm, audio::ffmpeg::Format::M4a, &engines::Cancel::new()).unwrap()
}

#[tokio::test]
async fn training_measures_an_uploaded_voice() {
    let app = spawn_app().await;
    let (_, c) = app.user("Trainer").await;
    let (_, other) = app.user("Other").await;
    let text =
        "When the sunlight strikes raindrops in the air, they act as a prism and form a rainbow.";
    // eSpeak's en-us+f3 at pitch 80 speaks at about 276 Hz (checked with an
    // independent autocorrelation tracker).
    let url = upload_audio(&c, &espeak_sample("en-us+f3", 80, text)).await;
    let short = upload_audio(&c, &espeak_sample("en-us+f3", 80, "Hi.")).await;

    for body in [
        json!({"samples": []}),
        json!({"samples": vec![url.clone(); 6]}),
        json!({"samples": [short]}),
        json!({"samples": ["/files/u/nothing/x.m4a"]}),
    ] {
        assert_eq!(
            key_of(&c, "/api/v1/timbre/train", body.clone()).await,
            "timbreSamplesInvalid",
            "{body}"
        );
    }
    // Someone else's upload is not a sample of theirs.
    assert_eq!(
        key_of(
            &other,
            "/api/v1/timbre/train",
            json!({"samples": [url.clone()]})
        )
        .await,
        "timbreSamplesInvalid"
    );

    let t: Value = c
        .post(
            "/api/v1/timbre/train",
            &json!({"name": "Me", "gender": "female", "language": "en", "samples": [url]}),
        )
        .await
        .unwrap();
    let id = t["id"].as_str().unwrap().to_string();
    assert!(t["note"].as_str().unwrap().contains("does not clone"));
    let task_id = t["task_id"].as_str().unwrap().to_string();
    let task = c
        .wait_task(&task_id, Duration::from_secs(120))
        .await
        .unwrap();
    assert_eq!(
        task.status,
        protocol::task::TaskStatus::Success,
        "{:?}",
        task.reason
    );
    let p: Value = c
        .post("/api/v1/timbre/train/progress", &json!({"id": id}))
        .await
        .unwrap();
    assert_eq!(
        (p["status"].as_str(), p["percent"].as_i64()),
        (Some("ready"), Some(100)),
        "{p}"
    );
    let v: Value = c
        .post("/api/v1/timbre/detail", &json!({"id": id}))
        .await
        .unwrap();
    let hz = v["params"]["pitch_hz"].as_f64().unwrap();
    assert!((hz - 276.0).abs() < 0.15 * 276.0, "{v}");
    assert!(v["base"].as_str().unwrap().starts_with("en-us+f"), "{v}");
    assert!(
        v["preview_url"].as_str().unwrap().starts_with("/files/"),
        "{v}"
    );
    assert!(v["preview_duration"].as_f64().unwrap() > 1.0, "{v}");
    let log: Value = c
        .post("/api/v1/timbre/train/log", &json!({"id": id}))
        .await
        .unwrap();
    assert!(
        log["lines"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l.as_str().unwrap().contains("F0 median")),
        "{log}"
    );
    let samples: Value = c
        .post("/api/v1/timbre/voice/get", &json!({"id": id}))
        .await
        .unwrap();
    assert_eq!(samples["samples"].as_array().unwrap().len(), 1);
    assert!(
        samples["samples"][0]["duration"].as_f64().unwrap() > 3.0,
        "{samples}"
    );
    c.post::<_, Value>(
        "/api/v1/timbre/voice/delete",
        &json!({"id": id, "sample_id": "0"}),
    )
    .await
    .unwrap();
    assert_eq!(
        key_of(
            &c,
            "/api/v1/timbre/voice/delete",
            json!({"id": id, "sample_id": "0"})
        )
        .await,
        "NotFound"
    );
    // The trained voice speaks.
    let r: Value = c
        .post(
            "/api/v1/timbre/tts",
            &json!({"text": "Testing my voice.", "timbre_id": id}),
        )
        .await
        .unwrap();
    assert!(r["duration"].as_f64().unwrap() > 0.5);
    assert_eq!(
        key_of(&other, "/api/v1/timbre/train/log", json!({"id": id})).await,
        "NotFound"
    );
}

async fn speech_note(s: &mut protocol::client::Socket, msg_id: &str) -> Value {
    loop {
        let f = s
            .expect(
                protocol::frame::FrameType::Notification,
                Duration::from_secs(60),
            )
            .await
            .unwrap();
        let kind = f.content["kind"].as_str().unwrap_or("").to_string();
        if kind.starts_with("chat.speech") && f.content["message_id"] == msg_id {
            return f.content;
        }
    }
}

#[tokio::test]
async fn a_session_with_a_voice_speaks_its_replies() {
    let app = crate::helpers::spawn_app_with(&[
        ("EASEL_LLM", "scripted"),
        ("EASEL_LLM_SCRIPTED_INTERVAL_MS", "10"),
    ])
    .await;
    let (data, c) = app.user("Listener").await;
    let ch: Value = c
        .post(
            "/api/v1/tavern-pro/publish",
            &json!({"name": "Keeper", "greeting": "Hello {{user}}.", "persona": "{{char}} keeps a lighthouse.", "published": true}),
        )
        .await
        .unwrap();
    let s: Value = c
        .post(
            "/api/v1/character/session/create",
            &json!({"character_id": ch["id"]}),
        )
        .await
        .unwrap();
    let sid = s["session_id"].as_str().unwrap().to_string();
    c.post::<_, Value>(
        "/api/v1/character/session/timbre/set",
        &json!({"session_id": sid, "timbre_id": "sys-espeak-en-male"}),
    )
    .await
    .unwrap();
    let mut sock = app.socket(&data.token).await;
    let v: Value = c
        .post(
            "/api/v1/character/session/chat/start",
            &json!({"session_id": sid, "content": "**tell** me about the sea 🌊 please"}),
        )
        .await
        .unwrap();
    let msg_id = v["msg_id"].as_str().unwrap().to_string();
    let n = speech_note(&mut sock, &msg_id).await;
    assert_eq!(n["kind"], "chat.speech", "{n}");
    assert_eq!(n["session_id"], sid.as_str());
    let d = n["duration"].as_f64().unwrap();
    assert!(d > 0.5, "{n}");
    let (status, ct, bytes) = c.get_bytes(n["url"].as_str().unwrap()).await.unwrap();
    assert_eq!((status, ct.as_str()), (200, "audio/aac"));
    assert!((decode_secs(&bytes) - d).abs() < 0.2);

    // A voice that is gone: the failure is a notification with a key.
    c.post::<_, Value>(
        "/api/v1/character/session/timbre/set",
        &json!({"session_id": sid, "timbre_id": "no-such-voice"}),
    )
    .await
    .unwrap();
    let v: Value = c
        .post(
            "/api/v1/character/session/chat/start",
            &json!({"session_id": sid, "content": "again"}),
        )
        .await
        .unwrap();
    let msg_id = v["msg_id"].as_str().unwrap().to_string();
    let n = speech_note(&mut sock, &msg_id).await;
    assert_eq!(
        (n["kind"].as_str(), n["key"].as_str()),
        (Some("chat.speech_failed"), Some("NotFound")),
        "{n}"
    );
}

#[tokio::test]
async fn hot_and_recommended_voices_rank_by_their_uses() {
    let app = spawn_app().await;
    let (_, ann) = app.user("Ann").await;
    let v: Value = ann
        .post(
            "/api/v1/timbre/edit",
            &json!({"name": "Crier", "gender": "female", "age": "young", "language": "it",
                    "intonation": "lively", "is_public": true}),
        )
        .await
        .unwrap();
    let mine = v["id"].as_str().unwrap().to_string();
    // An Italian built-in voice spoken three times, Ann's voice once.
    let list = |order: &'static str| {
        let ann = ann.clone();
        async move {
            let l: Value = ann
                .post(
                    "/api/v1/square/timbre/voice/list",
                    &json!({"languages": ["it"], "order_by": order, "limit": 10}),
                )
                .await
                .unwrap();
            l["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| {
                    (
                        t["id"].as_str().unwrap().to_string(),
                        t["uses"].as_i64().unwrap(),
                    )
                })
                .collect::<Vec<_>>()
        }
    };
    let newest = list("new").await;
    assert_eq!(newest[0], (mine.clone(), 0), "{newest:?}");
    let builtin = newest
        .iter()
        .map(|(id, _)| id.clone())
        .find(|id| id.starts_with("sys-"))
        .unwrap();
    for (voice, times) in [(&builtin, 3), (&mine, 1)] {
        for _ in 0..times {
            let _: Value = ann
                .post(
                    "/api/v1/timbre/tts",
                    &json!({"text": "ciao", "timbre_id": voice}),
                )
                .await
                .unwrap();
        }
    }
    let hot = list("hot").await;
    assert_eq!(hot[0], (builtin.clone(), 3), "{hot:?}");
    assert_eq!(hot[1], (mine.clone(), 1), "{hot:?}");
    // A new voice used once still leads `recommend` over a built-in
    // used three times (freshness), and `new` keeps creation order.
    assert_eq!(list("recommend").await[0].0, mine);
    assert_eq!(list("new").await[0], (mine, 1));
    assert_eq!(
        key_of(
            &ann,
            "/api/v1/square/timbre/voice/list",
            json!({"order_by": "best"})
        )
        .await,
        "InvalidParams"
    );
}
