//! Questionnaire calls (issue 22 part 4; spec 3 §7): `app/questionnaire_survey`
//! (the surveys open for the caller, not answered yet; none for visitors),
//! `app/questionnaire_survey_submit`, and the operators'
//! `admin/survey/{create, edit, list, close, results, export}` (export:
//! `text/csv` as an attachment, POST or GET `?id=`). The service is `surveys`.

use super::api::{doc, Api};
use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse};
use protocol::character::Items;
use protocol::survey::question::SurveyView;
use protocol::survey::{SubmitRequest, SurveyDef, SurveyResults};
use serde::Deserialize;

use crate::accounts::now_millis;
use crate::auth::{optional_caller, Authed};
use crate::error::{ok, ApiResult};
use crate::state::AppState;

#[derive(utoipa::ToSchema, Debug, Deserialize)]
pub struct IdRequest {
    pub id: String,
}

#[derive(utoipa::ToSchema, Debug, Deserialize)]
#[schema(as = SurveysEditRequest)]
pub struct EditRequest {
    pub id: String,
    #[serde(flatten)]
    pub def: SurveyDef,
}

#[derive(utoipa::ToSchema, Debug, Deserialize)]
pub struct CloseRequest {
    pub id: String,
    /// `false` opens a closed survey again.
    #[serde(default = "yes")]
    pub closed: bool,
}

fn yes() -> bool {
    true
}

use super::require_operator as operator;

/// `app/questionnaire_survey`: the surveys open for the caller; `survey` the
/// first, or null.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct OpenSurveys {
    pub survey: Option<SurveyView>,
    pub items: Vec<SurveyView>,
}

/// `app/questionnaire_survey_submit`.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
#[schema(as = SurveySubmitted)]
pub struct Submitted {
    pub submitted: bool,
}

/// `POST /api/v1/app/questionnaire_survey`: `{items, survey}` (`survey`: the first, or null).
pub async fn open_for_me(req: HttpRequest, s: web::Data<AppState>) -> ApiResult {
    let items = match optional_caller(&req, &s).await? {
        Some(c) => {
            s.surveys
                .open_for(&c.account.id, c.account.is_vip(), now_millis())
                .await?
        }
        None => Vec::new(),
    };
    Ok(ok(OpenSurveys {
        survey: items.first().cloned(),
        items,
    }))
}

/// `POST /api/v1/app/questionnaire_survey_submit` `{survey_id, answers}`.
pub async fn submit(s: web::Data<AppState>, a: Authed, b: web::Json<SubmitRequest>) -> ApiResult {
    let account = &a.0.account;
    s.surveys
        .submit(&account.id, account.is_vip(), b.into_inner(), now_millis())
        .await?;
    Ok(ok(Submitted { submitted: true }))
}

pub async fn create(s: web::Data<AppState>, a: Authed, b: web::Json<SurveyDef>) -> ApiResult {
    operator(&s, &a)?;
    let view = s
        .surveys
        .create(&a.0.account.id, b.into_inner(), now_millis())
        .await?;
    Ok(ok(view))
}

pub async fn edit(s: web::Data<AppState>, a: Authed, b: web::Json<EditRequest>) -> ApiResult {
    operator(&s, &a)?;
    let b = b.into_inner();
    Ok(ok(s.surveys.edit(&b.id, b.def, now_millis()).await?))
}

pub async fn list(s: web::Data<AppState>, a: Authed) -> ApiResult {
    operator(&s, &a)?;
    Ok(ok(Items {
        items: s.surveys.list().await?,
    }))
}

pub async fn close(s: web::Data<AppState>, a: Authed, b: web::Json<CloseRequest>) -> ApiResult {
    operator(&s, &a)?;
    Ok(ok(s
        .surveys
        .set_closed(&b.id, b.closed, now_millis())
        .await?))
}

pub async fn results(s: web::Data<AppState>, a: Authed, b: web::Json<IdRequest>) -> ApiResult {
    operator(&s, &a)?;
    Ok(ok(s.surveys.results(&b.id).await?))
}

async fn export_csv(s: &AppState, a: &Authed, id: &str) -> ApiResult {
    operator(s, a)?;
    let (name, bytes) = s.surveys.export(id).await?;
    Ok(HttpResponse::Ok()
        .content_type("text/csv; charset=utf-8")
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"{name}\""),
        ))
        .body(bytes))
}

pub async fn export(s: web::Data<AppState>, a: Authed, b: web::Json<IdRequest>) -> ApiResult {
    export_csv(&s, &a, &b.id).await
}

pub async fn export_get(s: web::Data<AppState>, a: Authed, q: web::Query<IdRequest>) -> ApiResult {
    export_csv(&s, &a, &q.id).await
}

pub fn routes(api: &mut Api) {
    api.post(
        "/app/questionnaire_survey",
        open_for_me,
        doc("The questionnaires open to the caller").reply::<OpenSurveys>(),
    )
    .get(
        "/app/questionnaire_survey",
        open_for_me,
        doc("The questionnaires open to the caller").reply::<OpenSurveys>(),
    )
    .post(
        "/app/questionnaire_survey_submit",
        submit,
        doc("Answer a questionnaire")
            .body::<SubmitRequest>()
            .reply::<Submitted>(),
    )
    .post(
        "/admin/survey/create",
        create,
        doc("Operators: create a questionnaire")
            .body::<SurveyDef>()
            .reply::<SurveyView>(),
    )
    .post(
        "/admin/survey/edit",
        edit,
        doc("Operators: edit a questionnaire")
            .body::<EditRequest>()
            .reply::<SurveyView>(),
    )
    .post(
        "/admin/survey/list",
        list,
        doc("Operators: the questionnaires").reply::<Items<SurveyView>>(),
    )
    .post(
        "/admin/survey/close",
        close,
        doc("Operators: close a questionnaire")
            .body::<CloseRequest>()
            .reply::<SurveyView>(),
    )
    .post(
        "/admin/survey/results",
        results,
        doc("Operators: a questionnaire's results")
            .body::<IdRequest>()
            .reply::<SurveyResults>(),
    )
    .post(
        "/admin/survey/export",
        export,
        doc("Operators: a questionnaire's answers as CSV")
            .body::<IdRequest>()
            .raw("text/csv"),
    )
    .get(
        "/admin/survey/export",
        export_get,
        doc("Operators: a questionnaire's answers as CSV").raw("text/csv"),
    );
}
