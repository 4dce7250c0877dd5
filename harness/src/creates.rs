//! Task creates on a fixed timetable (`create`, `progress`, soak's
//! progress part): the sender, each answer streamed to the caller as it
//! arrives, and the outcome of each told apart (accepted, refused by the
//! rate limit, out of credits, refused otherwise, timed out, failed).

use std::sync::Arc;
use std::time::{Duration, Instant};

use protocol::client::{ClientError, RestClient};
use protocol::ErrorCode;
use serde::Serialize;
use serde_json::Value;
use tokio::sync::mpsc;

use crate::scenarios::{ANSWER_TIMEOUT, MAX_IN_FLIGHT, MAX_SENDS};
use crate::timetable::{SendLog, Timetable};
use crate::HarnessError;

/// The body of create `i`.
pub(crate) type BodyFn = Arc<dyn Fn(u64) -> Value + Send + Sync>;

/// How one create ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// The task's id.
    Accepted(String),
    /// Refused by the per-account create limit (TooManyRequests, HTTP 429).
    RateLimited,
    /// Refused because the account's credits ran out (CoinsNotEnough).
    NoCredits,
    /// Refused for another reason (the API's code, for the report).
    Refused(i32),
    /// No answer within [`ANSWER_TIMEOUT`].
    TimedOut,
    /// The request failed below the API (connection, body).
    Failed,
}

impl Outcome {
    /// The outcome of a create call that answered (or not) in time.
    pub(crate) fn of(
        res: Result<Result<String, ClientError>, tokio::time::error::Elapsed>,
    ) -> Outcome {
        match res {
            Ok(Ok(id)) => Outcome::Accepted(id),
            Ok(Err(e)) => match (e.status().map(|s| s.code), e.http_status()) {
                (Some(c), _) if c == ErrorCode::TooManyRequests.code() => Outcome::RateLimited,
                (_, Some(429)) => Outcome::RateLimited,
                (Some(c), _) if c == ErrorCode::CoinsNotEnough.code() => Outcome::NoCredits,
                (Some(c), _) => Outcome::Refused(c),
                (None, _) => Outcome::Failed,
            },
            Err(_) => Outcome::TimedOut,
        }
    }
}

/// One create's answer: its number (create `i` is sent as user `i %
/// users`, see [`user_of`]), its intended send time, how long its answer
/// took from that time, and the outcome.
#[derive(Debug, Clone)]
pub(crate) struct CreateAnswer {
    pub(crate) i: u64,
    pub(crate) intended: Instant,
    pub(crate) took: Duration,
    pub(crate) outcome: Outcome,
}

/// The user that sent create `i`.
pub(crate) fn user_of(i: u64, users: usize) -> usize {
    usize::try_from(i).unwrap_or(0) % users.max(1)
}

/// The creates' outcomes counted, for the report's breakdown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub(crate) struct CreateTally {
    pub(crate) accepted: u64,
    pub(crate) rate_limited: u64,
    pub(crate) no_credits: u64,
    pub(crate) refused_other: u64,
    pub(crate) timed_out: u64,
    pub(crate) failed: u64,
    /// The API code of the first "other" refusal, to say what it was.
    pub(crate) first_other_code: Option<i32>,
}

impl CreateTally {
    pub(crate) fn add(&mut self, o: &Outcome) {
        match o {
            Outcome::Accepted(_) => self.accepted += 1,
            Outcome::RateLimited => self.rate_limited += 1,
            Outcome::NoCredits => self.no_credits += 1,
            Outcome::Refused(c) => {
                self.refused_other += 1;
                self.first_other_code.get_or_insert(*c);
            }
            Outcome::TimedOut => self.timed_out += 1,
            Outcome::Failed => self.failed += 1,
        }
    }

    /// Every refusal the API answered.
    pub(crate) fn refused(&self) -> u64 {
        self.rate_limited + self.no_credits + self.refused_other
    }

    /// Every create that got no API answer.
    pub(crate) fn unanswered(&self) -> u64 {
        self.timed_out + self.failed
    }

    /// The breakdown as report counts.
    pub(crate) fn counts(&self) -> [(&'static str, u64); 7] {
        [
            ("refused", self.refused()),
            ("refused_rate_limited", self.rate_limited),
            ("refused_no_credits", self.no_credits),
            ("refused_other", self.refused_other),
            ("timed_out", self.timed_out),
            ("failed_transport", self.failed),
            ("failed", self.unanswered()),
        ]
    }
}

/// What the sender does: create `i` at `tt.intended(i)` for `i < count`,
/// none intended at or after `until`, and none sent after `until` either
/// (a sender held back by [`MAX_IN_FLIGHT`] stops at the deadline instead
/// of sending its backlog late).
pub(crate) struct CreatePlan {
    pub(crate) path: &'static str,
    pub(crate) body: BodyFn,
    pub(crate) tt: Timetable,
    pub(crate) count: u64,
    pub(crate) until: Instant,
}

/// Creates tasks per `plan`, round-robin over `users`, sending each
/// answer on `answers` as it arrives. Returns, once every answer is in
/// (each is bounded by [`ANSWER_TIMEOUT`]), the sender's lateness and how
/// many creates the plan held that were never sent (the deadline came
/// first).
pub(crate) async fn create_on_timetable(
    users: Vec<RestClient>,
    plan: CreatePlan,
    answers: mpsc::UnboundedSender<CreateAnswer>,
) -> Result<(SendLog, u64), HarnessError> {
    if users.is_empty() {
        return Err(HarnessError::Setup("no users".into()));
    }
    let sem = Arc::new(tokio::sync::Semaphore::new(MAX_IN_FLIGHT));
    let mut set = tokio::task::JoinSet::new();
    let mut log = SendLog::default();
    let count = plan.count.min(MAX_SENDS);
    let mut unsent = 0;
    for i in 0..count {
        let intended = plan.tt.intended(i);
        if intended >= plan.until {
            unsent = count - i;
            break;
        }
        tokio::time::sleep_until(tokio::time::Instant::from_std(intended)).await;
        let until = tokio::time::Instant::from_std(plan.until);
        let permit = match tokio::time::timeout_at(until, sem.clone().acquire_owned()).await {
            Ok(p) => p.map_err(|e| HarnessError::Setup(e.to_string()))?,
            Err(_) => {
                unsent = count - i;
                break;
            }
        };
        log.note(intended, Instant::now());
        let client = users
            .get(user_of(i, users.len()))
            .cloned()
            .ok_or_else(|| HarnessError::Setup("no users".into()))?;
        let b = (plan.body)(i);
        let path = plan.path;
        let tx = answers.clone();
        set.spawn(async move {
            let res = tokio::time::timeout(ANSWER_TIMEOUT, client.create_task(path, &b)).await;
            drop(permit);
            let took = intended.elapsed();
            // The collector may have stopped listening; the run goes on.
            let _ = tx.send(CreateAnswer {
                i,
                intended,
                took,
                outcome: Outcome::of(res),
            });
        });
        // Reap finished creates as we go so the set stays small.
        while set.try_join_next().is_some() {}
    }
    while set.join_next().await.is_some() {}
    Ok((log, unsent))
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::Status;

    fn api(http: u16, code: ErrorCode) -> ClientError {
        ClientError::Api {
            http,
            status: Status {
                code: code.code(),
                msg: String::new(),
                key: None,
            },
        }
    }

    async fn elapsed() -> tokio::time::error::Elapsed {
        tokio::time::timeout(Duration::ZERO, std::future::pending::<()>())
            .await
            .unwrap_err()
    }

    #[tokio::test]
    async fn outcomes_tell_the_limit_credits_and_other_refusals_apart() {
        let cases = [
            (Ok(Ok("t1".to_owned())), Outcome::Accepted("t1".into())),
            (
                Ok(Err(api(429, ErrorCode::TooManyRequests))),
                Outcome::RateLimited,
            ),
            (
                Ok(Err(api(403, ErrorCode::CoinsNotEnough))),
                Outcome::NoCredits,
            ),
            (
                Ok(Err(api(400, ErrorCode::InvalidParams))),
                Outcome::Refused(ErrorCode::InvalidParams.code()),
            ),
            (
                Ok(Err(ClientError::Unexpected("reset".into()))),
                Outcome::Failed,
            ),
            (Err(elapsed().await), Outcome::TimedOut),
        ];
        let mut tally = CreateTally::default();
        for (res, want) in cases {
            let got = Outcome::of(res);
            assert_eq!(got, want);
            tally.add(&got);
        }
        tally.add(&Outcome::RateLimited);
        assert_eq!(tally.accepted, 1);
        assert_eq!(
            (tally.rate_limited, tally.no_credits, tally.refused_other),
            (2, 1, 1)
        );
        assert_eq!((tally.refused(), tally.unanswered()), (4, 2));
        assert_eq!(
            tally.first_other_code,
            Some(ErrorCode::InvalidParams.code())
        );
        let c: std::collections::BTreeMap<_, _> = tally.counts().into_iter().collect();
        assert_eq!(c["refused"], 4);
        assert_eq!(c["refused_rate_limited"], 2);
        assert_eq!(c["failed"], 2);
        assert_eq!(c["timed_out"], 1);
        assert_eq!(c["failed_transport"], 1);
    }

    #[test]
    fn creates_round_robin_over_users() {
        let owners: Vec<usize> = (0..7).map(|i| user_of(i, 3)).collect();
        assert_eq!(owners, [0, 1, 2, 0, 1, 2, 0]);
        assert_eq!(user_of(5, 0), 0);
    }
}
