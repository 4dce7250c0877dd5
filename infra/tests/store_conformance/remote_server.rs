//! The remote store (an embedded store behind the store server, over
//! real HTTP on a free port): the shared-server suite, linearizability
//! across clients, the token, and retries of lost calls.

use super::*;
pub(crate) const TOKEN: &str = "conformance-token";

impl RemoteServer {
    pub(crate) async fn start() -> RemoteServer {
        let dir = tempfile::tempdir().unwrap();
        let store = open_embedded(dir.path());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            server::serve(listener, store, TOKEN, async {
                let _ = rx.await;
            })
            .await
            .unwrap();
        });
        RemoteServer {
            addr,
            stop: Some(tx),
            task: Some(task),
            _dir: dir,
        }
    }

    pub(crate) fn remote(&self, token: &str) -> RemoteStore {
        RemoteStore::new(&self.addr.to_string(), token, Duration::from_secs(5)).unwrap()
    }

    pub(crate) fn client(&self) -> DynStore {
        Arc::new(self.remote(TOKEN))
    }

    pub(crate) async fn stop(mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(task) = self.task.take() {
            task.await.unwrap();
        }
    }
}

impl Drop for RemoteServer {
    fn drop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
    }
}

/// All cases in sequence through one store server, as nodes share it.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
pub(crate) async fn remote_suite_shares_one_server() {
    let server = RemoteServer::start().await;
    let store = server.client();
    assert_eq!(store.backend_name(), "remote");
    server.remote(TOKEN).check().await.unwrap();
    run_all(store).await;
    server.stop().await;
}

/// Two clients (two nodes) racing read-modify-writes and counter adds on
/// the same rows through one server: nothing is lost, because the server
/// alone runs every compare-and-set.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
pub(crate) async fn remote_clients_share_one_linearizable_store() {
    let server = RemoteServer::start().await;
    let (a, b) = (server.client(), server.client());
    let pk = Key::of("two-nodes");
    let wallets = |s: &DynStore| -> Table<Wallet> { Table::new(s.clone(), &tables::CONFORMANCE) };
    let start = Wallet {
        owner: "ann".into(),
        balance: 0,
        tags: vec![],
        note: None,
    };
    wallets(&a).put(&pk, &n(1), &start).await.unwrap();
    let tasks: Vec<_> = (0..24)
        .map(|i| {
            let (w, pk) = (wallets(if i % 2 == 0 { &a } else { &b }), pk.clone());
            let counters = Counters::new(
                if i % 3 == 0 { a.clone() } else { b.clone() },
                &tables::CONFORMANCE_COUNTERS,
            );
            tokio::spawn(async move {
                w.update(&pk, &n(1), None, |w| w.balance += 1)
                    .await
                    .unwrap();
                counters.add(&pk, &Key::empty(), 2).await.unwrap();
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    assert_eq!(
        wallets(&b).get(&pk, &n(1)).await.unwrap().unwrap().balance,
        24
    );
    assert_eq!(a.counter_get(C, &pk, &Key::empty()).await.unwrap(), 48);
    // What one node wrote, the other reads at once.
    b.put(T, &pk, &n(2), b"from b".to_vec()).await.unwrap();
    assert_eq!(
        a.get(T, &pk, &n(2)).await.unwrap().as_deref(),
        Some(&b"from b"[..])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(crate) async fn remote_refuses_a_wrong_token() {
    let server = RemoteServer::start().await;
    let wrong = server.remote("not-the-token");
    assert!(matches!(wrong.check().await, Err(StoreError::Backend(_))));
    let wrong: DynStore = Arc::new(wrong);
    let got = wrong.get(T, &Key::of("x"), &Key::empty()).await;
    assert!(
        matches!(&got, Err(StoreError::Backend(m)) if m.contains("401")),
        "{got:?}"
    );
    // Nothing written by a refused put.
    let _ = wrong
        .put(T, &Key::of("x"), &Key::empty(), b"no".to_vec())
        .await;
    let right = server.client();
    assert_eq!(
        right.get(T, &Key::of("x"), &Key::empty()).await.unwrap(),
        None
    );
    // A server needs a token.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    assert!(
        server::serve(listener, open_embedded(dir.path()), "", async {})
            .await
            .is_err()
    );
}

/// A server that reads each request and hangs up without answering, so the
/// client cannot know whether the call ran. Counts the requests it read.
pub(crate) async fn answer_lost_server() -> (String, Arc<std::sync::atomic::AtomicUsize>) {
    use tokio::io::AsyncReadExt;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let seen = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = seen.clone();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let counter = counter.clone();
            tokio::spawn(async move {
                let mut buf = vec![0u8; 64 * 1024];
                if let Ok(n) = stream.read(&mut buf).await {
                    if n > 0 {
                        counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    }
                }
                drop(stream);
            });
        }
    });
    (addr, seen)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(crate) async fn remote_retries_only_idempotent_calls_whose_answer_was_lost() {
    use std::sync::atomic::Ordering::SeqCst;
    let (addr, seen) = answer_lost_server().await;
    let store: DynStore = Arc::new(RemoteStore::new(&addr, TOKEN, Duration::from_secs(2)).unwrap());
    let (pk, ck) = (Key::of("lost"), Key::empty());

    // A read and a put are sent again (5 sends in all), then give up.
    assert!(matches!(
        store.get(T, &pk, &ck).await,
        Err(StoreError::Unavailable(_))
    ));
    assert_eq!(seen.swap(0, SeqCst), 5, "a get is retried");
    assert!(matches!(
        store.put(T, &pk, &ck, b"v".to_vec()).await,
        Err(StoreError::Unavailable(_))
    ));
    assert_eq!(seen.swap(0, SeqCst), 5, "a put is retried");

    // A compare-and-set or a counter add may have applied: sent once.
    let cas = store.cas(T, &pk, &ck, None, Some(b"v".to_vec())).await;
    assert!(
        matches!(&cas, Err(StoreError::Unavailable(m)) if m.contains("may have applied")),
        "{cas:?}"
    );
    assert_eq!(seen.swap(0, SeqCst), 1, "a cas is not retried");
    assert!(matches!(
        store.counter_add(C, &pk, &ck, 1).await,
        Err(StoreError::Unavailable(_))
    ));
    assert_eq!(seen.swap(0, SeqCst), 1, "a counter add is not retried");
}

/// A call that could not connect never ran, so even a compare-and-set is
/// sent again: here until the server appears.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(crate) async fn remote_retries_any_call_that_never_reached_the_server() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let store: DynStore =
        Arc::new(RemoteStore::new(&addr.to_string(), TOKEN, Duration::from_secs(2)).unwrap());
    let dir = tempfile::tempdir().unwrap();
    let backing = open_embedded(dir.path());
    let call = tokio::spawn(async move {
        store
            .cas(
                T,
                &Key::of("late"),
                &Key::empty(),
                None,
                Some(b"v".to_vec()),
            )
            .await
    });
    // The client's first sends are refused; the server comes up during its backoff.
    tokio::time::sleep(Duration::from_millis(120)).await;
    let listener = tokio::net::TcpListener::bind(addr).await.unwrap();
    let served = backing.clone();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(async move {
        server::serve(listener, served, TOKEN, async {
            let _ = rx.await;
        })
        .await
    });
    let out = call.await.unwrap().unwrap();
    assert!(out.applied);
    assert_eq!(
        backing
            .get(T, &Key::of("late"), &Key::empty())
            .await
            .unwrap()
            .as_deref(),
        Some(&b"v"[..])
    );
    let _ = tx.send(());
    server.await.unwrap().unwrap();
}
