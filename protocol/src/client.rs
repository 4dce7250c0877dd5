//! The reference client: REST calls that unwrap the envelope, and the
//! WebSocket with both codecs. The integration tests and the load harness
//! drive Easel only through this, so it speaks exactly the public contract.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde::de::DeserializeOwned;
use serde::Serialize;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::Message;

use crate::account::{
    AccountInfo, LoginData, LoginRequest, PaymentInfo, SignUpRequest, TOKEN_HEADER,
};
use crate::frame::{AuthConfirm, Codec, Frame, FrameType, MSGPACK_SUBPROTOCOL};
use crate::{Envelope, Status};

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("http: {0}")]
    Http(#[from] reqwest::Error),
    #[error("api error {} {:?}: {}", .status.code, .status.key, .status.msg)]
    Api { http: u16, status: Status },
    #[error("websocket: {0}")]
    Ws(#[from] tokio_tungstenite::tungstenite::Error),
    #[error("frame: {0}")]
    Frame(#[from] crate::frame::FrameError),
    #[error("timed out waiting for {0}")]
    Timeout(&'static str),
    #[error("socket closed: {0:?}")]
    Closed(Option<(u16, String)>),
    #[error("unexpected: {0}")]
    Unexpected(String),
}

impl ClientError {
    /// The API status of an `Api` error.
    pub fn status(&self) -> Option<&Status> {
        match self {
            ClientError::Api { status, .. } => Some(status),
            _ => None,
        }
    }

    pub fn http_status(&self) -> Option<u16> {
        match self {
            ClientError::Api { http, .. } => Some(*http),
            _ => None,
        }
    }
}

/// The HTTP status, content type and body of a response.
async fn raw_answer(res: reqwest::Response) -> Result<(u16, String, Vec<u8>), ClientError> {
    let status = res.status().as_u16();
    let ct = res
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    Ok((status, ct, res.bytes().await?.to_vec()))
}

/// Sees every JSON answer a client receives: the method (`"post"`), the
/// path (without the query), the HTTP status and the body. The API tests
/// check each answer against its call's declared schema with one.
pub type Observer = std::sync::Arc<dyn Fn(&str, &str, u16, &serde_json::Value) + Send + Sync>;

/// REST client for one server, optionally logged in.
#[derive(Clone)]
pub struct RestClient {
    base: String,
    http: reqwest::Client,
    token: Option<String>,
    /// A visitor's device id, sent as the `deviceId` cookie.
    device: Option<String>,
    observer: Option<Observer>,
}

impl RestClient {
    /// `base` is like `http://127.0.0.1:8080`.
    pub fn new(base: &str) -> RestClient {
        RestClient {
            base: base.trim_end_matches('/').to_owned(),
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(30))
                .build()
                .unwrap_or_default(),
            token: None,
            device: None,
            observer: None,
        }
    }

    /// This client (and those made from it) shows every JSON answer to `f`.
    pub fn observed(self, f: Observer) -> RestClient {
        RestClient {
            observer: Some(f),
            ..self
        }
    }

    /// Shows a JSON answer to the observer, if any.
    fn observe(&self, method: &str, url: &str, http: u16, content_type: &str, body: &[u8]) {
        let Some(f) = &self.observer else { return };
        let Some(path) = url.strip_prefix(&self.base) else {
            return;
        };
        let path = path.split('?').next().unwrap_or(path);
        if !content_type.starts_with("application/json") {
            return;
        }
        if let Ok(v) = serde_json::from_slice::<serde_json::Value>(body) {
            f(method, path, http, &v);
        }
    }

    /// A visitor client known by this device id.
    pub fn with_device(&self, device: impl Into<String>) -> RestClient {
        RestClient {
            device: Some(device.into()),
            token: None,
            ..self.clone()
        }
    }

    fn request(&self, method: reqwest::Method, url: &str) -> reqwest::RequestBuilder {
        let mut req = self.http.request(method, url);
        if let Some(t) = &self.token {
            req = req.header(TOKEN_HEADER, t);
        }
        if let Some(d) = &self.device {
            req = req.header(
                reqwest::header::COOKIE,
                format!("{}={d}", crate::account::DEVICE_COOKIE),
            );
        }
        req
    }

    /// Creates a task through `path` (`/api/v1/task/create` or a v2 call); answers its id.
    pub async fn create_task(
        &self,
        path: &str,
        body: &serde_json::Value,
    ) -> Result<String, ClientError> {
        #[derive(serde::Deserialize)]
        struct Id {
            id: String,
        }
        Ok(self.post::<_, Id>(path, body).await?.id)
    }

    /// `batch-progress`.
    pub async fn batch_progress(
        &self,
        ids: &[String],
    ) -> Result<Vec<crate::task::TaskView>, ClientError> {
        #[derive(serde::Deserialize)]
        struct Items {
            items: Vec<crate::task::TaskView>,
        }
        let body = serde_json::json!({ "task_ids": ids });
        Ok(self
            .post::<_, Items>("/api/v1/task/batch-progress", &body)
            .await?
            .items)
    }

    /// Polls until the task ends (status 3 or 4) or `timeout` passes.
    pub async fn wait_task(
        &self,
        id: &str,
        timeout: Duration,
    ) -> Result<crate::task::TaskView, ClientError> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let items = self.batch_progress(&[id.to_owned()]).await?;
            if let Some(t) = items.into_iter().next() {
                if t.status.is_final() {
                    return Ok(t);
                }
            }
            if tokio::time::Instant::now() > deadline {
                return Err(ClientError::Timeout("task to end"));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Uploads a file through the pre-signed flow (spec 2 §7); answers its URL.
    pub async fn upload(
        &self,
        bytes: &[u8],
        file_name: &str,
        content_type: &str,
    ) -> Result<String, ClientError> {
        #[derive(serde::Deserialize)]
        struct Pre {
            file_id: String,
            pre_signs: Vec<String>,
            chunk_size: u64,
        }
        #[derive(serde::Deserialize)]
        struct Url {
            url: String,
        }
        let pre: Pre = self
            .post(
                "/api/v1/resource/pre-sign/get",
                &serde_json::json!({"file_size": bytes.len(), "file_name": file_name,
                                    "content_type": content_type, "category": 46}),
            )
            .await?;
        let chunk = usize::try_from(pre.chunk_size.max(1)).unwrap_or(usize::MAX);
        for (url, part) in pre.pre_signs.iter().zip(bytes.chunks(chunk)) {
            let res = self
                .http
                .put(url)
                .header(reqwest::header::CONTENT_TYPE, "application/octet-stream")
                .body(part.to_vec())
                .send()
                .await?;
            if !res.status().is_success() {
                return Err(ClientError::Unexpected(format!(
                    "part upload answered {}",
                    res.status()
                )));
            }
            let _: Url = self
                .post(
                    "/api/v1/resource/pre-sign/confirm",
                    &serde_json::json!({"file_id": pre.file_id, "pre_sign_url": url}),
                )
                .await?;
        }
        let done: Url = self
            .post(
                "/api/v1/resource/pre-sign/confirm",
                &serde_json::json!({"file_id": pre.file_id}),
            )
            .await?;
        Ok(done.url)
    }

    /// GETs a path or URL; answers the HTTP status, the content type and the body.
    pub async fn get_bytes(
        &self,
        path_or_url: &str,
    ) -> Result<(u16, String, Vec<u8>), ClientError> {
        let url = if path_or_url.starts_with("http") {
            path_or_url.to_owned()
        } else {
            format!("{}{path_or_url}", self.base)
        };
        let answer = raw_answer(self.request(reqwest::Method::GET, &url).send().await?).await?;
        self.observe("get", &url, answer.0, &answer.1, &answer.2);
        Ok(answer)
    }

    /// POSTs JSON and answers the raw response (downloads).
    pub async fn post_bytes<B: Serialize + ?Sized>(
        &self,
        path: &str,
        body: &B,
    ) -> Result<(u16, String, Vec<u8>), ClientError> {
        let url = format!("{}{path}", self.base);
        let res = self
            .request(reqwest::Method::POST, &url)
            .json(body)
            .send()
            .await?;
        let answer = raw_answer(res).await?;
        self.observe("post", &url, answer.0, &answer.1, &answer.2);
        Ok(answer)
    }

    pub fn with_token(&self, token: impl Into<String>) -> RestClient {
        RestClient {
            token: Some(token.into()),
            ..self.clone()
        }
    }

    pub fn token(&self) -> Option<&str> {
        self.token.as_deref()
    }

    pub fn base(&self) -> &str {
        &self.base
    }

    /// The socket URL of this server.
    pub fn ws_url(&self) -> String {
        let rest = self.base.strip_prefix("http").unwrap_or(&self.base);
        format!("ws{rest}/ws")
    }

    /// POSTs JSON and returns the HTTP status and the envelope, success or not.
    pub async fn post_raw<B: Serialize + ?Sized, T: DeserializeOwned>(
        &self,
        path: &str,
        body: &B,
    ) -> Result<(u16, Envelope<T>), ClientError> {
        let url = format!("{}{path}", self.base);
        let res = self
            .request(reqwest::Method::POST, &url)
            .json(body)
            .send()
            .await?;
        if self.observer.is_none() {
            let http = res.status().as_u16();
            return Ok((http, res.json().await?));
        }
        let (http, content_type, bytes) = raw_answer(res).await?;
        self.observe("post", &url, http, &content_type, &bytes);
        let env = serde_json::from_slice(&bytes)
            .map_err(|e| ClientError::Unexpected(format!("post {path}: not the envelope: {e}")))?;
        Ok((http, env))
    }

    /// POSTs JSON and returns `data`, or the API error.
    pub async fn post<B: Serialize + ?Sized, T: DeserializeOwned>(
        &self,
        path: &str,
        body: &B,
    ) -> Result<T, ClientError> {
        let (http, env) = self.post_raw::<B, Option<T>>(path, body).await?;
        match (env.status.is_ok(), env.data) {
            (true, Some(data)) => Ok(data),
            (true, None) => serde_json::from_value(serde_json::Value::Null)
                .map_err(|e| ClientError::Unexpected(format!("success without data: {e}"))),
            (false, _) => Err(ClientError::Api {
                http,
                status: env.status,
            }),
        }
    }

    pub async fn sign_up(
        &self,
        email: &str,
        password: &str,
        name: &str,
    ) -> Result<LoginData, ClientError> {
        let body = SignUpRequest {
            email: email.into(),
            password: password.into(),
            name: Some(name.into()),
            invitation_code: None,
            invite_user_code: None,
        };
        self.post("/api/v1/account/sign-up", &body).await
    }

    pub async fn login(&self, email: &str, password: &str) -> Result<LoginData, ClientError> {
        let body = LoginRequest {
            login_type: "email".into(),
            email: email.into(),
            password: password.into(),
            ..Default::default()
        };
        self.post("/api/v1/account/login-in", &body).await
    }

    pub async fn logout(&self) -> Result<(), ClientError> {
        self.post::<_, serde_json::Value>("/api/v1/account/logout", &serde_json::json!({}))
            .await
            .map(|_| ())
    }

    pub async fn info(&self) -> Result<AccountInfo, ClientError> {
        self.post("/api/v1/account/info", &serde_json::json!({}))
            .await
    }

    pub async fn payment_info(&self) -> Result<PaymentInfo, ClientError> {
        self.post("/api/v1/account/payment-info", &serde_json::json!({}))
            .await
    }
}

/// What a socket read gives.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    Frame(Frame),
    /// The server closed the socket, with its close code and reason.
    Closed(Option<(u16, String)>),
}

type WsStream =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// One WebSocket to `/ws`.
pub struct Socket {
    ws: WsStream,
    codec: Codec,
    /// Highest pushed `seq` seen, for resume.
    pub last_seq: u64,
    /// The push stream named by the auth confirmation.
    pub stream: Option<String>,
}

impl Socket {
    pub async fn connect(ws_url: &str, codec: Codec) -> Result<Socket, ClientError> {
        Self::connect_with_origin(ws_url, codec, None).await
    }

    pub async fn connect_with_origin(
        ws_url: &str,
        codec: Codec,
        origin: Option<&str>,
    ) -> Result<Socket, ClientError> {
        let mut req = ws_url.into_client_request()?;
        if codec == Codec::MsgPack {
            req.headers_mut().insert(
                "Sec-WebSocket-Protocol",
                HeaderValue::from_static(MSGPACK_SUBPROTOCOL),
            );
        }
        if let Some(o) = origin {
            let v = HeaderValue::from_str(o).map_err(|e| ClientError::Unexpected(e.to_string()))?;
            req.headers_mut().insert("Origin", v);
        }
        let (ws, _res) = tokio_tungstenite::connect_async(req).await?;
        Ok(Socket {
            ws,
            codec,
            last_seq: 0,
            stream: None,
        })
    }

    /// As [`Socket::connect`], but the TCP socket is bound to `local` first,
    /// so a load harness can spread many sockets over several source
    /// addresses (127.0.0.2, 127.0.0.3, ...) instead of running out of
    /// ephemeral ports on one. Plain `ws://` only.
    pub async fn connect_from(
        ws_url: &str,
        codec: Codec,
        local: std::net::IpAddr,
    ) -> Result<Socket, ClientError> {
        let mut req = ws_url.into_client_request()?;
        if codec == Codec::MsgPack {
            req.headers_mut().insert(
                "Sec-WebSocket-Protocol",
                HeaderValue::from_static(MSGPACK_SUBPROTOCOL),
            );
        }
        let host = req
            .uri()
            .host()
            .ok_or_else(|| ClientError::Unexpected(format!("no host in {ws_url}")))?
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_owned();
        let port = req.uri().port_u16().unwrap_or(80);
        let remote = tokio::net::lookup_host((host.as_str(), port))
            .await
            .map_err(tokio_tungstenite::tungstenite::Error::Io)?
            .find(|a| a.is_ipv4() == local.is_ipv4())
            .ok_or_else(|| ClientError::Unexpected(format!("no address for {host}")))?;
        let socket = if local.is_ipv4() {
            tokio::net::TcpSocket::new_v4()
        } else {
            tokio::net::TcpSocket::new_v6()
        }
        .map_err(tokio_tungstenite::tungstenite::Error::Io)?;
        socket
            .bind(std::net::SocketAddr::new(local, 0))
            .map_err(tokio_tungstenite::tungstenite::Error::Io)?;
        let stream = socket
            .connect(remote)
            .await
            .map_err(tokio_tungstenite::tungstenite::Error::Io)?;
        stream
            .set_nodelay(true)
            .map_err(tokio_tungstenite::tungstenite::Error::Io)?;
        let (ws, _res) =
            tokio_tungstenite::client_async(req, tokio_tungstenite::MaybeTlsStream::Plain(stream))
                .await?;
        Ok(Socket {
            ws,
            codec,
            last_seq: 0,
            stream: None,
        })
    }

    pub async fn send(&mut self, frame: &Frame) -> Result<(), ClientError> {
        let bytes = self.codec.encode(frame)?;
        let msg = match self.codec {
            Codec::Json => Message::text(
                String::from_utf8(bytes).map_err(|e| ClientError::Unexpected(e.to_string()))?,
            ),
            Codec::MsgPack => Message::binary(bytes),
        };
        self.ws.send(msg).await?;
        Ok(())
    }

    /// Sends raw bytes as one text or binary message (tests of bad input).
    pub async fn send_raw(&mut self, bytes: Vec<u8>, binary: bool) -> Result<(), ClientError> {
        let msg = if binary {
            Message::binary(bytes)
        } else {
            Message::text(
                String::from_utf8(bytes).map_err(|e| ClientError::Unexpected(e.to_string()))?,
            )
        };
        self.ws.send(msg).await?;
        Ok(())
    }

    /// The next frame or the close; pings and pongs are skipped. Tracks `last_seq`.
    pub async fn recv(&mut self) -> Result<Incoming, ClientError> {
        loop {
            let Some(msg) = self.ws.next().await else {
                return Ok(Incoming::Closed(None));
            };
            let msg = match msg {
                Ok(m) => m,
                Err(tokio_tungstenite::tungstenite::Error::ConnectionClosed)
                | Err(tokio_tungstenite::tungstenite::Error::AlreadyClosed) => {
                    return Ok(Incoming::Closed(None))
                }
                Err(tokio_tungstenite::tungstenite::Error::Protocol(_)) => {
                    return Ok(Incoming::Closed(None))
                }
                Err(e) => return Err(e.into()),
            };
            let frame = match msg {
                Message::Text(t) => Codec::Json.decode(t.as_bytes())?,
                Message::Binary(b) => Codec::MsgPack.decode(&b)?,
                Message::Close(c) => {
                    return Ok(Incoming::Closed(
                        c.map(|c| (u16::from(c.code), c.reason.to_string())),
                    ))
                }
                _ => continue,
            };
            if let Some(seq) = frame.seq {
                self.last_seq = self.last_seq.max(seq);
            }
            return Ok(Incoming::Frame(frame));
        }
    }

    /// As [`Socket::recv`], failing with `Timeout` after `d`.
    pub async fn recv_timeout(&mut self, d: Duration) -> Result<Incoming, ClientError> {
        tokio::time::timeout(d, self.recv())
            .await
            .map_err(|_| ClientError::Timeout("a frame"))?
    }

    /// The next frame of a kind, skipping others; an error if the socket closes.
    pub async fn expect(&mut self, kind: FrameType, d: Duration) -> Result<Frame, ClientError> {
        let deadline = tokio::time::Instant::now() + d;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            match tokio::time::timeout(left, self.recv())
                .await
                .map_err(|_| ClientError::Timeout("an expected frame"))??
            {
                Incoming::Frame(f) if f.kind == kind.as_u16() => return Ok(f),
                Incoming::Frame(_) => continue,
                Incoming::Closed(c) => return Err(ClientError::Closed(c)),
            }
        }
    }

    /// Sends type 7 and waits for the confirming type 4.
    pub async fn authenticate(&mut self, token: &str) -> Result<AuthConfirm, ClientError> {
        self.send(&Frame::auth(token)).await?;
        let f = self
            .expect(FrameType::Heartbeat, Duration::from_secs(10))
            .await?;
        let confirm: AuthConfirm = serde_json::from_value(f.content)
            .map_err(|e| ClientError::Unexpected(format!("auth confirm: {e}")))?;
        self.stream = Some(confirm.stream.clone());
        self.last_seq = self.last_seq.max(confirm.seq);
        Ok(confirm)
    }

    pub async fn close(mut self) -> Result<(), ClientError> {
        self.ws.close(None).await?;
        Ok(())
    }
}
