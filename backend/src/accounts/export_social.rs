//! The export's social and moderation files (see `export.rs`): comments the
//! person wrote, works they liked and collected, whom they follow and who
//! follows them, and the moderation rows about them: reports they filed,
//! appeals they made, the bans on their account, and the moderators'
//! decisions and states on their works, characters and comments.

use infra::store::{tables, Key, ScanRange, Table, TableDef};
use protocol::moderation::ObjKind;
use serde_json::{json, Value};

use super::owned::{list, OwnedKind};
use crate::error::ApiError;
use crate::state::AppState;

/// Every (id, value) of a partition whose clustering key is one id.
async fn by_id(
    st: &AppState,
    def: &'static TableDef,
    pk: &Key,
) -> Result<Vec<(String, Value)>, ApiError> {
    let t: Table<Value> = Table::new(st.store.clone(), def);
    let mut out = Vec::new();
    let mut paging = None;
    loop {
        let page = t.scan(pk, &ScanRange::all(500).after(paging)).await?;
        for (ck, v) in page.rows {
            if let Some(id) = ck.reader().str() {
                out.push((id, v));
            }
        }
        paging = page.paging;
        if paging.is_none() {
            return Ok(out);
        }
    }
}

/// `{id_field: id, "at": ms}` for each entry.
fn timed(rows: Vec<(String, Value)>, id_field: &str) -> Value {
    Value::Array(
        rows.into_iter()
            .map(|(id, at)| {
                let mut m = serde_json::Map::new();
                m.insert(id_field.to_owned(), Value::String(id));
                m.insert("at".to_owned(), at);
                Value::Object(m)
            })
            .collect(),
    )
}

/// The comment ids the person wrote (recorded when written).
async fn comment_ids(st: &AppState, me: &str) -> Result<Vec<String>, ApiError> {
    Ok(list(&st.store, me, OwnedKind::Comment)
        .await?
        .into_iter()
        .map(|(_, id, _)| id)
        .collect())
}

/// `comments.json`: the person's comments and replies that still exist.
pub async fn comments(st: &AppState, me: &str) -> Result<Value, ApiError> {
    let rows: Table<Value> = Table::new(st.store.clone(), &tables::COMMENTS);
    let mut out = Vec::new();
    for id in comment_ids(st, me).await? {
        if let Some(row) = rows.get(&Key::of(&id), &Key::empty()).await? {
            if row.get("author").and_then(Value::as_str) == Some(me) {
                out.push(row);
            }
        }
    }
    Ok(Value::Array(out))
}

/// `reactions.json`: works liked and collected, with when.
pub async fn reactions(st: &AppState, me: &str) -> Result<Value, ApiError> {
    let pk = Key::of(me);
    Ok(json!({
        "liked": timed(by_id(st, &tables::LIKED, &pk).await?, "work_id"),
        "collected": timed(by_id(st, &tables::COLLECTED, &pk).await?, "work_id"),
    }))
}

/// `follows.json`: whom the person follows and who follows them.
pub async fn follows(st: &AppState, me: &str) -> Result<Value, ApiError> {
    let pk = Key::of(me);
    Ok(json!({
        "following": timed(by_id(st, &tables::FOLLOWS, &pk).await?, "account_id"),
        "followers": timed(by_id(st, &tables::FOLLOWERS, &pk).await?, "account_id"),
    }))
}

/// `moderation.json`: reports filed, appeals, bans, and the decisions on
/// the person's objects.
pub async fn moderation(st: &AppState, me: &str) -> Result<Value, ApiError> {
    let m = &st.moderation;
    let mut reports = Vec::new();
    for (_, obj_key, _) in list(&st.store, me, OwnedKind::Report).await? {
        let pk = Key::of(&obj_key);
        let mut paging = None;
        loop {
            let page = m
                .reports
                .scan(&pk, &ScanRange::all(200).after(paging))
                .await?;
            for (_, row) in page.rows {
                if row.reporter == me && !reports.iter().any(|r: &Value| r["id"] == row.id) {
                    reports.push(serde_json::to_value(&row).map_err(ApiError::internal)?);
                }
            }
            paging = page.paging;
            if paging.is_none() {
                break;
            }
        }
    }
    let mut appeals = Vec::new();
    for (_, id, _) in list(&st.store, me, OwnedKind::Appeal).await? {
        if let Some(a) = m.appeals.get(&Key::of(&id), &Key::empty()).await? {
            if a.owner == me {
                appeals.push(serde_json::to_value(a.view()).map_err(ApiError::internal)?);
            }
        }
    }
    let ban = m.bans.get(&Key::of(me), &Key::empty()).await?;
    // The person's objects: works, characters, comments.
    let mut objects: Vec<String> = Vec::new();
    for (index, kind) in [
        (&tables::WORKS_BY_AUTHOR, ObjKind::Work),
        (&tables::CHARACTERS_BY_OWNER, ObjKind::Character),
    ] {
        let t: Table<Value> = Table::new(st.store.clone(), index);
        let mut paging = None;
        loop {
            let page = t
                .scan(&Key::of(me), &ScanRange::all(500).after(paging))
                .await?;
            for (ck, _) in page.rows {
                let mut r = ck.reader();
                let _ = r.i64();
                if let Some(id) = r.str() {
                    objects.push(kind.key(&id));
                }
            }
            paging = page.paging;
            if paging.is_none() {
                break;
            }
        }
    }
    objects.extend(
        comment_ids(st, me)
            .await?
            .iter()
            .map(|id| ObjKind::Comment.key(id)),
    );
    let mut decisions = Vec::new();
    let mut states = Vec::new();
    for key in &objects {
        let pk = Key::of(key);
        let mut paging = None;
        loop {
            let page = m
                .audit_by_object
                .scan(&pk, &ScanRange::all(200).after(paging))
                .await?;
            for (_, e) in page.rows {
                // The moderator's identity is theirs, not the person's.
                decisions.push(json!({
                    "action": e.action, "obj_type": e.obj_type, "obj_id": e.obj_id,
                    "reason": e.reason, "create_at": e.create_at, "by_role": e.actor_role,
                }));
            }
            paging = page.paging;
            if paging.is_none() {
                break;
            }
        }
        if let Some(s) = m.states.get(&pk, &Key::empty()).await? {
            states.push(json!({
                "object": key, "state": s.state, "reason": s.reason, "at": s.at,
                "by_role": s.by_role,
            }));
        }
    }
    Ok(json!({
        "reports_filed": reports,
        "appeals": appeals,
        "ban": ban.map(|b| json!({
            "reason": b.reason, "create_at": b.create_at, "until": b.until, "by_role": b.by_role,
        })),
        "decisions": decisions,
        "states": states,
    }))
}

/// `engagement.json` (issue 22's rows): the check-in record (days, streak,
/// the last day), awards not shown yet, the analytics opt-out, the survey
/// answers (the questionnaires' and the ranking survey's), the activity
/// contributions and the votes given.
pub async fn engagement(st: &AppState, me: &str) -> Result<Value, ApiError> {
    let (checkin, unseen) = st.awards.of_account(me).await?;
    let mut answers = Vec::new();
    for (_, survey, _) in list(&st.store, me, OwnedKind::SurveyAnswer).await? {
        if let Some((title, r)) = st.surveys.answer_of(&survey, me).await? {
            answers.push(json!({
                "survey_id": survey, "title": title, "at": r.at, "answers": r.answers,
            }));
        }
    }
    let ranked: Vec<Value> = st
        .ranks
        .survey_answers_of(me)
        .await?
        .into_iter()
        .map(|(id, title, r)| {
            json!({
                "survey_id": id, "title": title, "at": r.at, "choices": r.choices,
                "comment": r.comment,
            })
        })
        .collect();
    let entries = st.activities.entries_of(me).await?;
    let votes: Vec<Value> = list(&st.store, me, OwnedKind::Vote)
        .await?
        .into_iter()
        .map(|(at, entry, _)| json!({"entry_id": entry, "at": at}))
        .collect();
    Ok(json!({
        "checkin": checkin,
        "unseen_awards": unseen,
        "analytics_opted_out": st.analytics.opted_out(me).await?,
        "survey_answers": answers,
        "rank_survey_answers": ranked,
        "activity_entries": entries,
        "activity_votes": votes,
    }))
}
