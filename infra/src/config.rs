//! Typed settings, layered: built-in defaults, then a TOML file, then
//! `EASEL_...` environment variables. No global statics: the binary builds
//! one `Settings` and passes it down.

use std::path::PathBuf;

use serde::Deserialize;

mod audio_env;
mod home;
mod mall;
mod phone;
mod sections;
pub use home::HomeSettings;
mod shortlinks;
pub use mall::{AdyenSettings, MallSettings, StripeSettings};
pub use phone::{GuideStep, PhoneSettings, SmsSettings};
pub use sections::{
    AuthSettings, GenerationSettings, S3Settings, SocketSettings, SquareSettings, TranslateSettings,
};
pub use shortlinks::ShortLinkSettings;

/// A value that must never be printed (passwords in connection strings...).
#[derive(Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    pub fn new(s: impl Into<String>) -> Secret {
        Secret(s.into())
    }
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(***)")
    }
}

/// Where state lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreConfig {
    /// redb file in the data folder (the default).
    Embedded,
    /// A ScyllaDB cluster: contact points and keyspace, from
    /// `scylla://host:9042,host2:9042/keyspace`.
    Scylla {
        nodes: Vec<String>,
        keyspace: String,
    },
    /// A store server (`easel store-serve`) at `host:port`, from
    /// `easel://host:port`: how several nodes share one store without
    /// ScyllaDB (one store process, not highly available).
    Remote { addr: String },
}

impl StoreConfig {
    pub fn parse(s: &str) -> Result<StoreConfig, ConfigError> {
        let s = s.trim();
        if s.is_empty() || s == "embedded" {
            return Ok(StoreConfig::Embedded);
        }
        if let Some(addr) = s.strip_prefix("easel://") {
            let addr = addr.trim_end_matches('/');
            let port_ok = addr
                .rsplit_once(':')
                .is_some_and(|(h, p)| !h.is_empty() && p.parse::<u16>().is_ok_and(|p| p > 0));
            if !port_ok || addr.contains('/') {
                return Err(ConfigError::Invalid(format!(
                    "store {s:?}: expected `easel://host:port`"
                )));
            }
            return Ok(StoreConfig::Remote {
                addr: addr.to_owned(),
            });
        }
        let rest = s.strip_prefix("scylla://").ok_or_else(|| {
            ConfigError::Invalid(format!(
                "store {s:?}: expected `embedded`, `easel://host:port` or `scylla://host:port,.../keyspace`"
            ))
        })?;
        let (hosts, keyspace) = rest.split_once('/').unwrap_or((rest, "easel"));
        let nodes: Vec<String> = hosts
            .split(',')
            .map(str::trim)
            .filter(|h| !h.is_empty())
            .map(str::to_owned)
            .collect();
        let keyspace = if keyspace.is_empty() {
            "easel"
        } else {
            keyspace
        };
        if nodes.is_empty()
            || !keyspace
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            return Err(ConfigError::Invalid(format!(
                "store {s:?}: no hosts or a bad keyspace name"
            )));
        }
        Ok(StoreConfig::Scylla {
            nodes,
            keyspace: keyspace.to_owned(),
        })
    }
}

/// Everything `easel serve` needs.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Listen address; port 0 picks a free port (tests).
    pub addr: String,
    /// Embedded data folder.
    pub data_dir: PathBuf,
    /// Built web assets; `None` serves the API only.
    pub web_dir: Option<PathBuf>,
    pub store: StoreConfig,
    /// The store server's bearer token: what `easel store-serve` demands and
    /// what an `easel://` store sends (`EASEL_STORE_TOKEN`).
    pub store_token: Option<Secret>,
    /// Time allowed to one call to an `easel://` store, retries apart
    /// (`EASEL_STORE_TIMEOUT_MS`, 10 s).
    pub store_timeout_ms: u64,
    /// Redis URL for the Bus and the job queue (scale-out).
    pub redis: Option<Secret>,
    /// Where objects go: `local` (data folder) or an `s3://` URL.
    pub objects: String,
    /// Extra origins allowed to open the socket besides the server's own.
    pub allowed_origins: Vec<String>,
    /// Largest JSON body accepted.
    pub max_body_bytes: usize,
    /// A request body must have arrived whole within this time after its
    /// head (`EASEL_BODY_TIMEOUT_MS`): a client trickling a body is cut off.
    pub body_timeout_ms: u64,
    pub socket: SocketSettings,
    pub auth: AuthSettings,
    pub generation: GenerationSettings,
    pub s3: S3Settings,
    pub translate: TranslateSettings,
    pub square: SquareSettings,
    /// Payments: products, offers, providers.
    pub mall: MallSettings,
    /// Engines tried in order before the built-in reference engine.
    pub engines: Vec<engines::EngineConfig>,
    /// The language model for chat, prompt polish and the generation agent.
    pub llm: llm::LlmConfig,
    /// Speech engines, voices, music (`[audio]`; `EASEL_TTS_*`,
    /// `EASEL_VOICE_PYTHON`, `EASEL_SOUNDFONT`).
    pub audio: audio::AudioConfig,
    /// Phone sign-in, invite codes, visitors and popups (`[phone]`;
    /// `EASEL_SMS_*`, `EASEL_INVITE_*`, `EASEL_VISITOR_GUIDE`, `EASEL_VIP_POP_*`).
    pub phone: PhoneSettings,
    /// The home page's composition (`[home]`; `EASEL_HOME_LINK_HOSTS`, `EASEL_HOME_TEST_CLOCK`).
    pub home: HomeSettings,
    /// Short links (`[short_links]`; `EASEL_SHORTLINK_*`).
    pub short_links: ShortLinkSettings,
}

/// The file layer: every field optional so a file may set only some.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct FileSettings {
    addr: Option<String>,
    data_dir: Option<PathBuf>,
    web_dir: Option<PathBuf>,
    store: Option<String>,
    store_token: Option<Secret>,
    store_timeout_ms: Option<u64>,
    redis: Option<Secret>,
    objects: Option<String>,
    allowed_origins: Option<Vec<String>>,
    max_body_bytes: Option<usize>,
    body_timeout_ms: Option<u64>,
    socket: Option<SocketSettings>,
    auth: Option<AuthSettings>,
    generation: Option<GenerationSettings>,
    s3: Option<S3Settings>,
    translate: Option<TranslateSettings>,
    square: Option<SquareSettings>,
    mall: Option<MallSettings>,
    engines: Option<Vec<engines::EngineConfig>>,
    llm: Option<llm::LlmConfig>,
    audio: Option<audio::AudioConfig>,
    phone: Option<PhoneSettings>,
    home: Option<HomeSettings>,
    short_links: Option<ShortLinkSettings>,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("config file {0}: {1}")]
    File(PathBuf, String),
    #[error("setting {0}: {1}")]
    Env(&'static str, String),
    #[error("{0}")]
    Invalid(String),
}

impl Settings {
    /// Defaults only (what a fresh checkout runs with).
    pub fn defaults() -> Settings {
        let web = PathBuf::from("web/dist");
        Settings {
            addr: "127.0.0.1:8080".into(),
            data_dir: PathBuf::from("data"),
            web_dir: web.join("index.html").exists().then_some(web),
            store: StoreConfig::Embedded,
            store_token: None,
            store_timeout_ms: 10_000,
            redis: None,
            objects: "local".into(),
            allowed_origins: Vec::new(),
            max_body_bytes: 1024 * 1024,
            body_timeout_ms: 120_000,
            socket: SocketSettings::default(),
            auth: AuthSettings::default(),
            generation: GenerationSettings::default(),
            s3: S3Settings::default(),
            translate: TranslateSettings::default(),
            square: SquareSettings::default(),
            mall: MallSettings::default(),
            llm: llm::LlmConfig::default(),
            audio: audio::AudioConfig::default(),
            engines: Vec::new(),
            phone: PhoneSettings::default(),
            home: HomeSettings::default(),
            short_links: ShortLinkSettings::default(),
        }
    }

    /// Defaults, then the file named by `EASEL_CONFIG` (or `easel.toml` when
    /// present), then the environment.
    pub fn load() -> Result<Settings, ConfigError> {
        Self::load_from(|k| std::env::var(k).ok())
    }

    /// As [`Settings::load`], with the environment given as a function (tests).
    pub fn load_from(env: impl Fn(&str) -> Option<String>) -> Result<Settings, ConfigError> {
        let mut s = Settings::defaults();
        let file = match env("EASEL_CONFIG") {
            Some(p) => Some(PathBuf::from(p)),
            None => Some(PathBuf::from("easel.toml")).filter(|p| p.exists()),
        };
        if let Some(path) = file {
            let text = std::fs::read_to_string(&path)
                .map_err(|e| ConfigError::File(path.clone(), e.to_string()))?;
            let f: FileSettings = toml::from_str(&text)
                .map_err(|e| ConfigError::File(path.clone(), e.to_string()))?;
            s.apply_file(f)?;
        }
        s.apply_env(&env)?;
        Ok(s)
    }

    fn apply_file(&mut self, f: FileSettings) -> Result<(), ConfigError> {
        if let Some(v) = f.addr {
            self.addr = v;
        }
        if let Some(v) = f.data_dir {
            self.data_dir = v;
        }
        if let Some(v) = f.web_dir {
            self.web_dir = Some(v);
        }
        if let Some(v) = f.store {
            self.store = StoreConfig::parse(&v)?;
        }
        if let Some(v) = f.store_token {
            self.store_token = Some(v).filter(|t| !t.expose().is_empty());
        }
        if let Some(v) = f.store_timeout_ms {
            self.store_timeout_ms = v;
        }
        if let Some(v) = f.redis {
            self.redis = Some(v);
        }
        if let Some(v) = f.objects {
            self.objects = v;
        }
        if let Some(v) = f.allowed_origins {
            self.allowed_origins = v;
        }
        if let Some(v) = f.max_body_bytes {
            self.max_body_bytes = v;
        }
        if let Some(v) = f.body_timeout_ms {
            self.body_timeout_ms = v;
        }
        if let Some(v) = f.socket {
            self.socket = v;
        }
        if let Some(v) = f.auth {
            self.auth = v;
        }
        if let Some(v) = f.generation {
            self.generation = v;
        }
        if let Some(v) = f.s3 {
            self.s3 = v;
        }
        if let Some(v) = f.translate {
            self.translate = v;
        }
        if let Some(v) = f.square {
            self.square = v;
        }
        if let Some(v) = f.mall {
            self.mall = v;
        }
        if let Some(v) = f.engines {
            self.engines = v;
        }
        if let Some(v) = f.llm {
            self.llm = v;
        }
        if let Some(v) = f.audio {
            self.audio = v;
        }
        if let Some(v) = f.phone {
            self.phone = v;
        }
        if let Some(v) = f.home {
            self.home = v;
        }
        if let Some(v) = f.short_links {
            self.short_links = v;
        }
        Ok(())
    }

    fn apply_env(&mut self, env: &impl Fn(&str) -> Option<String>) -> Result<(), ConfigError> {
        fn num<T: std::str::FromStr>(key: &'static str, v: String) -> Result<T, ConfigError> {
            v.trim()
                .parse()
                .map_err(|_| ConfigError::Env(key, format!("{v:?} is not a number")))
        }
        fn list(v: &str) -> Vec<String> {
            v.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect()
        }
        if let Some(v) = env("EASEL_ADDR") {
            self.addr = v;
        }
        if let Some(v) = env("EASEL_DATA") {
            self.data_dir = PathBuf::from(v);
        }
        if let Some(v) = env("EASEL_WEB_DIR") {
            self.web_dir = if v.is_empty() {
                None
            } else {
                Some(PathBuf::from(v))
            };
        }
        if let Some(v) = env("EASEL_STORE") {
            self.store = StoreConfig::parse(&v)?;
        }
        if let Some(v) = env("EASEL_STORE_TOKEN") {
            self.store_token = (!v.is_empty()).then(|| Secret::new(v));
        }
        if let Some(v) = env("EASEL_STORE_TIMEOUT_MS") {
            self.store_timeout_ms = num("EASEL_STORE_TIMEOUT_MS", v)?;
        }
        if let Some(v) = env("EASEL_REDIS") {
            self.redis = if v.is_empty() {
                None
            } else {
                Some(Secret::new(v))
            };
        }
        if let Some(v) = env("EASEL_OBJECTS") {
            self.objects = v;
        }
        if let Some(v) = env("EASEL_ALLOWED_ORIGINS") {
            self.allowed_origins = list(&v);
        }
        if let Some(v) = env("EASEL_ADMINS") {
            self.auth.admins = list(&v.to_lowercase());
        }
        if let Some(v) = env("EASEL_SQUARE_WRITES_PER_MIN") {
            self.square.writes_per_min = num("EASEL_SQUARE_WRITES_PER_MIN", v)?;
        }
        if let Some(v) = env("EASEL_SQUARE_RANK_MS") {
            self.square.rank_ms = num("EASEL_SQUARE_RANK_MS", v)?;
        }
        if let Some(v) = env("EASEL_SEARCH_COMMIT_MS") {
            self.square.search_commit_ms = num("EASEL_SEARCH_COMMIT_MS", v)?;
        }
        if let Some(v) = env("EASEL_MAX_BODY_BYTES") {
            self.max_body_bytes = num("EASEL_MAX_BODY_BYTES", v)?;
        }
        if let Some(v) = env("EASEL_BODY_TIMEOUT_MS") {
            self.body_timeout_ms = num("EASEL_BODY_TIMEOUT_MS", v)?;
        }
        if let Some(v) = env("EASEL_LOGIN_ATTEMPTS_PER_MINUTE") {
            self.auth.attempts_per_minute = num("EASEL_LOGIN_ATTEMPTS_PER_MINUTE", v)?;
        }
        if let Some(v) = env("EASEL_WS_AUTH_TIMEOUT_MS") {
            self.socket.auth_timeout_ms = num("EASEL_WS_AUTH_TIMEOUT_MS", v)?;
        }
        if let Some(v) = env("EASEL_WS_IDLE_TIMEOUT_MS") {
            self.socket.idle_timeout_ms = num("EASEL_WS_IDLE_TIMEOUT_MS", v)?;
        }
        if let Some(v) = env("EASEL_WS_MAX_FRAME_BYTES") {
            self.socket.max_frame_bytes = num("EASEL_WS_MAX_FRAME_BYTES", v)?;
        }
        if let Some(v) = env("EASEL_WS_MAX_FRAMES_PER_SEC") {
            self.socket.max_frames_per_sec = num("EASEL_WS_MAX_FRAMES_PER_SEC", v)?;
        }
        if let Some(v) = env("EASEL_WS_REPLAY_GRACE_MS") {
            self.socket.replay_grace_ms = num("EASEL_WS_REPLAY_GRACE_MS", v)?;
        }
        if let Some(v) = env("EASEL_WS_SHARED_REPLAY") {
            self.socket.shared_replay = num("EASEL_WS_SHARED_REPLAY", v)?;
        }
        let g = &mut self.generation;
        if let Some(v) = env("EASEL_WORKERS") {
            g.workers = num("EASEL_WORKERS", v)?;
        }
        if let Some(v) = env("EASEL_JOB_LEASE_MS") {
            g.lease_ms = num("EASEL_JOB_LEASE_MS", v)?;
        }
        if let Some(v) = env("EASEL_JOB_MAX_ATTEMPTS") {
            g.max_attempts = num("EASEL_JOB_MAX_ATTEMPTS", v)?;
        }
        if let Some(v) = env("EASEL_RECONCILE_MS") {
            g.reconcile_ms = num("EASEL_RECONCILE_MS", v)?;
        }
        if let Some(v) = env("EASEL_REQUEUE_GRACE_MS") {
            g.requeue_grace_ms = num("EASEL_REQUEUE_GRACE_MS", v)?;
        }
        if let Some(v) = env("EASEL_EVENT_RECLAIM_MS") {
            g.event_reclaim_ms = num("EASEL_EVENT_RECLAIM_MS", v)?;
        }
        if let Some(v) = env("EASEL_SIGNUP_CREDITS") {
            g.signup_credits = num("EASEL_SIGNUP_CREDITS", v)?;
        }
        if let Some(v) = env("EASEL_VISITOR_QUOTA") {
            g.visitor_daily_quota = num("EASEL_VISITOR_QUOTA", v)?;
        }
        if let Some(v) = env("EASEL_QUEUE_LIMIT") {
            g.queue_limit = num("EASEL_QUEUE_LIMIT", v)?;
        }
        if let Some(v) = env("EASEL_MAX_UPLOAD_BYTES") {
            g.max_upload_bytes = num("EASEL_MAX_UPLOAD_BYTES", v)?;
        }
        if let Some(v) = env("EASEL_MAX_MEDIA_UPLOAD_BYTES") {
            g.max_media_upload_bytes = num("EASEL_MAX_MEDIA_UPLOAD_BYTES", v)?;
        }
        if let Some(v) = env("EASEL_MAX_MODEL_UPLOAD_BYTES") {
            g.max_model_upload_bytes = num("EASEL_MAX_MODEL_UPLOAD_BYTES", v)?;
        }
        if let Some(v) = env("EASEL_MODEL_IMPORT_HOSTS") {
            g.model_import_hosts = list(&v);
        }
        if let Some(v) = env("EASEL_MODEL_IMPORT_TIMEOUT_SECS") {
            g.model_import_timeout_secs = num::<u64>("EASEL_MODEL_IMPORT_TIMEOUT_SECS", v)?.max(1);
        }
        if let Some(v) = env("EASEL_UPLOAD_TTL_SECS") {
            g.upload_ttl_secs = num("EASEL_UPLOAD_TTL_SECS", v)?;
        }
        if let Some(v) = env("EASEL_UPLOAD_SWEEP_SECS") {
            g.upload_sweep_secs = num::<u64>("EASEL_UPLOAD_SWEEP_SECS", v)?.max(1);
        }
        if let Some(v) = env("EASEL_REFERENCE_STEP_MS") {
            g.reference_step_ms = num("EASEL_REFERENCE_STEP_MS", v)?;
        }
        if g.lease_ms < 30 || g.max_attempts == 0 {
            return Err(ConfigError::Invalid(
                "generation: lease_ms must be at least 30 and max_attempts at least 1".into(),
            ));
        }
        if let Some(v) = env("EASEL_S3_ENDPOINT") {
            self.s3.endpoint = Some(v);
        }
        if let Some(v) = env("EASEL_S3_REGION") {
            self.s3.region = Some(v);
        }
        if let Some(v) = env("EASEL_S3_ACCESS_KEY") {
            self.s3.access_key = Some(Secret::new(v));
        }
        if let Some(v) = env("EASEL_S3_SECRET_KEY") {
            self.s3.secret_key = Some(Secret::new(v));
        }
        if let Some(v) = env("EASEL_S3_ALLOW_HTTP") {
            self.s3.allow_http = matches!(v.trim(), "1" | "true" | "yes");
        }
        let t = &mut self.translate;
        if let Some(v) = env("EASEL_TRANSLATE_URL") {
            t.url = Some(v.trim().to_owned()).filter(|u| !u.is_empty());
        }
        if let Some(v) = env("EASEL_TRANSLATE_API_KEY") {
            t.api_key = Some(Secret::new(v)).filter(|k| !k.expose().is_empty());
        }
        if let Some(v) = env("EASEL_TRANSLATE_TIMEOUT_MS") {
            t.timeout_ms = num("EASEL_TRANSLATE_TIMEOUT_MS", v)?;
        }
        if let Some(v) = env("EASEL_TRANSLATE_CACHE_ENTRIES") {
            t.cache_entries = num("EASEL_TRANSLATE_CACHE_ENTRIES", v)?;
        }
        if let Some(v) = env("EASEL_TRANSLATE_VISITOR_PER_MINUTE") {
            t.visitor_calls_per_minute = num("EASEL_TRANSLATE_VISITOR_PER_MINUTE", v)?;
        }
        if let Some(v) = env("EASEL_TRANSLATE_ACCOUNT_PER_MINUTE") {
            t.account_calls_per_minute = num("EASEL_TRANSLATE_ACCOUNT_PER_MINUTE", v)?;
        }
        if let Some(v) = env("EASEL_POLISH_PER_HOUR") {
            t.polish_per_hour = num("EASEL_POLISH_PER_HOUR", v)?;
        }
        self.mall.apply_env(env)?;
        self.phone.apply_env(env)?;
        self.home.apply_env(env)?;
        self.short_links.apply_env(env)?;
        if let Some(v) = env("EASEL_COMMENTS_PER_MIN") {
            self.square.comments_per_min = num("EASEL_COMMENTS_PER_MIN", v)?;
        }
        let l = &mut self.llm;
        if let Some(v) = env("EASEL_LLM") {
            l.kind = match v.trim() {
                "local" => llm::LlmKind::Local,
                "openai" => llm::LlmKind::Openai,
                "scripted" => llm::LlmKind::Scripted,
                other => {
                    return Err(ConfigError::Env(
                        "EASEL_LLM",
                        format!("{other:?} is not one of local, openai, scripted"),
                    ))
                }
            };
        }
        if let Some(v) = env("EASEL_LLM_MODEL_PATH") {
            l.model_path = PathBuf::from(v);
        }
        if let Some(v) = env("EASEL_LLM_THREADS") {
            l.threads = num("EASEL_LLM_THREADS", v)?;
        }
        if let Some(v) = env("EASEL_LLM_CONTEXT") {
            l.context_tokens = num("EASEL_LLM_CONTEXT", v)?;
        }
        if let Some(v) = env("EASEL_LLM_URL") {
            l.url = Some(v.trim().to_owned()).filter(|u| !u.is_empty());
            if l.url.is_some() && env("EASEL_LLM").is_none() {
                l.kind = llm::LlmKind::Openai;
            }
        }
        if let Some(v) = env("EASEL_LLM_API_KEY") {
            l.api_key = Some(v).filter(|k| !k.is_empty());
        }
        if let Some(v) = env("EASEL_LLM_MODEL") {
            l.model = Some(v).filter(|k| !k.is_empty());
        }
        if let Some(v) = env("EASEL_LLM_SCRIPTED_INTERVAL_MS") {
            l.scripted_interval_ms = num("EASEL_LLM_SCRIPTED_INTERVAL_MS", v)?;
        }
        if let Some(v) = env("EASEL_LLM_MAX_CONCURRENT") {
            l.max_concurrent = num("EASEL_LLM_MAX_CONCURRENT", v)?;
        }
        if let Some(v) = env("EASEL_LLM_CONNECT_TIMEOUT_MS") {
            l.connect_timeout_ms = num("EASEL_LLM_CONNECT_TIMEOUT_MS", v)?;
        }
        if let Some(v) = env("EASEL_LLM_READ_TIMEOUT_MS") {
            l.read_timeout_ms = num("EASEL_LLM_READ_TIMEOUT_MS", v)?;
        }
        if let Some(v) = env("EASEL_LLM_MAX_REPLY_TOKENS") {
            l.max_reply_tokens = num("EASEL_LLM_MAX_REPLY_TOKENS", v)?;
        }
        // Quick set-up of one remote engine each from the environment.
        if let Some(url) = env("EASEL_COMFYUI_URL").filter(|u| !u.is_empty()) {
            self.engines.push(engines::EngineConfig {
                kind: engines::EngineKind::Comfyui {
                    url,
                    checkpoint: env("EASEL_COMFYUI_CHECKPOINT"),
                    // Wan 2.x video workflows, with ComfyUI's repackaged
                    // Wan 2.1 file names (change them in the TOML file).
                    wan: env("EASEL_COMFYUI_WAN")
                        .filter(|v| v == "1" || v == "true")
                        .map(|_| engines::comfyui::WanModels::default()),
                    // ACE-Step music, with ComfyUI's example file name.
                    ace: env("EASEL_COMFYUI_ACE")
                        .filter(|v| v == "1" || v == "true")
                        .map(|_| engines::comfyui::AceModels::default()),
                    // Wan 2.2 S2V lip-sync, with ComfyUI's repackaged file
                    // names (change them in the TOML file's `[engines.s2v]`).
                    s2v: env("EASEL_COMFYUI_S2V")
                        .filter(|v| v == "1" || v == "true")
                        .map(|_| engines::comfyui::S2vModels::default()),
                    // The ComfyUI server's models/ folder, shared with the
                    // workers: users' model files are placed there.
                    models_dir: env("EASEL_COMFYUI_MODELS_DIR")
                        .filter(|v| !v.is_empty())
                        .map(std::path::PathBuf::from),
                },
                select: Default::default(),
            });
        }
        if let Some(url) = env("EASEL_OPENAI_IMAGES_URL").filter(|u| !u.is_empty()) {
            self.engines.push(engines::EngineConfig {
                kind: engines::EngineKind::Openai {
                    url,
                    api_key: env("EASEL_OPENAI_API_KEY"),
                    model: env("EASEL_OPENAI_IMAGE_MODEL"),
                },
                select: Default::default(),
            });
        }
        if let Some(url) = env("EASEL_OPENAI_VIDEO_URL").filter(|u| !u.is_empty()) {
            let poll_ms = match env("EASEL_OPENAI_VIDEO_POLL_MS") {
                Some(v) => Some(num("EASEL_OPENAI_VIDEO_POLL_MS", v)?),
                None => None,
            };
            self.engines.push(engines::EngineConfig {
                kind: engines::EngineKind::OpenaiVideo {
                    url,
                    api_key: env("EASEL_OPENAI_VIDEO_API_KEY")
                        .or_else(|| env("EASEL_OPENAI_API_KEY")),
                    model: env("EASEL_OPENAI_VIDEO_MODEL"),
                    poll_ms,
                },
                select: Default::default(),
            });
        }
        // Load testing only (bench/README.md): the pacer engine takes every
        // job, ahead of any other engine. Never set by default.
        if let Some(v) = env("EASEL_ENGINE").filter(|v| !v.trim().is_empty()) {
            if v.trim() != "pacer" {
                return Err(ConfigError::Env(
                    "EASEL_ENGINE",
                    format!("{v:?}: the only engine chosen this way is `pacer` (load testing)"),
                ));
            }
            let step_ms = match env("EASEL_PACER_STEP_MS") {
                Some(s) => num("EASEL_PACER_STEP_MS", s)?,
                None => engines::pacer::DEFAULT_STEP_MS,
            };
            let steps = match env("EASEL_PACER_STEPS") {
                Some(s) => num("EASEL_PACER_STEPS", s)?,
                None => engines::pacer::DEFAULT_STEPS,
            };
            self.engines.insert(
                0,
                engines::EngineConfig {
                    kind: engines::EngineKind::Pacer { step_ms, steps },
                    select: Default::default(),
                },
            );
        }
        audio_env::apply(&mut self.audio, env);
        if self.objects != "local" && !self.objects.starts_with("s3://") {
            return Err(ConfigError::Invalid(format!(
                "objects {:?}: expected `local` or `s3://bucket`",
                self.objects
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
