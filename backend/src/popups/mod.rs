//! Visitors and popups (spec 3 §7 "Face photo and popups", `msg/token/update`):
//! what each device or account was shown, when and how it answered.
//! - `rcpt/g/state`: the device's visits (by its `deviceId` cookie) and whether
//!   an account was seen on it.
//! - `visitor-guide/config`: the operator's guide steps with the ones this
//!   visitor has seen (and marks more as seen).
//! - `account/vip-pop`: whether to show the membership popup now: never to
//!   members, at most `vip_pop_max` times, `vip_pop_interval_secs` apart,
//!   never again after "never"; each show is recorded.
//! - `account/confirm-pop`: records a popup's answer.
//! - `msg/token/update`: the client's push token per session (or device).

use infra::config::{GuideStep, PhoneSettings};
use infra::store::{tables, DynStore, Key, Table};
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};

use crate::accounts::{now_millis, AccountRow};
use crate::error::ApiError;

/// A new visit starts after this long without requests (ms).
const VISIT_GAP_MS: i64 = 30 * 60 * 1000;
/// Longest push token kept (FCM and APNs tokens are far shorter).
const MAX_PUSH_TOKEN: usize = 4096;

/// Who a record is about: an account, or a visitor's device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subject {
    Account(String),
    Device(String),
}

impl Subject {
    fn key(&self) -> Key {
        match self {
            Subject::Account(id) => Key::of(id),
            Subject::Device(d) => Key::of(&format!("d:{d}")),
        }
    }
}

/// A device's visits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VisitorRow {
    pub first_seen: i64,
    pub last_seen: i64,
    pub visits: u32,
    /// The last account that used this device (logged in), if any.
    #[serde(default)]
    pub last_account: Option<String>,
}

/// What was shown to a subject of one popup kind, and the answers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PopupMark {
    pub shown: u32,
    pub last_shown: i64,
    pub answers: u32,
    pub last_answer: String,
    pub last_answer_at: i64,
    /// Guide steps seen (kind `guide`).
    #[serde(default)]
    pub seen: Vec<String>,
}

/// A push token as the client registered it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PushTokenRow {
    pub token: String,
    pub platform: String,
    pub updated_at: i64,
}

/// `rcpt/g/state`'s answer.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct VisitorState {
    pub device_id: Option<String>,
    /// `new` (first visit), `returning` (came back), `registered` (an account
    /// used this device before), `logged_in`.
    pub status: &'static str,
    pub visits: u32,
    pub first_seen: i64,
    pub last_seen: i64,
}

/// One guide step with whether this visitor saw it.
#[derive(Debug, Clone, Serialize)]
pub struct GuideStepState {
    #[serde(flatten)]
    pub step: GuideStep,
    pub seen: bool,
}

/// `visitor-guide/config`'s answer.
#[derive(Debug, Clone, Serialize)]
pub struct GuideState {
    pub steps: Vec<GuideStepState>,
    /// The first step not seen yet.
    pub next: Option<String>,
    pub done: bool,
}

/// `account/vip-pop`'s answer.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct VipPop {
    pub show: bool,
    /// `show`, `member`, `declined`, `cap`, `recent`.
    pub reason: &'static str,
    pub times_shown: u32,
    /// Unix ms when it may show again (for `recent`).
    pub next_at: Option<i64>,
}

/// The answers a popup takes.
pub const ANSWERS: &[&str] = &["confirm", "cancel", "close", "never"];

fn valid_kind(kind: &str) -> bool {
    (1..=32).contains(&kind.len())
        && kind
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
}

#[derive(Clone)]
pub struct PopupService {
    visitors: Table<VisitorRow>,
    marks: Table<PopupMark>,
    push: Table<PushTokenRow>,
    guide: Vec<GuideStep>,
    vip_interval_ms: i64,
    vip_max: u32,
}

impl PopupService {
    pub fn new(store: DynStore, settings: &PhoneSettings) -> PopupService {
        PopupService {
            visitors: Table::new(store.clone(), &tables::POPUP_VISITORS),
            marks: Table::new(store.clone(), &tables::POPUP_MARKS),
            push: Table::new(store, &tables::POPUP_PUSH_TOKENS),
            guide: settings.visitor_guide.clone(),
            vip_interval_ms: settings.vip_pop_interval_secs.max(0) * 1000,
            vip_max: settings.vip_pop_max,
        }
    }

    /// Counts this request as part of a visit of the device and answers its status.
    pub async fn visitor_state(
        &self,
        device: Option<&str>,
        account: Option<&str>,
    ) -> Result<VisitorState, ApiError> {
        let now = now_millis();
        let Some(device) = device else {
            // The first request of a browser: the cookie comes with this answer.
            return Ok(VisitorState {
                device_id: None,
                status: if account.is_some() {
                    "logged_in"
                } else {
                    "new"
                },
                visits: 1,
                first_seen: now,
                last_seen: now,
            });
        };
        let key = Key::of(device);
        let fresh = VisitorRow {
            first_seen: now,
            last_seen: now,
            visits: 1,
            last_account: account.map(str::to_owned),
        };
        let (before, row) = match self
            .visitors
            .insert_if_absent(&key, &Key::empty(), &fresh)
            .await?
        {
            Ok(()) => (None, fresh),
            Err(present) => {
                let before = present.clone();
                let row = self
                    .visitors
                    .update(&key, &Key::empty(), Some(present), |r| {
                        if now - r.last_seen > VISIT_GAP_MS {
                            r.visits += 1;
                        }
                        r.last_seen = now;
                        if let Some(a) = account {
                            r.last_account = Some(a.to_owned());
                        }
                    })
                    .await?
                    .unwrap_or(before.clone());
                (Some(before), row)
            }
        };
        let status = if account.is_some() {
            "logged_in"
        } else if row.last_account.is_some() {
            "registered"
        } else if before.is_some() && row.visits > 1 {
            "returning"
        } else {
            "new"
        };
        Ok(VisitorState {
            device_id: Some(device.to_owned()),
            status,
            visits: row.visits,
            first_seen: row.first_seen,
            last_seen: row.last_seen,
        })
    }

    async fn mark(&self, who: &Subject, kind: &str) -> Result<Option<PopupMark>, ApiError> {
        Ok(self.marks.get(&who.key(), &Key::of(kind)).await?)
    }

    /// Read-modify-write of a mark, creating it when absent.
    async fn change_mark(
        &self,
        who: &Subject,
        kind: &str,
        mut f: impl FnMut(&mut PopupMark),
    ) -> Result<PopupMark, ApiError> {
        let (pk, ck) = (who.key(), Key::of(kind));
        loop {
            match self.marks.get(&pk, &ck).await? {
                None => {
                    let mut m = PopupMark::default();
                    f(&mut m);
                    if self.marks.insert_if_absent(&pk, &ck, &m).await?.is_ok() {
                        return Ok(m);
                    }
                }
                Some(m) => {
                    if let Some(m) = self.marks.update(&pk, &ck, Some(m), &mut f).await? {
                        return Ok(m);
                    }
                }
            }
        }
    }

    /// The guide with what `who` saw; `mark_seen` ids are recorded first
    /// (an id that is not a step is PopupParamInvalid).
    pub async fn guide(&self, who: &Subject, mark_seen: &[String]) -> Result<GuideState, ApiError> {
        if let Some(bad) = mark_seen
            .iter()
            .find(|id| !self.guide.iter().any(|s| &s.id == *id))
        {
            return Err(ApiError::with_msg(
                ErrorCode::PopupParamInvalid,
                format!("{bad:?} is not a guide step"),
            ));
        }
        let seen = if mark_seen.is_empty() {
            self.mark(who, "guide").await?.unwrap_or_default().seen
        } else {
            let now = now_millis();
            self.change_mark(who, "guide", |m| {
                for id in mark_seen {
                    if !m.seen.contains(id) {
                        m.seen.push(id.clone());
                    }
                }
                m.shown += 1;
                m.last_shown = now;
            })
            .await?
            .seen
        };
        let steps: Vec<GuideStepState> = self
            .guide
            .iter()
            .map(|s| GuideStepState {
                seen: seen.contains(&s.id),
                step: s.clone(),
            })
            .collect();
        let next = steps.iter().find(|s| !s.seen).map(|s| s.step.id.clone());
        Ok(GuideState {
            done: next.is_none(),
            steps,
            next,
        })
    }

    /// The guide for a browser not known yet (no device cookie): nothing seen.
    pub fn guide_unseen(&self) -> GuideState {
        let steps: Vec<GuideStepState> = self
            .guide
            .iter()
            .map(|s| GuideStepState {
                step: s.clone(),
                seen: false,
            })
            .collect();
        GuideState {
            next: steps.first().map(|s| s.step.id.clone()),
            done: steps.is_empty(),
            steps,
        }
    }

    /// Whether to show the membership popup to this account now; a show is recorded.
    pub async fn vip_pop(&self, account: &AccountRow) -> Result<VipPop, ApiError> {
        let who = Subject::Account(account.id.clone());
        let mark = self.mark(&who, "vip").await?.unwrap_or_default();
        let no = |reason, next_at| VipPop {
            show: false,
            reason,
            times_shown: mark.shown,
            next_at,
        };
        if account.is_vip() {
            return Ok(no("member", None));
        }
        if mark.last_answer == "never" {
            return Ok(no("declined", None));
        }
        if mark.shown >= self.vip_max {
            return Ok(no("cap", None));
        }
        let now = now_millis();
        if mark.shown > 0 && now - mark.last_shown < self.vip_interval_ms {
            return Ok(no("recent", Some(mark.last_shown + self.vip_interval_ms)));
        }
        // Record the show only if nobody else showed it meanwhile (two tabs).
        let next = PopupMark {
            shown: mark.shown + 1,
            last_shown: now,
            ..mark.clone()
        };
        let (pk, ck) = (who.key(), Key::of("vip"));
        let applied = if mark == PopupMark::default() {
            self.marks.insert_if_absent(&pk, &ck, &next).await?.is_ok()
        } else {
            self.marks
                .compare_and_set(&pk, &ck, &mark, Some(&next))
                .await?
                .is_ok()
        };
        if !applied {
            return Ok(no("recent", Some(now + self.vip_interval_ms)));
        }
        Ok(VipPop {
            show: true,
            reason: "show",
            times_shown: next.shown,
            next_at: None,
        })
    }

    /// Records the answer to a popup of `kind`.
    pub async fn confirm(
        &self,
        who: &Subject,
        kind: &str,
        answer: &str,
    ) -> Result<PopupMark, ApiError> {
        if !valid_kind(kind) {
            return Err(ApiError::with_msg(
                ErrorCode::PopupParamInvalid,
                "pop_type: 1 to 32 of a-z, 0-9, '_', '-'",
            ));
        }
        if !ANSWERS.contains(&answer) {
            return Err(ApiError::with_msg(
                ErrorCode::PopupParamInvalid,
                "action: confirm, cancel, close or never",
            ));
        }
        let now = now_millis();
        self.change_mark(who, kind, |m| {
            m.answers += 1;
            m.last_answer = answer.to_owned();
            m.last_answer_at = now;
        })
        .await
    }

    /// Stores (or, with an empty token, removes) the push token of a session.
    pub async fn set_push_token(
        &self,
        who: &Subject,
        session: &str,
        token: &str,
        platform: &str,
    ) -> Result<(), ApiError> {
        let token = token.trim();
        let (pk, ck) = (who.key(), Key::of(session));
        if token.is_empty() {
            self.push.delete(&pk, &ck).await?;
            return Ok(());
        }
        if token.len() > MAX_PUSH_TOKEN || !token.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(ApiError::with_msg(
                ErrorCode::PopupParamInvalid,
                "token: up to 4096 visible ASCII characters",
            ));
        }
        let platform = match platform.trim() {
            "" => "web",
            p @ ("web" | "ios" | "android") => p,
            _ => {
                return Err(ApiError::with_msg(
                    ErrorCode::PopupParamInvalid,
                    "platform: web, ios or android",
                ))
            }
        };
        let row = PushTokenRow {
            token: token.to_owned(),
            platform: platform.to_owned(),
            updated_at: now_millis(),
        };
        self.push.put(&pk, &ck, &row).await?;
        Ok(())
    }

    /// The push token stored for a session, if any.
    pub async fn push_token(
        &self,
        who: &Subject,
        session: &str,
    ) -> Result<Option<PushTokenRow>, ApiError> {
        Ok(self.push.get(&who.key(), &Key::of(session)).await?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn popup_kinds_are_short_slugs() {
        assert!(valid_kind("vip"));
        assert!(valid_kind("face-photo_2"));
        assert!(!valid_kind(""));
        assert!(!valid_kind("VIP"));
        assert!(!valid_kind(&"a".repeat(33)));
    }
}
