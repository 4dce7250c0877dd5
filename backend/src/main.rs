//! The `easel` command: `serve` runs the product, `worker` runs generation
//! workers, `store-serve` serves one embedded store to several nodes,
//! `migrate` applies the ScyllaDB schema, `prompt parse` prints a prompt's parse result,
//! `seed-square` fills a data folder's square for benchmarks. The load
//! harness is its own binary, `easel-harness` (the `harness/` crate).

use anyhow::{bail, Context};
use clap::{Parser, Subcommand};
use easel::app::Application;
use infra::config::{Settings, StoreConfig};

#[derive(Parser)]
#[command(
    name = "easel",
    version,
    about = "Easel: a self-hostable AI creation platform"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the server (web app, REST API, WebSocket) on EASEL_ADDR.
    Serve,
    /// Run generation workers that take jobs from the Redis queue named by
    /// EASEL_REDIS and store outputs where EASEL_OBJECTS says (for local
    /// objects, EASEL_DATA must be the server's data folder).
    Worker {
        /// Jobs run at the same time by this process.
        #[arg(long, default_value_t = 1)]
        concurrency: usize,
        /// Worker name prefix in the queue (default: host name and process id).
        #[arg(long)]
        name: Option<String>,
    },
    /// Serve the embedded store of EASEL_DATA to several `easel serve` nodes
    /// (which set EASEL_STORE=easel://host:port). Needs EASEL_STORE_TOKEN.
    /// One process: not highly available.
    StoreServe {
        /// Address to listen on (port 0 picks a free port, printed on stdout).
        #[arg(long, env = "EASEL_STORE_ADDR", default_value = "127.0.0.1:7700")]
        addr: String,
    },
    /// Create the keyspace and tables on the ScyllaDB cluster named by EASEL_STORE.
    Migrate {
        /// Replication factor of a new keyspace.
        #[arg(long, default_value_t = 3)]
        replication_factor: u32,
    },
    /// Print the OpenAPI 3.1 description of every REST call (what
    /// `GET /api/openapi.json` serves; no settings or server needed).
    Openapi,
    /// Prompt tools (no settings or server needed).
    Prompt {
        #[command(subcommand)]
        action: PromptAction,
    },
    /// Fill a data folder's square with synthetic works for benchmarks (the
    /// server must not be running on it): accounts, pictures, works with
    /// tags, likes and follows. Every work is titled "Seed work N".
    SeedSquare {
        /// The data folder (default: EASEL_DATA).
        #[arg(long)]
        data: Option<std::path::PathBuf>,
        #[arg(long, default_value_t = 100_000)]
        works: usize,
        #[arg(long, default_value_t = 1_000)]
        accounts: usize,
        /// Seed of the random choices (the same seed makes the same square).
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
}

#[derive(Subcommand)]
enum PromptAction {
    /// Parse prompt text and print the parse result as one line of JSON:
    /// {"words": [...], "egWords": [...], "params": {...}}.
    Parse {
        /// The prompt dialect: webui or bot (anything else is an error).
        #[arg(long)]
        dialect: String,
        /// The prompt text (may start with dashes, e.g. "--ar 16:9").
        #[arg(allow_hyphen_values = true)]
        text: String,
    },
}

fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| {
                tracing_subscriber::EnvFilter::new("info,easel::http=warn,llama-cpp-2=warn")
            }),
        )
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    let command = match cli.command {
        Command::Prompt { action } => return prompt(action),
        Command::Openapi => {
            #[allow(clippy::print_stdout)]
            {
                println!("{}", easel::routes::openapi::json());
            }
            return Ok(());
        }
        other => other,
    };
    let settings = Settings::load().context("loading settings")?;
    match command {
        Command::Prompt { action } => prompt(action),
        Command::Openapi => Ok(()),
        Command::Serve => actix_web::rt::System::new().block_on(serve(settings)),
        Command::Worker { concurrency, name } => {
            actix_web::rt::System::new().block_on(worker(settings, concurrency, name))
        }
        Command::StoreServe { addr } => tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .context("starting the runtime")?
            .block_on(store_serve(settings, addr)),
        Command::Migrate { replication_factor } => {
            actix_web::rt::System::new().block_on(migrate(settings, replication_factor))
        }
        Command::SeedSquare {
            data,
            works,
            accounts,
            seed,
        } => {
            let mut settings = settings;
            if let Some(d) = data {
                settings.data_dir = d;
            }
            let plan = easel::square::seed::Plan {
                works,
                accounts,
                seed,
            };
            let done =
                actix_web::rt::System::new().block_on(easel::square::seed::run(settings, plan))?;
            #[allow(clippy::print_stdout)]
            {
                println!("{}", serde_json::to_string(&done)?);
            }
            Ok(())
        }
    }
}

/// `easel prompt ...`: pure functions of `protocol::prompt`, output on stdout.
fn prompt(action: PromptAction) -> anyhow::Result<()> {
    match action {
        PromptAction::Parse { dialect, text } => {
            // A usage error, not a failure: a one-line message and exit code
            // 2, without anyhow's report (and backtrace) around it.
            let dialect = match dialect.parse::<protocol::prompt::Dialect>() {
                Ok(d) => d,
                Err(e) => {
                    eprintln!("easel prompt parse: {e}");
                    std::process::exit(2);
                }
            };
            let result = protocol::prompt::parse(&text, dialect);
            let json = serde_json::to_string(&result).context("serialising the parse result")?;
            #[allow(clippy::print_stdout)]
            {
                println!("{json}");
            }
            Ok(())
        }
    }
}

async fn serve(settings: Settings) -> anyhow::Result<()> {
    let host = settings
        .addr
        .rsplit_once(':')
        .map(|(h, _)| h.to_owned())
        .unwrap_or_else(|| "127.0.0.1".into());
    let host = if host == "0.0.0.0" || host == "[::]" {
        "127.0.0.1".to_owned()
    } else {
        host
    };
    tracing::info!(data = %settings.data_dir.display(), store = ?settings.store, "starting");
    let app = Application::build(settings).await?;
    // The one line on stdout: tests and the README rely on it.
    #[allow(clippy::print_stdout)]
    {
        println!("Easel is serving at http://{host}:{}/", app.port());
    }
    app.run_until_stopped().await?;
    Ok(())
}

async fn worker(
    settings: Settings,
    concurrency: usize,
    name: Option<String>,
) -> anyhow::Result<()> {
    if settings.redis.is_none() {
        bail!("easel worker needs EASEL_REDIS (the queue it takes jobs from); a single `easel serve` runs its own workers");
    }
    let queue = easel::app::open_queue(&settings).await?;
    let objects = easel::app::open_objects(&settings)?;
    easel::app::probe_objects(&objects, &settings.objects).await?;
    let router = easel::app::engine_router(&settings, easel::app::speaker(&settings))?;
    let name = name.unwrap_or_else(|| format!("worker-{}", std::process::id()));
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let mut handles = Vec::new();
    let cache = easel::app::model_cache(&settings)?;
    let nsfw = easel::nsfw::NsfwScorer::from_env()?;
    for i in 0..concurrency.max(1) {
        let ws = easel::app::worker_settings(
            &settings,
            format!("{name}-{i}"),
            cache.clone(),
            nsfw.clone(),
        );
        handles.push(actix_web::rt::spawn(easel::worker::run(
            queue.clone(),
            objects.clone(),
            router.clone(),
            ws,
            stop_rx.clone(),
        )));
    }
    #[allow(clippy::print_stdout)]
    {
        println!(
            "Easel worker {name} is running ({} jobs at a time)",
            concurrency.max(1)
        );
    }
    tokio::signal::ctrl_c()
        .await
        .context("waiting for ctrl-c")?;
    let _ = stop_tx.send(true);
    for h in handles {
        let _ = h.await;
    }
    Ok(())
}

/// `easel store-serve`: the embedded store behind the store server.
async fn store_serve(settings: Settings, addr: String) -> anyhow::Result<()> {
    let token = settings
        .store_token
        .clone()
        .context("easel store-serve needs EASEL_STORE_TOKEN (the nodes send it)")?;
    let dir = settings.data_dir.join("store");
    let store = infra::store::embedded::EmbeddedStore::open(&dir)
        .with_context(|| format!("opening the embedded store in {}", dir.display()))?;
    let listener = tokio::net::TcpListener::bind(&addr)
        .await
        .with_context(|| format!("binding {addr}"))?;
    let bound = listener.local_addr()?;
    tracing::info!(data = %dir.display(), %bound, "store server starting");
    // The one line on stdout: tests read the port from it.
    #[allow(clippy::print_stdout)]
    {
        println!("Easel store is serving at http://{bound}/");
    }
    let shutdown = async {
        let mut term =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = async { match term.as_mut() { Some(t) => { t.recv().await; } None => std::future::pending::<()>().await } } => {}
        }
        tracing::info!("store server stopping");
    };
    infra::store::remote::server::serve(
        listener,
        std::sync::Arc::new(store),
        token.expose(),
        shutdown,
    )
    .await
    .context("serving the store")?;
    Ok(())
}

async fn migrate(settings: Settings, replication_factor: u32) -> anyhow::Result<()> {
    match &settings.store {
        StoreConfig::Embedded => bail!("EASEL_STORE is `embedded`: the embedded store needs no migration (set EASEL_STORE=scylla://host:9042/keyspace)"),
        #[cfg(feature = "scylla")]
        StoreConfig::Scylla { nodes, keyspace } => {
            let store = infra::store::scylla::ScyllaStore::connect(nodes, keyspace).await?;
            store.migrate(infra::store::tables::ALL, replication_factor).await?;
            tracing::info!(keyspace, tables = infra::store::tables::ALL.len(), "schema applied");
            Ok(())
        }
        #[cfg(not(feature = "scylla"))]
        StoreConfig::Scylla { .. } => bail!("this build of easel has no ScyllaDB support"),
        StoreConfig::Remote { .. } => bail!("EASEL_STORE names a store server: `easel store-serve` creates its tables as they are first written; no migration"),
    }
}
