//! Speaking chat replies: when a reply of a session with a voice finishes,
//! its text (markdown and emoji stripped, capped) is spoken in that voice
//! and the owner gets a Notification frame `chat.speech` with the audio's
//! URL and duration, or `chat.speech_failed` with a key; never a broken chat.

use std::sync::Arc;

use audio::speech::Speaker;
use infra::bus::{DynBus, PushContent};
use protocol::frame::FrameType;
use serde_json::json;

use super::TimbreService;

/// Most characters of a reply that are spoken.
pub const MAX_SPOKEN_CHARS: usize = 600;

/// What a finished reply needs to be spoken.
#[derive(Clone)]
pub struct ChatSpeech {
    pub speaker: Arc<dyn Speaker>,
    pub timbres: TimbreService,
    pub bus: DynBus,
}

/// The speakable text of a reply: markdown marks, links' targets, code
/// fences and emoji removed, whitespace collapsed, cut at a sentence end
/// within [`MAX_SPOKEN_CHARS`].
pub fn speakable(reply: &str) -> String {
    let mut out = String::with_capacity(reply.len());
    let mut chars = reply.chars().peekable();
    let mut in_link_target = false;
    while let Some(c) = chars.next() {
        if in_link_target {
            if c == ')' {
                in_link_target = false;
            }
            continue;
        }
        match c {
            '*' | '_' | '`' | '#' | '>' | '~' | '|' | '[' => {}
            ']' => {
                if chars.peek() == Some(&'(') {
                    chars.next();
                    in_link_target = true;
                }
            }
            c if is_emoji(c) => {}
            c => out.push(c),
        }
    }
    let collapsed = out.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapsed.chars().count() <= MAX_SPOKEN_CHARS {
        return collapsed;
    }
    let capped: String = collapsed.chars().take(MAX_SPOKEN_CHARS).collect();
    match capped.rfind(['.', '!', '?', '。', '！', '？']) {
        Some(i) if i > MAX_SPOKEN_CHARS / 3 => {
            let end = i + capped[i..].chars().next().map_or(1, char::len_utf8);
            capped.get(..end).unwrap_or(&capped).to_string()
        }
        _ => capped,
    }
}

fn is_emoji(c: char) -> bool {
    matches!(u32::from(c),
        0x1F000..=0x1FAFF | 0x2600..=0x27BF | 0xFE00..=0xFE0F | 0x200D | 0xE0020..=0xE007F)
}

impl ChatSpeech {
    /// Speaks a finished reply in the background.
    pub fn reply_finished(
        &self,
        owner: String,
        session_id: String,
        message_id: String,
        timbre_id: String,
        reply: String,
    ) {
        let me = self.clone();
        tokio::spawn(async move {
            let text = speakable(&reply);
            let content = match me.speak(&owner, &timbre_id, &text).await {
                Ok((url, duration)) => json!({"kind": "chat.speech", "session_id": session_id,
                    "message_id": message_id, "url": url, "duration": duration}),
                Err(e) => {
                    let msg = e.msg.clone().unwrap_or_else(|| e.code.default_msg().into());
                    json!({"kind": "chat.speech_failed", "session_id": session_id,
                        "message_id": message_id, "key": e.code.key(), "msg": msg})
                }
            };
            me.bus
                .push_to_users(
                    &[owner],
                    FrameType::Notification.as_u16(),
                    PushContent::from_value(&content),
                )
                .await;
        });
    }

    async fn speak(
        &self,
        owner: &str,
        timbre_id: &str,
        text: &str,
    ) -> Result<(String, f64), crate::error::ApiError> {
        let text = protocol::audio::timbre::check_tts_text(text)?;
        let a = self
            .timbres
            .tts(
                self.speaker.as_ref(),
                owner,
                &text,
                Some(timbre_id),
                1.0,
                "",
            )
            .await?;
        Ok((a.url, a.duration))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_lose_markdown_and_emoji_and_are_capped() {
        assert_eq!(
            speakable("*smiles* Hello **there** 😀! See [the docs](http://x.y/z) `now`."),
            "smiles Hello there ! See the docs now."
        );
        let long = "One sentence here. ".repeat(100);
        let s = speakable(&long);
        assert!(
            s.chars().count() <= MAX_SPOKEN_CHARS && s.ends_with('.'),
            "{s}"
        );
        assert_eq!(speakable("🎉🎉"), "");
    }
}
