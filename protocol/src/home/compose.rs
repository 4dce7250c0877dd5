//! The home page's composition as operators write it and viewers receive
//! it: banners, modules (a column of elements: works, models, characters,
//! theme activities by id, or a live query such as "hot works this week" or
//! "the activities open now"), face-photo popups,
//! and feature switches; each item has a slot (a named place such as
//! `home-top` or `generator-side`), an order, targeting and a schedule.
//! `check_*` validate an item as saved (codes 40640-40659).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::rules::{check_link, Cap, LinkError, Schedule, Targeting, Viewer};
use crate::ErrorCode;

/// Most banners, modules or popups one composition holds (each).
pub const MAX_ITEMS: usize = 100;
/// Most elements named in one module.
pub const MAX_ELEMENTS: usize = 50;
/// Most elements a live query fills a module with.
pub const MAX_LIVE: u32 = 24;
pub const MAX_TITLE: usize = 80;
pub const MAX_BODY: usize = 500;
/// Longest slot or feature name.
pub const MAX_NAME: usize = 32;

/// The slots the web app places (any valid name may be saved; these show):
/// `home-top` the square's top (banners' default), `home-modules` the
/// square's rows under it (modules' default), `generator-side` beside the
/// image generator, above its task list, `activities-top` the top of the
/// activities list.
pub const SLOTS: &[&str] = &[
    "home-top",
    "home-modules",
    "generator-side",
    "activities-top",
];

/// A home-page banner.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
#[cfg_attr(feature = "openapi", schema(as = HomeComposeBanner))]
pub struct Banner {
    pub id: String,
    /// The named place it shows in (`home-top` by default).
    pub slot: String,
    pub order: i32,
    pub enabled: bool,
    pub image: String,
    pub title: String,
    /// Where a click goes; empty: nowhere.
    pub link: String,
    pub targeting: Targeting,
    pub schedule: Schedule,
}

/// What a module's element names.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElementKind {
    Work,
    Model,
    Character,
    /// A theme activity (issue 22 part 1), shown as its card.
    Activity,
}

/// One element chosen by id.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ElementRef {
    pub kind: ElementKind,
    pub id: String,
}

/// What a live query lists.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LiveSource {
    /// Works of every kind (the square's mix).
    Works,
    Posts,
    Videos,
    Characters,
    Models,
    /// The theme activities open now (live), in the activities list's
    /// order; `order` and `window` do not apply.
    Activities,
}

/// A live query's order.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LiveOrder {
    #[default]
    Hot,
    New,
}

/// A live query's window.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LiveWindow {
    Day,
    #[default]
    Week,
    Month,
    All,
}

/// A module filled at request time, e.g. `{source: works, order: hot, window: week}`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LiveQuery {
    pub source: LiveSource,
    #[serde(default)]
    pub order: LiveOrder,
    #[serde(default)]
    pub window: LiveWindow,
    #[serde(default = "default_live_size")]
    pub size: u32,
}

fn default_live_size() -> u32 {
    8
}

/// A column of elements in a slot.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Module {
    pub id: String,
    pub slot: String,
    pub order: i32,
    pub enabled: bool,
    pub title: String,
    /// Elements by id, in this order; used when `live` is absent.
    pub elements: Vec<ElementRef>,
    /// Fills the module at request time instead of `elements`.
    pub live: Option<LiveQuery>,
    /// Where "more" goes; empty: nowhere.
    pub link: String,
    pub targeting: Targeting,
    pub schedule: Schedule,
}

/// A popup's kind.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PopupKind {
    /// The face-photo popup (an image with a title, body and link).
    #[default]
    FacePhoto,
    /// For a returning user away `away_days` or more.
    Wakeup,
    /// An announcement (no image needed).
    Notice,
}

/// A face-photo popup.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Popup {
    pub id: String,
    pub kind: PopupKind,
    pub order: i32,
    pub enabled: bool,
    pub image: String,
    pub title: String,
    pub body: String,
    pub link: String,
    pub cap: Cap,
    /// Offers "don't show again".
    pub allow_dont_pop: bool,
    /// Wakeup popups: days away before it shows.
    pub away_days: u32,
    pub targeting: Targeting,
    pub schedule: Schedule,
}

/// The whole composition: the draft operators edit, or the published page.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Composition {
    /// Raised by every change of the draft; the published copy keeps the
    /// draft version it was made from.
    pub version: u64,
    pub updated_at: i64,
    pub updated_by: String,
    pub published_at: Option<i64>,
    pub banners: Vec<Banner>,
    pub modules: Vec<Module>,
    pub popups: Vec<Popup>,
    /// Feature switches `app/fetch` reports (`checkin: true`, ...).
    pub features: BTreeMap<String, bool>,
}

/// Why an item is refused, with its code.
fn bad(code: ErrorCode, msg: impl Into<String>) -> (ErrorCode, String) {
    (code, msg.into())
}

/// A refusal: the code and a message naming the field.
pub type Refusal = (ErrorCode, String);

/// A slot, feature or id name: 1 to 32 of `a-z 0-9 - _`.
pub fn is_name(s: &str) -> bool {
    (1..=MAX_NAME).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
}

fn text(field: &str, s: &str, max: usize, required: bool) -> Result<String, Refusal> {
    let t = s.trim();
    if required && t.is_empty() {
        return Err(bad(
            ErrorCode::HomeTextInvalid,
            format!("{field}: required"),
        ));
    }
    if t.chars().count() > max || t.chars().any(|c| c.is_control() && c != '\n') {
        return Err(bad(
            ErrorCode::HomeTextInvalid,
            format!("{field}: at most {max} characters, no control characters"),
        ));
    }
    Ok(t.to_owned())
}

fn link(field: &str, s: &str, hosts: &[String], required: bool) -> Result<String, Refusal> {
    match check_link(s, hosts) {
        Ok(l) => Ok(l),
        Err(LinkError::Empty) if !required => Ok(String::new()),
        Err(LinkError::ForeignHost(h)) => Err(bad(
            ErrorCode::HomeLinkForeign,
            format!("{field}: the host {h} is not allowed on this instance"),
        )),
        Err(e) => Err(bad(
            ErrorCode::HomeLinkInvalid,
            format!("{field}: a same-site path or an allowed https address ({e:?})"),
        )),
    }
}

fn slot(s: &str, default: &str) -> Result<String, Refusal> {
    let s = s.trim();
    let s = if s.is_empty() { default } else { s };
    if is_name(s) {
        Ok(s.to_owned())
    } else {
        Err(bad(
            ErrorCode::HomeSlotInvalid,
            "slot: 1 to 32 of a-z, 0-9, '-', '_'",
        ))
    }
}

fn common(t: &Targeting, s: &Schedule) -> Result<Targeting, Refusal> {
    if !s.is_valid() {
        return Err(bad(
            ErrorCode::HomeScheduleInvalid,
            "schedule: the end must be after the start",
        ));
    }
    let t = t.normalised();
    if t.languages.len() > 20 {
        return Err(bad(ErrorCode::HomeTargetInvalid, "at most 20 languages"));
    }
    Ok(t)
}

/// A banner as saved: trimmed, its links checked.
pub fn check_banner(b: &Banner, hosts: &[String]) -> Result<Banner, Refusal> {
    Ok(Banner {
        id: b.id.clone(),
        slot: slot(&b.slot, "home-top")?,
        order: b.order,
        enabled: b.enabled,
        image: link("image", &b.image, hosts, true)?,
        title: text("title", &b.title, MAX_TITLE, false)?,
        link: link("link", &b.link, hosts, false)?,
        targeting: common(&b.targeting, &b.schedule)?,
        schedule: b.schedule,
    })
}

/// A module as saved.
pub fn check_module(m: &Module, hosts: &[String]) -> Result<Module, Refusal> {
    if m.live.is_none() && m.elements.is_empty() {
        return Err(bad(
            ErrorCode::HomeModuleInvalid,
            "a module needs elements or a live query",
        ));
    }
    if m.elements.len() > MAX_ELEMENTS {
        return Err(bad(
            ErrorCode::HomeModuleInvalid,
            format!("at most {MAX_ELEMENTS} elements"),
        ));
    }
    if let Some(e) = m
        .elements
        .iter()
        .find(|e| e.id.is_empty() || e.id.len() > 64 || e.id.chars().any(char::is_control))
    {
        return Err(bad(
            ErrorCode::HomeModuleInvalid,
            format!("element id {:?} is not valid", e.id),
        ));
    }
    if let Some(q) = &m.live {
        if !(1..=MAX_LIVE).contains(&q.size) {
            return Err(bad(
                ErrorCode::HomeModuleInvalid,
                format!("live size: 1 to {MAX_LIVE}"),
            ));
        }
    }
    Ok(Module {
        id: m.id.clone(),
        slot: slot(&m.slot, "home-modules")?,
        order: m.order,
        enabled: m.enabled,
        title: text("title", &m.title, MAX_TITLE, true)?,
        elements: m.elements.clone(),
        live: m.live,
        link: link("link", &m.link, hosts, false)?,
        targeting: common(&m.targeting, &m.schedule)?,
        schedule: m.schedule,
    })
}

/// A popup as saved.
pub fn check_popup(p: &Popup, hosts: &[String]) -> Result<Popup, Refusal> {
    if p.kind == PopupKind::Wakeup && p.away_days == 0 {
        return Err(bad(
            ErrorCode::HomePopupInvalid,
            "a wakeup popup needs away_days of 1 or more",
        ));
    }
    if p.away_days > 3650 {
        return Err(bad(ErrorCode::HomePopupInvalid, "away_days: at most 3650"));
    }
    Ok(Popup {
        id: p.id.clone(),
        kind: p.kind,
        order: p.order,
        enabled: p.enabled,
        image: link("image", &p.image, hosts, p.kind == PopupKind::FacePhoto)?,
        title: text("title", &p.title, MAX_TITLE, true)?,
        body: text("body", &p.body, MAX_BODY, false)?,
        link: link("link", &p.link, hosts, false)?,
        cap: p.cap,
        allow_dont_pop: p.allow_dont_pop,
        away_days: p.away_days,
        targeting: common(&p.targeting, &p.schedule)?,
        schedule: p.schedule,
    })
}

/// Feature switches as saved.
pub fn check_features(f: &BTreeMap<String, bool>) -> Result<(), Refusal> {
    if f.len() > 50 {
        return Err(bad(ErrorCode::HomeTargetInvalid, "at most 50 features"));
    }
    match f.keys().find(|k| !is_name(k)) {
        Some(k) => Err(bad(
            ErrorCode::HomeSlotInvalid,
            format!("feature {k:?}: 1 to 32 of a-z, 0-9, '-', '_'"),
        )),
        None => Ok(()),
    }
}

impl Banner {
    pub fn visible(&self, v: &Viewer, now: i64) -> bool {
        self.enabled && self.schedule.active(now) && self.targeting.matches(v)
    }
}

impl Module {
    pub fn visible(&self, v: &Viewer, now: i64) -> bool {
        self.enabled && self.schedule.active(now) && self.targeting.matches(v)
    }
}

/// Items in their order (ties by id), keeping those `keep` accepts.
pub fn ordered<T, F>(items: &[T], order: F, keep: impl Fn(&T) -> bool) -> Vec<&T>
where
    F: Fn(&T) -> (i32, &str),
{
    let mut v: Vec<&T> = items.iter().filter(|t| keep(*t)).collect();
    v.sort_by(|a, b| order(*a).cmp(&order(*b)));
    v
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::home::rules::Audience;

    fn hosts() -> Vec<String> {
        vec!["cdn.example.com".into()]
    }

    #[test]
    fn banners_are_checked() {
        let b = Banner {
            image: "/files/u/x/b.png".into(),
            title: "  Winter challenge ".into(),
            link: "/en/activity/1".into(),
            ..Banner::default()
        };
        let saved = check_banner(&b, &hosts()).unwrap();
        assert_eq!(saved.slot, "home-top");
        assert_eq!(saved.title, "Winter challenge");
        let foreign = Banner {
            link: "https://evil.com/".into(),
            ..b.clone()
        };
        assert_eq!(
            check_banner(&foreign, &hosts()).unwrap_err().0,
            ErrorCode::HomeLinkForeign
        );
        let no_image = Banner {
            image: String::new(),
            ..b.clone()
        };
        assert_eq!(
            check_banner(&no_image, &hosts()).unwrap_err().0,
            ErrorCode::HomeLinkInvalid
        );
        let bad_slot = Banner {
            slot: "Home Top".into(),
            ..b.clone()
        };
        assert_eq!(
            check_banner(&bad_slot, &hosts()).unwrap_err().0,
            ErrorCode::HomeSlotInvalid
        );
        let backwards = Banner {
            schedule: Schedule {
                start: Some(10),
                end: Some(5),
            },
            ..b
        };
        assert_eq!(
            check_banner(&backwards, &hosts()).unwrap_err().0,
            ErrorCode::HomeScheduleInvalid
        );
    }

    #[test]
    fn modules_need_content_and_popups_their_fields() {
        let m = Module {
            title: "Hot this week".into(),
            ..Module::default()
        };
        assert_eq!(
            check_module(&m, &hosts()).unwrap_err().0,
            ErrorCode::HomeModuleInvalid
        );
        let live: Module = serde_json::from_value(serde_json::json!({
            "title": "Hot this week",
            "live": {"source": "works", "order": "hot", "window": "week"}
        }))
        .unwrap();
        let saved = check_module(&live, &hosts()).unwrap();
        assert_eq!(saved.live.unwrap().size, 8);
        assert_eq!(saved.slot, "home-modules");
        let activities: Module = serde_json::from_value(serde_json::json!({
            "title": "Join a challenge",
            "elements": [{"kind": "activity", "id": "a1"}]
        }))
        .unwrap();
        assert_eq!(
            check_module(&activities, &hosts()).unwrap().elements[0].kind,
            ElementKind::Activity
        );
        let open: Module = serde_json::from_value(serde_json::json!({
            "title": "Open now", "live": {"source": "activities", "size": 4}
        }))
        .unwrap();
        assert_eq!(
            check_module(&open, &hosts()).unwrap().live.unwrap().source,
            LiveSource::Activities
        );
        let too_big = Module {
            live: Some(LiveQuery {
                size: 100,
                ..live.live.unwrap()
            }),
            ..live
        };
        assert!(check_module(&too_big, &hosts()).is_err());

        let p = Popup {
            kind: PopupKind::Wakeup,
            title: "Welcome back".into(),
            ..Popup::default()
        };
        assert_eq!(
            check_popup(&p, &hosts()).unwrap_err().0,
            ErrorCode::HomePopupInvalid
        );
        let face = Popup {
            title: "New models".into(),
            ..Popup::default()
        };
        // A face-photo popup needs its image.
        assert_eq!(
            check_popup(&face, &hosts()).unwrap_err().0,
            ErrorCode::HomeLinkInvalid
        );
        let notice = Popup {
            kind: PopupKind::Notice,
            title: "Maintenance".into(),
            targeting: Targeting {
                audiences: vec![Audience::Free],
                languages: vec!["en-GB".into(), "en".into()],
            },
            ..Popup::default()
        };
        assert_eq!(
            check_popup(&notice, &hosts()).unwrap().targeting.languages,
            vec!["en".to_string()]
        );
    }

    #[test]
    fn items_sort_by_order_then_id() {
        let mk = |id: &str, order| Banner {
            id: id.into(),
            order,
            ..Banner::default()
        };
        let items = vec![mk("b", 2), mk("a", 2), mk("c", 1), mk("d", 0)];
        let ids: Vec<&str> = ordered(&items, |b| (b.order, b.id.as_str()), |b| b.id != "d")
            .iter()
            .map(|b| b.id.as_str())
            .collect();
        assert_eq!(ids, ["c", "a", "b"]);
    }
}
