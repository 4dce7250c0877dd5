//! The tantivy schema of the square index, its version, and the mapping of a [`SearchDoc`] to a
//! tantivy document.

use tantivy::schema::{
    Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions, FAST, INDEXED, STORED, STRING,
};
use tantivy::{TantivyDocument, Term};

use crate::tokenizer::INDEX_ANALYZER;
use crate::{DocKind, SearchDoc, SearchError};

/// Version of the on-disk layout (schema and analysis). Bump it whenever either changes: an
/// index written under another version is wiped and reported by
/// [`crate::SearchIndex::needs_rebuild`].
pub const SCHEMA_VERSION: u32 = 1;

/// The schema's field handles.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fields {
    /// `kind:id`, the unique key (raw, stored).
    pub key: Field,
    pub kind: Field,
    /// Analysed and stored (completion returns it).
    pub title: Field,
    pub tags: Field,
    pub body: Field,
    pub author_name: Field,
    pub author_id: Field,
    pub visibility: Field,
    pub nsfw: Field,
    pub created_ms: Field,
    pub popularity: Field,
}

pub(crate) fn build_schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let text = |stored: bool| {
        let opts = TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(INDEX_ANALYZER)
                .set_index_option(IndexRecordOption::WithFreqs),
        );
        if stored {
            opts.set_stored()
        } else {
            opts
        }
    };
    let fields = Fields {
        key: b.add_text_field("key", STRING | STORED),
        kind: b.add_text_field("kind", STRING),
        title: b.add_text_field("title", text(true)),
        tags: b.add_text_field("tags", text(false)),
        body: b.add_text_field("body", text(false)),
        author_name: b.add_text_field("author_name", text(false)),
        author_id: b.add_text_field("author_id", STRING),
        visibility: b.add_text_field("visibility", STRING),
        nsfw: b.add_bool_field("nsfw", INDEXED),
        created_ms: b.add_i64_field("created_ms", FAST),
        popularity: b.add_f64_field("popularity", FAST),
    };
    (b.build(), fields)
}

/// Looks the fields up in an opened index's schema; `None` if any is missing.
pub(crate) fn fields_of(schema: &Schema) -> Option<Fields> {
    let f = |name: &str| schema.get_field(name).ok();
    Some(Fields {
        key: f("key")?,
        kind: f("kind")?,
        title: f("title")?,
        tags: f("tags")?,
        body: f("body")?,
        author_name: f("author_name")?,
        author_id: f("author_id")?,
        visibility: f("visibility")?,
        nsfw: f("nsfw")?,
        created_ms: f("created_ms")?,
        popularity: f("popularity")?,
    })
}

/// The unique key of a document.
pub(crate) fn key(kind: DocKind, id: &str) -> String {
    format!("{}:{id}", kind.as_str())
}

/// Splits a stored key back into kind and id.
pub(crate) fn parse_key(key: &str) -> Result<(DocKind, String), SearchError> {
    let (kind, id) = key.split_once(':').ok_or(SearchError::BadStoredKey)?;
    let kind = DocKind::parse(kind).ok_or(SearchError::BadStoredKey)?;
    Ok((kind, id.to_string()))
}

pub(crate) fn key_term(fields: &Fields, kind: DocKind, id: &str) -> Term {
    Term::from_field_text(fields.key, &key(kind, id))
}

/// Popularity as indexed: negative and non-finite values count as 0.
pub(crate) fn clean_popularity(p: f64) -> f64 {
    if p.is_finite() && p > 0.0 {
        p
    } else {
        0.0
    }
}

pub(crate) fn to_document(fields: &Fields, doc: &SearchDoc) -> TantivyDocument {
    let mut d = TantivyDocument::default();
    d.add_text(fields.key, key(doc.kind, &doc.id));
    d.add_text(fields.kind, doc.kind.as_str());
    d.add_text(fields.title, &doc.title);
    for tag in &doc.tags {
        d.add_text(fields.tags, tag);
    }
    d.add_text(fields.body, &doc.body);
    d.add_text(fields.author_name, &doc.author_name);
    d.add_text(fields.author_id, &doc.author_id);
    d.add_text(fields.visibility, doc.visibility.as_str());
    d.add_bool(fields.nsfw, doc.nsfw);
    d.add_i64(fields.created_ms, doc.created_ms);
    d.add_f64(fields.popularity, clean_popularity(doc.popularity));
    d
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

    use super::*;

    #[test]
    fn keys_round_trip_ids_with_colons() {
        for kind in DocKind::ALL {
            let k = key(kind, "a:b:c");
            assert_eq!(parse_key(&k).unwrap(), (kind, "a:b:c".to_string()));
        }
        assert!(parse_key("nokind").is_err());
        assert!(parse_key("bogus:1").is_err());
    }

    #[test]
    fn popularity_is_cleaned() {
        for (given, want) in [
            (3.5, 3.5),
            (-1.0, 0.0),
            (f64::NAN, 0.0),
            (f64::INFINITY, 0.0),
        ] {
            assert_eq!(clean_popularity(given), want, "{given}");
        }
    }

    #[test]
    fn built_schema_fields_are_found_again() {
        let (schema, fields) = build_schema();
        let again = fields_of(&schema).unwrap();
        assert_eq!(again.popularity, fields.popularity);
        assert_eq!(again.key, fields.key);
    }
}
