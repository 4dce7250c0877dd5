//! The "new sign-in" mail (issue 21): when an account that signed in before
//! signs in from a device or browser it never used (the `deviceId` cookie
//! of the sessions' device info), its owner gets a mail through the outbox,
//! in their stored language (else the browser's), naming the device and
//! address, with a link to the sessions page. Not sent for the first
//! sign-in after sign-up, without SMTP, or when the owner turned the
//! `sign_in` notification off in the notifications settings.

use actix_web::HttpRequest;

use super::mail_templates::{self, MailLocale};
use super::sessions::SessionMeta;
use super::AccountRow;
use crate::state::AppState;

/// Queues the mail (a failure is logged: the sign-in itself goes on).
pub async fn notify(st: &AppState, req: &HttpRequest, row: &AccountRow, meta: &SessionMeta) {
    if !st.mail.configured() || row.email.is_empty() {
        return;
    }
    let prefs = match st.security.prefs_row(&row.id).await {
        Ok(p) => p,
        Err(e) => {
            tracing::warn!(error = %e.code, "sign-in notice: preferences unreadable");
            return;
        }
    };
    if prefs.notify_off.iter().any(|k| k == "sign_in") {
        return;
    }
    let header = req
        .headers()
        .get(actix_web::http::header::ACCEPT_LANGUAGE)
        .and_then(|v| v.to_str().ok());
    let stored = Some(prefs.language.as_str()).filter(|l| !l.is_empty());
    let lang = MailLocale::pick(stored.or(header));
    let url = format!(
        "{}/{}/settings/security",
        st.mail.public_url().trim_end_matches('/'),
        lang.path()
    );
    let m = mail_templates::new_sign_in(lang, &meta.device, &meta.address, &url);
    if let Err(e) = st.mail.enqueue(&row.email, m.subject, m.text, m.html).await {
        tracing::warn!(error = %e.code, "sign-in notice: not queued");
    }
}
