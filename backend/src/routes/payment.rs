//! Payments family (spec 3 §7 "Payments", subscription management): the
//! mall's products, orders, subscriptions and offers, the providers'
//! webhooks, and Adyen's own calls. The service is `crate::mall`.

use super::api::{doc, Api};
use actix_web::{web, HttpRequest};
use protocol::activity::Page;
use protocol::character::Items;
use protocol::mall::order::CreateOrder;
use protocol::mall::order::{CreatedOrder, OrderView};
use protocol::mall::product::Product;
use protocol::mall::product::ProductKind;
use protocol::mall::subscription::SubscriptionView;
use protocol::ErrorCode;
use serde::Deserialize;
use serde::Serialize;
use serde_json::json;

/// `product/sub-list`: the plans on sale and the caller's subscription
/// (null for visitors and accounts without one).
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct SubList {
    pub items: Vec<Product>,
    pub current: Option<SubscriptionView>,
}

/// `order/sub-detail`: the caller's subscription (null without one) and
/// whether the provider's portal is open to it.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct SubDetail {
    pub subscription: Option<SubscriptionView>,
    pub portal: bool,
}

/// `order/portal`: the provider's billing portal for the caller.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct PortalUrl {
    pub url: String,
}

/// `order/renewal-sub`: the subscription and the checkout order (null when
/// the provider renews it itself).
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Renewal {
    pub subscription: SubscriptionView,
    pub order: Option<CreatedOrder>,
}

use crate::auth::Authed;
use crate::error::{ok, ApiError, ApiResult};
use crate::state::AppState;

type Body<T> = web::Json<T>;

pub fn routes(api: &mut Api) {
    api.scope("/payment", |api| {
        api.post(
            "/assets/get",
            super::account::assets,
            doc("The caller's credits: balance, on hold and expiring"),
        )
        .post(
            "/product/list-web",
            list_web,
            doc("The products on sale").reply::<Items<Product>>(),
        )
        .post(
            "/product/sub-list",
            sub_list,
            doc("The subscription plans").reply::<SubList>(),
        )
        .post(
            "/product/ai-photo",
            ai_photo,
            doc("The AI photo products").reply::<Items<Product>>(),
        )
        .post(
            "/order/create",
            create,
            doc("Create an order for a product")
                .body::<CreateOrder>()
                .reply::<CreatedOrder>(),
        )
        .post(
            "/order/create-sub",
            create_sub,
            doc("Create an order for a plan")
                .body::<CreateOrder>()
                .reply::<CreatedOrder>(),
        )
        .post(
            "/order-create-sub",
            create_sub,
            doc("Create an order for a plan (older path)")
                .body::<CreateOrder>()
                .reply::<CreatedOrder>(),
        )
        .post(
            "/order-checkout",
            checkout,
            doc("Check an order out (older path)")
                .body::<OrderRef>()
                .reply::<CreatedOrder>(),
        )
        .post(
            "/order/checkout",
            checkout,
            doc("Check an order out")
                .body::<OrderRef>()
                .reply::<CreatedOrder>(),
        )
        .post(
            "/order/status",
            status,
            doc("An order's status")
                .body::<OrderRef>()
                .reply::<OrderView>(),
        )
        .post(
            "/buy/log",
            buy_log,
            doc("The caller's purchases")
                .body::<PageReq>()
                .reply::<Page<OrderView>>(),
        )
        .get(
            "/order/calculate/recent-record",
            recent,
            doc("Recent purchases (anonymised ticker)"),
        )
        .post("/assets/discount", discount, doc("The caller's discounts"))
        .post(
            "/discount/popup-info",
            popup,
            doc("The discount popup's content"),
        )
        .post(
            "/gray-info",
            gray,
            doc("Payment features enabled for the caller"),
        )
        .post(
            "/calculate/retention-popup-info",
            retention_info,
            doc("The retention offer shown on cancelling"),
        )
        .post(
            "/order/sub-detail",
            sub_detail,
            doc("The caller's subscription").reply::<SubDetail>(),
        )
        .post(
            "/order/upgrade-price",
            upgrade_price,
            doc("The price of upgrading to a plan").body::<ProductRef>(),
        )
        .post(
            "/order/batch-upgrade-price",
            batch_upgrade_price,
            doc("The prices of upgrading to several plans"),
        )
        .post(
            "/order/upgrade",
            upgrade,
            doc("Upgrade the caller's subscription")
                .body::<CreateOrder>()
                .reply::<CreatedOrder>(),
        )
        .post(
            "/order/renewal-sub",
            renewal,
            doc("Turn a subscription's renewal back on")
                .body::<SubReq>()
                .reply::<Renewal>(),
        )
        .post(
            "/order/pause-info",
            pause_info,
            doc("What pausing the subscription would do"),
        )
        .post(
            "/order/pause-sub",
            pause,
            doc("Pause the caller's subscription")
                .body::<SubReq>()
                .reply::<SubscriptionView>(),
        )
        .post(
            "/order/clear-renewal-sub",
            clear_renewal,
            doc("Turn a subscription's renewal off")
                .body::<SubReq>()
                .reply::<SubscriptionView>(),
        )
        .post(
            "/order/feedback",
            feedback,
            doc("Tell why a subscription is cancelled")
                .body::<SubReq>()
                .reply::<SubscriptionView>(),
        )
        .post(
            "/order/cancel-sub-user",
            cancel,
            doc("Cancel the caller's subscription")
                .body::<SubReq>()
                .reply::<SubscriptionView>(),
        )
        .post(
            "/order/retention-accept",
            retention_accept,
            doc("Accept the retention offer")
                .body::<SubReq>()
                .reply::<SubscriptionView>(),
        )
        .post(
            "/order/portal",
            portal,
            doc("A link to the payment provider's customer portal")
                .body::<SubReq>()
                .reply::<PortalUrl>(),
        )
        .post(
            "/adyen/payment-method",
            adyen_methods,
            doc("The payment methods Adyen offers for a product").body::<AdyenMethods>(),
        )
        .post(
            "/adyen/check-three-ds2",
            adyen_3ds2,
            doc("Hand a 3-D Secure 2 result to Adyen").body::<ThreeDs2>(),
        )
        .post(
            "/webhook/stripe",
            webhook_stripe,
            doc("Stripe's events (verified by Stripe-Signature)"),
        )
        .post(
            "/webhook/adyen",
            webhook_adyen,
            doc("Adyen's notifications (HMAC-verified)").raw("text/plain"),
        );
    });
}

/// The site's base URL for return pages: the configured public URL, else
/// the request's own scheme and host.
fn base_url(req: &HttpRequest, s: &AppState) -> String {
    if let Some(u) = &s.settings.mall.public_url {
        return u.clone();
    }
    let c = req.connection_info();
    format!("{}://{}", c.scheme(), c.host())
}

async fn list_web(s: web::Data<AppState>) -> ApiResult {
    Ok(ok(Items {
        items: s.mall.catalog().on_sale("web", None).await?,
    }))
}

async fn sub_list(req: HttpRequest, s: web::Data<AppState>) -> ApiResult {
    let items = s
        .mall
        .catalog()
        .on_sale("web", Some(ProductKind::Subscription))
        .await?;
    let current = match crate::auth::optional_caller(&req, &s).await? {
        Some(c) => s.mall.sub_detail(&c.account).await?.0,
        None => None,
    };
    Ok(ok(SubList { items, current }))
}

async fn ai_photo(s: web::Data<AppState>) -> ApiResult {
    Ok(ok(Items {
        items: s.mall.catalog().on_sale("ai_photo", None).await?,
    }))
}

async fn create(
    req: HttpRequest,
    s: web::Data<AppState>,
    c: Authed,
    b: Body<CreateOrder>,
) -> ApiResult {
    let base = base_url(&req, &s);
    Ok(ok(s.mall.create_order(&c.0.account, &b, &base).await?))
}

/// `order/create-sub`: as `order/create`, for plans only.
async fn create_sub(
    req: HttpRequest,
    s: web::Data<AppState>,
    c: Authed,
    b: Body<CreateOrder>,
) -> ApiResult {
    let p = s.mall.catalog().get(&b.product_id).await?;
    if p.kind != ProductKind::Subscription {
        return Err(ApiError::with_msg(
            ErrorCode::ProductNotFound,
            "this product is not a plan",
        ));
    }
    create(req, s, c, b).await
}

#[derive(utoipa::ToSchema, Debug, Deserialize)]
struct OrderRef {
    order_id: String,
    #[serde(default)]
    locale: Option<String>,
}

async fn checkout(
    req: HttpRequest,
    s: web::Data<AppState>,
    c: Authed,
    b: Body<OrderRef>,
) -> ApiResult {
    let base = base_url(&req, &s);
    Ok(ok(s
        .mall
        .reopen_checkout(&c.0.account, &b.order_id, b.locale.as_deref(), &base)
        .await?))
}

async fn status(s: web::Data<AppState>, c: Authed, b: Body<OrderRef>) -> ApiResult {
    Ok(ok(s.mall.order_status(&c.0.account, &b.order_id).await?))
}

#[derive(utoipa::ToSchema, Debug, Default, Deserialize)]
#[serde(default)]
struct PageReq {
    page_size: Option<u32>,
    cursor: Option<String>,
}

async fn buy_log(s: web::Data<AppState>, c: Authed, b: Option<Body<PageReq>>) -> ApiResult {
    let b = b.map(|b| b.into_inner()).unwrap_or_default();
    let (items, next) = s
        .mall
        .buy_log(&c.0.account, b.cursor.as_deref(), b.page_size.unwrap_or(20))
        .await?;
    Ok(ok(Page {
        items,
        next_cursor: next,
    }))
}

async fn recent(s: web::Data<AppState>) -> ApiResult {
    Ok(ok(s.mall.recent().await?))
}

async fn discount(s: web::Data<AppState>, c: Authed) -> ApiResult {
    Ok(ok(s.mall.discounts(&c.0.account).await?))
}

async fn popup(s: web::Data<AppState>, c: Authed) -> ApiResult {
    Ok(ok(s.mall.popup(&c.0.account).await?))
}

async fn gray(s: web::Data<AppState>) -> ApiResult {
    Ok(ok(s.mall.gray_info()))
}

async fn retention_info(s: web::Data<AppState>, c: Authed) -> ApiResult {
    Ok(ok(s.mall.retention_info(&c.0.account).await?))
}

async fn sub_detail(s: web::Data<AppState>, c: Authed) -> ApiResult {
    let (sub, portal) = s.mall.sub_detail(&c.0.account).await?;
    Ok(ok(SubDetail {
        subscription: sub,
        portal,
    }))
}

#[derive(utoipa::ToSchema, Debug, Deserialize)]
struct ProductRef {
    product_id: String,
}

async fn upgrade_price(s: web::Data<AppState>, c: Authed, b: Body<ProductRef>) -> ApiResult {
    Ok(ok(s
        .mall
        .upgrade_quote(&c.0.account, &b.product_id)
        .await?))
}

async fn batch_upgrade_price(s: web::Data<AppState>, c: Authed) -> ApiResult {
    Ok(ok(
        json!({"items": s.mall.upgrade_quotes(&c.0.account).await?}),
    ))
}

async fn upgrade(
    req: HttpRequest,
    s: web::Data<AppState>,
    c: Authed,
    b: Body<CreateOrder>,
) -> ApiResult {
    let base = base_url(&req, &s);
    Ok(ok(s.mall.upgrade(&c.0.account, &b, &base).await?))
}

#[derive(utoipa::ToSchema, Debug, Default, Deserialize)]
#[serde(default)]
struct SubReq {
    sub_id: Option<String>,
    months: Option<u32>,
    reason: String,
    text: String,
    locale: Option<String>,
}

fn sub_req(b: Option<Body<SubReq>>) -> SubReq {
    b.map(|b| b.into_inner()).unwrap_or_default()
}

async fn renewal(
    req: HttpRequest,
    s: web::Data<AppState>,
    c: Authed,
    b: Option<Body<SubReq>>,
) -> ApiResult {
    let b = sub_req(b);
    let base = base_url(&req, &s);
    let (sub, order) = s
        .mall
        .renew(
            &c.0.account,
            b.sub_id.as_deref(),
            b.locale.as_deref(),
            &base,
        )
        .await?;
    Ok(ok(Renewal {
        subscription: sub,
        order,
    }))
}

async fn pause_info(s: web::Data<AppState>, c: Authed) -> ApiResult {
    Ok(ok(s.mall.pause_info(&c.0.account).await?))
}

async fn pause(s: web::Data<AppState>, c: Authed, b: Option<Body<SubReq>>) -> ApiResult {
    let b = sub_req(b);
    let months = b.months.ok_or_else(|| {
        ApiError::with_msg(ErrorCode::InvalidParams, "months: 1, 2 or 3 (0 resumes)")
    })?;
    Ok(ok(s
        .mall
        .pause(&c.0.account, b.sub_id.as_deref(), months)
        .await?))
}

async fn clear_renewal(s: web::Data<AppState>, c: Authed, b: Option<Body<SubReq>>) -> ApiResult {
    let b = sub_req(b);
    Ok(ok(s
        .mall
        .clear_renewal(&c.0.account, b.sub_id.as_deref())
        .await?))
}

async fn feedback(s: web::Data<AppState>, c: Authed, b: Option<Body<SubReq>>) -> ApiResult {
    let b = sub_req(b);
    Ok(ok(s
        .mall
        .feedback(&c.0.account, b.sub_id.as_deref(), &b.reason, &b.text)
        .await?))
}

async fn cancel(s: web::Data<AppState>, c: Authed, b: Option<Body<SubReq>>) -> ApiResult {
    let b = sub_req(b);
    Ok(ok(s
        .mall
        .cancel(&c.0.account, b.sub_id.as_deref(), &b.reason, &b.text)
        .await?))
}

async fn retention_accept(s: web::Data<AppState>, c: Authed, b: Option<Body<SubReq>>) -> ApiResult {
    let b = sub_req(b);
    Ok(ok(s
        .mall
        .accept_retention(&c.0.account, b.sub_id.as_deref())
        .await?))
}

async fn portal(
    req: HttpRequest,
    s: web::Data<AppState>,
    c: Authed,
    b: Option<Body<SubReq>>,
) -> ApiResult {
    let b = sub_req(b);
    let base = base_url(&req, &s);
    let locale = b
        .locale
        .as_deref()
        .filter(|l| {
            (2..=8).contains(&l.len()) && l.bytes().all(|x| x.is_ascii_alphabetic() || x == b'-')
        })
        .unwrap_or("en");
    let url = s
        .mall
        .portal(&c.0.account, &format!("{base}/{locale}/mall/subscription"))
        .await?;
    Ok(ok(PortalUrl { url }))
}

#[derive(utoipa::ToSchema, Debug, Default, Deserialize)]
#[serde(default)]
struct AdyenMethods {
    product_id: Option<String>,
    country: Option<String>,
}

/// `adyen/payment-method`: the methods Adyen offers for a product's price
/// (Adyen's `/paymentMethods` answer, as Adyen's Drop-in reads it).
async fn adyen_methods(
    s: web::Data<AppState>,
    _c: Authed,
    b: Option<Body<AdyenMethods>>,
) -> ApiResult {
    let b = b.map(|b| b.into_inner()).unwrap_or_default();
    let (amount, currency) = match b.product_id.as_deref().filter(|p| !p.is_empty()) {
        Some(id) => {
            let p = s.mall.catalog().get(id).await?;
            (p.price, p.currency)
        }
        None => (0, s.settings.mall.currency.clone()),
    };
    // Without a country, the currency's (ISO 4217 codes start with the
    // ISO 3166 country code; the euro's is not one: the Netherlands).
    let country = b
        .country
        .filter(|c| c.len() == 2 && c.bytes().all(|x| x.is_ascii_alphabetic()))
        .unwrap_or_else(|| match currency.as_str() {
            "EUR" => "NL".into(),
            c => c.chars().take(2).collect(),
        });
    let v = s
        .mall
        .adyen()?
        .payment_methods(amount, &currency, &country)
        .await
        .map_err(provider_error)?;
    Ok(ok(v))
}

#[derive(utoipa::ToSchema, Debug, Deserialize)]
struct ThreeDs2 {
    order_id: String,
    details: serde_json::Value,
}

/// `adyen/check-three-ds2`: hands a 3-D Secure 2 result to Adyen's
/// `/payments/details` for one's own order. Payment is still decided by
/// Adyen's signed notification, never by this answer.
async fn adyen_3ds2(s: web::Data<AppState>, c: Authed, b: Body<ThreeDs2>) -> ApiResult {
    let order = s.mall.own_order(&c.0.account, &b.order_id).await?;
    if order.provider != "adyen" {
        return Err(ErrorCode::OrderNotFound.into());
    }
    if !b.details.is_object() || b.details.to_string().len() > 16_384 {
        return Err(ApiError::with_msg(
            ErrorCode::InvalidParams,
            "details: an object of at most 16 KiB",
        ));
    }
    let v = s
        .mall
        .adyen()?
        .payment_details(json!({"details": b.details}))
        .await
        .map_err(provider_error)?;
    Ok(ok(json!({
        "result_code": v.get("resultCode"),
        "action": v.get("action"),
        "order_id": order.order_id,
    })))
}

fn provider_error(e: payments::ProviderError) -> ApiError {
    tracing::warn!(error = %e, "payment provider call failed");
    ApiError::with_msg(
        ErrorCode::PaymentProviderUnavailable,
        "the payment provider did not answer; try again",
    )
}

fn headers_of(req: &HttpRequest) -> payments::Headers {
    req.headers()
        .iter()
        .filter_map(|(k, v)| Some((k.as_str().to_owned(), v.to_str().ok()?.to_owned())))
        .collect()
}

/// Stripe's events (DESIGN.md Contracts: verified by `Stripe-Signature`).
async fn webhook_stripe(req: HttpRequest, s: web::Data<AppState>, body: web::Bytes) -> ApiResult {
    let out = s.mall.webhook("stripe", &headers_of(&req), &body).await?;
    Ok(ok(
        json!({"received": true, "applied": out.applied, "duplicates": out.duplicates}),
    ))
}

/// Adyen's notifications: HMAC-verified; Adyen wants `[accepted]` in the
/// body, which the envelope's text does not give, so it answers that text.
async fn webhook_adyen(
    req: HttpRequest,
    s: web::Data<AppState>,
    body: web::Bytes,
) -> Result<actix_web::HttpResponse, ApiError> {
    s.mall.webhook("adyen", &headers_of(&req), &body).await?;
    Ok(actix_web::HttpResponse::Ok()
        .content_type("text/plain")
        .body("[accepted]"))
}
