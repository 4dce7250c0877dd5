//! Table tests of the chunking rules and the small wire helpers.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use super::chunk::{chunk, is_cjk, Block, ChunkRules};
use super::*;

fn h(level: u8, t: &str) -> Block {
    Block::Heading {
        level,
        text: t.to_owned(),
    }
}

fn p(t: &str) -> Block {
    Block::Paragraph(t.to_owned())
}

fn rules(max_chars: usize) -> ChunkRules {
    ChunkRules {
        max_chars,
        ..ChunkRules::default()
    }
}

fn titles(blocks: &[Block], r: &ChunkRules) -> Vec<String> {
    chunk(blocks, r)
        .cards
        .into_iter()
        .map(|c| c.title)
        .collect()
}

/// Every piece of every card, joined with single spaces, is the input's
/// words in order: nothing lost, nothing doubled (no overlap).
fn words(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_owned).collect()
}

#[test]
fn headings_title_their_sections() {
    let blocks = [
        h(1, "The Kingdom"),
        p("A small realm by the sea."),
        h(2, "  Its   people "),
        p("Fishers and weavers."),
        p("They trade amber."),
        h(2, "Empty heading"),
        h(2, "Magic"),
        p("Rare and feared."),
    ];
    let out = chunk(&blocks, &ChunkRules::default());
    assert!(!out.truncated);
    let got: Vec<(&str, &str)> = out
        .cards
        .iter()
        .map(|c| (c.title.as_str(), c.content.as_str()))
        .collect();
    assert_eq!(
        got,
        vec![
            ("The Kingdom", "A small realm by the sea."),
            ("Its people", "Fishers and weavers.\n\nThey trade amber."),
            ("Magic", "Rare and feared."),
        ]
    );
}

#[test]
fn titles_table() {
    let r = ChunkRules::default();
    let cases: Vec<(Vec<Block>, Vec<&str>)> = vec![
        // No heading: the first sentence, without its full stop.
        (
            vec![p("Ana is a smith. She lives in Oru.")],
            vec!["Ana is a smith"],
        ),
        // A question keeps its mark.
        (vec![p("Who is Ana? Nobody knows.")], vec!["Who is Ana?"]),
        // The first line when there is no sentence end.
        (vec![p("A list\n- one\n- two")], vec!["A list"]),
        // CJK: the sentence ends at 。
        (
            vec![p("王城位于海边。居民以捕鱼为生。")],
            vec!["王城位于海边"],
        ),
        // Nothing but punctuation left: "Part N".
        (vec![p(".")], vec!["Part 1"]),
        // A text before the first heading is titled by its sentence.
        (
            vec![p("Preface text."), h(1, "One"), p("x")],
            vec!["Preface text", "One"],
        ),
    ];
    for (blocks, want) in cases {
        assert_eq!(titles(&blocks, &r), want, "{blocks:?}");
    }
}

#[test]
fn long_titles_are_cut_at_a_word() {
    let long = "The extraordinarily long and winding history of the northern mountain clans and their feuds";
    let t = &titles(&[h(1, long), p("x")], &ChunkRules::default())[0];
    assert!(t.chars().count() <= 64, "{t}");
    assert!(t.ends_with('…'));
    let stem = t.trim_end_matches('…');
    assert!(long.starts_with(stem));
    // Cut at a word boundary: the next character of the original is a space.
    assert_eq!(long[stem.len()..].chars().next(), Some(' '));
    // CJK headings are cut at any character.
    let cjk: String = "山".repeat(80);
    let t = &titles(&[h(1, &cjk), p("x")], &ChunkRules::default())[0];
    assert_eq!(t.chars().count(), 64);
}

#[test]
fn a_section_of_several_cards_numbers_them() {
    let para = "word ".repeat(100); // 500 characters
    let blocks = [h(1, "Lore"), p(&para), p(&para), p(&para), p(&para)];
    let t = titles(&blocks, &rules(1100));
    assert_eq!(t, vec!["Lore (1/2)", "Lore (2/2)"]);
}

#[test]
fn paragraphs_are_packed_whole_up_to_the_limit() {
    let a = "a".repeat(600);
    let b = "b".repeat(600);
    let c = "c".repeat(600);
    let out = chunk(&[p(&a), p(&b), p(&c)], &rules(1500));
    let contents: Vec<String> = out.cards.iter().map(|c| c.content.clone()).collect();
    assert_eq!(contents, vec![format!("{a}\n\n{b}"), c]);
    for c in &out.cards {
        assert!(c.content.chars().count() <= 1500);
    }
}

#[test]
fn long_paragraphs_are_cut_at_sentences_then_words_never_inside_a_word() {
    // Sentences of ~60 characters: every cut falls after a full stop.
    let sentence = "The river bends twice before it reaches the old stone mill. ";
    let text = sentence.repeat(60);
    let out = chunk(&[p(&text)], &rules(1500));
    assert!(out.cards.len() >= 3);
    for c in &out.cards {
        assert!(c.content.chars().count() <= 1500);
        assert!(
            c.content.ends_with('.'),
            "{:?}",
            &c.content[c.content.len() - 20..]
        );
    }
    let joined: Vec<String> = out.cards.iter().flat_map(|c| words(&c.content)).collect();
    assert_eq!(joined, words(&text));

    // No sentence ends: cut at spaces, every word whole.
    let text = "lorem ipsum dolor sit amet consectetur ".repeat(100);
    let out = chunk(&[p(&text)], &rules(500));
    let joined: Vec<String> = out.cards.iter().flat_map(|c| words(&c.content)).collect();
    assert_eq!(joined, words(&text));
    for c in &out.cards {
        assert!(c.content.chars().count() <= 500);
    }
}

#[test]
fn a_word_longer_than_a_card_is_cut_where_the_card_is_full() {
    let url = format!("https://example.com/{}", "x".repeat(300));
    let out = chunk(&[p(&format!("see {url} here"))], &rules(100));
    let all: String = out
        .cards
        .iter()
        .map(|c| c.content.as_str())
        .collect::<Vec<_>>()
        .join("");
    assert!(all.replace(' ', "").contains(&url.replace(' ', "")));
    for c in &out.cards {
        assert!(c.content.chars().count() <= 100);
    }
}

#[test]
fn cjk_text_is_cut_between_characters_and_prefers_sentence_ends() {
    let sentence = "王城位于海边，居民以捕鱼和编织为生，每年夏天都会举行盛大的祭典。";
    assert!(sentence.chars().all(is_cjk));
    let text = sentence.repeat(80); // 33 chars each: 2,640 characters
    let out = chunk(&[h(1, "王城"), p(&text)], &rules(1500));
    assert_eq!(out.cards.len(), 2);
    for c in &out.cards {
        assert!(c.content.chars().count() <= 1500);
        assert!(c.content.ends_with('。'));
        assert!(!c.content.starts_with('，') && !c.content.starts_with('。'));
    }
    assert_eq!(out.cards[0].title, "王城 (1/2)");
    let joined: String = out.cards.iter().map(|c| c.content.as_str()).collect();
    assert_eq!(joined, text);

    // Without punctuation: any boundary between two ideographs.
    let text = "龍".repeat(250);
    let out = chunk(&[p(&text)], &rules(100));
    let sizes: Vec<usize> = out
        .cards
        .iter()
        .map(|c| c.content.chars().count())
        .collect();
    assert_eq!(sizes, vec![100, 100, 50]);
}

#[test]
fn empty_documents_make_no_cards() {
    let r = ChunkRules::default();
    for blocks in [
        vec![],
        vec![p("")],
        vec![p("   \n\t \n")],
        vec![h(1, "Only a heading")],
        vec![h(1, ""), p("\u{200B}")],
    ] {
        let out = chunk(&blocks, &r);
        assert!(out.cards.is_empty(), "{blocks:?}");
        assert!(!out.truncated);
    }
}

#[test]
fn whitespace_and_control_characters_are_cleaned() {
    let out = chunk(
        &[p("  one\t\ttwo  \n\n\n  three\u{7}  ")],
        &ChunkRules::default(),
    );
    assert_eq!(out.cards[0].content, "one two\nthree");
}

#[test]
fn at_most_max_cards_and_the_rest_is_reported() {
    let blocks: Vec<Block> = (0..10)
        .flat_map(|i| [h(1, &format!("S{i}")), p("text")])
        .collect();
    let out = chunk(
        &blocks,
        &ChunkRules {
            max_cards: 4,
            ..ChunkRules::default()
        },
    );
    assert_eq!(out.cards.len(), 4);
    assert!(out.truncated);
    assert_eq!(out.cards[3].title, "S3");
}

#[test]
fn chunking_is_deterministic_and_bounded_on_mixed_text() {
    let text = "Mixed 文本 with English and 中文。Another sentence here! ".repeat(120);
    let blocks = [h(1, "Mix"), p(&text)];
    let a = chunk(&blocks, &ChunkRules::default());
    let b = chunk(&blocks, &ChunkRules::default());
    assert_eq!(a, b);
    for c in &a.cards {
        assert!(c.content.chars().count() <= MAX_CARD_CHARS);
        assert!(c.title.chars().count() <= 64);
    }
    let joined: Vec<String> = a.cards.iter().flat_map(|c| words(&c.content)).collect();
    assert_eq!(joined.concat(), words(&text).concat());
}

#[test]
fn file_names_are_cleaned() {
    for (input, want) in [
        ("notes.md", "notes.md"),
        ("../../etc/passwd", "passwd"),
        ("C:\\docs\\lore.txt", "lore.txt"),
        ("a\u{0}b\nc.pdf", "abc.pdf"),
        ("", "document"),
        ("dir/", "document"),
    ] {
        assert_eq!(clean_file_name(input), want, "{input:?}");
    }
    assert_eq!(
        clean_file_name(&"x".repeat(500)).chars().count(),
        MAX_FILE_NAME_CHARS
    );
}

#[test]
fn job_view_json_is_pinned() {
    let v = RagJobView {
        id: "j1".into(),
        state: RagState::Saving,
        percent: 70,
        cards_made: 2,
        cards_total: 3,
        card_ids: vec!["a".into(), "b".into()],
        cards_refused: 0,
        character_id: None,
        file_name: "lore.md".into(),
        kind: Some(DocKind::Markdown),
        truncated: false,
        error: None,
        create_at: 1,
        update_at: 2,
    };
    assert_eq!(
        serde_json::to_value(&v).unwrap(),
        serde_json::json!({"id":"j1","state":"saving","percent":70,"cards_made":2,
            "cards_total":3,"card_ids":["a","b"],"cards_refused":0,"file_name":"lore.md","kind":"markdown",
            "truncated":false,"create_at":1,"update_at":2})
    );
    assert!(RagState::Done.is_final() && RagState::Failed.is_final());
    assert!(!RagState::Queued.is_final());
}
