//! Refunds and disputes take back what an order granted; what was spent
//! becomes a debt that later grants pay, never a silent negative balance.

use serde_json::{json, Value};

use super::*;

async fn paid_pack(m: &Mall, user: &RestClient, product: &str) -> (String, String) {
    let (order, url) = buy(
        user,
        "/api/v1/payment/order/create",
        json!({"product_id": product}),
    )
    .await;
    m.stripe.press(&url, "pay").await;
    assert_eq!(order_status(user, &order).await["status"], "paid");
    let pi = m
        .stripe
        .events()
        .await
        .iter()
        .rev()
        .find_map(|e| {
            let p: Value = serde_json::from_str(e["payload"].as_str()?).ok()?;
            (p["data"]["object"]["client_reference_id"] == order.as_str()).then(|| {
                p["data"]["object"]["payment_intent"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
        })
        .unwrap();
    (order, pi)
}

#[tokio::test]
async fn a_refund_reverses_credits_and_what_was_spent_becomes_debt() {
    let m = Mall::start_with(&[("EASEL_SIGNUP_CREDITS", "0")]).await;
    let (_, user) = m.app.user("Refundee").await;
    assert_eq!(credits(&user).await, 0);
    let (order, pi) = paid_pack(&m, &user, "coins-100").await;
    assert_eq!(credits(&user).await, 100);
    // Refund 40 % of the money: 40 credits go back.
    let r = m
        .stripe
        .post(
            &format!("/_test/payment_intents/{pi}/refund"),
            json!({"amount": 396}),
        )
        .await;
    assert_eq!(r["events"][0]["status"], 200, "{r}");
    let s = order_status(&user, &order).await;
    assert_eq!(
        (s["status"].as_str(), s["refunded"].as_i64()),
        (Some("paid"), Some(396))
    );
    assert_eq!(credits(&user).await, 60);
    // Some of the rest is spent on a picture.
    let model = crate::tasks::checkpoint(&user, "sd").await;
    let id = user
        .create_task(
            "/api/v1/task/create",
            &crate::tasks::t2i(&model, "a lighthouse", 3),
        )
        .await
        .unwrap();
    user.wait_task(&id, crate::tasks::TASK_WAIT).await.unwrap();
    let spent = 60 - credits(&user).await;
    assert!(spent > 0);
    // Refunded in full: what is left goes, what was spent becomes debt.
    let r = m
        .stripe
        .post(&format!("/_test/payment_intents/{pi}/refund"), json!({}))
        .await;
    assert_eq!(r["events"][0]["status"], 200, "{r}");
    assert_eq!(order_status(&user, &order).await["status"], "refunded");
    let a = assets(&user).await;
    assert_eq!(
        (a["coins"].as_i64(), a["debt"].as_i64()),
        (Some(0), Some(spent)),
        "{a}"
    );
    let entries = a["entries"].as_array().unwrap();
    let sum: i64 = entries.iter().map(|e| e["delta"].as_i64().unwrap()).sum();
    assert_eq!(sum, 0, "entries sum to the balance");
    // The next purchase pays the debt first.
    paid_pack(&m, &user, "coins-100").await;
    let a = assets(&user).await;
    assert_eq!(
        (a["coins"].as_i64(), a["debt"].as_i64()),
        (Some(100 - spent), Some(0)),
        "{a}"
    );
}

#[tokio::test]
async fn a_dispute_takes_credits_back_into_debt_and_a_won_dispute_returns_them() {
    let m = Mall::start().await;
    let (_, user) = m.app.user("Disputer").await;
    let base = credits(&user).await;
    let (order, pi) = paid_pack(&m, &user, "coins-550").await;
    let d = m
        .stripe
        .post(&format!("/_test/payment_intents/{pi}/dispute"), json!({}))
        .await;
    assert_eq!(d["events"][0]["status"], 200, "{d}");
    assert_eq!(order_status(&user, &order).await["status"], "disputed");
    assert_eq!(credits(&user).await, base);
    // A replay of the dispute takes nothing more.
    let dispute = d["dispute"].as_str().unwrap().to_owned();
    let ev: Value = serde_json::from_str(d["events"][0]["payload"].as_str().unwrap()).unwrap();
    let r = m
        .stripe
        .post("/_test/send", json!({"event": ev, "signature": "good"}))
        .await;
    assert_eq!(r["events"][0]["status"], 200);
    assert_eq!(credits(&user).await, base);
    // Won: the order is paid again and its credits return.
    let r = m
        .stripe
        .post(
            &format!("/_test/disputes/{dispute}/close"),
            json!({"won": true}),
        )
        .await;
    assert_eq!(r["events"][0]["status"], 200, "{r}");
    assert_eq!(order_status(&user, &order).await["status"], "paid");
    assert_eq!(credits(&user).await, base + 550);
}
