//! The store server behind `easel store-serve`: any [`Store`] (in practice
//! the embedded redb store) answered over HTTP/1.1 to [`super::RemoteStore`]s.
//!
//! `POST /v1/store` with `Authorization: Bearer <token>` and a MessagePack
//! [`Request`] body runs that one call and answers `200` with a MessagePack
//! [`Response`] (a store error is a `Response::Error`, still `200`: the call
//! ran). `401` for a missing or wrong token, `400` for a body that is not a
//! request or names an unknown table, `413` for a body over
//! [`MAX_BODY_BYTES`]. `GET /health` answers `204` to a holder of the token.
//!
//! Calls run concurrently, as they arrive: writes from every node meet in
//! the embedded store's group commit, and compare-and-set stays
//! linearizable because this one process owns the database.

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{AUTHORIZATION, CONTENT_TYPE};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;

use super::wire::{self, Bin, Request, Response, WireError};
use super::{MSGPACK, PATH};
use crate::store::{tables, DynStore, Key, Order, PagingState, ScanRange, StoreResult, TableDef};

/// Largest request body accepted (a `get_many` of many keys, or a large row).
pub const MAX_BODY_BYTES: usize = 64 << 20;

/// A connection that has not sent a whole request head in this long is closed.
const HEADER_TIMEOUT: Duration = Duration::from_secs(30);

struct State {
    store: DynStore,
    token: Vec<u8>,
    tables: HashMap<&'static str, &'static TableDef>,
}

/// Serves `store` on `listener` until `shutdown` completes; then stops
/// accepting, lets every connection finish the call it is running, and
/// returns. The token must not be empty.
pub async fn serve(
    listener: TcpListener,
    store: DynStore,
    token: &str,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    if token.is_empty() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "the store server needs a token",
        ));
    }
    let state = Arc::new(State {
        store,
        token: token.as_bytes().to_vec(),
        tables: tables::ALL.iter().map(|t| (t.name, t)).collect(),
    });
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let mut connections = tokio::task::JoinSet::new();
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Out of file descriptors and the like: wait, go on.
                    tracing::warn!(error = %e, "store server: accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let state = state.clone();
        let mut stop = stop_rx.clone();
        connections.spawn(async move {
            let service = service_fn(move |req| {
                let state = state.clone();
                async move { Ok::<_, Infallible>(handle(&state, req).await) }
            });
            let conn = http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT)
                .serve_connection(TokioIo::new(stream), service);
            tokio::pin!(conn);
            let done = tokio::select! {
                r = conn.as_mut() => r,
                _ = stop.changed() => {
                    conn.as_mut().graceful_shutdown();
                    conn.await
                }
            };
            if let Err(e) = done {
                tracing::debug!(%peer, error = %e, "store server: connection ended");
            }
        });
        // Reap finished connections so the set does not grow forever.
        while connections.try_join_next().is_some() {}
    }
    let _ = stop_tx.send(true);
    while connections.join_next().await.is_some() {}
    Ok(())
}

type HttpResponse = hyper::Response<Full<Bytes>>;

fn plain(status: StatusCode, text: &str) -> HttpResponse {
    let mut r = hyper::Response::new(Full::new(Bytes::from(text.to_owned())));
    *r.status_mut() = status;
    r
}

/// Compares the whole token whatever the first difference, so the time
/// taken says nothing about how much of a guess was right.
fn token_matches(state: &State, header: Option<&hyper::header::HeaderValue>) -> bool {
    let Some(given) = header
        .and_then(|h| h.as_bytes().strip_prefix(b"Bearer "))
        .map(<[u8]>::to_vec)
    else {
        return false;
    };
    if given.len() != state.token.len() {
        return false;
    }
    given
        .iter()
        .zip(&state.token)
        .fold(0u8, |acc, (a, b)| acc | (a ^ b))
        == 0
}

async fn handle(state: &State, req: hyper::Request<Incoming>) -> HttpResponse {
    let authorised = token_matches(state, req.headers().get(AUTHORIZATION));
    let health = match (req.method(), req.uri().path()) {
        (&Method::POST, PATH) => false,
        (&Method::GET, "/health") => true,
        _ => return plain(StatusCode::NOT_FOUND, "no such call"),
    };
    if !authorised {
        return plain(StatusCode::UNAUTHORIZED, "missing or wrong store token");
    }
    if health {
        return plain(StatusCode::NO_CONTENT, "");
    }
    let body = match Limited::new(req.into_body(), MAX_BODY_BYTES)
        .collect()
        .await
    {
        Ok(b) => b.to_bytes(),
        Err(e) => {
            return if e.is::<http_body_util::LengthLimitError>() {
                plain(StatusCode::PAYLOAD_TOO_LARGE, "request body too large")
            } else {
                plain(StatusCode::BAD_REQUEST, "request body could not be read")
            }
        }
    };
    let call: Request = match wire::decode(&body) {
        Ok(c) => c,
        Err(e) => return plain(StatusCode::BAD_REQUEST, &format!("not a store call: {e}")),
    };
    let Some(def) = state.tables.get(call.table()).copied() else {
        return plain(
            StatusCode::BAD_REQUEST,
            &format!("unknown table {:?}", call.table()),
        );
    };
    let answer = run(&state.store, def, call)
        .await
        .unwrap_or_else(|e| Response::Error(WireError::from(e)));
    match wire::encode(&answer) {
        Ok(bytes) => {
            let mut r = hyper::Response::new(Full::new(Bytes::from(bytes)));
            r.headers_mut().insert(
                CONTENT_TYPE,
                hyper::header::HeaderValue::from_static(MSGPACK),
            );
            r
        }
        Err(e) => plain(
            StatusCode::INTERNAL_SERVER_ERROR,
            &format!("answer could not be encoded: {e}"),
        ),
    }
}

fn key(b: Bin) -> Key {
    Key::from_bytes(b.0)
}

/// Runs one call on the store.
async fn run(store: &DynStore, t: &'static TableDef, call: Request) -> StoreResult<Response> {
    Ok(match call {
        Request::Get { pk, ck, .. } => {
            Response::Value(store.get(t, &key(pk), &key(ck)).await?.map(Bin))
        }
        Request::GetMany { keys, .. } => {
            let keys: Vec<(Key, Key)> = keys.into_iter().map(|(p, c)| (key(p), key(c))).collect();
            Response::Values(
                store
                    .get_many(t, &keys)
                    .await?
                    .into_iter()
                    .map(|v| v.map(Bin))
                    .collect(),
            )
        }
        Request::Put { pk, ck, value, .. } => {
            store.put(t, &key(pk), &key(ck), value.0).await?;
            Response::Done
        }
        Request::Delete { pk, ck, .. } => {
            store.delete(t, &key(pk), &key(ck)).await?;
            Response::Done
        }
        Request::DeletePartition { pk, .. } => {
            store.delete_partition(t, &key(pk)).await?;
            Response::Done
        }
        Request::Scan {
            pk,
            from,
            to,
            desc,
            limit,
            paging,
            ..
        } => {
            let range = ScanRange {
                from: from.into_bound(),
                to: to.into_bound(),
                order: if desc { Order::Desc } else { Order::Asc },
                limit,
                paging: paging.map(|p| PagingState(p.0)),
            };
            let page = store.scan(t, &key(pk), &range).await?;
            Response::Page {
                rows: page
                    .rows
                    .into_iter()
                    .map(|(k, v)| (Bin(k), Bin(v)))
                    .collect(),
                paging: page.paging.map(|p| Bin(p.0)),
            }
        }
        Request::ScanTable { after, limit, .. } => {
            let after = after.map(|(p, c)| (key(p), key(c)));
            let rows = store
                .scan_table(t, after.as_ref().map(|(p, c)| (p, c)), limit)
                .await?;
            Response::TableRows(
                rows.into_iter()
                    .map(|(p, c, v)| (p.as_bytes().into(), c.as_bytes().into(), Bin(v)))
                    .collect(),
            )
        }
        Request::Cas {
            pk,
            ck,
            expected,
            new,
            ..
        } => {
            let out = store
                .cas(
                    t,
                    &key(pk),
                    &key(ck),
                    expected.as_ref().map(|b| b.0.as_slice()),
                    new.map(|b| b.0),
                )
                .await?;
            Response::Cas {
                applied: out.applied,
                current: out.current.map(Bin),
            }
        }
        Request::CounterAdd { pk, ck, delta, .. } => {
            store.counter_add(t, &key(pk), &key(ck), delta).await?;
            Response::Done
        }
        Request::CounterGet { pk, ck, .. } => {
            Response::Counter(store.counter_get(t, &key(pk), &key(ck)).await?)
        }
    })
}
