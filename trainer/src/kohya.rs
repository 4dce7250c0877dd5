//! kohya-ss sd-scripts on this worker: the dataset is laid out as
//! sd-scripts expects (`img/{repeats}_{trigger}/NNNN.png` with `NNNN.txt`
//! captions) and described by a dataset TOML (`--dataset_config`); the
//! family picks `train_network.py` (SD 1.x), `sdxl_train_network.py` (SDXL
//! and its derivatives) or `flux_train_network.py` (Flux, with
//! `networks.lora_flux` and its text encoders and autoencoder). Progress is
//! read from the tqdm bar sd-scripts prints (`steps:  12%|...| 48/400
//! [...]`), cancel kills the process group, and the LoRA is read from
//! `--output_dir/--output_name.safetensors`.

use std::collections::{BTreeMap, VecDeque};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use engines::Cancel;
use tokio::io::AsyncReadExt;

use crate::{TrainError, TrainJob, TrainOutput, TrainProgress, Trainer};

#[derive(Debug, Clone, PartialEq, Default)]
pub struct KohyaSettings {
    /// The sd-scripts checkout.
    pub dir: Option<PathBuf>,
    pub python: String,
    /// Base checkpoint per family id.
    pub checkpoints: BTreeMap<String, PathBuf>,
    pub flux_clip_l: Option<PathBuf>,
    pub flux_t5xxl: Option<PathBuf>,
    pub flux_ae: Option<PathBuf>,
    pub mixed_precision: String,
}

pub struct KohyaTrainer {
    s: KohyaSettings,
    dir: PathBuf,
}

/// Lines of output kept for the log.
const MAX_LOG_LINES: usize = 400;
/// Lines of the trainer's stderr quoted when it fails.
const ERROR_TAIL_LINES: usize = 5;

impl KohyaTrainer {
    pub fn new(s: KohyaSettings) -> Result<KohyaTrainer, String> {
        let dir = s
            .dir
            .clone()
            .ok_or("EASEL_KOHYA_DIR (the sd-scripts folder) is not set")?;
        if !dir.join("train_network.py").is_file() {
            return Err(format!(
                "{} has no train_network.py: not an sd-scripts checkout",
                dir.display()
            ));
        }
        Ok(KohyaTrainer { s, dir })
    }

    fn script(family: &str) -> Option<&'static str> {
        match family {
            "sd" => Some("train_network.py"),
            "sdxl" | "il" | "il3" => Some("sdxl_train_network.py"),
            "flux" => Some("flux_train_network.py"),
            _ => None,
        }
    }

    /// Lays the dataset out and writes its TOML; answers the TOML's path.
    fn prepare(job: &TrainJob) -> Result<PathBuf, TrainError> {
        let p = &job.params;
        let sub = job
            .work_dir
            .join("img")
            .join(format!("{}_{}", p.repeats, p.trigger_word));
        let io = |e: std::io::Error| TrainError::Failed(format!("laying out the dataset: {e}"));
        std::fs::create_dir_all(&sub).map_err(io)?;
        for (i, img) in job.images.iter().enumerate() {
            let ext = img
                .path
                .extension()
                .and_then(|e| e.to_str())
                .unwrap_or("png");
            let stem = format!("{:04}", i + 1);
            std::fs::copy(&img.path, sub.join(format!("{stem}.{ext}"))).map_err(io)?;
            std::fs::write(sub.join(format!("{stem}.txt")), &img.caption).map_err(io)?;
        }
        let toml = format!(
            "[general]\nshuffle_caption = false\ncaption_extension = \".txt\"\nkeep_tokens = 1\n\n\
             [[datasets]]\nresolution = {res}\nbatch_size = {batch}\nenable_bucket = true\n\n\
             [[datasets.subsets]]\nimage_dir = {dir}\nnum_repeats = {rep}\nclass_tokens = {tok}\n",
            res = p.resolution,
            batch = p.batch_size,
            dir = toml_str(&sub.to_string_lossy()),
            rep = p.repeats,
            tok = toml_str(&p.trigger_word),
        );
        let path = job.work_dir.join("dataset.toml");
        std::fs::write(&path, toml).map_err(io)?;
        Ok(path)
    }

    fn args(
        &self,
        job: &TrainJob,
        script: &str,
        toml: &std::path::Path,
    ) -> Result<Vec<String>, TrainError> {
        let p = &job.params;
        let ckpt = self.s.checkpoints.get(&job.family).ok_or_else(|| {
            TrainError::Unavailable(format!(
                "no base checkpoint for family `{}` on this worker (EASEL_KOHYA_CKPT_*)",
                job.family
            ))
        })?;
        let out = job.work_dir.join("out");
        let mut a: Vec<String> = vec![
            self.dir.join(script).to_string_lossy().into_owned(),
            "--pretrained_model_name_or_path".into(),
            ckpt.to_string_lossy().into_owned(),
            "--dataset_config".into(),
            toml.to_string_lossy().into_owned(),
            "--output_dir".into(),
            out.to_string_lossy().into_owned(),
            "--output_name".into(),
            "easel_lora".into(),
            "--save_model_as".into(),
            "safetensors".into(),
            "--network_dim".into(),
            p.network_dim.to_string(),
            "--network_alpha".into(),
            p.network_alpha.to_string(),
            "--learning_rate".into(),
            p.learning_rate.to_string(),
            "--max_train_epochs".into(),
            p.epochs.to_string(),
            "--optimizer_type".into(),
            p.optimizer.clone(),
            "--mixed_precision".into(),
            self.s.mixed_precision.clone(),
            "--seed".into(),
            p.seed.to_string(),
            "--training_comment".into(),
            format!("trigger: {}", p.trigger_word),
            "--caption_extension".into(),
            ".txt".into(),
        ];
        if job.family == "flux" {
            a.extend(["--network_module".into(), "networks.lora_flux".into()]);
            for (flag, path) in [
                ("--clip_l", &self.s.flux_clip_l),
                ("--t5xxl", &self.s.flux_t5xxl),
                ("--ae", &self.s.flux_ae),
            ] {
                let path = path.as_ref().ok_or_else(|| {
                    TrainError::Unavailable(format!(
                        "Flux training needs {flag} (EASEL_KOHYA_FLUX_*)"
                    ))
                })?;
                a.extend([flag.to_string(), path.to_string_lossy().into_owned()]);
            }
        } else {
            a.extend(["--network_module".into(), "networks.lora".into()]);
        }
        Ok(a)
    }
}

fn toml_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// `(done, total)` from a tqdm line such as `steps:  12%|█▏  | 48/400 [00:10<01:12, 4.8it/s, avr_loss=0.1]`.
pub fn parse_progress(line: &str) -> Option<(u32, u32)> {
    let rest = line.trim_start().strip_prefix("steps:")?;
    let after_bar = rest.rsplit_once('|').map_or(rest, |(_, r)| r).trim_start();
    let frac = after_bar.split_whitespace().next()?;
    let (d, t) = frac.split_once('/')?;
    Some((d.parse().ok()?, t.parse().ok()?))
}

/// The last `avr_loss=` a tqdm line shows.
pub fn parse_loss(line: &str) -> Option<f64> {
    let (_, r) = line.rsplit_once("avr_loss=")?;
    r.trim_end_matches(|c: char| c == ']' || c.is_whitespace())
        .split([',', ']'])
        .next()?
        .trim()
        .parse()
        .ok()
}

fn kill_group(pid: u32) {
    // The trainer runs in its own process group (its id is the child's pid):
    // `kill -s TERM -- -<pgid>` stops it and every worker it started.
    let _ = std::process::Command::new("kill")
        .args(["-s", "TERM", "--", &format!("-{pid}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

#[async_trait::async_trait]
impl Trainer for KohyaTrainer {
    fn name(&self) -> &'static str {
        "kohya"
    }
    fn neural(&self) -> bool {
        true
    }
    fn label(&self) -> String {
        "kohya-ss sd-scripts (LoRA)".into()
    }

    async fn train(
        &self,
        job: &TrainJob,
        progress: Arc<dyn TrainProgress>,
        cancel: Cancel,
    ) -> Result<TrainOutput, TrainError> {
        let script = Self::script(&job.family).ok_or_else(|| {
            TrainError::Unavailable(format!(
                "sd-scripts does not train `{}` LoRAs here",
                job.family
            ))
        })?;
        let toml = Self::prepare(job)?;
        let args = self.args(job, script, &toml)?;
        let total = job.steps();
        let mut cmd = std::process::Command::new(&self.s.python);
        cmd.args(&args)
            .current_dir(&self.dir)
            .env("PYTHONUNBUFFERED", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        let mut child = tokio::process::Command::from(cmd)
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| TrainError::Unavailable(format!("starting {}: {e}", self.s.python)))?;
        let pid = child.id().unwrap_or(0);
        let mut err = child
            .stderr
            .take()
            .ok_or(TrainError::Failed("no stderr".into()))?;
        let mut out = child
            .stdout
            .take()
            .ok_or(TrainError::Failed("no stdout".into()))?;
        let mut log = vec![format!("{} {}", self.s.python, args.join(" "))];
        let mut loss = None;
        let (mut ebuf, mut obuf) = ([0u8; 4096], [0u8; 4096]);
        // One line buffer per stream: tqdm's carriage-return bar on stderr
        // must not splice into stdout's lines.
        let (mut e_lines, mut o_lines) = (LineSplitter::default(), LineSplitter::default());
        // The last lines the trainer wrote on stderr, where Python puts its
        // errors: a failure quotes these, whatever order the two pipes were
        // read in.
        let mut err_tail: VecDeque<String> = VecDeque::new();
        let mut tick = tokio::time::interval(Duration::from_millis(200));
        let (mut e_open, mut o_open) = (true, true);
        let mut handle =
            |lines: Vec<String>, from_err: bool, log: &mut Vec<String>, loss: &mut Option<f64>| {
                for line in lines {
                    if let Some((d, t)) = parse_progress(&line) {
                        progress.step(d, t.max(total));
                        if let Some(l) = parse_loss(&line) {
                            *loss = Some(l);
                        }
                        continue;
                    }
                    if from_err {
                        if err_tail.len() == ERROR_TAIL_LINES {
                            err_tail.pop_front();
                        }
                        err_tail.push_back(line.clone());
                    }
                    if log.len() < MAX_LOG_LINES {
                        log.push(line);
                    }
                }
            };
        while e_open || o_open {
            tokio::select! {
                r = err.read(&mut ebuf), if e_open => match r {
                    Ok(0) | Err(_) => {
                        e_open = false;
                        handle(e_lines.finish(), true, &mut log, &mut loss);
                    }
                    Ok(n) => handle(e_lines.push(ebuf.get(..n).unwrap_or_default()), true, &mut log, &mut loss),
                },
                r = out.read(&mut obuf), if o_open => match r {
                    Ok(0) | Err(_) => {
                        o_open = false;
                        handle(o_lines.finish(), false, &mut log, &mut loss);
                    }
                    Ok(n) => handle(o_lines.push(obuf.get(..n).unwrap_or_default()), false, &mut log, &mut loss),
                },
                _ = tick.tick() => {
                    if cancel.is_cancelled() {
                        kill_group(pid);
                        // The trainer itself, should it ignore SIGTERM.
                        let _ = child.start_kill();
                        let _ = child.wait().await;
                        return Err(TrainError::Cancelled);
                    }
                }
            }
        }
        let status = child
            .wait()
            .await
            .map_err(|e| TrainError::Failed(format!("waiting for sd-scripts: {e}")))?;
        if cancel.is_cancelled() {
            return Err(TrainError::Cancelled);
        }
        if !status.success() {
            let tail: Vec<String> = if err_tail.is_empty() {
                let n = log.len().saturating_sub(ERROR_TAIL_LINES);
                log.get(n..).unwrap_or_default().to_vec()
            } else {
                err_tail.into_iter().collect()
            };
            return Err(TrainError::Failed(format!(
                "sd-scripts exited with {status}: {}",
                tail.join(" | ")
            )));
        }
        let file = job.work_dir.join("out").join("easel_lora.safetensors");
        let bytes = tokio::fs::read(&file).await.map_err(|e| {
            TrainError::Failed(format!("sd-scripts wrote no {}: {e}", file.display()))
        })?;
        progress.step(total, total);
        let mut metrics = BTreeMap::new();
        metrics.insert("steps".into(), f64::from(total));
        if let Some(l) = loss {
            metrics.insert("loss".into(), l);
        }
        Ok(TrainOutput {
            safetensors: bytes,
            log,
            metrics,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tqdm_lines_are_read() {
        assert_eq!(
            parse_progress(
                "steps:  12%|█▏        | 48/400 [00:10<01:12,  4.85it/s, avr_loss=0.123]"
            ),
            Some((48, 400))
        );
        assert_eq!(
            parse_loss("steps:  12%|█▏ | 48/400 [00:10<01:12,  4.85it/s, avr_loss=0.123]"),
            Some(0.123)
        );
        assert_eq!(parse_progress("epoch 1/10"), None);
        assert_eq!(parse_progress("steps: garbage"), None);
    }
}

/// Splits a byte stream into lines at `\n` or `\r` (tqdm redraws its bar
/// with carriage returns), skipping blank ones; bytes are decoded per whole
/// line, so a UTF-8 character cut between two reads stays intact.
#[derive(Default)]
struct LineSplitter {
    pending: Vec<u8>,
}

impl LineSplitter {
    fn push(&mut self, bytes: &[u8]) -> Vec<String> {
        self.pending.extend_from_slice(bytes);
        let mut lines = Vec::new();
        while let Some(i) = self.pending.iter().position(|b| *b == b'\n' || *b == b'\r') {
            let line: Vec<u8> = self.pending.drain(..=i).collect();
            Self::keep(&line, &mut lines);
        }
        lines
    }

    /// The last line, when the stream ends without a newline.
    fn finish(&mut self) -> Vec<String> {
        let mut lines = Vec::new();
        let rest = std::mem::take(&mut self.pending);
        Self::keep(&rest, &mut lines);
        lines
    }

    fn keep(line: &[u8], lines: &mut Vec<String>) {
        let text = String::from_utf8_lossy(line);
        let text = text.trim_end_matches(['\r', '\n']);
        if !text.trim().is_empty() {
            lines.push(text.to_string());
        }
    }
}

#[cfg(test)]
mod line_tests {
    use super::LineSplitter;

    #[test]
    fn lines_split_at_newlines_and_carriage_returns_across_reads() {
        let mut s = LineSplitter::default();
        assert_eq!(s.push(b"\rsteps: 10%| 1/10"), Vec::<String>::new());
        assert_eq!(s.push(b"\rsteps: 20%"), vec!["steps: 10%| 1/10"]);
        assert_eq!(
            s.push(b"| 2/10\n\nRuntimeError: CUDA"),
            vec!["steps: 20%| 2/10"]
        );
        assert_eq!(
            s.push(b" out of memory\n"),
            vec!["RuntimeError: CUDA out of memory"]
        );
        assert_eq!(
            s.push("caf\u{e9}".as_bytes().get(..4).unwrap()),
            Vec::<String>::new()
        );
        assert_eq!(
            s.push("caf\u{e9}".as_bytes().get(4..).unwrap()),
            Vec::<String>::new()
        );
        assert_eq!(s.finish(), vec!["caf\u{e9}"]);
        assert!(s.finish().is_empty());
    }
}
