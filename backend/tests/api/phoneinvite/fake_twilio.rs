//! A Twilio Messages API stand-in, following its documentation:
//! `POST /2010-04-01/Accounts/{AccountSid}/Messages.json`, HTTP basic auth
//! (account SID : auth token), a form body (`To`, `From`, `Body`); 201 with
//! the message JSON, or Twilio's error JSON (`code`, `message`, `more_info`,
//! `status`). Failure modes by recipient number:
//! `...400` → 400 error JSON (21211 invalid To), `...500` → 500,
//! `...408` → answers after 3 s (a timeout), `...299` → 201 with bad JSON.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
use base64::Engine;
use serde_json::json;

pub const SID: &str = "AC0123456789abcdef0123456789abcdef";
pub const TOKEN: &str = "fake-auth-token";
pub const FROM: &str = "+15005550006";

#[derive(Debug, Clone)]
pub struct Sent {
    pub to: String,
    pub from: String,
    pub body: String,
}

#[derive(Default)]
pub struct Seen {
    pub sent: Vec<Sent>,
}

impl Seen {
    /// The six-digit code of the last message to `to`.
    pub fn code_for(&self, to: &str) -> Option<String> {
        self.sent.iter().rev().find(|s| s.to == to).and_then(|s| {
            s.body
                .split(|c: char| !c.is_ascii_digit())
                .find(|w| w.len() == 6)
                .map(str::to_owned)
        })
    }
}

fn error(status: u16, code: i64, message: &str) -> HttpResponse {
    HttpResponse::build(actix_web::http::StatusCode::from_u16(status).unwrap()).json(json!({
        "code": code,
        "message": message,
        "more_info": format!("https://www.twilio.com/docs/errors/{code}"),
        "status": status,
    }))
}

async fn messages(
    req: HttpRequest,
    path: web::Path<String>,
    body: String,
    seen: web::Data<Arc<Mutex<Seen>>>,
) -> HttpResponse {
    let expected = format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!("{SID}:{TOKEN}"))
    );
    let auth = req
        .headers()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    if auth != expected || path.as_str() != SID {
        return error(401, 20003, "Authenticate");
    }
    let form: Vec<(String, String)> = serde_urlencoded::from_str(&body).unwrap_or_default();
    let get = |k: &str| {
        form.iter()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    let (to, from, text) = (get("To"), get("From"), get("Body"));
    if text.is_empty() {
        return error(400, 21602, "Message body is required.");
    }
    if to.ends_with("400") {
        return error(400, 21211, "The 'To' number is not a valid phone number.");
    }
    if to.ends_with("500") {
        return HttpResponse::InternalServerError().body("upstream failure");
    }
    if to.ends_with("408") {
        tokio::time::sleep(Duration::from_secs(3)).await;
    }
    if to.ends_with("299") {
        return HttpResponse::Created()
            .content_type("application/json")
            .body("{not json");
    }
    seen.lock().unwrap().sent.push(Sent {
        to: to.clone(),
        from: from.clone(),
        body: text.clone(),
    });
    HttpResponse::Created().json(json!({
        "sid": format!("SM{:032x}", rand_id()),
        "account_sid": SID,
        "to": to,
        "from": from,
        "body": text,
        "status": "queued",
        "error_code": null,
        "error_message": null,
    }))
}

fn rand_id() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}

/// Starts the fake; answers its base URL and what it received.
pub fn start() -> (String, Arc<Mutex<Seen>>) {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let s = seen.clone();
    std::thread::spawn(move || {
        actix_web::rt::System::new().block_on(async move {
            HttpServer::new(move || {
                App::new().app_data(web::Data::new(s.clone())).route(
                    "/2010-04-01/Accounts/{sid}/Messages.json",
                    web::post().to(messages),
                )
            })
            .workers(1)
            .listen(listener)
            .unwrap()
            .run()
            .await
            .unwrap();
        });
    });
    (url, seen)
}
