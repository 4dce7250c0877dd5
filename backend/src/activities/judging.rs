//! Judging a period and paying its prizes, exactly once.
//!
//! The excellent list is computed once (votes: the vote rows cast before
//! the period's end, counted per contribution still shown; picks: the
//! operators' list) and stored by insert-if-absent, so whoever judges
//! first decides and every later run reads the same list. Each prize is
//! then granted through the ledger with the key
//! `activity:{id}:{period}:{rank}` (`Ledger::grant` is idempotent by key),
//! and only then is the period marked judged on the activity. A crash
//! anywhere is finished by the next run (the operator's call or the
//! sweep), which pays what is missing and nothing twice.

use std::time::Duration;

use infra::store::{Key, ScanRange};
use protocol::activity::rules::{self, Candidate};
use protocol::activity::{Judging, PeriodResultView};
use protocol::ErrorCode;

use super::{ActivityRow, ActivityService, EntryRow, ResultRow, WinnerRow, DEFS_PK};
use crate::error::ApiError;

impl ActivityService {
    /// Votes cast for `entry_id` before `end` (the rows, not the cached count).
    async fn count_votes(&self, entry_id: &str, end: i64) -> Result<i64, ApiError> {
        let mut n = 0i64;
        let mut paging = None;
        loop {
            let page = self
                .inner
                .t
                .votes
                .scan(&Key::of(entry_id), &ScanRange::all(1000).after(paging))
                .await?;
            n += page.rows.iter().filter(|(_, at)| *at < end).count() as i64;
            match page.paging {
                Some(p) => paging = Some(p),
                None => return Ok(n),
            }
        }
    }

    /// The period's contributions still shown, with their counted votes.
    async fn candidates(
        &self,
        row: &ActivityRow,
        period: u32,
        end: i64,
    ) -> Result<(Vec<EntryRow>, Vec<Candidate>), ApiError> {
        let entries = self.period_entries(&row.id, period).await?;
        let shown = self.shown(&entries).await?;
        let entries: Vec<EntryRow> = entries
            .into_iter()
            .zip(shown)
            .filter(|(_, s)| *s)
            .map(|(e, _)| e)
            .collect();
        let mut cands = Vec::with_capacity(entries.len());
        for e in &entries {
            cands.push(Candidate {
                key: e.entry_id.clone(),
                account: e.account.clone(),
                votes: if row.def.judging == Judging::Votes {
                    self.count_votes(&e.entry_id, end).await?
                } else {
                    e.votes
                },
                at: e.at,
            });
        }
        Ok((entries, cands))
    }

    /// Judges a period (operators' `judge` and `close`, and the sweep):
    /// computes and stores its excellent list once, pays its prizes once,
    /// marks it judged. `picks` only where operators pick.
    pub async fn judge(
        &self,
        id: &str,
        period: u32,
        picks: Option<Vec<String>>,
        by: Option<&str>,
    ) -> Result<PeriodResultView, ApiError> {
        let row = self.activity(id).await?;
        let p = *row
            .def
            .periods
            .get(period as usize)
            .ok_or_else(|| ApiError::with_msg(ErrorCode::InvalidParams, "no such period"))?;
        if row.def.judging == Judging::Votes && picks.is_some() {
            return Err(ApiError::with_msg(
                ErrorCode::ActivityPicksInvalid,
                "picks: this activity is judged by votes",
            ));
        }
        let existing = self.result_of(id, period).await?;
        let (result, fresh) = match existing {
            Some(r) => {
                if let Some(picks) = &picks {
                    let stored: Vec<&str> = r.winners.iter().map(|w| w.entry_id.as_str()).collect();
                    let asked: Vec<&str> = picks.iter().map(String::as_str).collect();
                    if stored != asked {
                        return Err(ErrorCode::ActivityAlreadyJudged.into());
                    }
                }
                (r, false)
            }
            None => {
                let now = self.now();
                let closed = row.closed_at(period);
                if !rules::judgeable(&p, closed, now) {
                    return Err(ApiError::with_msg(
                        ErrorCode::ActivityNotJudgeable,
                        "the period has not ended: close it first",
                    ));
                }
                let end = rules::effective_end(&p, closed);
                let (_, cands) = self.candidates(&row, period, end).await?;
                let order = match row.def.judging {
                    Judging::Votes => rules::rank_by_votes(&cands, row.def.excellent_count),
                    Judging::Picks => {
                        let picks = picks.as_deref().ok_or_else(|| {
                            ApiError::with_msg(
                                ErrorCode::ActivityNotJudgeable,
                                "this activity is judged by picks: send them",
                            )
                        })?;
                        rules::check_picks(picks, &cands, row.def.excellent_count).map_err(
                            |m| ApiError::with_msg(ErrorCode::ActivityPicksInvalid, m),
                        )?
                    }
                };
                let winners = order
                    .into_iter()
                    .filter_map(|i| cands.get(i))
                    .enumerate()
                    .map(|(place, c)| {
                        let rank = u32::try_from(place + 1).unwrap_or(u32::MAX);
                        WinnerRow {
                            rank,
                            entry_id: c.key.clone(),
                            account: c.account.clone(),
                            votes: c.votes,
                            prize: rules::prize(&row.def.prizes, rank),
                        }
                    })
                    .collect();
                let r = ResultRow {
                    judged_at: now,
                    judging: row.def.judging,
                    winners,
                    by: by.map(str::to_owned),
                };
                match self
                    .inner
                    .t
                    .results
                    .insert_if_absent(&Key::of(id), &Key::empty().u64(u64::from(period)), &r)
                    .await?
                {
                    Ok(()) => (r, true),
                    // Another run judged meanwhile: its list stands.
                    Err(present) => (present, false),
                }
            }
        };
        self.pay(&row, period, &result, fresh).await?;
        let row = if row.is_judged(period) {
            row
        } else {
            self.inner
                .t
                .defs
                .update(&Key::of(DEFS_PK), &Key::of(id), Some(row), |r| {
                    r.pad();
                    if let Some(j) = r.judged.get_mut(period as usize) {
                        *j = true;
                    }
                })
                .await?
                .ok_or(ErrorCode::ActivityNotFound)?
        };
        self.period_result_view(&row, period, Some(result), by).await
    }

    /// Grants each prize once (keyed) and tells the winners, once: when
    /// this run stored the list, or when it made the grant.
    async fn pay(
        &self,
        row: &ActivityRow,
        period: u32,
        result: &ResultRow,
        fresh: bool,
    ) -> Result<(), ApiError> {
        for w in &result.winners {
            let granted = if w.prize > 0 {
                self.inner
                    .ledger
                    .grant(&w.account, &rules::prize_key(&row.id, period, w.rank), w.prize)
                    .await?
            } else {
                false
            };
            if fresh || granted {
                let text = if w.prize > 0 {
                    format!("{}: rank {} (+{} credits)", row.def.title, w.rank, w.prize)
                } else {
                    format!("{}: rank {}", row.def.title, w.rank)
                };
                self.inner
                    .objects
                    .notify_winner(&w.account, &row.creator, &row.id, &text)
                    .await;
            }
        }
        Ok(())
    }

    /// Judges every period that ended and is not judged yet where users
    /// vote, and finishes any stored result whose payment a crash cut
    /// short. Answers how many periods it judged.
    pub async fn sweep(&self) -> Result<u32, ApiError> {
        let now = self.now();
        let mut n = 0;
        for row in self.all().await? {
            for (i, p) in row.def.periods.iter().enumerate() {
                let period = u32::try_from(i).unwrap_or(u32::MAX);
                if row.is_judged(period) || !rules::judgeable(p, row.closed_at(period), now) {
                    continue;
                }
                let go = match row.def.judging {
                    Judging::Votes => true,
                    Judging::Picks => self.result_of(&row.id, period).await?.is_some(),
                };
                if go {
                    self.judge(&row.id, period, None, None).await?;
                    n += 1;
                }
            }
        }
        Ok(n)
    }
}

/// Runs [`ActivityService::sweep`] every `every`.
pub fn start_sweeper(svc: ActivityService, every: Duration) {
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(every).await;
            match svc.sweep().await {
                Ok(0) => {}
                Ok(n) => tracing::info!(periods = n, "activities: ended periods judged"),
                Err(e) => tracing::warn!(error = %e, "activities: the sweep failed"),
            }
        }
    });
}
