//! The `Translator` port and its two adapters: the built-in dictionary
//! (always there, never fails, reports what it did not know) and
//! LibreTranslate's HTTP API, chosen by configuration (`EASEL_TRANSLATE_URL`).

use std::time::Duration;

use async_trait::async_trait;
use serde::Deserialize;

use super::dictionary::Dictionary;
use super::lang::Lang;
use super::segment::{segment, PhraseMap, Piece};

/// A translation of one text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Translated {
    pub text: String,
    /// Parts of the text the translator left as they were because it did
    /// not know them (the dictionary reports them; a service reports none).
    pub unknown: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum TranslateError {
    #[error("translation service unreachable: {0}")]
    Unreachable(String),
    #[error("translation service answered {status}: {message}")]
    Refused { status: u16, message: String },
    #[error("translation service sent an unreadable answer: {0}")]
    BadAnswer(String),
}

/// Translates text from one supported language into another.
#[async_trait]
pub trait Translator: Send + Sync {
    /// A short name reported with every translation (`dictionary`, `libretranslate`).
    fn name(&self) -> &'static str;
    async fn translate(
        &self,
        text: &str,
        source: Lang,
        target: Lang,
    ) -> Result<Translated, TranslateError>;
}

/// Chinese function words the dictionary (a list of prompt terms) does not
/// hold, so `一个穿着红色连衣裙的女孩` reads `a wearing red dress girl` and
/// not a string of untranslated characters. An empty value drops the word.
const ZH_FUNCTION_WORDS: &[(&str, &str)] = &[
    ("的", ""),
    ("地", ""),
    ("了", ""),
    ("着", ""),
    ("和", "and"),
    ("与", "and"),
    ("跟", "and"),
    ("及", "and"),
    ("或", "or"),
    ("在", "in"),
    ("里", "in"),
    ("中", "in"),
    ("上", "on"),
    ("下", "under"),
    ("旁边", "beside"),
    ("一个", "a"),
    ("一只", "a"),
    ("一位", "a"),
    ("一名", "a"),
    ("一条", "a"),
    ("一座", "a"),
    ("一朵", "a"),
    ("一片", "a"),
    ("一把", "a"),
    ("两个", "two"),
    ("很", "very"),
    ("非常", "very"),
    ("穿着", "wearing"),
    ("戴着", "wearing"),
    ("拿着", "holding"),
    ("有", "with"),
    ("带", "with"),
    ("带着", "with"),
    ("没有", "without"),
    ("不要", "no"),
];

/// English words dropped when translating out of English: articles carry
/// nothing a word list needs, and most target languages have none or
/// inflect them.
const EN_DROPPED: &[&str] = &["a", "an", "the"];

/// The built-in translator: longest-match segmentation over the dictionary's
/// phrase maps. Unknown parts are kept as they are and reported.
pub struct DictionaryTranslator {
    dictionary: &'static Dictionary,
    /// `ZH_FUNCTION_WORDS` as a phrase map (values index `zh_words`).
    zh_extra: PhraseMap,
    en_extra: PhraseMap,
    /// No extra words (languages other than Chinese and English).
    none: PhraseMap,
}

impl DictionaryTranslator {
    pub fn new(dictionary: &'static Dictionary) -> DictionaryTranslator {
        DictionaryTranslator {
            dictionary,
            zh_extra: PhraseMap::build(
                ZH_FUNCTION_WORDS
                    .iter()
                    .enumerate()
                    .map(|(i, (w, _))| (*w, i)),
            ),
            en_extra: PhraseMap::build(EN_DROPPED.iter().enumerate().map(|(i, w)| (*w, i))),
            none: PhraseMap::default(),
        }
    }

    /// The translation, synchronously (it never fails).
    pub fn translate_now(&self, text: &str, source: Lang, target: Lang) -> Translated {
        if source == target {
            return Translated {
                text: text.to_owned(),
                unknown: Vec::new(),
            };
        }
        // Out of a non-English language, go through English: its phrase map
        // gives the term, and the term's column gives the target.
        let (map, extra, extra_is_zh) = if source == Lang::En {
            (
                Some(self.dictionary.english_phrases()),
                &self.en_extra,
                false,
            )
        } else {
            (
                self.dictionary.phrases_in(source),
                if source == Lang::ZhCN {
                    &self.zh_extra
                } else {
                    &self.none
                },
                source == Lang::ZhCN,
            )
        };
        let Some(map) = map else {
            return Translated {
                text: text.to_owned(),
                unknown: vec![text.to_owned()],
            };
        };
        let mut out: Vec<Out> = Vec::new();
        let mut unknown = Vec::new();
        for piece in segment(text, map, extra) {
            match piece {
                Piece::Known(phrase, v) => {
                    // The dictionary's map is tried before the extra table.
                    let word = if map.get(phrase).is_some() {
                        self.dictionary
                            .entry(v)
                            .and_then(|e| e.text_in(target))
                            .map(str::to_owned)
                    } else if extra_is_zh {
                        // A function word: only into English (other targets
                        // keep it, as they have no such table).
                        ZH_FUNCTION_WORDS
                            .get(v)
                            .filter(|_| target == Lang::En)
                            .map(|(_, en)| (*en).to_owned())
                    } else {
                        // A dropped English article.
                        Some(String::new())
                    };
                    match word {
                        Some(w) if w.is_empty() => {}
                        Some(w) => out.push(Out::Word(w)),
                        None => {
                            unknown.push(phrase.to_owned());
                            out.push(Out::Word(phrase.to_owned()));
                        }
                    }
                }
                Piece::Unknown(u) => {
                    unknown.push(u.to_owned());
                    out.push(Out::Word(u.to_owned()));
                }
                Piece::Sep(s) => out.push(Out::Sep(separator(s, target))),
            }
        }
        Translated {
            text: join(&out, target),
            unknown,
        }
    }
}

enum Out {
    Word(String),
    Sep(String),
}

/// Full-width punctuation becomes ASCII punctuation and a space when the
/// target writes with spaces; whitespace collapses.
fn separator(s: &str, target: Lang) -> String {
    if target.unspaced() {
        return if s.trim().is_empty() {
            " ".into()
        } else {
            s.trim().to_owned()
        };
    }
    let mut out = String::new();
    for c in s.chars() {
        let ascii = match c {
            '，' | '、' => Some(", "),
            '。' => Some(". "),
            '；' => Some("; "),
            '：' => Some(": "),
            '！' => Some("! "),
            '？' => Some("? "),
            '（' => Some(" ("),
            '）' => Some(") "),
            _ => None,
        };
        match ascii {
            Some(a) => out.push_str(a),
            None if c.is_whitespace() => out.push(' '),
            None => out.push(c),
        }
    }
    out
}

/// Joins words: with a space between adjacent words for spaced targets;
/// directly for unspaced targets, where a space between two words is dropped.
fn join(out: &[Out], target: Lang) -> String {
    let mut s = String::new();
    let mut prev_word = false;
    for (i, o) in out.iter().enumerate() {
        match o {
            Out::Word(w) => {
                if prev_word && !target.unspaced() {
                    s.push(' ');
                }
                s.push_str(w);
                prev_word = true;
            }
            Out::Sep(sep) => {
                let between_words = prev_word && matches!(out.get(i + 1), Some(Out::Word(_)));
                if target.unspaced() && sep == " " && between_words {
                    // dropped: 红色 连衣裙 reads 红色连衣裙
                } else {
                    s.push_str(sep);
                }
                prev_word = false;
            }
        }
    }
    let collapsed: Vec<&str> = s.split(' ').filter(|p| !p.is_empty()).collect();
    let joined = collapsed.join(" ");
    joined
        .replace(" ,", ",")
        .replace(" .", ".")
        .trim()
        .to_owned()
}

#[async_trait]
impl Translator for DictionaryTranslator {
    fn name(&self) -> &'static str {
        "dictionary"
    }
    async fn translate(
        &self,
        text: &str,
        source: Lang,
        target: Lang,
    ) -> Result<Translated, TranslateError> {
        Ok(self.translate_now(text, source, target))
    }
}

/// LibreTranslate (`POST {url}/translate` with `{q, source, target, format,
/// api_key}`, answering `{translatedText}` or `{error}`).
pub struct LibreTranslate {
    client: reqwest::Client,
    /// `{base}/translate`.
    url: reqwest::Url,
    api_key: Option<String>,
}

/// A translation service URL that cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ServiceUrlError(String);

/// Answers larger than this are refused (a translation is a few KB).
const MAX_ANSWER_BYTES: usize = 1024 * 1024;

impl LibreTranslate {
    /// `url` is the server's base URL (`http://host:5000`).
    pub fn new(
        url: &str,
        api_key: Option<String>,
        timeout: Duration,
    ) -> Result<LibreTranslate, ServiceUrlError> {
        let mut base = reqwest::Url::parse(url.trim())
            .map_err(|e| ServiceUrlError(format!("bad URL {url:?}: {e}")))?;
        if base.scheme() != "http" || base.host_str().is_none() {
            return Err(ServiceUrlError(format!(
                "{url:?}: only http://host[:port] is supported (this build has no TLS client; \
                 put a TLS proxy in front of an https service)"
            )));
        }
        if !base.path().ends_with('/') {
            let path = format!("{}/", base.path());
            base.set_path(&path);
        }
        let url = base
            .join("translate")
            .map_err(|e| ServiceUrlError(format!("bad URL {url:?}: {e}")))?;
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .build()
            .map_err(|e| ServiceUrlError(format!("HTTP client: {e}")))?;
        Ok(LibreTranslate {
            client,
            url,
            api_key,
        })
    }
}

#[derive(Deserialize)]
struct LibreAnswer {
    #[serde(rename = "translatedText")]
    translated_text: Option<String>,
    error: Option<String>,
}

#[async_trait]
impl Translator for LibreTranslate {
    fn name(&self) -> &'static str {
        "libretranslate"
    }

    async fn translate(
        &self,
        text: &str,
        source: Lang,
        target: Lang,
    ) -> Result<Translated, TranslateError> {
        let mut body = serde_json::json!({
            "q": text,
            "source": source.iso(),
            "target": target.iso(),
            "format": "text",
        });
        if let (Some(key), Some(obj)) = (&self.api_key, body.as_object_mut()) {
            obj.insert("api_key".into(), key.clone().into());
        }
        let res = self
            .client
            .post(self.url.clone())
            .json(&body)
            .send()
            .await
            .map_err(|e| TranslateError::Unreachable(e.without_url().to_string()))?;
        let status = res.status().as_u16();
        if res
            .content_length()
            .is_some_and(|n| n > MAX_ANSWER_BYTES as u64)
        {
            return Err(TranslateError::BadAnswer("answer too large".into()));
        }
        let bytes = res
            .bytes()
            .await
            .map_err(|e| TranslateError::Unreachable(e.without_url().to_string()))?;
        if bytes.len() > MAX_ANSWER_BYTES {
            return Err(TranslateError::BadAnswer("answer too large".into()));
        }
        let answer: Result<LibreAnswer, _> = serde_json::from_slice(&bytes);
        match (status, answer) {
            (
                200,
                Ok(LibreAnswer {
                    translated_text: Some(t),
                    ..
                }),
            ) => Ok(Translated {
                text: t,
                unknown: Vec::new(),
            }),
            (200, Ok(_)) => Err(TranslateError::BadAnswer("no translatedText".into())),
            (200, Err(e)) => Err(TranslateError::BadAnswer(e.to_string())),
            (status, Ok(LibreAnswer { error: Some(m), .. })) => {
                Err(TranslateError::Refused { status, message: m })
            }
            (status, _) => Err(TranslateError::Refused {
                status,
                message: String::from_utf8_lossy(bytes.get(..200).unwrap_or(&bytes)).into_owned(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t() -> DictionaryTranslator {
        DictionaryTranslator::new(Dictionary::builtin().unwrap())
    }

    #[test]
    fn chinese_to_english_by_longest_match() {
        let r = t().translate_now("一个女孩，红色，猫", Lang::ZhCN, Lang::En);
        assert_eq!(r.text, "1girl, red, cat", "一个女孩 is the tag 1girl");
        assert!(r.unknown.is_empty(), "{:?}", r.unknown);
    }

    #[test]
    fn chinese_sentence_reads_as_a_prompt() {
        let r = t().translate_now(
            "一个穿着红色连衣裙的女孩在海边，夕阳，杰作",
            Lang::ZhCN,
            Lang::En,
        );
        assert_eq!(
            r.text,
            "a wearing red dress girl in beach, sunset, masterpiece"
        );
        assert!(r.unknown.is_empty(), "{:?}", r.unknown);
    }

    #[test]
    fn unknown_parts_stay_and_are_reported() {
        let r = t().translate_now("猫，阿巴阿巴", Lang::ZhCN, Lang::En);
        assert_eq!(r.text, "cat, 阿巴阿巴");
        assert_eq!(r.unknown, vec!["阿巴阿巴".to_owned()]);
    }

    #[test]
    fn english_to_local_word_by_word() {
        let r = t().translate_now("a cat, red, zorblax", Lang::En, Lang::ZhCN);
        assert_eq!(r.text, "猫,红色,zorblax");
        assert_eq!(r.unknown, vec!["zorblax".to_owned()]);
        let r = t().translate_now("cat", Lang::En, Lang::De);
        assert_eq!(r.text, "Katze");
    }

    #[test]
    fn same_language_is_identity() {
        let r = t().translate_now("cat", Lang::En, Lang::En);
        assert_eq!(r.text, "cat");
    }
}
