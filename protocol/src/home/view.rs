//! What viewers receive of the composition: banners, modules and popups
//! without the operators' targeting and schedules, modules' elements, and
//! the popup calls' answers.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::compose::{Banner, LiveQuery, Module, Popup, PopupKind};
use super::rules::{Audience, Cap, PopDecision};

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BannerView {
    pub id: String,
    pub slot: String,
    pub image: String,
    pub title: String,
    pub link: String,
}

impl From<&Banner> for BannerView {
    fn from(b: &Banner) -> Self {
        BannerView {
            id: b.id.clone(),
            slot: b.slot.clone(),
            image: b.image.clone(),
            title: b.title.clone(),
            link: b.link.clone(),
        }
    }
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModuleView {
    pub id: String,
    pub slot: String,
    pub title: String,
    pub link: String,
    /// `ids` (chosen elements) or `live` (a query filled at request time).
    pub source: String,
    #[serde(default)]
    pub live: Option<LiveQuery>,
    /// Elements chosen by id (0 for live modules).
    pub count: usize,
}

impl From<&Module> for ModuleView {
    fn from(m: &Module) -> Self {
        ModuleView {
            id: m.id.clone(),
            slot: m.slot.clone(),
            title: m.title.clone(),
            link: m.link.clone(),
            source: if m.live.is_some() { "live" } else { "ids" }.into(),
            live: m.live,
            count: m.elements.len(),
        }
    }
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PopupView {
    pub id: String,
    pub kind: PopupKind,
    pub image: String,
    pub title: String,
    pub body: String,
    pub link: String,
    pub cap: Cap,
    pub allow_dont_pop: bool,
}

impl From<&Popup> for PopupView {
    fn from(p: &Popup) -> Self {
        PopupView {
            id: p.id.clone(),
            kind: p.kind,
            image: p.image.clone(),
            title: p.title.clone(),
            body: p.body.clone(),
            link: p.link.clone(),
            cap: p.cap,
            allow_dont_pop: p.allow_dont_pop,
        }
    }
}

/// One element of a module: its kind, id and card (the square's card for
/// works and models, the character card for characters).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ElementView {
    pub kind: String,
    pub id: String,
    pub card: serde_json::Value,
}

/// A module's elements, one page.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModuleContent {
    pub module_id: String,
    pub elements: Vec<ElementView>,
    pub next_cursor: Option<String>,
}

/// A slot with what shows in it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SlotView {
    pub name: String,
    pub banners: Vec<BannerView>,
    pub modules: Vec<ModuleView>,
}

/// `app/fetch`: the app configuration for this viewer.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AppConfig {
    pub audience: Audience,
    pub language: String,
    /// The published composition's version (0: nothing published yet).
    pub version: u64,
    pub features: BTreeMap<String, bool>,
    /// Slots with something for this viewer.
    pub slots: Vec<String>,
    pub modules: Vec<String>,
    pub banners: usize,
    /// Whether `face-photo/get` has a popup for this viewer now.
    pub popup_waiting: bool,
    /// Days the viewer was away before this visit.
    pub away_days: i64,
}

/// `face-photo/get` and `mark-wakeup-user-popup`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PopupAnswer {
    pub show: bool,
    pub popup: Option<PopupView>,
    #[serde(default)]
    pub away_days: i64,
}

/// `face-photo/popup-info`: one popup's state for this viewer.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PopupInfo {
    pub id: String,
    pub kind: PopupKind,
    pub title: String,
    pub cap: Cap,
    pub shown: u32,
    pub last_shown: Option<i64>,
    pub dont_pop: bool,
    pub decision: PopDecision,
    /// When the cap lets it show again (None: now, or never).
    pub next_at: Option<i64>,
}

/// How often something happened to a popup: every time (`total`), and by
/// how many distinct viewers, accounts and visitors (by their device
/// cookie) apart. A visitor who signs in later counts once as each.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    pub total: i64,
    pub accounts: i64,
    pub visitors: i64,
}

/// `admin/home/popup/stats`: what viewers did with one popup.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PopupStats {
    pub id: String,
    pub shown: Tally,
    pub closed: Tally,
    pub clicked: Tally,
    /// "Don't show again" (once per viewer: `total` is the distinct viewers).
    pub dont_pop: Tally,
}
