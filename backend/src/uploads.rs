//! Uploads (the rows behind spec 2 §7's chunked upload; the calls are in
//! `routes/resource.rs`) and abandoned uploads: every pre-signed upload is listed in `UPLOADS_OPEN`
//! (by creation time) until it is confirmed; a sweeper removes the parts
//! and the row of uploads left unconfirmed longer than the settings'
//! `upload_ttl_secs` (a client that gave up, or never came back to resume).
//! The row is removed by compare-and-set, so an upload that moved on while
//! it was being looked at is left alone.

use std::time::Duration;

use infra::objects::{DynObjects, ObjectKey};
use infra::store::{tables, DynStore, Key, ScanRange, Table};

use crate::accounts::now_millis;
use serde::{Deserialize, Serialize};

/// Upload categories of spec 2 §7: video and audio.
pub const CATEGORY_VIDEO: i64 = 8;
pub const CATEGORY_AUDIO: i64 = 59;

/// `UPLOADS` row: a pre-signed upload, its parts and, once confirmed, its file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UploadRow {
    pub file_id: String,
    pub owner: String,
    pub file_name: String,
    pub content_type: String,
    pub size: u64,
    pub category: i64,
    pub chunk_size: u64,
    /// One random token per part: the capability in its pre-signed URL.
    pub part_tokens: Vec<String>,
    pub parts_done: Vec<bool>,
    /// Key of the joined file once confirmed.
    pub key: Option<String>,
    pub created_at: i64,
    /// The NSFW classifier's score of a confirmed image, set in the
    /// background after confirmation (`crate::nsfw::UploadScoring`).
    #[serde(default)]
    pub nsfw: Option<protocol::task::NsfwScore>,
}

/// Where an uploaded video's poster is kept.
pub fn poster_key(file_id: &str) -> String {
    format!("u/{file_id}/poster.png")
}

/// The one partition of the open-uploads index.
const OPEN: &str = "open";

#[derive(Clone)]
pub struct UploadSweeper {
    uploads: Table<UploadRow>,
    open: Table<()>,
    objects: DynObjects,
    store: DynStore,
}

/// An upload's part, in the object store.
pub fn part_key(file_id: &str, part: usize) -> String {
    format!("up/{file_id}/part-{part}")
}

impl UploadSweeper {
    pub fn new(store: DynStore, objects: DynObjects) -> UploadSweeper {
        UploadSweeper {
            uploads: Table::new(store.clone(), &tables::UPLOADS),
            open: Table::new(store.clone(), &tables::UPLOADS_OPEN),
            objects,
            store,
        }
    }

    fn ck(row: &UploadRow) -> Key {
        Key::empty().i64(row.created_at).str(&row.file_id)
    }

    /// Lists a new upload as open.
    pub async fn opened(&self, row: &UploadRow) -> infra::store::StoreResult<()> {
        self.open.put(&Key::of(OPEN), &Self::ck(row), &()).await?;
        // Listed under its owner, for the deletion sweep.
        crate::accounts::owned::record(
            &self.store,
            &row.owner,
            crate::accounts::owned::OwnedKind::Upload,
            row.created_at,
            &row.file_id,
            "",
        )
        .await
    }

    /// A confirmed upload is no longer open.
    pub async fn closed(&self, row: &UploadRow) -> infra::store::StoreResult<()> {
        self.open.delete(&Key::of(OPEN), &Self::ck(row)).await
    }

    /// Removes the uploads created before `now - ttl` that are still not
    /// confirmed; answers how many were removed.
    pub async fn sweep(&self, ttl: Duration) -> anyhow::Result<usize> {
        let cutoff = now_millis() - i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX);
        let range = ScanRange {
            to: std::ops::Bound::Excluded(Key::empty().i64(cutoff)),
            ..ScanRange::all(500)
        };
        let page = self.open.scan(&Key::of(OPEN), &range).await?;
        let mut removed = 0;
        for (ck, ()) in page.rows {
            let mut r = ck.reader();
            let (Some(_), Some(file_id)) = (r.i64(), r.str()) else {
                self.open.delete(&Key::of(OPEN), &ck).await?;
                continue;
            };
            let pk = Key::of(&file_id);
            if let Some(row) = self.uploads.get(&pk, &Key::empty()).await? {
                if row.key.is_some() {
                    // Confirmed after all (its index entry was not removed).
                    self.open.delete(&Key::of(OPEN), &ck).await?;
                    continue;
                }
                // Its parts first, then the row: a crash in between leaves
                // the row and its index entry, so the next sweep finishes
                // (deleting a part twice is harmless); never parts without
                // a row that names them.
                for i in 0..row.parts_done.len() {
                    if let Ok(k) = ObjectKey::parse(&part_key(&file_id, i)) {
                        let _ = self.objects.delete(&k).await;
                    }
                }
                if self
                    .uploads
                    .compare_and_set(&pk, &Key::empty(), &row, None)
                    .await?
                    .is_err()
                {
                    // Touched at this very moment, long after its time:
                    // the next sweep looks again.
                    continue;
                }
                removed += 1;
                tracing::info!(file_id, size = row.size, "upload abandoned: removed");
            }
            self.open.delete(&Key::of(OPEN), &ck).await?;
        }
        Ok(removed)
    }

    /// Sweeps every `every` in the background.
    pub fn start(self, ttl: Duration, every: Duration) {
        actix_web::rt::spawn(async move {
            let mut tick = tokio::time::interval(every);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                if let Err(e) = self.sweep(ttl).await {
                    tracing::warn!(error = %e, "upload sweep failed");
                }
            }
        });
    }
}
