//! The cleanup sweeper with a fixed clock: what expired goes, what is live
//! or was renewed stays, and a renewed row is looked at again later.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use infra::store::{tables, DynStore, Key, Table};

use super::*;
use crate::accounts::limits::SharedLimits;
use crate::accounts::lockout::tests_support::FixedClock;

fn store() -> (tempfile::TempDir, DynStore) {
    let dir = tempfile::tempdir().unwrap();
    let store: DynStore =
        Arc::new(infra::store::embedded::EmbeddedStore::open(&dir.path().join("store")).unwrap());
    (dir, store)
}

const NOW_S: i64 = 1_800_000_000;

fn state(expires_at: i64) -> PendingSignIn {
    PendingSignIn {
        provider: "fake".into(),
        nonce: "n".into(),
        pkce_verifier: "v".into(),
        redirect_uri: "http://x/cb".into(),
        link_account: None,
        reauth_account: None,
        expires_at,
    }
}

fn code(expires_at: i64) -> CodeRow {
    CodeRow {
        email: "a@example.com".into(),
        salt: "s".into(),
        code_hash: "h".into(),
        expires_at,
        attempts: 0,
    }
}

#[tokio::test]
async fn expired_states_tokens_and_codes_go_live_ones_stay() {
    let (_dir, store) = store();
    let index = ExpiryIndex::new(store.clone());
    let states: Table<PendingSignIn> = Table::new(store.clone(), &tables::OIDC_STATES);
    let resets: Table<ResetRow> = Table::new(store.clone(), &tables::MAIL_RESET_TOKENS);
    let codes: Table<CodeRow> = Table::new(store.clone(), &tables::MAIL_CODES);
    let sms: Table<SmsCodeRow> = Table::new(store.clone(), &tables::SMS_CODES);
    let e = Key::empty();

    // An abandoned state (expired 1 s ago) and a live one.
    for (k, at) in [("old", NOW_S - 1), ("live", NOW_S + 600)] {
        states.put(&Key::of(k), &e, &state(at)).await.unwrap();
        index
            .register(at * 1000, ExpiryKind::OidcState, &Key::of(k))
            .await
            .unwrap();
    }
    // A used reset token whose link expired 8 days ago, and one that
    // expired 1 day ago (still kept, so it answers "expired").
    for (k, at) in [("h-old", NOW_S - 8 * 86_400), ("h-recent", NOW_S - 86_400)] {
        let row = ResetRow {
            account_id: "a".into(),
            email: "a@example.com".into(),
            expires_at: at,
            used: true,
        };
        resets.put(&Key::of(k), &e, &row).await.unwrap();
        index
            .register(reset_gone_at_ms(at), ExpiryKind::ResetToken, &Key::of(k))
            .await
            .unwrap();
    }
    // A code registered when it was issued, then replaced by a newer one
    // on the same key: the old entry finds the new row and re-registers it.
    let ck = Key::of("verify").str("acct1");
    index
        .register((NOW_S - 10) * 1000, ExpiryKind::MailCode, &ck)
        .await
        .unwrap();
    codes.put(&ck, &e, &code(NOW_S + 300)).await.unwrap();
    let dead = Key::of("email").str("acct2");
    codes.put(&dead, &e, &code(NOW_S - 5)).await.unwrap();
    index
        .register((NOW_S - 5) * 1000, ExpiryKind::MailCode, &dead)
        .await
        .unwrap();
    // An SMS code whose code expired but whose send window still counts.
    let number = Key::of("+447911123456");
    let sms_row = SmsCodeRow {
        code_hash: "h".into(),
        salt: "s".into(),
        expires_at: NOW_S - 100,
        attempts: 0,
        sent_at: NOW_S - 700,
        window_start: NOW_S - 700,
        window_sends: 1,
        spent: false,
    };
    sms.put(&number, &e, &sms_row).await.unwrap();
    index
        .register((NOW_S - 100) * 1000, ExpiryKind::SmsCode, &number)
        .await
        .unwrap();

    let swept = sweep_expired(&store, NOW_S * 1000, 1_000).await.unwrap();
    assert_eq!(
        swept,
        Swept {
            removed: 3,
            renewed: 2
        }
    );
    assert!(states.get(&Key::of("old"), &e).await.unwrap().is_none());
    assert!(states.get(&Key::of("live"), &e).await.unwrap().is_some());
    assert!(resets.get(&Key::of("h-old"), &e).await.unwrap().is_none());
    assert!(resets
        .get(&Key::of("h-recent"), &e)
        .await
        .unwrap()
        .is_some());
    assert!(codes.get(&ck, &e).await.unwrap().is_some(), "renewed");
    assert!(codes.get(&dead, &e).await.unwrap().is_none());
    assert!(sms.get(&number, &e).await.unwrap().is_some(), "window");

    // Nothing more is due now; an hour later the rest goes.
    assert_eq!(
        sweep_expired(&store, NOW_S * 1000, 1_000).await.unwrap(),
        Swept::default()
    );
    let later = sweep_expired(&store, (NOW_S + 3_600) * 1000, 1_000)
        .await
        .unwrap();
    assert_eq!(later.removed, 3, "{later:?}");
    assert!(states.get(&Key::of("live"), &e).await.unwrap().is_none());
    assert!(codes.get(&ck, &e).await.unwrap().is_none());
    assert!(sms.get(&number, &e).await.unwrap().is_none());
    assert!(resets
        .get(&Key::of("h-recent"), &e)
        .await
        .unwrap()
        .is_some());
    let week = sweep_expired(&store, (NOW_S + 7 * 86_400) * 1000, 1_000)
        .await
        .unwrap();
    assert_eq!(week.removed, 1);
    assert!(resets
        .get(&Key::of("h-recent"), &e)
        .await
        .unwrap()
        .is_none());
}

#[tokio::test]
async fn the_budget_bounds_one_run_and_the_next_resumes() {
    let (_dir, store) = store();
    let index = ExpiryIndex::new(store.clone());
    let states: Table<PendingSignIn> = Table::new(store.clone(), &tables::OIDC_STATES);
    for i in 0..5 {
        let k = Key::of(&format!("s{i}"));
        states
            .put(&k, &Key::empty(), &state(NOW_S - 10))
            .await
            .unwrap();
        index
            .register((NOW_S - 10) * 1000, ExpiryKind::OidcState, &k)
            .await
            .unwrap();
    }
    let first = sweep_expired(&store, NOW_S * 1000, 2).await.unwrap();
    assert_eq!(first.removed, 2);
    let rest = sweep_expired(&store, NOW_S * 1000, 100).await.unwrap();
    assert_eq!(rest.removed, 3);
}

#[tokio::test]
async fn limit_rows_go_once_their_window_is_over_unless_bumped() {
    let (_dir, store) = store();
    let clock = FixedClock::at(NOW_S * 1000);
    let limits = SharedLimits::new(store.clone(), clock.clone());
    let rows: Table<LimitRow> = Table::new(store.clone(), &tables::ACCT_LIMITS);
    limits.hit("w", "k", 60_000).await.unwrap();
    limits.bump("p", "k", 10_000).await.unwrap();
    clock.advance(9_000);
    // Bumped again: lives until 10 s after this failure.
    limits.bump("p", "k", 10_000).await.unwrap();
    let at = |s: i64| NOW_S * 1000 + s;
    assert_eq!(
        sweep_expired(&store, at(10_000), 100).await.unwrap(),
        Swept {
            removed: 0,
            renewed: 1
        }
    );
    assert!(rows
        .get(&super::super::limits::limit_key("p", "k"), &Key::empty())
        .await
        .unwrap()
        .is_some());
    let s = sweep_expired(&store, at(60_000), 100).await.unwrap();
    assert_eq!(s.removed, 2, "{s:?}");
    for scope in ["w", "p"] {
        assert!(rows
            .get(&super::super::limits::limit_key(scope, "k"), &Key::empty())
            .await
            .unwrap()
            .is_none());
    }
}
