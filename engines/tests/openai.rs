#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
//! The OpenAI-compatible image adapter against a fake Images API: an
//! actix-web server that follows OpenAI's documented routes, bodies and
//! error envelopes, records what the adapter sends, and answers with real
//! PNGs. It is a fake that follows the documented API, not OpenAI.

use std::collections::HashMap;
use std::io::Cursor;
use std::sync::{Arc, Mutex};
use std::time::Duration;

mod common;

use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
use base64::Engine as _;
use common::multipart;
use easel_engines::openai::OpenAiImages;
use easel_engines::{Cancel, Engine, EngineError, EngineResult, LoadedInput, Progress};
use image::{DynamicImage, ImageFormat, Rgba, RgbaImage};
use protocol::task::{Action, InputRole, JobSpec};
use serde_json::{json, Value};

// ---------------------------------------------------------------- the fake

#[derive(Clone, Copy, PartialEq, Debug)]
enum Mode {
    Ok,
    /// Answer every image request with this status and an error envelope.
    Status(u16),
    /// Never answer (for cancel).
    Slow,
}

/// One request as received.
#[derive(Clone, Debug)]
struct Seen {
    path: String,
    auth: Option<String>,
    content_type: String,
    body: Vec<u8>,
}

struct Fake {
    mode: Mode,
    port: Mutex<u16>,
    seen: Mutex<Vec<Seen>>,
    /// Images served by URL.
    files: Mutex<HashMap<String, Vec<u8>>>,
}

fn png(w: u32, h: u32, shade: u8) -> Vec<u8> {
    let img = RgbaImage::from_fn(w, h, |x, y| {
        Rgba([shade, (x % 256) as u8, (y % 256) as u8, 255])
    });
    let mut out = Cursor::new(Vec::new());
    DynamicImage::ImageRgba8(img)
        .write_to(&mut out, ImageFormat::Png)
        .unwrap();
    out.into_inner()
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn parse_size(size: &str) -> (u32, u32) {
    let (w, h) = size.split_once('x').unwrap();
    (w.parse().unwrap(), h.parse().unwrap())
}

fn record(req: &HttpRequest, body: &[u8], fake: &Fake) {
    let header = |name: &str| {
        req.headers()
            .get(name)
            .map(|v| v.to_str().unwrap().to_string())
    };
    fake.seen.lock().unwrap().push(Seen {
        path: req.path().to_string(),
        auth: header("authorization"),
        content_type: header("content-type").unwrap_or_default(),
        body: body.to_vec(),
    });
}

async fn failure(fake: &Fake) -> Option<HttpResponse> {
    match fake.mode {
        Mode::Ok => None,
        Mode::Slow => {
            actix_web::rt::time::sleep(Duration::from_secs(30)).await;
            Some(HttpResponse::GatewayTimeout().finish())
        }
        Mode::Status(code) => Some(
            HttpResponse::build(actix_web::http::StatusCode::from_u16(code).unwrap()).json(json!({
                "error": {
                    "message": format!("fake refusal {code}: Your request was rejected as a result of our safety system."),
                    "type": "invalid_request_error", "param": null, "code": "content_policy_violation"
                }
            })),
        ),
    }
}

async fn generations(req: HttpRequest, body: web::Bytes, fake: web::Data<Fake>) -> HttpResponse {
    record(&req, &body, &fake);
    if let Some(r) = failure(&fake).await {
        return r;
    }
    let v: Value = serde_json::from_slice(&body).unwrap();
    let (w, h) = parse_size(v["size"].as_str().unwrap());
    let n = v["n"].as_u64().unwrap();
    let data: Vec<Value> = (0..n)
        .map(|i| json!({"b64_json": b64(&png(w, h, i as u8 * 50)), "revised_prompt": "x"}))
        .collect();
    HttpResponse::Ok().json(json!({"created": 1_700_000_000, "data": data}))
}

/// Answers the first image inline and the rest by URL on this server.
async fn edits(req: HttpRequest, body: web::Bytes, fake: web::Data<Fake>) -> HttpResponse {
    record(&req, &body, &fake);
    if let Some(r) = failure(&fake).await {
        return r;
    }
    let parts = multipart(
        req.headers().get("content-type").unwrap().to_str().unwrap(),
        &body,
    );
    let text = |k: &str| String::from_utf8(parts[k].1.clone()).unwrap();
    let (w, h) = parse_size(&text("size"));
    let n: u64 = text("n").parse().unwrap();
    let port = *fake.port.lock().unwrap();
    let mut data = Vec::new();
    for i in 0..n {
        let img = png(w, h, 100 + i as u8);
        if i == 0 {
            data.push(json!({"b64_json": b64(&img)}));
        } else {
            let name = format!("out-{i}.png");
            fake.files.lock().unwrap().insert(name.clone(), img);
            data.push(json!({"url": format!("http://127.0.0.1:{port}/files/{name}")}));
        }
    }
    HttpResponse::Ok().json(json!({"created": 1_700_000_000, "data": data}))
}

async fn files(req: HttpRequest, name: web::Path<String>, fake: web::Data<Fake>) -> HttpResponse {
    record(&req, &[], &fake);
    match fake.files.lock().unwrap().get(name.as_str()) {
        Some(b) => HttpResponse::Ok().content_type("image/png").body(b.clone()),
        None => HttpResponse::NotFound().finish(),
    }
}

fn start(mode: Mode) -> (String, web::Data<Fake>) {
    let fake = web::Data::new(Fake {
        mode,
        port: Mutex::new(0),
        seen: Mutex::default(),
        files: Mutex::default(),
    });
    let shared = fake.clone();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        actix_web::rt::System::new().block_on(async move {
            let server = HttpServer::new(move || {
                App::new()
                    .app_data(shared.clone())
                    .app_data(web::PayloadConfig::new(64 << 20))
                    .route("/v1/images/generations", web::post().to(generations))
                    .route("/v1/images/edits", web::post().to(edits))
                    .route("/files/{name}", web::get().to(files))
            })
            .workers(1)
            .bind(("127.0.0.1", 0))
            .unwrap();
            tx.send(server.addrs()[0].port()).unwrap();
            server.run().await.unwrap();
        });
    });
    let port = rx.recv().unwrap();
    *fake.port.lock().unwrap() = port;
    (format!("http://127.0.0.1:{port}/v1"), fake)
}

// ---------------------------------------------------------------- helpers

#[derive(Default)]
struct Recorder(Mutex<Vec<u8>>);
impl Progress for Recorder {
    fn report(&self, percent: u8) {
        self.0.lock().unwrap().push(percent);
    }
}

fn job(action: Action) -> JobSpec {
    JobSpec {
        task_id: "task-7".into(),
        attempt: 1,
        action,
        family: "sdxl".into(),
        model: "catalogue-model".into(),
        loras: vec![],
        prompt: "a paper boat".into(),
        negative_prompt: "text, watermark".into(),
        width: 64,
        height: 48,
        n_iter: 2,
        steps: 20,
        cfg_scale: 7.0,
        seed: 100,
        sampler: "Euler a".into(),
        denoising_strength: 0.5,
        inputs: vec![],
        upscale_ratio: 0.0,
        left_margin: 0,
        up_margin: 0,
        control: None,
        frames: 0,
        face_strength: 0.0,
        video: None,
        audio: None,
        model_file: None,
        embeddings: Vec::new(),
        train: None,
    }
}

async fn run(
    e: &OpenAiImages,
    job: &JobSpec,
    inputs: Vec<LoadedInput>,
) -> (Result<EngineResult, EngineError>, Vec<u8>) {
    let rec = Arc::new(Recorder::default());
    let r = e.run(job, inputs, rec.clone(), Cancel::new()).await;
    let seen = rec.0.lock().unwrap().clone();
    (r, seen)
}

// ---------------------------------------------------------------- tests

#[tokio::test]
async fn text_to_image_posts_the_documented_body_with_the_key() {
    let (url, fake) = start(Mode::Ok);
    let e = OpenAiImages::new(&url, Some("sk-test-123".into()), Some("dall-e-2".into())).unwrap();
    let (result, progress) = run(&e, &job(Action::TextToImage), vec![]).await;
    let result = result.unwrap();

    let seen = fake.seen.lock().unwrap();
    assert_eq!(seen.len(), 1);
    let req = &seen[0];
    assert_eq!(req.path, "/v1/images/generations");
    assert_eq!(req.auth.as_deref(), Some("Bearer sk-test-123"));
    assert!(req.content_type.starts_with("application/json"));
    let body: Value = serde_json::from_slice(&req.body).unwrap();
    assert_eq!(
        body,
        json!({
            "model": "dall-e-2",
            "prompt": "a paper boat\n\nAvoid: text, watermark",
            "n": 2,
            "size": "64x48",
            "response_format": "b64_json"
        })
    );

    assert_eq!(result.outputs.len(), 2);
    for (i, out) in result.outputs.iter().enumerate() {
        assert_eq!((out.width, out.height), (64, 48));
        assert_eq!(out.mime, "image/png");
        assert_eq!(out.seed, 100 + i as u64);
        assert_eq!(out.bytes, png(64, 48, i as u8 * 50));
    }
    assert_eq!(result.engine.name, "openai");
    assert!(result.engine.neural);
    assert_eq!(progress, vec![0, 100]);
}

#[tokio::test]
async fn without_a_key_no_authorization_is_sent_and_the_jobs_model_is_used() {
    let (url, fake) = start(Mode::Ok);
    let e = OpenAiImages::new(&url, None, None).unwrap();
    let mut j = job(Action::TextToImage);
    j.negative_prompt = String::new();
    j.n_iter = 1;
    run(&e, &j, vec![]).await.0.unwrap();
    let seen = fake.seen.lock().unwrap();
    assert_eq!(seen[0].auth, None);
    let body: Value = serde_json::from_slice(&seen[0].body).unwrap();
    assert_eq!(body["model"], "catalogue-model");
    assert_eq!(body["prompt"], "a paper boat");
}

#[tokio::test]
async fn image_to_image_sends_image_and_mask_parts_and_fetches_url_answers() {
    let (url, fake) = start(Mode::Ok);
    let e = OpenAiImages::new(&url, Some("sk-edit".into()), Some("gpt-image-1".into())).unwrap();
    let mut mask = RgbaImage::from_pixel(20, 10, Rgba([0, 0, 0, 255]));
    mask.put_pixel(3, 4, Rgba([0, 0, 0, 0]));
    let mut mask_png = Cursor::new(Vec::new());
    DynamicImage::ImageRgba8(mask)
        .write_to(&mut mask_png, ImageFormat::Png)
        .unwrap();
    let inputs = vec![
        LoadedInput {
            role: InputRole::Init,
            bytes: png(20, 10, 77),
        },
        LoadedInput {
            role: InputRole::Mask,
            bytes: mask_png.into_inner(),
        },
    ];
    let (result, _) = run(&e, &job(Action::ImageToImage), inputs).await;
    let result = result.unwrap();

    let seen = fake.seen.lock().unwrap().clone();
    let edit = seen.iter().find(|s| s.path == "/v1/images/edits").unwrap();
    assert_eq!(edit.auth.as_deref(), Some("Bearer sk-edit"));
    assert!(edit.content_type.starts_with("multipart/form-data"));
    let parts = multipart(&edit.content_type, &edit.body);
    let text = |k: &str| String::from_utf8(parts[k].1.clone()).unwrap();
    assert_eq!(text("prompt"), "a paper boat\n\nAvoid: text, watermark");
    assert_eq!(text("n"), "2");
    assert_eq!(text("size"), "64x48");
    assert_eq!(text("model"), "gpt-image-1");
    assert_eq!(text("response_format"), "b64_json");
    let (image_name, image_bytes) = &parts["image"];
    assert_eq!(image_name.as_deref(), Some("image.png"));
    let sent = image::load_from_memory_with_format(image_bytes, ImageFormat::Png)
        .unwrap()
        .to_rgba8();
    assert_eq!(sent.dimensions(), (20, 10));
    assert_eq!(
        sent.get_pixel(0, 0).0[0],
        77,
        "the init image's pixels arrive"
    );
    let (_, mask_bytes) = &parts["mask"];
    let sent_mask = image::load_from_memory_with_format(mask_bytes, ImageFormat::Png)
        .unwrap()
        .to_rgba8();
    assert_eq!(
        sent_mask.get_pixel(3, 4).0[3],
        0,
        "transparent = edit, as sent"
    );
    assert_eq!(sent_mask.get_pixel(0, 0).0[3], 255);

    // The second image came by URL and was fetched, with the key (same origin).
    let fetch = seen.iter().find(|s| s.path == "/files/out-1.png").unwrap();
    assert_eq!(fetch.auth.as_deref(), Some("Bearer sk-edit"));
    assert_eq!(result.outputs.len(), 2);
    assert_eq!(result.outputs[0].bytes, png(64, 48, 100));
    assert_eq!(result.outputs[1].bytes, png(64, 48, 101));
    assert!(result
        .outputs
        .iter()
        .all(|o| (o.width, o.height) == (64, 48)));
}

#[tokio::test]
async fn expansion_sends_the_padded_canvas_and_its_mask() {
    let (url, fake) = start(Mode::Ok);
    let e = OpenAiImages::new(&url, None, Some("dall-e-2".into())).unwrap();
    let mut j = job(Action::Expansion);
    j.width = 64;
    j.height = 64;
    j.left_margin = 16;
    j.up_margin = 8;
    j.n_iter = 1;
    let (result, _) = run(
        &e,
        &j,
        vec![LoadedInput {
            role: InputRole::Init,
            bytes: png(32, 40, 200),
        }],
    )
    .await;
    assert_eq!(result.unwrap().outputs.len(), 1);

    let seen = fake.seen.lock().unwrap();
    let parts = multipart(&seen[0].content_type, &seen[0].body);
    let canvas = image::load_from_memory(&parts["image"].1)
        .unwrap()
        .to_rgba8();
    let mask = image::load_from_memory(&parts["mask"].1)
        .unwrap()
        .to_rgba8();
    assert_eq!(canvas.dimensions(), (64, 64));
    assert_eq!(mask.dimensions(), (64, 64));
    // Inside the placed source: its pixels, kept by the mask.
    assert_eq!(canvas.get_pixel(16, 8).0, [200, 0, 0, 255]);
    assert_eq!(mask.get_pixel(16 + 31, 8 + 39).0[3], 255);
    // Outside: transparent in both, so the API fills it.
    for (x, y) in [(15, 8), (16, 7), (48, 20), (20, 48), (0, 0), (63, 63)] {
        assert_eq!(canvas.get_pixel(x, y).0[3], 0, "canvas at {x},{y}");
        assert_eq!(mask.get_pixel(x, y).0[3], 0, "mask at {x},{y}");
    }
    assert_eq!(String::from_utf8(parts["size"].1.clone()).unwrap(), "64x64");
}

#[tokio::test]
async fn variation_without_a_prompt_still_sends_one() {
    let (url, fake) = start(Mode::Ok);
    let e = OpenAiImages::new(&url, None, None).unwrap();
    let mut j = job(Action::Variation);
    j.prompt = String::new();
    j.n_iter = 1;
    run(
        &e,
        &j,
        vec![LoadedInput {
            role: InputRole::Init,
            bytes: png(16, 16, 5),
        }],
    )
    .await
    .0
    .unwrap();
    let seen = fake.seen.lock().unwrap();
    let parts = multipart(&seen[0].content_type, &seen[0].body);
    assert!(!parts["prompt"].1.is_empty());
    assert!(!parts.contains_key("mask"));
}

#[tokio::test]
async fn a_400_fails_with_the_servers_message() {
    let (url, _fake) = start(Mode::Status(400));
    let e = OpenAiImages::new(&url, None, None).unwrap();
    let err = run(&e, &job(Action::TextToImage), vec![])
        .await
        .0
        .unwrap_err();
    assert!(matches!(err, EngineError::Failed(_)), "{err:?}");
    assert!(!err.retryable());
    assert!(
        err.to_string()
            .contains("fake refusal 400: Your request was rejected"),
        "{err}"
    );
}

#[tokio::test]
async fn a_503_or_429_is_unavailable() {
    for code in [503, 429] {
        let (url, _fake) = start(Mode::Status(code));
        let e = OpenAiImages::new(&url, None, None).unwrap();
        let err = run(&e, &job(Action::TextToImage), vec![])
            .await
            .0
            .unwrap_err();
        assert!(
            matches!(err, EngineError::Unavailable(_)) && err.retryable(),
            "{code}: {err:?}"
        );
    }
}

#[tokio::test]
async fn a_server_that_is_down_is_unavailable() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let e = OpenAiImages::new(&format!("http://127.0.0.1:{port}/v1"), None, None).unwrap();
    let err = run(&e, &job(Action::TextToImage), vec![])
        .await
        .0
        .unwrap_err();
    assert!(err.retryable(), "{err:?}");
}

#[tokio::test]
async fn cancelling_abandons_a_slow_request() {
    let (url, _fake) = start(Mode::Slow);
    let e = OpenAiImages::new(&url, None, None).unwrap();
    let cancel = Cancel::new();
    let j = job(Action::TextToImage);
    let trigger = {
        let cancel = cancel.clone();
        async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            cancel.cancel();
        }
    };
    let started = std::time::Instant::now();
    let (result, ()) = tokio::join!(
        e.run(&j, vec![], Arc::new(Recorder::default()), cancel),
        trigger
    );
    assert!(matches!(result, Err(EngineError::Cancelled)), "{result:?}");
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn an_image_action_without_an_image_is_bad_input() {
    let e = OpenAiImages::new("http://127.0.0.1:9/v1", None, None).unwrap();
    let err = run(&e, &job(Action::ImageToImage), vec![])
        .await
        .0
        .unwrap_err();
    assert!(matches!(err, EngineError::BadInput(_)), "{err:?}");
    assert!(e.supports(Action::Expansion, "flux"));
    assert!(!e.supports(Action::Upscale, "sdxl"));
}

fn user_file(name: &str) -> protocol::task::ModelFileRef {
    protocol::task::ModelFileRef {
        key: format!("m/v/{name}"),
        sha256: "ab".repeat(32),
        size: 10,
        name: name.into(),
        local_path: None,
    }
}

#[tokio::test]
async fn users_model_files_are_named_in_the_notes_as_not_applied() {
    let (url, fake) = start(Mode::Ok);
    let e = OpenAiImages::new(&url, None, None).unwrap();
    let mut j = job(Action::TextToImage);
    j.n_iter = 1;
    j.model = "mv-user-checkpoint".into();
    j.model_file = Some(user_file("easel-abc-mycheckpoint.safetensors"));
    j.loras = vec![
        protocol::task::job::LoraSpec {
            model: "mv-user-lora".into(),
            weight: 0.8,
            file: Some(user_file("easel-def-mylora.safetensors")),
        },
        // A catalogue LoRA (no file) is not a user's file.
        protocol::task::job::LoraSpec {
            model: "catalogue-lora".into(),
            weight: 1.0,
            file: None,
        },
    ];
    j.embeddings = vec![user_file("easel-123-myembedding.safetensors")];
    let result = run(&e, &j, vec![]).await.0.unwrap();
    let notes = result.engine.notes.join("\n");
    for (name, why) in [
        (
            "easel-abc-mycheckpoint.safetensors",
            "cannot load a checkpoint",
        ),
        ("easel-def-mylora.safetensors", "no LoRA weights"),
        ("easel-123-myembedding.safetensors", "no textual-inversion"),
    ] {
        assert!(
            notes.contains(name) && notes.contains(why),
            "{name}: {notes}"
        );
    }
    assert!(notes.contains("weight 0.8"), "{notes}");
    assert!(!notes.contains("catalogue-lora"), "{notes}");
    // The user's checkpoint id is not sent as the API's model: the server
    // picks its default.
    let sent = fake.seen.lock().unwrap()[0].body.clone();
    let body: Value = serde_json::from_slice(&sent).unwrap();
    assert_eq!(body.get("model"), None, "{body}");
    assert!(!String::from_utf8_lossy(&sent).contains("safetensors"));

    // With a configured model the note names it; without users' files there
    // is no note.
    let e = OpenAiImages::new(&url, None, Some("gpt-image-1".into())).unwrap();
    let r = run(&e, &j, vec![]).await.0.unwrap();
    assert!(r.engine.notes.join(" ").contains("model gpt-image-1 drew"));
    let plain = run(&e, &job(Action::TextToImage), vec![]).await.0.unwrap();
    assert!(plain.engine.notes.is_empty(), "{:?}", plain.engine.notes);
}
