//! Table tests of the ranking formula on a fixture.

use super::*;

const H: i64 = 3_600_000;

fn st(uses: i64, downloads: i64, likes: i64, collects: i64, earnings: i64) -> ModelStats {
    ModelStats {
        uses,
        downloads,
        likes,
        collects,
        earnings,
        comments: 0,
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-6 * b.abs().max(1.0)
}

#[test]
fn score_weights() {
    for (s, want) in [
        (st(0, 0, 0, 0, 0), 0.0),
        (st(1, 0, 0, 0, 0), 1.0),
        (st(0, 1, 0, 0, 0), 3.0),
        (st(0, 0, 1, 0, 0), 2.0),
        (st(0, 0, 0, 1, 0), 2.0),
        (st(0, 0, 0, 0, 10), 5.0),
        (st(10, 2, 3, 1, 40), 10.0 + 6.0 + 6.0 + 2.0 + 20.0),
        (st(-4, 0, -1, 0, 0), 0.0),
    ] {
        assert!(close(score(&s), want), "{s:?}");
    }
}

#[test]
fn hot_values() {
    // 100 * 10 / 2^1.5 at age 0.
    assert!(close(hot(10.0, 0), 1000.0 / 2f64.powf(1.5)));
    for (sc, age_h, want) in [
        (10.0, 0, 353.553391),
        (10.0, 48, 125.0),
        (10.0, -5, 353.553391),
        (0.0, 0, 0.0),
        (44.0, 24 * 7, 44.0 * 100.0 / 27.0),
    ] {
        let got = hot(sc, age_h * H);
        assert!((got - want).abs() < 1e-3, "score {sc} age {age_h}h: {got}");
    }
    assert!(hot(10.0, 2 * DAY_MS) < hot(10.0, DAY_MS));
    assert!(hot(11.0, DAY_MS) > hot(10.0, DAY_MS));
}

#[test]
fn windows_and_days() {
    let v = |j: serde_json::Value| Window::parse(&j, Window::Week);
    use serde_json::json;
    for (j, want) in [
        (json!(null), Some(Window::Week)),
        (json!(""), Some(Window::Week)),
        (json!(0), Some(Window::All)),
        (json!(1), Some(Window::Day)),
        (json!(2), Some(Window::Week)),
        (json!(3), Some(Window::Month)),
        (json!("month"), Some(Window::Month)),
        (json!("Daily"), Some(Window::Day)),
        (json!("total"), Some(Window::All)),
        (json!("2"), Some(Window::Week)),
        (json!(7), None),
        (json!("year"), None),
        (json!([1]), None),
    ] {
        assert_eq!(v(j.clone()), want, "{j}");
    }
    assert_eq!(utc_day(0), 0);
    assert_eq!(utc_day(DAY_MS - 1), 0);
    assert_eq!(utc_day(DAY_MS), 1);
    assert_eq!(utc_day(-1), -1);
    assert_eq!(Window::Day.day_range(100), Some((100, 100)));
    assert_eq!(Window::Week.day_range(100), Some((94, 100)));
    assert_eq!(Window::Month.day_range(100), Some((71, 100)));
    assert_eq!(Window::All.day_range(100), None);
}

#[test]
fn boards_parse() {
    use serde_json::json;
    for (j, want) in [
        (json!(null), Some(Board::Hottest)),
        (json!(1), Some(Board::Hottest)),
        (json!(2), Some(Board::MostUsed)),
        (json!("3"), Some(Board::MostDownloaded)),
        (json!("top_earning"), Some(Board::TopEarning)),
        (json!("new"), Some(Board::NewRising)),
        (json!("most-used"), Some(Board::MostUsed)),
        (json!(9), None),
        (json!("coolest"), None),
    ] {
        assert_eq!(Board::parse(&j), want, "{j}");
    }
}

/// The fixture: three models with a week of figures; each board's order
/// follows the formula and the tie rule.
#[test]
fn fixture_orders() {
    // (id, published ms ago, window figures)
    let fixture = [
        ("m-old-busy", 60 * DAY_MS, st(40, 2, 5, 1, 0)), // score 58
        ("m-new-paid", 2 * DAY_MS, st(6, 0, 2, 0, 30)),  // score 25
        ("m-mid-dl", 10 * DAY_MS, st(3, 8, 0, 2, 0)),    // score 31
        ("m-tie", 2 * DAY_MS + H, st(6, 0, 2, 0, 30)),   // m-new-paid's figures, older
        ("m-empty", DAY_MS, st(0, 0, 0, 0, 0)),
    ];
    let now = 1_000 * DAY_MS;
    let order = |board: Board| -> Vec<&str> {
        let mut v: Vec<Ranked> = fixture
            .iter()
            .filter_map(|(id, age, s)| {
                board_value(board, s, *age).map(|value| Ranked {
                    id: (*id).into(),
                    value,
                    published_at: now - age,
                })
            })
            .collect();
        v.sort_by(rank_order);
        v.into_iter()
            .map(|r| fixture.iter().find(|f| f.0 == r.id).unwrap().0)
            .collect()
    };
    // hot: 58*100/62^1.5 = 11.88; 25*100/4^1.5 = 312.5; 31*100/12^1.5 = 74.57;
    // the tie has the same score but is an hour older: lower hot.
    assert_eq!(
        order(Board::Hottest),
        ["m-new-paid", "m-tie", "m-mid-dl", "m-old-busy"]
    );
    assert_eq!(
        order(Board::MostUsed),
        ["m-old-busy", "m-new-paid", "m-tie", "m-mid-dl"]
    );
    assert_eq!(order(Board::MostDownloaded), ["m-mid-dl", "m-old-busy"]);
    // Equal earnings: the newer model first.
    assert_eq!(order(Board::TopEarning), ["m-new-paid", "m-tie"]);
    // Only models of the last 30 days, by score; equal scores: newer first.
    assert_eq!(order(Board::NewRising), ["m-mid-dl", "m-new-paid", "m-tie"]);
}

#[test]
fn ties_by_id_last() {
    let mut v = [
        Ranked {
            id: "b".into(),
            value: 1.0,
            published_at: 5,
        },
        Ranked {
            id: "a".into(),
            value: 1.0,
            published_at: 5,
        },
        Ranked {
            id: "c".into(),
            value: 2.0,
            published_at: 1,
        },
    ];
    v.sort_by(rank_order);
    let ids: Vec<&str> = v.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["c", "a", "b"]);
}

#[test]
fn categories_are_unique() {
    let mut seen = std::collections::HashSet::new();
    for (k, _, subs) in CATEGORIES {
        assert!(seen.insert(*k), "{k}");
        for (s, _) in *subs {
            assert!(seen.insert(*s), "{s}");
        }
    }
}

#[test]
fn recommend_values() {
    assert!(close(recommend_value(0.0, 0, 0.0, 0.0), 0.0));
    assert!(close(recommend_value(1.0, 0, 5.0, 10.0), 2.5));
    assert!(close(recommend_value(0.5, 5, 10.0, 10.0), 1.0 + 1.5 + 1.0));
    // The viewer's family beats the hottest model of another family.
    assert!(recommend_value(1.0, 0, 0.0, 100.0) > recommend_value(0.0, 0, 100.0, 100.0));
}
