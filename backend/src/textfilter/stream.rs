//! Filtering text that arrives in pieces: a character's streamed reply and
//! a polished prompt. A [`StreamFilter`] holds back the newest
//! [`HOLD_CHARS`] characters (a listed word split across deltas, or spelled
//! out over several, is then seen whole), releases the rest at word
//! boundaries, masked, as word-sized chunks (a word with the blanks before
//! it), and never changes what it released. No match spans a release cut:
//! the cut moves back before a match that would cross it.
//!
//! Every hit is masked in what is released (a model's text cannot be
//! refused after it began); [`Released::refused`] says a refusing entry
//! matched released text, for callers that end the stream instead
//! (polish answers 70020).

use protocol::textfilter::Scene;

use super::TextFilterService;

/// Characters held back before release. Enough for a listed word split
/// across the model's deltas, or spelled out over up to 16 characters
/// (`g-r-a-p-e`, `l.o.l.i.c.o.n`), to be seen whole; short enough that a
/// short reply or prompt still streams word by word. A word spelled out
/// over more characters can reach the frames unmasked (model text only:
/// what people write is checked whole before it is stored).
pub const HOLD_CHARS: usize = 16;
/// Characters of released text kept as context for the next check (whole
/// words and matches starting just before the cut).
const CONTEXT_CHARS: usize = 32;

/// What a push or the finish releases.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Released {
    /// Masked text in word-sized chunks, in order; joined, they are the
    /// released text.
    pub chunks: Vec<String>,
    /// A refusing entry matched the released text.
    pub refused: bool,
}

impl Released {
    /// The chunks joined.
    pub fn text(&self) -> String {
        self.chunks.concat()
    }
}

/// See the module docs. Without a service (tests of other parts), text
/// passes through unchanged, one chunk per push.
pub struct StreamFilter {
    service: Option<TextFilterService>,
    scene: Scene,
    /// Raw tail of the released text.
    context: String,
    /// Raw text not yet released.
    pending: String,
}

/// Splits `chars` into word-sized chunks: a new chunk starts at a blank that
/// follows a non-blank (so " a bc" is " a", " bc").
fn word_chunks(chars: &[char]) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_blank = true;
    for &c in chars {
        if c.is_whitespace() && !prev_blank && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        prev_blank = c.is_whitespace();
        cur.push(c);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

impl StreamFilter {
    /// A filter for `scene`; `released` is text already out before this
    /// stream (a continued reply), used as context only.
    pub fn new(service: Option<TextFilterService>, scene: Scene, released: &str) -> StreamFilter {
        let mut f = StreamFilter {
            service,
            scene,
            context: String::new(),
            pending: String::new(),
        };
        f.keep_context(released);
        f
    }

    fn keep_context(&mut self, released: &str) {
        self.context.push_str(released);
        let n = self.context.chars().count();
        if n > CONTEXT_CHARS {
            // Start at a blank, so no word is cut in two.
            let tail: Vec<char> = self.context.chars().skip(n - CONTEXT_CHARS).collect();
            let from = tail
                .iter()
                .position(|c| c.is_whitespace())
                .unwrap_or(tail.len());
            self.context = tail.get(from..).unwrap_or_default().iter().collect();
        }
    }

    /// Adds a delta; answers what may be released now.
    pub fn push(&mut self, delta: &str) -> Released {
        self.pending.push_str(delta);
        if self.service.is_none() {
            return self.release(true);
        }
        self.release(false)
    }

    /// No more text: releases everything held.
    pub fn finish(&mut self) -> Released {
        self.release(true)
    }

    fn release(&mut self, all: bool) -> Released {
        if self.pending.is_empty() {
            return Released::default();
        }
        let Some(service) = &self.service else {
            let text = std::mem::take(&mut self.pending);
            self.keep_context(&text);
            return Released {
                chunks: vec![text],
                refused: false,
            };
        };
        let pending: Vec<char> = self.pending.chars().collect();
        let mut cut = if all {
            pending.len()
        } else {
            match pending.len().checked_sub(HOLD_CHARS) {
                None | Some(0) => return Released::default(),
                Some(limit) => {
                    // The last word boundary at or before `limit`; text with
                    // no blanks (CJK) is cut at `limit`.
                    let boundary = (1..=limit).rev().find(|&i| {
                        pending.get(i).is_some_and(|c| c.is_whitespace())
                            && pending.get(i - 1).is_some_and(|c| !c.is_whitespace())
                    });
                    match boundary {
                        Some(b) => b,
                        None if pending.iter().any(|c| c.is_whitespace()) => 0,
                        None => limit,
                    }
                }
            }
        };
        let whole = format!("{}{}", self.context, self.pending);
        let verdict = service.check(&whole, self.scene);
        let offset = self.context.chars().count();
        // Move the cut before any match crossing it.
        loop {
            let crossing = verdict
                .hits
                .iter()
                .filter(|h| h.start < offset + cut && h.end > offset + cut)
                .map(|h| h.start.saturating_sub(offset))
                .min();
            match crossing {
                Some(start) if start < cut => cut = start,
                _ => break,
            }
        }
        if cut == 0 {
            return Released::default();
        }
        let refused = verdict.hits.iter().any(|h| {
            h.action == protocol::textfilter::Action::Refuse
                && h.start < offset + cut
                && h.end > offset
        });
        let masked: Vec<char> = verdict.masked.chars().skip(offset).take(cut).collect();
        let raw: String = pending.iter().take(cut).collect();
        self.pending = pending.iter().skip(cut).collect();
        self.keep_context(&raw);
        Released {
            chunks: word_chunks(&masked),
            refused,
        }
    }
}

impl TextFilterService {
    /// A model's whole answer (not streamed: reply suggestions, a polished
    /// draft) with every match masked, refusing entries included.
    pub fn mask_all(&self, scene: Scene, text: &str) -> String {
        let verdict = self.check(text, scene);
        if verdict.hits.is_empty() {
            text.to_owned()
        } else {
            verdict.masked
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use std::sync::Arc;

    use infra::store::DynStore;
    use protocol::textfilter::{Action, Entry, Kind};

    use super::*;

    async fn service() -> (tempfile::TempDir, TextFilterService) {
        let dir = tempfile::tempdir().unwrap();
        let store: DynStore = Arc::new(
            infra::store::embedded::EmbeddedStore::open(&dir.path().join("store")).unwrap(),
        );
        let s = TextFilterService::new(store).await.unwrap();
        s.upsert(
            "op",
            Entry {
                id: "op.grape".into(),
                term: "grape".into(),
                kind: Kind::Word,
                lang: "en".into(),
                category: "fruit".into(),
                action: Action::Refuse,
                scenes: vec![],
                whole_word: true,
            },
        )
        .await
        .unwrap();
        (dir, s)
    }

    /// Feeds `deltas`, answers (all chunks, refused anywhere).
    fn run(f: &mut StreamFilter, deltas: &[&str]) -> (Vec<String>, bool) {
        let mut chunks = Vec::new();
        let mut refused = false;
        for d in deltas {
            let r = f.push(d);
            refused |= r.refused;
            chunks.extend(r.chunks);
        }
        let r = f.finish();
        refused |= r.refused;
        chunks.extend(r.chunks);
        (chunks, refused)
    }

    #[test]
    fn chunks_are_words_with_their_blanks() {
        let c: Vec<char> = "a bc  d ".chars().collect();
        assert_eq!(word_chunks(&c), vec!["a", " bc", "  d", " "]);
        assert!(word_chunks(&[]).is_empty());
    }

    #[tokio::test]
    async fn words_split_across_deltas_are_masked_and_nothing_is_lost() {
        let (_dir, s) = service().await;
        let long = "the lighthouse keeper walks along the cliffs every evening and";
        let mut f = StreamFilter::new(Some(s.clone()), Scene::Message, "");
        // "fuck" arrives in three pieces and spaced out; the text is long
        // enough that earlier words are released before the end.
        let deltas = [
            long,
            " said f",
            "u",
            "ck twice, then f u c k again and",
            " went home",
        ];
        let (chunks, refused) = run(&mut f, &deltas);
        assert!(!refused);
        let out = chunks.concat();
        assert_eq!(
            out,
            format!("{long} said **** twice, then * * * * again and went home")
        );
        assert!(chunks.len() > 10, "released word by word: {chunks:?}");
        assert!(chunks.iter().all(|c| !c.is_empty()));

        // Released text never includes the held-back tail early.
        let mut f = StreamFilter::new(Some(s.clone()), Scene::Message, "");
        let r = f.push("a reply f");
        assert!(r.chunks.is_empty(), "{r:?}");
        let r = f.push("uck");
        assert!(r.chunks.is_empty());
        assert_eq!(f.finish().text(), "a reply ****");
    }

    #[tokio::test]
    async fn refusing_entries_are_masked_and_reported_only_once_released() {
        let (_dir, s) = service().await;
        let mut f = StreamFilter::new(Some(s.clone()), Scene::Prompt, "");
        let (chunks, refused) = run(&mut f, &["a bowl of ", "gr", "apes and a grape"]);
        assert!(refused);
        assert_eq!(chunks.concat(), "a bowl of grapes and a *****");

        // A held-back prefix of a longer word is not a match: "grape" then "fruit".
        let mut f = StreamFilter::new(Some(s.clone()), Scene::Prompt, "");
        let r = f.push("grape");
        assert!(!r.refused && r.chunks.is_empty());
        let (chunks, refused) = run(&mut f, &["fruit juice"]);
        assert!(!refused);
        assert_eq!(chunks.concat(), "grapefruit juice");
    }

    #[tokio::test]
    async fn a_continued_text_sees_its_released_context() {
        let (_dir, s) = service().await;
        let mut f = StreamFilter::new(Some(s), Scene::Message, "once upon a time, a ");
        let (chunks, _) = run(&mut f, &["grape rolled away"]);
        assert_eq!(chunks.concat(), "***** rolled away");
    }

    #[tokio::test]
    async fn text_without_blanks_is_released_past_the_hold() {
        let (_dir, s) = service().await;
        let mut f = StreamFilter::new(Some(s), Scene::Message, "");
        let text = "灯".repeat(HOLD_CHARS + 10);
        let r = f.push(&text);
        assert_eq!(r.text().chars().count(), 10);
        assert_eq!(format!("{}{}", r.text(), f.finish().text()), text);
    }

    #[test]
    fn without_a_service_text_passes_through() {
        let mut f = StreamFilter::new(None, Scene::Message, "");
        assert_eq!(f.push("f").chunks, vec!["f"]);
        assert_eq!(f.push("uck").chunks, vec!["uck"]);
        assert!(f.finish().chunks.is_empty());
    }
}
