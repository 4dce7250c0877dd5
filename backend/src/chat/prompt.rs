//! The chat prompt builder: a pure function from a character snapshot, the
//! bound datacards, the session's history and the model's budget to the
//! messages sent to the language model.
//!
//! Layout: one system message (the character's system prompt or
//! [`DEFAULT_SYSTEM`], then persona, scenario, what the user says about
//! themselves ("About {{user}}:", their chat persona), datacards and example
//! dialogue), the newest history that fits, the message being answered, and
//! the character's post-history instructions as a closing system message.
//! `{{char}}` and `{{user}}` (and the V1 card forms `<BOT>`, `<USER>`) are
//! replaced in everything the character wrote; what users typed is sent as is.
//!
//! Budget: `context_tokens − max_reply_tokens − prefill`, measured with the
//! model's own `count_tokens` plus [`MESSAGE_OVERHEAD`] per message for the
//! chat template. The system part is never dropped (it is cut to half the
//! budget if longer), the post-history part is cut to an eighth, the
//! message being answered is never dropped (cut to what is left if it is
//! very long), and the history fills the rest newest first: the oldest
//! messages go first, and the window is contiguous.

use llm::{ChatMessage, Role};

use super::row::CharacterSnapshot;

/// Used when the character has no system prompt of its own.
pub const DEFAULT_SYSTEM: &str = "You are {{char}}. Stay in character and reply to {{user}} \
as {{char}} would, in a few sentences. Never write {{user}}'s lines.";

/// Tokens a chat template adds around each message (role markers, separators).
pub const MESSAGE_OVERHEAD: usize = 4;

/// Appended to a message cut to fit.
const CUT_MARK: &str = "…";

/// A datacard's text as it goes into the prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardText {
    pub title: String,
    pub content: String,
}

/// Everything the prompt is built from.
pub struct PromptInput<'a> {
    pub character: &'a CharacterSnapshot,
    /// The chatting account's display name (`{{user}}`): their chat
    /// persona's name when set, else the account name.
    pub user_name: &'a str,
    /// The user's self-description from their chat persona (may be empty).
    /// Macros in it are replaced like the character's text.
    pub user_persona: &'a str,
    pub datacards: &'a [CardText],
    /// The conversation, oldest first. Its last message is the one being
    /// answered and is never dropped; the others are dropped oldest first.
    pub history: &'a [ChatMessage],
    /// The model's context window (prompt + reply), in tokens.
    pub context_tokens: usize,
    /// Room kept for the reply.
    pub max_reply_tokens: usize,
    /// Tokens of a partial reply the model continues (`continue`), which
    /// the engine appends after the messages.
    pub prefill_tokens: usize,
}

/// The built prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct Prompt {
    pub messages: Vec<ChatMessage>,
    /// History messages left out because they did not fit.
    pub dropped: usize,
    /// Tokens the messages take, overhead included.
    pub tokens: usize,
}

/// Replaces the character-card macros.
pub fn macros(text: &str, char_name: &str, user_name: &str) -> String {
    let mut out = text.to_owned();
    for m in ["{{char}}", "{{Char}}", "{{CHAR}}", "<BOT>", "<bot>"] {
        out = out.replace(m, char_name);
    }
    for m in ["{{user}}", "{{User}}", "{{USER}}", "<USER>", "<user>"] {
        out = out.replace(m, user_name);
    }
    out
}

/// The system part: instructions, persona, scenario, datacards, examples.
pub fn system_text(
    c: &CharacterSnapshot,
    user_name: &str,
    user_persona: &str,
    cards: &[CardText],
) -> String {
    let base = if c.system_prompt.trim().is_empty() {
        DEFAULT_SYSTEM
    } else {
        c.system_prompt.trim()
    };
    let mut out = base.to_owned();
    let mut section = |title: &str, body: &str| {
        let body = body.trim();
        if !body.is_empty() {
            out.push_str("\n\n");
            out.push_str(title);
            out.push('\n');
            out.push_str(body);
        }
    };
    section("{{char}}'s persona:", &c.persona);
    section("Scenario:", &c.scenario);
    section("About {{user}}:", user_persona);
    for card in cards {
        section(&format!("Lore: {}", card.title.trim()), &card.content);
    }
    let examples: Vec<&str> = c
        .example_dialogue
        .lines()
        .filter(|l| !l.trim().eq_ignore_ascii_case("<start>"))
        .collect();
    section(
        "Example of how {{char}} talks (not part of the conversation):",
        &examples.join("\n"),
    );
    macros(&out, &c.name, user_name)
}

/// `text` cut (at a character boundary, keeping its start) to at most
/// `max_tokens` by `count`; unchanged when it fits.
pub fn cut_to(text: &str, max_tokens: usize, count: &dyn Fn(&str) -> usize) -> String {
    if count(text) <= max_tokens {
        return text.to_owned();
    }
    let bounds: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
    // Longest prefix (in characters) whose cut form fits: binary search.
    let (mut lo, mut hi) = (0usize, bounds.len());
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        let end = bounds.get(mid).copied().unwrap_or(text.len());
        let candidate = format!("{}{CUT_MARK}", text.get(..end).unwrap_or(""));
        if count(&candidate) <= max_tokens {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    if lo == 0 {
        return String::new();
    }
    let end = bounds.get(lo).copied().unwrap_or(text.len());
    format!("{}{CUT_MARK}", text.get(..end).unwrap_or(""))
}

/// Builds the prompt (see the module docs for the rules).
pub fn build(input: &PromptInput<'_>, count: &dyn Fn(&str) -> usize) -> Prompt {
    let c = input.character;
    let cost = |m: &ChatMessage| count(&m.content) + MESSAGE_OVERHEAD;
    let available = input
        .context_tokens
        .saturating_sub(input.max_reply_tokens)
        .saturating_sub(input.prefill_tokens);

    let system = ChatMessage::system(cut_to(
        &system_text(c, input.user_name, input.user_persona, input.datacards),
        (available / 2).saturating_sub(MESSAGE_OVERHEAD),
        count,
    ));
    let post = macros(c.post_history_instructions.trim(), &c.name, input.user_name);
    let post = (!post.is_empty())
        .then(|| {
            ChatMessage::system(cut_to(
                &post,
                (available / 8).saturating_sub(MESSAGE_OVERHEAD),
                count,
            ))
        })
        .filter(|m| !m.content.is_empty());
    let mut left = available
        .saturating_sub(cost(&system))
        .saturating_sub(post.as_ref().map(cost).unwrap_or(0));

    let (pinned, earlier) = match input.history.split_last() {
        Some((last, rest)) => (Some(last), rest),
        None => (None, &[][..]),
    };
    let pinned = pinned.map(|m| {
        let fitted = ChatMessage::new(
            m.role,
            cut_to(&m.content, left.saturating_sub(MESSAGE_OVERHEAD), count),
        );
        left = left.saturating_sub(cost(&fitted));
        fitted
    });
    // Newest first while they fit; the first that does not fit ends the window.
    let mut kept: Vec<&ChatMessage> = Vec::new();
    for m in earlier.iter().rev() {
        let need = cost(m);
        if need > left {
            break;
        }
        left -= need;
        kept.push(m);
    }
    let dropped = earlier.len() - kept.len();

    let mut messages = Vec::with_capacity(kept.len() + 3);
    messages.push(system);
    messages.extend(kept.into_iter().rev().cloned());
    messages.extend(pinned);
    messages.extend(post);
    let tokens = messages.iter().map(cost).sum();
    Prompt {
        messages,
        dropped,
        tokens,
    }
}

/// Whether a message is the user's or the character's, as the model sees it.
pub fn role_of(role: protocol::chat::MessageRole) -> Role {
    match role {
        protocol::chat::MessageRole::User => Role::User,
        protocol::chat::MessageRole::Assistant => Role::Assistant,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::characters::row::Gender;

    /// One token per whitespace-separated word, like the scripted model.
    fn words(s: &str) -> usize {
        s.split_whitespace().count()
    }

    fn character() -> CharacterSnapshot {
        CharacterSnapshot {
            id: "c1".into(),
            owner_id: "o".into(),
            owner_name: "Owner".into(),
            name: "Mira".into(),
            description: String::new(),
            avatar: String::new(),
            tags: vec![],
            gender: Gender::Female,
            character_type: 1,
            publish_at: 0,
            chat_count: 0,
            persona: "{{char}} is a lighthouse keeper who distrusts {{user}}.".into(),
            scenario: "A storm night.".into(),
            example_dialogue: "<START>\n{{user}}: Hello?\n{{char}}: Who goes there?".into(),
            system_prompt: String::new(),
            post_history_instructions: "Answer as <BOT>, briefly.".into(),
        }
    }

    fn history(n: usize) -> Vec<ChatMessage> {
        (0..n)
            .map(|i| {
                if i % 2 == 0 {
                    ChatMessage::assistant(format!("reply number {i} here"))
                } else {
                    ChatMessage::user(format!("message number {i} here"))
                }
            })
            .collect()
    }

    fn input<'a>(
        c: &'a CharacterSnapshot,
        cards: &'a [CardText],
        h: &'a [ChatMessage],
        context: usize,
    ) -> PromptInput<'a> {
        PromptInput {
            character: c,
            user_name: "Sam",
            user_persona: "",
            datacards: cards,
            history: h,
            context_tokens: context,
            max_reply_tokens: 20,
            prefill_tokens: 0,
        }
    }

    #[test]
    fn macros_are_replaced_in_the_character_text_only() {
        let c = character();
        let h = vec![ChatMessage::user("I say {{char}} literally")];
        let p = build(&input(&c, &[], &h, 4000), &words);
        let sys = &p.messages[0].content;
        assert!(sys.starts_with("You are Mira. Stay in character and reply to Sam"));
        assert!(sys.contains("Mira is a lighthouse keeper who distrusts Sam."));
        assert!(sys.contains("Sam: Hello?\nMira: Who goes there?"));
        assert!(!sys.contains("<START>") && !sys.contains("{{"));
        assert_eq!(p.messages[1].content, "I say {{char}} literally");
        assert_eq!(
            p.messages.last().unwrap().content,
            "Answer as Mira, briefly."
        );
        assert_eq!(p.messages.last().unwrap().role, Role::System);
    }

    #[test]
    fn own_system_prompt_replaces_the_default_and_datacards_are_included() {
        let mut c = character();
        c.system_prompt = "Play {{char}} for {{user}}.".into();
        let cards = vec![
            CardText {
                title: "The Isle".into(),
                content: "Fog every morning.".into(),
            },
            CardText {
                title: "Sam".into(),
                content: "{{user}} is a sailor.".into(),
            },
        ];
        let h = vec![ChatMessage::user("hi")];
        let p = build(&input(&c, &cards, &h, 4000), &words);
        let sys = &p.messages[0].content;
        assert!(sys.starts_with("Play Mira for Sam."));
        assert!(!sys.contains("Stay in character"));
        let isle = sys.find("Lore: The Isle\nFog every morning.").unwrap();
        let sailor = sys.find("Lore: Sam\nSam is a sailor.").unwrap();
        let persona = sys.find("Mira's persona:").unwrap();
        assert!(persona < isle && isle < sailor);
    }

    #[test]
    fn everything_fits_in_a_large_context() {
        let c = character();
        let h = history(9);
        let p = build(&input(&c, &[], &h, 10_000), &words);
        assert_eq!(p.dropped, 0);
        assert_eq!(p.messages.len(), 1 + 9 + 1);
        assert_eq!(&p.messages[1..10], &h[..]);
    }

    #[test]
    fn the_window_fits_and_drops_the_oldest_first() {
        let c = character();
        let h = history(40);
        for context in [120usize, 150, 200, 300] {
            let p = build(&input(&c, &[], &h, context), &words);
            assert!(
                p.tokens + 20 <= context,
                "context {context}: {} tokens + 20 reply",
                p.tokens
            );
            assert!(p.dropped > 0, "context {context} should drop some");
            // A contiguous tail of the history, ending with the newest message.
            let kept = &p.messages[1..p.messages.len() - 1];
            assert_eq!(kept.len(), 40 - p.dropped);
            assert_eq!(kept, &h[p.dropped..]);
            // Nothing more would have fit: the next older one is too big.
            let next = &h[p.dropped - 1];
            assert!(p.tokens + words(&next.content) + MESSAGE_OVERHEAD + 20 > context);
        }
        // A bigger context keeps more.
        let small = build(&input(&c, &[], &h, 150), &words).dropped;
        let big = build(&input(&c, &[], &h, 300), &words).dropped;
        assert!(big < small);
    }

    #[test]
    fn the_answered_message_and_the_system_part_are_never_dropped() {
        let c = character();
        let mut h = history(10);
        let long: String = (0..500).map(|i| format!("w{i} ")).collect();
        h.push(ChatMessage::user(long.clone()));
        let p = build(&input(&c, &[], &h, 200), &words);
        assert_eq!(p.messages[0].role, Role::System);
        assert!(p.messages[0].content.starts_with("You are Mira."));
        let answered = &p.messages[p.messages.len() - 2];
        assert_eq!(answered.role, Role::User);
        assert!(answered.content.starts_with("w0 w1 w2"));
        assert!(answered.content.ends_with(CUT_MARK));
        assert!(answered.content.len() < long.len());
        assert_eq!(p.dropped, 10);
        assert!(p.tokens + 20 <= 200, "{} tokens", p.tokens);
    }

    #[test]
    fn a_huge_persona_is_cut_to_half_the_budget() {
        let mut c = character();
        c.persona = "lore ".repeat(5000);
        let h = history(3);
        let p = build(&input(&c, &[], &h, 1000), &words);
        let sys = words(&p.messages[0].content);
        assert!(sys + MESSAGE_OVERHEAD <= (1000 - 20) / 2, "{sys}");
        assert!(p.tokens + 20 <= 1000);
        assert_eq!(p.dropped, 0);
    }

    #[test]
    fn prefill_takes_room_too() {
        let c = character();
        let h = history(40);
        let without = build(&input(&c, &[], &h, 300), &words);
        let mut i = input(&c, &[], &h, 300);
        i.prefill_tokens = 60;
        let with = build(&i, &words);
        assert!(with.dropped > without.dropped);
        assert!(with.tokens + 20 + 60 <= 300);
    }

    #[test]
    fn cut_keeps_the_start_at_a_character_boundary() {
        let t = "héllo wörld and more";
        assert_eq!(cut_to(t, 10, &words), t);
        assert_eq!(cut_to(t, 2, &words), "héllo wörld…");
        let by_chars = |s: &str| s.chars().count();
        assert_eq!(cut_to("ééééé", 3, &by_chars), "éé…");
        assert_eq!(cut_to("ééééé", 0, &by_chars), "");
    }

    #[test]
    fn empty_history_gives_only_the_character_parts() {
        let c = character();
        let p = build(&input(&c, &[], &[], 500), &words);
        assert_eq!(p.messages.len(), 2);
        assert_eq!(p.dropped, 0);
    }

    #[test]
    fn the_user_persona_goes_into_the_system_part_with_macros() {
        let c = character();
        let h = vec![ChatMessage::user("hello")];
        let mut i = input(&c, &[], &h, 4000);
        i.user_name = "Captain Reyes";
        i.user_persona = "  {{user}} is a sea captain who owes {{char}} a favour.  ";
        let p = build(&i, &words);
        let sys = &p.messages[0].content;
        assert!(sys.starts_with("You are Mira. Stay in character and reply to Captain Reyes"));
        assert!(sys.contains("Mira is a lighthouse keeper who distrusts Captain Reyes."));
        let scenario = sys.find("Scenario:\nA storm night.").unwrap();
        let about = sys
            .find("About Captain Reyes:\nCaptain Reyes is a sea captain who owes Mira a favour.")
            .unwrap();
        let examples = sys.find("Example of how Mira talks").unwrap();
        assert!(scenario < about && about < examples);
        assert!(sys.contains("Captain Reyes: Hello?"));
        // No persona, no section.
        let p = build(&input(&c, &[], &h, 4000), &words);
        assert!(!p.messages[0].content.contains("About "));
    }
}
