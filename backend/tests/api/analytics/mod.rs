//! Analytics end to end (issue 22 part 5): the ingest calls, the server's
//! own funnel events, the operator's questions, opt-outs, refusals, what is
//! stored, and the ClickHouse sink against a fake that follows its HTTP
//! interface's documentation (failures included).

mod fake_clickhouse;

use std::time::Duration;

use protocol::client::RestClient;
use protocol::ErrorCode;
use serde_json::{json, Value};

use crate::helpers::{rand_suffix, spawn_app_with, TestApp, PASSWORD};
use crate::tasks::{checkpoint, t2i};
use fake_clickhouse::FakeClickHouse;

/// Sends a raw ingest call as a browser's beacon would (text/plain).
async fn beacon(
    app: &TestApp,
    path: &str,
    device: Option<&str>,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, Value) {
    let mut req = reqwest::Client::new()
        .post(format!("{}{path}", app.base))
        .header("content-type", "text/plain;charset=UTF-8")
        .header(
            "user-agent",
            "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
        )
        .body(body.to_owned());
    if let Some(d) = device {
        req = req.header("cookie", format!("deviceId={d}"));
    }
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let res = req.send().await.unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap())
}

async fn view(app: &TestApp, device: &str) {
    let (http, v) = beacon(
        app,
        "/log/v1/dot",
        Some(device),
        &[],
        r#"{"name":"page_view","page":"/en/?q=private","props":{"referrer":"example.org"}}"#,
    )
    .await;
    assert_eq!(http, 200, "{v}");
    assert_eq!(v["data"]["accepted"], 1, "{v}");
}

async fn sign_up_on(app: &TestApp, device: &str, name: &str) -> RestClient {
    let email = format!("{}-{}@example.com", name.to_lowercase(), rand_suffix());
    let visitor = app.client.with_device(device);
    let data = visitor.sign_up(&email, PASSWORD, name).await.unwrap();
    visitor.with_token(&data.token)
}

async fn ask(op: &RestClient, what: &str, body: Value) -> Value {
    op.post(&format!("/api/v1/admin/analytics/{what}"), &body)
        .await
        .unwrap()
}

#[tokio::test]
async fn events_in_and_the_operator_sees_the_right_figures() {
    let app = spawn_app_with(&[
        ("EASEL_ANALYTICS_FLUSH_MS", "60000"),
        ("EASEL_MANUAL_PAYMENTS", "Transfer to IBAN XX00 0000"),
    ])
    .await;
    // Visitor 1 looks, signs up on the same device, generates and pays.
    view(&app, "device-an-v1").await;
    let a = sign_up_on(&app, "device-an-v1", "Ana").await;
    let sd = checkpoint(&a, "sd").await;
    a.create_task("/api/v1/task/create", &t2i(&sd, "a cat", 1))
        .await
        .unwrap();
    let order: Value = a
        .post(
            "/api/v1/payment/order/create",
            &json!({"product_id": "coins-100", "provider": "manual"}),
        )
        .await
        .unwrap();
    // Visitor 2 only looks; visitor 3 signs up and stops.
    view(&app, "device-an-v2").await;
    view(&app, "device-an-v3").await;
    let _b = sign_up_on(&app, "device-an-v3", "Bo").await;
    let op = app.operator().await;
    op.post::<_, Value>(
        "/api/v1/admin/mall/order/mark-paid",
        &json!({"order_id": order["order_id"]}),
    )
    .await
    .unwrap();
    // Marked paid twice is one purchase.
    op.post::<_, Value>(
        "/api/v1/admin/mall/order/mark-paid",
        &json!({"order_id": order["order_id"]}),
    )
    .await
    .unwrap();

    let dau = ask(&op, "dau", json!({})).await;
    let days = dau["days"].as_array().unwrap();
    assert_eq!(days.len(), 30);
    let today = days.last().unwrap();
    // Ana (her visit linked), visitor 2, Bo, and the operator's sign-up.
    assert_eq!(
        (&today["active"], &today["accounts"], &today["visitors"]),
        (&json!(4), &json!(3), &json!(1)),
        "{dau}"
    );
    let day = today["day"].as_str().unwrap().to_owned();
    let funnel = ask(&op, "funnel", json!({"from": day, "to": day})).await;
    let counts: Vec<(String, u64)> = funnel["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["step"].as_str().unwrap().into(),
                s["count"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        counts,
        vec![
            ("visit".into(), 3),
            ("sign_up".into(), 2),
            ("first_generation".into(), 1),
            ("purchase".into(), 1),
        ],
        "{funnel}"
    );
    let retention = ask(&op, "retention", json!({})).await;
    let cohorts = retention["cohorts"].as_array().unwrap();
    assert_eq!(cohorts.len(), 1, "{retention}");
    assert_eq!(cohorts[0]["size"], 3);
    assert_eq!(cohorts[0]["retained"][0], 3);

    // Errors by release, from error_report.
    let (http, v) = beacon(
        &app,
        "/log/v1/error_report",
        Some("device-an-v2"),
        &[],
        r#"{"release":"2.0.1","errors":[{"message":"TypeError: x","filename":"/a.js","lineno":3},{"message":"TypeError: x"}]}"#,
    )
    .await;
    assert_eq!((http, &v["data"]["accepted"]), (200, &json!(2)), "{v}");
    let errors = ask(&op, "errors", json!({})).await;
    assert_eq!(errors["releases"][0]["release"], "2.0.1", "{errors}");
    assert_eq!(errors["releases"][0]["errors"], 2);
    assert_eq!(errors["releases"][0]["top"][0]["message"], "TypeError: x");

    // Not an operator: refused; a bad range: refused with its key.
    let e = a
        .post::<_, Value>("/api/v1/admin/analytics/dau", &json!({}))
        .await
        .unwrap_err();
    assert_eq!(e.status().unwrap().code, ErrorCode::NoPermission.code());
    for bad in [
        json!({"from": "2026-02-30"}),
        json!({"from": "2026-05-02", "to": "2026-05-01"}),
        json!({"from": "2020-01-01", "to": "2026-01-01"}),
        json!({"window_days": 0}),
    ] {
        let what = if bad.get("window_days").is_some() {
            "funnel"
        } else {
            "dau"
        };
        let e = op
            .post::<_, Value>(&format!("/api/v1/admin/analytics/{what}"), &bad)
            .await
            .unwrap_err();
        assert_eq!(
            e.status().unwrap().code,
            ErrorCode::AnalyticsRangeInvalid.code(),
            "{bad}"
        );
    }

    // What is stored: Parquet files holding truncated addresses only.
    let dir = app.data.path().join("objects/analytics/events").join(&day);
    let files: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert!(!files.is_empty());
    for f in files {
        let bytes = std::fs::read(f.unwrap().path()).unwrap();
        // The object store keeps its own header before the file's bytes.
        assert_eq!(&bytes[bytes.len() - 4..], b"PAR1", "not a Parquet file");
        let text = String::from_utf8_lossy(&bytes);
        assert!(!text.contains("device-an-v"), "a device id was stored");
        assert!(!text.contains("127.0.0.1"), "a full address was stored");
        assert!(!text.contains("q=private"), "a query string was stored");
    }
    // The files are not served to anyone.
    let r = reqwest::get(format!(
        "{}/files/analytics/events/{day}/x.parquet",
        app.base
    ))
    .await
    .unwrap();
    assert_eq!(r.status().as_u16(), 404);
}

#[tokio::test]
async fn opt_outs_and_bad_bodies() {
    let app = spawn_app_with(&[("EASEL_ANALYTICS_PER_MINUTE", "40")]).await;
    let body = r#"{"events":[{"name":"page_view"},{"name":"checkin"}]}"#;
    for header in [("DNT", "1"), ("Sec-GPC", "1")] {
        let (http, v) = beacon(
            &app,
            "/api/v1/dot/report",
            Some("device-opt-1"),
            &[header],
            body,
        )
        .await;
        assert_eq!(http, 200);
        assert_eq!(v["data"]["opted_out"], true, "{v}");
        assert_eq!(v["data"]["accepted"], 0);
        assert_eq!(v["data"]["dropped"], 2);
    }
    // The account's own switch, and the token in a beacon's body.
    let (data, user) = app.user("Quiet").await;
    let s: Value = user
        .post(
            "/api/v1/analytics/settings",
            &json!({"analytics_opt_out": true}),
        )
        .await
        .unwrap();
    assert_eq!(s["analytics_opt_out"], true);
    let with_token = format!(
        r#"{{"token":"{}","events":[{{"name":"page_view"}}]}}"#,
        data.token
    );
    let (_, v) = beacon(
        &app,
        "/api/v1/dot/log",
        Some("device-opt-2"),
        &[],
        &with_token,
    )
    .await;
    assert_eq!(v["data"]["opted_out"], true, "{v}");
    let s: Value = user
        .post(
            "/api/v1/analytics/settings",
            &json!({"analytics_opt_out": false}),
        )
        .await
        .unwrap();
    assert_eq!(s["analytics_opt_out"], false);
    let (_, v) = beacon(
        &app,
        "/api/v1/dot/log",
        Some("device-opt-2"),
        &[],
        &with_token,
    )
    .await;
    assert_eq!(v["data"]["accepted"], 1, "{v}");
    // Unknown events, server-only events and bad properties are dropped and counted.
    let mixed = r#"{"events":[{"name":"page_view"},{"name":"nope"},{"name":"purchase"},{"name":"action","props":{"target":7}},{"name":"search","props":{"length":3,"extra":1}}]}"#;
    let (_, v) = beacon(
        &app,
        "/log/v1/event_report",
        Some("device-opt-3"),
        &[],
        mixed,
    )
    .await;
    assert_eq!(
        (
            &v["data"]["accepted"],
            &v["data"]["dropped"],
            &v["data"]["stripped"]
        ),
        (&json!(2), &json!(3), &json!(1)),
        "{v}"
    );
    assert_eq!(
        v["data"]["reasons"],
        json!([
            ["unknown_event", 1],
            ["server_only", 1],
            ["bad_property", 1]
        ])
    );
    // Whole bodies refused with their keys.
    let (http, v) = beacon(&app, "/log/v1/dot", None, &[], "not json").await;
    assert_eq!(
        (http, &v["status"]["code"]),
        (400, &json!(ErrorCode::AnalyticsBatchInvalid.code()))
    );
    let many = format!(
        r#"{{"events":[{}]}}"#,
        vec![r#"{"name":"checkin"}"#; 51].join(",")
    );
    let (http, v) = beacon(&app, "/log/v1/dot", None, &[], &many).await;
    assert_eq!(
        (http, &v["status"]["key"]),
        (400, &json!("analyticsBatchInvalid"))
    );
    let huge = format!(r#"{{"name":"checkin","pad":"{}"}}"#, "x".repeat(70_000));
    let (http, v) = beacon(&app, "/log/v1/dot", None, &[], &huge).await;
    assert_eq!(
        (http, &v["status"]["key"]),
        (413, &json!("analyticsBatchTooLarge"))
    );
    // Rate limited per address.
    let mut limited = false;
    for _ in 0..60 {
        let (http, _) = beacon(&app, "/log/v1/dot", None, &[], r#"{"name":"checkin"}"#).await;
        if http == 429 {
            limited = true;
            break;
        }
    }
    assert!(limited, "no 429 after 60 calls with a limit of 40 a minute");
}

#[tokio::test]
async fn clickhouse_receives_the_rows_and_failed_batches_are_retried() {
    let ch = FakeClickHouse::start();
    ch.state.lock().unwrap().fail_inserts = 2;
    let app = spawn_app_with(&[
        ("EASEL_ANALYTICS_CLICKHOUSE_URL", ch.url.as_str()),
        ("EASEL_ANALYTICS_CLICKHOUSE_USER", fake_clickhouse::USER),
        ("EASEL_ANALYTICS_CLICKHOUSE_PASSWORD", fake_clickhouse::KEY),
        ("EASEL_ANALYTICS_CLICKHOUSE_TIMEOUT_MS", "500"),
        ("EASEL_ANALYTICS_FLUSH_MS", "50"),
        ("EASEL_ANALYTICS_RETRY_MS", "50"),
    ])
    .await;
    view(&app, "device-ch-1").await;
    view(&app, "device-ch-2").await;
    // Two refusals (500), then the kept batch lands once.
    let rows = wait_rows(&ch, 2).await;
    assert_eq!(ch.state.lock().unwrap().inserts_refused, 2);
    let r = &rows[0];
    assert_eq!(r["name"], "page_view");
    assert_eq!(r["ip"], "127.0.0.0");
    assert_eq!(r["browser"], "Chrome");
    assert_eq!(r["page"], "/en/");
    assert!(r["visitor"].as_str().unwrap().len() == 32);
    assert!(r["day"].as_str().unwrap().len() == 10);
    let statements = ch.state.lock().unwrap().statements.clone();
    assert!(statements
        .iter()
        .any(|s| s.starts_with("CREATE TABLE IF NOT EXISTS easel_events")));
    assert!(statements
        .iter()
        .any(|s| s == "INSERT INTO easel_events FORMAT JSONEachRow"));

    // A timeout after the insert landed: retried with the same token, kept once.
    let inserts = |ch: &FakeClickHouse| {
        ch.state
            .lock()
            .unwrap()
            .statements
            .iter()
            .filter(|s| s.starts_with("INSERT"))
            .count()
    };
    let before = inserts(&ch);
    ch.state.lock().unwrap().slow_inserts = 1;
    view(&app, "device-ch-3").await;
    // The slow insert and its retry.
    for _ in 0..200 {
        if inserts(&ch) >= before + 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        inserts(&ch) >= before + 2,
        "the timed-out batch was not retried"
    );
    assert_eq!(ch.rows().len(), 3, "the retried batch was stored twice");

    // The questions read from ClickHouse, only the needed columns.
    let op = app.operator().await;
    let dau = ask(&op, "dau", json!({})).await;
    let today = dau["days"].as_array().unwrap().last().unwrap().clone();
    // Three visitors and the operator's sign-up.
    assert_eq!(today["active"], 4, "{dau}");
    let statements = ch.state.lock().unwrap().statements.clone();
    let select = statements.iter().find(|s| s.starts_with("SELECT")).unwrap();
    assert!(
        select.starts_with(
            "SELECT day, ts, name, account, visitor FROM easel_events WHERE day >= toDate('"
        ),
        "{select}"
    );
}

#[tokio::test]
async fn clickhouse_retention_deletes_the_days_past_it() {
    let ch = FakeClickHouse::start();
    // Rows of a day long past and of the cutoff day itself, as if written earlier.
    let today = protocol::analytics::query::day_of_ms(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as i64,
    );
    let old_day = protocol::analytics::query::format_day(today - 31);
    let cutoff = protocol::analytics::query::format_day(today - 30);
    {
        let mut s = ch.state.lock().unwrap();
        s.rows
            .push(json!({"day": old_day, "ts": 1, "name": "page_view"}));
        s.rows
            .push(json!({"day": cutoff, "ts": 2, "name": "page_view"}));
    }
    let app = spawn_app_with(&[
        ("EASEL_ANALYTICS_CLICKHOUSE_URL", ch.url.as_str()),
        ("EASEL_ANALYTICS_CLICKHOUSE_USER", fake_clickhouse::USER),
        ("EASEL_ANALYTICS_CLICKHOUSE_PASSWORD", fake_clickhouse::KEY),
        ("EASEL_ANALYTICS_FLUSH_MS", "50"),
        ("EASEL_ANALYTICS_RETENTION_DAYS", "30"),
        ("EASEL_ANALYTICS_UPKEEP_MS", "100"),
    ])
    .await;
    view(&app, "device-keep").await;
    let want = format!("DELETE FROM easel_events WHERE day < toDate('{cutoff}')");
    let mut deletes = 0;
    for _ in 0..200 {
        deletes = ch
            .state
            .lock()
            .unwrap()
            .statements
            .iter()
            .filter(|s| **s == want)
            .count();
        if deletes > 0 && ch.rows().len() == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(deletes, 1, "{:?}", ch.state.lock().unwrap().statements);
    let days: Vec<String> = ch
        .rows()
        .iter()
        .map(|r| r["day"].as_str().unwrap().to_owned())
        .collect();
    assert!(!days.contains(&old_day), "{days:?}");
    assert!(days.contains(&cutoff), "{days:?}");
    // Once a day: later upkeep runs send no second delete.
    tokio::time::sleep(Duration::from_millis(400)).await;
    let again = ch
        .state
        .lock()
        .unwrap()
        .statements
        .iter()
        .filter(|s| s.starts_with("DELETE"))
        .count();
    assert_eq!(again, 1);
    drop(app);
}

async fn wait_rows(ch: &FakeClickHouse, n: usize) -> Vec<Value> {
    for _ in 0..200 {
        let rows = ch.rows();
        if rows.len() >= n {
            return rows;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("ClickHouse got {} rows, expected {n}", ch.rows().len());
}
