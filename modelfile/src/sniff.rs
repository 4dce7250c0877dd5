//! Which format a file's first bytes say it is. Cheap and read-only: the
//! caller passes the head of the file ([`SNIFF_LEN`] bytes are enough).

use serde::Serialize;

/// How many leading bytes [`sniff`] looks at (more are ignored, fewer work
/// with less certainty for zips).
pub const SNIFF_LEN: usize = 4096;

/// The format of a file, told from its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FileKind {
    /// An 8-byte little-endian header length followed by a JSON object.
    Safetensors,
    /// A raw pickle (protocol 2 to 5, `\x80\x02..`): the legacy `torch.save`
    /// format of `.ckpt`/`.pt`/`.bin` files. Loading one can run code.
    Pickle,
    /// A PyTorch zip archive holding a `data.pkl` pickle (`torch.save`'s
    /// format since 1.6). Loading one can run code.
    TorchZip,
    /// A GGUF file (llama.cpp / stable-diffusion.cpp quantised weights).
    Gguf,
    /// Anything else.
    Unknown,
}

impl FileKind {
    /// True for the formats whose loading can execute code.
    pub const fn runs_code(self) -> bool {
        matches!(self, Self::Pickle | Self::TorchZip)
    }
}

/// Tells the format of a file from its head (at least the first 9 bytes; up
/// to [`SNIFF_LEN`] for PyTorch zips, whose first entry name follows a
/// 30-byte local header).
pub fn sniff(head: &[u8]) -> FileKind {
    if head.starts_with(b"GGUF") {
        return FileKind::Gguf;
    }
    if head.starts_with(b"PK\x03\x04") {
        let head = head.get(..SNIFF_LEN).unwrap_or(head);
        return if contains(head, b"data.pkl") {
            FileKind::TorchZip
        } else {
            FileKind::Unknown
        };
    }
    if let (Some(0x80), Some(&proto)) = (head.first(), head.get(1)) {
        if (2..=5).contains(&proto) {
            return FileKind::Pickle;
        }
    }
    if looks_like_safetensors(head) {
        return FileKind::Safetensors;
    }
    FileKind::Unknown
}

/// The first 8 bytes are a plausible header length (at least `{}`, at most
/// 2^32) and the header starts with `{`.
fn looks_like_safetensors(head: &[u8]) -> bool {
    let Some(len) = head.get(..8).and_then(|b| <[u8; 8]>::try_from(b).ok()) else {
        return false;
    };
    let n = u64::from_le_bytes(len);
    (2..=u64::from(u32::MAX)).contains(&n) && head.get(8) == Some(&b'{')
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}
