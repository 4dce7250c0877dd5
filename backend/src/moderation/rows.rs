//! The stored moderation rows (tables `mod_*`, documented in infra's
//! `tables.rs`). MessagePack; new fields must be `default`.

use protocol::moderation::{AppealStatus, ModState, Role};
use serde::{Deserialize, Serialize};

/// A moderator an operator granted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModeratorRow {
    pub account_id: String,
    pub granted_by: String,
    pub create_at: i64,
}

/// One report (open until resolved or dismissed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModReportRow {
    pub id: String,
    pub obj_type: u8,
    pub obj_id: String,
    pub owner: String,
    pub reporter: String,
    pub reason: String,
    pub text: String,
    pub create_at: i64,
    /// `open`, `resolved` or `dismissed`.
    pub status: String,
    #[serde(default)]
    pub closed_by: String,
    #[serde(default)]
    pub closed_at: i64,
}

/// An object a moderator hid or banned from feeds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModStateRow {
    pub state: ModState,
    pub owner: String,
    pub reason: String,
    pub by: String,
    pub by_role: Role,
    pub at: i64,
}

/// An account ban.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BanRow {
    pub account_id: String,
    pub reason: String,
    pub by: String,
    pub by_role: Role,
    pub create_at: i64,
    /// Ms since the epoch; 0: permanent.
    pub until: i64,
}

/// An NSFW rating appeal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppealRow {
    pub id: String,
    pub obj_type: u8,
    pub obj_id: String,
    pub owner: String,
    pub text: String,
    pub create_at: i64,
    pub status: AppealStatus,
    #[serde(default)]
    pub reason: String,
    #[serde(default)]
    pub decided_by: String,
    #[serde(default)]
    pub decided_at: i64,
}

impl AppealRow {
    pub fn view(&self) -> protocol::moderation::AppealView {
        protocol::moderation::AppealView {
            appeal_id: self.id.clone(),
            obj_type: self.obj_type,
            obj_id: self.obj_id.clone(),
            owner: self.owner.clone(),
            text: self.text.clone(),
            create_at: self.create_at,
            status: self.status,
            reason: self.reason.clone(),
            decided_at: self.decided_at,
        }
    }
}
