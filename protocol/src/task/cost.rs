//! What a job costs in credits, and how long it is expected to take: pure
//! functions of the normalised [`JobSpec`].
//!
//! | action | credits per output |
//! |---|---|
//! | text-to-image 1, image-to-image 9, condition 10, expansion 13, variation 3 | `ceil(megapixels) * ceil(steps / 20)` |
//! | upscale 2 and 6 | `ceil(output megapixels)` |
//! | remove background 7, descriptors 8, preview 12 | 1 |
//! | face swap 22, character repair 25 | 2 |
//! | animation 24 | `ceil(frames / 8) * ceil(megapixels)` |
//!
//! A megapixel is 1024 x 1024 pixels, so the default sizes of every mode
//! (688x1024, 832x1216) are one. The total is that times `n_iter`, and never
//! below 1. The fast lane costs the same: membership pays for speed, so a
//! paid account is never charged twice for it. Visitors pay nothing (a free
//! quota); that is decided by [`super::rules::prepare`], not here.

use super::codes::{Action, SpeedType};
use super::job::JobSpec;

const MEGAPIXEL: u64 = 1024 * 1024;

fn megapixels_ceil(width: u32, height: u32) -> i64 {
    let px = u64::from(width) * u64::from(height);
    i64::try_from(px.div_ceil(MEGAPIXEL).max(1)).unwrap_or(i64::MAX)
}

/// Credits for one output of `job`.
fn per_output(job: &JobSpec) -> i64 {
    let mp = megapixels_ceil(job.width, job.height);
    match job.action {
        Action::TextToImage
        | Action::ImageToImage
        | Action::ConditionToImage
        | Action::Expansion
        | Action::Variation => mp.saturating_mul(i64::from(job.steps.div_ceil(20).max(1))),
        Action::Upscale | Action::ExtraUpscale => mp,
        Action::RemoveBackground | Action::Descriptors | Action::Preview => 1,
        Action::FaceSwap | Action::CharacterRepair => 2,
        Action::Animation => mp.saturating_mul(i64::from(job.frames.div_ceil(8).max(1))),
        // Priced by the video table (`video::cost`), per output.
        Action::TextToVideo
        | Action::ImageToVideo
        | Action::MultiImageToVideo
        | Action::VideoEffect
        | Action::Live2d
        | Action::VideoUpscale
        | Action::VideoExtend
        | Action::FrameInterpolation
        | Action::VideoEdit => job.video.as_ref().map_or(10, |v| {
            crate::video::cost::video_cost(v) / i64::from(v.n_iter.max(1))
        }),
        // Priced by the audio table (`audio::job::audio_cost`).
        Action::TextToAudioEffect
        | Action::TextToMusic
        | Action::VideoToAudio
        | Action::AudioToLipVideo
        | Action::VideoAddMusic
        | Action::TimbreTrain => job
            .audio
            .as_ref()
            .map_or(2, |a| crate::audio::job::audio_cost(job.action, a)),
        // Priced by the training table (`models::train::train_cost`).
        Action::LoraTrain => job.train.as_ref().map_or(10, |t| t.cost()),
    }
}

/// Credits `job` costs an account. The speed lane does not change it (see the module doc).
pub fn cost(job: &JobSpec, speed: SpeedType) -> i64 {
    // Every lane has the same price (see the module doc).
    let _ = speed;
    per_output(job)
        .saturating_mul(i64::from(job.n_iter.max(1)))
        .max(1)
}

/// Seconds `job` is expected to take once a worker has it (`estimate_time`).
/// A rough model of a GPU engine: 0.25 s per step per megapixel per image,
/// plus 2 s of overhead; upscale 1.5 s per output megapixel; the image tools
/// 3 s; animation 0.5 s per frame per megapixel. Never 0.
pub fn estimate_secs(job: &JobSpec) -> u32 {
    let mp = (f64::from(job.width) * f64::from(job.height) / MEGAPIXEL as f64).max(0.25);
    let n = f64::from(job.n_iter.max(1));
    let secs = match job.action {
        Action::TextToImage
        | Action::ImageToImage
        | Action::ConditionToImage
        | Action::Expansion
        | Action::Variation => 2.0 + 0.25 * f64::from(job.steps) * mp * n,
        Action::Upscale | Action::ExtraUpscale => 2.0 + 1.5 * mp * n,
        Action::RemoveBackground | Action::Descriptors | Action::Preview => 3.0,
        Action::FaceSwap | Action::CharacterRepair => 4.0 * n,
        Action::Animation => 2.0 + 0.5 * f64::from(job.frames.max(1)) * mp,
        Action::TextToVideo
        | Action::ImageToVideo
        | Action::MultiImageToVideo
        | Action::VideoEffect
        | Action::Live2d
        | Action::VideoUpscale
        | Action::VideoExtend
        | Action::FrameInterpolation
        | Action::VideoEdit => f64::from(
            job.video
                .as_ref()
                .map_or(30, crate::video::cost::video_estimate_secs),
        ),
        Action::TextToAudioEffect
        | Action::TextToMusic
        | Action::VideoToAudio
        | Action::AudioToLipVideo
        | Action::VideoAddMusic
        | Action::TimbreTrain => f64::from(job.audio.as_ref().map_or(10, |a| {
            crate::audio::job::audio_estimate_secs(job.action, a)
        })),
        Action::LoraTrain => f64::from(job.train.as_ref().map_or(60, |t| t.estimate_secs())),
    };
    (secs.ceil() as u32).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(action: Action, w: u32, h: u32, steps: u32, n: u32, frames: u32) -> JobSpec {
        JobSpec {
            task_id: String::new(),
            attempt: 0,
            action,
            family: "sd".into(),
            model: "sd15-v1".into(),
            loras: vec![],
            prompt: "a cat".into(),
            negative_prompt: String::new(),
            width: w,
            height: h,
            n_iter: n,
            steps,
            cfg_scale: 7.0,
            seed: 1,
            sampler: "Euler".into(),
            denoising_strength: 0.35,
            inputs: vec![],
            upscale_ratio: 0.0,
            left_margin: 0,
            up_margin: 0,
            control: None,
            frames,
            face_strength: 0.0,
            video: None,
            audio: None,
            model_file: None,
            embeddings: Vec::new(),
            train: None,
        }
    }

    #[test]
    fn cost_table() {
        use Action::*;
        // (action, w, h, steps, n_iter, frames, credits)
        let table = [
            (TextToImage, 688, 1024, 20, 1, 0, 1),
            (TextToImage, 1024, 1024, 20, 1, 0, 1),
            (TextToImage, 1024, 1024, 20, 4, 0, 4),
            (TextToImage, 832, 1216, 30, 4, 0, 8),
            (TextToImage, 1536, 1536, 20, 1, 0, 3),
            (TextToImage, 1024, 1025, 21, 2, 0, 8),
            (TextToImage, 512, 512, 1, 1, 0, 1),
            (ImageToImage, 688, 1024, 20, 2, 0, 2),
            (ConditionToImage, 1024, 1024, 40, 1, 0, 2),
            (Expansion, 2048, 1024, 20, 1, 0, 2),
            (Variation, 688, 1024, 20, 3, 0, 3),
            (Upscale, 2048, 2048, 20, 1, 0, 4),
            (ExtraUpscale, 1376, 2048, 20, 1, 0, 3),
            (RemoveBackground, 4096, 4096, 20, 1, 0, 1),
            (Descriptors, 1024, 1024, 20, 1, 0, 1),
            (Preview, 1024, 1024, 20, 1, 0, 1),
            (FaceSwap, 1024, 1024, 20, 1, 0, 2),
            (CharacterRepair, 1024, 1024, 20, 1, 0, 2),
            (Animation, 512, 768, 20, 1, 16, 2),
            (Animation, 512, 768, 20, 1, 48, 6),
            (Animation, 512, 768, 20, 1, 17, 3),
            (TextToImage, 688, 1024, 20, 0, 0, 1),
        ];
        for (a, w, h, steps, n, frames, want) in table {
            let j = job(a, w, h, steps, n, frames);
            assert_eq!(
                cost(&j, SpeedType::Normal),
                want,
                "{a:?} {w}x{h} {steps} x{n} f{frames}"
            );
            assert_eq!(cost(&j, SpeedType::Fast), want, "fast lane costs the same");
        }
    }

    #[test]
    fn cost_is_at_least_one_and_grows() {
        for a in Action::ALL {
            assert!(
                cost(&job(*a, 0, 0, 0, 0, 0), SpeedType::Normal) >= 1,
                "{a:?}"
            );
        }
        let small = cost(
            &job(Action::TextToImage, 512, 512, 20, 1, 0),
            SpeedType::Normal,
        );
        let big = cost(
            &job(Action::TextToImage, 2048, 2048, 20, 1, 0),
            SpeedType::Normal,
        );
        assert!(big > small);
    }

    #[test]
    fn estimates() {
        assert_eq!(
            estimate_secs(&job(Action::TextToImage, 1024, 1024, 20, 1, 0)),
            7
        );
        assert_eq!(
            estimate_secs(&job(Action::TextToImage, 1024, 1024, 20, 4, 0)),
            22
        );
        assert_eq!(
            estimate_secs(&job(Action::Descriptors, 1024, 1024, 20, 1, 0)),
            3
        );
        assert_eq!(
            estimate_secs(&job(Action::Upscale, 2048, 2048, 20, 1, 0)),
            8
        );
        assert!(
            estimate_secs(&job(Action::Animation, 512, 512, 20, 1, 48))
                > estimate_secs(&job(Action::Animation, 512, 512, 20, 1, 16))
        );
        for a in Action::ALL {
            assert!(estimate_secs(&job(*a, 0, 0, 0, 0, 0)) >= 1);
        }
    }
}
