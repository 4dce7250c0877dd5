//! The mall (spec 3 §7 Payments and subscription management, spec 1 §3-§4
//! payment info, spec 2 §6 VIP): products, orders and their state machine,
//! subscriptions, proration and the offers (half price, retention).
//!
//! Architecture Invariant: nothing here does I/O; the backend's `mall/`
//! service stores orders and talks to payment providers, this module says
//! what crosses the wire and the pure rules (transitions, prices, periods).

pub mod order;
pub mod product;
pub mod subscription;

pub use order::{OrderEvent, OrderKind, OrderStatus, OrderView};
pub use product::{Period, Plan, Product, ProductKind};
pub use subscription::{SubStatus, SubscriptionView};

/// Milliseconds in a day (periods and proration count whole days).
pub const DAY_MS: i64 = 86_400_000;
