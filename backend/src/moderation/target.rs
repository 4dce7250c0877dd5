//! The object a report, review or appeal names: who owns it and what the
//! console shows of it. A user sees only what they may see elsewhere
//! (unknown and invisible alike answer NotFound); moderators see all.

use protocol::moderation::{ObjKind, ObjectSummary};
use protocol::ErrorCode;

use crate::error::ApiError;
use crate::state::AppState;

/// A resolved object.
#[derive(Debug, Clone)]
pub struct Target {
    pub kind: ObjKind,
    pub id: String,
    pub owner: String,
    pub summary: ObjectSummary,
}

fn short(s: &str) -> String {
    s.chars().take(300).collect()
}

/// `"{channel_id}:{seq}"`.
pub fn channel_message_id(id: &str) -> Option<(&str, u64)> {
    let (c, s) = id.rsplit_once(':')?;
    Some((c, s.parse().ok()?)).filter(|(c, _)| !c.is_empty())
}

/// Resolves `kind`/`id` for `viewer` (`None`: a moderator, who sees all).
pub async fn resolve(
    st: &AppState,
    viewer: Option<&str>,
    kind: ObjKind,
    id: &str,
) -> Result<Target, ApiError> {
    if id.is_empty() || id.len() > 200 {
        return Err(ErrorCode::NotFound.into());
    }
    let (owner, summary) = match kind {
        ObjKind::Work => {
            let w = match viewer {
                Some(v) => st.square.visible_work(Some(v), id).await?,
                None => st.square.work_row(id).await?.ok_or(ErrorCode::NotFound)?,
            };
            (
                w.author.clone(),
                ObjectSummary {
                    title: w.title.clone(),
                    text: short(&w.body),
                    cover: w.cover().map(|c| c.url.clone()),
                    nsfw: w.nsfw,
                    nsfw_score: w.classified.as_ref().map(|c| f64::from(c.score)),
                    gone: false,
                },
            )
        }
        ObjKind::Character => {
            let c = match viewer {
                Some(v) => st.characters.visible(Some(v), id).await?,
                None => st.characters.row(id).await?.ok_or(ErrorCode::NotFound)?,
            };
            (
                c.owner.clone(),
                ObjectSummary {
                    title: c.name.clone(),
                    text: short(&c.description),
                    ..ObjectSummary::default()
                },
            )
        }
        ObjKind::Comment => {
            let c = match viewer {
                Some(v) => st.comments.visible(Some(v), id).await?.0,
                None => st.comments.row(id).await?.ok_or(ErrorCode::NotFound)?,
            };
            (
                c.author.clone(),
                ObjectSummary {
                    title: format!("comment on {}:{}", c.obj_type, c.obj_id),
                    text: short(&c.content),
                    ..ObjectSummary::default()
                },
            )
        }
        ObjKind::ChannelMessage => {
            let (channel, seq) = channel_message_id(id).ok_or(ErrorCode::NotFound)?;
            if let Some(v) = viewer {
                st.channels
                    .membership(channel, v)
                    .await
                    .map_err(|_| ApiError::from(ErrorCode::NotFound))?;
            }
            let m = st
                .channels
                .message(channel, seq)
                .await?
                .ok_or(ErrorCode::NotFound)?;
            (
                m.sender.clone(),
                ObjectSummary {
                    title: format!("message in {channel}"),
                    text: short(&m.content),
                    ..ObjectSummary::default()
                },
            )
        }
        ObjKind::Account => {
            let a = st.accounts.get(id).await?.ok_or(ErrorCode::NotFound)?;
            (
                a.id.clone(),
                ObjectSummary {
                    title: a.name.clone(),
                    ..ObjectSummary::default()
                },
            )
        }
        // Easel has no design templates yet.
        ObjKind::Palette => return Err(ErrorCode::NotFound.into()),
    };
    Ok(Target {
        kind,
        id: id.to_owned(),
        owner,
        summary,
    })
}
