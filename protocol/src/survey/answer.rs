//! Answers to a survey and their validation against its questions: every
//! question answered at most once and known, required ones answered,
//! choices among the options and within the question's bounds, ratings from
//! 1 to 5, texts within their limit and without control characters. An
//! optional question left empty is dropped. The result is the normalised
//! answer list in the survey's question order, what the backend stores.

use serde::{Deserialize, Serialize};

use super::question::{QuestionKind, SurveyDef, RATING_MAX, RATING_MIN};
use crate::ErrorCode;

/// `app/questionnaire_survey_submit`'s body.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubmitRequest {
    #[serde(alias = "id")]
    pub survey_id: String,
    #[serde(default)]
    pub answers: Vec<Answer>,
}

/// One answer as the client sends it: the field of the question's kind.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answer {
    pub question_id: String,
    /// Single and multiple choice: option ids.
    #[serde(default)]
    pub choices: Vec<String>,
    /// Rating: 1 to 5.
    #[serde(default)]
    pub rating: Option<i64>,
    /// Text.
    #[serde(default)]
    pub text: Option<String>,
}

/// A validated answer, as stored.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerValue {
    Choices(Vec<String>),
    Rating(u8),
    Text(String),
}

/// Why answers were refused, with the question it is about.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnswerError {
    /// A required question without an answer.
    #[error("question {0}: an answer is required")]
    Missing(String),
    /// A question the survey does not have, or answered twice.
    #[error("question {0}: {1}")]
    Invalid(String, String),
    /// A text answer over the question's limit.
    #[error("question {0}: at most {1} characters")]
    TooLong(String, u32),
}

impl AnswerError {
    pub fn code(&self) -> ErrorCode {
        match self {
            AnswerError::Missing(_) => ErrorCode::SurveyAnswerMissing,
            AnswerError::Invalid(..) => ErrorCode::SurveyAnswerInvalid,
            AnswerError::TooLong(..) => ErrorCode::SurveyTextTooLong,
        }
    }

    pub fn question_id(&self) -> &str {
        match self {
            AnswerError::Missing(q) | AnswerError::Invalid(q, _) | AnswerError::TooLong(q, _) => q,
        }
    }
}

fn invalid(q: &str, why: impl Into<String>) -> AnswerError {
    AnswerError::Invalid(q.to_owned(), why.into())
}

/// Whether an answer carries nothing.
fn is_empty(a: &Answer) -> bool {
    a.choices.is_empty()
        && a.rating.is_none()
        && a.text.as_deref().is_none_or(|t| t.trim().is_empty())
}

/// Validates `answers` against `def`; answers the normalised list in question order.
pub fn validate_answers(
    def: &SurveyDef,
    answers: &[Answer],
) -> Result<Vec<(String, AnswerValue)>, AnswerError> {
    for (i, a) in answers.iter().enumerate() {
        if def.question(&a.question_id).is_none() {
            return Err(invalid(&a.question_id, "no such question in this survey"));
        }
        if answers
            .iter()
            .take(i)
            .any(|b| b.question_id == a.question_id)
        {
            return Err(invalid(&a.question_id, "answered twice"));
        }
    }
    let mut out = Vec::new();
    for q in &def.questions {
        let given = answers
            .iter()
            .find(|a| a.question_id == q.id)
            .filter(|a| !is_empty(a));
        let Some(a) = given else {
            if q.required {
                return Err(AnswerError::Missing(q.id.clone()));
            }
            continue;
        };
        let value = match q.kind {
            QuestionKind::Single | QuestionKind::Multiple => {
                if a.rating.is_some() || a.text.is_some() {
                    return Err(invalid(&q.id, "a choice question takes choices only"));
                }
                let mut picked: Vec<String> = Vec::new();
                for c in &a.choices {
                    if q.option(c).is_none() {
                        return Err(invalid(&q.id, format!("no option {c:?}")));
                    }
                    if picked.contains(c) {
                        return Err(invalid(&q.id, format!("option {c:?} chosen twice")));
                    }
                    picked.push(c.clone());
                }
                let (min, max) = q.choice_bounds();
                if picked.len() < min || picked.len() > max {
                    return Err(invalid(
                        &q.id,
                        if min == max {
                            format!("choose exactly {min}")
                        } else {
                            format!("choose {min} to {max}")
                        },
                    ));
                }
                // Stored in the options' order, whatever the client's.
                let ordered = q
                    .options
                    .iter()
                    .filter(|o| picked.contains(&o.id))
                    .map(|o| o.id.clone())
                    .collect();
                AnswerValue::Choices(ordered)
            }
            QuestionKind::Rating => {
                if !a.choices.is_empty() || a.text.is_some() {
                    return Err(invalid(&q.id, "a rating question takes a rating only"));
                }
                match a.rating {
                    Some(r) if (i64::from(RATING_MIN)..=i64::from(RATING_MAX)).contains(&r) => {
                        AnswerValue::Rating(u8::try_from(r).unwrap_or(RATING_MIN))
                    }
                    _ => {
                        return Err(invalid(
                            &q.id,
                            format!("a rating from {RATING_MIN} to {RATING_MAX}"),
                        ))
                    }
                }
            }
            QuestionKind::Text => {
                if !a.choices.is_empty() || a.rating.is_some() {
                    return Err(invalid(&q.id, "a text question takes a text only"));
                }
                let text = a.text.as_deref().unwrap_or_default().trim();
                let limit = q.text_limit();
                if text.chars().count() > limit as usize {
                    return Err(AnswerError::TooLong(q.id.clone(), limit));
                }
                if text
                    .chars()
                    .any(|c| c.is_control() && !matches!(c, '\n' | '\t' | '\r'))
                {
                    return Err(invalid(&q.id, "control characters are not allowed"));
                }
                AnswerValue::Text(text.replace("\r\n", "\n"))
            }
        };
        out.push((q.id.clone(), value));
    }
    Ok(out)
}
