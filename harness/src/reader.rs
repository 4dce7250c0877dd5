//! The one socket reader every push-counting scenario uses (progress,
//! channel, chat): it reads frames until told to stop or the socket ends,
//! hands each to the scenario's closure with its receipt time, and
//! heartbeats on a per-socket timetable so the server keeps the session.
//!
//! Each frame comes with its [`Receipt`]: when it arrived and, for a push
//! the server stamped with its emission time (`ts`), how long after that.
//!
//! The heartbeats of many readers are spread over one interval
//! ([`heartbeat_offset`]): readers started together would otherwise all
//! beat on the same tick, a burst of sends that delays the frames being
//! measured on the same driver core.

use std::time::{Duration, Instant};

use protocol::client::{Incoming, Socket};
use protocol::frame::{now_micros, Frame};
use tokio::sync::watch;

/// What the per-frame closure wants next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    Continue,
    /// Stop reading (the collector has gone).
    Stop,
}

/// When a frame arrived.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Receipt {
    pub(crate) at: Instant,
    /// The frame's emission (`ts`, stamped by the server's publisher) to
    /// this receipt, on the wall clock: driver and server share the
    /// machine's clock. `None` for a frame without `ts` (a baseline's).
    pub(crate) since_emit: Option<Duration>,
}

/// Emission to receipt: `wall_us` (the receipt, µs since the Unix epoch)
/// minus the frame's `ts`; zero when the receipt reads earlier (clock steps).
pub(crate) fn since_emit(ts: Option<u64>, wall_us: u64) -> Option<Duration> {
    ts.map(|t| Duration::from_micros(wall_us.saturating_sub(t)))
}

/// When socket `i` of `n` heartbeats first, after one full interval: the
/// sockets' beats are spread evenly over `every` instead of all falling on
/// the same tick.
pub(crate) fn heartbeat_offset(i: usize, n: usize, every: Duration) -> Duration {
    let n = n.max(1);
    every + every.mul_f64((i % n) as f64 / n as f64)
}

/// How a reader heartbeats: socket `index` of `of`, every `every`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Beat {
    pub(crate) index: usize,
    pub(crate) of: usize,
    pub(crate) every: Duration,
}

/// Reads `sock` until `stop` changes, the socket closes or fails, or
/// `on_frame` says [`Flow::Stop`]; heartbeats per `beat` meanwhile (the
/// acks reach `on_frame` like any frame); closes the socket at the end.
/// Both clocks are read as soon as a frame is decoded.
pub(crate) async fn read_frames<F>(
    mut sock: Socket,
    beat: Beat,
    mut stop: watch::Receiver<bool>,
    mut on_frame: F,
) where
    F: FnMut(Frame, Receipt) -> Flow,
{
    let every = beat.every.max(Duration::from_millis(1));
    let first = tokio::time::Instant::now() + heartbeat_offset(beat.index, beat.of, every);
    let mut tick = tokio::time::interval_at(first, every);
    // A reader held up (the driver core busy) beats late, not in a burst.
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = stop.changed() => break,
            _ = tick.tick() => {
                if sock.send(&Frame::heartbeat()).await.is_err() {
                    break;
                }
            }
            got = sock.recv() => match got {
                Ok(Incoming::Frame(f)) => {
                    let receipt = Receipt {
                        at: Instant::now(),
                        since_emit: since_emit(f.ts, now_micros()),
                    };
                    if on_frame(f, receipt) == Flow::Stop {
                        break;
                    }
                }
                Ok(Incoming::Closed(_)) | Err(_) => break,
            }
        }
    }
    // The server may already have gone; what was read stands either way.
    let _ = sock.close().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emission_to_receipt_is_the_wall_clock_minus_ts() {
        assert_eq!(
            since_emit(Some(1_000_000), 1_002_500),
            Some(Duration::from_micros(2_500))
        );
        // A clock that stepped back reads zero, not a wrap-around.
        assert_eq!(since_emit(Some(5_000), 4_000), Some(Duration::ZERO));
        // A frame without ts (a baseline's) has no figure.
        assert_eq!(since_emit(None, 4_000), None);
    }

    #[test]
    fn heartbeats_are_spread_over_one_interval() {
        let every = Duration::from_secs(1);
        let n = 2000;
        let offsets: Vec<Duration> = (0..n).map(|i| heartbeat_offset(i, n, every)).collect();
        // All within [every, 2 × every), the first one interval ahead.
        assert_eq!(offsets.first().copied(), Some(every));
        assert!(offsets.iter().all(|o| *o >= every && *o < every * 2));
        // Evenly: no 10 ms window holds more than its share (10 of 2000 per second).
        let mut per_10ms = std::collections::HashMap::new();
        for o in &offsets {
            *per_10ms.entry(o.as_millis() / 10).or_insert(0) += 1;
        }
        assert_eq!(per_10ms.len(), 100);
        assert!(per_10ms.values().all(|c| *c == 20), "{per_10ms:?}");
        // Index past n wraps; n = 0 is one socket.
        assert_eq!(
            heartbeat_offset(n + 5, n, every),
            heartbeat_offset(5, n, every)
        );
        assert_eq!(heartbeat_offset(3, 0, every), every);
    }
}
