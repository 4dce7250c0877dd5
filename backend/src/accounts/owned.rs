//! What an account made in domains that key their rows by object, not by
//! owner (issue 21's deletion and export): uploads, moderation reports it
//! filed, appeals it made, comments it wrote. Each domain records its row
//! here when it is made (`acct_owned`: pk (account, kind), ck (time, id));
//! the deletion sweep drains these partitions and the export reads them.
//! Rows made before this index existed are listed by the one-time backfill
//! (`deletion/backfill.rs`), which walks the domains' tables.

use infra::store::{tables, DynStore, Key, ScanRange, StoreResult, Table};

/// Which rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OwnedKind {
    /// `uploads` rows (id: file id).
    Upload,
    /// `mod_reports` rows (id: the object key; the row's reporter is the account).
    Report,
    /// `mod_appeals` rows (id: appeal id; extra: the object key).
    Appeal,
    /// `comments` rows (id: comment id).
    Comment,
    /// `activity_votes` rows (id: the entry voted for).
    Vote,
    /// `survey_answers` rows (id: the survey answered).
    SurveyAnswer,
}

impl OwnedKind {
    pub fn name(self) -> &'static str {
        match self {
            OwnedKind::Upload => "upload",
            OwnedKind::Report => "report",
            OwnedKind::Appeal => "appeal",
            OwnedKind::Comment => "comment",
            OwnedKind::Vote => "vote",
            OwnedKind::SurveyAnswer => "survey_answer",
        }
    }
}

/// The partition of `account`'s rows of `kind`.
pub fn owned_pk(account: &str, kind: OwnedKind) -> Key {
    Key::of(account).str(kind.name())
}

/// Records that `account` made the row `id` of `kind` at `at` (ms).
pub async fn record(
    store: &DynStore,
    account: &str,
    kind: OwnedKind,
    at: i64,
    id: &str,
    extra: &str,
) -> StoreResult<()> {
    let t: Table<String> = Table::new(store.clone(), &tables::ACCT_OWNED);
    t.put(
        &owned_pk(account, kind),
        &Key::empty().i64(at).str(id),
        &extra.to_owned(),
    )
    .await
}

/// Forgets the record of `id` made at `at` (its row was taken back).
pub async fn forget(
    store: &DynStore,
    account: &str,
    kind: OwnedKind,
    at: i64,
    id: &str,
) -> StoreResult<()> {
    let t: Table<String> = Table::new(store.clone(), &tables::ACCT_OWNED);
    t.delete(&owned_pk(account, kind), &Key::empty().i64(at).str(id))
        .await
}

/// Every (at, id, extra) of `account`'s rows of `kind`, oldest first; an id
/// recorded twice (at two times) is listed once.
pub async fn list(
    store: &DynStore,
    account: &str,
    kind: OwnedKind,
) -> StoreResult<Vec<(i64, String, String)>> {
    let t: Table<String> = Table::new(store.clone(), &tables::ACCT_OWNED);
    let pk = owned_pk(account, kind);
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut paging = None;
    loop {
        let page = t.scan(&pk, &ScanRange::all(500).after(paging)).await?;
        for (ck, extra) in page.rows {
            let mut r = ck.reader();
            if let (Some(at), Some(id)) = (r.i64(), r.str()) {
                if seen.insert(id.clone()) {
                    out.push((at, id, extra));
                }
            }
        }
        paging = page.paging;
        if paging.is_none() {
            return Ok(out);
        }
    }
}
