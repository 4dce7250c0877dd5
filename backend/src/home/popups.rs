//! Face-photo popups for one viewer (spec 3 §7 "Face photo and popups"):
//! which popup to show now (`face-photo/get`: published, scheduled, aimed
//! at this viewer, not refused with "don't show again", within its
//! frequency cap), "don't show again", what the viewer did with one
//! (`mark-face-photo-popup`), each popup's state (`popup-info`), and the
//! wakeup popup for a viewer back after days away. A show is recorded by
//! compare-and-set on the viewer's mark, so two tabs asking at once show
//! a once-a-day popup once. Viewers are accounts, or visitors by their
//! `deviceId` cookie (`popups::Subject`). Daily and weekly caps count days in
//! the viewer's zone (`awards::AwardService::viewer_zone`). Shows, closes,
//! clicks and "don't show again" are counted for the composer (`stats.rs`).

use infra::store::Key;
use protocol::awards::Zone;
use protocol::home::rules::{decide, PopDecision, PopRule, Seen, DAY_MS, VISIT_GAP_MS};
use protocol::home::view::{PopupAnswer, PopupInfo, PopupView};
use protocol::home::{Composition, Popup, PopupKind, Viewer};
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};

use super::stats::{count, PopupEvent};
use super::{HomeService, Visible};
use crate::error::ApiError;
use crate::popups::Subject;

/// Write the last-seen time at most this often within a visit (ms).
const PRESENCE_WRITE_MS: i64 = 60_000;

/// What one viewer was shown of one popup and what they did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FaceMark {
    pub shown: u32,
    pub last_shown: Option<i64>,
    pub dont_pop: bool,
    pub closes: u32,
    pub clicks: u32,
}

/// When a viewer was last seen, and how long they had been away when this
/// visit began.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Presence {
    pub last_seen: i64,
    pub away_ms: i64,
}

/// What the viewer did with a popup (`mark-face-photo-popup`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PopupAction {
    Close,
    Click,
}

fn subject_key(who: &Subject) -> Key {
    match who {
        Subject::Account(id) => Key::of(id),
        Subject::Device(d) => Key::of(&format!("d:{d}")),
    }
}

impl HomeService {
    /// Records that the viewer is here now; answers the days they were away
    /// before this visit began (0 for a first visit).
    pub async fn touch(&self, who: &Subject) -> Result<Presence, ApiError> {
        let now = self.now();
        let pk = subject_key(who);
        let ck = Key::empty();
        loop {
            match self.presence.get(&pk, &ck).await? {
                None => {
                    let p = Presence {
                        last_seen: now,
                        away_ms: 0,
                    };
                    if self.presence.insert_if_absent(&pk, &ck, &p).await?.is_ok() {
                        return Ok(p);
                    }
                }
                Some(p) if now - p.last_seen < PRESENCE_WRITE_MS => return Ok(p),
                Some(p) => {
                    let next = Presence {
                        last_seen: now,
                        away_ms: if now - p.last_seen > VISIT_GAP_MS {
                            now - p.last_seen
                        } else {
                            p.away_ms
                        },
                    };
                    if self
                        .presence
                        .compare_and_set(&pk, &ck, &p, Some(&next))
                        .await?
                        .is_ok()
                    {
                        return Ok(next);
                    }
                }
            }
        }
    }

    async fn marks_of(&self, who: &Subject, popups: &[&Popup]) -> Result<Vec<FaceMark>, ApiError> {
        let pk = subject_key(who);
        let keys: Vec<(Key, Key)> = popups
            .iter()
            .map(|p| (pk.clone(), Key::of(&p.id)))
            .collect();
        Ok(self
            .marks
            .get_many(&keys)
            .await?
            .into_iter()
            .map(Option::unwrap_or_default)
            .collect())
    }

    /// The decision for one popup, with a wakeup popup's absence rule.
    fn decision(
        p: &Popup,
        mark: &FaceMark,
        viewer: &Viewer,
        away_ms: i64,
        now: i64,
        zone: &Zone,
    ) -> PopDecision {
        let seen = Seen {
            last_shown: mark.last_shown,
            dont_pop: mark.dont_pop,
        };
        let rule = PopRule {
            enabled: p.enabled,
            targeting: &p.targeting,
            schedule: &p.schedule,
            cap: p.cap,
            allow_dont_pop: p.allow_dont_pop,
        };
        let d = decide(&rule, &seen, viewer, now, zone);
        if d == PopDecision::Show
            && p.kind == PopupKind::Wakeup
            && away_ms < i64::from(p.away_days) * DAY_MS
        {
            PopDecision::NotTargeted
        } else {
            d
        }
    }

    /// The popup to show now among `kinds` (empty: all), recorded as shown;
    /// with `record` false only looks (for `app/fetch`). Days are `zone`'s.
    pub async fn pick_popup(
        &self,
        who: &Subject,
        viewer: &Viewer,
        zone: &Zone,
        kinds: &[PopupKind],
        record: bool,
    ) -> Result<PopupAnswer, ApiError> {
        let live = self.live().await?;
        let presence = self.touch(who).await?;
        let now = self.now();
        let visible = Visible {
            comp: &live,
            viewer,
            now,
        };
        let candidates: Vec<&Popup> = visible
            .popups()
            .into_iter()
            .filter(|p| kinds.is_empty() || kinds.contains(&p.kind))
            .collect();
        let marks = self.marks_of(who, &candidates).await?;
        let away_days = presence.away_ms / DAY_MS;
        for (p, mark) in candidates.iter().zip(marks) {
            if Self::decision(p, &mark, viewer, presence.away_ms, now, zone) != PopDecision::Show {
                continue;
            }
            if record {
                if !self.record_show(who, p, &mark, now).await? {
                    // Another tab showed it just now: it is capped for this one.
                    continue;
                }
                count(&self.stats, &p.id, who, PopupEvent::Shown, mark.shown == 0).await?;
            }
            return Ok(PopupAnswer {
                show: true,
                popup: Some(PopupView::from(*p)),
                away_days,
            });
        }
        Ok(PopupAnswer {
            show: false,
            popup: None,
            away_days,
        })
    }

    /// Records a show if the mark is still `seen` (false: someone else did).
    async fn record_show(
        &self,
        who: &Subject,
        p: &Popup,
        seen: &FaceMark,
        now: i64,
    ) -> Result<bool, ApiError> {
        let (pk, ck) = (subject_key(who), Key::of(&p.id));
        let next = FaceMark {
            shown: seen.shown + 1,
            last_shown: Some(now),
            ..seen.clone()
        };
        Ok(if *seen == FaceMark::default() {
            self.marks.insert_if_absent(&pk, &ck, &next).await?.is_ok()
        } else {
            self.marks
                .compare_and_set(&pk, &ck, seen, Some(&next))
                .await?
                .is_ok()
        })
    }

    /// A published popup by id (NotFound otherwise).
    fn published<'a>(live: &'a Composition, id: &str) -> Result<&'a Popup, ApiError> {
        live.popups
            .iter()
            .find(|p| p.id == id)
            .ok_or_else(|| ErrorCode::NotFound.into())
    }

    /// Changes the viewer's mark of popup `id`; answers the mark before
    /// and after the change.
    async fn change_mark(
        &self,
        who: &Subject,
        id: &str,
        f: impl Fn(&mut FaceMark),
    ) -> Result<(FaceMark, FaceMark), ApiError> {
        let (pk, ck) = (subject_key(who), Key::of(id));
        loop {
            let before = self.marks.get(&pk, &ck).await?;
            let mut next = before.clone().unwrap_or_default();
            f(&mut next);
            if before.as_ref().unwrap_or(&FaceMark::default()) == &next {
                // Nothing changes (and no empty row is written, which a
                // first show expects absent).
                return Ok((next.clone(), next));
            }
            let applied = match &before {
                None => self.marks.insert_if_absent(&pk, &ck, &next).await?.is_ok(),
                Some(m) => self
                    .marks
                    .compare_and_set(&pk, &ck, m, Some(&next))
                    .await?
                    .is_ok(),
            };
            if applied {
                return Ok((before.unwrap_or_default(), next));
            }
        }
    }

    /// "Don't show again" for a published popup that offers it.
    pub async fn dont_pop(&self, who: &Subject, id: &str) -> Result<FaceMark, ApiError> {
        let live = self.live().await?;
        let p = Self::published(&live, id)?;
        if !p.allow_dont_pop {
            return Err(ApiError::with_msg(
                ErrorCode::HomePopupInvalid,
                "this popup does not offer \"don't show again\"",
            ));
        }
        let (before, after) = self.change_mark(who, id, |m| m.dont_pop = true).await?;
        // Counted once per viewer, and only from one it was shown to.
        if !before.dont_pop && before.shown > 0 {
            count(&self.stats, id, who, PopupEvent::DontPop, true).await?;
        }
        Ok(after)
    }

    /// Records a close or a click on a published popup: one per show (the
    /// popup closes either way), so a viewer's closes and clicks never
    /// outnumber their shows; more reports change nothing.
    pub async fn mark(
        &self,
        who: &Subject,
        id: &str,
        action: PopupAction,
    ) -> Result<FaceMark, ApiError> {
        let live = self.live().await?;
        Self::published(&live, id)?;
        let (before, after) = self
            .change_mark(who, id, |m| {
                if m.closes + m.clicks < m.shown {
                    match action {
                        PopupAction::Close => m.closes += 1,
                        PopupAction::Click => m.clicks += 1,
                    }
                }
            })
            .await?;
        if after != before {
            let (event, first) = match action {
                PopupAction::Close => (PopupEvent::Closed, before.closes == 0),
                PopupAction::Click => (PopupEvent::Clicked, before.clicks == 0),
            };
            count(&self.stats, id, who, event, first).await?;
        }
        Ok(after)
    }

    /// Every published popup aimed at this viewer now, with its state.
    pub async fn popup_info(
        &self,
        who: &Subject,
        viewer: &Viewer,
        zone: &Zone,
    ) -> Result<Vec<PopupInfo>, ApiError> {
        let live = self.live().await?;
        let now = self.now();
        let presence = self.touch(who).await?;
        let visible = Visible {
            comp: &live,
            viewer,
            now,
        };
        let popups = visible.popups();
        let marks = self.marks_of(who, &popups).await?;
        Ok(popups
            .iter()
            .zip(marks)
            .map(|(p, m)| {
                let decision = Self::decision(p, &m, viewer, presence.away_ms, now, zone);
                PopupInfo {
                    id: p.id.clone(),
                    kind: p.kind,
                    title: p.title.clone(),
                    cap: p.cap,
                    shown: m.shown,
                    last_shown: m.last_shown,
                    dont_pop: m.dont_pop,
                    decision,
                    next_at: match decision {
                        PopDecision::Capped => m.last_shown.and_then(|l| p.cap.next_at(l, zone)),
                        _ => None,
                    },
                }
            })
            .collect())
    }
}
