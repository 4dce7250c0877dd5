//! The Adyen adapter: notification HMAC (Adyen's documented example and a
//! vector computed by Python's hmac module), refusal of bad signatures,
//! event mapping, and payment links / payment methods / payment details
//! against the fake Adyen (`tests/fakes/adyen_fake.py`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod common;

use std::process::Command;
use std::sync::Arc;

use base64::Engine as _;
use common::{now, Fake, Receiver, ADYEN_HMAC, ADYEN_KEY};
use easel_payments::adyen::{self, Adyen, AdyenConfig};
use easel_payments::{
    CheckoutMode, CheckoutRequest, EventKind, Interval, PaymentProvider, ProviderError, Secret,
    SubscriptionChange, WebhookError,
};
use serde_json::{json, Value};

fn provider(api_url: &str, key: &str) -> Adyen {
    Adyen::new(AdyenConfig {
        api_url: api_url.into(),
        api_key: Secret::new(key),
        merchant_account: "EaselECOM".into(),
        hmac_key: Secret::new(ADYEN_HMAC),
        return_url_base: "https://easel.test/mall/return".into(),
        ..AdyenConfig::default()
    })
    .unwrap()
}

/// Adyen's documentation example item (its hmacSignature is the one the
/// docs show for this key).
fn doc_item() -> Value {
    json!({
        "additionalData": {"hmacSignature": "coqCmt/IZ4E3CzPvMY8zTjQVL5hYJUiBRg8UU+iCWo0="},
        "amount": {"currency": "EUR", "value": 1130},
        "eventCode": "AUTHORISATION",
        "eventDate": "2019-05-06T17:15:34.121+02:00",
        "merchantAccountCode": "TestMerchant",
        "merchantReference": "TestPayment-1407325143704",
        "operations": ["CANCEL", "CAPTURE", "REFUND"],
        "paymentMethod": "visa",
        "pspReference": "7914073381342284",
        "reason": "1234:7777:12/2012",
        "success": "true"
    })
}

fn body(items: &[Value]) -> Vec<u8> {
    let items: Vec<Value> = items
        .iter()
        .map(|i| json!({"NotificationRequestItem": i}))
        .collect();
    json!({"live": "false", "notificationItems": items})
        .to_string()
        .into_bytes()
}

fn signed(mut item: Value) -> Value {
    let sig = adyen::sign_item(&Secret::new(ADYEN_HMAC), &item).unwrap();
    item["additionalData"]["hmacSignature"] = json!(sig);
    item
}

#[test]
fn the_documented_example_verifies() {
    let item = doc_item();
    assert_eq!(
        adyen::signing_string(&item),
        "7914073381342284::TestMerchant:TestPayment-1407325143704:1130:EUR:AUTHORISATION:true"
    );
    let p = provider("http://unused", "k");
    let evs = p.verify_webhook(&vec![], &body(&[item]), 0).unwrap();
    assert_eq!(evs.len(), 1);
    assert_eq!(evs[0].id, "7914073381342284:AUTHORISATION");
    // 2019-05-06T17:15:34+02:00 = 15:15:34 UTC.
    assert_eq!(evs[0].created, 1_557_155_734);
    assert_eq!(
        evs[0].kind,
        EventKind::CheckoutCompleted {
            order_id: "TestPayment-1407325143704".into(),
            session_id: "7914073381342284".into(),
            paid: true,
            customer: None,
            subscription: None,
            payment: Some("7914073381342284".into()),
            amount: Some(1130),
            currency: Some("eur".into()),
        }
    );
}

#[test]
fn signatures_match_pythons_hmac() {
    let item = json!({
        "pspReference": "QFQTPCQ8HXSKGK82", "originalReference": "JVBXGSDM53RZNN82",
        "merchantAccountCode": "EaselECOM", "merchantReference": "ord_7",
        "amount": {"value": 250, "currency": "CNY"}, "eventCode": "REFUND", "success": "true"
    });
    let script = format!(
        "import hmac,hashlib,base64;print(base64.b64encode(hmac.new(bytes.fromhex('{ADYEN_HMAC}'),\
         b'QFQTPCQ8HXSKGK82:JVBXGSDM53RZNN82:EaselECOM:ord_7:250:CNY:REFUND:true',hashlib.sha256).digest()).decode())"
    );
    let out = Command::new("python3")
        .args(["-c", &script])
        .output()
        .unwrap();
    let python = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        adyen::sign_item(&Secret::new(ADYEN_HMAC), &item).unwrap(),
        python.trim()
    );
}

#[test]
fn any_bad_item_refuses_the_whole_notification() {
    let p = provider("http://unused", "k");
    let good = doc_item();
    let mut bad = signed(json!({
        "pspReference": "A1", "merchantAccountCode": "EaselECOM", "merchantReference": "ord_1",
        "amount": {"value": 100, "currency": "CNY"}, "eventCode": "AUTHORISATION", "success": "true"
    }));
    // Changing a signed field breaks it.
    bad["amount"]["value"] = json!(1);
    assert_eq!(
        p.verify_webhook(&vec![], &body(&[good.clone(), bad]), 0),
        Err(WebhookError::BadSignature)
    );
    let mut garbled = good.clone();
    garbled["additionalData"]["hmacSignature"] = json!("%%%");
    assert_eq!(
        p.verify_webhook(&vec![], &body(&[garbled]), 0),
        Err(WebhookError::BadSignature)
    );
    let mut unsigned = good.clone();
    unsigned["additionalData"] = json!({});
    assert_eq!(
        p.verify_webhook(&vec![], &body(&[good.clone(), unsigned]), 0),
        Err(WebhookError::MissingSignature)
    );
    // Another key.
    let other = Adyen::new(AdyenConfig {
        hmac_key: Secret::new("00".repeat(32)),
        ..AdyenConfig::default()
    })
    .unwrap();
    assert_eq!(
        other.verify_webhook(&vec![], &body(&[good]), 0),
        Err(WebhookError::BadSignature)
    );
    assert!(matches!(
        p.verify_webhook(&vec![], b"{}", 0),
        Err(WebhookError::Malformed(_))
    ));
}

#[test]
fn notification_mapping() {
    let p = provider("http://unused", "k");
    let item = |code: &str, psp: &str, orig: &str, success: &str| {
        signed(json!({
            "pspReference": psp, "originalReference": orig, "merchantAccountCode": "EaselECOM",
            "merchantReference": "ord_5", "amount": {"value": 300, "currency": "CNY"},
            "eventCode": code, "success": success, "additionalData": {"paymentLinkId": "PLX"}
        }))
    };
    let evs = p
        .verify_webhook(
            &vec![],
            &body(&[
                item("AUTHORISATION", "P1", "", "true"),
                item("AUTHORISATION", "P2", "", "false"),
                item("REFUND", "R1", "P1", "true"),
                item("REFUND", "R2", "P1", "false"),
                item("CHARGEBACK", "P1", "", "true"),
                item("CHARGEBACK_REVERSED", "P1", "", "true"),
                item("SECOND_CHARGEBACK", "P1", "", "true"),
                item("REPORT_AVAILABLE", "X1", "", "true"),
            ]),
            1234,
        )
        .unwrap();
    let kinds: Vec<EventKind> = evs.iter().map(|e| e.kind.clone()).collect();
    assert_eq!(
        kinds,
        vec![
            EventKind::CheckoutCompleted {
                order_id: "ord_5".into(),
                session_id: "PLX".into(),
                paid: true,
                customer: None,
                subscription: None,
                payment: Some("P1".into()),
                amount: Some(300),
                currency: Some("cny".into()),
            },
            EventKind::AsyncPayment {
                order_id: "ord_5".into(),
                succeeded: false
            },
            EventKind::Refunded {
                payment: "P1".into(),
                amount: 300,
                full: false
            },
            EventKind::Ignored {
                kind: "REFUND".into()
            },
            EventKind::DisputeOpened {
                payment: "P1".into(),
                dispute: "P1".into()
            },
            EventKind::DisputeClosed {
                payment: "P1".into(),
                dispute: "P1".into(),
                won: true
            },
            EventKind::DisputeClosed {
                payment: "P1".into(),
                dispute: "P1".into(),
                won: false
            },
            EventKind::Ignored {
                kind: "REPORT_AVAILABLE".into()
            },
        ]
    );
    assert_eq!(evs[2].id, "R1:REFUND");
    // No eventDate: the time of receipt.
    assert_eq!(evs[0].created, 1234);
}

#[test]
fn rfc3339_times() {
    assert_eq!(adyen::rfc3339_seconds("1970-01-01T00:00:00Z"), Some(0));
    assert_eq!(
        adyen::rfc3339_seconds("2026-11-26T06:00:00+00:00"),
        Some(1_795_672_800)
    );
    assert_eq!(
        adyen::rfc3339_seconds("2026-11-26T07:30:00.5+01:30"),
        Some(1_795_672_800)
    );
    assert_eq!(
        adyen::rfc3339_seconds("2024-02-29T00:00:00-00:00"),
        Some(1_709_164_800)
    );
    assert_eq!(adyen::rfc3339_seconds("yesterday"), None);
}

fn order(id: &str, mode: CheckoutMode) -> CheckoutRequest {
    CheckoutRequest {
        order_id: id.into(),
        account_id: "acc_3".into(),
        email: Some("b@example.com".into()),
        customer: None,
        product_name: "Lite plan".into(),
        product_id: "plan_lite_month".into(),
        amount: 3000,
        currency: "cny".into(),
        mode,
        discount: 1000,
        success_url: format!("https://easel.test/mall/order/{id}"),
        cancel_url: String::new(),
    }
}

#[tokio::test]
async fn payment_link_pay_and_notifications_against_the_fake() {
    let fake = Fake::adyen();
    let p = provider(&format!("{}/v71", fake.url()), ADYEN_KEY);
    let verifier = p.clone();
    let r = Receiver::start(Arc::new(move |h, b| {
        match verifier.verify_webhook(h, b, now()) {
            Ok(_) => (200, "[accepted]".into()),
            Err(e) => (400, e.to_string()),
        }
    }))
    .await;
    fake.post("/_test/config", json!({"webhook_url": r.url}))
        .await;

    let req = order(
        "ord_a1",
        CheckoutMode::Subscription {
            interval: Interval::Month,
        },
    );
    let co = p.checkout(&req).await.unwrap();
    assert!(co.session_id.starts_with("PL"));
    let url = co.url.unwrap();
    let sent = fake.requests().await.pop().unwrap();
    assert_eq!(sent["path"], "/v71/paymentLinks");
    assert_eq!(sent["idempotency_key"], "ord_a1");
    let b = &sent["body"];
    assert_eq!(b["reference"], "ord_a1");
    assert_eq!(b["amount"], json!({"value": 2000, "currency": "CNY"}));
    assert_eq!(b["merchantAccount"], "EaselECOM");
    assert_eq!(b["returnUrl"], req.success_url);
    assert_eq!(b["shopperReference"], "acc_3");
    assert_eq!(b["shopperEmail"], "b@example.com");
    assert_eq!(b["recurringProcessingModel"], "Subscription");
    assert_eq!(b["storePaymentMethodMode"], "enabled");

    assert_eq!(fake.press(&url, "pay").await, req.success_url);
    let d = r.deliveries();
    assert_eq!(d.len(), 1);
    let evs = p.verify_webhook(&d[0].headers, &d[0].body, now()).unwrap();
    let EventKind::CheckoutCompleted {
        order_id,
        session_id,
        paid: true,
        payment,
        amount,
        ..
    } = evs[0].kind.clone()
    else {
        panic!("{evs:?}")
    };
    assert_eq!(order_id, "ord_a1");
    assert_eq!(session_id, co.session_id);
    assert_eq!(amount, Some(2000));
    let psp = payment.unwrap();
    assert!((evs[0].created - now()).abs() < 3600);

    fake.post(&format!("/_test/refund/{psp}"), json!({"amount": 500}))
        .await;
    fake.post(&format!("/_test/chargeback/{psp}"), json!({}))
        .await;
    let kinds: Vec<EventKind> = r.deliveries()[1..]
        .iter()
        .flat_map(|d| p.verify_webhook(&d.headers, &d.body, now()).unwrap())
        .map(|e| e.kind)
        .collect();
    assert_eq!(
        kinds,
        vec![
            EventKind::Refunded {
                payment: psp.clone(),
                amount: 500,
                full: false
            },
            EventKind::DisputeOpened {
                payment: psp.clone(),
                dispute: psp.clone()
            },
        ]
    );
    let log = fake.get("/_test/events").await;
    for e in log["events"].as_array().unwrap() {
        assert_eq!(e["accepted"], true, "{e}");
    }
    // A badly signed notification is refused by the receiver.
    let out = fake
        .post(
            "/_test/send",
            json!({"items": [{"eventCode": "AUTHORISATION", "merchantReference": "ord_z"}], "signature": "bad"}),
        )
        .await;
    assert_eq!(out["events"][0]["status"], 400);
}

#[tokio::test]
async fn refused_payment_and_one_off_link() {
    let fake = Fake::adyen();
    let p = provider(&format!("{}/v71", fake.url()), ADYEN_KEY);
    let verifier = p.clone();
    let r = Receiver::start(Arc::new(move |h, b| {
        match verifier.verify_webhook(h, b, now()) {
            Ok(_) => (200, "[accepted]".into()),
            Err(e) => (400, e.to_string()),
        }
    }))
    .await;
    fake.post("/_test/config", json!({"webhook_url": r.url}))
        .await;
    let mut req = order("ord_a2", CheckoutMode::OneOff);
    req.success_url = String::new();
    let co = p.checkout(&req).await.unwrap();
    let b = &fake.requests().await.pop().unwrap()["body"];
    assert!(b.get("recurringProcessingModel").is_none());
    assert_eq!(
        b["returnUrl"],
        "https://easel.test/mall/return?order_id=ord_a2"
    );
    fake.press(&co.url.unwrap(), "refuse").await;
    let d = &r.deliveries()[0];
    assert_eq!(
        p.verify_webhook(&d.headers, &d.body, now()).unwrap()[0].kind,
        EventKind::AsyncPayment {
            order_id: "ord_a2".into(),
            succeeded: false
        }
    );
}

#[tokio::test]
async fn payment_methods_and_three_ds2_details() {
    let fake = Fake::adyen();
    let p = provider(&format!("{}/v71", fake.url()), ADYEN_KEY);
    let pm = p.payment_methods(1000, "eur", "nl").await.unwrap();
    let types: Vec<&str> = pm["paymentMethods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["type"].as_str().unwrap())
        .collect();
    assert!(
        types.contains(&"scheme") && types.contains(&"ideal"),
        "{types:?}"
    );
    let sent = fake.requests().await.pop().unwrap();
    assert_eq!(sent["path"], "/v71/paymentMethods");
    assert_eq!(
        sent["body"],
        json!({"merchantAccount": "EaselECOM", "amount": {"value": 1000, "currency": "EUR"}, "countryCode": "NL"})
    );

    let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
    let ok = p
        .payment_details(json!({"details": {"threeDSResult": b64(r#"{"transStatus":"Y"}"#)}}))
        .await
        .unwrap();
    assert_eq!(ok["resultCode"], "Authorised");
    let no = p
        .payment_details(json!({"details": {"threeDSResult": b64(r#"{"transStatus":"N"}"#)}}))
        .await
        .unwrap();
    assert_eq!(no["resultCode"], "Refused");
    let sent = fake.requests().await.pop().unwrap();
    assert_eq!(sent["path"], "/v71/payments/details");
    let err = p.payment_details(json!({})).await.unwrap_err();
    assert!(
        matches!(err, ProviderError::Refused { status: 422, .. }),
        "{err:?}"
    );
}

#[tokio::test]
async fn bad_key_unsupported_and_unreachable() {
    let fake = Fake::adyen();
    let key = "AQE_wrong_key_never_shown";
    let p = provider(&format!("{}/v71", fake.url()), key);
    let err = p
        .checkout(&order("ord_k", CheckoutMode::OneOff))
        .await
        .unwrap_err();
    assert!(
        matches!(
            &err,
            ProviderError::Refused {
                provider: "adyen",
                status: 401,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(!format!("{err} {err:?}").contains(key));
    assert_eq!(
        p.change_subscription("x", &SubscriptionChange::CancelNow)
            .await,
        Err(ProviderError::Unsupported("adyen"))
    );
    assert_eq!(
        p.portal("x", "y").await,
        Err(ProviderError::Unsupported("adyen"))
    );
    assert!(!format!("{:?}", p.config()).contains(key));
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let gone = provider(&format!("http://127.0.0.1:{port}/v71"), key);
    assert!(matches!(
        gone.payment_methods(1, "eur", "nl").await,
        Err(ProviderError::Unreachable { .. })
    ));
}
