//! Publishing, editing, deleting and showing works (`post/...`,
//! `portfolio/edit`, `artwork/{detail, delete, visibility}`).
//!
//! Publishing a picture post claims its tasks first (the task row's
//! `published`, by compare-and-set), then writes the work and its index
//! rows, so a task is published once however many requests race; a claim
//! left by a crash before the work was written names a work that does not
//! exist, and the next publish takes the task over.

use infra::store::Key;
use protocol::square::work::{
    check_body, check_title, normalise_tags, ContentCheckRequest, EditWorkRequest, GenParams,
    PublishArticleRequest, PublishPictureRequest, PublishVideoRequest, TextProblem, WorkImage,
    MAX_ARTICLE_CHARS, MAX_DESCRIPTION_CHARS, MAX_IMAGES_PER_POST, MAX_TASKS_PER_POST,
};
use protocol::square::{PostKind, Visibility, WorkDetail};
use protocol::task::TaskStatus;
use protocol::ErrorCode;

use super::row::{Classified, WorkRow};
use super::{bucket_of, count, SquareService};
use crate::accounts::{now_millis, AccountRow};
use crate::error::ApiError;
use crate::tasks::object_key_of_url;
use crate::tasks::row::{file_url, Owner, TaskRow};

impl From<TextProblem> for ApiError {
    fn from(p: TextProblem) -> Self {
        ApiError::with_msg(p.key, p.msg)
    }
}

fn not_publishable(msg: &str) -> ApiError {
    ApiError::with_msg(ErrorCode::WorkTaskNotPublishable, msg)
}

/// The checked texts of a publish or edit.
struct Texts {
    title: String,
    body: String,
    tags: Vec<String>,
}

fn texts(
    title: &str,
    body: &str,
    body_max: usize,
    body_field: &'static str,
    tags: &[String],
) -> Result<Texts, ApiError> {
    Ok(Texts {
        title: check_title(title)?,
        body: check_body(body_field, body, body_max)?,
        tags: normalise_tags(tags)?,
    })
}

fn params_of(t: &TaskRow) -> GenParams {
    GenParams {
        prompt: t.job.prompt.clone(),
        negative_prompt: t.job.negative_prompt.clone(),
        model: t.job.model.clone(),
        model_name: t.job.model.clone(),
        seed: t.job.seed as i64,
        width: t.job.width,
        height: t.job.height,
        steps: t.job.steps,
        cfg_scale: f64::from(t.job.cfg_scale),
        sampler: t.job.sampler.clone(),
        action: t.action.code().into(),
        engine: t
            .engine
            .as_ref()
            .map(|e| e.label.clone())
            .unwrap_or_default(),
        neural: t.engine.as_ref().is_some_and(|e| e.neural),
    }
}

/// A title from a prompt when the author gave none: its first words.
fn title_from_prompt(prompt: &str) -> String {
    let p: String = prompt.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut t: String = p.chars().take(60).collect();
    if p.chars().count() > 60 {
        t.push('…');
    }
    t
}

impl SquareService {
    /// `post/content/check`: the limits every publish applies.
    pub fn content_check(&self, r: &ContentCheckRequest) -> Result<(), ApiError> {
        texts(
            &r.title,
            &r.description,
            MAX_DESCRIPTION_CHARS,
            "description",
            &r.tags,
        )?;
        check_body("content", &r.content, MAX_ARTICLE_CHARS)?;
        Ok(())
    }

    /// An uploaded file of this server that exists (`/files/...`).
    pub(crate) async fn own_file(&self, url: &str) -> Result<String, ApiError> {
        let bad = || {
            ApiError::with_msg(
                ErrorCode::UploadError,
                "the file was not uploaded here; please upload it again",
            )
        };
        let key = object_key_of_url(url).ok_or_else(bad)?;
        let k = crate::error::object_key(&key)?;
        if !self
            .inner
            .objects
            .exists(&k)
            .await
            .map_err(ApiError::internal)?
        {
            return Err(bad());
        }
        Ok(file_url(&key))
    }

    async fn task_for_publish(&self, who: &str, id: &str) -> Result<TaskRow, ApiError> {
        let t = self
            .inner
            .t
            .tasks
            .get(&Key::of(id), &Key::empty())
            .await?
            .ok_or(ErrorCode::NotFound)?;
        if t.owner != Owner::Account(who.to_owned()) {
            return Err(ErrorCode::NotFound.into());
        }
        if t.status != TaskStatus::Success || t.outputs.is_empty() {
            return Err(not_publishable(
                "only a finished task with results can be published",
            ));
        }
        Ok(t)
    }

    /// Claims `task` for `work`; a claim naming a work that does not exist
    /// (a crash between claim and write) is taken over.
    async fn claim(&self, task: TaskRow, work: &str) -> Result<TaskRow, ApiError> {
        let stale = match task.published.last() {
            Some(w) => self
                .inner
                .t
                .works
                .get(&Key::of(w), &Key::empty())
                .await?
                .is_none(),
            None => true,
        };
        if !stale {
            return Err(not_publishable("this task is already published"));
        }
        let before = task.published.clone();
        let got = self
            .inner
            .t
            .tasks
            .update(&Key::of(&task.id), &Key::empty(), Some(task), |r| {
                if r.published == before {
                    r.published = vec![work.to_owned()];
                }
            })
            .await?
            .ok_or(ErrorCode::NotFound)?;
        if got.published.last().map(String::as_str) != Some(work) {
            return Err(not_publishable("this task is already published"));
        }
        Ok(got)
    }

    async fn release(&self, task: &str, work: &str) {
        let r = self
            .inner
            .t
            .tasks
            .update(&Key::of(task), &Key::empty(), None, |r| {
                r.published.retain(|w| w != work)
            })
            .await;
        if let Err(e) = r {
            tracing::warn!(task, error = %e, "square: could not release a task claim");
        }
    }

    /// `post/portfolio/add_v2`: finished tasks' outputs as a picture post.
    pub async fn publish_picture(
        &self,
        who: &AccountRow,
        r: PublishPictureRequest,
    ) -> Result<String, ApiError> {
        self.inner.limits.check(&who.id, "publishes").await?;
        let mut ids: Vec<String> = Vec::new();
        for id in r
            .task_ids
            .iter()
            .map(|s| s.trim())
            .filter(|s| !s.is_empty())
        {
            if !ids.iter().any(|i| i == id) {
                ids.push(id.to_owned());
            }
        }
        if ids.is_empty() || ids.len() > MAX_TASKS_PER_POST {
            return Err(ApiError::with_msg(
                ErrorCode::InvalidParams,
                format!("a post has 1 to {MAX_TASKS_PER_POST} tasks"),
            ));
        }
        let tx = texts(
            &r.title,
            &r.description,
            MAX_DESCRIPTION_CHARS,
            "description",
            &r.tags,
        )?;
        let mut tasks = Vec::new();
        for id in &ids {
            tasks.push(self.task_for_publish(&who.id, id).await?);
        }
        let mut images = Vec::new();
        // The classifier's verdicts on the chosen pictures: the work's rating.
        let mut scores = Vec::new();
        for t in &tasks {
            for o in t.outputs.iter().filter(|o| o.mime.starts_with("image/")) {
                let url = file_url(&o.key);
                if r.images.is_empty()
                    || r.images
                        .iter()
                        .any(|u| object_key_of_url(u).as_deref() == Some(o.key.as_str()))
                {
                    images.push(WorkImage {
                        url,
                        width: o.width,
                        height: o.height,
                    });
                    scores.extend(o.nsfw.iter());
                }
            }
        }
        if images.is_empty() {
            return Err(not_publishable(
                "none of the chosen pictures belong to these tasks",
            ));
        }
        images.truncate(MAX_IMAGES_PER_POST);
        let classified = Classified::of(scores);
        let work_id = uuid::Uuid::now_v7().simple().to_string();
        let mut claimed: Vec<String> = Vec::new();
        for t in tasks.iter().cloned() {
            match self.claim(t, &work_id).await {
                Ok(t) => claimed.push(t.id),
                Err(e) => {
                    for c in &claimed {
                        self.release(c, &work_id).await;
                    }
                    return Err(e);
                }
            }
        }
        let now = now_millis();
        let title = if tx.title.is_empty() {
            tasks
                .first()
                .map(|t| title_from_prompt(&t.job.prompt))
                .unwrap_or_default()
        } else {
            tx.title
        };
        let row = WorkRow {
            id: work_id.clone(),
            author: who.id.clone(),
            kind: PostKind::Picture,
            title,
            body: tx.body,
            tags: tx.tags,
            visibility: r.visibility,
            // The author may mark a work NSFW; the classifier's NSFW verdict
            // makes it so whatever the author says.
            nsfw: r.nsfw || classified.as_ref().is_some_and(|c| c.nsfw),
            hide_params: r.hide_params,
            images,
            video_url: None,
            hls_url: None,
            task_ids: ids,
            params: tasks.iter().map(params_of).collect(),
            create_at: now,
            update_at: now,
            moderation: None,
            classified: classified.clone(),
        };
        self.write_new(row).await?;
        Ok(work_id)
    }

    /// `post/article/add`.
    pub async fn publish_article(
        &self,
        who: &AccountRow,
        r: PublishArticleRequest,
    ) -> Result<String, ApiError> {
        self.inner.limits.check(&who.id, "publishes").await?;
        let tx = texts(&r.title, &r.content, MAX_ARTICLE_CHARS, "content", &r.tags)?;
        if tx.title.is_empty() || tx.body.is_empty() {
            return Err(ApiError::with_msg(
                ErrorCode::WorkTextInvalid,
                "an article needs a title and a text",
            ));
        }
        let images = match r.cover.as_deref().filter(|c| !c.trim().is_empty()) {
            Some(c) => vec![WorkImage {
                url: self.own_file(c).await?,
                width: 0,
                height: 0,
            }],
            None => Vec::new(),
        };
        let now = now_millis();
        let row = WorkRow {
            id: uuid::Uuid::now_v7().simple().to_string(),
            author: who.id.clone(),
            kind: PostKind::Article,
            title: tx.title,
            body: tx.body,
            tags: tx.tags,
            visibility: r.visibility,
            nsfw: r.nsfw,
            hide_params: false,
            images,
            video_url: None,
            hls_url: None,
            task_ids: Vec::new(),
            params: Vec::new(),
            create_at: now,
            update_at: now,
            moderation: None,
            classified: None,
        };
        let id = row.id.clone();
        self.write_new(row).await?;
        Ok(id)
    }

    /// `post/video/add`: a finished task's video, or an uploaded one.
    pub async fn publish_video(
        &self,
        who: &AccountRow,
        r: PublishVideoRequest,
    ) -> Result<String, ApiError> {
        self.inner.limits.check(&who.id, "publishes").await?;
        let tx = texts(
            &r.title,
            &r.description,
            MAX_DESCRIPTION_CHARS,
            "description",
            &r.tags,
        )?;
        let work_id = uuid::Uuid::now_v7().simple().to_string();
        let mut classified = None;
        let (video, hls, mut images, task) = match (r.task_id.as_deref(), r.video_url.as_deref()) {
            (Some(t), None) => {
                let t = self.task_for_publish(&who.id, t).await?;
                let v = t
                    .outputs
                    .iter()
                    .find(|o| o.mime.starts_with("video/"))
                    .ok_or_else(|| not_publishable("this task has no video"))?;
                let poster: Vec<WorkImage> = t
                    .outputs
                    .iter()
                    .filter(|o| o.mime.starts_with("image/"))
                    .take(1)
                    .map(|o| WorkImage {
                        url: file_url(&o.key),
                        width: o.width,
                        height: o.height,
                    })
                    .collect();
                let hls = v.hls.as_deref().map(file_url);
                classified = Classified::of(v.nsfw.iter());
                (file_url(&v.key), hls, poster, Some(t))
            }
            (None, Some(u)) => {
                let url = self.own_file(u).await?;
                let ext = url.rsplit('.').next().unwrap_or_default().to_lowercase();
                if !["mp4", "webm", "mov", "m4v", "mkv", "ogg"].contains(&ext.as_str()) {
                    return Err(ApiError::with_msg(
                        ErrorCode::InvalidParams,
                        "a video post takes an MP4, WebM, MOV, M4V, MKV or OGG file",
                    ));
                }
                (url, None, Vec::new(), None)
            }
            _ => {
                return Err(ApiError::with_msg(
                    ErrorCode::InvalidParams,
                    "give either task_id or video_url",
                ))
            }
        };
        if let Some(c) = r.cover.as_deref().filter(|c| !c.trim().is_empty()) {
            images = vec![WorkImage {
                url: self.own_file(c).await?,
                width: 0,
                height: 0,
            }];
        }
        if let Some(t) = task.clone() {
            self.claim(t, &work_id).await?;
        }
        let now = now_millis();
        let row = WorkRow {
            id: work_id.clone(),
            author: who.id.clone(),
            kind: PostKind::Video,
            title: tx.title,
            body: tx.body,
            tags: tx.tags,
            visibility: r.visibility,
            nsfw: r.nsfw || classified.as_ref().is_some_and(|c| c.nsfw),
            hide_params: false,
            images,
            video_url: Some(video),
            hls_url: hls,
            task_ids: task.iter().map(|t| t.id.clone()).collect(),
            params: task.iter().map(params_of).collect(),
            create_at: now,
            update_at: now,
            moderation: None,
            classified: classified.clone(),
        };
        self.write_new(row).await?;
        Ok(work_id)
    }

    /// Stores a new work and its index rows, then this node's indexes.
    async fn write_new(&self, row: WorkRow) -> Result<(), ApiError> {
        self.note_model_works(&row).await?;
        let t = &self.inner.t;
        let id = row.id.clone();
        let author = row.author.clone();
        let (wk, ak, at, bk, e) = (
            Key::of(&id),
            Key::of(&author),
            Key::empty().i64(row.create_at).str(&id),
            Key::empty().u64(bucket_of(&id)),
            Key::empty(),
        );
        let (a, b, c) = tokio::join!(
            t.works.put(&wk, &e, &row),
            t.by_author.put(&ak, &at, &()),
            t.all.put(&bk, &wk, &()),
        );
        a?;
        b?;
        c?;
        self.bump_account(&author, count::WORKS, 1).await?;
        self.index_work(&row).await?;
        self.announce(Some(&id), None).await;
        Ok(())
    }

    pub(crate) async fn index_work(&self, row: &WorkRow) -> Result<(), ApiError> {
        self.put_in_index(row).await?;
        self.search_upsert_work(row).await;
        self.search_upsert_tags(&row.tags);
        Ok(())
    }

    /// The author's own work, else NotFound.
    async fn own_work(&self, who: &str, id: &str) -> Result<WorkRow, ApiError> {
        let w = self
            .inner
            .t
            .works
            .get(&Key::of(id), &Key::empty())
            .await?
            .ok_or(ErrorCode::NotFound)?;
        if w.author != who {
            return Err(ErrorCode::NotFound.into());
        }
        Ok(w)
    }

    /// `portfolio/edit`, `post/article/edit`, `post/video/edit`.
    pub async fn edit(&self, who: &AccountRow, r: EditWorkRequest) -> Result<WorkDetail, ApiError> {
        let w = self.own_work(&who.id, &r.id).await?;
        let body_max = if w.kind == PostKind::Article {
            MAX_ARTICLE_CHARS
        } else {
            MAX_DESCRIPTION_CHARS
        };
        let body_in = if w.kind == PostKind::Article {
            r.content.as_deref()
        } else {
            r.description.as_deref()
        };
        let title = r.title.as_deref().map(check_title).transpose()?;
        let field = if w.kind == PostKind::Article {
            "content"
        } else {
            "description"
        };
        let body = body_in
            .map(|b| check_body(field, b, body_max))
            .transpose()?;
        if w.kind == PostKind::Article
            && (title.as_deref() == Some("") || body.as_deref() == Some(""))
        {
            return Err(ApiError::with_msg(
                ErrorCode::WorkTextInvalid,
                "an article needs a title and a text",
            ));
        }
        let tags = r.tags.as_deref().map(normalise_tags).transpose()?;
        let cover = match r.cover.as_deref().filter(|c| !c.trim().is_empty()) {
            Some(c) if w.kind != PostKind::Picture => Some(self.own_file(c).await?),
            _ => None,
        };
        let now = now_millis();
        let row = self
            .inner
            .t
            .works
            .update(&Key::of(&w.id), &Key::empty(), Some(w), |x| {
                if let Some(t) = &title {
                    x.title = t.clone();
                }
                if let Some(b) = &body {
                    x.body = b.clone();
                }
                if let Some(t) = &tags {
                    x.tags = t.clone();
                }
                if let Some(v) = r.visibility {
                    x.visibility = v;
                }
                if let Some(n) = r.nsfw {
                    // A classifier's NSFW verdict is not the author's to undo
                    // (an appeal to the moderators is).
                    x.nsfw = n || x.classified.as_ref().is_some_and(|c| c.nsfw);
                }
                if let Some(h) = r.hide_params {
                    x.hide_params = h;
                }
                if let Some(c) = &cover {
                    x.images = vec![WorkImage {
                        url: c.clone(),
                        width: 0,
                        height: 0,
                    }];
                }
                x.update_at = now;
            })
            .await?
            .ok_or(ErrorCode::NotFound)?;
        self.index_work(&row).await?;
        self.announce(Some(&row.id), None).await;
        self.detail_of(Some(&who.id), row).await
    }

    /// `artwork/visibility`.
    pub async fn set_visibility(
        &self,
        who: &AccountRow,
        id: &str,
        v: Visibility,
    ) -> Result<WorkDetail, ApiError> {
        self.edit(
            who,
            EditWorkRequest {
                id: id.to_owned(),
                visibility: Some(v),
                ..Default::default()
            },
        )
        .await
    }

    /// `artwork/delete`: the author's work goes from every list, feed and
    /// search; its tasks can be published again.
    pub async fn delete(&self, who: &AccountRow, id: &str) -> Result<(), ApiError> {
        let w = self.own_work(&who.id, id).await?;
        self.remove_work(&w).await
    }

    pub(crate) async fn remove_work(&self, w: &WorkRow) -> Result<(), ApiError> {
        let t = &self.inner.t;
        t.works.delete(&Key::of(&w.id), &Key::empty()).await?;
        let (ak, at, bk, wk) = (
            Key::of(&w.author),
            Key::empty().i64(w.create_at).str(&w.id),
            Key::empty().u64(bucket_of(&w.id)),
            Key::of(&w.id),
        );
        let (a, b) = tokio::join!(t.by_author.delete(&ak, &at), t.all.delete(&bk, &wk));
        a?;
        b?;
        self.forget_model_works(w).await;
        for task in &w.task_ids {
            self.release(task, &w.id).await;
        }
        self.bump_account(&w.author, count::WORKS, -1).await?;
        if let Ok(mut ix) = self.inner.index.write() {
            ix.remove(&w.id);
        }
        self.search_delete_work(&w.id).await;
        self.search_upsert_tags(&w.tags);
        self.announce(Some(&w.id), None).await;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_from_prompts() {
        assert_eq!(title_from_prompt("  a red   fox "), "a red fox");
        let long = "word ".repeat(30);
        let t = title_from_prompt(&long);
        assert_eq!(t.chars().count(), 61);
        assert!(t.ends_with('…'));
    }
}
