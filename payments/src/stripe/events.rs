//! Stripe webhook events (`{id, created, type, data: {object}}`) read into
//! provider-neutral [`EventKind`]s. Both the older API versions' field
//! layout and the newer one (2025-03-31 "basil" onwards: an invoice's
//! subscription under `parent.subscription_details`, a subscription's period
//! on its items, an invoice's payment intent under `payments`) are read.

use serde_json::Value;

use crate::{EventKind, ProviderEvent, ProviderSubStatus, WebhookError};

fn malformed(what: &str) -> WebhookError {
    WebhookError::Malformed(what.to_string())
}

/// A string field, or the `id` of an expanded object in its place.
fn id_of(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Object(o) => o.get("id").and_then(Value::as_str).map(str::to_string),
        _ => None,
    }
}

fn text(v: &Value, pointer: &str) -> Option<String> {
    v.pointer(pointer)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

fn int(v: &Value, pointer: &str) -> Option<i64> {
    v.pointer(pointer).and_then(Value::as_i64)
}

fn need<T>(v: Option<T>, what: &str) -> Result<T, WebhookError> {
    v.ok_or_else(|| malformed(what))
}

/// Reads one event body (already verified).
pub fn parse_event(body: &[u8]) -> Result<ProviderEvent, WebhookError> {
    let ev: Value = serde_json::from_slice(body).map_err(|e| malformed(&e.to_string()))?;
    let id = need(text(&ev, "/id"), "event without id")?;
    let created = need(int(&ev, "/created"), "event without created")?;
    let kind_name = need(text(&ev, "/type"), "event without type")?;
    let obj = ev
        .pointer("/data/object")
        .filter(|o| o.is_object())
        .ok_or_else(|| malformed("event without data.object"))?;
    let kind = event_kind(&kind_name, obj)?;
    Ok(ProviderEvent { id, created, kind })
}

fn order_id(obj: &Value) -> Result<String, WebhookError> {
    need(
        text(obj, "/client_reference_id").or_else(|| text(obj, "/metadata/order_id")),
        "checkout session without client_reference_id",
    )
}

fn event_kind(kind: &str, obj: &Value) -> Result<EventKind, WebhookError> {
    Ok(match kind {
        "checkout.session.completed" => {
            let paid = matches!(
                obj.get("payment_status").and_then(Value::as_str),
                Some("paid") | Some("no_payment_required")
            );
            EventKind::CheckoutCompleted {
                order_id: order_id(obj)?,
                session_id: need(text(obj, "/id"), "session without id")?,
                paid,
                customer: id_of(obj.get("customer")),
                subscription: id_of(obj.get("subscription")),
                payment: id_of(obj.get("payment_intent")),
                amount: int(obj, "/amount_total"),
                currency: text(obj, "/currency"),
            }
        }
        "checkout.session.async_payment_succeeded" | "checkout.session.async_payment_failed" => {
            EventKind::AsyncPayment {
                order_id: order_id(obj)?,
                succeeded: kind.ends_with("succeeded"),
            }
        }
        "checkout.session.expired" => EventKind::CheckoutExpired {
            order_id: order_id(obj)?,
        },
        "invoice.paid" | "invoice.payment_succeeded" => {
            let Some(subscription) = invoice_subscription(obj) else {
                // A one-off invoice: nothing of the mall's.
                return Ok(EventKind::Ignored {
                    kind: kind.to_string(),
                });
            };
            let start =
                int(obj, "/lines/data/0/period/start").or_else(|| int(obj, "/period_start"));
            let end = int(obj, "/lines/data/0/period/end").or_else(|| int(obj, "/period_end"));
            EventKind::InvoicePaid {
                subscription,
                invoice: need(text(obj, "/id"), "invoice without id")?,
                period_start: need(start, "invoice without period")?,
                period_end: need(end, "invoice without period")?,
                amount: int(obj, "/amount_paid").unwrap_or(0),
                reason: text(obj, "/billing_reason").unwrap_or_default(),
                payment: id_of(obj.get("payment_intent"))
                    .or_else(|| id_of(obj.pointer("/payments/data/0/payment/payment_intent"))),
            }
        }
        "invoice.payment_failed" => match invoice_subscription(obj) {
            Some(subscription) => EventKind::InvoiceFailed {
                subscription,
                invoice: need(text(obj, "/id"), "invoice without id")?,
            },
            None => EventKind::Ignored {
                kind: kind.to_string(),
            },
        },
        "customer.subscription.created" | "customer.subscription.updated" => {
            let status = text(obj, "/status").unwrap_or_default();
            let Some(status) = sub_status(&status) else {
                return Ok(EventKind::Ignored {
                    kind: format!("{kind} (status {status})"),
                });
            };
            let start = int(obj, "/current_period_start")
                .or_else(|| int(obj, "/items/data/0/current_period_start"));
            let end = int(obj, "/current_period_end")
                .or_else(|| int(obj, "/items/data/0/current_period_end"));
            let paused_until = match obj.get("pause_collection") {
                Some(p) if p.is_object() => Some(int(p, "/resumes_at").unwrap_or(0)),
                _ => None,
            };
            EventKind::SubscriptionUpdated {
                subscription: need(text(obj, "/id"), "subscription without id")?,
                status,
                current_period_start: need(start, "subscription without period")?,
                current_period_end: need(end, "subscription without period")?,
                cancel_at_period_end: obj
                    .get("cancel_at_period_end")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
                paused_until,
                product_id: text(obj, "/metadata/product_id"),
            }
        }
        "customer.subscription.deleted" => EventKind::SubscriptionDeleted {
            subscription: need(text(obj, "/id"), "subscription without id")?,
        },
        "charge.refunded" => {
            let payment = id_of(obj.get("payment_intent")).or_else(|| text(obj, "/id"));
            EventKind::Refunded {
                payment: need(payment, "charge without id")?,
                amount: int(obj, "/amount_refunded").unwrap_or(0),
                full: obj
                    .get("refunded")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
            }
        }
        "charge.dispute.created" | "charge.dispute.closed" => {
            let payment = id_of(obj.get("payment_intent")).or_else(|| id_of(obj.get("charge")));
            let payment = need(payment, "dispute without payment_intent")?;
            let dispute = need(text(obj, "/id"), "dispute without id")?;
            if kind.ends_with("created") {
                EventKind::DisputeOpened { payment, dispute }
            } else {
                // `warning_closed`: an inquiry closed without a chargeback,
                // the money stays with the merchant.
                let won = matches!(
                    obj.get("status").and_then(Value::as_str),
                    Some("won") | Some("warning_closed")
                );
                EventKind::DisputeClosed {
                    payment,
                    dispute,
                    won,
                }
            }
        }
        other => EventKind::Ignored {
            kind: other.to_string(),
        },
    })
}

/// An invoice's subscription: `subscription` (API versions before
/// 2025-03-31) or `parent.subscription_details.subscription` (newer).
fn invoice_subscription(obj: &Value) -> Option<String> {
    id_of(obj.get("subscription"))
        .or_else(|| id_of(obj.pointer("/parent/subscription_details/subscription")))
        .or_else(|| {
            id_of(obj.pointer("/lines/data/0/parent/subscription_item_details/subscription"))
        })
}

fn sub_status(s: &str) -> Option<ProviderSubStatus> {
    Some(match s {
        "active" => ProviderSubStatus::Active,
        "trialing" => ProviderSubStatus::Trialing,
        "past_due" => ProviderSubStatus::PastDue,
        "unpaid" => ProviderSubStatus::Unpaid,
        "paused" => ProviderSubStatus::Paused,
        "canceled" => ProviderSubStatus::Canceled,
        "incomplete" => ProviderSubStatus::Incomplete,
        "incomplete_expired" => ProviderSubStatus::IncompleteExpired,
        _ => return None,
    })
}
