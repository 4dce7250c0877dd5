//! The owner index's backfill under kill -9 (issue 21): a server killed
//! while it walks the old rows finishes the walk after a restart, and a
//! walk resumes from its marker rather than from the start.

use infra::store::{tables, DynStore, Key, ScanRange, Table, TableDef};
use serde_json::{json, Value};

use crate::account_deletion_engagement::{open_store, ENV};
use crate::helpers::{spawn_app_with, TestApp, ADMIN_EMAIL, PASSWORD};

/// Votes cast before the owner index existed: enough for the walk to take
/// many pages (200 rows each).
const VOTES: usize = 1_500;
/// `SOURCES`' index of `activity_votes` in `deletion/backfill.rs`.
const VOTES_SOURCE: u32 = 4;

fn entry(i: usize) -> String {
    format!("old-entry-{i:05}")
}

fn owned_votes(me: &str) -> Key {
    Key::of(me).str("vote")
}

fn marker(store: &DynStore) -> Table<Value> {
    Table::new(store.clone(), &tables::ACCT_BACKFILL)
}

/// Every row of a partition, page by page.
async fn all_rows(store: &DynStore, def: &'static TableDef, pk: &Key) -> Vec<Key> {
    let t: Table<Value> = Table::new(store.clone(), def);
    let mut out = Vec::new();
    let mut paging = None;
    loop {
        let page = t
            .scan(pk, &ScanRange::all(500).after(paging))
            .await
            .unwrap();
        out.extend(page.rows.into_iter().map(|(k, _)| k));
        match page.paging {
            Some(p) => paging = Some(p),
            None => return out,
        }
    }
}

/// Restarts the server and waits for the backfill to end (the sweep waits
/// for it), then stops it so the test may read the store.
async fn run_to_the_end(app: &mut TestApp) {
    app.start_again();
    let op = app
        .client
        .with_token(&app.client.login(ADMIN_EMAIL, PASSWORD).await.unwrap().token);
    let _: Value = op
        .post("/api/v1/admin/account/deletion/sweep", &json!({}))
        .await
        .unwrap();
    app.stop();
}

#[tokio::test]
async fn a_backfill_killed_mid_walk_ends_after_a_restart_and_resumes_from_its_marker() {
    let mut app = spawn_app_with(ENV).await;
    let _ = app.operator().await;
    let (ad, _) = app.user("Vera").await;
    let me = ad.account.id.clone();
    app.stop();
    {
        let store = open_store(&app);
        let votes: Table<i64> = Table::new(store.clone(), &tables::ACTIVITY_VOTES);
        for i in 0..VOTES {
            votes
                .put(&Key::of(&entry(i)), &Key::of(&me), &(1_000 + i as i64))
                .await
                .unwrap();
        }
        marker(&store)
            .delete(&Key::of("owner_index"), &Key::empty())
            .await
            .unwrap();
    }

    // Killed as soon as it answers, most likely in the middle of the walk
    // (the marker read afterwards says where; any point must end well).
    app.start_again();
    app.stop();
    {
        let store = open_store(&app);
        let m = marker(&store)
            .get(&Key::of("owner_index"), &Key::empty())
            .await
            .unwrap();
        eprintln!("backfill marker at the kill: {m:?}");
    }
    run_to_the_end(&mut app).await;
    {
        let store = open_store(&app);
        assert_eq!(
            all_rows(&store, &tables::ACCT_OWNED, &owned_votes(&me))
                .await
                .len(),
            VOTES,
            "every old vote is listed under its voter, once"
        );
        let m = marker(&store)
            .get(&Key::of("owner_index"), &Key::empty())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(m["done"], true, "{m}");

        // A walk stopped after the 700th vote: its marker says so, and the
        // index has nothing yet.
        let t: Table<String> = Table::new(store.clone(), &tables::ACCT_OWNED);
        t.delete_partition(&owned_votes(&me)).await.unwrap();
        let after = (
            Key::of(&entry(699)).as_bytes().to_vec(),
            Key::of(&me).as_bytes().to_vec(),
        );
        marker(&store)
            .put(
                &Key::of("owner_index"),
                &Key::empty(),
                &json!({"source": VOTES_SOURCE, "after": after, "recorded": 0, "done": false}),
            )
            .await
            .unwrap();
    }
    run_to_the_end(&mut app).await;
    let store = open_store(&app);
    let listed = all_rows(&store, &tables::ACCT_OWNED, &owned_votes(&me)).await;
    // It went on from the 701st: the rows before its marker were not walked again.
    assert_eq!(listed.len(), VOTES - 700);
    let mut ids: Vec<String> = listed
        .iter()
        .map(|ck| {
            let mut r = ck.reader();
            r.i64().unwrap();
            r.str().unwrap()
        })
        .collect();
    ids.sort();
    assert_eq!(ids.first().map(String::as_str), Some(entry(700).as_str()));
    assert_eq!(
        ids.last().map(String::as_str),
        Some(entry(VOTES - 1).as_str())
    );
}
