#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
//! The ComfyUI adapter against a fake ComfyUI: an actix-web server that
//! speaks ComfyUI's documented HTTP routes and WebSocket messages, records
//! what the adapter sends, and answers with real PNGs. It is a fake that
//! follows the documented API, not a real ComfyUI.

use std::collections::HashMap;
use std::io::Cursor;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
use easel_engines::comfyui::ComfyUi;
use easel_engines::{Cancel, Engine, EngineError, LoadedInput, Progress};
use image::{DynamicImage, ImageFormat, Rgba, RgbaImage};
use protocol::task::job::LoraSpec;
use protocol::task::{Action, InputRole, JobSpec, ModelFileRef};
use serde_json::{json, Value};

// ---------------------------------------------------------------- the fake

/// What the fake does once a prompt is queued.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Script {
    /// Start, `steps` progress messages, a binary preview, then done.
    Succeed { steps: u64 },
    /// Start, one progress message, then an execution error.
    Error,
    /// Start, one progress message, then silence (for cancel and timeout).
    Hang,
    /// Start, one progress message, then close the socket.
    Drop,
    /// Refuse the prompt with a 400 and node errors.
    Reject,
}

#[derive(Default)]
struct Recorded {
    /// (file name, bytes, overwrite field) per upload.
    uploads: Vec<(String, Vec<u8>, String)>,
    /// Bodies of POST /prompt.
    prompts: Vec<Value>,
    /// Whether the client's socket was open when its prompt arrived.
    socket_open_at_queue: Vec<bool>,
    interrupts: Vec<Value>,
    queue_ops: Vec<Value>,
    views: Vec<HashMap<String, String>>,
}

struct Fake {
    script: Script,
    rec: Mutex<Recorded>,
    sessions: Mutex<HashMap<String, actix_ws::Session>>,
    /// Saved images by file name.
    files: Mutex<HashMap<String, Vec<u8>>>,
    history: Mutex<HashMap<String, Value>>,
    /// The server's `models/` folder: when set, a prompt whose loaders name
    /// a file that is not there is refused as ComfyUI refuses it
    /// (`value_not_in_list`).
    models_dir: Mutex<Option<std::path::PathBuf>>,
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

fn class<'a>(w: &'a Value, class_type: &str) -> Option<&'a Value> {
    w.as_object()
        .unwrap()
        .values()
        .find(|n| n["class_type"] == class_type)
}

/// The size and count a real ComfyUI would produce for the workflow
/// (`source`: the size of the last uploaded image).
fn planned(w: &Value, source: (u32, u32)) -> (u32, u32, usize) {
    let (width, height) = if let Some(pad) = class(w, "ImagePadForOutpaint") {
        let p = |k: &str| pad["inputs"][k].as_u64().unwrap() as u32;
        (
            source.0 + p("left") + p("right"),
            source.1 + p("top") + p("bottom"),
        )
    } else {
        let size_node = class(w, "EmptyLatentImage")
            .or_else(|| class(w, "ImageScale"))
            .unwrap();
        (
            size_node["inputs"]["width"].as_u64().unwrap() as u32,
            size_node["inputs"]["height"].as_u64().unwrap() as u32,
        )
    };
    let count = class(w, "EmptyLatentImage")
        .map(|n| n["inputs"]["batch_size"].as_u64().unwrap())
        .or_else(|| class(w, "RepeatLatentBatch").map(|n| n["inputs"]["amount"].as_u64().unwrap()))
        .unwrap_or(1) as usize;
    (width, height, count)
}

async fn send(session: &mut actix_ws::Session, v: Value) {
    let _ = session.text(v.to_string()).await;
}

async fn run_script(fake: web::Data<Fake>, client_id: String, prompt_id: String, workflow: Value) {
    actix_web::rt::time::sleep(Duration::from_millis(20)).await;
    let Some(mut s) = fake.sessions.lock().unwrap().get(&client_id).cloned() else {
        return; // no socket: nobody hears anything
    };
    send(
        &mut s,
        json!({"type": "execution_start", "data": {"prompt_id": prompt_id}}),
    )
    .await;
    // Another client's prompt finishing on the same server: must be ignored.
    send(
        &mut s,
        json!({"type": "executing", "data": {"node": null, "prompt_id": "someone-else"}}),
    )
    .await;
    send(
        &mut s,
        json!({"type": "executing", "data": {"node": "3", "prompt_id": prompt_id}}),
    )
    .await;
    match fake.script {
        Script::Succeed { steps } => {
            for i in 1..=steps {
                send(&mut s, json!({"type": "progress", "data": {"value": i, "max": steps, "prompt_id": prompt_id, "node": "3"}})).await;
                if i == 1 {
                    // A latent preview: binary, 8-byte header then an image.
                    let mut preview = vec![0, 0, 0, 1, 0, 0, 0, 2];
                    preview.extend(png(8, 8, 1));
                    let _ = s.binary(preview).await;
                }
            }
            let source = fake
                .rec
                .lock()
                .unwrap()
                .uploads
                .last()
                .map_or((0, 0), |(_, b, _)| {
                    let i = image::load_from_memory(b).unwrap();
                    (i.width(), i.height())
                });
            let (w, h, count) = planned(&workflow, source);
            let mut images = Vec::new();
            for i in 0..count {
                let name = format!("easel_{i:05}_.png");
                fake.files
                    .lock()
                    .unwrap()
                    .insert(name.clone(), png(w, h, 40 * i as u8));
                images.push(json!({"filename": name, "subfolder": "", "type": "output"}));
            }
            fake.history.lock().unwrap().insert(
                prompt_id.clone(),
                json!({"prompt": [1, prompt_id, workflow, {}, ["9"]],
                       "outputs": {"9": {"images": images}},
                       "status": {"status_str": "success", "completed": true, "messages": []}}),
            );
            send(
                &mut s,
                json!({"type": "execution_success", "data": {"prompt_id": prompt_id}}),
            )
            .await;
            send(
                &mut s,
                json!({"type": "executing", "data": {"node": null, "prompt_id": prompt_id}}),
            )
            .await;
        }
        Script::Error => {
            send(&mut s, json!({"type": "progress", "data": {"value": 1, "max": 20, "prompt_id": prompt_id, "node": "3"}})).await;
            send(&mut s, json!({"type": "execution_error", "data": {
                "prompt_id": prompt_id, "node_id": "3", "node_type": "KSampler",
                "exception_message": "CUDA out of memory", "exception_type": "torch.OutOfMemoryError",
                "traceback": [], "current_inputs": [], "current_outputs": []}})).await;
        }
        Script::Hang => {
            send(&mut s, json!({"type": "progress", "data": {"value": 1, "max": 10, "prompt_id": prompt_id, "node": "3"}})).await;
        }
        Script::Drop => {
            send(&mut s, json!({"type": "progress", "data": {"value": 1, "max": 10, "prompt_id": prompt_id, "node": "3"}})).await;
            fake.sessions.lock().unwrap().remove(&client_id);
            let _ = s.close(None).await;
        }
        Script::Reject => {}
    }
}

async fn ws(
    req: HttpRequest,
    body: web::Payload,
    fake: web::Data<Fake>,
    q: web::Query<HashMap<String, String>>,
) -> Result<HttpResponse, actix_web::Error> {
    let (resp, session, mut stream) = actix_ws::handle(&req, body)?;
    let client_id = q.get("clientId").cloned().unwrap_or_default();
    fake.sessions
        .lock()
        .unwrap()
        .insert(client_id.clone(), session.clone());
    let mut s = session;
    actix_web::rt::spawn(async move {
        send(&mut s, json!({"type": "status", "data": {"status": {"exec_info": {"queue_remaining": 0}}, "sid": client_id}})).await;
        while let Some(Ok(msg)) = stream.recv().await {
            match msg {
                actix_ws::Message::Ping(b) => {
                    let _ = s.pong(&b).await;
                }
                actix_ws::Message::Close(_) => break,
                _ => {}
            }
        }
    });
    Ok(resp)
}

/// Minimal multipart/form-data reader: (field name, file name, bytes).
fn multipart(content_type: &str, body: &[u8]) -> Vec<(String, Option<String>, Vec<u8>)> {
    let boundary = content_type
        .split("boundary=")
        .nth(1)
        .unwrap()
        .trim_matches('"');
    let delim = format!("--{boundary}").into_bytes();
    let mut parts = Vec::new();
    let mut starts = Vec::new();
    let mut i = 0;
    while i + delim.len() <= body.len() {
        if body[i..i + delim.len()] == delim[..] {
            starts.push(i);
            i += delim.len();
        } else {
            i += 1;
        }
    }
    for pair in starts.windows(2) {
        let seg = &body[pair[0] + delim.len()..pair[1]];
        let seg = seg.strip_prefix(b"\r\n").unwrap();
        let seg = seg.strip_suffix(b"\r\n").unwrap();
        let split = seg.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
        let headers = String::from_utf8_lossy(&seg[..split]).to_string();
        let data = seg[split + 4..].to_vec();
        let field = |key: &str| {
            headers
                .split(';')
                .map(str::trim)
                .find_map(|p| p.strip_prefix(&format!("{key}=\"")))
                .map(|v| v.split('"').next().unwrap().to_string())
        };
        parts.push((field("name").unwrap(), field("filename"), data));
    }
    parts
}

async fn upload(req: HttpRequest, body: web::Bytes, fake: web::Data<Fake>) -> HttpResponse {
    let ct = req
        .headers()
        .get("content-type")
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    let parts = multipart(&ct, &body);
    let (_, file, bytes) = parts.iter().find(|(n, _, _)| n == "image").unwrap().clone();
    let overwrite = parts
        .iter()
        .find(|(n, _, _)| n == "overwrite")
        .map(|(_, _, v)| String::from_utf8(v.clone()).unwrap())
        .unwrap_or_default();
    let file = file.unwrap();
    fake.rec
        .lock()
        .unwrap()
        .uploads
        .push((file.clone(), bytes, overwrite));
    HttpResponse::Ok().json(json!({"name": file, "subfolder": "in", "type": "input"}))
}

async fn prompt(body: web::Json<Value>, fake: web::Data<Fake>) -> HttpResponse {
    let client_id = body["client_id"].as_str().unwrap_or_default().to_string();
    let open = fake.sessions.lock().unwrap().contains_key(&client_id);
    {
        let mut rec = fake.rec.lock().unwrap();
        rec.prompts.push(body.0.clone());
        rec.socket_open_at_queue.push(open);
    }
    if let Some(missing) = missing_model(&body["prompt"], &fake) {
        return HttpResponse::BadRequest().json(json!({
            "error": {"type": "prompt_outputs_failed_validation", "message": "Prompt outputs failed validation", "details": "", "extra_info": {}},
            "node_errors": {"1": {"errors": [{"type": "value_not_in_list", "message": "Value not in list",
                "details": format!("{missing} not in list"), "extra_info": {}}],
                "dependent_outputs": ["9"], "class_type": "LoraLoader"}}
        }));
    }
    if fake.script == Script::Reject {
        return HttpResponse::BadRequest().json(json!({
            "error": {"type": "prompt_outputs_failed_validation", "message": "Prompt outputs failed validation", "details": "", "extra_info": {}},
            "node_errors": {"4": {"errors": [{"type": "value_not_in_list", "message": "Value not in list",
                "details": "ckpt_name: 'missing.safetensors' not in ['sd_xl_base_1.0.safetensors']", "extra_info": {}}],
                "dependent_outputs": ["9"], "class_type": "CheckpointLoaderSimple"}}
        }));
    }
    let prompt_id = format!("prompt-{}", fake.rec.lock().unwrap().prompts.len());
    actix_web::rt::spawn(run_script(
        fake.clone(),
        client_id,
        prompt_id.clone(),
        body["prompt"].clone(),
    ));
    HttpResponse::Ok().json(json!({"prompt_id": prompt_id, "number": 1, "node_errors": {}}))
}

/// A loader's file that is not in the models folder, as ComfyUI lists them.
fn missing_model(workflow: &Value, fake: &Fake) -> Option<String> {
    let dir = fake.models_dir.lock().unwrap().clone()?;
    for node in workflow.as_object()?.values() {
        let (sub, field) = match node["class_type"].as_str()? {
            "CheckpointLoaderSimple" => ("checkpoints", "ckpt_name"),
            "LoraLoader" => ("loras", "lora_name"),
            _ => continue,
        };
        let name = node["inputs"][field].as_str().unwrap_or_default();
        if !dir.join(sub).join(name).is_file() {
            return Some(format!("{field}: '{name}'"));
        }
    }
    None
}

async fn history(path: web::Path<String>, fake: web::Data<Fake>) -> HttpResponse {
    let id = path.into_inner();
    match fake.history.lock().unwrap().get(&id) {
        Some(entry) => HttpResponse::Ok().json(json!({ id: entry })),
        None => HttpResponse::Ok().json(json!({})),
    }
}

async fn view(q: web::Query<HashMap<String, String>>, fake: web::Data<Fake>) -> HttpResponse {
    fake.rec.lock().unwrap().views.push(q.0.clone());
    match fake
        .files
        .lock()
        .unwrap()
        .get(q.get("filename").map(String::as_str).unwrap_or(""))
    {
        Some(bytes) => HttpResponse::Ok()
            .content_type("image/png")
            .body(bytes.clone()),
        None => HttpResponse::NotFound().finish(),
    }
}

async fn interrupt(body: web::Bytes, fake: web::Data<Fake>) -> HttpResponse {
    let v = serde_json::from_slice(&body).unwrap_or(Value::Null);
    fake.rec.lock().unwrap().interrupts.push(v);
    HttpResponse::Ok().finish()
}

async fn queue(body: web::Json<Value>, fake: web::Data<Fake>) -> HttpResponse {
    fake.rec.lock().unwrap().queue_ops.push(body.0);
    HttpResponse::Ok().finish()
}

/// Starts a fake ComfyUI on a free port in its own thread.
fn start(script: Script) -> (String, web::Data<Fake>) {
    let fake = web::Data::new(Fake {
        script,
        rec: Mutex::default(),
        sessions: Mutex::default(),
        files: Mutex::default(),
        history: Mutex::default(),
        models_dir: Mutex::default(),
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
                    .route("/queue", web::post().to(queue))
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

#[derive(Default)]
struct Recorder(Mutex<Vec<u8>>);
impl Progress for Recorder {
    fn report(&self, percent: u8) {
        self.0.lock().unwrap().push(percent);
    }
}
impl Recorder {
    fn seen(&self) -> Vec<u8> {
        self.0.lock().unwrap().clone()
    }
}

fn job(action: Action) -> JobSpec {
    JobSpec {
        task_id: "task-42".into(),
        attempt: 1,
        action,
        family: "sdxl".into(),
        model: "sdxl_base".into(),
        loras: vec![],
        prompt: "a lighthouse at dusk".into(),
        negative_prompt: "low quality".into(),
        width: 96,
        height: 64,
        n_iter: 2,
        steps: 28,
        cfg_scale: 6.5,
        seed: 777,
        sampler: "DPM++ 2M Karras".into(),
        denoising_strength: 0.35,
        inputs: vec![],
        upscale_ratio: 2.0,
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

/// An adapter with a short deadline, so a broken test fails instead of
/// waiting the default half hour.
fn engine(url: &str) -> ComfyUi {
    ComfyUi::new(url, Some("sd_xl_base_1.0.safetensors".into()))
        .unwrap()
        .with_timeout(Duration::from_secs(20))
}

async fn run(
    e: &ComfyUi,
    job: &JobSpec,
    inputs: Vec<LoadedInput>,
) -> (
    Result<easel_engines::EngineResult, EngineError>,
    Arc<Recorder>,
) {
    let rec = Arc::new(Recorder::default());
    let r = e.run(job, inputs, rec.clone(), Cancel::new()).await;
    (r, rec)
}

// ---------------------------------------------------------------- tests

#[tokio::test]
async fn text_to_image_sends_the_job_and_returns_the_servers_images() {
    let (url, fake) = start(Script::Succeed { steps: 5 });
    let mut j = job(Action::TextToImage);
    j.loras = vec![
        LoraSpec {
            model: "watercolor.safetensors".into(),
            weight: 0.7,
            file: None,
        },
        LoraSpec {
            model: "film_grain".into(),
            weight: 0.3,
            file: None,
        },
    ];
    let (result, progress) = run(&engine(&url), &j, vec![]).await;
    let result = result.unwrap();

    // What was sent.
    let rec = fake.rec.lock().unwrap();
    assert_eq!(rec.prompts.len(), 1);
    assert_eq!(
        rec.socket_open_at_queue,
        vec![true],
        "socket must be open before queueing"
    );
    let body = &rec.prompts[0];
    let w = &body["prompt"];
    assert!(!body["client_id"].as_str().unwrap().is_empty());
    let k = &class(w, "KSampler").unwrap()["inputs"];
    assert_eq!(k["seed"], 777);
    assert_eq!(k["steps"], 28);
    assert_eq!(k["cfg"], 6.5);
    assert_eq!(k["sampler_name"], "dpmpp_2m");
    assert_eq!(k["scheduler"], "karras");
    assert_eq!(k["denoise"], 1.0);
    let latent = &class(w, "EmptyLatentImage").unwrap()["inputs"];
    assert_eq!(
        (
            latent["width"].as_u64(),
            latent["height"].as_u64(),
            latent["batch_size"].as_u64()
        ),
        (Some(96), Some(64), Some(2))
    );
    let texts: Vec<&str> = w
        .as_object()
        .unwrap()
        .values()
        .filter(|n| n["class_type"] == "CLIPTextEncode")
        .map(|n| n["inputs"]["text"].as_str().unwrap())
        .collect();
    assert!(
        texts.contains(&"a lighthouse at dusk") && texts.contains(&"low quality"),
        "{texts:?}"
    );
    // The positive prompt feeds the sampler's positive input.
    let pos_id = k["positive"][0].as_str().unwrap();
    assert_eq!(w[pos_id]["inputs"]["text"], "a lighthouse at dusk");
    assert_eq!(
        class(w, "CheckpointLoaderSimple").unwrap()["inputs"]["ckpt_name"],
        "sd_xl_base_1.0.safetensors"
    );
    // Two chained LoRAs, the sampler's model coming from the last one.
    let loras: HashMap<&str, &Value> = w
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, n)| n["class_type"] == "LoraLoader")
        .map(|(id, n)| (id.as_str(), n))
        .collect();
    assert_eq!(loras.len(), 2);
    let last = loras[k["model"][0].as_str().unwrap()];
    assert_eq!(last["inputs"]["lora_name"], "film_grain.safetensors");
    assert_eq!(last["inputs"]["strength_model"], 0.3);
    let first = loras[last["inputs"]["model"][0].as_str().unwrap()];
    assert_eq!(first["inputs"]["lora_name"], "watercolor.safetensors");
    assert_eq!(first["inputs"]["strength_clip"], 0.7);
    assert_eq!(first["inputs"]["model"], json!(["4", 0]));

    // What came back: the fake's PNGs, byte for byte, at the workflow's size.
    assert_eq!(result.outputs.len(), 2);
    let files = fake.files.lock().unwrap();
    for (i, out) in result.outputs.iter().enumerate() {
        assert_eq!((out.width, out.height), (96, 64));
        assert_eq!((out.mime.as_str(), out.ext.as_str()), ("image/png", "png"));
        assert_eq!(out.seed, 777 + i as u64);
        assert_eq!(&out.bytes, &files[&format!("easel_{i:05}_.png")]);
    }
    assert_eq!(rec.views.len(), 2);
    assert_eq!(rec.views[0]["type"], "output");
    assert_eq!(result.engine.name, "comfyui");
    assert!(result.engine.neural);

    // Progress: monotone, moved through the sampler steps, ends at 100.
    let seen = progress.seen();
    assert!(seen.windows(2).all(|p| p[0] <= p[1]), "{seen:?}");
    assert_eq!(seen.first(), Some(&0));
    assert_eq!(seen.last(), Some(&100));
    assert!(
        seen.iter().filter(|p| (1..100).contains(*p)).count() >= 4,
        "{seen:?}"
    );
    assert!(seen.iter().filter(|p| **p == 100).count() == 1 && !seen.contains(&101));
}

#[tokio::test]
async fn image_to_image_uploads_the_inputs_and_wires_the_mask() {
    let (url, fake) = start(Script::Succeed { steps: 2 });
    let init = png(40, 30, 200);
    let mut mask_img = RgbaImage::from_pixel(40, 30, Rgba([0, 0, 0, 255]));
    mask_img.put_pixel(5, 5, Rgba([0, 0, 0, 0]));
    let mut mask = Cursor::new(Vec::new());
    DynamicImage::ImageRgba8(mask_img)
        .write_to(&mut mask, ImageFormat::Png)
        .unwrap();
    let mut j = job(Action::ImageToImage);
    j.n_iter = 3;
    let inputs = vec![
        LoadedInput {
            role: InputRole::Init,
            bytes: init.clone(),
        },
        LoadedInput {
            role: InputRole::Mask,
            bytes: mask.into_inner(),
        },
    ];
    let (result, _) = run(&engine(&url), &j, inputs).await;
    let result = result.unwrap();

    let rec = fake.rec.lock().unwrap();
    assert_eq!(rec.uploads.len(), 2);
    let (init_name, init_bytes, overwrite) = &rec.uploads[0];
    assert_eq!(init_bytes, &init, "the init image arrives unchanged");
    assert_eq!(overwrite, "true");
    let (mask_name, mask_bytes, _) = &rec.uploads[1];
    assert_ne!(init_name, mask_name);
    let decoded = image::load_from_memory(mask_bytes).unwrap().to_rgba8();
    assert_eq!(
        decoded.get_pixel(5, 5).0[3],
        0,
        "the mask keeps its transparency"
    );

    let w = &rec.prompts[0]["prompt"];
    let loads: Vec<&str> = w
        .as_object()
        .unwrap()
        .values()
        .filter(|n| n["class_type"] == "LoadImage")
        .map(|n| n["inputs"]["image"].as_str().unwrap())
        .collect();
    assert!(
        loads.contains(&format!("in/{init_name}").as_str()),
        "{loads:?}"
    );
    assert!(
        loads.contains(&format!("in/{mask_name}").as_str()),
        "{loads:?}"
    );
    let noise_mask = class(w, "SetLatentNoiseMask").unwrap();
    let mask_loader = &w[noise_mask["inputs"]["mask"][0].as_str().unwrap()];
    assert_eq!(mask_loader["inputs"]["image"], format!("in/{mask_name}"));
    assert_eq!(
        noise_mask["inputs"]["mask"][1], 1,
        "the mask output of LoadImage"
    );
    assert_eq!(class(w, "KSampler").unwrap()["inputs"]["denoise"], 0.35);
    assert_eq!(
        class(w, "RepeatLatentBatch").unwrap()["inputs"]["amount"],
        3
    );
    let scale = &class(w, "ImageScale").unwrap()["inputs"];
    assert_eq!(
        (scale["width"].as_u64(), scale["height"].as_u64()),
        (Some(96), Some(64))
    );

    assert_eq!(result.outputs.len(), 3);
    assert!(result
        .outputs
        .iter()
        .all(|o| (o.width, o.height) == (96, 64)));
}

#[tokio::test]
async fn upscale_needs_no_checkpoint_and_scales_with_lanczos() {
    let (url, fake) = start(Script::Succeed { steps: 1 });
    let mut j = job(Action::ExtraUpscale);
    j.width = 80;
    j.height = 60;
    let e = ComfyUi::new(&url, None)
        .unwrap()
        .with_timeout(Duration::from_secs(20));
    let (result, _) = run(
        &e,
        &j,
        vec![LoadedInput {
            role: InputRole::Init,
            bytes: png(40, 30, 9),
        }],
    )
    .await;
    let result = result.unwrap();
    let rec = fake.rec.lock().unwrap();
    let w = &rec.prompts[0]["prompt"];
    assert!(class(w, "CheckpointLoaderSimple").is_none());
    let s = &class(w, "ImageScale").unwrap()["inputs"];
    assert_eq!(
        (
            s["width"].as_u64(),
            s["height"].as_u64(),
            s["upscale_method"].as_str()
        ),
        (Some(80), Some(60), Some("lanczos"))
    );
    assert_eq!(result.outputs.len(), 1);
    assert_eq!(
        (result.outputs[0].width, result.outputs[0].height),
        (80, 60)
    );
}

#[tokio::test]
async fn expansion_pads_the_source_to_the_canvas() {
    let (url, fake) = start(Script::Succeed { steps: 1 });
    let mut j = job(Action::Expansion);
    j.width = 128;
    j.height = 96;
    j.left_margin = 24;
    j.up_margin = 16;
    let (result, _) = run(
        &engine(&url),
        &j,
        vec![LoadedInput {
            role: InputRole::Init,
            bytes: png(64, 48, 3),
        }],
    )
    .await;
    let result = result.unwrap();
    assert_eq!(result.outputs.len(), 2);
    assert!(result
        .outputs
        .iter()
        .all(|o| (o.width, o.height) == (128, 96)));
    let rec = fake.rec.lock().unwrap();
    let w = &rec.prompts[0]["prompt"];
    let pad = &class(w, "ImagePadForOutpaint").unwrap()["inputs"];
    assert_eq!(
        [&pad["left"], &pad["top"], &pad["right"], &pad["bottom"]].map(|v| v.as_u64().unwrap()),
        [24, 16, 128 - 24 - 64, 96 - 16 - 48]
    );
    let enc = &class(w, "VAEEncodeForInpaint").unwrap()["inputs"];
    assert_eq!(
        enc["mask"][1], 1,
        "the pad node's mask marks the new border"
    );
}

#[tokio::test]
async fn an_execution_error_fails_the_job_with_its_message() {
    let (url, _fake) = start(Script::Error);
    let (result, _) = run(&engine(&url), &job(Action::TextToImage), vec![]).await;
    let err = result.unwrap_err();
    assert!(matches!(err, EngineError::Failed(_)), "{err:?}");
    assert!(!err.retryable());
    let msg = err.to_string();
    assert!(
        msg.contains("CUDA out of memory") && msg.contains("KSampler"),
        "{msg}"
    );
}

#[tokio::test]
async fn a_rejected_workflow_fails_with_the_node_errors() {
    let (url, _fake) = start(Script::Reject);
    let (result, _) = run(&engine(&url), &job(Action::TextToImage), vec![]).await;
    let err = result.unwrap_err();
    assert!(matches!(err, EngineError::Failed(_)), "{err:?}");
    let msg = err.to_string();
    assert!(
        msg.contains("Prompt outputs failed validation") && msg.contains("ckpt_name"),
        "{msg}"
    );
}

#[tokio::test]
async fn a_server_that_is_down_is_unavailable() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let e = engine(&format!("http://127.0.0.1:{port}"));
    let (result, _) = run(&e, &job(Action::TextToImage), vec![]).await;
    let err = result.unwrap_err();
    assert!(
        matches!(err, EngineError::Unavailable(_)) && err.retryable(),
        "{err:?}"
    );
    // The upload is the first call for image-to-image.
    let (result, _) = run(
        &e,
        &job(Action::ImageToImage),
        vec![LoadedInput {
            role: InputRole::Init,
            bytes: png(8, 8, 0),
        }],
    )
    .await;
    assert!(result.unwrap_err().retryable());
}

#[tokio::test]
async fn a_dropped_socket_is_unavailable() {
    let (url, _fake) = start(Script::Drop);
    let (result, _) = run(&engine(&url), &job(Action::TextToImage), vec![]).await;
    let err = result.unwrap_err();
    assert!(err.retryable(), "{err:?}");
}

#[tokio::test]
async fn cancelling_interrupts_the_prompt() {
    let (url, fake) = start(Script::Hang);
    let e = engine(&url);
    let j = job(Action::TextToImage);
    let cancel = Cancel::new();
    let rec = Arc::new(Recorder::default());
    let running = {
        let cancel = cancel.clone();
        let rec = rec.clone();
        async move { e.run(&j, vec![], rec, cancel).await }
    };
    let watcher = async {
        // Cancel once the sampler has been seen working.
        while !rec.seen().iter().any(|p| *p > 0) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        cancel.cancel();
    };
    let (result, ()) = tokio::time::timeout(Duration::from_secs(10), async {
        tokio::join!(running, watcher)
    })
    .await
    .unwrap();
    assert!(matches!(result, Err(EngineError::Cancelled)), "{result:?}");
    let r = fake.rec.lock().unwrap();
    assert_eq!(r.interrupts, vec![json!({"prompt_id": "prompt-1"})]);
    assert_eq!(r.queue_ops, vec![json!({"delete": ["prompt-1"]})]);
}

#[tokio::test]
async fn a_prompt_past_its_deadline_is_abandoned_as_unavailable() {
    let (url, fake) = start(Script::Hang);
    let e = engine(&url).with_timeout(Duration::from_millis(700));
    let (result, _) = run(&e, &job(Action::TextToImage), vec![]).await;
    let err = result.unwrap_err();
    assert!(matches!(err, EngineError::Unavailable(_)), "{err:?}");
    assert_eq!(fake.rec.lock().unwrap().interrupts.len(), 1);
}

#[tokio::test]
async fn a_job_without_a_checkpoint_is_refused_before_anything_is_sent() {
    let (url, fake) = start(Script::Succeed { steps: 1 });
    let e = ComfyUi::new(&url, None)
        .unwrap()
        .with_timeout(Duration::from_secs(20));
    let (result, _) = run(&e, &job(Action::TextToImage), vec![]).await;
    let err = result.unwrap_err();
    assert!(
        matches!(err, EngineError::BadInput(ref m) if m.contains("checkpoint")),
        "{err:?}"
    );
    assert!(fake.rec.lock().unwrap().prompts.is_empty());

    // A job whose model is a checkpoint file needs no setting.
    let mut j = job(Action::TextToImage);
    j.model = "juggernautXL_v9.safetensors".into();
    let (result, _) = run(&e, &j, vec![]).await;
    assert!(result.is_ok());
    let rec = fake.rec.lock().unwrap();
    assert_eq!(
        class(&rec.prompts[0]["prompt"], "CheckpointLoaderSimple").unwrap()["inputs"]["ckpt_name"],
        "juggernautXL_v9.safetensors"
    );
}

#[test]
fn configuration_is_checked_and_described() {
    assert!(ComfyUi::new("https://comfy.example", None).is_err());
    assert!(ComfyUi::new("ftp://comfy", None).is_err());
    assert!(ComfyUi::new("nonsense", None).is_err());
    let e = ComfyUi::new("http://10.1.2.3:8188", None).unwrap();
    assert_eq!(e.info().label, "ComfyUI at 10.1.2.3:8188");
    assert_eq!(e.info().name, "comfyui");
    for a in [
        Action::TextToImage,
        Action::ImageToImage,
        Action::Variation,
        Action::Upscale,
        Action::ExtraUpscale,
        Action::Expansion,
        Action::ConditionToImage,
    ] {
        assert!(e.supports(a, "flux"), "{a:?}");
    }
    for a in [
        Action::FaceSwap,
        Action::Animation,
        Action::Descriptors,
        Action::RemoveBackground,
    ] {
        assert!(!e.supports(a, "sdxl"), "{a:?}");
    }
}

// ---------------------------------------------------------------- users' models

/// A verified file in a worker's model cache, as the worker hands it over.
fn cached(dir: &std::path::Path, name: &str, bytes: &[u8]) -> ModelFileRef {
    let path = dir.join(format!("{name}.cached"));
    std::fs::write(&path, bytes).unwrap();
    ModelFileRef {
        key: format!("m/u/{name}"),
        sha256: "0".repeat(64),
        size: bytes.len() as u64,
        name: name.into(),
        local_path: Some(path),
    }
}

#[tokio::test]
async fn users_models_are_placed_in_the_shared_models_folder_and_named() {
    let (url, fake) = start(Script::Succeed { steps: 1 });
    let tmp = tempfile::tempdir().unwrap();
    let models = tmp.path().join("models");
    let cache = tmp.path().join("cache");
    std::fs::create_dir_all(models.join("loras")).unwrap();
    std::fs::create_dir_all(&cache).unwrap();
    // An operator's LoRA, already there.
    std::fs::write(models.join("loras/film_grain.safetensors"), b"operator").unwrap();
    *fake.models_dir.lock().unwrap() = Some(models.clone());

    let mut j = job(Action::TextToImage);
    j.model = "v-checkpoint".into();
    j.model_file = Some(cached(
        &cache,
        "easel-aaaa-mine.safetensors",
        b"checkpoint weights",
    ));
    j.loras = vec![
        LoraSpec {
            model: "v-ink".into(),
            weight: 0.6,
            file: Some(cached(
                &cache,
                "easel-bbbb-ink.safetensors",
                b"lora weights",
            )),
        },
        LoraSpec {
            model: "film_grain".into(),
            weight: 0.3,
            file: None,
        },
    ];
    j.embeddings = vec![cached(&cache, "easel-cccc-neg.safetensors", b"embedding")];
    let e = engine(&url).with_models_dir(&models);
    let (result, _) = run(&e, &j, vec![]).await;
    result.unwrap();

    for (sub, name, bytes) in [
        (
            "checkpoints",
            "easel-aaaa-mine.safetensors",
            &b"checkpoint weights"[..],
        ),
        ("loras", "easel-bbbb-ink.safetensors", &b"lora weights"[..]),
        (
            "embeddings",
            "easel-cccc-neg.safetensors",
            &b"embedding"[..],
        ),
    ] {
        assert_eq!(
            std::fs::read(models.join(sub).join(name)).unwrap(),
            bytes,
            "{sub}/{name}"
        );
    }
    {
        let rec = fake.rec.lock().unwrap();
        let w = &rec.prompts[0]["prompt"];
        assert_eq!(
            class(w, "CheckpointLoaderSimple").unwrap()["inputs"]["ckpt_name"],
            "easel-aaaa-mine.safetensors"
        );
        let names: Vec<&str> = w
            .as_object()
            .unwrap()
            .values()
            .filter(|n| n["class_type"] == "LoraLoader")
            .map(|n| n["inputs"]["lora_name"].as_str().unwrap())
            .collect();
        assert_eq!(names.len(), 2);
        assert!(names.contains(&"easel-bbbb-ink.safetensors"), "{names:?}");
        assert!(names.contains(&"film_grain.safetensors"), "{names:?}");
        let k = &class(w, "KSampler").unwrap()["inputs"];
        let pos = k["positive"][0].as_str().unwrap();
        assert_eq!(
            w[pos]["inputs"]["text"],
            "a lighthouse at dusk, embedding:easel-cccc-neg.safetensors"
        );
    }
    // A second job reuses the placed files and leaves no partial files.
    let (again, _) = run(&e, &j, vec![]).await;
    again.unwrap();
    let leftovers: Vec<String> = ["checkpoints", "loras", "embeddings"]
        .iter()
        .flat_map(|s| std::fs::read_dir(models.join(s)).unwrap())
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".part-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    // A LoRA that is not in the folder is refused by the server, as ComfyUI does.
    let mut gone = j.clone();
    gone.loras[1].model = "not_there".into();
    let (r, _) = run(&e, &gone, vec![]).await;
    assert!(
        matches!(r, Err(EngineError::Failed(ref m)) if m.contains("not_there")),
        "{r:?}"
    );
}

#[tokio::test]
async fn users_models_without_a_shared_folder_fail_before_anything_is_sent() {
    let (url, fake) = start(Script::Succeed { steps: 1 });
    let tmp = tempfile::tempdir().unwrap();
    let mut j = job(Action::TextToImage);
    j.loras = vec![LoraSpec {
        model: "v-ink".into(),
        weight: 0.6,
        file: Some(cached(tmp.path(), "easel-bbbb-ink.safetensors", b"lora")),
    }];
    let (r, _) = run(&engine(&url), &j, vec![]).await;
    match r {
        Err(EngineError::BadInput(m)) => assert!(m.contains("EASEL_COMFYUI_MODELS_DIR"), "{m}"),
        other => panic!("{other:?}"),
    }
    assert!(fake.rec.lock().unwrap().prompts.is_empty());
}
