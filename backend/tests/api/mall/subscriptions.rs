//! A plan's life through the fake Stripe: started, renewed, upgraded with
//! proration, paused and resumed, failed to renew, lapsed; cancelled with
//! feedback and the retention offer; perks switching as it goes.

use std::time::Duration;

use serde_json::{json, Value};

use super::*;

async fn payment(c: &RestClient) -> Value {
    c.post("/api/v1/account/payment-info", &json!({}))
        .await
        .unwrap()
}

async fn sub_detail(c: &RestClient) -> Value {
    let v: Value = c
        .post("/api/v1/payment/order/sub-detail", &json!({}))
        .await
        .unwrap();
    v["subscription"].clone()
}

/// The Stripe subscription id of the latest subscription checkout.
async fn stripe_sub(m: &Mall) -> String {
    m.stripe
        .events()
        .await
        .iter()
        .rev()
        .find(|e| e["type"] == "customer.subscription.created")
        .map(|e| {
            let p: Value = serde_json::from_str(e["payload"].as_str().unwrap()).unwrap();
            p["data"]["object"]["id"].as_str().unwrap().to_owned()
        })
        .unwrap()
}

/// Subscribes `user` to `product` through the hosted page.
async fn subscribe(m: &Mall, user: &RestClient, product: &str) -> (String, String) {
    let (order, url) = buy(
        user,
        "/api/v1/payment/order/create-sub",
        json!({"product_id": product}),
    )
    .await;
    m.stripe.press(&url, "pay").await;
    let s = order_status(user, &order).await;
    assert_eq!(s["status"], "paid", "{s}");
    (order, stripe_sub(m).await)
}

fn sent_ok(r: &Value) {
    for e in r["events"].as_array().unwrap() {
        assert_eq!(e["status"], 200, "{e}");
    }
}

#[tokio::test]
async fn a_plan_is_started_renewed_upgraded_paused_failed_and_lapsed() {
    let m = Mall::start().await;
    let (_, user) = m.app.user("Member").await;
    let base = credits(&user).await;
    assert_eq!(payment(&user).await["liteActiveState"], false);
    // A pack is not a plan.
    let (http, key) = error_key(
        &user,
        "/api/v1/payment/order/create-sub",
        json!({"product_id": "coins-100"}),
    )
    .await;
    assert_eq!((http, key.as_str()), (404, "ProductNotFound"));

    let (_, sub) = subscribe(&m, &user, "lite-month").await;
    let p = payment(&user).await;
    assert_eq!(
        p,
        json!({"activeState": false, "liteActiveState": true, "infiniteQueue": false, "productLevel": 1})
    );
    assert_eq!(
        credits(&user).await,
        base + 600,
        "the first month's credits"
    );
    let d = sub_detail(&user).await;
    assert_eq!(
        (
            d["status"].as_str(),
            d["auto_renew"].as_bool(),
            d["plan"].as_str()
        ),
        (Some("active"), Some(true), Some("lite"))
    );
    let period_end = d["current_period_end"].as_i64().unwrap();
    // A second plan while one runs: refused.
    let (http, key) = error_key(
        &user,
        "/api/v1/payment/order/create-sub",
        json!({"product_id": "full-month"}),
    )
    .await;
    assert_eq!((http, key.as_str()), (409, "SubscriptionExists"));

    // Renewal, driven by Stripe: the next period, its credits, a renewal
    // order in the buy log.
    sent_ok(
        &m.stripe
            .post(&format!("/_test/subscriptions/{sub}/renew"), json!({}))
            .await,
    );
    let d = sub_detail(&user).await;
    assert!(
        d["current_period_end"].as_i64().unwrap() > period_end,
        "{d}"
    );
    assert_eq!(credits(&user).await, base + 1200);
    let log: Value = user
        .post("/api/v1/payment/buy/log", &json!({}))
        .await
        .unwrap();
    let kinds: Vec<&str> = log["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["renewal", "subscription"]);
    // The same renewal delivered again grants nothing more.
    let renewal = m
        .stripe
        .events()
        .await
        .into_iter()
        .rev()
        .find(|e| e["type"] == "invoice.paid")
        .unwrap();
    let ev: Value = serde_json::from_str(renewal["payload"].as_str().unwrap()).unwrap();
    let mut replay = ev.clone();
    replay["id"] = json!(format!("{}_again", ev["id"].as_str().unwrap()));
    sent_ok(
        &m.stripe
            .post("/_test/send", json!({"event": replay, "signature": "good"}))
            .await,
    );
    assert_eq!(credits(&user).await, base + 1200);

    // Upgrade to full, prorated to the day: a whole period is left.
    let q: Value = user
        .post(
            "/api/v1/payment/order/upgrade-price",
            &json!({"product_id": "full-month"}),
        )
        .await
        .unwrap();
    let days = q["days_left"].as_i64().unwrap();
    assert!((29..=30).contains(&days), "{q}");
    assert_eq!(
        q["price"].as_i64().unwrap(),
        ((9900 - 3900) * days + 29) / 30,
        "{q}"
    );
    let batch: Value = user
        .post("/api/v1/payment/order/batch-upgrade-price", &json!({}))
        .await
        .unwrap();
    assert!(batch["items"]
        .as_array()
        .unwrap()
        .iter()
        .any(|i| i["product_id"] == "full-month"));
    let (http, key) = error_key(
        &user,
        "/api/v1/payment/order/upgrade-price",
        json!({"product_id": "lite-year"}),
    )
    .await;
    assert_eq!((http, key.as_str()), (400, "NotAnUpgrade"));
    let (order, url) = buy(
        &user,
        "/api/v1/payment/order/upgrade",
        json!({"product_id": "full-month"}),
    )
    .await;
    m.stripe.press(&url, "pay").await;
    assert_eq!(order_status(&user, &order).await["status"], "paid");
    let p = payment(&user).await;
    assert_eq!(
        p,
        json!({"activeState": true, "liteActiveState": false, "infiniteQueue": true, "productLevel": 3})
    );
    // Stripe renews at the new price, without charging proration again.
    let reqs = m.stripe.requests().await;
    let change = reqs
        .iter()
        .rev()
        .find(|r| r["path"] == format!("/v1/subscriptions/{sub}") && r["method"] == "POST")
        .unwrap();
    assert_eq!(change["form"]["proration_behavior"], "none", "{change}");
    assert_eq!(
        change["form"]["items"][0]["price_data"]["unit_amount"],
        "9900"
    );

    // Pause for a month: Stripe stops collecting; the paid period keeps its perks.
    let v: Value = user
        .post("/api/v1/payment/order/pause-info", &json!({}))
        .await
        .unwrap();
    assert_eq!(
        (v["can_pause"].as_bool(), v["months"].clone()),
        (Some(true), json!([1, 2, 3]))
    );
    let v: Value = user
        .post("/api/v1/payment/order/pause-sub", &json!({"months": 1}))
        .await
        .unwrap();
    assert_eq!(v["status"], "paused");
    assert!(v["perks_active"].as_bool().unwrap());
    let reqs = m.stripe.requests().await;
    let last = reqs
        .iter()
        .rev()
        .find(|r| r["method"] == "POST" && r["path"] == format!("/v1/subscriptions/{sub}"))
        .unwrap();
    assert!(
        last["form"]["pause_collection"]["resumes_at"].is_string(),
        "{last}"
    );
    assert!(payment(&user).await["activeState"].as_bool().unwrap());
    m.stripe.post("/_test/flush", json!({})).await;
    let v: Value = user
        .post("/api/v1/payment/order/pause-sub", &json!({"months": 0}))
        .await
        .unwrap();
    assert_eq!(v["status"], "active");
    m.stripe.post("/_test/flush", json!({})).await;
    assert_eq!(sub_detail(&user).await["status"], "active");

    // A renewal fails: past due, perks kept while the period lasts.
    sent_ok(
        &m.stripe
            .post(&format!("/_test/subscriptions/{sub}/fail"), json!({}))
            .await,
    );
    assert_eq!(sub_detail(&user).await["status"], "past_due");
    assert!(payment(&user).await["activeState"].as_bool().unwrap());

    // ... until the period ends: Stripe says it ends two seconds from now.
    let mut obj = fetch_sub(&m, &sub).await;
    let soon = unix_now() + 2;
    obj["status"] = json!("past_due");
    obj["current_period_end"] = json!(soon);
    if let Some(items) = obj["items"]["data"].as_array_mut() {
        for it in items {
            it["current_period_end"] = json!(soon);
        }
    }
    let ev = json!({"id": "evt_period_ends", "object": "event", "type": "customer.subscription.updated",
                    "created": unix_now() + 1, "data": {"object": obj}});
    sent_ok(
        &m.stripe
            .post("/_test/send", json!({"event": ev, "signature": "good"}))
            .await,
    );
    assert!(payment(&user).await["activeState"].as_bool().unwrap());
    tokio::time::sleep(Duration::from_millis(3200)).await;
    assert_eq!(
        payment(&user).await["activeState"],
        false,
        "perks end with the paid period"
    );
    // Stripe gives up: the plan ends.
    sent_ok(
        &m.stripe
            .post(&format!("/_test/subscriptions/{sub}/lapse"), json!({}))
            .await,
    );
    assert_eq!(sub_detail(&user).await["status"], "canceled");
    assert_eq!(
        payment(&user).await,
        json!({"activeState": false, "liteActiveState": false, "infiniteQueue": false, "productLevel": 0})
    );
    // A new plan may be bought again, at full price (the first-plan offer is used up).
    let d: Value = user
        .post("/api/v1/payment/assets/discount", &json!({}))
        .await
        .unwrap();
    assert_eq!(d["eligible"], false);
}

async fn fetch_sub(m: &Mall, sub: &str) -> Value {
    reqwest::Client::new()
        .get(format!("{}/v1/subscriptions/{sub}", m.stripe.url))
        .bearer_auth(STRIPE_KEY)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

#[tokio::test]
async fn cancelling_asks_why_offers_to_stay_and_keeps_the_paid_period() {
    let m = Mall::start().await;
    let (_, user) = m.app.user("Leaver").await;
    // No plan: nothing to manage.
    let (http, key) = error_key(&user, "/api/v1/payment/order/cancel-sub-user", json!({})).await;
    assert_eq!((http, key.as_str()), (404, "NoSubscription"));
    let (_, sub) = subscribe(&m, &user, "full-month").await;

    let info: Value = user
        .post("/api/v1/payment/calculate/retention-popup-info", &json!({}))
        .await
        .unwrap();
    assert_eq!(
        (info["show"].as_bool(), info["percent_off"].as_i64()),
        (Some(true), Some(30))
    );
    assert_eq!(info["discounted_price"], 6930);
    // Feedback is validated.
    let (http, _) = error_key(
        &user,
        "/api/v1/payment/order/feedback",
        json!({"reason": "bogus"}),
    )
    .await;
    assert_eq!(http, 400);
    // Takes the offer: Stripe gets a 30 % coupon for the next invoice.
    let v: Value = user
        .post("/api/v1/payment/order/retention-accept", &json!({}))
        .await
        .unwrap();
    assert_eq!(
        (v["retention_used"].as_bool(), v["auto_renew"].as_bool()),
        (Some(true), Some(true))
    );
    let reqs = m.stripe.requests().await;
    let coupon = reqs
        .iter()
        .rev()
        .find(|r| r["path"] == "/v1/coupons")
        .unwrap();
    assert_eq!(coupon["form"]["percent_off"], "30");
    let (http, _) = error_key(&user, "/api/v1/payment/order/retention-accept", json!({})).await;
    assert_eq!(http, 409, "once per plan");
    let info: Value = user
        .post("/api/v1/payment/calculate/retention-popup-info", &json!({}))
        .await
        .unwrap();
    assert_eq!(info["show"], false);

    // Later they cancel, saying why: no renewal, perks to the period's end.
    let v: Value = user
        .post(
            "/api/v1/payment/order/cancel-sub-user",
            &json!({"reason": "too_expensive", "text": "Great, but I draw less now."}),
        )
        .await
        .unwrap();
    assert_eq!(
        (v["auto_renew"].as_bool(), v["perks_active"].as_bool()),
        (Some(false), Some(true))
    );
    let reqs = m.stripe.requests().await;
    let last = reqs
        .iter()
        .rev()
        .find(|r| r["path"] == format!("/v1/subscriptions/{sub}"))
        .unwrap();
    assert_eq!(last["form"]["cancel_at_period_end"], "true");
    assert!(payment(&user).await["activeState"].as_bool().unwrap());
    // Changes their mind: renewal back on.
    let v: Value = user
        .post("/api/v1/payment/order/renewal-sub", &json!({}))
        .await
        .unwrap();
    assert_eq!(v["subscription"]["auto_renew"], true);
    assert!(v["order"].is_null());
    let v: Value = user
        .post("/api/v1/payment/order/clear-renewal-sub", &json!({}))
        .await
        .unwrap();
    assert_eq!(v["auto_renew"], false);
    // The customer portal for cards and invoices.
    let v: Value = user
        .post("/api/v1/payment/order/portal", &json!({}))
        .await
        .unwrap();
    assert!(v["url"].as_str().unwrap().starts_with("http"), "{v}");
    // Another member cannot touch this plan.
    let (_, other) = m.app.user("Other").await;
    let sub_id = sub_detail(&user).await["sub_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (http, key) = error_key(
        &other,
        "/api/v1/payment/order/pause-sub",
        json!({"sub_id": sub_id, "months": 1}),
    )
    .await;
    assert_eq!((http, key.as_str()), (404, "NoSubscription"));
}

#[tokio::test]
async fn the_half_price_offer_shows_once_a_day_and_halves_the_first_payment() {
    let m = Mall::start().await;
    let (_, user) = m.app.user("Newcomer").await;
    let first: Value = user
        .post("/api/v1/payment/discount/popup-info", &json!({}))
        .await
        .unwrap();
    assert_eq!(
        (first["show"].as_bool(), first["off_rate"].as_i64()),
        (Some(true), Some(50))
    );
    assert_eq!(first["product"]["product_id"], "full-month");
    assert_eq!(first["discounted_price"], 4950);
    let again: Value = user
        .post("/api/v1/payment/discount/popup-info", &json!({}))
        .await
        .unwrap();
    assert_eq!(again["show"], false, "once a day");
    // Packs have no such offer.
    let (http, _) = error_key(
        &user,
        "/api/v1/payment/order/create",
        json!({"product_id": "coins-100", "use_discount": true}),
    )
    .await;
    assert_eq!(http, 409);
    let v: Value = user
        .post(
            "/api/v1/payment/order/create-sub",
            &json!({"product_id": "full-month", "use_discount": true}),
        )
        .await
        .unwrap();
    assert_eq!(v["amount"], 4950);
    // Stripe: a full-price plan whose first invoice carries the discount.
    let reqs = m.stripe.requests().await;
    let coupon = reqs.iter().find(|r| r["path"] == "/v1/coupons").unwrap();
    assert_eq!(coupon["form"]["amount_off"], "4950");
    m.stripe
        .press(v["checkout_url"].as_str().unwrap(), "pay")
        .await;
    assert_eq!(
        order_status(&user, v["order_id"].as_str().unwrap()).await["status"],
        "paid"
    );
    let d: Value = user
        .post("/api/v1/payment/assets/discount", &json!({}))
        .await
        .unwrap();
    assert_eq!(d["eligible"], false);
}
