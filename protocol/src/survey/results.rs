//! A survey's results from its stored answers: per question how many
//! answered, counts per option (choice questions), the count per rating and
//! the average (rating), and the text answers (newest first, capped for the
//! screen; the CSV export has them all).

use serde::{Deserialize, Serialize};

use super::answer::AnswerValue;
use super::question::{QuestionKind, SurveyDef, RATING_MAX};

/// Text answers the results view carries per question.
pub const MAX_TEXTS_SHOWN: usize = 50;

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OptionCount {
    pub id: String,
    pub label: String,
    pub count: u64,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QuestionResult {
    pub id: String,
    pub kind: QuestionKind,
    pub title: String,
    /// Responses that answered this question.
    pub answered: u64,
    /// Choice questions: every option with its count, in the options' order.
    pub options: Vec<OptionCount>,
    /// Rating: how many gave 1, 2, 3, 4 and 5.
    pub rating_counts: Vec<u64>,
    /// Rating: the mean of the ratings given (none when no one rated).
    pub rating_average: Option<f64>,
    /// Text: up to [`MAX_TEXTS_SHOWN`] answers, in the order given.
    pub texts: Vec<String>,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SurveyResults {
    pub survey_id: String,
    pub title: String,
    pub responses: u64,
    pub questions: Vec<QuestionResult>,
}

/// Tallies `responses` (each one account's normalised answers) for `def`.
/// Answers to questions the definition no longer has are ignored; so are
/// choices of options it no longer has.
pub fn tally<'a>(
    survey_id: &str,
    def: &SurveyDef,
    responses: impl IntoIterator<Item = &'a [(String, AnswerValue)]>,
) -> SurveyResults {
    let mut questions: Vec<QuestionResult> = def
        .questions
        .iter()
        .map(|q| QuestionResult {
            id: q.id.clone(),
            kind: q.kind,
            title: q.title.clone(),
            answered: 0,
            options: q
                .options
                .iter()
                .map(|o| OptionCount {
                    id: o.id.clone(),
                    label: o.label.clone(),
                    count: 0,
                })
                .collect(),
            rating_counts: if q.kind == QuestionKind::Rating {
                vec![0; usize::from(RATING_MAX)]
            } else {
                Vec::new()
            },
            rating_average: None,
            texts: Vec::new(),
        })
        .collect();
    let mut sums = vec![0u64; questions.len()];
    let mut count = 0u64;
    for response in responses {
        count += 1;
        for (qid, value) in response {
            let Some(i) = questions.iter().position(|q| q.id == *qid) else {
                continue;
            };
            let (Some(q), Some(sum)) = (questions.get_mut(i), sums.get_mut(i)) else {
                continue;
            };
            match (q.kind, value) {
                (QuestionKind::Single | QuestionKind::Multiple, AnswerValue::Choices(ids)) => {
                    q.answered += 1;
                    for o in q.options.iter_mut().filter(|o| ids.contains(&o.id)) {
                        o.count += 1;
                    }
                }
                (QuestionKind::Rating, AnswerValue::Rating(r)) => {
                    if let Some(c) = q.rating_counts.get_mut(usize::from(*r).wrapping_sub(1)) {
                        q.answered += 1;
                        *c += 1;
                        *sum += u64::from(*r);
                    }
                }
                (QuestionKind::Text, AnswerValue::Text(t)) => {
                    q.answered += 1;
                    if q.texts.len() < MAX_TEXTS_SHOWN {
                        q.texts.push(t.clone());
                    }
                }
                _ => {}
            }
        }
    }
    for (q, sum) in questions.iter_mut().zip(sums) {
        if q.kind == QuestionKind::Rating && q.answered > 0 {
            q.rating_average = Some(sum as f64 / q.answered as f64);
        }
    }
    SurveyResults {
        survey_id: survey_id.to_owned(),
        title: def.title.clone(),
        responses: count,
        questions,
    }
}
