//! One stored event: the columns every sink keeps, already stripped by
//! `privacy.rs` (truncated address, browser family, visitor hash).

use protocol::analytics::query::{format_day, parse_day, Fact};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The stored columns. The ClickHouse sink sends rows as this JSON
/// (`JSONEachRow`), the Parquet sink as these columns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventRow {
    /// UTC day of `ts` (a `Date`: `YYYY-MM-DD` in JSON, Date32 in Parquet).
    #[serde(serialize_with = "ser_day", deserialize_with = "de_day")]
    pub day: i32,
    /// Server receive time, ms since the epoch.
    pub ts: i64,
    pub name: String,
    pub account: Option<String>,
    /// Salted daily visitor hash (never a device id).
    pub visitor: Option<String>,
    /// The client's random per-tab session id.
    pub session: Option<String>,
    /// Page path, without query or fragment.
    pub page: Option<String>,
    pub release: Option<String>,
    /// Browser family only.
    pub browser: String,
    /// The client address truncated to its /24 (IPv4) or /48 (IPv6).
    pub ip: String,
    pub client_ts: Option<i64>,
    /// The validated properties, a JSON object.
    pub props: String,
    /// An error's message (error events), for grouping without parsing `props`.
    pub message: Option<String>,
}

fn ser_day<S: Serializer>(d: &i32, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format_day(*d))
}

fn de_day<'de, D: Deserializer<'de>>(d: D) -> Result<i32, D::Error> {
    let s = String::deserialize(d)?;
    parse_day(&s).ok_or_else(|| serde::de::Error::custom("not a YYYY-MM-DD day"))
}

/// A column the queries may ask a sink for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    Day,
    Ts,
    Name,
    Account,
    Visitor,
    Release,
    Message,
}

impl Column {
    pub fn name(self) -> &'static str {
        match self {
            Column::Day => "day",
            Column::Ts => "ts",
            Column::Name => "name",
            Column::Account => "account",
            Column::Visitor => "visitor",
            Column::Release => "release",
            Column::Message => "message",
        }
    }
}

/// What people-counting questions read (DAU, funnel, retention).
pub const PEOPLE: &[Column] = &[
    Column::Day,
    Column::Ts,
    Column::Name,
    Column::Account,
    Column::Visitor,
];

/// What errors by release reads.
pub const ERRORS: &[Column] = &[
    Column::Day,
    Column::Ts,
    Column::Name,
    Column::Account,
    Column::Visitor,
    Column::Release,
    Column::Message,
];

impl EventRow {
    /// The row as the queries see it.
    pub fn fact(&self) -> Fact {
        Fact {
            day: self.day,
            ts: self.ts,
            name: self.name.clone(),
            account: self.account.clone(),
            visitor: self.visitor.clone(),
            release: self.release.clone(),
            message: self.message.clone(),
        }
    }
}
