//! Shared application state handed to every handler.

use std::sync::Arc;

use actors::SessionDeps;
use infra::bus::DynBus;
use infra::config::Settings;
use infra::store::DynStore;

use crate::accounts::AccountService;
use crate::channels::ChannelService;
use crate::credits::Ledger;
use crate::prompts::PromptService;
use crate::ratelimit::RateLimiter;
use crate::tasks::TaskService;
use infra::objects::DynObjects;

pub struct AppState {
    pub settings: Settings,
    pub store: DynStore,
    pub bus: DynBus,
    pub accounts: AccountService,
    pub sessions: Arc<SessionDeps>,
    /// Login and sign-up attempts per client address.
    pub login_limit: RateLimiter,
    pub ledger: Ledger,
    pub tasks: TaskService,
    pub objects: DynObjects,
    /// Visitor task creations per client address.
    pub task_limit: RateLimiter,
    /// The prompt dictionary, translation and random prompts.
    pub prompts: PromptService,
    /// IM channels and their messages.
    pub channels: ChannelService,
    /// Characters (the tavern), datacards and character cards.
    pub characters: crate::characters::CharacterService,
    /// Character chat sessions, messages and their `ChatActor`s.
    pub chats: crate::chat::ChatService,
    /// The language model behind chat, prompt polish and the generation agent.
    pub llm: llm::DynLanguageModel,
    /// Generation-agent conversations and answers.
    pub agent: crate::agent::AgentService,
    /// Who is polishing a prompt now, and the per-user polish limit.
    pub polish: crate::polish::PolishService,
    /// The square: works, feeds, likes, follows, notifications, search.
    pub square: crate::square::SquareService,
    /// Comments on works, characters and models.
    pub comments: crate::comments::CommentService,
    /// The mall: products, orders, subscriptions, payment providers.
    pub mall: crate::mall::MallService,
    /// The ornament shop: catalogue, purchases, what is worn.
    pub ornaments: crate::ornaments::OrnamentService,
    /// The video editor: workspaces, the media bin, exports.
    pub editor: crate::editor::EditorService,
    /// The speech engines (`timbre/tts`, chat replies).
    pub speaker: std::sync::Arc<dyn audio::speech::Speaker>,
    /// Removes uploads left unconfirmed.
    pub upload_sweeper: crate::uploads::UploadSweeper,
    /// Model ranking facts, boards, leaderboards and the ranking survey.
    pub ranks: crate::models::rank::ModelRanks,
    /// Creativity templates made from square pictures.
    pub creativity: crate::creativity::CreativityService,
    /// The text filter (issue 20): operators' lists, compiled; applied to
    /// every text users write.
    pub text_filter: crate::textfilter::TextFilterService,
    /// Roles, reports, review, bans, appeals and the audit log (issue 20).
    pub moderation: crate::moderation::ModerationService,
    /// The process's NSFW classifier and thresholds.
    pub nsfw: Arc<crate::nsfw::NsfwScorer>,
    /// Uploaded images waiting to be scored in the background.
    pub nsfw_uploads: crate::nsfw::UploadScoring,
    /// Sessions' devices, two-factor, lockout and preferences (issue 21).
    pub security: crate::accounts::sessions::SecurityService,
    /// Phone sign-in: codes, their limits, the SMS provider (issue 21).
    pub phones: crate::accounts::phone::PhoneService,
    /// Invite codes and inviters (issue 21).
    pub invites: crate::accounts::invites::InviteService,
    /// Visitors, the visitor guide, popups and push tokens (issue 21).
    pub popups: crate::popups::PopupService,
    /// The home page's composition and face-photo popups (issue 22).
    pub home: crate::home::HomeService,
    /// Mail (issue 21): the outbox, verification codes and reset tokens.
    pub mail: crate::accounts::outbox::MailService,
    /// Third-party sign-in: providers, sign-in states, linked identities.
    pub oidc: crate::accounts::oidc::OidcService,
    /// Daily check-in, streaks and task awards (issue 22).
    pub awards: crate::awards::AwardService,
    /// Theme activities: contributions, votes, judging and prizes (issue 22).
    pub activities: crate::activities::ActivityService,
    /// Product analytics (issue 22): ingest, the buffer, the sink, the questions.
    pub analytics: crate::analytics::Analytics,
    /// Documents read into datacards (issue 22 part 7).
    pub rag: crate::rag::RagService,
    /// Questionnaires (issue 22).
    pub surveys: crate::surveys::SurveyService,
    /// Short links (issue 22).
    pub shortlinks: crate::shortlinks::ShortLinkService,
    /// `are/you/ok`'s probes of the store, queue and bus.
    pub health: crate::health::HealthCheck,
}
