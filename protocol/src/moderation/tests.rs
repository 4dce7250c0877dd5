//! Table tests of the moderation rules.

use super::*;

#[test]
fn reasons_round_trip_and_unknown_ones_are_refused() {
    for r in ReportReason::ALL {
        assert_eq!(ReportReason::parse(r.as_str()), Some(r));
        let json = serde_json::to_string(&r).unwrap_or_default();
        assert_eq!(json, format!("\"{}\"", r.as_str()));
    }
    for bad in ["", "Spam", "nsfw", "other ", "sexual-minors"] {
        assert_eq!(ReportReason::parse(bad), None, "{bad:?}");
    }
}

#[test]
fn report_rules_table() {
    let long = "x".repeat(MAX_TEXT_CHARS + 1);
    let max = "é".repeat(MAX_TEXT_CHARS);
    let cases: &[(&str, &str, Result<(ReportReason, &str), RuleError>)] = &[
        ("spam", "", Ok((ReportReason::Spam, ""))),
        (" hate ", "  rude  ", Ok((ReportReason::Hate, "rude"))),
        ("other", "", Err(RuleError::OtherNeedsText)),
        ("other", "   ", Err(RuleError::OtherNeedsText)),
        ("other", "why", Ok((ReportReason::Other, "why"))),
        ("bogus", "x", Err(RuleError::Reason)),
        ("spam", &long, Err(RuleError::Text)),
        ("spam", &max, Ok((ReportReason::Spam, &max))),
        ("spam", "a\u{0}b", Err(RuleError::Text)),
        ("spam", "line\nline", Ok((ReportReason::Spam, "line\nline"))),
    ];
    for (reason, text, want) in cases {
        let got = report_rule(reason, text);
        let want = want.clone().map(|(r, t)| (r, t.to_owned()));
        assert_eq!(got, want, "{reason:?} {text:?}");
    }
}

#[test]
fn moderator_reasons_and_durations() {
    assert_eq!(mod_reason(""), Err(RuleError::ReasonRequired));
    assert_eq!(mod_reason("  "), Err(RuleError::ReasonRequired));
    assert_eq!(mod_reason(&"y".repeat(501)), Err(RuleError::ReasonRequired));
    assert_eq!(mod_reason(" spam ").as_deref(), Ok("spam"));
    assert_eq!(ban_duration(0), Ok(None));
    assert_eq!(ban_duration(59), Err(RuleError::Duration));
    assert_eq!(ban_duration(60), Ok(Some(60)));
    assert_eq!(ban_duration(MAX_BAN_SECS), Ok(Some(MAX_BAN_SECS)));
    assert_eq!(ban_duration(MAX_BAN_SECS + 1), Err(RuleError::Duration));
}

#[test]
fn object_kinds() {
    for k in ObjKind::ALL {
        assert_eq!(ObjKind::from_code(k.code()), Some(k));
    }
    assert_eq!(ObjKind::from_code(15), Some(ObjKind::Work));
    assert_eq!(ObjKind::from_code(0), None);
    assert_eq!(ObjKind::from_code(2), None);
    assert!(ObjKind::Comment.hideable());
    assert!(!ObjKind::Account.hideable());
    assert!(!ObjKind::Palette.hideable());
    assert_eq!(ObjKind::Work.key("w1"), "4:w1");
}

#[test]
fn roles_order() {
    assert!(!Role::User.moderates());
    assert!(Role::Moderator.moderates());
    assert!(Role::Operator.moderates());
    assert_eq!(serde_json::to_string(&Role::Operator).unwrap_or_default(), "\"operator\"");
}
