//! The socket: auth, wrong token, no auth, heartbeat, idle, limits, origin,
//! both codecs, pushes to every socket of a user, and resume without loss.

use std::time::Duration;

use protocol::client::{Incoming, Socket};
use protocol::frame::{Codec, Frame, FrameType, ResumeResult};
use serde_json::{json, Value};

use crate::helpers::{spawn_app, spawn_app_with, WAIT};

async fn closed_with(s: &mut Socket) -> u16 {
    loop {
        match s.recv_timeout(WAIT).await.expect("socket should close") {
            Incoming::Closed(Some((code, _))) => return code,
            Incoming::Closed(None) => return 0,
            Incoming::Frame(_) => continue,
        }
    }
}

/// A real change that pushes a notification to every socket of the user.
async fn poke(client: &protocol::client::RestClient, insight: bool) {
    let _: Value = client
        .post("/api/v1/account/settings", &json!({"insight": insight}))
        .await
        .unwrap();
}

#[tokio::test]
async fn auth_confirms_with_a_heartbeat_and_heartbeats_are_answered() {
    let app = spawn_app().await;
    let (data, _) = app.user("Sam").await;
    for codec in [Codec::Json, Codec::MsgPack] {
        let mut s = Socket::connect(&app.ws_url(), codec).await.unwrap();
        let confirm = s.authenticate(&data.token).await.unwrap();
        assert_eq!(confirm.account_id, data.account.id);
        assert!(!confirm.stream.is_empty());
        for _ in 0..3 {
            s.send(&Frame::heartbeat()).await.unwrap();
            let f = s.expect(FrameType::Heartbeat, WAIT).await.unwrap();
            assert_eq!(f.kind, 4);
        }
    }
}

#[tokio::test]
async fn msgpack_sockets_get_binary_frames_and_json_sockets_text() {
    let app = spawn_app().await;
    let (data, client) = app.user("Mia").await;
    let mut mp = Socket::connect(&app.ws_url(), Codec::MsgPack)
        .await
        .unwrap();
    mp.authenticate(&data.token).await.unwrap();
    poke(&client, true).await;
    // The reference client decodes binary as MessagePack only: getting a
    // well-formed frame proves the server encoded it so.
    let f = mp.expect(FrameType::Notification, WAIT).await.unwrap();
    assert_eq!(f.content["kind"], "account.settings");
    assert_eq!(f.content["settings"]["insight"], true);
}

#[tokio::test]
async fn a_wrong_token_closes_with_4401() {
    let app = spawn_app().await;
    let mut s = Socket::connect(&app.ws_url(), Codec::Json).await.unwrap();
    s.send(&Frame::auth("0".repeat(64))).await.unwrap();
    assert_eq!(closed_with(&mut s).await, 4401);
}

#[tokio::test]
async fn no_auth_in_time_closes_with_4408() {
    let app = spawn_app_with(&[("EASEL_WS_AUTH_TIMEOUT_MS", "300")]).await;
    let mut s = Socket::connect(&app.ws_url(), Codec::Json).await.unwrap();
    // Heartbeats do not count as authentication.
    s.send(&Frame::heartbeat()).await.unwrap();
    let f = s.expect(FrameType::Error, WAIT).await.unwrap();
    assert_eq!(f.content["key"], "NeedLogin");
    assert_eq!(closed_with(&mut s).await, 4408);
}

#[tokio::test]
async fn silence_closes_an_authenticated_socket() {
    let app = spawn_app_with(&[("EASEL_WS_IDLE_TIMEOUT_MS", "400")]).await;
    let (data, _) = app.user("Idle").await;
    let mut s = app.socket(&data.token).await;
    // Heartbeats keep it open past the timeout...
    for _ in 0..4 {
        tokio::time::sleep(Duration::from_millis(200)).await;
        s.send(&Frame::heartbeat()).await.unwrap();
        s.expect(FrameType::Heartbeat, WAIT).await.unwrap();
    }
    // ...and silence closes it.
    assert_eq!(closed_with(&mut s).await, 4410);
}

#[tokio::test]
async fn a_second_auth_closes_with_4429() {
    let app = spawn_app().await;
    let (data, _) = app.user("Two").await;
    let mut s = app.socket(&data.token).await;
    s.send(&Frame::auth(&data.token)).await.unwrap();
    assert_eq!(closed_with(&mut s).await, 4429);
}

#[tokio::test]
async fn too_many_frames_close_with_4429() {
    let app = spawn_app_with(&[("EASEL_WS_MAX_FRAMES_PER_SEC", "5")]).await;
    let (data, _) = app.user("Spam").await;
    let mut s = app.socket(&data.token).await;
    for _ in 0..10 {
        if s.send(&Frame::heartbeat()).await.is_err() {
            break;
        }
    }
    assert_eq!(closed_with(&mut s).await, 4429);
}

#[tokio::test]
async fn a_frame_over_the_limit_closes_with_1009() {
    let app = spawn_app_with(&[("EASEL_WS_MAX_FRAME_BYTES", "1024")]).await;
    let (data, _) = app.user("Big").await;
    let mut s = app.socket(&data.token).await;
    let big = Frame::new(FrameType::Heartbeat, json!({ "pad": "x".repeat(4096) }));
    s.send(&big).await.unwrap();
    assert_eq!(closed_with(&mut s).await, 1009);
}

#[tokio::test]
async fn garbage_frames_get_an_error_frame_not_a_crash() {
    let app = spawn_app().await;
    let (data, _) = app.user("Junk").await;
    let mut s = app.socket(&data.token).await;
    s.send_raw(b"{not json".to_vec(), false).await.unwrap();
    let f = s.expect(FrameType::Error, WAIT).await.unwrap();
    assert_eq!(f.content["key"], "InvalidParams");
    s.send(&Frame::new(FrameType::TaskUpdate, json!({})))
        .await
        .unwrap();
    let f = s.expect(FrameType::Error, WAIT).await.unwrap();
    assert_eq!(f.content["code"], 40000);
    s.send(&Frame::heartbeat()).await.unwrap();
    s.expect(FrameType::Heartbeat, WAIT).await.unwrap();
}

#[tokio::test]
async fn a_foreign_origin_is_refused_and_the_own_origin_accepted() {
    let app = spawn_app_with(&[("EASEL_ALLOWED_ORIGINS", "https://app.example.com")]).await;
    let err =
        Socket::connect_with_origin(&app.ws_url(), Codec::Json, Some("https://evil.example.net"))
            .await;
    assert!(err.is_err(), "foreign origin must not upgrade");
    let own = app.base.clone();
    assert!(
        Socket::connect_with_origin(&app.ws_url(), Codec::Json, Some(&own))
            .await
            .is_ok()
    );
    assert!(Socket::connect_with_origin(
        &app.ws_url(),
        Codec::Json,
        Some("https://app.example.com")
    )
    .await
    .is_ok());
}

#[tokio::test]
async fn every_socket_of_a_user_gets_each_push_in_order() {
    let app = spawn_app().await;
    let (data, client) = app.user("Multi").await;
    let (other, _) = app.user("Other").await;
    let mut a = app.socket(&data.token).await;
    let mut b = app.socket(&data.token).await;
    let mut stranger = app.socket(&other.token).await;
    for i in 0..5 {
        poke(&client, i % 2 == 0).await;
    }
    for s in [&mut a, &mut b] {
        let mut seqs = Vec::new();
        for _ in 0..5 {
            let f = s.expect(FrameType::Notification, WAIT).await.unwrap();
            seqs.push(f.seq.unwrap());
        }
        assert_eq!(seqs, vec![1, 2, 3, 4, 5]);
    }
    // Another user's socket gets none of it.
    stranger.send(&Frame::heartbeat()).await.unwrap();
    let f = stranger.expect(FrameType::Heartbeat, WAIT).await.unwrap();
    assert!(f.seq.is_none());
    assert!(
        stranger
            .recv_timeout(Duration::from_millis(300))
            .await
            .is_err(),
        "nothing else arrives"
    );
}

#[tokio::test]
async fn resume_after_reconnect_replays_what_was_missed() {
    let app = spawn_app().await;
    let (data, client) = app.user("Res").await;
    let mut s = app.socket(&data.token).await;
    poke(&client, true).await;
    let first = s.expect(FrameType::Notification, WAIT).await.unwrap();
    assert_eq!(first.seq, Some(1));
    let stream = s.stream.clone().unwrap();
    let last_seq = s.last_seq;
    s.close().await.unwrap();

    // Pushes while no socket is connected.
    for i in 0..3 {
        poke(&client, i % 2 == 1).await;
    }

    let mut s = app.socket(&data.token).await;
    s.send(&Frame::resume(last_seq, Some(&stream)))
        .await
        .unwrap();
    let mut got = Vec::new();
    let result: ResumeResult = loop {
        let f = match s.recv_timeout(WAIT).await.unwrap() {
            Incoming::Frame(f) => f,
            Incoming::Closed(c) => panic!("closed {c:?}"),
        };
        match f.frame_type() {
            Some(FrameType::Notification) => got.push(f.seq.unwrap()),
            Some(FrameType::Resume) => break serde_json::from_value(f.content).unwrap(),
            _ => {}
        }
    };
    assert_eq!(got, vec![2, 3, 4], "nothing lost, nothing doubled");
    assert!(result.resumed);
    assert_eq!(result.replayed, 3);
    assert_eq!(result.seq, 4);

    // A resume from an unknown stream says it could not resume.
    let mut t = app.socket(&data.token).await;
    t.send(&Frame::resume(1, Some("0000000000000000")))
        .await
        .unwrap();
    let f = t.expect(FrameType::Resume, WAIT).await.unwrap();
    let r: ResumeResult = serde_json::from_value(f.content).unwrap();
    assert!(!r.resumed);
}
