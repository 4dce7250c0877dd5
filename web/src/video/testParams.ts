// The answer of `POST /api/v1/task/v2/video/model-gen-param` as the backend gives it
// (protocol/src/video/models.rs), captured from `easel serve`, for the tests.
import type { VideoParams } from '../api/video';

export const TEST_VIDEO_PARAMS: VideoParams = {
  "effects": [
    {
      "credits": 10,
      "duration": 5,
      "fps": 24,
      "id": "zoom_burst",
      "inputs": 1,
      "name": "Zoom Burst"
    },
    {
      "credits": 10,
      "duration": 5,
      "fps": 24,
      "id": "shimmer",
      "inputs": 1,
      "name": "Shimmer"
    },
    {
      "credits": 10,
      "duration": 5,
      "fps": 24,
      "id": "ken_burns",
      "inputs": 1,
      "name": "Ken Burns"
    },
    {
      "credits": 15,
      "duration": 5,
      "fps": 24,
      "id": "ken_burns_duo",
      "inputs": 2,
      "name": "Ken Burns Duo"
    },
    {
      "credits": 20,
      "duration": 5,
      "fps": 24,
      "id": "ken_burns_trio",
      "inputs": 3,
      "name": "Ken Burns Trio"
    }
  ],
  "engine": "Easel reference video (non-neural)",
  "items": [
    {
      "camera_control": true,
      "duration_ctl": {
        "default": 10,
        "options": [
          5,
          10
        ]
      },
      "enable_gen_mode_ctl": true,
      "family": "kling",
      "fps": 30,
      "frame_ctl": 2,
      "live2d": false,
      "model_no": "kl_v1.0",
      "multi_image": false,
      "n_iter_max": 2,
      "name": "Lite",
      "negative_prompt": true,
      "quality_modes": [],
      "resolution_param": {
        "dft_resolution": {
          "aspect_ratio": "9:16",
          "height": 1280,
          "width": 720
        },
        "options": [
          {
            "aspect_ratio": "9:16",
            "height": 1280,
            "width": 720
          },
          {
            "aspect_ratio": "1:1",
            "height": 960,
            "width": 960
          },
          {
            "aspect_ratio": "16:9",
            "height": 720,
            "width": 1280
          }
        ]
      },
      "text_to_video": true
    },
    {
      "camera_control": true,
      "duration_ctl": {
        "default": 10,
        "options": [
          5,
          10
        ]
      },
      "enable_gen_mode_ctl": true,
      "family": "kling",
      "fps": 30,
      "frame_ctl": 2,
      "live2d": false,
      "model_no": "kl_v1.5",
      "multi_image": false,
      "n_iter_max": 2,
      "name": "Depth",
      "negative_prompt": true,
      "quality_modes": [],
      "resolution_param": {
        "dft_resolution": {
          "aspect_ratio": "9:16",
          "height": 1280,
          "width": 720
        },
        "options": [
          {
            "aspect_ratio": "9:16",
            "height": 1280,
            "width": 720
          },
          {
            "aspect_ratio": "1:1",
            "height": 960,
            "width": 960
          },
          {
            "aspect_ratio": "16:9",
            "height": 720,
            "width": 1280
          }
        ]
      },
      "text_to_video": true
    },
    {
      "camera_control": true,
      "duration_ctl": {
        "default": 10,
        "options": [
          5,
          10
        ]
      },
      "enable_gen_mode_ctl": true,
      "family": "kling",
      "fps": 30,
      "frame_ctl": 2,
      "live2d": false,
      "model_no": "kl_v1.6",
      "multi_image": true,
      "n_iter_max": 2,
      "name": "Ultra",
      "negative_prompt": true,
      "quality_modes": [],
      "resolution_param": {
        "dft_resolution": {
          "aspect_ratio": "9:16",
          "height": 1280,
          "width": 720
        },
        "options": [
          {
            "aspect_ratio": "9:16",
            "height": 1280,
            "width": 720
          },
          {
            "aspect_ratio": "1:1",
            "height": 960,
            "width": 960
          },
          {
            "aspect_ratio": "16:9",
            "height": 720,
            "width": 1280
          }
        ]
      },
      "text_to_video": true
    },
    {
      "camera_control": false,
      "duration_ctl": {
        "default": 5,
        "options": [
          5
        ]
      },
      "enable_gen_mode_ctl": false,
      "family": "kling",
      "fps": 30,
      "frame_ctl": 1,
      "live2d": false,
      "model_no": "kl_v2.0",
      "multi_image": false,
      "n_iter_max": 2,
      "name": "Ultra2",
      "negative_prompt": true,
      "quality_modes": [],
      "resolution_param": {
        "dft_resolution": {
          "aspect_ratio": "9:16",
          "height": 1280,
          "width": 720
        },
        "options": [
          {
            "aspect_ratio": "9:16",
            "height": 1280,
            "width": 720
          },
          {
            "aspect_ratio": "1:1",
            "height": 960,
            "width": 960
          },
          {
            "aspect_ratio": "16:9",
            "height": 720,
            "width": 1280
          }
        ]
      },
      "text_to_video": true
    },
    {
      "camera_control": false,
      "duration_ctl": {
        "default": 6,
        "options": [
          6
        ]
      },
      "enable_gen_mode_ctl": false,
      "family": "mini_max",
      "fps": 25,
      "frame_ctl": 1,
      "live2d": true,
      "model_no": "miniMax",
      "multi_image": false,
      "n_iter_max": 3,
      "name": "Sparkle",
      "negative_prompt": false,
      "quality_modes": [],
      "resolution_param": {
        "dft_resolution": {
          "aspect_ratio": "16:9",
          "height": 720,
          "width": 1280
        },
        "options": [
          {
            "aspect_ratio": "16:9",
            "height": 720,
            "width": 1280
          }
        ]
      },
      "text_to_video": true
    },
    {
      "camera_control": false,
      "duration_ctl": {
        "default": 5,
        "options": [
          5
        ]
      },
      "enable_gen_mode_ctl": false,
      "family": "hunyuan",
      "fps": 24,
      "frame_ctl": 1,
      "live2d": false,
      "model_no": "hunyuan_1.0",
      "multi_image": false,
      "n_iter_max": 2,
      "name": "Hunyuan",
      "negative_prompt": true,
      "quality_modes": [],
      "resolution_param": {
        "dft_resolution": {
          "aspect_ratio": "9:16",
          "height": 848,
          "width": 480
        },
        "options": [
          {
            "aspect_ratio": "9:16",
            "height": 848,
            "width": 480
          },
          {
            "aspect_ratio": "1:1",
            "height": 480,
            "width": 480
          },
          {
            "aspect_ratio": "16:9",
            "height": 480,
            "width": 848
          }
        ]
      },
      "text_to_video": true
    },
    {
      "camera_control": false,
      "duration_ctl": {
        "default": 5,
        "options": [
          5
        ]
      },
      "enable_gen_mode_ctl": false,
      "family": "tongyi",
      "fps": 24,
      "frame_ctl": 1,
      "live2d": false,
      "model_no": "tongyi_pro",
      "multi_image": false,
      "n_iter_max": 1,
      "name": "Plus",
      "negative_prompt": true,
      "quality_modes": [],
      "resolution_param": {
        "dft_resolution": {
          "aspect_ratio": "16:9",
          "height": 720,
          "width": 1280
        },
        "options": [
          {
            "aspect_ratio": "16:9",
            "height": 720,
            "width": 1280
          },
          {
            "aspect_ratio": "9:16",
            "height": 1280,
            "width": 720
          },
          {
            "aspect_ratio": "1:1",
            "height": 960,
            "width": 960
          },
          {
            "aspect_ratio": "4:3",
            "height": 832,
            "width": 1088
          },
          {
            "aspect_ratio": "3:4",
            "height": 1088,
            "width": 832
          }
        ]
      },
      "text_to_video": true
    },
    {
      "camera_control": false,
      "duration_ctl": {
        "default": 5,
        "options": [
          5
        ]
      },
      "enable_gen_mode_ctl": false,
      "family": "tongyi",
      "fps": 24,
      "frame_ctl": 1,
      "live2d": false,
      "model_no": "tongyi_fast",
      "multi_image": false,
      "n_iter_max": 1,
      "name": "Turbo",
      "negative_prompt": true,
      "quality_modes": [],
      "resolution_param": {
        "dft_resolution": {
          "aspect_ratio": "16:9",
          "height": 720,
          "width": 1280
        },
        "options": [
          {
            "aspect_ratio": "16:9",
            "height": 720,
            "width": 1280
          },
          {
            "aspect_ratio": "9:16",
            "height": 1280,
            "width": 720
          },
          {
            "aspect_ratio": "1:1",
            "height": 960,
            "width": 960
          },
          {
            "aspect_ratio": "4:3",
            "height": 832,
            "width": 1088
          },
          {
            "aspect_ratio": "3:4",
            "height": 1088,
            "width": 832
          }
        ]
      },
      "text_to_video": true
    },
    {
      "camera_control": false,
      "duration_ctl": {
        "default": 5,
        "options": [
          5,
          8
        ]
      },
      "enable_gen_mode_ctl": false,
      "family": "pix_verse",
      "fps": 24,
      "frame_ctl": 2,
      "live2d": false,
      "model_no": "pixVerse",
      "multi_image": false,
      "n_iter_max": 2,
      "name": "Magic",
      "negative_prompt": true,
      "quality_modes": [
        "360p",
        "540p",
        "720p",
        "1080p"
      ],
      "resolution_param": {
        "dft_resolution": {
          "aspect_ratio": "16:9",
          "height": 720,
          "width": 1280
        },
        "options": [
          {
            "aspect_ratio": "16:9",
            "height": 720,
            "width": 1280
          },
          {
            "aspect_ratio": "9:16",
            "height": 1280,
            "width": 720
          },
          {
            "aspect_ratio": "1:1",
            "height": 960,
            "width": 960
          },
          {
            "aspect_ratio": "4:3",
            "height": 832,
            "width": 1088
          },
          {
            "aspect_ratio": "3:4",
            "height": 1088,
            "width": 832
          }
        ]
      },
      "text_to_video": true
    },
    {
      "camera_control": false,
      "duration_ctl": {
        "default": 5,
        "options": [
          5
        ]
      },
      "enable_gen_mode_ctl": false,
      "family": "wan",
      "fps": 16,
      "frame_ctl": 2,
      "live2d": false,
      "model_no": "wan_video",
      "multi_image": false,
      "n_iter_max": 1,
      "name": "Wan",
      "negative_prompt": true,
      "quality_modes": [],
      "resolution_param": {
        "dft_resolution": {
          "aspect_ratio": "1:1",
          "height": 640,
          "width": 640
        },
        "options": [
          {
            "aspect_ratio": "1:1",
            "height": 640,
            "width": 640
          },
          {
            "aspect_ratio": "9:16",
            "height": 832,
            "width": 480
          },
          {
            "aspect_ratio": "16:9",
            "height": 480,
            "width": 832
          },
          {
            "aspect_ratio": "3:2",
            "height": 480,
            "width": 720
          },
          {
            "aspect_ratio": "2:3",
            "height": 720,
            "width": 480
          }
        ]
      },
      "text_to_video": true
    },
    {
      "camera_control": true,
      "duration_ctl": {
        "default": 5,
        "options": [
          5,
          10
        ]
      },
      "enable_gen_mode_ctl": true,
      "family": "flow",
      "fps": 24,
      "frame_ctl": 2,
      "live2d": false,
      "model_no": "easelFlow",
      "multi_image": false,
      "n_iter_max": 1,
      "name": "Flow",
      "negative_prompt": true,
      "quality_modes": [],
      "resolution_param": {
        "dft_resolution": {
          "aspect_ratio": "16:9",
          "height": 720,
          "width": 1280
        },
        "options": [
          {
            "aspect_ratio": "16:9",
            "height": 720,
            "width": 1280
          },
          {
            "aspect_ratio": "9:16",
            "height": 1280,
            "width": 720
          },
          {
            "aspect_ratio": "1:1",
            "height": 960,
            "width": 960
          },
          {
            "aspect_ratio": "4:3",
            "height": 832,
            "width": 1088
          },
          {
            "aspect_ratio": "3:4",
            "height": 1088,
            "width": 832
          }
        ]
      },
      "text_to_video": true
    },
    {
      "camera_control": true,
      "duration_ctl": {
        "default": 5,
        "options": [
          5,
          10
        ]
      },
      "enable_gen_mode_ctl": true,
      "family": "flow",
      "fps": 24,
      "frame_ctl": 2,
      "live2d": false,
      "model_no": "easelFlow2",
      "multi_image": true,
      "n_iter_max": 1,
      "name": "Flow 2",
      "negative_prompt": true,
      "quality_modes": [],
      "resolution_param": {
        "dft_resolution": {
          "aspect_ratio": "16:9",
          "height": 720,
          "width": 1280
        },
        "options": [
          {
            "aspect_ratio": "16:9",
            "height": 720,
            "width": 1280
          },
          {
            "aspect_ratio": "9:16",
            "height": 1280,
            "width": 720
          },
          {
            "aspect_ratio": "1:1",
            "height": 960,
            "width": 960
          },
          {
            "aspect_ratio": "4:3",
            "height": 832,
            "width": 1088
          },
          {
            "aspect_ratio": "3:4",
            "height": 1088,
            "width": 832
          }
        ]
      },
      "text_to_video": true
    },
    {
      "camera_control": true,
      "duration_ctl": {
        "default": 5,
        "options": [
          5,
          10
        ]
      },
      "enable_gen_mode_ctl": true,
      "family": "film_video",
      "fps": 24,
      "frame_ctl": 2,
      "live2d": false,
      "model_no": "easelFilmVideo",
      "multi_image": false,
      "n_iter_max": 1,
      "name": "Film",
      "negative_prompt": true,
      "quality_modes": [],
      "resolution_param": {
        "dft_resolution": {
          "aspect_ratio": "16:9",
          "height": 720,
          "width": 1280
        },
        "options": [
          {
            "aspect_ratio": "16:9",
            "height": 720,
            "width": 1280
          },
          {
            "aspect_ratio": "9:16",
            "height": 1280,
            "width": 720
          },
          {
            "aspect_ratio": "1:1",
            "height": 960,
            "width": 960
          },
          {
            "aspect_ratio": "4:3",
            "height": 832,
            "width": 1088
          },
          {
            "aspect_ratio": "3:4",
            "height": 1088,
            "width": 832
          }
        ]
      },
      "text_to_video": true
    },
    {
      "camera_control": true,
      "duration_ctl": {
        "default": 5,
        "options": [
          5,
          10
        ]
      },
      "enable_gen_mode_ctl": true,
      "family": "film_video",
      "fps": 30,
      "frame_ctl": 2,
      "live2d": false,
      "model_no": "easelFilmVideoPro",
      "multi_image": false,
      "n_iter_max": 1,
      "name": "Film Pro",
      "negative_prompt": true,
      "quality_modes": [],
      "resolution_param": {
        "dft_resolution": {
          "aspect_ratio": "16:9",
          "height": 720,
          "width": 1280
        },
        "options": [
          {
            "aspect_ratio": "16:9",
            "height": 720,
            "width": 1280
          },
          {
            "aspect_ratio": "9:16",
            "height": 1280,
            "width": 720
          },
          {
            "aspect_ratio": "1:1",
            "height": 960,
            "width": 960
          },
          {
            "aspect_ratio": "4:3",
            "height": 832,
            "width": 1088
          },
          {
            "aspect_ratio": "3:4",
            "height": 1088,
            "width": 832
          }
        ]
      },
      "text_to_video": true
    },
    {
      "camera_control": true,
      "duration_ctl": {
        "default": 5,
        "options": [
          5,
          10
        ]
      },
      "enable_gen_mode_ctl": true,
      "family": "ultra_pro",
      "fps": 30,
      "frame_ctl": 2,
      "live2d": false,
      "model_no": "easelUltraPro",
      "multi_image": false,
      "n_iter_max": 1,
      "name": "Ultra Pro",
      "negative_prompt": true,
      "quality_modes": [],
      "resolution_param": {
        "dft_resolution": {
          "aspect_ratio": "16:9",
          "height": 720,
          "width": 1280
        },
        "options": [
          {
            "aspect_ratio": "16:9",
            "height": 720,
            "width": 1280
          },
          {
            "aspect_ratio": "9:16",
            "height": 1280,
            "width": 720
          },
          {
            "aspect_ratio": "1:1",
            "height": 960,
            "width": 960
          },
          {
            "aspect_ratio": "4:3",
            "height": 832,
            "width": 1088
          },
          {
            "aspect_ratio": "3:4",
            "height": 1088,
            "width": 832
          }
        ]
      },
      "text_to_video": true
    },
    {
      "camera_control": true,
      "duration_ctl": {
        "default": 5,
        "options": [
          5,
          10
        ]
      },
      "enable_gen_mode_ctl": true,
      "family": "ultra_pro",
      "fps": 30,
      "frame_ctl": 2,
      "live2d": false,
      "model_no": "easelUltra2Pro",
      "multi_image": false,
      "n_iter_max": 1,
      "name": "Ultra 2 Pro",
      "negative_prompt": true,
      "quality_modes": [],
      "resolution_param": {
        "dft_resolution": {
          "aspect_ratio": "16:9",
          "height": 720,
          "width": 1280
        },
        "options": [
          {
            "aspect_ratio": "16:9",
            "height": 720,
            "width": 1280
          },
          {
            "aspect_ratio": "9:16",
            "height": 1280,
            "width": 720
          },
          {
            "aspect_ratio": "1:1",
            "height": 960,
            "width": 960
          },
          {
            "aspect_ratio": "4:3",
            "height": 832,
            "width": 1088
          },
          {
            "aspect_ratio": "3:4",
            "height": 1088,
            "width": 832
          }
        ]
      },
      "text_to_video": true
    },
    {
      "camera_control": false,
      "duration_ctl": {
        "default": 5,
        "options": [
          5
        ]
      },
      "enable_gen_mode_ctl": false,
      "family": "stream",
      "fps": 24,
      "frame_ctl": 1,
      "live2d": false,
      "model_no": "easelStream",
      "multi_image": false,
      "n_iter_max": 2,
      "name": "Dance",
      "negative_prompt": false,
      "quality_modes": [],
      "resolution_param": {
        "dft_resolution": {
          "aspect_ratio": "16:9",
          "height": 720,
          "width": 1280
        },
        "options": [
          {
            "aspect_ratio": "16:9",
            "height": 720,
            "width": 1280
          },
          {
            "aspect_ratio": "9:16",
            "height": 1280,
            "width": 720
          },
          {
            "aspect_ratio": "1:1",
            "height": 960,
            "width": 960
          },
          {
            "aspect_ratio": "4:3",
            "height": 832,
            "width": 1088
          },
          {
            "aspect_ratio": "3:4",
            "height": 1088,
            "width": 832
          }
        ]
      },
      "text_to_video": false
    },
    {
      "camera_control": false,
      "duration_ctl": {
        "default": 6,
        "options": [
          6,
          10
        ]
      },
      "enable_gen_mode_ctl": false,
      "family": "hailuo",
      "fps": 25,
      "frame_ctl": 2,
      "live2d": false,
      "model_no": "hailuo_02",
      "multi_image": false,
      "n_iter_max": 1,
      "name": "Hailuo 02",
      "negative_prompt": false,
      "quality_modes": [],
      "resolution_param": {
        "dft_resolution": {
          "aspect_ratio": "16:9",
          "height": 720,
          "width": 1280
        },
        "options": [
          {
            "aspect_ratio": "16:9",
            "height": 720,
            "width": 1280
          },
          {
            "aspect_ratio": "9:16",
            "height": 1280,
            "width": 720
          },
          {
            "aspect_ratio": "1:1",
            "height": 960,
            "width": 960
          },
          {
            "aspect_ratio": "4:3",
            "height": 832,
            "width": 1088
          },
          {
            "aspect_ratio": "3:4",
            "height": 1088,
            "width": 832
          }
        ]
      },
      "text_to_video": true
    },
    {
      "camera_control": true,
      "duration_ctl": {
        "default": 5,
        "options": [
          5
        ]
      },
      "enable_gen_mode_ctl": false,
      "family": "jump",
      "fps": 24,
      "frame_ctl": 1,
      "live2d": false,
      "model_no": "easelJump",
      "multi_image": false,
      "n_iter_max": 1,
      "name": "Jump",
      "negative_prompt": true,
      "quality_modes": [],
      "resolution_param": {
        "dft_resolution": {
          "aspect_ratio": "16:9",
          "height": 720,
          "width": 1280
        },
        "options": [
          {
            "aspect_ratio": "16:9",
            "height": 720,
            "width": 1280
          },
          {
            "aspect_ratio": "9:16",
            "height": 1280,
            "width": 720
          },
          {
            "aspect_ratio": "1:1",
            "height": 960,
            "width": 960
          },
          {
            "aspect_ratio": "4:3",
            "height": 832,
            "width": 1088
          },
          {
            "aspect_ratio": "3:4",
            "height": 1088,
            "width": 832
          }
        ]
      },
      "text_to_video": true
    }
  ],
  "neural": false
};
