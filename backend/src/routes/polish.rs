//! Prompt polish streams (spec 1 §7, spec 3 §7): `GET
//! /api/v1/task/prompt-render?prompt=...` (headers `token`, `language`,
//! `deviceid`) and `GET /api/stream/tool/prompt/text?prompt=...&style=...`
//! (headers `token`, `Accept-Language`). The rules and events are in
//! `crate::polish`.

use std::collections::HashMap;

use actix_web::{web, HttpRequest, HttpResponse};
use protocol::account::status;
use protocol::ErrorCode;

use crate::accounts::Caller;
use crate::auth::token_of;
use crate::polish::{self, sse, PolishInput};
use crate::state::AppState;

/// The logged-in caller of an event stream, or the one-event refusal to
/// answer (streams answer errors as events, not as HTTP errors, because
/// the spec's clients read codes from the stream only).
pub(crate) async fn stream_caller(
    req: &HttpRequest,
    state: &AppState,
    refusal: impl Fn(ErrorCode, Option<String>) -> web::Bytes,
) -> Result<Caller, HttpResponse> {
    let Some(token) = token_of(req) else {
        return Err(sse::single(refusal(ErrorCode::NeedLogin, None)));
    };
    match state.accounts.authenticate(&token).await {
        Ok(Some(c)) if c.account.status == status::INCOMPLETE => {
            Err(sse::single(refusal(ErrorCode::ProfileIncomplete, None)))
        }
        Ok(Some(c)) => Ok(c),
        Ok(None) => Err(sse::single(refusal(ErrorCode::NeedLogin, None))),
        Err(e) => Err(sse::single(refusal(e.code, e.msg))),
    }
}

fn param(query: &HashMap<String, String>, names: &[&str]) -> Option<String> {
    names
        .iter()
        .find_map(|n| query.get(*n))
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty())
}

/// The polish input from the query. `prompt` may itself be the spec's
/// "prompt object" as JSON (`{"prompt": "...", "style": "..."}`); separate
/// query parameters fill what it leaves out.
pub fn input_of(query: &HashMap<String, String>) -> PolishInput {
    let mut input = PolishInput {
        idea: param(query, &["prompt", "text"]).unwrap_or_default(),
        style: param(query, &["style"]),
        negative: param(query, &["negative_prompt", "negative"]),
        model: param(query, &["model", "base_model", "art_model_no"]),
    };
    if input.idea.starts_with('{') {
        if let Ok(serde_json::Value::Object(obj)) = serde_json::from_str(&input.idea) {
            let field = |names: &[&str]| {
                names
                    .iter()
                    .find_map(|n| obj.get(*n).and_then(|v| v.as_str()))
                    .map(|s| s.trim().to_owned())
                    .filter(|s| !s.is_empty())
            };
            input.idea = field(&["prompt", "text"]).unwrap_or_default();
            input.style = field(&["style"]).or(input.style);
            input.negative = field(&["negative_prompt", "negative"]).or(input.negative);
            input.model = field(&["model", "base_model", "art_model_no"]).or(input.model);
        }
    }
    input
}

/// Both polish routes: checks, then the stream.
#[tracing::instrument(skip_all)]
pub async fn polish(
    req: HttpRequest,
    state: web::Data<AppState>,
    query: web::Query<HashMap<String, String>>,
) -> HttpResponse {
    let caller = match stream_caller(&req, &state, polish::refusal).await {
        Ok(c) => c,
        Err(refused) => return refused,
    };
    let input = input_of(&query);
    if input.idea.is_empty() {
        let msg = "the prompt is empty".to_owned();
        return sse::single(polish::refusal(ErrorCode::InvalidParams, Some(msg)));
    }
    if input.idea.chars().count() > polish::MAX_IDEA_CHARS {
        let msg = format!(
            "the prompt is longer than {} characters",
            polish::MAX_IDEA_CHARS
        );
        return sse::single(polish::refusal(ErrorCode::InvalidParams, Some(msg)));
    }
    let text = input.all_text();
    if state.text_filter.refuses_prompt(&text) {
        return sse::single(polish::refusal(ErrorCode::PromptViolatesRules, None));
    }
    let guard = match state.polish.begin(&caller.account.id).await {
        Ok(g) => g,
        Err(code) => return sse::single(polish::refusal(code, None)),
    };
    let (tx, rx) = sse::channel();
    actix_web::rt::spawn(polish::run(
        state.llm.clone(),
        input,
        guard,
        tx,
        Some(state.text_filter.clone()),
    ));
    sse::streaming(rx)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn input_from_plain_parameters_and_from_a_prompt_object() {
        let i = input_of(&q(&[("prompt", " a cat "), ("style", "anime")]));
        assert_eq!(i.idea, "a cat");
        assert_eq!(i.style.as_deref(), Some("anime"));
        let i = input_of(&q(&[
            ("prompt", r#"{"prompt":"a dog","negative_prompt":"blur"}"#),
            ("style", "oil"),
        ]));
        assert_eq!(i.idea, "a dog");
        assert_eq!(i.negative.as_deref(), Some("blur"));
        assert_eq!(i.style.as_deref(), Some("oil"));
        assert_eq!(input_of(&q(&[])).idea, "");
    }
}
