//! Cleanup of short-lived account rows (issue 21): abandoned provider
//! sign-in states (`oidc_states`), spent or expired reset tokens
//! (`mail_reset_tokens`), dead verification codes (`mail_codes`,
//! `sms_codes`) and stale limit counters (`acct_limits`).
//!
//! The Store cannot scan a whole table, so each such row is registered when
//! written in one index, `acct_expiry` (partition 0, clustered by expiry
//! time, kind and the row's partition key). [`sweep_expired`] reads that
//! index in time order up to now: a row that is really past its time is
//! removed by compare-and-set (never one written again meanwhile); one that
//! was renewed (a newer code on the same key, a counter bumped since) is
//! registered again at its new time. [`start_cleanup`] runs it
//! periodically (`EASEL_ACCOUNT_CLEANUP_SECS`, default 600).

use std::time::Duration;

use infra::store::{tables, DynStore, Key, ScanRange, Table};
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::codes::CodeRow;
use super::limits::LimitRow;
use super::oidc::PendingSignIn;
use super::phone::SmsCodeRow;
use super::recovery::ResetRow;
use crate::error::ApiError;

/// How long a reset token's row is kept after its link expired, so the link
/// still answers "expired" (20002) rather than "unknown" for a week.
pub const RESET_KEEP_SECS: i64 = 7 * 86_400;

/// What an index entry points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExpiryKind {
    OidcState,
    ResetToken,
    MailCode,
    SmsCode,
    Limit,
}

impl ExpiryKind {
    fn name(self) -> &'static str {
        match self {
            ExpiryKind::OidcState => "oidc",
            ExpiryKind::ResetToken => "reset",
            ExpiryKind::MailCode => "mailcode",
            ExpiryKind::SmsCode => "smscode",
            ExpiryKind::Limit => "limit",
        }
    }

    fn parse(s: &str) -> Option<ExpiryKind> {
        [
            ExpiryKind::OidcState,
            ExpiryKind::ResetToken,
            ExpiryKind::MailCode,
            ExpiryKind::SmsCode,
            ExpiryKind::Limit,
        ]
        .into_iter()
        .find(|k| k.name() == s)
    }
}

fn index_pk() -> Key {
    Key::empty().u64(0)
}

/// The expiry index (`acct_expiry`).
#[derive(Clone)]
pub struct ExpiryIndex {
    index: Table<()>,
}

impl ExpiryIndex {
    pub fn new(store: DynStore) -> ExpiryIndex {
        ExpiryIndex {
            index: Table::new(store, &tables::ACCT_EXPIRY),
        }
    }

    /// Registers the row of `kind` at partition key `pk` to be looked at
    /// once `at_ms` has passed.
    pub async fn register(&self, at_ms: i64, kind: ExpiryKind, pk: &Key) -> Result<(), ApiError> {
        let ck = Key::empty()
            .i64(at_ms)
            .str(kind.name())
            .bytes(pk.as_bytes());
        self.index.put(&index_pk(), &ck, &()).await?;
        Ok(())
    }
}

/// When a row of each kind may go (ms).
trait Expires {
    fn gone_at_ms(&self) -> i64;
}

impl Expires for PendingSignIn {
    fn gone_at_ms(&self) -> i64 {
        self.expires_at.saturating_mul(1000)
    }
}

impl Expires for ResetRow {
    fn gone_at_ms(&self) -> i64 {
        reset_gone_at_ms(self.expires_at)
    }
}

impl Expires for CodeRow {
    fn gone_at_ms(&self) -> i64 {
        self.expires_at.saturating_mul(1000)
    }
}

impl Expires for SmsCodeRow {
    /// The code and the number's send window (kept for the hourly limit).
    fn gone_at_ms(&self) -> i64 {
        self.expires_at
            .max(self.window_start.saturating_add(3600))
            .saturating_mul(1000)
    }
}

impl Expires for LimitRow {
    fn gone_at_ms(&self) -> i64 {
        self.expires_at
    }
}

/// The time at which the reset row for `expires_at` (seconds) is registered.
pub fn reset_gone_at_ms(expires_at: i64) -> i64 {
    expires_at
        .saturating_add(RESET_KEEP_SECS)
        .saturating_mul(1000)
}

/// What the sweep did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Swept {
    /// Rows removed.
    pub removed: u64,
    /// Rows renewed meanwhile, registered again at their new time.
    pub renewed: u64,
}

/// Looks at one row: removes it if past its time (compare-and-set), or
/// answers its later time.
async fn settle<V>(
    store: &DynStore,
    def: &'static infra::store::TableDef,
    pk: &Key,
    now_ms: i64,
) -> Result<Option<i64>, ApiError>
where
    V: Expires + Serialize + DeserializeOwned + Clone + Send + Sync + 'static,
{
    let table: Table<V> = Table::new(store.clone(), def);
    let Some(row) = table.get(pk, &Key::empty()).await? else {
        return Ok(None);
    };
    let at = row.gone_at_ms();
    if at > now_ms {
        return Ok(Some(at));
    }
    // Written again since it was read: left for its own entry.
    let _ = table.compare_and_set(pk, &Key::empty(), &row, None).await?;
    Ok(None)
}

/// Removes what expired by `now_ms`, at most `budget` index entries.
pub async fn sweep_expired(store: &DynStore, now_ms: i64, budget: u64) -> Result<Swept, ApiError> {
    let index = ExpiryIndex::new(store.clone());
    let mut out = Swept::default();
    let mut left = budget;
    loop {
        let page = index.index.scan(&index_pk(), &ScanRange::all(100)).await?;
        if page.rows.is_empty() {
            return Ok(out);
        }
        for (ck, ()) in &page.rows {
            if left == 0 {
                return Ok(out);
            }
            let mut r = ck.reader();
            let at = r.i64();
            if at.is_some_and(|at| at > now_ms) {
                return Ok(out);
            }
            let kind = r.str().as_deref().and_then(ExpiryKind::parse);
            let pk = r.bytes().map(Key::from_bytes);
            if let (Some(kind), Some(pk)) = (kind, pk) {
                let later = match kind {
                    ExpiryKind::OidcState => {
                        settle::<PendingSignIn>(store, &tables::OIDC_STATES, &pk, now_ms).await?
                    }
                    ExpiryKind::ResetToken => {
                        settle::<ResetRow>(store, &tables::MAIL_RESET_TOKENS, &pk, now_ms).await?
                    }
                    ExpiryKind::MailCode => {
                        settle::<CodeRow>(store, &tables::MAIL_CODES, &pk, now_ms).await?
                    }
                    ExpiryKind::SmsCode => {
                        settle::<SmsCodeRow>(store, &tables::SMS_CODES, &pk, now_ms).await?
                    }
                    ExpiryKind::Limit => {
                        settle::<LimitRow>(store, &tables::ACCT_LIMITS, &pk, now_ms).await?
                    }
                };
                match later {
                    Some(at) => {
                        index.register(at, kind, &pk).await?;
                        out.renewed += 1;
                    }
                    None => out.removed += 1,
                }
            }
            index.index.delete(&index_pk(), ck).await?;
            left -= 1;
        }
    }
}

/// `EASEL_ACCOUNT_CLEANUP_SECS` (default 600, at least 1).
pub fn cleanup_every_from_env() -> anyhow::Result<Duration> {
    let secs = match std::env::var("EASEL_ACCOUNT_CLEANUP_SECS") {
        Ok(v) if !v.trim().is_empty() => v
            .trim()
            .parse::<u64>()
            .map_err(|_| anyhow::anyhow!("EASEL_ACCOUNT_CLEANUP_SECS must be a whole number"))?,
        _ => 600,
    };
    Ok(Duration::from_secs(secs.max(1)))
}

/// The periodic cleanup (every node runs it; removals are compare-and-set,
/// so two nodes sweeping at once only repeat each other's reads).
pub fn start_cleanup(store: DynStore, every: Duration) {
    actix_web::rt::spawn(async move {
        let mut tick = tokio::time::interval(every);
        loop {
            tick.tick().await;
            match sweep_expired(&store, super::now_millis(), 10_000).await {
                Ok(s) if s.removed == 0 && s.renewed == 0 => {}
                Ok(s) => {
                    tracing::info!(removed = s.removed, renewed = s.renewed, "account cleanup")
                }
                Err(e) => tracing::warn!(error = %e, "account cleanup failed"),
            }
        }
    });
}

#[cfg(test)]
#[path = "expiry_tests.rs"]
mod tests;
