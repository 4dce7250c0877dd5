//! Per-task accounting of pushed progress frames (type 10): how many frames
//! each task got, whether its progress ever went backwards, and whether it
//! ended. Pure, so the loss and order rules are tested on synthetic input.

use std::collections::HashMap;
use std::time::Instant;

use serde::Serialize;

const SUCCESS: u8 = 3;
const ENDED: u8 = 4;

#[derive(Debug, Clone, Default)]
struct Track {
    /// Created by this run (frames for other tasks are counted as foreign).
    ours: bool,
    frames: u64,
    /// 1 queued, 2 running, 3 final; 0 before the first frame.
    rank: u8,
    process: u8,
    status: u8,
    out_of_order: u64,
    ended_at: Option<Instant>,
}

fn rank(status: u8) -> u8 {
    match status {
        1 => 1,
        2 => 2,
        SUCCESS | ENDED => 3,
        _ => 0,
    }
}

/// The tracker's totals.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct ProgressCounts {
    pub tasks: u64,
    pub frames: u64,
    pub out_of_order: u64,
    pub succeeded: u64,
    /// Ended with status 4 (failed or cancelled).
    pub failed: u64,
    /// Never reached status 3.
    pub lost: u64,
    /// Frames for tasks this run did not create.
    pub foreign_frames: u64,
}

#[derive(Debug, Default)]
pub struct ProgressTracker {
    tasks: HashMap<String, Track>,
}

impl ProgressTracker {
    pub fn new() -> ProgressTracker {
        ProgressTracker::default()
    }

    /// Marks a task as created by this run (frames may have come first).
    pub fn expect(&mut self, id: &str) {
        self.tasks.entry(id.to_owned()).or_default().ours = true;
    }

    /// One frame: the task's status code and progress percent, received at `at`.
    pub fn observe(&mut self, id: &str, status: u8, process: u8, at: Instant) {
        let t = self.tasks.entry(id.to_owned()).or_default();
        t.frames += 1;
        let r = rank(status);
        if r != 0 {
            let backwards = r < t.rank || (r == 2 && t.rank == 2 && process < t.process);
            if backwards {
                t.out_of_order += 1;
                return;
            }
            t.rank = r;
            t.process = process;
            t.status = status;
            if r == 3 && t.ended_at.is_none() {
                t.ended_at = Some(at);
            }
        }
    }

    /// When a task first reached a final status.
    pub fn ended_at(&self, id: &str) -> Option<Instant> {
        self.tasks.get(id).and_then(|t| t.ended_at)
    }

    /// True when every task of this run has ended.
    pub fn all_ended(&self) -> bool {
        self.tasks.values().filter(|t| t.ours).all(|t| t.rank == 3)
    }

    pub fn counts(&self) -> ProgressCounts {
        let mut c = ProgressCounts::default();
        for t in self.tasks.values() {
            if !t.ours {
                c.foreign_frames += t.frames;
                continue;
            }
            c.tasks += 1;
            c.frames += t.frames;
            c.out_of_order += t.out_of_order;
            match t.status {
                SUCCESS => c.succeeded += 1,
                ENDED => c.failed += 1,
                _ => {}
            }
            if t.status != SUCCESS {
                c.lost += 1;
            }
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_order_tasks_end_without_loss() {
        let now = Instant::now();
        let mut t = ProgressTracker::new();
        for id in ["a", "b"] {
            t.expect(id);
            t.observe(id, 1, 0, now);
            for p in [10, 50, 90] {
                t.observe(id, 2, p, now);
            }
            assert!(!t.all_ended() || id == "b");
            t.observe(id, 3, 100, now);
        }
        assert!(t.all_ended());
        let c = t.counts();
        assert_eq!(c.tasks, 2);
        assert_eq!(c.frames, 10);
        assert_eq!((c.out_of_order, c.succeeded, c.lost), (0, 2, 0));
        assert_eq!(t.ended_at("a"), Some(now));
    }

    #[test]
    fn backwards_progress_and_status_count_as_out_of_order() {
        let now = Instant::now();
        let mut t = ProgressTracker::new();
        t.expect("a");
        t.observe("a", 2, 40, now);
        t.observe("a", 2, 30, now); // progress went back
        t.observe("a", 1, 0, now); // running -> queued
        t.observe("a", 2, 45, now);
        t.observe("a", 3, 100, now);
        t.observe("a", 2, 99, now); // after the end
        let c = t.counts();
        assert_eq!(c.frames, 6);
        assert_eq!(c.out_of_order, 3);
        assert_eq!((c.succeeded, c.lost), (1, 0));
    }

    #[test]
    fn unfinished_failed_and_foreign_are_told_apart() {
        let now = Instant::now();
        let mut t = ProgressTracker::new();
        // A frame may arrive before the create call answers.
        t.observe("early", 1, 0, now);
        t.expect("early");
        t.expect("silent");
        t.expect("failed");
        t.observe("failed", 4, 20, now);
        t.observe("other", 2, 5, now);
        assert!(!t.all_ended());
        let c = t.counts();
        assert_eq!(c.tasks, 3);
        assert_eq!(c.frames, 2);
        assert_eq!(c.failed, 1);
        assert_eq!(c.succeeded, 0);
        assert_eq!(c.lost, 3);
        assert_eq!(c.foreign_frames, 1);
    }
}
