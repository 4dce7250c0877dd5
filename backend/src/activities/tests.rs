//! The activity service on a real embedded store and ledger, with a fixed
//! clock and fake objects: period boundaries, the per-period limit, votes,
//! judging (by votes and by picks) paying each prize once however often
//! it runs, the automatic sweep, lists leaving hidden objects out, marks.

#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::expect_used)]

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use infra::store::embedded::EmbeddedStore;
use infra::store::DynStore;
use protocol::activity::{
    CommitRequest, ContributionType, EntryStatus, JudgeRequest, MyRequest, Period, PeriodStatus,
    PostListRequest, UpsertRequest,
};
use protocol::square::card::{Card, CardAuthor, Cover};
use protocol::ErrorCode;

use super::objects::{Contributions, ObjectFacts};
use super::*;

const H: i64 = 3_600_000;
/// The fixed "now" the tests start at.
const T0: i64 = 1_800_000_000_000;

struct ManualClock(AtomicI64);

impl Clock for ManualClock {
    fn now_millis(&self) -> i64 {
        self.0.load(Ordering::SeqCst)
    }
}

/// Objects: (kind, id) → (owner, public); hidden ones leave lists.
#[derive(Default)]
struct Fake {
    objects: Mutex<HashMap<String, (ContributionType, String, bool)>>,
    hidden: Mutex<HashSet<String>>,
    notified: Mutex<Vec<(String, String)>>,
}

#[async_trait::async_trait]
impl Contributions for Fake {
    async fn own_object(
        &self,
        account: &str,
        kind: ContributionType,
        obj_id: &str,
    ) -> Result<ObjectFacts, ApiError> {
        let objs = self.objects.lock().unwrap();
        let (k, owner, public) = objs.get(obj_id).ok_or(ErrorCode::NotFound)?;
        if owner != account {
            return Err(ErrorCode::NotFound.into());
        }
        Ok(ObjectFacts {
            kind_matches: *k == kind,
            public: *public,
            title: format!("title {obj_id}"),
            cover: Some(format!("/files/{obj_id}.png")),
        })
    }
    async fn shown(&self, objs: &[(ContributionType, &str)]) -> Result<Vec<bool>, ApiError> {
        let hidden = self.hidden.lock().unwrap();
        Ok(objs.iter().map(|(_, id)| !hidden.contains(*id)).collect())
    }
    async fn work_cards(&self, ids: &[String], _: Option<&str>) -> Result<Vec<Card>, ApiError> {
        Ok(ids
            .iter()
            .map(|id| Card {
                obj_type: 4,
                sub_obj_type: None,
                content_sub_type: None,
                channel: None,
                sub_channel: None,
                id: id.clone(),
                title: String::new(),
                cover: Cover::default(),
                stream: None,
                image_count: 1,
                author: CardAuthor::default(),
                tags: vec![],
                nsfw: false,
                likes: 0,
                collects: 0,
                comments: 0,
                views: 0,
                liked: false,
                collected: false,
                create_at: 0,
                frame: None,
                rating: "safe".into(),
                activity_mark: None,
            })
            .collect())
    }
    async fn author(&self, account: &str) -> CardAuthor {
        CardAuthor {
            id: account.into(),
            name: account.to_uppercase(),
            ..Default::default()
        }
    }
    async fn notify_winner(&self, to: &str, _: &str, _: &str, text: &str) {
        self.notified
            .lock()
            .unwrap()
            .push((to.to_owned(), text.to_owned()));
    }
    async fn check_cover(&self, url: &str) -> Result<String, ApiError> {
        if url.starts_with("/files/") {
            Ok(url.to_owned())
        } else {
            Err(ErrorCode::UploadError.into())
        }
    }
}

struct Fx {
    _dir: tempfile::TempDir,
    svc: ActivityService,
    fake: Arc<Fake>,
    clock: Arc<ManualClock>,
    ledger: Ledger,
}

fn fx() -> Fx {
    let dir = tempfile::tempdir().unwrap();
    let store: DynStore = Arc::new(EmbeddedStore::open(&dir.path().join("store")).unwrap());
    let fake = Arc::new(Fake::default());
    let clock = Arc::new(ManualClock(AtomicI64::new(T0)));
    let ledger = Ledger::new(store.clone());
    let svc = ActivityService::new(
        store.clone(),
        ledger.clone(),
        fake.clone(),
        clock.clone(),
        ActivityMarks::new(store),
    );
    Fx {
        _dir: dir,
        svc,
        fake,
        clock,
        ledger,
    }
}

impl Fx {
    fn at(&self, t: i64) {
        self.clock.0.store(t, Ordering::SeqCst);
    }
    fn object(&self, id: &str, kind: ContributionType, owner: &str) {
        self.fake
            .objects
            .lock()
            .unwrap()
            .insert(id.into(), (kind, owner.into(), true));
    }
    /// Two periods: [T0+1h, T0+2h) and [T0+2h, T0+3h).
    async fn activity(&self, judging: &str, types: &[&str]) -> String {
        let r = UpsertRequest {
            title: "Autumn".into(),
            rules: "**Paint**".into(),
            periods: vec![
                Period { start: T0 + H, end: T0 + 2 * H },
                Period { start: T0 + 2 * H, end: T0 + 3 * H },
            ],
            types: types.iter().map(|s| s.to_string()).collect(),
            prizes: vec![500, 200],
            judging: Some(judging.into()),
            excellent_count: Some(3),
            ..Default::default()
        };
        self.svc.create("op", &r).await.unwrap().detail.summary.id
    }
    async fn commit(&self, who: &str, kind: &str, obj: &str, act: Option<&str>) -> Result<String, ErrorCode> {
        self.svc
            .commit(
                who,
                &CommitRequest {
                    kind: Some(kind.into()),
                    obj_id: obj.into(),
                    activity_id: act.map(str::to_owned),
                },
            )
            .await
            .map(|r| r.entry_id)
            .map_err(|e| e.code)
    }
    async fn balance(&self, who: &str) -> i64 {
        self.ledger.balance(who).await.unwrap().balance
    }
}

#[tokio::test]
async fn period_boundaries_with_a_fixed_clock() {
    let f = fx();
    let a = f.activity("votes", &["work"]).await;
    for w in ["w1", "w2", "w3", "w4"] {
        f.object(w, ContributionType::Work, "ann");
    }
    // Before the first period: closed.
    f.at(T0 + H - 1);
    assert_eq!(f.commit("ann", "work", "w1", Some(&a)).await, Err(ErrorCode::ActivityPeriodClosed));
    // The first millisecond of period 0.
    f.at(T0 + H);
    f.commit("ann", "work", "w1", Some(&a)).await.unwrap();
    // The last millisecond of period 0 is still period 0.
    f.at(T0 + 2 * H - 1);
    f.commit("ann", "work", "w2", Some(&a)).await.unwrap();
    // The end is exclusive: period 1 begins.
    f.at(T0 + 2 * H);
    f.commit("ann", "work", "w3", Some(&a)).await.unwrap();
    let mine = f.svc.my_apply("ann", &MyRequest::default()).await.unwrap();
    let periods: Vec<Option<u32>> = mine.items.iter().map(|e| e.period).collect();
    assert_eq!(periods, [Some(1), Some(0), Some(0)]);
    // After the last period: closed.
    f.at(T0 + 3 * H);
    assert_eq!(f.commit("ann", "work", "w4", Some(&a)).await, Err(ErrorCode::ActivityPeriodClosed));
    let d = f.svc.detail(&a, Some("ann")).await.unwrap();
    assert_eq!(d.summary.status, protocol::activity::ActivityStatus::Ended);
    assert_eq!((d.joined, d.my_entries), (true, 3));
}

#[tokio::test]
async fn commit_rules() {
    let f = fx();
    let a = f.activity("votes", &["work", "character"]).await;
    f.object("w1", ContributionType::Work, "ann");
    f.object("v1", ContributionType::LocalVideo, "ann");
    f.object("ar1", ContributionType::Article, "ann");
    f.object("c1", ContributionType::Character, "ann");
    f.object("m1", ContributionType::ModelLora, "ann");
    f.object("w9", ContributionType::Work, "bob");
    f.at(T0 + H);
    // A type the activity does not take.
    assert_eq!(f.commit("ann", "local_video", "v1", Some(&a)).await, Err(ErrorCode::ActivityTypeNotAllowed));
    assert_eq!(f.commit("ann", "painting", "w1", Some(&a)).await, Err(ErrorCode::ActivityTypeInvalid));
    // The object is not of the type named.
    assert_eq!(f.commit("ann", "work", "ar1", Some(&a)).await, Err(ErrorCode::ActivityTypeMismatch));
    // Another's object answers like a missing one.
    assert_eq!(f.commit("ann", "work", "w9", Some(&a)).await, Err(ErrorCode::NotFound));
    assert_eq!(f.commit("ann", "work", "nope", Some(&a)).await, Err(ErrorCode::NotFound));
    // Unknown activity.
    assert_eq!(f.commit("ann", "work", "w1", Some("zz")).await, Err(ErrorCode::ActivityNotFound));
    // Without an activity: posts only.
    assert_eq!(f.commit("ann", "character", "c1", None).await, Err(ErrorCode::ActivityRequired));
    assert_eq!(f.commit("ann", "model_LORA", "m1", None).await, Err(ErrorCode::ActivityRequired));
    let marker = f.commit("ann", "article", "ar1", None).await.unwrap();
    assert_eq!(marker, "publish:article:ar1");
    assert_eq!(f.commit("ann", "article", "ar1", None).await, Err(ErrorCode::ActivityDuplicate));
    // Inside the activity, once.
    f.commit("ann", "work", "w1", Some(&a)).await.unwrap();
    assert_eq!(f.commit("ann", "work", "w1", Some(&a)).await, Err(ErrorCode::ActivityDuplicate));
    f.commit("ann", "character", "c1", Some(&a)).await.unwrap();
    // A private object.
    f.object("w2", ContributionType::Work, "ann");
    f.fake.objects.lock().unwrap().get_mut("w2").unwrap().2 = false;
    assert_eq!(f.commit("ann", "work", "w2", Some(&a)).await, Err(ErrorCode::ActivityObjectNotPublic));
    // The limit: 3 a period (w1 and c1 so far).
    for w in ["w3", "w4", "w5"] {
        f.object(w, ContributionType::Work, "ann");
    }
    f.commit("ann", "work", "w3", Some(&a)).await.unwrap();
    assert_eq!(f.commit("ann", "work", "w4", Some(&a)).await, Err(ErrorCode::ActivityEntryLimit));
    // Next period, room again.
    f.at(T0 + 2 * H);
    f.commit("ann", "work", "w4", Some(&a)).await.unwrap();
    // my-apply lists the marker as published.
    let mine = f.svc.my_apply("ann", &MyRequest::default()).await.unwrap();
    assert_eq!(mine.items.len(), 5);
    let marker = mine.items.iter().find(|e| e.activity_id.is_none()).unwrap();
    assert_eq!(marker.status, EntryStatus::Published);
    let my_list = f.svc.my_list("ann", &MyRequest::default()).await.unwrap();
    assert_eq!(my_list.items.len(), 1);
    assert_eq!(my_list.items[0].my_entries, Some(4));
    // The card mark of a committed work; none for the marker.
    let m = f.svc.marks().get("w4").unwrap();
    assert_eq!(m.id, format!("event-center/{a}/1"));
    assert_eq!(m.obj_type, 61);
    assert!(f.svc.marks().get("ar1").is_none());
}

#[tokio::test]
async fn voting_rules_and_judging_pays_once() {
    let f = fx();
    let a = f.activity("votes", &["work"]).await;
    for (w, owner) in [("wa", "ann"), ("wb", "bob"), ("wc", "cat"), ("wd", "dan")] {
        f.object(w, ContributionType::Work, owner);
    }
    f.at(T0 + H);
    let ea = f.commit("ann", "work", "wa", Some(&a)).await.unwrap();
    f.at(T0 + H + 1);
    let eb = f.commit("bob", "work", "wb", Some(&a)).await.unwrap();
    f.at(T0 + H + 2);
    let ec = f.commit("cat", "work", "wc", Some(&a)).await.unwrap();
    f.at(T0 + H + 3);
    let ed = f.commit("dan", "work", "wd", Some(&a)).await.unwrap();
    // Not one's own; once each; cancel and vote again.
    assert_eq!(f.svc.vote("ann", &ea).await.unwrap_err().code, ErrorCode::ActivityVoteSelf);
    assert_eq!(f.svc.vote("bob", &ea).await.unwrap().votes, 1);
    assert_eq!(f.svc.vote("bob", &ea).await.unwrap_err().code, ErrorCode::ActivityVoteDuplicate);
    assert_eq!(f.svc.vote_cancel("bob", &ea).await.unwrap().votes, 0);
    assert_eq!(f.svc.vote_cancel("bob", &ea).await.unwrap_err().code, ErrorCode::ActivityNotVoted);
    assert_eq!(f.svc.vote("zed", "nope:work:x").await.unwrap_err().code, ErrorCode::NotFound);
    // wb: 2 votes; wa and wc: 1 each (wa committed first); wd: 1 but hidden later.
    f.svc.vote("ann", &eb).await.unwrap();
    f.svc.vote("cat", &eb).await.unwrap();
    f.svc.vote("bob", &ea).await.unwrap();
    f.svc.vote("ann", &ec).await.unwrap();
    f.svc.vote("ann", &ed).await.unwrap();
    f.svc.vote("bob", &ed).await.unwrap();
    f.svc.vote("cat", &ed).await.unwrap();
    f.fake.hidden.lock().unwrap().insert("wd".into());
    // The hidden work left the lists; hidden entries cannot be voted.
    let (page, _) = f.svc.post_list(&PostListRequest { id: a.clone(), sort: Some("top".into()), ..Default::default() }, Some("zed")).await.unwrap();
    let ids: Vec<&str> = page.items.iter().map(|e| e.entry_id.as_str()).collect();
    assert_eq!(ids, [eb.as_str(), ea.as_str(), ec.as_str()]);
    let (page, _) = f.svc.post_list(&PostListRequest { id: a.clone(), ..Default::default() }, None).await.unwrap();
    let ids: Vec<&str> = page.items.iter().map(|e| e.entry_id.as_str()).collect();
    assert_eq!(ids, [ec.as_str(), eb.as_str(), ea.as_str()]);
    assert_eq!(f.svc.vote("zed", &ed).await.unwrap_err().code, ErrorCode::NotFound);
    // Judging before the end is refused.
    assert_eq!(
        f.svc.judge(&a, 0, None, Some("op")).await.unwrap_err().code,
        ErrorCode::ActivityNotJudgeable
    );
    // After the end: no more votes; judging three times, and the sweep, pay once.
    f.at(T0 + 2 * H);
    assert_eq!(f.svc.vote("dan", &ea).await.unwrap_err().code, ErrorCode::ActivityPeriodClosed);
    for _ in 0..3 {
        let r = f.svc.judge(&a, 0, None, Some("op")).await.unwrap();
        assert_eq!(r.status, PeriodStatus::Judged);
        let got: Vec<(u32, &str, i64)> = r.winners.iter().map(|w| (w.rank, w.entry.entry_id.as_str(), w.prize)).collect();
        assert_eq!(got, [(1, eb.as_str(), 500), (2, ea.as_str(), 200), (3, ec.as_str(), 0)]);
    }
    assert_eq!(f.svc.sweep().await.unwrap(), 0);
    assert_eq!(f.balance("bob").await, 500);
    assert_eq!(f.balance("ann").await, 200);
    assert_eq!(f.balance("cat").await, 0);
    assert_eq!(f.balance("dan").await, 0);
    let entries = f.ledger.entries("bob", 10).await.unwrap();
    let keys: Vec<&str> = entries.iter().map(|e| e.key.as_str()).collect();
    assert_eq!(keys, [format!("activity:{a}:0:1").as_str()]);
    // Winners were told once each.
    let told: Vec<String> = f.fake.notified.lock().unwrap().iter().map(|(to, _)| to.clone()).collect();
    assert_eq!(told, ["bob", "ann", "cat"]);
    // my-apply shows the standing.
    let mine = f.svc.my_apply("ann", &MyRequest::default()).await.unwrap();
    assert_eq!((mine.items[0].status, mine.items[0].rank, mine.items[0].prize), (EntryStatus::Excellent, Some(2), Some(200)));
    let dan = f.svc.my_apply("dan", &MyRequest::default()).await.unwrap();
    assert_eq!(dan.items[0].status, EntryStatus::Removed);
    let list = f.svc.excellent_list(&protocol::activity::ActivityRequest { id: a.clone(), period: None }, None).await.unwrap();
    assert_eq!(list.len(), 1);
    assert_eq!(list[0].winners.len(), 3);
}

#[tokio::test]
async fn the_sweep_judges_ended_periods_by_itself() {
    let f = fx();
    let a = f.activity("votes", &["work"]).await;
    f.object("wa", ContributionType::Work, "ann");
    f.object("wb", ContributionType::Work, "bob");
    f.at(T0 + H);
    let ea = f.commit("ann", "work", "wa", Some(&a)).await.unwrap();
    f.commit("bob", "work", "wb", Some(&a)).await.unwrap();
    f.svc.vote("bob", &ea).await.unwrap();
    assert_eq!(f.svc.sweep().await.unwrap(), 0);
    f.at(T0 + 2 * H);
    assert_eq!(f.svc.sweep().await.unwrap(), 1);
    assert_eq!(f.svc.sweep().await.unwrap(), 0);
    assert_eq!(f.balance("ann").await, 500);
    // bob had no votes: no place.
    assert_eq!(f.balance("bob").await, 0);
    let row = f.svc.activity(&a).await.unwrap();
    assert!(row.is_judged(0) && !row.is_judged(1));
    // Then an operator's judge answers the same list and pays nothing more.
    let r = f.svc.judge(&a, 0, None, Some("op")).await.unwrap();
    assert_eq!(r.winners.len(), 1);
    assert_eq!(f.balance("ann").await, 500);
}

#[tokio::test]
async fn operators_close_early_and_pick() {
    let f = fx();
    let a = f.activity("picks", &["work", "model_LORA"]).await;
    f.object("wa", ContributionType::Work, "ann");
    f.object("mb", ContributionType::ModelLora, "bob");
    f.at(T0 + H + 10);
    let ea = f.commit("ann", "work", "wa", Some(&a)).await.unwrap();
    let eb = f.commit("bob", "model_LORA", "mb", Some(&a)).await.unwrap();
    assert_eq!(f.svc.vote("cat", &ea).await.unwrap_err().code, ErrorCode::ActivityVotingOff);
    // Close now: no more contributions; picks wait for the operator.
    let r = f.svc.close("op", &a, 0).await.unwrap();
    assert_eq!((r.status, r.winners.len()), (PeriodStatus::Closed, 0));
    f.object("wc", ContributionType::Work, "cat");
    assert_eq!(f.commit("cat", "work", "wc", Some(&a)).await, Err(ErrorCode::ActivityPeriodClosed));
    // The sweep does not judge picks.
    assert_eq!(f.svc.sweep().await.unwrap(), 0);
    let j = |picks: Option<Vec<String>>| JudgeRequest { id: a.clone(), period: 0, picks };
    let bad = j(Some(vec!["x:work:y".into()]));
    assert_eq!(f.svc.judge(&bad.id, 0, bad.picks, Some("op")).await.unwrap_err().code, ErrorCode::ActivityPicksInvalid);
    assert_eq!(f.svc.judge(&a, 0, None, Some("op")).await.unwrap_err().code, ErrorCode::ActivityNotJudgeable);
    let picks = vec![eb.clone(), ea.clone()];
    for _ in 0..3 {
        let r = f.svc.judge(&a, 0, Some(picks.clone()), Some("op")).await.unwrap();
        let got: Vec<&str> = r.winners.iter().map(|w| w.entry.entry_id.as_str()).collect();
        assert_eq!(got, [eb.as_str(), ea.as_str()]);
    }
    assert_eq!(
        f.svc.judge(&a, 0, Some(vec![ea.clone()]), Some("op")).await.unwrap_err().code,
        ErrorCode::ActivityAlreadyJudged
    );
    assert_eq!((f.balance("bob").await, f.balance("ann").await), (500, 200));
    // Period 1 opens at its start as defined.
    f.at(T0 + 2 * H);
    f.commit("cat", "work", "wc", Some(&a)).await.unwrap();
}

#[tokio::test]
async fn definitions_and_edits() {
    let f = fx();
    let a = f.activity("votes", &["work"]).await;
    let mut r = UpsertRequest {
        id: Some(a.clone()),
        title: "Autumn, longer".into(),
        periods: vec![
            Period { start: T0 + H, end: T0 + 2 * H },
            Period { start: T0 + 2 * H, end: T0 + 4 * H },
        ],
        types: vec!["work".into()],
        prizes: vec![500, 200],
        ..Default::default()
    };
    f.at(T0 + 2 * H + 1);
    let e = f.svc.edit("op", &r).await.unwrap();
    assert_eq!(e.detail.summary.end, T0 + 4 * H);
    r.periods[0].end = T0 + 90 * 60_000;
    assert_eq!(f.svc.edit("op", &r).await.unwrap_err().code, ErrorCode::ActivityInvalid);
    // Daily challenges may not overlap.
    let daily = |start: i64| UpsertRequest {
        title: "Daily".into(),
        periods: vec![Period { start, end: start + 24 * H }],
        types: vec!["work".into()],
        daily: true,
        ..Default::default()
    };
    let d = f.svc.create("op", &daily(T0)).await.unwrap();
    assert_eq!(d.detail.summary.card_id, format!("event-center/daily/{}", d.detail.summary.id));
    assert_eq!(f.svc.create("op", &daily(T0 + 12 * H)).await.unwrap_err().code, ErrorCode::ActivityDailyTaken);
    f.svc.create("op", &daily(T0 + 24 * H)).await.unwrap();
    let mut bad = daily(T0 + 48 * H);
    bad.cover = Some("https://elsewhere.example/x.png".into());
    assert_eq!(f.svc.create("op", &bad).await.unwrap_err().code, ErrorCode::UploadError);
    // Lists: live first.
    f.at(T0 + 3 * H);
    let l = f.svc.list(&protocol::activity::ListRequest::default()).await.unwrap();
    let st: Vec<protocol::activity::ActivityStatus> = l.items.iter().map(|s| s.status).collect();
    use protocol::activity::ActivityStatus::*;
    assert_eq!(st, [Live, Live, Upcoming]);
}
