//! A real SMTP server for the tests: `smtp_server.py` (Python's aiosmtpd
//! from PyPI, in `.venv-test`; `scripts/lib.sh` installs it) on a free
//! port, and readers of the mails it received.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

#[derive(Debug, Clone, serde::Deserialize)]
pub struct Mail {
    pub to: Vec<String>,
    pub from: String,
    pub subject: String,
    pub message_id: String,
    pub text: String,
    pub html: String,
}

pub struct SmtpServer {
    pub port: u16,
    dir: tempfile::TempDir,
    child: Child,
}

fn python() -> PathBuf {
    std::env::var_os("EASEL_TEST_SMTP_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../.venv-test/bin/python"
            ))
        })
}

impl SmtpServer {
    /// Starts the server; it refuses the first `refuse_first` mails with 451.
    pub fn start(refuse_first: u32) -> SmtpServer {
        SmtpServer::start_on(0, refuse_first)
    }

    /// Starts the server on `port` (0: a free one).
    pub fn start_on(port: u16, refuse_first: u32) -> SmtpServer {
        let dir = tempfile::tempdir().unwrap();
        let mut child = Command::new(python())
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/api/smtp_server.py"))
            .arg(dir.path())
            .arg(refuse_first.to_string())
            .arg(port.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start the SMTP server (python with aiosmtpd: scripts/lib.sh installs it into .venv-test)");
        let stdout = child.stdout.take().unwrap();
        let line = BufReader::new(stdout)
            .lines()
            .next()
            .expect("the SMTP server printed nothing")
            .unwrap();
        let port = line
            .strip_prefix("PORT ")
            .and_then(|p| p.trim().parse().ok())
            .expect("PORT line");
        SmtpServer { port, dir, child }
    }

    /// The app settings that send mail here (plain SMTP, no TLS).
    pub fn env(&self) -> Vec<(String, String)> {
        vec![
            ("EASEL_SMTP_HOST".into(), "127.0.0.1".into()),
            ("EASEL_SMTP_PORT".into(), self.port.to_string()),
            ("EASEL_SMTP_TLS".into(), "none".into()),
            (
                "EASEL_MAIL_FROM".into(),
                "Easel <no-reply@easel.test>".into(),
            ),
            ("EASEL_PUBLIC_URL".into(), "https://easel.test".into()),
        ]
    }

    /// Every mail received so far, in order.
    pub fn mails(&self) -> Vec<Mail> {
        let mut files: Vec<(u64, PathBuf)> = std::fs::read_dir(self.dir.path())
            .unwrap()
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                let p = e.path();
                let n = p.file_stem()?.to_str()?.parse().ok()?;
                (p.extension()? == "json").then_some((n, p))
            })
            .collect();
        files.sort();
        files
            .into_iter()
            .map(|(_, p)| serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap())
            .collect()
    }

    /// How many mails the server refused so far.
    pub fn refused(&self) -> usize {
        std::fs::read_dir(self.dir.path())
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().starts_with("refused-"))
            .count()
    }

    /// Mails to `to`.
    pub fn mails_to(&self, to: &str) -> Vec<Mail> {
        self.mails()
            .into_iter()
            .filter(|m| m.to.iter().any(|t| t == to))
            .collect()
    }

    /// Waits (up to `within`) until `to` has received `n` mails; returns the n-th.
    pub async fn wait_nth(&self, to: &str, n: usize, within: Duration) -> Mail {
        let start = Instant::now();
        loop {
            let mails = self.mails_to(to);
            if mails.len() >= n {
                return mails[n - 1].clone();
            }
            assert!(
                start.elapsed() < within,
                "no mail #{n} to {to} (have {})",
                mails.len()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

impl Drop for SmtpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The 6-digit code in a verification mail.
pub fn code_in(mail: &Mail) -> String {
    mail.text
        .split_whitespace()
        .find(|w| w.len() == 6 && w.bytes().all(|b| b.is_ascii_digit()))
        .expect("a 6-digit code in the mail")
        .to_owned()
}

/// The reset token in a reset mail's link.
pub fn token_in(mail: &Mail) -> (String, String) {
    let url = mail
        .text
        .split_whitespace()
        .find(|w| w.contains("/reset?token="))
        .expect("a reset link in the mail")
        .to_owned();
    let token = url.split("token=").nth(1).unwrap().to_owned();
    (url, token)
}
