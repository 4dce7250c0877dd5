//! Offers and the mall's small answers: the half-price offer on a first
//! plan (and its popup, at most once a UTC day per account), the retention
//! offer's popup, recent purchases, which providers are on.

use infra::store::{Key, ScanRange};
use protocol::mall::product::ProductKind;
use protocol::mall::subscription::RETENTION_PERCENT_OFF;
use protocol::mall::{Period, Plan, Product, DAY_MS};
use serde_json::{json, Value};

use super::orders::discounted_price;
use super::MallService;
use crate::accounts::{now_millis, AccountRow};
use crate::error::ApiError;

impl MallService {
    /// Percent off `product` for this account now: the first-plan offer
    /// applies to plans for accounts that never had one; 0 otherwise.
    pub(super) async fn first_plan_rate(
        &self,
        who: &AccountRow,
        product: &Product,
    ) -> Result<u8, ApiError> {
        let rate = self.settings().first_plan_off_rate;
        if rate == 0 || product.kind != ProductKind::Subscription {
            return Ok(0);
        }
        let had = self
            .inner
            .t
            .marks
            .get(&Key::of(&who.id), &Key::of("had_plan"))
            .await?
            .is_some();
        Ok(if had { 0 } else { rate })
    }

    /// `assets/discount`: the discounts this account has, per plan.
    pub async fn discounts(&self, who: &AccountRow) -> Result<Value, ApiError> {
        let plans = self
            .catalog()
            .on_sale("web", Some(ProductKind::Subscription))
            .await?;
        let mut items = Vec::new();
        let mut rate = 0;
        for p in &plans {
            let r = self.first_plan_rate(who, p).await?;
            rate = rate.max(r);
            if r > 0 {
                items.push(json!({
                    "product_id": p.product_id,
                    "price": p.price,
                    "discounted_price": discounted_price(p.price, r),
                }));
            }
        }
        Ok(json!({"eligible": rate > 0, "off_rate": rate, "items": items}))
    }

    /// `discount/popup-info`: whether to show the half-price popup now.
    /// `show` is true at most once per UTC day per account: the day is
    /// recorded by compare-and-set, so two tabs asking at once show it once.
    pub async fn popup(&self, who: &AccountRow) -> Result<Value, ApiError> {
        let plans = self
            .catalog()
            .on_sale("web", Some(ProductKind::Subscription))
            .await?;
        // The offer's product: the full monthly plan, else the first plan.
        let Some(product) = plans
            .iter()
            .find(|p| p.plan == Some(Plan::Full) && p.period == Some(Period::Month))
            .or(plans.first())
        else {
            return Ok(
                json!({"show": false, "off_rate": 0, "product": null, "discounted_price": null}),
            );
        };
        let rate = self.first_plan_rate(who, product).await?;
        if rate == 0 || self.live_sub(&who.id).await?.is_some() {
            return Ok(
                json!({"show": false, "off_rate": 0, "product": null, "discounted_price": null}),
            );
        }
        let today = now_millis() / DAY_MS;
        let marks = &self.inner.t.marks;
        let (pk, ck) = (Key::of(&who.id), Key::of("popup_day"));
        let show = match marks.get(&pk, &ck).await? {
            None => marks.insert_if_absent(&pk, &ck, &today).await?.is_ok(),
            Some(day) if day < today => marks
                .compare_and_set(&pk, &ck, &day, Some(&today))
                .await?
                .is_ok(),
            Some(_) => false,
        };
        Ok(json!({
            "show": show,
            "off_rate": rate,
            "product": product,
            "discounted_price": discounted_price(product.price, rate),
        }))
    }

    /// `calculate/retention-popup-info`: the offer made to a member who is
    /// about to cancel (once per plan).
    pub async fn retention_info(&self, who: &AccountRow) -> Result<Value, ApiError> {
        let sub = self.live_sub(&who.id).await?;
        Ok(match sub {
            Some(s) if !s.retention_used => json!({
                "show": true,
                "percent_off": RETENTION_PERCENT_OFF,
                "price": s.terms.price,
                "discounted_price": discounted_price(s.terms.price, RETENTION_PERCENT_OFF),
                "currency": s.currency,
                "sub_id": s.sub_id,
            }),
            _ => {
                json!({"show": false, "percent_off": 0, "price": null, "discounted_price": null, "sub_id": null})
            }
        })
    }

    /// `gray-info`: the providers on (the default first) and the currency;
    /// the manual provider's transfer instructions when it is on.
    pub fn gray_info(&self) -> Value {
        let names = self.provider_names();
        json!({
            "providers": names,
            "default_provider": names.first(),
            "currency": self.settings().currency,
            "manual_instructions": self.settings().manual_instructions.as_ref().filter(|_| names.contains(&"manual")),
        })
    }

    /// `order/calculate/recent-record`: the latest purchases on the
    /// platform, buyers' names masked.
    pub async fn recent(&self) -> Result<Value, ApiError> {
        let page = self
            .inner
            .t
            .orders_recent
            .scan(&Key::of("0"), &ScanRange::all(20).desc())
            .await?;
        let items: Vec<Value> = page
            .rows
            .into_iter()
            .map(|(_, r)| json!({"name": r.name, "product_name": r.product_name, "kind": r.kind, "at": r.at}))
            .collect();
        Ok(json!({"items": items}))
    }
}
