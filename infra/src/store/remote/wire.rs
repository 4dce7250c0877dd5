//! What crosses the wire between [`super::RemoteStore`] and the store
//! server: one MessagePack request per HTTP POST, one MessagePack answer.
//! Keys and values travel as MessagePack `bin` (never arrays of numbers).
//! Both sides are built from this one file, so they always agree; the path
//! carries the version ([`super::PATH`]).

use std::ops::Bound;

use serde::de::{SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::store::{StoreError, TableKind};

/// Bytes, serialised as MessagePack `bin`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Bin(pub Vec<u8>);

impl Serialize for Bin {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.0)
    }
}

impl<'de> Deserialize<'de> for Bin {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Bin, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Bin;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Bin, E> {
                Ok(Bin(v.to_vec()))
            }
            fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<Bin, E> {
                Ok(Bin(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Bin, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
                while let Some(b) = seq.next_element::<u8>()? {
                    out.push(b);
                }
                Ok(Bin(out))
            }
        }
        d.deserialize_byte_buf(V)
    }
}

impl From<&[u8]> for Bin {
    fn from(b: &[u8]) -> Bin {
        Bin(b.to_vec())
    }
}

/// A scan bound on clustering-key bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum WireBound {
    Unbounded,
    Included(Bin),
    Excluded(Bin),
}

impl WireBound {
    pub fn of(b: &Bound<crate::store::Key>) -> WireBound {
        match b {
            Bound::Unbounded => WireBound::Unbounded,
            Bound::Included(k) => WireBound::Included(k.as_bytes().into()),
            Bound::Excluded(k) => WireBound::Excluded(k.as_bytes().into()),
        }
    }

    pub fn into_bound(self) -> Bound<crate::store::Key> {
        match self {
            WireBound::Unbounded => Bound::Unbounded,
            WireBound::Included(b) => Bound::Included(crate::store::Key::from_bytes(b.0)),
            WireBound::Excluded(b) => Bound::Excluded(crate::store::Key::from_bytes(b.0)),
        }
    }
}

/// One call of the [`crate::store::Store`] port. Tables are named; the
/// server finds them in [`crate::store::tables::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Request {
    Get {
        table: String,
        pk: Bin,
        ck: Bin,
    },
    GetMany {
        table: String,
        keys: Vec<(Bin, Bin)>,
    },
    Put {
        table: String,
        pk: Bin,
        ck: Bin,
        value: Bin,
    },
    Delete {
        table: String,
        pk: Bin,
        ck: Bin,
    },
    DeletePartition {
        table: String,
        pk: Bin,
    },
    Scan {
        table: String,
        pk: Bin,
        from: WireBound,
        to: WireBound,
        desc: bool,
        limit: u32,
        paging: Option<Bin>,
    },
    /// One page of a whole-table walk, after the row (pk, ck).
    ScanTable {
        table: String,
        after: Option<(Bin, Bin)>,
        limit: u32,
    },
    Cas {
        table: String,
        pk: Bin,
        ck: Bin,
        expected: Option<Bin>,
        new: Option<Bin>,
    },
    CounterAdd {
        table: String,
        pk: Bin,
        ck: Bin,
        delta: i64,
    },
    CounterGet {
        table: String,
        pk: Bin,
        ck: Bin,
    },
}

impl Request {
    /// Whether running the call twice leaves the same state as once, so a
    /// call whose answer was lost may be sent again. Compare-and-set and
    /// counter adds are not (a second run could apply on top of the first).
    pub fn idempotent(&self) -> bool {
        !matches!(self, Request::Cas { .. } | Request::CounterAdd { .. })
    }

    pub fn table(&self) -> &str {
        match self {
            Request::Get { table, .. }
            | Request::GetMany { table, .. }
            | Request::Put { table, .. }
            | Request::Delete { table, .. }
            | Request::DeletePartition { table, .. }
            | Request::Scan { table, .. }
            | Request::ScanTable { table, .. }
            | Request::Cas { table, .. }
            | Request::CounterAdd { table, .. }
            | Request::CounterGet { table, .. } => table,
        }
    }
}

/// The store's answer to one [`Request`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Response {
    Value(Option<Bin>),
    Values(Vec<Option<Bin>>),
    Done,
    Page {
        rows: Vec<(Bin, Bin)>,
        paging: Option<Bin>,
    },
    Cas {
        applied: bool,
        current: Option<Bin>,
    },
    Counter(i64),
    /// A whole-table walk's page: (pk, ck, value) per row.
    TableRows(Vec<(Bin, Bin, Bin)>),
    Error(WireError),
}

/// A [`StoreError`] on the wire. `WrongKind` carries the kind the table is
/// *not*; the client puts back its own table name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum WireError {
    Backend(String),
    Codec(String),
    WrongKind { counter: bool },
    Unavailable(String),
}

impl From<StoreError> for WireError {
    fn from(e: StoreError) -> WireError {
        match e {
            StoreError::Backend(m) => WireError::Backend(m),
            StoreError::Codec(m) => WireError::Codec(m),
            StoreError::WrongKind(_, kind) => WireError::WrongKind {
                counter: kind == TableKind::Counter,
            },
            StoreError::Unavailable(m) => WireError::Unavailable(m),
        }
    }
}

impl WireError {
    pub fn into_store_error(self, table: &'static str) -> StoreError {
        match self {
            WireError::Backend(m) => StoreError::Backend(format!("store server: {m}")),
            WireError::Codec(m) => StoreError::Codec(m),
            WireError::WrongKind { counter } => StoreError::WrongKind(
                table,
                if counter {
                    TableKind::Counter
                } else {
                    TableKind::Regular
                },
            ),
            WireError::Unavailable(m) => StoreError::Unavailable(format!("store server: {m}")),
        }
    }
}

pub fn encode<T: Serialize>(v: &T) -> Result<Vec<u8>, String> {
    rmp_serde::to_vec(v).map_err(|e| e.to_string())
}

pub fn decode<T: serde::de::DeserializeOwned>(b: &[u8]) -> Result<T, String> {
    rmp_serde::from_slice(b).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn bytes_travel_as_bin_and_round_trip() {
        let value: Vec<u8> = (0..=255u8).collect();
        let req = Request::Put {
            table: "conformance".into(),
            pk: Bin(b"pk".to_vec()),
            ck: Bin(vec![]),
            value: Bin(value.clone()),
        };
        let bytes = encode(&req).unwrap();
        // 256 bytes as `bin 16` plus a little framing; as an array of
        // numbers it would take about 384.
        assert!(bytes.len() < 256 + 40, "{} bytes", bytes.len());
        assert_eq!(decode::<Request>(&bytes).unwrap(), req);
        let resp = Response::Page {
            rows: vec![(Bin(vec![1, 2]), Bin(value))],
            paging: Some(Bin(vec![1, 2])),
        };
        assert_eq!(decode::<Response>(&encode(&resp).unwrap()).unwrap(), resp);
    }

    #[test]
    fn only_cas_and_counter_adds_are_not_idempotent() {
        let t = || "t".to_string();
        let k = || Bin(vec![]);
        assert!(!Request::Cas {
            table: t(),
            pk: k(),
            ck: k(),
            expected: None,
            new: None
        }
        .idempotent());
        assert!(!Request::CounterAdd {
            table: t(),
            pk: k(),
            ck: k(),
            delta: 1
        }
        .idempotent());
        assert!(Request::Put {
            table: t(),
            pk: k(),
            ck: k(),
            value: k()
        }
        .idempotent());
        assert!(Request::DeletePartition {
            table: t(),
            pk: k()
        }
        .idempotent());
    }

    #[test]
    fn errors_keep_their_kind() {
        for e in [
            StoreError::Backend("b".into()),
            StoreError::Codec("c".into()),
            StoreError::WrongKind("x", TableKind::Counter),
            StoreError::Unavailable("u".into()),
        ] {
            let wire = WireError::from(e);
            let back = decode::<WireError>(&encode(&wire).unwrap()).unwrap();
            assert_eq!(back, wire);
        }
        assert!(matches!(
            WireError::WrongKind { counter: false }.into_store_error("t"),
            StoreError::WrongKind("t", TableKind::Regular)
        ));
    }
}
