//! The catalogue: credit packs and plans the operator sells. Stored in
//! `MALL_PRODUCTS` so every node sells the same things and operators edit
//! them by admin calls; seeded at start from the products file when one is
//! configured (its products replace stored ones of the same id), else,
//! on an empty store, from the built-in catalogue below.

use std::path::Path;

use infra::store::{tables, DynStore, Key, ScanRange, Table};
use protocol::mall::product::{validate, Period, Plan, Product, ProductKind};
use protocol::ErrorCode;
use serde::Deserialize;

use crate::error::ApiError;

#[derive(Clone)]
pub struct Catalog {
    products: Table<Product>,
}

/// A products file: `[[products]]` tables with [`Product`]'s fields.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProductsFile {
    products: Vec<Product>,
}

fn pk() -> Key {
    Key::of("all")
}

impl Catalog {
    pub fn new(store: DynStore) -> Catalog {
        Catalog {
            products: Table::new(store, &tables::MALL_PRODUCTS),
        }
    }

    /// Seeds the store: the file's products (validated; a bad file stops
    /// the server with the reason), or the built-in ones on an empty store.
    pub async fn seed(&self, file: Option<&Path>, currency: &str) -> anyhow::Result<()> {
        let products = match file {
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| anyhow::anyhow!("products file {}: {e}", path.display()))?;
                let f: ProductsFile = toml::from_str(&text)
                    .map_err(|e| anyhow::anyhow!("products file {}: {e}", path.display()))?;
                for p in &f.products {
                    validate(p).map_err(|e| {
                        anyhow::anyhow!("products file {}: {}: {e}", path.display(), p.product_id)
                    })?;
                }
                f.products
            }
            None => {
                let page = self.products.scan(&pk(), &ScanRange::all(1)).await?;
                if !page.rows.is_empty() {
                    return Ok(());
                }
                builtin(currency)
            }
        };
        for p in &products {
            self.products.put(&pk(), &Key::of(&p.product_id), p).await?;
        }
        Ok(())
    }

    /// Every product, hidden ones too, in listing order.
    pub async fn all(&self) -> Result<Vec<Product>, ApiError> {
        let page = self.products.scan(&pk(), &ScanRange::all(1000)).await?;
        let mut v: Vec<Product> = page.rows.into_iter().map(|(_, p)| p).collect();
        v.sort_by(|a, b| (a.sort, &a.product_id).cmp(&(b.sort, &b.product_id)));
        Ok(v)
    }

    /// Products on sale in `scene`, optionally of one kind.
    pub async fn on_sale(
        &self,
        scene: &str,
        kind: Option<ProductKind>,
    ) -> Result<Vec<Product>, ApiError> {
        Ok(self
            .all()
            .await?
            .into_iter()
            .filter(|p| p.active && p.scenes.iter().any(|s| s == scene))
            .filter(|p| kind.is_none_or(|k| p.kind == k))
            .collect())
    }

    /// A product on sale, by id; ProductNotFound otherwise.
    pub async fn get(&self, id: &str) -> Result<Product, ApiError> {
        if id.is_empty() || id.len() > 64 {
            return Err(ErrorCode::ProductNotFound.into());
        }
        self.products
            .get(&pk(), &Key::of(id))
            .await?
            .filter(|p| p.active)
            .ok_or_else(|| ErrorCode::ProductNotFound.into())
    }

    /// A product by id even when hidden (for orders bought before).
    pub async fn any(&self, id: &str) -> Result<Option<Product>, ApiError> {
        Ok(self.products.get(&pk(), &Key::of(id)).await?)
    }

    /// An operator's new or changed product.
    pub async fn upsert(&self, p: &Product) -> Result<(), ApiError> {
        validate(p).map_err(|e| ApiError::with_msg(ErrorCode::InvalidParams, e))?;
        self.products.put(&pk(), &Key::of(&p.product_id), p).await?;
        Ok(())
    }
}

/// The catalogue a fresh install sells (prices in minor units of
/// `currency`; the figures suit CNY and read sensibly in USD or EUR cents
/// ×10; an operator replaces them with a products file or admin calls).
pub fn builtin(currency: &str) -> Vec<Product> {
    let pack = |id: &str, coins: i64, price: i64, original: Option<i64>, sort: i32| Product {
        product_id: id.into(),
        kind: ProductKind::Credits,
        name: format!("{coins} credits"),
        price,
        currency: currency.into(),
        coins,
        plan: None,
        period: None,
        product_level: 0,
        infinite_queue: false,
        original_price: original,
        features: vec![],
        active: true,
        sort,
        scenes: vec!["web".into()],
    };
    let plan = |id: &str, plan: Plan, period: Period, price: i64, sort: i32| {
        let full = plan == Plan::Full;
        let monthly = if full { 2000 } else { 600 };
        let month_price = if full { 9900 } else { 3900 };
        Product {
            product_id: id.into(),
            kind: ProductKind::Subscription,
            name: format!(
                "{} ({})",
                if full {
                    "Full membership"
                } else {
                    "Lite membership"
                },
                if period == Period::Month {
                    "monthly"
                } else {
                    "yearly"
                }
            ),
            price,
            currency: currency.into(),
            coins: monthly,
            plan: Some(plan),
            period: Some(period),
            product_level: if full { 3 } else { 1 },
            infinite_queue: full,
            original_price: (period == Period::Year).then_some(month_price * 12),
            // Credits and the unlimited queue are shown from `coins` and
            // `infinite_queue`; these are the other perks.
            features: if full {
                vec![
                    "4 images per run".into(),
                    "Fast lane".into(),
                    "Unlimited LoRAs".into(),
                    "Member-only video qualities, longest durations".into(),
                ]
            } else {
                vec![
                    "4 images per run".into(),
                    "Fast lane".into(),
                    "Unlimited LoRAs".into(),
                ]
            },
            active: true,
            sort,
            scenes: vec!["web".into()],
        }
    };
    let mut photo = pack("ai-photo-200", 200, 1990, None, 50);
    photo.name = "AI photo pack (200 credits)".into();
    photo.scenes = vec!["ai_photo".into()];
    vec![
        pack("coins-100", 100, 990, None, 1),
        pack("coins-550", 550, 4900, Some(5500), 2),
        pack("coins-1200", 1200, 9800, Some(12000), 3),
        pack("coins-3000", 3000, 22800, Some(30000), 4),
        plan("lite-month", Plan::Lite, Period::Month, 3900, 10),
        plan("lite-year", Plan::Lite, Period::Year, 37400, 11),
        plan("full-month", Plan::Full, Period::Month, 9900, 12),
        plan("full-year", Plan::Full, Period::Year, 95000, 13),
        photo,
    ]
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_builtin_catalogue_is_valid() {
        let all = builtin("CNY");
        for p in &all {
            assert_eq!(validate(p), Ok(()), "{}", p.product_id);
        }
        let ids: std::collections::BTreeSet<_> = all.iter().map(|p| &p.product_id).collect();
        assert_eq!(ids.len(), all.len());
    }

    #[tokio::test]
    async fn a_products_file_replaces_and_a_bad_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let store: DynStore = std::sync::Arc::new(
            infra::store::embedded::EmbeddedStore::open(&dir.path().join("s")).unwrap(),
        );
        let c = Catalog::new(store);
        c.seed(None, "CNY").await.unwrap();
        assert_eq!(c.all().await.unwrap().len(), builtin("CNY").len());
        let f = dir.path().join("p.toml");
        std::fs::write(
            &f,
            r#"
[[products]]
product_id = "coins-100"
kind = "credits"
name = "Hundred"
price = 500
currency = "USD"
coins = 100
"#,
        )
        .unwrap();
        c.seed(Some(&f), "CNY").await.unwrap();
        let p = c.get("coins-100").await.unwrap();
        assert_eq!(
            (p.price, p.currency.as_str(), p.name.as_str()),
            (500, "USD", "Hundred")
        );
        std::fs::write(&f, "[[products]]\nproduct_id = \"x\"\nkind = \"credits\"\nname = \"x\"\nprice = -1\ncurrency = \"USD\"\ncoins = 1\n").unwrap();
        let err = c.seed(Some(&f), "CNY").await.unwrap_err().to_string();
        assert!(err.contains("price"), "{err}");
        assert!(c.get("nope").await.is_err());
    }
}
