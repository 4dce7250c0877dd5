//! The clock check-ins and awards read "now" from: the system's in
//! production; in tests, a file holding milliseconds since the epoch
//! (`EASEL_AWARDS_CLOCK_FILE`), so a test moves a running server across
//! midnights and days without sleeping.

use std::path::PathBuf;

/// Milliseconds since the epoch.
pub trait Clock: Send + Sync + 'static {
    fn now_ms(&self) -> i64;
}

/// The system clock.
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> i64 {
        crate::accounts::now_millis()
    }
}

/// Reads the instant from a file on every call (tests only: it is chosen
/// by `EASEL_AWARDS_CLOCK_FILE`). An unreadable file falls back to the
/// system clock, logged.
pub struct FileClock(pub PathBuf);

impl Clock for FileClock {
    fn now_ms(&self) -> i64 {
        match std::fs::read_to_string(&self.0)
            .ok()
            .and_then(|s| s.trim().parse::<i64>().ok())
        {
            Some(ms) => ms,
            None => {
                tracing::warn!(file = %self.0.display(), "awards: clock file unreadable, using the system clock");
                crate::accounts::now_millis()
            }
        }
    }
}

/// The variable naming a clock file (tests).
pub const CLOCK_FILE_ENV: &str = "EASEL_AWARDS_CLOCK_FILE";

/// The system clock, or the file clock when `EASEL_AWARDS_CLOCK_FILE` is set.
pub fn from_env() -> std::sync::Arc<dyn Clock> {
    match std::env::var(CLOCK_FILE_ENV) {
        Ok(path) if !path.is_empty() => {
            tracing::warn!(%path, "awards: the clock is read from a file (tests only)");
            std::sync::Arc::new(FileClock(PathBuf::from(path)))
        }
        _ => std::sync::Arc::new(SystemClock),
    }
}
