//! The owner index's backfill (issue 21): rows written before `acct_owned`
//! existed (uploads, comments, reports, appeals, activity votes, survey
//! answers) are not listed under their account, so the deletion sweep and
//! the export would miss them. This walk goes once over each of those
//! tables ([`infra::store::Store::scan_table`]) and records every row's
//! owner, exactly as the domain records a new row (same partition and
//! clustering key), so a row already listed is written again unchanged.
//!
//! Its marker (`acct_backfill`, [`BackfillRow`]) holds the table being
//! walked and the last row done, written after each page: a kill -9 mid-way
//! resumes from there, and the rows of a page done twice are recorded twice
//! harmlessly. Once done it is never run again. It starts at boot
//! ([`start_backfill`]); the sweep and the export wait for it
//! ([`ensure_backfilled`]) so neither acts on an incomplete index.

use infra::store::{decode, tables, Key, Table, TableDef};
use protocol::moderation::ObjKind;
use serde::{Deserialize, Serialize};

use crate::accounts::owned::{record, OwnedKind};
use crate::comments::rows::CommentRow;
use crate::error::ApiError;
use crate::moderation::rows::{AppealRow, ModReportRow};
use crate::state::AppState;
use crate::surveys::ResponseRow;
use crate::uploads::UploadRow;

/// Rows read per page.
const PAGE: u32 = 200;

/// The tables walked, in order.
const SOURCES: &[&TableDef] = &[
    &tables::UPLOADS,
    &tables::COMMENTS,
    &tables::MOD_REPORTS,
    &tables::MOD_APPEALS,
    &tables::ACTIVITY_VOTES,
    &tables::SURVEY_ANSWERS,
];

/// The marker.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BackfillRow {
    /// Index in [`SOURCES`] of the table being walked.
    pub source: u32,
    /// The last row done there: (pk, ck) bytes.
    #[serde(default)]
    pub after: Option<(Vec<u8>, Vec<u8>)>,
    /// Rows recorded so far (for operators' logs).
    #[serde(default)]
    pub recorded: u64,
    pub done: bool,
}

fn marker_key() -> Key {
    Key::of("owner_index")
}

/// One owner record: (account, kind, at, id, extra).
type Rec = (String, OwnedKind, i64, String, String);

/// What a row of `source` records, if it names an owner.
fn owner_of(source: &TableDef, pk: &Key, ck: &Key, v: &[u8]) -> Option<Rec> {
    let name = source.name;
    if name == tables::UPLOADS.name {
        let r: UploadRow = decode(v).ok()?;
        Some((
            r.owner,
            OwnedKind::Upload,
            r.created_at,
            r.file_id,
            String::new(),
        ))
    } else if name == tables::COMMENTS.name {
        let r: CommentRow = decode(v).ok()?;
        Some((
            r.author,
            OwnedKind::Comment,
            r.create_at,
            r.id,
            String::new(),
        ))
    } else if name == tables::MOD_REPORTS.name {
        let r: ModReportRow = decode(v).ok()?;
        let obj_key = pk.reader().str()?;
        Some((
            r.reporter,
            OwnedKind::Report,
            r.create_at,
            obj_key,
            String::new(),
        ))
    } else if name == tables::MOD_APPEALS.name {
        let r: AppealRow = decode(v).ok()?;
        let obj_key = ObjKind::from_code(r.obj_type)
            .map(|k| k.key(&r.obj_id))
            .unwrap_or_default();
        Some((r.owner, OwnedKind::Appeal, r.create_at, r.id, obj_key))
    } else if name == tables::ACTIVITY_VOTES.name {
        let at: i64 = decode(v).ok()?;
        let (entry, voter) = (pk.reader().str()?, ck.reader().str()?);
        Some((voter, OwnedKind::Vote, at, entry, String::new()))
    } else if name == tables::SURVEY_ANSWERS.name {
        let r: ResponseRow = decode(v).ok()?;
        let survey = pk.reader().str()?;
        Some((
            r.account,
            OwnedKind::SurveyAnswer,
            r.at,
            survey,
            String::new(),
        ))
    } else {
        None
    }
}

static RUNNING: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Runs the backfill to its end unless its marker says it is done; safe to
/// call from anywhere, any number of times (one walk at a time in a
/// process; two nodes walking at once write the same records).
pub async fn ensure_backfilled(st: &AppState) -> Result<(), ApiError> {
    let marker: Table<BackfillRow> = Table::new(st.store.clone(), &tables::ACCT_BACKFILL);
    let mk = marker_key();
    if marker
        .get(&mk, &Key::empty())
        .await?
        .is_some_and(|m| m.done)
    {
        return Ok(());
    }
    let _one = RUNNING.lock().await;
    let mut m = marker.get(&mk, &Key::empty()).await?.unwrap_or_default();
    while !m.done {
        let Some(source) = SOURCES.get(m.source as usize).copied() else {
            m.done = true;
            marker.put(&mk, &Key::empty(), &m).await?;
            tracing::info!(recorded = m.recorded, "owner index backfill done");
            break;
        };
        let after = m
            .after
            .as_ref()
            .map(|(p, c)| (Key::from_bytes(p.clone()), Key::from_bytes(c.clone())));
        let page = st
            .store
            .scan_table(source, after.as_ref().map(|(p, c)| (p, c)), PAGE)
            .await?;
        for (pk, ck, v) in &page {
            if let Some((account, kind, at, id, extra)) = owner_of(source, pk, ck, v) {
                if !account.is_empty() {
                    record(&st.store, &account, kind, at, &id, &extra).await?;
                    m.recorded += 1;
                }
            }
        }
        if page.len() < PAGE as usize {
            m.source += 1;
            m.after = None;
        } else {
            m.after = page
                .last()
                .map(|(p, c, _)| (p.as_bytes().to_vec(), c.as_bytes().to_vec()));
        }
        marker.put(&mk, &Key::empty(), &m).await?;
    }
    Ok(())
}

/// Starts the backfill in the background at boot (when not done yet);
/// a failure is logged and the sweep or the next export tries again.
pub fn start_backfill(st: actix_web::web::Data<AppState>) {
    actix_web::rt::spawn(async move {
        if let Err(e) = ensure_backfilled(&st).await {
            tracing::warn!(error = %e, "owner index backfill failed; retried by the next sweep");
        }
    });
}
