//! Table tests of the check-in and award rules: days across midnight in
//! several zones, DST days of 23 and 25 hours, streak growth and reset,
//! the schedule's cycle and calendar, the once-only keys.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use super::*;

fn ms(rfc3339: &str) -> i64 {
    rfc3339.parse::<jiff::Timestamp>().unwrap().as_millisecond()
}

fn day(iso: &str) -> Day {
    Day::parse_iso(iso).unwrap()
}

#[test]
fn days_across_midnight_in_several_zones() {
    let table = [
        ("2026-11-27T15:59:59Z", "Asia/Shanghai", "2026-11-27"),
        ("2026-11-27T16:00:00Z", "Asia/Shanghai", "2026-11-28"),
        ("2026-11-27T23:59:59Z", "UTC", "2026-11-27"),
        ("2026-11-28T00:00:00Z", "UTC", "2026-11-28"),
        ("2026-11-28T04:59:59Z", "America/New_York", "2026-11-27"),
        ("2026-11-28T05:00:00Z", "America/New_York", "2026-11-28"),
        ("2026-11-27T10:30:00Z", "Pacific/Kiritimati", "2026-11-28"),
        ("2026-11-27T10:30:00Z", "Pacific/Pago_Pago", "2026-11-26"),
        ("2026-11-27T18:29:59Z", "Asia/Kolkata", "2026-11-27"),
        ("2026-11-27T18:30:00Z", "Asia/Kolkata", "2026-11-28"),
        ("2026-12-31T23:30:00Z", "Europe/Berlin", "2027-01-01"),
        ("1969-12-31T23:00:00Z", "UTC", "1969-12-31"),
    ];
    for (at, zone, want) in table {
        let z = Zone::parse(zone).unwrap();
        assert_eq!(z.day_of(ms(at)).iso(), want, "{at} in {zone}");
    }
}

#[test]
fn day_numbers_round_trip() {
    assert_eq!(day("1970-01-01"), Day(0));
    assert_eq!(day("1969-12-31"), Day(-1));
    assert_eq!(day("2026-11-27").iso(), "2026-11-27");
    assert_eq!(day("2024-03-01").prev().iso(), "2024-02-29");
    assert_eq!(day("2026-12-31").plus(1).iso(), "2027-01-01");
    assert_eq!(Day::parse_iso("2026-02-30"), None);
}

#[test]
fn dst_days_last_23_and_25_hours() {
    let ny = Zone::parse("America/New_York").unwrap();
    const H: i64 = 3_600_000;
    // 2026-03-08: clocks go forward at 02:00; 2026-11-01: back at 02:00.
    let spring = day("2026-03-08");
    assert_eq!(ny.start_of(spring.plus(1)) - ny.start_of(spring), 23 * H);
    let autumn = day("2026-11-01");
    assert_eq!(ny.start_of(autumn.plus(1)) - ny.start_of(autumn), 25 * H);
    assert_eq!(ny.start_of(autumn), ms("2026-11-01T04:00:00Z"));
    // 01:30 happens twice on 2026-11-01: both are that day.
    assert_eq!(ny.day_of(ms("2026-11-01T05:30:00Z")).iso(), "2026-11-01");
    assert_eq!(ny.day_of(ms("2026-11-01T06:30:00Z")).iso(), "2026-11-01");
    // The next check-in opens at the next local midnight, DST or not.
    assert_eq!(
        ny.next_day_start(ms("2026-03-08T12:00:00Z")),
        ms("2026-03-09T04:00:00Z")
    );
}

#[test]
fn start_of_day_is_the_first_instant_even_where_midnight_is_skipped() {
    // Zones whose DST change happens at midnight (no 00:00 on that day).
    for zone in [
        "America/Santiago",
        "America/Havana",
        "Asia/Beirut",
        "Europe/London",
    ] {
        let z = Zone::parse(zone).unwrap();
        let mut d = day("2026-01-01");
        for _ in 0..366 {
            let start = z.start_of(d);
            assert_eq!(z.day_of(start), d, "{zone} {}", d.iso());
            assert_eq!(z.day_of(start - 1), d.prev(), "{zone} {}", d.iso());
            d = d.plus(1);
        }
    }
}

#[test]
fn zones_are_validated_against_the_database() {
    for ok in [
        "UTC",
        "Asia/Shanghai",
        "America/Argentina/Buenos_Aires",
        "Etc/GMT+5",
    ] {
        assert!(Zone::parse(ok).is_some(), "{ok}");
    }
    for bad in [
        "",
        "Mars/Olympus",
        "+08:00",
        "EST5EDT,M3.2.0,M11.1.0",
        "../../etc/passwd",
        "A".repeat(80).as_str(),
    ] {
        assert!(Zone::parse(bad).is_none(), "{bad:?}");
    }
    // The stored zone wins; then the client's; then UTC.
    let (z, from_client) = Zone::resolve(Some("Asia/Tokyo"), Some("Europe/Paris"));
    assert_eq!((z.name(), from_client), ("Asia/Tokyo", false));
    let (z, from_client) = Zone::resolve(None, Some("Europe/Paris"));
    assert_eq!((z.name(), from_client), ("Europe/Paris", true));
    let (z, from_client) = Zone::resolve(None, Some("nowhere"));
    assert_eq!((z.name(), from_client), ("UTC", false));
}

#[test]
fn streak_grows_repeats_and_resets() {
    let d = day("2026-11-27");
    let none = Streak::default();
    assert_eq!(
        none.step(d),
        Step::Checked {
            days: 1,
            reset: false
        }
    );
    let one = none.after(d);
    assert_eq!(
        one,
        Streak {
            last: Some(d),
            days: 1
        }
    );
    // Twice a day: nothing.
    assert_eq!(one.step(d), Step::Already);
    assert_eq!(one.after(d), one);
    // A past day (the zone moved west) is never checked in again.
    assert_eq!(one.step(d.prev()), Step::Already);
    // The next day continues.
    let two = one.after(d.plus(1));
    assert_eq!(two.days, 2);
    assert_eq!(two.current(d.plus(1)), 2);
    assert_eq!(two.current(d.plus(2)), 2, "alive until the day after");
    assert_eq!(two.current(d.plus(3)), 0, "a missed day ends it");
    assert_eq!(
        two.step(d.plus(3)),
        Step::Checked {
            days: 1,
            reset: true
        }
    );
    // Seven days in a row.
    let mut s = Streak::default();
    for i in 0..7 {
        s = s.after(d.plus(i));
    }
    assert_eq!(s.days, 7);
}

#[test]
fn schedule_rewards_cycle_and_are_validated() {
    let s = Schedule::default();
    let got: Vec<i64> = (1..=9).map(|n| s.reward(n)).collect();
    assert_eq!(got, [5, 5, 10, 10, 15, 15, 30, 5, 5]);
    assert_eq!(s.reward(0), 5);
    assert!(Schedule::parse(vec![]).is_none());
    assert!(Schedule::parse(vec![1; 32]).is_none());
    assert!(Schedule::parse(vec![-1]).is_none());
    assert!(Schedule::parse(vec![100_001]).is_none());
    assert_eq!(Schedule::parse(vec![0, 7]).unwrap().reward(4), 7);
}

#[test]
fn calendar_shows_the_current_cycle() {
    let s = Schedule::default();
    let d = day("2026-11-27");
    // Nothing yet: today is day 1.
    let cal = s.calendar(Streak::default(), d);
    assert_eq!(cal.len(), 7);
    assert_eq!(cal[0].date, "2026-11-27");
    assert!(cal[0].today && !cal[0].checked);
    assert_eq!(cal[6].date, "2026-12-03");
    assert_eq!(cal[6].reward, 30);
    // Checked in on three days, the last yesterday: today is day 4.
    let st = Streak {
        last: Some(d.prev()),
        days: 3,
    };
    let cal = s.calendar(st, d);
    assert_eq!(cal[0].date, "2026-11-24");
    let flags: Vec<(bool, bool)> = cal.iter().map(|c| (c.checked, c.today)).collect();
    assert_eq!(
        &flags[..5],
        &[
            (true, false),
            (true, false),
            (true, false),
            (false, true),
            (false, false)
        ]
    );
    // Checked in today on day 7: the whole cycle is checked.
    let st = Streak {
        last: Some(d),
        days: 7,
    };
    let cal = s.calendar(st, d);
    assert!(cal.iter().all(|c| c.checked));
    assert_eq!(cal[6].date, "2026-11-27");
    // Day 8 starts the next cycle.
    let st = Streak {
        last: Some(d.prev()),
        days: 7,
    };
    let cal = s.calendar(st, d);
    assert_eq!(cal[0].streak_day, 8);
    assert_eq!(cal[0].reward, 5);
    assert_eq!(cal[0].date, "2026-11-27");
    // After a missed day the calendar starts again at day 1.
    let st = Streak {
        last: Some(d.plus(-2)),
        days: 5,
    };
    assert_eq!(s.calendar(st, d)[0].streak_day, 1);
}

#[test]
fn award_keys_are_once_ever_or_once_a_day() {
    let d = day("2026-11-27");
    assert_eq!(
        Trigger::FirstPostOfDay.ledger_key("a1", d),
        "award:first_post_of_day:a1:2026-11-27"
    );
    assert_ne!(
        Trigger::FirstPostOfDay.ledger_key("a1", d),
        Trigger::FirstPostOfDay.ledger_key("a1", d.plus(1))
    );
    assert_eq!(
        Trigger::FirstGeneration.ledger_key("a1", d),
        Trigger::FirstGeneration.ledger_key("a1", d.plus(1))
    );
    assert_eq!(checkin_key("a1", d), "checkin:a1:2026-11-27");
    for t in Trigger::ALL {
        assert_eq!(Trigger::parse(t.name()), Some(t));
        assert_eq!(
            serde_json::to_value(t).unwrap(),
            serde_json::json!(t.name())
        );
    }
    // Spec 3 §9: the daily first post pays 20.
    assert_eq!(Trigger::FirstPostOfDay.default_award().amount, 20);
}

#[test]
fn award_config_upserts_and_validates() {
    let mut c = AwardConfig::shipped();
    assert_eq!(c.awards.len(), Trigger::ALL.len());
    let mut def = Trigger::FirstFollow.default_award();
    def.amount = 50;
    c.upsert(def.clone());
    assert_eq!(c.award(Trigger::FirstFollow).unwrap().amount, 50);
    assert_eq!(c.awards.len(), Trigger::ALL.len());
    def.enabled = false;
    c.upsert(def);
    assert!(c.award(Trigger::FirstFollow).is_none());
    assert!(c.remove(Trigger::FirstPublish));
    assert!(!c.remove(Trigger::FirstPublish));
    let good = AwardDef {
        trigger: Trigger::FirstPublish,
        title: "  Hello  ".into(),
        amount: 3,
        enabled: true,
    };
    assert_eq!(good.clone().checked().unwrap().title, "Hello");
    for (title, amount) in [("", 3), ("x", 0), ("x", 100_001), ("a\u{7}", 3)] {
        let d = AwardDef {
            title: title.into(),
            amount,
            ..good.clone()
        };
        assert!(d.checked().is_none(), "{title:?} {amount}");
    }
    assert!(AwardDef {
        title: "é".repeat(61),
        ..good
    }
    .checked()
    .is_none());
}
