//! The Stripe adapter: hosted Checkout Sessions (one-off and subscription),
//! Billing subscription changes, the customer portal and `Stripe-Signature`
//! webhook verification, over Stripe's documented form-encoded REST API.
//!
//! Requests are `application/x-www-form-urlencoded` with bracketed keys
//! (`line_items[0][price_data][currency]`) and `Authorization: Bearer
//! {secret key}`; Stripe answers JSON, errors as `{error: {message, type}}`.
//! Webhook events are read in [`events`].

pub mod events;

use std::time::Duration;

use hmac::{Hmac, Mac};
use reqwest::Method;
use serde_json::Value;
use sha2::Sha256;
use subtle::ConstantTimeEq;

use crate::{
    header, Checkout, CheckoutMode, CheckoutRequest, Headers, Interval, PaymentProvider,
    ProviderError, ProviderEvent, Secret, SubscriptionChange, WebhookError,
};

const PROVIDER: &str = "stripe";

/// Stripe's own API.
pub const DEFAULT_API_URL: &str = "https://api.stripe.com";

/// How Stripe is reached and how its webhooks are checked.
#[derive(Debug, Clone)]
pub struct StripeConfig {
    /// API base without a trailing slash (`EASEL_STRIPE_API_URL`); a fake in tests.
    pub api_url: String,
    /// `sk_live_...` / `sk_test_...` / a restricted `rk_...` key (`EASEL_STRIPE_SECRET_KEY`).
    pub secret_key: Secret,
    /// The endpoint's signing secret `whsec_...` (`EASEL_STRIPE_WEBHOOK_SECRET`).
    pub webhook_secret: Secret,
    /// Webhooks whose signed timestamp is further than this from now are
    /// refused as replays (Stripe's libraries use 300 s).
    pub tolerance_secs: i64,
    /// Per-request timeout of API calls.
    pub timeout: Duration,
}

impl Default for StripeConfig {
    fn default() -> Self {
        StripeConfig {
            api_url: DEFAULT_API_URL.to_string(),
            secret_key: Secret::default(),
            webhook_secret: Secret::default(),
            tolerance_secs: 300,
            timeout: Duration::from_secs(20),
        }
    }
}

/// The Stripe provider.
#[derive(Debug, Clone)]
pub struct Stripe {
    config: StripeConfig,
    http: reqwest::Client,
}

/// A form body: ordered `(key, value)` pairs.
type Form = Vec<(String, String)>;

fn push(form: &mut Form, key: &str, value: impl ToString) {
    form.push((key.to_string(), value.to_string()));
}

fn interval_name(interval: Interval) -> &'static str {
    match interval {
        Interval::Month => "month",
        Interval::Year => "year",
    }
}

impl Stripe {
    /// A provider for `config` (a trailing `/` of `api_url` is dropped); fails
    /// only when the HTTP client cannot be set up (TLS roots).
    pub fn new(mut config: StripeConfig) -> Result<Stripe, ProviderError> {
        while config.api_url.ends_with('/') {
            config.api_url.pop();
        }
        let http = reqwest::Client::builder()
            .build()
            .map_err(|e| ProviderError::Unreachable {
                provider: PROVIDER,
                message: format!("cannot set up the HTTP client: {e}"),
            })?;
        Ok(Stripe { config, http })
    }

    pub fn config(&self) -> &StripeConfig {
        &self.config
    }

    /// One API call; answers the JSON body of a 2xx answer.
    async fn call(
        &self,
        method: Method,
        path: &str,
        form: Option<&Form>,
        idempotency_key: Option<&str>,
    ) -> Result<Value, ProviderError> {
        let url = format!("{}{}", self.config.api_url, path);
        let mut req = self
            .http
            .request(method.clone(), &url)
            .bearer_auth(self.config.secret_key.expose())
            .timeout(self.config.timeout);
        if let Some(key) = idempotency_key {
            req = req.header("Idempotency-Key", key);
        }
        if let Some(form) = form {
            let body = serde_urlencoded::to_string(form).map_err(|e| ProviderError::Refused {
                provider: PROVIDER,
                status: 0,
                message: format!("unencodable request: {e}"),
            })?;
            req = req
                .header(
                    reqwest::header::CONTENT_TYPE,
                    "application/x-www-form-urlencoded",
                )
                .body(body);
        }
        // Stripe's errors: {error: {message, type, code}}.
        crate::read_answer(
            PROVIDER,
            &format!("{method} {path}"),
            req.send().await,
            |m| self.scrub(m),
            |v| {
                let err = v.get("error")?;
                let msg = err.get("message").and_then(Value::as_str).unwrap_or("");
                let kind = err.get("type").and_then(Value::as_str).unwrap_or("error");
                Some(format!("{kind}: {msg}"))
            },
        )
        .await
    }

    /// Removes the secret key and anything shaped like a Stripe key
    /// (Stripe's own messages quote a masked key) from a message.
    fn scrub(&self, message: &str) -> String {
        let out = crate::redact(
            message,
            &[&self.config.secret_key, &self.config.webhook_secret],
        );
        out.split(' ')
            .map(|w| {
                let bare = w.trim_start_matches(|c: char| !c.is_ascii_alphanumeric());
                if ["sk_", "rk_", "pk_", "whsec_"]
                    .iter()
                    .any(|p| bare.starts_with(p))
                {
                    "[redacted]"
                } else {
                    w
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// A one-time coupon; answers its id.
    async fn coupon(&self, form: Form, idempotency_key: &str) -> Result<String, ProviderError> {
        let v = self
            .call(
                Method::POST,
                "/v1/coupons",
                Some(&form),
                Some(idempotency_key),
            )
            .await?;
        str_field(&v, "id")
    }

    /// The form of a Checkout Session for `req`.
    pub fn checkout_form(req: &CheckoutRequest, coupon: Option<&str>) -> Form {
        let mut f = Form::new();
        let mode = match req.mode {
            CheckoutMode::OneOff => "payment",
            CheckoutMode::Subscription { .. } => "subscription",
        };
        push(&mut f, "mode", mode);
        push(&mut f, "client_reference_id", &req.order_id);
        for (k, v) in [
            ("order_id", &req.order_id),
            ("account_id", &req.account_id),
            ("product_id", &req.product_id),
        ] {
            push(&mut f, &format!("metadata[{k}]"), v);
        }
        let li = "line_items[0]";
        push(
            &mut f,
            &format!("{li}[price_data][currency]"),
            req.currency.to_ascii_lowercase(),
        );
        push(
            &mut f,
            &format!("{li}[price_data][unit_amount]"),
            req.amount,
        );
        push(
            &mut f,
            &format!("{li}[price_data][product_data][name]"),
            &req.product_name,
        );
        if let CheckoutMode::Subscription { interval } = req.mode {
            push(
                &mut f,
                &format!("{li}[price_data][recurring][interval]"),
                interval_name(interval),
            );
        }
        push(&mut f, &format!("{li}[quantity]"), 1);
        push(&mut f, "success_url", &req.success_url);
        push(&mut f, "cancel_url", &req.cancel_url);
        match (&req.customer, &req.email) {
            (Some(c), _) => push(&mut f, "customer", c),
            (None, Some(e)) => push(&mut f, "customer_email", e),
            (None, None) => {}
        }
        let carrier = match req.mode {
            CheckoutMode::OneOff => "payment_intent_data",
            CheckoutMode::Subscription { .. } => "subscription_data",
        };
        for (k, v) in [
            ("order_id", &req.order_id),
            ("account_id", &req.account_id),
            ("product_id", &req.product_id),
        ] {
            push(&mut f, &format!("{carrier}[metadata][{k}]"), v);
        }
        if let Some(c) = coupon {
            push(&mut f, "discounts[0][coupon]", c);
        }
        f
    }
}

fn str_field(v: &Value, key: &str) -> Result<String, ProviderError> {
    v.get(key)
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| ProviderError::Refused {
            provider: PROVIDER,
            status: 200,
            message: format!("answer without `{key}`"),
        })
}

#[async_trait::async_trait]
impl PaymentProvider for Stripe {
    fn name(&self) -> &'static str {
        PROVIDER
    }

    async fn checkout(&self, req: &CheckoutRequest) -> Result<Checkout, ProviderError> {
        let coupon = if req.discount > 0 {
            let mut f = Form::new();
            push(&mut f, "amount_off", req.discount);
            push(&mut f, "currency", req.currency.to_ascii_lowercase());
            push(&mut f, "duration", "once");
            push(&mut f, "max_redemptions", 1);
            push(&mut f, "metadata[order_id]", &req.order_id);
            Some(self.coupon(f, &format!("{}-coupon", req.order_id)).await?)
        } else {
            None
        };
        let form = Stripe::checkout_form(req, coupon.as_deref());
        let v = self
            .call(
                Method::POST,
                "/v1/checkout/sessions",
                Some(&form),
                Some(&req.order_id),
            )
            .await?;
        Ok(Checkout {
            session_id: str_field(&v, "id")?,
            url: v.get("url").and_then(Value::as_str).map(str::to_string),
        })
    }

    async fn change_subscription(
        &self,
        subscription: &str,
        change: &SubscriptionChange,
    ) -> Result<(), ProviderError> {
        let path = format!("/v1/subscriptions/{subscription}");
        let mut f = Form::new();
        match change {
            SubscriptionChange::CancelAtPeriodEnd(on) => {
                push(&mut f, "cancel_at_period_end", on);
            }
            SubscriptionChange::CancelNow => {
                self.call(Method::DELETE, &path, None, None).await?;
                return Ok(());
            }
            SubscriptionChange::Pause {
                resume_at: Some(at),
            } => {
                push(&mut f, "pause_collection[behavior]", "void");
                push(&mut f, "pause_collection[resumes_at]", at);
            }
            SubscriptionChange::Pause { resume_at: None } => {
                // An empty value unsets the field: collection resumes.
                push(&mut f, "pause_collection", "");
            }
            SubscriptionChange::DiscountNext { percent_off } => {
                let mut c = Form::new();
                push(&mut c, "percent_off", percent_off);
                push(&mut c, "duration", "once");
                push(&mut c, "metadata[subscription]", subscription);
                let coupon = self
                    .coupon(c, &format!("{subscription}-retention-{percent_off}"))
                    .await?;
                push(&mut f, "discounts[0][coupon]", coupon);
            }
            SubscriptionChange::ChangePrice {
                product_id,
                product_name,
                amount,
                currency,
                interval,
            } => {
                let sub = self.call(Method::GET, &path, None, None).await?;
                let item = sub
                    .pointer("/items/data/0/id")
                    .and_then(Value::as_str)
                    .ok_or_else(|| ProviderError::Refused {
                        provider: PROVIDER,
                        status: 200,
                        message: "subscription without items".into(),
                    })?
                    .to_string();
                // A subscription item's `price_data` names a product by id.
                let mut p = Form::new();
                push(&mut p, "name", product_name);
                push(&mut p, "metadata[product_id]", product_id);
                let product = self
                    .call(
                        Method::POST,
                        "/v1/products",
                        Some(&p),
                        Some(&format!("{subscription}-product-{product_id}-{amount}")),
                    )
                    .await?;
                let product = str_field(&product, "id")?;
                push(&mut f, "items[0][id]", item);
                push(&mut f, "items[0][price_data][product]", product);
                push(
                    &mut f,
                    "items[0][price_data][currency]",
                    currency.to_ascii_lowercase(),
                );
                push(&mut f, "items[0][price_data][unit_amount]", amount);
                push(
                    &mut f,
                    "items[0][price_data][recurring][interval]",
                    interval_name(*interval),
                );
                push(&mut f, "proration_behavior", "none");
                push(&mut f, "metadata[product_id]", product_id);
            }
        }
        self.call(Method::POST, &path, Some(&f), None).await?;
        Ok(())
    }

    async fn portal(&self, customer: &str, return_url: &str) -> Result<String, ProviderError> {
        let mut f = Form::new();
        push(&mut f, "customer", customer);
        push(&mut f, "return_url", return_url);
        let v = self
            .call(Method::POST, "/v1/billing_portal/sessions", Some(&f), None)
            .await?;
        str_field(&v, "url")
    }

    fn verify_webhook(
        &self,
        headers: &Headers,
        body: &[u8],
        now: i64,
    ) -> Result<Vec<ProviderEvent>, WebhookError> {
        verify_signature(
            header(headers, "stripe-signature"),
            body,
            &self.config.webhook_secret,
            self.config.tolerance_secs,
            now,
        )?;
        Ok(vec![events::parse_event(body)?])
    }
}

/// Checks a `Stripe-Signature: t=...,v1=...[,v1=...]` header as Stripe
/// documents: HMAC-SHA256 of `{t}.{body}` keyed by the endpoint secret,
/// compared in constant time with every `v1` (any may match, as during a
/// secret roll), then `t` within `tolerance` seconds of `now`.
pub fn verify_signature(
    header: Option<&str>,
    body: &[u8],
    secret: &Secret,
    tolerance: i64,
    now: i64,
) -> Result<(), WebhookError> {
    let header = header.ok_or(WebhookError::MissingSignature)?;
    let mut t: Option<i64> = None;
    let mut v1s = Vec::new();
    for part in header.split(',') {
        let Some((k, v)) = part.trim().split_once('=') else {
            continue;
        };
        match k {
            "t" => t = v.parse().ok(),
            "v1" => v1s.push(v),
            _ => {}
        }
    }
    let t = t.ok_or(WebhookError::MissingSignature)?;
    if v1s.is_empty() || secret.is_empty() {
        return Err(WebhookError::MissingSignature);
    }
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.expose().as_bytes())
        .map_err(|_| WebhookError::BadSignature)?;
    mac.update(t.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    let expected = mac.finalize().into_bytes();
    let mut matched = subtle::Choice::from(0);
    for v in v1s {
        if let Ok(given) = hex::decode(v) {
            matched |= given.as_slice().ct_eq(expected.as_slice());
        }
    }
    if !bool::from(matched) {
        return Err(WebhookError::BadSignature);
    }
    if (now - t).abs() > tolerance {
        return Err(WebhookError::Stale);
    }
    Ok(())
}

/// The header Stripe would send for `body` at `t` (for tests and fakes).
pub fn sign(secret: &Secret, t: i64, body: &[u8]) -> String {
    let mut mac = match Hmac::<Sha256>::new_from_slice(secret.expose().as_bytes()) {
        Ok(m) => m,
        Err(_) => return format!("t={t}"),
    };
    mac.update(format!("{t}.").as_bytes());
    mac.update(body);
    format!("t={t},v1={}", hex::encode(mac.finalize().into_bytes()))
}
