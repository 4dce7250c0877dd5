//! Provider events: verified by the provider's adapter (nothing is read
//! before the signature checks), deduplicated by event id, then applied.
//!
//! Order of arrival does not matter:
//! - order moves go through the state machine, which refuses a move the
//!   order is past (a late "expired" after "paid" changes nothing);
//! - subscription events older than the newest one applied are skipped
//!   (`SubRow::event_at`);
//! - a refund, dispute or invoice naming a payment or subscription not yet
//!   known (its checkout event has not arrived) is kept in
//!   `PAYMENT_PENDING` and applied when the checkout completes;
//! - every credit change is keyed, so a replay or a race grants once.
//!
//! An event is marked done only after it was applied, so a crash midway
//! answers the provider no 2xx and its retry finishes the work.

use infra::store::{Key, ScanRange};
use payments::{EventKind, ProviderEvent, ProviderSubStatus};
use protocol::mall::order::OrderStep;
use protocol::mall::subscription::SubStatus;
use protocol::mall::{OrderEvent, OrderKind, OrderStatus};
use protocol::ErrorCode;

use super::orders::ref_key;
use super::rows::{EventMark, OrderRow, RefRow};
use super::subs::paid_at;
use super::MallService;
use crate::accounts::now_millis;
use crate::error::ApiError;

/// What a webhook did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct WebhookOutcome {
    pub applied: usize,
    pub duplicates: usize,
}

impl MallService {
    /// Verifies and applies a provider's webhook. A bad signature is
    /// refused before anything is read or written.
    pub async fn webhook(
        &self,
        provider: &str,
        headers: &payments::Headers,
        body: &[u8],
    ) -> Result<WebhookOutcome, ApiError> {
        let p = self.provider(provider)?.clone();
        let now = now_millis() / 1000;
        let events = p.verify_webhook(headers, body, now).map_err(|e| {
            tracing::warn!(provider, error = %e, "webhook refused");
            ApiError::with_msg(ErrorCode::WebhookSignatureInvalid, e.to_string())
        })?;
        let mut out = WebhookOutcome::default();
        for ev in events {
            let mark = Key::of(p.name()).str(&ev.id);
            if self
                .inner
                .t
                .events
                .get(&mark, &Key::empty())
                .await?
                .is_some()
            {
                out.duplicates += 1;
                continue;
            }
            self.apply(p.name(), &ev).await?;
            self.inner
                .t
                .events
                .put(&mark, &Key::empty(), &EventMark { at: now_millis() })
                .await?;
            out.applied += 1;
        }
        Ok(out)
    }

    /// Applies one verified event; `false` when it was kept for later (it
    /// names a payment or subscription not known yet).
    async fn apply(&self, provider: &str, ev: &ProviderEvent) -> Result<bool, ApiError> {
        let cause = format!("{provider}:{}", ev.id);
        tracing::info!(provider, event = %ev.id, kind = ?std::mem::discriminant(&ev.kind), "payment event");
        match &ev.kind {
            EventKind::CheckoutCompleted {
                order_id,
                paid,
                customer,
                subscription,
                payment,
                amount,
                currency,
                ..
            } => {
                let Some(order) = self.find_order(order_id).await? else {
                    tracing::warn!(provider, order_id, "checkout of an unknown order");
                    return Ok(true);
                };
                if order.provider != provider {
                    tracing::warn!(provider, order_id, "checkout event from another provider");
                    return Ok(true);
                }
                // The amount charged must be the order's (for a plan, the
                // first invoice: the order's amount too).
                let mismatch = amount.is_some_and(|a| a != order.amount)
                    || currency
                        .as_deref()
                        .is_some_and(|c| !c.eq_ignore_ascii_case(&order.currency));
                if mismatch {
                    tracing::error!(order_id, ?amount, ?currency, expected = order.amount,
                        "paid amount differs from the order: not fulfilled; refund it at the provider");
                    self.step(
                        order_id,
                        OrderEvent::Failed,
                        &format!("{cause}:amount-mismatch"),
                        |_| {},
                    )
                    .await?;
                    return Ok(true);
                }
                let t = &self.inner.t;
                if let Some(c) = customer {
                    self.set_customer(&order.account_id, provider, c).await?;
                }
                if let Some(pay) = payment {
                    t.refs
                        .put(
                            &ref_key(provider, "payment", pay),
                            &Key::empty(),
                            &RefRow::Order(order.order_id.clone()),
                        )
                        .await?;
                }
                let record = |o: &mut OrderRow| {
                    o.payment = payment.clone().or(o.payment.take());
                    o.customer = customer.clone().or(o.customer.take());
                    o.provider_sub = subscription.clone().or(o.provider_sub.take());
                };
                if *paid {
                    self.pay(order_id, &cause, record).await?;
                } else {
                    // Completed, awaiting an asynchronous payment: keep
                    // what it said; the order stays pending.
                    self.inner
                        .t
                        .orders
                        .update(&Key::of(order_id), &Key::empty(), None, record)
                        .await?;
                }
                for r in [payment, subscription].into_iter().flatten() {
                    self.apply_pending(provider, r).await?;
                }
            }
            EventKind::AsyncPayment {
                order_id,
                succeeded,
            } => {
                if self.find_order(order_id).await?.is_none() {
                    return Ok(true);
                }
                if *succeeded {
                    self.pay(order_id, &cause, |_| {}).await?;
                } else {
                    self.step(order_id, OrderEvent::Failed, &cause, |_| {})
                        .await?;
                }
            }
            EventKind::CheckoutExpired { order_id } => {
                if self.find_order(order_id).await?.is_some() {
                    self.step(order_id, OrderEvent::Failed, &cause, |_| {})
                        .await?;
                }
            }
            EventKind::InvoicePaid {
                subscription,
                invoice,
                period_start,
                period_end,
                amount,
                reason,
                payment,
            } => {
                let Some((account, sub_id)) = self.sub_ref(provider, subscription).await? else {
                    return self.keep_pending(provider, subscription, ev).await;
                };
                let (start, end) = (period_start * 1000, period_end * 1000);
                let first = reason == "subscription_create";
                let mut renewed = false;
                self.update_sub(&account, &sub_id, |r| {
                    renewed = false;
                    if end > r.current_period_end || (first && r.event_at == 0) {
                        renewed = end > r.current_period_end && !first;
                        r.set_period(start, end);
                    }
                    if r.status == SubStatus::PastDue || (renewed && r.status == SubStatus::Paused)
                    {
                        r.status = SubStatus::Active;
                        r.paused_until = None;
                    }
                    r.update_at = now_millis();
                })
                .await?;
                if !first {
                    // A renewal: its own paid order in the buy log, which
                    // refunds and disputes of this payment reverse.
                    self.renewal_order(
                        provider,
                        &account,
                        &sub_id,
                        invoice,
                        *amount,
                        payment.as_deref(),
                        &cause,
                    )
                    .await?;
                }
                self.sync_perks(&account).await?;
            }
            EventKind::InvoiceFailed { subscription, .. } => {
                let Some((account, sub_id)) = self.sub_ref(provider, subscription).await? else {
                    return self.keep_pending(provider, subscription, ev).await;
                };
                self.update_sub(&account, &sub_id, |r| {
                    if r.status == SubStatus::Active {
                        r.status = SubStatus::PastDue;
                    }
                })
                .await?;
                self.sync_perks(&account).await?;
            }
            EventKind::SubscriptionUpdated {
                subscription,
                status,
                current_period_start,
                current_period_end,
                cancel_at_period_end,
                paused_until,
                ..
            } => {
                let Some((account, sub_id)) = self.sub_ref(provider, subscription).await? else {
                    return self.keep_pending(provider, subscription, ev).await;
                };
                let at = ev.created * 1000;
                self.update_sub(&account, &sub_id, |r| {
                    if at < r.event_at || r.status == SubStatus::Canceled {
                        return;
                    }
                    r.event_at = at;
                    r.auto_renew = !cancel_at_period_end;
                    if *current_period_end > 0 {
                        r.set_period(current_period_start * 1000, current_period_end * 1000);
                    }
                    r.status = match (status, paused_until) {
                        (_, Some(_)) => SubStatus::Paused,
                        (ProviderSubStatus::Active | ProviderSubStatus::Trialing, None) => {
                            SubStatus::Active
                        }
                        (ProviderSubStatus::PastDue | ProviderSubStatus::Unpaid, None) => {
                            SubStatus::PastDue
                        }
                        (ProviderSubStatus::Paused, None) => SubStatus::Paused,
                        (
                            ProviderSubStatus::Canceled | ProviderSubStatus::IncompleteExpired,
                            None,
                        ) => SubStatus::Canceled,
                        (ProviderSubStatus::Incomplete, None) => r.status,
                    };
                    r.paused_until = paused_until.map(|t| t * 1000).filter(|t| *t > 0);
                    r.update_at = now_millis();
                })
                .await?;
                self.sync_perks(&account).await?;
            }
            EventKind::SubscriptionDeleted { subscription } => {
                let Some((account, sub_id)) = self.sub_ref(provider, subscription).await? else {
                    return self.keep_pending(provider, subscription, ev).await;
                };
                self.end_sub(&account, &sub_id).await?;
            }
            EventKind::Refunded {
                payment,
                amount,
                full,
            } => {
                let Some(order) = self.order_by_payment(provider, payment).await? else {
                    return self.keep_pending(provider, payment, ev).await;
                };
                // Stripe reports the total refunded so far; Adyen each
                // refund's own amount.
                let total = if provider == "adyen" {
                    order.refunded + amount
                } else {
                    *amount
                };
                self.refund(&order, total, *full, &cause).await?;
            }
            EventKind::DisputeOpened { payment, .. } => {
                let Some(order) = self.order_by_payment(provider, payment).await? else {
                    return self.keep_pending(provider, payment, ev).await;
                };
                if self
                    .step(&order.order_id, OrderEvent::DisputeOpened, &cause, |_| {})
                    .await?
                    .is_some()
                    || order.status == OrderStatus::Disputed
                {
                    self.take_back(&order, &format!("dispute:{}", order.order_id))
                        .await?;
                }
            }
            EventKind::DisputeClosed {
                payment,
                dispute,
                won,
            } => {
                let Some(order) = self.order_by_payment(provider, payment).await? else {
                    return self.keep_pending(provider, payment, ev).await;
                };
                if *won {
                    if self
                        .step(&order.order_id, OrderEvent::DisputeWon, &cause, |_| {})
                        .await?
                        .is_some()
                    {
                        // The money stays: give back what the dispute took.
                        let taken = self.granted_by(&order);
                        self.inner
                            .ledger
                            .grant(&order.account_id, &format!("dispute-won:{dispute}"), taken)
                            .await?;
                    }
                } else {
                    self.step(&order.order_id, OrderEvent::DisputeLost, &cause, |_| {})
                        .await?;
                }
            }
            EventKind::Ignored { kind } => {
                tracing::debug!(provider, kind, "payment event not acted on");
            }
        }
        Ok(true)
    }

    /// A renewal the provider charged, as a paid order of its own (id from
    /// the invoice, so a replay finds it) with the period's credits.
    #[allow(clippy::too_many_arguments)]
    async fn renewal_order(
        &self,
        provider: &str,
        account: &str,
        sub_id: &str,
        invoice: &str,
        amount: i64,
        payment: Option<&str>,
        cause: &str,
    ) -> Result<(), ApiError> {
        let Some(sub) = self
            .inner
            .t
            .subs
            .get(&Key::of(account), &Key::of(sub_id))
            .await?
        else {
            return Ok(());
        };
        let clean: String = invoice
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
            .take(60)
            .collect();
        let order_id = format!("ord_{provider}_{clean}");
        let now = now_millis();
        let order = OrderRow {
            order_id: order_id.clone(),
            account_id: account.to_owned(),
            kind: OrderKind::Renewal,
            product_id: sub.product_id.clone(),
            product_name: sub.product_name.clone(),
            amount,
            currency: sub.currency.clone(),
            coins: sub.terms.monthly_coins,
            provider: provider.to_owned(),
            status: OrderStatus::Paid,
            steps: vec![OrderStep {
                status: OrderStatus::Paid,
                at: now,
                cause: cause.to_owned(),
            }],
            create_at: now,
            update_at: now,
            session_id: None,
            checkout_url: None,
            payment: payment.map(str::to_owned),
            customer: sub.customer.clone(),
            provider_sub: sub.provider_sub.clone(),
            sub_id: Some(sub_id.to_owned()),
            refunded: 0,
            discounted: false,
            plan: Some(sub.terms.clone()),
        };
        let t = &self.inner.t;
        if t.orders
            .insert_if_absent(&Key::of(&order_id), &Key::empty(), &order)
            .await?
            .is_ok()
        {
            t.orders_by_account
                .put(
                    &Key::of(account),
                    &Key::empty().i64(paid_at(&order)).str(&order_id),
                    &(),
                )
                .await?;
        }
        if let Some(p) = payment {
            t.refs
                .put(
                    &ref_key(provider, "payment", p),
                    &Key::empty(),
                    &RefRow::Order(order_id.clone()),
                )
                .await?;
        }
        // The renewed period's first month (grant_due gives the rest).
        self.sync_perks(account).await
    }

    async fn find_order(&self, order_id: &str) -> Result<Option<OrderRow>, ApiError> {
        if order_id.is_empty() || order_id.len() > 80 {
            return Ok(None);
        }
        Ok(self
            .inner
            .t
            .orders
            .get(&Key::of(order_id), &Key::empty())
            .await?)
    }

    async fn order_by_payment(
        &self,
        provider: &str,
        payment: &str,
    ) -> Result<Option<OrderRow>, ApiError> {
        match self
            .inner
            .t
            .refs
            .get(&ref_key(provider, "payment", payment), &Key::empty())
            .await?
        {
            Some(RefRow::Order(id)) => self.find_order(&id).await,
            _ => Ok(None),
        }
    }

    async fn sub_ref(
        &self,
        provider: &str,
        sub: &str,
    ) -> Result<Option<(String, String)>, ApiError> {
        Ok(
            match self
                .inner
                .t
                .refs
                .get(&ref_key(provider, "sub", sub), &Key::empty())
                .await?
            {
                Some(RefRow::Sub { account_id, sub_id }) => Some((account_id, sub_id)),
                _ => None,
            },
        )
    }

    /// Keeps an event about a payment or subscription not known yet.
    async fn keep_pending(
        &self,
        provider: &str,
        reference: &str,
        ev: &ProviderEvent,
    ) -> Result<bool, ApiError> {
        tracing::info!(provider, reference, event = %ev.id, "event before its payment is known: kept");
        self.inner
            .t
            .pending
            .put(&Key::of(provider).str(reference), &Key::of(&ev.id), ev)
            .await?;
        Ok(false)
    }

    /// Applies the events kept for `reference`, oldest first.
    async fn apply_pending(&self, provider: &str, reference: &str) -> Result<(), ApiError> {
        let pk = Key::of(provider).str(reference);
        let page = self.inner.t.pending.scan(&pk, &ScanRange::all(100)).await?;
        let mut evs: Vec<ProviderEvent> = page.rows.into_iter().map(|(_, e)| e).collect();
        evs.sort_by_key(|e| e.created);
        for ev in evs {
            if Box::pin(self.apply(provider, &ev)).await? {
                self.inner.t.pending.delete(&pk, &Key::of(&ev.id)).await?;
            }
        }
        Ok(())
    }
}
