//! The account mails' texts, plain and HTML, in the web app's languages
//! (English and Chinese). Every value put into HTML is escaped.

/// A language the mails are written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MailLocale {
    En,
    Zh,
}

impl MailLocale {
    /// The first supported language of a locale tag or an Accept-Language
    /// header (`zh-CN,zh;q=0.9,en;q=0.8`); English otherwise.
    pub fn pick(tag: Option<&str>) -> MailLocale {
        for part in tag.unwrap_or("").split(',') {
            let lang = part
                .split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase();
            if lang.starts_with("zh") {
                return MailLocale::Zh;
            }
            if lang.starts_with("en") {
                return MailLocale::En;
            }
        }
        MailLocale::En
    }

    /// The web app's route prefix (its locale codes: `en`, `zhCN`).
    pub fn path(self) -> &'static str {
        match self {
            MailLocale::En => "en",
            MailLocale::Zh => "zhCN",
        }
    }

    /// The HTML `lang` tag.
    pub fn tag(self) -> &'static str {
        match self {
            MailLocale::En => "en",
            MailLocale::Zh => "zh-CN",
        }
    }
}

/// One rendered mail: subject, plain text, HTML.
#[derive(Debug, Clone, PartialEq)]
pub struct Rendered {
    pub subject: String,
    pub text: String,
    pub html: String,
}

/// Escapes text for HTML content and quoted attribute values.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn html(lang: MailLocale, paragraphs: &[String]) -> String {
    let body: String = paragraphs.iter().map(|p| format!("<p>{p}</p>\n")).collect();
    format!(
        "<!doctype html>\n<html lang=\"{}\"><body style=\"font-family:sans-serif\">\n{body}</body></html>\n",
        lang.tag()
    )
}

/// A verification code, for the account's own address or a new one.
pub fn verify_code(lang: MailLocale, code: &str, minutes: i64, change: bool) -> Rendered {
    let (subject, intro, hint) = match (lang, change) {
        (MailLocale::En, false) => (
            format!("Your Easel verification code: {code}"),
            "Enter this code to verify your e-mail address:".to_owned(),
            format!("It expires in {minutes} minutes. If you did not sign up, ignore this mail."),
        ),
        (MailLocale::En, true) => (
            format!("Confirm your new Easel e-mail address: {code}"),
            "Enter this code to make this your account's e-mail address:".to_owned(),
            format!(
                "It expires in {minutes} minutes. If you did not ask for this, ignore this mail."
            ),
        ),
        (MailLocale::Zh, false) => (
            format!("您的 Easel 验证码：{code}"),
            "请输入以下验证码以验证您的邮箱：".to_owned(),
            format!("验证码 {minutes} 分钟内有效。如果您没有注册，请忽略此邮件。"),
        ),
        (MailLocale::Zh, true) => (
            format!("确认您的新 Easel 邮箱：{code}"),
            "请输入以下验证码，将此邮箱设为您账户的邮箱：".to_owned(),
            format!("验证码 {minutes} 分钟内有效。如果不是您本人操作，请忽略此邮件。"),
        ),
    };
    Rendered {
        text: format!("{intro}\n\n    {code}\n\n{hint}\n"),
        html: html(
            lang,
            &[
                esc(&intro),
                format!(
                    "<strong style=\"font-size:24px;letter-spacing:4px\">{}</strong>",
                    esc(code)
                ),
                esc(&hint),
            ],
        ),
        subject,
    }
}

/// A password reset link.
pub fn reset_link(lang: MailLocale, url: &str, minutes: i64) -> Rendered {
    let (subject, intro, action, hint) = match lang {
        MailLocale::En => (
            "Reset your Easel password",
            "Someone asked to reset the password of the Easel account with this address. Open this link to choose a new password:",
            "Reset password",
            format!("The link works once, for {minutes} minutes. If you did not ask, ignore this mail: your password stays as it is."),
        ),
        MailLocale::Zh => (
            "重置您的 Easel 密码",
            "有人请求重置使用此邮箱的 Easel 账户的密码。打开以下链接设置新密码：",
            "重置密码",
            format!("链接只能使用一次，{minutes} 分钟内有效。如果不是您本人操作，请忽略此邮件，您的密码不会改变。"),
        ),
    };
    Rendered {
        subject: subject.to_owned(),
        text: format!("{intro}\n\n{url}\n\n{hint}\n"),
        html: html(
            lang,
            &[
                esc(intro),
                format!("<a href=\"{}\">{}</a>", esc(url), esc(action)),
                esc(url),
                esc(&hint),
            ],
        ),
    }
}

/// To the old address after the account's address changed.
pub fn email_changed(lang: MailLocale, new_email: &str) -> Rendered {
    let (subject, line) = match lang {
        MailLocale::En => (
            "Your Easel e-mail address was changed",
            format!("The e-mail address of your Easel account is now {new_email}. If you did not do this, reset your password and contact the operator."),
        ),
        MailLocale::Zh => (
            "您的 Easel 邮箱已更改",
            format!("您的 Easel 账户邮箱已改为 {new_email}。如果不是您本人操作，请重置密码并联系运营方。"),
        ),
    };
    Rendered {
        subject: subject.to_owned(),
        text: format!("{line}\n"),
        html: html(lang, &[esc(&line)]),
    }
}

/// A sign-in from a device or browser the account had not used, with a
/// link to the sessions page (where it can be signed out).
pub fn new_sign_in(lang: MailLocale, device: &str, address: &str, sessions_url: &str) -> Rendered {
    let (subject, line, link) = match lang {
        MailLocale::En => (
            "New sign-in to your Easel account",
            format!("Your Easel account was just signed in from a new device: {device}, address {address}. If this was you, nothing needs to be done."),
            "If it was not you, sign that session out and change your password:",
        ),
        MailLocale::Zh => (
            "您的 Easel 账户有新的登录",
            format!("您的 Easel 账户刚刚在新设备上登录：{device}，地址 {address}。如果是您本人，无需任何操作。"),
            "如果不是您本人，请退出该会话并修改密码：",
        ),
    };
    Rendered {
        subject: subject.to_owned(),
        text: format!(
            "{line}

{link}
{sessions_url}
"
        ),
        html: html(
            lang,
            &[
                esc(&line),
                format!(
                    "{} <a href=\"{}\">{}</a>",
                    esc(link),
                    esc(sessions_url),
                    esc(sessions_url)
                ),
            ],
        ),
    }
}

/// After the password changed (by the owner or a reset link).
pub fn password_changed(lang: MailLocale) -> Rendered {
    let (subject, line) = match lang {
        MailLocale::En => (
            "Your Easel password was changed",
            "The password of your Easel account was changed and its other sessions were signed out. If you did not do this, reset your password now.",
        ),
        MailLocale::Zh => (
            "您的 Easel 密码已更改",
            "您的 Easel 账户密码已更改，其他会话均已退出。如果不是您本人操作，请立即重置密码。",
        ),
    };
    Rendered {
        subject: subject.to_owned(),
        text: format!("{line}\n"),
        html: html(lang, &[esc(line)]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locales_are_picked_from_tags_and_headers() {
        assert_eq!(MailLocale::pick(Some("zh-CN,zh;q=0.9")), MailLocale::Zh);
        assert_eq!(MailLocale::pick(Some("fr-FR, en;q=0.5")), MailLocale::En);
        assert_eq!(MailLocale::pick(Some("de")), MailLocale::En);
        assert_eq!(MailLocale::pick(None), MailLocale::En);
    }

    #[test]
    fn html_is_escaped_and_both_languages_render() {
        let r = reset_link(
            MailLocale::En,
            "https://x.example/en/reset?token=a&b=<script>",
            60,
        );
        assert!(!r.html.contains("<script>"));
        assert!(r.html.contains("&lt;script&gt;"));
        assert!(r
            .html
            .contains("href=\"https://x.example/en/reset?token=a&amp;b=&lt;script&gt;\""));
        assert!(r.text.contains("token=a&b=<script>"));
        let z = verify_code(MailLocale::Zh, "123456", 10, false);
        assert!(z.subject.contains("123456") && z.text.contains("分钟"));
        let c = email_changed(MailLocale::En, "<b>@x.example");
        assert!(c.html.contains("&lt;b&gt;") && !c.html.contains("<b>"));
    }
}
