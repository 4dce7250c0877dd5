//! The translation thresholds of spec 1 §5 and spec 3 §5 as pure functions:
//! text over 50 % Chinese is translated to English; text under 5 % Chinese is
//! given a translation into the user's language, for normal words only.
//!
//! How the share is counted: Chinese characters (Han ideographs) divided by
//! the *letters* of the text, where a letter is any alphabetic character in
//! any script (Latin, Cyrillic, Han, kana, Hangul, Thai, ...). Spaces, digits,
//! punctuation, emoji and weight syntax (`(word:1.2)`) count for nothing, so
//! `(猫:1.2)` is 100 % Chinese and `1girl, 猫` is 20 % (four Latin letters, one Han). Counting characters,
//! not words, matches how the threshold reads for mixed text: one Chinese
//! character weighs as much as one Latin letter, so `cat 猫` (3 + 1) is 25 %.
//! Japanese kana are letters but not Chinese, so Japanese text with a few
//! kanji stays below 50 % and is not sent to a Chinese→English translation.

use serde::Serialize;

/// Over this share of Chinese, text is translated to English.
pub const TO_ENGLISH_ABOVE: f64 = 0.5;
/// Under this share of Chinese, text is given a translation (normal words).
pub const GIVE_TRANSLATION_BELOW: f64 = 0.05;

/// Whether `c` is a Han ideograph (CJK Unified Ideographs, extensions A–H,
/// compatibility ideographs).
pub fn is_han(c: char) -> bool {
    matches!(c as u32,
        0x3400..=0x4DBF
        | 0x4E00..=0x9FFF
        | 0xF900..=0xFAFF
        | 0x20000..=0x2A6DF
        | 0x2A700..=0x2EBEF
        | 0x2F800..=0x2FA1F
        | 0x30000..=0x323AF)
}

/// The share of Chinese among the letters of `text` (see the module doc), or
/// `None` when the text has no letters at all (nothing to translate).
pub fn chinese_share(text: &str) -> Option<f64> {
    let (mut han, mut letters) = (0usize, 0usize);
    for c in text.chars() {
        if is_han(c) {
            han += 1;
            letters += 1;
        } else if c.is_alphabetic() {
            letters += 1;
        }
    }
    (letters > 0).then(|| han as f64 / letters as f64)
}

/// What kind of text is being translated: the prompt word's list type, or
/// free text such as a comment (spec 3 §5: translated only when mostly Chinese).
#[derive(
    utoipa::ToSchema, Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize, Serialize,
)]
#[serde(rename_all = "lowercase")]
pub enum TextKind {
    #[default]
    Normal,
    Style,
    Quality,
    Command,
    /// A negative word (the spec's subType `eg`).
    #[serde(alias = "negative")]
    Eg,
    /// Comments, titles and other free text.
    #[serde(alias = "text")]
    Comment,
}

/// What to do with one text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Plan {
    /// Mostly Chinese: translate to English (the prompt the engine reads).
    ToEnglish,
    /// Hardly any Chinese: give a translation into the user's language (shown
    /// beside the word).
    ToLocal,
    /// Mixed text, a command, no letters, or nothing to give: leave it.
    Keep,
}

/// The spec's rule. `target` is the user's language: giving an English word
/// an "English translation" is nothing, so `ToLocal` needs a non-English
/// target. Commands (`--ar 3:4`, or a long dash) are parameters, not words,
/// and are never translated.
pub fn plan(text: &str, kind: TextKind, target: super::Lang) -> Plan {
    let t = text.trim_start();
    if kind == TextKind::Command || t.starts_with("--") || t.starts_with('\u{2014}') {
        return Plan::Keep;
    }
    let Some(share) = chinese_share(text) else {
        return Plan::Keep;
    };
    if share > TO_ENGLISH_ABOVE {
        Plan::ToEnglish
    } else if share < GIVE_TRANSLATION_BELOW
        && kind == TextKind::Normal
        && target != super::Lang::En
    {
        Plan::ToLocal
    } else {
        Plan::Keep
    }
}

#[cfg(test)]
mod tests {
    use super::super::Lang;
    use super::*;

    #[test]
    fn share_counts_letters_only() {
        assert_eq!(chinese_share("猫"), Some(1.0));
        assert_eq!(chinese_share("(猫:1.2)"), Some(1.0));
        assert_eq!(chinese_share("cat 猫"), Some(0.25));
        assert_eq!(chinese_share("1girl, 猫"), Some(0.2));
        assert_eq!(chinese_share("hello"), Some(0.0));
        assert_eq!(chinese_share("1234, !?"), None);
        assert_eq!(chinese_share(""), None);
        // Kana are letters, not Chinese.
        assert_eq!(chinese_share("ねこ猫"), Some(1.0 / 3.0));
        // Hangul is not Chinese.
        assert_eq!(chinese_share("고양이"), Some(0.0));
    }

    #[test]
    fn thresholds_table() {
        use Plan::*;
        use TextKind::*;
        let cases: &[(&str, TextKind, Lang, Plan)] = &[
            ("一个女孩", Normal, Lang::De, ToEnglish),
            ("一个女孩", Style, Lang::En, ToEnglish),
            ("一个女孩", Comment, Lang::ZhCN, ToEnglish),
            // exactly 50 % is not "over 50 %"
            ("ab猫狗", Normal, Lang::ZhCN, Keep),
            ("a猫狗", Normal, Lang::ZhCN, ToEnglish),
            ("a girl", Normal, Lang::ZhCN, ToLocal),
            ("a girl", Normal, Lang::En, Keep),
            ("a girl", Style, Lang::ZhCN, Keep),
            ("a girl", Eg, Lang::ZhCN, Keep),
            ("a girl", Comment, Lang::ZhCN, Keep),
            // 1 of 20 letters = 5 %: not under 5 %
            ("abcdefghijklmnopqrs猫", Normal, Lang::ZhCN, Keep),
            // 1 of 21 letters < 5 %
            ("abcdefghijklmnopqrst猫", Normal, Lang::ZhCN, ToLocal),
            ("red dress 红", Normal, Lang::ZhCN, Keep),
            ("--ar 3:4", Normal, Lang::ZhCN, Keep),
            ("\u{2014}niji 猫猫猫", Normal, Lang::ZhCN, Keep),
            ("猫", Command, Lang::ZhCN, Keep),
            ("1234", Normal, Lang::ZhCN, Keep),
        ];
        for (text, kind, lang, want) in cases {
            assert_eq!(
                plan(text, *kind, *lang),
                *want,
                "{text:?} {kind:?} {lang:?}"
            );
        }
    }
}
