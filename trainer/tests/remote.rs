//! The remote trainer against a fake of Replicate's trainings API
//! (`POST /v1/files`, `POST /v1/models/{owner}/{name}/versions/{version}/
//! trainings`, `GET /v1/trainings/{id}`, `POST /v1/trainings/{id}/cancel`):
//! success with progress from the logs and the weights downloaded, a bad
//! token (401), a failed training, bad JSON, a timeout and cancel; and the
//! same API over https (a TLS front with a certificate from a test CA that
//! Debian's openssl makes, trusted through `ca_file`; refused without it).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
use easel_trainer::remote::{progress_in_logs, RemoteSettings, RemoteTrainer};
use easel_trainer::{TrainError, Trainer};
use engines::Cancel;
use serde_json::{json, Value};

#[derive(Default)]
struct Fake {
    base: String,
    /// The model each training was created with (its scenario).
    trainings: Vec<String>,
    polls: u32,
    cancelled: Vec<String>,
    inputs: Vec<Value>,
    zip_len: usize,
}

type Shared = web::Data<Mutex<Fake>>;

fn authed(req: &HttpRequest) -> bool {
    req.headers()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        == Some("Bearer good")
}

fn unauthorized() -> HttpResponse {
    HttpResponse::Unauthorized().json(json!({"title": "Unauthenticated", "detail": "You did not pass a valid authentication token", "status": 401}))
}

async fn files(req: HttpRequest, body: web::Bytes, s: Shared) -> HttpResponse {
    if !authed(&req) {
        return unauthorized();
    }
    let ct = req
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let text = String::from_utf8_lossy(&body);
    if !ct.starts_with("multipart/form-data") || !text.contains("name=\"content\"") {
        return HttpResponse::BadRequest().json(json!({"detail": "content is required"}));
    }
    let mut f = s.lock().unwrap();
    f.zip_len = body.len();
    let base = f.base.clone();
    HttpResponse::Created().json(json!({
        "id": "file1", "name": "dataset.zip", "content_type": "application/zip",
        "size": body.len(), "urls": {"get": format!("{base}/v1/files/file1")}
    }))
}

async fn create(
    req: HttpRequest,
    path: web::Path<(String, String, String)>,
    body: web::Json<Value>,
    s: Shared,
) -> HttpResponse {
    if !authed(&req) {
        return unauthorized();
    }
    let (_, model, _) = path.into_inner();
    if model == "badjson" {
        return HttpResponse::Created()
            .content_type("application/json")
            .body("{\"id\": \"tr");
    }
    if body.get("destination").and_then(Value::as_str) != Some("me/my-lora") {
        return HttpResponse::UnprocessableEntity().json(json!({"detail": "invalid destination"}));
    }
    let mut f = s.lock().unwrap();
    f.inputs.push(body["input"].clone());
    f.trainings.push(model);
    let id = format!("tr{}", f.trainings.len());
    HttpResponse::Created().json(json!({"id": id, "status": "starting", "input": body["input"]}))
}

async fn get(req: HttpRequest, id: web::Path<String>, s: Shared) -> HttpResponse {
    if !authed(&req) {
        return unauthorized();
    }
    let mut f = s.lock().unwrap();
    let n: usize = id.trim_start_matches("tr").parse().unwrap_or(0);
    let Some(model) = n.checked_sub(1).and_then(|i| f.trainings.get(i)).cloned() else {
        return HttpResponse::NotFound().json(json!({"detail": "Not found."}));
    };
    f.polls += 1;
    let polls = f.polls;
    let base = f.base.clone();
    if f.cancelled.contains(&id) {
        return HttpResponse::Ok().json(json!({"id": *id, "status": "canceled", "logs": ""}));
    }
    let logs = format!(
        "flux_train_replicate:  50%|#####     | {}/10 [00:10<00:10, 1.0it/s]",
        polls.min(10)
    );
    let body = match (model.as_str(), polls) {
        ("fail", p) if p >= 2 => {
            json!({"id": *id, "status": "failed", "error": "CUDA out of memory", "logs": logs})
        }
        ("slow", _) | (_, 1..=2) => json!({"id": *id, "status": "processing", "logs": logs}),
        _ => json!({"id": *id, "status": "succeeded", "logs": logs,
                     "output": {"version": "me/my-lora:abc", "weights": format!("{base}/weights/{}", *id)}}),
    };
    HttpResponse::Ok().json(body)
}

async fn cancel(req: HttpRequest, id: web::Path<String>, s: Shared) -> HttpResponse {
    if !authed(&req) {
        return unauthorized();
    }
    s.lock().unwrap().cancelled.push(id.clone());
    HttpResponse::Ok().json(json!({"id": *id, "status": "canceled"}))
}

async fn weights() -> HttpResponse {
    let bytes = modelfile::write_safetensors(
        &[(
            "lora_unet_x.lora_down.weight",
            modelfile::Dtype::F32,
            &[2, 2],
            &[0u8; 16],
        )],
        &[("ss_network_dim".to_string(), "2".to_string())]
            .into_iter()
            .collect(),
    )
    .unwrap();
    HttpResponse::Ok()
        .content_type("application/octet-stream")
        .body(bytes)
}

fn serve() -> (String, Shared) {
    let shared: Shared = web::Data::new(Mutex::new(Fake::default()));
    let s2 = shared.clone();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        actix_web::rt::System::new().block_on(async move {
            let server = HttpServer::new(move || {
                App::new()
                    .app_data(s2.clone())
                    .app_data(web::PayloadConfig::new(64 << 20))
                    .route("/v1/files", web::post().to(files))
                    .route(
                        "/v1/models/{owner}/{name}/versions/{version}/trainings",
                        web::post().to(create),
                    )
                    .route("/v1/trainings/{id}", web::get().to(get))
                    .route("/v1/trainings/{id}/cancel", web::post().to(cancel))
                    .route("/weights/{id}", web::get().to(weights))
            })
            .workers(1)
            .bind(("127.0.0.1", 0))
            .unwrap();
            tx.send(server.addrs()[0].port()).unwrap();
            server.run().await.unwrap();
        });
    });
    let base = format!("http://127.0.0.1:{}", rx.recv().unwrap());
    shared.lock().unwrap().base = base.clone();
    (base, shared)
}

fn remote(base: &str, token: &str, model: &str, timeout_secs: u64) -> RemoteTrainer {
    remote_with_ca(base, token, model, timeout_secs, "").unwrap()
}

fn remote_with_ca(
    base: &str,
    token: &str,
    model: &str,
    timeout_secs: u64,
    ca_file: &str,
) -> Result<RemoteTrainer, String> {
    RemoteTrainer::new(RemoteSettings {
        url: base.into(),
        token: token.into(),
        model: format!("ostris/{model}:v1"),
        destination: "me/my-lora".into(),
        poll_ms: 20,
        timeout_secs,
        ca_file: ca_file.into(),
    })
}

fn openssl(dir: &std::path::Path, args: &[&str]) {
    let out = std::process::Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("Debian's openssl makes the test certificates");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A test CA and a certificate for localhost signed by it: (ca.pem,
/// leaf.pem, leaf.key) in `dir`.
fn certificates(dir: &std::path::Path) {
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
    ];
    let mut ca = vec!["req", "-x509"];
    ca.extend(ec);
    ca.extend([
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "2",
        "-subj",
        "/CN=Easel test CA",
    ]);
    openssl(dir, &ca);
    let mut csr = vec!["req"];
    csr.extend(ec);
    csr.extend([
        "-keyout",
        "leaf.key",
        "-out",
        "leaf.csr",
        "-subj",
        "/CN=localhost",
    ]);
    openssl(dir, &csr);
    std::fs::write(
        dir.join("leaf.ext"),
        "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
    )
    .unwrap();
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            "leaf.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "leaf.pem",
            "-days",
            "2",
            "-extfile",
            "leaf.ext",
        ],
    );
}

/// A TLS front on 127.0.0.1 to the http fake at `http_port`: answers its
/// https port.
async fn tls_front(dir: &std::path::Path, http_port: u16) -> u16 {
    use tokio_rustls::rustls;
    use tokio_rustls::rustls::pki_types::pem::PemObject;
    use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(dir.join("leaf.pem"))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let key = PrivateKeyDer::from_pem_file(dir.join("leaf.key")).unwrap();
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        loop {
            let Ok((tcp, _)) = listener.accept().await else {
                return;
            };
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                // A client that refuses the certificate ends here.
                let Ok(mut tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let mut plain = tokio::net::TcpStream::connect(("127.0.0.1", http_port))
                    .await
                    .unwrap();
                let _ = tokio::io::copy_bidirectional(&mut tls, &mut plain).await;
            });
        }
    });
    port
}

#[tokio::test]
async fn a_training_is_created_polled_and_its_weights_downloaded() {
    let (base, fake) = serve();
    let dir = tempfile::tempdir().unwrap();
    let job = common::job(dir.path(), common::reddish_dataset(dir.path(), 3), 2);
    let steps = Arc::new(common::Steps::default());
    let out = remote(&base, "good", "ok", 60)
        .train(&job, steps.clone(), Cancel::new())
        .await
        .unwrap();
    let h = modelfile::read_header(
        &mut std::io::Cursor::new(&out.safetensors),
        out.safetensors.len() as u64,
        &modelfile::Limits::default(),
    )
    .unwrap();
    assert_eq!(h.metadata["ss_network_dim"], "2");
    let f = fake.lock().unwrap();
    let input = &f.inputs[0];
    assert_eq!(input["trigger_word"], "zx9");
    assert_eq!(input["steps"], 12);
    assert_eq!(input["lora_rank"], 8);
    assert_eq!(input["input_images"], format!("{base}/v1/files/file1"));
    assert!(f.zip_len > 3 * 1000);
    let seen = steps.0.lock().unwrap().clone();
    assert!(seen.iter().any(|s| s.0 > 0 && s.0 < s.1), "{seen:?}");
    assert_eq!(seen.last(), Some(&(12, 12)));
}

#[tokio::test]
async fn failures_bad_tokens_bad_json_timeouts_and_cancel() {
    let (base, fake) = serve();
    let dir = tempfile::tempdir().unwrap();
    let job = common::job(dir.path(), common::reddish_dataset(dir.path(), 2), 1);
    let run = |t: RemoteTrainer, cancel: Cancel| {
        let job = job.clone();
        async move {
            t.train(&job, Arc::new(common::Steps::default()), cancel)
                .await
        }
    };
    match run(remote(&base, "wrong", "ok", 60), Cancel::new()).await {
        Err(TrainError::Failed(m)) => assert!(m.contains("401"), "{m}"),
        other => panic!("{other:?}"),
    }
    match run(remote(&base, "good", "fail", 60), Cancel::new()).await {
        Err(TrainError::Failed(m)) => assert!(m.contains("CUDA out of memory"), "{m}"),
        other => panic!("{other:?}"),
    }
    match run(remote(&base, "good", "badjson", 60), Cancel::new()).await {
        Err(TrainError::Failed(m)) => assert!(m.contains("bad JSON"), "{m}"),
        other => panic!("{other:?}"),
    }
    // A training that never ends is cancelled at the timeout.
    match run(remote(&base, "good", "slow", 1), Cancel::new()).await {
        Err(TrainError::Unavailable(m)) => assert!(m.contains("longer than 1 s"), "{m}"),
        other => panic!("{other:?}"),
    }
    // Cancel: the remote training is cancelled too.
    let cancel = Cancel::new();
    let c2 = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        c2.cancel();
    });
    assert_eq!(
        run(remote(&base, "good", "slow", 60), cancel)
            .await
            .unwrap_err(),
        TrainError::Cancelled
    );
    let cancelled = fake.lock().unwrap().cancelled.clone();
    // tr1 failed; the timed-out one (tr2) and the cancelled one (tr3) were
    // cancelled remotely (the 401 and bad-JSON calls made no training).
    assert_eq!(cancelled, vec!["tr2".to_string(), "tr3".to_string()]);
    // An unreachable server is retryable.
    match run(
        remote("http://127.0.0.1:9", "good", "ok", 60),
        Cancel::new(),
    )
    .await
    {
        Err(TrainError::Unavailable(_)) => {}
        other => panic!("{other:?}"),
    }
    // Replicate's own https URL is accepted (TLS with the platform's roots);
    // other schemes are refused up front.
    let settings = RemoteSettings {
        url: "https://api.replicate.com".into(),
        model: "a/b:c".into(),
        destination: "a/b".into(),
        ..RemoteSettings::default()
    };
    assert!(RemoteTrainer::new(settings.clone()).is_ok());
    assert!(RemoteTrainer::new(RemoteSettings {
        url: "ftp://api.replicate.com".into(),
        ..settings
    })
    .is_err());
}

#[test]
fn progress_is_read_from_tqdm_logs() {
    assert_eq!(
        progress_in_logs("loading\nflux_train:  12%|#  | 120/1000 [00:10<01:12, 4.8it/s]\n"),
        Some((120, 1000))
    );
    assert_eq!(progress_in_logs("nothing yet"), None);
}

#[tokio::test]
async fn https_works_with_a_trusted_root_and_is_refused_without() {
    let (http_base, fake) = serve();
    let http_port: u16 = http_base.rsplit(':').next().unwrap().parse().unwrap();
    let certs = tempfile::tempdir().unwrap();
    certificates(certs.path());
    let port = tls_front(certs.path(), http_port).await;
    let base = format!("https://localhost:{port}");
    // The fake's URLs (the zip's, the weights') are https too.
    fake.lock().unwrap().base = base.clone();
    let dir = tempfile::tempdir().unwrap();
    let job = common::job(dir.path(), common::reddish_dataset(dir.path(), 3), 2);

    // The platform's roots do not know the test CA: the handshake fails and
    // nothing reaches the API.
    let untrusted = remote(&base, "good", "ok", 10)
        .train(&job, Arc::new(common::Steps::default()), Cancel::new())
        .await;
    assert!(untrusted.is_err(), "an unknown CA was trusted");
    assert!(fake.lock().unwrap().inputs.is_empty());

    let ca = certs.path().join("ca.pem");
    let t = remote_with_ca(&base, "good", "ok", 60, ca.to_str().unwrap()).unwrap();
    let out = t
        .train(&job, Arc::new(common::Steps::default()), Cancel::new())
        .await
        .unwrap();
    assert!(out.safetensors.len() > 8);
    let f = fake.lock().unwrap();
    assert_eq!(
        f.inputs[0]["input_images"],
        format!("{base}/v1/files/file1")
    );
    drop(f);

    // Bad settings are refused with their reason.
    let bad = certs.path().join("leaf.key");
    let e = remote_with_ca(&base, "good", "ok", 60, bad.to_str().unwrap())
        .err()
        .unwrap();
    assert!(e.contains("EASEL_REMOTE_TRAINER_CA_FILE"), "{e}");
    assert!(remote_with_ca("ftp://x", "good", "ok", 60, "").is_err());
}
