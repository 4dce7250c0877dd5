//! Opening, rebuilding, reopening and wiping the on-disk index.

use std::fs;

use easel_search::{SearchError, SearchIndex, SCHEMA_VERSION};

use crate::{find, fresh, open, options, put, tempdir, work};

#[test]
fn rebuild_replaces_everything() {
    let (_tmp, index) = fresh();
    assert!(index.needs_rebuild());
    put(&index, [work("old", "anchor")]);
    index
        .rebuild([work("b", "anchor bay"), work("c", "anchor chain")])
        .unwrap();
    assert!(!index.needs_rebuild());
    let mut got = find(&index, "anchor");
    got.sort();
    assert_eq!(got, vec!["b", "c"]);
    index.rebuild([]).unwrap();
    assert!(find(&index, "anchor").is_empty());
}

#[test]
fn reopen_after_drop_keeps_data_and_pending_writes() {
    let tmp = tempdir();
    let dir = tmp.path().join("index");
    {
        let index = open(&dir);
        index.rebuild([work("a", "orchard")]).unwrap();
        let clone = index.clone();
        // Not committed explicitly: dropping the last clone commits it.
        clone.upsert(work("b", "orchard gate"));
    }
    let index = open(&dir);
    assert!(!index.needs_rebuild());
    let mut got = find(&index, "orchard");
    got.sort();
    assert_eq!(got, vec!["a", "b"]);
}

#[test]
fn needs_rebuild_cases() {
    type Setup = fn(&std::path::Path);
    let cases: [(&str, Setup, bool); 5] = [
        ("intact", |_| {}, false),
        ("folder deleted", |d| fs::remove_dir_all(d).unwrap(), true),
        (
            "folder emptied",
            |d| {
                fs::remove_dir_all(d).unwrap();
                fs::create_dir(d).unwrap();
            },
            true,
        ),
        (
            "other schema version",
            |d| {
                fs::write(
                    d.join("easel-search.version"),
                    format!("{}\n", SCHEMA_VERSION + 1),
                )
                .unwrap()
            },
            true,
        ),
        (
            "index files lost",
            |d| fs::remove_file(d.join("meta.json")).unwrap(),
            true,
        ),
    ];
    for (name, damage, want) in cases {
        let tmp = tempdir();
        let dir = tmp.path().join("index");
        {
            let index = open(&dir);
            index.rebuild([work("a", "lantern")]).unwrap();
        }
        damage(&dir);
        let index = open(&dir);
        assert_eq!(index.needs_rebuild(), want, "{name}");
        let expected: Vec<String> = if want { vec![] } else { vec!["a".into()] };
        assert_eq!(find(&index, "lantern"), expected, "{name}");
    }
}

#[test]
fn never_rebuilt_index_is_reported_again() {
    let tmp = tempdir();
    let dir = tmp.path().join("index");
    {
        let index = open(&dir);
        assert!(index.needs_rebuild());
        put(&index, [work("a", "partial")]);
    }
    let index = open(&dir);
    assert!(index.needs_rebuild());
    assert!(find(&index, "partial").is_empty());
}

#[test]
fn foreign_folder_is_refused_not_wiped() {
    let tmp = tempdir();
    fs::write(tmp.path().join("notes.txt"), "keep me").unwrap();
    let err = SearchIndex::open_with(tmp.path(), options()).err();
    assert!(
        matches!(err, Some(SearchError::ForeignFolder(_))),
        "{err:?}"
    );
    assert_eq!(
        fs::read_to_string(tmp.path().join("notes.txt")).unwrap(),
        "keep me"
    );
}

#[test]
fn second_open_of_a_live_folder_is_busy_and_wipes_nothing() {
    let tmp = tempdir();
    let dir = tmp.path().join("index");
    let first = open(&dir);
    // Never rebuilt: a second open would wipe it if it could.
    put(&first, [work("a", "beacon")]);
    let second = SearchIndex::open_with(&dir, options());
    assert!(
        matches!(second, Err(SearchError::Busy(_))),
        "{:?}",
        second.err()
    );
    assert_eq!(find(&first, "beacon"), vec!["a"]);
    first.upsert(work("b", "beacon"));
    first.commit_now().unwrap();
    drop(first);
    assert!(SearchIndex::open_with(&dir, options()).is_ok());
}

#[test]
fn clones_write_from_many_threads() {
    let (_tmp, index) = fresh();
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let index = index.clone();
            std::thread::spawn(move || {
                for i in 0..50 {
                    index.upsert(work(&format!("t{t}-{i}"), "parallel"));
                    if i % 10 == 0 {
                        // Searching while others write never fails.
                        index.search(&crate::query("parallel")).unwrap();
                    }
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    index.commit_now().unwrap();
    assert_eq!(index.search(&crate::query("parallel")).unwrap().total, 200);
}
