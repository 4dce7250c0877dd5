//! Ornament shop family (spec 3 §7 "Ornament shop"): the shop's list,
//! another account's ornaments, buying with credits, wearing and taking
//! off, the purchases, work frames; and the operators' `admin/ornament/*`.

use super::api::{doc, Api};
use actix_web::{web, HttpRequest};
use protocol::ornament::{BuyResult, OrderPage, Ornament, ShopItem, ShopPage, Worn};
use protocol::ornament::{
    CancelWearRequest, ListRequest, OrderListRequest, OrnamentRequest, OtherListRequest,
    UpsertRequest, WearWorkFrameRequest, WorkFrame, WorkFrameRequest, WornOfRequest,
};
use serde_json::json;

/// `ornament-shop/other-list`: the ornaments another account owns.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
#[schema(as = OrnamentOtherList)]
pub struct OtherList {
    pub account_id: String,
    pub items: Vec<ShopItem>,
}

use super::square::viewer;
use crate::auth::Authed;
use crate::error::{ok, ApiResult};
use crate::state::AppState;

type Body<T> = web::Json<T>;

/// Plain routes, configured before the `/admin` scope takes its prefix.
pub fn routes(api: &mut Api) {
    api.post(
        "/ornament-shop/list",
        list,
        doc("The ornament shop")
            .body::<ListRequest>()
            .reply::<ShopPage>(),
    )
    .post(
        "/ornament-shop/other-list",
        other_list,
        doc("Another account's ornaments")
            .body::<OtherListRequest>()
            .reply::<OtherList>(),
    )
    .post(
        "/ornament-shop/buy",
        buy,
        doc("Buy an ornament")
            .body::<OrnamentRequest>()
            .reply::<BuyResult>(),
    )
    .post(
        "/ornament-shop/order-list",
        order_list,
        doc("The caller's ornament orders")
            .body::<OrderListRequest>()
            .reply::<OrderPage>(),
    )
    .post(
        "/ornament-shop/wear",
        wear,
        doc("Wear an ornament")
            .body::<OrnamentRequest>()
            .reply::<Worn>(),
    )
    .post(
        "/ornament-shop/worn-of",
        worn_of,
        doc("The avatar ornaments some accounts wear").body::<WornOfRequest>(),
    )
    .post(
        "/ornament-shop/cancel-wear",
        cancel_wear,
        doc("Take an ornament off")
            .body::<CancelWearRequest>()
            .reply::<Worn>(),
    )
    .post(
        "/ornament-shop/wear-work-frame",
        wear_work_frame,
        doc("Put a frame on a work")
            .body::<WearWorkFrameRequest>()
            .reply::<WorkFrame>(),
    )
    .post(
        "/ornament-shop/work-frame-work",
        work_frame_work,
        doc("The frame a work wears")
            .body::<WorkFrameRequest>()
            .reply::<WorkFrame>(),
    )
    .post(
        "/admin/ornament/upsert",
        admin_upsert,
        doc("Operators: add or change an ornament")
            .body::<UpsertRequest>()
            .reply::<Ornament>(),
    )
    .post(
        "/admin/ornament/list",
        admin_list,
        doc("Operators: every ornament").reply::<protocol::character::Items<Ornament>>(),
    );
}

pub async fn list(req: HttpRequest, s: web::Data<AppState>, b: Body<ListRequest>) -> ApiResult {
    let v = viewer(&req, &s).await?;
    Ok(ok(s.ornaments.list(v.as_deref(), &b).await?))
}

pub async fn other_list(s: web::Data<AppState>, b: Body<OtherListRequest>) -> ApiResult {
    let items = s.ornaments.other_list(&b.account_id).await?;
    Ok(ok(OtherList {
        account_id: b.account_id.clone(),
        items,
    }))
}

#[tracing::instrument(skip_all, fields(ornament = %b.ornament_id))]
pub async fn buy(a: Authed, s: web::Data<AppState>, b: Body<OrnamentRequest>) -> ApiResult {
    Ok(ok(s.ornaments.buy(&a.0.account.id, &b.ornament_id).await?))
}

pub async fn order_list(a: Authed, s: web::Data<AppState>, b: Body<OrderListRequest>) -> ApiResult {
    Ok(ok(s.ornaments.orders(&a.0.account.id, &b).await?))
}

pub async fn wear(a: Authed, s: web::Data<AppState>, b: Body<OrnamentRequest>) -> ApiResult {
    Ok(ok(s
        .ornaments
        .wear(&a.0.account.id, &b.ornament_id)
        .await?))
}

/// The avatar ornaments some accounts wear (public, like their cards).
pub async fn worn_of(s: web::Data<AppState>, b: Body<WornOfRequest>) -> ApiResult {
    Ok(ok(
        json!({ "items": s.ornaments.worn_of(&b.account_ids).await? }),
    ))
}

pub async fn cancel_wear(
    a: Authed,
    s: web::Data<AppState>,
    b: Body<CancelWearRequest>,
) -> ApiResult {
    Ok(ok(s.ornaments.cancel_wear(&a.0.account.id, &b).await?))
}

pub async fn wear_work_frame(
    a: Authed,
    s: web::Data<AppState>,
    b: Body<WearWorkFrameRequest>,
) -> ApiResult {
    let frame = s.ornaments.wear_work_frame(&a.0.account.id, &b).await?;
    Ok(ok(WorkFrame {
        work_id: b.work_id.clone(),
        frame,
    }))
}

/// The frame a work wears; a work the caller may not see is NotFound.
pub async fn work_frame_work(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: Body<WorkFrameRequest>,
) -> ApiResult {
    let v = viewer(&req, &s).await?;
    let w = s.square.visible_work(v.as_deref(), &b.work_id).await?;
    Ok(ok(WorkFrame {
        frame: s.ornaments.work_frame(&w.id, &w.author).await,
        work_id: w.id,
    }))
}

use super::require_operator as operator;

#[tracing::instrument(skip_all, fields(ornament = ?b.ornament_id))]
pub async fn admin_upsert(a: Authed, s: web::Data<AppState>, b: Body<UpsertRequest>) -> ApiResult {
    operator(&s, &a)?;
    Ok(ok(s.ornaments.upsert(&b).await?))
}

pub async fn admin_list(a: Authed, s: web::Data<AppState>) -> ApiResult {
    operator(&s, &a)?;
    Ok(ok(protocol::character::Items {
        items: s.ornaments.admin_list().await?,
    }))
}
