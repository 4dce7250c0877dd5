//! PNG chunk surgery for character cards: walking a PNG's chunks (signature,
//! lengths and CRCs checked, never panicking on garbage), reading `tEXt`
//! chunks, and writing a file with one `tEXt` chunk replaced or removed. Also
//! the two small codecs that needs: CRC-32 (ISO-HDLC, the PNG one) and
//! standard base64 (the `chara` chunk holds the card's JSON in base64).
//!
//! Why by hand: the `png` crate decodes pixels, and re-encoding an avatar
//! just to change a text chunk would alter its bytes; chunk surgery keeps
//! the picture exactly as it was.

/// Every PNG starts with these bytes.
pub const SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];
/// Most chunks accepted in one file: a real picture has a handful (or a few
/// hundred IDATs); more is a file built to waste time.
const MAX_CHUNKS: usize = 100_000;
/// The PNG spec's largest chunk length (2^31 - 1).
const MAX_CHUNK_LEN: u32 = 0x7FFF_FFFF;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PngError {
    #[error("not a PNG file (bad signature)")]
    Signature,
    #[error("the PNG file is cut short")]
    Truncated,
    #[error("a PNG chunk has an impossible length")]
    Length,
    #[error("a PNG chunk has a bad checksum ({0})")]
    Crc(String),
    #[error("a PNG chunk has an invalid type")]
    ChunkType,
    #[error("the PNG file does not start with IHDR")]
    NoHeader,
    #[error("the PNG file has no IEND chunk")]
    NoEnd,
    #[error("the PNG file has too many chunks")]
    TooManyChunks,
    #[error("a tEXt keyword must be 1 to 79 Latin-1 characters")]
    Keyword,
}

/// One chunk of a PNG file, borrowed from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunk<'a> {
    pub kind: [u8; 4],
    pub data: &'a [u8],
    /// The whole chunk as it is in the file (length, type, data, CRC).
    pub raw: &'a [u8],
}

const CRC_TABLE: [u32; 256] = crc_table();

// `n` is below 256 by the loop bound; a const fn has no `get_mut` to lean on.
#[allow(clippy::indexing_slicing)]
const fn crc_table() -> [u32; 256] {
    let mut table = [0u32; 256];
    let mut n = 0;
    while n < 256 {
        let mut c = n as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
            k += 1;
        }
        table[n] = c;
        n += 1;
    }
    table
}

/// CRC-32 as PNG uses it, over the concatenation of `parts`.
pub fn crc32(parts: &[&[u8]]) -> u32 {
    let mut c = 0xFFFF_FFFFu32;
    for part in parts {
        for &b in *part {
            let i = ((c ^ u32::from(b)) & 0xFF) as usize;
            c = CRC_TABLE.get(i).copied().unwrap_or(0) ^ (c >> 8);
        }
    }
    c ^ 0xFFFF_FFFF
}

fn be_u32(b: &[u8]) -> Option<u32> {
    let a: [u8; 4] = b.get(..4)?.try_into().ok()?;
    Some(u32::from_be_bytes(a))
}

/// Every chunk of a PNG file, in order, from IHDR to IEND. Checks the
/// signature, every length and every CRC; bytes after IEND are ignored.
pub fn chunks(bytes: &[u8]) -> Result<Vec<Chunk<'_>>, PngError> {
    if bytes.get(..8) != Some(&SIGNATURE[..]) {
        return Err(PngError::Signature);
    }
    let mut out = Vec::new();
    let mut pos = 8usize;
    loop {
        if out.len() >= MAX_CHUNKS {
            return Err(PngError::TooManyChunks);
        }
        let rest = bytes.get(pos..).ok_or(PngError::Truncated)?;
        if rest.is_empty() {
            return Err(PngError::NoEnd);
        }
        let len = be_u32(rest).ok_or(PngError::Truncated)?;
        if len > MAX_CHUNK_LEN {
            return Err(PngError::Length);
        }
        let len = len as usize;
        let total = len.checked_add(12).ok_or(PngError::Length)?;
        let raw = rest.get(..total).ok_or(PngError::Truncated)?;
        let kind: [u8; 4] = raw
            .get(4..8)
            .and_then(|k| k.try_into().ok())
            .ok_or(PngError::Truncated)?;
        if !kind.iter().all(u8::is_ascii_alphabetic) {
            return Err(PngError::ChunkType);
        }
        let data = raw.get(8..8 + len).ok_or(PngError::Truncated)?;
        let stored = raw
            .get(8 + len..)
            .and_then(be_u32)
            .ok_or(PngError::Truncated)?;
        if crc32(&[&kind, data]) != stored {
            return Err(PngError::Crc(String::from_utf8_lossy(&kind).into_owned()));
        }
        if out.is_empty() && &kind != b"IHDR" {
            return Err(PngError::NoHeader);
        }
        out.push(Chunk { kind, data, raw });
        pos += total;
        if &kind == b"IEND" {
            return Ok(out);
        }
    }
}

/// The `tEXt` chunks of a PNG: `(keyword, text bytes)`.
pub fn text_chunks(bytes: &[u8]) -> Result<Vec<(String, Vec<u8>)>, PngError> {
    Ok(chunks(bytes)?
        .into_iter()
        .filter(|c| &c.kind == b"tEXt")
        .filter_map(|c| {
            let nul = c.data.iter().position(|&b| b == 0)?;
            let keyword = c.data.get(..nul)?;
            let text = c.data.get(nul + 1..)?;
            // Keywords are Latin-1; every byte maps to the same code point.
            let keyword: String = keyword.iter().map(|&b| char::from(b)).collect();
            Some((keyword, text.to_vec()))
        })
        .collect())
}

fn keyword_ok(keyword: &str) -> bool {
    (1..=79).contains(&keyword.len())
        && keyword
            .chars()
            .all(|c| (' '..='~').contains(&c) || ('\u{a1}'..='\u{ff}').contains(&c))
}

fn is_text_with_keyword(c: &Chunk<'_>, keyword: &[u8]) -> bool {
    &c.kind == b"tEXt"
        && c.data.len() > keyword.len()
        && c.data.get(..keyword.len()) == Some(keyword)
        && c.data.get(keyword.len()) == Some(&0)
}

/// The file with every `tEXt` chunk named `keyword` removed and, when
/// `text` is given, one new one inserted just before IEND. Other chunks are
/// copied byte for byte.
pub fn replace_text_chunk(
    png: &[u8],
    keyword: &str,
    text: Option<&[u8]>,
) -> Result<Vec<u8>, PngError> {
    if !keyword_ok(keyword) {
        return Err(PngError::Keyword);
    }
    let key: Vec<u8> = keyword.chars().map(|c| c as u8).collect();
    let all = chunks(png)?;
    let extra = text.map_or(0, |t| t.len() + key.len() + 13);
    let mut out = Vec::with_capacity(png.len() + extra);
    out.extend_from_slice(&SIGNATURE);
    for c in &all {
        if is_text_with_keyword(c, &key) {
            continue;
        }
        if &c.kind == b"IEND" {
            if let Some(text) = text {
                let mut data = Vec::with_capacity(key.len() + 1 + text.len());
                data.extend_from_slice(&key);
                data.push(0);
                data.extend_from_slice(text);
                let len = u32::try_from(data.len())
                    .ok()
                    .filter(|&l| l <= MAX_CHUNK_LEN)
                    .ok_or(PngError::Length)?;
                out.extend_from_slice(&len.to_be_bytes());
                out.extend_from_slice(b"tEXt");
                out.extend_from_slice(&data);
                out.extend_from_slice(&crc32(&[b"tEXt", &data]).to_be_bytes());
            }
        }
        out.extend_from_slice(c.raw);
    }
    Ok(out)
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding.
pub fn base64_encode(bytes: &[u8]) -> String {
    let sym = |i: u32| char::from(B64.get((i & 63) as usize).copied().unwrap_or(b'A'));
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for group in bytes.chunks(3) {
        let b = |i: usize| u32::from(group.get(i).copied().unwrap_or(0));
        let n = (b(0) << 16) | (b(1) << 8) | b(2);
        out.push(sym(n >> 18));
        out.push(sym(n >> 12));
        out.push(if group.len() > 1 { sym(n >> 6) } else { '=' });
        out.push(if group.len() > 2 { sym(n) } else { '=' });
    }
    out
}

/// Standard base64; ASCII white space is skipped and padding is optional
/// (card writers differ). `None` for anything else.
pub fn base64_decode(text: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let mut acc = 0u32;
    let mut bits = 0u32;
    let mut padding = 0usize;
    for &c in text {
        if c.is_ascii_whitespace() {
            continue;
        }
        if c == b'=' {
            padding += 1;
            continue;
        }
        if padding > 0 {
            return None;
        }
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push(((acc >> bits) & 0xFF) as u8);
        }
    }
    // 6 bits left over means a lone symbol: not base64.
    if bits >= 6 || padding > 2 {
        return None;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    fn tiny_png() -> Vec<u8> {
        let img = image::RgbaImage::from_pixel(3, 2, image::Rgba([10, 20, 30, 255]));
        let mut out = Vec::new();
        image::DynamicImage::ImageRgba8(img)
            .write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
            .unwrap();
        out
    }

    #[test]
    fn crc_matches_known_values() {
        // The standard check value of CRC-32/ISO-HDLC.
        assert_eq!(crc32(&[b"123456789"]), 0xCBF4_3926);
        assert_eq!(crc32(&[b"1234", b"56789"]), 0xCBF4_3926);
        // IEND's CRC as found in every PNG.
        assert_eq!(crc32(&[b"IEND"]), 0xAE42_6082);
    }

    #[test]
    fn base64_round_trips_and_rejects_garbage() {
        for s in ["", "f", "fo", "foo", "foob", "fooba", "foobar"] {
            let e = base64_encode(s.as_bytes());
            assert_eq!(base64_decode(e.as_bytes()).unwrap(), s.as_bytes());
        }
        assert_eq!(base64_encode(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64_encode(b"fo"), "Zm8=");
        assert_eq!(base64_decode(b"Zm8").unwrap(), b"fo");
        assert_eq!(base64_decode(b"Zm9v\nYmFy").unwrap(), b"foobar");
        assert_eq!(base64_decode(b"Zm9v*"), None);
        assert_eq!(base64_decode(b"Z"), None);
        assert_eq!(base64_decode(b"Zm=8"), None);
    }

    #[test]
    fn text_chunk_written_then_read() {
        let png = tiny_png();
        let with = replace_text_chunk(&png, "chara", Some(b"hello")).unwrap();
        let texts = text_chunks(&with).unwrap();
        assert_eq!(texts, vec![("chara".to_owned(), b"hello".to_vec())]);
        // The picture still decodes, and is the same picture.
        let a = image::load_from_memory(&png).unwrap().to_rgba8();
        let b = image::load_from_memory(&with).unwrap().to_rgba8();
        assert_eq!(a, b);
        // Writing again replaces, never duplicates.
        let again = replace_text_chunk(&with, "chara", Some(b"bye")).unwrap();
        assert_eq!(
            text_chunks(&again).unwrap(),
            vec![("chara".to_owned(), b"bye".to_vec())]
        );
        let removed = replace_text_chunk(&again, "chara", None).unwrap();
        assert!(text_chunks(&removed).unwrap().is_empty());
        assert_eq!(removed, png);
        assert_eq!(chunks(&with).unwrap().last().unwrap().kind, *b"IEND");
    }

    #[test]
    fn damaged_files_are_refused() {
        let png = replace_text_chunk(&tiny_png(), "chara", Some(b"x")).unwrap();
        assert_eq!(chunks(b"GIF89a...."), Err(PngError::Signature));
        assert_eq!(chunks(&[]), Err(PngError::Signature));
        assert_eq!(chunks(&SIGNATURE), Err(PngError::NoEnd));
        // Cut anywhere after the signature: truncated or missing IEND, never a panic.
        for cut in 9..png.len() {
            assert!(chunks(&png[..cut]).is_err(), "cut at {cut}");
        }
        // Flip a bit in every byte after the signature: always caught
        // (by a CRC, a length or a type check).
        for i in 8..png.len() {
            let mut bad = png.clone();
            bad[i] ^= 0x01;
            assert!(chunks(&bad).is_err(), "flip at {i}");
        }
        // A huge length.
        let mut huge = png.clone();
        huge[8..12].copy_from_slice(&0xFFFF_FFF0u32.to_be_bytes());
        assert_eq!(chunks(&huge), Err(PngError::Length));
        assert_eq!(
            replace_text_chunk(&png, "", Some(b"x")),
            Err(PngError::Keyword)
        );
    }

    #[test]
    fn random_bytes_never_panic() {
        let mut x = 0x1234_5678u32;
        for n in 0..500 {
            let mut bytes = SIGNATURE.to_vec();
            for _ in 0..(n % 97) {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                bytes.push(x as u8);
            }
            let _ = chunks(&bytes);
            let _ = text_chunks(&bytes);
            let _ = base64_decode(&bytes);
        }
    }
}
