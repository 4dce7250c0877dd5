//! Lockout and back-off against guessing (issue 21): passwords, two-factor
//! codes and verification codes all count here.
//!
//! Three limits, each answered with `tooManyAttempts` (20141) and the wait:
//! - per account and address pair: after `free_failures` failures, each
//!   further attempt waits `base_delay` doubled per failure, up to
//!   `max_delay`; a success clears the pair. Someone guessing from one
//!   address slows down fast, the owner elsewhere is untouched.
//! - per account: more than `account_cap` failures within `account_window`
//!   from all addresses stop password attempts from unknown devices. A
//!   trusted attempt (a device that signed in before, or an account whose
//!   sign-in needs a correct two-factor code anyway) passes, so the real
//!   owner is never locked out by someone else's guesses.
//! - per address: more than `ip_cap` failures within `ip_window` on any
//!   accounts stop that address (spraying one password over many accounts).
//!
//! State is per process (like [`crate::ratelimit::RateLimiter`]): with
//! several nodes each one limits on its own. The clock is injected so tests
//! drive time without sleeping.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use protocol::ErrorCode;

use crate::error::ApiError;

/// Milliseconds now; [`SystemClock`] in production, a settable one in tests.
pub trait Clock: Send + Sync + 'static {
    fn now_millis(&self) -> i64;
}

pub struct SystemClock;

impl Clock for SystemClock {
    fn now_millis(&self) -> i64 {
        super::now_millis()
    }
}

/// The limits (environment: `EASEL_LOCKOUT_FREE_FAILURES`,
/// `EASEL_LOCKOUT_BASE_DELAY_MS`, `EASEL_LOCKOUT_MAX_DELAY_MS`,
/// `EASEL_LOCKOUT_ACCOUNT_CAP`, `EASEL_LOCKOUT_IP_CAP`; windows are one hour).
#[derive(Debug, Clone, PartialEq)]
pub struct LockoutPolicy {
    pub free_failures: u32,
    pub base_delay_ms: i64,
    pub max_delay_ms: i64,
    pub account_cap: u32,
    pub account_window_ms: i64,
    pub ip_cap: u32,
    pub ip_window_ms: i64,
}

impl Default for LockoutPolicy {
    fn default() -> Self {
        LockoutPolicy {
            free_failures: 3,
            base_delay_ms: 30_000,
            max_delay_ms: 15 * 60_000,
            account_cap: 20,
            account_window_ms: 3_600_000,
            ip_cap: 100,
            ip_window_ms: 3_600_000,
        }
    }
}

impl LockoutPolicy {
    pub fn from_env() -> anyhow::Result<LockoutPolicy> {
        fn var<T: std::str::FromStr>(name: &str, default: T) -> anyhow::Result<T> {
            match std::env::var(name) {
                Ok(v) => v
                    .trim()
                    .parse()
                    .map_err(|_| anyhow::anyhow!("{name} must be a number, got {v:?}")),
                Err(_) => Ok(default),
            }
        }
        let d = LockoutPolicy::default();
        Ok(LockoutPolicy {
            free_failures: var("EASEL_LOCKOUT_FREE_FAILURES", d.free_failures)?,
            base_delay_ms: var("EASEL_LOCKOUT_BASE_DELAY_MS", d.base_delay_ms)?.max(1),
            max_delay_ms: var("EASEL_LOCKOUT_MAX_DELAY_MS", d.max_delay_ms)?.max(1),
            account_cap: var("EASEL_LOCKOUT_ACCOUNT_CAP", d.account_cap)?.max(1),
            ip_cap: var("EASEL_LOCKOUT_IP_CAP", d.ip_cap)?.max(1),
            ..d
        })
    }

    /// The wait after `failures` failures of one pair.
    pub fn delay_ms(&self, failures: u32) -> i64 {
        if failures < self.free_failures {
            return 0;
        }
        let doublings = (failures - self.free_failures).min(30);
        self.base_delay_ms
            .saturating_mul(1_i64 << doublings)
            .min(self.max_delay_ms)
    }
}

#[derive(Debug, Clone, Copy)]
struct Pair {
    failures: u32,
    last_failure: i64,
}

#[derive(Debug, Clone, Copy)]
struct Window {
    start: i64,
    failures: u32,
}

/// Entries kept per map before the stale ones are swept.
const SWEEP_AT: usize = 100_000;

pub struct Lockout {
    policy: LockoutPolicy,
    clock: Arc<dyn Clock>,
    /// std mutexes: map lookups only, never held across an await.
    pairs: Mutex<HashMap<(String, String), Pair>>,
    accounts: Mutex<HashMap<String, Window>>,
    ips: Mutex<HashMap<String, Window>>,
}

fn too_many(wait_ms: i64) -> ApiError {
    let secs = (wait_ms.max(0) + 999) / 1000;
    ApiError::with_msg(
        ErrorCode::TooManyAttempts,
        format!("too many attempts, try again in {secs} s"),
    )
}

impl Lockout {
    pub fn new(policy: LockoutPolicy, clock: Arc<dyn Clock>) -> Lockout {
        Lockout {
            policy,
            clock,
            pairs: Mutex::new(HashMap::new()),
            accounts: Mutex::new(HashMap::new()),
            ips: Mutex::new(HashMap::new()),
        }
    }

    pub fn policy(&self) -> &LockoutPolicy {
        &self.policy
    }

    pub fn now_millis(&self) -> i64 {
        self.clock.now_millis()
    }

    /// Whether an attempt on `account` from `ip` may be checked now.
    /// `trusted`: a known device, or a sign-in that still needs a correct
    /// second factor; it passes the per-account cap (never the others).
    pub fn check(&self, account: &str, ip: &str, trusted: bool) -> Result<(), ApiError> {
        let now = self.clock.now_millis();
        self.check_ip(ip)?;
        if let Ok(pairs) = self.pairs.lock() {
            if let Some(p) = pairs.get(&(account.to_owned(), ip.to_owned())) {
                let until = p.last_failure + self.policy.delay_ms(p.failures);
                if now < until {
                    return Err(too_many(until - now));
                }
            }
        }
        if !trusted {
            if let Ok(accounts) = self.accounts.lock() {
                if let Some(w) = accounts.get(account) {
                    let end = w.start + self.policy.account_window_ms;
                    if now < end && w.failures >= self.policy.account_cap {
                        return Err(too_many(end - now));
                    }
                }
            }
        }
        Ok(())
    }

    /// The per-address limit alone (attempts on accounts that do not exist).
    pub fn check_ip(&self, ip: &str) -> Result<(), ApiError> {
        let now = self.clock.now_millis();
        if let Ok(ips) = self.ips.lock() {
            if let Some(w) = ips.get(ip) {
                let end = w.start + self.policy.ip_window_ms;
                if now < end && w.failures >= self.policy.ip_cap {
                    return Err(too_many(end - now));
                }
            }
        }
        Ok(())
    }

    /// Counts a failed attempt on `account` (when known) from `ip`.
    pub fn failed(&self, account: Option<&str>, ip: &str) {
        let now = self.clock.now_millis();
        if let Some(account) = account {
            if let Ok(mut pairs) = self.pairs.lock() {
                if pairs.len() > SWEEP_AT {
                    let max = self.policy.max_delay_ms;
                    pairs.retain(|_, p| now - p.last_failure < max);
                }
                let p = pairs
                    .entry((account.to_owned(), ip.to_owned()))
                    .or_insert(Pair {
                        failures: 0,
                        last_failure: now,
                    });
                p.failures = p.failures.saturating_add(1);
                p.last_failure = now;
            }
            if let Ok(mut accounts) = self.accounts.lock() {
                bump(&mut accounts, account, now, self.policy.account_window_ms);
            }
        }
        if let Ok(mut ips) = self.ips.lock() {
            bump(&mut ips, ip, now, self.policy.ip_window_ms);
        }
    }

    /// A success clears the pair's back-off (not the account's or address's
    /// window: those count everyone's failures).
    pub fn succeeded(&self, account: &str, ip: &str) {
        if let Ok(mut pairs) = self.pairs.lock() {
            pairs.remove(&(account.to_owned(), ip.to_owned()));
        }
    }
}

fn bump(map: &mut HashMap<String, Window>, key: &str, now: i64, window: i64) {
    if map.len() > SWEEP_AT {
        map.retain(|_, w| now - w.start < window);
    }
    let w = map.entry(key.to_owned()).or_insert(Window {
        start: now,
        failures: 0,
    });
    if now - w.start >= window {
        *w = Window {
            start: now,
            failures: 0,
        };
    }
    w.failures = w.failures.saturating_add(1);
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::sync::atomic::{AtomicI64, Ordering};

    struct FakeClock(AtomicI64);
    impl Clock for FakeClock {
        fn now_millis(&self) -> i64 {
            self.0.load(Ordering::SeqCst)
        }
    }

    fn setup() -> (Arc<FakeClock>, Lockout) {
        let clock = Arc::new(FakeClock(AtomicI64::new(1_000_000)));
        let policy = LockoutPolicy {
            free_failures: 3,
            base_delay_ms: 1_000,
            max_delay_ms: 8_000,
            account_cap: 10,
            account_window_ms: 60_000,
            ip_cap: 25,
            ip_window_ms: 60_000,
        };
        (clock.clone(), Lockout::new(policy, clock))
    }

    fn code(r: Result<(), ApiError>) -> Option<ErrorCode> {
        r.err().map(|e| e.code)
    }

    #[test]
    fn pair_backs_off_exponentially_and_a_success_clears_it() {
        let (clock, l) = setup();
        for _ in 0..3 {
            assert!(l.check("a", "1.1.1.1", false).is_ok());
            l.failed(Some("a"), "1.1.1.1");
        }
        // Third failure: wait 1 s.
        assert_eq!(
            code(l.check("a", "1.1.1.1", false)),
            Some(ErrorCode::TooManyAttempts)
        );
        // Another address on the same account is not slowed.
        assert!(l.check("a", "2.2.2.2", false).is_ok());
        clock.0.fetch_add(1_000, Ordering::SeqCst);
        assert!(l.check("a", "1.1.1.1", false).is_ok());
        l.failed(Some("a"), "1.1.1.1");
        // Fourth failure: 2 s.
        clock.0.fetch_add(1_999, Ordering::SeqCst);
        assert!(l.check("a", "1.1.1.1", false).is_err());
        clock.0.fetch_add(1, Ordering::SeqCst);
        assert!(l.check("a", "1.1.1.1", false).is_ok());
        l.succeeded("a", "1.1.1.1");
        l.failed(Some("a"), "1.1.1.1");
        assert!(l.check("a", "1.1.1.1", false).is_ok());
    }

    #[test]
    fn delay_is_capped() {
        let (_, l) = setup();
        assert_eq!(l.policy().delay_ms(0), 0);
        assert_eq!(l.policy().delay_ms(2), 0);
        assert_eq!(l.policy().delay_ms(3), 1_000);
        assert_eq!(l.policy().delay_ms(5), 4_000);
        assert_eq!(l.policy().delay_ms(6), 8_000);
        assert_eq!(l.policy().delay_ms(60), 8_000);
    }

    #[test]
    fn account_cap_stops_unknown_devices_but_not_trusted_ones() {
        let (clock, l) = setup();
        // Ten addresses, one failure each: no pair is slowed.
        for i in 0..10 {
            l.failed(Some("a"), &format!("10.0.0.{i}"));
        }
        assert_eq!(
            code(l.check("a", "10.0.0.99", false)),
            Some(ErrorCode::TooManyAttempts)
        );
        assert!(l.check("a", "10.0.0.99", true).is_ok());
        assert!(l.check("b", "10.0.0.99", false).is_ok());
        clock.0.fetch_add(60_000, Ordering::SeqCst);
        assert!(l.check("a", "10.0.0.99", false).is_ok());
    }

    #[test]
    fn address_cap_stops_spraying_over_many_accounts() {
        let (clock, l) = setup();
        for i in 0..25 {
            assert!(l.check(&format!("acc{i}"), "9.9.9.9", false).is_ok());
            l.failed(Some(&format!("acc{i}")), "9.9.9.9");
        }
        assert!(l.check("fresh", "9.9.9.9", true).is_err());
        assert!(l.check_ip("9.9.9.9").is_err());
        assert!(l.check("fresh", "8.8.8.8", false).is_ok());
        clock.0.fetch_add(60_000, Ordering::SeqCst);
        assert!(l.check_ip("9.9.9.9").is_ok());
    }

    #[test]
    fn unknown_accounts_count_for_the_address_only() {
        let (_, l) = setup();
        for _ in 0..25 {
            l.failed(None, "7.7.7.7");
        }
        assert!(l.check_ip("7.7.7.7").is_err());
        assert!(l.check("a", "6.6.6.6", false).is_ok());
    }
}
