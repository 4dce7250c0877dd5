//! IM family (spec 3 §7): channels (`/api/v1/im/channel/...`), history and
//! messages (`/api/v1/im/history`, `/api/v1/im/message/...`). Every call
//! needs a logged-in account with a complete profile.

use super::api::{doc, Api};
use actix_web::web;
use protocol::im::{ChannelInfo, ChannelView, HistoryAnswer, UnreadItem, UnreadRecord};
use protocol::im::{
    ChannelList, ChannelRef, CreateChannelAnswer, CreateChannelRequest, EditChannelRequest,
    HistoryRequest, JoinRequest, MemberList, MemberRequest, ReadRequest, SendAnswer, SendRequest,
    SetRoleRequest,
};
use protocol::Empty;

use crate::auth::Authed;
use crate::error::{ok, ApiResult};
use crate::state::AppState;

type Body<T> = web::Json<T>;

pub async fn create(a: Authed, s: web::Data<AppState>, b: Body<CreateChannelRequest>) -> ApiResult {
    let mut b = b.into_inner();
    s.text_filter.clean(&mut b)?;
    let v = s.channels.create(&a.0.account, &b.name, b.private).await?;
    Ok(ok(CreateChannelAnswer {
        channel_id: v.channel_id,
        invite_code: v.invite_code,
    }))
}

pub async fn edit(a: Authed, s: web::Data<AppState>, b: Body<EditChannelRequest>) -> ApiResult {
    let mut b = b.into_inner();
    s.text_filter.clean(&mut b)?;
    let v = s
        .channels
        .edit(&a.0.account.id, &b.channel_id, b.name.as_deref(), b.private)
        .await?;
    Ok(ok(v))
}

pub async fn disband(a: Authed, s: web::Data<AppState>, b: Body<ChannelRef>) -> ApiResult {
    s.channels.disband(&a.0.account.id, &b.channel_id).await?;
    Ok(ok(Empty {}))
}

pub async fn joined(a: Authed, s: web::Data<AppState>) -> ApiResult {
    let items = s.channels.joined(&a.0.account.id).await?;
    Ok(ok(ChannelList { items }))
}

pub async fn detail(a: Authed, s: web::Data<AppState>, b: Body<ChannelRef>) -> ApiResult {
    Ok(ok(s
        .channels
        .detail(&a.0.account.id, &b.channel_id)
        .await?))
}

pub async fn info(a: Authed, s: web::Data<AppState>, b: Body<ChannelRef>) -> ApiResult {
    Ok(ok(s.channels.info(&a.0.account.id, &b.channel_id).await?))
}

pub async fn members(a: Authed, s: web::Data<AppState>, b: Body<ChannelRef>) -> ApiResult {
    let items = s.channels.members(&a.0.account.id, &b.channel_id).await?;
    Ok(ok(MemberList { items }))
}

pub async fn quit(a: Authed, s: web::Data<AppState>, b: Body<ChannelRef>) -> ApiResult {
    s.channels.quit(&a.0.account.id, &b.channel_id).await?;
    Ok(ok(Empty {}))
}

pub async fn join(a: Authed, s: web::Data<AppState>, b: Body<JoinRequest>) -> ApiResult {
    Ok(ok(s.channels.join(&a.0.account.id, &b.invite_code).await?))
}

pub async fn kick_out(a: Authed, s: web::Data<AppState>, b: Body<MemberRequest>) -> ApiResult {
    s.channels
        .kick_out(&a.0.account.id, &b.channel_id, &b.account_id)
        .await?;
    Ok(ok(Empty {}))
}

pub async fn set_role(a: Authed, s: web::Data<AppState>, b: Body<SetRoleRequest>) -> ApiResult {
    s.channels
        .set_role(&a.0.account.id, &b.channel_id, &b.account_id, b.role)
        .await?;
    Ok(ok(Empty {}))
}

pub async fn history(a: Authed, s: web::Data<AppState>, b: Body<HistoryRequest>) -> ApiResult {
    let h = s
        .channels
        .history(&a.0.account.id, &b.channel_id, b.limit, b.before_seq)
        .await?;
    Ok(ok(h))
}

pub async fn send(a: Authed, s: web::Data<AppState>, b: Body<SendRequest>) -> ApiResult {
    let mut b = b.into_inner();
    s.text_filter.clean(&mut b)?;
    let m = s
        .channels
        .send(
            &a.0.account,
            &b.channel_id,
            b.kind,
            b.content.as_deref(),
            b.task_id.as_deref(),
        )
        .await?;
    Ok(ok(SendAnswer { seq: m.seq }))
}

pub async fn unread(a: Authed, s: web::Data<AppState>) -> ApiResult {
    Ok(ok(s.channels.unread(&a.0.account.id).await?))
}

pub async fn read(a: Authed, s: web::Data<AppState>, b: Body<ReadRequest>) -> ApiResult {
    Ok(ok(s
        .channels
        .read(&a.0.account.id, &b.channel_id, b.seq)
        .await?))
}

pub async fn all_read(a: Authed, s: web::Data<AppState>) -> ApiResult {
    Ok(ok(s.channels.all_read(&a.0.account.id).await?))
}

/// The IM routes, mounted under `/api/v1/im`.
pub fn routes(api: &mut Api) {
    api.scope("/im", |api| {
        api.scope("/channel", |api| {
            api.post(
                "/create",
                create,
                doc("Create a channel")
                    .body::<CreateChannelRequest>()
                    .reply::<CreateChannelAnswer>(),
            )
            .post(
                "/edit",
                edit,
                doc("Edit a channel")
                    .body::<EditChannelRequest>()
                    .reply::<ChannelView>(),
            )
            .post(
                "/disband",
                disband,
                doc("Disband a channel")
                    .body::<ChannelRef>()
                    .reply::<Empty>(),
            )
            .post(
                "/joined/list",
                joined,
                doc("The channels the caller joined").reply::<ChannelList>(),
            )
            .post(
                "/detail",
                detail,
                doc("A channel's details")
                    .body::<ChannelRef>()
                    .reply::<ChannelView>(),
            )
            .post(
                "/info",
                info,
                doc("A channel's public information")
                    .body::<ChannelRef>()
                    .reply::<ChannelInfo>(),
            )
            .post(
                "/members",
                members,
                doc("A channel's members")
                    .body::<ChannelRef>()
                    .reply::<MemberList>(),
            )
            .post(
                "/quit",
                quit,
                doc("Leave a channel").body::<ChannelRef>().reply::<Empty>(),
            )
            .post(
                "/join",
                join,
                doc("Join a channel by invite code")
                    .body::<JoinRequest>()
                    .reply::<ChannelView>(),
            )
            .post(
                "/kick-out",
                kick_out,
                doc("Remove a member from a channel")
                    .body::<MemberRequest>()
                    .reply::<Empty>(),
            )
            .post(
                "/role",
                set_role,
                doc("Set a member's role in a channel")
                    .body::<SetRoleRequest>()
                    .reply::<Empty>(),
            );
        })
        .post(
            "/history",
            history,
            doc("A channel's messages before a sequence number")
                .body::<HistoryRequest>()
                .reply::<HistoryAnswer>(),
        )
        .scope("/message", |api| {
            api.post(
                "/send",
                send,
                doc("Send a message to a channel")
                    .body::<SendRequest>()
                    .reply::<SendAnswer>(),
            )
            .post(
                "/unread-record",
                unread,
                doc("The caller's unread counts per channel").reply::<UnreadRecord>(),
            )
            .post(
                "/read",
                read,
                doc("Mark a channel read up to a message")
                    .body::<ReadRequest>()
                    .reply::<UnreadItem>(),
            )
            .post(
                "/all-read",
                all_read,
                doc("Mark every channel read").reply::<UnreadRecord>(),
            );
        });
    });
}
