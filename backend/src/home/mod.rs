//! The home page's composition (issue 22 part 3): operators edit a draft
//! (banners, modules, popups, feature switches), preview it for an audience,
//! and publish it; viewers read the published copy filtered by their
//! audience, language and the time. The draft and the published copy are
//! one row each (`home_compositions`, "draft" and "live"), changed by
//! compare-and-set, so publishing is one atomic write and two operators
//! editing at once never lose each other's change (a stale `version`
//! answers 40648). Popups (caps, "don't show again", wakeup) are in
//! `popups.rs`, their statistics in `stats.rs`, module elements in
//! `elements.rs`.

pub mod clock;
pub mod elements;
pub mod popups;
pub mod stats;

use std::collections::BTreeMap;
use std::sync::Arc;

use infra::store::{tables, Counters, DynStore, Key, Table};
use protocol::home::compose::{
    check_banner, check_features, check_module, check_popup, ordered, Refusal, MAX_ITEMS, SLOTS,
};
use protocol::home::view::{BannerView, ModuleView, SlotView};
use protocol::home::{Audience, Banner, Composition, Module, Popup, Viewer};
use protocol::ErrorCode;
use serde::Serialize;

use self::clock::{Clock, SettableClock};
use self::popups::{FaceMark, Presence};
use crate::error::ApiError;

const DRAFT: &str = "draft";
const LIVE: &str = "live";

/// Which list an item is in.
#[derive(utoipa::ToSchema, Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ItemKind {
    Banner,
    Module,
    Popup,
}

/// The draft with what is published, for the composer.
#[derive(Debug, Clone, Serialize)]
pub struct DraftState {
    pub draft: Composition,
    /// The draft version the published copy was made from (0: none).
    pub live_version: u64,
    pub published_at: Option<i64>,
    /// Hosts links may use besides same-site paths.
    pub link_hosts: Vec<String>,
    /// The slots the web app places (`compose::SLOTS`).
    pub slots: Vec<String>,
}

#[derive(Clone)]
pub struct HomeService {
    pages: Table<Composition>,
    presence: Table<Presence>,
    marks: Table<FaceMark>,
    stats: Counters,
    hosts: Arc<Vec<String>>,
    clock: Arc<dyn Clock>,
    /// Set only with `EASEL_HOME_TEST_CLOCK`.
    test_clock: Option<Arc<SettableClock>>,
}

fn refusal((code, msg): Refusal) -> ApiError {
    ApiError::with_msg(code, msg)
}

fn new_id(prefix: &str) -> String {
    format!("{prefix}{}", crate::accounts::new_device_code())
}

impl HomeService {
    pub fn new(store: DynStore, settings: &infra::config::HomeSettings) -> HomeService {
        let (clock, test_clock) = clock::from_settings(settings.test_clock);
        HomeService {
            pages: Table::new(store.clone(), &tables::HOME_COMPOSITIONS),
            presence: Table::new(store.clone(), &tables::HOME_PRESENCE),
            marks: Table::new(store.clone(), &tables::POPUP_FACE_MARKS),
            stats: Counters::new(store, &tables::POPUP_STATS),
            hosts: Arc::new(settings.link_hosts.clone()),
            clock,
            test_clock,
        }
    }

    pub fn now(&self) -> i64 {
        self.clock.now_millis()
    }

    /// Sets the test clock; NotFound when the instance has none (production).
    pub fn set_clock(&self, ms: i64) -> Result<i64, ApiError> {
        let c = self.test_clock.as_ref().ok_or(ErrorCode::NotFound)?;
        c.set(ms);
        Ok(c.now_millis())
    }

    async fn page(&self, which: &str) -> Result<Option<Composition>, ApiError> {
        Ok(self.pages.get(&Key::of(which), &Key::empty()).await?)
    }

    /// The published composition (empty before the first publish).
    pub async fn live(&self) -> Result<Composition, ApiError> {
        Ok(self.page(LIVE).await?.unwrap_or_default())
    }

    pub async fn draft(&self) -> Result<Composition, ApiError> {
        Ok(self.page(DRAFT).await?.unwrap_or_default())
    }

    pub async fn draft_state(&self) -> Result<DraftState, ApiError> {
        let live = self.page(LIVE).await?;
        Ok(DraftState {
            draft: self.draft().await?,
            live_version: live.as_ref().map_or(0, |l| l.version),
            published_at: live.and_then(|l| l.published_at),
            link_hosts: self.hosts.to_vec(),
            slots: SLOTS.iter().map(|s| (*s).to_owned()).collect(),
        })
    }

    /// Changes the draft by compare-and-set. With `expected`, a draft whose
    /// version differs answers HomeDraftChanged (the composer reloads);
    /// without, a concurrent change is retried on the latest draft.
    async fn edit(
        &self,
        by: &str,
        expected: Option<u64>,
        mut f: impl FnMut(&mut Composition) -> Result<(), ApiError>,
    ) -> Result<Composition, ApiError> {
        let pk = Key::of(DRAFT);
        loop {
            let current = self.page(DRAFT).await?;
            let base = current.clone().unwrap_or_default();
            if expected.is_some_and(|v| v != base.version) {
                return Err(ErrorCode::HomeDraftChanged.into());
            }
            let mut next = base.clone();
            f(&mut next)?;
            next.version = base.version + 1;
            next.updated_at = self.now();
            next.updated_by = by.to_owned();
            let applied = match &current {
                None => self
                    .pages
                    .insert_if_absent(&pk, &Key::empty(), &next)
                    .await?
                    .is_ok(),
                Some(c) => self
                    .pages
                    .compare_and_set(&pk, &Key::empty(), c, Some(&next))
                    .await?
                    .is_ok(),
            };
            if applied {
                return Ok(next);
            }
            if expected.is_some() {
                return Err(ErrorCode::HomeDraftChanged.into());
            }
        }
    }

    /// Saves a banner into the draft (a new one when its id is empty or unknown).
    pub async fn save_banner(
        &self,
        by: &str,
        expected: Option<u64>,
        b: &Banner,
    ) -> Result<(String, Composition), ApiError> {
        let mut saved = check_banner(b, &self.hosts).map_err(refusal)?;
        if saved.id.is_empty() {
            saved.id = new_id("bn");
        }
        let id = saved.id.clone();
        let c = self
            .edit(by, expected, |c| {
                upsert(&mut c.banners, saved.clone(), |x| &x.id)
            })
            .await?;
        Ok((id, c))
    }

    pub async fn save_module(
        &self,
        by: &str,
        expected: Option<u64>,
        m: &Module,
    ) -> Result<(String, Composition), ApiError> {
        let mut saved = check_module(m, &self.hosts).map_err(refusal)?;
        if saved.id.is_empty() {
            saved.id = new_id("md");
        }
        let id = saved.id.clone();
        let c = self
            .edit(by, expected, |c| {
                upsert(&mut c.modules, saved.clone(), |x| &x.id)
            })
            .await?;
        Ok((id, c))
    }

    pub async fn save_popup(
        &self,
        by: &str,
        expected: Option<u64>,
        p: &Popup,
    ) -> Result<(String, Composition), ApiError> {
        let mut saved = check_popup(p, &self.hosts).map_err(refusal)?;
        if saved.id.is_empty() {
            saved.id = new_id("pp");
        }
        let id = saved.id.clone();
        let c = self
            .edit(by, expected, |c| {
                upsert(&mut c.popups, saved.clone(), |x| &x.id)
            })
            .await?;
        Ok((id, c))
    }

    /// Removes an item from the draft; an unknown id is NotFound.
    pub async fn delete(
        &self,
        by: &str,
        expected: Option<u64>,
        kind: ItemKind,
        id: &str,
    ) -> Result<Composition, ApiError> {
        self.edit(by, expected, |c| {
            let before = c.banners.len() + c.modules.len() + c.popups.len();
            match kind {
                ItemKind::Banner => c.banners.retain(|x| x.id != id),
                ItemKind::Module => c.modules.retain(|x| x.id != id),
                ItemKind::Popup => c.popups.retain(|x| x.id != id),
            }
            if c.banners.len() + c.modules.len() + c.popups.len() == before {
                return Err(ErrorCode::NotFound.into());
            }
            Ok(())
        })
        .await
    }

    pub async fn set_features(
        &self,
        by: &str,
        expected: Option<u64>,
        features: &BTreeMap<String, bool>,
    ) -> Result<Composition, ApiError> {
        check_features(features).map_err(refusal)?;
        self.edit(by, expected, |c| {
            c.features = features.clone();
            Ok(())
        })
        .await
    }

    /// Publishes the draft as it is (with `expected`, only that version):
    /// one write replaces the live copy.
    pub async fn publish(&self, expected: Option<u64>) -> Result<Composition, ApiError> {
        let draft = self.draft().await?;
        if expected.is_some_and(|v| v != draft.version) {
            return Err(ErrorCode::HomeDraftChanged.into());
        }
        let live = Composition {
            published_at: Some(self.now()),
            ..draft
        };
        self.pages.put(&Key::of(LIVE), &Key::empty(), &live).await?;
        Ok(live)
    }
}

fn upsert<T>(list: &mut Vec<T>, item: T, id: impl Fn(&T) -> &String) -> Result<(), ApiError> {
    match list.iter().position(|x| id(x) == id(&item)) {
        Some(i) => {
            if let Some(slot) = list.get_mut(i) {
                *slot = item;
            }
        }
        None => {
            if list.len() >= MAX_ITEMS {
                return Err(ApiError::with_msg(
                    ErrorCode::HomeTooMany,
                    format!("at most {MAX_ITEMS} of each kind"),
                ));
            }
            list.push(item);
        }
    }
    Ok(())
}

/// A composition as one viewer sees it at `now`.
pub struct Visible<'a> {
    pub comp: &'a Composition,
    pub viewer: &'a Viewer,
    pub now: i64,
}

impl Visible<'_> {
    pub fn banners(&self, slot: Option<&str>) -> Vec<BannerView> {
        ordered(
            &self.comp.banners,
            |b| (b.order, b.id.as_str()),
            |b| b.visible(self.viewer, self.now) && slot.is_none_or(|s| b.slot == s),
        )
        .into_iter()
        .map(BannerView::from)
        .collect()
    }

    pub fn modules(&self, slot: Option<&str>) -> Vec<&Module> {
        ordered(
            &self.comp.modules,
            |m| (m.order, m.id.as_str()),
            |m| m.visible(self.viewer, self.now) && slot.is_none_or(|s| m.slot == s),
        )
    }

    /// A visible module by id; hidden, unscheduled or unknown alike: NotFound.
    pub fn module(&self, id: &str) -> Result<&Module, ApiError> {
        self.comp
            .modules
            .iter()
            .find(|m| m.id == id && m.visible(self.viewer, self.now))
            .ok_or_else(|| ErrorCode::NotFound.into())
    }

    /// Every slot with something for this viewer, in name order.
    pub fn slots(&self, only: &[String]) -> Vec<SlotView> {
        let mut names: Vec<&str> = self
            .comp
            .banners
            .iter()
            .map(|b| b.slot.as_str())
            .chain(self.comp.modules.iter().map(|m| m.slot.as_str()))
            .filter(|n| only.is_empty() || only.iter().any(|o| o.as_str() == *n))
            .collect();
        names.sort_unstable();
        names.dedup();
        names
            .into_iter()
            .map(|n| SlotView {
                name: n.to_owned(),
                banners: self.banners(Some(n)),
                modules: self
                    .modules(Some(n))
                    .into_iter()
                    .map(ModuleView::from)
                    .collect(),
            })
            .filter(|s| !s.banners.is_empty() || !s.modules.is_empty())
            .collect()
    }

    /// Popups this audience would see, ignoring caps (for the preview).
    pub fn popups(&self) -> Vec<&Popup> {
        ordered(
            &self.comp.popups,
            |p| (p.order, p.id.as_str()),
            |p| p.enabled && p.schedule.active(self.now) && p.targeting.matches(self.viewer),
        )
    }
}

/// The audience of an account (None: a visitor).
pub fn audience_of(account: Option<&crate::accounts::AccountRow>) -> Audience {
    match account {
        None => Audience::Visitor,
        Some(a) if a.is_vip() => Audience::Member,
        Some(_) => Audience::Free,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::indexing_slicing)]
    use super::*;
    use protocol::home::Targeting;

    #[test]
    fn slots_group_what_the_viewer_may_see() {
        let banner = |id: &str, slot: &str, aud: Vec<Audience>| Banner {
            id: id.into(),
            slot: slot.into(),
            enabled: true,
            image: "/x.png".into(),
            targeting: Targeting {
                audiences: aud,
                languages: vec![],
            },
            ..Banner::default()
        };
        let comp = Composition {
            banners: vec![
                banner("a", "home-top", vec![]),
                banner("b", "generator-side", vec![Audience::Member]),
            ],
            ..Composition::default()
        };
        let viewer = Viewer {
            audience: Audience::Visitor,
            language: "en".into(),
        };
        let v = Visible {
            comp: &comp,
            viewer: &viewer,
            now: 1,
        };
        let slots = v.slots(&[]);
        assert_eq!(slots.len(), 1);
        assert_eq!(slots[0].name, "home-top");
    }
}
