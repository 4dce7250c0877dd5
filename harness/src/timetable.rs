//! The fixed send schedule: send `i` is intended at `start + i / rate`,
//! whatever happened to the sends before it. Latency is measured from the
//! intended time, so a stalled sender or a slow server shows up as latency
//! instead of silently thinning the load (no coordinated omission).

use std::time::{Duration, Instant};

/// A send later than this after its intended time counts as late.
pub const LATE_AFTER: Duration = Duration::from_millis(1);

#[derive(Debug, Clone, Copy)]
pub struct Timetable {
    start: Instant,
    rate: f64,
}

impl Timetable {
    /// `rate` sends per second from `start`; `None` unless it is positive and finite.
    pub fn new(start: Instant, rate: f64) -> Option<Timetable> {
        (rate.is_finite() && rate > 0.0).then_some(Timetable { start, rate })
    }

    /// The timetable of session `i` of `n` that all send at `rate`: the
    /// sessions' phases spread evenly over one interval (`start + i / (n ×
    /// rate)`), so `n` sessions send one at a time instead of all on the
    /// same tick. `None` unless `rate` is positive and finite.
    pub fn phased(start: Instant, rate: f64, i: usize, n: usize) -> Option<Timetable> {
        let n = n.max(1);
        let t = Timetable::new(start, rate)?;
        let phase = Duration::from_secs_f64((i % n) as f64 / (n as f64 * rate));
        Some(Timetable {
            start: t.start + phase,
            ..t
        })
    }

    /// When send `i` is due.
    pub fn intended(&self, i: u64) -> Instant {
        self.start + Duration::from_secs_f64(i as f64 / self.rate)
    }

    /// How many sends are due strictly before `window` has passed.
    pub fn count_within(&self, window: Duration) -> u64 {
        let n = (window.as_secs_f64() * self.rate).ceil();
        if n.is_finite() && n > 0.0 {
            n as u64
        } else {
            0
        }
    }
}

/// How late the sends went out compared with the timetable.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SendLog {
    pub sent: u64,
    /// Sends more than [`LATE_AFTER`] behind their intended time.
    pub late: u64,
    pub max_late: Duration,
}

impl SendLog {
    /// Notes one send made at `actual` that was due at `intended`.
    pub fn note(&mut self, intended: Instant, actual: Instant) {
        let lateness = actual.saturating_duration_since(intended);
        self.sent += 1;
        if lateness > LATE_AFTER {
            self.late += 1;
        }
        self.max_late = self.max_late.max(lateness);
    }

    pub fn merge(&mut self, other: &SendLog) {
        self.sent += other.sent;
        self.late += other.late;
        self.max_late = self.max_late.max(other.max_late);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intended_times_follow_the_rate() {
        let start = Instant::now();
        let t = Timetable::new(start, 100.0).unwrap();
        assert_eq!(t.intended(0), start);
        assert_eq!(t.intended(50), start + Duration::from_millis(500));
        assert_eq!(t.intended(200), start + Duration::from_secs(2));
        assert_eq!(t.count_within(Duration::from_secs(2)), 200);
        assert_eq!(t.count_within(Duration::from_millis(1005)), 101);
        assert_eq!(t.count_within(Duration::ZERO), 0);
        assert!(Timetable::new(start, 0.0).is_none());
        assert!(Timetable::new(start, f64::NAN).is_none());
    }

    #[test]
    fn phased_sessions_send_one_at_a_time() {
        let start = Instant::now();
        let n = 2000;
        // At 1/s, session i's sends fall at i × 0.5 ms past each second.
        let mut due: Vec<Duration> = (0..n)
            .flat_map(|i| {
                let t = Timetable::phased(start, 1.0, i, n).unwrap();
                (0..3).map(move |k| t.intended(k) - start)
            })
            .collect();
        due.sort();
        assert_eq!(due.len(), 3 * n);
        assert_eq!(due.first(), Some(&Duration::ZERO));
        // Consecutive sends 0.5 ms apart, never two on one instant.
        for w in due.windows(2) {
            let gap = w[1] - w[0];
            assert!(
                gap > Duration::from_micros(499) && gap < Duration::from_micros(501),
                "{gap:?}"
            );
        }
        // Each session keeps the rate.
        let t = Timetable::phased(start, 4.0, 3, 10).unwrap();
        assert_eq!(t.intended(1) - t.intended(0), Duration::from_millis(250));
        assert_eq!(t.intended(0) - start, Duration::from_micros(75_000));
        assert!(Timetable::phased(start, 0.0, 0, 1).is_none());
    }

    #[test]
    fn lateness_is_counted_from_the_intended_time() {
        let start = Instant::now();
        let t = Timetable::new(start, 10.0).unwrap();
        let mut log = SendLog::default();
        // On time, early (never negative), and 250 ms behind.
        log.note(t.intended(0), t.intended(0));
        log.note(t.intended(1), t.intended(1) - Duration::from_millis(5));
        log.note(t.intended(2), t.intended(2) + Duration::from_millis(250));
        assert_eq!(log.sent, 3);
        assert_eq!(log.late, 1);
        assert_eq!(log.max_late, Duration::from_millis(250));
        let mut total = SendLog::default();
        total.merge(&log);
        total.merge(&log);
        assert_eq!((total.sent, total.late), (6, 2));
    }
}
