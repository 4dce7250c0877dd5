//! The deletion sweep's engagement step (issue 22's rows, see `mod.rs`):
//! the votes the person gave in activities (counts follow), their
//! contributions (out of every list, their votes and quotas with them),
//! their survey answers (removed; results are tallied from the answers and
//! the answer count follows), their ranking-survey answers (tallies
//! follow), their check-in record and unseen awards, and their analytics
//! opt-out. A judged period's stored excellent list keeps the winner's
//! account id beside the prize the ledger paid (accounting, like the
//! ledger; the id now names the anonymised account), and its view leaves
//! out winners whose contributions are gone. Credits those paid stay in the ledger. Each
//! part drains an index or removes by key, idempotently.

use infra::store::{tables, Key};

use super::sweep::drain;
use crate::accounts::owned::{owned_pk, OwnedKind};
use crate::error::ApiError;
use crate::state::AppState;

pub async fn run(st: &AppState, me: &str, budget: &mut u64) -> Result<bool, ApiError> {
    let votes = drain(
        st,
        &tables::ACCT_OWNED,
        owned_pk(me, OwnedKind::Vote),
        true,
        budget,
        |entry| async move { st.activities.forget_vote(me, &entry).await },
    )
    .await?;
    if !votes {
        return Ok(false);
    }
    let entries = drain(
        st,
        &tables::ACTIVITY_MINE,
        Key::of(me),
        true,
        budget,
        |entry| async move { st.activities.forget_entry(me, &entry).await },
    )
    .await?;
    if !entries {
        return Ok(false);
    }
    let answers = drain(
        st,
        &tables::ACCT_OWNED,
        owned_pk(me, OwnedKind::SurveyAnswer),
        true,
        budget,
        |survey| async move { st.surveys.forget_answer(&survey, me).await },
    )
    .await?;
    if !answers || *budget == 0 {
        return Ok(false);
    }
    let ranked = st.ranks.forget_survey_answers(me).await?;
    *budget = budget.saturating_sub(ranked);
    st.awards.forget(me).await?;
    st.analytics.set_opt_out(me, false).await?;
    *budget = budget.saturating_sub(1);
    Ok(true)
}
