//! The activity marks on work cards (spec 1 §3): `activity_marks` in the
//! Store (by work), and the same map in memory so feeds add marks without
//! a read. This node's commits change the map at once; other nodes reload
//! it periodically (`ActivityService::start`). A work committed to several
//! activities carries its most recent contribution's mark.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use infra::store::{tables, DynStore, Key, ScanRange, Table};
use protocol::activity::ActivityMark;
use protocol::square::card::{Card, ObjType};

use crate::error::ApiError;

/// Buckets of `activity_marks`.
const BUCKETS: u64 = 16;

fn bucket_of(id: &str) -> u64 {
    id.bytes()
        .fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)))
        % BUCKETS
}

/// The marks; cheap to clone (shared map).
#[derive(Clone)]
pub struct ActivityMarks {
    table: Table<ActivityMark>,
    /// Work id → mark. A std lock: map reads and writes, never held across
    /// an await.
    map: Arc<RwLock<HashMap<String, ActivityMark>>>,
}

impl ActivityMarks {
    pub fn new(store: DynStore) -> ActivityMarks {
        ActivityMarks {
            table: Table::new(store, &tables::ACTIVITY_MARKS),
            map: Arc::new(RwLock::new(HashMap::new())),
        }
    }

    /// Replaces the map by the Store's marks; answers how many.
    pub async fn load(&self) -> Result<usize, ApiError> {
        let mut all = HashMap::new();
        for b in 0..BUCKETS {
            let pk = Key::empty().u64(b);
            let mut paging = None;
            loop {
                let page = self
                    .table
                    .scan(&pk, &ScanRange::all(1000).after(paging))
                    .await?;
                for (k, m) in page.rows {
                    if let Some(id) = k.reader().str() {
                        all.insert(id, m);
                    }
                }
                match page.paging {
                    Some(p) => paging = Some(p),
                    None => break,
                }
            }
        }
        let n = all.len();
        if let Ok(mut map) = self.map.write() {
            *map = all;
        }
        Ok(n)
    }

    /// Marks a work (stored, then in this node's map).
    pub async fn set(&self, work_id: &str, mark: ActivityMark) -> Result<(), ApiError> {
        self.table
            .put(
                &Key::empty().u64(bucket_of(work_id)),
                &Key::of(work_id),
                &mark,
            )
            .await?;
        if let Ok(mut map) = self.map.write() {
            map.insert(work_id.to_owned(), mark);
        }
        Ok(())
    }

    /// Takes a work's mark off (its contribution was removed). Other nodes
    /// drop it at their next reload.
    pub async fn clear(&self, work_id: &str) -> Result<(), ApiError> {
        self.table
            .delete(&Key::empty().u64(bucket_of(work_id)), &Key::of(work_id))
            .await?;
        if let Ok(mut map) = self.map.write() {
            map.remove(work_id);
        }
        Ok(())
    }

    pub fn get(&self, work_id: &str) -> Option<ActivityMark> {
        self.map.read().ok().and_then(|m| m.get(work_id).cloned())
    }

    /// Puts the marks on post cards.
    pub fn mark_cards(&self, cards: &mut [Card]) {
        let Ok(map) = self.map.read() else { return };
        if map.is_empty() {
            return;
        }
        for c in cards.iter_mut().filter(|c| c.obj_type == ObjType::POST) {
            c.activity_mark = map.get(&c.id).cloned();
        }
    }
}
