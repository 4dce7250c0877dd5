//! Messages between the socket actors: sessions attach to their user's push
//! stream, the stream puts frames straight into each session's writer queue
//! ([`PushSink`]) and sends close orders to the session actor.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::task::{Context as TaskContext, Poll, Waker};

use actix::prelude::*;
use actix_web::web::Bytes;
use protocol::frame::{push_json, Codec, Frame, FrameType, PushContent};

/// Identifies one socket within its user's stream.
pub type SessionId = u64;

/// A server frame encoded once for every socket of a stream: the stream
/// builds the JSON text once (by splicing the published content into the
/// envelope, see [`push_json`]), keeps it in its replay ring, and every
/// session of the user sends the same bytes, so a resume replays exactly
/// what was sent live.
#[derive(Debug)]
pub struct OutFrame {
    kind: u16,
    seq: Option<u64>,
    /// The publisher's time (push kinds only; see `Frame::ts`).
    ts: Option<u64>,
    content: PushContent,
    /// The JSON text frame; `Bytes` so each session's writer gets it by a
    /// reference-count increment, not a copy.
    json: Bytes,
    /// The MessagePack encoding, made by the first `msgpack` session that
    /// needs it and then shared by the others: a stream with only JSON
    /// sockets never decodes the content. `None` when it cannot be encoded
    /// (logged once).
    msgpack: OnceLock<Option<Bytes>>,
}

impl OutFrame {
    /// Push kinds (10 to 13) carry the content's publish time as `ts`.
    pub fn new(kind: u16, content: PushContent, seq: Option<u64>) -> OutFrame {
        let is_push = FrameType::from_u16(kind).is_some_and(FrameType::is_push);
        let ts = if is_push { content.ts() } else { None };
        let json = Bytes::from(push_json(kind, &content, seq, ts));
        OutFrame {
            kind,
            seq,
            ts,
            content,
            json,
            msgpack: OnceLock::new(),
        }
    }

    /// The frame's sequence number (pushed frames only).
    pub fn seq(&self) -> Option<u64> {
        self.seq
    }

    /// The frame type.
    pub fn kind(&self) -> u16 {
        self.kind
    }

    /// The frame's bytes in `codec`, shared.
    pub fn encoded(&self, codec: Codec) -> Option<Bytes> {
        match codec {
            Codec::Json => Some(self.json.clone()),
            Codec::MsgPack => self
                .msgpack
                .get_or_init(|| {
                    let packed = self.content.to_value().map_err(|e| e.to_string()).and_then(
                        |content| {
                            let frame = Frame {
                                kind: self.kind,
                                token: None,
                                content,
                                seq: self.seq,
                                ts: self.ts,
                            };
                            Codec::MsgPack.encode(&frame).map_err(|e| e.to_string())
                        },
                    );
                    match packed {
                        Ok(bytes) => Some(Bytes::from(bytes)),
                        Err(e) => {
                            tracing::error!(kind = self.kind, error = %e, "msgpack encoding failed");
                            None
                        }
                    }
                })
                .clone(),
        }
    }
}

/// What a session's writer task sends, in queue order.
#[derive(Debug)]
pub enum Outgoing {
    /// A pushed frame, shared by the user's sockets; the writer takes the
    /// bytes of its socket's codec.
    Frame(Arc<OutFrame>),
    /// A frame of this socket's own, already in its codec.
    Data(Bytes),
    Pong(Vec<u8>),
}

/// Why a frame could not be queued for a socket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SinkError {
    /// The socket is not keeping up: its queue is full (close it, 1013).
    Full,
    /// The socket's writer is gone.
    Closed,
}

/// A session's writer queue as its stream sees it. Pushes go into it
/// straight from the stream, with no hop through the session actor's
/// mailbox: one queue and one wake per delivery. Bounded, so a socket that
/// cannot keep up is closed instead of growing memory without bound.
///
/// Why not a `tokio::sync::mpsc` channel: that one allocates its first block
/// of 32 slots and a cache-padded channel head up front, about 1.7 KB per
/// socket, while an idle socket queues nothing most of its life (it was the
/// largest part of Easel's memory per idle session over bare actix-ws). This
/// queue starts empty and grows with what is queued. It also carries the
/// close order, so the writer waits on one thing, not a channel and a
/// oneshot.
#[derive(Debug)]
pub struct PushSink {
    shared: Arc<Shared>,
}

/// The writer's end of a [`PushSink`].
#[derive(Debug)]
pub struct PushQueue {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    /// A std mutex, not an async one: it is held for a push or a pop, never
    /// across an await, and the stream and the writer may be on different
    /// worker threads.
    state: Mutex<QueueState>,
}

#[derive(Debug)]
struct QueueState {
    items: VecDeque<Outgoing>,
    /// The bound (`send_queue`): a push beyond it is `SinkError::Full`.
    capacity: usize,
    /// The writer's waker while it waits for an item or the close order.
    waker: Option<Waker>,
    /// Live `PushSink`s: when the last one goes, the writer closes the
    /// socket without a code (the session is gone).
    senders: usize,
    /// The writer is gone: pushes fail with `SinkError::Closed`.
    receiver_gone: bool,
    /// The close order (code and reason); once given, nothing more is
    /// accepted, and the writer sends what was queued before it, then closes.
    close: Option<(u16, String)>,
}

/// A queue that once held this many items (a burst) gives its buffer back
/// when it drains; below it the buffer is kept, so steady traffic does not
/// allocate per frame.
const SHRINK_ABOVE: usize = 32;

/// What the writer takes next from its [`PushQueue`].
#[derive(Debug)]
pub enum Next {
    /// A frame to send, in queue order.
    Item(Outgoing),
    /// Everything queued before it was taken: close the socket, with the
    /// ordered code and reason, or without one when every sender is gone.
    Close(Option<(u16, String)>),
}

fn lock(shared: &Shared) -> MutexGuard<'_, QueueState> {
    // A panic while holding the lock leaves the queue consistent (each
    // operation is one push or pop), so a poisoned lock is still used.
    shared.state.lock().unwrap_or_else(|p| p.into_inner())
}

impl PushSink {
    /// A sink holding up to `capacity` frames, and its writer's end.
    /// Nothing is allocated for the items until one is queued.
    pub fn channel(capacity: usize) -> (PushSink, PushQueue) {
        let shared = Arc::new(Shared {
            state: Mutex::new(QueueState {
                items: VecDeque::new(),
                capacity: capacity.max(1),
                waker: None,
                senders: 1,
                receiver_gone: false,
                close: None,
            }),
        });
        (
            PushSink {
                shared: shared.clone(),
            },
            PushQueue { shared },
        )
    }

    /// Queues a pushed frame.
    pub fn push(&self, frame: Arc<OutFrame>) -> Result<(), SinkError> {
        self.send(Outgoing::Frame(frame))
    }

    /// Queues anything.
    pub fn send(&self, item: Outgoing) -> Result<(), SinkError> {
        let waker = {
            let mut st = lock(&self.shared);
            if st.receiver_gone || st.close.is_some() {
                return Err(SinkError::Closed);
            }
            if st.items.len() >= st.capacity {
                return Err(SinkError::Full);
            }
            st.items.push_back(item);
            st.waker.take()
        };
        if let Some(w) = waker {
            w.wake();
        }
        Ok(())
    }

    /// Orders the writer to send what is queued, then close the socket with
    /// `code`. The first order wins; later ones return `false`.
    pub fn close(&self, code: u16, reason: &str) -> bool {
        let waker = {
            let mut st = lock(&self.shared);
            if st.close.is_some() || st.receiver_gone {
                return false;
            }
            st.close = Some((code, reason.to_owned()));
            st.waker.take()
        };
        if let Some(w) = waker {
            w.wake();
        }
        true
    }
}

impl Clone for PushSink {
    fn clone(&self) -> PushSink {
        lock(&self.shared).senders += 1;
        PushSink {
            shared: self.shared.clone(),
        }
    }
}

impl Drop for PushSink {
    fn drop(&mut self) {
        let waker = {
            let mut st = lock(&self.shared);
            st.senders = st.senders.saturating_sub(1);
            if st.senders == 0 {
                st.waker.take()
            } else {
                None
            }
        };
        if let Some(w) = waker {
            w.wake();
        }
    }
}

impl PushQueue {
    /// The next item, or the close once everything before it was taken.
    pub async fn next(&mut self) -> Next {
        std::future::poll_fn(|cx| self.poll_next(cx)).await
    }

    /// [`PushQueue::next`] without waiting: `None` when nothing is ready.
    pub fn try_next(&mut self) -> Option<Next> {
        let mut st = lock(&self.shared);
        Self::take(&mut st)
    }

    fn poll_next(&mut self, cx: &mut TaskContext<'_>) -> Poll<Next> {
        let mut st = lock(&self.shared);
        match Self::take(&mut st) {
            Some(next) => Poll::Ready(next),
            None => {
                if !st.waker.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                    st.waker = Some(cx.waker().clone());
                }
                Poll::Pending
            }
        }
    }

    fn take(st: &mut QueueState) -> Option<Next> {
        if let Some(item) = st.items.pop_front() {
            if st.items.is_empty() && st.items.capacity() > SHRINK_ABOVE {
                st.items = VecDeque::new();
            }
            return Some(Next::Item(item));
        }
        if let Some(close) = st.close.take() {
            // Nothing is accepted after the order; a second `Close` is not
            // given, the writer ends here.
            st.receiver_gone = true;
            return Some(Next::Close(Some(close)));
        }
        if st.senders == 0 {
            st.receiver_gone = true;
            return Some(Next::Close(None));
        }
        None
    }
}

impl Drop for PushQueue {
    fn drop(&mut self) {
        let mut st = lock(&self.shared);
        st.receiver_gone = true;
        // Frames nobody will send: free them now, not when the last sender goes.
        st.items = VecDeque::new();
        st.waker = None;
    }
}

/// Stream → session: close the socket with this code.
#[derive(Message, Clone)]
#[rtype(result = "()")]
pub struct CloseSocket {
    pub code: u16,
    pub reason: String,
}

/// Session → stream: start receiving pushes. The stream first queues the
/// auth confirmation (a type 4 with `{account_id, stream, seq}`, in `codec`)
/// into `sink`, so it precedes every push numbered after `seq`.
#[derive(Message)]
#[rtype(result = "Attached")]
pub struct Attach {
    pub session_id: SessionId,
    pub token_hash: String,
    pub codec: Codec,
    pub sink: PushSink,
    pub close: Recipient<CloseSocket>,
    /// The shared log's number when the session opened it
    /// ([`crate::stream::StreamRegistry::open_log`]), with a bus that keeps one.
    pub log_head: Option<u64>,
}

/// The stream's identity and position when a session attached.
#[derive(Debug, Clone, MessageResponse)]
pub struct Attached {
    pub stream: String,
    pub seq: u64,
}

/// Session → stream: stop receiving.
#[derive(Message)]
#[rtype(result = "()")]
pub struct Detach {
    pub session_id: SessionId,
}

/// Session → stream: replay what followed `last_seq`, then a type-15 answer,
/// all through the session's sink so they stay in order with live pushes.
#[derive(Message)]
#[rtype(result = "()")]
pub struct Replay {
    pub session_id: SessionId,
    pub last_seq: u64,
    pub stream: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn both_codecs_give_the_frame_the_old_encoding_gave() {
        for (content, seq) in [
            (json!({"id": "t", "process": 50, "note": "é ✓"}), Some(12)),
            (json!({"resumed": true}), None),
            (json!(null), Some(1)),
        ] {
            let frame = Frame {
                kind: 10,
                token: None,
                content: content.clone(),
                seq,
                ts: Some(99),
            };
            let out = OutFrame::new(10, PushContent::from_value(&content).with_ts(Some(99)), seq);
            assert_eq!(out.seq(), seq);
            assert_eq!(out.kind(), 10);
            for codec in [Codec::Json, Codec::MsgPack] {
                let bytes = out.encoded(codec).unwrap();
                assert_eq!(bytes.as_ref(), codec.encode(&frame).unwrap().as_slice());
                assert_eq!(codec.decode(&bytes).unwrap(), frame);
            }
        }
    }

    #[test]
    fn only_push_kinds_carry_the_publish_time() {
        let content = PushContent::from_value(&json!({"a": 1})).with_ts(Some(7));
        for kind in [10, 11, 12, 13] {
            let out = OutFrame::new(kind, content.clone(), Some(1));
            let frame = Codec::Json
                .decode(&out.encoded(Codec::Json).unwrap())
                .unwrap();
            assert_eq!(frame.ts, Some(7));
            let frame = Codec::MsgPack
                .decode(&out.encoded(Codec::MsgPack).unwrap())
                .unwrap();
            assert_eq!(frame.ts, Some(7));
        }
        let answer = OutFrame::new(15, content, None);
        let frame = Codec::Json
            .decode(&answer.encoded(Codec::Json).unwrap())
            .unwrap();
        assert_eq!(frame.ts, None);
    }

    #[test]
    fn a_full_sink_says_so_and_a_dropped_writer_too() {
        let (sink, mut rx) = PushSink::channel(1);
        let f = Arc::new(OutFrame::new(
            12,
            PushContent::from_value(&json!(1)),
            Some(1),
        ));
        assert_eq!(sink.push(f.clone()), Ok(()));
        assert_eq!(sink.push(f.clone()), Err(SinkError::Full));
        assert!(
            matches!(rx.try_next(), Some(Next::Item(Outgoing::Frame(g))) if Arc::ptr_eq(&g, &f))
        );
        assert!(rx.try_next().is_none());
        drop(rx);
        assert_eq!(sink.push(f), Err(SinkError::Closed));
        assert!(!sink.close(1000, "bye"), "no writer to order");
    }

    fn data(n: u8) -> Outgoing {
        Outgoing::Data(Bytes::from(vec![n]))
    }

    fn taken(next: Option<Next>) -> Option<u8> {
        match next {
            Some(Next::Item(Outgoing::Data(b))) => b.first().copied(),
            _ => None,
        }
    }

    #[test]
    fn the_close_order_comes_after_what_was_queued_and_ends_the_queue() {
        let (sink, mut rx) = PushSink::channel(8);
        let other = sink.clone();
        sink.send(data(1)).unwrap();
        other.send(data(2)).unwrap();
        assert!(other.close(4410, "idle"));
        assert!(!sink.close(1013, "too slow"), "the first order wins");
        assert_eq!(sink.send(data(3)), Err(SinkError::Closed));
        assert_eq!(taken(rx.try_next()), Some(1));
        assert_eq!(taken(rx.try_next()), Some(2));
        match rx.try_next() {
            Some(Next::Close(Some((code, reason)))) => {
                assert_eq!(code, 4410);
                assert_eq!(reason, "idle");
            }
            other => panic!("expected the close order, got {other:?}"),
        }
        assert!(rx.try_next().is_none());
    }

    #[test]
    fn when_every_sender_is_gone_the_queue_drains_then_closes_without_a_code() {
        let (sink, mut rx) = PushSink::channel(8);
        let other = sink.clone();
        sink.send(data(7)).unwrap();
        drop(sink);
        assert_eq!(taken(rx.try_next()), Some(7));
        assert!(rx.try_next().is_none(), "one sender is still there");
        drop(other);
        assert!(matches!(rx.try_next(), Some(Next::Close(None))));
    }

    #[test]
    fn nothing_is_allocated_until_something_is_queued_and_a_burst_is_given_back() {
        let (sink, mut rx) = PushSink::channel(1024);
        assert_eq!(lock(&sink.shared).items.capacity(), 0);
        for n in 0..200u8 {
            sink.send(data(n)).unwrap();
        }
        assert!(lock(&sink.shared).items.capacity() >= 200);
        for n in 0..200u8 {
            assert_eq!(taken(rx.try_next()), Some(n), "in order");
        }
        assert_eq!(lock(&sink.shared).items.capacity(), 0);
        // Steady traffic keeps its small buffer.
        sink.send(data(1)).unwrap();
        assert_eq!(taken(rx.try_next()), Some(1));
        assert!(lock(&sink.shared).items.capacity() > 0);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_waiting_writer_is_woken_from_another_thread() {
        let (sink, mut rx) = PushSink::channel(4096);
        let reader = tokio::spawn(async move {
            let mut got = Vec::new();
            loop {
                match rx.next().await {
                    Next::Item(Outgoing::Data(b)) => got.push(b.len()),
                    Next::Item(_) => {}
                    Next::Close(code) => return (got, code),
                }
            }
        });
        let writer = std::thread::spawn(move || {
            for n in 0..1000usize {
                while sink.send(Outgoing::Data(Bytes::from(vec![0; n % 7 + 1])))
                    == Err(SinkError::Full)
                {
                    std::thread::yield_now();
                }
                if n % 100 == 0 {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
            }
            sink.close(1000, "done");
        });
        writer.join().unwrap();
        let (got, code) = reader.await.unwrap();
        assert_eq!(got, (0..1000usize).map(|n| n % 7 + 1).collect::<Vec<_>>());
        assert_eq!(code, Some((1000, "done".to_owned())));
    }

    #[test]
    fn the_bytes_are_shared_not_copied() {
        let out = OutFrame::new(12, PushContent::from_value(&json!({"m": 1})), Some(3));
        for codec in [Codec::Json, Codec::MsgPack] {
            let a = out.encoded(codec).unwrap();
            let b = out.encoded(codec).unwrap();
            assert_eq!(a.as_ptr(), b.as_ptr());
        }
    }

    #[test]
    fn msgpack_is_only_made_when_asked_for() {
        let out = OutFrame::new(13, PushContent::from_value(&json!({"k": 2})), Some(1));
        let _ = out.encoded(Codec::Json);
        assert!(out.msgpack.get().is_none());
        let _ = out.encoded(Codec::MsgPack);
        assert!(out.msgpack.get().is_some());
    }
}
