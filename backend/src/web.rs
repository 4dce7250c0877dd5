//! Serving the built web app (with the single-page fallback to index.html),
//! the security headers every response carries, and the visitor `deviceId`
//! cookie.

use std::path::{Path, PathBuf};

use actix_web::body::MessageBody;
use actix_web::cookie::{time::Duration as CookieDuration, Cookie, SameSite};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::{DefaultHeaders, Next};
use actix_web::{web, HttpRequest, HttpResponse};

use crate::accounts::{new_device_code, DEVICE_COOKIE};
use crate::auth::device_id_of;

/// No inline script, no foreign origin: a token in the page cannot be
/// exfiltrated by injected markup.
pub const CSP: &str =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; \
media-src 'self' blob:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; \
frame-ancestors 'none'; form-action 'self'";

pub fn security_headers() -> DefaultHeaders {
    DefaultHeaders::new()
        .add(("Content-Security-Policy", CSP))
        .add(("X-Content-Type-Options", "nosniff"))
        .add(("Referrer-Policy", "same-origin"))
        .add(("X-Frame-Options", "DENY"))
}

/// Gives every visitor a `deviceId` cookie (spec 2 §3) on their first request.
pub async fn device_cookie(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let missing = device_id_of(req.request()).is_none() && req.path() != "/ws";
    let secure = req.connection_info().scheme() == "https";
    let mut res = next.call(req).await?;
    if missing {
        let cookie = Cookie::build(DEVICE_COOKIE, new_device_code())
            .path("/")
            .max_age(CookieDuration::days(400))
            .same_site(SameSite::Lax)
            .secure(secure)
            .http_only(true)
            .finish();
        let _ = res.response_mut().add_cookie(&cookie);
    }
    Ok(res)
}

/// Static files from the built web app, falling back to index.html for the
/// app's own routes (`/en/...`).
pub fn static_files(dir: &Path) -> actix_files::Files {
    let index: PathBuf = dir.join("index.html");
    actix_files::Files::new("/", dir)
        .index_file("index.html")
        .prefer_utf8(true)
        .default_handler(web::to(move |req: HttpRequest| {
            let index = index.clone();
            async move {
                if is_api_path(req.path()) {
                    return crate::routes::not_found().await;
                }
                match actix_files::NamedFile::open_async(&index).await {
                    Ok(f) => f.into_response(&req),
                    Err(_) => crate::routes::not_found().await,
                }
            }
        }))
}

/// Paths that belong to the server, never to the web app: an unknown one
/// answers the envelope's 404, not the app's page.
pub fn is_api_path(path: &str) -> bool {
    ["/api", "/searchapi", "/files", "/s", "/log", "/ws"]
        .iter()
        .any(|p| path == *p || path.starts_with(&format!("{p}/")))
}

/// Without built assets the root says how to build them.
pub async fn no_web_app() -> HttpResponse {
    HttpResponse::Ok().content_type("text/plain; charset=utf-8").body(
        "Easel's API is running, but the web app is not built.\nRun ./scripts/run (it builds web/dist), or set EASEL_WEB_DIR.\n",
    )
}
