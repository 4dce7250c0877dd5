//! Who may read a stored object (the one rule every call that takes a
//! `/files/...` URL uses): an upload of the caller's (`u/{file_id}/...`,
//! by its upload row), an output of one of the caller's tasks
//! (`t/{task}/...`), speech made for the caller (`tts/{account}/...`), or a
//! voice's public preview; the key layout is
//! `protocol::audio::transport::key_owner`. Anything else is treated as
//! missing by the callers.

use infra::store::{tables, Key, Table};
use protocol::audio::transport::{self, KeyOwner};
use protocol::ErrorCode;

use crate::error::ApiError;
use crate::state::AppState;
use crate::tasks::Requester;
use crate::uploads::UploadRow;

/// Whether `who` may read the object `key`.
pub async fn may_read(state: &AppState, who: &Requester, key: &str) -> Result<bool, ApiError> {
    let account = match who {
        Requester::Account(a) => Some(a.id.as_str()),
        Requester::Visitor { .. } => None,
    };
    Ok(match transport::key_owner(key) {
        KeyOwner::Public => true,
        KeyOwner::Other => false,
        KeyOwner::Account(id) => account == Some(id.as_str()),
        KeyOwner::Upload(file_id) => {
            let uploads: Table<UploadRow> = Table::new(state.store.clone(), &tables::UPLOADS);
            uploads
                .get(&Key::of(&file_id), &Key::empty())
                .await?
                .is_some_and(|row| {
                    Some(row.owner.as_str()) == account && row.key.as_deref() == Some(key)
                })
        }
        KeyOwner::Task(task_id) => match state.tasks.owned(who, &task_id).await {
            Ok(row) => row.outputs.iter().any(|o| o.key == key),
            Err(e) if e.code == ErrorCode::NotFound => false,
            Err(e) => return Err(e),
        },
    })
}
