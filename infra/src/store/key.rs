//! Order-preserving tuple keys: a key is a sequence of typed components whose
//! byte encoding sorts exactly as the components do, component by component.
//!
//! Encoding (after FoundationDB's tuple layer): strings and byte strings have
//! every 0x00 escaped as 0x00 0xFF and end with 0x00 0x01, so a prefix sorts
//! first and no component can run into the next; unsigned integers are
//! 8-byte big-endian; signed integers are big-endian with the sign bit
//! flipped. Components carry no type tag: a table's keys always have the same
//! shape, declared by the repository that owns the table.

/// An encoded key (partition or clustering).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Key(Vec<u8>);

impl Key {
    /// The empty key: a table's only row in a partition, or "no clustering".
    pub fn empty() -> Key {
        Key(Vec::new())
    }

    pub fn from_bytes(b: Vec<u8>) -> Key {
        Key(b)
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.0
    }

    /// A key of one string component.
    pub fn of(s: &str) -> Key {
        Key::empty().str(s)
    }

    pub fn str(self, s: &str) -> Key {
        self.bytes(s.as_bytes())
    }

    pub fn bytes(mut self, b: &[u8]) -> Key {
        for &byte in b {
            self.0.push(byte);
            if byte == 0 {
                self.0.push(0xFF);
            }
        }
        self.0.extend_from_slice(&[0x00, 0x01]);
        self
    }

    pub fn u64(mut self, n: u64) -> Key {
        self.0.extend_from_slice(&n.to_be_bytes());
        self
    }

    pub fn i64(mut self, n: i64) -> Key {
        self.0
            .extend_from_slice(&((n as u64) ^ (1 << 63)).to_be_bytes());
        self
    }

    /// Reads the components back, given their shape; `None` if the bytes do
    /// not have that shape.
    pub fn reader(&self) -> KeyReader<'_> {
        KeyReader { rest: &self.0 }
    }
}

/// Decodes a key's components in order.
pub struct KeyReader<'a> {
    rest: &'a [u8],
}

impl KeyReader<'_> {
    pub fn bytes(&mut self) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        let mut i = 0;
        loop {
            let b = *self.rest.get(i)?;
            if b == 0 {
                match self.rest.get(i + 1)? {
                    0xFF => {
                        out.push(0);
                        i += 2;
                    }
                    0x01 => {
                        self.rest = self.rest.get(i + 2..)?;
                        return Some(out);
                    }
                    _ => return None,
                }
            } else {
                out.push(b);
                i += 1;
            }
        }
    }

    pub fn str(&mut self) -> Option<String> {
        String::from_utf8(self.bytes()?).ok()
    }

    pub fn u64(&mut self) -> Option<u64> {
        let (head, rest) = self.rest.split_first_chunk::<8>()?;
        self.rest = rest;
        Some(u64::from_be_bytes(*head))
    }

    pub fn i64(&mut self) -> Option<i64> {
        Some((self.u64()? ^ (1 << 63)) as i64)
    }

    pub fn is_done(&self) -> bool {
        self.rest.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_sort_like_strings() {
        let mut words = vec!["b", "a", "", "ab", "a\0", "a\0b", "\u{ff}", "aa"];
        let mut keys: Vec<Key> = words.iter().map(|w| Key::of(w)).collect();
        words.sort_unstable();
        keys.sort();
        let back: Vec<String> = keys.iter().map(|k| k.reader().str().unwrap()).collect();
        assert_eq!(back, words);
    }

    #[test]
    fn integers_sort_numerically() {
        let mut ns = vec![5i64, -1, 0, i64::MIN, i64::MAX, -300, 300];
        let mut keys: Vec<Key> = ns.iter().map(|&n| Key::empty().i64(n)).collect();
        ns.sort_unstable();
        keys.sort();
        assert_eq!(
            keys.iter()
                .map(|k| k.reader().i64().unwrap())
                .collect::<Vec<_>>(),
            ns
        );
        assert!(Key::empty().u64(2) < Key::empty().u64(256));
    }

    #[test]
    fn tuples_compare_component_wise() {
        // ("a", 9) < ("ab", 1): the first component decides, even though "a" is a prefix.
        assert!(Key::of("a").u64(9) < Key::of("ab").u64(1));
        assert!(Key::of("a").u64(1) < Key::of("a").u64(2));
        let k = Key::of("x\0y").i64(-4).str("z");
        let mut r = k.reader();
        assert_eq!(r.str().unwrap(), "x\0y");
        assert_eq!(r.i64().unwrap(), -4);
        assert_eq!(r.str().unwrap(), "z");
        assert!(r.is_done());
    }

    #[test]
    fn malformed_bytes_read_as_none() {
        assert_eq!(Key::from_bytes(vec![1, 2]).reader().str(), None);
        assert_eq!(Key::from_bytes(vec![0, 7]).reader().bytes(), None);
        assert_eq!(Key::from_bytes(vec![1, 2, 3]).reader().u64(), None);
    }
}
