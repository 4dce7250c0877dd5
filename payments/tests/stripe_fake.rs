//! The Stripe adapter against the fake Stripe (`tests/fakes/stripe_fake.py`):
//! what the requests carry, the whole payment and subscription flows with
//! signed webhooks delivered to a receiver, subscription changes, the
//! portal, and error mapping.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod common;

use std::sync::Arc;

use common::{now, Fake, Receiver, STRIPE_KEY, STRIPE_WHSEC};
use easel_payments::stripe::{Stripe, StripeConfig};
use easel_payments::{
    CheckoutMode, CheckoutRequest, EventKind, Interval, PaymentProvider, ProviderError,
    ProviderEvent, ProviderSubStatus, Secret, SubscriptionChange,
};
use serde_json::{json, Value};

fn stripe(fake: &Fake, key: &str) -> Stripe {
    Stripe::new(StripeConfig {
        api_url: format!("{}/", fake.url()),
        secret_key: Secret::new(key),
        webhook_secret: Secret::new(STRIPE_WHSEC),
        ..StripeConfig::default()
    })
    .unwrap()
}

fn order(id: &str, mode: CheckoutMode, amount: i64, discount: i64) -> CheckoutRequest {
    CheckoutRequest {
        order_id: id.into(),
        account_id: "acc_7".into(),
        email: Some("buyer@example.com".into()),
        customer: None,
        product_name: "Full plan".into(),
        product_id: "plan_full_month".into(),
        amount,
        currency: "CNY".into(),
        mode,
        discount,
        success_url: format!("https://easel.test/mall/order/{id}?paid=1"),
        cancel_url: format!("https://easel.test/mall/order/{id}"),
    }
}

/// A receiver that verifies like the backend would (400 on a bad signature).
async fn receiver(p: &Stripe, fake: &Fake) -> Receiver {
    let verifier = p.clone();
    let r = Receiver::start(Arc::new(move |h, b| {
        match verifier.verify_webhook(h, b, now()) {
            Ok(_) => (200, "ok".into()),
            Err(e) => (400, e.to_string()),
        }
    }))
    .await;
    fake.post("/_test/config", json!({"webhook_url": r.url}))
        .await;
    r
}

/// Verifies and reads the deliveries from `from` on.
fn events(p: &Stripe, r: &Receiver, from: usize) -> Vec<ProviderEvent> {
    r.deliveries()[from..]
        .iter()
        .flat_map(|d| p.verify_webhook(&d.headers, &d.body, now()).unwrap())
        .collect()
}

/// The last API request to `path` with `method`.
async fn last(fake: &Fake, method: &str, path: &str) -> Value {
    fake.requests()
        .await
        .into_iter()
        .rev()
        .find(|r| r["method"] == method && r["path"] == path)
        .unwrap_or_else(|| panic!("no {method} {path}"))
}

#[tokio::test]
async fn one_off_checkout_request_and_payment() {
    let fake = Fake::stripe(&[]);
    let p = stripe(&fake, STRIPE_KEY);
    let r = receiver(&p, &fake).await;
    let req = order("ord_1", CheckoutMode::OneOff, 2000, 0);
    let co = p.checkout(&req).await.unwrap();
    assert!(co.session_id.starts_with("cs_test_"));
    let url = co.url.clone().unwrap();
    assert_eq!(url, format!("{}/pay/{}", fake.url(), co.session_id));

    let sent = last(&fake, "POST", "/v1/checkout/sessions").await;
    assert_eq!(sent["idempotency_key"], "ord_1");
    assert_eq!(sent["content_type"], "application/x-www-form-urlencoded");
    let f = &sent["form"];
    assert_eq!(f["mode"], "payment");
    assert_eq!(f["client_reference_id"], "ord_1");
    assert_eq!(f["customer_email"], "buyer@example.com");
    assert!(f.get("customer").is_none());
    assert_eq!(
        f["metadata"],
        json!({"order_id": "ord_1", "account_id": "acc_7", "product_id": "plan_full_month"})
    );
    assert_eq!(f["payment_intent_data"]["metadata"]["order_id"], "ord_1");
    let li = &f["line_items"][0];
    assert_eq!(li["quantity"], "1");
    assert_eq!(li["price_data"]["currency"], "cny");
    assert_eq!(li["price_data"]["unit_amount"], "2000");
    assert_eq!(li["price_data"]["product_data"]["name"], "Full plan");
    assert!(li["price_data"].get("recurring").is_none());
    assert_eq!(f["success_url"], req.success_url);
    assert_eq!(f["cancel_url"], req.cancel_url);
    assert!(f.get("discounts").is_none());

    // The same order opens the same session (Idempotency-Key).
    assert_eq!(p.checkout(&req).await.unwrap(), co);

    assert_eq!(fake.press(&url, "pay").await, req.success_url);
    let evs = events(&p, &r, 0);
    assert_eq!(evs.len(), 1);
    let EventKind::CheckoutCompleted {
        order_id,
        session_id,
        paid,
        customer,
        subscription,
        payment,
        amount,
        currency,
    } = evs[0].kind.clone()
    else {
        panic!("{evs:?}")
    };
    assert_eq!((order_id.as_str(), paid), ("ord_1", true));
    assert_eq!(session_id, co.session_id);
    assert!(customer.unwrap().starts_with("cus_"));
    assert_eq!(subscription, None);
    let pi = payment.unwrap();
    assert!(pi.starts_with("pi_"));
    assert_eq!((amount, currency.as_deref()), (Some(2000), Some("cny")));
    // The receiver accepted it.
    let log = fake.get("/_test/events").await;
    assert_eq!(log["events"][0]["status"], 200);

    // Refunds and disputes name the payment intent.
    let n = r.deliveries().len();
    let out = fake
        .post(
            &format!("/_test/payment_intents/{pi}/refund"),
            json!({"amount": 500}),
        )
        .await;
    assert_eq!(out["events"][0]["status"], 200);
    fake.post(&format!("/_test/payment_intents/{pi}/refund"), json!({}))
        .await;
    let du = fake
        .post(&format!("/_test/payment_intents/{pi}/dispute"), json!({}))
        .await["dispute"]
        .as_str()
        .unwrap()
        .to_string();
    fake.post(
        &format!("/_test/disputes/{du}/close"),
        json!({"won": false}),
    )
    .await;
    let kinds: Vec<EventKind> = events(&p, &r, n).into_iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds,
        vec![
            EventKind::Refunded {
                payment: pi.clone(),
                amount: 500,
                full: false
            },
            EventKind::Refunded {
                payment: pi.clone(),
                amount: 2000,
                full: true
            },
            EventKind::DisputeOpened {
                payment: pi.clone(),
                dispute: du.clone()
            },
            EventKind::DisputeClosed {
                payment: pi,
                dispute: du,
                won: false
            },
        ]
    );
}

#[tokio::test]
async fn cancel_on_the_hosted_page_sends_nothing() {
    let fake = Fake::stripe(&[]);
    let p = stripe(&fake, STRIPE_KEY);
    let r = receiver(&p, &fake).await;
    let req = order("ord_c", CheckoutMode::OneOff, 100, 0);
    let co = p.checkout(&req).await.unwrap();
    assert_eq!(fake.press(&co.url.unwrap(), "cancel").await, req.cancel_url);
    assert!(r.deliveries().is_empty());
}

async fn subscription_flow(api_version: &str) {
    let fake = Fake::stripe(&["--api-version", api_version]);
    let p = stripe(&fake, STRIPE_KEY);
    let r = receiver(&p, &fake).await;
    let req = order(
        "ord_s",
        CheckoutMode::Subscription {
            interval: Interval::Month,
        },
        1000,
        500,
    );
    let co = p.checkout(&req).await.unwrap();

    // The discount is a one-time coupon applied to the session.
    let coupon = last(&fake, "POST", "/v1/coupons").await;
    assert_eq!(coupon["form"]["amount_off"], "500");
    assert_eq!(coupon["form"]["currency"], "cny");
    assert_eq!(coupon["form"]["duration"], "once");
    let session = last(&fake, "POST", "/v1/checkout/sessions").await;
    let f = &session["form"];
    assert_eq!(f["mode"], "subscription");
    assert_eq!(
        f["line_items"][0]["price_data"]["recurring"]["interval"],
        "month"
    );
    assert_eq!(
        f["subscription_data"]["metadata"]["product_id"],
        "plan_full_month"
    );
    assert!(f.get("payment_intent_data").is_none());
    assert!(f["discounts"][0]["coupon"].as_str().unwrap().len() > 3);

    fake.press(&co.url.unwrap(), "pay").await;
    let evs = events(&p, &r, 0);
    assert_eq!(evs.len(), 3, "{evs:?}");
    let EventKind::SubscriptionUpdated {
        subscription: sub,
        status,
        current_period_start: start,
        current_period_end: end,
        cancel_at_period_end: false,
        paused_until: None,
        product_id,
    } = evs[0].kind.clone()
    else {
        panic!("{evs:?}")
    };
    assert_eq!(status, ProviderSubStatus::Active);
    assert_eq!(end - start, 30 * 86400);
    assert_eq!(product_id.as_deref(), Some("plan_full_month"));
    assert_eq!(
        evs[1].kind,
        EventKind::InvoicePaid {
            subscription: sub.clone(),
            invoice: match &evs[1].kind {
                EventKind::InvoicePaid { invoice, .. } => invoice.clone(),
                _ => panic!(),
            },
            period_start: start,
            period_end: end,
            amount: 500,
            reason: "subscription_create".into(),
            payment: match &evs[1].kind {
                EventKind::InvoicePaid { payment, .. } => payment.clone(),
                _ => panic!(),
            },
        }
    );
    let EventKind::CheckoutCompleted {
        subscription,
        paid: true,
        customer,
        amount,
        ..
    } = evs[2].kind.clone()
    else {
        panic!()
    };
    assert_eq!(subscription.as_deref(), Some(sub.as_str()));
    assert_eq!(amount, Some(500));
    let customer = customer.unwrap();

    // A renewal: the next period, full price (the coupon was once).
    let n = r.deliveries().len();
    fake.post(&format!("/_test/subscriptions/{sub}/renew"), json!({}))
        .await;
    let evs = events(&p, &r, n);
    let EventKind::InvoicePaid {
        period_start,
        period_end,
        amount,
        reason,
        ..
    } = evs[0].kind.clone()
    else {
        panic!("{evs:?}")
    };
    assert_eq!((period_start, period_end), (end, end + 30 * 86400));
    assert_eq!((amount, reason.as_str()), (1000, "subscription_cycle"));
    assert!(
        matches!(evs[1].kind, EventKind::SubscriptionUpdated { current_period_end, .. } if current_period_end == end + 30 * 86400)
    );

    // Changes: each is a documented call, each answered by an event.
    let change = |c: SubscriptionChange| {
        let p = p.clone();
        let sub = sub.clone();
        async move { p.change_subscription(&sub, &c).await.unwrap() }
    };
    let path = format!("/v1/subscriptions/{sub}");
    let n = r.deliveries().len();
    change(SubscriptionChange::CancelAtPeriodEnd(true)).await;
    assert_eq!(
        last(&fake, "POST", &path).await["form"]["cancel_at_period_end"],
        "true"
    );
    change(SubscriptionChange::CancelAtPeriodEnd(false)).await;
    assert_eq!(
        last(&fake, "POST", &path).await["form"]["cancel_at_period_end"],
        "false"
    );
    let resume = now() + 60 * 86400;
    change(SubscriptionChange::Pause {
        resume_at: Some(resume),
    })
    .await;
    let pc = &last(&fake, "POST", &path).await["form"]["pause_collection"];
    assert_eq!(pc["behavior"], "void");
    assert_eq!(pc["resumes_at"], resume.to_string());
    change(SubscriptionChange::Pause { resume_at: None }).await;
    assert_eq!(
        last(&fake, "POST", &path).await["form"]["pause_collection"],
        ""
    );
    fake.post("/_test/flush", json!({})).await;
    let flags: Vec<(bool, Option<i64>)> = events(&p, &r, n)
        .into_iter()
        .map(|e| match e.kind {
            EventKind::SubscriptionUpdated {
                cancel_at_period_end,
                paused_until,
                ..
            } => (cancel_at_period_end, paused_until),
            k => panic!("{k:?}"),
        })
        .collect();
    assert_eq!(
        flags,
        vec![
            (true, None),
            (false, None),
            (false, Some(resume)),
            (false, None)
        ]
    );

    // The retention offer: 30% off the next invoice only.
    change(SubscriptionChange::DiscountNext { percent_off: 30 }).await;
    let c = last(&fake, "POST", "/v1/coupons").await;
    assert_eq!(
        (
            c["form"]["percent_off"].as_str(),
            c["form"]["duration"].as_str()
        ),
        (Some("30"), Some("once"))
    );
    assert!(last(&fake, "POST", &path).await["form"]["discounts"][0]["coupon"].is_string());

    // A new price from the next period on, no proration.
    change(SubscriptionChange::ChangePrice {
        product_id: "plan_full_year".into(),
        product_name: "Full plan (year)".into(),
        amount: 10000,
        currency: "cny".into(),
        interval: Interval::Year,
    })
    .await;
    let got = last(&fake, "GET", &path).await;
    assert_eq!(got["method"], "GET");
    let upd = last(&fake, "POST", &path).await;
    let f = &upd["form"];
    assert!(f["items"][0]["id"].as_str().unwrap().starts_with("si_"));
    let pd = &f["items"][0]["price_data"];
    assert!(pd["product"].as_str().unwrap().starts_with("prod_"));
    assert_eq!(
        (pd["unit_amount"].as_str(), pd["currency"].as_str()),
        (Some("10000"), Some("cny"))
    );
    assert_eq!(pd["recurring"]["interval"], "year");
    assert_eq!(f["proration_behavior"], "none");
    assert_eq!(f["metadata"]["product_id"], "plan_full_year");
    let product = last(&fake, "POST", "/v1/products").await;
    assert_eq!(product["form"]["name"], "Full plan (year)");

    fake.post("/_test/flush", json!({})).await;
    let n = r.deliveries().len();
    fake.post(&format!("/_test/subscriptions/{sub}/renew"), json!({}))
        .await;
    let evs = events(&p, &r, n);
    let EventKind::InvoicePaid {
        amount,
        period_start,
        period_end,
        ..
    } = evs[0].kind.clone()
    else {
        panic!("{evs:?}")
    };
    assert_eq!(amount, 7000, "the new price, 30% off once");
    assert_eq!(period_end - period_start, 365 * 86400);
    assert!(
        matches!(&evs[1].kind, EventKind::SubscriptionUpdated { product_id: Some(p), .. } if p == "plan_full_year")
    );

    // A failed renewal, then the end.
    let n = r.deliveries().len();
    fake.post(&format!("/_test/subscriptions/{sub}/fail"), json!({}))
        .await;
    let evs = events(&p, &r, n);
    assert!(
        matches!(&evs[0].kind, EventKind::InvoiceFailed { subscription, .. } if *subscription == sub)
    );
    assert!(matches!(
        evs[1].kind,
        EventKind::SubscriptionUpdated {
            status: ProviderSubStatus::PastDue,
            ..
        }
    ));
    change(SubscriptionChange::CancelNow).await;
    assert_eq!(last(&fake, "DELETE", &path).await["method"], "DELETE");
    fake.post("/_test/flush", json!({})).await;
    let evs = events(&p, &r, n + 2);
    assert_eq!(
        evs.last().unwrap().kind,
        EventKind::SubscriptionDeleted {
            subscription: sub.clone()
        }
    );
    // Every delivery was accepted.
    let log = fake.get("/_test/events").await;
    for e in log["events"].as_array().unwrap() {
        assert_eq!(e["status"], 200, "{e}");
    }

    // The customer portal.
    let url = p
        .portal(&customer, "https://easel.test/account")
        .await
        .unwrap();
    assert!(url.starts_with(&format!("{}/portal/bps_", fake.url())));
    let sent = last(&fake, "POST", "/v1/billing_portal/sessions").await;
    assert_eq!(sent["form"]["customer"], customer.as_str());
    assert_eq!(sent["form"]["return_url"], "https://easel.test/account");
}

#[tokio::test]
async fn subscription_flow_newer_api_layout() {
    subscription_flow("basil").await;
}

#[tokio::test]
async fn subscription_flow_older_api_layout() {
    subscription_flow("legacy").await;
}

#[tokio::test]
async fn an_existing_customer_is_reused() {
    let fake = Fake::stripe(&[]);
    let p = stripe(&fake, STRIPE_KEY);
    let _r = receiver(&p, &fake).await;
    let co = p
        .checkout(&order("ord_a", CheckoutMode::OneOff, 100, 0))
        .await
        .unwrap();
    fake.press(&co.url.unwrap(), "pay").await;
    let ev = &fake.get("/_test/events").await["events"][0]["payload"];
    let ev: Value = serde_json::from_str(ev.as_str().unwrap()).unwrap();
    let cus = ev["data"]["object"]["customer"]
        .as_str()
        .unwrap()
        .to_string();
    let mut req = order("ord_b", CheckoutMode::OneOff, 100, 0);
    req.customer = Some(cus.clone());
    p.checkout(&req).await.unwrap();
    let f = &last(&fake, "POST", "/v1/checkout/sessions").await["form"];
    assert_eq!(f["customer"], cus.as_str());
    assert!(f.get("customer_email").is_none());
}

#[tokio::test]
async fn badly_signed_events_are_refused_by_the_receiver() {
    let fake = Fake::stripe(&[]);
    let p = stripe(&fake, STRIPE_KEY);
    let r = receiver(&p, &fake).await;
    let ev = json!({"type": "customer.subscription.deleted", "data": {"object": {"id": "sub_x"}}});
    for (how, status) in [
        ("good", 200),
        ("bad", 400),
        ("stale", 400),
        ("missing", 400),
    ] {
        let out = fake
            .post("/_test/send", json!({"event": ev, "signature": how}))
            .await;
        assert_eq!(out["events"][0]["status"], status, "{how}: {out}");
    }
    assert_eq!(r.deliveries().len(), 4);
}

#[tokio::test]
async fn a_bad_key_is_refused_without_the_key_in_the_message() {
    let fake = Fake::stripe(&[]);
    let bad = "sk_test_51WrongKeyDoNotLeak";
    let p = stripe(&fake, bad);
    let err = p
        .checkout(&order("ord_k", CheckoutMode::OneOff, 100, 0))
        .await
        .unwrap_err();
    let ProviderError::Refused {
        provider,
        status,
        message,
    } = &err
    else {
        panic!("{err:?}")
    };
    assert_eq!((*provider, *status), ("stripe", 401));
    assert!(message.contains("Invalid API Key"), "{message}");
    let shown = format!("{err} {err:?}");
    assert!(!shown.contains(bad), "{shown}");
    assert!(!shown.contains("sk_test"), "{shown}");
    // Stripe's own 4xx: a missing object.
    let good = stripe(&fake, STRIPE_KEY);
    let err = good
        .change_subscription("sub_nope", &SubscriptionChange::CancelAtPeriodEnd(true))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ProviderError::Refused { status: 404, message, .. } if message.contains("No such subscription")),
        "{err:?}"
    );
    let err = good.portal("cus_nope", "https://x").await.unwrap_err();
    assert!(matches!(err, ProviderError::Refused { status: 404, .. }));
}

#[tokio::test]
async fn a_closed_port_is_unreachable() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let p = Stripe::new(StripeConfig {
        api_url: format!("http://127.0.0.1:{port}"),
        secret_key: Secret::new("sk_test_unreachable"),
        ..StripeConfig::default()
    })
    .unwrap();
    let err = p
        .checkout(&order("ord_u", CheckoutMode::OneOff, 100, 0))
        .await
        .unwrap_err();
    assert!(
        matches!(
            &err,
            ProviderError::Unreachable {
                provider: "stripe",
                ..
            }
        ),
        "{err:?}"
    );
    assert!(!format!("{err:?}").contains("sk_test_unreachable"));
}
