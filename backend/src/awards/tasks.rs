//! Task awards: when an account does something an enabled award rewards
//! (first post of the day, first generation, first follow, first
//! publication, profile completed), its credits are granted under the
//! award's ledger key (once ever, or once a day in the account's zone), an
//! unseen entry is kept for the popup and frame 13 `award.granted` goes to
//! the account's sockets. The hooks in the handlers call [`AwardService::happened`],
//! which never fails the action that triggered it: errors are logged.
//!
//! The grant comes first and the unseen entry only when this call made
//! the grant, so a repeated action never shows the popup twice; a crash
//! between the two loses the popup, never the credits.

use infra::store::{Key, ScanRange};
use protocol::awards::{AwardList, AwardView, Trigger};

use super::AwardService;
use crate::error::ApiError;
use crate::tasks::Requester;

/// Most awards one popup call answers (older ones stay for the next call).
const POPUP_PAGE: u32 = 50;

impl AwardService {
    /// `trigger` happened for `account`: grants its award if enabled and
    /// not granted yet. Never fails: errors are logged.
    pub async fn happened(&self, account: &str, trigger: Trigger) {
        if let Err(e) = self.grant_award(account, trigger).await {
            tracing::warn!(error = %e, account, trigger = trigger.name(), "awards: not granted");
        }
    }

    /// A work was published: the daily first-post award and the first
    /// publication.
    pub async fn on_publish(&self, account: &str) {
        self.happened(account, Trigger::FirstPostOfDay).await;
        self.happened(account, Trigger::FirstPublish).await;
    }

    /// A task was created: the first generation (accounts only).
    pub async fn on_task(&self, who: &Requester) {
        if let Requester::Account(a) = who {
            self.happened(&a.id, Trigger::FirstGeneration).await;
        }
    }

    /// A profile was edited: completed once it has a name, an avatar and a bio.
    pub async fn on_profile(&self, p: &protocol::square::social::Profile) {
        if !p.name.trim().is_empty() && p.avatar.is_some() && !p.bio.trim().is_empty() {
            self.happened(&p.id, Trigger::ProfileCompleted).await;
        }
    }

    /// Grants the award; whether this call granted it.
    pub async fn grant_award(&self, account: &str, trigger: Trigger) -> Result<bool, ApiError> {
        let config = self.config().await?;
        let Some(award) = config.award(trigger) else {
            return Ok(false);
        };
        let now = self.now();
        let day = self.account_zone(account).await?.day_of(now);
        let key = trigger.ledger_key(account, day);
        if !self.inner.ledger.grant(account, &key, award.amount).await? {
            return Ok(false);
        }
        let view = AwardView {
            key: key.clone(),
            trigger,
            title: award.title.clone(),
            amount: award.amount,
            at: now,
        };
        self.inner
            .unseen
            .put(&Key::of(account), &Key::of(&key), &view)
            .await?;
        self.inner
            .accounts
            .notify(
                account,
                serde_json::json!({"kind": "award.granted", "award": view}),
            )
            .await;
        Ok(true)
    }

    /// `face-photo/mark-user-activity-award-list`: the awards not shown
    /// yet, oldest first, now marked seen. Each is claimed by
    /// compare-and-set, so two popups open at once never both show one.
    pub async fn take_unseen(&self, account: &str) -> Result<AwardList, ApiError> {
        let pk = Key::of(account);
        let page = self
            .inner
            .unseen
            .scan(&pk, &ScanRange::all(POPUP_PAGE))
            .await?;
        let mut list = Vec::new();
        for (ck, view) in page.rows {
            if self
                .inner
                .unseen
                .compare_and_set(&pk, &ck, &view, None)
                .await?
                .is_ok()
            {
                list.push(view);
            }
        }
        list.sort_by(|a, b| a.at.cmp(&b.at).then_with(|| a.key.cmp(&b.key)));
        Ok(AwardList { list })
    }
}
