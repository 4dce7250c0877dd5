#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
//! Lip-sync on ComfyUI (Wan 2.2 S2V) against a fake ComfyUI: an actix-web
//! server that follows ComfyUI's documented API for these nodes. It stores
//! uploads (`/upload/image` takes any file into the input folder, the
//! speech included), validates a queued prompt like ComfyUI does (a
//! `LoadImage`/`LoadAudio` name that is not an uploaded file, or a model
//! file it does not have, is a 400 with `node_errors`), "runs" it by
//! writing a real VP9 WebM (ffmpeg's test pattern) of the frames the
//! chained chunks decode to (`4t - 3` for `t` latent frames), lists it in
//! `/history` as `SaveWEBM` does (`images` with `animated: [true]`), serves
//! it by `/view`, reports progress on `/ws` and records `/interrupt`.
//! Failure modes: a node error at validation, an execution error, a hung
//! prompt (timeout and cancel), an answer that is not JSON.

mod common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
use common::{make_video, multipart, png, Recorder};
use easel_engines::comfyui::{ComfyUi, S2vModels};
use easel_engines::reference::video;
use easel_engines::{Cancel, EngineError, Produced, TalkingEngine, TalkingRequest};
use serde_json::{json, Value};

// ---------------------------------------------------------------- the fake

#[derive(Clone, Copy, PartialEq, Debug)]
enum Script {
    /// Progress, then the video of every asked frame.
    Succeed,
    /// Like `Succeed`, but the video has 20 frames fewer than asked.
    Short,
    /// The server has no S2V model: the prompt fails validation.
    NoModel,
    /// An execution error in the sampler.
    Error,
    /// One progress message, then silence.
    Hang,
    /// `/prompt` answers 200 with a body that is not JSON.
    BadJson,
}

struct Fake {
    script: Script,
    sessions: Mutex<HashMap<String, actix_ws::Session>>,
    prompts: Mutex<Vec<Value>>,
    uploads: Mutex<Vec<(String, String, Vec<u8>)>>,
    interrupts: Mutex<Vec<Value>>,
    files: Mutex<HashMap<String, Vec<u8>>>,
    history: Mutex<HashMap<String, Value>>,
}

fn nodes<'a>(w: &'a Value, class_type: &str) -> Vec<(&'a String, &'a Value)> {
    let mut v: Vec<_> = w
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, n)| n["class_type"] == class_type)
        .collect();
    v.sort_by_key(|(id, _)| id.parse::<u64>().unwrap());
    v
}

fn class<'a>(w: &'a Value, class_type: &str) -> &'a Value {
    nodes(w, class_type).first().unwrap().1
}

async fn send(s: &mut actix_ws::Session, v: Value) {
    let _ = s.text(v.to_string()).await;
}

/// Frames the workflow's chunks decode to, as Wan's VAE would.
fn decoded_frames(w: &Value) -> u32 {
    let latents = |n: &Value| (n["inputs"]["length"].as_u64().unwrap() as u32 - 1) / 4 + 1;
    let mut t = latents(class(w, "WanSoundImageToVideo"));
    for (_, n) in nodes(w, "WanSoundImageToVideoExtend") {
        t += latents(n);
    }
    4 * t - 3
}

async fn run_script(fake: web::Data<Fake>, client: String, id: String, workflow: Value) {
    actix_web::rt::time::sleep(Duration::from_millis(20)).await;
    let Some(mut s) = fake.sessions.lock().unwrap().get(&client).cloned() else {
        return;
    };
    send(
        &mut s,
        json!({"type": "execution_start", "data": {"prompt_id": id}}),
    )
    .await;
    let step = |v: u64| json!({"type": "progress", "data": {"value": v, "max": 4, "prompt_id": id, "node": "12"}});
    match fake.script {
        Script::Hang => send(&mut s, step(1)).await,
        Script::Error => {
            send(&mut s, step(1)).await;
            send(
                &mut s,
                json!({"type": "execution_error", "data": {"prompt_id": id, "node_id": "12",
                "node_type": "KSampler", "exception_type": "torch.OutOfMemoryError",
                "exception_message": "CUDA out of memory", "traceback": []}}),
            )
            .await;
        }
        _ => {
            for v in 1..=4 {
                send(&mut s, step(v)).await;
            }
            let image = class(&workflow, "WanSoundImageToVideo");
            let n = |k: &str| image["inputs"][k].as_u64().unwrap() as u32;
            let save = class(&workflow, "SaveWEBM");
            let fps = save["inputs"]["fps"].as_f64().unwrap();
            let prefix = save["inputs"]["filename_prefix"].as_str().unwrap();
            let name = format!("{prefix}_00001_.webm");
            let mut frames = decoded_frames(&workflow);
            if fake.script == Script::Short {
                frames -= 20;
            }
            let bytes = make_video(n("width"), n("height"), fps, frames, "webm");
            fake.files.lock().unwrap().insert(name.clone(), bytes);
            fake.history.lock().unwrap().insert(
                id.clone(),
                json!({"prompt": [1, id, workflow, {}, ["14"]],
                       "outputs": {"14": {"images": [{"filename": name, "subfolder": "", "type": "output"}],
                                          "animated": [true]}},
                       "status": {"status_str": "success", "completed": true, "messages": []}}),
            );
            send(
                &mut s,
                json!({"type": "executing", "data": {"node": null, "prompt_id": id}}),
            )
            .await;
        }
    }
}

async fn ws(
    req: HttpRequest,
    body: web::Payload,
    fake: web::Data<Fake>,
    q: web::Query<HashMap<String, String>>,
) -> Result<HttpResponse, actix_web::Error> {
    let (resp, session, mut stream) = actix_ws::handle(&req, body)?;
    let client = q.get("clientId").cloned().unwrap_or_default();
    fake.sessions.lock().unwrap().insert(client, session);
    actix_web::rt::spawn(async move { while let Some(Ok(_)) = stream.recv().await {} });
    Ok(resp)
}

async fn upload(req: HttpRequest, body: web::Bytes, fake: web::Data<Fake>) -> HttpResponse {
    let ct = req.headers().get("content-type").unwrap().to_str().unwrap();
    let form = multipart(ct, &body);
    let (file, bytes) = form["image"].clone();
    let file = file.unwrap();
    // The part's own content type, as the client declared it.
    let head = String::from_utf8_lossy(&body);
    let mime = head
        .split("Content-Type: ")
        .nth(1)
        .map(|s| s.split("\r\n").next().unwrap().to_string())
        .unwrap_or_default();
    fake.uploads
        .lock()
        .unwrap()
        .push((file.clone(), mime, bytes));
    HttpResponse::Ok().json(json!({"name": file, "subfolder": "", "type": "input"}))
}

/// A 400 as ComfyUI answers a prompt that fails validation.
fn invalid(node: &str, class_type: &str, kind: &str, details: String) -> HttpResponse {
    HttpResponse::BadRequest().json(json!({
        "error": {"type": "prompt_outputs_failed_validation",
                  "message": "Prompt outputs failed validation", "details": "", "extra_info": {}},
        "node_errors": {node: {"errors": [{"type": kind, "message": "Value not in list",
                                             "details": details, "extra_info": {}}],
                               "dependent_outputs": ["14"], "class_type": class_type}}
    }))
}

async fn prompt(body: web::Json<Value>, fake: web::Data<Fake>) -> HttpResponse {
    let workflow = body["prompt"].clone();
    let client = body["client_id"].as_str().unwrap_or_default().to_string();
    fake.prompts.lock().unwrap().push(workflow.clone());
    if fake.script == Script::BadJson {
        return HttpResponse::Ok()
            .content_type("application/json")
            .body("<html>proxy error</html>");
    }
    let uploaded: Vec<String> = fake
        .uploads
        .lock()
        .unwrap()
        .iter()
        .map(|u| u.0.clone())
        .collect();
    for (loader, key) in [("LoadImage", "image"), ("LoadAudio", "audio")] {
        for (id, n) in nodes(&workflow, loader) {
            let v = n["inputs"][key].as_str().unwrap();
            if !uploaded.iter().any(|u| u == v) {
                return invalid(
                    id,
                    loader,
                    "value_not_in_list",
                    format!("{key}: '{v}' not in {uploaded:?}"),
                );
            }
        }
    }
    if fake.script == Script::NoModel {
        let unet = class(&workflow, "UNETLoader")["inputs"]["unet_name"]
            .as_str()
            .unwrap()
            .to_string();
        return invalid(
            "1",
            "UNETLoader",
            "value_not_in_list",
            format!("unet_name: '{unet}' not in []"),
        );
    }
    let n = fake.prompts.lock().unwrap().len();
    let id = format!("prompt-{n}");
    actix_web::rt::spawn(run_script(fake.clone(), client, id.clone(), workflow));
    HttpResponse::Ok().json(json!({"prompt_id": id, "number": n, "node_errors": {}}))
}

async fn history(path: web::Path<String>, fake: web::Data<Fake>) -> HttpResponse {
    let id = path.into_inner();
    match fake.history.lock().unwrap().get(&id) {
        Some(entry) => HttpResponse::Ok().json(json!({ id: entry })),
        None => HttpResponse::Ok().json(json!({})),
    }
}

async fn view(q: web::Query<HashMap<String, String>>, fake: web::Data<Fake>) -> HttpResponse {
    match fake.files.lock().unwrap().get(q.get("filename").unwrap()) {
        Some(b) => HttpResponse::Ok()
            .content_type("video/webm")
            .body(b.clone()),
        None => HttpResponse::NotFound().finish(),
    }
}

async fn interrupt(body: web::Bytes, fake: web::Data<Fake>) -> HttpResponse {
    let v = serde_json::from_slice(&body).unwrap_or(Value::Null);
    fake.interrupts.lock().unwrap().push(v);
    HttpResponse::Ok().finish()
}

fn start(script: Script) -> (String, web::Data<Fake>) {
    let fake = web::Data::new(Fake {
        script,
        sessions: Mutex::default(),
        prompts: Mutex::default(),
        uploads: Mutex::default(),
        interrupts: Mutex::default(),
        files: Mutex::default(),
        history: Mutex::default(),
    });
    let shared = fake.clone();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        actix_web::rt::System::new().block_on(async move {
            let server = HttpServer::new(move || {
                App::new()
                    .app_data(shared.clone())
                    .app_data(web::PayloadConfig::new(64 << 20))
                    .route("/ws", web::get().to(ws))
                    .route("/upload/image", web::post().to(upload))
                    .route("/prompt", web::post().to(prompt))
                    .route("/history/{id}", web::get().to(history))
                    .route("/view", web::get().to(view))
                    .route("/interrupt", web::post().to(interrupt))
                    .route("/queue", web::post().to(HttpResponse::Ok))
            })
            .workers(1)
            .bind(("127.0.0.1", 0))
            .unwrap();
            tx.send(server.addrs()[0].port()).unwrap();
            server.run().await.unwrap();
        });
    });
    let port = rx.recv().unwrap();
    (format!("http://127.0.0.1:{port}"), fake)
}

// ---------------------------------------------------------------- helpers

/// A WAV of a 220 Hz tone, `secs` long, as the audio engine hands speech.
fn make_wav(secs: f64) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("a.wav");
    let ok = std::process::Command::new("ffmpeg")
        .args(["-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i"])
        .arg(format!(
            "sine=frequency=220:duration={secs}:sample_rate=24000"
        ))
        .args(["-c:a", "pcm_s16le", "-y"])
        .arg(&out)
        .status()
        .unwrap()
        .success();
    assert!(ok);
    std::fs::read(out).unwrap()
}

/// Each stream's (codec, seconds) in an MP4, by ffprobe.
fn streams(mp4: &[u8]) -> HashMap<String, (String, f64)> {
    let f = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(f.path(), mp4).unwrap();
    let out = std::process::Command::new("ffprobe")
        .args(["-v", "error", "-show_entries"])
        .args(["stream=codec_type,codec_name,duration", "-of", "json"])
        .arg(f.path())
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["streams"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["codec_type"].as_str().unwrap().to_string(),
                (
                    s["codec_name"].as_str().unwrap().to_string(),
                    s["duration"].as_str().unwrap().parse().unwrap(),
                ),
            )
        })
        .collect()
}

fn models() -> S2vModels {
    // Small frames keep the fake's video (and the test) light.
    S2vModels {
        pixels: 64 * 48,
        ..S2vModels::default()
    }
}

fn engine(url: &str) -> ComfyUi {
    ComfyUi::new(url, None)
        .unwrap()
        .with_s2v(models())
        .with_timeout(Duration::from_secs(60))
}

fn request(secs: f64) -> TalkingRequest {
    TalkingRequest {
        task_id: "task-9".into(),
        picture: png(128, 96, 40),
        audio_wav: make_wav(secs),
        audio_secs: secs,
        prompt: "a woman reading the news".into(),
        negative_prompt: String::new(),
        seed: 321,
    }
}

async fn talk(
    e: &ComfyUi,
    req: TalkingRequest,
) -> (Result<[Produced; 2], EngineError>, Arc<Recorder>) {
    let rec = Arc::new(Recorder::default());
    let r = e.talk(req, rec.clone(), Cancel::new()).await;
    (r, rec)
}

/// The MP4 and poster as every video engine gives them, the MP4's two
/// streams lasting `secs` each (to a frame).
fn check_output(out: &[Produced; 2], secs: f64) {
    let [mp4, poster] = out;
    assert_eq!((mp4.mime.as_str(), mp4.ext.as_str()), ("video/mp4", "mp4"));
    let at = |tag: &[u8]| mp4.bytes.windows(4).position(|w| w == tag).unwrap();
    assert!(at(b"moov") < at(b"mdat"), "+faststart");
    assert_eq!(mp4.files[0].0, "master.m3u8");
    assert!(mp4.files.iter().any(|(p, _)| p.ends_with(".ts")));
    let info = video::probe(&mp4.bytes).unwrap();
    assert_eq!((info.width, info.height), (mp4.width, mp4.height));
    assert!((info.fps - 16.0).abs() < 1e-6, "{}", info.fps);
    let s = streams(&mp4.bytes);
    let (vcodec, v) = s["video"].clone();
    let (acodec, a) = s["audio"].clone();
    assert_eq!((vcodec.as_str(), acodec.as_str()), ("h264", "aac"));
    assert!(
        (v - a).abs() <= 1.0 / 16.0 + 1e-3,
        "video {v} s, audio {a} s"
    );
    assert!((a - secs).abs() <= 0.05, "audio {a} s for {secs} s");
    assert_eq!(poster.mime, "image/png");
    let img = image::load_from_memory(&poster.bytes).unwrap();
    assert_eq!((img.width(), img.height()), (mp4.width, mp4.height));
    assert_eq!((mp4.seed, poster.seed), (321, 321));
}

// ---------------------------------------------------------------- tests

#[tokio::test]
async fn a_ten_second_speech_runs_three_chained_chunks_and_muxes_the_speech() {
    let (url, fake) = start(Script::Succeed);
    let req = request(10.0);
    let (picture, wav) = (req.picture.clone(), req.audio_wav.clone());
    let (result, rec) = talk(&engine(&url), req).await;
    let out = result.unwrap();
    check_output(&out, 10.0);
    // 128 x 96 at about 64 x 48 pixels, sides multiples of 16.
    assert_eq!((out[0].width, out[0].height), (64, 48));

    let uploads = fake.uploads.lock().unwrap();
    assert_eq!(uploads.len(), 2);
    let (pic_name, pic_mime, pic_bytes) = &uploads[0];
    let (wav_name, wav_mime, wav_bytes) = &uploads[1];
    assert_eq!((pic_bytes, wav_bytes), (&picture, &wav));
    assert!(pic_name.ends_with(".png") && wav_name.ends_with(".wav"));
    assert_eq!(
        (pic_mime.as_str(), wav_mime.as_str()),
        ("image/png", "audio/wav")
    );

    let prompts = fake.prompts.lock().unwrap();
    assert_eq!(prompts.len(), 1);
    let w = &prompts[0];
    assert_eq!(class(w, "LoadAudio")["inputs"]["audio"], json!(wav_name));
    assert_eq!(class(w, "LoadImage")["inputs"]["image"], json!(pic_name));
    let m = S2vModels::default();
    assert_eq!(
        class(w, "UNETLoader")["inputs"]["unet_name"],
        json!(m.diffusion_model)
    );
    assert_eq!(
        class(w, "AudioEncoderLoader")["inputs"]["audio_encoder_name"],
        json!(m.audio_encoder)
    );
    assert_eq!(class(w, "CLIPLoader")["inputs"]["type"], "wan");
    let first = &class(w, "WanSoundImageToVideo")["inputs"];
    assert_eq!(
        (&first["width"], &first["height"], &first["length"]),
        (&json!(64), &json!(48), &json!(77))
    );
    // 10 s = 160 frames, 161 as 4k + 1 = 41 latents: three chunks.
    let extends = nodes(w, "WanSoundImageToVideoExtend");
    let lengths: Vec<&Value> = extends
        .iter()
        .map(|(_, n)| &n["inputs"]["length"])
        .collect();
    assert_eq!(lengths, vec![&json!(77), &json!(13)]);
    assert_eq!(nodes(w, "KSampler").len(), 3);
    let concats = nodes(w, "LatentConcat");
    assert_eq!(concats.len(), 2);
    assert!(concats.iter().all(|(_, n)| n["inputs"]["dim"] == "t"));
    // The second extension continues from the first join; decoding reads the last.
    assert_eq!(
        extends[1].1["inputs"]["video_latent"][0],
        json!(concats[0].0)
    );
    assert_eq!(
        class(w, "VAEDecode")["inputs"]["samples"][0],
        json!(concats[1].0)
    );
    assert_eq!(class(w, "SaveWEBM")["inputs"]["fps"], 16);
    let seeds: Vec<&Value> = nodes(w, "KSampler")
        .iter()
        .map(|(_, n)| &n["inputs"]["seed"])
        .collect();
    assert_eq!(seeds, vec![&json!(321), &json!(322), &json!(323)]);
    let texts: Vec<&Value> = nodes(w, "CLIPTextEncode")
        .iter()
        .map(|(_, n)| &n["inputs"]["text"])
        .collect();
    assert!(texts.contains(&&json!("a woman reading the news")));

    let seen = rec.seen();
    assert!(seen.windows(2).all(|p| p[0] <= p[1]), "{seen:?}");
    assert!(
        seen.iter().filter(|p| **p > 0 && **p < 100).count() >= 3,
        "{seen:?}"
    );
    assert_eq!(seen.last(), Some(&100));
}

#[tokio::test]
async fn a_video_shorter_than_the_speech_holds_its_last_frame() {
    let (url, fake) = start(Script::Short);
    let (result, _) = talk(&engine(&url), request(2.5)).await;
    check_output(&result.unwrap(), 2.5);
    let w = &fake.prompts.lock().unwrap()[0];
    // 2.5 s: 40 frames, 41 as 4k + 1, one chunk.
    assert_eq!(class(w, "WanSoundImageToVideo")["inputs"]["length"], 41);
    assert!(nodes(w, "WanSoundImageToVideoExtend").is_empty());
    assert_eq!(class(w, "VAEDecode")["inputs"]["samples"][0], "12");
}

#[tokio::test]
async fn a_node_error_at_validation_is_quoted() {
    let (url, _fake) = start(Script::NoModel);
    let err = talk(&engine(&url), request(1.0)).await.0.unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, EngineError::Failed(_)), "{err:?}");
    assert!(msg.contains("Prompt outputs failed validation"), "{msg}");
    assert!(msg.contains("UNETLoader"), "{msg}");
    assert!(
        msg.contains("wan2.2_s2v_14B_fp8_scaled.safetensors"),
        "{msg}"
    );
}

#[tokio::test]
async fn an_execution_error_fails_with_the_servers_message() {
    let (url, _fake) = start(Script::Error);
    let err = talk(&engine(&url), request(1.0)).await.0.unwrap_err();
    assert!(
        matches!(err, EngineError::Failed(ref m) if m.contains("CUDA out of memory") && m.contains("KSampler")),
        "{err:?}"
    );
}

#[tokio::test]
async fn an_answer_that_is_not_json_fails() {
    let (url, _fake) = start(Script::BadJson);
    let err = talk(&engine(&url), request(1.0)).await.0.unwrap_err();
    assert!(
        matches!(err, EngineError::Failed(ref m) if m.contains("queue answer")),
        "{err:?}"
    );
}

#[tokio::test]
async fn a_server_that_never_finishes_times_out_and_is_interrupted() {
    let (url, fake) = start(Script::Hang);
    let e = engine(&url).with_timeout(Duration::from_secs(1));
    let err = talk(&e, request(1.0)).await.0.unwrap_err();
    assert!(matches!(err, EngineError::Unavailable(_)), "{err:?}");
    assert_eq!(
        *fake.interrupts.lock().unwrap(),
        vec![json!({"prompt_id": "prompt-1"})]
    );
}

#[tokio::test]
async fn cancelling_interrupts_the_prompt() {
    let (url, fake) = start(Script::Hang);
    let e = engine(&url);
    let cancel = Cancel::new();
    let rec = Arc::new(Recorder::default());
    let running = {
        let (cancel, rec) = (cancel.clone(), rec.clone());
        let req = request(1.0);
        async move { e.talk(req, rec, cancel).await }
    };
    let watcher = async {
        while !rec.seen().iter().any(|p| *p > 0) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        cancel.cancel();
    };
    let (result, ()) = tokio::join!(running, watcher);
    assert!(matches!(result, Err(EngineError::Cancelled)), "{result:?}");
    assert_eq!(
        *fake.interrupts.lock().unwrap(),
        vec![json!({"prompt_id": "prompt-1"})]
    );
}

#[tokio::test]
async fn bad_requests_are_refused_before_anything_is_sent() {
    // No server listens here: each refusal happens before any exchange.
    let e = engine("http://127.0.0.1:9");
    let mut req = request(1.0);
    req.picture = b"not a picture".to_vec();
    let err = talk(&e, req).await.0.unwrap_err();
    assert!(matches!(err, EngineError::BadInput(_)), "{err:?}");
    let mut req = request(1.0);
    req.audio_secs = 0.0;
    assert!(matches!(
        talk(&e, req).await.0,
        Err(EngineError::BadInput(_))
    ));
    let mut req = request(1.0);
    req.audio_secs = 61.0;
    assert!(matches!(
        talk(&e, req).await.0,
        Err(EngineError::BadInput(_))
    ));
    let plain = ComfyUi::new("http://127.0.0.1:9", None).unwrap();
    let err = talk(&plain, request(1.0)).await.0.unwrap_err();
    assert!(err.to_string().contains("S2V"), "{err}");
}
