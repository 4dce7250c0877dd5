//! One agent turn: `POST /api/stream/task/gen-agent/conv` stores the user's
//! message(s), then streams the answer as Server-Sent Events
//! (`data: {status:{code:10000}, data:{conv_id, msg_id, user_msg_id, seg_id,
//! delta, done}}`) and stores it when done (or, partial, when the client
//! goes away: state `cancelled`).
//!
//! The answer is one short sentence followed by one proposed image prompt in
//! a `"""` block. Small models do not follow formatting instructions
//! reliably, so the model is asked two separate things — the sentence, then
//! the bare prompt (the polish instruction, see `crate::polish`) — and the
//! SERVER writes the markers: the sentence's deltas, `\n"""`, the prompt's
//! deltas, `"""`. Double quotes the model writes are turned into single
//! quotes so its text can never open or close a block.

use actix_web::web::Bytes;
use futures_util::StreamExt;
use llm::{ChatMessage, ChatRequest, DynLanguageModel, LanguageModel, LlmError};
use protocol::agent::{
    AgentMessageState, AgentRole, AgentStreamData, AgentStreamRequest, BizParam, ContentType,
};
use protocol::prompt_stream::MARKER;
use protocol::ErrorCode;
use tokio::sync::mpsc;

use super::{topic_chain, AgentConvRow, AgentMessageRow, AgentService};
use crate::accounts::now_millis;
use crate::error::ApiError;
use crate::polish::{self, clean::Cleaner, rules, sse, PolishInput};

/// Messages one request may carry (text and image parts of one turn).
pub const MAX_IN_MESSAGES: usize = 8;
/// Characters of text one turn may carry.
pub const MAX_TURN_CHARS: usize = 4000;
/// Earlier messages the model may see.
pub const MAX_HISTORY: usize = 24;
/// Tokens for the introductory sentence.
pub const INTRO_TOKENS: u32 = 48;
/// Longest introductory sentence kept, in characters.
pub const MAX_INTRO_CHARS: usize = 300;
/// What the model is told about an attached image. The reference engine's
/// descriptor is not exposed by the `engines` crate, so the agent says no
/// more than it knows.
pub const IMAGE_NOTE: &str = "[an image the user attached]";

/// A validated, stored turn ready to be answered.
#[derive(Debug)]
pub struct Turn {
    pub conv: AgentConvRow,
    /// The assistant message being written (stored as `streaming`).
    pub assistant: AgentMessageRow,
    pub user_msg_id: String,
    pub seg_id: Option<serde_json::Value>,
    /// Earlier messages of the topic, for the sentence.
    pub history: Vec<ChatMessage>,
    /// This turn's text as the model reads it.
    pub user_text: String,
    /// The user's texts of the topic, oldest first, for the prompt.
    pub ideas: Vec<String>,
    pub biz: BizParam,
}

fn invalid(msg: impl Into<String>) -> ApiError {
    ApiError::with_msg(ErrorCode::InvalidParams, msg)
}

fn loose(v: &Option<serde_json::Value>) -> Option<String> {
    match v {
        Some(serde_json::Value::String(s)) if !s.trim().is_empty() => Some(s.trim().to_owned()),
        Some(serde_json::Value::Number(n)) => Some(n.to_string()),
        _ => None,
    }
}

/// Text of a stored message as the model reads it.
fn model_text(m: &AgentMessageRow) -> String {
    let text = m.text();
    let note = match &m.image_description {
        Some(d) => format!("[the user attached an image: {d}]"),
        None => IMAGE_NOTE.to_owned(),
    };
    match m.content_type {
        ContentType::Image if text.trim().is_empty() => note,
        ContentType::Image => format!("{note} {text}"),
        ContentType::Text => text,
    }
}

/// Checks the request, stores the user's messages and an empty assistant
/// message, and gathers what the model needs.
pub async fn prepare(
    svc: &AgentService,
    model: &dyn LanguageModel,
    owner: &str,
    req: AgentStreamRequest,
) -> Result<Turn, ApiError> {
    let conv = svc.owned(owner, req.conv_id.trim()).await?;
    if req.messages.is_empty() || req.messages.len() > MAX_IN_MESSAGES {
        return Err(invalid(format!("send 1 to {MAX_IN_MESSAGES} messages")));
    }
    let mut chars = 0;
    let mut images = Vec::with_capacity(req.messages.len());
    for m in &req.messages {
        if m.role.as_deref().is_some_and(|r| r != "user") {
            return Err(invalid("only user messages can be sent"));
        }
        chars += m.parts.iter().map(|p| p.chars().count()).sum::<usize>();
        images.push(match m.content_type {
            ContentType::Text => {
                if m.parts.iter().all(|p| p.trim().is_empty()) {
                    return Err(invalid("a text message needs text"));
                }
                None
            }
            ContentType::Image => {
                let url = m.image_url.as_deref().map(str::trim).unwrap_or_default();
                let Some(own) = svc.own_image(url).await? else {
                    return Err(invalid(
                        "image_url must be a /files/ URL of an image uploaded to this server",
                    ));
                };
                Some(own)
            }
        });
    }
    if chars > MAX_TURN_CHARS {
        return Err(invalid(format!(
            "the message is longer than {MAX_TURN_CHARS} characters"
        )));
    }
    let turn_text: String = req
        .messages
        .iter()
        .flat_map(|m| m.parts.iter())
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(" ");
    if rules::violates(&turn_text) {
        return Err(ErrorCode::PromptViolatesRules.into());
    }

    let all = svc.messages(&conv.id).await?;
    let parent = match req.parent_msg_id.as_deref().map(str::trim) {
        Some(p) if !p.is_empty() => {
            if !all.iter().any(|m| m.msg_id == p) {
                return Err(invalid(
                    "parent_msg_id is not a message of this conversation",
                ));
            }
            Some(p.to_owned())
        }
        _ => all.last().map(|m| m.msg_id.clone()),
    };
    let chain = if req.start_new_topic {
        Vec::new()
    } else {
        topic_chain(&all, parent.as_deref(), MAX_HISTORY)
    };

    let n = req.messages.len() as u64;
    let first_idx = svc.reserve(&conv, n + 1).await?;
    let now = now_millis();
    let mut previous = parent;
    let mut user_rows = Vec::with_capacity(req.messages.len());
    for (i, m) in req.messages.iter().enumerate() {
        let image_url: Option<String> = images.get(i).cloned().flatten();
        let image_description = match &image_url {
            Some(url) => svc.describe_own_image(url).await,
            None => None,
        };
        let row = AgentMessageRow {
            msg_id: super::new_id("gm"),
            idx: first_idx + i as u64,
            parent_msg_id: previous.clone(),
            role: AgentRole::User,
            content_type: m.content_type,
            parts: m.parts.iter().map(|p| p.trim().to_owned()).collect(),
            image_url,
            image_description,
            new_topic: i == 0 && (req.start_new_topic || chain.is_empty()),
            create_at: now,
            state: AgentMessageState::Done,
            error: None,
        };
        svc.put_message(&conv.id, &row).await?;
        previous = Some(row.msg_id.clone());
        user_rows.push(row);
    }
    let user_msg_id = previous.unwrap_or_default();
    let assistant = AgentMessageRow {
        msg_id: super::new_id("gm"),
        idx: first_idx + n,
        parent_msg_id: Some(user_msg_id.clone()),
        role: AgentRole::Assistant,
        content_type: ContentType::Text,
        parts: vec![String::new()],
        image_url: None,
        new_topic: false,
        create_at: now,
        state: AgentMessageState::Streaming,
        error: None,
        image_description: None,
    };
    svc.put_message(&conv.id, &assistant).await?;
    svc.title_if_empty(&conv, &turn_text).await?;

    let user_text = user_rows
        .iter()
        .map(model_text)
        .collect::<Vec<_>>()
        .join("\n");
    // Keep the newest history that fits half the context.
    let budget = (model.info().context_tokens as usize) / 2;
    let mut used = model.count_tokens(&user_text);
    let mut history = Vec::new();
    for m in chain.iter().rev() {
        let text = model_text(m);
        used += model.count_tokens(&text);
        if used > budget {
            break;
        }
        history.push(match m.role {
            AgentRole::User => ChatMessage::user(text),
            AgentRole::Assistant => ChatMessage::assistant(text),
        });
    }
    history.reverse();
    let mut ideas: Vec<String> = chain
        .iter()
        .filter(|m| m.role == AgentRole::User)
        .map(|m| m.text())
        .chain(user_rows.iter().map(AgentMessageRow::text))
        .map(|t| protocol::prompt_stream::collapse_blank(&t))
        .filter(|t| !t.is_empty())
        .collect();
    if ideas.is_empty() {
        ideas.push("an image like the one the user attached".to_owned());
    }
    Ok(Turn {
        conv,
        assistant,
        user_msg_id,
        seg_id: req.seg_id,
        history,
        user_text,
        ideas,
        biz: req.biz_param,
    })
}

/// What the generator is set to, for the instructions.
fn setting_note(biz: &BizParam) -> String {
    let mut parts = Vec::new();
    if let Some(m) = biz
        .curr_base_model_name
        .as_deref()
        .filter(|m| !m.trim().is_empty())
    {
        parts.push(format!("base model {}", m.trim()));
    }
    if let Some(t) = loose(&biz.task_type) {
        parts.push(format!("task {t}"));
    }
    if let Some(d) = loose(&biz.duration) {
        parts.push(format!("duration {d} s"));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(" The generator is set to: {}.", parts.join(", "))
    }
}

/// The request for the introductory sentence.
pub fn intro_request(turn: &Turn) -> ChatRequest {
    let mut messages = vec![ChatMessage::system(format!(
        "You are a friendly assistant inside an image generator. The user describes an \
         image they want. Reply with ONE short sentence (at most 20 words) saying what \
         image you will propose. Do not write the prompt itself.{}",
        setting_note(&turn.biz)
    ))];
    // Two worked examples (small models follow a shown pattern far better
    // than a described one), then the real conversation.
    messages.extend([
        ChatMessage::user("a cat in a garden"),
        ChatMessage::assistant(
            "A curious cat in a sunny cottage garden sounds lovely; here is a prompt for it.",
        ),
        ChatMessage::user("a city at night"),
        ChatMessage::assistant("I will propose a moody neon street shining after the rain."),
    ]);
    messages.extend(turn.history.iter().cloned());
    messages.push(ChatMessage::user(turn.user_text.clone()));
    ChatRequest {
        messages,
        max_tokens: INTRO_TOKENS,
        temperature: 0.7,
        top_p: 0.9,
        seed: 0,
        stop: vec!["\n".into()],
        prefill: None,
    }
}

/// The request for the prompt: the polish instruction on the topic's ideas.
pub fn prompt_request(turn: &Turn) -> ChatRequest {
    polish::request_for(&PolishInput {
        idea: turn.ideas.join("; "),
        style: loose(&turn.biz.task_type).map(|t| format!("for a {t} task")),
        negative: None,
        model: turn.biz.curr_base_model_name.clone(),
    })
}

/// Why a turn stopped early.
enum Stop {
    /// The client went away.
    Gone,
    Failed(ErrorCode, Option<String>),
}

/// Writes the events of one turn and keeps the text written so far.
struct Writer {
    tx: mpsc::Sender<Bytes>,
    data: AgentStreamData,
    text: String,
}

impl Writer {
    async fn delta(&mut self, delta: &str) -> Result<(), Stop> {
        if delta.is_empty() {
            return Ok(());
        }
        self.text.push_str(delta);
        let data = AgentStreamData {
            delta: delta.to_owned(),
            ..self.data.clone()
        };
        let env = sse::envelope(protocol::error::SUCCESS_CODE, "success", None, data);
        self.tx.send(sse::event(&env)).await.map_err(|_| Stop::Gone)
    }
}

fn no_quotes(text: &str) -> String {
    text.replace('"', "'")
}

fn llm_stop(e: &LlmError) -> Stop {
    tracing::warn!(error = %e, "agent: model failed");
    match e {
        LlmError::Unavailable(_) => Stop::Failed(ErrorCode::LanguageModelUnavailable, None),
        _ => Stop::Failed(
            ErrorCode::LanguageModelUnavailable,
            Some("the language model failed; try again".into()),
        ),
    }
}

async fn next_delta(w: &Writer, stream: &mut llm::TokenStream) -> Result<Option<String>, Stop> {
    tokio::select! {
        _ = w.tx.closed() => Err(Stop::Gone),
        next = stream.next() => match next {
            Some(Ok(d)) => Ok(Some(d)),
            Some(Err(e)) => Err(llm_stop(&e)),
            None => Ok(None),
        },
    }
}

async fn write_intro(w: &mut Writer, model: &dyn LanguageModel, turn: &Turn) -> Result<(), Stop> {
    let mut stream = model
        .stream(intro_request(turn))
        .await
        .map_err(|e| llm_stop(&e))?;
    let mut written = 0usize;
    while let Some(delta) = next_delta(w, &mut stream).await? {
        let mut delta = no_quotes(&delta);
        if written == 0 {
            delta = delta.trim_start().to_owned();
        }
        let line_end = delta.find(['\n', '\r']);
        if let Some(at) = line_end {
            delta.truncate(at);
        }
        let room = MAX_INTRO_CHARS.saturating_sub(written);
        let delta: String = delta.chars().take(room).collect();
        written += delta.chars().count();
        w.delta(&delta).await?;
        if (line_end.is_some() && written > 0) || written >= MAX_INTRO_CHARS {
            break;
        }
    }
    if written == 0 {
        w.delta("Here is a prompt for your idea:").await?;
    }
    Ok(())
}

async fn write_prompt(w: &mut Writer, model: &dyn LanguageModel, turn: &Turn) -> Result<(), Stop> {
    let mut stream = model
        .stream(prompt_request(turn))
        .await
        .map_err(|e| llm_stop(&e))?;
    w.delta(&format!("\n{MARKER}")).await?;
    let mut cleaner = Cleaner::new();
    while let Some(delta) = next_delta(w, &mut stream).await? {
        if let Some(f) = cleaner.push(&delta) {
            if rules::violates_complete_words(cleaner.sent()) {
                return Err(Stop::Failed(ErrorCode::PromptViolatesRules, None));
            }
            w.delta(&no_quotes(&f)).await?;
        }
        if cleaner.is_finished() {
            break;
        }
    }
    drop(stream);
    let (last, whole) = cleaner.finish();
    if rules::violates(&whole) {
        return Err(Stop::Failed(ErrorCode::PromptViolatesRules, None));
    }
    if whole.is_empty() {
        return Err(Stop::Failed(
            ErrorCode::LanguageModelUnavailable,
            Some("the language model gave no prompt; try again".into()),
        ));
    }
    if let Some(f) = last {
        w.delta(&no_quotes(&f)).await?;
    }
    w.delta(MARKER).await
}

/// Answers a prepared turn, writing events to `tx`, and stores the answer.
pub async fn run(svc: AgentService, model: DynLanguageModel, turn: Turn, tx: mpsc::Sender<Bytes>) {
    let mut w = Writer {
        tx,
        data: AgentStreamData {
            conv_id: turn.conv.id.clone(),
            msg_id: turn.assistant.msg_id.clone(),
            user_msg_id: turn.user_msg_id.clone(),
            seg_id: turn.seg_id.clone(),
            delta: String::new(),
            done: false,
        },
        text: String::new(),
    };
    let mut outcome = write_intro(&mut w, model.as_ref(), &turn).await;
    if outcome.is_ok() {
        outcome = write_prompt(&mut w, model.as_ref(), &turn).await;
    }
    let mut row = turn.assistant.clone();
    row.parts = vec![w.text.clone()];
    let last = AgentStreamData {
        done: true,
        ..w.data.clone()
    };
    match outcome {
        Ok(()) => {
            row.state = AgentMessageState::Done;
            let env = sse::envelope(protocol::error::SUCCESS_CODE, "success", None, last);
            // Stored before the last event, so a client that reads history
            // right after `done` sees the answer.
            store(&svc, &turn.conv.id, &row).await;
            let _ = w.tx.send(sse::event(&env)).await;
        }
        Err(Stop::Gone) => {
            row.state = AgentMessageState::Cancelled;
            store(&svc, &turn.conv.id, &row).await;
        }
        Err(Stop::Failed(code, msg)) => {
            row.state = AgentMessageState::Failed;
            row.error = Some(msg.clone().unwrap_or_else(|| code.default_msg().to_owned()));
            store(&svc, &turn.conv.id, &row).await;
            let _ =
                w.tx.send(sse::event(&sse::error_envelope(code, msg, last)))
                    .await;
        }
    }
}

async fn store(svc: &AgentService, conv_id: &str, row: &AgentMessageRow) {
    if let Err(e) = svc.put_message(conv_id, row).await {
        tracing::error!(error = %e, msg_id = %row.msg_id, "agent: storing the answer failed");
    }
}
