//! Follow and profile family (spec 3 §7 "Follow"): following, follower and
//! following lists, public profiles and editing one's own, notifications.

use super::api::{doc, Api};
use actix_web::{web, HttpRequest};
use protocol::square::social::{
    AccountListRequest, AccountPage, AccountRequest, NotificationListRequest, NotificationPage,
    Profile, ProfileEdit,
};

use super::square::viewer;
use crate::auth::Authed;
use crate::error::{ok, ApiResult};
use crate::state::AppState;

type Body<T> = web::Json<T>;

fn size(n: Option<u32>) -> usize {
    n.unwrap_or(20).clamp(1, 100) as usize
}

/// `notification/unread` and `read`: how many notifications are unread.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
#[schema(as = NotificationUnread)]
pub struct UnreadCount {
    pub unread: i64,
}

pub async fn followers(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: Body<AccountListRequest>,
) -> ApiResult {
    let v = viewer(&req, &s).await?;
    Ok(ok(s
        .square
        .follow_list(
            v.as_deref(),
            &b.account_id,
            true,
            b.cursor.as_deref(),
            size(b.page_size),
        )
        .await?))
}

pub async fn following(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: Body<AccountListRequest>,
) -> ApiResult {
    let v = viewer(&req, &s).await?;
    Ok(ok(s
        .square
        .follow_list(
            v.as_deref(),
            &b.account_id,
            false,
            b.cursor.as_deref(),
            size(b.page_size),
        )
        .await?))
}

pub async fn profile(
    req: HttpRequest,
    s: web::Data<AppState>,
    b: Body<AccountRequest>,
) -> ApiResult {
    let v = viewer(&req, &s).await?;
    let mut p = s.square.profile(v.as_deref(), &b.account_id).await?;
    // The links the account set in its settings (checked http(s) URLs).
    p.links = s.security.prefs_row(&p.id).await?.links;
    Ok(ok(p))
}

pub async fn profile_edit(a: Authed, s: web::Data<AppState>, b: Body<ProfileEdit>) -> ApiResult {
    let p = s.square.edit_profile(&a.0.account, b.into_inner()).await?;
    s.awards.on_profile(&p).await;
    Ok(ok(p))
}

pub async fn notifications(
    a: Authed,
    s: web::Data<AppState>,
    b: Body<NotificationListRequest>,
) -> ApiResult {
    let b = b.into_inner();
    Ok(ok(s
        .square
        .notifications(&a.0.account.id, b.cursor.as_deref(), size(b.page_size))
        .await?))
}

pub async fn unread(a: Authed, s: web::Data<AppState>) -> ApiResult {
    Ok(ok(UnreadCount {
        unread: s.square.unread(&a.0.account.id).await?,
    }))
}

pub async fn read(a: Authed, s: web::Data<AppState>) -> ApiResult {
    s.square.mark_read(&a.0.account.id).await?;
    Ok(ok(UnreadCount { unread: 0 }))
}

pub fn routes(api: &mut Api) {
    api.post(
        "/account/followers",
        followers,
        doc("An account's followers")
            .body::<AccountListRequest>()
            .reply::<AccountPage>(),
    )
    .post(
        "/account/following",
        following,
        doc("The accounts an account follows")
            .body::<AccountListRequest>()
            .reply::<AccountPage>(),
    )
    .post(
        "/account/profile",
        profile,
        doc("An account's public profile")
            .body::<AccountRequest>()
            .reply::<Profile>(),
    )
    .post(
        "/account/profile/edit",
        profile_edit,
        doc("Edit the caller's profile")
            .body::<ProfileEdit>()
            .reply::<Profile>(),
    )
    .post(
        "/notification/list",
        notifications,
        doc("The caller's notifications")
            .body::<NotificationListRequest>()
            .reply::<NotificationPage>(),
    )
    .post(
        "/notification/unread",
        unread,
        doc("The caller's unread notification counts").reply::<UnreadCount>(),
    )
    .post(
        "/notification/read",
        read,
        doc("Mark notifications read").reply::<UnreadCount>(),
    );
}
