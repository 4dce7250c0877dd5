//! The actix floor of the benchmark: actix-web + actix-ws (the stack Easel
//! is built on) with no business logic, speaking the minimal bench frames
//! (bench/README.md): auth 7 -> 4, heartbeat 4 -> 4, join 16, channel
//! fan-out (frame 12) from `POST /api/v1/im/message/send`, progress fan-out
//! (frame 10) from `POST /prompt`.
//!
//! Every fan-out frame is serialised once into a `ByteString` (reference
//! counted) that all recipients share.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
use actix_ws::{Message, Session};
use serde::Deserialize;
use serde_json::{json, Value};

/// Largest frame accepted.
const MAX_FRAME: usize = 64 * 1024;

#[derive(Default)]
struct State {
    /// Sockets by the token they authenticated with (the progress client id).
    clients: Mutex<HashMap<String, Vec<(u64, Session)>>>,
    /// Channel members; copied on join/leave and shared by every fan-out,
    /// so a send clones one `Arc` and the lock is never held across an await.
    channels: Mutex<HashMap<String, Channel>>,
    next_conn: AtomicU64,
    next_prompt: AtomicU64,
}

#[derive(Default, Clone)]
struct Channel {
    seq: u64,
    members: Arc<Vec<(u64, Session)>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

#[derive(Deserialize)]
struct ClientFrame {
    #[serde(rename = "type")]
    kind: u16,
    #[serde(default)]
    token: Option<String>,
    #[serde(default)]
    content: Value,
}

#[derive(Deserialize)]
struct SendBody {
    channel_id: String,
    #[serde(default)]
    content: Value,
}

#[derive(Deserialize)]
struct PromptBody {
    client_id: String,
    #[serde(default = "one")]
    updates: u64,
    #[serde(default = "ten")]
    rate: f64,
}

fn one() -> u64 {
    1
}
fn ten() -> f64 {
    10.0
}

const HEARTBEAT: &str = r#"{"type":4}"#;

async fn ws(
    req: HttpRequest,
    body: web::Payload,
    state: web::Data<State>,
) -> actix_web::Result<HttpResponse> {
    let (res, mut session, stream) = actix_ws::handle(&req, body)?;
    let mut stream = stream.max_frame_size(MAX_FRAME);
    let state = state.into_inner();
    actix_web::rt::spawn(async move {
        let id = state.next_conn.fetch_add(1, Ordering::Relaxed);
        let mut token: Option<String> = None;
        let mut joined: Vec<String> = Vec::new();
        while let Some(Ok(msg)) = stream.recv().await {
            let text = match msg {
                Message::Text(t) => t,
                Message::Ping(p) => {
                    if session.pong(&p).await.is_err() {
                        break;
                    }
                    continue;
                }
                Message::Close(_) => break,
                _ => continue,
            };
            let Ok(frame) = serde_json::from_str::<ClientFrame>(&text) else {
                break;
            };
            match (frame.kind, &token) {
                (7, None) => {
                    let Some(t) = frame.token.filter(|t| !t.is_empty()) else {
                        break;
                    };
                    lock(&state.clients)
                        .entry(t.clone())
                        .or_default()
                        .push((id, session.clone()));
                    token = Some(t);
                    if session.text(HEARTBEAT).await.is_err() {
                        break;
                    }
                }
                (4, Some(_)) => {
                    if session.text(HEARTBEAT).await.is_err() {
                        break;
                    }
                }
                (16, Some(_)) => {
                    let Some(ch) = frame.content.get("channel_id").and_then(Value::as_str) else {
                        break;
                    };
                    let mut chans = lock(&state.channels);
                    let c = chans.entry(ch.to_owned()).or_default();
                    let mut m = (*c.members).clone();
                    m.push((id, session.clone()));
                    c.members = Arc::new(m);
                    joined.push(ch.to_owned());
                }
                _ => break,
            }
        }
        if let Some(t) = token {
            let mut clients = lock(&state.clients);
            if let Some(v) = clients.get_mut(&t) {
                v.retain(|(c, _)| *c != id);
                if v.is_empty() {
                    clients.remove(&t);
                }
            }
        }
        {
            let mut chans = lock(&state.channels);
            for ch in joined {
                if let Some(c) = chans.get_mut(&ch) {
                    let m: Vec<_> = c
                        .members
                        .iter()
                        .filter(|(c, _)| *c != id)
                        .cloned()
                        .collect();
                    c.members = Arc::new(m);
                }
            }
        }
        let _ = session.close(None).await;
    });
    Ok(res)
}

fn envelope(data: Value) -> HttpResponse {
    HttpResponse::Ok()
        .json(json!({"status": {"code": 10000, "msg": "ok", "key": null}, "data": data}))
}

fn refuse(msg: &str) -> HttpResponse {
    HttpResponse::BadRequest()
        .json(json!({"status": {"code": 10001, "msg": msg, "key": null}, "data": null}))
}

async fn send(req: HttpRequest, body: web::Bytes, state: web::Data<State>) -> HttpResponse {
    let Some(token) = req
        .headers()
        .get("token")
        .and_then(|v| v.to_str().ok())
        .filter(|t| !t.is_empty())
    else {
        return HttpResponse::Unauthorized().json(
            json!({"status": {"code": 10401, "msg": "no token", "key": null}, "data": null}),
        );
    };
    let Ok(b) = serde_json::from_slice::<SendBody>(&body) else {
        return refuse("bad body");
    };
    let (seq, members) = {
        let mut chans = lock(&state.channels);
        let c = chans.entry(b.channel_id.clone()).or_default();
        c.seq += 1;
        (c.seq, c.members.clone())
    };
    let frame = json!({"type": 12, "content": {"channel_id": b.channel_id, "seq": seq,
                                              "sender": token, "content": b.content}});
    let text = bytestring::ByteString::from(frame.to_string());
    for (_, s) in members.iter() {
        let _ = s.clone().text(text.clone()).await;
    }
    envelope(json!({"seq": seq}))
}

async fn prompt(body: web::Bytes, state: web::Data<State>) -> HttpResponse {
    let Ok(b) = serde_json::from_slice::<PromptBody>(&body) else {
        return refuse("bad body");
    };
    if !(b.rate.is_finite() && b.rate > 0.0) {
        return refuse("rate must be positive");
    }
    let id = format!("p{}", state.next_prompt.fetch_add(1, Ordering::Relaxed));
    let state = state.into_inner();
    let pid = id.clone();
    actix_web::rt::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_secs_f64(1.0 / b.rate));
        for k in 1..=b.updates {
            tick.tick().await;
            let frame =
                json!({"type": 10, "content": {"id": pid, "progress": k, "max": b.updates}});
            let text = bytestring::ByteString::from(frame.to_string());
            let sessions: Vec<Session> = lock(&state.clients)
                .get(&b.client_id)
                .map(|v| v.iter().map(|(_, s)| s.clone()).collect())
                .unwrap_or_default();
            for mut s in sessions {
                let _ = s.text(text.clone()).await;
            }
        }
    });
    envelope(json!({"id": id}))
}

#[actix_web::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::var("BENCH_ADDR").unwrap_or_else(|_| "127.0.0.1:8091".into());
    let state = web::Data::new(State::default());
    // One worker: the server is pinned to one core, like Easel in the bench.
    let workers = std::env::var("BENCH_WORKERS")
        .ok()
        .and_then(|w| w.parse().ok())
        .unwrap_or(1);
    let server = HttpServer::new(move || {
        App::new()
            .app_data(state.clone())
            .app_data(web::PayloadConfig::new(MAX_FRAME))
            .route("/ws", web::get().to(ws))
            .route("/api/v1/im/message/send", web::post().to(send))
            .route("/prompt", web::post().to(prompt))
    })
    .workers(workers)
    .bind(&addr)?;
    eprintln!("bare-actix listening on {:?}", server.addrs());
    server.run().await
}
