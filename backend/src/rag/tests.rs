//! Tests of the parsers (with small documents made here, PDFs by `lopdf`)
//! and of the job service: a run end to end, a resumed run that makes no
//! card twice, the sweeper's resume and give-up.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::sync::Arc;
use std::time::Duration;

use infra::bus::{DynBus, LocalBus};
use infra::objects::{DynObjects, LocalObjects};
use infra::store::DynStore;
use lopdf::{dictionary, Document, Object, Stream};
use protocol::rag::{Block, DocKind, RagState};

use super::parse::{decode, parse, parse_html, parse_markdown, parse_pdf, sniff, ParseError};
use super::*;

/// A PDF with one page per text (Helvetica, one line per `\n`), optionally
/// protected by a user password.
pub fn pdf(pages: &[&str], password: Option<&str>) -> Vec<u8> {
    let mut doc = Document::with_version("1.5");
    doc.trailer.set(
        "ID",
        Object::Array(vec![
            Object::string_literal(b"easel-rag-test-1".to_vec()),
            Object::string_literal(b"easel-rag-test-2".to_vec()),
        ]),
    );
    let pages_id = doc.new_object_id();
    let font = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
    });
    let mut kids = Vec::new();
    for text in pages {
        let mut ops = String::from("BT\n/F1 11 Tf\n14 TL\n72 740 Td\n");
        for line in text.lines() {
            let esc = line
                .replace('\\', "\\\\")
                .replace('(', "\\(")
                .replace(')', "\\)");
            ops.push_str(&format!("({esc}) Tj T*\n"));
        }
        ops.push_str("ET\n");
        let contents = doc.add_object(Stream::new(dictionary! {}, ops.into_bytes()));
        kids.push(Object::Reference(doc.add_object(dictionary! {
            "Type" => "Page",
            "Parent" => pages_id,
            "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
            "Resources" => dictionary! { "Font" => dictionary! { "F1" => font } },
            "Contents" => contents,
        })));
    }
    let count = i64::try_from(kids.len()).unwrap();
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! { "Type" => "Pages", "Kids" => kids, "Count" => count }),
    );
    let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog);
    if let Some(pw) = password {
        let state = lopdf::EncryptionState::try_from(lopdf::EncryptionVersion::V2 {
            document: &doc,
            owner_password: "owner-pw",
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

fn texts(blocks: &[Block]) -> String {
    blocks
        .iter()
        .map(|b| match b {
            Block::Heading { level, text } => format!("H{level}:{text}"),
            Block::Paragraph(p) => format!("P:{p}"),
        })
        .collect::<Vec<_>>()
        .join("|")
}

#[test]
fn sniffing_reads_the_bytes_not_the_name() {
    let cases: Vec<(&[u8], &str, Result<DocKind, ParseError>)> = vec![
        (b"%PDF-1.7\n...", "notes.txt", Ok(DocKind::Pdf)),
        (
            b"\x89PNG\r\n\x1a\n....",
            "lore.md",
            Err(ParseError::Unsupported),
        ),
        (
            b"PK\x03\x04zipzip",
            "lore.txt",
            Err(ParseError::Unsupported),
        ),
        (
            b"text with a \x00 NUL",
            "lore.txt",
            Err(ParseError::Unsupported),
        ),
        (b"<!DOCTYPE html><p>x</p>", "lore.txt", Ok(DocKind::Html)),
        (b"  <html><body>x</body></html>", "a", Ok(DocKind::Html)),
        (b"# Title\n\ntext", "lore.txt", Ok(DocKind::Markdown)),
        (b"plain *text*", "lore.MD", Ok(DocKind::Markdown)),
        (b"plain text, #not a heading", "lore.txt", Ok(DocKind::Text)),
        (b"a < b and c > d", "x.html", Ok(DocKind::Text)),
    ];
    for (bytes, name, want) in cases {
        assert_eq!(
            sniff(bytes, name),
            want,
            "{name} {:?}",
            String::from_utf8_lossy(bytes)
        );
    }
    // UTF-16 with its byte-order mark is text, not a binary.
    let utf16: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain("Hello 世界".encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    assert_eq!(sniff(&utf16, "a.txt"), Ok(DocKind::Text));
    assert_eq!(decode(&utf16), "Hello 世界");
}

#[test]
fn legacy_charsets_are_detected() {
    let text =
        "王城位于海边，居民以捕鱼和编织为生。每年夏天，人们都会在港口举行盛大的祭典，庆祝丰收。";
    let (gbk, _, _) = encoding_rs::GBK.encode(text);
    assert!(std::str::from_utf8(&gbk).is_err());
    assert_eq!(decode(&gbk), text);
    let (sjis, _, _) =
        encoding_rs::SHIFT_JIS.encode("これは日本語の文章です。港町の物語を書いています。");
    assert_eq!(
        decode(&sjis),
        "これは日本語の文章です。港町の物語を書いています。"
    );
    let (latin, _, _) = encoding_rs::WINDOWS_1252.encode("Café crème, déjà vu — naïve façade.");
    assert_eq!(decode(&latin), "Café crème, déjà vu — naïve façade.");
}

#[test]
fn html_keeps_headings_and_text_and_drops_scripts() {
    let html = r#"<!doctype html><html><head><title>T</title>
        <style>p { color: red } .x::before { content: "STYLE-LEAK" }</style>
        <script>if (a < b) { document.write("<p>SCRIPT-LEAK</p>"); }</script></head>
        <body><h1>The Kingdom</h1><p>Ruled by <b>Queen</b> Ana &amp; her council.</p>
        <noscript>NOSCRIPT-LEAK</noscript>
        <ul><li>Amber</li><li>Salt</li></ul><img src=x alt="A map" onerror="alert(1)">
        <h2>Magic</h2><div>Rare<br>and feared.</div><template><p>TEMPLATE-LEAK</p></template>
        <script type="module">const s = "</p><h1>MODULE-LEAK</h1>";</script></body></html>"#;
    let got = texts(&parse_html(html));
    assert!(!got.contains("LEAK"), "{got}");
    assert!(!got.contains("alert"), "{got}");
    assert_eq!(
        got,
        "H1:The Kingdom|P:Ruled by Queen Ana & her council.|P:Amber|P:Salt|P:A map|H2:Magic|P:Rare\nand feared."
    );
}

#[test]
fn markdown_structure_and_raw_html_dropped() {
    let md =
        "# Lore\n\nThe *old* [keep](http://x) stands.\n\n<script>alert('MD-LEAK')</script>\n\n\
              ## People\n\n- Ana, the smith\n- Bo <span onclick=x>the</span> fisher<script>alert('INLINE-LEAK')</script>\n\n\
              > A saying.\n\n```\ncode line\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n";
    let got = texts(&parse_markdown(md));
    assert!(!got.contains("LEAK"), "{got}");
    assert!(!got.contains("span"), "{got}");
    assert_eq!(
        got,
        "H1:Lore|P:The old keep stands.|H2:People|P:Ana, the smith|P:Bo the fisher|P:A saying.|P:code line|P:a | b|P:1 | 2"
    );
}

#[test]
fn pdf_text_is_read_page_by_page() {
    let bytes = pdf(
        &[
            "The Kingdom of Oru lies by the sea.\nIts people fish and weave.",
            "Magic is rare and feared there.",
        ],
        None,
    );
    let mut seen = Vec::new();
    let blocks = parse_pdf(&bytes, &mut |d, t| seen.push((d, t))).unwrap();
    assert_eq!(seen, vec![(1, 2), (2, 2)]);
    let all = texts(&blocks);
    assert!(all.contains("The Kingdom of Oru lies by the sea."), "{all}");
    assert!(all.contains("Magic is rare and feared there."), "{all}");
    assert_eq!(sniff(&bytes, "x.bin"), Ok(DocKind::Pdf));
}

#[test]
fn bad_encrypted_and_empty_pdfs_have_their_errors() {
    assert!(matches!(
        parse(b"%PDF-1.4\nthis is not a pdf at all", DocKind::Pdf),
        Err(ParseError::BadPdf(_))
    ));
    let mut truncated = pdf(&["Some text here."], None);
    truncated.truncate(truncated.len() / 3);
    assert!(matches!(
        parse(&truncated, DocKind::Pdf),
        Err(ParseError::BadPdf(_))
    ));
    assert_eq!(
        parse(&pdf(&["Secret plans."], Some("hunter2")), DocKind::Pdf),
        Err(ParseError::Encrypted)
    );
    // An owner password only (empty user password) opens.
    let open = parse(&pdf(&["Open plans."], Some("")), DocKind::Pdf).unwrap();
    assert!(texts(&open).contains("Open plans."));
    // A page without text (a scan) has nothing to read.
    assert_eq!(
        parse(&pdf(&[""], None), DocKind::Pdf),
        Err(ParseError::Empty)
    );
    assert_eq!(
        ParseError::Encrypted.code(),
        protocol::ErrorCode::RagPdfEncrypted
    );
}

#[test]
fn empty_texts_are_empty() {
    for (bytes, kind) in [
        (&b"   \n\n  "[..], DocKind::Text),
        (b"<html><script>x()</script></html>", DocKind::Html),
        (b"# Only a heading\n", DocKind::Markdown),
        (b"--- *** ---", DocKind::Markdown),
    ] {
        assert_eq!(parse(bytes, kind), Err(ParseError::Empty), "{kind:?}");
    }
}

// ---- The job service ----------------------------------------------------

struct Fixture {
    rag: RagService,
    characters: CharacterService,
    _dir: tempfile::TempDir,
}

fn fixture(settings: RagSettings) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let store: DynStore =
        Arc::new(infra::store::embedded::EmbeddedStore::open(&dir.path().join("store")).unwrap());
    let objects: DynObjects = Arc::new(LocalObjects::new(dir.path().join("o")).unwrap());
    let bus: DynBus = Arc::new(LocalBus::new(64));
    let characters = CharacterService::new(
        store.clone(),
        objects.clone(),
        &crate::ratelimit::RateLimits::local(),
    );
    let rag = RagService::new(store, objects, characters.clone(), None, bus, settings);
    Fixture {
        rag,
        characters,
        _dir: dir,
    }
}

async fn wait_final(rag: &RagService, owner: &str, id: &str) -> protocol::rag::RagJobView {
    for _ in 0..2000 {
        let v = rag.progress(owner, id).await.unwrap();
        if v.state.is_final() {
            return v;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("job {id} did not end");
}

const LORE: &str =
    "# Oru\n\nA realm by the sea.\n\n## People\n\nFishers and weavers.\n\n## Magic\n\nRare.\n";

#[tokio::test]
async fn a_job_makes_titled_cards_for_its_owner_only() {
    let f = fixture(RagSettings::default());
    let id = f
        .rag
        .submit("alice", LORE.as_bytes().to_vec(), "oru.md", None)
        .await
        .unwrap();
    let v = wait_final(&f.rag, "alice", &id).await;
    assert_eq!(v.state, RagState::Done, "{v:?}");
    assert_eq!((v.percent, v.cards_made, v.cards_total), (100, 3, 3));
    assert_eq!(v.kind, Some(DocKind::Markdown));
    let mine = f.characters.my_datacards("alice").await.unwrap();
    let mut titles: Vec<String> = mine.iter().map(|d| d.title.clone()).collect();
    titles.sort();
    assert_eq!(titles, vec!["Magic", "Oru", "People"]);
    // Another account sees no job.
    let e = f.rag.progress("bob", &id).await.unwrap_err();
    assert_eq!(e.code, protocol::ErrorCode::NotFound);
    // The source was removed and the job left the open index.
    assert_eq!(f.rag.sweep_once(now_millis() + 3_600_000).await.unwrap(), 0);
}

#[tokio::test]
async fn bad_input_is_refused_at_once() {
    let f = fixture(RagSettings {
        max_bytes: 100,
        ..RagSettings::default()
    });
    let code = |r: Result<String, ApiError>| r.unwrap_err().code;
    assert_eq!(
        code(f.rag.submit("a", vec![b'x'; 101], "a.txt", None).await),
        protocol::ErrorCode::RagFileTooLarge
    );
    assert_eq!(
        code(
            f.rag
                .submit("a", b"\x89PNG\r\n\x1a\n".to_vec(), "a.md", None)
                .await
        ),
        protocol::ErrorCode::RagFileType
    );
    assert_eq!(
        code(f.rag.submit("a", b"  \n ".to_vec(), "a.md", None).await),
        protocol::ErrorCode::RagDocumentEmpty
    );
    assert_eq!(
        code(
            f.rag
                .submit("a", b"text".to_vec(), "a.md", Some("nope"))
                .await
        ),
        protocol::ErrorCode::NotFound
    );
}

/// A job left in `saving` by a stopped server (its first card made, the
/// second made but not recorded) is resumed by the sweeper once stale, and
/// ends with every card exactly once.
#[tokio::test]
async fn a_stale_job_is_resumed_without_making_a_card_twice() {
    let f = fixture(RagSettings::default());
    let rag = &f.rag;
    let now = now_millis();
    let id = "0123456789abcdef0123456789abcdef".to_owned();
    let source_key = format!("rag/{id}/source");
    rag.inner
        .objects
        .put(
            &object_key(&source_key).unwrap(),
            LORE.as_bytes().to_vec(),
            "text/markdown",
        )
        .await
        .unwrap();
    // What the crashed run had done: cards 0 and 1 made, only 0 recorded.
    rag.inner
        .characters
        .create_datacard_keyed("alice", &format!("{id}-0000"), "Oru", "A realm by the sea.")
        .await
        .unwrap();
    rag.inner
        .characters
        .create_datacard_keyed(
            "alice",
            &format!("{id}-0001"),
            "People",
            "Fishers and weavers.",
        )
        .await
        .unwrap();
    let row = RagJobRow {
        id: id.clone(),
        owner: "alice".into(),
        character_id: None,
        file_name: "oru.md".into(),
        source_key,
        size: LORE.len() as u64,
        kind: Some(DocKind::Markdown),
        state: RagState::Saving,
        percent: 73,
        cards_made: 1,
        cards_total: 3,
        card_ids: vec![format!("{id}-0000")],
        cards_refused: 0,
        truncated: false,
        error: None,
        attempts: 1,
        create_at: now - 10_000,
        update_at: now - 10_000,
    };
    rag.inner
        .open
        .put(&Key::of(OPEN), &row.open_ck(), &row.owner)
        .await
        .unwrap();
    rag.inner
        .jobs
        .put(&Key::of(&id), &Key::empty(), &row)
        .await
        .unwrap();
    // Not stale yet at `now` (stale is 60 s): left alone.
    assert_eq!(rag.sweep_once(now).await.unwrap(), 0);
    // A minute later it is taken up again.
    assert_eq!(rag.sweep_once(now + 61_000).await.unwrap(), 1);
    let v = wait_final(rag, "alice", &id).await;
    assert_eq!(v.state, RagState::Done, "{v:?}");
    assert_eq!(
        v.card_ids,
        vec![
            format!("{id}-0000"),
            format!("{id}-0001"),
            format!("{id}-0002")
        ]
    );
    let mine = f.characters.my_datacards("alice").await.unwrap();
    assert_eq!(mine.len(), 3, "{mine:?}");
    let row = rag.job_row(&id).await.unwrap().unwrap();
    assert_eq!(row.attempts, 2);
}

#[tokio::test]
async fn a_job_that_ran_too_often_or_too_long_fails_with_its_reason() {
    let f = fixture(RagSettings::default());
    let rag = &f.rag;
    let now = now_millis();
    for (id, attempts, age) in [
        ("00000000000000000000000000000001", MAX_ATTEMPTS, 70_000),
        ("00000000000000000000000000000002", 1, 700_000),
    ] {
        let row = RagJobRow {
            id: id.into(),
            owner: "alice".into(),
            character_id: None,
            file_name: "a.txt".into(),
            source_key: format!("rag/{id}/source"),
            size: 1,
            kind: None,
            state: RagState::Parsing,
            percent: 5,
            cards_made: 0,
            cards_total: 0,
            card_ids: vec![],
            cards_refused: 0,
            truncated: false,
            error: None,
            attempts,
            create_at: now - age,
            update_at: now - age,
        };
        rag.inner
            .open
            .put(&Key::of(OPEN), &row.open_ck(), &row.owner)
            .await
            .unwrap();
        rag.inner
            .jobs
            .put(&Key::of(id), &Key::empty(), &row)
            .await
            .unwrap();
    }
    assert_eq!(rag.sweep_once(now).await.unwrap(), 0);
    for id in [
        "00000000000000000000000000000001",
        "00000000000000000000000000000002",
    ] {
        let v = rag.progress("alice", id).await.unwrap();
        assert_eq!(v.state, RagState::Failed);
        let e = v.error.unwrap();
        assert_eq!(e.key, "ragJobInterrupted");
        assert!(e.msg.contains("server stopped"), "{}", e.msg);
    }
}

#[tokio::test]
async fn a_job_past_its_time_fails() {
    let f = fixture(RagSettings {
        job_timeout: Duration::from_millis(0),
        ..RagSettings::default()
    });
    let id = f
        .rag
        .submit("alice", LORE.as_bytes().to_vec(), "oru.md", None)
        .await
        .unwrap();
    let v = wait_final(&f.rag, "alice", &id).await;
    assert_eq!(v.state, RagState::Failed);
    assert_eq!(v.error.unwrap().key, "ragJobInterrupted");
}

#[tokio::test]
async fn a_bad_pdf_job_fails_with_its_code() {
    let f = fixture(RagSettings::default());
    let id = f
        .rag
        .submit("alice", pdf(&["Secret."], Some("pw")), "s.pdf", None)
        .await
        .unwrap();
    let v = wait_final(&f.rag, "alice", &id).await;
    assert_eq!(v.state, RagState::Failed);
    assert_eq!(v.error.unwrap().code, 40703);
}

// ---- Retrieval -------------------------------------------------------------

#[test]
fn ranking_picks_the_cards_that_share_rare_terms() {
    use super::retrieve::{rank, terms};
    let cards = [
        (
            "The Kingdom of Oru",
            "A small realm by the sea, ruled by Queen Ana.",
        ),
        ("People", "Fishers and weavers trade amber in the low town."),
        (
            "Magic",
            "Magic is rare and feared; the tower of salt hides it.",
        ),
        ("王城", "王城位于海边，居民以捕鱼为生。"),
    ];
    assert_eq!(rank("Who trades amber here?", &cards, 3), vec![1]);
    assert_eq!(rank("tell me about the magic tower", &cards, 3), vec![2]);
    // A title hit counts twice: "Oru" in a title beats a content mention.
    assert_eq!(rank("oru and its queen", &cards, 1), vec![0]);
    assert_eq!(rank("居民在哪里捕鱼", &cards, 3), vec![3]);
    // Stop words and short words alone find nothing.
    assert!(rank("who is the one", &cards, 3).is_empty());
    assert!(rank("", &cards, 3).is_empty());
    assert!(terms("The cat, THE Cat!").contains("cat"));
    assert!(!terms("The cat").contains("the"));
}

#[tokio::test]
async fn relevant_cards_are_the_owners_for_that_character() {
    let f = fixture(RagSettings::default());
    let ch = f
        .characters
        .publish(
            "alice",
            serde_json::from_value(
                serde_json::json!({"name": "Ana", "greeting": "Hi.", "published": true}),
            )
            .unwrap(),
        )
        .await
        .unwrap();
    let id = f
        .rag
        .submit("alice", LORE.as_bytes().to_vec(), "oru.md", Some(&ch))
        .await
        .unwrap();
    let v = wait_final(&f.rag, "alice", &id).await;
    assert_eq!(v.state, RagState::Done);
    let got = f
        .rag
        .relevant("alice", &ch, "what do the weavers do?", 3, &[])
        .await
        .unwrap();
    assert_eq!(
        got.iter().map(|d| d.title.as_str()).collect::<Vec<_>>(),
        vec!["People"]
    );
    // Bound to the session already: not repeated.
    let skip = vec![got[0].id.clone()];
    assert!(f
        .rag
        .relevant("alice", &ch, "weavers", 3, &skip)
        .await
        .unwrap()
        .is_empty());
    // Someone else chatting with the published character gets none of Alice's cards.
    assert!(f
        .rag
        .relevant("bob", &ch, "weavers", 3, &[])
        .await
        .unwrap()
        .is_empty());
    // Bob cannot import for Alice's character.
    let e = f
        .rag
        .submit("bob", b"notes".to_vec(), "b.txt", Some(&ch))
        .await
        .unwrap_err();
    assert_eq!(e.code, protocol::ErrorCode::NotFound);
}
