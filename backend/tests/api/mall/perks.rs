//! Perks follow the plan: bought through the (fake) checkout they apply to
//! the next task at once; the queue limit binds accounts without the
//! unlimited queue; when the plan ends they are gone for new work.

use serde_json::{json, Value};

use super::*;
use crate::tasks::{checkpoint, loras, t2i};

#[tokio::test]
async fn perks_switch_on_with_the_plan_and_off_when_it_ends() {
    // A slow engine and one worker keep tasks in progress.
    let m = Mall::start_with(&[
        ("EASEL_QUEUE_LIMIT", "2"),
        ("EASEL_REFERENCE_STEP_MS", "300"),
        ("EASEL_WORKERS", "1"),
    ])
    .await;
    let (_, user) = m.app.user("Perky").await;
    let sd = checkpoint(&user, "sd").await;
    // Free: at most 2 in progress; LoRAs limited; 2 images by default.
    let mut free = t2i(&sd, "a kettle", 1);
    free["meta"]["n_iter"] = Value::Null;
    let id = user
        .create_task("/api/v1/task/create", &free)
        .await
        .unwrap();
    let t: Value = user
        .post("/api/v1/task/detail", &json!({"id": id}))
        .await
        .unwrap();
    assert_eq!(t["n_iter"], 2);
    user.create_task("/api/v1/task/create", &free)
        .await
        .unwrap();
    let e = user
        .create_task("/api/v1/task/create", &free)
        .await
        .unwrap_err();
    assert_eq!(
        e.status().and_then(|s| s.key.clone()).as_deref(),
        Some("TaskQueueFull")
    );
    // gen_mode 1 is not for free accounts: forced to 0, still limited.
    let mut unlimited = free.clone();
    unlimited["meta"]["generate"] = json!({"gen_mode": 1});
    assert!(user
        .create_task("/api/v1/task/create", &unlimited)
        .await
        .is_err());
    let mut many = t2i(&sd, "a kettle", 2);
    many["meta"]["lora_models"] = json!(loras(&user, "sd", 5).await);

    // The full plan: infinite queue, fast lane, 4 images, LoRAs unlimited.
    let (order, url) = buy(
        &user,
        "/api/v1/payment/order/create-sub",
        json!({"product_id": "full-month"}),
    )
    .await;
    m.stripe.press(&url, "pay").await;
    assert_eq!(order_status(&user, &order).await["status"], "paid");
    let id = user
        .create_task("/api/v1/task/create", &unlimited)
        .await
        .unwrap();
    let t: Value = user
        .post("/api/v1/task/detail", &json!({"id": id}))
        .await
        .unwrap();
    assert_eq!(
        (t["n_iter"].as_i64(), t["speed_type"].as_i64()),
        (Some(4), Some(2)),
        "{t}"
    );
    user.create_task("/api/v1/task/create", &many)
        .await
        .unwrap();

    // The plan ends (Stripe gives up on it): new work is free work again.
    let sub = m
        .stripe
        .events()
        .await
        .iter()
        .rev()
        .find(|e| e["type"] == "customer.subscription.created")
        .map(|e| {
            let p: Value = serde_json::from_str(e["payload"].as_str().unwrap()).unwrap();
            p["data"]["object"]["id"].as_str().unwrap().to_owned()
        })
        .unwrap();
    m.stripe
        .post(&format!("/_test/subscriptions/{sub}/lapse"), json!({}))
        .await;
    let e = user
        .create_task("/api/v1/task/create", &many)
        .await
        .unwrap_err();
    assert_eq!(
        e.status().and_then(|s| s.key.clone()).as_deref(),
        Some("LoRALimit5TipWeb")
    );
    let e = user
        .create_task("/api/v1/task/create", &unlimited)
        .await
        .unwrap_err();
    assert_eq!(
        e.status().and_then(|s| s.key.clone()).as_deref(),
        Some("TaskQueueFull")
    );
}
