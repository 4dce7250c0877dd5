//! Data export (issue 21 item 6): a background job writes a ZIP of the
//! person's data (one JSON file per domain, and the media files their rows
//! point to), stored privately under `x/` (never served by `/files/`),
//! downloadable by its owner only (`account/export/download`) until it
//! expires. One export at a time per account; progress in the row.
//!
//! Storage: `DELETION_EXPORTS`, one [`ExportRow`] per account (the latest).

use std::io::Write;

use infra::objects::ObjectKey;
use infra::store::{tables, Key, ScanRange, Table, TableDef};
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::{now_millis, AccountRow};
use crate::error::ApiError;
use crate::state::AppState;

/// Where an export stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExportState {
    Running,
    Ready,
    Failed,
}

/// `DELETION_EXPORTS` row (also the wire view, without the object key).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportRow {
    pub id: String,
    pub state: ExportState,
    /// 0..=100.
    pub progress: u8,
    pub created_at: i64,
    #[serde(default)]
    pub finished_at: Option<i64>,
    /// After this (ms) the file is gone.
    #[serde(default)]
    pub expires_at: Option<i64>,
    #[serde(default)]
    pub size: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object_key: Option<String>,
}

impl ExportRow {
    pub fn wire(&self) -> Value {
        json!({
            "id": self.id,
            "state": self.state,
            "progress": self.progress,
            "created_at": self.created_at,
            "finished_at": self.finished_at,
            "expires_at": self.expires_at,
            "size": self.size,
        })
    }
}

/// `EASEL_ACCOUNT_EXPORT_TTL_HOURS` (default 72): how long a ready export
/// can be downloaded.
fn ttl_ms() -> i64 {
    hours("EASEL_ACCOUNT_EXPORT_TTL_HOURS", 72) * 3_600_000
}

/// A running export older than this (a crash took its job) may be replaced.
const STALE_MS: i64 = 3_600_000;

/// Media files beyond this many bytes in all are listed, not included
/// (`EASEL_ACCOUNT_EXPORT_MAX_MEDIA_MB`, default 1024).
fn max_media_bytes() -> u64 {
    hours("EASEL_ACCOUNT_EXPORT_MAX_MEDIA_MB", 1024) as u64 * 1024 * 1024
}

fn hours(name: &str, default: i64) -> i64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse::<i64>().ok())
        .filter(|n| *n > 0)
        .unwrap_or(default)
}

fn table(st: &AppState) -> Table<ExportRow> {
    Table::new(st.store.clone(), &tables::DELETION_EXPORTS)
}

/// The caller's export, if any (an expired one is removed and not answered).
pub async fn status(st: &AppState, account: &str) -> Result<Option<ExportRow>, ApiError> {
    let t = table(st);
    let Some(row) = t.get(&Key::of(account), &Key::empty()).await? else {
        return Ok(None);
    };
    if row.expires_at.is_some_and(|e| e <= now_millis()) {
        forget(st, account).await?;
        return Ok(None);
    }
    Ok(Some(row))
}

/// `account/export/request`: starts the job unless one runs.
pub async fn request(
    st: &actix_web::web::Data<AppState>,
    owner: &AccountRow,
) -> Result<ExportRow, ApiError> {
    let t = table(st);
    let pk = Key::of(&owner.id);
    let now = now_millis();
    let current = t.get(&pk, &Key::empty()).await?;
    if let Some(b) = &current {
        if b.state == ExportState::Running && now - b.created_at < STALE_MS {
            return Err(ErrorCode::ExportRunning.into());
        }
    }
    let row = ExportRow {
        id: uuid::Uuid::now_v7().simple().to_string(),
        state: ExportState::Running,
        progress: 0,
        created_at: now,
        finished_at: None,
        expires_at: None,
        size: 0,
        object_key: None,
    };
    // Compare-and-set: of two requests at once, one starts a job.
    let taken = match &current {
        None => t.insert_if_absent(&pk, &Key::empty(), &row).await?.is_ok(),
        Some(cur) => t
            .compare_and_set(&pk, &Key::empty(), cur, Some(&row))
            .await?
            .is_ok(),
    };
    if !taken {
        return Err(ErrorCode::ExportRunning.into());
    }
    if let Some(old) = current.and_then(|b| b.object_key) {
        if let Ok(k) = ObjectKey::parse(&old) {
            st.objects.delete(&k).await.map_err(ApiError::internal)?;
        }
    }
    let (st2, owner2, id) = (st.clone(), owner.clone(), row.id.clone());
    actix_web::rt::spawn(async move {
        if let Err(e) = build(&st2, &owner2, &id).await {
            tracing::warn!(error = %e, "data export failed");
            let _ = set(&st2, &owner2.id, &id, |r| r.state = ExportState::Failed).await;
        }
    });
    Ok(row)
}

/// The ready export's object key, for its owner.
pub async fn ready_key(st: &AppState, account: &str) -> Result<ObjectKey, ApiError> {
    let row = status(st, account)
        .await?
        .filter(|r| r.state == ExportState::Ready)
        .ok_or(ErrorCode::ExportUnavailable)?;
    let key = row.object_key.ok_or(ErrorCode::ExportUnavailable)?;
    ObjectKey::parse(&key).map_err(|_| ErrorCode::ExportUnavailable.into())
}

/// Removes the account's export, file and row (expiry, deletion).
pub async fn forget(st: &AppState, account: &str) -> Result<(), ApiError> {
    let t = table(st);
    let pk = Key::of(account);
    if let Some(row) = t.get(&pk, &Key::empty()).await? {
        if let Some(k) = row
            .object_key
            .as_deref()
            .and_then(|k| ObjectKey::parse(k).ok())
        {
            st.objects.delete(&k).await.map_err(ApiError::internal)?;
        }
        t.delete(&pk, &Key::empty()).await?;
    }
    Ok(())
}

/// Changes this job's row (not a newer job's).
async fn set(
    st: &AppState,
    account: &str,
    id: &str,
    f: impl Fn(&mut ExportRow),
) -> Result<(), ApiError> {
    table(st)
        .update(&Key::of(account), &Key::empty(), None, |r| {
            if r.id == id {
                f(r)
            }
        })
        .await?;
    Ok(())
}

/// One domain of the export: an owner index and the rows it points to.
struct Domain {
    file: &'static str,
    index: &'static TableDef,
    /// The index's partition key: the account id, or `a:{id}` (tasks).
    task_owner: bool,
    /// The index's clustering key: (time, id) or (id).
    time_then_id: bool,
    rows: &'static TableDef,
    /// A table of the item's children by its id (messages), if any.
    children: Option<&'static TableDef>,
}

const DOMAINS: &[Domain] = &[
    Domain {
        file: "works.json",
        index: &tables::WORKS_BY_AUTHOR,
        task_owner: false,
        time_then_id: true,
        rows: &tables::WORKS,
        children: None,
    },
    Domain {
        file: "characters.json",
        index: &tables::CHARACTERS_BY_OWNER,
        task_owner: false,
        time_then_id: true,
        rows: &tables::CHARACTERS,
        children: None,
    },
    Domain {
        file: "datacards.json",
        index: &tables::DATACARDS_BY_OWNER,
        task_owner: false,
        time_then_id: true,
        rows: &tables::DATACARDS,
        children: None,
    },
    Domain {
        file: "chats.json",
        index: &tables::CHAT_SESSIONS_BY_OWNER,
        task_owner: false,
        time_then_id: true,
        rows: &tables::CHAT_SESSIONS,
        children: Some(&tables::CHAT_MESSAGES),
    },
    Domain {
        file: "agent.json",
        index: &tables::AGENT_CONVS_BY_OWNER,
        task_owner: false,
        time_then_id: true,
        rows: &tables::AGENT_CONVS,
        children: Some(&tables::AGENT_MESSAGES),
    },
    Domain {
        file: "channels.json",
        index: &tables::CHANNELS_BY_ACCOUNT,
        task_owner: false,
        time_then_id: false,
        rows: &tables::CHANNELS,
        children: None,
    },
    Domain {
        file: "tasks.json",
        index: &tables::TASKS_BY_OWNER,
        task_owner: true,
        time_then_id: true,
        rows: &tables::TASKS,
        children: None,
    },
    Domain {
        file: "models.json",
        index: &tables::MODELS_BY_OWNER,
        task_owner: false,
        time_then_id: true,
        rows: &tables::MODELS,
        children: None,
    },
    Domain {
        file: "datasets.json",
        index: &tables::DATASETS_BY_OWNER,
        task_owner: false,
        time_then_id: true,
        rows: &tables::DATASETS,
        children: None,
    },
    Domain {
        file: "trainings.json",
        index: &tables::TRAININGS_BY_OWNER,
        task_owner: false,
        time_then_id: true,
        rows: &tables::TRAININGS,
        children: None,
    },
    Domain {
        file: "timbres.json",
        index: &tables::TIMBRES_BY_OWNER,
        task_owner: false,
        time_then_id: true,
        rows: &tables::TIMBRES,
        children: None,
    },
    Domain {
        file: "orders.json",
        index: &tables::ORDERS_BY_ACCOUNT,
        task_owner: false,
        time_then_id: true,
        rows: &tables::ORDERS,
        children: None,
    },
];

/// Every row of a partition, as JSON.
async fn partition(
    st: &AppState,
    def: &'static TableDef,
    pk: &Key,
) -> Result<Vec<Value>, ApiError> {
    let t: Table<Value> = Table::new(st.store.clone(), def);
    let mut out = Vec::new();
    let mut paging = None;
    loop {
        let page = t.scan(pk, &ScanRange::all(500).after(paging)).await?;
        out.extend(page.rows.into_iter().map(|(_, v)| v));
        paging = page.paging;
        if paging.is_none() {
            return Ok(out);
        }
    }
}

async fn domain_rows(st: &AppState, owner: &str, d: &Domain) -> Result<Vec<Value>, ApiError> {
    let index: Table<Value> = Table::new(st.store.clone(), d.index);
    let rows: Table<Value> = Table::new(st.store.clone(), d.rows);
    let pk = if d.task_owner {
        Key::of(&format!("a:{owner}"))
    } else {
        Key::of(owner)
    };
    let mut out = Vec::new();
    let mut paging = None;
    loop {
        let page = index.scan(&pk, &ScanRange::all(500).after(paging)).await?;
        for (ck, _) in &page.rows {
            let mut r = ck.reader();
            if d.time_then_id {
                let _ = r.i64();
            }
            let Some(id) = r.str() else { continue };
            let Some(mut row) = rows.get(&Key::of(&id), &Key::empty()).await? else {
                continue;
            };
            if let Some(children) = d.children {
                let kids = partition(st, children, &Key::of(&id)).await?;
                if let Value::Object(m) = &mut row {
                    m.insert("messages".into(), Value::Array(kids));
                }
            }
            out.push(row);
        }
        paging = page.paging;
        if paging.is_none() {
            return Ok(out);
        }
    }
}

/// Object keys that `v`'s strings point to (`.../files/{key}`).
fn media_keys(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => {
            if let Some((_, rest)) = s.split_once("/files/") {
                let key = rest.split(['?', '#']).next().unwrap_or_default();
                let private = ["up/", "m/", "x/"].iter().any(|p| key.starts_with(p));
                if !private && ObjectKey::parse(key).is_ok() && !out.iter().any(|k| k == key) {
                    out.push(key.to_owned());
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| media_keys(x, out)),
        Value::Object(m) => m.values().for_each(|x| media_keys(x, out)),
        _ => {}
    }
}

/// The job: JSON per domain, then media, then the stored ZIP.
async fn build(st: &AppState, owner: &AccountRow, id: &str) -> Result<(), ApiError> {
    let me = owner.id.as_str();
    // Rows older than the owner index are listed once it is backfilled.
    super::deletion::ensure_backfilled(st).await?;
    let opts =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let add = |zip: &mut zip::ZipWriter<std::io::Cursor<Vec<u8>>>, name: &str, bytes: &[u8]| {
        zip.start_file(name, opts).map_err(ApiError::internal)?;
        zip.write_all(bytes).map_err(ApiError::internal)
    };
    let account = json!({
        "id": owner.id, "email": owner.email, "name": owner.name, "create_at": owner.create_at,
        "status": owner.status, "settings": owner.settings, "payment": owner.payment_now(),
    });
    add(&mut zip, "account.json", &to_json(&account)?)?;
    let ledger = partition(st, &tables::LEDGER, &Key::of(me)).await?;
    let balance = Table::<Value>::new(st.store.clone(), &tables::BALANCES)
        .get(&Key::of(me), &Key::empty())
        .await?;
    add(
        &mut zip,
        "ledger.json",
        &to_json(&json!({"balance": balance, "entries": ledger}))?,
    )?;
    // Comments, likes and collects, follows both ways, moderation rows.
    let follows = super::export_social::follows(st, me).await?;
    add(&mut zip, "follows.json", &to_json(&follows)?)?;
    let comments = super::export_social::comments(st, me).await?;
    add(&mut zip, "comments.json", &to_json(&comments)?)?;
    let reactions = super::export_social::reactions(st, me).await?;
    add(&mut zip, "reactions.json", &to_json(&reactions)?)?;
    let moderation = super::export_social::moderation(st, me).await?;
    add(&mut zip, "moderation.json", &to_json(&moderation)?)?;
    let engagement = super::export_social::engagement(st, me).await?;
    add(&mut zip, "engagement.json", &to_json(&engagement)?)?;
    let editor = partition(st, &tables::EDITOR_WORKSPACES, &Key::of(me)).await?;
    add(&mut zip, "editor.json", &to_json(&editor)?)?;
    let mut keys = Vec::new();
    media_keys(&Value::Array(editor.clone()), &mut keys);
    let total = DOMAINS.len() + 1;
    for (i, d) in DOMAINS.iter().enumerate() {
        let rows = domain_rows(st, me, d).await?;
        media_keys(&Value::Array(rows.clone()), &mut keys);
        add(&mut zip, d.file, &to_json(&rows)?)?;
        let pct = ((i + 1) * 90 / total) as u8;
        set(st, me, id, |r| r.progress = pct).await?;
    }
    let (mut included, mut skipped, mut bytes) = (Vec::new(), Vec::new(), 0u64);
    for k in keys {
        let Ok(key) = ObjectKey::parse(&k) else {
            continue;
        };
        match st.objects.get(&key).await.map_err(ApiError::internal)? {
            Some(o) if bytes + (o.bytes.len() as u64) <= max_media_bytes() => {
                bytes += o.bytes.len() as u64;
                add(&mut zip, &format!("media/{k}"), &o.bytes)?;
                included.push(k);
            }
            Some(_) => skipped.push(k),
            None => {}
        }
    }
    add(
        &mut zip,
        "manifest.json",
        &to_json(&json!({
            "format": 1, "account_id": me, "created_at": now_millis(),
            "media": included, "media_not_included": skipped,
        }))?,
    )?;
    let data = zip.finish().map_err(ApiError::internal)?.into_inner();
    let size = data.len() as u64;
    let key = format!(
        "x/{me}/{}-{}.zip",
        id,
        hex::encode(rand::random::<[u8; 16]>())
    );
    let okey = ObjectKey::parse(&key).map_err(ApiError::internal)?;
    st.objects
        .put(&okey, data, "application/zip")
        .await
        .map_err(ApiError::internal)?;
    let now = now_millis();
    set(st, me, id, |r| {
        r.state = ExportState::Ready;
        r.progress = 100;
        r.finished_at = Some(now);
        r.expires_at = Some(now + ttl_ms());
        r.size = size;
        r.object_key = Some(key.clone());
    })
    .await?;
    // A row replaced meanwhile (the account deleted): the file goes too.
    let kept = table(st).get(&Key::of(me), &Key::empty()).await?;
    if kept.and_then(|r| r.object_key) != Some(key) {
        st.objects.delete(&okey).await.map_err(ApiError::internal)?;
    }
    Ok(())
}

fn to_json(v: &impl Serialize) -> Result<Vec<u8>, ApiError> {
    serde_json::to_vec_pretty(v).map_err(ApiError::internal)
}
