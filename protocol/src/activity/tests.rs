//! Table tests of the activity rules.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use super::rules::*;
use super::*;
use crate::ErrorCode;

const H: i64 = 3_600_000;

fn req() -> UpsertRequest {
    UpsertRequest {
        title: "Autumn".into(),
        rules: "Paint **autumn**.\n\nOne per entry.".into(),
        periods: vec![Period { start: 10 * H, end: 20 * H }, Period { start: 20 * H, end: 30 * H }],
        types: vec!["work".into(), "local_video".into()],
        prizes: vec![500, 200, 100],
        ..Default::default()
    }
}

fn def() -> ActivityDef {
    validate(&req()).unwrap()
}

#[test]
fn contribution_types_are_the_specs_six() {
    let table = [
        ("work", Some(ContributionType::Work), false, 4),
        ("local_video", Some(ContributionType::LocalVideo), false, 4),
        ("article", Some(ContributionType::Article), false, 4),
        ("character", Some(ContributionType::Character), true, 9),
        ("model_Checkpoint", Some(ContributionType::ModelCheckpoint), true, 2),
        ("model_LORA", Some(ContributionType::ModelLora), true, 2),
    ];
    for (s, t, needs, obj_type) in table {
        let got = ContributionType::parse(s);
        assert_eq!(got, t, "{s}");
        let t = got.unwrap();
        assert_eq!(t.as_str(), s);
        assert_eq!(t.needs_activity(), needs, "{s}");
        assert_eq!(t.obj_type(), obj_type, "{s}");
        assert_eq!(serde_json::to_value(t).unwrap(), serde_json::json!(s));
    }
    for bad in ["", "Work", "model_lora", "video", "model_Lora", "picture"] {
        assert_eq!(ContributionType::parse(bad), None, "{bad}");
    }
}

#[test]
fn definitions_are_checked_field_by_field() {
    let ok = def();
    assert_eq!(ok.judging, Judging::Votes);
    assert_eq!(ok.max_entries, DEFAULT_MAX_ENTRIES);
    assert_eq!(ok.excellent_count, 3);
    let cases: Vec<(&str, Box<dyn Fn(&mut UpsertRequest)>)> = vec![
        ("title", Box::new(|r: &mut UpsertRequest| r.title = "  ".into())),
        ("title", Box::new(|r: &mut UpsertRequest| r.title = "x".repeat(101))),
        ("title", Box::new(|r: &mut UpsertRequest| r.title = "a\u{7}b".into())),
        ("rules", Box::new(|r: &mut UpsertRequest| r.rules = "x".repeat(20_001))),
        ("periods", Box::new(|r: &mut UpsertRequest| r.periods.clear())),
        ("periods[0]", Box::new(|r: &mut UpsertRequest| r.periods[0].end = r.periods[0].start)),
        ("periods[1]", Box::new(|r: &mut UpsertRequest| r.periods[1].start = 15 * H)),
        ("types", Box::new(|r: &mut UpsertRequest| r.types.clear())),
        ("types", Box::new(|r: &mut UpsertRequest| r.types.push("picture".into()))),
        ("types", Box::new(|r: &mut UpsertRequest| r.types.push("work".into()))),
        ("prizes", Box::new(|r: &mut UpsertRequest| r.prizes.push(-1))),
        ("prizes", Box::new(|r: &mut UpsertRequest| r.prizes = vec![1; 51])),
        ("judging", Box::new(|r: &mut UpsertRequest| r.judging = Some("jury".into()))),
        ("max_entries", Box::new(|r: &mut UpsertRequest| r.max_entries = Some(0))),
        ("excellent_count", Box::new(|r: &mut UpsertRequest| r.excellent_count = Some(2))),
        ("periods", Box::new(|r: &mut UpsertRequest| r.daily = true)),
    ];
    for (field, change) in cases {
        let mut r = req();
        change(&mut r);
        let e = validate(&r).unwrap_err();
        assert!(e.starts_with(field), "{field}: {e}");
    }
    let mut daily = req();
    daily.daily = true;
    daily.periods = vec![Period { start: 0, end: DAY_MS }];
    assert!(validate(&daily).is_ok());
    daily.periods[0].end += 1;
    assert!(validate(&daily).is_err());
    let mut picks = req();
    picks.judging = Some("picks".into());
    picks.prizes.clear();
    let d = validate(&picks).unwrap();
    assert_eq!((d.judging, d.excellent_count), (Judging::Picks, 1));
}

#[test]
fn periods_are_live_from_start_inclusive_to_end_exclusive() {
    let d = def();
    let none: Vec<Option<i64>> = vec![None, None];
    let table = [
        (10 * H - 1, None, ActivityStatus::Upcoming),
        (10 * H, Some(0), ActivityStatus::Live),
        (20 * H - 1, Some(0), ActivityStatus::Live),
        (20 * H, Some(1), ActivityStatus::Live),
        (30 * H - 1, Some(1), ActivityStatus::Live),
        (30 * H, None, ActivityStatus::Ended),
    ];
    for (now, live, status) in table {
        assert_eq!(live_period(&d, &none, now), live, "at {now}");
        assert_eq!(activity_status(&d, &none, now), status, "at {now}");
    }
    let p = d.periods[0];
    assert_eq!(period_status(&p, None, false, 10 * H - 1), PeriodStatus::Upcoming);
    assert_eq!(period_status(&p, None, false, 10 * H), PeriodStatus::Live);
    assert_eq!(period_status(&p, None, false, 20 * H), PeriodStatus::Closed);
    assert_eq!(period_status(&p, None, true, 15 * H), PeriodStatus::Judged);
    // An operator's early close ends it at once, even before it started.
    assert_eq!(period_status(&p, Some(12 * H), false, 12 * H), PeriodStatus::Closed);
    assert_eq!(period_status(&p, Some(12 * H), false, 11 * H), PeriodStatus::Live);
    assert_eq!(period_status(&p, Some(5 * H), false, 5 * H), PeriodStatus::Closed);
    assert_eq!(effective_end(&p, Some(5 * H)), 10 * H);
    assert_eq!(effective_end(&p, Some(25 * H)), 20 * H);
    let closed = vec![Some(12 * H), None];
    assert_eq!(live_period(&d, &closed, 13 * H), None);
    assert!(judgeable(&p, Some(12 * H), 13 * H));
    assert!(!judgeable(&p, None, 13 * H));
    assert_eq!(default_period(&d, &closed, 13 * H), 0);
    assert_eq!(default_period(&d, &none, 31 * H), 1);
    assert_eq!(default_period(&d, &none, 0), 0);
    // Both periods closed early: the activity ended.
    let both = vec![Some(11 * H), Some(11 * H)];
    assert_eq!(activity_status(&d, &both, 12 * H), ActivityStatus::Ended);
}

#[test]
fn commits_need_an_allowed_type_a_live_period_and_room() {
    let d = def();
    let none = vec![None, None];
    let table: [(ContributionType, i64, u32, Result<u32, ErrorCode>); 6] = [
        (ContributionType::Work, 15 * H, 0, Ok(0)),
        (ContributionType::LocalVideo, 25 * H, 2, Ok(1)),
        (ContributionType::Article, 15 * H, 0, Err(ErrorCode::ActivityTypeNotAllowed)),
        (ContributionType::Work, 5 * H, 0, Err(ErrorCode::ActivityPeriodClosed)),
        (ContributionType::Work, 30 * H, 0, Err(ErrorCode::ActivityPeriodClosed)),
        (ContributionType::Work, 15 * H, 3, Err(ErrorCode::ActivityEntryLimit)),
    ];
    for (kind, now, mine, want) in table {
        assert_eq!(check_commit(&d, &none, kind, now, |_| mine), want, "{kind:?} at {now}");
    }
}

#[test]
fn votes_need_voting_another_author_and_a_live_period() {
    let mut d = def();
    let none = vec![None, None];
    assert_eq!(check_vote(&d, &none, 0, 15 * H, "a", "b"), Ok(()));
    assert_eq!(check_vote(&d, &none, 0, 15 * H, "a", "a"), Err(ErrorCode::ActivityVoteSelf));
    assert_eq!(check_vote(&d, &none, 0, 25 * H, "a", "b"), Err(ErrorCode::ActivityPeriodClosed));
    assert_eq!(check_vote(&d, &none, 1, 15 * H, "a", "b"), Err(ErrorCode::ActivityPeriodClosed));
    assert_eq!(
        check_vote(&d, &[Some(14 * H), None], 0, 15 * H, "a", "b"),
        Err(ErrorCode::ActivityPeriodClosed)
    );
    d.judging = Judging::Picks;
    assert_eq!(check_vote(&d, &none, 0, 15 * H, "a", "b"), Err(ErrorCode::ActivityVotingOff));
}

fn cand(key: &str, account: &str, votes: i64, at: i64) -> rules::Candidate {
    rules::Candidate {
        key: key.into(),
        account: account.into(),
        votes,
        at,
    }
}

#[test]
fn the_excellent_list_is_by_votes_then_the_earlier_commit() {
    let cands = vec![
        cand("e1", "ann", 3, 50),
        cand("e2", "bob", 5, 60),
        cand("e3", "cat", 3, 40),
        cand("e4", "ann", 4, 70),
        cand("e5", "dan", 0, 10),
        cand("e6", "eve", 3, 40),
    ];
    let keys = |idx: Vec<usize>| idx.into_iter().map(|i| cands[i].key.clone()).collect::<Vec<_>>();
    // e2 (5), e4 (4; ann's best), e3 and e6 tie on votes and time: smaller id.
    // ann's second entry e1 is skipped; dan has no votes.
    assert_eq!(keys(rank_by_votes(&cands, 10)), ["e2", "e4", "e3", "e6"]);
    assert_eq!(keys(rank_by_votes(&cands, 2)), ["e2", "e4"]);
    assert!(rank_by_votes(&[cand("x", "a", 0, 0)], 3).is_empty());
    assert!(rank_by_votes(&[], 3).is_empty());
}

#[test]
fn picks_are_distinct_contributions_of_the_period() {
    let cands = vec![cand("e1", "a", 0, 1), cand("e2", "b", 0, 2)];
    let p = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(check_picks(&p(&["e2", "e1"]), &cands, 3), Ok(vec![1, 0]));
    assert!(check_picks(&p(&[]), &cands, 3).is_err());
    assert!(check_picks(&p(&["e1", "e1"]), &cands, 3).is_err());
    assert!(check_picks(&p(&["e9"]), &cands, 3).is_err());
    assert!(check_picks(&p(&["e1", "e2"]), &cands, 1).is_err());
}

#[test]
fn prizes_keys_ids_and_marks() {
    assert_eq!(prize(&[500, 200, 100], 1), 500);
    assert_eq!(prize(&[500, 200, 100], 3), 100);
    assert_eq!(prize(&[500, 200, 100], 4), 0);
    assert_eq!(prize(&[500], 0), 0);
    assert_eq!(prize_key("a1", 2, 1), "activity:a1:2:1");
    assert_eq!(card_id("a1", 2, false), "event-center/a1/2");
    assert_eq!(card_id("a1", 0, true), "event-center/daily/a1");
    assert!(is_activity_card("event-center/a1/2", 61));
    assert!(is_activity_card("event-center/daily/a1", 61));
    assert!(!is_activity_card("event-center/a1/2", 4));
    assert!(!is_activity_card("event-center/a1", 61));
    assert!(is_daily_card(&card_id("a1", 0, true)));
    assert!(!is_daily_card(&card_id("a1", 0, false)));
    let m = mark("a1", "Autumn", 1, false);
    assert_eq!((m.id.as_str(), m.obj_type), ("event-center/a1/1", 61));
    let id = entry_id(Some("a1"), ContributionType::ModelLora, "m9");
    assert_eq!(id, "a1:model_LORA:m9");
    assert_eq!(
        parse_entry_id(&id),
        Some((Some("a1".into()), ContributionType::ModelLora, "m9".into()))
    );
    let marker = entry_id(None, ContributionType::Work, "w1");
    assert_eq!(parse_entry_id(&marker), Some((None, ContributionType::Work, "w1".into())));
    for bad in ["", "a1", "a1:work", "a1:picture:w1", ":work:w1", "a1:work:", "a/1:work:w1"] {
        assert_eq!(parse_entry_id(bad), None, "{bad}");
    }
}

#[test]
fn daily_challenges_may_not_overlap() {
    let day = |start: i64| {
        let mut r = req();
        r.daily = true;
        r.periods = vec![Period { start, end: start + DAY_MS }];
        validate(&r).unwrap()
    };
    assert!(daily_overlap(&day(0), &day(DAY_MS / 2)));
    assert!(!daily_overlap(&day(0), &day(DAY_MS)));
    assert!(!daily_overlap(&day(0), &def()));
}

#[test]
fn edits_keep_what_started_and_what_ended() {
    let old = def();
    let none = vec![None, None];
    let no = vec![false, false];
    let with = |f: &dyn Fn(&mut ActivityDef)| {
        let mut d = old.clone();
        f(&mut d);
        d
    };
    // Before anything started, anything goes.
    assert!(check_edit(&old, &none, &no, &with(&|d| d.periods[0].start = 11 * H), 5 * H).is_ok());
    // A live period keeps its start; its end moves, not into the past.
    let now = 15 * H;
    assert!(check_edit(&old, &none, &no, &with(&|d| d.periods[0].start = 11 * H), now).is_err());
    assert!(check_edit(&old, &none, &no, &with(&|d| d.periods[0].end = 19 * H), now).is_ok());
    assert!(check_edit(&old, &none, &no, &with(&|d| d.periods[0].end = now), now).is_err());
    // An ended period does not change; a started one is not removed.
    let now = 25 * H;
    assert!(check_edit(&old, &none, &no, &with(&|d| d.periods[0].end = 19 * H), now).is_err());
    assert!(check_edit(&old, &none, &no, &with(&|d| { d.periods.pop(); }), now).is_err());
    // New periods end in the future.
    let later = Period { start: 30 * H, end: 40 * H };
    assert!(check_edit(&old, &none, &no, &with(&|d| d.periods.push(later)), now).is_ok());
    let past = Period { start: 30 * H, end: 40 * H };
    assert!(check_edit(&old, &none, &no, &with(&|d| d.periods.push(past)), 41 * H).is_err());
    // Judging is fixed once a period was judged.
    let picks = with(&|d| d.judging = Judging::Picks);
    assert!(check_edit(&old, &none, &no, &picks, 5 * H).is_ok());
    assert!(check_edit(&old, &none, &[true, false], &picks, 25 * H).is_err());
}

#[test]
fn lists_order_live_then_upcoming_then_ended() {
    use std::cmp::Ordering::*;
    let live_soon = (ActivityStatus::Live, 0, 10, "b");
    let live_late = (ActivityStatus::Live, 0, 20, "a");
    let up_soon = (ActivityStatus::Upcoming, 30, 40, "c");
    let up_late = (ActivityStatus::Upcoming, 50, 60, "d");
    let ended_recent = (ActivityStatus::Ended, 0, 9, "e");
    let ended_old = (ActivityStatus::Ended, 0, 5, "f");
    let mut v = vec![ended_old, up_late, live_late, ended_recent, up_soon, live_soon];
    v.sort_by(|a, b| list_order(*a, *b));
    assert_eq!(
        v.iter().map(|x| x.3).collect::<Vec<_>>(),
        ["b", "a", "c", "d", "e", "f"]
    );
    assert_eq!(list_order(live_soon, live_soon), Equal);
    assert_eq!(ListFilter::parse(Some("live")), Some(ListFilter::Only(ActivityStatus::Live)));
    assert_eq!(ListFilter::parse(None), Some(ListFilter::All));
    assert_eq!(ListFilter::parse(Some("soon")), None);
    assert_eq!(page_size(None), 20);
    assert_eq!(page_size(Some(500)), 50);
    assert_eq!(parse_offset(Some("40")), Ok(40));
    assert_eq!(parse_offset(Some("x")), Err(ErrorCode::InvalidParams));
}

#[test]
fn wire_shapes() {
    let r: CommitRequest =
        serde_json::from_str(r#"{"type":"work","obj_id":"w1","activity_id":"a1"}"#).unwrap();
    assert_eq!(r.kind.as_deref(), Some("work"));
    let r: CommitRequest = serde_json::from_str(r#"{"type":"work","id":"w1"}"#).unwrap();
    assert_eq!((r.obj_id.as_str(), r.activity_id), ("w1", None));
    let m = serde_json::to_value(mark("a1", "T", 0, true)).unwrap();
    assert_eq!(
        m,
        serde_json::json!({"id": "event-center/daily/a1", "obj_type": 61, "title": "T",
                           "activity_id": "a1", "period": 0, "daily": true})
    );
    assert_eq!(serde_json::to_value(EntryStatus::NotSelected).unwrap(), "not_selected");
    assert_eq!(serde_json::to_value(PeriodStatus::Judged).unwrap(), "judged");
}
