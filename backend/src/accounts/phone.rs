//! Phone sign-in (`account/login-in/sms`): a six-digit code sent through the
//! [`SmsSender`] port, stored only as a salted SHA-256, valid for a few
//! minutes, single-use (deleted by compare-and-set when it matches) and
//! burnt after too many wrong guesses (20105). Sends are limited per number
//! (a resend interval and an hourly count, kept with the code) and per
//! client address (in-process). The right code signs the number's account
//! in, or creates one (status 3: the final step asks for a name). Numbers
//! are checked against E.164's rules and the assigned country codes.

use std::sync::Arc;
use std::time::Duration;

use infra::config::SmsSettings;
use infra::store::{tables, DynStore, Key, Table};
use protocol::account::DisplayName;
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::sms::SmsSender;
use super::{now_secs, AccountRow, AccountService};
use crate::error::ApiError;
use crate::ratelimit::RateLimiter;

/// A number's live code and its send window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SmsCodeRow {
    /// Hex SHA-256 of salt, number and code.
    pub code_hash: String,
    pub salt: String,
    pub expires_at: i64,
    pub attempts: u32,
    /// Unix seconds of the last send.
    pub sent_at: i64,
    /// Start of the hourly send window and the sends in it.
    pub window_start: i64,
    pub window_sends: u32,
    /// Whether the code was used or burnt (the row stays for the window).
    #[serde(default)]
    pub spent: bool,
}

/// The unique claim of a phone number.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PhoneClaim {
    pub account_id: String,
}

/// Country calling codes of ITU-T E.164 that reach subscribers (geographic
/// and shared-territory codes; the non-geographic 800, 808, 870, 878,
/// 881-883, 888 and 979 cannot receive a text here).
const COUNTRY_CODES: &[u16] = &[
    1, 7, 20, 27, 30, 31, 32, 33, 34, 36, 39, 40, 41, 43, 44, 45, 46, 47, 48, 49, 51, 52, 53, 54,
    55, 56, 57, 58, 60, 61, 62, 63, 64, 65, 66, 81, 82, 84, 86, 90, 91, 92, 93, 94, 95, 98, 211,
    212, 213, 216, 218, 220, 221, 222, 223, 224, 225, 226, 227, 228, 229, 230, 231, 232, 233, 234,
    235, 236, 237, 238, 239, 240, 241, 242, 243, 244, 245, 246, 247, 248, 249, 250, 251, 252, 253,
    254, 255, 256, 257, 258, 260, 261, 262, 263, 264, 265, 266, 267, 268, 269, 290, 291, 297, 298,
    299, 350, 351, 352, 353, 354, 355, 356, 357, 358, 359, 370, 371, 372, 373, 374, 375, 376, 377,
    378, 380, 381, 382, 383, 385, 386, 387, 389, 420, 421, 423, 500, 501, 502, 503, 504, 505, 506,
    507, 508, 509, 590, 591, 592, 593, 594, 595, 596, 597, 598, 599, 670, 672, 673, 674, 675, 676,
    677, 678, 679, 680, 681, 682, 683, 685, 686, 687, 688, 689, 690, 691, 692, 850, 852, 853, 855,
    856, 880, 886, 960, 961, 962, 963, 964, 965, 966, 967, 968, 970, 971, 972, 973, 974, 975, 976,
    977, 992, 993, 994, 995, 996, 998,
];

/// The country code a number starts with (codes are prefix-free).
fn country_code(digits: &str) -> Option<u16> {
    (1..=3).find_map(|n| {
        let cc: u16 = digits.get(..n)?.parse().ok()?;
        COUNTRY_CODES.contains(&cc).then_some(cc)
    })
}

/// A phone number in E.164 form: `+`, an assigned country code, at most 15
/// digits in all (ITU-T E.164 §6) and at least 8; spaces, dots, dashes and
/// brackets between digits are dropped. North American numbers (+1) follow
/// the NANP: 10 digits, area code and exchange not starting with 0 or 1.
pub fn parse_e164(raw: &str) -> Result<String, ApiError> {
    let raw = raw.trim();
    let rest = raw
        .strip_prefix('+')
        .filter(|_| raw.len() <= 32)
        .ok_or(ErrorCode::PhoneInvalid)?;
    let mut digits = String::with_capacity(15);
    for c in rest.chars() {
        match c {
            '0'..='9' => digits.push(c),
            ' ' | '-' | '.' | '(' | ')' => {}
            _ => return Err(ErrorCode::PhoneInvalid.into()),
        }
    }
    if !(8..=15).contains(&digits.len()) {
        return Err(ErrorCode::PhoneInvalid.into());
    }
    let cc = country_code(&digits).ok_or(ErrorCode::PhoneInvalid)?;
    let national = digits.get(cc.to_string().len()..).unwrap_or_default();
    if national.len() < 4 || (national.starts_with('0') && cc != 39) {
        // Italy keeps its leading 0 in international form; elsewhere the
        // trunk prefix 0 is never dialled after the country code.
        return Err(ErrorCode::PhoneInvalid.into());
    }
    if cc == 1 {
        let b = national.as_bytes();
        let nanp = national.len() == 10
            && b.first().is_some_and(|d| (b'2'..=b'9').contains(d))
            && b.get(3).is_some_and(|d| (b'2'..=b'9').contains(d));
        if !nanp {
            return Err(ErrorCode::PhoneInvalid.into());
        }
    }
    Ok(format!("+{digits}"))
}

fn code_hash(salt: &str, e164: &str, code: &str) -> String {
    let mut h = Sha256::new();
    h.update(salt.as_bytes());
    h.update(b"\0");
    h.update(e164.as_bytes());
    h.update(b"\0");
    h.update(code.as_bytes());
    hex::encode(h.finalize())
}

/// Equal-time comparison of two hex digests.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// What a send answers: seconds until the code expires and until another may be asked.
#[derive(Debug, Clone, Serialize)]
pub struct CodeSent {
    pub sent: bool,
    pub expires_in: i64,
    pub resend_in: i64,
}

/// The outcome of a right code.
pub struct PhoneLogin {
    pub account: AccountRow,
    pub token: String,
    /// A new account was made for the number.
    pub created: bool,
}

#[derive(Clone)]
pub struct PhoneService {
    codes: Table<SmsCodeRow>,
    phones: Table<PhoneClaim>,
    by_account: Table<String>,
    sender: Option<Arc<dyn SmsSender>>,
    settings: SmsSettings,
    per_ip: Arc<RateLimiter>,
}

impl PhoneService {
    pub fn new(
        store: DynStore,
        settings: SmsSettings,
        sender: Option<Arc<dyn SmsSender>>,
    ) -> PhoneService {
        PhoneService {
            codes: Table::new(store.clone(), &tables::SMS_CODES),
            phones: Table::new(store.clone(), &tables::SMS_PHONES),
            by_account: Table::new(store, &tables::SMS_BY_ACCOUNT),
            sender,
            per_ip: Arc::new(RateLimiter::new(
                settings.per_ip_per_hour,
                Duration::from_secs(3600),
            )),
            settings,
        }
    }

    /// Whether phone sign-in is offered (an SMS provider is configured).
    pub fn enabled(&self) -> bool {
        self.sender.is_some()
    }

    /// The account's phone number, if it has one.
    pub async fn number_of(&self, account_id: &str) -> Result<Option<String>, ApiError> {
        Ok(self
            .by_account
            .get(&Key::of(account_id), &Key::empty())
            .await?)
    }

    /// Sends a new code to the number, within the per-number and per-address limits.
    pub async fn send_code(&self, raw_phone: &str, ip: &str) -> Result<CodeSent, ApiError> {
        let sender = self.sender.clone().ok_or(ErrorCode::LoginTypeUnsupported)?;
        let e164 = parse_e164(raw_phone)?;
        let key = Key::of(&e164);
        let now = now_secs();
        let s = &self.settings;
        let old = self.codes.get(&key, &Key::empty()).await?;
        if let Some(o) = &old {
            if now - o.sent_at < s.resend_secs {
                return Err(ApiError::with_msg(
                    ErrorCode::SmsTooFrequent,
                    format!(
                        "wait {} s before asking again",
                        s.resend_secs - (now - o.sent_at)
                    ),
                ));
            }
            if now - o.window_start < 3600 && o.window_sends >= s.per_number_per_hour {
                return Err(ErrorCode::SmsTooFrequent.into());
            }
        }
        if !self.per_ip.check(ip) {
            return Err(ErrorCode::TooManyRequests.into());
        }
        let code = format!("{:06}", rand::random_range(0..1_000_000u32));
        let salt = hex::encode(rand::random::<[u8; 16]>());
        let (window_start, window_sends) = match &old {
            Some(o) if now - o.window_start < 3600 => (o.window_start, o.window_sends + 1),
            _ => (now, 1),
        };
        let row = SmsCodeRow {
            code_hash: code_hash(&salt, &e164, &code),
            salt,
            expires_at: now + s.code_ttl_secs,
            attempts: 0,
            sent_at: now,
            window_start,
            window_sends,
            spent: false,
        };
        // Compare-and-set against what was read: two sends racing for one
        // number cannot both pass the limits.
        let written = match &old {
            Some(o) => self
                .codes
                .compare_and_set(&key, &Key::empty(), o, Some(&row))
                .await?
                .is_ok(),
            None => self
                .codes
                .insert_if_absent(&key, &Key::empty(), &row)
                .await?
                .is_ok(),
        };
        if !written {
            return Err(ErrorCode::SmsTooFrequent.into());
        }
        let body = format!(
            "Your Easel code is {code}. It expires in {} minutes. Never share it.",
            (s.code_ttl_secs / 60).max(1)
        );
        if let Err(e) = sender.send(&e164, &body).await {
            tracing::warn!(error = %e, "sms send failed");
            // Nothing was delivered: this send does not count, and no code is live.
            match &old {
                Some(o) => {
                    let _ = self
                        .codes
                        .compare_and_set(&key, &Key::empty(), &row, Some(o))
                        .await?;
                }
                None => {
                    let _ = self
                        .codes
                        .compare_and_set(&key, &Key::empty(), &row, None)
                        .await?;
                }
            }
            return Err(ErrorCode::SmsSendFailed.into());
        }
        Ok(CodeSent {
            sent: true,
            expires_in: s.code_ttl_secs,
            resend_in: s.resend_secs,
        })
    }

    /// Checks and spends the number's code: 20105 when there is none, it
    /// expired, it was used, or it is wrong (each wrong guess counts; the
    /// last allowed one burns it).
    pub async fn take_code(&self, e164: &str, code: &str) -> Result<(), ApiError> {
        let key = Key::of(e164);
        let code = code.trim();
        let mut current = self
            .codes
            .get(&key, &Key::empty())
            .await?
            .ok_or(ErrorCode::VerifiCodeError)?;
        loop {
            if current.spent
                || current.expires_at <= now_secs()
                || current.attempts >= self.settings.max_attempts
            {
                return Err(ErrorCode::VerifiCodeError.into());
            }
            let right = code.len() == 6
                && code.bytes().all(|b| b.is_ascii_digit())
                && same(&code_hash(&current.salt, e164, code), &current.code_hash);
            let mut next = current.clone();
            if right {
                next.spent = true;
            } else {
                next.attempts += 1;
                if next.attempts >= self.settings.max_attempts {
                    next.spent = true;
                }
            }
            match self
                .codes
                .compare_and_set(&key, &Key::empty(), &current, Some(&next))
                .await?
            {
                Ok(()) if right => return Ok(()),
                Ok(()) => return Err(ErrorCode::VerifiCodeError.into()),
                Err(Some(latest)) => current = latest,
                Err(None) => return Err(ErrorCode::VerifiCodeError.into()),
            }
        }
    }

    /// The account that owns the number, if any.
    pub async fn owner(&self, e164: &str) -> Result<Option<String>, ApiError> {
        Ok(self
            .phones
            .get(&Key::of(e164), &Key::empty())
            .await?
            .map(|c| c.account_id))
    }

    /// Claims the number for a new account; the present owner when it was claimed meanwhile.
    async fn claim(&self, e164: &str, account_id: &str) -> Result<Result<(), String>, ApiError> {
        let claim = PhoneClaim {
            account_id: account_id.to_owned(),
        };
        Ok(self
            .phones
            .insert_if_absent(&Key::of(e164), &Key::empty(), &claim)
            .await?
            .map_err(|c| c.account_id))
    }
}

impl AccountService {
    /// Signs the number's account in after its code was taken, or creates
    /// one (status 3 without a name). The caller checks an invite code
    /// before (when [`PhoneService::owner`] is `None`) and records it after.
    pub async fn phone_login(
        &self,
        phones: &PhoneService,
        e164: &str,
        name: Option<&str>,
        device_code: String,
    ) -> Result<PhoneLogin, ApiError> {
        if let Some(id) = phones.owner(e164).await? {
            return self.phone_login_existing(&id).await;
        }
        let name = match name.map(str::trim).filter(|n| !n.is_empty()) {
            Some(n) => Some(DisplayName::parse(n)?),
            None => None,
        };
        let id = uuid::Uuid::now_v7().simple().to_string();
        if let Err(owner) = phones.claim(e164, &id).await? {
            // Another request created the account a moment ago.
            return self.phone_login_existing(&owner).await;
        }
        // No password: this account signs in by its phone (an empty hash
        // never verifies).
        let row = AccountRow::fresh(
            &id,
            "",
            name.as_ref().map(|n| n.as_str()),
            String::new(),
            device_code,
        );
        self.accounts
            .put(&Key::of(&id), &Key::empty(), &row)
            .await?;
        phones
            .by_account
            .put(&Key::of(&id), &Key::empty(), &e164.to_owned())
            .await?;
        let token = self.issue_token(&id).await?;
        Ok(PhoneLogin {
            account: row,
            token,
            created: true,
        })
    }

    async fn phone_login_existing(&self, id: &str) -> Result<PhoneLogin, ApiError> {
        let row = self
            .accounts
            .get(&Key::of(id), &Key::empty())
            .await?
            .ok_or(ErrorCode::AccountNoExistent)?;
        row.admit()?;
        let token = self.issue_token(&row.id).await?;
        Ok(PhoneLogin {
            account: row,
            token,
            created: false,
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn numbers_are_checked_and_normalised_to_e164() {
        assert_eq!(parse_e164(" +44 7911 123456 ").unwrap(), "+447911123456");
        assert_eq!(parse_e164("+1 (650) 253-0000").unwrap(), "+16502530000");
        assert_eq!(parse_e164("+39 06 1234 5678").unwrap(), "+390612345678");
        for bad in [
            "07911123456",
            "+1 555",
            "+1 055 253 0000",
            "+999 1234567",
            "+44 07911 123456",
            "+44 7911 123456 789 0",
            "+44 7911/123456",
            "hello",
            "+",
        ] {
            let e = parse_e164(bad).unwrap_err();
            assert_eq!(e.code, ErrorCode::PhoneInvalid, "{bad}");
        }
    }

    #[test]
    fn code_hashes_depend_on_salt_number_and_code() {
        let a = code_hash("s", "+447911123456", "123456");
        assert!(same(&a, &code_hash("s", "+447911123456", "123456")));
        assert!(!same(&a, &code_hash("t", "+447911123456", "123456")));
        assert!(!same(&a, &code_hash("s", "+447911123457", "123456")));
        assert!(!same(&a, &code_hash("s", "+447911123456", "123457")));
    }
}
