//! The per-session translation cache (spec 3 §4: "a text is translated only
//! once per session"). Keyed by session, target language and text; bounded
//! by a total entry count across all sessions, evicting the least recently
//! used eighth when full, so memory stays flat however many visitors come.

use std::collections::HashMap;
use std::sync::Mutex;

use super::lang::Lang;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    session: String,
    source: Lang,
    target: Lang,
    text: String,
}

/// A cached translation: the translated text, what the translator did not
/// know, and which translator made it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cached {
    pub text: String,
    pub unknown: Vec<String>,
    pub provider: &'static str,
}

struct Inner {
    map: HashMap<Key, (Cached, u64)>,
    /// A logical clock: every hit or insert takes the next tick, so the
    /// entries with the smallest ticks are the least recently used.
    tick: u64,
}

pub struct TranslationCache {
    capacity: usize,
    /// A std mutex: lookups and inserts are map operations, never held across
    /// an await; eviction is O(n) but runs once per `capacity / 8` inserts.
    inner: Mutex<Inner>,
}

impl TranslationCache {
    pub fn new(capacity: usize) -> TranslationCache {
        TranslationCache {
            capacity: capacity.max(1),
            inner: Mutex::new(Inner {
                map: HashMap::new(),
                tick: 0,
            }),
        }
    }

    pub fn get(&self, session: &str, source: Lang, target: Lang, text: &str) -> Option<Cached> {
        let mut inner = self.inner.lock().ok()?;
        inner.tick += 1;
        let tick = inner.tick;
        let key = Key {
            session: session.to_owned(),
            source,
            target,
            text: text.to_owned(),
        };
        let (value, used) = inner.map.get_mut(&key)?;
        *used = tick;
        Some(value.clone())
    }

    pub fn put(&self, session: &str, source: Lang, target: Lang, text: &str, value: Cached) {
        let Ok(mut inner) = self.inner.lock() else {
            return;
        };
        if inner.map.len() >= self.capacity {
            let mut ticks: Vec<u64> = inner.map.values().map(|(_, t)| *t).collect();
            ticks.sort_unstable();
            let drop = (self.capacity / 8).max(1);
            let cut = ticks.get(drop - 1).copied().unwrap_or(u64::MAX);
            inner.map.retain(|_, (_, t)| *t > cut);
        }
        inner.tick += 1;
        let tick = inner.tick;
        inner.map.insert(
            Key {
                session: session.to_owned(),
                source,
                target,
                text: text.to_owned(),
            },
            (value, tick),
        );
    }

    pub fn len(&self) -> usize {
        self.inner.lock().map(|i| i.map.len()).unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(t: &str) -> Cached {
        Cached {
            text: t.into(),
            unknown: vec![],
            provider: "dictionary",
        }
    }

    #[test]
    fn per_session_and_language() {
        let c = TranslationCache::new(10);
        c.put("s1", Lang::ZhCN, Lang::En, "猫", v("cat"));
        assert_eq!(c.get("s1", Lang::ZhCN, Lang::En, "猫"), Some(v("cat")));
        assert_eq!(c.get("s2", Lang::ZhCN, Lang::En, "猫"), None);
        assert_eq!(c.get("s1", Lang::Ja, Lang::En, "猫"), None);
        assert_eq!(c.get("s1", Lang::ZhCN, Lang::De, "猫"), None);
    }

    #[test]
    fn bounded_and_least_recently_used_goes_first() {
        let c = TranslationCache::new(16);
        for i in 0..16 {
            c.put("s", Lang::En, Lang::De, &i.to_string(), v("x"));
        }
        // Touch the oldest so it survives.
        assert!(c.get("s", Lang::En, Lang::De, "0").is_some());
        c.put("s", Lang::En, Lang::De, "new", v("y"));
        assert!(c.len() <= 16);
        assert!(
            c.get("s", Lang::En, Lang::De, "0").is_some(),
            "recently used kept"
        );
        assert!(
            c.get("s", Lang::En, Lang::De, "1").is_none(),
            "least recently used evicted"
        );
        assert!(c.get("s", Lang::En, Lang::De, "new").is_some());
        for i in 0..1000 {
            c.put("t", Lang::En, Lang::De, &i.to_string(), v("x"));
            assert!(c.len() <= 16);
        }
    }
}
