//! TOTP two-factor sign-in (issue 21; RFC 6238 through `totp-rs`: SHA-1, 6
//! digits, 30 s steps, one step either side): enrolment (secret, otpauth URI
//! and QR code as SVG), confirmation with a code, ten single-use recovery
//! codes stored hashed, disabling (password and a code), and the sign-in's
//! second step.
//!
//! A code is accepted once: the account keeps the last step used and only a
//! later step passes. The second step of a sign-in is a challenge token
//! (256 random bits, stored as SHA-256, valid [`CHALLENGE_TTL_SECS`], at most
//! [`CHALLENGE_ATTEMPTS`] wrong codes, single use). Wrong codes also count in
//! the lockout (per account and address).

use base64::Engine;
use infra::store::Key;
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use totp_rs::{Algorithm, TOTP};

use super::sessions::{SecurityService, SessionMeta};
use super::{hash_token, now_millis, AccountRow};
use crate::error::ApiError;

pub const STEP_SECS: u64 = 30;
pub const CHALLENGE_TTL_SECS: i64 = 300;
pub const CHALLENGE_ATTEMPTS: u32 = 5;
pub const RECOVERY_CODES: usize = 10;
/// Unambiguous characters of recovery codes (no 0/o, 1/l/i): 5 bits each.
const RECOVERY_ALPHABET: &[u8] = b"abcdefghjkmnpqrstuvwxyz23456789";

/// An account's TOTP state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct TotpRow {
    /// The secret in use (base32), once confirmed.
    pub secret: Option<String>,
    /// A secret enrolled but not yet confirmed with a code.
    pub pending: Option<String>,
    /// The last step a code was accepted for (a code is never accepted twice).
    pub last_step: u64,
    /// SHA-256 (hex) of the unused recovery codes.
    pub recovery: Vec<String>,
    pub enabled_at: i64,
}

/// A sign-in waiting for its second step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChallengeRow {
    pub account_id: String,
    pub expires_at: i64,
    pub attempts: u32,
}

/// What `account/2fa/enrol` answers.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[schema(as = TwoFactorEnrolment)]
pub struct Enrolment {
    /// Base32, for typing into an authenticator by hand.
    pub secret: String,
    /// `otpauth://totp/...`.
    pub uri: String,
    /// The URI as a QR code: `data:image/svg+xml;base64,...`.
    pub qr: String,
}

/// The second step of a sign-in, answered by `login-in` when two-factor is on.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct SecondStep {
    pub second_step: &'static str,
    pub challenge: String,
    pub expires_in: i64,
    pub methods: [&'static str; 2],
}

fn totp_of(secret_b32: &str, issuer: &str, account: &str) -> Result<TOTP, ApiError> {
    let bytes = totp_rs::Secret::Encoded(secret_b32.to_owned())
        .to_bytes()
        .map_err(|e| ApiError::internal(format!("totp secret: {e:?}")))?;
    TOTP::new(
        Algorithm::SHA1,
        6,
        1,
        STEP_SECS,
        bytes,
        Some(issuer.to_owned()),
        account.to_owned(),
    )
    .map_err(|e| ApiError::internal(format!("totp: {e:?}")))
}

fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// The step a code matches (current, one before or one after) later than
/// `last_step`, if any.
pub fn matching_step(totp: &TOTP, code: &str, now_secs: u64, last_step: u64) -> Option<u64> {
    let code = code.trim();
    if code.len() != 6 || !code.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let now_step = now_secs / STEP_SECS;
    [now_step.saturating_sub(1), now_step, now_step + 1]
        .into_iter()
        .filter(|s| *s > last_step)
        .find(|s| same(&totp.generate(s * STEP_SECS), code))
}

fn normalise_recovery(code: &str) -> String {
    code.chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

fn hash_recovery(code: &str) -> String {
    hex::encode(Sha256::digest(
        format!("recovery:{}", normalise_recovery(code)).as_bytes(),
    ))
}

/// Ten fresh recovery codes (`xxxxx-xxxxx`, 50 random bits each).
pub fn new_recovery_codes() -> Vec<String> {
    (0..RECOVERY_CODES)
        .map(|_| {
            let raw: String = (0..10)
                .map(|_| {
                    let i = (rand::random::<u32>() as usize) % RECOVERY_ALPHABET.len();
                    char::from(*RECOVERY_ALPHABET.get(i).unwrap_or(&b'a'))
                })
                .collect();
            format!(
                "{}-{}",
                raw.get(..5).unwrap_or(""),
                raw.get(5..).unwrap_or("")
            )
        })
        .collect()
}

fn qr_svg(uri: &str) -> Result<String, ApiError> {
    let code = qrcode::QrCode::new(uri.as_bytes()).map_err(ApiError::internal)?;
    let svg = code
        .render::<qrcode::render::svg::Color>()
        .min_dimensions(200, 200)
        .build();
    Ok(format!(
        "data:image/svg+xml;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(svg)
    ))
}

impl SecurityService {
    fn now_secs(&self) -> u64 {
        (self.lockout.now_millis() / 1000).max(0) as u64
    }

    pub async fn totp_row(&self, account_id: &str) -> Result<TotpRow, ApiError> {
        Ok(self
            .totp
            .get(&Key::of(account_id), &Key::empty())
            .await?
            .unwrap_or_default())
    }

    pub async fn two_factor_on(&self, account_id: &str) -> Result<bool, ApiError> {
        Ok(self.totp_row(account_id).await?.secret.is_some())
    }

    /// Checks the password for a sensitive change, counting failures.
    pub async fn reauthenticate(
        &self,
        account: &AccountRow,
        password: &str,
        ip: &str,
    ) -> Result<(), ApiError> {
        self.lockout.check(&account.id, ip, true).await?;
        if let Err(e) = self.accounts.check_password(account, password).await {
            self.lockout.failed(Some(&account.id), ip).await?;
            return Err(e);
        }
        Ok(())
    }

    /// `account/2fa/enrol`: a new pending secret (replacing an unconfirmed one).
    pub async fn enrol(
        &self,
        account: &AccountRow,
        password: &str,
        ip: &str,
    ) -> Result<Enrolment, ApiError> {
        self.reauthenticate(account, password, ip).await?;
        let row = self.totp_row(&account.id).await?;
        if row.secret.is_some() {
            return Err(ErrorCode::TwoFactorState.into());
        }
        let secret = totp_rs::Secret::Raw(rand::random::<[u8; 20]>().to_vec()).to_encoded();
        let totp_rs::Secret::Encoded(b32) = secret else {
            return Err(ApiError::internal("totp secret encoding"));
        };
        let totp = totp_of(&b32, &self.issuer, &account.email)?;
        let uri = totp.get_url();
        let next = TotpRow {
            pending: Some(b32.clone()),
            ..row
        };
        self.totp
            .put(&Key::of(&account.id), &Key::empty(), &next)
            .await?;
        Ok(Enrolment {
            secret: b32,
            qr: qr_svg(&uri)?,
            uri,
        })
    }

    /// `account/2fa/confirm`: turns two-factor on with a code of the pending
    /// secret; answers the recovery codes (shown once).
    pub async fn confirm(
        &self,
        account: &AccountRow,
        code: &str,
        ip: &str,
    ) -> Result<Vec<String>, ApiError> {
        self.lockout.check(&account.id, ip, true).await?;
        let row = self.totp_row(&account.id).await?;
        let (Some(pending), None) = (&row.pending, &row.secret) else {
            return Err(ErrorCode::TwoFactorState.into());
        };
        let totp = totp_of(pending, &self.issuer, &account.email)?;
        let Some(step) = matching_step(&totp, code, self.now_secs(), 0) else {
            self.lockout.failed(Some(&account.id), ip).await?;
            return Err(ErrorCode::TwoFactorCodeError.into());
        };
        let codes = new_recovery_codes();
        let next = TotpRow {
            secret: Some(pending.clone()),
            pending: None,
            last_step: step,
            recovery: codes.iter().map(|c| hash_recovery(c)).collect(),
            enabled_at: now_millis(),
        };
        match self
            .totp
            .compare_and_set(&Key::of(&account.id), &Key::empty(), &row, Some(&next))
            .await?
        {
            Ok(()) => Ok(codes),
            Err(_) => Err(ErrorCode::TwoFactorState.into()),
        }
    }

    /// Accepts a TOTP code or a recovery code of an enabled account, once
    /// (compare-and-set on the row). Wrong codes count in the lockout.
    pub async fn use_code(
        &self,
        account: &AccountRow,
        code: Option<&str>,
        recovery_code: Option<&str>,
        ip: &str,
    ) -> Result<(), ApiError> {
        let pk = Key::of(&account.id);
        loop {
            let row = self.totp_row(&account.id).await?;
            let Some(secret) = &row.secret else {
                return Err(ErrorCode::TwoFactorState.into());
            };
            let mut next = row.clone();
            let ok = match (code, recovery_code) {
                (Some(c), _) => {
                    let totp = totp_of(secret, &self.issuer, &account.email)?;
                    match matching_step(&totp, c, self.now_secs(), row.last_step) {
                        Some(step) => {
                            next.last_step = step;
                            true
                        }
                        None => false,
                    }
                }
                (None, Some(r)) => {
                    let h = hash_recovery(r);
                    let before = next.recovery.len();
                    next.recovery.retain(|x| !same(x, &h));
                    next.recovery.len() < before
                }
                (None, None) => false,
            };
            if !ok {
                self.lockout.failed(Some(&account.id), ip).await?;
                return Err(ErrorCode::TwoFactorCodeError.into());
            }
            match self
                .totp
                .compare_and_set(&pk, &Key::empty(), &row, Some(&next))
                .await?
            {
                Ok(()) => return Ok(()),
                // Changed meanwhile (maybe the same code used at once): retry
                // against the latest row, where it no longer passes.
                Err(_) => continue,
            }
        }
    }

    /// `account/2fa/disable`: password and a code (TOTP or recovery).
    pub async fn disable(
        &self,
        account: &AccountRow,
        password: &str,
        code: Option<&str>,
        recovery_code: Option<&str>,
        ip: &str,
    ) -> Result<(), ApiError> {
        self.reauthenticate(account, password, ip).await?;
        self.use_code(account, code, recovery_code, ip).await?;
        self.totp
            .delete(&Key::of(&account.id), &Key::empty())
            .await?;
        Ok(())
    }

    /// `account/2fa/recovery`: ten new recovery codes (the old ones end);
    /// password and a TOTP code required.
    pub async fn regenerate_recovery(
        &self,
        account: &AccountRow,
        password: &str,
        code: &str,
        ip: &str,
    ) -> Result<Vec<String>, ApiError> {
        self.reauthenticate(account, password, ip).await?;
        self.use_code(account, Some(code), None, ip).await?;
        let codes = new_recovery_codes();
        let hashes: Vec<String> = codes.iter().map(|c| hash_recovery(c)).collect();
        self.totp
            .update(&Key::of(&account.id), &Key::empty(), None, |row| {
                row.recovery = hashes.clone();
            })
            .await?;
        Ok(codes)
    }

    /// Opens the second step of a sign-in whose password was right.
    pub async fn open_challenge(&self, account_id: &str) -> Result<SecondStep, ApiError> {
        let token = hex::encode(rand::random::<[u8; 32]>());
        let row = ChallengeRow {
            account_id: account_id.to_owned(),
            expires_at: self.lockout.now_millis() + CHALLENGE_TTL_SECS * 1000,
            attempts: 0,
        };
        self.challenges
            .put(&Key::of(&hash_token(&token)), &Key::empty(), &row)
            .await?;
        Ok(SecondStep {
            second_step: "totp",
            challenge: token,
            expires_in: CHALLENGE_TTL_SECS,
            methods: ["totp", "recovery"],
        })
    }

    /// `login-in/2fa`: finishes a sign-in with a code; answers the account and token.
    pub async fn finish_challenge(
        &self,
        challenge: &str,
        code: Option<&str>,
        recovery_code: Option<&str>,
        meta: &SessionMeta,
    ) -> Result<(AccountRow, String, bool), ApiError> {
        let expired = || ApiError::new(ErrorCode::TwoFactorChallengeExpired);
        if challenge.is_empty() || challenge.len() > 128 {
            return Err(expired());
        }
        let pk = Key::of(&hash_token(challenge));
        let row = self
            .challenges
            .get(&pk, &Key::empty())
            .await?
            .ok_or_else(expired)?;
        if row.expires_at <= self.lockout.now_millis() || row.attempts >= CHALLENGE_ATTEMPTS {
            self.challenges.delete(&pk, &Key::empty()).await?;
            return Err(expired());
        }
        let ip = &meta.address;
        self.lockout.check(&row.account_id, ip, true).await?;
        let account = self
            .accounts
            .get(&row.account_id)
            .await?
            .ok_or_else(expired)?;
        if let Err(refused) = account.admit() {
            self.challenges.delete(&pk, &Key::empty()).await?;
            return Err(refused);
        }
        if let Err(e) = self.use_code(&account, code, recovery_code, ip).await {
            let mut next = row.clone();
            next.attempts += 1;
            let _ = self
                .challenges
                .compare_and_set(&pk, &Key::empty(), &row, Some(&next))
                .await?;
            return Err(e);
        }
        // Single use: whoever deletes the row finishes the sign-in.
        if self
            .challenges
            .compare_and_set(&pk, &Key::empty(), &row, None)
            .await?
            .is_err()
        {
            return Err(expired());
        }
        let new_device = self.sign_in_is_new(&account.id, meta).await?;
        let token = self.finish_sign_in(&account.id, meta).await?;
        Ok((account, token, new_device))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn totp() -> TOTP {
        totp_of("JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP", "Easel", "a@b.c").unwrap()
    }

    #[test]
    fn accepts_one_step_either_side_and_never_the_same_step_twice() {
        let t = totp();
        let now = 1_700_000_000u64;
        let step = now / STEP_SECS;
        let code = t.generate(now);
        assert_eq!(matching_step(&t, &code, now, 0), Some(step));
        // Used: the same step no longer passes.
        assert_eq!(matching_step(&t, &code, now, step), None);
        let prev = t.generate(now - STEP_SECS);
        assert_eq!(matching_step(&t, &prev, now, 0), Some(step - 1));
        let next = t.generate(now + STEP_SECS);
        assert_eq!(matching_step(&t, &next, now, 0), Some(step + 1));
        let old = t.generate(now - 2 * STEP_SECS);
        assert_eq!(matching_step(&t, &old, now, 0), None);
        assert_eq!(matching_step(&t, "12345", now, 0), None);
        assert_eq!(matching_step(&t, "abcdef", now, 0), None);
    }

    #[test]
    fn rfc6238_sha1_vector() {
        // RFC 6238 appendix B, SHA-1, T = 59 s: 94287082 (8 digits); our
        // 6-digit codes are its last six digits.
        let secret = totp_rs::Secret::Raw(b"12345678901234567890".to_vec()).to_encoded();
        let totp_rs::Secret::Encoded(b32) = secret else {
            panic!("encoded")
        };
        let t = totp_of(&b32, "Easel", "a@b.c").unwrap();
        assert_eq!(t.generate(59), "287082");
    }

    #[test]
    fn recovery_codes_are_random_and_hash_loosely() {
        let codes = new_recovery_codes();
        assert_eq!(codes.len(), RECOVERY_CODES);
        let mut uniq = codes.clone();
        uniq.sort();
        uniq.dedup();
        assert_eq!(uniq.len(), RECOVERY_CODES);
        let c = codes.first().unwrap();
        assert_eq!(c.len(), 11);
        assert_eq!(
            hash_recovery(c),
            hash_recovery(&c.to_uppercase().replace('-', " "))
        );
        assert_ne!(hash_recovery(c), hash_recovery(codes.get(1).unwrap()));
    }

    #[test]
    fn qr_is_an_svg_data_url() {
        let q = qr_svg("otpauth://totp/Easel:a%40b.c?secret=JBSWY3DP&issuer=Easel").unwrap();
        let b64 = q.strip_prefix("data:image/svg+xml;base64,").unwrap();
        let svg = base64::engine::general_purpose::STANDARD
            .decode(b64)
            .unwrap();
        assert!(String::from_utf8(svg).unwrap().contains("<svg"));
    }
}
