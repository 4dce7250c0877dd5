//! The live actors of one kind on this node, by id (a task, a chat session,
//! a channel): looked up, started on demand, and forgotten when they stop.
//! Shared by the task, chat and channel registries.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use actix::{Actor, Addr, Context};

use crate::error::ApiError;

pub struct ActorMap<A: Actor<Context = Context<A>>> {
    /// A std mutex: held only to look up or insert, never across an await.
    actors: Arc<Mutex<HashMap<String, Addr<A>>>>,
}

impl<A: Actor<Context = Context<A>>> Clone for ActorMap<A> {
    fn clone(&self) -> Self {
        ActorMap {
            actors: self.actors.clone(),
        }
    }
}

impl<A: Actor<Context = Context<A>>> Default for ActorMap<A> {
    fn default() -> Self {
        ActorMap {
            actors: Arc::new(Mutex::new(HashMap::new())),
        }
    }
}

impl<A: Actor<Context = Context<A>>> ActorMap<A> {
    /// Drops `id`'s entry if its actor has stopped (a live replacement stays).
    pub fn forget(&self, id: &str) {
        if let Ok(mut m) = self.actors.lock() {
            if m.get(id).is_some_and(|a| !a.connected()) {
                m.remove(id);
            }
        }
    }

    /// The live actor of `id`; with `make`, one is started when none runs.
    pub fn get(&self, id: &str, make: Option<&dyn Fn() -> A>) -> Result<Option<Addr<A>>, ApiError> {
        let mut m = self
            .actors
            .lock()
            .map_err(|_| ApiError::internal("actor registry poisoned"))?;
        if let Some(a) = m.get(id).filter(|a| a.connected()) {
            return Ok(Some(a.clone()));
        }
        let Some(make) = make else {
            return Ok(None);
        };
        let addr = make().start();
        m.insert(id.to_owned(), addr.clone());
        Ok(Some(addr))
    }

    /// Entries held (live or not yet forgotten).
    pub fn count(&self) -> usize {
        self.actors.lock().map(|m| m.len()).unwrap_or(0)
    }
}
