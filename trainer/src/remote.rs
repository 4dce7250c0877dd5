//! A remote trainer: Replicate's trainings HTTP API. The dataset is zipped
//! (pictures with `.txt` captions beside them), uploaded with `POST
//! /v1/files` (multipart field `content`; its `urls.get` is the zip's URL),
//! then `POST /v1/models/{owner}/{name}/versions/{version}/trainings` with
//! `{destination, input: {input_images, trigger_word, steps, lora_rank,
//! learning_rate, resolution, batch_size, autocaption: false}}`; `GET
//! /v1/trainings/{id}` is polled for `status` (`starting`, `processing`,
//! `succeeded`, `failed`, `canceled`), `logs` (the trainer's tqdm lines give
//! progress) and `output.weights` (the LoRA's URL, downloaded); cancel is
//! `POST /v1/trainings/{id}/cancel`. Bearer token auth.
//!
//! http or https: the client is the workspace's reqwest with rustls (the
//! TLS stack `object_store` already brings; the platform's roots), plus the
//! PEM roots of `ca_file` for a trainer behind a private CA.

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use engines::Cancel;
use serde_json::{json, Value};

use crate::{TrainError, TrainJob, TrainOutput, TrainProgress, Trainer};

#[derive(Debug, Clone, PartialEq, Default)]
pub struct RemoteSettings {
    pub url: String,
    pub token: String,
    /// `owner/name:version`.
    pub model: String,
    /// `owner/name`.
    pub destination: String,
    pub poll_ms: u64,
    pub timeout_secs: u64,
    /// A PEM file of extra root certificates trusted for https (besides
    /// the platform's); empty for none.
    pub ca_file: String,
}

pub struct RemoteTrainer {
    s: RemoteSettings,
    base: reqwest::Url,
    owner: String,
    name: String,
    version: String,
    http: reqwest::Client,
}

fn unavailable(e: impl std::fmt::Display) -> TrainError {
    TrainError::Unavailable(format!("remote trainer: {e}"))
}

impl RemoteTrainer {
    pub fn new(s: RemoteSettings) -> Result<RemoteTrainer, String> {
        if s.url.trim().is_empty() {
            return Err("EASEL_REMOTE_TRAINER_URL is not set".into());
        }
        let mut base = reqwest::Url::parse(s.url.trim()).map_err(|e| format!("bad url: {e}"))?;
        if !matches!(base.scheme(), "http" | "https") {
            return Err(format!("`{}`: the trainer's URL is http or https", s.url));
        }
        if !base.path().ends_with('/') {
            let p = format!("{}/", base.path());
            base.set_path(&p);
        }
        let (model, version) = s
            .model
            .split_once(':')
            .ok_or("EASEL_REMOTE_TRAINER_MODEL is owner/name:version")?;
        let (owner, name) = model
            .split_once('/')
            .ok_or("EASEL_REMOTE_TRAINER_MODEL is owner/name:version")?;
        if s.destination.split_once('/').is_none() {
            return Err("EASEL_REMOTE_TRAINER_DESTINATION is owner/name".into());
        }
        let mut builder = reqwest::Client::builder().timeout(Duration::from_secs(120));
        if !s.ca_file.trim().is_empty() {
            let pem = std::fs::read(s.ca_file.trim())
                .map_err(|e| format!("EASEL_REMOTE_TRAINER_CA_FILE {}: {e}", s.ca_file))?;
            let roots = reqwest::Certificate::from_pem_bundle(&pem).map_err(|e| {
                format!(
                    "EASEL_REMOTE_TRAINER_CA_FILE {}: not PEM certificates: {e}",
                    s.ca_file
                )
            })?;
            if roots.is_empty() {
                return Err(format!(
                    "EASEL_REMOTE_TRAINER_CA_FILE {}: no certificate in it",
                    s.ca_file
                ));
            }
            builder = builder.tls_certs_merge(roots);
        }
        let http = builder.build().map_err(|e| e.to_string())?;
        Ok(RemoteTrainer {
            base,
            owner: owner.into(),
            name: name.into(),
            version: version.into(),
            s,
            http,
        })
    }

    fn url(&self, path: &str) -> Result<reqwest::Url, TrainError> {
        self.base
            .join(path)
            .map_err(|e| TrainError::Failed(format!("url {path}: {e}")))
    }

    /// Reads a JSON answer; 401/403 and other 4xx fail, 429 and 5xx are
    /// retryable, unreadable JSON fails.
    async fn answer(
        &self,
        r: Result<reqwest::Response, reqwest::Error>,
    ) -> Result<Value, TrainError> {
        let r = r.map_err(unavailable)?;
        let status = r.status();
        let body = r.text().await.map_err(unavailable)?;
        if status.as_u16() == 401 || status.as_u16() == 403 {
            return Err(TrainError::Failed(format!(
                "the remote trainer refused the token ({status})"
            )));
        }
        if status.as_u16() == 429 || status.is_server_error() {
            return Err(unavailable(format!("{status}")));
        }
        if !status.is_success() {
            let detail: String = body.chars().take(300).collect();
            return Err(TrainError::Failed(format!(
                "remote trainer {status}: {detail}"
            )));
        }
        serde_json::from_str(&body)
            .map_err(|e| TrainError::Failed(format!("remote trainer answered bad JSON: {e}")))
    }

    fn zip(job: &TrainJob) -> Result<Vec<u8>, TrainError> {
        let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let opts = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored);
        let io =
            |e: &dyn std::fmt::Display| TrainError::Failed(format!("zipping the dataset: {e}"));
        for (i, img) in job.images.iter().enumerate() {
            let bytes = std::fs::read(&img.path).map_err(|e| io(&e))?;
            let ext = img
                .path
                .extension()
                .and_then(|e| e.to_str())
                .unwrap_or("png");
            w.start_file(format!("{:04}.{ext}", i + 1), opts)
                .map_err(|e| io(&e))?;
            w.write_all(&bytes).map_err(|e| io(&e))?;
            w.start_file(format!("{:04}.txt", i + 1), opts)
                .map_err(|e| io(&e))?;
            w.write_all(img.caption.as_bytes()).map_err(|e| io(&e))?;
        }
        Ok(w.finish().map_err(|e| io(&e))?.into_inner())
    }

    async fn cancel_remote(&self, id: &str) {
        if let Ok(u) = self.url(&format!("v1/trainings/{id}/cancel")) {
            let _ = self.http.post(u).bearer_auth(&self.s.token).send().await;
        }
    }
}

/// The last `N/M` step count in a training's logs (tqdm lines).
pub fn progress_in_logs(logs: &str) -> Option<(u32, u32)> {
    logs.rsplit(['\n', '\r']).find_map(|line| {
        let (_, rest) = line.rsplit_once('|')?;
        let frac = rest.split_whitespace().next()?;
        let (d, t) = frac.split_once('/')?;
        Some((d.parse().ok()?, t.parse().ok()?))
    })
}

#[async_trait::async_trait]
impl Trainer for RemoteTrainer {
    fn name(&self) -> &'static str {
        "remote"
    }
    fn neural(&self) -> bool {
        true
    }
    fn label(&self) -> String {
        format!("remote trainer {}/{}", self.owner, self.name)
    }

    async fn train(
        &self,
        job: &TrainJob,
        progress: Arc<dyn TrainProgress>,
        cancel: Cancel,
    ) -> Result<TrainOutput, TrainError> {
        let total = job.steps();
        let zip = Self::zip(job)?;
        let part = reqwest::multipart::Part::bytes(zip)
            .file_name("dataset.zip")
            .mime_str("application/zip")
            .map_err(|e| TrainError::Failed(e.to_string()))?;
        let form = reqwest::multipart::Form::new().part("content", part);
        let file = self
            .answer(
                self.http
                    .post(self.url("v1/files")?)
                    .bearer_auth(&self.s.token)
                    .multipart(form)
                    .send()
                    .await,
            )
            .await?;
        let zip_url = file
            .pointer("/urls/get")
            .and_then(Value::as_str)
            .ok_or_else(|| TrainError::Failed("the file upload answered no urls.get".into()))?;
        let p = &job.params;
        let body = json!({
            "destination": self.s.destination,
            "input": {
                "input_images": zip_url,
                "trigger_word": p.trigger_word,
                "steps": total,
                "lora_rank": p.network_dim,
                "learning_rate": p.learning_rate,
                "resolution": p.resolution.to_string(),
                "batch_size": p.batch_size,
                "autocaption": false,
            }
        });
        let created = self
            .answer(
                self.http
                    .post(self.url(&format!(
                        "v1/models/{}/{}/versions/{}/trainings",
                        self.owner, self.name, self.version
                    ))?)
                    .bearer_auth(&self.s.token)
                    .json(&body)
                    .send()
                    .await,
            )
            .await?;
        let id = created
            .get("id")
            .and_then(Value::as_str)
            .ok_or_else(|| TrainError::Failed("the training answer has no id".into()))?
            .to_string();
        let mut log = vec![format!("remote training {id} started")];
        let started = tokio::time::Instant::now();
        let poll = Duration::from_millis(self.s.poll_ms.max(10));
        loop {
            if cancel.is_cancelled() {
                self.cancel_remote(&id).await;
                return Err(TrainError::Cancelled);
            }
            if started.elapsed() > Duration::from_secs(self.s.timeout_secs) {
                self.cancel_remote(&id).await;
                return Err(unavailable(format!(
                    "training {id} took longer than {} s; cancelled",
                    self.s.timeout_secs
                )));
            }
            let t = self
                .answer(
                    self.http
                        .get(self.url(&format!("v1/trainings/{id}"))?)
                        .bearer_auth(&self.s.token)
                        .send()
                        .await,
                )
                .await;
            let t = match t {
                Ok(t) => t,
                // A passing outage while polling: keep polling until the timeout.
                Err(TrainError::Unavailable(_)) => {
                    tokio::time::sleep(poll).await;
                    continue;
                }
                Err(e) => return Err(e),
            };
            let logs = t.get("logs").and_then(Value::as_str).unwrap_or("");
            if let Some((d, n)) = progress_in_logs(logs) {
                progress.step(d, n.max(1));
            }
            match t.get("status").and_then(Value::as_str).unwrap_or("") {
                "starting" | "processing" => {}
                "succeeded" => {
                    let weights = t
                        .pointer("/output/weights")
                        .and_then(Value::as_str)
                        .ok_or_else(|| {
                            TrainError::Failed("succeeded without output.weights".into())
                        })?;
                    let r = self
                        .http
                        .get(weights)
                        .bearer_auth(&self.s.token)
                        .send()
                        .await
                        .map_err(unavailable)?;
                    if !r.status().is_success() {
                        return Err(unavailable(format!(
                            "downloading the weights: {}",
                            r.status()
                        )));
                    }
                    let bytes = r.bytes().await.map_err(unavailable)?.to_vec();
                    let lines: Vec<&str> = logs.lines().collect();
                    let from = lines.len().saturating_sub(50);
                    log.extend(lines.iter().skip(from).map(|l| l.to_string()));
                    log.push(format!("downloaded {} bytes of weights", bytes.len()));
                    progress.step(total, total);
                    let mut metrics = BTreeMap::new();
                    metrics.insert("steps".into(), f64::from(total));
                    return Ok(TrainOutput {
                        safetensors: bytes,
                        log,
                        metrics,
                    });
                }
                "failed" => {
                    let why = t
                        .get("error")
                        .and_then(Value::as_str)
                        .unwrap_or("no reason given");
                    return Err(TrainError::Failed(format!("remote training failed: {why}")));
                }
                "canceled" => return Err(TrainError::Cancelled),
                other => {
                    return Err(TrainError::Failed(format!(
                        "remote training has an unknown status `{other}`"
                    )))
                }
            }
            tokio::time::sleep(poll).await;
        }
    }
}
