//! The ranking survey (spec 3 §7 `rank/push-surveys`, `rank/get-surveys`):
//! operators define surveys (a question and its options, single or multiple
//! choice, optionally a short comment); each user answers a survey once
//! (answering again replaces the answer); everyone sees the live tallies.
//! The definitions' and answers' rules are here, table-tested.

use serde::{Deserialize, Serialize};

/// Limits of a survey definition and of an answer.
pub const MAX_OPTIONS: usize = 20;
pub const MAX_ID_CHARS: usize = 40;
pub const MAX_TITLE_CHARS: usize = 120;
pub const MAX_LABEL_CHARS: usize = 80;
pub const MAX_COMMENT_CHARS: usize = 500;
/// Open surveys `get-surveys` answers at most.
pub const MAX_OPEN: usize = 20;

/// One option of a survey.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SurveyOption {
    pub id: String,
    pub label: String,
    /// A model this option stands for (a "which model is best" survey).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_id: Option<String>,
}

/// A survey as operators define it (`admin/rank/survey/upsert`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", schema(as = ModelsSurveySurveyDef))]
pub struct SurveyDef {
    pub id: String,
    pub title: String,
    #[serde(default)]
    pub description: String,
    pub options: Vec<SurveyOption>,
    /// Most options one answer may choose (1: single choice).
    #[serde(default = "one")]
    pub max_choices: u32,
    /// Whether an answer may carry a comment.
    #[serde(default)]
    pub allow_comment: bool,
    /// Closed surveys are not listed and refuse answers.
    #[serde(default = "yes")]
    pub open: bool,
    /// Listing order (smaller first).
    #[serde(default)]
    pub sort: i64,
}

fn one() -> u32 {
    1
}

fn yes() -> bool {
    true
}

fn id_ok(s: &str) -> bool {
    !s.is_empty()
        && s.chars().count() <= MAX_ID_CHARS
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

fn text_ok(s: &str, max: usize) -> bool {
    !s.trim().is_empty() && s.chars().count() <= max
}

impl SurveyDef {
    /// Checks a definition; the message says what is wrong.
    pub fn check(&self) -> Result<(), String> {
        if !id_ok(&self.id) {
            return Err(format!(
                "survey id: 1 to {MAX_ID_CHARS} letters, digits, '-' or '_'"
            ));
        }
        if !text_ok(&self.title, MAX_TITLE_CHARS) {
            return Err(format!("title: 1 to {MAX_TITLE_CHARS} characters"));
        }
        if self.description.chars().count() > MAX_COMMENT_CHARS {
            return Err(format!(
                "description: at most {MAX_COMMENT_CHARS} characters"
            ));
        }
        if self.options.len() < 2 || self.options.len() > MAX_OPTIONS {
            return Err(format!("a survey has 2 to {MAX_OPTIONS} options"));
        }
        let mut seen = std::collections::HashSet::new();
        for o in &self.options {
            if !id_ok(&o.id) || !text_ok(&o.label, MAX_LABEL_CHARS) {
                return Err(format!(
                    "option {:?}: an id like the survey's and a label of 1 to {MAX_LABEL_CHARS} characters",
                    o.id
                ));
            }
            if !seen.insert(o.id.as_str()) {
                return Err(format!("option {:?} appears twice", o.id));
            }
        }
        if self.max_choices == 0 || self.max_choices as usize > self.options.len() {
            return Err("max_choices: from 1 to the number of options".into());
        }
        Ok(())
    }

    /// Checks an answer against the survey: the chosen option ids (each
    /// once, at least one, at most `max_choices`) and the comment. Answers
    /// the options in the survey's order.
    pub fn check_answer(&self, choices: &[String], comment: &str) -> Result<Vec<String>, String> {
        if !self.open {
            return Err("this survey is closed".into());
        }
        if choices.is_empty() {
            return Err("choose at least one option".into());
        }
        if choices.len() > self.max_choices as usize {
            return Err(format!("choose at most {} option(s)", self.max_choices));
        }
        let mut seen = std::collections::HashSet::new();
        for c in choices {
            if !self.options.iter().any(|o| &o.id == c) {
                return Err(format!("{c:?} is not an option of this survey"));
            }
            if !seen.insert(c.as_str()) {
                return Err(format!("{c:?} is chosen twice"));
            }
        }
        if !comment.is_empty() && !self.allow_comment {
            return Err("this survey takes no comment".into());
        }
        if comment.chars().count() > MAX_COMMENT_CHARS {
            return Err(format!("comment: at most {MAX_COMMENT_CHARS} characters"));
        }
        Ok(self
            .options
            .iter()
            .filter(|o| seen.contains(o.id.as_str()))
            .map(|o| o.id.clone())
            .collect())
    }
}

/// `rank/push-surveys`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct PushSurveyRequest {
    pub survey_id: String,
    /// The chosen option ids.
    #[serde(default)]
    pub choices: Vec<String>,
    #[serde(default)]
    pub comment: String,
}

/// An option with its live tally.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OptionTally {
    pub id: String,
    pub label: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_id: Option<String>,
    pub votes: i64,
    /// Whether the caller chose it.
    pub chosen: bool,
}

/// A survey as `get-surveys` answers it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", schema(as = ModelsSurveySurveyView))]
pub struct SurveyView {
    pub id: String,
    pub title: String,
    pub description: String,
    pub max_choices: u32,
    pub allow_comment: bool,
    pub options: Vec<OptionTally>,
    /// People who answered.
    pub answers: i64,
    /// Whether the caller answered, and the comment they left.
    pub answered: bool,
    pub my_comment: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn def() -> SurveyDef {
        SurveyDef {
            id: "best-lora".into(),
            title: "Best LoRA of the month".into(),
            description: String::new(),
            options: ["a", "b", "c"]
                .iter()
                .map(|id| SurveyOption {
                    id: (*id).into(),
                    label: format!("Option {id}"),
                    model_id: None,
                })
                .collect(),
            max_choices: 2,
            allow_comment: false,
            open: true,
            sort: 0,
        }
    }

    fn v(xs: &[&str]) -> Vec<String> {
        xs.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn definitions() {
        assert!(def().check().is_ok());
        let mut d = def();
        d.id = "has space".into();
        assert!(d.check().is_err());
        let mut d = def();
        d.options.truncate(1);
        assert!(d.check().is_err());
        let mut d = def();
        d.options[1].id = "a".into();
        assert!(d.check().unwrap_err().contains("twice"));
        let mut d = def();
        d.max_choices = 4;
        assert!(d.check().is_err());
        let mut d = def();
        d.max_choices = 0;
        assert!(d.check().is_err());
        let mut d = def();
        d.title = " ".into();
        assert!(d.check().is_err());
    }

    #[test]
    fn answers() {
        let d = def();
        for (choices, comment, want) in [
            (v(&["a"]), "", Ok(v(&["a"]))),
            (v(&["c", "a"]), "", Ok(v(&["a", "c"]))),
            (v(&[]), "", Err("at least")),
            (v(&["a", "b", "c"]), "", Err("at most")),
            (v(&["z"]), "", Err("not an option")),
            (v(&["a", "a"]), "", Err("twice")),
            (v(&["a"]), "nice", Err("no comment")),
        ] {
            match (d.check_answer(&choices, comment), want) {
                (Ok(got), Ok(w)) => assert_eq!(got, w),
                (Err(e), Err(w)) => assert!(e.contains(w), "{e} / {w}"),
                (got, w) => panic!("{choices:?}: {got:?} vs {w:?}"),
            }
        }
        let mut d = def();
        d.allow_comment = true;
        assert!(d.check_answer(&v(&["b"]), "nice").is_ok());
        assert!(d.check_answer(&v(&["b"]), &"x".repeat(501)).is_err());
        d.open = false;
        assert!(d
            .check_answer(&v(&["b"]), "")
            .unwrap_err()
            .contains("closed"));
    }
}
