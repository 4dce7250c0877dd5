//! `Application::build(settings)` wires the parts named by the settings
//! (store, bus, actors), binds the listener (port 0 in tests) and exposes
//! `port()`; `run_until_stopped()` serves until a signal stops it.

use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

use actix_web::middleware::{from_fn, Compress};
use actix_web::{web, App, HttpServer};
use actors::{SessionDeps, StreamRegistry};
use anyhow::{bail, Context};
use infra::bus::{DynBus, LocalBus};
use infra::config::{Settings, StoreConfig};
use infra::store::embedded::EmbeddedStore;
use infra::store::DynStore;

use crate::accounts::{AccountService, SocketAuth};
use crate::ratelimit::RateLimiter;
use crate::state::AppState;
use crate::{error, routes, web as webapp, ws};

pub struct Application {
    port: u16,
    server: actix_web::dev::Server,
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
            bail!("this build of easel has no ScyllaDB support (feature `scylla`)")
        }
    }
}

fn open_bus(settings: &Settings) -> anyhow::Result<DynBus> {
    if settings.redis.is_some() {
        bail!(
            "EASEL_REDIS is set, but this build has no Redis bus yet: run one node without it \
             (the Redis bus and job queue arrive with the generation core)"
        );
    }
    Ok(Arc::new(LocalBus::new(4096)))
}

impl Application {
    pub async fn build(settings: Settings) -> anyhow::Result<Application> {
        std::fs::create_dir_all(&settings.data_dir)
            .with_context(|| format!("creating data folder {}", settings.data_dir.display()))?;
        if settings.objects != "local" {
            bail!(
                "EASEL_OBJECTS is {:?}, but this build stores no objects yet (uploads and results \
                 arrive with the generation core): leave it at `local`",
                settings.objects
            );
        }
        let store = open_store(&settings).await?;
        let bus = open_bus(&settings)?;
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
        let login_limit =
            RateLimiter::new(settings.auth.attempts_per_minute, Duration::from_secs(60));
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
        let state = web::Data::new(AppState {
            settings,
            store,
            bus,
            accounts,
            sessions,
            login_limit,
        });
        let server = HttpServer::new(move || {
            let app = App::new()
                .app_data(state.clone())
                .app_data(error::json_config(max_body))
                .app_data(web::PayloadConfig::new(max_body))
                .wrap(from_fn(webapp::device_cookie))
                .wrap(webapp::security_headers())
                .wrap(Compress::default())
                .wrap(actix_web::middleware::Logger::new("%r %s %Dms").log_target("easel::http"))
                .route("/ws", web::get().to(ws::socket))
                .configure(routes::config);
            match &web_dir {
                Some(dir) => app.service(webapp::static_files(dir)),
                None => app.route("/", web::get().to(webapp::no_web_app)),
            }
        })
        .listen(listener)?
        .shutdown_timeout(5)
        .run();
        Ok(Application { port, server })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        self.server.await
    }
}
