//! Prompt tooling of spec 1 §5 and spec 3 §3–§9: the prompt dictionary,
//! translation (the `Translator` port, the thresholds, the per-session
//! cache) and random prompts. `PromptService` is what the routes hold.

pub mod cache;
pub mod dictionary;
pub mod lang;
pub mod random;
pub mod segment;
pub mod share;
pub mod translator;

use std::sync::Arc;
use std::time::Duration;

use futures_util::stream::{self, StreamExt};
use infra::config::TranslateSettings;

use crate::ratelimit::{RateLimiter, RateLimits};

pub use cache::{Cached, TranslationCache};
pub use dictionary::{Dictionary, DictionaryError, Entry};
pub use lang::Lang;
pub use share::{plan, Plan, TextKind};
pub use translator::{
    DictionaryTranslator, LibreTranslate, TranslateError, Translated, Translator,
};

/// At most this many texts per translate call.
pub const MAX_TEXTS: usize = 100;
/// At most this many characters per text.
pub const MAX_TEXT_CHARS: usize = 2000;
/// Calls to the translation service in flight for one request.
const SERVICE_CONCURRENCY: usize = 8;

#[derive(Debug, thiserror::Error)]
pub enum PromptError {
    #[error("prompt dictionary: {0}")]
    Dictionary(#[from] DictionaryError),
    #[error("translate.url: {0}")]
    Service(#[from] translator::ServiceUrlError),
}

/// One text to translate and its kind (the editor's list type).
#[derive(Debug, Clone)]
pub struct TextIn {
    pub text: String,
    pub kind: TextKind,
}

/// The outcome for one text.
#[derive(Debug, Clone, PartialEq)]
pub struct TextOut {
    pub text: String,
    pub plan: Plan,
    pub source: Lang,
    pub target: Lang,
    /// `None` when the plan is `Keep`.
    pub translation: Option<String>,
    pub unknown: Vec<String>,
    /// Which translator made it (`dictionary`, `libretranslate`), if any.
    pub provider: Option<&'static str>,
    /// Served from this session's cache.
    pub cached: bool,
    /// The share of Chinese letters (see `share`), `None` without letters.
    pub chinese_share: Option<f64>,
}

/// The dictionary, the translators and the cache.
pub struct PromptService {
    dictionary: &'static Dictionary,
    builtin: DictionaryTranslator,
    /// The configured service, tried before the dictionary.
    service: Option<Arc<dyn Translator>>,
    cache: TranslationCache,
    /// Translate calls per client address for visitors.
    visitor_limit: RateLimiter,
    /// Translate calls per account.
    account_limit: RateLimiter,
}

/// Who is translating, for the rate limits.
pub enum Caller<'a> {
    Visitor { address: &'a str },
    Account { id: &'a str },
}

impl PromptService {
    /// The built-in dictionary and, when `settings.url` is set, LibreTranslate.
    /// `limits`: where the call limits count (see `crate::ratelimit`).
    pub fn new(
        settings: &TranslateSettings,
        limits: &RateLimits,
    ) -> Result<PromptService, PromptError> {
        let service: Option<Arc<dyn Translator>> = match &settings.url {
            Some(url) => Some(Arc::new(LibreTranslate::new(
                url,
                settings.api_key.as_ref().map(|k| k.expose().to_owned()),
                Duration::from_millis(settings.timeout_ms),
            )?)),
            None => None,
        };
        let mut s = PromptService::with_service(service, settings.cache_entries)?;
        s.visitor_limit = limits.limiter(
            "prompts_visitor",
            settings.visitor_calls_per_minute,
            Duration::from_secs(60),
        );
        s.account_limit = limits.limiter(
            "prompts_account",
            settings.account_calls_per_minute,
            Duration::from_secs(60),
        );
        Ok(s)
    }

    /// With any translator in front of the dictionary (tests, other services).
    pub fn with_service(
        service: Option<Arc<dyn Translator>>,
        cache_entries: usize,
    ) -> Result<PromptService, PromptError> {
        let dictionary = Dictionary::builtin()?;
        Ok(PromptService {
            dictionary,
            builtin: DictionaryTranslator::new(dictionary),
            service,
            cache: TranslationCache::new(cache_entries),
            visitor_limit: RateLimits::local().limiter(
                "prompts_visitor",
                TranslateSettings::default().visitor_calls_per_minute,
                Duration::from_secs(60),
            ),
            account_limit: RateLimits::local().limiter(
                "prompts_account",
                TranslateSettings::default().account_calls_per_minute,
                Duration::from_secs(60),
            ),
        })
    }

    /// Counts one translate call; false when the caller is over its limit.
    pub async fn allow(&self, caller: Caller<'_>) -> bool {
        match caller {
            Caller::Visitor { address } => self.visitor_limit.check(address).await,
            Caller::Account { id } => self.account_limit.check(id).await,
        }
    }

    pub fn dictionary(&self) -> &'static Dictionary {
        self.dictionary
    }

    /// The configured service's name, or `dictionary`.
    pub fn provider(&self) -> &'static str {
        self.service.as_ref().map_or("dictionary", |s| s.name())
    }

    /// Applies the thresholds to every text for a user whose language is
    /// `language`, translating what they call for, each text once per
    /// `session`. Never fails: a failing service falls back to the
    /// dictionary, which always answers.
    #[tracing::instrument(skip(self, texts), fields(n = texts.len()))]
    pub async fn translate_all(
        &self,
        session: &str,
        texts: &[TextIn],
        language: Lang,
    ) -> Vec<TextOut> {
        stream::iter(texts.iter())
            .map(|t| self.translate_one(session, t, language))
            .buffered(SERVICE_CONCURRENCY)
            .collect()
            .await
    }

    async fn translate_one(&self, session: &str, t: &TextIn, language: Lang) -> TextOut {
        let plan = plan(&t.text, t.kind, language);
        let (source, target) = match plan {
            Plan::ToEnglish => (Lang::ZhCN, Lang::En),
            Plan::ToLocal => (Lang::En, language),
            Plan::Keep => (language, language),
        };
        let mut out = TextOut {
            text: t.text.clone(),
            plan,
            source,
            target,
            translation: None,
            unknown: Vec::new(),
            provider: None,
            cached: false,
            chinese_share: share::chinese_share(&t.text),
        };
        if plan == Plan::Keep {
            return out;
        }
        let c = match self.cache.get(session, source, target, &t.text) {
            Some(c) => {
                out.cached = true;
                c
            }
            None => {
                let c = self.translate_fresh(&t.text, source, target).await;
                self.cache.put(session, source, target, &t.text, c.clone());
                c
            }
        };
        out.translation = Some(c.text);
        out.unknown = c.unknown;
        out.provider = Some(c.provider);
        out
    }

    async fn translate_fresh(&self, text: &str, source: Lang, target: Lang) -> Cached {
        if let Some(service) = &self.service {
            match service.translate(text, source, target).await {
                Ok(t) => {
                    return Cached {
                        text: t.text,
                        unknown: t.unknown,
                        provider: service.name(),
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e, "translation service failed; the dictionary answers");
                }
            }
        }
        let t = self.builtin.translate_now(text, source, target);
        Cached {
            text: t.text,
            unknown: t.unknown,
            provider: self.builtin.name(),
        }
    }

    /// Entries in `lang` for UI label keys (`/translate/18n`): each key's
    /// text, or the key itself when the dictionary lacks it.
    pub fn labels(&self, keys: &[String], lang: Lang) -> Vec<(String, bool)> {
        keys.iter()
            .map(
                |k| match self.dictionary.lookup(k).and_then(|e| e.text_in(lang)) {
                    Some(t) => (t.to_owned(), true),
                    None => (k.clone(), false),
                },
            )
            .collect()
    }

    /// A random prompt and negative prompt for a model (never fails).
    pub fn random(&self, art_model_no: &str) -> (String, String, random::Flavour) {
        let flavour = random::flavour_of(art_model_no);
        let mut rng = rand::rng();
        (
            random::random_prompt(self.dictionary, flavour, &mut rng),
            random::random_negative(self.dictionary, &mut rng),
            flavour,
        )
    }

    pub fn cached_entries(&self) -> usize {
        self.cache.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Counts calls; fails when told to.
    struct Fake {
        calls: AtomicUsize,
        fail: bool,
    }

    #[async_trait::async_trait]
    impl Translator for Fake {
        fn name(&self) -> &'static str {
            "fake"
        }
        async fn translate(
            &self,
            text: &str,
            _: Lang,
            target: Lang,
        ) -> Result<Translated, TranslateError> {
            self.calls.fetch_add(1, Ordering::SeqCst);
            if self.fail {
                return Err(TranslateError::BadAnswer("down".into()));
            }
            Ok(Translated {
                text: format!("{target}:{text}"),
                unknown: vec![],
            })
        }
    }

    fn texts(ts: &[&str]) -> Vec<TextIn> {
        ts.iter()
            .map(|t| TextIn {
                text: (*t).into(),
                kind: TextKind::Normal,
            })
            .collect()
    }

    #[tokio::test]
    async fn service_first_then_cache() {
        let fake = Arc::new(Fake {
            calls: AtomicUsize::new(0),
            fail: false,
        });
        let s = PromptService::with_service(Some(fake.clone()), 100).unwrap();
        let r = s
            .translate_all("s", &texts(&["猫", "red dress 红", "cat"]), Lang::De)
            .await;
        assert_eq!(r[0].translation.as_deref(), Some("en:猫"));
        assert_eq!(r[0].plan, Plan::ToEnglish);
        assert_eq!(r[1].translation, None);
        assert_eq!(r[2].translation.as_deref(), Some("de:cat"));
        assert_eq!(fake.calls.load(Ordering::SeqCst), 2);
        let again = s.translate_all("s", &texts(&["猫"]), Lang::De).await;
        assert!(again[0].cached);
        assert_eq!(again[0].translation.as_deref(), Some("en:猫"));
        assert_eq!(
            fake.calls.load(Ordering::SeqCst),
            2,
            "served from the cache"
        );
        let other = s.translate_all("other", &texts(&["猫"]), Lang::De).await;
        assert!(!other[0].cached);
        assert_eq!(
            fake.calls.load(Ordering::SeqCst),
            3,
            "another session translates again"
        );
    }

    #[tokio::test]
    async fn failing_service_falls_back_to_the_dictionary() {
        let fake = Arc::new(Fake {
            calls: AtomicUsize::new(0),
            fail: true,
        });
        let s = PromptService::with_service(Some(fake), 100).unwrap();
        let r = s.translate_all("s", &texts(&["猫"]), Lang::En).await;
        assert_eq!(r[0].translation.as_deref(), Some("cat"));
        assert_eq!(r[0].provider, Some("dictionary"));
    }

    #[test]
    fn labels_and_random() {
        let s = PromptService::with_service(None, 10).unwrap();
        let l = s.labels(&["Negative".into(), "no-such-label".into()], Lang::ZhCN);
        assert!(l[0].1);
        assert_eq!(l[1], ("no-such-label".to_owned(), false));
        let (p, n, _) = s.random("nothing");
        assert!(!p.is_empty() && !n.is_empty());
    }
}
