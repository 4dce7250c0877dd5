//! [`SearchIndex`]: the shared handle, the queue of pending writes, and the background thread
//! that applies them to the one tantivy writer and commits at most once per interval.
//!
//! Writers ([`SearchIndex::upsert`], [`SearchIndex::delete`]) only append to an in-memory queue
//! and never wait for the disk. Whoever holds the writer lock (the commit thread,
//! [`SearchIndex::commit_now`], [`SearchIndex::rebuild`]) drains the queue while holding it, so
//! operations reach tantivy in the order they were made.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tantivy::query::AllQuery;
use tantivy::{IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term};

use crate::folder::{lock_folder, open_or_create, write_version};
use crate::schema::{key_term, to_document, Fields};
use crate::tokenizer::{index_analyzer, INDEX_ANALYZER};
use crate::{DocKind, SearchDoc, SearchError, SearchOptions};

/// tantivy refuses a per-thread indexing budget below 15 MB.
const MIN_WRITER_MEMORY: usize = 15_000_000;

/// The square's search index. Cheap to clone: clones share one writer, one reader and one
/// commit thread. Dropping the last clone commits pending writes and stops the thread.
#[derive(Clone)]
pub struct SearchIndex {
    inner: Arc<Handle>,
}

/// Owns the commit thread; dropped with the last [`SearchIndex`] clone.
struct Handle {
    shared: Arc<Shared>,
    committer: Option<JoinHandle<()>>,
}

/// State shared by the clones and the commit thread.
pub(crate) struct Shared {
    pub(crate) fields: Fields,
    pub(crate) reader: IndexReader,
    writer: Mutex<IndexWriter<TantivyDocument>>,
    pending: Mutex<Pending>,
    wake: Condvar,
    interval: Duration,
    dir: PathBuf,
    needs_rebuild: AtomicBool,
    /// Keeps the folder's lock for as long as the index is open.
    _folder_lock: std::fs::File,
}

#[derive(Default)]
struct Pending {
    ops: Vec<Op>,
    shutdown: bool,
}

/// A write not yet handed to tantivy.
enum Op {
    /// Delete by key, then add (the document's key is the term).
    Upsert(Term, Box<TantivyDocument>),
    Delete(Term),
}

/// Locks, ignoring poisoning: every critical section leaves the guarded state consistent.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl SearchIndex {
    /// Opens the index in `dir` (created if missing) with the default [`SearchOptions`].
    pub fn open(dir: &Path) -> Result<SearchIndex, SearchError> {
        SearchIndex::open_with(dir, SearchOptions::default())
    }

    /// Opens the index in `dir`, creating the folder if needed.
    ///
    /// A folder that is empty, holds an index of another [`crate::SCHEMA_VERSION`], an
    /// unreadable index, or one never completed by [`SearchIndex::rebuild`] is wiped and
    /// recreated empty, and [`SearchIndex::needs_rebuild`] reports it. A non-empty folder that
    /// is not an index is refused (never wiped), and so is a folder another open index holds.
    pub fn open_with(dir: &Path, options: SearchOptions) -> Result<SearchIndex, SearchError> {
        std::fs::create_dir_all(dir)?;
        let folder_lock = lock_folder(dir)?;
        let (index, fields, fresh) = open_or_create(dir)?;
        index
            .tokenizers()
            .register(INDEX_ANALYZER, index_analyzer());
        let writer =
            index.writer_with_num_threads(1, options.writer_memory_bytes.max(MIN_WRITER_MEMORY))?;
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()?;
        let shared = Arc::new(Shared {
            fields,
            reader,
            writer: Mutex::new(writer),
            pending: Mutex::new(Pending::default()),
            wake: Condvar::new(),
            interval: options.commit_interval,
            dir: dir.to_path_buf(),
            needs_rebuild: AtomicBool::new(fresh),
            _folder_lock: folder_lock,
        });
        let for_thread = Arc::clone(&shared);
        let committer = std::thread::Builder::new()
            .name("search-commit".into())
            .spawn(move || run_committer(&for_thread))?;
        Ok(SearchIndex {
            inner: Arc::new(Handle {
                shared,
                committer: Some(committer),
            }),
        })
    }

    pub(crate) fn shared(&self) -> &Shared {
        &self.inner.shared
    }

    /// True while the index is not known to hold every document: it was created fresh (or
    /// wiped) at open and [`SearchIndex::rebuild`] has not completed since. The caller then
    /// refills it from the Store with `rebuild`. This survives restarts: an index that was
    /// never rebuilt is wiped and reported again at the next open.
    pub fn needs_rebuild(&self) -> bool {
        self.shared().needs_rebuild.load(Ordering::Acquire)
    }

    /// Adds `doc`, replacing any document with the same kind and id. Never waits for the disk;
    /// searchable after the next commit (within the commit interval).
    pub fn upsert(&self, doc: SearchDoc) {
        let s = self.shared();
        let document = to_document(&s.fields, &doc);
        let key = key_term(&s.fields, doc.kind, &doc.id);
        s.enqueue(Op::Upsert(key, Box::new(document)));
    }

    /// Removes the document `kind:id` (nothing happens if there is none). Never waits for the
    /// disk; effective after the next commit.
    pub fn delete(&self, kind: DocKind, id: &str) {
        let s = self.shared();
        s.enqueue(Op::Delete(key_term(&s.fields, kind, id)));
    }

    /// Replaces the whole content with `docs` in one commit, then marks the index complete
    /// (clears [`SearchIndex::needs_rebuild`]). Writes queued before the call are applied
    /// first; writes made while `docs` is consumed are applied after it.
    pub fn rebuild(&self, docs: impl IntoIterator<Item = SearchDoc>) -> Result<(), SearchError> {
        let s = self.shared();
        {
            let mut writer = lock(&s.writer);
            let filled = (|| -> Result<(), SearchError> {
                s.apply_queued(&writer)?;
                // A delete by query (unlike `delete_all_documents`) also drops documents still
                // in the indexing pipeline, and nothing added after it.
                writer.delete_query(Box::new(AllQuery))?;
                for doc in docs {
                    writer.add_document(to_document(&s.fields, &doc))?;
                }
                Ok(())
            })();
            if let Err(e) = filled {
                // Leave the previous content in place rather than half of the new one.
                if let Err(rollback) = writer.rollback() {
                    tracing::warn!(error = %rollback, "search index rollback failed");
                }
                return Err(e);
            }
            writer.commit()?;
        }
        s.reader.reload()?;
        write_version(&s.dir)?;
        s.needs_rebuild.store(false, Ordering::Release);
        Ok(())
    }

    /// Applies and commits every queued write now; they are searchable when this returns.
    pub fn commit_now(&self) -> Result<(), SearchError> {
        self.shared().commit(true)
    }
}

impl Shared {
    fn enqueue(&self, op: Op) {
        lock(&self.pending).ops.push(op);
        self.wake.notify_all();
    }

    /// Hands the queued writes to tantivy. The caller holds the writer lock, which keeps
    /// batches in order. Returns whether there was anything, or the first failure (the other
    /// operations are still applied).
    fn apply_queued(&self, writer: &IndexWriter<TantivyDocument>) -> Result<bool, SearchError> {
        let ops = std::mem::take(&mut lock(&self.pending).ops);
        let had_ops = !ops.is_empty();
        let mut first_error = None;
        for op in ops {
            let applied = match op {
                Op::Upsert(key, document) => {
                    writer.delete_term(key);
                    writer.add_document(*document).map(drop)
                }
                Op::Delete(key) => {
                    writer.delete_term(key);
                    Ok(())
                }
            };
            if let Err(e) = applied {
                first_error.get_or_insert(e);
            }
        }
        match first_error {
            Some(e) => Err(e.into()),
            None => Ok(had_ops),
        }
    }

    /// Applies the queue, commits and reloads the reader; unless `always`, only if the queue
    /// held something.
    fn commit(&self, always: bool) -> Result<(), SearchError> {
        {
            let mut writer = lock(&self.writer);
            let applied = self.apply_queued(&writer);
            if !always && matches!(applied, Ok(false)) {
                return Ok(());
            }
            // Commit what did get applied even if an operation failed.
            writer.commit()?;
            applied?;
        }
        self.reader.reload()?;
        Ok(())
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        lock(&self.shared.pending).shutdown = true;
        self.shared.wake.notify_all();
        if let Some(thread) = self.committer.take() {
            if thread.join().is_err() {
                tracing::warn!("search commit thread panicked");
            }
        }
    }
}

/// Waits for queued writes and commits them, no sooner than `interval` after the previous
/// commit; on shutdown commits what is left and returns.
fn run_committer(s: &Shared) {
    let mut last_commit: Option<Instant> = None;
    let mut retry = false;
    loop {
        let mut p = lock(&s.pending);
        while p.ops.is_empty() && !p.shutdown && !retry {
            p = s.wake.wait(p).unwrap_or_else(PoisonError::into_inner);
        }
        if let Some(due) = last_commit.map(|t| t + s.interval) {
            loop {
                let now = Instant::now();
                if p.shutdown || now >= due {
                    break;
                }
                p = s
                    .wake
                    .wait_timeout(p, due - now)
                    .unwrap_or_else(PoisonError::into_inner)
                    .0;
            }
        }
        let shutdown = p.shutdown;
        drop(p);
        // A failed commit is retried after the interval (its writes are already applied).
        retry = match s.commit(retry) {
            Ok(()) => false,
            Err(e) => {
                tracing::warn!(error = %e, "search index commit failed");
                !shutdown
            }
        };
        last_commit = Some(Instant::now());
        if shutdown {
            return;
        }
    }
}
