//! Account wire types (spec 2 §3 login entities, spec 1 §3 user and payment
//! info) and the pure rules that validate sign-up input.

use serde::{Deserialize, Serialize};

use crate::ErrorCode;

/// Account status (spec 2 §4).
pub mod status {
    /// Normal.
    pub const NORMAL: u8 = 1;
    /// Disabled: login answers AccountDisabled and issues no token.
    pub const DISABLED: u8 = 2;
    /// Profile incomplete: login issues a token limited to finishing the profile.
    pub const INCOMPLETE: u8 = 3;
}

/// Name of the login-token cookie and its lifetime (spec 2 §9).
pub const TOKEN_COOKIE: &str = "T";
pub const TOKEN_COOKIE_MAX_AGE_SECS: i64 = 5_184_000;
/// Name of the visitor device-id cookie.
pub const DEVICE_COOKIE: &str = "deviceId";
/// The request header that authenticates a call.
pub const TOKEN_HEADER: &str = "token";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SignUpRequest {
    pub email: String,
    pub password: String,
    /// Optional: without a name the account starts in status 3 and the
    /// login popup's final step asks for it.
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub invitation_code: Option<String>,
    /// A user's invite code (spec 2 §3); used when both are given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invite_user_code: Option<String>,
}

/// Login parameters (spec 2 §3). Only `type: "email"` is offered here; the
/// tracking fields are accepted and ignored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LoginRequest {
    #[serde(rename = "type")]
    pub login_type: String,
    #[serde(default)]
    pub email: String,
    #[serde(default)]
    pub password: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invitation_code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_url: Option<String>,
    /// Third-party sign-in (types 2, 3, 6): the provider's authorization code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    /// Third-party sign-in: the state the sign-in started with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
}

/// The account object of login and sign-up answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Account {
    pub id: String,
    pub name: String,
    pub email: String,
    /// Unix seconds.
    pub create_at: i64,
    pub status: u8,
    pub device_code: String,
}

/// `data` of login-in and sign-up.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LoginData {
    pub account: Account,
    pub token: String,
}

/// `data` of the completing-profile step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CompleteProfileRequest {
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct UserSettings {
    pub insight: bool,
    /// Generation flow version: 1 old, 2 new (spec 1 §4).
    pub task_flow_version: u8,
    pub task_flow_gt: bool,
}

/// `data` of account info.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AccountInfo {
    pub id: String,
    pub name: String,
    pub email: String,
    pub create_at: i64,
    pub status: u8,
    pub settings: UserSettings,
    /// Operator role, from the server's configuration.
    pub admin: bool,
    /// The image URL of the avatar ornament the account wears (the ornament shop).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ornament: Option<String>,
    /// The account proved it receives mail at `email` (a verification code or a reset link).
    #[serde(default)]
    pub email_verified: bool,
    /// The account's NSFW viewing mode (`blur`, `hide`, `show`), so the web
    /// app has it at sign-in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nsfw_mode: Option<crate::square::nsfw::NsfwMode>,
}

/// `data` of payment info (spec 1 §3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PaymentInfo {
    pub active_state: bool,
    pub lite_active_state: bool,
    pub infinite_queue: bool,
    pub product_level: u8,
}

impl PaymentInfo {
    /// VIP = active subscription, lite subscription or company account (spec 2 §6).
    pub fn is_vip(&self, company: bool) -> bool {
        self.active_state || self.lite_active_state || company
    }
}

/// An operator's change of an account's status (ban, unban).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SetStatusRequest {
    pub account_id: String,
    pub status: u8,
}

/// A well-formed, normalised (trimmed, lower-cased) e-mail address.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Email(String);

impl Email {
    pub fn parse(raw: &str) -> Result<Email, ErrorCode> {
        let s = raw.trim().to_lowercase();
        let valid = s.len() <= 254
            && s.split_once('@').is_some_and(|(local, domain)| {
                !local.is_empty()
                    && local.len() <= 64
                    && !domain.is_empty()
                    && domain.contains('.')
                    && !domain.starts_with('.')
                    && !domain.ends_with('.')
                    && !domain.contains("..")
                    && !domain.contains('@')
            })
            && !s.chars().any(|c| {
                c.is_whitespace() || c.is_control() || matches!(c, '<' | '>' | '"' | ',' | ';')
            });
        if valid {
            Ok(Email(s))
        } else {
            Err(ErrorCode::InvalidEmail)
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A password within the length bounds (counted in characters).
#[derive(Clone)]
pub struct Password(String);

impl Password {
    pub const MIN: usize = 8;
    pub const MAX: usize = 128;

    pub fn parse(raw: &str) -> Result<Password, ErrorCode> {
        let n = raw.chars().count();
        if (Self::MIN..=Self::MAX).contains(&n) {
            Ok(Password(raw.to_owned()))
        } else {
            Err(ErrorCode::PasswordInvalid)
        }
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Password {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Password(***)")
    }
}

/// A display name: trimmed, 1 to 50 characters, no control characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DisplayName(String);

impl DisplayName {
    pub const MAX: usize = 50;

    pub fn parse(raw: &str) -> Result<DisplayName, ErrorCode> {
        let s = raw.trim();
        let n = s.chars().count();
        if n == 0 || n > Self::MAX || s.chars().any(char::is_control) {
            Err(ErrorCode::NameInvalid)
        } else {
            Ok(DisplayName(s.to_owned()))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails() {
        for ok in [
            "a@b.co",
            "  Mixed.Case+tag@Example.ORG ",
            "x_y@sub.domain.io",
        ] {
            assert!(Email::parse(ok).is_ok(), "{ok}");
        }
        assert_eq!(Email::parse(" A@B.CO").unwrap().as_str(), "a@b.co");
        for bad in [
            "", "a", "a@", "@b.co", "a@b", "a@.b", "a@b.", "a b@c.de", "a@b..c", "a@@b.co",
            "<a>@b.co",
        ] {
            assert_eq!(Email::parse(bad), Err(ErrorCode::InvalidEmail), "{bad}");
        }
        assert!(Email::parse(&format!("{}@b.co", "a".repeat(65))).is_err());
    }

    #[test]
    fn passwords() {
        assert!(Password::parse("12345678").is_ok());
        assert!(
            Password::parse("ééééééé✓").is_ok(),
            "counts characters, not bytes"
        );
        assert_eq!(
            Password::parse("1234567").err(),
            Some(ErrorCode::PasswordInvalid)
        );
        assert_eq!(
            Password::parse(&"x".repeat(129)).err(),
            Some(ErrorCode::PasswordInvalid)
        );
        assert_eq!(
            format!("{:?}", Password::parse("secret123").unwrap()),
            "Password(***)"
        );
    }

    #[test]
    fn names() {
        assert_eq!(DisplayName::parse("  Ada ").unwrap().as_str(), "Ada");
        assert_eq!(DisplayName::parse("   "), Err(ErrorCode::NameInvalid));
        assert_eq!(DisplayName::parse("a\u{7}b"), Err(ErrorCode::NameInvalid));
        assert!(DisplayName::parse(&"n".repeat(50)).is_ok());
        assert!(DisplayName::parse(&"n".repeat(51)).is_err());
    }

    #[test]
    fn payment_info_is_camel_case() {
        let p = PaymentInfo {
            active_state: true,
            lite_active_state: false,
            infinite_queue: true,
            product_level: 3,
        };
        assert_eq!(
            serde_json::to_value(&p).unwrap(),
            serde_json::json!({"activeState": true, "liteActiveState": false, "infiniteQueue": true, "productLevel": 3})
        );
        assert!(p.is_vip(false));
        assert!(PaymentInfo::default().is_vip(true));
        assert!(!PaymentInfo::default().is_vip(false));
    }
}
