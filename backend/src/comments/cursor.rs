//! The opaque cursors of comment lists, as the client carries them.
//!
//! - `n.<hex>`: time order (`new` top-level comments, newest first, and
//!   replies, oldest first): the clustering key `(create_at ms, id)` of the
//!   last comment handed out. A comment written between two pages sorts
//!   before the first page (new) or after the last (replies), so paging
//!   neither repeats nor skips.
//! - `t.<snapshot id>.<offset>`: `top` order, a position in a stored
//!   snapshot of the ranking taken at the first page (see `list.rs`).

use infra::store::Key;

/// A parsed cursor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cursor {
    /// Resume after this `(create_at ms, comment id)` key.
    Time(Key),
    /// Resume at `offset` in the snapshot `snapshot`.
    Top { snapshot: String, offset: usize },
}

/// The clustering key of a comment in a time-ordered index.
pub fn time_key(create_at: i64, id: &str) -> Key {
    Key::empty().i64(create_at).str(id)
}

/// `(create_at, id)` back from a time key; `None` if it has another shape.
pub fn read_time_key(k: &Key) -> Option<(i64, String)> {
    let mut r = k.reader();
    let at = r.i64()?;
    let id = r.str()?;
    r.is_done().then_some((at, id))
}

fn is_id(s: &str) -> bool {
    !s.is_empty() && s.len() <= 64 && s.chars().all(|c| c.is_ascii_alphanumeric())
}

impl Cursor {
    pub fn encode(&self) -> String {
        match self {
            Cursor::Time(k) => format!("n.{}", hex::encode(k.as_bytes())),
            Cursor::Top { snapshot, offset } => format!("t.{snapshot}.{offset}"),
        }
    }

    /// `None` for anything this module did not write.
    pub fn parse(s: &str) -> Option<Cursor> {
        if s.len() > 512 {
            return None;
        }
        if let Some(h) = s.strip_prefix("n.") {
            let key = Key::from_bytes(hex::decode(h).ok()?);
            read_time_key(&key)?;
            return Some(Cursor::Time(key));
        }
        let rest = s.strip_prefix("t.")?;
        let (snapshot, offset) = rest.split_once('.')?;
        if !is_id(snapshot) || offset.is_empty() || !offset.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        Some(Cursor::Top {
            snapshot: snapshot.to_owned(),
            offset: offset.parse().ok()?,
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn round_trips() {
        let c = Cursor::Time(time_key(1_700_000_000_123, "0191abc"));
        assert_eq!(Cursor::parse(&c.encode()), Some(c));
        let t = Cursor::Top {
            snapshot: "0191abcdef".into(),
            offset: 40,
        };
        assert_eq!(t.encode(), "t.0191abcdef.40");
        assert_eq!(Cursor::parse(&t.encode()), Some(t));
    }

    #[test]
    fn time_keys_sort_by_time_then_id() {
        assert!(time_key(5, "b") < time_key(6, "a"));
        assert!(time_key(5, "a") < time_key(5, "b"));
        assert!(time_key(-1, "z") < time_key(0, "a"));
        assert_eq!(
            read_time_key(&time_key(7, "id")),
            Some((7, "id".to_owned()))
        );
    }

    #[test]
    fn refuses_foreign_cursors() {
        for bad in [
            "",
            "n.",
            "n.zz",
            "n.00",
            "t.",
            "t.abc",
            "t.abc.",
            "t.abc.-1",
            "t.a-b.1",
            "t..1",
            "x.1",
            "t.abc.99999999999999999999999",
        ] {
            assert_eq!(Cursor::parse(bad), None, "{bad:?}");
        }
        // A key with extra bytes after (time, id) is not a time key.
        let mut k = time_key(1, "a").into_bytes();
        k.push(1);
        assert_eq!(Cursor::parse(&format!("n.{}", hex::encode(k))), None);
    }
}
