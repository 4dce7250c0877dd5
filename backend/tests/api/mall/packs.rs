//! Credit packs end to end through the fake Stripe: bought once however
//! the webhook arrives (twice, concurrently, out of order), refused when
//! forged, stale or for another amount; orders are their owners' only.

use serde_json::{json, Value};

use super::*;

#[tokio::test]
async fn a_credit_pack_is_granted_once_however_often_the_webhook_arrives() {
    let m = Mall::start().await;
    let (_, user) = m.app.user("Buyer").await;
    let list: Value = user
        .post("/api/v1/payment/product/list-web", &json!({}))
        .await
        .unwrap();
    let pack = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["product_id"] == "coins-550")
        .unwrap()
        .clone();
    assert_eq!(
        (
            pack["kind"].as_str(),
            pack["price"].as_i64(),
            pack["currency"].as_str(),
            pack["coins"].as_i64()
        ),
        (Some("credits"), Some(4900), Some("CNY"), Some(550))
    );
    assert!(pack["plan"].is_null() && pack["period"].is_null());
    let before = credits(&user).await;

    let (order, url) = buy(
        &user,
        "/api/v1/payment/order/create",
        json!({"product_id": "coins-550"}),
    )
    .await;
    assert!(url.starts_with(&m.stripe.url), "{url}");
    assert_eq!(order_status(&user, &order).await["status"], "pending");
    // The session the fake got: the order's id, the catalogue's price.
    let reqs = m.stripe.requests().await;
    let session = reqs
        .iter()
        .find(|r| r["path"] == "/v1/checkout/sessions")
        .unwrap();
    assert_eq!(session["form"]["client_reference_id"], order.as_str());
    assert_eq!(
        session["form"]["line_items"][0]["price_data"]["unit_amount"],
        "4900"
    );
    assert_eq!(session["form"]["mode"], "payment");

    // The buyer pays on the hosted page and comes back to the return page.
    let back = m.stripe.press(&url, "pay").await;
    assert!(
        back.contains("/mall/return?order_id=") && back.contains(&order),
        "{back}"
    );
    let s = order_status(&user, &order).await;
    assert_eq!(s["status"], "paid", "{s}");
    assert!(s["checkout_url"].is_null());
    assert_eq!(credits(&user).await, before + 550);

    // The same event again, twice at once: acknowledged, nothing granted.
    let delivered = m.stripe.events().await;
    let completed = delivered
        .iter()
        .find(|e| {
            e["type"] == "checkout.session.completed"
                || e["payload"]["type"] == "checkout.session.completed"
        })
        .unwrap();
    let event: Value = payload(completed);
    let (a, b) = tokio::join!(
        m.stripe
            .post("/_test/send", json!({"event": event, "signature": "good"})),
        m.stripe
            .post("/_test/send", json!({"event": event, "signature": "good"})),
    );
    for r in [a, b] {
        assert_eq!(r["events"][0]["status"], 200, "{r}");
    }
    assert_eq!(credits(&user).await, before + 550);
    let log: Value = user
        .post("/api/v1/payment/buy/log", &json!({}))
        .await
        .unwrap();
    assert_eq!(log["items"].as_array().unwrap().len(), 1);
    let steps: Vec<&str> = log["items"][0]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["status"].as_str().unwrap())
        .collect();
    assert_eq!(steps, ["created", "pending", "paid"]);

    // Recent purchases show it, with the buyer's name masked.
    let recent = reqwest::get(format!(
        "{}/api/v1/payment/order/calculate/recent-record",
        m.app.base
    ))
    .await
    .unwrap()
    .json::<Value>()
    .await
    .unwrap();
    assert_eq!(recent["data"]["items"][0]["name"], "B***r");
    assert_eq!(recent["data"]["items"][0]["product_name"], "550 credits");
}

/// The delivered event's JSON, as the fake logged it.
fn payload(delivery: &Value) -> Value {
    match &delivery["payload"] {
        Value::String(s) => serde_json::from_str(s).unwrap(),
        v => v.clone(),
    }
}

#[tokio::test]
async fn a_refund_before_its_payment_is_kept_and_applied_when_the_payment_arrives() {
    let m = Mall::start().await;
    let (_, user) = m.app.user("Early").await;
    let before = credits(&user).await;
    let (order, url) = buy(
        &user,
        "/api/v1/payment/order/create",
        json!({"product_id": "coins-1200"}),
    )
    .await;
    // The payment's events go nowhere first (our endpoint was down).
    m.stripe
        .post(
            "/_test/config",
            json!({"webhook_url": "http://127.0.0.1:9/down"}),
        )
        .await;
    m.stripe.press(&url, "pay").await;
    let lost = m.stripe.events().await;
    let completed = payload(lost.last().unwrap());
    assert_eq!(completed["type"], "checkout.session.completed");
    let pi = completed["data"]["object"]["payment_intent"]
        .as_str()
        .unwrap()
        .to_owned();
    m.stripe
        .post(
            "/_test/config",
            json!({"webhook_url": format!("{}/api/v1/payment/webhook/stripe", m.app.base)}),
        )
        .await;
    // A partial refund (a quarter) arrives before the payment is known.
    let r = m
        .stripe
        .post(
            &format!("/_test/payment_intents/{pi}/refund"),
            json!({"amount": 2450}),
        )
        .await;
    assert_eq!(r["events"][0]["status"], 200, "{r}");
    assert_eq!(order_status(&user, &order).await["status"], "pending");
    assert_eq!(credits(&user).await, before);
    // Then Stripe's retry of the payment: paid, and the kept refund applied.
    let r = m
        .stripe
        .post(
            "/_test/send",
            json!({"event": completed, "signature": "good"}),
        )
        .await;
    assert_eq!(r["events"][0]["status"], 200, "{r}");
    let s = order_status(&user, &order).await;
    assert_eq!(
        (s["status"].as_str(), s["refunded"].as_i64()),
        (Some("paid"), Some(2450)),
        "{s}"
    );
    assert_eq!(credits(&user).await, before + 1200 - 300);
}

#[tokio::test]
async fn forged_stale_or_wrong_amount_events_change_nothing() {
    let m = Mall::start().await;
    let (_, user) = m.app.user("Target").await;
    let before = credits(&user).await;
    let (order, _) = buy(
        &user,
        "/api/v1/payment/order/create",
        json!({"product_id": "coins-100"}),
    )
    .await;
    let event = json!({
        "id": "evt_forged_1",
        "object": "event",
        "type": "checkout.session.completed",
        "created": chrono_now(),
        "data": {"object": {
            "id": "cs_forged", "object": "checkout.session", "mode": "payment",
            "client_reference_id": order, "payment_status": "paid", "status": "complete",
            "amount_total": 990, "currency": "cny", "payment_intent": "pi_forged",
            "metadata": {"order_id": order}
        }}
    });
    for sig in ["bad", "stale", "missing"] {
        let r = m
            .stripe
            .post("/_test/send", json!({"event": event, "signature": sig}))
            .await;
        assert_eq!(r["events"][0]["status"], 400, "{sig}: {r}");
        let answer = r["events"][0]["answer"].to_string();
        assert!(
            answer.contains("WebhookSignatureInvalid"),
            "{sig}: {answer}"
        );
    }
    assert_eq!(order_status(&user, &order).await["status"], "pending");
    assert_eq!(credits(&user).await, before);

    // Well signed, but for another amount than the order's: not paid.
    let mut cheap = event.clone();
    cheap["id"] = json!("evt_cheap");
    cheap["data"]["object"]["amount_total"] = json!(1);
    let r = m
        .stripe
        .post("/_test/send", json!({"event": cheap, "signature": "good"}))
        .await;
    assert_eq!(r["events"][0]["status"], 200);
    assert_eq!(order_status(&user, &order).await["status"], "failed");
    assert_eq!(credits(&user).await, before);

    // A made-up product, a hidden one, an empty one: refused.
    for p in ["coins-999999", "", "../x"] {
        let (http, key) = error_key(
            &user,
            "/api/v1/payment/order/create",
            json!({"product_id": p}),
        )
        .await;
        assert_eq!((http, key.as_str()), (404, "ProductNotFound"), "{p:?}");
    }
    // A price sent by the browser is not read: the catalogue's is charged.
    let v: Value = user
        .post(
            "/api/v1/payment/order/create",
            &json!({"product_id": "coins-100", "price": 1, "amount": 1}),
        )
        .await
        .unwrap();
    assert_eq!(v["amount"], 990);
    // An order of another account answers like a missing one.
    let (_, other) = m.app.user("Other").await;
    for path in [
        "/api/v1/payment/order/status",
        "/api/v1/payment/order-checkout",
    ] {
        let (http, key) = error_key(&other, path, json!({"order_id": order})).await;
        assert_eq!((http, key.as_str()), (404, "OrderNotFound"), "{path}");
    }
    // Without a token: NeedLogin.
    let (http, _) = error_key(
        &m.app.client,
        "/api/v1/payment/order/create",
        json!({"product_id": "coins-100"}),
    )
    .await;
    assert_eq!(http, 401);
}

fn chrono_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

#[tokio::test]
async fn manual_transfers_are_paid_only_by_an_operator() {
    let m = Mall::start().await;
    let (_, user) = m.app.user("Transfer").await;
    let before = credits(&user).await;
    let gray: Value = user
        .post("/api/v1/payment/gray-info", &json!({}))
        .await
        .unwrap();
    assert_eq!(gray["providers"], json!(["stripe", "manual"]));
    assert!(gray["manual_instructions"]
        .as_str()
        .unwrap()
        .contains("IBAN"));
    let v: Value = user
        .post(
            "/api/v1/payment/order/create",
            &json!({"product_id": "coins-100", "provider": "manual"}),
        )
        .await
        .unwrap();
    let order = v["order_id"].as_str().unwrap().to_owned();
    assert!(v["checkout_url"].is_null());
    assert_eq!(v["status"], "pending");
    // The buyer cannot pay it; no webhook can (manual takes none).
    let (http, _) = error_key(
        &user,
        "/api/v1/admin/mall/order/mark-paid",
        json!({"order_id": order}),
    )
    .await;
    assert_eq!(http, 403);
    let r = reqwest::Client::new()
        .post(format!("{}/api/v1/payment/webhook/manual", m.app.base))
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 404);
    let op = m.app.operator().await;
    let paid: Value = op
        .post(
            "/api/v1/admin/mall/order/mark-paid",
            &json!({"order_id": order}),
        )
        .await
        .unwrap();
    assert_eq!(paid["status"], "paid");
    // Twice is once.
    op.post::<_, Value>(
        "/api/v1/admin/mall/order/mark-paid",
        &json!({"order_id": order}),
    )
    .await
    .unwrap();
    assert_eq!(credits(&user).await, before + 100);
    // A refund recorded by the operator takes the credits back.
    let r: Value = op
        .post(
            "/api/v1/admin/mall/order/mark-refunded",
            &json!({"order_id": order}),
        )
        .await
        .unwrap();
    assert_eq!(r["status"], "refunded");
    assert_eq!(credits(&user).await, before);
    // An unknown provider is refused.
    let (http, key) = error_key(
        &user,
        "/api/v1/payment/order/create",
        json!({"product_id": "coins-100", "provider": "paypal"}),
    )
    .await;
    assert_eq!((http, key.as_str()), (503, "PaymentProviderUnavailable"));
}

#[tokio::test]
async fn operators_edit_the_catalogue() {
    let m = Mall::start().await;
    let op = m.app.operator().await;
    let (_, user) = m.app.user("Shopper").await;
    let p = json!({"product_id": "coins-5000", "kind": "credits", "name": "5000 credits",
                   "price": 30000, "currency": "CNY", "coins": 5000, "sort": 5});
    let (http, _) = error_key(&user, "/api/v1/admin/mall/product/upsert", p.clone()).await;
    assert_eq!(http, 403);
    op.post::<_, Value>("/api/v1/admin/mall/product/upsert", &p)
        .await
        .unwrap();
    let list: Value = user
        .post("/api/v1/payment/product/list-web", &json!({}))
        .await
        .unwrap();
    assert!(list["items"]
        .as_array()
        .unwrap()
        .iter()
        .any(|x| x["product_id"] == "coins-5000"));
    // Hidden: no longer listed or sold.
    let mut hidden = p.clone();
    hidden["active"] = json!(false);
    op.post::<_, Value>("/api/v1/admin/mall/product/upsert", &hidden)
        .await
        .unwrap();
    let (http, key) = error_key(
        &user,
        "/api/v1/payment/order/create",
        json!({"product_id": "coins-5000"}),
    )
    .await;
    assert_eq!((http, key.as_str()), (404, "ProductNotFound"));
    // A bad product is refused with the reason.
    let mut bad = p.clone();
    bad["price"] = json!(-1);
    let (http, key) = error_key(&op, "/api/v1/admin/mall/product/upsert", bad).await;
    assert_eq!((http, key.as_str()), (400, "InvalidParams"));
}
