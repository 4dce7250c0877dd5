//! Accounting for streams the server paces on its own clock: chat replies
//! (frames 11, one delta per scripted-model token) and progress frames of
//! the pacer engine. It checks the push stream's `seq` for gaps, each
//! reply's per-reply `seq` for loss, duplicates and order, measures each
//! token from its intended emission time, aligns a paced series to its
//! best-case anchor, and computes a soak's memory growth. Pure, so the
//! rules are tested on synthetic input.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use protocol::frame::SHARED_STREAM;
use serde::Serialize;

/// The push stream's `seq` as one socket sees it: every frame the server
/// pushes to a user takes the next number (ARCHITECTURE.md, `StreamActor`),
/// so a number skipped is a frame lost on the way to this socket. On a
/// shared stream ([`SHARED_STREAM`]: several nodes on Redis) numbers come
/// from one counter for every user, so only their order is checked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct SeqCheck {
    /// The last number seen (the auth confirmation's `seq` at first).
    last: u64,
    pub frames: u64,
    /// Numbers skipped: frames that never arrived.
    pub gaps: u64,
    /// Frames whose number was not above the last one.
    pub out_of_order: u64,
    /// Numbers are deployment-wide: a skipped one is another user's.
    #[serde(skip)]
    shared: bool,
}

impl SeqCheck {
    /// Starts after `confirmed`, the `seq` the auth confirmation named.
    pub fn after(confirmed: u64) -> SeqCheck {
        SeqCheck {
            last: confirmed,
            ..SeqCheck::default()
        }
    }

    /// Starts after the auth confirmation's `seq`, on the stream it named.
    pub fn confirmed(seq: u64, stream: &str) -> SeqCheck {
        SeqCheck {
            shared: stream == SHARED_STREAM,
            ..SeqCheck::after(seq)
        }
    }

    pub fn observe(&mut self, seq: u64) {
        self.frames += 1;
        if seq <= self.last {
            self.out_of_order += 1;
            return;
        }
        if !self.shared {
            self.gaps += seq - self.last - 1;
        }
        self.last = seq;
    }

    pub fn merge(&mut self, other: &SeqCheck) {
        self.frames += other.frames;
        self.gaps += other.gaps;
        self.out_of_order += other.out_of_order;
    }
}

/// One streamed reply as received: its deltas by per-reply `seq` (1, 2,
/// ...) with their receipt times, and the closing frame's `seq`.
#[derive(Debug, Clone, Default)]
pub struct ReplyTrack {
    deltas: BTreeMap<u64, Instant>,
    last_seq: u64,
    done_seq: Option<u64>,
    duplicates: u64,
    out_of_order: u64,
}

/// What a reply's frames say once the run is over.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct ReplyCheck {
    /// Distinct deltas received.
    pub tokens: u64,
    /// Numbers missing below the highest one known (the closing frame's, or
    /// else the highest delta's).
    pub lost: u64,
    pub duplicates: u64,
    pub out_of_order: u64,
    /// The closing frame arrived.
    pub closed: bool,
}

impl ReplyTrack {
    /// One frame 11: its per-reply `seq`, whether it is the closing frame,
    /// and when it arrived.
    pub fn observe(&mut self, seq: u64, done: bool, at: Instant) {
        if seq <= self.last_seq {
            self.out_of_order += 1;
        } else {
            self.last_seq = seq;
        }
        if done {
            if self.done_seq.is_some() {
                self.duplicates += 1;
            }
            self.done_seq = Some(seq);
            return;
        }
        if self.deltas.insert(seq, at).is_some() {
            self.duplicates += 1;
        }
    }

    pub fn check(&self) -> ReplyCheck {
        let top = match self.done_seq {
            // Deltas are 1..done-1.
            Some(d) => d.saturating_sub(1),
            None => self.deltas.keys().next_back().copied().unwrap_or(0),
        };
        let present = self.deltas.range(1..=top.max(1)).count() as u64;
        ReplyCheck {
            tokens: self.deltas.len() as u64,
            lost: top.saturating_sub(present),
            duplicates: self.duplicates,
            out_of_order: self.out_of_order,
            closed: self.done_seq.is_some(),
        }
    }

    /// `(seq, receipt)` of every delta, in order.
    pub fn points(&self) -> Vec<(u64, Instant)> {
        self.deltas.iter().map(|(k, at)| (*k, *at)).collect()
    }

    pub fn receipt(&self, seq: u64) -> Option<Instant> {
        self.deltas.get(&seq).copied()
    }
}

/// How late item `k` of a paced series arrived: its receipt minus its
/// intended emission time `start + k × interval` (zero when early).
pub fn latency_from_intended(start: Instant, interval: Duration, k: u64, at: Instant) -> Duration {
    let k = u32::try_from(k).unwrap_or(u32::MAX);
    at.saturating_duration_since(start + interval * k)
}

/// Each item's delay above the series' best case: the anchor is the
/// earliest `receipt − k × interval` over the series (the item that met
/// its schedule best counts as zero delay), and item `k`'s delay is its
/// receipt minus `anchor + k × interval`. A lower bound of the true
/// emission-to-receipt latency (the best item's own latency is unseen); it
/// shows queueing and jitter, not the fixed transit time.
pub fn aligned_delays(points: &[(u64, Instant)], interval: Duration) -> Vec<Duration> {
    // Offsets from the first receipt, in seconds, so no Instant goes below its epoch.
    let Some(first) = points.iter().map(|(_, at)| *at).min() else {
        return Vec::new();
    };
    let step = interval.as_secs_f64();
    let offsets: Vec<f64> = points
        .iter()
        .map(|(k, at)| at.duration_since(first).as_secs_f64() - *k as f64 * step)
        .collect();
    let anchor = offsets.iter().copied().fold(f64::INFINITY, f64::min);
    offsets
        .iter()
        .map(|o| Duration::from_secs_f64((o - anchor).max(0.0)))
        .collect()
}

/// The least-squares slope of receipt time over `k`: the interval the
/// series was actually delivered at (`None` with fewer than two distinct `k`).
pub fn effective_interval(points: &[(u64, Instant)]) -> Option<Duration> {
    let first = points.iter().map(|(_, at)| *at).min()?;
    let n = points.len() as f64;
    let xs: Vec<f64> = points.iter().map(|(k, _)| *k as f64).collect();
    let ys: Vec<f64> = points
        .iter()
        .map(|(_, at)| at.duration_since(first).as_secs_f64())
        .collect();
    let mx = xs.iter().sum::<f64>() / n;
    let my = ys.iter().sum::<f64>() / n;
    let sxx: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
    if sxx <= 0.0 {
        return None;
    }
    let sxy: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    Some(Duration::from_secs_f64((sxy / sxx).max(0.0)))
}

/// The memory growth of a soak, in percent: from the first sample taken at
/// or after `warmup` (set-up and allocator warm-up excluded) to the last
/// sample. Samples are `(seconds since the start, RSS bytes)` in time
/// order. `None` without two samples after the warm-up.
pub fn memory_growth_pct(samples: &[(f64, u64)], warmup: f64) -> Option<f64> {
    let mut after = samples.iter().filter(|(t, _)| *t >= warmup);
    let (t0, first) = after.next()?;
    let (t1, last) = after.next_back()?;
    if *first == 0 || t1 <= t0 {
        return None;
    }
    Some((*last as f64 - *first as f64) * 100.0 / *first as f64)
}

/// The median of some durations (`None` when there are none).
pub fn median(mut v: Vec<Duration>) -> Option<Duration> {
    v.sort();
    v.get(v.len() / 2).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn seq_gaps_and_reordering_are_counted_from_the_confirmation() {
        let mut s = SeqCheck::after(4);
        for q in [5, 6, 8, 7, 9, 9, 12] {
            s.observe(q);
        }
        // 7 skipped then late, 9 twice, 10 and 11 never came.
        assert_eq!(s.frames, 7);
        assert_eq!(s.gaps, 3);
        assert_eq!(s.out_of_order, 2);
        let mut clean = SeqCheck::after(0);
        (1..=100).for_each(|q| clean.observe(q));
        assert_eq!((clean.gaps, clean.out_of_order), (0, 0));
        let mut total = SeqCheck::default();
        total.merge(&s);
        total.merge(&clean);
        assert_eq!((total.frames, total.gaps, total.out_of_order), (107, 3, 2));
        // On the shared stream numbers skip other users': order only.
        let mut shared = SeqCheck::confirmed(4, SHARED_STREAM);
        for q in [5, 9, 8, 20] {
            shared.observe(q);
        }
        assert_eq!((shared.frames, shared.gaps, shared.out_of_order), (4, 0, 1));
        let own = SeqCheck::confirmed(4, "0123abcd");
        assert!(!own.shared);
    }

    #[test]
    fn a_whole_reply_in_order_has_no_loss() {
        let t = Instant::now();
        let mut r = ReplyTrack::default();
        for k in 1..=5 {
            r.observe(k, false, t + ms(20 * k));
        }
        r.observe(6, true, t + ms(121));
        let c = r.check();
        assert_eq!(
            c,
            ReplyCheck {
                tokens: 5,
                lost: 0,
                duplicates: 0,
                out_of_order: 0,
                closed: true
            }
        );
        assert_eq!(r.receipt(3), Some(t + ms(60)));
        assert_eq!(r.points().len(), 5);
    }

    #[test]
    fn reply_gaps_duplicates_order_and_a_missing_close_are_told_apart() {
        let t = Instant::now();
        let mut r = ReplyTrack::default();
        r.observe(1, false, t);
        r.observe(3, false, t);
        r.observe(2, false, t); // late: out of order, not lost
        r.observe(3, false, t); // duplicate (and not above 3)
        r.observe(7, true, t); // closes at 7: deltas 1..=6, so 4, 5, 6 lost
        let c = r.check();
        assert_eq!(
            (c.tokens, c.lost, c.duplicates, c.out_of_order),
            (3, 3, 1, 2)
        );
        assert!(c.closed);
        // Without a closing frame the highest delta bounds the loss.
        let mut open = ReplyTrack::default();
        open.observe(1, false, t);
        open.observe(4, false, t);
        let c = open.check();
        assert_eq!((c.tokens, c.lost, c.closed), (2, 2, false));
        assert_eq!(ReplyTrack::default().check().lost, 0);
    }

    #[test]
    fn latency_is_measured_from_each_tokens_intended_time() {
        let start = Instant::now();
        let iv = ms(20);
        // Token 3 is due at +60 ms; arriving at +65 ms it is 5 ms late.
        assert_eq!(latency_from_intended(start, iv, 3, start + ms(65)), ms(5));
        // Early (the estimate of the start is late): zero, never negative.
        assert_eq!(latency_from_intended(start, iv, 3, start + ms(50)), ms(0));
        // A server that falls behind shows growing latency.
        let late: Vec<Duration> = (1..=4)
            .map(|k| latency_from_intended(start, iv, k, start + ms(25 * k)))
            .collect();
        assert_eq!(late, vec![ms(5), ms(10), ms(15), ms(20)]);
    }

    #[test]
    fn aligned_delays_take_the_best_item_as_the_anchor() {
        let t = Instant::now() + ms(1000);
        let iv = ms(100);
        // Due at t + 100k; transit 2 ms, item 3 delayed 7 ms more.
        let pts = vec![
            (1, t + ms(102)),
            (2, t + ms(202)),
            (3, t + ms(309)),
            (4, t + ms(402)),
        ];
        let d = aligned_delays(&pts, iv);
        assert_eq!(d, vec![ms(0), ms(0), ms(7), ms(0)]);
        assert!(aligned_delays(&[], iv).is_empty());
        // Effective interval of an exact 100 ms series.
        let exact: Vec<(u64, Instant)> = (1..=10).map(|k| (k, t + ms(100 * k))).collect();
        let e = effective_interval(&exact).unwrap();
        assert!((e.as_secs_f64() - 0.1).abs() < 1e-9, "{e:?}");
        assert_eq!(effective_interval(&[(1, t)]), None);
        // A drifting series: each step 1 ms longer than nominal.
        let drift: Vec<(u64, Instant)> = (1..=10).map(|k| (k, t + ms(21 * k))).collect();
        let e = effective_interval(&drift).unwrap();
        assert!((e.as_secs_f64() - 0.021).abs() < 1e-9, "{e:?}");
        let grows = aligned_delays(&drift, ms(20));
        assert_eq!(grows.first(), Some(&ms(0)));
        assert_eq!(grows.last(), Some(&ms(9)));
    }

    #[test]
    fn memory_growth_runs_from_the_first_sample_after_warm_up() {
        let s = vec![
            (0.0, 10_000),
            (5.0, 100_000),
            (10.0, 100_000),
            (15.0, 103_000),
        ];
        assert_eq!(memory_growth_pct(&s, 5.0), Some(3.0));
        // The set-up sample at 0 s would have shown 930 %.
        let g = memory_growth_pct(&s, 0.0).unwrap();
        assert!((g - 930.0).abs() < 1e-9);
        // Shrinking is negative growth; too few samples is unknown.
        assert_eq!(
            memory_growth_pct(&[(6.0, 200), (9.0, 150)], 5.0),
            Some(-25.0)
        );
        assert_eq!(memory_growth_pct(&s, 12.0), None);
        assert_eq!(memory_growth_pct(&[], 0.0), None);
        assert_eq!(median(vec![ms(3), ms(1), ms(2)]), Some(ms(2)));
        assert_eq!(median(Vec::new()), None);
    }
}
