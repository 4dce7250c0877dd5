//! Latency recording with `hdrhistogram` (microsecond resolution, three
//! significant figures) and its summary in milliseconds for the report.

use std::time::Duration;

use hdrhistogram::Histogram;
use serde::Serialize;

use crate::HarnessError;

/// The largest latency tracked: one hour, in microseconds.
const HIGHEST_MICROS: u64 = 3_600_000_000;

/// One histogram of latencies.
#[derive(Debug, Clone)]
pub struct Latencies {
    hist: Histogram<u64>,
}

/// The figures of a histogram, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default)]
pub struct LatencySummary {
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub max: f64,
    pub count: u64,
}

impl Latencies {
    /// An empty histogram from 1 µs to one hour; longer values are clamped
    /// to an hour (`saturating_record` on an auto-resizing histogram would
    /// clamp to its initial tiny range instead).
    pub fn new() -> Result<Latencies, HarnessError> {
        let hist = Histogram::new_with_bounds(1, HIGHEST_MICROS, 3)
            .map_err(|e| HarnessError::Stats(e.to_string()))?;
        Ok(Latencies { hist })
    }

    /// Records one latency (at least 1 µs, so zero still counts).
    pub fn record(&mut self, d: Duration) {
        let micros = u64::try_from(d.as_micros()).unwrap_or(u64::MAX).max(1);
        self.hist.saturating_record(micros);
    }

    /// Adds another histogram's values into this one.
    pub fn merge(&mut self, other: &Latencies) -> Result<(), HarnessError> {
        self.hist
            .add(&other.hist)
            .map_err(|e| HarnessError::Stats(e.to_string()))
    }

    pub fn count(&self) -> u64 {
        self.hist.len()
    }

    pub fn summary(&self) -> LatencySummary {
        if self.hist.is_empty() {
            return LatencySummary::default();
        }
        let ms = |v: u64| v as f64 / 1000.0;
        LatencySummary {
            p50: ms(self.hist.value_at_quantile(0.50)),
            p90: ms(self.hist.value_at_quantile(0.90)),
            p99: ms(self.hist.value_at_quantile(0.99)),
            max: ms(self.hist.max()),
            count: self.hist.len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        // Three significant figures: within 0.1 % of the value.
        (a - b).abs() <= b * 0.001 + 1e-9
    }

    #[test]
    fn uniform_distribution_has_known_percentiles() {
        let mut l = Latencies::new().unwrap();
        for ms in 1..=1000u64 {
            l.record(Duration::from_millis(ms));
        }
        let s = l.summary();
        assert_eq!(s.count, 1000);
        assert!(close(s.p50, 500.0), "p50 {}", s.p50);
        assert!(close(s.p90, 900.0), "p90 {}", s.p90);
        assert!(close(s.p99, 990.0), "p99 {}", s.p99);
        assert!(close(s.max, 1000.0), "max {}", s.max);
    }

    #[test]
    fn a_tail_shows_in_p99_not_p50() {
        let mut l = Latencies::new().unwrap();
        for _ in 0..980 {
            l.record(Duration::from_micros(200));
        }
        for _ in 0..20 {
            l.record(Duration::from_millis(50));
        }
        let s = l.summary();
        assert!(close(s.p50, 0.2), "p50 {}", s.p50);
        assert!(close(s.p99, 50.0), "p99 {}", s.p99);
    }

    #[test]
    fn merge_adds_counts_and_empty_is_zero() {
        let mut a = Latencies::new().unwrap();
        assert_eq!(a.summary(), LatencySummary::default());
        let mut b = Latencies::new().unwrap();
        a.record(Duration::ZERO);
        b.record(Duration::from_millis(3));
        a.merge(&b).unwrap();
        assert_eq!(a.count(), 2);
        assert!(close(a.summary().max, 3.0));
    }
}
