//! The mall: selling credit packs and membership plans for real money.
//!
//! - `catalog.rs`: the products on sale (operator-edited, stored).
//! - `orders.rs`: orders and their state machine
//!   (`protocol::mall::order::transition`), checkout through a provider,
//!   and what a paid order gives (`fulfil`): credits by a ledger grant keyed
//!   by the order, a plan, an upgrade, a renewal.
//! - `subs.rs`: subscriptions: periods, perks written onto the account row
//!   (`AccountRow::perks`), monthly credits keyed by period; `manage.rs`:
//!   what a member does with a plan (pause, renewal on and off,
//!   cancellation with feedback and the retention offer, upgrades prorated
//!   to the day, the portal).
//! - `reversals.rs`: refunds and disputes take back what an order gave.
//! - `webhook.rs`: provider events, verified by the provider's adapter
//!   (crate `payments`), deduplicated by event id, applied in any order.
//! - `offers.rs`: the half-price offer and its daily popup, the retention
//!   popup, recent purchases, which providers are on.
//!
//! Money moves only on a provider's verified event (or an operator's
//! mark-paid for manual transfers); nothing the browser sends can pay an
//! order or set a price. Every credit change is a ledger entry with an
//! idempotency key (`order:{id}`, `plan:{sub}:{period number}:{month}`,
//! `refund:{order}:{total refunded}`, `dispute:{order}`), so an event that
//! arrives twice, late or concurrently grants once.

mod catalog;
mod manage;
mod offers;
mod orders;
mod reversals;
mod rows;
mod subs;
mod webhook;

use std::collections::BTreeMap;
use std::sync::Arc;

use infra::config::MallSettings;
use infra::store::{tables, DynStore, Table};
use payments::PaymentProvider;
use protocol::ErrorCode;

pub use catalog::Catalog;
pub use rows::{OrderRow, SubRow};

use crate::accounts::AccountService;
use crate::credits::Ledger;
use crate::error::ApiError;

/// The providers this server takes payments with, by name.
pub type Providers = BTreeMap<&'static str, Arc<dyn PaymentProvider>>;

#[derive(Clone)]
pub struct MallService {
    inner: Arc<Inner>,
}

struct Inner {
    settings: MallSettings,
    /// Orders (and so provider checkouts) an account may open per minute.
    order_limit: crate::ratelimit::RateLimiter,
    catalog: Catalog,
    ledger: Ledger,
    accounts: AccountService,
    providers: Providers,
    /// Adyen's own calls (payment methods, 3-D Secure details).
    adyen: Option<Arc<payments::adyen::Adyen>>,
    t: Tables,
    /// Analytics (issue 22): told of each order marked paid (`purchase`).
    analytics: std::sync::OnceLock<crate::analytics::Analytics>,
}

struct Tables {
    orders: Table<OrderRow>,
    orders_by_account: Table<()>,
    orders_recent: Table<rows::RecentRow>,
    refs: Table<rows::RefRow>,
    events: Table<rows::EventMark>,
    pending: Table<payments::ProviderEvent>,
    subs: Table<SubRow>,
    marks: Table<i64>,
}

impl MallService {
    /// The mall with the providers configured in `settings` (see
    /// [`build_providers`]); the catalogue is seeded by [`MallService::start`].
    pub fn new(
        store: DynStore,
        settings: MallSettings,
        ledger: Ledger,
        accounts: AccountService,
        limits: &crate::ratelimit::RateLimits,
    ) -> anyhow::Result<MallService> {
        let (providers, adyen) = build_providers(&settings)?;
        Ok(Self::with_providers(
            store, settings, ledger, accounts, providers, adyen, limits,
        ))
    }

    pub fn with_providers(
        store: DynStore,
        settings: MallSettings,
        ledger: Ledger,
        accounts: AccountService,
        providers: Providers,
        adyen: Option<Arc<payments::adyen::Adyen>>,
        limits: &crate::ratelimit::RateLimits,
    ) -> MallService {
        let t = Tables {
            orders: Table::new(store.clone(), &tables::ORDERS),
            orders_by_account: Table::new(store.clone(), &tables::ORDERS_BY_ACCOUNT),
            orders_recent: Table::new(store.clone(), &tables::ORDERS_RECENT),
            refs: Table::new(store.clone(), &tables::PAYMENT_REFS),
            events: Table::new(store.clone(), &tables::PAYMENT_EVENTS),
            pending: Table::new(store.clone(), &tables::PAYMENT_PENDING),
            subs: Table::new(store.clone(), &tables::SUBSCRIPTIONS),
            marks: Table::new(store.clone(), &tables::MALL_MARKS),
        };
        MallService {
            inner: Arc::new(Inner {
                order_limit: limits.limiter(
                    "orders",
                    ORDERS_PER_MINUTE,
                    std::time::Duration::from_secs(60),
                ),
                catalog: Catalog::new(store),
                settings,
                ledger,
                accounts,
                providers,
                adyen,
                t,
                analytics: std::sync::OnceLock::new(),
            }),
        }
    }

    /// Hands the mall the analytics service (set once, at start).
    pub fn set_analytics(&self, analytics: crate::analytics::Analytics) {
        let _ = self.inner.analytics.set(analytics);
    }

    /// Seeds the catalogue (the products file, or the built-in one on an
    /// empty store).
    pub async fn start(&self) -> anyhow::Result<()> {
        let s = &self.inner.settings;
        self.inner
            .catalog
            .seed(s.products_file.as_deref(), &s.currency)
            .await
    }

    pub fn catalog(&self) -> &Catalog {
        &self.inner.catalog
    }

    pub fn settings(&self) -> &MallSettings {
        &self.inner.settings
    }

    /// The names of the providers on, the default first.
    pub fn provider_names(&self) -> Vec<&'static str> {
        let mut v: Vec<&'static str> = self.inner.providers.keys().copied().collect();
        if let Some(d) = self.default_provider() {
            v.retain(|n| *n != d);
            v.insert(0, d);
        }
        v
    }

    /// The operator's default provider, else Stripe, Adyen, manual, in
    /// that order of preference.
    pub fn default_provider(&self) -> Option<&'static str> {
        let p = &self.inner.providers;
        if let Some(name) = &self.inner.settings.default_provider {
            if let Some((k, _)) = p.get_key_value(name.as_str()) {
                return Some(k);
            }
        }
        ["stripe", "adyen", "manual"]
            .into_iter()
            .find(|n| p.contains_key(n))
    }

    fn provider(&self, name: &str) -> Result<&Arc<dyn PaymentProvider>, ApiError> {
        self.inner
            .providers
            .get(name)
            .ok_or_else(|| ErrorCode::PaymentProviderUnavailable.into())
    }

    pub fn adyen(&self) -> Result<&Arc<payments::adyen::Adyen>, ApiError> {
        self.inner
            .adyen
            .as_ref()
            .ok_or_else(|| ErrorCode::PaymentProviderUnavailable.into())
    }
}

/// The providers `settings` turn on: Stripe and Adyen when their keys are
/// set, manual transfers when instructions are given.
pub fn build_providers(
    settings: &MallSettings,
) -> anyhow::Result<(Providers, Option<Arc<payments::adyen::Adyen>>)> {
    let mut p: Providers = BTreeMap::new();
    if let Some(s) = &settings.stripe {
        let stripe = payments::stripe::Stripe::new(payments::stripe::StripeConfig {
            api_url: s.api_url.clone(),
            secret_key: payments::Secret::new(s.secret_key.expose()),
            webhook_secret: payments::Secret::new(s.webhook_secret.expose()),
            ..Default::default()
        })?;
        p.insert("stripe", Arc::new(stripe));
    }
    let mut adyen = None;
    if let Some(s) = &settings.adyen {
        let a = Arc::new(payments::adyen::Adyen::new(payments::adyen::AdyenConfig {
            api_url: s.api_url.clone(),
            api_key: payments::Secret::new(s.api_key.expose()),
            merchant_account: s.merchant_account.clone(),
            hmac_key: payments::Secret::new(s.hmac_key.expose()),
            ..Default::default()
        })?);
        p.insert("adyen", a.clone());
        adyen = Some(a);
    }
    if let Some(text) = &settings.manual_instructions {
        p.insert(
            "manual",
            Arc::new(payments::manual::Manual {
                instructions: text.clone(),
            }),
        );
    }
    Ok((p, adyen))
}

/// Orders one account may open per minute: enough for any buyer, few
/// enough that no one floods the provider with checkouts.
pub const ORDERS_PER_MINUTE: u32 = 20;

fn new_id(prefix: &str) -> String {
    format!("{prefix}{}", uuid::Uuid::now_v7().simple())
}
