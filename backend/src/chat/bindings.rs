//! What a session is bound to: its datacards and its voice (timbre).

use super::*;

impl ChatService {
    async fn set_datacards(
        &self,
        s: ChatSessionRow,
        ids: Vec<String>,
    ) -> Result<Vec<String>, ApiError> {
        let now = now_millis();
        let s = self
            .core
            .sessions
            .update(&Key::of(&s.id), &Key::empty(), Some(s), |r| {
                r.datacard_ids = ids.clone();
                r.update_at = now;
            })
            .await?
            .ok_or_else(not_found)?;
        Ok(s.datacard_ids)
    }

    /// Checks that every id is one of the owner's datacards (else NotFound).
    async fn own_datacards(&self, owner: &str, ids: &[String]) -> Result<(), ApiError> {
        let found = self.characters.load_datacards(owner, ids).await?;
        if found.len() != ids.len() {
            return Err(not_found());
        }
        Ok(())
    }

    /// `session/bind-datacard`: adds one of the caller's datacards.
    pub async fn bind_datacard(
        &self,
        owner: &str,
        session_id: &str,
        datacard_id: &str,
    ) -> Result<Vec<String>, ApiError> {
        let s = self.session(owner, session_id).await?;
        self.own_datacards(owner, &[datacard_id.to_owned()]).await?;
        if s.datacard_ids.iter().any(|d| d == datacard_id) {
            return Ok(s.datacard_ids);
        }
        if s.datacard_ids.len() >= MAX_SESSION_DATACARDS {
            return Err(invalid("a session has at most 10 datacards"));
        }
        let mut ids = s.datacard_ids.clone();
        ids.push(datacard_id.to_owned());
        self.set_datacards(s, ids).await
    }

    /// `session/edit-datacard`: the whole list, in prompt order.
    pub async fn edit_datacards(
        &self,
        owner: &str,
        session_id: &str,
        datacard_ids: &[String],
    ) -> Result<Vec<String>, ApiError> {
        let s = self.session(owner, session_id).await?;
        let mut ids: Vec<String> = Vec::new();
        for d in datacard_ids {
            if !ids.contains(d) {
                ids.push(d.clone());
            }
        }
        if ids.len() > MAX_SESSION_DATACARDS {
            return Err(invalid("a session has at most 10 datacards"));
        }
        self.own_datacards(owner, &ids).await?;
        self.set_datacards(s, ids).await
    }

    /// `session/remove-datacard`.
    pub async fn remove_datacard(
        &self,
        owner: &str,
        session_id: &str,
        datacard_id: &str,
    ) -> Result<Vec<String>, ApiError> {
        let s = self.session(owner, session_id).await?;
        let ids: Vec<String> = s
            .datacard_ids
            .iter()
            .filter(|d| *d != datacard_id)
            .cloned()
            .collect();
        self.set_datacards(s, ids).await
    }

    /// `session/timbre/set`: the voice of the session (empty clears it).
    pub async fn set_timbre(
        &self,
        owner: &str,
        session_id: &str,
        timbre_id: &str,
    ) -> Result<(), ApiError> {
        let t = timbre_id.trim();
        if t.len() > 64 || t.chars().any(char::is_control) {
            return Err(invalid("a timbre id has at most 64 characters"));
        }
        let s = self.session(owner, session_id).await?;
        let t = t.to_owned();
        self.core
            .sessions
            .update(&Key::of(&s.id), &Key::empty(), Some(s), |r| {
                r.timbre_id = t.clone()
            })
            .await?
            .ok_or_else(not_found)?;
        Ok(())
    }
}
