//! A questionnaire as operators define it: questions of four kinds (single
//! choice, multiple choice, rating 1-5, free text with a length limit), each
//! optionally required; who sees it (audience) and when (open and close
//! dates, ms since the epoch). [`SurveyDef::check`] is every rule of a
//! definition.

use serde::{Deserialize, Serialize};

/// Limits of a definition.
pub const MAX_TITLE_CHARS: usize = 120;
pub const MAX_DESCRIPTION_CHARS: usize = 1000;
pub const MAX_QUESTIONS: usize = 30;
pub const MAX_QUESTION_CHARS: usize = 300;
pub const MAX_OPTIONS: usize = 20;
pub const MAX_LABEL_CHARS: usize = 120;
pub const MAX_ID_CHARS: usize = 40;
/// A text answer's limit when the question sets none, and the largest one a question may set.
pub const DEFAULT_TEXT_CHARS: u32 = 500;
pub const MAX_TEXT_CHARS: u32 = 2000;
/// The rating scale.
pub const RATING_MIN: u8 = 1;
pub const RATING_MAX: u8 = 5;

/// What a question asks for.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuestionKind {
    /// Exactly one of the options.
    Single,
    /// Between `min_choices` and `max_choices` distinct options.
    Multiple,
    /// A whole number from 1 to 5.
    Rating,
    /// Free text up to `max_chars` characters.
    Text,
}

impl QuestionKind {
    pub fn as_str(self) -> &'static str {
        match self {
            QuestionKind::Single => "single",
            QuestionKind::Multiple => "multiple",
            QuestionKind::Rating => "rating",
            QuestionKind::Text => "text",
        }
    }

    fn has_options(self) -> bool {
        matches!(self, QuestionKind::Single | QuestionKind::Multiple)
    }
}

/// One option of a choice question.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Choice {
    pub id: String,
    pub label: String,
}

/// One question.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Question {
    pub id: String,
    pub kind: QuestionKind,
    pub title: String,
    #[serde(default)]
    pub required: bool,
    /// The options of a choice question (none for rating and text).
    #[serde(default)]
    pub options: Vec<Choice>,
    /// Multiple choice: fewest options an answer must pick (0 counts as 1).
    #[serde(default)]
    pub min_choices: u32,
    /// Multiple choice: most options an answer may pick (0: all of them).
    #[serde(default)]
    pub max_choices: u32,
    /// Text: most characters of an answer (0: [`DEFAULT_TEXT_CHARS`]).
    #[serde(default)]
    pub max_chars: u32,
}

impl Question {
    /// The text limit in force.
    pub fn text_limit(&self) -> u32 {
        if self.max_chars == 0 {
            DEFAULT_TEXT_CHARS
        } else {
            self.max_chars
        }
    }

    /// The choice bounds in force (`(min, max)`, both at least 1).
    pub fn choice_bounds(&self) -> (usize, usize) {
        let n = self.options.len();
        match self.kind {
            QuestionKind::Multiple => {
                let min = (self.min_choices as usize).max(1);
                let max = if self.max_choices == 0 {
                    n
                } else {
                    self.max_choices as usize
                };
                (min, max)
            }
            _ => (1, 1),
        }
    }

    /// The option with this id.
    pub fn option(&self, id: &str) -> Option<&Choice> {
        self.options.iter().find(|o| o.id == id)
    }
}

/// Who is asked.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", schema(as = SurveyQuestionAudience))]
pub enum Audience {
    /// Every signed-in account.
    #[default]
    All,
    /// Accounts without a live membership.
    Free,
    /// Members only.
    Members,
}

impl Audience {
    /// Whether an account with (`member`) or without a membership is asked.
    pub fn includes(self, member: bool) -> bool {
        match self {
            Audience::All => true,
            Audience::Free => !member,
            Audience::Members => member,
        }
    }
}

/// A survey's definition (`admin/survey/create` and `edit`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", schema(as = SurveyQuestionSurveyDef))]
pub struct SurveyDef {
    pub title: String,
    #[serde(default)]
    pub description: String,
    pub questions: Vec<Question>,
    #[serde(default)]
    pub audience: Audience,
    /// Answers are taken from this time on (none: at once).
    #[serde(default)]
    pub opens_at: Option<i64>,
    /// Answers are taken until this time, excluded (none: until closed).
    #[serde(default)]
    pub closes_at: Option<i64>,
}

/// What is wrong with a definition, for the operator (`surveyInvalid`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SurveyDefError(pub String);

fn id_ok(s: &str) -> bool {
    !s.is_empty()
        && s.chars().count() <= MAX_ID_CHARS
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

fn text_ok(s: &str, max: usize) -> bool {
    !s.trim().is_empty() && s.chars().count() <= max && !s.chars().any(char::is_control)
}

fn err<T>(msg: impl Into<String>) -> Result<T, SurveyDefError> {
    Err(SurveyDefError(msg.into()))
}

impl SurveyDef {
    /// Every rule of a definition; the message says what is wrong.
    pub fn check(&self) -> Result<(), SurveyDefError> {
        if !text_ok(&self.title, MAX_TITLE_CHARS) {
            return err(format!("title: 1 to {MAX_TITLE_CHARS} characters"));
        }
        if self.description.chars().count() > MAX_DESCRIPTION_CHARS {
            return err(format!(
                "description: at most {MAX_DESCRIPTION_CHARS} characters"
            ));
        }
        if self.questions.is_empty() || self.questions.len() > MAX_QUESTIONS {
            return err(format!("1 to {MAX_QUESTIONS} questions"));
        }
        if let (Some(open), Some(close)) = (self.opens_at, self.closes_at) {
            if close <= open {
                return err("the close date must be after the open date");
            }
        }
        let mut ids: Vec<&str> = Vec::new();
        for (i, q) in self.questions.iter().enumerate() {
            let n = i + 1;
            if !id_ok(&q.id) {
                return err(format!(
                    "question {n}: id of 1 to {MAX_ID_CHARS} letters, digits, '-' or '_'"
                ));
            }
            if ids.contains(&q.id.as_str()) {
                return err(format!("question {n}: the id {:?} is used twice", q.id));
            }
            ids.push(&q.id);
            if !text_ok(&q.title, MAX_QUESTION_CHARS) {
                return err(format!(
                    "question {n}: text of 1 to {MAX_QUESTION_CHARS} characters"
                ));
            }
            check_question(n, q)?;
        }
        Ok(())
    }

    /// Whether answers are taken at `now` (ms), closing aside.
    pub fn open_at(&self, now: i64) -> bool {
        self.opens_at.is_none_or(|t| now >= t) && self.closes_at.is_none_or(|t| now < t)
    }

    pub fn question(&self, id: &str) -> Option<&Question> {
        self.questions.iter().find(|q| q.id == id)
    }
}

fn check_question(n: usize, q: &Question) -> Result<(), SurveyDefError> {
    if q.kind.has_options() {
        if q.options.len() < 2 || q.options.len() > MAX_OPTIONS {
            return err(format!("question {n}: 2 to {MAX_OPTIONS} options"));
        }
        let mut seen: Vec<&str> = Vec::new();
        for o in &q.options {
            if !id_ok(&o.id) {
                return err(format!(
                    "question {n}: option ids of 1 to {MAX_ID_CHARS} letters, digits, '-' or '_'"
                ));
            }
            if seen.contains(&o.id.as_str()) {
                return err(format!(
                    "question {n}: the option id {:?} is used twice",
                    o.id
                ));
            }
            seen.push(&o.id);
            if !text_ok(&o.label, MAX_LABEL_CHARS) {
                return err(format!(
                    "question {n}: option labels of 1 to {MAX_LABEL_CHARS} characters"
                ));
            }
        }
    } else if !q.options.is_empty() {
        return err(format!(
            "question {n}: a {} question has no options",
            q.kind.as_str()
        ));
    }
    if q.kind == QuestionKind::Multiple {
        let (min, max) = q.choice_bounds();
        if max > q.options.len() || min > max {
            return err(format!(
                "question {n}: choices between {min} and {max} do not fit {} options",
                q.options.len()
            ));
        }
    } else if q.min_choices != 0 || q.max_choices != 0 {
        return err(format!(
            "question {n}: only a multiple-choice question sets min and max choices"
        ));
    }
    if q.kind == QuestionKind::Text {
        if q.max_chars > MAX_TEXT_CHARS {
            return err(format!(
                "question {n}: a text answer has at most {MAX_TEXT_CHARS} characters"
            ));
        }
    } else if q.max_chars != 0 {
        return err(format!("question {n}: only a text question sets max_chars"));
    }
    Ok(())
}

/// A survey as the API shows it: its id, definition and state.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", schema(as = SurveyQuestionSurveyView))]
pub struct SurveyView {
    pub id: String,
    #[serde(flatten)]
    pub def: SurveyDef,
    /// Closed by an operator: listed for operators only, refuses answers.
    pub closed: bool,
    pub created_at: i64,
    pub updated_at: i64,
    /// Answers received (operators' views only; 0 for users).
    #[serde(default)]
    pub responses: u64,
}
