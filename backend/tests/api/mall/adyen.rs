//! Adyen through its fake: a payment link paid on the hosted page, an
//! HMAC-signed AUTHORISATION pays the order; a bad HMAC changes nothing;
//! payment methods and 3-D Secure 2 details pass through.

use serde_json::{json, Value};

use super::*;

#[tokio::test]
async fn an_adyen_payment_link_pays_an_order_by_its_signed_notification() {
    let adyen = Fake::start(
        "adyen_fake.py",
        &[
            "--api-key",
            ADYEN_KEY,
            "--hmac-key",
            ADYEN_HMAC,
            "--merchant-account",
            "EaselECOM",
        ],
    );
    let api = format!("{}/v71", adyen.url);
    let app = crate::helpers::spawn_app_with(&[
        ("EASEL_ADYEN_API_URL", api.as_str()),
        ("EASEL_ADYEN_API_KEY", ADYEN_KEY),
        ("EASEL_ADYEN_MERCHANT_ACCOUNT", "EaselECOM"),
        ("EASEL_ADYEN_HMAC_KEY", ADYEN_HMAC),
    ])
    .await;
    adyen
        .post(
            "/_test/config",
            json!({"webhook_url": format!("{}/api/v1/payment/webhook/adyen", app.base)}),
        )
        .await;
    let (_, user) = app.user("Adyen").await;
    let before = credits(&user).await;
    let methods: Value = user
        .post(
            "/api/v1/payment/adyen/payment-method",
            &json!({"product_id": "coins-100"}),
        )
        .await
        .unwrap();
    assert!(
        methods["paymentMethods"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["type"] == "scheme"),
        "{methods}"
    );
    let (order, url) = buy(
        &user,
        "/api/v1/payment/order/create",
        json!({"product_id": "coins-100"}),
    )
    .await;
    assert!(url.starts_with(&adyen.url), "{url}");
    let link = adyen.get("/_test/requests").await["requests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["path"] == "/v71/paymentLinks")
        .unwrap()
        .clone();
    let body = &link["body"];
    assert_eq!(body["reference"], order.as_str(), "{link}");
    assert_eq!(body["amount"], json!({"value": 990, "currency": "CNY"}));

    // A notification with a wrong HMAC is refused and changes nothing.
    let r = adyen
        .post(
            "/_test/send",
            json!({"items": [{"eventCode": "AUTHORISATION", "pspReference": "PSPFORGED", "merchantReference": order,
                               "amount": {"value": 990, "currency": "CNY"}, "success": "true"}],
                   "signature": "bad"}),
        )
        .await;
    assert_eq!(r["events"][0]["status"], 400, "{r}");
    assert_eq!(order_status(&user, &order).await["status"], "pending");

    adyen.press(&url, "pay").await;
    let s = order_status(&user, &order).await;
    assert_eq!(s["status"], "paid", "{s}");
    assert_eq!(credits(&user).await, before + 100);
    let events = adyen.get("/_test/events").await;
    assert!(
        events["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["answer"].as_str().unwrap_or("").contains("[accepted]")),
        "{events}"
    );

    // 3-D Secure 2 details go to Adyen for one's own order only.
    let v: Value = user
        .post(
            "/api/v1/payment/adyen/check-three-ds2",
            &json!({"order_id": order, "details": {"redirectResult": "X3XtfGC9"}}),
        )
        .await
        .unwrap();
    assert_eq!(v["result_code"], "Authorised", "{v}");
    let (_, other) = app.user("Nosy").await;
    let (http, key) = error_key(
        &other,
        "/api/v1/payment/adyen/check-three-ds2",
        json!({"order_id": order, "details": {"redirectResult": "x"}}),
    )
    .await;
    assert_eq!((http, key.as_str()), (404, "OrderNotFound"));
}
