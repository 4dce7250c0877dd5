//! Following a queued prompt: the WebSocket opened before queueing, its
//! events read until the prompt is done, failed, cancelled or late (progress
//! reported on the way), the prompt removed or interrupted when given up on,
//! and its saved files read from `/history`.

use futures_util::StreamExt;
use serde_json::{json, Value};
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;

use super::events::{Event, Percent};
use super::wire::{check, transport, Saved};
use super::{ComfyUi, CONNECT_TIMEOUT, HISTORY_PAUSE, HISTORY_TRIES, POLL};
use crate::{Cancel, EngineError, Progress};

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

impl ComfyUi {
    /// Queues a workflow and follows it to its end; answers the files it
    /// saved. The socket is opened before queueing so no message about the
    /// prompt can be missed.
    pub(super) async fn run_prompt(
        &self,
        workflow: &Value,
        task_id: &str,
        progress: &dyn Progress,
        cancel: &Cancel,
        deadline: Instant,
    ) -> Result<Vec<Saved>, EngineError> {
        let client_id = uuid::Uuid::now_v7().to_string();
        let mut ws_url = self
            .ws_base
            .join("ws")
            .map_err(|e| EngineError::Failed(e.to_string()))?;
        ws_url.query_pairs_mut().append_pair("clientId", &client_id);
        let (mut socket, _) = tokio::time::timeout(
            CONNECT_TIMEOUT,
            tokio_tungstenite::connect_async(ws_url.as_str().to_string()),
        )
        .await
        .map_err(|_| EngineError::Unavailable("ComfyUI's websocket did not answer".into()))?
        .map_err(|e| EngineError::Unavailable(format!("ComfyUI's websocket: {e}")))?;

        let prompt_id = self.queue(workflow, &client_id).await?;
        tracing::debug!(prompt_id, task = task_id, "queued on ComfyUI");
        let waited = self
            .wait(&mut socket, &prompt_id, progress, cancel, deadline)
            .await;
        // Closing is a courtesy; the server drops the socket either way.
        let _ = socket.close(None).await;
        waited?;

        for _ in 0..HISTORY_TRIES {
            if let Some(found) = self.history(&prompt_id).await? {
                return Ok(found);
            }
            tokio::time::sleep(HISTORY_PAUSE).await;
        }
        Err(EngineError::Failed(format!(
            "ComfyUI has no history for prompt {prompt_id}"
        )))
    }

    /// Stops a prompt we gave up on: removes it from the queue if it has not
    /// started and, if it runs, interrupts it. The interrupt names the
    /// prompt (recent ComfyUI then stops only that one); it is only sent once
    /// our prompt was seen running, so an older ComfyUI that ignores the name
    /// does not stop someone else's work while ours still waits. Best effort:
    /// failures are logged, the job ends either way.
    async fn abandon(&self, prompt_id: &str, running: bool) {
        let body = json!({ "delete": [prompt_id] });
        if let Err(e) = self.post_quietly("queue", &body).await {
            tracing::warn!(prompt_id, error = %e, "could not remove the prompt from ComfyUI's queue");
        }
        if running {
            if let Err(e) = self
                .post_quietly("interrupt", &json!({ "prompt_id": prompt_id }))
                .await
            {
                tracing::warn!(prompt_id, error = %e, "could not interrupt ComfyUI");
            }
        }
    }

    async fn post_quietly(&self, route: &str, body: &Value) -> Result<(), EngineError> {
        let resp = self
            .http
            .post(self.url(route)?)
            .json(body)
            .send()
            .await
            .map_err(|e| transport(route, &e))?;
        check(route, resp).await.map(drop)
    }

    /// Reads the socket until our prompt is done, failed, cancelled or late.
    async fn wait(
        &self,
        socket: &mut Socket,
        prompt_id: &str,
        progress: &dyn Progress,
        cancel: &Cancel,
        deadline: Instant,
    ) -> Result<(), EngineError> {
        let mut percent = Percent::default();
        let mut running = false;
        let mut tick = tokio::time::interval(POLL);
        loop {
            tokio::select! {
                frame = socket.next() => {
                    let text = match frame {
                        Some(Ok(Message::Text(t))) => t,
                        // Previews (binary), pings and pongs.
                        Some(Ok(Message::Binary(_) | Message::Ping(_) | Message::Pong(_) | Message::Frame(_))) => continue,
                        Some(Ok(Message::Close(_))) | None => {
                            return self.after_socket_loss(prompt_id, "ComfyUI closed the progress socket").await;
                        }
                        Some(Err(e)) => {
                            return self.after_socket_loss(prompt_id, &format!("progress socket failed: {e}")).await;
                        }
                    };
                    let event = Event::parse(text.as_str());
                    if !event.is_for(prompt_id) {
                        continue;
                    }
                    match event {
                        Event::ExecutionStart { .. } => running = true,
                        Event::Progress { value, max, .. } => {
                            running = true;
                            if let Some(p) = percent.step(value, max) {
                                progress.report(p);
                            }
                        }
                        Event::Executing { node: None, .. } => return Ok(()),
                        Event::Executing { node: Some(_), .. } => running = true,
                        Event::ExecutionError { node_id, node_type, exception_type, exception_message, .. } => {
                            return Err(EngineError::Failed(format!(
                                "ComfyUI node {} ({}) failed: {}{}",
                                node_id.as_deref().unwrap_or("?"),
                                node_type.as_deref().unwrap_or("?"),
                                exception_type.map(|t| format!("{t}: ")).unwrap_or_default(),
                                exception_message.as_deref().unwrap_or("no message"),
                            )));
                        }
                        Event::ExecutionInterrupted { .. } => {
                            return Err(EngineError::Failed("ComfyUI interrupted the prompt".into()));
                        }
                        Event::Other => {}
                    }
                }
                _ = tick.tick() => {
                    if cancel.is_cancelled() {
                        self.abandon(prompt_id, running).await;
                        return Err(EngineError::Cancelled);
                    }
                    if Instant::now() >= deadline {
                        self.abandon(prompt_id, running).await;
                        return Err(EngineError::Unavailable(format!(
                            "ComfyUI did not finish within {} s", self.timeout.as_secs()
                        )));
                    }
                }
            }
        }
    }

    /// The socket dropped: the prompt may still have finished (its history
    /// then has outputs); otherwise the server is gone and the job retryable.
    async fn after_socket_loss(&self, prompt_id: &str, why: &str) -> Result<(), EngineError> {
        match self.history(prompt_id).await {
            Ok(Some(images)) if !images.is_empty() => Ok(()),
            _ => Err(EngineError::Unavailable(why.to_string())),
        }
    }
}
