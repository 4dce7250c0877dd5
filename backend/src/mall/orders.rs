//! Orders: creation and checkout, the state machine's transitions (each a
//! compare-and-set that appends a step), and what a paid order gives.

use infra::store::{Key, PagingState, ScanRange};
use payments::{CheckoutMode, CheckoutRequest, Interval};
use protocol::mall::order::{transition, CreateOrder, CreatedOrder, OrderStep};
use protocol::mall::product::{Period, ProductKind};
use protocol::mall::{OrderEvent, OrderKind, OrderStatus, OrderView, Product};
use protocol::ErrorCode;

use super::rows::{OrderRow, PlanTerms, RecentRow, RefRow};
use super::{new_id, MallService};
use crate::accounts::{now_millis, AccountRow};
use crate::error::ApiError;

/// Buy-log pages are at most this long.
pub const MAX_PAGE: u32 = 50;

impl MallService {
    /// `order/create` and `order/create-sub`: an order for a product on
    /// sale, and a checkout at the provider. The price is the catalogue's
    /// (the half-price offer applied only when this account has it).
    pub async fn create_order(
        &self,
        who: &AccountRow,
        req: &CreateOrder,
        base_url: &str,
    ) -> Result<CreatedOrder, ApiError> {
        let product = self.catalog().get(&req.product_id).await?;
        let kind = OrderKind::from(product.kind);
        if kind == OrderKind::Subscription && self.live_sub(&who.id).await?.is_some() {
            return Err(ErrorCode::SubscriptionExists.into());
        }
        let mut amount = product.price;
        let mut discounted = false;
        if req.use_discount {
            let rate = self.first_plan_rate(who, &product).await?;
            if rate == 0 {
                return Err(ApiError::with_msg(
                    ErrorCode::Conflict,
                    "the offer is not available for this product or account",
                ));
            }
            amount = discounted_price(product.price, rate);
            discounted = true;
        }
        let terms = plan_terms(&product);
        self.open_order(
            who, kind, &product, amount, discounted, terms, None, req, base_url,
        )
        .await
    }

    /// Stores a new order, then opens its checkout.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn open_order(
        &self,
        who: &AccountRow,
        kind: OrderKind,
        product: &Product,
        amount: i64,
        discounted: bool,
        plan: Option<PlanTerms>,
        sub_id: Option<String>,
        req: &CreateOrder,
        base_url: &str,
    ) -> Result<CreatedOrder, ApiError> {
        if !self.inner.order_limit.check(&who.id).await {
            return Err(ErrorCode::TooManyRequests.into());
        }
        let provider_name = match req.provider.as_deref().filter(|p| !p.is_empty()) {
            Some(p) => p.to_owned(),
            None => self
                .default_provider()
                .ok_or(ErrorCode::PaymentProviderUnavailable)?
                .to_owned(),
        };
        let provider = self.provider(&provider_name)?.clone();
        let now = now_millis();
        let order = OrderRow {
            order_id: new_id("ord_"),
            account_id: who.id.clone(),
            kind,
            product_id: product.product_id.clone(),
            product_name: product.name.clone(),
            amount,
            currency: product.currency.clone(),
            coins: product.coins,
            provider: provider_name.clone(),
            status: OrderStatus::Created,
            steps: vec![OrderStep {
                status: OrderStatus::Created,
                at: now,
                cause: "api".into(),
            }],
            create_at: now,
            update_at: now,
            session_id: None,
            checkout_url: None,
            payment: None,
            customer: None,
            provider_sub: None,
            sub_id,
            refunded: 0,
            discounted,
            plan,
        };
        let t = &self.inner.t;
        t.orders
            .put(&Key::of(&order.order_id), &Key::empty(), &order)
            .await?;
        t.orders_by_account
            .put(
                &Key::of(&who.id),
                &Key::empty().i64(now).str(&order.order_id),
                &(),
            )
            .await?;
        self.checkout(
            who,
            order,
            provider.as_ref(),
            req.locale.as_deref(),
            base_url,
        )
        .await
    }

    /// Opens (or reopens) the checkout of a created or pending order.
    async fn checkout(
        &self,
        who: &AccountRow,
        order: OrderRow,
        provider: &dyn payments::PaymentProvider,
        locale: Option<&str>,
        base_url: &str,
    ) -> Result<CreatedOrder, ApiError> {
        let locale = locale
            .filter(|l| {
                (2..=8).contains(&l.len())
                    && l.bytes().all(|b| b.is_ascii_alphabetic() || b == b'-')
            })
            .unwrap_or("en");
        let ret = format!(
            "{base_url}/{locale}/mall/return?order_id={}",
            order.order_id
        );
        let customer = self.customer_of(&who.id, provider.name()).await?;
        let mode = match &order.plan {
            Some(terms) if order.kind == OrderKind::Subscription => CheckoutMode::Subscription {
                interval: match terms.period {
                    Period::Month => Interval::Month,
                    Period::Year => Interval::Year,
                },
            },
            _ => CheckoutMode::OneOff,
        };
        // A discounted plan is a full-price subscription whose first
        // invoice carries the discount; a one-off is charged its amount.
        let (amount, discount) = match (&mode, &order.plan) {
            (CheckoutMode::Subscription { .. }, Some(t)) => (t.price, t.price - order.amount),
            _ => (order.amount, 0),
        };
        let req = CheckoutRequest {
            order_id: order.order_id.clone(),
            account_id: who.id.clone(),
            email: Some(who.email.clone()),
            customer,
            product_name: order.product_name.clone(),
            product_id: order.product_id.clone(),
            amount,
            currency: order.currency.to_lowercase(),
            mode,
            discount,
            success_url: ret.clone(),
            cancel_url: format!("{ret}&cancelled=1"),
        };
        let opened = match provider.checkout(&req).await {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!(order = %order.order_id, provider = provider.name(), error = %e, "checkout failed");
                return Err(ApiError::with_msg(
                    ErrorCode::PaymentProviderUnavailable,
                    "the payment provider could not open a checkout; try again",
                ));
            }
        };
        let t = &self.inner.t;
        t.refs
            .put(
                &ref_key(provider.name(), "session", &opened.session_id),
                &Key::empty(),
                &RefRow::Order(order.order_id.clone()),
            )
            .await?;
        let session = opened.session_id.clone();
        let url = opened.url.clone();
        let row = match self
            .step(&order.order_id, OrderEvent::CheckoutOpened, "api", |o| {
                o.session_id = Some(session.clone());
                o.checkout_url = url.clone();
            })
            .await?
        {
            Some(row) => row,
            // Already pending (a reopened checkout): keep the new session.
            None => self
                .inner
                .t
                .orders
                .update(&Key::of(&order.order_id), &Key::empty(), None, |o| {
                    if matches!(o.status, OrderStatus::Created | OrderStatus::Pending) {
                        o.session_id = Some(session.clone());
                        o.checkout_url = url.clone();
                    }
                })
                .await?
                .ok_or(ErrorCode::OrderNotFound)?,
        };
        Ok(CreatedOrder {
            order_id: row.order_id.clone(),
            status: row.status,
            checkout_url: row.view().checkout_url,
            amount: row.amount,
            currency: row.currency.clone(),
            provider: row.provider.clone(),
        })
    }

    /// `order-checkout`: a new checkout for one's own unpaid order.
    pub async fn reopen_checkout(
        &self,
        who: &AccountRow,
        order_id: &str,
        locale: Option<&str>,
        base_url: &str,
    ) -> Result<CreatedOrder, ApiError> {
        if !self.inner.order_limit.check(&who.id).await {
            return Err(ErrorCode::TooManyRequests.into());
        }
        let order = self.own_order(who, order_id).await?;
        if !matches!(order.status, OrderStatus::Created | OrderStatus::Pending) {
            return Err(ErrorCode::OrderNotPayable.into());
        }
        let provider = self.provider(&order.provider)?.clone();
        self.checkout(who, order, provider.as_ref(), locale, base_url)
            .await
    }

    /// One's own order; another account's answers like a missing one.
    pub async fn own_order(&self, who: &AccountRow, order_id: &str) -> Result<OrderRow, ApiError> {
        if order_id.is_empty() || order_id.len() > 80 {
            return Err(ErrorCode::OrderNotFound.into());
        }
        self.inner
            .t
            .orders
            .get(&Key::of(order_id), &Key::empty())
            .await?
            .filter(|o| o.account_id == who.id)
            .ok_or_else(|| ErrorCode::OrderNotFound.into())
    }

    /// `order/status`.
    pub async fn order_status(
        &self,
        who: &AccountRow,
        order_id: &str,
    ) -> Result<OrderView, ApiError> {
        Ok(self.own_order(who, order_id).await?.view())
    }

    /// `buy/log`: one's orders, newest first.
    pub async fn buy_log(
        &self,
        who: &AccountRow,
        cursor: Option<&str>,
        size: u32,
    ) -> Result<(Vec<OrderView>, Option<String>), ApiError> {
        let paging = match cursor.filter(|c| !c.is_empty()) {
            Some(c) => Some(PagingState::from_hex(c).ok_or_else(|| {
                ApiError::with_msg(ErrorCode::InvalidParams, "the cursor is not valid")
            })?),
            None => None,
        };
        let page = self
            .inner
            .t
            .orders_by_account
            .scan(
                &Key::of(&who.id),
                &ScanRange::all(size.clamp(1, MAX_PAGE)).desc().after(paging),
            )
            .await?;
        let keys: Vec<(Key, Key)> = page
            .rows
            .iter()
            .filter_map(|(ck, ())| {
                let mut r = ck.reader();
                r.i64()?;
                r.str()
            })
            .map(|id| (Key::of(&id), Key::empty()))
            .collect();
        let rows = self.inner.t.orders.get_many(&keys).await?;
        let items = rows
            .into_iter()
            .flatten()
            .filter(|o| o.account_id == who.id)
            .map(|o| o.view())
            .collect();
        Ok((items, page.paging.map(|p| p.to_hex())))
    }

    /// Applies `event` to an order by compare-and-set, with `f`'s changes
    /// and a step naming `cause`. `None` when the state machine refuses the
    /// move (a replay, or an event the order is past): nothing changes.
    pub(super) async fn step(
        &self,
        order_id: &str,
        event: OrderEvent,
        cause: &str,
        mut f: impl FnMut(&mut OrderRow),
    ) -> Result<Option<OrderRow>, ApiError> {
        let t = &self.inner.t.orders;
        let pk = Key::of(order_id);
        let Some(mut current) = t.get(&pk, &Key::empty()).await? else {
            return Err(ErrorCode::OrderNotFound.into());
        };
        loop {
            let Some(next_status) = transition(current.status, event) else {
                return Ok(None);
            };
            let mut next = current.clone();
            f(&mut next);
            let now = now_millis();
            next.status = next_status;
            next.update_at = now;
            next.steps.push(OrderStep {
                status: next_status,
                at: now,
                cause: cause.to_owned(),
            });
            match t
                .compare_and_set(&pk, &Key::empty(), &current, Some(&next))
                .await?
            {
                Ok(()) => return Ok(Some(next)),
                Err(Some(latest)) => current = latest,
                Err(None) => return Err(ErrorCode::OrderNotFound.into()),
            }
        }
    }

    /// Marks an order paid (from a verified event or an operator) and gives
    /// what it bought. Safe to repeat: a paid order is given its due again,
    /// which every keyed write makes a no-op, so a crash between the
    /// transition and the grant is repaired by the provider's retry.
    pub(super) async fn pay(
        &self,
        order_id: &str,
        cause: &str,
        f: impl FnMut(&mut OrderRow),
    ) -> Result<Option<OrderRow>, ApiError> {
        let changed = self.step(order_id, OrderEvent::Paid, cause, f).await?;
        let order = match changed {
            Some(o) => {
                // Exactly once per order: only the transition to paid emits.
                if let Some(a) = self.inner.analytics.get() {
                    a.purchase(&o.account_id, o.kind, o.amount, &o.currency)
                        .await;
                }
                o
            }
            None => {
                let o = self.order(order_id).await?;
                if o.status != OrderStatus::Paid {
                    return Ok(None);
                }
                o
            }
        };
        self.fulfil(&order, None).await?;
        Ok(Some(order))
    }

    /// What a paid order gives; every write keyed so repeats change nothing.
    /// `period`: the provider's first paid period (ms) for a plan.
    pub(super) async fn fulfil(
        &self,
        order: &OrderRow,
        period: Option<(i64, i64)>,
    ) -> Result<(), ApiError> {
        let l = &self.inner.ledger;
        match order.kind {
            OrderKind::Credits => {
                l.grant(
                    &order.account_id,
                    &format!("order:{}", order.order_id),
                    order.coins,
                )
                .await?;
            }
            OrderKind::Subscription => {
                self.start_sub(order, period).await?;
            }
            OrderKind::Upgrade => {
                self.apply_upgrade(order).await?;
            }
            OrderKind::Renewal => {
                self.apply_renewal(order).await?;
            }
        }
        let recent = RecentRow {
            name: match self.inner.accounts.get(&order.account_id).await? {
                Some(a) => super::rows::mask_name(&a.name),
                None => "***".into(),
            },
            product_name: order.product_name.clone(),
            kind: order.kind,
            at: order.update_at,
        };
        let _ = self
            .inner
            .t
            .orders_recent
            .insert_if_absent(
                &Key::of("0"),
                &Key::empty().i64(order.update_at).str(&order.order_id),
                &recent,
            )
            .await?;
        self.inner
            .accounts
            .notify(
                &order.account_id,
                serde_json::json!({"kind": "order.paid", "order_id": order.order_id}),
            )
            .await;
        Ok(())
    }

    pub(super) async fn order(&self, order_id: &str) -> Result<OrderRow, ApiError> {
        self.inner
            .t
            .orders
            .get(&Key::of(order_id), &Key::empty())
            .await?
            .ok_or_else(|| ErrorCode::OrderNotFound.into())
    }

    /// An operator marks a manual (bank transfer) order paid.
    pub async fn mark_paid(&self, order_id: &str, operator: &str) -> Result<OrderView, ApiError> {
        let o = self.order(order_id).await?;
        if o.provider != "manual" {
            return Err(ApiError::with_msg(
                ErrorCode::Conflict,
                "only manual orders are marked paid by hand; card payments are paid by the provider's event",
            ));
        }
        match self
            .pay(order_id, &format!("operator:{operator}"), |_| {})
            .await?
        {
            Some(o) => Ok(o.view()),
            None => Err(ErrorCode::OrderNotPayable.into()),
        }
    }

    /// An operator records a refund of a manual order: the same path as a
    /// provider's refund event.
    pub async fn mark_refunded(
        &self,
        order_id: &str,
        operator: &str,
    ) -> Result<OrderView, ApiError> {
        let o = self.order(order_id).await?;
        if o.provider != "manual" {
            return Err(ApiError::with_msg(
                ErrorCode::Conflict,
                "refund card payments at the provider; its event reverses the order",
            ));
        }
        self.refund(&o, o.amount, true, &format!("operator:{operator}"))
            .await?;
        Ok(self.order(order_id).await?.view())
    }

    /// The provider's customer id this account used before, if any.
    async fn customer_of(&self, account: &str, provider: &str) -> Result<Option<String>, ApiError> {
        Ok(
            match self
                .inner
                .t
                .refs
                .get(&ref_key(provider, "customer-of", account), &Key::empty())
                .await?
            {
                Some(RefRow::Customer(c)) => Some(c),
                _ => None,
            },
        )
    }

    /// Remembers the provider's customer id of an account.
    pub(super) async fn set_customer(
        &self,
        account: &str,
        provider: &str,
        customer: &str,
    ) -> Result<(), ApiError> {
        self.inner
            .t
            .refs
            .put(
                &ref_key(provider, "customer-of", account),
                &Key::empty(),
                &RefRow::Customer(customer.to_owned()),
            )
            .await?;
        Ok(())
    }
}

/// `price` less `rate` percent, rounded down to the minor unit (at least 1).
pub fn discounted_price(price: i64, rate: u8) -> i64 {
    (price - price * i64::from(rate) / 100).max(1)
}

/// What a plan product gives, fixed at purchase.
pub(super) fn plan_terms(p: &Product) -> Option<PlanTerms> {
    match (p.kind, p.plan, p.period) {
        (ProductKind::Subscription, Some(plan), Some(period)) => Some(PlanTerms {
            plan,
            period,
            product_level: p.product_level,
            infinite_queue: p.infinite_queue,
            monthly_coins: p.coins,
            price: p.price,
        }),
        _ => None,
    }
}

/// The `PAYMENT_REFS` key of a provider's id.
pub(super) fn ref_key(provider: &str, kind: &str, id: &str) -> Key {
    Key::of(provider).str(kind).str(id)
}
