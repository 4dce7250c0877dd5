//! Soundtracks for a video: its length (ffprobe) and its cuts (ffmpeg
//! scene detection), music exactly that long with its tempo chosen so the
//! cuts fall near bar lines and an accent on each, and the MP4 with the
//! music muxed in (`-c:v copy`; under the video's own sound when it has
//! some). Video-add-music uses the same composer for the requested length.

use std::path::Path;
use std::sync::Arc;

use engines::reference::video::ffmpeg::{probe_media_file, run, temp_input, tempdir};
use engines::{Cancel, EngineResult, Produced, Progress};
use protocol::audio::AudioJob;
use protocol::task::{Action, JobSpec};

use super::compose::Brief;
use crate::engine::AudioContext;
use crate::ffmpeg::{encode, write_wav, Format};
use crate::AudioError;

/// A scene change above this score is a cut.
const SCENE_THRESHOLD: f64 = 0.3;

/// The times (s) of a video's cuts, in order.
pub fn detect_cuts(path: &Path, cancel: &Cancel) -> Result<Vec<f64>, AudioError> {
    let dir = tempdir().map_err(AudioError::from)?;
    let args: Vec<String> = vec![
        "-nostdin".into(),
        "-v".into(),
        "error".into(),
        "-i".into(),
        path.display().to_string(),
        "-an".into(),
        "-vf".into(),
        format!("select='gt(scene,{SCENE_THRESHOLD})',metadata=print:file=cuts.txt"),
        "-f".into(),
        "null".into(),
        "-".into(),
    ];
    run(&args, dir.path(), &|| cancel.is_cancelled()).map_err(AudioError::from)?;
    let text = std::fs::read_to_string(dir.path().join("cuts.txt")).unwrap_or_default();
    Ok(parse_cuts(&text))
}

/// The `pts_time:` of each frame `metadata=print` wrote.
pub fn parse_cuts(text: &str) -> Vec<f64> {
    let mut cuts: Vec<f64> = text
        .lines()
        .filter_map(|l| {
            l.split_whitespace()
                .find_map(|f| f.strip_prefix("pts_time:"))
        })
        .filter_map(|t| t.parse::<f64>().ok())
        .filter(|t| t.is_finite() && *t > 0.0)
        .collect();
    cuts.sort_by(f64::total_cmp);
    cuts.dedup_by(|a, b| (*a - *b).abs() < 0.2);
    cuts
}

/// Muxes `music` (a WAV path) into `video`: the picture copied, the music
/// under the video's own sound when it has some, as long as the video.
pub fn mux(
    video: &Path,
    music_wav: &Path,
    has_audio: bool,
    dir: &Path,
    cancel: &Cancel,
) -> Result<Vec<u8>, AudioError> {
    let mut args: Vec<String> = ["-nostdin", "-v", "error", "-y", "-i"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.push(video.display().to_string());
    args.push("-i".into());
    args.push(music_wav.display().to_string());
    let filter = if has_audio {
        "[1:a]volume=0.6[m];[0:a][m]amix=inputs=2:duration=first:normalize=0,apad[a]"
    } else {
        "[1:a]apad[a]"
    };
    for a in [
        "-filter_complex",
        filter,
        "-map",
        "0:v:0",
        "-map",
        "[a]",
        "-c:v",
        "copy",
        "-c:a",
        "aac",
        "-b:a",
        "160k",
        "-shortest",
        "-movflags",
        "+faststart",
        "out.mp4",
    ] {
        args.push(a.into());
    }
    run(&args, dir, &|| cancel.is_cancelled()).map_err(AudioError::from)?;
    Ok(std::fs::read(dir.join("out.mp4"))?)
}

/// Video-to-audio and video-add-music: the music (first output, M4A) and
/// the MP4 with it muxed.
pub async fn soundtrack(
    ctx: &AudioContext,
    job: &JobSpec,
    a: &AudioJob,
    video: &[u8],
    progress: &Arc<dyn Progress>,
    cancel: &Cancel,
) -> Result<EngineResult, AudioError> {
    let input = Arc::new(temp_input(video).map_err(AudioError::from)?);
    let (inp, c2) = (input.clone(), cancel.clone());
    let (info, cuts) = tokio::task::spawn_blocking(move || {
        let info = probe_media_file(inp.path()).map_err(AudioError::from)?;
        let v = info
            .video
            .clone()
            .ok_or_else(|| AudioError::BadInput("the source has no video stream".into()))?;
        let cuts = detect_cuts(inp.path(), &c2)?;
        Ok::<_, AudioError>((info, (v, cuts)))
    })
    .await
    .map_err(|e| AudioError::Failed(format!("probe thread: {e}")))??;
    let (v, cuts) = cuts;
    progress.report(5);
    let video_secs = v.duration_ms as f64 / 1000.0;
    if video_secs <= 0.05 {
        return Err(AudioError::BadInput("the video has no length".into()));
    }
    if video_secs > protocol::audio::music::MAX_VIDEO_SECS + 0.5 {
        return Err(AudioError::BadInput(format!(
            "the video is {video_secs:.0} s long; soundtracks are made for videos up to {} s",
            protocol::audio::music::MAX_VIDEO_SECS
        )));
    }
    let seconds = if job.action == Action::VideoAddMusic && a.duration > 0.0 {
        f64::from(a.duration).min(video_secs)
    } else {
        video_secs
    };
    let brief = Brief {
        prompt: a.prompt.clone(),
        lyrics: String::new(),
        seconds,
        seed: job.seed,
        cuts: if job.action == Action::VideoToAudio {
            cuts
        } else {
            Vec::new()
        },
    };
    let song = super::make_song(ctx, brief, None, progress, cancel).await?;
    let (pcm, c3, has_audio) = (song.pcm, cancel.clone(), info.has_audio);
    let (m4a, mp4) = tokio::task::spawn_blocking(move || {
        let dir = tempdir().map_err(AudioError::from)?;
        let wav = dir.path().join("music.wav");
        write_wav(&pcm, &wav)?;
        let mp4 = mux(input.path(), &wav, has_audio, dir.path(), &c3)?;
        let m4a = encode(&pcm, Format::M4a, &c3)?;
        Ok::<_, AudioError>((m4a, mp4))
    })
    .await
    .map_err(|e| AudioError::Failed(format!("mux thread: {e}")))??;
    progress.report(95);
    Ok(EngineResult {
        outputs: vec![
            super::m4a_output(m4a, job.seed),
            Produced {
                bytes: mp4,
                mime: "video/mp4".into(),
                ext: "mp4".into(),
                width: v.width,
                height: v.height,
                seed: job.seed,
                files: Vec::new(),
            },
        ],
        texts: Vec::new(),
        engine: super::info(None),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_are_read_from_metadata_print() {
        let text = "frame:0    pts:12288  pts_time:0.48\nlavfi.scene_score=0.91\n\
                    frame:1    pts:61440  pts_time:2.4\nlavfi.scene_score=0.55\n\
                    frame:2    pts:62464  pts_time:2.44\nlavfi.scene_score=0.40\n";
        assert_eq!(parse_cuts(text), vec![0.48, 2.4]);
        assert!(parse_cuts("").is_empty());
    }
}
