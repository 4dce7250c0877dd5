//! The benchmark floor: a WebSocket server on tokio + tokio-tungstenite with
//! no business logic, speaking the minimal bench frames (bench/README.md):
//! auth 7 -> 4, heartbeat 4 -> 4, join 16, channel fan-out (frame 12) from
//! `POST /api/v1/im/message/send`, progress fan-out (frame 10) from
//! `POST /prompt`. HTTP is parsed by hand on the same port (the first request
//! of a connection is peeked to tell an upgrade from a plain call) so that no
//! HTTP framework adds cost to the floor.
//!
//! Every fan-out frame is serialised once; recipients share its bytes
//! (`Utf8Bytes` is reference counted).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};

/// Reads are small frames; 4 KiB instead of tungstenite's 128 KiB default
/// keeps an idle session cheap (this is the point of the floor).
const READ_BUFFER: usize = 4 * 1024;
/// Writes are flushed once this much is queued (or when the queue drains).
const WRITE_BUFFER: usize = 4 * 1024;
/// Largest request body or frame accepted.
const MAX_BODY: usize = 64 * 1024;

type Tx = mpsc::UnboundedSender<Message>;

#[derive(Default)]
struct State {
    /// Sockets by the token they authenticated with (the progress client id).
    clients: Mutex<HashMap<String, Vec<(u64, Tx)>>>,
    /// Channel members; the list is copied on join/leave and shared by
    /// every fan-out, so a send clones one `Arc` and never waits on a join.
    channels: Mutex<HashMap<String, Channel>>,
    next_conn: AtomicU64,
    next_prompt: AtomicU64,
}

#[derive(Default, Clone)]
struct Channel {
    seq: u64,
    members: Arc<Vec<(u64, Tx)>>,
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

fn main() -> std::io::Result<()> {
    let addr = std::env::var("BENCH_ADDR").unwrap_or_else(|_| "127.0.0.1:8090".into());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(async move {
        let listener = TcpListener::bind(&addr).await?;
        eprintln!("bare-tungstenite listening on {}", listener.local_addr()?);
        let state = Arc::new(State::default());
        loop {
            tokio::select! {
                accepted = listener.accept() => {
                    let Ok((stream, _)) = accepted else { continue };
                    let _ = stream.set_nodelay(true);
                    tokio::spawn(connection(stream, state.clone()));
                }
                _ = tokio::signal::ctrl_c() => return Ok(()),
            }
        }
    })
}

/// Peeks the first request head: an upgrade to `/ws` becomes a socket,
/// anything else is served as plain HTTP/1.1 with keep-alive.
async fn connection(stream: TcpStream, state: Arc<State>) {
    let mut buf = [0u8; 2048];
    let head = loop {
        let Ok(n) = stream.peek(&mut buf).await else {
            return;
        };
        if n == 0 {
            return;
        }
        let seen = buf.get(..n).unwrap_or_default();
        if seen.windows(4).any(|w| w == b"\r\n\r\n") || n == buf.len() {
            break String::from_utf8_lossy(seen).to_ascii_lowercase();
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    };
    if head.starts_with("get /ws") && head.contains("upgrade: websocket") {
        let config = WebSocketConfig::default()
            .read_buffer_size(READ_BUFFER)
            .write_buffer_size(WRITE_BUFFER)
            .max_message_size(Some(MAX_BODY))
            .max_frame_size(Some(MAX_BODY));
        if let Ok(ws) = tokio_tungstenite::accept_async_with_config(stream, Some(config)).await {
            socket(ws, state).await;
        }
    } else {
        let _ = http(stream, state).await;
    }
}

async fn socket(mut ws: tokio_tungstenite::WebSocketStream<TcpStream>, state: Arc<State>) {
    let id = state.next_conn.fetch_add(1, Ordering::Relaxed);
    let (tx, mut rx) = mpsc::unbounded_channel::<Message>();
    let heartbeat = Message::Text(Utf8Bytes::from_static(r#"{"type":4}"#));
    let mut token: Option<String> = None;
    let mut joined: Vec<String> = Vec::new();
    loop {
        tokio::select! {
            got = ws.next() => {
                let text = match got {
                    Some(Ok(Message::Text(t))) => t,
                    Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                    Some(Ok(_)) => continue,
                };
                let Ok(frame) = serde_json::from_str::<ClientFrame>(text.as_str()) else {
                    break;
                };
                match (frame.kind, &token) {
                    (7, None) => {
                        let Some(t) = frame.token.filter(|t| !t.is_empty()) else { break };
                        lock(&state.clients).entry(t.clone()).or_default().push((id, tx.clone()));
                        token = Some(t);
                        if ws.send(heartbeat.clone()).await.is_err() { break }
                    }
                    (4, Some(_)) => {
                        if ws.send(heartbeat.clone()).await.is_err() { break }
                    }
                    (16, Some(_)) => {
                        let Some(ch) = frame.content.get("channel_id").and_then(Value::as_str) else { break };
                        let mut chans = lock(&state.channels);
                        let c = chans.entry(ch.to_owned()).or_default();
                        let mut m = (*c.members).clone();
                        m.push((id, tx.clone()));
                        c.members = Arc::new(m);
                        joined.push(ch.to_owned());
                    }
                    _ => break,
                }
            }
            out = rx.recv() => {
                let Some(msg) = out else { break };
                if ws.feed(msg).await.is_err() { break }
                // Drain what is queued before one flush.
                while let Ok(more) = rx.try_recv() {
                    if ws.feed(more).await.is_err() { break }
                }
                if ws.flush().await.is_err() { break }
            }
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

/// Plain HTTP/1.1: the two POST calls, keep-alive, Content-Length bodies.
async fn http(stream: TcpStream, state: Arc<State>) -> std::io::Result<()> {
    let mut r = BufReader::new(stream);
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).await? == 0 {
            return Ok(());
        }
        let mut parts = line.split_whitespace();
        let method = parts.next().unwrap_or("").to_owned();
        let path = parts.next().unwrap_or("").to_owned();
        let mut len = 0usize;
        let mut token = String::new();
        let mut close = false;
        loop {
            let mut h = String::new();
            if r.read_line(&mut h).await? == 0 {
                return Ok(());
            }
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                let (k, v) = (k.trim().to_ascii_lowercase(), v.trim());
                match k.as_str() {
                    "content-length" => len = v.parse().unwrap_or(0),
                    "token" => token = v.to_owned(),
                    "connection" => close = v.eq_ignore_ascii_case("close"),
                    _ => {}
                }
            }
        }
        if len > MAX_BODY {
            return Ok(());
        }
        let mut body = vec![0u8; len];
        r.read_exact(&mut body).await?;
        let (status, answer) = route(&state, &method, &path, &token, &body);
        let out = format!(
            "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{answer}",
            answer.len()
        );
        r.get_mut().write_all(out.as_bytes()).await?;
        if close {
            return Ok(());
        }
    }
}

fn envelope(data: Value) -> String {
    json!({"status": {"code": 10000, "msg": "ok", "key": null}, "data": data}).to_string()
}

fn refuse(msg: &str) -> (&'static str, String) {
    (
        "400 Bad Request",
        json!({"status": {"code": 10001, "msg": msg, "key": null}, "data": null}).to_string(),
    )
}

fn route(
    state: &Arc<State>,
    method: &str,
    path: &str,
    token: &str,
    body: &[u8],
) -> (&'static str, String) {
    match (method, path) {
        ("POST", "/api/v1/im/message/send") => {
            if token.is_empty() {
                return ("401 Unauthorized", json!({"status": {"code": 10401, "msg": "no token", "key": null}, "data": null}).to_string());
            }
            let Ok(b) = serde_json::from_slice::<SendBody>(body) else {
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
            let msg = Message::Text(Utf8Bytes::from(frame.to_string()));
            for (_, tx) in members.iter() {
                let _ = tx.send(msg.clone());
            }
            ("200 OK", envelope(json!({"seq": seq})))
        }
        ("POST", "/prompt") => {
            let Ok(b) = serde_json::from_slice::<PromptBody>(body) else {
                return refuse("bad body");
            };
            if !(b.rate.is_finite() && b.rate > 0.0) {
                return refuse("rate must be positive");
            }
            let id = format!("p{}", state.next_prompt.fetch_add(1, Ordering::Relaxed));
            tokio::spawn(push_progress(state.clone(), id.clone(), b));
            ("200 OK", envelope(json!({"id": id})))
        }
        _ => (
            "404 Not Found",
            json!({"status": {"code": 10404, "msg": "not found", "key": null}, "data": null})
                .to_string(),
        ),
    }
}

/// Pushes `updates` frames at `rate` per second to the client's sockets.
async fn push_progress(state: Arc<State>, id: String, b: PromptBody) {
    let mut tick = tokio::time::interval(Duration::from_secs_f64(1.0 / b.rate));
    for k in 1..=b.updates {
        tick.tick().await;
        let frame = json!({"type": 10, "content": {"id": id, "progress": k, "max": b.updates}});
        let msg = Message::Text(Utf8Bytes::from(frame.to_string()));
        let clients = lock(&state.clients);
        for (_, tx) in clients.get(&b.client_id).into_iter().flatten() {
            let _ = tx.send(msg.clone());
        }
    }
}
