//! A user's tasks as a list (`task/list`, histories: newest first, by
//! creation time range and prompt keyword) and their outputs as files
//! (downloads).

use infra::store::{Key, PagingState, ScanRange};
use protocol::task::view::{ListAnswer, ListRequest};
use protocol::task::TaskStatus;
use protocol::ErrorCode;

use super::{Requester, TaskService};
use crate::error::{object_key, ApiError};

impl TaskService {
    /// Newest first, by creation time range and prompt keyword.
    pub async fn list(&self, who: &Requester, req: &ListRequest) -> Result<ListAnswer, ApiError> {
        let limit = req.limit.unwrap_or(20).clamp(1, 100) as u32;
        let from = req.time_from.unwrap_or(0);
        let to = req.time_to.unwrap_or(i64::MAX);
        if from > to {
            return Err(ApiError::with_msg(
                ErrorCode::InvalidParams,
                "time_from is after time_to",
            ));
        }
        let keyword = req
            .keyword
            .as_deref()
            .map(|k| k.trim().to_lowercase())
            .filter(|k| !k.is_empty());
        let paging = match req.cursor.as_deref() {
            Some(c) => Some(
                PagingState::from_hex(c)
                    .ok_or_else(|| ApiError::with_msg(ErrorCode::InvalidParams, "bad cursor"))?,
            ),
            None => None,
        };
        let range = ScanRange {
            from: std::ops::Bound::Included(Key::empty().i64(from)),
            to: std::ops::Bound::Included(Key::empty().i64(to).str("\u{10FFFF}")),
            order: infra::store::Order::Desc,
            limit,
            paging,
        };
        let core = self.core();
        let page = core
            .index
            .scan(&Key::of(&who.owner().key()), &range)
            .await?;
        let mut items = Vec::new();
        for (ck, idx) in page.rows {
            if let Some(k) = &keyword {
                if !idx.prompt.to_lowercase().contains(k.as_str()) {
                    continue;
                }
            }
            let mut r = ck.reader();
            let (Some(_), Some(id)) = (r.i64(), r.str()) else {
                continue;
            };
            if let Some(row) = core.get(&id).await? {
                if req.success_only == Some(true) && row.status != TaskStatus::Success {
                    continue;
                }
                if req.video_only == Some(true) && !row.action.is_video() {
                    continue;
                }
                items.push(self.view(&row).await);
            }
        }
        Ok(ListAnswer {
            items,
            cursor: page.paging.map(|p| p.to_hex()),
        })
    }

    /// The stored bytes of a task's outputs, in order, with file names.
    pub async fn files(
        &self,
        who: &Requester,
        id: &str,
    ) -> Result<Vec<(String, Vec<u8>, String)>, ApiError> {
        let row = self.owned(who, id).await?;
        if row.status != TaskStatus::Success {
            return Err(ApiError::with_msg(
                ErrorCode::Conflict,
                "the task has no outputs yet",
            ));
        }
        let mut out = Vec::new();
        for (i, o) in row.outputs.iter().enumerate() {
            let Some(obj) = self
                .objects
                .get(&object_key(&o.key)?)
                .await
                .map_err(ApiError::internal)?
            else {
                continue;
            };
            let ext = o.key.rsplit('.').next().unwrap_or("bin");
            out.push((
                format!("easel-{}-{}.{ext}", row.id, i + 1),
                obj.bytes,
                o.mime.clone(),
            ));
        }
        Ok(out)
    }
}
