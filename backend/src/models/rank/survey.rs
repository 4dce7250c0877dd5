//! The ranking survey (`rank/push-surveys`, `rank/get-surveys`, and the
//! operators' `admin/rank/survey/upsert`): definitions in `rank_surveys`,
//! one answer per account and survey in `rank_survey_answers` (answering
//! again replaces it, by compare-and-set), live tallies in a counter table
//! moved with each answer that applies.

use infra::store::Key;
use protocol::models::survey::{OptionTally, PushSurveyRequest, SurveyDef, SurveyView, MAX_OPEN};
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};

use super::{scan_all, ModelRanks};
use crate::error::ApiError;

/// One account's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SurveyAnswerRow {
    pub choices: Vec<String>,
    pub comment: String,
    pub at: i64,
}

const BUCKET: i64 = 0;
/// The tally row counting answers.
const ANSWERS: &str = "";

impl ModelRanks {
    /// Operators define or change a survey.
    pub async fn upsert_survey(&self, def: &SurveyDef) -> Result<(), ApiError> {
        def.check()
            .map_err(|m| ApiError::with_msg(ErrorCode::InvalidParams, m))?;
        self.inner
            .surveys
            .put(&Key::empty().i64(BUCKET), &Key::of(&def.id), def)
            .await?;
        Ok(())
    }

    async fn tally(&self, survey: &str, choices: &[String], d: i64) -> Result<(), ApiError> {
        let pk = Key::of(survey);
        for c in choices {
            self.inner.tallies.add(&pk, &Key::of(c), d).await?;
        }
        self.inner.tallies.add(&pk, &Key::of(ANSWERS), d).await?;
        Ok(())
    }

    /// `rank/push-surveys`: the account's answer, checked against the
    /// survey; a second answer replaces the first (tallies follow).
    pub async fn push_survey(
        &self,
        account: &str,
        r: &PushSurveyRequest,
        now: i64,
    ) -> Result<SurveyView, ApiError> {
        let def = self
            .inner
            .surveys
            .get(&Key::empty().i64(BUCKET), &Key::of(r.survey_id.trim()))
            .await?
            .ok_or(ErrorCode::NotFound)?;
        let comment = r.comment.trim();
        let choices = def
            .check_answer(&r.choices, comment)
            .map_err(|m| ApiError::with_msg(ErrorCode::InvalidParams, m))?;
        let row = SurveyAnswerRow {
            choices,
            comment: comment.to_owned(),
            at: now,
        };
        let (pk, ck) = (Key::of(&def.id), Key::of(account));
        let t = &self.inner.answers;
        loop {
            match t.insert_if_absent(&pk, &ck, &row).await? {
                Ok(()) => {
                    self.tally(&def.id, &row.choices, 1).await?;
                    break;
                }
                Err(old) => {
                    if t.compare_and_set(&pk, &ck, &old, Some(&row)).await?.is_ok() {
                        self.tally(&def.id, &old.choices, -1).await?;
                        self.tally(&def.id, &row.choices, 1).await?;
                        break;
                    }
                }
            }
        }
        self.survey_view(&def, Some(account)).await
    }

    async fn survey_view(
        &self,
        def: &SurveyDef,
        viewer: Option<&str>,
    ) -> Result<SurveyView, ApiError> {
        let pk = Key::of(&def.id);
        let mine = match viewer {
            Some(v) => self.inner.answers.get(&pk, &Key::of(v)).await?,
            None => None,
        };
        let mut options = Vec::with_capacity(def.options.len());
        for o in &def.options {
            options.push(OptionTally {
                id: o.id.clone(),
                label: o.label.clone(),
                model_id: o.model_id.clone(),
                votes: self.inner.tallies.get(&pk, &Key::of(&o.id)).await?.max(0),
                chosen: mine.as_ref().is_some_and(|m| m.choices.contains(&o.id)),
            });
        }
        Ok(SurveyView {
            id: def.id.clone(),
            title: def.title.clone(),
            description: def.description.clone(),
            max_choices: def.max_choices,
            allow_comment: def.allow_comment,
            options,
            answers: self.inner.tallies.get(&pk, &Key::of(ANSWERS)).await?.max(0),
            answered: mine.is_some(),
            my_comment: mine.map(|m| m.comment).filter(|c| !c.is_empty()),
        })
    }

    /// `rank/get-surveys`: the open surveys with the caller's answers and
    /// the live tallies.
    pub async fn surveys(&self, viewer: Option<&str>) -> Result<Vec<SurveyView>, ApiError> {
        let mut defs: Vec<SurveyDef> =
            scan_all(&self.inner.surveys, &Key::empty().i64(BUCKET), 1000)
                .await?
                .into_iter()
                .map(|(_, d)| d)
                .filter(|d| d.open)
                .collect();
        defs.sort_by(|a, b| a.sort.cmp(&b.sort).then(a.id.cmp(&b.id)));
        let mut out = Vec::new();
        for d in defs.iter().take(MAX_OPEN) {
            out.push(self.survey_view(d, viewer).await?);
        }
        Ok(out)
    }

    /// Every survey definition, open or closed (at most 1,000).
    async fn all_surveys(&self) -> Result<Vec<SurveyDef>, ApiError> {
        Ok(
            scan_all(&self.inner.surveys, &Key::empty().i64(BUCKET), 1000)
                .await?
                .into_iter()
                .map(|(_, d)| d)
                .collect(),
        )
    }

    /// The account's ranking-survey answers (its data export):
    /// (survey id, title, answer).
    pub async fn survey_answers_of(
        &self,
        account: &str,
    ) -> Result<Vec<(String, String, SurveyAnswerRow)>, ApiError> {
        let mut out = Vec::new();
        for def in self.all_surveys().await? {
            if let Some(a) = self
                .inner
                .answers
                .get(&Key::of(&def.id), &Key::of(account))
                .await?
            {
                out.push((def.id, def.title, a));
            }
        }
        Ok(out)
    }

    /// Removes the account's answers from every ranking survey, tallies
    /// following (account deletion). Surveys are few, so each is asked
    /// directly; a removal is by compare-and-set, so running it again (a
    /// resumed sweep) never counts an answer out twice. Answers how many
    /// were removed.
    pub async fn forget_survey_answers(&self, account: &str) -> Result<u64, ApiError> {
        let mut removed = 0;
        let t = &self.inner.answers;
        for def in self.all_surveys().await? {
            let (pk, ck) = (Key::of(&def.id), Key::of(account));
            while let Some(old) = t.get(&pk, &ck).await? {
                if t.compare_and_set(&pk, &ck, &old, None).await?.is_ok() {
                    self.tally(&def.id, &old.choices, -1).await?;
                    removed += 1;
                    break;
                }
            }
        }
        Ok(removed)
    }
}
