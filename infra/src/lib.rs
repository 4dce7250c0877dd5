//! Ports and adapters: the Store (embedded redb, the store server and its
//! remote client, or ScyllaDB), the Bus (in-process broadcast or Redis),
//! and typed configuration.
//!
//! Architecture Invariant: nothing here knows about the product's HTTP API,
//! actix or the WebSocket; the backend and the actors reach storage and
//! fan-out only through the traits defined here. The one HTTP spoken here is
//! the store server's own small protocol (`store::remote`), as the Scylla
//! adapter speaks CQL.

pub mod bus;
pub mod bus_redis;
mod bus_redis_log;
pub mod config;
pub mod objects;
pub mod queue;
pub mod store;
#[cfg(feature = "test-support")]
pub mod testing;
