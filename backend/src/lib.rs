//! The Easel server: REST routes, the WebSocket endpoint, static web assets
//! and the wiring of store, bus and actors (`Application`).
//!
//! Architecture Invariant: handlers never touch a backend's API directly;
//! they go through services (`accounts`) written against `infra`'s traits.

pub mod access;
pub mod accounts;
pub mod activities;
pub mod actor_map;
pub mod agent;
pub mod analytics;
pub mod app;
pub mod auth;
pub mod awards;
pub mod body_deadline;
pub mod channels;
pub mod characters;
pub mod chat;
pub mod comments;
pub mod creativity;
pub mod credits;
pub mod editor;
pub mod error;
pub mod home;
pub mod mall;
pub mod media;
pub mod model_cache;
pub mod models;
pub mod moderation;
pub mod nsfw;
pub mod ornaments;
pub mod polish;
pub mod popups;
pub mod prompts;
pub mod rag;
pub mod ratelimit;
pub mod routes;
pub mod square;
pub mod state;
pub mod tasks;
pub mod textfilter;
pub mod timbre;
pub mod training;
pub mod uploads;
pub mod web;
pub mod worker;
pub mod ws;
// Issue 22: questionnaires, short links, health.
pub mod health;
pub mod shortlinks;
pub mod surveys;
