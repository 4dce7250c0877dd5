#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
//! The ComfyUI adapter's video jobs (Wan 2.x workflows) against a fake
//! ComfyUI: an actix-web server that speaks ComfyUI's documented routes and
//! WebSocket messages, records the workflows it is sent, and "runs" them by
//! writing a real VP9 WebM (ffmpeg's test pattern) at the size, length and
//! frame rate the workflow asks, listed in `/history` the way ComfyUI lists
//! a saved video (`images` with `animated: [true]`). An ACE-Step music
//! workflow is "run" by writing a FLAC of the asked length, listed under
//! `audio` as `SaveAudio` lists it. A fake that follows the documented API,
//! not a real ComfyUI.

mod common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
use common::{check_videos, make_video, multipart, video_inputs, video_job, Recorder};
use easel_engines::comfyui::{AceModels, ComfyUi, WanModels};
use easel_engines::{Cancel, Engine, EngineError, EngineResult, LoadedInput};
use protocol::task::{Action, JobSpec};
use protocol::video::VideoImageRole;
use serde_json::{json, Value};

// ---------------------------------------------------------------- the fake

#[derive(Clone, Copy, PartialEq, Debug)]
enum Script {
    /// Progress steps, then the video saved and the prompt done.
    Succeed,
    /// An execution error from the sampler.
    Error,
    /// One progress message, then silence.
    Hang,
    /// Saves a file named like a video that is not one.
    NotVideo,
}

struct Fake {
    script: Script,
    sessions: Mutex<HashMap<String, actix_ws::Session>>,
    prompts: Mutex<Vec<Value>>,
    uploads: Mutex<Vec<(String, Vec<u8>)>>,
    interrupts: Mutex<Vec<Value>>,
    files: Mutex<HashMap<String, Vec<u8>>>,
    history: Mutex<HashMap<String, Value>>,
}

fn class<'a>(w: &'a Value, class_type: &str) -> Option<&'a Value> {
    w.as_object()
        .unwrap()
        .values()
        .find(|n| n["class_type"] == class_type)
}

async fn send(s: &mut actix_ws::Session, v: Value) {
    let _ = s.text(v.to_string()).await;
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
    let step = |v: u64| json!({"type": "progress", "data": {"value": v, "max": 4, "prompt_id": id, "node": "3"}});
    match fake.script {
        Script::Hang => send(&mut s, step(1)).await,
        Script::Error => {
            send(&mut s, step(1)).await;
            send(
                &mut s,
                json!({"type": "execution_error", "data": {"prompt_id": id, "node_id": "3",
                "node_type": "KSampler", "exception_type": "torch.OutOfMemoryError",
                "exception_message": "CUDA out of memory", "traceback": []}}),
            )
            .await;
        }
        Script::Succeed | Script::NotVideo => {
            for v in 1..=4 {
                send(&mut s, step(v)).await;
            }
            if let Some(save) = class(&workflow, "SaveAudio") {
                let secs = class(&workflow, "EmptyAceStepLatentAudio").unwrap()["inputs"]
                    ["seconds"]
                    .as_f64()
                    .unwrap();
                let prefix = save["inputs"]["filename_prefix"].as_str().unwrap();
                let name = format!("audio/{prefix}_00001_.flac");
                let bytes = if fake.script == Script::NotVideo {
                    b"<html>not audio</html>".to_vec()
                } else {
                    make_flac(secs)
                };
                fake.files.lock().unwrap().insert(name.clone(), bytes);
                fake.history.lock().unwrap().insert(
                    id.clone(),
                    json!({"prompt": [1, id, workflow, {}, ["8"]],
                           "outputs": {"8": {"audio": [{"filename": name, "subfolder": "", "type": "output"}]}},
                           "status": {"status_str": "success", "completed": true, "messages": []}}),
                );
                send(
                    &mut s,
                    json!({"type": "executing", "data": {"node": null, "prompt_id": id}}),
                )
                .await;
                return;
            }
            // What the workflow asks: its latent node's size and length,
            // the save node's frame rate.
            let latent = class(&workflow, "EmptyHunyuanLatentVideo")
                .or_else(|| class(&workflow, "WanImageToVideo"))
                .or_else(|| class(&workflow, "WanFirstLastFrameToVideo"))
                .unwrap();
            let n = |k: &str| latent["inputs"][k].as_u64().unwrap() as u32;
            let save = class(&workflow, "SaveWEBM").unwrap();
            let fps = save["inputs"]["fps"].as_f64().unwrap();
            let prefix = save["inputs"]["filename_prefix"].as_str().unwrap();
            let name = format!("{prefix}_00001_.webm");
            let bytes = if fake.script == Script::NotVideo {
                b"<html>not a video</html>".to_vec()
            } else {
                make_video(n("width"), n("height"), fps, n("length"), "webm")
            };
            fake.files.lock().unwrap().insert(name.clone(), bytes);
            fake.history.lock().unwrap().insert(
                id.clone(),
                json!({"prompt": [1, id, workflow, {}, ["47"]],
                       "outputs": {"47": {"images": [{"filename": name, "subfolder": "", "type": "output"}],
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
    let parts = multipart(ct, &body);
    let (file, bytes) = parts["image"].clone();
    let file = file.unwrap();
    fake.uploads.lock().unwrap().push((file.clone(), bytes));
    HttpResponse::Ok().json(json!({"name": file, "subfolder": "", "type": "input"}))
}

async fn prompt(body: web::Json<Value>, fake: web::Data<Fake>) -> HttpResponse {
    let client = body["client_id"].as_str().unwrap_or_default().to_string();
    let n = {
        let mut p = fake.prompts.lock().unwrap();
        p.push(body["prompt"].clone());
        p.len()
    };
    let id = format!("prompt-{n}");
    actix_web::rt::spawn(run_script(
        fake.clone(),
        client,
        id.clone(),
        body["prompt"].clone(),
    ));
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

/// A FLAC of a 440 Hz tone, `secs` long, as ACE-Step's `SaveAudio` writes.
fn make_flac(secs: f64) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("a.flac");
    let ok = std::process::Command::new("ffmpeg")
        .args(["-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i"])
        .arg(format!(
            "sine=frequency=440:duration={secs}:sample_rate=44100"
        ))
        .args(["-c:a", "flac", "-y"])
        .arg(&out)
        .status()
        .unwrap()
        .success();
    assert!(ok);
    std::fs::read(out).unwrap()
}

/// Seconds of the first audio stream of a file, by ffprobe.
fn audio_secs(bytes: &[u8]) -> f64 {
    let f = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(f.path(), bytes).unwrap();
    let out = std::process::Command::new("ffprobe")
        .args(["-v", "error", "-select_streams", "a:0", "-show_entries"])
        .args(["stream=codec_name,duration", "-of", "csv=p=0"])
        .arg(f.path())
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let mut parts = text.trim().split(',');
    assert_eq!(parts.next(), Some("aac"), "{text}");
    parts.next().unwrap().parse().unwrap()
}

fn engine(url: &str) -> ComfyUi {
    ComfyUi::new(url, None)
        .unwrap()
        .with_wan(WanModels::default())
        .with_timeout(Duration::from_secs(60))
}

async fn run(
    e: &ComfyUi,
    job: &JobSpec,
    inputs: Vec<LoadedInput>,
) -> (Result<EngineResult, EngineError>, Arc<Recorder>) {
    let rec = Arc::new(Recorder::default());
    let r = e.run(job, inputs, rec.clone(), Cancel::new()).await;
    (r, rec)
}

// ---------------------------------------------------------------- tests

#[tokio::test]
async fn text_to_video_runs_the_wan_workflow_and_gives_a_packaged_mp4() {
    let (url, fake) = start(Script::Succeed);
    // 1 s at Wan's 16 fps: 17 frames (4k + 1).
    let job = video_job(Action::TextToVideo, 128, 80, 1, &[]);
    let (result, rec) = run(&engine(&url), &job, vec![]).await;
    let result = result.unwrap();
    assert_eq!(result.engine.name, "comfyui");
    let info = &check_videos(&result, 1)[0];
    assert_eq!((info.width, info.height), (128, 80));
    assert_eq!(info.frames, 17);
    assert!((info.fps - 16.0).abs() < 1e-6, "{}", info.fps);
    assert!(
        (info.duration_ms as i64 - 1063).abs() <= 70,
        "{}",
        info.duration_ms
    );
    assert_eq!(result.outputs[0].seed, 777);

    let prompts = fake.prompts.lock().unwrap();
    assert_eq!(prompts.len(), 1);
    let w = &prompts[0];
    let latent = &class(w, "EmptyHunyuanLatentVideo").unwrap()["inputs"];
    assert_eq!(
        (&latent["width"], &latent["height"], &latent["length"]),
        (&json!(128), &json!(80), &json!(17))
    );
    let m = WanModels::default();
    assert_eq!(
        class(w, "UNETLoader").unwrap()["inputs"]["unet_name"],
        json!(m.text_to_video)
    );
    assert_eq!(class(w, "CLIPLoader").unwrap()["inputs"]["type"], "wan");
    let sampler = &class(w, "KSampler").unwrap()["inputs"];
    assert_eq!(
        (&sampler["seed"], &sampler["steps"]),
        (&json!(777), &json!(30))
    );
    assert_eq!(class(w, "SaveWEBM").unwrap()["inputs"]["fps"], 16);
    let texts: Vec<&Value> = w
        .as_object()
        .unwrap()
        .values()
        .filter(|n| n["class_type"] == "CLIPTextEncode")
        .map(|n| &n["inputs"]["text"])
        .collect();
    assert!(texts.contains(&&json!("a lighthouse in a storm")));
    assert!(texts.contains(&&json!("blurry")));
    assert!(class(w, "LoadImage").is_none());

    // Sampler steps then transcoding, never backwards, ending at 100.
    let seen = rec.seen();
    assert!(seen.windows(2).all(|p| p[0] <= p[1]), "{seen:?}");
    assert!(
        seen.iter().filter(|p| **p > 0 && **p < 100).count() >= 3,
        "{seen:?}"
    );
    assert_eq!(seen.last(), Some(&100));
}

#[tokio::test]
async fn image_to_video_uploads_the_frames_and_fits_the_asked_size() {
    let (url, fake) = start(Script::Succeed);
    // Wan works at multiples of 16 (96 x 64); the MP4 has the asked size.
    let job = video_job(Action::ImageToVideo, 100, 60, 1, &[VideoImageRole::First]);
    let inputs = video_inputs(&job, 50, 30);
    let (result, _) = run(&engine(&url), &job, inputs.clone()).await;
    let info = &check_videos(&result.unwrap(), 1)[0];
    assert_eq!((info.width, info.height), (100, 60));
    {
        let prompts = fake.prompts.lock().unwrap();
        let w = &prompts[0];
        let i2v = &class(w, "WanImageToVideo").unwrap()["inputs"];
        assert_eq!((&i2v["width"], &i2v["height"]), (&json!(96), &json!(64)));
        let uploads = fake.uploads.lock().unwrap();
        assert_eq!(uploads.len(), 1);
        assert_eq!(uploads[0].1, inputs[0].bytes);
        assert_eq!(
            class(w, "LoadImage").unwrap()["inputs"]["image"],
            json!(uploads[0].0)
        );
        assert_eq!(
            class(w, "UNETLoader").unwrap()["inputs"]["unet_name"],
            json!(WanModels::default().image_to_video)
        );
        assert!(class(w, "CLIPVisionEncode").is_some());
    }

    // With a last frame too: the first-and-last-frame workflow.
    let (url, fake) = start(Script::Succeed);
    let job = video_job(
        Action::ImageToVideo,
        64,
        64,
        1,
        &[VideoImageRole::First, VideoImageRole::Last],
    );
    let inputs = video_inputs(&job, 64, 64);
    let (result, _) = run(&engine(&url), &job, inputs.clone()).await;
    check_videos(&result.unwrap(), 1);
    let prompts = fake.prompts.lock().unwrap();
    let flf = &class(&prompts[0], "WanFirstLastFrameToVideo").unwrap()["inputs"];
    let uploads = fake.uploads.lock().unwrap();
    assert_eq!(uploads.len(), 2);
    let loaded = |link: &Value| &prompts[0][link[0].as_str().unwrap()]["inputs"]["image"];
    assert_eq!(loaded(&flf["start_image"]), &json!(uploads[0].0));
    assert_eq!(loaded(&flf["end_image"]), &json!(uploads[1].0));
    assert_eq!(uploads[1].1, inputs[1].bytes);
}

#[tokio::test]
async fn each_output_is_its_own_prompt_with_the_next_seed() {
    let (url, fake) = start(Script::Succeed);
    let mut job = video_job(Action::TextToVideo, 64, 48, 1, &[]);
    job.n_iter = 2;
    let (result, _) = run(&engine(&url), &job, vec![]).await;
    let result = result.unwrap();
    check_videos(&result, 2);
    assert_eq!((result.outputs[0].seed, result.outputs[2].seed), (777, 778));
    let prompts = fake.prompts.lock().unwrap();
    let seeds: Vec<&Value> = prompts
        .iter()
        .map(|w| &class(w, "KSampler").unwrap()["inputs"]["seed"])
        .collect();
    assert_eq!(seeds, vec![&json!(777), &json!(778)]);
}

#[tokio::test]
async fn an_execution_error_fails_the_job_with_its_message() {
    let (url, _fake) = start(Script::Error);
    let (result, _) = run(
        &engine(&url),
        &video_job(Action::TextToVideo, 64, 48, 1, &[]),
        vec![],
    )
    .await;
    let err = result.unwrap_err();
    assert!(
        matches!(err, EngineError::Failed(ref m) if m.contains("CUDA out of memory")),
        "{err:?}"
    );
}

#[tokio::test]
async fn a_saved_file_that_is_not_a_video_fails_the_job() {
    let (url, _fake) = start(Script::NotVideo);
    let (result, _) = run(
        &engine(&url),
        &video_job(Action::TextToVideo, 64, 48, 1, &[]),
        vec![],
    )
    .await;
    let err = result.unwrap_err();
    assert!(
        matches!(err, EngineError::Failed(ref m) if m.contains("not a video")),
        "{err:?}"
    );
}

#[tokio::test]
async fn cancelling_interrupts_the_video_prompt() {
    let (url, fake) = start(Script::Hang);
    let e = engine(&url);
    let job = video_job(Action::TextToVideo, 64, 48, 1, &[]);
    let cancel = Cancel::new();
    let rec = Arc::new(Recorder::default());
    let running = {
        let (cancel, rec) = (cancel.clone(), rec.clone());
        async move { e.run(&job, vec![], rec, cancel).await }
    };
    let watcher = async {
        while !rec.seen().iter().any(|p| *p > 0) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        cancel.cancel();
    };
    let (result, ()) = tokio::time::timeout(Duration::from_secs(20), async {
        tokio::join!(running, watcher)
    })
    .await
    .unwrap();
    assert!(matches!(result, Err(EngineError::Cancelled)), "{result:?}");
    assert_eq!(
        *fake.interrupts.lock().unwrap(),
        vec![json!({"prompt_id": "prompt-1"})]
    );
}

#[tokio::test]
async fn video_needs_the_wan_setting_and_a_first_frame() {
    let plain = ComfyUi::new("http://127.0.0.1:9", None).unwrap();
    assert!(!plain.supports(Action::TextToVideo, "wan"));
    let e = plain.with_wan(WanModels::default());
    assert!(e.supports(Action::TextToVideo, "wan"));
    assert!(e.supports(Action::ImageToVideo, "wan"));
    for a in [
        Action::MultiImageToVideo,
        Action::VideoEffect,
        Action::Live2d,
        Action::VideoUpscale,
        Action::VideoExtend,
        Action::FrameInterpolation,
    ] {
        assert!(!e.supports(a, "wan"), "{a:?}");
    }
    // Refused before anything is sent (the server here does not exist).
    let job = video_job(Action::ImageToVideo, 64, 64, 1, &[]);
    let (result, _) = run(&e, &job, vec![]).await;
    assert!(
        matches!(result, Err(EngineError::BadInput(_))),
        "{result:?}"
    );
}

fn music_job(duration: f32, vocals: bool) -> JobSpec {
    let mut job = video_job(Action::TextToMusic, 0, 0, 1, &[]);
    job.video = None;
    job.audio = Some(protocol::audio::AudioJob {
        prompt: "upbeat synth pop".into(),
        lyrics: "[verse]\nneon lights".into(),
        duration,
        vocals,
        ..Default::default()
    });
    job
}

#[tokio::test]
async fn music_runs_the_ace_step_workflow_and_gives_an_m4a_of_the_asked_length() {
    let (url, fake) = start(Script::Succeed);
    let e = engine(&url).with_ace(AceModels::default());
    assert!(e.supports(Action::TextToMusic, "audio"));
    assert!(!engine(&url).supports(Action::TextToMusic, "audio"));
    assert!(!e.supports(Action::TextToAudioEffect, "audio"));
    let (result, rec) = run(&e, &music_job(3.0, true), vec![]).await;
    let result = result.unwrap();
    assert_eq!(result.outputs.len(), 1);
    let out = &result.outputs[0];
    assert_eq!((out.mime.as_str(), out.ext.as_str()), ("audio/aac", "m4a"));
    let secs = audio_secs(&out.bytes);
    assert!((secs - 3.0).abs() < 0.05, "{secs}");
    let w = &fake.prompts.lock().unwrap()[0];
    let enc = &class(w, "TextEncodeAceStepAudio").unwrap()["inputs"];
    assert_eq!(enc["tags"], "upbeat synth pop");
    assert_eq!(enc["lyrics"], "[verse]\nneon lights");
    assert_eq!(
        class(w, "CheckpointLoaderSimple").unwrap()["inputs"]["ckpt_name"],
        json!(AceModels::default().checkpoint)
    );
    assert_eq!(rec.seen().last(), Some(&100));
}

#[tokio::test]
async fn music_that_is_not_audio_or_fails_is_an_error() {
    let (url, _fake) = start(Script::NotVideo);
    let e = engine(&url).with_ace(AceModels::default());
    let err = run(&e, &music_job(2.0, false), vec![]).await.0.unwrap_err();
    assert!(matches!(err, EngineError::Failed(_)), "{err}");
    let (url, _fake) = start(Script::Error);
    let e = engine(&url).with_ace(AceModels::default());
    let err = run(&e, &music_job(2.0, false), vec![]).await.0.unwrap_err();
    assert!(err.to_string().contains("out of memory"), "{err}");
}
