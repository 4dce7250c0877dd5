//! Comments family (spec 3 §7 Comments): `comment2/create`, `list`, `like`,
//! `delete`, `add-replies`, `replies-list`, `emoji/list`, and the earlier
//! `comment/add`, `list`, `add-replies`, `replies-list` calls.
//!
//! Visitors (no token) may list comments and the emoji table; writing,
//! liking and deleting need a logged-in account with a complete profile
//! (20000 NeedLogin otherwise).

use super::api::{doc, Api};
use actix_web::{web, HttpRequest};
use protocol::character::IdAnswer;
use protocol::square::comment::{CommentLikeAnswer, CommentPage, EmojiList};
use protocol::square::comment::{CommentRef, CreateCommentRequest, EmojiItem, ListCommentsRequest};
use protocol::{Empty, ErrorCode};

use crate::auth::{optional_caller, Authed};
use crate::comments::emoji;
use crate::error::{ok, ApiError, ApiResult};
use crate::state::AppState;

type Body<T> = web::Json<T>;
type State = web::Data<AppState>;

/// Registers the family under `/api/v1`.
pub fn routes(api: &mut Api) {
    for prefix in ["/comment2", "/comment"] {
        api.scope(prefix, |api| {
            api.post(
                "/create",
                create,
                doc("Comment on an object")
                    .body::<CreateCommentRequest>()
                    .reply::<IdAnswer>(),
            )
            .post(
                "/add",
                create,
                doc("Comment on an object (older path)")
                    .body::<CreateCommentRequest>()
                    .reply::<IdAnswer>(),
            )
            .post(
                "/add-replies",
                add_reply,
                doc("Reply to a comment")
                    .body::<CreateCommentRequest>()
                    .reply::<IdAnswer>(),
            )
            .post(
                "/list",
                list,
                doc("An object's comments")
                    .body::<ListCommentsRequest>()
                    .reply::<CommentPage>(),
            )
            .post(
                "/replies-list",
                replies_list,
                doc("A comment's replies")
                    .body::<ListCommentsRequest>()
                    .reply::<CommentPage>(),
            )
            .post(
                "/like",
                like,
                doc("Like or unlike a comment")
                    .body::<CommentRef>()
                    .reply::<CommentLikeAnswer>(),
            )
            .post(
                "/delete",
                delete,
                doc("Delete one of the caller's comments")
                    .body::<CommentRef>()
                    .reply::<Empty>(),
            )
            .post(
                "/emoji/list",
                emoji_list,
                doc("The emoji comments may use").reply::<EmojiList>(),
            )
            .get(
                "/emoji/list",
                emoji_list,
                doc("The emoji comments may use").reply::<EmojiList>(),
            );
        });
    }
}

/// The caller's account id when a token is sent (a bad token is
/// NeedLogin), `None` for a visitor.
async fn viewer(req: &HttpRequest, s: &AppState) -> Result<Option<String>, ApiError> {
    Ok(optional_caller(req, s).await?.map(|c| c.account.id))
}

pub async fn create(a: Authed, s: State, b: Body<CreateCommentRequest>) -> ApiResult {
    let mut b = b.into_inner();
    s.text_filter.clean(&mut b)?;
    let id = s.comments.create(&a.0.account.id, &b).await?;
    Ok(ok(IdAnswer { id }))
}

/// `add-replies`: a create that must name the comment it answers.
pub async fn add_reply(a: Authed, s: State, b: Body<CreateCommentRequest>) -> ApiResult {
    if b.parent_id.as_deref().is_none_or(|p| p.trim().is_empty()) {
        return Err(ApiError::with_msg(
            ErrorCode::InvalidParams,
            "parent_id is needed",
        ));
    }
    let mut b = b.into_inner();
    s.text_filter.clean(&mut b)?;
    let id = s.comments.create(&a.0.account.id, &b).await?;
    Ok(ok(IdAnswer { id }))
}

pub async fn list(req: HttpRequest, s: State, b: Body<ListCommentsRequest>) -> ApiResult {
    let who = viewer(&req, &s).await?;
    Ok(ok(s.comments.list(who.as_deref(), &b).await?))
}

pub async fn replies_list(req: HttpRequest, s: State, b: Body<ListCommentsRequest>) -> ApiResult {
    let who = viewer(&req, &s).await?;
    Ok(ok(s.comments.replies_list(who.as_deref(), &b).await?))
}

pub async fn like(a: Authed, s: State, b: Body<CommentRef>) -> ApiResult {
    Ok(ok(s
        .comments
        .like(&a.0.account.id, &b.id, b.cancel)
        .await?))
}

pub async fn delete(a: Authed, s: State, b: Body<CommentRef>) -> ApiResult {
    s.comments.delete(&a.0.account.id, &b.id).await?;
    Ok(ok(Empty {}))
}

/// The table as `EmojiList` on the wire, without copying it.
#[derive(serde::Serialize)]
struct EmojiTable {
    items: &'static [EmojiItem],
}

pub async fn emoji_list() -> ApiResult {
    Ok(ok(EmojiTable {
        items: emoji::table(),
    }))
}
