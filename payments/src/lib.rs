//! Payment providers behind one port (`PaymentProvider`): what the mall asks
//! of a card processor (a hosted checkout for a one-off or a recurring
//! payment, subscription changes, the customer portal) and what it hears back
//! (webhooks, verified and turned into provider-neutral [`ProviderEvent`]s).
//!
//! Adapters: [`stripe`] (Checkout Sessions, Billing, `Stripe-Signature`
//! webhooks), [`adyen`] (payment links, payment methods, 3-D Secure 2
//! details, HMAC-signed notifications) and [`manual`] (no processor: an
//! operator marks a bank transfer paid).
//!
//! Architecture Invariant: this crate knows nothing of orders, ledgers,
//! stores or HTTP servers. It speaks the providers' documented APIs over
//! `reqwest` and answers plain values; the backend's `mall/` decides what a
//! payment means. Secrets live in [`Secret`], which never prints.

pub mod adyen;
pub mod manual;
pub mod stripe;

use std::fmt;

use serde::{Deserialize, Serialize};

/// A secret (API key, webhook secret, HMAC key): `Debug` and `Display` print
/// `[redacted]`, so it never reaches a log line.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(s: impl Into<String>) -> Secret {
        Secret(s.into())
    }
    pub fn expose(&self) -> &str {
        &self.0
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

/// How often a subscription renews.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Interval {
    Month,
    Year,
}

/// What the customer is asked to pay for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckoutMode {
    /// One payment (a credit pack, an ornament bought with money).
    OneOff,
    /// A recurring payment at `price` every `interval`.
    Subscription { interval: Interval },
}

/// A hosted checkout for one order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckoutRequest {
    /// The mall's order id: Stripe's `client_reference_id` and metadata,
    /// Adyen's `reference`; every event about the payment carries it back.
    pub order_id: String,
    pub account_id: String,
    /// The buyer's e-mail, prefilled where the provider allows.
    pub email: Option<String>,
    /// A customer id this provider gave the account before (reused so one
    /// customer holds all of an account's payments).
    pub customer: Option<String>,
    /// The product's name as shown on the provider's page.
    pub product_name: String,
    /// The product id (sent as metadata).
    pub product_id: String,
    /// Price in minor units of `currency` (fen for CNY, cents for USD).
    pub amount: i64,
    /// ISO 4217, lower case ("cny").
    pub currency: String,
    pub mode: CheckoutMode,
    /// Minor units taken off the first payment (a half-price offer); 0 for
    /// none. For a subscription only its first invoice is discounted.
    pub discount: i64,
    /// Where the provider sends the browser after payment / on cancel.
    /// `{ORDER_ID}` is not expanded: the mall puts the id in itself.
    pub success_url: String,
    pub cancel_url: String,
}

/// A checkout the provider opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkout {
    /// The provider's id of the session / link.
    pub session_id: String,
    /// Where to send the browser. `None` for providers without a hosted page
    /// (manual: the page is the mall's own, with transfer instructions).
    pub url: Option<String>,
}

/// A change of a running subscription, asked of the provider.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SubscriptionChange {
    /// Stop renewing at the end of the paid period (`true`), or renew again.
    CancelAtPeriodEnd(bool),
    /// End it now (no refund).
    CancelNow,
    /// Stop collecting payments until `resume_at` (Unix seconds), or resume
    /// now (`None`).
    Pause { resume_at: Option<i64> },
    /// Take `percent_off` off the next invoice only (the retention offer).
    DiscountNext { percent_off: u8 },
    /// Renew at another price from the next period on (an upgrade whose
    /// prorated difference the mall charged as its own order): no proration
    /// by the provider, the billing period is unchanged.
    ChangePrice {
        product_id: String,
        product_name: String,
        amount: i64,
        currency: String,
        interval: Interval,
    },
}

/// The state of a subscription as the provider reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProviderSubStatus {
    Active,
    Trialing,
    /// A renewal failed; the provider retries.
    PastDue,
    /// Retries exhausted or not paid.
    Unpaid,
    Paused,
    Canceled,
    Incomplete,
    IncompleteExpired,
}

/// What a verified webhook said, in the mall's terms. Every event has the
/// provider's id (for deduplication) and its creation time (Unix seconds,
/// for ordering: an older event never undoes a newer one).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProviderEvent {
    pub id: String,
    pub created: i64,
    pub kind: EventKind,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EventKind {
    /// The checkout of `order_id` was paid (`paid` true) or completed
    /// awaiting an asynchronous payment (`paid` false: bank debits).
    CheckoutCompleted {
        order_id: String,
        session_id: String,
        paid: bool,
        customer: Option<String>,
        /// Set for subscription checkouts.
        subscription: Option<String>,
        /// The payment's id at the provider (Stripe payment intent, Adyen
        /// PSP reference): refunds and disputes name it.
        payment: Option<String>,
        amount: Option<i64>,
        currency: Option<String>,
    },
    /// An asynchronous payment of a completed checkout succeeded or failed.
    AsyncPayment { order_id: String, succeeded: bool },
    /// The checkout expired unpaid.
    CheckoutExpired { order_id: String },
    /// A subscription invoice was paid: the period it pays for (Unix seconds).
    InvoicePaid {
        subscription: String,
        invoice: String,
        period_start: i64,
        period_end: i64,
        amount: i64,
        /// `subscription_create`, `subscription_cycle`, `subscription_update`, ...
        reason: String,
        payment: Option<String>,
    },
    /// A subscription invoice's payment failed (the provider may retry).
    InvoiceFailed {
        subscription: String,
        invoice: String,
    },
    /// The subscription's state changed (status, period, pause, renewal).
    SubscriptionUpdated {
        subscription: String,
        status: ProviderSubStatus,
        current_period_start: i64,
        current_period_end: i64,
        cancel_at_period_end: bool,
        /// Unix seconds when a pause ends; `Some(0)` paused indefinitely.
        paused_until: Option<i64>,
        /// The product id in the subscription's metadata, when known.
        product_id: Option<String>,
    },
    /// The subscription ended.
    SubscriptionDeleted { subscription: String },
    /// Money was given back for a payment (`amount` of it, in minor units;
    /// `full` when all of it).
    Refunded {
        payment: String,
        amount: i64,
        full: bool,
    },
    /// A dispute (chargeback) was opened on a payment.
    DisputeOpened { payment: String, dispute: String },
    /// A dispute closed: `won` by the merchant (money kept) or lost.
    DisputeClosed {
        payment: String,
        dispute: String,
        won: bool,
    },
    /// A verified event the mall does not act on (logged and acknowledged).
    Ignored { kind: String },
}

/// Why a webhook was refused. Every variant answers 400 and changes nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WebhookError {
    #[error("missing or malformed signature header")]
    MissingSignature,
    #[error("signature does not match")]
    BadSignature,
    #[error("timestamp outside the tolerance window")]
    Stale,
    #[error("malformed payload: {0}")]
    Malformed(String),
    #[error("this provider takes no webhooks")]
    Unsupported,
}

/// A call to the provider that failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProviderError {
    /// The provider refused the request (its message; never a secret).
    #[error("{provider} refused: {message}")]
    Refused {
        provider: &'static str,
        status: u16,
        message: String,
    },
    /// Could not reach it, or no answer within the timeout.
    #[error("{provider} unreachable: {message}")]
    Unreachable {
        provider: &'static str,
        message: String,
    },
    /// The provider does not do this.
    #[error("not supported by {0}")]
    Unsupported(&'static str),
}

/// Request headers of a webhook, lower-cased names.
pub type Headers = Vec<(String, String)>;

/// One payment provider.
#[async_trait::async_trait]
pub trait PaymentProvider: Send + Sync {
    /// `stripe`, `adyen` or `manual`: stored with each order.
    fn name(&self) -> &'static str;

    /// Opens a hosted checkout for an order.
    async fn checkout(&self, req: &CheckoutRequest) -> Result<Checkout, ProviderError>;

    /// Changes a running subscription (the provider's id).
    async fn change_subscription(
        &self,
        subscription: &str,
        change: &SubscriptionChange,
    ) -> Result<(), ProviderError>;

    /// A link to the provider's self-service page for a customer (update a
    /// card, download invoices), when it has one.
    async fn portal(&self, customer: &str, return_url: &str) -> Result<String, ProviderError>;

    /// Verifies a webhook and reads its events. `now` is Unix seconds (for
    /// the tolerance window). Nothing is trusted before this answers `Ok`.
    fn verify_webhook(
        &self,
        headers: &Headers,
        body: &[u8],
        now: i64,
    ) -> Result<Vec<ProviderEvent>, WebhookError>;
}

/// The value of a header (names compared case-insensitively).
pub fn header<'a>(headers: &'a Headers, name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// Replaces each non-empty secret's text in `message` by `[redacted]`.
pub(crate) fn redact(message: &str, secrets: &[&Secret]) -> String {
    let mut out = message.to_string();
    for secret in secrets {
        if !secret.is_empty() {
            out = out.replace(secret.expose(), "[redacted]");
        }
    }
    out
}

/// Reads a provider's JSON answer: the value on success; on failure the
/// provider's own message (`error_message` picks it from the error body,
/// `scrub` removes secrets), `Unreachable` for 5xx and transport errors
/// (worth a retry), `Refused` for the rest.
pub(crate) async fn read_answer(
    provider: &'static str,
    call: &str,
    sent: Result<reqwest::Response, reqwest::Error>,
    scrub: impl Fn(&str) -> String,
    error_message: impl Fn(&serde_json::Value) -> Option<String>,
) -> Result<serde_json::Value, ProviderError> {
    let unreachable = |e: reqwest::Error| ProviderError::Unreachable {
        provider,
        message: scrub(&e.to_string()),
    };
    let resp = sent.map_err(unreachable)?;
    let status = resp.status();
    let text = resp.text().await.map_err(unreachable)?;
    if status.is_success() {
        return serde_json::from_str(&text).map_err(|e| ProviderError::Refused {
            provider,
            status: status.as_u16(),
            message: format!("unreadable answer: {e}"),
        });
    }
    let message = serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|v| error_message(&v))
        .unwrap_or_else(|| format!("HTTP {status}"));
    let message = scrub(&message);
    tracing::warn!(provider, call, status = status.as_u16(), %message, "payment provider call failed");
    if status.is_server_error() {
        Err(ProviderError::Unreachable { provider, message })
    } else {
        Err(ProviderError::Refused {
            provider,
            status: status.as_u16(),
            message,
        })
    }
}
