//! Stripe adapter (being written on branch mall-providers; replaced at merge).
use crate::*;
pub struct Stripe;
impl Stripe {
    pub fn new(_api: &str, _key: Secret, _hook: Secret) -> Result<Stripe, ProviderError> {
        Err(ProviderError::Unsupported("stripe"))
    }
}
#[async_trait::async_trait]
impl PaymentProvider for Stripe {
    fn name(&self) -> &'static str {
        "stripe"
    }
    async fn checkout(&self, _req: &CheckoutRequest) -> Result<Checkout, ProviderError> {
        Err(ProviderError::Unsupported("stripe"))
    }
    async fn change_subscription(
        &self,
        _s: &str,
        _c: &SubscriptionChange,
    ) -> Result<(), ProviderError> {
        Err(ProviderError::Unsupported("stripe"))
    }
    async fn portal(&self, _c: &str, _r: &str) -> Result<String, ProviderError> {
        Err(ProviderError::Unsupported("stripe"))
    }
    fn verify_webhook(
        &self,
        _h: &Headers,
        _b: &[u8],
        _n: i64,
    ) -> Result<Vec<ProviderEvent>, WebhookError> {
        Err(WebhookError::Unsupported)
    }
}
