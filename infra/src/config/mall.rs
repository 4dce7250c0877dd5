//! The mall's settings: currency, products, offers and the payment
//! providers (Stripe, Adyen, manual transfers). File section `[mall]`;
//! environment `EASEL_STRIPE_*`, `EASEL_ADYEN_*`, `EASEL_MANUAL_PAYMENTS`,
//! `EASEL_PAYMENT_PROVIDER`, `EASEL_PRODUCTS_FILE`, `EASEL_CURRENCY`,
//! `EASEL_PUBLIC_URL`.

use std::path::PathBuf;

use serde::Deserialize;

use super::{ConfigError, Secret};

/// Stripe (DESIGN.md Contracts: `EASEL_STRIPE_SECRET_KEY`,
/// `EASEL_STRIPE_WEBHOOK_SECRET`, `EASEL_STRIPE_API_URL`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StripeSettings {
    pub secret_key: Secret,
    pub webhook_secret: Secret,
    #[serde(default = "stripe_api")]
    pub api_url: String,
}

fn stripe_api() -> String {
    "https://api.stripe.com".into()
}

/// Adyen's Checkout API.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdyenSettings {
    /// The Checkout API base with its version, e.g.
    /// `https://checkout-test.adyen.com/v71`.
    pub api_url: String,
    pub api_key: Secret,
    pub merchant_account: String,
    /// The notification HMAC key (hex), from the webhook's settings.
    pub hmac_key: Secret,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MallSettings {
    /// ISO 4217 code of the built-in catalogue's prices.
    pub currency: String,
    /// A TOML file of products (`[[products]]`), replacing the built-in
    /// catalogue at start; operators may also edit products by admin calls.
    pub products_file: Option<PathBuf>,
    /// The provider new orders use when the buyer names none.
    pub default_provider: Option<String>,
    /// The site's public base URL, for the return pages the providers send
    /// buyers to; `None` takes the request's own scheme and host.
    pub public_url: Option<String>,
    /// The half-price offer: percent off the first payment of a plan for
    /// accounts that never had one (0 turns it off).
    pub first_plan_off_rate: u8,
    pub stripe: Option<StripeSettings>,
    pub adyen: Option<AdyenSettings>,
    /// Manual payments (bank transfer confirmed by an operator): the
    /// instructions shown to buyers; `None` turns the provider off.
    pub manual_instructions: Option<String>,
}

impl Default for MallSettings {
    fn default() -> Self {
        MallSettings {
            currency: "CNY".into(),
            products_file: None,
            default_provider: None,
            public_url: None,
            first_plan_off_rate: 50,
            stripe: None,
            adyen: None,
            manual_instructions: None,
        }
    }
}

impl MallSettings {
    pub(super) fn apply_env(
        &mut self,
        env: &impl Fn(&str) -> Option<String>,
    ) -> Result<(), ConfigError> {
        let get = |k: &str| {
            env(k)
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        if let Some(v) = get("EASEL_CURRENCY") {
            self.currency = v.to_uppercase();
        }
        if let Some(v) = get("EASEL_PRODUCTS_FILE") {
            self.products_file = Some(PathBuf::from(v));
        }
        if let Some(v) = get("EASEL_PAYMENT_PROVIDER") {
            self.default_provider = Some(v);
        }
        if let Some(v) = get("EASEL_PUBLIC_URL") {
            self.public_url = Some(v.trim_end_matches('/').to_owned());
        }
        if let Some(v) = get("EASEL_FIRST_PLAN_OFF_RATE") {
            self.first_plan_off_rate =
                v.parse().ok().filter(|n| *n < 100).ok_or_else(|| {
                    ConfigError::Env("EASEL_FIRST_PLAN_OFF_RATE", "0 to 99".into())
                })?;
        }
        if let Some(v) = get("EASEL_MANUAL_PAYMENTS") {
            self.manual_instructions = Some(v);
        }
        let key = get("EASEL_STRIPE_SECRET_KEY");
        let hook = get("EASEL_STRIPE_WEBHOOK_SECRET");
        let api = get("EASEL_STRIPE_API_URL");
        if key.is_some() || hook.is_some() || api.is_some() {
            let old = self.stripe.take();
            let (Some(secret_key), Some(webhook_secret)) = (
                key.map(Secret::new)
                    .or(old.as_ref().map(|s| s.secret_key.clone())),
                hook.map(Secret::new)
                    .or(old.as_ref().map(|s| s.webhook_secret.clone())),
            ) else {
                return Err(ConfigError::Env(
                    "EASEL_STRIPE_SECRET_KEY",
                    "Stripe needs both EASEL_STRIPE_SECRET_KEY and EASEL_STRIPE_WEBHOOK_SECRET"
                        .into(),
                ));
            };
            self.stripe = Some(StripeSettings {
                secret_key,
                webhook_secret,
                api_url: api
                    .or(old.map(|s| s.api_url))
                    .unwrap_or_else(stripe_api)
                    .trim_end_matches('/')
                    .to_owned(),
            });
        }
        let vars = [
            get("EASEL_ADYEN_API_URL"),
            get("EASEL_ADYEN_API_KEY"),
            get("EASEL_ADYEN_MERCHANT_ACCOUNT"),
            get("EASEL_ADYEN_HMAC_KEY"),
        ];
        if vars.iter().any(Option::is_some) {
            let [Some(api_url), Some(api_key), Some(merchant_account), Some(hmac_key)] = vars
            else {
                return Err(ConfigError::Env(
                    "EASEL_ADYEN_API_KEY",
                    "Adyen needs EASEL_ADYEN_API_URL, EASEL_ADYEN_API_KEY, \
                     EASEL_ADYEN_MERCHANT_ACCOUNT and EASEL_ADYEN_HMAC_KEY"
                        .into(),
                ));
            };
            self.adyen = Some(AdyenSettings {
                api_url: api_url.trim_end_matches('/').to_owned(),
                api_key: Secret::new(api_key),
                merchant_account,
                hmac_key: Secret::new(hmac_key),
            });
        }
        if let Some(p) = &self.default_provider {
            if !["stripe", "adyen", "manual"].contains(&p.as_str()) {
                return Err(ConfigError::Env(
                    "EASEL_PAYMENT_PROVIDER",
                    format!("{p:?} is not one of stripe, adyen, manual"),
                ));
            }
        }
        if self.currency.len() != 3 || !self.currency.bytes().all(|b| b.is_ascii_uppercase()) {
            return Err(ConfigError::Invalid(format!(
                "currency {:?} is not an ISO 4217 code",
                self.currency
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn from(vars: &[(&str, &str)]) -> Result<MallSettings, ConfigError> {
        let mut m = MallSettings::default();
        m.apply_env(&|k: &str| {
            vars.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        })?;
        Ok(m)
    }

    #[test]
    fn stripe_needs_both_secrets_and_defaults_its_url() {
        let m = from(&[
            ("EASEL_STRIPE_SECRET_KEY", "sk_test_1"),
            ("EASEL_STRIPE_WEBHOOK_SECRET", "whsec_1"),
        ])
        .unwrap();
        let s = m.stripe.unwrap();
        assert_eq!(s.api_url, "https://api.stripe.com");
        assert_eq!(s.secret_key.expose(), "sk_test_1");
        assert!(!format!("{s:?}").contains("sk_test_1"));
        assert!(from(&[("EASEL_STRIPE_SECRET_KEY", "sk")]).is_err());
        let m = from(&[
            ("EASEL_STRIPE_SECRET_KEY", "sk"),
            ("EASEL_STRIPE_WEBHOOK_SECRET", "wh"),
            ("EASEL_STRIPE_API_URL", "http://127.0.0.1:9/"),
        ])
        .unwrap();
        assert_eq!(m.stripe.unwrap().api_url, "http://127.0.0.1:9");
    }

    #[test]
    fn adyen_needs_all_four_and_providers_are_named() {
        assert!(from(&[("EASEL_ADYEN_API_KEY", "k")]).is_err());
        assert!(from(&[("EASEL_PAYMENT_PROVIDER", "paypal")]).is_err());
        assert!(from(&[("EASEL_CURRENCY", "yen!")]).is_err());
        let m = from(&[
            ("EASEL_CURRENCY", "usd"),
            ("EASEL_MANUAL_PAYMENTS", "IBAN X"),
        ])
        .unwrap();
        assert_eq!(m.currency, "USD");
        assert_eq!(m.manual_instructions.as_deref(), Some("IBAN X"));
    }
}
