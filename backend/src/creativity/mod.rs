//! Creativity templates (spec 3 §7 Creativity; issue 19 item 5): a square
//! picture's generation parameters made into a reusable recipe by its
//! author (`creativity/template/create {work_id, slots}`), shown by
//! `creativity/square/template/detail` (and listed by `.../list`), applied
//! by `generate/apply` as a normal text-to-image task through the task
//! service (the caller's credits, rules and queue), and the caller's
//! applications listed with their task status by `generate/history`.
//! The slot rules are `protocol::models::template`'s.
//!
//! A template's id is its work's id: one template per work (marking again
//! replaces it). Others see a template only while they may see its work.

use infra::store::{tables, DynStore, Key, Order, ScanRange, Table};
use protocol::character::OwnerView;
use protocol::models::template::{
    fill, make_template, ApplyTemplateRequest, CreateTemplateRequest, Slot, TemplateGeneration,
    TemplateView, MAX_N_ITER,
};
use protocol::square::PostKind;
use protocol::task::{Action, CreateTaskRequest};
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::accounts::{now_millis, AccountRow};
use crate::error::ApiError;
use crate::square::SquareService;
use crate::tasks::{Requester, TaskService};

/// Rows a list answers at most.
pub const MAX_LIST: usize = 50;
/// Longest template title.
const MAX_TITLE_CHARS: usize = 80;

/// A stored template.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TemplateRow {
    pub id: String,
    pub work_id: String,
    pub author: String,
    pub title: String,
    pub preview: Option<String>,
    pub width: u32,
    pub height: u32,
    pub prompt_template: String,
    pub slots: Vec<Slot>,
    pub negative_prompt: String,
    pub model: String,
    pub model_name: String,
    pub steps: u32,
    pub cfg_scale: f64,
    pub sampler: String,
    pub uses: i64,
    pub create_at: i64,
}

/// One application of a template by an account.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GenerationRow {
    pub task_id: String,
    pub template_id: String,
    pub title: String,
    pub prompt: String,
    pub inputs: std::collections::BTreeMap<String, String>,
    pub create_at: i64,
}

#[derive(Clone)]
pub struct CreativityService {
    templates: Table<TemplateRow>,
    by_time: Table<()>,
    generations: Table<GenerationRow>,
    accounts: Table<AccountRow>,
}

fn bad(msg: impl Into<String>) -> ApiError {
    ApiError::with_msg(ErrorCode::InvalidParams, msg)
}

impl CreativityService {
    pub fn new(store: DynStore) -> CreativityService {
        CreativityService {
            templates: Table::new(store.clone(), &tables::CREATIVITY_TEMPLATES),
            by_time: Table::new(store.clone(), &tables::CREATIVITY_TEMPLATES_BY_TIME),
            generations: Table::new(store.clone(), &tables::CREATIVITY_GENERATIONS),
            accounts: Table::new(store, &tables::ACCOUNTS),
        }
    }

    /// `creativity/template/create`: the author makes a template of their
    /// own text-to-image picture (anyone else's work answers NotFound).
    pub async fn create(
        &self,
        square: &SquareService,
        who: &AccountRow,
        r: &CreateTemplateRequest,
    ) -> Result<TemplateView, ApiError> {
        let w = square.visible_work(Some(&who.id), r.work_id.trim()).await?;
        if w.author != who.id {
            return Err(ErrorCode::NotFound.into());
        }
        if w.kind != PostKind::Picture {
            return Err(bad("only a picture work can become a template"));
        }
        let index = r.index.unwrap_or(0);
        let p = w
            .params
            .get(index)
            .ok_or_else(|| bad("this work has no generation parameters to reuse"))?;
        if Action::from_code(p.action) != Some(Action::TextToImage) {
            return Err(bad("only a text-to-image picture can become a template"));
        }
        let (prompt_template, slots) = make_template(&p.prompt, &r.slots).map_err(bad)?;
        let title = r
            .title
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .unwrap_or(&w.title)
            .chars()
            .take(MAX_TITLE_CHARS)
            .collect::<String>();
        let preview = w.images.get(index).or(w.images.first());
        let now = now_millis();
        let old = self.templates.get(&Key::of(&w.id), &Key::empty()).await?;
        let row = TemplateRow {
            id: w.id.clone(),
            work_id: w.id.clone(),
            author: who.id.clone(),
            title,
            preview: preview.map(|i| i.url.clone()),
            width: p.width,
            height: p.height,
            prompt_template,
            slots,
            negative_prompt: p.negative_prompt.clone(),
            model: p.model.clone(),
            model_name: p.model_name.clone(),
            steps: p.steps,
            cfg_scale: p.cfg_scale,
            sampler: p.sampler.clone(),
            uses: old.as_ref().map(|o| o.uses).unwrap_or(0),
            create_at: old.as_ref().map(|o| o.create_at).unwrap_or(now),
        };
        self.templates
            .put(&Key::of(&row.id), &Key::empty(), &row)
            .await?;
        self.by_time
            .put(
                &Key::empty().i64(0),
                &Key::empty().i64(row.create_at).str(&row.id),
                &(),
            )
            .await?;
        self.view(&row).await
    }

    async fn view(&self, t: &TemplateRow) -> Result<TemplateView, ApiError> {
        let name = self
            .accounts
            .get(&Key::of(&t.author), &Key::empty())
            .await?
            .map(|a| a.name)
            .unwrap_or_default();
        Ok(TemplateView {
            template_id: t.id.clone(),
            work_id: t.work_id.clone(),
            title: t.title.clone(),
            author: OwnerView {
                id: t.author.clone(),
                name,
            },
            preview: t.preview.clone(),
            width: t.width,
            height: t.height,
            prompt_template: t.prompt_template.clone(),
            slots: t.slots.clone(),
            negative_prompt: t.negative_prompt.clone(),
            model: t.model.clone(),
            model_name: t.model_name.clone(),
            steps: t.steps,
            cfg_scale: t.cfg_scale,
            sampler: t.sampler.clone(),
            uses: t.uses,
            create_at: t.create_at,
        })
    }

    /// A template `viewer` may see (while they may see its work).
    async fn visible(
        &self,
        square: &SquareService,
        viewer: Option<&str>,
        id: &str,
    ) -> Result<TemplateRow, ApiError> {
        let t = self
            .templates
            .get(&Key::of(id.trim()), &Key::empty())
            .await?
            .ok_or(ErrorCode::NotFound)?;
        square.visible_work(viewer, &t.work_id).await?;
        Ok(t)
    }

    /// `creativity/square/template/detail`.
    pub async fn detail(
        &self,
        square: &SquareService,
        viewer: Option<&str>,
        id: &str,
    ) -> Result<TemplateView, ApiError> {
        let t = self.visible(square, viewer, id).await?;
        self.view(&t).await
    }

    /// `creativity/square/template/list`: templates newest first, those
    /// the viewer may see.
    pub async fn list(
        &self,
        square: &SquareService,
        viewer: Option<&str>,
        limit: usize,
    ) -> Result<Vec<TemplateView>, ApiError> {
        let range = ScanRange {
            order: Order::Desc,
            ..ScanRange::all(200)
        };
        let page = self.by_time.scan(&Key::empty().i64(0), &range).await?;
        let mut out = Vec::new();
        for (ck, ()) in page.rows {
            let mut r = ck.reader();
            let (Some(at), Some(id)) = (r.i64(), r.str()) else {
                continue;
            };
            match self.visible(square, viewer, &id).await {
                Ok(t) if t.create_at == at => out.push(self.view(&t).await?),
                Ok(_) => {}
                Err(e) if e.code == ErrorCode::NotFound => {}
                Err(e) => return Err(e),
            }
            if out.len() >= limit.clamp(1, MAX_LIST) {
                break;
            }
        }
        Ok(out)
    }

    /// `creativity/square/template/generate/apply`: fills the slots and
    /// creates a text-to-image task with the template's parameters through
    /// the task service; answers the task id and the prompt.
    pub async fn apply(
        &self,
        square: &SquareService,
        tasks: &TaskService,
        who: &AccountRow,
        r: &ApplyTemplateRequest,
    ) -> Result<GenerationRow, ApiError> {
        let t = self.visible(square, Some(&who.id), &r.template_id).await?;
        let prompt = fill(&t.prompt_template, &t.slots, &r.inputs).map_err(bad)?;
        let n_iter = r.n_iter.unwrap_or(1);
        if !(1..=MAX_N_ITER).contains(&n_iter) {
            return Err(bad(format!("n_iter: 1 to {MAX_N_ITER}")));
        }
        let body = json!({
            "action": Action::TextToImage.code(),
            "art_model_ver_no": t.model,
            "source": "creativity_template",
            "meta": {
                "prompt": prompt,
                "negative_prompt": t.negative_prompt,
                "width": t.width,
                "height": t.height,
                "steps": t.steps,
                "cfg_scale": t.cfg_scale,
                "sampler_name": t.sampler,
                "n_iter": n_iter,
                "seed": -1,
            }
        });
        let req: CreateTaskRequest = serde_json::from_value(body).map_err(ApiError::internal)?;
        let requester = Requester::Account(Box::new(who.clone()));
        let task_id = tasks.create(&requester, &req, Action::TextToImage).await?;
        let now = now_millis();
        let row = GenerationRow {
            task_id: task_id.clone(),
            template_id: t.id.clone(),
            title: t.title.clone(),
            prompt,
            inputs: r.inputs.clone(),
            create_at: now,
        };
        self.generations
            .put(
                &Key::of(&who.id),
                &Key::empty().i64(now).str(&task_id),
                &row,
            )
            .await?;
        self.templates
            .update(&Key::of(&t.id), &Key::empty(), Some(t), |x| x.uses += 1)
            .await?;
        Ok(row)
    }

    /// `creativity/square/template/generate/history`: the caller's
    /// applications, newest first, with their tasks' status; `before` (ms)
    /// pages.
    pub async fn history(
        &self,
        tasks: &TaskService,
        who: &AccountRow,
        before: Option<i64>,
        limit: usize,
    ) -> Result<Vec<TemplateGeneration>, ApiError> {
        let range = ScanRange {
            to: match before {
                Some(b) => std::ops::Bound::Excluded(Key::empty().i64(b)),
                None => std::ops::Bound::Unbounded,
            },
            order: Order::Desc,
            ..ScanRange::all(limit.clamp(1, MAX_LIST) as u32)
        };
        let rows = self.generations.scan(&Key::of(&who.id), &range).await?.rows;
        let ids: Vec<String> = rows.iter().map(|(_, g)| g.task_id.clone()).collect();
        let requester = Requester::Account(Box::new(who.clone()));
        let views = tasks.batch(&requester, &ids).await?;
        Ok(rows
            .into_iter()
            .map(|(_, g)| TemplateGeneration {
                task: views.iter().find(|v| v.id == g.task_id).cloned(),
                task_id: g.task_id,
                template_id: g.template_id,
                title: g.title,
                prompt: g.prompt,
                inputs: g.inputs,
                create_at: g.create_at,
            })
            .collect())
    }
}
