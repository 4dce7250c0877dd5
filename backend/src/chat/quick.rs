//! Quick chat (`can-talk`, start) and the model's helpers: reply suggestions and message polish.

use super::*;

impl ChatService {
    // ---- Quick chat --------------------------------------------------------

    /// `quick-chat/can-talk`: whether the caller can chat with the character now.
    pub async fn can_talk(&self, caller: Option<&AccountRow>, character_id: &str) -> CanTalk {
        let no = |code: ErrorCode| CanTalk {
            can_talk: false,
            reason: code.key().to_owned(),
        };
        let Some(caller) = caller else {
            return no(ErrorCode::NeedLogin);
        };
        if let Err(e) = self
            .characters
            .load_for_chat(&caller.id, character_id)
            .await
        {
            return no(e.code);
        }
        if self.core.llm.info().context_tokens == 0 {
            return no(ErrorCode::LanguageModelUnavailable);
        }
        CanTalk {
            can_talk: true,
            reason: String::new(),
        }
    }

    /// `quick-chat/start`: a new session with the character and a first
    /// message in one call.
    pub async fn quick_start(
        &self,
        caller: &AccountRow,
        character_id: &str,
        content: &str,
    ) -> Result<(String, String), ApiError> {
        let text = self.user_text(chat_text(content).map_err(bad_text)?)?;
        self.limited(&caller.id).await?;
        let sid = self.create(caller, character_id).await?;
        let s = self.session(&caller.id, &sid).await?;
        let msg_id = self.run(caller, s, StartKind::New(text)).await?;
        Ok((sid, msg_id))
    }

    // ---- Suggestions and polish -------------------------------------------

    /// `reply/recommend`: up to three short replies the caller could send next.
    pub async fn recommend(
        &self,
        caller: &AccountRow,
        session_id: &str,
    ) -> Result<Vec<String>, ApiError> {
        let s = self.session(&caller.id, session_id).await?;
        self.limited(&caller.id).await?;
        let c = &s.character;
        let user = self.characters.chat_user(caller).await?;
        let mut messages = vec![ChatMessage::system(macros(
            "You help {{user}} chat with {{char}}. Suggest three different short replies \
             {{user}} could send next. Write each on its own line, at most 15 words, \
             with no numbering and no quotes.",
            &c.name,
            &user.name,
        ))];
        let llm = self.core.llm.clone();
        for r in self.core.newest(&s.id, SUGGEST_CONTEXT, None).await? {
            if r.content.trim().is_empty() {
                continue;
            }
            let text = prompt::cut_to(&r.content, 200, &|t| llm.count_tokens(t));
            messages.push(ChatMessage::new(prompt::role_of(r.role), text));
        }
        messages.push(ChatMessage::user(
            "Suggest three replies I could send next.",
        ));
        let answer = llm::complete(
            self.core.llm.as_ref(),
            ChatRequest {
                messages,
                max_tokens: SUGGEST_TOKENS,
                temperature: 0.9,
                top_p: 0.95,
                seed: now_millis() as u64,
                stop: Vec::new(),
                prefill: None,
            },
        )
        .await
        .map_err(model_error)?;
        Ok(parse_suggestions(&answer)
            .into_iter()
            .map(|s| self.model_text(&s))
            .collect())
    }

    /// `message/polish`: the caller's draft rewritten (in the session's
    /// character context when a session is named).
    pub async fn polish(
        &self,
        caller: &AccountRow,
        session_id: Option<&str>,
        content: &str,
    ) -> Result<String, ApiError> {
        let draft = chat_text(content).map_err(bad_text)?;
        let character = match session_id.filter(|s| !s.is_empty()) {
            Some(id) => Some(self.session(&caller.id, id).await?.character.name),
            None => None,
        };
        self.limited(&caller.id).await?;
        let to = character.map(|n| format!(" to {n}")).unwrap_or_default();
        let system = format!(
            "Rewrite {}'s draft message{to} so it reads well: fix spelling and grammar, keep \
             the meaning, the language and the first person. Answer with the rewritten \
             message only.",
            caller.name
        );
        let llm = self.core.llm.clone();
        let max_tokens = (llm.count_tokens(&draft) as u32)
            .saturating_mul(2)
            .saturating_add(32)
            .min(POLISH_MAX_TOKENS);
        let answer = llm::complete(
            llm.as_ref(),
            ChatRequest {
                messages: vec![ChatMessage::system(system), ChatMessage::user(draft)],
                max_tokens,
                temperature: 0.3,
                top_p: 0.9,
                seed: 0,
                stop: Vec::new(),
                prefill: None,
            },
        )
        .await
        .map_err(model_error)?;
        clean_polished(&answer)
            .map(|t| self.model_text(&t))
            .ok_or_else(|| {
                ApiError::with_msg(
                    ErrorCode::LanguageModelUnavailable,
                    "the language model gave an empty answer",
                )
            })
    }
}
