//! A reply's pump: the model's token stream read into the live text
//! (masked by the text filter, released in word-sized frames a little
//! behind the model: `textfilter/stream.rs`), saved on every end (done, stopped, failed, lost), pushed as frame 11, and
//! spoken when its session has a voice. [`pump`] is what a `ChatActor`
//! runs for one reply.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actix::prelude::*;
use futures_util::StreamExt;
use infra::store::Key;
use llm::TokenStream;
use protocol::chat::{ChatDelta, MessageState};
use tokio::sync::{oneshot, watch};

use super::actor::{ChatActor, ChatCore, HEARTBEAT, SAVE_DELTAS, SAVE_EVERY};
use super::message::{Finished, LiveText};
use super::row::{preview, ChatMessageRow};
use crate::accounts::now_millis;
use crate::error::ApiError;

/// Speaks a finished reply when its session has a voice.
async fn speak_reply(core: &ChatCore, b: &Began, content: &str) {
    let Some(speech) = core.speech.get() else {
        return;
    };
    let timbre = match core
        .sessions
        .get(&Key::of(&b.session_id), &Key::empty())
        .await
    {
        Ok(Some(s)) => s.timbre_id,
        _ => return,
    };
    if timbre.is_empty() || content.trim().is_empty() {
        return;
    }
    speech.reply_finished(
        b.owner.clone(),
        b.session_id.clone(),
        b.row.id.clone(),
        timbre,
        content.to_string(),
    );
}

/// A started reply, ready for its pump.
pub(super) struct Began {
    pub(super) owner: String,
    pub(super) session_id: String,
    pub(super) row: ChatMessageRow,
    pub(super) live: Arc<Mutex<LiveText>>,
}

/// Why a pump stopped reading the model.
pub(super) enum End {
    Done,
    Cancelled,
    Failed(String),
    /// The message (or its session) was deleted: nothing to store.
    Gone,
}

pub(super) fn lock(live: &Mutex<LiveText>) -> std::sync::MutexGuard<'_, LiveText> {
    // A poisoned lock only means a panic elsewhere while holding it; the text is still whole.
    live.lock().unwrap_or_else(|p| p.into_inner())
}

/// Saves the text so far (with `seq`, or the live one); false when the row
/// is gone or is another message now.
async fn save(
    core: &ChatCore,
    b: &mut Began,
    state: MessageState,
    error: Option<String>,
    seq: Option<u64>,
) -> Result<bool, ApiError> {
    let (content, seq) = {
        let l = lock(&b.live);
        (l.content.clone(), seq.unwrap_or(l.seq))
    };
    let id = b.row.id.clone();
    let now = now_millis();
    let saved = core
        .messages
        .update(
            &Key::of(&b.session_id),
            &Key::empty().u64(b.row.idx),
            Some(b.row.clone()),
            |m| {
                if m.id == id {
                    m.content = content.clone();
                    m.seq = seq;
                    m.state = state;
                    m.error = error.clone();
                    m.update_at = now;
                }
            },
        )
        .await?;
    match saved {
        Some(r) if r.id == id => {
            b.row = r;
            Ok(true)
        }
        _ => Ok(false),
    }
}

/// Sends released chunks as frames 11, each with the next seq, the live
/// text growing with them; answers how many were sent.
async fn send(core: &ChatCore, b: &Began, chunks: Vec<String>) -> u32 {
    let mut sent = 0;
    for delta in chunks {
        let seq = {
            let mut l = lock(&b.live);
            l.content.push_str(&delta);
            l.seq += 1;
            l.seq
        };
        let frame = ChatDelta {
            session_id: b.session_id.clone(),
            msg_id: b.row.id.clone(),
            seq,
            delta,
            done: false,
            state: None,
            error: None,
        };
        core.push(&b.owner, &frame).await;
        sent += 1;
    }
    sent
}

/// Streams one reply: frames out, text saved, final state stored, then
/// `done` set and the actor told.
pub(super) async fn pump(
    core: Arc<ChatCore>,
    mut b: Began,
    mut stream: TokenStream,
    mut cancel: oneshot::Receiver<()>,
    done: watch::Sender<bool>,
    actor: Addr<ChatActor>,
) {
    let mut tick = tokio::time::interval(SAVE_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tick.tick().await;
    let mut unsaved = 0u32;
    let mut last_save = Instant::now();
    let mut filter = core.reply_filter(&b.row.content);
    let end = loop {
        let want_save = tokio::select! {
            biased;
            _ = &mut cancel => break End::Cancelled,
            item = stream.next() => match item {
                Some(Ok(delta)) => {
                    if delta.is_empty() {
                        continue;
                    }
                    let released = filter.push(&delta);
                    unsaved += send(&core, &b, released.chunks).await;
                    unsaved >= SAVE_DELTAS
                }
                Some(Err(e)) => break End::Failed(e.to_string()),
                None => break End::Done,
            },
            _ = tick.tick() => unsaved > 0 || last_save.elapsed() >= HEARTBEAT,
        };
        if want_save {
            match save(&core, &mut b, MessageState::Streaming, None, None).await {
                Ok(true) => {
                    unsaved = 0;
                    last_save = Instant::now();
                }
                Ok(false) => break End::Gone,
                // Kept in memory; the next save or the final one tries again.
                Err(e) => tracing::warn!(error = %e, "saving a growing reply failed"),
            }
        }
    };
    // Dropping the stream stops the engine (cancel by drop).
    drop(stream);
    let gone = matches!(end, End::Gone);
    if !gone {
        // What the filter held back goes out before the closing frame.
        send(&core, &b, filter.finish().chunks).await;
    }
    let (state, error) = match end {
        End::Done => (MessageState::Done, None),
        End::Cancelled => (MessageState::Cancelled, None),
        End::Failed(e) => (MessageState::Failed, Some(e)),
        End::Gone => (MessageState::Cancelled, None),
    };
    // The closing frame takes the next seq; the live state moves to it only
    // once stored, so a snapshot never claims a seq whose frame it lacks.
    let final_seq = lock(&b.live).seq + 1;
    let mut stored = gone;
    if !stored {
        for attempt in 0..5u64 {
            match save(&core, &mut b, state, error.clone(), Some(final_seq)).await {
                Ok(_) => {
                    stored = true;
                    break;
                }
                Err(e) => {
                    tracing::warn!(error = %e, attempt, "storing a finished reply failed");
                    tokio::time::sleep(Duration::from_millis(200 * (attempt + 1))).await;
                }
            }
        }
    }
    if !stored {
        tracing::error!(msg = %b.row.id, "a finished reply could not be stored; it will show as failed");
    }
    if !gone {
        let content = lock(&b.live).content.clone();
        if state == MessageState::Done {
            speak_reply(&core, &b, &content).await;
        }
        let now = now_millis();
        let r = core
            .sessions
            .update(&Key::of(&b.session_id), &Key::empty(), None, |s| {
                s.update_at = now;
                s.last_message = preview(&content);
            })
            .await;
        if let Err(e) = r {
            tracing::warn!(error = %e, "session preview not updated");
        }
    }
    {
        let mut l = lock(&b.live);
        l.state = state;
        l.seq = final_seq;
    }
    let frame = ChatDelta {
        session_id: b.session_id.clone(),
        msg_id: b.row.id.clone(),
        seq: final_seq,
        delta: String::new(),
        done: true,
        state: Some(state),
        error,
    };
    // Everything is stored before the closing frame: a client that sees it
    // and starts the next reply at once finds this one finished.
    core.push(&b.owner, &frame).await;
    let _ = done.send(true);
    actor.do_send(Finished {
        msg_id: b.row.id.clone(),
    });
}
