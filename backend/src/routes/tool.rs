//! Task tools (spec 1 §7 "Random prompt"): `/tool/prompt/rand` answers a
//! random prompt for `art_model_no` in `data.local`. It never fails: a bad
//! or empty body, an unknown model or any fault answers success with an
//! empty prompt, as the spec's client swallows errors anyway.

use actix_web::web;
use serde_json::{json, Value};

use crate::error::{ok, ApiResult};
use crate::state::AppState;

/// `art_model_no` from any body: a string or a number, else empty.
fn model_of(body: &[u8]) -> String {
    match serde_json::from_slice::<Value>(body) {
        Ok(v) => match v.get("art_model_no") {
            Some(Value::String(s)) => s.trim().to_owned(),
            Some(Value::Number(n)) => n.to_string(),
            _ => String::new(),
        },
        Err(_) => String::new(),
    }
}

pub async fn random_prompt(state: web::Data<AppState>, body: web::Bytes) -> ApiResult {
    let model = model_of(&body);
    let prompts = state.into_inner();
    let made = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        prompts.prompts.random(&model)
    }));
    Ok(match made {
        Ok((local, negative, flavour)) => ok(json!({
            "local": local,
            "negative": negative,
            "flavour": flavour,
            "art_model_no": model,
        })),
        Err(_) => {
            tracing::error!(model, "random prompt failed; answering an empty prompt");
            ok(json!({ "local": "", "negative": "", "flavour": null, "art_model_no": model }))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_from_any_body() {
        assert_eq!(model_of(br#"{"art_model_no":" flux-dev "}"#), "flux-dev");
        assert_eq!(model_of(br#"{"art_model_no":12}"#), "12");
        assert_eq!(model_of(br#"{"art_model_no":null}"#), "");
        assert_eq!(model_of(b""), "");
        assert_eq!(model_of(b"not json"), "");
        assert_eq!(model_of(b"[1,2]"), "");
    }
}
