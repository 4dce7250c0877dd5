//! Face detection (SeetaFace through `rustface`, its BSD-2 model bundled).
