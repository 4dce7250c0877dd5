//! Per-socket accounting of channel deliveries (frame 12): which of the
//! run's messages a member socket received, duplicates, order by the
//! channel's sequence number, and each first receipt's latency from the
//! message's intended send time. Pure, so the loss and order rules are
//! tested on synthetic input; each reader task owns one log (no shared
//! state on the hot path) and the logs are checked against the accepted
//! sends only at the end of the run.

use std::time::Duration;

/// The body text of the run's message `i`: `h{i}`.
pub fn message_text(i: u64) -> String {
    format!("h{i}")
}

/// The message number in a body written by [`message_text`].
pub fn parse_message_text(text: &str) -> Option<u64> {
    text.strip_prefix('h')?.parse().ok()
}

/// A growable bit set over message numbers.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Bits {
    words: Vec<u64>,
}

impl Bits {
    /// Sets bit `i`; answers whether it was already set.
    pub fn insert(&mut self, i: u64) -> bool {
        let word = usize::try_from(i / 64).unwrap_or(usize::MAX);
        let mask = 1u64 << (i % 64);
        if word >= self.words.len() {
            // Bounded by the run's send cap through the callers.
            self.words.resize(word.saturating_add(1), 0);
        }
        match self.words.get_mut(word) {
            Some(w) => {
                let had = *w & mask != 0;
                *w |= mask;
                had
            }
            None => false,
        }
    }

    pub fn contains(&self, i: u64) -> bool {
        let word = usize::try_from(i / 64).unwrap_or(usize::MAX);
        self.words
            .get(word)
            .is_some_and(|w| w & (1u64 << (i % 64)) != 0)
    }

    /// The numbers set, in order.
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        self.words.iter().enumerate().flat_map(|(w, bits)| {
            (0..64u64).filter_map(move |b| (bits & (1 << b) != 0).then_some(w as u64 * 64 + b))
        })
    }

    pub fn len(&self) -> u64 {
        self.words.iter().map(|w| u64::from(w.count_ones())).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|w| *w == 0)
    }
}

/// What one member socket received.
#[derive(Debug, Clone, Default)]
pub struct DeliveryLog {
    /// Message numbers received at least once.
    seen: Bits,
    /// The highest channel sequence number received so far.
    last_seq: u64,
    pub frames: u64,
    pub duplicates: u64,
    /// Frames whose sequence number was not above the last one received.
    pub out_of_order: u64,
    /// Frames 12 that are not the run's messages (another body, a bad number).
    pub foreign: u64,
    /// Latency of each first receipt, in microseconds (a plain vector and
    /// not a histogram per socket: a 3-figure histogram is ~100 KB, and a
    /// run holds thousands of sockets).
    pub latencies_us: Vec<u32>,
}

impl DeliveryLog {
    pub fn new() -> DeliveryLog {
        DeliveryLog::default()
    }

    /// One frame 12: its channel `seq`, the message number parsed from its
    /// body (`None` when it is not one of the run's), and its latency from
    /// the intended send time (`None` when unknown).
    pub fn observe(&mut self, seq: u64, message: Option<u64>, latency: Option<Duration>) {
        self.frames += 1;
        if seq <= self.last_seq {
            self.out_of_order += 1;
        } else {
            self.last_seq = seq;
        }
        let Some(i) = message else {
            self.foreign += 1;
            return;
        };
        if self.seen.insert(i) {
            self.duplicates += 1;
            return;
        }
        if let Some(l) = latency {
            self.latencies_us
                .push(u32::try_from(l.as_micros()).unwrap_or(u32::MAX));
        }
    }

    /// How many of `accepted` (the messages sent to this socket's channel
    /// whose send was accepted) arrived, and how many did not.
    pub fn check(&self, accepted: &Bits) -> (u64, u64) {
        let mut delivered = 0;
        let mut lost = 0;
        for i in accepted.iter() {
            if self.seen.contains(i) {
                delivered += 1;
            } else {
                lost += 1;
            }
        }
        (delivered, lost)
    }

    /// Distinct messages received, accepted or not.
    pub fn distinct(&self) -> u64 {
        self.seen.len()
    }
}

/// The totals over every member socket of a run.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct DeliveryTotals {
    pub expected: u64,
    pub delivered: u64,
    pub lost: u64,
    pub duplicates: u64,
    pub out_of_order: u64,
    pub foreign: u64,
}

impl DeliveryTotals {
    /// Adds one socket's log, checked against its channel's accepted sends.
    pub fn add(&mut self, log: &DeliveryLog, accepted: &Bits) {
        let (d, l) = log.check(accepted);
        self.expected += accepted.len();
        self.delivered += d;
        self.lost += l;
        self.duplicates += log.duplicates;
        self.out_of_order += log.out_of_order;
        self.foreign += log.foreign;
    }

    /// Delivered share of the expected deliveries, in percent (100 when
    /// nothing was expected).
    pub fn delivered_pct(&self) -> f64 {
        if self.expected == 0 {
            100.0
        } else {
            self.delivered as f64 * 100.0 / self.expected as f64
        }
    }
}

/// Where send `i` goes with `channels` channels and `senders` senders:
/// `(channel, sender)`. Consecutive sends rotate over channels first, so
/// every (sender, channel) pair gets the same share of the rate (Easel
/// rate-limits each sender per channel).
pub fn route(i: u64, channels: u64, senders: u64) -> (u64, u64) {
    let k = channels.max(1);
    (i % k, (i / k) % senders.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_insert_contain_iterate_and_count() {
        let mut b = Bits::default();
        assert!(b.is_empty());
        assert!(!b.insert(3));
        assert!(!b.insert(64));
        assert!(!b.insert(1000));
        assert!(b.insert(64));
        assert!(b.contains(3) && b.contains(64) && b.contains(1000));
        assert!(!b.contains(4) && !b.contains(5000));
        assert_eq!(b.iter().collect::<Vec<_>>(), vec![3, 64, 1000]);
        assert_eq!(b.len(), 3);
    }

    #[test]
    fn message_text_round_trips_and_rejects_others() {
        assert_eq!(parse_message_text(&message_text(42)), Some(42));
        assert_eq!(parse_message_text("hello"), None);
        assert_eq!(parse_message_text("x1"), None);
    }

    #[test]
    fn complete_in_order_delivery_has_no_loss() {
        let mut log = DeliveryLog::new();
        let mut accepted = Bits::default();
        for i in 0..10 {
            accepted.insert(i);
            log.observe(i + 1, Some(i), Some(Duration::from_micros(100 + i)));
        }
        let mut t = DeliveryTotals::default();
        t.add(&log, &accepted);
        assert_eq!(
            t,
            DeliveryTotals {
                expected: 10,
                delivered: 10,
                ..Default::default()
            }
        );
        assert_eq!(t.delivered_pct(), 100.0);
        assert_eq!(log.latencies_us.len(), 10);
        assert_eq!(log.latencies_us.first(), Some(&100));
    }

    #[test]
    fn losses_duplicates_reordering_and_foreign_are_told_apart() {
        let mut log = DeliveryLog::new();
        log.observe(1, Some(0), None);
        log.observe(3, Some(2), None); // message 1 (seq 2) is missing for now
        log.observe(2, Some(1), None); // arrives late: out of order, not lost
        log.observe(3, Some(2), None); // a duplicate, also not above seq 3
        log.observe(4, None, None); // someone else's message
        let mut accepted = Bits::default();
        for i in 0..4 {
            accepted.insert(i); // message 3 was accepted but never came
        }
        let mut t = DeliveryTotals::default();
        t.add(&log, &accepted);
        assert_eq!(t.expected, 4);
        assert_eq!((t.delivered, t.lost), (3, 1));
        assert_eq!((t.duplicates, t.out_of_order, t.foreign), (1, 2, 1));
        assert_eq!(t.delivered_pct(), 75.0);
        assert_eq!(log.frames, 5);
        assert_eq!(log.distinct(), 3);
    }

    #[test]
    fn a_message_whose_send_failed_is_not_expected() {
        let mut log = DeliveryLog::new();
        log.observe(1, Some(0), None);
        log.observe(2, Some(1), None);
        let mut accepted = Bits::default();
        accepted.insert(1); // the send of 0 timed out but was delivered
        let (d, l) = log.check(&accepted);
        assert_eq!((d, l), (1, 0));
        assert_eq!(DeliveryTotals::default().delivered_pct(), 100.0);
    }

    #[test]
    fn routing_spreads_the_rate_over_every_sender_and_channel_pair() {
        let (k, s) = (3, 2);
        let mut counts = std::collections::HashMap::new();
        for i in 0..600 {
            *counts.entry(route(i, k, s)).or_insert(0) += 1;
        }
        assert_eq!(counts.len(), 6);
        assert!(counts.values().all(|&n| n == 100));
        assert_eq!(route(7, 0, 0), (0, 0));
    }
}
