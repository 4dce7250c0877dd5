//! Definition rules, answer validation and tallies, table-tested.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use super::question::*;
use super::*;
use crate::ErrorCode;

fn choice(id: &str) -> Choice {
    Choice {
        id: id.into(),
        label: format!("Option {id}"),
    }
}

fn q(id: &str, kind: QuestionKind, required: bool, options: &[&str]) -> Question {
    Question {
        id: id.into(),
        kind,
        title: format!("Question {id}"),
        required,
        options: options.iter().map(|o| choice(o)).collect(),
        min_choices: 0,
        max_choices: 0,
        max_chars: 0,
    }
}

fn survey() -> SurveyDef {
    let mut multi = q(
        "tools",
        QuestionKind::Multiple,
        false,
        &["a", "b", "c", "d"],
    );
    multi.min_choices = 1;
    multi.max_choices = 2;
    let mut text = q("why", QuestionKind::Text, false, &[]);
    text.max_chars = 10;
    SurveyDef {
        title: "How do you like Easel?".into(),
        description: String::new(),
        questions: vec![
            q("fav", QuestionKind::Single, true, &["img", "video"]),
            multi,
            q("stars", QuestionKind::Rating, true, &[]),
            text,
        ],
        audience: Audience::All,
        opens_at: Some(1000),
        closes_at: Some(2000),
    }
}

#[test]
fn definitions_table() {
    assert_eq!(survey().check(), Ok(()));
    type Edit = fn(&mut SurveyDef);
    let bad: &[(&str, Edit)] = &[
        ("title", |d| d.title = "  ".into()),
        ("title", |d| d.title = "x".repeat(MAX_TITLE_CHARS + 1)),
        ("questions", |d| d.questions.clear()),
        ("close date", |d| d.closes_at = Some(1000)),
        ("id", |d| d.questions[0].id = "a b".into()),
        ("used twice", |d| d.questions[1].id = "fav".into()),
        ("options", |d| d.questions[0].options.truncate(1)),
        ("used twice", |d| {
            d.questions[0].options[1].id = "img".into()
        }),
        ("labels", |d| {
            d.questions[0].options[0].label = String::new()
        }),
        ("no options", |d| d.questions[2].options = vec![choice("x")]),
        ("do not fit", |d| d.questions[1].max_choices = 5),
        ("do not fit", |d| d.questions[1].min_choices = 3),
        ("only a multiple", |d| d.questions[0].max_choices = 1),
        ("at most", |d| d.questions[3].max_chars = MAX_TEXT_CHARS + 1),
        ("only a text", |d| d.questions[2].max_chars = 5),
        ("text of", |d| d.questions[0].title = "a\u{7}b".into()),
    ];
    for (want, edit) in bad {
        let mut d = survey();
        edit(&mut d);
        let e = d.check().unwrap_err();
        assert!(e.0.contains(want), "{want}: {e}");
    }
}

#[test]
fn open_dates_and_audience() {
    let d = survey();
    assert!(!d.open_at(999));
    assert!(d.open_at(1000));
    assert!(d.open_at(1999));
    assert!(!d.open_at(2000));
    assert!(Audience::All.includes(true) && Audience::All.includes(false));
    assert!(Audience::Free.includes(false) && !Audience::Free.includes(true));
    assert!(Audience::Members.includes(true) && !Audience::Members.includes(false));
}

fn a(qid: &str, choices: &[&str], rating: Option<i64>, text: Option<&str>) -> Answer {
    Answer {
        question_id: qid.into(),
        choices: choices.iter().map(|c| (*c).to_owned()).collect(),
        rating,
        text: text.map(str::to_owned),
    }
}

#[test]
fn answers_table() {
    let d = survey();
    let good = vec![
        a("stars", &[], Some(4), None),
        a("tools", &["c", "a"], None, None),
        a("fav", &["video"], None, None),
        a("why", &[], None, Some("  fine\r\nok ")),
    ];
    assert_eq!(
        validate_answers(&d, &good).unwrap(),
        vec![
            ("fav".into(), AnswerValue::Choices(vec!["video".into()])),
            (
                "tools".into(),
                AnswerValue::Choices(vec!["a".into(), "c".into()])
            ),
            ("stars".into(), AnswerValue::Rating(4)),
            ("why".into(), AnswerValue::Text("fine\nok".into())),
        ]
    );
    // Optional questions left out or empty are dropped.
    let minimal = vec![
        a("fav", &["img"], None, None),
        a("stars", &[], Some(1), None),
        a("why", &[], None, Some("   ")),
    ];
    assert_eq!(validate_answers(&d, &minimal).unwrap().len(), 2);

    let base = || {
        vec![
            a("fav", &["img"], None, None),
            a("stars", &[], Some(5), None),
        ]
    };
    type Edit = fn(&mut Vec<Answer>);
    let cases: &[(ErrorCode, &str, Edit)] = &[
        (ErrorCode::SurveyAnswerMissing, "fav", |v| {
            v.remove(0);
        }),
        (ErrorCode::SurveyAnswerMissing, "stars", |v| {
            v[1].rating = None
        }),
        (ErrorCode::SurveyAnswerInvalid, "nope", |v| {
            v.push(a("nope", &["x"], None, None))
        }),
        (ErrorCode::SurveyAnswerInvalid, "fav", |v| {
            v.push(a("fav", &["img"], None, None))
        }),
        (ErrorCode::SurveyAnswerInvalid, "fav", |v| {
            v[0].choices = vec!["audio".into()]
        }),
        (ErrorCode::SurveyAnswerInvalid, "fav", |v| {
            v[0].choices = vec!["img".into(), "video".into()]
        }),
        (ErrorCode::SurveyAnswerInvalid, "fav", |v| {
            v[0].rating = Some(3)
        }),
        (ErrorCode::SurveyAnswerInvalid, "stars", |v| {
            v[1].rating = Some(0)
        }),
        (ErrorCode::SurveyAnswerInvalid, "stars", |v| {
            v[1].rating = Some(6)
        }),
        (ErrorCode::SurveyAnswerInvalid, "stars", |v| {
            v[1].rating = Some(-1)
        }),
        (ErrorCode::SurveyAnswerInvalid, "stars", |v| {
            v[1].text = Some("5".into())
        }),
        (ErrorCode::SurveyAnswerInvalid, "tools", |v| {
            v.push(a("tools", &["a", "b", "c"], None, None))
        }),
        (ErrorCode::SurveyAnswerInvalid, "tools", |v| {
            v.push(a("tools", &["a", "a"], None, None))
        }),
        (ErrorCode::SurveyTextTooLong, "why", |v| {
            v.push(a("why", &[], None, Some("ten chars!!")))
        }),
        (ErrorCode::SurveyAnswerInvalid, "why", |v| {
            v.push(a("why", &[], None, Some("a\u{0}b")))
        }),
        (ErrorCode::SurveyAnswerInvalid, "why", |v| {
            v.push(a("why", &["a"], None, None))
        }),
    ];
    for (code, qid, edit) in cases {
        let mut v = base();
        edit(&mut v);
        let e = validate_answers(&d, &v).unwrap_err();
        assert_eq!((e.code(), e.question_id()), (*code, *qid), "{e}");
    }
    // Exactly the limit is fine, counted in characters, not bytes.
    let mut v = base();
    v.push(a("why", &[], None, Some("éééééééééé")));
    assert!(validate_answers(&d, &v).is_ok());
}

#[test]
fn tallies_count_options_and_average_ratings() {
    let d = survey();
    let r1 = validate_answers(
        &d,
        &[
            a("fav", &["img"], None, None),
            a("tools", &["a", "b"], None, None),
            a("stars", &[], Some(5), None),
            a("why", &[], None, Some("great")),
        ],
    )
    .unwrap();
    let r2 = validate_answers(
        &d,
        &[
            a("fav", &["img"], None, None),
            a("stars", &[], Some(2), None),
        ],
    )
    .unwrap();
    let r3 = validate_answers(
        &d,
        &[
            a("fav", &["video"], None, None),
            a("tools", &["b"], None, None),
            a("stars", &[], Some(4), None),
        ],
    )
    .unwrap();
    let res = tally("s1", &d, [r1.as_slice(), r2.as_slice(), r3.as_slice()]);
    assert_eq!(res.responses, 3);
    let fav = &res.questions[0];
    assert_eq!(fav.answered, 3);
    assert_eq!(
        fav.options.iter().map(|o| o.count).collect::<Vec<_>>(),
        vec![2, 1]
    );
    let tools = &res.questions[1];
    assert_eq!(tools.answered, 2);
    assert_eq!(
        tools.options.iter().map(|o| o.count).collect::<Vec<_>>(),
        vec![1, 2, 0, 0]
    );
    let stars = &res.questions[2];
    assert_eq!(stars.rating_counts, vec![0, 1, 0, 1, 1]);
    assert_eq!(stars.rating_average, Some(11.0 / 3.0));
    assert_eq!(res.questions[3].texts, vec!["great".to_owned()]);
    assert_eq!(res.questions[3].answered, 1);
    let empty = tally("s1", &d, std::iter::empty::<&[(String, AnswerValue)]>());
    assert_eq!(empty.responses, 0);
    assert_eq!(empty.questions[2].rating_average, None);
}

#[test]
fn wire_forms() {
    let req: SubmitRequest = serde_json::from_value(serde_json::json!({
        "id": "s1",
        "answers": [{"question_id": "fav", "choices": ["img"]}, {"question_id": "stars", "rating": 3}]
    }))
    .unwrap();
    assert_eq!(req.survey_id, "s1");
    assert_eq!(req.answers[1].rating, Some(3));
    let d: SurveyDef = serde_json::from_value(serde_json::json!({
        "title": "t",
        "questions": [{"id": "q", "kind": "rating", "title": "Rate"}]
    }))
    .unwrap();
    assert_eq!(d.audience, Audience::All);
    assert_eq!(d.check(), Ok(()));
}
