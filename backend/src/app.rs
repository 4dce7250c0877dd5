//! `Application::build(settings)` wires the parts named by the settings
//! (store, bus, actors), binds the listener (port 0 in tests) and exposes
//! `port()`; `run_until_stopped()` serves until a signal stops it.

use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

use actix_web::middleware::{from_fn, Compress};
use actix_web::{web, App, HttpServer};
use actors::{SessionDeps, StreamRegistry};
use anyhow::Context;
use engines::Router;
use infra::bus::{DynBus, LocalBus};
use infra::config::{Settings, StoreConfig};
use infra::objects::{DynObjects, LocalObjects};
use infra::queue::{DynQueue, LocalQueue, RedisQueue};
use infra::store::embedded::EmbeddedStore;
use infra::store::{tables, Counters, DynStore};

use crate::body_deadline::{body_deadline, BodyTimeout};
use crate::credits::Ledger;
use crate::tasks::actor::{event_pump, reconciler, TaskRegistry};
use crate::tasks::core::TaskCore;
use crate::tasks::{TaskLimits, TaskService};
use crate::worker::{self, WorkerSettings};

use crate::accounts::{AccountService, SocketAuth};
use crate::ratelimit::RateLimits;
use crate::state::AppState;
use crate::{error, routes, web as webapp, ws};

pub struct Application {
    port: u16,
    server: actix_web::dev::Server,
    /// Stops the workers, the event pump and the reconciler.
    stop: tokio::sync::watch::Sender<bool>,
    /// Flushed once more when the server stops, so a clean stop loses no event.
    analytics: crate::analytics::Analytics,
}

/// Starts the configured language model. A model that cannot start does not
/// stop the server: images, channels and the rest still work, and chats
/// answer `LanguageModelUnavailable` with the reason (logged here too).
pub fn open_llm(config: &llm::LlmConfig) -> llm::DynLanguageModel {
    match llm::build(config) {
        Ok(model) => {
            let info = model.info();
            tracing::info!(model = %info.name, neural = info.neural, "language model ready");
            model
        }
        Err(e) => {
            tracing::warn!(error = %e, "no language model; chats will answer LanguageModelUnavailable");
            Arc::new(llm::UnavailableModel {
                reason: e.to_string(),
            })
        }
    }
}

/// Opens the store the settings name.
pub async fn open_store(settings: &Settings) -> anyhow::Result<DynStore> {
    match &settings.store {
        StoreConfig::Embedded => {
            let store =
                EmbeddedStore::open(&settings.data_dir.join("store")).with_context(|| {
                    format!(
                        "opening the embedded store in {}",
                        settings.data_dir.display()
                    )
                })?;
            Ok(Arc::new(store))
        }
        #[cfg(feature = "scylla")]
        StoreConfig::Scylla { nodes, keyspace } => {
            let store = infra::store::scylla::ScyllaStore::connect(nodes, keyspace)
                .await
                .with_context(|| format!("connecting to ScyllaDB at {}", nodes.join(",")))?;
            Ok(Arc::new(store))
        }
        #[cfg(not(feature = "scylla"))]
        StoreConfig::Scylla { .. } => {
            anyhow::bail!("this build of easel has no ScyllaDB support (feature `scylla`)")
        }
        StoreConfig::Remote { addr } => {
            let token = settings.store_token.as_ref().context(
                "EASEL_STORE names a store server (easel://): set EASEL_STORE_TOKEN to its token",
            )?;
            let store = infra::store::remote::RemoteStore::new(
                addr,
                token.expose(),
                std::time::Duration::from_millis(settings.store_timeout_ms.max(1)),
            )?;
            store
                .check()
                .await
                .with_context(|| format!("reaching the store server at {addr}"))?;
            Ok(Arc::new(store))
        }
    }
}

async fn open_bus(settings: &Settings) -> anyhow::Result<DynBus> {
    match &settings.redis {
        Some(url) => {
            // The shared log outlives a user's last socket as long as its
            // node's stream does, plus the stream's reopening period.
            let grace = Duration::from_millis(settings.socket.replay_grace_ms);
            let bus = infra::bus_redis::RedisBus::connect(url.expose(), "easel:bus:")
                .await
                .context("connecting the Redis bus (EASEL_REDIS)")?
                .with_shared_log(settings.socket.shared_replay, grace + grace / 3);
            Ok(Arc::new(bus))
        }
        None => Ok(Arc::new(LocalBus::new(4096))),
    }
}

/// The request-rate limits: counted in Redis across the nodes when
/// `EASEL_REDIS` is set, else in process (`crate::ratelimit`).
pub async fn open_rate_limits(settings: &Settings) -> anyhow::Result<RateLimits> {
    match &settings.redis {
        Some(url) => RateLimits::connect(
            url.expose(),
            crate::ratelimit::DEFAULT_PREFIX,
            crate::ratelimit::REDIS_TIMEOUT,
        )
        .await
        .context("connecting the Redis rate limits (EASEL_REDIS)"),
        None => Ok(RateLimits::local()),
    }
}

/// The job queue: in-process, or Redis Streams when `EASEL_REDIS` is set.
pub async fn open_queue(settings: &Settings) -> anyhow::Result<DynQueue> {
    match &settings.redis {
        Some(url) => Ok(Arc::new(
            RedisQueue::connect(url.expose(), "easel")
                .await
                .context("connecting the Redis job queue (EASEL_REDIS)")?,
        )),
        None => Ok(Arc::new(LocalQueue::new())),
    }
}

/// Object storage: the data folder, or S3.
pub fn open_objects(settings: &Settings) -> anyhow::Result<DynObjects> {
    if let Some(bucket) = settings.objects.strip_prefix("s3://") {
        #[cfg(feature = "s3")]
        {
            let s3 = &settings.s3;
            let o = infra::objects::S3Objects::new(
                bucket,
                s3.endpoint.clone(),
                s3.region.as_deref().unwrap_or("us-east-1"),
                s3.access_key
                    .as_ref()
                    .map(|s| s.expose())
                    .unwrap_or_default(),
                s3.secret_key
                    .as_ref()
                    .map(|s| s.expose())
                    .unwrap_or_default(),
                s3.allow_http,
            )
            .map_err(|e| anyhow::anyhow!("S3 objects ({bucket}): {e}"))?;
            return Ok(Arc::new(o));
        }
        #[cfg(not(feature = "s3"))]
        anyhow::bail!("objects = s3://{bucket}, but this build of easel has no S3 support (cargo feature `s3`)");
    }
    let dir = settings.data_dir.join("objects");
    Ok(Arc::new(LocalObjects::new(&dir).with_context(|| {
        format!("opening objects in {}", dir.display())
    })?))
}

/// Checks at start that the object store answers, so a wrong S3 setting
/// stops the server with a reason instead of failing every upload later.
pub async fn probe_objects(objects: &DynObjects, what: &str) -> anyhow::Result<()> {
    let key = infra::objects::ObjectKey::parse("probe/easel-start")
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    match tokio::time::timeout(Duration::from_secs(20), objects.exists(&key)).await {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(e)) => anyhow::bail!("EASEL_OBJECTS={what}: the object store refused a probe: {e}"),
        Err(_) => {
            anyhow::bail!("EASEL_OBJECTS={what}: the object store did not answer within 20 s")
        }
    }
}

/// The worker settings from the server settings. `model_cache` is shared
/// by the workers of a process ([`model_cache`]).
pub fn worker_settings(
    settings: &Settings,
    name: String,
    model_cache: Arc<crate::model_cache::ModelCache>,
    nsfw: Arc<crate::nsfw::NsfwScorer>,
) -> WorkerSettings {
    let g = &settings.generation;
    WorkerSettings {
        name,
        lease: Duration::from_millis(g.lease_ms),
        max_attempts: g.max_attempts,
        step_delay: Duration::from_millis(g.reference_step_ms),
        model_cache,
        nsfw,
    }
}

/// The workers' model cache: `{data_dir}/model-cache`, bounded by
/// `EASEL_MODEL_CACHE_BYTES`.
pub fn model_cache(settings: &Settings) -> anyhow::Result<Arc<crate::model_cache::ModelCache>> {
    crate::model_cache::ModelCache::in_data_dir(&settings.data_dir)
}

/// The speech engines from the settings (`timbre/tts`, chat replies, and
/// the audio engine's voices).
pub fn speaker(settings: &Settings) -> Arc<dyn audio::speech::Speaker> {
    audio::speech::Speakers::new(settings.audio.clone())
}

/// The engine router from the settings: the configured engines, the audio
/// engine, the trainer engine (`EASEL_TRAINER`, `easel-trainer`'s settings),
/// then the reference engine.
pub fn engine_router(
    settings: &Settings,
    speaker: Arc<dyn audio::speech::Speaker>,
) -> anyhow::Result<Arc<Router>> {
    let mut audio_engine = audio::AudioEngine::new(speaker, settings.audio.clone());
    // Lip-sync on a configured ComfyUI (Wan 2.2 S2V): the audio engine
    // speaks the text, then hands the picture and the sound to it.
    if let Some(talking) =
        engines::talking_engine(&settings.engines).map_err(|e| anyhow::anyhow!("engines: {e}"))?
    {
        audio_engine = audio_engine.with_talking(talking);
    }
    Ok(Arc::new(
        Router::from_config(&settings.engines)
            .map_err(|e| anyhow::anyhow!("engines: {e}"))?
            .with_engine(Arc::new(audio_engine))
            .with_engine(Arc::new(trainer::TrainEngine::new(
                trainer::build_trainer(
                    &trainer::TrainerSettings::from_env()
                        .map_err(|e| anyhow::anyhow!("trainer: {e}"))?,
                )
                .map_err(|e| anyhow::anyhow!("trainer: {e}"))?,
            ))),
    ))
}

impl Application {
    pub async fn build(settings: Settings) -> anyhow::Result<Application> {
        std::fs::create_dir_all(&settings.data_dir)
            .with_context(|| format!("creating data folder {}", settings.data_dir.display()))?;
        let store = infra::store::fault::with_fault_switch(open_store(&settings).await?);
        let bus = open_bus(&settings).await?;
        let objects = open_objects(&settings)?;
        probe_objects(&objects, &settings.objects).await?;
        let queue = open_queue(&settings).await?;
        let rate_limits = open_rate_limits(&settings).await?;
        let speaker = speaker(&settings);
        let router = engine_router(&settings, speaker.clone())?;
        let g = settings.generation.clone();
        let ledger = Ledger::new(store.clone());
        let channels = crate::channels::ChannelService::new(store.clone(), bus.clone());
        let characters =
            crate::characters::CharacterService::new(store.clone(), objects.clone(), &rate_limits);
        // Model rankings: fed by tasks' model uses and creators' fees (here),
        // downloads and likes (routes), read by the boards.
        let ranks = crate::models::rank::ModelRanks::new(
            store.clone(),
            crate::models::rank::RankSettings::from_env()?,
        );
        let core = Arc::new(
            TaskCore::new(
                store.clone(),
                ledger.clone(),
                queue.clone(),
                bus.clone(),
                g.max_attempts,
                g.requeue_grace_ms as i64,
            )
            .with_channels(channels.clone())
            .with_models(
                crate::models::uses::ModelUses::new(store.clone(), ledger.clone())
                    .with_ranks(ranks.clone()),
            )
            .with_training(crate::training::task::TrainingService::new(
                store.clone(),
                objects.clone(),
            )),
        );
        let registry = TaskRegistry::new(core);
        let tasks = TaskService::new(
            registry.clone(),
            objects.clone(),
            Counters::new(store.clone(), &tables::COUNTERS),
            TaskLimits {
                visitor_daily_quota: g.visitor_daily_quota,
                queue_limit: g.queue_limit,
            },
        )
        .with_models(crate::models::ModelService::new(store.clone()));
        let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
        let node = format!("node-{}", uuid::Uuid::now_v7().simple());
        actix_web::rt::spawn(event_pump(
            registry.clone(),
            node.clone(),
            Duration::from_millis(g.event_reclaim_ms),
            stop_rx.clone(),
        ));
        actix_web::rt::spawn(reconciler(
            registry.clone(),
            Duration::from_millis(g.reconcile_ms),
            settings.redis.is_none(),
            stop_rx.clone(),
        ));
        let cache = model_cache(&settings)?;
        // One NSFW classifier for the process: the workers and the upload queue.
        let nsfw = crate::nsfw::NsfwScorer::from_env()?;
        for i in 0..g.workers {
            let ws = worker_settings(
                &settings,
                format!("{node}-w{i}"),
                cache.clone(),
                nsfw.clone(),
            );
            actix_web::rt::spawn(worker::run(
                queue.clone(),
                objects.clone(),
                router.clone(),
                ws,
                stop_rx.clone(),
            ));
        }
        tracing::info!(
            store = store.backend_name(),
            bus = bus.backend_name(),
            queue = queue.backend_name(),
            objects = objects.backend_name(),
            rate_limits = rate_limits.backend_name(),
            workers = g.workers,
            "generation ready"
        );
        let accounts = AccountService::new(
            store.clone(),
            bus.clone(),
            settings.auth.token_ttl_secs,
            settings.auth.admins.clone(),
        );
        let sessions = Arc::new(SessionDeps {
            auth: Arc::new(SocketAuth(accounts.clone())),
            streams: StreamRegistry::new(
                bus.clone(),
                settings.socket.replay_buffer,
                Duration::from_millis(settings.socket.replay_grace_ms),
            ),
            settings: settings.socket.clone(),
        });
        let prompts = crate::prompts::PromptService::new(&settings.translate, &rate_limits)
            .context("prompt dictionary and translation (translate settings)")?;
        tracing::info!(
            terms = prompts.dictionary().len(),
            translator = prompts.provider(),
            "prompt tools ready"
        );
        let login_limit = rate_limits.limiter(
            "login",
            settings.auth.attempts_per_minute,
            Duration::from_secs(60),
        );
        let mail = crate::accounts::outbox::MailService::from_settings(
            store.clone(),
            crate::accounts::mail::MailSettings::from_env(&settings.addr)
                .context("mail settings (EASEL_SMTP_*, EASEL_MAIL_FROM, EASEL_PUBLIC_URL)")?,
        )?;
        let listener = TcpListener::bind(&settings.addr)
            .with_context(|| format!("binding {}", settings.addr))?;
        let port = listener.local_addr()?.port();
        let web_dir = settings
            .web_dir
            .clone()
            .filter(|d| d.join("index.html").exists());
        if web_dir.is_none() {
            tracing::warn!("no built web app found (web/dist): serving the API only");
        }
        let max_body = settings.max_body_bytes;
        let body_timeout = Duration::from_millis(settings.body_timeout_ms);
        let llm = open_llm(&settings.llm);
        let agent = crate::agent::AgentService::new(store.clone(), objects.clone(), &rate_limits);
        let polish =
            crate::polish::PolishService::new(settings.translate.polish_per_hour, &rate_limits);
        let chats = crate::chat::ChatService::new(
            store.clone(),
            bus.clone(),
            llm.clone(),
            characters.clone(),
            settings.redis.is_none(),
            settings.llm.max_reply_tokens,
            &rate_limits,
        );
        chats.set_speech(crate::timbre::chat::ChatSpeech {
            speaker: speaker.clone(),
            timbres: crate::timbre::TimbreService::new(store.clone(), objects.clone()),
            bus: bus.clone(),
        });
        // The square hands its implementation (works, notifications) to
        // `comment_targets.set_square` when it is built.
        let comment_targets = Arc::new(
            crate::comments::targets::Targets::new(characters.clone()).with_models(Arc::new(
                crate::models::comments::ModelTargets::new(
                    crate::models::ModelService::new(store.clone()),
                    ranks.clone(),
                ),
            )),
        );
        // What feeds, pages and comments show of the ornament shop.
        let decor = crate::ornaments::Decor::new(store.clone());
        let comments = crate::comments::CommentService::new(
            store.clone(),
            comment_targets.clone(),
            settings.square.comments_per_min,
            &rate_limits,
        )
        .with_decor(decor.clone());
        // The theme activities' marks on work cards (issue 22).
        let activity_marks = crate::activities::marks::ActivityMarks::new(store.clone());
        let square = crate::square::SquareService::new(
            store.clone(),
            bus.clone(),
            objects.clone(),
            settings.square.clone(),
            &settings.data_dir.join("search"),
            &rate_limits,
        )
        .with_decor(decor.clone())
        .with_nsfw_levels(crate::square::nsfw_view::Levels::from(nsfw.settings()))
        .with_activity_marks(activity_marks.clone());
        let ornaments =
            crate::ornaments::OrnamentService::new(store.clone(), ledger.clone(), decor);
        square.start();
        {
            // The search index is rebuilt from the Store when it is new (its
            // folder was deleted, or its schema changed): in the background.
            let (square, characters) = (square.clone(), characters.clone());
            actix_web::rt::spawn(async move {
                square.ready().await;
                if let Err(e) = square.rebuild_search_if_needed(&characters).await {
                    tracing::error!(error = %e, "search: rebuilding the index failed");
                }
            });
        }
        comment_targets.set_square(Arc::new(square.clone()));
        let mall = crate::mall::MallService::new(
            store.clone(),
            settings.mall.clone(),
            ledger.clone(),
            accounts.clone(),
            &rate_limits,
        )?;
        mall.start().await?;
        let editor =
            crate::editor::EditorService::new(store.clone(), tasks.clone(), objects.clone());
        let upload_sweeper = crate::uploads::UploadSweeper::new(store.clone(), objects.clone());
        upload_sweeper.clone().start(
            Duration::from_secs(settings.generation.upload_ttl_secs),
            Duration::from_secs(settings.generation.upload_sweep_secs),
        );
        // Keyed ranking events' claims past their retention: pruned hourly.
        ranks.start_seen_sweeper(crate::models::rank::seen::SWEEP_EVERY);
        let creativity = crate::creativity::CreativityService::new(store.clone());
        let text_filter = crate::textfilter::TextFilterService::new(store.clone())
            .await
            .map_err(|e| anyhow::anyhow!("text filter: {e}"))?;
        text_filter.start(crate::textfilter::TextFilterService::reload_period()?);
        chats.set_text_filter(text_filter.clone());
        let moderation = crate::moderation::ModerationService::new(
            store.clone(),
            crate::moderation::ModerationService::appeals_per_day_from_env()?,
            &rate_limits,
        );
        let ban_sweep = crate::moderation::bans::sweep_every_from_env()?;
        let nsfw_uploads =
            crate::nsfw::UploadScoring::start(nsfw.clone(), store.clone(), objects.clone());
        let security = crate::accounts::sessions::SecurityService::new(
            store.clone(),
            objects.clone(),
            accounts.clone(),
            crate::accounts::lockout::Lockout::new(
                crate::accounts::lockout::LockoutPolicy::from_env()?,
                store.clone(),
                std::sync::Arc::new(crate::accounts::lockout::SystemClock),
            ),
            "Easel",
        );
        let phones = crate::accounts::phone::PhoneService::new(
            store.clone(),
            settings.phone.sms.clone(),
            crate::accounts::sms::TwilioSms::from_settings(&settings.phone.sms)
                .map(|s| Arc::new(s) as Arc<dyn crate::accounts::sms::SmsSender>),
        );
        let invites = crate::accounts::invites::InviteService::new(
            store.clone(),
            settings.phone.invite_credits_inviter,
            settings.phone.invite_credits_invitee,
        );
        let popups = crate::popups::PopupService::new(store.clone(), &settings.phone);
        let home = crate::home::HomeService::new(store.clone(), &settings.home);
        let oidc = crate::accounts::oidc::OidcService::from_env(
            store.clone(),
            settings.mall.public_url.clone(),
        )?;
        let awards = crate::awards::AwardService::new(
            store.clone(),
            ledger.clone(),
            accounts.clone(),
            crate::awards::clock::from_env(),
        );
        // Theme activities (issue 22): contributions, votes, judging, prizes.
        let activities = crate::activities::ActivityService::new(
            store.clone(),
            ledger.clone(),
            Arc::new(crate::activities::objects::AppObjects {
                square: square.clone(),
                characters: characters.clone(),
                models: crate::models::ModelService::new(store.clone()),
            }),
            Arc::new(crate::activities::SystemClock),
            activity_marks,
        );
        activities.start(
            crate::activities::sweep_every_from_env()?,
            (bus.backend_name() != "local").then_some(Duration::from_secs(30)),
        );
        // Product analytics (issue 22): its flush loop stops with the server.
        let analytics = crate::analytics::Analytics::from_settings(
            store.clone(),
            objects.clone(),
            crate::analytics::settings::AnalyticsSettings::from_env()?,
            &rate_limits,
        )?;
        analytics.start(stop_rx.clone());
        analytics.start_upkeep(stop_rx.clone());
        mall.set_analytics(analytics.clone());
        let rag = crate::rag::RagService::new(
            store.clone(),
            objects.clone(),
            characters.clone(),
            Some(text_filter.clone()),
            bus.clone(),
            crate::rag::RagSettings::from_env().context("EASEL_RAG_* settings")?,
        );
        rag.start();
        chats.set_rag(rag.clone());
        let surveys = crate::surveys::SurveyService::new(store.clone(), Some(text_filter.clone()));
        let shortlinks = crate::shortlinks::ShortLinkService::new(
            store.clone(),
            settings.short_links.clone(),
            &rate_limits,
        );
        let health = crate::health::HealthCheck::new(store.clone(), bus.clone(), queue.clone());
        let state = web::Data::new(AppState {
            analytics: analytics.clone(),
            awards,
            rag,
            surveys,
            shortlinks,
            health,
            security,
            phones,
            invites,
            popups,
            home,
            oidc,
            text_filter,
            moderation,
            nsfw: nsfw.clone(),
            nsfw_uploads,
            ranks,
            creativity,
            speaker,
            upload_sweeper,
            editor,
            mall,
            square,
            settings,
            store,
            bus,
            accounts,
            sessions,
            login_limit,
            ledger,
            tasks,
            objects,
            task_limit: rate_limits.limiter(
                "task_creates",
                crate::tasks::creates_per_minute()?,
                Duration::from_secs(60),
            ),
            prompts,
            channels,
            characters,
            chats,
            llm,
            agent,
            polish,
            comments,
            ornaments,
            mail,
            activities,
        });
        crate::moderation::bans::start_sweeper(state.clone(), ban_sweep);
        crate::accounts::deletion::start_backfill(state.clone());
        crate::accounts::deletion::start_sweeper(
            state.clone(),
            crate::accounts::deletion::sweep_every_from_env()?,
        );
        state.mail.start_sender();
        crate::accounts::expiry::start_cleanup(
            state.store.clone(),
            crate::accounts::expiry::cleanup_every_from_env()?,
        );
        crate::moderation::legacy::start(state.store.clone(), state.moderation.clone());
        let server = HttpServer::new(move || {
            let app = App::new()
                .app_data(state.clone())
                .app_data(error::json_config(max_body))
                .app_data(web::PayloadConfig::new(max_body))
                .app_data(error::query_config())
                .app_data(error::path_config())
                .app_data(BodyTimeout(body_timeout))
                .wrap(from_fn(body_deadline))
                .wrap(from_fn(webapp::device_cookie))
                .wrap(webapp::security_headers())
                .wrap(Compress::default())
                // Not /ws: the access log keeps its rendered line for as long as
                // the response body lives, which for a socket is its whole life
                // (about 300 bytes per idle socket). `ws::socket` logs upgrades.
                .wrap(
                    actix_web::middleware::Logger::new("%r %s %Dms")
                        .log_target("easel::http")
                        .exclude("/ws"),
                )
                .route("/ws", web::get().to(ws::socket))
                .configure(routes::config);
            match &web_dir {
                Some(dir) => app.service(webapp::static_files(dir)),
                None => app
                    .route("/", web::get().to(webapp::no_web_app))
                    .default_service(web::to(routes::not_found)),
            }
        })
        .listen(listener)?
        .shutdown_timeout(5)
        .run();
        Ok(Application {
            port,
            server,
            stop: stop_tx,
            analytics,
        })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        let r = self.server.await;
        let _ = self.stop.send(true);
        let _ = self.analytics.flush().await;
        r
    }
}
