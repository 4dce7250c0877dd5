//! The fake ComfyUI the image adapter's tests run against: an actix-web
//! server that speaks ComfyUI's documented HTTP routes and WebSocket
//! messages, records what the adapter sends, and answers with real PNGs
//! (a fake that follows the documented API, not a real ComfyUI); plus the
//! image job, the short-deadline adapter and the run helper those tests share.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
use easel_engines::comfyui::ComfyUi;
use easel_engines::{Cancel, Engine, EngineError, LoadedInput};
use protocol::task::{Action, JobSpec};
use serde_json::{json, Value};

use super::{png, Recorder};

/// What the fake does once a prompt is queued.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Script {
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
pub struct Recorded {
    /// (file name, bytes, overwrite field) per upload.
    pub uploads: Vec<(String, Vec<u8>, String)>,
    /// Bodies of POST /prompt.
    pub prompts: Vec<Value>,
    /// Whether the client's socket was open when its prompt arrived.
    pub socket_open_at_queue: Vec<bool>,
    pub interrupts: Vec<Value>,
    pub queue_ops: Vec<Value>,
    pub views: Vec<HashMap<String, String>>,
}

pub struct Fake {
    pub script: Script,
    pub rec: Mutex<Recorded>,
    pub sessions: Mutex<HashMap<String, actix_ws::Session>>,
    /// Saved images by file name.
    pub files: Mutex<HashMap<String, Vec<u8>>>,
    pub history: Mutex<HashMap<String, Value>>,
    /// The server's `models/` folder: when set, a prompt whose loaders name
    /// a file that is not there is refused as ComfyUI refuses it
    /// (`value_not_in_list`).
    pub models_dir: Mutex<Option<std::path::PathBuf>>,
}

pub fn class<'a>(w: &'a Value, class_type: &str) -> Option<&'a Value> {
    w.as_object()
        .unwrap()
        .values()
        .find(|n| n["class_type"] == class_type)
}

/// The size and count a real ComfyUI would produce for the workflow
/// (`source`: the size of the last uploaded image).
pub fn planned(w: &Value, source: (u32, u32)) -> (u32, u32, usize) {
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

pub async fn send(session: &mut actix_ws::Session, v: Value) {
    let _ = session.text(v.to_string()).await;
}

pub async fn run_script(
    fake: web::Data<Fake>,
    client_id: String,
    prompt_id: String,
    workflow: Value,
) {
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

pub async fn ws(
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
pub fn multipart(content_type: &str, body: &[u8]) -> Vec<(String, Option<String>, Vec<u8>)> {
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

pub async fn upload(req: HttpRequest, body: web::Bytes, fake: web::Data<Fake>) -> HttpResponse {
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

pub async fn prompt(body: web::Json<Value>, fake: web::Data<Fake>) -> HttpResponse {
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
pub fn missing_model(workflow: &Value, fake: &Fake) -> Option<String> {
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

pub async fn history(path: web::Path<String>, fake: web::Data<Fake>) -> HttpResponse {
    let id = path.into_inner();
    match fake.history.lock().unwrap().get(&id) {
        Some(entry) => HttpResponse::Ok().json(json!({ id: entry })),
        None => HttpResponse::Ok().json(json!({})),
    }
}

pub async fn view(q: web::Query<HashMap<String, String>>, fake: web::Data<Fake>) -> HttpResponse {
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

pub async fn interrupt(body: web::Bytes, fake: web::Data<Fake>) -> HttpResponse {
    let v = serde_json::from_slice(&body).unwrap_or(Value::Null);
    fake.rec.lock().unwrap().interrupts.push(v);
    HttpResponse::Ok().finish()
}

pub async fn queue(body: web::Json<Value>, fake: web::Data<Fake>) -> HttpResponse {
    fake.rec.lock().unwrap().queue_ops.push(body.0);
    HttpResponse::Ok().finish()
}

/// Starts a fake ComfyUI on a free port in its own thread.
pub fn start(script: Script) -> (String, web::Data<Fake>) {
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

pub fn job(action: Action) -> JobSpec {
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
pub fn engine(url: &str) -> ComfyUi {
    ComfyUi::new(url, Some("sd_xl_base_1.0.safetensors".into()))
        .unwrap()
        .with_timeout(Duration::from_secs(20))
}

pub async fn run(
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
