//! Keyed ranking events counted once, and their retention
//! (`model_events_seen`). A keyed event (a task's use or earning, a
//! download per downloader, version and day, a task's co-use) claims a row
//! in the partition of its own UTC day; a second claim of the same key and
//! day finds it and the event is not counted again.
//!
//! **Retention.** Claims are kept for [`RankSettings::seen_retention_days`]
//! days (default [`DEFAULT_RETENTION_DAYS`] = 8) before today: long enough
//! that a replay after a crash, a reconciler's repeat or a same-day repeat is
//! still recognised. A keyed event whose own day is older than that is not
//! counted at all (its claim may be gone), so pruning never lets an event
//! count twice. Keyed events carry their own time (a task's finish time, the
//! download's day), so a replay always lands in the same day's partition.
//!
//! **Layout and pruning.** Partitions are `(day, shard)`, the shard a stable
//! FNV-1a hash of the key over [`SEEN_SHARDS`], so one busy day is spread
//! over several partitions; a small index partition (day −1) lists the days
//! that have claims. [`ModelRanks::prune_seen`] deletes whole partitions of
//! the days past the retention (no row-by-row deletes, no tombstone runs in
//! a live partition: the Scylla-friendly shape) and then their index rows;
//! [`ModelRanks::start_seen_sweeper`] runs it every hour.

use std::time::Duration;

use infra::store::Key;
use protocol::models::rank::utc_day;

use super::{scan_all, ModelRanks};
use crate::error::ApiError;

/// Days of claims kept before today by default.
pub const DEFAULT_RETENTION_DAYS: i64 = 8;
/// The environment variable of [`super::RankSettings::seen_retention_days`].
pub const RETENTION_ENV: &str = "EASEL_MODEL_EVENTS_RETENTION_DAYS";
/// Partitions per day.
pub const SEEN_SHARDS: u64 = 32;
/// The "day" of the index partition.
const INDEX_DAY: i64 = -1;
/// How often the sweeper prunes.
pub const SWEEP_EVERY: Duration = Duration::from_secs(3600);

/// FNV-1a (64 bit): stable across builds and nodes, unlike std's hasher.
fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

fn partition(day: i64, shard: u64) -> Key {
    Key::empty().i64(day).i64(shard as i64)
}

fn index() -> Key {
    partition(INDEX_DAY, 0)
}

impl ModelRanks {
    /// The first day whose claims are still kept on `now`.
    pub fn seen_first_kept_day(&self, now: i64) -> i64 {
        utc_day(now) - self.inner.settings.seen_retention_days
    }

    /// Claims keyed event `key` of time `at_ms`: true the first time, false
    /// when it was claimed before or is older than the retention.
    pub(crate) async fn claim(&self, key: &str, at_ms: i64, now: i64) -> Result<bool, ApiError> {
        let day = utc_day(at_ms);
        if day < self.seen_first_kept_day(now) {
            return Ok(false);
        }
        self.index_day(day).await?;
        let pk = partition(day, fnv1a(key) % SEEN_SHARDS);
        Ok(self
            .inner
            .seen
            .insert_if_absent(&pk, &Key::of(key), &at_ms)
            .await?
            .is_ok())
    }

    /// Lists `day` in the index (before any claim of it is written, so a
    /// crash never leaves a day the sweeper cannot find). Written once per
    /// node and day.
    async fn index_day(&self, day: i64) -> Result<(), ApiError> {
        let known = self
            .inner
            .seen_days
            .lock()
            .map(|d| d.contains(&day))
            .unwrap_or(false);
        if known {
            return Ok(());
        }
        self.inner
            .seen
            .put(&index(), &Key::empty().i64(day), &0)
            .await?;
        if let Ok(mut d) = self.inner.seen_days.lock() {
            d.insert(day);
        }
        Ok(())
    }

    /// Deletes the claims of every day before the retention (whole
    /// partitions); answers the days removed.
    pub async fn prune_seen(&self, now: i64) -> Result<usize, ApiError> {
        let first_kept = self.seen_first_kept_day(now);
        let days: Vec<i64> = scan_all(&self.inner.seen, &index(), 100_000)
            .await?
            .into_iter()
            .filter_map(|(ck, _)| ck.reader().i64())
            .filter(|d| *d < first_kept)
            .collect();
        for day in &days {
            for shard in 0..SEEN_SHARDS {
                self.inner
                    .seen
                    .delete_partition(&partition(*day, shard))
                    .await?;
            }
            self.inner
                .seen
                .delete(&index(), &Key::empty().i64(*day))
                .await?;
            if let Ok(mut d) = self.inner.seen_days.lock() {
                d.remove(day);
            }
        }
        Ok(days.len())
    }

    /// Prunes now and then every `every`, in the background.
    pub fn start_seen_sweeper(&self, every: Duration) {
        let me = self.clone();
        actix_web::rt::spawn(async move {
            let mut tick = tokio::time::interval(every);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                match me.prune_seen(crate::accounts::now_millis()).await {
                    Ok(0) => {}
                    Ok(n) => tracing::info!(days = n, "model_events_seen: old days pruned"),
                    Err(e) => tracing::warn!(error = %e, "model_events_seen: prune failed"),
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn fnv_is_stable() {
        // Known FNV-1a 64 values: the shard of a key never changes.
        assert_eq!(super::fnv1a(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(super::fnv1a("a"), 0xaf63_dc4c_8601_ec8c);
    }
}
