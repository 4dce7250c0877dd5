//! The manual provider: for operators without a card processor. A checkout
//! is the mall's own page with the operator's transfer instructions; an
//! operator marks the order paid once the money arrived
//! (`admin/mall/order/mark-paid`). It takes no webhooks: nothing from
//! outside can pay an order through it.

use crate::{
    Checkout, CheckoutRequest, Headers, PaymentProvider, ProviderError, ProviderEvent,
    SubscriptionChange, WebhookError,
};

/// Bank-transfer payments confirmed by an operator.
#[derive(Debug, Clone, Default)]
pub struct Manual {
    /// Shown to the buyer on the order page (account, reference format).
    pub instructions: String,
}

#[async_trait::async_trait]
impl PaymentProvider for Manual {
    fn name(&self) -> &'static str {
        "manual"
    }

    async fn checkout(&self, req: &CheckoutRequest) -> Result<Checkout, ProviderError> {
        // The order id is the transfer reference the operator matches.
        Ok(Checkout {
            session_id: req.order_id.clone(),
            url: None,
        })
    }

    async fn change_subscription(
        &self,
        _subscription: &str,
        _change: &SubscriptionChange,
    ) -> Result<(), ProviderError> {
        // Nothing renews by itself: every change is the mall's own record.
        Ok(())
    }

    async fn portal(&self, _customer: &str, _return_url: &str) -> Result<String, ProviderError> {
        Err(ProviderError::Unsupported("manual"))
    }

    fn verify_webhook(
        &self,
        _headers: &Headers,
        _body: &[u8],
        _now: i64,
    ) -> Result<Vec<ProviderEvent>, WebhookError> {
        Err(WebhookError::Unsupported)
    }
}
