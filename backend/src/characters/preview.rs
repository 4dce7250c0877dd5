//! The editor's preview (`tavern-pro/preview/list`): what a new chat with a
//! draft would show, without saving it. A pure function of the draft and
//! the caller's `{{user}}` name.
//!
//! Lines, in order: the scenario (a note above the chat), the greeting (the
//! first message of every new chat), then the example dialogue split into
//! turns. Example turns start with `{{user}}:` / `<USER>:` or `{{char}}:` /
//! `<BOT>:` (or the literal names); `<START>` separates examples and is
//! dropped; a line without a speaker continues the previous turn (or, first
//! of all, is the character's narration). Macros are replaced everywhere.
//! The persona is checked but not shown: it only goes to the model.

use protocol::character::{
    RuleError, MAX_GREETING_CHARS, MAX_NAME_CHARS, MAX_PERSONA_CHARS, MAX_TEXT_CHARS,
};
use protocol::character_extras::{PreviewItem, PreviewKind, PreviewRequest, PreviewRole};

use crate::chat::prompt::macros;

/// Speaker prefixes of the example dialogue, lower-cased.
const USER_TAGS: [&str; 2] = ["{{user}}:", "<user>:"];
const CHAR_TAGS: [&str; 2] = ["{{char}}:", "<bot>:"];

/// Checks the draft's lengths (the rules of `publish`, except that the
/// greeting may still be empty).
pub fn check(req: &PreviewRequest) -> Result<(), RuleError> {
    let name = req.name.trim();
    let n = name.chars().count();
    if n == 0 || n > MAX_NAME_CHARS || name.chars().any(char::is_control) {
        return Err(RuleError::Name);
    }
    if req.greeting.trim().chars().count() > MAX_GREETING_CHARS {
        return Err(RuleError::Greeting);
    }
    if req.persona.trim().chars().count() > MAX_PERSONA_CHARS {
        return Err(RuleError::Persona);
    }
    for (field, text) in [
        ("scenario", &req.scenario),
        ("example_dialogue", &req.example_dialogue),
    ] {
        if text.trim().chars().count() > MAX_TEXT_CHARS {
            return Err(RuleError::Text(field));
        }
    }
    Ok(())
}

/// The speaker of a line and the rest of it, if it names one.
fn speaker<'a>(line: &'a str, char_name: &str, user_name: &str) -> Option<(PreviewRole, &'a str)> {
    let lower = line.to_lowercase();
    let tagged = |tags: &[&str], role| {
        tags.iter().find_map(|t| {
            // Tags are ASCII, so the byte length matches in `line`.
            lower
                .starts_with(t)
                .then(|| (role, line.get(t.len()..).unwrap_or("")))
        })
    };
    if let Some(hit) = tagged(&USER_TAGS, PreviewRole::User) {
        return Some(hit);
    }
    if let Some(hit) = tagged(&CHAR_TAGS, PreviewRole::Assistant) {
        return Some(hit);
    }
    for (name, role) in [
        (user_name, PreviewRole::User),
        (char_name, PreviewRole::Assistant),
    ] {
        if !name.is_empty() {
            if let Some(rest) = line.strip_prefix(name).and_then(|r| r.strip_prefix(':')) {
                return Some((role, rest));
            }
        }
    }
    None
}

/// The example dialogue as turns, macros replaced.
pub fn example_turns(text: &str, char_name: &str, user_name: &str) -> Vec<PreviewItem> {
    let mut turns: Vec<(PreviewRole, String)> = Vec::new();
    for raw in text.lines() {
        let line = raw.trim();
        if line.eq_ignore_ascii_case("<start>") {
            continue;
        }
        match speaker(line, char_name, user_name) {
            Some((role, rest)) => turns.push((role, rest.trim().to_owned())),
            None if line.is_empty() => {
                if let Some((_, t)) = turns.last_mut() {
                    t.push('\n');
                }
            }
            None => match turns.last_mut() {
                Some((_, t)) => {
                    if !t.is_empty() && !t.ends_with('\n') {
                        t.push('\n');
                    }
                    t.push_str(line);
                }
                None => turns.push((PreviewRole::Assistant, line.to_owned())),
            },
        }
    }
    turns
        .into_iter()
        .filter_map(|(role, t)| {
            let content = macros(t.trim(), char_name, user_name);
            (!content.is_empty()).then_some(PreviewItem {
                role,
                content,
                kind: PreviewKind::Example,
            })
        })
        .collect()
}

/// The preview of a checked draft (see the module docs).
pub fn preview(req: &PreviewRequest, user_name: &str) -> Vec<PreviewItem> {
    let name = req.name.trim();
    let mut out = Vec::new();
    let scenario = macros(req.scenario.trim(), name, user_name);
    if !scenario.is_empty() {
        out.push(PreviewItem {
            role: PreviewRole::System,
            content: scenario,
            kind: PreviewKind::Scenario,
        });
    }
    let greeting = macros(req.greeting.trim(), name, user_name);
    if !greeting.is_empty() {
        out.push(PreviewItem {
            role: PreviewRole::Assistant,
            content: greeting,
            kind: PreviewKind::Greeting,
        });
    }
    out.extend(example_turns(&req.example_dialogue, name, user_name));
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    fn draft() -> PreviewRequest {
        PreviewRequest {
            name: " Mira ".into(),
            greeting: "Hello {{user}}, I am {{char}}.".into(),
            persona: "{{char}} keeps a lighthouse.".into(),
            scenario: "A storm; {{user}} knocks.".into(),
            example_dialogue: "<START>\n{{user}}: Hi?\n{{char}}: Who goes there?\n*She raises \
                               the lamp.*\n<START>\n<USER>: Again.\nMira: Yes, <user>.\nSam: ok"
                .into(),
        }
    }

    #[test]
    fn the_preview_shows_scenario_greeting_and_examples_with_macros() {
        let items = preview(&draft(), "Sam");
        let got: Vec<(PreviewRole, PreviewKind, &str)> = items
            .iter()
            .map(|i| (i.role, i.kind, i.content.as_str()))
            .collect();
        use PreviewKind::*;
        use PreviewRole::*;
        assert_eq!(
            got,
            vec![
                (System, Scenario, "A storm; Sam knocks."),
                (Assistant, Greeting, "Hello Sam, I am Mira."),
                (User, Example, "Hi?"),
                (
                    Assistant,
                    Example,
                    "Who goes there?\n*She raises the lamp.*"
                ),
                (User, Example, "Again."),
                (Assistant, Example, "Yes, Sam."),
                (User, Example, "ok"),
            ]
        );
    }

    #[test]
    fn narration_first_and_empty_parts() {
        let req = PreviewRequest {
            name: "Mira".into(),
            greeting: String::new(),
            persona: String::new(),
            scenario: "  ".into(),
            example_dialogue: "The wind howls.\n\n{{CHAR}}: Hm.\n{{user}}:   ".into(),
        };
        let items = preview(&req, "Sam");
        assert_eq!(items.len(), 2);
        assert_eq!(items[0].content, "The wind howls.");
        assert_eq!(items[0].role, PreviewRole::Assistant);
        assert_eq!(items[1].content, "Hm.");
        assert!(preview(
            &PreviewRequest {
                example_dialogue: String::new(),
                ..req
            },
            "Sam"
        )
        .is_empty());
    }

    #[test]
    fn drafts_are_checked() {
        assert!(check(&draft()).is_ok());
        let bad = |f: fn(&mut PreviewRequest)| {
            let mut d = draft();
            f(&mut d);
            check(&d).unwrap_err()
        };
        assert_eq!(bad(|d| d.name = "  ".into()), RuleError::Name);
        assert_eq!(bad(|d| d.name = "x".repeat(65)), RuleError::Name);
        assert_eq!(bad(|d| d.greeting = "g".repeat(4001)), RuleError::Greeting);
        assert_eq!(bad(|d| d.persona = "p".repeat(8001)), RuleError::Persona);
        assert_eq!(
            bad(|d| d.example_dialogue = "e".repeat(8001)),
            RuleError::Text("example_dialogue")
        );
        let mut empty_greeting = draft();
        empty_greeting.greeting.clear();
        assert!(check(&empty_greeting).is_ok());
    }
}
