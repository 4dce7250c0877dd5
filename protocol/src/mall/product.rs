//! Products: credit packs and membership plans, priced in integer minor
//! units of a currency (fen for the default CNY, spec 1 §9).

use serde::{Deserialize, Serialize};

/// What buying a product gives.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProductKind {
    /// A credit pack: `coins` once.
    Credits,
    /// A membership plan: perks while active, `coins` every month.
    Subscription,
}

/// A membership plan (spec 2 §6: VIP = full, lite or company).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Plan {
    Lite,
    Full,
}

/// How long one paid period of a plan lasts.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", schema(as = MallProductPeriod))]
pub enum Period {
    Month,
    Year,
}

impl Period {
    /// Whole months in one period (credits are granted monthly).
    pub fn months(self) -> u32 {
        match self {
            Period::Month => 1,
            Period::Year => 12,
        }
    }
}

/// One product of `payment/product/list-web` (DESIGN.md Contracts:
/// `product_id, kind, price, currency, coins, plan, period`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Product {
    pub product_id: String,
    pub kind: ProductKind,
    /// Shown to buyers.
    pub name: String,
    /// Minor units of `currency`.
    pub price: i64,
    /// ISO 4217, upper case ("CNY").
    pub currency: String,
    /// Credits: once for a pack, every month for a plan.
    pub coins: i64,
    /// Plans only.
    #[serde(default)]
    pub plan: Option<Plan>,
    /// Plans only.
    #[serde(default)]
    pub period: Option<Period>,
    /// Plans: spec's productLevel (2 and above default to the unlimited
    /// queue's gen_mode 1; 3 and above get the longest video durations).
    #[serde(default)]
    pub product_level: u8,
    /// Plans: the payment-info flag infiniteQueue.
    #[serde(default)]
    pub infinite_queue: bool,
    /// A struck-through "was" price, for display only.
    #[serde(default)]
    pub original_price: Option<i64>,
    /// Short lines listed under the product (perks of a plan).
    #[serde(default)]
    pub features: Vec<String>,
    /// Hidden products are not listed or sold; existing orders keep them.
    #[serde(default = "yes")]
    pub active: bool,
    /// Listing order (ascending).
    #[serde(default)]
    pub sort: i32,
    /// Where it is sold: `web` (the mall), `ai_photo` (`product/ai-photo`).
    #[serde(default = "web_scene")]
    pub scenes: Vec<String>,
}

fn yes() -> bool {
    true
}

fn web_scene() -> Vec<String> {
    vec!["web".into()]
}

/// Scenes a product may be sold in.
pub const SCENES: [&str; 2] = ["web", "ai_photo"];

/// Why an operator's product is refused.
pub fn validate(p: &Product) -> Result<(), &'static str> {
    let id_ok = !p.product_id.is_empty()
        && p.product_id.len() <= 64
        && p.product_id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.');
    if !id_ok {
        return Err("product_id: 1 to 64 of a-z, A-Z, 0-9, - _ .");
    }
    if p.name.trim().is_empty() || p.name.chars().count() > 80 {
        return Err("name: 1 to 80 characters");
    }
    if p.price <= 0 || p.price > 100_000_000 {
        return Err("price: minor units, 1 to 100000000");
    }
    if p.currency.len() != 3 || !p.currency.bytes().all(|b| b.is_ascii_uppercase()) {
        return Err("currency: three upper-case letters (ISO 4217)");
    }
    if p.coins < 0 || p.coins > 100_000_000 {
        return Err("coins: 0 to 100000000");
    }
    match p.kind {
        ProductKind::Credits => {
            if p.plan.is_some() || p.period.is_some() {
                return Err("a credit pack has no plan or period");
            }
            if p.coins == 0 {
                return Err("a credit pack gives at least 1 credit");
            }
        }
        ProductKind::Subscription => {
            if p.plan.is_none() || p.period.is_none() {
                return Err("a plan needs plan (full | lite) and period (month | year)");
            }
            if p.product_level == 0 || p.product_level > 9 {
                return Err("product_level: 1 to 9");
            }
        }
    }
    if p.scenes.is_empty() || p.scenes.iter().any(|s| !SCENES.contains(&s.as_str())) {
        return Err("scenes: one or more of web, ai_photo");
    }
    if p.features.len() > 12 || p.features.iter().any(|f| f.chars().count() > 120) {
        return Err("features: at most 12 lines of 120 characters");
    }
    Ok(())
}

/// `data` of `payment/product/list-web` and `product/sub-list`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProductList {
    pub items: Vec<Product>,
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn pack() -> Product {
        Product {
            product_id: "coins-500".into(),
            kind: ProductKind::Credits,
            name: "500 credits".into(),
            price: 3000,
            currency: "CNY".into(),
            coins: 500,
            plan: None,
            period: None,
            product_level: 0,
            infinite_queue: false,
            original_price: None,
            features: vec![],
            active: true,
            sort: 0,
            scenes: vec!["web".into()],
        }
    }

    #[test]
    fn products_are_validated() {
        assert_eq!(validate(&pack()), Ok(()));
        type Edit = fn(&mut Product);
        let cases: Vec<(Edit, bool)> = vec![
            (|p| p.product_id = "".into(), false),
            (|p| p.product_id = "a b".into(), false),
            (|p| p.product_id = "x".repeat(65), false),
            (|p| p.price = 0, false),
            (|p| p.price = -5, false),
            (|p| p.currency = "cny".into(), false),
            (|p| p.currency = "CN".into(), false),
            (|p| p.coins = 0, false),
            (|p| p.plan = Some(Plan::Full), false),
            (|p| p.name = " ".into(), false),
            (|p| p.currency = "USD".into(), true),
            (
                |p| {
                    p.kind = ProductKind::Subscription;
                    p.plan = Some(Plan::Lite);
                    p.period = Some(Period::Month);
                    p.product_level = 1;
                },
                true,
            ),
            (
                |p| {
                    p.kind = ProductKind::Subscription;
                    p.plan = Some(Plan::Lite);
                    p.product_level = 1;
                },
                false,
            ),
            (
                |p| {
                    p.kind = ProductKind::Subscription;
                    p.plan = Some(Plan::Lite);
                    p.period = Some(Period::Year);
                    p.product_level = 0;
                },
                false,
            ),
        ];
        for (i, (edit, ok)) in cases.into_iter().enumerate() {
            let mut p = pack();
            edit(&mut p);
            assert_eq!(validate(&p).is_ok(), ok, "case {i}: {p:?}");
        }
    }

    #[test]
    fn the_contract_fields_are_on_the_wire() {
        let v = serde_json::to_value(pack()).unwrap();
        for f in [
            "product_id",
            "kind",
            "price",
            "currency",
            "coins",
            "plan",
            "period",
        ] {
            assert!(v.get(f).is_some(), "{f}");
        }
        assert_eq!(v["kind"], "credits");
        assert_eq!(serde_json::to_value(Plan::Full).unwrap(), "full");
        assert_eq!(serde_json::to_value(Period::Year).unwrap(), "year");
    }
}
