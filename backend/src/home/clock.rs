//! The clock the home and popup calls read: the check-in's (the system's in
//! production, the file named by `EASEL_AWARDS_CLOCK_FILE` in tests, so one
//! fixed clock moves check-ins and popup caps together); with
//! `EASEL_HOME_TEST_CLOCK=1` one that operators set (`admin/home/clock`) so
//! API tests cross day boundaries with a fixed clock instead of sleeping.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

/// Milliseconds since the epoch.
pub trait Clock: Send + Sync + 'static {
    fn now_millis(&self) -> i64;
}

/// A clock that reads the system's until it is set, then stays where it was
/// set (a fixed clock).
#[derive(Default)]
pub struct SettableClock {
    /// 0: not set (the system's time).
    fixed: AtomicI64,
}

impl SettableClock {
    pub fn set(&self, ms: i64) {
        self.fixed.store(ms.max(1), Ordering::SeqCst);
    }
}

impl Clock for SettableClock {
    fn now_millis(&self) -> i64 {
        match self.fixed.load(Ordering::SeqCst) {
            0 => crate::accounts::now_millis(),
            t => t,
        }
    }
}

/// The check-in's clock (`awards::clock`: the system's, or a file's).
struct AwardsClock(Arc<dyn crate::awards::Clock>);

impl Clock for AwardsClock {
    fn now_millis(&self) -> i64 {
        self.0.now_ms()
    }
}

/// The clock for the settings: the check-in's, or a settable one (also
/// returned so the operator call can set it).
pub fn from_settings(test_clock: bool) -> (Arc<dyn Clock>, Option<Arc<SettableClock>>) {
    if test_clock {
        let c = Arc::new(SettableClock::default());
        (c.clone(), Some(c))
    } else {
        (
            Arc::new(AwardsClock(crate::awards::clock::from_env())),
            None,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_clock_stays() {
        let c = SettableClock::default();
        assert!(c.now_millis() > 1_700_000_000_000);
        c.set(42);
        assert_eq!(c.now_millis(), 42);
        assert_eq!(c.now_millis(), 42);
    }
}
