//! Validation of ingested events against the schema in [`super::EVENTS`]:
//! lenient about the body's shape (a batch object, an array, or one event;
//! a few spellings of each field), strict about names, types and sizes.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::{
    event_def, DropReason, Origin, PropType, ERROR, MAX_EVENTS, MAX_PAGE_CHARS, MAX_PROPS,
};

/// A property value that passed the schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PropValue {
    Str(String),
    Int(i64),
    Bool(bool),
}

impl PropValue {
    fn to_json(&self) -> Value {
        match self {
            PropValue::Str(s) => Value::String(s.clone()),
            PropValue::Int(i) => Value::from(*i),
            PropValue::Bool(b) => Value::Bool(*b),
        }
    }
}

/// One event that passed the schema, before the server adds who and when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidEvent {
    /// A name from [`super::EVENTS`].
    pub name: &'static str,
    /// Known properties only, in name order.
    pub props: BTreeMap<&'static str, PropValue>,
    /// The client's clock (ms since the epoch), as sent; the server's
    /// receive time is what days are counted by.
    pub client_ts: Option<i64>,
    /// The page's path (no query or fragment).
    pub page: Option<String>,
    /// The web app's release (`[A-Za-z0-9._+-]`, at most 40).
    pub release: Option<String>,
    /// The client's random session id (`[A-Za-z0-9_-]`, 8 to 64).
    pub session: Option<String>,
}

impl ValidEvent {
    /// The properties as one JSON object (the stored `props` column).
    pub fn props_json(&self) -> String {
        let m: Map<String, Value> = self
            .props
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.to_json()))
            .collect();
        Value::Object(m).to_string()
    }

    /// A text property, if set.
    pub fn str_prop(&self, name: &str) -> Option<&str> {
        match self.props.get(name) {
            Some(PropValue::Str(s)) => Some(s),
            _ => None,
        }
    }
}

/// The outcome of validating one call's body.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Batch {
    pub events: Vec<ValidEvent>,
    pub dropped: Vec<DropReason>,
    /// Unknown property names removed.
    pub stripped: u32,
}

impl Batch {
    /// Dropped events counted by reason, in a stable order.
    pub fn reasons(&self) -> Vec<(DropReason, u32)> {
        let mut out: Vec<(DropReason, u32)> = Vec::new();
        for r in &self.dropped {
            match out.iter_mut().find(|(k, _)| k == r) {
                Some((_, n)) => *n += 1,
                None => out.push((*r, 1)),
            }
        }
        out
    }
}

/// Why a whole body was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BatchError {
    #[error("the body is not a JSON object or array of events")]
    NotEvents,
    #[error("at most {MAX_EVENTS} events per call")]
    TooMany,
}

/// Which call the body came to: `error_report` turns each entry into an
/// `error` event; the others take events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Call {
    Events,
    Errors,
}

/// The entries of a body: `{events: [...]}`, `{errors: [...]}`, `{list:
/// [...]}`, an array, or one event object.
fn entries(body: &Value) -> Result<Vec<&Value>, BatchError> {
    let list = match body {
        Value::Array(a) => a.iter().collect(),
        Value::Object(m) => {
            match ["events", "errors", "list", "data"]
                .iter()
                .find_map(|k| m.get(*k).and_then(Value::as_array))
            {
                Some(a) => a.iter().collect(),
                None => vec![body],
            }
        }
        _ => return Err(BatchError::NotEvents),
    };
    if list.len() > MAX_EVENTS {
        return Err(BatchError::TooMany);
    }
    Ok(list)
}

/// Fields the batch object may carry for all its events.
#[derive(Debug, Default)]
struct Shared {
    release: Option<String>,
    session: Option<String>,
    page: Option<String>,
}

fn first<'a>(m: &'a Map<String, Value>, names: &[&str]) -> Option<&'a Value> {
    names
        .iter()
        .find_map(|n| m.get(*n))
        .filter(|v| !v.is_null())
}

fn text<'a>(m: &'a Map<String, Value>, names: &[&str]) -> Option<&'a str> {
    first(m, names).and_then(Value::as_str)
}

/// Validates a body from `origin` sent to `call`.
pub fn parse_batch(body: &Value, call: Call, origin: Origin) -> Result<Batch, BatchError> {
    let list = entries(body)?;
    let shared = match body {
        Value::Object(m) => Shared {
            release: text(m, &["release", "version"]).and_then(release),
            session: text(m, &["session_id", "sessionId", "session"]).and_then(session),
            page: text(m, &["page", "url", "path"]).and_then(page_path),
        },
        _ => Shared::default(),
    };
    let mut batch = Batch::default();
    for entry in list {
        match parse_one(entry, call, origin, &shared) {
            Ok((e, stripped)) => {
                batch.stripped += stripped;
                batch.events.push(e);
            }
            Err(r) => batch.dropped.push(r),
        }
    }
    Ok(batch)
}

fn parse_one(
    entry: &Value,
    call: Call,
    origin: Origin,
    shared: &Shared,
) -> Result<(ValidEvent, u32), DropReason> {
    let m = entry.as_object().ok_or(DropReason::Malformed)?;
    let (name, props): (&str, Map<String, Value>) = match call {
        Call::Events => {
            let name = text(m, &["name", "event", "event_name"]).ok_or(DropReason::Malformed)?;
            let props = match first(m, &["props", "properties", "params"]) {
                None => Map::new(),
                Some(Value::Object(p)) => p.clone(),
                Some(_) => return Err(DropReason::BadProperty),
            };
            (name, props)
        }
        Call::Errors => {
            // window.onerror's names and ours.
            let mut p = Map::new();
            for (ours, theirs) in [
                ("message", &["message", "msg"][..]),
                ("source", &["source", "filename", "file"][..]),
                ("line", &["line", "lineno"][..]),
                ("col", &["col", "colno", "column"][..]),
                ("stack", &["stack"][..]),
                ("kind", &["kind", "type"][..]),
            ] {
                if let Some(v) = first(m, theirs) {
                    p.insert(ours.to_owned(), v.clone());
                }
            }
            (ERROR, p)
        }
    };
    let def = event_def(name).ok_or(DropReason::UnknownEvent)?;
    if def.origin == Origin::Server && origin == Origin::Client {
        return Err(DropReason::ServerOnly);
    }
    if props.len() > MAX_PROPS {
        return Err(DropReason::TooLarge);
    }
    let mut out = BTreeMap::new();
    let mut stripped = 0;
    for (k, v) in &props {
        let Some(pd) = def.props.iter().find(|p| p.name == k.as_str()) else {
            stripped += 1;
            continue;
        };
        if v.is_null() {
            continue;
        }
        out.insert(pd.name, prop_value(pd.ty, v)?);
    }
    if def
        .props
        .iter()
        .any(|p| p.required && !out.contains_key(p.name))
    {
        return Err(DropReason::MissingProperty);
    }
    let client_ts = first(m, &["ts", "time", "client_time", "timestamp"]).and_then(client_ms);
    Ok((
        ValidEvent {
            name: def.name,
            props: out,
            client_ts,
            page: text(m, &["page", "url", "path"])
                .and_then(page_path)
                .or_else(|| shared.page.clone()),
            release: text(m, &["release", "version"])
                .and_then(release)
                .or_else(|| shared.release.clone()),
            session: text(m, &["session_id", "sessionId", "session"])
                .and_then(session)
                .or_else(|| shared.session.clone()),
        },
        stripped,
    ))
}

fn prop_value(ty: PropType, v: &Value) -> Result<PropValue, DropReason> {
    match ty {
        PropType::Str(max) => {
            let s = v.as_str().ok_or(DropReason::BadProperty)?;
            if s.chars().count() > max {
                return Err(DropReason::TooLarge);
            }
            // Newlines and tabs are kept (stack traces); other controls are not.
            if s.chars()
                .any(|c| c.is_control() && c != '\n' && c != '\t' && c != '\r')
            {
                return Err(DropReason::BadProperty);
            }
            Ok(PropValue::Str(s.to_owned()))
        }
        PropType::Int(min, max) => {
            let i = v.as_i64().ok_or(DropReason::BadProperty)?;
            if i < min || i > max {
                return Err(DropReason::BadProperty);
            }
            Ok(PropValue::Int(i))
        }
        PropType::Bool => v
            .as_bool()
            .map(PropValue::Bool)
            .ok_or(DropReason::BadProperty),
    }
}

/// Milliseconds from a client time: milliseconds, or seconds (below 1e11).
fn client_ms(v: &Value) -> Option<i64> {
    let n = v.as_i64().or_else(|| v.as_f64().map(|f| f as i64))?;
    if n <= 0 {
        None
    } else if n < 100_000_000_000 {
        n.checked_mul(1000)
    } else {
        Some(n)
    }
}

/// The path of a page: a URL's path, or a path; the query and fragment are
/// removed (they may carry tokens or search terms), cut to
/// [`MAX_PAGE_CHARS`]; `None` for anything else.
pub fn page_path(s: &str) -> Option<String> {
    let s = s.trim();
    let rest = match s.find("://") {
        Some(i) => {
            let after = s.get(i + 3..)?;
            match after.find('/') {
                Some(j) => after.get(j..)?,
                None => "/",
            }
        }
        None => s,
    };
    let path = rest.split(['?', '#']).next().unwrap_or("");
    if !path.starts_with('/') || path.chars().any(char::is_control) {
        return None;
    }
    Some(path.chars().take(MAX_PAGE_CHARS).collect())
}

fn release(s: &str) -> Option<String> {
    let ok = (1..=40).contains(&s.len())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '+' | '-'));
    ok.then(|| s.to_owned())
}

fn session(s: &str) -> Option<String> {
    let ok = (8..=64).contains(&s.len())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'));
    ok.then(|| s.to_owned())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use serde_json::json;

    fn events(v: Value) -> Batch {
        parse_batch(&v, Call::Events, Origin::Client).unwrap()
    }

    #[test]
    fn a_batch_of_known_events_is_kept_with_shared_fields() {
        let b = events(json!({
            "release": "1.4.3",
            "session_id": "sess-12345678",
            "events": [
                {"name": "page_view", "page": "https://x.test/en/square?q=secret#top", "ts": 1_700_000_000_000i64,
                 "props": {"referrer": "example.org"}},
                {"event": "action", "properties": {"target": "generate", "value": 3}, "release": "1.5.0"},
            ]
        }));
        assert_eq!(b.dropped, vec![]);
        assert_eq!(b.events.len(), 2);
        let pv = &b.events[0];
        assert_eq!(pv.name, "page_view");
        assert_eq!(pv.page.as_deref(), Some("/en/square"));
        assert_eq!(pv.release.as_deref(), Some("1.4.3"));
        assert_eq!(pv.session.as_deref(), Some("sess-12345678"));
        assert_eq!(pv.client_ts, Some(1_700_000_000_000));
        assert_eq!(pv.props_json(), r#"{"referrer":"example.org"}"#);
        assert_eq!(b.events[1].release.as_deref(), Some("1.5.0"));
        assert_eq!(b.events[1].props.get("value"), Some(&PropValue::Int(3)));
    }

    #[test]
    fn one_event_or_an_array_is_a_batch_too() {
        assert_eq!(events(json!({"name": "checkin"})).events.len(), 1);
        assert_eq!(
            events(json!([{"name": "checkin"}, {"name": "search"}]))
                .events
                .len(),
            2
        );
        // Client seconds become milliseconds.
        let b = events(json!({"name": "checkin", "ts": 1_700_000_000}));
        assert_eq!(b.events[0].client_ts, Some(1_700_000_000_000));
    }

    #[test]
    fn bad_events_are_dropped_with_their_reason_and_the_rest_kept() {
        let b = events(json!({"events": [
            {"name": "page_view"},
            {"name": "no_such_event"},
            {"name": "sign_up"},
            {"name": "purchase", "props": {"amount": 100}},
            {"name": "action"},
            {"name": "action", "props": {"target": 5}},
            {"name": "action", "props": {"target": "x".repeat(65)}},
            {"name": "search", "props": {"length": -1}},
            {"name": "search", "props": {"length": 4, "colour": "red"}},
            7,
            {"props": {}},
        ]}));
        assert_eq!(b.events.len(), 2);
        assert_eq!(b.stripped, 1);
        assert_eq!(
            b.dropped,
            vec![
                DropReason::UnknownEvent,
                DropReason::ServerOnly,
                DropReason::ServerOnly,
                DropReason::MissingProperty,
                DropReason::BadProperty,
                DropReason::TooLarge,
                DropReason::BadProperty,
                DropReason::Malformed,
                DropReason::Malformed,
            ]
        );
        assert_eq!(
            b.reasons(),
            vec![
                (DropReason::UnknownEvent, 1),
                (DropReason::ServerOnly, 2),
                (DropReason::MissingProperty, 1),
                (DropReason::BadProperty, 2),
                (DropReason::TooLarge, 1),
                (DropReason::Malformed, 2),
            ]
        );
    }

    #[test]
    fn the_server_may_emit_its_own_events() {
        let b = parse_batch(
            &json!({"name": "purchase", "props": {"amount": 990, "currency": "USD"}}),
            Call::Events,
            Origin::Server,
        )
        .unwrap();
        assert_eq!(b.events.len(), 1);
    }

    #[test]
    fn whole_bodies_are_refused_when_not_events_or_too_many() {
        assert_eq!(
            parse_batch(&json!("hello"), Call::Events, Origin::Client),
            Err(BatchError::NotEvents)
        );
        let many: Vec<Value> = (0..=MAX_EVENTS)
            .map(|_| json!({"name": "checkin"}))
            .collect();
        assert_eq!(
            parse_batch(&json!({ "events": many }), Call::Events, Origin::Client),
            Err(BatchError::TooMany)
        );
    }

    #[test]
    fn too_many_properties_drop_the_event() {
        let props: Map<String, Value> = (0..=MAX_PROPS)
            .map(|i| (format!("p{i}"), json!(1)))
            .collect();
        let b = events(json!({"name": "checkin", "props": props}));
        assert_eq!(b.dropped, vec![DropReason::TooLarge]);
    }

    #[test]
    fn error_reports_take_window_onerror_fields() {
        let b = parse_batch(
            &json!({"errors": [
                {"message": "TypeError: x is undefined", "filename": "/assets/app.js", "lineno": 10, "colno": 5,
                 "stack": "at f (app.js:10:5)\nat g", "release": "2.0.1"},
                {"filename": "/assets/app.js"},
            ]}),
            Call::Errors,
            Origin::Client,
        )
        .unwrap();
        assert_eq!(b.events.len(), 1);
        assert_eq!(b.dropped, vec![DropReason::MissingProperty]);
        let e = &b.events[0];
        assert_eq!(e.name, "error");
        assert_eq!(e.str_prop("message"), Some("TypeError: x is undefined"));
        assert_eq!(e.str_prop("source"), Some("/assets/app.js"));
        assert_eq!(e.props.get("line"), Some(&PropValue::Int(10)));
        assert_eq!(e.release.as_deref(), Some("2.0.1"));
    }

    #[test]
    fn pages_releases_and_sessions_are_checked() {
        assert_eq!(page_path("/en/a?token=x").as_deref(), Some("/en/a"));
        assert_eq!(page_path("https://h.test").as_deref(), Some("/"));
        assert_eq!(page_path("javascript:alert(1)"), None);
        assert_eq!(
            page_path(&format!("/{}", "a".repeat(300))).map(|p| p.len()),
            Some(200)
        );
        let b = events(json!({"name": "checkin", "release": "1.0 beta", "session_id": "short"}));
        assert_eq!(b.events[0].release, None);
        assert_eq!(b.events[0].session, None);
        let b = events(json!({"name": "checkin", "props": {}, "page": "no-slash"}));
        assert_eq!(b.events[0].page, None);
    }

    #[test]
    fn control_characters_are_refused_in_texts() {
        let b = events(json!({"name": "action", "props": {"target": "a\u{0007}b"}}));
        assert_eq!(b.dropped, vec![DropReason::BadProperty]);
    }
}
