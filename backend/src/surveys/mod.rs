//! Questionnaires (issue 22 part 4): operators create, edit, list, close
//! surveys and read their results and CSV export; users get the surveys
//! open for them that they have not answered (`app/questionnaire_survey`)
//! and answer each once (`questionnaire_survey_submit`).
//!
//! Storage: definitions in `survey_defs` (one partition, few rows), answers
//! in `survey_answers` (pk survey, ck account) written by insert-if-absent,
//! so one answer per account holds under concurrent submits on any number
//! of nodes; `survey_counts` counts them for the operators' list. Results
//! and the export scan the survey's answers (an operator's call, paged by
//! the store). Text answers go through the text filter (scene `comment`:
//! refusing entries refuse the answer, masking ones mask it).
//!
//! Every method takes `now` (ms) so open and close dates are tested with a
//! fixed clock. Editing a survey that has answers keeps them: answers to
//! removed questions or options are ignored by the results.

pub mod export;

use infra::store::{tables, Counters, DynStore, Key, ScanRange, Table};
use protocol::survey::question::SurveyView;
use protocol::survey::{
    tally, validate_answers, AnswerValue, SubmitRequest, SurveyDef, SurveyResults,
};
use protocol::textfilter::Scene;
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};

use crate::error::ApiError;
use crate::textfilter::TextFilterService;

/// Most surveys kept (the list is one partition read).
pub const MAX_SURVEYS: u32 = 500;
/// Answers read per page when tallying or exporting.
const PAGE: u32 = 500;

/// A stored survey.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SurveyRow {
    pub id: String,
    pub def: SurveyDef,
    pub closed: bool,
    pub created_at: i64,
    pub updated_at: i64,
    pub created_by: String,
}

/// One account's answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResponseRow {
    pub account: String,
    pub at: i64,
    pub answers: Vec<(String, AnswerValue)>,
}

#[derive(Clone)]
pub struct SurveyService {
    defs: Table<SurveyRow>,
    answers: Table<ResponseRow>,
    counts: Counters,
    filter: Option<TextFilterService>,
    store: DynStore,
}

fn all() -> Key {
    Key::of("all")
}

fn invalid(e: impl std::fmt::Display) -> ApiError {
    ApiError::with_msg(ErrorCode::SurveyInvalid, e.to_string())
}

impl SurveyService {
    pub fn new(store: DynStore, filter: Option<TextFilterService>) -> SurveyService {
        SurveyService {
            defs: Table::new(store.clone(), &tables::SURVEY_DEFS),
            answers: Table::new(store.clone(), &tables::SURVEY_ANSWERS),
            counts: Counters::new(store.clone(), &tables::SURVEY_COUNTS),
            filter,
            store,
        }
    }

    async fn row(&self, id: &str) -> Result<SurveyRow, ApiError> {
        if id.is_empty() || id.len() > 64 {
            return Err(ErrorCode::SurveyNotFound.into());
        }
        self.defs
            .get(&all(), &Key::of(id))
            .await?
            .ok_or_else(|| ErrorCode::SurveyNotFound.into())
    }

    async fn view(&self, row: SurveyRow, with_count: bool) -> Result<SurveyView, ApiError> {
        let responses = if with_count {
            u64::try_from(self.counts.get(&Key::of(&row.id), &Key::empty()).await?).unwrap_or(0)
        } else {
            0
        };
        Ok(SurveyView {
            id: row.id,
            def: row.def,
            closed: row.closed,
            created_at: row.created_at,
            updated_at: row.updated_at,
            responses,
        })
    }

    async fn rows(&self) -> Result<Vec<SurveyRow>, ApiError> {
        Ok(self
            .defs
            .scan(&all(), &ScanRange::all(MAX_SURVEYS))
            .await?
            .rows
            .into_iter()
            .map(|(_, r)| r)
            .collect())
    }

    /// `admin/survey/create`.
    pub async fn create(
        &self,
        operator: &str,
        def: SurveyDef,
        now: i64,
    ) -> Result<SurveyView, ApiError> {
        def.check().map_err(invalid)?;
        if self.rows().await?.len() >= MAX_SURVEYS as usize {
            return Err(ApiError::with_msg(
                ErrorCode::SurveyInvalid,
                format!("at most {MAX_SURVEYS} surveys; delete old ones first"),
            ));
        }
        let row = SurveyRow {
            id: uuid::Uuid::now_v7().simple().to_string(),
            def,
            closed: false,
            created_at: now,
            updated_at: now,
            created_by: operator.to_owned(),
        };
        if self
            .defs
            .insert_if_absent(&all(), &Key::of(&row.id), &row)
            .await?
            .is_err()
        {
            return Err(ApiError::internal("survey id collision"));
        }
        tracing::info!(survey = %row.id, operator, "survey created");
        self.view(row, true).await
    }

    /// `admin/survey/edit`: replaces the definition (answers are kept).
    pub async fn edit(&self, id: &str, def: SurveyDef, now: i64) -> Result<SurveyView, ApiError> {
        def.check().map_err(invalid)?;
        let current = self.row(id).await?;
        let updated = self
            .defs
            .update(&all(), &Key::of(id), Some(current), |r| {
                r.def = def.clone();
                r.updated_at = now;
            })
            .await?
            .ok_or(ErrorCode::SurveyNotFound)?;
        self.view(updated, true).await
    }

    /// `admin/survey/close` (`closed: false` opens it again).
    pub async fn set_closed(
        &self,
        id: &str,
        closed: bool,
        now: i64,
    ) -> Result<SurveyView, ApiError> {
        let current = self.row(id).await?;
        let updated = self
            .defs
            .update(&all(), &Key::of(id), Some(current), |r| {
                r.closed = closed;
                r.updated_at = now;
            })
            .await?
            .ok_or(ErrorCode::SurveyNotFound)?;
        self.view(updated, true).await
    }

    /// `admin/survey/list`: every survey, newest first, with answer counts.
    pub async fn list(&self) -> Result<Vec<SurveyView>, ApiError> {
        let mut rows = self.rows().await?;
        rows.sort_by(|a, b| b.created_at.cmp(&a.created_at).then(b.id.cmp(&a.id)));
        let mut out = Vec::with_capacity(rows.len());
        for r in rows {
            out.push(self.view(r, true).await?);
        }
        Ok(out)
    }

    /// `app/questionnaire_survey`: surveys open at `now` for this account
    /// (audience), not closed and not answered by it, oldest first.
    pub async fn open_for(
        &self,
        account: &str,
        member: bool,
        now: i64,
    ) -> Result<Vec<SurveyView>, ApiError> {
        let mut rows: Vec<SurveyRow> = self
            .rows()
            .await?
            .into_iter()
            .filter(|r| !r.closed && r.def.open_at(now) && r.def.audience.includes(member))
            .collect();
        rows.sort_by(|a, b| a.created_at.cmp(&b.created_at).then(a.id.cmp(&b.id)));
        let keys: Vec<(Key, Key)> = rows
            .iter()
            .map(|r| (Key::of(&r.id), Key::of(account)))
            .collect();
        let answered = self.answers.get_many(&keys).await?;
        let mut out = Vec::new();
        for (row, done) in rows.into_iter().zip(answered) {
            if done.is_none() {
                out.push(self.view(row, false).await?);
            }
        }
        Ok(out)
    }

    /// `app/questionnaire_survey_submit`: validates and stores the answer,
    /// once per account.
    pub async fn submit(
        &self,
        account: &str,
        member: bool,
        req: SubmitRequest,
        now: i64,
    ) -> Result<(), ApiError> {
        let row = self.row(&req.survey_id).await?;
        if !row.def.audience.includes(member) {
            // A survey this account is not asked answers like a missing one.
            return Err(ErrorCode::SurveyNotFound.into());
        }
        if row.closed || !row.def.open_at(now) {
            return Err(ErrorCode::SurveyClosed.into());
        }
        let mut answers = validate_answers(&row.def, &req.answers)
            .map_err(|e| ApiError::with_msg(e.code(), e.to_string()))?;
        if let Some(filter) = &self.filter {
            for (_, value) in answers.iter_mut() {
                if let AnswerValue::Text(t) = value {
                    filter.apply(Scene::Comment, t)?;
                }
            }
        }
        let response = ResponseRow {
            account: account.to_owned(),
            at: now,
            answers,
        };
        match self
            .answers
            .insert_if_absent(&Key::of(&row.id), &Key::of(account), &response)
            .await?
        {
            Ok(()) => {
                self.counts.add(&Key::of(&row.id), &Key::empty(), 1).await?;
                // Listed under the account, for the export and the deletion sweep.
                crate::accounts::owned::record(
                    &self.store,
                    account,
                    crate::accounts::owned::OwnedKind::SurveyAnswer,
                    now,
                    &row.id,
                    "",
                )
                .await?;
                Ok(())
            }
            Err(_) => Err(ErrorCode::SurveyAnswered.into()),
        }
    }

    /// The account's answer to a survey, with the survey's title (the
    /// data export); `None` when it has none (or the survey is gone).
    pub async fn answer_of(
        &self,
        id: &str,
        account: &str,
    ) -> Result<Option<(String, ResponseRow)>, ApiError> {
        let Some(def) = self.defs.get(&all(), &Key::of(id)).await? else {
            return Ok(None);
        };
        Ok(self
            .answers
            .get(&Key::of(id), &Key::of(account))
            .await?
            .map(|r| (def.def.title.clone(), r)))
    }

    /// Removes the account's answer to a survey (its deletion): the results
    /// are tallied from the answers, so they stay honest; the count of
    /// answers follows. The compare-and-set delete decides who decrements,
    /// so a repeat after a crash does not count it twice.
    pub async fn forget_answer(&self, id: &str, account: &str) -> Result<(), ApiError> {
        let (pk, ck) = (Key::of(id), Key::of(account));
        let Some(row) = self.answers.get(&pk, &ck).await? else {
            return Ok(());
        };
        if self
            .answers
            .compare_and_set(&pk, &ck, &row, None)
            .await?
            .is_ok()
        {
            self.counts.add(&pk, &Key::empty(), -1).await?;
        }
        Ok(())
    }

    /// Every answer of a survey, in account-id order, page by page.
    pub async fn for_each_response(
        &self,
        id: &str,
        mut f: impl FnMut(ResponseRow) -> Result<(), ApiError>,
    ) -> Result<(), ApiError> {
        let pk = Key::of(id);
        let mut paging = None;
        loop {
            let page = self
                .answers
                .scan(&pk, &ScanRange::all(PAGE).after(paging))
                .await?;
            for (_, r) in page.rows {
                f(r)?;
            }
            match page.paging {
                Some(p) => paging = Some(p),
                None => return Ok(()),
            }
        }
    }

    /// `admin/survey/results`.
    pub async fn results(&self, id: &str) -> Result<SurveyResults, ApiError> {
        let row = self.row(id).await?;
        let mut responses: Vec<Vec<(String, AnswerValue)>> = Vec::new();
        self.for_each_response(id, |r| {
            responses.push(r.answers);
            Ok(())
        })
        .await?;
        Ok(tally(
            &row.id,
            &row.def,
            responses.iter().map(Vec::as_slice),
        ))
    }

    /// `admin/survey/export`: the CSV text and a file name.
    pub async fn export(&self, id: &str) -> Result<(String, Vec<u8>), ApiError> {
        let row = self.row(id).await?;
        let mut writer = export::CsvExport::new(&row.def).map_err(ApiError::internal)?;
        self.for_each_response(id, |r| writer.push(&r).map_err(ApiError::internal))
            .await?;
        let bytes = writer.finish().map_err(ApiError::internal)?;
        Ok((format!("survey-{}.csv", row.id), bytes))
    }
}
