//! The deletion sweep's steps for rows kept by object rather than by owner
//! (see `deletion/mod.rs`): moderation reports and appeals the person filed,
//! their moderator grant (their decisions stay, anonymised), their
//! ornaments, and the files they uploaded. Each step drains an
//! `acct_owned` partition ([`super::owned`]) or an owner-keyed table; every
//! removal is idempotent so a crash is finished by the next run.

use infra::objects::ObjectKey;
use infra::store::{tables, Key, ScanRange, Table};
use protocol::moderation::{AuditEntry, ObjKind};

use super::sweep::drain;
use super::DELETED_NAME;
use crate::accounts::owned::{owned_pk, OwnedKind};
use crate::error::ApiError;
use crate::moderation::reports::{APPEAL, REPORT};
use crate::state::AppState;
use crate::uploads::{part_key, poster_key, UploadRow};

/// Reports filed, appeals made, the appeal-per-day counters, the moderator
/// grant; audit entries the person wrote as a moderator stay (they concern
/// others) with the actor's name replaced.
pub async fn moderation(st: &AppState, me: &str, budget: &mut u64) -> Result<bool, ApiError> {
    let reports = drain(
        st,
        &tables::ACCT_OWNED,
        owned_pk(me, OwnedKind::Report),
        true,
        budget,
        |obj_key| async move { remove_reports(st, me, &obj_key).await },
    )
    .await?;
    if !reports {
        return Ok(false);
    }
    let appeals = drain(
        st,
        &tables::ACCT_OWNED,
        owned_pk(me, OwnedKind::Appeal),
        true,
        budget,
        |id| async move { remove_appeal(st, me, &id).await },
    )
    .await?;
    if !appeals {
        return Ok(false);
    }
    let days = drain(
        st,
        &tables::MOD_APPEAL_DAYS,
        Key::of(me),
        false,
        budget,
        |_| async { Ok(()) },
    )
    .await?;
    if !days || *budget == 0 {
        return Ok(false);
    }
    let m = &st.moderation;
    let all = Key::of("all");
    if m.moderators.get(&all, &Key::of(me)).await?.is_some() {
        anonymise_audit(st, me).await?;
        m.moderators.delete(&all, &Key::of(me)).await?;
    }
    *budget = budget.saturating_sub(1);
    Ok(true)
}

/// The person's reports of one object, open or closed; the object leaves
/// the queue when no open report is left.
async fn remove_reports(st: &AppState, me: &str, obj_key: &str) -> Result<(), ApiError> {
    let m = &st.moderation;
    let pk = Key::of(obj_key);
    let mut paging = None;
    let mut mine = Vec::new();
    loop {
        let page = m
            .reports
            .scan(&pk, &ScanRange::all(200).after(paging))
            .await?;
        for (ck, row) in page.rows {
            if row.reporter == me {
                mine.push(ck);
            }
        }
        paging = page.paging;
        if paging.is_none() {
            break;
        }
    }
    m.reports_open.delete(&pk, &Key::of(me)).await?;
    for ck in mine {
        m.reports.delete(&pk, &ck).await?;
    }
    if m.open_reports(obj_key).await?.is_empty() {
        m.dequeue(REPORT, obj_key).await?;
    }
    Ok(())
}

/// An appeal the person made (only theirs), and its queue entry.
async fn remove_appeal(st: &AppState, me: &str, id: &str) -> Result<(), ApiError> {
    let m = &st.moderation;
    let Some(row) = m.appeals.get(&Key::of(id), &Key::empty()).await? else {
        return Ok(());
    };
    if row.owner != me {
        return Ok(());
    }
    let obj_key = ObjKind::from_code(row.obj_type)
        .map(|k| k.key(&row.obj_id))
        .unwrap_or_default();
    let by_object = Key::of(&obj_key);
    if m.appeal_by_object
        .get(&by_object, &Key::empty())
        .await?
        .is_some_and(|a| a == id)
    {
        m.appeal_by_object.delete(&by_object, &Key::empty()).await?;
        m.dequeue(APPEAL, &obj_key).await?;
    }
    m.appeals.delete(&Key::of(id), &Key::empty()).await?;
    Ok(())
}

/// Replaces the actor's name in the audit entries a moderator wrote (the
/// log and each object's history), keeping the decisions themselves.
async fn anonymise_audit(st: &AppState, me: &str) -> Result<(), ApiError> {
    let m = &st.moderation;
    let all = Key::of("all");
    let mut paging = None;
    loop {
        let page = m
            .audit
            .scan(&all, &ScanRange::all(500).after(paging))
            .await?;
        for (ck, entry) in page.rows {
            if entry.actor != me || entry.actor_name == DELETED_NAME {
                continue;
            }
            let renamed = AuditEntry {
                actor_name: DELETED_NAME.to_owned(),
                ..entry.clone()
            };
            m.audit.put(&all, &ck, &renamed).await?;
            if let Some(kind) = ObjKind::from_code(entry.obj_type) {
                let opk = Key::of(&kind.key(&entry.obj_id));
                let ock = Key::empty().i64(entry.create_at).str(&entry.id);
                if m.audit_by_object.get(&opk, &ock).await?.is_some() {
                    m.audit_by_object.put(&opk, &ock, &renamed).await?;
                }
            }
        }
        paging = page.paging;
        if paging.is_none() {
            return Ok(());
        }
    }
}

/// Ornaments bought and worn: removed (the purchases stay in the ledger
/// and orders; a limited ornament's sold unit stays sold).
pub async fn ornaments(st: &AppState, me: &str, budget: &mut u64) -> Result<bool, ApiError> {
    let worn = drain(
        st,
        &tables::ORNAMENTS_WORN,
        Key::of(me),
        false,
        budget,
        |_| async { Ok(()) },
    )
    .await?;
    if !worn {
        return Ok(false);
    }
    st.ornaments.decor().forget(me);
    drain(
        st,
        &tables::ORNAMENTS_OWNED,
        Key::of(me),
        false,
        budget,
        |_| async { Ok(()) },
    )
    .await
}

/// The person's uploads, from the object store and the uploads table. This
/// step runs after every domain that could point at them (works,
/// characters, tasks, models, datasets, voices, editor), and an upload is
/// only ever used by its owner's objects, so none is referenced any more.
pub async fn uploads(st: &AppState, me: &str, budget: &mut u64) -> Result<bool, ApiError> {
    let rows: Table<UploadRow> = Table::new(st.store.clone(), &tables::UPLOADS);
    let rows = &rows;
    drain(
        st,
        &tables::ACCT_OWNED,
        owned_pk(me, OwnedKind::Upload),
        true,
        budget,
        |file_id| async move {
            let pk = Key::of(&file_id);
            let Some(row) = rows.get(&pk, &Key::empty()).await? else {
                return Ok(());
            };
            if row.owner != me {
                return Ok(());
            }
            let mut keys: Vec<String> = (0..row.parts_done.len())
                .map(|i| part_key(&file_id, i))
                .collect();
            keys.push(poster_key(&file_id));
            keys.extend(row.key.clone());
            for k in keys {
                if let Ok(key) = ObjectKey::parse(&k) {
                    st.objects.delete(&key).await.map_err(ApiError::internal)?;
                }
            }
            st.upload_sweeper
                .closed(&row)
                .await
                .map_err(ApiError::from)?;
            rows.delete(&pk, &Key::empty()).await?;
            Ok(())
        },
    )
    .await
}
