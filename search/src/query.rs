//! Answering questions: keyword search with visibility, nsfw and kind filters, ranking with the
//! popularity boost, and completion as you type. User text only ever becomes terms through the
//! query analyzer; it is never parsed as query syntax.

use std::collections::HashSet;
use std::ops::Bound;

use tantivy::collector::{Count, TopDocs};
use tantivy::query::{
    BooleanQuery, BoostQuery, ConstScoreQuery, InvertedIndexRangeQuery, Occur, Query, TermQuery,
    TermSetQuery,
};
use tantivy::schema::{Field, IndexRecordOption, Value};
use tantivy::{DocAddress, DocId, Order, Score, Searcher, SegmentReader, TantivyDocument, Term};

use crate::schema::{parse_key, Fields};
use crate::tokenizer::{distinct_terms, query_analyzer};
use crate::{Hit, SearchError, SearchIndex, SearchPage, SearchQuery, Visibility};

/// Weight of a term found in the title.
pub const TITLE_BOOST: Score = 3.0;
/// Weight of a term found in the tags.
pub const TAGS_BOOST: Score = 2.0;
/// `w` in `score = relevance × (1 + w × ln(1 + popularity))`.
pub const POPULARITY_WEIGHT: f64 = 0.1;
/// Terms of a keyword beyond this many are ignored.
pub const MAX_QUERY_TERMS: usize = 32;
/// `offset + limit` of a search (and the completion scan) never goes beyond this.
pub const MAX_WINDOW: usize = 10_000;
/// Completions returned at most.
const MAX_COMPLETIONS: usize = 50;
/// Longest keyword looked at, in bytes; the rest is ignored.
const MAX_KEYWORD_BYTES: usize = 1024;

type Clause = (Occur, Box<dyn Query>);

impl SearchIndex {
    /// The page `offset..offset + limit` of the documents matching `q.keyword` that the viewer
    /// may see, best first, and how many match in all. Never fails because of the keyword.
    pub fn search(&self, q: &SearchQuery) -> Result<SearchPage, SearchError> {
        let s = self.shared();
        let f = &s.fields;
        let terms = keyword_terms(&q.keyword);
        if terms.is_empty() {
            return Ok(SearchPage::default());
        }
        let mut clauses: Vec<Clause> = vec![(Occur::Must, text_query(f, &terms))];
        clauses.push((Occur::Must, filter(visibility_filter(f, q))));
        if !q.kinds.is_empty() {
            let kinds = q
                .kinds
                .iter()
                .map(|k| Term::from_field_text(f.kind, k.as_str()));
            clauses.push((Occur::Must, filter(Box::new(TermSetQuery::new(kinds)))));
        }
        if !q.show_nsfw {
            clauses.push((Occur::MustNot, nsfw_query(f)));
        }
        let query = BooleanQuery::new(clauses);

        let searcher = s.reader.searcher();
        let end = q.offset.saturating_add(q.limit).min(MAX_WINDOW);
        let start = q.offset.min(end);
        if start == end {
            let total = searcher.search(&query, &Count)?;
            return Ok(SearchPage {
                hits: Vec::new(),
                total,
            });
        }
        let top = TopDocs::for_doc_range(start..end).tweak_score(popularity_boosted);
        let (docs, total) = searcher.search(&query, &(top, Count))?;
        let mut hits = Vec::with_capacity(docs.len());
        for (score, address) in docs {
            let (kind, id) = parse_key(&stored_text(&searcher, address, f.key)?)?;
            hits.push(Hit { kind, id, score });
        }
        Ok(SearchPage { hits, total })
    }

    /// Up to `limit` (at most 50) distinct titles, tags and account names of public,
    /// non-nsfw documents with a word starting with `prefix` (case-insensitive; for CJK, a
    /// character sequence starting with it), most popular first.
    pub fn complete(&self, prefix: &str, limit: usize) -> Result<Vec<String>, SearchError> {
        let s = self.shared();
        let f = &s.fields;
        let limit = limit.min(MAX_COMPLETIONS);
        let terms = keyword_terms(prefix);
        let Some((last, whole)) = terms.split_last() else {
            return Ok(Vec::new());
        };
        if limit == 0 {
            return Ok(Vec::new());
        }
        let mut clauses: Vec<Clause> = whole
            .iter()
            .map(|t| -> Clause { (Occur::Must, term_query(f.title, t)) })
            .collect();
        clauses.push((Occur::Must, prefix_query(f.title, last)));
        clauses.push((
            Occur::Must,
            text_is(f.visibility, Visibility::Public.as_str()),
        ));
        clauses.push((Occur::MustNot, nsfw_query(f)));
        let query = BooleanQuery::new(clauses);

        let searcher = s.reader.searcher();
        let mut window = limit * 4 + 8;
        loop {
            let by_popularity =
                TopDocs::with_limit(window).order_by_fast_field::<f64>("popularity", Order::Desc);
            let docs = searcher.search(&query, &by_popularity)?;
            let exhausted = docs.len() < window || window >= MAX_WINDOW;
            let mut seen = HashSet::new();
            let mut out = Vec::new();
            for (_, address) in docs {
                let title = stored_text(&searcher, address, f.title)?;
                let title = title.trim();
                if !title.is_empty() && seen.insert(title.to_lowercase()) {
                    out.push(title.to_string());
                    if out.len() == limit {
                        return Ok(out);
                    }
                }
            }
            if exhausted {
                return Ok(out);
            }
            window = window.saturating_mul(4).min(MAX_WINDOW);
        }
    }
}

/// The distinct query terms of a user's text.
fn keyword_terms(keyword: &str) -> Vec<String> {
    let mut cut = keyword.len().min(MAX_KEYWORD_BYTES);
    while !keyword.is_char_boundary(cut) {
        cut -= 1;
    }
    let head = keyword.get(..cut).unwrap_or_default();
    distinct_terms(&mut query_analyzer(), head, MAX_QUERY_TERMS)
}

/// Every term must occur in some field; each field's BM25 score is weighted and summed.
fn text_query(f: &Fields, terms: &[String]) -> Box<dyn Query> {
    let fields: [(Field, Score); 4] = [
        (f.title, TITLE_BOOST),
        (f.tags, TAGS_BOOST),
        (f.body, 1.0),
        (f.author_name, 1.0),
    ];
    let per_term = terms
        .iter()
        .map(|t| -> Clause {
            let any_field = fields
                .iter()
                .map(|&(field, boost)| -> Clause {
                    (
                        Occur::Should,
                        Box::new(BoostQuery::new(term_query(field, t), boost)),
                    )
                })
                .collect();
            (Occur::Must, Box::new(BooleanQuery::new(any_field)))
        })
        .collect();
    Box::new(BooleanQuery::new(per_term))
}

/// Public always; Followers if the author is the viewer or followed; Private if the author is
/// the viewer.
fn visibility_filter(f: &Fields, q: &SearchQuery) -> Box<dyn Query> {
    let viewer = q.viewer.as_deref().filter(|v| !v.is_empty());
    let mut visible: Vec<Clause> = vec![(
        Occur::Should,
        text_is(f.visibility, Visibility::Public.as_str()),
    )];
    let followed_authors: Vec<Term> = q
        .viewer_follows
        .iter()
        .map(String::as_str)
        .chain(viewer)
        .filter(|a| !a.is_empty())
        .map(|a| Term::from_field_text(f.author_id, a))
        .collect();
    if !followed_authors.is_empty() {
        visible.push((
            Occur::Should,
            Box::new(BooleanQuery::new(vec![
                (
                    Occur::Must,
                    text_is(f.visibility, Visibility::Followers.as_str()),
                ),
                (Occur::Must, Box::new(TermSetQuery::new(followed_authors))),
            ])),
        ));
    }
    if let Some(viewer) = viewer {
        visible.push((
            Occur::Should,
            Box::new(BooleanQuery::new(vec![
                (
                    Occur::Must,
                    text_is(f.visibility, Visibility::Private.as_str()),
                ),
                (Occur::Must, text_is(f.author_id, viewer)),
            ])),
        ));
    }
    Box::new(BooleanQuery::new(visible))
}

/// A clause that restricts without scoring.
fn filter(q: Box<dyn Query>) -> Box<dyn Query> {
    Box::new(ConstScoreQuery::new(q, 0.0))
}

fn nsfw_query(f: &Fields) -> Box<dyn Query> {
    Box::new(TermQuery::new(
        Term::from_field_bool(f.nsfw, true),
        IndexRecordOption::Basic,
    ))
}

/// A raw (untokenized) field equals `value`.
fn text_is(field: Field, value: &str) -> Box<dyn Query> {
    Box::new(TermQuery::new(
        Term::from_field_text(field, value),
        IndexRecordOption::Basic,
    ))
}

/// An analysed field holds the term (scored with BM25).
fn term_query(field: Field, term: &str) -> Box<dyn Query> {
    Box::new(TermQuery::new(
        Term::from_field_text(field, term),
        IndexRecordOption::WithFreqs,
    ))
}

/// An analysed field holds a term starting with `prefix`.
fn prefix_query(field: Field, prefix: &str) -> Box<dyn Query> {
    let lower = Bound::Included(Term::from_field_text(field, prefix));
    let upper = match prefix_successor(prefix.as_bytes()) {
        Some(end) => Bound::Excluded(Term::from_field_bytes(field, &end)),
        None => Bound::Unbounded,
    };
    Box::new(InvertedIndexRangeQuery::new(lower, upper))
}

/// The smallest byte string greater than every string starting with `prefix`, if any.
fn prefix_successor(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < u8::MAX {
            end.push(last + 1);
            return Some(end);
        }
    }
    None
}

/// The ranking of the crate docs: relevance times `1 + w·ln(1 + popularity)`.
fn popularity_boosted(segment: &SegmentReader) -> impl Fn(DocId, Score) -> Score {
    let popularity = segment
        .fast_fields()
        .f64("popularity")
        .ok()
        .map(|column| column.first_or_default_col(0.0));
    move |doc: DocId, relevance: Score| {
        let p = popularity.as_ref().map_or(0.0, |c| c.get_val(doc)).max(0.0);
        (f64::from(relevance) * (1.0 + POPULARITY_WEIGHT * p.ln_1p())) as Score
    }
}

fn stored_text(
    searcher: &Searcher,
    address: DocAddress,
    field: Field,
) -> Result<String, SearchError> {
    let doc: TantivyDocument = searcher.doc(address)?;
    Ok(doc
        .get_first(field)
        .and_then(|v| v.as_str())
        .unwrap_or_default()
        .to_string())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

    use super::*;

    #[test]
    fn prefix_successor_table() {
        let cases: &[(&[u8], Option<&[u8]>)] = &[
            (b"ab", Some(b"ac")),
            (b"a\xff", Some(b"b")),
            (b"\xff\xff", None),
            (b"", None),
        ];
        for (given, want) in cases {
            assert_eq!(prefix_successor(given).as_deref(), *want, "{given:?}");
        }
    }

    #[test]
    fn keyword_is_cut_on_a_char_boundary() {
        let long = "é ".repeat(MAX_KEYWORD_BYTES);
        assert_eq!(keyword_terms(&long).len(), 1);
        assert!(keyword_terms("\"(:*)\"").is_empty());
    }
}
