//! Target rules, table-tested with the tricky cases of open redirects.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use super::*;

fn rules() -> TargetRules {
    let allowed = vec![
        "cdn.example.com".to_owned(),
        "*.partner.org".to_owned(),
        "BÜCHER.example".to_owned(),
        "*.".to_owned(),
        "*.1.2".to_owned(),
    ];
    let (r, ignored) = TargetRules::new("https://easel.example", &allowed).unwrap();
    assert_eq!(ignored, vec!["*.".to_owned(), "*.1.2".to_owned()]);
    r
}

#[test]
fn targets_table() {
    let r = rules();
    let ok: &[(&str, &str)] = &[
        (
            "https://easel.example/works/1",
            "https://easel.example/works/1",
        ),
        (
            "HTTPS://EASEL.EXAMPLE/a?b=c#d",
            "https://easel.example/a?b=c#d",
        ),
        ("/works/42?x=1", "https://easel.example/works/42?x=1"),
        ("http://easel.example/x", "http://easel.example/x"),
        (
            "https://cdn.example.com/img.png",
            "https://cdn.example.com/img.png",
        ),
        ("https://a.b.partner.org/", "https://a.b.partner.org/"),
        // The allowed IDN host, written in Unicode or punycode.
        ("https://bücher.example/", "https://xn--bcher-kva.example/"),
        (
            "https://xn--bcher-kva.example/",
            "https://xn--bcher-kva.example/",
        ),
        (
            "  https://easel.example/trim  ",
            "https://easel.example/trim",
        ),
    ];
    for (raw, want) in ok {
        assert_eq!(
            r.check(raw).map(|u| u.to_string()).as_deref(),
            Ok(*want),
            "{raw}"
        );
    }
    let invalid: &[&str] = &[
        "",
        "javascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "file:///etc/passwd",
        "ftp://easel.example/x",
        "works/1",
        "https://user:pw@easel.example/",
        "https://easel.example@evil.example/",
        "https://cdn.example.com:x@evil.example/",
    ];
    for raw in invalid {
        assert!(
            matches!(r.check(raw), Err(TargetError::Invalid(_))),
            "{raw}: {:?}",
            r.check(raw)
        );
    }
    let refused: &[(&str, &str)] = &[
        ("https://evil.example/", "evil.example"),
        ("//evil.example/x", "evil.example"),
        ("/\\evil.example/x", "evil.example"),
        // The backslash is a slash for http(s): the host is evil.example.
        ("https://evil.example\\@easel.example/", "evil.example"),
        (
            "https://easel.example.evil.example/",
            "easel.example.evil.example",
        ),
        ("https://evileasel.example/", "evileasel.example"),
        ("https://partner.org/", "partner.org"),
        ("https://notpartner.org/", "notpartner.org"),
        (
            "https://cdn.example.com.evil.example/",
            "cdn.example.com.evil.example",
        ),
        // Another port of our own host is another service.
        ("https://easel.example:8443/", "easel.example"),
        // Cyrillic "о"s: a look-alike of an allowed-looking host.
        ("https://cdn.exаmple.com/", "cdn.xn--exmple-4nf.com"),
        ("https://bücher.example.evil/", "xn--bcher-kva.example.evil"),
        // IPv4 forms are normalised before the comparison.
        ("http://0x7f.1/", "127.0.0.1"),
        ("http://2130706433/", "127.0.0.1"),
        ("http://[::1]/", "[::1]"),
    ];
    for (raw, host) in refused {
        assert_eq!(
            r.check(raw),
            Err(TargetError::HostRefused((*host).to_owned())),
            "{raw}"
        );
    }
    let long = format!("https://easel.example/{}", "a".repeat(MAX_URL_CHARS));
    assert_eq!(
        r.check(&long),
        Err(TargetError::Invalid("the URL is too long"))
    );
}

#[test]
fn the_own_host_with_a_port_and_a_bad_public_url() {
    let (r, _) = TargetRules::new("http://127.0.0.1:8080", &[]).unwrap();
    assert!(r.check("http://127.0.0.1:8080/s").is_ok());
    assert!(r.check("http://127.0.0.1/s").is_err());
    assert!(r.check("http://127.0.0.1:8081/s").is_err());
    assert!(TargetRules::new("not a url", &[]).is_err());
    assert!(TargetRules::new("mailto:x@example.com", &[]).is_err());
}

#[test]
fn codes_and_expiry() {
    assert!(code_ok("aZ09bY18"));
    assert!(!code_ok("aZ09bY1"));
    assert!(!code_ok("aZ09bY1-"));
    assert!(!code_ok("aZ09bY1é"));
    assert!(!expired(1000, 999));
    assert!(expired(1000, 1000));
}
