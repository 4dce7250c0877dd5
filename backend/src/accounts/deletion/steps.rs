//! The steps of an account's deletion sweep (see `deletion/mod.rs`): for each
//! domain, the owner index it drains and the delete it calls per item.

use infra::store::{tables, Key, Table};
use protocol::ErrorCode;

use super::sweep::{drain, finish_identity, remove_task};
use super::Step;
use crate::accounts::AccountRow;
use crate::error::ApiError;
use crate::square::social::Reaction;
use crate::state::AppState;
use crate::tasks::Requester;

/// Runs `step` for `owner` within `budget` items; `true` when the step is done.
pub async fn run(
    st: &AppState,
    owner: &AccountRow,
    step: Step,
    budget: &mut u64,
) -> Result<bool, ApiError> {
    let me = owner.id.as_str();
    let pk = Key::of(me);
    match step {
        Step::Works => {
            drain(
                st,
                &tables::WORKS_BY_AUTHOR,
                pk,
                true,
                budget,
                |id| async move { st.square.delete(owner, &id).await },
            )
            .await
        }
        Step::Characters => {
            drain(
                st,
                &tables::CHARACTERS_BY_OWNER,
                pk,
                true,
                budget,
                |id| async move { st.characters.delete(me, &id).await },
            )
            .await
        }
        Step::Datacards => {
            drain(
                st,
                &tables::DATACARDS_BY_OWNER,
                pk,
                true,
                budget,
                |id| async move { st.characters.delete_datacard(me, &id).await },
            )
            .await
        }
        Step::Chats => {
            drain(
                st,
                &tables::CHAT_SESSIONS_BY_OWNER,
                pk,
                true,
                budget,
                |id| async move { st.chats.delete(me, &id).await },
            )
            .await
        }
        Step::Agent => {
            let convs: Table<serde_json::Value> =
                Table::new(st.store.clone(), &tables::AGENT_CONVS);
            let messages: Table<serde_json::Value> =
                Table::new(st.store.clone(), &tables::AGENT_MESSAGES);
            let (convs, messages) = (&convs, &messages);
            drain(
                st,
                &tables::AGENT_CONVS_BY_OWNER,
                pk,
                true,
                budget,
                |id| async move {
                    messages.delete_partition(&Key::of(&id)).await?;
                    convs.delete(&Key::of(&id), &Key::empty()).await?;
                    Ok(())
                },
            )
            .await
        }
        Step::Channels => {
            drain(
                st,
                &tables::CHANNELS_BY_ACCOUNT,
                pk,
                false,
                budget,
                |id| async move {
                    match st.channels.quit(me, &id).await {
                        // The owner cannot quit: the channel goes with them.
                        Err(e) if e.code == ErrorCode::InvalidParams => {
                            st.channels.disband(me, &id).await
                        }
                        other => other,
                    }
                },
            )
            .await
        }
        Step::Tasks => {
            let pk = Key::of(&format!("a:{me}"));
            drain(
                st,
                &tables::TASKS_BY_OWNER,
                pk,
                true,
                budget,
                |id| async move { remove_task(st, owner, &id).await },
            )
            .await
        }
        Step::Models => {
            let models = crate::models::ModelService::new(st.store.clone());
            let models = &models;
            drain(
                st,
                &tables::MODELS_BY_OWNER,
                pk,
                true,
                budget,
                |id| async move { models.delete(&st.objects, &id, me).await },
            )
            .await
        }
        Step::Datasets => {
            let sets = crate::training::DatasetService::new(st.store.clone(), st.objects.clone());
            let sets = &sets;
            drain(
                st,
                &tables::DATASETS_BY_OWNER,
                pk,
                true,
                budget,
                |id| async move { sets.delete(me, &id).await },
            )
            .await
        }
        Step::Trainings => {
            let rows: Table<serde_json::Value> = Table::new(st.store.clone(), &tables::TRAININGS);
            let rows = &rows;
            drain(
                st,
                &tables::TRAININGS_BY_OWNER,
                pk,
                true,
                budget,
                |id| async move {
                    rows.delete(&Key::of(&id), &Key::empty()).await?;
                    Ok(())
                },
            )
            .await
        }
        Step::Timbres => {
            let timbres = crate::timbre::TimbreService::new(st.store.clone(), st.objects.clone());
            let timbres = &timbres;
            drain(
                st,
                &tables::TIMBRES_BY_OWNER,
                pk,
                true,
                budget,
                |id| async move { timbres.delete(me, &id).await },
            )
            .await
        }
        Step::Editor => {
            let who = Requester::Account(Box::new(owner.clone()));
            let who = &who;
            let materials = drain(
                st,
                &tables::EDITOR_MATERIALS,
                pk.clone(),
                false,
                budget,
                |id| async move { st.editor.delete_material(who, &Some(id)).await },
            )
            .await?;
            if !materials {
                return Ok(false);
            }
            drain(
                st,
                &tables::EDITOR_WORKSPACES,
                pk,
                false,
                budget,
                |id| async move { st.editor.delete(who, &Some(id)).await },
            )
            .await
        }
        Step::Reactions => {
            for (table, kind) in [
                (&tables::LIKED, Reaction::Like),
                (&tables::COLLECTED, Reaction::Collect),
            ] {
                let done = drain(st, table, pk.clone(), false, budget, |id| async move {
                    let author = st.square.author_of(&id).await?;
                    st.square
                        .withdraw_reaction(me, &id, &author, kind)
                        .await
                        .map(|_| ())
                })
                .await?;
                if !done {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        Step::Follows => {
            let following = drain(
                st,
                &tables::FOLLOWS,
                pk.clone(),
                false,
                budget,
                |whom| async move { st.square.unfollow(me, &whom).await },
            )
            .await?;
            if !following {
                return Ok(false);
            }
            drain(
                st,
                &tables::FOLLOWERS,
                pk,
                false,
                budget,
                |who| async move { st.square.unfollow(&who, me).await },
            )
            .await
        }
        Step::Notifications => {
            drain(st, &tables::NOTIFICATIONS, pk, true, budget, |_| async {
                Ok(())
            })
            .await
        }
        Step::Moderation => super::extra::moderation(st, me, budget).await,
        Step::Ornaments => super::extra::ornaments(st, me, budget).await,
        Step::Uploads => super::extra::uploads(st, me, budget).await,
        Step::Exports => {
            crate::accounts::export::forget(st, me).await?;
            Ok(true)
        }
        Step::Engagement => super::engagement::run(st, me, budget).await,
        Step::Identity => {
            if *budget == 0 {
                return Ok(false);
            }
            finish_identity(st, me).await?;
            *budget = budget.saturating_sub(1);
            Ok(true)
        }
    }
}
