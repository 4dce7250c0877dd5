//! A fixed-window rate limiter keyed by a string (client address, account).
//! In-process: each node limits on its own, which bounds abuse per node; the
//! limit is a guard against brute force, not a billing meter.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

pub struct RateLimiter {
    per_window: u32,
    window: Duration,
    /// A std mutex: the critical section is a map lookup, never held across an await.
    hits: Mutex<HashMap<String, (Instant, u32)>>,
}

impl RateLimiter {
    pub fn new(per_window: u32, window: Duration) -> RateLimiter {
        RateLimiter {
            per_window,
            window,
            hits: Mutex::new(HashMap::new()),
        }
    }

    /// Counts one hit; false when the key is over its limit.
    pub fn check(&self, key: &str) -> bool {
        let Ok(mut hits) = self.hits.lock() else {
            return true;
        };
        let now = Instant::now();
        if hits.len() > 100_000 {
            let window = self.window;
            hits.retain(|_, (start, _)| now.duration_since(*start) < window);
        }
        let entry = hits.entry(key.to_owned()).or_insert((now, 0));
        if now.duration_since(entry.0) >= self.window {
            *entry = (now, 0);
        }
        entry.1 += 1;
        entry.1 <= self.per_window
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_per_key_and_window() {
        let rl = RateLimiter::new(2, Duration::from_millis(50));
        assert!(rl.check("a"));
        assert!(rl.check("a"));
        assert!(!rl.check("a"));
        assert!(rl.check("b"));
        std::thread::sleep(Duration::from_millis(60));
        assert!(rl.check("a"));
    }
}
