//! The pure rules of the home page's composition (issue 22 part 3): who an
//! item is for (targeting by audience and language), when it is on (its
//! schedule), how often a popup may show (its frequency cap and "don't show
//! again"), and which links and image addresses an operator may use (same-site
//! paths, or HTTPS hosts the instance allows: never an open redirect).
//! Every function takes the time as a parameter, so tests fix the clock.
//! Daily and weekly caps count calendar days in the viewer's time zone (an
//! account's pinned IANA zone, a visitor's own, else UTC: `awards::Zone`).

use serde::{Deserialize, Serialize};

use crate::awards::Zone;

/// One day in milliseconds.
pub const DAY_MS: i64 = 86_400_000;
/// A visit ends after this long without the popup being asked for (ms): the
/// "every visit" cap shows again after it.
pub const VISIT_GAP_MS: i64 = 30 * 60 * 1000;
/// Longest link or image address kept.
pub const MAX_LINK: usize = 1024;

/// Who is looking: a visitor (no account), a free account or a member.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "openapi", schema(as = HomeRulesAudience))]
pub enum Audience {
    Visitor,
    Free,
    Member,
}

/// Whom an item is for. Empty lists mean everyone.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Targeting {
    /// Audiences that see the item; empty: all.
    pub audiences: Vec<Audience>,
    /// Languages (primary subtags such as `en`, `zh`) that see it; empty: all.
    pub languages: Vec<String>,
}

/// When an item is on: from `start` (inclusive) to `end` (exclusive), unix ms;
/// an absent bound is open.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
#[cfg_attr(feature = "openapi", schema(as = HomeRulesSchedule))]
pub struct Schedule {
    pub start: Option<i64>,
    pub end: Option<i64>,
}

/// How often one viewer may see a popup.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cap {
    /// Once ever.
    Once,
    /// Once per calendar day in the viewer's time zone.
    #[default]
    Daily,
    /// Once per 7 calendar days in the viewer's time zone: again from the
    /// start of the 7th day after the day it was shown on.
    Weekly,
    /// Once per visit (again after [`VISIT_GAP_MS`] without a show).
    EveryVisit,
}

/// The viewer an answer is made for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Viewer {
    pub audience: Audience,
    /// Primary language subtag, lowercase (`en`, `zh`).
    pub language: String,
}

/// A language tag reduced to its lowercase primary subtag (`zh-CN` → `zh`,
/// `zhCN` → `zh`); empty or malformed tags read as `en`.
pub fn primary_language(tag: &str) -> String {
    let first = tag
        .split([',', ';'])
        .next()
        .unwrap_or_default()
        .trim()
        .split(['-', '_'])
        .next()
        .unwrap_or_default();
    let letters: String = first
        .chars()
        .take_while(|c| c.is_ascii_lowercase())
        .collect();
    let lower = if letters.len() >= 2 {
        letters
    } else {
        first.to_ascii_lowercase()
    };
    if (2..=3).contains(&lower.len()) && lower.bytes().all(|b| b.is_ascii_lowercase()) {
        lower
    } else {
        "en".into()
    }
}

impl Targeting {
    /// Whether `viewer` is among those the item is for.
    pub fn matches(&self, viewer: &Viewer) -> bool {
        (self.audiences.is_empty() || self.audiences.contains(&viewer.audience))
            && (self.languages.is_empty()
                || self
                    .languages
                    .iter()
                    .any(|l| primary_language(l) == viewer.language))
    }

    /// The targeting with languages reduced to primary subtags, duplicates gone.
    pub fn normalised(&self) -> Targeting {
        let mut audiences: Vec<Audience> = Vec::new();
        for a in &self.audiences {
            if !audiences.contains(a) {
                audiences.push(*a);
            }
        }
        let mut languages: Vec<String> = Vec::new();
        for l in &self.languages {
            let p = primary_language(l);
            if !languages.contains(&p) {
                languages.push(p);
            }
        }
        Targeting {
            audiences,
            languages,
        }
    }
}

impl Schedule {
    /// Whether the item is on at `now`.
    pub fn active(&self, now: i64) -> bool {
        self.start.is_none_or(|s| now >= s) && self.end.is_none_or(|e| now < e)
    }

    /// A schedule whose end is not after its start never shows: refused.
    pub fn is_valid(&self) -> bool {
        match (self.start, self.end) {
            (Some(s), Some(e)) => e > s,
            _ => true,
        }
    }
}

/// The UTC day number of a unix-ms instant.
pub fn utc_day(ms: i64) -> i64 {
    ms.div_euclid(DAY_MS)
}

impl Cap {
    /// Whether a popup last shown at `last_shown` (None: never) may show at
    /// `now`, days counted in `zone`.
    pub fn allows(self, last_shown: Option<i64>, now: i64, zone: &Zone) -> bool {
        let Some(last) = last_shown else {
            return true;
        };
        match self {
            Cap::Once => false,
            Cap::Daily => zone.day_of(now) > zone.day_of(last),
            Cap::Weekly => zone.day_of(now) >= zone.day_of(last).plus(7),
            Cap::EveryVisit => now - last >= VISIT_GAP_MS,
        }
    }

    /// When a popup shown at `last_shown` may show again (None: never),
    /// days counted in `zone`.
    pub fn next_at(self, last_shown: i64, zone: &Zone) -> Option<i64> {
        match self {
            Cap::Once => None,
            Cap::Daily => Some(zone.next_day_start(last_shown)),
            Cap::Weekly => Some(zone.start_of(zone.day_of(last_shown).plus(7))),
            Cap::EveryVisit => Some(last_shown + VISIT_GAP_MS),
        }
    }
}

/// What a viewer has done with one popup.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seen {
    pub last_shown: Option<i64>,
    pub dont_pop: bool,
}

/// Why a popup shows or not.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PopDecision {
    Show,
    Disabled,
    Scheduled,
    NotTargeted,
    DontPop,
    Capped,
}

/// What the decision needs of a popup.
#[derive(Debug, Clone, Copy)]
pub struct PopRule<'a> {
    pub enabled: bool,
    pub targeting: &'a Targeting,
    pub schedule: &'a Schedule,
    pub cap: Cap,
    /// Whether the popup offers "don't show again".
    pub allow_dont_pop: bool,
}

/// The whole decision for one popup: enabled, scheduled, targeted, not
/// refused by "don't show again" (when the popup offers it), within its cap
/// (days in `zone`, the viewer's).
pub fn decide(
    rule: &PopRule<'_>,
    seen: &Seen,
    viewer: &Viewer,
    now: i64,
    zone: &Zone,
) -> PopDecision {
    if !rule.enabled {
        PopDecision::Disabled
    } else if !rule.schedule.active(now) {
        PopDecision::Scheduled
    } else if !rule.targeting.matches(viewer) {
        PopDecision::NotTargeted
    } else if rule.allow_dont_pop && seen.dont_pop {
        PopDecision::DontPop
    } else if !rule.cap.allows(seen.last_shown, now, zone) {
        PopDecision::Capped
    } else {
        PopDecision::Show
    }
}

/// Why a link or image address is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkError {
    Empty,
    TooLong,
    /// Whitespace, control characters, backslashes or a scheme-relative `//`.
    Malformed,
    /// A scheme other than HTTPS (or HTTP to an allowed host).
    Scheme,
    /// A host the instance does not allow.
    ForeignHost(String),
}

/// Checks a link or image address: a same-site path (`/en/activity/1`,
/// `/files/...`), or `https://host/...` (`http://` too) whose host is in
/// `allowed_hosts` (exact, lowercase; `*.example.com` allows its subdomains).
/// User information (`user@host`) is refused: it hides the real host.
pub fn check_link(link: &str, allowed_hosts: &[String]) -> Result<String, LinkError> {
    let link = link.trim();
    if link.is_empty() {
        return Err(LinkError::Empty);
    }
    if link.len() > MAX_LINK {
        return Err(LinkError::TooLong);
    }
    if link
        .chars()
        .any(|c| c.is_whitespace() || c.is_control() || c == '\\')
    {
        return Err(LinkError::Malformed);
    }
    if let Some(rest) = link.strip_prefix('/') {
        if rest.starts_with('/') {
            return Err(LinkError::Malformed);
        }
        return Ok(link.to_owned());
    }
    let lower = link.to_ascii_lowercase();
    let rest = if let Some(r) = lower.strip_prefix("https://") {
        r
    } else if let Some(r) = lower.strip_prefix("http://") {
        r
    } else {
        return Err(LinkError::Scheme);
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    if authority.contains('@') || authority.is_empty() {
        return Err(LinkError::Malformed);
    }
    let host = match authority.rsplit_once(':') {
        Some((h, port)) if !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) => h,
        Some(_) => return Err(LinkError::Malformed),
        None => authority,
    };
    let host = host.trim_end_matches('.');
    let allowed = allowed_hosts.iter().any(|a| {
        let a = a.trim().to_ascii_lowercase();
        match a.strip_prefix("*.") {
            Some(base) => host.ends_with(&format!(".{base}")),
            None => !a.is_empty() && host == a,
        }
    });
    if allowed {
        Ok(link.to_owned())
    } else {
        Err(LinkError::ForeignHost(host.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    const T0: i64 = 1_795_000_000_000; // 2026-11-18 ... (a fixed clock)

    fn viewer(a: Audience, l: &str) -> Viewer {
        Viewer {
            audience: a,
            language: l.into(),
        }
    }

    #[test]
    fn targeting_table() {
        use Audience::*;
        let t = |aud: &[Audience], langs: &[&str]| Targeting {
            audiences: aud.to_vec(),
            languages: langs.iter().map(|s| s.to_string()).collect(),
        };
        let cases: &[(Targeting, Viewer, bool)] = &[
            (t(&[], &[]), viewer(Visitor, "en"), true),
            (t(&[], &[]), viewer(Member, "zh"), true),
            (t(&[Visitor], &[]), viewer(Visitor, "en"), true),
            (t(&[Visitor], &[]), viewer(Free, "en"), false),
            (t(&[Visitor], &[]), viewer(Member, "en"), false),
            (t(&[Free, Member], &[]), viewer(Visitor, "en"), false),
            (t(&[Free, Member], &[]), viewer(Member, "en"), true),
            (t(&[], &["zh-CN"]), viewer(Free, "zh"), true),
            (t(&[], &["zh"]), viewer(Free, "en"), false),
            (t(&[Member], &["en", "ja"]), viewer(Member, "ja"), true),
            (t(&[Member], &["en", "ja"]), viewer(Free, "ja"), false),
        ];
        for (i, (targeting, v, want)) in cases.iter().enumerate() {
            assert_eq!(targeting.matches(v), *want, "case {i}");
        }
    }

    #[test]
    fn languages_reduce_to_primary_subtags() {
        for (tag, want) in [
            ("en", "en"),
            ("en-US", "en"),
            ("zh-CN,zh;q=0.9", "zh"),
            ("zhCN", "zh"),
            ("ZH_tw", "zh"),
            ("", "en"),
            ("*", "en"),
            ("1234", "en"),
        ] {
            assert_eq!(primary_language(tag), want, "{tag}");
        }
    }

    #[test]
    fn schedule_table() {
        let s = |a: Option<i64>, b: Option<i64>| Schedule { start: a, end: b };
        let cases = [
            (s(None, None), T0, true),
            (s(Some(T0), None), T0, true),
            (s(Some(T0), None), T0 - 1, false),
            (s(None, Some(T0)), T0, false),
            (s(None, Some(T0)), T0 - 1, true),
            (s(Some(T0), Some(T0 + DAY_MS)), T0 + DAY_MS - 1, true),
            (s(Some(T0), Some(T0 + DAY_MS)), T0 + DAY_MS, false),
        ];
        for (i, (sch, now, want)) in cases.iter().enumerate() {
            assert_eq!(sch.active(*now), *want, "case {i}");
        }
        assert!(!s(Some(T0), Some(T0)).is_valid());
        assert!(s(Some(T0), Some(T0 + 1)).is_valid());
        assert!(s(None, Some(T0)).is_valid());
    }

    #[test]
    fn caps_table() {
        let day0 = utc_day(T0) * DAY_MS; // midnight UTC
        let noon = day0 + DAY_MS / 2;
        let cases: &[(Cap, Option<i64>, i64, bool)] = &[
            (Cap::Once, None, noon, true),
            (Cap::Once, Some(noon), noon + 365 * DAY_MS, false),
            (Cap::Daily, None, noon, true),
            (Cap::Daily, Some(noon), noon + 1, false),
            (Cap::Daily, Some(noon), day0 + DAY_MS - 1, false),
            // the next UTC day, even a minute after midnight
            (
                Cap::Daily,
                Some(day0 + DAY_MS - 60_000),
                day0 + DAY_MS,
                true,
            ),
            (Cap::Daily, Some(noon), noon + DAY_MS, true),
            (Cap::Weekly, Some(noon), day0 + 7 * DAY_MS - 1, false),
            // the 7th calendar day after, from its midnight
            (Cap::Weekly, Some(noon), day0 + 7 * DAY_MS, true),
            (Cap::EveryVisit, Some(noon), noon + VISIT_GAP_MS - 1, false),
            (Cap::EveryVisit, Some(noon), noon + VISIT_GAP_MS, true),
        ];
        let utc = Zone::utc();
        for (i, (cap, last, now, want)) in cases.iter().enumerate() {
            assert_eq!(cap.allows(*last, *now, &utc), *want, "case {i}");
        }
        assert_eq!(Cap::Daily.next_at(noon, &utc), Some(day0 + DAY_MS));
        assert_eq!(Cap::Once.next_at(noon, &utc), None);
        assert_eq!(Cap::Weekly.next_at(noon, &utc), Some(day0 + 7 * DAY_MS));
    }

    #[test]
    fn caps_count_days_in_the_viewers_zone() {
        // Shanghai is UTC+8 (no DST): its midnight is 16:00 UTC.
        let sh = Zone::parse("Asia/Shanghai").unwrap();
        let utc = Zone::utc();
        let day0 = utc_day(T0) * DAY_MS;
        let h = 3_600_000;
        // Shown at 15:30 UTC (23:30 in Shanghai); asked at 16:30 UTC
        // (00:30 the next day in Shanghai, still the same UTC day).
        let (shown, asked) = (day0 + 15 * h + h / 2, day0 + 16 * h + h / 2);
        assert!(Cap::Daily.allows(Some(shown), asked, &sh));
        assert!(!Cap::Daily.allows(Some(shown), asked, &utc));
        assert!(!Cap::Daily.allows(Some(shown), day0 + 16 * h - 1, &sh));
        assert_eq!(Cap::Daily.next_at(shown, &sh), Some(day0 + 16 * h));
        // Weekly: from the start of the 7th local day after.
        assert_eq!(
            Cap::Weekly.next_at(shown, &sh),
            Some(day0 + 6 * DAY_MS + 16 * h)
        );
        assert!(Cap::Weekly.allows(Some(shown), day0 + 6 * DAY_MS + 16 * h, &sh));
        assert!(!Cap::Weekly.allows(Some(shown), day0 + 6 * DAY_MS + 16 * h, &utc));
        // Daylight saving: 2027-03-14 in New York is 23 hours long (clocks
        // go from 02:00 EST to 03:00 EDT), so the 15th starts at 04:00 UTC.
        let ny = Zone::parse("America/New_York").unwrap();
        let utc_0314_02 = 1_804_989_600_000; // 2027-03-14 02:00 UTC
        let noon_edt = utc_0314_02 + 14 * h; // 2027-03-14 12:00 EDT
        let next = Cap::Daily.next_at(noon_edt, &ny).unwrap();
        assert_eq!(next, utc_0314_02 + 26 * h);
        assert!(Cap::Daily.allows(Some(noon_edt), next, &ny));
        assert!(!Cap::Daily.allows(Some(noon_edt), next - 1, &ny));
    }

    #[test]
    fn decide_checks_in_order() {
        let v = viewer(Audience::Free, "en");
        let open = Targeting::default();
        let always = Schedule::default();
        let fresh = Seen::default();
        let d = |enabled, t: &Targeting, s: &Schedule, allow, seen: &Seen, now| {
            let rule = PopRule {
                enabled,
                targeting: t,
                schedule: s,
                cap: Cap::Daily,
                allow_dont_pop: allow,
            };
            decide(&rule, seen, &v, now, &Zone::utc())
        };
        assert_eq!(d(true, &open, &always, true, &fresh, T0), PopDecision::Show);
        assert_eq!(
            d(false, &open, &always, true, &fresh, T0),
            PopDecision::Disabled
        );
        let later = Schedule {
            start: Some(T0 + 1),
            end: None,
        };
        assert_eq!(
            d(true, &open, &later, true, &fresh, T0),
            PopDecision::Scheduled
        );
        let members = Targeting {
            audiences: vec![Audience::Member],
            languages: vec![],
        };
        assert_eq!(
            d(true, &members, &always, true, &fresh, T0),
            PopDecision::NotTargeted
        );
        let refused = Seen {
            last_shown: None,
            dont_pop: true,
        };
        assert_eq!(
            d(true, &open, &always, true, &refused, T0),
            PopDecision::DontPop
        );
        // A popup that offers no "don't show again" ignores a stale refusal.
        assert_eq!(
            d(true, &open, &always, false, &refused, T0),
            PopDecision::Show
        );
        let shown = Seen {
            last_shown: Some(T0),
            dont_pop: false,
        };
        assert_eq!(
            d(true, &open, &always, true, &shown, T0 + 1000),
            PopDecision::Capped
        );
        assert_eq!(
            d(true, &open, &always, true, &shown, T0 + DAY_MS),
            PopDecision::Show
        );
    }

    #[test]
    fn links_table() {
        let hosts = vec!["cdn.example.com".to_string(), "*.partner.org".to_string()];
        let ok = [
            "/en/activity/1",
            "/files/u/abc/banner.png",
            "https://cdn.example.com/a.png",
            "https://CDN.example.com:443/a.png?x=1",
            "http://cdn.example.com/a",
            "https://shop.partner.org/sale",
        ];
        for l in ok {
            assert!(check_link(l, &hosts).is_ok(), "{l}");
        }
        let bad: &[(&str, LinkError)] = &[
            ("", LinkError::Empty),
            ("//evil.com/x", LinkError::Malformed),
            ("/\\evil.com", LinkError::Malformed),
            ("/a b", LinkError::Malformed),
            ("javascript:alert(1)", LinkError::Scheme),
            ("data:text/html,x", LinkError::Scheme),
            ("evil.com/x", LinkError::Scheme),
            (
                "https://evil.com/x",
                LinkError::ForeignHost("evil.com".into()),
            ),
            (
                "https://cdn.example.com.evil.com/",
                LinkError::ForeignHost("cdn.example.com.evil.com".into()),
            ),
            ("https://cdn.example.com@evil.com/", LinkError::Malformed),
            (
                "https://partner.org/",
                LinkError::ForeignHost("partner.org".into()),
            ),
            ("https://cdn.example.com:x/", LinkError::Malformed),
        ];
        for (l, want) in bad {
            assert_eq!(check_link(l, &hosts).as_ref(), Err(want), "{l}");
        }
        assert_eq!(
            check_link(&format!("/{}", "a".repeat(MAX_LINK)), &hosts),
            Err(LinkError::TooLong)
        );
        // No host allowed: only same-site paths.
        assert!(check_link("https://cdn.example.com/a.png", &[]).is_err());
    }
}
