//! The comment box's emoji shortcode table (spec 3 §7: "an emoji shortcode
//! table, roughly 800 entries"), taken from the `emojis` crate's Unicode and
//! GitHub gemoji data, never typed by hand.
//!
//! The selection: every emoji of Unicode 7.0 or earlier (the core set every
//! platform draws; versions as the crate's data gives them), without flags,
//! in its default skin tone, that has a gemoji shortcode, named by its first
//! shortcode, in Unicode's CLDR order (smileys, people, animals, food,
//! travel, activities, objects, symbols). With `emojis` 0.9 that is 844.

use std::sync::OnceLock;

use emojis::{Group, UnicodeVersion};
use protocol::square::comment::EmojiItem;

/// The newest Unicode version whose emoji are in the table.
const NEWEST: UnicodeVersion = UnicodeVersion::new(7, 0);

/// The table, built once.
pub fn table() -> &'static [EmojiItem] {
    static TABLE: OnceLock<Vec<EmojiItem>> = OnceLock::new();
    TABLE.get_or_init(|| {
        emojis::iter()
            .filter(|e| e.group() != Group::Flags && e.unicode_version() <= NEWEST)
            .filter_map(|e| {
                e.shortcode().map(|code| EmojiItem {
                    shortcode: code.to_owned(),
                    emoji: e.as_str().to_owned(),
                })
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn has_the_selected_entries_in_a_stable_order() {
        let t = table();
        assert_eq!(t.len(), 844, "the emojis crate's data changed the count");
        assert_eq!(
            t.first().map(|e| e.emoji.as_str()),
            Some("😃"),
            "😀 is Unicode 8.0 in the crate's data"
        );
        let find = |code: &str| {
            t.iter()
                .find(|e| e.shortcode == code)
                .map(|e| e.emoji.clone())
        };
        assert_eq!(find("smile").as_deref(), Some("😄"));
        assert_eq!(find("heart").as_deref(), Some("❤️"));
        assert_eq!(find("+1").as_deref(), Some("👍"));
        assert_eq!(find("cat").as_deref(), Some("🐱"));
        // Unicode 8.0 and later, and flags, are not in the table.
        assert_eq!(find("unicorn"), None);
        assert_eq!(find("jp"), None);
    }

    #[test]
    fn shortcodes_are_unique_and_plain() {
        let t = table();
        let mut codes: Vec<&str> = t.iter().map(|e| e.shortcode.as_str()).collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), t.len());
        assert!(t
            .iter()
            .all(|e| !e.shortcode.is_empty() && !e.shortcode.contains(':') && !e.emoji.is_empty()));
    }
}
