//! The SMS port (`SmsSender`) and its HTTP adapter, written to Twilio's
//! Messages API: `POST {url}/2010-04-01/Accounts/{AccountSid}/Messages.json`
//! with HTTP basic auth (account SID, auth token), a form body `To`, `From`
//! (or `MessagingServiceSid` for an `MG...` sender) and `Body`; success is a
//! 2xx with the message's JSON (`sid`, `status`), failure a 4xx/5xx with
//! Twilio's error JSON (`code`, `message`, `more_info`, `status`).

use std::time::Duration;

use infra::config::SmsSettings;
use serde::Deserialize;

/// Why a message was not sent.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum SmsError {
    /// The provider answered with an error (its code and message).
    #[error("provider refused ({status}): {code:?} {message}")]
    Refused {
        status: u16,
        code: Option<i64>,
        message: String,
    },
    /// No answer in time, or the connection failed.
    #[error("provider unreachable: {0}")]
    Unreachable(String),
    /// An answer that is not the documented JSON.
    #[error("provider answered something unreadable: {0}")]
    BadAnswer(String),
}

/// Sends one text message to an E.164 number; answers the provider's id.
#[async_trait::async_trait]
pub trait SmsSender: Send + Sync {
    async fn send(&self, to_e164: &str, body: &str) -> Result<String, SmsError>;
}

/// Twilio-style Messages API client.
pub struct TwilioSms {
    http: reqwest::Client,
    url: String,
    account_sid: String,
    auth_token: String,
    from: String,
}

/// The documented success answer (only what we read).
#[derive(Deserialize)]
struct MessageAnswer {
    sid: String,
}

/// The documented error answer.
#[derive(Deserialize)]
struct ErrorAnswer {
    #[serde(default)]
    code: Option<i64>,
    #[serde(default)]
    message: String,
}

impl TwilioSms {
    /// The adapter for configured settings; `None` when SMS is not configured.
    pub fn from_settings(s: &SmsSettings) -> Option<TwilioSms> {
        if !s.enabled() {
            return None;
        }
        let http = reqwest::Client::builder()
            .timeout(Duration::from_millis(s.timeout_ms.max(1)))
            .build()
            .ok()?;
        Some(TwilioSms {
            http,
            url: s.url.trim_end_matches('/').to_owned(),
            account_sid: s.account_sid.clone(),
            auth_token: s
                .auth_token
                .as_ref()
                .map(|t| t.expose().to_owned())
                .unwrap_or_default(),
            from: s.from.clone(),
        })
    }

    fn form(&self, to: &str, body: &str) -> Result<String, SmsError> {
        // A messaging service SID goes in its own field (Twilio's API).
        let from_key = if self.from.starts_with("MG") {
            "MessagingServiceSid"
        } else {
            "From"
        };
        serde_urlencoded::to_string([("To", to), (from_key, self.from.as_str()), ("Body", body)])
            .map_err(|e| SmsError::BadAnswer(e.to_string()))
    }
}

#[async_trait::async_trait]
impl SmsSender for TwilioSms {
    async fn send(&self, to_e164: &str, body: &str) -> Result<String, SmsError> {
        let url = format!(
            "{}/2010-04-01/Accounts/{}/Messages.json",
            self.url, self.account_sid
        );
        let resp = self
            .http
            .post(url)
            .basic_auth(&self.account_sid, Some(&self.auth_token))
            .header(
                reqwest::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            )
            .body(self.form(to_e164, body)?)
            .send()
            .await
            .map_err(|e| SmsError::Unreachable(e.to_string()))?;
        let status = resp.status();
        let bytes = resp
            .bytes()
            .await
            .map_err(|e| SmsError::Unreachable(e.to_string()))?;
        if status.is_success() {
            let m: MessageAnswer =
                serde_json::from_slice(&bytes).map_err(|e| SmsError::BadAnswer(e.to_string()))?;
            return Ok(m.sid);
        }
        let (code, message) = match serde_json::from_slice::<ErrorAnswer>(&bytes) {
            Ok(e) => (e.code, e.message),
            Err(_) => (
                None,
                String::from_utf8_lossy(&bytes).chars().take(200).collect(),
            ),
        };
        Err(SmsError::Refused {
            status: status.as_u16(),
            code,
            message,
        })
    }
}
