//! Every table Easel stores, declared once. `easel migrate` creates exactly
//! these on ScyllaDB; the embedded store opens them on first use.
//!
//! Each entry documents its partition key (pk) and clustering key (ck), the
//! query it serves, and the row type that the owning repository stores.

use super::{TableDef, TableKind};

const fn regular(name: &'static str) -> TableDef {
    TableDef {
        name,
        kind: TableKind::Regular,
    }
}

/// pk (account id) · ck () → `AccountRow`. Account by id.
pub const ACCOUNTS: TableDef = regular("accounts");
/// pk (normalised e-mail) · ck () → `EmailClaim`. Unique e-mail, by compare-and-set.
pub const ACCOUNT_BY_EMAIL: TableDef = regular("account_by_email");
/// pk (sha-256 of the token, hex) · ck () → `SessionRow`. Tokens are stored only hashed.
pub const SESSIONS: TableDef = regular("sessions");
/// pk (account id) · ck (token hash) → `()`. A user's live tokens, for logout-everywhere and bans.
pub const SESSIONS_BY_ACCOUNT: TableDef = regular("sessions_by_account");
/// pk (name) · ck (sub key) → counter. General-purpose counters.
pub const COUNTERS: TableDef = TableDef {
    name: "counters",
    kind: TableKind::Counter,
};
/// pk (account id) · ck () → `BalanceRow`. Settled credits and the total held; changed only by compare-and-set.
pub const BALANCES: TableDef = regular("balances");
/// pk (account id) · ck (entry seq) → `LedgerEntry`. Every credit change, in order.
pub const LEDGER: TableDef = regular("ledger");
/// pk (account id) · ck (hold key = task id) → `HoldRow`. One credit hold, open or resolved (kept as history).
pub const HOLDS: TableDef = regular("holds");
/// pk (task id) · ck () → `TaskRow`. The task and its state machine.
pub const TASKS: TableDef = regular("tasks");
/// pk (owner key) · ck (create_at ms, task id) → `TaskIndexRow`. A user's tasks by time, for list and histories.
pub const TASKS_BY_OWNER: TableDef = regular("tasks_by_owner");
/// pk (bucket 0..16) · ck (task id) → `()`. Tasks not yet fully resolved, for the reconciler.
pub const TASKS_OPEN: TableDef = regular("tasks_open");
/// pk (file id) · ck () → `UploadRow`. Pre-signed uploads and their parts.
pub const UPLOADS: TableDef = regular("uploads");
/// pk ("open") · ck (created at ms, file id) → (). Uploads not confirmed yet, oldest first, for the sweeper.
pub const UPLOADS_OPEN: TableDef = regular("uploads_open");
/// pk (channel id) · ck () → `ChannelRow`. The channel and its message sequence (compare-and-set).
pub const CHANNELS: TableDef = regular("channels");
/// pk (invite code) · ck () → channel id. Joining by invite code.
pub const CHANNEL_BY_INVITE: TableDef = regular("channel_by_invite");
/// pk (channel id) · ck (account id) → `MemberRow`. Members, roles and read positions.
pub const CHANNEL_MEMBERS: TableDef = regular("channel_members");
/// pk (account id) · ck (channel id) → `()`. The channels an account joined.
pub const CHANNELS_BY_ACCOUNT: TableDef = regular("channels_by_account");
/// pk (channel id) · ck (seq) → `MessageRow`. Channel history by sequence.
pub const CHANNEL_MESSAGES: TableDef = regular("channel_messages");
/// pk (character id) · ck () → `CharacterRow`. A character (tavern card), draft or published.
pub const CHARACTERS: TableDef = regular("characters");
/// pk (account id) · ck (create_at ms, character id) → `()`. A creator's characters.
pub const CHARACTERS_BY_OWNER: TableDef = regular("characters_by_owner");
/// pk (bucket, always 0) · ck (publish_at ms, character id) → `()`. Published characters, newest last.
pub const CHARACTERS_PUBLIC: TableDef = regular("characters_public");
/// pk (account id) · ck (character id) → `i64` (last used ms). Characters an account chatted with recently.
pub const CHARACTERS_RECENT: TableDef = regular("characters_recent");
/// pk (datacard id) · ck () → `DatacardRow`. Lore/knowledge cards bound to chat sessions.
pub const DATACARDS: TableDef = regular("datacards");
/// pk (account id) · ck (create_at ms, datacard id) → `()`. A user's datacards.
pub const DATACARDS_BY_OWNER: TableDef = regular("datacards_by_owner");
/// pk (session id) · ck () → `ChatSessionRow`. A character chat session.
pub const CHAT_SESSIONS: TableDef = regular("chat_sessions");
/// pk (account id) · ck (create_at ms, session id) → `()`. A user's chat sessions.
pub const CHAT_SESSIONS_BY_OWNER: TableDef = regular("chat_sessions_by_owner");
/// pk (session id) · ck (message index) → `ChatMessageRow`. A session's messages in order.
pub const CHAT_MESSAGES: TableDef = regular("chat_messages");
/// pk (conversation id) · ck () → `AgentConvRow`. A generation-agent conversation.
pub const AGENT_CONVS: TableDef = regular("agent_convs");
/// pk (account id) · ck (create_at ms, conversation id) → `()`. A user's agent conversations.
pub const AGENT_CONVS_BY_OWNER: TableDef = regular("agent_convs_by_owner");
/// pk (conversation id) · ck (message index) → `AgentMessageRow`. An agent conversation's messages.
pub const AGENT_MESSAGES: TableDef = regular("agent_messages");
/// pk (account id) · ck () → `PersonaRow`. Who `{{user}}` is in the account's chats.
pub const CHAT_PERSONAS: TableDef = regular("chat_personas");
/// pk (character id) · ck (reporter account id) → `ReportRow`. One report per reporter per character.
pub const CHARACTER_REPORTS: TableDef = regular("character_reports");
/// pk (bucket, always 0) · ck (update_at ms, character id, reporter id) → `()`. Reports by time, for operators.
pub const CHARACTER_REPORTS_BY_TIME: TableDef = regular("character_reports_by_time");
/// pk (character id) · ck () → `ModerationRow`. Characters an operator unpublished (never publishable again).
pub const CHARACTER_MODERATION: TableDef = regular("character_moderation");
/// pk (UTC day number) · ck (character id) → `u64`. Chats started per character per day, for the weekly hot list.
pub const CHARACTER_CHATS_DAILY: TableDef = regular("character_chats_daily");
/// pk (work id) · ck () → `WorkRow`. A published work (picture, article or video post).
pub const WORKS: TableDef = regular("works");
/// pk (author account id) · ck (create_at ms, work id) → `()`. An author's works, newest last.
pub const WORKS_BY_AUTHOR: TableDef = regular("works_by_author");
/// pk (bucket 0..16, from the id) · ck (work id) → `()`. Every work, for rebuilding the feed and search indexes.
pub const WORKS_ALL: TableDef = regular("works_all");
/// pk (work id) · ck (account id) → `i64` (ms). Who liked a work: a double like is one row.
pub const WORK_LIKES: TableDef = regular("work_likes");
/// pk (work id) · ck (account id) → `i64` (ms). Who collected a work.
pub const WORK_COLLECTS: TableDef = regular("work_collects");
/// pk (account id) · ck (work id) → `i64` (ms). Works an account liked (the card's flag).
pub const LIKED: TableDef = regular("liked");
/// pk (account id) · ck (ms, work id) → `()`. Works an account liked, by time (profile tab, recommend's tags).
pub const LIKED_BY_TIME: TableDef = regular("liked_by_time");
/// pk (account id) · ck (work id) → `i64` (ms). Works an account collected (the card's flag).
pub const COLLECTED: TableDef = regular("collected");
/// pk (account id) · ck (ms, work id) → `()`. An account's collection, by time.
pub const COLLECTED_BY_TIME: TableDef = regular("collected_by_time");
/// pk (work id) · ck (name: likes, collects, comments, views) → counter.
pub const WORK_COUNTS: TableDef = TableDef {
    name: "work_counts",
    kind: TableKind::Counter,
};
/// pk (follower account id) · ck (followed account id) → `i64` (ms). Whom an account follows.
pub const FOLLOWS: TableDef = regular("follows");
/// pk (followed account id) · ck (follower account id) → `i64` (ms). An account's followers.
pub const FOLLOWERS: TableDef = regular("followers");
/// pk (account id) · ck (name: followers, following, works, likes_received) → counter.
pub const ACCOUNT_COUNTS: TableDef = TableDef {
    name: "account_counts",
    kind: TableKind::Counter,
};
/// pk (account id) · ck () → `ProfileRow`. Bio and avatar (the name is the account's).
pub const PROFILES: TableDef = regular("profiles");
/// pk (account id) · ck (ms, notification id) → `NotificationRow`. An account's notifications.
pub const NOTIFICATIONS: TableDef = regular("notifications");
/// pk (account id) · ck () → `i64` (ms). Notifications up to this time are read.
pub const NOTIFICATIONS_READ: TableDef = regular("notifications_read");
/// pk (account id) · ck (keyword) → `i64` (ms). An account's search history.
pub const SEARCH_HISTORY: TableDef = regular("search_history");
/// pk (UTC day number) · ck (keyword) → counter. Searches per keyword per day, for hot terms.
pub const SEARCH_COUNTS: TableDef = TableDef {
    name: "search_counts",
    kind: TableKind::Counter,
};
/// pk (UTC day number) · ck (keyword) → `()`. The keywords searched that day (counters cannot be scanned everywhere).
pub const SEARCH_TERMS: TableDef = regular("search_terms");
/// pk (account id) · ck (ms, url) → `ImgUseRow`. Pictures an account reused ("generate the same", img-use history).
pub const IMG_USE: TableDef = regular("img_use");
/// pk (comment id) · ck () → `CommentRow`. A comment or a reply: its object, author, text, thread.
pub const COMMENTS: TableDef = regular("comments");
/// pk (obj_type, obj_id) · ck (create_at ms, comment id) → `()`. An object's top-level comments by time (`new` order, read newest first).
pub const COMMENTS_BY_TARGET: TableDef = regular("comments_by_target");
/// pk (top-level comment id) · ck (create_at ms, reply id) → `()`. A comment's replies, oldest first.
pub const COMMENT_REPLIES: TableDef = regular("comment_replies");
/// pk (comment id) · ck (account id) → `i64` (liked at ms). Who likes a comment; insert-if-absent makes a double like count once.
pub const COMMENT_LIKERS: TableDef = regular("comment_likers");
/// pk (comment id) · ck ("likes" | "replies") → counter. A comment's like and reply counts.
pub const COMMENT_COUNTS: TableDef = TableDef {
    name: "comment_counts",
    kind: TableKind::Counter,
};
/// pk (obj_type, obj_id) · ck ("total") → counter. Comments and replies on an object.
pub const COMMENT_TARGET_COUNTS: TableDef = TableDef {
    name: "comment_target_counts",
    kind: TableKind::Counter,
};
/// pk (snapshot id) · ck () → `TopSnapshotRow`. The frozen order of one `top` listing, so its pages neither repeat nor skip while likes move; kept an hour.
pub const COMMENT_TOP_SNAPSHOTS: TableDef = regular("comment_top_snapshots");
/// pk (bucket, always 0) · ck (create_at ms, snapshot id) → `()`. Snapshots by age, for pruning the expired ones.
pub const COMMENT_TOP_SNAPSHOTS_BY_TIME: TableDef = regular("comment_top_snapshots_by_time");
// The mall (payments, orders, subscriptions).
/// pk ("all") · ck (product id) → `Product`. The operator's catalogue (seeded from the built-in one or the products file).
pub const MALL_PRODUCTS: TableDef = regular("mall_products");
/// pk (order id) · ck () → `OrderRow`. An order and every transition it went through.
pub const ORDERS: TableDef = regular("orders");
/// pk (account id) · ck (create_at ms, order id) → `()`. An account's orders, for the buy log.
pub const ORDERS_BY_ACCOUNT: TableDef = regular("orders_by_account");
/// pk (bucket, always 0) · ck (paid_at ms, order id) → `RecentRow`. Paid orders by time (recent purchases, masked).
pub const ORDERS_RECENT: TableDef = regular("orders_recent");
/// pk (provider, kind, provider's id) · ck () → `RefRow`. A provider's session, payment, customer or subscription id to the mall's order or subscription.
pub const PAYMENT_REFS: TableDef = regular("payment_refs");
/// pk (provider, event id) · ck () → `EventMark`. Webhook events applied (deduplication).
pub const PAYMENT_EVENTS: TableDef = regular("payment_events");
/// pk (provider, payment id) · ck (event id) → `ProviderEvent`. Refund and dispute events that arrived before their payment was known; applied when it is.
pub const PAYMENT_PENDING: TableDef = regular("payment_pending");
/// pk (account id) · ck (subscription id) → `SubRow`. An account's subscriptions (at most one live).
pub const SUBSCRIPTIONS: TableDef = regular("subscriptions");
/// pk (account id) · ck (mark name) → `i64`. Offer marks: the UTC day a popup was shown, whether a plan was ever bought.
pub const MALL_MARKS: TableDef = regular("mall_marks");
/// pk (voice id) · ck () → `TimbreRow`. A user's voice (timbre), by id.
pub const TIMBRES: TableDef = regular("timbres");
/// pk (account id) · ck (create_at ms, voice id) → `()`. An account's voices, newest last.
pub const TIMBRES_BY_OWNER: TableDef = regular("timbres_by_owner");
/// pk (bucket, always 0) · ck (create_at ms, voice id) → `()`. Public users' voices by time.
pub const TIMBRES_PUBLIC: TableDef = regular("timbres_public");
/// pk (preview clip object key) · ck () → `f64` (seconds). Voices' cached preview clips.
pub const TIMBRE_PREVIEWS: TableDef = regular("timbre_previews");
/// Used only by the store conformance suite.
pub const CONFORMANCE: TableDef = regular("conformance");
/// Used only by the store conformance suite.
pub const CONFORMANCE_COUNTERS: TableDef = TableDef {
    name: "conformance_counters",
    kind: TableKind::Counter,
};

// Ornaments (the ornament shop, spec 3 §7).
/// pk (bucket, always 0) · ck (ornament id) → `Ornament`. The catalogue operators keep.
pub const ORNAMENTS: TableDef = regular("ornaments");
/// pk (account id) · ck (ornament id) → `OwnedRow`. The ornaments an account bought, with the purchase.
pub const ORNAMENTS_OWNED: TableDef = regular("ornaments_owned");
/// pk (ornament id) · ck (account id) → claimed at (ms). A limited ornament's stock units, one per buyer.
pub const ORNAMENT_CLAIMS: TableDef = regular("ornament_claims");
/// pk (account id) · ck (slot) → `WornRow`. The ornament an account wears in each slot.
pub const ORNAMENTS_WORN: TableDef = regular("ornaments_worn");
/// pk (work id) · ck () → `WorkFrameRow`. The frame a work wears.
pub const WORK_FRAMES: TableDef = regular("work_frames");

// Reports of works (other than characters)
/// pk ("{kind}:{object id}") · ck (reporter id) → `ReportRow`. One report per reporter and object.
pub const REPORTS: TableDef = regular("reports");
/// pk ("all") · ck (updated at ms, kind, object id, reporter) → (). Reports newest first, for operators.
pub const REPORTS_BY_TIME: TableDef = regular("reports_by_time");

// Video editor
/// pk (account id) · ck (workspace id, time-ordered) → `WorkspaceRow`. An account's edits, newest last.
pub const EDITOR_WORKSPACES: TableDef = regular("editor_workspaces");
/// pk (account id) · ck (material id, time-ordered) → `MaterialRow`. An account's media bin.
pub const EDITOR_MATERIALS: TableDef = regular("editor_materials");

// Models (issue 19: shared checkpoints, LoRAs and embeddings)
/// pk (model id) · ck () → `ModelRow`. A shared model.
pub const MODELS: TableDef = regular("models");
/// pk (model_ver_no) · ck () → `VersionRow`. A model's version with its file.
pub const MODEL_VERSIONS: TableDef = regular("model_versions");
/// pk (account id) · ck (create_at ms, model id) → (). An account's models, newest last.
pub const MODELS_BY_OWNER: TableDef = regular("models_by_owner");
/// pk (bucket, always 0) · ck (published_at ms, model id) → `ModelListing`. Published models by time, with what the feed filters read.
pub const MODELS_PUBLIC: TableDef = regular("models_public");
/// pk (upload file id) · ck () → `ModelFileRow`. What was read from a confirmed model-file upload (category 60): kind, family, hashes.
pub const MODEL_FILES: TableDef = regular("model_files");
/// pk (sha256 hex) · ck (model_ver_no) → (). Versions by file hash (search by hash, duplicates).
pub const MODEL_BY_HASH: TableDef = regular("model_by_hash");
/// pk (creator account id) · ck (time ms, task id, model_ver_no) → `EarningRow`. A creator's fee earnings, each paid once, by time.
pub const MODEL_EARNINGS: TableDef = regular("model_earnings");
/// pk (model id) · ck (UTC day number, task id, model_ver_no) → `UseRow`. Each successful task's use of a model, once: the record behind the counts.
pub const MODEL_USES: TableDef = regular("model_uses");
/// pk (model id, or "c:" + creator id) · ck (UTC day number, or -1 for all time; name: uses, earnings) → counter. Uses and earnings per day, for rankings' day/week/month/all windows.
pub const MODEL_USE_COUNTS: TableDef = TableDef {
    name: "model_use_counts",
    kind: TableKind::Counter,
};
/// pk (model_ver_no) · ck (task id) → (). Tasks not ended that use a version (`ver/can-del`); removed when the task ends.
pub const MODEL_VERSION_TASKS: TableDef = regular("model_version_tasks");
/// pk (dataset id) · ck () → `DatasetRow`. A training dataset with its pictures and captions.
pub const DATASETS: TableDef = regular("datasets");
/// pk (account id) · ck (create_at ms, dataset id) → (). An account's datasets.
pub const DATASETS_BY_OWNER: TableDef = regular("datasets_by_owner");
/// pk (task id) · ck () → `TrainingRow`. A LoRA training: its model, version and whether its result was applied.
pub const TRAININGS: TableDef = regular("trainings");
/// pk (account id) · ck (create_at ms, task id) → (). An account's trainings.
pub const TRAININGS_BY_OWNER: TableDef = regular("trainings_by_owner");

// Model rankings (issue 19: boards, leaderboards, surveys, creativity templates)
/// pk (UTC day number) · ck (model id) → `DayFigures`. A model's figures of one day (compare-and-set).
pub const MODEL_DAY_FIGURES: TableDef = regular("model_day_figures");
/// pk (bucket, always 0) · ck (model id) → `DayFigures`. A model's all-time figures (compare-and-set).
pub const MODEL_TOTALS: TableDef = regular("model_totals");
/// pk (UTC day number) · ck (creator account id) → `ModelStats`. A creator's models' figures of one day.
pub const CREATOR_DAY_FIGURES: TableDef = regular("creator_day_figures");
/// pk (bucket, always 0) · ck (creator account id) → `ModelStats`. A creator's models' all-time figures.
pub const CREATOR_TOTALS: TableDef = regular("creator_totals");
/// pk (UTC day, shard) · ck (event key) → ms; pk (-1, 0) · ck (day) lists the days. Ranking events already counted (a task id, a download id): counted once, kept for a retention, pruned by whole days.
pub const MODEL_EVENTS_SEEN: TableDef = regular("model_events_seen");
/// pk (account id) · ck (model id) → `UserMark`. What an account did with a model (used, liked, collected), for recommend and idempotent likes.
pub const MODEL_USER_MARKS: TableDef = regular("model_user_marks");
/// pk (model id) · ck (other model id) → i64. Tasks that used both models (`recommend/pack`).
pub const MODEL_CO_USE: TableDef = regular("model_co_use");
/// pk (bucket, always 0) · ck (survey id) → `SurveyDef`. Ranking surveys operators define.
pub const RANK_SURVEYS: TableDef = regular("rank_surveys");
/// pk (survey id) · ck (account id) → `SurveyAnswerRow`. One answer per account and survey.
pub const RANK_SURVEY_ANSWERS: TableDef = regular("rank_survey_answers");
/// pk (survey id) · ck (option id, or "" for the number of answers) → counter. Live tallies.
pub const RANK_SURVEY_TALLIES: TableDef = TableDef {
    name: "rank_survey_tallies",
    kind: TableKind::Counter,
};
/// pk (template id = work id) · ck () → `TemplateRow`. A creativity template made from a square picture.
pub const CREATIVITY_TEMPLATES: TableDef = regular("creativity_templates");
/// pk (bucket, always 0) · ck (create_at ms, template id) → (). Templates by time, newest last.
pub const CREATIVITY_TEMPLATES_BY_TIME: TableDef = regular("creativity_templates_by_time");
/// pk (account id) · ck (create_at ms, task id) → `GenerationRow`. An account's template generations.
pub const CREATIVITY_GENERATIONS: TableDef = regular("creativity_generations");
/// pk (account id) · ck (model id) → `SavedModel`. Models an account saved (collected), with the version it refers to.
pub const MODEL_SAVES: TableDef = regular("model_saves");
/// pk (bucket, always "entries") · ck (entry id) → `StoredEntry`. Operators' text-filter entries and deleted defaults.
pub const TEXT_FILTER_ENTRIES: TableDef = regular("text_filter_entries");
/// pk (model id) · ck (published_at ms, work id) → `ModelWorkRow` (the versions it used). Published works made with a model, read newest first (`square/my-artwork/community`, `ver/can-del`); written when a work is published from tasks that used the model, removed when the work is deleted.
pub const MODEL_WORKS: TableDef = regular("model_works");

// Moderation (issue 20)
/// pk ("all") · ck (account id) → `ModeratorRow`. Moderators an operator granted.
pub const MOD_MODERATORS: TableDef = regular("mod_moderators");
/// pk ("all") · ck (create_at ms, entry id) → `AuditEntry`. The append-only moderation audit log.
pub const MOD_AUDIT: TableDef = regular("mod_audit");
/// pk (obj key) · ck (create_at ms, entry id) → `AuditEntry`. One object's moderation history.
pub const MOD_AUDIT_BY_OBJECT: TableDef = regular("mod_audit_by_object");
/// pk (obj key) · ck (create_at ms, reporter) → `ModReportRow`. Every report of an object, open or closed.
pub const MOD_REPORTS: TableDef = regular("mod_reports");
/// pk (obj key) · ck (reporter) → `i64` (the open report's create_at). One open report per reporter and object.
pub const MOD_REPORTS_OPEN: TableDef = regular("mod_reports_open");
/// pk ("open") · ck (since ms, kind, obj key) → `()`. The moderators' queue, oldest first.
pub const MOD_QUEUE: TableDef = regular("mod_queue");
/// pk (kind, obj key) · ck () → `i64`. When an object entered the queue.
pub const MOD_QUEUE_SINCE: TableDef = regular("mod_queue_since");
/// pk (obj key) · ck () → `ModStateRow`. Objects moderators hid or banned from feeds.
pub const MOD_STATES: TableDef = regular("mod_states");
/// pk (account id) · ck () → `BanRow`. Account bans with their end.
pub const MOD_BANS: TableDef = regular("mod_bans");
/// pk ("all") · ck (create_at ms, account id) → `()`. Bans newest last, for the ban list and the expiry sweeper.
pub const MOD_BANS_BY_TIME: TableDef = regular("mod_bans_by_time");
/// pk (appeal id) · ck () → `AppealRow`. NSFW rating appeals.
pub const MOD_APPEALS: TableDef = regular("mod_appeals");
/// pk (obj key) · ck () → `String` (appeal id). One appeal per object.
pub const MOD_APPEAL_BY_OBJECT: TableDef = regular("mod_appeal_by_object");
/// pk (account id) · ck (UTC day) → `u32`. Appeals an account made per day.
pub const MOD_APPEAL_DAYS: TableDef = regular("mod_appeal_days");

// Sessions and two-factor (issue 21)
/// pk (account id) · ck (device code) → `KnownDevice`. Devices that signed in with the password (and second step), which pass the per-account lockout cap.
pub const SESS_KNOWN_DEVICES: TableDef = regular("sess_known_devices");
/// pk (account id) · ck () → `TotpRow`. An account's TOTP secret (pending or enabled), last used step and hashed recovery codes.
pub const TOTP_SECRETS: TableDef = regular("totp_secrets");
/// pk (sha-256 of the challenge token, hex) · ck () → `ChallengeRow`. A sign-in waiting for its second step.
pub const TOTP_CHALLENGES: TableDef = regular("totp_challenges");
/// pk (account id) · ck () → `PrefsRow`. Links, language, notification choices.
pub const SESS_PREFS: TableDef = regular("sess_prefs");
// Phone sign-in, invite codes, visitors and popups (issue 21)
/// pk (E.164 number) · ck () → `SmsCodeRow`. The number's live sign-in code (salted hash), its attempts and its send window.
pub const SMS_CODES: TableDef = regular("sms_codes");
/// pk (E.164 number) · ck () → `PhoneClaim`. Unique phone number of an account, by compare-and-set.
pub const SMS_PHONES: TableDef = regular("sms_phones");
/// pk (account id) · ck () → `String` (E.164 number). The account's phone number.
pub const SMS_BY_ACCOUNT: TableDef = regular("sms_by_account");
/// pk (invite code) · ck () → `InviteCodeRow`. Whose invite code this is.
pub const INVITE_CODES: TableDef = regular("invite_codes");
/// pk (account id) · ck () → `InviteAccountRow`. The account's own invite code and who invited it.
pub const INVITE_ACCOUNTS: TableDef = regular("invite_accounts");
/// pk (inviter account id) · ck (create_at ms, invitee id) → `()`. The accounts an inviter brought, oldest first.
pub const INVITE_INVITEES: TableDef = regular("invite_invitees");
/// pk (device id) · ck () → `VisitorRow`. A device's visits and the last account seen on it.
pub const POPUP_VISITORS: TableDef = regular("popup_visitors");
/// pk (account id or `d:` device id) · ck (popup kind) → `PopupMark`. What popup was shown, when, how often, and the answer.
pub const POPUP_MARKS: TableDef = regular("popup_marks");
/// pk (account id or `d:` device id) · ck (session key) → `PushTokenRow`. The client's push token per session or device.
pub const POPUP_PUSH_TOKENS: TableDef = regular("popup_push_tokens");
// Accounts mail (issue 21)
/// pk ("outbox") · ck (mail id, time-ordered) → `OutboxMail`. Mails waiting to be sent; a row is deleted once the SMTP server took it.
pub const MAIL_OUTBOX: TableDef = regular("mail_outbox");
/// pk (purpose, account id) · ck () → `CodeRow`. The live verification code of an account for one purpose (hashed).
pub const MAIL_CODES: TableDef = regular("mail_codes");
/// pk (token hash) · ck () → `ResetRow`. Password reset tokens (stored hashed), used at most once.
pub const MAIL_RESET_TOKENS: TableDef = regular("mail_reset_tokens");
/// pk (state, random) · ck () → `PendingSignIn`. A third-party sign-in in flight: nonce, PKCE verifier, provider; taken once by compare-and-set.
pub const OIDC_STATES: TableDef = regular("oidc_states");
/// pk (provider name, subject) · ck () → `IdentityRow`. The account a provider's user signs in to (unique by insert-if-absent).
pub const OIDC_IDENTITIES: TableDef = regular("oidc_identities");
/// pk (account id) · ck (provider name) → `LinkRow`. The providers linked to an account, for the settings and unlinking.
pub const OIDC_BY_ACCOUNT: TableDef = regular("oidc_by_account");
// Check-in and task awards (issue 22)
/// pk (account id) · ck () → `CheckinRow`. The account's check-in streak, last day, pinned time zone and popup mark.
pub const CHECKIN_STATE: TableDef = regular("checkin_state");
/// pk ("0") · ck () → `AwardConfig`. The operator's check-in schedule and task awards.
pub const AWARD_CONFIG: TableDef = regular("award_config");
/// pk (account id) · ck (ledger key) → `AwardView`. Awards granted and not yet shown in the popup.
pub const AWARD_UNSEEN: TableDef = regular("award_unseen");
// Home composition and face-photo popups (issue 22)
/// pk ("draft" or "live") · ck () → `Composition`. The operators' draft of the home page and the published copy.
pub const HOME_COMPOSITIONS: TableDef = regular("home_compositions");
/// pk (account id or `d:` device id) · ck () → `Presence`. When a viewer was last seen and how long they were away before this visit.
pub const HOME_PRESENCE: TableDef = regular("home_presence");
/// pk (account id or `d:` device id) · ck (popup id) → `FaceMark`. What a viewer was shown of one face-photo popup, "don't show again".
pub const POPUP_FACE_MARKS: TableDef = regular("popup_face_marks");
/// pk (popup id) · ck (`{event}.{total|accounts|visitors}`) → counter. Shows, closes, clicks and "don't show again" of one face-photo popup, in all and by distinct viewers, for the composer.
pub const POPUP_STATS: TableDef = TableDef {
    name: "popup_stats",
    kind: TableKind::Counter,
};

// Theme activities (issue 22 part 1; `backend/src/activities/`).
/// pk ("all") · ck (activity id) → `ActivityRow`. Operators' activities: definition, early closes, judged periods.
pub const ACTIVITY_DEFS: TableDef = regular("activity_defs");
/// pk (activity id, or `publish:{account}` for markers without activity) · ck (type, object id) → `EntryRow`. One contribution per object and activity (insert-if-absent).
pub const ACTIVITY_ENTRIES: TableDef = regular("activity_entries");
/// pk (activity id, period) · ck (commit ms, entry id) → (). A period's contributions by time (post-list `new`, judging).
pub const ACTIVITY_ENTRIES_BY_TIME: TableDef = regular("activity_entries_by_time");
/// pk (account id) · ck (commit ms, entry id) → (). An account's contributions by time (my-apply, my-list).
pub const ACTIVITY_MINE: TableDef = regular("activity_mine");
/// pk (activity id) · ck (period, account id) → `QuotaRow`. The entry ids an account committed in a period, for the per-period limit (compare-and-set).
pub const ACTIVITY_QUOTAS: TableDef = regular("activity_quotas");
/// pk (entry id) · ck (account id) → vote ms. One vote per account and contribution (insert-if-absent).
pub const ACTIVITY_VOTES: TableDef = regular("activity_votes");
/// pk (activity id) · ck (period) → `ResultRow`. A period's excellent list, stored once (insert-if-absent).
pub const ACTIVITY_RESULTS: TableDef = regular("activity_results");
/// pk (bucket 0..16 of the work id) · ck (work id) → `ActivityMark`. The mark a work's card carries.
pub const ACTIVITY_MARKS: TableDef = regular("activity_marks");
/// pk (activity id) · ck (period) → counter. Contributions per period (for lists).
pub const ACTIVITY_COUNTS: TableDef = TableDef {
    name: "activity_counts",
    kind: TableKind::Counter,
};

// Accounts: shared limits and cleanup (issue 21)
/// pk (scope, key) · ck () → `LimitRow`. Fixed windows and back-off counters shared by every node (lockout, mail and SMS send limits), by compare-and-set.
pub const ACCT_LIMITS: TableDef = regular("acct_limits");
/// pk (0) · ck (expires at ms, kind, key) → `()`. Short-lived account rows by expiry (provider sign-in states, reset tokens, codes, limits), read by the cleanup sweeper.
pub const ACCT_EXPIRY: TableDef = regular("acct_expiry");
/// pk (account id, kind: upload | report | appeal | comment | vote | survey_answer) · ck (at ms, id) → `String` (extra). Rows other domains key by object, by the account that made them, for the deletion sweep and the export.
pub const ACCT_OWNED: TableDef = regular("acct_owned");
/// pk (job name, "owner_index") · ck () → `BackfillRow`. A one-time walk's marker: the table it is in, the last row done, whether it finished.
pub const ACCT_BACKFILL: TableDef = regular("acct_backfill");

/// All tables, for migration.
/// pk (account id) · ck () → `DeletionRequest`. An account's deletion: grace, state and the sweep's step cursor.
pub const DELETION_REQUESTS: TableDef = regular("deletion_requests");
/// pk (bucket, always 0) · ck (purge time ms, account id) → (). Deletions waiting for their grace to end.
pub const DELETION_DUE: TableDef = regular("deletion_due");
/// pk (account id) · ck () → `ExportRow`. An account's latest data export (one at a time).
pub const DELETION_EXPORTS: TableDef = regular("deletion_exports");

// Documents to datacards (issue 22 part 7)
/// pk (job id) · ck () → `RagJobRow`. A document being (or once) read into datacards.
pub const RAG_JOBS: TableDef = regular("rag_jobs");
/// pk ("open") · ck (create_at ms, job id) → owner. Jobs not yet done or failed: resumed or failed at start.
pub const RAG_JOBS_OPEN: TableDef = regular("rag_jobs_open");
/// pk (character id) · ck (datacard id) → owner. The datacards a document made for a character.
pub const RAG_CHARACTER_CARDS: TableDef = regular("rag_character_cards");
// Surveys, short links and health (issue 22 parts 4 and 6).
/// pk ("all") · ck (survey id) → `SurveyRow`. Operators' questionnaires (few: one partition).
pub const SURVEY_DEFS: TableDef = regular("survey_defs");
/// pk (survey id) · ck (account id) → `ResponseRow`. One answer per account, by insert-if-absent.
pub const SURVEY_ANSWERS: TableDef = regular("survey_answers");
/// pk (survey id) · ck () → counter. Answers received.
pub const SURVEY_COUNTS: TableDef = TableDef {
    name: "survey_counts",
    kind: TableKind::Counter,
};
/// pk (code) · ck () → `ShortLinkRow`. A short link's target, owner and expiry.
pub const SHORT_LINKS: TableDef = regular("short_links");
/// pk (owner account id) · ck (SHA-256 of the target, hex) → `String` (code). Same URL, same account: same code.
pub const SHORT_LINK_BY_TARGET: TableDef = regular("short_link_by_target");
/// pk (owner account id) · ck (ms, code) → `()`. An owner's links, newest last.
pub const SHORT_LINK_BY_OWNER: TableDef = regular("short_link_by_owner");
/// pk (code) · ck () → counter. Redirects served.
pub const SHORT_LINK_CLICKS: TableDef = TableDef {
    name: "short_link_clicks",
    kind: TableKind::Counter,
};
/// pk (probe name) · ck () → `HealthRow`. `are/you/ok` writes and reads it back.
pub const HEALTH_PROBES: TableDef = regular("health_probes");

pub const ALL: &[TableDef] = &[
    ACCOUNTS,
    ACCOUNT_BY_EMAIL,
    SESSIONS,
    SESSIONS_BY_ACCOUNT,
    COUNTERS,
    BALANCES,
    LEDGER,
    HOLDS,
    TASKS,
    TASKS_BY_OWNER,
    TASKS_OPEN,
    UPLOADS,
    UPLOADS_OPEN,
    CHANNELS,
    CHANNEL_BY_INVITE,
    CHANNEL_MEMBERS,
    CHANNELS_BY_ACCOUNT,
    CHANNEL_MESSAGES,
    CHARACTERS,
    CHARACTERS_BY_OWNER,
    CHARACTERS_PUBLIC,
    CHARACTERS_RECENT,
    DATACARDS,
    DATACARDS_BY_OWNER,
    CHAT_SESSIONS,
    CHAT_SESSIONS_BY_OWNER,
    CHAT_MESSAGES,
    AGENT_CONVS,
    AGENT_CONVS_BY_OWNER,
    AGENT_MESSAGES,
    CHAT_PERSONAS,
    CHARACTER_REPORTS,
    CHARACTER_REPORTS_BY_TIME,
    CHARACTER_MODERATION,
    CHARACTER_CHATS_DAILY,
    WORKS,
    WORKS_BY_AUTHOR,
    WORKS_ALL,
    WORK_LIKES,
    WORK_COLLECTS,
    LIKED,
    LIKED_BY_TIME,
    COLLECTED,
    COLLECTED_BY_TIME,
    WORK_COUNTS,
    FOLLOWS,
    FOLLOWERS,
    ACCOUNT_COUNTS,
    PROFILES,
    NOTIFICATIONS,
    NOTIFICATIONS_READ,
    SEARCH_HISTORY,
    SEARCH_COUNTS,
    SEARCH_TERMS,
    IMG_USE,
    COMMENTS,
    COMMENTS_BY_TARGET,
    COMMENT_REPLIES,
    COMMENT_LIKERS,
    COMMENT_COUNTS,
    COMMENT_TARGET_COUNTS,
    COMMENT_TOP_SNAPSHOTS,
    COMMENT_TOP_SNAPSHOTS_BY_TIME,
    MALL_PRODUCTS,
    ORDERS,
    ORDERS_BY_ACCOUNT,
    ORDERS_RECENT,
    PAYMENT_REFS,
    PAYMENT_EVENTS,
    PAYMENT_PENDING,
    SUBSCRIPTIONS,
    MALL_MARKS,
    TIMBRES,
    TIMBRES_BY_OWNER,
    TIMBRES_PUBLIC,
    TIMBRE_PREVIEWS,
    CONFORMANCE,
    CONFORMANCE_COUNTERS,
    // Ornaments
    ORNAMENTS,
    ORNAMENTS_OWNED,
    ORNAMENT_CLAIMS,
    ORNAMENTS_WORN,
    WORK_FRAMES,
    REPORTS,
    REPORTS_BY_TIME,
    // Video editor
    EDITOR_WORKSPACES,
    EDITOR_MATERIALS,
    // Models
    MODELS,
    MODEL_VERSIONS,
    MODELS_BY_OWNER,
    MODELS_PUBLIC,
    MODEL_FILES,
    MODEL_BY_HASH,
    MODEL_EARNINGS,
    MODEL_USES,
    MODEL_USE_COUNTS,
    MODEL_VERSION_TASKS,
    // Datasets and training
    DATASETS,
    DATASETS_BY_OWNER,
    TRAININGS,
    TRAININGS_BY_OWNER,
    // Model rankings
    MODEL_DAY_FIGURES,
    MODEL_TOTALS,
    CREATOR_DAY_FIGURES,
    CREATOR_TOTALS,
    MODEL_EVENTS_SEEN,
    MODEL_USER_MARKS,
    MODEL_CO_USE,
    RANK_SURVEYS,
    RANK_SURVEY_ANSWERS,
    RANK_SURVEY_TALLIES,
    CREATIVITY_TEMPLATES,
    CREATIVITY_TEMPLATES_BY_TIME,
    CREATIVITY_GENERATIONS,
    MODEL_SAVES,
    TEXT_FILTER_ENTRIES,
    MODEL_WORKS,
    // Moderation
    MOD_MODERATORS,
    MOD_AUDIT,
    MOD_AUDIT_BY_OBJECT,
    MOD_REPORTS,
    MOD_REPORTS_OPEN,
    MOD_QUEUE,
    MOD_QUEUE_SINCE,
    MOD_STATES,
    MOD_BANS,
    MOD_BANS_BY_TIME,
    MOD_APPEALS,
    MOD_APPEAL_BY_OBJECT,
    MOD_APPEAL_DAYS,
    DELETION_REQUESTS,
    DELETION_DUE,
    DELETION_EXPORTS,
    // Sessions and two-factor
    SESS_KNOWN_DEVICES,
    TOTP_SECRETS,
    TOTP_CHALLENGES,
    SESS_PREFS,
    // Phone sign-in, invites, popups
    SMS_CODES,
    SMS_PHONES,
    SMS_BY_ACCOUNT,
    INVITE_CODES,
    INVITE_ACCOUNTS,
    INVITE_INVITEES,
    POPUP_VISITORS,
    POPUP_MARKS,
    POPUP_PUSH_TOKENS,
    // Accounts mail
    MAIL_OUTBOX,
    MAIL_CODES,
    MAIL_RESET_TOKENS,
    OIDC_STATES,
    OIDC_IDENTITIES,
    OIDC_BY_ACCOUNT,
    // Check-in and task awards
    CHECKIN_STATE,
    AWARD_CONFIG,
    AWARD_UNSEEN,
    // Home composition and face-photo popups
    HOME_COMPOSITIONS,
    HOME_PRESENCE,
    POPUP_FACE_MARKS,
    POPUP_STATS,
    // Theme activities
    ACTIVITY_DEFS,
    ACTIVITY_ENTRIES,
    ACTIVITY_ENTRIES_BY_TIME,
    ACTIVITY_MINE,
    ACTIVITY_QUOTAS,
    ACTIVITY_VOTES,
    ACTIVITY_RESULTS,
    ACTIVITY_MARKS,
    ACTIVITY_COUNTS,
    // Analytics
    ANALYTICS_FILES,
    ANALYTICS_SALTS,
    ANALYTICS_OPT_OUTS,
    ANALYTICS_COMPACTIONS,
    ANALYTICS_RETENTION,
    RAG_JOBS,
    RAG_JOBS_OPEN,
    RAG_CHARACTER_CARDS,
    ACCT_LIMITS,
    ACCT_EXPIRY,
    ACCT_OWNED,
    ACCT_BACKFILL,
    // Surveys, short links, health
    SURVEY_DEFS,
    SURVEY_ANSWERS,
    SURVEY_COUNTS,
    SHORT_LINKS,
    SHORT_LINK_BY_TARGET,
    SHORT_LINK_BY_OWNER,
    SHORT_LINK_CLICKS,
    HEALTH_PROBES,
];

/// pk (UTC day number) · ck (batch id) → `FileRow`. Analytics (issue 22): the Parquet files of a day's events.
pub const ANALYTICS_FILES: TableDef = regular("analytics_files");
/// pk ("salt") · ck (UTC day number) → `SaltRow`. Analytics: today's visitor-hash salt (older ones deleted).
pub const ANALYTICS_SALTS: TableDef = regular("analytics_salts");
/// pk (account id) · ck () → `OptOutRow`. Analytics: accounts that opted out of analytics.
pub const ANALYTICS_OPT_OUTS: TableDef = regular("analytics_opt_outs");
/// pk (UTC day number) · ck () → `ClaimRow`. Analytics: the one node that compacts a past day's files.
pub const ANALYTICS_COMPACTIONS: TableDef = regular("analytics_compactions");
/// pk ("parquet") · ck () → `SweptRow`. Analytics: every day before `before` has had its files deleted (retention).
pub const ANALYTICS_RETENTION: TableDef = regular("analytics_retention");
