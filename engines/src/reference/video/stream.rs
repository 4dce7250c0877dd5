//! Packaging a finished video for playback at several sizes: MP4
//! [`renditions`] and an HLS ladder ([`hls`]): one variant per allowed
//! height at or below the source's (never upscaled), each an H.264 media
//! playlist of MPEG-TS segments cut on forced keyframes every 2 s, and a
//! master playlist written here from the variants' measured bit rates.

use std::path::Path;

use super::ffmpeg::{self, temp_input, tempdir, x264_args};
use super::{even_size, probe, ProbeInfo};
use crate::EngineError;

/// The heights a ladder may have.
pub const ALLOWED_HEIGHTS: [u32; 4] = [360, 540, 720, 1080];
/// HLS segment length, seconds (every segment starts on a keyframe).
const SEGMENT_SECS: u32 = 2;
const MASTER: &str = "master.m3u8";

/// The heights to make: those asked for that are allowed and not above the
/// source, ascending; when none fits (a source under 360 px), the source's
/// own height alone.
fn ladder(src_h: u32, heights: &[u32]) -> Result<Vec<u32>, EngineError> {
    if let Some(bad) = heights.iter().find(|h| !ALLOWED_HEIGHTS.contains(h)) {
        return Err(EngineError::BadInput(format!(
            "rendition height {bad} is not one of {ALLOWED_HEIGHTS:?}"
        )));
    }
    let mut out: Vec<u32> = ALLOWED_HEIGHTS
        .iter()
        .copied()
        .filter(|h| heights.contains(h) && *h <= src_h)
        .collect();
    if out.is_empty() {
        out.push(src_h & !1);
    }
    Ok(out)
}

/// The width for `height` keeping the source's aspect, rounded to even.
fn width_for(info: &ProbeInfo, height: u32) -> Result<(u32, u32), EngineError> {
    let w = (f64::from(info.width) * f64::from(height) / f64::from(info.height.max(1))).round();
    even_size(w as u32, height)
}

fn s(x: &str) -> String {
    x.to_string()
}

/// Common arguments: input, scaling to `w` x `h` (Lanczos), H.264 with a
/// keyframe every [`SEGMENT_SECS`], AAC when the source has sound.
fn encode_args(input: &Path, info: &ProbeInfo, w: u32, h: u32) -> Vec<String> {
    let gop = (info.fps * f64::from(SEGMENT_SECS)).round().max(1.0) as u32;
    let mut args = vec![
        s("-hide_banner"),
        s("-loglevel"),
        s("error"),
        s("-nostdin"),
        s("-i"),
        input.to_string_lossy().into_owned(),
        s("-map"),
        s("0:v:0"),
    ];
    if info.has_audio {
        args.extend([
            s("-map"),
            s("0:a:0"),
            s("-c:a"),
            s("aac"),
            s("-b:a"),
            s("128k"),
        ]);
    }
    args.extend([s("-vf"), format!("scale={w}:{h}:flags=lanczos")]);
    args.extend(x264_args());
    args.extend([
        s("-g"),
        gop.to_string(),
        s("-keyint_min"),
        gop.to_string(),
        s("-sc_threshold"),
        s("0"),
        s("-force_key_frames"),
        format!("expr:gte(t,n_forced*{SEGMENT_SECS})"),
    ]);
    args
}

/// The MP4 at each allowed height (see [`ALLOWED_HEIGHTS`]) not above the
/// source, as `(height, mp4)`, ascending.
pub fn renditions(mp4: &[u8], heights: &[u32]) -> Result<Vec<(u32, Vec<u8>)>, EngineError> {
    let info = probe(mp4)?;
    let input = temp_input(mp4)?;
    let dir = tempdir()?;
    let mut out = Vec::new();
    for h in ladder(info.height, heights)? {
        let (w, h) = width_for(&info, h)?;
        let name = format!("{h}p.mp4");
        let mut args = encode_args(input.path(), &info, w, h);
        args.extend([s("-movflags"), s("+faststart"), s("-y"), name.clone()]);
        ffmpeg::run(&args, dir.path(), &|| false)?;
        let bytes = std::fs::read(dir.path().join(&name))
            .map_err(|e| EngineError::Failed(format!("rendition {name} cannot be read: {e}")))?;
        out.push((h, bytes));
    }
    Ok(out)
}

/// Packages a finished video as HLS: `master.m3u8` listing one variant per
/// allowed height not above the source (`{h}p/index.m3u8` with its
/// `{h}p/seg_NNN.ts` segments). Answers `(relative path, bytes)` for every
/// file, the master first. `cancel` is polled while ffmpeg runs.
pub fn hls(
    mp4: &[u8],
    heights: &[u32],
    cancel: &dyn Fn() -> bool,
) -> Result<Vec<(String, Vec<u8>)>, EngineError> {
    let info = probe(mp4)?;
    let input = temp_input(mp4)?;
    let dir = tempdir()?;
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    let mut master = String::from("#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-INDEPENDENT-SEGMENTS\n");
    for h in ladder(info.height, heights)? {
        let (w, h) = width_for(&info, h)?;
        let name = format!("{h}p");
        let vdir = dir.path().join(&name);
        std::fs::create_dir(&vdir)
            .map_err(|e| EngineError::Failed(format!("no directory for {name}: {e}")))?;
        let mut args = encode_args(input.path(), &info, w, h);
        args.extend([
            s("-f"),
            s("hls"),
            s("-hls_time"),
            SEGMENT_SECS.to_string(),
            s("-hls_playlist_type"),
            s("vod"),
            s("-hls_segment_type"),
            s("mpegts"),
            s("-hls_flags"),
            s("independent_segments"),
            s("-hls_segment_filename"),
            s("seg_%03d.ts"),
            s("index.m3u8"),
        ]);
        ffmpeg::run(&args, &vdir, cancel)?;
        // The variant's files, and its peak and average bit rate.
        let playlist = std::fs::read_to_string(vdir.join("index.m3u8"))
            .map_err(|e| EngineError::Failed(format!("{name} playlist cannot be read: {e}")))?;
        let mut peak = 0f64;
        let (mut bytes_total, mut secs_total) = (0u64, 0f64);
        let mut variant = Vec::new();
        let mut duration = 0f64;
        for line in playlist.lines() {
            if let Some(d) = line.strip_prefix("#EXTINF:") {
                duration = d
                    .trim_end_matches(',')
                    .split(',')
                    .next()
                    .and_then(|d| d.parse().ok())
                    .unwrap_or(0.0);
            } else if !line.starts_with('#') && !line.trim().is_empty() {
                let seg = line.trim();
                if seg.contains('/') || seg.contains("..") {
                    return Err(EngineError::Failed(format!(
                        "unexpected segment path {seg}"
                    )));
                }
                let bytes = std::fs::read(vdir.join(seg)).map_err(|e| {
                    EngineError::Failed(format!("segment {seg} cannot be read: {e}"))
                })?;
                if duration > 0.0 {
                    peak = peak.max(bytes.len() as f64 * 8.0 / duration);
                }
                bytes_total += bytes.len() as u64;
                secs_total += duration;
                variant.push((format!("{name}/{seg}"), bytes));
            }
        }
        let Some((first, _)) = variant.first() else {
            return Err(EngineError::Failed(format!("{name} has no segments")));
        };
        let vinfo = ffmpeg::probe_file(&dir.path().join(first))?;
        let average = if secs_total > 0.0 {
            bytes_total as f64 * 8.0 / secs_total
        } else {
            peak
        };
        master.push_str(&format!(
            "#EXT-X-STREAM-INF:BANDWIDTH={},AVERAGE-BANDWIDTH={},RESOLUTION={w}x{h}{},FRAME-RATE={:.3}\n{name}/index.m3u8\n",
            peak.ceil().max(1.0) as u64,
            average.ceil().max(1.0) as u64,
            codecs(&vinfo),
            info.fps,
        ));
        files.push((format!("{name}/index.m3u8"), playlist.into_bytes()));
        files.extend(variant);
    }
    files.insert(0, (MASTER.to_string(), master.into_bytes()));
    Ok(files)
}

/// The `CODECS` attribute from a variant's own stream (profile and level
/// as ffprobe reads them from its first segment), plus AAC-LC when it has
/// sound; empty when the profile is not one HLS players name.
fn codecs(info: &ProbeInfo) -> String {
    let profile = match info.profile.as_str() {
        "High" => "6400",
        "Main" => "4D40",
        "Constrained Baseline" => "42E0",
        "Baseline" => "4200",
        _ => return String::new(),
    };
    if !(9..=62).contains(&info.level) {
        return String::new();
    }
    let audio = if info.has_audio { ",mp4a.40.2" } else { "" };
    format!(",CODECS=\"avc1.{profile}{:02X}{audio}\"", info.level)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ladder_never_goes_above_the_source() {
        assert_eq!(ladder(720, &[360, 720, 1080]).ok(), Some(vec![360, 720]));
        assert_eq!(ladder(1080, &[1080, 360]).ok(), Some(vec![360, 1080]));
        assert_eq!(ladder(240, &[360]).ok(), Some(vec![240]));
        assert!(ladder(720, &[480]).is_err());
    }
}
