//! A session's stored messages: editing, deleting, liking, copying.

use super::*;

impl ChatService {
    /// The message, refusing the reply that is still being written.
    async fn settled(
        &self,
        owner: &str,
        session_id: &str,
        msg_id: &str,
    ) -> Result<(ChatSessionRow, ChatMessageRow), ApiError> {
        let (s, m) = self.message(owner, session_id, msg_id).await?;
        let m = self.shown(&s.id, m).await?;
        if m.state == MessageState::Streaming {
            return Err(ErrorCode::ChatReplyRunning.into());
        }
        Ok((s, m))
    }

    /// `session/message/edit`: new text for a user message or a reply.
    pub async fn edit_message(
        &self,
        owner: &str,
        session_id: &str,
        msg_id: &str,
        content: &str,
    ) -> Result<MessageView, ApiError> {
        let text = chat_text(content).map_err(bad_text)?;
        let (s, m) = self.settled(owner, session_id, msg_id).await?;
        let text = self.user_text(text)?;
        let now = now_millis();
        let idx = m.idx;
        let updated = self
            .core
            .messages
            .update(&Key::of(&s.id), &Key::empty().u64(idx), Some(m), |r| {
                if r.id == msg_id && r.state != MessageState::Streaming {
                    r.content = text.clone();
                    r.update_at = now;
                }
            })
            .await?
            .filter(|r| r.id == msg_id)
            .ok_or_else(not_found)?;
        if updated.content != text {
            return Err(ErrorCode::ChatReplyRunning.into());
        }
        Ok(updated.view())
    }

    /// `session/message/delete`.
    pub async fn delete_message(
        &self,
        owner: &str,
        session_id: &str,
        msg_id: &str,
    ) -> Result<(), ApiError> {
        let (s, m) = self.settled(owner, session_id, msg_id).await?;
        let pk = Key::of(&s.id);
        let ck = Key::empty().u64(m.idx);
        match self
            .core
            .messages
            .compare_and_set(&pk, &ck, &m, None)
            .await?
        {
            Ok(()) => Ok(()),
            // Changed meanwhile (a like, a continue): delete only if still settled.
            Err(Some(now)) if now.id == m.id && now.state != MessageState::Streaming => {
                self.core.messages.delete(&pk, &ck).await?;
                Ok(())
            }
            Err(Some(now)) if now.id == m.id => Err(ErrorCode::ChatReplyRunning.into()),
            Err(_) => Err(not_found()),
        }
    }

    /// `session/message/like`: 1, 0 or -1 on a reply.
    pub async fn like(
        &self,
        owner: &str,
        session_id: &str,
        msg_id: &str,
        like: i8,
    ) -> Result<(), ApiError> {
        if !(-1..=1).contains(&like) {
            return Err(invalid("like is 1, 0 or -1"));
        }
        let (s, m) = self.message(owner, session_id, msg_id).await?;
        if m.role != MessageRole::Assistant {
            return Err(invalid("only the character's messages can be liked"));
        }
        let idx = m.idx;
        self.core
            .messages
            .update(&Key::of(&s.id), &Key::empty().u64(idx), Some(m), |r| {
                if r.id == msg_id {
                    r.liked = like;
                }
            })
            .await?
            .filter(|r| r.id == msg_id)
            .ok_or_else(not_found)?;
        Ok(())
    }

    /// `session/message/copy_idx`: the message's text (so far).
    pub async fn copy(
        &self,
        owner: &str,
        session_id: &str,
        msg_id: &str,
    ) -> Result<String, ApiError> {
        let (s, m) = self.message(owner, session_id, msg_id).await?;
        Ok(self.shown(&s.id, m).await?.content)
    }
}
