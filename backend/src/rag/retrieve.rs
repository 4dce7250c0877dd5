//! Retrieval: which of the datacards a document made for a character fit a
//! chat message, so the owner's chats with that character bring the
//! relevant parts of the document into the prompt (beyond the cards bound
//! to the session). Scoring is pure: terms are lower-cased words of three
//! or more letters (a small stop list left out) and, for CJK text, pairs of
//! adjacent characters; a card scores the sum of `ln(1 + N / df)` over the
//! message's terms it holds (a term in its title counts twice); the best
//! `k` cards with a score above 0 are taken, ties to document order.

use std::collections::{HashMap, HashSet};

use infra::store::{Key, ScanRange};
use protocol::rag::chunk::is_cjk;

use super::RagService;
use crate::characters::row::DatacardRow;
use crate::error::ApiError;

/// Most imported cards of a character looked at per message.
pub const MAX_CANDIDATES: usize = 300;

const STOP: &[&str] = &[
    "the", "and", "for", "are", "but", "not", "you", "your", "with", "this", "that", "from",
    "have", "has", "was", "were", "what", "who", "how", "why", "when", "where", "which", "will",
    "would", "can", "could", "about", "tell", "does", "did", "her", "his", "she", "him", "they",
    "them", "their", "there", "here", "its", "our", "any", "all",
];

/// The terms of a text (see the module's rules), each once.
pub fn terms(text: &str) -> HashSet<String> {
    let mut out = HashSet::new();
    let mut word = String::new();
    let mut prev_cjk: Option<char> = None;
    let flush = |word: &mut String, out: &mut HashSet<String>| {
        if word.chars().count() >= 3 && !STOP.contains(&word.as_str()) {
            out.insert(std::mem::take(word));
        }
        word.clear();
    };
    for c in text.chars() {
        if is_cjk(c) && c.is_alphanumeric() {
            flush(&mut word, &mut out);
            if let Some(p) = prev_cjk {
                out.insert(format!("{p}{c}"));
            }
            prev_cjk = Some(c);
        } else if c.is_alphanumeric() {
            prev_cjk = None;
            word.extend(c.to_lowercase());
        } else {
            prev_cjk = None;
            flush(&mut word, &mut out);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// The indexes of the best `k` cards (title, content) for `query`.
pub fn rank(query: &str, cards: &[(&str, &str)], k: usize) -> Vec<usize> {
    let q = terms(query);
    if q.is_empty() || k == 0 {
        return Vec::new();
    }
    let card_terms: Vec<(HashSet<String>, HashSet<String>)> =
        cards.iter().map(|(t, c)| (terms(t), terms(c))).collect();
    let mut df: HashMap<&str, usize> = HashMap::new();
    for (t, c) in &card_terms {
        for term in q.iter() {
            if t.contains(term) || c.contains(term) {
                *df.entry(term.as_str()).or_default() += 1;
            }
        }
    }
    let n = cards.len() as f64;
    let mut scored: Vec<(f64, usize)> = card_terms
        .iter()
        .enumerate()
        .map(|(i, (t, c))| {
            let s: f64 = q
                .iter()
                .map(|term| {
                    let idf = (1.0 + n / df.get(term.as_str()).copied().unwrap_or(1) as f64).ln();
                    let hits = usize::from(t.contains(term)) * 2 + usize::from(c.contains(term));
                    idf * hits as f64
                })
                .sum();
            (s, i)
        })
        .filter(|(s, _)| *s > 0.0)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.into_iter().take(k).map(|(_, i)| i).collect()
}

impl RagService {
    /// The owner's cards made for `character_id` that fit `query` best (at
    /// most `k`), leaving out `skip` (cards the session binds already).
    pub async fn relevant(
        &self,
        owner: &str,
        character_id: &str,
        query: &str,
        k: usize,
        skip: &[String],
    ) -> Result<Vec<DatacardRow>, ApiError> {
        if character_id.is_empty() || k == 0 {
            return Ok(Vec::new());
        }
        let page = self
            .inner
            .character_cards
            .scan(
                &Key::of(character_id),
                &ScanRange::all(u32::try_from(MAX_CANDIDATES).unwrap_or(300)),
            )
            .await?;
        let ids: Vec<String> = page
            .rows
            .into_iter()
            .filter(|(_, who)| who == owner)
            .filter_map(|(ck, _)| ck.reader().str())
            .filter(|id| !skip.contains(id))
            .collect();
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut rows = self.inner.characters.load_datacards(owner, &ids).await?;
        rows.sort_by(|a, b| a.create_at.cmp(&b.create_at).then(a.id.cmp(&b.id)));
        let pairs: Vec<(&str, &str)> = rows
            .iter()
            .map(|d| (d.title.as_str(), d.content.as_str()))
            .collect();
        let best = rank(query, &pairs, k);
        Ok(best
            .into_iter()
            .filter_map(|i| rows.get(i).cloned())
            .collect())
    }
}
