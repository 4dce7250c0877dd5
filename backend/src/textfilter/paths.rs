//! Which scene each field of each write request is filtered as: one
//! [`Filtered`] impl per request, so a write path makes one call
//! (`state.text_filter.clean(&mut body)?`) before it stores anything.
//!
//! Titles and tags are `title`; descriptions, article bodies and version
//! notes `description`; nicknames, channel, model and version names `name`;
//! every text of a character (published or imported as a card) and its
//! datacards `character`; video-editor projects `name`; comments
//! `comment`; channel messages `message`. Prompts are filtered by the task
//! and polish paths themselves (they answer their own codes).

use protocol::character::{DatacardCreate, DatacardEdit, PublishRequest};
use protocol::im::{CreateChannelRequest, EditChannelRequest, SendRequest};
use protocol::models::template::{ApplyTemplateRequest, CreateTemplateRequest};
use protocol::models::{CreateModelRequest, ModelDeclaration};
use protocol::square::comment::CreateCommentRequest;
use protocol::square::work::{
    ContentCheckRequest, EditWorkRequest, PublishArticleRequest, PublishPictureRequest,
    PublishVideoRequest,
};
use protocol::task::request::CreateTaskRequest;
use protocol::textfilter::Scene;
use protocol::video::editor::{CreateRequest as EditorCreate, EditRequest as EditorEdit};
use protocol::video::request::VideoCreateRequest;
use protocol::ErrorCode;

use super::TextFilterService;
use crate::error::ApiError;
use crate::models::ops::{ModelEdit, VersionEdit};

/// A request whose user-written texts the filter masks or refuses.
pub trait Filtered {
    /// Masks the fields in place, or refuses with the first refused field.
    fn filter(&mut self, f: &TextFilterService) -> Result<(), ApiError>;
}

impl TextFilterService {
    /// Filters every user-written field of a request (see [`Filtered`]).
    pub fn clean<T: Filtered>(&self, request: &mut T) -> Result<(), ApiError> {
        request.filter(self)
    }
}

impl TextFilterService {
    /// A generation prompt: refused with 40171 `taskPromptViolate`, masked
    /// by the masking entries an operator gives the prompt scene.
    fn prompt(&self, text: &mut Option<String>) -> Result<(), ApiError> {
        match text {
            Some(t) if TextFilterService::breaks_prompt_rule(t) => Err(ApiError::with_msg(
                ErrorCode::TaskPromptViolatesRules,
                "this prompt violates the content rules",
            )),
            Some(t) => self.apply_with(Scene::Prompt, t, ErrorCode::TaskPromptViolatesRules),
            None => Ok(()),
        }
    }
}

/// Image tasks: the prompt and the local-language prompt (negative prompts
/// name what is not wanted and are left alone).
impl Filtered for CreateTaskRequest {
    fn filter(&mut self, f: &TextFilterService) -> Result<(), ApiError> {
        f.prompt(&mut self.meta.prompt)?;
        f.prompt(&mut self.meta.local_prompt)
    }
}

/// A creativity template's slot values become part of a task's prompt.
impl Filtered for ApplyTemplateRequest {
    fn filter(&mut self, f: &TextFilterService) -> Result<(), ApiError> {
        for value in self.inputs.values_mut() {
            let mut text = Some(std::mem::take(value));
            f.prompt(&mut text)?;
            *value = text.unwrap_or_default();
        }
        Ok(())
    }
}

impl Filtered for CreateTemplateRequest {
    fn filter(&mut self, f: &TextFilterService) -> Result<(), ApiError> {
        f.apply_opt(Scene::Title, &mut self.title)
    }
}

impl Filtered for VideoCreateRequest {
    fn filter(&mut self, f: &TextFilterService) -> Result<(), ApiError> {
        f.prompt(&mut self.meta.prompt)
    }
}

impl Filtered for PublishPictureRequest {
    fn filter(&mut self, f: &TextFilterService) -> Result<(), ApiError> {
        f.apply(Scene::Title, &mut self.title)?;
        f.apply(Scene::Description, &mut self.description)?;
        f.apply_all(Scene::Title, &mut self.tags)
    }
}

impl Filtered for PublishArticleRequest {
    fn filter(&mut self, f: &TextFilterService) -> Result<(), ApiError> {
        f.apply(Scene::Title, &mut self.title)?;
        f.apply(Scene::Description, &mut self.content)?;
        f.apply_all(Scene::Title, &mut self.tags)
    }
}

impl Filtered for PublishVideoRequest {
    fn filter(&mut self, f: &TextFilterService) -> Result<(), ApiError> {
        f.apply(Scene::Title, &mut self.title)?;
        f.apply(Scene::Description, &mut self.description)?;
        f.apply_all(Scene::Title, &mut self.tags)
    }
}

impl Filtered for EditWorkRequest {
    fn filter(&mut self, f: &TextFilterService) -> Result<(), ApiError> {
        f.apply_opt(Scene::Title, &mut self.title)?;
        f.apply_opt(Scene::Description, &mut self.description)?;
        f.apply_opt(Scene::Description, &mut self.content)?;
        match &mut self.tags {
            Some(tags) => f.apply_all(Scene::Title, tags),
            None => Ok(()),
        }
    }
}

impl Filtered for ContentCheckRequest {
    fn filter(&mut self, f: &TextFilterService) -> Result<(), ApiError> {
        f.apply(Scene::Title, &mut self.title)?;
        f.apply(Scene::Description, &mut self.description)?;
        f.apply(Scene::Description, &mut self.content)?;
        f.apply_all(Scene::Title, &mut self.tags)
    }
}

impl Filtered for CreateCommentRequest {
    fn filter(&mut self, f: &TextFilterService) -> Result<(), ApiError> {
        f.apply(Scene::Comment, &mut self.content)
    }
}

impl Filtered for PublishRequest {
    fn filter(&mut self, f: &TextFilterService) -> Result<(), ApiError> {
        let c = Scene::Character;
        for text in [
            &mut self.name,
            &mut self.description,
            &mut self.persona,
            &mut self.scenario,
            &mut self.greeting,
            &mut self.example_dialogue,
            &mut self.system_prompt,
            &mut self.post_history_instructions,
            &mut self.creator_notes,
        ] {
            f.apply(c, text)?;
        }
        f.apply_all(c, &mut self.alternate_greetings)?;
        f.apply_all(c, &mut self.tags)
    }
}

impl Filtered for DatacardCreate {
    fn filter(&mut self, f: &TextFilterService) -> Result<(), ApiError> {
        f.apply(Scene::Character, &mut self.title)?;
        f.apply(Scene::Character, &mut self.content)
    }
}

impl Filtered for DatacardEdit {
    fn filter(&mut self, f: &TextFilterService) -> Result<(), ApiError> {
        f.apply(Scene::Character, &mut self.title)?;
        f.apply(Scene::Character, &mut self.content)
    }
}

impl Filtered for CreateChannelRequest {
    fn filter(&mut self, f: &TextFilterService) -> Result<(), ApiError> {
        f.apply(Scene::Name, &mut self.name)
    }
}

impl Filtered for EditChannelRequest {
    fn filter(&mut self, f: &TextFilterService) -> Result<(), ApiError> {
        f.apply_opt(Scene::Name, &mut self.name)
    }
}

impl Filtered for SendRequest {
    fn filter(&mut self, f: &TextFilterService) -> Result<(), ApiError> {
        f.apply_opt(Scene::Message, &mut self.content)
    }
}

impl Filtered for CreateModelRequest {
    fn filter(&mut self, f: &TextFilterService) -> Result<(), ApiError> {
        self.model.filter(f)
    }
}

impl Filtered for ModelDeclaration {
    fn filter(&mut self, f: &TextFilterService) -> Result<(), ApiError> {
        f.apply(Scene::Name, &mut self.name)?;
        f.apply_opt(Scene::Name, &mut self.version_name)?;
        f.apply_opt(Scene::Description, &mut self.description)
    }
}

impl Filtered for ModelEdit {
    fn filter(&mut self, f: &TextFilterService) -> Result<(), ApiError> {
        f.apply_opt(Scene::Name, &mut self.name)?;
        f.apply_opt(Scene::Description, &mut self.description)?;
        match &mut self.tags {
            Some(tags) => f.apply_all(Scene::Title, tags),
            None => Ok(()),
        }
    }
}

impl Filtered for VersionEdit {
    fn filter(&mut self, f: &TextFilterService) -> Result<(), ApiError> {
        f.apply_opt(Scene::Name, &mut self.version_name)?;
        f.apply_opt(Scene::Description, &mut self.description)
    }
}

/// A video-editor project's name.
impl Filtered for EditorCreate {
    fn filter(&mut self, f: &TextFilterService) -> Result<(), ApiError> {
        f.apply_opt(Scene::Name, &mut self.name)
    }
}

impl Filtered for EditorEdit {
    fn filter(&mut self, f: &TextFilterService) -> Result<(), ApiError> {
        f.apply_opt(Scene::Name, &mut self.name)
    }
}
