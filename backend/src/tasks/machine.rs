//! The task state machine as a pure function: given the stored task and
//! what happened, the next stored task (or nothing when the event changes
//! nothing: stale attempt, lower progress, a task already ended). The
//! TaskActor applies it by compare-and-set, so every transition is persisted
//! once even with several nodes.

use protocol::task::{TaskStatus, WorkerEvent};

use super::row::{HoldState, TaskRow};

/// What can happen to a task.
#[derive(Debug, Clone)]
pub enum TaskOp {
    /// A worker reported.
    Event(WorkerEvent),
    /// The owner cancelled.
    Cancel,
    /// The reconciler found the task with no worker holding it: queue it
    /// again with the next attempt, or end it when attempts are used up.
    Requeue { max_attempts: u32 },
}

fn resolve_hold(h: HoldState, success: bool) -> HoldState {
    match h {
        HoldState::Held if success => HoldState::Settled,
        HoldState::Held => HoldState::Voided,
        other => other,
    }
}

/// The next row, or `None` when `op` changes nothing. `live_attempt` is the
/// queue's present attempt for the task (if the queue knows it): a result
/// from any other attempt was reclaimed from a stalled worker and is stale.
pub fn transition(
    row: &TaskRow,
    op: &TaskOp,
    live_attempt: Option<u32>,
    now: i64,
) -> Option<TaskRow> {
    if row.status.is_final() {
        return None;
    }
    let mut next = row.clone();
    next.updated_at = now;
    match op {
        TaskOp::Event(ev) => {
            let attempt = ev.attempt();
            let stale_result = attempt < row.attempt || live_attempt.is_some_and(|a| a != attempt);
            match ev {
                WorkerEvent::Started { .. } => {
                    if attempt < row.attempt {
                        return None;
                    }
                    if attempt > row.attempt {
                        next.process = 0;
                    }
                    next.attempt = attempt;
                    next.status = TaskStatus::Running;
                    next.status_desc = "running".into();
                }
                WorkerEvent::Progress { percent, .. } => {
                    if attempt != row.attempt {
                        return None;
                    }
                    // Never backwards, except 0 (a restart); 100 only on success.
                    let p = (*percent).min(99);
                    if p < row.process && p != 0 {
                        return None;
                    }
                    if p == row.process && row.status == TaskStatus::Running {
                        return None;
                    }
                    next.process = p;
                    next.status = TaskStatus::Running;
                    next.status_desc = "running".into();
                }
                WorkerEvent::Succeeded {
                    outputs,
                    texts,
                    engine,
                    ..
                } => {
                    if stale_result {
                        return None;
                    }
                    next.attempt = attempt;
                    next.status = TaskStatus::Success;
                    next.status_desc = "success".into();
                    next.process = 100;
                    next.outputs = outputs.clone();
                    next.texts = texts.clone();
                    next.engine = Some(engine.clone());
                    next.hold = resolve_hold(row.hold, true);
                    next.finished_at = Some(now);
                }
                WorkerEvent::Failed { reason, .. } => {
                    if stale_result {
                        return None;
                    }
                    next.status = TaskStatus::Ended;
                    next.status_desc = "failed".into();
                    next.reason = Some(reason.clone());
                    next.hold = resolve_hold(row.hold, false);
                    next.finished_at = Some(now);
                }
                WorkerEvent::DeadLettered { reason, .. } => {
                    if attempt < row.attempt {
                        return None;
                    }
                    next.status = TaskStatus::Ended;
                    next.status_desc = "failed".into();
                    next.reason = Some(format!("gave up after {attempt} attempts: {reason}"));
                    next.hold = resolve_hold(row.hold, false);
                    next.finished_at = Some(now);
                }
            }
        }
        TaskOp::Cancel => {
            next.status = TaskStatus::Ended;
            next.status_desc = "user cancelled".into();
            next.reason = Some("cancelled by the user".into());
            next.hold = resolve_hold(row.hold, false);
            next.finished_at = Some(now);
        }
        TaskOp::Requeue { max_attempts } => {
            if row.attempt >= *max_attempts {
                next.status = TaskStatus::Ended;
                next.status_desc = "failed".into();
                next.reason = Some(format!(
                    "no worker finished the job after {} attempts",
                    row.attempt
                ));
                next.hold = resolve_hold(row.hold, false);
                next.finished_at = Some(now);
            } else {
                next.attempt = row.attempt + 1;
                next.job.attempt = next.attempt;
                next.status = TaskStatus::Queued;
                next.status_desc = "queued".into();
                next.process = 0;
            }
        }
    }
    Some(next)
}
