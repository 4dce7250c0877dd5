//! Frame tests: the wire shapes, both codecs, the push splice.

use super::*;
use serde_json::json;

fn samples() -> Vec<Frame> {
    vec![
        Frame::auth("tok"),
        Frame::heartbeat(),
        Frame::resume(42, Some("s1")),
        Frame {
            seq: Some(7),
            ts: Some(1_800_000_000_123_456),
            ..Frame::new(
                FrameType::TaskUpdate,
                json!({"id": "t1", "status": 2, "process": 55}),
            )
        },
        Frame::new(
            FrameType::ChatStream,
            json!({"session_id": "s", "msg_id": "m", "seq": 3, "delta": "héllo ✓", "done": false}),
        ),
        Frame::new(
            FrameType::ImMessage,
            json!({"channel_id": "c", "seq": 1, "sender": "u", "content": "hi", "n": -1.5}),
        ),
        Frame::error(crate::ErrorCode::TooManyRequests, None),
    ]
}

#[test]
fn both_codecs_round_trip() {
    for codec in [Codec::Json, Codec::MsgPack] {
        for f in samples() {
            let bytes = codec.encode(&f).unwrap();
            assert_eq!(codec.decode(&bytes).unwrap(), f, "{codec:?}");
        }
    }
}

#[test]
fn json_shape_is_pinned() {
    let s = String::from_utf8(Codec::Json.encode(&Frame::auth("abc")).unwrap()).unwrap();
    assert_eq!(s, r#"{"type":7,"token":"abc","content":null}"#);
    let f: Frame = serde_json::from_str(r#"{"type":4}"#).unwrap();
    assert_eq!(f, Frame::heartbeat());
    let s = String::from_utf8(
        Codec::Json
            .encode(&Frame::error(crate::ErrorCode::NeedLogin, None))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        s,
        r#"{"type":14,"content":{"code":20000,"key":"NeedLogin","msg":"please log in"}}"#
    );
}

#[test]
fn msgpack_uses_named_fields() {
    let bytes = Codec::MsgPack.encode(&Frame::heartbeat()).unwrap();
    let v: Value = rmp_serde::from_slice(&bytes).unwrap();
    assert_eq!(v, json!({"type": 4, "content": null}));
}

#[test]
fn client_frames_decode_into_the_closed_enum() {
    assert_eq!(
        ClientFrame::from_frame(Frame::auth("t")),
        Ok(ClientFrame::Auth { token: "t".into() })
    );
    assert_eq!(
        ClientFrame::from_frame(Frame::heartbeat()),
        Ok(ClientFrame::Heartbeat)
    );
    assert_eq!(
        ClientFrame::from_frame(Frame::resume(9, None)),
        Ok(ClientFrame::Resume {
            last_seq: 9,
            stream: None
        })
    );
    assert_eq!(
        ClientFrame::from_frame(Frame::auth("")),
        Err(FrameError::MissingToken)
    );
    assert_eq!(
        ClientFrame::from_frame(Frame::new(FrameType::Resume, json!({}))),
        Err(FrameError::MissingLastSeq)
    );
    assert_eq!(
        ClientFrame::from_frame(Frame::new(FrameType::TaskUpdate, json!({}))),
        Err(FrameError::UnexpectedType(10))
    );
}

#[test]
fn garbage_is_an_error_not_a_panic() {
    for codec in [Codec::Json, Codec::MsgPack] {
        for bytes in [&b""[..], b"{", b"\xff\xfe", b"[1,2]", b"{\"type\":\"x\"}"] {
            assert!(codec.decode(bytes).is_err(), "{codec:?} {bytes:?}");
        }
    }
}

fn push_samples() -> Vec<Value> {
    vec![
        json!({"id": "t1", "status": 2, "process": 55, "z": [1, 2.5, null], "a": {"b": true}}),
        json!({"delta": "héllo ✓ \"quoted\" \\ \n\u{0001}</script>", "done": false}),
        json!({"n": -1.5, "big": u64::MAX, "neg": i64::MIN}),
        json!("just a string"),
        json!(42),
        json!(null),
        json!([]),
        json!({}),
    ]
}

#[test]
fn spliced_push_json_is_byte_identical_to_the_frame_encoding() {
    for content in push_samples() {
        for (kind, seq, ts) in [
            (10, Some(7), Some(1_763_700_000_000_001)),
            (12, Some(u64::MAX), Some(u64::MAX)),
            (11, Some(0), Some(0)),
            (13, None, None),
            (15, None, None),
            (10, Some(9), None),
        ] {
            let frame = Frame {
                kind,
                token: None,
                content: content.clone(),
                seq,
                ts,
            };
            let old = Codec::Json.encode(&frame).unwrap();
            let new = push_json(kind, &PushContent::from_value(&content), seq, ts);
            assert_eq!(String::from_utf8(old).unwrap(), new);
            assert_eq!(Codec::Json.decode(new.as_bytes()).unwrap(), frame);
        }
    }
    assert_eq!(
        push_json(
            11,
            &PushContent::from_value(&json!({"a": 1})),
            Some(3),
            None
        ),
        r#"{"type":11,"content":{"a":1},"seq":3}"#
    );
    assert_eq!(
        push_json(12, &PushContent::from_value(&json!(1)), Some(10), Some(42)),
        r#"{"type":12,"content":1,"seq":10,"ts":42}"#
    );
    assert_eq!(
        push_json(15, &PushContent::from_value(&json!(null)), None, None),
        r#"{"type":15,"content":null}"#
    );
}

#[test]
fn digits_are_written_like_display() {
    for n in [
        0,
        1,
        9,
        10,
        99,
        100,
        12345,
        u64::from(u32::MAX),
        u64::MAX - 1,
        u64::MAX,
    ] {
        let mut s = String::from("x");
        push_u64(&mut s, n);
        assert_eq!(s, format!("x{n}"));
    }
}

#[test]
fn ts_is_serialised_only_when_set_in_both_codecs() {
    let with = Frame {
        seq: Some(1),
        ts: Some(1_763_700_000_123_456),
        ..Frame::new(FrameType::ImMessage, json!({"m": 1}))
    };
    let text = String::from_utf8(Codec::Json.encode(&with).unwrap()).unwrap();
    assert_eq!(
        text,
        r#"{"type":12,"content":{"m":1},"seq":1,"ts":1763700000123456}"#
    );
    let packed: Value = rmp_serde::from_slice(&Codec::MsgPack.encode(&with).unwrap()).unwrap();
    assert_eq!(packed.get("ts"), Some(&json!(1_763_700_000_123_456u64)));
    let without = Frame::new(FrameType::ImMessage, json!({"m": 1}));
    for codec in [Codec::Json, Codec::MsgPack] {
        let v: Value = match codec {
            Codec::Json => serde_json::from_slice(&codec.encode(&without).unwrap()).unwrap(),
            Codec::MsgPack => rmp_serde::from_slice(&codec.encode(&without).unwrap()).unwrap(),
        };
        assert!(v.get("ts").is_none(), "{codec:?}: {v}");
        assert_eq!(codec.decode(&codec.encode(&with).unwrap()).unwrap(), with);
    }
}

#[test]
fn push_content_is_stamped_when_encoded_and_keeps_a_given_time() {
    let before = now_micros();
    let c = PushContent::from_value(&json!({"a": 1}));
    let after = now_micros();
    let ts = c.ts().unwrap();
    assert!(before <= ts && ts <= after, "{before} <= {ts} <= {after}");
    let moved = c.clone().with_ts(Some(5));
    assert_eq!(moved.ts(), Some(5));
    // Equality is of the content; the time is compared on its own.
    assert_eq!(moved, c);
    assert_eq!(c.clone().with_ts(None).ts(), None);
    assert!(PushContent::new(&json!([1])).unwrap().ts().is_some());
}

#[test]
fn push_content_of_a_struct_decodes_to_the_same_value() {
    let confirm = AuthConfirm {
        account_id: "a".into(),
        stream: "s".into(),
        seq: 9,
    };
    let direct = PushContent::new(&confirm).unwrap();
    assert_eq!(
        direct.as_str(),
        r#"{"account_id":"a","stream":"s","seq":9}"#
    );
    assert_eq!(
        direct.to_value().unwrap(),
        serde_json::to_value(&confirm).unwrap()
    );
}

#[test]
fn push_content_serialises_as_json_not_as_a_string() {
    let c = PushContent::from_value(&json!({"n": 1, "s": "x"}));
    let text = serde_json::to_string(&json!({"wrapped": c.to_value().unwrap()})).unwrap();
    #[derive(Serialize, Deserialize)]
    struct Wrapper {
        wrapped: PushContent,
    }
    let ours = serde_json::to_string(&Wrapper { wrapped: c.clone() }).unwrap();
    assert_eq!(ours, text);
    assert_eq!(ours, r#"{"wrapped":{"n":1,"s":"x"}}"#);
    let back: Wrapper = serde_json::from_str(&ours).unwrap();
    assert_eq!(back.wrapped, c);
    // Other serde formats see the value too.
    let packed = rmp_serde::to_vec_named(&Wrapper { wrapped: c.clone() }).unwrap();
    let back: Wrapper = rmp_serde::from_slice(&packed).unwrap();
    assert_eq!(back.wrapped, c);
}

#[test]
fn subprotocol_selects_codec() {
    assert_eq!(Codec::from_subprotocols(None), Codec::Json);
    assert_eq!(Codec::from_subprotocols(Some("json")), Codec::Json);
    assert_eq!(
        Codec::from_subprotocols(Some("foo, msgpack")),
        Codec::MsgPack
    );
}
