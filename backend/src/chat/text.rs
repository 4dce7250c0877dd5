//! The model's free text turned into what the chat shows: reply
//! suggestions (one per line, markers and quotes removed) and a polished
//! draft (outer quotes removed, cut to the message limit).

use super::SUGGESTION_CHARS;

/// Up to three reply suggestions from a model's free text: one per line,
/// list markers, numbering and quotes removed, headers ("Here are...:")
/// and duplicates skipped, each cut to [`SUGGESTION_CHARS`].
pub fn parse_suggestions(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in text.lines() {
        let mut l = line.trim();
        // "1.", "2)", "-", "*", "•" markers.
        let digits = l.chars().take_while(char::is_ascii_digit).count();
        if digits > 0 && digits <= 2 {
            if let Some(rest) = l
                .get(digits..)
                .and_then(|r| r.strip_prefix('.').or_else(|| r.strip_prefix(')')))
            {
                l = rest.trim_start();
            }
        }
        let l = l
            .trim_start_matches(|c: char| matches!(c, '-' | '*' | '•') || c.is_whitespace())
            .trim_matches(|c| matches!(c, '"' | '“' | '”' | '\'' | '`' | '*'))
            .trim();
        if l.is_empty() || l.ends_with(':') {
            continue;
        }
        let cut: String = l.chars().take(SUGGESTION_CHARS).collect();
        if !out.iter().any(|o| o.eq_ignore_ascii_case(&cut)) {
            out.push(cut);
        }
        if out.len() == 3 {
            break;
        }
    }
    out
}

/// A polished draft from a model's answer: trimmed, outer quotes removed,
/// cut to the message limit; `None` when nothing is left.
pub fn clean_polished(text: &str) -> Option<String> {
    let t = text.trim();
    let t = match (t.chars().next(), t.chars().last()) {
        (Some(a), Some(b))
            if t.chars().count() >= 2 && matches!((a, b), ('"', '"') | ('“', '”')) =>
        {
            let inner: Vec<char> = t.chars().collect();
            inner
                .get(1..inner.len() - 1)
                .map(|c| c.iter().collect::<String>())
                .unwrap_or_default()
        }
        _ => t.to_owned(),
    };
    let t: String = t
        .trim()
        .chars()
        .take(protocol::chat::MAX_CHAT_MESSAGE_CHARS)
        .collect();
    (!t.is_empty()).then_some(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_are_parsed_from_odd_output() {
        assert_eq!(
            parse_suggestions(
                "Here are three replies:\n1. \"Who are you?\"\n2) Tell me more.\n- *waves*\n4. extra"
            ),
            vec!["Who are you?", "Tell me more.", "waves"]
        );
        assert_eq!(parse_suggestions(""), Vec::<String>::new());
        assert_eq!(parse_suggestions("\n\n  \n:::\n"), Vec::<String>::new());
        assert_eq!(
            parse_suggestions("same\nSame\nother"),
            vec!["same", "other"]
        );
        assert_eq!(
            parse_suggestions("2024 was a year"),
            vec!["2024 was a year"]
        );
        let long = "x".repeat(500);
        assert_eq!(
            parse_suggestions(&long)[0].chars().count(),
            SUGGESTION_CHARS
        );
        assert_eq!(parse_suggestions("“Hi”\n•   Bye"), vec!["Hi", "Bye"]);
    }

    #[test]
    fn polished_text_is_cleaned() {
        assert_eq!(
            clean_polished("  \"Hello there.\" \n"),
            Some("Hello there.".into())
        );
        assert_eq!(clean_polished("“Hi”"), Some("Hi".into()));
        assert_eq!(clean_polished("\"\""), None);
        assert_eq!(clean_polished("   "), None);
        assert_eq!(clean_polished("\""), Some("\"".into()));
        assert_eq!(
            clean_polished(&"a".repeat(5000)).map(|s| s.len()),
            Some(4000)
        );
    }
}
