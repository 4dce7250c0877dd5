//! What the video scenario reads back from each MP4 it downloads: the
//! movie's duration (`moov/mvhd`) and the first video track's size
//! (`moov/trak/tkhd` with a non-zero width), from the ISO BMFF boxes.
//! Only the header is parsed; the media data is skipped by box size.

/// The figures of one MP4.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mp4Info {
    /// The movie's duration in seconds (mvhd duration / timescale).
    pub duration_secs: f64,
    pub width: u32,
    pub height: u32,
}

/// One box: its type and its body (after the size and type, and the
/// 64-bit size when there is one).
fn boxes(mut data: &[u8]) -> impl Iterator<Item = ([u8; 4], &[u8])> {
    std::iter::from_fn(move || {
        let size = u32::from_be_bytes(data.get(0..4)?.try_into().ok()?) as u64;
        let kind: [u8; 4] = data.get(4..8)?.try_into().ok()?;
        let (header, size) = match size {
            1 => (16u64, u64::from_be_bytes(data.get(8..16)?.try_into().ok()?)),
            0 => (8, data.len() as u64),
            n => (8, n),
        };
        if size < header || size > data.len() as u64 {
            return None;
        }
        let body = data.get(header as usize..size as usize)?;
        data = data.get(size as usize..)?;
        Some((kind, body))
    })
}

fn be32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn be64(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_be_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

/// mvhd: version 0 has 32-bit times and duration, version 1 64-bit ones.
fn movie_duration(mvhd: &[u8]) -> Option<f64> {
    let (timescale, duration) = match mvhd.first()? {
        0 => (be32(mvhd, 12)?, be32(mvhd, 16)? as u64),
        1 => (be32(mvhd, 20)?, be64(mvhd, 24)?),
        _ => return None,
    };
    (timescale > 0).then(|| duration as f64 / timescale as f64)
}

/// tkhd: width and height are 16.16 fixed point at the end of the box.
fn track_size(tkhd: &[u8]) -> Option<(u32, u32)> {
    let at = match tkhd.first()? {
        0 => 76,
        1 => 88,
        _ => return None,
    };
    Some((be32(tkhd, at)? >> 16, be32(tkhd, at + 4)? >> 16))
}

/// Parses the header of an MP4; `None` when it has no readable `moov`
/// with a duration and a video track.
pub fn parse(data: &[u8]) -> Option<Mp4Info> {
    let (_, moov) = boxes(data).find(|(k, _)| k == b"moov")?;
    let (_, mvhd) = boxes(moov).find(|(k, _)| k == b"mvhd")?;
    let duration_secs = movie_duration(mvhd)?;
    let (width, height) = boxes(moov)
        .filter(|(k, _)| k == b"trak")
        .filter_map(|(_, trak)| boxes(trak).find(|(k, _)| k == b"tkhd"))
        .filter_map(|(_, tkhd)| track_size(tkhd))
        .find(|(w, h)| *w > 0 && *h > 0)?;
    Some(Mp4Info {
        duration_secs,
        width,
        height,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bx(kind: &[u8; 4], body: &[u8]) -> Vec<u8> {
        let mut v = ((body.len() + 8) as u32).to_be_bytes().to_vec();
        v.extend_from_slice(kind);
        v.extend_from_slice(body);
        v
    }

    fn mvhd_v0(timescale: u32, duration: u32) -> Vec<u8> {
        let mut b = vec![0u8; 100];
        b[12..16].copy_from_slice(&timescale.to_be_bytes());
        b[16..20].copy_from_slice(&duration.to_be_bytes());
        bx(b"mvhd", &b)
    }

    fn tkhd_v0(w: u32, h: u32) -> Vec<u8> {
        let mut b = vec![0u8; 84];
        b[76..80].copy_from_slice(&(w << 16).to_be_bytes());
        b[80..84].copy_from_slice(&(h << 16).to_be_bytes());
        bx(b"tkhd", &b)
    }

    #[test]
    fn reads_duration_and_the_video_tracks_size() {
        // An audio track (0 x 0) first, then the video track; mdat before moov.
        let audio = bx(b"trak", &tkhd_v0(0, 0));
        let video = bx(
            b"trak",
            &[tkhd_v0(1280, 720), bx(b"mdia", &[1, 2, 3])].concat(),
        );
        let moov = bx(b"moov", &[mvhd_v0(1000, 5033), audio, video].concat());
        let file = [bx(b"ftyp", b"isom\0\0\0\0"), bx(b"mdat", &[7; 50]), moov].concat();
        let info = parse(&file).unwrap();
        assert_eq!((info.width, info.height), (1280, 720));
        assert!((info.duration_secs - 5.033).abs() < 1e-9);
    }

    #[test]
    fn reads_version_1_headers_and_64_bit_box_sizes() {
        let mut mvhd = vec![0u8; 112];
        mvhd[0] = 1;
        mvhd[20..24].copy_from_slice(&90_000u32.to_be_bytes());
        mvhd[24..32].copy_from_slice(&450_000u64.to_be_bytes());
        let mut tkhd = vec![0u8; 96];
        tkhd[0] = 1;
        tkhd[88..92].copy_from_slice(&(640u32 << 16).to_be_bytes());
        tkhd[92..96].copy_from_slice(&(360u32 << 16).to_be_bytes());
        let moov_body = [bx(b"mvhd", &mvhd), bx(b"trak", &bx(b"tkhd", &tkhd))].concat();
        // moov with a 64-bit size (size field 1).
        let mut moov = 1u32.to_be_bytes().to_vec();
        moov.extend_from_slice(b"moov");
        moov.extend_from_slice(&((moov_body.len() + 16) as u64).to_be_bytes());
        moov.extend_from_slice(&moov_body);
        let info = parse(&moov).unwrap();
        assert_eq!((info.width, info.height), (640, 360));
        assert!((info.duration_secs - 5.0).abs() < 1e-9);
    }

    #[test]
    fn refuses_what_is_not_an_mp4_header() {
        assert_eq!(parse(b""), None);
        assert_eq!(parse(&[0xff; 64]), None);
        // A box that claims more than there is.
        let mut cut = mvhd_v0(1000, 1000);
        cut[3] = 200;
        assert_eq!(parse(&bx(b"moov", &cut)), None);
        // No video track.
        assert_eq!(parse(&bx(b"moov", &mvhd_v0(1000, 1000))), None);
        // A zero timescale.
        let moov = bx(
            b"moov",
            &[mvhd_v0(0, 10), bx(b"trak", &tkhd_v0(16, 16))].concat(),
        );
        assert_eq!(parse(&moov), None);
    }
}
