//! What the `feed` scenario's writes draw on and what each one is: the
//! works seen on the pages read (likes and comments are about them), the
//! finished tasks waiting to be published, the like state that turns a
//! like into its undo, and [`WritePlanner`], which makes write `j` one
//! call with its path and body.

use std::collections::{HashSet, VecDeque};

use serde_json::{json, Value};

use super::plan::{pick, MixPicker, WriteKind, WriteMix};

/// Work ids kept for likes and comments; beyond it new ids replace old ones.
pub const MAX_WORKS: usize = 20_000;
/// `obj_type` of a picture post (spec 1 §3): what the run likes and comments on.
pub const OBJ_TYPE_PICTURE: u64 = 4;

/// The works seen on the pages read (and published by the run): what
/// likes and comments are about. Bounded: when full, a new id replaces the
/// one at a spread position.
#[derive(Debug, Default)]
pub struct WorkPool {
    ids: Vec<String>,
    known: HashSet<String>,
    added: u64,
}

impl WorkPool {
    pub fn add(&mut self, id: &str) {
        if self.known.contains(id) {
            return;
        }
        self.added += 1;
        if self.ids.len() < MAX_WORKS {
            self.ids.push(id.to_owned());
        } else {
            let at = pick(self.added, self.ids.len());
            if let Some(old) = self.ids.get_mut(at) {
                self.known.remove(old.as_str());
                *old = id.to_owned();
            }
        }
        self.known.insert(id.to_owned());
    }

    /// The work for write `j`, spread over the pool.
    pub fn pick(&self, j: u64) -> Option<&str> {
        self.ids.get(pick(j, self.ids.len())).map(String::as_str)
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }
}

/// Which works each account has liked (by this run), so a like of a work
/// already liked becomes its undo (`like-cancel`), and a failed call puts
/// the state back.
#[derive(Debug, Default)]
pub struct LikeBook {
    liked: HashSet<(usize, String)>,
}

impl LikeBook {
    /// Flips the state of (account, work): `true` when this is a like,
    /// `false` when it is an undo.
    pub fn toggle(&mut self, account: usize, work: &str) -> bool {
        let key = (account, work.to_owned());
        if self.liked.remove(&key) {
            false
        } else {
            self.liked.insert(key);
            true
        }
    }

    /// The call made by [`LikeBook::toggle`] failed: its state is as before.
    pub fn undo(&mut self, account: usize, work: &str) {
        self.toggle(account, work);
    }

    #[cfg(test)]
    pub fn liked(&self, account: usize, work: &str) -> bool {
        self.liked.contains(&(account, work.to_owned()))
    }
}

/// Finished tasks waiting to be published, each by its owner; a task is
/// published once.
#[derive(Debug, Default)]
pub struct TaskPool {
    tasks: VecDeque<(usize, String)>,
}

impl TaskPool {
    pub fn add(&mut self, account: usize, task: String) {
        self.tasks.push_back((account, task));
    }

    pub fn take(&mut self) -> Option<(usize, String)> {
        self.tasks.pop_front()
    }

    pub fn len(&self) -> usize {
        self.tasks.len()
    }
}

/// One write as sent: who sends it and what it is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteOp {
    Like {
        account: usize,
        work: String,
    },
    /// A like of a work this account already liked: its undo.
    Unlike {
        account: usize,
        work: String,
    },
    Comment {
        account: usize,
        work: String,
        j: u64,
    },
    /// A finished task published by its owner.
    Publish {
        account: usize,
        task: String,
        j: u64,
    },
}

impl WriteOp {
    /// The operation's name in the report (`like`, `like_cancel`, `comment`, `publish`).
    pub fn name(&self) -> &'static str {
        match self {
            WriteOp::Like { .. } => "like",
            WriteOp::Unlike { .. } => "like_cancel",
            WriteOp::Comment { .. } => "comment",
            WriteOp::Publish { .. } => "publish",
        }
    }

    pub fn account(&self) -> usize {
        match self {
            WriteOp::Like { account, .. }
            | WriteOp::Unlike { account, .. }
            | WriteOp::Comment { account, .. }
            | WriteOp::Publish { account, .. } => *account,
        }
    }

    /// The call (DESIGN.md, Contracts, "Works and the square").
    pub fn path(&self) -> &'static str {
        match self {
            WriteOp::Like { .. } => "/api/v1/artwork/like",
            WriteOp::Unlike { .. } => "/api/v1/artwork/like-cancel",
            WriteOp::Comment { .. } => "/api/v1/comment2/create",
            WriteOp::Publish { .. } => "/api/v1/post/portfolio/add_v2",
        }
    }

    pub fn body(&self) -> Value {
        match self {
            WriteOp::Like { work, .. } | WriteOp::Unlike { work, .. } => json!({ "id": work }),
            WriteOp::Comment { work, j, .. } => json!({
                "obj_id": work,
                "obj_type": OBJ_TYPE_PICTURE,
                "content": format!("harness comment {j}"),
                "parent_id": null,
            }),
            WriteOp::Publish { task, j, .. } => json!({
                "task_ids": [task],
                "title": format!("harness work {j}"),
                "description": "published by the load harness",
                "tags": ["harness"],
                "visibility": "public",
            }),
        }
    }
}

/// Makes each write: its kind from the mix, its account spread over the
/// run's accounts (a publish goes to the task's owner), its work from the
/// pool. A write that has nothing to act on (no work seen yet, no finished
/// task left) is skipped and said so.
#[derive(Debug)]
pub struct WritePlanner {
    mixer: MixPicker,
    accounts: usize,
    pub works: WorkPool,
    pub likes: LikeBook,
    pub tasks: TaskPool,
}

impl WritePlanner {
    pub fn new(mix: WriteMix, accounts: usize) -> WritePlanner {
        WritePlanner {
            mixer: MixPicker::new(mix),
            accounts: accounts.max(1),
            works: WorkPool::default(),
            likes: LikeBook::default(),
            tasks: TaskPool::default(),
        }
    }

    /// Write `j`, or the kind that had to be skipped.
    pub fn next_write(&mut self, j: u64) -> Result<WriteOp, WriteKind> {
        let kind = self.mixer.next_kind();
        // Salted so the account and the work of one write are not the same pick.
        let account = pick(j ^ 0x5eed, self.accounts);
        match kind {
            WriteKind::Like => {
                let work = self.works.pick(j).ok_or(kind)?.to_owned();
                Ok(if self.likes.toggle(account, &work) {
                    WriteOp::Like { account, work }
                } else {
                    WriteOp::Unlike { account, work }
                })
            }
            WriteKind::Comment => {
                let work = self.works.pick(j).ok_or(kind)?.to_owned();
                Ok(WriteOp::Comment { account, work, j })
            }
            WriteKind::Publish => {
                let (account, task) = self.tasks.take().ok_or(kind)?;
                Ok(WriteOp::Publish { account, task, j })
            }
        }
    }

    /// Write `op` failed: a like or undo did not happen, so its state is
    /// as before.
    pub fn failed(&mut self, op: &WriteOp) {
        if let WriteOp::Like { account, work } | WriteOp::Unlike { account, work } = op {
            self.likes.undo(*account, work);
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic
    )]
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn likes_turn_into_undos_and_failures_restore_the_state() {
        let mut b = LikeBook::default();
        assert!(b.toggle(1, "w"), "first a like");
        assert!(b.liked(1, "w"));
        assert!(!b.toggle(1, "w"), "then its undo");
        assert!(b.toggle(2, "w"), "another account likes on its own");
        assert!(b.toggle(1, "w"));
        b.undo(1, "w");
        assert!(!b.liked(1, "w"), "a failed like leaves it unliked");
        assert!(b.liked(2, "w"));
    }

    #[test]
    fn the_work_pool_dedupes_and_stays_bounded() {
        let mut w = WorkPool::default();
        assert!(w.pick(0).is_none());
        w.add("a");
        w.add("a");
        w.add("b");
        assert_eq!(w.len(), 2);
        let picks: HashSet<&str> = (0..50).filter_map(|j| w.pick(j)).collect();
        assert_eq!(picks, HashSet::from(["a", "b"]));
        for n in 0..(MAX_WORKS + 100) {
            w.add(&format!("w{n}"));
        }
        assert_eq!(w.len(), MAX_WORKS);
        assert_eq!(w.known.len(), MAX_WORKS);
        let mut t = TaskPool::default();
        t.add(3, "t1".into());
        t.add(4, "t2".into());
        assert_eq!(t.take(), Some((3, "t1".into())));
        assert_eq!(t.len(), 1);
    }

    #[test]
    fn writes_follow_the_mix_and_skip_what_has_nothing_to_act_on() {
        let mut p = WritePlanner::new("1,1,1".parse().unwrap(), 5);
        // Nothing seen, no task: every kind is skipped, in the mix's turn.
        let skipped: Vec<WriteKind> = (0..3).map(|j| p.next_write(j).unwrap_err()).collect();
        assert_eq!(
            skipped,
            [WriteKind::Like, WriteKind::Comment, WriteKind::Publish]
        );
        p.works.add("w1");
        p.tasks.add(4, "t1".into());
        let ops: Vec<WriteOp> = (3..6).map(|j| p.next_write(j).unwrap()).collect();
        let WriteOp::Like { account, work } = &ops[0] else {
            panic!("{:?}", ops[0]);
        };
        assert_eq!(work, "w1");
        assert!(p.likes.liked(*account, "w1"));
        assert!(matches!(&ops[1], WriteOp::Comment { work, j: 4, .. } if work == "w1"));
        // A publish goes to the task's owner, and the task is used once.
        assert_eq!(
            ops[2],
            WriteOp::Publish {
                account: 4,
                task: "t1".into(),
                j: 5
            }
        );
        assert_eq!(p.tasks.len(), 0);
        // The same account and work again (write 3's picks): now its undo;
        // a failed undo leaves the work liked.
        let mut again = WritePlanner::new("1,0,0".parse().unwrap(), 5);
        again.works.add("w1");
        let like = again.next_write(3).unwrap();
        let undo = again.next_write(3).unwrap();
        assert_eq!(like.name(), "like");
        assert_eq!(undo.name(), "like_cancel");
        assert_eq!(undo.account(), like.account());
        assert!(!again.likes.liked(like.account(), "w1"));
        again.failed(&undo);
        assert!(again.likes.liked(like.account(), "w1"));
    }

    #[test]
    fn bodies_are_the_contracts() {
        let c = WriteOp::Comment {
            account: 0,
            work: "w".into(),
            j: 7,
        };
        assert_eq!(c.path(), "/api/v1/comment2/create");
        assert_eq!(
            c.body(),
            json!({"obj_id": "w", "obj_type": 4, "content": "harness comment 7", "parent_id": null})
        );
        let p = WriteOp::Publish {
            account: 0,
            task: "t".into(),
            j: 1,
        };
        assert_eq!(p.path(), "/api/v1/post/portfolio/add_v2");
        let b = p.body();
        assert_eq!(b["task_ids"], json!(["t"]));
        assert_eq!(b["visibility"], "public");
        let u = WriteOp::Unlike {
            account: 0,
            work: "w".into(),
        };
        assert_eq!(
            (u.path(), u.body()),
            ("/api/v1/artwork/like-cancel", json!({"id": "w"}))
        );
    }
}
