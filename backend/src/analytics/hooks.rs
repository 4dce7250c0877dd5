//! The one-line hooks where the funnel's server-side facts happen: an
//! account created (e-mail, phone or provider sign-up) and a generation
//! task accepted. (Payments call `Analytics::purchase` from the mall.)
//! Each carries the request, so the visitor hash of the device links the
//! visitor's earlier page views of the day to the new account, and the
//! request's `DNT`/`Sec-GPC` are honoured.

use actix_web::HttpRequest;
use protocol::analytics::{GENERATION, SIGN_UP};
use protocol::task::Action;
use serde_json::json;

use crate::state::AppState;
use crate::tasks::Requester;

/// An account was created by `method` (`email`, `phone`, `oidc`).
pub async fn sign_up(state: &AppState, req: &HttpRequest, account: &str, method: &str) {
    state
        .analytics
        .server_event(
            Some(req),
            Some(account),
            SIGN_UP,
            json!({ "method": method }),
        )
        .await;
}

/// A generation task was accepted (the funnel's first generation is a
/// person's earliest one after signing up).
pub async fn generation(state: &AppState, req: &HttpRequest, who: &Requester, action: Action) {
    let account = match who {
        Requester::Account(a) => Some(a.id.as_str()),
        Requester::Visitor { .. } => None,
    };
    state
        .analytics
        .server_event(
            Some(req),
            account,
            GENERATION,
            json!({ "action": i64::from(action.code()) }),
        )
        .await;
}
