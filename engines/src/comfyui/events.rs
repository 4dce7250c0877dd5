//! ComfyUI's WebSocket messages, decoded once into a closed enum, and the
//! progress bookkeeping built on them.

use serde::Deserialize;

/// A text message from `/ws`. Only what the adapter acts on is typed; the
/// rest (`status`, `executed`, `execution_cached`, `progress_state`, ...)
/// is `Other`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type", content = "data", rename_all = "snake_case")]
pub(crate) enum Event {
    /// A sampler step: `value` of `max`.
    Progress {
        value: u64,
        max: u64,
        #[serde(default)]
        prompt_id: Option<String>,
    },
    /// A node starts; `node: null` means the prompt is finished and its
    /// outputs are in `/history` (ComfyUI sends it after storing them).
    Executing {
        #[serde(default)]
        node: Option<String>,
        #[serde(default)]
        prompt_id: Option<String>,
    },
    ExecutionStart {
        #[serde(default)]
        prompt_id: Option<String>,
    },
    ExecutionError {
        #[serde(default)]
        prompt_id: Option<String>,
        #[serde(default)]
        node_id: Option<String>,
        #[serde(default)]
        node_type: Option<String>,
        #[serde(default)]
        exception_type: Option<String>,
        #[serde(default)]
        exception_message: Option<String>,
    },
    ExecutionInterrupted {
        #[serde(default)]
        prompt_id: Option<String>,
    },
    #[serde(other)]
    Other,
}

impl Event {
    /// Decodes a text frame; frames that are not JSON objects with a known
    /// shape are `Other` (a newer ComfyUI may add fields or types).
    pub(crate) fn parse(text: &str) -> Event {
        serde_json::from_str(text).unwrap_or(Event::Other)
    }

    /// Whether the event concerns `ours`. Events without a prompt id are
    /// taken as ours: ComfyUI sends execution events only to the socket of
    /// the client that queued the running prompt.
    pub(crate) fn is_for(&self, ours: &str) -> bool {
        let id = match self {
            Event::Progress { prompt_id, .. }
            | Event::Executing { prompt_id, .. }
            | Event::ExecutionStart { prompt_id }
            | Event::ExecutionError { prompt_id, .. }
            | Event::ExecutionInterrupted { prompt_id } => prompt_id,
            Event::Other => return false,
        };
        id.as_deref().is_none_or(|id| id == ours)
    }
}

/// Turns sampler steps into a percentage that never goes back (a workflow
/// with several samplers restarts `value` at each) and stays below 100
/// until the outputs are in hand.
#[derive(Debug, Default)]
pub(crate) struct Percent {
    last: u8,
}

impl Percent {
    /// The new percentage if it moved forward.
    pub(crate) fn step(&mut self, value: u64, max: u64) -> Option<u8> {
        if max == 0 {
            return None;
        }
        let p = (value.min(max).saturating_mul(100) / max).min(99);
        let p = u8::try_from(p).unwrap_or(99);
        (p > self.last).then(|| {
            self.last = p;
            p
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_the_messages_it_acts_on() {
        assert_eq!(
            Event::parse(
                r#"{"type":"progress","data":{"value":3,"max":20,"prompt_id":"p","node":"3"}}"#
            ),
            Event::Progress {
                value: 3,
                max: 20,
                prompt_id: Some("p".into())
            }
        );
        assert_eq!(
            Event::parse(r#"{"type":"executing","data":{"node":null,"prompt_id":"p"}}"#),
            Event::Executing {
                node: None,
                prompt_id: Some("p".into())
            }
        );
        let e = Event::parse(
            r#"{"type":"execution_error","data":{"prompt_id":"p","node_id":"3","node_type":"KSampler","exception_message":"OOM","exception_type":"RuntimeError","traceback":[]}}"#,
        );
        assert!(
            matches!(e, Event::ExecutionError { exception_message: Some(ref m), .. } if m == "OOM")
        );
        assert_eq!(
            Event::parse(
                r#"{"type":"status","data":{"status":{"exec_info":{"queue_remaining":0}},"sid":"x"}}"#
            ),
            Event::Other
        );
        assert_eq!(Event::parse("not json"), Event::Other);
    }

    #[test]
    fn other_prompts_are_not_ours() {
        let e = Event::parse(r#"{"type":"executing","data":{"node":null,"prompt_id":"theirs"}}"#);
        assert!(!e.is_for("ours"));
        assert!(Event::Executing {
            node: None,
            prompt_id: None
        }
        .is_for("ours"));
        assert!(!Event::Other.is_for("ours"));
    }

    #[test]
    fn percent_is_monotone_and_capped() {
        let mut p = Percent::default();
        assert_eq!(p.step(1, 4), Some(25));
        assert_eq!(p.step(4, 4), Some(99));
        assert_eq!(p.step(1, 4), None);
        assert_eq!(p.step(1, 0), None);
    }
}
