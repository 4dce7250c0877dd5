//! Users' reports (`report`, `report/portfolio`, `report/palette`,
//! `report/ai-character`) and the moderators' queue.
//!
//! One open report per reporter and object: `mod_reports_open` is written
//! by insert-if-absent, so two racing reports of the same user file one.
//! Every report is kept in `mod_reports` (history). An object enters the
//! queue (`mod_queue`, oldest first) with its first open report or appeal
//! and leaves it when a moderator resolves or dismisses its reports (or
//! decides its appeal).

use infra::store::{Key, ScanRange};
use protocol::moderation::{
    report_rule, ObjKind, QueueItem, ReportGroup, ReportItem, ReportRequest, Role,
};
use protocol::ErrorCode;

use super::rows::ModReportRow;
use super::target::{resolve, Target};
use super::{kind_of, page_limit, paging, rule_error, ModerationService};
use crate::accounts::{now_millis, AccountRow};
use crate::error::ApiError;
use crate::state::AppState;

/// Queue kinds.
pub const REPORT: &str = "report";
pub const APPEAL: &str = "appeal";
/// Partition of the queue.
const OPEN: &str = "open";

fn since_key(queue_kind: &str, obj_key: &str) -> Key {
    Key::empty().str(queue_kind).str(obj_key)
}

fn queue_ck(since: i64, queue_kind: &str, obj_key: &str) -> Key {
    Key::empty().i64(since).str(queue_kind).str(obj_key)
}

/// `"{obj_type}:{id}"` back to its parts.
pub fn parse_obj_key(k: &str) -> Option<(ObjKind, String)> {
    let (code, id) = k.split_once(':')?;
    Some((ObjKind::from_code(code.parse().ok()?)?, id.to_owned()))
}

impl ModerationService {
    /// Puts an object in the queue (once; it keeps its first time).
    pub async fn enqueue(&self, queue_kind: &str, obj_key: &str) -> Result<(), ApiError> {
        let now = now_millis();
        let since = match self
            .queue_since
            .insert_if_absent(&since_key(queue_kind, obj_key), &Key::empty(), &now)
            .await?
        {
            Ok(()) => now,
            Err(earlier) => earlier,
        };
        self.queue
            .put(&Key::of(OPEN), &queue_ck(since, queue_kind, obj_key), &())
            .await?;
        Ok(())
    }

    /// Takes an object out of the queue.
    pub async fn dequeue(&self, queue_kind: &str, obj_key: &str) -> Result<(), ApiError> {
        let sk = since_key(queue_kind, obj_key);
        if let Some(since) = self.queue_since.get(&sk, &Key::empty()).await? {
            self.queue
                .delete(&Key::of(OPEN), &queue_ck(since, queue_kind, obj_key))
                .await?;
            self.queue_since.delete(&sk, &Key::empty()).await?;
        }
        Ok(())
    }

    /// The open reports of an object, newest first.
    pub async fn open_reports(&self, obj_key: &str) -> Result<Vec<ModReportRow>, ApiError> {
        let pk = Key::of(obj_key);
        let mut out = Vec::new();
        let mut paging = None;
        loop {
            let page = self
                .reports_open
                .scan(&pk, &ScanRange::all(200).after(paging))
                .await?;
            for (ck, at) in &page.rows {
                if let Some(reporter) = ck.reader().str() {
                    if let Some(r) = self
                        .reports
                        .get(&pk, &Key::empty().i64(*at).str(&reporter))
                        .await?
                    {
                        out.push(r);
                    }
                }
            }
            paging = page.paging;
            if paging.is_none() {
                break;
            }
        }
        out.sort_by_key(|r| std::cmp::Reverse(r.create_at));
        Ok(out)
    }
}

/// Files `reporter`'s report.
pub async fn file(
    st: &AppState,
    reporter: &AccountRow,
    req: &ReportRequest,
) -> Result<String, ApiError> {
    let kind = kind_of(req.obj_type)?;
    let (reason, text) = report_rule(&req.reason, &req.text).map_err(rule_error)?;
    let target = resolve(st, Some(&reporter.id), kind, req.obj_id.trim()).await?;
    if target.owner == reporter.id {
        return Err(ErrorCode::ReportSelf.into());
    }
    let m = &st.moderation;
    if !m.report_limit.check(&reporter.id).await {
        return Err(ApiError::with_msg(
            ErrorCode::TooManyRequests,
            "too many reports: try again later",
        ));
    }
    let key = kind.key(&target.id);
    let pk = Key::of(&key);
    let now = now_millis();
    if m.reports_open
        .insert_if_absent(&pk, &Key::of(&reporter.id), &now)
        .await?
        .is_err()
    {
        return Err(ErrorCode::ReportDuplicate.into());
    }
    let row = ModReportRow {
        id: uuid::Uuid::now_v7().simple().to_string(),
        obj_type: kind.code(),
        obj_id: target.id.clone(),
        owner: target.owner.clone(),
        reporter: reporter.id.clone(),
        reason: reason.as_str().to_owned(),
        text,
        create_at: now,
        status: "open".into(),
        closed_by: String::new(),
        closed_at: 0,
    };
    m.reports
        .put(&pk, &Key::empty().i64(now).str(&reporter.id), &row)
        .await?;
    // Listed under its reporter, for the export and the deletion sweep.
    crate::accounts::owned::record(
        &st.store,
        &reporter.id,
        crate::accounts::owned::OwnedKind::Report,
        now,
        &key,
        "",
    )
    .await?;
    m.enqueue(REPORT, &key).await?;
    tracing::info!(obj_type = kind.code(), reason = reason.as_str(), "reported");
    Ok(row.id)
}

/// Closes every open report of an object (`resolved` or `dismissed`);
/// answers how many it closed.
pub async fn close(
    st: &AppState,
    actor: &AccountRow,
    role: Role,
    kind: ObjKind,
    id: &str,
    status: &str,
    reason: &str,
) -> Result<u32, ApiError> {
    let m = &st.moderation;
    let key = kind.key(id);
    let pk = Key::of(&key);
    let open = m.open_reports(&key).await?;
    if open.is_empty() {
        return Err(ErrorCode::ModerationStateConflict.into());
    }
    let now = now_millis();
    let mut n = 0;
    for r in open {
        let ck = Key::empty().i64(r.create_at).str(&r.reporter);
        m.reports
            .update(&pk, &ck, Some(r.clone()), |row| {
                row.status = status.to_owned();
                row.closed_by = actor.id.clone();
                row.closed_at = now;
            })
            .await?;
        m.reports_open.delete(&pk, &Key::of(&r.reporter)).await?;
        n += 1;
    }
    m.dequeue(REPORT, &key).await?;
    // A report filed meanwhile keeps the object in the queue.
    if !m.open_reports(&key).await?.is_empty() {
        m.enqueue(REPORT, &key).await?;
    }
    let owner = resolve(st, None, kind, id)
        .await
        .map(|t| t.owner)
        .unwrap_or_default();
    let action = if status == "resolved" {
        "resolve"
    } else {
        "dismiss"
    };
    super::audit(st, actor, role, action, kind, id, &owner, reason).await?;
    Ok(n)
}

/// One object as the console shows it.
pub async fn item(
    st: &AppState,
    queue_kind: &str,
    kind: ObjKind,
    id: &str,
) -> Result<QueueItem, ApiError> {
    let m = &st.moderation;
    let key = kind.key(id);
    let target = match resolve(st, None, kind, id).await {
        Ok(t) => t,
        Err(_) => Target {
            kind,
            id: id.to_owned(),
            owner: String::new(),
            summary: protocol::moderation::ObjectSummary {
                gone: true,
                ..Default::default()
            },
        },
    };
    let owner_name = match st.accounts.get(&target.owner).await? {
        Some(a) => a.name,
        None => String::new(),
    };
    let open = m.open_reports(&key).await?;
    let reports = (!open.is_empty()).then(|| {
        let mut g = ReportGroup {
            count: open.len() as u32,
            latest_at: open.first().map_or(0, |r| r.create_at),
            ..ReportGroup::default()
        };
        for r in &open {
            *g.reasons.entry(r.reason.clone()).or_insert(0) += 1;
            g.items.push(ReportItem {
                reporter: r.reporter.clone(),
                reason: r.reason.clone(),
                text: r.text.clone(),
                create_at: r.create_at,
            });
        }
        g
    });
    let appeal = match m
        .appeal_by_object
        .get(&Key::of(&key), &Key::empty())
        .await?
    {
        Some(aid) => m
            .appeals
            .get(&Key::of(&aid), &Key::empty())
            .await?
            .map(|a| a.view()),
        None => None,
    };
    let moderation = m
        .state(kind, id)
        .await?
        .map(|s| protocol::moderation::ModerationView {
            state: s.state,
            reason: s.reason,
            at: s.at,
        });
    Ok(QueueItem {
        kind: queue_kind.to_owned(),
        obj_type: kind.code(),
        obj_id: id.to_owned(),
        owner: target.owner,
        owner_name,
        summary: target.summary,
        moderation,
        reports,
        appeal,
        history: m.history(kind, id, 20).await?,
    })
}

/// The queue, oldest first: objects with open reports and open appeals.
pub async fn queue(
    st: &AppState,
    only: Option<&str>,
    limit: u32,
    cursor: Option<&str>,
) -> Result<(Vec<QueueItem>, Option<String>), ApiError> {
    if let Some(k) = only.filter(|k| !k.is_empty()) {
        if k != REPORT && k != APPEAL {
            return Err(ApiError::with_msg(
                ErrorCode::InvalidParams,
                "kind is report or appeal",
            ));
        }
    }
    let page = st
        .moderation
        .queue
        .scan(
            &Key::of(OPEN),
            &ScanRange::all(page_limit(limit)).after(paging(cursor)?),
        )
        .await?;
    let mut items = Vec::new();
    for (ck, ()) in page.rows {
        let mut r = ck.reader();
        let (Some(_), Some(qk), Some(obj)) = (r.i64(), r.str(), r.str()) else {
            continue;
        };
        if only.is_some_and(|k| !k.is_empty() && k != qk) {
            continue;
        }
        let Some((kind, id)) = parse_obj_key(&obj) else {
            continue;
        };
        items.push(item(st, &qk, kind, &id).await?);
    }
    Ok((items, page.paging.map(|p| p.to_hex())))
}
