//! Integration tests: the real `easel` binary on a random port with a fresh
//! data folder, driven through the protocol crate's reference client.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout
)]

mod abuse_http;
mod abuse_upload;
mod account_deletion;
mod account_deletion_backfill;
mod account_deletion_engagement;
mod accounts;
mod accounts_gaps;
mod accounts_mail;
mod accounts_security;
mod activity;
mod agent;
mod analytics;
mod audio;
mod audio_stream;
mod channels;
mod character_extras;
mod characters;
mod chat;
mod checkin;
mod checkin_zone;
mod comments;
mod editor;
mod faults_queue;
mod faults_socket;
mod helpers;
mod home;
mod home_popups;
mod idor;
mod lipsync;
mod mall;
mod model_feeds;
mod model_ranks;
mod model_social;
mod model_tasks;
mod models;
mod models_import;
mod moderation;
mod multinode;
mod nsfw;
mod nsfw_view;
mod oidc;
mod openapi;
mod ornaments;
mod phoneinvite;
mod polish;
mod prompts;
mod rag;
mod rag_form;
mod shortlinks;
mod smtp;
mod socket;
mod square;
mod surveys;
mod tasks;
mod tasks_queue;
mod text_filter;
mod text_filter_paths;
mod timbre;
mod uploads;
mod video;
mod video_calls;
