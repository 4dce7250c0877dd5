//! The spec's enumerations for generation (spec 1 §4): action codes,
//! categories, task status and speed types, serialised as the integers the
//! spec uses.

use serde::{Deserialize, Serialize};

macro_rules! int_enum {
    ($(#[$m:meta])* $name:ident : $repr:ty { $( $(#[$d:meta])* $v:ident = $n:expr, $s:expr; )* }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(try_from = "i64", into = "i64")]
        pub enum $name { $( $(#[$d])* $v, )* }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$v,)*];
            pub const fn code(self) -> $repr { match self { $($name::$v => $n,)* } }
            /// The spec's name for the value.
            pub const fn name(self) -> &'static str { match self { $($name::$v => $s,)* } }
            pub fn from_code(n: i64) -> Option<$name> {
                match n { $(x if x == $n as i64 => Some($name::$v),)* _ => None }
            }
        }
        impl TryFrom<i64> for $name {
            type Error = String;
            fn try_from(n: i64) -> Result<Self, String> {
                $name::from_code(n).ok_or_else(|| format!("unknown {} {n}", stringify!($name)))
            }
        }
        impl From<$name> for i64 {
            fn from(v: $name) -> i64 { v.code() as i64 }
        }
        #[cfg(feature = "openapi")]
        integer_schema!($name, concat!(stringify!($name), ": ", $($s, " = ", stringify!($n), "; ",)*), [$($n),*]);
    };
}

int_enum! {
    /// What a task does (spec 1 §4 action codes). `Upscale` (2) is the code of
    /// the task call list; `ExtraUpscale` (6) the workspace tab's; both upscale.
    Action: u16 {
        TextToImage = 1, "textToImage";
        Upscale = 2, "upscale";
        Variation = 3, "variation";
        ExtraUpscale = 6, "extraUpscale";
        RemoveBackground = 7, "removeBackground";
        Descriptors = 8, "descriptors";
        ImageToImage = 9, "imageToImage";
        ConditionToImage = 10, "conditionToImage";
        Preview = 12, "preview";
        Expansion = 13, "expansion";
        FaceSwap = 22, "faceSwap";
        Animation = 24, "animGen";
        CharacterRepair = 25, "characterRepair";
        TextToVideo = 42, "textToVideo";
        ImageToVideo = 43, "imgToVideo";
        MultiImageToVideo = 44, "multiImgToVideo";
        VideoEffect = 45, "videoEffect";
        Live2d = 46, "img2Live2d";
        VideoUpscale = 47, "videoUpscale";
        VideoExtend = 48, "videoExtend";
        FrameInterpolation = 49, "frameInterpolation";
        VideoEdit = 50, "videoEdit";
        TextToAudioEffect = 51, "textToAudioEffect";
        TextToMusic = 52, "textToMusic";
        VideoToAudio = 53, "videoToAudio";
        AudioToLipVideo = 54, "audioToLipVideo";
        VideoAddMusic = 55, "videoAddMusic";
        TimbreTrain = 56, "timbreTrain";
        LoraTrain = 57, "loraTrain";
    }
}

impl Action {
    /// The video actions (spec 2), made from a `video::VideoJob` carried in
    /// the job; their outputs are MP4 files with a poster each.
    pub const fn is_video(self) -> bool {
        matches!(
            self,
            Action::TextToVideo
                | Action::ImageToVideo
                | Action::MultiImageToVideo
                | Action::VideoEffect
                | Action::Live2d
                | Action::VideoUpscale
                | Action::VideoExtend
                | Action::FrameInterpolation
                | Action::VideoEdit
        )
    }

    /// The audio actions (spec 2 §1, §7; spec 3 §7 timbre training), made
    /// from an `audio::AudioJob` carried in the job. Their outputs are audio
    /// files (`audio_uris`), and an MP4 for those that make a video.
    pub const fn is_audio(self) -> bool {
        matches!(
            self,
            Action::TextToAudioEffect
                | Action::TextToMusic
                | Action::VideoToAudio
                | Action::AudioToLipVideo
                | Action::VideoAddMusic
                | Action::TimbreTrain
        )
    }

    /// Training a LoRA from a dataset (issue 19; spec 3 §7 Training): the
    /// job carries a `models::train::TrainSpec` and the dataset's images as
    /// `Init` inputs; its one output is a safetensors file. Code 57 is ours.
    pub const fn is_training(self) -> bool {
        matches!(self, Action::LoraTrain)
    }

    /// The video tools, which work on an existing video.
    pub const fn is_video_tool(self) -> bool {
        matches!(
            self,
            Action::VideoUpscale | Action::VideoExtend | Action::FrameInterpolation
        )
    }

    /// The task action of a video action.
    pub fn of_video(v: crate::video::VideoAction) -> Option<Action> {
        use crate::video::VideoAction as V;
        Some(match v {
            V::TextToVideo => Action::TextToVideo,
            V::ImageToVideo => Action::ImageToVideo,
            V::MultiImageToVideo => Action::MultiImageToVideo,
            V::Effect => Action::VideoEffect,
            V::Live2d => Action::Live2d,
            V::Upscale => Action::VideoUpscale,
            V::Extend => Action::VideoExtend,
            V::FrameInterpolation => Action::FrameInterpolation,
            V::Edit => Action::VideoEdit,
        })
    }

    /// Tabs whose output is made from a prompt (spec 1 §5: a non-empty prompt is required).
    pub const fn needs_prompt(self) -> bool {
        matches!(
            self,
            Action::TextToImage
                | Action::ImageToImage
                | Action::ConditionToImage
                | Action::Expansion
        )
    }

    /// Tabs that work on an input image (spec 1 §5: pleaseUoloadImage / pleaseSelectImage).
    pub const fn needs_image(self) -> bool {
        !matches!(self, Action::TextToImage | Action::TextToVideo)
            && !self.is_audio()
            && !self.is_training()
    }

    /// Whether the output is a text (image description) rather than media.
    pub const fn outputs_text(self) -> bool {
        matches!(self, Action::Descriptors)
    }
}

int_enum! {
    /// Creative mode (spec 1 §4): 1 normal, 5 sdxl, 7 studio (11 is read as
    /// studio), 3 bot-style.
    Category: u16 {
        Normal = 1, "normal";
        Normal2 = 2, "normal";
        Bot = 3, "bot";
        Sdxl = 5, "sdxl";
        Studio = 7, "studio";
        Studio11 = 11, "studio";
    }
}

impl Category {
    /// 11 is treated as studio, 2 as normal.
    pub const fn canonical(self) -> Category {
        match self {
            Category::Studio11 => Category::Studio,
            Category::Normal2 => Category::Normal,
            c => c,
        }
    }
    pub const fn is_studio(self) -> bool {
        matches!(self.canonical(), Category::Studio)
    }
}

int_enum! {
    /// Task status (spec 1 §4): 1 and 2 are polled; 3 success; 4 failed or ended.
    TaskStatus: u8 {
        Queued = 1, "queued";
        Running = 2, "running";
        Success = 3, "success";
        Ended = 4, "failed";
    }
}

impl TaskStatus {
    pub const fn is_final(self) -> bool {
        matches!(self, TaskStatus::Success | TaskStatus::Ended)
    }
}

int_enum! {
    /// Queue lane (spec 1 §6): free accounts speed 1, paid accounts speed 2.
    SpeedType: u8 {
        Normal = 1, "normal";
        Fast = 2, "fast";
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn action_codes_are_the_specs() {
        let table = [
            (Action::TextToImage, 1),
            (Action::ImageToImage, 9),
            (Action::ConditionToImage, 10),
            (Action::ExtraUpscale, 6),
            (Action::Upscale, 2),
            (Action::Descriptors, 8),
            (Action::Preview, 12),
            (Action::Expansion, 13),
            (Action::CharacterRepair, 25),
            (Action::FaceSwap, 22),
            (Action::Variation, 3),
            (Action::Animation, 24),
            (Action::RemoveBackground, 7),
            // Video (the codes of `video::VideoAction`).
            (Action::TextToVideo, 42),
            (Action::ImageToVideo, 43),
            (Action::MultiImageToVideo, 44),
            (Action::VideoEffect, 45),
            (Action::Live2d, 46),
            (Action::VideoUpscale, 47),
            (Action::VideoExtend, 48),
            (Action::FrameInterpolation, 49),
            (Action::VideoEdit, 50),
            // Audio (ours: the spec names the calls, not their codes).
            (Action::TextToAudioEffect, 51),
            (Action::TextToMusic, 52),
            (Action::VideoToAudio, 53),
            (Action::AudioToLipVideo, 54),
            (Action::VideoAddMusic, 55),
            (Action::TimbreTrain, 56),
            // Training (ours).
            (Action::LoraTrain, 57),
        ];
        assert_eq!(table.len(), Action::ALL.len());
        for &a in Action::ALL.iter().filter(|a| a.is_video()) {
            let v = crate::video::codes::VideoAction::from_code(i64::from(a.code())).unwrap();
            assert_eq!(Action::of_video(v), Some(a));
        }
        for (a, n) in table {
            assert_eq!(a.code(), n);
            assert_eq!(serde_json::to_string(&a).unwrap(), n.to_string());
            assert_eq!(serde_json::from_str::<Action>(&n.to_string()).unwrap(), a);
        }
        assert!(serde_json::from_str::<Action>("4").is_err());
    }

    #[test]
    fn categories_canonicalise() {
        assert_eq!(Category::Studio11.canonical(), Category::Studio);
        assert!(Category::Studio11.is_studio());
        assert_eq!(
            serde_json::from_str::<Category>("11").unwrap(),
            Category::Studio11
        );
        assert_eq!(TaskStatus::from_code(3), Some(TaskStatus::Success));
        assert!(TaskStatus::Ended.is_final() && !TaskStatus::Running.is_final());
    }
}
