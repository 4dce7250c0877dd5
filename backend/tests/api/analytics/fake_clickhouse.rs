//! A ClickHouse HTTP interface stand-in (port 8123 API), following its
//! documentation: the query in the `query` URL parameter or in the POST
//! body; `INSERT INTO t FORMAT JSONEachRow` with one JSON object per line in
//! the body; `SELECT ... FORMAT JSON` answering `{"meta", "data", "rows",
//! "statistics"}`, 64-bit integers quoted unless
//! `output_format_json_quote_64bit_integers=0`; `insert_deduplication_token`
//! drops a repeated insert; credentials from `X-ClickHouse-User` /
//! `X-ClickHouse-Key`; errors as HTTP 500 with `Code: N. DB::Exception: ...`
//! text. `DELETE FROM t WHERE day < toDate('X')` (a lightweight delete)
//! removes the rows of the days before X. Failure modes are scripted: the next N inserts answer 500, or the
//! next one stores the rows and then answers too late (a timeout).

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
use serde_json::{json, Map, Value};

pub const USER: &str = "easel";
pub const KEY: &str = "secret-key";

#[derive(Default)]
pub struct State {
    pub rows: Vec<Value>,
    pub tokens: HashSet<String>,
    /// Every statement received, in order (the INSERT's query, not its rows).
    pub statements: Vec<String>,
    pub fail_inserts: u32,
    pub slow_inserts: u32,
    pub inserts_refused: u32,
}

pub struct FakeClickHouse {
    pub url: String,
    pub state: Arc<Mutex<State>>,
}

impl FakeClickHouse {
    /// Starts the fake on its own thread (its own actix system).
    pub fn start() -> FakeClickHouse {
        let state = Arc::new(Mutex::new(State::default()));
        let (tx, rx) = std::sync::mpsc::channel();
        let st = state.clone();
        std::thread::spawn(move || {
            actix_web::rt::System::new().block_on(async move {
                let data = web::Data::new(st);
                let server = HttpServer::new(move || {
                    App::new()
                        .app_data(data.clone())
                        .app_data(web::PayloadConfig::new(16 * 1024 * 1024))
                        .default_service(web::to(handle))
                })
                .workers(1)
                .bind("127.0.0.1:0")
                .unwrap();
                tx.send(server.addrs()[0].port()).unwrap();
                server.run().await.unwrap();
            })
        });
        let port = rx.recv().unwrap();
        FakeClickHouse {
            url: format!("http://127.0.0.1:{port}"),
            state,
        }
    }

    pub fn rows(&self) -> Vec<Value> {
        self.state.lock().unwrap().rows.clone()
    }
}

fn exception(code: u32, msg: &str) -> HttpResponse {
    HttpResponse::InternalServerError()
        .insert_header(("X-ClickHouse-Exception-Code", code.to_string()))
        .body(format!("Code: {code}. DB::Exception: {msg}. (UNKNOWN)\n"))
}

async fn handle(
    req: HttpRequest,
    body: String,
    state: web::Data<Arc<Mutex<State>>>,
) -> HttpResponse {
    let h = |n: &str| {
        req.headers()
            .get(n)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    if h("X-ClickHouse-User").as_deref() != Some(USER)
        || h("X-ClickHouse-Key").as_deref() != Some(KEY)
    {
        return HttpResponse::Forbidden().body(
            "Code: 516. DB::Exception: easel: Authentication failed: password is incorrect, or there is no user with such name. (AUTHENTICATION_FAILED)\n",
        );
    }
    let params: Vec<(String, String)> =
        serde_urlencoded::from_str(req.query_string()).unwrap_or_default();
    let param = |n: &str| params.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone());
    let (query, data) = match param("query") {
        Some(q) => (q, body),
        None => (body, String::new()),
    };
    let upper = query.trim_start().to_ascii_uppercase();
    state.lock().unwrap().statements.push(query.clone());
    if upper.starts_with("CREATE TABLE") {
        return HttpResponse::Ok().finish();
    }
    if upper.starts_with("INSERT INTO") {
        if !upper.contains("FORMAT JSONEACHROW") {
            return exception(62, "Syntax error: expected FORMAT JSONEachRow");
        }
        let mut parsed = Vec::new();
        for line in data.lines().filter(|l| !l.trim().is_empty()) {
            match serde_json::from_str::<Value>(line) {
                Ok(v) if v.is_object() => parsed.push(v),
                _ => return exception(117, "Cannot parse JSON object here"),
            }
        }
        let slow = {
            let mut s = state.lock().unwrap();
            if s.fail_inserts > 0 {
                s.fail_inserts -= 1;
                s.inserts_refused += 1;
                return exception(241, "Memory limit (total) exceeded");
            }
            let token = param("insert_deduplication_token");
            let dup = token.as_ref().is_some_and(|t| !s.tokens.insert(t.clone()));
            if !dup {
                s.rows.extend(parsed);
            }
            if s.slow_inserts > 0 {
                s.slow_inserts -= 1;
                true
            } else {
                false
            }
        };
        if slow {
            // Stored, but the answer comes after the client's timeout.
            actix_web::rt::time::sleep(Duration::from_secs(3)).await;
        }
        return HttpResponse::Ok().finish();
    }
    if upper.starts_with("DELETE FROM") {
        let Some(cutoff) = query
            .split("day < toDate('")
            .nth(1)
            .and_then(|p| p.split('\'').next())
        else {
            return exception(62, "Syntax error: expected WHERE day < toDate('...')");
        };
        let cutoff = cutoff.to_owned();
        state
            .lock()
            .unwrap()
            .rows
            .retain(|r| r["day"].as_str().unwrap_or("") >= cutoff.as_str());
        return HttpResponse::Ok().finish();
    }
    if upper.starts_with("SELECT") {
        return select(
            &query,
            &state.lock().unwrap(),
            param("output_format_json_quote_64bit_integers").as_deref() == Some("0"),
        );
    }
    exception(62, "Syntax error")
}

/// `SELECT a, b FROM t WHERE day >= toDate('X') AND day <= toDate('Y') FORMAT JSON`.
fn select(query: &str, s: &State, numbers: bool) -> HttpResponse {
    let upper = query.to_ascii_uppercase();
    let (Some(from_at), Some(fmt_at)) = (upper.find(" FROM "), upper.find("FORMAT JSON")) else {
        return exception(62, "Syntax error");
    };
    let cols: Vec<&str> = query[6..from_at].split(',').map(str::trim).collect();
    let dates: Vec<&str> = query[..fmt_at]
        .split("toDate('")
        .skip(1)
        .filter_map(|p| p.split('\'').next())
        .collect();
    let (lo, hi) = (
        dates.first().copied().unwrap_or(""),
        dates.get(1).copied().unwrap_or("9999"),
    );
    let data: Vec<Value> = s
        .rows
        .iter()
        .filter(|r| {
            let d = r["day"].as_str().unwrap_or("");
            d >= lo && d <= hi
        })
        .map(|r| {
            let mut m = Map::new();
            for c in &cols {
                let v = r.get(*c).cloned().unwrap_or(Value::Null);
                let v = match v {
                    Value::Number(n) if !numbers && n.is_i64() => Value::String(n.to_string()),
                    v => v,
                };
                m.insert((*c).to_owned(), v);
            }
            Value::Object(m)
        })
        .collect();
    let meta: Vec<Value> = cols
        .iter()
        .map(|c| json!({"name": c, "type": "String"}))
        .collect();
    HttpResponse::Ok().json(json!({
        "meta": meta,
        "rows": data.len(),
        "data": data,
        "statistics": {"elapsed": 0.001, "rows_read": s.rows.len(), "bytes_read": 0},
    }))
}
