//! Published works made with each model (table `model_works`, pk model id ·
//! ck (published_at ms, work id) → the versions the work's tasks used).
//! The square writes a row per model when it publishes a work from tasks
//! whose `model_uses` name that model, and removes them when the work is
//! deleted; `square/my-artwork/community` reads it newest first (the square
//! then keeps what the viewer may see) and `ver/can-del` asks it whether a
//! published work was made with a version.

use std::collections::BTreeMap;
use std::ops::Bound;

use infra::store::{tables, DynStore, Key, ScanRange, Table};
use protocol::task::ModelUse;
use serde::{Deserialize, Serialize};

use crate::error::ApiError;

/// What `model_works` keeps beside a work.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct ModelWorkRow {
    /// The model's versions the work's tasks used.
    pub versions: Vec<String>,
}

/// One row as read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelWork {
    pub published_at: i64,
    pub work_id: String,
    pub versions: Vec<String>,
}

/// Rows read per store page.
const SCAN_PAGE: u32 = 200;

#[derive(Clone)]
pub struct ModelWorks {
    table: Table<ModelWorkRow>,
}

/// The versions of each model among `uses` (models in first-use order).
pub fn by_model<'a>(uses: impl IntoIterator<Item = &'a ModelUse>) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for u in uses {
        let vs = out.entry(u.model_id.clone()).or_default();
        if !vs.contains(&u.ver_no) {
            vs.push(u.ver_no.clone());
        }
    }
    out
}

fn ck(at: i64, work_id: &str) -> Key {
    Key::empty().i64(at).str(work_id)
}

impl ModelWorks {
    pub fn new(store: DynStore) -> ModelWorks {
        ModelWorks {
            table: Table::new(store, &tables::MODEL_WORKS),
        }
    }

    /// Notes that `work_id`, published at `at` (ms), was made with `uses`:
    /// one row per model. Idempotent.
    pub async fn record<'a>(
        &self,
        work_id: &str,
        at: i64,
        uses: impl IntoIterator<Item = &'a ModelUse>,
    ) -> Result<(), ApiError> {
        for (model, versions) in by_model(uses) {
            self.table
                .put(
                    &Key::of(&model),
                    &ck(at, work_id),
                    &ModelWorkRow { versions },
                )
                .await?;
        }
        Ok(())
    }

    /// Removes `work_id` (published at `at`) from these models' lists.
    pub async fn forget(&self, work_id: &str, at: i64, models: &[String]) -> Result<(), ApiError> {
        for m in models {
            self.table.delete(&Key::of(m), &ck(at, work_id)).await?;
        }
        Ok(())
    }

    /// Up to `limit` rows of `model_id`, newest first, strictly before
    /// `before` (published_at, work id) when paging, keeping only the works
    /// made with `version` when one is given. Answers the rows and whether
    /// the list goes on after them (the next call starts after the last).
    pub async fn page(
        &self,
        model_id: &str,
        version: Option<&str>,
        before: Option<(i64, String)>,
        limit: usize,
    ) -> Result<(Vec<ModelWork>, bool), ApiError> {
        let mut range = ScanRange::all(SCAN_PAGE).desc();
        if let Some((at, id)) = &before {
            range.to = Bound::Excluded(ck(*at, id));
        }
        let mut out = Vec::new();
        let mut paging = None;
        loop {
            let page = self
                .table
                .scan(&Key::of(model_id), &range.clone().after(paging))
                .await?;
            for (k, row) in page.rows {
                let mut r = k.reader();
                let (Some(at), Some(id)) = (r.i64(), r.str()) else {
                    continue;
                };
                if version.is_some_and(|v| !row.versions.iter().any(|x| x == v)) {
                    continue;
                }
                if out.len() == limit {
                    return Ok((out, true));
                }
                out.push(ModelWork {
                    published_at: at,
                    work_id: id,
                    versions: row.versions,
                });
            }
            match page.paging {
                Some(p) => paging = Some(p),
                None => return Ok((out, false)),
            }
        }
    }

    /// The newest published work made with `ver_no` of `model_id`, if any.
    pub async fn first_with_version(
        &self,
        model_id: &str,
        ver_no: &str,
    ) -> Result<Option<String>, ApiError> {
        let (rows, _) = self.page(model_id, Some(ver_no), None, 1).await?;
        Ok(rows.into_iter().next().map(|w| w.work_id))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::sync::Arc;

    use super::*;

    fn u(model: &str, ver: &str) -> ModelUse {
        ModelUse {
            ver_no: ver.into(),
            model_id: model.into(),
            creator: "c".into(),
            fee: 0,
        }
    }

    #[tokio::test]
    async fn newest_first_by_version_and_forgotten() {
        let dir = tempfile::tempdir().unwrap();
        let store: DynStore =
            Arc::new(infra::store::embedded::EmbeddedStore::open(&dir.path().join("s")).unwrap());
        let w = ModelWorks::new(store);
        w.record("w1", 10, &[u("m", "v1")]).await.unwrap();
        w.record("w2", 20, &[u("m", "v2"), u("n", "n1"), u("m", "v2")])
            .await
            .unwrap();
        w.record("w3", 30, &[u("m", "v1"), u("m", "v2")])
            .await
            .unwrap();
        let ids = |rows: Vec<ModelWork>| rows.into_iter().map(|r| r.work_id).collect::<Vec<_>>();
        let (all, more) = w.page("m", None, None, 10).await.unwrap();
        assert!(!more);
        assert_eq!(ids(all.clone()), ["w3", "w2", "w1"]);
        assert_eq!(all[1].versions, ["v2"], "a version is kept once");
        let (v1, _) = w.page("m", Some("v1"), None, 10).await.unwrap();
        assert_eq!(ids(v1), ["w3", "w1"]);
        let (first, more) = w.page("m", None, None, 2).await.unwrap();
        assert!(more);
        assert_eq!(ids(first), ["w3", "w2"]);
        let (rest, more) = w.page("m", None, Some((20, "w2".into())), 2).await.unwrap();
        assert!(!more);
        assert_eq!(ids(rest), ["w1"]);
        assert_eq!(ids(w.page("n", None, None, 10).await.unwrap().0), ["w2"]);
        assert_eq!(
            w.first_with_version("m", "v2").await.unwrap().as_deref(),
            Some("w3")
        );
        w.forget("w3", 30, &["m".into()]).await.unwrap();
        assert_eq!(
            w.first_with_version("m", "v2").await.unwrap().as_deref(),
            Some("w2")
        );
        w.forget("w2", 20, &["m".into(), "n".into()]).await.unwrap();
        assert_eq!(w.first_with_version("m", "v2").await.unwrap(), None);
        assert!(w.page("n", None, None, 10).await.unwrap().0.is_empty());
    }
}
