//! The Adyen adapter: Pay by Link checkouts (`/paymentLinks`), payment
//! methods and 3-D Secure 2 details for an in-page flow, and HMAC-signed
//! standard notifications, over Adyen's Checkout API (JSON, `X-API-Key`).
//!
//! Adyen has no hosted subscription object: a subscription's first payment
//! stores the card (`recurringProcessingModel=Subscription`) and the mall
//! renews by renewal orders, so [`PaymentProvider::change_subscription`] and
//! [`PaymentProvider::portal`] are `Unsupported`.
//!
//! Notifications carry no event id and sign no timestamp: an event's id is
//! `{pspReference}:{eventCode}` (Adyen resends the same pair on retries) and
//! there is no replay window: replays are harmless only because the mall
//! deduplicates by that id. `created` is the item's `eventDate` when present.
//! The backend must answer a notification with the body `[accepted]`.

use std::time::Duration;

use base64::Engine as _;
use hmac::{Hmac, Mac};
use serde_json::{json, Value};
use sha2::Sha256;
use subtle::ConstantTimeEq;

use crate::{
    Checkout, CheckoutMode, CheckoutRequest, EventKind, Headers, PaymentProvider, ProviderError,
    ProviderEvent, Secret, SubscriptionChange, WebhookError,
};

const PROVIDER: &str = "adyen";

/// How Adyen is reached and how its notifications are checked.
#[derive(Debug, Clone)]
pub struct AdyenConfig {
    /// Checkout API base with its version, no trailing slash:
    /// `https://checkout-test.adyen.com/v71`, or the live
    /// `https://{prefix}-checkout-live.adyenpayments.com/checkout/v71`.
    pub api_url: String,
    pub api_key: Secret,
    pub merchant_account: String,
    /// The notification webhook's HMAC key, hex as the Customer Area shows it.
    pub hmac_key: Secret,
    /// Where the shopper returns when a request has no `success_url`
    /// (`?order_id={id}` is appended).
    pub return_url_base: String,
    pub timeout: Duration,
}

impl Default for AdyenConfig {
    fn default() -> Self {
        AdyenConfig {
            api_url: "https://checkout-test.adyen.com/v71".into(),
            api_key: Secret::default(),
            merchant_account: String::new(),
            hmac_key: Secret::default(),
            return_url_base: String::new(),
            timeout: Duration::from_secs(20),
        }
    }
}

/// The Adyen provider.
#[derive(Debug, Clone)]
pub struct Adyen {
    config: AdyenConfig,
    http: reqwest::Client,
}

impl Adyen {
    pub fn new(mut config: AdyenConfig) -> Result<Adyen, ProviderError> {
        while config.api_url.ends_with('/') {
            config.api_url.pop();
        }
        let http = reqwest::Client::builder()
            .build()
            .map_err(|e| ProviderError::Unreachable {
                provider: PROVIDER,
                message: format!("cannot set up the HTTP client: {e}"),
            })?;
        Ok(Adyen { config, http })
    }

    pub fn config(&self) -> &AdyenConfig {
        &self.config
    }

    async fn post(
        &self,
        path: &str,
        body: &Value,
        idempotency_key: Option<&str>,
    ) -> Result<Value, ProviderError> {
        let url = format!("{}{}", self.config.api_url, path);
        let mut req = self
            .http
            .post(&url)
            .header("X-API-Key", self.config.api_key.expose())
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .timeout(self.config.timeout)
            .body(body.to_string());
        if let Some(key) = idempotency_key {
            req = req.header("Idempotency-Key", key);
        }
        // Adyen's errors: {status, errorCode, message, errorType, pspReference}.
        crate::read_answer(
            PROVIDER,
            path,
            req.send().await,
            |m| self.scrub(m),
            |v| {
                let msg = v.get("message").and_then(Value::as_str)?;
                let code = v.get("errorCode").and_then(Value::as_str).unwrap_or("");
                Some(format!("{code} {msg}").trim().to_string())
            },
        )
        .await
    }

    fn scrub(&self, message: &str) -> String {
        crate::redact(message, &[&self.config.api_key, &self.config.hmac_key])
    }

    /// The payment methods available for an amount (`POST /paymentMethods`),
    /// Adyen's answer as is (`{paymentMethods: [{type, name, brands?}]}`).
    pub async fn payment_methods(
        &self,
        amount: i64,
        currency: &str,
        country: &str,
    ) -> Result<Value, ProviderError> {
        let body = json!({
            "merchantAccount": self.config.merchant_account,
            "amount": {"value": amount, "currency": currency.to_ascii_uppercase()},
            "countryCode": country.to_ascii_uppercase(),
        });
        self.post("/paymentMethods", &body, None).await
    }

    /// Submits a payment's additional details (`POST /payments/details`):
    /// after a redirect or a 3-D Secure 2 challenge, `details` is
    /// `{"details": {"threeDSResult": ...}}` (or `redirectResult`) as the
    /// front end received it. Answers `{resultCode, pspReference, action?}`.
    pub async fn payment_details(&self, details: Value) -> Result<Value, ProviderError> {
        self.post("/payments/details", &details, None).await
    }

    /// The body of a payment link for `req`.
    pub fn link_body(&self, req: &CheckoutRequest) -> Value {
        let return_url = if req.success_url.is_empty() {
            format!("{}?order_id={}", self.config.return_url_base, req.order_id)
        } else {
            req.success_url.clone()
        };
        let mut body = json!({
            "reference": req.order_id,
            "amount": {
                "value": (req.amount - req.discount.max(0)).max(0),
                "currency": req.currency.to_ascii_uppercase(),
            },
            "merchantAccount": self.config.merchant_account,
            "returnUrl": return_url,
            "shopperReference": req.account_id,
            "description": req.product_name,
            "metadata": {"order_id": req.order_id, "product_id": req.product_id},
        });
        if let (Some(email), Some(obj)) = (&req.email, body.as_object_mut()) {
            obj.insert("shopperEmail".into(), json!(email));
        }
        if let (CheckoutMode::Subscription { .. }, Some(obj)) = (&req.mode, body.as_object_mut()) {
            obj.insert("recurringProcessingModel".into(), json!("Subscription"));
            obj.insert("storePaymentMethodMode".into(), json!("enabled"));
        }
        body
    }
}

#[async_trait::async_trait]
impl PaymentProvider for Adyen {
    fn name(&self) -> &'static str {
        PROVIDER
    }

    async fn checkout(&self, req: &CheckoutRequest) -> Result<Checkout, ProviderError> {
        let v = self
            .post("/paymentLinks", &self.link_body(req), Some(&req.order_id))
            .await?;
        let id = v
            .get("id")
            .and_then(Value::as_str)
            .ok_or_else(|| ProviderError::Refused {
                provider: PROVIDER,
                status: 200,
                message: "payment link without id".into(),
            })?;
        Ok(Checkout {
            session_id: id.to_string(),
            url: v.get("url").and_then(Value::as_str).map(str::to_string),
        })
    }

    async fn change_subscription(
        &self,
        _subscription: &str,
        _change: &SubscriptionChange,
    ) -> Result<(), ProviderError> {
        Err(ProviderError::Unsupported(PROVIDER))
    }

    async fn portal(&self, _customer: &str, _return_url: &str) -> Result<String, ProviderError> {
        Err(ProviderError::Unsupported(PROVIDER))
    }

    fn verify_webhook(
        &self,
        _headers: &Headers,
        body: &[u8],
        now: i64,
    ) -> Result<Vec<ProviderEvent>, WebhookError> {
        let v: Value =
            serde_json::from_slice(body).map_err(|e| WebhookError::Malformed(e.to_string()))?;
        let items = v
            .get("notificationItems")
            .and_then(Value::as_array)
            .ok_or_else(|| WebhookError::Malformed("no notificationItems".into()))?;
        let key = hex::decode(self.config.hmac_key.expose())
            .map_err(|_| WebhookError::Malformed("HMAC key is not hex".into()))?;
        if key.is_empty() {
            return Err(WebhookError::MissingSignature);
        }
        let items: Vec<&Value> = items
            .iter()
            .map(|i| i.get("NotificationRequestItem").unwrap_or(i))
            .collect();
        // Every item is checked before any is read.
        for item in &items {
            let given = item
                .pointer("/additionalData/hmacSignature")
                .and_then(Value::as_str)
                .ok_or(WebhookError::MissingSignature)?;
            let given = base64::engine::general_purpose::STANDARD
                .decode(given)
                .map_err(|_| WebhookError::BadSignature)?;
            let expected = item_hmac(&key, item)?;
            if !bool::from(given.as_slice().ct_eq(expected.as_slice())) {
                return Err(WebhookError::BadSignature);
            }
        }
        items.into_iter().map(|i| read_item(i, now)).collect()
    }
}

fn field<'a>(item: &'a Value, key: &str) -> &'a str {
    item.get(key).and_then(Value::as_str).unwrap_or("")
}

/// Adyen's signing string of a notification item: `pspReference:
/// originalReference:merchantAccountCode:merchantReference:value:currency:
/// eventCode:success`, absent fields empty.
pub fn signing_string(item: &Value) -> String {
    let value = item
        .pointer("/amount/value")
        .and_then(Value::as_i64)
        .map(|v| v.to_string())
        .unwrap_or_default();
    let currency = item
        .pointer("/amount/currency")
        .and_then(Value::as_str)
        .unwrap_or("");
    [
        field(item, "pspReference"),
        field(item, "originalReference"),
        field(item, "merchantAccountCode"),
        field(item, "merchantReference"),
        &value,
        currency,
        field(item, "eventCode"),
        field(item, "success"),
    ]
    .join(":")
}

fn item_hmac(key: &[u8], item: &Value) -> Result<Vec<u8>, WebhookError> {
    let mut mac =
        Hmac::<Sha256>::new_from_slice(key).map_err(|_| WebhookError::MissingSignature)?;
    mac.update(signing_string(item).as_bytes());
    Ok(mac.finalize().into_bytes().to_vec())
}

/// The `hmacSignature` Adyen would put on `item` (base64), for tests.
pub fn sign_item(hex_key: &Secret, item: &Value) -> Result<String, WebhookError> {
    let key = hex::decode(hex_key.expose())
        .map_err(|_| WebhookError::Malformed("HMAC key is not hex".into()))?;
    Ok(base64::engine::general_purpose::STANDARD.encode(item_hmac(&key, item)?))
}

fn read_item(item: &Value, now: i64) -> Result<ProviderEvent, WebhookError> {
    let psp = field(item, "pspReference").to_string();
    let code = field(item, "eventCode").to_string();
    if psp.is_empty() || code.is_empty() {
        return Err(WebhookError::Malformed(
            "item without pspReference or eventCode".into(),
        ));
    }
    let success = field(item, "success") == "true";
    let order_id = field(item, "merchantReference").to_string();
    let original = field(item, "originalReference").to_string();
    let amount = item.pointer("/amount/value").and_then(Value::as_i64);
    let currency = item
        .pointer("/amount/currency")
        .and_then(Value::as_str)
        .map(str::to_ascii_lowercase);
    // The disputed payment: dispute notifications name it in
    // originalReference when they have a reference of their own.
    let disputed = if original.is_empty() {
        psp.clone()
    } else {
        original.clone()
    };
    let kind = match (code.as_str(), success) {
        ("AUTHORISATION", true) => EventKind::CheckoutCompleted {
            order_id,
            session_id: item
                .pointer("/additionalData/paymentLinkId")
                .and_then(Value::as_str)
                .map(str::to_string)
                .unwrap_or_else(|| psp.clone()),
            paid: true,
            customer: None,
            subscription: None,
            payment: Some(psp.clone()),
            amount,
            currency,
        },
        ("AUTHORISATION", false) => EventKind::AsyncPayment {
            order_id,
            succeeded: false,
        },
        // Adyen does not say whether a refund is full: `full` is false and
        // the mall compares `amount` with the order's.
        ("REFUND", true) => EventKind::Refunded {
            payment: original,
            amount: amount.unwrap_or(0),
            full: false,
        },
        ("CHARGEBACK", _) => EventKind::DisputeOpened {
            payment: disputed.clone(),
            dispute: disputed,
        },
        ("CHARGEBACK_REVERSED", _) => EventKind::DisputeClosed {
            payment: disputed.clone(),
            dispute: disputed,
            won: true,
        },
        ("SECOND_CHARGEBACK", _) => EventKind::DisputeClosed {
            payment: disputed.clone(),
            dispute: disputed,
            won: false,
        },
        (other, _) => EventKind::Ignored {
            kind: other.to_string(),
        },
    };
    let created = item
        .get("eventDate")
        .and_then(Value::as_str)
        .and_then(rfc3339_seconds)
        .unwrap_or(now);
    Ok(ProviderEvent {
        id: format!("{psp}:{code}"),
        created,
        kind,
    })
}

/// Unix seconds of an RFC 3339 time (`2026-11-26T06:00:00+01:00`,
/// fractions ignored).
pub fn rfc3339_seconds(s: &str) -> Option<i64> {
    let num = |r: std::ops::Range<usize>| -> Option<i64> { s.get(r)?.parse().ok() };
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if s.get(4..5)? != "-" || s.get(10..11).map(|c| c.to_ascii_uppercase())? != "T" {
        return None;
    }
    let rest = s.get(19..)?;
    let rest = rest.trim_start_matches(|c: char| c == '.' || c.is_ascii_digit());
    let offset = if rest.eq_ignore_ascii_case("z") {
        0
    } else {
        let sign = match rest.get(0..1)? {
            "+" => 1,
            "-" => -1,
            _ => return None,
        };
        let oh: i64 = rest.get(1..3)?.parse().ok()?;
        let om: i64 = rest.get(4..6)?.parse().ok()?;
        sign * (oh * 3600 + om * 60)
    };
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if mo <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (mo + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + h * 3600 + mi * 60 + sec - offset)
}
