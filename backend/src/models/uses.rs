//! What tasks do with users' models (issue 19): which unfinished tasks use
//! a version and which published works were made with it (`ver/can-del`), each successful task's use of a model and the
//! fee it paid its creator, once, and the per-model, per-UTC-day counts of
//! uses and earnings that rankings read over day, week, month and all time.
//!
//! Everything here is written when a task ends, from [`ModelUses::task_ended`],
//! which the task core calls with every final task (and the reconciler
//! again after a crash): each step is idempotent.
//!
//! 1. The earnings row (pk creator · ck (finished at, task, version)): a put
//!    of the same bytes whoever writes it.
//! 2. The fee: a ledger grant with key `fee:{task}:{ver}`, applied once by
//!    the ledger whatever the replays.
//! 3. The use row (pk model · ck (day, task, version)) by insert-if-absent;
//!    only the call that inserts it adds to the day's and all-time counters.
//!    A crash between the insert and the counter adds loses that use from
//!    the counters (never counts it twice); the use rows stay the exact record.
//! 4. The version's running-task entries are removed.

use infra::store::{tables, Counters, DynStore, Key, Order, PagingState, ScanRange, Table};
use protocol::task::{ModelUse, TaskStatus};
use serde::{Deserialize, Serialize};

use crate::credits::Ledger;
use crate::error::ApiError;
use crate::square::row::WorkRow;
use crate::tasks::row::{HoldState, TaskRow};

/// The counter day of all-time totals.
pub const ALL_TIME: i64 = -1;
/// Names of the counters.
pub const USES: &str = "uses";
pub const EARNINGS: &str = "earnings";

/// One fee a creator earned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EarningRow {
    pub model_id: String,
    pub ver_no: String,
    pub credits: i64,
    /// The account whose task paid it.
    pub payer: String,
}

/// One successful task's use of a model version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UseRow {
    /// The fee it paid (0: none).
    pub credits: i64,
}

/// An earnings entry as read back.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Earning {
    pub at: i64,
    pub task_id: String,
    #[serde(flatten)]
    pub row: EarningRow,
}

/// The UTC day number of a time in ms.
pub fn day_of(ms: i64) -> i64 {
    ms.div_euclid(86_400_000)
}

/// The ledger key of a task's fee for a version.
pub fn fee_key(task_id: &str, ver_no: &str) -> String {
    format!("fee:{task_id}:{ver_no}")
}

fn creator_pk(creator: &str) -> Key {
    Key::of(&format!("c:{creator}"))
}

fn count_ck(day: i64, name: &str) -> Key {
    Key::empty().i64(day).str(name)
}

#[derive(Clone)]
pub struct ModelUses {
    pub earnings: Table<EarningRow>,
    pub uses: Table<UseRow>,
    pub counts: Counters,
    pub running: Table<()>,
    ledger: Ledger,
    tasks: Table<TaskRow>,
    works: Table<WorkRow>,
    model_works: super::works::ModelWorks,
    /// Where uses and earnings are also counted for the rankings.
    ranks: Option<super::rank::ModelRanks>,
}

impl ModelUses {
    pub fn new(store: DynStore, ledger: Ledger) -> ModelUses {
        ModelUses {
            earnings: Table::new(store.clone(), &tables::MODEL_EARNINGS),
            uses: Table::new(store.clone(), &tables::MODEL_USES),
            counts: Counters::new(store.clone(), &tables::MODEL_USE_COUNTS),
            running: Table::new(store.clone(), &tables::MODEL_VERSION_TASKS),
            ledger,
            tasks: Table::new(store.clone(), &tables::TASKS),
            works: Table::new(store.clone(), &tables::WORKS),
            model_works: super::works::ModelWorks::new(store),
            ranks: None,
        }
    }

    /// Also counts each paid use and fee in the model rankings.
    pub fn with_ranks(mut self, ranks: super::rank::ModelRanks) -> ModelUses {
        self.ranks = Some(ranks);
        self
    }

    /// Notes that task `task_id` (not ended) uses these versions.
    pub async fn task_started(&self, task_id: &str, uses: &[ModelUse]) -> Result<(), ApiError> {
        for u in uses {
            self.running
                .put(&Key::of(&u.ver_no), &Key::of(task_id), &())
                .await?;
        }
        Ok(())
    }

    /// Forgets the versions of a task that will never run.
    pub async fn task_dropped(&self, task_id: &str, uses: &[ModelUse]) -> Result<(), ApiError> {
        for u in uses {
            self.running
                .delete(&Key::of(&u.ver_no), &Key::of(task_id))
                .await?;
        }
        Ok(())
    }

    /// Whether an unfinished task uses the version. An entry whose task has
    /// ended (its end's consequences not written yet, or lost in a crash
    /// before the reconciler's pass) does not count.
    pub async fn in_running_task(&self, ver_no: &str) -> Result<bool, ApiError> {
        let mut paging = None;
        loop {
            let range = ScanRange::all(100).after(paging);
            let page = self.running.scan(&Key::of(ver_no), &range).await?;
            if page.rows.is_empty() {
                return Ok(false);
            }
            for (ck, ()) in &page.rows {
                let Some(task) = ck.reader().str() else {
                    continue;
                };
                let row = self.tasks.get(&Key::of(&task), &Key::empty()).await?;
                if row.is_some_and(|r| !r.status.is_final()) {
                    return Ok(true);
                }
            }
            match page.paging {
                Some(p) => paging = Some(p),
                None => return Ok(false),
            }
        }
    }

    /// Whether version `ver_no` of model `model_id` may be deleted, and
    /// if not why: not while a task that has not ended uses it, nor while a
    /// work on the square was made with it (`model_works`, written when a
    /// work is published from tasks that used the version; a row whose
    /// work is gone does not count).
    pub async fn can_delete(
        &self,
        model_id: &str,
        ver_no: &str,
    ) -> Result<(bool, String), ApiError> {
        if self.in_running_task(ver_no).await? {
            return Ok((
                false,
                "a task that has not finished uses this version".into(),
            ));
        }
        let mut before = None;
        loop {
            let (rows, more) = self
                .model_works
                .page(model_id, Some(ver_no), before, 50)
                .await?;
            for w in &rows {
                if self
                    .works
                    .get(&Key::of(&w.work_id), &Key::empty())
                    .await?
                    .is_some()
                {
                    return Ok((
                        false,
                        format!(
                            "the published work {} was made with this version",
                            w.work_id
                        ),
                    ));
                }
            }
            match rows.last() {
                Some(last) if more => before = Some((last.published_at, last.work_id.clone())),
                _ => return Ok((true, String::new())),
            }
        }
    }

    /// The consequences of an ended task for the models it used (see the
    /// module doc): on success with its hold settled, each creator's fee and
    /// earnings row and the use counts; always, its running entries go.
    /// Idempotent.
    pub async fn task_ended(&self, row: &TaskRow) -> Result<(), ApiError> {
        if row.model_uses.is_empty() || !row.status.is_final() {
            return Ok(());
        }
        let paid = row.status == TaskStatus::Success
            && matches!(row.hold, HoldState::Settled | HoldState::Free);
        if paid {
            let at = row.finished_at.unwrap_or(row.updated_at);
            let day = day_of(at);
            let payer = row.owner.account().unwrap_or_default().to_owned();
            for u in &row.model_uses {
                // Fees are paid only from a settled hold (visitors pay none).
                let fee = if row.hold == HoldState::Settled {
                    u.fee.max(0)
                } else {
                    0
                };
                if fee > 0 {
                    let ck = Key::empty().i64(at).str(&row.id).str(&u.ver_no);
                    let earning = EarningRow {
                        model_id: u.model_id.clone(),
                        ver_no: u.ver_no.clone(),
                        credits: fee,
                        payer: payer.clone(),
                    };
                    self.earnings
                        .put(&Key::of(&u.creator), &ck, &earning)
                        .await?;
                    self.ledger
                        .grant(&u.creator, &fee_key(&row.id, &u.ver_no), fee)
                        .await?;
                }
                let use_ck = Key::empty().i64(day).str(&row.id).str(&u.ver_no);
                let inserted = self
                    .uses
                    .insert_if_absent(&Key::of(&u.model_id), &use_ck, &UseRow { credits: fee })
                    .await?
                    .is_ok();
                if let Some(ranks) = &self.ranks {
                    // Keyed by task and version: counted once however often
                    // the end of the task is applied.
                    let key = format!("{}:{}", row.id, u.ver_no);
                    if fee > 0 {
                        ranks.record_soon(
                            &u.model_id,
                            &u.creator,
                            super::rank::ModelEvent::Earning(fee),
                            at,
                            Some(&key),
                        );
                    }
                }
                if inserted {
                    let model = Key::of(&u.model_id);
                    for d in [day, ALL_TIME] {
                        self.counts.add(&model, &count_ck(d, USES), 1).await?;
                        if fee > 0 {
                            self.counts.add(&model, &count_ck(d, EARNINGS), fee).await?;
                            self.counts
                                .add(&creator_pk(&u.creator), &count_ck(d, EARNINGS), fee)
                                .await?;
                        }
                    }
                }
            }
        }
        if paid {
            if let Some(ranks) = &self.ranks {
                let mut models: Vec<(String, String)> = row
                    .model_uses
                    .iter()
                    .map(|u| (u.model_id.clone(), u.creator.clone()))
                    .collect();
                models.sort();
                models.dedup();
                let at = row.finished_at.unwrap_or(row.updated_at);
                if let Err(e) = ranks
                    .task_used(&row.id, row.owner.account(), &models, at)
                    .await
                {
                    tracing::warn!(task = %row.id, error = ?e, "counting model uses for rankings failed");
                }
            }
        }
        self.task_dropped(&row.id, &row.model_uses).await
    }

    /// A model's uses and earnings on day `day` ([`ALL_TIME`] for the totals).
    pub async fn model_counts(&self, model_id: &str, day: i64) -> Result<(i64, i64), ApiError> {
        let pk = Key::of(model_id);
        Ok((
            self.counts.get(&pk, &count_ck(day, USES)).await?,
            self.counts.get(&pk, &count_ck(day, EARNINGS)).await?,
        ))
    }

    /// A model's uses and earnings over the `days` UTC days up to `today`
    /// (1: the day, 7: the week, 30: the month), or all time when `days` is 0.
    pub async fn model_window(
        &self,
        model_id: &str,
        today: i64,
        days: u32,
    ) -> Result<(i64, i64), ApiError> {
        if days == 0 {
            return self.model_counts(model_id, ALL_TIME).await;
        }
        let (mut uses, mut earnings) = (0, 0);
        for d in 0..i64::from(days) {
            let (u, e) = self.model_counts(model_id, today - d).await?;
            uses += u;
            earnings += e;
        }
        Ok((uses, earnings))
    }

    /// A creator's earnings on day `day` ([`ALL_TIME`] for the total).
    pub async fn creator_earnings(&self, creator: &str, day: i64) -> Result<i64, ApiError> {
        Ok(self
            .counts
            .get(&creator_pk(creator), &count_ck(day, EARNINGS))
            .await?)
    }

    /// A creator's earnings entries, newest first, a page at a time.
    pub async fn earnings_page(
        &self,
        creator: &str,
        limit: u32,
        paging: Option<PagingState>,
    ) -> Result<(Vec<Earning>, Option<PagingState>), ApiError> {
        let range = ScanRange {
            order: Order::Desc,
            ..ScanRange::all(limit.clamp(1, 100))
        }
        .after(paging);
        let page = self.earnings.scan(&Key::of(creator), &range).await?;
        let mut out = Vec::with_capacity(page.rows.len());
        for (ck, row) in page.rows {
            let mut r = ck.reader();
            let (Some(at), Some(task_id)) = (r.i64(), r.str()) else {
                continue;
            };
            out.push(Earning { at, task_id, row });
        }
        Ok((out, page.paging))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_and_keys() {
        assert_eq!(day_of(0), 0);
        assert_eq!(day_of(86_399_999), 0);
        assert_eq!(day_of(86_400_000), 1);
        assert_eq!(day_of(-1), -1);
        assert_eq!(fee_key("t1", "v2"), "fee:t1:v2");
    }
}
