//! `langflow/parse-rag-file` with a `multipart/form-data` body, as a
//! browser's `FormData` sends it (RFC 7578, built byte by byte here so the
//! test checks the wire, not a client library's encoder): the document in
//! the `file` field with its file name and type, the character in
//! `character_id`; a PDF part is read; a wrong type, a wrong name ending, a
//! missing or doubled file field, an unknown field, a broken form and an
//! oversize file are refused at once with their codes.

use protocol::client::RestClient;
use serde_json::Value;

use crate::helpers::{spawn_app_with, TestApp};
use crate::rag::{character, pdf, wait_done, LORE};

const BOUNDARY: &str = "----EaselFormBoundary7MA4YWxkTrZu0gW";

/// One part: (field name, file name, content type, bytes).
type Part<'a> = (&'a str, Option<&'a str>, Option<&'a str>, &'a [u8]);

fn form(parts: &[Part]) -> Vec<u8> {
    let mut body = Vec::new();
    for (name, file_name, ctype, bytes) in parts {
        body.extend_from_slice(format!("--{BOUNDARY}\r\n").as_bytes());
        let mut disposition = format!("Content-Disposition: form-data; name=\"{name}\"");
        if let Some(f) = file_name {
            disposition.push_str(&format!("; filename=\"{f}\""));
        }
        body.extend_from_slice(disposition.as_bytes());
        body.extend_from_slice(b"\r\n");
        if let Some(t) = ctype {
            body.extend_from_slice(format!("Content-Type: {t}\r\n").as_bytes());
        }
        body.extend_from_slice(b"\r\n");
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{BOUNDARY}--\r\n").as_bytes());
    body
}

/// Posts a form body; answers (HTTP status, envelope).
async fn post_form(app: &TestApp, c: &RestClient, body: Vec<u8>) -> (u16, Value) {
    let mut req = reqwest::Client::new()
        .post(format!("{}/api/v1/langflow/parse-rag-file", app.base))
        .header(
            "Content-Type",
            format!("multipart/form-data; boundary={BOUNDARY}"),
        )
        .body(body);
    if let Some(t) = c.token() {
        req = req.header("token", t);
    }
    let res = req.send().await.unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap())
}

fn refusal(v: &(u16, Value)) -> (u16, i64, String) {
    (
        v.0,
        v.1["status"]["code"].as_i64().unwrap(),
        v.1["status"]["key"].as_str().unwrap_or_default().to_owned(),
    )
}

#[tokio::test]
async fn a_form_upload_becomes_datacards() {
    let app = spawn_app_with(&[("EASEL_RAG_MAX_BYTES", "200000")]).await;
    let (_, alice) = app.user("Alice").await;
    let ana = character(&alice, "Ana").await;

    // Markdown as a browser sends a .md file (octet-stream), with the character.
    let body = form(&[
        (
            "file",
            Some("oru.md"),
            Some("application/octet-stream"),
            LORE.as_bytes(),
        ),
        ("character_id", None, None, ana.as_bytes()),
    ]);
    let r = post_form(&app, &alice, body).await;
    assert_eq!(r.0, 200, "{}", r.1);
    let job = wait_done(&alice, r.1["data"]["id"].as_str().unwrap()).await;
    assert_eq!(job["state"], "done", "{job}");
    assert_eq!(job["kind"], "markdown");
    assert_eq!(job["file_name"], "oru.md");
    assert_eq!(job["character_id"], ana.as_str());
    assert_eq!(job["cards_made"], 3);

    // A PDF part, binary bytes and all.
    let body = form(&[(
        "file",
        Some("tower.pdf"),
        Some("application/pdf"),
        &pdf(&["The tower is made of salt."], None),
    )]);
    let r = post_form(&app, &alice, body).await;
    assert_eq!(r.0, 200, "{}", r.1);
    let job = wait_done(&alice, r.1["data"]["id"].as_str().unwrap()).await;
    assert_eq!(
        (job["state"].as_str(), job["kind"].as_str()),
        (Some("done"), Some("pdf")),
        "{job}"
    );
    assert_eq!(job["character_id"], Value::Null);
}

/// A bad form: what it is, its body, and the answer (status, code, key).
type Case = (&'static str, Vec<u8>, (u16, i64, &'static str));

#[tokio::test]
async fn bad_forms_are_refused_with_their_codes() {
    let app = spawn_app_with(&[("EASEL_RAG_MAX_BYTES", "2000")]).await;
    let (_, alice) = app.user("Alice").await;
    let text: &[u8] = b"Some lore about the sea.";
    let png: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
    let big = vec![b'a'; 2001];
    let cases: Vec<Case> = vec![
        (
            "an image part",
            form(&[("file", Some("cat.png"), Some("image/png"), png)]),
            (400, 40701, "ragFileType"),
        ),
        (
            "a program's name",
            form(&[(
                "file",
                Some("setup.exe"),
                Some("application/octet-stream"),
                text,
            )]),
            (400, 40701, "ragFileType"),
        ),
        (
            "PNG bytes under a text name",
            form(&[("file", Some("notes.txt"), Some("text/plain"), png)]),
            (400, 40701, "ragFileType"),
        ),
        (
            "no file field",
            form(&[("character_id", None, None, b"x")]),
            (400, 40707, "ragFormInvalid"),
        ),
        (
            "two files",
            form(&[
                ("file", Some("a.txt"), Some("text/plain"), text),
                ("file", Some("b.txt"), Some("text/plain"), text),
            ]),
            (400, 40707, "ragFormInvalid"),
        ),
        (
            "an unknown field",
            form(&[
                ("file", Some("a.txt"), Some("text/plain"), text),
                ("owner", None, None, b"someone-else"),
            ]),
            (400, 40707, "ragFormInvalid"),
        ),
        (
            "a form cut short",
            format!("--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\n\r\nno end")
                .into_bytes(),
            (400, 40707, "ragFormInvalid"),
        ),
        (
            "an empty document",
            form(&[("file", Some("a.txt"), Some("text/plain"), b"  \n")]),
            (400, 40704, "ragDocumentEmpty"),
        ),
        (
            "a file over the limit",
            form(&[("file", Some("big.txt"), Some("text/plain"), &big)]),
            (413, 40700, "ragFileTooLarge"),
        ),
    ];
    for (what, body, want) in cases {
        let got = refusal(&post_form(&app, &alice, body).await);
        assert_eq!((got.0, got.1, got.2.as_str()), want, "{what}: {got:?}");
    }
    // A form whose declared length is far past the limit is refused before it is read.
    let (status, v) = {
        let res = reqwest::Client::new()
            .post(format!("{}/api/v1/langflow/parse-rag-file", app.base))
            .header(
                "Content-Type",
                format!("multipart/form-data; boundary={BOUNDARY}"),
            )
            .header("token", alice.token().unwrap())
            .body(form(&[(
                "file",
                Some("huge.txt"),
                Some("text/plain"),
                &vec![b'a'; 200_000],
            )]))
            .send()
            .await
            .unwrap();
        (res.status().as_u16(), res.json::<Value>().await.unwrap())
    };
    assert_eq!((status, v["status"]["code"].as_i64()), (413, Some(40700)));
    // Visitors are asked to log in.
    let r = post_form(
        &app,
        &app.client,
        form(&[("file", Some("a.txt"), Some("text/plain"), text)]),
    )
    .await;
    assert_eq!(r.1["status"]["code"], 20000);
}
