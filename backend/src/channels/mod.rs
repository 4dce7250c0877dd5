//! IM channels (spec 3 §7): creating, editing and disbanding channels,
//! membership by invite code with owner/admin/member roles, messages with a
//! per-channel sequence (through the `ChannelActor`), history, unread
//! state, and the hooks that let a task created in a channel be seen by
//! every member (`relay_task`, `post_task_result`).
//!
//! Checks are in one order everywhere: a missing or disbanded channel is
//! NotFound, and so is a channel the caller is not a member of (another
//! account's object answers exactly like a missing one); a member whose
//! role does not allow the call gets NoPermission.

pub mod actor;
pub mod row;

use std::sync::Arc;

use infra::bus::{DynBus, PushContent};
use infra::store::{tables, DynStore, Key, ScanRange, Table};
use protocol::frame::FrameType;
use protocol::im::{
    ChannelInfo, ChannelView, HistoryAnswer, ImMessage, MemberView, MessageKind, Role, SharedTask,
    UnreadItem, UnreadRecord, MAX_CHANNEL_NAME_CHARS, MAX_HISTORY_LIMIT, MAX_MESSAGE_CHARS,
};
use protocol::task::TaskStatus;
use protocol::ErrorCode;
use rand::Rng;

use self::actor::{ChannelCore, ChannelOp, ChannelRegistry, OpOut};
use self::row::{ChannelRow, MemberRow};
use crate::accounts::{now_millis, AccountRow};
use crate::error::ApiError;
use crate::tasks::row::{Owner, TaskRow};

/// Length of an invite code (alphanumeric).
const INVITE_LEN: usize = 10;

fn invalid(msg: &str) -> ApiError {
    ApiError::with_msg(ErrorCode::InvalidParams, msg)
}

fn valid_name(name: &str) -> Result<String, ApiError> {
    let name = name.trim();
    let n = name.chars().count();
    if n == 0 || n > MAX_CHANNEL_NAME_CHARS || name.chars().any(char::is_control) {
        return Err(invalid("a channel name has 1 to 64 characters"));
    }
    Ok(name.to_owned())
}

fn new_invite_code() -> String {
    rand::rng()
        .sample_iter(rand::distr::Alphanumeric)
        .take(INVITE_LEN)
        .map(char::from)
        .collect()
}

#[derive(Clone)]
pub struct ChannelService {
    core: Arc<ChannelCore>,
    registry: ChannelRegistry,
    invites: Table<String>,
    joined: Table<()>,
    accounts: Table<AccountRow>,
    tasks: Table<TaskRow>,
    /// Messages moderators hid (`crate::moderation`).
    mod_states: Table<crate::moderation::rows::ModStateRow>,
}

impl ChannelService {
    pub fn new(store: DynStore, bus: DynBus) -> ChannelService {
        let core = Arc::new(ChannelCore {
            channels: Table::new(store.clone(), &tables::CHANNELS),
            members: Table::new(store.clone(), &tables::CHANNEL_MEMBERS),
            messages: Table::new(store.clone(), &tables::CHANNEL_MESSAGES),
            bus,
        });
        ChannelService {
            registry: ChannelRegistry::new(core.clone()),
            core,
            invites: Table::new(store.clone(), &tables::CHANNEL_BY_INVITE),
            joined: Table::new(store.clone(), &tables::CHANNELS_BY_ACCOUNT),
            accounts: Table::new(store.clone(), &tables::ACCOUNTS),
            tasks: Table::new(store.clone(), &tables::TASKS),
            mod_states: Table::new(store, &tables::MOD_STATES),
        }
    }

    async fn member_row(
        &self,
        channel: &str,
        account: &str,
    ) -> Result<Option<MemberRow>, ApiError> {
        Ok(self
            .core
            .members
            .get(&Key::of(channel), &Key::of(account))
            .await?)
    }

    /// The channel and the caller's membership: NotFound when the channel is
    /// missing, disbanded, or the caller is not a member (a stranger cannot
    /// tell someone else's channel from one that does not exist).
    pub async fn membership(
        &self,
        channel: &str,
        account: &str,
    ) -> Result<(ChannelRow, MemberRow), ApiError> {
        let c = self.core.channel(channel).await?;
        let m = self
            .member_row(channel, account)
            .await?
            .ok_or(ErrorCode::NotFound)?;
        Ok((c, m))
    }

    /// A member who manages the channel (owner or admin): NotFound for a
    /// stranger, NoPermission for a plain member.
    async fn manager(
        &self,
        channel: &str,
        account: &str,
    ) -> Result<(ChannelRow, MemberRow), ApiError> {
        let (c, m) = self.membership(channel, account).await?;
        if !m.role.manages() {
            return Err(ErrorCode::NoPermission.into());
        }
        Ok((c, m))
    }

    fn view(c: &ChannelRow, m: &MemberRow) -> ChannelView {
        ChannelView {
            channel_id: c.id.clone(),
            name: c.name.clone(),
            private: c.private,
            owner: c.owner.clone(),
            role: m.role,
            invite_code: c.invite_code.clone(),
            last_seq: c.last_seq,
            unread: c.last_seq.saturating_sub(m.read_seq),
            create_at: c.create_at,
        }
    }

    #[tracing::instrument(skip(self, owner))]
    pub async fn create(
        &self,
        owner: &AccountRow,
        name: &str,
        private: bool,
    ) -> Result<ChannelView, ApiError> {
        let name = valid_name(name)?;
        let id = uuid::Uuid::now_v7().simple().to_string();
        let mut invite_code = new_invite_code();
        // Codes are random; a collision (vanishingly rare) just draws again.
        for _ in 0..5 {
            match self
                .invites
                .insert_if_absent(&Key::of(&invite_code), &Key::empty(), &id)
                .await?
            {
                Ok(()) => break,
                Err(_) => invite_code = new_invite_code(),
            }
        }
        let now = now_millis();
        let c = ChannelRow {
            id: id.clone(),
            name,
            private,
            owner: owner.id.clone(),
            invite_code,
            create_at: now,
            last_seq: 0,
            disbanded: false,
        };
        self.core
            .channels
            .put(&Key::of(&id), &Key::empty(), &c)
            .await?;
        let m = MemberRow {
            role: Role::Owner,
            joined_at: now,
            read_seq: 0,
        };
        self.core
            .members
            .put(&Key::of(&id), &Key::of(&owner.id), &m)
            .await?;
        self.joined
            .put(&Key::of(&owner.id), &Key::of(&id), &())
            .await?;
        Ok(Self::view(&c, &m))
    }

    pub async fn edit(
        &self,
        who: &str,
        channel: &str,
        name: Option<&str>,
        private: Option<bool>,
    ) -> Result<ChannelView, ApiError> {
        let (c, m) = self.manager(channel, who).await?;
        let name = name.map(valid_name).transpose()?;
        let next = self
            .core
            .channels
            .update(&Key::of(channel), &Key::empty(), Some(c), |c| {
                if let Some(n) = &name {
                    c.name = n.clone();
                }
                if let Some(p) = private {
                    c.private = p;
                }
            })
            .await?
            .filter(|c| !c.disbanded)
            .ok_or(ErrorCode::NotFound)?;
        self.registry.notify(channel, ChannelOp::Reload).await;
        Ok(Self::view(&next, &m))
    }

    async fn member_ids(&self, channel: &str) -> Result<Vec<String>, ApiError> {
        Ok(self.core.member_roles(channel).await?.into_keys().collect())
    }

    /// Tells every member (and `also`, e.g. someone who just left) that the
    /// member list changed: a frame 13 `{kind: "channel.members", channel_id}`
    /// on each account's topic. It is a notification, not a channel
    /// message, so it takes no sequence number; a failure to read the
    /// member list only costs the live refresh, never the change itself.
    async fn members_changed(&self, channel: &str, also: &[&str]) {
        let mut to = match self.member_ids(channel).await {
            Ok(ids) => ids,
            Err(e) => {
                tracing::warn!(channel, error = ?e.code, "members notice skipped");
                Vec::new()
            }
        };
        to.extend(also.iter().map(|a| (*a).to_owned()));
        to.sort();
        to.dedup();
        self.notify_members(channel, &to).await;
    }

    async fn notify_members(&self, channel: &str, to: &[String]) {
        let content = PushContent::from_value(
            &serde_json::json!({"kind": "channel.members", "channel_id": channel}),
        );
        self.core
            .bus
            .push_to_users(to, FrameType::Notification.as_u16(), content)
            .await;
    }

    pub async fn disband(&self, who: &str, channel: &str) -> Result<(), ApiError> {
        let (c, _) = self.manager(channel, who).await?;
        let pk = Key::of(channel);
        self.core
            .channels
            .update(&pk, &Key::empty(), Some(c.clone()), |c| c.disbanded = true)
            .await?;
        self.registry.notify(channel, ChannelOp::Stop).await;
        self.invites
            .delete(&Key::of(&c.invite_code), &Key::empty())
            .await?;
        let members = self.member_ids(channel).await?;
        for m in &members {
            self.joined.delete(&Key::of(m), &pk).await?;
        }
        self.core.members.delete_partition(&pk).await?;
        self.core.messages.delete_partition(&pk).await?;
        // Former members drop the channel from their screens at once.
        self.notify_members(channel, &members).await;
        Ok(())
    }

    /// The caller's channels with unread counts, oldest joined first.
    pub async fn joined(&self, who: &str) -> Result<Vec<ChannelView>, ApiError> {
        let mut out = Vec::new();
        let mut paging = None;
        loop {
            let page = self
                .joined
                .scan(&Key::of(who), &ScanRange::all(200).after(paging))
                .await?;
            for (ck, ()) in page.rows {
                let Some(id) = ck.reader().str() else {
                    continue;
                };
                match self.membership(&id, who).await {
                    Ok((c, m)) => out.push(Self::view(&c, &m)),
                    Err(e) if e.code == ErrorCode::Internal || e.code == ErrorCode::Unavailable => {
                        return Err(e)
                    }
                    // A stale index entry (channel gone, or the membership ended).
                    Err(_) => {}
                }
            }
            match page.paging {
                Some(p) => paging = Some(p),
                None => break,
            }
        }
        out.sort_by_key(|v| v.create_at);
        Ok(out)
    }

    pub async fn detail(&self, who: &str, channel: &str) -> Result<ChannelView, ApiError> {
        let (c, m) = self.membership(channel, who).await?;
        Ok(Self::view(&c, &m))
    }

    pub async fn info(&self, who: &str, channel: &str) -> Result<ChannelInfo, ApiError> {
        let (c, _) = self.membership(channel, who).await?;
        Ok(ChannelInfo {
            channel_id: c.id,
            name: c.name,
            private: c.private,
        })
    }

    pub async fn members(&self, who: &str, channel: &str) -> Result<Vec<MemberView>, ApiError> {
        self.membership(channel, who).await?;
        let mut out = Vec::new();
        let mut paging = None;
        loop {
            let page = self
                .core
                .members
                .scan(&Key::of(channel), &ScanRange::all(200).after(paging))
                .await?;
            for (ck, m) in page.rows {
                let Some(id) = ck.reader().str() else {
                    continue;
                };
                let name = self
                    .accounts
                    .get(&Key::of(&id), &Key::empty())
                    .await?
                    .map(|a| a.name)
                    .unwrap_or_default();
                out.push(MemberView {
                    account_id: id,
                    name,
                    role: m.role,
                    joined_at: m.joined_at,
                });
            }
            match page.paging {
                Some(p) => paging = Some(p),
                None => break,
            }
        }
        out.sort_by(|a, b| (a.joined_at, &a.account_id).cmp(&(b.joined_at, &b.account_id)));
        Ok(out)
    }

    async fn remove(&self, channel: &str, account: &str) -> Result<(), ApiError> {
        self.core
            .members
            .delete(&Key::of(channel), &Key::of(account))
            .await?;
        self.joined
            .delete(&Key::of(account), &Key::of(channel))
            .await?;
        // The actor forgets the member before this call answers: nothing more reaches them.
        self.registry.notify(channel, ChannelOp::Reload).await;
        Ok(())
    }

    pub async fn quit(&self, who: &str, channel: &str) -> Result<(), ApiError> {
        let (_, m) = self.membership(channel, who).await?;
        if m.role == Role::Owner {
            return Err(invalid(
                "the owner cannot quit; disband the channel instead",
            ));
        }
        self.remove(channel, who).await?;
        self.members_changed(channel, &[who]).await;
        Ok(())
    }

    pub async fn join(&self, who: &str, invite_code: &str) -> Result<ChannelView, ApiError> {
        let code = invite_code.trim();
        if code.is_empty() || code.len() > 64 {
            return Err(invalid("invite_code is required"));
        }
        let id = self
            .invites
            .get(&Key::of(code), &Key::empty())
            .await?
            .ok_or(ErrorCode::NotFound)?;
        let c = self.core.channel(&id).await?;
        let m = MemberRow {
            role: Role::Member,
            joined_at: now_millis(),
            // A newcomer starts with nothing unread.
            read_seq: c.last_seq,
        };
        let m = match self
            .core
            .members
            .insert_if_absent(&Key::of(&id), &Key::of(who), &m)
            .await?
        {
            Ok(()) => m,
            Err(existing) => existing,
        };
        self.joined.put(&Key::of(who), &Key::of(&id), &()).await?;
        self.registry.notify(&id, ChannelOp::Reload).await;
        self.members_changed(&id, &[]).await;
        Ok(Self::view(&c, &m))
    }

    pub async fn kick_out(&self, who: &str, channel: &str, target: &str) -> Result<(), ApiError> {
        let (_, me) = self.manager(channel, who).await?;
        if who == target {
            return Err(invalid("use quit to leave a channel"));
        }
        let them = self
            .member_row(channel, target)
            .await?
            .ok_or_else(|| ApiError::with_msg(ErrorCode::NotFound, "not a member"))?;
        let allowed = match (me.role, them.role) {
            (_, Role::Owner) => false,
            (Role::Owner, _) => true,
            (Role::Admin, Role::Member) => true,
            _ => false,
        };
        if !allowed {
            return Err(ErrorCode::NoPermission.into());
        }
        self.remove(channel, target).await?;
        self.members_changed(channel, &[target]).await;
        Ok(())
    }

    /// The owner makes a member an admin or an admin a member.
    pub async fn set_role(
        &self,
        who: &str,
        channel: &str,
        target: &str,
        role: Role,
    ) -> Result<(), ApiError> {
        let (_, me) = self.membership(channel, who).await?;
        if me.role != Role::Owner {
            return Err(ErrorCode::NoPermission.into());
        }
        if role == Role::Owner || who == target {
            return Err(invalid("role is admin or member, for another member"));
        }
        self.core
            .members
            .update(&Key::of(channel), &Key::of(target), None, |m| m.role = role)
            .await?
            .ok_or_else(|| ApiError::with_msg(ErrorCode::NotFound, "not a member"))?;
        self.registry.notify(channel, ChannelOp::Reload).await;
        self.members_changed(channel, &[]).await;
        Ok(())
    }

    /// One stored message, whoever asks (moderation reads and checks access itself).
    pub async fn message(
        &self,
        channel: &str,
        seq: u64,
    ) -> Result<Option<row::MessageRow>, ApiError> {
        Ok(self
            .core
            .messages
            .get(&Key::of(channel), &Key::empty().u64(seq))
            .await?)
    }

    /// Newest first: up to `limit` messages with `seq < before_seq`.
    pub async fn history(
        &self,
        who: &str,
        channel: &str,
        limit: Option<u32>,
        before_seq: Option<u64>,
    ) -> Result<HistoryAnswer, ApiError> {
        let limit = limit.unwrap_or(20);
        if limit == 0 || limit > MAX_HISTORY_LIMIT {
            return Err(invalid("limit is 1 to 100"));
        }
        self.membership(channel, who).await?;
        let mut range = ScanRange::all(limit).desc();
        if let Some(b) = before_seq {
            range.to = std::ops::Bound::Excluded(Key::empty().u64(b));
        }
        let page = self.core.messages.scan(&Key::of(channel), &range).await?;
        let mut items: Vec<ImMessage> = Vec::with_capacity(page.rows.len());
        for (_, r) in &page.rows {
            // A message a moderator hid shows to its sender only.
            let id = format!("{channel}:{}", r.seq);
            if !crate::moderation::ModerationService::hidden_from(
                &self.mod_states,
                protocol::moderation::ObjKind::ChannelMessage,
                &id,
                &r.sender,
                Some(who),
            )
            .await?
            {
                items.push(r.wire(channel));
            }
        }
        let has_more = page.paging.is_some() && items.last().is_some_and(|m| m.seq > 1);
        Ok(HistoryAnswer { items, has_more })
    }

    /// Sends a text message, or shares one of the sender's finished tasks.
    pub async fn send(
        &self,
        sender: &AccountRow,
        channel: &str,
        kind: MessageKind,
        text: Option<&str>,
        task_id: Option<&str>,
    ) -> Result<ImMessage, ApiError> {
        let content = match kind {
            MessageKind::Text => {
                let t = text.map(str::trim).unwrap_or_default();
                if t.is_empty() {
                    return Err(invalid("content is required"));
                }
                if t.chars().count() > MAX_MESSAGE_CHARS {
                    return Err(invalid("a message has at most 4000 characters"));
                }
                serde_json::Value::String(t.to_owned())
            }
            MessageKind::Task => {
                let id = task_id
                    .filter(|t| !t.is_empty())
                    .ok_or_else(|| invalid("task_id is required"))?;
                // Membership first: a non-member learns nothing about tasks.
                self.membership(channel, &sender.id).await?;
                let task = self
                    .tasks
                    .get(&Key::of(id), &Key::empty())
                    .await?
                    .filter(|t| t.owner == Owner::Account(sender.id.clone()))
                    .ok_or(ErrorCode::NotFound)?;
                if task.status != TaskStatus::Success {
                    return Err(invalid("only a finished task can be shared"));
                }
                shared(&task)?
            }
        };
        let (sender_id, name) = (sender.id.clone(), sender.name.clone());
        let out = self
            .registry
            .run(channel, || ChannelOp::Send {
                sender: sender_id.clone(),
                sender_name: name.clone(),
                kind,
                content: content.clone(),
                limited: true,
            })
            .await?;
        match out {
            OpOut::Message(m) => Ok(m),
            OpOut::Done => Err(ApiError::internal("channel actor sent nothing")),
        }
    }

    pub async fn unread(&self, who: &str) -> Result<UnreadRecord, ApiError> {
        let items: Vec<UnreadItem> = self
            .joined(who)
            .await?
            .into_iter()
            .map(|v| UnreadItem {
                read_seq: v.last_seq.saturating_sub(v.unread),
                channel_id: v.channel_id,
                unread: v.unread,
                last_seq: v.last_seq,
            })
            .collect();
        let total = items.iter().map(|i| i.unread).sum();
        Ok(UnreadRecord { items, total })
    }

    /// Marks everything up to `seq` read (never moves backwards).
    pub async fn read(&self, who: &str, channel: &str, seq: u64) -> Result<UnreadItem, ApiError> {
        let (c, m) = self.membership(channel, who).await?;
        let upto = seq.min(c.last_seq);
        let m = self
            .core
            .members
            .update(&Key::of(channel), &Key::of(who), Some(m), |m| {
                m.read_seq = m.read_seq.max(upto)
            })
            .await?
            .ok_or(ErrorCode::NotFound)?;
        Ok(UnreadItem {
            channel_id: c.id,
            unread: c.last_seq.saturating_sub(m.read_seq),
            last_seq: c.last_seq,
            read_seq: m.read_seq,
        })
    }

    pub async fn all_read(&self, who: &str) -> Result<UnreadRecord, ApiError> {
        for v in self.joined(who).await? {
            match self.read(who, &v.channel_id, v.last_seq).await {
                Ok(_) => {}
                Err(e) if e.code == ErrorCode::Internal || e.code == ErrorCode::Unavailable => {
                    return Err(e)
                }
                Err(_) => {}
            }
        }
        self.unread(who).await
    }

    /// A task may be created in `channel` only by one of its members; for
    /// anyone else the channel is NotFound, as if it did not exist. Answers
    /// the channel's privacy.
    pub async fn check_task_channel(&self, who: &str, channel: &str) -> Result<bool, ApiError> {
        let (c, _) = self.membership(channel, who).await?;
        Ok(c.private)
    }

    /// Pushes a channel task's frame 10 to the other members (not for a
    /// PRIVATE channel, nor once the creator left).
    pub async fn relay_task(&self, channel: &str, owner: &str, content: &PushContent) {
        let res = self
            .registry
            .run(channel, || ChannelOp::Relay {
                except: owner.to_owned(),
                frame_type: FrameType::TaskUpdate,
                content: content.clone(),
            })
            .await;
        if let Err(e) = res {
            if e.code != ErrorCode::NotFound {
                tracing::warn!(channel = %channel, error = %e, "task relay failed");
            }
        }
    }

    /// Posts a channel task's result into the channel's history (not for a
    /// PRIVATE channel, nor once the creator left).
    pub async fn post_task_result(&self, channel: &str, task: &TaskRow) {
        let Some(owner) = task.owner.account() else {
            return;
        };
        let res = async {
            let (c, _) = self.membership(channel, owner).await?;
            if c.private {
                return Ok(());
            }
            let name = self
                .accounts
                .get(&Key::of(owner), &Key::empty())
                .await?
                .map(|a| a.name)
                .unwrap_or_default();
            let content = shared(task)?;
            self.registry
                .run(channel, || ChannelOp::Send {
                    sender: owner.to_owned(),
                    sender_name: name.clone(),
                    kind: MessageKind::Task,
                    content: content.clone(),
                    limited: false,
                })
                .await
                .map(|_| ())
        }
        .await;
        if let Err(e) = res {
            tracing::warn!(channel = %channel, task = %task.id, error = %e, "task result not posted");
        }
    }
}

fn shared(task: &TaskRow) -> Result<serde_json::Value, ApiError> {
    let view = task.view(None);
    serde_json::to_value(SharedTask {
        task_id: task.id.clone(),
        img_uris: view.img_uris,
        prompt: task.prompt.clone(),
    })
    .map_err(ApiError::internal)
}
