//! Questionnaires (issue 22 part 4; spec 3 §7 `app/questionnaire_survey`,
//! `questionnaire_survey_submit`): the wire types of an operator-made survey
//! (`question.rs`: questions of four kinds, required flags, audience, open and
//! close dates, and the definition's checks), the answers and their
//! validation against the questions (`answer.rs`), and the results
//! (`results.rs`: counts per option, rating averages). Pure and
//! table-tested (`tests.rs`); the backend's `surveys` service stores them.
//!
//! The ranking survey of the leaderboard (`rank/push-surveys`,
//! `rank/get-surveys`) is the separate, simpler `models::survey`.

pub mod answer;
pub mod question;
pub mod results;

pub use answer::{validate_answers, Answer, AnswerError, AnswerValue, SubmitRequest};
pub use question::{Audience, Choice, Question, QuestionKind, SurveyDef, SurveyDefError};
pub use results::{tally, QuestionResult, SurveyResults};

#[cfg(test)]
mod tests;
