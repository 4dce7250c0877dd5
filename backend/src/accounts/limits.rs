//! Limits shared by every node (issue 21): fixed-window counters and
//! back-off counters kept in the Store (`acct_limits`, one row per scope and
//! key, changed only by compare-and-set), so two nodes on one store count
//! the same attempts and a restart forgets nothing. The lockout
//! ([`super::lockout`]) and the mail and SMS send limits use them.
//!
//! Every row carries the time after which it means nothing
//! (`expires_at`); it is registered in the expiry index when it starts, and
//! the cleanup sweeper ([`super::expiry`]) removes it once that time has
//! passed (re-registering rows that were extended meanwhile).

use std::sync::Arc;

use infra::store::{tables, DynStore, Key, Table};
use serde::{Deserialize, Serialize};

use super::expiry::{ExpiryIndex, ExpiryKind};
use super::lockout::Clock;
use crate::error::ApiError;

/// A window or back-off counter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LimitRow {
    /// Start of the window (ms).
    pub start: i64,
    /// Hits (or failures) counted since `start`.
    pub count: u32,
    /// The latest hit (ms).
    pub last: i64,
    /// After this (ms) the row counts nothing and may be removed.
    pub expires_at: i64,
}

/// The partition key of a limit row.
pub fn limit_key(scope: &str, key: &str) -> Key {
    Key::empty().str(scope).str(key)
}

/// The shared counters, with the clock they read.
#[derive(Clone)]
pub struct SharedLimits {
    rows: Table<LimitRow>,
    expiry: ExpiryIndex,
    clock: Arc<dyn Clock>,
}

impl SharedLimits {
    pub fn new(store: DynStore, clock: Arc<dyn Clock>) -> SharedLimits {
        SharedLimits {
            rows: Table::new(store.clone(), &tables::ACCT_LIMITS),
            expiry: ExpiryIndex::new(store),
            clock,
        }
    }

    pub fn now_millis(&self) -> i64 {
        self.clock.now_millis()
    }

    /// The live row of `scope`/`key` (`None` when absent or expired).
    pub async fn read(&self, scope: &str, key: &str) -> Result<Option<LimitRow>, ApiError> {
        let now = self.now_millis();
        Ok(self
            .rows
            .get(&limit_key(scope, key), &Key::empty())
            .await?
            .filter(|r| r.expires_at > now))
    }

    /// Counts one hit in a fixed window of `window_ms`; answers the count
    /// including this hit.
    pub async fn hit(&self, scope: &str, key: &str, window_ms: i64) -> Result<u32, ApiError> {
        self.change(scope, key, |now, old| match old {
            Some(r) if now < r.start.saturating_add(window_ms) => LimitRow {
                count: r.count.saturating_add(1),
                last: now,
                ..r.clone()
            },
            _ => LimitRow {
                start: now,
                count: 1,
                last: now,
                expires_at: now.saturating_add(window_ms),
            },
        })
        .await
        .map(|r| r.count)
    }

    /// Counts one failure of a back-off counter that lives `keep_ms` after
    /// its latest failure; answers the row after.
    pub async fn bump(&self, scope: &str, key: &str, keep_ms: i64) -> Result<LimitRow, ApiError> {
        self.change(scope, key, |now, old| match old {
            Some(r) if now < r.expires_at => LimitRow {
                count: r.count.saturating_add(1),
                last: now,
                expires_at: now.saturating_add(keep_ms),
                start: r.start,
            },
            _ => LimitRow {
                start: now,
                count: 1,
                last: now,
                expires_at: now.saturating_add(keep_ms),
            },
        })
        .await
    }

    /// Removes the row (a success clears a back-off).
    pub async fn clear(&self, scope: &str, key: &str) -> Result<(), ApiError> {
        self.rows
            .delete(&limit_key(scope, key), &Key::empty())
            .await?;
        Ok(())
    }

    /// Read, change, compare-and-set until it applies; a new row (or one
    /// that started over) is registered for cleanup.
    async fn change(
        &self,
        scope: &str,
        key: &str,
        next: impl Fn(i64, Option<&LimitRow>) -> LimitRow,
    ) -> Result<LimitRow, ApiError> {
        let pk = limit_key(scope, key);
        let ck = Key::empty();
        let mut current = self.rows.get(&pk, &ck).await?;
        loop {
            let now = self.now_millis();
            let row = next(now, current.as_ref());
            let applied = match &current {
                Some(old) => self.rows.compare_and_set(&pk, &ck, old, Some(&row)).await?,
                None => self
                    .rows
                    .insert_if_absent(&pk, &ck, &row)
                    .await?
                    .map_err(Some),
            };
            match applied {
                Ok(()) => {
                    let started = current.as_ref().is_none_or(|old| old.start != row.start);
                    if started {
                        self.expiry
                            .register(row.expires_at, ExpiryKind::Limit, &pk)
                            .await?;
                    }
                    return Ok(row);
                }
                Err(latest) => current = latest,
            }
        }
    }
}

/// A fixed-window limit of `per_window` hits per key, shared through the
/// Store (the per-process [`crate::ratelimit::RateLimiter`]'s counterpart
/// for limits that must hold across nodes).
#[derive(Clone)]
pub struct StoreRateLimiter {
    limits: SharedLimits,
    scope: &'static str,
    per_window: u32,
    window_ms: i64,
}

impl StoreRateLimiter {
    pub fn new(
        limits: SharedLimits,
        scope: &'static str,
        per_window: u32,
        window_ms: i64,
    ) -> StoreRateLimiter {
        StoreRateLimiter {
            limits,
            scope,
            per_window,
            window_ms: window_ms.max(1),
        }
    }

    /// Counts one hit; `false` when the key is over its limit.
    pub async fn check(&self, key: &str) -> Result<bool, ApiError> {
        Ok(self.limits.hit(self.scope, key, self.window_ms).await? <= self.per_window)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::accounts::lockout::tests_support::FixedClock;

    fn store() -> (tempfile::TempDir, DynStore) {
        let dir = tempfile::tempdir().unwrap();
        let store: DynStore = Arc::new(
            infra::store::embedded::EmbeddedStore::open(&dir.path().join("store")).unwrap(),
        );
        (dir, store)
    }

    #[tokio::test]
    async fn two_limiters_on_one_store_share_the_window() {
        let (_dir, store) = store();
        let clock = FixedClock::at(1_000_000);
        let a = StoreRateLimiter::new(
            SharedLimits::new(store.clone(), clock.clone()),
            "t",
            3,
            60_000,
        );
        let b = StoreRateLimiter::new(SharedLimits::new(store, clock.clone()), "t", 3, 60_000);
        assert!(a.check("k").await.unwrap());
        assert!(b.check("k").await.unwrap());
        assert!(a.check("k").await.unwrap());
        assert!(
            !b.check("k").await.unwrap(),
            "the fourth hit, on either node"
        );
        assert!(a.check("other").await.unwrap());
        clock.advance(60_000);
        assert!(b.check("k").await.unwrap(), "a new window");
    }

    #[tokio::test]
    async fn a_back_off_counter_lives_after_its_last_failure_and_clears() {
        let (_dir, store) = store();
        let clock = FixedClock::at(5_000);
        let l = SharedLimits::new(store, clock.clone());
        assert_eq!(l.bump("p", "k", 1_000).await.unwrap().count, 1);
        clock.advance(900);
        assert_eq!(l.bump("p", "k", 1_000).await.unwrap().count, 2);
        clock.advance(900);
        assert_eq!(l.read("p", "k").await.unwrap().unwrap().count, 2);
        clock.advance(100);
        assert!(l.read("p", "k").await.unwrap().is_none(), "expired");
        assert_eq!(l.bump("p", "k", 1_000).await.unwrap().count, 1);
        l.clear("p", "k").await.unwrap();
        assert!(l.read("p", "k").await.unwrap().is_none());
    }
}
