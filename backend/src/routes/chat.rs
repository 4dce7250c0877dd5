//! Character chat family (spec 3 §2): `/api/v1/character/session/...`,
//! `/api/v1/character/quick-chat/...`, `/api/v1/character/reply/recommend`
//! and `/api/v1/character/message/polish`. Every call needs a logged-in
//! account with a complete profile, except `quick-chat/can-talk`, which
//! answers visitors `can_talk: false` with the reason "NeedLogin".

use super::api::{doc, Api};
use actix_web::{web, HttpRequest};
use protocol::character::ChatSettingsView;
use protocol::chat::{CanTalk, MessageView, SessionList, SessionView};
use protocol::chat::{
    CharacterRef, ChatStartRequest, ChatStarted, ChatStopped, ContentAnswer, DatacardBinding,
    DatacardIds, DatacardsEdit, DeleteAllAnswer, DeleteAllRequest, MessageEditRequest,
    MessageLikeRequest, MessageList, MessageListRequest, MessageRef, PolishRequest, QuickChatStart,
    QuickChatStarted, ReplySuggestions, SessionCreated, SessionEditRequest, SessionListRequest,
    SessionRef, TimbreSet,
};
use protocol::Empty;

use crate::auth::{optional_caller, Authed};
use crate::error::{ok, ApiResult};
use crate::state::AppState;

type Body<T> = web::Json<T>;
type State = web::Data<AppState>;

pub async fn create(a: Authed, s: State, b: Body<CharacterRef>) -> ApiResult {
    let session_id = s.chats.create(&a.0.account, &b.character_id).await?;
    Ok(ok(SessionCreated { session_id }))
}

pub async fn start(a: Authed, s: State, b: Body<ChatStartRequest>) -> ApiResult {
    let msg_id = s.chats.start(&a.0.account, &b).await?;
    Ok(ok(ChatStarted { msg_id }))
}

pub async fn stop(a: Authed, s: State, b: Body<SessionRef>) -> ApiResult {
    let stopped = s.chats.stop(&a.0.account.id, &b.session_id).await?;
    Ok(ok(ChatStopped { stopped }))
}

pub async fn list(a: Authed, s: State, b: Body<SessionListRequest>) -> ApiResult {
    Ok(ok(s
        .chats
        .list(
            &a.0.account.id,
            b.character_id.as_deref().filter(|c| !c.is_empty()),
            b.limit,
            b.cursor.as_deref(),
        )
        .await?))
}

pub async fn messages(a: Authed, s: State, b: Body<MessageListRequest>) -> ApiResult {
    let items = s
        .chats
        .messages(&a.0.account.id, &b.session_id, b.limit, b.before_idx)
        .await?;
    Ok(ok(MessageList { items }))
}

pub async fn latest(a: Authed, s: State, b: Body<SessionRef>) -> ApiResult {
    Ok(ok(s.chats.latest(&a.0.account.id, &b.session_id).await?))
}

pub async fn edit_message(a: Authed, s: State, b: Body<MessageEditRequest>) -> ApiResult {
    Ok(ok(s
        .chats
        .edit_message(&a.0.account.id, &b.session_id, &b.msg_id, &b.content)
        .await?))
}

pub async fn delete_message(a: Authed, s: State, b: Body<MessageRef>) -> ApiResult {
    s.chats
        .delete_message(&a.0.account.id, &b.session_id, &b.msg_id)
        .await?;
    Ok(ok(Empty {}))
}

pub async fn like(a: Authed, s: State, b: Body<MessageLikeRequest>) -> ApiResult {
    s.chats
        .like(&a.0.account.id, &b.session_id, &b.msg_id, b.like)
        .await?;
    Ok(ok(Empty {}))
}

pub async fn copy(a: Authed, s: State, b: Body<MessageRef>) -> ApiResult {
    let content = s
        .chats
        .copy(&a.0.account.id, &b.session_id, &b.msg_id)
        .await?;
    Ok(ok(ContentAnswer { content }))
}

pub async fn edit(a: Authed, s: State, b: Body<SessionEditRequest>) -> ApiResult {
    let settings: Option<&ChatSettingsView> = b.settings.as_ref();
    Ok(ok(s
        .chats
        .edit(&a.0.account.id, &b.session_id, b.title.as_deref(), settings)
        .await?))
}

pub async fn delete(a: Authed, s: State, b: Body<SessionRef>) -> ApiResult {
    s.chats.delete(&a.0.account.id, &b.session_id).await?;
    Ok(ok(Empty {}))
}

pub async fn delete_all(a: Authed, s: State, b: Body<DeleteAllRequest>) -> ApiResult {
    let character = b.character_id.as_deref().filter(|c| !c.is_empty());
    let deleted = s.chats.delete_all(&a.0.account.id, character).await?;
    Ok(ok(DeleteAllAnswer { deleted }))
}

pub async fn bind_datacard(a: Authed, s: State, b: Body<DatacardBinding>) -> ApiResult {
    let datacard_ids = s
        .chats
        .bind_datacard(&a.0.account.id, &b.session_id, &b.datacard_id)
        .await?;
    Ok(ok(DatacardIds { datacard_ids }))
}

pub async fn edit_datacards(a: Authed, s: State, b: Body<DatacardsEdit>) -> ApiResult {
    let datacard_ids = s
        .chats
        .edit_datacards(&a.0.account.id, &b.session_id, &b.datacard_ids)
        .await?;
    Ok(ok(DatacardIds { datacard_ids }))
}

pub async fn remove_datacard(a: Authed, s: State, b: Body<DatacardBinding>) -> ApiResult {
    let datacard_ids = s
        .chats
        .remove_datacard(&a.0.account.id, &b.session_id, &b.datacard_id)
        .await?;
    Ok(ok(DatacardIds { datacard_ids }))
}

pub async fn set_timbre(a: Authed, s: State, b: Body<TimbreSet>) -> ApiResult {
    s.chats
        .set_timbre(&a.0.account.id, &b.session_id, &b.timbre_id)
        .await?;
    Ok(ok(Empty {}))
}

pub async fn can_talk(req: HttpRequest, s: State, b: Body<CharacterRef>) -> ApiResult {
    let caller = optional_caller(&req, &s).await?;
    Ok(ok(s
        .chats
        .can_talk(caller.as_ref().map(|c| &c.account), &b.character_id)
        .await))
}

pub async fn quick_start(a: Authed, s: State, b: Body<QuickChatStart>) -> ApiResult {
    let (session_id, msg_id) = s
        .chats
        .quick_start(&a.0.account, &b.character_id, &b.content)
        .await?;
    Ok(ok(QuickChatStarted { session_id, msg_id }))
}

pub async fn progress(a: Authed, s: State, b: Body<MessageRef>) -> ApiResult {
    Ok(ok(s
        .chats
        .progress(&a.0.account.id, &b.session_id, &b.msg_id)
        .await?))
}

pub async fn recommend(a: Authed, s: State, b: Body<SessionRef>) -> ApiResult {
    let items = s.chats.recommend(&a.0.account, &b.session_id).await?;
    Ok(ok(ReplySuggestions { items }))
}

pub async fn polish(a: Authed, s: State, b: Body<PolishRequest>) -> ApiResult {
    let content = s
        .chats
        .polish(&a.0.account, b.session_id.as_deref(), &b.content)
        .await?;
    Ok(ok(ContentAnswer { content }))
}

/// The chat routes, inside the `/api/v1` scope. Registered one by one
/// (and `/character/session` as its own scope) because `/character/...`
/// also holds the characters family's routes.
pub fn config(api: &mut Api) {
    api.scope("/character/session", |api| {
        api.post(
            "/create",
            create,
            doc("Start a chat session with a character")
                .body::<CharacterRef>()
                .reply::<SessionCreated>(),
        )
        .post(
            "/chat/start",
            start,
            doc("Send a message; the reply streams as socket frames 11")
                .body::<ChatStartRequest>()
                .reply::<ChatStarted>(),
        )
        .post(
            "/chat/stop",
            stop,
            doc("Stop the reply being written")
                .body::<SessionRef>()
                .reply::<ChatStopped>(),
        )
        .post(
            "/list",
            list,
            doc("The caller's chat sessions")
                .body::<SessionListRequest>()
                .reply::<SessionList>(),
        )
        .post(
            "/message/list",
            messages,
            doc("A chat session's messages")
                .body::<MessageListRequest>()
                .reply::<MessageList>(),
        )
        .post(
            "/message/edit",
            edit_message,
            doc("Edit a chat message")
                .body::<MessageEditRequest>()
                .reply::<MessageView>(),
        )
        .post(
            "/message/delete",
            delete_message,
            doc("Delete a chat message")
                .body::<MessageRef>()
                .reply::<Empty>(),
        )
        .post(
            "/message/like",
            like,
            doc("Like or unlike a chat reply")
                .body::<MessageLikeRequest>()
                .reply::<Empty>(),
        )
        .post(
            "/message/copy_idx",
            copy,
            doc("Record that a reply was copied")
                .body::<MessageRef>()
                .reply::<ContentAnswer>(),
        )
        .post(
            "/edit",
            edit,
            doc("Edit a chat session")
                .body::<SessionEditRequest>()
                .reply::<SessionView>(),
        )
        .post(
            "/delete",
            delete,
            doc("Delete a chat session")
                .body::<SessionRef>()
                .reply::<Empty>(),
        )
        .post(
            "/delete-all",
            delete_all,
            doc("Delete every chat session of the caller")
                .body::<DeleteAllRequest>()
                .reply::<DeleteAllAnswer>(),
        )
        .post(
            "/bind-datacard",
            bind_datacard,
            doc("Bind a data card to a chat session")
                .body::<DatacardBinding>()
                .reply::<DatacardIds>(),
        )
        .post(
            "/edit-datacard",
            edit_datacards,
            doc("Change a chat session's data cards")
                .body::<DatacardsEdit>()
                .reply::<DatacardIds>(),
        )
        .post(
            "/remove-datacard",
            remove_datacard,
            doc("Remove a data card from a chat session")
                .body::<DatacardBinding>()
                .reply::<DatacardIds>(),
        )
        .post(
            "/timbre/set",
            set_timbre,
            doc("Set the voice a chat session's replies are spoken with")
                .body::<TimbreSet>()
                .reply::<Empty>(),
        )
        .post(
            "/msg/latest_state_info",
            latest,
            doc("The latest state of a chat session's reply")
                .body::<SessionRef>()
                .reply::<MessageView>(),
        );
    })
    .post(
        "/character/quick-chat/start",
        quick_start,
        doc("Start a quick chat with a character")
            .body::<QuickChatStart>()
            .reply::<QuickChatStarted>(),
    )
    .post(
        "/character/quick-chat/task/progress",
        progress,
        doc("Progress of a quick chat's reply")
            .body::<MessageRef>()
            .reply::<MessageView>(),
    )
    .post(
        "/character/quick-chat/can-talk",
        can_talk,
        doc("Whether the caller may quick-chat now")
            .body::<CharacterRef>()
            .reply::<CanTalk>(),
    )
    .post(
        "/character/reply/recommend",
        recommend,
        doc("Proposed replies for the caller in a chat")
            .body::<SessionRef>()
            .reply::<ReplySuggestions>(),
    )
    .post(
        "/character/message/polish",
        polish,
        doc("Polish the caller's draft chat message")
            .body::<PolishRequest>()
            .reply::<ContentAnswer>(),
    );
}
