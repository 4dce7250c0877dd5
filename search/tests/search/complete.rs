//! Completion as you type.

use easel_search::{DocKind, SearchIndex, Visibility};

use crate::{doc, fresh, put};

fn seeded() -> (tempfile::TempDir, SearchIndex) {
    let (tmp, index) = fresh();
    let entry = |kind, id: &str, title: &str, popularity: f64| {
        let mut d = doc(kind, id, title);
        d.popularity = popularity;
        d
    };
    let mut private = entry(DocKind::Work, "p", "Dragon secret", 1000.0);
    private.visibility = Visibility::Private;
    let mut followers = entry(DocKind::Work, "f", "Dragon friends", 1000.0);
    followers.visibility = Visibility::Followers;
    let mut nsfw = entry(DocKind::Work, "n", "Dragon after dark", 1000.0);
    nsfw.nsfw = true;
    put(
        &index,
        [
            entry(DocKind::Work, "w1", "Dragon Slayer", 5.0),
            entry(DocKind::Article, "a1", "dragon slayer", 3.0),
            entry(DocKind::Character, "c1", "Dragonfly", 50.0),
            entry(DocKind::Work, "w2", "Drawing 101", 1.0),
            entry(DocKind::Tag, "dragon", "dragon", 100.0),
            entry(DocKind::Account, "u1", "Drake", 10.0),
            entry(DocKind::Work, "w3", "Sunny meadow", 70.0),
            entry(DocKind::Work, "zh1", "中文标题", 2.0),
            entry(DocKind::Work, "zh2", "中国风", 9.0),
            entry(DocKind::Tag, "ja", "東京タワー", 4.0),
            private,
            followers,
            nsfw,
        ],
    );
    (tmp, index)
}

#[test]
fn complete_table() {
    let (_tmp, index) = seeded();
    let cases: &[(&str, usize, &[&str])] = &[
        (
            "dr",
            10,
            &[
                "dragon",
                "Dragonfly",
                "Drake",
                "Dragon Slayer",
                "Drawing 101",
            ],
        ),
        (
            "D",
            10,
            &[
                "dragon",
                "Dragonfly",
                "Drake",
                "Dragon Slayer",
                "Drawing 101",
            ],
        ),
        ("dr", 2, &["dragon", "Dragonfly"]),
        ("DRAGON", 10, &["dragon", "Dragonfly", "Dragon Slayer"]),
        ("sla", 10, &["Dragon Slayer"]),
        ("dragon sl", 10, &["Dragon Slayer"]),
        ("m", 10, &["Sunny meadow"]),
        ("中", 10, &["中国风", "中文标题"]),
        ("文标", 10, &["中文标题"]),
        ("中文标", 10, &["中文标题"]),
        ("タワ", 10, &["東京タワー"]),
        ("x", 10, &[]),
        ("", 10, &[]),
        ("  *:( ", 10, &[]),
        ("dr", 0, &[]),
    ];
    for (prefix, limit, want) in cases {
        assert_eq!(
            index.complete(prefix, *limit).unwrap(),
            *want,
            "{prefix:?} {limit}"
        );
    }
}

#[test]
fn complete_dedupes_beyond_the_first_window() {
    let (_tmp, index) = fresh();
    // Many copies of one title, more popular than the distinct ones behind them.
    let copies = (0..40).map(|i| {
        let mut d = doc(DocKind::Work, &format!("copy{i}"), "Echo");
        d.popularity = 100.0;
        d
    });
    put(&index, copies);
    let others = ["echo one", "echo two", "echo three"].map(|t| {
        let mut d = doc(DocKind::Work, t, t);
        d.popularity = 1.0;
        d
    });
    put(&index, others);
    let got = index.complete("ec", 3).unwrap();
    assert_eq!(got.len(), 3);
    assert_eq!(got[0], "Echo");
    assert!(got[1..].iter().all(|t| t.starts_with("echo ")));
}
