//! Short links (issue 22 part 6; spec 3 §7 `url/short`, body `url`, answer
//! `data.cloud_cdn`), the owner's `url/short/list`, and the redirect
//! `GET /s/{code}` (302, outside `/api/v1`). The public base is
//! `EASEL_PUBLIC_URL`; without it, the listener's own address (never the
//! request's `Host` header, which a caller could forge to make a link to
//! any host look like the instance's own).

use super::api::{doc, Api};
use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse};
use protocol::shortlink::ShortenRequest;
use serde_json::json;

use crate::accounts::now_millis;
use crate::auth::Authed;
use crate::error::{ok, ApiResult};
use crate::state::AppState;

/// The instance's public base URL, without a trailing slash.
pub fn public_base(req: &HttpRequest, s: &AppState) -> String {
    match &s.settings.mall.public_url {
        Some(u) => u.trim_end_matches('/').to_owned(),
        None => format!("http://{}", req.app_config().local_addr()),
    }
}

/// `POST /api/v1/url/short` `{url}` → `{cloud_cdn, code, url, expires_at}`.
pub async fn shorten(
    req: HttpRequest,
    s: web::Data<AppState>,
    a: Authed,
    b: web::Json<ShortenRequest>,
) -> ApiResult {
    let base = public_base(&req, &s);
    let out = s
        .shortlinks
        .shorten(&a.0.account.id, &b.url, &base, now_millis())
        .await?;
    Ok(ok(out))
}

/// `POST /api/v1/url/short/list` → `{items}`: the caller's links with clicks.
pub async fn list(req: HttpRequest, s: web::Data<AppState>, a: Authed) -> ApiResult {
    let base = public_base(&req, &s);
    let items = s
        .shortlinks
        .list(&a.0.account.id, &base, now_millis())
        .await?;
    Ok(ok(json!({ "items": items })))
}

/// `GET /s/{code}`: 302 to the target, counting the click; an unknown or
/// expired code answers the envelope with 404.
pub async fn follow(s: web::Data<AppState>, code: web::Path<String>) -> ApiResult {
    let target = s.shortlinks.follow(&code, now_millis()).await?;
    Ok(HttpResponse::Found()
        .insert_header((header::LOCATION, target))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header(("Referrer-Policy", "no-referrer"))
        .finish())
}

pub fn routes(api: &mut Api) {
    api.post(
        "/url/short",
        shorten,
        doc("Make a short link").body::<ShortenRequest>(),
    )
    .post("/url/short/list", list, doc("The caller's short links"));
}
