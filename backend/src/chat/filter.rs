//! The text filter in character chats (issue 20 item 5): what a user writes
//! (a new message, quick chat's first one, an edit) is filtered in the
//! `message` scene before anything is stored or the model is asked, so a
//! refused message answers 40170 `textViolatesRules` before any token; the
//! model's text is masked (streamed replies in `pump.rs` through a
//! [`StreamFilter`], suggestions and polished drafts here).

use protocol::textfilter::Scene;

use super::*;
use crate::textfilter::StreamFilter;

/// The scene of chat messages, the user's and the character's.
pub const SCENE: Scene = Scene::Message;

impl ChatService {
    /// A user's message, masked, or refused with 40170.
    pub(super) fn user_text(&self, mut text: String) -> Result<String, ApiError> {
        if let Some(f) = self.core.text_filter.get() {
            f.apply(SCENE, &mut text)?;
        }
        Ok(text)
    }

    /// A model's whole answer with every match masked.
    pub(super) fn model_text(&self, text: &str) -> String {
        match self.core.text_filter.get() {
            Some(f) => f.mask_all(SCENE, text),
            None => text.to_owned(),
        }
    }
}

impl ChatCore {
    /// The filter for a reply's stream; `released` is its text so far (a
    /// continued reply).
    pub fn reply_filter(&self, released: &str) -> StreamFilter {
        StreamFilter::new(self.text_filter.get().cloned(), SCENE, released)
    }
}
