//! The mail service and its outbox: request handlers only write a mail to
//! the `mail_outbox` table; a background task drains it through the
//! `Mailer` port, retrying temporary failures with a doubling wait and
//! deleting a row once the SMTP server took the mail. A crash loses
//! nothing: rows stay until sent. A claimed row carries a lease, so two
//! nodes never send the same row at once; a node that dies mid-send leaves
//! the lease to run out and the mail is sent again (at least once, with the
//! same Message-ID for the receiver to drop a duplicate).

use std::sync::Arc;
use std::time::Duration;

use infra::store::{tables, DynStore, Key, ScanRange, Table};
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};
use tokio::sync::Notify;

use super::codes::CodeRow;
use super::mail::{MailError, MailSettings, Mailer, OutgoingMail, SmtpMailer};
use super::now_millis;
use super::recovery::ResetRow;
use crate::error::ApiError;

/// A mail in the outbox.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutboxRow {
    pub mail: OutgoingMail,
    /// Sends tried so far.
    pub attempts: u32,
    /// Not before this time (ms since the epoch).
    pub next_at_ms: i64,
    /// A sender holds the row until then.
    pub lease_until_ms: i64,
}

/// How long a claimed row is held before another sender may take it.
const LEASE_MS: i64 = 60_000;

/// Mail, verification codes and reset tokens (held by `AppState`).
#[derive(Clone)]
pub struct MailService {
    pub(super) settings: Arc<MailSettings>,
    mailer: Option<Arc<dyn Mailer>>,
    outbox: Table<OutboxRow>,
    pub(super) codes: Table<CodeRow>,
    pub(super) resets: Table<ResetRow>,
    /// Codes and links per e-mail address (shared by every node).
    pub(super) per_address: super::limits::StoreRateLimiter,
    /// Codes and links per client address (shared by every node).
    pub(super) per_ip: super::limits::StoreRateLimiter,
    pub(super) expiry: super::expiry::ExpiryIndex,
    wake: Arc<Notify>,
}

impl MailService {
    /// The SMTP adapter when `EASEL_SMTP_HOST` is set; otherwise no mailer,
    /// and calls that must mail answer MailUnavailable.
    pub fn from_settings(store: DynStore, settings: MailSettings) -> anyhow::Result<MailService> {
        let mailer: Option<Arc<dyn Mailer>> = match &settings.smtp {
            Some(smtp) => {
                tracing::info!(host = %smtp.host, port = smtp.port, tls = ?smtp.tls, "mail: SMTP configured");
                Some(Arc::new(SmtpMailer::new(smtp, &settings.from)?))
            }
            None => {
                tracing::warn!(
                    "mail: no SMTP server configured (EASEL_SMTP_HOST): e-mail verification, \
                     password reset and e-mail change answer MailUnavailable"
                );
                None
            }
        };
        Ok(MailService::new(store, settings, mailer))
    }

    pub fn new(
        store: DynStore,
        settings: MailSettings,
        mailer: Option<Arc<dyn Mailer>>,
    ) -> MailService {
        let limits =
            super::limits::SharedLimits::new(store.clone(), Arc::new(super::lockout::SystemClock));
        MailService {
            per_address: super::limits::StoreRateLimiter::new(
                limits.clone(),
                "mail_address",
                settings.sends_per_address_hour,
                3_600_000,
            ),
            per_ip: super::limits::StoreRateLimiter::new(
                limits,
                "mail_ip",
                settings.sends_per_ip_hour,
                3_600_000,
            ),
            settings: Arc::new(settings),
            mailer,
            expiry: super::expiry::ExpiryIndex::new(store.clone()),
            outbox: Table::new(store.clone(), &tables::MAIL_OUTBOX),
            codes: Table::new(store.clone(), &tables::MAIL_CODES),
            resets: Table::new(store, &tables::MAIL_RESET_TOKENS),
            wake: Arc::new(Notify::new()),
        }
    }

    pub fn configured(&self) -> bool {
        self.mailer.is_some()
    }

    /// MailUnavailable unless a mailer is configured.
    pub fn require(&self) -> Result<(), ApiError> {
        if self.configured() {
            Ok(())
        } else {
            Err(ErrorCode::MailUnavailable.into())
        }
    }

    pub fn code_ttl_secs(&self) -> i64 {
        self.settings.code_ttl_secs
    }

    pub fn public_url(&self) -> &str {
        &self.settings.public_url
    }

    /// Counts one send to `email` from `ip`; TooManyRequests over either limit.
    pub(super) async fn limit_send(&self, email: &str, ip: &str) -> Result<(), ApiError> {
        let address_ok = self.per_address.check(&email.to_ascii_lowercase()).await?;
        let ip_ok = self.per_ip.check(ip).await?;
        if address_ok && ip_ok {
            Ok(())
        } else {
            Err(ErrorCode::TooManyRequests.into())
        }
    }

    /// Writes a mail to the outbox and wakes the sender.
    pub async fn enqueue(
        &self,
        to: &str,
        subject: String,
        text: String,
        html: String,
    ) -> Result<(), ApiError> {
        self.require()?;
        let id = uuid::Uuid::now_v7().simple().to_string();
        let host = self
            .settings
            .from
            .rsplit('@')
            .next()
            .unwrap_or("easel")
            .trim_end_matches('>')
            .to_owned();
        let row = OutboxRow {
            mail: OutgoingMail {
                to: to.to_owned(),
                subject,
                text,
                html,
                message_id: format!("<{id}@{host}>"),
            },
            attempts: 0,
            next_at_ms: 0,
            lease_until_ms: 0,
        };
        self.outbox
            .put(&Key::of("outbox"), &Key::of(&id), &row)
            .await?;
        self.wake.notify_one();
        Ok(())
    }

    /// Starts the task that drains the outbox (nothing without a mailer).
    pub fn start_sender(&self) {
        let Some(mailer) = self.mailer.clone() else {
            return;
        };
        let me = self.clone();
        actix_web::rt::spawn(async move {
            loop {
                match me.drain_once(mailer.as_ref(), now_millis()).await {
                    Ok(_) => {}
                    Err(e) => tracing::warn!(error = %e, "mail: reading the outbox failed"),
                }
                tokio::select! {
                    _ = me.wake.notified() => {}
                    _ = tokio::time::sleep(Duration::from_millis(500)) => {}
                }
            }
        });
    }

    /// Sends every due row once; returns how many were sent.
    pub async fn drain_once(&self, mailer: &dyn Mailer, now: i64) -> Result<usize, ApiError> {
        let pk = Key::of("outbox");
        let mut sent = 0;
        let mut paging = None;
        loop {
            let page = self
                .outbox
                .scan(&pk, &ScanRange::all(100).after(paging))
                .await?;
            for (ck, row) in page.rows {
                if row.next_at_ms > now || row.lease_until_ms > now {
                    continue;
                }
                let claimed = OutboxRow {
                    lease_until_ms: now + LEASE_MS,
                    ..row.clone()
                };
                if self
                    .outbox
                    .compare_and_set(&pk, &ck, &row, Some(&claimed))
                    .await?
                    .is_err()
                {
                    continue;
                }
                match mailer.send(&claimed.mail).await {
                    Ok(()) => {
                        self.outbox.delete(&pk, &ck).await?;
                        sent += 1;
                    }
                    Err(e) => self.after_failure(&pk, &ck, claimed, e, now).await?,
                }
            }
            paging = page.paging;
            if paging.is_none() {
                return Ok(sent);
            }
        }
    }

    async fn after_failure(
        &self,
        pk: &Key,
        ck: &Key,
        claimed: OutboxRow,
        e: MailError,
        now: i64,
    ) -> Result<(), ApiError> {
        let attempts = claimed.attempts + 1;
        let give_up =
            matches!(e, MailError::Permanent(_)) || attempts >= self.settings.max_attempts;
        if give_up {
            tracing::warn!(error = %e, attempts, "mail: dropped a mail the server will not take");
            self.outbox.delete(pk, ck).await?;
            return Ok(());
        }
        let wait = self
            .settings
            .retry_base_ms
            .saturating_mul(1u64 << attempts.saturating_sub(1).min(16))
            .min(3_600_000);
        tracing::info!(error = %e, attempts, wait_ms = wait, "mail: will retry");
        let next = OutboxRow {
            attempts,
            next_at_ms: now + wait as i64,
            lease_until_ms: 0,
            ..claimed.clone()
        };
        // Only our claim is replaced; another writer's change wins.
        let _ = self
            .outbox
            .compare_and_set(pk, ck, &claimed, Some(&next))
            .await?;
        Ok(())
    }

    /// Mails waiting in the outbox (for tests and the operator).
    pub async fn pending(&self) -> Result<usize, ApiError> {
        let page = self
            .outbox
            .scan(&Key::of("outbox"), &ScanRange::all(1000))
            .await?;
        Ok(page.rows.len())
    }
}
