//! The tavern's side calls (spec 3 §7 "Characters and chat"): the model
//! list, the weekly hot list, reporting a character, the chat persona, the
//! editor's draft preview, avatar image prompts, and the operators' report
//! list and unpublish.
//!
//! Visitors may read the model list and the hot list (a bad token is still
//! NeedLogin); everything else needs a logged-in account; the two `admin`
//! calls need an operator (an e-mail in the `admins` setting), else
//! NoPermission.

use super::api::{doc, Api};
use actix_web::{web, HttpRequest};
use protocol::character::{Items, LimitRequest, ListAnswer};
use protocol::character_extras::{
    CharacterIdRequest, ModelListItem, PersonaUpdate, PreviewRequest, ReportListRequest,
    UnpublishRequest,
};
use protocol::ErrorCode;

use crate::auth::{optional_caller, Authed};
use crate::characters::preview;
use crate::error::{ok, ApiError, ApiResult};
use crate::state::AppState;

type Body<T> = web::Json<T>;
type State = web::Data<AppState>;

/// The routes under `/api/v1` outside the `/account` and `/admin` scopes
/// (those are registered in the route table's scopes: [`persona_get`],
/// [`persona_update`], [`admin_reports`], [`admin_unpublish`]).
pub fn routes(api: &mut Api) {
    api.post(
        "/character/model_list",
        model_list,
        doc("The chat models a character can use").reply::<Items<ModelListItem>>(),
    )
    .get(
        "/character/model_list",
        model_list,
        doc("The chat models a character can use").reply::<Items<ModelListItem>>(),
    )
    .post(
        "/tavern-pro/model-list/v2",
        model_list,
        doc("The chat models a character can use (v2 path)").reply::<Items<ModelListItem>>(),
    )
    .get(
        "/tavern-pro/model-list/v2",
        model_list,
        doc("The chat models a character can use (v2 path)").reply::<Items<ModelListItem>>(),
    )
    .post(
        "/character/chat/recommend_hot",
        recommend_hot,
        doc("Hot characters to chat with")
            .body::<LimitRequest>()
            .reply::<Items<protocol::character_extras::HotCard>>(),
    )
    .post(
        "/tavern-pro/preview/list",
        preview_list,
        doc("Preview pictures for the character editor")
            .body::<PreviewRequest>()
            .reply::<Items<protocol::character_extras::PreviewItem>>(),
    )
    .post(
        "/character/agent/recommend_promot",
        image_prompts,
        doc("Picture prompts proposed for a character")
            .body::<CharacterIdRequest>()
            .reply::<Items<String>>(),
    );
}

/// `character/model_list`, `tavern-pro/model-list/v2`: the one configured model.
pub async fn model_list(req: HttpRequest, s: State) -> ApiResult {
    optional_caller(&req, &s).await?;
    let m = s.llm.info();
    Ok(ok(Items {
        items: vec![ModelListItem {
            name: m.name,
            label: m.label,
            neural: m.neural,
            context_tokens: m.context_tokens,
            default: true,
        }],
    }))
}

pub async fn recommend_hot(req: HttpRequest, s: State, b: Body<LimitRequest>) -> ApiResult {
    optional_caller(&req, &s).await?;
    Ok(ok(Items {
        items: s.characters.recommend_hot(b.limit).await?,
    }))
}

pub async fn persona_get(a: Authed, s: State) -> ApiResult {
    Ok(ok(s.characters.persona(&a.0.account).await?))
}

pub async fn persona_update(a: Authed, s: State, b: Body<PersonaUpdate>) -> ApiResult {
    Ok(ok(s.characters.update_persona(&a.0.account, &b).await?))
}

pub async fn preview_list(a: Authed, s: State, b: Body<PreviewRequest>) -> ApiResult {
    preview::check(&b).map_err(|e| ApiError::with_msg(ErrorCode::InvalidParams, e.to_string()))?;
    let user = s.characters.chat_user(&a.0.account).await?;
    Ok(ok(Items {
        items: preview::preview(&b, &user.name),
    }))
}

pub async fn image_prompts(a: Authed, s: State, b: Body<CharacterIdRequest>) -> ApiResult {
    let items = s.chats.image_prompts(&a.0.account, &b.character_id).await?;
    Ok(ok(Items { items }))
}

use super::require_operator as operator;

/// `admin/character/reports`.
pub async fn admin_reports(a: Authed, s: State, b: Body<ReportListRequest>) -> ApiResult {
    operator(&s, &a)?;
    let (items, cursor) = s.characters.reports(&b).await?;
    Ok(ok(ListAnswer { items, cursor }))
}

/// `admin/character/unpublish`: whether it was published before.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct Unpublished {
    pub was_published: bool,
}

/// `admin/character/unpublish`.
#[tracing::instrument(skip_all, fields(character = %b.character_id))]
pub async fn admin_unpublish(a: Authed, s: State, b: Body<UnpublishRequest>) -> ApiResult {
    operator(&s, &a)?;
    let was_published = s.characters.unpublish(&a.0.account.id, &b).await?;
    s.square
        .search_character(&s.characters, &b.character_id)
        .await;
    Ok(ok(Unpublished { was_published }))
}
