//! The OpenAI-compatible adapter against a fake streaming server written
//! here on a raw tokio `TcpListener` (HTTP/1.1, close-delimited SSE body).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::time::Duration;

use easel_llm::{
    complete, ChatMessage, ChatRequest, LanguageModel, LlmError, OpenAiModel, OpenAiSettings,
};
use futures_util::StreamExt;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// What the fake server received.
#[derive(Debug)]
struct Received {
    request_line: String,
    headers: Vec<(String, String)>,
    body: serde_json::Value,
}

impl Received {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

async fn read_request(socket: &mut TcpStream) -> Received {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        let n = socket.read(&mut chunk).await.unwrap();
        assert!(n > 0, "client closed before sending a request");
        buf.extend_from_slice(&chunk[..n]);
        if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break at;
        }
    };
    let head = String::from_utf8(buf[..head_end].to_vec()).unwrap();
    let mut lines = head.split("\r\n");
    let request_line = lines.next().unwrap().to_owned();
    let headers: Vec<(String, String)> = lines
        .map(|l| {
            let (k, v) = l.split_once(':').unwrap();
            (k.trim().to_owned(), v.trim().to_owned())
        })
        .collect();
    let length: usize = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .map(|(_, v)| v.parse().unwrap())
        .unwrap_or(0);
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < length {
        let n = socket.read(&mut chunk).await.unwrap();
        assert!(n > 0);
        body.extend_from_slice(&chunk[..n]);
    }
    Received {
        request_line,
        headers,
        body: serde_json::from_slice(&body).unwrap(),
    }
}

const SSE_HEAD: &str =
    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n";

fn event(content: &str) -> String {
    let chunk = serde_json::json!({
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": {"content": content}, "finish_reason": null}],
    });
    format!("data: {chunk}\n\n")
}

fn model_at(port: u16, key: Option<&str>) -> OpenAiModel {
    OpenAiModel::new(OpenAiSettings {
        url: format!("http://127.0.0.1:{port}/v1/"),
        api_key: key.map(str::to_owned),
        model: "tiny-chat".into(),
        context_tokens: 4096,
        connect_timeout: Duration::from_secs(5),
        read_timeout: Duration::from_secs(30),
    })
    .unwrap()
}

async fn listener() -> (TcpListener, u16) {
    let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = l.local_addr().unwrap().port();
    (l, port)
}

#[tokio::test]
async fn deltas_arrive_in_order_and_done_ends_the_reply() {
    let (listener, port) = listener().await;
    let server = tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let received = read_request(&mut socket).await;
        socket.write_all(SSE_HEAD.as_bytes()).await.unwrap();
        // A role-only first chunk, as OpenAI sends, and a keep-alive comment.
        socket
            .write_all(b"data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\n: ping\n\n")
            .await
            .unwrap();
        // One event split across two writes, in the middle of a line.
        let hel = event("Hel");
        let (a, b) = hel.split_at(10);
        socket.write_all(a.as_bytes()).await.unwrap();
        socket.flush().await.unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
        socket.write_all(b.as_bytes()).await.unwrap();
        // CRLF line endings, and a multi-byte character.
        socket
            .write_all(event("lo").replace('\n', "\r\n").as_bytes())
            .await
            .unwrap();
        socket.write_all(event(" wörld").as_bytes()).await.unwrap();
        socket.write_all(b"data: [DONE]\n\n").await.unwrap();
        // Anything after [DONE] is not part of the reply.
        let _ = socket.write_all(event(" (after done)").as_bytes()).await;
        received
    });

    let model = model_at(port, Some("sk-test"));
    let request = ChatRequest {
        messages: vec![
            ChatMessage::system("You are terse."),
            ChatMessage::user("Say hello."),
        ],
        max_tokens: 33,
        temperature: 0.25,
        top_p: 0.5,
        seed: 42,
        stop: vec!["\nUser:".into()],
        prefill: Some("Hel".into()),
    };
    let mut stream = model.stream(request).await.unwrap();
    let mut deltas = Vec::new();
    while let Some(d) = stream.next().await {
        deltas.push(d.unwrap());
    }
    assert_eq!(deltas, vec!["Hel", "lo", " wörld"]);

    let received = server.await.unwrap();
    assert_eq!(received.request_line, "POST /v1/chat/completions HTTP/1.1");
    assert_eq!(received.header("authorization"), Some("Bearer sk-test"));
    assert!(received
        .header("content-type")
        .unwrap()
        .starts_with("application/json"));
    let body = &received.body;
    assert_eq!(body["model"], "tiny-chat");
    assert_eq!(body["stream"], true);
    assert_eq!(body["max_tokens"], 33);
    assert_eq!(body["temperature"], 0.25);
    assert_eq!(body["top_p"], 0.5);
    assert_eq!(body["seed"], 42);
    assert_eq!(body["stop"], serde_json::json!(["\nUser:"]));
    assert_eq!(
        body["messages"],
        serde_json::json!([
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": "Say hello."},
            {"role": "assistant", "content": "Hel"},
        ])
    );
}

#[tokio::test]
async fn without_a_key_or_stops_neither_is_sent_and_the_body_end_ends_the_reply() {
    let (listener, port) = listener().await;
    let server = tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let received = read_request(&mut socket).await;
        socket.write_all(SSE_HEAD.as_bytes()).await.unwrap();
        socket.write_all(event("one").as_bytes()).await.unwrap();
        // The last event has no blank line and no [DONE]: the close ends it.
        socket
            .write_all(event(" two").trim_end().as_bytes())
            .await
            .unwrap();
        received
    });
    let model = model_at(port, None);
    let reply = complete(
        &model,
        ChatRequest {
            messages: vec![ChatMessage::user("count")],
            ..ChatRequest::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(reply, "one two");
    let received = server.await.unwrap();
    assert_eq!(received.header("authorization"), None);
    assert!(received.body.get("stop").is_none());
}

#[tokio::test]
async fn stop_strings_are_enforced_on_the_client_too() {
    let (listener, port) = listener().await;
    tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        read_request(&mut socket).await;
        socket.write_all(SSE_HEAD.as_bytes()).await.unwrap();
        for piece in ["Sure. ", "EN", "D and more"] {
            socket.write_all(event(piece).as_bytes()).await.unwrap();
        }
        let _ = socket.write_all(b"data: [DONE]\n\n").await;
    });
    let reply = complete(
        &model_at(port, None),
        ChatRequest {
            messages: vec![ChatMessage::user("x")],
            stop: vec!["END".into()],
            ..ChatRequest::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(reply, "Sure. ");
}

async fn answer_with(status_line: &str, body: &str) -> Result<easel_llm::TokenStream, LlmError> {
    let (listener, port) = listener().await;
    let response = format!(
        "HTTP/1.1 {status_line}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        read_request(&mut socket).await;
        socket.write_all(response.as_bytes()).await.unwrap();
    });
    model_at(port, Some("k"))
        .stream(ChatRequest {
            messages: vec![ChatMessage::user("x")],
            ..ChatRequest::default()
        })
        .await
}

#[tokio::test]
async fn http_errors_carry_the_servers_message() {
    let err = answer_with(
        "500 Internal Server Error",
        r#"{"error":{"message":"model exploded","type":"server_error"}}"#,
    )
    .await
    .err()
    .unwrap();
    assert!(
        matches!(&err, LlmError::Failed(m) if m.contains("model exploded") && m.contains("500")),
        "{err:?}"
    );

    let err = answer_with("404 Not Found", r#"{"error":"model tiny-chat not found"}"#)
        .await
        .err()
        .unwrap();
    assert!(
        matches!(&err, LlmError::Rejected(m) if m.contains("model tiny-chat not found")),
        "{err:?}"
    );

    let err = answer_with("401 Unauthorized", "bad key")
        .await
        .err()
        .unwrap();
    assert!(
        matches!(&err, LlmError::Unavailable(m) if m.contains("bad key")),
        "{err:?}"
    );
}

#[tokio::test]
async fn bad_json_and_error_events_fail_the_stream_after_the_good_deltas() {
    for (bad, expect) in [
        ("data: {not json\n\n", "bad JSON"),
        (
            "data: {\"error\":{\"message\":\"context overflow\"}}\n\n",
            "context overflow",
        ),
    ] {
        let (listener, port) = listener().await;
        tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            read_request(&mut socket).await;
            socket.write_all(SSE_HEAD.as_bytes()).await.unwrap();
            socket.write_all(event("fine").as_bytes()).await.unwrap();
            socket.write_all(bad.as_bytes()).await.unwrap();
            let _ = socket.write_all(event("never").as_bytes()).await;
        });
        let mut stream = model_at(port, None)
            .stream(ChatRequest {
                messages: vec![ChatMessage::user("x")],
                ..ChatRequest::default()
            })
            .await
            .unwrap();
        assert_eq!(stream.next().await.unwrap().unwrap(), "fine");
        let err = stream.next().await.unwrap().unwrap_err();
        assert!(
            matches!(&err, LlmError::Failed(m) if m.contains(expect)),
            "{err:?}"
        );
        assert!(stream.next().await.is_none());
    }
}

#[tokio::test]
async fn an_unreachable_server_is_unavailable() {
    let (listener, port) = listener().await;
    drop(listener);
    let err = model_at(port, None)
        .stream(ChatRequest {
            messages: vec![ChatMessage::user("x")],
            ..ChatRequest::default()
        })
        .await
        .err()
        .unwrap();
    assert!(
        matches!(&err, LlmError::Unavailable(m) if m.contains("cannot reach")),
        "{err:?}"
    );
}

#[tokio::test]
async fn dropping_the_stream_closes_the_connection() {
    let (listener, port) = listener().await;
    let server = tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        read_request(&mut socket).await;
        socket.write_all(SSE_HEAD.as_bytes()).await.unwrap();
        socket.write_all(event("first").as_bytes()).await.unwrap();
        // A slow server: it waits for the client. Reading end-of-file (or a
        // reset) means the client closed the connection.
        let mut buf = [0u8; 64];
        match socket.read(&mut buf).await {
            Ok(0) | Err(_) => true,
            Ok(_) => false,
        }
    });
    let model = model_at(port, None);
    let mut stream = model
        .stream(ChatRequest {
            messages: vec![ChatMessage::user("x")],
            ..ChatRequest::default()
        })
        .await
        .unwrap();
    assert_eq!(stream.next().await.unwrap().unwrap(), "first");
    drop(stream);
    // Bounded so a regression fails instead of hanging; not a speed check.
    let closed = tokio::time::timeout(Duration::from_secs(60), server)
        .await
        .expect("the connection stayed open after the stream was dropped")
        .unwrap();
    assert!(closed, "the client sent more bytes instead of closing");
}
