//! Behaviour tests of the square's search index, on a real on-disk index in a temp folder with
//! a 10 ms commit interval.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod complete;
mod lifecycle;
mod matching;

use std::path::Path;
use std::time::Duration;

use easel_search::{
    DocKind, SearchDoc, SearchIndex, SearchOptions, SearchPage, SearchQuery, Visibility,
};

pub fn options() -> SearchOptions {
    SearchOptions {
        commit_interval: Duration::from_millis(10),
        ..SearchOptions::default()
    }
}

pub fn open(dir: &Path) -> SearchIndex {
    SearchIndex::open_with(dir, options()).unwrap()
}

/// A temp folder, in memory (`/dev/shm`) where there is one: every commit syncs its files, which
/// costs real time on a disk and nothing on tmpfs.
pub fn tempdir() -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        if let Ok(dir) = tempfile::tempdir_in(shm) {
            return dir;
        }
    }
    tempfile::tempdir().unwrap()
}

/// A fresh index in a temp folder.
pub fn fresh() -> (tempfile::TempDir, SearchIndex) {
    let tmp = tempdir();
    let index = open(&tmp.path().join("index"));
    (tmp, index)
}

/// A public, safe work by account `a1` ("Ann").
pub fn doc(kind: DocKind, id: &str, title: &str) -> SearchDoc {
    SearchDoc {
        kind,
        id: id.into(),
        title: title.into(),
        body: String::new(),
        tags: Vec::new(),
        author_id: "a1".into(),
        author_name: "Ann".into(),
        visibility: Visibility::Public,
        nsfw: false,
        created_ms: 1_700_000_000_000,
        popularity: 0.0,
    }
}

pub fn work(id: &str, title: &str) -> SearchDoc {
    doc(DocKind::Work, id, title)
}

pub fn query(keyword: &str) -> SearchQuery {
    SearchQuery {
        keyword: keyword.into(),
        limit: 100,
        ..SearchQuery::default()
    }
}

pub fn ids(page: &SearchPage) -> Vec<String> {
    page.hits.iter().map(|h| h.id.clone()).collect()
}

/// Ids matching `keyword` for an anonymous visitor.
pub fn find(index: &SearchIndex, keyword: &str) -> Vec<String> {
    ids(&index.search(&query(keyword)).unwrap())
}

/// Upserts `docs` and commits.
pub fn put(index: &SearchIndex, docs: impl IntoIterator<Item = SearchDoc>) {
    for d in docs {
        index.upsert(d);
    }
    index.commit_now().unwrap();
}

#[test]
fn kinds_and_visibility_serialize_lowercase() {
    let cases = [
        (serde_json::to_string(&DocKind::Work).unwrap(), "\"work\""),
        (
            serde_json::to_string(&DocKind::Article).unwrap(),
            "\"article\"",
        ),
        (
            serde_json::to_string(&DocKind::Character).unwrap(),
            "\"character\"",
        ),
        (
            serde_json::to_string(&DocKind::Account).unwrap(),
            "\"account\"",
        ),
        (serde_json::to_string(&DocKind::Tag).unwrap(), "\"tag\""),
        (
            serde_json::to_string(&Visibility::Followers).unwrap(),
            "\"followers\"",
        ),
    ];
    for (got, want) in cases {
        assert_eq!(got, want);
    }
}

#[test]
fn search_index_is_send_sync_clone() {
    fn check<T: Send + Sync + Clone + 'static>() {}
    check::<SearchIndex>();
}
