//! Table tests of the filter over the default list: evasion variants caught,
//! innocent look-alikes passed, spans and masks on multi-byte text, CJK, and
//! properties (never panics, masked text keeps its length in characters).
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use super::*;
use proptest::prelude::*;

fn filter() -> TextFilter {
    let list = default_list();
    assert!(list.len() > 20, "the default list parses");
    TextFilter::compile(list).unwrap()
}

/// Texts the filter must catch in the comment scene, and the action expected.
const EVASIONS: &[(&str, Action)] = &[
    ("fuck", Action::Mask),
    ("FUCK", Action::Mask),
    ("FuCk you", Action::Mask),
    ("ｆｕｃｋ", Action::Mask),                     // full width
    ("fück", Action::Mask),                         // accent
    ("fu\u{0308}ck", Action::Mask),                 // combining mark
    ("fuсk", Action::Mask),                         // Cyrillic с
    ("𝐟𝐮𝐜𝐤", Action::Mask),                         // mathematical bold
    ("ⓕⓤⓒⓚ", Action::Mask),                         // circled
    ("f\u{200B}u\u{200C}c\u{200D}k", Action::Mask), // zero-width
    ("f.u.c.k", Action::Mask),
    ("f u c k", Action::Mask),
    ("f-u-c-k off", Action::Mask),
    ("f_u_c_k", Action::Mask),
    ("fuuuuck", Action::Mask),
    ("ffffuck", Action::Mask),
    ("motherfucker", Action::Mask), // substring entry
    ("sh1t", Action::Mask),
    ("$hit", Action::Mask),
    ("sh!t happens", Action::Mask),
    ("5h1t", Action::Mask),
    ("b1tch", Action::Mask),
    ("a$$", Action::Mask),
    ("a s s", Action::Mask),
    ("asssss", Action::Mask),
    ("you are an a55hole", Action::Mask),
    ("Puta", Action::Mask),
    ("MIÉRDA", Action::Mask),
    ("你是傻逼", Action::Mask), // CJK, no word boundaries
    ("死ね", Action::Mask),
    ("lolicon", Action::Refuse),
    ("L0L1C0N art", Action::Refuse),
    ("ｌｏｌｉ", Action::Refuse),
    ("l.o.l.i", Action::Refuse),
    ("lоli", Action::Refuse), // Cyrillic о
    ("child porn", Action::Refuse),
    ("child-porn", Action::Refuse),
    ("CHILD   PORNOGRAPHY", Action::Refuse),
    ("pedophilia", Action::Refuse),
    ("儿童色情", Action::Refuse),
    ("pornografia infantil", Action::Refuse),
    ("児童ポルノ", Action::Refuse),
];

/// Texts the filter must pass in the comment scene.
const INNOCENT: &[&str] = &[
    "",
    "a beautiful sunset",
    "Scunthorpe United won",
    "shiitake mushrooms",
    "classic assassin's pass",
    "as I was saying",
    "the bass player",
    "Dickens wrote novels",
    "a cocktail at the cockpit",
    "cunctator",
    "hello, shell it",
    "I am a pet",
    "2024 was great",
    "5 apples and 3 pears",
    "shot a basketball",
    "lollipop",
    "a child flying a kite",
    "puttanesca sauce",
    "his name is Assad",
    "bitcoin and ether",
    "傻瓜",
    "你好世界",
    "死ぬほど好き",
    "pass assessment",
    "a s k me",
    "grass",
];

#[test]
fn evasion_variants_are_caught() {
    let f = filter();
    let mut failures = Vec::new();
    for (text, action) in EVASIONS {
        let v = f.check(text, Scene::Comment);
        let want_refused = *action == Action::Refuse;
        if v.hits.is_empty() || v.refused != want_refused {
            failures.push(format!("{text:?} -> {v:?}"));
        }
    }
    assert!(failures.is_empty(), "not caught:\n{}", failures.join("\n"));
}

#[test]
fn documented_limits() {
    let f = filter();
    // '@' at a word's start is a mention, not a letter.
    assert!(f.check("@ss", Scene::Comment).hits.is_empty());
    // A capital I in place of an l folds to i, and is not the word.
    assert!(!f.check("chiId porn", Scene::Comment).refused);
    // CJK separated by a space: the space is a real boundary in CJK text too.
    assert!(f.check("傻 逼", Scene::Comment).hits.is_empty());
}

#[test]
fn innocent_look_alikes_pass() {
    let f = filter();
    let mut failures = Vec::new();
    for text in INNOCENT {
        let v = f.check(text, Scene::Comment);
        if !v.hits.is_empty() {
            failures.push(format!("{text:?} -> {:?}", v.hits));
        }
        assert_eq!(v.masked, *text);
    }
    assert!(
        failures.is_empty(),
        "false positives:\n{}",
        failures.join("\n")
    );
    // A listed whole word is a listed whole word, even as a name: operators
    // add allow entries ("shota imanaga") for such cases.
    assert!(f.check("Shota Imanaga pitched", Scene::Comment).refused);
    let mut list = default_list();
    list.push(Entry {
        id: "allow.imanaga".into(),
        term: "shota imanaga".into(),
        kind: Kind::Word,
        lang: "ja".into(),
        category: "allowed".into(),
        action: Action::Allow,
        scenes: vec![],
        whole_word: true,
    });
    let f = TextFilter::compile(list).unwrap();
    assert!(f
        .check("Shota Imanaga pitched", Scene::Comment)
        .hits
        .is_empty());
}

#[test]
fn masks_the_right_characters_in_multibyte_text() {
    let f = filter();
    let v = f.check("héllo ｆｕｃｋ wörld", Scene::Comment);
    assert_eq!(v.masked, "héllo **** wörld");
    assert_eq!((v.hits[0].start, v.hits[0].end), (6, 10));
    assert_eq!(v.hits[0].text, "ｆｕｃｋ");
    assert!(!v.refused);

    let v = f.check("ok f.u.c.k ok", Scene::Comment);
    assert_eq!(v.masked, "ok ******* ok");

    let v = f.check("ok f u c k ok", Scene::Comment);
    assert_eq!(v.masked, "ok * * * * ok");

    let v = f.check("🙂 fuuuck 🙂", Scene::Comment);
    assert_eq!(v.masked, "🙂 ****** 🙂");

    let v = f.check("你是傻逼吗", Scene::Comment);
    assert_eq!(v.masked, "你是**吗");
    assert_eq!((v.hits[0].start, v.hits[0].end), (2, 4));

    let v = f.check("f\u{200B}uck", Scene::Comment);
    assert_eq!(v.masked, "*****");
}

#[test]
fn scenes_select_entries() {
    let f = filter();
    // Profanity is masked where others read it, not in prompts.
    assert!(f.check("fuck", Scene::Prompt).hits.is_empty());
    assert!(f.check("lolicon", Scene::Prompt).refused);
    // The contact pattern applies to comments and messages only.
    let v = f.check("add me on WeChat: spammer_123", Scene::Comment);
    assert_eq!(v.hits.len(), 1, "{v:?}");
    assert_eq!(v.hits[0].category, "contact_spam");
    assert!(v.masked.starts_with("add me on ***"));
    assert!(f
        .check("add me on WeChat: spammer_123", Scene::Title)
        .hits
        .is_empty());
    // Full-width colon and letters fold before the pattern.
    assert_eq!(
        f.check("ｗｅｃｈａｔ：ｓｐａｍｍｅｒ", Scene::Message)
            .hits
            .len(),
        1
    );
}

#[test]
fn entries_are_checked() {
    let entry = |id: &str, term: &str, kind: Kind| Entry {
        id: id.into(),
        term: term.into(),
        kind,
        lang: "en".into(),
        category: "x".into(),
        action: Action::Mask,
        scenes: vec![],
        whole_word: true,
    };
    assert_eq!(
        TextFilter::compile(vec![entry("Bad Id", "x", Kind::Word)]).unwrap_err(),
        EntryError::BadId
    );
    assert!(matches!(
        TextFilter::compile(vec![entry("a", "   ", Kind::Word)]),
        Err(EntryError::BadTerm(_))
    ));
    assert!(matches!(
        TextFilter::compile(vec![entry("a", "...", Kind::Word)]),
        Err(EntryError::BadTerm(_))
    ));
    assert!(matches!(
        TextFilter::compile(vec![entry("a", "(unclosed", Kind::Pattern)]),
        Err(EntryError::BadPattern(..))
    ));
    assert!(matches!(
        TextFilter::compile(vec![entry("a", "x{100000}{100000}", Kind::Pattern)]),
        Err(EntryError::BadPattern(..))
    ));
    let empty = TextFilter::compile(vec![]).unwrap();
    assert!(empty.check("anything at all", Scene::Comment).is_clean());
}

#[test]
fn scene_names_parse() {
    assert_eq!(Scene::parse("Title"), Some(Scene::Title));
    assert_eq!(Scene::parse("title_description"), Some(Scene::Title));
    assert_eq!(Scene::parse("message"), Some(Scene::Message));
    assert_eq!(Scene::parse("nope"), None);
    for s in Scene::ALL {
        assert_eq!(Scene::parse(s.as_str()), Some(*s));
        assert_eq!(serde_json::to_value(s).unwrap(), s.as_str());
    }
}

proptest! {
    #[test]
    fn never_panics_and_keeps_length(text in "\\PC{0,80}") {
        let f = filter();
        for scene in Scene::ALL {
            let v = f.check(&text, *scene);
            prop_assert_eq!(v.masked.chars().count(), text.chars().count());
            for hit in &v.hits {
                prop_assert!(hit.start < hit.end && hit.end <= text.chars().count());
            }
        }
    }

    #[test]
    fn never_panics_on_evasion_alphabets(text in "[fuckshitlo015$@!|. \u{200B}ｆｕｃｋ傻逼сo\u{0301}]{0,40}") {
        let f = filter();
        let v = f.check(&text, Scene::Comment);
        prop_assert_eq!(v.masked.chars().count(), text.chars().count());
    }
}
