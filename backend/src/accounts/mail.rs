//! Outgoing mail: the `Mailer` port, its SMTP adapter (lettre over tokio,
//! rustls) and the settings that configure it (DESIGN.md Contracts:
//! `EASEL_SMTP_HOST`, `EASEL_SMTP_PORT`, `EASEL_SMTP_TLS` none|starttls|tls,
//! `EASEL_SMTP_USER`, `EASEL_SMTP_PASSWORD`, `EASEL_MAIL_FROM`,
//! `EASEL_PUBLIC_URL`). Mails are not sent from request handlers: they go
//! through the outbox (`outbox.rs`).

use std::time::Duration;

use lettre::message::{Mailbox, MultiPart};
use lettre::transport::smtp::authentication::Credentials;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use serde::{Deserialize, Serialize};

/// One mail ready to send.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutgoingMail {
    pub to: String,
    pub subject: String,
    pub text: String,
    pub html: String,
    /// Stable across retries, so a receiver can drop a duplicate.
    pub message_id: String,
}

/// Why a send failed.
#[derive(Debug, thiserror::Error)]
pub enum MailError {
    /// Worth trying again later (4xx answer, connection or timeout).
    #[error("temporary mail failure: {0}")]
    Transient(String),
    /// The server refused for good (5xx answer) or the mail cannot be built.
    #[error("permanent mail failure: {0}")]
    Permanent(String),
}

/// The port every mail goes out through.
#[async_trait::async_trait]
pub trait Mailer: Send + Sync + 'static {
    async fn send(&self, mail: &OutgoingMail) -> Result<(), MailError>;
}

/// How the SMTP connection is secured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SmtpTls {
    /// Plain text (a relay on the same host or a test server).
    None,
    /// Plain connection upgraded with STARTTLS (required).
    StartTls,
    /// TLS from the first byte (SMTPS).
    Tls,
}

impl SmtpTls {
    fn parse(s: &str) -> anyhow::Result<SmtpTls> {
        match s.trim().to_ascii_lowercase().as_str() {
            "none" => Ok(SmtpTls::None),
            "" | "starttls" => Ok(SmtpTls::StartTls),
            "tls" => Ok(SmtpTls::Tls),
            other => anyhow::bail!("EASEL_SMTP_TLS must be none, starttls or tls, not {other:?}"),
        }
    }

    fn default_port(self) -> u16 {
        match self {
            SmtpTls::None => 25,
            SmtpTls::StartTls => 587,
            SmtpTls::Tls => 465,
        }
    }
}

/// The SMTP server and the mails' sender.
#[derive(Debug, Clone)]
pub struct SmtpSettings {
    pub host: String,
    pub port: u16,
    pub tls: SmtpTls,
    /// With a user the client authenticates (PLAIN or LOGIN, as the server offers).
    pub user: Option<String>,
    pub password: String,
}

/// Everything mail needs, from the environment.
#[derive(Debug, Clone)]
pub struct MailSettings {
    /// `None` when `EASEL_SMTP_HOST` is unset: calls that must mail answer MailUnavailable.
    pub smtp: Option<SmtpSettings>,
    /// `EASEL_MAIL_FROM`, e.g. `Easel <no-reply@example.com>`.
    pub from: String,
    /// `EASEL_PUBLIC_URL` without a trailing slash: the base of links in mails.
    pub public_url: String,
    /// `EASEL_VERIFY_CODE_TTL_SECS` (default 600).
    pub code_ttl_secs: i64,
    /// `EASEL_RESET_TOKEN_TTL_SECS` (default 3600).
    pub reset_ttl_secs: i64,
    /// `EASEL_MAIL_SENDS_PER_HOUR`: codes and links per address per hour (default 5).
    pub sends_per_address_hour: u32,
    /// `EASEL_MAIL_SENDS_PER_IP_HOUR`: codes and links per client address per hour (default 30).
    pub sends_per_ip_hour: u32,
    /// `EASEL_MAIL_RETRY_BASE_MS`: the first retry's wait, doubled each time (default 2000).
    pub retry_base_ms: u64,
    /// `EASEL_MAIL_MAX_ATTEMPTS`: sends of one mail before it is dropped (default 12).
    pub max_attempts: u32,
}

fn env(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty())
}

fn env_num<T: std::str::FromStr>(name: &str, default: T) -> anyhow::Result<T> {
    match env(name) {
        Some(v) => v
            .parse()
            .map_err(|_| anyhow::anyhow!("{name} must be a number, not {v:?}")),
        None => Ok(default),
    }
}

impl MailSettings {
    pub fn from_env(listen_addr: &str) -> anyhow::Result<MailSettings> {
        let smtp = match env("EASEL_SMTP_HOST") {
            Some(host) => {
                let tls = SmtpTls::parse(&env("EASEL_SMTP_TLS").unwrap_or_default())?;
                Some(SmtpSettings {
                    host,
                    port: env_num("EASEL_SMTP_PORT", tls.default_port())?,
                    tls,
                    user: env("EASEL_SMTP_USER"),
                    password: std::env::var("EASEL_SMTP_PASSWORD").unwrap_or_default(),
                })
            }
            None => None,
        };
        let from = env("EASEL_MAIL_FROM").unwrap_or_else(|| "Easel <no-reply@localhost>".into());
        from.parse::<Mailbox>()
            .map_err(|e| anyhow::anyhow!("EASEL_MAIL_FROM {from:?}: {e}"))?;
        let public_url = env("EASEL_PUBLIC_URL")
            .unwrap_or_else(|| format!("http://{listen_addr}"))
            .trim_end_matches('/')
            .to_owned();
        if !(public_url.starts_with("http://") || public_url.starts_with("https://")) {
            anyhow::bail!("EASEL_PUBLIC_URL must be an http(s) URL, not {public_url:?}");
        }
        Ok(MailSettings {
            smtp,
            from,
            public_url,
            code_ttl_secs: env_num("EASEL_VERIFY_CODE_TTL_SECS", 600i64)?.max(1),
            reset_ttl_secs: env_num("EASEL_RESET_TOKEN_TTL_SECS", 3600i64)?.max(1),
            sends_per_address_hour: env_num("EASEL_MAIL_SENDS_PER_HOUR", 5u32)?.max(1),
            sends_per_ip_hour: env_num("EASEL_MAIL_SENDS_PER_IP_HOUR", 30u32)?.max(1),
            retry_base_ms: env_num("EASEL_MAIL_RETRY_BASE_MS", 2000u64)?.max(10),
            max_attempts: env_num("EASEL_MAIL_MAX_ATTEMPTS", 12u32)?.max(1),
        })
    }
}

/// The SMTP adapter.
pub struct SmtpMailer {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
}

impl SmtpMailer {
    pub fn new(smtp: &SmtpSettings, from: &str) -> anyhow::Result<SmtpMailer> {
        let builder = match smtp.tls {
            SmtpTls::None => AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(&smtp.host),
            SmtpTls::StartTls => AsyncSmtpTransport::<Tokio1Executor>::starttls_relay(&smtp.host)?,
            SmtpTls::Tls => AsyncSmtpTransport::<Tokio1Executor>::relay(&smtp.host)?,
        };
        let mut builder = builder
            .port(smtp.port)
            .timeout(Some(Duration::from_secs(30)));
        if let Some(user) = &smtp.user {
            builder = builder.credentials(Credentials::new(user.clone(), smtp.password.clone()));
        }
        Ok(SmtpMailer {
            transport: builder.build(),
            from: from.parse()?,
        })
    }
}

fn build_message(from: &Mailbox, mail: &OutgoingMail) -> Result<Message, MailError> {
    let to: Mailbox = mail
        .to
        .parse()
        .map_err(|e| MailError::Permanent(format!("recipient {:?}: {e}", mail.to)))?;
    Message::builder()
        .from(from.clone())
        .to(to)
        .subject(mail.subject.clone())
        .message_id(Some(mail.message_id.clone()))
        .multipart(MultiPart::alternative_plain_html(
            mail.text.clone(),
            mail.html.clone(),
        ))
        .map_err(|e| MailError::Permanent(e.to_string()))
}

#[async_trait::async_trait]
impl Mailer for SmtpMailer {
    async fn send(&self, mail: &OutgoingMail) -> Result<(), MailError> {
        let message = build_message(&self.from, mail)?;
        match self.transport.send(message).await {
            Ok(_) => Ok(()),
            Err(e) if e.is_permanent() => Err(MailError::Permanent(e.to_string())),
            Err(e) => Err(MailError::Transient(e.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn tls_modes_parse_and_pick_their_ports() {
        assert_eq!(SmtpTls::parse("none").unwrap(), SmtpTls::None);
        assert_eq!(SmtpTls::parse("STARTTLS").unwrap(), SmtpTls::StartTls);
        assert_eq!(SmtpTls::parse("").unwrap(), SmtpTls::StartTls);
        assert_eq!(SmtpTls::parse("tls").unwrap(), SmtpTls::Tls);
        assert!(SmtpTls::parse("ssl3").is_err());
        assert_eq!(SmtpTls::Tls.default_port(), 465);
    }

    #[test]
    fn a_message_carries_both_parts_and_its_id() {
        let from: Mailbox = "Easel <no-reply@example.com>".parse().unwrap();
        let mail = OutgoingMail {
            to: "a@example.com".into(),
            subject: "Hi".into(),
            text: "plain".into(),
            html: "<p>html</p>".into(),
            message_id: "<x1@easel>".into(),
        };
        let raw = String::from_utf8(build_message(&from, &mail).unwrap().formatted()).unwrap();
        assert!(raw.contains("text/plain"));
        assert!(raw.contains("text/html"));
        assert!(raw.contains("Message-ID: <x1@easel>"));
        let bad = OutgoingMail {
            to: "not an address".into(),
            ..mail
        };
        assert!(matches!(
            build_message(&from, &bad),
            Err(MailError::Permanent(_))
        ));
    }
}
