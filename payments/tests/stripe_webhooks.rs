//! Stripe webhooks: the `Stripe-Signature` check (good, bad, stale,
//! missing, several v1) and the reading of every event kind the mall uses,
//! from fixtures shaped like Stripe's documented objects in both the older
//! (2024) and newer (2025-03-31 onwards) API layouts.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use easel_payments::stripe::{self, Stripe, StripeConfig};
use easel_payments::{
    EventKind, PaymentProvider, ProviderEvent, ProviderSubStatus, Secret, WebhookError,
};
use serde_json::{json, Value};

const SECRET: &str = "whsec_test_secret";
const T: i64 = 1_700_000_000;

fn provider() -> Stripe {
    Stripe::new(StripeConfig {
        secret_key: Secret::new("sk_test_x"),
        webhook_secret: Secret::new(SECRET),
        ..StripeConfig::default()
    })
    .unwrap()
}

fn headers(sig: &str) -> Vec<(String, String)> {
    vec![
        ("content-type".into(), "application/json".into()),
        ("stripe-signature".into(), sig.into()),
    ]
}

fn event(kind: &str, object: Value) -> Vec<u8> {
    json!({
        "id": "evt_1NG8Du2eZvKYlo2CUI79vXWy",
        "object": "event",
        "api_version": "2024-06-20",
        "created": T,
        "data": {"object": object},
        "livemode": false,
        "pending_webhooks": 1,
        "request": {"id": null, "idempotency_key": null},
        "type": kind
    })
    .to_string()
    .into_bytes()
}

fn read(kind: &str, object: Value) -> ProviderEvent {
    let body = event(kind, object);
    let sig = stripe::sign(&Secret::new(SECRET), T, &body);
    let mut evs = provider().verify_webhook(&headers(&sig), &body, T).unwrap();
    assert_eq!(evs.len(), 1);
    evs.remove(0)
}

#[test]
fn signature_matches_an_independent_computation() {
    // hmac.new(b"whsec_test_secret", b'1700000000.{"id":"evt_1"}', sha256)
    // computed with Python's hmac module.
    let body = br#"{"id":"evt_1"}"#;
    assert_eq!(
        stripe::sign(&Secret::new(SECRET), T, body),
        "t=1700000000,v1=248a374f50f943a28b0f6ab50faf9a7e7e29b710fa26df9fb1618b9bf8ea9c9a"
    );
}

#[test]
fn good_signature_is_accepted_and_read() {
    let ev = read(
        "checkout.session.completed",
        json!({"id": "cs_1", "object": "checkout.session", "client_reference_id": "ord_1", "payment_status": "paid"}),
    );
    assert_eq!(ev.id, "evt_1NG8Du2eZvKYlo2CUI79vXWy");
    assert_eq!(ev.created, T);
}

#[test]
fn bad_signature_is_refused() {
    let body = event("invoice.paid", json!({}));
    let p = provider();
    let wrong = stripe::sign(&Secret::new("whsec_other"), T, &body);
    assert_eq!(
        p.verify_webhook(&headers(&wrong), &body, T),
        Err(WebhookError::BadSignature)
    );
    // A body changed after signing.
    let sig = stripe::sign(&Secret::new(SECRET), T, &body);
    let mut tampered = body.clone();
    tampered.push(b' ');
    assert_eq!(
        p.verify_webhook(&headers(&sig), &tampered, T),
        Err(WebhookError::BadSignature)
    );
    // The timestamp is signed too: moving it breaks the signature.
    let moved = sig.replace("t=1700000000", "t=1700000001");
    assert_eq!(
        p.verify_webhook(&headers(&moved), &body, T),
        Err(WebhookError::BadSignature)
    );
    // Not hex.
    assert_eq!(
        p.verify_webhook(&headers("t=1700000000,v1=zz"), &body, T),
        Err(WebhookError::BadSignature)
    );
}

#[test]
fn stale_signature_is_refused_both_ways() {
    let body = event("invoice.paid", json!({}));
    let sig = stripe::sign(&Secret::new(SECRET), T, &body);
    let p = provider();
    assert_eq!(
        p.verify_webhook(&headers(&sig), &body, T + 301),
        Err(WebhookError::Stale)
    );
    assert_eq!(
        p.verify_webhook(&headers(&sig), &body, T - 301),
        Err(WebhookError::Stale)
    );
    assert!(p.verify_webhook(&headers(&sig), &body, T + 300).is_ok());
    let strict = Stripe::new(StripeConfig {
        webhook_secret: Secret::new(SECRET),
        tolerance_secs: 10,
        ..StripeConfig::default()
    })
    .unwrap();
    assert_eq!(
        strict.verify_webhook(&headers(&sig), &body, T + 11),
        Err(WebhookError::Stale)
    );
}

#[test]
fn missing_or_malformed_header_is_refused() {
    let body = event("invoice.paid", json!({}));
    let p = provider();
    assert_eq!(
        p.verify_webhook(&vec![], &body, T),
        Err(WebhookError::MissingSignature)
    );
    for h in ["", "t=1700000000", "v1=abcd", "t=x,v1=abcd", "garbage"] {
        assert_eq!(
            p.verify_webhook(&headers(h), &body, T),
            Err(WebhookError::MissingSignature),
            "{h}"
        );
    }
    // Header names are case-insensitive.
    let sig = stripe::sign(&Secret::new(SECRET), T, &body);
    let upper = vec![("Stripe-Signature".to_string(), sig)];
    assert!(p.verify_webhook(&upper, &body, T).is_ok());
    // No webhook secret configured: nothing verifies.
    let unset = Stripe::new(StripeConfig::default()).unwrap();
    let sig = stripe::sign(&Secret::new(""), T, &body);
    assert_eq!(
        unset.verify_webhook(&headers(&sig), &body, T),
        Err(WebhookError::MissingSignature)
    );
}

#[test]
fn any_of_several_v1_may_match() {
    let body = event(
        "customer.subscription.deleted",
        json!({"id": "sub_1", "object": "subscription"}),
    );
    let good = stripe::sign(&Secret::new(SECRET), T, &body);
    let good_v1 = good.split("v1=").nth(1).unwrap();
    let old = stripe::sign(&Secret::new("whsec_old"), T, &body);
    let old_v1 = old.split("v1=").nth(1).unwrap();
    let p = provider();
    for h in [
        format!("t={T},v1={old_v1},v1={good_v1}"),
        format!("t={T},v1={good_v1},v1={old_v1}"),
        format!("t={T}, v0=deadbeef, v1={good_v1}"),
    ] {
        let evs = p.verify_webhook(&headers(&h), &body, T).unwrap();
        assert_eq!(
            evs[0].kind,
            EventKind::SubscriptionDeleted {
                subscription: "sub_1".into()
            }
        );
    }
    assert_eq!(
        p.verify_webhook(
            &headers(&format!("t={T},v1={old_v1},v1={old_v1}")),
            &body,
            T
        ),
        Err(WebhookError::BadSignature)
    );
}

#[test]
fn malformed_json_after_a_good_signature() {
    let p = provider();
    for body in [&b"not json"[..], br#"{"id":"evt_1","type":"x"}"#] {
        let sig = stripe::sign(&Secret::new(SECRET), T, body);
        assert!(matches!(
            p.verify_webhook(&headers(&sig), body, T),
            Err(WebhookError::Malformed(_))
        ));
    }
}

#[test]
fn checkout_session_completed_paid_unpaid_and_subscription() {
    let paid = read(
        "checkout.session.completed",
        json!({
            "id": "cs_test_a1", "object": "checkout.session", "mode": "payment",
            "client_reference_id": "ord_1", "customer": "cus_1", "subscription": null,
            "payment_intent": "pi_1", "payment_status": "paid", "status": "complete",
            "amount_total": 2000, "currency": "cny", "metadata": {"order_id": "ord_1"}
        }),
    );
    assert_eq!(
        paid.kind,
        EventKind::CheckoutCompleted {
            order_id: "ord_1".into(),
            session_id: "cs_test_a1".into(),
            paid: true,
            customer: Some("cus_1".into()),
            subscription: None,
            payment: Some("pi_1".into()),
            amount: Some(2000),
            currency: Some("cny".into()),
        }
    );
    // Bank debits: completed but not yet paid; the order id from metadata.
    let unpaid = read(
        "checkout.session.completed",
        json!({
            "id": "cs_2", "object": "checkout.session", "client_reference_id": null,
            "metadata": {"order_id": "ord_2"}, "payment_status": "unpaid",
            "payment_intent": {"id": "pi_2", "object": "payment_intent"}
        }),
    );
    let EventKind::CheckoutCompleted {
        order_id,
        paid,
        payment,
        ..
    } = unpaid.kind
    else {
        panic!("{unpaid:?}")
    };
    assert_eq!(
        (order_id.as_str(), paid, payment.as_deref()),
        ("ord_2", false, Some("pi_2"))
    );
    let free = read(
        "checkout.session.completed",
        json!({"id": "cs_3", "client_reference_id": "ord_3", "payment_status": "no_payment_required", "subscription": "sub_3", "customer": {"id": "cus_3", "object": "customer"}}),
    );
    let EventKind::CheckoutCompleted {
        paid,
        subscription,
        customer,
        ..
    } = free.kind
    else {
        panic!()
    };
    assert!(paid);
    assert_eq!(subscription.as_deref(), Some("sub_3"));
    assert_eq!(customer.as_deref(), Some("cus_3"));
    // Without any order id the event is malformed.
    let body = event(
        "checkout.session.completed",
        json!({"id": "cs_4", "payment_status": "paid"}),
    );
    let sig = stripe::sign(&Secret::new(SECRET), T, &body);
    assert!(matches!(
        provider().verify_webhook(&headers(&sig), &body, T),
        Err(WebhookError::Malformed(_))
    ));
}

#[test]
fn async_payments_and_expiry() {
    let obj = json!({"id": "cs_1", "client_reference_id": "ord_9", "payment_status": "paid"});
    assert_eq!(
        read("checkout.session.async_payment_succeeded", obj.clone()).kind,
        EventKind::AsyncPayment {
            order_id: "ord_9".into(),
            succeeded: true
        }
    );
    assert_eq!(
        read("checkout.session.async_payment_failed", obj.clone()).kind,
        EventKind::AsyncPayment {
            order_id: "ord_9".into(),
            succeeded: false
        }
    );
    assert_eq!(
        read("checkout.session.expired", obj).kind,
        EventKind::CheckoutExpired {
            order_id: "ord_9".into()
        }
    );
}

#[test]
fn invoice_paid_in_the_older_layout() {
    let ev = read(
        "invoice.paid",
        json!({
            "id": "in_1", "object": "invoice", "subscription": "sub_1",
            "billing_reason": "subscription_cycle", "amount_paid": 3000,
            "payment_intent": "pi_9", "period_start": 1_699_000_000, "period_end": 1_699_000_000,
            "lines": {"object": "list", "data": [{"id": "il_1", "period": {"start": 1_700_000_000, "end": 1_702_592_000}}]}
        }),
    );
    assert_eq!(
        ev.kind,
        EventKind::InvoicePaid {
            subscription: "sub_1".into(),
            invoice: "in_1".into(),
            period_start: 1_700_000_000,
            period_end: 1_702_592_000,
            amount: 3000,
            reason: "subscription_cycle".into(),
            payment: Some("pi_9".into()),
        }
    );
}

#[test]
fn invoice_paid_in_the_newer_layout() {
    let obj = json!({
        "id": "in_2", "object": "invoice", "billing_reason": "subscription_create",
        "amount_paid": 1500,
        "parent": {"type": "subscription_details", "subscription_details": {"subscription": "sub_2", "metadata": {}}},
        "payments": {"object": "list", "data": [{"object": "invoice_payment", "payment": {"type": "payment_intent", "payment_intent": "pi_2"}}]},
        "period_start": 1_700_000_000, "period_end": 1_731_536_000,
        "lines": {"object": "list", "data": []}
    });
    for kind in ["invoice.paid", "invoice.payment_succeeded"] {
        assert_eq!(
            read(kind, obj.clone()).kind,
            EventKind::InvoicePaid {
                subscription: "sub_2".into(),
                invoice: "in_2".into(),
                period_start: 1_700_000_000,
                period_end: 1_731_536_000,
                amount: 1500,
                reason: "subscription_create".into(),
                payment: Some("pi_2".into()),
            }
        );
    }
    // An invoice of no subscription is not the mall's.
    assert_eq!(
        read(
            "invoice.paid",
            json!({"id": "in_3", "amount_paid": 5, "period_start": 1, "period_end": 2})
        )
        .kind,
        EventKind::Ignored {
            kind: "invoice.paid".into()
        }
    );
}

#[test]
fn invoice_payment_failed_both_layouts() {
    for obj in [
        json!({"id": "in_4", "subscription": "sub_4"}),
        json!({"id": "in_4", "subscription": null, "parent": {"subscription_details": {"subscription": "sub_4"}}}),
    ] {
        assert_eq!(
            read("invoice.payment_failed", obj).kind,
            EventKind::InvoiceFailed {
                subscription: "sub_4".into(),
                invoice: "in_4".into()
            }
        );
    }
}

#[test]
fn subscription_updates_both_layouts() {
    let old = json!({
        "id": "sub_1", "object": "subscription", "status": "active",
        "current_period_start": 1_700_000_000, "current_period_end": 1_702_592_000,
        "cancel_at_period_end": true, "pause_collection": null,
        "metadata": {"product_id": "plan_full_month"},
        "items": {"object": "list", "data": [{"id": "si_1"}]}
    });
    assert_eq!(
        read("customer.subscription.updated", old).kind,
        EventKind::SubscriptionUpdated {
            subscription: "sub_1".into(),
            status: ProviderSubStatus::Active,
            current_period_start: 1_700_000_000,
            current_period_end: 1_702_592_000,
            cancel_at_period_end: true,
            paused_until: None,
            product_id: Some("plan_full_month".into()),
        }
    );
    let new = json!({
        "id": "sub_2", "object": "subscription", "status": "past_due",
        "cancel_at_period_end": false,
        "pause_collection": {"behavior": "void", "resumes_at": 1_705_000_000},
        "metadata": {},
        "items": {"object": "list", "data": [{"id": "si_2", "current_period_start": 1_700_000_000, "current_period_end": 1_731_536_000}]}
    });
    assert_eq!(
        read("customer.subscription.created", new).kind,
        EventKind::SubscriptionUpdated {
            subscription: "sub_2".into(),
            status: ProviderSubStatus::PastDue,
            current_period_start: 1_700_000_000,
            current_period_end: 1_731_536_000,
            cancel_at_period_end: false,
            paused_until: Some(1_705_000_000),
            product_id: None,
        }
    );
    let indefinite = json!({
        "id": "sub_3", "status": "paused", "pause_collection": {"behavior": "void", "resumes_at": null},
        "current_period_start": 1, "current_period_end": 2
    });
    let EventKind::SubscriptionUpdated {
        status,
        paused_until,
        ..
    } = read("customer.subscription.updated", indefinite).kind
    else {
        panic!()
    };
    assert_eq!((status, paused_until), (ProviderSubStatus::Paused, Some(0)));
    for (s, want) in [
        ("trialing", ProviderSubStatus::Trialing),
        ("unpaid", ProviderSubStatus::Unpaid),
        ("canceled", ProviderSubStatus::Canceled),
        ("incomplete", ProviderSubStatus::Incomplete),
        ("incomplete_expired", ProviderSubStatus::IncompleteExpired),
    ] {
        let obj =
            json!({"id": "sub_s", "status": s, "current_period_start": 1, "current_period_end": 2});
        let EventKind::SubscriptionUpdated { status, .. } =
            read("customer.subscription.updated", obj).kind
        else {
            panic!()
        };
        assert_eq!(status, want);
    }
    assert_eq!(
        read(
            "customer.subscription.deleted",
            json!({"id": "sub_9", "status": "canceled"})
        )
        .kind,
        EventKind::SubscriptionDeleted {
            subscription: "sub_9".into()
        }
    );
}

#[test]
fn refunds_and_disputes() {
    assert_eq!(
        read("charge.refunded", json!({"id": "ch_1", "object": "charge", "payment_intent": "pi_1", "amount": 2000, "amount_refunded": 500, "refunded": false})).kind,
        EventKind::Refunded {
            payment: "pi_1".into(),
            amount: 500,
            full: false
        }
    );
    assert_eq!(
        read("charge.refunded", json!({"id": "ch_1", "payment_intent": "pi_1", "amount": 2000, "amount_refunded": 2000, "refunded": true})).kind,
        EventKind::Refunded {
            payment: "pi_1".into(),
            amount: 2000,
            full: true
        }
    );
    assert_eq!(
        read("charge.dispute.created", json!({"id": "du_1", "object": "dispute", "charge": "ch_1", "payment_intent": "pi_1", "status": "needs_response"})).kind,
        EventKind::DisputeOpened {
            payment: "pi_1".into(),
            dispute: "du_1".into()
        }
    );
    for (status, won) in [("won", true), ("lost", false), ("warning_closed", true)] {
        assert_eq!(
            read("charge.dispute.closed", json!({"id": "du_1", "object": "dispute", "charge": "ch_1", "payment_intent": "pi_1", "status": status})).kind,
            EventKind::DisputeClosed {
                payment: "pi_1".into(),
                dispute: "du_1".into(),
                won
            }
        );
    }
}

#[test]
fn other_events_are_ignored() {
    assert_eq!(
        read("customer.created", json!({"id": "cus_1"})).kind,
        EventKind::Ignored {
            kind: "customer.created".into()
        }
    );
}

#[test]
fn secrets_never_print() {
    let p = provider();
    let shown = format!("{:?}", p.config());
    assert!(!shown.contains(SECRET), "{shown}");
    assert!(!shown.contains("sk_test_x"), "{shown}");
}
