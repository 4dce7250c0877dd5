//! The settings sections of `Settings` with their defaults: the socket,
//! accounts, generation, S3, translation and the square. (The mall's are in
//! `mall.rs`; layering and the environment are in `config.rs`.)

use serde::Deserialize;

use super::Secret;

/// WebSocket session limits. Defaults are DESIGN.md's; tests shorten them.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default)]
pub struct SocketSettings {
    /// Close (4408) when no type-7 auth arrives within this time.
    pub auth_timeout_ms: u64,
    /// Close (4410) when no frame at all arrives within this time.
    pub idle_timeout_ms: u64,
    /// Larger frames close the socket with 1009.
    pub max_frame_bytes: usize,
    /// More client frames than this in one second close the socket with 4429.
    pub max_frames_per_sec: u32,
    /// Pushed frames kept per user for resume.
    pub replay_buffer: usize,
    /// How long a user's push stream (and its replay buffer) outlives the
    /// user's last socket, so a reconnect can resume.
    pub replay_grace_ms: u64,
    /// Pushed frames kept per user in Redis (with `EASEL_REDIS`), numbered
    /// across the nodes, so a socket resumes on any node; 0 keeps none.
    pub shared_replay: usize,
    /// Outgoing frames queued per socket before it counts as too slow and is closed.
    pub send_queue: usize,
}

impl Default for SocketSettings {
    fn default() -> Self {
        SocketSettings {
            auth_timeout_ms: 10_000,
            idle_timeout_ms: 45_000,
            max_frame_bytes: 64 * 1024,
            max_frames_per_sec: 50,
            replay_buffer: 1024,
            replay_grace_ms: 120_000,
            shared_replay: 256,
            send_queue: 1024,
        }
    }
}

/// Account and login rules.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default)]
pub struct AuthSettings {
    /// Lifetime of a login token (the `T` cookie's Max-Age too).
    pub token_ttl_secs: i64,
    /// E-mails of operators (may ban and unban accounts).
    pub admins: Vec<String>,
    /// Login and sign-up attempts allowed per client address per minute.
    pub attempts_per_minute: u32,
}

impl Default for AuthSettings {
    fn default() -> Self {
        AuthSettings {
            token_ttl_secs: protocol::account::TOKEN_COOKIE_MAX_AGE_SECS,
            admins: Vec::new(),
            attempts_per_minute: 30,
        }
    }
}

/// Generation: workers, queue leases, credits and quotas.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default)]
pub struct GenerationSettings {
    /// Workers run inside `easel serve`; 0 leaves all jobs to `easel worker` processes.
    pub workers: usize,
    /// A job whose worker sent no keep-alive for this long is reclaimed.
    pub lease_ms: u64,
    /// Attempts of a job before it is dead-lettered and its task fails.
    pub max_attempts: u32,
    /// How often the reconciler looks for tasks no worker holds.
    pub reconcile_ms: u64,
    /// A queued or running task untouched this long, with no job in the queue, is queued again.
    pub requeue_grace_ms: u64,
    /// Worker events another node took and has not acknowledged for this
    /// long (it died) are taken over by this node (`EASEL_EVENT_RECLAIM_MS`).
    pub event_reclaim_ms: u64,
    /// Credits a new account starts with.
    pub signup_credits: i64,
    /// Starter images a visitor device may make per day.
    pub visitor_daily_quota: i64,
    /// Largest image upload accepted, in bytes.
    pub max_upload_bytes: u64,
    /// Largest video, audio or other file upload (joined and served by
    /// ranges, never held whole), in bytes.
    pub max_media_upload_bytes: u64,
    /// Largest model file (category 60, `.safetensors`) uploaded or
    /// imported, in bytes (`EASEL_MAX_MODEL_UPLOAD_BYTES`).
    pub max_model_upload_bytes: u64,
    /// Hosts (`host` or `host:port`, exact) a model import may reach even
    /// when they resolve to a loopback, private or link-local address
    /// (`EASEL_MODEL_IMPORT_HOSTS`, comma-separated). Public addresses are
    /// always allowed.
    pub model_import_hosts: Vec<String>,
    /// A model import gives up after this many seconds (`EASEL_MODEL_IMPORT_TIMEOUT_SECS`).
    pub model_import_timeout_secs: u64,
    /// An upload not confirmed this long after it began is removed, seconds.
    pub upload_ttl_secs: u64,
    /// How often abandoned uploads are looked for, seconds.
    pub upload_sweep_secs: u64,
    /// Extra time per progress step of the reference engine (demos, tests of long work).
    pub reference_step_ms: u64,
    /// Tasks an account without the unlimited queue (spec 2 §6) may have
    /// queued or running at once; 0 for no limit.
    pub queue_limit: u32,
}

impl Default for GenerationSettings {
    fn default() -> Self {
        GenerationSettings {
            workers: 2,
            lease_ms: 30_000,
            max_attempts: 3,
            reconcile_ms: 15_000,
            requeue_grace_ms: 60_000,
            event_reclaim_ms: 30_000,
            signup_credits: 200,
            visitor_daily_quota: 5,
            max_upload_bytes: 50 * 1024 * 1024,
            max_media_upload_bytes: 1_073_741_824,
            max_model_upload_bytes: 8 * 1024 * 1024 * 1024,
            model_import_hosts: Vec::new(),
            model_import_timeout_secs: 600,
            upload_ttl_secs: 24 * 3600,
            upload_sweep_secs: 600,
            reference_step_ms: 0,
            queue_limit: 10,
        }
    }
}

/// S3 credentials and endpoint for `objects = "s3://bucket"`.
#[derive(Debug, Clone, Deserialize, PartialEq, Default)]
#[serde(default)]
pub struct S3Settings {
    /// Endpoint for S3-compatible stores (MinIO, Ceph...); AWS when empty.
    pub endpoint: Option<String>,
    pub region: Option<String>,
    pub access_key: Option<Secret>,
    pub secret_key: Option<Secret>,
    /// Allow a plain-http endpoint.
    pub allow_http: bool,
}

/// Prompt translation: the built-in dictionary always, and optionally a real
/// translation service (LibreTranslate's `/translate` API) tried first.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default)]
pub struct TranslateSettings {
    /// Base URL of a LibreTranslate server (`http://host:5000`); `None` uses
    /// the dictionary only. The service's failures fall back to the dictionary.
    pub url: Option<String>,
    /// LibreTranslate's `api_key`, for servers that require one.
    pub api_key: Option<Secret>,
    /// One call to the service may take this long before the dictionary answers instead.
    pub timeout_ms: u64,
    /// Translations kept by the per-session cache (all sessions together), so
    /// memory stays bounded however many visitors translate.
    pub cache_entries: usize,
    /// Translate calls per minute per client address for visitors (no token).
    pub visitor_calls_per_minute: u32,
    /// Translate calls per minute per logged-in account.
    pub account_calls_per_minute: u32,
    /// Prompt polishes one account may start per hour (spec code 70017).
    pub polish_per_hour: u32,
}

impl Default for TranslateSettings {
    fn default() -> Self {
        TranslateSettings {
            url: None,
            api_key: None,
            timeout_ms: 5_000,
            cache_entries: 50_000,
            visitor_calls_per_minute: 60,
            account_calls_per_minute: 600,
            polish_per_hour: 30,
        }
    }
}

/// The square: publishing, feeds, likes, follows, comments, search.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SquareSettings {
    /// Likes, collects, follows and publishes one account may make per minute (each kind counted apart).
    pub writes_per_min: u32,
    /// Comments and replies one account may write per minute.
    pub comments_per_min: u32,
    /// How often the hot ranking is recomputed (a new snapshot), in ms.
    pub rank_ms: u64,
    /// How often the search index commits pending changes, in ms.
    pub search_commit_ms: u64,
}

impl Default for SquareSettings {
    fn default() -> Self {
        SquareSettings {
            writes_per_min: 60,
            comments_per_min: 20,
            rank_ms: 60_000,
            search_commit_ms: 1_000,
        }
    }
}
