//! Reports filed before the moderators' queue existed: `ai-video/report`
//! wrote them to the `reports` table (pk "video:{work id}", ck reporter,
//! indexed by time in `reports_by_time`). `ai-video/report` now files into
//! the queue (`reports.rs`); this copies the old rows into it once at start.
//!
//! Idempotent: a copied row is written to `mod_reports` under the old
//! row's (create time, reporter) by insert-if-absent, so a second run (or
//! a second node) finds it there and does nothing, even after a moderator
//! closed it. A copied report is open unless its reporter already has an
//! open report of that work (then it is kept as `dismissed`, history only).
//! The old tables are only read; they can be dropped once every deployment
//! has run this copy.

use infra::store::{tables, DynStore, Key, ScanRange, Table};
use protocol::moderation::ObjKind;
use serde::{Deserialize, Serialize};

use super::reports::REPORT;
use super::rows::ModReportRow;
use super::ModerationService;
use crate::error::ApiError;

/// A row of the old `reports` table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LegacyReportRow {
    /// `video` (a video work).
    pub kind: String,
    pub object_id: String,
    pub owner: String,
    pub reporter: String,
    pub reason: String,
    pub detail: String,
    pub create_at: i64,
    pub update_at: i64,
}

/// The old index's one partition.
const BY_TIME: &str = "all";
/// Who closed a copied report that could not stay open.
const IMPORTER: &str = "legacy-import";

/// What one run did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Imported {
    /// Rows copied into the queue (open).
    pub opened: u32,
    /// Rows copied as history only (the reporter had an open report).
    pub history: u32,
    /// Rows copied by an earlier run.
    pub already: u32,
}

/// Copies every old report into the moderators' queue (see the module doc).
pub async fn import(store: &DynStore, m: &ModerationService) -> Result<Imported, ApiError> {
    let old: Table<LegacyReportRow> = Table::new(store.clone(), &tables::REPORTS);
    let by_time: Table<()> = Table::new(store.clone(), &tables::REPORTS_BY_TIME);
    let mut done = Imported::default();
    let mut paging = None;
    loop {
        let page = by_time
            .scan(&Key::of(BY_TIME), &ScanRange::all(500).after(paging))
            .await?;
        for (ck, ()) in &page.rows {
            let mut r = ck.reader();
            let (Some(_), Some(kind), Some(id), Some(reporter)) =
                (r.i64(), r.str(), r.str(), r.str())
            else {
                continue;
            };
            let Some(row) = old
                .get(&Key::of(&format!("{kind}:{id}")), &Key::of(&reporter))
                .await?
            else {
                continue;
            };
            copy(m, &row, &mut done).await?;
        }
        match page.paging {
            Some(p) => paging = Some(p),
            None => break,
        }
    }
    Ok(done)
}

async fn copy(
    m: &ModerationService,
    row: &LegacyReportRow,
    done: &mut Imported,
) -> Result<(), ApiError> {
    // Every old report named a video work.
    let key = ObjKind::Work.key(&row.object_id);
    let pk = Key::of(&key);
    let ck = Key::empty().i64(row.create_at).str(&row.reporter);
    let mut copied = ModReportRow {
        id: uuid::Uuid::now_v7().simple().to_string(),
        obj_type: ObjKind::Work.code(),
        obj_id: row.object_id.clone(),
        owner: row.owner.clone(),
        reporter: row.reporter.clone(),
        reason: row.reason.clone(),
        text: row.detail.clone(),
        create_at: row.create_at,
        status: "open".into(),
        closed_by: String::new(),
        closed_at: 0,
    };
    let open = m
        .reports_open
        .insert_if_absent(&pk, &Key::of(&row.reporter), &row.create_at)
        .await?;
    if open.is_err() {
        // Copied before (its open entry still there), or the reporter filed
        // a new report since: either way this one is not a second open one.
        if m.reports.get(&pk, &ck).await?.is_some() {
            done.already += 1;
            return Ok(());
        }
        copied.status = "dismissed".into();
        copied.closed_by = IMPORTER.into();
        copied.closed_at = row.update_at;
    }
    if m.reports
        .insert_if_absent(&pk, &ck, &copied)
        .await?
        .is_err()
    {
        // Copied by an earlier run and closed by a moderator since.
        if open.is_ok() {
            m.reports_open.delete(&pk, &Key::of(&row.reporter)).await?;
        }
        done.already += 1;
        return Ok(());
    }
    if open.is_ok() {
        m.enqueue(REPORT, &key).await?;
        done.opened += 1;
    } else {
        done.history += 1;
    }
    Ok(())
}

/// Runs the copy in the background at start; the outcome is logged.
pub fn start(store: DynStore, m: ModerationService) {
    tokio::spawn(async move {
        match import(&store, &m).await {
            Ok(d) if d.opened + d.history > 0 => {
                tracing::info!(
                    opened = d.opened,
                    history = d.history,
                    "moderation: old video reports copied into the queue"
                )
            }
            Ok(_) => {}
            Err(e) => tracing::error!(error = %e, "moderation: copying old video reports failed"),
        }
    });
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::sync::Arc;

    use super::*;

    async fn put_old(store: &DynStore, work: &str, reporter: &str, at: i64) {
        let old: Table<LegacyReportRow> = Table::new(store.clone(), &tables::REPORTS);
        let by_time: Table<()> = Table::new(store.clone(), &tables::REPORTS_BY_TIME);
        let row = LegacyReportRow {
            kind: "video".into(),
            object_id: work.into(),
            owner: "owner".into(),
            reporter: reporter.into(),
            reason: "spam".into(),
            detail: String::new(),
            create_at: at,
            update_at: at,
        };
        old.put(&Key::of(&format!("video:{work}")), &Key::of(reporter), &row)
            .await
            .unwrap();
        by_time
            .put(
                &Key::of(BY_TIME),
                &Key::empty().i64(at).str("video").str(work).str(reporter),
                &(),
            )
            .await
            .unwrap();
    }

    #[tokio::test]
    async fn old_reports_enter_the_queue_once() {
        let dir = tempfile::tempdir().unwrap();
        let store: DynStore = Arc::new(
            infra::store::embedded::EmbeddedStore::open(&dir.path().join("store")).unwrap(),
        );
        let m = ModerationService::new(store.clone(), 3, &crate::ratelimit::RateLimits::local());
        put_old(&store, "w1", "alice", 1_000).await;
        put_old(&store, "w1", "bob", 2_000).await;
        put_old(&store, "w2", "alice", 3_000).await;
        // Bob has since filed a new open report of w2 through the queue.
        put_old(&store, "w2", "bob", 4_000).await;
        let w2 = ObjKind::Work.key("w2");
        m.reports_open
            .put(&Key::of(&w2), &Key::of("bob"), &5_000)
            .await
            .unwrap();

        let first = import(&store, &m).await.unwrap();
        assert_eq!(
            first,
            Imported {
                opened: 3,
                history: 1,
                already: 0
            }
        );
        let w1 = ObjKind::Work.key("w1");
        assert_eq!(m.open_reports(&w1).await.unwrap().len(), 2);
        let q = m
            .queue
            .scan(&Key::of("open"), &ScanRange::all(100))
            .await
            .unwrap();
        assert_eq!(q.rows.len(), 2, "w1 and w2 are queued once each");

        // A moderator closes w1's reports; the copy runs again (a restart).
        for r in ["alice", "bob"] {
            m.reports_open
                .delete(&Key::of(&w1), &Key::of(r))
                .await
                .unwrap();
        }
        let again = import(&store, &m).await.unwrap();
        assert_eq!(
            again,
            Imported {
                opened: 0,
                history: 0,
                already: 4
            }
        );
        assert!(m.open_reports(&w1).await.unwrap().is_empty());
        let all = m
            .reports
            .scan(&Key::of(&w2), &ScanRange::all(100))
            .await
            .unwrap();
        assert_eq!(all.rows.len(), 2, "w2: alice's open copy and bob's history");
    }
}
