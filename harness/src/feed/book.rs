//! The `feed` scenario's accounting: a feed page parsed from its answer,
//! the page and write latencies (from intended send times), what was read
//! and written, the rates achieved, and every error by operation and kind.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use protocol::client::ClientError;
use protocol::ErrorCode;
use serde_json::Value;

use super::plan::{PageRead, WriteKind, ORDERS};
use super::writes::OBJ_TYPE_PICTURE;
use crate::stats::Latencies;
use crate::HarnessError;

/// One feed page as the run needs it: how many cards, the picture works
/// and their authors on it, and the cursor of the next page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Page {
    pub items: usize,
    pub works: Vec<String>,
    pub authors: Vec<String>,
    pub next_cursor: Option<String>,
}

/// An id as the server wrote it: a string, or a number.
fn id_of(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

impl Page {
    /// A feed answer's `data`: `{items: [card], next_cursor: string|null}`.
    pub fn parse(data: &Value) -> Result<Page, String> {
        let items = data
            .get("items")
            .and_then(Value::as_array)
            .ok_or("the page has no items array")?;
        let next_cursor = match data.get("next_cursor") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if s.is_empty() => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => return Err(format!("next_cursor is not a string: {other}")),
        };
        let mut page = Page {
            items: items.len(),
            next_cursor,
            ..Page::default()
        };
        for card in items {
            if card.get("obj_type").and_then(Value::as_u64) != Some(OBJ_TYPE_PICTURE) {
                continue;
            }
            if let Some(id) = id_of(card.get("id")) {
                page.works.push(id);
            }
            if let Some(a) = id_of(card.get("author").and_then(|a| a.get("id"))) {
                page.authors.push(a);
            }
        }
        Ok(page)
    }
}

/// Why a call failed, for the report's error counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// TooManyRequests or HTTP 429: a per-account limit.
    RateLimited,
    /// NotFound or HTTP 404 (a work gone, or not visible).
    NotFound,
    /// Any other API refusal, by its code.
    Api(i32),
    /// No answer within the harness's answer timeout.
    TimedOut,
    /// Below the API: connection, body, decoding.
    Transport,
    /// A success whose `data` is not what the contract says.
    BadAnswer,
}

impl ErrorKind {
    pub fn of(e: &ClientError) -> ErrorKind {
        match (e.status().map(|s| s.code), e.http_status()) {
            (Some(c), _) if c == ErrorCode::TooManyRequests.code() => ErrorKind::RateLimited,
            (_, Some(429)) => ErrorKind::RateLimited,
            (Some(c), _) if c == ErrorCode::NotFound.code() => ErrorKind::NotFound,
            (_, Some(404)) => ErrorKind::NotFound,
            (Some(c), _) => ErrorKind::Api(c),
            (None, _) => ErrorKind::Transport,
        }
    }

    pub fn name(&self) -> String {
        match self {
            ErrorKind::RateLimited => "rate_limited".into(),
            ErrorKind::NotFound => "not_found".into(),
            ErrorKind::Api(c) => format!("api_{c}"),
            ErrorKind::TimedOut => "timed_out".into(),
            ErrorKind::Transport => "transport".into(),
            ErrorKind::BadAnswer => "bad_answer".into(),
        }
    }
}

/// Errors counted by operation and kind (`"like.rate_limited"`), with the
/// first message of each operation to say what it was.
#[derive(Debug, Default)]
pub struct ErrorTally {
    pub by_kind: BTreeMap<String, u64>,
    pub first: BTreeMap<String, String>,
}

impl ErrorTally {
    pub fn add(&mut self, op: &str, kind: ErrorKind, message: impl FnOnce() -> String) {
        *self
            .by_kind
            .entry(format!("{op}.{}", kind.name()))
            .or_insert(0) += 1;
        self.first.entry(op.to_owned()).or_insert_with(message);
    }

    pub fn total(&self) -> u64 {
        self.by_kind.values().sum()
    }
}

/// Everything the load window counted.
#[derive(Debug)]
pub struct FeedBook {
    started: Instant,
    /// Every page read, from its intended send time to its answer.
    pub page: Latencies,
    /// The same per order, indexed as [`ORDERS`].
    pub by_order: Vec<Latencies>,
    /// Every write that succeeded, from its intended send time.
    pub write: Latencies,
    pub reads_ok: u64,
    pub first_pages: u64,
    pub next_pages: u64,
    /// Pages that answered no next cursor (the end of the feed).
    pub last_pages: u64,
    pub empty_pages: u64,
    pub cards: u64,
    pub writes_ok: BTreeMap<&'static str, u64>,
    /// Writes the mix chose but could not make (no work seen, no task left).
    pub skipped: BTreeMap<&'static str, u64>,
    pub read_errors: ErrorTally,
    pub write_errors: ErrorTally,
    last_read: Option<Instant>,
    last_write: Option<Instant>,
}

impl FeedBook {
    pub fn new(started: Instant) -> Result<FeedBook, HarnessError> {
        Ok(FeedBook {
            started,
            page: Latencies::new()?,
            by_order: ORDERS
                .iter()
                .map(|_| Latencies::new())
                .collect::<Result<_, _>>()?,
            write: Latencies::new()?,
            reads_ok: 0,
            first_pages: 0,
            next_pages: 0,
            last_pages: 0,
            empty_pages: 0,
            cards: 0,
            writes_ok: BTreeMap::new(),
            skipped: BTreeMap::new(),
            read_errors: ErrorTally::default(),
            write_errors: ErrorTally::default(),
            last_read: None,
            last_write: None,
        })
    }

    pub fn read_ok(&mut self, read: &PageRead, intended: Instant, at: Instant, page: &Page) {
        let took = at.saturating_duration_since(intended);
        self.page.record(took);
        if let Some(h) = self.by_order.get_mut(read.order) {
            h.record(took);
        }
        self.reads_ok += 1;
        if read.depth > 1 {
            self.next_pages += 1;
        } else {
            self.first_pages += 1;
        }
        if page.next_cursor.is_none() {
            self.last_pages += 1;
        }
        if page.items == 0 {
            self.empty_pages += 1;
        }
        self.cards += page.items as u64;
        self.last_read = Some(self.last_read.map_or(at, |l| l.max(at)));
    }

    pub fn read_failed(&mut self, kind: ErrorKind, message: impl FnOnce() -> String) {
        self.read_errors.add("read", kind, message);
    }

    pub fn write_ok(&mut self, op: &'static str, intended: Instant, at: Instant) {
        self.write.record(at.saturating_duration_since(intended));
        *self.writes_ok.entry(op).or_insert(0) += 1;
        self.last_write = Some(self.last_write.map_or(at, |l| l.max(at)));
    }

    pub fn write_failed(
        &mut self,
        op: &'static str,
        kind: ErrorKind,
        message: impl FnOnce() -> String,
    ) {
        self.write_errors.add(op, kind, message);
    }

    pub fn write_skipped(&mut self, kind: WriteKind) {
        let why = match kind {
            WriteKind::Like => "like_no_work",
            WriteKind::Comment => "comment_no_work",
            WriteKind::Publish => "publish_no_task",
        };
        *self.skipped.entry(why).or_insert(0) += 1;
    }

    pub fn writes_ok_total(&self) -> u64 {
        self.writes_ok.values().sum()
    }

    /// `n` over the load window, or up to `last` when answers came later.
    fn per_sec(&self, n: u64, last: Option<Instant>, window: Duration) -> f64 {
        let busy = last
            .map_or(window, |l| l.saturating_duration_since(self.started))
            .max(window);
        n as f64 / busy.as_secs_f64().max(1e-9)
    }

    /// Pages read per second (answered, not refused).
    pub fn reads_per_sec(&self, window: Duration) -> f64 {
        self.per_sec(self.reads_ok, self.last_read, window)
    }

    /// Writes that succeeded per second.
    pub fn writes_per_sec(&self, window: Duration) -> f64 {
        self.per_sec(self.writes_ok_total(), self.last_write, window)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
    use super::*;
    use protocol::Status;
    use serde_json::json;

    fn api(http: u16, code: ErrorCode) -> ClientError {
        ClientError::Api {
            http,
            status: Status {
                code: code.code(),
                msg: "m".into(),
                key: None,
            },
        }
    }

    #[test]
    fn errors_are_counted_by_operation_and_kind() {
        assert_eq!(
            ErrorKind::of(&api(429, ErrorCode::TooManyRequests)),
            ErrorKind::RateLimited
        );
        assert_eq!(
            ErrorKind::of(&api(404, ErrorCode::NotFound)),
            ErrorKind::NotFound
        );
        assert_eq!(
            ErrorKind::of(&api(400, ErrorCode::InvalidParams)),
            ErrorKind::Api(ErrorCode::InvalidParams.code())
        );
        assert_eq!(
            ErrorKind::of(&ClientError::Unexpected("x".into())),
            ErrorKind::Transport
        );
        let mut t = ErrorTally::default();
        t.add("read", ErrorKind::TimedOut, || "slow".into());
        t.add("read", ErrorKind::TimedOut, || "not kept".into());
        t.add("like", ErrorKind::RateLimited, || "limit".into());
        t.add("like_cancel", ErrorKind::Api(40000), || "bad".into());
        assert_eq!(t.by_kind["read.timed_out"], 2);
        assert_eq!(t.by_kind["like_cancel.api_40000"], 1);
        assert_eq!(t.first["read"], "slow");
        assert_eq!(t.total(), 4);
        assert_eq!(ErrorKind::BadAnswer.name(), "bad_answer");
    }

    #[test]
    fn pages_parse_picture_cards_and_the_cursor() {
        let data = json!({"items": [
            {"obj_type": 4, "id": "w1", "author": {"id": "a1", "name": "A"}},
            {"obj_type": 4, "id": 17, "author": {"id": 5}},
            {"obj_type": 9, "id": "c1", "author": {"id": "a9"}},
            {"id": "no-type"}
        ], "next_cursor": "abc"});
        let p = Page::parse(&data).unwrap();
        assert_eq!(p.items, 4);
        assert_eq!(p.works, ["w1", "17"]);
        assert_eq!(p.authors, ["a1", "5"]);
        assert_eq!(p.next_cursor.as_deref(), Some("abc"));
        let end = Page::parse(&json!({"items": [], "next_cursor": null})).unwrap();
        assert_eq!((end.items, end.next_cursor), (0, None));
        assert_eq!(
            Page::parse(&json!({"items": []})).unwrap().next_cursor,
            None
        );
        assert!(Page::parse(&json!({"next_cursor": "x"})).is_err());
        assert!(Page::parse(&json!({"items": [], "next_cursor": 3})).is_err());
    }

    #[test]
    fn the_book_counts_pages_writes_and_rates() {
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        let mut b = FeedBook::new(t0).unwrap();
        let first = PageRead {
            path: 0,
            order: 3,
            account: 0,
            cursor: None,
            depth: 1,
        };
        let next = PageRead {
            cursor: Some("c".into()),
            depth: 2,
            ..first.clone()
        };
        let full = Page {
            items: 20,
            next_cursor: Some("c".into()),
            ..Page::default()
        };
        b.read_ok(&first, t0, t0 + ms(4), &full);
        b.read_ok(&next, t0 + ms(1), t0 + ms(3), &Page::default());
        b.read_failed(ErrorKind::RateLimited, || "limit".into());
        assert_eq!((b.reads_ok, b.first_pages, b.next_pages), (2, 1, 1));
        assert_eq!((b.cards, b.empty_pages, b.last_pages), (20, 1, 1));
        assert_eq!(b.page.count(), 2);
        // Latency from the intended time: 4 ms and 2 ms.
        assert!((b.page.summary().max - 4.0).abs() < 0.01);
        assert_eq!(b.by_order[3].count(), 2);
        assert_eq!(b.by_order[0].count(), 0);
        b.write_ok("like", t0, t0 + ms(2));
        b.write_ok("like", t0, t0 + ms(2));
        b.write_ok("publish", t0, t0 + ms(9));
        b.write_failed("comment", ErrorKind::NotFound, || "gone".into());
        b.write_skipped(WriteKind::Publish);
        assert_eq!(b.writes_ok_total(), 3);
        assert_eq!(b.writes_ok["like"], 2);
        assert_eq!(b.skipped["publish_no_task"], 1);
        assert_eq!(b.read_errors.total(), 1);
        assert_eq!(b.write_errors.by_kind["comment.not_found"], 1);
        // Over a 1 s window: 2 reads/s, 3 writes/s; an answer after the
        // window stretches it.
        assert!((b.reads_per_sec(Duration::from_secs(1)) - 2.0).abs() < 1e-9);
        assert!((b.writes_per_sec(Duration::from_secs(1)) - 3.0).abs() < 1e-9);
        b.read_ok(&first, t0, t0 + Duration::from_secs(2), &full);
        assert!((b.reads_per_sec(Duration::from_secs(1)) - 1.5).abs() < 1e-9);
    }
}
