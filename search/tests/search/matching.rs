//! Keyword matching, filters, ranking and paging.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use easel_search::{DocKind, SearchQuery, Visibility, MAX_WINDOW};

use crate::{doc, find, fresh, ids, put, query, work};

#[test]
fn upsert_then_find_in_each_field() {
    let (_tmp, index) = fresh();
    let mut w = work("w1", "Sunset over the harbour");
    w.body = "A long exposure of fishing boats".into();
    w.tags = vec!["seascape".into(), "golden-hour".into()];
    w.author_name = "Marguerite".into();
    put(&index, [w]);
    for keyword in [
        "sunset",
        "HARBOUR",
        "fishing boats",
        "seascape",
        "golden",
        "marguerite",
    ] {
        assert_eq!(find(&index, keyword), vec!["w1"], "{keyword}");
    }
    assert!(find(&index, "sunrise").is_empty());
    // Every word must match somewhere.
    assert!(find(&index, "sunset sunrise").is_empty());
}

#[test]
fn background_commit_makes_writes_searchable() {
    let (_tmp, index) = fresh();
    index.upsert(work("w1", "lighthouse"));
    let give_up = Instant::now() + Duration::from_secs(30);
    while find(&index, "lighthouse").is_empty() {
        assert!(Instant::now() < give_up, "never committed");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn update_replaces_without_duplicates() {
    let (_tmp, index) = fresh();
    put(&index, [work("w1", "alpha draft")]);
    put(&index, [work("w1", "beta draft")]);
    put(&index, [work("w1", "beta draft final")]);
    assert!(find(&index, "alpha").is_empty());
    let page = index.search(&query("draft")).unwrap();
    assert_eq!((ids(&page), page.total), (vec!["w1".to_string()], 1));
}

#[test]
fn queued_writes_apply_in_order() {
    let (_tmp, index) = fresh();
    for round in 0..=50 {
        index.upsert(work("w1", &format!("version{round}")));
        if round % 7 == 0 {
            index.delete(DocKind::Work, "w1");
        }
    }
    index.commit_now().unwrap();
    assert_eq!(find(&index, "version50"), vec!["w1"]);
    let page = index.search(&query("version49")).unwrap();
    assert_eq!(page.total, 0);
    index.upsert(work("w1", "again"));
    index.delete(DocKind::Work, "w1");
    index.commit_now().unwrap();
    assert!(find(&index, "again").is_empty());
}

#[test]
fn same_id_of_another_kind_is_another_document() {
    let (_tmp, index) = fresh();
    put(
        &index,
        [work("x", "shared"), doc(DocKind::Article, "x", "shared")],
    );
    assert_eq!(index.search(&query("shared")).unwrap().total, 2);
    index.delete(DocKind::Work, "x");
    index.commit_now().unwrap();
    let page = index.search(&query("shared")).unwrap();
    assert_eq!(page.hits.len(), 1);
    assert_eq!(page.hits[0].kind, DocKind::Article);
}

#[test]
fn delete_removes() {
    let (_tmp, index) = fresh();
    put(&index, [work("w1", "comet"), work("w2", "comet tail")]);
    index.delete(DocKind::Work, "w1");
    index.delete(DocKind::Work, "missing");
    index.commit_now().unwrap();
    assert_eq!(find(&index, "comet"), vec!["w2"]);
}

#[test]
fn visibility_matrix() {
    let (_tmp, index) = fresh();
    let mut docs = Vec::new();
    for (id, vis) in [
        ("pub", Visibility::Public),
        ("fol", Visibility::Followers),
        ("priv", Visibility::Private),
    ] {
        let mut d = work(id, "moonlight");
        d.author_id = "author".into();
        d.visibility = vis;
        docs.push(d);
    }
    put(&index, docs);
    let who = |viewer: Option<&str>, follows: &[&str]| SearchQuery {
        viewer: viewer.map(String::from),
        viewer_follows: follows.iter().map(|s| s.to_string()).collect(),
        ..query("moonlight")
    };
    let cases: [(&str, SearchQuery, &[&str]); 5] = [
        ("author", who(Some("author"), &[]), &["pub", "fol", "priv"]),
        (
            "follower",
            who(Some("fan"), &["x", "author"]),
            &["pub", "fol"],
        ),
        ("stranger", who(Some("stranger"), &["x"]), &["pub"]),
        ("visitor", who(None, &[]), &["pub"]),
        ("empty viewer id", who(Some(""), &[]), &["pub"]),
    ];
    for (name, q, want) in cases {
        let page = index.search(&q).unwrap();
        let got: HashSet<String> = ids(&page).into_iter().collect();
        let want: HashSet<String> = want.iter().map(|s| s.to_string()).collect();
        assert_eq!(got, want, "{name}");
        assert_eq!(page.total, want.len(), "{name}");
    }
}

#[test]
fn nsfw_hidden_unless_opted_in() {
    let (_tmp, index) = fresh();
    let mut spicy = work("spicy", "pepper");
    spicy.nsfw = true;
    put(&index, [work("mild", "pepper"), spicy]);
    assert_eq!(find(&index, "pepper"), vec!["mild"]);
    let q = SearchQuery {
        show_nsfw: true,
        ..query("pepper")
    };
    let mut got = ids(&index.search(&q).unwrap());
    got.sort();
    assert_eq!(got, vec!["mild", "spicy"]);
}

#[test]
fn kinds_filter() {
    let (_tmp, index) = fresh();
    put(
        &index,
        [
            doc(DocKind::Work, "w", "forest"),
            doc(DocKind::Article, "a", "forest"),
            doc(DocKind::Character, "c", "forest"),
            doc(DocKind::Account, "u", "forest"),
            doc(DocKind::Tag, "t", "forest"),
        ],
    );
    let cases: [(Vec<DocKind>, &[&str]); 4] = [
        (vec![], &["a", "c", "t", "u", "w"]),
        (vec![DocKind::Work], &["w"]),
        (vec![DocKind::Account, DocKind::Tag], &["t", "u"]),
        (vec![DocKind::Character, DocKind::Article], &["a", "c"]),
    ];
    for (kinds, want) in cases {
        let q = SearchQuery {
            kinds: kinds.clone(),
            ..query("forest")
        };
        let page = index.search(&q).unwrap();
        let mut got = ids(&page);
        got.sort();
        assert_eq!(got, want, "{kinds:?}");
        for hit in &page.hits {
            assert!(kinds.is_empty() || kinds.contains(&hit.kind));
        }
    }
}

#[test]
fn paging_has_no_duplicate_and_no_gap() {
    let (_tmp, index) = fresh();
    let docs = (0..25).map(|i| {
        let mut d = work(
            &format!("w{i:02}"),
            &format!("river {}", "river ".repeat(i % 4)),
        );
        d.popularity = (i % 5) as f64;
        d
    });
    put(&index, docs);
    let mut seen = Vec::new();
    let mut last_score = f32::INFINITY;
    for page_no in 0..5 {
        let q = SearchQuery {
            offset: page_no * 7,
            limit: 7,
            ..query("river")
        };
        let page = index.search(&q).unwrap();
        assert_eq!(page.total, 25);
        for hit in &page.hits {
            assert!(
                hit.score <= last_score,
                "scores must not increase across pages"
            );
            last_score = hit.score;
        }
        seen.extend(ids(&page));
    }
    let distinct: HashSet<&String> = seen.iter().collect();
    assert_eq!(seen.len(), 25);
    assert_eq!(distinct.len(), 25);
}

#[test]
fn limit_zero_and_huge_offset() {
    let (_tmp, index) = fresh();
    put(&index, [work("w1", "pebble"), work("w2", "pebble")]);
    let counted = SearchQuery {
        limit: 0,
        ..query("pebble")
    };
    let page = index.search(&counted).unwrap();
    assert_eq!((page.hits.len(), page.total), (0, 2));
    let far = SearchQuery {
        offset: usize::MAX - 3,
        limit: usize::MAX,
        ..query("pebble")
    };
    let page = index.search(&far).unwrap();
    assert_eq!((page.hits.len(), page.total), (0, 2));
    let beyond = SearchQuery {
        offset: MAX_WINDOW - 1,
        limit: 10,
        ..query("pebble")
    };
    assert!(index.search(&beyond).unwrap().hits.is_empty());
}

#[test]
fn popularity_breaks_ties() {
    let (_tmp, index) = fresh();
    let docs = [("low", 1.0), ("high", 500.0), ("mid", 20.0), ("none", 0.0)].map(|(id, p)| {
        let mut d = work(id, "violet meadow");
        d.popularity = p;
        d
    });
    put(&index, docs);
    assert_eq!(find(&index, "violet"), vec!["high", "mid", "low", "none"]);
}

#[test]
fn relevance_outweighs_mild_popularity() {
    let (_tmp, index) = fresh();
    let in_title = work("title", "glacier");
    let mut in_body = work("body", "a photo");
    in_body.body = "glacier".into();
    in_body.popularity = 100.0;
    put(&index, [in_body, in_title]);
    assert_eq!(find(&index, "glacier"), vec!["title", "body"]);
}

#[test]
fn cjk_substrings() {
    let (_tmp, index) = fresh();
    let mut ja = work("ja", "東京タワーの夜景");
    ja.tags = vec!["風景写真".into()];
    put(
        &index,
        [
            work("zh", "我的中文标题很长"),
            ja,
            work("en", "Chinese title"),
        ],
    );
    let cases: &[(&str, &[&str])] = &[
        ("中文", &["zh"]),
        ("标题", &["zh"]),
        ("文标题", &["zh"]),
        ("中", &["zh"]),
        ("中文标题 很长", &["zh"]),
        ("英文", &[]),
        ("题中", &[]),
        ("タワー", &["ja"]),
        ("夜景", &["ja"]),
        ("写真", &["ja"]),
        ("chinese", &["en"]),
    ];
    for (keyword, want) in cases {
        assert_eq!(find(&index, keyword), *want, "{keyword}");
    }
}

#[test]
fn latin_is_case_and_accent_insensitive() {
    let (_tmp, index) = fresh();
    put(&index, [work("w1", "Crème Brûlée à la CAFÉ")]);
    for keyword in ["creme", "BRULEE", "café", "Cafe"] {
        assert_eq!(find(&index, keyword), vec!["w1"], "{keyword}");
    }
}

#[test]
fn special_characters_never_error() {
    let (_tmp, index) = fresh();
    put(
        &index,
        [work("w1", "Rock AND Roll: the (best) \"C++\" tips")],
    );
    let cases: &[(&str, &[&str])] = &[
        ("\"", &[]),
        (":", &[]),
        ("(", &[]),
        ("*", &[]),
        ("AND", &["w1"]),
        ("rock AND", &["w1"]),
        ("rock:roll", &["w1"]),
        ("title:rock", &[]),
        ("\"rock", &["w1"]),
        ("(best", &["w1"]),
        ("c++", &["w1"]),
        ("roll*", &["w1"]),
        ("rock OR jazz", &[]),
        ("-rock", &["w1"]),
        ("rock^10 ~2 [a TO z] {x} \\ / ! ?", &[]),
        ("", &[]),
        ("\u{0}\u{feff}\u{202e}", &[]),
    ];
    for (keyword, want) in cases {
        let page = index.search(&query(keyword));
        assert!(page.is_ok(), "{keyword:?}: {page:?}");
        assert_eq!(ids(&page.unwrap()), *want, "{keyword:?}");
    }
}
