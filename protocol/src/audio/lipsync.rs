//! Lip-sync (spec 2 §3 lipSyncParams, §7 audio-to-lip-video, detectFace, frameDescription, face detection): wire types and rules.
