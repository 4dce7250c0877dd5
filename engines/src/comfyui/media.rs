//! Image bytes at the edges of the remote adapters: recognising what a server
//! sent back (PNG, JPEG, GIF, WebP by their magic numbers) and measuring it,
//! and normalising inputs (masks, edit images) to RGBA PNG. Shared by the
//! ComfyUI and OpenAI adapters.

use std::io::Cursor;

use image::{DynamicImage, ImageFormat, ImageReader, RgbaImage};

use crate::{EngineError, Produced};

/// An output format recognised by its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Png,
    Jpeg,
    Gif,
    Webp,
}

impl Kind {
    pub(crate) fn mime(self) -> &'static str {
        match self {
            Kind::Png => "image/png",
            Kind::Jpeg => "image/jpeg",
            Kind::Gif => "image/gif",
            Kind::Webp => "image/webp",
        }
    }
    pub(crate) fn ext(self) -> &'static str {
        match self {
            Kind::Png => "png",
            Kind::Jpeg => "jpg",
            Kind::Gif => "gif",
            Kind::Webp => "webp",
        }
    }
    fn format(self) -> ImageFormat {
        match self {
            Kind::Png => ImageFormat::Png,
            Kind::Jpeg => ImageFormat::Jpeg,
            Kind::Gif => ImageFormat::Gif,
            Kind::Webp => ImageFormat::WebP,
        }
    }
}

/// The format of `bytes` by magic number, if it is one we hand on as is.
pub(crate) fn sniff(bytes: &[u8]) -> Option<Kind> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some(Kind::Png)
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some(Kind::Jpeg)
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some(Kind::Gif)
    } else if bytes.starts_with(b"RIFF") && bytes.get(8..12) == Some(b"WEBP".as_slice()) {
        Some(Kind::Webp)
    } else {
        None
    }
}

/// Width and height of a WebP from its header. The `image` crate is built
/// without its WebP decoder here, and a remote engine's WebP is handed on
/// untouched, so reading the three header variants (lossy `VP8 `, lossless
/// `VP8L`, extended `VP8X`) is all that is needed.
pub(crate) fn webp_dimensions(bytes: &[u8]) -> Option<(u32, u32)> {
    let le24 = |at: usize| -> Option<u32> {
        let b = bytes.get(at..at + 3)?;
        Some(
            b.iter()
                .rev()
                .fold(0u32, |acc, x| (acc << 8) | u32::from(*x)),
        )
    };
    let le16 = |at: usize| -> Option<u32> {
        let b = bytes.get(at..at + 2)?;
        Some(
            b.iter()
                .rev()
                .fold(0u32, |acc, x| (acc << 8) | u32::from(*x)),
        )
    };
    match bytes.get(12..16)? {
        b"VP8X" => Some((le24(24)? + 1, le24(27)? + 1)),
        b"VP8 " => {
            // Frame tag (3 bytes) then the start code 9d 01 2a, then two
            // 16-bit sizes whose top two bits are scaling flags.
            if bytes.get(23..26)? != [0x9d, 0x01, 0x2a] {
                return None;
            }
            Some((le16(26)? & 0x3fff, le16(28)? & 0x3fff))
        }
        b"VP8L" => {
            if *bytes.get(20)? != 0x2f {
                return None;
            }
            let b = bytes.get(21..25)?;
            let bits = b
                .iter()
                .rev()
                .fold(0u32, |acc, x| (acc << 8) | u32::from(*x));
            Some(((bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1))
        }
        _ => None,
    }
    .filter(|(w, h)| *w > 0 && *h > 0)
}

/// Turns bytes a server sent back into an output: PNG, JPEG and GIF are
/// decoded in full (so a truncated download fails here, not in a browser)
/// and kept as sent; WebP is measured from its header and kept as sent; any
/// other format the `image` crate can decode is re-encoded as PNG (so the
/// declared mime is always true); anything else fails.
pub(crate) fn produced(bytes: Vec<u8>, seed: u64) -> Result<Produced, EngineError> {
    let (kind, width, height, bytes) = match sniff(&bytes) {
        Some(Kind::Webp) => {
            let (w, h) = webp_dimensions(&bytes).ok_or_else(|| {
                EngineError::Failed("the engine sent a WebP image with an unreadable header".into())
            })?;
            (Kind::Webp, w, h, bytes)
        }
        Some(kind) => {
            let img = image::load_from_memory_with_format(&bytes, kind.format()).map_err(|e| {
                EngineError::Failed(format!(
                    "the engine sent a {} image that does not decode: {e}",
                    kind.ext()
                ))
            })?;
            (kind, img.width(), img.height(), bytes)
        }
        None => {
            let img = image::load_from_memory(&bytes).map_err(|e| {
                EngineError::Failed(format!("the engine sent an unrecognised image: {e}"))
            })?;
            (Kind::Png, img.width(), img.height(), encode_png(&img)?)
        }
    };
    Ok(Produced {
        bytes,
        mime: kind.mime().to_string(),
        ext: kind.ext().to_string(),
        width,
        height,
        seed,
        files: Vec::new(),
    })
}

/// Width and height of an input image (WebP from its header, the rest from
/// the decoder's header read), or `BadInput`.
pub(crate) fn input_dimensions(bytes: &[u8]) -> Result<(u32, u32), EngineError> {
    if sniff(bytes) == Some(Kind::Webp) {
        return webp_dimensions(bytes)
            .ok_or_else(|| EngineError::BadInput("unreadable WebP input image".into()));
    }
    ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| EngineError::BadInput(format!("unreadable input image: {e}")))?
        .into_dimensions()
        .map_err(|e| EngineError::BadInput(format!("unreadable input image: {e}")))
}

/// Decodes an input image to RGBA, or `BadInput`.
pub(crate) fn decode_rgba(bytes: &[u8]) -> Result<RgbaImage, EngineError> {
    image::load_from_memory(bytes)
        .map(|i| i.to_rgba8())
        .map_err(|e| EngineError::BadInput(format!("unreadable input image: {e}")))
}

/// Encodes an image as PNG.
pub(crate) fn encode_png(img: &DynamicImage) -> Result<Vec<u8>, EngineError> {
    let mut out = Cursor::new(Vec::new());
    img.write_to(&mut out, ImageFormat::Png)
        .map_err(|e| EngineError::Failed(format!("PNG encoding failed: {e}")))?;
    Ok(out.into_inner())
}

/// Re-encodes an input as RGBA PNG (masks must carry their alpha channel:
/// both ComfyUI's `LoadImage` and OpenAI's edits read "transparent = edit"
/// from it).
pub(crate) fn to_rgba_png(bytes: &[u8]) -> Result<Vec<u8>, EngineError> {
    encode_png(&DynamicImage::ImageRgba8(decode_rgba(bytes)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(w: u32, h: u32) -> Vec<u8> {
        encode_png(&DynamicImage::ImageRgba8(RgbaImage::from_pixel(
            w,
            h,
            image::Rgba([10, 20, 30, 255]),
        )))
        .unwrap()
    }

    #[test]
    fn png_and_jpeg_are_kept_and_measured() {
        let p = produced(png(7, 5), 42).unwrap();
        assert_eq!(
            (p.width, p.height, p.mime.as_str(), p.seed),
            (7, 5, "image/png", 42)
        );

        let mut jpeg = Cursor::new(Vec::new());
        DynamicImage::ImageRgb8(image::RgbImage::new(9, 4))
            .write_to(&mut jpeg, ImageFormat::Jpeg)
            .unwrap();
        let jpeg = jpeg.into_inner();
        let p = produced(jpeg.clone(), 1).unwrap();
        assert_eq!((p.width, p.height, p.ext.as_str()), (9, 4, "jpg"));
        assert_eq!(p.bytes, jpeg);
    }

    #[test]
    fn truncated_and_unknown_bytes_fail() {
        let mut p = png(16, 16);
        p.truncate(p.len() / 2);
        assert!(matches!(produced(p, 0), Err(EngineError::Failed(_))));
        assert!(matches!(
            produced(b"hello".to_vec(), 0),
            Err(EngineError::Failed(_))
        ));
    }

    #[test]
    fn webp_headers_are_measured() {
        // VP8X: canvas 300 x 200 stored minus one, 24-bit little endian.
        let mut x = b"RIFF\0\0\0\0WEBPVP8X\x0a\0\0\0\0\0\0\0".to_vec();
        x.extend_from_slice(&[43, 1, 0, 199, 0, 0]);
        assert_eq!(webp_dimensions(&x), Some((300, 200)));
        let p = produced(x, 3).unwrap();
        assert_eq!(
            (p.width, p.height, p.mime.as_str()),
            (300, 200, "image/webp")
        );

        // VP8 (lossy): frame tag, start code, 14-bit sizes.
        let mut l = b"RIFF\0\0\0\0WEBPVP8 \0\0\0\0".to_vec();
        l.extend_from_slice(&[0, 0, 0, 0x9d, 0x01, 0x2a, 0x40, 0x01, 0xf0, 0x00]);
        assert_eq!(webp_dimensions(&l), Some((320, 240)));

        // VP8L (lossless): signature 0x2f then (w-1) | (h-1) << 14.
        let bits: u32 = 99 | (49 << 14);
        let mut ll = b"RIFF\0\0\0\0WEBPVP8L\0\0\0\0\x2f".to_vec();
        ll.extend_from_slice(&bits.to_le_bytes());
        assert_eq!(webp_dimensions(&ll), Some((100, 50)));

        assert_eq!(webp_dimensions(b"RIFF\0\0\0\0WEBPVP8 "), None);
    }

    #[test]
    fn masks_become_rgba_png_keeping_alpha() {
        let mut m = RgbaImage::from_pixel(4, 4, image::Rgba([0, 0, 0, 255]));
        m.put_pixel(1, 1, image::Rgba([0, 0, 0, 0]));
        let bytes = encode_png(&DynamicImage::ImageRgba8(m)).unwrap();
        let back = decode_rgba(&to_rgba_png(&bytes).unwrap()).unwrap();
        assert_eq!(back.get_pixel(1, 1).0[3], 0);
        assert_eq!(back.get_pixel(0, 0).0[3], 255);
        assert_eq!(input_dimensions(&bytes).unwrap(), (4, 4));
        assert!(matches!(
            input_dimensions(b"nope"),
            Err(EngineError::BadInput(_))
        ));
    }
}
