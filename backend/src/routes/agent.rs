//! Generation-agent routes (spec 3 §7 "Gen-agent"):
//! `/api/v1/task/gen-agent/{conv/create, conv/history, convs,
//! prompt/preset-template, config}` and the event stream
//! `POST /api/stream/task/gen-agent/conv` (see `crate::agent`).

use actix_web::{web, HttpRequest, HttpResponse};
use protocol::agent::{
    AgentConfig, AgentModel, AgentStreamData, AgentStreamRequest, ConvCreateRequest, ConvCreated,
    ConvRef, Items, AGENT_MAX_RETRIES, AGENT_RETRY_DELAY_MS,
};
use protocol::ErrorCode;

use super::polish::stream_caller;
use crate::agent::reply;
use crate::auth::Authed;
use crate::error::{ok, ApiResult};
use crate::polish::sse;
use crate::state::AppState;

#[tracing::instrument(skip_all)]
pub async fn create(
    state: web::Data<AppState>,
    Authed(caller): Authed,
    body: Option<web::Json<ConvCreateRequest>>,
) -> ApiResult {
    let body = body.map(web::Json::into_inner).unwrap_or_default();
    let conv = state
        .agent
        .create(
            &caller.account.id,
            body.title.as_deref(),
            body.conv_type.as_ref(),
        )
        .await?;
    Ok(ok(ConvCreated { conv_id: conv.id }))
}

#[tracing::instrument(skip_all)]
pub async fn history(
    state: web::Data<AppState>,
    Authed(caller): Authed,
    body: web::Json<ConvRef>,
) -> ApiResult {
    let items = state
        .agent
        .history(&caller.account.id, body.conv_id.trim())
        .await?;
    Ok(ok(Items { items }))
}

#[tracing::instrument(skip_all)]
pub async fn convs(state: web::Data<AppState>, Authed(caller): Authed) -> ApiResult {
    let items = state.agent.list(&caller.account.id).await?;
    Ok(ok(Items { items }))
}

/// Starter templates; visitors may read them.
pub async fn presets(state: web::Data<AppState>) -> ApiResult {
    Ok(ok(Items {
        items: state.agent.presets(),
    }))
}

/// Client retry policy and the model answering; visitors may read it.
pub async fn config(state: web::Data<AppState>) -> ApiResult {
    let info = state.llm.info();
    Ok(ok(AgentConfig {
        retry_delay_ms: AGENT_RETRY_DELAY_MS,
        max_retries: AGENT_MAX_RETRIES,
        model: AgentModel {
            name: info.name,
            label: info.label,
            neural: info.neural,
            context_tokens: info.context_tokens,
        },
    }))
}

fn refusal(code: ErrorCode, msg: Option<String>) -> web::Bytes {
    sse::event(&sse::error_envelope(
        code,
        msg,
        AgentStreamData {
            done: true,
            ..AgentStreamData::default()
        },
    ))
}

/// `POST /api/stream/task/gen-agent/conv`: one turn as an event stream.
/// Refusals (login, bad body, unknown conversation) are one event, then the end.
#[tracing::instrument(skip_all)]
pub async fn stream(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Bytes,
) -> HttpResponse {
    let caller = match stream_caller(&req, &state, refusal).await {
        Ok(c) => c,
        Err(refused) => return refused,
    };
    if !state.agent.allow_turn(&caller.account.id).await {
        return sse::single(refusal(ErrorCode::TooManyRequests, None));
    }
    let request: AgentStreamRequest = match serde_json::from_slice(&body) {
        Ok(r) => r,
        Err(e) => return sse::single(refusal(ErrorCode::InvalidParams, Some(e.to_string()))),
    };
    // The text filter's prompt refusals (70020), before any work.
    let said = request
        .messages
        .iter()
        .flat_map(|m| m.parts.iter())
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(" ");
    if state.text_filter.refuses_prompt(&said) {
        return sse::single(refusal(ErrorCode::PromptViolatesRules, None));
    }
    let turn = match reply::prepare(
        &state.agent,
        state.llm.as_ref(),
        &caller.account.id,
        request,
    )
    .await
    {
        Ok(t) => t,
        Err(e) => return sse::single(refusal(e.code, e.msg)),
    };
    let (tx, rx) = sse::channel();
    actix_web::rt::spawn(reply::run(state.agent.clone(), state.llm.clone(), turn, tx));
    sse::streaming(rx)
}
