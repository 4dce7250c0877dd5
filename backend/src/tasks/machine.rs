//! The task state machine as a pure function: given the stored task and
//! what happened, the next stored task (or nothing when the event changes
//! nothing: stale attempt, lower progress, a task already ended). The
//! TaskActor applies it by compare-and-set, so every status change is
//! persisted once even with several nodes; a change of progress alone
//! ([`is_progress_only`]) may stay in the actor's memory for a moment.

use protocol::task::{TaskStatus, WorkerEvent};

use super::row::{HoldState, TaskRow};

/// `status_desc` of a task its owner cancelled.
pub const CANCELLED_DESC: &str = "user cancelled";

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

/// Whether `op` can at most move the progress of `row`: a worker's progress
/// report while the task already runs at that report's attempt. Whatever
/// [`transition`] makes of it then differs from `row` only in `process` and
/// `updated_at` (status, attempt, hold, outputs stay), so the TaskActor may
/// keep it in memory and persist it later; every other op (the first step
/// into Running included) can change the status and is persisted at once.
pub fn is_progress_only(row: &TaskRow, op: &TaskOp) -> bool {
    matches!(
        op,
        TaskOp::Event(WorkerEvent::Progress { attempt, .. })
            if row.status == TaskStatus::Running && *attempt == row.attempt
    )
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
            next.status_desc = CANCELLED_DESC.into();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::row::Owner;
    use protocol::task::{Action, Category, EngineInfo, JobOutput, JobSpec, SpeedType};

    fn row() -> TaskRow {
        TaskRow {
            id: "t1".into(),
            owner: Owner::Account("a1".into()),
            action: Action::TextToImage,
            category: Category::Normal,
            speed: SpeedType::Normal,
            status: TaskStatus::Queued,
            process: 0,
            attempt: 1,
            status_desc: "queued".into(),
            reason: None,
            create_at: 1,
            updated_at: 1,
            finished_at: None,
            job: JobSpec {
                task_id: "t1".into(),
                attempt: 1,
                action: Action::TextToImage,
                family: "sd".into(),
                model: "m".into(),
                loras: vec![],
                prompt: "p".into(),
                negative_prompt: String::new(),
                width: 512,
                height: 512,
                n_iter: 1,
                steps: 20,
                cfg_scale: 7.0,
                seed: 1,
                sampler: "Euler".into(),
                denoising_strength: 0.5,
                inputs: vec![],
                upscale_ratio: 0.0,
                left_margin: 0,
                up_margin: 0,
                control: None,
                frames: 0,
                face_strength: 0.0,
                video: None,
                audio: None,
                model_file: None,
                embeddings: Vec::new(),
                train: None,
            },
            request: serde_json::Value::Null,
            prompt: "p".into(),
            cost: 2,
            hold: HoldState::Held,
            input_urls: vec![],
            outputs: vec![],
            texts: vec![],
            engine: None,
            estimate_secs: 10,
            saved: false,
            channel_id: None,
            channel_private: false,
            published: Vec::new(),
            model_uses: Vec::new(),
        }
    }

    fn ev(e: WorkerEvent) -> TaskOp {
        TaskOp::Event(e)
    }
    fn progress(attempt: u32, percent: u8) -> TaskOp {
        ev(WorkerEvent::Progress {
            task_id: "t1".into(),
            attempt,
            percent,
        })
    }
    fn success(attempt: u32) -> TaskOp {
        ev(WorkerEvent::Succeeded {
            task_id: "t1".into(),
            attempt,
            outputs: vec![JobOutput {
                key: "t/t1/x.png".into(),
                mime: "image/png".into(),
                width: 512,
                height: 512,
                seed: 1,
                hls: None,
                nsfw: None,
            }],
            texts: vec![],
            engine: EngineInfo::default(),
        })
    }

    #[test]
    fn progress_never_goes_backwards_except_zero() {
        let r = row();
        let r = transition(&r, &progress(1, 40), None, 2).unwrap();
        assert_eq!((r.status, r.process), (TaskStatus::Running, 40));
        assert!(transition(&r, &progress(1, 30), None, 3).is_none());
        assert!(transition(&r, &progress(1, 40), None, 3).is_none());
        let z = transition(&r, &progress(1, 0), None, 3).unwrap();
        assert_eq!(z.process, 0);
        // 100 waits for the stored outputs: progress caps at 99.
        assert_eq!(
            transition(&r, &progress(1, 100), None, 3).unwrap().process,
            99
        );
    }

    #[test]
    fn stale_attempts_are_ignored() {
        let mut r = row();
        r.attempt = 2;
        assert!(transition(&r, &progress(1, 50), None, 2).is_none());
        assert!(
            transition(&r, &success(1), None, 2).is_none(),
            "late result of a reclaimed job"
        );
        // The queue moved on to attempt 3: a result of attempt 2 is stale too.
        assert!(transition(&r, &success(2), Some(3), 2).is_none());
        let done = transition(&r, &success(2), Some(2), 2).unwrap();
        assert_eq!(
            (done.status, done.process, done.hold),
            (TaskStatus::Success, 100, HoldState::Settled)
        );
    }

    #[test]
    fn ended_tasks_never_change_and_holds_resolve_once() {
        let r = row();
        let cancelled = transition(&r, &TaskOp::Cancel, None, 2).unwrap();
        assert_eq!(cancelled.status_desc, "user cancelled");
        assert_eq!(cancelled.hold, HoldState::Voided);
        assert!(transition(&cancelled, &success(1), Some(1), 3).is_none());
        assert!(transition(&cancelled, &TaskOp::Cancel, None, 3).is_none());
        let failed = transition(
            &r,
            &ev(WorkerEvent::Failed {
                task_id: "t1".into(),
                attempt: 1,
                reason: "bad".into(),
                retryable: false,
            }),
            None,
            2,
        )
        .unwrap();
        assert_eq!(
            (failed.status, failed.hold),
            (TaskStatus::Ended, HoldState::Voided)
        );
    }

    #[test]
    fn requeue_bumps_the_attempt_until_the_limit() {
        let r = row();
        let q = transition(&r, &TaskOp::Requeue { max_attempts: 2 }, None, 2).unwrap();
        assert_eq!(
            (q.attempt, q.job.attempt, q.status),
            (2, 2, TaskStatus::Queued)
        );
        let end = transition(&q, &TaskOp::Requeue { max_attempts: 2 }, None, 3).unwrap();
        assert_eq!(
            (end.status, end.hold),
            (TaskStatus::Ended, HoldState::Voided)
        );
    }

    #[test]
    fn progress_only_changes_nothing_but_the_percent() {
        let queued = row();
        // The first step into Running is a status change.
        assert!(!is_progress_only(&queued, &progress(1, 10)));
        let running = transition(&queued, &progress(1, 10), None, 2).unwrap();
        assert!(is_progress_only(&running, &progress(1, 30)));
        // Another attempt's report, or any other op, is not.
        assert!(!is_progress_only(&running, &progress(2, 30)));
        assert!(!is_progress_only(&running, &success(1)));
        assert!(!is_progress_only(&running, &TaskOp::Cancel));
        assert!(!is_progress_only(
            &running,
            &TaskOp::Requeue { max_attempts: 3 }
        ));
        for percent in [0u8, 5, 10, 11, 50, 99, 100, 255] {
            let op = progress(1, percent);
            assert!(is_progress_only(&running, &op));
            if let Some(next) = transition(&running, &op, None, 9) {
                let mut same = next.clone();
                same.process = running.process;
                same.updated_at = running.updated_at;
                assert_eq!(same, running, "only the percent moved at {percent}");
                assert!(next.process <= 99);
            }
        }
    }

    #[test]
    fn a_newer_attempt_starting_resets_progress() {
        let r = transition(&row(), &progress(1, 60), None, 2).unwrap();
        let s = transition(
            &r,
            &ev(WorkerEvent::Started {
                task_id: "t1".into(),
                attempt: 2,
                worker: "w".into(),
            }),
            None,
            3,
        )
        .unwrap();
        assert_eq!((s.attempt, s.process), (2, 0));
    }
}
