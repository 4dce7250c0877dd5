//! The Objects port: where image bytes (inputs and outputs of jobs) live,
//! by key. A local folder by default ([`LocalObjects`]); S3 or any
//! S3-compatible service behind the `s3` cargo feature (`S3Objects`).

use std::sync::Arc;

pub mod local;
#[cfg(feature = "s3")]
pub mod s3;

pub use local::LocalObjects;
#[cfg(feature = "s3")]
pub use s3::S3Objects;

/// Longest key accepted.
pub const MAX_KEY_LEN: usize = 512;
/// Longest content type accepted.
pub const MAX_CONTENT_TYPE_LEN: usize = 255;

/// A validated object key: 1 to 512 characters of `[A-Za-z0-9._/-]`, made
/// of non-empty `/`-separated segments, none of them `.` or `..`. Such a key
/// is safe as a relative path on disk and as an S3 key alike.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectKey(String);

impl ObjectKey {
    pub fn parse(key: &str) -> Result<ObjectKey, ObjectError> {
        let invalid = |why: &str| ObjectError::InvalidKey(format!("{why}: {key:?}"));
        if key.is_empty() || key.len() > MAX_KEY_LEN {
            return Err(invalid("length must be 1 to 512"));
        }
        if let Some(c) = key
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '/' | '-')))
        {
            return Err(invalid(&format!("character {c:?} not allowed")));
        }
        for segment in key.split('/') {
            match segment {
                "" => return Err(invalid("empty segment (leading, trailing or double /)")),
                "." | ".." => return Err(invalid("`.` and `..` segments are not allowed")),
                _ => {}
            }
        }
        Ok(ObjectKey(key.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for ObjectKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A stored object with the content type it was put with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredObject {
    pub bytes: Vec<u8>,
    pub content_type: String,
}

#[derive(Debug, thiserror::Error)]
pub enum ObjectError {
    #[error("invalid object key {0}")]
    InvalidKey(String),
    #[error("invalid content type {0:?}")]
    InvalidContentType(String),
    /// The backend failed (disk, network, service); retry later.
    #[error("object store unavailable: {0}")]
    Unavailable(String),
    /// A stored object could not be read back as written.
    #[error("corrupt stored object {key}: {reason}")]
    Corrupt { key: String, reason: String },
}

pub type ObjectResult<T> = Result<T, ObjectError>;

/// A content type is one line of visible ASCII, at most 255 bytes.
pub(crate) fn check_content_type(content_type: &str) -> ObjectResult<()> {
    let ok = !content_type.is_empty()
        && content_type.len() <= MAX_CONTENT_TYPE_LEN
        && content_type.bytes().all(|b| (0x20..0x7f).contains(&b));
    if ok {
        Ok(())
    } else {
        Err(ObjectError::InvalidContentType(content_type.to_owned()))
    }
}

/// What [`Objects::head`] answers: the size and type of an object, read
/// without its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectMeta {
    pub size: u64,
    pub content_type: String,
}

#[async_trait::async_trait]
pub trait Objects: Send + Sync + 'static {
    /// Stores `bytes` under `key`, replacing any previous object whole: a
    /// reader sees the old object or the new one, never a part.
    async fn put(&self, key: &ObjectKey, bytes: Vec<u8>, content_type: &str) -> ObjectResult<()>;
    async fn get(&self, key: &ObjectKey) -> ObjectResult<Option<StoredObject>>;
    async fn exists(&self, key: &ObjectKey) -> ObjectResult<bool>;
    /// Removes the object; deleting a missing key is not an error.
    async fn delete(&self, key: &ObjectKey) -> ObjectResult<()>;
    /// Size and content type, without reading the bytes.
    async fn head(&self, key: &ObjectKey) -> ObjectResult<Option<ObjectMeta>>;
    /// Up to `len` bytes from `offset` (fewer at the object's end; none past
    /// it). Large objects are served and processed by ranges, never whole.
    async fn get_range(
        &self,
        key: &ObjectKey,
        offset: u64,
        len: u64,
    ) -> ObjectResult<Option<Vec<u8>>>;
    /// Writes `key` as the objects `parts` joined in order, holding at most
    /// one part in memory (a local file copy; an S3 multipart upload). The
    /// result appears whole or not at all; the parts are left in place.
    /// Answers the joined size.
    async fn concat(
        &self,
        parts: &[ObjectKey],
        key: &ObjectKey,
        content_type: &str,
    ) -> ObjectResult<u64>;
    fn backend_name(&self) -> &'static str;
}

pub type DynObjects = Arc<dyn Objects>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_keys_parse() {
        for k in [
            "a",
            "images/2026/01/abc-DEF_0.png",
            "x.y.z",
            ".hidden/file",
            "a..b/c",
            &"k".repeat(512),
        ] {
            assert_eq!(ObjectKey::parse(k).unwrap().as_str(), k, "{k}");
        }
    }

    #[test]
    fn invalid_keys_are_rejected() {
        for k in [
            "",
            "/abs",
            "trailing/",
            "a//b",
            "..",
            "a/../b",
            "./a",
            "a/.",
            "sp ace",
            "back\\slash",
            "é",
            "q?x",
            "nul\0",
            &"k".repeat(513),
        ] {
            assert!(
                matches!(ObjectKey::parse(k), Err(ObjectError::InvalidKey(_))),
                "{k:?} should be rejected"
            );
        }
    }

    #[test]
    fn content_types_are_checked() {
        assert!(check_content_type("image/png").is_ok());
        assert!(check_content_type("text/plain; charset=utf-8").is_ok());
        assert!(check_content_type("").is_err());
        assert!(check_content_type("image/png\nX: y").is_err());
        assert!(check_content_type(&"a".repeat(256)).is_err());
    }
}
