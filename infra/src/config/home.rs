//! Settings of the home page's composition (issue 22 part 3): which hosts
//! banner and popup links and images may point at, and the test clock.
//! File section `[home]`; environment `EASEL_HOME_LINK_HOSTS`,
//! `EASEL_HOME_TEST_CLOCK`.

use serde::Deserialize;

use super::ConfigError;

#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub struct HomeSettings {
    /// Hosts that banner, module and popup links and images may use besides
    /// same-site paths (`EASEL_HOME_LINK_HOSTS`, comma-separated; `*.x.org`
    /// allows the subdomains of x.org). Empty by default: same-site only,
    /// so a stolen operator session cannot make the home page an open
    /// redirect.
    pub link_hosts: Vec<String>,
    /// For tests only (`EASEL_HOME_TEST_CLOCK=1`): the home and popup calls
    /// read a clock operators set with `admin/home/clock`, so day
    /// boundaries are tested with a fixed clock. Off in production, where
    /// `admin/home/clock` answers NotFound.
    pub test_clock: bool,
}

impl HomeSettings {
    pub(super) fn apply_env(
        &mut self,
        env: &impl Fn(&str) -> Option<String>,
    ) -> Result<(), ConfigError> {
        if let Some(v) = env("EASEL_HOME_LINK_HOSTS") {
            self.link_hosts = v
                .split(',')
                .map(|h| h.trim().to_ascii_lowercase())
                .filter(|h| !h.is_empty())
                .collect();
        }
        if let Some(v) = env("EASEL_HOME_TEST_CLOCK") {
            self.test_clock = match v.trim() {
                "1" | "true" => true,
                "" | "0" | "false" => false,
                other => {
                    return Err(ConfigError::Env(
                        "EASEL_HOME_TEST_CLOCK",
                        format!("{other:?} is not 0/1/true/false"),
                    ))
                }
            };
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn env_sets_hosts_and_clock() {
        let mut h = HomeSettings::default();
        let env = |k: &str| match k {
            "EASEL_HOME_LINK_HOSTS" => Some(" CDN.example.com, *.partner.org ,".to_string()),
            "EASEL_HOME_TEST_CLOCK" => Some("1".to_string()),
            _ => None,
        };
        h.apply_env(&env).unwrap();
        assert_eq!(h.link_hosts, ["cdn.example.com", "*.partner.org"]);
        assert!(h.test_clock);
        let bad = |k: &str| (k == "EASEL_HOME_TEST_CLOCK").then(|| "maybe".to_string());
        assert!(HomeSettings::default().apply_env(&bad).is_err());
    }
}
