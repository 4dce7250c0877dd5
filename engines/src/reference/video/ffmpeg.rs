//! The `ffmpeg` and `ffprobe` child processes: an [`Encoder`] that takes raw
//! RGB frames on stdin and writes an H.264 MP4, a [`Decoder`] that gives a
//! video's frames back as raw RGB on stdout, a plain [`run`] for packaging
//! commands, and [`probe_file`]. Every child is killed and reaped when its
//! owner is dropped (cancel, error or panic), and its stderr is drained on a
//! thread so it can never block, then quoted in the error when it fails.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::thread::JoinHandle;

use serde::Deserialize;

use super::{MediaInfo, ProbeInfo, Rate};
use crate::EngineError;

/// How much of a failing child's stderr goes into the error.
const STDERR_TAIL: usize = 4000;

/// The `ffmpeg` program: `$EASEL_FFMPEG` or `ffmpeg` on the `PATH`.
pub fn ffmpeg_program() -> OsString {
    std::env::var_os("EASEL_FFMPEG").unwrap_or_else(|| "ffmpeg".into())
}

/// The `ffprobe` program: `$EASEL_FFPROBE` or `ffprobe` on the `PATH`.
pub fn ffprobe_program() -> OsString {
    std::env::var_os("EASEL_FFPROBE").unwrap_or_else(|| "ffprobe".into())
}

/// A running child with its stderr drained on a thread.
pub struct Proc {
    name: String,
    child: Child,
    stderr: Option<JoinHandle<Vec<u8>>>,
    reaped: bool,
}

impl Proc {
    /// Starts `program args` with the given stdin and stdout.
    pub fn spawn(
        program: &OsString,
        args: &[String],
        stdin: Stdio,
        stdout: Stdio,
        dir: Option<&Path>,
    ) -> Result<Proc, EngineError> {
        let name = Path::new(program)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "ffmpeg".into());
        let mut cmd = Command::new(program);
        cmd.args(args)
            .stdin(stdin)
            .stdout(stdout)
            .stderr(Stdio::piped());
        if let Some(dir) = dir {
            cmd.current_dir(dir);
        }
        let mut child = cmd.spawn().map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                EngineError::Failed(format!(
                    "{name} is not installed (program `{}` not found): the reference video \
                     engine needs Debian's ffmpeg package (`apt-get install ffmpeg`), or set \
                     EASEL_FFMPEG / EASEL_FFPROBE to the programs' paths",
                    program.to_string_lossy()
                ))
            } else {
                EngineError::Failed(format!("{name} cannot be started: {e}"))
            }
        })?;
        let stderr = child.stderr.take().map(|mut err| {
            std::thread::spawn(move || {
                let mut tail: Vec<u8> = Vec::new();
                let mut buf = [0u8; 4096];
                loop {
                    match err.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => {
                            tail.extend_from_slice(buf.get(..n).unwrap_or(&[]));
                            if tail.len() > 2 * STDERR_TAIL {
                                tail.drain(..tail.len() - STDERR_TAIL);
                            }
                        }
                    }
                }
                tail
            })
        });
        Ok(Proc {
            name,
            child,
            stderr,
            reaped: false,
        })
    }

    #[cfg(test)]
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// The last part of what the child wrote to stderr (after it ended).
    fn stderr_tail(&mut self) -> String {
        let bytes = self
            .stderr
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default();
        let text = String::from_utf8_lossy(&bytes);
        let text = text.trim();
        let start = text.len().saturating_sub(STDERR_TAIL);
        let start = (start..text.len())
            .find(|i| text.is_char_boundary(*i))
            .unwrap_or(text.len());
        text.get(start..).unwrap_or("").to_string()
    }

    /// Waits for the child; a non-zero exit is an error quoting stderr.
    pub fn wait(&mut self) -> Result<(), EngineError> {
        let status = self
            .child
            .wait()
            .map_err(|e| EngineError::Failed(format!("{} did not finish: {e}", self.name)))?;
        self.reaped = true;
        let tail = self.stderr_tail();
        if status.success() {
            Ok(())
        } else {
            Err(EngineError::Failed(format!(
                "{} failed ({status}): {tail}",
                self.name
            )))
        }
    }

    /// Kills and reaps the child (idempotent).
    pub fn kill(&mut self) {
        if !self.reaped {
            let _ = self.child.kill();
            let _ = self.child.wait();
            self.reaped = true;
        }
    }

    /// The error to give when the pipe to or from the child broke: the
    /// child's own complaint if it failed, else the I/O error.
    fn broken(&mut self, e: std::io::Error) -> EngineError {
        match self.wait() {
            Err(err) => err,
            Ok(()) => EngineError::Failed(format!("{} pipe closed early: {e}", self.name)),
        }
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The x264 settings every MP4 here is written with. A fixed thread count
/// keeps x264's output bytes the same from run to run on one machine.
pub fn x264_args() -> Vec<String> {
    [
        "-c:v", "libx264", "-pix_fmt", "yuv420p", "-preset", "veryfast", "-crf", "23", "-threads",
        "2",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

fn s(x: &str) -> String {
    x.to_string()
}

/// An ffmpeg encoding raw RGB frames from its stdin to an MP4 in a temp dir.
pub struct Encoder {
    proc: Proc,
    stdin: Option<ChildStdin>,
    out: PathBuf,
    frame_len: usize,
    /// Owns the output file; removed on drop.
    _dir: tempfile::TempDir,
}

impl Encoder {
    pub fn start(w: u32, h: u32, rate: Rate) -> Result<Encoder, EngineError> {
        let dir = tempdir()?;
        let out = dir.path().join("out.mp4");
        let mut args = vec![
            s("-hide_banner"),
            s("-loglevel"),
            s("error"),
            s("-f"),
            s("rawvideo"),
            s("-pix_fmt"),
            s("rgb24"),
            s("-s"),
            format!("{w}x{h}"),
            s("-r"),
            rate.to_string(),
            s("-i"),
            s("-"),
            s("-an"),
        ];
        args.extend(x264_args());
        args.extend([
            s("-movflags"),
            s("+faststart"),
            s("-fflags"),
            s("+bitexact"),
            s("-y"),
            out.to_string_lossy().into_owned(),
        ]);
        let mut proc = Proc::spawn(
            &ffmpeg_program(),
            &args,
            Stdio::piped(),
            Stdio::null(),
            None,
        )?;
        let stdin = proc.child.stdin.take();
        Ok(Encoder {
            proc,
            stdin,
            out,
            frame_len: w as usize * h as usize * 3,
            _dir: dir,
        })
    }

    #[cfg(test)]
    pub fn pid(&self) -> u32 {
        self.proc.id()
    }

    /// Writes one frame (`w * h * 3` bytes of RGB).
    pub fn write(&mut self, rgb: &[u8]) -> Result<(), EngineError> {
        if rgb.len() != self.frame_len {
            return Err(EngineError::Failed(format!(
                "frame of {} bytes, the encoder expects {}",
                rgb.len(),
                self.frame_len
            )));
        }
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(EngineError::Failed("the encoder is closed".into()));
        };
        if let Err(e) = stdin.write_all(rgb) {
            self.stdin = None;
            return Err(self.proc.broken(e));
        }
        Ok(())
    }

    /// Closes the input, waits for ffmpeg and reads the MP4 back.
    pub fn finish(mut self) -> Result<Vec<u8>, EngineError> {
        self.stdin = None;
        self.proc.wait()?;
        std::fs::read(&self.out)
            .map_err(|e| EngineError::Failed(format!("the encoded video cannot be read: {e}")))
    }
}

/// An ffmpeg decoding a video file to raw RGB frames of a known size
/// (the filter chain must end at exactly `w` x `h`).
pub struct Decoder {
    proc: Proc,
    stdout: Option<ChildStdout>,
    frame_len: usize,
}

impl Decoder {
    /// Decodes `input` through `filter` (an ffmpeg `-vf` chain) at `rate`,
    /// constant frame rate, at most `limit` frames.
    pub fn start(
        input: &Path,
        filter: &str,
        w: u32,
        h: u32,
        rate: Rate,
        limit: Option<u64>,
    ) -> Result<Decoder, EngineError> {
        let mut args = vec![
            s("-hide_banner"),
            s("-loglevel"),
            s("error"),
            s("-nostdin"),
            s("-i"),
            input.to_string_lossy().into_owned(),
            s("-map"),
            s("0:v:0"),
            s("-an"),
            s("-vf"),
            filter.to_string(),
            s("-fps_mode"),
            s("cfr"),
            s("-r"),
            rate.to_string(),
        ];
        if let Some(n) = limit {
            args.extend([s("-frames:v"), n.to_string()]);
        }
        args.extend([s("-f"), s("rawvideo"), s("-pix_fmt"), s("rgb24"), s("-")]);
        let mut proc = Proc::spawn(
            &ffmpeg_program(),
            &args,
            Stdio::null(),
            Stdio::piped(),
            None,
        )?;
        let stdout = proc.child.stdout.take();
        Ok(Decoder {
            proc,
            stdout,
            frame_len: w as usize * h as usize * 3,
        })
    }

    /// The next frame, or `None` at the end of the video.
    pub fn next_frame(&mut self) -> Result<Option<Vec<u8>>, EngineError> {
        let Some(out) = self.stdout.as_mut() else {
            return Ok(None);
        };
        let mut buf = vec![0u8; self.frame_len];
        let mut got = 0;
        while got < buf.len() {
            match out.read(buf.get_mut(got..).unwrap_or(&mut [])) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.stdout = None;
                    return Err(self.proc.broken(e));
                }
            }
        }
        if got == buf.len() {
            return Ok(Some(buf));
        }
        // End of stream: a clean exit ends the video; a partial frame or a
        // failure is an error.
        self.stdout = None;
        self.proc.wait()?;
        if got == 0 {
            Ok(None)
        } else {
            Err(EngineError::Failed(format!(
                "the decoder stopped inside a frame ({got} of {} bytes)",
                self.frame_len
            )))
        }
    }
}

/// Runs ffmpeg to completion in `dir`, polling `cancel` (the child is
/// killed when it answers true).
pub fn run(args: &[String], dir: &Path, cancel: &dyn Fn() -> bool) -> Result<(), EngineError> {
    let mut proc = Proc::spawn(
        &ffmpeg_program(),
        args,
        Stdio::null(),
        Stdio::null(),
        Some(dir),
    )?;
    loop {
        if cancel() {
            proc.kill();
            return Err(EngineError::Cancelled);
        }
        match proc.child.try_wait() {
            Ok(Some(_)) => return proc.wait(),
            Ok(None) => std::thread::sleep(std::time::Duration::from_millis(20)),
            Err(e) => return Err(EngineError::Failed(format!("ffmpeg did not finish: {e}"))),
        }
    }
}

pub fn tempdir() -> Result<tempfile::TempDir, EngineError> {
    tempfile::Builder::new()
        .prefix("easel-video-")
        .tempdir()
        .map_err(|e| EngineError::Failed(format!("no temporary directory: {e}")))
}

/// Writes bytes to a new temp file (ffmpeg needs to seek in MP4 input).
pub fn temp_input(bytes: &[u8]) -> Result<tempfile::NamedTempFile, EngineError> {
    let mut f = tempfile::Builder::new()
        .prefix("easel-video-in-")
        .tempfile()
        .map_err(|e| EngineError::Failed(format!("no temporary file: {e}")))?;
    f.write_all(bytes)
        .and_then(|_| f.flush())
        .map_err(|e| EngineError::Failed(format!("cannot write a temporary file: {e}")))?;
    Ok(f)
}

#[derive(Debug, Deserialize)]
struct ProbeJson {
    #[serde(default)]
    streams: Vec<StreamJson>,
    format: Option<FormatJson>,
}

#[derive(Debug, Deserialize)]
struct StreamJson {
    codec_type: Option<String>,
    codec_name: Option<String>,
    profile: Option<String>,
    level: Option<i64>,
    width: Option<u32>,
    height: Option<u32>,
    r_frame_rate: Option<String>,
    avg_frame_rate: Option<String>,
    nb_frames: Option<String>,
    duration: Option<String>,
}

#[derive(Debug, Deserialize)]
struct FormatJson {
    format_name: Option<String>,
    duration: Option<String>,
}

/// Runs ffprobe on a file and reads its first video stream.
pub fn probe_file(path: &Path) -> Result<ProbeInfo, EngineError> {
    probe_media_file(path)?
        .video
        .ok_or_else(|| EngineError::BadInput("the file has no video stream".into()))
}

/// Runs ffprobe on a file: its length, whether it has sound, and its first
/// video stream (`Ok(None)` for a sound-only file; an error for a file with
/// neither, or a video stream without size or rate).
pub fn probe_media_file(path: &Path) -> Result<MediaInfo, EngineError> {
    let args = vec![
        s("-v"),
        s("error"),
        s("-print_format"),
        s("json"),
        s("-show_streams"),
        s("-show_format"),
        path.to_string_lossy().into_owned(),
    ];
    let mut proc = Proc::spawn(
        &ffprobe_program(),
        &args,
        Stdio::null(),
        Stdio::piped(),
        None,
    )?;
    let mut out = Vec::new();
    if let Some(mut stdout) = proc.child.stdout.take() {
        stdout
            .read_to_end(&mut out)
            .map_err(|e| EngineError::Failed(format!("ffprobe output cannot be read: {e}")))?;
    }
    proc.wait().map_err(|e| match e {
        EngineError::Failed(m) => EngineError::BadInput(format!("not a readable video: {m}")),
        other => other,
    })?;
    let json: ProbeJson = serde_json::from_slice(&out)
        .map_err(|e| EngineError::Failed(format!("ffprobe answered unreadable JSON: {e}")))?;
    let has_audio = json
        .streams
        .iter()
        .any(|st| st.codec_type.as_deref() == Some("audio"));
    let format_duration = json
        .format
        .as_ref()
        .and_then(|f| f.duration.as_deref())
        .and_then(|d| d.parse::<f64>().ok())
        .filter(|d| d.is_finite() && *d >= 0.0);
    let Some(video) = json
        .streams
        .iter()
        .find(|st| st.codec_type.as_deref() == Some("video"))
    else {
        if !has_audio {
            return Err(EngineError::BadInput(
                "the file has neither pictures nor sound".into(),
            ));
        }
        return Ok(MediaInfo {
            duration_ms: (format_duration.unwrap_or(0.0) * 1000.0).round() as u64,
            has_audio,
            video: None,
        });
    };
    let (width, height) = match (video.width, video.height) {
        (Some(w), Some(h)) if w > 0 && h > 0 => (w, h),
        _ => return Err(EngineError::BadInput("the video stream has no size".into())),
    };
    let rate = [&video.avg_frame_rate, &video.r_frame_rate]
        .into_iter()
        .flatten()
        .find_map(|r| Rate::parse(r))
        .ok_or_else(|| EngineError::BadInput("the video stream has no frame rate".into()))?;
    let duration = [
        video.duration.as_deref(),
        json.format.as_ref().and_then(|f| f.duration.as_deref()),
    ]
    .into_iter()
    .flatten()
    .find_map(|d| d.parse::<f64>().ok().filter(|d| d.is_finite() && *d >= 0.0))
    .unwrap_or(0.0);
    let frames = video
        .nb_frames
        .as_deref()
        .and_then(|n| n.parse::<u64>().ok())
        .filter(|n| *n > 0)
        .unwrap_or_else(|| (duration * rate.as_f64()).round() as u64);
    let duration_ms = (duration * 1000.0).round() as u64;
    Ok(MediaInfo {
        duration_ms,
        has_audio,
        video: Some(ProbeInfo {
            width,
            height,
            duration_ms,
            fps: rate.as_f64(),
            rate,
            frames,
            codec: video.codec_name.clone().unwrap_or_default(),
            profile: video.profile.clone().unwrap_or_default(),
            level: video.level.unwrap_or(0),
            format: json.format.and_then(|f| f.format_name).unwrap_or_default(),
            has_audio,
        }),
    })
}
