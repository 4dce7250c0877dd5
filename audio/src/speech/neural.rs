//! The neural voices (Piper joe for English, Kokoro for Japanese) through
//! the pinned Python worker (`scripts/voice-worker.py`, embedded here and
//! written to a temp file when the worker starts): one long-lived child
//! speaking JSON lines on stdin/stdout, started on first use, restarted
//! after a crash, killed on cancel. Without its venv the voices answer
//! [`AudioError::Unavailable`] with the reason.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use engines::Cancel;
use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout};
use tokio::sync::Mutex;

use super::{espeak, Speech, SpeechRequest};
use crate::AudioError;

/// The worker's source, written next to its temp dir at start.
const WORKER_PY: &str = include_str!("../../../scripts/voice-worker.py");

pub const PIPER_LABEL: &str = "Piper joe (neural, VITS)";
pub const KOKORO_LABEL: &str = "Kokoro-82M Japanese (neural)";

/// The Kokoro Japanese voices.
pub const KOKORO_VOICES: [&str; 5] = [
    "jf_alpha",
    "jf_gongitsune",
    "jf_nezumi",
    "jf_tebukuro",
    "jm_kumo",
];

/// Japanese neural text is capped so a request fits the 60 s deadline
/// (Kokoro runs near real time on two cores).
pub const KOKORO_MAX_CHARS: usize = 300;

struct Running {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    _dir: tempfile::TempDir,
}

/// The worker and how to start it.
pub struct NeuralVoices {
    python: Option<PathBuf>,
    piper: bool,
    running: Mutex<Option<Running>>,
}

impl NeuralVoices {
    /// `python`: the venv's interpreter (`None`: `.venv-voice/bin/python`
    /// in the current directory or the nearest folder above the running
    /// program, as `scripts/fetch-voices` makes it in the checkout).
    pub fn new(python: Option<PathBuf>, piper: bool) -> NeuralVoices {
        let python = python.or_else(default_python);
        NeuralVoices {
            python,
            piper,
            running: Mutex::new(None),
        }
    }

    /// Why the neural voices cannot speak, if they cannot.
    pub fn unavailable_reason(&self, engine: &str) -> Option<String> {
        if engine == "piper" && !self.piper {
            return Some("the Piper voice is turned off (EASEL_VOICE_PIPER=0)".into());
        }
        match &self.python {
            None => Some(
                "the neural voices are not installed: run ./scripts/fetch-voices (it creates \
                 .venv-voice/) or set EASEL_VOICE_PYTHON"
                    .into(),
            ),
            Some(p) if !p.exists() => Some(format!(
                "the neural voices' Python `{}` does not exist: run ./scripts/fetch-voices",
                p.display()
            )),
            Some(_) => None,
        }
    }

    async fn start(python: &Path) -> Result<Running, AudioError> {
        let dir = tempfile::Builder::new()
            .prefix("easel-voice-worker-")
            .tempdir()?;
        let script = dir.path().join("voice-worker.py");
        std::fs::write(&script, WORKER_PY)?;
        let mut child = tokio::process::Command::new(python)
            .arg(&script)
            .env("OMP_NUM_THREADS", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| {
                AudioError::Unavailable(format!(
                    "the neural voice worker cannot start (`{}`: {e})",
                    python.display()
                ))
            })?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(AudioError::Failed("the voice worker has no pipes".into()));
        };
        Ok(Running {
            child,
            stdin,
            stdout: BufReader::new(stdout),
            _dir: dir,
        })
    }

    /// One request to the worker; the worker is restarted once if it died.
    async fn call(
        &self,
        msg: serde_json::Value,
        cancel: &Cancel,
    ) -> Result<serde_json::Value, AudioError> {
        let python = self
            .python
            .clone()
            .ok_or_else(|| AudioError::Unavailable("no voice worker".into()))?;
        let mut slot = self.running.lock().await;
        for attempt in 0..2 {
            if slot.is_none() {
                *slot = Some(Self::start(&python).await?);
            }
            let Some(run) = slot.as_mut() else {
                continue;
            };
            let line = format!("{msg}\n");
            let exchange = async {
                run.stdin.write_all(line.as_bytes()).await?;
                run.stdin.flush().await?;
                let mut answer = String::new();
                let n = run.stdout.read_line(&mut answer).await?;
                Ok::<_, std::io::Error>((n, answer))
            };
            let outcome = tokio::select! {
                r = exchange => Some(r),
                _ = wait_cancel(cancel) => None,
            };
            match outcome {
                None => {
                    // Cancelled mid-sentence: the worker is killed (a new one
                    // starts for the next request).
                    if let Some(mut r) = slot.take() {
                        let _ = r.child.kill().await;
                    }
                    return Err(AudioError::Cancelled);
                }
                Some(Ok((n, answer))) if n > 0 => {
                    let v: serde_json::Value =
                        serde_json::from_str(answer.trim()).map_err(|e| {
                            AudioError::Failed(format!("the voice worker answered garbage: {e}"))
                        })?;
                    if v.get("ok").and_then(|o| o.as_bool()) == Some(true) {
                        return Ok(v);
                    }
                    let err = v
                        .get("error")
                        .and_then(|e| e.as_str())
                        .unwrap_or("unknown error")
                        .to_string();
                    return Err(
                        if v.get("unavailable").and_then(|o| o.as_bool()) == Some(true) {
                            AudioError::Unavailable(err)
                        } else {
                            AudioError::Failed(format!("the voice worker failed: {err}"))
                        },
                    );
                }
                Some(_) => {
                    // The worker died (EOF or a broken pipe): restart it once.
                    if let Some(mut r) = slot.take() {
                        let _ = r.child.kill().await;
                    }
                    tracing::warn!(attempt, "the neural voice worker died; restarting it");
                }
            }
        }
        Err(AudioError::Unavailable(
            "the neural voice worker keeps dying (see its stderr)".into(),
        ))
    }

    /// Speaks with Piper (`engine` `piper`) or Kokoro (`kokoro`).
    pub async fn speak(&self, req: &SpeechRequest, cancel: &Cancel) -> Result<Speech, AudioError> {
        let engine = req.voice.engine.as_str();
        if let Some(why) = self.unavailable_reason(engine) {
            return Err(AudioError::Unavailable(why));
        }
        let dir = tempfile::Builder::new().prefix("easel-voice-").tempdir()?;
        let out = dir.path().join("out.wav");
        let speed = req.speed.clamp(0.5, 2.0);
        let (msg, phonemes_from) = match engine {
            "piper" => {
                // eSpeak phonemises (Piper was trained on its IPA); its
                // phoneme list is reused for the timings.
                let ipa_req = SpeechRequest {
                    voice: protocol::audio::VoiceSpec {
                        engine: "espeak".into(),
                        base: "en-us".into(),
                        language: "en".into(),
                        params: json!({}),
                    },
                    ..req.clone()
                };
                let c = cancel.clone();
                let ipa = tokio::task::spawn_blocking(move || espeak::ipa_blocking(&ipa_req, &c))
                    .await
                    .map_err(|e| AudioError::Failed(format!("phonemiser panicked: {e}")))??;
                let (noise, noise_w) = piper_noise(&req.emotion);
                (
                    json!({"engine": "piper", "voice": "joe", "ipa": ipa, "speed": speed,
                           "noise_scale": noise, "noise_w": noise_w, "out": out}),
                    Some(ipa),
                )
            }
            "kokoro" => {
                let voice = if KOKORO_VOICES.contains(&req.voice.base.as_str()) {
                    req.voice.base.as_str()
                } else {
                    "jf_alpha"
                };
                let text: String = req.text.chars().take(KOKORO_MAX_CHARS).collect();
                (
                    json!({"engine": "kokoro", "voice": voice, "text": text, "speed": speed,
                           "out": out}),
                    None,
                )
            }
            other => {
                return Err(AudioError::BadInput(format!(
                    "`{other}` is not a neural voice engine"
                )))
            }
        };
        self.call(msg, cancel).await?;
        let pcm = espeak::read_wav(&out)?;
        if pcm.samples.is_empty() {
            return Err(AudioError::Failed("the neural voice made no sound".into()));
        }
        let phonemes = phonemes_from
            .map(|ipa| espeak::estimate_timings(&espeak::ipa_units(&ipa), &pcm))
            .unwrap_or_default();
        Ok(Speech {
            pcm,
            phonemes,
            engine: engine.into(),
            neural: true,
            applied: json!({
                "voice": req.voice.base,
                "speed": if engine == "piper" { "length_scale" } else { "speed" },
                "emotion": if engine == "piper" && piper_noise(&req.emotion) != piper_noise("") {
                    "variation"
                } else {
                    "none"
                },
            }),
        })
    }
}

fn default_python() -> Option<PathBuf> {
    let rel = Path::new(".venv-voice/bin/python");
    if rel.exists() {
        return Some(rel.to_path_buf());
    }
    let exe = std::env::current_exe().ok()?;
    exe.ancestors()
        .skip(1)
        .map(|d| d.join(rel))
        .find(|p| p.exists())
}

/// Piper's (noise_scale, noise_w) for an emotion: livelier emotions vary
/// more (the model has no emotion control; this is all it honours).
pub fn piper_noise(emotion: &str) -> (f32, f32) {
    match emotion.trim().to_ascii_lowercase().as_str() {
        "happy" | "cheerful" | "excited" | "angry" | "surprised" => (0.8, 1.0),
        "sad" | "calm" | "gentle" | "melancholic" => (0.5, 0.5),
        _ => (0.667, 0.8),
    }
}

async fn wait_cancel(cancel: &Cancel) {
    while !cancel.is_cancelled() {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
