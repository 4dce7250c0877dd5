//! Changing the check-in time zone (`activity/checkin/time-zone`) against
//! the real server and its file clock: bad names are refused, one change
//! per 30 days, and a change never grants a second check-in on a day
//! already checked in, whether the account moves east or west across
//! midnight; the streak goes on and each day is paid once.

use serde_json::json;

use crate::checkin::{balance, check_in, entries, post, refused, utc, Clocked, H};

const ZONE: &str = "/api/v1/activity/checkin/time-zone";
const DAY: i64 = 24 * H;

#[tokio::test]
async fn bad_zones_are_refused_and_a_change_is_allowed_once_per_30_days() {
    let t = Clocked::start(utc("2026-11-27", 10)).await;
    let (_, c) = t.app.user("Ann").await;
    for bad in ["Mars/Base", "", "+08:00", "../../etc/passwd"] {
        let r = refused(&c, ZONE, json!({ "tz": bad })).await;
        assert_eq!(
            (r.0, r.1, r.2.as_str()),
            (400, 40620, "checkinTimeZoneInvalid"),
            "{bad:?}"
        );
    }
    let r = refused(&c, ZONE, json!({})).await;
    assert_eq!((r.0, r.1), (400, 40000), "a body without tz");
    let (_, code, _) = refused(&t.app.client, ZONE, json!({"tz": "UTC"})).await;
    assert_eq!(code, 20000, "visitors are asked to log in");

    // Nothing pinned yet: choosing is free and pins it.
    let info = post(&c, "/api/v1/activity/checkin/info", json!({})).await;
    assert_eq!(info["time_zone_pinned"], false);
    let info = post(&c, ZONE, json!({"tz": "europe/paris"})).await;
    assert_eq!(info["time_zone"], "Europe/Paris");
    assert_eq!(info["time_zone_pinned"], true);
    assert_eq!(info["time_zone_change_at"], 0);
    // The client's zone no longer moves it.
    let r = check_in(&c, Some("Asia/Tokyo")).await;
    assert_eq!(r["info"]["time_zone"], "Europe/Paris");

    // A change, then none for 30 days (the same zone again is no change).
    let info = post(&c, ZONE, json!({"tz": "Asia/Tokyo"})).await;
    assert_eq!(info["time_zone"], "Asia/Tokyo");
    let next = utc("2026-11-27", 10) + 30 * DAY;
    assert_eq!(info["time_zone_change_at"], next);
    let same = post(&c, ZONE, json!({"tz": "Asia/Tokyo"})).await;
    assert_eq!(same["time_zone"], "Asia/Tokyo");
    t.set(next - 1);
    let r = refused(&c, ZONE, json!({"tz": "Europe/Paris"})).await;
    assert_eq!(
        (r.0, r.1, r.2.as_str()),
        (429, 40623, "checkinTimeZoneChangeTooSoon")
    );
    t.set(next);
    let info = post(&c, ZONE, json!({"tz": "Europe/Paris"})).await;
    assert_eq!(info["time_zone"], "Europe/Paris");
}

#[tokio::test]
async fn moving_east_across_midnight_grants_no_second_check_in() {
    // 23:00 on the 26th in Los Angeles (07:00 UTC on the 27th).
    let t = Clocked::start(utc("2026-11-27", 7)).await;
    let (d, c) = t.app.user("Bea").await;
    let id = d.account.id;
    let r = check_in(&c, Some("America/Los_Angeles")).await;
    assert_eq!(r["granted"], true);
    assert_eq!(r["info"]["today"], "2026-11-26");
    let paid = balance(&c).await;

    // Now 15:00 on the 27th in Shanghai: a new date there, but the check-in
    // was made at 15:00 on that same Shanghai day: today is checked.
    let info = post(&c, ZONE, json!({"tz": "Asia/Shanghai"})).await;
    assert_eq!(info["time_zone"], "Asia/Shanghai");
    assert_eq!(info["checked_today"], true);
    assert_eq!(info["today"], "2026-11-27");
    assert_eq!(info["streak"], 1);
    assert_eq!(info["next_at"], utc("2026-11-27", 16));
    for at in [
        utc("2026-11-27", 7) + 60_000,
        utc("2026-11-27", 8), // midnight in Los Angeles
        utc("2026-11-27", 16) - 1,
    ] {
        t.set(at);
        let r = check_in(&c, None).await;
        assert_eq!(r["granted"], false, "at {at}");
        assert_eq!(r["info"]["checked_today"], true, "at {at}");
    }
    assert_eq!(balance(&c).await, paid);
    assert_eq!(entries(&c, "checkin:").await.len(), 1);

    // Midnight in Shanghai: the next day, the streak goes on.
    t.set(utc("2026-11-27", 16));
    let r = check_in(&c, None).await;
    assert_eq!(r["granted"], true);
    assert_eq!(r["info"]["today"], "2026-11-28");
    assert_eq!(r["info"]["streak"], 2);
    let keys: Vec<String> = entries(&c, "checkin:")
        .await
        .iter()
        .map(|e| e["key"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(keys.len(), 2, "{keys:?}");
    assert!(keys.contains(&format!("checkin:{id}:2026-11-26")));
    assert!(keys.contains(&format!("checkin:{id}:2026-11-28")));
}

#[tokio::test]
async fn moving_east_within_a_date_waits_for_the_old_zone_midnight() {
    // 01:00 UTC on the 26th; Shanghai is at 09:00 the same day.
    let t = Clocked::start(utc("2026-11-26", 1)).await;
    let (_, c) = t.app.user("Cai").await;
    assert_eq!(check_in(&c, Some("UTC")).await["granted"], true);
    post(&c, ZONE, json!({"tz": "Asia/Shanghai"})).await;
    // Midnight in Shanghai (16:00 UTC) is still the 26th in UTC: refused.
    t.set(utc("2026-11-26", 20));
    let info = post(&c, "/api/v1/activity/checkin/info", json!({})).await;
    assert_eq!(info["checked_today"], true);
    assert_eq!(info["next_at"], utc("2026-11-27", 0));
    assert_eq!(check_in(&c, None).await["granted"], false);
    t.set(utc("2026-11-27", 0));
    let r = check_in(&c, None).await;
    assert_eq!(r["granted"], true);
    assert_eq!(r["info"]["today"], "2026-11-27");
    assert_eq!(r["info"]["streak"], 2);
    assert_eq!(entries(&c, "checkin:").await.len(), 2);
}

#[tokio::test]
async fn moving_west_across_midnight_grants_no_second_check_in() {
    // 01:00 on the 27th in Shanghai (17:00 UTC on the 26th).
    let t = Clocked::start(utc("2026-11-26", 17)).await;
    let (d, c) = t.app.user("Dan").await;
    let id = d.account.id;
    assert_eq!(check_in(&c, Some("Asia/Shanghai")).await["granted"], true);
    // Now 09:00 on the 26th in Los Angeles; its 27th is Shanghai's 27th
    // still for eight hours, then a day already checked: the next check-in
    // is Los Angeles' 28th.
    let info = post(&c, ZONE, json!({"tz": "America/Los_Angeles"})).await;
    assert_eq!(info["checked_today"], true);
    assert_eq!(info["next_at"], utc("2026-11-28", 8));
    for at in [
        utc("2026-11-27", 8),  // midnight on the 27th in Los Angeles
        utc("2026-11-27", 16), // midnight on the 28th in Shanghai
        utc("2026-11-28", 8) - 1,
    ] {
        t.set(at);
        let r = check_in(&c, None).await;
        assert_eq!(r["granted"], false, "at {at}");
    }
    assert_eq!(entries(&c, "checkin:").await.len(), 1);
    t.set(utc("2026-11-28", 8));
    let r = check_in(&c, None).await;
    assert_eq!(r["granted"], true);
    assert_eq!(r["info"]["today"], "2026-11-28");
    assert_eq!(r["info"]["streak"], 2);
    let keys: Vec<String> = entries(&c, "checkin:")
        .await
        .iter()
        .map(|e| e["key"].as_str().unwrap().to_owned())
        .collect();
    assert!(keys.contains(&format!("checkin:{id}:2026-11-27")));
    assert!(keys.contains(&format!("checkin:{id}:2026-11-28")));
}
