// The catalogue as `easel serve` answers /api/v1/task/v2/config/model (captured
// from the real backend; refresh with: curl -X POST .../config/model | jq .data).
import type { Catalogue } from './catalogue';

export const TEST_CATALOGUE: Catalogue = {
 "engine_note": "Easel's built-in engine is a non-neural reference engine: it makes pictures with classical image algorithms and ships no model weights. The checkpoint, LoRA and upscaler names below are routed by model family to the engines the operator configures (ComfyUI, stable-diffusion.cpp, an OpenAI-compatible API); without one, the reference engine serves them and labels its outputs as such.",
 "base_model_codes": [
  {
   "name": "v5",
   "code": 1
  },
  {
   "name": "v6",
   "code": 2
  },
  {
   "name": "midjourney",
   "code": 3
  },
  {
   "name": "sdxl",
   "code": 5
  },
  {
   "name": "hy21",
   "code": 6
  },
  {
   "name": "studio",
   "code": 7
  }
 ],
 "families": [
  {
   "id": "sdxl",
   "name": "SDXL",
   "variants": [
    "SDXL 1.0",
    "SDXL 0.9",
    "SDXL Turbo",
    "SDXL 1.0 LCM",
    "SDXL Lightning",
    "Pony",
    "SDXL Hyper"
   ],
   "base_model_code": 5,
   "limits": {
    "min": 512,
    "min_long": 512,
    "max": 1536,
    "quality_max": 1536,
    "ratio_min": 0.5,
    "ratio_max": 2.0
   },
   "default_size": {
    "width": 832,
    "height": 1216
   },
   "standard": {
    "by": "area",
    "side": 1024
   },
   "quality": {
    "by": "area",
    "side": 1536
   },
   "wide": false
  },
  {
   "id": "sd",
   "name": "SD",
   "variants": [
    "SD 1.5",
    "SD 2.0",
    "SD 1.4",
    "SD 2.1",
    "SD 2.1 768",
    "SD 2.0 768",
    "SD 1.5 LCM",
    "Other",
    "SD 3"
   ],
   "base_model_code": 1,
   "limits": {
    "min": 320,
    "min_long": 512,
    "max": 1024,
    "quality_max": 1024,
    "ratio_min": 0.42,
    "ratio_max": 2.4
   },
   "default_size": {
    "width": 624,
    "height": 936
   },
   "standard": {
    "by": "long_side",
    "side": 768
   },
   "quality": {
    "by": "long_side",
    "side": 1024
   },
   "wide": true
  },
  {
   "id": "flux",
   "name": "Flux",
   "variants": [
    "Flux.1 D",
    "Flux.1 S"
   ],
   "base_model_code": 1,
   "limits": {
    "min": 384,
    "min_long": 384,
    "max": 1024,
    "quality_max": 1536,
    "ratio_min": 0.5,
    "ratio_max": 2.0
   },
   "default_size": {
    "width": 688,
    "height": 1024
   },
   "standard": {
    "by": "area",
    "side": 1024
   },
   "quality": {
    "by": "area",
    "side": 1536
   },
   "wide": false
  },
  {
   "id": "sd3.5",
   "name": "SD 3.5",
   "variants": [
    "SD 3.5 Large",
    "SD 3.5 Large Turbo",
    "SD 3.5 Medium"
   ],
   "base_model_code": 1,
   "limits": {
    "min": 512,
    "min_long": 512,
    "max": 1536,
    "quality_max": 1536,
    "ratio_min": 0.5,
    "ratio_max": 2.0
   },
   "default_size": {
    "width": 832,
    "height": 1216
   },
   "standard": {
    "by": "area",
    "side": 1024
   },
   "quality": {
    "by": "area",
    "side": 1536
   },
   "wide": false
  },
  {
   "id": "hidream",
   "name": "HiDream",
   "variants": [
    "HiDream I1 Full",
    "HiDream I1 Dev",
    "HiDream I1 Fast"
   ],
   "base_model_code": 1,
   "limits": {
    "min": 512,
    "min_long": 512,
    "max": 1536,
    "quality_max": 2048,
    "ratio_min": 0.5,
    "ratio_max": 2.0
   },
   "default_size": {
    "width": 832,
    "height": 1216
   },
   "standard": {
    "by": "area",
    "side": 1024
   },
   "quality": {
    "by": "area",
    "side": 1536
   },
   "wide": false
  },
  {
   "id": "seadream",
   "name": "SeaDream",
   "variants": [
    "SeaDream 3.0",
    "SeaDream 4.0"
   ],
   "base_model_code": 1,
   "limits": {
    "min": 512,
    "min_long": 512,
    "max": 2048,
    "quality_max": 2048,
    "ratio_min": 0.42,
    "ratio_max": 2.4
   },
   "default_size": {
    "width": 1208,
    "height": 1808
   },
   "standard": {
    "by": "area",
    "side": 1472
   },
   "quality": {
    "by": "area",
    "side": 2048
   },
   "wide": true
  },
  {
   "id": "il",
   "name": "Illustrious (IL)",
   "variants": [
    "Illustrious 0.1",
    "Illustrious 1.0",
    "NoobAI"
   ],
   "base_model_code": 5,
   "limits": {
    "min": 512,
    "min_long": 512,
    "max": 1536,
    "quality_max": 1536,
    "ratio_min": 0.5,
    "ratio_max": 2.0
   },
   "default_size": {
    "width": 832,
    "height": 1216
   },
   "standard": {
    "by": "area",
    "side": 1024
   },
   "quality": {
    "by": "area",
    "side": 1536
   },
   "wide": false
  },
  {
   "id": "il3",
   "name": "Illustrious 3 (IL3)",
   "variants": [
    "Illustrious 3.0",
    "Illustrious 3.5"
   ],
   "base_model_code": 5,
   "limits": {
    "min": 768,
    "min_long": 768,
    "max": 2048,
    "quality_max": 2048,
    "ratio_min": 0.5,
    "ratio_max": 2.0
   },
   "default_size": {
    "width": 1024,
    "height": 1536
   },
   "standard": {
    "by": "area",
    "side": 1536
   },
   "quality": {
    "by": "area",
    "side": 2048
   },
   "wide": false
  }
 ],
 "checkpoints": [
  {
   "model_no": "sd15",
   "model_ver_no": "sd15-v1",
   "name": "Stable Diffusion 1.5",
   "family": "sd",
   "variant": "SD 1.5",
   "base_model": 1,
   "category": 1,
   "default_size": {
    "width": 624,
    "height": 936
   },
   "is_default": true
  },
  {
   "model_no": "dreamshaper",
   "model_ver_no": "dreamshaper-8",
   "name": "DreamShaper 8",
   "family": "sd",
   "variant": "SD 1.5",
   "base_model": 1,
   "category": 1,
   "default_size": {
    "width": 624,
    "height": 936
   },
   "is_default": false
  },
  {
   "model_no": "realistic-vision",
   "model_ver_no": "realistic-vision-5.1",
   "name": "Realistic Vision 5.1",
   "family": "sd",
   "variant": "SD 1.5",
   "base_model": 1,
   "category": 1,
   "default_size": {
    "width": 624,
    "height": 936
   },
   "is_default": false
  },
  {
   "model_no": "sd21",
   "model_ver_no": "sd21-768",
   "name": "Stable Diffusion 2.1 768",
   "family": "sd",
   "variant": "SD 2.1 768",
   "base_model": 1,
   "category": 1,
   "default_size": {
    "width": 624,
    "height": 936
   },
   "is_default": false
  },
  {
   "model_no": "flux-schnell",
   "model_ver_no": "flux-schnell-1",
   "name": "FLUX.1 [schnell]",
   "family": "flux",
   "variant": "Flux.1 S",
   "base_model": 1,
   "category": 1,
   "default_size": {
    "width": 688,
    "height": 1024
   },
   "is_default": false
  },
  {
   "model_no": "flux-dev",
   "model_ver_no": "flux-dev-1",
   "name": "FLUX.1 [dev]",
   "family": "flux",
   "variant": "Flux.1 D",
   "base_model": 1,
   "category": 1,
   "default_size": {
    "width": 688,
    "height": 1024
   },
   "is_default": false
  },
  {
   "model_no": "sd35-large",
   "model_ver_no": "sd35-large-1",
   "name": "Stable Diffusion 3.5 Large",
   "family": "sd3.5",
   "variant": "SD 3.5 Large",
   "base_model": 1,
   "category": 1,
   "default_size": {
    "width": 832,
    "height": 1216
   },
   "is_default": false
  },
  {
   "model_no": "sd35-medium",
   "model_ver_no": "sd35-medium-1",
   "name": "Stable Diffusion 3.5 Medium",
   "family": "sd3.5",
   "variant": "SD 3.5 Medium",
   "base_model": 1,
   "category": 1,
   "default_size": {
    "width": 832,
    "height": 1216
   },
   "is_default": false
  },
  {
   "model_no": "hidream-full",
   "model_ver_no": "hidream-i1-full",
   "name": "HiDream I1 Full",
   "family": "hidream",
   "variant": "HiDream I1 Full",
   "base_model": 1,
   "category": 1,
   "default_size": {
    "width": 832,
    "height": 1216
   },
   "is_default": false
  },
  {
   "model_no": "hidream-fast",
   "model_ver_no": "hidream-i1-fast",
   "name": "HiDream I1 Fast",
   "family": "hidream",
   "variant": "HiDream I1 Fast",
   "base_model": 1,
   "category": 1,
   "default_size": {
    "width": 832,
    "height": 1216
   },
   "is_default": false
  },
  {
   "model_no": "seadream",
   "model_ver_no": "seadream-3",
   "name": "SeaDream 3.0",
   "family": "seadream",
   "variant": "SeaDream 3.0",
   "base_model": 1,
   "category": 1,
   "default_size": {
    "width": 1208,
    "height": 1808
   },
   "is_default": false
  },
  {
   "model_no": "sdxl-base",
   "model_ver_no": "sdxl-base-1.0",
   "name": "SDXL 1.0 Base",
   "family": "sdxl",
   "variant": "SDXL 1.0",
   "base_model": 5,
   "category": 5,
   "default_size": {
    "width": 832,
    "height": 1216
   },
   "is_default": true
  },
  {
   "model_no": "juggernaut-xl",
   "model_ver_no": "juggernaut-xl-9",
   "name": "Juggernaut XL 9",
   "family": "sdxl",
   "variant": "SDXL 1.0",
   "base_model": 5,
   "category": 5,
   "default_size": {
    "width": 832,
    "height": 1216
   },
   "is_default": false
  },
  {
   "model_no": "sdxl-turbo",
   "model_ver_no": "sdxl-turbo-1",
   "name": "SDXL Turbo",
   "family": "sdxl",
   "variant": "SDXL Turbo",
   "base_model": 5,
   "category": 5,
   "default_size": {
    "width": 832,
    "height": 1216
   },
   "is_default": false
  },
  {
   "model_no": "pony-xl",
   "model_ver_no": "pony-xl-6",
   "name": "Pony Diffusion V6 XL",
   "family": "sdxl",
   "variant": "Pony",
   "base_model": 5,
   "category": 5,
   "default_size": {
    "width": 832,
    "height": 1216
   },
   "is_default": false
  },
  {
   "model_no": "illustrious-xl",
   "model_ver_no": "illustrious-xl-1.0",
   "name": "Illustrious XL 1.0",
   "family": "il",
   "variant": "Illustrious 1.0",
   "base_model": 5,
   "category": 5,
   "default_size": {
    "width": 832,
    "height": 1216
   },
   "is_default": false
  },
  {
   "model_no": "noobai-xl",
   "model_ver_no": "noobai-xl-1.1",
   "name": "NoobAI XL 1.1",
   "family": "il",
   "variant": "NoobAI",
   "base_model": 5,
   "category": 5,
   "default_size": {
    "width": 832,
    "height": 1216
   },
   "is_default": false
  },
  {
   "model_no": "illustrious-xl-3",
   "model_ver_no": "illustrious-xl-3.0",
   "name": "Illustrious XL 3.0",
   "family": "il3",
   "variant": "Illustrious 3.0",
   "base_model": 5,
   "category": 5,
   "default_size": {
    "width": 1024,
    "height": 1536
   },
   "is_default": false
  },
  {
   "model_no": "studio-enhance",
   "model_ver_no": "studio-enhance-xl-1",
   "name": "Studio Enhance XL",
   "family": "sdxl",
   "variant": "SDXL 1.0",
   "base_model": 7,
   "category": 7,
   "default_size": {
    "width": 832,
    "height": 1216
   },
   "is_default": true
  },
  {
   "model_no": "studio-anime",
   "model_ver_no": "studio-anime-xl-1",
   "name": "Studio Anime XL",
   "family": "sdxl",
   "variant": "SDXL 1.0",
   "base_model": 7,
   "category": 7,
   "default_size": {
    "width": 832,
    "height": 1216
   },
   "is_default": false
  },
  {
   "model_no": "studio-illustrious",
   "model_ver_no": "studio-il-1",
   "name": "Studio Illustrious",
   "family": "il",
   "variant": "Illustrious 1.0",
   "base_model": 7,
   "category": 7,
   "default_size": {
    "width": 832,
    "height": 1216
   },
   "is_default": false
  }
 ],
 "loras": [
  {
   "model_id": "detail-tweaker",
   "model_ver_no": "detail-tweaker-1",
   "name": "Detail Tweaker",
   "base_model": "sd",
   "weight": 1.0,
   "trained_words": []
  },
  {
   "model_id": "lineart-sd",
   "model_ver_no": "lineart-sd-1",
   "name": "Anime Lineart",
   "base_model": "sd",
   "weight": 1.0,
   "trained_words": [
    "lineart",
    "monochrome"
   ]
  },
  {
   "model_id": "watercolor-sd",
   "model_ver_no": "watercolor-sd-1",
   "name": "Watercolor",
   "base_model": "sd",
   "weight": 1.0,
   "trained_words": [
    "watercolor"
   ]
  },
  {
   "model_id": "more-details-xl",
   "model_ver_no": "more-details-xl-1",
   "name": "Add More Details XL",
   "base_model": "sdxl",
   "weight": 1.0,
   "trained_words": []
  },
  {
   "model_id": "pixel-art-xl",
   "model_ver_no": "pixel-art-xl-1",
   "name": "Pixel Art XL",
   "base_model": "sdxl",
   "weight": 1.0,
   "trained_words": [
    "pixel art"
   ]
  },
  {
   "model_id": "watercolor-xl",
   "model_ver_no": "watercolor-xl-1",
   "name": "Watercolor XL",
   "base_model": "sdxl",
   "weight": 1.0,
   "trained_words": [
    "watercolor"
   ]
  },
  {
   "model_id": "papercut-xl",
   "model_ver_no": "papercut-xl-1",
   "name": "Papercut XL",
   "base_model": "sdxl",
   "weight": 1.0,
   "trained_words": [
    "papercut"
   ]
  },
  {
   "model_id": "flux-realism",
   "model_ver_no": "flux-realism-1",
   "name": "Flux Realism",
   "base_model": "flux",
   "weight": 1.0,
   "trained_words": [
    "realistic"
   ]
  },
  {
   "model_id": "flux-sketch",
   "model_ver_no": "flux-sketch-1",
   "name": "Flux Pencil Sketch",
   "base_model": "flux",
   "weight": 1.0,
   "trained_words": [
    "pencil sketch"
   ]
  },
  {
   "model_id": "il-sketch",
   "model_ver_no": "il-sketch-1",
   "name": "Illustrious Sketch Style",
   "base_model": "il",
   "weight": 1.0,
   "trained_words": [
    "sketch"
   ]
  },
  {
   "model_id": "sd35-film",
   "model_ver_no": "sd35-film-1",
   "name": "SD 3.5 Film Grain",
   "base_model": "sd3.5",
   "weight": 1.0,
   "trained_words": [
    "film grain"
   ]
  }
 ],
 "artworks": [
  {
   "art_work_no": "starter-portrait",
   "name": "Soft portrait",
   "model_ver_no": "sd15-v1"
  },
  {
   "art_work_no": "starter-anime",
   "name": "Anime scene",
   "model_ver_no": "illustrious-xl-1.0"
  },
  {
   "art_work_no": "starter-landscape",
   "name": "Cinematic landscape",
   "model_ver_no": "sdxl-base-1.0"
  }
 ],
 "aspects": [
  {
   "code": 1,
   "label": "2:3",
   "ratio_w": 2,
   "ratio_h": 3,
   "orientation": "vertical",
   "icon": "aspect-2-3",
   "sizes": [
    {
     "family": "sdxl",
     "standard": {
      "width": 832,
      "height": 1248
     },
     "quality": {
      "width": 1024,
      "height": 1536
     }
    },
    {
     "family": "sd",
     "standard": {
      "width": 512,
      "height": 768
     },
     "quality": {
      "width": 680,
      "height": 1024
     }
    },
    {
     "family": "flux",
     "standard": {
      "width": 680,
      "height": 1024
     },
     "quality": {
      "width": 1024,
      "height": 1536
     }
    },
    {
     "family": "sd3.5",
     "standard": {
      "width": 832,
      "height": 1248
     },
     "quality": {
      "width": 1024,
      "height": 1536
     }
    },
    {
     "family": "hidream",
     "standard": {
      "width": 832,
      "height": 1248
     },
     "quality": {
      "width": 1256,
      "height": 1888
     }
    },
    {
     "family": "seadream",
     "standard": {
      "width": 1208,
      "height": 1808
     },
     "quality": {
      "width": 1368,
      "height": 2048
     }
    },
    {
     "family": "il",
     "standard": {
      "width": 832,
      "height": 1248
     },
     "quality": {
      "width": 1024,
      "height": 1536
     }
    },
    {
     "family": "il3",
     "standard": {
      "width": 1256,
      "height": 1888
     },
     "quality": {
      "width": 1368,
      "height": 2048
     }
    }
   ]
  },
  {
   "code": 2,
   "label": "1:1",
   "ratio_w": 1,
   "ratio_h": 1,
   "orientation": "vertical",
   "icon": "aspect-1-1",
   "sizes": [
    {
     "family": "sdxl",
     "standard": {
      "width": 1024,
      "height": 1024
     },
     "quality": {
      "width": 1536,
      "height": 1536
     }
    },
    {
     "family": "sd",
     "standard": {
      "width": 768,
      "height": 768
     },
     "quality": {
      "width": 1024,
      "height": 1024
     }
    },
    {
     "family": "flux",
     "standard": {
      "width": 1024,
      "height": 1024
     },
     "quality": {
      "width": 1536,
      "height": 1536
     }
    },
    {
     "family": "sd3.5",
     "standard": {
      "width": 1024,
      "height": 1024
     },
     "quality": {
      "width": 1536,
      "height": 1536
     }
    },
    {
     "family": "hidream",
     "standard": {
      "width": 1024,
      "height": 1024
     },
     "quality": {
      "width": 1536,
      "height": 1536
     }
    },
    {
     "family": "seadream",
     "standard": {
      "width": 1472,
      "height": 1472
     },
     "quality": {
      "width": 2048,
      "height": 2048
     }
    },
    {
     "family": "il",
     "standard": {
      "width": 1024,
      "height": 1024
     },
     "quality": {
      "width": 1536,
      "height": 1536
     }
    },
    {
     "family": "il3",
     "standard": {
      "width": 1536,
      "height": 1536
     },
     "quality": {
      "width": 2048,
      "height": 2048
     }
    }
   ]
  },
  {
   "code": 3,
   "label": "9:16",
   "ratio_w": 9,
   "ratio_h": 16,
   "orientation": "vertical",
   "icon": "aspect-9-16",
   "sizes": [
    {
     "family": "sdxl",
     "standard": {
      "width": 810,
      "height": 1440
     },
     "quality": {
      "width": 864,
      "height": 1536
     }
    },
    {
     "family": "sd",
     "standard": {
      "width": 432,
      "height": 768
     },
     "quality": {
      "width": 576,
      "height": 1024
     }
    },
    {
     "family": "flux",
     "standard": {
      "width": 576,
      "height": 1024
     },
     "quality": {
      "width": 864,
      "height": 1536
     }
    },
    {
     "family": "sd3.5",
     "standard": {
      "width": 768,
      "height": 1360
     },
     "quality": {
      "width": 864,
      "height": 1536
     }
    },
    {
     "family": "hidream",
     "standard": {
      "width": 768,
      "height": 1360
     },
     "quality": {
      "width": 1152,
      "height": 2048
     }
    },
    {
     "family": "seadream",
     "standard": {
      "width": 1104,
      "height": 1968
     },
     "quality": {
      "width": 1152,
      "height": 2048
     }
    },
    {
     "family": "il",
     "standard": {
      "width": 768,
      "height": 1360
     },
     "quality": {
      "width": 864,
      "height": 1536
     }
    },
    {
     "family": "il3",
     "standard": {
      "width": 1152,
      "height": 2048
     },
     "quality": {
      "width": 1152,
      "height": 2048
     }
    }
   ]
  },
  {
   "code": 4,
   "label": "4:3",
   "ratio_w": 4,
   "ratio_h": 3,
   "orientation": "horizontal",
   "icon": "aspect-4-3",
   "sizes": [
    {
     "family": "sdxl",
     "standard": {
      "width": 1184,
      "height": 888
     },
     "quality": {
      "width": 1536,
      "height": 1152
     }
    },
    {
     "family": "sd",
     "standard": {
      "width": 768,
      "height": 576
     },
     "quality": {
      "width": 1024,
      "height": 768
     }
    },
    {
     "family": "flux",
     "standard": {
      "width": 1024,
      "height": 768
     },
     "quality": {
      "width": 1536,
      "height": 1152
     }
    },
    {
     "family": "sd3.5",
     "standard": {
      "width": 1184,
      "height": 888
     },
     "quality": {
      "width": 1536,
      "height": 1152
     }
    },
    {
     "family": "hidream",
     "standard": {
      "width": 1184,
      "height": 888
     },
     "quality": {
      "width": 1776,
      "height": 1336
     }
    },
    {
     "family": "seadream",
     "standard": {
      "width": 1696,
      "height": 1272
     },
     "quality": {
      "width": 2048,
      "height": 1536
     }
    },
    {
     "family": "il",
     "standard": {
      "width": 1184,
      "height": 888
     },
     "quality": {
      "width": 1536,
      "height": 1152
     }
    },
    {
     "family": "il3",
     "standard": {
      "width": 1776,
      "height": 1336
     },
     "quality": {
      "width": 2048,
      "height": 1536
     }
    }
   ]
  },
  {
   "code": 5,
   "label": "custom",
   "ratio_w": 0,
   "ratio_h": 0,
   "orientation": "vertical",
   "icon": "aspect-custom",
   "sizes": []
  },
  {
   "code": 6,
   "label": "1:2",
   "ratio_w": 1,
   "ratio_h": 2,
   "orientation": "vertical",
   "icon": "aspect-1-2",
   "sizes": [
    {
     "family": "sdxl",
     "standard": {
      "width": 728,
      "height": 1456
     },
     "quality": {
      "width": 768,
      "height": 1536
     }
    },
    {
     "family": "sd",
     "standard": {
      "width": 384,
      "height": 768
     },
     "quality": {
      "width": 512,
      "height": 1024
     }
    },
    {
     "family": "flux",
     "standard": {
      "width": 512,
      "height": 1024
     },
     "quality": {
      "width": 768,
      "height": 1536
     }
    },
    {
     "family": "sd3.5",
     "standard": {
      "width": 728,
      "height": 1456
     },
     "quality": {
      "width": 768,
      "height": 1536
     }
    },
    {
     "family": "hidream",
     "standard": {
      "width": 728,
      "height": 1456
     },
     "quality": {
      "width": 1024,
      "height": 2048
     }
    },
    {
     "family": "seadream",
     "standard": {
      "width": 1024,
      "height": 2048
     },
     "quality": {
      "width": 1024,
      "height": 2048
     }
    },
    {
     "family": "il",
     "standard": {
      "width": 728,
      "height": 1456
     },
     "quality": {
      "width": 768,
      "height": 1536
     }
    },
    {
     "family": "il3",
     "standard": {
      "width": 1024,
      "height": 2048
     },
     "quality": {
      "width": 1024,
      "height": 2048
     }
    }
   ]
  },
  {
   "code": 7,
   "label": "3:4",
   "ratio_w": 3,
   "ratio_h": 4,
   "orientation": "vertical",
   "icon": "aspect-3-4",
   "sizes": [
    {
     "family": "sdxl",
     "standard": {
      "width": 888,
      "height": 1184
     },
     "quality": {
      "width": 1152,
      "height": 1536
     }
    },
    {
     "family": "sd",
     "standard": {
      "width": 576,
      "height": 768
     },
     "quality": {
      "width": 768,
      "height": 1024
     }
    },
    {
     "family": "flux",
     "standard": {
      "width": 768,
      "height": 1024
     },
     "quality": {
      "width": 1152,
      "height": 1536
     }
    },
    {
     "family": "sd3.5",
     "standard": {
      "width": 888,
      "height": 1184
     },
     "quality": {
      "width": 1152,
      "height": 1536
     }
    },
    {
     "family": "hidream",
     "standard": {
      "width": 888,
      "height": 1184
     },
     "quality": {
      "width": 1336,
      "height": 1776
     }
    },
    {
     "family": "seadream",
     "standard": {
      "width": 1272,
      "height": 1696
     },
     "quality": {
      "width": 1536,
      "height": 2048
     }
    },
    {
     "family": "il",
     "standard": {
      "width": 888,
      "height": 1184
     },
     "quality": {
      "width": 1152,
      "height": 1536
     }
    },
    {
     "family": "il3",
     "standard": {
      "width": 1336,
      "height": 1776
     },
     "quality": {
      "width": 1536,
      "height": 2048
     }
    }
   ]
  },
  {
   "code": 8,
   "label": "4:5",
   "ratio_w": 4,
   "ratio_h": 5,
   "orientation": "vertical",
   "icon": "aspect-4-5",
   "sizes": [
    {
     "family": "sdxl",
     "standard": {
      "width": 920,
      "height": 1152
     },
     "quality": {
      "width": 1232,
      "height": 1536
     }
    },
    {
     "family": "sd",
     "standard": {
      "width": 616,
      "height": 768
     },
     "quality": {
      "width": 816,
      "height": 1024
     }
    },
    {
     "family": "flux",
     "standard": {
      "width": 816,
      "height": 1024
     },
     "quality": {
      "width": 1232,
      "height": 1536
     }
    },
    {
     "family": "sd3.5",
     "standard": {
      "width": 920,
      "height": 1152
     },
     "quality": {
      "width": 1232,
      "height": 1536
     }
    },
    {
     "family": "hidream",
     "standard": {
      "width": 920,
      "height": 1152
     },
     "quality": {
      "width": 1368,
      "height": 1712
     }
    },
    {
     "family": "seadream",
     "standard": {
      "width": 1320,
      "height": 1648
     },
     "quality": {
      "width": 1640,
      "height": 2048
     }
    },
    {
     "family": "il",
     "standard": {
      "width": 920,
      "height": 1152
     },
     "quality": {
      "width": 1232,
      "height": 1536
     }
    },
    {
     "family": "il3",
     "standard": {
      "width": 1368,
      "height": 1712
     },
     "quality": {
      "width": 1640,
      "height": 2048
     }
    }
   ]
  },
  {
   "code": 9,
   "label": "5:4",
   "ratio_w": 5,
   "ratio_h": 4,
   "orientation": "horizontal",
   "icon": "aspect-5-4",
   "sizes": [
    {
     "family": "sdxl",
     "standard": {
      "width": 1152,
      "height": 920
     },
     "quality": {
      "width": 1536,
      "height": 1232
     }
    },
    {
     "family": "sd",
     "standard": {
      "width": 768,
      "height": 616
     },
     "quality": {
      "width": 1024,
      "height": 816
     }
    },
    {
     "family": "flux",
     "standard": {
      "width": 1024,
      "height": 816
     },
     "quality": {
      "width": 1536,
      "height": 1232
     }
    },
    {
     "family": "sd3.5",
     "standard": {
      "width": 1152,
      "height": 920
     },
     "quality": {
      "width": 1536,
      "height": 1232
     }
    },
    {
     "family": "hidream",
     "standard": {
      "width": 1152,
      "height": 920
     },
     "quality": {
      "width": 1712,
      "height": 1368
     }
    },
    {
     "family": "seadream",
     "standard": {
      "width": 1648,
      "height": 1320
     },
     "quality": {
      "width": 2048,
      "height": 1640
     }
    },
    {
     "family": "il",
     "standard": {
      "width": 1152,
      "height": 920
     },
     "quality": {
      "width": 1536,
      "height": 1232
     }
    },
    {
     "family": "il3",
     "standard": {
      "width": 1712,
      "height": 1368
     },
     "quality": {
      "width": 2048,
      "height": 1640
     }
    }
   ]
  },
  {
   "code": 11,
   "label": "3:2",
   "ratio_w": 3,
   "ratio_h": 2,
   "orientation": "horizontal",
   "icon": "aspect-3-2",
   "sizes": [
    {
     "family": "sdxl",
     "standard": {
      "width": 1248,
      "height": 832
     },
     "quality": {
      "width": 1536,
      "height": 1024
     }
    },
    {
     "family": "sd",
     "standard": {
      "width": 768,
      "height": 512
     },
     "quality": {
      "width": 1024,
      "height": 680
     }
    },
    {
     "family": "flux",
     "standard": {
      "width": 1024,
      "height": 680
     },
     "quality": {
      "width": 1536,
      "height": 1024
     }
    },
    {
     "family": "sd3.5",
     "standard": {
      "width": 1248,
      "height": 832
     },
     "quality": {
      "width": 1536,
      "height": 1024
     }
    },
    {
     "family": "hidream",
     "standard": {
      "width": 1248,
      "height": 832
     },
     "quality": {
      "width": 1888,
      "height": 1256
     }
    },
    {
     "family": "seadream",
     "standard": {
      "width": 1808,
      "height": 1208
     },
     "quality": {
      "width": 2048,
      "height": 1368
     }
    },
    {
     "family": "il",
     "standard": {
      "width": 1248,
      "height": 832
     },
     "quality": {
      "width": 1536,
      "height": 1024
     }
    },
    {
     "family": "il3",
     "standard": {
      "width": 1888,
      "height": 1256
     },
     "quality": {
      "width": 2048,
      "height": 1368
     }
    }
   ]
  },
  {
   "code": 12,
   "label": "16:9",
   "ratio_w": 16,
   "ratio_h": 9,
   "orientation": "horizontal",
   "icon": "aspect-16-9",
   "sizes": [
    {
     "family": "sdxl",
     "standard": {
      "width": 1440,
      "height": 810
     },
     "quality": {
      "width": 1536,
      "height": 864
     }
    },
    {
     "family": "sd",
     "standard": {
      "width": 768,
      "height": 432
     },
     "quality": {
      "width": 1024,
      "height": 576
     }
    },
    {
     "family": "flux",
     "standard": {
      "width": 1024,
      "height": 576
     },
     "quality": {
      "width": 1536,
      "height": 864
     }
    },
    {
     "family": "sd3.5",
     "standard": {
      "width": 1360,
      "height": 768
     },
     "quality": {
      "width": 1536,
      "height": 864
     }
    },
    {
     "family": "hidream",
     "standard": {
      "width": 1360,
      "height": 768
     },
     "quality": {
      "width": 2048,
      "height": 1152
     }
    },
    {
     "family": "seadream",
     "standard": {
      "width": 1968,
      "height": 1104
     },
     "quality": {
      "width": 2048,
      "height": 1152
     }
    },
    {
     "family": "il",
     "standard": {
      "width": 1360,
      "height": 768
     },
     "quality": {
      "width": 1536,
      "height": 864
     }
    },
    {
     "family": "il3",
     "standard": {
      "width": 2048,
      "height": 1152
     },
     "quality": {
      "width": 2048,
      "height": 1152
     }
    }
   ]
  },
  {
   "code": 13,
   "label": "2:1",
   "ratio_w": 2,
   "ratio_h": 1,
   "orientation": "horizontal",
   "icon": "aspect-2-1",
   "sizes": [
    {
     "family": "sdxl",
     "standard": {
      "width": 1456,
      "height": 728
     },
     "quality": {
      "width": 1536,
      "height": 768
     }
    },
    {
     "family": "sd",
     "standard": {
      "width": 768,
      "height": 384
     },
     "quality": {
      "width": 1024,
      "height": 512
     }
    },
    {
     "family": "flux",
     "standard": {
      "width": 1024,
      "height": 512
     },
     "quality": {
      "width": 1536,
      "height": 768
     }
    },
    {
     "family": "sd3.5",
     "standard": {
      "width": 1456,
      "height": 728
     },
     "quality": {
      "width": 1536,
      "height": 768
     }
    },
    {
     "family": "hidream",
     "standard": {
      "width": 1456,
      "height": 728
     },
     "quality": {
      "width": 2048,
      "height": 1024
     }
    },
    {
     "family": "seadream",
     "standard": {
      "width": 2048,
      "height": 1024
     },
     "quality": {
      "width": 2048,
      "height": 1024
     }
    },
    {
     "family": "il",
     "standard": {
      "width": 1456,
      "height": 728
     },
     "quality": {
      "width": 1536,
      "height": 768
     }
    },
    {
     "family": "il3",
     "standard": {
      "width": 2048,
      "height": 1024
     },
     "quality": {
      "width": 2048,
      "height": 1024
     }
    }
   ]
  },
  {
   "code": 14,
   "label": "21:9",
   "ratio_w": 21,
   "ratio_h": 9,
   "orientation": "horizontal",
   "icon": "aspect-21-9",
   "sizes": [
    {
     "family": "sd",
     "standard": {
      "width": 768,
      "height": 328
     },
     "quality": {
      "width": 1024,
      "height": 440
     }
    },
    {
     "family": "seadream",
     "standard": {
      "width": 2048,
      "height": 880
     },
     "quality": {
      "width": 2048,
      "height": 880
     }
    }
   ]
  }
 ],
 "studio_presets": [
  {
   "label": "9:7",
   "width": 1168,
   "height": 912
  },
  {
   "label": "7:9",
   "width": 912,
   "height": 1168
  },
  {
   "label": "3:4",
   "width": 888,
   "height": 1184
  },
  {
   "label": "4:3",
   "width": 1184,
   "height": 888
  },
  {
   "label": "19:13",
   "width": 1232,
   "height": 840
  },
  {
   "label": "13:19",
   "width": 840,
   "height": 1232
  },
  {
   "label": "16:9",
   "width": 1360,
   "height": 768
  },
  {
   "label": "9:16",
   "width": 768,
   "height": 1360
  }
 ],
 "samplers": [
  {
   "id": "dpmpp_2m_karras",
   "name": "DPM++ 2M Karras"
  },
  {
   "id": "dpmpp_2m_sde_karras",
   "name": "DPM++ 2M SDE Karras"
  },
  {
   "id": "dpmpp_sde_karras",
   "name": "DPM++ SDE Karras"
  },
  {
   "id": "euler",
   "name": "Euler"
  },
  {
   "id": "euler_a",
   "name": "Euler a"
  },
  {
   "id": "heun",
   "name": "Heun"
  },
  {
   "id": "dpm2",
   "name": "DPM2"
  },
  {
   "id": "ddim",
   "name": "DDIM"
  },
  {
   "id": "unipc",
   "name": "UniPC"
  },
  {
   "id": "lcm",
   "name": "LCM"
  }
 ],
 "upscalers": [
  {
   "name": "4x-UltraSharp",
   "is_default": true
  },
  {
   "name": "R-ESRGAN 4x+",
   "is_default": false
  },
  {
   "name": "R-ESRGAN 4x+ Anime6B",
   "is_default": false
  },
  {
   "name": "Lanczos",
   "is_default": false
  }
 ],
 "control_modules": [
  "none",
  "canny",
  "depth",
  "openpose",
  "lineart",
  "scribble",
  "softedge",
  "tile",
  "image_prompt",
  "pyracanny",
  "cpds"
 ],
 "generation_params": [
  {
   "category": 1,
   "mode": "normal",
   "cfg_scale": 7.0,
   "guidance_scale": 7.5,
   "steps": 20,
   "sampler": "DPM++ 2M Karras",
   "clip_skip": 2,
   "denoising_strength": 0.35,
   "width": 688,
   "height": 1024,
   "n_iter": 2,
   "n_iter_paid": 4,
   "seed": -1,
   "negative_prompt": "",
   "upscale_ratio": 2.0,
   "upscaler": "4x-UltraSharp",
   "hr_scale": 1.5,
   "hr_upscaler": "R-ESRGAN 4x+",
   "hr_second_pass_steps": 20,
   "hr_redraw": 0.5,
   "refiner_switch_at": 0.8,
   "face_restorer_weight": 0.6,
   "face_distance": 1.5,
   "inpaint_blur": 4,
   "inpaint_padding": 32,
   "prompt_magic": 0.4,
   "style": "Fantasy Art",
   "ad_denoising_strength": 0.3,
   "ad_confidence": 0.3,
   "controlnet_resolution": 512,
   "controlnet_threshold": 0.5,
   "controlnet_weight": 1.0,
   "frames": 16,
   "speed_type": 2,
   "studio": null
  },
  {
   "category": 5,
   "mode": "sdxl",
   "cfg_scale": 7.0,
   "guidance_scale": 7.5,
   "steps": 30,
   "sampler": "DPM++ 2M Karras",
   "clip_skip": 2,
   "denoising_strength": 0.35,
   "width": 832,
   "height": 1216,
   "n_iter": 2,
   "n_iter_paid": 4,
   "seed": -1,
   "negative_prompt": "worst quality, low quality, normal quality, lowres, bad anatomy, bad hands, blurry, jpeg artifacts, watermark",
   "upscale_ratio": 2.0,
   "upscaler": "4x-UltraSharp",
   "hr_scale": 1.5,
   "hr_upscaler": "R-ESRGAN 4x+",
   "hr_second_pass_steps": 20,
   "hr_redraw": 0.5,
   "refiner_switch_at": 0.8,
   "face_restorer_weight": 0.6,
   "face_distance": 1.5,
   "inpaint_blur": 4,
   "inpaint_padding": 32,
   "prompt_magic": 0.4,
   "style": "Fantasy Art",
   "ad_denoising_strength": 0.3,
   "ad_confidence": 0.3,
   "controlnet_resolution": 512,
   "controlnet_threshold": 0.5,
   "controlnet_weight": 1.0,
   "frames": 16,
   "speed_type": 2,
   "studio": null
  },
  {
   "category": 7,
   "mode": "studio",
   "cfg_scale": 6.0,
   "guidance_scale": 7.5,
   "steps": 30,
   "sampler": "DPM++ 2M Karras",
   "clip_skip": 2,
   "denoising_strength": 0.5,
   "width": 832,
   "height": 1216,
   "n_iter": 2,
   "n_iter_paid": 4,
   "seed": -1,
   "negative_prompt": "",
   "upscale_ratio": 2.0,
   "upscaler": "4x-UltraSharp",
   "hr_scale": 1.5,
   "hr_upscaler": "R-ESRGAN 4x+",
   "hr_second_pass_steps": 20,
   "hr_redraw": 0.5,
   "refiner_switch_at": 0.8,
   "face_restorer_weight": 0.6,
   "face_distance": 1.5,
   "inpaint_blur": 4,
   "inpaint_padding": 32,
   "prompt_magic": 0.4,
   "style": "Fantasy Art",
   "ad_denoising_strength": 0.3,
   "ad_confidence": 0.3,
   "controlnet_resolution": 512,
   "controlnet_threshold": 0.5,
   "controlnet_weight": 1.0,
   "frames": 16,
   "speed_type": 2,
   "studio": {
    "style_selections": [
     "Studio Enhance",
     "Studio Expand"
    ],
    "expand_token_length": 10,
    "scheduler": "karras",
    "quality_detail_offset": 0.45,
    "hdr_intensity": 0.5,
    "auto_brightness_strength": 75,
    "auto_adjust_strength": 20,
    "sharpness": 2.0,
    "quality_mode": 3,
    "quality_type": "anime"
   }
  }
 ]
};
