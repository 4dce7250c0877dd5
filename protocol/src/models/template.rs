//! Creativity templates (spec 3 §7 Creativity: `creativity/square/template/
//! {detail, generate/apply, generate/history}`): a published square
//! picture's generation parameters made into a reusable recipe. Its author
//! marks words of the prompt as slots; the prompt keeps `{key}` where each
//! slot was; whoever applies the template fills the slots (an empty one
//! keeps the author's words) and gets a normal generation task with the
//! same model, size, steps, guidance and sampler. The rules of slots and
//! filling are here, table-tested.

use serde::{Deserialize, Serialize};

/// Slots per template.
pub const MAX_SLOTS: usize = 6;
pub const MAX_KEY_CHARS: usize = 24;
pub const MAX_LABEL_CHARS: usize = 40;
/// Longest text a user puts in one slot.
pub const MAX_INPUT_CHARS: usize = 200;
/// Pictures one apply asks for at most (the task rules cap it further).
pub const MAX_N_ITER: i64 = 4;

/// A slot as the author marks it: the words of the prompt it replaces.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlotSpec {
    pub key: String,
    #[serde(default)]
    pub label: String,
    /// Words of the work's prompt (their first free occurrence becomes `{key}`).
    pub text: String,
}

/// A template's slot.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", schema(as = ModelsTemplateSlot))]
pub struct Slot {
    pub key: String,
    pub label: String,
    /// The author's words, used when the slot is left empty.
    pub default: String,
}

/// `creativity/template/create`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct CreateTemplateRequest {
    pub work_id: String,
    #[serde(default)]
    pub slots: Vec<SlotSpec>,
    /// Which picture's parameters (default the first).
    #[serde(default)]
    pub index: Option<usize>,
    #[serde(default)]
    pub title: Option<String>,
}

/// `creativity/square/template/generate/apply`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct ApplyTemplateRequest {
    pub template_id: String,
    #[serde(default)]
    pub inputs: std::collections::BTreeMap<String, String>,
    #[serde(default)]
    pub n_iter: Option<i64>,
}

fn key_ok(k: &str) -> bool {
    !k.is_empty()
        && k.chars().count() <= MAX_KEY_CHARS
        && k.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// Byte ranges of the `{key}` placeholders of `slots` in `template`.
fn placeholder_spans(template: &str, slots: &[Slot]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for s in slots {
        let ph = format!("{{{}}}", s.key);
        for (i, _) in template.match_indices(&ph) {
            out.push((i, i + ph.len()));
        }
    }
    out
}

/// Makes the prompt template and slots from a work's prompt and the
/// author's marks. Errors say what is wrong.
pub fn make_template(prompt: &str, specs: &[SlotSpec]) -> Result<(String, Vec<Slot>), String> {
    if specs.is_empty() || specs.len() > MAX_SLOTS {
        return Err(format!("a template has 1 to {MAX_SLOTS} slots"));
    }
    let mut template = prompt.to_owned();
    let mut slots: Vec<Slot> = Vec::new();
    for s in specs {
        if !key_ok(&s.key) {
            return Err(format!(
                "slot key {:?}: 1 to {MAX_KEY_CHARS} of a-z, 0-9, '_'",
                s.key
            ));
        }
        if slots.iter().any(|x| x.key == s.key) {
            return Err(format!("slot key {:?} appears twice", s.key));
        }
        let label = if s.label.trim().is_empty() {
            s.key.replace('_', " ")
        } else {
            s.label.trim().to_owned()
        };
        if label.chars().count() > MAX_LABEL_CHARS {
            return Err(format!("slot label: at most {MAX_LABEL_CHARS} characters"));
        }
        let text = s.text.trim();
        if text.is_empty() {
            return Err(format!("slot {:?}: the words it replaces are empty", s.key));
        }
        let taken = placeholder_spans(&template, &slots);
        let at = template.match_indices(text).map(|(i, _)| i).find(|&i| {
            let end = i + text.len();
            !taken.iter().any(|&(a, b)| i < b && end > a)
        });
        let Some(at) = at else {
            return Err(format!("slot {:?}: {text:?} is not in the prompt", s.key));
        };
        template.replace_range(at..at + text.len(), &format!("{{{}}}", s.key));
        slots.push(Slot {
            key: s.key.clone(),
            label,
            default: text.to_owned(),
        });
    }
    Ok((template, slots))
}

/// Fills a template: each slot's input (trimmed, control characters
/// removed; empty keeps the default). An input for no slot, or a too long
/// one, is refused.
pub fn fill(
    template: &str,
    slots: &[Slot],
    inputs: &std::collections::BTreeMap<String, String>,
) -> Result<String, String> {
    if let Some(k) = inputs.keys().find(|k| !slots.iter().any(|s| &s.key == *k)) {
        return Err(format!("{k:?} is not a slot of this template"));
    }
    let mut values = Vec::with_capacity(slots.len());
    for s in slots {
        let raw = inputs.get(&s.key).map(String::as_str).unwrap_or("");
        let clean: String = raw
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        let clean = clean.trim();
        if clean.chars().count() > MAX_INPUT_CHARS {
            return Err(format!(
                "slot {:?}: at most {MAX_INPUT_CHARS} characters",
                s.key
            ));
        }
        let v = if clean.is_empty() { &s.default } else { clean };
        values.push((format!("{{{}}}", s.key), v.to_owned()));
    }
    // One pass left to right, so a filled value is never read as a placeholder.
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    'outer: while !rest.is_empty() {
        for (ph, v) in &values {
            if let Some(tail) = rest.strip_prefix(ph.as_str()) {
                out.push_str(v);
                rest = tail;
                continue 'outer;
            }
        }
        let mut chars = rest.chars();
        if let Some(c) = chars.next() {
            out.push(c);
        }
        rest = chars.as_str();
    }
    Ok(out)
}

/// A template as `detail` answers it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TemplateView {
    pub template_id: String,
    pub work_id: String,
    pub title: String,
    pub author: crate::character::OwnerView,
    /// The preview: the work's picture the parameters came from.
    pub preview: Option<String>,
    pub width: u32,
    pub height: u32,
    /// The prompt with `{key}` where the slots are.
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

/// One of the caller's template generations.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TemplateGeneration {
    pub task_id: String,
    pub template_id: String,
    pub title: String,
    pub prompt: String,
    pub inputs: std::collections::BTreeMap<String, String>,
    pub create_at: i64,
    /// The task as `task/progress` answers it (`None` once it was deleted).
    pub task: Option<crate::task::TaskView>,
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn spec(key: &str, text: &str) -> SlotSpec {
        SlotSpec {
            key: key.into(),
            label: String::new(),
            text: text.into(),
        }
    }

    #[test]
    fn making() {
        let p = "a red fox in a snowy forest, oil painting";
        let (t, s) = make_template(
            p,
            &[spec("animal", "red fox"), spec("place", "snowy forest")],
        )
        .unwrap();
        assert_eq!(t, "a {animal} in a {place}, oil painting");
        assert_eq!(s[0].default, "red fox");
        assert_eq!(s[1].label, "place");
        for (specs, want) in [
            (vec![], "1 to"),
            (vec![spec("Animal", "fox")], "slot key"),
            (vec![spec("a", "fox"), spec("a", "forest")], "twice"),
            (vec![spec("a", "wolf")], "not in the prompt"),
            (vec![spec("a", " ")], "empty"),
        ] {
            let e = make_template(p, &specs).unwrap_err();
            assert!(e.contains(want), "{e}");
        }
        // A second slot never matches inside the first one's placeholder.
        let (t, _) = make_template("cat and cat", &[spec("cat", "cat"), spec("b", "cat")]).unwrap();
        assert_eq!(t, "{cat} and {b}");
        assert!(make_template("one cat", &[spec("a", "cat"), spec("b", "a")]).is_err());
    }

    #[test]
    fn filling() {
        let (t, s) = make_template("a red fox in snow", &[spec("animal", "red fox")]).unwrap();
        let mut inputs = BTreeMap::new();
        assert_eq!(fill(&t, &s, &inputs).unwrap(), "a red fox in snow");
        inputs.insert("animal".into(), "  blue\nwhale ".into());
        assert_eq!(fill(&t, &s, &inputs).unwrap(), "a blue whale in snow");
        // A value that looks like a placeholder stays text.
        inputs.insert("animal".into(), "{animal}".into());
        assert_eq!(fill(&t, &s, &inputs).unwrap(), "a {animal} in snow");
        inputs.insert("animal".into(), "x".repeat(201));
        assert!(fill(&t, &s, &inputs).unwrap_err().contains("at most"));
        let mut other = BTreeMap::new();
        other.insert("colour".into(), "green".into());
        assert!(fill(&t, &s, &other).unwrap_err().contains("not a slot"));
    }
}
