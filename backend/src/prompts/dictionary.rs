//! The prompt dictionary: a lowercased English term map, each term with a
//! category, a short description and its translations into the supported
//! languages, read from the data files in `backend/data/prompts/` that are
//! embedded in the binary (so a fresh clone and a copied binary both work).
//!
//! Data format (see `backend/data/prompts/README.md`): `terms/{category}.tsv`
//! holds `term<TAB>description` lines; `i18n/{lang}.tsv` holds
//! `term<TAB>localised text`. Lines starting with `#` and blank lines are
//! skipped. A term is unique across categories, and every translated term
//! must exist, so a typo in the data fails the unit tests, not a user.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::lang::Lang;
use super::segment::{normalise_key, PhraseMap};

/// The categories, in the order the definitions endpoint lists them, with
/// each one's file. `include_str!` keeps the data inside the binary.
const TERM_FILES: &[(&str, &str)] = &[
    (
        "quality",
        include_str!("../../data/prompts/terms/quality.tsv"),
    ),
    (
        "subject",
        include_str!("../../data/prompts/terms/subject.tsv"),
    ),
    (
        "character",
        include_str!("../../data/prompts/terms/character.tsv"),
    ),
    (
        "clothing",
        include_str!("../../data/prompts/terms/clothing.tsv"),
    ),
    ("pose", include_str!("../../data/prompts/terms/pose.tsv")),
    (
        "animal",
        include_str!("../../data/prompts/terms/animal.tsv"),
    ),
    (
        "creature",
        include_str!("../../data/prompts/terms/creature.tsv"),
    ),
    (
        "object",
        include_str!("../../data/prompts/terms/object.tsv"),
    ),
    ("place", include_str!("../../data/prompts/terms/place.tsv")),
    (
        "architecture",
        include_str!("../../data/prompts/terms/architecture.tsv"),
    ),
    (
        "nature",
        include_str!("../../data/prompts/terms/nature.tsv"),
    ),
    ("time", include_str!("../../data/prompts/terms/time.tsv")),
    (
        "weather",
        include_str!("../../data/prompts/terms/weather.tsv"),
    ),
    (
        "lighting",
        include_str!("../../data/prompts/terms/lighting.tsv"),
    ),
    (
        "camera",
        include_str!("../../data/prompts/terms/camera.tsv"),
    ),
    (
        "composition",
        include_str!("../../data/prompts/terms/composition.tsv"),
    ),
    ("color", include_str!("../../data/prompts/terms/color.tsv")),
    (
        "material",
        include_str!("../../data/prompts/terms/material.tsv"),
    ),
    ("style", include_str!("../../data/prompts/terms/style.tsv")),
    (
        "medium",
        include_str!("../../data/prompts/terms/medium.tsv"),
    ),
    ("anime", include_str!("../../data/prompts/terms/anime.tsv")),
    (
        "photography",
        include_str!("../../data/prompts/terms/photography.tsv"),
    ),
    ("mood", include_str!("../../data/prompts/terms/mood.tsv")),
    (
        "effect",
        include_str!("../../data/prompts/terms/effect.tsv"),
    ),
    (
        "negative",
        include_str!("../../data/prompts/terms/negative.tsv"),
    ),
    ("label", include_str!("../../data/prompts/terms/label.tsv")),
];

/// Translations per language (English is the terms themselves).
const I18N_FILES: &[(Lang, &str)] = &[
    (Lang::ZhCN, include_str!("../../data/prompts/i18n/zhCN.tsv")),
    (Lang::Ar, include_str!("../../data/prompts/i18n/ar.tsv")),
    (Lang::Ko, include_str!("../../data/prompts/i18n/ko.tsv")),
    (Lang::De, include_str!("../../data/prompts/i18n/de.tsv")),
    (Lang::Fr, include_str!("../../data/prompts/i18n/fr.tsv")),
    (Lang::Ru, include_str!("../../data/prompts/i18n/ru.tsv")),
    (Lang::Es, include_str!("../../data/prompts/i18n/es.tsv")),
    (Lang::Th, include_str!("../../data/prompts/i18n/th.tsv")),
    (Lang::Pt, include_str!("../../data/prompts/i18n/pt.tsv")),
    (Lang::Ja, include_str!("../../data/prompts/i18n/ja.tsv")),
];

#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum DictionaryError {
    #[error("{file}:{line}: expected `term<TAB>text`")]
    Malformed { file: String, line: usize },
    #[error("{file}:{line}: term {term:?} is listed twice")]
    Duplicate {
        file: String,
        line: usize,
        term: String,
    },
    #[error("{file}:{line}: {term:?} is not a dictionary term")]
    UnknownTerm {
        file: String,
        line: usize,
        term: String,
    },
}

/// One dictionary term.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The English term, lowercased and with single spaces: the map's key.
    pub term: String,
    pub category: &'static str,
    pub description: String,
    /// Localised texts, indexed like `Lang::ALL` (English is `term`).
    translations: [Option<String>; Lang::ALL.len()],
    /// Other ways of writing the term in a language (`海边` for `beach`,
    /// shown as `海滩`): read when translating into English, never shown.
    aliases: Vec<(Lang, String)>,
}

impl Entry {
    /// The term in `lang`, when the dictionary has it (English always).
    pub fn text_in(&self, lang: Lang) -> Option<&str> {
        if lang == Lang::En {
            return Some(&self.term);
        }
        self.translations.get(lang_index(lang))?.as_deref()
    }

    /// The editor list type (spec 3 §3 "Prompt dictionary word" `subType`).
    pub fn sub_type(&self) -> &'static str {
        match self.category {
            "style" | "medium" | "anime" | "photography" => "style",
            "quality" => "quality",
            "negative" => "eg",
            _ => "normal",
        }
    }
}

fn lang_index(lang: Lang) -> usize {
    Lang::ALL.iter().position(|l| *l == lang).unwrap_or(0)
}

/// The whole dictionary, immutable once built.
#[derive(Debug)]
pub struct Dictionary {
    /// Sorted by category (in `TERM_FILES` order), then term.
    entries: Vec<Entry>,
    by_term: HashMap<String, usize>,
    /// English phrase → entry, for translating out of English.
    english: PhraseMap,
    /// Localised phrase → entry, per language, for translating into English.
    localised: HashMap<Lang, PhraseMap>,
}

impl Dictionary {
    /// The dictionary built from the embedded data files (built once).
    pub fn builtin() -> Result<&'static Dictionary, DictionaryError> {
        static BUILTIN: OnceLock<Result<Dictionary, DictionaryError>> = OnceLock::new();
        BUILTIN
            .get_or_init(|| {
                let terms: Vec<(String, &'static str, &str)> = TERM_FILES
                    .iter()
                    .map(|(c, text)| (format!("terms/{c}.tsv"), *c, *text))
                    .collect();
                let i18n: Vec<(String, Lang, &str)> = I18N_FILES
                    .iter()
                    .map(|(l, text)| (format!("i18n/{}.tsv", l.code()), *l, *text))
                    .collect();
                Dictionary::parse(&terms, &i18n)
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Builds a dictionary from term files `(file name, category, text)` and
    /// translation files `(file name, language, text)`.
    pub fn parse(
        terms: &[(String, &'static str, &str)],
        i18n: &[(String, Lang, &str)],
    ) -> Result<Dictionary, DictionaryError> {
        let mut entries: Vec<Entry> = Vec::new();
        let mut by_term: HashMap<String, usize> = HashMap::new();
        for (file, category, text) in terms {
            let mut in_file = Vec::new();
            for (line, term, desc, extra) in rows(file, text)? {
                if extra.is_some() {
                    return Err(DictionaryError::Malformed {
                        file: file.clone(),
                        line,
                    });
                }
                let term = normalise_key(&term);
                if by_term.contains_key(&term) {
                    return Err(DictionaryError::Duplicate {
                        file: file.clone(),
                        line,
                        term,
                    });
                }
                by_term.insert(term.clone(), usize::MAX);
                in_file.push(Entry {
                    term,
                    category,
                    description: desc.to_owned(),
                    translations: Default::default(),
                    aliases: Vec::new(),
                });
            }
            in_file.sort_by(|a, b| a.term.cmp(&b.term));
            entries.extend(in_file);
        }
        for (i, e) in entries.iter().enumerate() {
            by_term.insert(e.term.clone(), i);
        }
        for (file, lang, text) in i18n {
            let slot = lang_index(*lang);
            for (line, term, local, aliases) in rows(file, text)? {
                let key = normalise_key(&term);
                let entry = by_term
                    .get(&key)
                    .and_then(|i| entries.get_mut(*i))
                    .ok_or_else(|| DictionaryError::UnknownTerm {
                        file: file.clone(),
                        line,
                        term: key.clone(),
                    })?;
                if let Some(a) = aliases {
                    entry.aliases.extend(
                        a.split('|')
                            .map(str::trim)
                            .filter(|x| !x.is_empty())
                            .map(|x| (*lang, x.to_owned())),
                    );
                }
                match entry.translations.get_mut(slot) {
                    Some(s @ None) => *s = Some(local.to_owned()),
                    _ => {
                        return Err(DictionaryError::Duplicate {
                            file: file.clone(),
                            line,
                            term: key,
                        })
                    }
                }
            }
        }
        let english = PhraseMap::build(
            entries
                .iter()
                .enumerate()
                .map(|(i, e)| (e.term.as_str(), i)),
        );
        let mut localised = HashMap::new();
        for lang in Lang::ALL {
            if lang == Lang::En {
                continue;
            }
            // When two terms share a localised text, the shorter English
            // term (the more basic word) wins the reverse lookup.
            // Aliases come after every shown text, so a text shown for one
            // term is never taken by another term's alias.
            let mut pairs: Vec<(&str, usize)> = entries
                .iter()
                .enumerate()
                .filter_map(|(i, e)| e.text_in(lang).map(|t| (t, i)))
                .collect();
            pairs.sort_by_key(|(_, i)| entries.get(*i).map(|e| (e.term.len(), e.term.clone())));
            pairs.extend(entries.iter().enumerate().flat_map(|(i, e)| {
                e.aliases
                    .iter()
                    .filter(move |(l, _)| *l == lang)
                    .map(move |(_, a)| (a.as_str(), i))
            }));
            localised.insert(lang, PhraseMap::build(pairs.into_iter()));
        }
        Ok(Dictionary {
            entries,
            by_term,
            english,
            localised,
        })
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    pub fn entry(&self, index: usize) -> Option<&Entry> {
        self.entries.get(index)
    }

    /// The entry for a term, in any case and spacing.
    pub fn lookup(&self, term: &str) -> Option<&Entry> {
        self.by_term
            .get(&normalise_key(term))
            .and_then(|i| self.entries.get(*i))
    }

    /// The categories in listing order, with their term counts.
    pub fn categories(&self) -> Vec<(&'static str, usize)> {
        TERM_FILES
            .iter()
            .map(|(c, _)| (*c, self.entries.iter().filter(|e| e.category == *c).count()))
            .filter(|(_, n)| *n > 0)
            .collect()
    }

    /// Every entry of a category, in term order.
    pub fn in_category<'a>(&'a self, category: &'a str) -> impl Iterator<Item = &'a Entry> + 'a {
        self.entries.iter().filter(move |e| e.category == category)
    }

    /// How many terms have a translation into `lang`.
    pub fn coverage(&self, lang: Lang) -> usize {
        self.entries
            .iter()
            .filter(|e| e.text_in(lang).is_some())
            .count()
    }

    pub(crate) fn english_phrases(&self) -> &PhraseMap {
        &self.english
    }

    pub(crate) fn phrases_in(&self, lang: Lang) -> Option<&PhraseMap> {
        self.localised.get(&lang)
    }
}

/// The data lines of one file as `(line number, first field, second field,
/// optional third field)`.
type Row<'t> = (usize, String, &'t str, Option<&'t str>);

fn rows<'t>(file: &str, text: &'t str) -> Result<Vec<Row<'t>>, DictionaryError> {
    let mut out = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim_end_matches('\r');
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let malformed = || DictionaryError::Malformed {
            file: file.to_owned(),
            line: n + 1,
        };
        let mut fields = line.split('\t').map(str::trim);
        let a = fields.next().unwrap_or("");
        let b = fields.next().unwrap_or("");
        let c = fields.next().filter(|c| !c.is_empty());
        if a.is_empty() || b.is_empty() || fields.next().is_some() {
            return Err(malformed());
        }
        out.push((n + 1, a.to_owned(), b, c));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> Dictionary {
        Dictionary::parse(
            &[
                (
                    "terms/subject.tsv".into(),
                    "subject",
                    "# people\nGirl\ta young woman\ncat\ta small cat\n",
                ),
                ("terms/color.tsv".into(), "color", "red\tthe colour red\n"),
            ],
            &[
                (
                    "i18n/zhCN.tsv".into(),
                    Lang::ZhCN,
                    "girl\t女孩\t姑娘|少女\ncat\t猫\nred\t红色\n",
                ),
                ("i18n/de.tsv".into(), Lang::De, "cat\tKatze\n"),
            ],
        )
        .unwrap()
    }

    #[test]
    fn parses_lowercases_and_translates() {
        let d = small();
        assert_eq!(d.len(), 3);
        assert_eq!(d.lookup("GIRL").unwrap().description, "a young woman");
        assert_eq!(d.lookup("cat").unwrap().text_in(Lang::De), Some("Katze"));
        assert_eq!(d.lookup("cat").unwrap().text_in(Lang::Fr), None);
        assert_eq!(d.lookup("red").unwrap().text_in(Lang::En), Some("red"));
        assert_eq!(d.coverage(Lang::ZhCN), 3);
        assert_eq!(d.categories(), vec![("subject", 2), ("color", 1)]);
        assert_eq!(d.lookup("red").unwrap().sub_type(), "normal");
        let zh = d.phrases_in(Lang::ZhCN).unwrap();
        let girl = d.entries().iter().position(|e| e.term == "girl");
        assert_eq!(zh.get("少女"), girl, "aliases are read backwards");
        assert_eq!(zh.get("女孩"), girl);
        assert_eq!(d.lookup("girl").unwrap().text_in(Lang::ZhCN), Some("女孩"));
    }

    #[test]
    fn bad_data_is_an_error_with_its_place() {
        let e = Dictionary::parse(&[("t.tsv".into(), "subject", "cat\tx\ty\n")], &[]).unwrap_err();
        assert_eq!(
            e,
            DictionaryError::Malformed {
                file: "t.tsv".into(),
                line: 1
            }
        );
        let e = Dictionary::parse(&[("t.tsv".into(), "subject", "cat\n")], &[]).unwrap_err();
        assert_eq!(
            e,
            DictionaryError::Malformed {
                file: "t.tsv".into(),
                line: 1
            }
        );
        let e =
            Dictionary::parse(&[("t.tsv".into(), "subject", "cat\tx\nCat\ty\n")], &[]).unwrap_err();
        assert!(matches!(e, DictionaryError::Duplicate { line: 2, .. }));
        let e = Dictionary::parse(
            &[("t.tsv".into(), "subject", "cat\tx\n")],
            &[("zh.tsv".into(), Lang::ZhCN, "dog\t狗\n")],
        )
        .unwrap_err();
        assert!(matches!(e, DictionaryError::UnknownTerm { line: 1, .. }));
    }

    /// The shipped data: sizes the issue asks for, and consistency.
    #[test]
    fn builtin_data_is_complete() {
        let d = Dictionary::builtin().unwrap();
        assert!(d.len() >= 2000, "{} terms", d.len());
        for lang in Lang::ALL {
            assert!(d.coverage(lang) >= 300, "{lang}: {}", d.coverage(lang));
        }
        assert!(
            d.coverage(Lang::ZhCN) * 10 >= d.len() * 9,
            "zhCN covers 90 %"
        );
        for e in d.entries() {
            assert_eq!(e.term, e.term.to_lowercase());
            assert!(!e.description.is_empty());
            assert!(e.term.chars().count() <= 60, "{}", e.term);
        }
        for (c, n) in d.categories() {
            assert!(n >= 10, "{c} has {n} terms");
        }
        let bytes: usize = TERM_FILES.iter().map(|(_, t)| t.len()).sum::<usize>()
            + I18N_FILES.iter().map(|(_, t)| t.len()).sum::<usize>();
        assert!(bytes < 3 * 1024 * 1024, "{bytes} bytes");
    }
}
