//! Settings of phone sign-in (the SMS provider, codes and their limits),
//! invite codes (credits for both sides) and the visitor and popup calls
//! (the visitor guide's steps, the membership popup's frequency cap).
//! File section `[phone]`; environment `EASEL_SMS_*`, `EASEL_INVITE_*`,
//! `EASEL_VISITOR_GUIDE`, `EASEL_VIP_POP_*`.

use serde::{Deserialize, Serialize};

use super::{ConfigError, Secret};

/// The SMS provider: an HTTP API in the style of Twilio's Messages API.
/// Phone sign-in is offered only when `account_sid`, `auth_token` and `from`
/// are all set.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default)]
pub struct SmsSettings {
    /// Base URL of the API (`EASEL_SMS_URL`); Twilio's by default.
    pub url: String,
    /// Account SID (`EASEL_SMS_ACCOUNT_SID`): the basic-auth user and part of the path.
    pub account_sid: String,
    /// Auth token (`EASEL_SMS_AUTH_TOKEN`): the basic-auth password.
    pub auth_token: Option<Secret>,
    /// Sender (`EASEL_SMS_FROM`): an E.164 number, or a messaging service SID (`MG...`).
    pub from: String,
    /// How long one send may take (`EASEL_SMS_TIMEOUT_MS`).
    pub timeout_ms: u64,
    /// How long a code stays valid (`EASEL_SMS_CODE_TTL_SECS`).
    pub code_ttl_secs: i64,
    /// Wrong guesses that burn a code (`EASEL_SMS_MAX_ATTEMPTS`).
    pub max_attempts: u32,
    /// The least time between two codes to one number (`EASEL_SMS_RESEND_SECS`).
    pub resend_secs: i64,
    /// Codes one number may receive per hour (`EASEL_SMS_PER_NUMBER_PER_HOUR`).
    pub per_number_per_hour: u32,
    /// Codes one client address may ask for per hour (`EASEL_SMS_PER_IP_PER_HOUR`).
    pub per_ip_per_hour: u32,
}

impl Default for SmsSettings {
    fn default() -> Self {
        SmsSettings {
            url: "https://api.twilio.com".into(),
            account_sid: String::new(),
            auth_token: None,
            from: String::new(),
            timeout_ms: 10_000,
            code_ttl_secs: 600,
            max_attempts: 5,
            resend_secs: 60,
            per_number_per_hour: 5,
            per_ip_per_hour: 20,
        }
    }
}

impl SmsSettings {
    /// Whether an SMS provider is configured.
    pub fn enabled(&self) -> bool {
        !self.account_sid.is_empty()
            && !self.from.is_empty()
            && self
                .auth_token
                .as_ref()
                .is_some_and(|t| !t.expose().is_empty())
    }
}

/// One step of the visitor guide, as the operator writes it.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
pub struct GuideStep {
    /// Stable id (what "seen" records).
    pub id: String,
    /// i18n key or text of the title.
    pub title: String,
    /// i18n key or text of the body.
    #[serde(default)]
    pub body: String,
    /// The page or element the step points at (a route or a CSS selector).
    #[serde(default)]
    pub target: String,
}

/// Phone sign-in, invite codes, visitors and popups.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default)]
pub struct PhoneSettings {
    pub sms: SmsSettings,
    /// Credits the inviter receives per account created with its code
    /// (`EASEL_INVITE_CREDITS_INVITER`; 0 = none).
    pub invite_credits_inviter: i64,
    /// Credits the invited account receives (`EASEL_INVITE_CREDITS_INVITEE`; 0 = none).
    pub invite_credits_invitee: i64,
    /// The guide shown to visitors (`EASEL_VISITOR_GUIDE`: a JSON array of
    /// steps; none by default: the operator writes it).
    pub visitor_guide: Vec<GuideStep>,
    /// The least time between two membership popups to one account
    /// (`EASEL_VIP_POP_INTERVAL_SECS`).
    pub vip_pop_interval_secs: i64,
    /// How many times at most the membership popup is shown to one account
    /// (`EASEL_VIP_POP_MAX`; 0, the default, = never: the operator turns it on).
    pub vip_pop_max: u32,
}

impl Default for PhoneSettings {
    fn default() -> Self {
        PhoneSettings {
            sms: SmsSettings::default(),
            invite_credits_inviter: 0,
            invite_credits_invitee: 0,
            visitor_guide: Vec::new(),
            vip_pop_interval_secs: 86_400,
            vip_pop_max: 0,
        }
    }
}

impl PhoneSettings {
    pub(super) fn apply_env(
        &mut self,
        env: &impl Fn(&str) -> Option<String>,
    ) -> Result<(), ConfigError> {
        fn num<T: std::str::FromStr>(key: &'static str, v: &str) -> Result<T, ConfigError> {
            v.parse()
                .map_err(|_| ConfigError::Env(key, format!("{v:?} is not a number")))
        }
        let get = |k: &str| {
            env(k)
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        let s = &mut self.sms;
        if let Some(v) = get("EASEL_SMS_URL") {
            s.url = v.trim_end_matches('/').to_owned();
        }
        if let Some(v) = get("EASEL_SMS_ACCOUNT_SID") {
            s.account_sid = v;
        }
        if let Some(v) = get("EASEL_SMS_AUTH_TOKEN") {
            s.auth_token = Some(Secret::new(v));
        }
        if let Some(v) = get("EASEL_SMS_FROM") {
            s.from = v;
        }
        if let Some(v) = get("EASEL_SMS_TIMEOUT_MS") {
            s.timeout_ms = num("EASEL_SMS_TIMEOUT_MS", &v)?;
        }
        if let Some(v) = get("EASEL_SMS_CODE_TTL_SECS") {
            s.code_ttl_secs = num("EASEL_SMS_CODE_TTL_SECS", &v)?;
        }
        if let Some(v) = get("EASEL_SMS_MAX_ATTEMPTS") {
            s.max_attempts = num("EASEL_SMS_MAX_ATTEMPTS", &v)?;
        }
        if let Some(v) = get("EASEL_SMS_RESEND_SECS") {
            s.resend_secs = num("EASEL_SMS_RESEND_SECS", &v)?;
        }
        if let Some(v) = get("EASEL_SMS_PER_NUMBER_PER_HOUR") {
            s.per_number_per_hour = num("EASEL_SMS_PER_NUMBER_PER_HOUR", &v)?;
        }
        if let Some(v) = get("EASEL_SMS_PER_IP_PER_HOUR") {
            s.per_ip_per_hour = num("EASEL_SMS_PER_IP_PER_HOUR", &v)?;
        }
        if let Some(v) = get("EASEL_INVITE_CREDITS_INVITER") {
            self.invite_credits_inviter = num("EASEL_INVITE_CREDITS_INVITER", &v)?;
        }
        if let Some(v) = get("EASEL_INVITE_CREDITS_INVITEE") {
            self.invite_credits_invitee = num("EASEL_INVITE_CREDITS_INVITEE", &v)?;
        }
        if let Some(v) = get("EASEL_VISITOR_GUIDE") {
            self.visitor_guide = serde_json::from_str(&v).map_err(|e| {
                ConfigError::Env(
                    "EASEL_VISITOR_GUIDE",
                    format!("not a JSON list of steps: {e}"),
                )
            })?;
        }
        if let Some(v) = get("EASEL_VIP_POP_INTERVAL_SECS") {
            self.vip_pop_interval_secs = num("EASEL_VIP_POP_INTERVAL_SECS", &v)?;
        }
        if let Some(v) = get("EASEL_VIP_POP_MAX") {
            self.vip_pop_max = num("EASEL_VIP_POP_MAX", &v)?;
        }
        if self.invite_credits_inviter < 0 || self.invite_credits_invitee < 0 {
            return Err(ConfigError::Invalid(
                "invite credits must not be negative".into(),
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
    fn env_sets_provider_invites_and_guide() {
        let mut p = PhoneSettings::default();
        assert!(!p.sms.enabled());
        let env = |k: &str| -> Option<String> {
            match k {
                "EASEL_SMS_URL" => Some("http://127.0.0.1:9/".into()),
                "EASEL_SMS_ACCOUNT_SID" => Some("AC1".into()),
                "EASEL_SMS_AUTH_TOKEN" => Some("tok".into()),
                "EASEL_SMS_FROM" => Some("+15005550006".into()),
                "EASEL_INVITE_CREDITS_INVITER" => Some("30".into()),
                "EASEL_VISITOR_GUIDE" => Some(r#"[{"id":"a","title":"A"}]"#.into()),
                _ => None,
            }
        };
        p.apply_env(&env).unwrap();
        assert!(p.sms.enabled());
        assert_eq!(p.sms.url, "http://127.0.0.1:9");
        assert_eq!(p.invite_credits_inviter, 30);
        assert_eq!(p.invite_credits_invitee, 0);
        assert_eq!(p.visitor_guide.len(), 1);
        let bad = |k: &str| (k == "EASEL_VISITOR_GUIDE").then(|| "nope".to_owned());
        assert!(p.apply_env(&bad).is_err());
    }
}
