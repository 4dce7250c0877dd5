//! The remote store: one store server (`easel store-serve`, [`server`])
//! owns the embedded redb database, and every `easel serve` node reaches it
//! through [`RemoteStore`], a [`Store`] whose calls are HTTP requests. This
//! is how several nodes share one store without ScyllaDB. It is a single
//! process: when it is down, every node's store calls fail (not HA).
//!
//! Every call is one `POST /v1/store` with a bearer token and a MessagePack
//! body ([`wire`]). Compare-and-set and counter adds stay linearizable
//! because they run in the one server process, in its group commit, exactly
//! as on the embedded store.
//!
//! Failures: each request has a timeout. A call that never reached the
//! server (the connection was refused or could not be made) is sent again,
//! whatever it is. A call whose answer was lost (timeout, reset, a 5xx from
//! a proxy) is sent again only when it is idempotent (reads, puts, deletes);
//! a compare-and-set or counter add then answers
//! [`StoreError::Unavailable`], since it may or may not have applied.

use std::time::Duration;

use bytes::Bytes;
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE};
use reqwest::StatusCode;

use super::{
    CasOutcome, Key, Order, PagingState, RawPage, ScanRange, Store, StoreError, StoreResult,
    TableDef, TableRow,
};

pub mod server;
pub mod wire;

use wire::{Bin, Request, Response, WireBound};

/// The one call path (the version is in it).
pub const PATH: &str = "/v1/store";
/// Content type of both bodies.
pub const MSGPACK: &str = "application/msgpack";

/// Sends of one call at most (the first and its retries).
const ATTEMPTS: u32 = 5;
/// Wait before the first retry; doubled before each next one (50 ms to 400 ms).
const FIRST_BACKOFF: Duration = Duration::from_millis(50);

/// A [`Store`] on a store server.
#[derive(Clone)]
pub struct RemoteStore {
    http: reqwest::Client,
    base: String,
    url: String,
    bearer: String,
}

impl std::fmt::Debug for RemoteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteStore")
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

/// How a request failed: before it could reach the server, or after (the
/// call may have run).
enum Failure {
    NotSent(String),
    Lost(String),
}

impl RemoteStore {
    /// A client for the server at `addr` (`host:port`); no connection is
    /// made until the first call (see [`RemoteStore::check`]).
    pub fn new(addr: &str, token: &str, timeout: Duration) -> StoreResult<RemoteStore> {
        let http = reqwest::Client::builder()
            .connect_timeout(timeout.min(Duration::from_secs(3)))
            .timeout(timeout)
            // Below the server's 30 s header timeout, so an idle connection
            // is never reused just as the server closes it.
            .pool_idle_timeout(Duration::from_secs(10))
            .tcp_nodelay(true)
            .no_proxy()
            .build()
            .map_err(|e| StoreError::Backend(format!("store client: {e}")))?;
        let base = format!("http://{addr}");
        Ok(RemoteStore {
            http,
            url: format!("{base}{PATH}"),
            base,
            bearer: format!("Bearer {token}"),
        })
    }

    /// Asks the server whether it answers and takes the token.
    pub async fn check(&self) -> StoreResult<()> {
        let resp = self
            .http
            .get(format!("{}/health", self.base))
            .header(AUTHORIZATION, &self.bearer)
            .send()
            .await
            .map_err(|e| StoreError::Unavailable(format!("store server {}: {e}", self.base)))?;
        match resp.status() {
            StatusCode::NO_CONTENT => Ok(()),
            StatusCode::UNAUTHORIZED => Err(StoreError::Backend(format!(
                "store server {} refused the token (EASEL_STORE_TOKEN)",
                self.base
            ))),
            s => Err(StoreError::Unavailable(format!(
                "store server {} answered {s}",
                self.base
            ))),
        }
    }

    async fn send(&self, body: &Bytes) -> Result<Response, Result<Failure, StoreError>> {
        let sent = self
            .http
            .post(&self.url)
            .header(AUTHORIZATION, &self.bearer)
            .header(CONTENT_TYPE, MSGPACK)
            .body(body.clone())
            .send()
            .await;
        let resp = match sent {
            Ok(r) => r,
            Err(e) if e.is_connect() => return Err(Ok(Failure::NotSent(e.to_string()))),
            Err(e) => return Err(Ok(Failure::Lost(e.to_string()))),
        };
        let status = resp.status();
        if status.is_server_error() {
            return Err(Ok(Failure::Lost(format!("answered {status}"))));
        }
        if status != StatusCode::OK {
            let text = resp.text().await.unwrap_or_default();
            return Err(Err(StoreError::Backend(format!(
                "store server refused the call: {status} {text}"
            ))));
        }
        let bytes = resp
            .bytes()
            .await
            .map_err(|e| Ok(Failure::Lost(e.to_string())))?;
        wire::decode::<Response>(&bytes).map_err(|e| {
            Err(StoreError::Backend(format!(
                "store server answered something unreadable: {e}"
            )))
        })
    }

    /// Sends one call, retrying as the module says; a store error the
    /// server answered comes back as that error.
    async fn call(&self, t: &TableDef, req: Request) -> StoreResult<Response> {
        let idempotent = req.idempotent();
        let body = Bytes::from(wire::encode(&req).map_err(StoreError::Codec)?);
        let mut backoff = FIRST_BACKOFF;
        let mut attempt = 1;
        loop {
            let failure = match self.send(&body).await {
                Ok(Response::Error(e)) => return Err(e.into_store_error(t.name)),
                Ok(r) => return Ok(r),
                Err(Err(e)) => return Err(e),
                Err(Ok(f)) => f,
            };
            let (retry, why) = match failure {
                Failure::NotSent(why) => (true, why),
                Failure::Lost(why) => (idempotent, why),
            };
            if !retry || attempt >= ATTEMPTS {
                let unknown = if retry { "" } else { " (it may have applied)" };
                return Err(StoreError::Unavailable(format!(
                    "store server {} on {}: {why}{unknown}",
                    self.base, t.name
                )));
            }
            tracing::debug!(table = t.name, attempt, error = %why, "store call retried");
            tokio::time::sleep(backoff).await;
            backoff *= 2;
            attempt += 1;
        }
    }
}

fn unexpected(t: &TableDef, r: &Response) -> StoreError {
    StoreError::Backend(format!(
        "store server: unexpected answer on {}: {r:?}",
        t.name
    ))
}

fn bin(k: &Key) -> Bin {
    k.as_bytes().into()
}

#[async_trait::async_trait]
impl Store for RemoteStore {
    async fn get(&self, t: &TableDef, pk: &Key, ck: &Key) -> StoreResult<Option<Vec<u8>>> {
        let req = Request::Get {
            table: t.name.to_owned(),
            pk: bin(pk),
            ck: bin(ck),
        };
        match self.call(t, req).await? {
            Response::Value(v) => Ok(v.map(|b| b.0)),
            r => Err(unexpected(t, &r)),
        }
    }

    async fn get_many(
        &self,
        t: &TableDef,
        keys: &[(Key, Key)],
    ) -> StoreResult<Vec<Option<Vec<u8>>>> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let req = Request::GetMany {
            table: t.name.to_owned(),
            keys: keys.iter().map(|(p, c)| (bin(p), bin(c))).collect(),
        };
        match self.call(t, req).await? {
            Response::Values(v) if v.len() == keys.len() => {
                Ok(v.into_iter().map(|o| o.map(|b| b.0)).collect())
            }
            r => Err(unexpected(t, &r)),
        }
    }

    async fn put(&self, t: &TableDef, pk: &Key, ck: &Key, value: Vec<u8>) -> StoreResult<()> {
        let req = Request::Put {
            table: t.name.to_owned(),
            pk: bin(pk),
            ck: bin(ck),
            value: Bin(value),
        };
        match self.call(t, req).await? {
            Response::Done => Ok(()),
            r => Err(unexpected(t, &r)),
        }
    }

    async fn delete(&self, t: &TableDef, pk: &Key, ck: &Key) -> StoreResult<()> {
        let req = Request::Delete {
            table: t.name.to_owned(),
            pk: bin(pk),
            ck: bin(ck),
        };
        match self.call(t, req).await? {
            Response::Done => Ok(()),
            r => Err(unexpected(t, &r)),
        }
    }

    async fn delete_partition(&self, t: &TableDef, pk: &Key) -> StoreResult<()> {
        let req = Request::DeletePartition {
            table: t.name.to_owned(),
            pk: bin(pk),
        };
        match self.call(t, req).await? {
            Response::Done => Ok(()),
            r => Err(unexpected(t, &r)),
        }
    }

    async fn scan(&self, t: &TableDef, pk: &Key, range: &ScanRange) -> StoreResult<RawPage> {
        let req = Request::Scan {
            table: t.name.to_owned(),
            pk: bin(pk),
            from: WireBound::of(&range.from),
            to: WireBound::of(&range.to),
            desc: range.order == Order::Desc,
            limit: range.limit,
            paging: range.paging.as_ref().map(|p| Bin(p.0.clone())),
        };
        match self.call(t, req).await? {
            Response::Page { rows, paging } => Ok(RawPage {
                rows: rows.into_iter().map(|(k, v)| (k.0, v.0)).collect(),
                paging: paging.map(|p| PagingState(p.0)),
            }),
            r => Err(unexpected(t, &r)),
        }
    }

    async fn scan_table(
        &self,
        t: &TableDef,
        after: Option<(&Key, &Key)>,
        limit: u32,
    ) -> StoreResult<Vec<TableRow>> {
        let req = Request::ScanTable {
            table: t.name.to_owned(),
            after: after.map(|(p, c)| (bin(p), bin(c))),
            limit,
        };
        match self.call(t, req).await? {
            Response::TableRows(rows) => Ok(rows
                .into_iter()
                .map(|(p, c, v)| (Key::from_bytes(p.0), Key::from_bytes(c.0), v.0))
                .collect()),
            r => Err(unexpected(t, &r)),
        }
    }

    async fn cas(
        &self,
        t: &TableDef,
        pk: &Key,
        ck: &Key,
        expected: Option<&[u8]>,
        new: Option<Vec<u8>>,
    ) -> StoreResult<CasOutcome> {
        let req = Request::Cas {
            table: t.name.to_owned(),
            pk: bin(pk),
            ck: bin(ck),
            expected: expected.map(Bin::from),
            new: new.map(Bin),
        };
        match self.call(t, req).await? {
            Response::Cas { applied, current } => Ok(CasOutcome {
                applied,
                current: current.map(|b| b.0),
            }),
            r => Err(unexpected(t, &r)),
        }
    }

    async fn counter_add(&self, t: &TableDef, pk: &Key, ck: &Key, delta: i64) -> StoreResult<()> {
        let req = Request::CounterAdd {
            table: t.name.to_owned(),
            pk: bin(pk),
            ck: bin(ck),
            delta,
        };
        match self.call(t, req).await? {
            Response::Done => Ok(()),
            r => Err(unexpected(t, &r)),
        }
    }

    async fn counter_get(&self, t: &TableDef, pk: &Key, ck: &Key) -> StoreResult<i64> {
        let req = Request::CounterGet {
            table: t.name.to_owned(),
            pk: bin(pk),
            ck: bin(ck),
        };
        match self.call(t, req).await? {
            Response::Counter(n) => Ok(n),
            r => Err(unexpected(t, &r)),
        }
    }

    fn backend_name(&self) -> &'static str {
        "remote"
    }
}
