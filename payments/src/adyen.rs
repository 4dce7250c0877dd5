//! Adyen adapter (being written on branch mall-providers; replaced at merge).
use crate::*;
pub struct Adyen;
impl Adyen {
    pub async fn payment_methods(
        &self,
        _amount: i64,
        _currency: &str,
        _country: Option<&str>,
    ) -> Result<serde_json::Value, ProviderError> {
        Err(ProviderError::Unsupported("adyen"))
    }
    pub async fn payment_details(
        &self,
        _details: serde_json::Value,
    ) -> Result<serde_json::Value, ProviderError> {
        Err(ProviderError::Unsupported("adyen"))
    }
    pub fn new(
        _api: &str,
        _key: Secret,
        _merchant: &str,
        _hmac: Secret,
    ) -> Result<Adyen, ProviderError> {
        Err(ProviderError::Unsupported("adyen"))
    }
}
#[async_trait::async_trait]
impl PaymentProvider for Adyen {
    fn name(&self) -> &'static str {
        "adyen"
    }
    async fn checkout(&self, _req: &CheckoutRequest) -> Result<Checkout, ProviderError> {
        Err(ProviderError::Unsupported("adyen"))
    }
    async fn change_subscription(
        &self,
        _s: &str,
        _c: &SubscriptionChange,
    ) -> Result<(), ProviderError> {
        Err(ProviderError::Unsupported("adyen"))
    }
    async fn portal(&self, _c: &str, _r: &str) -> Result<String, ProviderError> {
        Err(ProviderError::Unsupported("adyen"))
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
