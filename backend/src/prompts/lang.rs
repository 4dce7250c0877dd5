//! The prompt-definition languages of spec 3 §9 and the normalisation of
//! whatever a client sends (`zh-TW`, `pt_BR`, `EN`, `xx`) to one of them.

use serde::Serialize;

/// A supported prompt-definition language. Anything else falls back to
/// English; any Chinese variant (`zh`, `zh-CN`, `zh-TW`, `zh-Hant`, ...) is
/// `ZhCN`, because the dictionary has one Chinese column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Lang {
    #[serde(rename = "zhCN")]
    ZhCN,
    #[serde(rename = "en")]
    En,
    #[serde(rename = "ar")]
    Ar,
    #[serde(rename = "ko")]
    Ko,
    #[serde(rename = "de")]
    De,
    #[serde(rename = "fr")]
    Fr,
    #[serde(rename = "ru")]
    Ru,
    #[serde(rename = "es")]
    Es,
    #[serde(rename = "th")]
    Th,
    #[serde(rename = "pt")]
    Pt,
    #[serde(rename = "ja")]
    Ja,
}

impl Lang {
    /// Every supported language, English first.
    pub const ALL: [Lang; 11] = [
        Lang::En,
        Lang::ZhCN,
        Lang::Ar,
        Lang::Ko,
        Lang::De,
        Lang::Fr,
        Lang::Ru,
        Lang::Es,
        Lang::Th,
        Lang::Pt,
        Lang::Ja,
    ];

    /// Spec 3 §9: a language tag in any case and with `-` or `_` becomes a
    /// supported language; `zh*` is Chinese; unknown or empty is English.
    pub fn normalise(tag: &str) -> Lang {
        let tag = tag.trim().to_ascii_lowercase().replace('_', "-");
        let primary = tag.split('-').next().unwrap_or("");
        // `zhcn` (the spec's own spelling lowercased) has no separator.
        if primary.starts_with("zh") {
            return Lang::ZhCN;
        }
        match primary {
            "ar" => Lang::Ar,
            "ko" => Lang::Ko,
            "de" => Lang::De,
            "fr" => Lang::Fr,
            "ru" => Lang::Ru,
            "es" => Lang::Es,
            "th" => Lang::Th,
            "pt" => Lang::Pt,
            "ja" => Lang::Ja,
            _ => Lang::En,
        }
    }

    /// The spec's code (`zhCN`, `en`, ...): also the data file's name.
    pub fn code(self) -> &'static str {
        match self {
            Lang::ZhCN => "zhCN",
            Lang::En => "en",
            Lang::Ar => "ar",
            Lang::Ko => "ko",
            Lang::De => "de",
            Lang::Fr => "fr",
            Lang::Ru => "ru",
            Lang::Es => "es",
            Lang::Th => "th",
            Lang::Pt => "pt",
            Lang::Ja => "ja",
        }
    }

    /// The ISO 639-1 code translation services use (LibreTranslate: `zh`).
    pub fn iso(self) -> &'static str {
        match self {
            Lang::ZhCN => "zh",
            other => other.code(),
        }
    }

    /// Whether the language writes words without spaces between them, so a
    /// translation into it joins dictionary words directly.
    pub fn unspaced(self) -> bool {
        matches!(self, Lang::ZhCN | Lang::Ja | Lang::Th)
    }
}

impl std::fmt::Display for Lang {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises_per_spec() {
        let cases = [
            ("zhCN", Lang::ZhCN),
            ("zh", Lang::ZhCN),
            ("zh-TW", Lang::ZhCN),
            ("zh_hant_hk", Lang::ZhCN),
            ("ZH-cn", Lang::ZhCN),
            ("en", Lang::En),
            ("en-GB", Lang::En),
            ("pt_BR", Lang::Pt),
            ("ja-JP", Lang::Ja),
            (" KO ", Lang::Ko),
            ("ar", Lang::Ar),
            ("de-AT", Lang::De),
            ("fr", Lang::Fr),
            ("ru", Lang::Ru),
            ("es-419", Lang::Es),
            ("th", Lang::Th),
            ("xx", Lang::En),
            ("it", Lang::En),
            ("", Lang::En),
            ("-", Lang::En),
        ];
        for (tag, want) in cases {
            assert_eq!(Lang::normalise(tag), want, "{tag:?}");
        }
    }

    #[test]
    fn codes_round_trip() {
        for l in Lang::ALL {
            assert_eq!(Lang::normalise(l.code()), l);
            assert_eq!(
                serde_json::to_value(l).unwrap(),
                serde_json::json!(l.code())
            );
        }
        assert_eq!(Lang::ZhCN.iso(), "zh");
    }
}
