//! Phone sign-in (`account/login-in/sms`): a six-digit code sent through the
//! [`SmsSender`] port, stored only as a salted SHA-256, valid for a few
//! minutes, single-use (deleted by compare-and-set when it matches) and
//! burnt after too many wrong guesses (20105). Sends are limited per number
//! (a resend interval and an hourly count, kept with the code) and per
//! client address (in-process). The right code signs the number's account
//! in, or creates one (status 3: the final step asks for a name). Numbers
//! are parsed, validated and formatted (E.164) by the `phonenumber` crate.

use std::sync::Arc;

use infra::config::SmsSettings;
use infra::store::{tables, DynStore, Key, Table};
use protocol::account::DisplayName;
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::expiry::{ExpiryIndex, ExpiryKind};
use super::limits::{SharedLimits, StoreRateLimiter};
use super::sms::SmsSender;
use super::{now_secs, AccountRow, AccountService};
use crate::error::ApiError;

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

/// Longest input read as a phone number (digits, spaces and punctuation).
const MAX_RAW_LEN: usize = 40;

/// A phone number parsed, validated and formatted by the `phonenumber`
/// crate (Google's libphonenumber metadata): the input must be in
/// international form (`+` and the country code; spaces, dots, dashes and
/// brackets allowed), and the number must be a valid one of its country's
/// plan (length and prefixes). Answers the E.164 form (`+447911123456`).
pub fn parse_e164(raw: &str) -> Result<String, ApiError> {
    parse_number(raw).map(|n| n.format().mode(phonenumber::Mode::E164).to_string())
}

/// The number in international display form (`+44 7911 123456`).
pub fn display_international(raw: &str) -> Result<String, ApiError> {
    parse_number(raw).map(|n| {
        n.format()
            .mode(phonenumber::Mode::International)
            .to_string()
    })
}

fn parse_number(raw: &str) -> Result<phonenumber::PhoneNumber, ApiError> {
    let raw = raw.trim();
    // Only international input: without a country the digits are ambiguous.
    if !raw.starts_with('+')
        || raw.len() > MAX_RAW_LEN
        || !raw
            .chars()
            .skip(1)
            .all(|c| c.is_ascii_digit() || matches!(c, ' ' | '-' | '.' | '(' | ')'))
    {
        return Err(ErrorCode::PhoneInvalid.into());
    }
    let number = phonenumber::parse(None, raw).map_err(|_| ErrorCode::PhoneInvalid)?;
    if number.extension().is_some() || !phonenumber::is_valid(&number) {
        return Err(ErrorCode::PhoneInvalid.into());
    }
    Ok(number)
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
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[schema(as = SmsCodeSent)]
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
    /// Sends per client address, shared by every node through the Store.
    per_ip: StoreRateLimiter,
    expiry: ExpiryIndex,
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
            by_account: Table::new(store.clone(), &tables::SMS_BY_ACCOUNT),
            sender,
            per_ip: StoreRateLimiter::new(
                SharedLimits::new(store.clone(), Arc::new(super::lockout::SystemClock)),
                "sms_ip",
                settings.per_ip_per_hour,
                3_600_000,
            ),
            expiry: ExpiryIndex::new(store),
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
        if !self.per_ip.check(ip).await? {
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
        // The row is removed once both the code and its send window are over.
        self.expiry
            .register(
                row.expires_at
                    .max(row.window_start + 3600)
                    .saturating_mul(1000),
                ExpiryKind::SmsCode,
                &key,
            )
            .await?;
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
        self.verify_code(e164, code, true).await
    }

    /// Checks the number's code like [`Self::take_code`] (a wrong guess
    /// counts) but leaves a right one live: sign-in of an account waiting
    /// for its deletion answers 20010, and the same code then cancels it.
    pub async fn check_code(&self, e164: &str, code: &str) -> Result<(), ApiError> {
        self.verify_code(e164, code, false).await
    }

    async fn verify_code(&self, e164: &str, code: &str, spend: bool) -> Result<(), ApiError> {
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
                if !spend {
                    return Ok(());
                }
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

    /// Frees the account's number (the deletion sweep's last step): the
    /// claim goes only if it is still this account's (compare-and-set), so
    /// a new account that took the number meanwhile keeps it; then the
    /// account's pointer. Idempotent.
    pub async fn release(&self, account_id: &str) -> Result<(), ApiError> {
        let Some(e164) = self.number_of(account_id).await? else {
            return Ok(());
        };
        let key = Key::of(&e164);
        if let Some(claim) = self.phones.get(&key, &Key::empty()).await? {
            if claim.account_id == account_id {
                let _ = self
                    .phones
                    .compare_and_set(&key, &Key::empty(), &claim, None)
                    .await?;
            }
        }
        self.by_account
            .delete(&Key::of(account_id), &Key::empty())
            .await?;
        Ok(())
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
    fn real_world_numbers_are_normalised_to_e164() {
        for (raw, e164) in [
            (" +44 7911 123456 ", "+447911123456"),
            ("+1 (650) 253-0000", "+16502530000"),
            ("+1 212-555-0123", "+12125550123"),
            ("+39 06 1234 5678", "+390612345678"),
            ("+33 6 12 34 56 78", "+33612345678"),
            ("+49 1512 3456789", "+4915123456789"),
            ("+86 138 0013 8000", "+8613800138000"),
            ("+81 90-1234-5678", "+819012345678"),
            ("+91 98765 43210", "+919876543210"),
            ("+61 412 345 678", "+61412345678"),
            ("+55 11 91234-5678", "+5511912345678"),
            ("+852 5123 4567", "+85251234567"),
        ] {
            assert_eq!(parse_e164(raw).unwrap(), e164, "{raw}");
        }
        assert_eq!(
            display_international("+447911123456").unwrap(),
            "+44 7911 123456"
        );
    }

    #[test]
    fn invalid_numbers_answer_phone_invalid() {
        for bad in [
            "07911123456",            // no country code
            "+1 555",                 // too short
            "+1 055 253 0000",        // NANP area code starting with 0
            "+1 650 053 0000",        // NANP exchange starting with 0
            "+999 1234567",           // unassigned country code
            "+44 7911 123456 789 0",  // too long for the UK
            "+44 7911/123456",        // stray character
            "+86 138 0013 800",       // a digit short for a Chinese mobile
            "+33 6 12 34 56",         // too short for France
            "+1 650 253 0000 ext 12", // extension
            "hello",
            "+",
            "",
            "+4479111234561234567890123456789012345678901",
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
