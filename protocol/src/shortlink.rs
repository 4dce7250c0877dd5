//! Short links (issue 22 part 6; spec 3 §7 `url/short`, body `url`, answer
//! `data.cloud_cdn`): which targets a short link may point to, so that
//! `/s/{code}` is never an open redirect. Pure and table-tested.
//!
//! A target is parsed with the `url` crate (WHATWG rules, the same a browser
//! applies to the `Location` we send), then:
//! - a path on the instance (`/works/1`) is resolved against the public URL;
//! - only `http` and `https` (no `javascript:`, `data:`, `file:`, ...);
//! - no user name or password (`https://good.example@evil.example/`);
//! - the host, as the parser normalised it (lower case, IDNA to punycode,
//!   IPv4 forms such as `0x7f.1` to dotted decimal), must be the instance's
//!   own host and port, or equal an operator-allowed host
//!   (`EASEL_SHORTLINK_HOSTS`, also normalised), or be under an allowed
//!   `*.suffix` entry. A look-alike host (`xn--ggle-0nda.com` for
//!   `gооgle.com` with Cyrillic letters) is a different ASCII host, so it is
//!   refused unless that very host is allowed;
//! - at most [`MAX_URL_CHARS`] characters.
//!
//! The redirect sends the parsed URL's serialisation, never the raw text.

use serde::{Deserialize, Serialize};
use url::{Host, Url};

/// Longest target accepted.
pub const MAX_URL_CHARS: usize = 2048;
/// Length of a short code (base-62: 62^8 ≈ 2.2e14 codes).
pub const CODE_LEN: usize = 8;
/// The characters of a short code.
pub const CODE_ALPHABET: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// `url/short`'s body.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShortenRequest {
    pub url: String,
}

/// `url/short`'s answer: the spec's `cloud_cdn` is the short URL.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShortenResult {
    pub cloud_cdn: String,
    pub code: String,
    /// The target as it will be redirected to.
    pub url: String,
    /// When the link stops redirecting (ms since the epoch).
    pub expires_at: i64,
}

/// One of the owner's links (`url/short/list`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShortLinkView {
    pub code: String,
    pub cloud_cdn: String,
    pub url: String,
    pub created_at: i64,
    pub expires_at: i64,
    pub clicks: i64,
    pub expired: bool,
}

/// Why a target was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TargetError {
    /// Not an absolute http(s) URL or instance path, too long, or with credentials.
    #[error("{0}")]
    Invalid(&'static str),
    /// A host that is neither the instance's nor allowed by the operator.
    #[error("links to {0} are not allowed on this instance")]
    HostRefused(String),
}

/// The instance's own origin and the hosts the operator allows.
#[derive(Debug, Clone)]
pub struct TargetRules {
    base: Url,
    /// Normalised exact hosts, and suffixes (`.example.com`) from `*.` entries.
    exact: Vec<String>,
    suffixes: Vec<String>,
}

/// Normalises a host the way the URL parser does (IDNA, case, IPv4 forms).
fn normalise_host(raw: &str) -> Option<String> {
    Host::parse(raw.trim()).ok().map(|h| h.to_string())
}

impl TargetRules {
    /// `public_url`: the instance's base URL (`https://easel.example`);
    /// `allowed`: the operator's hosts (`cdn.example.com`, `*.example.org`).
    /// Entries that do not parse as hosts are ignored (and answered in the
    /// error so the caller can log them).
    pub fn new(public_url: &str, allowed: &[String]) -> Result<(TargetRules, Vec<String>), String> {
        let base = Url::parse(public_url).map_err(|e| format!("public URL {public_url:?}: {e}"))?;
        if base.host_str().is_none() || !matches!(base.scheme(), "http" | "https") {
            return Err(format!(
                "public URL {public_url:?}: not an http(s) URL with a host"
            ));
        }
        let mut exact = Vec::new();
        let mut suffixes = Vec::new();
        let mut ignored = Vec::new();
        for entry in allowed.iter().map(|e| e.trim()).filter(|e| !e.is_empty()) {
            match entry.strip_prefix("*.") {
                Some(rest) => match Host::parse(rest) {
                    Ok(Host::Domain(h)) if h.contains('.') => suffixes.push(format!(".{h}")),
                    _ => ignored.push(entry.to_owned()),
                },
                None => match normalise_host(entry) {
                    Some(h) => exact.push(h),
                    None => ignored.push(entry.to_owned()),
                },
            }
        }
        Ok((
            TargetRules {
                base,
                exact,
                suffixes,
            },
            ignored,
        ))
    }

    /// The instance's base URL.
    pub fn base(&self) -> &Url {
        &self.base
    }

    /// Checks a target; answers the URL to redirect to.
    pub fn check(&self, raw: &str) -> Result<Url, TargetError> {
        let raw = raw.trim();
        if raw.is_empty() {
            return Err(TargetError::Invalid("the URL is empty"));
        }
        if raw.chars().count() > MAX_URL_CHARS {
            return Err(TargetError::Invalid("the URL is too long"));
        }
        // A path (also `//host` or `/\host`, which the parser reads as another
        // host) is resolved against the instance; the host check below decides.
        let url = if raw.starts_with('/') || raw.starts_with('\\') {
            self.base
                .join(raw)
                .map_err(|_| TargetError::Invalid("not a valid URL"))?
        } else {
            Url::parse(raw).map_err(|_| TargetError::Invalid("not a valid absolute URL"))?
        };
        if !matches!(url.scheme(), "http" | "https") {
            return Err(TargetError::Invalid("only http and https links"));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(TargetError::Invalid(
                "a link may not carry a user name or password",
            ));
        }
        let Some(host) = url.host_str() else {
            return Err(TargetError::Invalid("the URL has no host"));
        };
        let own = self.base.host_str() == Some(host) && self.base.port() == url.port();
        let allowed = own
            || self.exact.iter().any(|h| h == host)
            || self.suffixes.iter().any(|s| host.ends_with(s.as_str()));
        if !allowed {
            return Err(TargetError::HostRefused(host.to_owned()));
        }
        Ok(url)
    }
}

/// Whether `s` is shaped like a short code.
pub fn code_ok(s: &str) -> bool {
    s.len() == CODE_LEN && s.bytes().all(|b| CODE_ALPHABET.contains(&b))
}

/// Expiry: a link answers until `expires_at` (excluded).
pub fn expired(expires_at: i64, now: i64) -> bool {
    now >= expires_at
}

#[cfg(test)]
mod tests;
