#![allow(clippy::unwrap_used, clippy::indexing_slicing)]
//! The questions on a fixture whose answers are worked out by hand.

use super::*;

const H: i64 = 3_600_000;

fn d0() -> i32 {
    parse_day("2026-11-02").unwrap()
}

fn fact(day_off: i32, hour: f64, name: &str, account: Option<&str>, visitor: Option<&str>) -> Fact {
    let day = d0() + day_off;
    Fact {
        day,
        ts: day_start_ms(day) + (hour * H as f64) as i64,
        name: name.into(),
        account: account.map(Into::into),
        visitor: visitor.map(Into::into),
        release: None,
        message: None,
    }
}

fn error(
    day_off: i32,
    release: Option<&str>,
    msg: &str,
    account: Option<&str>,
    visitor: &str,
) -> Fact {
    Fact {
        release: release.map(Into::into),
        message: Some(msg.into()),
        ..fact(day_off, 18.0, "error", account, Some(visitor))
    }
}

/// Day 0 (a Monday): v1 visits, signs up as A, generates, and pays on day 1;
/// v2 only visits; v3 signs up as B and stops; v4 visits, then signs in as
/// the older account C, who generates; v5 signs up as E, who generates only
/// on day 9 (outside a 7-day window). Day 1: A and the anonymous w2 are
/// back, with errors. Day 8: A and B. Day 15: A.
pub fn fixture() -> Vec<Fact> {
    vec![
        fact(0, 10.0, "page_view", None, Some("v1")),
        fact(0, 10.1, "sign_up", Some("A"), Some("v1")),
        fact(0, 11.0, "generation", Some("A"), Some("v1")),
        fact(0, 12.0, "page_view", None, Some("v2")),
        fact(0, 13.0, "page_view", None, Some("v3")),
        fact(0, 13.2, "sign_up", Some("B"), Some("v3")),
        fact(0, 13.8, "page_view", None, Some("v4")),
        fact(0, 14.0, "page_view", Some("C"), Some("v4")),
        fact(0, 15.0, "generation", Some("C"), Some("v4")),
        fact(0, 16.0, "page_view", None, Some("v5")),
        fact(0, 16.5, "sign_up", Some("E"), Some("v5")),
        fact(1, 8.0, "page_view", Some("A"), Some("w1")),
        fact(1, 9.0, "purchase", Some("A"), None),
        fact(1, 10.0, "page_view", None, Some("w2")),
        error(1, Some("1.0.0"), "boom", Some("A"), "w1"),
        error(1, Some("1.0.0"), "boom", Some("A"), "w1"),
        error(1, Some("1.1.0"), "bad", None, "w2"),
        error(1, None, "bad", None, "w2"),
        fact(8, 9.0, "page_view", Some("A"), Some("x1")),
        fact(8, 9.0, "page_view", Some("B"), Some("x2")),
        fact(9, 9.0, "generation", Some("E"), Some("x3")),
        fact(15, 9.0, "page_view", Some("A"), Some("y1")),
    ]
}

#[test]
fn days_format_and_parse() {
    assert_eq!(format_day(0), "1970-01-01");
    assert_eq!(parse_day("1970-01-01"), Some(0));
    assert_eq!(
        parse_day("2000-03-01").map(format_day).unwrap(),
        "2000-03-01"
    );
    assert_eq!(format_day(parse_day("2024-02-29").unwrap()), "2024-02-29");
    assert_eq!(parse_day("2023-02-29"), None);
    assert_eq!(parse_day("2026-13-01"), None);
    assert_eq!(parse_day("26-1-1"), None);
    for d in [-1, 0, 59, 60, 11_000, 20_000, 2_900_000] {
        assert_eq!(parse_day(&format_day(d)), Some(d), "{d}");
    }
    // 2026-11-02 is a Monday; the 8th a Sunday of the same week.
    assert_eq!(week_start(d0()), d0());
    assert_eq!(week_start(d0() + 6), d0());
    assert_eq!(week_start(d0() + 7), d0() + 7);
    assert_eq!(day_of_ms(day_start_ms(d0()) + 5), d0());
    assert_eq!(day_of_ms(-1), -1);
}

#[test]
fn daily_active_users_merge_a_visitor_into_the_account_of_that_day() {
    let days = dau(&fixture(), d0(), d0() + 2);
    assert_eq!(
        days,
        vec![
            DauDay {
                day: "2026-11-02".into(),
                active: 5,
                accounts: 4,
                visitors: 1
            },
            DauDay {
                day: "2026-11-03".into(),
                active: 2,
                accounts: 1,
                visitors: 1
            },
            DauDay {
                day: "2026-11-04".into(),
                active: 0,
                accounts: 0,
                visitors: 0
            },
        ]
    );
}

#[test]
fn the_funnel_counts_each_step_after_the_last_within_the_window() {
    let f = funnel(&fixture(), d0(), d0() + 1, 7);
    let counts: Vec<(String, u32)> = f.steps.iter().map(|s| (s.step.clone(), s.count)).collect();
    assert_eq!(
        counts,
        vec![
            ("visit".into(), 6),
            ("sign_up".into(), 3),
            ("first_generation".into(), 1),
            ("purchase".into(), 1),
        ]
    );
    let rates: Vec<f64> = f.steps.iter().map(|s| s.rate).collect();
    assert_eq!(rates, vec![1.0, 0.5, 1.0 / 3.0, 1.0]);
    assert_eq!(f.from, "2026-11-02");
    assert_eq!(f.to, "2026-11-03");
    // A 10-day window lets E's day-9 generation count.
    let f = funnel(&fixture(), d0(), d0() + 1, 10);
    assert_eq!(f.steps[2].count, 2);
    // Day 1 alone: A's visit comes after A signed up, so only visits count.
    let f = funnel(&fixture(), d0() + 1, d0() + 1, 7);
    let counts: Vec<u32> = f.steps.iter().map(|s| s.count).collect();
    assert_eq!(counts, vec![2, 0, 0, 0]);
    assert_eq!(f.steps[2].rate, 0.0);
}

#[test]
fn retention_counts_each_cohort_week_by_week() {
    let c = retention(&fixture(), d0(), d0() + 6, d0() + 15);
    assert_eq!(
        c,
        vec![Cohort {
            week: "2026-11-02".into(),
            size: 3,
            retained: vec![3, 3, 1],
        }]
    );
    // Seen from the first week, only week 0 has begun.
    let c = retention(&fixture(), d0(), d0() + 6, d0() + 3);
    assert_eq!(c[0].retained, vec![3]);
    // A range with no sign-up has no cohort.
    assert!(retention(&fixture(), d0() + 7, d0() + 13, d0() + 15).is_empty());
}

#[test]
fn errors_are_grouped_by_release_most_first() {
    let e = errors_by_release(&fixture(), d0(), d0() + 1);
    let rows: Vec<(String, u32, u32)> = e
        .iter()
        .map(|r| (r.release.clone(), r.errors, r.people))
        .collect();
    assert_eq!(
        rows,
        vec![
            ("1.0.0".into(), 2, 1),
            ("1.1.0".into(), 1, 1),
            ("unknown".into(), 1, 1),
        ]
    );
    assert_eq!(
        e[0].top,
        vec![ErrorMessageCount {
            message: "boom".into(),
            count: 2
        }]
    );
    assert!(errors_by_release(&fixture(), d0() + 2, d0() + 9).is_empty());
}
