//! Feed cursors. A cursor names the ordering it pages through, so a next
//! page continues exactly where the last one stopped:
//! `t.{anchor}.{ms}.{id}` for time orders (strictly before (ms, id); the
//! anchor is the time the first page was read, from which a time range
//! such as "day" is measured, so the range does not slide while paging),
//! `r.{epoch}.{offset}` for ranked orders (a position in the snapshot of
//! `epoch`).

use protocol::ErrorCode;

use crate::error::ApiError;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cursor {
    Time { anchor: i64, ms: i64, id: String },
    Ranked { epoch: i64, offset: usize },
}

impl Cursor {
    pub fn encode(&self) -> String {
        match self {
            Cursor::Time { anchor, ms, id } => format!("t.{anchor}.{ms}.{id}"),
            Cursor::Ranked { epoch, offset } => format!("r.{epoch}.{offset}"),
        }
    }

    /// Reads a cursor; `None` for none (the first page). A malformed one is
    /// InvalidParams, never a silent first page.
    pub fn parse(s: Option<&str>) -> Result<Option<Cursor>, ApiError> {
        let Some(s) = s.map(str::trim).filter(|s| !s.is_empty()) else {
            return Ok(None);
        };
        let bad = || ApiError::with_msg(ErrorCode::InvalidParams, "the cursor is not valid");
        let mut parts = s.splitn(4, '.');
        let c = match (parts.next(), parts.next(), parts.next(), parts.next()) {
            (Some("t"), Some(a), Some(m), Some(id))
                if !id.is_empty() && id.len() <= 64 && !id.contains('.') =>
            {
                Cursor::Time {
                    anchor: a.parse().map_err(|_| bad())?,
                    ms: m.parse().map_err(|_| bad())?,
                    id: id.to_owned(),
                }
            }
            (Some("r"), Some(e), Some(o), None) => Cursor::Ranked {
                epoch: e.parse().map_err(|_| bad())?,
                offset: o.parse().map_err(|_| bad())?,
            },
            _ => return Err(bad()),
        };
        Ok(Some(c))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn round_trips_and_refusals() {
        for c in [
            Cursor::Time {
                anchor: 5,
                ms: 1_700_000_000_000,
                id: "w0123abc".into(),
            },
            Cursor::Ranked {
                epoch: 1_700_000_000_123,
                offset: 40,
            },
        ] {
            assert_eq!(Cursor::parse(Some(&c.encode())).unwrap(), Some(c));
        }
        assert_eq!(Cursor::parse(None).unwrap(), None);
        assert_eq!(Cursor::parse(Some("  ")).unwrap(), None);
        for bad in [
            "x", "t.1.2", "t.a.2.id", "r.1", "r.1.-3", "r.1.2.3", "t.1.2.", "q.1.2",
        ] {
            assert!(Cursor::parse(Some(bad)).is_err(), "{bad}");
        }
    }
}
