//! Product analytics (issue 22 part 5): the event schema and its pure
//! validation. The server accepts only the events listed in [`EVENTS`], with
//! the property names and types listed there, every text capped; what the
//! five ingest calls (`dot/report`, `dot/log`, `/log/v1/dot`,
//! `/log/v1/event_report`, `/log/v1/error_report`) receive goes through
//! [`validate::parse_batch`] before anything is stored.
//!
//! Policy (documented for operators and client authors):
//! - a body that is not JSON, or holds more than [`MAX_EVENTS`] events, is
//!   refused whole (`AnalyticsBatchInvalid`);
//! - an event with an unknown name, a server-only name, a property of the
//!   wrong type, a missing required property or a text over its cap is
//!   dropped and counted (`dropped` in the answer, with the reasons), the
//!   rest of the batch is kept;
//! - an unknown property name is removed from its event (counted in
//!   `stripped`), so older servers accept newer clients' events.
//!
//! Server-only events (`sign_up`, `generation`, `purchase`) are emitted where
//! they happen (account creation, task creation, an order marked paid): a
//! client cannot send them, so the funnel cannot be forged from a browser.

pub mod query;
pub mod validate;

use serde::{Deserialize, Serialize};

/// At most this many events in one call.
pub const MAX_EVENTS: usize = 50;
/// At most this many bytes in one call's body.
pub const MAX_BODY_BYTES: usize = 64 * 1024;
/// At most this many properties on one event.
pub const MAX_PROPS: usize = 16;
/// Page paths are cut to this many characters (query and fragment removed).
pub const MAX_PAGE_CHARS: usize = 200;

/// Who may send an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// The web app's tracker (or any client) through the ingest calls.
    Client,
    /// Emitted by the server where the fact happens.
    Server,
}

/// The type of one property value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PropType {
    /// A string of at most this many characters (never control characters).
    Str(usize),
    /// An integer in `min..=max`.
    Int(i64, i64),
    /// A boolean.
    Bool,
}

/// One property of an event.
#[derive(Debug, Clone, Copy)]
pub struct PropDef {
    pub name: &'static str,
    pub ty: PropType,
    pub required: bool,
}

const fn opt(name: &'static str, ty: PropType) -> PropDef {
    PropDef {
        name,
        ty,
        required: false,
    }
}

const fn req(name: &'static str, ty: PropType) -> PropDef {
    PropDef {
        name,
        ty,
        required: true,
    }
}

/// One known event.
#[derive(Debug, Clone, Copy)]
pub struct EventDef {
    pub name: &'static str,
    pub origin: Origin,
    pub props: &'static [PropDef],
}

/// A page was shown (the first step of the funnel).
pub const PAGE_VIEW: &str = "page_view";
/// An account was created (server).
pub const SIGN_UP: &str = "sign_up";
/// A generation task was accepted (server); the funnel's "first generation"
/// is a person's earliest one.
pub const GENERATION: &str = "generation";
/// An order was marked paid (server).
pub const PURCHASE: &str = "purchase";
/// A client-side error (`error_report`).
pub const ERROR: &str = "error";

const CODE: PropType = PropType::Int(0, 1_000_000);

/// Every event the server stores.
pub const EVENTS: &[EventDef] = &[
    EventDef {
        name: PAGE_VIEW,
        origin: Origin::Client,
        props: &[
            opt("referrer", PropType::Str(100)),
            opt("lang", PropType::Str(16)),
        ],
    },
    EventDef {
        name: "action",
        origin: Origin::Client,
        props: &[
            req("target", PropType::Str(64)),
            opt("value", PropType::Int(i64::MIN, i64::MAX)),
        ],
    },
    EventDef {
        name: "search",
        origin: Origin::Client,
        props: &[opt("length", PropType::Int(0, 10_000))],
    },
    EventDef {
        name: "generate_click",
        origin: Origin::Client,
        props: &[opt("action", CODE), opt("family", PropType::Str(32))],
    },
    EventDef {
        name: "publish",
        origin: Origin::Client,
        props: &[opt("obj_type", CODE)],
    },
    EventDef {
        name: "share",
        origin: Origin::Client,
        props: &[opt("obj_type", CODE), opt("channel", PropType::Str(32))],
    },
    EventDef {
        name: "checkin",
        origin: Origin::Client,
        props: &[],
    },
    EventDef {
        name: "purchase_start",
        origin: Origin::Client,
        props: &[opt("product_id", PropType::Str(64))],
    },
    EventDef {
        name: ERROR,
        origin: Origin::Client,
        props: &[
            req("message", PropType::Str(500)),
            opt("source", PropType::Str(300)),
            opt("line", PropType::Int(0, 10_000_000)),
            opt("col", PropType::Int(0, 10_000_000)),
            opt("stack", PropType::Str(4000)),
            opt("kind", PropType::Str(32)),
        ],
    },
    EventDef {
        name: SIGN_UP,
        origin: Origin::Server,
        props: &[opt("method", PropType::Str(16))],
    },
    EventDef {
        name: GENERATION,
        origin: Origin::Server,
        props: &[opt("action", CODE)],
    },
    EventDef {
        name: PURCHASE,
        origin: Origin::Server,
        props: &[
            opt("kind", PropType::Str(16)),
            opt("amount", PropType::Int(0, i64::MAX)),
            opt("currency", PropType::Str(8)),
        ],
    },
];

/// The definition of a known event.
pub fn event_def(name: &str) -> Option<&'static EventDef> {
    EVENTS.iter().find(|e| e.name == name)
}

/// Why one event of a batch was dropped.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DropReason {
    /// Not an object, or no `name`.
    Malformed,
    /// A name not in [`EVENTS`].
    UnknownEvent,
    /// A name only the server emits.
    ServerOnly,
    /// A property of the wrong type or out of range.
    BadProperty,
    /// A required property is missing.
    MissingProperty,
    /// A text over its cap, or more than [`MAX_PROPS`] properties.
    TooLarge,
    /// Sent by a crawler (its user agent says so).
    Bot,
    /// The server's buffer is full (its sink has been failing): shed.
    Overloaded,
    /// The operator turned analytics off (`EASEL_ANALYTICS=off`).
    Disabled,
}

/// What an ingest call answers (`data`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IngestReport {
    /// Events kept.
    pub accepted: u32,
    /// Events dropped (schema, opt-out).
    pub dropped: u32,
    /// Unknown property names removed from kept events.
    pub stripped: u32,
    /// Dropped events by reason (absent when none were).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<(DropReason, u32)>,
    /// True when the whole batch was dropped for an opt-out (the `DNT` or
    /// `Sec-GPC` header, or the account's `analytics_opt_out`).
    #[serde(default)]
    pub opted_out: bool,
}
