//! `are/you/ok`: a real health check for load balancers (issue 22 part 6).
//! Each part is probed with a time limit ([`PART_TIMEOUT`]):
//! - store: a health row (`health_probes`, one per node) is written with a
//!   fresh nonce and read back;
//! - queue: a read of the live map (`live_attempt` of a task id no job has),
//!   which enqueues nothing;
//! - bus: a message published on a fresh `task:health-{nonce}` topic must
//!   come back to this node's subscription (over Redis: through the
//!   server, as every node hears its own publishes).
//!
//! The report carries each part's status, backend and time; the route
//! answers 200 when all are up, otherwise 503 with the `ServiceUnavailable`
//! envelope and the same report as `data`. `ping` stays a constant answer.

use std::time::{Duration, Instant};

use infra::bus::{BusMessage, DynBus, Received};
use infra::queue::DynQueue;
use infra::store::{tables, DynStore, Key, Table};
use protocol::frame::PushContent;
use serde::{Deserialize, Serialize};

/// Longest a part may take before it counts as down.
pub const PART_TIMEOUT: Duration = Duration::from_secs(2);
/// The push kind of the probe message (no socket ever subscribes to its topic).
const PROBE_FRAME: u16 = 0;

/// The store's health row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HealthRow {
    pub nonce: String,
    pub at: i64,
}

/// One part's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartStatus {
    pub ok: bool,
    pub backend: String,
    /// Time the probe took (ms).
    pub ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The whole report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HealthReport {
    pub ok: bool,
    pub version: String,
    pub store: PartStatus,
    pub queue: PartStatus,
    pub bus: PartStatus,
}

#[derive(Clone)]
pub struct HealthCheck {
    store: DynStore,
    bus: DynBus,
    queue: DynQueue,
    /// This node's probe row.
    node: String,
}

async fn timed<F>(backend: &str, probe: F) -> PartStatus
where
    F: std::future::Future<Output = Result<(), String>>,
{
    let start = Instant::now();
    let result = match tokio::time::timeout(PART_TIMEOUT, probe).await {
        Ok(r) => r,
        Err(_) => Err(format!("no answer within {} ms", PART_TIMEOUT.as_millis())),
    };
    let ms = u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
    if let Err(e) = &result {
        tracing::warn!(backend, error = %e, "health check: part down");
    }
    PartStatus {
        ok: result.is_ok(),
        backend: backend.to_owned(),
        ms,
        error: result.err(),
    }
}

impl HealthCheck {
    pub fn new(store: DynStore, bus: DynBus, queue: DynQueue) -> HealthCheck {
        HealthCheck {
            store,
            bus,
            queue,
            node: uuid::Uuid::now_v7().simple().to_string(),
        }
    }

    async fn probe_store(&self) -> Result<(), String> {
        let rows: Table<HealthRow> = Table::new(self.store.clone(), &tables::HEALTH_PROBES);
        let row = HealthRow {
            nonce: uuid::Uuid::now_v7().simple().to_string(),
            at: crate::accounts::now_millis(),
        };
        let key = Key::of(&self.node);
        rows.put(&key, &Key::empty(), &row)
            .await
            .map_err(|e| e.to_string())?;
        match rows
            .get(&key, &Key::empty())
            .await
            .map_err(|e| e.to_string())?
        {
            Some(back) if back.nonce == row.nonce => Ok(()),
            _ => Err("the health row read back is not the one written".into()),
        }
    }

    async fn probe_queue(&self) -> Result<(), String> {
        self.queue
            .live_attempt("health-probe")
            .await
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    async fn probe_bus(&self) -> Result<(), String> {
        let nonce = uuid::Uuid::now_v7().simple().to_string();
        let topic = format!("task:health-{nonce}");
        let mut sub = self.bus.subscribe(&topic);
        let content = PushContent::new(&nonce).map_err(|e| e.to_string())?;
        self.bus
            .publish(
                &topic,
                BusMessage::Push {
                    frame_type: PROBE_FRAME,
                    content,
                },
            )
            .await;
        loop {
            match sub.recv().await {
                Received::Message(m) | Received::Numbered(_, m) => {
                    if let BusMessage::Push { content, .. } = m.as_ref() {
                        if content.as_str().contains(&nonce) {
                            return Ok(());
                        }
                    }
                }
                Received::Lagged(_) => {}
                Received::Closed => return Err("the bus closed the subscription".into()),
            }
        }
    }

    /// Probes the three parts concurrently.
    pub async fn check(&self) -> HealthReport {
        let (store, queue, bus) = tokio::join!(
            timed(self.store.backend_name(), self.probe_store()),
            timed(self.queue.backend_name(), self.probe_queue()),
            timed(self.bus.backend_name(), self.probe_bus()),
        );
        HealthReport {
            ok: store.ok && queue.ok && bus.ok,
            version: env!("CARGO_PKG_VERSION").to_owned(),
            store,
            queue,
            bus,
        }
    }
}
