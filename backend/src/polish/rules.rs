//! The content rule behind polish code 70020 and the agent: a small, fixed
//! deny-list against sexual content involving minors.
//!
//! It is deliberately simple and honest about it: a floor that refuses the
//! obvious requests, not a moderation system. Text is normalised (full-width
//! ASCII folded to ASCII, lower-cased), split into words at every character
//! that is not a letter or digit, and matched word by word (so "kidney" and
//! "skidding" are not "kid"). A text violates the rule when it
//! - names an always-refused term (`lolicon`, `csam`, `jailbait`...), or
//! - names both a minor (`child`, `underage`, `little girl`...) and a sexual
//!   term (`nude`, `porn`, `nsfw`...).
//!
//! Either list alone is ordinary ("a child flying a kite", "a nude statue").

/// Refused wherever they appear.
const ALWAYS: &[&str] = &[
    "loli",
    "lolis",
    "lolicon",
    "shota",
    "shotacon",
    "csam",
    "pedo",
    "pedophile",
    "pedophilia",
    "paedophile",
    "paedophilia",
    "jailbait",
];

/// Words naming a minor.
const MINOR: &[&str] = &[
    "child",
    "children",
    "childs",
    "kid",
    "kids",
    "minor",
    "minors",
    "underage",
    "preteen",
    "preteens",
    "prepubescent",
    "toddler",
    "toddlers",
    "infant",
    "infants",
    "schoolgirl",
    "schoolgirls",
    "schoolboy",
    "schoolboys",
    "teen",
    "teens",
    "teenage",
    "teenager",
    "teenagers",
];

/// Two-word phrases naming a minor.
const MINOR_PHRASES: &[(&str, &str)] = &[
    ("little", "girl"),
    ("little", "boy"),
    ("young", "girl"),
    ("young", "boy"),
    ("school", "girl"),
    ("school", "boy"),
];

/// Words naming sexual content.
const SEXUAL: &[&str] = &[
    "nude",
    "nudes",
    "naked",
    "nudity",
    "sex",
    "sexual",
    "sexy",
    "porn",
    "porno",
    "pornographic",
    "pornography",
    "nsfw",
    "erotic",
    "erotica",
    "explicit",
    "topless",
    "bottomless",
    "lingerie",
    "genitals",
    "genitalia",
    "nipples",
    "orgasm",
    "hentai",
    "seductive",
    "undressed",
    "undressing",
    "lewd",
];

/// Lower-cases and folds full-width ASCII (U+FF01..U+FF5E) to ASCII.
fn normalise(text: &str) -> String {
    text.chars()
        .map(|c| match c as u32 {
            0xFF01..=0xFF5E => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
            0x3000 => ' ',
            _ => c,
        })
        .flat_map(char::to_lowercase)
        .collect()
}

fn words(text: &str) -> Vec<String> {
    normalise(text)
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Whether `text` breaks the content rule.
pub fn violates(text: &str) -> bool {
    let words = words(text);
    let has = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
    if has(ALWAYS) {
        return true;
    }
    let minor = has(MINOR)
        || words.windows(2).any(|pair| match pair {
            [a, b] => MINOR_PHRASES
                .iter()
                .any(|(x, y)| a.as_str() == *x && b.as_str() == *y),
            _ => false,
        });
    minor && has(SEXUAL)
}

/// [`violates`] on the words already complete: a streaming text's last word
/// may still grow ("kid" becoming "kidney"), so it is left out.
pub fn violates_complete_words(text: &str) -> bool {
    let end = text
        .char_indices()
        .rev()
        .find(|(_, c)| !c.is_alphanumeric())
        .map(|(i, _)| i)
        .unwrap_or(0);
    violates(text.get(..end).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_minors_with_sexual_terms() {
        assert!(violates("a NUDE child on a beach"));
        assert!(violates("sexy schoolgirl"));
        assert!(violates("little girl, lingerie"));
        assert!(violates("lolicon art"));
        assert!(violates("ｎｕｄｅ ｃｈｉｌｄ"));
        assert!(violates("young boy, nsfw"));
        assert!(!violates("sexy woman in a red dress, 30 year old"));
    }

    #[test]
    fn allows_either_list_alone_and_word_lookalikes() {
        assert!(!violates("a child flying a kite, golden hour"));
        assert!(!violates("a nude marble statue, museum lighting"));
        assert!(!violates("kidney beans and a sextant"));
        assert!(!violates("a naked tree in winter, skidding car"));
        assert!(!violates(""));
    }

    #[test]
    fn streaming_check_ignores_the_growing_last_word() {
        assert!(!violates_complete_words("a nude kid"));
        assert!(violates_complete_words("a nude kid "));
        assert!(!violates_complete_words("a nude kidney"));
    }
}
