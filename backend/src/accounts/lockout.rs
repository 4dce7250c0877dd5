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
//! The counters live in the Store (`acct_limits`, see [`super::limits`]):
//! every node counts the same attempts and a restart forgets nothing. The
//! clock is injected so tests drive time without sleeping.

use std::sync::Arc;

use infra::store::DynStore;
use protocol::ErrorCode;

use super::limits::SharedLimits;
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

/// Row scopes in `acct_limits`.
const PAIR: &str = "lock_pair";
const ACCOUNT: &str = "lock_account";
const ADDRESS: &str = "lock_ip";

fn pair_key(account: &str, ip: &str) -> String {
    format!("{account} {ip}")
}

pub struct Lockout {
    policy: LockoutPolicy,
    limits: SharedLimits,
}

fn too_many(wait_ms: i64) -> ApiError {
    let secs = (wait_ms.max(0) + 999) / 1000;
    ApiError::with_msg(
        ErrorCode::TooManyAttempts,
        format!("too many attempts, try again in {secs} s"),
    )
}

impl Lockout {
    pub fn new(policy: LockoutPolicy, store: DynStore, clock: Arc<dyn Clock>) -> Lockout {
        Lockout {
            policy,
            limits: SharedLimits::new(store, clock),
        }
    }

    pub fn policy(&self) -> &LockoutPolicy {
        &self.policy
    }

    pub fn now_millis(&self) -> i64 {
        self.limits.now_millis()
    }

    /// Whether an attempt on `account` from `ip` may be checked now.
    /// `trusted`: a known device, a signed-in session re-entering its
    /// password, or a sign-in that still needs a correct second factor; it
    /// passes the per-account cap (never the others).
    pub async fn check(&self, account: &str, ip: &str, trusted: bool) -> Result<(), ApiError> {
        self.check_ip(ip).await?;
        let now = self.now_millis();
        if let Some(p) = self.limits.read(PAIR, &pair_key(account, ip)).await? {
            let until = p.last + self.policy.delay_ms(p.count);
            if now < until {
                return Err(too_many(until - now));
            }
        }
        if !trusted {
            if let Some(w) = self.limits.read(ACCOUNT, account).await? {
                if w.count >= self.policy.account_cap {
                    return Err(too_many(w.expires_at - now));
                }
            }
        }
        Ok(())
    }

    /// The per-address limit alone (attempts on accounts that do not exist).
    pub async fn check_ip(&self, ip: &str) -> Result<(), ApiError> {
        let now = self.now_millis();
        if let Some(w) = self.limits.read(ADDRESS, ip).await? {
            if w.count >= self.policy.ip_cap {
                return Err(too_many(w.expires_at - now));
            }
        }
        Ok(())
    }

    /// Counts a failed attempt on `account` (when known) from `ip`.
    pub async fn failed(&self, account: Option<&str>, ip: &str) -> Result<(), ApiError> {
        if let Some(account) = account {
            // A pair's back-off is forgotten once the longest wait has
            // passed since its latest failure.
            self.limits
                .bump(PAIR, &pair_key(account, ip), self.policy.max_delay_ms)
                .await?;
            self.limits
                .hit(ACCOUNT, account, self.policy.account_window_ms)
                .await?;
        }
        self.limits
            .hit(ADDRESS, ip, self.policy.ip_window_ms)
            .await?;
        Ok(())
    }

    /// A success clears the pair's back-off (not the account's or address's
    /// window: those count everyone's failures).
    pub async fn succeeded(&self, account: &str, ip: &str) -> Result<(), ApiError> {
        self.limits.clear(PAIR, &pair_key(account, ip)).await
    }
}

/// A clock tests set by hand.
#[cfg(test)]
pub mod tests_support {
    use std::sync::atomic::{AtomicI64, Ordering};
    use std::sync::Arc;

    pub struct FixedClock(AtomicI64);

    impl FixedClock {
        pub fn at(ms: i64) -> Arc<FixedClock> {
            Arc::new(FixedClock(AtomicI64::new(ms)))
        }
        pub fn advance(&self, ms: i64) {
            self.0.fetch_add(ms, Ordering::SeqCst);
        }
    }

    impl super::Clock for FixedClock {
        fn now_millis(&self) -> i64 {
            self.0.load(Ordering::SeqCst)
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::tests_support::FixedClock;
    use super::*;

    struct Setup {
        _dir: tempfile::TempDir,
        clock: Arc<FixedClock>,
        store: DynStore,
        l: Lockout,
    }

    fn policy() -> LockoutPolicy {
        LockoutPolicy {
            free_failures: 3,
            base_delay_ms: 1_000,
            max_delay_ms: 8_000,
            account_cap: 10,
            account_window_ms: 60_000,
            ip_cap: 25,
            ip_window_ms: 60_000,
        }
    }

    fn setup() -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let store: DynStore = Arc::new(
            infra::store::embedded::EmbeddedStore::open(&dir.path().join("store")).unwrap(),
        );
        let clock = FixedClock::at(1_000_000);
        let l = Lockout::new(policy(), store.clone(), clock.clone());
        Setup {
            _dir: dir,
            clock,
            store,
            l,
        }
    }

    fn code(r: Result<(), ApiError>) -> Option<ErrorCode> {
        r.err().map(|e| e.code)
    }

    #[tokio::test]
    async fn pair_backs_off_exponentially_and_a_success_clears_it() {
        let Setup {
            _dir: _keep,
            clock,
            l,
            ..
        } = setup();
        for _ in 0..3 {
            assert!(l.check("a", "1.1.1.1", false).await.is_ok());
            l.failed(Some("a"), "1.1.1.1").await.unwrap();
        }
        // Third failure: wait 1 s.
        assert_eq!(
            code(l.check("a", "1.1.1.1", false).await),
            Some(ErrorCode::TooManyAttempts)
        );
        // Another address on the same account is not slowed.
        assert!(l.check("a", "2.2.2.2", false).await.is_ok());
        clock.advance(1_000);
        assert!(l.check("a", "1.1.1.1", false).await.is_ok());
        l.failed(Some("a"), "1.1.1.1").await.unwrap();
        // Fourth failure: 2 s.
        clock.advance(1_999);
        assert!(l.check("a", "1.1.1.1", false).await.is_err());
        clock.advance(1);
        assert!(l.check("a", "1.1.1.1", false).await.is_ok());
        l.succeeded("a", "1.1.1.1").await.unwrap();
        l.failed(Some("a"), "1.1.1.1").await.unwrap();
        assert!(l.check("a", "1.1.1.1", false).await.is_ok());
    }

    #[tokio::test]
    async fn two_nodes_on_one_store_count_the_same_failures() {
        let Setup {
            _dir: _keep,
            clock,
            store,
            l,
        } = setup();
        let other = Lockout::new(policy(), store, clock.clone());
        l.failed(Some("a"), "1.1.1.1").await.unwrap();
        other.failed(Some("a"), "1.1.1.1").await.unwrap();
        l.failed(Some("a"), "1.1.1.1").await.unwrap();
        // Three failures over two nodes: both make the pair wait.
        assert!(other.check("a", "1.1.1.1", false).await.is_err());
        assert!(l.check("a", "1.1.1.1", false).await.is_err());
        clock.advance(1_000);
        other.succeeded("a", "1.1.1.1").await.unwrap();
        assert!(l.check("a", "1.1.1.1", false).await.is_ok());
    }

    #[tokio::test]
    async fn a_pair_is_forgotten_after_the_longest_wait() {
        let Setup {
            _dir: _keep,
            clock,
            l,
            ..
        } = setup();
        for _ in 0..6 {
            l.failed(Some("a"), "1.1.1.1").await.unwrap();
        }
        assert!(l.check("a", "1.1.1.1", false).await.is_err());
        clock.advance(8_000);
        assert!(l.check("a", "1.1.1.1", false).await.is_ok());
        // Forgotten: one more failure is a first one again.
        l.failed(Some("a"), "1.1.1.1").await.unwrap();
        assert!(l.check("a", "1.1.1.1", false).await.is_ok());
    }

    #[test]
    fn delay_is_capped() {
        let p = policy();
        assert_eq!(p.delay_ms(0), 0);
        assert_eq!(p.delay_ms(2), 0);
        assert_eq!(p.delay_ms(3), 1_000);
        assert_eq!(p.delay_ms(5), 4_000);
        assert_eq!(p.delay_ms(6), 8_000);
        assert_eq!(p.delay_ms(60), 8_000);
    }

    #[tokio::test]
    async fn account_cap_stops_unknown_devices_but_not_trusted_ones() {
        let Setup {
            _dir: _keep,
            clock,
            l,
            ..
        } = setup();
        // Ten addresses, one failure each: no pair is slowed.
        for i in 0..10 {
            l.failed(Some("a"), &format!("10.0.0.{i}")).await.unwrap();
        }
        assert_eq!(
            code(l.check("a", "10.0.0.99", false).await),
            Some(ErrorCode::TooManyAttempts)
        );
        assert!(l.check("a", "10.0.0.99", true).await.is_ok());
        assert!(l.check("b", "10.0.0.99", false).await.is_ok());
        clock.advance(60_000);
        assert!(l.check("a", "10.0.0.99", false).await.is_ok());
    }

    #[tokio::test]
    async fn address_cap_stops_spraying_over_many_accounts() {
        let Setup {
            _dir: _keep,
            clock,
            l,
            ..
        } = setup();
        for i in 0..25 {
            let acc = format!("acc{i}");
            assert!(l.check(&acc, "9.9.9.9", false).await.is_ok());
            l.failed(Some(&acc), "9.9.9.9").await.unwrap();
        }
        assert!(l.check("fresh", "9.9.9.9", true).await.is_err());
        assert!(l.check_ip("9.9.9.9").await.is_err());
        assert!(l.check("fresh", "8.8.8.8", false).await.is_ok());
        clock.advance(60_000);
        assert!(l.check_ip("9.9.9.9").await.is_ok());
    }

    #[tokio::test]
    async fn unknown_accounts_count_for_the_address_only() {
        let Setup { _dir: _keep, l, .. } = setup();
        for _ in 0..25 {
            l.failed(None, "7.7.7.7").await.unwrap();
        }
        assert!(l.check_ip("7.7.7.7").await.is_err());
        assert!(l.check("a", "6.6.6.6", false).await.is_ok());
    }
}
