//! Short links' settings (issue 22): file section `[short_links]`;
//! environment `EASEL_SHORTLINK_HOSTS` (comma-separated hosts besides the
//! instance's own that links may point to; `*.example.com` allows its
//! subdomains), `EASEL_SHORTLINK_EXPIRY_DAYS` (default 90) and
//! `EASEL_SHORTLINK_PER_HOUR` (new links per account and hour, default 60).

use serde::Deserialize;

use super::ConfigError;

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ShortLinkSettings {
    /// Hosts besides the instance's own that links may point to.
    pub hosts: Vec<String>,
    /// Days a new link redirects (1 to 3650).
    pub expiry_days: u32,
    /// New links an account may make per hour (0: no limit).
    pub per_hour: u32,
}

impl Default for ShortLinkSettings {
    fn default() -> Self {
        ShortLinkSettings {
            hosts: Vec::new(),
            expiry_days: 90,
            per_hour: 60,
        }
    }
}

impl ShortLinkSettings {
    pub(super) fn apply_env(
        &mut self,
        env: &impl Fn(&str) -> Option<String>,
    ) -> Result<(), ConfigError> {
        if let Some(v) = env("EASEL_SHORTLINK_HOSTS") {
            self.hosts = v
                .split(',')
                .map(|h| h.trim().to_owned())
                .filter(|h| !h.is_empty())
                .collect();
        }
        if let Some(v) = env("EASEL_SHORTLINK_EXPIRY_DAYS") {
            self.expiry_days = v
                .trim()
                .parse()
                .ok()
                .filter(|d| (1..=3650).contains(d))
                .ok_or_else(|| {
                    ConfigError::Env("EASEL_SHORTLINK_EXPIRY_DAYS", "1 to 3650 days".into())
                })?;
        }
        if let Some(v) = env("EASEL_SHORTLINK_PER_HOUR") {
            self.per_hour = v.trim().parse().map_err(|_| {
                ConfigError::Env("EASEL_SHORTLINK_PER_HOUR", format!("{v:?} is not a number"))
            })?;
        }
        if !(1..=3650).contains(&self.expiry_days) {
            return Err(ConfigError::Invalid(
                "short_links.expiry_days: 1 to 3650 days".into(),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn environment_overrides() {
        let mut s = ShortLinkSettings::default();
        s.apply_env(&|k| match k {
            "EASEL_SHORTLINK_HOSTS" => Some(" cdn.example.com, *.example.org ,".into()),
            "EASEL_SHORTLINK_EXPIRY_DAYS" => Some("7".into()),
            _ => None,
        })
        .unwrap();
        assert_eq!(s.hosts, vec!["cdn.example.com", "*.example.org"]);
        assert_eq!((s.expiry_days, s.per_hour), (7, 60));
        let mut s = ShortLinkSettings::default();
        assert!(s
            .apply_env(&|k| (k == "EASEL_SHORTLINK_EXPIRY_DAYS").then(|| "0".into()))
            .is_err());
    }
}
