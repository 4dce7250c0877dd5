//! Documents to datacards through the real binary (`langflow/parse-rag-file`,
//! `langflow/progress`, `langflow/character-datacards`): a Markdown file for
//! a character becomes titled datacards, with progress polled and pushed on
//! the socket; an HTML upload (by upload id) keeps its scripts out; a PDF
//! made here by `lopdf` is read; bad and encrypted PDFs fail with their
//! codes; a PNG and an oversize file are refused at once; another account's
//! job and character answer like missing ones.

use std::time::{Duration, Instant};

use lopdf::{dictionary, Document, Object, Stream};
use protocol::client::RestClient;
use protocol::frame::FrameType;
use serde_json::{json, Value};

use crate::helpers::{spawn_app_with, TestApp};

pub(crate) const LORE: &str = "# The Kingdom of Oru\n\nOru is a small realm by the sea. Its queen, Ana, rules from a tower of salt.\n\n\
## People\n\nFishers and weavers live in the low town.\n\n- They trade amber.\n- They fear the fog.\n\n\
## Magic\n\nMagic is rare and feared. <script>alert('leak')</script>\n";

/// Sends the raw document; answers (HTTP status, envelope).
async fn send(app: &TestApp, c: &RestClient, bytes: Vec<u8>, query: &str) -> (u16, Value) {
    let mut req = reqwest::Client::new()
        .post(format!(
            "{}/api/v1/langflow/parse-rag-file?{query}",
            app.base
        ))
        .header("Content-Type", "application/octet-stream")
        .body(bytes);
    if let Some(t) = c.token() {
        req = req.header("token", t);
    }
    let res = req.send().await.unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap())
}

async fn submit(app: &TestApp, c: &RestClient, bytes: Vec<u8>, query: &str) -> String {
    let (status, v) = send(app, c, bytes, query).await;
    assert_eq!(status, 200, "{v}");
    v["data"]["id"].as_str().unwrap().to_owned()
}

/// Polls `langflow/progress` until the job ends; answers its view.
pub(crate) async fn wait_done(c: &RestClient, id: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let v: Value = c
            .post("/api/v1/langflow/progress", &json!({ "id": id }))
            .await
            .unwrap();
        if v["state"] == "done" || v["state"] == "failed" {
            return v;
        }
        assert!(Instant::now() < deadline, "job {id} stuck: {v}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The error code of a call answered with an error.
fn code_of<T: std::fmt::Debug>(r: Result<T, protocol::client::ClientError>) -> i32 {
    r.expect_err("expected an error").status().unwrap().code
}

/// A small PDF, one page per text, optionally with a user password.
pub(crate) fn pdf(pages: &[&str], password: Option<&str>) -> Vec<u8> {
    let mut doc = Document::with_version("1.5");
    doc.trailer.set(
        "ID",
        Object::Array(vec![
            Object::string_literal(b"api-rag-test-id1".to_vec()),
            Object::string_literal(b"api-rag-test-id2".to_vec()),
        ]),
    );
    let pages_id = doc.new_object_id();
    let font = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Times-Roman",
    });
    let kids: Vec<Object> = pages
        .iter()
        .map(|text| {
            let ops = format!("BT\n/F1 12 Tf\n72 720 Td\n({text}) Tj\nET\n");
            let contents = doc.add_object(Stream::new(dictionary! {}, ops.into_bytes()));
            Object::Reference(doc.add_object(dictionary! {
                "Type" => "Page",
                "Parent" => pages_id,
                "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
                "Resources" => dictionary! { "Font" => dictionary! { "F1" => font } },
                "Contents" => contents,
            }))
        })
        .collect();
    let n = kids.len() as i64;
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! { "Type" => "Pages", "Kids" => kids, "Count" => n }),
    );
    let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog);
    if let Some(pw) = password {
        let state = lopdf::EncryptionState::try_from(lopdf::EncryptionVersion::V2 {
            document: &doc,
            owner_password: "owner",
            user_password: pw,
            key_length: 128,
            permissions: lopdf::Permissions::all(),
        })
        .unwrap();
        doc.encrypt(&state).unwrap();
    }
    let mut out = Vec::new();
    doc.save_to(&mut out).unwrap();
    out
}

/// Uploads through the pre-signed flow (one part); answers the file id.
async fn upload(c: &RestClient, bytes: &[u8], name: &str) -> String {
    let pre: Value = c
        .post(
            "/api/v1/resource/pre-sign/get",
            &json!({"file_size": bytes.len(), "file_name": name,
                    "content_type": "application/octet-stream", "category": 0}),
        )
        .await
        .unwrap();
    let r = reqwest::Client::new()
        .put(pre["pre_signs"][0].as_str().unwrap())
        .header("content-type", "application/octet-stream")
        .body(bytes.to_vec())
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success());
    let _: Value = c
        .post(
            "/api/v1/resource/pre-sign/confirm",
            &json!({"file_id": pre["file_id"]}),
        )
        .await
        .unwrap();
    pre["file_id"].as_str().unwrap().to_owned()
}

pub(crate) async fn character(c: &RestClient, name: &str) -> String {
    let v: Value = c
        .post(
            "/api/v1/tavern-pro/publish",
            &json!({"name": name, "greeting": "Hello.", "published": true}),
        )
        .await
        .unwrap();
    v["id"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn documents_become_datacards_for_their_owner() {
    let app = spawn_app_with(&[("EASEL_RAG_MAX_BYTES", "200000")]).await;
    let (alice_login, alice) = app.user("Alice").await;
    let (_, bob) = app.user("Bob").await;
    let ana = character(&alice, "Ana").await;
    let mut socket = app.socket(&alice_login.token).await;

    // Markdown for Alice's character: three titled cards, the script left out.
    let id = submit(
        &app,
        &alice,
        LORE.as_bytes().to_vec(),
        &format!("character_id={ana}&file_name=oru.md"),
    )
    .await;
    let v = wait_done(&alice, &id).await;
    assert_eq!(v["state"], "done", "{v}");
    assert_eq!(v["percent"], 100);
    assert_eq!(v["kind"], "markdown");
    assert_eq!(v["file_name"], "oru.md");
    assert_eq!(v["character_id"], ana.as_str());
    assert_eq!(v["cards_made"], 3);
    let card_ids: Vec<String> = v["card_ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_owned())
        .collect();
    assert_eq!(card_ids.len(), 3);

    let cards: Value = alice
        .post(
            "/api/v1/langflow/character-datacards",
            &json!({ "character_id": ana }),
        )
        .await
        .unwrap();
    let titles: Vec<&str> = cards["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, vec!["The Kingdom of Oru", "People", "Magic"]);
    let people = &cards["items"][1]["content"];
    assert_eq!(
        people,
        "Fishers and weavers live in the low town.\n\nThey trade amber.\n\nThey fear the fog."
    );
    let all = cards.to_string();
    assert!(!all.contains("script") && !all.contains("alert"), "{all}");
    // They are ordinary datacards of Alice: listed, editable.
    let mine: Value = alice.post("/api/v1/datacard/my", &json!({})).await.unwrap();
    assert_eq!(mine["items"].as_array().unwrap().len(), 3);
    let edited: Value = alice
        .post(
            "/api/v1/datacard/edit",
            &json!({"id": card_ids[2], "title": "Magic of Oru", "content": "Rare."}),
        )
        .await
        .unwrap();
    assert_eq!(edited["title"], "Magic of Oru");

    // The socket heard the job end.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let f = socket
            .expect(FrameType::Notification, Duration::from_secs(10))
            .await
            .unwrap();
        if f.content["kind"] == "rag.progress" && f.content["state"] == "done" {
            assert_eq!(f.content["id"], id.as_str());
            assert_eq!(f.content["cards_made"], 3);
            break;
        }
        assert!(Instant::now() < deadline);
    }

    // Bob sees none of it: the job, the character's cards, the character.
    assert_eq!(
        code_of(
            bob.post::<_, Value>("/api/v1/langflow/progress", &json!({ "id": id }))
                .await
        ),
        40400
    );
    assert_eq!(
        code_of(
            bob.post::<_, Value>(
                "/api/v1/langflow/character-datacards",
                &json!({ "character_id": ana })
            )
            .await
        ),
        40400
    );
    let (status, v) = send(
        &app,
        &bob,
        b"Bob's notes.".to_vec(),
        &format!("character_id={ana}"),
    )
    .await;
    assert_eq!(
        (status, v["status"]["code"].as_i64()),
        (404, Some(40400)),
        "{v}"
    );
    let (status, v) = send(&app, &bob, b"x".to_vec(), "character_id=no-such-character").await;
    assert_eq!(
        (status, v["status"]["code"].as_i64()),
        (404, Some(40400)),
        "{v}"
    );
    // Visitors must sign in.
    let (status, _) = send(&app, &app.client, b"x".to_vec(), "").await;
    assert_eq!(status, 401);
}

#[tokio::test]
async fn uploads_pdfs_and_bad_files() {
    let app = spawn_app_with(&[("EASEL_RAG_MAX_BYTES", "200000")]).await;
    let (_, alice) = app.user("Alice").await;
    let (_, bob) = app.user("Bob").await;

    // An HTML upload, named by its upload id: headings kept, scripts dropped.
    let html = "<!doctype html><html><head><title>Lore</title><script>var leak = 1;</script></head>\
        <body><h1>Harbour</h1><p>Boats &amp; nets.</p><script>document.write('<p>leak</p>')</script>\
        <h2>Tower</h2><p>Made of salt.</p></body></html>";
    let file_id = upload(&alice, html.as_bytes(), "lore.html").await;
    let v: Value = alice
        .post(
            "/api/v1/langflow/parse-rag-file",
            &json!({ "file_id": file_id }),
        )
        .await
        .unwrap();
    let job = wait_done(&alice, v["id"].as_str().unwrap()).await;
    assert_eq!(
        (job["state"].as_str(), job["kind"].as_str()),
        (Some("done"), Some("html")),
        "{job}"
    );
    let mine: Value = alice.post("/api/v1/datacard/my", &json!({})).await.unwrap();
    let text = mine.to_string();
    assert!(
        text.contains("Boats & nets.") && text.contains("Made of salt."),
        "{text}"
    );
    assert!(!text.contains("leak"), "{text}");
    // Bob cannot name Alice's upload.
    assert_eq!(
        code_of(
            bob.post::<_, Value>(
                "/api/v1/langflow/parse-rag-file",
                &json!({ "file_id": file_id })
            )
            .await
        ),
        40400
    );

    // A PDF: its text becomes a card titled by its first sentence.
    let id = submit(
        &app,
        &alice,
        pdf(
            &["The lighthouse keeper sings at night. Nobody knows why."],
            None,
        ),
        "file_name=keeper.pdf",
    )
    .await;
    let job = wait_done(&alice, &id).await;
    assert_eq!(job["state"], "done", "{job}");
    let card: Value = alice
        .post(
            "/api/v1/datacard/detail",
            &json!({ "id": job["card_ids"][0] }),
        )
        .await
        .unwrap();
    assert_eq!(card["title"], "The lighthouse keeper sings at night");

    // A damaged PDF and a protected one fail with their codes.
    for (bytes, code, key) in [
        (
            b"%PDF-1.7\nnot really a pdf".to_vec(),
            40702,
            "ragPdfUnreadable",
        ),
        (pdf(&["Secret."], Some("pw")), 40703, "ragPdfEncrypted"),
        (pdf(&[""], None), 40704, "ragDocumentEmpty"),
    ] {
        let id = submit(&app, &alice, bytes, "file_name=x.pdf").await;
        let job = wait_done(&alice, &id).await;
        assert_eq!(job["state"], "failed", "{job}");
        assert_eq!(job["error"]["code"], code, "{job}");
        assert_eq!(job["error"]["key"], key, "{job}");
    }

    // Refused at once: a picture named .md, a file over the limit, nothing.
    let (status, v) = send(
        &app,
        &alice,
        b"\x89PNG\r\n\x1a\n0000".to_vec(),
        "file_name=a.md",
    )
    .await;
    assert_eq!(
        (status, v["status"]["code"].as_i64()),
        (400, Some(40701)),
        "{v}"
    );
    let (status, v) = send(&app, &alice, vec![b'a'; 200_001], "file_name=big.txt").await;
    assert_eq!(
        (status, v["status"]["code"].as_i64()),
        (413, Some(40700)),
        "{v}"
    );
    let (status, v) = send(&app, &alice, Vec::new(), "file_name=empty.txt").await;
    assert_eq!(
        (status, v["status"]["code"].as_i64()),
        (400, Some(40704)),
        "{v}"
    );
}
