//! What the server keeps of a request, decided before anything is stored:
//! the client address truncated (IPv4 to its /24, IPv6 to its /48), the user
//! agent reduced to a browser family, and a visitor hash instead of any
//! device identifier. The hash is SHA-256 over a random salt of the UTC day
//! and the `deviceId` cookie (or, without one, the full address and user
//! agent, which are then forgotten); salts are kept only for the current
//! day, so yesterday's hashes can no longer be linked to a device by anyone,
//! the operator included.

use std::net::IpAddr;

use actix_web::HttpRequest;
use sha2::{Digest, Sha256};

use crate::auth::device_id_of;

/// The privacy-relevant facts of one request, held only while it is handled.
#[derive(Debug, Clone, Default)]
pub struct RequestFacts {
    pub ip: Option<IpAddr>,
    pub user_agent: Option<String>,
    pub device: Option<String>,
    /// `DNT: 1` or `Sec-GPC: 1`.
    pub do_not_track: bool,
}

impl RequestFacts {
    pub fn of(req: &HttpRequest) -> RequestFacts {
        let header = |name: &str| {
            req.headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::trim)
        };
        RequestFacts {
            ip: req.peer_addr().map(|a| a.ip()),
            user_agent: header("user-agent").map(|s| s.chars().take(512).collect()),
            device: device_id_of(req),
            do_not_track: header("dnt") == Some("1") || header("sec-gpc") == Some("1"),
        }
    }

    /// What the visitor hash is made from (never stored itself).
    fn identity(&self) -> Option<String> {
        if let Some(d) = &self.device {
            return Some(format!("d:{d}"));
        }
        let ip = self.ip?;
        Some(format!(
            "a:{ip}|{}",
            self.user_agent.as_deref().unwrap_or_default()
        ))
    }

    /// The visitor hash under `salt` (32 hex characters).
    pub fn visitor(&self, salt: &[u8]) -> Option<String> {
        let id = self.identity()?;
        let mut h = Sha256::new();
        h.update(salt);
        h.update(id.as_bytes());
        Some(hex::encode(h.finalize().get(..16).unwrap_or_default()))
    }
}

/// The address with its host part zeroed: IPv4 /24, IPv6 /48 (an
/// IPv4-mapped IPv6 address is treated as IPv4).
pub fn truncate_ip(ip: IpAddr) -> String {
    match ip {
        IpAddr::V4(v4) => {
            let [a, b, c, _] = v4.octets();
            std::net::Ipv4Addr::new(a, b, c, 0).to_string()
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return truncate_ip(IpAddr::V4(v4));
            }
            let [a, b, c, ..] = v6.segments();
            std::net::Ipv6Addr::new(a, b, c, 0, 0, 0, 0, 0).to_string()
        }
    }
}

/// The browser family of a user agent: `Edge`, `Opera`, `Samsung Internet`,
/// `Firefox`, `Chrome`, `Safari`, `Bot` (crawlers, whose events are
/// dropped), or `Other`. Order matters: Edge and Opera also say Chrome,
/// Chrome also says Safari.
pub fn browser_family(ua: Option<&str>) -> &'static str {
    let Some(ua) = ua else { return "Other" };
    let lower = ua.to_ascii_lowercase();
    if ["bot", "spider", "crawler", "slurp", "facebookexternalhit"]
        .iter()
        .any(|b| lower.contains(b))
    {
        "Bot"
    } else if ua.contains("Edg/") || ua.contains("EdgA/") || ua.contains("EdgiOS/") {
        "Edge"
    } else if ua.contains("OPR/") || ua.contains("Opera") {
        "Opera"
    } else if ua.contains("SamsungBrowser/") {
        "Samsung Internet"
    } else if ua.contains("Firefox/") || ua.contains("FxiOS/") {
        "Firefox"
    } else if ua.contains("Chrome/") || ua.contains("CriOS/") || ua.contains("Chromium/") {
        "Chrome"
    } else if ua.contains("Safari/") && ua.contains("Version/") {
        "Safari"
    } else {
        "Other"
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn addresses_are_truncated() {
        assert_eq!(truncate_ip("203.0.113.77".parse().unwrap()), "203.0.113.0");
        assert_eq!(
            truncate_ip("2001:db8:abcd:12:1:2:3:4".parse().unwrap()),
            "2001:db8:abcd::"
        );
        assert_eq!(
            truncate_ip("::ffff:198.51.100.9".parse().unwrap()),
            "198.51.100.0"
        );
    }

    #[test]
    fn user_agents_become_families() {
        let chrome = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
        let edge = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0";
        let safari = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15";
        let firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";
        let headless = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36";
        assert_eq!(browser_family(Some(chrome)), "Chrome");
        assert_eq!(browser_family(Some(edge)), "Edge");
        assert_eq!(browser_family(Some(safari)), "Safari");
        assert_eq!(browser_family(Some(firefox)), "Firefox");
        assert_eq!(browser_family(Some(headless)), "Chrome");
        assert_eq!(browser_family(Some("Googlebot/2.1")), "Bot");
        assert_eq!(browser_family(Some("curl/8.0")), "Other");
        assert_eq!(browser_family(None), "Other");
    }

    #[test]
    fn the_visitor_hash_depends_on_the_salt_and_never_shows_the_device() {
        let f = RequestFacts {
            device: Some("device-abcdef123".into()),
            ..Default::default()
        };
        let a = f.visitor(b"salt-1").unwrap();
        assert_eq!(a.len(), 32);
        assert_ne!(a, f.visitor(b"salt-2").unwrap());
        assert_eq!(a, f.visitor(b"salt-1").unwrap());
        assert!(!a.contains("abcdef123"));
        let anonymous = RequestFacts {
            ip: Some("203.0.113.77".parse().unwrap()),
            user_agent: Some("UA".into()),
            ..Default::default()
        };
        assert!(anonymous.visitor(b"s").is_some());
        assert_eq!(RequestFacts::default().visitor(b"s"), None);
    }
}
